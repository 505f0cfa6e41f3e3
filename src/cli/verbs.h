/* verbs.h: the verbs, one descriptor each (kmod's tools/ style): verb-X.c
 * defines verb_X, the table of idlecfg.c lists them, run_verb() runs them */
#pragma once

#include "cli/options.h"

/* what a verb needs before it runs */
enum {
        VERB_LOCK = 1 << 0,             /* the lock of the root (the writing verbs) */
        VERB_INVENTORY = 1 << 1,        /* the inventory of the machine */
        VERB_PLAN = 1 << 2,             /* the inventory and the plan */
        VERB_INSTALLED = 1 << 3,        /* the plan of the installed profile unless --profile */
        VERB_LOCK_LATE = 1 << 4,        /* the lock, taken by the verb once it has something to write */
        VERB_STATUS = 1 << 5,           /* writes the status file after a run that held the lock */
        VERB_MANIFEST = 1 << 6,         /* may rewrite the manifest: what the run read of it is dropped after */
        VERB_ANY_KERNEL = 1 << 7,       /* a VERB_LOCK verb whose writes hold whatever the kernel (rollback
                                         * undoes): a --kernel the root lacks is a warning, not an error */
        VERB_WAIT_HOLDER = 1 << 8,      /* waits for the lock as long as its holder takes unless --wait is
                                         * given (power-source: a switch that gave up would be lost) */
};

struct run;

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
        /* an option (O_*) it does not take but is mistaken for one it does,
         * and the line said instead of the plain refusal; 0: none */
        unsigned mistaken_option;
        const char *mistaken_hint;
        /* whether a run with these arguments only reads (power-source show):
         * then it takes no lock, and any user may run it; NULL: none does */
        bool (*reads_only)(int argc, char **argv);
        /* after the run or a refusal of its checks, with the exit code R:
         * the exit code; NULL: R as it is */
        int (*after_run)(const struct args *a, int r);
};

/* each in its file, src/cli/verb-X.c; the order of --help is idlecfg.c's */
extern const struct verb verb_detect;
extern const struct verb verb_plan;
extern const struct verb verb_explain;
extern const struct verb verb_install;
extern const struct verb verb_apply;
extern const struct verb verb_rollback;
extern const struct verb verb_verify;
extern const struct verb verb_report;
extern const struct verb verb_refresh;
extern const struct verb verb_measure;
extern const struct verb verb_power_source;
extern const struct verb verb_steps;
extern const struct verb verb_facts;
