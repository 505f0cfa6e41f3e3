/* install.c: render a plan into a root (targets, preflight, writing); rollback.c
 * undoes it; the manifest and backups it keeps are state.c's
 *
 * Order of every change, so that a crash at any point leaves a state that
 * rollback restores exactly: the replaced file's content goes to the backup
 * store first, then the manifest records the change, then the file is written
 * (temp file, fsync, rename, fsync of the directory). A directory is recorded
 * in the manifest before it is made. */
#include "config.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "pipeline/emit.h"
#include "engine/install.h"
#include "engine/install-targets.h"
#include "root/bootscheme.h"
#include "state/manifest.h"
#include "engine/pstable.h"
#include "engine/refresh.h"
#include "base/sha256.h"
#include "state/state.h"

#define MAX_FILE STATE_FILE_MAX

static void targets_free(struct targets *t)
{
        for (size_t i = 0; i < t->n; i++) {
                free(t->v[i].path);
                free(t->v[i].content);
                free(t->v[i].cur);
                free(t->v[i].orig);
        }
        free(t->v);
        free(t->cmdline_words);
        free(t->dropped_words);
}

static void sha_of(const char *data, size_t len, char out[65])
{
        sha256_hex(data, len, 32, out);
}

#ifndef SYSTEMDSYSTEMUNITDIR
# define SYSTEMDSYSTEMUNITDIR "/usr/lib/systemd/system"
#endif

/* where the root has UNIT, in systemd's order of the system unit
 * directories (the link systemctl enable makes names it there); this
 * build's unit directory when the root has it nowhere (yet) */
static char *unit_path(const struct rootfs *rfs, const char *unit)
{
        static const char *const dirs[] = { "/etc/systemd/system", "/usr/local/lib/systemd/system",
                                            "/usr/lib/systemd/system", "/lib/systemd/system" };

        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                char *path = xasprintf("%s/%s", dirs[i], unit);
                struct stat st;

                if (rootfs_check_file(rfs, path, 0, SIZE_MAX, &st) >= 0)
                        return path;
                free(path);
        }
        return xasprintf("%s/%s", SYSTEMDSYSTEMUNITDIR, unit);
}

#ifndef SBINDIR
# define SBINDIR "/usr/sbin"
#endif

/* the directory of the target's own idlecfg, which the switch's rule, unit
 * and hook run: an installer's idlecfg from outside may live elsewhere (a
 * build with another prefix); this build's SBINDIR when the root has none */
static const char *target_sbindir(const struct rootfs *rfs)
{
        static const char *const dirs[] = { SBINDIR, "/usr/sbin", "/usr/bin", "/sbin", "/bin" };

        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                _cleanup_free_ char *path = xasprintf("%s/idlecfg", dirs[i]);
                struct stat st;

                if (rootfs_check_file(rfs, path, 0, SIZE_MAX, &st) >= 0 && (st.st_mode & 0111))
                        return dirs[i];
        }
        return SBINDIR;
}

/* the power-source switch's files (pstable.c), when the plan has values per source */
static int power_targets(const struct rootfs *rfs, const struct plan *p, struct targets *t,
                         struct xerror *ret_error)
{
        struct ps_file *v = NULL;
        size_t n = 0;
        int r = ps_render(p, target_sbindir(rfs), &v, &n, ret_error);

        for (size_t i = 0; r >= 0 && i < n; i++)
                install_target_add(t, v[i].path, TAKE_PTR(v[i].text), T_POWER)->n_settings =
                        plan_n_per_source(p);
        ps_files_free(v, n);
        return r;
}

static int collect_targets(const struct rootfs *rfs, const struct plan *p, const struct manifest *m, bool image,
                           struct targets *t, struct xerror *ret_error)
{
        static const struct { const char *path; enum emit_format fmt; enum mechanism mech; enum target_kind kind; }
        files[] = {
                { UDEV_RULES_PATH, EMIT_UDEV, MECH_UDEV, T_UDEV },
                { MODPROBE_PATH, EMIT_MODPROBE, MECH_MODPROBE, T_MODPROBE },
                { TMPFILES_PATH, EMIT_TMPFILES, MECH_TMPFILES, T_TMPFILES },
                { SYSCTL_PATH, EMIT_SYSCTL, MECH_SYSCTL, T_SYSCTL },
                { NM_CONF_PATH, EMIT_NM, MECH_NM, T_NM },
                { LINK_DROPIN_PATH, EMIT_LINK, MECH_LINK, T_LINK },
        };
        int r;

        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                char *text = NULL;
                size_t n = install_count_mech(p, files[i].mech);
                if (n > 0) {
                        r = install_render(p, files[i].fmt, &text, ret_error);
                        if (r < 0)
                                return r;
                }
                install_target_add(t, files[i].path, text, files[i].kind)->n_settings = n;
        }
        r = power_targets(rfs, p, t, ret_error);
        if (r < 0)
                return r;
        r = install_cmdline_target(rfs, p, m, t, ret_error);
        if (r < 0)
                return r;
        /* image mode enables the first-boot unit as systemctl enable does
         * (its [Install] section: presets and is-enabled see it); the installs
         * after it (the first boot's among them) keep it enabled, for the
         * next /usr update or hardware its stamp does not name. An older
         * install's drop-in goes. */
        if (image || (m && (manifest_find(m, FIRSTBOOT_WANTS_PATH) || manifest_find(m, FIRSTBOOT_DROPIN_PATH))))
                install_target_add(t, FIRSTBOOT_WANTS_PATH, unit_path(rfs, FIRSTBOOT_UNIT), T_FIRSTBOOT);
        /* whatever an earlier install wrote that this one does not */
        for (size_t i = 0; m && i < m->n_files; i++) {
                bool found = false;
                for (size_t k = 0; k < t->n && !found; k++)
                        found = streq(t->v[k].path, m->files[i].path);
                if (!found)
                        install_target_add(t, m->files[i].path, NULL, T_OTHER);
        }
        return 0;
}

/* a link install makes (targets.h): what is there now; anything but a link is refused */
static int look_link(const struct rootfs *rfs, struct target *x, struct xerror *ret_error)
{
        _cleanup_(state_seen_done) struct state_seen now = {};
        int r = state_look(rfs, x->path, &now, ret_error);

        if (r < 0)
                return r;
        if (now.other_type) {
                _cleanup_free_ char *shown = rootfs_display(rfs, x->path);
                return xerror_set(ret_error, S_ISDIR(now.st.st_mode) ? -EISDIR : -EBADFD,
                                  _("%s is not a symbolic link (idlecfg makes one there to enable a unit, as "
                                    "systemctl enable does); remove it first"), shown);
        }
        x->exists = now.exists;
        x->st = now.st;
        if (now.exists) {
                x->cur = TAKE_PTR(now.content);
                x->cur_len = now.len;
                memcpy(x->cur_sha, now.sha, 65);
        }
        return 0;
}

static int look(const struct rootfs *rfs, struct target *x, struct xerror *ret_error)
{
        _cleanup_free_ char *shown = NULL;
        int r;

        if (x->link)
                return look_link(rfs, x, ret_error);
        shown = rootfs_display(rfs, x->path);
        r = rootfs_lstat(rfs, x->path, &x->st);

        if (r == -ENOENT) {
                x->exists = false;
                return 0;
        }
        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, x->path, r, MAX_FILE);
                return xerror_set(ret_error, r, _("cannot look at %s: %s"), shown, why);
        }
        if (!S_ISREG(x->st.st_mode)) {
                /* an unsafe target is refused like a link: exit 3, never 2 (that is for bad input) */
                _cleanup_free_ char *why = NULL;
                r = S_ISLNK(x->st.st_mode) ? -ELOOP : S_ISDIR(x->st.st_mode) ? -EISDIR : -EBADFD;
                why = rootfs_why(rfs, x->path, r, MAX_FILE);
                return xerror_set(ret_error, r, _("%s: %s; idlecfg writes regular files only, never through a "
                                                  "link: remove it first"), shown, why);
        }
        r = rootfs_read(rfs, x->path, MAX_FILE, &x->cur, &x->cur_len, &x->st);
        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, x->path, r, MAX_FILE);
                return xerror_set(ret_error, r, _("cannot read %s: %s"), shown, why);
        }
        x->exists = true;
        sha_of(x->cur, x->cur_len, x->cur_sha);
        return 0;
}

/* decide each target's action, before anything is written */
static int preflight(const struct rootfs *rfs, const struct manifest *m, struct targets *t, bool force,
                     struct xerror *ret_error)
{
        size_t n_primary = t->n;
        int r;

        for (size_t i = 0; i < n_primary; i++) {
                struct target *x = &t->v[i];
                const struct manifest_file *mf = m ? manifest_find(m, x->path) : NULL;
                char want[65] = "";

                r = look(rfs, x, ret_error);
                if (r < 0)
                        return r;
                if (x->content)
                        sha_of(x->content, strlen(x->content), want);
                if (x->link && x->content) {
                        /* a link is made only where nothing is: one there already (the
                         * administrator's systemctl enable) is left alone, as is its
                         * removal since (systemctl disable) */
                        if (mf && x->exists && streq(x->cur_sha, mf->sha))
                                x->action = streq(x->cur_sha, want) ? A_NONE : A_WRITE;
                        else if (mf)
                                x->action = force ? A_WRITE : A_KEEP_THEIRS;
                        else
                                x->action = x->exists ? A_NONE : A_WRITE;
                } else if (x->content) {
                        if (x->as_is && !mf && x->exists && streq(x->cur_sha, want))
                                x->action = A_NONE;
                        else if (mf && x->exists && streq(x->cur_sha, mf->sha))
                                x->action = streq(x->cur_sha, want) ? A_NONE : A_WRITE;
                        else if (mf && !force)
                                /* deleted or edited by the administrator since we wrote it
                                 * (unless the edit made it what we want now) */
                                x->action = x->exists && streq(x->cur_sha, want) ? A_ADOPT : A_KEEP_THEIRS;
                        else
                                x->action = A_WRITE;
                        x->conflict = x->action == A_KEEP_THEIRS;
                } else if (!mf)
                        x->action = A_NONE;
                else if (x->exists ? (mf->prev_exists && streq(x->cur_sha, mf->prev_sha)) : !mf->prev_exists)
                        x->action = A_DROP;
                else if (x->exists && streq(x->cur_sha, mf->sha))
                        x->action = A_RESTORE;
                else
                        x->action = force ? A_RESTORE : A_KEEP_THEIRS;
        }
        /* ours beside a file the administrator changed, as dpkg does with conffiles */
        for (size_t i = 0; i < n_primary; i++) {
                struct target *x = &t->v[i];
                _cleanup_free_ char *beside = NULL;
                const struct manifest_file *mf;
                if (endswith_str(x->path, NEW_SUFFIX) || x->link)
                        continue;
                beside = xasprintf("%s%s", x->path, NEW_SUFFIX);
                mf = m ? manifest_find(m, beside) : NULL;
                /* install_target_add() may move t->v: nothing of x after it */
                if (x->conflict && x->content) {
                        size_t n = x->n_settings;
                        install_target_add(t, beside, xstrdup(x->content), x->kind)->n_settings = n;
                } else if (mf)
                        install_target_add(t, beside, NULL, T_OTHER);
        }
        for (size_t i = n_primary; i < t->n; i++) {
                struct target *x = &t->v[i];
                const struct manifest_file *mf = m ? manifest_find(m, x->path) : NULL;
                char want[65] = "";
                r = look(rfs, x, ret_error);
                if (r < 0)
                        return r;
                if (x->content) {
                        sha_of(x->content, strlen(x->content), want);
                        x->action = mf && x->exists && streq(x->cur_sha, want) && streq(mf->sha, want) ? A_NONE
                                                                                                      : A_WRITE;
                } else if (!mf)
                        x->action = A_NONE;
                else if (!x->exists ? !mf->prev_exists : (mf->prev_exists && streq(x->cur_sha, mf->prev_sha)))
                        x->action = A_DROP;
                else
                        x->action = A_RESTORE;  /* our earlier copy beside theirs: not needed now */
        }
        return 0;
}

/* ---- doing it ---- */

struct ctx {
        const struct rootfs *rfs;
        struct manifest *m;
        struct xerror *error;
        struct install_result *res;
};

static struct install_event *event_add(struct install_result *res, enum install_event_kind what, const char *shown)
{
        res->v = xrealloc(res->v, (res->n + 1) * sizeof(*res->v));
        res->v[res->n] = (struct install_event) { .what = what, .path = shown ? xstrdup(shown) : NULL };
        return &res->v[res->n++];
}

void install_result_free(struct install_result *r)
{
        for (size_t i = 0; i < r->n; i++) {
                free(r->v[i].path);
                free(r->v[i].name_a);
                free(r->v[i].a);
                free(r->v[i].name_b);
                free(r->v[i].b);
        }
        free(r->v);
        for (size_t i = 0; i < r->n_files; i++)
                free(r->files[i].path);
        free(r->files);
        free(r->cmdline_words);
        free(r->dropped_words);
        *r = (struct install_result) {};
}

/* /var or /var/lib about to be made: named in the parents note first, so
 * that a rollback after a run killed before its first manifest removes them */
static int collect_dir(const char *path, void *userdata)
{
        struct ctx *c = userdata;

        if (!streq(path, "/var") && !streq(path, "/var/lib"))
                return 0;
        manifest_add_dir(c->m, path);
        return parents_note(c->rfs, c->m);
}

static int record_dir(const char *path, void *userdata)
{
        struct ctx *c = userdata;

        manifest_add_dir(c->m, path);
        return manifest_save(c->rfs, c->m, c->error);
}

static int make_parent(struct ctx *c, const char *path)
{
        _cleanup_free_ char *dir = xstrdup(path), *shown = NULL;
        int r;

        *strrchr(dir, '/') = '\0';
        r = rootfs_mkdir_p(c->rfs, dir, record_dir, c);
        if (r < 0 && !c->error->message) {
                _cleanup_free_ char *why = rootfs_why(c->rfs, dir, r, 0);
                shown = rootfs_display(c->rfs, dir);
                return xerror_set(c->error, r, _("cannot create the directory %s: %s"), shown, why);
        }
        return r;
}

/* the intent first: until the run ends, X's path may still hold what it
 * held (idlecfg's earlier content, or the state before idlecfg); then the
 * directories it needs */
static int record_intent(struct ctx *c, struct manifest_file *mf, const struct target *x, bool was_ours, mode_t mode)
{
        int r;

        mf->pending = true;
        mf->pending_was_ours = was_ours;
        if (was_ours)
                memcpy(mf->pending_sha, mf->sha, 65);
        sha_of(x->content, strlen(x->content), mf->sha);
        mf->mode = mode;
        r = manifest_save(c->rfs, c->m, c->error);
        if (r < 0)
                return r;
        return make_parent(c, x->path);
}

/* the link of a target: made where nothing is, or ours replaced */
static int do_link(struct ctx *c, struct target *x)
{
        _cleanup_free_ char *shown = rootfs_display(c->rfs, x->path);
        struct manifest_file *mf = manifest_find(c->m, x->path);
        bool was_ours = mf && x->exists;
        struct install_event *ev;
        int r;

        c->res->touched = true;
        if (!mf)
                mf = manifest_add_file(c->m, x->path);
        r = record_intent(c, mf, x, was_ours, S_IFLNK | 0777);
        if (r < 0)
                return r;
        if (was_ours)
                r = rootfs_unlink_symlink(c->rfs, x->path);
        if (r >= 0)
                r = rootfs_symlink(c->rfs, x->path, x->content);
        if (r < 0)
                return xerror_set(c->error, r, _("cannot make the link %s: %s"), shown, rootfs_strerror(r));
        ev = event_add(c->res, was_ours ? IE_UPDATED : IE_WROTE, shown);
        ev->kind = x->kind;
        return 0;
}

/* TEXT carries the header idlecfg writes at the top of its files (emit.c,
 * pstable.c, the GRUB snippet, bootc's kargs.d file): a file of an install
 * whose state was removed since, not the administrator's original */
static bool own_file(const char *text, size_t len)
{
        static const char head[] = "# Generated by " PACKAGE_NAME " ";

        return text && len >= sizeof(head) - 1 && memcmp(text, head, sizeof(head) - 1) == 0;
}

static int do_write(struct ctx *c, struct target *x)
{
        _cleanup_free_ char *shown = rootfs_display(c->rfs, x->path);
        struct manifest_file *mf = manifest_find(c->m, x->path);
        /* no entry, and idlecfg's own file there: taken as one install wrote (no backup, removed by rollback) */
        bool own = !mf && x->exists && (x->own || own_file(x->cur, x->cur_len));
        bool was_ours = (mf && x->exists && streq(mf->sha, x->cur_sha)) || own, adopted = !mf && x->exists && !own;
        mode_t mode = 0644;
        uid_t uid = (uid_t) -1;
        gid_t gid = (gid_t) -1;
        struct install_event *ev;
        int r;

        if (x->exists && !was_ours) {
                /* what is there now is not ours: keep a copy (the first one is what
                 * rollback restores; a forced overwrite of an edited file keeps the edit too) */
                if (x->orig && !mf) {
                        /* the line before idlecfg's earlier words (its note): what rollback restores */
                        sha_of(x->orig, strlen(x->orig), x->cur_sha);
                        r = save_backup(c->rfs, x->orig, strlen(x->orig), x->cur_sha, c->error);
                } else
                        r = save_backup(c->rfs, x->cur, x->cur_len, x->cur_sha, c->error);
                if (r < 0)
                        return r;
        }
        c->res->touched = true;
        if (!mf) {
                mf = manifest_add_file(c->m, x->path);
                mf->prev_exists = x->exists && !own;
                if (own)
                        memcpy(mf->sha, x->cur_sha, 65);        /* the content idlecfg had written */
                if (mf->prev_exists) {
                        memcpy(mf->prev_sha, x->cur_sha, 65);
                        mf->prev_mode = x->st.st_mode & 07777;
                        mf->prev_uid = x->st.st_uid;
                        mf->prev_gid = x->st.st_gid;
                }
        }
        if (mf->prev_exists && !endswith_str(x->path, NEW_SUFFIX)) {
                /* a file that was there before keeps its mode and owner */
                mode = mf->prev_mode;
                uid = mf->prev_uid;
                gid = mf->prev_gid;
        }
        r = record_intent(c, mf, x, was_ours, mode);
        if (r < 0)
                return r;
        r = rootfs_write_atomic(c->rfs, x->path, x->content, strlen(x->content), mode, uid, gid);
        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(c->rfs, x->path, r, MAX_FILE);
                return xerror_set(c->error, r, _("cannot write %s: %s"), shown, why);
        }
        ev = event_add(c->res, !x->exists ? IE_WROTE : adopted ? IE_CHANGED : was_ours ? IE_UPDATED : IE_OVERWROTE,
                       shown);
        ev->kind = x->kind;
        ev->n_settings = x->n_settings;
        return 0;
}

static int do_restore(struct ctx *c, struct target *x)
{
        _cleanup_free_ char *shown = rootfs_display(c->rfs, x->path);
        struct manifest_file *mf = manifest_find(c->m, x->path);
        int r;

        c->res->touched = true;
        if (x->action == A_RESTORE) {
                /* the intent first: the file is idlecfg's, or already as before */
                mf->pending = true;
                mf->pending_was_ours = true;
                memcpy(mf->pending_sha, mf->sha, 65);
                r = manifest_save(c->rfs, c->m, c->error);
                if (r < 0)
                        return r;
                r = rollback_restore_file(c->rfs, mf, c->error);
                if (r < 0)
                        return r;
                event_add(c->res, mf->prev_exists ? IE_RESTORED_UNNEEDED : IE_REMOVED_UNNEEDED, shown);
        }
        manifest_remove_file(c->m, x->path);
        return manifest_save(c->rfs, c->m, c->error);
}

/* a diff of the dry run */
static void diff_add(struct install_result *res, const char *name_a, const char *a, const char *name_b, const char *b)
{
        struct install_event *ev = event_add(res, IE_DIFF, NULL);

        ev->name_a = xstrdup(name_a);
        ev->a = a ? xstrdup(a) : NULL;
        ev->name_b = xstrdup(name_b);
        ev->b = b ? xstrdup(b) : NULL;
}

/* install --dry-run: the diff of every file that would change, what would be kept */
static void dry_run(const struct rootfs *rfs, const struct manifest *m, const struct targets *t,
                    struct install_result *res, struct xerror *ret_error)
{
        for (size_t i = 0; i < t->n; i++) {
                const struct target *x = &t->v[i];
                _cleanup_free_ char *a = xasprintf("a%s", x->path), *b = xasprintf("b%s", x->path);
                _cleanup_free_ char *prev = NULL;
                const struct manifest_file *mf = m ? manifest_find(m, x->path) : NULL;
                size_t len;
                if (x->action == A_WRITE && x->link) {
                        /* a link: its target, as git shows one */
                        _cleanup_free_ char *was = x->exists ? xasprintf("%s\n", x->cur) : NULL;
                        _cleanup_free_ char *now = xasprintf("%s\n", x->content);
                        diff_add(res, x->exists ? a : "/dev/null", strempty(was), b, now);
                } else if (x->action == A_WRITE)
                        diff_add(res, x->exists ? a : "/dev/null", x->exists ? x->cur : "", b, x->content);
                else if (x->action == A_RESTORE && mf->prev_exists &&
                         read_backup(rfs, mf->prev_sha, &prev, &len, ret_error) == 0)
                        diff_add(res, a, x->cur, b, prev);
                else if (x->action == A_RESTORE)
                        diff_add(res, a, x->exists ? x->cur : "", "/dev/null", "");
                else if (x->action == A_KEEP_THEIRS) {
                        _cleanup_free_ char *shown = rootfs_display(rfs, x->path);
                        event_add(res, IE_DIFF_KEPT, shown);
                }
        }
}

/* the manifest's record of this run: profile, fingerprint, kernel, where
 * the command line went, refresh's inputs; no write pending */
static void record_run(const struct rootfs *rfs, const struct plan *p, const struct inventory *inv,
                       const struct install_options *o, const struct targets *t, struct manifest *m)
{
        free(m->profile);
        m->profile = xstrdup(p->profile);
        free(m->fingerprint);
        m->fingerprint = xstrdup(p->fingerprint);
        free(m->kernel);
        m->kernel = p->kernel ? xstrdup(p->kernel) : NULL;
        free(m->cmdline_target);
        m->cmdline_target = NULL;
        free(m->dropped_words);
        m->dropped_words = t->dropped_words ? xstrdup(t->dropped_words) : NULL;
        for (size_t i = 0; i < t->n; i++)
                if (t->v[i].kind >= T_CMDLINE_KERNEL && t->v[i].kind <= T_CMDLINE_OWN && t->v[i].content &&
                    !endswith_str(t->v[i].path, NEW_SUFFIX))
                        m->cmdline_target = xstrdup(t->v[i].path);
        kv_free(&m->inputs);
        refresh_inputs(rfs, inv, p->profile, o->profiles_dir, REFRESH_CONTENT, &m->inputs);
        kv_add(&m->inputs, "profile-reason", p->profile_reason);
        if (o->image)
                /* not the build host's: the machine the image boots on installs again */
                for (size_t i = 0; i < m->inputs.n; i++)
                        if (streq(m->inputs.v[i].key, "fingerprint")) {
                                free(m->inputs.v[i].value);
                                m->inputs.v[i].value = xstrdup(IMAGE_FINGERPRINT);
                        }
        for (size_t i = 0; i < m->n_files; i++)
                m->files[i].pending = false;    /* every write is done */
}

/* an earlier profile's words the boot entries hold (T's dropped words) into
 * the manifest M before idlecfg's own file stops naming them: a run killed
 * in between leaves them there for the next install or rollback to name
 * (the run's end records T's alone). 0 or -errno */
static int keep_dropped_words(const struct rootfs *rfs, struct manifest *m, const struct targets *t,
                              struct xerror *ret_error)
{
        _cleanup_free_ char *more = NULL;

        if (!t->dropped_words)
                return 0;
        more = words_missing(strempty(m->dropped_words), t->dropped_words);
        if (!*more)
                return 0;
        {
                char *both = xasprintf("%s%s%s", strempty(m->dropped_words), m->dropped_words ? " " : "", more);
                free(m->dropped_words);
                m->dropped_words = both;
        }
        return manifest_save(rfs, m, ret_error);
}

static int install_targets(const struct rootfs *rfs, const struct plan *p, const struct inventory *inv,
                           const struct install_options *o, struct install_result *res, struct targets *t,
                           struct xerror *ret_error)
{
        _cleanup_(manifest_freep) struct manifest *m = NULL;
        struct ctx c = { .rfs = rfs, .error = ret_error, .res = res };
        bool changes = false, conflicts = false;
        int r;

        r = manifest_load(rfs, &m, ret_error);
        res->state_refused = r == -EINVAL;
        if (r < 0 && r != -ENOENT)
                return r;
        /* what a killed run left: settled before anything is decided */
        r = state_recover(rfs, m, o->dry_run, ret_error);
        if (r < 0)
                return r;
        r = collect_targets(rfs, p, m, o->image, t, ret_error);
        res->state_refused = res->state_refused || r == -EBADMSG;
        if (r < 0)
                return r;
        t->dropped_words = install_dropped_words(rfs, p, m, t->cmdline_words);
        r = preflight(rfs, m, t, o->force, ret_error);
        if (r < 0)
                return r;
        res->files = xcalloc(t->n ? t->n : 1, sizeof(*res->files));
        for (size_t i = 0; i < t->n; i++) {
                const struct target *x = &t->v[i];
                changes = changes || x->action == A_WRITE || x->action == A_RESTORE;
                conflicts = conflicts || x->action == A_KEEP_THEIRS;
                res->files[res->n_files++] = (struct install_file) { .path = xstrdup(x->path), .kind = x->kind,
                        .action = x->action, .n_settings = x->n_settings, .wanted = !!x->content };
        }
        res->cmdline_words = t->cmdline_words ? xstrdup(t->cmdline_words) : NULL;
        res->dropped_words = t->dropped_words ? xstrdup(t->dropped_words) : NULL;

        if (o->dry_run) {
                dry_run(rfs, m, t, res, ret_error);
                if (ret_error->message)
                        return -EBADMSG;
                return changes;
        }

        if (!m) {
                m = xcalloc(1, sizeof(*m));
        }
        c.m = m;
        {
                /* the state directory first; the parents it needs are recorded
                 * with the first manifest (those a killed first run made: in the note) */
                r = parents_note_adopt(rfs, m);
                if (r >= 0)
                        r = rootfs_mkdir_p(rfs, BACKUP_DIR, collect_dir, &c);
                if (r < 0) {
                        _cleanup_free_ char *shown = rootfs_display(rfs, BACKUP_DIR);
                        _cleanup_free_ char *why = rootfs_why(rfs, BACKUP_DIR, r, 0);
                        return xerror_set(ret_error, r, _("cannot create %s: %s"), shown, why);
                }
        }
        free(m->version);
        m->version = xstrdup(PACKAGE_VERSION);
        if (!m->profile)
                m->profile = xstrdup(p->profile);
        if (!m->fingerprint)
                m->fingerprint = xstrdup(p->fingerprint);

        r = keep_dropped_words(rfs, m, t, ret_error);
        if (r < 0)
                return r;
        for (size_t i = 0; i < t->n; i++) {
                struct target *x = &t->v[i];
                if (x->action == A_WRITE)
                        r = x->link ? do_link(&c, x) : do_write(&c, x);
                else if (x->action == A_RESTORE || x->action == A_DROP)
                        r = do_restore(&c, x);
                else if (x->action == A_ADOPT) {
                        memcpy(manifest_find(m, x->path)->sha, x->cur_sha, 65);
                        r = manifest_save(rfs, m, ret_error);
                }
                else
                        r = 0;
                if (r < 0)
                        return r;
                if (x->action == A_KEEP_THEIRS && x->link) {
                        _cleanup_free_ char *shown = rootfs_display(rfs, x->path);
                        event_add(res, IE_KEPT_LINK, shown);
                } else if (x->action == A_KEEP_THEIRS && x->content) {
                        _cleanup_free_ char *shown = rootfs_display(rfs, x->path);
                        event_add(res, x->exists ? IE_KEPT_BESIDE : IE_NOT_RECREATED, shown);
                } else if (x->action == A_KEEP_THEIRS) {
                        _cleanup_free_ char *shown = rootfs_display(rfs, x->path);
                        event_add(res, IE_KEPT_UNNEEDED, shown);
                }
        }

        /* the whole record, now that the files are in place */
        record_run(rfs, p, inv, o, t, m);
        r = manifest_save(rfs, m, ret_error);
        if (r < 0)
                return r;
        /* idlecfg's words in /etc/kernel/cmdline, outside the state (an install after it was lost) */
        r = install_cmdline_note(rfs, m);
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot write %s: %s"), CMDLINE_NOTE_PATH, strerror(-r));
        /* the manifest names the parents now */
        r = parents_note_remove(rfs);
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot remove %s: %s"), PARENTS_NOTE_PATH, strerror(-r));
        (void) gc_backups(rfs, m);

        if (!changes && !conflicts)
                event_add(res, IE_NOTHING, NULL);
        return changes;
}

int install_run(const struct rootfs *rfs, const struct plan *p, const struct inventory *inv,
                const struct install_options *o, struct install_result *res, struct xerror *ret_error)
{
        _cleanup_(targets_free) struct targets t = {};

        return install_targets(rfs, p, inv, o, res, &t, ret_error);
}
