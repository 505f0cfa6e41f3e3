/* knobs/nvme.c: NVMe APST latency, only where the hwdb has a quirk for the model */
#include "config.h"

#include "knobs/knob.h"

void knob_nvme(struct planctx *c)
{
        const struct device_list *l = &c->inv->classes[CL_NVME];
        const struct device_list *pci = &c->inv->classes[CL_PCI];
        const char *mode = profile_value(c, "nvme", "apst");

        if (!l->n)
                return;
        if (!mode) {
                plan_skip_keep(c, "nvme.apst", "nvme", "apst");
                return;
        }
        for (size_t i = 0; i < l->n; i++) {
                const struct device *d = &l->v[i];
                _cleanup_free_ char *key = xasprintf("idlecfg-nvme:%s:%s", strempty(kv_get(&d->ids, "model")),
                                                     strempty(kv_get(&d->ids, "firmware")));
                const char *ctrl = kv_get(&d->ids, "controller");
                const char *pci_alias = NULL;
                _cleanup_free_ char *mkey = NULL;
                struct hwdb_fact f;
                _cleanup_free_ char *undecided = NULL;
                bool found;

                for (size_t k = 0; k < pci->n; k++)
                        if (streq_ptr(pci->v[k].name, ctrl))
                                pci_alias = pci->v[k].modalias;
                mkey = machine_key(c, pci_alias);
                /* this controller on this machine (check_vendor_combination_bug), the
                 * model, the PCI ID, then the machine alone; an entry whose kernel
                 * range cannot be decided stops the search */
                found = hwdb_fact_undecided(c, mkey, "IDLECFG_NVME_APST", &f, &undecided) ||
                        (!undecided && hwdb_fact_undecided(c, key, "IDLECFG_NVME_APST", &f, &undecided)) ||
                        (!undecided && hwdb_fact_undecided(c, pci_alias, "IDLECFG_NVME_APST", &f, &undecided)) ||
                        (!undecided && hwdb_fact_undecided(c, kv_get(&c->inv->platform, "modalias"),
                                                           "IDLECFG_NVME_APST", &f, &undecided));
                if (!found && undecided) {
                        plan_skip(c, d, "nvme.apst", xasprintf("skipped: %s: the kernel's APST stays", undecided));
                        continue;
                }
                if (!found) {
                        plan_skip(c, d, "nvme.apst",
                                  xasprintf("skipped: no APST quirk for %s: the kernel's APST stays",
                                            strempty(kv_get(&d->ids, "model"))));
                        continue;
                }
                if (streq(f.value, "deny"))
                        /* the parameter is global: it turns APST off for every NVMe of the machine */
                        plan_param(c, d, "nvme.apst", "nvme_core", "default_ps_max_latency_us", "0", fact_reason(&f));
                else {
                        _cleanup_free_ char *why = fact_reason(&f);
                        plan_skip(c, d, "nvme.apst",
                                  xasprintf("skipped: %s: the kernel applies this quirk itself", why));
                }
        }
}

static const char *const ch_apst[] = { "quirks", "keep", NULL };

static const struct profile_key keys[] = {
        KEY_CHOICE("apst", ch_apst),
};

static const struct knob_rule rules[] = {
        /* 0 turns APST off */
        RULE_RANGE("nvme.apst", 0, 100000000, NULL, "nvme_core.default_ps_max_latency_us"),
};

static const struct knob_property properties[] = {
        PROP_WORDS("IDLECFG_NVME_APST", "deny|no-deepest", "APST must stay off, or its deepest state unused (the kernel's quirk)"),
};

static const struct knob_attr attrs[] = {
        { "nvme", "power/pm_qos_latency_tolerance_us" }, { "nvme", "power/control" }, { "nvme", "power/runtime_status" },
};

static const char *const modules[] = { "nvme_core", NULL };

const struct knob_family knob_family_nvme = {
        .name = "nvme",
        .section = "nvme",
        KNOB_LIST(keys, keys),
        KNOB_LIST(rules, rules),
        KNOB_LIST(properties, properties),
        KNOB_LIST(attrs, attrs),
        .modules = modules,
        .plan = knob_nvme,
};
