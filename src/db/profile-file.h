/* profile-file.h: one profile or idlecfg.conf file: the schema, read and checked line by line */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

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

bool profile_name_valid(const char *name);

/* ---- for the other files of the profile code (profile*.c) ---- */

/* the keys one kind of file may hold */
struct profile_keyset {
        const struct profile_key *keys;
        size_t n;
        bool allow_empty;       /* idlecfg.conf may be all comments */
        /* a section that takes an argument, "[NAME ARG]" (idlecfg.conf's
         * [exclude DEVICE]); its keys are those of section NAME; NULL: none */
        const char *arg_section;
};
/* a profile's schema is the PROFILE_N_META [profile] keys (inherit,
 * description), then the knob families' keys: the knobs layer puts the two
 * together (knob_profile_schema()) and hands it to profile_load() */
#define PROFILE_N_META 2
const struct profile_key *profile_meta_keys(size_t *ret_n);
/* idlecfg.conf's: [main] profile, [power] source, [exclude DEVICE] reason and knobs */
const struct profile_keyset *profile_conf_schema(void);
const struct profile_key *profile_schema_find(const struct profile_keyset *s, const char *section, const char *key);

/* one key = value of a file, checked against its profile_key */
struct profile_entry {
        const struct profile_key *def;
        char *value;
        long number;
        bool keep;
        char *battery;          /* per-source: the battery value, value the AC one */
        long battery_number;
        unsigned line;
        /* in the keyset's arg_section: the section's argument and its header's line */
        char *arg;
        unsigned section_line;
};

/* one "[NAME ARG]" section header of the keyset's arg_section, keys or not */
struct profile_section {
        char *arg;
        unsigned line;
};

struct profile_parsed {
        struct profile_entry *v;
        size_t n;
        struct profile_section *sections;
        size_t n_sections;
};
void profile_parsed_done(struct profile_parsed *p);
const struct profile_entry *profile_parsed_find(const struct profile_parsed *p, const char *section, const char *key);

/* PATH through rootfs.h's reader, in the root RFS or (RFS NULL) a path of this
 * machine, at most 64 KiB: 0 with *RET; -ENOENT when there is no such file (a
 * symbolic link that leads out of the root leads to nothing in it: the
 * target's own idlecfg would not find the file either); else the error,
 * said naming DISPLAY */
struct rootfs;
int profile_read_file(const struct rootfs *rfs, const char *path, const char *display, char **ret,
                      size_t *ret_len, struct xerror *err);
/* Check BUF line by line, then parse it with inih against S; on error the one
 * nearest the top of the file is reported, naming FILE and the line. */
int profile_parse_buffer(const char *buf, size_t len, const char *file, const struct profile_keyset *s,
                         struct profile_parsed *ret, struct xerror *err);

/* Decimal digits only: no sign, no spaces, no locale */
int profile_parse_number(const char *s, long *ret);
char *profile_join(const char *const *v, const char *sep);
/* errors of the profile code: replace what E holds (E NULL: nothing) */
_printf_(4, 5)
void profile_set_error(struct xerror *e, const char *file, unsigned line, const char *fmt, ...);
void profile_move_error(struct xerror *to, struct xerror *from);
