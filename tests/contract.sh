#!/bin/sh
# tests/contract.sh: what a script can act on (issue 26): exit 4 while the
# boot configuration lacks what install wrote, on every run, read from the
# root; next steps as argv with the root its own element (a root with a
# space); --dry-run names them; other power tools (tuned-ppd,
# power-profiles-daemon) and their warnings in text and JSON;
# --refuse-conflicts (exit 6); the verbs that refuse --json; --kernel the
# root lacks; a relative --profiles-dir.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod python3 "${CC:-cc}"
if [ -z "${IDLECFG_IN_MACHINE:-}" ]; then
        rm -rf "$tmp"
        IDLECFG_IN_MACHINE=1 exec "$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/desktop-sata" sh "$0" "$@"
fi
plan 21

root="$tmp/target root"
mkroot_installed "$TESTS_DATA/machines/desktop-sata" "$root" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/var/lib" "$root/run" "$root/etc/default" "$root/usr/sbin"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"\n' >"$root/etc/default/grub"
: >"$root/usr/sbin/update-grub"
cp -a "$root" "$tmp/orig"
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" --profile balanced "$@"; }
# python3 JSON FILE: assert EXPR on d (the JSON of FILE) and r (the root)
js() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); r = sys.argv[2]; $1" "$2" "$root"; }

# ---- --dry-run names the steps it would need ----
ic install --dry-run --json >"$tmp/dry.json" 2>"$tmp/dry.err"; rc=$?
check "install --dry-run --json: exit 1, next_steps names update-grub as argv, the root one element" js '
u = [s for s in d["next_steps"] if s["id"] == "update-grub"]
assert u and u[0]["argv"] == ["chroot", r, "update-grub"] and u[0]["boot"] is True, d["next_steps"]
assert d["dry_run"] is True and d["boot_incomplete"] is True' "$tmp/dry.json"
[ $rc -eq 1 ] || diag "dry run exit $rc"

# ---- install: exit 4 until update-grub ran, on every run ----
ic install >"$tmp/i1" 2>&1; rc=$?
check "install into a GRUB root: exit 4, update-grub named with the root quoted for the shell" sh -c "
        test $rc -eq 4 && grep -q \"^  \\* chroot '$root' update-grub\$\" '$tmp/i1' || { echo rc=$rc; cat '$tmp/i1'; exit 1; }"
# the line as a shell reads it gives the root as one word
line=$(sed -n 's/^  \* //p' "$tmp/i1" | grep update-grub)
eval "set -- $line"
words=no
[ $# -eq 3 ] && [ "$1" = chroot ] && [ "$2" = "$root" ] && [ "$3" = update-grub ] && words=yes
check "(the quoted line is three words for sh, the root whole)" test "$words" = yes
check "install's text warns of TLP, the tool that sets the same knobs" grep -q '^warning: tlp is installed' "$tmp/i1"
ic install --json >"$tmp/i2.json" 2>&1; rc=$?
check "a second install --json: exit 4, update-grub still a boot step, the TLP warning coded" sh -c "test $rc -eq 4" &&
        check "(JSON)" js '
assert d["changed"] is False and d["boot_incomplete"] is True, d
assert [s["argv"] for s in d["next_steps"]] == [["chroot", r, "update-grub"]], d["next_steps"]
w = [x for x in d["warnings"] if x["code"] == "power-tool-conflict"]
assert [x["tool"] for x in w] == ["tlp"] and w[0]["message"], d["warnings"]
assert {"name": "tlp", "enabled": True, "conflicts": True} in d["power_tools"], d["power_tools"]' "$tmp/i2.json"
ic refresh >"$tmp/r1" 2>&1; rc=$?
check "refresh with nothing changed: exit 4, says update-grub is still to run" sh -c "
        test $rc -eq 4 && grep -q 'still lacks' '$tmp/r1' && grep -q 'update-grub' '$tmp/r1' || { cat '$tmp/r1'; exit 1; }"
ic verify --json >"$tmp/v1.json" 2>"$tmp/v1.err"; rc=$?
check "verify --json: next_steps and boot_incomplete, exit 1 (drift) or 4" sh -c "test $rc -eq 1 -o $rc -eq 4" &&
        check "(JSON)" js '
assert d["installed"] is True and d["boot_incomplete"] is True, d
assert [s["id"] for s in d["next_steps"]] == ["update-grub"], d["next_steps"]' "$tmp/v1.json"

# update-grub as the installer runs it: grub.cfg made after the snippet, with its words
mkdir -p "$root/boot/grub"
words=$(sed -n 's/.*} \(.*\)"$/\1/p' "$root/etc/default/grub.d/idlecfg.cfg")
printf 'menuentry "Debian" {\n  linux /vmlinuz-%s root=/dev/sda1 ro quiet %s\n}\n' "$KVER" "$words" >"$root/boot/grub/grub.cfg"
ic install >"$tmp/i3" 2>&1; rc=$?
ic refresh >"$tmp/r2" 2>&1; rc2=$?
check "once grub.cfg has the words: install exit 0 without a boot step, refresh exit 0 and quiet" sh -c "
        test $rc -eq 0 && test $rc2 -eq 0 && ! grep -q 'update-grub' '$tmp/i3' && test ! -s '$tmp/r2' ||
        { echo rc=$rc rc2=$rc2; cat '$tmp/i3' '$tmp/r2'; exit 1; }"
# a grub.cfg older than the snippet is out of date, words or not
touch -d '2020-01-01' "$root/boot/grub/grub.cfg"
ic refresh >"$tmp/r3" 2>&1; rc=$?
check "a grub.cfg older than the snippet: exit 4 again" sh -c "test $rc -eq 4 && grep -q update-grub '$tmp/r3'"
"$IDLECFG" --root "$root" rollback >/dev/null 2>&1

# ---- other power tools ----
rm -rf "$root" && cp -a "$tmp/orig" "$root"
ic install --refuse-conflicts >"$tmp/rf" 2>&1; rc=$?
check "--refuse-conflicts with TLP in the root: exit 6, says why, writes nothing" sh -c "
        test $rc -eq 6 && grep -q 'refused (--refuse-conflicts): tlp' '$tmp/rf' && test ! -e '$root/var/lib/idlecfg/manifest' &&
        test ! -e '$root/etc/udev/rules.d/70-idlecfg.rules'"
# the same root with tuned-ppd (tuned and its unit) and power-profiles-daemon instead of TLP
rm -f "$root/usr/sbin/tlp" "$root/usr/bin/tlp"
find "$root/etc/systemd" -name 'tlp.service' -exec rm -f {} + 2>/dev/null
mkdir -p "$root/usr/lib/systemd/system" "$root/etc/systemd/system/graphical.target.wants"
: >"$root/usr/sbin/tuned"
: >"$root/usr/lib/systemd/system/tuned-ppd.service"
ln -s /usr/lib/systemd/system/tuned-ppd.service "$root/etc/systemd/system/graphical.target.wants/tuned-ppd.service"
"$IDLECFG" --root "$root" --kernel "$KVER" detect --json >"$tmp/d1.json" 2>/dev/null
check "tuned-ppd is recognised as itself (enabled, sets knobs idlecfg sets), tuned beside it" js '
t = {x["name"]: x for x in d["power_tools"]}
assert t["tuned-ppd"]["enabled"] is True and t["tuned-ppd"]["conflicts"] is True, t
assert "tuned" in t and "tlp" not in t, t' "$tmp/d1.json"
rm -f "$root/usr/sbin/tuned" "$root/usr/lib/systemd/system/tuned-ppd.service" \
        "$root/etc/systemd/system/graphical.target.wants/tuned-ppd.service"
: >"$root/usr/lib/systemd/system/power-profiles-daemon.service"
ic plan --json >"$tmp/p1.json" 2>/dev/null
"$IDLECFG" --root "$root" --kernel "$KVER" detect --json >"$tmp/d2.json" 2>/dev/null
check "power-profiles-daemon (CPU and platform profiles): found, no conflict, no warning" sh -c "
        python3 -c 'import json, sys; t = {x[\"name\"]: x for x in json.load(open(sys.argv[1]))[\"power_tools\"]}
assert t[\"power-profiles-daemon\"][\"conflicts\"] is False, t' '$tmp/d2.json' &&
        python3 -c 'import json, sys; w = json.load(open(sys.argv[1]))[\"warnings\"]
assert not [x for x in w if \"power-profiles-daemon\" in x], w' '$tmp/p1.json'"
ic install --refuse-conflicts >"$tmp/rf2" 2>&1; rc=$?
check "--refuse-conflicts with power-profiles-daemon only: installs (exit 4: update-grub)" sh -c "
        test $rc -eq 4 && test -f '$root/var/lib/idlecfg/manifest' || { echo rc=$rc; cat '$tmp/rf2'; exit 1; }"

# ---- the command line ----
for v in refresh explain; do
        set -- $v
        [ $v = explain ] && set -- explain host0
        ic "$@" --json >"$tmp/j.out" 2>"$tmp/j.err"; rc=$?
        check "$v --json is refused: exit 2, said, nothing on stdout" sh -c "
                test $rc -eq 2 && grep -q '^idlecfg: $v does not take --json' '$tmp/j.err' && test ! -s '$tmp/j.out'"
done
"$IDLECFG" --root "$root" rollback --json >"$tmp/j.out" 2>"$tmp/j.err"; rc=$?
check "rollback --json without --measure: what was done and the next steps as JSON" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1 and d["exit"] == int(sys.argv[2]) and isinstance(d["next_steps"], list), d
assert d["boot_incomplete"] is (int(sys.argv[2]) == 4) and d["messages"], d
assert any("as it was before" in m or "Nothing to roll back" in m for m in d["messages"]), d' "$tmp/j.out" "$rc"
"$IDLECFG" --root "$root" --kernel 9.9.9-none --profile balanced plan >"$tmp/k1" 2>"$tmp/k1.err"; rc=$?
"$IDLECFG" --root "$root" --kernel 9.9.9-none --profile balanced install >"$tmp/k2" 2>"$tmp/k2.err"; rc2=$?
check "a --kernel the root does not have: plan warns (exit 0), install refuses (exit 2)" sh -c "
        test $rc -eq 0 && grep -q 'warning: --kernel 9.9.9-none: no such kernel' '$tmp/k1.err' &&
        test $rc2 -eq 2 && grep -q 'install writes nothing for a kernel the root does not have' '$tmp/k2.err'"
mkdir -p "$tmp/cwd/myprofiles"
printf '[profile]\ndescription = mine\n' >"$tmp/cwd/myprofiles/mine.profile"
# the root "/" (read only: plan): there, paths of the root resolve against "/"
(cd "$tmp/cwd" && "$IDLECFG" --profiles-dir myprofiles --profile mine plan) >"$tmp/pd" 2>&1; rc=$?
check "a relative --profiles-dir is relative to the current directory" sh -c "
        test $rc -eq 0 && grep -q 'profile mine' '$tmp/pd' || { cat '$tmp/pd'; exit 1; }"
"$IDLECFG" --root "$root" --kernel "$KVER" explain nosuchthing >/dev/null 2>"$tmp/e1"; rc=$?
"$IDLECFG" --root "$root" --kernel "$KVER" explain ehci >/dev/null 2>"$tmp/e2"; rc2=$?
check "explain of no device: exit 2, the devices like it (by driver too), or the machine's" sh -c "
        test $rc -eq 2 && grep -q 'Devices of this machine' '$tmp/e1' && grep -q '^  0000:00:00.0 (pci)' '$tmp/e1' &&
        test $rc2 -eq 2 && grep -q 'Devices like it' '$tmp/e2' || { cat '$tmp/e1' '$tmp/e2'; exit 1; }"
done_testing
