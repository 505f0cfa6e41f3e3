#!/bin/sh
# tests/fleet-ansible.sh: the Ansible module of src/ansible (#34), run by
# ansible-playbook (Debian's ansible-core) against a root in a temporary
# directory under a recorded machine, connection local, as Ansible's own
# integration tests run modules (tests/data/ansible/fleet.yml; the json
# callback gives every task's result): check mode writes nothing and
# reports the change; a real run changes, with the boot step pending
# (idlecfg's exit 4) a warning and a fact the handler acts on; a second run
# changes nothing; diff mode shows the files; a bad profile fails with
# idlecfg's message; absent rolls back exactly.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod python3 ansible-playbook
# ansible-core runs only in a UTF-8 locale
locale -a 2>/dev/null | grep -qi '^C\.utf-\{0,1\}8$' || skip_all "no C.UTF-8 locale (ansible needs UTF-8)"
. "$top_srcdir/tests/fleet-lib.sh"
plan 15

root=$tmp/root
fleet_root "$root" || { echo "Bail out! no root"; exit 1; }

fleet_ansible ansible-playbook -i localhost, "$TESTS_DATA/ansible/fleet.yml" \
        -e "idlecfg=$IDLECFG root=$root kver=$KVER fakebin=$tmp/fakebin results=$tmp/results.json" >"$tmp/play.out" 2>"$tmp/play.err"; rc=$?
check "ansible-playbook ran the play (exit 0, the expected failures ignored)" sh -c "test $rc -eq 0 && python3 -m json.tool '$tmp/results.json' >/dev/null" 
        last_failed && diag "exit $rc" "$(tail -20 "$tmp/play.err")" "$(tail -40 "$tmp/play.out")"
# result TASK PYTHON-EXPRESSION: the expression holds for the result r of TASK
result() {
        python3 - "$tmp/results.json" "$1" "$2" <<'PY'
import json, sys
results, name, expr = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
r = results[name]
if not eval(expr):
    sys.exit("%s: not %s:\n%s" % (name, expr, json.dumps(r, indent=1)[:4000]))
PY
}
tree_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]]["stdout"])' "$tmp/results.json" "$1" 2>/dev/null; }

tree_of "tree before" >"$tmp/tree.before"
tree_of "tree after check mode" >"$tmp/tree.check"
tree_of "tree after absent" >"$tmp/tree.absent"

check "check mode: changed, the files it would write, nothing failed" \
        result "present in check mode" 'r["changed"] and not r.get("failed") and any(f["path"] == "/etc/udev/rules.d/70-idlecfg.rules" and f["action"] == "write" for f in r["files"])'
check "  and nothing written: the tree as before ($(wc -l <"$tmp/tree.before") lines compared)" sh -c "
        test -s '$tmp/tree.before' && cmp -s '$tmp/tree.before' '$tmp/tree.check'"
check "a real run: changed, the boot step pending (idlecfg's 4) as a fact and a warning, the step's argv" \
        result "present" 'r["changed"] and r["exit_status"] == 4 and r["boot_step_pending"] is True and any("boot configuration still lacks" in w for w in r.get("warnings", [])) and any(s["boot"] and s["argv"][2:4] == ["kernel-install", "add"] for s in r["next_steps"])'
check "  the handler ran the step's argv (kernel-install's boot entry made with the word; after absent, made again without)" sh -c "
        test -f '$root/boot/loader/entries/debian-$KVER.conf' && head -n 1 '$root.kernel-install.log' | grep -q 'pcie_aspm.policy=' &&
        ! grep -q 'pcie_aspm.policy=' '$root/boot/loader/entries/debian-$KVER.conf'"
second_run() {
        result "present again" 'not r["changed"] and r["boot_step_pending"] is False and r["exit_status"] == 0' &&
                result "present again in check mode" 'not r["changed"] and not r["boot_step_pending"]'
}
check "a second run: no change, no step pending; check mode too" second_run
check "diff mode: the unified diff of the files another profile changes" \
        result "another profile in check mode with diff" 'r["changed"] and "+++ b/etc/udev/rules.d/70-idlecfg.rules" in r["diff"]["prepared"]'
check "a profile that does not exist: failed with idlecfg's message and exit 2" \
        result "a profile that does not exist" 'r["failed"] and r["rc"] == 2 and "no-such-profile" in r["msg"] and r["msg"].startswith("idlecfg:")'
check "state checked: verify of the installed profile (drift here: failed, said)" \
        result "checked" 'r["failed"] and r["profile"] == "powersave" and "drift" in r["msg"] and r["verify"]["profile_reason"] == "installed, from the manifest"'
absent() {
        # the boot entry the handler made still holds idlecfg's word: rollback's
        # 4, the step that makes it again pending, as after install
        result "absent in check mode" 'r["changed"]' &&
                result "absent" 'r["changed"] and r["exit_status"] == 4 and r["boot_step_pending"] and any(s.get("argv") for s in r["next_steps"])' &&
                result "absent again" 'not r["changed"] and r["exit_status"] == 4 and r["boot_step_pending"] and any(s.get("argv") for s in r["next_steps"])' &&
                result "absent once the steps ran" 'not r["changed"] and not r["boot_step_pending"] and r["exit_status"] == 0' &&
                cmp "$tmp/tree.before" "$tmp/tree.absent"
}
check "absent: changed in check mode, then rolled back (exit 4: the boot entry's step pending), again: no change, the step still named until it ran, then nothing; the tree as before (the boot entry aside)" absent 
        last_failed && diag "$(diff "$tmp/tree.before" "$tmp/tree.absent" | head -20)"
check "  absent again asks idlecfg (rollback's messages and exit status), its pending boot step reported as idlecfg says it" \
        result "absent again" '"messages" in r and r["messages"] and r["boot_step_pending"] == (r["exit_status"] == 4) and r["boot_step_pending"] == any(s["boot"] for s in r["next_steps"])'
check "--root in options (abbreviated --ro=): refused, the task failed naming --root, nothing written in the other root" \
        result "root in options" 'r["failed"] and "--root" in r["msg"] and "root parameter" in r["msg"]'
        last_failed && diag "$(diff "$tmp/tree.before" "$tmp/tree.absent" | head -20)"
fleet_ansible ansible-doc --json -t module idlecfg.idlecfg.idlecfg >"$tmp/doc.json" 2>"$tmp/doc.err"; rc=$?
check "ansible-doc reads the module's documentation: every option of its argument_spec, the values it returns" sh -c "
        test $rc -eq 0 && python3 - '$tmp/doc.json' '$top_srcdir/src/ansible/ansible_collections/idlecfg/idlecfg/plugins/modules/idlecfg.py' <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))['idlecfg.idlecfg.idlecfg']
spec = set(re.findall(r'^ +(\\w+)=dict\\(type=', open(sys.argv[2]).read(), re.M))
assert spec and set(d['doc']['options']) == spec, (sorted(spec), sorted(d['doc']['options']))
assert {'changed', 'files', 'next_steps', 'boot_step_pending', 'warnings', 'exit_status', 'verify', 'messages', 'rc'} <= set(d['return']), sorted(d['return'])
PY"
last_failed && diag "$(head -5 "$tmp/doc.err")"
# the collection's README names the values the module returns (RETURN), no other
check "the collection's README: its Returned list is RETURN's (exit_status, verify; rc only of a failed task)" sh -c "
        test $rc -eq 0 && python3 - '$tmp/doc.json' '$top_srcdir/src/ansible/ansible_collections/idlecfg/idlecfg/README.md' <<'PY'
import json, re, sys
ret = set(json.load(open(sys.argv[1]))['idlecfg.idlecfg.idlecfg']['return'])
text = open(sys.argv[2]).read()
para = text[text.index('Returned:'):].split('\\n\\n')[0]
named = set(re.findall(r'\`(\\w+)\`', para)) - {'state', 'absent', 'checked', 'msg'}
assert named == ret, ('README only', sorted(named - ret), 'RETURN only', sorted(ret - named))
PY"

# ---- examples/remove.yml: the rollback and the boot steps it returns ----
root2=$tmp/root2
fleet_root "$root2" || { echo "Bail out! no root"; exit 1; }
"$IDLECFG" --root "$root2" --kernel "$KVER" install --profile powersave >/dev/null 2>&1
"$tmp/fakebin/chroot" "$root2" kernel-install add "$KVER" "/boot/vmlinuz-$KVER"
entry2=$root2/boot/loader/entries/debian-$KVER.conf
awk -v root="$root2" -v bin="$IDLECFG" -v kver="$KVER" -v path="$tmp/fakebin:$PATH" '
        { print }
        /^  hosts: all$/ {
                print "  module_defaults:"
                print "    idlecfg.idlecfg.idlecfg: {root: \"" root "\", binary: \"" bin "\", options: [\"--kernel=" kver "\"]}"
                print "  environment:"
                print "    PATH: \"" path "\""
        }' "$top_srcdir/src/ansible/ansible_collections/idlecfg/idlecfg/examples/remove.yml" >"$tmp/remove.yml"
grep -q 'pcie_aspm.policy=' "$entry2"; had=$?
fleet_ansible ansible-playbook -i localhost, -c local -e ansible_become=false "$tmp/remove.yml" >"$tmp/rm.out" 2>&1; rc=$?
check "examples/remove.yml: rolls back, its handler runs the step rollback returns (the boot entry without idlecfg's word)" sh -c "
        test $had -eq 0 && test $rc -eq 0 && test ! -e '$root2/var/lib/idlecfg/manifest' && test -f '$entry2' &&
        ! grep -q 'pcie_aspm.policy=' '$entry2'"
last_failed && diag "exit $rc" "$(tail -25 "$tmp/rm.out")"
done_testing
