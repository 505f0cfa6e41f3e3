#!/bin/sh
# tests/family-wakeup.sh: the [wakeup] family (src/knobs/wakeup.c): every
# value of spurious planned on every recorded machine. msi-claw's i8042
# keyboard port (serio0) meets the shipped machine entry of
# hwdb/60-idlecfg-wakeup.hwdb; a copy of amd-laptop whose touchpad is the
# IDEA5002 device meets the shipped acpi: entry; a copy of msi-claw under
# another product name, with a test entry for every translated keyboard port
# (serio:ty06*, no machine), shows the guard: the keyboard port stays a wake
# source whatever a generic entry says. The other machines have no wake
# source an entry names: nothing, not even a skip.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/family-lib.sh"
plan 11

family_root() {
        mkdir -p "$1/etc/udev/hwdb.d"
        case $2 in
        claw-other)
                cat >"$1/etc/udev/hwdb.d/99-family-wakeup.hwdb" <<'HWDB'
# tests/family-wakeup.sh: every translated i8042 keyboard port, on any machine
serio:ty06*
 IDLECFG_WAKEUP=disabled
 IDLECFG_WAKEUP_REASON=family test generic keyboard port
HWDB
                ;;
        esac
}
# amd-laptop with the IDEA5002 device in its touchpad's place (uevent and attribute)
mkdir -p "$tmp/machines/amd-idea"
cp -R "$TESTS_DATA/machines/amd-laptop/." "$tmp/machines/amd-idea/"
sed 's/ASUE120B/IDEA5002/g' "$TESTS_DATA/machines/amd-laptop/machine.umockdev" >"$tmp/machines/amd-idea/machine.umockdev"
# msi-claw under another product name: the shipped entry no longer names it
mkdir -p "$tmp/machines/claw-other"
cp -R "$TESTS_DATA/machines/msi-claw/." "$tmp/machines/claw-other/"
sed 's/pnClawA1M/pnOtherHandheld/g' "$TESTS_DATA/machines/msi-claw/machine.umockdev" >"$tmp/machines/claw-other/machine.umockdev"
FAMILY_MACHINES="$FAMILY_MACHINES amd-idea claw-other"
value disable wakeup spurious disable udev
value keep wakeup spurious keep udev
value bad wakeup spurious maybe
plan_all
K=wakeup.device
NONE="amd-laptop intel-laptop desktop-sata buildhost"
SHIPPED=/usr/lib/udev/hwdb.d/60-idlecfg-wakeup.hwdb

# device ID MACHINE DEVICE VALUE REASON-PATTERN: the one row of the knob on
# MACHINE (a setting writes power/wakeup, a skip names no attribute)
device() {
        _got=$(rows "$1" $K "$2" | cut -d'|' -f3,5,8,12)
        _attr=power/wakeup
        [ -n "$4" ] || _attr=
        case $_got in
        "$3|$_attr|$4|"$5) ;;
        *) echo "$2: got \"$_got\""; return 1 ;;
        esac
}
nothing_elsewhere() {
        for _m in $NONE; do
                [ -z "$(rows "$1" $K "$_m")" ] || { echo "$_m:"; rows "$1" $K "$_m"; return 1; }
        done
}

claw() { device disable msi-claw serio0 disabled "hwdb $SHIPPED:*(MSI Claw: the i8042 port holds only the volume buttons*"; }
hwdb_point deny IDLECFG_WAKEUP "spurious = disable: msi-claw's keyboard port (serio0, the shipped machine entry) power/wakeup=disabled, the hwdb's reason" claw
idea() { device disable amd-idea i2c-IDEA5002:00 disabled "hwdb $SHIPPED:*(IDEA5002 I2C HID: may cause spurious wakeups*"; }
check "spurious = disable: the IDEA5002 I2C client (the shipped acpi: entry) power/wakeup=disabled" idea
hwdb_point keep IDLECFG_WAKEUP "spurious = disable: nothing on the machines without a named wake source (no entry), not even a skip" nothing_elsewhere disable
guard() {
        [ -z "$(planned disable $K | awk -F'|' '$1 == "claw-other"')" ] &&
                device disable claw-other serio0 "" \
                        "skipped: hwdb /etc/udev/hwdb.d/99-family-wakeup.hwdb:3 (family test generic keyboard port) names it, but it is the i8042 keyboard port, the keyboard a user wakes the machine with: only an entry for this machine (an idlecfg-on: key with its DMI modalias) may disable it"
}
check "the guard: a generic serio:ty06* entry does not disable a keyboard port; only an entry for the machine does" guard
check "spurious = disable: the udev rules write exactly the planned devices" udev_rules disable $K
actions() {
        grep -qx 'ACTION=="add|bind|change", SUBSYSTEM=="serio", KERNEL=="serio0", TEST=="power/wakeup", ATTR{power/wakeup}="disabled"' \
                "$(out msi-claw disable udev)" || { cat "$(out msi-claw disable udev)"; return 1; }
}
check "the rule runs when the port is added, bound and changed (a driver's probe sets wakeup again)" actions

keep() {
        ok_plans keep && [ -z "$(planned keep $K)" ] &&
                device keep msi-claw serio0 "" "skipped: profile keep \[wakeup\] spurious = keep (*) keeps the kernel's wakeup setting (hwdb $SHIPPED:* names this device a spurious wake source)" &&
                nothing_elsewhere keep && ! grep -q wakeup "$(out msi-claw keep udev)"
}
check "spurious = keep: nothing planned, msi-claw's port skipped naming the profile line and the entry, no rule" keep

# apply, verify and rollback on msi-claw's recording: the port's wakeup goes
# to disabled, verify finds it so, rollback puts enabled back
live() {
        run_machine "$(machine_dir msi-claw)" sh -c '
                w=/sys/devices/platform/i8042/serio0/power/wakeup
                "$1" apply --profile disable --root "$2" --kernel "$3" >/dev/null 2>&1; echo "apply $? $(cat $w)"
                "$1" verify --profile disable --root "$2" --kernel "$3" 2>&1 | grep -c "^  drift *wakeup" | sed "s/^/drift /"
                "$1" rollback --root "$2" >/dev/null 2>&1; echo "rollback $? $(cat $w)"' sh "$IDLECFG" "$tmp/msi-claw-root" "$KVER" >"$tmp/live"
        [ "$(cat "$tmp/live")" = "$(printf 'apply 0 disabled\ndrift 0\nrollback 0 enabled')" ] || { cat "$tmp/live"; return 1; }
}
check "apply writes disabled to msi-claw's port, verify finds no drift, rollback puts enabled back" live

M="unknown value 'maybe' for [wakeup] spurious"
check "a word spurious does not take: refused, file and line" refused_word bad wakeup spurious "$M; valid: disable, keep"
check "every value changes the wakeup knob alone" only_knobs $K
check "performance.profile keeps the kernel's wakeup settings ([wakeup] spurious = keep)" \
        sh -c "sed -n '/^\[wakeup\]/,/^\[/p' '$top_srcdir/profiles/performance.profile' | grep -qx 'spurious = keep'"

done_testing
