/* hwdb.h: systemd .hwdb text files read from a root and matched as systemd-hwdb does:
 * the database and its queries (hwdb.c); loading it: hwdb-load.h, which its
 * callers include too */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

/*
 * libudev only reads the compiled hwdb.bin of the running system; idlecfg
 * needs the database of a target root, with file:line for every answer, so it
 * reads the text files itself. The answers agree with
 * `systemd-hwdb --root ROOT update; systemd-hwdb --root ROOT query MODALIAS`
 * of systemd 252, order of the properties included:
 *
 * - Files: *.hwdb in ROOT/etc/udev/hwdb.d, ROOT/usr/lib/udev/hwdb.d and
 *   ROOT/lib/udev/hwdb.d, merged and sorted by file name; for one name the
 *   first directory in that list wins (a symlink to /dev/null masks).
 *   Symlinks resolve inside ROOT.
 * - Matching: the whole modalias against each match line, fnmatch(3) without
 *   flags in the C locale.
 * - Priority: when several matching entries set one key, the property line
 *   of the later file wins, in one file the later line; how specific a match
 *   is does not count.
 * - Format problems are warnings, and the line or record is skipped exactly
 *   as systemd skips it; HWDB_STRICT turns the first one into an error.
 */

struct hwdb;

/* One property of an answer. The strings belong to the hwdb. */
struct hwdb_property {
        const char *key;        /* without the leading space */
        const char *value;
        const char *file;       /* path inside the root (or as given to hwdb_load_files) */
        unsigned line;          /* line of the property in that file */
        const char *match;      /* the match line that selected it */
};

struct hwdb_stats {
        size_t files, matches, properties, bytes;
        size_t skipped_files, skipped_bytes;    /* hwdb_load_keys(): files that mention no wanted key */
};

void hwdb_free(struct hwdb *h);
static inline void hwdb_freep(struct hwdb **h) { hwdb_free(*h); }

/* what the load skipped, in file and line order */
const struct xerror *hwdb_warnings(const struct hwdb *h, size_t *ret_n);
/* the files read, lowest priority first */
const char *const *hwdb_files(const struct hwdb *h, size_t *ret_n);
void hwdb_stats(const struct hwdb *h, struct hwdb_stats *ret);

/* Every property line of every file loaded, in file and line order (match NULL);
 * returns how many, *ret allocated (free() it, not the strings). */
size_t hwdb_all_properties(const struct hwdb *h, struct hwdb_property **ret);

/* All properties for MODALIAS in systemd-hwdb's order, *ret allocated (free()
 * it, not the strings); 0 properties is not an error. */
int hwdb_query(const struct hwdb *h, const char *modalias, struct hwdb_property **ret, size_t *ret_n);
/* N_KEYS keys from one query: ret[i] is KEYS[i]'s answer, or all zero (key
 * NULL) when no entry sets it. Returns how many were found, or -errno. */
int hwdb_get_keys(const struct hwdb *h, const char *modalias, const char *const *keys, size_t n_keys,
                  struct hwdb_property *ret);
/* one key: 0, or -ENOENT when no entry for MODALIAS sets it */
int hwdb_get(const struct hwdb *h, const char *modalias, const char *key, struct hwdb_property *ret);
