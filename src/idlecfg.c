/* idlecfg.c: command line, verb table and dispatch */
#include "config.h"

#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>

#include "apply.h"
#include "fault.h"
#include "image.h"
#include "install.h"
#include "inventory.h"
#include "manifest.h"
#include "next-steps.h"
#include "options.h"
#include "planner.h"
#include "profile-select.h"
#include "refresh.h"
#include "util.h"
#include "verb-apply.h"
#include "verb-check.h"
#include "verb-explain.h"
#include "verb-install.h"
#include "verb-measure.h"
#include "verb-power.h"
#include "verb-monitor.h"
#include "target.h"

/* One run of a verb: what main() gets for it before the verb runs, as the
 * verb table says, and what run_done() gives back afterwards. Verbs that
 * decide on the way (refresh, rollback --measure) call run_detect() and
 * run_plan() themselves; either way everything is freed in one place. */
struct run {
        const struct args *a;
        struct rootfs rfs;              /* the root, opened once */
        int lock;                       /* the lock of one instance, -1 while not taken */
        const char *profile;            /* --profile, or the one refresh takes from the manifest */
        char *chosen, *chosen_reason;   /* set: the profile refresh chose already, and why */
        struct inventory *inv;
        struct plan *plan;
        bool refresh;                   /* refresh installs: --image is the first-boot unit's */
};

/* what a verb needs before it runs */
enum {
        VERB_LOCK = 1 << 0,             /* the lock of the root (the writing verbs) */
        VERB_INVENTORY = 1 << 1,        /* the inventory of the machine */
        VERB_PLAN = 1 << 2,             /* the inventory and the plan */
};

struct verb {
        const char *name;
        int min_args, max_args;
        unsigned needs;                 /* VERB_*; every verb gets the root, opened */
        /* the verb's own argument and option checks, before anything is read or locked; NULL: none */
        int (*check)(const struct args *a, int argc, char **argv);
        int (*run)(struct run *c, int argc, char **argv);
        const char *help;
        unsigned options;               /* O_*: the options it takes besides O_COMMON */
        const char *synopsis;           /* its arguments, for its usage; NULL: none */
};

/* "idlecfg: WHAT: file:line: message" on stderr; FALLBACK without a message */
static void print_error(const char *what, const struct xerror *e, const char *fallback)
{
        _cleanup_free_ char *m = e->message ? xerror_format(e) : xstrdup(fallback);

        fprintf(stderr, "idlecfg: %s%s%s\n", what ? what : "", what ? ": " : "", m);
}

static int report(int r, struct xerror *e, const char *what)
{
        if (r >= 0)
                return EXIT_OK;
        print_error(what, e, strerror(-r));
        xerror_done(e);
        /* a malformed manifest, journal, profile or hwdb value is bad input */
        return r == -EINVAL || r == -EBADMSG ? EXIT_USAGE : EXIT_FAILURE_;
}

/* ---- the run context ---- */

static int run_open(struct run *c, const struct args *a)
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

static void run_done(struct run *c)
{
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
static int run_lock(struct run *c)
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

static int run_detect(struct run *c)
{
        struct detect_options o = { .rfs = &c->rfs, .kernel = c->a->kernel };
        int r;

        if (c->inv)
                return EXIT_OK;
        r = inventory_detect(&o, &c->inv);
        if (r < 0) {
                fprintf(stderr, _("idlecfg: detect failed: %s\n"), strerror(-r));
                return EXIT_FAILURE_;
        }
        return EXIT_OK;
}

static int run_plan(struct run *c)
{
        struct plan_options po = { .profile = c->chosen ? c->chosen : c->profile,
                                   .profile_reason = c->chosen_reason, .profiles_dir = c->a->profiles_dir };
        struct xerror e = {};
        int r;

        if (c->plan)
                return EXIT_OK;
        r = run_detect(c);
        if (r != EXIT_OK)
                return r;
        r = plan_build(c->inv, &po, &c->plan, &e);
        if (r < 0) {
                print_error(NULL, &e, strerror(-r));
                xerror_done(&e);
                /* a bad profile or hwdb is bad input; a missing libkmod is not */
                return r == -ENOMEM || r == -ELIBACC ? EXIT_FAILURE_ : EXIT_USAGE;
        }
        return EXIT_OK;
}

static int flush_stdout(void)
{
        if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, _("idlecfg: cannot write output: %s\n"), strerror(errno));
                return EXIT_FAILURE_;
        }
        return EXIT_OK;
}

/* ---- the verbs ---- */

static int verb_detect(struct run *c, int argc, char **argv)
{
        struct xerror e = {};

        /* the modules of every device are shown: resolve them all (libkmod) */
        if (inventory_resolve_modules(c->inv, &e) < 0) {
                print_error(NULL, &e, NULL);
                xerror_done(&e);
                return EXIT_FAILURE_;
        }
        if (c->a->json)
                inventory_print_json(c->inv, stdout);
        else
                inventory_print_text(c->inv, stdout);
        return flush_stdout();
}

static const struct { const char *name; enum emit_format fmt; } plan_formats[] = {
        { "udev", EMIT_UDEV }, { "modprobe", EMIT_MODPROBE },
        { "tmpfiles", EMIT_TMPFILES }, { "cmdline", EMIT_CMDLINE },
        { "sysctl", EMIT_SYSCTL },
        { "networkmanager", EMIT_NM }, { "link", EMIT_LINK },
};

static int check_plan(const struct args *a, int argc, char **argv)
{
        if (a->format && !streq(a->format, "text") && !streq(a->format, "json")) {
                bool known = false;
                for (size_t i = 0; i < ELEMENTSOF(plan_formats); i++)
                        known = known || streq(a->format, plan_formats[i].name);
                if (!known) {
                        fprintf(stderr, _("idlecfg: unknown --format '%s'; valid: text, json, udev, modprobe, "
                                          "tmpfiles, cmdline, sysctl, networkmanager, link\n"), a->format);
                        return EXIT_USAGE;
                }
        }
        return EXIT_OK;
}

static int verb_plan(struct run *c, int argc, char **argv)
{
        const struct args *a = c->a;
        int r = EXIT_OK;

        if (a->json || streq_ptr(a->format, "json"))
                plan_print_json(c->plan, stdout);
        else if (!a->format || streq(a->format, "text"))
                plan_print_text(c->plan, stdout);
        else
                for (size_t i = 0; i < ELEMENTSOF(plan_formats); i++)
                        if (streq(a->format, plan_formats[i].name)) {
                                struct xerror ee = {};
                                if (emit_render(c->plan, plan_formats[i].fmt, stdout, &ee) < 0) {
                                        print_error(NULL, &ee, "?");
                                        xerror_done(&ee);
                                        r = EXIT_USAGE;
                                }
                        }
        if (r == EXIT_OK)
                r = flush_stdout();
        return r;
}

static int verb_explain(struct run *c, int argc, char **argv)
{
        return explain_device(c->inv, c->plan, argv[0]);
}

/* --refuse-conflicts: another power tool sets the same knobs */
static int refuse_conflicts(const struct run *c)
{
        bool refused = false;

        for (size_t i = 0; c->a->refuse_conflicts && i < c->inv->n_tools; i++) {
                const struct power_tool *t = &c->inv->tools[i];
                if (!t->conflicts)
                        continue;
                fprintf(stderr, _("idlecfg: refused (--refuse-conflicts): %s%s%s is installed and sets knobs "
                                  "idlecfg sets too (%s)\n"),
                        t->name, t->path ? " " : "", strempty(t->path), _(t->touches));
                refused = true;
        }
        if (refused)
                fprintf(stderr, _("idlecfg: nothing written; remove or disable the tool, or install without "
                                  "--refuse-conflicts to let both run\n"));
        return refused ? EXIT_REFUSED : EXIT_OK;
}

/* install --image: the plan of no hardware, for the profile given (else the
 * first boot chooses by the machine's chassis) */
static void image_plan(const struct plan *p, const struct args *a, struct plan *ret)
{
        *ret = (struct plan) { .profile = p->profile, .fingerprint = (char *) IMAGE_FINGERPRINT, .kernel = p->kernel,
                               .profile_reason = a->profile ? (char *) "--profile"
                                                            : (char *) "image: chosen at the first boot" };
}

/* JSON: install --json (refresh prints text); TAKE_EFFECT: refresh --image,
 * the first-boot unit: what udev and sysfs can do now, the rest for the next boot */
static int do_install(struct run *c, bool json, bool take_effect)
{
        const struct args *a = c->a;
        const struct plan *p = c->plan;
        struct plan image;
        bool dry = a->dry_run || a->check, salt = streq_ptr(a->format, "salt");
        struct install_options o = { .dry_run = dry, .force = a->force, .profiles_dir = a->profiles_dir,
                                     .image = a->image && !c->refresh };
        _cleanup_(install_result_free) struct install_result res = {};
        _cleanup_(next_steps_free) struct next_steps steps = {};
        struct xerror e = {};
        size_t devices = 0;
        int r;

        /* no /sys (an image build's chroot) or nothing in it: a manifest for
         * a machine without devices would only be wrong on the real one */
        for (size_t i = 0; c->inv && i < _CL_MAX; i++)
                devices += c->inv->classes[i].n;
        if (devices == 0 && c->inv && !o.image) {
                fprintf(stderr, _("idlecfg: no devices found in /sys (is sysfs mounted?): refusing to install a "
                                  "configuration for a machine without devices; run install on the target machine, "
                                  "or in a chroot with its /sys bound (for an image booted on other machines: "
                                  "install --image)\n"));
                return EXIT_FAILURE_;
        }
        r = refuse_conflicts(c);
        if (r != EXIT_OK)
                return r;
        if (take_effect && !image_can_take_effect(&c->rfs)) {
                fprintf(stderr, _("idlecfg: %s is not the running system: nothing takes effect now; the next "
                                  "steps are below\n"), c->rfs.path);
                take_effect = false;
        }
        if (o.image) {
                image_plan(c->plan, a, &image);
                p = &image;
        } else if (!c->refresh && !json) {
                _cleanup_(manifest_freep) struct manifest *m = NULL;
                _cleanup_free_ char *why = NULL;
                struct xerror me = {};
                (void) manifest_load(&c->rfs, &m, &me);
                xerror_done(&me);
                if (image_foreign_hardware(&c->rfs, c->inv, m ? m->fingerprint : NULL, &why))
                        fprintf(stderr, _("idlecfg: warning: %s is not this machine's running system and %s: "
                                          "the settings are for this machine's hardware (fingerprint %s). For "
                                          "an image booted on other machines, use install --image: each "
                                          "configures itself at its first boot.\n"),
                                c->rfs.path, why, p->fingerprint);
        }
        if (!dry && !json && !salt)
                printf(o.image ? _("Installing image mode of profile %s (%s) into %s: no hardware setting; "
                                   "idlecfg-firstboot.service configures the machine the image boots on, at "
                                   "its first boot:\n")
                               : _("Installing profile %s (%s) into %s for fingerprint %s, kernel %s:\n"),
                       p->profile, p->profile_reason, c->rfs.path, p->fingerprint,
                       p->kernel ? p->kernel : _("(unknown)"));
        r = install_run(&c->rfs, p, c->inv, &o, &res, &e);
        next_steps_init(&steps, &c->rfs);
        if (r >= 0) {
                /* what this run's files call for, and what earlier runs' still do */
                next_steps_for_files(&steps, &c->rfs, &res, p->kernel, dry);
                next_steps_boot_pending(&steps, &c->rfs);
        }
        if (salt && r >= 0) {
                if (a->check && a->diff)
                        install_print(&res, stdout);
                install_print_salt(&res, a->check, r > 0, stdout);
        } else if (!json && a->check) {
                if (a->diff)
                        install_print(&res, stdout);
                install_print_check(&res, c->rfs.path, stdout);
        } else if (!json) {
                install_print(&res, stdout);
                if (r >= 0 && take_effect && r > 0) {
                        size_t failed = image_take_effect(&c->rfs, &res, p, stdout);
                        if (failed) {
                                fprintf(stderr, _("idlecfg: %zu step(s) for the next boot failed: see above\n"),
                                        failed);
                                return EXIT_BOOT_PENDING;
                        }
                } else if (r >= 0)
                        /* the next steps and the warnings plan prints (another power
                         * tool, the hwdb); after a diff as lines patch(1) skips */
                        install_print_next_steps(&steps, p, dry, stdout);
        } else {
                /* the text goes into the JSON (or, on failure, to stderr before the error) */
                _cleanup_free_ char *text = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&text, &len);

                if (!f)
                        return report(-ENOMEM, &e, _("install failed"));
                install_print(&res, f);
                if (fclose(f) != 0)
                        return report(-ENOMEM, &e, _("install failed"));
                if (r < 0)
                        fputs(text, stderr);
                else
                        install_print_json(&res, &c->rfs, p, c->inv, &steps, dry, r, text, stdout);
        }
        if (r < 0) {
                int code = report(r, &e, _("install failed"));
                if (res.state_refused) {
                        _cleanup_free_ char *dir = rootfs_display(&c->rfs, STATE_DIR);
                        fprintf(stderr, _("idlecfg: nothing was changed. rollback refuses the same state, with or "
                                          "without --force: inspect the file named above (backups in %s/backup "
                                          "are named by the SHA-256 of their content). To start afresh, put back "
                                          "by hand the files the manifest lists, then remove %s and install "
                                          "again.\n"), dir, dir);
                } else if (!dry && res.touched) {
                        fprintf(stderr, _("idlecfg: what was written before the failure is in the manifest: "
                                          "\"idlecfg rollback%s"), a->root ? " --root " : "");
                        if (a->root)
                                print_shell_word(a->root, stderr);
                        fputs(_("\" undoes it\n"), stderr);
                }
                return code;
        }
        if (a->check && !salt)
                return r > 0 ? EXIT_WOULD_CHANGE : EXIT_OK;
        /* Salt fails a state on any exit but 0 */
        if (salt)
                return EXIT_OK;
        if (a->dry_run && r > 0)
                return EXIT_CHANGES;
        /* refresh --image, the first-boot unit: its 4 is a step for the next
         * boot that failed (above); the steps it leaves are printed */
        if (a->image)
                return EXIT_OK;
        return next_steps_boot_incomplete(&steps) ? EXIT_BOOT_INCOMPLETE : EXIT_OK;
}

static int check_install(const struct args *a, int argc, char **argv)
{
        if (a->format && !streq(a->format, "salt")) {
                fprintf(stderr, _("idlecfg: install takes --format salt only, not '%s'\n"), a->format);
                return EXIT_USAGE;
        }
        if (a->check && a->dry_run) {
                fprintf(stderr, _("idlecfg: --check and --dry-run: choose one (--check --diff shows the diff)\n"));
                return EXIT_USAGE;
        }
        if (a->diff && !a->check) {
                fprintf(stderr, _("idlecfg: --diff goes with --check (--dry-run always shows the diff)\n"));
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

static int verb_install(struct run *c, int argc, char **argv)
{
        return do_install(c, c->a->json, false);
}

static int do_apply(void *userdata, FILE *out)
{
        const struct run *c = userdata;
        struct apply_options o = { .keep_going = c->a->keep_going, .dry_run = c->a->dry_run };
        _cleanup_(apply_result_free) struct apply_result res = {};
        _cleanup_free_ char *source = NULL;
        struct xerror e = {};
        int r;

        /* values per power source: those of the source the supplies show now, as verify compares */
        power_source_for_verify(c->plan, &source);
        fprintf(out, c->a->dry_run ? _("Would apply profile %s to the running system:\n")
                                   : _("Applying profile %s to the running system:\n"), c->plan->profile);
        if (source)
                fputs(source, out);
        r = apply_run(&c->rfs, c->plan, &o, &res, &e);
        apply_print(&res, c->a->dry_run, out);
        return r < 0 ? report(r, &e, _("apply failed")) : (c->a->dry_run && r > 0 ? EXIT_CHANGES : EXIT_OK);
}

static int verb_apply(struct run *c, int argc, char **argv)
{
        const struct args *a = c->a;
        struct measure_request q = { .seconds = a->measure, .json = a->json, .verbose = a->verbose };

        return a->measure ? measure_around(&q, "apply", c->plan, c->inv, do_apply, c) : do_apply(c, stdout);
}

struct rollback_ctx {
        const struct run *c;
        const char *what;
};

static int do_rollback(void *userdata, FILE *out)
{
        const struct rollback_ctx *rc = userdata;
        const struct run *c = rc->c;
        static const struct {
                const char *part;
                int (*undo)(const struct rootfs *rfs, bool force, struct rollback_result *ret, struct xerror *ret_error);
                bool values;            /* live values (apply), or files (install) */
                const char *failed;
        } parts[] = {
                /* the live values first, then the files */
                { "apply", apply_rollback, true, N_("rollback of apply failed") },
                { "install", install_rollback, false, N_("rollback of install failed") },
        };
        struct xerror e = {};
        bool any = false;
        int r, code = EXIT_OK;

        for (size_t i = 0; i < ELEMENTSOF(parts) && (code == EXIT_OK || code == EXIT_CHANGES); i++) {
                if (!streq(rc->what, "all") && !streq(rc->what, parts[i].part))
                        continue;
                _cleanup_(rollback_result_free) struct rollback_result res = {};
                r = parts[i].undo(&c->rfs, c->a->force, &res, &e);
                rollback_print(&res, parts[i].values, out);
                if (r == -EBUSY) {
                        /* some values or files were left alone: said, not a failure */
                        print_error(NULL, &e, strerror(-r));
                        xerror_done(&e);
                        code = EXIT_CHANGES;
                        any = true;
                } else if (r < 0)
                        code = report(r, &e, _(parts[i].failed));
                else
                        any = any || r == 0;
        }
        if (code == EXIT_OK && !any)
                fprintf(out, _("Nothing to roll back: no journal of apply and no manifest of install in %s.\n"),
                        c->rfs.path);
        return code;
}

static int check_rollback(const struct args *a, int argc, char **argv)
{
        const char *what = argc > 0 ? argv[0] : "all";

        if (!streq(what, "all") && !streq(what, "apply") && !streq(what, "install")) {
                fprintf(stderr, _("idlecfg: rollback takes apply, install or all, not '%s'\n"), what);
                return EXIT_USAGE;
        }
        /* JSON is the measurement's (the plan's inputs are taken without
         * --measure too, for a script's wrapper that gives them to every verb) */
        if (!a->measure && a->json) {
                fprintf(stderr, _("idlecfg: rollback prints JSON only with --measure (the measurement)\n"));
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

static int verb_rollback(struct run *c, int argc, char **argv)
{
        struct rollback_ctx rc = { .c = c, .what = argc > 0 ? argv[0] : "all" };

        if (c->a->measure) {
                /* the plan only names knobs and reasons in the measurement: without one, measured all the same */
                struct measure_request q = { .seconds = c->a->measure, .json = c->a->json, .verbose = c->a->verbose };
                (void) run_plan(c);
                return measure_around(&q, "rollback", c->plan, c->plan ? c->inv : NULL, do_rollback, &rc);
        }
        return do_rollback(&rc, stdout);
}

static int verb_measure(struct run *c, int argc, char **argv)
{
        struct measure_request q = { .seconds = c->a->seconds, .json = c->a->json, .verbose = c->a->verbose };

        return measure_verb(&q, c->plan, c->inv);
}

/* verify --nagios printed its status line: its exit code is the plugin's */
static bool nagios_judged;

static int check_verify(const struct args *a, int argc, char **argv)
{
        if (a->format && !streq(a->format, "prometheus") && !streq(a->format, "text") && !streq(a->format, "json")) {
                fprintf(stderr, _("idlecfg: unknown --format '%s' for verify; valid: text, json, prometheus\n"),
                        a->format);
                return EXIT_USAGE;
        }
        if (a->output && !streq_ptr(a->format, "prometheus")) {
                fprintf(stderr, _("idlecfg: --output goes with --format prometheus\n"));
                return EXIT_USAGE;
        }
        if (a->nagios && (a->format || a->json)) {
                fprintf(stderr, _("idlecfg: --nagios prints the plugin's status line: not with --format or --json\n"));
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

static int verb_verify(struct run *c, int argc, char **argv)
{
        const struct args *a = c->a;
        _cleanup_(verify_result_free) struct verify_result res = {};
        _cleanup_free_ char *source = NULL;
        _cleanup_(next_steps_free) struct next_steps steps = {};
        struct xerror e = {};
        int r;

        /* values per power source: those of the source the supplies show now */
        power_source_for_verify(c->plan, &source);
        r = verify_run(&c->rfs, c->plan, c->inv, &res, &e);
        if (r < 0)
                return report(r, &e, NULL);
        /* said in text, on stderr beside JSON; the plugin and the gauges stay as their readers parse them */
        if (source && !a->nagios && !streq_ptr(a->format, "prometheus"))
                fputs(source, a->json || streq_ptr(a->format, "json") ? stderr : stdout);
        if (a->nagios) {
                nagios_judged = true;
                r = verify_print_nagios(&res, c->plan, stdout);
                return flush_stdout() == EXIT_OK ? r : NAGIOS_UNKNOWN;
        }
        if (streq_ptr(a->format, "prometheus")) {
                if (a->output) {
                        int k = verify_write_prometheus(&res, c->plan, a->output);
                        if (k < 0) {
                                fprintf(stderr, _("idlecfg: cannot write %s: %s\n"), a->output, strerror(-k));
                                return EXIT_FAILURE_;
                        }
                } else
                        verify_print_prometheus(&res, c->plan, stdout);
                /* a monitoring system reads the gauges: drift is no failure of the run */
                return flush_stdout();
        }
        /* what the boot configuration still lacks of what was installed */
        next_steps_init(&steps, &c->rfs);
        next_steps_boot_pending(&steps, &c->rfs);
        verify_print(&res, c->plan, &steps, a->json || streq_ptr(a->format, "json"), stdout);
        if (r > 0)
                return EXIT_CHANGES;
        return next_steps_boot_incomplete(&steps) ? EXIT_BOOT_INCOMPLETE : EXIT_OK;
}

/* What the boot configuration of the root still lacks, said on every run
 * until it is done (the steps of an earlier install nobody ran): exit 4 */
static int boot_still_lacks(const struct run *c)
{
        _cleanup_(next_steps_free) struct next_steps steps = {};
        _cleanup_free_ char *header = NULL;

        /* refresh --image, the first-boot unit: it made the boot steps when it
         * installed, and is quiet on a configured machine */
        if (c->a->image)
                return EXIT_OK;
        next_steps_init(&steps, &c->rfs);
        next_steps_boot_pending(&steps, &c->rfs);
        if (!next_steps_boot_incomplete(&steps))
                return EXIT_OK;
        header = xasprintf(_("The boot configuration of %s still lacks what idlecfg installed; run:\n"),
                           c->rfs.path);
        next_steps_print_text(&steps, header, stdout);
        return EXIT_BOOT_INCOMPLETE;
}

static int verb_refresh(struct run *c, int argc, char **argv)
{
        const struct args *a = c->a;
        _cleanup_(manifest_freep) struct manifest *m = NULL;
        _cleanup_free_ char *name = NULL, *why = NULL, *chassis = NULL;
        struct kvlist now = {};
        struct xerror e = {};
        bool selected;
        size_t changed = 0;
        int r;

        r = manifest_load(&c->rfs, &m, &e);
        if (r == -ENOENT) {
                printf(_("idlecfg was not installed into %s (no manifest): nothing to refresh.\n"), c->rfs.path);
                return EXIT_OK;
        }
        if (r < 0) {
                return report(r, &e, NULL);
        }
        /* the profile install chose: --profile again if that is how it was chosen */
        c->refresh = true;
        /* an image's manifest: package hooks in the image build (a chroot of
         * the build host) must not install the build host's hardware; the
         * first boot's refresh --image installs for the machine it boots on */
        if (streq_ptr(m->fingerprint, IMAGE_FINGERPRINT) && !a->image) {
                if (a->verbose)
                        printf(_("%s is an image (install --image): the first boot of each machine configures "
                                 "it; nothing to refresh now.\n"), c->rfs.path);
                return EXIT_OK;
        }
        if (!c->profile && streq_ptr(kv_get(&m->inputs, "profile-reason"), "--profile"))
                c->profile = m->profile;

        /* The cheap look, what a package hook pays on every upgrade: the
         * fingerprint straight from /sys, the kernel, the profile's name and
         * the stat (then content) digests of the files. Unchanged: done. */
        {
                _cleanup_free_ char *kernel = NULL, *ksource = NULL, *kreason = NULL;
                char fp[17];

                if (target_kernel_choose(&c->rfs, a->kernel, &kernel, &ksource, &kreason) < 0)
                        kernel = NULL;
                refresh_fingerprint(fp, &chassis);
                r = profile_select_rootfs(&c->rfs, c->profile, chassis, &name, &why, &e);
                selected = r >= 0;
                /* (an install killed half-way is finished whatever the inputs say) */
                if (selected && !manifest_pending(m) &&
                    refresh_compare(&c->rfs, &m->inputs, fp, kernel, NULL, name, a->profiles_dir, &now) == 0) {
                        if (a->verbose)
                                printf(_("%s is up to date: nothing changed since the last install.\n"), c->rfs.path);
                        return boot_still_lacks(c);
                }
                xerror_done(&e);
                kv_free(&now);
        }

        /* something differs: the full inventory decides, and is what gets
         * installed; the profile is chosen again only if the inventory's
         * chassis type is not the one the cheap look read */
        r = run_detect(c);
        if (r != EXIT_OK)
                return r;
        if (!selected || !streq_ptr(chassis, kv_get(&c->inv->platform, "chassis_type"))) {
                free(name);
                free(why);
                name = why = NULL;
                r = profile_select_rootfs(&c->rfs, c->profile, kv_get(&c->inv->platform, "chassis_type"), &name,
                                          &why, &e);
                if (r < 0) {
                        print_error(NULL, &e, strerror(-r));
                        xerror_done(&e);
                        return EXIT_USAGE;
                }
        }
        changed = refresh_compare(&c->rfs, &m->inputs, c->inv->fingerprint, c->inv->kernel, c->inv, name, a->profiles_dir,
                                  &now);
        for (size_t i = 0; i < now.n; i++) {
                if (i == 0)
                        printf(_("Changed since the last install of %s:\n"), c->rfs.path);
                if (!now.v[i].value)
                        printf(_("  %s: files changed\n"), now.v[i].key);
                else
                        printf("  %s: %s\n", now.v[i].key, now.v[i].value);
        }
        kv_free(&now);
        if (manifest_pending(m)) {
                printf(_("The last install into %s was cut short: it is finished now.\n"), c->rfs.path);
                changed++;
        }
        if (changed == 0) {
                if (a->verbose)
                        printf(_("%s is up to date: nothing changed since the last install.\n"), c->rfs.path);
                return boot_still_lacks(c);
        }
        /* the plan of this inventory and this profile: nothing detected or chosen twice */
        c->chosen = TAKE_PTR(name);
        c->chosen_reason = TAKE_PTR(why);
        r = run_plan(c);
        if (r != EXIT_OK)
                return r;
        return do_install(c, false, a->image);
}

static int check_power_source(const struct args *a, int argc, char **argv)
{
        if (argc > 0 && !power_source_mode_ok(argv[0])) {
                fprintf(stderr, _("idlecfg: power-source takes event, boot, resume or show, not '%s'\n"), argv[0]);
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

static int check_apply(const struct args *a, int argc, char **argv)
{
        if (a->json && !a->measure) {
                fprintf(stderr, _("idlecfg: apply prints JSON only with --measure (the measurement)\n"));
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

static int verb_power_source(struct run *c, int argc, char **argv)
{
        return power_source_verb(&c->rfs, argc > 0 ? argv[0] : "event", c->a->dry_run, c->a->verbose);
}

static const struct verb verbs[] = {
        { "detect", 0, 0, VERB_INVENTORY, NULL, verb_detect,
          N_("Show the hardware, its power knobs and the fingerprint"), O_KERNEL | O_JSON, NULL },
        { "plan", 0, 0, VERB_PLAN, check_plan, verb_plan, N_("Show the settings for this machine and why"),
          O_PLANNING | O_JSON | O_FORMAT, NULL },
        { "explain", 1, 1, VERB_PLAN, NULL, verb_explain, N_("Show every decision about one device and why"),
          O_PLANNING, N_("DEVICE") },
        { "install", 0, 0, VERB_LOCK | VERB_PLAN, check_install, verb_install,
          N_("Write the configuration files into the root, with a manifest"),
          O_PLANNING | O_JSON | O_DRY_RUN | O_FORCE | O_WAIT | O_REFUSE_CONFLICTS | O_IMAGE | O_CHECK | O_DIFF |
          O_FORMAT, NULL },
        { "apply", 0, 0, VERB_LOCK | VERB_PLAN, check_apply, verb_apply,
          N_("Apply the settings to the running system now, journal first"),
          O_PLANNING | O_DRY_RUN | O_KEEP_GOING | O_WAIT | O_MEASURE | O_JSON, NULL },
        { "rollback", 0, 1, VERB_LOCK, check_rollback, verb_rollback,
          N_("Undo apply and/or install exactly: rollback [apply|install|all]"),
          O_FORCE | O_WAIT | O_MEASURE | O_JSON | O_PLANNING, N_("[apply|install|all]") },
        { "verify", 0, 0, VERB_PLAN, check_verify, verb_verify,
          N_("Compare the running system with the plan; list idle blockers"),
          O_PLANNING | O_JSON | O_FORMAT | O_NAGIOS | O_OUTPUT, NULL },
        /* detects and plans itself, only when something changed */
        { "refresh", 0, 0, VERB_LOCK, NULL, verb_refresh,
          N_("Re-install if hardware, kernel, hwdb or profile changed"),
          O_PLANNING | O_DRY_RUN | O_FORCE | O_WAIT | O_REFUSE_CONFLICTS | O_IMAGE, NULL },
        { "measure", 0, 0, VERB_PLAN, NULL, verb_measure,
          N_("Measure idle for --seconds: who suspends, who stays awake and why"),
          O_PLANNING | O_JSON | O_SECONDS, NULL },
        { "power-source", 0, 1, VERB_LOCK, check_power_source, verb_power_source,
          N_("Write the values of the current power source: power-source [event|boot|resume|show]"),
          O_DRY_RUN | O_WAIT, N_("[event|boot|resume|show]") },
};

static void print_exit_status(FILE *f)
{
        fputs(_("\nExit status: 0 success, 1 changes or drift found, 2 usage or bad input,\n"
                "3 runtime failure, 4 done but the boot configuration still lacks a step\n"
                "(refresh --image: a step for the next boot failed), 5 install --check: a run\n"
                "would change something, 6 refused: another power tool sets the same knobs\n"
                "(--refuse-conflicts).\n"), f);
}

static void usage(FILE *f)
{
        fprintf(f, _("Usage: %s [OPTIONS] VERB [ARGS]\n"), program_invocation_short_name);
        fputs(_("\nConfigure the idle power management of a Linux machine.\n"), f);
        fputs(_("\nVerbs:\n"), f);
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                fprintf(f, "  %-10s %s\n", verbs[i].name, _(verbs[i].help));
        fprintf(f, "  %-10s %s\n", "help", _("Show the usage of one verb: help VERB"));
        fputs(_("\nOptions:\n"), f);
        options_print_help(~0u, f);
        print_exit_status(f);
}

/* the usage of one verb: its arguments and the options it takes */
static void verb_usage(const struct verb *v, FILE *f)
{
        fprintf(f, _("Usage: %s %s [OPTIONS]%s%s\n"), program_invocation_short_name, v->name,
                v->synopsis ? " " : "", v->synopsis ? _(v->synopsis) : "");
        fprintf(f, "\n%s.\n", _(v->help));
        fputs(_("\nOptions:\n"), f);
        options_print_help(v->options | O_COMMON, f);
        print_exit_status(f);
}

static const struct verb *find_verb(const char *name)
{
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(verbs[i].name, name))
                        return &verbs[i];
        return NULL;
}

/* the nearest verb by edit distance, for "did you mean" */
static const char *nearest_verb(const char *name)
{
        const char *best = NULL;
        size_t best_d = 3;

        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                const char *v = verbs[i].name;
                size_t n = strlen(name), m = strlen(v), prev[32], cur[32];
                if (n >= 31 || m >= 31)
                        continue;
                for (size_t k = 0; k <= m; k++)
                        prev[k] = k;
                for (size_t a = 1; a <= n; a++) {
                        cur[0] = a;
                        for (size_t b = 1; b <= m; b++) {
                                size_t c = prev[b - 1] + (name[a - 1] != v[b - 1]);
                                if (prev[b] + 1 < c) c = prev[b] + 1;
                                if (cur[b - 1] + 1 < c) c = cur[b - 1] + 1;
                                cur[b] = c;
                        }
                        memcpy(prev, cur, sizeof(prev));
                }
                if (prev[m] < best_d) {
                        best_d = prev[m];
                        best = v;
                }
        }
        return best;
}

static const struct verb *find_verb_or_say(const char *name)
{
        const struct verb *v = find_verb(name);
        const char *near;

        if (v)
                return v;
        near = nearest_verb(name);
        fprintf(stderr, _("idlecfg: unknown verb '%s'\n"), name);
        if (near)
                fprintf(stderr, _("Did you mean '%s'?\n"), near);
        fprintf(stderr, _("Try '%s --help' for more information.\n"), program_invocation_short_name);
        return NULL;
}

/* The options V does not take; each is an error. A verb that takes an
 * option only with another says so in its check(). */
static int check_options(const struct verb *v, const struct args *a)
{
        unsigned extra = a->given & ~(v->options | O_COMMON);

        if (extra & O_MEASURE && streq(v->name, "measure")) {
                fprintf(stderr, _("idlecfg: --measure is for apply and rollback; measure takes --seconds\n"));
                return EXIT_USAGE;
        }
        if (extra) {
                fprintf(stderr, _("idlecfg: %s does not take --%s; 'idlecfg help %s' lists what it takes\n"),
                        v->name, option_name(extra), v->name);
                return EXIT_USAGE;
        }
        if (a->json && a->format) {
                fprintf(stderr, _("idlecfg: --json and --format exclude each other (--format=json is --json)\n"));
                return EXIT_USAGE;
        }
        if (a->measure && a->dry_run) {
                fprintf(stderr, _("idlecfg: --measure measures what apply or rollback changes: not with --dry-run\n"));
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

/* --kernel names a kernel the root does not have: a warning where idlecfg
 * only shows, an error where it writes (a configuration for a kernel that
 * is not there) */
static int check_kernel(const struct verb *v, const struct run *c)
{
        static const char *const dirs[] = { "/lib/modules", "/usr/lib/modules" };
        /* the verbs that write what they plan; rollback undoes, whatever kernel */
        bool writes = (v->needs & VERB_LOCK) && !streq(v->name, "rollback");

        if (!c->a->kernel)
                return EXIT_OK;
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                _cleanup_free_ char *p = xasprintf("%s/%s", dirs[i], c->a->kernel);
                _cleanup_close_ int fd = rootfs_openat(&c->rfs, p, O_PATH | O_DIRECTORY);
                if (fd >= 0)
                        return EXIT_OK;
        }
        {
                _cleanup_free_ char *shown = rootfs_display(&c->rfs, "/lib/modules");
                if (writes) {
                        fprintf(stderr, _("idlecfg: --kernel %s: no such kernel in %s; %s writes nothing for a "
                                          "kernel the root does not have\n"), c->a->kernel, shown, v->name);
                        return EXIT_USAGE;
                }
                fprintf(stderr, _("idlecfg: warning: --kernel %s: no such kernel in %s; the plan assumes its "
                                  "modules and defaults\n"), c->a->kernel, shown);
        }
        return EXIT_OK;
}

int main(int argc, char **argv)
{
        struct args a = { .wait_ms = 10000, .seconds = 20 };
        _cleanup_free_ char *profiles_dir = NULL;
        const struct verb *v;
        int r, nargs;

        /* only the categories idlecfg uses: the messages, and the character
         * set gettext converts them to. Numbers stay in the C locale (a
         * decimal point in every output), and a UTF-8 locale without the
         * locale archive costs a dozen file loads less per run (refresh's
         * start-up, tests/bench/ratio-bench.sh) */
        setlocale(LC_CTYPE, "");
        setlocale(LC_MESSAGES, "");
#if ENABLE_NLS
        {
                /* IDLECFG_LOCALEDIR overrides the compiled-in catalogue
                 * directory, for the uninstalled test suite (tests/i18n.sh);
                 * ignored in set-user-ID runs */
                const char *localedir = secure_getenv("IDLECFG_LOCALEDIR");

                bindtextdomain(PACKAGE, localedir && *localedir ? localedir : LOCALEDIR);
        }
#endif
        textdomain(PACKAGE);
        signals_setup();

        r = args_parse(argc, argv, &a);
        if (r >= 0)
                return r;
        /* idlecfg help [VERB] */
        if (optind < argc && streq(argv[optind], "help")) {
                if (argc - optind > 2) {
                        fprintf(stderr, _("idlecfg: help takes one verb\n"));
                        return EXIT_USAGE;
                }
                if (argc - optind == 1) {
                        usage(stdout);
                        return EXIT_OK;
                }
                v = find_verb_or_say(argv[optind + 1]);
                if (!v)
                        return EXIT_USAGE;
                verb_usage(v, stdout);
                return EXIT_OK;
        }
        if (a.help) {
                if (optind < argc && (v = find_verb(argv[optind])))
                        verb_usage(v, stdout);
                else
                        usage(stdout);
                return EXIT_OK;
        }
        if (optind >= argc) {
                fprintf(stderr, _("idlecfg: no verb given\n"));
                fprintf(stderr, _("Try '%s --help' for more information.\n"), program_invocation_short_name);
                return EXIT_USAGE;
        }
        v = find_verb_or_say(argv[optind]);
        if (!v)
                return EXIT_USAGE;
        nargs = argc - optind - 1;
        if (nargs < v->min_args || nargs > v->max_args) {
                if (nargs < v->min_args)
                        fprintf(stderr, _("idlecfg: %s needs the argument %s\n"), v->name, _(v->synopsis));
                else if (v->max_args == 0)
                        fprintf(stderr, _("idlecfg: %s takes no arguments, '%s' given\n"), v->name,
                                argv[optind + 1]);
                else
                        fprintf(stderr, _("idlecfg: %s takes at most %d argument(s), %d given\n"), v->name,
                                v->max_args, nargs);
                verb_usage(v, stderr);
                return EXIT_USAGE;
        }
        r = check_options(v, &a);
        if (r != EXIT_OK)
                return r;
        if (a.root) {
                struct stat st;
                if (stat(a.root, &st) < 0) {
                        if (errno == ENOENT)
                                fprintf(stderr, _("idlecfg: --root %s: no such directory\n"), a.root);
                        else
                                fprintf(stderr, _("idlecfg: --root %s: %s\n"), a.root, strerror(errno));
                        return EXIT_USAGE;
                }
                if (!S_ISDIR(st.st_mode)) {
                        fprintf(stderr, _("idlecfg: --root %s: not a directory\n"), a.root);
                        return EXIT_USAGE;
                }
        }
        /* a relative --profiles-dir is relative to the current directory,
         * not to the root */
        if (a.profiles_dir && a.profiles_dir[0] != '/') {
                _cleanup_free_ char *cwd = getcwd(NULL, 0);
                if (!cwd) {
                        fprintf(stderr, _("idlecfg: --profiles-dir %s: %s\n"), a.profiles_dir, strerror(errno));
                        return EXIT_FAILURE_;
                }
                profiles_dir = xasprintf("%s/%s", cwd, a.profiles_dir);
                a.profiles_dir = profiles_dir;
        }
        {
                struct run run;

                r = run_open(&run, &a);
                if (r == EXIT_OK && v->check)
                        r = v->check(&a, nargs, argv + optind + 1);
                if (r == EXIT_OK)
                        r = check_kernel(v, &run);
                /* --dry-run and install --check write nothing, not even the lock */
                if (r == EXIT_OK && (v->needs & VERB_LOCK) && !a.dry_run && !a.check)
                        r = run_lock(&run);
                if (r == EXIT_OK && (v->needs & VERB_PLAN))
                        r = run_plan(&run);
                else if (r == EXIT_OK && (v->needs & VERB_INVENTORY))
                        r = run_detect(&run);
                if (r == EXIT_OK)
                        r = v->run(&run, nargs, argv + optind + 1);
                run_done(&run);
                /* a Nagios plugin says UNKNOWN for whatever kept it from judging */
                if (a.nagios && !nagios_judged) {
                        printf("IDLECFG UNKNOWN - verify failed (exit %d)\n", r);
                        return NAGIOS_UNKNOWN;
                }
                return r;
        }
}
