#!/bin/sh
# tests/plan-tools.sh: explain, and the files a recorded machine's plan renders
# checked by the real tools (modprobe -C, udevadm test under umockdev + unshare -m)
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" udevadm
PATH=$PATH:/sbin:/usr/sbin
plan 14

m=desktop-sata
dir=$TESTS_DATA/machines/$m
root=$tmp/root
mkroot_installed "$dir" "$root" || { echo "Bail out! no root"; exit 1; }
ic() { run_machine "$dir" "$IDLECFG" "$@" --profile balanced --root "$root" --kernel "$KVER"; }

ic explain 0000:00:1f.2 >"$tmp/e1" 2>&1
check "explain by PCI address" grep -q 'pci.runtime_pm' "$tmp/e1"
ic explain host1 >"$tmp/e2" 2>&1
check "explain a SATA host: the NOLPM disk is the reason" sh -c "grep -q 'sata.alpm: skipped: disk Crucial' '$tmp/e2'"
ic explain /sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/scsi_host/host0 >"$tmp/e3" 2>&1
check "explain by sysfs path" grep -q 'sata.alpm: link_power_management_policy max_performance -> med_power_with_dipm' "$tmp/e3"
ic explain 413c:2105 >"$tmp/e4" 2>&1
check "explain by USB vendor:product: a HID keyboard is not autosuspended" grep -q 'HID device' "$tmp/e4"
ic explain 1f.2 >"$tmp/e5" 2>&1; rc=$?
check "explain of an unknown device: exit 2, says what to give" sh -c "test $rc -eq 2 && grep -q 'no device' '$tmp/e5'"
ic plan --format=bogus >/dev/null 2>"$tmp/e6"; rc=$?
check "plan --format=bogus: exit 2 with the valid formats" sh -c "test $rc -eq 2 && grep -q 'tmpfiles' '$tmp/e6'"

# pcie_aspm=off in the target's GRUB configuration is respected
mkdir -p "$root/etc/default"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="quiet pcie_aspm=off"\n' >"$root/etc/default/grub"
ic plan >"$tmp/off" 2>&1
check "pcie_aspm=off in /etc/default/grub: no ASPM setting planned" sh -c "
        tr '\n' ' ' < '$tmp/off' | tr -s ' ' | grep -q 'booted with pcie_aspm=off' && ! grep -q 'pcie_aspm.policy=' '$tmp/off' &&
        ! grep -A1 '^pcie_aspm' '$tmp/off' | grep -q '    set '"
rm "$root/etc/default/grub"

# modprobe.d as modprobe reads it
mkdir -p "$tmp/modprobe.d"
ic plan --format=modprobe >"$tmp/modprobe.d/idlecfg.conf" 2>"$tmp/err"
check "modprobe -C reads the rendered modprobe.d" sh -c "
        modprobe -C '$tmp/modprobe.d' --showconfig 2>&1 | grep -qx 'options snd_hda_intel power_save=10 power_save_controller=Y'"
ic plan --format=cmdline >"$tmp/cmdline" 2>&1
check "command line fragment: one line of module.param=value words" sh -c "
        test \$(wc -l < '$tmp/cmdline') -le 1 && ! grep -q '[^a-z0-9_.= /-]' '$tmp/cmdline' && grep -q 'pcie_aspm.policy=default' '$tmp/cmdline'"
ic plan --format=tmpfiles >"$tmp/tmpfiles.conf" 2>&1
check "tmpfiles line for the running ASPM policy" grep -qx 'w /sys/module/pcie_aspm/parameters/policy - - - - default' "$tmp/tmpfiles.conf"

# udev rules: udevadm test really writes ATTR values, so only under umockdev
# and in a private mount namespace with tmpfs over the live /sys and /run
ic plan --format=udev >"$tmp/70-idlecfg.rules" 2>&1
check "rendered rules hold only match keys and guarded ATTR assignments" sh -c "
        ! grep -v '^#' '$tmp/70-idlecfg.rules' | grep -E 'RUN|PROGRAM|IMPORT|GOTO|ENV\\{' &&
        grep -v '^#' '$tmp/70-idlecfg.rules' | grep . | grep -v 'TEST==\"[a-z0-9_/]*\", ATTR{[a-z0-9_/]*}=\"[a-z0-9_]*\"\$' | wc -l | grep -qx 0"
if [ -e /sys/devices/pci0000:00/0000:00:1f.2 ]; then
        skip "the recorded SATA controller's path exists on this host: no udevadm test"
        skip "(same)"
        skip "(same)"
elif ! mount_ns; then
        for i in 1 2 3; do skip "udevadm test of the rendered rules" "$why"; done
else
        udev_sandbox "$tmp/inner.sh"
        cat >>"$tmp/inner.sh" <<'SH'
for h in 0 1; do
        d=/sys/devices/pci0000:00/0000:00:1f.2/ata$((h + 1))/host$h/scsi_host/host$h
        udevadm test --action=add "$d" >"$out/test.$h" 2>&1
        cat "$UMOCKDEV_DIR$d/link_power_management_policy" >"$out/policy.$h"
done
SH
        mkdir -p "$tmp/out"
        grep -v '^#' "$dir/machine.umockdev" >"$tmp/m.umockdev"
        umockdev-run -d "$tmp/m.umockdev" -- $us sh "$tmp/inner.sh" "$tmp/out" \
                "$(readlink /proc/self/ns/mnt)" "$tmp/70-idlecfg.rules" >"$tmp/udev.log" 2>&1
        rc=$?
        check "udevadm test ran (umockdev, private mount namespace: $us)" test $rc -eq 0
        [ $rc -eq 0 ] || diag "$(tail -n 30 "$tmp/udev.log" "$tmp"/out/test.* 2>/dev/null)"
        check "host0 (optical drive) set to med_power_with_dipm by our rule" grep -qx med_power_with_dipm "$tmp/out/policy.0"
        check "host1 (NOLPM Crucial M500) left at max_performance" grep -qx max_performance "$tmp/out/policy.1"
fi
done_testing
