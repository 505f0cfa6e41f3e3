#!/bin/sh
# tests/swap-source.sh: where the target's swap comes from (src/pipeline/storage.c),
# for resume= and the disks in use. The target's /etc/fstab names the swap
# partition of the recorded desktop (sda3); the "installer's" /proc/swaps
# (IDLECFG_TEST_PROC) lists another partition (sda4). With --root and in a
# chroot (IDLECFG_TEST_CHROOT=1) only the fstab counts; on the running system
# /proc/swaps does too. fstab's syntax as libmount reads it: comments, tabs,
# octal escapes; a line mount cannot parse is a warning naming file:line.
. "$top_srcdir/tests/lib.sh"
need umockdev-run python3
if [ -z "${IDLECFG_IN_MACHINE:-}" ]; then
        rm -rf "$tmp"
        IDLECFG_IN_MACHINE=1 exec "$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/desktop-sata" sh "$0" "$@"
fi
plan 7

root=$tmp/root
mkroot_installed "$TESTS_DATA/machines/desktop-sata" "$root" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/var/lib" "$root/run" "$tmp/proc"
# the installer activated another swap (sda4, 04cc2221-...)
printf 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/sda4                               partition\t1048572\t\t0\t\t-2\n' \
        >"$tmp/proc/swaps"
export IDLECFG_TEST_PROC=$tmp/proc
# a profile that plans resume= from the swap
mkdir -p "$tmp/profiles"
printf '[profile]\ninherit = balanced\n\n[suspend]\nhibernate = yes\n' >"$tmp/profiles/hib.profile"
# swaps DETECT_JSON: "spec device source" per swap (a command, for check's sh -c)
mkdir -p "$tmp/bin"
cat >"$tmp/bin/swaps" <<'PY'
#!/usr/bin/env python3
import json, sys
for s in json.load(open(sys.argv[1]))["storage"]["swap"]:
    print(s["spec"], s["device"], s["source"])
PY
chmod +x "$tmp/bin/swaps"
PATH=$tmp/bin:$PATH
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }

ic detect --json >"$tmp/d1.json" 2>"$tmp/d1.err"
ic --profiles-dir "$tmp/profiles" --profile hib plan >"$tmp/p1" 2>&1
check "--root: the swap is the fstab's (sda3), not the installer's /proc/swaps (sda4)" sh -c "
        swaps '$tmp/d1.json' >'$tmp/s1' && grep -qx 'UUID=784efa85-56ef-5a82-9e1c-54e1e87629e0 /dev/sda3 fstab' '$tmp/s1' &&
        ! grep -q sda4 '$tmp/s1'"
check "--root: resume= names the fstab's swap, and says it came from the fstab" sh -c "
        grep -A1 '^suspend.resume (global) resume' '$tmp/p1' | grep -q 'set UUID=784efa85-56ef-5a82-9e1c-54e1e87629e0 ' &&
        tr -s ' \\n' '  ' <'$tmp/p1' | grep -q 'swap /dev/sda3 from fstab' && ! grep -q 04cc2221 '$tmp/p1'"

# the running system and a chroot: the root is "/", the tests' /proc is the "installer's"
IDLECFG_TEST_CHROOT=0 "$IDLECFG" --kernel "$KVER" detect --json >"$tmp/d2.json" 2>"$tmp/d2.err"
check "the running system: /proc/swaps is its own swap, listed from it" sh -c "
        swaps '$tmp/d2.json' | grep -qx '/dev/sda4 /dev/sda4 proc'"
IDLECFG_TEST_CHROOT=1 "$IDLECFG" --kernel "$KVER" detect --json >"$tmp/d3.json" 2>"$tmp/d3.err"
check "in a chroot: the installer's /proc/swaps is not the target's, not read, and a note says so" sh -c "
        swaps '$tmp/d3.json' >'$tmp/s3' && ! grep -q sda4 '$tmp/s3' && grep -q '/proc/swaps not read: in a chroot' '$tmp/d3.json'"

# fstab as libmount parses it: tabs, comments, octal escapes; bad lines skipped with file:line
cp "$root/etc/fstab" "$tmp/fstab.orig"
{
        printf '# a comment\n\n'
        printf 'UUID=885a299a-a803-5e9b-8a44-76ba202d1a08\t/\tbtrfs\tdefaults\t0\t0\n'
        printf '/dev/sda3\tnone swap\tsw\t0 0\n'
        printf 'LABEL=my\\040swap none swap sw 0 0\n'
        printf '/dev/sdb1\n'
        printf '/dev/sda1 /boot\n'
        printf '/dev/sda1 /boot ext4 defaults x 2\n'
} >"$root/etc/fstab"
ic detect --json >"$tmp/d4.json" 2>"$tmp/d4.err"
check "fstab with tabs and a comment: the swap by device path resolves to sda3, the root still found" sh -c "
        swaps '$tmp/d4.json' | grep -qx '/dev/sda3 /dev/sda3 fstab' &&
        python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))[\"storage\"][\"root\"][\"device\"] == \"/dev/sda2\"' '$tmp/d4.json'"
check "fstab's octal escape: LABEL=my\\\\040swap is the label 'my swap'" \
        sh -c "swaps '$tmp/d4.json' | grep -qx 'LABEL=my swap None fstab'"
check "three lines mount cannot parse: each warned with file:line, skipped, the others used" sh -c "
        grep -q 'warning: $root/etc/fstab:6: not an fstab entry (a device without a mount point); skipped' '$tmp/d4.err' &&
        grep -q 'warning: $root/etc/fstab:7: not an fstab entry (no filesystem type); skipped' '$tmp/d4.err' &&
        grep -q 'warning: $root/etc/fstab:8: not an fstab entry (the dump or pass field is not a number); skipped' '$tmp/d4.err' &&
        test \$(grep -c 'not an fstab entry' '$tmp/d4.err') -eq 3"
done_testing
