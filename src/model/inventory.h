/* inventory.h: what detect (detect.h) found, as plain data for the planner and the printers */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "root/modules.h"
#include "base/util.h"

struct modctx;

struct device {
        const char *class;      /* "pci", "usb", "usb-interface", "sata", "disk", ... (static) */
        char *name;             /* sysname: 0000:00:14.0, 1-3, host0, card0 */
        char *devpath;          /* /devices/...: the same under a recording and live */
        char *anchor;           /* devpath its children are found below (not printed) */
        char *driver;
        char *modalias;
        char *identity;         /* what the fingerprint hashes; NULL: not part of it */
        struct kvlist ids;      /* identity and description, in display order */
        struct kvlist knobs;    /* power attributes: relative path -> current value */
        struct module_ref *modules;     /* the modules its modalias resolves to: device_modules() */
        size_t n_modules;
        bool modules_resolved;
        struct device *children;
        size_t n_children;
        char **notes;           /* what could not be read, and why */
        size_t n_notes;
        bool pme_known;         /* PCI network controllers: the PM capability was read from config space */
        uint8_t pme_support;    /* PCI: the states it signals PME from (PMC bits 15:11, D3cold..D0) */
};

struct device_list {
        struct device *v;
        size_t n, cap;
};

struct swap_entry {
        char *spec;             /* as written in fstab, or the /proc/swaps path */
        char *device;           /* resolved device node, NULL if not found */
        char *uuid;
        char *source;           /* "fstab" or "proc" */
};

struct storage {
        char *root_spec;        /* fstab spec of /, NULL if none */
        char *root_source;      /* "fstab" or "mount": how root_device was found */
        char *root_device;      /* block device holding the root filesystem */
        char *root_fstype;
        char *root_uuid;
        char *root_disk;        /* whole disk under root_device (sda, nvme0n1) */
        char *root_disk_devpath;
        char *root_note;        /* why part of the above is missing */
        struct swap_entry *swaps;
        size_t n_swaps;
        /* whole disks (sysname) the target mounts or swaps on: fstab lines and
         * /proc/swaps -> what uses it ("/home (fstab)", "swap (fstab)") */
        struct kvlist used_disks;
};

struct power_tool {
        const char *name;
        char *path;             /* the file that shows it is installed */
        bool enabled;           /* a systemd unit of it is enabled in the root */
        /* it sets knobs idlecfg plans too (runtime PM, ASPM, SATA ALPM, USB
         * autosuspend, audio, Wi-Fi, sysctls): two tools fight over them */
        bool conflicts;
        const char *touches;    /* N_(): the knobs it sets, for people */
};

/* A Thunderbolt or USB4 router (/sys/bus/thunderbolt/devices, DEVTYPE
 * thunderbolt_device), read by pipeline/usb4.c */
struct usb4_router {
        char *name;             /* "D-ROUTE": 0-0 the host router of domain 0, 0-1 the router on its port 1 */
        char *devpath;
        char *type;             /* its uevent's USB4_TYPE: host, hub (has downstream lane ports), device; NULL: none */
        char *version;          /* USB4_VERSION ("1.0"), NULL: a Thunderbolt 3 router or an older kernel */
        char *vendor_name, *device_name; /* from its DROM, NULL: empty or absent */
        /* the host router's USB4 port it hangs on, by the route's first hop
         * (devpath of HOST/usb4_portN); NULL for a host router */
        char *host_port;
};

struct usb4_topology {
        struct usb4_router *routers;    /* in sysfs order: a router before those behind it */
        size_t n_routers;
        /* the ports linked to a USB Type-C connector: a host router's usb4_portN
         * and a root hub's usbB-portP, devpath -> the connector's devpath */
        struct kvlist connectors;
};

struct rootfs;

struct inventory {
        const struct rootfs *rfs; /* the root itself (borrowed): every read of it goes through this;
                                   * rfs->path names it in messages and output */
        char *kernel;           /* target kernel release */
        char *kernel_source;    /* how it was chosen (untranslated): "--kernel", "boot-loader",
                                 * "newest-installed", "running" (target.h) */
        char *kernel_reason;    /* the same for people, and the running kernel if it is another */
        /* for a release that hides its sublevel (6.1.0-18-amd64): the upstream
         * version (6.1.76) where the root says it, NULL if unknown; and where it
         * was read, or what was looked at (NULL: the release is not of that form) */
        char *kernel_version;
        char *kernel_version_source;
        char *moddir;           /* DIR/lib/modules/VERSION if it exists */
        char *moddir_note;      /* plain words when there is none */
        struct modctx *mc;      /* the target kernel's module indexes, loaded once per run; NULL: none */
        struct kvlist platform; /* dmi and cpu */
        struct kvlist modparams; /* module.parameter -> value */
        struct power_tool *tools;
        size_t n_tools;
        struct storage storage;
        struct device_list classes[16];
        struct usb4_topology usb4;      /* the USB4 routers and the Type-C connector links */
        char fingerprint[17];
        /* the first system battery of /sys/class/power_supply (ps_system_battery()),
         * NULL: none, the machine has one power source */
        char *system_battery;
        char **notes;
        size_t n_notes;
};

/* class index into inventory.classes, in output order */
enum {
        CL_PCI,
        CL_USB,
        CL_SATA,
        CL_NVME,
        CL_SOUND,
        CL_DRM,
        CL_I2C,
        CL_NET,
        CL_SERIO,
        _CL_MAX,
};
extern const char *const class_names[_CL_MAX];
extern const char *const class_titles[_CL_MAX];

void inventory_free(struct inventory *inv);
/* The modules device D's modalias resolves to in the target kernel, resolved
 * at the first call (libkmod is loaded only when some run asks) */
const struct module_ref *device_modules(const struct inventory *inv, const struct device *d, size_t *ret_n);
/* Resolve every device's modules now (detect prints them): 0, or the error of
 * modctx_error() (-ELIBACC: libkmod.so.2 missing) in RET_ERROR */
int inventory_resolve_modules(struct inventory *inv, struct xerror *ret_error);
void inventory_fingerprint(struct inventory *inv);

struct device *device_list_add(struct device_list *l);
struct device *device_add_child(struct device *parent);
void device_add_note(struct device *d, const char *fmt, ...) _printf_(2, 3);
void inventory_add_note(struct inventory *inv, const char *fmt, ...) _printf_(2, 3);
void device_free(struct device *d);
