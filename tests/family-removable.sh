#!/bin/sh
# tests/family-removable.sh: the [removable] family (src/knobs/removable.c):
# devices below an external-facing port keep the kernel's runtime PM and
# autosuspend unless [removable] policy (dock, for a dock's devices) is same;
# plan and explain name the port. No recorded machine has a removable PCI
# device: intel-dock is intel-laptop with tests/data/removable/dock.umockdev
# appended (synthetic, its header names the facts): a Thunderbolt dock on the
# external-facing port 0000:00:07.0 (its switch 02:00.0, an igc NIC 04:00.0,
# an xHCI 05:00.0 with a USB stick 5-1) and a card reader 2b:00.0 alone on
# 0000:00:07.1. The recorded machines must not change.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/family-lib.sh"
plan 11

D=intel-dock
mkdir -p "$tmp/machines/$D"
cp -R "$TESTS_DATA/machines/intel-laptop/." "$tmp/machines/$D/"
{ cat "$TESTS_DATA/machines/intel-laptop/machine.umockdev" && echo &&
        cat "$top_srcdir/tests/data/removable/dock.umockdev"; } >"$tmp/machines/$D/machine.umockdev"
FAMILY_MACHINES="$FAMILY_MACHINES $D"

value same removable policy same udev
value keep removable policy keep udev
value dock removable dock same udev
value bad removable policy never
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

M="unknown value 'never' for [removable] policy"
check "a word policy does not take: refused, file and line" refused_word bad removable policy "$M; valid: same, keep"

done_testing
