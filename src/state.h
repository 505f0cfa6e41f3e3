/* state.h: idlecfg's state under /var/lib/idlecfg in a root: the manifest file, the backup store and their cleanup */
#pragma once

#include <stddef.h>

#include "manifest.h"
#include "rootfs.h"

/* the largest manifest, backup or target file idlecfg reads */
#define STATE_FILE_MAX (16u << 20)

/* The manifest of the root: 0 and *ret, -ENOENT when there is none. */
int manifest_load(const struct rootfs *rfs, struct manifest **ret, struct xerror *ret_error);
/* write M as the manifest of the root, atomically */
int manifest_save(const struct rootfs *rfs, const struct manifest *m, struct xerror *ret_error);

/* the backup store is content-addressed: BACKUP_DIR/<sha256 of the content> */
char *backup_path(const char *sha);
/* keep DATA (whose SHA-256 is SHA) in the store, unless an intact copy is there */
int save_backup(const struct rootfs *rfs, const char *data, size_t len, const char *sha, struct xerror *ret_error);
/* read a backup and check it is what the manifest says (-EBADMSG: damaged) */
int read_backup(const struct rootfs *rfs, const char *sha, char **ret, size_t *ret_len, struct xerror *ret_error);
/* remove backups no manifest entry needs any more */
int gc_backups(const struct rootfs *rfs, const struct manifest *m);

/* idlecfg's state directory without a manifest or journal: remove what a
 * crash left (backups, temporary files, the directory); nothing while the
 * journal of apply is there */
int state_cleanup(const struct rootfs *rfs);
