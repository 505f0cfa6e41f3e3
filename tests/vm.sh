#!/bin/sh
# tests/vm.sh: on a virtual machine (the CPUID hypervisor flag, or a
# hypervisor's DMI strings) idlecfg plans no runtime PM for what draws no
# power of its own (virtio functions, the hypervisor's host bridge), says why,
# and verify stays clean; emulated real hardware keeps its settings
. "$top_srcdir/tests/lib.sh"
need umockdev-run depmod "${CC:-cc}" python3
plan 4

B=$TESTS_DATA/machines/buildhost
root=$tmp/root
mkroot_installed "$B" "$root" >/dev/null 2>&1 || { echo "Bail out! no root"; exit 1; }
mkdir -p "$root/run" "$root/var/lib"
# pci OUT: "device skipped reason" of each pci.runtime_pm setting of a plan JSON
pci() {
        python3 -c 'import json,sys
for s in json.load(open(sys.argv[1]))["settings"]:
    if s["knob"] == "pci.runtime_pm": print(s["device"], s["skipped"], s["reason"])' "$1"
}
run_machine "$B" "$IDLECFG" detect --root "$root" --kernel "$KVER" >"$tmp/d.txt" 2>&1
run_machine "$B" "$IDLECFG" plan --json --root "$root" --kernel "$KVER" --profile powersave >"$tmp/p.json" 2>/dev/null
pci "$tmp/p.json" >"$tmp/p"
check "buildhost (a VM by its CPUID flag): detect says so; no virtio function nor host bridge gets runtime PM, each skipped saying why" sh -c "
        grep -q '^  virtual  *vm (CPUID hypervisor flag)' '$tmp/d.txt' && test \$(grep -c . '$tmp/p') -eq 6 &&
        test \$(grep -c ' True skipped: virtual machine (CPUID hypervisor flag): a virtio function draws no power' '$tmp/p') -eq 5 &&
        grep -q '^0000:00:00.0 True skipped: virtual machine .*host bridge' '$tmp/p'"
run_machine "$B" "$IDLECFG" --root "$root" --kernel "$KVER" --profile powersave install >"$tmp/i" 2>&1
run_machine "$B" "$IDLECFG" --root "$root" --kernel "$KVER" verify >"$tmp/v" 2>&1; rc=$?
check "install, then verify on the VM: exit 0, no drift" sh -c "test $rc -eq 0 && grep -q ' 0 drift, 0 missing' '$tmp/v'"

# a desktop's recording with a hypervisor's DMI vendor: QEMU emulating real hardware
D=$TESTS_DATA/machines/desktop-sata
q=$tmp/qemu
mkdir -p "$q"
cp -R "$D/." "$q/"
sed 's/^A: sys_vendor=.*/A: sys_vendor=QEMU\\n/' "$D/machine.umockdev" >"$q/machine.umockdev"
droot=$tmp/droot
mkroot_installed "$D" "$droot" >/dev/null 2>&1 || { echo "Bail out! no root"; exit 1; }
run_machine "$D" "$IDLECFG" plan --json --root "$droot" --kernel "$KVER" --profile powersave >"$tmp/bare.json" 2>/dev/null
run_machine "$q" "$IDLECFG" plan --json --root "$droot" --kernel "$KVER" --profile powersave >"$tmp/vm.json" 2>/dev/null
pci "$tmp/bare.json" >"$tmp/bare"
pci "$tmp/vm.json" >"$tmp/vm"
check "DMI sys_vendor QEMU: a VM, its host bridge skipped saying so" \
        grep -q 'True skipped: virtual machine (DMI sys_vendor "QEMU"): the hypervisor.s host bridge' "$tmp/vm"
check "... and every other function (AHCI, HDA, xHCI: emulated real hardware) planned as on bare metal" sh -c "
        grep 'virtual machine' '$tmp/vm' | cut -d' ' -f1 | sed 's/^/^/; s/\$/ /' >'$tmp/vm.skipped' &&
        grep -v 'virtual machine' '$tmp/vm' >'$tmp/vm.rest' && grep -vf '$tmp/vm.skipped' '$tmp/bare' >'$tmp/bare.rest' &&
        test \$(grep -c ' False ' '$tmp/vm.rest') -gt 3 && diff '$tmp/bare.rest' '$tmp/vm.rest'"
done_testing
