/* refresh.h: what refresh compares to decide "nothing changed", cheaply */
#pragma once

#include <stddef.h>

#include "model/inventory.h"
#include "root/rootfs.h"
#include "base/util.h"

/* What a plan depends on, as recorded in the manifest's "input" lines:
 *   version, fingerprint, kernel, profile,     the values themselves
 *   kernel_version, mem_sleep                  (mem_sleep: /sys/power/mem_sleep)
 *   hwdb, profiles, modules, boot              digest of the files' names and
 *                                              stat data (size, mtime, inode)
 *   hwdb-content, ..., boot-content            digest of their names and contents
 *                                              (manifests written before these
 *                                              were added have only the stat digests)
 * The stat digest is the cheap first look; when it differs, the content
 * digest decides, so a touch or a reinstall of identical files changes nothing. */
enum {
        REFRESH_CONTENT = 1 << 0,       /* also the *-content digests (install records them) */
};

/* The inputs as install records them into RET, for the inventory INV of the root. */
void refresh_inputs(const struct rootfs *rfs, const struct inventory *inv, const char *profile,
                    const char *profiles_dir, unsigned flags, struct kvlist *ret);

/* Compare the inputs now with WAS (a manifest's inputs). Each input that
 * changed goes into RET_CHANGED: its name, with "OLD -> NEW" for a value and
 * NULL for a group of files. Returns how many changed. A group whose stat
 * digest differs reads its files only if WAS has its content digest. INV:
 * this run's inventory if it has one (its detect read the kernel's upstream
 * version already), NULL for the cheap look. RET_STALE (if not NULL): what
 * the manifest should record anew though nothing changed: the stat digest
 * of each group whose files were touched or replaced by the same bytes
 * (else every later look reads their contents again), and the key of the
 * kernel's version where it no longer holds for the same version. */
size_t refresh_compare(const struct rootfs *rfs, const struct kvlist *was, const char *fingerprint,
                       const char *kernel, const struct inventory *inv, const char *profile,
                       const char *profiles_dir, struct kvlist *ret_changed, struct kvlist *ret_stale);
