/* verb-steps.c: idlecfg steps [done ID...|all]: the boot steps install left
 * (what verify, install --check, Nagios and the status file report as
 * pending, exit 4), and the acknowledgement of a step done by hand (words
 * put into a boot loader idlecfg does not read, a step run another way):
 * recorded with its digest (engine/next-steps.c), it is not pending until
 * the step or the boot files it is for change */
#include "config.h"

#include "base/json.h"
#include "engine/next-steps.h"
#include "cli/print-next-steps.h"
#include "cli/run.h"
#include "cli/verbs.h"

/* an id as next-steps.c makes them: lower-case words and dashes */
static bool id_shape_ok(const char *id)
{
        return *id && strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(id);
}

static int check_steps(const struct args *a, int argc, char **argv)
{
        (void) a;
        if (argc == 0)
                return EXIT_OK;
        if (!streq(argv[0], "done")) {
                fprintf(stderr, _("idlecfg: steps takes \"done ID...\" or \"done all\", not '%s'\n"), argv[0]);
                return EXIT_USAGE;
        }
        if (argc == 1) {
                fprintf(stderr, _("idlecfg: steps done: which step? Give its ID (idlecfg steps lists them) or all\n"));
                return EXIT_USAGE;
        }
        for (int i = 1; i < argc; i++) {
                if (streq(argv[i], "all") && argc > 2) {
                        fprintf(stderr, _("idlecfg: steps done: all stands alone\n"));
                        return EXIT_USAGE;
                }
                if (!id_shape_ok(argv[i])) {
                        fprintf(stderr, _("idlecfg: steps done: '%s' is no step ID\n"), argv[i]);
                        return EXIT_USAGE;
                }
        }
        return EXIT_OK;
}

static int do_steps(struct run *c, int argc, char **argv)
{
        _cleanup_(next_steps_free) struct next_steps steps = {};
        const struct manifest *m;
        struct xerror e = {};
        int r;

        if (argc > 0) {
                r = run_lock(c);
                if (r != EXIT_OK)
                        return r;
                /* an ID that is no pending step: -EINVAL, a usage error naming it */
                r = next_steps_acknowledge(&c->rfs, argv + 1, (size_t) argc - 1, &e);
                if (r < 0)
                        return report(r, &e, _("steps done"));
        }
        next_steps_init(&steps, &c->rfs);
        /* no manifest (or one install and rollback report): nothing of ours */
        if (run_manifest(c, &m, NULL) == 0)
                next_steps_boot_pending_of(&steps, &c->rfs, m);
        if (c->a->json) {
                struct json j;
                json_init(&j, stdout);
                json_begin_object(&j);
                next_steps_print_json(&steps, &j);
                json_end_object(&j);
                json_finish(&j);
        } else {
                if (!steps.n)
                        printf(_("No boot step is pending.\n"));
                next_steps_print_text(&steps, _("The boot configuration still lacks what idlecfg installed; run:\n"),
                                      stdout);
                next_steps_print_acked(&steps, stdout);
        }
        return next_steps_boot_incomplete(&steps) ? EXIT_BOOT_INCOMPLETE : EXIT_OK;
}

/* lists without the lock; "done" takes it */
const struct verb verb_steps = {
        .name = "steps", .min_args = 0, .max_args = 64, .needs = VERB_LOCK | VERB_LOCK_LATE | VERB_STATUS,
        .check = check_steps, .run = do_steps,
        .help = N_("List the boot steps left; steps done ID...|all: say they were done by hand"),
        .options = O_JSON | O_WAIT, .synopsis = N_("[done ID...|all]"),
};
