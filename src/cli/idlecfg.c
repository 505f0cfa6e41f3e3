/* idlecfg.c: main(), the command line, the verb table and dispatch; each
 * verb's body is in its verb file */
#include "config.h"

#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/fault.h"
#include "base/util.h"
#include "cli/monitor.h"
#include "cli/options.h"
#include "cli/run.h"
#include "cli/run-status.h"
#include "cli/verbs.h"

/* the verbs in the order --help lists them: each is its file's, verb-X.c
 * (verbs.h) */
static const struct verb *const verbs[] = {
        &verb_detect,
        &verb_plan,
        &verb_explain,
        &verb_install,
        &verb_apply,
        &verb_rollback,
        &verb_verify,
        &verb_report,
        &verb_refresh,
        &verb_measure,
        &verb_power_source,
        &verb_steps,
        &verb_facts,
};

/* "help" is no verb of the table (it needs no run), but has a usage as they do */
static const struct verb help_verb = {
        "help", 0, 1, 0, NULL, NULL, N_("Show the usage of one verb: help VERB"), 0, N_("[VERB]"),
};

static void print_exit_status(FILE *f)
{
        fputc('\n', f);
        help_print_wrapped(f, 0, 0, _("Exit status: 0 success, 1 changes or drift found, 2 usage or bad input, "
                                      "3 runtime failure, 4 done but the boot configuration still lacks a step "
                                      "(refresh --image too: idlecfg-boot-steps.service makes it), 5 install "
                                      "--check: a run would change something, 6 refused: another power tool sets "
                                      "the same knobs (--refuse-conflicts)."));
}

static void usage(FILE *f)
{
        int w = 0;

        fprintf(f, _("Usage: %s [OPTIONS] VERB [ARGS]\n"), program_invocation_short_name);
        fputs(_("\nConfigure the idle power management of a Linux machine.\n"), f);
        fputs(_("\nVerbs:\n"), f);
        /* the verbs' column as wide as the longest name (power-source) */
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if ((int) strlen(verbs[i]->name) > w)
                        w = (int) strlen(verbs[i]->name);
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                fprintf(f, "  %-*s ", w, verbs[i]->name);
                help_print_wrapped(f, 2 + w + 1, 2 + w + 1, _(verbs[i]->help));
        }
        fprintf(f, "  %-*s ", w, help_verb.name);
        help_print_wrapped(f, 2 + w + 1, 2 + w + 1, _(help_verb.help));
        fputs(_("\nOptions:\n"), f);
        options_print_help(~0u, f);
        print_exit_status(f);
}

/* the usage of one verb: its arguments and the options it takes */
static void verb_usage(const struct verb *v, FILE *f)
{
        _cleanup_free_ char *help = xasprintf("%s.", _(v->help));

        fprintf(f, _("Usage: %s %s [OPTIONS]%s%s\n"), program_invocation_short_name, v->name,
                v->synopsis ? " " : "", v->synopsis ? _(v->synopsis) : "");
        fputc('\n', f);
        help_print_wrapped(f, 0, 0, help);
        fputs(_("\nOptions:\n"), f);
        options_print_verb_help(v->name, v->options | O_COMMON, f);
        print_exit_status(f);
}

static const struct verb *find_verb(const char *name)
{
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(verbs[i]->name, name))
                        return verbs[i];
        return NULL;
}

/* the nearest verb by edit distance, for "did you mean" */
static const char *nearest_verb(const char *name)
{
        const char *best = NULL;
        size_t best_d = 3;

        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                const char *v = verbs[i]->name;
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

        if (extra & v->mistaken_option) {
                fputs(_(v->mistaken_hint), stderr);
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
        /* the verbs that write what they plan; VERB_ANY_KERNEL ones undo, whatever kernel */
        bool writes = (v->needs & VERB_LOCK) && !(v->needs & VERB_ANY_KERNEL);

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

/* the locale the environment names for CATEGORY (LC_ALL, then LC_x, then
 * LANG), as setlocale(category, "") looks it up */
static const char *locale_named(const char *category)
{
        const char *v[] = { getenv("LC_ALL"), getenv(category), getenv("LANG") };

        for (size_t i = 0; i < ELEMENTSOF(v); i++)
                if (v[i] && *v[i])
                        return v[i];
        return "C";
}

static bool c_locale(const char *name)
{
        return streq(name, "C") || streq(name, "POSIX") || strcasecmp(name, "C.UTF-8") == 0 ||
               strcasecmp(name, "C.utf8") == 0;
}

/* only the categories idlecfg uses: the messages, and the character set
 * gettext converts them to. Numbers stay in the C locale (a decimal point in
 * every output), and a UTF-8 locale without the locale archive costs a dozen
 * file loads less per run (refresh's start-up, tests/bench/ratio-bench.sh) */
static void setup_locale(bool messages)
{
        const char *language = getenv("LANGUAGE");

        /* The C locale in all but the character set (C.UTF-8, which systemd
         * gives units and hooks where no locale is configured), and no
         * LANGUAGE: the messages are the untranslated ones either way, and
         * no locale file is loaded (a dozen file reads and a 350 KiB map on
         * every boot, hook and trigger: tests/bench/ratio-bench.sh). What
         * idlecfg matches (fnmatch(): ids, sysfs values) then compares
         * bytes, as in the C locale. */
        if (c_locale(locale_named("LC_CTYPE")) && (!messages || c_locale(locale_named("LC_MESSAGES"))) &&
            !(language && *language))
                return;
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
                        /* help --help (and --help help): help's own usage, as for any verb */
                        if (a->help)
                                verb_usage(&help_verb, stdout);
                        else
                                usage(stdout);
                        return EXIT_OK;
                }
                /* --help lists it among the verbs: it has its usage too */
                v = streq(argv[optind + 1], help_verb.name) ? &help_verb : find_verb_or_say(argv[optind + 1]);
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
                fprintf(stderr, P_("idlecfg: %s takes at most %d argument (%s), %d given\n",
                                   "idlecfg: %s takes at most %d arguments (%s), %d given\n", v->max_args),
                        v->name, v->max_args, _(v->synopsis), nargs);
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
        if (a->profiles_dir) {
                /* told apart from a root without profiles (profile.c not_found()) */
                struct stat st;
                int r = stat(a->profiles_dir, &st) < 0 ? -errno : 0;
                const char *why = r == -ENOENT ? _("no such directory")
                                  : r < 0      ? strerror(-r)
                                  : !S_ISDIR(st.st_mode) ? _("not a directory") : NULL;
                if (why) {
                        fprintf(stderr, _("idlecfg: --profiles-dir %s: %s; give the directory that holds the "
                                          "NAME.profile files (the source tree's profiles/)\n"),
                                a->profiles_dir, why);
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

/* whether V's run with its NARGS arguments ARGS only reads (its reads_only) */
static bool verb_reads_only(const struct verb *v, int nargs, char **args)
{
        return v->reads_only && v->reads_only(nargs, args);
}

/* run verb V with its NARGS arguments ARGS: what it needs first (the verb
 * table), then the verb, then everything freed */
static int run_verb(const struct verb *v, const struct args *a, int nargs, char **args)
{
        struct run run;
        int r = run_open(&run, a);
        /* a run that only reads takes no lock: any user may run it */
        bool reads_only = verb_reads_only(v, nargs, args);

        run.manifest_verb = v->needs & VERB_MANIFEST;
        if (r == EXIT_OK && v->check)
                r = v->check(a, nargs, args);
        if (r == EXIT_OK)
                r = check_kernel(v, &run);
        /* --dry-run and install --check write nothing, not even the lock;
         * refresh --condition reads a stamp written whole; refresh's cheap
         * look reads files written whole, and locks only when it writes */
        if (r == EXIT_OK && (v->needs & VERB_LOCK) && !(v->needs & VERB_LOCK_LATE) && !a->dry_run && !a->check &&
            !a->condition && !reads_only)
                r = run_lock(&run);
        if (r == EXIT_OK && (v->needs & VERB_INSTALLED))
                r = run_installed_profile(&run);
        if (r == EXIT_OK && (v->needs & VERB_PLAN))
                r = run_plan(&run);
        else if (r == EXIT_OK && (v->needs & VERB_INVENTORY))
                r = run_detect(&run);
        if (r == EXIT_OK)
                r = v->run(&run, nargs, args);
        /* the manifest read before install, refresh or rollback rewrote it */
        if (v->needs & VERB_MANIFEST)
                run_manifest_drop(&run);
        /* a run that held the lock and did its work (drift, files left alone
         * and a boot step left too): the status file says what it left */
        if ((r == EXIT_OK || r == EXIT_CHANGES || r == EXIT_BOOT_INCOMPLETE) && (v->needs & VERB_STATUS) &&
            run.lock >= 0 && run_status(&run, v->name) < 0)
                r = EXIT_FAILURE_;
        run_done(&run);
        return r;
}

static int idlecfg_main(int argc, char **argv)
{
        _cleanup_(args_done) struct args a = { .wait_ms = 10000, .seconds = 20, .timeout = 10 };
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
        if (r == EXIT_OK && (v->needs & VERB_WAIT_HOLDER) && !a.wait_given &&
            !verb_reads_only(v, nargs, argv + optind + 1))
                /* as long as the holder takes (an install's initramfs step,
                 * apply --measure), unless --wait says otherwise */
                a.wait_ms = UINT_MAX;
        if (r == EXIT_OK)
                r = run_verb(v, &a, nargs, argv + optind + 1);
        /* what the verb does after any run, a refused one too */
        if (v->after_run)
                r = v->after_run(&a, r);
        return r;
}

int main(int argc, char **argv)
{
        /* a monitoring plugin: one status line whatever happens, usage errors too */
        bool nagios = nagios_asked(argc, argv);

        /* stdout a line at a time, a terminal or not: in a log that takes
         * both streams (>>log 2>&1, as the installers' hooks write it) each
         * line lands where it was said, not after the errors of stderr */
        setvbuf(stdout, NULL, _IOLBF, 0);
        setup_locale(!nagios);
        signals_setup();
        return nagios ? nagios_plugin(idlecfg_main, argc, argv) : idlecfg_main(argc, argv);
}
