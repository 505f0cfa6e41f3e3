/* hwdb-parse.h: the records of .hwdb text files and their index, for the hwdb code (hwdb*.c) only */
#pragma once

#include <locale.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"

/* all files together; keeps line numbers and array indices well inside 32 bits */
#define HWDB_TOTAL_MAX (256u * 1024u * 1024u)

struct prop {
        const char *key;        /* points into the file data, after the leading space */
        const char *value;
        uint32_t line;
        uint32_t file;          /* index into paths[] and data[]: the file's priority */
};

struct match {
        const char *pattern;
        uint32_t literal;       /* bytes before the first '*', '?' or '[' */
        uint32_t first_prop;    /* the entry's properties: props[first_prop ..] */
        uint32_t n_props;
        uint32_t next;          /* 1 + next match with the same literal prefix; 0 ends */
};

/* open addressing over the literal prefixes: a query probes each prefix of
 * the modalias once instead of running fnmatch() on every pattern */
struct slot {
        uint32_t hash;
        uint32_t head;          /* 1 + first match of the chain; 0: free */
};

struct hwdb {
        char **paths;           /* files read, lowest priority first */
        char **data;            /* their contents, a NUL after every line */
        size_t n_files, bytes;

        struct prop *props;
        size_t n_props, cap_props;
        struct match *matches;
        size_t n_matches, cap_matches;

        struct slot *slots;
        size_t mask;
        size_t max_literal;

        struct xerror *warnings;
        size_t n_warnings, cap_warnings;

        locale_t c_locale;

        /* hwdb_load_keys(): the key prefixes a caller reads; NULL keeps all */
        const char *const *keys;
        size_t max_key, min_key, n_keys;
        char key_first[8], key_span[8]; /* of the first 8 keys: byte 0 and byte min_key - 1 */
        size_t skipped_files, skipped_bytes;
};

#define GROW(array, n, cap)                                                             \
        do {                                                                            \
                if ((n) >= (cap)) {                                                     \
                        (cap) = (cap) ? (cap) * 2 : 64;                                 \
                        (array) = xrealloc((array), (cap) * sizeof(*(array)));          \
                }                                                                       \
        } while (0)

static inline uint32_t hwdb_hash_step(uint32_t hash, char c)
{
        /* FNV-1a: extends byte by byte, as a query walks the modalias */
        return (hash ^ (uint8_t) c) * 16777619u;
}

#define HASH_INIT 2166136261u

/* an empty database; NULL with the error said (and *RET_R) when the C locale cannot be made */
struct hwdb *hwdb_new_or_error(struct xerror *ret_error, int *ret_r);
/* Parse file number FILE (paths[FILE], data[FILE] of SIZE bytes) into records;
 * STRICT: the first problem ends the parse */
int hwdb_parse_file(struct hwdb *h, uint32_t file, size_t size, bool strict, struct xerror *ret_error);
/* the index of the match prefixes, after the last file is parsed */
void hwdb_build_index(struct hwdb *h);

void hwdb_set_error(struct xerror *ret_error, const char *file, unsigned line, const char *fmt, ...) _printf_(4, 5);
/* Record a problem; STRICT (HWDB_STRICT, hwdb-load.h): it is also the error that ends the load. */
int hwdb_warn_at(struct hwdb *h, bool strict, struct xerror *ret_error, const char *file, unsigned line,
                 const char *fmt, ...) _printf_(6, 7);
