#!/bin/sh
# tests/fleet-docs.sh: every example of README's "Configuration management"
# runs (#34), as written there, against a temporary root under a recorded
# machine whose boot configuration lacks a step after install
# (/etc/kernel/cmdline: kernel-install, which a chroot in the PATH does as
# kernel-install would: the boot entry): the Ansible play
# (ansible-playbook, the module's root and binary as module_defaults), the
# Salt state's two commands (read as Salt reads them), the Puppet exec
# (puppet apply --detailed-exitcodes) and the plain shell script. idlecfg(8)
# shows the same examples.
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod python3
. "$top_srcdir/tests/fleet-lib.sh"
plan 6

base=$tmp/base
fleet_root "$base" || { echo "Bail out! no root"; exit 1; }
fresh() { rm -rf "$root" && cp -a "$base" "$root"; }
root=$tmp/root
entry=$root/boot/loader/entries/debian-$KVER.conf
ic="$IDLECFG --root $root --kernel $KVER"

# example WORDS: the indented block after the README paragraph that begins
# with WORDS, unindented
example() {
        python3 - "$top_srcdir/README" "$1" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
start = next(i for i, l in enumerate(lines) if l.startswith(sys.argv[2]))
i = start
while not lines[i].startswith("    "):
    i += 1
block = []
while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
    block.append(lines[i][4:])
    i += 1
print("\n".join(block).rstrip("\n"))
PY
}
example "The Ansible module" >"$tmp/ex.ansible"
example "Salt (cmd.run" >"$tmp/ex.salt"
example "Puppet: an exec" >"$tmp/ex.puppet"
example "Plain shell" >"$tmp/ex.shell"

# idlecfg(8) shows the same examples: each line of each in the rendered page
MANWIDTH=200 man -l "$top_srcdir/src/man/idlecfg.8" 2>/dev/null | sed 's/^ *//' >"$tmp/page"
same() {
        for f in ansible salt puppet shell; do
                sed 's/^ *//' "$tmp/ex.$f" | grep . | while IFS= read -r l; do
                        grep -qxF -- "$l" "$tmp/page" || { echo "$f: not in idlecfg(8): $l"; exit 1; }
                done || return 1
                test -s "$tmp/ex.$f" || { echo "no $f example in README"; return 1; }
        done
}
check "README's four examples (Ansible, Salt, Puppet, shell) are in idlecfg(8) too" same

# ---- the Ansible play ----
if command -v ansible-playbook >/dev/null 2>&1 && locale -a 2>/dev/null | grep -qi '^C\.utf-\{0,1\}8$'; then
        fresh
        # the root and the binary as the play's module_defaults, the fake chroot in the PATH
        awk -v root="$root" -v bin="$IDLECFG" -v kver="$KVER" -v path="$tmp/fakebin:$PATH" '
                { print }
                /^  hosts: all$/ {
                        print "  module_defaults:"
                        print "    idlecfg.idlecfg.idlecfg: {root: \"" root "\", binary: \"" bin "\", options: [\"--kernel=" kver "\"]}"
                        print "  environment:"
                        print "    PATH: \"" path "\""
                }' "$tmp/ex.ansible" >"$tmp/play.yml"
        play() { fleet_ansible ansible-playbook -i localhost, -c local -e ansible_become=false "$tmp/play.yml"; }
        play >"$tmp/a1" 2>&1; rc1=$?
        play >"$tmp/a2" 2>&1; rc2=$?
        check "the Ansible play: installs, its handler runs kernel-install; run again, nothing changes" sh -c "
                test $rc1 -eq 0 && grep -q 'changed=2 ' '$tmp/a1' && test -f '$entry' &&
                test $rc2 -eq 0 && grep -q 'changed=0 ' '$tmp/a2'"
        last_failed && diag "exit $rc1 $rc2" "$(tail -25 "$tmp/a1")" "$(tail -5 "$tmp/a2")"
else
        skip "the Ansible play" "ansible-playbook or the C.UTF-8 locale missing (Debian: ansible-core)"
fi

# ---- the Salt state: its test_name and name commands, read as Salt reads them ----
fresh
salt_cmd() { sed -n "s/^ *- $1: idlecfg //p" "$tmp/ex.salt"; }
run_salt() { $ic $(salt_cmd "$1") >"$tmp/salt.out" 2>/dev/null; echo "exit $?"; python3 "$top_srcdir/tests/salt-state.py" "$tmp/salt.out"; }
{ run_salt test_name; run_salt name; run_salt test_name; } >"$tmp/s1" 2>&1
"$tmp/fakebin/chroot" "$root" kernel-install add "$KVER" "/boot/vmlinuz-$KVER"
run_salt test_name >"$tmp/s2" 2>&1
check "the Salt state: test=True says changed, the run changes, the step pending stays changed until kernel-install; then unchanged" sh -c "
        test \"\$(grep -c '^exit 0\$' '$tmp/s1')\" = 3 && test \"\$(grep -c '^changed ' '$tmp/s1')\" = 3 &&
        test \"\$(grep -c '^boot_step_pending=yes' '$tmp/s1')\" = 3 && grep -q '^unchanged ' '$tmp/s2' && grep -qx 'boot_step_pending=no' '$tmp/s2'"
last_failed && diag "$(cat "$tmp/s1" "$tmp/s2")"

# ---- the Puppet exec ----
if command -v puppet >/dev/null 2>&1; then
        fresh
        sed "s|/usr/sbin/idlecfg |$ic |" "$tmp/ex.puppet" >"$tmp/site.pp"
        mkdir -p "$tmp/puppet"
        # (every directory of its own, --publicdir too, and a HOME that exists:
        # as a user puppet writes below ~/.puppet, and a package build's HOME need not exist)
        pup() {
                HOME=$tmp/puppet puppet apply --detailed-exitcodes --color=false --confdir="$tmp/puppet/etc" \
                        --vardir="$tmp/puppet/var" --codedir="$tmp/puppet/code" --logdir="$tmp/puppet/log" \
                        --rundir="$tmp/puppet/run" --publicdir="$tmp/puppet/public" "$1"
        }
        # the fake chroot (kernel-install's boot entry) in the PATH the exec's steps run with
        PATH=$tmp/fakebin:$PATH pup "$tmp/site.pp" >"$tmp/p1" 2>&1; rc1=$?
        PATH=$tmp/fakebin:$PATH pup "$tmp/site.pp" >"$tmp/p2" 2>&1; rc2=$?
        sed 's/powersave/no-such-profile/g' "$tmp/site.pp" >"$tmp/bad.pp"
        pup "$tmp/bad.pp" >"$tmp/p3" 2>&1; rc3=$?
        check "the Puppet exec converges: --detailed-exitcodes 2 (installed, the boot step run), then 0 (nothing to do); a bad profile 4 or 6" sh -c "
                test $rc1 -eq 2 && test -f '$root/etc/udev/rules.d/70-idlecfg.rules' && test -f '$entry' && test $rc2 -eq 0 &&
                { test $rc3 -eq 4 || test $rc3 -eq 6; }"
        last_failed && diag "exit $rc1 $rc2 $rc3" "$(tail -8 "$tmp/p1")" "$(tail -5 "$tmp/p2")" "$(tail -5 "$tmp/p3")"
else
        skip "the Puppet exec" "puppet not installed (Debian: puppet)"
fi

# ---- the plain shell script ----
fresh
sed -e "s|^idlecfg |$ic |" -e "s|/run/idlecfg-install.json|$tmp/install.json|g" "$tmp/ex.shell" >"$tmp/install.sh"
PATH=$tmp/fakebin:$PATH sh "$tmp/install.sh" >"$tmp/sh1" 2>&1; rc1=$?
$ic install --check --profile powersave >/dev/null 2>&1; rc2=$?
check "the shell script: installs and runs the boot step (exit 0); install --check then exits 0" sh -c "
        test $rc1 -eq 0 && test -f '$entry' && test $rc2 -eq 0"
last_failed && diag "exit $rc1 $rc2" "$(cat "$tmp/sh1")"
sed 's/powersave/no-such-profile/' "$tmp/install.sh" >"$tmp/bad.sh"
fresh
sh "$tmp/bad.sh" >"$tmp/sh2" 2>&1; rc=$?
check "  a bad profile: the script says so and exits 1, nothing written" sh -c "
        test $rc -eq 1 && grep -q 'idlecfg install failed' '$tmp/sh2' && test ! -e '$root/etc/udev/rules.d/70-idlecfg.rules'"
done_testing
