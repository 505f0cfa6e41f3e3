#!/bin/sh
# tests/family-pci.sh: the [pci] family (src/knobs/pci.c): every value of
# runtime_pm planned on every recorded machine: which PCI functions get
# power/control, which are skipped and why (hwdb and denylist first), the
# udev rules, per-source values and the refusals; the Ethernet controllers by
# driver (desktop-sata's e1000e, and copies of that machine whose NIC has
# another driver, Wake-on-LAN or an external-facing port)
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/family-lib.sh"
plan 21

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
# a profile that keeps balanced's runtime_pm = auto and turns Wake-on-LAN off
value wol pci runtime_pm auto
printf '[network]\nwake_on_lan = off\n' >>"$tmp/profiles/wol.profile"
# nic_variant NAME DRIVER WAKEUP [REMOVABLE]: desktop-sata whose NIC
# (0000:00:19.0, e1000e, power/wakeup enabled) is bound to DRIVER, has
# power/wakeup WAKEUP (absent: no such attribute, a function without PME),
# given, the attribute removable and, given, a config space whose PM
# capability's PMC is the hex word PMC (the recording has none: unknown);
# planned in a
# session of its own (hwdb_variant with no entry) but not among the machines
# the counts above are made of
NIC=/devices/pci0000:00/0000:00:19.0
nic_variant() {
        mkdir -p "$tmp/machines/$1-m"
        cp -R "$TESTS_DATA/machines/desktop-sata/." "$tmp/machines/$1-m/"
        _cfg=
        [ -n "${5:-}" ] && _cfg=$(python3 -c 'import sys
c = bytearray(256)
c[0:4] = bytes.fromhex("8680ef10")           # 8086:10ef
c[6] = 0x10                                  # status: a capability list
c[0x34] = 0xc8                               # the PM capability, alone
pmc = int(sys.argv[1], 16)
c[0xc8:0xcc] = bytes([1, 0, pmc & 0xff, pmc >> 8])
print(c.hex().upper())' "$5")
        awk -v dev="$NIC" -v drv="$2" -v wake="$3" -v rem="${4:-}" -v cfg="$_cfg" '
                /^P: / { p = $2; if (p == dev && cfg != "") { print; print "H: config=" cfg; next } }
                p == dev && /^E: DRIVER=/ { $0 = "E: DRIVER=" drv }
                p == dev && /^L: driver=/ { $0 = "L: driver=../../../bus/pci/drivers/" drv }
                p == dev && /^A: power\/wakeup=/ { n++; if (wake == "absent") next; $0 = "A: power/wakeup=" wake "\\n" }
                p == dev && /^A: revision=/ && rem != "" { print "A: removable=" rem "\\n" }
                { print }
                END { exit n != 1 }' "$TESTS_DATA/machines/desktop-sata/machine.umockdev" \
                >"$tmp/machines/$1-m/machine.umockdev" || { echo "Bail out! nic_variant $1"; exit 1; }
        hwdb_variant "$1" "$1-m" '# no entry'
}
nic_variant nic-e1000e e1000e disabled
nic_variant nic-tg3 tg3 disabled
nic_variant nic-ext e1000e disabled removable
nic_variant nic-r8169 r8169 disabled
# functions that cannot signal PME: no power/wakeup; or power/wakeup (a PCIe
# port's PME service marks every function below it) and a PM capability
# listing no PME, as QEMU's e1000e (PMC 0x0022: version 1.1, DSI); the same
# with a real 82574L's PMC (0xc822: PME from D0, D3hot, D3cold)
nic_variant nic-nopme e1000e absent
nic_variant nic-igb-nopme igb absent
nic_variant nic-qemu e1000e enabled "" 0022
nic_variant nic-pme e1000e enabled "" c822
# the r8169 copy with a local entry saying its NIC runs DASH
hwdb_variant nic-dash nic-r8169 'pci:v00008086d000010EF*
 IDLECFG_NIC_DASH=enabled
 IDLECFG_NIC_DASH_REASON=family test dash'
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
        ok_plans auto && always_skipped auto && every_value auto auto 69 &&
                # the xHCI hosts: auto where the kernel already allows it, else skipped
                grep -q "^intel-laptop|$K|0000:00:0d.0|.*|auto|||udev|.*; xHCI the kernel itself allows runtime PM on (power/control is auto" "$tmp/p" &&
                rows auto $K amd-laptop | grep -q "^amd-laptop|$K|0000:03:00.3|.*|skipped: driver xhci_hcd: not on the kernel's or the hwdb's runtime PM allowlist; xHCI 1.1 hosts" &&
                # the hwdb's platform deny for AHCI (ASUS, TLP #805) wins
                rows auto $K amd-laptop | grep -q "^amd-laptop|$K|0000:04:00.0|.*|skipped: AHCI controller: hwdb /usr/lib/udev/hwdb.d/60-idlecfg-platform.hwdb:[0-9]* (AHCI runtime PM takes the USB ports down"
}
check "auto: power/control=auto on 69 functions; mei_me, GPUs, ports, bridges, the VM's functions skipped; xHCI 1.1 suspects and the ASUS AHCI platform (hwdb) skipped" auto_case
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
# the NIC's row (0000:00:19.0): value|reason
nic() { rows "$1" $K "$2" | grep "|0000:00:19.0|" | cut -d'|' -f8,12; }
R8169_IDLE="rtl8169_runtime_idle() (drivers/net/ethernet/realtek/r8169_main.c) schedules runtime suspend 10 s after the carrier goes down, and refuses it while DASH is enabled (tp->dash_enabled)"
E1000E_IDLE="e1000e_pm_runtime_idle() (drivers/net/ethernet/intel/e1000e/netdev.c) schedules runtime suspend 5 s after e1000e_has_link() finds no link"
nic_linkaware() {
        [ "$(nic auto nic-e1000e)" = "auto|$(reason_of auto pci runtime_pm auto); Ethernet controller: $E1000E_IDLE" ] &&
                [ "$(nic auto nic-r8169)" = "auto|$(reason_of auto pci runtime_pm auto); Ethernet controller: $R8169_IDLE" ] ||
                { nic auto nic-e1000e; nic auto nic-r8169; return 1; }
}
check "auto: an Ethernet controller whose driver suspends it when the link goes down (e1000e, r8169) gets auto, the reason naming the driver's runtime idle callback" nic_linkaware
nic_hollow() {
        [ "$(nic auto nic-tg3)" = "|skipped: Ethernet controller, driver tg3: not one whose runtime idle suspends the NIC when the link goes down (r8169, e1000e, igb, igc), so power/control = auto would do nothing" ] &&
                [ "$(nic on nic-tg3)" = "on|$(reason_of on pci runtime_pm on)" ] || { nic auto nic-tg3; nic on nic-tg3; return 1; }
}
check "auto: a NIC whose driver never runtime-suspends it (tg3) is skipped saying the write would be hollow; on still plans on" nic_hollow
nic_external() {
        nic auto nic-ext | grep -q "^|skipped: below external-facing port .*removable from 0000:00:19.0 on.*: the kernel's default stays; \\[removable\\] policy = same to change" &&
                rows auto $K nic-ext | grep -v "|0000:00:19.0|" >"$tmp/ext" && rows auto $K nic-e1000e | grep -v "|0000:00:19.0|" | sed 's/^nic-e1000e|/nic-ext|/' | diff - "$tmp/ext"
}
check "auto: the same e1000e behind an external-facing port (removable = removable) is skipped by [removable] (balanced keeps the kernel's default there); nothing else of the plan changes" nic_external
last_failed && diag "$(nic auto nic-ext)"
nic_wol() {
        nic auto desktop-sata | grep -q "^|skipped: Ethernet controller (e1000e) with Wake-on-LAN armed (power/wakeup = enabled) and kept by the profile: e1000e_pm_runtime_suspend() calls __e1000_shutdown(pdev, true), which arms only the link-change wake (E1000_WUFC_LNKC)" &&
                [ "$(nic wol desktop-sata)" = "auto|$(reason_of wol pci runtime_pm auto); Ethernet controller: $E1000E_IDLE; Wake-on-LAN, armed now, is turned off by [network] wake_on_lan = off" ] &&
                [ "$(nic on desktop-sata)" = "on|$(reason_of on pci runtime_pm on)" ] ||
                { nic auto desktop-sata; nic wol desktop-sata; return 1; }
}
check "auto: desktop-sata's e1000e with Wake-on-LAN armed is skipped (its runtime suspend arms only the link-change wake); kept when the profile turns Wake-on-LAN off; on plans on" nic_wol
nic_nopme() {
        [ "$(nic auto nic-nopme)" = "|skipped: Ethernet controller (e1000e) that cannot signal PME (no power/wakeup: its PM capability lists none), so no wake on link change: e1000_probe() (drivers/net/ethernet/intel/e1000e/netdev.c) drops its runtime PM hold only where pci_dev_run_wake() finds PME, so the NIC stays active and power/control = auto would do nothing" ] &&
                [ "$(nic auto nic-igb-nopme)" = "|skipped: Ethernet controller (igb) that cannot signal PME (no power/wakeup: its PM capability lists none), so no wake on link change: igb_probe() (drivers/net/ethernet/intel/igb/igb_main.c) lets it runtime-suspend all the same, and without PME nothing wakes it when the cable comes back: the link would stay down" ] &&
                [ "$(nic on nic-nopme)" = "on|$(reason_of on pci runtime_pm on)" ] &&
                nic auto nic-e1000e | grep -q "^auto|" ||
                { nic auto nic-nopme; nic auto nic-igb-nopme; nic on nic-nopme; return 1; }
}
check "auto: an e1000e or igb function without power/wakeup (so without PME) is skipped: e1000e's driver keeps it active, igb's would suspend it with no wake on link up; the same NIC with power/wakeup gets auto; on still plans on" nic_nopme
nic_pmc() {
        [ "$(nic wol nic-qemu)" = "|skipped: Ethernet controller (e1000e) that cannot signal PME (its PM capability lists none), so no wake on link change: e1000_probe() (drivers/net/ethernet/intel/e1000e/netdev.c) drops its runtime PM hold only where pci_dev_run_wake() finds PME, so the NIC stays active and power/control = auto would do nothing" ] &&
                nic wol nic-pme | grep -q "^auto|.*Ethernet controller: $E1000E_IDLE" ||
                { nic wol nic-qemu; nic wol nic-pme; return 1; }
}
check "wol: with power/wakeup (a PCIe port's PME service marks every function below it), the config space decides: QEMU's e1000e (PMC 0x0022, no PME) is skipped, a real 82574L's (PMC 0xc822) gets auto" nic_pmc
HD=/etc/udev/hwdb.d/99-nic-dash.hwdb
nic_dash_deny() {
        [ "$(nic auto nic-dash)" = "|skipped: r8169 in DASH mode (hwdb $HD:3 (family test dash)): remote management needs the port up; $R8169_IDLE" ] ||
                { nic auto nic-dash; return 1; }
}
hwdb_point deny IDLECFG_NIC_DASH "an entry saying the r8169 NIC runs DASH skips it with the entry's reason" nic_dash_deny
nic_dash_keep() {
        nic auto nic-r8169 | grep -q "^auto|" && [ "$(nic on nic-dash)" = "on|$(reason_of on pci runtime_pm on)" ]
}
hwdb_point keep IDLECFG_NIC_DASH "without the entry the r8169 NIC gets auto; with it, on is still planned" nic_dash_keep
check "a word runtime_pm does not take is refused with the file and line" \
        refused_word bad pci runtime_pm "unknown value 'off' for [pci] runtime_pm; valid: auto, on, keep"
each_only() {
        while read -r _id _f; do
                case $_id in balanced|bad) continue ;; wol) only_knob wol $K network.wake_on_lan || return 1 ;;
                *) only_knob "$_id" $K || return 1 ;; esac
        done <"$tmp/cases"
}
check "every value changes pci.runtime_pm alone (wol: and Wake-on-LAN): the rest of each plan is balanced's" each_only
done_testing
