/* hwdb-load.h: the .hwdb files of a root, found and read as systemd-hwdb does */
#pragma once

#include "base/util.h"

struct hwdb;
struct rootfs;

/* Errors and warnings (struct xerror, util.h) say where a problem is: line 0
 * when it is about a whole file (or directory), file NULL when it is about no
 * file. */

enum {
        HWDB_STRICT = 1 << 0,   /* the first warning fails the load */
        HWDB_FILES_REQUIRED = 1 << 1, /* a file that cannot be read fails the load (idlecfg's policy:
                                       * its deny entries must not silently go missing) */
};

/* Read the hwdb files of ROOT (NULL or "/" for this system). Missing
 * directories are an empty database; a directory that cannot be read is an
 * error, a file that cannot be read a warning (systemd skips it too).
 * Returns 0 or -errno; ret_error (may be NULL) says where on failure. */
int hwdb_load(const char *root, unsigned flags, struct hwdb **ret, struct xerror *ret_error);
/* The same for a root already open: every file through rootfs.h's reader. */
int hwdb_load_rootfs(const struct rootfs *rfs, unsigned flags, struct hwdb **ret, struct xerror *ret_error);
/* The same, for a caller that reads only keys starting with one of KEYS
 * (NULL-terminated; the array must outlive the hwdb): a file that does not
 * contain any of them is skipped unread and unparsed (so it gives no
 * warnings), a record that sets none of them is dropped. Every answer for
 * such a key is the one hwdb_load() gives. KEYS NULL: hwdb_load(). */
int hwdb_load_keys(const char *root, unsigned flags, const char *const *keys, struct hwdb **ret,
                   struct xerror *ret_error);
int hwdb_load_rootfs_keys(const struct rootfs *rfs, unsigned flags, const char *const *keys, struct hwdb **ret,
                          struct xerror *ret_error);
/* Read exactly PATHS (NULL-terminated), later ones winning, as if sorted. */
int hwdb_load_files(const char *const *paths, unsigned flags, struct hwdb **ret,
                    struct xerror *ret_error);
