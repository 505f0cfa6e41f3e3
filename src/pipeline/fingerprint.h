/* fingerprint.h: refresh's cheap look at the hardware, from /sys directly */
#pragma once

/* The fingerprint detect computes (inventory_fingerprint()), from /sys
 * directly: the DMI and CPU identity and the identities of the devices it
 * fingerprints (PCI, USB devices, disks behind SCSI hosts, NVMe controllers,
 * HDA codecs of sound cards, I2C clients), with no libudev and no other
 * attribute read. RET_CHASSIS_TYPE (may be NULL): DMI chassis_type or NULL. */
int fingerprint_read(char ret[17], char **ret_chassis_type);

/* The key of the hardware the first-boot stamp keeps (firstboot.h): the
 * DMI product UUID ("uuid:..."), else the fingerprint of the DMI identity
 * and the PCI devices alone ("dmi-pci:..."), from /sys directly: a disk
 * cloned into another machine, or moved into a new board, is another key. */
#define HW_KEY_UUID "uuid:"
#define HW_KEY_DMI_PCI "dmi-pci:"
char *fingerprint_hardware_key(void);
