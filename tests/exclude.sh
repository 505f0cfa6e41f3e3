#!/bin/sh
# tests/exclude.sh: idlecfg.conf's [exclude DEVICE] sections (#36 point 2) on
# the recorded machines: every DEVICE form, reason and knobs, the skips in
# plan, explain and JSON, no other device changed, module-wide settings said
# so, warnings with file, line and code, the errors; udev rules that never
# match the device (udevadm test under umockdev + unshare -m), apply, verify
# and the power-source table that never write it
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3
PATH=$PATH:/sbin:/usr/sbin
plan 24

m=intel-laptop
dir=$TESTS_DATA/machines/$m
root=$tmp/root
mkroot_installed "$dir" "$root" || { echo "Bail out! no root"; exit 1; }
conf=$root/etc/idlecfg/idlecfg.conf
mkdir -p "$root/etc/idlecfg"
ic() { run_machine "$dir" "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }

ic plan --json --profile balanced >"$tmp/base.json" 2>"$tmp/base.err"
# line numbers matter: the warnings and skips name them
cat >"$conf" <<'EOF'
[exclude 00:1f.5]
reason = SPI flash controller hangs on runtime resume (ticket 7)

[exclude /sys/devices/pci0000:00/0000:00:14.0/usb1/1-7]
reason = camera drops frames
knobs = usb.autosuspend

[exclude 27c6:609c]
reason = fingerprint reader loses its enrolment
knobs = usb.persist

[exclude 0000:00:1f.3]
reason = the codec pops
knobs = audio.power_save

[exclude 1-10]
reason = Bluetooth mouse stutters

[exclude 1234:abcd]
reason = the dock, only sometimes here
EOF
ic plan --json --profile balanced >"$tmp/x.json" 2>"$tmp/x.err"
rc=$?
ic plan --profile balanced >"$tmp/x.txt" 2>&1
check "plan with exclusions and --profile: exit 0, valid JSON" sh -c "test $rc -eq 0 && python3 -m json.tool '$tmp/x.json' >/dev/null"
[ $rc -eq 0 ] || diag "$(cat "$tmp/x.err")"

py() { python3 - "$tmp/x.json" "$tmp/base.json" "$@"; }
check "each DEVICE form matches its device: PCI short and long, sysfs path, USB vendor:product, detect's name" py <<'PY'
import json, sys
x = json.load(open(sys.argv[1]))
got = [(e["device"], e["matched"]) for e in x["exclusions"]]
want = [("00:1f.5", ["0000:00:1f.5"]), ("/sys/devices/pci0000:00/0000:00:14.0/usb1/1-7", ["1-7"]),
        ("27c6:609c", ["1-9"]), ("0000:00:1f.3", ["0000:00:1f.3"]), ("1-10", ["1-10"]), ("1234:abcd", [])]
assert got == want, got
PY

check "the device's setting is a skip carrying the administrator's reason, file and line (JSON)" py <<'PY'
import json, sys
x = json.load(open(sys.argv[1]))
s = [s for s in x["settings"] if s["device"] == "0000:00:1f.5" and s["knob"] == "pci.runtime_pm"]
assert len(s) == 1 and s[0]["skipped"] and s[0]["value"] is None and s[0]["mechanism"] == "none", s
r = s[0]["reason"]
assert "SPI flash controller hangs on runtime resume (ticket 7)" in r and "/etc/idlecfg/idlecfg.conf:1" in r, r
PY
tr '\n' ' ' <"$tmp/x.txt" | tr -s ' ' >"$tmp/x.flat"
check "plan text: the skip with the reason" grep -q 'pci.runtime_pm 0000:00:1f.5 skipped: \[exclude 00:1f.5\] ([^)]*/etc/idlecfg/idlecfg.conf:1): SPI flash controller hangs' "$tmp/x.flat"

check "knobs = limits the exclusion: 1-7 keeps nothing of usb.autosuspend, 1-9 only loses usb.persist" py <<'PY'
import json, sys
x = json.load(open(sys.argv[1]))
def one(dev, knob):
    s = [s for s in x["settings"] if s["device"] == dev and s["knob"] == knob]
    assert len(s) == 1, (dev, knob, s)
    return s[0]
assert one("1-7", "usb.autosuspend")["skipped"] and "camera drops frames" in one("1-7", "usb.autosuspend")["reason"]
assert one("1-9", "usb.persist")["skipped"] and "loses its enrolment" in one("1-9", "usb.persist")["reason"]
assert one("1-9", "usb.autosuspend")["value"] == "auto" and "exclude" not in one("1-9", "usb.autosuspend")["reason"]
assert one("1-10", "bluetooth.autosuspend")["skipped"]
PY

check "no other device changes: every other setting keeps value, place and mechanism" py <<'PY'
import json, sys
x, b = (json.load(open(f)) for f in sys.argv[1:3])
ex = {"0000:00:1f.5", "1-7", "1-9", "0000:00:1f.3", "1-10"}
xs, bs = x["settings"], b["settings"]
assert len(xs) >= len(bs)
for s, t in zip(xs, bs):
    assert (s["knob"], s["devpath"]) == (t["knob"], t["devpath"]), (s, t)
    if s["device"] in ex:
        continue
    for k in ("value", "mechanism", "attr", "module", "param", "per_source"):
        assert s.get(k) == t.get(k), (k, s, t)
for s in xs[len(bs):]:
    assert s["skipped"] and s["device"] in ex, s
changed = [s["device"] for s, t in zip(xs, bs) if s["value"] != t["value"]]
assert sorted(set(changed)) == ["0000:00:1f.5", "1-10", "1-7", "1-9"], changed
PY

check "module-wide knobs stay and say so: a skip row of the device, the setting kept, a warning with file, line and code" py <<'PY'
import json, sys
x = json.load(open(sys.argv[1]))
row = [s for s in x["settings"] if s["device"] == "0000:00:1f.3" and s["knob"] == "audio.power_save"]
assert len(row) == 1 and row[0]["skipped"] and "module-wide" in row[0]["reason"] and "the codec pops" in row[0]["reason"], row
g = [s for s in x["settings"] if s["knob"] == "audio.power_save" and s["mechanism"] == "modprobe"]
assert len(g) == 1 and g[0]["value"] == "10" and "cannot leave 0000:00:1f.3 out" in g[0]["reason"], g
bt = [s for s in x["settings"] if s["device"] == "1-10" and s["knob"] == "bluetooth.btusb_autosuspend"]
assert len(bt) == 1 and "module-wide" in bt[0]["reason"], bt
e = [e for e in x["exclusions"] if e["device"] == "0000:00:1f.3"][0]
assert e["warning"] == "exclude-module-wide" and e["knobs"] == "audio.power_save", e
assert any(w.endswith("idlecfg.conf:14: [exclude 0000:00:1f.3] names only module-wide knobs (audio.power_save): they "
                      "reach every device of their module, and idlecfg cannot leave 0000:00:1f.3 out of them")
           for w in x["warnings"]), x["warnings"]
assert [e["warning"] for e in x["exclusions"] if e["device"] == "1-10"] == [None]
PY

check "an exclusion that matches no device: a warning naming file and line (text), code exclude-no-device (JSON)" sh -c "
        grep -q 'warning: .*/etc/idlecfg/idlecfg.conf:19: \[exclude 1234:abcd\] matches no device' '$tmp/x.flat' &&
        python3 -c 'import json, sys; x = json.load(open(sys.argv[1])); assert [e[\"warning\"] for e in x[\"exclusions\"] if e[\"device\"] == \"1234:abcd\"] == [\"exclude-no-device\"]' '$tmp/x.json'"
ic install --dry-run --json --profile balanced >"$tmp/inst.json" 2>/dev/null
check "install --json: the warnings carry the exclusion codes" python3 - "$tmp/inst.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["warnings"]
codes = sorted(x["code"] for x in w if "[exclude" in x["message"])
assert codes == ["exclude-module-wide", "exclude-no-device"], w
PY

ic plan --json >"$tmp/noprof.json" 2>&1
check "without --profile too (the chassis chooses)" python3 -c '
import json, sys
x = json.load(open(sys.argv[1]))
assert x["profile_reason"] != "--profile" and len(x["exclusions"]) == 6
assert [s["skipped"] for s in x["settings"] if s["device"] == "0000:00:1f.5"] == [True]' "$tmp/noprof.json"

ic explain 00:1f.5 --profile balanced >"$tmp/explain" 2>&1
check "explain: the device's decision is the administrator's reason" grep -q 'pci.runtime_pm: skipped: \[exclude 00:1f.5\] .*SPI flash controller hangs' "$tmp/explain"

# ---- errors: named with file and line, nothing planned ----
cp "$conf" "$tmp/good.conf"
err() {
        printf '%s\n' "$@" >"$conf"
        ic plan --profile balanced >"$tmp/err.out" 2>&1
        echo "rc=$?" >>"$tmp/err.out"
}
err '[main]' 'profile = balanced' '' '[exclude 0000:00:1f.5]' 'knobs = pci.runtime_pm'
check "a section without reason: exit 2, the file and the section's line" sh -c "
        grep -q 'etc/idlecfg/idlecfg.conf:4: \[exclude 0000:00:1f.5\] has no reason' '$tmp/err.out' && grep -qx rc=2 '$tmp/err.out'"
err '[exclude 1-7]' 'reason = flaky' 'knobs = usb.autosuspend usb.bogus'
check "an unknown knob: exit 2, the file and the line of knobs =" sh -c "
        grep -q \"etc/idlecfg/idlecfg.conf:3: unknown knob 'usb.bogus' in \[exclude 1-7\] knobs; valid: \" '$tmp/err.out' && grep -qx rc=2 '$tmp/err.out'"
err '[exclude 1-7]' 'reason = a' '[exclude 1-7]' 'reason = b'
check "the same device twice: exit 2 at the second section" sh -c "
        grep -q 'idlecfg.conf:3: \[exclude 1-7\] given twice (first at line 1)' '$tmp/err.out' && grep -qx rc=2 '$tmp/err.out'"
err '[exclude 0000:00:1f.3]' 'reason = a' '[exclude 0000:00:1F.3]' 'reason = b' '[exclude 00:1f.3]' 'reason = c'
check "one PCI device spelt twice (case): exit 2 at the second section, naming the first" sh -c "
        grep -q 'idlecfg.conf:3: \[exclude 0000:00:1F.3\] names the device of \[exclude 0000:00:1f.3\] (line 1) again' '$tmp/err.out' &&
        grep -qx rc=2 '$tmp/err.out'"
err '[exclude 27c6:609c]' 'reason = a' '[exclude 27C6:609C]' 'reason = b'
check "one USB vendor:product spelt twice (case): exit 2 at the second section" sh -c "
        grep -q 'idlecfg.conf:3: \[exclude 27C6:609C\] names the device of \[exclude 27c6:609c\] (line 1) again' '$tmp/err.out' &&
        grep -qx rc=2 '$tmp/err.out'"
err '[exclude]' 'reason = a'
check "[exclude] without a device: exit 2 at its line" sh -c "
        grep -q 'idlecfg.conf:1: \[exclude\] needs a device' '$tmp/err.out' && grep -qx rc=2 '$tmp/err.out'"
cp "$tmp/good.conf" "$conf"

# ---- apply, verify, the power-source table: never written ----
mkdir -p "$root/run" "$root/var/lib"
cat >"$tmp/apply.sh" <<'SH'
I="$IDLECFG --root $ROOT --kernel $KVER --profile balanced"
$I apply >"$OUT.apply" 2>&1 || exit 1
printf '%s\n' "$(cat "$UMOCKDEV_DIR/sys/devices/pci0000:00/0000:00:1f.5/power/control")" \
        "$(cat "$UMOCKDEV_DIR/sys/devices/pci0000:00/0000:00:00.0/power/control")" >"$OUT.values"
$I verify >"$OUT.verify" 2>&1; echo "verify $?" >>"$OUT.values"
$I rollback >/dev/null 2>&1
SH
ROOT=$root OUT=$tmp/a KVER=$KVER run_machine "$dir" sh "$tmp/apply.sh" >"$tmp/apply.log" 2>&1
check "apply leaves the excluded device as it was (on) and sets the others (auto)" sh -c "
        test \"\$(head -n 2 '$tmp/a.values' | tr '\\n' ' ')\" = 'on auto '"
check "verify after apply: nothing missing or drifted (exit 0); the excluded device's power/control = on kept on purpose, with the reason" sh -c "
        grep -qx 'verify 0' '$tmp/a.values' && grep -q ' 0 drift, 0 missing' '$tmp/a.verify' &&
        grep -q '^  0000:00:1f.5 (pci): runtime PM is off (power/control = on); kept on purpose: skipped: \\[exclude 00:1f.5\\]' '$tmp/a.verify'"

mkdir -p "$root/etc/idlecfg/profiles"
cat >"$root/etc/idlecfg/profiles/switch.profile" <<'EOP'
[profile]
inherit = balanced
[pci]
runtime_pm = ac:on battery:auto
EOP
ic install --profile switch >"$tmp/install.out" 2>&1
check "the power-source table never names the excluded device, and names the others" sh -c "
        test -s '$root/etc/idlecfg/power-source.conf' &&
        ! grep -q '0000:00:1f.5' '$root/etc/idlecfg/power-source.conf' &&
        grep -q '/devices/pci0000:00/0000:00:00.0 ' '$root/etc/idlecfg/power-source.conf'"
check "the installed rules never match it: no rule names its IDs" sh -c "
        test -s '$root/etc/udev/rules.d/70-idlecfg.rules' &&
        ! grep -v '^#' '$root/etc/udev/rules.d/70-idlecfg.rules' | grep -q 'ATTR{device}==\"0x51a4\"'"

# refresh: idlecfg.conf is one of its inputs; a section removed, then added
# back, re-plans and rewrites the rules each time
cp "$conf" "$tmp/good.conf"
printf '[exclude 1234:abcd]\nreason = the dock\n' >"$conf"
ic refresh >"$tmp/refresh1" 2>&1
grep -c 'ATTR{device}=="0x51a4"' "$root/etc/udev/rules.d/70-idlecfg.rules" >"$tmp/refresh.n"
cp "$tmp/good.conf" "$conf"
ic refresh >"$tmp/refresh2" 2>&1
grep -c 'ATTR{device}=="0x51a4"' "$root/etc/udev/rules.d/70-idlecfg.rules" >>"$tmp/refresh.n"
check "refresh: an exclusion removed brings the device's rule back, added again takes it away" sh -c "
        test \"\$(sed -n 1p '$tmp/refresh.n')\" -gt 0 && test \"\$(sed -n 2p '$tmp/refresh.n')\" -eq 0 && grep -q 'profiles: files changed' '$tmp/refresh1' &&
        grep -q 'profiles: files changed' '$tmp/refresh2'"
last_failed && diag "$(cat "$tmp/refresh.n" "$tmp/refresh1")"

# ---- udev: a rule of another device with the same IDs must not match ----
# amd-laptop's host bridges 00:01.0, 00:02.0 and 00:08.0 share 1022:1632: one
# rule fits all three until 00:08.0 is excluded (the one whose path this
# host's /sys is least likely to have: udevadm test runs on it alone)
m=amd-laptop
dir=$TESTS_DATA/machines/$m
aroot=$tmp/aroot
mkroot_installed "$dir" "$aroot" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$aroot/etc/idlecfg"
printf '[exclude 0000:00:08.0]\nreason = bridge firmware bug\n' >"$aroot/etc/idlecfg/idlecfg.conf"
run_machine "$dir" "$IDLECFG" plan --format=udev --profile balanced --root "$aroot" --kernel "$KVER" >"$tmp/70-idlecfg.rules" 2>"$tmp/rules.err"
check "rules of devices sharing the excluded one's IDs are narrowed to their own KERNEL name" sh -c "
        grep -q 'ATTR{device}==\"0x1632\".*KERNEL==\"0000:00:01.0\"' '$tmp/70-idlecfg.rules' &&
        grep -q 'ATTR{device}==\"0x1632\".*KERNEL==\"0000:00:02.0\"' '$tmp/70-idlecfg.rules' &&
        ! grep -v '^#' '$tmp/70-idlecfg.rules' | grep 'ATTR{device}==\"0x1632\"' | grep -vq KERNEL"
if ! command -v udevadm >/dev/null 2>&1; then
        skip "udevadm test: the excluded bridge keeps power/control" "no udevadm"
elif ! mount_ns; then
        skip "udevadm test: the excluded bridge keeps power/control" "$why"
elif [ -e /sys/devices/pci0000:00/0000:00:08.0 ]; then
        skip "udevadm test: the excluded bridge keeps power/control" "the recorded path exists on this host"
else
        udev_sandbox "$tmp/inner.sh"
        cat >>"$tmp/inner.sh" <<'SH'
for f in 08.0; do
        d=/sys/devices/pci0000:00/0000:00:$f
        udevadm test --action=add "$d" >"$out/test.$f" 2>&1
        echo "$f $(cat "$UMOCKDEV_DIR$d/power/control")" >>"$out/control"
done
SH
        mkdir -p "$tmp/out"
        grep -v '^#' "$dir/machine.umockdev" >"$tmp/m.umockdev"
        umockdev-run -d "$tmp/m.umockdev" -- $us sh "$tmp/inner.sh" "$tmp/out" \
                "$(readlink /proc/self/ns/mnt)" "$tmp/70-idlecfg.rules" >"$tmp/udev.log" 2>&1
        check "udevadm test: the excluded 00:08.0 keeps power/control on (the shared rule would set auto)" \
                sh -c "printf '08.0 on\n' | cmp -s - '$tmp/out/control' && grep -q 70-idlecfg.rules '$tmp/out/test.08.0'"
        last_failed && diag "$(cat "$tmp/out/control" "$tmp/udev.log" 2>/dev/null | tail -n 20)"
fi
done_testing
