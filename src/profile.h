/* profile.h: INI profiles (inih) with inherit=, strict schema, and which one applies */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

#define PROFILE_DEFAULT "balanced"
/* files in one inherit chain, the named profile included */
#define PROFILE_MAX_DEPTH 8
/* a profile name becomes a file name: keep it short and free of '/' and '.' */
#define PROFILE_NAME_MAX 64

/* Errors (struct xerror, util.h): file and line are 0/NULL when the error is
 * not about one place. Pass a zeroed one ({}); the functions replace what it
 * holds. */

enum profile_value_type {
        PROFILE_CHOICE,         /* one word from choices */
        PROFILE_INT_OR_KEEP,    /* "keep" or a decimal integer in min..max */
        PROFILE_NAME,           /* a profile name (inherit, idlecfg.conf profile) */
        PROFILE_TEXT,           /* free text without double quotes or backslashes */
};

/* one key of the schema; [profile] keys describe the profile, not a knob */
struct profile_key {
        const char *section;
        const char *key;
        enum profile_value_type type;
        const char *const *choices;     /* PROFILE_CHOICE: NULL-terminated */
        long min, max;                  /* PROFILE_INT_OR_KEEP */
        /* a knob idlecfg can change at run time: the key may take one value on
         * AC and another on battery ("ac:0 battery:1", idlecfg-profile(5)) */
        bool per_source;
};
/* the knob keys a profile can set, in the order profiles are printed */
const struct profile_key *profile_schema(size_t *ret_n);

struct profile_setting {
        const char *section;    /* static, from the schema */
        const char *key;        /* static, from the schema */
        char *value;            /* as written, already validated */
        bool keep;              /* value is "keep": plan nothing for this knob */
        long number;            /* PROFILE_INT_OR_KEEP and !keep: the number */
        /* "ac:A battery:B" with A != B: value/number are A, these are B; NULL
         * when the key has one value for both power sources */
        char *battery;
        long battery_number;
        char *file;             /* where it was set, for "(file:line)" */
        unsigned line;
        char *from;             /* name of the profile whose file set it */
};

struct profile_link {
        char *name;
        char *path;
};

struct profile {
        char *name;
        char *path;                     /* the file of NAME itself (= chain[0].path) */
        char *description;              /* nearest in the chain, NULL if none */
        struct profile_link *chain;     /* NAME first, then what it inherits */
        size_t n_chain;
        struct profile_setting *settings; /* set keys only, in schema order */
        size_t n_settings;
};

/* Load NAME from the search path: ROOT/etc/idlecfg/profiles, then
 * EXTRA_DIR (may be NULL; a host path, e.g. the source tree's profiles/),
 * then ROOT/usr/share/idlecfg/profiles. For the host root the configured
 * SYSCONFDIR and PKGDATADIR stand in for /etc and /usr/share/idlecfg. */
int profile_load(const char *root, const char *extra_dir, const char *name,
                 struct profile **ret, struct xerror *ret_error);
void profile_free(struct profile *p);
static inline void profile_freep(struct profile **p) { profile_free(*p); }

/* NULL when the chain leaves the knob unset: plan nothing for it */
const struct profile_setting *profile_get(const struct profile *p, const char *section, const char *key);

/* does any setting of P take another value on battery? */
bool profile_has_per_source(const struct profile *p);
/* a copy of P whose settings hold their battery values (BATTERY), or their AC
 * values; the copy has no per-source values left */
struct profile *profile_for_source(const struct profile *p, bool battery);

/* names of all profiles on the search path, sorted, without duplicates */
int profile_list(const char *root, const char *extra_dir, char ***ret_names, size_t *ret_n);
void profile_names_free(char **names, size_t n);

bool profile_name_valid(const char *name);

/* Which profile applies: --profile, else [main] profile= in
 * ROOT/etc/idlecfg/idlecfg.conf, else the DMI chassis type (a decimal
 * string or NULL). ret_reason names the rule: "--profile",
 * "/etc/idlecfg/idlecfg.conf:3", "chassis type 10 (Notebook)". */
int profile_select(const char *root, const char *cli_name, const char *chassis_type,
                   char **ret_name, char **ret_reason, struct xerror *ret_error);

/* The same three for a root already open (rootfs.h): what idlecfg runs with,
 * the root opened once; the functions above open ROOT for their call. */
struct rootfs;
int profile_load_rootfs(const struct rootfs *rfs, const char *extra_dir, const char *name,
                        struct profile **ret, struct xerror *ret_error);
int profile_list_rootfs(const struct rootfs *rfs, const char *extra_dir, char ***ret_names, size_t *ret_n);
int profile_select_rootfs(const struct rootfs *rfs, const char *cli_name, const char *chassis_type,
                          char **ret_name, char **ret_reason, struct xerror *ret_error);

/* SMBIOS name of DMI chassis type T, NULL if unknown */
const char *chassis_name(long t);
