#!/bin/sh
# tests/family-pci.sh: the [pci] family (src/knobs/pci.c): every value of
# runtime_pm planned on every recorded machine: which PCI functions get
# power/control, which are skipped and why (hwdb and denylist first), the
# udev rules, per-source values and the refusals
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/family-lib.sh"
plan 13

value auto pci runtime_pm auto udev
value on pci runtime_pm on udev
value keep pci runtime_pm keep udev
value src pci runtime_pm "ac:on battery:auto"
value src2 pci runtime_pm "ac:auto battery:on"
value bad pci runtime_pm off
# intel-laptop with a local hwdb: its SMBus controller denied, its ME
# interface (mei_me, on the driver denylist) allowed
hwdb_variant pci-hwdb intel-laptop 'pci:v00008086d000051A3*
 IDLECFG_PCI_RUNTIME_PM=deny
 IDLECFG_PCI_RUNTIME_PM_REASON=family test deny

pci:v00008086d000051E0*
 IDLECFG_PCI_RUNTIME_PM=allow
 IDLECFG_PCI_RUNTIME_PM_REASON=family test allow'
plan_all
K=pci.runtime_pm

# the skips every value but keep makes, whatever it asks for
always_skipped() {
        rows "$1" $K >"$tmp/all"
        grep -q "^intel-laptop|$K|0000:00:16.0|.*|skipped: driver mei_me: Intel ME interface" "$tmp/all" &&
                grep -q "^amd-laptop|$K|0000:03:00.0|.*|skipped: driver amdgpu: GPU: the driver's runpm manages it" "$tmp/all" &&
                grep -q "^desktop-sata|$K|0000:01:00.0|.*|skipped: driver radeon: " "$tmp/all" &&
                grep -q "^intel-laptop|$K|0000:00:02.0|.*|skipped: driver i915: " "$tmp/all" &&
                grep -q "^desktop-sata|$K|0000:00:1e.0|.*|skipped: PCI bridge: the kernel manages the runtime PM of ports$" "$tmp/all" &&
                [ "$(grep -c "|skipped: driver pcieport: " "$tmp/all")" -eq 13 ] &&
                # the VM: nothing on any function, each skip saying why
                [ "$(grep -c "^buildhost|" "$tmp/all")" -eq 6 ] &&
                [ "$(grep "^buildhost|" "$tmp/all" | grep -c '|skipped: virtual machine (CPUID hypervisor flag): ')" -eq 6 ] ||
                { cat "$tmp/all"; return 1; }
}
# every_value ID VALUE N: N functions get VALUE by udev from the profile line, nothing else
every_value() {
        planned "$1" $K >"$tmp/p"
        [ "$(wc -l <"$tmp/p")" -eq "$3" ] || { echo "$(wc -l <"$tmp/p") planned, not $3"; cat "$tmp/p"; return 1; }
        ! awk -F'|' -v v="$2" -v r="$(reason_of "$1" pci runtime_pm "$2")" \
                '$5 != "power/control" || $8 != v || $11 != "udev" || index($12, r) != 1' "$tmp/p" | grep .
}
auto_case() {
        ok_plans auto && always_skipped auto && every_value auto auto 70 &&
                # the xHCI hosts: auto where the kernel already allows it, else skipped
                grep -q "^intel-laptop|$K|0000:00:0d.0|.*|auto|||udev|.*; xHCI the kernel itself allows runtime PM on (power/control is auto" "$tmp/p" &&
                rows auto $K amd-laptop | grep -q "^amd-laptop|$K|0000:03:00.3|.*|skipped: driver xhci_hcd: not on the kernel's or the hwdb's runtime PM allowlist; xHCI 1.1 hosts" &&
                # the hwdb's platform deny for AHCI (ASUS, TLP #805) wins
                rows auto $K amd-laptop | grep -q "^amd-laptop|$K|0000:04:00.0|.*|skipped: AHCI controller: hwdb /usr/lib/udev/hwdb.d/60-idlecfg-platform.hwdb:[0-9]* (AHCI runtime PM takes the USB ports down"
}
check "auto: power/control=auto on 70 functions; mei_me, GPUs, ports, bridges, the VM's functions skipped; xHCI 1.1 suspects and the ASUS AHCI platform (hwdb) skipped" auto_case
check "auto: the udev rules write auto to exactly those functions" udev_rules auto $K
on_case() {
        ok_plans on && always_skipped on && every_value on on 74 &&
                # on lifts the auto-only skips: xHCI and the hwdb's AHCI deny (both are about suspending)
                grep -q "^amd-laptop|$K|0000:03:00.3|.*|on|||udev|" "$tmp/p" &&
                grep -q "^amd-laptop|$K|0000:04:00.0|.*|on|||udev|" "$tmp/p"
}
check "on: power/control=on on 74 functions (the xHCI hosts and AHCI controllers auto skips too); the denylist still skips" on_case
check "on: the udev rules write on to exactly those functions" udev_rules on $K
check "keep: nothing planned, one skip naming the profile line, no udev rule of pci.runtime_pm" kept keep $K pci runtime_pm udev
check "ac:on battery:auto: on's functions with value on, battery auto where auto plans it, the xHCI hosts stay on saying why" per_source src $K on auto
skipped_on_battery() {
        planned src $K | grep -q "^amd-laptop|$K|0000:03:00.3|.*|on|||udev|.*; on battery: skipped: driver xhci_hcd: "
}
check "ac:on battery:auto: the xHCI 1.1 suspect keeps on on battery (auto is refused there)" skipped_on_battery
check "ac:auto battery:on: auto's functions, battery on" per_source src2 $K auto on
battery_only() {
        # the xHCI hosts auto skips would be on on battery only: not switched, a warning says so
        python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["warnings"]
sys.exit(0 if any(x.startswith("pci.runtime_pm on 0000:03:00.3: planned on battery only (on)") for x in w) else 1)' \
                "$(out amd-laptop src2 json)" && ! planned src2 $K | grep -q '|0000:03:00.3|'
}
check "ac:auto battery:on: a function skipped on AC stays skipped, with a warning that it is on battery only" battery_only
HW=/etc/udev/hwdb.d/99-pci-hwdb.hwdb
# the SMBus controller's row, on the recording and with the local hwdb
smbus() { rows "$1" $K "$2" | grep "|0000:00:1f.4|" | cut -d'|' -f8,12; }
hwdb_deny() {
        for _v in auto on src; do
                [ "$(smbus $_v pci-hwdb)" = "|skipped: hwdb $HW:3 (family test deny)" ] ||
                        { echo "$_v: $(smbus $_v pci-hwdb)"; return 1; }
        done
}
hwdb_point deny IDLECFG_PCI_RUNTIME_PM "an entry with deny skips intel-laptop's SMBus controller with the entry's reason, whatever the profile asks (auto, on, ac:on battery:auto)" hwdb_deny
hwdb_keep() {
        [ "$(smbus auto intel-laptop)" = "auto|$(reason_of auto pci runtime_pm auto)" ] &&
                [ "$(smbus on intel-laptop)" = "on|$(reason_of on pci runtime_pm on)" ] &&
                [ "$(rows auto $K pci-hwdb | grep "|0000:00:16.0|" | cut -d'|' -f8,12)" = "auto|hwdb $HW:7 (family test allow)" ] &&
                rows auto $K intel-laptop | grep -q "|0000:00:16.0|.*|skipped: driver mei_me: "
}
hwdb_point keep IDLECFG_PCI_RUNTIME_PM "without the entry the SMBus controller gets the profile's value; an entry with allow gives auto to the ME interface the driver denylist skips" hwdb_keep
check "a word runtime_pm does not take is refused with the file and line" \
        refused_word bad pci runtime_pm "unknown value 'off' for [pci] runtime_pm; valid: auto, on, keep"
check "every value changes pci.runtime_pm alone: the rest of each plan is balanced's" only_knobs $K
done_testing
