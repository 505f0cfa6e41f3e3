#!/bin/sh
# tests/family-sata.sh: the [sata] family (src/knobs/sata.c): every value of
# alpm, runtime_pm and mask_port_ext planned on every recorded machine: which
# hosts, ports and drives get what, which are skipped and why (the hwdb's
# NOLPM disks and platform denies first), the udev rules, per-source values
# and the refusals; and on desktop-sata with the AHCI port registers its
# recording lacks (an edited copy): empty, hot-plug capable and ZPODD ports,
# and /home on an external port for mask_port_ext
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/family-lib.sh"
plan 26

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
# desktop-sata with the AHCI registers its recording lacks (tests/plan-savings.sh
# makes the same edit): ata1 a ZPODD DVD, ata2 the root disk, ata3 /home on a
# port the firmware marks hot-plug capable (HPCP), ata4 a dummy port, ata5
# empty and internal, ata6 empty and hot-plug capable; each port's runtime PM off
mkdir -p "$tmp/machines/sata-ports"
cp -R "$TESTS_DATA/machines/desktop-sata/." "$tmp/machines/sata-ports/"
python3 - "$TESTS_DATA/machines/desktop-sata/machine.umockdev" "$tmp/machines/sata-ports" <<'PY'
import re, sys
text = "\n".join(l for l in open(sys.argv[1]).read().split("\n") if not l.startswith("#"))
cmd = {"host0": "c017", "host1": "c017", "host2": "4c017", "host3": "0", "host4": "16", "host5": "40016"}
out, attrs = [], []
for block in text.split("\n\n"):
    m = re.search(r"^P: (/devices/pci0000:00/0000:00:1f\.2/(ata\d+))/(host\d+)/scsi_host/host\d+$", block, re.M)
    if m and m.group(3) in cmd:
        block = block.replace("A: proc_name=ahci\\n", "A: ahci_host_caps=c720ff05\\n\nA: ahci_port_cmd=%s\\n\nA: proc_name=ahci\\n"
                              % cmd[m.group(3)])
        attrs.append("%s/power/control=on" % m.group(1))
        if m.group(2) == "ata1":
            attrs.append("%s/link1/dev1.0/power/pm_qos_no_power_off=0" % m.group(1))
    out.append(block)
open(sys.argv[2] + "/machine.umockdev", "w").write("\n\n".join(out))
open(sys.argv[2] + "/sysattrs", "w").write("\n".join(attrs) + "\n")
PY
# and a system battery (#33: desktop-sata has none, so one source and no
# per-source value): the SATA machine whose ALPM can switch
{ echo; grep -v '^#' "$TESTS_DATA/power/mains-laptop.umockdev"; } >>"$tmp/machines/sata-ports/machine.umockdev"
FAMILY_MACHINES="$FAMILY_MACHINES sata-ports"
# local hwdb entries: desktop-sata's /home disk on host2 a NOLPM drive; the
# edited ports' platform one whose AHCI runtime PM is denied
hwdb_variant sata-hwdb desktop-sata 'idlecfg-ata:WDC WD5000AAKX-0:1H15
 IDLECFG_SATA_ALPM=deny
 IDLECFG_SATA_ALPM_REASON=family test deny'
hwdb_variant ports-ahci sata-ports 'dmi:*
 IDLECFG_AHCI_RUNTIME_PM=deny
 IDLECFG_AHCI_RUNTIME_PM_REASON=family test deny'
plan_all
REC="amd-laptop buildhost desktop-sata intel-laptop"
A=sata.alpm R=sata.runtime_pm X=sata.mask_port_ext

# alpm VALUE: the two desktop-sata hosts with a usable disk or drive get it;
# the NOLPM disk's host (hwdb), the empty ports and the laptop's ports skipped
alpm() {
        ok_plans "$1" || return 1
        rows "$1" $A $REC | cut -d'|' -f1,3,5,8,11,12 >"$tmp/a"
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
        ok_plans rpm-auto && [ -z "$(rows rpm-auto $R $REC | awk -F"|" '$8 != ""')" ] || return 1
        rows rpm-auto $R $REC | cut -d'|' -f1,3,12 >"$tmp/r"
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
        rows rpm-on $R $REC | awk -F"|" '$8 != ""' | cut -d'|' -f1,3,5,8,11,12 >"$tmp/r"
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
        ok_plans "$1" && [ -z "$(rows "$1" $X $REC)" ] && ! grep -h mask_port_ext "$(out desktop-sata "$1" modprobe)" "$(out desktop-sata "$1" cmdline)"
}
check "mask_port_ext = yes: no recorded machine has a fixed disk on an external AHCI port: no ahci.mask_port_ext anywhere" mask mask-yes
check "mask_port_ext = no: nothing either" mask mask-no
check "mask_port_ext takes no per-source value: refused with the file and line" refused_source mask-src sata mask_port_ext
# ---- the edited ports (sata-ports) ----
V=sata-ports
ports_alpm() {
        for v in max_performance min_power; do
                rows $v $A $V | cut -d'|' -f3,8,12 >"$tmp/p"
                grep -qxF "host4|$v|$(reason_of $v sata alpm $v); empty ahci_port_cmd 16: internal port (no HPCP, MPSP or ESP bit): no hot-plug event to lose" "$tmp/p" &&
                        grep -qxF "host5||skipped: no disk on this port and ahci_port_cmd 40016: hot-plug capable port (PxCMD.HPCP): LPM would stop hot-plug detection (https://github.com/pop-os/system76-power/issues/417)" "$tmp/p" &&
                        grep -q "^host3||skipped: no disk on this port and ahci_port_cmd 0: a port outside the controller's port map (DUMMY)" "$tmp/p" &&
                        [ "$(awk -F'|' '$2 != ""' "$tmp/p" | cut -d'|' -f1 | tr '\n' ' ')" = "host0 host2 host4 " ] || { cat "$tmp/p"; return 1; }
        done
}
check "edited ports, alpm: the empty internal port gets the value too; the hot-plug capable and dummy ports skipped, saying which bit" ports_alpm
ports_rpm() {
        _r=$(reason_of rpm-auto sata runtime_pm auto)
        printf '%s\n' "0:0:0:0|power/control|auto|$_r; zero-power ODD: libata exposes power/pm_qos_no_power_off on its ATA device, so ACPI can cut the drive's power once it and its port suspend (drivers/ata/libata-zpodd.c)" \
                "ata1|device/power/control|auto|$_r; only a zero-power optical drive on this port: the port must suspend for ZPODD to power the drive off" \
                "ata5|device/power/control|auto|$_r; empty ahci_port_cmd 16: internal port (no HPCP, MPSP or ESP bit): nothing can appear on it" >"$tmp/w"
        planned rpm-auto $R | awk -F'|' -v v=$V '$1 == v' | cut -d'|' -f3,5,8,12 | diff -u "$tmp/w" - &&
                rows rpm-auto $R $V | grep -q "|host5|.*|skipped: no disk on this port and ahci_port_cmd 40016: hot-plug capable port (PxCMD.HPCP): a suspended port would miss the disk plugged in next\$"
}
check "edited ports, runtime_pm = auto: the ZPODD drive and its port, and the empty internal port; never a disk or a hot-plug capable port" ports_rpm
ports_mask() {
        [ "$(rows mask-yes $X $V | cut -d'|' -f3,8,12)" = "||skipped: kernel $KVER has no ahci.mask_port_ext (Linux 6.17 and later): the firmware marks the ports of host2 (0000:00:1f.2 port 2, sdb: /home (fstab)) external, so kernels that keep external ports without LPM hold them at max_performance; with 6.17 this would plan ahci.mask_port_ext=0000:00:1f.2=0x4" ] &&
                ! grep -h mask_port_ext "$(out $V mask-yes modprobe)" "$(out $V mask-yes cmdline)" &&
                [ "$(rows mask-no $X $V | cut -d'|' -f3,8,12)" = "host2||skipped: $(reason_of mask-no sata mask_port_ext no): sdb holds /home (fstab), but ahci_port_cmd 4c017: hot-plug capable port (PxCMD.HPCP): its link stays at max_performance" ] &&
                ! grep -h mask_port_ext "$(out $V mask-no modprobe)" "$(out $V mask-no cmdline)"
}
check "edited ports, mask_port_ext: yes names the mask 6.17 would take for /home's external port (the fixture kernel 6.1 has no parameter); no leaves it, saying so" ports_mask
# ---- local hwdb entries (sata-hwdb, ports-ahci) ----
host2() { rows "$1" $A "$2" | grep "|host2|" | cut -d'|' -f5,8,12; }
alpm_deny() {
        for _v in max_performance min_power alpm-src; do
                [ "$(host2 $_v sata-hwdb)" = "||skipped: disk WDC WD5000AAKX-0 1H15: hwdb /etc/udev/hwdb.d/99-sata-hwdb.hwdb:3 (family test deny)" ] ||
                        { echo "$_v: $(host2 $_v sata-hwdb)"; return 1; }
        done
}
hwdb_point deny IDLECFG_SATA_ALPM "an entry for the drive on desktop-sata's host2 leaves its host's link_power_management_policy alone, with the entry's reason, for every value" alpm_deny
alpm_keep() {
        for _v in max_performance min_power; do
                [ "$(host2 $_v desktop-sata)" = "link_power_management_policy|$_v|$(reason_of $_v sata alpm $_v)" ] ||
                        { echo "$_v: $(host2 $_v desktop-sata)"; return 1; }
        done
        # the other hosts of the variant are as on the recording
        [ "$(rows min_power $A sata-hwdb | grep -v "|host2|" | cut -d'|' -f3-)" = "$(rows min_power $A desktop-sata | grep -v "|host2|" | cut -d'|' -f3-)" ]
}
hwdb_point keep IDLECFG_SATA_ALPM "without the entry host2 gets each value; the entry changes no other host" alpm_keep
ahci_deny() {
        ok_plans rpm-auto || return 1
        [ -z "$(planned rpm-auto $R ports-ahci)" ] || { planned rpm-auto $R ports-ahci; return 1; }
        _r="skipped: hwdb /etc/udev/hwdb.d/99-ports-ahci.hwdb:3 (family test deny)"
        [ "$(rows rpm-auto $R ports-ahci | cut -d'|' -f3,12 | grep -c "^host[0-5]|$_r\$")" = 6 ] ||
                { rows rpm-auto $R ports-ahci; return 1; }
        # the pci family leaves the AHCI controller alone too (the entry is its as well)
        rows balanced pci.runtime_pm ports-ahci | grep -q "|0000:00:1f.2|.*|skipped: AHCI controller: hwdb /etc/udev/hwdb.d/99-ports-ahci.hwdb:3 (family test deny)\$" ||
                { rows balanced pci.runtime_pm ports-ahci | grep 1f.2; return 1; }
}
hwdb_point deny IDLECFG_AHCI_RUNTIME_PM "a platform entry: runtime_pm = auto suspends no port or drive of the edited ports, each AHCI host skipped with the entry's reason; balanced's pci.runtime_pm skips the AHCI controller" ahci_deny
ahci_keep() {
        [ "$(planned rpm-auto $R sata-ports | cut -d'|' -f3 | tr '\n' ' ')" = "0:0:0:0 ata1 ata5 " ] &&
                rows balanced pci.runtime_pm sata-ports | grep -q "|0000:00:1f.2|pci|power/control|||auto|" &&
                # on is not about suspending: the entry does not stop it
                [ "$(planned rpm-on $R ports-ahci | cut -d'|' -f3,8 | sort)" = "$(planned rpm-on $R sata-ports | cut -d'|' -f3,8 | sort)" ] &&
                [ -n "$(planned rpm-on $R ports-ahci)" ]
}
hwdb_point keep IDLECFG_AHCI_RUNTIME_PM "without the entry the ZPODD drive, its port and the empty internal port get auto and the AHCI controller too; runtime_pm = on is planned with it as without" ahci_keep
check "every value changes its own knob alone: the rest of each plan is balanced's" only_knobs $A $R $X
done_testing
