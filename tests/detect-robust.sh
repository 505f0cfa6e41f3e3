#!/bin/sh
# tests/detect-robust.sh: messy sysfs: old kernels, unreadable attributes,
# values without newline, odd bytes, devices gone during the scan
. "$top_srcdir/tests/lib.sh"
need umockdev-run python3 script
plan 14

cat > "$tmp/m.umockdev" <<'REC'
P: /devices/pci0000:00/0000:00:1d.7
E: SUBSYSTEM=pci
E: DRIVER=ehci_hcd
A: vendor=0x8086
A: device=0x27cc
A: class=0x0c0320
A: power/wakeup=disabled\n

P: /devices/pci0000:00/0000:00:1d.7/usb5
E: SUBSYSTEM=usb
E: DEVTYPE=usb_device
E: DRIVER=usb
A: idVendor=1d6b
A: idProduct=0002
A: bcdDevice=0206
A: power/level=auto\n
A: power/autosuspend=2\n

P: /devices/pci0000:00/0000:00:1d.7/usb5/5-1
E: SUBSYSTEM=usb
E: DEVTYPE=usb_device
E: DRIVER=usb
A: idVendor=0781
A: idProduct=5567
A: bcdDevice=0100
H: product=4372757A6572FFFE20426C61646501
A: manufacturer=
A: power/level=on

P: /devices/pci0000:00/0000:00:1c.0
E: SUBSYSTEM=pci
E: DRIVER=pcieport
A: vendor=0x8086
A: device=0x27d0
A: class=0x060400
A: power/control=on
A: power/runtime_status=active

P: /devices/pci0000:00/0000:00:1f.0
E: SUBSYSTEM=pci
A: vendor=0x8086
A: device=0x27b9
A: class=0x060100
A: power/control=auto
REC

# mutate the testbed before detect runs: an attribute that cannot be read (a
# directory where a file should be), and a device whose directory vanished
# after the bus listed it (a dangling link in /sys/bus/pci/devices)
cat > "$tmp/mutate.sh" <<'SH'
set -e
dev=$UMOCKDEV_DIR/sys/devices/pci0000:00/0000:00:1c.0
rm -f "$dev/power/control"
mkdir "$dev/power/control"
ln -s ../../../devices/pci0000:00/0000:00:09.0 "$UMOCKDEV_DIR/sys/bus/pci/devices/0000:00:09.0"
rm -rf "$UMOCKDEV_DIR/sys/devices/pci0000:00/0000:00:1f.0"
exec "$@"
SH

run_machine "$tmp/m.umockdev" sh "$tmp/mutate.sh" "$IDLECFG" detect --json --root "$tmp" >"$tmp/out.json" 2>"$tmp/err"; rc=$?
check "detect exits 0 on a messy tree" test "$rc" -eq 0
check "JSON is valid (odd bytes become U+FFFD)" python3 -m json.tool "$tmp/out.json"
check "old kernel: power/level and power/autosuspend reported, no power/control" sh -c "
        sed -n '/\"name\": \"usb5\"/,/\"children\"/p' '$tmp/out.json' > '$tmp/usb5'
        grep -q '\"power/level\": \"auto\"' '$tmp/usb5' && grep -q '\"power/autosuspend\": \"2\"' '$tmp/usb5' &&
        ! grep -q 'power/control' '$tmp/usb5'"
check "value without trailing newline read the same" sh -c "grep -q '\"power/level\": \"on\"' '$tmp/out.json'"
check "unreadable attribute is null with a note naming it" sh -c "
        sed -n '/\"name\": \"0000:00:1c.0\"/,/\"children\"/p' '$tmp/out.json' > '$tmp/bridge'
        grep -q '\"power/control\": null' '$tmp/bridge' && grep -q 'power/control: Is a directory' '$tmp/bridge' &&
        grep -q '\"power/runtime_status\": \"active\"' '$tmp/bridge'"
check "vanished device skipped, the others reported" sh -c "
        ! grep -q '0000:00:1f.0' '$tmp/out.json' && ! grep -q '0000:00:09.0' '$tmp/out.json' &&
        grep -q '\"name\": \"0000:00:1d.7\"' '$tmp/out.json' && grep -q '\"name\": \"5-1\"' '$tmp/out.json'"
check "empty attribute is an empty string" sh -c "grep -q '\"manufacturer\": \"\"' '$tmp/out.json'"
check "odd bytes replaced, control character escaped" sh -c "grep -q 'Cruzer\\\\ufffd\\\\ufffd Blade\\\\u0001' '$tmp/out.json'"

on_tty "$top_srcdir/tests/run-machine" "$tmp/m.umockdev" sh "$tmp/mutate.sh" "$IDLECFG" detect --root "$tmp" >"$tmp/out.txt"; rc=$?
check "text output on a terminal: exit 0, fits 80 columns" sh -c "test $rc -eq 0 && awk 'length > 80 { print; bad = 1 } END { exit bad }' '$tmp/out.txt'"

# an empty machine: no devices at all
printf 'P: /devices/virtual/misc/nothing\nE: SUBSYSTEM=misc\n' > "$tmp/empty.umockdev"
run_machine "$tmp/empty.umockdev" "$IDLECFG" detect --json --root "$tmp" >"$tmp/empty.json" 2>&1; rc=$?
check "machine with no known devices: exit 0, valid JSON" sh -c "test $rc -eq 0 && python3 -m json.tool '$tmp/empty.json' >/dev/null"

# a subsystem directory that exists but cannot be listed (a file where the
# directory should be): detect notes it and reports the rest
run_machine "$TESTS_DATA/machines/intel-laptop" sh -c '
        rm -rf "$UMOCKDEV_DIR/sys/class/net" && echo x >"$UMOCKDEV_DIR/sys/class/net" && exec "$@"' sh \
        "$IDLECFG" detect --json >"$tmp/nolist.json" 2>&1; rc=$?
run_machine "$TESTS_DATA/machines/intel-laptop" "$IDLECFG" detect --json >"$tmp/full.json" 2>&1
check "a subsystem directory that cannot be listed: a note naming the error, no network interface, every other device" python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert "cannot enumerate devices: Not a directory" in b["notes"], b["notes"]
assert a["devices"].get("net") and not b["devices"].get("net")
for c in a["devices"]:
        if c != "net":
                assert a["devices"][c] == b["devices"][c], c
' "$tmp/full.json" "$tmp/nolist.json"

# libblkid is opened at the first probe of a block device (src/pipeline/storage.c): under
# umockdev nothing is one, so detect never loads it
run_machine "$TESTS_DATA/machines/intel-laptop" env LD_DEBUG=files "$IDLECFG" detect --json >/dev/null 2>"$tmp/ld.err"; rc=$?
check "detect of a recording never loads libblkid (nothing to probe)" sh -c "
        test $rc -eq 0 && grep -q 'file=libudev' '$tmp/ld.err' && ! grep -q 'file=libblkid' '$tmp/ld.err'"

# the running system without libblkid.so.1 (an empty file bound over it in a
# private mount namespace, as root): detect still works; where this machine's
# detect probes a filesystem with it, the inventory says it could not
lib=$(PATH=$PATH:/sbin:/usr/sbin ldconfig -p 2>/dev/null | sed -n 's/^[[:space:]]*libblkid\.so\.1 (libc6,x86-64) => //p' | head -n 1)
: >"$tmp/empty.so"
if [ -n "$lib" ] && root_ns &&
   unshare -m sh -c "mount --bind '$tmp/empty.so' '$(readlink -f "$lib")'" 2>/dev/null; then
        LD_DEBUG=files "$IDLECFG" detect >/dev/null 2>"$tmp/host-ld.err"
        probes=0
        grep -q 'file=libblkid' "$tmp/host-ld.err" && probes=1
        unshare -m sh -c 'mount --bind "$1" "$2" && exec "$3" detect' sh "$tmp/empty.so" "$(readlink -f "$lib")" \
                "$IDLECFG" >"$tmp/noblkid.out" 2>&1; rc=$?
        check "the running system without libblkid.so.1: detect exits 0$([ $probes = 1 ] && echo ' and notes that it could not probe')" sh -c "
                test $rc -eq 0 && if [ $probes = 1 ]; then tr '\n' ' ' <'$tmp/noblkid.out' | tr -s ' ' |
                grep -q 'libblkid.so.1 cannot be opened'; else ! grep -q libblkid '$tmp/noblkid.out'; fi"
else
        skip "libblkid.so.1 hidden by a bind mount" "needs root, unshare -m and ldconfig -p"
fi

# without libudev.so.1 (opened when detect first looks at the devices:
# src/pipeline/udev-dl.c), hidden the same way: detect fails naming the file
lib=$(PATH=$PATH:/sbin:/usr/sbin ldconfig -p 2>/dev/null | sed -n 's/^[[:space:]]*libudev\.so\.1 (libc6,x86-64) => //p' | head -n 1)
if [ -n "$lib" ] && root_ns &&
   unshare -m sh -c "mount --bind '$tmp/empty.so' '$(readlink -f "$lib")'" 2>/dev/null; then
        unshare -m sh -c 'mount --bind "$1" "$2" && exec "$3" detect' sh "$tmp/empty.so" "$(readlink -f "$lib")" \
                "$IDLECFG" >"$tmp/noudev.out" 2>&1; rc=$?
        check "the running system without libudev.so.1: detect exits 3 (failure) and names the library" sh -c "
                test $rc -eq 3 && grep -q '^idlecfg: detect failed: .*libudev\.so\.1' '$tmp/noudev.out'"
else
        skip "libudev.so.1 hidden by a bind mount" "needs root, unshare -m and ldconfig -p"
fi

done_testing
