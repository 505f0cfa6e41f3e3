/* identity.h: a device's identity, the line the fingerprint hashes for it.
 * detect (src/pipeline/detect.c, through libudev) and refresh's cheap look
 * (src/pipeline/fingerprint.c, straight from /sys) both spell it here, from the values of
 * the same attributes, so that the two fingerprints are one. */
#pragma once

#include <stdbool.h>

struct kvlist;

/* the devices that have an identity */
enum identity_kind {
        ID_PCI,         /* vendor:device subsystem_vendor:subsystem_device class */
        ID_USB,         /* a USB device (not an interface): idVendor:idProduct bcdDevice */
        ID_DISK,        /* a SCSI device below a host: vendor model rev */
        ID_NVME,        /* an NVMe controller: model firmware_rev */
        ID_HDAUDIO,     /* an HDA codec below a sound card's controller */
        ID_I2C,         /* an I2C client: its modalias, else its name */
        _ID_MAX,
};

/* the sysfs attributes whose values make an identity, in order (NULL ends
 * a shorter list), and whether they are hex ids */
struct identity_attrs {
        const char *attr[5];
        bool hex;
};
extern const struct identity_attrs identity_attrs[_ID_MAX];

/* the platform's part of the fingerprint, in order: the first
 * IDENTITY_N_DMI keys are attributes of /sys/class/dmi/id, the rest the
 * CPU's (platform_add_cpu()); NULL-terminated */
#define IDENTITY_N_DMI 6
extern const char *const identity_platform_keys[];

/* an attribute value as an identity holds it, changed in place: a hex id
 * without its 0x, in lower case; other text without the white space around
 * it. NULL stays NULL. */
char *identity_value(char *v, bool hex);

/* the identity of a device of KIND from the values of its attributes, in
 * the order of identity_attrs[KIND] (a NULL value: the attribute is absent;
 * ID_I2C takes one value, the modalias or else the name) */
char *device_identity(enum identity_kind kind, const char *const *v);

/* the CPU's part of the platform identity from cpu0's modalias: cpu_arch,
 * cpu_vendor, cpu_family, cpu_model (and cpu_hypervisor, not part of it) */
void platform_add_cpu(struct kvlist *platform, const char *modalias);
