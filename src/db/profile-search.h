/* profile-search.h: where profiles are: the search path, finding one, listing them */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

struct rootfs;

/* the build passes both (Makefile.am); these are for a compiler run without it */
#ifndef SYSCONFDIR
# define SYSCONFDIR "/etc"
#endif
#ifndef PKGDATADIR
# define PKGDATADIR "/usr/share/idlecfg"
#endif

/* The search path: ROOT/etc/idlecfg/profiles, then --profiles-dir, then
 * ROOT/usr/share/idlecfg/profiles. For the host root the configured
 * SYSCONFDIR and PKGDATADIR stand in for /etc and /usr/share/idlecfg. */
struct profile_dir {
        char *path;             /* inside the root when in_root */
        char *display;          /* as a user finds it on this machine */
        bool in_root;
};
size_t profile_dirs(const struct rootfs *rfs, const char *extra_dir, struct profile_dir dirs[static 3]);
void profile_dirs_free(struct profile_dir *dirs, size_t n);
/* "DIR, DIR" of dirs[from..n) for messages */
char *profile_dirs_string(const struct profile_dir *dirs, size_t from, size_t n);

/* First NAME.profile at or after dirs[from], read whole: -ENOENT when there is
 * none. A file that exists but cannot be read is an error, not a miss:
 * skipping it would silently drop an admin's override. */
int profile_find(const struct rootfs *rfs, const struct profile_dir *dirs, size_t n_dirs, size_t from,
                 const char *name, char **ret_display, size_t *ret_index, char **ret_buf,
                 size_t *ret_len, struct xerror *err);

/* names of all profiles on the search path, sorted, without duplicates */
int profile_list_rootfs(const struct rootfs *rfs, const char *extra_dir, char ***ret_names, size_t *ret_n);
/* the same for a root given by its path (tests, tools): the functions that
 * take ROOT open it for their call */
int profile_list(const char *root, const char *extra_dir, char ***ret_names, size_t *ret_n);
void profile_names_free(char **names, size_t n);

/* ROOT opened for the functions that take a path; a root that does not exist
 * has no profiles in it (fd -1: --profiles-dir may have) */
int profile_open_root(const char *root, struct rootfs *rfs, struct xerror *err);
