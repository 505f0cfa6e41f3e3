#!/bin/sh
# tests/fleet-user.sh: fleets watch without root (#49). On an installed root
# of the recorded intel-laptop, verify, detect, plan, explain, measure and
# power-source show run as an unprivileged user (nobody, through setpriv)
# give root's exit code where the data is readable by users, and where it is
# not (a module parameter made root's, the whole /sys unreadable) say what
# they could not read and why; verify then takes the status file the last
# writing run left, and says so. The status file: mode 0644, written by
# install, apply and a power-source switch, removed by rollback to nothing.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod python3
. "$top_srcdir/tests/fleet-lib.sh"
plan 18

status=var/lib/idlecfg/status.json
root=$tmp/root
fleet_root "$root" || { echo "Bail out! no root"; exit 1; }
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
# json FILE EXPR: the Python expression holds for d, FILE's JSON
json() {
        python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if not eval(sys.argv[2]):
    sys.exit("not %s: %s" % (sys.argv[2], json.dumps(d)[:2000]))
PY
}

ic install --profile powersave >"$tmp/install.out" 2>&1; rc=$?
ic verify --json >"$tmp/root.json" 2>"$tmp/root.err"; root_rc=$?
st_ok() {
        test "$(stat -c %a "$root/$status")" = 644 &&
        json "$root/$status" 'd["schema"] == 1 and d["verb"] == "install" and d["installed"] and d["profile"] == "powersave" and d["boot_step_pending"] and d["boot_steps"] == "kernel-install" and d["compared"] == d["time"]' &&
        python3 - "$root/$status" "$tmp/root.json" <<'PY'
import json, sys
st, v = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
count = lambda s: sum(1 for x in v["settings"] if x["state"] == s)
assert (st["drift"], st["missing"], st["match"], st["later"]) == (count("drift"), count("missing"), count("match"), count("later")), st
PY
}
check "install (exit $rc) writes the status file: mode 0644, the profile, the step pending, root verify's counts ($root_rc)" st_ok
        last_failed && diag "$(cat "$root/$status" 2>&1)"

# ---- the external facts: facter runs the shipped facts.d script ----
if command -v facter >/dev/null 2>&1; then
        mkdir -p "$tmp/facts.d" "$tmp/bin" "$tmp/home"
        printf '#!/bin/sh\nexec "%s" --root "%s" "$@"\n' "$IDLECFG" "$root" >"$tmp/bin/idlecfg"
        chmod +x "$tmp/bin/idlecfg"
        sed -e "s|@sbindir@|$tmp/bin|g" -e "s|@pkgdatadir@|$tmp|g" "$top_srcdir/src/facts/idlecfg.in" >"$tmp/facts.d/idlecfg"
        chmod +x "$tmp/facts.d/idlecfg"
        HOME=$tmp/home facter --json --external-dir "$tmp/facts.d" idlecfg_installed idlecfg_profile idlecfg_boot_step_pending \
                idlecfg_drift idlecfg_status idlecfg_last_run >"$tmp/facter.json" 2>"$tmp/facter.err"; rc=$?
        check "facter --external-dir with the shipped facts.d script: installed, the profile, the step pending, the drift (exit $rc)" \
                json "$tmp/facter.json" 'd["idlecfg_installed"] in (True, "true") and d["idlecfg_profile"] == "powersave" and d["idlecfg_boot_step_pending"] in (True, "true") and int(d["idlecfg_drift"]) == json.load(open("'"$root/$status"'"))["drift"] and d["idlecfg_status"] == "ok" and d["idlecfg_last_run"] == "install"'
                last_failed && diag "$(cat "$tmp/facter.err")"
else
        skip "facter with the shipped facts.d script" "facter not installed (Debian: facter)"
fi
"$IDLECFG" --root "$root" facts >"$tmp/facts.txt" 2>&1; rc=$?
"$IDLECFG" --root "$root" facts --json >"$tmp/facts.json" 2>&1; rc2=$?
facts_same() {
        test $rc -eq 0 && test $rc2 -eq 0 && python3 - "$tmp/facts.txt" "$tmp/facts.json" <<'PY'
import json, sys
lines = dict(l.rstrip("\n").split("=", 1) for l in open(sys.argv[1]))
d = json.load(open(sys.argv[2]))
assert all(k.startswith("idlecfg_") for k in lines), lines
as_text = {k: ("true" if v is True else "false" if v is False else str(v)) for k, v in d.items() if v is not None}
assert lines == as_text, (lines, as_text)
assert all(not isinstance(v, (dict, list)) for v in d.values())
PY
}
check "facts: flat idlecfg_NAME=VALUE lines, and the same facts as one flat JSON object (--json)" facts_same
        last_failed && diag "$(cat "$tmp/facts.txt" "$tmp/facts.json")"

# ---- as a user: the run as nobody, /sys and the root readable as on a real machine ----
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1; then
        for i in 2 3 4 5 6 7 8 9; do skip "as an unprivileged user" "not root, or no setpriv: cannot become nobody"; done
else
        user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
        chmod 755 "$tmp" "$UMOCKDEV_DIR"
        user "$IDLECFG" --root "$root" --kernel "$KVER" verify --json >"$tmp/u1.json" 2>"$tmp/u1.err"; rc=$?
        same() {
                test $rc -eq $root_rc && python3 - "$tmp/root.json" "$tmp/u1.json" <<'PY'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a["settings"] == b["settings"], "settings differ"
assert b["unreadable"] == [] and b["status_file"] is None, (b["unreadable"], b["status_file"])
PY
        }
        check "verify --json as nobody, everything readable: root's exit ($root_rc) and settings, nothing unreadable" same
                last_failed && diag "exit $rc" "$(cat "$tmp/u1.err")"

        # a module parameter only root may read (as i915's are on some kernels)
        p=$UMOCKDEV_DIR/sys/module/pcie_aspm/parameters/policy
        chmod 0600 "$p"
        ic verify --json >"$tmp/r2.json" 2>/dev/null; rrc=$?
        user "$IDLECFG" --root "$root" --kernel "$KVER" verify --json >"$tmp/u2.json" 2>"$tmp/u2.err"; rc=$?
        check "  a root-only parameter: root's exit ($rrc), the path and why on stderr and in unreadable, the status file taken and said" sh -c "
                test $rc -eq $rrc && grep -q 'cannot read /sys/module/pcie_aspm/parameters/policy: Permission denied' '$tmp/u2.err' &&
                grep -q 'taken from the status file' '$tmp/u2.err'" &&
                json "$tmp/u2.json" 'd["unreadable"] == [{"path": "/sys/module/pcie_aspm/parameters/policy", "error": "Permission denied"}] and d["status_file"]["verb"] == "install" and d["status_file"]["drift"] > 0'
                last_failed && diag "exit $rc (root $rrc)" "$(cat "$tmp/u2.err")"
        # every reading verb says it, with root's exit code
        verbs_ok() {
                for v in detect plan "explain 0000:00:02.0" "measure --seconds 1"; do
                        ic $v >/dev/null 2>&1; a=$?
                        user "$IDLECFG" --root "$root" --kernel "$KVER" $v >/dev/null 2>"$tmp/v.err"; b=$?
                        [ $a -eq $b ] || { echo "$v: root $a, nobody $b"; return 1; }
                        grep -q 'cannot read /sys/module/pcie_aspm/parameters/policy: Permission denied (root can)' "$tmp/v.err" ||
                                { echo "$v: not said:"; cat "$tmp/v.err"; return 1; }
                done
                "$IDLECFG" --root "$root" power-source show >/dev/null 2>&1; a=$?
                user "$IDLECFG" --root "$root" power-source show >/dev/null 2>"$tmp/v.err"; b=$?
                [ $a -eq $b ] || { echo "power-source show: root $a, nobody $b"; cat "$tmp/v.err"; return 1; }
        }
        check "  detect, plan, explain, measure say it too, with root's exit codes; power-source show as root's" verbs_ok
        chmod 0644 "$p"

        # /sys unreadable as a whole (the testbed's own mode): nothing silent
        chmod 700 "$UMOCKDEV_DIR"
        user "$IDLECFG" --root "$root" --kernel "$KVER" verify --json >"$tmp/u3.json" 2>"$tmp/u3.err"; rc=$?
        check "/sys unreadable: verify as nobody says what and why, takes the status file: root's exit ($root_rc)" sh -c "
                test $rc -eq $root_rc && grep -q 'cannot read /sys/bus/pci/devices: Permission denied' '$tmp/u3.err' &&
                grep -q 'taken from the status file' '$tmp/u3.err'" && json "$tmp/u3.json" 'd["status_file"]["drift"] > 0'
                last_failed && diag "exit $rc" "$(head -5 "$tmp/u3.err")"
        user "$IDLECFG" --root "$root" --kernel "$KVER" plan >/dev/null 2>"$tmp/u4.err"; rc=$?
        check "  plan as nobody says it cannot enumerate the devices, and why" \
                grep -q 'cannot read /sys/bus/pci/devices: Permission denied (root can)' "$tmp/u4.err"
        chmod 755 "$UMOCKDEV_DIR"
        # without a status file: said, the verdict of what could be read
        mv "$root/$status" "$tmp/status.kept"
        chmod 0600 "$p"
        user "$IDLECFG" --root "$root" --kernel "$KVER" verify --json >"$tmp/u5.json" 2>"$tmp/u5.err"; rc=$?
        check "  no status file: said (no status file to take), status_file null" sh -c "
                grep -q 'no status file to take' '$tmp/u5.err'" && json "$tmp/u5.json" 'd["status_file"] is None and d["unreadable"]'
                last_failed && diag "exit $rc" "$(cat "$tmp/u5.err")"
        chmod 0644 "$p"
        mv "$tmp/status.kept" "$root/$status"
        user "$IDLECFG" --root "$root" facts >"$tmp/facts.user" 2>&1; rc=$?
        check "  facts as nobody: exit 0, root's facts" sh -c "test $rc -eq 0 && cmp '$tmp/facts.txt' '$tmp/facts.user'"
        chmod 0600 "$p"
        user "$IDLECFG" --root "$root" --kernel "$KVER" verify >"$tmp/u6.out" 2>"$tmp/u6.err"; rc=$?
        check "  verify's text as nobody: root's exit ($root_rc), the path and the status file said" sh -c "
                test $rc -eq $root_rc && grep -q 'cannot read /sys/module/pcie_aspm/parameters/policy' '$tmp/u6.err' &&
                grep -q 'taken from the status file' '$tmp/u6.err'"
                last_failed && diag "exit $rc" "$(cat "$tmp/u6.err")"
        chmod 0644 "$p"
fi

# ---- the writers: apply, a power-source switch; rollback to nothing removes it ----
ic apply >/dev/null 2>&1; rc=$?
check "apply (exit $rc): the status file says applied, by apply, fewer drift than after install" sh -c "
        test $rc -eq 0" && json "$root/$status" 'd["verb"] == "apply" and d["applied"] and d["drift"] == 0'
        last_failed && diag "$(cat "$root/$status" 2>&1)"
"$IDLECFG" --root "$root" power-source battery >/dev/null 2>&1; rc=$?
check "power-source battery (exit $rc): the status file says battery, forced, the last comparison kept" sh -c "
        test $rc -eq 0 || test $rc -eq 4" && json "$root/$status" 'd["verb"] == "power-source" and d["power_source"] == "battery" and d["power_source_forced"] and d["drift"] == 0'
        last_failed && diag "$(cat "$root/$status" 2>&1)"
ic rollback >/dev/null 2>&1; rc=$?
check "rollback to nothing (exit $rc): no status file, no state directory" sh -c "
        test ! -e '$root/$status' && test ! -e '$root/var/lib/idlecfg'"
        last_failed && diag "$(ls -la "$root/var/lib/idlecfg" 2>&1)"
ic install --profile powersave >/dev/null 2>&1
ic rollback apply >/dev/null 2>&1; rc=$?
check "install, then rollback apply only (exit $rc): the status file stays, written by rollback" \
        json "$root/$status" 'd["verb"] == "rollback" and d["installed"] and not d["applied"]'

# ---- the kill sweeps of the status file's writers: apply, a switch, rollback ----
# each run killed at each of its fault points (the status file's write among
# them), then a rollback: nothing of idlecfg left, no temporary file
cp -a "$root" "$tmp/installed"
sweep() {
        n=0 bad=0
        while [ $n -lt 300 ]; do
                n=$((n + 1))
                rm -rf "$root" && cp -a "$tmp/installed" "$root"
                [ "$1" = rollback ] && { ic apply >/dev/null 2>&1; }
                IDLECFG_FAULT=kill:$n "$IDLECFG" --root "$root" $2 >"$tmp/k.out" 2>&1
                grep -q injected "$tmp/k.out" || break
                ic rollback >"$tmp/k.rb" 2>&1 || { bad=$((bad + 1)); echo "kill:$n: rollback failed"; cat "$tmp/k.rb"; }
                # (run/idlecfg's own leftovers of a killed switch or rollback are
                # the switch's and rollback's, not the status file's: not judged here)
                left=$(find "$root/var" -name '.#*' -o -name status.json 2>/dev/null)
                [ -z "$left" ] && [ ! -e "$root/var/lib/idlecfg" ] ||
                        { bad=$((bad + 1)); echo "kill:$n: left $left $(ls -A "$root/var/lib/idlecfg" 2>&1)"; }
        done
        echo "$((n - 1)) $bad"
}
for what in "apply:--kernel $KVER apply" "switch:power-source battery" "rollback:--kernel $KVER rollback"; do
        sweep "${what%%:*}" "${what#*:}" >"$tmp/sweep.log" 2>&1
        set -- $(tail -n 1 "$tmp/sweep.log")
        check "${what%%:*} killed at each of its ${1:-?} fault points, then rollback: no status file, no temporary file in var, no state left" \
                sh -c "test '${2:-x}' = 0 && test ${1:-0} -ge 5"
        [ "${2:-x}" = 0 ] || diag "$(head -20 "$tmp/sweep.log")"
done
done_testing
