#!/bin/sh
# tests/refresh-sleep.sh: refresh's cheap look compares /sys/power/mem_sleep
# (the manifest's "input mem_sleep"), which the suspend and pcie_aspm
# families plan on: firmware that starts offering S3 (an s2idle-only machine
# gets "s2idle [deep]") or stops makes refresh re-plan, where the fingerprint
# and the files are the same. On the AMD laptop's recording under umockdev
# ([s2idle]: no global pcie_aspm policy, AMD's s2idle checker fails any but
# default; with deep the default, powersave's policy goes on the command line).
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3
plan 6

root=$tmp/root
mkroot_installed "$TESTS_DATA/machines/amd-laptop" "$root" || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/var/lib" "$root/run" "$root/etc/kernel" "$root/boot/loader/entries"
printf 'root=/dev/nvme0n1p2 ro\n' >"$root/etc/kernel/cmdline"
# the boot entry kernel-install makes from /etc/kernel/cmdline: the boot
# configuration lacks nothing either way (no exit 4)
printf 'version %s\noptions root=/dev/nvme0n1p2 ro pcie_aspm.policy=powersupersave\n' "$KVER" \
        >"$root/boot/loader/entries/test.conf"
manifest=$root/var/lib/idlecfg/manifest

# one session: each step's output in $out.N (with its exit status), the manifest after it in $out.N.m
cat >"$tmp/steps.sh" <<'SH'
ic() { "$IDLECFG" --root "$root" --kernel "$KVER" "$@"; }
step() { _n=$1; shift; "$@" >"$out.$_n" 2>&1; echo "rc=$?" >>"$out.$_n"; cp "$manifest" "$out.$_n.m"; }
firmware() { printf '%s\n' "$1" >"$UMOCKDEV_DIR/sys/power/mem_sleep"; }
step 1 ic install --profile powersave
ic plan --json --profile powersave >"$out.plan1" 2>&1
step 2 ic refresh
firmware 's2idle [deep]'
step 3 ic refresh
ic plan --json --profile powersave >"$out.plan3" 2>&1
step 4 ic refresh
firmware '[s2idle]'
step 5 ic refresh
SH
out=$tmp/out
run_machine "$TESTS_DATA/machines/amd-laptop" env IDLECFG="$IDLECFG" root="$root" KVER="$KVER" manifest="$manifest" \
        out="$out" sh "$tmp/steps.sh" >"$tmp/session.log" 2>&1

quiet() { [ "$(cat "$out.$1")" = "rc=0" ] && cmp -s "$out.$(($1 - 1)).m" "$out.$1.m"; }
# replanned N WHAT: refresh N says WHAT changed, exits 0 and writes a new manifest
replanned() {
        grep -qxF "  $2" "$out.$1" && grep -q '^rc=0$' "$out.$1" && ! cmp -s "$out.$(($1 - 1)).m" "$out.$1.m" ||
                { diag "refresh $1:"; sed 's/^/  /' "$out.$1" | diag "$(cat)"; return 1; }
}
# policy N: the plan's global pcie_aspm policy (its value, or "none")
policy() {
        python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
v = [s.get("value") for s in p["settings"] if s["knob"] == "pcie_aspm.policy" and s.get("param") == "policy"]
print(v[0] if v else "none")' "$out.plan$1"
}

check "install records the firmware's suspend variants: input mem_sleep [s2idle]" grep -qx 'input mem_sleep \[s2idle\]' "$out.1.m"
last_failed && diag "$(cat "$tmp/session.log")"
check "refresh with nothing changed: quiet" quiet 2
check "the firmware offers deep, the default now: refresh re-plans, naming both" \
        replanned 3 "mem_sleep: [s2idle] -> s2idle [deep]"
check "and the plan changed with it: no global pcie_aspm policy on s2idle, powersave's with deep ($(policy 1 2>&1) -> $(policy 3 2>&1))" \
        sh -c '[ "$1" = none ] && [ "$2" != none ] && grep -qx "input mem_sleep s2idle\\\\x20\[deep\]" "$3"' sh \
        "$(policy 1 2>&1)" "$(policy 3 2>&1)" "$out.3.m"
check "then quiet" quiet 4
check "s2idle only again: re-plans" replanned 5 "mem_sleep: s2idle [deep] -> [s2idle]"

done_testing
