/* virt.h: is the target machine a virtual one? */
#pragma once

#include <stdbool.h>

struct kvlist;

/* From the facts detect put in PLATFORM: the DMI strings of a hypervisor
 * (sys_vendor, product_name, board_vendor, bios_vendor, as systemd-detect-virt's
 * dmi_vendor_table matches them) or the CPUID hypervisor bit (x86 feature
 * 0x9F of the CPU modalias, "cpu_hypervisor"), set "virtualization" (a name
 * such as "kvm", "qemu", "vmware", or "vm" for the CPUID bit alone) and
 * "virtualization_source" (what said so). Nothing on bare metal. */
void platform_add_virt(struct kvlist *platform);

/* did platform_add_virt() find a hypervisor? */
bool platform_is_vm(const struct kvlist *platform);

/* Does runtime PM of the PCI function with VENDOR (4 hex digits) and CLASS
 * (6 hex digits) save nothing on a virtual machine? virtio functions (vendor
 * 1af4) and host bridges (class 0600xx) are the hypervisor's, with no power
 * of their own; emulated real hardware (AHCI, HDA, xHCI) is not. */
bool virt_pci_saves_nothing(const char *vendor, const char *class);
