/* knobs/suspend.c: mem_sleep_default per platform, resume= from the target's swap */
#include "config.h"

#include "planner.h"

void knob_suspend(struct planctx *c)
{
        const char *sleep = profile_value(c, "suspend", "mem_sleep");
        const char *hib = profile_value(c, "suspend", "hibernate");
        const char *dmi = kv_get(&c->inv->platform, "modalias");
        const struct storage *st = &c->inv->storage;
        struct hwdb_fact f;

        /* the platform entry is a known-good fact: it wins over the profile */
        if (hwdb_fact(c, dmi, "IDLECFG_MEM_SLEEP", &f))
                plan_global(c, "suspend.mem_sleep", NULL, "mem_sleep_default", f.value, NULL, MECH_CMDLINE, fact_reason(&f));
        else if (sleep)
                plan_global(c, "suspend.mem_sleep", NULL, "mem_sleep_default", sleep, NULL, MECH_CMDLINE,
                            profile_reason(c, "suspend", "mem_sleep"));

        if (!hib || !streq(hib, "yes"))
                return;
        for (size_t i = 0; i < st->n_swaps; i++)
                if (st->swaps[i].uuid && st->swaps[i].device) {
                        _cleanup_free_ char *v = xasprintf("UUID=%s", st->swaps[i].uuid);
                        _cleanup_free_ char *why = profile_reason(c, "suspend", "hibernate");
                        plan_global(c, "suspend.resume", NULL, "resume", v, NULL, MECH_CMDLINE,
                                    xasprintf("%s; swap %s from %s", why, st->swaps[i].device, st->swaps[i].source));
                        return;
                }
        plan_skip(c, NULL, "suspend.resume",
                  xstrdup("skipped: the profile asks for hibernation but the target has no swap device "
                            "with a UUID"));
}
