/* sysfs.h: the devices of some subsystems, listed straight from /sys */
#pragma once

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
