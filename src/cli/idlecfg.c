/* idlecfg.c: command line, verb table and dispatch */
#include "config.h"

#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sys/stat.h>

#include "engine/apply.h"
#include "pipeline/detect.h"
#include "pipeline/emit.h"
#include "base/fault.h"
#include "engine/image.h"
#include "engine/install.h"
#include "model/inventory.h"
#include "state/manifest.h"
#include "engine/next-steps.h"
#include "cli/options.h"
#include "pipeline/planner.h"
#include "engine/refresh.h"
#include "cli/run.h"
#include "cli/run-install.h"
#include "base/util.h"
#include "cli/verb-apply.h"
#include "cli/verb-check.h"
#include "cli/verb-detect.h"
#include "cli/verb-explain.h"
#include "cli/verb-install.h"
#include "cli/verb-measure.h"
#include "cli/verb-power.h"
#include "cli/verb-monitor.h"
#include "cli/verb-plan.h"
#include "root/target.h"

/* what a verb needs before it runs */
enum {
        VERB_LOCK = 1 << 0,             /* the lock of the root (the writing verbs) */
        VERB_INVENTORY = 1 << 1,        /* the inventory of the machine */
        VERB_PLAN = 1 << 2,             /* the inventory and the plan */
        VERB_INSTALLED = 1 << 3,        /* the plan of the installed profile unless --profile */
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
        if (a->boot_steps && (a->image || a->check || a->dry_run || a->json || a->format)) {
                fprintf(stderr, _("idlecfg: install --boot-steps runs the boot steps after the install: not with "
                                  "--image, --check, --dry-run, --json or --format\n"));
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

static int check_refresh(const struct args *a, int argc, char **argv)
{
        if (a->condition && (!a->image || a->dry_run)) {
                fprintf(stderr, _("idlecfg: --condition goes with refresh --image, without --dry-run (the "
                                  "first-boot unit's ExecCondition=)\n"));
                return EXIT_USAGE;
        }
        if (a->boot_steps && (!a->image || a->dry_run || a->condition)) {
                fprintf(stderr, _("idlecfg: --boot-steps goes with refresh --image, without --dry-run and "
                                  "--condition (idlecfg-boot-steps.service)\n"));
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

static int verb_install(struct run *c, int argc, char **argv)
{
        return c->a->boot_steps ? install_with_boot_steps(c) : do_install(c, c->a->json, false);
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
        power_source_for_verify(&c->rfs, c->plan, &source);
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
        struct next_steps *steps;       /* what the boot artifacts still hold: the steps */
};

/* after the install's rollback: what the boot artifacts still hold of
 * what it put there (grub.cfg, the boot entries, a UKI, the initramfs), and
 * the steps that take it out, in STEPS and said on OUT; true when there is
 * any (exit 4) */
static bool rollback_boot_left(const struct run *c, const struct rollback_result *res, struct next_steps *steps,
                               FILE *out)
{
        next_steps_undo(steps, &c->rfs, res->boot_words, res->kernel, res->modprobe ? &res->modprobe_time : NULL);
        next_steps_print_text(steps, steps->running
                              ? _("The boot artifacts may still hold what idlecfg installed; run (idlecfg runs "
                                  "none of them):\n")
                              : _("The boot artifacts may still hold what idlecfg installed; next steps for the "
                                  "installer (idlecfg runs nothing in the target):\n"), out);
        return next_steps_boot_incomplete(steps);
}

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
                if (r == 0 && !parts[i].values && rollback_boot_left(c, &res, rc->steps, out))
                        code = EXIT_BOOT_INCOMPLETE;
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
        /* JSON: with --measure the measurement's, else what was done and the
         * next steps (the plan's inputs are taken all the same, for a
         * script's wrapper that gives them to every verb) */
        return EXIT_OK;
}

/* rollback --json: {"schema", "root", "exit", "messages": [the text's lines],
 * "next_steps", "boot_incomplete"} */
static int rollback_json(struct rollback_ctx *rc)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        struct json j;
        int code;

        if (!f)
                return EXIT_FAILURE_;
        code = do_rollback(rc, f);
        if (fclose(f) != 0)
                return EXIT_FAILURE_;
        json_init(&j, stdout);
        json_begin_object(&j);
        json_kv_int(&j, "schema", 1);
        json_kv_string(&j, "root", rc->c->rfs.path);
        json_kv_int(&j, "exit", code);
        json_key(&j, "messages");
        json_begin_array(&j);
        for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                json_string(&j, line + strspn(line, " "));
        json_end_array(&j);
        next_steps_print_json(rc->steps, &j);
        json_end_object(&j);
        json_finish(&j);
        return code;
}

static int verb_rollback(struct run *c, int argc, char **argv)
{
        _cleanup_(next_steps_free) struct next_steps steps = {};
        struct rollback_ctx rc = { .c = c, .what = argc > 0 ? argv[0] : "all", .steps = &steps };

        next_steps_init(&steps, &c->rfs);
        if (c->a->json && !c->a->measure)
                return rollback_json(&rc);

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
        return nagios_check_args(a);
}

static int verb_verify(struct run *c, int argc, char **argv)
{
        const struct args *a = c->a;
        _cleanup_(verify_result_free) struct verify_result res = {};
        _cleanup_free_ char *source = NULL;
        _cleanup_(next_steps_free) struct next_steps steps = {};
        _cleanup_(boot_lefts_free) struct boot_lefts left = {};
        struct xerror e = {};
        int r;

        /* values per power source: those of the source the supplies show now */
        power_source_for_verify(&c->rfs, c->plan, &source);
        r = verify_run(&c->rfs, c->plan, c->inv, &res, &e);
        if (r < 0)
                return report(r, &e, NULL);
        /* said in text, on stderr beside JSON; the plugin and the gauges stay as their readers parse them */
        if (source && !a->nagios && !streq_ptr(a->format, "prometheus"))
                fputs(source, a->json || streq_ptr(a->format, "json") ? stderr : stdout);
        /* what the boot configuration still lacks of what was installed */
        next_steps_init(&steps, &c->rfs);
        next_steps_boot_pending(&steps, &c->rfs);
        if (a->nagios) {
                r = verify_print_nagios(&res, c->plan, &steps, a, stdout);
                return flush_stdout() == EXIT_OK ? r : NAGIOS_UNKNOWN;
        }
        if (streq_ptr(a->format, "prometheus")) {
                if (a->output) {
                        _cleanup_free_ char *text = NULL, *why = NULL;
                        size_t len = 0;
                        FILE *f = open_memstream(&text, &len);
                        if (!f)
                                return report(-ENOMEM, &e, NULL);
                        verify_print_prometheus(&res, c->plan, &steps, f);
                        if (fclose(f) != 0)
                                return report(-ENOMEM, &e, NULL);
                        if (monitor_write_file(a->output, text, &why) < 0) {
                                fprintf(stderr, _("idlecfg: cannot write %s: %s\n"),
                                        a->output, why);
                                return EXIT_FAILURE_;
                        }
                } else
                        verify_print_prometheus(&res, c->plan, &steps, stdout);
                /* a monitoring system reads the gauges: drift is no failure of the run */
                return flush_stdout();
        }
        /* what a rollback took out and the running kernel or the initramfs still hold */
        boot_lefts_find(&c->rfs, &left);
        verify_print(&res, c->plan, &steps, &left, a->json || streq_ptr(a->format, "json"), stdout);
        if (r > 0)
                return EXIT_CHANGES;
        return next_steps_boot_incomplete(&steps) || left.n ? EXIT_BOOT_INCOMPLETE : EXIT_OK;
}

static int check_power_source(const struct args *a, int argc, char **argv)
{
        if (argc > 0 && !power_source_mode_ok(argv[0])) {
                fprintf(stderr, _("idlecfg: power-source takes event, boot, resume, show, ac or battery, not '%s'\n"),
                        argv[0]);
                return EXIT_USAGE;
        }
        if (a->json && !(argc > 0 && streq(argv[0], "show"))) {
                fprintf(stderr, _("idlecfg: power-source prints JSON only with show\n"));
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
        return power_source_verb(&c->rfs, argc > 0 ? argv[0] : "event", c->a->dry_run, c->a->verbose, c->a->json);
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
          O_FORMAT | O_BOOT_STEPS, NULL },
        { "apply", 0, 0, VERB_LOCK | VERB_PLAN, check_apply, verb_apply,
          N_("Apply the settings to the running system now, journal first"),
          O_PLANNING | O_DRY_RUN | O_KEEP_GOING | O_WAIT | O_MEASURE | O_JSON, NULL },
        { "rollback", 0, 1, VERB_LOCK, check_rollback, verb_rollback,
          N_("Undo apply and/or install exactly: rollback [apply|install|all]"),
          O_FORCE | O_WAIT | O_MEASURE | O_JSON | O_PLANNING, N_("[apply|install|all]") },
        { "verify", 0, 0, VERB_PLAN | VERB_INSTALLED, check_verify, verb_verify,
          N_("Compare the running system with the plan; list idle blockers"),
          O_PLANNING | O_JSON | O_FORMAT | O_NAGIOS | O_OUTPUT | O_WARNING | O_CRITICAL | O_TIMEOUT, NULL },
        /* detects and plans itself, only when something changed */
        { "refresh", 0, 0, VERB_LOCK, check_refresh, verb_refresh,
          N_("Re-install if hardware, kernel, hwdb or profile changed"),
          O_PLANNING | O_DRY_RUN | O_FORCE | O_WAIT | O_REFUSE_CONFLICTS | O_IMAGE | O_CONDITION | O_BOOT_STEPS, NULL },
        { "measure", 0, 0, VERB_PLAN, NULL, verb_measure,
          N_("Measure idle for --seconds: who suspends, who stays awake and why"),
          O_PLANNING | O_JSON | O_SECONDS, NULL },
        { "power-source", 0, 1, VERB_LOCK, check_power_source, verb_power_source,
          N_("Write the values of the current power source: power-source [event|boot|resume|show|ac|battery]"),
          O_DRY_RUN | O_WAIT | O_JSON, N_("[event|boot|resume|show|ac|battery]") },
};

static void print_exit_status(FILE *f)
{
        fputs(_("\nExit status: 0 success, 1 changes or drift found, 2 usage or bad input,\n"
                "3 runtime failure, 4 done but the boot configuration still lacks a step\n"
                "(refresh --image too: idlecfg-boot-steps.service makes it), 5 install --check: a run\n"
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

/* only the categories idlecfg uses: the messages, and the character set
 * gettext converts them to. Numbers stay in the C locale (a decimal point in
 * every output), and a UTF-8 locale without the locale archive costs a dozen
 * file loads less per run (refresh's start-up, tests/bench/ratio-bench.sh) */
static void setup_locale(bool messages)
{
        setlocale(LC_CTYPE, "");
        /* a monitoring plugin's line is read by programs: never translated */
        if (messages)
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
}

/* "idlecfg help [VERB]" and --help: the exit code, or -1 when neither was asked */
static int help(const struct args *a, int argc, char **argv)
{
        const struct verb *v;

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
        if (a->help) {
                if (optind < argc && (v = find_verb(argv[optind])))
                        verb_usage(v, stdout);
                else
                        usage(stdout);
                return EXIT_OK;
        }
        return -1;
}

/* V's NARGS arguments (ARGS) are as many as it takes */
static int check_nargs(const struct verb *v, int nargs, char **args)
{
        if (nargs >= v->min_args && nargs <= v->max_args)
                return EXIT_OK;
        if (nargs < v->min_args)
                fprintf(stderr, _("idlecfg: %s needs the argument %s\n"), v->name, _(v->synopsis));
        else if (v->max_args == 0)
                fprintf(stderr, _("idlecfg: %s takes no arguments, '%s' given\n"), v->name, args[0]);
        else
                fprintf(stderr, _("idlecfg: %s takes at most %d argument(s), %d given\n"), v->name,
                        v->max_args, nargs);
        verb_usage(v, stderr);
        return EXIT_USAGE;
}

/* --root is a directory; a relative --profiles-dir is relative to the
 * current directory, not to the root (made absolute in RET_PROFILES_DIR) */
static int check_paths(struct args *a, char **ret_profiles_dir)
{
        if (a->root) {
                struct stat st;
                if (stat(a->root, &st) < 0) {
                        if (errno == ENOENT)
                                fprintf(stderr, _("idlecfg: --root %s: no such directory\n"), a->root);
                        else
                                fprintf(stderr, _("idlecfg: --root %s: %s\n"), a->root, strerror(errno));
                        return EXIT_USAGE;
                }
                if (!S_ISDIR(st.st_mode)) {
                        fprintf(stderr, _("idlecfg: --root %s: not a directory\n"), a->root);
                        return EXIT_USAGE;
                }
        }
        if (a->profiles_dir && a->profiles_dir[0] != '/') {
                _cleanup_free_ char *cwd = getcwd(NULL, 0);
                if (!cwd) {
                        fprintf(stderr, _("idlecfg: --profiles-dir %s: %s\n"), a->profiles_dir, strerror(errno));
                        return EXIT_FAILURE_;
                }
                *ret_profiles_dir = xasprintf("%s/%s", cwd, a->profiles_dir);
                a->profiles_dir = *ret_profiles_dir;
        }
        return EXIT_OK;
}

/* run verb V with its NARGS arguments ARGS: what it needs first (the verb
 * table), then the verb, then everything freed */
static int run_verb(const struct verb *v, const struct args *a, int nargs, char **args)
{
        struct run run;
        int r = run_open(&run, a);

        if (r == EXIT_OK && v->check)
                r = v->check(a, nargs, args);
        if (r == EXIT_OK)
                r = check_kernel(v, &run);
        /* --dry-run and install --check write nothing, not even the lock;
         * refresh --condition reads a stamp written whole */
        if (r == EXIT_OK && (v->needs & VERB_LOCK) && !a->dry_run && !a->check && !a->condition)
                r = run_lock(&run);
        if (r == EXIT_OK && (v->needs & VERB_INSTALLED))
                r = run_installed_profile(&run);
        if (r == EXIT_OK && (v->needs & VERB_PLAN))
                r = run_plan(&run);
        else if (r == EXIT_OK && (v->needs & VERB_INVENTORY))
                r = run_detect(&run);
        if (r == EXIT_OK)
                r = v->run(&run, nargs, args);
        run_done(&run);
        return r;
}

static int idlecfg_main(int argc, char **argv)
{
        struct args a = { .wait_ms = 10000, .seconds = 20, .timeout = 10 };
        _cleanup_free_ char *profiles_dir = NULL;
        const struct verb *v;
        int r, nargs;

        r = args_parse(argc, argv, &a);
        if (r >= 0)
                return r;
        if (a.nagios)
                nagios_timeout(a.timeout);
        r = help(&a, argc, argv);
        if (r >= 0)
                return r;
        if (optind >= argc) {
                fprintf(stderr, _("idlecfg: no verb given\n"));
                fprintf(stderr, _("Try '%s --help' for more information.\n"), program_invocation_short_name);
                return EXIT_USAGE;
        }
        v = find_verb_or_say(argv[optind]);
        if (!v)
                return EXIT_USAGE;
        nargs = argc - optind - 1;
        r = check_nargs(v, nargs, argv + optind + 1);
        if (r == EXIT_OK)
                r = check_options(v, &a);
        if (r == EXIT_OK)
                r = check_paths(&a, &profiles_dir);
        if (r == EXIT_OK && streq(v->name, "power-source") && !a.wait_given &&
            !(nargs > 0 && streq(argv[optind + 1], "show")))
                /* a switch that gave up on the lock would be lost until the next
                 * change: it waits as long as the holder takes (an install's
                 * initramfs step, apply --measure), unless --wait says otherwise */
                a.wait_ms = UINT_MAX;
        if (r == EXIT_OK)
                r = run_verb(v, &a, nargs, argv + optind + 1);
        /* the gauges of a failed run: an error, not the old file looking fresh */
        if (r != EXIT_OK && streq(v->name, "verify") && streq_ptr(a.format, "prometheus") &&
            monitor_prometheus_failed(a.output) < 0)
                r = EXIT_FAILURE_;
        return r;
}

int main(int argc, char **argv)
{
        /* a monitoring plugin: one status line whatever happens, usage errors too */
        bool nagios = nagios_asked(argc, argv);

        setup_locale(!nagios);
        signals_setup();
        return nagios ? nagios_plugin(idlecfg_main, argc, argv) : idlecfg_main(argc, argv);
}
