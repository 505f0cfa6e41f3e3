/* idlecfg.c: command line, verb table and dispatch */
#include "config.h"

#include <getopt.h>
#include <sys/stat.h>

#include "inventory.h"
#include "util.h"

enum {
        EXIT_OK = 0,
        EXIT_CHANGES = 1,
        EXIT_USAGE = 2,
        EXIT_FAILURE_ = 3,
};

struct args {
        const char *root;
        const char *kernel;
        const char *profile;
        bool json;
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
        struct detect_options o = { .root = a->root, .kernel = a->kernel };
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

static const struct verb verbs[] = {
        { "detect", 0, 0, verb_detect, N_("Show the hardware, its power knobs and the fingerprint") },
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
                { "verbose", no_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                {}
        };
        struct args a = {};
        const struct verb *v;
        int c, nargs;

        setlocale(LC_ALL, "");
        bindtextdomain(PACKAGE, LOCALEDIR);
        textdomain(PACKAGE);

        while ((c = getopt_long(argc, argv, "r:k:jvhV", options, NULL)) >= 0) {
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
        if (a.root) {
                struct stat st;
                if (stat(a.root, &st) < 0 || !S_ISDIR(st.st_mode)) {
                        fprintf(stderr, _("idlecfg: --root %s: not a directory\n"), a.root);
                        return EXIT_USAGE;
                }
        }
        return v->run(&a, nargs, argv + optind + 1);
}
