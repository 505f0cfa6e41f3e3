#!/bin/sh
# tests/root-reader.sh: the files of a target root that other readers used to
# open by themselves, now checked through the root's one reader
# (src/root/rootfs.c): the module indexes libkmod opens (a FIFO there, a link out of
# the root, a link libkmod would resolve to the host), sysctl.d and
# NetworkManager conf.d files, a 99-default.link linked out of the root,
# /boot/config-VERSION and the dpkg status as a FIFO or a 3 GB file: no hang,
# nothing read from the host, a warning naming the file and what idlecfg
# assumes. Then the writer's small ones: directories 0755 under umask 077, an
# injected failure at every fsync reported with exit 3, a parent directory
# linked out of the root named as such, and one exit code (3) for every unsafe
# target file. One umockdev session (the Wi-Fi + Ethernet recording).
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod timeout truncate
PATH=$PATH:/sbin:/usr/sbin
REC=$TESTS_DATA/net/wifi-ether.umockdev
if [ -z "${IDLECFG_IN_MACHINE:-}" ]; then
        rm -rf "$tmp"
        IDLECFG_IN_MACHINE=1 exec "$top_srcdir/tests/run-machine" "$REC" sh "$0" "$@"
fi
indexes="modules.dep.bin modules.alias.bin modules.symbols.bin modules.builtin.alias.bin modules.builtin.bin modules.softdep"
plan 33

base=$tmp/base
mkroot_installed /dev/null "$base" || { echo "Bail out! cannot build the root"; exit 1; }
mkdir -p "$base/var/lib" "$base/run"
# without NetworkManager: the Wi-Fi card's power save goes through its
# driver's parameter, a question for libkmod (the module indexes are read)
plain=$tmp/plain
cp -a "$base" "$plain"
# NetworkManager and systemd 252's 99-default.link, as in tests/netpower.sh
mkdir -p "$base/usr/sbin" "$base/etc/NetworkManager/conf.d" "$base/usr/lib/systemd/network" \
        "$base/usr/lib/x86_64-linux-gnu/systemd" "$base/var/lib" "$base/run"
: >"$base/usr/sbin/NetworkManager"
chmod 755 "$base/usr/sbin/NetworkManager"
printf '[Match]\nOriginalName=*\n\n[Link]\nNamePolicy=keep kernel database onboard slot path\nMACAddressPolicy=persistent\n' \
        >"$base/usr/lib/systemd/network/99-default.link"
: >"$base/usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-252.so"
moddir=/lib/modules/$KVER
root=$tmp/root
reset_root() { rm -rf "$root" && cp -a "${1:-$base}" "$root"; }
# each run under timeout: a hang fails (killed, exit 137) instead of blocking the suite
ic() { timeout -s KILL 20 "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
mkdir -p "$tmp/outside"

# ---- the module indexes: libkmod opens them itself, so each is checked first ----
for f in $indexes; do
        cp "$plain$moddir/$f" "$tmp/outside/$f" 2>/dev/null || : >"$tmp/outside/$f"
done
for f in $indexes; do
        reset_root "$plain"
        rm -f "$root$moddir/$f"
        mkfifo "$root$moddir/$f"
        ic plan --profile powersave >"$tmp/out" 2>"$tmp/err"; rc=$?
        check "$f a FIFO: plan does not hang, warns naming it and goes on without module information (exit $rc)" \
                sh -c "test $rc -eq 0 && grep -q 'warning: $root$moddir/$f: not a regular file' '$tmp/err' &&
                        grep -q 'without module information' '$tmp/err'"
done
for f in modules.alias.bin modules.softdep; do
        reset_root "$plain"
        rm -f "$root$moddir/$f"
        ln -s "$tmp/outside/$f" "$root$moddir/$f"
        ic plan --profile powersave >"$tmp/out" 2>"$tmp/err"; rc=$?
        check "$f an absolute link to the host's copy: not followed, said (exit $rc)" \
                sh -c "test $rc -eq 0 && grep -q 'warning: $root$moddir/$f: a symbolic link leading out of the root' '$tmp/err'"
done
# a link the reader resolves inside the root, but libkmod (the host's
# resolution of DIR/...) would resolve on the host: refused too
reset_root "$plain"
mv "$root$moddir/modules.alias.bin" "$root$moddir/real-alias.bin"
ln -s "$moddir/real-alias.bin" "$root$moddir/modules.alias.bin"
ic plan --profile powersave >"$tmp/out" 2>"$tmp/err"; rc=$?
check "an absolute link inside the root, which libkmod would resolve on the host: refused, said (exit $rc)" \
        sh -c "test $rc -eq 0 && grep -q 'modules.alias.bin: a symbolic link leading out of the root' '$tmp/err'"
rm "$root$moddir/modules.alias.bin"
ln -s real-alias.bin "$root$moddir/modules.alias.bin"
ic plan --profile powersave --json >"$tmp/out" 2>"$tmp/err"; rc=$?
(root=$plain && ic plan --profile powersave --json >"$tmp/base.json" 2>&1)
check "a relative link to an index beside it: used, no warning, the plan as with the file (exit $rc)" \
        sh -c "test $rc -eq 0 && ! grep -q 'warning' '$tmp/err' && cmp '$tmp/base.json' '$tmp/out'"
# a module's .ko, which libkmod opens for its parameters (the Wi-Fi driver's)
reset_root "$plain"
ko=$(cd "$root$moddir" && find kernel -name 'iwlmvm.ko*' | head -n 1)
rm -f "$root$moddir/$ko"
mkfifo "$root$moddir/$ko"
ic plan --profile powersave >"$tmp/out" 2>"$tmp/err"; rc=$?
check "the Wi-Fi module's .ko a FIFO: no hang, named, its parameters taken as absent (exit $rc)" \
        sh -c "test -n '$ko' && test $rc -eq 0 && grep -q 'warning: $root$moddir/$ko: not a regular file.*no parameters' '$tmp/err'"
reset_root "$plain"
rm -f "$root$moddir/modules.alias.bin"
mkfifo "$root$moddir/modules.alias.bin"
ic install --profile powersave >"$tmp/out" 2>"$tmp/err"; rc=$?
# exit 4: the root has no boot loader, powersave's command-line word is in /etc/idlecfg/cmdline only
check "install with a FIFO index: no hang, exit 0 or 4 (exit $rc), the lock free for the next run" \
        sh -c "{ test $rc -eq 0 || test $rc -eq 4; } && grep -q 'without module information' '$tmp/err' && timeout 30 '$IDLECFG' --root '$root' --wait 0 rollback >/dev/null 2>&1"

# ---- sysctl.d, NetworkManager conf.d, .link, the kernel config, the dpkg status ----
reset_root
mkdir -p "$root/etc/sysctl.d" "$root/etc/systemd/network" "$root/boot" "$root/var/lib/dpkg"
mkfifo "$root/etc/sysctl.d/50-fifo.conf"
mkdir "$root/etc/sysctl.d/60-dir.conf"
{ echo 'kernel.nmi_watchdog = 1'; head -c 2000000 /dev/zero | tr '\0' '#'; } >"$root/etc/sysctl.d/70-big.conf"
mkfifo "$root/etc/NetworkManager/conf.d/zz-fifo.conf"
ln -s zz-gone.conf "$root/etc/NetworkManager/conf.d/zz-link.conf"
printf '[Match]\nOriginalName=*\n' >"$tmp/outside/99-default.link"
ln -s "$tmp/outside/99-default.link" "$root/etc/systemd/network/99-default.link"
mkfifo "$root/boot/config-$KVER"
mkfifo "$root/var/lib/dpkg/status"
ic plan --profile powersave --json >"$tmp/out" 2>"$tmp/err"; rc=$?
check "plan with FIFOs, a directory, a 2 MB file and a link out of the root as inputs: no hang (exit $rc)" test $rc -eq 0
check "sysctl.d: the FIFO, the directory and the file over 1 MiB are each named, with what idlecfg assumes" sh -c "
        grep -q 'warning: $root/etc/sysctl.d/50-fifo.conf: not a regular file (a FIFO); .*assumes it sets none' '$tmp/err' &&
        grep -q 'warning: $root/etc/sysctl.d/60-dir.conf: is a directory, not a file;' '$tmp/err' &&
        grep -q 'warning: $root/etc/sysctl.d/70-big.conf: larger than 1 MiB' '$tmp/err'"
check "NetworkManager conf.d: the FIFO is named as one, a link to nothing as one" sh -c "
        grep -q 'warning: $root/etc/NetworkManager/conf.d/zz-fifo.conf: not a regular file (a FIFO);' '$tmp/err' &&
        grep -q 'warning: $root/etc/NetworkManager/conf.d/zz-link.conf: a symbolic link to zz-gone.conf, which does not exist; NetworkManager fails to load its configuration' '$tmp/err'"
check "99-default.link linked out of the root: said for what it is, not called masked" sh -c "
        grep -q 'warning: $root/etc/systemd/network/99-default.link: a symbolic link leading out of the root (to $tmp/outside/99-default.link)' '$tmp/err' &&
        grep -q 'cannot be read (a symbolic link leading out of the root' '$tmp/out' && ! grep -q '99-default.link is masked' '$tmp/out'"
check "/boot/config-$KVER a FIFO: named, and the plan does not call it absent; the same words in both" sh -c "
        grep -q 'warning: $root/boot/config-$KVER: not a regular file (a FIFO);' '$tmp/err' &&
        grep -qF 'config-$KVER cannot be read (not a regular file (a FIFO))' '$tmp/out' && ! grep -q 'is not in the root to check' '$tmp/out'"
check "/var/lib/dpkg/status a FIFO: named" grep -q "warning: $root/var/lib/dpkg/status: not a regular file" "$tmp/err"
rm "$root/boot/config-$KVER"
truncate -s 3G "$root/boot/config-$KVER"
ic plan --profile powersave >"$tmp/out" 2>"$tmp/err"; rc=$?
check "/boot/config-$KVER of 3 GB: named with the limit, not read (exit $rc)" sh -c "
        test $rc -eq 0 && grep -q 'warning: $root/boot/config-$KVER: larger than 4 MiB' '$tmp/err'"

# a link to nothing inside the root where udev looks for .link files: udev
# skips it without a word (its name still hides 99-default.link), so does idlecfg
reset_root
mkdir -p "$root/etc/systemd/network"
ln -s ../../../usr/lib/systemd/network/98-gone.link "$root/etc/systemd/network/99-default.link"
ic plan --profile powersave >"$tmp/out" 2>"$tmp/err"; rc=$?
check "99-default.link a link to nothing inside the root: no warning, the plan says what it is (exit $rc)" sh -c "
        test $rc -eq 0 && ! grep -q -e 99-default -e 'leading out of the root' '$tmp/err' &&
        tr -s ' \\n' '  ' <'$tmp/out' | grep -q 'cannot be read (a symbolic link to ../../../usr/lib/systemd/network/98-gone.link, which does not exist)'"
# where a hwdb file or a profile is expected, a directory: said as one (exit 2, bad input)
reset_root
hw=/usr/lib/udev/hwdb.d/60-idlecfg-linux-pci.hwdb
rm -f "$root$hw" && mkdir "$root$hw"
ic plan --profile powersave >"$tmp/out" 2>"$tmp/err"; rc=$?
check "a directory where idlecfg's hwdb file is: exit 2, 'is a directory', not 'a FIFO, socket or device node' (exit $rc)" sh -c "
        test $rc -eq 2 && grep -q '$hw: cannot read this hwdb file: is a directory, not a file' '$tmp/err' &&
        ! grep -q 'FIFO' '$tmp/err'"
reset_root
pf=/usr/share/idlecfg/profiles/powersave.profile
rm -f "$root$pf" && mkdir "$root$pf" && mkfifo "$root/usr/share/idlecfg/profiles/fifo.profile"
ic plan --profile powersave >"$tmp/out" 2>"$tmp/err"; rc=$?
ic plan --profile fifo >"$tmp/out2" 2>"$tmp/err2"; rc2=$?
check "a profile that is a directory, one that is a FIFO: exit 2, each named for what it is (exit $rc, $rc2)" sh -c "
        test $rc -eq 2 && grep -q 'powersave.profile: is a directory, not a file' '$tmp/err' &&
        test $rc2 -eq 2 && grep -q 'fifo.profile: not a regular file (a FIFO)' '$tmp/err2'"
# /etc/fstab named directly, a link to nothing inside the root: a warning that says so
reset_root
rm -f "$root/etc/fstab" && ln -s fstab.d/gone "$root/etc/fstab"
ic plan --profile powersave >"$tmp/out" 2>"$tmp/err"; rc=$?
check "/etc/fstab a link to nothing inside the root: warned, 'a symbolic link to fstab.d/gone, which does not exist' (exit $rc)" sh -c "
        test $rc -eq 0 && grep -q 'warning: $root/etc/fstab: a symbolic link to fstab.d/gone, which does not exist;' '$tmp/err'"

# ---- a link where idlecfg wants its choice, or writes: said for where it leads ----
# idlecfg.conf and a profile linked out of the root: not taken as absent
# (the chassis profile, "not found"), nor read from this machine; the same
# line from every verb that chooses the profile
reset_root
mkdir -p "$root/etc/idlecfg/profiles"
printf '[main]\nprofile = performance\n' >"$tmp/outside/idlecfg.conf"
ln -s "$tmp/outside/idlecfg.conf" "$root/etc/idlecfg/idlecfg.conf"
w="$root/etc/idlecfg/idlecfg.conf: a symbolic link leading out of the root (to $tmp/outside/idlecfg.conf); idlecfg reads nothing outside the root"
ic plan >"$tmp/c1" 2>&1; rc1=$?
ic install >"$tmp/c2" 2>&1; rc2=$?
ic explain wifi.power_save >"$tmp/c3" 2>&1; rc3=$?
check "idlecfg.conf linked out of the root: plan, install and explain exit 2 with one line naming it ($rc1 $rc2 $rc3)" sh -c "
        test $rc1 -eq 2 && test $rc2 -eq 2 && test $rc3 -eq 2 &&
        grep -qF '$w' '$tmp/c1' && grep -qF '$w' '$tmp/c2' && grep -qF '$w' '$tmp/c3' &&
        test ! -e '$root/var/lib/idlecfg' && ! grep -q performance '$tmp/c1'"
rm "$root/etc/idlecfg/idlecfg.conf"
cp "$root/usr/share/idlecfg/profiles/powersave.profile" "$tmp/outside/mine.profile"
ln -s "$tmp/outside/mine.profile" "$root/etc/idlecfg/profiles/mine.profile"
ln -s gone.profile "$root/etc/idlecfg/profiles/dangling.profile"
ic plan --profile mine >"$tmp/p1" 2>&1; rc1=$?
ic plan --profile nosuch >"$tmp/p2" 2>&1; rc2=$?
check "a profile linked out of the root is named as such, not 'not found'; a link to nothing is listed nowhere ($rc1 $rc2)" sh -c "
        test $rc1 -eq 2 && test $rc2 -eq 2 &&
        grep -qF '$root/etc/idlecfg/profiles/mine.profile: a symbolic link leading out of the root (to $tmp/outside/mine.profile)' '$tmp/p1' &&
        ! grep -q 'not found' '$tmp/p1' &&
        grep -q \"profile 'nosuch' not found; .*available: balanced, desktop, mine, performance, powersave, server\\\$\" '$tmp/p2'"
# /etc/kernel/cmdline a link beside its file: the plan reads through it;
# install writes nothing through a link, and says it for what it is
reset_root
mkdir -p "$root/etc/kernel"
printf 'root=UUID=0b5b5f4e ro quiet\n' >"$root/etc/kernel/cmdline.real"
ln -s cmdline.real "$root/etc/kernel/cmdline"
ic install --profile powersave >"$tmp/k1" 2>&1; rc=$?
check "etc/kernel/cmdline -> cmdline.real: install says 'a symbolic link to cmdline.real', not a loop, and leaves both (exit $rc)" sh -c "
        { test $rc -eq 0 || test $rc -eq 4; } &&
        grep -qF 'warning: $root/etc/kernel/cmdline: a symbolic link to cmdline.real; idlecfg treats it as absent and puts the kernel parameters in /etc/idlecfg/cmdline' '$tmp/k1' &&
        ! grep -q 'loop' '$tmp/k1' && test -L '$root/etc/kernel/cmdline' &&
        test \"\$(cat '$root/etc/kernel/cmdline.real')\" = 'root=UUID=0b5b5f4e ro quiet' && test -s '$root/etc/idlecfg/cmdline'"
ln -sf cmdline "$root/etc/kernel/cmdline"
ic install --profile powersave >"$tmp/k2" 2>&1; rc=$?
check "etc/kernel/cmdline -> cmdline, a loop: said as one (exit $rc)" sh -c "
        { test $rc -eq 0 || test $rc -eq 4; } &&
        grep -qF 'warning: $root/etc/kernel/cmdline: a symbolic link loop (to cmdline); idlecfg assumes it sets no kernel parameters' '$tmp/k2'"

# ---- the writer ----
reset_root
(umask 077 && ic install --profile powersave >"$tmp/out" 2>&1); rc=$?
check "install under umask 077: every directory it made is 0755 (exit $rc)" sh -c "
        { test $rc -eq 0 || test $rc -eq 4; } && test -d '$root/etc/systemd/network/99-default.link.d' &&
        test \$(stat -c %a '$root/etc/systemd/network') = 755 &&
        test \$(stat -c %a '$root/etc/systemd/network/99-default.link.d') = 755 &&
        test \$(stat -c %a '$root/var/lib/idlecfg') = 755"

# an injected EIO at each fsync of install (files and directories, the new
# etc/systemd/network among them): every one is an error, exit 3
n=0 hit=0 bad=
while [ $n -lt 200 ]; do
        n=$((n + 1))
        reset_root
        IDLECFG_FAULT=fail:$n:EIO:fsync ic install --profile powersave >"$tmp/f.out" 2>&1; rc=$?
        grep -q 'injected' "$tmp/f.out" || break
        hit=$((hit + 1))
        if [ $rc -ne 3 ] || ! grep -q 'Input/output error' "$tmp/f.out"; then
                bad="$bad $n"
                diag "fsync $n: exit $rc" "$(cat "$tmp/f.out")"
        fi
done
check "an EIO at each of install's $hit fsyncs: exit 3 naming the error every time" \
        sh -c "test -z '$bad' && test $hit -ge 20"

# a parent directory linked out of the root
reset_root
ln -s "$tmp/outside/sysctl.d" "$root/etc/sysctl.d"
mkdir -p "$tmp/outside/sysctl.d"
ic install --profile powersave >"$tmp/out" 2>&1; rc=$?
check "etc/sysctl.d linked out of the root: exit 3, named as such, nothing written outside (exit $rc)" sh -c "
        test $rc -eq 3 && grep -q '$root/etc/sysctl.d: a symbolic link leading out of the root' '$tmp/out' &&
        test -z \"\$(ls -A '$tmp/outside/sysctl.d')\""

# one exit code for every unsafe target file: 3, refused to write
for kind in link fifo dir; do
        reset_root
        mkdir -p "$root/etc/tmpfiles.d"
        t=$root/etc/tmpfiles.d/idlecfg.conf
        case $kind in
        link) ln -s /etc/hostname "$t" ;;
        fifo) mkfifo "$t" ;;
        dir) mkdir "$t" ;;
        esac
        ic install --profile powersave >"$tmp/out" 2>&1; rc=$?
        check "target tmpfiles.d/idlecfg.conf a $kind: refused, exit 3 (exit $rc)" sh -c "
                test $rc -eq 3 && grep -q '$t' '$tmp/out' && test ! -e '$root/etc/sysctl.d/90-idlecfg.conf'"
done
done_testing
