/* knobs/pci.c: PCI runtime PM (power/control) with a denylist by driver and class */
#include "config.h"

#include "knob.h"

/* drivers whose runtime PM is known to break something (KNOBS.md: TLP's
 * denylist, https://github.com/linrunner/TLP/issues/587 for xHCI) */
static const struct { const char *driver, *why; } deny_drivers[] = {
        { "mei_me", "Intel ME interface: runtime suspend breaks the ME link (TLP denylist)" },
        { "xhci_hcd", "xHCI: USB devices go unrecognised with runtime PM (TLP #587, #436)" },
        { "pcieport", "PCIe port: the kernel manages the runtime PM of ports itself" },
        { "nouveau", "GPU: the driver's runpm manages it; set only with a hwdb allow entry" },
        { "amdgpu", "GPU: the driver's runpm manages it; set only with a hwdb allow entry" },
        { "radeon", "GPU: the driver's runpm manages it; set only with a hwdb allow entry" },
        { "nvidia", "GPU: runtime D3 depends on the proprietary driver; set only with a hwdb allow entry" },
        { "i915", "GPU: the driver manages its runtime PM" },
        { "xe", "GPU: the driver manages its runtime PM" },
};

void knob_pci_runtime_pm(struct planctx *c)
{
        const struct device_list *l = &c->inv->classes[CL_PCI];
        const char *want = profile_value(c, "pci", "runtime_pm");

        if (!want) {
                if (l->n)
                        plan_skip_keep(c, "pci.runtime_pm", "pci", "runtime_pm");
                return;
        }
        for (size_t i = 0; i < l->n; i++) {
                const struct device *d = &l->v[i];
                const char *cls = kv_get(&d->ids, "class");
                struct hwdb_fact f;
                bool denied = false;

                _cleanup_free_ char *mkey = machine_key(c, d->modalias);

                if (!kv_find(&d->knobs, "power/control"))
                        continue;       /* no runtime PM file on this kernel */
                /* this function on this machine (bridge_d3_blacklist), then the function */
                if (hwdb_fact(c, mkey, "IDLECFG_PCI_RUNTIME_PM", &f) ||
                    hwdb_fact(c, d->modalias, "IDLECFG_PCI_RUNTIME_PM", &f)) {
                        _cleanup_free_ char *why = fact_reason(&f);
                        if (streq(f.value, "deny")) {
                                plan_skip(c, d, "pci.runtime_pm", xasprintf("skipped: %s", why));
                                continue;
                        }
                        if (streq(f.value, "allow")) {
                                plan_device(c, d, "pci.runtime_pm", "power/control", want, TAKE_PTR(why));
                                continue;
                        }
                }
                for (size_t k = 0; k < ELEMENTSOF(deny_drivers) && !denied; k++)
                        if (streq_ptr(d->driver, deny_drivers[k].driver)) {
                                plan_skip(c, d, "pci.runtime_pm",
                                          xasprintf("skipped: driver %s: %s", d->driver, (deny_drivers[k].why)));
                                denied = true;
                        }
                if (denied)
                        continue;
                if (cls && startswith(cls, "03")) {
                        plan_skip(c, d, "pci.runtime_pm",
                                  xstrdup("skipped: display controller without a driver known to handle runtime PM"));
                        continue;
                }
                if (cls && startswith(cls, "0604")) {
                        plan_skip(c, d, "pci.runtime_pm", xstrdup("skipped: PCI bridge: the kernel manages the runtime PM of ports"));
                        continue;
                }
                plan_device(c, d, "pci.runtime_pm", "power/control", want, profile_reason(c, "pci", "runtime_pm"));
        }
}

static const char *const ch_runtime_pm[] = { "auto", "on", "keep", NULL };

static const struct profile_key keys[] = {
        KEY_CHOICE("runtime_pm", ch_runtime_pm),
};

static const struct knob_rule rules[] = {
        RULE_WORDS("pci.runtime_pm", "auto|on", "power/control", NULL),
        RULE_WORDS("pci.d3cold", "0|1", "d3cold_allowed", NULL),
};

static const struct knob_property properties[] = {
        PROP_WORDS("IDLECFG_PCI_RUNTIME_PM", "deny|allow", "runtime PM of this PCI function: never, or known to work"),
};

static const struct knob_attr attrs[] = {
        { "pci", "power/control" }, { "pci", "power/runtime_status" }, { "pci", "power/autosuspend_delay_ms" },
        { "pci", "power/wakeup" }, { "pci", "d3cold_allowed" },
};

static const struct knob_runtime_pm runtime_pm[] = {
        { "pci", "pci.runtime_pm" },
};

const struct knob_family knob_family_pci = {
        .name = "pci",
        .section = "pci",
        KNOB_LIST(keys, keys),
        KNOB_LIST(rules, rules),
        KNOB_LIST(properties, properties),
        KNOB_LIST(attrs, attrs),
        KNOB_LIST(runtime_pm, runtime_pm),
        .plan = knob_pci_runtime_pm,
};
