#!/bin/sh
# tests/family-bluetooth.sh: the [bluetooth] family (src/knobs/bluetooth.c):
# every value of autosuspend planned on every recorded machine. The two
# laptops have a Bluetooth adapter on USB (amd-laptop: MediaTek 13d3:3563 on
# 3-2; intel-laptop: Intel AX210 8087:0032 on 1-10); the desktop and the VM
# have none. Test entries in the roots' /etc/udev/hwdb.d deny intel-laptop's
# adapter (this family's property) and, on a copy of amd-laptop, amd-laptop's
# (the usb family's property: one device, both lists count); a copy of
# intel-laptop whose adapter is 8087:0a2b meets the shipped entry of
# hwdb/60-idlecfg-bluetooth.hwdb. The usb family leaves the adapters to this
# one.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/family-lib.sh"
plan 12

family_root() {
        mkdir -p "$1/etc/udev/hwdb.d"
        case $2 in
        intel-laptop)
                cat >"$1/etc/udev/hwdb.d/99-family-bluetooth.hwdb" <<'HWDB'
# tests/family-bluetooth.sh: intel-laptop's adapter 8087:0032 denied
usb:v8087p0032*
 IDLECFG_BLUETOOTH_AUTOSUSPEND=deny
 IDLECFG_BLUETOOTH_AUTOSUSPEND_REASON=family test deny
HWDB
                ;;
        amd-usbdeny)
                cat >"$1/etc/udev/hwdb.d/99-family-bluetooth.hwdb" <<'HWDB'
# tests/family-bluetooth.sh: amd-laptop's adapter 13d3:3563 denied by the usb family's property
usb:v13D3p3563*
 IDLECFG_USB_AUTOSUSPEND=deny
 IDLECFG_USB_AUTOSUSPEND_REASON=family test usb deny
HWDB
                ;;
        esac
}
# a copy of amd-laptop for the usb family's deny, and one of intel-laptop
# whose adapter is the shipped entry's 8087:0a2b
variant amd-usbdeny amd-laptop 3-2 power/control auto
variant intel-0a2b intel-laptop 1-10 idProduct 0a2b
value on bluetooth autosuspend on udev modprobe
value off bluetooth autosuspend off udev modprobe
value keep bluetooth autosuspend keep udev modprobe
value bad bluetooth autosuspend maybe
plan_all
D=bluetooth.autosuspend P=bluetooth.btusb_autosuspend
NONE="desktop-sata buildhost"

# device ID KNOB MACHINE DEVICE VALUE REASON: the one row of KNOB on MACHINE
device() {
        _got=$(rows "$1" "$2" "$3" | cut -d'|' -f3,5,8,12)
        [ "$_got" = "$4|power/control|$5|$6" ] || { echo "$3: got \"$_got\", not \"$4|power/control|$5|$6\""; return 1; }
}
# nothing of the family on the machines without an adapter, not even a skip
nothing_without_adapter() {
        for _m in $NONE; do
                [ -z "$(rows "$1" $D "$_m")$(rows "$1" $P "$_m")" ] || { echo "$_m:"; rows "$1" $D "$_m"; rows "$1" $P "$_m"; return 1; }
                ! grep -q btusb "$(out "$_m" "$1" modprobe)" || { echo "$_m: btusb in modprobe.d"; return 1; }
        done
}

on() {
        R=$(reason_of on bluetooth autosuspend on)
        # amd-laptop: nothing denies its adapter: autosuspend, btusb's switch Y
        device on $D amd-laptop 3-2 auto "$R" &&
                param on $P btusb enable_autosuspend Y modprobe "$R" amd-laptop &&
                nothing_without_adapter on
}
hwdb_point keep IDLECFG_BLUETOOTH_AUTOSUSPEND "autosuspend = on: amd-laptop's adapter, which no entry denies, power/control=auto and btusb enable_autosuspend=Y in modprobe.d; nothing on the machines without an adapter" on
on_deny() {
        W="hwdb /etc/udev/hwdb.d/99-family-bluetooth.hwdb:3 (family test deny)"
        device on $D intel-laptop 1-10 on "$W" &&
                param on $P btusb enable_autosuspend N modprobe \
                        "$W: adapter 1-10 must not autosuspend, and btusb's switch is one for every adapter" intel-laptop
}
hwdb_point deny IDLECFG_BLUETOOTH_AUTOSUSPEND "autosuspend = on, intel-laptop's adapter denied (its USB device's key, usb:v8087p0032): power/control=on and btusb's switch N, both with the hwdb's reason" on_deny
on_usbdeny() {
        W="hwdb /etc/udev/hwdb.d/99-family-bluetooth.hwdb:3 (family test usb deny)"
        device on $D amd-usbdeny 3-2 on "$W" &&
                param on $P btusb enable_autosuspend N modprobe \
                        "$W: adapter 3-2 must not autosuspend, and btusb's switch is one for every adapter" amd-usbdeny
}
check "autosuspend = on, the usb family's IDLECFG_USB_AUTOSUSPEND=deny for the adapter counts too" on_usbdeny
shipped() {
        _w=$(rows on $D intel-0a2b | cut -d'|' -f8,12)
        case $_w in
        "on|hwdb /usr/lib/udev/hwdb.d/60-idlecfg-bluetooth.hwdb:"*"(Intel 8087:0a2b: "*) ;;
        *) echo "intel-0a2b: $_w"; return 1 ;;
        esac
        [ "$(rows on $P intel-0a2b | cut -d'|' -f8)" = N ]
}
check "the shipped hwdb denies 8087:0a2b: power/control=on and btusb N, naming 60-idlecfg-bluetooth.hwdb" shipped
check "autosuspend = on: the udev rules write exactly the adapters' values" udev_rules on $D

off() {
        R=$(reason_of off bluetooth autosuspend off)
        device off $D amd-laptop 3-2 on "$R" && device off $D intel-laptop 1-10 on "$R" &&
                param off $P btusb enable_autosuspend N modprobe "$R" amd-laptop intel-laptop &&
                nothing_without_adapter off
}
check "autosuspend = off: every adapter power/control=on, btusb's switch N, the profile's reason" off
check "autosuspend = off: the udev rules write exactly the adapters' values" udev_rules off $D

keep() {
        ok_plans keep && [ -z "$(planned keep $D)$(planned keep $P)" ] &&
                default_stays keep $D bluetooth autosuspend keep amd-laptop intel-laptop &&
                default_stays keep $P bluetooth autosuspend keep amd-laptop intel-laptop &&
                nothing_without_adapter keep &&
                ! grep -q btusb "$(out intel-laptop keep modprobe)"
}
check "autosuspend = keep: nothing planned, the skip saying the kernel default stays (both knobs) on the laptops, nothing elsewhere" keep

# the usb family leaves the adapters alone, whatever [bluetooth] says
usb_leaves() {
        for _id in on off keep; do
                for _a in amd-laptop:3-2 intel-laptop:1-10; do
                        _got=$(rows "$_id" usb.autosuspend "${_a%%:*}" | awk -F'|' -v d="${_a#*:}" '$3 == d' | cut -d'|' -f8,12)
                        [ "$_got" = "|skipped: a Bluetooth adapter: its autosuspend is [bluetooth] autosuspend's (bluetooth.autosuspend)" ] ||
                                { echo "$_id ${_a%%:*}: usb.autosuspend of the adapter: $_got"; return 1; }
                done
        done
}
check "usb.autosuspend skips each adapter, naming bluetooth.autosuspend (one device, one family)" usb_leaves

M="unknown value 'maybe' for [bluetooth] autosuspend"
check "a word autosuspend does not take: refused, file and line" refused_word bad bluetooth autosuspend "$M; valid: on, off, keep"
check "every value changes the bluetooth knobs alone" only_knobs $D $P

# performance keeps the kernel default: its [bluetooth] autosuspend is keep
check "performance.profile keeps the kernel default ([bluetooth] autosuspend = keep)" \
        sh -c "sed -n '/^\[bluetooth\]/,/^\[/p' '$top_srcdir/profiles/performance.profile' | grep -qx 'autosuspend = keep'"

done_testing
