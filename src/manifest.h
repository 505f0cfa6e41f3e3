/* manifest.h: what install wrote into a root, so that rollback can undo it exactly */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "util.h"

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
};

struct manifest {
        char *version;          /* idlecfg's version that wrote it */
        char *profile;
        char *fingerprint;
        char *kernel;           /* NULL: unknown */
        char *cmdline_target;   /* where the command line went, NULL if nowhere */
        struct kvlist inputs;   /* what refresh compares: name -> digest */
        char **dirs;            /* directories install created, in order */
        size_t n_dirs;
        struct manifest_file *files;
        size_t n_files;
};

/* Parse the text of a manifest; NAME names it in errors ("NAME:LINE: ..."). */
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
