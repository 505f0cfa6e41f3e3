#!/bin/sh
# tests/family-usb.sh: the [usb] family (src/knobs/usb.c): every value of
# autosuspend and delay_ms planned on every recorded machine: which devices
# get power/control and autosuspend_delay_ms, which are skipped and why, the
# hwdb winning both ways (test entries in the roots' /etc/udev/hwdb.d: a deny
# for a camera the classes rule would take, an allow for a keyboard, a delay
# of its own), the udev rules and the refusals
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/family-lib.sh"
plan 26

family_root() {
        mkdir -p "$1/etc/udev/hwdb.d"
        cat >"$1/etc/udev/hwdb.d/99-family-usb.hwdb" <<'HWDB'
# tests/family-usb.sh: amd-laptop's camera 13d3:5458 denied
usb:v13D3p5458*
 IDLECFG_USB_AUTOSUSPEND=deny
 IDLECFG_USB_AUTOSUSPEND_REASON=family test deny

# desktop-sata's Dell keyboard 413c:2105 allowed, with its own delay
usb:v413Cp2105*
 IDLECFG_USB_AUTOSUSPEND=allow
 IDLECFG_USB_AUTOSUSPEND_REASON=family test allow
 ID_AUTOSUSPEND_DELAY_MS=7000
HWDB
}
for v in allowlist classes off; do
        value "$v" usb autosuspend "$v" udev
done
value keep usb autosuspend keep udev
value src usb autosuspend "ac:classes battery:off"
value bad usb autosuspend on
value d0 usb delay_ms 0 udev
value dmax usb delay_ms 600000 udev
value dkeep usb delay_ms keep udev
value dover usb delay_ms 600001
value dneg usb delay_ms -1
value dsrc usb delay_ms "ac:0 battery:2000"
# systemd's properties and idlecfg's persist entry in local hwdb files:
# intel-laptop's camera 0bda:5634 on systemd's allowlist, without a persist
# session, its receiver 046d:c53f off it; desktop-sata's keyboard (allowed
# above) without a persist session by idlecfg's entry, whatever systemd's
# says, and its mouse 046d:c016 allowed by systemd's, with persist
hwdb_variant usb-hwdb intel-laptop 'usb:v0BDAp5634*
 ID_AUTOSUSPEND=1
 ID_PERSIST=0

usb:v046DpC53F*
 ID_AUTOSUSPEND=0'
hwdb_variant usb-persist desktop-sata 'usb:v413Cp2105*
 IDLECFG_USB_PERSIST=0
 IDLECFG_USB_PERSIST_REASON=family test persist
 ID_PERSIST=1

usb:v046DpC016*
 ID_AUTOSUSPEND=1
 ID_PERSIST=1'
plan_all
U=usb.autosuspend D=usb.autosuspend_delay_ms P=usb.persist
H=/etc/udev/hwdb.d/99-family-usb.hwdb
BT="a Bluetooth adapter: its autosuspend is [bluetooth] autosuspend's (bluetooth.autosuspend)"

# the devices every mode but off and keep leaves alone, and why
common() {
        rows "$1" $U | cut -d'|' -f1,3,8,12 >"$tmp/u"
        # the Bluetooth adapters are the bluetooth family's (tests/family-bluetooth.sh)
        grep -qxF "amd-laptop|3-2||skipped: $BT" "$tmp/u" && grep -qxF "intel-laptop|1-10||skipped: $BT" "$tmp/u" &&
                grep -qx "intel-laptop|1-4||skipped: HID device (keyboards and mice lag and lose keys: powertop #101, #165), not on an autosuspend allowlist" "$tmp/u" &&
                grep -qx "desktop-sata|2-1.8||skipped: HID device (keyboards and mice lag and lose keys: powertop #101, #165), not on an autosuspend allowlist" "$tmp/u" &&
                # the hwdb's deny wins over the camera's class, its allow over the keyboard's
                grep -qx "amd-laptop|3-3||skipped: hwdb $H:3 (family test deny)" "$tmp/u" &&
                grep -qx "desktop-sata|2-1.7|auto|hwdb $H:8 (family test allow)" "$tmp/u" &&
                # systemd's lists, where this machine has them: the fingerprint reader
                if [ -n "$AUTOSUSPEND_HWDB" ]; then
                        grep -q "^intel-laptop|1-9|auto|hwdb /usr/lib/udev/hwdb.d/60-autosuspend-fingerprint-reader.hwdb:[0-9]*\$" "$tmp/u" &&
                                rows "$1" $P | grep -q "^intel-laptop|$P|1-9|usb|power/persist|||0|||udev|hwdb /usr/lib/udev/hwdb.d/60-autosuspend-fingerprint-reader.hwdb:[0-9]*\$"
                fi || { cat "$tmp/u"; return 1; }
        # the keyboard's delay is its hwdb entry's whatever the profile says
        grep -q "^desktop-sata|$D|2-1.7|usb|power/autosuspend_delay_ms|||7000|||udev|hwdb $H:10\$" "$tmp/$1.flat.all" ||
                { rows "$1" $D; return 1; }
}
prep() { ok_plans "$1" && for _m in $FAMILY_MACHINES; do cat "$tmp/out/$_m/$1.flat"; done >"$tmp/$1.flat.all"; }
allowlist() {
        prep allowlist && common allowlist &&
                grep -qx "intel-laptop|1-7||skipped: not on an autosuspend allowlist (systemd's or idlecfg's hwdb)" "$tmp/u" &&
                [ "$(awk -F'|' '$3 != ""' "$tmp/u" | grep -vc '|auto|hwdb ')" = 0 ]
}
check "autosuspend = allowlist: only hwdb-listed devices (the test allow, systemd's fingerprint list); the camera the classes rule takes is not, the denied one skipped" allowlist
classes() {
        prep classes && common classes &&
                grep -qxF "intel-laptop|1-7|auto|$(reason_of classes usb autosuspend classes); video camera (uvcvideo supports autosuspend), every interface of a class that autosuspends (hwdb deny entries, the kernel's USB quirks, checked first)" "$tmp/u"
}
check "autosuspend = classes: the allowlist plus intel-laptop's camera by its class (uvcvideo); amd-laptop's camera denied by the hwdb" classes
check "autosuspend = classes: the udev rules write exactly those devices" udev_rules classes $U
off() {
        prep off || return 1
        planned off $U | cut -d'|' -f1,3,5,8,11,12 >"$tmp/u"
        for d in amd-laptop/3-3 desktop-sata/2-1.7 desktop-sata/2-1.8 intel-laptop/1-4 intel-laptop/1-7 intel-laptop/1-9; do
                echo "${d%/*}|${d#*/}|power/control|on|udev|$(reason_of off usb autosuspend off)"
        done | diff -u - "$tmp/u" && [ -z "$(rows off $D)" ] && [ -z "$(rows off $P)" ] &&
                rows off $U | cut -d'|' -f1,3,12 | grep -qxF "intel-laptop|1-10|skipped: $BT"
}
check "autosuspend = off: power/control=on on every USB device but hubs and Bluetooth adapters, denied and allowed alike; no delay, no persist" off
check "autosuspend = off: the udev rules write exactly those devices" udev_rules off $U
keep() { kept keep $U usb autosuspend udev && [ -z "$(rows keep $D)$(rows keep $P)" ] && ! grep -q autosuspend_delay "$(out intel-laptop keep udev)"; }
check "autosuspend = keep: nothing planned (no delay, no persist), one skip naming the profile line, no udev rule" keep
check "autosuspend takes no per-source value (the udev rules are install's): refused with the file and line" refused_source src usb autosuspend
check "autosuspend: a word it does not take is refused with the file and line" refused_word bad usb autosuspend \
        "unknown value 'on' for [usb] autosuspend; valid: allowlist, classes, off, keep"
# delay N: every device autosuspend enables gets N, but those with an hwdb delay of their own
delay() {
        ok_plans "$1" || return 1
        planned "$1" $U | cut -d'|' -f1,3 | sort >"$tmp/en"
        planned "$1" $D | cut -d'|' -f1,3 | sort >"$tmp/de"
        diff -u "$tmp/en" "$tmp/de" || { echo "^ the devices autosuspend enables and those with a delay differ"; return 1; }
        planned "$1" $D | grep -v '^desktop-sata|[^|]*|2-1.7|' | cut -d'|' -f5,8,11,12 | sort -u >"$tmp/v"
        echo "power/autosuspend_delay_ms|$2|udev|$(reason_of "$1" usb delay_ms "$2")" | diff -u - "$tmp/v" &&
                planned "$1" $D | grep -q "^desktop-sata|$D|2-1.7|.*|7000|||udev|hwdb $H:10\$"
}
check "delay_ms = 0: autosuspend_delay_ms=0 on every device autosuspend enables; the hwdb's own delay (7000) wins for its device" delay d0 0
check "delay_ms = 600000 (the maximum): the same with 600000" delay dmax 600000
check "delay_ms = 600000: the udev rules write exactly those delays" udev_rules dmax $D
dkeep() {
        ok_plans dkeep && [ "$(planned dkeep $D | cut -d'|' -f1,3,8,12)" = "desktop-sata|2-1.7|7000|hwdb $H:10" ]
}
check "delay_ms = keep: no delay but the hwdb entry's own" dkeep
check "delay_ms = 600001: out of range, refused with the file and line" refused_range dover usb delay_ms 600001 "keep or an integer 0..600000"
check "delay_ms = -1: refused with the file and line" refused dneg usb delay_ms "invalid value '-1' for [usb] delay_ms; valid: keep or an integer 0..600000"
check "delay_ms takes no per-source value: refused with the file and line" refused_source dsrc usb delay_ms
# ---- what each hwdb property does to one device ----
# dev ID KNOB MACHINE DEVICE: that device's row of KNOB: value|reason
dev() { rows "$1" "$2" "$3" | awk -F'|' -v d="$4" '$3 == d { print $8 "|" $12 }'; }
usb_deny() {
        for _v in allowlist classes; do
                [ "$(dev $_v $U amd-laptop 3-3)" = "|skipped: hwdb $H:3 (family test deny)" ] || { echo "$_v: $(dev $_v $U amd-laptop 3-3)"; return 1; }
        done
}
hwdb_point deny IDLECFG_USB_AUTOSUSPEND "deny skips amd-laptop's camera, which the classes rule would take, with the entry's reason (allowlist, classes)" usb_deny
usb_allow() {
        for _v in allowlist classes; do
                [ "$(dev $_v $U desktop-sata 2-1.7)" = "auto|hwdb $H:8 (family test allow)" ] || { echo "$_v: $(dev $_v $U desktop-sata 2-1.7)"; return 1; }
        done
        [ "$(dev classes $U intel-laptop 1-7)" = "auto|$(reason_of classes usb autosuspend classes); video camera (uvcvideo supports autosuspend), every interface of a class that autosuspends (hwdb deny entries, the kernel's USB quirks, checked first)" ]
}
hwdb_point keep IDLECFG_USB_AUTOSUSPEND "allow gives desktop-sata's HID keyboard auto with the entry's reason; intel-laptop's camera, without an entry, gets auto by its class" usb_allow
HU=/etc/udev/hwdb.d/99-usb-hwdb.hwdb HP=/etc/udev/hwdb.d/99-usb-persist.hwdb
HID="skipped: HID device (keyboards and mice lag and lose keys: powertop #101, #165), not on an autosuspend allowlist"
ida_deny() {
        for _v in allowlist classes; do
                [ "$(dev $_v $U usb-hwdb 1-4)" = "|$HID" ] || { echo "$_v: $(dev $_v $U usb-hwdb 1-4)"; return 1; }
        done
}
hwdb_point deny ID_AUTOSUSPEND "ID_AUTOSUSPEND=0 does not put intel-laptop's receiver on the allowlist: skipped as without it (allowlist, classes)" ida_deny
ida_keep() {
        [ "$(dev allowlist $U usb-hwdb 1-7)" = "auto|hwdb $HU:3" ] &&
                [ "$(dev allowlist $U intel-laptop 1-7)" = "|skipped: not on an autosuspend allowlist (systemd's or idlecfg's hwdb)" ] &&
                [ "$(dev allowlist $U usb-persist 2-1.8)" = "auto|hwdb $HP:8" ] &&
                [ "$(dev allowlist $U desktop-sata 2-1.8)" = "|$HID" ]
}
hwdb_point keep ID_AUTOSUSPEND "ID_AUTOSUSPEND=1 puts intel-laptop's camera and desktop-sata's HID mouse on the allowlist: auto, naming the entry; skipped without it" ida_keep
idp_deny() {
        for _v in allowlist classes; do
                [ "$(dev $_v $P usb-hwdb 1-7)" = "0|hwdb $HU:4" ] || { echo "$_v: $(dev $_v $P usb-hwdb 1-7)"; return 1; }
        done
        udev_rules allowlist $P
}
hwdb_point deny ID_PERSIST "ID_PERSIST=0: power/persist=0 on intel-laptop's allowed camera, naming the entry, and its udev rule (allowlist, classes)" idp_deny
idp_keep() {
        for _v in allowlist classes; do
                [ -z "$(dev $_v $P usb-persist 2-1.8)" ] && [ -z "$(dev $_v $P intel-laptop 1-7)" ] ||
                        { echo "$_v: $(dev $_v $P usb-persist 2-1.8) $(dev $_v $P intel-laptop 1-7)"; return 1; }
        done
        [ -z "$(dev off $P usb-hwdb 1-7)$(dev keep $P usb-hwdb 1-7)" ]
}
hwdb_point keep ID_PERSIST "ID_PERSIST=1 (desktop-sata's mouse) or no entry (intel-laptop's camera): no power/persist; off and keep write none either" idp_keep
iup_deny() {
        for _v in allowlist classes; do
                [ "$(dev $_v $P usb-persist 2-1.7)" = "0|hwdb $HP:3 (family test persist)" ] ||
                        { echo "$_v: $(dev $_v $P usb-persist 2-1.7)"; return 1; }
        done
}
hwdb_point deny IDLECFG_USB_PERSIST "IDLECFG_USB_PERSIST=0: power/persist=0 on desktop-sata's allowed keyboard, idlecfg's entry winning over systemd's ID_PERSIST=1 (allowlist, classes)" iup_deny
iup_keep() {
        for _v in allowlist classes; do
                [ "$(dev $_v $U desktop-sata 2-1.7)" = "$(dev $_v $U usb-persist 2-1.7)" ] && [ -z "$(dev $_v $P desktop-sata 2-1.7)" ] ||
                        { echo "$_v: $(dev $_v $P desktop-sata 2-1.7)"; return 1; }
        done
        [ -z "$(dev off $P usb-persist 2-1.7)$(dev keep $P usb-persist 2-1.7)" ]
}
hwdb_point keep IDLECFG_USB_PERSIST "without the entry the keyboard is allowed the same and keeps its persist; off and keep write none even with it" iup_keep
ddm_deny() {
        for _v in d0 dmax dkeep; do
                [ "$(dev $_v $D desktop-sata 2-1.7)" = "7000|hwdb $H:10" ] || { echo "$_v: $(dev $_v $D desktop-sata 2-1.7)"; return 1; }
        done
}
hwdb_point deny ID_AUTOSUSPEND_DELAY_MS "the keyboard's entry (7000) replaces the profile's delay_ms 0, 600000 and keep, naming the entry" ddm_deny
ddm_keep() {
        for _vn in d0/0 dmax/600000; do
                _v=${_vn%/*} _dn=${_vn#*/}
                [ "$(dev $_v $D usb-persist 2-1.8)" = "$_dn|$(reason_of $_v usb delay_ms $_dn)" ] ||
                        { echo "$_v: $(dev $_v $D usb-persist 2-1.8)"; return 1; }
        done
        [ -z "$(dev dkeep $D usb-persist 2-1.8)" ] && [ "$(dev dkeep $U usb-persist 2-1.8)" = "auto|hwdb $HP:8" ]
}
hwdb_point keep ID_AUTOSUSPEND_DELAY_MS "desktop-sata's mouse, allowed by an entry without a delay: the profile's delay_ms 0 and 600000 with its reason; keep, none" ddm_keep
check "every value changes its own knobs alone: the rest of each plan is balanced's" only_knobs $U $D $P
done_testing
