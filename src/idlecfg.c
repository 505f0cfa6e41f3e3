/* idlecfg.c: command line, verb table and dispatch */
#include "config.h"

#include <getopt.h>
#include <sys/stat.h>

#include "apply.h"
#include "install.h"
#include "inventory.h"
#include "manifest.h"
#include "planner.h"
#include "refresh.h"
#include "util.h"
#include "verb-measure.h"

enum {
        EXIT_OK = 0,
        EXIT_CHANGES = 1,
        EXIT_USAGE = 2,
        EXIT_FAILURE_ = 3,
};

struct args {
        const char *root;
        const struct rootfs *rfs;       /* the root, opened once in main() */
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
};

struct verb {
        const char *name;
        int min_args, max_args;
        int (*run)(const struct args *a, int argc, char **argv);
        const char *help;
};

static int verb_detect(const struct args *a, int argc, char **argv)
{
        struct detect_options o = { .rfs = a->rfs, .kernel = a->kernel };
        struct inventory *inv = NULL;
        int r;

        r = inventory_detect(&o, &inv);
        if (r < 0) {
                fprintf(stderr, _("idlecfg: detect failed: %s\n"), strerror(-r));
                return EXIT_FAILURE_;
        }
        if (a->json)
                inventory_print_json(inv, stdout);
        else
                inventory_print_text(inv, stdout);
        inventory_free(inv);
        if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, _("idlecfg: cannot write output: %s\n"), strerror(errno));
                return EXIT_FAILURE_;
        }
        return EXIT_OK;
}

static int build_plan(const struct args *a, struct inventory **ret_inv, struct plan **ret_plan)
{
        struct detect_options o = { .rfs = a->rfs, .kernel = a->kernel };
        struct plan_options po = { .root = a->root, .profile = a->profile, .profiles_dir = a->profiles_dir };
        struct plan_error pe = {};
        int r;

        r = inventory_detect(&o, ret_inv);
        if (r < 0) {
                fprintf(stderr, _("idlecfg: detect failed: %s\n"), strerror(-r));
                return EXIT_FAILURE_;
        }
        r = plan_build(*ret_inv, &po, ret_plan, &pe);
        if (r < 0) {
                fprintf(stderr, "idlecfg: %s\n", pe.message ? pe.message : strerror(-r));
                plan_error_done(&pe);
                inventory_free(*ret_inv);
                /* a bad profile or hwdb is bad input */
                return r == -ENOMEM ? EXIT_FAILURE_ : EXIT_USAGE;
        }
        return EXIT_OK;
}

static int verb_plan(const struct args *a, int argc, char **argv)
{
        static const struct { const char *name; enum emit_format fmt; } formats[] = {
                { "udev", EMIT_UDEV }, { "modprobe", EMIT_MODPROBE },
                { "tmpfiles", EMIT_TMPFILES }, { "cmdline", EMIT_CMDLINE },
        };
        struct inventory *inv = NULL;
        struct plan *p = NULL;
        int r;

        if (a->format && !streq(a->format, "text") && !streq(a->format, "json")) {
                bool known = false;
                for (size_t i = 0; i < ELEMENTSOF(formats); i++)
                        known = known || streq(a->format, formats[i].name);
                if (!known) {
                        fprintf(stderr, _("idlecfg: unknown --format '%s'; valid: text, json, udev, modprobe, "
                                          "tmpfiles, cmdline\n"), a->format);
                        return EXIT_USAGE;
                }
        }
        r = build_plan(a, &inv, &p);
        if (r != EXIT_OK)
                return r;
        if (a->json || streq_ptr(a->format, "json"))
                plan_print_json(p, stdout);
        else if (!a->format || streq(a->format, "text"))
                plan_print_text(p, stdout);
        else
                for (size_t i = 0; i < ELEMENTSOF(formats); i++)
                        if (streq(a->format, formats[i].name)) {
                                struct emit_error ee = {};
                                if (emit_render(p, formats[i].fmt, stdout, &ee) < 0) {
                                        fprintf(stderr, "idlecfg: %s\n", ee.message ? ee.message : "?");
                                        emit_error_done(&ee);
                                        r = EXIT_USAGE;
                                }
                        }
        plan_free(p);
        inventory_free(inv);
        if (r == EXIT_OK && (fflush(stdout) != 0 || ferror(stdout))) {
                fprintf(stderr, _("idlecfg: cannot write output: %s\n"), strerror(errno));
                return EXIT_FAILURE_;
        }
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

static int verb_explain(const struct args *a, int argc, char **argv)
{
        struct inventory *inv = NULL;
        struct plan *p = NULL;
        const struct device *d = NULL;
        size_t shown = 0;
        int r;

        r = build_plan(a, &inv, &p);
        if (r != EXIT_OK)
                return r;
        for (size_t c = 0; c < _CL_MAX && !d; c++)
                for (size_t i = 0; i < inv->classes[c].n && !d; i++)
                        d = find_device(&inv->classes[c].v[i], argv[0]);
        if (!d) {
                fprintf(stderr, _("idlecfg: no device '%s' (give a sysfs path, a PCI address, "
                                  "USB vendor:product or a device name such as host0)\n"), argv[0]);
                plan_free(p);
                inventory_free(inv);
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
        plan_free(p);
        inventory_free(inv);
        return EXIT_OK;
}


/* the lock of one instance, for every writing verb */
static int lock_root(const struct args *a, int *ret_lock)
{
        struct xerror e = {};
        int r = rootfs_lock(a->rfs, a->wait_ms, &e);

        if (r < 0) {
                fprintf(stderr, "idlecfg: %s\n", e.message);
                xerror_done(&e);
                return EXIT_FAILURE_;
        }
        *ret_lock = r;
        return EXIT_OK;
}

static int report(int r, struct xerror *e, const char *what)
{
        if (r >= 0)
                return EXIT_OK;
        fprintf(stderr, "idlecfg: %s%s%s\n", what ? what : "", what ? ": " : "", e->message ? e->message : strerror(-r));
        xerror_done(e);
        /* a malformed manifest, journal, profile or hwdb value is bad input */
        return r == -EINVAL || r == -EBADMSG ? EXIT_USAGE : EXIT_FAILURE_;
}

/* JSON: install --json (refresh prints text) */
static int do_install(const struct args *a, const struct rootfs *rfs, struct inventory *inv, struct plan *p, bool json)
{
        struct install_options o = { .dry_run = a->dry_run, .force = a->force, .profiles_dir = a->profiles_dir,
                                     .json = json };
        struct xerror e = {};
        int r;

        if (!a->dry_run && !json)
                printf(_("Installing profile %s (%s) into %s for fingerprint %s, kernel %s:\n"), p->profile,
                       p->profile_reason, rfs->path, p->fingerprint, p->kernel ? p->kernel : _("(unknown)"));
        r = install_run(rfs, p, inv, &o, stdout, &e);
        if (r < 0) {
                int code = report(r, &e, _("install failed"));
                if (!a->dry_run)
                        fprintf(stderr, _("idlecfg: what was written before the failure is in the manifest: "
                                          "\"idlecfg rollback%s%s\" undoes it\n"),
                                a->root ? " --root " : "", a->root ? a->root : "");
                return code;
        }
        if (a->dry_run)
                return r > 0 ? EXIT_CHANGES : EXIT_OK;
        return EXIT_OK;
}

static int verb_install(const struct args *a, int argc, char **argv)
{
        struct inventory *inv = NULL;
        struct plan *p = NULL;
        _cleanup_close_ int lock = -1;
        int r;

        r = lock_root(a, &lock);
        if (r != EXIT_OK)
                return r;
        r = build_plan(a, &inv, &p);
        if (r == EXIT_OK) {
                r = do_install(a, a->rfs, inv, p, a->json);
                plan_free(p);
                inventory_free(inv);
        }
        return r;
}

struct apply_ctx {
        const struct args *a;
        const struct plan *p;
};

static int do_apply(void *userdata, FILE *out)
{
        const struct apply_ctx *c = userdata;
        struct apply_options o = { .keep_going = c->a->keep_going, .dry_run = c->a->dry_run };
        struct xerror e = {};
        int r;

        fprintf(out, c->a->dry_run ? _("Would apply profile %s to the running system:\n")
                                   : _("Applying profile %s to the running system:\n"), c->p->profile);
        r = apply_run(c->a->rfs, c->p, &o, out, &e);
        return r < 0 ? report(r, &e, _("apply failed")) : (c->a->dry_run && r > 0 ? EXIT_CHANGES : EXIT_OK);
}

static int verb_apply(const struct args *a, int argc, char **argv)
{
        struct inventory *inv = NULL;
        struct plan *p = NULL;
        _cleanup_close_ int lock = -1;
        int r;

        r = lock_root(a, &lock);
        if (r != EXIT_OK)
                return r;
        r = build_plan(a, &inv, &p);
        if (r == EXIT_OK) {
                struct apply_ctx c = { .a = a, .p = p };
                struct measure_request q = { .seconds = a->measure, .json = a->json, .verbose = a->verbose };
                r = a->measure ? measure_around(&q, "apply", p, inv, do_apply, &c) : do_apply(&c, stdout);
                plan_free(p);
                inventory_free(inv);
        }
        return r;
}

struct rollback_ctx {
        const struct args *a;
        const char *what;
};

static int do_rollback(void *userdata, FILE *out)
{
        const struct rollback_ctx *c = userdata;
        static const struct {
                const char *part;
                int (*undo)(const struct rootfs *rfs, bool force, FILE *out, struct xerror *ret_error);
                const char *failed;
        } parts[] = {
                /* the live values first, then the files */
                { "apply", apply_rollback, N_("rollback of apply failed") },
                { "install", install_rollback, N_("rollback of install failed") },
        };
        struct xerror e = {};
        bool any = false;
        int r, code = EXIT_OK;

        for (size_t i = 0; i < ELEMENTSOF(parts) && (code == EXIT_OK || code == EXIT_CHANGES); i++) {
                if (!streq(c->what, "all") && !streq(c->what, parts[i].part))
                        continue;
                r = parts[i].undo(c->a->rfs, c->a->force, out, &e);
                if (r == -EBUSY) {
                        /* some values or files were left alone: said, not a failure */
                        fprintf(stderr, "idlecfg: %s\n", e.message);
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
                        c->a->rfs->path);
        return code;
}

static int verb_rollback(const struct args *a, int argc, char **argv)
{
        const char *what = argc > 0 ? argv[0] : "all";
        struct rollback_ctx c = { .a = a, .what = what };
        _cleanup_close_ int lock = -1;
        int r;

        if (!streq(what, "all") && !streq(what, "apply") && !streq(what, "install")) {
                fprintf(stderr, _("idlecfg: rollback takes apply, install or all, not '%s'\n"), what);
                return EXIT_USAGE;
        }
        r = lock_root(a, &lock);
        if (r != EXIT_OK)
                return r;
        if (a->measure) {
                /* the plan only names knobs and reasons in the measurement */
                struct measure_request q = { .seconds = a->measure, .json = a->json, .verbose = a->verbose };
                struct inventory *inv = NULL;
                struct plan *p = NULL;
                if (build_plan(a, &inv, &p) != EXIT_OK)
                        inv = NULL, p = NULL;
                r = measure_around(&q, "rollback", p, inv, do_rollback, &c);
                plan_free(p);
                inventory_free(inv);
        } else
                r = do_rollback(&c, stdout);
        return r;
}

static int verb_measure(const struct args *a, int argc, char **argv)
{
        struct measure_request q = { .seconds = a->seconds, .json = a->json, .verbose = a->verbose };
        struct inventory *inv = NULL;
        struct plan *p = NULL;
        int r;

        r = build_plan(a, &inv, &p);
        if (r != EXIT_OK)
                return r;
        r = measure_verb(&q, p, inv);
        plan_free(p);
        inventory_free(inv);
        return r;
}

static int verb_verify(const struct args *a, int argc, char **argv)
{
        struct inventory *inv = NULL;
        struct plan *p = NULL;
        struct xerror e = {};
        int r;

        r = build_plan(a, &inv, &p);
        if (r == EXIT_OK) {
                r = verify_run(a->rfs, p, inv, a->json, stdout, &e);
                r = r < 0 ? report(r, &e, NULL) : r > 0 ? EXIT_CHANGES : EXIT_OK;
                plan_free(p);
                inventory_free(inv);
        }
        return r;
}

static int verb_refresh(const struct args *a, int argc, char **argv)
{
        struct detect_options d = { .rfs = a->rfs, .kernel = a->kernel };
        _cleanup_(manifest_freep) struct manifest *m = NULL;
        _cleanup_free_ char *name = NULL, *why = NULL;
        struct inventory *inv = NULL;
        struct plan *p = NULL;
        struct kvlist now = {};
        struct xerror e = {};
        struct profile_error pe = {};
        struct args b = *a;
        _cleanup_close_ int lock = -1;
        size_t changed = 0;
        int r;

        r = lock_root(a, &lock);
        if (r != EXIT_OK)
                return r;
        r = manifest_load(a->rfs, &m, &e);
        if (r == -ENOENT) {
                printf(_("idlecfg was not installed into %s (no manifest): nothing to refresh.\n"), a->rfs->path);
                return EXIT_OK;
        }
        if (r < 0) {
                return report(r, &e, NULL);
        }
        /* the profile install chose: --profile again if that is how it was chosen */
        if (!b.profile && streq_ptr(kv_get(&m->inputs, "profile-reason"), "--profile"))
                b.profile = m->profile;

        /* The cheap look, what a package hook pays on every upgrade: the
         * fingerprint straight from /sys, the kernel, the profile's name and
         * the stat (then content) digests of the files. Unchanged: done. */
        {
                _cleanup_free_ char *kernel = NULL, *ksource = NULL, *chassis = NULL;
                char fp[17];

                if (kernel_choose(a->rfs, a->kernel, &kernel, &ksource) < 0)
                        kernel = NULL;
                refresh_fingerprint(fp, &chassis);
                r = profile_select_rootfs(a->rfs, b.profile, chassis, &name, &why, &pe);
                if (r >= 0 && refresh_compare(a->rfs, &m->inputs, fp, kernel, name, a->profiles_dir, &now) == 0) {
                        if (a->verbose)
                                printf(_("%s is up to date: nothing changed since the last install.\n"), a->rfs->path);
                        return EXIT_OK;
                }
                profile_error_done(&pe);
                kv_free(&now);
                free(name);
                free(why);
                name = why = NULL;
        }

        /* something differs: the full inventory decides, and is what gets installed */
        r = inventory_detect(&d, &inv);
        if (r < 0) {
                fprintf(stderr, _("idlecfg: detect failed: %s\n"), strerror(-r));
                return EXIT_FAILURE_;
        }
        r = profile_select_rootfs(a->rfs, b.profile, kv_get(&inv->platform, "chassis_type"), &name, &why, &pe);
        if (r < 0) {
                fprintf(stderr, "idlecfg: %s\n", pe.message ? pe.message : strerror(-r));
                profile_error_done(&pe);
                inventory_free(inv);
                return EXIT_USAGE;
        }
        changed = refresh_compare(a->rfs, &m->inputs, inv->fingerprint, inv->kernel, name, a->profiles_dir, &now);
        for (size_t i = 0; i < now.n; i++) {
                if (i == 0)
                        printf(_("Changed since the last install of %s:\n"), a->rfs->path);
                if (!now.v[i].value)
                        printf(_("  %s: files changed\n"), now.v[i].key);
                else
                        printf("  %s: %s\n", now.v[i].key, now.v[i].value);
        }
        kv_free(&now);
        inventory_free(inv);
        inv = NULL;
        if (changed == 0) {
                if (a->verbose)
                        printf(_("%s is up to date: nothing changed since the last install.\n"), a->rfs->path);
                return EXIT_OK;
        }
        r = build_plan(&b, &inv, &p);
        if (r == EXIT_OK) {
                r = do_install(&b, a->rfs, inv, p, false);
                plan_free(p);
                inventory_free(inv);
        }
        return r;
}

static const struct verb verbs[] = {
        { "detect", 0, 0, verb_detect, N_("Show the hardware, its power knobs and the fingerprint") },
        { "plan", 0, 0, verb_plan, N_("Show the settings for this machine and why") },
        { "explain", 1, 1, verb_explain, N_("Show every decision about one device and why") },
        { "install", 0, 0, verb_install, N_("Write the configuration files into the root, with a manifest") },
        { "apply", 0, 0, verb_apply, N_("Apply the settings to the running system now, journal first") },
        { "rollback", 0, 1, verb_rollback, N_("Undo apply and/or install exactly: rollback [apply|install|all]") },
        { "verify", 0, 0, verb_verify, N_("Compare the running system with the plan; list idle blockers") },
        { "refresh", 0, 0, verb_refresh, N_("Re-install if hardware, kernel, hwdb or profile changed") },
        { "measure", 0, 0, verb_measure, N_("Measure idle for --seconds: who suspends, who stays awake and why") },
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
        fputs(_("  -f, --format FORMAT   plan: text, json, udev, modprobe, tmpfiles or cmdline\n"), f);
        fputs(_("  -n, --dry-run         install: print the diff; apply: what would change; write nothing\n"), f);
        fputs(_("      --force           install, rollback: overwrite files or values changed by others\n"), f);
        fputs(_("      --keep-going      apply: apply what the kernel takes instead of undoing the run\n"), f);
        fputs(_("      --wait SECONDS    wait this long for another idlecfg to finish (default 10)\n"), f);
        fputs(_("      --seconds N       measure: the length of the measurement (default 20)\n"), f);
        fputs(_("      --measure N       apply, rollback: measure N seconds before and after\n"), f);
        fputs(_("  -v, --verbose         say more\n"), f);
        fputs(_("  -h, --help            show this help\n"), f);
        fputs(_("  -V, --version         show the version\n"), f);
        fputs(_("\nExit status: 0 success, 1 changes or drift found, 2 usage or bad input,\n"
                "3 runtime failure.\n"), f);
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
                {}
        };
        struct args a = { .wait_ms = 10000, .seconds = 20 };
        const struct verb *v;
        int c, nargs;

        setlocale(LC_ALL, "");
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
                struct rootfs rfs = { .fd = -1 };
                int r = rootfs_open(a.root, &rfs);

                if (r < 0) {
                        fprintf(stderr, _("idlecfg: cannot open %s: %s\n"), a.root ? a.root : "/", strerror(-r));
                        return EXIT_FAILURE_;
                }
                a.rfs = &rfs;
                r = v->run(&a, nargs, argv + optind + 1);
                /* what the optional files of the root made idlecfg assume */
                for (size_t i = 0; i < rfs.warnings->n; i++)
                        fprintf(stderr, _("idlecfg: warning: %s\n"), rfs.warnings->v[i]);
                rootfs_close(&rfs);
                return r;
        }
}
