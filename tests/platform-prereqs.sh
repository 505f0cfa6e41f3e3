#!/bin/sh
# tests/platform-prereqs.sh: verify's platform prerequisites of deep idle on
# the machines that suspend to idle (#36 point 3; the knowledge is the suspend
# family's, src/knobs/suspend.c .prereqs): intel-laptop without
# intel_pmc_core bound, amd-laptop with amd_pmc and pciehp, msi-claw with
# intel_pmc_core and no PCI bridge; copies of them without pciehp, with the
# touchpad unbound, and a root booting with mem_sleep_default=deep; a machine
# whose mem_sleep is unknown (desktop-sata) gets no such line. Also the
# suspend family's refusal to plan deep where the firmware has no S3.
. "$top_srcdir/tests/lib.sh"
need umockdev-run python3
plan 9

# verify_json NAME MACHINE-DIR [ROOT-SETUP]: verify --json of the balanced plan
verify_json() {
        _root=$tmp/$1-root
        mkroot_installed "$2" "$_root" || return 1
        [ -z "${3:-}" ] || eval "$3"
        run_machine "$2" "$IDLECFG" verify --json --profile balanced --root "$_root" --kernel "$KVER" \
                >"$tmp/$1.json" 2>"$tmp/$1.err"
        run_machine "$2" "$IDLECFG" verify --profile balanced --root "$_root" --kernel "$KVER" >"$tmp/$1.txt" 2>&1
        :
}
# prereqs NAME: name=met|what lines of its verify JSON
prereqs() {
        python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["prerequisites"]:
    print("%s=%s|%s" % (p["name"], "met" if p["met"] else "missing", p["what"] or ""))' "$tmp/$1.json"
}
M=$TESTS_DATA/machines
variant_of() {
        mkdir -p "$tmp/machines/$1" && cp -R "$M/$2/." "$tmp/machines/$1/"
}
verify_json intel "$M/intel-laptop"
verify_json amd "$M/amd-laptop"
verify_json claw "$M/msi-claw"
verify_json desk "$M/desktop-sata"
# amd-laptop without pciehp (a kernel built without it) and with its touchpad unbound
variant_of amd-nohp amd-laptop
grep -v pciehp "$M/amd-laptop/sysattrs" >"$tmp/machines/amd-nohp/sysattrs"
awk '/^P: .*i2c-ASUE120B:00$/ { p = 1 } /^$/ { p = 0 } p && /^(E: DRIVER=|L: driver=)/ { next } { print }' \
        "$M/amd-laptop/machine.umockdev" >"$tmp/machines/amd-nohp/machine.umockdev"
verify_json amd-nohp "$tmp/machines/amd-nohp"
# msi-claw's root booting with mem_sleep_default=deep
verify_json claw-deep "$M/msi-claw" 'mkdir -p "$_root/etc/kernel" && echo "root=/dev/sda1 mem_sleep_default=deep quiet" >"$_root/etc/kernel/cmdline"'

intel() {
        prereqs intel >"$tmp/p"
        grep -qx 'pmc=missing|intel_pmc_core is not bound: the S0ix residency counter (pmc_core/slp_s0_residency_usec) and the low-power-mode status are gone, so a machine that misses S0ix cannot tell' "$tmp/p" &&
                grep -qx 'pciehp=met|' "$tmp/p" && grep -qx 'i2c_hid_acpi=met|' "$tmp/p" && grep -qx 'mem_sleep=met|' "$tmp/p" &&
                grep -q '^  pmc: intel_pmc_core is not bound' "$tmp/intel.txt" &&
                grep -qx 'Deep-idle prerequisites (the machine suspends to idle): 3 met, 1 missing' "$tmp/intel.txt" ||
                { cat "$tmp/p" "$tmp/intel.txt"; return 1; }
}
check "intel-laptop (s2idle, intel_pmc_core not bound): verify names the PMC driver and what it costs; pciehp, i2c_hid_acpi and mem_sleep met" intel
amd() {
        [ "$(prereqs amd)" = "$(printf 'pmc=met|\npciehp=met|\ni2c_hid_acpi=met|\nmem_sleep=met|')" ] ||
                { prereqs amd; return 1; }
        grep -qx 'Deep-idle prerequisites (the machine suspends to idle): 4 met, 0 missing' "$tmp/amd.txt"
}
check "amd-laptop (s2idle, amd_pmc bound, pciehp registered, the touchpad on i2c_hid_acpi): every prerequisite met" amd
claw() { [ "$(prereqs claw)" = "$(printf 'pmc=met|\nmem_sleep=met|')" ] || { prereqs claw; return 1; }; }
check "msi-claw (intel_pmc_core bound, no PCI bridge, no I2C HID): the PMC and mem_sleep met, the others do not apply" claw
desk() { [ -z "$(prereqs desk)" ] && ! grep -q 'Deep-idle' "$tmp/desk.txt"; }
check "desktop-sata (no /sys/power/mem_sleep recorded): no prerequisite line" desk
nohp() {
        prereqs amd-nohp >"$tmp/p"
        grep -qx 'pciehp=missing|pciehp is not registered (no /sys/bus/pci_express/drivers/pciehp): the kernel keeps PCIe hot-plug ports (Thunderbolt, USB4) out of D3, and their hot-plug events go unserviced' "$tmp/p" || { cat "$tmp/p"; return 1; }
}
check "a kernel without pciehp: verify says it and what it costs" nohp
unbound() {
        grep -qx 'i2c_hid_acpi=missing|i2c_hid_acpi is not bound to i2c-ASUE120B:00 (HID over I2C): the device is neither used nor told to sleep (HID SET_POWER) at suspend' "$tmp/p" || { cat "$tmp/p"; return 1; }
}
check "a HID-over-I2C touchpad without i2c_hid_acpi: verify names the device" unbound
deep() {
        prereqs claw-deep | grep -qx 'mem_sleep=missing|the kernel command line has mem_sleep_default=deep, but this firmware offers no S3 (/sys/power/mem_sleep: \[s2idle\]): suspend stays s2idle, so the prerequisites above decide its power; drop the word' ||
                { prereqs claw-deep; return 1; }
}
check "mem_sleep_default=deep on the boot command line of an s2idle-only machine: verify says so" deep

# the suspend family: deep is not planned where the firmware offers no S3
mkdir -p "$tmp/profiles"
printf '[profile]\ninherit = balanced\n[suspend]\nmem_sleep = deep\n' >"$tmp/deep.profile"
plan_deep() {
        _root=$tmp/claw-deep-root
        mkdir -p "$_root/etc/idlecfg/profiles" && cp "$tmp/deep.profile" "$_root/etc/idlecfg/profiles/"
        run_machine "$1" "$IDLECFG" plan --json --profile deep --root "$_root" --kernel "$KVER" >"$tmp/plan-deep.json" 2>&1
        python3 -c '
import json, sys
for s in json.load(open(sys.argv[1]))["settings"]:
    if s["knob"] == "suspend.mem_sleep":
        print("%s|%s" % (s["value"] or "", s["reason"]))' "$tmp/plan-deep.json"
}
no_deep() {
        _got=$(plan_deep "$M/msi-claw")
        [ "$_got" = "|skipped: profile deep [suspend] mem_sleep = deep (/etc/idlecfg/profiles/deep.profile:4) asks for deep, but this firmware offers no S3 (/sys/power/mem_sleep: [s2idle]): the machine suspends to idle" ] ||
                { echo "$_got"; return 1; }
}
check "[suspend] mem_sleep = deep on an s2idle-only machine: a skip saying the firmware has no S3, no command-line word" no_deep
deep_elsewhere() {
        _got=$(plan_deep "$M/desktop-sata")
        [ "$_got" = "deep|profile deep [suspend] mem_sleep = deep (/etc/idlecfg/profiles/deep.profile:4)" ] || { echo "$_got"; return 1; }
}
check "where mem_sleep is unknown (desktop-sata) deep is planned as before" deep_elsewhere

done_testing
