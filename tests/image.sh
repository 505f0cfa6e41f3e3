#!/bin/sh
# tests/image.sh: images and fleets (#22) under a recorded machine: install
# --image (the first-boot unit enabled as systemctl enable does: is-enabled
# says so) and the first boot's refresh --image with the boot steps it hands
# to idlecfg-boot-steps.service (its commands logged, never run), the
# warnings of a plain install into a root of other hardware (text and JSON)
# and of an image with a machine ID, install --check
# (exit 5, nothing written, --diff, --json, Salt's state line parsed as Salt
# parses it), verify --format prometheus (promtool where installed) and
# --nagios (the first-boot unit itself: tests/firstboot.sh, systemd-analyze verify included).
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3
PATH=$PATH:/sbin:/usr/sbin
if [ -z "${IDLECFG_IN_MACHINE:-}" ]; then
        rm -rf "$tmp"
        IDLECFG_IN_MACHINE=1 exec "$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/intel-laptop" sh "$0" "$@"
fi
plan 45

dir=$TESTS_DATA/machines/intel-laptop
root=$tmp/root
mkroot_installed "$dir" "$root" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/var/lib" "$root/etc/kernel" "$root/boot"
printf 'root=UUID=0b5b5f4e-5d0e-4e4b-9d62-3f9d2b2a5c11 ro quiet\n' >"$root/etc/kernel/cmdline"
cp -a "$root" "$tmp/orig"
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
tree() { (cd "$1" && find . -printf '%p %y %m %l\n' | sort && find . -type f -exec sha256sum {} + | sort -k2); }
tree "$tmp/orig" >"$tmp/orig.tree"
same_as_orig() { tree "$root" >"$tmp/now.tree" && diff "$tmp/orig.tree" "$tmp/now.tree"; }
wants=/etc/systemd/system/sysinit.target.wants/idlecfg-firstboot.service
# the first-boot unit's commands go to this log instead of running
# (lib.sh: take_logger; a lister of the initramfs prints $TAKE_LIST, and fails without it)
take_logger "$tmp/log-cmd"
take() { TAKE_ROOT=$root TAKE_LOG=$tmp/take.log IDLECFG_TEST_TAKE_EFFECT=$tmp/log-cmd ic "$@"; }

# ---- install --check: nothing written, exit 5 / 0 ----
ic install --check --profile balanced >"$tmp/c1" 2>&1; rc=$?
check "install --check before install: exit 5, one line per file that would change" sh -c "
        test $rc -eq 5 && grep -q '^  would write /etc/udev/rules.d/70-idlecfg.rules\$' '$tmp/c1' &&
        grep -q '^  would write /etc/kernel/cmdline\$' '$tmp/c1' && grep -q 'files in $root would change' '$tmp/c1'"
check "install --check wrote nothing: no lock, no state directory, the tree as it was" same_as_orig
ic install --check --diff --profile balanced >"$tmp/c2" 2>&1; rc=$?
check "install --check --diff: exit 5 and the unified diff of each file" sh -c "
        test $rc -eq 5 && grep -q '^+++ b/etc/udev/rules.d/70-idlecfg.rules' '$tmp/c2' &&
        grep -q '^+root=UUID=0b5b5f4e-5d0e-4e4b-9d62-3f9d2b2a5c11 ro quiet pcie_aspm.policy=default' '$tmp/c2'"
ic install --check --json --profile balanced >"$tmp/c3.json" 2>"$tmp/c3.err"; rc=$?
check "install --check --json: exit 5, dry_run and changed true, the files with their actions" sh -c "
        test $rc -eq 5 && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d[\"dry_run\"] is True and d[\"changed\"] is True, d
assert any(f[\"action\"] == \"write\" and f[\"path\"] == \"/etc/udev/rules.d/70-idlecfg.rules\" for f in d[\"files\"]), d[\"files\"]
' '$tmp/c3.json'"
ic install --check --profile no-such-profile >/dev/null 2>&1; rc=$?
check "install --check with a profile that does not exist: exit 2, as install" test $rc -eq 2
check "install --check --dry-run and --diff without --check are usage errors" sh -c "
        '$IDLECFG' --root '$root' install --check --dry-run >/dev/null 2>&1; test \$? -eq 2 &&
        { '$IDLECFG' --root '$root' install --diff >/dev/null 2>&1; test \$? -eq 2; }"

# Salt's cmd.run with stateful: True reads the last line of stdout
# (tests/salt-state.py parses it as Salt does)
salt_parse() {
        python3 "$top_srcdir/tests/salt-state.py" "$1"
}
ic install --check --format salt --profile balanced >"$tmp/s1" 2>&1; rc=$?
salt_parse "$tmp/s1" >"$tmp/s1.parsed" 2>&1
diag "$(cat "$tmp/s1.parsed")"
# 5 files of the settings, and 4 of the power-source switch (balanced has values per source; its
# system-sleep hook is the package's file, never written at run time)
check "install --check --format salt before install: exit 0 (Salt fails a state on any other), Salt reads changed=yes" sh -c "
        test $rc -eq 0 && grep -qx 'changed idlecfg: 9 files would change' '$tmp/s1.parsed'"
ic install --format salt --profile balanced >"$tmp/s2" 2>&1; rc=$?
salt_parse "$tmp/s2" >"$tmp/s2.parsed" 2>&1
check "install --format salt: exit 0, the files written, Salt reads changed=yes as its last line" sh -c "
        test $rc -eq 0 && test -f '$root/etc/udev/rules.d/70-idlecfg.rules' && grep -qx 'changed idlecfg: 9 files changed' '$tmp/s2.parsed'"
ic install --check --format salt --profile balanced >"$tmp/s3" 2>&1; rc=$?
salt_parse "$tmp/s3" >"$tmp/s3.parsed" 2>&1
check "install --check --format salt after install, kernel-install not run: Salt reads changed, boot_step_pending=yes" sh -c "
        test $rc -eq 0 && grep -q '^changed idlecfg: no file would change' '$tmp/s3.parsed' && grep -qx 'boot_step_pending=yes' '$tmp/s3.parsed'"
cp "$root/var/lib/idlecfg/manifest" "$tmp/manifest.before"
ic install --check --profile balanced >"$tmp/c4" 2>&1; rc=$?
check "install --check after install: exit 4 (the step pending), no file would change, the manifest untouched" sh -c "
        test $rc -eq 4 && grep -q '^No file would change in ' '$tmp/c4' && cmp -s '$tmp/manifest.before' '$root/var/lib/idlecfg/manifest'"
ic install --check --profile powersave >"$tmp/c5" 2>&1; rc=$?
check "install --check with another profile: exit 5" test $rc -eq 5

# ---- verify for monitoring ----
ic verify --profile balanced --format prometheus --output "$tmp/metrics/idlecfg.prom" >/dev/null 2>"$tmp/p.err"; rc=$?
check "verify --output into a directory that does not exist: exit 3, said" sh -c "
        test $rc -eq 3 && grep -q 'cannot write $tmp/metrics/idlecfg.prom' '$tmp/p.err'"
mkdir -p "$tmp/metrics"
ic verify --profile balanced --format prometheus --output "$tmp/metrics/idlecfg.prom" >"$tmp/p.out" 2>&1; rc=$?
check "verify --format prometheus --output: exit 0 with drift, the file and no temporary one beside it, stdout empty" sh -c "
        test $rc -eq 0 && test -s '$tmp/metrics/idlecfg.prom' && test \$(ls '$tmp/metrics' | wc -l) -eq 1 && test ! -s '$tmp/p.out' &&
        test \$(stat -c %a '$tmp/metrics/idlecfg.prom') = 644"
n=$(ic plan --profile balanced --json | python3 -c 'import json,sys; print(sum(1 for s in json.load(sys.stdin)["settings"] if not s["skipped"]))')
check "one idlecfg_setting_in_effect gauge per planned setting ($n), the counts and blockers" sh -c "
        test \$(grep -c '^idlecfg_setting_in_effect{' '$tmp/metrics/idlecfg.prom') -eq $n &&
        grep -q '^idlecfg_installed{profile=\"balanced\"} 1\$' '$tmp/metrics/idlecfg.prom' &&
        grep -q '^idlecfg_settings{state=\"drift\"} [1-9]' '$tmp/metrics/idlecfg.prom' &&
        grep -q '^idlecfg_idle_blockers [0-9]*\$' '$tmp/metrics/idlecfg.prom'"
if command -v promtool >/dev/null 2>&1; then
        check "promtool check metrics accepts it (the parser and linter of Prometheus)" sh -c "
                promtool check metrics <'$tmp/metrics/idlecfg.prom' >'$tmp/promtool.out' 2>&1 || { cat '$tmp/promtool.out'; exit 1; }"
else
        skip "promtool check metrics accepts it" "promtool not installed (Debian: prometheus)"
fi
ic verify --profile balanced --nagios >"$tmp/n1" 2>&1; rc=$?
check "verify --nagios with drift: exit 1 WARNING, one line with perfdata" sh -c "
        test $rc -eq 1 && test \$(wc -l <'$tmp/n1') -eq 1 &&
        grep -Eq '^IDLECFG WARNING - profile balanced \(--profile\): [0-9]+ of [0-9]+ settings in effect.* \| match=[0-9]+;;;0;[0-9]+ drift=[1-9][0-9]*;0;;0;[0-9]+ ' '$tmp/n1'"
ic apply --profile balanced >/dev/null 2>&1
# what kernel-install makes: the boot entry with the words (the step pending is a WARNING)
mkdir -p "$root/boot/loader/entries"
printf 'title Debian %s\noptions %s\n' "$KVER" "$(cat "$root/etc/kernel/cmdline")" >"$root/boot/loader/entries/debian-$KVER.conf"
ic verify --profile balanced --nagios >"$tmp/n2" 2>&1; rc=$?
check "verify --nagios after apply and kernel-install: exit 0 OK" sh -c "test $rc -eq 0 && grep -q '^IDLECFG OK - ' '$tmp/n2'"
ic verify --profile no-such-profile --nagios >"$tmp/n3" 2>&1; rc=$?
check "verify --nagios that cannot judge (no such profile): exit 3 UNKNOWN" sh -c "test $rc -eq 3 && grep -q '^IDLECFG UNKNOWN' '$tmp/n3'"
ic rollback >/dev/null 2>&1

# ---- image mode ----
rm -rf "$root" && cp -a "$tmp/orig" "$root"
# the unit where the package puts it, so that systemctl finds it in the root
# (as configure wrote it: make distcheck's is '${prefix}/lib/systemd/system',
# which the C define gets expanded)
unitdir=$(sed -n 's/^systemdsystemunitdir = //p' "$top_builddir/Makefile")
prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
unitdir=$(echo "$unitdir" | sed -e "s|\${prefix}|$prefix|" -e "s|\$(prefix)|$prefix|")
mkdir -p "$root$unitdir" && cp "$top_builddir/src/units/idlecfg-firstboot.service" "$root$unitdir/"
echo 0123456789abcdef0123456789abcdef >"$root/etc/machine-id"
ic install --image --json >"$tmp/i0.json" 2>&1; rc=$?
check "install --image with /etc/machine-id filled: warns in JSON (code image-machine-id)" sh -c "
        test $rc -eq 0 && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = [x for x in d[\"warnings\"] if x[\"code\"] == \"image-machine-id\"]
assert len(w) == 1 and \"machine ID\" in w[0][\"message\"], d[\"warnings\"]
' '$tmp/i0.json'"
ic rollback >/dev/null 2>&1
rm -f "$root/etc/machine-id"
ic install --image >"$tmp/i1" 2>&1; rc=$?
check "install --image: exit 0, no hardware setting written, the first-boot unit enabled by its link, no machine-id warning" sh -c "
        test $rc -eq 0 && test \"\$(readlink '$root$wants')\" = '$unitdir/idlecfg-firstboot.service' &&
        ! grep -q 'machine ID' '$tmp/i1' &&
        test ! -e '$root/etc/udev/rules.d/70-idlecfg.rules' && test ! -e '$root/etc/modprobe.d/idlecfg.conf' &&
        test ! -e '$root/etc/tmpfiles.d/idlecfg.conf' && cmp -s '$root/etc/kernel/cmdline' '$tmp/orig/etc/kernel/cmdline' &&
        grep -qx 'fingerprint image' '$root/var/lib/idlecfg/manifest' && grep -qx 'input fingerprint image' '$root/var/lib/idlecfg/manifest'"
case $unitdir in
/lib/systemd/system | /usr/lib/systemd/system | /usr/local/lib/systemd/system | /etc/systemd/system) unit_seen=yes ;;
*) unit_seen= ;;    # make distcheck's prefix: no directory systemctl searches
esac
if [ -z "$unit_seen" ]; then
        skip "systemctl --root is-enabled idlecfg-firstboot.service" "the unit directory $unitdir is none systemctl searches"
elif command -v systemctl >/dev/null 2>&1; then
        st=$(systemctl --root="$root" is-enabled idlecfg-firstboot.service 2>&1)
        check "systemctl --root is-enabled idlecfg-firstboot.service: enabled (presets manage it: [Install])" test "$st" = enabled ||
                diag "$st"
else
        skip "systemctl --root is-enabled idlecfg-firstboot.service" "no systemctl"
fi
cp "$root/var/lib/idlecfg/manifest" "$tmp/manifest.image"
ic refresh -v >"$tmp/r0" 2>&1; rc=$?
check "a plain refresh of the image (a package hook in the image build) installs nothing: exit 0, the manifest untouched" sh -c "
        test $rc -eq 0 && grep -q 'is an image' '$tmp/r0' && cmp -s '$tmp/manifest.image' '$root/var/lib/idlecfg/manifest' &&
        test ! -e '$root/etc/udev/rules.d/70-idlecfg.rules'"
ic refresh --image >"$tmp/r1" 2>&1; rc=$?
check "refresh --image on a root that is not the running system: installs for this machine, runs nothing, names the next steps, exit 4 as refresh" sh -c "
        test $rc -eq 4 && grep -q 'is not the running system: nothing takes effect now' '$tmp/r1' &&
        grep -q 'fingerprint: image -> ' '$tmp/r1' && test -f '$root/etc/udev/rules.d/70-idlecfg.rules' &&
        ! grep -qx 'fingerprint image' '$root/var/lib/idlecfg/manifest' && test -L '$root$wants' &&
        grep -q 'kernel-install add $KVER' '$tmp/r1'"
ic verify >"$tmp/v1" 2>&1
check "verify after it: a modprobe.d option installed, in effect at the next boot" \
        grep -q '^  drift   audio.power_save snd_hda_intel power_save: .*modprobe (installed; takes effect at the next boot' "$tmp/v1"
rm -rf "$root" && cp -a "$tmp/orig" "$root"
ic install --image >/dev/null 2>&1
take refresh --image >"$tmp/r2" 2>&1; rc=$?
diag "$(cat "$tmp/take.log")"
check "refresh --image on the running system: udevadm trigger of exactly the devices of the rules, tmpfiles; the boot entry handed on (exit 4)" sh -c "
        test $rc -eq 4 && grep -q 'udevadm control --reload\$' '$tmp/take.log' &&
        grep 'udevadm trigger --action=add ' '$tmp/take.log' | grep -q ' /sys/devices/pci0000:00/0000:00:04.0 ' &&
        grep -q 'systemd-tmpfiles --create /etc/tmpfiles.d/idlecfg.conf\$' '$tmp/take.log' &&
        ! grep -q 'kernel-install' '$tmp/take.log' && grep -q 'systemctl start --no-block idlecfg-boot-steps.service\$' '$tmp/take.log'"
# the event the trigger sends must be one every rule matches (ACTION=="add":
# a "change" event set nothing on the first boot of check-vm's image)
act=$(sed -n 's/.*udevadm trigger --action=\([a-z]*\) .*/\1/p' "$tmp/take.log")
check "  the trigger's event (--action=${act:-?}) is one each rule of 70-idlecfg.rules matches" sh -c "
        test -n '$act' && test -s '$root/etc/udev/rules.d/70-idlecfg.rules' &&
        awk -v a='$act' '/^ACTION==/ { n++; split(\$0, f, \"\\\"\"); k = split(f[2], w, \"|\"); m = 0
                for (i = 1; i <= k; i++) if (w[i] == a) m = 1; if (!m) { print \"no \" a \": \" \$0; bad = 1 } }
                END { exit bad || !n }' '$root/etc/udev/rules.d/70-idlecfg.rules'"
n=$(ic plan --profile "$(sed -n 's/^profile //p' "$root/var/lib/idlecfg/manifest")" --json | python3 -c '
import json, sys
print(len({s["devpath"] for s in json.load(sys.stdin)["settings"] if s["mechanism"] == "udev" and not s["skipped"]}))')
check "  (one trigger argument per device with a udev setting, each once: $n)" sh -c "
        test \$(grep 'udevadm trigger' '$tmp/take.log' | tr ' ' '\n' | grep -c '^/sys/devices/') -eq $n &&
        test \$(grep 'udevadm trigger' '$tmp/take.log' | tr ' ' '\n' | grep '^/sys/devices/' | sort | uniq -d | wc -l) -eq 0"
# install on the running system gives the same trigger as its next step (on
# "/" with --dry-run: nothing written; IDLECFG_TEST_CHROOT=0: "/" is the
# running system, as the recording is its /sys)
run_host() { IDLECFG_TEST_CHROOT=0 "$IDLECFG" --profiles-dir "$top_srcdir/profiles" "$@"; }
run_host install --dry-run --json --profile balanced >"$tmp/host-install.json" 2>/dev/null
run_host plan --json --profile balanced >"$tmp/host-plan.json" 2>/dev/null
check "install on the running system: its next step is udevadm trigger --action=add of each device of a udev setting, once" python3 -c '
import json, sys
steps = json.load(open(sys.argv[1]))["next_steps"]
want = sorted({"/sys" + s["devpath"] for s in json.load(open(sys.argv[2]))["settings"]
               if s["mechanism"] == "udev" and not s["skipped"]})
trig = [s["argv"] for s in steps if s["id"] == "udev-trigger"]
assert want and len(trig) == 1 and trig[0][:3] == ["udevadm", "trigger", "--action=add"], trig
assert sorted(trig[0][3:]) == want and len(set(trig[0][3:])) == len(trig[0][3:]), (trig[0][3:], want)
' "$tmp/host-install.json" "$tmp/host-plan.json"
rm -f "$tmp/take.log"
take refresh --image --boot-steps >"$tmp/b2" 2>&1; rc=$?
check "refresh --image --boot-steps: the boot entry made (kernel-install), exit 0" sh -c "
        test $rc -eq 0 && grep -q 'kernel-install add $KVER /boot/vmlinuz-$KVER\$' '$tmp/take.log'"
rm -f "$tmp/take.log"
take refresh --image >"$tmp/r3" 2>&1; rc=$?
check "refresh --image on a configured machine: quiet, exit 0, no command run" sh -c "
        test $rc -eq 0 && test ! -s '$tmp/r3' && test ! -e '$tmp/take.log'"
rm -rf "$root/boot/loader"      # the test's boot entry: not idlecfg's to undo
ic rollback >/dev/null 2>&1; rc=$?
rm -rf "$root/run"      # the lock file, the one thing idlecfg leaves
check "rollback after the image and its first boot: exit 0" test $rc -eq 0
check "  (the root as it was, the drop-in gone: the trees compared)" same_as_orig

# ---- the initramfs at the first boot: made again only when it holds a
# module modprobe.d/idlecfg.conf names (snd_hda_intel here), as lsinitramfs lists it ----
image_root() {
        rm -rf "$root" && cp -a "$tmp/orig" "$root" && echo initramfs >"$root/boot/initrd.img-$KVER" &&
                touch -d 2000-01-01 "$root/boot/initrd.img-$KVER" && ic install --image >/dev/null 2>&1
        rm -f "$tmp/take.log"
}
printf '%s\n' . usr/lib/modules/$KVER/kernel/drivers/ata/ahci.ko.xz usr/lib/modules/$KVER/kernel/drivers/usb/core/usbcore.ko \
        usr/lib/modules/$KVER/kernel/sound/pci/hda/snd-hda-codec.ko.zst etc/modprobe.d >"$tmp/list.without"
cat "$tmp/list.without" >"$tmp/list.with"
echo usr/lib/modules/$KVER/kernel/sound/pci/hda/snd-hda-intel.ko.xz >>"$tmp/list.with"
image_root
export TAKE_LIST="$tmp/list.without"
take refresh --image >"$tmp/r4" 2>&1; rc=$?
take refresh --image --boot-steps >>"$tmp/r4" 2>&1
diag "exit $rc" "$(grep -A3 '^modprobe.d' "$tmp/r4")" "$(cat "$tmp/take.log")"
check "refresh --image, an initramfs without the modules of the options: listed, not made again, said so" sh -c "
        test $rc -eq 4 && grep -q '/lsinitramfs /boot/initrd.img-$KVER\$' '$tmp/take.log' &&
        ! grep -q 'update-initramfs\|dracut' '$tmp/take.log' &&
        grep -q 'the initramfs of $KVER holds none of them (.*snd_hda_intel.*), it is not made again' '$tmp/r4' &&
        grep -q 'kernel-install add $KVER' '$tmp/take.log'"
take verify >"$tmp/v2" 2>&1
check "  verify then, the initramfs listed: older than the options, yet no update-initramfs step" sh -c "
        grep -q '/lsinitramfs ' '$tmp/take.log' && grep -q 'modprobe (installed' '$tmp/v2' && ! grep -q 'update-initramfs' '$tmp/v2'"
ic verify >"$tmp/v3" 2>&1
check "  verify where the initramfs cannot be listed (not the running system): update-initramfs still named" \
        grep -q "update-initramfs -u -k $KVER" "$tmp/v3"
image_root
export TAKE_LIST="$tmp/list.with"
take refresh --image >"$tmp/r5" 2>&1; rc=$?
check "refresh --image, an initramfs holding snd-hda-intel.ko.xz: not made on the boot's critical path, said so" sh -c "
        test $rc -eq 4 && ! grep -q 'update-initramfs' '$tmp/take.log' &&
        grep -q 'the initramfs holds snd_hda_intel: it is made again after this boot' '$tmp/r5'"
take refresh --image --boot-steps >"$tmp/b5" 2>&1; rc=$?
check "  refresh --image --boot-steps makes it (idlecfg-boot-steps.service)" sh -c "
        grep -q 'update-initramfs -u -k $KVER\$' '$tmp/take.log'"
image_root
export TAKE_LIST="$tmp/no-such-list"
take refresh --image >"$tmp/r6" 2>&1; rc=$?
take refresh --image --boot-steps >>"$tmp/r6" 2>&1
check "refresh --image, an initramfs its lister fails on: made again" sh -c "
        test $rc -eq 4 && grep -q '/lsinitramfs ' '$tmp/take.log' && grep -q 'update-initramfs -u -k $KVER\$' '$tmp/take.log'"
unset TAKE_LIST
ic rollback >/dev/null 2>&1
rm -rf "$root" && cp -a "$tmp/orig" "$root"

# ---- a plain install into a root of other hardware ----
IDLECFG_TEST_CHROOT=1 ic install --check >/dev/null 2>"$tmp/w1"
check "install in a chroot warns and points to --image" grep -q 'warning: .*chroot.*install --image' "$tmp/w1"
ic install >/dev/null 2>&1
# (the manifest's end record made again, as idlecfg writes one)
sed -e 's/^fingerprint .*/fingerprint 0123456789abcdef/' -e '/^end /d' "$root/var/lib/idlecfg/manifest" >"$tmp/m.other"
printf 'end %s %s\n' "$(wc -l <"$tmp/m.other")" "$(sha256sum <"$tmp/m.other" | cut -c1-64)" >>"$tmp/m.other"
cp "$tmp/m.other" "$root/var/lib/idlecfg/manifest"
IDLECFG_TEST_CHROOT=0 ic install --check >/dev/null 2>"$tmp/w2"
IDLECFG_TEST_CHROOT=0 ic rollback >/dev/null 2>&1
IDLECFG_TEST_CHROOT=0 ic install --check >/dev/null 2>"$tmp/w3"
IDLECFG_TEST_CHROOT=0 ic install >/dev/null 2>&1
IDLECFG_TEST_CHROOT=0 ic install --check >/dev/null 2>"$tmp/w4"
check "a root whose manifest names other hardware warns, so does one with no manifest; one of this machine does not" sh -c "
        grep -q 'warning: .*fingerprint 0123456789abcdef.*install --image' '$tmp/w2' &&
        grep -q 'warning: .*no manifest of this machine.*install --image' '$tmp/w3' && ! grep -q 'install --image' '$tmp/w4'"
IDLECFG_TEST_CHROOT=0 ic rollback >/dev/null 2>&1
IDLECFG_TEST_CHROOT=0 ic install --json >"$tmp/w5.json" 2>"$tmp/w5.err"; rc=$?
# (exit 4: the boot entry of /etc/kernel/cmdline is a step left)
check "  install --json into a root with no manifest: the warning in JSON (code foreign-hardware), stderr quiet" sh -c "
        test $rc -eq 4 && ! grep -q warning '$tmp/w5.err' && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = [x for x in d[\"warnings\"] if x[\"code\"] == \"foreign-hardware\"]
assert len(w) == 1 and \"install --image\" in w[0][\"message\"], d[\"warnings\"]
' '$tmp/w5.json'"
IDLECFG_TEST_CHROOT=0 ic rollback >/dev/null 2>&1
IDLECFG_TEST_CHROOT=0 ic install --image >/dev/null 2>&1
IDLECFG_TEST_CHROOT=0 ic install >/dev/null 2>"$tmp/w6"
check "  a plain install over an --image root warns (it would bake this machine's devices into the image)" \
        grep -q 'warning: .*prepared with install --image.*use install --image' "$tmp/w6"
IDLECFG_TEST_CHROOT=0 ic rollback >/dev/null 2>&1

# ---- the unit ----
unit=$top_builddir/src/units/idlecfg-firstboot.service
check "the first-boot unit: at every boot, its ExecCondition= deciding (no systemd condition), before first-boot-complete.target, refresh --image" sh -c "
        ! grep -q '^Condition' '$unit' && grep -q '^ExecCondition=/.*/idlecfg refresh --image --condition\$' '$unit' &&
        grep -qx 'Before=first-boot-complete.target shutdown.target' '$unit' && grep -qx 'Wants=first-boot-complete.target' '$unit' &&
        grep -q '^ExecStart=/.*/idlecfg refresh --image\$' '$unit'"
check "  with [Install] WantedBy=sysinit.target, exit 4 a success, beside the boot (before no unit of sysinit.target: tests/firstboot.sh follows the order), no hour-long timeout" sh -c "
        grep -qx '\[Install\]' '$unit' && grep -qx 'WantedBy=sysinit.target' '$unit' && grep -qx 'SuccessExitStatus=4' '$unit' &&
        grep -qx 'DefaultDependencies=no' '$unit' && ! grep -q '^Before=.*sysinit.target' '$unit' && ! grep -q '^TimeoutSec=1h' '$unit'"
bs=$top_builddir/src/units/idlecfg-boot-steps.service
check "idlecfg-boot-steps.service: refresh --image --boot-steps, after the first-boot unit, in the ordinary boot (default dependencies)" sh -c "
        grep -q '^ExecStart=/.*/idlecfg refresh --image --boot-steps\$' '$bs' && grep -q '^After=idlecfg-firstboot.service' '$bs' &&
        ! grep -q '^DefaultDependencies=no' '$bs'"
done_testing
