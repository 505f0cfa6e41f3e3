#!/bin/sh
# tests/hostile-root.sh: broken or hostile target roots: no hang, no silent drop.
# Every file idlecfg reads from a root (an hwdb file, a profile, idlecfg.conf,
# fstab, /etc/default/grub, /etc/kernel/cmdline) is replaced in turn by a FIFO,
# a device node, a symbolic link loop, a 3 GB sparse file, a link to a file
# outside the root and a link to a name of the root that is not there (said
# as "a symbolic link to X, which does not exist"); each run under timeout, so a hang fails instead of blocking.
# Required files (hwdb, profile, idlecfg.conf): exit 2 naming the file, nothing
# written. Optional files (fstab, GRUB, kernel command line): a warning naming
# the file, and the run goes on. Then SIGTERM and SIGINT: at every write step of
# install, and while install waits for the lock.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod truncate timeout "${CC:-cc}"
PATH=$PATH:/sbin:/usr/sbin
if [ -z "${IDLECFG_IN_MACHINE:-}" ]; then
        rm -rf "$tmp"
        IDLECFG_IN_MACHINE=1 exec "$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/desktop-sata" sh "$0" "$@"
fi
kinds="hwdb profile conf fstab grub cmdline"
cases="fifo dev loop big outside dangling"
plan $((6 * 6 * 2 + 3 + 2 + 3))

root=$tmp/root
mkroot_installed "$TESTS_DATA/machines/desktop-sata" "$root" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/var/lib" "$root/run" "$root/etc/kernel" "$root/etc/default" "$root/etc/idlecfg"
printf 'root=UUID=0b5b5f4e-5d0e-4e4b-9d62-3f9d2b2a5c11 ro quiet\n' >"$root/etc/kernel/cmdline"
printf 'GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT="quiet"\n' >"$root/etc/default/grub"
printf '[main]\nprofile = balanced\n' >"$root/etc/idlecfg/idlecfg.conf"
[ -f "$root/etc/fstab" ] || printf '# empty\n' >"$root/etc/fstab"
# the boot entry kernel-install made from /etc/kernel/cmdline with balanced's
# word: install's exit is 0 unless the words go elsewhere (GRUB: exit 4)
mkdir -p "$root/boot/loader/entries"
printf 'version %s\noptions root=UUID=0b5b5f4e-5d0e-4e4b-9d62-3f9d2b2a5c11 ro quiet pcie_aspm.policy=default\n' \
        "$KVER" >"$root/boot/loader/entries/test.conf"
cp -a "$root" "$tmp/orig"
reset_root() { rm -rf "$root" && cp -a "$tmp/orig" "$root"; }
tree() {
        (cd "$1" && find . ! -path ./run/idlecfg.lock -printf '%p %y %m %l\n' | sort &&
                find . -type f ! -path ./run/idlecfg.lock -exec sha256sum {} + | sort -k2)
}
tree "$tmp/orig" >"$tmp/orig.tree"
# (a rollback's note of what the boot artifacts still hold, kept until their
# steps ran, and the state directory that holds only it, aside)
same_as_orig() {
        if [ -f "$root/var/lib/idlecfg/left-by-rollback" ] && [ "$(ls -A "$root/var/lib/idlecfg")" = left-by-rollback ]; then
                tree "$root" | grep -v '^\./var/lib/idlecfg d \|^\./var/lib/idlecfg/left-by-rollback \|  \./var/lib/idlecfg/left-by-rollback$' |
                        diff "$tmp/orig.tree" -
        else
                tree "$root" | diff "$tmp/orig.tree" -
        fi
}
# 20 s: a run takes well under a second; a hang is a failure, not a stuck suite
ic() { timeout -s KILL 20 "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }

# the file of each kind, inside the root; the profile is chosen by idlecfg.conf
path_of() {
        case $1 in
        hwdb) echo /usr/lib/udev/hwdb.d/60-idlecfg-linux-pci.hwdb ;;
        profile) echo /usr/share/idlecfg/profiles/balanced.profile ;;
        conf) echo /etc/idlecfg/idlecfg.conf ;;
        fstab) echo /etc/fstab ;;
        grub) echo /etc/default/grub ;;
        cmdline) echo /etc/kernel/cmdline ;;
        esac
}

# a file outside the root that would change the plan if it were read: the
# link to it is absolute, so inside the root it names a file that is not there
mkdir -p "$tmp/outside"
cp "$root/usr/lib/udev/hwdb.d/60-idlecfg-linux-pci.hwdb" "$tmp/outside/hwdb"
printf '[main]\nprofile = performance\n' >"$tmp/outside/conf"
cp "$root/usr/share/idlecfg/profiles/balanced.profile" "$tmp/outside/profile"
printf 'UUID=11111111-2222-3333-4444-555555555555 none swap sw 0 0\n' >"$tmp/outside/fstab"
printf 'GRUB_CMDLINE_LINUX="pcie_aspm=off usbcore.autosuspend=-1"\n' >"$tmp/outside/grub"
printf 'pcie_aspm=off usbcore.autosuspend=-1\n' >"$tmp/outside/cmdline"

# the plan of the unchanged root, and of the root without each optional file:
# a link out of the root must read as an absent file, never as the host's
ic plan --json >"$tmp/base.json" 2>/dev/null || echo "Bail out! the unchanged root does not plan"
for k in fstab grub cmdline; do
        reset_root
        rm -f "$root$(path_of $k)"
        ic plan --json >"$tmp/absent-$k.json" 2>/dev/null
done

hostile() {
        _p=$root$(path_of "$1")
        rm -f "$_p"
        case $2 in
        fifo) mkfifo "$_p" ;;
        dev) mknod "$_p" c 1 3 2>/dev/null ;;
        loop) ln -s "$(basename "$_p")" "$_p" ;;
        big) truncate -s 3G "$_p" ;;
        outside) ln -s "$tmp/outside/$1" "$_p" ;;
        # a link to a name of the root that is not there (a dangling link)
        dangling) ln -s "$(basename "$_p").gone" "$_p" ;;
        esac
}
temps_left() { find "$root" -name '.#*' | grep . ; }

for k in $kinds; do
        p=$(path_of $k)
        for c in $cases; do
                reset_root
                if ! hostile $k $c; then
                        skip "$k $c: cannot make it here (mknod needs CAP_MKNOD)"
                        skip "$k $c: install (mknod needs CAP_MKNOD)"
                        continue
                fi
                start=$(date +%s)
                ic plan --json >"$tmp/out" 2>"$tmp/err"; rc=$?
                secs=$(($(date +%s) - start))
                case $k/$c in
                conf/dangling)
                        check "$k $c: plan treats the link as an absent file (exit $rc, ${secs}s)" \
                                sh -c "test $rc -eq 0 && ! grep -q '\"profile\": \"performance\"' '$tmp/out' &&
                                        ! grep -q warning '$tmp/err'" ;;
                conf/outside | profile/outside)
                        # the administrator's choice is not dropped in silence, nor read from the host
                        check "$k $c: plan exits 2 saying $p is a link out of the root (exit $rc, ${secs}s)" \
                                sh -c "test $rc -eq 2 && ! grep -q '\"profile\": \"performance\"' '$tmp/out' &&
                                        grep -q '$root$p: a symbolic link leading out of the root (to $tmp/outside/$k); idlecfg reads nothing outside the root' '$tmp/err' &&
                                        ! grep -q 'not found' '$tmp/err'" ;;
                hwdb/* | profile/* | conf/*)
                        check "$k $c: plan exits 2 naming $p, without hanging (exit $rc, ${secs}s)" \
                                sh -c "test $rc -eq 2 && grep -q '$(dirname $p)' '$tmp/err'" ;;
                */outside)
                        # the same plan as without the file, and the link said for what it is
                        check "$k $c: plan reads the link as an absent file, not the host's, and says so (exit $rc, ${secs}s)" \
                                sh -c "test $rc -eq 0 && cmp '$tmp/absent-$k.json' '$tmp/out' &&
                                        grep -q 'warning: $root$p: a symbolic link leading out of the root (to $tmp/outside/$k)' '$tmp/err'" ;;
                */dangling)
                        # a link to nothing inside the root, named directly: said for what it is
                        check "$k $c: plan reads the dangling link as an absent file and says what it is (exit $rc, ${secs}s)" \
                                sh -c "test $rc -eq 0 && cmp '$tmp/absent-$k.json' '$tmp/out' &&
                                        grep -q 'warning: $root$p: a symbolic link to $(basename $p).gone, which does not exist' '$tmp/err' &&
                                        ! grep -q 'leading out of the root' '$tmp/err'" ;;
                *)
                        check "$k $c: plan warns naming $p and goes on (exit $rc, ${secs}s)" \
                                sh -c "test $rc -eq 0 && grep -q 'warning: $root$p: ' '$tmp/err'" ;;
                esac
                [ $rc -eq 0 ] || [ $rc -eq 2 ] || diag "$(cat "$tmp/err")"

                ic install >"$tmp/out" 2>"$tmp/err"; rc=$?
                case $k/$c in
                cmdline/*)
                        # install does not write through a link nor into an odd file: the words
                        # go to the GRUB snippet instead, and the file is left as it is
                        check "$k $c: install warns naming $p, puts the parameters into GRUB's snippet (exit $rc)" \
                                sh -c "test $rc -eq 4 && grep -q 'warning: $root$p: ' '$tmp/err' &&
                                        test -f '$root/etc/default/grub.d/idlecfg.cfg' && ! find '$root' -name '.#*' | grep -q . &&
                                        { test -L '$root$p' || test ! -f '$root$p' || test \$(stat -c %s '$root$p') = 3221225472; }" ;;
                conf/dangling)
                        # (no warning but the one of any fresh root: not this machine's, use --image)
                        check "$k $c: install works as without the file (exit $rc)" \
                                sh -c "test $rc -eq 0 && ! grep -v 'use install --image' '$tmp/err' | grep -q warning &&
                                        ! find '$root' -name '.#*' | grep -q ." ;;
                fstab/outside | grub/outside)
                        check "$k $c: install works as without the file, and says what the link is (exit $rc)" \
                                sh -c "test $rc -eq 0 && grep -q 'warning: $root$p: a symbolic link leading out of the root' '$tmp/err' &&
                                        ! find '$root' -name '.#*' | grep -q ." ;;
                fstab/dangling | grub/dangling)
                        check "$k $c: install works as without the file, and says what the link is (exit $rc)" \
                                sh -c "test $rc -eq 0 && grep -q 'warning: $root$p: a symbolic link to $(basename $p).gone, which does not exist' '$tmp/err' &&
                                        ! find '$root' -name '.#*' | grep -q ." ;;
                hwdb/* | profile/* | conf/*)
                        check "$k $c: install exits 2 naming the file and writes nothing (exit $rc)" \
                                sh -c "test $rc -eq 2 && grep -q '$(dirname $p)' '$tmp/err' &&
                                        test ! -e '$root/var/lib/idlecfg' &&
                                        test ! -e '$root/etc/udev/rules.d/70-idlecfg.rules'" ;;
                *)
                        check "$k $c: install warns naming $p and installs (exit $rc)" \
                                sh -c "test $rc -eq 0 && grep -q 'warning: $root$p: ' '$tmp/err' &&
                                        test -f '$root/etc/udev/rules.d/70-idlecfg.rules' && ! find '$root' -name '.#*' | grep -q ." ;;
                esac
                [ $rc -eq 0 ] || [ $rc -eq 2 ] || [ $rc -eq 4 ] || diag "$(cat "$tmp/err")"
        done
done

# ---- signals ----
# SIGTERM at every write step of install (IDLECFG_FAULT=term:N raises it
# there): the run ends by SIGTERM (143), leaves no temporary file, and
# rollback restores the original; inside the commit of a write (after the
# rename) the signal waits until the file is whole and durable.
reset_root
n=$((1 - SWEEP_STEP)) hit=0 bad=0 deferred=0
while [ $n -lt 300 ]; do
        n=$((n + SWEEP_STEP))
        reset_root
        IDLECFG_FAULT=term:$n ic install >"$tmp/t.out" 2>&1; rc=$?
        grep -q 'injected SIGTERM' "$tmp/t.out" || break
        hit=$((hit + 1))
        grep -q 'fsync directory' "$tmp/t.out" && deferred=$((deferred + 1))
        if [ $rc -ne 143 ]; then
                bad=$((bad + 1)); diag "term:$n: exit $rc, not 143: $(cat "$tmp/t.out")"
        fi
        if temps_left >"$tmp/t.temps"; then
                bad=$((bad + 1)); diag "term:$n: temporary files left: $(cat "$tmp/t.temps")"
        fi
        { ic rollback >"$tmp/t.rb" 2>&1 || [ $? -eq 4 ]; } || { bad=$((bad + 1)); diag "term:$n: rollback failed: $(cat "$tmp/t.rb")"; }
        same_as_orig >"$tmp/t.diff" || { bad=$((bad + 1)); diag "term:$n: tree differs: $(head -20 "$tmp/t.diff")"; }
done
check "SIGTERM at each of install's $hit write steps ($deferred inside a commit): exit 143, no temporary file, rollback restores the original$SWEEP_NOTE" \
        test $bad -eq 0 -a $hit -gt $(sweep_share 10) -a $deferred -gt 0

# SIGTERM at every step of rollback: the next rollback still restores the original
n=$((1 - SWEEP_STEP)) hit=0 bad=0
while [ $n -lt 300 ]; do
        n=$((n + SWEEP_STEP))
        reset_root
        ic install >/dev/null 2>&1
        IDLECFG_FAULT=term:$n ic rollback >"$tmp/t.out" 2>&1; rc=$?
        grep -q 'injected SIGTERM' "$tmp/t.out" || break
        hit=$((hit + 1))
        [ $rc -eq 143 ] || { bad=$((bad + 1)); diag "rollback term:$n: exit $rc"; }
        { ic rollback >"$tmp/t.rb" 2>&1 || [ $? -eq 4 ]; } || { bad=$((bad + 1)); diag "rollback term:$n: rollback failed: $(cat "$tmp/t.rb")"; }
        same_as_orig >"$tmp/t.diff" || { bad=$((bad + 1)); diag "rollback term:$n: tree differs: $(head -20 "$tmp/t.diff")"; }
done
check "SIGTERM at each of rollback's $hit steps: exit 143; the next rollback restores the original$SWEEP_NOTE" \
        test $bad -eq 0 -a $hit -gt $(sweep_share 5)

# SIGTERM at every step of apply (journal lines and sysfs writes of the mock
# /sys): exit 143; a journal line and its write are one commit, so the
# journal always holds what was changed, and rollback restores /sys exactly
reset_root
snap "$tmp/sys.before"
n=$((1 - SWEEP_STEP)) hit=0 bad=0 deferred=0
while [ $n -lt 200 ]; do
        n=$((n + SWEEP_STEP))
        IDLECFG_FAULT=term:$n ic --profile powersave apply >"$tmp/a.out" 2>&1; rc=$?
        grep -q 'injected SIGTERM' "$tmp/a.out" || { ic rollback >/dev/null 2>&1; break; }
        hit=$((hit + 1))
        grep -q -e 'journal fsync' -e 'sysfs write' "$tmp/a.out" && deferred=$((deferred + 1))
        [ $rc -eq 143 ] || { bad=$((bad + 1)); diag "apply term:$n: exit $rc"; }
        ic rollback >"$tmp/a.rb" 2>&1 || { bad=$((bad + 1)); diag "apply term:$n: rollback failed: $(cat "$tmp/a.rb")"; }
        snap "$tmp/sys.now"
        cmp -s "$tmp/sys.before" "$tmp/sys.now" || { bad=$((bad + 1)); diag "apply term:$n: /sys differs"; }
        [ -e "$root/var/lib/idlecfg/apply.journal" ] && { bad=$((bad + 1)); diag "apply term:$n: journal left"; }
done
check "SIGTERM at each of apply's $hit steps ($deferred inside a journal+write commit): exit 143; rollback restores /sys exactly$SWEEP_NOTE" \
        test $bad -eq 0 -a $hit -gt $(sweep_share 10) -a $deferred -gt 0

# a signal while install waits for another instance's lock: it ends at once
if command -v flock >/dev/null 2>&1 && env --default-signal=INT true 2>/dev/null; then
        for sig in TERM INT; do
                reset_root
                want=$([ $sig = TERM ] && echo 143 || echo 130)
                flock "$root/run/idlecfg.lock" sleep 30 &
                holder=$!
                sleep 0.3
                # a background job of a script ignores SIGINT, and idlecfg keeps what it inherits:
                # env restores the default, as for a command in the foreground
                env --default-signal=$sig "$IDLECFG" --root "$root" --kernel "$KVER" install --wait 60 \
                        >"$tmp/w.out" 2>&1 &
                waiter=$!
                sleep 0.5
                start=$(date +%s)
                kill -$sig $waiter
                wait $waiter; rc=$?
                secs=$(($(date +%s) - start))
                kill $holder 2>/dev/null; wait $holder 2>/dev/null
                check "SIG$sig while install waits for the lock: ends at once (exit $rc, want $want; ${secs}s), nothing written" \
                        sh -c "test $rc -eq $want && test $secs -le 2 && test ! -e '$root/var/lib/idlecfg'"
        done
else
        skip "flock or env --default-signal (coreutils 8.31) missing"
        skip "flock or env --default-signal (coreutils 8.31) missing"
fi

# ---- the same hostile cases with the openat2 fallback (kernels before 5.6, seccomp, valgrind) ----
reset_root
hostile hwdb loop
IDLECFG_NO_OPENAT2=1 ic plan >/dev/null 2>"$tmp/err"; rc=$?
check "fallback resolver: an hwdb symlink loop is an error naming it (exit $rc)" \
        sh -c "test $rc -eq 2 && grep -q '60-idlecfg-linux-pci.hwdb' '$tmp/err'"
reset_root
hostile fstab outside
IDLECFG_NO_OPENAT2=1 ic plan --json >"$tmp/out" 2>"$tmp/err"; rc=$?
check "fallback resolver: an absolute link out of the root resolves inside it (exit $rc)" \
        sh -c "test $rc -eq 0 && cmp '$tmp/absent-fstab.json' '$tmp/out'"
reset_root
IDLECFG_NO_OPENAT2=1 ic plan --json >"$tmp/out" 2>/dev/null
check "fallback resolver: the unchanged root plans exactly as with openat2" cmp "$tmp/base.json" "$tmp/out"
done_testing
