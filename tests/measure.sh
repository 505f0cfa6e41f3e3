#!/bin/sh
# tests/measure.sh: idlecfg measure, apply --measure and rollback --measure on a
# recorded machine under umockdev. tests/measure-sim.py plays the kernel: the
# tool's clock is driven by the test (IDLECFG_TEST_CLOCK), and while the tool
# waits the counters move (runtime PM times, cpuidle, residency, a RAPL counter
# that wraps, interrupts in a /proc of the test's own, wakeup sources).
. "$top_srcdir/tests/lib.sh"
# (runs without ../shared: systemd's autosuspend lists, where the points need them, are those tests/lib.sh finds)
need umockdev-run depmod python3 "${CC:-cc}"
PATH=$PATH:/sbin:/usr/sbin
plan 46

m=intel-laptop
root=$tmp/root
mkroot_installed "$TESTS_DATA/machines/$m" "$root" || { echo "Bail out! no root for $m"; exit 1; }
mkdir -p "$root/run" "$root/var/lib"

# Inside the testbed: the simulator, and drive MODE...: answer the tool's
# waits one by one (keep: the state stays; kernel: devices go where runtime
# PM takes them), then wait for the tool.
cat >"$tmp/inner.sh" <<'SH'
export PROCDIR=$IDLECFG_TEST_PROC
sim() { python3 "$SIM" "$@"; }
ic() { "$IDLECFG" --root "$ROOT" --kernel "$KVER" --profile powersave "$@"; }
drive() {
        pid=$1
        shift
        for mode in "$@"; do
                i=0
                while [ ! -e "$IDLECFG_TEST_CLOCK/waiting" ]; do
                        i=$((i + 1))
                        [ $i -lt 1200 ] && kill -0 "$pid" 2>/dev/null || { echo "drive: no wait for $mode" >&2; return 1; }
                        sleep 0.05
                done
                read -r seq ms <"$IDLECFG_TEST_CLOCK/waiting"
                echo "$seq $ms" >>"$OUT.waits"
                [ "$mode" = none ] || sim "$mode" "$ms"
                rm "$IDLECFG_TEST_CLOCK/waiting"
        done
        wait "$pid"
}
snap() { (cd "$UMOCKDEV_DIR/sys" && find . -type f -exec sha256sum {} + | sort -k2) >"$1"; }
sim init
SH

# run SCRIPT with OUT: a fresh clock and /proc each time
run() {
        out=$1
        shift
        rm -rf "$tmp/clock" "$tmp/proc"
        mkdir -p "$tmp/clock" "$tmp/proc"
        : >"$out.waits"
        IDLECFG_TEST_CLOCK=$tmp/clock IDLECFG_TEST_PROC=$tmp/proc SIM=$top_srcdir/tests/measure-sim.py \
        INNER=$tmp/inner.sh ROOT=$root OUT=$out KVER=$KVER \
                run_machine "$TESTS_DATA/machines/$m" sh -c ". \"\$INNER\"; $*" >"$out.log" 2>&1
}
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
dev() { echo "[x for x in d['devices'] if x['device']=='$1'][0]"; }

# ---- measure: counters that move while the tool waits ----
run "$tmp/m" 'ic measure --json >"$OUT.json" 2>"$OUT.err" & drive $! keep; echo $? >"$OUT.rc"'
check "measure --json: exit 0, valid JSON, one wait of the default 20 s" sh -c "
        test \$(cat '$tmp/m.rc') = 0 && python3 -m json.tool '$tmp/m.json' >/dev/null && grep -qx '1 20000' '$tmp/m.waits'"
check "... the interval is the test clock's 20 s; schema 1; the profile" j "$tmp/m.json" \
        "d['schema'] == 1 and d['interval_us'] == 20000000 and d['profile'] == 'powersave'"
check "... a device suspended the whole time: 100 % from the runtime_suspended_time delta" j "$tmp/m.json" \
        "$(dev 0000:00:07.0)['suspended_percent'] == 100 and $(dev 0000:00:07.0)['suspended_ms'] == 20000 and not $(dev 0000:00:07.0)['awake']"
check "... a PCI device with runtime PM off: knob-off, knob and planned value named" j "$tmp/m.json" \
        "$(dev 0000:00:00.0)['why'] == 'knob-off' and $(dev 0000:00:00.0)['knob'] == 'pci.runtime_pm' and $(dev 0000:00:00.0)['planned'] == 'auto' and $(dev 0000:00:00.0)['suspended_percent'] == 0"
check "... the HID mouse is on on purpose, with the plan's reason" j "$tmp/m.json" \
        "$(dev 1-4)['why'] == 'on-purpose' and 'HID' in $(dev 1-4)['reason']"
check "... a chain: the USB controller is kept awake by usb1, whose leaf has a reason of its own" j "$tmp/m.json" \
        "$(dev 0000:00:14.0)['why'] == 'child' and $(dev 0000:00:14.0)['chain'][0] == 'usb1' and
         [x for x in d['devices'] if x['device'] == $(dev 0000:00:14.0)['leaf']][0]['why'] in ('on-purpose', 'knob-off', 'no-runtime-pm')"
check "... a device whose driver has no runtime PM (runtime_status unsupported); class devices without a driver left out" j "$tmp/m.json" \
        "$(dev i2c-PIXA3854:00)['why'] == 'no-runtime-pm' and $(dev i2c-PIXA3854:00)['runtime_status'] == 'unsupported' and
         $(dev i2c-PIXA3854:00)['driver'] == 'i2c_hid_acpi' and not [x for x in d['devices'] if x['device'] == 'nvme0']"
check "... cpuidle: per-CPU, per-state residency and usage" j "$tmp/m.json" \
        "d['cpuidle']['driver'] == 'intel_idle' and len(d['cpuidle']['cpus']) == 4 and
         d['cpuidle']['cpus'][0]['states'][2]['name'] == 'C10' and d['cpuidle']['cpus'][0]['states'][2]['usage'] == 200 and
         0 < d['cpuidle']['cpus'][0]['states'][2]['residency_percent'] < 100 and d['cpuidle']['cpus'][0]['states'][0]['time_us'] == 0"
check "... system residency from low_power_idle_system_residency_us; the others absent, not zero" j "$tmp/m.json" \
        "[x for x in d['residency'] if x['name'] == 'low_power_idle_system_residency_us'][0]['delta_us'] > 0 and
         [x for x in d['residency'] if x['name'] == 'slp_s0_residency_usec'][0]['delta_us'] is None and
         [x for x in d['residency'] if x['name'] == 'slp_s0_residency_usec'][0]['absent'] == 'absent'"
check "... RAPL: the counter wrapped at max_energy_range_uj, average watts from the whole delta" j "$tmp/m.json" \
        "d['energy'][0]['zone'] == 'intel-rapl:0' and d['energy'][0]['wrapped'] and
         abs(d['energy'][0]['watts'] - d['energy'][0]['delta_uj'] / 20e6) < 0.001 and d['energy'][0]['watts'] > 2"
check "... the battery without energy_now or power_now: null, not zero" j "$tmp/m.json" \
        "d['batteries'][0]['name'] == 'BAT1' and d['batteries'][0]['watts'] is None and d['batteries'][0]['power_now_uw'] is None"
check "... interrupts: deltas per source from the test's /proc, busiest first" j "$tmp/m.json" \
        "d['interrupts']['absent'] is None and d['interrupts']['sources'][0]['irq'] == 'LOC' and
         d['interrupts']['sources'][0]['count'] == 2000 and d['interrupts']['sources'][1]['name'] == 'PCI-MSI 327680-edge xhci_hcd'"
check "... wakeup sources from /sys/class/wakeup" j "$tmp/m.json" \
        "d['wakeup_sources']['from'] == '/sys/class/wakeup' and d['wakeup_sources']['sources'][0]['name'] == 'PNP0C0D:00' and
         d['wakeup_sources']['sources'][0]['events'] == 2"

run "$tmp/t" 'ic measure --seconds 5 >"$OUT.txt" 2>&1 & drive $! keep; echo $? >"$OUT.rc"'
check "measure (text): the awake devices and why, the chain, absent counters said plainly" sh -c "
        test \$(cat '$tmp/t.rc') = 0 && grep -qx '1 5000' '$tmp/t.waits' && grep -q '^Measured 5.0 s' '$tmp/t.txt' &&
        grep -q '^  0000:00:14.0 (pci, xhci_hcd): a child keeps it awake: usb1 > ' '$tmp/t.txt' &&
        grep -q '^  1-4 (usb, usb): idlecfg keeps it on on purpose: skipped: HID' '$tmp/t.txt' &&
        grep -q '^  0000:00:00.0 (pci): its knob is off (power/control = on): pci.runtime_pm, planned auto' '$tmp/t.txt' &&
        grep -q '^  slp_s0_residency_usec: absent' '$tmp/t.txt' &&
        grep -q '^  intel-rapl:0 package-0: [0-9.]* W (the counter wrapped' '$tmp/t.txt' &&
        grep -q '^Battery BAT1 (.*): energy_now and charge_now absent, power_now absent' '$tmp/t.txt'"
[ -s "$tmp/t.txt" ] || diag "$(cat "$tmp/t.log")"

# ---- the floor (#48 item 3) ----
check "the floor without cstate_pkg or LPIT's CPU residency (as on AMD): watts only, no state named, no holder guessed" j "$tmp/m.json" \
        "d['floor']['source'] == 'watts' and d['floor']['cstate_pkg'] == 'absent' and d['floor']['reached'] is None and
         d['floor']['deepest'] is None and not d['floor']['above'] and d['floor']['holders'] == [] and
         d['floor']['watts'] > 2 and d['floor']['watts_from'] == 'intel-rapl:0'"
CSTATE=1 run "$tmp/c" 'export CSTATE; sim init; ic measure --seconds 10 --json >"$OUT.json" 2>"$OUT.err" & drive $! keep;
        ic measure --seconds 10 >"$OUT.txt" 2>&1 & drive $! keep'
check "cstate_pkg (the perf counts the testbed stands in for): the floor is PC8, 30 % of the time, below PC10 offered" j "$tmp/c.json" \
        "d['floor']['source'] == 'cstate_pkg' and d['floor']['cstate_pkg'] == 'read' and d['floor']['reached'] == 'PC8' and
         d['floor']['reached_percent'] == 30 and d['floor']['deepest'] == 'PC10' and d['floor']['above'] and
         [s['name'] for s in d['floor']['states']] == ['PC2', 'PC6', 'PC8', 'PC10'] and d['floor']['states'][3]['percent'] == 0"
check "... the holders ranked with a reason each: runtime PM off where a knob allows it first, then the NVMe link without ASPM L1" j "$tmp/c.json" \
        "[h['rank'] for h in d['floor']['holders']] == list(range(1, len(d['floor']['holders']) + 1)) and
         all(h['reason'] for h in d['floor']['holders']) and
         d['floor']['holders'][0]['kind'] == 'knob-off' and d['floor']['holders'][0]['knob'] and
         [h for h in d['floor']['holders'] if h['kind'] == 'aspm-l1-off'][0]['device'] == '0000:01:00.0' and
         'link/l1_aspm = 0' in [h for h in d['floor']['holders'] if h['kind'] == 'aspm-l1-off'][0]['reason'] and
         [h['kind'] for h in d['floor']['holders']].index('aspm-l1-off') > [h['kind'] for h in d['floor']['holders']].index('knob-off')"
check "... in the text: the floor, the deepest offered, the ranked holders" sh -c "
        grep -q '^Package idle floor (cstate_pkg): PC8, 30.0% of the time; the deepest this CPU offers is PC10' '$tmp/c.txt' &&
        grep -q '^   1\. .*would let it suspend' '$tmp/c.txt' &&
        grep -q '^  *[0-9]*\. 0000:01:00.0 (pci): awake on a PCIe link with ASPM L1 disabled (link/l1_aspm = 0)' '$tmp/c.txt'"
[ -s "$tmp/c.txt" ] || diag "$(cat "$tmp/c.log")"
CSTATE=1 PERF_REFUSED=1 LPIT_CPU=1 run "$tmp/l" 'export CSTATE PERF_REFUSED LPIT_CPU; sim init;
        ic measure --seconds 10 --json >"$OUT.json" 2>"$OUT.err" & drive $! keep; ic measure --seconds 10 >"$OUT.txt" 2>&1 & drive $! keep'
check "perf_event_open refused: said, and the floor from LPIT's PC10 residency (25 %)" sh -c "
        python3 -c \"import json,sys; d=json.load(open(sys.argv[1]))['floor']; assert d['source'] == 'lpit' and d['cstate_pkg'] == 'refused' and d['reached'] == 'PC10' and d['reached_percent'] == 25 and not d['above'], d\" '$tmp/l.json' &&
        grep -q '^Package idle floor (LPIT): PC10, 25.0% of the time' '$tmp/l.txt' &&
        grep -q '^  cstate_pkg: perf_event_open refused (it needs CAP_PERFMON' '$tmp/l.txt'"

# ---- absent counters: no cpuidle, no /proc/interrupts ----
NOCPUIDLE=1 NOPROC=1 run "$tmp/n" 'export NOCPUIDLE NOPROC; ic measure --seconds 3 --json >"$OUT.json" & drive $! keep;
        ic measure --seconds 3 >"$OUT.txt" & drive $! keep'
check "a machine without cpuidle: no CPUs in JSON, said in the text" sh -c "
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[\"cpuidle\"] == {\"driver\": None, \"cpus\": []}' '$tmp/n.json' &&
        grep -q '^CPU idle: no cpuidle states in /sys/devices/system/cpu/cpu\\*/cpuidle (cpuidle driver: none)' '$tmp/n.txt'"
check "no /proc/interrupts: absent, no sources, not zero interrupts" sh -c "
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[\"interrupts\"] == {\"absent\": \"absent\", \"sources\": []}' '$tmp/n.json' &&
        grep -q '^Interrupts: /proc/interrupts absent' '$tmp/n.txt' && ! grep -q '^Interrupts: 0' '$tmp/n.txt'"

# ---- measure only reads ----
run "$tmp/ro" 'snap "$OUT.a"; ic measure --seconds 2 >/dev/null 2>&1 & drive $! none; snap "$OUT.b"'
check "measure writes nothing into /sys" sh -c "test -s '$tmp/ro.a' && cmp '$tmp/ro.a' '$tmp/ro.b'"

# ---- apply --measure and rollback --measure ----
run "$tmp/a" 'ic apply --measure 10 >"$OUT.txt" 2>&1 & drive $! keep kernel kernel; echo $? >"$OUT.rc";
        cp "$ROOT/var/lib/idlecfg/measured" "$OUT.measured";
        ic report >"$OUT.report.json" 2>"$OUT.report.err"; ic report --format html >"$OUT.report.html" 2>&1;
        ic rollback --measure 10 >"$OUT.rb" 2>&1 & drive $! kernel kernel kernel; echo $? >"$OUT.rbrc";
        ! test -e "$ROOT/var/lib/idlecfg/measured"; echo $? >"$OUT.rbgone"'
check "apply --measure: exit 0; waits 10 s, then the settle time, then 10 s" sh -c "
        test \$(cat '$tmp/a.rc') = 0 && sed -n 1p '$tmp/a.waits' | grep -qx '1 10000' &&
        sed -n 3p '$tmp/a.waits' | grep -qx '3 10000' && test \$(sed -n 2p '$tmp/a.waits' | cut -d' ' -f2) -ge 1000"
check "... the settle time is explained: the longest chain of autosuspend delays, the audio timeout, the margin" sh -c "
        grep -q '^Waiting [0-9.]* s for the settings to take effect: the longest chain of autosuspend delays is .*ms).*; plus 1 s margin' '$tmp/a.txt'"
check "... the settings were applied between the measurements" sh -c "
        grep -q '^Applying profile powersave' '$tmp/a.txt' && grep -q '^  set pci.runtime_pm on 0000:00:00.0' '$tmp/a.txt'"
check "... the before/after table: devices suspended, idle states, residency, watts, interrupts" sh -c "
        grep -q '^Before and after apply (10.0 s and 10.0 s):' '$tmp/a.txt' &&
        grep -q '^  devices suspended part or all of the time  *[0-9]*/[0-9]*  *[0-9]*/[0-9]*\$' '$tmp/a.txt' &&
        grep -q '^  CPU idle C10 (all CPUs)  *[0-9.]*%  *[0-9.]*%\$' '$tmp/a.txt' &&
        grep -q '^  slp_s0_residency_usec  *absent  *absent\$' '$tmp/a.txt' &&
        grep -q '^  intel-rapl:0 package-0  *[0-9.]* W  *[0-9.]* W\$' '$tmp/a.txt' &&
        grep -q '^  interrupts per second ' '$tmp/a.txt'"
python3 - "$tmp/a.txt" >"$tmp/a.watts" 2>&1 <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r"  intel-rapl:0 package-0 +([0-9.]+) W +([0-9.]+) W$", line)
    if m:
        print(m.group(1), m.group(2))
        sys.exit(0 if float(m.group(2)) < float(m.group(1)) else 1)
sys.exit(1)
PY
check "... fewer watts after apply (the simulated package draws less with fewer awake devices): $(cat "$tmp/a.watts")" \
        test $? -eq 0
check "... newly suspended: a PCI device, attributed to its own power/control and the plan's knob" sh -c "
        grep -q '^Newly suspended ([0-9]*):' '$tmp/a.txt' &&
        grep -q '^  0000:00:00.0 (pci): 0.0% -> 100.0% suspended; power/control on -> auto on 0000:00:00.0: pci.runtime_pm (profile powersave' '$tmp/a.txt'"
check "... a parent newly suspended because of its child's change is attributed to the child" sh -c "
        grep -E '^  [^ ]+ \\([a-z]+\\): 0.0% -> 100.0% suspended; power/control on -> auto on ([^ ]+):' '$tmp/a.txt' |
        awk '{ dev = \$1; sub(/:\$/, \"\", \$0); for (i = 1; i <= NF; i++) if (\$i == \"on\" && \$(i+1) != \"->\") cause = \$(i+1); sub(/:\$/, \"\", cause); if (cause != dev) found = 1 } END { exit !found }'"
check "... per setting in the text: the gain in the device's own unit; machine-wide not measurable per setting here" sh -c "
        grep -q '^Per setting, what it gained or lost (in the units this machine gives):' '$tmp/a.txt' &&
        grep -q '^  pci.runtime_pm on 0000:00:00.0 (on -> auto): runtime-suspended 0.0% -> 100.0% of the time: gained 100.0 points' '$tmp/a.txt' &&
        grep -q '^Machine-wide: package residency not measurable here, [0-9.]* W -> [0-9.]* W (intel-rapl:0): not measurable per setting here: [0-9]* settings changed at once' '$tmp/a.txt'"
check "rollback --measure: exit 0, values restored, the devices awake again named" sh -c "
        test \$(cat '$tmp/a.rbrc') = 0 && grep -q '^  restored /sys/devices/pci0000:00/0000:00:00.0/power/control: auto -> on' '$tmp/a.rb' &&
        grep -q '^Before and after rollback' '$tmp/a.rb' && grep -q '^Now awake the whole time ([0-9]*):' '$tmp/a.rb' &&
        grep -q '^  0000:00:00.0 (pci): 100.0% -> 0.0% suspended; power/control auto -> on on 0000:00:00.0' '$tmp/a.rb'"
[ "$(cat "$tmp/a.rc" 2>/dev/null)" = 0 ] || diag "$(cat "$tmp/a.log" "$tmp/a.txt")"
# what apply --measure kept per setting, as report carries it (#48 item 4)
check "report after apply --measure: settings_measured, this kernel and hardware, the per-device gain" j "$tmp/a.report.json" \
        "d['settings_measured']['note'] is None and d['settings_measured']['same_kernel'] and d['settings_measured']['same_hardware'] and
         d['settings_measured']['kernel'] == '$KVER' and d['settings_measured']['profile'] == 'powersave' and
         [x for x in d['settings_measured']['settings'] if x['knob'] == 'pci.runtime_pm' and x['device'] == '0000:00:00.0'][0] ==
         {'knob': 'pci.runtime_pm', 'device': '0000:00:00.0', 'value_before': 'on', 'value_after': 'auto',
          'unit': 'runtime_suspended_time', 'suspended_percent_before': 0, 'suspended_percent_after': 100,
          'change_points': 100, 'result': 'gained', 'note': None}"
check "... machine-wide: residency not measurable here, watts before and after, not measurable per setting here" j "$tmp/a.report.json" \
        "d['settings_measured']['machine']['residency_note'] == 'not measurable here' and
         d['settings_measured']['machine']['residency_percent_before'] is None and
         d['settings_measured']['machine']['watts_before'] > d['settings_measured']['machine']['watts_after'] > 0 and
         d['settings_measured']['machine']['attributed_to'] is None and len(d['settings_measured']['settings']) > 1 and
         d['settings_measured']['machine']['note'].startswith('not measurable per setting here')"
check "... the page: the per-setting table, the gain, the machine-wide line; rollback removes the record" sh -c "
        grep -q '<h2>Per setting, as apply --measure found it</h2>' '$tmp/a.report.html' &&
        grep -q '<tr><td>pci.runtime_pm</td><td>0000:00:00.0</td><td>on → auto</td><td>runtime-suspended 0.0% → 100.0% of the time: gained 100.0 points</td></tr>' '$tmp/a.report.html' &&
        grep -q '<td>package residency not measurable here, [0-9.]* W → [0-9.]* W (intel-rapl:0): not measurable per setting here: [0-9]* settings changed at once</td>' '$tmp/a.report.html' &&
        grep -q '^idlecfg-measured 1\$' '$tmp/a.measured' && test \$(cat '$tmp/a.rbgone') = 0"

run "$tmp/aj" 'ic apply --measure 5 --json >"$OUT.json" 2>"$OUT.err" & drive $! keep kernel kernel; echo $? >"$OUT.rc";
        ic rollback --measure 5 --json >"$OUT.rb.json" 2>&1 & drive $! kernel kernel kernel'
check "apply --measure --json: valid JSON with before, after, changes, settle and apply's lines" j "$tmp/aj.json" \
        "d['schema'] == 1 and d['change'] == 'apply' and d['exit'] == 0 and d['before']['interval_us'] == 5000000 and
         d['after']['interval_us'] == 5000000 and d['settle_ms'] >= 1000 and d['settle_chain'] and
         any(l.startswith('  set pci.runtime_pm on 0000:00:00.0') for l in d['log'])"
check "... the change of 0000:00:00.0: suspends, 0 -> 100 %, cause and knob" j "$tmp/aj.json" \
        "[c for c in d['changes'] if c['device'] == '0000:00:00.0'][0] == dict([c for c in d['changes'] if c['device'] == '0000:00:00.0'][0],
         change='suspends', suspended_percent_before=0, suspended_percent_after=100, cause='0000:00:00.0',
         control_before='on', control_after='auto', knob='pci.runtime_pm')"
check "... the after measurement shows fewer awake devices than the before one" j "$tmp/aj.json" \
        "sum(x['awake'] for x in d['after']['devices']) < sum(x['awake'] for x in d['before']['devices'])"
check "... per setting (#48 item 4): pci.runtime_pm on 0000:00:00.0 in its device's runtime-suspended time, 0 -> 100 %" j "$tmp/aj.json" \
        "[e for e in d['effects']['settings'] if e['knob'] == 'pci.runtime_pm' and e['device'] == '0000:00:00.0'][0] ==
         dict([e for e in d['effects']['settings'] if e['device'] == '0000:00:00.0'][0], unit='runtime_suspended_time',
              value_before='on', value_after='auto', suspended_percent_before=0, suspended_percent_after=100)"
check "... the machine-wide units with more than one setting changed: not measurable per setting here, not divided" j "$tmp/aj.json" \
        "len(d['effects']['settings']) > 1 and d['effects']['machine']['attributed_to'] is None and
         d['effects']['machine']['note'].startswith('not measurable per setting here') and
         d['effects']['machine']['watts_before'] > d['effects']['machine']['watts_after'] and
         not any(e['machine_wide_is_its_own'] for e in d['effects']['settings'])"
check "rollback --measure --json: valid JSON, changes back to awake" j "$tmp/aj.rb.json" \
        "d['change'] == 'rollback' and any(c['change'] == 'awake' and c['device'] == '0000:00:00.0' for c in d['changes'])"

# ---- a refused write: apply undoes itself, nothing to compare ----
run "$tmp/f" 'IDLECFG_FAULT=fail:1:EINVAL:sysfs ic apply --measure 5 --json >"$OUT.json" 2>"$OUT.err" & drive $! keep; echo $? >"$OUT.rc"'
check "apply --measure --json with a write the kernel refuses: exit 3, JSON with apply's lines and no after" sh -c "
        test \$(cat '$tmp/f.rc') = 3 && test \$(wc -l <'$tmp/f.waits') = 1 && grep -q 'the kernel refused' '$tmp/f.err' &&
        python3 -c \"import json,sys; d=json.load(open(sys.argv[1])); assert d['exit'] == 3 and 'after' not in d and any('FAILED' in l for l in d['log'])\" '$tmp/f.json'"

# ---- memory: measure and apply --measure under valgrind ----
if command -v valgrind >/dev/null 2>&1 && ! grep -q __asan_init "$IDLECFG" 2>/dev/null; then
        run "$tmp/vg" 'vg() { valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 \
                        --log-file="$OUT.$1.valgrind" "$IDLECFG" --root "$ROOT" --kernel "$KVER" --profile powersave "$@"; }
                vg measure --seconds 2 --json >/dev/null 2>&1 & drive $! keep; echo $? >"$OUT.measure.rc"
                vg apply --measure 2 --json >/dev/null 2>&1 & drive $! keep kernel kernel; echo $? >"$OUT.apply.rc"
                ic rollback >/dev/null 2>&1'
        check "measure and apply --measure under valgrind: exit 0, no error, no definite leak" sh -c "
                test \$(cat '$tmp/vg.measure.rc') = 0 && test \$(cat '$tmp/vg.apply.rc') = 0 &&
                grep -q 'ERROR SUMMARY: 0 errors' '$tmp/vg.measure.valgrind' && grep -q 'ERROR SUMMARY: 0 errors' '$tmp/vg.apply.valgrind'"
else
        skip "measure under valgrind: valgrind not installed, or an ASan build"
fi

# ---- options ----
"$IDLECFG" measure --seconds 0 >"$tmp/o1" 2>&1; rc1=$?
"$IDLECFG" measure --seconds x >"$tmp/o2" 2>&1; rc2=$?
"$IDLECFG" measure --measure 5 >"$tmp/o3" 2>&1; rc3=$?
"$IDLECFG" apply --measure 5 --dry-run >"$tmp/o4" 2>&1; rc4=$?
check "--seconds 0 or a word: exit 2, said" sh -c "test $rc1 = 2 && test $rc2 = 2 && grep -q 'takes seconds from 1 to 3600' '$tmp/o1'"
check "--measure is for apply and rollback; not with --dry-run" sh -c "
        test $rc3 = 2 && test $rc4 = 2 && grep -q 'measure takes --seconds' '$tmp/o3' && grep -q 'not with --dry-run' '$tmp/o4'"

# ---- a machine recorded with runtime PM times (the build host) ----
m=buildhost
mkroot_installed "$TESTS_DATA/machines/$m" "$tmp/bh" || { echo "Bail out! no root for $m"; exit 1; }
rm -rf "$tmp/clock" && mkdir -p "$tmp/clock"
IDLECFG_TEST_CLOCK=$tmp/clock IDLECFG_TEST_PROC=$tmp/none run_machine "$TESTS_DATA/machines/$m" sh -c '
        "$IDLECFG" --root "$1" --kernel "$2" measure --seconds 1 --json >"$3" &
        pid=$!; i=0
        while [ ! -e "$IDLECFG_TEST_CLOCK/waiting" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
        echo 1000 >"$IDLECFG_TEST_CLOCK/now"; rm -f "$IDLECFG_TEST_CLOCK/waiting"; wait $pid' sh "$tmp/bh" "$KVER" "$tmp/bh.json" >"$tmp/bh.log" 2>&1
check "buildhost (recorded runtime_active_time): counters that did not move give no share (null), not 0 %" j "$tmp/bh.json" \
        "d['interval_us'] == 1000000 and len(d['devices']) >= 5 and
         all(x['suspended_percent'] is None and x['active_ms'] == 0 and x['suspended_ms'] == 0 for x in d['devices'])"
check "... no battery, no RAPL, no /proc/interrupts: empty lists and absent, not zeros" j "$tmp/bh.json" \
        "d['batteries'] == [] and d['energy'] == [] and d['interrupts']['absent'] == 'absent'"
done_testing
