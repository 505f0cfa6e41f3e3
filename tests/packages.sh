#!/bin/sh
# tests/packages.sh: the packages as distributions build them, from the
# tarball of make dist: the Debian source package (src/debian laid into the
# unpacked tarball as debian/, built with dpkg-buildpackage, checked with
# lintian) and the RPM (src/rpm/idlecfg.spec with rpmbuild, the scriptlets
# and file triggers of src/hooks as its Source1 and Source2). Their
# maintainer scripts are the shipped hooks: the dpkg flow of tests/hooks.sh
# with the real .deb (dpkg --root under a recorded machine), then the real
# packages installed, used and removed in a debootstrapped Debian 12 root
# (chroot dpkg, rpm --root), cached under $IDLECFG_TEST_ROOTS
# (/var/cache/idlecfg-test-roots) as a tarball keyed by the debootstrap call
# (lib.sh: debian_root).
# Slow (two builds, lintian): every point skips with its reason when a tool,
# root privileges or the cached root (and a way to make it) is missing.
. "$top_srcdir/tests/lib.sh"
plan 17

h=$top_srcdir/src/hooks
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$top_builddir/Makefile")
dir=$TESTS_DATA/machines/desktop-sata
have() { command -v "$1" >/dev/null 2>&1; }
# tree ROOT: every path with its type, mode, owner and link target, and the
# content of each file, less the package managers' databases and logs
tree() {
        (cd "$1" && find . \( -path ./var/lib/dpkg -o -path ./var/lib/rpm -o -path ./var/log -o -path ./var/cache \
                -o -path ./tmp -o -path ./usr/lib/sysimage \) -prune -o -printf '%p %y %m %u:%g %l\n' | LC_ALL=C sort &&
                find . \( -path ./var/lib/dpkg -o -path ./var/lib/rpm -o -path ./var/log -o -path ./var/cache \
                        -o -path ./tmp -o -path ./usr/lib/sysimage \) -prune -o -type f -print0 |
                        LC_ALL=C sort -z | xargs -0 sha256sum)
}

# ---- make dist's tarball ----
${MAKE:-make} -s -C "$top_builddir" dist >"$tmp/dist.log" 2>&1 &&
        mv "$top_builddir/idlecfg-$version.tar.xz" "$tmp/" || { cat "$tmp/dist.log"; echo "Bail out! make dist"; exit 1; }
tarball=$tmp/idlecfg-$version.tar.xz

# ---- README's packaging commands as written: the Debian build with its tests on ----
# The indented block of README that runs dpkg-buildpackage, SRC a copy of
# the parts of the tree it names, run in a directory of its own as an
# ordinary user (nobody, 65534, when the tests run as root: as buildds and
# sbuild build) without network (as root: a network namespace of its own),
# HOME a directory for rpmbuild's ~/rpmbuild (debhelper gives the tests its
# own); DEB_BUILD_OPTIONS only parallel=, so make check runs in the package
# directory, the build in the source directory as debhelper does it.
awk '/^    / { b = b $0 "\n"; next } { if (b ~ /dpkg-buildpackage/) { printf "%s", b; exit } b = "" }' \
        "$top_srcdir/README" | sed -e 's/^    //' -e "s/idlecfg\([-_]\)0\.1/idlecfg\1$version/g" >"$tmp/readme.sh"
R=$(mktemp -d "${TMPDIR:-/tmp}/idlecfg-readme.XXXXXX")
trap 'rm -rf "$tmp" "$R"' EXIT
mkdir -p "$R/SRC/src" "$R/home" && cp -R "$top_srcdir/src/debian" "$top_srcdir/src/hooks" "$top_srcdir/src/rpm" "$R/SRC/src/" &&
        cp "$tarball" "$R/" && sed "s|SRC/|$R/SRC/|g" "$tmp/readme.sh" >"$R/readme.sh"
as_user=
if is_root; then
        chown -R 65534:65534 "$R"
        as_user="setpriv --reuid=65534 --regid=65534 --clear-groups --"
        unshare -n true 2>/dev/null && as_user="unshare -n $as_user"
fi
if grep -q 'dpkg-buildpackage' "$R/readme.sh" && have dpkg-buildpackage && have dh && have rpmbuild; then
        start=$(date +%s)
        (cd "$R" && $as_user env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$R/home" LC_ALL=C \
                DEB_BUILD_OPTIONS="parallel=${IDLECFG_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}" sh -ex readme.sh) >"$tmp/readme.log" 2>&1
        rc=$? took=$(($(date +%s) - start))
        # the package's make check, as its harness summed it up
        sum=$(sed -n 's/^# \(TOTAL\|PASS\|SKIP\|FAIL\|ERROR\): *\([0-9]*\)$/\1 \2/p' "$tmp/readme.log" | tr '\n' ' ')
        check "README's packaging commands as written, as $(if is_root; then echo nobody; else id -un; fi): dpkg-buildpackage -us -uc with make check in the source directory [$sum], then rpmbuild (${took}s)" sh -c "
                test $rc -eq 0 && grep -q 'make -j[0-9]* check' '$tmp/readme.log' && echo '$sum' | grep -q 'FAIL 0 ERROR 0' &&
                ! echo '$sum' | grep -q 'PASS 0 ' &&
                ls '$R'/idlecfg_$version-*.deb && ls '$R'/home/rpmbuild/RPMS/*/idlecfg-$version-*.rpm"
        last_failed && diag "$(grep -A3 '^not ok\|^FAIL:\|^ERROR:' "$tmp/readme.log" | head -n 60)" "$(tail -n 30 "$tmp/readme.log")"
else
        skip "README's packaging commands as written (dpkg-buildpackage with its tests on, rpmbuild)" \
                "no such block in README, or dpkg-dev, debhelper or rpm not installed"
fi
rm -rf "$R"

# ---- the Debian source package ----
deb=
if have dpkg-buildpackage && have dh && have dpkg-deb; then
        b=$tmp/deb
        mkdir -p "$b"
        cp "$tarball" "$b/idlecfg_$version.orig.tar.xz"
        tar -C "$b" -xJf "$tarball"
        cp -a "$top_srcdir/src/debian" "$b/idlecfg-$version/debian"
        # (nocheck: make check is this suite; a distribution's build runs it)
        (cd "$b/idlecfg-$version" && DEB_BUILD_OPTIONS="nocheck parallel=1" nice dpkg-buildpackage -us -uc) >"$b/build.log" 2>&1
        rc=$?
        deb=$(ls "$b"/idlecfg_"$version"-*_*.deb 2>/dev/null | head -n 1)
        check "dpkg-buildpackage -us -uc of make dist's tarball with src/debian: the source package and the .deb" sh -c "
                test $rc -eq 0 && ls '$b'/idlecfg_$version-*.dsc >/dev/null && test -n '$deb'" ||
                diag "$(tail -n 30 "$b/build.log")"
        mkdir -p "$b/ctl" && dpkg-deb -e "$deb" "$b/ctl" 2>/dev/null
        # the hook as debhelper leaves it: its "#DEBHELPER#" replaced by debhelper's sections
        # (and the empty lines: debhelper leaves one where the token was)
        strip_dh() { sed '/^# Automatically added by dh_/,/^# End automatically added section/d; /^#DEBHELPER#$/d; /^$/d' "$1"; }
        same=yes
        for s in postinst prerm postrm; do
                strip_dh "$b/ctl/$s" >"$b/$s.got"
                strip_dh "$h/dpkg.$s" >"$b/$s.want"
                cmp -s "$b/$s.got" "$b/$s.want" || { same=no; diag "$s differs:" "$(diff -u "$b/$s.want" "$b/$s.got")"; }
        done
        check "its maintainer scripts and triggers are src/hooks' (debhelper's sections aside); the units shipped, none enabled by the postinst" sh -c "
                test $same = yes && cmp -s '$b/ctl/triggers' '$h/dpkg.triggers' &&
                dpkg-deb -c '$deb' | grep -q '/systemd/system/idlecfg-firstboot.service\$' &&
                dpkg-deb -c '$deb' | grep -q '/systemd/system/idlecfg-boot-steps.service\$' &&
                ! grep -q 'deb-systemd-helper enable\|deb-systemd-invoke start' '$b/ctl/postinst'"
        if have lintian; then
                lintian --tag-display-limit 0 "$b"/idlecfg_"$version"-*.changes >"$b/lintian.log" 2>&1
                check "lintian of the upload (.changes: source and binary): no error, no warning but initial-upload-closes-no-bugs" sh -c "
                        test -s '$b/lintian.log' || exit 1; ! grep '^[EW]: ' '$b/lintian.log' | grep -v ' initial-upload-closes-no-bugs'" ||
                        diag "$(cat "$b/lintian.log")"
                diag "lintian: $(grep -c '^W: ' "$b/lintian.log") warnings"
        else
                skip "lintian of the upload: no error" "lintian not installed"
        fi
else
        for i in 1 2 3; do
                skip "the Debian source package (dpkg-buildpackage)" "dpkg-dev or debhelper not installed"
        done
fi

# ---- the .deb in the dpkg flow of tests/hooks.sh: dpkg --root, scripts outside the root ----
if [ -n "$deb" ] && have umockdev-run; then
        R=$tmp/dpkgroot
        mkroot "$dir" "$R" || { echo "Bail out! no root"; exit 1; }
        mkdir -p "$R/run" "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/triggers"
        : >"$R/var/lib/dpkg/status"
        : >"$R/var/lib/dpkg/available"
        tree "$R" >"$tmp/tree.before"
        # (--force-depends: the root has no dpkg database of its libraries)
        dpkg_r() { run_machine "$dir" dpkg --root="$R" --force-script-chrootless --force-not-root --force-depends "$@"; }
        dpkg_r -i "$deb" >"$tmp/d1" 2>&1; rc=$?
        check "dpkg --root -i of the built .deb: idlecfg not installed yet, its postinst writes nothing and says nothing" sh -c "
                test $rc -eq 0 && ! grep -q '^idlecfg\\|no manifest\\|nothing to refresh' '$tmp/d1' &&
                test -x '$R/usr/sbin/idlecfg' && test ! -e '$R/var/lib/idlecfg/manifest'" || diag "$(cat "$tmp/d1")"
        run_machine "$dir" "$R/usr/sbin/idlecfg" --root "$R" --profile balanced install >"$tmp/d2" 2>&1
        cp "$R/var/lib/idlecfg/manifest" "$tmp/manifest.1" 2>/dev/null
        dpkg_r -i "$deb" >"$tmp/d3" 2>&1; rc=$?
        # (the same bytes in new inodes: the manifest records their stat data anew, and nothing else)
        grep -v '^input \|^end ' "$tmp/manifest.1" >"$tmp/manifest.1.files" 2>/dev/null
        grep -v '^input \|^end ' "$R/var/lib/idlecfg/manifest" >"$tmp/manifest.1b.files" 2>/dev/null
        check "  installed again after idlecfg install: no rollback (an upgrade), postinst refreshes, nothing written but the manifest's stat data" sh -c "
                test $rc -eq 0 && ! grep -q 'rolling back' '$tmp/d3' && test -s '$tmp/manifest.1.files' &&
                cmp '$tmp/manifest.1.files' '$tmp/manifest.1b.files'" ||
                diag "$(cat "$tmp/d2" "$tmp/d3")"
        dpkg_r --purge idlecfg >"$tmp/d4" 2>&1; rc=$?
        tree "$R" >"$tmp/tree.after"
        check "  dpkg --purge: its prerm rolls back what install wrote, postrm purges the state; the root byte for byte as before" sh -c "
                test $rc -eq 0 && grep -q 'the package is being removed: rolling back' '$tmp/d4' &&
                diff -u '$tmp/tree.before' '$tmp/tree.after'" || diag "$(cat "$tmp/d4")"
else
        for i in 1 2 3; do
                skip "dpkg --root with the built .deb" "${deb:+no umockdev-run}${deb:-no .deb built}"
        done
fi

# ---- a Debian 12 root (lib.sh: debian_root) ----
B=$tmp/bookworm
why=
if { [ -n "$deb" ] || have rpmbuild; } && debian_root "$B"; then
        broot=yes
        # the root's own tools, a clean environment (no host PATH or locale)
        in_root() { env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 chroot "$B" "$@"; }
        tree "$B" >"$tmp/btree.before"
else
        broot=
fi

if [ -n "$deb" ] && [ -n "$broot" ]; then
        mkdir -p "$B/tmp/pkg" && cp "$deb" "$B/tmp/pkg/"
        in_root dpkg -i "/tmp/pkg/${deb##*/}" >"$tmp/b1" 2>&1; rc=$?
        st=$(in_root dpkg-query -W -f '${Status}' idlecfg 2>&1)
        check "Debian 12 root: chroot dpkg -i of the .deb (its dependencies met, its scripts inside): installed, idlecfg runs" sh -c "
                test $rc -eq 0 && test '$st' = 'install ok installed' && ! grep -q '^idlecfg\\|no manifest\\|nothing to refresh' '$tmp/b1'" ||
                diag "$(cat "$tmp/b1")"
        in_root idlecfg install --image >"$tmp/b2" 2>&1; rc=$?
        st=$(systemctl --root="$B" is-enabled idlecfg-firstboot.service 2>&1)
        check "  idlecfg install --image in it: the first-boot unit enabled (systemctl --root is-enabled: $st)" sh -c "
                test $rc -eq 0 && test '$st' = enabled" || diag "$(cat "$tmp/b2")"
        in_root dpkg --purge idlecfg >"$tmp/b3" 2>&1; rc=$?
        rm -rf "$B/tmp/pkg"
        tree "$B" >"$tmp/btree.after"
        check "  chroot dpkg --purge: prerm rolls back (the unit's link, the manifest), the root as before the package, no dpkg warning (an aliased directory)" sh -c "
                test $rc -eq 0 && grep -q 'rolling back' '$tmp/b3' && ! grep -q 'warning' '$tmp/b3' &&
                diff -u '$tmp/btree.before' '$tmp/btree.after'" ||
                diag "$(cat "$tmp/b3")"
else
        for i in 1 2 3; do
                skip "the .deb in a Debian 12 root" "${deb:+$why}${deb:-no .deb built}"
        done
fi

# ---- the .deb's boot steps: a Debian 12 root with its kernel (lib.sh: cached_root) ----
# The package installed with dpkg in the root (libinih1 from this machine's
# apt, the root has the rest), idlecfg installed into it from outside (the
# recorded machine), the boot steps install names run by hand: the
# initramfs (lsinitramfs) holds idlecfg's modprobe.d file, grub.cfg (Debian's
# grub-mkconfig of the root's /etc/default, tests/mkconfig.sh) its word.
# Then dpkg --purge in the root: the prerm's rollback exits 4 and the
# package runs the steps itself, the Debian way (update-initramfs through
# initramfs-tools' trigger, update-grub where /boot/grub/grub.cfg is: a
# stand-in that records its call, the root has no GRUB), and no boot
# artifact holds anything of idlecfg's.
. "$top_srcdir/tests/mkconfig.sh"
K=$tmp/kroot
why=
inih=
if [ -n "$deb" ]; then
        inih=$(ls /var/cache/apt/archives/libinih1_*.deb 2>/dev/null | head -n 1)
        [ -n "$inih" ] || { (cd "$tmp" && apt-get download libinih1 >/dev/null 2>&1) && inih=$(ls "$tmp"/libinih1_*.deb | head -n 1); }
fi
# in_k CMD...: CMD chrooted in the root, /proc mounted there, in a mount namespace of its own
in_k() {
        unshare -m sh -c 'mount --make-rprivate / 2>/dev/null; mount -t proc proc "$0/proc" &&
                exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 chroot "$0" "$@"' "$K" "$@"
}
# holds_any: the initramfs holds a file of idlecfg's install (modprobe.d, udev rules)
holds_any() { chroot "$K" lsinitramfs "/boot/initrd.img-$KV" | grep -q 'idlecfg'; }
if [ -z "$deb" ]; then
        why="no .deb built"
elif [ -z "$inih" ]; then
        why="no libinih1 .deb (apt-get download libinih1 failed)"
elif [ -z "$can_mkconfig" ]; then
        why="needs root, unshare and grub-mkconfig (Debian's grub2-common)"
elif cached_root "$K" bookworm bookworm-boot linux-image-amd64,initramfs-tools,zstd,kmod boot; then
        KV=$(ls "$K/lib/modules" | head -n 1)
        mkdir -p "$K/tmp/pkg" "$K/etc/default" "$K/boot/grub"
        cp "$deb" "$inih" "$K/tmp/pkg/"
        printf 'GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT="quiet"\nGRUB_CMDLINE_LINUX=""\n' >"$K/etc/default/grub"
        : >"$K/boot/grub/grub.cfg"
        printf '#!/bin/sh\necho "update-grub $*" >>/var/log/update-grub.calls\n' >"$K/usr/sbin/update-grub"
        chmod 0755 "$K/usr/sbin/update-grub"
        in_k dpkg -i "/tmp/pkg/${inih##*/}" "/tmp/pkg/${deb##*/}" >"$tmp/k1" 2>&1; rc1=$?
        # (powersave: a word on the command line; balanced's pcie_aspm.policy=default is this kernel's default)
        run_machine "$dir" "$IDLECFG" --root "$K" --kernel "$KV" --profile powersave install --json >"$tmp/k2.json" 2>"$tmp/k2.err"; rc2=$?
        in_k update-initramfs -u -k "$KV" >"$tmp/k3" 2>&1
        holds_any && held=yes || held=no
        # (the root's grub.cfg as its update-grub would make it: rollback looks there for the word)
        mkconfig "$K" "$K/boot/grub/grub.cfg" >"$tmp/k.linux"
        check "Debian 12 root with its kernel: the .deb installed (quietly), idlecfg install exits 4; after its steps by hand the initramfs holds idlecfg's modprobe.d file and grub.cfg the word" sh -c "
                test $rc1 -eq 0 && ! grep -q '^idlecfg\\|no manifest' '$tmp/k1' && test $rc2 -eq 4 &&
                grep -q '\"update-initramfs\"' '$tmp/k2.json' && grep -q '\"update-grub\"' '$tmp/k2.json' &&
                test $held = yes && grep -q 'pcie_aspm.policy=' '$tmp/k.linux'" ||
                diag "$(cat "$tmp/k1" "$tmp/k2.err" "$tmp/k3")"
        in_k dpkg --purge idlecfg >"$tmp/k4" 2>&1; rc=$?
        check "  dpkg --purge: prerm's rollback exits 4, and the package runs the steps: update-initramfs through initramfs-tools' trigger, update-grub once" sh -c "
                test $rc -eq 0 && grep -q 'rolling back' '$tmp/k4' &&
                grep -q 'update-initramfs: deferring update (trigger activated)' '$tmp/k4' &&
                grep -q 'Processing triggers for initramfs-tools' '$tmp/k4' &&
                test \"\$(cat '$K/var/log/update-grub.calls')\" = 'update-grub '" || diag "$(cat "$tmp/k4")"
        holds_any && held=yes || held=no
        mkconfig "$K" "$tmp/k.grub.cfg" >"$tmp/k.linux"
        check "  after the purge no boot artifact holds anything of idlecfg's: lsinitramfs lists none of its files, grub-mkconfig's entry has no word of it" sh -c "
                test $held = no && test -s '$tmp/k.linux' && ! grep -q 'pcie_aspm' '$tmp/k.linux' &&
                test ! -e '$K/var/lib/idlecfg' && test ! -e '$K/etc/default/grub.d/idlecfg.cfg'" ||
                diag "$(chroot "$K" lsinitramfs "/boot/initrd.img-$KV" | grep idlecfg)" "$(cat "$tmp/k.linux")"
else
        :
fi
if [ -n "$why" ] || [ -z "${KV:-}" ]; then
        for n in 1 2 3; do skip "the .deb's boot steps in a Debian 12 root with its kernel" "${why:-no cached root}"; done
fi

# ---- the RPM ----
if have rpmbuild && have rpm; then
        T=$tmp/rpm
        mkdir -p "$T/SOURCES"
        cp "$tarball" "$h/rpm-scriptlets.inc" "$h/rpm-triggers.inc" "$T/SOURCES/"
        # Debian's rpm: no package database of the build dependencies (--nodeps),
        # no find-debuginfo, and no systemd-rpm-macros (their directories given)
        rpmbuild --define "_topdir $T" --define "debug_package %{nil}" --dbpath "$T/db" --nodeps \
                --define "_udevrulesdir /usr/lib/udev/rules.d" --define "_udevhwdbdir /usr/lib/udev/hwdb.d" \
                --define "_systemd_util_dir /usr/lib/systemd" \
                -ba "$top_srcdir/src/rpm/idlecfg.spec" >"$T/build.log" 2>&1; rc=$?
        rpmf=$(ls "$T"/RPMS/*/idlecfg-"$version"-*.rpm 2>/dev/null | head -n 1)
        check "rpmbuild -bb src/rpm/idlecfg.spec from make dist's tarball: the RPM" sh -c "test $rc -eq 0 && test -n '$rpmf'" ||
                diag "$(tail -n 30 "$T/build.log")"
        rpm -qp --scripts --filetriggers "$rpmf" >"$T/scripts" 2>&1
        check "  its scriptlets and file triggers are src/hooks' (%preun rollback, %postun state, refresh on modules, firmware, hwdb)" sh -c "
                grep -q 'idlecfg rollback' '$T/scripts' && grep -q 'removed its state /var/lib/idlecfg' '$T/scripts' &&
                test \$(grep -c '^/usr/sbin/idlecfg refresh --boot-steps || :\$' '$T/scripts') -eq 4 &&
                rpm -qpl '$rpmf' | grep -q '/idlecfg-firstboot.service\$'"
        srpm=$(ls "$T"/SRPMS/idlecfg-"$version"-*.src.rpm 2>/dev/null | head -n 1)
        if have rpmlint && [ -n "$srpm" ]; then
                # (errors of this machine's rpm and rpmlint's generic configuration, not
                # of the project: no signature, no Packager (a build system sets it), no
                # Group (obsolete in Fedora), and man5 for idlecfg.conf(5), where file
                # formats go, not an openSUSE "manconf")
                # (the spec beside its sources, as rpmbuild reads it)
                cp "$top_srcdir/src/rpm/idlecfg.spec" "$T/SOURCES/"
                rpmlint "$T/SOURCES/idlecfg.spec" "$srpm" "$rpmf" >"$T/rpmlint.log" 2>&1
                check "  rpmlint of spec, SRPM and RPM: no error the project causes; the SRPM holds one spec" sh -c "
                        ! grep ': E: ' '$T/rpmlint.log' | grep -v 'no-signature\\|no-packager-tag\\|no-group-tag\\|bad-manual-page-folder .*idlecfg.conf.5' &&
                        test \$(rpm -qpl '$srpm' | grep -c '\\.spec\$') -eq 1" || diag "$(cat "$T/rpmlint.log")"
        else
                skip "  rpmlint of spec, SRPM and RPM" "$(if [ -n "$srpm" ]; then echo "no rpmlint (Debian: rpmlint)"; else echo "no SRPM"; fi)"
        fi
        if [ -n "$broot" ] && [ -n "$rpmf" ]; then
                # (the package file as this machine names it; its scriptlets run chrooted)
                rpm_r() { rpm --root "$B" --dbpath /var/lib/rpm --nodeps "$@"; }
                rpm_r -i "$rpmf" >"$T/r1" 2>&1 && in_root idlecfg install --image >>"$T/r1" 2>&1 &&
                        test "$(systemctl --root="$B" is-enabled idlecfg-firstboot.service 2>&1)" = enabled
                rc=$?
                rpm_r -e idlecfg >"$T/r2" 2>&1; rc2=$?
                # (rpm's database; and the %license directory, which no package of
                # a Debian root owns: on an RPM distribution the filesystem package does)
                rm -rf "$B/var/lib/rpm" "$B/usr/lib/sysimage"
                rmdir "$B/usr/share/licenses" 2>/dev/null
                tree "$B" >"$tmp/btree.rpm"
                check "Debian 12 root: rpm --root -i, install --image, rpm -e (%preun rolls back, %postun purges): the root as before" sh -c "
                        test $rc -eq 0 && test $rc2 -eq 0 && grep -q 'rolling back' '$T/r2' &&
                        diff -u '$tmp/btree.before' '$tmp/btree.rpm'" || diag "$(cat "$T/r1" "$T/r2")"
        else
                skip "the RPM in a Debian 12 root" "${rpmf:+$why}${rpmf:-no RPM built}"
        fi
else
        for i in 1 2 3 4; do
                skip "the RPM (rpmbuild)" "rpm or rpmbuild not installed (Debian: rpm)"
        done
fi
done_testing
