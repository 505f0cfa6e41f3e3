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
plan 13

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
        (cd "$b/idlecfg-$version" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc) >"$b/build.log" 2>&1
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
                check "lintian of the upload (.changes: source and binary): no error" sh -c "
                        test -s '$b/lintian.log' || exit 1; ! grep -q '^E: ' '$b/lintian.log'" || diag "$(cat "$b/lintian.log")"
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
        check "dpkg --root -i of the built .deb: its postinst runs the root's idlecfg refresh (not installed yet: nothing written)" sh -c "
                test $rc -eq 0 && grep -q 'idlecfg was not installed into $R (no manifest)' '$tmp/d1' &&
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
                test $rc -eq 0 && test '$st' = 'install ok installed' && grep -q 'idlecfg was not installed into / (no manifest)' '$tmp/b1'" ||
                diag "$(cat "$tmp/b1")"
        in_root idlecfg install --image >"$tmp/b2" 2>&1; rc=$?
        st=$(systemctl --root="$B" is-enabled idlecfg-firstboot.service 2>&1)
        check "  idlecfg install --image in it: the first-boot unit enabled (systemctl --root is-enabled: $st)" sh -c "
                test $rc -eq 0 && test '$st' = enabled" || diag "$(cat "$tmp/b2")"
        in_root dpkg --purge idlecfg >"$tmp/b3" 2>&1; rc=$?
        rm -rf "$B/tmp/pkg"
        tree "$B" >"$tmp/btree.after"
        check "  chroot dpkg --purge: prerm rolls back (the unit's link, the manifest), the root as before the package" sh -c "
                test $rc -eq 0 && grep -q 'rolling back' '$tmp/b3' && diff -u '$tmp/btree.before' '$tmp/btree.after'" ||
                diag "$(cat "$tmp/b3")"
else
        for i in 1 2 3; do
                skip "the .deb in a Debian 12 root" "${deb:+$why}${deb:-no .deb built}"
        done
fi

# ---- the RPM ----
if have rpmbuild && have rpm; then
        T=$tmp/rpm
        mkdir -p "$T/SOURCES"
        cp "$tarball" "$h/rpm-scriptlets.spec" "$h/rpm-triggers.spec" "$T/SOURCES/"
        # Debian's rpm: no package database of the build dependencies (--nodeps),
        # and no find-debuginfo
        rpmbuild --define "_topdir $T" --define "debug_package %{nil}" --dbpath "$T/db" --nodeps \
                -bb "$top_srcdir/src/rpm/idlecfg.spec" >"$T/build.log" 2>&1; rc=$?
        rpmf=$(ls "$T"/RPMS/*/idlecfg-"$version"-*.rpm 2>/dev/null | head -n 1)
        check "rpmbuild -bb src/rpm/idlecfg.spec from make dist's tarball: the RPM" sh -c "test $rc -eq 0 && test -n '$rpmf'" ||
                diag "$(tail -n 30 "$T/build.log")"
        rpm -qp --scripts --filetriggers "$rpmf" >"$T/scripts" 2>&1
        check "  its scriptlets and file triggers are src/hooks' (%preun rollback, %postun state, refresh on modules, firmware, hwdb)" sh -c "
                grep -q 'idlecfg rollback' '$T/scripts' && grep -q 'removed its state /var/lib/idlecfg' '$T/scripts' &&
                test \$(grep -c '^/usr/sbin/idlecfg refresh || :\$' '$T/scripts') -eq 4 &&
                rpm -qpl '$rpmf' | grep -q '/idlecfg-firstboot.service\$'"
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
        for i in 1 2 3; do
                skip "the RPM (rpmbuild)" "rpm or rpmbuild not installed (Debian: rpm)"
        done
fi
done_testing
