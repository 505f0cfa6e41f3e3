/* sysfs.h: the devices of some subsystems, listed straight from /sys */
#pragma once

#include <stdint.h>

#include "base/util.h"

/* "a/b/../c" -> "a/c", in place; PATH is absolute */
void path_simplify(char *path);

/* the order of libudev's enumeration (sd-device's device_compare()): by
 * path, md and dm block devices after all others (sysfs.c says why not the
 * sound card rule of newer libudev) */
int sysfs_path_compare(const char *a, const char *b);

/* the syspaths ("/sys/devices/...") of the entries of /sys/bus/S/devices and
 * /sys/class/S for each subsystem S (each named once: detect_subsystems()),
 * every device once, in libudev's order. An entry may not be a device (no
 * uevent): creating its device object tells. KEEP, if not NULL, says by a
 * subsystem and an entry's name whether the entry is wanted: the others are
 * not followed. Returns 0, or the first error of a directory that exists but
 * cannot be read, as -errno (the list then holds what could be read). */
int sysfs_list(const char *const *subsystems, size_t n_subsystems,
               bool (*keep)(const char *subsystem, const char *name), char ***ret, size_t *ret_n);
void sysfs_list_free(char **v, size_t n);

/* KEY's value in the uevent text TEXT ("KEY=value" lines); NULL: absent */
char *uevent_value(const char *text, const char *key);

/* PCI config space (include/uapi/linux/pci_regs.h): the offset of capability
 * ID in C, the N bytes read of a function's config file; 0 when the function
 * has none, -1 when its list leads past what was read (an unprivileged
 * reader gets the first 64 bytes) or N is too short for the list's head */
int pci_config_cap(const uint8_t *c, size_t n, uint8_t id);

/* the states the PCI function below DFD signals PME from, from its PM
 * capability's PMC in its config file (bits 15:11 shifted down: D0 is bit
 * 0, D3cold bit 4), which pci_pm_init() turns into pdev->pme_support; 0
 * for none or no PM capability; -1 when unknown (no config file, or the
 * capability past what a user may read) */
int pci_config_pme(int dfd);
