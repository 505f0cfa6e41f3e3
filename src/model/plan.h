/* plan.h: the settings planned for one machine, each with its reason, as plain data */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "model/inventory.h"
#include "root/bootscheme.h"

/* how a setting reaches the system */
enum mechanism {
        MECH_UDEV,      /* ATTR{attr}="value" in a generated udev rule, guarded by TEST=="attr" */
        MECH_MODPROBE,  /* "options module param=value" in modprobe.d (loadable modules only) */
        MECH_TMPFILES,  /* "w /sys/module/M/parameters/P - - - - value" in tmpfiles.d (run time) */
        MECH_CMDLINE,   /* "module.param=value" on the kernel command line (built-in modules) */
        MECH_SYSCTL,    /* "key = value" in sysctl.d; apply writes /proc/sys/KEY with '.' as '/' */
        MECH_NM,        /* a [connection-idlecfg-IFNAME] section in NetworkManager's conf.d: param is the
                           NetworkManager property ("wifi.powersave"), device_name the interface */
        MECH_LINK,      /* "[Link] Param=value" ("Section.Param": [Section]) in a drop-in of 99-default.link */
        MECH_NONE,      /* a skip: nothing is written, the reason says why */
        _MECH_MAX,
};
const char *mechanism_to_string(enum mechanism m);

struct setting {
        char *knob;             /* family.key, e.g. "pci.runtime_pm", "sata.alpm", "audio.power_save" */
        char *device;           /* devpath (/devices/...) of the device, NULL for a global setting */
        char *device_name;      /* sysname for display (0000:00:14.0, 1-3, host0), NULL if global */
        char *device_class;     /* inventory class of the device ("pci", "usb", ...), NULL if global */
        /* where the value goes: a sysfs attribute relative to the device (power/control,
         * link/l1_2_aspm, link_power_management_policy) for MECH_UDEV, or module and
         * parameter for MECH_MODPROBE, MECH_TMPFILES and MECH_CMDLINE; for MECH_SYSCTL,
         * param is the sysctl key ("vm.dirty_writeback_centisecs") and module NULL */
        char *attr;
        char *module;
        char *param;
        char *value;            /* wanted value; NULL for a skip. With value_battery: the value on AC */
        /* the value on battery where the profile gives this knob one per power
         * source and it differs (idlecfg power-source writes it); NULL: value
         * on both. The generated files hold value, the AC one. */
        char *value_battery;
        char *current;          /* value now, NULL if unknown */
        enum mechanism mech;
        /* why, for people: "hwdb /usr/lib/udev/hwdb.d/60-idlecfg-linux-sata.hwdb:96 (...)",
         * "profile balanced [usb] autosuspend = auto (FILE:LINE)", "skipped: driver pcieport: ..." */
        char *reason;
        /* udev match keys of the device for MECH_UDEV, in rule order:
         * key "SUBSYSTEM" -> SUBSYSTEM=="value", "KERNEL" -> KERNEL=="value",
         * "ATTR{x}" -> ATTR{x}=="value", "ATTRS{x}" -> ATTRS{x}=="value", "DRIVER" -> DRIVER=="value" */
        struct kvlist match;
};

/* one [exclude DEVICE] section of idlecfg.conf, as the plan applied it */
struct plan_exclusion {
        char *device;           /* as written */
        char *where;            /* FILE:LINE of its header */
        char *reason;
        char *knobs;            /* the knobs it names, as written; NULL: every knob */
        char **matched;         /* the names of the devices it matched */
        size_t n_matched;
        const char *code;       /* its warning's code ("exclude-no-device"), NULL: none */
};

struct plan {
        char *profile;          /* the profile used */
        char *profile_reason;   /* why it was chosen */
        char *fingerprint;
        char *kernel;           /* target kernel release, NULL if unknown */
        char *kernel_source;    /* how it was chosen: target_kernel_choose()'s key; NULL if unknown */
        char *kernel_reason;    /* why, for people */
        /* the version _KERNEL ranges compare (the release, or its upstream
         * version), NULL if unknown; and where it comes from, or why unknown */
        char *kernel_version;
        char *kernel_version_source;
        /* the kernel command line the target boots with, as the planner read
         * it (NULL: unknown or empty): verify's platform prerequisites */
        char *boot_cmdline;
        struct setting *v;
        size_t n;
        char **warnings;        /* two tools fighting, hwdb warnings, ... */
        size_t n_warnings;
        /* the code of a warning (key: "exclude-no-device", ...) -> its text;
         * a warning not listed has none ("plan") */
        struct kvlist warning_codes;
        /* idlecfg.conf's [exclude DEVICE] sections (exclude.h), in file order */
        struct plan_exclusion *exclusions;
        size_t n_exclusions;
        /* how the target boots: where the kernel command line goes, which
         * step makes its boot artifacts again (root/bootscheme.h) */
        struct boot_info boot;
};

struct setting *plan_add(struct plan *p);
/* S becomes a skip whose reason is REASON (taken): nothing of it is written */
void setting_make_skip(struct setting *s, char *reason_take);
/* the value of S on battery (BATTERY) or on AC */
static inline const char *setting_value_on(const struct setting *s, bool battery)
{
        return battery && s->value_battery ? s->value_battery : s->value;
}
/* where a setting is, for messages: its device, its module, or "system" */
static inline const char *setting_where_name(const struct setting *s)
{
        return s->device_name ? s->device_name : s->module ? s->module : "system";
}
/* how many settings take another value on battery */
size_t plan_n_per_source(const struct plan *p);
/* The devices of P's udev settings, each once, as /sys paths (what an
 * "udevadm trigger --action=add" of them takes): their number; *RET a
 * NULL-terminated list to strv_free(), NULL when none */
size_t plan_udev_devices(const struct plan *p, char ***ret);
void plan_add_warning(struct plan *p, const char *fmt, ...) _printf_(2, 3);
/* the same, unless the plan already has this warning */
void plan_warn_once(struct plan *p, const char *fmt, ...) _printf_(2, 3);
/* the code of warning W (warning_codes), "plan" when it has none */
const char *plan_warning_code(const struct plan *p, const char *w);
void plan_free(struct plan *p);
/* the plan for people (80 columns) and as JSON (schema in idlecfg(8)) */
