#!/bin/sh
# tests/messages.sh: what an administrator, an installer's log and a newcomer
# read: the order of a log that takes both streams, one line a message in
# files, the ways out of the common mistakes (profiles, options given twice,
# a damaged manifest), each in de and fr too.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" script
# one umockdev session of a recorded machine for the whole script
if [ -z "${IDLECFG_IN_MACHINE:-}" ]; then
        rm -rf "$tmp"
        IDLECFG_IN_MACHINE=1 exec "$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/desktop-sata" sh "$0" "$@"
fi
plan 4

dir=$TESTS_DATA/machines/desktop-sata
root=$tmp/root
mkroot_installed "$dir" "$root" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/var/lib" "$root/run"
cp -a "$root" "$tmp/orig"
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
reset_root() { rm -rf "$root" && cp -a "$tmp/orig" "$root"; }

# ---- a log of both streams (>>log 2>&1, as the installers' hooks write it) ----
# A warning about the root comes at the end of the run (src/cli/run.c
# run_done()), after the header stdout printed first: in that order in the
# log, stdout written a line at a time
printf 'UUID=0b5b5f4e / ext4 defaults 0 1\nnot-an-fstab-line\n' >"$root/etc/fstab"
ic install --profile balanced >>"$tmp/log" 2>&1
check "combined log: the run's header comes before the warning said after it" awk '
        /^Installing profile balanced/ { head = NR }
        /not an fstab entry/ { warn = NR }
        END { exit !(head && warn && head < warn) }' "$tmp/log"
reset_root

# ---- one line a message in files and pipes, wrapped on a terminal ----
ic plan --profile balanced >"$tmp/plan.file" 2>&1
check "plan in a file: a reason over 80 columns stays one line" sh -c "
        awk 'length > 80 { long = 1 } END { exit !long }' '$tmp/plan.file' &&
        grep -q '^Boot scheme none: no GRUB, kernel-install layout, systemd-boot, bootc or OSTree is there\$' '$tmp/plan.file'"
on_tty "$IDLECFG" --root "$root" --kernel "$KVER" plan --profile balanced >"$tmp/plan.tty"
check "plan on a terminal: the reasons wrapped at 80 columns, the same words" sh -c "
        awk '/^    / && length > 80 { print; bad = 1 } END { exit bad }' '$tmp/plan.tty' &&
        test \"\$(tr -s ' \n' '  ' <'$tmp/plan.tty')\" = \"\$(tr -s ' \n' '  ' <'$tmp/plan.file')\""
ic plan --profile balanced 2>&1 | cat >"$tmp/plan.pipe"
check "plan in a pipe: as in a file" cmp "$tmp/plan.file" "$tmp/plan.pipe"

done_testing
