/* knobs/suspend.c: mem_sleep_default per platform, resume= from the target's swap;
 * the platform's prerequisites of deep idle when it suspends to idle */
#include "config.h"

#include "knobs/knob.h"

bool knob_suspends_to_idle(const struct inventory *inv)
{
        const char *ms = kv_get(&inv->platform, "mem_sleep");

        return ms && strstr(ms, "s2idle") && (strstr(ms, "[s2idle]") || !strstr(ms, "deep"));
}

/* /sys/power/mem_sleep offers s2idle and no deep: S3 does not exist here */
static bool s2idle_only(const struct inventory *inv)
{
        const char *ms = kv_get(&inv->platform, "mem_sleep");

        return ms && strstr(ms, "s2idle") && !strstr(ms, "deep");
}

void knob_suspend(struct planctx *c)
{
        const char *sleep = profile_value(c, "suspend", "mem_sleep");
        const char *hib = profile_value(c, "suspend", "hibernate");
        const char *dmi = kv_get(&c->inv->platform, "modalias");
        const struct storage *st = &c->inv->storage;
        struct hwdb_fact f;

        /* the platform entry is a known-good fact: it wins over the profile */
        if (hwdb_fact(c, dmi, "IDLECFG_MEM_SLEEP", &f) && streq(f.value, "deep") && s2idle_only(c->inv)) {
                _cleanup_free_ char *why = fact_reason(&f);
                plan_skip(c, NULL, "suspend.mem_sleep",
                          xasprintf("skipped: %s asks for deep, but this firmware offers no S3 (/sys/power/mem_sleep: "
                                    "%s)", why, kv_get(&c->inv->platform, "mem_sleep")));
        } else if (hwdb_fact(c, dmi, "IDLECFG_MEM_SLEEP", &f))
                plan_global(c, "suspend.mem_sleep", NULL, "mem_sleep_default", f.value, NULL, MECH_CMDLINE, fact_reason(&f));
        else if (sleep && streq(sleep, "deep") && s2idle_only(c->inv)) {
                _cleanup_free_ char *why = profile_reason(c, "suspend", "mem_sleep");
                plan_skip(c, NULL, "suspend.mem_sleep",
                          xasprintf("skipped: %s asks for deep, but this firmware offers no S3 (/sys/power/mem_sleep: "
                                    "%s): the machine suspends to idle", why, kv_get(&c->inv->platform, "mem_sleep")));
        } else if (sleep)
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

/* ---- the platform's prerequisites of deep idle (verify, measure) ---- */

/* the PMC driver of the CPU's vendor: AMD's tells the SoC's power
 * controller to enter its sleep state at s2idle (without it, no hardware
 * sleep); Intel's reads the S0ix residency and the low-power-mode status */
static const struct { const char *vendor, *driver, *cost; } pmc_drivers[] = {
        { "AMD", "amd_pmc",
          N_("amd_pmc is not bound to the SoC's power management controller: at s2idle nobody tells the SoC to "
             "enter its hardware sleep state (S0i3), so the machine never reaches it") },
        { "Intel", "intel_pmc_core",
          N_("intel_pmc_core is not bound: the S0ix residency counter (pmc_core/slp_s0_residency_usec) and the "
             "low-power-mode status are gone, so a machine that misses S0ix cannot tell") },
};

static int pmc(const struct inventory *inv, const struct plan *p, const struct prereq_sys *sys, char **ret)
{
        const char *v = kv_get(&inv->platform, "cpu_vendor");

        for (size_t i = 0; knob_suspends_to_idle(inv) && i < ELEMENTSOF(pmc_drivers); i++) {
                if (!streq_ptr(v, pmc_drivers[i].vendor))
                        continue;
                if (sys->bound("platform", pmc_drivers[i].driver))
                        return 0;
                *ret = xstrdup(_(pmc_drivers[i].cost));
                return 1;
        }
        return -1;
}

/* pciehp: a kernel without it keeps every hot-plug bridge out of D3
 * (pci_bridge_d3_possible(): a hot-plug bridge that pciehp does not handle
 * natively never powers down) */
static int pciehp(const struct inventory *inv, const struct plan *p, const struct prereq_sys *sys, char **ret)
{
        const struct device_list *l = &inv->classes[CL_PCI];
        bool bridge = false;

        for (size_t i = 0; i < l->n && !bridge; i++)
                bridge = startswith(strempty(kv_get(&l->v[i].ids, "class")), "0604");
        if (!knob_suspends_to_idle(inv) || !bridge)
                return -1;
        if (sys->registered("pci_express", "pciehp"))
                return 0;
        *ret = xstrdup(_("pciehp is not registered (no /sys/bus/pci_express/drivers/pciehp): the kernel keeps "
                         "PCIe hot-plug ports (Thunderbolt, USB4) out of D3, and their hot-plug events go "
                         "unserviced"));
        return 1;
}

/* HID over I2C devices (ACPI compatible ID PNP0C50 or ACPI0C50) without
 * i2c_hid_acpi; IDEA5002, which the kernel keeps off i2c_hid_acpi on
 * purpose (i2c_hid_acpi_blacklist), does not count */
static int i2c_hid(const struct inventory *inv, const struct plan *p, const struct prereq_sys *sys, char **ret)
{
        const struct device_list *l = &inv->classes[CL_I2C];
        struct strbuf sb = {};
        size_t hid = 0, unbound = 0;

        for (size_t i = 0; i < l->n; i++)
                for (size_t k = 0; k < l->v[i].n_children; k++) {
                        const struct device *d = &l->v[i].children[k];
                        const char *m = strempty(d->modalias);

                        if (!startswith(m, "acpi:") || (!strstr(m, ":PNP0C50:") && !strstr(m, ":ACPI0C50:")) ||
                            startswith(m, "acpi:IDEA5002:"))
                                continue;
                        hid++;
                        if (streq_ptr(d->driver, "i2c_hid_acpi"))
                                continue;
                        sb_appendf(&sb, "%s%s", unbound++ ? ", " : "", d->name);
                }
        if (!knob_suspends_to_idle(inv) || hid == 0) {
                free(sb_steal(&sb));
                return -1;
        }
        if (!unbound) {
                free(sb_steal(&sb));
                return 0;
        }
        {
                _cleanup_free_ char *names = sb_steal(&sb);
                *ret = xasprintf(_("i2c_hid_acpi is not bound to %s (HID over I2C): the device is neither used nor "
                                   "told to sleep (HID SET_POWER) at suspend"), names);
        }
        return 1;
}

/* mem_sleep_default=deep where the firmware offers no S3: the word asks for
 * what is not there, and hides that the machine suspends to idle */
static int deep_word(const struct inventory *inv, const struct plan *p, const struct prereq_sys *sys, char **ret)
{
        const char *c = p ? p->boot_cmdline : NULL;
        const char *at = c ? strstr(c, "mem_sleep_default=deep") : NULL;

        if (!s2idle_only(inv))
                return -1;
        if (!at || (at != c && at[-1] != ' ') || (at[22] != ' ' && at[22] != '\0'))
                return 0;
        *ret = xasprintf(_("the kernel command line has mem_sleep_default=deep, but this firmware offers no S3 "
                           "(/sys/power/mem_sleep: %s): suspend stays s2idle, so the prerequisites above decide its "
                           "power; drop the word"), kv_get(&inv->platform, "mem_sleep"));
        return 1;
}

static const struct knob_prereq prereqs[] = {
        { "pmc", pmc }, { "pciehp", pciehp }, { "i2c_hid_acpi", i2c_hid }, { "mem_sleep", deep_word },
};

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
        KNOB_LIST(prereqs, prereqs),
        .plan = knob_suspend,
};
