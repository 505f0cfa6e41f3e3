/* knobs/sata.c: SATA link power management per AHCI host, never for NOLPM disks */
#include "config.h"

#include "knob.h"

/* our own hwdb key for ATA disks: they have no modalias */
static char *ata_key(const struct device *disk)
{
        return xasprintf("idlecfg-ata:%s:%s", strempty(kv_get(&disk->ids, "model")),
                         strempty(kv_get(&disk->ids, "firmware")));
}

void knob_sata(struct planctx *c)
{
        const struct device_list *l = &c->inv->classes[CL_SATA];
        const char *want = profile_value(c, "sata", "alpm");

        if (!want) {
                for (size_t i = 0; i < l->n; i++)
                        if (kv_find(&l->v[i].knobs, "link_power_management_policy")) {
                                plan_skip_keep(c, "sata.alpm", "sata", "alpm");
                                break;
                        }
                return;
        }
        for (size_t i = 0; i < l->n; i++) {
                const struct device *h = &l->v[i];
                const char *supported = kv_get(&h->knobs, "link_power_management_supported");
                const struct device *ctrl = pci_parent(c, h);
                const char *ctrl_alias = ctrl ? ctrl->modalias : NULL;
                bool nolpm = false, optical = false;
                size_t disks = 0;
                struct hwdb_fact hf;

                if (!kv_find(&h->knobs, "link_power_management_policy"))
                        continue;
                if (!streq_ptr(kv_get(&h->ids, "proc_name"), "ahci")) {
                        plan_skip(c, h, "sata.alpm", xasprintf("skipped: not an AHCI host (%s)",
                                                               strempty(kv_get(&h->ids, "proc_name"))));
                        continue;
                }
                if (supported && streq(supported, "0")) {
                        plan_skip(c, h, "sata.alpm",
                                  xstrdup("skipped: the kernel says this port does not support LPM "
                                            "(external or hot-plug port)"));
                        continue;
                }
                /* the machine (ahci_broken_lpm) or the controller (AHCI board flags) */
                if ((hwdb_fact(c, kv_get(&c->inv->platform, "modalias"), "IDLECFG_SATA_ALPM", &hf) ||
                     hwdb_fact(c, ctrl_alias, "IDLECFG_SATA_ALPM", &hf)) && streq(hf.value, "deny")) {
                        _cleanup_free_ char *why = fact_reason(&hf);
                        plan_skip(c, h, "sata.alpm", xasprintf("skipped: %s", why));
                        continue;
                }
                for (size_t k = 0; k < h->n_children && !nolpm; k++) {
                        const struct device *disk = &h->children[k];
                        _cleanup_free_ char *key = ata_key(disk);
                        _cleanup_free_ char *hkey = ctrl_alias ? xasprintf("idlecfg-on:%s|%s", ctrl_alias, key) : NULL;
                        struct hwdb_fact f;

                        disks++;
                        optical = optical || streq_ptr(kv_get(&disk->ids, "kind"), "optical");
                        /* the drive, or the drive behind this controller (NO_LPM_ON_ATI) */
                        if ((hwdb_fact(c, key, "IDLECFG_SATA_ALPM", &f) && streq(f.value, "deny")) ||
                            (hwdb_fact(c, hkey, "IDLECFG_SATA_ALPM", &f) && streq(f.value, "deny"))) {
                                _cleanup_free_ char *why = fact_reason(&f);
                                plan_skip(c, h, "sata.alpm", xasprintf("skipped: disk %s %s: %s",
                                                                       strempty(kv_get(&disk->ids, "model")),
                                                                       strempty(kv_get(&disk->ids, "firmware")), why));
                                nolpm = true;
                        }
                }
                if (nolpm)
                        continue;
                if (disks == 0) {
                        plan_skip(c, h, "sata.alpm",
                                  xstrdup("skipped: no disk on this port: LPM would stop hot-plug detection "
                                            "(https://github.com/pop-os/system76-power/issues/417)"));
                        continue;
                }
                {
                        _cleanup_free_ char *why = profile_reason(c, "sata", "alpm");
                        plan_device(c, h, "sata.alpm", "link_power_management_policy", want,
                                    optical ? xasprintf("%s; optical drive on this port (ZPODD powers it off "
                                                          "by itself where the firmware supports it)", why)
                                            : xstrdup(why));
                }
        }
}

static const char *const ch_alpm[] = {
        "max_performance", "medium_power", "med_power_with_dipm", "min_power_with_partial", "min_power", "keep", NULL
};

static const struct profile_key keys[] = {
        KEY_CHOICE("alpm", ch_alpm),
};

static const struct knob_rule rules[] = {
        RULE_WORDS("sata.alpm", "max_performance|medium_power|med_power_with_dipm|min_power_with_partial|min_power",
                   "link_power_management_policy", NULL),
        RULE_WORDS("sata.runtime_pm", "auto|on", "power/control", NULL),
};

static const struct knob_property properties[] = {
        PROP_WORDS("IDLECFG_SATA_ALPM", "deny", "link power management is broken on this drive"),
};

static const struct knob_attr attrs[] = {
        { "sata", "link_power_management_policy" }, { "sata", "link_power_management_supported" },
        { "disk", "power/control" }, { "disk", "power/autosuspend_delay_ms" }, { "disk", "power/runtime_status" },
};

/* the SATA defaults at boot, shown by detect */
static const char *const modules_shown[] = { "ahci", "libata", NULL };

static const struct knob_runtime_pm runtime_pm[] = {
        { "disk", "sata.runtime_pm" }, { "sata", "sata.runtime_pm" },
};

const struct knob_family knob_family_sata = {
        .name = "sata",
        .section = "sata",
        KNOB_LIST(keys, keys),
        KNOB_LIST(rules, rules),
        KNOB_LIST(properties, properties),
        KNOB_LIST(attrs, attrs),
        .modules_shown = modules_shown,
        KNOB_LIST(runtime_pm, runtime_pm),
        .plan = knob_sata,
};
