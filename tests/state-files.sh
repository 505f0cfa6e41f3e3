#!/bin/sh
# tests/state-files.sh: idlecfg's state files prove they are whole and name
# only what idlecfg writes. A manifest cut at any line boundary, or with a line
# lost, is refused by install and rollback, which change nothing (and install
# advises no rollback that fails the same way); a manifest naming another file
# (/etc/fstab) is refused; a damaged backup is never used; a command-line word
# is never appended twice, also after /var/lib/idlecfg was deleted, and then
# idlecfg's own files are not taken for the administrator's originals; a format 1
# manifest is read and rewritten. A journal cut short, with a value the knob
# does not take or a path the registry does not declare, is refused and every
# value stays; the journal of live values is the running system's: apply
# keeps it there, and rollback --root DIR never writes DIR's journal's values.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}"
PATH=$PATH:/sbin:/usr/sbin
if [ -z "${IDLECFG_IN_MACHINE:-}" ]; then
        rm -rf "$tmp"
        IDLECFG_IN_MACHINE=1 exec "$top_srcdir/tests/run-machine" "$TESTS_DATA/machines/desktop-sata" sh "$0" "$@"
fi
plan 23

root=$tmp/root
mkroot_installed "$TESTS_DATA/machines/desktop-sata" "$root" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/var/lib" "$root/run" "$root/etc/kernel" "$root/boot"
printf 'root=UUID=0b5b5f4e-5d0e-4e4b-9d62-3f9d2b2a5c11 ro quiet\n' >"$root/etc/kernel/cmdline"
printf 'UUID=0b5b5f4e / ext4 defaults 0 1\n' >"$root/etc/fstab"
# the boot entry kernel-install makes from /etc/kernel/cmdline once balanced's
# word is there (and powersave's): the boot configuration lacks nothing, so
# install and refresh exit 0 and a refresh with nothing to do is quiet (no exit 4)
mkdir -p "$root/boot/loader/entries"
printf 'version %s\noptions root=UUID=0b5b5f4e-5d0e-4e4b-9d62-3f9d2b2a5c11 ro quiet pcie_aspm.policy=default pcie_aspm.policy=powersupersave\n' \
        "$KVER" >"$root/boot/loader/entries/test.conf"
cp -a "$root" "$tmp/orig"
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
reset_root() { rm -rf "$root" && cp -a "$tmp/orig" "$root"; }
# etc, var, boot and usr/lib/systemd (the power-source switch's system-sleep hook)
tree() {
        (cd "$1" && find etc var boot $(ls -d usr/lib/systemd 2>/dev/null) -printf '%p %y %m %l\n' | LC_ALL=C sort &&
                find etc var boot $(ls -d usr/lib/systemd 2>/dev/null) -type f -exec sha256sum {} + | LC_ALL=C sort -k2)
}
tree "$tmp/orig" >"$tmp/orig.tree"
M=$root/var/lib/idlecfg/manifest
J=$root/var/lib/idlecfg/apply.journal
# a new end record for FILE (what someone who edits it on purpose would write)
reseal() {
        grep -v '^end ' "$1" >"$1.t"
        printf 'end %s %s\n' "$(wc -l <"$1.t")" "$(sha256sum <"$1.t" | cut -c1-64)" >>"$1.t"
        mv "$1.t" "$1"
}

# ---- a manifest cut at every line boundary, or with a line lost ----
ic --profile balanced install >/dev/null 2>&1 || { echo "Bail out! install failed"; exit 1; }
cp "$M" "$tmp/manifest"
tree "$root" >"$tmp/installed.tree"
lines=$(wc -l <"$tmp/manifest")
k=1 bad=0 advice=0
while [ $k -lt "$lines" ]; do
        head -n $k "$tmp/manifest" >"$M"
        ic --profile powersave install >"$tmp/cut.out" 2>&1; rc=$?
        grep -q 'undoes it' "$tmp/cut.out" && advice=$((advice + 1))
        ic rollback >"$tmp/cut.rb" 2>&1; rrc=$?
        cp "$tmp/manifest" "$M"
        if [ $rc -ne 2 ] || [ $rrc -ne 2 ] || ! tree "$root" | cmp -s - "$tmp/installed.tree"; then
                bad=$((bad + 1)); echo "# cut after line $k: install $rc, rollback $rrc"; head -3 "$tmp/cut.out"
        fi
        k=$((k + SWEEP_STEP))
done
check "a manifest cut after each of its $((lines - 1)) first lines: install and rollback refuse it (exit 2), nothing changes$SWEEP_NOTE" test $bad = 0
check "... and install advises no rollback then" test $advice = 0
check "... it says what to do instead" grep -q 'nothing was changed.*rollback refuses the same state' "$tmp/cut.out"
sed 5d "$tmp/manifest" >"$M"
ic --profile powersave install >"$tmp/lost.out" 2>&1; rc=$?
check "a manifest with a line lost in the middle: refused, the end record does not match" sh -c "
        test $rc -eq 2 && grep -q 'manifest:[0-9]*: the end record does not match' '$tmp/lost.out'"

# ---- a manifest naming a file idlecfg does not write ----
cp "$tmp/manifest" "$M"
sha=$(sha256sum <"$root/etc/fstab" | cut -c1-64)
printf 'file /etc/fstab %s 0644 new\n' "$sha" >>"$M"
reseal "$M"
ic --profile powersave install >"$tmp/fstab.out" 2>&1; rc=$?
ic rollback >"$tmp/fstab.rb" 2>&1; rrc=$?
check "a manifest line 'file /etc/fstab': install and rollback refuse it, /etc/fstab stays" sh -c "
        test $rc -eq 2 && test $rrc -eq 2 && test -s '$root/etc/fstab' &&
        grep -q 'manifest:[0-9]*: /etc/fstab is not a file idlecfg writes' '$tmp/fstab.out'"
cp "$tmp/manifest" "$M"

# ---- a damaged backup is never used ----
b=$(awk '$1 == "file" && $2 == "/etc/kernel/cmdline" { print $6 }' "$M")
printf 'evil\n' >"$root/var/lib/idlecfg/backup/$b"
cp "$root/etc/kernel/cmdline" "$tmp/cmdline.installed"
ic --profile powersave install >"$tmp/evil.out" 2>&1; rc=$?
check "a damaged backup of /etc/kernel/cmdline: install refuses it (exit 2), the file is untouched" sh -c "
        test $rc -eq 2 && grep -q 'backup .* is damaged' '$tmp/evil.out' &&
        cmp '$root/etc/kernel/cmdline' '$tmp/cmdline.installed' && ! grep -q evil '$root/etc/kernel/cmdline'"
ic rollback >"$tmp/evil.rb" 2>&1; rc=$?
check "... rollback refuses it too and leaves the file as it is" sh -c "
        test $rc -ne 0 && grep -q 'damaged' '$tmp/evil.rb' && cmp '$root/etc/kernel/cmdline' '$tmp/cmdline.installed'"
reset_root

# ---- a word already on the command line is not appended again ----
ic --profile powersave install >/dev/null 2>&1
rm -rf "$root/var/lib/idlecfg"
ic --profile powersave install >/dev/null 2>&1
words=$(tr ' ' '\n' <"$root/etc/kernel/cmdline" | grep -c .)
uniq=$(tr ' ' '\n' <"$root/etc/kernel/cmdline" | grep . | sort -u | wc -l)
check "install again after /var/lib/idlecfg was deleted: no word twice on /etc/kernel/cmdline ($words words)" \
        sh -c "test $words -gt 3 && test $words = $uniq"
# idlecfg's own files (its header at the top) are not the administrator's
# originals: recorded as new, no backup of them, removed by rollback; its
# words in /etc/kernel/cmdline (the note beside it) taken out (exit 4: the
# boot entries are to be made again)
ic rollback >"$tmp/d6.rb" 2>&1; rc=$?
check "... then rollback removes idlecfg's own files it found there (not kept as originals)" sh -c "
        test $rc -eq 4 && cmp -s '$tmp/orig/etc/kernel/cmdline' '$root/etc/kernel/cmdline' &&
        test ! -e '$root/etc/udev/rules.d/70-idlecfg.rules' &&
        test ! -e '$root/etc/modprobe.d/idlecfg.conf' && test ! -e '$root/etc/sysctl.d/90-idlecfg.conf' &&
        grep -q 'removed .*/etc/udev/rules.d/70-idlecfg.rules' '$tmp/d6.rb'"
reset_root

# ---- refresh after an install killed half-way finishes it ----
ic --profile balanced install >/dev/null 2>&1
cp -a "$root" "$tmp/balanced"
k=1
while [ $k -lt 60 ]; do
        IDLECFG_FAULT=kill:$k ic --profile powersave install >/dev/null 2>&1
        grep -q '^pending ' "$M" && break
        rm -rf "$root" && cp -a "$tmp/balanced" "$root"
        k=$((k + 1))
done
ic refresh >"$tmp/pend.out" 2>&1; rc=$?
ic refresh >"$tmp/pend2.out" 2>&1; rc2=$?
check "refresh after an install killed with a write pending (kill:$k): finishes it, says so; then quiet" sh -c "
        test $k -lt 60 && test $rc -eq 0 && grep -q 'was cut short: it is finished now' '$tmp/pend.out' &&
        ! grep -q '^pending ' '$M' && test $rc2 -eq 0 && test ! -s '$tmp/pend2.out' &&
        test -z \"\$(find '$root' -name '*.idlecfg-new' -o -name '.#*')\""
reset_root

# ---- a manifest of format 1 (before the end record): read, then rewritten ----
ic --profile balanced install >/dev/null 2>&1
sed -e '1s/ 2$/ 1/' -e '/^end /d' -e '/^pending /d' "$M" >"$M.1" && mv "$M.1" "$M"
ic --profile balanced install >"$tmp/v1.out" 2>&1; rc=$?
check "a format 1 manifest: install reads it with a warning and rewrites it as format 2" sh -c "
        test $rc -eq 0 && grep -q 'without an end record' '$tmp/v1.out' &&
        head -1 '$M' | grep -qx 'idlecfg-manifest 2' && tail -1 '$M' | grep -q '^end '"
ic rollback >"$tmp/v1.rb" 2>&1; rc=$?
tree "$root" >"$tmp/v1.tree"
# exit 4: the boot entry still holds balanced's word, kernel-install is named to make it again
# (and kept in the note of what a rollback left, until it ran: said by the next rollback and verify)
check "... and rollback afterwards restores the root exactly (exit 4: the entry still has the word; the note of it aside)" sh -c "
        test $rc -eq 4 && grep -q 'kernel-install add' '$tmp/v1.rb' && test -f '$root/var/lib/idlecfg/left-by-rollback' &&
        grep -v 'var/lib/idlecfg' '$tmp/v1.tree' | cmp - '$tmp/orig.tree'"
reset_root

# ---- the journal of apply: whole, of the registry, the running system's ----
. "$top_srcdir/tests/snap.sh"
snap "$tmp/sys.before"
ic --profile powersave apply >/dev/null 2>&1
snap "$tmp/sys.applied"
n=$(grep -c '^set ' "$J")
head -n $((n / 2 + 2)) "$J" >"$J.cut" && cp "$J" "$tmp/journal" && mv "$J.cut" "$J"
ic rollback apply >"$tmp/jcut.out" 2>&1; rc=$?
snap "$tmp/sys.after-cut"
check "a journal cut after half its $n records: rollback refuses it (exit 2), every value stays, the journal too" sh -c "
        test $rc -eq 2 && cmp -s '$tmp/sys.applied' '$tmp/sys.after-cut' && test -s '$J' &&
        grep -q 'no end record' '$tmp/jcut.out' && grep -q 'leaves every live value as it is' '$tmp/jcut.out'"
cp "$tmp/journal" "$J"
p=$(awk '$1 == "set" && $2 ~ /power\/control$/ { print $2; exit }' "$J")
sed "s|^set $p [^ ]* |set $p garbage;rm\\\\x20-rf |" "$J" >"$J.t" && mv "$J.t" "$J" && reseal "$J"
ic rollback apply >"$tmp/jval.out" 2>&1; rc=$?
snap "$tmp/sys.after-val"
check "a journal value the knob does not take ('garbage;rm -rf'): refused, exit 2, nothing written" sh -c "
        test $rc -eq 2 && grep -q 'refusing a value that' '$tmp/jval.out' && cmp -s '$tmp/sys.applied' '$tmp/sys.after-val'"
cp "$tmp/journal" "$J"
sed '/^end /d' "$J" >"$J.t" && printf 'set /sys/kernel/uevent_helper \\- /tmp/x\n' >>"$J.t" && mv "$J.t" "$J" && reseal "$J"
ic rollback apply >"$tmp/jpath.out" 2>&1; rc=$?
check "a journal path the registry does not declare (/sys/kernel/uevent_helper): refused, exit 2" sh -c "
        test $rc -eq 2 && grep -q 'refusing a path that is no attribute, parameter or sysctl' '$tmp/jpath.out'"
cp "$tmp/journal" "$J"
# another root's journal: never written onto the running system
mkdir -p "$tmp/live/run"
IDLECFG_TEST_LIVE_ROOT=$tmp/live ic rollback >"$tmp/foreign.out" 2>&1; rc=$?
snap "$tmp/sys.after-foreign"
check "rollback --root DIR with DIR's journal: no live value written, exit 1, says so, the journal stays" sh -c "
        test $rc -eq 1 && cmp -s '$tmp/sys.applied' '$tmp/sys.after-foreign' && test -s '$J' &&
        grep -q 'apply.journal left alone: rollback --root rolls back the files installed there' '$tmp/foreign.out'"
ic rollback >"$tmp/own.out" 2>&1; rc=$?
snap "$tmp/sys.after-own"
check "... the running system's own rollback restores every value exactly" sh -c "
        test $rc -eq 0 && cmp -s '$tmp/sys.before' '$tmp/sys.after-own' && test ! -e '$J'"
# apply --root DIR: the journal goes to the running system's root
IDLECFG_TEST_LIVE_ROOT=$tmp/live ic --profile powersave apply >"$tmp/la.out" 2>&1; rc=$?
check "apply --root DIR journals into the running system's /var/lib/idlecfg, not DIR's" sh -c "
        test $rc -eq 0 && test -s '$tmp/live/var/lib/idlecfg/apply.journal' && test ! -e '$J'"
IDLECFG_TEST_LIVE_ROOT=$tmp/live "$IDLECFG" --root "$tmp/live" rollback apply >"$tmp/lr.out" 2>&1; rc=$?
snap "$tmp/sys.after-live"
check "... from where rollback of the running system restores it" sh -c "
        test $rc -eq 0 && cmp -s '$tmp/sys.before' '$tmp/sys.after-live'"
# the journal file itself
IDLECFG_TEST_LIVE_ROOT=$tmp/live ic --profile powersave apply >/dev/null 2>&1
jl=$tmp/live/var/lib/idlecfg/apply.journal
body=$(grep -v '^end ' "$jl" | sha256sum | cut -c1-64)
check "the journal: format 2, its last line the end record with the count and checksum of the lines before" sh -c "
        head -1 '$jl' | grep -qx 'idlecfg-journal 2' &&
        tail -1 '$jl' | grep -qx \"end \$(grep -vc '^end ' '$jl') $body\" && ! ls -a '$tmp/live/var/lib/idlecfg' | grep -q '^\\.#'"
IDLECFG_TEST_LIVE_ROOT=$tmp/live "$IDLECFG" --root "$tmp/live" rollback apply >/dev/null 2>&1
# an apply killed while it wrote its journal: the next apply removes the temporary file
k=1 left=0
while [ $k -lt 8 ] && [ $left = 0 ]; do
        IDLECFG_FAULT=kill:$k ic --profile powersave apply >"$tmp/ak.out" 2>&1
        left=$(find "$root/var/lib/idlecfg" -name '.#*' 2>/dev/null | wc -l)
        k=$((k + 1))
done
ic --profile powersave apply >/dev/null 2>&1; rc=$?
check "an apply killed in its journal's write ($left temporary file left): the next apply removes it, exit 0" sh -c "
        grep -q 'injected kill' '$tmp/ak.out' && test $left -gt 0 && test $rc -eq 0 &&
        test -z \"\$(find '$root/var/lib/idlecfg' -name '.#*')\""
ic rollback >/dev/null 2>&1

# the manifest is read once a run (src/cli/run.c run_manifest()): plan,
# verify (the installed profile, own words, the comparison, the boot steps,
# what a rollback left), apply and its status file (install's own reads
# are install_run()'s and its checks', not yet one)
ic --profile powersave install >/dev/null 2>&1
reads() {
        _name=$1
        shift
        : >"$tmp/reads.$_name"
        IDLECFG_TRACE_READS=$tmp/reads.$_name ic "$@" >/dev/null 2>&1
        echo "$_name $(grep -c '^read /var/lib/idlecfg/manifest$' "$tmp/reads.$_name")"
}
{ reads plan plan; reads verify verify; reads json verify --json; reads nagios verify --nagios
  reads prom verify --format=prometheus; reads apply apply; } >"$tmp/reads"
check "plan, verify (text, JSON, Nagios, Prometheus) and apply with its status file read the manifest once" \
        sh -c "test \$(grep -c ' 1\$' '$tmp/reads') -eq 6"; last_failed && diag "$(cat "$tmp/reads")"
ic rollback >/dev/null 2>&1

# a manifest refused (here a line only a damaged file has) is said by the verbs
# that plan without reading it for themselves, with file:line, not passed over
ic --profile powersave install >/dev/null 2>&1
cp "$root/var/lib/idlecfg/manifest" "$tmp/manifest.good"
sed -i '/^end /i dropped-words "x=1"' "$root/var/lib/idlecfg/manifest"
ic plan >"$tmp/bm.out" 2>"$tmp/bm.err"; rc=$?
ic --profile powersave install >/dev/null 2>"$tmp/bm.inst"; rc2=$?
check "plan with a refused manifest: a warning naming file:line and what the plan then assumes (exit $rc); install refuses it, said once" sh -c "
        test $rc -eq 0 && grep -q '^idlecfg: warning: .*/var/lib/idlecfg/manifest:[0-9]*: .*the plan takes the words an install added' '$tmp/bm.err' &&
        test $rc2 -ne 0 && test \$(grep -c 'manifest:[0-9]*:' '$tmp/bm.inst') -eq 1"
last_failed && diag "$(cat "$tmp/bm.err" "$tmp/bm.inst")"
cp "$tmp/manifest.good" "$root/var/lib/idlecfg/manifest"
ic rollback >/dev/null 2>&1
done_testing
