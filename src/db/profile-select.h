/* profile-select.h: which profile applies: --profile, idlecfg.conf, the chassis type */
#pragma once

#include "base/util.h"

/* what applies where no rule chooses */
#define PROFILE_DEFAULT "balanced"

struct rootfs;

/* Which profile applies: --profile, else [main] profile= in
 * ROOT/etc/idlecfg/idlecfg.conf, else the DMI chassis type (a decimal
 * string or NULL). ret_reason names the rule: "--profile",
 * "/etc/idlecfg/idlecfg.conf:3", "chassis type 10 (Notebook)". */
/* [power] source of idlecfg.conf: "ac" or "battery" when it pins a source
 * (*RET_WHERE: FILE:LINE), NULL for auto or no file; -errno with a message
 * naming file and line for a bad one */
int conf_power_source(const struct rootfs *rfs, char **ret_source, char **ret_where, struct xerror *ret_error);

/* one [exclude DEVICE] section of idlecfg.conf: a device idlecfg leaves alone */
struct conf_exclusion {
        char *device;           /* as written: a sysfs path, PCI address, USB vendor:product or device name */
        char *reason;           /* the administrator's */
        char **knobs;           /* NULL-terminated names as written ("usb.autosuspend"); NULL: every knob */
        char *file;             /* idlecfg.conf's name for messages */
        unsigned line;          /* of the section header */
        unsigned knobs_line;    /* of knobs =, 0 without */
};
struct conf_exclusions {
        struct conf_exclusion *v;
        size_t n;
};
/* the [exclude DEVICE] sections of idlecfg.conf, in file order (none without
 * the file); -errno with a message naming file and line for a bad file or a
 * section without reason =. The knob names are checked by the caller: this
 * layer knows no knob. */
int conf_exclusions(const struct rootfs *rfs, struct conf_exclusions *ret, struct xerror *ret_error);
void conf_exclusions_done(struct conf_exclusions *x);

int profile_select_rootfs(const struct rootfs *rfs, const char *cli_name, const char *chassis_type,
                          char **ret_name, char **ret_reason, struct xerror *ret_error);
/* the same for a root given by its path (tests, tools) */
int profile_select(const char *root, const char *cli_name, const char *chassis_type,
                   char **ret_name, char **ret_reason, struct xerror *ret_error);

/* SMBIOS name of DMI chassis type T, NULL if unknown */
const char *chassis_name(long t);
