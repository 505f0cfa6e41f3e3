/* manifest.h: what install wrote into a root, so that rollback can undo it exactly */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "base/util.h"

#define MANIFEST_PATH "/var/lib/idlecfg/manifest"
#define STATE_DIR "/var/lib/idlecfg"
#define BACKUP_DIR "/var/lib/idlecfg/backup"

struct manifest_file {
        char *path;             /* absolute, inside the root */
        char sha[65];           /* SHA-256 of the content install wrote */
        mode_t mode;
        bool prev_exists;       /* false: the file did not exist before idlecfg */
        char prev_sha[65];      /* its content before, kept in BACKUP_DIR/<sha> */
        mode_t prev_mode;
        uid_t prev_uid;
        gid_t prev_gid;
        /* an intent record ("pending"): install is about to write sha over what
         * was there; until the end of its run the file may still hold that */
        bool pending;
        bool pending_was_ours;  /* false: it held what was there before idlecfg */
        char pending_sha[65];   /* pending_was_ours: the content idlecfg had written */
};

struct manifest {
        unsigned format;        /* of the text read: 1 (no end record) or 2; written: 2 */
        char *version;          /* idlecfg's version that wrote it */
        char *profile;
        char *fingerprint;
        char *kernel;           /* NULL: unknown */
        char *cmdline_target;   /* where the command line went, NULL if nowhere */
        /* the words an earlier profile's install gave the boot entries through
         * a tool (grubby, rpm-ostree) that this one no longer plans, while an
         * entry still holds them: idlecfg's, to take out; space-separated,
         * NULL: none */
        char *dropped_words;
        struct kvlist inputs;   /* what refresh compares: name -> digest */
        char **dirs;            /* directories install created, in order */
        size_t n_dirs;
        struct manifest_file *files;
        size_t n_files;
};

/* Parse the text of a manifest; NAME names it in errors ("NAME:LINE: ...").
 * Format 2 ends with "end LINES SHA256" (the lines before it and the digest
 * of their bytes): a manifest without it, cut or with lines lost, is refused.
 * Format 1 (before the end record) is read as it is. Paths are limited to
 * install's targets (targets.h), their NEW_SUFFIX copies and their parents. */
int manifest_parse(const char *name, const char *buf, size_t len, struct manifest **ret, struct xerror *ret_error);
/* the text of M, as manifest_parse() reads it */
char *manifest_format(const struct manifest *m);
void manifest_free(struct manifest *m);
static inline void manifest_freep(struct manifest **m) { manifest_free(*m); }

struct manifest_file *manifest_find(const struct manifest *m, const char *path);
struct manifest_file *manifest_add_file(struct manifest *m, const char *path);
void manifest_remove_file(struct manifest *m, const char *path);
bool manifest_has_dir(const struct manifest *m, const char *path);
void manifest_add_dir(struct manifest *m, const char *path);

/* an absolute path without "." or ".." components, doubled or trailing slashes,
 * or bytes outside '!'..'~' */
bool path_is_clean(const char *path);
bool sha_is_valid(const char *s);
/* some file has a "pending" record: an install was killed half-way */
bool manifest_pending(const struct manifest *m);
/* PATH is a symbolic link install makes (targets.h), not a regular file:
 * its manifest entry has the mode 120777 and the SHA-256 of the link's target */
bool manifest_path_is_link(const char *path);
/* PATH is a file install writes (targets.h) or its NEW_SUFFIX copy */
bool manifest_path_allowed(const char *path);
