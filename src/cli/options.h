/* options.h: idlecfg's command-line options, one table, and what they set */
#pragma once

#include <stdbool.h>
#include <stdio.h>

enum {
        EXIT_OK = 0,
        EXIT_CHANGES = 1,
        EXIT_USAGE = 2,
        EXIT_FAILURE_ = 3,
        EXIT_BOOT_INCOMPLETE = 4,       /* done, but the boot configuration still lacks a step */
        EXIT_WOULD_CHANGE = 5,          /* install --check: a run would change something */
        EXIT_REFUSED = 6,               /* --refuse-conflicts and another power tool */
};

/* The options, one row each in options_table (options.c); a verb takes the ones
 * in its .options (O_COMMON always). To add one: a bit here, a row in
 * options_table, a case in parse_option() (options.c) and the bit in the verbs that
 * take it (and the completion's per-verb lists, tests/completion.sh); where its
 * --help line names several verbs, each verb's own line in verb_helps. */
enum {
        O_ROOT = 1u << 0,
        O_KERNEL = 1u << 1,
        O_JSON = 1u << 2,
        O_PROFILE = 1u << 3,
        O_PROFILES_DIR = 1u << 4,
        O_FORMAT = 1u << 5,
        O_DRY_RUN = 1u << 6,
        O_FORCE = 1u << 7,
        O_KEEP_GOING = 1u << 8,
        O_WAIT = 1u << 9,
        O_SECONDS = 1u << 10,
        O_MEASURE = 1u << 11,
        O_VERBOSE = 1u << 12,
        O_HELP = 1u << 13,
        O_VERSION = 1u << 14,
        O_REFUSE_CONFLICTS = 1u << 15,
        /* images and fleets (#22) */
        O_IMAGE = 1u << 16,
        O_CHECK = 1u << 17,
        O_DIFF = 1u << 18,
        O_NAGIOS = 1u << 19,
        O_OUTPUT = 1u << 20,
        O_CONDITION = 1u << 21,         /* refresh --image --condition: the unit's ExecCondition= */
        /* verify --nagios: the plugin's thresholds and timeout (#34) */
        O_WARNING = 1u << 22,
        O_CRITICAL = 1u << 23,
        O_TIMEOUT = 1u << 24,
        O_BOOT_STEPS = 1u << 25,        /* refresh --image --boot-steps: idlecfg-boot-steps.service */
        O_SYMPTOM = 1u << 26,           /* report --symptom DEVICE:TEXT, repeatable */
        O_SHOW = 1u << 27,              /* report --show: print what would be written, write nothing */
        /* every verb takes these */
        O_COMMON = O_ROOT | O_VERBOSE | O_HELP | O_VERSION,
        /* the plan's inputs */
        O_PLANNING = O_KERNEL | O_PROFILE | O_PROFILES_DIR,
};

struct args {
        unsigned given;         /* O_*: the options on the command line */
        bool help;
        bool refuse_conflicts;
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
        bool wait_given;        /* --wait was given: power-source then waits only that long */
        unsigned seconds;       /* measure --seconds */
        unsigned measure;       /* apply/rollback --measure: seconds, 0 without */
        int verbose;
        /* images and fleets (#22) */
        bool image;             /* install --image; refresh --image: the first-boot unit */
        bool check;             /* install --check */
        bool diff;              /* install --check --diff */
        bool nagios;            /* verify --nagios */
        const char *output;     /* verify --format=prometheus --output FILE */
        bool condition;         /* refresh --image --condition: exit 0 if the first-boot unit has work, 1 if not */
        const char *warning;    /* verify --nagios -w DRIFT[,BLOCKERS]: ranges, checked by the verb */
        const char *critical;   /* -c, the same */
        unsigned timeout;       /* verify --nagios -t SECONDS */
        bool boot_steps;        /* refresh --image --boot-steps: run the boot steps the first boot handed on */
        char **symptoms;        /* report --symptom, in order (argv's strings); NULL-terminated */
        size_t n_symptoms;
        bool show;              /* report --show */
};

/* The command line into A (getopt's own messages off: idlecfg's, with the
 * "idlecfg:" prefix); optind is then the verb's index. -1: parsed, else the
 * exit code (--version printed, or a usage error said). */
int args_parse(int argc, char **argv, struct args *a);
/* what args_parse() allocated in A (the --symptom list) */
void args_done(struct args *a);
/* --help's width, and the column the options' texts start in */
#define HELP_WIDTH 80
#define HELP_COLUMN 24
/* TEXT on F from column COL, its words wrapped at HELP_WIDTH columns onto
 * lines that start at column INDENT, the last word never alone on its line
 * (the one before goes down with it); ends the line */
void help_print_wrapped(FILE *f, size_t col, size_t indent, const char *text);
/* the --help lines of the options in BITS (O_*), translated */
void options_print_help(unsigned bits, FILE *f);
/* the same in VERB's usage: each line says what the option does there */
void options_print_verb_help(const char *verb, unsigned bits, FILE *f);
/* the long name of the first option in BITS */
const char *option_name(unsigned bits);
