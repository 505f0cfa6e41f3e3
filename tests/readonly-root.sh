#!/bin/sh
# tests/readonly-root.sh: nothing written that was not asked for. --dry-run
# and the verbs that read write nothing (no lock, no directory); install then
# rollback leaves the root byte for byte as it was, directories and modes
# included (the lock file and a /run made for it go at the end of the run);
# on a read-only root (a read-only bind mount, as root) --dry-run, refresh with
# nothing installed and rollback with nothing to roll back work; with only /usr
# read-only (bootc and ostree deployments, images), on a laptop with a battery
# (the power-source switch): image install, the first boot (and one cut short,
# finished by the next), install, refresh and rollback work, rollback exact
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3
plan 13

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
# ---- a read-only /usr on a laptop with a battery (#43) ----
# usr-flow.sh ROOT [FAULT]: install --image, the first boot (refresh --image;
# with FAULT one cut short first), its boot steps, a second first boot,
# install of two profiles, refresh, rollback: a line "STEP EXIT" each, their
# output in ROOT.out. The commands the first boot runs are logged
# (take_logger), as tests/image.sh does; kernel-install makes a boot entry.
L=$TESTS_DATA/machines/intel-laptop
take_logger "$tmp/take-cmd"
cat >"$tmp/usr-flow.sh" <<SH
r=\$1 fault=\${2:-}
il() { TAKE_ROOT=\$r TAKE_LOG=\$r.take IDLECFG_TEST_TAKE_EFFECT=$tmp/take-cmd \\
        "$top_srcdir/tests/run-machine" "$L" "$IDLECFG" --root "\$r" --kernel "$KVER" "\$@" >>"\$r.out" 2>&1; }
il install --image; echo "install--image \$?"
if [ -n "\$fault" ]; then
        IDLECFG_FAULT=\$fault il refresh --image; echo "cut \$?"
fi
il refresh --image; echo "firstboot \$?"
il refresh --image --boot-steps; echo "boot-steps \$?"
il refresh --image; echo "firstboot2 \$?"
il --profile balanced install; echo "install \$?"
il --profile powersave install; echo "install2 \$?"
il --profile powersave refresh; echo "refresh \$?"
il rollback; echo "rollback \$?"
SH
# a root of the laptop whose boot configuration kernel-install makes (and a
# /run, as a booted system has: a run killed keeps the one it made for its lock)
lroot() {
        rm -rf "$1" "$1.out" "$1.take"
        mkroot_installed "$L" "$1" >/dev/null 2>&1 || return 1
        mkdir -p "$1/var/lib" "$1/etc/kernel" "$1/boot" "$1/run"
        printf 'root=UUID=0b5b5f4e-5d0e-4e4b-9d62-3f9d2b2a5c11 ro quiet\n' >"$1/etc/kernel/cmdline"
}
# SNAP DIR [SUB]: every path below DIR/SUB with type, mode, link, and the files' digests
tsnap() { (cd "$1" && find ${2:-.} -printf '%p %y %m %l\n' | LC_ALL=C sort && find ${2:-.} -type f -exec sha256sum {} + | LC_ALL=C sort -k2); }
want='install--image 0
firstboot 4
boot-steps 0
firstboot2 0
install 0
install2 4
refresh 4
rollback 0'
ur=$tmp/usr-ro
lroot "$ur" || { echo "Bail out! no root"; exit 1; }
tsnap "$ur" >"$tmp/u0"
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
        unshare -m sh -c 'mount --make-rprivate / 2>/dev/null; mount --bind "$1/usr" "$1/usr" &&
                mount -o remount,bind,ro "$1/usr" || exit 77
                touch "$1/usr/.w" 2>/dev/null && exit 78
                exec sh "$2" "$1"' sh "$ur" "$tmp/usr-flow.sh" >"$tmp/u.rc" 2>&1
        rm -rf "$ur/boot/loader"
        tsnap "$ur" >"$tmp/u1"
        check "/usr a read-only bind mount: install --image, the first boot and its boot steps, install, refresh, rollback all done" \
                sh -c "echo '$want' | diff - '$tmp/u.rc'" || diag "$(cat "$ur.out")"
        check "  none of them says read-only or fails to write" sh -c "! grep -Ei 'read-only|cannot write' '$ur.out'"
        check "  the root (/usr and all) exactly as before once rolled back" diff "$tmp/u0" "$tmp/u1"
else
        for i in 1 2 3; do skip "a read-only /usr bind mount" "needs root and unshare -m"; done
fi

# the same without a namespace: every directory of /usr immutable (chattr +i,
# as root) or not writable (chmod a-w, as another user)
ur2=$tmp/usr-immutable
lroot "$ur2" || { echo "Bail out! no root"; exit 1; }
tsnap "$ur2" usr >"$tmp/v0"
lock_usr() {
        if [ "$(id -u)" = 0 ]; then
                find "$ur2/usr" -type d -exec chattr +i {} + 2>/dev/null
        else
                find "$ur2/usr" -type d -exec chmod a-w {} +
        fi
        ! touch "$ur2/usr/lib/.w" 2>/dev/null
}
unlock_usr() {
        find "$ur2/usr" -type d -exec chattr -i {} + 2>/dev/null
        find "$ur2/usr" -type d -exec chmod u+w {} + 2>/dev/null
}
if lock_usr; then
        sh "$tmp/usr-flow.sh" "$ur2" >"$tmp/v.rc" 2>&1
        unlock_usr
        tsnap "$ur2" usr >"$tmp/v1"
        check "/usr immutable (chattr +i, or no write permission): the same flow done, /usr untouched" \
                sh -c "echo '$want' | diff - '$tmp/v.rc' && diff '$tmp/v0' '$tmp/v1'" || diag "$(cat "$ur2.out")"
else
        unlock_usr
        skip "/usr immutable without a namespace" "chattr +i not supported here"
fi

# a first boot cut short (SIGKILL) at a write of its install: the next boot finishes it
ur3=$tmp/usr-cut
bad=
for k in 3 6 9 12; do
        lroot "$ur3" || { echo "Bail out! no root"; exit 1; }
        tsnap "$ur3" >"$tmp/w0"
        sh "$tmp/usr-flow.sh" "$ur3" "kill:$k" >"$tmp/w.rc" 2>&1
        rm -rf "$ur3/boot/loader"
        tsnap "$ur3" >"$tmp/w1"
        grep -v '^cut ' "$tmp/w.rc" | { echo "$want" | diff - /dev/fd/3 >/dev/null; } 3<&0 || bad="$bad $k"
        diff -q "$tmp/w0" "$tmp/w1" >/dev/null || bad="$bad $k(rollback)"
done
check "a first boot killed at fault points 3, 6, 9, 12: the next one finishes it, the rest as without, rollback exact [bad:${bad:- none}]" \
        test -z "$bad" || diag "$(cat "$ur3.out")"
done_testing
