/* rollback.h: undo install */
#pragma once

#include "root/rootfs.h"
#include "state/manifest.h"
#include "state/state.h"

/* Undo install: restore every file in the manifest as it was, remove the
 * directories install made, then the manifest and backups. Files changed by
 * someone else since install are reported and kept unless FORCE. 0 done,
 * 1 nothing to undo, <0 failure (-EBUSY: some files were left alone). What
 * happened is in *ret, also on failure. */
int install_rollback(const struct rootfs *rfs, bool force, struct rollback_result *ret, struct xerror *ret_error);

/* put MF's path back as the manifest entry says it was before idlecfg (its
 * backup, or no file): 0, or <0 with *E saying why (install's A_RESTORE too) */
int rollback_restore_file(const struct rootfs *rfs, const struct manifest_file *mf, struct xerror *e);

/* The note of /var and /var/lib that install made (a root without them),
 * PARENTS_NOTE_PATH in the root's /run: a rollback removes them after the
 * manifest that names them, a first install names them there before it
 * makes them. parents_note() writes it from M's directories (none: nothing),
 * parents_note_adopt() adds the ones it names to M (an install after one
 * that was killed before its manifest), parents_note_remove() removes it
 * and what a killed write of it left. 0 or -errno. */
#define PARENTS_NOTE_PATH "/run/idlecfg/rollback-parents"
int parents_note(const struct rootfs *rfs, const struct manifest *m);
int parents_note_adopt(const struct rootfs *rfs, struct manifest *m);
int parents_note_remove(const struct rootfs *rfs);
