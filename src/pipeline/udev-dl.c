/* udev-dl.c: libudev's functions, found at detect's first need */
#include "config.h"

#include "base/util.h"
#include "pipeline/udev-dl.h"

typeof(udev_new) *sym_udev_new;
typeof(udev_unref) *sym_udev_unref;
typeof(udev_device_new_from_syspath) *sym_udev_device_new_from_syspath;
typeof(udev_device_new_from_subsystem_sysname) *sym_udev_device_new_from_subsystem_sysname;
typeof(udev_device_new_from_devnum) *sym_udev_device_new_from_devnum;
typeof(udev_device_ref) *sym_udev_device_ref;
typeof(udev_device_unref) *sym_udev_device_unref;
typeof(udev_device_get_devnode) *sym_udev_device_get_devnode;
typeof(udev_device_get_devpath) *sym_udev_device_get_devpath;
typeof(udev_device_get_devtype) *sym_udev_device_get_devtype;
typeof(udev_device_get_driver) *sym_udev_device_get_driver;
typeof(udev_device_get_parent) *sym_udev_device_get_parent;
typeof(udev_device_get_parent_with_subsystem_devtype) *sym_udev_device_get_parent_with_subsystem_devtype;
typeof(udev_device_get_property_value) *sym_udev_device_get_property_value;
typeof(udev_device_get_subsystem) *sym_udev_device_get_subsystem;
typeof(udev_device_get_sysattr_value) *sym_udev_device_get_sysattr_value;
typeof(udev_device_get_sysname) *sym_udev_device_get_sysname;
typeof(udev_device_get_syspath) *sym_udev_device_get_syspath;
typeof(udev_enumerate_new) *sym_udev_enumerate_new;
typeof(udev_enumerate_unref) *sym_udev_enumerate_unref;
typeof(udev_enumerate_add_match_property) *sym_udev_enumerate_add_match_property;
typeof(udev_enumerate_add_match_subsystem) *sym_udev_enumerate_add_match_subsystem;
typeof(udev_enumerate_scan_devices) *sym_udev_enumerate_scan_devices;
typeof(udev_enumerate_get_list_entry) *sym_udev_enumerate_get_list_entry;
typeof(udev_list_entry_get_name) *sym_udev_list_entry_get_name;
typeof(udev_list_entry_get_next) *sym_udev_list_entry_get_next;

static void *libudev_dl;
static char *libudev_error;             /* why it could not be opened, once */

int dlopen_libudev(const char **ret_error)
{
        static const struct dlsym_arg syms[] = {
                DLSYM_ARG(udev_new), DLSYM_ARG(udev_unref), DLSYM_ARG(udev_device_new_from_syspath),
                DLSYM_ARG(udev_device_new_from_subsystem_sysname), DLSYM_ARG(udev_device_new_from_devnum),
                DLSYM_ARG(udev_device_ref), DLSYM_ARG(udev_device_unref), DLSYM_ARG(udev_device_get_devnode),
                DLSYM_ARG(udev_device_get_devpath), DLSYM_ARG(udev_device_get_devtype),
                DLSYM_ARG(udev_device_get_driver), DLSYM_ARG(udev_device_get_parent),
                DLSYM_ARG(udev_device_get_parent_with_subsystem_devtype), DLSYM_ARG(udev_device_get_property_value),
                DLSYM_ARG(udev_device_get_subsystem), DLSYM_ARG(udev_device_get_sysattr_value),
                DLSYM_ARG(udev_device_get_sysname), DLSYM_ARG(udev_device_get_syspath), DLSYM_ARG(udev_enumerate_new),
                DLSYM_ARG(udev_enumerate_unref), DLSYM_ARG(udev_enumerate_add_match_property),
                DLSYM_ARG(udev_enumerate_add_match_subsystem), DLSYM_ARG(udev_enumerate_scan_devices),
                DLSYM_ARG(udev_enumerate_get_list_entry), DLSYM_ARG(udev_list_entry_get_name),
                DLSYM_ARG(udev_list_entry_get_next)
        };

        if (libudev_dl)
                return 0;
        if (!libudev_error && dlopen_syms("libudev.so.1", syms, ELEMENTSOF(syms), &libudev_dl, &libudev_error) == 0)
                return 0;
        *ret_error = libudev_error;
        return -ELIBACC;
}
