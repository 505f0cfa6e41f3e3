/* knobs/i2c.c: runtime PM of I2C controllers and clients, i2c-hid touchpads only when allowed */
#include "config.h"

#include "knobs/knob.h"

/* [i2c] runtime_pm = platform: the kernel's defaults are the baseline (the
 * DesignWare and LPSS drivers allow runtime PM of their controllers themselves,
 * i2c clients start allowed unless their driver forbids it); idlecfg adds only
 * what an hwdb entry for the device says: allow -> auto; deny -> left alone. */
static void platform(struct planctx *c, const struct device_list *l)
{
        size_t allowed = 0, clients = 0;

        for (size_t i = 0; i < l->n; i++)
                for (size_t k = 0; k < l->v[i].n_children; k++) {
                        const struct device *d = &l->v[i].children[k];
                        struct hwdb_fact f;

                        if (!kv_find(&d->knobs, "power/control"))
                                continue;
                        clients++;
                        if (!hwdb_fact(c, d->modalias, "IDLECFG_I2C_RUNTIME_PM", &f))
                                continue;
                        {
                                _cleanup_free_ char *why = fact_reason(&f);
                                if (streq(f.value, "allow")) {
                                        plan_device(c, d, "i2c.runtime_pm", "power/control", "auto", TAKE_PTR(why));
                                        allowed++;
                                } else
                                        plan_skip(c, d, "i2c.runtime_pm", xasprintf("skipped: %s", why));
                        }
                }
        if (l->n && !allowed) {
                _cleanup_free_ char *why = profile_reason(c, "i2c", "runtime_pm");
                plan_skip(c, NULL, "i2c.runtime_pm",
                          xasprintf("skipped: %s: no hwdb entry allows runtime PM of an I2C device here (%zu clients); "
                                    "the kernel's default stays: the DesignWare and LPSS controller drivers allow it "
                                    "themselves", why, clients));
        }
}

void knob_i2c(struct planctx *c)
{
        const struct device_list *l = &c->inv->classes[CL_I2C];
        const char *want = profile_value(c, "i2c", "runtime_pm");

        if (!want) {
                if (l->n)
                        plan_skip_keep(c, "i2c.runtime_pm", "i2c", "runtime_pm");
                return;
        }
        if (streq(want, "platform")) {
                platform(c, l);
                return;
        }
        for (size_t i = 0; i < l->n; i++) {
                const struct device *a = &l->v[i];

                /* the adapter's controller (designware, lpss): its runtime PM gates the bus */
                if (kv_find(&a->knobs, "device/power/control") && kv_get(&a->ids, "controller")) {
                        /* the rule matches the controller itself, where the file is power/control */
                        struct setting *s = plan_device(c, a, "i2c.runtime_pm", "power/control", want,
                                                        profile_reason(c, "i2c", "runtime_pm"));
                        const char *cur = kv_get(&a->knobs, "device/power/control");
                        char *slash = s->device ? strrchr(s->device, '/') : NULL;
                        free(s->current);
                        s->current = cur ? xstrdup(cur) : NULL;
                        /* the setting names the file it writes: the controller's
                         * power/control, the adapter's parent directory */
                        if (slash && slash != s->device) {
                                *slash = '\0';
                                free(s->device_name);
                                s->device_name = xstrdup(kv_get(&a->ids, "controller"));
                        }
                }
                for (size_t k = 0; k < a->n_children; k++) {
                        const struct device *d = &a->children[k];
                        struct hwdb_fact f;

                        if (!kv_find(&d->knobs, "power/control"))
                                continue;
                        if (hwdb_fact(c, d->modalias, "IDLECFG_I2C_RUNTIME_PM", &f)) {
                                _cleanup_free_ char *why = fact_reason(&f);
                                if (streq(f.value, "allow"))
                                        plan_device(c, d, "i2c.runtime_pm", "power/control", want, TAKE_PTR(why));
                                else
                                        plan_skip(c, d, "i2c.runtime_pm", xasprintf("skipped: %s", why));
                                continue;
                        }
                        if (streq_ptr(d->driver, "cyapa")) {
                                plan_skip(c, d, "i2c.runtime_pm",
                                          xstrdup("skipped: cyapa touchpad: systemd's 60-autosuspend.rules keeps it on"));
                                continue;
                        }
                        if (d->driver && (startswith(d->driver, "i2c_hid") || startswith(d->driver, "i2c-hid"))) {
                                plan_skip(c, d, "i2c.runtime_pm",
                                          xstrdup("skipped: i2c-hid input device: touchpads die or idle wrongly with "
                                                    "runtime PM (pop-os/pop#4053); only with a hwdb allow entry"));
                                continue;
                        }
                        plan_skip(c, d, "i2c.runtime_pm",
                                  xstrdup("skipped: I2C client without a hwdb entry: its driver decides"));
                }
        }
}

static const char *const ch_runtime_pm[] = { "platform", "auto", "on", "keep", NULL };

static const struct profile_key keys[] = {
        KEY_CHOICE("runtime_pm", ch_runtime_pm),
};

static const struct knob_rule rules[] = {
        /* an adapter's knob is its controller's, one directory up */
        RULE_WORDS("i2c.runtime_pm", "auto|on", "power/control|device/power/control", NULL),
};

static const struct knob_property properties[] = {
        PROP_WORDS("IDLECFG_I2C_RUNTIME_PM", "allow|deny", "runtime PM of this I2C client: known to work, or never"),
};

static const struct knob_attr attrs[] = {
        { "i2c-adapter", "device/power/control" }, { "i2c-adapter", "device/power/runtime_status" },
        { "i2c-client", "power/control" }, { "i2c-client", "power/runtime_status" }, { "i2c-client", "power/wakeup" },
};

static const struct knob_runtime_pm runtime_pm[] = {
        { "i2c", "i2c.runtime_pm" }, { "i2c-client", "i2c.runtime_pm" },
};

/* the adapter's setting is planned on its controller, the adapter's parent */
static const char *const on_parent[] = { "i2c-adapter", NULL };
static const struct knob_runtime_pm runtime_pm_through[] = {
        { "i2c-adapter", "i2c.runtime_pm" },
};

const struct knob_family knob_family_i2c = {
        .name = "i2c",
        .section = "i2c",
        KNOB_LIST(keys, keys),
        KNOB_LIST(rules, rules),
        KNOB_LIST(properties, properties),
        KNOB_LIST(attrs, attrs),
        KNOB_LIST(runtime_pm, runtime_pm),
        KNOB_LIST(runtime_pm_through, runtime_pm_through),
        .on_parent = on_parent,
        .plan = knob_i2c,
};
