/* udev-dl.h: libudev, opened when detect first needs it (dlopen), so that
 * the runs that never look at a device through it (refresh's cheap look on
 * every boot, hook and trigger: tests/bench/ratio-bench.sh) do not load it.
 * The packages depend on it by name (src/debian/control, src/rpm). */
#pragma once

#include <libudev.h>

extern typeof(udev_new) *sym_udev_new;
extern typeof(udev_unref) *sym_udev_unref;
extern typeof(udev_device_new_from_syspath) *sym_udev_device_new_from_syspath;
extern typeof(udev_device_new_from_subsystem_sysname) *sym_udev_device_new_from_subsystem_sysname;
extern typeof(udev_device_new_from_devnum) *sym_udev_device_new_from_devnum;
extern typeof(udev_device_ref) *sym_udev_device_ref;
extern typeof(udev_device_unref) *sym_udev_device_unref;
extern typeof(udev_device_get_devnode) *sym_udev_device_get_devnode;
extern typeof(udev_device_get_devpath) *sym_udev_device_get_devpath;
extern typeof(udev_device_get_devtype) *sym_udev_device_get_devtype;
extern typeof(udev_device_get_driver) *sym_udev_device_get_driver;
extern typeof(udev_device_get_parent) *sym_udev_device_get_parent;
extern typeof(udev_device_get_parent_with_subsystem_devtype) *sym_udev_device_get_parent_with_subsystem_devtype;
extern typeof(udev_device_get_property_value) *sym_udev_device_get_property_value;
extern typeof(udev_device_get_subsystem) *sym_udev_device_get_subsystem;
extern typeof(udev_device_get_sysattr_value) *sym_udev_device_get_sysattr_value;
extern typeof(udev_device_get_sysname) *sym_udev_device_get_sysname;
extern typeof(udev_device_get_syspath) *sym_udev_device_get_syspath;
extern typeof(udev_enumerate_new) *sym_udev_enumerate_new;
extern typeof(udev_enumerate_unref) *sym_udev_enumerate_unref;
extern typeof(udev_enumerate_add_match_property) *sym_udev_enumerate_add_match_property;
extern typeof(udev_enumerate_add_match_subsystem) *sym_udev_enumerate_add_match_subsystem;
extern typeof(udev_enumerate_scan_devices) *sym_udev_enumerate_scan_devices;
extern typeof(udev_enumerate_get_list_entry) *sym_udev_enumerate_get_list_entry;
extern typeof(udev_list_entry_get_name) *sym_udev_list_entry_get_name;
extern typeof(udev_list_entry_get_next) *sym_udev_list_entry_get_next;

/* libudev's udev_list_entry_foreach() calls udev_list_entry_get_next() by name */
#define sym_udev_list_entry_foreach(entry, first) \
        for (entry = (first); entry; entry = sym_udev_list_entry_get_next(entry))

/* 0, or -ELIBACC with *ret_error (not to be freed) saying why: dlerror()'s
 * file or missing symbol; each call after the first answers the same */
int dlopen_libudev(const char **ret_error);
