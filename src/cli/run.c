/* run.c: one run of a verb: the root, the lock, the inventory and the plan,
 * freed in one place; and how a verb reports an error */
#include "config.h"

#include "engine/install.h"
#include "engine/rollback.h"
#include "pipeline/detect.h"
#include "pipeline/planner.h"
#include "cli/run.h"
#include "state/manifest.h"

/* "idlecfg: WHAT: file:line: message" on stderr; FALLBACK without a message */
void print_error(const char *what, const struct xerror *e, const char *fallback)
{
        _cleanup_free_ char *m = e->message ? xerror_format(e) : xstrdup(fallback);

        fprintf(stderr, "idlecfg: %s%s%s\n", what ? what : "", what ? ": " : "", m);
}

int text_width(FILE *f)
{
        int fd = fileno(f);

        return fd >= 0 && isatty(fd) ? 80 : 0;
}

int report(int r, struct xerror *e, const char *what)
{
        if (r >= 0)
                return EXIT_OK;
        print_error(what, e, strerror(-r));
        xerror_done(e);
        /* a malformed manifest, journal, profile or hwdb value is bad input */
        return r == -EINVAL || r == -EBADMSG ? EXIT_USAGE : EXIT_FAILURE_;
}

int run_open(struct run *c, const struct args *a)
{
        int r;

        *c = (struct run) { .a = a, .rfs = { .fd = -1 }, .lock = -1, .profile = a->profile };
        r = rootfs_open(a->root, &c->rfs);
        if (r < 0) {
                fprintf(stderr, _("idlecfg: cannot open %s: %s\n"), a->root ? a->root : "/", strerror(-r));
                return EXIT_FAILURE_;
        }
        return EXIT_OK;
}

/* what the run could not read for want of privilege, and why: an answer
 * that differs from root's says where */
static void say_denied(void)
{
        size_t n;
        const struct denied *d = denied_list(&n);

        for (size_t i = 0; i < n; i++)
                fprintf(stderr, _("idlecfg: warning: cannot read %s: %s (root can): what it holds is not known to "
                                  "this run\n"), d[i].path, strerror(-d[i].err));
}

void run_done(struct run *c)
{
        say_denied();
        run_manifest_drop(c);
        plan_free(c->plan);
        inventory_free(c->inv);
        free(c->chosen);
        free(c->chosen_reason);
        rootfs_unlock(&c->rfs, c->lock);
        /* what the optional files of the root made idlecfg assume */
        for (size_t i = 0; c->rfs.warnings && i < c->rfs.warnings->n; i++)
                fprintf(stderr, _("idlecfg: warning: %s\n"), c->rfs.warnings->v[i]);
        rootfs_close(&c->rfs);
        *c = (struct run) { .lock = -1 };
}

/* the lock of one instance, for every writing verb */
int run_lock(struct run *c)
{
        struct xerror e = {};
        int r = rootfs_lock(&c->rfs, c->a->wait_ms, &e);

        /* a read-only root: nobody can change it, nor leave a lock in it;
         * what would need a write fails later and says so */
        if (r == -EROFS) {
                xerror_done(&e);
                return EXIT_OK;
        }
        if (r < 0) {
                print_error(NULL, &e, strerror(-r));
                xerror_done(&e);
                return EXIT_FAILURE_;
        }
        c->lock = r;
        return EXIT_OK;
}

int run_detect(struct run *c)
{
        struct detect_options o = { .rfs = &c->rfs, .kernel = c->a->kernel };
        int r;

        if (c->inv)
                return EXIT_OK;
        r = inventory_detect(&o, &c->inv);
        if (r < 0) {
                fprintf(stderr, _("idlecfg: detect failed: %s\n"), detect_error(r));
                return EXIT_FAILURE_;
        }
        return EXIT_OK;
}

int run_manifest(struct run *c, const struct manifest **ret, struct xerror *ret_error)
{
        if (!c->manifest_read) {
                c->manifest_r = manifest_load(&c->rfs, &c->manifest, &c->manifest_error);
                if (c->manifest_r < 0) {
                        manifest_free(c->manifest);
                        c->manifest = NULL;
                }
                c->manifest_read = true;
        }
        *ret = c->manifest;
        if (c->manifest_r < 0 && c->manifest_error.message)
                xerror_set_take(ret_error, c->manifest_error.file, c->manifest_error.line,
                                xstrdup(c->manifest_error.message));
        return c->manifest_r;
}

void run_manifest_drop(struct run *c)
{
        manifest_free(c->manifest);
        c->manifest = NULL;
        xerror_done(&c->manifest_error);
        c->manifest_read = false;
}

int run_installed_profile(struct run *c)
{
        const struct manifest *m;
        struct xerror e = {};
        int r = run_manifest(c, &m, &e);

        if (r == -ENOENT)
                return EXIT_OK;
        if (r < 0)
                return report(r, &e, NULL);
        /* an image's manifest names no machine's profile: the first boot chooses */
        if (c->profile || c->chosen || !m->profile || streq_ptr(m->fingerprint, IMAGE_FINGERPRINT))
                return EXIT_OK;
        c->chosen = xstrdup(m->profile);
        c->chosen_reason = xstrdup(_("installed, from the manifest"));
        return EXIT_OK;
}

int run_plan(struct run *c)
{
        struct plan_options po = { .profile = c->chosen ? c->chosen : c->profile,
                                   .profile_reason = c->chosen_reason, .profiles_dir = c->a->profiles_dir };
        const struct manifest *m;
        _cleanup_free_ char *own = NULL;
        struct xerror e = {};
        int r;

        if (c->plan)
                return EXIT_OK;
        r = run_detect(c);
        if (r != EXIT_OK)
                return r;
        /* the words an earlier install added are not the administrator's command line */
        r = run_manifest(c, &m, &e);
        if (r == 0) {
                po.own_words = own = install_own_words(&c->rfs, m);
                po.dropped_words = m->dropped_words;
        } else if (r == -ENOENT)
                /* none (lost?): the words the note beside /etc/kernel/cmdline names */
                po.own_words = own = install_own_words(&c->rfs, NULL);
        else if (!c->manifest_verb) {
                /* a refused manifest is said, not passed over (verify refuses it: run_installed_profile()) */
                _cleanup_free_ char *why = e.message ? xerror_format(&e) : xstrdup(strerror(-r));
                fprintf(stderr, _("idlecfg: warning: %s: the plan takes the words an install added to the "
                                  "kernel command line for the administrator's\n"), why);
        }
        xerror_done(&e);
        r = plan_build(c->inv, &po, &c->plan, &e);
        if (r < 0) {
                print_error(NULL, &e, strerror(-r));
                xerror_done(&e);
                /* a bad profile or hwdb is bad input; a missing libkmod is not */
                return r == -ENOMEM || r == -ELIBACC ? EXIT_FAILURE_ : EXIT_USAGE;
        }
        return EXIT_OK;
}

int flush_stdout(void)
{
        if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, _("idlecfg: cannot write output: %s\n"), strerror(errno));
                return EXIT_FAILURE_;
        }
        return EXIT_OK;
}
