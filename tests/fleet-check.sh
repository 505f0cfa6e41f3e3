#!/bin/sh
# tests/fleet-check.sh: one meaning of "would change" for configuration
# management, and verify --nagios as a monitoring plugin (#34), under a
# recorded machine and a temporary root whose boot configuration lacks a
# step after install (/etc/kernel/cmdline: kernel-install): install --check
# (text, --json) and --format=salt count the pending step as work to do;
# --nagios prints one status line on every run, usage errors included
# (UNKNOWN, 3, the reason in the line), shows the pending step, takes -w/-c
# ranges and -t, and stays untranslated whatever the language.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod python3 "${CC:-cc}"
. "$top_srcdir/tests/fleet-lib.sh"
plan 21

root=$tmp/root
fleet_root "$root" || { echo "Bail out! no root"; exit 1; }
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
salt() { python3 "$top_srcdir/tests/salt-state.py" "$1"; }
nagios() { ic verify --nagios "$@" 2>"$tmp/nagios.err"; }

# ---- a boot step pending: work to do for --check, Salt and the module ----
ic install --profile powersave >"$tmp/i1" 2>&1; rc=$?
check "install with /etc/kernel/cmdline: exit 4, kernel-install named" sh -c "
        test $rc -eq 4 && grep -q 'kernel-install add $KVER' '$tmp/i1'"
ic install --check --profile powersave >"$tmp/c1" 2>&1; rc=$?
check "install --check then: exit 4 as install, no file would change, the step named" sh -c "
        test $rc -eq 4 && grep -q '^No file would change in $root, but its boot configuration still lacks' '$tmp/c1' &&
        grep -q 'kernel-install add $KVER' '$tmp/c1' && ! grep -q '^Nothing would change' '$tmp/c1'"; last_failed && diag "exit $rc" "$(cat "$tmp/c1")"
ic install --check --json --profile powersave >"$tmp/c2.json" 2>/dev/null; rc=$?
check "install --check --json: exit 4 too, changed false, boot_incomplete true, the step's argv" sh -c "
        test $rc -eq 4 && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d[\"changed\"] is False and d[\"boot_incomplete\"] is True, d
assert any(s[\"boot\"] and s[\"argv\"] and \"kernel-install\" in s[\"argv\"] for s in d[\"next_steps\"]), d[\"next_steps\"]
' '$tmp/c2.json'"; last_failed && diag "exit $rc"
ic install --check --format salt --profile powersave >"$tmp/s1" 2>&1; rc=$?
salt "$tmp/s1" >"$tmp/s1.parsed" 2>&1
check "install --check --format salt: exit 0, Salt reads changed, boot_step_pending=yes, the step's id" sh -c "
        test $rc -eq 0 && grep -qx 'changed idlecfg: no file would change; the boot configuration still lacks a step: kernel-install' '$tmp/s1.parsed' &&
        grep -qx 'boot_step_pending=yes' '$tmp/s1.parsed'"; last_failed && diag "exit $rc" "$(cat "$tmp/s1" "$tmp/s1.parsed")"
ic install --format salt --profile powersave >"$tmp/s2" 2>&1; rc=$?
salt "$tmp/s2" >"$tmp/s2.parsed" 2>&1
check "install --format salt (a run): exit 0, Salt reads changed as for the check, boot_step_pending=yes" sh -c "
        test $rc -eq 0 && grep -q '^changed idlecfg: no file changed; the boot configuration still lacks a step: kernel-install' '$tmp/s2.parsed' &&
        grep -qx 'boot_step_pending=yes' '$tmp/s2.parsed'"; last_failed && diag "exit $rc" "$(cat "$tmp/s2.parsed")"
nagios >"$tmp/n1"; rc=$?
check "verify --nagios: WARNING, the pending step in the status and as perfdata pending=1" sh -c "
        test $rc -eq 1 && test \$(wc -l <'$tmp/n1') -eq 1 &&
        grep -q '^IDLECFG WARNING - profile powersave (installed, from the manifest): .*, 1 boot step pending (kernel-install), ' '$tmp/n1' &&
        grep -q ' pending=1;;;0; ' '$tmp/n1'"; last_failed && diag "exit $rc" "$(cat "$tmp/n1")"

# ---- the step done: nothing to do ----
"$tmp/fakebin/chroot" "$root" kernel-install add "$KVER" "/boot/vmlinuz-$KVER"
ic install --check --profile powersave >"$tmp/c3" 2>&1; rc=$?
check "the boot entry made: install --check exits 0, nothing would change" sh -c "
        test $rc -eq 0 && grep -q '^Nothing would change in ' '$tmp/c3'"; last_failed && diag "exit $rc" "$(cat "$tmp/c3")"
ic install --check --format salt --profile powersave >"$tmp/s3" 2>&1
salt "$tmp/s3" >"$tmp/s3.parsed" 2>&1
ic install --check --json --profile powersave >"$tmp/c4.json" 2>/dev/null; rc=$?
check "  Salt reads unchanged and boot_step_pending=no; --json exit 0, boot_incomplete false" sh -c "
        grep -q '^unchanged ' '$tmp/s3.parsed' && grep -qx 'boot_step_pending=no' '$tmp/s3.parsed' && test $rc -eq 0 &&
        python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert not d[\"boot_incomplete\"] and not d[\"changed\"]' '$tmp/c4.json'" 
        last_failed && diag "$(cat "$tmp/s3.parsed")"

# ---- Nagios: thresholds ----
nagios >"$tmp/n2"; rc=$?
drift=$(sed -n 's/.* drift=\([0-9]*\);.*/\1/p' "$tmp/n2")
blockers=$(sed -n 's/.* blockers=\([0-9]*\);.*/\1/p' "$tmp/n2")
diag "$(cat "$tmp/n2")"
check "no pending step, drift: WARNING by the default threshold (drift 0), pending=0, drift=N;0;" sh -c "
        test $rc -eq 1 && test '${drift:-0}' -gt 0 && grep -q ' pending=0;;;0; ' '$tmp/n2' && grep -q ' drift=$drift;0;;0;' '$tmp/n2' &&
        ! grep -q 'boot step' '$tmp/n2'"
nagios -w 100 >"$tmp/n3"; rc=$?
check "-w 100: OK, the range in the perfdata of drift and missing" sh -c "
        test $rc -eq 0 && grep -q '^IDLECFG OK - ' '$tmp/n3' && grep -q ' drift=$drift;100;;0;' '$tmp/n3' && grep -q ' missing=0;100;;0;' '$tmp/n3'" 
        last_failed && diag "exit $rc" "$(cat "$tmp/n3")"
nagios -w 100 -c "$((drift - 1))" >"$tmp/n4"; rc=$?
check "-c $((drift - 1)) with $drift drifting: CRITICAL" sh -c "test $rc -eq 2 && grep -q '^IDLECFG CRITICAL - ' '$tmp/n4'" 
        last_failed && diag "exit $rc" "$(cat "$tmp/n4")"
nagios -w "100,$((blockers - 1))" >"$tmp/n5"; rc=$?
nagios --warning="100,@0:$((blockers - 1))" >"$tmp/n6"; rc6=$?
check "-w 100,$((blockers - 1)) with $blockers idle blockers: WARNING, blockers=$blockers;$((blockers - 1)); inside a range (@): OK" sh -c "
        test $rc -eq 1 && grep -q ' blockers=$blockers;$((blockers - 1));;0;' '$tmp/n5' && test $rc6 -eq 0" 
        last_failed && diag "exit $rc $rc6" "$(cat "$tmp/n5" "$tmp/n6")"
nagios -w 5:1 >"$tmp/n7"; rc=$?
check "a range that is none (-w 5:1): UNKNOWN (3), one line with the reason" sh -c "
        test $rc -eq 3 && test \$(wc -l <'$tmp/n7') -eq 1 && grep -q \"^IDLECFG UNKNOWN - --warning '5:1': not DRIFT\" '$tmp/n7'" 
        last_failed && diag "exit $rc" "$(cat "$tmp/n7")"
ic verify -w 3 >/dev/null 2>"$tmp/e8"; rc=$?
check "-w without --nagios: a usage error (2)" sh -c "test $rc -eq 2 && grep -q 'go with --nagios' '$tmp/e8'"

# ---- Nagios: every run one line, usage errors UNKNOWN with the reason ----
nagios --bogus >"$tmp/u1"; rc=$?
check "a bad option: UNKNOWN (3), one line with the reason on stdout (and stderr as ever)" sh -c "
        test $rc -eq 3 && test \$(wc -l <'$tmp/u1') -eq 1 && grep -qx \"IDLECFG UNKNOWN - unknown option '--bogus'\" '$tmp/u1' &&
        grep -q 'unknown option' '$tmp/nagios.err'"; last_failed && diag "exit $rc" "$(cat "$tmp/u1")"
"$IDLECFG" --root "$tmp/no-such-root" verify --nagios >"$tmp/u2" 2>/dev/null; rc=$?
check "a root that does not exist: UNKNOWN (3), the reason in the line" sh -c "
        test $rc -eq 3 && grep -qx 'IDLECFG UNKNOWN - --root $tmp/no-such-root: no such directory' '$tmp/u2'"; last_failed && diag "exit $rc" "$(cat "$tmp/u2")"
"$IDLECFG" --root "$root" --nag verify --json >"$tmp/u3" 2>/dev/null; rc=$?
check "--nag (getopt's abbreviation) with --json: UNKNOWN (3), the reason in the line" sh -c "
        test $rc -eq 3 && grep -q '^IDLECFG UNKNOWN - --nagios prints the plugin' '$tmp/u3' && test \$(wc -l <'$tmp/u3') -eq 1" 
        last_failed && diag "exit $rc" "$(cat "$tmp/u3")"
nagios -t 0 >"$tmp/u4"; rc=$?
check "-t 0: UNKNOWN (3), the reason in the line" sh -c "
        test $rc -eq 3 && grep -q \"^IDLECFG UNKNOWN - --timeout takes seconds from 1 to 3600, not '0'\" '$tmp/u4'"; last_failed && diag "exit $rc" "$(cat "$tmp/u4")"
nagios --version >"$tmp/u5"; rc=$?
check "--version: one line, the version, exit 0 (no UNKNOWN line after it)" sh -c "
        test $rc -eq 0 && test \$(wc -l <'$tmp/u5') -eq 1 && grep -q '^idlecfg ' '$tmp/u5'"; last_failed && diag "exit $rc" "$(cat "$tmp/u5")"

# ---- -t: a read of /sys that hangs ----
if ${CC:-cc} -shared -fPIC -o "$tmp/slow-open.so" "$top_srcdir/tests/slow-open.c" -ldl >"$tmp/cc.log" 2>&1; then
        start=$(date +%s)
        LD_PRELOAD="$tmp/slow-open.so${LD_PRELOAD:+ $LD_PRELOAD}" IDLECFG_SLOW_OPEN=/power/control \
                "$IDLECFG" --root "$root" --kernel "$KVER" verify --nagios -t 1 >"$tmp/t1" 2>/dev/null; rc=$?
        took=$(($(date +%s) - start))
        check "-t 1 with a /sys read that hangs: UNKNOWN (3) after 1 s (took ${took} s), one line" sh -c "
                test $rc -eq 3 && test $took -lt 10 && test \"\$(cat '$tmp/t1')\" = 'IDLECFG UNKNOWN - verify timed out after 1 s (--timeout)'" 
                last_failed && diag "exit $rc" "$(cat "$tmp/t1")"
else
        skip "-t 1 with a /sys read that hangs" "cannot build the preload library: $(head -1 "$tmp/cc.log")"
fi

# ---- the plugin is never translated; numbers in the C locale ----
if command -v msgfmt >/dev/null 2>&1 && locale -a 2>/dev/null | grep -qi '^C\.utf-\{0,1\}8$'; then
        mkdir -p "$tmp/locale/de/LC_MESSAGES"
        msgfmt -o "$tmp/locale/de/LC_MESSAGES/idlecfg.mo" "$top_srcdir/po/de.po"
        de() { IDLECFG_LOCALEDIR=$tmp/locale LC_ALL= LANG=C.UTF-8 LC_MESSAGES=C.UTF-8 LC_NUMERIC=de_DE.UTF-8 LANGUAGE=de "$@"; }
        de ic verify --nagios >"$tmp/l1" 2>/dev/null
        de ic verify --nagios --bogus >"$tmp/l2" 2>/dev/null
        de ic verify >"$tmp/l3" 2>/dev/null
        check "under LANGUAGE=de (LC_NUMERIC=de_DE): the status line and perfdata as untranslated, the UNKNOWN reason in English" sh -c "
                cmp -s '$tmp/l1' '$tmp/n2' && grep -qx \"IDLECFG UNKNOWN - unknown option '--bogus'\" '$tmp/l2' &&
                grep -q '^Einstellungen von Profil' '$tmp/l3'"; last_failed && diag "$(cat "$tmp/l1" "$tmp/l2")" "$(head -1 "$tmp/l3")"
else
        skip "the plugin untranslated under LANGUAGE=de" "msgfmt or the C.UTF-8 locale missing"
fi
done_testing
