/* detect.h: build the inventory of a root's machine from /sys (libudev) and
 * the root's files */
#pragma once

#include <stddef.h>

#include "model/inventory.h"
#include "root/rootfs.h"

struct detect_options {
        const struct rootfs *rfs;       /* the root, opened by the caller */
        const char *kernel;
};

int inventory_detect(const struct detect_options *o, struct inventory **ret);
/* what an error R of inventory_detect() means: libudev's dlerror() where it
 * could not be opened (-ELIBACC), else strerror() */
const char *detect_error(int r);
/* the files of the root detect reads (fstab, other power tools), for refresh */
struct knob_input;
const struct knob_input *detect_inputs(size_t *ret_n);
/* the subsystems detect lists (src/root/sysfs.c), each once */
const char *const *detect_subsystems(size_t *ret_n);

/* Refresh's fingerprint (pipeline/fingerprint.c) reads /sys without libudev
 * and asks detect's own route table which devices it lists, whose uevent it
 * reads and which have an identity: what a device of a route is to it. */
enum detect_fp {
        FP_NONE,                /* no identity (USB interfaces, DRM, network) */
        FP_PCI,                 /* a PCI function */
        FP_USB,                 /* a USB device */
        FP_SCSI_HOST,           /* a SCSI host: the disks below it have one */
        FP_SCSI_DEVICE,         /* a disk, below a SCSI host */
        FP_NVME,                /* an NVMe controller (nvmeN) */
        FP_SOUND,               /* a sound card (cardN): the codecs below it have one */
        FP_HDAUDIO,             /* a codec, below a sound card */
        FP_I2C,                 /* an adapter (i2c-N), or a client below one, which has one */
};
/* the route of a device of SUBSYSTEM and DEVTYPE (may be NULL), as detect takes it */
enum detect_fp detect_fp_of(const char *subsystem, const char *devtype);
/* the subsystems of the routes with an identity (not FP_NONE), each once, in the table's order */
const char *const *detect_fp_subsystems(size_t *ret_n);
/* whether the fingerprint lists the entry NAME of SUBSYSTEM (a filter of
 * sysfs_list()): a route with an identity takes it by its kernel name */
bool detect_fp_listed(const char *subsystem, const char *name);
/* whether the fingerprint reads the uevent of SUBSYSTEM's entries */
bool detect_fp_uevent(const char *subsystem);
