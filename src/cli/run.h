/* run.h: one run of a verb (the verb layer): the root, the lock, the
 * inventory and the plan, taken as the verb table of idlecfg.c says and
 * freed in one place; and how a verb reports an error */
#pragma once

#include <stdbool.h>

#include "model/inventory.h"
#include "cli/options.h"
#include "model/plan.h"
#include "root/rootfs.h"
#include "base/util.h"

struct manifest;

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
        /* the root's manifest, read once a run (run_manifest()) */
        bool manifest_read;
        int manifest_r;                 /* manifest_load()'s answer: 0, -ENOENT or why it was refused */
        struct manifest *manifest;      /* manifest_r 0: the manifest */
        struct xerror manifest_error;   /* refused: why */
        bool refresh;                   /* refresh installs: --image is the first-boot unit's */
        /* the verb reads the manifest itself and says why it refuses it
         * (install, refresh, rollback): run_plan() need not */
        bool manifest_verb;
};

/* "idlecfg: WHAT: file:line: message" on stderr; FALLBACK without a message */
void print_error(const char *what, const struct xerror *e, const char *fallback);
/* R < 0: print E (else strerror) and free it; the exit code (options.h) */
int report(int r, struct xerror *e, const char *what);
/* open the root of A into C: EXIT_OK or EXIT_FAILURE_ (said) */
int run_open(struct run *c, const struct args *a);
/* free what the run took, print the root's warnings */
void run_done(struct run *c);
/* take the lock of one instance (a read-only root needs none) */
int run_lock(struct run *c);
/* the inventory, once */
int run_detect(struct run *c);
/* verify: the profile install wrote (the root's manifest) unless --profile
 * was given, as the one run_plan() plans; a manifest that exists but is
 * refused (cut, damaged, not a regular file) is said: EXIT_USAGE or
 * EXIT_FAILURE_, as install and rollback refuse it */
int run_installed_profile(struct run *c);
/* the inventory and the plan, once */
int run_plan(struct run *c);
/* the root's manifest, read on the first call of the run: 0 and it in
 * *RET; -ENOENT (none) or the error of a refused one (its message copied to
 * RET_ERROR), *RET NULL. Read again only after run_manifest_drop(). */
int run_manifest(struct run *c, const struct manifest **ret, struct xerror *ret_error);
/* forget the manifest read: the run rewrote it (install, rollback, refresh) */
void run_manifest_drop(struct run *c);
/* stdout written out, or EXIT_FAILURE_ (said) */
int flush_stdout(void);
/* the columns text is wrapped at on F: 80 on a terminal; 0 (no wrapping,
 * one line a message, as grep reads a log or a pipe) otherwise */
int text_width(FILE *f);
