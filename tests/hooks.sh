#!/bin/sh
# tests/hooks.sh: the package-manager hooks in src/hooks: their syntax, and the
# Debian kernel hook run for real (refresh quiet for the same kernel,
# re-install for a new one) against a temporary root under umockdev.
. "$top_srcdir/tests/lib.sh"
[ -d "$FIXTURES/hwdb" ] || skip_all "no shared fixtures at $FIXTURES (systemd's autosuspend hwdb)"
need umockdev-run depmod "${CC:-cc}"
plan 7
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
done_testing
