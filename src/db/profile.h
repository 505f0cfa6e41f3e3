/* profile.h: a profile with what it inherits, merged into one. The rest of
 * the profile code has its own headers: profile-file.h (the schema, one file
 * read and checked; included here), profile-search.h (the search path,
 * listing), profile-select.h (which profile applies). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "db/profile-file.h"
#include "base/util.h"

/* files in one inherit chain, the named profile included */
#define PROFILE_MAX_DEPTH 8
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
 * SYSCONFDIR and PKGDATADIR stand in for /etc and /usr/share/idlecfg.
 * SCHEMA: the keys a profile may hold (knob_profile_schema()). */
int profile_load(const char *root, const struct profile_keyset *schema, const char *extra_dir, const char *name,
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

/* The same for a root already open (rootfs.h): what idlecfg runs with, the
 * root opened once; profile_load() opens ROOT for its call. */
struct rootfs;
int profile_load_rootfs(const struct rootfs *rfs, const struct profile_keyset *schema, const char *extra_dir,
                        const char *name,
                        struct profile **ret, struct xerror *ret_error);
