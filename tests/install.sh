#!/bin/sh
# tests/install.sh: install --root into a temporary root and rollback, checked
# by the real tools (modprobe -C, systemd-tmpfiles, udevadm verify-like checks
# are in plan-tools.sh); conffile handling, --dry-run, refresh, kill at every
# write, injected faults, hostile roots, the lock, malformed manifests.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}"
PATH=$PATH:/sbin:/usr/sbin
# the whole test in one umockdev session of the recorded machine: starting one
# takes seconds, and the fault loops below run the tool hundreds of times
if [ -z "${IDLECFG_IN_MACHINE:-}" ]; then
        rm -rf "$tmp"
        IDLECFG_IN_MACHINE=1 exec "$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/desktop-sata" sh "$0" "$@"
fi
plan 57

m=desktop-sata
dir=$TESTS_DATA/machines/$m
root=$tmp/root
mkroot_installed "$dir" "$root" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/var/lib" "$root/run" "$root/etc/kernel" "$root/boot"
printf 'root=UUID=0b5b5f4e-5d0e-4e4b-9d62-3f9d2b2a5c11 ro quiet\n' >"$root/etc/kernel/cmdline"
chmod 0600 "$root/etc/kernel/cmdline"
# the boot entry kernel-install made, and the initramfs, before idlecfg
mkdir -p "$root/boot/loader/entries"
entry=$root/boot/loader/entries/test-$KVER.conf
printf 'title Test\nversion %s\nlinux /vmlinuz-%s\noptions root=UUID=0b5b5f4e-5d0e-4e4b-9d62-3f9d2b2a5c11 ro quiet\n' \
        "$KVER" "$KVER" >"$entry"
echo initramfs >"$root/boot/initrd.img-$KVER"
touch -d '2020-01-01' "$root/boot/initrd.img-$KVER" "$entry"
cp -a "$root" "$tmp/orig"
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
# the tree as rollback must restore it: every path, type, mode and content
# (the lock file in run/ is the one thing idlecfg leaves)
tree() {
        (cd "$1" && find . ! -path ./run/idlecfg.lock -printf '%p %y %m %l\n' | sort &&
                find . -type f ! -path ./run/idlecfg.lock -exec sha256sum {} + | sort -k2)
}
tree "$tmp/orig" >"$tmp/orig.tree"
same_as_orig() { tree "$root" >"$tmp/now.tree" && diff "$tmp/orig.tree" "$tmp/now.tree"; }
reset_root() { rm -rf "$root" && cp -a "$tmp/orig" "$root"; }
# what the installer does with the next steps: kernel-install writes the
# entry's options from /etc/kernel/cmdline, update-initramfs a new image; and
# after a rollback, kernel-install again (the entry as it was)
boot_done() {
        sed -i "s|^options .*|options $(cat "$root/etc/kernel/cmdline")|" "$entry" &&
                touch "$root/boot/initrd.img-$KVER"
}
boot_undo() { cp -p "$tmp/orig/boot/loader/entries/test-$KVER.conf" "$entry"; }
# install did its part (the boot configuration may still lack a step: 4)
installed() { test "$1" -eq 0 || test "$1" -eq 4; }

# ---- install ----
ic install --profile balanced >"$tmp/i1" 2>&1; rc=$?
check "install exits 4: the boot entry and the initramfs still lack what it wrote" test $rc -eq 4
check "udev rules, modprobe.d, tmpfiles.d written" test -f "$root/etc/udev/rules.d/70-idlecfg.rules" -a \
        -f "$root/etc/modprobe.d/idlecfg.conf" -a -f "$root/etc/tmpfiles.d/idlecfg.conf"
check "files are those plan renders" sh -c "
        '$IDLECFG' --root '$root' --kernel $KVER --profile balanced plan -f modprobe |
        cmp - '$root/etc/modprobe.d/idlecfg.conf'"
check "command line appended to /etc/kernel/cmdline, mode kept" sh -c "
        grep -qx 'root=UUID=0b5b5f4e-5d0e-4e4b-9d62-3f9d2b2a5c11 ro quiet pcie_aspm.policy=default' '$root/etc/kernel/cmdline' &&
        test \$(stat -c %a '$root/etc/kernel/cmdline') = 600"
check "install names the next steps and runs none" sh -c "grep -q 'kernel-install add $KVER' '$tmp/i1' &&
        grep -q 'update-initramfs -u -k $KVER' '$tmp/i1'"
# (the replaced file's owner: whoever runs the tests, as the root was made)
owner=$(stat -c '%u %g' "$tmp/orig/etc/kernel/cmdline")
check "manifest records files, checksums, backup (its owner $owner) and inputs" sh -c "
        m='$root/var/lib/idlecfg/manifest'; grep -q '^file /etc/kernel/cmdline [0-9a-f]\{64\} 0600 replaced [0-9a-f]\{64\} 0600 $owner\$' \"\$m\" &&
        grep -q '^file /etc/modprobe.d/idlecfg.conf [0-9a-f]\{64\} 0644 new\$' \"\$m\" && grep -q '^input fingerprint ' \"\$m\" &&
        grep -q '^kernel $KVER\$' \"\$m\" && grep -q '^profile balanced\$' \"\$m\" &&
        test -f '$root/var/lib/idlecfg/backup/'\$(sha256sum < '$tmp/orig/etc/kernel/cmdline' | cut -c1-64)"
check "the installed rules are byte for byte what plan -f udev renders (checked by udevadm test in plan-tools.sh)" sh -c "
        '$IDLECFG' --root '$root' --kernel $KVER --profile balanced plan -f udev | cmp - '$root/etc/udev/rules.d/70-idlecfg.rules' &&
        ! grep -v '^#' '$root/etc/udev/rules.d/70-idlecfg.rules' | grep -E 'RUN|PROGRAM|IMPORT'"
if command -v systemd-hwdb >/dev/null 2>&1 || [ -x /usr/bin/systemd-hwdb ]; then
        check "systemd-hwdb --strict --root compiles the installed root's hwdb" sh -c "
                cp -a '$root' '$tmp/hwdbroot' && mkdir -p '$tmp/hwdbroot/lib/udev' &&
                cp -a '$root/usr/lib/udev/hwdb.d' '$tmp/hwdbroot/lib/udev/' &&
                systemd-hwdb --strict --root '$tmp/hwdbroot' update 2>&1 | { ! grep .; } && test -s '$tmp/hwdbroot/etc/udev/hwdb.bin' -o -s '$tmp/hwdbroot/usr/lib/udev/hwdb.bin'"
        rm -rf "$tmp/hwdbroot"
else
        skip "systemd-hwdb not installed"
fi
check "modprobe -C reads the installed modprobe.d" sh -c "
        modprobe -C '$root/etc/modprobe.d' --showconfig | grep -qx 'options snd_hda_intel power_save=10 power_save_controller=Y'"
if command -v systemd-tmpfiles >/dev/null 2>&1; then
        check "systemd-tmpfiles --cat-config reads the installed line" sh -c "
                systemd-tmpfiles --root='$root' --cat-config 2>/dev/null | grep -qx 'w /sys/module/pcie_aspm/parameters/policy - - - - default'"
else
        skip "systemd-tmpfiles not installed"
fi
ic install --profile balanced >"$tmp/i2" 2>&1; rc=$?
# (the status file says when the last run was: its time moves with each run)
tree "$root" | grep -v '/var/lib/idlecfg/status.json$' >"$tmp/t1"
sleep 1
ic install --profile balanced >/dev/null 2>&1
tree "$root" | grep -v '/var/lib/idlecfg/status.json$' >"$tmp/t2"
check "a second install changes nothing and says so, and still names the boot steps nobody ran (exit 4)" sh -c "
        test $rc -eq 4 && grep -q 'Nothing to change' '$tmp/i2' && cmp '$tmp/t1' '$tmp/t2' &&
        grep -q '^  \* chroot $root kernel-install add $KVER' '$tmp/i2' && grep -q '^  \* chroot $root update-initramfs -u -k $KVER' '$tmp/i2' ||
        { echo rc=$rc; cat '$tmp/i2'; exit 1; }"
ic refresh >"$tmp/p1" 2>&1; rc=$?
check "refresh with nothing changed still names them, exit 4" sh -c "test $rc -eq 4 && grep -q 'kernel-install add $KVER' '$tmp/p1'"
boot_done
ic install --profile balanced >"$tmp/i3" 2>&1; rc=$?
check "once the installer ran them: exit 0, no step" sh -c "test $rc -eq 0 && ! grep -q 'Next steps' '$tmp/i3'"
tree "$root" >"$tmp/t1"

# ---- --dry-run ----
ic install --profile powersave --dry-run >"$tmp/d1" 2>&1; rc=$?
check "--dry-run: exit 1 and a unified diff of what would change" sh -c "test $rc -eq 1 &&
        grep -q '^--- a/etc/udev/rules.d/70-idlecfg.rules' '$tmp/d1' && grep -q '^@@ ' '$tmp/d1' && grep -q '^-# Generated by idlecfg .* profile balanced' '$tmp/d1'"
tree "$root" >"$tmp/t1b"
check "--dry-run writes nothing" cmp "$tmp/t1" "$tmp/t1b"
if command -v patch >/dev/null 2>&1; then
        cp -a "$root" "$tmp/patched"
        check "the diff applies with patch -p1 and gives what install writes" sh -c "
                cd '$tmp/patched' && patch -s -p1 < '$tmp/d1' || { tail -30 '$tmp/d1'; exit 1; }; cd / &&
                { '$IDLECFG' --root '$root' --kernel $KVER --profile powersave install >/dev/null 2>&1; test \$? -eq 4; } &&
                cmp '$tmp/patched/etc/udev/rules.d/70-idlecfg.rules' '$root/etc/udev/rules.d/70-idlecfg.rules'"
        rm -rf "$tmp/patched"
        ic install --profile balanced >/dev/null 2>&1
else
        skip "patch not installed"
fi
ic install --profile balanced --dry-run >"$tmp/d2b" 2>&1; rc=$?
check "--dry-run with nothing to change but the boot steps: exit 4, names them" sh -c "test $rc -eq 4 &&
        ! grep -q '^---' '$tmp/d2b' && grep -q 'update-initramfs -u -k' '$tmp/d2b' || { echo rc=$rc; cat '$tmp/d2b'; exit 1; }"
boot_done
ic install --profile balanced --dry-run >"$tmp/d2" 2>&1; rc=$?
check "--dry-run with nothing to change: exit 0, empty diff" sh -c "test $rc -eq 0 && ! grep -q '^---' '$tmp/d2'"

# ---- conffiles: the administrator's changes are kept ----
echo "options snd_hda_intel power_save=1" >>"$root/etc/modprobe.d/idlecfg.conf"
cp "$root/etc/modprobe.d/idlecfg.conf" "$tmp/theirs"
ic install --profile powersave >"$tmp/c1" 2>&1; rc=$?
check "a changed file is kept, ours written beside it, and said" sh -c "test $rc -eq 0 -o $rc -eq 4 &&
        cmp '$tmp/theirs' '$root/etc/modprobe.d/idlecfg.conf' && test -f '$root/etc/modprobe.d/idlecfg.conf.idlecfg-new' &&
        grep -q 'kept .*idlecfg.conf: it was changed' '$tmp/c1' || { echo rc=$rc; cat '$tmp/c1'; exit 1; }"
ic install --profile powersave --force >"$tmp/c2" 2>&1; rc=$?
check "--force overwrites it, and the .idlecfg-new copy goes" sh -c "test $rc -eq 0 -o $rc -eq 4 &&
        ! cmp -s '$tmp/theirs' '$root/etc/modprobe.d/idlecfg.conf' && test ! -e '$root/etc/modprobe.d/idlecfg.conf.idlecfg-new' &&
        grep -q 'overwrote your changed' '$tmp/c2'"

# the administrator takes our version (as after dpkg's conffile prompt): adopted
echo "# mine" >>"$root/etc/modprobe.d/idlecfg.conf"
ic install --profile balanced >/dev/null 2>&1
cp "$root/etc/modprobe.d/idlecfg.conf.idlecfg-new" "$root/etc/modprobe.d/idlecfg.conf"
ic install --profile balanced >"$tmp/c3" 2>&1; rc=$?
ic install --profile powersave >"$tmp/c4" 2>&1
check "a changed file made identical to ours is ours again: the copy beside it goes, the next install updates it" sh -c "
        test $rc -eq 0 -o $rc -eq 4 && test ! -e '$root/etc/modprobe.d/idlecfg.conf.idlecfg-new' &&
        grep -q 'updated .*modprobe.d/idlecfg.conf' '$tmp/c4' && grep -q 'profile powersave' '$root/etc/modprobe.d/idlecfg.conf' ||
        { cat '$tmp/c3' '$tmp/c4'; exit 1; }"

# ---- refresh ----
boot_done
ic refresh >"$tmp/r1" 2>&1; rc=$?
tree "$root" >"$tmp/before-refresh"
check "refresh with nothing changed: exit 0, no output, nothing written" sh -c "test $rc -eq 0 && test ! -s '$tmp/r1'"
tree "$root" >"$tmp/after-refresh"
check "(the tree is unchanged)" cmp "$tmp/before-refresh" "$tmp/after-refresh"
mkdir -p "$root/etc/udev/hwdb.d"
printf '# local\nusb:v1234p5678*\n IDLECFG_USB_AUTOSUSPEND=deny\n' >"$root/etc/udev/hwdb.d/90-local.hwdb"
ic refresh >"$tmp/r2" 2>&1; rc=$?
check "refresh after an hwdb change re-installs and says why" sh -c "test $rc -eq 0 && grep -q 'hwdb: files changed' '$tmp/r2' &&
        grep -q '^Installing profile powersave (--profile)' '$tmp/r2'"
ic refresh >"$tmp/r3" 2>&1
check "and the next refresh is quiet again" test ! -s "$tmp/r3"
rm -r "$root/etc/udev/hwdb.d"

# ---- rollback ----
boot_undo
ic rollback >"$tmp/rb1" 2>&1; rc=$?
# the initramfs was made again after the options were written (boot_done): it may hold them
check "rollback exits 4, naming update-initramfs for the initramfs made since the options" sh -c "
        test $rc -eq 4 && grep -q 'update-initramfs -u -k $KVER' '$tmp/rb1'"
check "rollback restores the root exactly (content, modes, removed files and directories)" same_as_orig
ic rollback >"$tmp/rb2" 2>&1; rc=$?
check "rollback again: nothing to do, exit 0" sh -c "test $rc -eq 0 && grep -q 'Nothing to roll back' '$tmp/rb2'"

# a file changed after install is left alone by rollback unless --force
ic install --profile balanced >/dev/null 2>&1
echo "# mine" >>"$root/etc/tmpfiles.d/idlecfg.conf"
ic rollback >"$tmp/rb3" 2>&1; rc=$?
check "rollback keeps a file changed since install: exit 1, says so" sh -c "test $rc -eq 1 &&
        grep -q 'left .*tmpfiles.d/idlecfg.conf alone' '$tmp/rb3' && test -f '$root/etc/tmpfiles.d/idlecfg.conf' &&
        test ! -e '$root/etc/modprobe.d/idlecfg.conf'"
ic rollback --force >/dev/null 2>&1; rc=$?
check "rollback --force restores the rest exactly" sh -c "test $rc -eq 0" 
check "(tree as before)" same_as_orig

# ---- a kill, or an injected ENOSPC, at every write step of install; then
# rollback: exactly the original each time. One umockdev session for the loop.
cat >"$tmp/faults.sh" <<'SH'
mode=$1 root=$2 orig=$3 out=$4
n=$((1 - SWEEP_STEP)) bad=0 hit=0
tree() {
        (cd "$1" && find . ! -path ./run/idlecfg.lock -printf '%p %y %m %l\n' | sort &&
                find . -type f ! -path ./run/idlecfg.lock -exec sha256sum {} + | sort -k2)
}
tree "$orig" >"$out.orig"
while [ $n -lt 300 ]; do
        n=$((n + SWEEP_STEP))
        rm -rf "$root" && cp -a "$orig" "$root"
        case $mode in
        kill) f=kill:$n ;;
        fail) f=fail:$n:ENOSPC ;;
        rbkill) f=kill:$n
                "$IDLECFG" --root "$root" --kernel "$KVER" --profile balanced install >/dev/null 2>&1 ;;
        esac
        if [ "$mode" = rbkill ]; then
                IDLECFG_FAULT=$f "$IDLECFG" --root "$root" rollback >"$out.run" 2>&1; rc=$?
        else
                IDLECFG_FAULT=$f "$IDLECFG" --root "$root" --kernel "$KVER" --profile balanced install >"$out.run" 2>&1; rc=$?
        fi
        grep -q 'injected' "$out.run" || break
        hit=$((hit + 1))
        if [ "$mode" = fail ] && { [ $rc -ne 3 ] || ! grep -q 'No space left on device' "$out.run"; }; then
                bad=$((bad + 1)); echo "fail:$n: exit $rc, no clear error:"; cat "$out.run"
        fi
        # 4: every file back, and a step named for the boot artifacts
        { "$IDLECFG" --root "$root" rollback >"$out.rb" 2>&1 || [ $? -eq 4 ]; } || { bad=$((bad + 1)); echo "$f: rollback failed:"; cat "$out.rb"; }
        tree "$root" | diff "$out.orig" - >"$out.diff" || { bad=$((bad + 1)); echo "$f: tree differs:"; head -20 "$out.diff"; }
done
echo "$hit $bad"
SH
export KVER
sh "$tmp/faults.sh" kill "$root" "$tmp/orig" "$tmp/k" >"$tmp/k.log" 2>&1
set -- $(tail -n 1 "$tmp/k.log")
check "install killed at each of its ${1:-?} write steps: rollback restores the original every time$SWEEP_NOTE" \
        sh -c "test '${2:-x}' = 0 && test ${1:-0} -gt $(sweep_share 10)"
[ "${2:-x}" = 0 ] || diag "$(head -40 "$tmp/k.log")"
sh "$tmp/faults.sh" fail "$root" "$tmp/orig" "$tmp/f" >"$tmp/f.log" 2>&1
set -- $(tail -n 1 "$tmp/f.log")
check "install with ENOSPC at each of its ${1:-?} write steps: exit 3 naming the error; rollback restores the original$SWEEP_NOTE" \
        sh -c "test '${2:-x}' = 0 && test ${1:-0} -gt $(sweep_share 10)"
[ "${2:-x}" = 0 ] || diag "$(head -40 "$tmp/f.log")"
sh "$tmp/faults.sh" rbkill "$root" "$tmp/orig" "$tmp/rk" >"$tmp/rk.log" 2>&1
set -- $(tail -n 1 "$tmp/rk.log")
check "rollback itself killed at each of its ${1:-?} steps: the next rollback restores the original$SWEEP_NOTE" \
        sh -c "test '${2:-x}' = 0 && test ${1:-0} -gt $(sweep_share 5)"
[ "${2:-x}" = 0 ] || diag "$(head -40 "$tmp/rk.log")"
reset_root

# ---- hostile roots ----
mkdir -p "$tmp/outside"
rm -rf "$root/etc/modprobe.d"
ln -s "$tmp/outside" "$root/etc/modprobe.d"
ic install --profile balanced >"$tmp/h1" 2>&1; rc=$?
check "a directory symlink to an absolute path outside: resolved inside the root, nothing written outside" sh -c "
        test -z \"\$(ls -A '$tmp/outside')\" && test $rc -ne 0 && grep -q 'modprobe.d' '$tmp/h1'"
ic rollback >/dev/null 2>&1
reset_root
mkdir -p "$root/etc/modprobe.d"
ln -s ../../../../../../../../"$tmp/outside/x.conf" "$root/etc/modprobe.d/idlecfg.conf"
ic install --profile balanced >"$tmp/h2" 2>&1; rc=$?
check "a file symlink with .. to outside: refused with a clear error, nothing outside" sh -c "
        test $rc -ne 0 && grep -q 'symbolic link' '$tmp/h2' && test ! -e '$tmp/outside/x.conf' &&
        test ! -e '$root/etc/udev/rules.d/70-idlecfg.rules'"
reset_root
# (read-only directories do not stop root: the EROFS case is injected)
IDLECFG_FAULT=fail:3:EROFS ic install --profile balanced >"$tmp/h3" 2>&1; rc=$?
check "a read-only file system: exit 3, says so" sh -c "test $rc -eq 3 && grep -q 'Read-only file system' '$tmp/h3'"
ic rollback >/dev/null 2>&1
check "(and rollback leaves the root as it was)" same_as_orig
if mount_ns; then
        reset_root
        cat >"$tmp/enospc.sh" <<SH
set -e
mount -t tmpfs -o size=64k tmpfs '$root/var/lib'
dd if=/dev/zero of='$root/var/lib/fill' bs=4k count=1000 2>/dev/null || true
'$IDLECFG' --root '$root' --kernel $KVER --profile balanced install >'$tmp/ns.out' 2>&1 && exit 1
grep -q 'No space left on device' '$tmp/ns.out'
test ! -e '$root/etc/udev/rules.d/70-idlecfg.rules'
SH
        check "a really full disk (tmpfs in a private mount namespace: $us): clear error, nothing written" $us sh "$tmp/enospc.sh"
else
        skip "a really full disk (tmpfs in a private mount namespace)" "$why"
fi
reset_root

# ---- no GRUB, no /etc/kernel/cmdline: /etc/idlecfg/cmdline and a clear message ----
rm "$root/etc/kernel/cmdline"
ic install --profile balanced >"$tmp/g1" 2>&1
check "no boot setup found: the installer is told the words themselves, and where they are" sh -c "
        grep -qx '  \* add these words to the kernel command line of the boot loader: pcie_aspm.policy=default' '$tmp/g1' &&
        grep -q '/etc/idlecfg/cmdline holds the words' '$tmp/g1'"
# a script that does "$(cat /etc/idlecfg/cmdline)" gives the kernel exactly the words
check "/etc/idlecfg/cmdline holds only the words, on one line: no comment for a script to pass on" sh -c "
        test \$(wc -l < '$root/etc/idlecfg/cmdline') -eq 1 && ! grep -q '#' '$root/etc/idlecfg/cmdline' &&
        set -- \$(cat '$root/etc/idlecfg/cmdline') && test \$# -eq 1 && test \"\$1\" = pcie_aspm.policy=default"
check "the manifest records it as the command line's place" grep -qx 'cmdline /etc/idlecfg/cmdline' "$root/var/lib/idlecfg/manifest"
ic install --profile powersave --json >"$tmp/g1.json" 2>"$tmp/g1.err"; rc=$?
check "install --json: the words as an array, where they went, the next steps, nothing but JSON on stdout" sh -c "
        test $rc -eq 4 && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d[\"schema\"] == 1 and d[\"dry_run\"] is False and d[\"changed\"] is True, d
assert d[\"cmdline\"] == {\"path\": \"/etc/idlecfg/cmdline\", \"mechanism\": \"file\", \"words\": [\"pcie_aspm.policy=powersupersave\"]}, d[\"cmdline\"]
f = {x[\"path\"]: x for x in d[\"files\"]}
assert f[\"/etc/idlecfg/cmdline\"][\"action\"] == \"write\" and f[\"/etc/modprobe.d/idlecfg.conf\"][\"settings\"] == 2, f
s = {x[\"id\"]: x for x in d[\"next_steps\"]}
assert s[\"update-initramfs\"][\"argv\"] == [\"chroot\", sys.argv[2], \"update-initramfs\", \"-u\", \"-k\", \"$KVER\"], s
assert s[\"update-initramfs\"][\"boot\"] is True and d[\"boot_incomplete\"] is True, d
assert s[\"cmdline-words\"][\"argv\"] is None and s[\"cmdline-words\"][\"words\"] == [\"pcie_aspm.policy=powersupersave\"], s
assert any(m.startswith(\"updated \") and m.endswith(\"cmdline (kernel command line, 1 setting)\") for m in d[\"messages\"]), d[\"messages\"]
' '$tmp/g1.json' '$root' && test \$(cat '$root/etc/idlecfg/cmdline') = pcie_aspm.policy=powersupersave"
ic rollback >/dev/null 2>&1
mkdir -p "$root/etc/default"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"\n' >"$root/etc/default/grub"
ic install --profile balanced >"$tmp/g2" 2>&1
check "GRUB: a grub.d snippet and update-grub named" sh -c "
        grep -qx 'GRUB_CMDLINE_LINUX_DEFAULT=\"\${GRUB_CMDLINE_LINUX_DEFAULT} pcie_aspm.policy=default\"' '$root/etc/default/grub.d/idlecfg.cfg' &&
        grep -q 'update-grub' '$tmp/g2' && sh -n '$root/etc/default/grub.d/idlecfg.cfg'"
check "the snippet gives the words when sourced as grub-mkconfig does" sh -c "
        . '$root/etc/default/grub'; . '$root/etc/default/grub.d/idlecfg.cfg'; test \"\$GRUB_CMDLINE_LINUX_DEFAULT\" = 'quiet pcie_aspm.policy=default'"
ic install --profile powersave --json >"$tmp/g2.json" 2>&1
check "install --json with GRUB: the words, the snippet as their place, update-grub in the chroot as next step" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["cmdline"] == {"path": "/etc/default/grub.d/idlecfg.cfg", "mechanism": "grub", "words": ["pcie_aspm.policy=powersupersave"]}, d
u = [s for s in d["next_steps"] if s["id"] == "update-grub"]
assert len(u) == 1 and u[0]["argv"] == ["chroot", sys.argv[2], "update-grub"] and u[0]["boot"] is True, d["next_steps"]' "$tmp/g2.json" "$root"
ic rollback >/dev/null 2>&1
check "(rollback removes the snippet and the directory it made)" sh -c "test ! -e '$root/etc/default/grub.d'"
reset_root

# ---- malformed manifests: file and line, nothing touched ----
ic install --profile balanced >/dev/null 2>&1
cp "$root/var/lib/idlecfg/manifest" "$tmp/manifest.good"
tree "$root" >"$tmp/t3"
sed -i 's|^file /etc/modprobe.d/idlecfg.conf |file /etc/../../x |' "$root/var/lib/idlecfg/manifest"
ic rollback >"$tmp/m1" 2>&1; rc=$?
check "a manifest with a .. path: exit 2, file:line named, nothing restored" sh -c "test $rc -eq 2 &&
        grep -q 'var/lib/idlecfg/manifest:[0-9]*: ' '$tmp/m1' && test -f '$root/etc/modprobe.d/idlecfg.conf'"
printf 'idlecfg-manifest 1\nversion 1\nprofile x\nfingerprint y\nfile /etc/a 12 0644 new' >"$root/var/lib/idlecfg/manifest"
ic install --profile balanced >"$tmp/m2" 2>&1; rc=$?
check "a cut-short manifest: install refuses with file:line" sh -c "test $rc -eq 2 && grep -q 'manifest:5: ' '$tmp/m2'"
cp "$tmp/manifest.good" "$root/var/lib/idlecfg/manifest"
ic rollback >/dev/null 2>&1
check "with the manifest mended, rollback restores the original" same_as_orig

# ---- one instance at a time ----
cat >"$tmp/hold.py" <<'PY'
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
time.sleep(float(sys.argv[3]))
PY
if command -v python3 >/dev/null 2>&1; then
        python3 "$tmp/hold.py" "$root/run/idlecfg.lock" "$tmp/held" 30 &
        holder=$!
        while [ ! -e "$tmp/held" ]; do sleep 0.1; done
        ic install --profile balanced --wait 1 >"$tmp/l1" 2>&1; rc=$?
        check "a second instance waits, then fails clearly" sh -c "test $rc -eq 3 && grep -q 'another idlecfg is running' '$tmp/l1' &&
                test ! -e '$root/var/lib/idlecfg/manifest'"
        kill $holder 2>/dev/null; wait $holder 2>/dev/null
        rm -f "$tmp/held"
        python3 "$tmp/hold.py" "$root/run/idlecfg.lock" "$tmp/held" 1 &
        holder=$!
        while [ ! -e "$tmp/held" ]; do sleep 0.1; done
        ic install --profile balanced --wait 20 >"$tmp/l2" 2>&1; rc=$?
        wait $holder 2>/dev/null
        check "... and goes ahead when the first one finishes in time" installed $rc
        # refresh takes the lock only once it has something to write
        rm -f "$tmp/held"
        python3 "$tmp/hold.py" "$root/run/idlecfg.lock" "$tmp/held" 30 &
        holder=$!
        while [ ! -e "$tmp/held" ]; do sleep 0.1; done
        s=$(date +%s)
        ic refresh --wait 5 >"$tmp/l3" 2>&1; rc=$?
        e=$(date +%s)
        check "a refresh that finds nothing changed neither waits for the lock nor fails on it" sh -c "
                { test $rc -eq 0 || test $rc -eq 4; } && test $((e - s)) -lt 4 && ! grep -q 'another idlecfg' '$tmp/l3'" 
        # only stat data changed: the new digests are bookkeeping, written
        # only when the lock is free at once (the next refresh tries again)
        cp "$root/var/lib/idlecfg/manifest" "$tmp/m.t0"
        sleep 1
        touch "$root/etc/kernel/cmdline"
        s=$(date +%s)
        ic refresh --wait 5 >"$tmp/l3b" 2>&1; rc=$?
        e=$(date +%s)
        check "... nor one that finds files only touched: it writes nothing then, without waiting" sh -c "
                { test $rc -eq 0 || test $rc -eq 4; } && test $((e - s)) -lt 4 && ! grep -q 'another idlecfg' '$tmp/l3b' &&
                cmp -s '$tmp/m.t0' '$root/var/lib/idlecfg/manifest'"
        mkdir -p "$root/etc/idlecfg"
        printf '# an administrator was here\n' >"$root/etc/idlecfg/idlecfg.conf"
        cp "$root/var/lib/idlecfg/manifest" "$tmp/m.before"
        ic refresh --wait 1 >"$tmp/l4" 2>&1; rc=$?
        check "one that finds a change waits for it, then fails clearly, writing nothing" sh -c "
                test $rc -eq 3 && grep -q 'another idlecfg is running' '$tmp/l4' &&
                cmp -s '$tmp/m.before' '$root/var/lib/idlecfg/manifest'"
        ic refresh --wait 20 >"$tmp/l5" 2>&1 &
        waiter=$!
        sleep 1
        # what the holder did meanwhile (a rollback): refresh looks again under the lock
        mv "$root/var/lib/idlecfg/manifest" "$tmp/m.aside"
        kill $holder 2>/dev/null; wait $holder 2>/dev/null
        wait $waiter; rc=$?
        check "... and one that waited looks again under the lock: the manifest is gone, nothing to refresh" sh -c "
                test $rc -eq 0 && grep -q 'nothing to refresh' '$tmp/l5' && test ! -e '$root/var/lib/idlecfg/manifest'" ||
                diag "$(cat "$tmp/l5")"
        mv "$tmp/m.aside" "$root/var/lib/idlecfg/manifest"
        # the holder installed the change meanwhile: the manifest it wrote
        # already records it, and refresh, looking again, has nothing to do
        ic install --profile balanced >/dev/null 2>&1
        cp "$root/var/lib/idlecfg/manifest" "$tmp/m.after"
        cp "$tmp/m.before" "$root/var/lib/idlecfg/manifest"
        rm -f "$tmp/held"
        python3 "$tmp/hold.py" "$root/run/idlecfg.lock" "$tmp/held" 30 &
        holder=$!
        while [ ! -e "$tmp/held" ]; do sleep 0.1; done
        ic refresh --wait 20 >"$tmp/l6" 2>&1 &
        waiter=$!
        sleep 1
        cp "$tmp/m.after" "$root/var/lib/idlecfg/manifest.new" && mv "$root/var/lib/idlecfg/manifest.new" "$root/var/lib/idlecfg/manifest"
        kill $holder 2>/dev/null; wait $holder 2>/dev/null
        wait $waiter; rc=$?
        check "... and one whose holder installed the change meanwhile: quiet, the holder's manifest kept" sh -c "
                { test $rc -eq 0 || test $rc -eq 4; } && ! grep -q 'Changed since' '$tmp/l6' &&
                cmp -s '$tmp/m.after' '$root/var/lib/idlecfg/manifest'" || diag "$(cat "$tmp/l6")"
        rm -f "$root/etc/idlecfg/idlecfg.conf"
        ic rollback >/dev/null 2>&1
else
        skip "no python3 to hold the lock"
        skip "(same)"
        skip "(same)"
        skip "(same)"
        skip "(same)"
        skip "(same)"
        skip "(same)"
fi
done_testing
