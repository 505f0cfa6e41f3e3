/* install.c: render a plan into a root (targets, preflight, writing) and undo it; the
 * manifest and backups it keeps are state.c's
 *
 * Order of every change, so that a crash at any point leaves a state that
 * rollback restores exactly: the replaced file's content goes to the backup
 * store first, then the manifest records the change, then the file is written
 * (temp file, fsync, rename, fsync of the directory). A directory is recorded
 * in the manifest before it is made. */
#include "config.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "install.h"
#include "diff.h"
#include "json.h"
#include "manifest.h"
#include "refresh.h"
#include "sha256.h"
#include "state.h"

#define MAX_FILE STATE_FILE_MAX

enum target_kind {
        T_UDEV,
        T_MODPROBE,
        T_TMPFILES,
        T_SYSCTL,
        T_NM,                   /* NetworkManager conf.d */
        T_LINK,                 /* drop-in of 99-default.link */
        T_CMDLINE_KERNEL,       /* words appended to /etc/kernel/cmdline */
        T_CMDLINE_GRUB,         /* a /etc/default/grub.d snippet */
        T_CMDLINE_OWN,          /* /etc/idlecfg/cmdline: the installer has to add them */
        T_OTHER,                /* a file of an earlier install that is no longer wanted */
};

enum action {
        A_NONE,                 /* already as wanted */
        A_WRITE,                /* write ours (recording what it replaces) */
        A_RESTORE,              /* no longer wanted: put back what was there */
        A_DROP,                 /* no longer wanted and already as before: forget it */
        A_KEEP_THEIRS,          /* changed by the administrator: left alone */
        A_ADOPT,                /* already has our content, the manifest an older checksum */
};

struct target {
        char *path;
        char *content;          /* wanted; NULL: not ours any more */
        enum target_kind kind;
        size_t n_settings;
        /* found before anything is written */
        bool exists;
        char *cur;
        size_t cur_len;
        char cur_sha[65];
        struct stat st;
        enum action action;
        bool conflict;          /* ours goes beside it, to PATH.idlecfg-new */
};

struct targets {
        struct target *v;
        size_t n;
        char *cmdline_words;    /* the kernel parameters planned, space-separated; NULL: none */
};

static void targets_free(struct targets *t)
{
        for (size_t i = 0; i < t->n; i++) {
                free(t->v[i].path);
                free(t->v[i].content);
                free(t->v[i].cur);
        }
        free(t->v);
        free(t->cmdline_words);
}

static struct target *target_add(struct targets *t, const char *path, char *content_take, enum target_kind kind)
{
        struct target *x;

        for (size_t i = 0; i < t->n; i++)
                if (streq(t->v[i].path, path)) {
                        free(t->v[i].content);
                        t->v[i].content = content_take;
                        return &t->v[i];
                }
        t->v = xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
        x = &t->v[t->n++];
        *x = (struct target) { .path = xstrdup(path), .content = content_take, .kind = kind };
        return x;
}

static void sha_of(const char *data, size_t len, char out[65])
{
        sha256_hex(data, len, 32, out);
}

/* ---- what to write ---- */

static size_t count_mech(const struct plan *p, enum mechanism m)
{
        size_t n = 0;
        for (size_t i = 0; i < p->n; i++)
                n += p->v[i].mech == m && p->v[i].value;
        return n;
}

static int render(const struct plan *p, enum emit_format fmt, char **ret, struct xerror *ret_error)
{
        struct xerror ee = {};
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        int r;

        if (!f)
                return -ENOMEM;
        r = emit_render(p, fmt, f, &ee);
        fclose(f);
        if (r < 0) {
                xerror_set(ret_error, r, "%s", ee.message ? ee.message : strerror(-r));
                xerror_done(&ee);
                free(buf);
                return r;
        }
        *ret = buf;
        return 0;
}

static bool root_uses_grub(const struct rootfs *rfs)
{
        static const char *const marks[] = {
                "/etc/default/grub", "/etc/default/grub.d", "/usr/sbin/update-grub", "/usr/sbin/grub-mkconfig",
                "/usr/sbin/grub2-mkconfig", "/boot/grub/grub.cfg", "/boot/grub2/grub.cfg",
        };
        struct stat st;

        for (size_t i = 0; i < ELEMENTSOF(marks); i++)
                if (rootfs_lstat(rfs, marks[i], &st) == 0)
                        return true;
        return false;
}

/* the text the kernel command line file gets; NULL when there is nothing to add */
static int cmdline_target(const struct rootfs *rfs, const struct plan *p, const struct manifest *m,
                          struct targets *t, struct xerror *ret_error)
{
        _cleanup_free_ char *words = NULL;
        struct stat st;
        size_t n = count_mech(p, MECH_CMDLINE);
        int r;

        r = render(p, EMIT_CMDLINE, &words, ret_error);
        if (r < 0)
                return r;
        strstrip(words);
        if (!*words)
                return 0;

        /* kernel-install and systemd-boot: the words go onto the one line of
         * /etc/kernel/cmdline, after what was there before idlecfg. A file
         * there that is no such line (a FIFO, a device node, a link, a loop,
         * too large) is said and treated as absent: the next way is taken. */
        r = rootfs_lstat(rfs, KERNEL_CMDLINE_PATH, &st);
        if (r == 0 && !S_ISREG(st.st_mode))
                r = S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? -EISDIR : -EBADFD;
        if (r == 0 && !(m && manifest_find(m, KERNEL_CMDLINE_PATH))) {
                _cleanup_free_ char *probe = NULL;
                r = rootfs_read_file(rfs, KERNEL_CMDLINE_PATH, ROOTFS_NOFOLLOW, KERNEL_CMDLINE_MAX, &probe, NULL,
                                     NULL);
        }
        if (r < 0 && r != -ENOENT && r != -ENOTDIR) {
                _cleanup_free_ char *shown = rootfs_display(rfs, KERNEL_CMDLINE_PATH);
                _cleanup_free_ char *why = rootfs_read_strerror(r, KERNEL_CMDLINE_MAX);
                rootfs_warn(rfs, _("%s: %s; idlecfg treats it as absent and puts the kernel parameters in %s"),
                            shown, why, root_uses_grub(rfs) ? GRUB_SNIPPET_PATH : OWN_CMDLINE_PATH);
        }
        if (r == 0) {
                const struct manifest_file *mf = m ? manifest_find(m, KERNEL_CMDLINE_PATH) : NULL;
                _cleanup_free_ char *base = NULL, *bp = NULL;
                size_t len = 0;
                if (mf && mf->prev_exists) {
                        bp = backup_path(mf->prev_sha);
                        r = rootfs_read(rfs, bp, MAX_FILE, &base, &len, NULL);
                } else if (mf)
                        base = xstrdup(""), r = 0;
                else
                        r = rootfs_read(rfs, KERNEL_CMDLINE_PATH, MAX_FILE, &base, &len, NULL);
                if (r < 0) {
                        _cleanup_free_ char *shown = rootfs_display(rfs, bp ? bp : KERNEL_CMDLINE_PATH);
                        return xerror_set(ret_error, r, _("cannot read %s: %s"), shown, strerror(-r));
                }
                if (memchr(base, '\0', len) || strchr(strstrip(base), '\n')) {
                        _cleanup_free_ char *shown = rootfs_display(rfs, KERNEL_CMDLINE_PATH);
                        return xerror_set(ret_error, -EINVAL, _("%s: expected one line of kernel parameters; "
                                                                "not changing it"), shown);
                }
                target_add(t, KERNEL_CMDLINE_PATH, xasprintf("%s%s%s\n", base, *base ? " " : "", words),
                           T_CMDLINE_KERNEL)->n_settings = n;
        } else if (root_uses_grub(rfs))
                target_add(t, GRUB_SNIPPET_PATH,
                           xasprintf("# Generated by " PACKAGE_NAME " " PACKAGE_VERSION " for profile %s.\n"
                                     "# Do not edit: \"" PACKAGE_NAME " install\" rewrites this file and \""
                                     PACKAGE_NAME " rollback\" removes it.\n"
                                     "GRUB_CMDLINE_LINUX_DEFAULT=\"${GRUB_CMDLINE_LINUX_DEFAULT} %s\"\n",
                                     p->profile, words), T_CMDLINE_GRUB)->n_settings = n;
        else
                /* only the words, on one line, so that "$(cat FILE)" in a script gives the
                 * kernel nothing else: what they are for is said by install (text and
                 * JSON) and recorded in the manifest (cmdline-target) */
                target_add(t, OWN_CMDLINE_PATH, xasprintf("%s\n", words), T_CMDLINE_OWN)->n_settings = n;
        free(t->cmdline_words);
        t->cmdline_words = TAKE_PTR(words);
        return 0;
}

static int collect_targets(const struct rootfs *rfs, const struct plan *p, const struct manifest *m,
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
                size_t n = count_mech(p, files[i].mech);
                if (n > 0) {
                        r = render(p, files[i].fmt, &text, ret_error);
                        if (r < 0)
                                return r;
                }
                target_add(t, files[i].path, text, files[i].kind)->n_settings = n;
        }
        r = cmdline_target(rfs, p, m, t, ret_error);
        if (r < 0)
                return r;
        /* whatever an earlier install wrote that this one does not */
        for (size_t i = 0; m && i < m->n_files; i++) {
                bool found = false;
                for (size_t k = 0; k < t->n && !found; k++)
                        found = streq(t->v[k].path, m->files[i].path);
                if (!found)
                        target_add(t, m->files[i].path, NULL, T_OTHER);
        }
        return 0;
}

static int look(const struct rootfs *rfs, struct target *x, struct xerror *ret_error)
{
        _cleanup_free_ char *shown = rootfs_display(rfs, x->path);
        int r = rootfs_lstat(rfs, x->path, &x->st);

        if (r == -ENOENT) {
                x->exists = false;
                return 0;
        }
        if (r == -ENOTDIR)
                return xerror_set(ret_error, r, _("%s: a parent of it is not a directory"), shown);
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot look at %s: %s"), shown, strerror(-r));
        if (S_ISLNK(x->st.st_mode))
                return xerror_set(ret_error, -ELOOP, _("%s is a symbolic link: idlecfg writes regular files "
                                                       "only and never follows a link; remove it first"), shown);
        if (!S_ISREG(x->st.st_mode))
                return xerror_set(ret_error, -EINVAL, _("%s is not a regular file; remove it first"), shown);
        r = rootfs_read(rfs, x->path, MAX_FILE, &x->cur, &x->cur_len, &x->st);
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot read %s: %s"), shown, strerror(-r));
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
                if (x->content) {
                        if (mf && x->exists && streq(x->cur_sha, mf->sha))
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
                if (endswith_str(x->path, NEW_SUFFIX))
                        continue;
                beside = xasprintf("%s%s", x->path, NEW_SUFFIX);
                mf = m ? manifest_find(m, beside) : NULL;
                /* target_add() may move t->v: nothing of x after it */
                if (x->conflict && x->content) {
                        size_t n = x->n_settings;
                        target_add(t, beside, xstrdup(x->content), x->kind)->n_settings = n;
                } else if (mf)
                        target_add(t, beside, NULL, T_OTHER);
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
        FILE *out;
};

static int collect_dir(const char *path, void *userdata)
{
        if (streq(path, "/var") || streq(path, "/var/lib"))
                manifest_add_dir(userdata, path);
        return 0;
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
                shown = rootfs_display(c->rfs, dir);
                return xerror_set(c->error, r, _("cannot create the directory %s: %s"), shown, strerror(-r));
        }
        return r;
}

/* put PATH back as the manifest entry says it was before idlecfg */
static int restore_file(const struct rootfs *rfs, const struct manifest_file *mf, struct xerror *e)
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
        } else
                r = rootfs_unlink(rfs, mf->path);
        if (r < 0)
                return xerror_set(e, r, _("cannot restore %s: %s"), shown, strerror(-r));
        r = rootfs_remove_temps(rfs, mf->path);
        if (r < 0)
                return xerror_set(e, r, _("cannot remove temporary files beside %s: %s"), shown, strerror(-r));
        return 0;
}

static const char *kind_name(enum target_kind k)
{
        switch (k) {
        case T_UDEV: return _("udev rules");
        case T_MODPROBE: return _("modprobe.d options");
        case T_TMPFILES: return _("tmpfiles.d lines");
        case T_SYSCTL: return _("sysctl.d lines");
        case T_NM: return _("NetworkManager defaults");
        case T_LINK: return _("systemd .link drop-in");
        case T_CMDLINE_KERNEL:
        case T_CMDLINE_GRUB:
        case T_CMDLINE_OWN: return _("kernel command line");
        case T_OTHER: break;
        }
        return _("file");
}

static int do_write(struct ctx *c, struct target *x)
{
        _cleanup_free_ char *shown = rootfs_display(c->rfs, x->path);
        struct manifest_file *mf = manifest_find(c->m, x->path);
        bool was_ours = mf && x->exists && streq(mf->sha, x->cur_sha), adopted = !mf && x->exists;
        mode_t mode = 0644;
        uid_t uid = (uid_t) -1;
        gid_t gid = (gid_t) -1;
        int r;

        if (x->exists && !was_ours) {
                /* what is there now is not ours: keep a copy (the first one is what
                 * rollback restores; a forced overwrite of an edited file keeps the edit too) */
                r = save_backup(c->rfs, x->cur, x->cur_len, x->cur_sha, c->error);
                if (r < 0)
                        return r;
        }
        if (!mf) {
                mf = manifest_add_file(c->m, x->path);
                mf->prev_exists = x->exists;
                if (x->exists) {
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
        sha_of(x->content, strlen(x->content), mf->sha);
        mf->mode = mode;
        r = manifest_save(c->rfs, c->m, c->error);
        if (r < 0)
                return r;
        r = make_parent(c, x->path);
        if (r < 0)
                return r;
        r = rootfs_write_atomic(c->rfs, x->path, x->content, strlen(x->content), mode, uid, gid);
        if (r < 0)
                return xerror_set(c->error, r, _("cannot write %s: %s"), shown, strerror(-r));
        if (!x->exists)
                fprintf(c->out, P_("  wrote %s (%s, %zu setting)\n", "  wrote %s (%s, %zu settings)\n", x->n_settings),
                        shown, kind_name(x->kind), x->n_settings);
        else if (adopted)
                fprintf(c->out, P_("  changed %s (%s, %zu setting; the old file is kept for rollback)\n",
                                   "  changed %s (%s, %zu settings; the old file is kept for rollback)\n", x->n_settings),
                        shown, kind_name(x->kind), x->n_settings);
        else if (was_ours)
                fprintf(c->out, P_("  updated %s (%s, %zu setting)\n", "  updated %s (%s, %zu settings)\n", x->n_settings),
                        shown, kind_name(x->kind), x->n_settings);
        else
                fprintf(c->out, _("  overwrote your changed %s (--force; your version is kept in %s)\n"), shown,
                        BACKUP_DIR);
        return 0;
}

static int do_restore(struct ctx *c, struct target *x)
{
        _cleanup_free_ char *shown = rootfs_display(c->rfs, x->path);
        struct manifest_file *mf = manifest_find(c->m, x->path);
        int r;

        if (x->action == A_RESTORE) {
                r = restore_file(c->rfs, mf, c->error);
                if (r < 0)
                        return r;
                fprintf(c->out, mf->prev_exists ? _("  restored %s: nothing of ours is needed there now\n")
                                                : _("  removed %s: nothing of ours is needed there now\n"), shown);
        }
        manifest_remove_file(c->m, x->path);
        return manifest_save(c->rfs, c->m, c->error);
}

/* the command an installer runs after a file of KIND changed (NULL: none), untranslated, for JSON */
static char *next_command(const struct rootfs *rfs, const struct plan *p, enum target_kind kind)
{
        bool host = root_is_host(rfs->path);
        const char *k = p->kernel ? p->kernel : "KERNEL";
        _cleanup_free_ char *chroot = host ? xstrdup("") : xasprintf("chroot %s ", rfs->path);

        switch (kind) {
        case T_UDEV:
                return host ? xstrdup("udevadm control --reload && udevadm trigger --action=change") : NULL;
        case T_MODPROBE:
                return xasprintf("%supdate-initramfs -u -k %s", chroot, k);
        case T_TMPFILES:
                return host ? xstrdup("systemd-tmpfiles --create " TMPFILES_PATH) : NULL;
        case T_SYSCTL:
                return host ? xstrdup("sysctl -p " SYSCTL_PATH) : NULL;
        case T_NM:
                return host ? xstrdup("nmcli general reload conf") : NULL;
        case T_LINK:            /* nothing to run: udevd reads it when a NIC is added (boot) */
                return NULL;
        case T_CMDLINE_KERNEL:
                return xasprintf("%skernel-install add %s /boot/vmlinuz-%s", chroot, k, k);
        case T_CMDLINE_GRUB:
                return xasprintf("%supdate-grub", chroot);
        case T_CMDLINE_OWN:     /* nothing to run: the words are in install's "cmdline" */
        case T_OTHER:
                break;
        }
        return NULL;
}

static void next_steps(const struct rootfs *rfs, const struct plan *p, const struct targets *t, FILE *out)
{
        bool host = root_is_host(rfs->path), any = false;
        const char *k = p->kernel ? p->kernel : "KERNEL";
        _cleanup_free_ char *chroot = host ? xstrdup("") : xasprintf("chroot %s ", rfs->path);

        for (size_t i = 0; i < t->n; i++) {
                const struct target *x = &t->v[i];
                if ((x->action != A_WRITE && x->action != A_RESTORE) || x->kind == T_OTHER ||
                    (x->kind == T_CMDLINE_OWN && !x->content))
                        continue;
                if (!any)
                        fputs(host ? _("Next steps (idlecfg runs none of them):\n")
                                   : _("Next steps for the installer (idlecfg runs nothing in the target):\n"), out);
                any = true;
                switch (x->kind) {
                case T_UDEV:
                        if (host)
                                fputs(_("  udevadm control --reload && udevadm trigger --action=change  "
                                        "(or reboot)\n"), out);
                        else
                                fputs(_("  udev rules: nothing to run, they apply when the target boots\n"), out);
                        break;
                case T_MODPROBE:
                        if (host)
                                fprintf(out, _("  update-initramfs -u -k %s  (or dracut -f): modules in the "
                                               "initramfs read modprobe.d there\n"), k);
                        else
                                fprintf(out, _("  chroot %s update-initramfs -u -k %s  (or dracut -f): modules "
                                               "in the initramfs read modprobe.d there\n"), rfs->path, k);
                        break;
                case T_TMPFILES:
                        if (host)
                                fprintf(out, _("  systemd-tmpfiles --create %s  (or reboot)\n"), TMPFILES_PATH);
                        else
                                fputs(_("  tmpfiles.d: nothing to run, it applies when the target boots\n"), out);
                        break;
                case T_SYSCTL:
                        if (host)
                                fprintf(out, _("  sysctl -p %s  (or idlecfg apply, or reboot: systemd-sysctl "
                                               "reads it at boot)\n"), SYSCTL_PATH);
                        else
                                fputs(_("  sysctl.d: nothing to run, systemd-sysctl applies it when the target "
                                        "boots\n"), out);
                        break;
                case T_NM:
                        if (host)
                                fputs(_("  nmcli general reload conf  (NetworkManager applies it when it next "
                                        "activates a Wi-Fi connection; or reboot)\n"), out);
                        else
                                fputs(_("  NetworkManager: nothing to run, it applies when the target boots\n"), out);
                        break;
                case T_LINK:
                        fputs(_("  systemd .link drop-in: nothing to run; systemd-udevd applies it when a NIC is "
                                "added (the next boot)\n"), out);
                        break;
                case T_CMDLINE_KERNEL:
                        fprintf(out, _("  %skernel-install add %s /boot/vmlinuz-%s  (the boot entry takes "
                                       "/etc/kernel/cmdline when it is made)\n"),
                                chroot, k, k);
                        break;
                case T_CMDLINE_GRUB:
                        fprintf(out, _("  %supdate-grub  (or grub-mkconfig -o /boot/grub/grub.cfg)\n"),
                                chroot);
                        break;
                case T_CMDLINE_OWN:
                        fprintf(out, _("  add these words to the kernel command line of this system's boot "
                                       "loader: %s\n  (idlecfg found neither /etc/kernel/cmdline nor GRUB; "
                                       "%s holds the same words on one line, nothing else)\n"),
                                t->cmdline_words, OWN_CMDLINE_PATH);
                        break;
                case T_OTHER:
                        break;
                }
        }
}

static const char *action_name(enum action a)
{
        switch (a) {
        case A_NONE: return "none";
        case A_WRITE: return "write";
        case A_RESTORE: return "restore";
        case A_DROP: return "drop";
        case A_KEEP_THEIRS: return "keep";
        case A_ADOPT: return "adopt";
        }
        return "none";
}

static const char *kind_key(enum target_kind k)
{
        switch (k) {
        case T_UDEV: return "udev";
        case T_MODPROBE: return "modprobe";
        case T_TMPFILES: return "tmpfiles";
        case T_SYSCTL: return "sysctl";
        case T_NM: return "networkmanager";
        case T_LINK: return "link";
        case T_CMDLINE_KERNEL:
        case T_CMDLINE_GRUB:
        case T_CMDLINE_OWN: return "cmdline";
        case T_OTHER: break;
        }
        return "other";
}

/* install --json: what was (or, with --dry-run, would be) done, and the words
 * of the kernel command line as an array; LOG is what the text output says */
static void print_json(const struct rootfs *rfs, const struct plan *p, const struct install_options *o,
                       const struct targets *t, int changes, const char *log, FILE *out)
{
        struct json j;

        json_init(&j, out);
        json_begin_object(&j);
        json_kv_int(&j, "schema", 1);
        json_kv_string(&j, "version", PACKAGE_VERSION);
        json_kv_string(&j, "root", rfs->path);
        json_kv_string(&j, "profile", p->profile);
        json_kv_string(&j, "profile_reason", p->profile_reason);
        json_kv_string(&j, "fingerprint", p->fingerprint);
        json_kv_string(&j, "kernel", p->kernel);
        json_kv_bool(&j, "dry_run", o->dry_run);
        json_kv_bool(&j, "changed", changes > 0);
        json_key(&j, "files");
        json_begin_array(&j);
        for (size_t i = 0; i < t->n; i++) {
                const struct target *x = &t->v[i];
                if (!x->content && x->action == A_NONE)
                        continue;       /* nothing of ours wanted there, and nothing there */
                json_begin_object(&j);
                json_kv_string(&j, "path", x->path);
                json_kv_string(&j, "kind", kind_key(x->kind));
                json_kv_string(&j, "action", action_name(x->action));
                json_kv_int(&j, "settings", (long long) x->n_settings);
                json_end_object(&j);
        }
        json_end_array(&j);
        json_key(&j, "cmdline");
        if (t->cmdline_words) {
                _cleanup_free_ char *w = xstrdup(t->cmdline_words);
                const struct target *x = NULL;
                for (size_t i = 0; i < t->n && !x; i++)
                        if (t->v[i].kind >= T_CMDLINE_KERNEL && t->v[i].kind <= T_CMDLINE_OWN && t->v[i].content)
                                x = &t->v[i];
                json_begin_object(&j);
                json_kv_string(&j, "path", x ? x->path : NULL);
                json_kv_string(&j, "mechanism", !x ? NULL : x->kind == T_CMDLINE_KERNEL ? "kernel-cmdline" :
                                                x->kind == T_CMDLINE_GRUB ? "grub" : "file");
                json_key(&j, "words");
                json_begin_array(&j);
                for (char *save = NULL, *word = strtok_r(w, " ", &save); word; word = strtok_r(NULL, " ", &save))
                        json_string(&j, word);
                json_end_array(&j);
                json_end_object(&j);
        } else
                json_null(&j);
        json_key(&j, "next_steps");
        json_begin_array(&j);
        for (size_t i = 0; i < t->n && !o->dry_run; i++) {
                _cleanup_free_ char *cmd = NULL;
                if (t->v[i].action == A_WRITE || t->v[i].action == A_RESTORE)
                        cmd = next_command(rfs, p, t->v[i].kind);
                if (cmd)
                        json_string(&j, cmd);
        }
        json_end_array(&j);
        if (o->dry_run)
                json_kv_string(&j, "diff", log);
        else {
                _cleanup_free_ char *l = xstrdup(log);
                json_key(&j, "messages");
                json_begin_array(&j);
                for (char *save = NULL, *line = strtok_r(l, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                        json_string(&j, line + strspn(line, " "));
                json_end_array(&j);
        }
        json_end_object(&j);
        json_finish(&j);
}

/* install --dry-run: the diff of every file that would change, what would be kept */
static void dry_run(const struct rootfs *rfs, const struct manifest *m, const struct targets *t, FILE *out,
                    struct xerror *ret_error)
{
        for (size_t i = 0; i < t->n; i++) {
                const struct target *x = &t->v[i];
                _cleanup_free_ char *a = xasprintf("a%s", x->path), *b = xasprintf("b%s", x->path);
                _cleanup_free_ char *prev = NULL;
                const struct manifest_file *mf = m ? manifest_find(m, x->path) : NULL;
                size_t len;
                if (x->action == A_WRITE)
                        print_diff(out, x->exists ? a : "/dev/null", x->exists ? x->cur : "", b, x->content);
                else if (x->action == A_RESTORE && mf->prev_exists &&
                         read_backup(rfs, mf->prev_sha, &prev, &len, ret_error) == 0)
                        print_diff(out, a, x->cur, b, prev);
                else if (x->action == A_RESTORE)
                        print_diff(out, a, x->exists ? x->cur : "", "/dev/null", "");
                else if (x->action == A_KEEP_THEIRS) {
                        _cleanup_free_ char *shown = rootfs_display(rfs, x->path);
                        fprintf(out, _("# %s was changed since idlecfg wrote it: it would be kept "
                                       "(--force to overwrite)\n"), shown);
                }
        }
}

static int install_targets(const struct rootfs *rfs, const struct plan *p, const struct inventory *inv,
                           const struct install_options *o, FILE *out, struct targets *t,
                           struct xerror *ret_error)
{
        _cleanup_(manifest_freep) struct manifest *m = NULL;
        struct ctx c = { .rfs = rfs, .error = ret_error, .out = out };
        bool changes = false, conflicts = false;
        int r;

        r = manifest_load(rfs, &m, ret_error);
        if (r < 0 && r != -ENOENT)
                return r;
        r = collect_targets(rfs, p, m, t, ret_error);
        if (r < 0)
                return r;
        r = preflight(rfs, m, t, o->force, ret_error);
        if (r < 0)
                return r;
        for (size_t i = 0; i < t->n; i++) {
                changes = changes || t->v[i].action == A_WRITE || t->v[i].action == A_RESTORE;
                conflicts = conflicts || t->v[i].action == A_KEEP_THEIRS;
        }

        if (o->dry_run) {
                dry_run(rfs, m, t, out, ret_error);
                if (ret_error->message)
                        return -EBADMSG;
                return changes;
        }

        if (!m) {
                m = xcalloc(1, sizeof(*m));
        }
        c.m = m;
        {
                /* the state directory first; the parents it needs are recorded with the first manifest */
                r = rootfs_mkdir_p(rfs, BACKUP_DIR, collect_dir, m);
                if (r < 0) {
                        _cleanup_free_ char *shown = rootfs_display(rfs, BACKUP_DIR);
                        return xerror_set(ret_error, r, _("cannot create %s: %s"), shown, strerror(-r));
                }
        }
        free(m->version);
        m->version = xstrdup(PACKAGE_VERSION);
        if (!m->profile)
                m->profile = xstrdup(p->profile);
        if (!m->fingerprint)
                m->fingerprint = xstrdup(p->fingerprint);

        for (size_t i = 0; i < t->n; i++) {
                struct target *x = &t->v[i];
                if (x->action == A_WRITE)
                        r = do_write(&c, x);
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
                if (x->action == A_KEEP_THEIRS && x->content) {
                        _cleanup_free_ char *shown = rootfs_display(rfs, x->path);
                        fprintf(out, x->exists ? _("  kept %s: it was changed since idlecfg wrote it; ours is "
                                                   "beside it as %s%s (--force to overwrite)\n")
                                               : _("  did not recreate %s: it was deleted since idlecfg wrote "
                                                   "it; ours is beside it as %s%s (--force to recreate)\n"),
                                shown, shown, NEW_SUFFIX);
                } else if (x->action == A_KEEP_THEIRS) {
                        _cleanup_free_ char *shown = rootfs_display(rfs, x->path);
                        fprintf(out, _("  kept %s: it was changed since idlecfg wrote it and is no longer "
                                       "needed (--force to restore the original)\n"), shown);
                }
        }

        /* the whole record, now that the files are in place */
        free(m->profile);
        m->profile = xstrdup(p->profile);
        free(m->fingerprint);
        m->fingerprint = xstrdup(p->fingerprint);
        free(m->kernel);
        m->kernel = p->kernel ? xstrdup(p->kernel) : NULL;
        free(m->cmdline_target);
        m->cmdline_target = NULL;
        for (size_t i = 0; i < t->n; i++)
                if (t->v[i].kind >= T_CMDLINE_KERNEL && t->v[i].kind <= T_CMDLINE_OWN && t->v[i].content &&
                    !endswith_str(t->v[i].path, NEW_SUFFIX))
                        m->cmdline_target = xstrdup(t->v[i].path);
        kv_free(&m->inputs);
        refresh_inputs(rfs, inv->fingerprint, inv->kernel, p->profile, o->profiles_dir, REFRESH_CONTENT, &m->inputs);
        kv_add(&m->inputs, "profile-reason", p->profile_reason);
        r = manifest_save(rfs, m, ret_error);
        if (r < 0)
                return r;
        (void) gc_backups(rfs, m);

        if (!changes && !conflicts)
                fprintf(out, _("Nothing to change: every file is as the plan wants it.\n"));
        if (!o->json)
                next_steps(rfs, p, t, out);
        return changes;
}

int install_run(const struct rootfs *rfs, const struct plan *p, const struct inventory *inv,
                const struct install_options *o, FILE *out, struct xerror *ret_error)
{
        _cleanup_(targets_free) struct targets t = {};
        _cleanup_free_ char *log = NULL;
        size_t log_len = 0;
        FILE *text;
        int r;

        if (!o->json)
                return install_targets(rfs, p, inv, o, out, &t, ret_error);
        /* the text goes into the JSON (or, on failure, to json_failed, before the error) */
        text = open_memstream(&log, &log_len);
        if (!text)
                return -ENOMEM;
        r = install_targets(rfs, p, inv, o, text, &t, ret_error);
        if (fclose(text) != 0)
                return r < 0 ? r : -ENOMEM;
        if (r < 0) {
                if (o->json_failed)
                        fputs(log, o->json_failed);
                return r;
        }
        print_json(rfs, p, o, &t, r, log, out);
        return r;
}

/* ---- rollback ---- */

int install_rollback(const struct rootfs *rfs, bool force, FILE *out, struct xerror *ret_error)
{
        _cleanup_(manifest_freep) struct manifest *m = NULL;
        _cleanup_free_ char *mshown = rootfs_display(rfs, MANIFEST_PATH);
        size_t left = 0;
        int r;

        r = manifest_load(rfs, &m, ret_error);
        if (r == -ENOENT) {
                r = state_cleanup(rfs);
                if (r < 0)
                        return xerror_set(ret_error, r, _("cannot clean up %s: %s"), STATE_DIR, strerror(-r));
                return 1;
        }
        if (r < 0)
                return r;
        for (size_t i = m->n_files; i-- > 0;) {
                struct manifest_file *mf = &m->files[i];
                _cleanup_free_ char *shown = rootfs_display(rfs, mf->path), *cur = NULL;
                struct stat st;
                char sha[65] = "";
                size_t len = 0;
                bool exists;

                r = rootfs_lstat(rfs, mf->path, &st);
                if (r < 0 && r != -ENOENT)
                        return xerror_set(ret_error, r, _("cannot look at %s: %s"), shown, strerror(-r));
                exists = r == 0;
                if (exists && !S_ISREG(st.st_mode)) {
                        fprintf(out, _("  left %s alone: it is no longer a regular file\n"), shown);
                        left++;
                        continue;
                }
                if (exists) {
                        r = rootfs_read(rfs, mf->path, MAX_FILE, &cur, &len, NULL);
                        if (r < 0)
                                return xerror_set(ret_error, r, _("cannot read %s: %s"), shown, strerror(-r));
                        sha_of(cur, len, sha);
                }
                if (exists ? (mf->prev_exists && streq(sha, mf->prev_sha) && !streq(sha, mf->sha)) : !mf->prev_exists) {
                        /* already as it was (a crash before our write, or an earlier rollback) */
                        r = rootfs_remove_temps(rfs, mf->path);
                        if (r < 0)
                                return xerror_set(ret_error, r, _("cannot remove temporary files beside %s: %s"),
                                                  shown, strerror(-r));
                } else if ((exists && streq(sha, mf->sha)) || force) {
                        r = restore_file(rfs, mf, ret_error);
                        if (r < 0)
                                return r;
                        fprintf(out, mf->prev_exists ? _("  restored %s\n") : _("  removed %s\n"), shown);
                } else {
                        fprintf(out, exists ? _("  left %s alone: it was changed since idlecfg wrote it "
                                                "(--force restores the original anyway)\n")
                                            : _("  left %s alone: it was deleted since idlecfg wrote it "
                                                "(--force restores the original anyway)\n"), shown);
                        left++;
                        continue;
                }
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
                if (startswith(m->dirs[i], STATE_DIR) || streq(m->dirs[i], "/var") || streq(m->dirs[i], "/var/lib"))
                        continue;
                r = rootfs_rmdir(rfs, m->dirs[i]);
                if (r < 0 && r != -ENOTEMPTY)
                        return xerror_set(ret_error, r, _("cannot remove the directory %s: %s"), m->dirs[i],
                                          strerror(-r));
        }
        r = rootfs_unlink(rfs, MANIFEST_PATH);
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot remove %s: %s"), mshown, strerror(-r));
        r = state_cleanup(rfs);
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot clean up %s: %s"), STATE_DIR, strerror(-r));
        for (size_t i = m->n_dirs; i-- > 0;)
                if (streq(m->dirs[i], "/var") || streq(m->dirs[i], "/var/lib"))
                        (void) rootfs_rmdir(rfs, m->dirs[i]);
        fprintf(out, _("Every file idlecfg installed is as it was before.\n"));
        return 0;
}
