#!/bin/sh
# tests/bench/gen-machine.sh N: print a umockdev recording of a synthetic
# machine with about N devices (PCI bridges with endpoints, xHCI controllers
# with USB devices and their interfaces, AHCI hosts with disks), for benchmarks.
set -eu
n=${1:-2000}
awk -v n="$n" 'BEGIN {
        print "P: /devices/virtual/dmi/id\nE: SUBSYSTEM=dmi\nA: sys_vendor=Bench\nA: product_name=Synthetic\nA: chassis_type=10\n"
        count = 1
        for (b = 0; count < n; b++) {
                bridge = sprintf("/devices/pci0000:00/0000:00:%02x.0", b % 32)
                if (b >= 32) bridge = sprintf("/devices/pci%04x:00/%04x:00:%02x.0", int(b / 32), int(b / 32), b % 32)
                printf "P: %s\nE: SUBSYSTEM=pci\nE: DRIVER=xhci_hcd\nE: MODALIAS=pci:v00008086d0000A0EDsv000017AAsd000022D5bc0Csc03i30\n", bridge
                printf "A: vendor=0x8086\nA: device=0xa0ed\nA: subsystem_vendor=0x17aa\nA: subsystem_device=0x22d5\nA: class=0x0c0330\n"
                printf "A: power/control=auto\nA: power/runtime_status=active\nA: d3cold_allowed=1\nA: link/l1_aspm=1\nA: link/clkpm=1\n\n"
                count++
                bus = b + 1
                for (u = 1; u <= 12 && count < n; u++) {
                        dev = sprintf("%s/usb%d/%d-%d", bridge, bus, bus, u)
                        printf "P: %s\nE: SUBSYSTEM=usb\nE: DEVTYPE=usb_device\nE: DRIVER=usb\n", dev
                        printf "A: idVendor=%04x\nA: idProduct=%04x\nA: bcdDevice=0100\nA: bDeviceClass=00\nA: speed=480\nA: removable=removable\n", 0x1000 + u, 0x2000 + b
                        printf "A: product=Device %d-%d\nA: power/control=on\nA: power/autosuspend_delay_ms=2000\nA: power/persist=1\nA: power/wakeup=disabled\nA: power/runtime_status=active\n\n", bus, u
                        printf "P: %s/%d-%d:1.0\nE: SUBSYSTEM=usb\nE: DEVTYPE=usb_interface\nE: DRIVER=usbhid\n", dev, bus, u
                        printf "E: MODALIAS=usb:v%04Xp%04Xd0100dc00dsc00dp00ic03isc01ip01in00\nA: bInterfaceNumber=00\nA: bInterfaceClass=03\nA: bInterfaceSubClass=01\nA: bInterfaceProtocol=01\n\n", 0x1000 + u, 0x2000 + b
                        count += 2
                }
        }
}'
