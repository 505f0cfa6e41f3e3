/* run-status.c: the status file after a writing run: what it gathers (the
 * manifest, the journal, the power source, the boot steps, the comparison
 * of a run that planned) for state/status.c to write */
#include "config.h"

#include "engine/next-steps.h"
#include "engine/verify.h"
#include "cli/run-status.h"
#include "cli/verb-power-source.h"
#include "root/powersource.h"
#include "state/journal.h"
#include "state/manifest.h"
#include "state/state.h"
#include "state/status.h"

/* the running system against the plan, into S (the plan's values of the
 * power source in effect, as verify compares) */
static void status_compare(struct run *c, struct status *s)
{
        _cleanup_(verify_result_free) struct verify_result res = {};
        _cleanup_free_ char *source = NULL;
        const struct manifest *m;
        struct xerror e = {};
        int r;

        power_source_for_verify(&c->rfs, c->plan, &source);
        /* (a refused manifest: no comparison, as verify_run() refuses it) */
        r = run_manifest(c, &m, NULL);
        if ((r < 0 && r != -ENOENT) || verify_run_of(&c->rfs, c->plan, c->inv, m, &res, &e) < 0) {
                xerror_done(&e);
                return;
        }
        s->compared = s->time;
        s->match = (long long) res.count[VERIFY_MATCH];
        s->drift = (long long) res.count[VERIFY_DRIFT];
        s->missing = (long long) res.count[VERIFY_MISSING];
        s->later = (long long) res.count[VERIFY_LATER];
        s->settings = s->match + s->drift + s->missing + s->later;
}

int run_status(struct run *c, const char *verb)
{
        const struct manifest *m;
        _cleanup_(next_steps_free) struct next_steps steps = {};
        struct status old = {}, s = { .verb = xstrdup(verb), .time = (long long) time(NULL),
                                      .version = xstrdup(PACKAGE_VERSION), .settings = -1, .match = -1,
                                      .drift = -1, .missing = -1, .later = -1 };
        struct xerror e = {};
        struct stat st;
        enum power_source ps;
        struct strbuf ids = {};
        int r;

        /* a refresh that only recorded stat data (its quiet look, whose next
         * run takes no lock) leaves the file to the runs that change something */
        if (streq(verb, "refresh") && !c->plan) {
                status_done(&s);
                return 0;
        }
        s.installed = run_manifest(c, &m, NULL) == 0;
        s.applied = rootfs_lstat(&c->rfs, JOURNAL_PATH, &st) == 0;
        if (!s.installed && !s.applied) {
                /* nothing of idlecfg left (rollback to nothing): no status either */
                (void) status_remove(&c->rfs);
                status_done(&s);
                return 0;
        }
        if (m) {
                s.profile = m->profile ? xstrdup(m->profile) : NULL;
                s.kernel = m->kernel ? xstrdup(m->kernel) : NULL;
        }
        if (ps_last_read(&c->rfs, &ps, &s.power_source_forced) == 0)
                s.power_source = xstrdup(power_source_name(ps));
        next_steps_init(&steps, &c->rfs);
        /* (no manifest, or one refused: nothing of ours) */
        if (m)
                next_steps_boot_pending_of(&steps, &c->rfs, m);
        s.boot_step_pending = next_steps_boot_incomplete(&steps);
        for (size_t i = 0; i < steps.n; i++)
                if (steps.v[i].boot)
                        sb_appendf(&ids, "%s%s", ids.len ? " " : "", steps.v[i].id);
        s.boot_steps = ids.len ? sb_steal(&ids) : NULL;
        sb_free(&ids);
        /* an image's plan is for the machines it boots on, not this one */
        if (c->plan && c->inv && !c->a->image)
                status_compare(c, &s);
        else if (!streq(verb, "rollback") && status_read(&c->rfs, &old) == 0) {
                /* this run planned nothing: the last comparison stands, with its time */
                s.compared = old.compared;
                s.settings = old.settings;
                s.match = old.match;
                s.drift = old.drift;
                s.missing = old.missing;
                s.later = old.later;
        }
        status_done(&old);
        /* a read-only root (a verify-only mount) or one without the state
         * directory keeps no status; any other failure (a full disk) fails
         * the run as every other write does: said, exit 3 */
        r = status_write(&c->rfs, &s, &e);
        if (r < 0 && r != -ENOENT && r != -EROFS)
                print_error(_("the status file"), &e, strerror(-r));
        else
                r = 0;
        xerror_done(&e);
        status_done(&s);
        return r;
}

