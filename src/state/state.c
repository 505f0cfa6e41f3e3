/* state.c: idlecfg's state under /var/lib/idlecfg in a root: the manifest and journal files, the backup
 * store (and a file restored from it), rollback's result and the note it leaves, and their cleanup */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "base/fault.h"
#include "state/firstboot.h"
#include "state/initramfs.h"
#include "state/journal.h"
#include "state/measured.h"
#include "base/sha256.h"
#include "state/state.h"
#include "state/status.h"
#include "state/stepsdone.h"

#define MAX_FILE STATE_FILE_MAX

static void sha_of(const char *data, size_t len, char out[65])
{
        sha256_hex(data, len, 32, out);
}

int manifest_load(const struct rootfs *rfs, struct manifest **ret, struct xerror *ret_error)
{
        _cleanup_free_ char *text = NULL, *shown = rootfs_display(rfs, MANIFEST_PATH);
        size_t len;
        int r;

        r = rootfs_read(rfs, MANIFEST_PATH, MAX_FILE, &text, &len, NULL);
        if (r == -ENOENT)
                return r;
        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, MANIFEST_PATH, r, MAX_FILE);
                return xerror_set(ret_error, r, _("cannot read %s: %s"), shown, why);
        }
        r = manifest_parse(shown, text, len, ret, ret_error);
        if (r == 0 && (*ret)->format < 2)
                rootfs_warn(rfs, _("%s was written by an earlier idlecfg without an end record: it cannot prove "
                                   "that no line is missing; it is read as it is and rewritten with one by the "
                                   "next install, refresh or rollback"), shown);
        return r;
}

int state_look(const struct rootfs *rfs, const char *path, struct state_seen *ret, struct xerror *e)
{
        _cleanup_free_ char *shown = rootfs_display(rfs, path);
        bool link = manifest_path_is_link(path);
        int r;

        *ret = (struct state_seen) {};
        r = rootfs_lstat(rfs, path, &ret->st);
        if (r == -ENOENT || r == -ENOTDIR)
                return 0;
        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, path, r, MAX_FILE);
                return xerror_set(e, r, _("cannot look at %s: %s"), shown, why);
        }
        ret->exists = true;
        if (link ? !S_ISLNK(ret->st.st_mode) : !S_ISREG(ret->st.st_mode)) {
                ret->other_type = true;
                return 0;
        }
        r = link ? rootfs_readlink(rfs, path, &ret->content) : rootfs_read(rfs, path, MAX_FILE, &ret->content, &ret->len, NULL);
        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, path, r, MAX_FILE);
                return xerror_set(e, r, _("cannot read %s: %s"), shown, why);
        }
        if (link)
                ret->len = strlen(ret->content);
        sha_of(ret->content, ret->len, ret->sha);
        return 0;
}

void state_seen_done(struct state_seen *s)
{
        free(s->content);
        s->content = NULL;
}

/* the file at PATH is as it was before idlecfg (MF's record of it) */
static bool as_before(const struct manifest_file *mf, bool exists, const char *sha)
{
        return exists ? mf->prev_exists && streq(sha, mf->prev_sha) : !mf->prev_exists;
}

int state_recover(const struct rootfs *rfs, struct manifest *m, bool dry_run, struct xerror *e)
{
        bool changed = m && m->format < 2;
        int r = 0;

        /* (the journal's temporary files are apply's and rollback's to remove:
         * apply --root DIR journals into / under DIR's lock) */
        if (!dry_run)
                r = rootfs_remove_temps(rfs, MANIFEST_PATH);
        if (r < 0)
                return xerror_set(e, r, _("cannot clean up %s: %s"), STATE_DIR, strerror(-r));
        if (!m) {
                /* no manifest yet: a first install killed before it; no backup is needed */
                struct manifest none = {};
                if (!dry_run)
                        (void) gc_backups(rfs, &none);
                return 0;
        }
        for (size_t i = m->n_files; i-- > 0;) {
                struct manifest_file *mf = &m->files[i];
                _cleanup_free_ char *shown = rootfs_display(rfs, mf->path);
                _cleanup_(state_seen_done) struct state_seen now = {};

                r = dry_run ? 0 : rootfs_remove_temps(rfs, mf->path);
                if (r < 0 && r != -ENOENT && r != -ENOTDIR)
                        return xerror_set(e, r, _("cannot remove temporary files beside %s: %s"), shown,
                                          strerror(-r));
                if (!mf->pending)
                        continue;
                changed = true;
                mf->pending = false;
                r = state_look(rfs, mf->path, &now, e);
                if (r < 0)
                        return r;
                if (now.other_type)
                        continue;       /* not idlecfg's: the rules for a changed file apply */
                if (now.exists && streq(now.sha, mf->sha))
                        continue;       /* the write was done */
                if (now.exists && mf->pending_was_ours && streq(now.sha, mf->pending_sha))
                        memcpy(mf->sha, mf->pending_sha, 65);   /* not done: still idlecfg's earlier file */
                else if (as_before(mf, now.exists, now.sha))
                        manifest_remove_file(m, mf->path);      /* not done, or a restore done */
        }
        if (dry_run)
                return 0;
        (void) gc_backups(rfs, m);
        return changed ? manifest_save(rfs, m, e) : 0;
}

int manifest_save(const struct rootfs *rfs, const struct manifest *m, struct xerror *ret_error)
{
        _cleanup_free_ char *text = manifest_format(m), *shown = rootfs_display(rfs, MANIFEST_PATH);
        int r = rootfs_write_atomic(rfs, MANIFEST_PATH, text, strlen(text), 0644, (uid_t) -1, (gid_t) -1);

        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, MANIFEST_PATH, r, MAX_FILE);
                return xerror_set(ret_error, r, _("cannot write %s: %s"), shown, why);
        }
        return 0;
}

char *backup_path(const char *sha)
{
        return xasprintf(BACKUP_DIR "/%s", sha);
}

int save_backup(const struct rootfs *rfs, const char *data, size_t len, const char *sha, struct xerror *ret_error)
{
        _cleanup_free_ char *bp = backup_path(sha), *shown = rootfs_display(rfs, bp), *have = NULL;
        char have_sha[65];
        size_t have_len;
        int r;

        /* content-addressed: an intact copy is already there */
        if (rootfs_read(rfs, bp, MAX_FILE, &have, &have_len, NULL) == 0) {
                sha_of(have, have_len, have_sha);
                if (streq(have_sha, sha))
                        return 0;
        }
        r = rootfs_write_atomic(rfs, bp, data, len, 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, bp, r, MAX_FILE);
                return xerror_set(ret_error, r, _("cannot save a backup to %s: %s"), shown, why);
        }
        return 0;
}

/* read a backup and check it is what the manifest says */
int read_backup(const struct rootfs *rfs, const char *sha, char **ret, size_t *ret_len, struct xerror *e)
{
        _cleanup_free_ char *bp = backup_path(sha), *shown = rootfs_display(rfs, bp), *data = NULL;
        char got[65];
        size_t len;
        int r = rootfs_read(rfs, bp, MAX_FILE, &data, &len, NULL);

        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, bp, r, MAX_FILE);
                return xerror_set(e, r, _("the backup %s cannot be read: %s"), shown, why);
        }
        sha_of(data, len, got);
        if (!streq(got, sha))
                return xerror_set(e, -EBADMSG, _("the backup %s is damaged (its checksum does not match)"), shown);
        *ret = TAKE_PTR(data);
        *ret_len = len;
        return 0;
}

/* put PATH back as the manifest entry says it was before idlecfg: its backup, or no file */
int rollback_restore_file(const struct rootfs *rfs, const struct manifest_file *mf, struct xerror *e)
{
        _cleanup_free_ char *shown = rootfs_display(rfs, mf->path);
        int r;

        if (mf->prev_exists) {
                _cleanup_free_ char *data = NULL;
                size_t len;
                r = read_backup(rfs, mf->prev_sha, &data, &len, e);
                if (r < 0)
                        return r;
                r = rootfs_write_atomic(rfs, mf->path, data, len, mf->prev_mode, mf->prev_uid, mf->prev_gid);
        } else if (S_ISLNK(mf->mode))
                r = rootfs_unlink_symlink(rfs, mf->path);
        else
                r = rootfs_unlink(rfs, mf->path);
        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, mf->path, r, MAX_FILE);
                return xerror_set(e, r, _("cannot restore %s: %s"), shown, why);
        }
        r = rootfs_remove_temps(rfs, mf->path);
        if (r < 0)
                return xerror_set(e, r, _("cannot remove temporary files beside %s: %s"), shown, strerror(-r));
        return 0;
}

/* remove backups no manifest entry needs any more */
int gc_backups(const struct rootfs *rfs, const struct manifest *m)
{
        int dfd = rootfs_openat(rfs, BACKUP_DIR, O_RDONLY | O_DIRECTORY);
        DIR *d;
        struct dirent *de;

        if (dfd < 0)
                return dfd == -ENOENT ? 0 : dfd;
        d = fdopendir(dfd);
        if (!d) {
                close(dfd);
                return -errno;
        }
        while ((de = readdir(d))) {
                bool used = false;
                if (de->d_name[0] == '.' && !startswith(de->d_name, ".#"))
                        continue;
                for (size_t i = 0; i < m->n_files && !used; i++)
                        used = m->files[i].prev_exists && streq(m->files[i].prev_sha, de->d_name);
                if (!used && fault_point("remove backup") == 0)
                        (void) unlinkat(dirfd(d), de->d_name, 0);
        }
        closedir(d);
        return 0;
}

/* idlecfg's state directory without a manifest: the cache and stamp, then (without a journal) what a crash left */
int state_cleanup(const struct rootfs *rfs)
{
        static const char *const install_only[] = { INITRAMFS_CACHE_PATH, FIRSTBOOT_STAMP_PATH, STATUS_PATH,
                                                    STEPS_DONE_PATH };
        struct stat st;
        int r;

        /* what only an install needs: the listing of the initramfs, the
         * first-boot unit's stamp, the status file, the steps done by hand (an install run again
         * makes them again; with a journal of apply, the run writes the status anew) */
        for (size_t i = 0; i < ELEMENTSOF(install_only); i++) {
                r = rootfs_unlink(rfs, install_only[i]);
                if (r == -ELOOP || r == -EISDIR || r == -EBADFD) {
                        /* not idlecfg's (it writes regular files only): named, left */
                        _cleanup_free_ char *shown = rootfs_display(rfs, install_only[i]);
                        _cleanup_free_ char *why = rootfs_why(rfs, install_only[i], r, 0);
                        rootfs_warn(rfs, _("%s: %s; idlecfg did not write it and leaves it in place: remove it by "
                                           "hand"), shown, why);
                        continue;
                }
                if (r < 0)
                        return r;
                r = rootfs_remove_temps(rfs, install_only[i]);
                if (r < 0)
                        return r;
        }
        if (rootfs_lstat(rfs, JOURNAL_PATH, &st) == 0)
                return 0;       /* the journal of apply is still there: not ours to remove */
        r = measured_remove(rfs);       /* apply --measure's, of settings no journal holds any more */
        if (r < 0)
                return r;
        r = rootfs_remove_dir_files(rfs, BACKUP_DIR);
        if (r < 0)
                return r;
        r = rootfs_remove_temps(rfs, MANIFEST_PATH);
        if (r < 0)
                return r;
        r = rootfs_remove_temps(rfs, JOURNAL_PATH);
        if (r < 0)
                return r;
        r = rootfs_rmdir(rfs, STATE_DIR);
        return r == -ENOTEMPTY ? 0 : r;
}

/* ---- the journal file of apply (its format: journal.c) ---- */

int state_live_root(const struct rootfs *rfs, struct rootfs *ret, bool *ret_same)
{
        const char *live = secure_getenv("IDLECFG_TEST_LIVE_ROOT");
        struct stat a, b;
        int r;

        *ret_same = false;
        if (!live || !*live) {
                /* under umockdev, the running system is the testbed's mock: its
                 * root is the one the test gave, never the host's /var/lib */
                if (getenv("UMOCKDEV_DIR")) {
                        *ret_same = true;
                        return 0;
                }
                live = "/";
        }
        if (stat(live, &a) == 0 && fstat(rfs->fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
                *ret_same = true;
                return 0;
        }
        r = rootfs_open(live, ret);
        return r < 0 ? r : 0;
}


#define MAX_JOURNAL (64u << 20)

int journal_load(const struct rootfs *rfs, struct journal **ret, struct xerror *ret_error)
{
        _cleanup_free_ char *text = NULL, *shown = rootfs_display(rfs, JOURNAL_PATH);
        size_t len;
        int r = rootfs_read(rfs, JOURNAL_PATH, MAX_JOURNAL, &text, &len, NULL);

        if (r == -ENOENT)
                return r;
        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, JOURNAL_PATH, r, MAX_JOURNAL);
                return xerror_set(ret_error, r, _("cannot read %s: %s"), shown, why);
        }
        r = journal_parse(shown, text, len, ret, ret_error);
        if (r == 0 && (*ret)->format < 2)
                rootfs_warn(rfs, _("%s was written by an earlier idlecfg without an end record: it cannot prove "
                                   "that no line is missing; it is read as it is and rewritten with one by the "
                                   "next apply"), shown);
        return r;
}

int journal_commit(const struct rootfs *rfs, const char *text, struct xerror *ret_error)
{
        _cleanup_free_ char *shown = rootfs_display(rfs, JOURNAL_PATH);
        int r = rootfs_mkdir_p(rfs, STATE_DIR, NULL, NULL);

        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, JOURNAL_PATH, r, MAX_JOURNAL);
                return xerror_set(ret_error, r, _("cannot create %s: %s"), shown, why);
        }
        r = rootfs_write_atomic(rfs, JOURNAL_PATH, text, strlen(text), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, JOURNAL_PATH, r, MAX_JOURNAL);
                return xerror_set(ret_error, r, _("cannot write %s: %s"), shown, why);
        }
        return 0;
}

int journal_remove_temps(const struct rootfs *rfs, struct xerror *ret_error)
{
        int r = rootfs_remove_temps(rfs, JOURNAL_PATH);

        return r < 0 ? xerror_set(ret_error, r, _("cannot clean up %s: %s"), STATE_DIR, strerror(-r)) : 0;
}

int journal_remove(const struct rootfs *rfs, struct xerror *ret_error)
{
        _cleanup_free_ char *shown = rootfs_display(rfs, JOURNAL_PATH);
        int r = rootfs_unlink(rfs, JOURNAL_PATH);

        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, JOURNAL_PATH, r, MAX_JOURNAL);
                return xerror_set(ret_error, r, _("cannot remove %s: %s"), shown, why);
        }
        (void) rootfs_remove_temps(rfs, JOURNAL_PATH);
        /* what apply --measure found is of settings that are undone now */
        (void) measured_remove(rfs);
        return 0;
}

struct rollback_entry *rollback_add(struct rollback_result *r, enum rollback_state state, const char *path)
{
        r->v = xrealloc(r->v, (r->n + 1) * sizeof(*r->v));
        r->v[r->n] = (struct rollback_entry) { .state = state, .path = xstrdup(path) };
        return &r->v[r->n++];
}

void rollback_result_free(struct rollback_result *r)
{
        for (size_t i = 0; i < r->n; i++) {
                free(r->v[i].path);
                free(r->v[i].cur);
                free(r->v[i].set);
                free(r->v[i].old);
        }
        free(r->v);
        free(r->boot_words);
        free(r->kernel);
        *r = (struct rollback_result) {};
}

/* ---- the note of what a rollback left in the boot ---- */

#define LEFT_NOTE_MAX 65536u
#define LEFT_NOTE_HEADER "idlecfg-left 1\n"

void left_note_done(struct left_note *n)
{
        free(n->kernel);
        free(n->words);
        *n = (struct left_note) {};
}

int left_note_read(const struct rootfs *rfs, struct left_note *ret)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r;

        *ret = (struct left_note) {};
        r = rootfs_read(rfs, LEFT_NOTE_PATH, LEFT_NOTE_MAX, &text, &len, NULL);
        if (r < 0)
                return r == -ENOTDIR ? -ENOENT : r;
        if (memchr(text, 0, len) || !startswith(text, LEFT_NOTE_HEADER))
                return -EINVAL;
        for (char *save = NULL, *l = strtok_r(text + strlen(LEFT_NOTE_HEADER), "\n", &save); l;
             l = strtok_r(NULL, "\n", &save)) {
                if (startswith(l, "kernel ") && l[7]) {
                        free(ret->kernel);
                        ret->kernel = xstrdup(l + 7);
                } else if (startswith(l, "words ") && l[6]) {
                        free(ret->words);
                        ret->words = xstrdup(l + 6);
                } else if (streq(l, "modprobe yes"))
                        ret->modprobe = true;
        }
        return 0;
}

int left_note_write(const struct rootfs *rfs, const struct left_note *n)
{
        _cleanup_free_ char *text = NULL;
        struct stat st;
        int r;

        if ((n->kernel && strchr(n->kernel, '\n')) || (n->words && strchr(n->words, '\n')))
                return -EINVAL;
        /* in the state directory, made again only under a /var/lib the root has */
        if (rootfs_lstat(rfs, STATE_DIR, &st) < 0) {
                if (rootfs_lstat(rfs, "/var/lib", &st) < 0)
                        return -ENOENT;
                r = rootfs_mkdir_p(rfs, STATE_DIR, NULL, NULL);
                if (r < 0)
                        return r;
        }
        text = xasprintf(LEFT_NOTE_HEADER "%s%s%s%s%s%smodprobe %s\n", n->kernel ? "kernel " : "",
                         n->kernel ? n->kernel : "", n->kernel ? "\n" : "", n->words ? "words " : "",
                         n->words ? n->words : "", n->words ? "\n" : "", n->modprobe ? "yes" : "no");
        return rootfs_write_atomic(rfs, LEFT_NOTE_PATH, text, strlen(text), 0644, (uid_t) -1, (gid_t) -1);
}

int left_note_remove(const struct rootfs *rfs)
{
        int r = rootfs_unlink(rfs, LEFT_NOTE_PATH);

        if (r == -ENOENT || r == -ENOTDIR)
                r = 0;
        /* and what a write of it that was killed left beside it */
        if (r == 0)
                r = rootfs_remove_temps(rfs, LEFT_NOTE_PATH);
        return r == -ENOENT || r == -ENOTDIR ? 0 : r;
}

/* /var and /var/lib when install made them (a root that had none): they go
 * after the manifest that names them, so a note in the root's /run says
 * which while the last steps of a rollback remove them; a rollback killed
 * there is finished by the next one, which finds the note and no manifest.
 * A first install writes the note before it makes them (before there is a
 * manifest to name them) and removes it once its manifest does. */
bool parents_note_is_parent(const char *dir)
{
        return streq(dir, "/var/lib") || streq(dir, "/var");
}

int parents_note(const struct rootfs *rfs, const struct manifest *m)
{
        struct strbuf sb = {};
        int r;

        /* deepest first */
        for (size_t i = m->n_dirs; i-- > 0;)
                if (parents_note_is_parent(m->dirs[i]))
                        sb_appendf(&sb, "%s\n", m->dirs[i]);
        if (sb.len == 0)
                return 0;
        r = rootfs_mkdir_p(rfs, "/run/idlecfg", NULL, NULL);
        if (r >= 0)
                r = rootfs_write_atomic(rfs, PARENTS_NOTE_PATH, sb.s, sb.len, 0644, (uid_t) -1, (gid_t) -1);
        sb_free(&sb);
        return r;
}

int parents_note_adopt(const struct rootfs *rfs, struct manifest *m)
{
        _cleanup_free_ char *text = NULL;
        int r = rootfs_read(rfs, PARENTS_NOTE_PATH, 4096, &text, NULL, NULL);

        if (r == -ENOENT || r == -ENOTDIR)
                return 0;
        if (r < 0)
                return r;
        /* outermost first, as install makes them; these two only, whatever else the file says */
        if (strstr(text, "/var\n") && !manifest_has_dir(m, "/var"))
                manifest_add_dir(m, "/var");
        if (strstr(text, "/var/lib\n") && !manifest_has_dir(m, "/var/lib"))
                manifest_add_dir(m, "/var/lib");
        return 0;
}

int parents_note_remove(const struct rootfs *rfs)
{
        int r = rootfs_unlink(rfs, PARENTS_NOTE_PATH);

        if (r < 0 && r != -ENOENT && r != -ENOTDIR)
                return r;
        /* and what a write of it that was killed left beside it */
        r = rootfs_remove_temps(rfs, PARENTS_NOTE_PATH);
        if (r < 0)
                return r;
        r = rootfs_rmdir(rfs, "/run/idlecfg");
        return r == -ENOTEMPTY || r == -ENOENT || r == -ENOTDIR ? 0 : r;
}

int parents_note_finish(const struct rootfs *rfs)
{
        _cleanup_free_ char *text = NULL;
        struct stat st;
        char *save = NULL;
        int r;

        if (rootfs_lstat(rfs, STATE_DIR, &st) == 0)
                return 0;       /* the journal of apply keeps it: the note waits */
        r = rootfs_read(rfs, PARENTS_NOTE_PATH, 4096, &text, NULL, NULL);
        if (r < 0 && r != -ENOENT && r != -ENOTDIR)
                return r;
        for (char *l = r < 0 ? NULL : strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
                /* these two only, whatever else the file says; gone already (a
                 * killed install noted them before it made them): done */
                if (parents_note_is_parent(l)) {
                        r = rootfs_rmdir(rfs, l);
                        if (r < 0 && r != -ENOTEMPTY && r != -ENOENT)
                                return r;
                }
        return parents_note_remove(rfs);
}
