#!/bin/sh
# tests/merge-reports.sh: hwdb/merge-reports on a set of reports made from a
# real `idlecfg report` of a recorded laptop: one device that must get an
# allow (three installations measured it suspending, no symptom), one a deny
# (a symptom), one a conflict (both: no entry), one with too few
# installations (no entry); the output passes systemd-hwdb --strict, and the
# plan cites the merged entries like any other; bad input writes nothing.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod python3
PATH=$PATH:/sbin:/usr/sbin
plan 9

m=$TESTS_DATA/machines/intel-laptop
root=$tmp/root
mkroot_installed "$m" "$root" || { echo "Bail out! no root"; exit 1; }
echo 0123456789abcdef0123456789abcdef >"$root/etc/machine-id"
merge=$top_srcdir/hwdb/merge-reports
run_machine "$m" "$IDLECFG" --root "$root" --kernel "$KVER" report --seconds 1 >"$tmp/base.json" 2>"$tmp/base.err" ||
        { cat "$tmp/base.err"; echo "Bail out! report failed"; exit 1; }

# the reports: four installations' measurements and one owner's symptoms,
# on four PCI devices the plan turns runtime PM on for
python3 - "$tmp/base.json" "$tmp" <<'PY' >"$tmp/devices" || { echo "Bail out! no reports"; exit 1; }
import copy, json, sys
base = json.load(open(sys.argv[1]))
on = [s["device"] for s in base["settings"] if s["knob"] == "pci.runtime_pm" and s["value"] == "auto"]
assert len(on) >= 4, on
allow, deny, conflict, few = on[:4]
def report(name, key, suspended, symptoms=()):
    r = copy.deepcopy(base)
    r["install_key"] = key
    r["symptoms"] = [{"device": d, "text": t} for d, t in symptoms]
    for x in r["measurement"]["devices"]:
        if x["name"] in suspended:
            x["suspended_ms"], x["active_ms"] = suspended[x["name"]], 1000 - suspended[x["name"]]
        elif x["suspended_ms"] is not None:
            x["suspended_ms"], x["active_ms"] = 0, 1000
    json.dump(r, open("%s/%s.json" % (sys.argv[2], name), "w"), indent=1)
report("a1", "a1" * 16, {allow: 600, conflict: 500, few: 700})
report("a1b", "a1" * 16, {allow: 650, few: 720})
report("a2", "b2" * 16, {allow: 820, conflict: 400})
report("a3", "c3" * 16, {allow: 910})
report("s1", "d4" * 16, {}, [(deny, "the system hangs on resume"), (conflict, "audio crackles")])
print(allow, deny, conflict, few)
PY
read -r allow deny conflict few <"$tmp/devices"
key() { python3 -c "
import json, sys
d = [x for x in json.load(open('$tmp/base.json'))['devices'] if x['name'] == sys.argv[1]][0]
print('pci:v%08Xd%08X*' % (int(d['ids']['vendor'], 16), int(d['ids']['device'], 16)))" "$1"; }
k_allow=$(key "$allow") k_deny=$(key "$deny") k_conflict=$(key "$conflict") k_few=$(key "$few")
diag "allow $allow $k_allow, deny $deny $k_deny, conflict $conflict $k_conflict, few $few $k_few"

out=$tmp/60-idlecfg-reports.hwdb
python3 "$merge" --out "$out" "$tmp"/a1.json "$tmp"/a1b.json "$tmp"/a2.json "$tmp"/a3.json "$tmp"/s1.json \
        >"$tmp/summary" 2>&1
check "merge-reports: an allow from three installations' measurements, with the gain and the keys" sh -c "
        grep -A2 -xF '$k_allow' '$out' | grep -qx ' IDLECFG_PCI_RUNTIME_PM=allow' &&
        grep -B3 -xF '$k_allow' '$out' | grep -qF 'source: idlecfg reports (hwdb/merge-reports): 4 report(s) from 3 installation(s) (keys a1a1a1a1, b2b2b2b2, c3c3c3c3), kernels $KVER' &&
        grep -B3 -xF '$k_allow' '$out' | grep -q 'why: runtime-suspended 60-91 percent'" 
last_failed && diag "$(cat "$out" "$tmp/summary")"
check "merge-reports: a deny from one report's symptom, with its text as the reason" sh -c "
        grep -A2 -xF '$k_deny' '$out' | grep -qx ' IDLECFG_PCI_RUNTIME_PM=deny' &&
        grep -A2 -xF '$k_deny' '$out' | grep -qx ' IDLECFG_PCI_RUNTIME_PM_REASON=idlecfg report: the system hangs on resume'"
check "merge-reports: evidence both ways is a conflict: no entry, and the summary says why" sh -c "
        ! grep -qxF '$k_conflict' '$out' &&
        grep -qF 'pci.runtime_pm $k_conflict: conflict, no entry: 2 report(s) measured it suspending without a symptom, 1 report(s) give a symptom (audio crackles)' '$tmp/summary'"
check "merge-reports: two reports of one installation are one: no allow" sh -c "
        ! grep -qxF '$k_few' '$out' && grep -qF '$k_few: no entry: suspending without a symptom on 1 installation(s), an allow needs 3' '$tmp/summary'"
check "merge-reports: exactly the allow and the deny, written" sh -c "
        [ \$(grep -c '^pci:' '$out') -eq 2 ] && grep -q '^2 entries written to' '$tmp/summary'"

# the output as systemd and the project's own checks read it
if command -v systemd-hwdb >/dev/null 2>&1; then
        mkdir -p "$tmp/hwroot/etc/udev/hwdb.d"
        cp "$out" "$tmp/hwroot/etc/udev/hwdb.d/"
        check "systemd-hwdb --strict compiles the merged entries" systemd-hwdb --strict --root "$tmp/hwroot" update
else
        skip "systemd-hwdb --strict compiles the merged entries" "systemd-hwdb not installed"
fi

# the plan cites them: the denied device keeps runtime PM off, naming the file and line
cp "$out" "$root/etc/udev/hwdb.d/" 2>/dev/null || { mkdir -p "$root/etc/udev/hwdb.d" && cp "$out" "$root/etc/udev/hwdb.d/"; }
line=$(grep -n -x " IDLECFG_PCI_RUNTIME_PM=deny" "$out" | cut -d: -f1)
run_machine "$m" "$IDLECFG" --root "$root" --kernel "$KVER" plan --json >"$tmp/plan.json" 2>"$tmp/plan.err"
check "plan: the merged deny keeps $deny's runtime PM off and cites 60-idlecfg-reports.hwdb" python3 -c "
import json
p = json.load(open('$tmp/plan.json'))
s = [x for x in p['settings'] if x['knob'] == 'pci.runtime_pm' and x['device'] == '$deny']
assert s, 'no pci.runtime_pm entry for $deny'
assert all(x['value'] in (None, 'on') for x in s), s
assert any('60-idlecfg-reports.hwdb:%s' % '$line' in (x['reason'] or '') and 'the system hangs on resume' in x['reason'] for x in s), s"
last_failed && diag "$(grep -n "$deny" "$tmp/plan.json" | head -5)"

# bad input: the file and line named, nothing written, the old output kept
printf '{\n "schema": "idlecfg-report/1",\n "devices": [,\n' >"$tmp/broken.json"
cp "$out" "$tmp/kept"
python3 "$merge" --out "$out" "$tmp/a1.json" "$tmp/broken.json" >"$tmp/bad.out" 2>"$tmp/bad.err"
rc=$?
check "merge-reports with a malformed report: exit 2, FILE:LINE named, the output left as it was" sh -c "
        [ $rc -eq 2 ] && grep -q 'broken.json:3: not JSON' '$tmp/bad.err' && cmp -s '$out' '$tmp/kept' &&
        ! ls -a '$tmp' | grep -q '^.merge-reports'"
echo '{"schema": "idlecfg-plan/1"}' >"$tmp/notreport.json"
python3 "$merge" --out "$tmp/x.hwdb" "$tmp/notreport.json" >/dev/null 2>"$tmp/nr.err"
rc=$?
check "merge-reports with a file that is not a report: exit 2, said, nothing written" sh -c "
        [ $rc -eq 2 ] && grep -q 'notreport.json:1: not an idlecfg report' '$tmp/nr.err' && ! [ -e '$tmp/x.hwdb' ]"
done_testing
