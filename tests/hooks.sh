#!/bin/sh
# tests/hooks.sh: the package-manager hooks in src/hooks: their syntax, and the
# Debian kernel hook run for real (refresh quiet for the same kernel,
# re-install for a new one) against a temporary root under umockdev.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}"
plan 11
h=$top_srcdir/src/hooks
check "shell hooks parse" sh -c "sh -n '$h/kernel-postinst.sh' && sh -n '$h/dpkg.postinst'"
check "dpkg triggers: only interest-noawait lines with absolute paths" sh -c "
        grep -v '^#' '$h/dpkg.triggers' | grep . | grep -vq '^interest-noawait /[a-z0-9/._-]*\$' && exit 1; grep -q '^interest-noawait /lib/modules\$' '$h/dpkg.triggers'"
check "pacman hook: [Trigger] and [Action] with Exec of idlecfg refresh" sh -c "
        grep -qx '\[Trigger\]' '$h/idlecfg.hook' && grep -qx '\[Action\]' '$h/idlecfg.hook' &&
        grep -qx 'Exec = /usr/bin/idlecfg refresh' '$h/idlecfg.hook' && grep -qx 'When = PostTransaction' '$h/idlecfg.hook' &&
        ! grep -v '^#' '$h/idlecfg.hook' | grep . | grep -vqE '^\[(Trigger|Action)\]\$|^[A-Za-z]+ = .+\$'"
check "rpm file triggers call idlecfg refresh and never fail the transaction" sh -c "
        grep -q '^%transfiletriggerin -- /usr/lib/modules' '$h/rpm-triggers.spec' && test \$(grep -c 'idlecfg refresh || :' '$h/rpm-triggers.spec') -eq 2"

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
IDLECFG=$tmp/idlecfg run_machine "$dir" sh "$h/kernel-postinst.sh" "$KVER" /boot/vmlinuz-$KVER >"$tmp/h1" 2>&1; rc=$?
check "kernel hook, same kernel: exit 0, nothing said, nothing written" sh -c "test $rc -eq 0 && test ! -s '$tmp/h1'"
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
done_testing
