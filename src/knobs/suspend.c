/* knobs/suspend.c: mem_sleep_default per platform, resume= from the target's swap */
#include "config.h"

#include "knobs/knob.h"

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
        else
                plan_skip_keep(c, "suspend.mem_sleep", "suspend", "mem_sleep");

        if (!hib || !streq(hib, "yes")) {
                plan_skip_keep(c, "suspend.resume", "suspend", "hibernate");
                return;
        }
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

static const char *const ch_mem_sleep[] = { "s2idle", "shallow", "deep", "keep", NULL };
static const char *const ch_hibernate[] = { "yes", "no", NULL };

static const struct profile_key keys[] = {
        KEY_CHOICE("mem_sleep", ch_mem_sleep),
        KEY_CHOICE("hibernate", ch_hibernate),
};

static const struct knob_rule rules[] = {
        RULE_WORDS("suspend.mem_sleep", "s2idle|shallow|deep", NULL, "mem_sleep_default"),
        { "suspend.resume", KNOB_RESUME, NULL, 0, 0, NULL, "resume" },
};

static const struct knob_property properties[] = {
        PROP_WORDS("IDLECFG_MEM_SLEEP", "s2idle|shallow|deep", "the default suspend variant of this platform"),
};

const struct knob_family knob_family_suspend = {
        .name = "suspend",
        .section = "suspend",
        KNOB_LIST(keys, keys),
        KNOB_LIST(rules, rules),
        KNOB_LIST(properties, properties),
        .plan = knob_suspend,
};
