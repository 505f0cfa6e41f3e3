/* idlecfg.c: command line, verb table and dispatch */
#include "config.h"

#include <getopt.h>
#include <sys/stat.h>

#include "apply.h"
#include "image.h"
#include "install.h"
#include "inventory.h"
#include "manifest.h"
#include "planner.h"
#include "refresh.h"
#include "util.h"
#include "verb-apply.h"
#include "verb-check.h"
#include "verb-install.h"
#include "verb-measure.h"
#include "verb-power.h"
#include "verb-monitor.h"
#include "target.h"

enum {
        EXIT_OK = 0,
        EXIT_CHANGES = 1,
        EXIT_USAGE = 2,
        EXIT_FAILURE_ = 3,
        EXIT_BOOT_PENDING = 4,          /* done; the boot configuration still lacks something */
        EXIT_WOULD_CHANGE = 5,          /* install --check: a run would change something */
};

struct args {
        const char *root;
        const char *kernel;
        const char *profile;
        const char *profiles_dir;
        const char *format;
        bool json;
        bool dry_run;
        bool force;
        bool keep_going;
        unsigned wait_ms;
        unsigned seconds;       /* measure --seconds */
        unsigned measure;       /* apply/rollback --measure: seconds, 0 without */
        int verbose;
        /* images and fleets (#22) */
        bool image;             /* install --image; refresh --image: the first-boot unit */
        bool check;             /* install --check */
        bool diff;              /* install --check --diff */
        bool nagios;            /* verify --nagios */
        const char *output;     /* verify --format=prometheus --output FILE */
};

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
        struct plan_options po = { .root = c->a->root, .profile = c->chosen ? c->chosen : c->profile,
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

/* does the argument name device D? sysfs path, PCI address, vendor:product or sysname */
static bool names_device(const struct device *d, const char *arg)
{
        const char *v, *p;
        size_t n;

        if (startswith(arg, "/sys/"))
                arg += 4;
        if (d->devpath && streq(d->devpath, arg))
                return true;
        if (d->name && streq(d->name, arg))
                return true;
        /* a PCI address without its domain: 00:14.0 */
        if (streq(d->class, "pci") && d->name && startswith(d->name, "0000:") && streq(d->name + 5, arg))
                return true;
        if (streq(d->class, "usb") && (p = strchr(arg, ':')) && (v = kv_get(&d->ids, "vendor"))) {
                n = (size_t) (p - arg);
                return strlen(v) == n && strncasecmp(v, arg, n) == 0 &&
                       strcasecmp(strempty(kv_get(&d->ids, "product")), p + 1) == 0;
        }
        return false;
}

static const struct device *find_device(const struct device *d, const char *arg)
{
        if (names_device(d, arg))
                return d;
        for (size_t i = 0; i < d->n_children; i++) {
                const struct device *x = find_device(&d->children[i], arg);
                if (x)
                        return x;
        }
        return NULL;
}

static int verb_explain(struct run *c, int argc, char **argv)
{
        const struct inventory *inv = c->inv;
        const struct plan *p = c->plan;
        const struct device *d = NULL;
        size_t shown = 0;

        for (size_t k = 0; k < _CL_MAX && !d; k++)
                for (size_t i = 0; i < inv->classes[k].n && !d; i++)
                        d = find_device(&inv->classes[k].v[i], argv[0]);
        if (!d) {
                fprintf(stderr, _("idlecfg: no device '%s' (give a sysfs path, a PCI address, "
                                  "USB vendor:product or a device name such as host0)\n"), argv[0]);
                return EXIT_USAGE;
        }
        printf(_("Device %s (%s) %s\n"), d->name, d->class, strempty(d->devpath));
        if (d->driver)
                printf(_("  driver %s\n"), d->driver);
        if (d->modalias)
                printf(_("  modalias %s\n"), d->modalias);
        for (size_t i = 0; i < d->knobs.n; i++)
                printf("  %s = %s\n", d->knobs.v[i].key, d->knobs.v[i].value ? d->knobs.v[i].value : _("(unreadable)"));
        printf(_("\nDecisions (profile %s, %s):\n"), p->profile, p->profile_reason);
        if (p->kernel && !streq_ptr(p->kernel_version, p->kernel)) {
                if (p->kernel_version)
                        printf(_("  kernel %s, version for _KERNEL ranges: %s (%s)\n"), p->kernel,
                               p->kernel_version, p->kernel_version_source);
                else
                        printf(_("  kernel %s, version for _KERNEL ranges: %s\n"), p->kernel, p->kernel_version_source);
        }
        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                /* a setting planned on the parent (an I2C adapter's on its controller) */
                bool parent = knob_on_parent(d->class) && s->device && d->devpath &&
                              startswith(d->devpath, s->device) && d->devpath[strlen(s->device)] == '/' &&
                              streq_ptr(s->device_class, d->class);
                if (!streq_ptr(s->device, d->devpath) && !parent)
                        continue;
                shown++;
                if (s->value)
                        printf("  %s: %s %s -> %s (%s)\n      %s\n", s->knob, s->attr ? s->attr : strempty(s->param),
                               s->current ? s->current : "?", s->value, mechanism_to_string(s->mech), s->reason);
                else
                        printf("  %s: %s\n", s->knob, s->reason);
        }
        if (!shown)
                printf(_("  none: no knob family plans anything for this device (no knob it manages, "
                         "or the device is not in a class idlecfg plans)\n"));
        return EXIT_OK;
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
                                   FIRSTBOOT_UNIT " configures the machine the image boots on, at its first "
                                   "boot:\n")
                               : _("Installing profile %s (%s) into %s for fingerprint %s, kernel %s:\n"),
                       p->profile, p->profile_reason, c->rfs.path, p->fingerprint,
                       p->kernel ? p->kernel : _("(unknown)"));
        r = install_run(&c->rfs, p, c->inv, &o, &res, &e);
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
                        size_t failed = image_take_effect(&res, p, stdout);
                        if (failed) {
                                fprintf(stderr, _("idlecfg: %zu step(s) for the next boot failed: see above\n"),
                                        failed);
                                return EXIT_BOOT_PENDING;
                        }
                } else if (r >= 0 && !dry)
                        install_print_next_steps(&res, &c->rfs, p, stdout);
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
                        install_print_json(&res, &c->rfs, p, dry, r, text, stdout);
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
                } else if (!dry && res.touched)
                        fprintf(stderr, _("idlecfg: what was written before the failure is in the manifest: "
                                          "\"idlecfg rollback%s%s\" undoes it\n"),
                                a->root ? " --root " : "", a->root ? a->root : "");
                return code;
        }
        if (a->check && !salt)
                return r > 0 ? EXIT_WOULD_CHANGE : EXIT_OK;
        if (a->dry_run)
                return r > 0 ? EXIT_CHANGES : EXIT_OK;
        return EXIT_OK;
}

static int check_install(const struct args *a, int argc, char **argv)
{
        if (a->format && !streq(a->format, "salt")) {
                fprintf(stderr, _("idlecfg: install takes --format salt only, not '%s'\n"), a->format);
                return EXIT_USAGE;
        }
        if (a->format && a->json) {
                fprintf(stderr, _("idlecfg: --format salt and --json: choose one\n"));
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
        verify_print(&res, c->plan, a->json || streq_ptr(a->format, "json"), stdout);
        return r > 0 ? EXIT_CHANGES : EXIT_OK;
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
                        return EXIT_OK;
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
                return EXIT_OK;
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

static int verb_power_source(struct run *c, int argc, char **argv)
{
        return power_source_verb(&c->rfs, argc > 0 ? argv[0] : "event", c->a->dry_run, c->a->verbose);
}

static const struct verb verbs[] = {
        { "detect", 0, 0, VERB_INVENTORY, NULL, verb_detect,
          N_("Show the hardware, its power knobs and the fingerprint") },
        { "plan", 0, 0, VERB_PLAN, check_plan, verb_plan, N_("Show the settings for this machine and why") },
        { "explain", 1, 1, VERB_PLAN, NULL, verb_explain, N_("Show every decision about one device and why") },
        { "install", 0, 0, VERB_LOCK | VERB_PLAN, check_install, verb_install,
          N_("Write the configuration files into the root, with a manifest") },
        { "apply", 0, 0, VERB_LOCK | VERB_PLAN, NULL, verb_apply,
          N_("Apply the settings to the running system now, journal first") },
        { "rollback", 0, 1, VERB_LOCK, check_rollback, verb_rollback,
          N_("Undo apply and/or install exactly: rollback [apply|install|all]") },
        { "verify", 0, 0, VERB_PLAN, check_verify, verb_verify,
          N_("Compare the running system with the plan; list idle blockers") },
        /* detects and plans itself, only when something changed */
        { "refresh", 0, 0, VERB_LOCK, NULL, verb_refresh,
          N_("Re-install if hardware, kernel, hwdb or profile changed") },
        { "measure", 0, 0, VERB_PLAN, NULL, verb_measure,
          N_("Measure idle for --seconds: who suspends, who stays awake and why") },
        { "power-source", 0, 1, VERB_LOCK, check_power_source, verb_power_source,
          N_("Write the values of the current power source: power-source [event|boot|resume|show]") },
};

static void usage(FILE *f)
{
        fprintf(f, _("Usage: %s [OPTIONS] VERB [ARGS]\n"), program_invocation_short_name);
        fputs(_("\nConfigure the idle power management of a Linux machine.\n"), f);
        fputs(_("\nVerbs:\n"), f);
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                fprintf(f, "  %-10s %s\n", verbs[i].name, _(verbs[i].help));
        fputs(_("\nOptions:\n"), f);
        fputs(_("  -r, --root DIR        operate on the system below DIR (default /)\n"), f);
        fputs(_("  -k, --kernel VERSION  check modules against DIR/lib/modules/VERSION\n"), f);
        fputs(_("  -j, --json            print JSON (schema in idlecfg(8))\n"), f);
        fputs(_("  -p, --profile NAME    use profile NAME (default: idlecfg.conf, else by chassis)\n"), f);
        fputs(_("      --profiles-dir DIR  look for profiles in DIR too (uninstalled runs)\n"), f);
        fputs(_("  -f, --format FORMAT   plan: text, json, udev, modprobe, tmpfiles, cmdline,\n                        sysctl, networkmanager or link; install: salt;\n"
                "                        verify: prometheus\n"), f);
        fputs(_("  -n, --dry-run         install: print the diff; apply: what would change; write nothing\n"), f);
        fputs(_("      --force           install, rollback: overwrite files or values changed by others\n"), f);
        fputs(_("      --keep-going      apply: apply what the kernel takes instead of undoing the run\n"), f);
        fputs(_("      --wait SECONDS    wait this long for another idlecfg to finish (default 10)\n"), f);
        fputs(_("      --seconds N       measure: the length of the measurement (default 20)\n"), f);
        fputs(_("      --measure N       apply, rollback: measure N seconds before and after\n"), f);
        fputs(_("      --image           install: no hardware setting, the first-boot unit enabled;\n"
                "                        refresh: run as that unit (see IMAGES in idlecfg(8))\n"), f);
        fputs(_("      --check           install: exit 5 if a run would change something, 0 if not\n"), f);
        fputs(_("      --diff            install --check: show the diff too\n"), f);
        fputs(_("      --nagios          verify: a Nagios plugin's status line and exit code\n"), f);
        fputs(_("      --output FILE     verify --format prometheus: write FILE atomically\n"), f);
        fputs(_("  -v, --verbose         say more\n"), f);
        fputs(_("  -h, --help            show this help\n"), f);
        fputs(_("  -V, --version         show the version\n"), f);
        fputs(_("\nExit status: 0 success, 1 changes or drift found, 2 usage or bad input,\n"
                "3 runtime failure, 4 refresh --image: a step for the next boot failed,\n"
                "5 install --check: a run would change something.\n"), f);
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

int main(int argc, char **argv)
{
        static const struct option options[] = {
                { "root", required_argument, NULL, 'r' },
                { "kernel", required_argument, NULL, 'k' },
                { "json", no_argument, NULL, 'j' },
                { "profile", required_argument, NULL, 'p' },
                { "profiles-dir", required_argument, NULL, 'P' },
                { "format", required_argument, NULL, 'f' },
                { "dry-run", no_argument, NULL, 'n' },
                { "force", no_argument, NULL, 'F' },
                { "keep-going", no_argument, NULL, 'K' },
                { "wait", required_argument, NULL, 'W' },
                { "seconds", required_argument, NULL, 'S' },
                { "measure", required_argument, NULL, 'M' },
                { "verbose", no_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                { "image", no_argument, NULL, 'I' },
                { "check", no_argument, NULL, 'C' },
                { "diff", no_argument, NULL, 'D' },
                { "nagios", no_argument, NULL, 'N' },
                { "output", required_argument, NULL, 'O' },
                {}
        };
        struct args a = { .wait_ms = 10000, .seconds = 20 };
        const struct verb *v;
        int c, nargs;

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

        while ((c = getopt_long(argc, argv, "r:k:jp:f:nvhV", options, NULL)) >= 0) {
                switch (c) {
                case 'r':
                        if (!*optarg) {
                                fprintf(stderr, _("idlecfg: --root needs a directory\n"));
                                return EXIT_USAGE;
                        }
                        a.root = optarg;
                        break;
                case 'k':
                        if (!*optarg || strchr(optarg, '/') || streq(optarg, "..") || streq(optarg, ".")) {
                                fprintf(stderr, _("idlecfg: --kernel '%s' is not a kernel release\n"), optarg);
                                return EXIT_USAGE;
                        }
                        a.kernel = optarg;
                        break;
                case 'j':
                        a.json = true;
                        break;
                case 'p':
                        if (!profile_name_valid(optarg)) {
                                fprintf(stderr, _("idlecfg: --profile '%s' is not a profile name\n"), optarg);
                                return EXIT_USAGE;
                        }
                        a.profile = optarg;
                        break;
                case 'P':
                        a.profiles_dir = optarg;
                        break;
                case 'f':
                        a.format = optarg;
                        break;
                case 'n':
                        a.dry_run = true;
                        break;
                case 'F':
                        a.force = true;
                        break;
                case 'K':
                        a.keep_going = true;
                        break;
                case 'W': {
                        char *end;
                        unsigned long sec;
                        errno = 0;
                        sec = strtoul(optarg, &end, 10);
                        if (errno || *end || !*optarg || optarg[0] == '-' || sec > 3600) {
                                fprintf(stderr, _("idlecfg: --wait takes seconds from 0 to 3600, not '%s'\n"), optarg);
                                return EXIT_USAGE;
                        }
                        a.wait_ms = (unsigned) sec * 1000;
                        break;
                }
                case 'S':
                case 'M': {
                        char *end;
                        unsigned long sec;
                        errno = 0;
                        sec = strtoul(optarg, &end, 10);
                        if (errno || *end || !*optarg || optarg[0] == '-' || sec < 1 || sec > 3600) {
                                fprintf(stderr, _("idlecfg: --%s takes seconds from 1 to 3600, not '%s'\n"),
                                        c == 'S' ? "seconds" : "measure", optarg);
                                return EXIT_USAGE;
                        }
                        *(c == 'S' ? &a.seconds : &a.measure) = (unsigned) sec;
                        break;
                }
                case 'v':
                        a.verbose++;
                        break;
                case 'I':
                        a.image = true;
                        break;
                case 'C':
                        a.check = true;
                        break;
                case 'D':
                        a.diff = true;
                        break;
                case 'N':
                        a.nagios = true;
                        break;
                case 'O':
                        if (!*optarg) {
                                fprintf(stderr, _("idlecfg: --output needs a file name\n"));
                                return EXIT_USAGE;
                        }
                        a.output = optarg;
                        break;
                case 'h':
                        usage(stdout);
                        return EXIT_OK;
                case 'V':
                        printf("idlecfg %s\n", PACKAGE_VERSION);
                        return EXIT_OK;
                default:
                        fprintf(stderr, _("Try '%s --help' for more information.\n"), program_invocation_short_name);
                        return EXIT_USAGE;
                }
        }
        if (optind >= argc) {
                fprintf(stderr, _("idlecfg: no verb given\n"));
                fprintf(stderr, _("Try '%s --help' for more information.\n"), program_invocation_short_name);
                return EXIT_USAGE;
        }
        v = find_verb(argv[optind]);
        if (!v) {
                const char *near = nearest_verb(argv[optind]);
                fprintf(stderr, _("idlecfg: unknown verb '%s'\n"), argv[optind]);
                if (near)
                        fprintf(stderr, _("Did you mean '%s'?\n"), near);
                fprintf(stderr, _("Try '%s --help' for more information.\n"), program_invocation_short_name);
                return EXIT_USAGE;
        }
        nargs = argc - optind - 1;
        if (nargs < v->min_args || nargs > v->max_args) {
                fprintf(stderr, _("idlecfg: %s takes %d to %d arguments, %d given\n"),
                        v->name, v->min_args, v->max_args, nargs);
                return EXIT_USAGE;
        }
        if (a.measure && (!streq(v->name, "apply") && !streq(v->name, "rollback"))) {
                fprintf(stderr, _("idlecfg: --measure is for apply and rollback; measure takes --seconds\n"));
                return EXIT_USAGE;
        }
        if ((a.image && !streq(v->name, "install") && !streq(v->name, "refresh")) ||
            ((a.check || a.diff) && !streq(v->name, "install")) ||
            ((a.nagios || a.output) && !streq(v->name, "verify"))) {
                fprintf(stderr, _("idlecfg: --image is for install and refresh, --check and --diff for install, "
                                  "--nagios and --output for verify\n"));
                return EXIT_USAGE;
        }
        if (a.measure && a.dry_run) {
                fprintf(stderr, _("idlecfg: --measure measures what apply or rollback changes: not with --dry-run\n"));
                return EXIT_USAGE;
        }
        if (a.root) {
                struct stat st;
                if (stat(a.root, &st) < 0 || !S_ISDIR(st.st_mode)) {
                        fprintf(stderr, _("idlecfg: --root %s: not a directory\n"), a.root);
                        return EXIT_USAGE;
                }
        }
        {
                struct run run;
                int r = run_open(&run, &a);

                if (r == EXIT_OK && v->check)
                        r = v->check(&a, nargs, argv + optind + 1);
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
