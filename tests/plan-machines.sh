#!/bin/sh
# tests/plan-machines.sh: idlecfg plan on every recorded machine and profile:
# golden plans, and the safety rules checked on every one of them
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3
HWDB_QUERY=${HWDB_QUERY:-$top_builddir/tests/hwdb-query}

machines=$(cd "$TESTS_DATA/machines" && ls -d */ | tr -d /)
profiles="balanced powersave performance desktop server"
count=0
for m in $machines; do for p in $profiles; do count=$((count + 1)); done; done
plan $((count * 5 + 5 + 8 + 4))

# fields of the JSON settings, one line each: knob|device|class|value|mechanism|reason
flat() {
        python3 -c '
import json, sys
for s in json.load(sys.stdin)["settings"]:
    print("|".join(str(s.get(k) or "") for k in ("knob", "device", "class", "value", "mechanism", "reason", "module")))'
}

for m in $machines; do
        dir=$TESTS_DATA/machines/$m
        root=$tmp/$m-root
        mkroot_installed "$dir" "$root" || { echo "Bail out! cannot build the root of $m"; exit 1; }
        # the models of the disks on the kernel's NOLPM list, from the detect JSON
        run_machine "$dir" "$IDLECFG" detect --json --root "$root" --kernel "$KVER" >"$tmp/$m.detect.json" 2>/dev/null
        for p in $profiles; do
                run_machine "$dir" "$IDLECFG" plan --json --profile "$p" --root "$root" --kernel "$KVER" \
                        >"$tmp/$m.$p.json" 2>"$tmp/$m.$p.err"
                rc=$?
                check "$m/$p: plan exits 0 with valid JSON" sh -c "test $rc -eq 0 && python3 -m json.tool '$tmp/$m.$p.json' >/dev/null"
                normalize "$root" <"$tmp/$m.$p.json" >"$tmp/norm.json"
                golden_plan "$m/$p: plan matches expected/plan-$p.json" "$dir/expected/plan-$p.json" "$tmp/norm.json"
                flat <"$tmp/$m.$p.json" >"$tmp/flat"
                # SATA hosts that got an ALPM setting must have no disk the hwdb denies
                bad=$(grep '^sata.alpm|' "$tmp/flat" | awk -F'|' '$4 != "" { print $2 }' | while read -r host; do
                        python3 - "$tmp/$m.detect.json" "$host" <<'PY' | while IFS= read -r key; do
import json, sys
inv = json.load(open(sys.argv[1]))
for h in inv["devices"]["sata"]:
    if h["name"] == sys.argv[2]:
        for d in h["children"]:
            print("idlecfg-ata:%s:%s" % (d["ids"].get("model", ""), d["ids"].get("firmware", "")))
PY
                                "$HWDB_QUERY" "$root" "$key" | grep -q '^IDLECFG_SATA_ALPM=deny' && echo "$host"
                        done
                done)
                check "$m/$p: no host of a NOLPM disk gets ALPM" test -z "$bad"
                # HID devices never get autosuspend unless an allowlist says so
                hid=$(python3 - "$tmp/$m.detect.json" <<'PY'
import json, sys
inv = json.load(open(sys.argv[1]))
for u in inv["devices"]["usb"]:
    if any(c["ids"].get("class") == "03" for c in u["children"]):
        print(u["name"])
PY
)
                bad=
                for u in $hid; do
                        grep "^usb.autosuspend|$u|usb|auto|" "$tmp/flat" | grep -vq 'hwdb ' && bad="$bad $u"
                done
                check "$m/$p: no HID device autosuspended without an allowlist entry${bad:+ ($bad)}" test -z "$bad"
                # module parameters: loadable -> modprobe.d, built-in -> command line
                bad=$(awk -F'|' '$5 == "modprobe" && ($7 == "usbcore" || $7 == "pcie_aspm") { print $1 }' "$tmp/flat")
                check "$m/$p: no built-in module parameter in modprobe.d${bad:+ ($bad)}" test -z "$bad"
        done
done

# without systemd's autosuspend lists only the devices they decide change:
# every other setting is as in the golden plan (the comparison a machine
# without udev 252's lists makes for every golden plan above)
m=intel-laptop
root=$tmp/nolists-root
mkroot_installed "$TESTS_DATA/machines/$m" "$root" || { echo "Bail out! cannot build the root of $m"; exit 1; }
rm -f "$root"/usr/lib/udev/hwdb.d/60-autosuspend*.hwdb
run_machine "$TESTS_DATA/machines/$m" "$IDLECFG" plan --json --profile balanced --root "$root" --kernel "$KVER" 2>/dev/null |
        normalize "$root" >"$tmp/nolists.json"
saved_hwdb=$AUTOSUSPEND_HWDB saved_golden=$AUTOSUSPEND_HWDB_GOLDEN
AUTOSUSPEND_HWDB= AUTOSUSPEND_HWDB_GOLDEN=0 golden_left=0
golden_plan "$m/balanced without systemd's lists: as expected/plan-balanced.json" \
        "$TESTS_DATA/machines/$m/expected/plan-balanced.json" "$tmp/nolists.json"
AUTOSUSPEND_HWDB=$saved_hwdb AUTOSUSPEND_HWDB_GOLDEN=$saved_golden
check "... where systemd's lists decide $golden_left settings (the fingerprint reader)" test "$golden_left" -gt 0

# the same machine with snd_hda_intel built in: power_save goes to the command line
m=intel-laptop
root=$tmp/builtin-root
sed 's/^snd_hda_intel loadable/snd_hda_intel builtin/' "$TESTS_DATA/modroot.spec" >"$tmp/builtin.spec"
mkdir -p "$root"
cp -R "$TESTS_DATA/machines/$m/root/." "$root/"
sh "$top_srcdir/tests/mkmodroot.sh" "$tmp/builtin.spec" "$root" "$KVER" >/dev/null 2>&1
mkdir -p "$root/usr/share/idlecfg/profiles"
cp "$top_srcdir"/profiles/*.profile "$root/usr/share/idlecfg/profiles/"
run_machine "$TESTS_DATA/machines/$m" "$IDLECFG" plan --json --profile balanced --root "$root" >"$tmp/builtin.json" 2>&1
check "built-in snd_hda_intel: power_save on the command line" sh -c "
        python3 -c 'import json,sys; s=[x for x in json.load(open(sys.argv[1]))[\"settings\"] if x[\"knob\"]==\"audio.power_save\"]; sys.exit(0 if s and s[0][\"mechanism\"]==\"cmdline\" else 1)' '$tmp/builtin.json'"
run_machine "$TESTS_DATA/machines/$m" "$IDLECFG" plan --format=cmdline --profile balanced --root "$root" >"$tmp/cmdline" 2>&1
check "--format=cmdline carries snd_hda_intel.power_save" grep -q 'snd_hda_intel.power_save=' "$tmp/cmdline"

# a hostile hwdb value never reaches a rule
root=$tmp/intel-laptop-root
mkdir -p "$root/etc/udev/hwdb.d"
printf 'usb:v*\n ID_AUTOSUSPEND=1\n ID_AUTOSUSPEND_DELAY_MS=2000", RUN+="/bin/sh -c reboot\n' >"$root/etc/udev/hwdb.d/99-hostile.hwdb"
run_machine "$TESTS_DATA/machines/$m" "$IDLECFG" plan --format=udev --profile balanced --root "$root" --kernel "$KVER" \
        >"$tmp/hostile.rules" 2>"$tmp/hostile.err"
rc=$?
check "hostile hwdb value: exit 2, error names it, no rule written" sh -c "
        test $rc -eq 2 && grep -q 'RUN' '$tmp/hostile.err' && ! grep -q 'RUN' '$tmp/hostile.rules'"
# an IDLECFG_ value, property or _KERNEL range the planner does not know is an
# error at its file:line (issue #14), for a device that is not present too
rm -f "$root/etc/udev/hwdb.d/99-hostile.hwdb"
for bad in 'IDLECFG_PCI_RUNTIME_PM=bogus' 'IDLECFG_PCI_RUNTIME_PM=Deny' 'IDLECFG_USB_AUTOSUSPEND=off' \
           'IDLECFG_FOO=deny' 'IDLECFG_PCI_RUNTIME_PM_KERNEL=6.1-' 'IDLECFG_PCI_RUNTIME_PM_KERNEL=abc' \
           'IDLECFG_PCI_RUNTIME_PM_KERNEL=<6.1..' 'IDLECFG_ASPM_DENY=L1,L9'; do
        printf '# local\npci:v0000FFFFd*\n%s\n' " $bad" >"$root/etc/udev/hwdb.d/99-local.hwdb"
        run_machine "$TESTS_DATA/machines/$m" "$IDLECFG" plan --format=udev --profile balanced --root "$root" --kernel "$KVER" \
                >"$tmp/bad.out" 2>"$tmp/bad.err"
        rc=$?
        check "hwdb $bad: plan exits 2 naming 99-local.hwdb:3 and the property, prints no plan" sh -c "
                test $rc -eq 2 && grep -q '99-local.hwdb:3: .*${bad%%=*}' '$tmp/bad.err' && ! test -s '$tmp/bad.out'"
done
# install, apply and explain refuse the same way and write nothing
printf '# local\npci:v0000FFFFd*\n IDLECFG_PCI_RUNTIME_PM=Deny\n' >"$root/etc/udev/hwdb.d/99-local.hwdb"
listing() { (cd "$1" && find . -mindepth 1 -path ./run -prune -o -print0 | sort -z | xargs -0 ls -ld --time-style=+%s.%N | awk '{ $4 = ""; print }'; \
        find . -path ./run -prune -o -type f -print0 | sort -z | xargs -0 sha256sum); }
listing "$root" >"$tmp/before.tree"
run_machine "$TESTS_DATA/machines/$m" sh -c '
        "$1" install --root "$2" --profile balanced --kernel "$3" >"$4/inst.out" 2>"$4/inst.err"; echo $? >"$4/inst.rc"
        "$1" apply --root "$2" --profile balanced --kernel "$3" >"$4/apply.out" 2>"$4/apply.err"; echo $? >"$4/apply.rc"
        "$1" explain --root "$2" --profile balanced --kernel "$3" 0000:01:00.0 >"$4/expl.out" 2>"$4/expl.err"; echo $? >"$4/expl.rc"
        ' sh "$IDLECFG" "$root" "$KVER" "$tmp"
listing "$root" >"$tmp/after.tree"
for v in inst apply expl; do
        check "hwdb IDLECFG_PCI_RUNTIME_PM=Deny: $v exits 2 naming 99-local.hwdb:3" sh -c "
                test \"\$(cat '$tmp/$v.rc')\" -eq 2 && grep -q '99-local.hwdb:3: .*IDLECFG_PCI_RUNTIME_PM' '$tmp/$v.err'"
done
check "hwdb IDLECFG_PCI_RUNTIME_PM=Deny: install and apply left the root as it was (no file, manifest or journal)" \
        diff -u "$tmp/before.tree" "$tmp/after.tree"
rm -f "$root/etc/udev/hwdb.d/99-local.hwdb"
done_testing
