/* rollback.c: undo install: every file of the manifest back as it was
 * before idlecfg, the directories install made removed, then the manifest
 * and backups (state.c) */
#include "config.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "base/sha256.h"
#include "engine/rollback.h"
#include "engine/next-steps.h"
#include "root/targets.h"
#include "state/manifest.h"
#include "state/state.h"

#define MAX_FILE STATE_FILE_MAX

/* CUR without the words V[i] that MASK chooses, every other byte kept
 * (tabs, CRLF, no line end): each word goes with the blanks before it, or
 * after it where it is the first of the line */
static char *words_cut(const char *cur, char *const *v, size_t n, unsigned long mask)
{
        struct strbuf out = {};
        bool first = true;

        for (const char *p = cur; *p;) {
                size_t gap = strspn(p, " \t"), k = strcspn(p + gap, " \t\r\n");
                const char *w = p + gap;
                bool ours = false;

                for (size_t i = 0; i < n && k && !ours; i++)
                        ours = (mask & (1ul << i)) && strlen(v[i]) == k && strncmp(w, v[i], k) == 0;
                if (ours && first) {
                        sb_appendn(&out, p, gap);
                        p = w + k + strspn(w + k, " \t");
                } else if (ours)
                        p = w + k;
                else if (k) {
                        sb_appendn(&out, p, gap + k);
                        p = w + k;
                        first = false;
                } else {
                        /* a line end (or the blanks at the end) */
                        sb_appendn(&out, p, gap + (w[0] != '\0'));
                        first = first || w[0] == '\n';
                        p = w + (w[0] != '\0');
                }
        }
        return out.len ? sb_steal(&out) : xstrdup("");
}

/* A command line (/etc/kernel/cmdline) the administrator changed since
 * install: which of its words were idlecfg's? install wrote BASE (the line
 * before it, or the vendor's it made the file from), a blank, its words and
 * the line end END, in order: the words of CUR beyond BASE's whose line has
 * the manifest's checksum. 0 with *RET (CUR without them, its other bytes as
 * they are) and *RET_WORDS, -ESRCH when no choice gives the checksum (the
 * line before is not known, too many words: the file is left alone). */
static int words_undo(const char *base, const char *end, const char *cur, const char *sha, char **ret,
                      char **ret_words)
{
        _cleanup_free_ char *b = xstrdup(base), *c = xstrdup(cur), *extra = NULL;
        char *v[16];
        size_t n = 0;

        strstrip(b);
        for (char *p = c; *p; p++)
                if (*p == '\r' || *p == '\n')
                        *p = ' ';       /* words_missing() splits at blanks */
        extra = words_missing(b, c);
        for (char *save = NULL, *w = strtok_r(extra, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
                if (n == ELEMENTSOF(v))
                        return -ESRCH;
                v[n++] = w;
        }
        for (unsigned long mask = 1; n && mask < (1ul << n); mask++) {
                struct strbuf add = {};
                _cleanup_free_ char *ours = NULL;
                char s[65];

                for (size_t i = 0; i < n; i++)
                        if (mask & (1ul << i))
                                sb_appendf(&add, "%s%s", add.len ? " " : "", v[i]);
                ours = xasprintf("%s%s%s%s", b, *b ? " " : "", sb_str(&add), end);
                sha256_hex(ours, strlen(ours), 32, s);
                if (!streq(s, sha)) {
                        sb_free(&add);
                        continue;
                }
                *ret = words_cut(cur, v, n, mask);
                *ret_words = sb_steal(&add);
                return 0;
        }
        return -ESRCH;
}

/* the kernel parameters in TEXT, a command-line file of PATH: the GRUB
 * snippet's after ${GRUB_CMDLINE_LINUX_DEFAULT}, the kargs.d file's quoted
 * strings, the words of the others */
static char *cmdline_file_words(const char *path, const char *text)
{
        struct strbuf sb = {};

        if (streq(path, GRUB_SNIPPET_PATH)) {
                const char *p = strstr(text, "${GRUB_CMDLINE_LINUX_DEFAULT} "), *end;
                if (!p)
                        return xstrdup("");
                p += strlen("${GRUB_CMDLINE_LINUX_DEFAULT} ");
                end = strchr(p, '"');
                return end ? xstrndup(p, (size_t) (end - p)) : xstrdup("");
        }
        if (streq(path, BOOTC_KARGS_PATH)) {
                const char *p = strstr(text, "kargs = [");
                for (p = p ? strchr(p, '"') : NULL; p; p = strchr(p, '"')) {
                        const char *end = strchr(p + 1, '"');
                        if (!end)
                                break;
                        sb_appendf(&sb, "%s%.*s", sb.len ? " " : "", (int) (end - p - 1), p + 1);
                        p = end + 1;
                }
                return sb.len ? sb_steal(&sb) : xstrdup("");
        }
        /* the words of the line(s), newlines as blanks (words_missing() splits at blanks) */
        for (const char *p = text; *p; p++)
                sb_putc(&sb, *p == '\n' || *p == '\r' ? ' ' : *p);
        return sb.len ? sb_steal(&sb) : xstrdup("");
}

/* the line install added its words to (MF: the command line file's entry):
 * the file before idlecfg (its backup), or where install made the file,
 * the vendor's line it was made from (empty without one). 0 or -errno. */
static int cmdline_base(const struct rootfs *rfs, const struct manifest_file *mf, char **ret)
{
        struct xerror e = {};
        size_t len = 0;
        int r;

        if (mf->prev_exists) {
                r = read_backup(rfs, mf->prev_sha, ret, &len, &e);
                xerror_done(&e);
                return r;
        }
        if (!streq(mf->path, KERNEL_CMDLINE_PATH)) {
                *ret = xstrdup("");
                return 0;
        }
        r = rootfs_read_file(rfs, USR_KERNEL_CMDLINE_PATH, 0, KERNEL_CMDLINE_MAX, ret, &len, NULL);
        if (r == -ENOENT) {
                *ret = xstrdup("");
                r = 0;
        }
        return r;
}

char *install_own_words(const struct rootfs *rfs, const struct manifest *m)
{
        const struct manifest_file *mf = m && m->cmdline_target ? manifest_find(m, m->cmdline_target) : NULL;
        _cleanup_free_ char *cur = NULL, *prev = NULL, *cw = NULL, *pw = NULL, *text = NULL;
        char *words = NULL;
        char s[65];
        size_t len = 0;

        if (!(m && manifest_find(m, KERNEL_CMDLINE_PATH))) {
                /* the state lost since: the words the note beside /etc/kernel/cmdline names */
                bool made = false;
                if (cmdline_note_read(rfs, &made, &words) == 0 && *words)
                        return words;
                free(words);
                if (!mf)
                        return NULL;
                words = NULL;
        }
        if (!mf || rootfs_read(rfs, mf->path, MAX_FILE, &cur, &len, NULL) < 0 || cmdline_base(rfs, mf, &prev) < 0)
                return NULL;
        sha256_hex(cur, len, 32, s);
        /* changed since: the administrator's words told apart where they can be */
        if (!streq(s, mf->sha) && streq(mf->path, KERNEL_CMDLINE_PATH) &&
            words_undo(prev, mf->prev_exists ? cmdline_line_end(prev, strlen(prev)) : "\n", cur, mf->sha, &text,
                       &words) == 0)
                return words;
        cw = cmdline_file_words(mf->path, cur);
        pw = cmdline_file_words(mf->path, prev);
        words = words_missing(pw, cw);
        if (!*words) {
                free(words);
                return NULL;
        }
        return words;
}

char *cmdline_words_cut(const char *cur, const char *words)
{
        _cleanup_free_ char *w = xstrdup(words);
        char *v[64];
        size_t n = 0;

        for (char *save = NULL, *x = strtok_r(w, " \t", &save); x && n < ELEMENTSOF(v); x = strtok_r(NULL, " \t", &save))
                v[n++] = x;
        return words_cut(cur, v, n, n ? (n == 64 ? ~0ul : (1ul << n) - 1) : 0);
}

int cmdline_note_read(const struct rootfs *rfs, bool *ret_made, char **ret_words)
{
        static const char head[] = "# Generated by " PACKAGE_NAME " ";
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = rootfs_read_file(rfs, CMDLINE_NOTE_PATH, ROOTFS_NOFOLLOW, KERNEL_CMDLINE_MAX, &text, &len, NULL);

        if (r < 0)
                return -ENOENT;
        if (memchr(text, '\0', len) || !startswith(text, head))
                return -ENOENT;         /* not idlecfg's */
        for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                bool made = startswith(l, "made ");
                if (!made && !startswith(l, "added "))
                        continue;
                *ret_made = made;
                *ret_words = xstrdup(strstrip(l + strlen(made ? "made " : "added ")));
                return 0;
        }
        return -ENOENT;
}

/* what the boot configuration got from this install (RES), before rollback
 * takes the files back: the words idlecfg's command-line file has beyond
 * what was there before it, and when modprobe.d/idlecfg.conf was written */
static void note_boot(const struct rootfs *rfs, const struct manifest *m, struct rollback_result *res)
{
        const struct manifest_file *mf;
        struct stat st;

        res->kernel = m->kernel ? xstrdup(m->kernel) : NULL;
        if (manifest_find(m, MODPROBE_PATH) && rootfs_lstat(rfs, MODPROBE_PATH, &st) == 0) {
                res->modprobe = true;
                res->modprobe_time = st.st_mtim;
        }
        if (m->cmdline_target && (mf = manifest_find(m, m->cmdline_target))) {
                _cleanup_free_ char *cur = NULL, *prev = NULL, *cw = NULL, *pw = NULL;
                size_t len = 0;

                if (rootfs_read(rfs, mf->path, MAX_FILE, &cur, &len, NULL) < 0)
                        return;
                if (cmdline_base(rfs, mf, &prev) < 0)
                        return;
                cw = cmdline_file_words(mf->path, cur);
                pw = cmdline_file_words(mf->path, prev);
                free(res->boot_words);
                res->boot_words = words_missing(pw, cw);
                if (!*res->boot_words) {
                        free(res->boot_words);
                        res->boot_words = NULL;
                }
        }
        if (m->dropped_words) {
                /* an earlier profile's words the boot entries still held at the last install */
                _cleanup_free_ char *more = words_missing(strempty(res->boot_words), m->dropped_words);
                if (*more) {
                        char *both = xasprintf("%s%s%s", strempty(res->boot_words), res->boot_words ? " " : "",
                                               more);
                        free(res->boot_words);
                        res->boot_words = both;
                }
        }
}

/* the administrator's /etc/kernel/cmdline (CUR, ST) with idlecfg's words
 * taken out and theirs kept: 1 done, 0 not (its words cannot be told
 * apart: left alone as any changed file), <0 a write failed */
static int words_undo_file(const struct rootfs *rfs, struct manifest *m, struct manifest_file *mf, const char *cur,
                           const struct stat *st, struct rollback_result *res, const char *shown,
                           struct xerror *ret_error)
{
        _cleanup_free_ char *base = NULL, *text = NULL, *words = NULL;
        char s[65];
        int r;

        if (memchr(cur, '\n', strlen(cur)) != strrchr(cur, '\n'))
                return 0;       /* no longer one line */
        r = cmdline_base(rfs, mf, &base);
        /* install kept the line end of a file that was there; one it made ends in a newline */
        if (r < 0 || words_undo(base, mf->prev_exists ? cmdline_line_end(base, strlen(base)) : "\n", cur, mf->sha,
                                &text, &words) < 0)
                return 0;
        /* the words the boot artifacts may still hold, kept first: a rollback
         * killed past this point finds them in the note */
        r = left_note_write(rfs, &(struct left_note) { .kernel = res->kernel, .words = words });
        if (r < 0 && r != -ENOENT)
                return xerror_set(ret_error, r, _("cannot write %s: %s"), LEFT_NOTE_PATH, strerror(-r));
        /* the entry becomes "CUR replaced TEXT" before the file is written: a
         * rollback killed at any point after finds the file as the entry
         * says it is, or as it was before, and finishes */
        sha256_hex(text, strlen(text), 32, s);
        r = save_backup(rfs, text, strlen(text), s, ret_error);
        if (r < 0)
                return r;
        sha256_hex(cur, strlen(cur), 32, mf->sha);
        mf->mode = st->st_mode & 07777;
        mf->prev_exists = true;
        memcpy(mf->prev_sha, s, sizeof(s));
        mf->prev_mode = st->st_mode & 07777;
        mf->prev_uid = st->st_uid;
        mf->prev_gid = st->st_gid;
        r = manifest_save(rfs, m, ret_error);
        if (r < 0)
                return r;
        r = rollback_restore_file(rfs, mf, ret_error);
        if (r < 0)
                return r;
        /* the words the boot artifacts may still hold: these, not the administrator's */
        free(res->boot_words);
        res->boot_words = xstrdup(words);
        rollback_add(res, RB_WORDS_REMOVED, shown)->set = TAKE_PTR(words);
        return 1;
}

int install_rollback(const struct rootfs *rfs, bool force, struct rollback_result *res, struct xerror *ret_error)
{
        _cleanup_(manifest_freep) struct manifest *m = NULL;
        _cleanup_free_ char *mshown = rootfs_display(rfs, MANIFEST_PATH);
        size_t left = 0;
        int r;

        r = manifest_load(rfs, &m, ret_error);
        if (r == -ENOENT) {
                struct left_note note = {};
                /* an earlier rollback's note: gone once nothing of it is left */
                r = boot_left_note(rfs, NULL, false, NULL);
                if (r < 0)
                        return xerror_set(ret_error, r, _("cannot remove %s: %s"), LEFT_NOTE_PATH, strerror(-r));
                /* kept: its words, for the steps that take them out (said until they ran) */
                if (left_note_read(rfs, &note) == 0) {
                        res->boot_words = TAKE_PTR(note.words);
                        res->kernel = TAKE_PTR(note.kernel);
                }
                left_note_done(&note);
                r = state_cleanup(rfs);
                if (r >= 0)
                        r = parents_note_finish(rfs);
                if (r < 0)
                        return xerror_set(ret_error, r, _("cannot clean up %s: %s"), STATE_DIR, strerror(-r));
                return 1;
        }
        if (r < 0)
                return r;
        r = state_recover(rfs, m, false, ret_error);
        if (r < 0)
                return r;
        note_boot(rfs, m, res);
        if (!res->boot_words) {
                /* a word-by-word undo that was cut short kept its words here first */
                struct left_note note = {};
                if (left_note_read(rfs, &note) == 0 && note.words)
                        res->boot_words = TAKE_PTR(note.words);
                left_note_done(&note);
        }
        for (size_t i = m->n_files; i-- > 0;) {
                struct manifest_file *mf = &m->files[i];
                _cleanup_free_ char *shown = rootfs_display(rfs, mf->path);
                _cleanup_(state_seen_done) struct state_seen now = {};
                const char *sha = now.sha;
                bool exists;

                r = state_look(rfs, mf->path, &now, ret_error);
                if (r < 0)
                        return r;
                exists = now.exists;
                if (now.other_type) {
                        rollback_add(res, RB_NOT_REGULAR, shown);
                        left++;
                        continue;
                }
                if (exists ? (mf->prev_exists && streq(sha, mf->prev_sha) && !streq(sha, mf->sha)) : !mf->prev_exists) {
                        /* already as it was (a crash before our write, or an earlier rollback) */
                        r = rootfs_remove_temps(rfs, mf->path);
                        if (r < 0)
                                return xerror_set(ret_error, r, _("cannot remove temporary files beside %s: %s"),
                                                  shown, strerror(-r));
                } else if ((exists && streq(sha, mf->sha)) || force) {
                        r = rollback_restore_file(rfs, mf, ret_error);
                        if (r < 0)
                                return r;
                        rollback_add(res, mf->prev_exists ? RB_FILE_RESTORED : RB_FILE_REMOVED, shown);
                } else if (exists && streq(mf->path, KERNEL_CMDLINE_PATH) &&
                           (r = words_undo_file(rfs, m, mf, now.content, &now.st, res, shown, ret_error)) != 0) {
                        if (r < 0)
                                return r;
                } else {
                        rollback_add(res, exists ? RB_FILE_CHANGED : RB_FILE_DELETED, shown);
                        left++;
                        continue;
                }
                /* the note of idlecfg's words in /etc/kernel/cmdline goes before its entry */
                r = streq(mf->path, KERNEL_CMDLINE_PATH) ? rootfs_unlink(rfs, CMDLINE_NOTE_PATH) : 0;
                if (r < 0 && r != -ENOENT && r != -ENOTDIR)
                        return xerror_set(ret_error, r, _("cannot remove %s: %s"), CMDLINE_NOTE_PATH, strerror(-r));
                manifest_remove_file(m, mf->path);
                r = manifest_save(rfs, m, ret_error);
                if (r < 0)
                        return r;
        }
        if (left > 0)
                return xerror_set(ret_error, -EBUSY, P_("%zu file was left alone; %s keeps it for a later rollback",
                                                          "%zu files were left alone; %s keeps them for a later rollback",
                                                          left), left, mshown);
        /* every file is as before: the directories install made, then the state */
        for (size_t i = m->n_dirs; i-- > 0;) {
                if (startswith(m->dirs[i], STATE_DIR) || parents_note_is_parent(m->dirs[i]))
                        continue;
                r = rootfs_rmdir(rfs, m->dirs[i]);
                if (r < 0 && r != -ENOTEMPTY)
                        return xerror_set(ret_error, r, _("cannot remove the directory %s: %s"), m->dirs[i],
                                          strerror(-r));
        }
        r = parents_note(rfs, m);
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot write %s: %s"), PARENTS_NOTE_PATH, strerror(-r));
        r = rootfs_unlink(rfs, MANIFEST_PATH);
        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, MANIFEST_PATH, r, MAX_FILE);
                return xerror_set(ret_error, r, _("cannot remove %s: %s"), mshown, why);
        }
        /* what the running kernel or the initramfs may still hold: kept for verify */
        r = boot_left_note(rfs, res->boot_words, res->modprobe, res->kernel);
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot write %s: %s"), LEFT_NOTE_PATH, strerror(-r));
        r = state_cleanup(rfs);
        if (r >= 0)
                r = parents_note_finish(rfs);
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot clean up %s: %s"), STATE_DIR, strerror(-r));
        res->done = true;
        return 0;
}
