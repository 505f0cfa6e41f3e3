#!/bin/sh
# tests/steps.sh: a boot step done by hand (#44): "idlecfg steps" lists the
# boot steps left; "steps done ID" records one as done, so that verify (its
# exit status, --nagios, --json), install --check (text, Salt) and the
# status file stop reporting it, short of rebooting into it; a new install
# that changes the boot files asks again; an ID that is no pending step is
# a usage error naming it; words for a boot loader idlecfg does not read
# (cmdline-words) acknowledged with "all"; rollback takes the record away.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod python3
. "$top_srcdir/tests/fleet-lib.sh"
plan 12

root=$tmp/root
fleet_root "$root" || { echo "Bail out! no root"; exit 1; }
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
st() { "$IDLECFG" --root "$root" steps "$@"; }
salt() { python3 "$top_srcdir/tests/salt-state.py" "$1"; }

ic install --profile powersave >"$tmp/i1" 2>&1
st >"$tmp/l1" 2>&1; rc=$?
ic verify --nagios -w 100 >"$tmp/n1" 2>&1; nrc=$?
check "a boot step pending: steps lists kernel-install, exit 4; verify --nagios -w 100 WARNING with it [$nrc: $(cat "$tmp/n1")]" sh -c "
        test $rc -eq 4 && grep -q '^  \* chroot .* kernel-install add $KVER' '$tmp/l1' && test $nrc -eq 1 &&
        grep -q '1 boot step pending (kernel-install)' '$tmp/n1'"; last_failed && diag "exit $rc" "$(cat "$tmp/l1")"

st done kernel-instal >"$tmp/b1" 2>"$tmp/b1.err"; rc=$?
check "steps done with an ID that is no pending step: usage error (2) naming it and the pending ones, nothing recorded" sh -c "
        test $rc -eq 2 && grep -qx 'idlecfg: steps done: no boot step \"kernel-instal\" is pending here (pending: kernel-install)' '$tmp/b1.err' &&
        ! test -e '$root/var/lib/idlecfg/steps-done'"; last_failed && diag "exit $rc" "$(cat "$tmp/b1.err")"
st finished >/dev/null 2>"$tmp/b2.err"; rc=$?
st done >/dev/null 2>"$tmp/b3.err"; rc3=$?
st done all update-grub >/dev/null 2>"$tmp/b4.err"; rc4=$?
check "steps with another word, done without an ID, all beside an ID: usage errors (2) [$rc $rc3 $rc4]" sh -c "
        test $rc -eq 2 && test $rc3 -eq 2 && test $rc4 -eq 2 && grep -q \"not 'finished'\" '$tmp/b2.err' &&
        grep -q 'which step' '$tmp/b3.err' && grep -q 'all stands alone' '$tmp/b4.err'"

st done kernel-install >"$tmp/d1" 2>&1; rc=$?
check "steps done kernel-install: exit 0, recorded with its digest and time, listed as acknowledged by hand" sh -c "
        test $rc -eq 0 && grep -qx 'No boot step is pending.' '$tmp/d1' &&
        grep -q '^    kernel-install: chroot .* kernel-install add $KVER' '$tmp/d1' && grep -q '(acknowledged by hand on ' '$tmp/d1' &&
        grep -q '^done kernel-install [0-9a-f]\{64\} [0-9]*\$' '$root/var/lib/idlecfg/steps-done'"; last_failed && diag "exit $rc" "$(cat "$tmp/d1")"

ic verify --nagios -w 100 >"$tmp/n2" 2>&1; nrc=$?
ic verify --json >"$tmp/v2.json" 2>/dev/null; vrc=$?
check "then verify --nagios -w 100: OK, pending=0; verify --json: boot_incomplete false, the step in steps_done_by_hand, exit not 4 [$nrc $vrc: $(cat "$tmp/n2")]" sh -c "
        test $nrc -eq 0 && grep -q '^IDLECFG OK - ' '$tmp/n2' && grep -q ' pending=0;;;0; ' '$tmp/n2' && test $vrc -ne 4 &&
        python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d[\"boot_incomplete\"] is False and not any(s[\"boot\"] for s in d[\"next_steps\"]), d[\"next_steps\"]
a = d[\"steps_done_by_hand\"]
assert [s[\"id\"] for s in a] == [\"kernel-install\"] and a[0][\"acknowledged\"] > 0 and not a[0][\"boot\"], a
' '$tmp/v2.json'"
ic install --check --profile powersave >"$tmp/c2" 2>&1; rc=$?
ic install --check --format salt --profile powersave >"$tmp/s2" 2>&1
salt "$tmp/s2" >"$tmp/s2.parsed" 2>&1
check "install --check: exit 0, nothing would change; Salt: unchanged, boot_step_pending=no [$rc]" sh -c "
        test $rc -eq 0 && grep -q '^Nothing would change in ' '$tmp/c2' &&
        grep -q '^unchanged ' '$tmp/s2.parsed' && grep -qx 'boot_step_pending=no' '$tmp/s2.parsed'"; last_failed && diag "$(cat "$tmp/c2" "$tmp/s2.parsed")"
check "the status file (facts, fleet agents): boot_step_pending false after steps done" \
        grep -q '"boot_step_pending": false' "$root/var/lib/idlecfg/status.json"

# the content changes: another profile's words in /etc/kernel/cmdline
ic install --profile balanced >"$tmp/i2" 2>&1; rc=$?
ic verify --nagios -w 100 >"$tmp/n3" 2>&1; nrc=$?
st >"$tmp/l3" 2>&1; lrc=$?
check "a new install that changes the boot files (balanced): pending again, install exit 4, Nagios WARNING, steps exit 4 [$rc $nrc $lrc]" sh -c "
        test $rc -eq 4 && test $nrc -eq 1 && grep -q '1 boot step pending (kernel-install)' '$tmp/n3' && test $lrc -eq 4 &&
        ! grep -q 'acknowledged by hand' '$tmp/l3'"; last_failed && diag "$(cat "$tmp/l3" "$tmp/n3")"

# words for a boot loader idlecfg does not read: the step by hand, "all"
ic rollback >/dev/null 2>&1
rm -f "$root/etc/kernel/cmdline"
ic install --profile powersave >"$tmp/i4" 2>&1; rc=$?
st --json >"$tmp/l4.json" 2>&1; lrc=$?
check "no boot loader idlecfg reads: install exit 4, steps --json names cmdline-words with its words [$rc $lrc]" sh -c "
        test $rc -eq 4 && test $lrc -eq 4 && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = {x[\"id\"]: x for x in d[\"next_steps\"]}
assert s[\"cmdline-words\"][\"boot\"] and s[\"cmdline-words\"][\"words\"] == [\"pcie_aspm.policy=powersupersave\"], s
' '$tmp/l4.json'"
# steps done all killed at each of its fault points (steps-done's write, the
# status file's): steps-done old (none) or new (whole), never cut; then
# steps done all again: exit 0, steps-done whole, no temporary file left
cp -a "$root" "$tmp/pending"
st done all >/dev/null 2>&1
sed 's/ [0-9]*$//' "$root/var/lib/idlecfg/steps-done" >"$tmp/sd.new"
kill_sweep() {
        n=$((1 - SWEEP_STEP)) hit=0 bad=0
        while [ $n -lt 100 ]; do
                n=$((n + SWEEP_STEP))
                rm -rf "$root" && cp -a "$tmp/pending" "$root"
                IDLECFG_FAULT=kill:$n st done all >"$tmp/k.out" 2>&1
                grep -q 'injected kill' "$tmp/k.out" || break
                hit=$((hit + 1))
                sd=$root/var/lib/idlecfg/steps-done
                if [ -e "$sd" ] && ! sed 's/ [0-9]*$//' "$sd" | cmp -s - "$tmp/sd.new"; then
                        bad=$((bad + 1)); echo "kill:$n: steps-done neither old nor new: $(cat "$sd")"
                fi
                st done all >"$tmp/k.again" 2>&1 || { bad=$((bad + 1)); echo "kill:$n: steps done all again: $(cat "$tmp/k.again")"; }
                sed 's/ [0-9]*$//' "$sd" 2>/dev/null | cmp -s - "$tmp/sd.new" ||
                        { bad=$((bad + 1)); echo "kill:$n: then steps-done not whole"; }
                left=$(find "$root/var/lib/idlecfg" -name '.#*')
                [ -z "$left" ] || { bad=$((bad + 1)); echo "kill:$n: left $left"; }
        done
        echo "$hit $bad"
}
kill_sweep >"$tmp/sweep.log" 2>&1
set -- $(tail -n 1 "$tmp/sweep.log")
check "steps done all killed at each of its ${1:-?} fault points: steps-done old or new, never cut; steps done all again: exit 0, no temporary file$SWEEP_NOTE" \
        sh -c "test '${2:-x}' = 0 && test ${1:-0} -ge $(sweep_share 4)"; last_failed && diag "$(head -20 "$tmp/sweep.log")"
rm -rf "$root" && cp -a "$tmp/pending" "$root"
st done all >"$tmp/d4" 2>&1; rc=$?
ic verify --nagios -w 100 >"$tmp/n4" 2>&1; nrc=$?
check "the words added to that boot loader by hand, steps done all: exit 0, Nagios OK [$rc $nrc: $(cat "$tmp/n4")]" sh -c "
        test $rc -eq 0 && grep -q '^    cmdline-words: pcie_aspm.policy=powersupersave' '$tmp/d4' && test $nrc -eq 0 &&
        grep -q ' pending=0;;;0; ' '$tmp/n4'"; last_failed && diag "$(cat "$tmp/d4")"
ic rollback >"$tmp/r5" 2>&1; rc=$?
check "rollback: the record goes with the rest of idlecfg's state [$rc]" sh -c "
        ! test -e '$root/var/lib/idlecfg/steps-done' && ! test -e '$root/var/lib/idlecfg'"; last_failed && diag "$(cat "$tmp/r5")"
done_testing
