#!/bin/sh
# tests/state-paths.sh: the paths of idlecfg's state in a root occupied by
# something idlecfg did not write, each said in the reader's words for what is
# there (a FIFO, a directory, a link inside the root or out of it), once, with
# what idlecfg does instead; never "Invalid argument", "File descriptor in bad
# state", "Invalid cross-device link" or "a symbolic link loop" for what is
# none. /var/lib/idlecfg linked out of the root (install, refresh, rollback,
# verify: each refuses it); initramfs.cache as a FIFO, a directory or a link (verify and
# refresh list the initramfs again, one warning naming it; rollback leaves
# it, naming it); firstboot.stamp as a FIFO, a directory or a link out of the
# root (read by refresh --image --condition, written by refresh --image); the
# power-source table a FIFO; a manifest of garbage told the format line
# idlecfg writes. Under a recorded machine, the commands of refresh and the
# initramfs lister logged, never run.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod timeout "${CC:-cc}"
PATH=$PATH:/sbin:/usr/sbin
if [ -z "${IDLECFG_IN_MACHINE:-}" ]; then
        rm -rf "$tmp"
        IDLECFG_IN_MACHINE=1 exec "$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/intel-laptop" sh "$0" "$@"
fi
plan 13

root=$tmp/root
state=$root/var/lib/idlecfg
cache=$state/initramfs.cache
stamp=$state/firstboot.stamp
mkroot_installed "$TESTS_DATA/machines/intel-laptop" "$root" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/var/lib" "$root/etc/kernel" "$root/boot"
printf 'root=UUID=0b5b5f4e-5d0e-4e4b-9d62-3f9d2b2a5c11 ro quiet\n' >"$root/etc/kernel/cmdline"
echo initramfs >"$root/boot/initrd.img-$KVER"
echo 0123456789abcdef0123456789abcdef >"$root/etc/machine-id"
cp -a "$root" "$tmp/orig"
reset_root() { rm -rf "$root" && cp -a "$tmp/orig" "$root"; }
# each run under timeout: a FIFO that blocked would fail the point, not hang the suite
ic() { timeout -s KILL 30 "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
# the commands idlecfg would run go to a log; the lister prints an initramfs with ahci only
cat >"$tmp/log-cmd" <<'SH'
#!/bin/sh
echo "$*" >>"$TAKE_LOG"
case $1 in */lsinitramfs) exec cat "$TAKE_LIST" ;; esac
SH
chmod +x "$tmp/log-cmd"
printf '%s\n' . usr/lib/modules/$KVER/kernel/drivers/ata/ahci.ko.xz >"$tmp/list"
export TAKE_LIST="$tmp/list" TAKE_LOG="$tmp/take.log"
take() { IDLECFG_TEST_TAKE_EFFECT=$tmp/log-cmd ic "$@"; }
# the number of listings of the initramfs since the last call
listed() { _c=$(grep -c '/lsinitramfs ' "$TAKE_LOG" 2>/dev/null); rm -f "$TAKE_LOG"; echo "${_c:-0}"; }
# what no message may say for a path that is occupied
wrong='Invalid argument\|File descriptor in bad state\|Invalid cross-device link\|symbolic link loop\|Is a directory'
mkdir -p "$tmp/outside"
: >"$tmp/outside/file"
# occupy PATH with KIND: fifo, dir, or link (out of the root, to a file this machine has)
occupy() {
        rm -rf "$1"
        case $2 in
        fifo) mkfifo "$1" ;;
        dir) mkdir "$1" ;;
        link) ln -s "$tmp/outside/file" "$1" ;;
        esac
}
words() {
        case $1 in
        fifo) echo 'not a regular file (a FIFO)' ;;
        dir) echo 'is a directory, not a file' ;;
        link) echo "a symbolic link leading out of the root (to $tmp/outside/file)" ;;
        esac
}

# ---- /var/lib/idlecfg linked out of the root ----
mkdir -p "$tmp/outside/state"
ln -s "$tmp/outside/state" "$state"
w="on its way, $state is a symbolic link leading out of the root (to $tmp/outside/state)"
ic install >"$tmp/x.install" 2>&1; rc1=$?
ic refresh >"$tmp/x.refresh" 2>&1; rc2=$?
ic rollback >"$tmp/x.rollback" 2>&1; rc3=$?
ic verify >"$tmp/x.verify" 2>&1; rc4=$?
check "/var/lib/idlecfg linked out of the root: install, refresh, rollback and verify exit 3 ($rc1 $rc2 $rc3 $rc4), each naming the link" sh -c "
        test $rc1 -eq 3 && test $rc2 -eq 3 && test $rc3 -eq 3 && test $rc4 -eq 3 &&
        for v in install refresh rollback verify; do grep -qF '$w' '$tmp/x.'\$v || exit 1; ! grep -q '$wrong' '$tmp/x.'\$v || exit 1; done &&
        test -z \"\$(ls -A '$tmp/outside/state')\""
reset_root

# ---- initramfs.cache occupied ----
ic install >/dev/null 2>&1
take verify >/dev/null 2>&1
n=$(listed)
check "the cache as a file: the first verify lists the initramfs, it is kept ($n)" sh -c "
        test $n -eq 1 && head -n 1 '$cache' | grep -qx 'idlecfg-initramfs-cache 1'"
for kind in fifo dir link; do
        occupy "$cache" $kind
        take verify >"$tmp/c1" 2>&1
        n1=$(listed)
        take refresh >"$tmp/c2" 2>&1
        n2=$(listed)
        check "initramfs.cache a $kind: verify and refresh each list the initramfs and warn once naming it ($n1 $n2)" sh -c "
                test $n1 -eq 1 && test $n2 -eq 1 &&
                for f in '$tmp/c1' '$tmp/c2'; do
                        test \$(grep -c 'initramfs.cache' \"\$f\") -eq 1 || exit 1
                        grep -qF 'warning: $cache: $(words $kind); idlecfg cannot keep its verdict on the initramfs there, and lists the initramfs again at every verify and refresh: remove it' \"\$f\" || exit 1
                        ! grep -q '$wrong' \"\$f\" || exit 1
                done"
done
occupy "$cache" dir
ic rollback >"$tmp/rb" 2>&1; rc=$?
check "rollback with a directory at initramfs.cache: rolls back (exit $rc), names it, leaves it" sh -c "
        test $rc -eq 0 && grep -q 'Every file idlecfg installed is as it was before' '$tmp/rb' &&
        grep -qF 'warning: $cache: is a directory, not a file; idlecfg did not write it and leaves it in place: remove it by hand' '$tmp/rb' &&
        test -d '$cache' && test ! -e '$state/manifest'"
reset_root

# ---- firstboot.stamp occupied ----
# (performance: nothing is left for the boot configuration, so refresh
# --image writes the stamp at once instead of handing it to the boot steps)
ic install --image --profile performance >/dev/null 2>&1
for kind in fifo dir link; do
        occupy "$stamp" $kind
        ic refresh --image --condition -v >"$tmp/s1" 2>&1; rc1=$?
        take refresh --image --profile performance >"$tmp/s2" 2>&1; rc2=$?
        check "firstboot.stamp a $kind: --condition runs the unit (exit $rc1), refresh --image (exit $rc2) cannot write it: each says what is there" sh -c "
                test $rc1 -eq 0 && test $rc2 -eq 0 &&
                grep -qF 'warning: cannot read $stamp: $(words $kind); idlecfg-firstboot.service runs' '$tmp/s1' &&
                grep -qF 'warning: cannot write $stamp: $(words $kind); idlecfg-firstboot.service runs again at the next boot' '$tmp/s2' &&
                test \$(grep -c 'firstboot.stamp' '$tmp/s2') -eq 1 &&
                ! grep -q '$wrong' '$tmp/s1' '$tmp/s2'"
done
occupy "$stamp" dir
ic rollback >"$tmp/rb" 2>&1; rc=$?
check "rollback with a directory at firstboot.stamp: rolls back (exit $rc), names it, leaves it" sh -c "
        test $rc -eq 0 && grep -qF 'warning: $stamp: is a directory, not a file; idlecfg did not write it and leaves it in place' '$tmp/rb' &&
        test -d '$stamp' && test ! -e '$state/manifest'"
reset_root

# ---- a link inside the root where a state file is ----
ic install >/dev/null 2>&1
mv "$state/manifest" "$state/manifest.real"
ln -s manifest.real "$state/manifest"
ic install >"$tmp/m1" 2>&1; rc=$?
check "a manifest that is a link inside the root: refused as one, not as a loop (exit $rc)" sh -c "
        test $rc -eq 3 && grep -qF 'cannot read $state/manifest: a symbolic link to manifest.real' '$tmp/m1' &&
        ! grep -q '$wrong' '$tmp/m1'"
reset_root

# ---- the power-source switch's table (power-source reads it at every boot and event) ----
mkdir -p "$root/etc/idlecfg" "$root/run"
mkfifo "$root/etc/idlecfg/power-source.conf"
timeout -s KILL 30 "$IDLECFG" --root "$root" power-source boot >"$tmp/ps" 2>&1; rc=$?
check "the power-source table a FIFO: exit 3, said as one (exit $rc)" sh -c "
        test $rc -eq 3 && grep -qF 'cannot read $root/etc/idlecfg/power-source.conf: not a regular file (a FIFO)' '$tmp/ps' &&
        ! grep -q '$wrong' '$tmp/ps'"
reset_root

# ---- a manifest of garbage ----
ic install >/dev/null 2>&1
printf 'garbage\n' >"$state/manifest"
ic install >"$tmp/g1" 2>&1; rc1=$?
ic rollback >"$tmp/g2" 2>&1; rc2=$?
ic verify >"$tmp/g3" 2>&1; rc3=$?
check "a manifest of garbage: install, rollback and verify exit 2, each told the format line idlecfg writes ($rc1 $rc2 $rc3)" sh -c "
        test $rc1 -eq 2 && test $rc2 -eq 2 && test $rc3 -eq 2 &&
        grep -qF 'manifest:1: not an idlecfg manifest (no \"idlecfg-manifest 2\" line)' '$tmp/g1' &&
        grep -qF 'manifest:1: not an idlecfg manifest (no \"idlecfg-manifest 2\" line)' '$tmp/g2' &&
        grep -qF 'manifest:1: not an idlecfg manifest (no \"idlecfg-manifest 2\" line)' '$tmp/g3' &&
        head -n 1 '$state/manifest' | grep -qx garbage"
done_testing
