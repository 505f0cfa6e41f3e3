/* options.c: the table of idlecfg's options: getopt's arrays, the --help
 * lines and the checks of each option's value */
#include "config.h"

#include <getopt.h>

#include "cli/options.h"
#include "db/profile.h"
#include "base/util.h"

/* the options; USAGE and HELP make the option's lines in the usage */
static const struct option_row {
        unsigned bit;
        const char *name;
        char short_name;        /* 0: long only */
        int has_arg;
        const char *usage;      /* "-r, --root DIR"; "    --name" for one without a short form */
        const char *help;       /* wrapped by options_print_verb_help() */
} options_table[] = {
        { O_ROOT, "root", 'r', required_argument,
          "-r, --root DIR", N_("operate on the system below DIR (default /)") },
        { O_KERNEL, "kernel", 'k', required_argument,
          "-k, --kernel VERSION", N_("check modules against DIR/lib/modules/VERSION") },
        { O_JSON, "json", 'j', no_argument, "-j, --json", N_("print JSON (schema in idlecfg(8))") },
        { O_PROFILE, "profile", 'p', required_argument,
          "-p, --profile NAME", N_("use profile NAME (default: idlecfg.conf, else by chassis)") },
        { O_PROFILES_DIR, "profiles-dir", 0, required_argument,
          "    --profiles-dir DIR", N_("look for profiles in DIR too (uninstalled runs)") },
        { O_FORMAT, "format", 'f', required_argument,
          "-f, --format FORMAT",
            N_("plan: text, json, udev, modprobe, tmpfiles, cmdline, sysctl, networkmanager or link; "
               "install: salt; verify: prometheus") },
        { O_DRY_RUN, "dry-run", 'n', no_argument,
          "-n, --dry-run", N_("install: print the diff; apply: what would change; write nothing") },
        { O_FORCE, "force", 0, no_argument,
          "    --force", N_("install, rollback: overwrite files or values changed by others") },
        { O_REFUSE_CONFLICTS, "refuse-conflicts", 0, no_argument,
          "    --refuse-conflicts",
            N_("install, refresh: refuse (exit 6) when another power tool sets the same knobs") },
        { O_KEEP_GOING, "keep-going", 0, no_argument,
          "    --keep-going", N_("apply: apply what the kernel takes instead of undoing the run") },
        { O_WAIT, "wait", 0, required_argument,
          "    --wait SECONDS", N_("wait this long for another idlecfg to finish (default 10)") },
        { O_SECONDS, "seconds", 0, required_argument,
          "    --seconds N", N_("measure: the length of the measurement (default 20)") },
        { O_MEASURE, "measure", 0, required_argument,
          "    --measure N", N_("apply, rollback: measure N seconds before and after") },
        { O_IMAGE, "image", 0, no_argument,
          "    --image",
            N_("install: no hardware setting, the first-boot unit enabled; refresh: run as that unit (see "
               "IMAGES in idlecfg(8))") },
        { O_CHECK, "check", 0, no_argument,
          "    --check",
            N_("install: exit 5 if a run would change a file, 4 if only a boot step is pending, 0 if not") },
        { O_DIFF, "diff", 0, no_argument, "    --diff", N_("install --check: show the diff too") },
        { O_NAGIOS, "nagios", 0, no_argument,
          "    --nagios", N_("verify: a Nagios plugin's status line and exit code") },
        { O_OUTPUT, "output", 0, required_argument,
          "    --output FILE", N_("verify --format prometheus, report: write FILE atomically") },
        { O_WARNING, "warning", 'w', required_argument,
          "-w, --warning DRIFT[,BLOCKERS]",
            N_("verify --nagios: WARNING outside these ranges (plugin range syntax; default: drift and "
               "missing 0)") },
        { O_CRITICAL, "critical", 'c', required_argument,
          "-c, --critical DRIFT[,BLOCKERS]", N_("verify --nagios: CRITICAL outside these ranges") },
        { O_TIMEOUT, "timeout", 't', required_argument,
          "-t, --timeout SECONDS", N_("verify --nagios: UNKNOWN after this long (default 10)") },
        { O_CONDITION, "condition", 0, no_argument,
          "    --condition",
            N_("refresh --image: only tell whether the first-boot unit has work (exit 0) or its stamp says "
               "not (exit 1)") },
        { O_BOOT_STEPS, "boot-steps", 0, no_argument,
          "    --boot-steps",
            N_("install, refresh: run the boot steps left (initramfs, boot entry), as installers do") },
        { O_SYMPTOM, "symptom", 0, required_argument,
          "    --symptom DEVICE:TEXT", N_("report: what went wrong on DEVICE (repeatable)") },
        { O_SHOW, "show", 0, no_argument,
          "    --show", N_("report: print exactly what would be written, write nothing") },
        { O_VERBOSE, "verbose", 'v', no_argument, "-v, --verbose", N_("say more") },
        { O_HELP, "help", 'h', no_argument, "-h, --help", N_("show this help") },
        { O_VERSION, "version", 'V', no_argument, "-V, --version", N_("show the version") },
};

/* an option's line in one verb's usage, where the table's names several
 * verbs ("install: ...; apply: ..."); VERB NULL: any verb that takes it */
static const struct verb_help {
        const char *verb;
        unsigned bit;
        const char *usage, *help;
} verb_helps[] = {
        { "plan", O_FORMAT, "-f, --format FORMAT",
          N_("text, json, udev, modprobe, tmpfiles, cmdline, sysctl, networkmanager or link") },
        { "install", O_FORMAT, "-f, --format salt", N_("the result as a Salt state's JSON") },
        { "verify", O_FORMAT, "-f, --format FORMAT", N_("text, json or prometheus") },
        { "install", O_DRY_RUN, "-n, --dry-run", N_("print the diff of what would change; write nothing") },
        { "apply", O_DRY_RUN, "-n, --dry-run", N_("print what would be set; write nothing") },
        { "refresh", O_DRY_RUN, "-n, --dry-run", N_("say what would be re-installed; write nothing") },
        { "power-source", O_DRY_RUN, "-n, --dry-run", N_("print what would be written; write nothing") },
        { "rollback", O_FORCE, "    --force", N_("restore files and values others changed since idlecfg wrote them") },
        { NULL, O_FORCE, "    --force", N_("overwrite files others changed since idlecfg wrote them") },
        { NULL, O_REFUSE_CONFLICTS, "    --refuse-conflicts",
          N_("refuse (exit 6) when another power tool sets the same knobs") },
        { NULL, O_KEEP_GOING, "    --keep-going", N_("apply what the kernel takes instead of undoing the run") },
        { NULL, O_SECONDS, "    --seconds N", N_("the length of the measurement (default 20)") },
        { NULL, O_MEASURE, "    --measure N", N_("measure N seconds before and after") },
        { "install", O_IMAGE, "    --image",
          N_("no hardware setting, the first-boot unit enabled (see IMAGES in idlecfg(8))") },
        { "refresh", O_IMAGE, "    --image", N_("run as the first-boot unit (see IMAGES in idlecfg(8))") },
        { NULL, O_CHECK, "    --check",
          N_("exit 5 if a run would change a file, 4 if only a boot step is pending, 0 if not") },
        { NULL, O_DIFF, "    --diff", N_("with --check: show the diff too") },
        { NULL, O_NAGIOS, "    --nagios", N_("a Nagios plugin's status line and exit code") },
        { NULL, O_OUTPUT, "    --output FILE", N_("with --format prometheus: write FILE atomically") },
        { NULL, O_WARNING, "-w, --warning DRIFT[,BLOCKERS]",
          N_("with --nagios: WARNING outside these ranges (plugin range syntax; default: drift and missing "
             "0)") },
        { NULL, O_CRITICAL, "-c, --critical DRIFT[,BLOCKERS]", N_("with --nagios: CRITICAL outside these ranges") },
        { NULL, O_TIMEOUT, "-t, --timeout SECONDS", N_("with --nagios: UNKNOWN after this long (default 10)") },
        { NULL, O_CONDITION, "    --condition",
          N_("with --image: only tell whether the first-boot unit has work (exit 0) or its stamp says not "
             "(exit 1)") },
        { "install", O_BOOT_STEPS, "    --boot-steps",
          N_("run the boot steps left (initramfs, boot entry), as installers do") },
        { "refresh", O_BOOT_STEPS, "    --boot-steps",
          N_("then run the boot steps left (initramfs, boot entry); with --image: only run them") },
};

/* "--name" or "-c", as the user may have written it */
static void option_spelling(const struct option_row *o, char buf[static 32])
{
        snprintf(buf, 32, "--%s", o->name);
}

static int parse_seconds(const char *name, const char *arg, unsigned long min, unsigned *ret)
{
        char *end;
        unsigned long sec;

        errno = 0;
        sec = strtoul(arg, &end, 10);
        if (errno || *end || !*arg || arg[0] == '-' || sec < min || sec > 3600) {
                fprintf(stderr, _("idlecfg: --%s takes seconds from %lu to 3600, not '%s'\n"), name, min, arg);
                return EXIT_USAGE;
        }
        *ret = (unsigned) sec;
        return EXIT_OK;
}

/* --profile ARG is not a name: a file's path gets the options that name it */
static void say_not_profile_name(const char *arg)
{
        const char *base = strrchr(arg, '/');
        _cleanup_free_ char *name = xstrdup(base ? base + 1 : arg);
        _cleanup_free_ char *dir = base ? xstrndup(arg, base == arg ? 1 : (size_t) (base - arg)) : xstrdup(".");

        if (endswith_str(name, ".profile"))
                name[strlen(name) - strlen(".profile")] = '\0';
        if ((base || endswith_str(arg, ".profile")) && profile_name_valid(name))
                fprintf(stderr, _("idlecfg: --profile takes a profile's name, not a file: for %s give "
                                  "--profiles-dir %s --profile %s\n"), arg, dir, name);
        else
                fprintf(stderr, _("idlecfg: --profile '%s' is not a profile name (letters, digits, '-' and '_', "
                                  "at most %d)\n"), arg, PROFILE_NAME_MAX);
}

/* one option of the table, with its argument */
static int parse_option(const struct option_row *o, const char *arg, struct args *a)
{
        a->given |= o->bit;
        switch (o->bit) {
        case O_ROOT:
                if (!*arg) {
                        fprintf(stderr, _("idlecfg: --root needs a directory\n"));
                        return EXIT_USAGE;
                }
                a->root = arg;
                break;
        case O_KERNEL:
                if (!*arg || strchr(arg, '/') || streq(arg, "..") || streq(arg, ".")) {
                        fprintf(stderr, _("idlecfg: --kernel '%s' is not a kernel release\n"), arg);
                        return EXIT_USAGE;
                }
                a->kernel = arg;
                break;
        case O_JSON:
                a->json = true;
                break;
        case O_PROFILE:
                if (!profile_name_valid(arg)) {
                        say_not_profile_name(arg);
                        return EXIT_USAGE;
                }
                a->profile = arg;
                break;
        case O_PROFILES_DIR:
                if (!*arg) {
                        fprintf(stderr, _("idlecfg: --profiles-dir needs a directory\n"));
                        return EXIT_USAGE;
                }
                a->profiles_dir = arg;
                break;
        case O_FORMAT:
                a->format = arg;
                break;
        case O_DRY_RUN:
                a->dry_run = true;
                break;
        case O_FORCE:
                a->force = true;
                break;
        case O_REFUSE_CONFLICTS:
                a->refuse_conflicts = true;
                break;
        case O_KEEP_GOING:
                a->keep_going = true;
                break;
        case O_WAIT: {
                unsigned sec;
                if (parse_seconds("wait", arg, 0, &sec) != EXIT_OK)
                        return EXIT_USAGE;
                a->wait_ms = sec * 1000;
                a->wait_given = true;
                break;
        }
        case O_SECONDS:
                return parse_seconds("seconds", arg, 1, &a->seconds);
        case O_MEASURE:
                return parse_seconds("measure", arg, 1, &a->measure);
        case O_VERBOSE:
                a->verbose++;
                break;
        case O_IMAGE:
                a->image = true;
                break;
        case O_CHECK:
                a->check = true;
                break;
        case O_DIFF:
                a->diff = true;
                break;
        case O_NAGIOS:
                a->nagios = true;
                break;
        case O_CONDITION:
                a->condition = true;
                break;
        case O_BOOT_STEPS:
                a->boot_steps = true;
                break;
        case O_OUTPUT:
                if (!*arg) {
                        fprintf(stderr, _("idlecfg: --output needs a file name\n"));
                        return EXIT_USAGE;
                }
                a->output = arg;
                break;
        case O_SYMPTOM:
                a->symptoms = xrealloc(a->symptoms, (a->n_symptoms + 2) * sizeof(char *));
                a->symptoms[a->n_symptoms++] = (char *) arg;
                a->symptoms[a->n_symptoms] = NULL;
                break;
        case O_SHOW:
                a->show = true;
                break;
        case O_WARNING:
                a->warning = arg;
                break;
        case O_CRITICAL:
                a->critical = arg;
                break;
        case O_TIMEOUT:
                return parse_seconds("timeout", arg, 1, &a->timeout);
        case O_HELP:
                a->help = true;
                break;
        case O_VERSION:
                break;
        }
        return EXIT_OK;
}

/* the command line into A; optind is then the verb's index. -1: parsed,
 * else the exit code (--version printed, or a usage error said) */
int args_parse(int argc, char **argv, struct args *a)
{
        static struct option longopts[ELEMENTSOF(options_table) + 1];
        static char shortopts[2 * ELEMENTSOF(options_table) + 3];
        size_t n = 0;
        int c;

        /* ':' first: a missing argument is ':', told apart from an unknown option */
        shortopts[n++] = ':';
        for (size_t i = 0; i < ELEMENTSOF(options_table); i++) {
                const struct option_row *o = &options_table[i];
                longopts[i] = (struct option) { o->name, o->has_arg, NULL, 0x100 + (int) i };
                if (o->short_name) {
                        shortopts[n++] = o->short_name;
                        if (o->has_arg == required_argument)
                                shortopts[n++] = ':';
                }
        }
        shortopts[n] = 0;
        opterr = 0;
        while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) >= 0) {
                const struct option_row *o = NULL;
                char spelled[32];
                int r;

                if (c >= 0x100 && c < 0x100 + (int) ELEMENTSOF(options_table))
                        o = &options_table[c - 0x100];
                for (size_t i = 0; !o && c != '?' && c != ':' && i < ELEMENTSOF(options_table); i++)
                        if (options_table[i].short_name == c)
                                o = &options_table[i];
                if (c == ':') {
                        if (optopt >= 0x100 && optopt < 0x100 + (int) ELEMENTSOF(options_table))
                                option_spelling(&options_table[optopt - 0x100], spelled);
                        else
                                snprintf(spelled, sizeof(spelled), "-%c", optopt);
                        fprintf(stderr, _("idlecfg: option '%s' needs an argument\n"), spelled);
                } else if (!o) {
                        if (optopt > 0 && optopt < 0x100)
                                fprintf(stderr, _("idlecfg: unknown option '-%c'\n"), optopt);
                        else {
                                const char *w = argv[optind - 1];
                                size_t len = strcspn(w, "=");
                                fprintf(stderr, _("idlecfg: unknown option '%.*s'\n"), (int) len, w);
                        }
                }
                if (c == ':' || !o) {
                        fprintf(stderr, _("Try '%s --help' for more information.\n"), program_invocation_short_name);
                        return EXIT_USAGE;
                }
                if (o->bit == O_VERSION) {
                        printf("idlecfg %s\n", PACKAGE_VERSION);
                        return EXIT_OK;
                }
                /* a value given twice: the second would drop the first
                 * unsaid (a second --root, --profiles-dir A --profiles-dir B) */
                if (o->has_arg == required_argument && (a->given & o->bit)) {
                        option_spelling(o, spelled);
                        fprintf(stderr, _("idlecfg: %s given twice (the second time '%s'): it takes one value; "
                                          "give it once\n"), spelled, optarg);
                        return EXIT_USAGE;
                }
                r = parse_option(o, optarg, a);
                if (r != EXIT_OK)
                        return r;
        }
        return -1;
}

void args_done(struct args *a)
{
        free(a->symptoms);
        a->symptoms = NULL;
        a->n_symptoms = 0;
}

void options_print_help(unsigned bits, FILE *f)
{
        options_print_verb_help(NULL, bits, f);
}

void options_print_verb_help(const char *verb, unsigned bits, FILE *f)
{
        for (size_t i = 0; i < ELEMENTSOF(options_table); i++) {
                const char *usage = options_table[i].usage, *help = options_table[i].help;
                if (!(options_table[i].bit & bits))
                        continue;
                for (size_t k = 0; verb && k < ELEMENTSOF(verb_helps); k++)
                        if (verb_helps[k].bit == options_table[i].bit &&
                            (!verb_helps[k].verb || streq(verb_helps[k].verb, verb))) {
                                usage = verb_helps[k].usage;
                                help = verb_helps[k].help;
                                break;
                        }
                /* the texts in one column; an option too long for it on a line of its own */
                fprintf(f, "  %s", usage);
                if (2 + strlen(usage) + 2 > HELP_COLUMN)
                        fprintf(f, "\n%*s", HELP_COLUMN, "");
                else
                        fprintf(f, "%*s", HELP_COLUMN - 2 - (int) strlen(usage), "");
                help_print_wrapped(f, HELP_COLUMN, HELP_COLUMN, _(help));
        }
}

/* columns of UTF-8 text: the bytes that start a character */
static size_t columns(const char *s, size_t n)
{
        size_t c = 0;

        for (size_t i = 0; i < n; i++)
                c += ((unsigned char) s[i] & 0xc0) != 0x80;
        return c;
}

void help_print_wrapped(FILE *f, size_t col, size_t indent, const char *text)
{
        const char *p = text;
        bool first = true;

        while (*p) {
                size_t w = strcspn(p, " ");
                const char *last = p + w + strspn(p + w, " ");
                size_t lw = strcspn(last, " ");
                /* the text's last word alone on a line of its own reads as a
                 * stray fragment ("10)" of "(default 10)"): the word before
                 * goes down with it, where the two fit on a line */
                bool widow = *last && !last[lw + strspn(last + lw, " ")] &&
                             col + 1 + columns(p, w) + 1 + columns(last, lw) > HELP_WIDTH &&
                             indent + columns(p, w) + 1 + columns(last, lw) <= HELP_WIDTH;

                if (!first && (widow || col + 1 + columns(p, w) > HELP_WIDTH)) {
                        fprintf(f, "\n%*s", (int) indent, "");
                        col = indent;
                } else if (!first) {
                        fputc(' ', f);
                        col++;
                }
                fwrite(p, 1, w, f);
                col += columns(p, w);
                first = false;
                p += w;
                p += strspn(p, " ");
        }
        fputc('\n', f);
}

const char *option_name(unsigned bits)
{
        for (size_t i = 0; i < ELEMENTSOF(options_table); i++)
                if (options_table[i].bit & bits)
                        return options_table[i].name;
        return "?";
}
