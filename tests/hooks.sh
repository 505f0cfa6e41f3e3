#!/bin/sh
# tests/hooks.sh: the package-manager hooks in src/hooks: their syntax, and the
# Debian kernel hook run for real (refresh quiet for the same kernel,
# re-install for a new one) against a temporary root under umockdev.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}"
plan 30
h=$top_srcdir/src/hooks
check "shell hooks parse" sh -c "for f in kernel-postinst.sh dpkg.postinst dpkg.prerm dpkg.postrm pacman.install; do sh -n '$h/'\$f || exit 1; done"
check "dpkg triggers: only interest-noawait lines with absolute paths" sh -c "
        grep -v '^#' '$h/dpkg.triggers' | grep . | grep -vq '^interest-noawait /[a-z0-9/._-]*\$' && exit 1; grep -q '^interest-noawait /lib/modules\$' '$h/dpkg.triggers'"
check "pacman hook: [Trigger] and [Action] with Exec of idlecfg refresh" sh -c "
        grep -qx '\[Trigger\]' '$h/idlecfg.hook' && grep -qx '\[Action\]' '$h/idlecfg.hook' &&
        grep -qx \"Exec = /bin/sh -c '/usr/bin/idlecfg refresh --boot-steps || \[ \\\$? -eq 4 \]'\" '$h/idlecfg.hook' && grep -qx 'When = PostTransaction' '$h/idlecfg.hook' &&
        ! grep -v '^#' '$h/idlecfg.hook' | grep . | grep -vqE '^\[(Trigger|Action)\]\$|^[A-Za-z]+ = .+\$'"
check "rpm file triggers call idlecfg refresh and never fail the transaction; one path per %transfiletriggerpostun (rpm#3048)" sh -c "
        f='$h/rpm-triggers.inc'
        grep -q '^%transfiletriggerin -- /usr/lib/modules' \"\$f\" && test \$(grep -c '^%transfiletriggerpostun -- /[^ ]*\$' \"\$f\") -eq 3 &&
        test \$(grep -c '^%transfiletrigger' \"\$f\") -eq 4 && test \$(grep -c '^%{_sbindir}/idlecfg refresh --boot-steps || :\$' \"\$f\") -eq 4"

dir=$TESTS_DATA/machines/desktop-sata
root=$tmp/root
mkroot_installed "$dir" "$root" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/run" "$root/var/lib"
# the hook runs "$IDLECFG refresh"; the wrapper keeps it in the test root
cat >"$tmp/idlecfg" <<SH
#!/bin/sh
exec "$IDLECFG" --root "$root" "\$@"
SH
chmod +x "$tmp/idlecfg"
run_machine "$dir" "$IDLECFG" --root "$root" --kernel "$KVER" --profile balanced install >/dev/null 2>&1
# no boot loader in the root: /etc/idlecfg/cmdline, words the installer has to add
IDLECFG=$tmp/idlecfg run_machine "$dir" sh "$h/kernel-postinst.sh" "$KVER" /boot/vmlinuz-$KVER >"$tmp/h0" 2>&1; rc=$?
check "kernel hook while the boot configuration lacks the words: exit 0, says so, not as a failure" sh -c "
        test $rc -eq 0 && grep -q 'still lacks' '$tmp/h0' && grep -q 'pcie_aspm.policy=default' '$tmp/h0' &&
        ! grep -q failed '$tmp/h0' || { cat '$tmp/h0'; exit 1; }"
# the installer added them to its boot loader's configuration
mkdir -p "$root/boot/extlinux"
printf 'label linux\n  append root=/dev/sda1 %s\n' "$(cat "$root/etc/idlecfg/cmdline")" >"$root/boot/extlinux/extlinux.conf"
IDLECFG=$tmp/idlecfg run_machine "$dir" sh "$h/kernel-postinst.sh" "$KVER" /boot/vmlinuz-$KVER >"$tmp/h1" 2>&1; rc=$?
check "kernel hook, same kernel: exit 0, nothing said, nothing written" sh -c "test $rc -eq 0 && test ! -s '$tmp/h1' || { cat '$tmp/h1'; exit 1; }"
new=6.1.0-19-amd64
cp -a "$root/lib/modules/$KVER" "$root/lib/modules/$new"
IDLECFG=$tmp/idlecfg run_machine "$dir" sh "$h/kernel-postinst.sh" "$new" /boot/vmlinuz-$new >"$tmp/h2" 2>&1; rc=$?
check "kernel hook, a new kernel: refresh says what changed and re-installs for it" sh -c "
        test $rc -eq 0 && grep -q 'kernel: $KVER -> $new' '$tmp/h2' && grep -q '^kernel $new\$' '$root/var/lib/idlecfg/manifest'"
chmod 000 "$tmp/idlecfg"; printf '#!/bin/sh\nexit 3\n' >"$tmp/failing"; chmod +x "$tmp/failing"
IDLECFG=$tmp/failing sh "$h/kernel-postinst.sh" "$new" >"$tmp/h3" 2>&1; rc=$?
check "kernel hook: a failing refresh never fails the kernel's installation, and says so" sh -c "
        test $rc -eq 0 && grep -q 'refresh after installing kernel $new failed' '$tmp/h3'"

# ---- purge after a removal that kept the journal (a live value changed by hand) ----
# a root without /var: install makes /var and /var/lib; apply journals there;
# a value changed by hand keeps the journal (and so the state directory) at
# the prerm's rollback; the postrm's purge then removes the state and the
# /var/lib and /var install made, and rollback's note of them in /run
n26=$tmp/n26
mkroot_installed "$dir" "$n26" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$n26/run"
cat >"$tmp/n26.sh" <<'SH'
ic() { "$IDLECFG" --root "$1" --kernel "$KVER" --profile balanced "$2"; }
ic "$1" install >/dev/null 2>&1
ic "$1" apply >/dev/null 2>&1
p=$(sed -n 's|^set \(/sys/[^ ]*\) .*|\1|p' "$1/var/lib/idlecfg/apply.journal" | head -n 1)
printf 'other' >"$UMOCKDEV_DIR$p"
ic "$1" rollback >"$2.rb" 2>&1; echo $? >"$2.rc"
SH
KVER=$KVER run_machine "$dir" sh "$tmp/n26.sh" "$n26" "$tmp/n26"
DPKG_ROOT=$n26 sh "$h/dpkg.postrm" purge >"$tmp/n26.purge" 2>&1; rc=$?
check "purge after a rollback that left a value changed by hand: the state, the /var and /var/lib install made and rollback's note are gone" sh -c "
        test \$(cat '$tmp/n26.rc') -eq 1 && test $rc -eq 0 && test ! -e '$n26/var' && test ! -e '$n26/run/idlecfg' ||
        { cat '$tmp/n26.rb' '$tmp/n26.purge'; find '$n26/var' '$n26/run'; exit 1; }"

# ---- dpkg: the package's scripts and trigger run for real ----
# The package as a distribution builds it: the tree of make install DESTDIR
# (prefix /usr) with src/hooks/dpkg.triggers, postinst, prerm and postrm as its
# maintainer scripts, installed with dpkg --root into a temporary root with
# its own dpkg database. --force-script-chrootless runs the maintainer
# scripts outside the root with DPKG_ROOT set (the root has no shell to
# chroot into); they then run the root's idlecfg with --root "$DPKG_ROOT".
# Under umockdev, so that refresh sees the recorded machine. The root has the
# recorded machine and systemd's hwdb lists, not idlecfg's files: the package
# brings them, and purging it must leave the root as it was.
if command -v dpkg >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1; then
        R=$tmp/dpkgroot
        mkroot "$dir" "$R" || { echo "Bail out! no root"; exit 1; }
        mkdir -p "$R/run" "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/triggers" "$R/usr/lib/udev/hwdb.d"
        [ -n "$AUTOSUSPEND_HWDB" ] && cp "$AUTOSUSPEND_HWDB"/60-autosuspend*.hwdb "$R/usr/lib/udev/hwdb.d/"
        : >"$R/var/lib/dpkg/status"
        : >"$R/var/lib/dpkg/available"
        # tree ROOT: every path with its type, mode, owner and content (or
        # link target), less dpkg's own database and log
        tree() {
                (cd "$1" && find . \( -path ./var/lib/dpkg -o -path ./var/log \) -prune -o -printf '%p %y %m %u:%g %l\n' | LC_ALL=C sort &&
                        find . \( -path ./var/lib/dpkg -o -path ./var/log \) -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
        }
        tree "$R" >"$tmp/tree.before"
        # mkdeb DIR NAME DESCRIPTION: a DEBIAN/control for DIR, then DIR.deb
        mkdeb() {
                mkdir -p "$1/DEBIAN"
                printf 'Package: %s\nVersion: 1.0\nArchitecture: all\nMaintainer: idlecfg tests <tests@invalid>\nDescription: %s\n' \
                        "$2" "$3" >"$1/DEBIAN/control"
                dpkg-deb --root-owner-group --build "$1" "$1.deb" >>"$tmp/dpkg-deb.log" 2>&1
        }
        p=$tmp/pkg-idlecfg
        ${MAKE:-make} -s -C "$top_builddir" install DESTDIR="$p" prefix=/usr exec_prefix=/usr sbindir=/usr/sbin \
                sysconfdir=/etc localstatedir=/var >"$tmp/make-install.log" 2>&1 || { cat "$tmp/make-install.log"; echo "Bail out! make install DESTDIR"; exit 1; }
        mkdir -p "$p/DEBIAN"
        cp "$h/dpkg.triggers" "$p/DEBIAN/triggers"
        for s in postinst prerm postrm; do
                cp "$h/dpkg.$s" "$p/DEBIAN/$s"
                chmod 0755 "$p/DEBIAN/$s"
        done
        mkdeb "$p" idlecfg "idlecfg as make install DESTDIR installs it, with the maintainer scripts of src/hooks, for tests/hooks.sh"
        hw=$tmp/pkg-hwdb
        mkdir -p "$hw/usr/lib/udev/hwdb.d"
        # the recorded SATA controller 0000:00:1f.2 (8086:3b22): balanced plans runtime PM for it
        printf '# tests/hooks.sh: a deny entry, so that the trigger has something to change\npci:v00008086d00003B22*\n IDLECFG_PCI_RUNTIME_PM=deny\n' \
                >"$hw/usr/lib/udev/hwdb.d/90-hooktest.hwdb"
        mkdeb "$hw" idlecfg-hooktest-hwdb "an hwdb file that activates idlecfg's trigger, for tests/hooks.sh"
        dpkg_r() { run_machine "$dir" dpkg --root="$R" --force-script-chrootless --force-not-root "$@"; }
        rules=$R/etc/udev/rules.d/70-idlecfg.rules

        dpkg_r -i "$p.deb" >"$tmp/d1" 2>&1; rc=$?
        check "dpkg --root -i: the package of make install DESTDIR with the trigger installs; idlecfg not installed yet: its postinst writes nothing and says nothing" sh -c "
                test $rc -eq 0 && test -f '$p.deb' && ! grep -q '^idlecfg\\|no manifest\\|nothing to refresh' '$tmp/d1' &&
                test ! -e '$R/var/lib/idlecfg/manifest' && test -x '$R/usr/sbin/idlecfg' || { cat '$tmp/dpkg-deb.log' '$tmp/d1'; exit 1; }"
        run_machine "$dir" "$R/usr/sbin/idlecfg" --root "$R" --profile balanced install >"$tmp/d2" 2>&1
        cp "$R/var/lib/idlecfg/manifest" "$tmp/manifest.1"
        dpkg_r -i "$p.deb" >"$tmp/d3" 2>&1; rc=$?
        # (the package's files are new inodes of the same bytes: the manifest
        # records their stat data anew, and nothing else)
        grep -v '^input \|^end ' "$tmp/manifest.1" >"$tmp/manifest.1.files"
        grep -v '^input \|^end ' "$R/var/lib/idlecfg/manifest" >"$tmp/manifest.1b.files"
        check "reinstalling it after idlecfg install (prerm upgrade: no rollback): postinst configure refreshes, nothing changed, nothing written but the manifest's stat data" sh -c "
                test $rc -eq 0 && grep -q 'Setting up idlecfg ' '$tmp/d3' && ! grep -q 'Changed since' '$tmp/d3' && ! grep -q 'rolling back' '$tmp/d3' &&
                cmp '$tmp/manifest.1.files' '$tmp/manifest.1b.files' && grep -q '^# pci.runtime_pm on 0000:00:1f.2:' '$rules' ||
                { cat '$tmp/d2' '$tmp/d3'; exit 1; }"
        dpkg_r -i "$hw.deb" >"$tmp/d4" 2>&1; rc=$?
        check "a package that installs an hwdb file fires the trigger: refresh re-installs with the deny entry" sh -c "
                test $rc -eq 0 && grep -q 'Processing triggers for idlecfg ' '$tmp/d4' && grep -q 'hwdb: files changed' '$tmp/d4' &&
                ! grep -q '^# pci.runtime_pm on 0000:00:1f.2:' '$rules' && ! cmp -s '$tmp/manifest.1' '$R/var/lib/idlecfg/manifest' ||
                { cat '$tmp/d4'; exit 1; }"
        dpkg_r --remove idlecfg-hooktest-hwdb >"$tmp/d5" 2>&1; rc=$?
        check "removing that package fires it again: the setting is planned again" sh -c "
                test $rc -eq 0 && grep -q 'Processing triggers for idlecfg ' '$tmp/d5' && grep -q 'hwdb: files changed' '$tmp/d5' &&
                grep -q '^# pci.runtime_pm on 0000:00:1f.2:' '$rules' || { cat '$tmp/d5'; exit 1; }"

        # a rollback that fails stops the removal: the binary stays to finish it
        cp "$R/var/lib/idlecfg/manifest" "$tmp/manifest.2"
        echo 'not a manifest line' >>"$R/var/lib/idlecfg/manifest"
        dpkg_r --remove idlecfg >"$tmp/d6" 2>&1; rc=$?
        st=$(dpkg-query --admindir="$R/var/lib/dpkg" -W -f '${Status}' idlecfg 2>&1)     # (selected for removal, still installed)
        check "dpkg --remove with a rollback that fails (a bad manifest line): the removal stops, the package and its files stay, and it says how to go on" sh -c "
                test $rc -ne 0 && test '$st' = 'deinstall ok installed' && test -x '$R/usr/sbin/idlecfg' && test -f '$rules' &&
                grep -q 'rollback failed (exit [0-9]*); the package stays installed' '$tmp/d6' || { echo 'rc $rc, status $st'; cat '$tmp/d6'; exit 1; }"
        cp "$tmp/manifest.2" "$R/var/lib/idlecfg/manifest"
        ls "$R/etc/sysctl.d/90-idlecfg.conf" "$R/run/idlecfg.lock" >"$tmp/made" 2>&1
        dpkg_r --purge idlecfg >"$tmp/d7" 2>&1; rc=$?
        tree "$R" >"$tmp/tree.after"
        check "dpkg --purge idlecfg: prerm rolls back what install wrote and says so; rules, sysctl.d, manifest and lock are gone" sh -c "
                test $rc -eq 0 && grep -q 'the package is being removed: rolling back' '$tmp/d7' && grep -q 'removed $rules' '$tmp/d7' &&
                test ! -e '$rules' && test ! -e '$R/etc/sysctl.d/90-idlecfg.conf' &&
                test ! -e '$R/var/lib/idlecfg' && test ! -e '$R/run/idlecfg.lock' && test ! -e '$R/usr/sbin/idlecfg' &&
                test \$(wc -l <'$tmp/made') -eq 2 || { cat '$tmp/made' '$tmp/d7'; exit 1; }"
        check "after the purge the root is byte for byte as before the package came (files, directories, modes; dpkg's database aside)" \
                sh -c "diff -u '$tmp/tree.before' '$tmp/tree.after'"

        # remove, then purge, with a file the administrator changed since install
        dpkg_r -i "$p.deb" >"$tmp/d8" 2>&1
        run_machine "$dir" "$R/usr/sbin/idlecfg" --root "$R" --profile balanced install >"$tmp/d9" 2>&1
        echo '# the administrator was here' >>"$R/etc/sysctl.d/90-idlecfg.conf"
        dpkg_r --remove idlecfg >"$tmp/d10" 2>&1; rc=$?
        st=$(dpkg-query --admindir="$R/var/lib/dpkg" -W -f '${Status}' idlecfg 2>&1)
        check "dpkg --remove with a file changed since install: the others are rolled back, that one is kept and said, the manifest stays until purge" sh -c "
                test $rc -eq 0 && test '$st' = 'deinstall ok config-files' && test ! -e '$rules' && test ! -e '$R/usr/sbin/idlecfg' &&
                grep -q 'administrator was here' '$R/etc/sysctl.d/90-idlecfg.conf' && grep -q 'rollback kept the files or values listed above' '$tmp/d10' &&
                test -f '$R/var/lib/idlecfg/manifest' || { echo 'rc $rc, status $st'; cat '$tmp/d9' '$tmp/d10'; exit 1; }"
        dpkg_r --purge idlecfg >"$tmp/d11" 2>&1; rc=$?
        check "dpkg --purge after that: postrm keeps /var/lib/idlecfg (the manifest still lists the file rollback kept) and says so; the lock is gone" sh -c "
                test $rc -eq 0 && grep -q 'still lists installed files (rollback kept them): keeping $R/var/lib/idlecfg' '$tmp/d11' &&
                ! grep -q 'removed its state' '$tmp/d11' &&
                test -f '$R/var/lib/idlecfg/manifest' &&
                test ! -e '$R/run/idlecfg.lock' || { echo 'rc $rc'; cat '$tmp/d11'; exit 1; }"
else
        for i in 1 2 3 4 5 6 7 8 9; do
                skip "dpkg --root: the package's scripts and trigger (dpkg or dpkg-deb not installed)"
        done
fi

# ---- rpm and pacman: the file triggers and the hook fire for real ----
# Both run scriptlets and hooks chrooted into the root, so the root gets a
# static busybox as /bin/sh and, as idlecfg, a script that records how it was
# called: what runs is the trigger or hook as shipped, up to the idlecfg
# command (refresh itself is what the dpkg points above run for real).
# fake_root DIR: that root; the idlecfg the packages carry is $tmp/fake-idlecfg
fake_root() {
        mkdir -p "$1/bin" "$1/var/log"
        cp "$busybox" "$1/bin/busybox"
        ln -s busybox "$1/bin/sh"
        for a in rm cat sed mktemp; do ln -s busybox "$1/bin/$a"; done
        # the boot tools rollback names, as stand-ins that record their call
        mkdir -p "$1/usr/sbin"
        for t in grub2-mkconfig grub-mkconfig; do
                printf '#!/bin/sh\necho "%s $*" >>/var/log/idlecfg-calls\n' "$t" >"$1/usr/sbin/$t"
                chmod 0755 "$1/usr/sbin/$t"
        done
}
# the stand-in's rollback removes the manifest and the journal, as a complete
# one does, and exits 0; with /var/lib/idlecfg/fake-rc 4 it names two boot
# steps (as rollback prints them) and a step by hand, with 3 it fails (after
# the manifest went: the state must stay all the same)
cat >"$tmp/fake-idlecfg" <<'SH'
#!/bin/sh
echo "idlecfg $*" >>/var/log/idlecfg-calls
[ "$*" = rollback ] || exit 0
rc=0
[ ! -f /var/lib/idlecfg/fake-rc ] || rc=$(cat /var/lib/idlecfg/fake-rc)
rm -f /var/lib/idlecfg/manifest /var/lib/idlecfg/apply.journal
if [ "$rc" = 4 ]; then
        printf 'Next steps:\n  * grub2-mkconfig -o /boot/grub2/grub.cfg\n      (grub.cfg)\n'
        printf '  * grub-mkconfig -o /boot/grub/grub.cfg\n      (grub.cfg)\n  * add these words: x\n      (by hand)\n'
fi
exit "$rc"
SH
chmod 0755 "$tmp/fake-idlecfg"
calls() { cat "$1/var/log/idlecfg-calls" 2>/dev/null | grep -c '^idlecfg refresh --boot-steps$'; }
rollbacks() { cat "$1/var/log/idlecfg-calls" 2>/dev/null | grep -c '^idlecfg rollback$'; }
# state ROOT: what install and apply leave in a root: a manifest, a journal, the lock
state() {
        mkdir -p "$1/var/lib/idlecfg/backup" "$1/run"
        echo manifest >"$1/var/lib/idlecfg/manifest"
        echo journal >"$1/var/lib/idlecfg/apply.journal"
        : >"$1/run/idlecfg.lock"
}
busybox=$(command -v busybox 2>/dev/null)
if [ -n "$busybox" ] && ! file -L "$busybox" 2>/dev/null | grep -q 'statically linked'; then
        busybox=
fi
nochroot=
if ! is_root; then
        nochroot="not root: rpm and pacman run scriptlets and hooks chrooted"
elif [ -z "$busybox" ]; then
        nochroot="no static busybox (Debian: busybox-static) for the root's /bin/sh"
fi

if [ -z "$nochroot" ] && command -v rpm >/dev/null 2>&1 && command -v rpmbuild >/dev/null 2>&1; then
        R=$tmp/rpmroot
        fake_root "$R"
        mkdir -p "$tmp/rpm"
        cat >"$tmp/rpm/hook.spec" <<SPEC
Name: idlecfg-hooktest
Version: %{ver}
Release: 1
Summary: idlecfg's rpm file triggers, for tests/hooks.sh
License: GPL-2.0-or-later
BuildArch: noarch
%description
idlecfg's rpm file triggers, for tests/hooks.sh.
%install
mkdir -p %{buildroot}/usr/sbin
install -m 0755 $tmp/fake-idlecfg %{buildroot}/usr/sbin/idlecfg
%files
/usr/sbin/idlecfg
%include $h/rpm-triggers.inc
%include $h/rpm-scriptlets.inc
SPEC
        cat >"$tmp/rpm/hwdb.spec" <<'SPEC'
Name: idlecfg-hooktest-hwdb
Version: 1.0
Release: 1
Summary: an hwdb file, for tests/hooks.sh
License: GPL-2.0-or-later
BuildArch: noarch
%description
An hwdb file that fires idlecfg's file triggers, for tests/hooks.sh.
%install
mkdir -p %{buildroot}/usr/lib/udev/hwdb.d
echo '# tests/hooks.sh' >%{buildroot}/usr/lib/udev/hwdb.d/90-hooktest.hwdb
%files
/usr/lib/udev/hwdb.d/90-hooktest.hwdb
SPEC
        for s in hook:1.0 hwdb:1.0 hook:1.1; do
                rpmbuild --define "_topdir $tmp/rpm/top" --define "_sbindir /usr/sbin" --define "ver ${s#*:}" --dbpath "$tmp/rpm/builddb" \
                        --nodeps -bb "$tmp/rpm/${s%:*}.spec" >>"$tmp/rpm/build.log" 2>&1
        done
        # Debian's rpm keeps its database in ~/.rpmdb: a fixed one inside the root
        # (--nodeps: nothing in the root's database provides /bin/sh)
        rpm_r() { rpm --root "$R" --dbpath /var/lib/rpm --nodeps "$@"; }
        rpm_r --initdb >"$tmp/rpm/r0" 2>&1
        rpm_r -i "$tmp/rpm/top/RPMS/noarch/idlecfg-hooktest-1.0-1.noarch.rpm" >"$tmp/rpm/r1" 2>&1
        n0=$(calls "$R")
        rpm_r -i "$tmp/rpm/top/RPMS/noarch/idlecfg-hooktest-hwdb-1.0-1.noarch.rpm" >"$tmp/rpm/r2" 2>&1; rc=$?
        n1=$(calls "$R")
        check "rpm --root -i of a package with an hwdb file: %transfiletriggerin runs idlecfg refresh once" sh -c "
                test $rc -eq 0 && test $n0 -eq 0 && test $n1 -eq 1 ||
                { echo 'calls $n0 $n1'; cat '$tmp/rpm/build.log' '$tmp/rpm/r1' '$tmp/rpm/r2'; exit 1; }"
        rpm_r -e idlecfg-hooktest-hwdb >"$tmp/rpm/r3" 2>&1; rc=$?
        n2=$(calls "$R")
        check "rpm --root -e of it: %transfiletriggerpostun runs idlecfg refresh once more" sh -c "
                test $rc -eq 0 && test $n2 -eq 2 || { echo 'calls $n2'; cat '$tmp/rpm/r3'; exit 1; }"
        state "$R"
        rpm_r -U "$tmp/rpm/top/RPMS/noarch/idlecfg-hooktest-1.1-1.noarch.rpm" >"$tmp/rpm/r4" 2>&1; rc=$?
        n3=$(rollbacks "$R")
        check "rpm --root -U to a new version: %preun and %postun (not the last version going) roll nothing back and keep the state" sh -c "
                test $rc -eq 0 && test $n3 -eq 0 && test -f '$R/var/lib/idlecfg/manifest' && test -f '$R/run/idlecfg.lock' ||
                { echo 'rollbacks $n3'; cat '$tmp/rpm/build.log' '$tmp/rpm/r4'; exit 1; }"
        rpm_r -e idlecfg-hooktest >"$tmp/rpm/r5" 2>&1; rc=$?
        n4=$(rollbacks "$R")
        check "rpm --root -e of idlecfg: %preun runs idlecfg rollback (live values and files) while the binary is there and says so, %postun removes /var/lib/idlecfg and the lock" sh -c "
                test $rc -eq 0 && test $n4 -eq 1 && grep -q 'rolling back what' '$tmp/rpm/r5' && grep -q 'removed its state /var/lib/idlecfg' '$tmp/rpm/r5' &&
                test ! -e '$R/var/lib/idlecfg' && test ! -e '$R/run/idlecfg.lock' && test ! -e '$R/usr/sbin/idlecfg' ||
                { echo 'rollbacks $n4'; cat '$tmp/rpm/r5'; exit 1; }"
        # rollback's exit 4 is done: the boot steps it names run, the state goes
        rpm_r -i "$tmp/rpm/top/RPMS/noarch/idlecfg-hooktest-1.0-1.noarch.rpm" >"$tmp/rpm/r6" 2>&1
        state "$R" && echo 4 >"$R/var/lib/idlecfg/fake-rc"
        rpm_r -e idlecfg-hooktest >"$tmp/rpm/r7" 2>&1; rc=$?
        check "rpm --root -e, rollback exits 4: done, %preun runs the boot step it names (grub2-mkconfig), %postun removes the state" sh -c "
                test $rc -eq 0 && grep -qx 'grub2-mkconfig -o /boot/grub2/grub.cfg' '$R/var/log/idlecfg-calls' &&
                ! grep -q 'did not restore\\|failed' '$tmp/rpm/r7' && grep -q 'removed its state' '$tmp/rpm/r7' &&
                test ! -e '$R/var/lib/idlecfg' || { cat '$tmp/rpm/r7'; exit 1; }"
        rpm_r -i "$tmp/rpm/top/RPMS/noarch/idlecfg-hooktest-1.0-1.noarch.rpm" >"$tmp/rpm/r8" 2>&1
        state "$R" && echo 3 >"$R/var/lib/idlecfg/fake-rc"
        rpm_r -e idlecfg-hooktest >"$tmp/rpm/r9" 2>&1; rc=$?
        check "rpm --root -e, rollback fails (exit 3): the erase goes on, the state stays and it says so" sh -c "
                test $rc -eq 0 && test -d '$R/var/lib/idlecfg' && grep -q 'rollback failed (exit 3' '$tmp/rpm/r9' &&
                grep -q 'kept /var/lib/idlecfg: rollback failed' '$tmp/rpm/r9' && ! grep -q 'removed its state' '$tmp/rpm/r9' ||
                { cat '$tmp/rpm/r9'; exit 1; }"
else
        skip "rpm: %transfiletriggerin runs idlecfg refresh" "${nochroot:-rpm or rpmbuild not installed}"
        skip "rpm: %transfiletriggerpostun runs idlecfg refresh" "${nochroot:-rpm or rpmbuild not installed}"
        skip "rpm: an upgrade rolls nothing back" "${nochroot:-rpm or rpmbuild not installed}"
        skip "rpm: an erase rolls back and removes the state" "${nochroot:-rpm or rpmbuild not installed}"
        skip "rpm: rollback's exit 4 is done" "${nochroot:-rpm or rpmbuild not installed}"
        skip "rpm: a failed rollback keeps the state" "${nochroot:-rpm or rpmbuild not installed}"
fi

if [ -z "$nochroot" ] && command -v pacman >/dev/null 2>&1; then
        R=$tmp/pacroot
        fake_root "$R"
        mkdir -p "$R/var/lib/pacman" "$R/var/cache/pacman/pkg" "$R/etc/pacman.d/gnupg"
        printf '[options]\nArchitecture = auto\nSigLevel = Never\nLocalFileSigLevel = Never\n' >"$tmp/pacman.conf"
        # mkpkg DIR NAME [VERSION]: a package of DIR's usr/ with a .PKGINFO (and
        # DIR's .INSTALL), as makepkg makes it
        mkpkg() {
                printf 'pkgname = %s\npkgbase = %s\npkgver = %s-1\npkgdesc = for tests/hooks.sh\narch = any\nsize = 1\n' "$2" "$2" "${3:-1.0}" >"$1/.PKGINFO"
                (cd "$1" && tar --owner=0 --group=0 -cf "$tmp/$2-${3:-1.0}-1-any.pkg.tar" .PKGINFO $(ls .INSTALL 2>/dev/null) usr)
        }
        p=$tmp/pac-idlecfg
        mkdir -p "$p/usr/bin" "$p/usr/share/libalpm/hooks"
        cp "$tmp/fake-idlecfg" "$p/usr/bin/idlecfg"
        cp "$h/idlecfg.hook" "$p/usr/share/libalpm/hooks/90-idlecfg.hook"
        cp "$h/pacman.install" "$p/.INSTALL"
        mkpkg "$p" idlecfg-hooktest
        mkpkg "$p" idlecfg-hooktest 1.1
        p=$tmp/pac-hwdb
        mkdir -p "$p/usr/lib/udev/hwdb.d"
        echo '# tests/hooks.sh' >"$p/usr/lib/udev/hwdb.d/90-hooktest.hwdb"
        mkpkg "$p" idlecfg-hooktest-hwdb
        # everything pacman reads or writes in the root; the hook from the root's
        # /usr/share/libalpm/hooks, where the package put it
        pac_r() {
                pacman --root "$R" --dbpath "$R/var/lib/pacman" --config "$tmp/pacman.conf" --logfile "$R/var/log/pacman.log" \
                        --cachedir "$R/var/cache/pacman/pkg" --gpgdir "$R/etc/pacman.d/gnupg" --noconfirm "$@"
        }
        pac_r -U "$tmp/idlecfg-hooktest-1.0-1-any.pkg.tar" >"$tmp/p1" 2>&1
        n0=$(calls "$R")
        pac_r -U "$tmp/idlecfg-hooktest-hwdb-1.0-1-any.pkg.tar" >"$tmp/p2" 2>&1; rc=$?
        n1=$(calls "$R")
        check "pacman --root -U of a package with an hwdb file: the hook runs idlecfg refresh once" sh -c "
                test $rc -eq 0 && test $n0 -eq 0 && test $n1 -eq 1 && grep -q 'idlecfg refresh' '$tmp/p2' ||
                { echo 'calls $n0 $n1'; cat '$tmp/p1' '$tmp/p2'; exit 1; }"
        pac_r -R idlecfg-hooktest-hwdb >"$tmp/p3" 2>&1; rc=$?
        n2=$(calls "$R")
        check "pacman --root -R of it: the hook runs idlecfg refresh once more" sh -c "
                test $rc -eq 0 && test $n2 -eq 2 || { echo 'calls $n2'; cat '$tmp/p3'; exit 1; }"
        state "$R"
        pac_r -U "$tmp/idlecfg-hooktest-1.1-1-any.pkg.tar" >"$tmp/p4" 2>&1; rc=$?
        n3=$(rollbacks "$R")
        check "pacman --root -U to a new version: the .install's pre_remove does not run, the state stays" sh -c "
                test $rc -eq 0 && test $n3 -eq 0 && test -f '$R/var/lib/idlecfg/manifest' && test -f '$R/run/idlecfg.lock' ||
                { echo 'rollbacks $n3'; cat '$tmp/p4'; exit 1; }"
        pac_r -R idlecfg-hooktest >"$tmp/p5" 2>&1; rc=$?
        n4=$(rollbacks "$R")
        check "pacman --root -R of idlecfg: pre_remove runs idlecfg rollback (live values and files) while the binary is there and says so, post_remove removes /var/lib/idlecfg and the lock" sh -c "
                test $rc -eq 0 && test $n4 -eq 1 && grep -q 'rolling back what' '$tmp/p5' && grep -q 'removed its state /var/lib/idlecfg' '$tmp/p5' &&
                test ! -e '$R/var/lib/idlecfg' && test ! -e '$R/run/idlecfg.lock' && test ! -e '$R/usr/bin/idlecfg' ||
                { echo 'rollbacks $n4'; cat '$tmp/p5'; exit 1; }"
        # rollback's exit 4 is done: the boot steps it names run, the state goes
        pac_r -U "$tmp/idlecfg-hooktest-1.0-1-any.pkg.tar" >"$tmp/p6" 2>&1
        state "$R" && echo 4 >"$R/var/lib/idlecfg/fake-rc"
        pac_r -R idlecfg-hooktest >"$tmp/p7" 2>&1; rc=$?
        check "pacman --root -R, rollback exits 4: done, pre_remove runs the boot step it names (grub-mkconfig), post_remove removes the state" sh -c "
                test $rc -eq 0 && grep -qx 'grub-mkconfig -o /boot/grub/grub.cfg' '$R/var/log/idlecfg-calls' &&
                ! grep -q 'did not restore\\|failed' '$tmp/p7' && grep -q 'removed its state' '$tmp/p7' &&
                test ! -e '$R/var/lib/idlecfg' || { cat '$tmp/p7'; exit 1; }"
        pac_r -U "$tmp/idlecfg-hooktest-1.0-1-any.pkg.tar" >"$tmp/p8" 2>&1
        state "$R" && echo 3 >"$R/var/lib/idlecfg/fake-rc"
        pac_r -R idlecfg-hooktest >"$tmp/p9" 2>&1; rc=$?
        check "pacman --root -R, rollback fails (exit 3): the removal goes on, the state stays and it says so" sh -c "
                test $rc -eq 0 && test -d '$R/var/lib/idlecfg' && grep -q 'rollback failed (exit 3' '$tmp/p9' &&
                grep -q 'kept /var/lib/idlecfg: rollback failed' '$tmp/p9' && ! grep -q 'removed its state' '$tmp/p9' ||
                { cat '$tmp/p9'; exit 1; }"
else
        skip "pacman: the hook runs idlecfg refresh on install" "${nochroot:-pacman not installed}"
        skip "pacman: the hook runs idlecfg refresh on removal" "${nochroot:-pacman not installed}"
        skip "pacman: an upgrade rolls nothing back" "${nochroot:-pacman not installed}"
        skip "pacman: a removal rolls back and removes the state" "${nochroot:-pacman not installed}"
        skip "pacman: rollback's exit 4 is done" "${nochroot:-pacman not installed}"
        skip "pacman: a failed rollback keeps the state" "${nochroot:-pacman not installed}"
fi
done_testing
