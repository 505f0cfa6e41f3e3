/* state.c: idlecfg's state under /var/lib/idlecfg in a root: the manifest file, the backup store and their cleanup */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "journal.h"
#include "sha256.h"
#include "state.h"

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
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot read %s: %s"), shown, strerror(-r));
        return manifest_parse(shown, text, len, ret, ret_error);
}

int manifest_save(const struct rootfs *rfs, const struct manifest *m, struct xerror *ret_error)
{
        _cleanup_free_ char *text = manifest_format(m), *shown = rootfs_display(rfs, MANIFEST_PATH);
        int r = rootfs_write_atomic(rfs, MANIFEST_PATH, text, strlen(text), 0644, (uid_t) -1, (gid_t) -1);

        if (r < 0)
                return xerror_set(ret_error, r, _("cannot write %s: %s"), shown, strerror(-r));
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
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot save a backup to %s: %s"), shown, strerror(-r));
        return 0;
}

/* read a backup and check it is what the manifest says */
int read_backup(const struct rootfs *rfs, const char *sha, char **ret, size_t *ret_len, struct xerror *e)
{
        _cleanup_free_ char *bp = backup_path(sha), *shown = rootfs_display(rfs, bp), *data = NULL;
        char got[65];
        size_t len;
        int r = rootfs_read(rfs, bp, MAX_FILE, &data, &len, NULL);

        if (r < 0)
                return xerror_set(e, r, _("the backup %s cannot be read: %s"), shown, strerror(-r));
        sha_of(data, len, got);
        if (!streq(got, sha))
                return xerror_set(e, -EBADMSG, _("the backup %s is damaged (its checksum does not match)"), shown);
        *ret = TAKE_PTR(data);
        *ret_len = len;
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

/* idlecfg's state directory without a manifest or journal: remove what a crash left */
int state_cleanup(const struct rootfs *rfs)
{
        struct stat st;
        int r;

        if (rootfs_lstat(rfs, JOURNAL_PATH, &st) == 0)
                return 0;       /* the journal of apply is still there: not ours to remove */
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

#define MAX_JOURNAL (64u << 20)

int journal_load(const struct rootfs *rfs, struct journal **ret, struct xerror *ret_error)
{
        _cleanup_free_ char *text = NULL, *shown = rootfs_display(rfs, JOURNAL_PATH);
        size_t len;
        int r = rootfs_read(rfs, JOURNAL_PATH, MAX_JOURNAL, &text, &len, NULL);

        if (r == -ENOENT)
                return r;
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot read %s: %s"), shown, strerror(-r));
        return journal_parse(shown, text, len, ret, ret_error);
}

int journal_append(struct journal_file *jf, const char *line, struct xerror *ret_error)
{
        _cleanup_free_ char *shown = rootfs_display(jf->rfs, JOURNAL_PATH);
        size_t len = strlen(line);
        int r;

        if (jf->fd < 0) {
                struct stat st;
                r = rootfs_lstat(jf->rfs, JOURNAL_PATH, &st);
                if (r == -ENOENT || (r == 0 && st.st_size == 0)) {
                        _cleanup_free_ char *h = journal_header();
                        r = rootfs_mkdir_p(jf->rfs, STATE_DIR, NULL, NULL);
                        if (r >= 0)
                                r = rootfs_write_atomic(jf->rfs, JOURNAL_PATH, h, strlen(h), 0600, (uid_t) -1,
                                                        (gid_t) -1);
                }
                if (r < 0)
                        return xerror_set(ret_error, r, _("cannot create %s: %s"), shown, strerror(-r));
                jf->fd = rootfs_openat(jf->rfs, JOURNAL_PATH, O_WRONLY | O_APPEND | O_NOFOLLOW);
                if (jf->fd < 0)
                        return xerror_set(ret_error, jf->fd, _("cannot open %s: %s"), shown, strerror(-jf->fd));
        }
        r = fault_point("journal append");
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot write %s: %s"), shown, strerror(-r));
        for (size_t off = 0; off < len;) {
                ssize_t n = write(jf->fd, line + off, len - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return xerror_set(ret_error, -errno, _("cannot write %s: %s"), shown, strerror(errno));
                off += (size_t) n;
        }
        r = fault_point("journal fsync");
        if (r < 0 || fsync(jf->fd) < 0) {
                r = r < 0 ? r : -errno;
                return xerror_set(ret_error, r, _("cannot write %s: %s"), shown, strerror(-r));
        }
        return 0;
}

void journal_close(struct journal_file *jf)
{
        if (jf->fd >= 0)
                close(jf->fd);
        jf->fd = -1;
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

        if (r < 0)
                return xerror_set(ret_error, r, _("cannot remove %s: %s"), shown, strerror(-r));
        (void) rootfs_remove_temps(rfs, JOURNAL_PATH);
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
        *r = (struct rollback_result) {};
}
