/* planner.h: what every knob family sees while it plans, and the helpers it shares */
#pragma once

#include "hwdb.h"
#include "inventory.h"
#include "modules.h"
#include "plan.h"
#include "profile.h"

struct planctx {
        const struct inventory *inv;
        const struct hwdb *hwdb;
        const struct profile *profile;
        struct modctx *mc;              /* NULL: the target kernel's modules are unknown */
        struct plan *plan;
        const char *cmdline;            /* the running kernel's command line, NULL for a target root */
};

/* One hwdb answer with the reason and kernel range of its entry. */
struct hwdb_fact {
        const char *value;
        const char *file;
        unsigned line;
        const char *reason;             /* P_REASON, NULL if the entry has none */
};

/* the key prefixes hwdb_fact() may be asked for; the hwdb is loaded with only these */
extern const char *const planner_hwdb_keys[];

/* Look up PROPERTY for KEY (a modalias or one of our own keys). False when no
 * entry sets it, or when its P_KERNEL range excludes the target kernel. */
bool hwdb_fact(struct planctx *c, const char *key, const char *property, struct hwdb_fact *ret);
/* "hwdb FILE:LINE (REASON)" */
char *fact_reason(const struct hwdb_fact *f);

/* the profile's value of [section] key; NULL when the profile keeps the default */
const char *profile_value(struct planctx *c, const char *section, const char *key);
/* "profile NAME [section] key (FILE:LINE)" */
char *profile_reason(struct planctx *c, const char *section, const char *key);

/* Add a setting for device D (NULL: global). value NULL makes it a skip. */
struct setting *plan_device(struct planctx *c, const struct device *d, const char *knob,
                            const char *attr, const char *value, char *reason_take);
void plan_skip(struct planctx *c, const struct device *d, const char *knob, char *reason_take);
/* a global skip: the profile keeps the kernel default for [section] key */
void plan_skip_keep(struct planctx *c, const char *knob, const char *section, const char *key);
/* A module parameter: mechanism chosen from the target kernel (modprobe.d for a
 * loadable module, command line for a built-in one); a skip when the
 * parameter does not exist there or the kernel cannot be checked. */
struct setting *plan_param(struct planctx *c, const struct device *d, const char *knob, const char *module,
                           const char *param, const char *value, char *reason_take);

/* A global setting with its mechanism fixed by the caller (the command line,
 * tmpfiles.d): MODULE may be NULL for a bare kernel parameter. */
struct setting *plan_global(struct planctx *c, const char *knob, const char *module, const char *param,
                            const char *value, const char *current, enum mechanism mech, char *reason_take);

/* udev match keys that identify device D */
void match_device(const struct device *d, struct kvlist *match);

/* does any interface of USB device D have class CLS (two hex digits)? */
bool usb_has_class(const struct device *d, const char *cls);
/* "0x" + id, as the sysfs attribute reads */
char *hex_attr(const char *id);
/* compare kernel releases like "6.1.0-18-amd64": <0, 0, >0 */
int kernel_compare(const char *a, const char *b);

/* the knob families, one file each in src/knobs/ */
void knob_pci_runtime_pm(struct planctx *c);
void knob_aspm(struct planctx *c);
void knob_sata(struct planctx *c);
void knob_usb(struct planctx *c);
void knob_audio(struct planctx *c);
void knob_gpu(struct planctx *c);
void knob_i2c(struct planctx *c);
void knob_nvme(struct planctx *c);
void knob_suspend(struct planctx *c);

struct plan_options {
        const char *root;
        const char *profile;            /* --profile, NULL for the usual choice */
        const char *profiles_dir;       /* extra profile directory (tests, uninstalled runs) */
};

struct plan_error {
        char *message;                  /* translated, names file and line where there is one */
};
void plan_error_done(struct plan_error *e);

int plan_build(const struct inventory *inv, const struct plan_options *o, struct plan **ret,
               struct plan_error *ret_error);
void plan_print_text(const struct plan *p, FILE *f);
void plan_print_json(const struct plan *p, FILE *f);
