/* verb-apply.c: the verb apply: the plan's values written to the running
 * system now, journal first (apply.c); apply --measure measures around it
 * (verb-measure.c); what it prints is print-apply.c's, as power-source
 * prints it too */
#include "config.h"

#include "cli/print-apply.h"
#include "cli/run.h"
#include "cli/verb-measure-around.h"
#include "cli/verb-measure.h"
#include "cli/verb-power-source.h"
#include "cli/verbs.h"
#include "state/state.h"

static int apply_change(void *userdata, FILE *out)
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

static int do_apply(struct run *c, int argc, char **argv)
{
        const struct args *a = c->a;
        struct measure_request q = { .seconds = a->measure, .json = a->json, .verbose = a->verbose };
        _cleanup_(rootfs_close) struct rootfs live = { .fd = -1 };
        bool same = true;

        if (!a->measure)
                return apply_change(c, stdout);
        /* the per-setting results go where apply journals: the live root's state */
        if (state_live_root(&c->rfs, &live, &same) < 0) {
                fprintf(stderr, _("idlecfg: cannot open the running system's root\n"));
                return EXIT_FAILURE_;
        }
        return measure_around(&q, "apply", c->plan, c->inv, same ? &c->rfs : &live, apply_change, c);
}

static int check_apply(const struct args *a, int argc, char **argv)
{
        if (a->json && !a->measure) {
                fprintf(stderr, _("idlecfg: apply prints JSON only with --measure (the measurement)\n"));
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

const struct verb verb_apply = {
        .name = "apply", .min_args = 0, .max_args = 0, .needs = VERB_LOCK | VERB_PLAN | VERB_STATUS,
        .check = check_apply, .run = do_apply,
        .help = N_("Apply the settings to the running system now, journal first"),
        .options = O_PLANNING | O_DRY_RUN | O_KEEP_GOING | O_WAIT | O_MEASURE | O_JSON,
};
