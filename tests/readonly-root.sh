#!/bin/sh
# tests/readonly-root.sh: nothing written that was not asked for. --dry-run
# and the verbs that read write nothing (no lock, no directory); install then
# rollback leaves the root byte for byte as it was, directories and modes
# included (the lock file and a /run made for it go at the end of the run);
# on a read-only root (a read-only bind mount, as root) --dry-run, refresh with
# nothing installed and rollback with nothing to roll back work
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3
plan 8

M=$TESTS_DATA/machines/desktop-sata
root=$tmp/root
mkroot_installed "$M" "$root" >/dev/null 2>&1 || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/var/lib"
# snap OUT: every path with its type, mode and link target, then the files' digests
snap() {
        (cd "$root" && find . -printf '%p %y %m %l\n' | LC_ALL=C sort && find . -type f -exec sha256sum {} + | LC_ALL=C sort -k2) >"$1"
}
ic() { run_machine "$M" "$IDLECFG" --root "$root" --kernel "$KVER" --profile balanced "$@"; }
# detect takes no --profile (the per-verb option table: exit 2)
icd() { run_machine "$M" "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
snap "$tmp/s0"
ic install --dry-run >"$tmp/o1" 2>&1; rc1=$?
ic plan >/dev/null 2>&1; rcp=$?
icd detect >/dev/null 2>&1; rcd=$?
ic verify >/dev/null 2>&1
snap "$tmp/s1"
check "install --dry-run, plan, detect, verify: nothing written, no lock, no /run" sh -c "
        test $rc1 -le 1 && test $rcp -eq 0 && test $rcd -eq 0 && diff '$tmp/s0' '$tmp/s1'"
# balanced's pcie_aspm.policy=default is a command-line word and this root has
# no boot loader configuration: install is done but exits 4 (NEXT STEPS)
ic install >"$tmp/o2" 2>&1; rc2=$?
test -e "$root/run" && run_after_install=yes || run_after_install=no
ic rollback >"$tmp/o3" 2>&1; rc3=$?
snap "$tmp/s2"
check "install (a root without /run), then rollback: the root byte for byte as before, directories and modes included" sh -c "
        test $rc2 -eq 4 && test $rc3 -eq 0 && diff '$tmp/s0' '$tmp/s2'"
mkdir -p "$root/run"
ic install >"$tmp/o4" 2>&1; rc4=$?
check "install with a /run: no lock file left behind once it is done; the run leaves /run itself" sh -c "
        test $rc4 -eq 4 && test $run_after_install = no && test -d '$root/run' && test -z \"\$(ls -A '$root/run')\""
ic rollback >/dev/null 2>&1
rmdir "$root/run"

# no devices in /sys (an empty umockdev testbed, as a chroot without /sys): refused, nothing recorded
umockdev-run -- "$IDLECFG" --root "$root" --kernel "$KVER" --profile balanced install >"$tmp/o5" 2>&1; rc5=$?
snap "$tmp/s5"
check "no devices in /sys: install exits 3 saying so, and records nothing" sh -c "
        test $rc5 -eq 3 && grep -q 'no devices found in /sys' '$tmp/o5' && diff '$tmp/s0' '$tmp/s5'"

# balanced's pcie_aspm.policy=default where the target kernel's default is "default": not written
k=$tmp/kroot
mkroot_installed "$M" "$k" >/dev/null 2>&1 || { echo "Bail out! no root"; exit 1; }
run_machine "$M" "$IDLECFG" --root "$k" --kernel "$KVER" --profile balanced install --dry-run >"$tmp/k0" 2>&1
mkdir -p "$k/boot"
printf 'CONFIG_PCIEASPM=y\n# CONFIG_PCIEASPM_PERFORMANCE is not set\nCONFIG_PCIEASPM_DEFAULT=y\n' >"$k/boot/config-$KVER"
run_machine "$M" "$IDLECFG" --root "$k" --kernel "$KVER" --profile balanced install --dry-run >"$tmp/k1" 2>&1
run_machine "$M" "$IDLECFG" --root "$k" --kernel "$KVER" --profile balanced plan --json >"$tmp/k2" 2>/dev/null
check "without the kernel's config, balanced writes pcie_aspm.policy=default (the control for the next point)" \
        grep -q 'pcie_aspm.policy=default' "$tmp/k0"
check "CONFIG_PCIEASPM_DEFAULT=y: pcie_aspm.policy=default is neither written nor a boot-loader step, and the plan says why" sh -c "
        ! grep -q 'pcie_aspm.policy' '$tmp/k1' && grep -q 'default is the target kernel.s default policy already (CONFIG_PCIEASPM_DEFAULT=y in' '$tmp/k2'"

# ---- a read-only root: a read-only bind mount in a private mount namespace ----
if mount_ns; then
        ro=$tmp/ro
        mkdir -p "$ro"
        cat >"$tmp/ro.sh" <<SH
#!/bin/sh
mount --bind "$root" "$ro" && mount -o remount,bind,ro "$ro" || exit 77
for v in "install --dry-run" refresh rollback plan detect; do
        p="--profile balanced"
        [ "\$v" = detect ] && p=
        "$top_srcdir/tests/run-machine" "$M" "$IDLECFG" --root "$ro" --kernel "$KVER" \$p \$v >"$tmp/ro.out" 2>&1
        echo "\$v \$?"
        cat "$tmp/ro.out" >>"$tmp/ro.all"
done
SH
        $us sh "$tmp/ro.sh" >"$tmp/ro.rc" 2>&1
        check "read-only root: install --dry-run exits 1 (would change), refresh, rollback, plan and detect exit 0" sh -c "
                printf 'install --dry-run 1\nrefresh 0\nrollback 0\nplan 0\ndetect 0\n' | diff - '$tmp/ro.rc'"
        check "... and none says read-only or fails to lock" sh -c "! grep -Ei 'read-only|cannot (create|open|lock)' '$tmp/ro.all'"
else
        skip "read-only root (a read-only bind mount)" "$why"
        skip "(same)"
fi
done_testing
