# tests/vm/power-source.sh: sourced by check-vm.sh. The power-source switch
# (#23) in the emulated machines needs an ACPI AC adapter (ACPI0003) or a
# battery (PNP0C0A) whose state the host can change while the guest runs.
# QEMU has neither: `qemu-system-x86_64 -device help` of QEMU 7.2 (Debian
# bookworm, the QEMU this harness was written against) lists no such device,
# and upstream QEMU has none up to its current release: Leonid Bloch's series
# adding "-device battery", "-device acad" and a lid button with QMP commands
# to set their state (qemu-devel, v3 of August 2025, v4 of May 2026 "Since:
# 11.1") is not merged. So the plug event is tested under umockdev with real
# uevents and the real rule under udevadm test (tests/power-source.sh), and
# a q35/pc guest, which has no power supply at all (counted as AC), only
# gets the AC values from the boot unit.

# vm_power_source_note: a TAP comment naming this QEMU and what it lacks (no
# test point: the plan of check-vm does not count one)
vm_power_source_note() {
        _qv=$(qemu-system-x86_64 --version 2>/dev/null | sed -n '1s/^QEMU emulator version //p')
        _qd=$(qemu-system-x86_64 -device help 2>/dev/null | grep -E -o 'name "(battery|acad|ac-adapter)"' | tr '\n' ' ')
        if [ -n "$_qd" ]; then
                diag "power-source: QEMU ${_qv:-?} offers $_qd- a plug-event flow in the guest is not written yet (tests/vm/power-source.sh)"
        else
                diag "power-source: QEMU ${_qv:-?} offers no ACPI AC adapter or battery device (-device help lists neither battery nor acad): no plug event in the emulated machines; tests/power-source.sh sends it under umockdev"
        fi
}
