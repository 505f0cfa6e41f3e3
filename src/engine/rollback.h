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
/* the kernel parameters the install of manifest M added to its command-line
 * file (beyond the line before it; an administrator's later words left out
 * where they can be told apart): idlecfg's, never the administrator's
 * choice. Without an entry of /etc/kernel/cmdline in M (M NULL: no
 * manifest, the state lost?), those its note names (CMDLINE_NOTE_PATH).
 * NULL: none */
char *install_own_words(const struct rootfs *rfs, const struct manifest *m);

/* CMDLINE_NOTE_PATH (state.h): 0 with *RET_MADE and *RET_WORDS (idlecfg's
 * words in /etc/kernel/cmdline), -ENOENT when there is none of idlecfg's */
int cmdline_note_read(const struct rootfs *rfs, bool *ret_made, char **ret_words);
/* CUR without the words of WORDS, every other byte kept (words_cut()) */
char *cmdline_words_cut(const char *cur, const char *words);

int install_rollback(const struct rootfs *rfs, bool force, struct rollback_result *ret, struct xerror *ret_error);
