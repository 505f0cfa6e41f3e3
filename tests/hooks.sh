#!/bin/sh
# tests/hooks.sh: the package-manager hooks in src/hooks: their syntax, and the
# Debian kernel hook run for real (refresh quiet for the same kernel,
# re-install for a new one) against a temporary root under umockdev.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}"
plan 16
h=$top_srcdir/src/hooks
check "shell hooks parse" sh -c "sh -n '$h/kernel-postinst.sh' && sh -n '$h/dpkg.postinst'"
check "dpkg triggers: only interest-noawait lines with absolute paths" sh -c "
        grep -v '^#' '$h/dpkg.triggers' | grep . | grep -vq '^interest-noawait /[a-z0-9/._-]*\$' && exit 1; grep -q '^interest-noawait /lib/modules\$' '$h/dpkg.triggers'"
check "pacman hook: [Trigger] and [Action] with Exec of idlecfg refresh" sh -c "
        grep -qx '\[Trigger\]' '$h/idlecfg.hook' && grep -qx '\[Action\]' '$h/idlecfg.hook' &&
        grep -qx \"Exec = /bin/sh -c '/usr/bin/idlecfg refresh || \[ \\\$? -eq 4 \]'\" '$h/idlecfg.hook' && grep -qx 'When = PostTransaction' '$h/idlecfg.hook' &&
        ! grep -v '^#' '$h/idlecfg.hook' | grep . | grep -vqE '^\[(Trigger|Action)\]\$|^[A-Za-z]+ = .+\$'"
check "rpm file triggers call idlecfg refresh and never fail the transaction; one path per %transfiletriggerpostun (rpm#3048)" sh -c "
        f='$h/rpm-triggers.spec'
        grep -q '^%transfiletriggerin -- /usr/lib/modules' \"\$f\" && test \$(grep -c '^%transfiletriggerpostun -- /[^ ]*\$' \"\$f\") -eq 3 &&
        test \$(grep -c '^%transfiletrigger' \"\$f\") -eq 4 && test \$(grep -c '^%{_sbindir}/idlecfg refresh || :\$' \"\$f\") -eq 4"

dir=$TESTS_DATA/machines/desktop-sata
root=$tmp/root
mkroot_installed "$dir" "$root" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/run" "$root/var/lib"
# the hook runs "$IDLECFG --kernel V refresh"; the wrapper keeps it in the test root
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
        test $rc -eq 0 && grep -q 'refresh for kernel $new failed' '$tmp/h3'"

# ---- dpkg: the trigger and postinst run for real ----
# A package carrying src/hooks/dpkg.triggers and dpkg.postinst and the built
# idlecfg, installed with dpkg --root into a temporary root with its own dpkg
# database. --force-script-chrootless runs the maintainer scripts outside the
# root with DPKG_ROOT set (the root has no shell to chroot into); the
# postinst then runs the root's idlecfg with --root "$DPKG_ROOT". Under
# umockdev, so that refresh sees the recorded machine.
if command -v dpkg >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1; then
        R=$tmp/dpkgroot
        mkroot_installed "$dir" "$R" || { echo "Bail out! no root"; exit 1; }
        mkdir -p "$R/run" "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/triggers"
        : >"$R/var/lib/dpkg/status"
        : >"$R/var/lib/dpkg/available"
        # mkdeb DIR NAME DESCRIPTION: a DEBIAN/control for DIR, then DIR.deb
        mkdeb() {
                mkdir -p "$1/DEBIAN"
                printf 'Package: %s\nVersion: 1.0\nArchitecture: all\nMaintainer: idlecfg tests <tests@invalid>\nDescription: %s\n' \
                        "$2" "$3" >"$1/DEBIAN/control"
                dpkg-deb --root-owner-group --build "$1" "$1.deb" >>"$tmp/dpkg-deb.log" 2>&1
        }
        p=$tmp/pkg-idlecfg
        mkdir -p "$p/DEBIAN" "$p/usr/sbin"
        cp "$h/dpkg.triggers" "$p/DEBIAN/triggers"
        cp "$h/dpkg.postinst" "$p/DEBIAN/postinst"
        chmod 0755 "$p/DEBIAN/postinst"
        cp "$IDLECFG" "$p/usr/sbin/idlecfg"
        mkdeb "$p" idlecfg-hooktest "idlecfg's dpkg trigger and postinst, for tests/hooks.sh"
        hw=$tmp/pkg-hwdb
        mkdir -p "$hw/usr/lib/udev/hwdb.d"
        # the recorded SATA controller 0000:00:1f.2 (8086:3b22): balanced plans runtime PM for it
        printf '# tests/hooks.sh: a deny entry, so that the trigger has something to change\npci:v00008086d00003B22*\n IDLECFG_PCI_RUNTIME_PM=deny\n' \
                >"$hw/usr/lib/udev/hwdb.d/90-hooktest.hwdb"
        mkdeb "$hw" idlecfg-hooktest-hwdb "an hwdb file that activates idlecfg's trigger, for tests/hooks.sh"
        dpkg_r() { run_machine "$dir" dpkg --root="$R" --force-script-chrootless --force-not-root "$@"; }
        rules=$R/etc/udev/rules.d/70-idlecfg.rules

        dpkg_r -i "$p.deb" >"$tmp/d1" 2>&1; rc=$?
        check "dpkg --root -i: the package with the trigger installs, its postinst runs refresh on the root (not installed yet: nothing written)" sh -c "
                test $rc -eq 0 && test -f '$p.deb' && grep -q 'idlecfg was not installed into $R (no manifest)' '$tmp/d1' &&
                test ! -e '$R/var/lib/idlecfg/manifest' && test -x '$R/usr/sbin/idlecfg' || { cat '$tmp/dpkg-deb.log' '$tmp/d1'; exit 1; }"
        run_machine "$dir" "$R/usr/sbin/idlecfg" --root "$R" --profile balanced install >"$tmp/d2" 2>&1
        cp "$R/var/lib/idlecfg/manifest" "$tmp/manifest.1"
        dpkg_r -i "$p.deb" >"$tmp/d3" 2>&1; rc=$?
        check "reinstalling it after idlecfg install: postinst configure refreshes, nothing changed, nothing written" sh -c "
                test $rc -eq 0 && grep -q 'Setting up idlecfg-hooktest' '$tmp/d3' && ! grep -q 'Changed since' '$tmp/d3' &&
                cmp '$tmp/manifest.1' '$R/var/lib/idlecfg/manifest' && grep -q '^# pci.runtime_pm on 0000:00:1f.2:' '$rules' ||
                { cat '$tmp/d2' '$tmp/d3'; exit 1; }"
        dpkg_r -i "$hw.deb" >"$tmp/d4" 2>&1; rc=$?
        check "a package that installs an hwdb file fires the trigger: refresh re-installs with the deny entry" sh -c "
                test $rc -eq 0 && grep -q 'Processing triggers for idlecfg-hooktest' '$tmp/d4' && grep -q 'hwdb: files changed' '$tmp/d4' &&
                ! grep -q '^# pci.runtime_pm on 0000:00:1f.2:' '$rules' && ! cmp -s '$tmp/manifest.1' '$R/var/lib/idlecfg/manifest' ||
                { cat '$tmp/d4'; exit 1; }"
        dpkg_r --remove idlecfg-hooktest-hwdb >"$tmp/d5" 2>&1; rc=$?
        check "removing that package fires it again: the setting is planned again" sh -c "
                test $rc -eq 0 && grep -q 'Processing triggers for idlecfg-hooktest' '$tmp/d5' && grep -q 'hwdb: files changed' '$tmp/d5' &&
                grep -q '^# pci.runtime_pm on 0000:00:1f.2:' '$rules' || { cat '$tmp/d5'; exit 1; }"
else
        skip "dpkg --root: the package with the trigger installs (dpkg or dpkg-deb not installed)"
        skip "(same)"
        skip "(same)"
        skip "(same)"
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
}
printf '#!/bin/sh\necho "idlecfg $*" >>/var/log/idlecfg-calls\n' >"$tmp/fake-idlecfg"
chmod 0755 "$tmp/fake-idlecfg"
calls() { cat "$1/var/log/idlecfg-calls" 2>/dev/null | grep -c '^idlecfg refresh$'; }
busybox=$(command -v busybox 2>/dev/null)
if [ -n "$busybox" ] && ! file -L "$busybox" 2>/dev/null | grep -q 'statically linked'; then
        busybox=
fi
nochroot=
if [ "$(id -u)" != 0 ]; then
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
Version: 1.0
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
%include $h/rpm-triggers.spec
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
        for s in hook hwdb; do
                rpmbuild --define "_topdir $tmp/rpm/top" --define "_sbindir /usr/sbin" --dbpath "$tmp/rpm/builddb" \
                        --nodeps -bb "$tmp/rpm/$s.spec" >>"$tmp/rpm/build.log" 2>&1
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
else
        skip "rpm: %transfiletriggerin runs idlecfg refresh" "${nochroot:-rpm or rpmbuild not installed}"
        skip "rpm: %transfiletriggerpostun runs idlecfg refresh" "${nochroot:-rpm or rpmbuild not installed}"
fi

if [ -z "$nochroot" ] && command -v pacman >/dev/null 2>&1; then
        R=$tmp/pacroot
        fake_root "$R"
        mkdir -p "$R/var/lib/pacman" "$R/var/cache/pacman/pkg" "$R/etc/pacman.d/gnupg"
        printf '[options]\nArchitecture = auto\nSigLevel = Never\nLocalFileSigLevel = Never\n' >"$tmp/pacman.conf"
        # mkpkg DIR NAME: a package of DIR's usr/ with a .PKGINFO, as makepkg makes it
        mkpkg() {
                printf 'pkgname = %s\npkgbase = %s\npkgver = 1.0-1\npkgdesc = for tests/hooks.sh\narch = any\nsize = 1\n' "$2" "$2" >"$1/.PKGINFO"
                (cd "$1" && tar --owner=0 --group=0 -cf "$tmp/$2-1.0-1-any.pkg.tar" .PKGINFO usr)
        }
        p=$tmp/pac-idlecfg
        mkdir -p "$p/usr/bin" "$p/usr/share/libalpm/hooks"
        cp "$tmp/fake-idlecfg" "$p/usr/bin/idlecfg"
        cp "$h/idlecfg.hook" "$p/usr/share/libalpm/hooks/90-idlecfg.hook"
        mkpkg "$p" idlecfg-hooktest
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
else
        skip "pacman: the hook runs idlecfg refresh on install" "${nochroot:-pacman not installed}"
        skip "pacman: the hook runs idlecfg refresh on removal" "${nochroot:-pacman not installed}"
fi
done_testing
