/* state.h: idlecfg's state under /var/lib/idlecfg in a root: the manifest and journal files, the backup
 * store (and a file restored from it), rollback's result and the note it leaves, and their cleanup */
#pragma once

#include <stddef.h>
#include <sys/stat.h>

#include "state/manifest.h"
#include "root/rootfs.h"

/* the largest manifest, backup or target file idlecfg reads */
#define STATE_FILE_MAX (16u << 20)

/* what is at a path install owns now (state_look()) */
struct state_seen {
        bool exists;
        bool other_type;        /* not a regular file (for a link of targets.h: not a link): not idlecfg's */
        struct stat st;
        char *content;          /* the file's content, or the link's target */
        size_t len;
        char sha[65];           /* its SHA-256, as the manifest records it */
};
/* Look at PATH as the manifest records it: a regular file, or a symbolic
 * link for the paths manifest_path_is_link() names. 0 (nothing there is
 * exists false), or -errno with the file named in RET_ERROR. */
int state_look(const struct rootfs *rfs, const char *path, struct state_seen *ret, struct xerror *ret_error);
void state_seen_done(struct state_seen *s);

/* The manifest of the root: 0 and *ret, -ENOENT when there is none. */
int manifest_load(const struct rootfs *rfs, struct manifest **ret, struct xerror *ret_error);
/* Settle what a run that was killed left, under the lock, before anything
 * is decided from M: each "pending" record (the file holds the new content:
 * done; the content idlecfg had written before: not done; as before idlecfg:
 * the entry goes), the temporary files beside the manifest and every file of
 * M, unused backups. M is saved when it changed (a format 1
 * manifest is rewritten as format 2). DRY_RUN: M only, nothing written.
 * M NULL (no manifest): the temporary files and backups a killed first
 * install left go. */
int state_recover(const struct rootfs *rfs, struct manifest *m, bool dry_run, struct xerror *ret_error);
/* write M as the manifest of the root, atomically */
int manifest_save(const struct rootfs *rfs, const struct manifest *m, struct xerror *ret_error);

/* the backup store is content-addressed: BACKUP_DIR/<sha256 of the content> */
char *backup_path(const char *sha);
/* keep DATA (whose SHA-256 is SHA) in the store, unless an intact copy is there */
int save_backup(const struct rootfs *rfs, const char *data, size_t len, const char *sha, struct xerror *ret_error);
/* read a backup and check it is what the manifest says (-EBADMSG: damaged) */
int read_backup(const struct rootfs *rfs, const char *sha, char **ret, size_t *ret_len, struct xerror *ret_error);
/* put MF's path back as the manifest entry says it was before idlecfg (its
 * backup, or no file): 0, or <0 with *E saying why (rollback's, and
 * install's A_RESTORE) */
int rollback_restore_file(const struct rootfs *rfs, const struct manifest_file *mf, struct xerror *e);
/* remove backups no manifest entry needs any more */
int gc_backups(const struct rootfs *rfs, const struct manifest *m);

/* idlecfg's state directory without a manifest: the initramfs cache and the
 * first-boot stamp go; without a journal of apply either, remove what a crash
 * left (backups, temporary files) and the directory */
int state_cleanup(const struct rootfs *rfs);

/* The root whose journal holds the live values: the running system's ("/";
 * in the tests $IDLECFG_TEST_LIVE_ROOT, or under umockdev without it the root
 * given). *RET_SAME: it is RFS itself (nothing opened); else *RET is opened
 * (rootfs_close() it). apply journals there; rollback replays no other journal. */
int state_live_root(const struct rootfs *rfs, struct rootfs *ret, bool *ret_same);

/* The journal of apply in the root (its lines: journal.h): 0 and *ret,
 * -ENOENT when there is none. */
struct journal;
int journal_load(const struct rootfs *rfs, struct journal **ret, struct xerror *ret_error);
/* TEXT, a whole journal (journal_text_with_run()), becomes the journal:
 * temporary file, fsync, rename, fsync of the directory; the state
 * directory is made when absent. A crash leaves the journal before or after,
 * never a part. */
int journal_commit(const struct rootfs *rfs, const char *text, struct xerror *ret_error);
/* remove the temporary files a crash left beside the journal */
int journal_remove_temps(const struct rootfs *rfs, struct xerror *ret_error);
/* remove the journal (everything in it is undone), then its temporary files */
int journal_remove(const struct rootfs *rfs, struct xerror *ret_error);

/* what a rollback (of apply or of install) did, entry by entry in order */
enum rollback_state {
        RB_UNREADABLE,          /* apply: left, cannot read it (err) */
        RB_VALUE_CHANGED,       /* apply: left, someone changed it (cur, set, old) */
        RB_WRITE_FAILED,        /* apply: could not restore it to old (err) */
        RB_VALUE_RESTORED,      /* apply: cur -> old */
        RB_NOT_REGULAR,         /* install: left, no longer a regular file */
        RB_FILE_RESTORED,       /* install: the file before idlecfg is back */
        RB_FILE_REMOVED,        /* install: there was none: removed */
        RB_FILE_CHANGED,        /* install: left, changed since idlecfg wrote it */
        RB_FILE_DELETED,        /* install: left, deleted since idlecfg wrote it */
        RB_WORDS_REMOVED,       /* install: a command line changed since: idlecfg's words (set) taken out */
};

struct rollback_entry {
        enum rollback_state state;
        char *path;             /* as shown: /sys/..., or the file in the root */
        char *cur, *set, *old;  /* apply: normalized values now, as idlecfg set it, before */
        int err;
};

struct rollback_result {
        struct rollback_entry *v;
        size_t n;
        size_t restored;        /* apply: the values restored */
        bool done;              /* everything is as it was before: the journal or manifest is gone */
        /* install: what the boot configuration got from idlecfg, for the
         * steps that take it out of the boot artifacts again */
        char *boot_words;       /* the kernel parameters idlecfg added, space-separated; NULL: none */
        char *kernel;           /* the kernel of the manifest */
        bool modprobe;          /* modprobe.d/idlecfg.conf was installed ... */
        struct timespec modprobe_time;  /* ... and last written then */
};
struct rollback_entry *rollback_add(struct rollback_result *r, enum rollback_state state, const char *path);
void rollback_result_free(struct rollback_result *r);

/* What a rollback took out of the files but the boot may still hold: the
 * kernel parameters idlecfg added (WORDS), whether modprobe.d/idlecfg.conf
 * was installed, for the kernel of the manifest. Kept in the state directory
 * after the manifest is gone, for verify ("left from before rollback"),
 * until a rollback finds nothing of it left or install runs again. Its
 * lines: "idlecfg-left 1", "kernel K", "words W...", "modprobe yes|no". */
#define LEFT_NOTE_PATH "/var/lib/idlecfg/left-by-rollback"
struct left_note {
        char *kernel;           /* NULL: not known */
        char *words;            /* NULL: none */
        bool modprobe;
};
/* 0, -ENOENT (none), -EINVAL (not such a note), other -errno */
int left_note_read(const struct rootfs *rfs, struct left_note *ret);
int left_note_write(const struct rootfs *rfs, const struct left_note *n);
/* remove the note; 0 if there was none */
int left_note_remove(const struct rootfs *rfs);
void left_note_done(struct left_note *n);

/* The note of /var and /var/lib that install made (a root without them),
 * PARENTS_NOTE_PATH in the root's /run: a rollback removes them after the
 * manifest that names them, a first install names them there before it
 * makes them. parents_note() writes it from M's directories (none: nothing),
 * parents_note_adopt() adds the ones it names to M (an install after one
 * that was killed before its manifest), parents_note_remove() removes it
 * and what a killed write of it left, parents_note_finish() removes the
 * parents it names once the state directory is gone, then the note. 0 or
 * -errno. */
#define PARENTS_NOTE_PATH "/run/idlecfg/rollback-parents"

/* The words install added to /etc/kernel/cmdline, kept beside it (not in
 * STATE_DIR): an install after the state was deleted takes them for its
 * own, not for the administrator's (as its files by their header). Its
 * lines: the header, "added W..." (the administrator's line before them)
 * or "made W..." (the file made from the vendor's line). Written by install
 * while the manifest names /etc/kernel/cmdline, removed by rollback
 * (engine/rollback.c). */
#define CMDLINE_NOTE_PATH "/etc/kernel/cmdline.idlecfg-words"
/* DIR is one of the two parents the note may name (/var, /var/lib) */
bool parents_note_is_parent(const char *dir);
int parents_note(const struct rootfs *rfs, const struct manifest *m);
int parents_note_adopt(const struct rootfs *rfs, struct manifest *m);
int parents_note_remove(const struct rootfs *rfs);
int parents_note_finish(const struct rootfs *rfs);
