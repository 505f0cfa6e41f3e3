#!/bin/sh
# tests/fingerprint.sh: the fingerprint ignores values, order and bus numbers,
# and changes when a device comes or goes
. "$top_srcdir/tests/lib.sh"
need umockdev-run
plan 6

# blocks separated by blank lines; one device per block
cat > "$tmp/base" <<'REC'
P: /devices/virtual/dmi/id
E: SUBSYSTEM=dmi
A: sys_vendor=LENOVO
A: product_name=20XW0055GE
A: chassis_type=10

P: /devices/pci0000:00/0000:00:14.0
E: SUBSYSTEM=pci
E: DRIVER=xhci_hcd
A: vendor=0x8086
A: device=0xa0ed
A: subsystem_vendor=0x17aa
A: subsystem_device=0x22d5
A: class=0x0c0330
A: power/control=auto

P: /devices/pci0000:00/0000:00:1c.0
E: SUBSYSTEM=pci
A: vendor=0x8086
A: device=0xa0b8
A: class=0x060400

P: /devices/pci0000:00/0000:00:1c.0/0000:02:00.0
E: SUBSYSTEM=pci
E: DRIVER=nvme
A: vendor=0x144d
A: device=0xa808
A: subsystem_vendor=0x144d
A: subsystem_device=0xa801
A: class=0x010802
A: power/control=on

P: /devices/pci0000:00/0000:00:14.0/usb1
E: SUBSYSTEM=usb
E: DEVTYPE=usb_device
A: idVendor=1d6b
A: idProduct=0002
A: bcdDevice=0601

P: /devices/pci0000:00/0000:00:14.0/usb1/1-3
E: SUBSYSTEM=usb
E: DEVTYPE=usb_device
A: idVendor=06cb
A: idProduct=00bd
A: bcdDevice=0000
A: power/control=on
REC

fp() {
        run_machine "$1" "$IDLECFG" detect --json --root "$tmp" 2>/dev/null |
                sed -n 's/^  "fingerprint": "\([0-9a-f]*\)",$/\1/p'
}
# reverse the order of the blocks
reverse_blocks() { awk 'BEGIN { RS = ""; ORS = "\n\n" } { b[NR] = $0 } END { for (i = NR; i > 0; i--) print b[i] }' "$1"; }

base=$(fp "$tmp/base")
check "fingerprint is 16 hex digits" sh -c "echo '$base' | grep -Eq '^[0-9a-f]{16}$'"

reverse_blocks "$tmp/base" > "$tmp/reversed"
check "same fingerprint with the recording in reverse order" test "$(fp "$tmp/reversed")" = "$base"

sed -e 's/control=auto/control=X/' -e 's/control=on$/control=auto/' -e 's/control=X/control=on/' "$tmp/base" > "$tmp/values"
check "same fingerprint with other attribute values" sh -c "! cmp -s '$tmp/base' '$tmp/values' && test '$(fp "$tmp/values")' = '$base'"

sed -e 's/0000:02:00.0/0000:05:00.0/g' -e 's/0000:00:14.0/0000:00:0d.0/g' \
    -e 's/usb1/usb3/g' -e 's/1-3/3-3/g' "$tmp/base" > "$tmp/renumbered"
check "same fingerprint after bus renumbering" test "$(fp "$tmp/renumbered")" = "$base"

awk 'BEGIN { RS = ""; ORS = "\n\n" } !/1-3\n/ && !/\/1-3$/ && $0 !~ /usb1\/1-3/' "$tmp/base" > "$tmp/removed"
check "a removed USB device changes it" sh -c "grep -q 1-3 '$tmp/removed' && exit 1; test '$(fp "$tmp/removed")' != '$base'"

{ cat "$tmp/base"; printf '\nP: /devices/pci0000:00/0000:00:1f.3\nE: SUBSYSTEM=pci\nA: vendor=0x8086\nA: device=0xa0c8\nA: class=0x040300\n'; } > "$tmp/added"
check "an added PCI device changes it" test "$(fp "$tmp/added")" != "$base"
done_testing
