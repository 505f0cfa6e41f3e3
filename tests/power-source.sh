#!/bin/sh
# tests/power-source.sh: values per power source (#23): the decision from all
# supplies (mains, USB-C PD, device batteries, none), the files install writes,
# the real udev rule under udevadm test (umockdev and a private mount namespace
# only), the switch through apply's journal on a recorded laptop, boot, resume,
# a desktop, and rollback to the values before idlecfg ever switched; and
# (#33) systemd's decision case by case, the values of devices and modules
# that appear after a switch, a table line of another knob, a held lock,
# forced and pinned sources, show, a rollback killed at each step, and no
# switch where nothing switches
. "$top_srcdir/tests/lib.sh"
need umockdev-run
plan 48
P=$TESTS_DATA/power
mkdir -p "$tmp/empty"

show() {
        run_machine "$1" "$IDLECFG" --root "$tmp/empty" power-source show -v 2>&1
}
# a recording with its power supplies changed: FILE ATTR=VALUE...
variant() {
        _f=$1
        shift
        cp "$_f" "$tmp/variant.umockdev"
        for _s in "$@"; do
                sed -i "s|^A: ${_s%%=*}=.*|A: $_s|" "$tmp/variant.umockdev"
        done
        echo "$tmp/variant.umockdev"
}

check "mains laptop unplugged: battery, the mouse's HID battery ignored" \
        sh -c "'$top_srcdir/tests/run-machine' '$P/mains-laptop.umockdev' '$IDLECFG' --root '$tmp/empty' power-source show |
               grep -qx 'Power source: battery (no supply online, battery BAT0 discharging)'"
out=$(show "$(variant "$P/mains-laptop.umockdev" online=1 status=Charging)")
check "mains laptop plugged in: AC" sh -c "echo '$out' | grep -qx 'Power source: ac (mains supply AC online)'"
out=$(show "$P/usbc-pd-laptop.umockdev")
check "USB-C PD charger: AC" \
        sh -c "echo '$out' | grep -qxF 'Power source: ac (USB Power Delivery supply ucsi-source-psy-USBC000:001 online (C [PD] PD_PPS))'"
# port 1 unplugged, a plain Type-C 5 V source on port 2 (online, usb_type [C]): not AC
sed -e '0,/^A: online=1/s//A: online=0/' -e 's/^A: online=0$/A: online=0/' "$P/usbc-pd-laptop.umockdev" |
        awk '/ucsi-source-psy-USBC000:002$/ { p = 1 } p && /^A: online=/ { $0 = "A: online=1"; p = 0 } { print }' |
        sed 's/^A: status=Charging/A: status=Discharging/' >"$tmp/usbc-5v.umockdev"
out=$(show "$tmp/usbc-5v.umockdev")
check "USB-C without PD online and the battery discharging: battery (TLP's rule, stricter than systemd's)" \
        sh -c "echo '$out' | grep -qxF 'Power source: battery (no supply online, battery BAT1 discharging; USB supply ucsi-source-psy-USBC000:002 online without Power Delivery ([C] PD PD_PPS) ignored)'"
# systemd's on_ac_power() (src/shared/battery-util.c), case by case (#33)
out=$(show "$P/typec-source-laptop.umockdev")
check "a USB PD supply whose Type-C port is a power source (charging a phone): ignored, battery" \
        sh -c "echo '$out' | grep -qxF 'Power source: battery (no supply online, battery BAT0 discharging; USB supply tcpm-source-psy-USBC000:00 ignored: its Type-C ports are all power sources)'"
out=$(show "$(variant "$P/typec-source-laptop.umockdev" 'power_role=source [sink]')")
check "the same port as a sink: AC" \
        sh -c "echo '$out' | grep -qxF 'Power source: ac (USB Power Delivery supply tcpm-source-psy-USBC000:00 online (C [PD] PD_PPS))'"
sed '0,/^A: online=1/s//A: online=2/' "$P/usbc-pd-laptop.umockdev" >"$tmp/pps.umockdev"
out=$(show "$tmp/pps.umockdev")
check "a PD PPS charger, online 2 (Online Programmable): AC" \
        sh -c "grep -q '^A: online=2' '$tmp/pps.umockdev' && echo '$out' | grep -qxF 'Power source: ac (USB Power Delivery supply ucsi-source-psy-USBC000:001 online (C [PD] PD_PPS))'"
out=$(show "$P/wireless-tablet.umockdev")
out2=$(show "$(variant "$P/wireless-tablet.umockdev" online=0 status=Discharging)")
check "a Wireless (Qi) supply online counts as AC, off the pad the battery decides" \
        sh -c "echo '$out' | grep -qx 'Power source: ac (wireless supply bq51013-wireless online)' &&
               echo '$out2' | grep -qx 'Power source: battery (no supply online, battery bq27500-0 discharging)'"
out=$(show "$(variant "$P/mains-laptop.umockdev" present=0)")
check "a battery not present (an empty bay) is no battery: AC" \
        sh -c "echo '$out' | grep -qF 'Power source: ac (no system battery (device battery hid-f4:73:35:11:22:33-battery ignored)'"
sed '/^A: status=Discharging/d' "$P/mains-laptop.umockdev" >"$tmp/nostatus.umockdev"
out=$(show "$tmp/nostatus.umockdev")
check "a battery without a status, nothing online: discharging, as systemd assumes" \
        sh -c "echo '$out' | grep -qx 'Power source: battery (no supply online, battery BAT0 discharging)'"
out=$(show "$P/hid-desktop.umockdev")
check "desktop with only a keyboard's HID battery: AC" \
        sh -c "echo '$out' | grep -qF 'Power source: ac (no system battery (device battery hid-0003:046D:4075.0006-battery ignored)'"
printf 'P: /devices/virtual/dmi/id\nE: SUBSYSTEM=dmi\nA: chassis_type=3\n' >"$tmp/none.umockdev"
out=$(show "$tmp/none.umockdev")
check "no power supply at all: AC" \
        sh -c "echo '$out' | grep -qx 'Power source: ac (no power supply online and no system battery: counted as AC)'"
# unplugged, but the battery still says Charging: looked at again for 1.5 s, then AC
out=$(show "$(variant "$P/mains-laptop.umockdev" status=Charging)")
looks=$(echo "$out" | sed -n 's/.*decided after \([0-9]*\) looks.*/\1/p')
check "a battery that is not discharging yet is looked at again for 1.5 s (looks: $looks)" \
        sh -c "echo '$out' | grep -q 'battery BAT0 Charging, not discharging: counted as AC' && test '${looks:-0}' -ge 8"

# ---- a recorded laptop with these supplies: install, switch, undo ----
dir=$TESTS_DATA/machines/intel-laptop
m=$tmp/machine
mkdir -p "$m"
cp "$dir/modparams" "$m/modparams"
{ grep -v '^#' "$dir/machine.umockdev"; echo; grep -v '^#' "$P/mains-laptop.umockdev"; } >"$m/machine.umockdev"
root=$tmp/root
mkroot_installed "$dir" "$root" || { echo "Bail out! cannot build the root"; exit 1; }
# the switch's mechanism, with TLP's per-source defaults for PCI runtime PM
# and audio (the shipped balanced switches only the writeback interval)
mkdir -p "$root/etc/idlecfg/profiles"
cat >"$root/etc/idlecfg/profiles/switch.profile" <<'EOP'
[profile]
description = balanced with TLP's per-source PCI runtime PM and audio power save
inherit = balanced
[pci]
runtime_pm = ac:on battery:auto
[audio]
power_save = ac:0 battery:10
EOP
cp -a "$root" "$tmp/pristine"
run_machine "$m" "$IDLECFG" install --profile switch --root "$root" --kernel "$KVER" >"$tmp/install.out" 2>&1
(cd "$tmp/pristine" && find usr | LC_ALL=C sort) >"$tmp/usr.before"
(cd "$root" && find usr | LC_ALL=C sort) >"$tmp/usr.after"
check "install writes the table, the udev rule, the unit and its drop-in, all below /etc: nothing below /usr (read-only on images)" \
        sh -c "test -s '$root/etc/idlecfg/power-source.conf' && test -s '$root/etc/udev/rules.d/70-idlecfg-power-source.rules' &&
               test -s '$root/etc/systemd/system/idlecfg-power-source.service' &&
               grep -qx 'Wants=idlecfg-power-source.service' '$root/etc/systemd/system/multi-user.target.d/idlecfg-power-source.conf' &&
               ! test -e '$root/usr/lib/systemd/system-sleep/idlecfg-power-source' && cmp -s '$tmp/usr.before' '$tmp/usr.after' &&
               { grep -q '^snd_hda_intel.power_save modprobe - - snd_hda_intel power_save 0 10\$' '$root/etc/idlecfg/power-source.conf' ||
                 grep -q '^audio.power_save [a-z]* - - snd_hda_intel power_save 0 10\$' '$root/etc/idlecfg/power-source.conf'; }"
check "the rule starts a short job on power_supply changes: systemd-run --no-block" \
        grep -q '^SUBSYSTEM=="power_supply", ACTION=="change", RUN+="/usr/bin/systemd-run --no-block .*idlecfg power-source event"$' \
        "$root/etc/udev/rules.d/70-idlecfg-power-source.rules"
# the package's system-sleep hook (src/units/idlecfg-power-source.sleep.in):
# after resume, where install wrote the switch's table
hook=$top_builddir/src/units/idlecfg-power-source
check "the package's sleep hook acts on post only, after resume, where the switch's table is" \
        sh -c "test -x '$hook' && grep -qx '\\[ \"\\\$1\" = post \\] || exit 0' '$hook' &&
               grep -qx '\\[ -e /etc/idlecfg/power-source.conf \\] || exit 0' '$hook' &&
               grep -q ' [^ ]*/idlecfg power-source resume\$' '$hook'"

# real uevents: umockdev's testbed sends them, a gudev listener starts the
# installed rule's command for each (tests/power-uevent.py)
cp -a "$root" "$tmp/uroot"
if command -v umockdev-wrapper >/dev/null && /usr/bin/python3 -c "
import gi; gi.require_version('UMockdev', '1.0'); gi.require_version('GUdev', '1.0')
from gi.repository import UMockdev, GUdev" 2>/dev/null; then
        umockdev-wrapper /usr/bin/python3 "$top_srcdir/tests/power-uevent.py" "$m/machine.umockdev" "$m/modparams" \
                "$tmp/uroot" "$IDLECFG" >"$tmp/uevent.out" 2>&1
        check "a change uevent of the adapter runs the rule's job: battery values ($(grep '^unplug' "$tmp/uevent.out"))" \
                grep -qx 'unplug jobs=1 rc=0 power_save=10 state=battery' "$tmp/uevent.out"
        check "online bouncing after the plug, the last change without an event: AC all the same ($(grep '^bounce' "$tmp/uevent.out"))" \
                grep -qx 'bounce jobs=2 rc=0,0 power_save=0 state=ac' "$tmp/uevent.out"
        grep -q '^unplug.*state=battery' "$tmp/uevent.out" || diag "$(cat "$tmp/uevent.out")"
else
        skip "uevents: no umockdev-wrapper or no GObject bindings of umockdev and gudev (python3-gi, gir1.2-umockdev-1.0, gir1.2-gudev-1.0)"
        skip "uevents: as above"
fi

# the real rule, under udevadm test: in a mount namespace of its own, /sys the recording's
# (a tmpfs over /run: /run/udev exists only where udevd runs, not in a container)
if command -v udevadm >/dev/null && root_ns; then
        unshare -m sh -c "mount -t tmpfs idlecfg-test /etc/udev/rules.d && mount -t tmpfs idlecfg-test /run && mkdir /run/udev &&
                cp '$root/etc/udev/rules.d/70-idlecfg-power-source.rules' /etc/udev/rules.d/ &&
                '$top_srcdir/tests/run-machine' '$P/mains-laptop.umockdev' udevadm test --action=change /sys/class/power_supply/AC" \
                >"$tmp/udev-change.out" 2>&1
        unshare -m sh -c "mount -t tmpfs idlecfg-test /etc/udev/rules.d && mount -t tmpfs idlecfg-test /run && mkdir /run/udev &&
                cp '$root/etc/udev/rules.d/70-idlecfg-power-source.rules' /etc/udev/rules.d/ &&
                '$top_srcdir/tests/run-machine' '$P/mains-laptop.umockdev' udevadm test --action=add /sys/class/power_supply/AC" \
                >"$tmp/udev-add.out" 2>&1
        check "udevadm test: a change of the AC adapter runs the job" \
                grep -q "^run: '/usr/bin/systemd-run --no-block .*idlecfg power-source event'" "$tmp/udev-change.out"
        check "udevadm test: its add event (coldplug) does not" \
                sh -c "grep -q '^ACTION=add' '$tmp/udev-add.out' && ! grep -q '^run: .*power-source' '$tmp/udev-add.out'"
else
        skip "udevadm test" "no udevadm, or ${why:-no mount namespace here}"
        skip "udevadm test" "no udevadm, or ${why:-no mount namespace here}"
fi

# booting on battery (#33): the boot unit's switch, then what udev processes
# after it (coldplug adds still queued, drivers binding, a module loading):
# each device and module of the table gets the current source's value from
# the installed rules (each file is emptied first: udev writes an attribute
# without truncating it, which a sysfs file does not need and a testbed's
# plain file does; a rule that wrote nothing leaves it empty). The root's /run
# is the live /run here (a private mount namespace), as on a booted machine.
cp -a "$root" "$tmp/broot"
broot=$tmp/broot
# (its /run and /proc/sys, made here: the points after it use them, whether
# the boot below runs or skips)
mkdir -p "$broot/run/udev" "$tmp/bproc/sys/vm" && echo 700 >"$tmp/bproc/sys/vm/dirty_writeback_centisecs"
cat >"$tmp/late.sh" <<EOS
set -u
I="$IDLECFG --root $broot"
export IDLECFG_TEST_PROC=$tmp/bproc IDLECFG_TEST_SETTLE_MS=1
sup=/sys/class/power_supply
# every line of the table: each device added again, each module loaded again: the value of source \$1
late() {
        n=0 good=0
        while read -r knob mech dev attr mod par ac bat; do
                case \$knob in '#'*|'') continue ;; esac
                n=\$((n + 1))
                if [ \$1 = battery ]; then want=\$bat; else want=\$ac; fi
                case \$mech in
                udev)   f=/sys\$dev/\$attr
                        : >\$f
                        udevadm test --action=add /sys\$dev >>$tmp/late-udev.out 2>&1 ;;
                modprobe|tmpfiles)
                        m=\$(echo \$mod | tr - _)
                        f=/sys/module/\$m/parameters/\$par
                        : >\$f; : >"\$UMOCKDEV_DIR/sys/module/\$m/uevent"
                        udevadm test --action=add /sys/module/\$m >>$tmp/late-udev.out 2>&1 ;;
                sysctl) f=$tmp/bproc/sys/\$(echo \$par | tr . /) ;;
                *)      f=/dev/null ;;
                esac
                got=\$(cat \$f)
                [ "\$got" = "\$want" ] && good=\$((good + 1)) || echo "\$1 wrong: \$knob \$dev\$mod \$attr\$par \$got, not \$want"
        done <$broot/etc/idlecfg/power-source.conf
        echo "\$1 \$n \$good"
}
echo 0 >\$sup/ACAD/online; echo Discharging >\$sup/BAT0/status
\$I power-source boot >$tmp/late-boot.out 2>&1; echo "boot \$? \$(test -e /run/idlecfg/on-battery && echo mark)"
late battery
echo 1 >\$sup/ACAD/online; echo Charging >\$sup/BAT0/status
\$I power-source event >$tmp/late-ev.out 2>&1; echo "event \$? \$(test -e /run/idlecfg/on-battery && echo mark)"
late ac
EOS
if command -v udevadm >/dev/null && root_ns; then
        unshare -m sh -c "mount -t tmpfs idlecfg-test /etc/udev/rules.d &&
                cp '$broot/etc/udev/rules.d/'*.rules /etc/udev/rules.d/ && mount --bind '$broot/run' /run &&
                '$top_srcdir/tests/run-machine' '$m' sh '$tmp/late.sh'" >"$tmp/late.out" 2>&1
        set -- $(sed -n 's/^battery \([0-9]* [0-9]*\)$/\1/p' "$tmp/late.out") $(sed -n 's/^ac \([0-9]* [0-9]*\)$/\1/p' "$tmp/late.out")
        check "booted on battery: the boot unit marks the battery, then every device added or bound and every module loaded after it takes its battery value from the installed rules (${2:-?} of ${1:-?}) [$(sed -n 's/^boot //p' "$tmp/late.out")]" \
                sh -c "grep -qx 'boot 0 mark' '$tmp/late.out' && test '${1:-0}' -ge 3 && test '${2:-x}' = '${1:-y}' ||
                       { cat '$tmp/late.out'; exit 1; }"
        check "plugged in after it: the mark is gone and every one of them takes its AC value again (${4:-?} of ${3:-?})" \
                sh -c "grep -qx 'event 0 ' '$tmp/late.out' && test '${3:-0}' -ge 3 && test '${4:-x}' = '${3:-y}' ||
                       { cat '$tmp/late.out'; exit 1; }"
else
        skip "booted on battery" "no udevadm, or ${why:-no mount namespace here}"
        skip "booted on battery: as above"
fi
check "the rules pick the value by the mark: two lines for each device of the table in 70-idlecfg.rules, two for each module in the switch's rule (snd_hda_intel's power_save)" \
        sh -c "n=\$(grep -c ' udev ' '$broot/etc/idlecfg/power-source.conf') &&
               test \$(grep -c 'TEST!=\"/run/idlecfg/on-battery\", ATTR{' '$broot/etc/udev/rules.d/70-idlecfg.rules') = \$n &&
               test \$(grep -c 'TEST==\"/run/idlecfg/on-battery\", ATTR{' '$broot/etc/udev/rules.d/70-idlecfg.rules') = \$n &&
               grep -qx 'ACTION==\"add\", SUBSYSTEM==\"module\", KERNEL==\"snd_hda_intel\", TEST==\"parameters/power_save\", TEST==\"/run/idlecfg/on-battery\", ATTR{parameters/power_save}=\"10\"' \
                       '$broot/etc/udev/rules.d/70-idlecfg-power-source.rules'"

# booted on battery with snd_hda_intel loaded after the boot switch (#44): the
# rule gave it the battery value under the mark, unjournaled; plugged in,
# unplugged, then rollback: back to the value it takes without the switch
# (the table's AC value, as every other value of the boot), not the battery one.
# The module's load is the rule's write: its value by the mark.
cp -a "$root" "$tmp/lbroot"
lbroot=$tmp/lbroot
mkdir -p "$tmp/lbproc/sys/vm" && echo 700 >"$tmp/lbproc/sys/vm/dirty_writeback_centisecs"
cat >"$tmp/lateload.sh" <<EOS
set -u
I="$IDLECFG --root $lbroot"
export IDLECFG_TEST_PROC=$tmp/lbproc IDLECFG_TEST_SETTLE_MS=1
sup=/sys/class/power_supply
hda=/sys/module/snd_hda_intel/parameters/power_save
ev() { \$I power-source \$1 >>$tmp/lateload.log 2>&1; echo "\$1 \$? \$(cat \$hda 2>/dev/null || echo absent)"; }
rm -f "\$UMOCKDEV_DIR\$hda"
echo 0 >\$sup/ACAD/online; echo Discharging >\$sup/BAT0/status
ev boot
if [ -e $lbroot/run/idlecfg/on-battery ]; then echo 10 >\$hda; else echo 0 >\$hda; fi
echo "loaded \$(cat \$hda)"
echo 1 >\$sup/ACAD/online; echo Charging >\$sup/BAT0/status
ev event
echo 0 >\$sup/ACAD/online; echo Discharging >\$sup/BAT0/status
ev event
\$I rollback apply >>$tmp/lateload.log 2>&1; echo "rollback \$? \$(cat \$hda)"
EOS
run_machine "$m" sh "$tmp/lateload.sh" >"$tmp/lateload.out" 2>&1
check "booted on battery, snd_hda_intel loaded after the boot switch (10 by the rule), plugged, unplugged, rolled back: power_save is the AC value 0 it takes without the switch, not 10 [$(paste -sd' ' "$tmp/lateload.out")]" \
        sh -c "test \"\$(paste -sd' ' '$tmp/lateload.out')\" = 'boot 0 absent loaded 10 event 0 0 event 0 10 rollback 0 0' ||
               { cat '$tmp/lateload.out' '$tmp/lateload.log'; exit 1; }"

# a table line must name a place of its own knob, parameters included (#33):
# audio.power_save's line pointed at usbcore's autosuspend is refused with
# its file and line, and nothing is written
troot=$tmp/troot
cp -a "$broot" "$troot"
rm -rf "$troot/run/idlecfg"
echo 'audio.power_save modprobe - - usbcore autosuspend 0 10' >>"$troot/etc/idlecfg/power-source.conf"
tline=$(grep -c '' "$troot/etc/idlecfg/power-source.conf")
cat "$troot/var/lib/idlecfg/apply.journal" >"$tmp/tjournal" 2>/dev/null
run_machine "$m" sh -c "echo 0 >/sys/class/power_supply/ACAD/online; echo Discharging >/sys/class/power_supply/BAT0/status
        IDLECFG_TEST_PROC='$tmp/bproc' IDLECFG_TEST_SETTLE_MS=1 '$IDLECFG' --root '$troot' power-source event; echo \"rc=\$? \$(cat /sys/module/usbcore/parameters/autosuspend) \$(cat /sys/module/snd_hda_intel/parameters/power_save)\"" \
        >"$tmp/tline.out" 2>&1
check "a table line of audio.power_save naming usbcore's autosuspend: refused at its line (:$tline), exit 2, nothing written [$(tail -n 1 "$tmp/tline.out")]" \
        sh -c "grep -q 'power-source.conf:$tline: .*parameter usbcore.autosuspend is not one this knob may set' '$tmp/tline.out' &&
               grep -qx 'rc=2 2 1' '$tmp/tline.out' && { cat '$troot/var/lib/idlecfg/apply.journal' 2>/dev/null | cmp -s - '$tmp/tjournal'; } ||
               { cat '$tmp/tline.out'; exit 1; }"

# a switch that finds the lock held longer than --wait's default (10 s: the
# initramfs step of an install, apply --measure) waits for it: not lost (#33)
wroot=$tmp/wroot
cp -a "$broot" "$wroot"
rm -rf "$wroot/run/idlecfg"
if command -v flock >/dev/null; then
        run_machine "$m" sh -c "echo 0 >/sys/class/power_supply/ACAD/online; echo Discharging >/sys/class/power_supply/BAT0/status
                flock '$wroot/run/idlecfg.lock' sleep 11 & sleep 0.5
                start=\$(date +%s); IDLECFG_TEST_PROC='$tmp/bproc' IDLECFG_TEST_SETTLE_MS=1 '$IDLECFG' --root '$wroot' power-source event >'$tmp/wait.ev' 2>&1
                rc=\$?; end=\$(date +%s); wait
                echo \"rc=\$rc waited=\$((end - start)) \$(cat /sys/module/snd_hda_intel/parameters/power_save)\"" >"$tmp/wait.out" 2>&1
        set -- $(tail -n 1 "$tmp/wait.out")
        check "an event that finds the lock held for 11 s waits for it and switches [$*]" \
                sh -c "test '${1:-}' = rc=0 && test '${2#waited=}' -ge 10 && test '${3:-}' = 10 || { cat '$tmp/wait.out' '$tmp/wait.ev'; exit 1; }"
else
        skip "the lock held: no flock(1) here (util-linux)"
fi

# forced and pinned sources, and show (#33): "power-source battery" holds
# until the next event; [power] source in idlecfg.conf pins one; show lists
# each setting with its two values and the one in effect (text and JSON)
froot=$tmp/froot
cp -a "$broot" "$froot"
rm -rf "$froot/run/idlecfg"
cat >"$tmp/force.sh" <<EOS
set -u
I="$IDLECFG --root $froot"
export IDLECFG_TEST_PROC=$tmp/bproc IDLECFG_TEST_SETTLE_MS=1
sup=/sys/class/power_supply
hda() { cat /sys/module/snd_hda_intel/parameters/power_save; }
st() { cat $froot/run/idlecfg/power-source 2>/dev/null | tr ' ' _; }
echo 1 >\$sup/ACAD/online; echo Charging >\$sup/BAT0/status
\$I power-source battery >$tmp/f1.out 2>&1; echo "force \$? \$(hda) \$(st) \$(test -e $froot/run/idlecfg/on-battery && echo mark)"
\$I verify >$tmp/fverify.out 2>&1; echo "fverify \$?"
\$I power-source show >$tmp/fshow.out 2>&1; echo "show \$?"
\$I --json power-source show >$tmp/fshow.json 2>&1; echo "json \$?"
\$I power-source event >$tmp/f2.out 2>&1; echo "event \$? \$(hda) \$(st)"
\$I power-source battery >/dev/null 2>&1
echo 0 >\$sup/ACAD/online; echo Discharging >\$sup/BAT0/status
\$I power-source event >$tmp/f3.out 2>&1; echo "same \$? \$(hda) \$(st)"
echo 1 >\$sup/ACAD/online; echo Charging >\$sup/BAT0/status
\$I power-source event >/dev/null 2>&1
mkdir -p $froot/etc/idlecfg && printf '[power]\nsource = battery\n' >$froot/etc/idlecfg/idlecfg.conf
\$I power-source boot >$tmp/f4.out 2>&1; echo "pin \$? \$(hda) \$(st)"
\$I verify >$tmp/pverify.out 2>&1; echo "pverify \$?"
printf '[power]\nsource = bat\n' >$froot/etc/idlecfg/idlecfg.conf
\$I power-source event >$tmp/f5.out 2>&1; echo "badpin \$? \$(hda)"
rm -f $froot/etc/idlecfg/idlecfg.conf
EOS
run_machine "$m" sh "$tmp/force.sh" >"$tmp/force.out" 2>&1
f() { sed -n "s/^$1 //p" "$tmp/force.out"; }
check "power-source battery while plugged in: the battery values, marked forced [$(f force)]; the next event (AC) ends it [$(f event)]" \
        sh -c "test '$(f force)' = '0 10 battery_forced mark' && test '$(f event)' = '0 0 ac' && grep -q 'forced by \"power-source battery\" until the next event' '$tmp/f1.out' ||
               { cat '$tmp/force.out' '$tmp/f1.out' '$tmp/f2.out'; exit 1; }"
check "an event that decides the forced source itself: nothing written, no longer forced [$(f same)]" \
        sh -c "test '$(f same)' = '0 10 battery' && grep -q 'Unchanged since the last switch' '$tmp/f3.out' || { cat '$tmp/f3.out'; exit 1; }"
n=$(grep -vc '^#' "$froot/etc/idlecfg/power-source.conf")
check "show lists the $n settings with both values and what is in effect, in text and JSON" \
        sh -c "test '$(f show)' = 0 && test '$(f json)' = 0 &&
               grep -qx 'In effect: the battery values, forced until the next event' '$tmp/fshow.out' &&
               grep -qx '  audio.power_save snd_hda_intel power_save: ac 0, battery 10, now 10 (battery)' '$tmp/fshow.out' &&
               test \$(grep -c ', now auto (battery)\$' '$tmp/fshow.out') = \$(grep -c ' udev ' '$froot/etc/idlecfg/power-source.conf') &&
               python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d[\"in_effect\"] == \"battery\" and d[\"forced\"] and d[\"decision\"][\"source\"] == \"ac\", d
assert len(d[\"settings\"]) == $n and all(x[\"now_is\"] == \"battery\" for x in d[\"settings\"]), d[\"settings\"]
assert {\"knob\", \"ac\", \"battery\", \"now\"} <= set(d[\"settings\"][0])
' '$tmp/fshow.json' || { cat '$tmp/fshow.out' '$tmp/fshow.json'; exit 1; }"
check "[power] source = battery in idlecfg.conf pins the battery values while plugged in [$(f pin)]; a bad value is refused at its line [$(f badpin)]" \
        sh -c "test '$(f pin)' = '0 10 battery' && grep -q 'pinned by .*/etc/idlecfg/idlecfg.conf:2: \\[power\\] source = battery' '$tmp/f4.out' &&
               test '$(f badpin)' = '2 10' && grep -q 'idlecfg.conf:2' '$tmp/f5.out' ||
               { cat '$tmp/force.out' '$tmp/f4.out' '$tmp/f5.out'; exit 1; }"
# (the recording's USB device 1-7 drifts: no udev ran its rule here)
grep -v '^#' "$froot/etc/idlecfg/power-source.conf" | cut -d' ' -f1 | sort -u >"$tmp/fknobs"
sed -n 's/^  drift  *\([^ ]*\) .*/\1/p' "$tmp/fverify.out" "$tmp/pverify.out" | grep -xF -f "$tmp/fknobs" >"$tmp/fdrift"
check "verify judges the values against the source in effect, not the supplies (plugged in): forced battery, pinned battery; no per-source knob drifts [$(paste -sd' ' "$tmp/fdrift")]" \
        sh -c "test -s '$tmp/fknobs' && test ! -s '$tmp/fdrift' &&
               grep -qx 'Power source assumed: battery (forced by \"power-source battery\" until the next event)' '$tmp/fverify.out' &&
               grep -q '^Power source assumed: battery (pinned by .*/etc/idlecfg/idlecfg.conf:2: \\[power\\] source = battery)\$' '$tmp/pverify.out' &&
               grep -q ' 1 drift' '$tmp/fverify.out' && grep -q ' 1 drift' '$tmp/pverify.out' ||
               { cat '$tmp/fverify.out' '$tmp/pverify.out'; exit 1; }"

# the switches, in one testbed: unplugged (event), again (unchanged), plugged,
# boot without an event, resume after a change during sleep, rollback
hda=/sys/module/snd_hda_intel/parameters/power_save
cat >"$tmp/switch.sh" <<EOS
set -u
I="$IDLECFG --root $root"
# the writeback interval is a sysctl: its /proc/sys is a copy here
mkdir -p $tmp/proc/sys/vm && echo 700 >$tmp/proc/sys/vm/dirty_writeback_centisecs
export IDLECFG_TEST_PROC=$tmp/proc
wb() { echo "wb \$1 \$(cat $tmp/proc/sys/vm/dirty_writeback_centisecs)"; }
sup=/sys/class/power_supply
pci=\$(sed -n 's/^pci.runtime_pm udev \(\S*\) power.control.*/\1/p' $root/etc/idlecfg/power-source.conf | head -n 1)
echo "pci \$pci"
# the recording was made on AC (its ACPI adapter is ACAD): unplugged now
echo 0 >\$sup/ACAD/online
echo "before \$(cat $hda) \$(cat /sys\$pci/power/control)"
\$I power-source event >$tmp/ev1.out 2>&1; echo "ev1 \$? \$(cat $hda) \$(cat /sys\$pci/power/control)"; wb ev1
test -s $root/var/lib/idlecfg/apply.journal && echo "journal \$(grep -c . $root/var/lib/idlecfg/apply.journal)"
\$I power-source event >$tmp/ev2.out 2>&1; echo "ev2 \$? \$(cat $hda) \$(cat /sys\$pci/power/control)"
echo 1 >\$sup/ACAD/online; echo Charging >\$sup/BAT0/status
\$I power-source event >$tmp/ev3.out 2>&1; echo "ev3 \$? \$(cat $hda) \$(cat /sys\$pci/power/control)"; wb ev3
\$I verify >$tmp/verify-ac.out 2>&1
# boot: /run is empty and the adapter sent nothing; on battery
rm -f $root/run/idlecfg/power-source
echo 0 >\$sup/ACAD/online; echo Discharging >\$sup/BAT0/status
\$I power-source boot >$tmp/boot.out 2>&1; echo "boot \$? \$(cat $hda) \$(cat /sys\$pci/power/control)"; wb boot
\$I verify >$tmp/verify-bat.out 2>&1
# plugged in during sleep: no event, the hook's resume run decides
echo 1 >\$sup/ACAD/online; echo Full >\$sup/BAT0/status
\$I power-source resume >$tmp/resume.out 2>&1; echo "resume \$? \$(cat $hda) \$(cat /sys\$pci/power/control)"; wb resume
\$I rollback >$tmp/rollback.out 2>&1; echo "rollback \$? \$(cat $hda) \$(cat /sys\$pci/power/control)"; wb rollback
EOS
run_machine "$m" sh "$tmp/switch.sh" >"$tmp/switch.out" 2>&1
v() { sed -n "s/^$1 //p" "$tmp/switch.out"; }
before=$(v before)
check "unplugged: the battery values are written (audio 10 s, PCI runtime PM auto) [$(v ev1)]" \
        sh -c "test '$(v ev1)' = '0 10 auto' && grep -q 'Power source: battery' '$tmp/ev1.out' && test '$(v journal)' -gt 2"
check "a sysctl switches too: writeback 15 s on battery, 5 s on AC, 700 again after rollback [$(v wb | tr '\n' ' ')]" \
        test "$(v wb | tr '\n' ' ')" = "ev1 1500 ev3 500 boot 1500 resume 500 rollback 700 "
check "the same source again: nothing written [$(v ev2)]" \
        sh -c "test '$(v ev2)' = '0 10 auto' && grep -q 'Unchanged since the last switch' '$tmp/ev2.out'"
check "plugged in: the AC values [$(v ev3)]" test "$(v ev3)" = "0 0 on"
check "verify says which source it assumed and why" \
        sh -c "grep -q '^Power source assumed: ac (mains supply ACAD online)' '$tmp/verify-ac.out' &&
               grep -q '^Power source assumed: battery (no supply online, battery BAT0 discharging)' '$tmp/verify-bat.out'"
check "boot without an event: decided and written [$(v boot)]" test "$(v boot)" = "0 10 auto"
check "resume after a change during sleep: decided and written [$(v resume)]" test "$(v resume)" = "0 0 on"
check "rollback restores the values before idlecfg ever switched ($before) and removes table, rule and unit [$(v rollback)]" \
        sh -c "test '$(v rollback)' = '0 $before' && ! test -e '$root/etc/udev/rules.d/70-idlecfg-power-source.rules' &&
               ! test -e '$root/etc/systemd/system/idlecfg-power-source.service' &&
               ! test -e '$root/etc/idlecfg/power-source.conf'"

# many switches, then the package's removal: the journal stays bounded by
# the number of knobs (a path keeps the value before idlecfg first touched
# it, and at most one more record); dpkg's prerm (rollback) and postrm
# (purge) restore the values from before the first switch and remove the
# table, rule, unit and hook. IDLECFG_TEST_SETTLE_MS: a 1 ms debounce.
# 200 switches: 100 round trips (POWER_SOURCE_ROUNDS; 500 took 2 min under load)
rounds=${POWER_SOURCE_ROUNDS:-$(sweep_share 100)}
cat >"$tmp/many.sh" <<EOS
set -u
. $top_srcdir/tests/snap.sh
I="$IDLECFG --root $root"
mkdir -p $tmp/proc/sys/vm && echo 700 >$tmp/proc/sys/vm/dirty_writeback_centisecs
export IDLECFG_TEST_PROC=$tmp/proc IDLECFG_TEST_SETTLE_MS=1
sup=/sys/class/power_supply
J=$root/var/lib/idlecfg/apply.journal
$IDLECFG install --profile switch --root $root --kernel $KVER >$tmp/many-install.out 2>&1
pci=\$(sed -n 's/^pci.runtime_pm udev \(\S*\) power.control.*/\1/p' $root/etc/idlecfg/power-source.conf | head -n 1)
vals() { echo "\$(cat $hda) \$(cat /sys\$pci/power/control) \$(cat $tmp/proc/sys/vm/dirty_writeback_centisecs)"; }
echo "knobs \$(grep -vc '^#' $root/etc/idlecfg/power-source.conf)"
echo "before \$(vals)"
echo 1 >\$sup/ACAD/online; echo Charging >\$sup/BAT0/status; snap $tmp/many.before
i=0 failed=0
while [ \$i -lt $rounds ]; do
        i=\$((i + 1))
        echo 0 >\$sup/ACAD/online; echo Discharging >\$sup/BAT0/status
        \$I power-source event >$tmp/many-ev.out 2>&1 && grep -q 'Writing the battery values' $tmp/many-ev.out || failed=\$((failed + 1))
        echo 1 >\$sup/ACAD/online; echo Charging >\$sup/BAT0/status
        \$I power-source event >$tmp/many-ev.out 2>&1 && grep -q 'Writing the ac values' $tmp/many-ev.out || failed=\$((failed + 1))
        case \$i in 1|10|$rounds) echo "journal\$i \$(grep -c . \$J) \$(wc -c <\$J)" ;; esac
done
echo "failed \$failed"
# on battery, every value differs from the one before idlecfg
echo 0 >\$sup/ACAD/online; echo Discharging >\$sup/BAT0/status
\$I power-source event >$tmp/many-ev.out 2>&1; echo "last \$(vals)"
mkdir -p $root/usr/sbin && printf '#!/bin/sh\nexec %s "\$@"\n' "$IDLECFG" >$root/usr/sbin/idlecfg && chmod +x $root/usr/sbin/idlecfg
DPKG_ROOT=$root sh $top_srcdir/src/hooks/dpkg.prerm remove >$tmp/prerm.out 2>&1; echo "prerm \$? \$(vals)"
DPKG_ROOT=$root sh $top_srcdir/src/hooks/dpkg.postrm purge >$tmp/postrm.out 2>&1; echo "postrm \$?"
echo 1 >\$sup/ACAD/online; echo Charging >\$sup/BAT0/status; snap $tmp/many.after
cmp -s $tmp/many.before $tmp/many.after && echo "sys same" || echo "sys differs"
rm -f $root/usr/sbin/idlecfg
EOS
run_machine "$m" sh "$tmp/many.sh" >"$tmp/many.out" 2>&1
v() { sed -n "s/^$1 //p" "$tmp/many.out"; }
knobs=$(v knobs)
set -- $(v journal1) $(v journal10) $(v journal$rounds)
check "$((2 * rounds)) switches, to battery and back $rounds times, each one written [failed: $(v failed)]" test "$(v failed)" = 0
check "the journal stays bounded by the knobs ($knobs): lines (bytes) after 1, 10 and $rounds round trips: $1 ($2), $3 ($4), ${5:-?} (${6:-?})" \
        sh -c "test '${5:-x}' = '$3' && test '${6:-x}' = '$4' && test '$5' -le \$((2 * $knobs + 4))"
check "package removal after them (dpkg prerm: rollback, postrm: purge) restores the values before idlecfg ($(v before)) [$(v prerm)], every attribute byte for byte [$(v sys)], removes table, rule, unit and journal" \
        sh -c "test '$(v prerm)' = '0 $(v before)' && test '$(v last)' != '$(v before)' && test '$(v postrm)' = 0 &&
               test '$(v sys)' = same &&
               grep -q 'rolling back what idlecfg applied and installed' '$tmp/prerm.out' &&
               ! test -e '$root/etc/udev/rules.d/70-idlecfg-power-source.rules' &&
               ! test -e '$root/etc/systemd/system/idlecfg-power-source.service' &&
               ! test -e '$root/etc/idlecfg/power-source.conf' && ! test -e '$root/var/lib/idlecfg' ||
               { cat '$tmp/many.out' '$tmp/prerm.out'; exit 1; }"

# a switch killed at each of its steps: the first one (its journal written
# before any value) and a third one, back to values the journal already has
# (no journal write: rollback restores from either value); rollback apply
# then restores every attribute and the sysctl as before idlecfg
cat >"$tmp/kill.sh" <<EOS
set -u
. $top_srcdir/tests/snap.sh
I="$IDLECFG --root $root"
wbf=$tmp/proc/sys/vm/dirty_writeback_centisecs
mkdir -p $tmp/proc/sys/vm && echo 700 >\$wbf
export IDLECFG_TEST_PROC=$tmp/proc IDLECFG_TEST_SETTLE_MS=1
sup=/sys/class/power_supply
plug() { echo 1 >\$sup/ACAD/online; echo Charging >\$sup/BAT0/status; }
unplug() { echo 0 >\$sup/ACAD/online; echo Discharging >\$sup/BAT0/status; }
$IDLECFG install --profile switch --root $root --kernel $KVER >$tmp/kill-install.out 2>&1
plug; snap $tmp/k.before
for phase in first covered; do
        n=\$((1 - SWEEP_STEP)) hit=0 bad=0 files=0
        while [ \$n -lt 100 ]; do
                n=\$((n + SWEEP_STEP))
                rm -f $root/run/idlecfg/power-source
                if [ \$phase = covered ]; then
                        unplug; \$I power-source event >/dev/null 2>&1; plug; \$I power-source event >/dev/null 2>&1
                fi
                unplug
                IDLECFG_FAULT=kill:\$n \$I power-source event >$tmp/k.run 2>&1
                grep -q injected $tmp/k.run || { \$I rollback apply >/dev/null 2>&1; break; }
                hit=\$((hit + 1))
                # a step of a file's write (the journal, /run's state), not of an attribute
                grep -q 'injected.*(sysfs write)' $tmp/k.run || files=\$((files + 1))
                \$I rollback apply >$tmp/k.rb 2>&1 || { bad=\$((bad + 1)); echo "\$phase kill:\$n: rollback failed"; cat $tmp/k.rb; }
                plug; snap $tmp/k.now
                cmp -s $tmp/k.before $tmp/k.now || { bad=\$((bad + 1)); echo "\$phase kill:\$n: /sys differs"; }
                [ "\$(cat \$wbf)" = 700 ] || { bad=\$((bad + 1)); echo "\$phase kill:\$n: writeback \$(cat \$wbf)"; }
                [ -e $root/var/lib/idlecfg/apply.journal ] && { bad=\$((bad + 1)); echo "\$phase kill:\$n: journal left"; }
        done
        echo "\$phase \$hit \$bad \$files"
done
\$I rollback >/dev/null 2>&1
EOS
run_machine "$m" sh "$tmp/kill.sh" >"$tmp/kill.out" 2>&1
set -- $(sed -n 's/^first //p' "$tmp/kill.out") $(sed -n 's/^covered //p' "$tmp/kill.out")
check "a switch killed at each of its steps: the first ($1, $3 in file writes: journal and state) and a third the journal covers ($4, $6 in file writes: the state only); rollback restores every value exactly$SWEEP_NOTE" \
        sh -c "test '${2:-x}' = 0 && test '${5:-x}' = 0 && test ${1:-0} -gt $(sweep_share 15) && test ${4:-0} -gt $(sweep_share 15) && test ${6:-9} -lt ${3:-0} ||
               { cat '$tmp/kill.out'; exit 1; }"

# a rollback killed at each of its steps, after three switches (#33): the
# next rollback finishes it, exit 0, blames nobody (a value already back at
# the journal's first old value is restored, not "changed"), and leaves the
# root as before the install (var/ and var/lib/, which install made, gone
# too: a note in run/ names them until they are) and /sys as before the switch
cat >"$tmp/rb.sh" <<EOS
set -u
. $top_srcdir/tests/snap.sh
I="$IDLECFG"
R=$tmp/rbroot T=$tmp/rbtemplate
wbf=$tmp/rbproc/sys/vm/dirty_writeback_centisecs
mkdir -p $tmp/rbproc/sys/vm && echo 700 >\$wbf
export IDLECFG_TEST_PROC=$tmp/rbproc IDLECFG_TEST_SETTLE_MS=1
sup=/sys/class/power_supply
plug() { echo 1 >\$sup/ACAD/online; echo Charging >\$sup/BAT0/status; }
unplug() { echo 0 >\$sup/ACAD/online; echo Discharging >\$sup/BAT0/status; }
tree() { (cd \$1 && find . ! -path './run' ! -path './run/*' -printf '%p %y %m\\n' | LC_ALL=C sort); }
tree $tmp/pristine >$tmp/rb.pristine
plug; snap $tmp/rb.before
cp -a $tmp/pristine \$T
\$I install --profile switch --root \$T --kernel $KVER >$tmp/rb-install.out 2>&1
unplug; \$I --root \$T power-source event >/dev/null 2>&1; plug; \$I --root \$T power-source event >/dev/null 2>&1
unplug; \$I --root \$T power-source event >/dev/null 2>&1
# the battery values, written again before each run
battery() {
        while read -r knob mech dev attr mod par ac bat; do
                case \$knob in '#'*|'') continue ;; esac
                case \$mech in
                udev) echo \$bat >/sys\$dev/\$attr ;;
                modprobe|tmpfiles|cmdline) echo \$bat >/sys/module/\$(echo \$mod | tr - _)/parameters/\$par ;;
                sysctl) echo \$bat >$tmp/rbproc/sys/\$(echo \$par | tr . /) ;;
                esac
        done <\$T/etc/idlecfg/power-source.conf
}
n=\$((1 - SWEEP_STEP)) hit=0 bad=0
while [ \$n -lt 400 ]; do
        n=\$((n + SWEEP_STEP))
        rm -rf \$R; cp -a \$T \$R; unplug; battery
        IDLECFG_FAULT=kill:\$n \$I --root \$R rollback >$tmp/rb.run 2>&1
        grep -q injected $tmp/rb.run || { echo "kill:\$n: not reached"; cat $tmp/rb.run; break; }
        hit=\$((hit + 1))
        \$I --root \$R rollback >$tmp/rb.out 2>&1; rc=\$?
        plug; snap $tmp/rb.now
        why=
        [ \$rc = 0 ] || why="\$why exit \$rc"
        ! grep -q 'someone changed it' $tmp/rb.out || why="\$why blamed"
        cmp -s $tmp/rb.before $tmp/rb.now || why="\$why sys"
        [ "\$(cat \$wbf)" = 700 ] || why="\$why writeback"
        # var/ and var/lib/ (install made them) included; and no note left in run/
        tree \$R | cmp -s - $tmp/rb.pristine ||
                why="\$why root: \$(tree \$R | diff $tmp/rb.pristine - | grep '^[<>]' | tr '\\n' ' ')"
        ! test -e \$R/run/idlecfg/rollback-parents || why="\$why note left"
        [ -z "\$why" ] || { bad=\$((bad + 1)); echo "kill:\$n (\$(sed -n 's/.*injected kill at fault point [0-9]* (\\(.*\\))/\\1/p' $tmp/rb.run)):\$why"; }
done
echo "rb \$hit \$bad"
EOS
run_machine "$m" sh "$tmp/rb.sh" >"$tmp/rb.out.all" 2>&1
set -- $(sed -n 's/^rb //p' "$tmp/rb.out.all")
check "a rollback killed at each of its ${1:-?} steps after three switches: the next one finishes it, exit 0, blames nobody, root and /sys as before [bad: ${2:-?}]$SWEEP_NOTE" \
        sh -c "test '${1:-0}' -gt $(sweep_share 20) && test '${2:-x}' = 0 || { cat '$tmp/rb.out.all'; exit 1; }"

# a desktop: one source, nothing of the switch installed, nothing to switch
droot=$tmp/droot
mkroot_installed "$TESTS_DATA/machines/desktop-sata" "$droot" || { echo "Bail out! cannot build the root"; exit 1; }
run_machine "$TESTS_DATA/machines/desktop-sata" "$IDLECFG" install --root "$droot" --kernel "$KVER" >"$tmp/dinstall.out" 2>&1
run_machine "$TESTS_DATA/machines/desktop-sata" "$IDLECFG" --root "$droot" power-source event >"$tmp/dev.out" 2>&1
check "desktop: no switch installed, power-source has nothing to do" \
        sh -c "! test -e '$droot/etc/udev/rules.d/70-idlecfg-power-source.rules' && grep -q 'nothing to switch' '$tmp/dev.out'"
run_machine "$TESTS_DATA/machines/desktop-sata" "$IDLECFG" --root "$droot" power-source ac >"$tmp/dac.out" 2>&1; rc=$?
check "desktop: power-source ac without a per-source table says so (no \"forced until the next event\"), exit 0, records nothing" \
        sh -c "test $rc -eq 0 && grep -q '^No per-source table (.*power-source.conf is absent)' '$tmp/dac.out' &&
               ! grep -q 'forced' '$tmp/dac.out' && test ! -e '$droot/run/idlecfg/power-source' || { cat '$tmp/dac.out'; exit 1; }"
# no switch where nothing switches (#33): no system battery, or no value per source planned
sw="etc/idlecfg/power-source.conf etc/udev/rules.d/70-idlecfg-power-source.rules etc/systemd/system/idlecfg-power-source.service etc/systemd/system/multi-user.target.d/idlecfg-power-source.conf"
none() { for _f in $sw; do ! test -e "$1/$_f" || { echo "$1/$_f"; return 1; }; done; }
run_machine "$TESTS_DATA/machines/desktop-sata" "$IDLECFG" install --profile balanced --root "$droot" --kernel "$KVER" >"$tmp/dbal.out" 2>&1
run_machine "$TESTS_DATA/machines/desktop-sata" "$IDLECFG" plan --profile balanced --root "$droot" --kernel "$KVER" >"$tmp/dbal.plan" 2>&1
left=$(none "$droot")
check "a desktop (no system battery) with balanced's per-source writeback interval: the AC value alone, no switch file [${left:-none}], and the plan says why" \
        sh -c "test -z '$left' && grep -q 'set 500  (now' '$tmp/dbal.plan' && ! grep -q 'set ac 500, battery 1500' '$tmp/dbal.plan' &&
               tr -s ' \n' '  ' <'$tmp/dbal.plan' | grep -q 'one power source here (no system battery in /sys/class/power_supply): the AC value, no power-source switch' &&
               ! grep -q on-battery '$droot/etc/udev/rules.d/70-idlecfg.rules' ||
               { cat '$tmp/dbal.out' '$tmp/dbal.plan'; exit 1; }"
lroot=$tmp/lroot
cp -a "$tmp/broot" "$lroot"
before=$(none "$lroot")
run_machine "$m" "$IDLECFG" install --profile performance --root "$lroot" --kernel "$KVER" >"$tmp/lperf.out" 2>&1
left=$(none "$lroot")
check "a laptop whose profile plans no value per source (performance): the switch files of the install before ($before, ...) are removed, none written [${left:-none}]" \
        sh -c "test -n '$before' && test -z '$left' || { cat '$tmp/lperf.out'; exit 1; }"
