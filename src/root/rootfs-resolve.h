/* rootfs-resolve.h: rootfs.c's resolution inside the root, shared with
 * rootfs-why.c only; every other file goes through rootfs.h */
#pragma once

#include <stdbool.h>

struct rootfs;           /* root/rootfs.h: this header is its reader's, rootfs.c's */

/* The one resolver: every path of a root is opened here, links resolved
 * inside the root, magic links (/proc/self/fd/N) refused: an fd or -errno. */
int resolve_open(int rootfd, const char *path, int flags);
/* whether the symbolic link LINK (inside the root) with TARGET leads out of the root */
bool link_leaves_root(const struct rootfs *r, const char *link, const char *target);
/* PATH was not found because a component is a link to nothing: -EXDEV (out
 * of the root), -ENOLINK (to a file of the root that is not there), else 0 */
int dangling_link(const struct rootfs *r, const char *path, char **ret_link, char **ret_target);
