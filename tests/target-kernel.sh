#!/bin/sh
# tests/target-kernel.sh: the kernel idlecfg plans for is the one the target
# boots next (--kernel, else systemd-boot's default, else the newest installed
# with an image or a dpkg package), said with its reason; inside a chroot of
# the target (an installer's in-target, run for real as root) too, where the
# kernel hook, the package trigger and a manual refresh agree on it: hook,
# trigger, hook leave one stable set of files
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3
plan 10

M=$TESTS_DATA/machines/desktop-sata
root=$tmp/root
mkroot_installed "$M" "$root" >/dev/null 2>&1 || { echo "Bail out! no root"; exit 1; }
# kernel OUT [ARGS]: detect --json on the root, the "kernel" object as "release source|reason"
kernel() {
        _o=$1
        shift
        run_machine "$M" "$IDLECFG" detect --json --root "$root" "$@" >"$_o.json" 2>"$_o.err"
        python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))["kernel"]; print(k["release"], k["source"] + "|" + k["reason"])' \
                "$_o.json" >"$_o" 2>>"$_o.err"
}
K18=$KVER K19=6.1.0-19-amd64 K20=6.1.0-20-amd64
cp -a "$root/lib/modules/$K18" "$root/lib/modules/$K19"
cp -a "$root/lib/modules/$K18" "$root/lib/modules/$K20"
mkdir -p "$root/boot" "$root/var/lib/dpkg"
: >"$root/boot/vmlinuz-$K18"

kernel "$tmp/k1"
check "a newer module directory without a kernel image (left by a removed kernel) is not chosen: the newest with an image" sh -c "
        grep -q '^$K18 newest-installed|the newest installed' '$tmp/k1' && grep -q 'running kernel $(uname -r) is the host' '$tmp/k1'"

printf 'Package: linux-image-%s\nStatus: install ok installed\nVersion: 6.1.76-1\n\n' "$K19" >"$root/var/lib/dpkg/status"
kernel "$tmp/k2"
check "an installed linux-image-$K19 in the dpkg status counts as its image" grep -q "^$K19 newest-installed" "$tmp/k2"
# every kernel with its image: the choice does not read the dpkg status (a
# few MiB on a desktop); detect reads it once, for the kernel's version
: >"$root/boot/vmlinuz-$K19"
: >"$root/boot/vmlinuz-$K20"
IDLECFG_TRACE_READS=$tmp/k2b.reads kernel "$tmp/k2b"
check "with every kernel's image there, the choice reads no dpkg status (detect: once, for the version)" sh -c "
        grep -q '^$K20 newest-installed' '$tmp/k2b' && [ \$(grep -c '^read /var/lib/dpkg/status\$' '$tmp/k2b.reads') -eq 1 ]"
rm "$root/boot/vmlinuz-$K19" "$root/boot/vmlinuz-$K20"

mkdir -p "$root/boot/loader/entries"
printf 'timeout 3\ndefault debian-%s*\n' "$K18" >"$root/boot/loader/loader.conf"
for k in $K18 $K19; do
        printf 'title Debian\nversion %s\nlinux /debian/%s/linux\n' "$k" "$k" >"$root/boot/loader/entries/debian-$k.conf"
done
kernel "$tmp/k3"
check "systemd-boot's loader.conf default names $K18: that one, and why" sh -c "
        grep -q '^$K18 boot-loader|the boot loader.s default (/boot/loader/loader.conf)' '$tmp/k3'"

printf 'default @saved\n' >"$root/boot/loader/loader.conf"
kernel "$tmp/k4"
kernel "$tmp/k5" --kernel "$K20"
check "a default idlecfg cannot read (@saved): the newest installed; --kernel overrides all" sh -c "
        grep -q '^$K19 newest-installed' '$tmp/k4' && grep -q '^$K20 --kernel|given with --kernel' '$tmp/k5'"
rm -rf "$root/boot/loader"

run_machine "$M" "$IDLECFG" plan --root "$root" --profile balanced >"$tmp/plan.txt" 2>&1
check "the text plan says which kernel and why" grep -q "^Kernel $K19: the newest installed" "$tmp/plan.txt"

# ---- a chroot of the target, as debian-installer's in-target runs it ----
# The root gets the host's programs and libraries (/usr/bin, /usr/lib/TRIPLET,
# /usr/lib64, read-only), /proc, /sys and /dev bound, and the built idlecfg;
# its own /usr/lib/modules, profiles and hwdb; the host runs another kernel.
# Needs root (unshare -m, chroot) and a merged-/usr host.
multiarch=$(${CC:-cc} -print-multiarch 2>/dev/null || true)
chroot_ok=
if [ -L /lib ] && [ -L /bin ] && [ -n "$multiarch" ] && [ -d "/usr/lib/$multiarch" ] && root_ns; then
        chroot_ok=1
fi
C=$tmp/target
if [ -n "$chroot_ok" ]; then
        mkroot_installed "$M" "$C" >/dev/null 2>&1 || { echo "Bail out! no root"; exit 1; }
        mkdir -p "$C/usr/lib/$multiarch" "$C/usr/bin" "$C/proc" "$C/sys" "$C/dev" "$C/run" "$C/var/lib" "$C/boot" \
                "$C/etc/kernel/postinst.d" "$C/idlecfg-test"
        mv "$C/lib/modules" "$C/usr/lib/modules" && rmdir "$C/lib"
        binds="/usr/bin /usr/lib/$multiarch"
        if [ -d /usr/lib64 ]; then mkdir -p "$C/usr/lib64"; binds="$binds /usr/lib64"; fi
        for l in bin lib lib64; do [ -L "/$l" ] && ln -s "$(readlink "/$l")" "$C/$l"; done
        cp "$IDLECFG" "$C/idlecfg-test/idlecfg"
        # the profiles where this build looks for them on "/" (its PKGDATADIR, /usr/local/share with the default prefix)
        for d in $(grep -ao '/[A-Za-z0-9._/+-]*share/idlecfg/profiles' "$IDLECFG" | sort -u); do
                mkdir -p "$C$d" && cp "$top_srcdir"/profiles/*.profile "$C$d/"
        done
        cp "$top_srcdir/src/hooks/kernel-postinst.sh" "$C/etc/kernel/postinst.d/zz-idlecfg"
        : >"$C/boot/vmlinuz-$K18"
        # in-target: bind mounts in a private mount namespace, then chroot
        cat >"$tmp/in-target" <<SH
#!/bin/sh
set -e
for d in $binds; do mount --bind "\$d" "$C\$d"; mount -o remount,bind,ro "$C\$d"; done
for d in proc sys dev; do mount --rbind "/\$d" "$C/\$d"; done
exec chroot "$C" "\$@"
SH
        chmod +x "$tmp/in-target"
fi
snap() {
        (cd "$C" && find . -path ./idlecfg-test -prune -o -path ./usr -prune -o -path ./proc -prune -o -path ./sys -prune \
                -o -path ./dev -prune -o -type f -print | LC_ALL=C sort | xargs sha256sum) >"$1"
}
if [ -n "$chroot_ok" ]; then
        it() { unshare -m "$tmp/in-target" "$@"; }
        cp -a "$C/usr/lib/modules/$K18" "$C/usr/lib/modules/$K19" && : >"$C/boot/vmlinuz-$K19"
        it /idlecfg-test/idlecfg detect --json >"$tmp/c1.json" 2>"$tmp/c1.err"
        check "in a chroot: the newest kernel of the target, not the running one, said so" sh -c "
                python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))[\"kernel\"]; assert k[\"release\"] == \"$K19\", k; assert k[\"source\"] == \"newest-installed\", k; assert \"installer\" in k[\"reason\"], k' '$tmp/c1.json'"
        it /idlecfg-test/idlecfg install --profile balanced >"$tmp/c2" 2>&1 || { echo "Bail out! install in the chroot failed"; cat "$tmp/c2"; exit 1; }
        cp -a "$C/usr/lib/modules/$K18" "$C/usr/lib/modules/$K20" && : >"$C/boot/vmlinuz-$K20"
        IDLECFG=/idlecfg-test/idlecfg it /bin/sh /etc/kernel/postinst.d/zz-idlecfg "$K20" >"$tmp/c3" 2>&1
        snap "$tmp/s1"
        it /idlecfg-test/idlecfg refresh >"$tmp/c4" 2>&1
        snap "$tmp/s2"
        IDLECFG=/idlecfg-test/idlecfg it /bin/sh /etc/kernel/postinst.d/zz-idlecfg "$K20" >"$tmp/c5" 2>&1
        snap "$tmp/s3"
        check "in a chroot: the kernel hook for a new kernel re-installs for it" sh -c "
                grep -q '^kernel $K20\$' '$C/var/lib/idlecfg/manifest' && grep -q 'kernel: $K19 -> $K20' '$tmp/c3'"
        check "hook, then the package trigger's refresh, then the hook again: one stable set of files for the new kernel, nothing changed" sh -c "
                test -s '$tmp/s1' && cmp '$tmp/s1' '$tmp/s2' && cmp '$tmp/s2' '$tmp/s3' && ! grep -q 'Changed since' '$tmp/c4' '$tmp/c5' &&
                grep -q '^kernel $K20\$' '$C/var/lib/idlecfg/manifest'"
        rm -rf "$C/usr/lib/modules/$K20" "$C/boot/vmlinuz-$K20"
        IDLECFG_TEST_CHROOT=0 it /idlecfg-test/idlecfg detect --json >"$tmp/c6.json" 2>&1
        check "in the chroot with the chroot test forced off: the reason speaks of the running system" \
                grep -q 'is not the one the system boots next' "$tmp/c6.json"
else
        skip "in a chroot: the newest kernel of the target (needs root, unshare -m and a merged-/usr host)"
        skip "(same)"
        skip "(same)"
        skip "(same)"
fi
done_testing
