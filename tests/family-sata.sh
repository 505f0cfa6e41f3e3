#!/bin/sh
# tests/family-sata.sh: the [sata] family (src/knobs/sata.c): every value of
# alpm, runtime_pm and mask_port_ext planned on every recorded machine: which
# hosts, ports and drives get what, which are skipped and why (the hwdb's
# NOLPM disks and platform denies first), the udev rules, per-source values
# and the refusals
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/family-lib.sh"
plan 19

for v in max_performance medium_power med_power_with_dipm min_power_with_partial min_power; do
        value "$v" sata alpm "$v" udev
done
value alpm-keep sata alpm keep udev
value alpm-src sata alpm "ac:med_power_with_dipm battery:min_power"
value alpm-bad sata alpm min
value rpm-auto sata runtime_pm auto udev
value rpm-on sata runtime_pm on udev
value rpm-keep sata runtime_pm keep udev
value rpm-src sata runtime_pm "ac:on battery:auto"
value mask-yes sata mask_port_ext yes modprobe cmdline
value mask-no sata mask_port_ext no modprobe cmdline
value mask-src sata mask_port_ext "ac:yes battery:no"
value rpm-bad sata runtime_pm off
plan_all
A=sata.alpm R=sata.runtime_pm X=sata.mask_port_ext

# alpm VALUE: the two desktop-sata hosts with a usable disk or drive get it;
# the NOLPM disk's host (hwdb), the empty ports and the laptop's ports skipped
alpm() {
        ok_plans "$1" || return 1
        rows "$1" $A | cut -d'|' -f1,3,5,8,11,12 >"$tmp/a"
        _r=$(reason_of "$1" sata alpm "$1")
        cat >"$tmp/w" <<W
amd-laptop|host0|||none|skipped: no disk on this port and ahci_port_cmd not readable: LPM would stop hot-plug detection (https://github.com/pop-os/system76-power/issues/417)
amd-laptop|host1|||none|skipped: no disk on this port and ahci_port_cmd not readable: LPM would stop hot-plug detection (https://github.com/pop-os/system76-power/issues/417)
desktop-sata|host0|link_power_management_policy|$1|udev|$_r; optical drive on this port (ZPODD powers it off by itself where the firmware supports it)
desktop-sata|host1|||none|skipped: disk Crucial_CT480M50 MU03: hwdb /usr/lib/udev/hwdb.d/60-idlecfg-linux-sata.hwdb:96 (kernel NOLPM quirk: link power management is broken on this drive)
desktop-sata|host2|link_power_management_policy|$1|udev|$_r
desktop-sata|host3|||none|skipped: no disk on this port and ahci_port_cmd not readable: LPM would stop hot-plug detection (https://github.com/pop-os/system76-power/issues/417)
desktop-sata|host4|||none|skipped: no disk on this port and ahci_port_cmd not readable: LPM would stop hot-plug detection (https://github.com/pop-os/system76-power/issues/417)
desktop-sata|host5|||none|skipped: no disk on this port and ahci_port_cmd not readable: LPM would stop hot-plug detection (https://github.com/pop-os/system76-power/issues/417)
W
        diff -u "$tmp/w" "$tmp/a"
}
for v in max_performance medium_power med_power_with_dipm min_power_with_partial min_power; do
        check "alpm = $v: desktop-sata's DVD and root-disk hosts get $v; the NOLPM disk's host (hwdb), empty ports, the laptop's ports skipped" alpm $v
done
check "alpm = min_power: the udev rules write exactly those hosts" udev_rules min_power $A
check "alpm = keep: nothing planned, one skip naming the profile line, no udev rule" kept alpm-keep $A sata alpm udev
check "alpm = ac:med_power_with_dipm battery:min_power: the same hosts, switching" per_source alpm-src $A med_power_with_dipm min_power
check "alpm: a word it does not take is refused with the file and line" refused_word alpm-bad sata alpm \
        "unknown value 'min' for [sata] alpm; valid: max_performance, medium_power, med_power_with_dipm, min_power_with_partial, min_power, keep"

rpm_auto() {
        ok_plans rpm-auto && [ -z "$(planned rpm-auto $R)" ] || { planned rpm-auto $R; return 1; }
        rows rpm-auto $R | cut -d'|' -f1,3,12 >"$tmp/r"
        # the ASUS platform entry of the hwdb wins on the laptop
        [ "$(grep -c '^amd-laptop|host[01]|skipped: hwdb /usr/lib/udev/hwdb.d/60-idlecfg-platform.hwdb:[0-9]* (AHCI runtime PM takes the USB ports down on battery on ASUS laptops' "$tmp/r")" = 2 ] &&
                [ "$(grep -c '^desktop-sata|host[012]|skipped: a disk or drive on this port: AHCI runtime PM is suspected in resume freezes' "$tmp/r")" = 3 ] &&
                [ "$(grep -c '^desktop-sata|[12]:0:0:0|skipped: disk runtime PM spins the disk down and up' "$tmp/r")" = 2 ] &&
                grep -q '^desktop-sata|0:0:0:0|skipped: optical drive without zero-power ODD support' "$tmp/r" &&
                [ "$(grep -c '^desktop-sata|host[345]|skipped: no disk on this port and ahci_port_cmd not readable: a suspended port would miss' "$tmp/r")" = 3 ] &&
                [ "$(grep -c '^desktop-sata|host[67]|skipped: not an AHCI port (ata_generic)' "$tmp/r")" = 2 ] &&
                [ "$(wc -l <"$tmp/r")" = 13 ] || { cat "$tmp/r"; return 1; }
}
check "runtime_pm = auto: no port or drive qualifies on the recorded machines; each skip says why (the ASUS hwdb entry, disks, no ZPODD, unreadable PxCMD, ata_generic)" rpm_auto
rpm_on() {
        ok_plans rpm-on || return 1
        planned rpm-on $R | cut -d'|' -f1,3,5,8,11,12 >"$tmp/r"
        _r=$(reason_of rpm-on sata runtime_pm on)
        for p in amd-laptop/ata1 amd-laptop/ata2 desktop-sata/ata1 desktop-sata/ata2 desktop-sata/ata3 desktop-sata/ata4 desktop-sata/ata5 desktop-sata/ata6; do
                echo "${p%/*}|${p#*/}|device/power/control|on|udev|$_r"
        done | diff -u - "$tmp/r"
}
check "runtime_pm = on: device/power/control=on on every AHCI port (the ASUS deny is about auto), nothing on drives" rpm_on
check "runtime_pm = on: the udev rules write exactly those ports" udev_rules rpm-on $R
check "runtime_pm = keep: nothing planned, one skip naming the profile line" kept rpm-keep $R sata runtime_pm udev
check "runtime_pm takes no per-source value: refused with the file and line" refused_source rpm-src sata runtime_pm
check "runtime_pm: a word it does not take is refused with the file and line" refused_word rpm-bad sata runtime_pm \
        "unknown value 'off' for [sata] runtime_pm; valid: auto, on, keep"
mask() {
        # (tests/plan-savings.sh plans it on an edited desktop-sata with /home on an external port)
        ok_plans "$1" && [ -z "$(rows "$1" $X)" ] && ! grep -h mask_port_ext "$(out desktop-sata "$1" modprobe)" "$(out desktop-sata "$1" cmdline)"
}
check "mask_port_ext = yes: no recorded machine has a fixed disk on an external AHCI port: no ahci.mask_port_ext anywhere" mask mask-yes
check "mask_port_ext = no: nothing either" mask mask-no
check "mask_port_ext takes no per-source value: refused with the file and line" refused_source mask-src sata mask_port_ext
check "every value changes its own knob alone: the rest of each plan is balanced's" only_knobs $A $R $X
done_testing
