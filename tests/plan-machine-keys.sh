#!/bin/sh
# tests/plan-machine-keys.sh: the machine-keyed kernel facts of
# 60-idlecfg-linux-platform.hwdb reach the plan: recorded machines whose DMI
# identity is rewritten to that of a machine the kernel names (ThinkPad X250
# with an old and a fixed BIOS, a bridge_d3_blacklist board, an NVMe quirk
# board, an init_default_s3 machine)
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3
plan 9

# variant MACHINE NAME MODALIAS BIOS_DATE: a copy of MACHINE with another DMI identity
variant() {
        _dir=$tmp/$2
        mkdir -p "$_dir"
        cp -R "$TESTS_DATA/machines/$1/." "$_dir/"
        sed -i -e "s|^A: modalias=dmi:.*|A: modalias=$3\\\\n|" -e "s|^A: bios_date=.*|A: bios_date=$4\\\\n|" \
                "$_dir/machine.umockdev"
        grep -qF "A: modalias=$3" "$_dir/machine.umockdev"
}
# plan_of NAME: the balanced plan, one line per setting: knob|device|value|reason
plan_of() {
        mkroot_installed "$tmp/$1" "$tmp/$1-root" >/dev/null 2>&1 || return 1
        run_machine "$tmp/$1" "$IDLECFG" plan --json --profile balanced --root "$tmp/$1-root" --kernel "$KVER" \
                >"$tmp/$1.json" 2>"$tmp/$1.err" || { cat "$tmp/$1.err"; return 1; }
        python3 -c '
import json, sys
for s in json.load(open(sys.argv[1]))["settings"]:
    print("|".join(str(s.get(k) or "") for k in ("knob", "device", "value", "reason")))' "$tmp/$1.json" >"$tmp/$1.flat"
}

x250='dmi:bvnLENOVO:bvrN10ET50W(1.29):bd03/15/2018:br1.29:svnLENOVO:pn20CM001XUS:pvrThinkPadX250:rvnLENOVO:rn20CM001XUS:rvrSDK0E50512STD:cvnLENOVO:ct10:cvrNone:'
x250new=$(echo "$x250" | sed 's|bd03/15/2018|bd05/02/2018|')
x250_plans() {
        variant desktop-sata x250 "$x250" 03/15/2018 && plan_of x250 &&
                variant desktop-sata x250new "$x250new" 05/02/2018 && plan_of x250new
}
check "desktop-sata as a ThinkPad X250 with BIOS 03/15/2018 and with 05/02/2018: both plans exit 0" x250_plans
x250_old() {
        # every AHCI host skipped, for the machine, not for a disk
        [ "$(grep -c '^sata\.alpm|' "$tmp/x250.flat")" -gt 1 ] &&
                ! grep '^sata\.alpm|' "$tmp/x250.flat" | grep -v '|skipped: hwdb /usr/lib/udev/hwdb.d/60-idlecfg-linux-platform.hwdb:[0-9]* (kernel ahci_broken_lpm: SATA LPM broken on this machine with BIOS older than 20180406)$'
}
check "X250, BIOS older than the kernel's 20180406: no SATA ALPM on any host (ahci_broken_lpm)" x250_old
x250_new() {
        ! grep -q ahci_broken_lpm "$tmp/x250new.flat" &&
                grep -q '^sata\.alpm|.*|med_power_with_dipm|profile balanced' "$tmp/x250new.flat" &&
                grep -q '^sata\.alpm|.*||skipped: disk Crucial_CT480M50 MU03: hwdb .*60-idlecfg-linux-sata.hwdb' "$tmp/x250new.flat"
}
check "X250 with a fixed BIOS: ALPM as the profile says, the NOLPM disk's host still skipped" x250_new

# a board of bridge_d3_blacklist: its PCIe ports get the kernel's reason
gb='dmi:bvnAmericanMegatrendsInc.:bvrF4:bd05/01/2018:svnGigabyteTechnologyCo.,Ltd.:pnX299DESIGNAREEX:rvnGigabyteTechnologyCo.,Ltd.:rnX299DESIGNAREEX-CF:rvrx.x:cvnGigabyteTechnologyCo.,Ltd.:ct3:'
bridges() {
        variant desktop-sata gb "$gb" 05/01/2018 && plan_of gb || return 1
        _cnt=$(python3 -c '
import json, sys
inv = json.load(open(sys.argv[1]))
print(sum(1 for s in inv["settings"] if s["knob"] == "pci.runtime_pm" and "bridge_d3_blacklist" in (s["reason"] or "")))' "$tmp/gb.json")
        [ "$_cnt" -gt 0 ] && ! grep '^pci\.runtime_pm|' "$tmp/gb.flat" | grep -q 'PCI bridge: the kernel manages' &&
                ! grep '^pci\.runtime_pm|' "$tmp/gb.flat" | grep bridge_d3_blacklist | grep -qv '||skipped: '
}
check "X299 DESIGNARE EX-CF board: its PCI bridges skipped for bridge_d3_blacklist" bridges
same_elsewhere() {
        # the other settings of that plan are those of the recorded machine
        grep -v '^pci\.runtime_pm|' "$tmp/gb.flat" | grep -v '^suspend\.' | cut -d'|' -f1-3 >"$tmp/gb.rest"
        python3 -c '
import json, sys
for s in json.load(open(sys.argv[1]))["settings"]:
    if s["knob"] != "pci.runtime_pm" and not s["knob"].startswith("suspend."):
        print("|".join(str(s.get(k) or "") for k in ("knob", "device", "value")))' \
                "$TESTS_DATA/machines/desktop-sata/expected/plan-balanced.json" >"$tmp/sata.rest"
        diff -u "$tmp/sata.rest" "$tmp/gb.rest"
}
check "on that board everything but PCI runtime PM is planned as on the recorded machine" same_elsewhere

# NVMe: a board check_vendor_combination_bug names for every drive
nv='dmi:bvnINSYDECorp.:bvr1.07:bd06/01/2023:br1.7:svnMadeUp:pnLaptop:pvr1:rvnMadeUp:rnLXKT-ZXEG-N6:rvr1:cvnMadeUp:ct10:cvr1:'
# (the entry holds for kernels <6.1.192: 6.1.0-18-amd64 names no sublevel, so
# without the root's dpkg status the range is not decided and the drive skipped;
# the status says 6.1.76)
nvme() {
        variant amd-laptop nv "$nv" 06/01/2023 && plan_of nv || return 1
        grep -q '^nvme\.apst|.*||skipped: hwdb /usr/lib/udev/hwdb.d/60-idlecfg-linux-platform.hwdb:[0-9]* sets IDLECFG_NVME_APST=deny for kernels <6.1.192 only, and the upstream sublevel of kernel 6.1.0-18-amd64 is unknown (no /var/lib/dpkg/status): ' "$tmp/nv.flat" ||
                { echo "without dpkg status:"; grep '^nvme' "$tmp/nv.flat"; return 1; }
        mkdir -p "$tmp/nv-root/var/lib/dpkg"
        printf 'Package: linux-image-%s\nStatus: install ok installed\nVersion: 6.1.76-1\n' "$KVER" >"$tmp/nv-root/var/lib/dpkg/status"
        plan_of nv || return 1
        grep -q '^nvme\.apst|.*|0|hwdb /usr/lib/udev/hwdb.d/60-idlecfg-linux-platform.hwdb:[0-9]* (kernel check_vendor_combination_bug: NVME_QUIRK_NO_APST' "$tmp/nv.flat"
}
check "LXKT-ZXEG-N6 board: APST off (nvme_core.default_ps_max_latency_us=0) on the kernel before the quirk (6.1.76 by dpkg status; skipped without it)" nvme
nvme_ref() {
        # the recorded laptop itself has no quirk for its drive
        grep -q '"reason": "skipped: no APST quirk for ' "$TESTS_DATA/machines/amd-laptop/expected/plan-balanced.json" &&
                ! grep -q '^nvme\.apst|.*||skipped: no APST quirk for' "$tmp/nv.flat"
}
check "the recorded laptop itself has no NVMe quirk (the entry made the difference)" nvme_ref

# init_default_s3: deep sleep wins over the profile's keep
tab='dmi:bvnLENOVO:bvrN1FET33W(1.07):bd01/12/2017:br1.7:svnLENOVO:pn20GGA00L00:pvrThinkPadX1Tablet:rvnLENOVO:rn20GGA00L00:rvrSDK0J40697WIN:cvnLENOVO:ct32:cvrNone:'
s3() {
        # a machine with S3 (the row's point): not amd-laptop's s2idle-only mem_sleep
        variant amd-laptop tab "$tab" 01/12/2017 && echo '/power/mem_sleep=s2idle [deep]' >"$tmp/tab/sysattrs" &&
                plan_of tab || return 1
        grep -q '^suspend\.mem_sleep||deep|hwdb /usr/lib/udev/hwdb.d/60-idlecfg-linux-platform.hwdb:[0-9]* (kernel acpisleep_dmi_table init_default_s3' "$tmp/tab.flat" &&
                ! grep '^suspend\.mem_sleep|' "$tmp/nv.flat" | grep -qv '|skipped: profile balanced \[suspend\] mem_sleep = keep (.*): the kernel default stays$'
}
check "ThinkPad X1 Tablet (2016): mem_sleep_default=deep from the kernel's init_default_s3 row; not elsewhere" s3
bios_unknown() {
        # no BIOS date: the BIOS-dated deny holds (the safe side)
        variant desktop-sata nodate "$(echo "$x250" | sed 's|bd03/15/2018:||')" "" && plan_of nodate &&
                grep '^sata\.alpm|' "$tmp/nodate.flat" | grep -q ahci_broken_lpm
}
check "X250 without a readable BIOS date: the BIOS-dated deny applies" bios_unknown

done_testing
