#!/bin/sh
# tests/family-removable.sh: the [removable] family (src/knobs/removable.c):
# devices below an external-facing port keep the kernel's runtime PM and
# autosuspend unless [removable] policy (dock, for a dock's devices) is same;
# plan and explain name the port. No recorded machine has a removable PCI
# device: intel-dock is intel-laptop with tests/data/removable/dock.umockdev
# appended (synthetic, its header names the facts): a Thunderbolt dock on the
# external-facing port 0000:00:07.0 (its switch 02:00.0, an igc NIC 04:00.0,
# an xHCI 05:00.0 with a USB stick 5-1) and a card reader 2b:00.0 alone on
# 0000:00:07.1. intel-usb4 is intel-laptop with tests/data/removable/usb4-dock.umockdev
# (synthetic, its header names the kernel facts): a USB4 hub router 0-1 on
# usb4_port1, whose USB3 tunnel ends on the built-in TCSS xHCI's root-hub port
# usb4-port1 (a stick on 4-1.2), both ports linked to Type-C connector port0,
# and a stick plugged straight into the other connector (4-2); intel-usb4-nolinks
# is the same without the connector links (a kernel before 5.17/5.19, no _PLD).
# The recorded machines must not change.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/family-lib.sh"
plan 20

D=intel-dock
mkdir -p "$tmp/machines/$D"
cp -R "$TESTS_DATA/machines/intel-laptop/." "$tmp/machines/$D/"
{ cat "$TESTS_DATA/machines/intel-laptop/machine.umockdev" && echo &&
        cat "$top_srcdir/tests/data/removable/dock.umockdev"; } >"$tmp/machines/$D/machine.umockdev"
FAMILY_MACHINES="$FAMILY_MACHINES $D"
# usb4_machine NAME SED: intel-laptop with usb4-dock.umockdev, whose blocks
# replace intel-laptop's of the same P: path (umockdev takes a device once)
# and add the others; SED edits the result
usb4_machine() {
        _u4=$top_srcdir/tests/data/removable/usb4-dock.umockdev
        mkdir -p "$tmp/machines/$1"
        cp -R "$TESTS_DATA/machines/intel-laptop/." "$tmp/machines/$1/"
        { awk -v rec="$_u4" 'BEGIN { while ((getline l < rec) > 0) if (l ~ /^P: /) mine[l] = 1 }
                /^P: / { skip = ($0 in mine) }
                !skip { print }
                /^$/ { skip = 0 }' "$TESTS_DATA/machines/intel-laptop/machine.umockdev" && echo && cat "$_u4"; } |
                sed "$2" >"$tmp/machines/$1/machine.umockdev"
        FAMILY_MACHINES="$FAMILY_MACHINES $1"
}
U4=intel-usb4 U4N=intel-usb4-nolinks
usb4_machine $U4 ''
usb4_machine $U4N '/^L: .*connector=/d; /^L: usb4[-_]port/d'

value same removable policy same udev
value keep removable policy keep udev
value dock removable dock same udev
value bad removable policy never
# Thunderbolt quirks: intel-laptop whose NHI 0000:00:0d.2 is active, and
# the same with a local entry giving that NHI (8086:463e) a kernel quirk
variant intel-tbactive intel-laptop 0000:00:0d.2 power/runtime_status active
hwdb_variant tb-quirk intel-tbactive 'pci:v00008086d0000463E*
 IDLECFG_THUNDERBOLT_QUIRK=keep_power_in_dp_redrive
 IDLECFG_THUNDERBOLT_QUIRK_REASON=family test quirk'
# the dock's NIC denied by the pci family's own list: the lists decide first
hwdb_variant dock-deny $D 'pci:v00008086d000015F3*
 IDLECFG_PCI_RUNTIME_PM=deny
 IDLECFG_PCI_RUNTIME_PM_REASON=family test deny'
plan_all

P=pci.runtime_pm U=usb.autosuspend
PORT0="in a dock below external-facing port 0000:00:07.0 (removable; PCIe switch 0000:02:00.0: a Thunderbolt or USB4 device router)"
PORT1="below external-facing port 0000:00:07.1 (removable from 0000:2b:00.0 on)"

# row ID KNOB DEVICE [MACHINE]: value|reason of KNOB on DEVICE
row() {
        rows "$1" "$2" "${4:-$D}" | awk -F'|' -v d="$3" '$3 == d' | cut -d'|' -f8,12
}
# skipped ID KNOB DEVICE WHERE KEY: a skip naming the port, the key and what it would have been
skipped() {
        _r=$(row "$1" "$2" "$3")
        case $_r in
        "|skipped: $4: the kernel's default stays; [removable] $5 = same to change (profile "*"); without it: auto, "*) ;;
        *) echo "$1 $2 $3: $_r"; return 1 ;;
        esac
}
# same ID KNOB DEVICE WHERE KEY: planned auto, the reason naming the port and the profile line
same() {
        _r=$(row "$1" "$2" "$3")
        case $_r in
        "auto|"*"; $4: planned like a built-in device, $(reason_of "$1" removable "$5" same)") ;;
        *) echo "$1 $2 $3: $_r"; return 1 ;;
        esac
}

default_case() {
        ok_plans balanced && skipped balanced $P 0000:04:00.0 "$PORT0" dock &&
                skipped balanced $U 5-1 "$PORT0" dock && skipped balanced $P 0000:2b:00.0 "$PORT1" policy &&
                row balanced $P 0000:04:00.0 | grep -qF "(profile balanced [removable] dock = keep ($(balanced_at removable dock)))"
}
check "balanced (dock = keep, policy = keep): the dock's NIC and USB stick and the lone card reader skipped, naming port, key and the value they would have had" default_case
# cols ID MACHINE: knob|device|value|mechanism of every row
cols() { awk -F'|' '{ print $2 "|" $3 "|" $8 "|" $11 }' "$tmp/out/$2/$1.flat"; }
keep_case() {
        ok_plans keep && skipped keep $P 0000:2b:00.0 "$PORT1" policy && cols keep $D >"$tmp/c.keep" &&
                cols balanced $D >"$tmp/c.b" && diff -u "$tmp/c.b" "$tmp/c.keep"
}
check "policy = keep: what balanced plans, the card reader's skip naming the key" keep_case
same_case() {
        ok_plans same && same same $P 0000:2b:00.0 "$PORT1" policy &&
                skipped same $P 0000:04:00.0 "$PORT0" dock && skipped same $U 5-1 "$PORT0" dock
}
check "removable.policy = same: the card reader planned auto, its reason naming port 0000:00:07.1; the dock's devices still skipped (dock = keep)" same_case
dock_case() {
        ok_plans dock && same dock $P 0000:04:00.0 "$PORT0" dock && same dock $U 5-1 "$PORT0" dock &&
                skipped dock $P 0000:2b:00.0 "$PORT1" policy
}
check "removable.dock = same: the dock's NIC and USB stick planned auto naming the port and switch; the card reader still skipped" dock_case
check "dock = same: the udev rules write the dock's NIC" sh -c "grep -q '# $P on 0000:04:00.0' '$(out $D dock udev)' && ! grep -q '# $P on 0000:04:00.0' '$(out $D keep udev)'"
check "dock = same: the udev rules write exactly the planned functions" udev_rules dock $P

deny() {
        _r=$(row dock $P 0000:04:00.0 dock-deny)
        [ "$_r" = "|skipped: hwdb /etc/udev/hwdb.d/99-dock-deny.hwdb:3 (family test deny)" ] || { echo "$_r"; return 1; }
}
deny_case() {
        deny && [ "$(row dock $U 5-1 dock-deny | cut -d'|' -f1)" = auto ] || { row dock $U 5-1 dock-deny; return 1; }
}
check "dock = same with an hwdb deny for the dock's NIC: skipped with the hwdb's reason (the family's lists first), the USB stick still planned" deny_case
keep_nodeny() {
        [ "$(row dock $P 0000:04:00.0 | cut -d'|' -f1)" = auto ]
}
check "keep: without the entry, dock = same plans the NIC auto" keep_nodeny

# the USB4 dock's tunnel: 4-1.2 on root-hub port usb4-port1, which shares connector port0 with usb4_port1
TUN="in a USB4 dock on usb4_port1 (router 0-1, USB4_TYPE=hub, Synthetic Docks USB4 Hub Dock; the router's USB3 tunnel to root-hub port usb4-port1, which shares Type-C connector port0 with usb4_port1)"
# urow ID DEVICE [MACHINE]: value|reason of usb.autosuspend on DEVICE of intel-usb4
urow() { row "$1" $U "$2" "${3:-$U4}"; }
# builtin ID DEVICE [MACHINE]: planned auto, no removable words in its reason
builtin() {
        _r=$(urow "$@")
        case $_r in
        "auto|"*"external-facing"* | "auto|"*USB4*) echo "$1 $2: $_r"; return 1 ;;
        "auto|"*) ;;
        *) echo "$1 $2: $_r"; return 1 ;;
        esac
}
usb4_keep() {
        _r=$(urow balanced 4-1.2)
        case $_r in
        "|skipped: $TUN: the kernel's default stays; [removable] dock = same to change (profile "*"); without it: auto, "*) ;;
        *) echo "4-1.2: $_r"; return 1 ;;
        esac
        builtin balanced 4-2 && builtin balanced 1-7 && builtin same 4-2 && _r=$(urow same 4-1.2) &&
                case $_r in "|skipped: $TUN: "*"[removable] dock = same to change"*) ;; *) echo "same 4-1.2: $_r"; return 1 ;; esac
}
check "USB4 tunnel, dock = keep (balanced; policy = same too): the stick in the dock's USB3 tunnel skipped naming usb4_port1, router 0-1 and connector port0; the stick in the other connector and the built-in 1-7 planned" usb4_keep
usb4_same() {
        _r=$(urow dock 4-1.2)
        case $_r in
        "auto|"*"; $TUN: planned like a built-in device, $(reason_of dock removable dock same)") ;;
        *) echo "dock 4-1.2: $_r"; return 1 ;;
        esac
        builtin dock 4-2 && builtin dock 1-7
}
check "USB4 tunnel, dock = same: the tunnelled stick planned auto, its reason naming the USB4 port and router; 4-2 and 1-7 planned as before" usb4_same
check "USB4 tunnel, dock = same: the udev rules write the tunnelled stick, dock = keep's do not" sh -c "grep -q '# $U on 4-1.2: ' '$(out $U4 dock udev)' && ! grep -q '# $U on 4-1.2: ' '$(out $U4 keep udev)' && grep -q '# $U on 4-2: ' '$(out $U4 keep udev)'"
usb4_nolinks() {
        builtin balanced 4-1.2 $U4N && builtin dock 4-1.2 $U4N && builtin balanced 4-2 $U4N &&
                cols balanced $U4N >"$tmp/n.b" && cols dock $U4N >"$tmp/n.d" && diff -u "$tmp/n.b" "$tmp/n.d" &&
                grep -v '^usb.autosuspend|4-1.2|\|^usb.autosuspend|4-2|' "$tmp/n.b" >"$tmp/n.b1" && cols balanced intel-laptop >"$tmp/n.l" &&
                diff -u "$tmp/n.l" "$tmp/n.b1"
}
check "USB4 tunnel without the connector links: nothing told apart, the tunnelled stick planned like a built-in device whatever dock says; the rest is intel-laptop's plan" usb4_nolinks
# explain_of MACHINE DEVICE: explain's text
explain_of() {
        run_machine "$tmp/machines/$1" "$IDLECFG" explain "$2" --root "$tmp/$1-root" --kernel "$KVER" 2>&1
}
usb4_explain() {
        explain_of $U4 4-1.2 >"$tmp/u4x" && grep -qxF "  removable: $TUN" "$tmp/u4x" &&
                grep -qF "  usb.autosuspend: skipped: $TUN: the kernel's default stays" "$tmp/u4x" || { cat "$tmp/u4x"; return 1; }
        for _dev in 4-2 1-7; do
                explain_of $U4 $_dev >"$tmp/u4y" && ! grep -q "removable" "$tmp/u4y" || { cat "$tmp/u4y"; return 1; }
        done
}
check "explain 4-1.2: in a USB4 dock on usb4_port1, router 0-1, connector port0, and the skip; explain 4-2 and 1-7 say nothing removable" usb4_explain
UNTOLD="  removable: not told apart: USB4 dock (router 0-1, USB4_TYPE=hub, Synthetic Docks USB4 Hub Dock) is attached on usb4_port1, but the kernel links no Type-C connector to it, and root-hub port"
UNTOLD2="has no connector link: a device in its USB3 tunnel or on the connector's USB 2 lines is planned like a built-in device (the connector links need the Type-C connector class, firmware that describes the connectors (ACPI _PLD), Linux 5.17 for USB ports and 5.19 for USB4 ports)"
usb4_untold() {
        explain_of $U4N 4-1.2 >"$tmp/u4n" && grep -qxF "$UNTOLD usb4-port1 $UNTOLD2" "$tmp/u4n" || { cat "$tmp/u4n"; return 1; }
        explain_of $U4N 1-7 >"$tmp/u4n7" && grep -qxF "$UNTOLD usb1-port7 $UNTOLD2" "$tmp/u4n7" || { cat "$tmp/u4n7"; return 1; }
}
check "explain without the links: 4-1.2 (and any USB device, 1-7 alike) not told apart, naming the router, its USB4 port, the root-hub port and what the links need" usb4_untold
recorded() {
        for _m in $(cd "$TESTS_DATA/machines" && ls -d */ | tr -d /); do
                for _id in same keep dock; do
                        grep -q "external-facing" "$tmp/out/$_m/$_id.flat" && { echo "$_m $_id: a removable row"; return 1; }
                        cols "$_id" "$_m" >"$tmp/r.$_id"
                        cols balanced "$_m" >"$tmp/r.b"
                        cmp -s "$tmp/r.$_id" "$tmp/r.b" || { echo "$_m $_id differs from balanced"; return 1; }
                done
        done
}
check "the recorded machines (no removable device): every value plans what balanced does, no row names a port" recorded

explain_case() {
        run_machine "$tmp/machines/$D" "$IDLECFG" explain 5-1 --root "$tmp/$D-root" --kernel "$KVER" >"$tmp/ex" 2>&1 &&
                grep -qxF "  removable: $PORT0" "$tmp/ex" &&
                grep -qF "  usb.autosuspend: skipped: $PORT0: the kernel's default stays" "$tmp/ex" || { cat "$tmp/ex"; return 1; }
}
check "explain 5-1: says which port made it removable, and the skip" explain_case

TBQ="kernel Thunderbolt quirk keep_power_in_dp_redrive (hwdb /etc/udev/hwdb.d/99-tb-quirk.hwdb:3 (family test quirk)): the kernel applies it; nothing to plan"
shown() {
        [ "$(row balanced thunderbolt.quirk 0000:00:0d.2 tb-quirk)" = "|$TBQ" ] || { row balanced thunderbolt.quirk 0000:00:0d.2 tb-quirk; return 1; }
}
hwdb_point shown IDLECFG_THUNDERBOLT_QUIRK "an entry for intel-laptop's NHI: plan has the kernel quirk's row on 0000:00:0d.2, with the entry's reason" shown
# verify_of MACHINE: verify's text on MACHINE (its root from plan_all)
verify_of() {
        run_machine "$(machine_dir "$1")" "$IDLECFG" verify --root "$tmp/$1-root" --kernel "$KVER" 2>&1
        return 0        # 1: drift (nothing is installed), which these points do not ask
}
shown_verify() {
        run_machine "$(machine_dir tb-quirk)" "$IDLECFG" explain 0000:00:0d.2 --root "$tmp/tb-quirk-root" --kernel "$KVER" >"$tmp/tbx" 2>&1
        grep -qxF "  thunderbolt.quirk: $TBQ" "$tmp/tbx" || { cat "$tmp/tbx"; return 1; }
        verify_of tb-quirk >"$tmp/tbv"
        grep -qF "  0000:00:0d.2 (pci): runtime PM is allowed but the device is active (in use, or a child keeps it awake); kept on purpose: $TBQ" "$tmp/tbv" ||
                { grep -F 0d.2 "$tmp/tbv"; return 1; }
}
check "the Thunderbolt quirk: explain 0000:00:0d.2 lists it, verify names it for the active NHI" shown_verify
tb_keep() {
        [ -z "$(rows balanced thunderbolt.quirk intel-tbactive $FAMILY_MACHINES)" ] &&
                verify_of intel-tbactive >"$tmp/tbk" &&
                grep -qxF "  0000:00:0d.2 (pci): runtime PM is allowed but the device is active (in use, or a child keeps it awake)" "$tmp/tbk" ||
                { grep -F 0d.2 "$tmp/tbk"; return 1; }
}
hwdb_point keep IDLECFG_THUNDERBOLT_QUIRK "without the entry: no quirk row on any machine, verify's line for the active NHI names none" tb_keep

M="unknown value 'never' for [removable] policy"
check "a word policy does not take: refused, file and line" refused_word bad removable policy "$M; valid: same, keep"

done_testing
