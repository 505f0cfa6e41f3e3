/* knobs/removable.c: devices below an external-facing port, docks among them: the kernel's defaults unless [removable] says otherwise */
#include "config.h"

#include "knobs/knob.h"

/* The kernel's word on what is removable: the firmware marks a PCIe port
 * external-facing (ACPI _DSD "ExternalFacingPort" or a device-tree
 * "external-facing" property: drivers/pci/pci-acpi.c
 * pci_acpi_set_external_facing(), drivers/pci/of.c), and every device
 * enumerated below it gets dev_set_removable(DEVICE_REMOVABLE)
 * (drivers/pci/probe.c pci_set_removable(): the parent is external-facing or
 * itself removable). The device core shows it as the attribute "removable"
 * ("removable", "fixed" or "unknown": drivers/base/core.c removable_show());
 * the port itself stays "fixed", and a kernel without the PCI part has no
 * attribute on PCI devices, so nothing is removable to idlecfg there. A USB
 * device's own "removable" says only whether its port is user-visible: every
 * mouse in a side port is "removable", so it is not read here; a USB device
 * counts through the PCI function its host controller is (a dock's xHCI). */

static bool at_or_below(const char *path, const char *anc)
{
        size_t n = strlen(anc);
        return strncmp(path, anc, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* the component of PATH before its last: the parent device's name */
static char *parent_name(const char *path)
{
        const char *end = strrchr(path, '/'), *start = end;

        while (start && start > path && start[-1] != '/')
                start--;
        return end && start < end ? xstrndup(start, (size_t) (end - start)) : xstrdup(path);
}

bool removable_port(const struct inventory *inv, const char *devpath, struct removable_at *ret)
{
        const struct device_list *l = &inv->classes[CL_PCI];
        const struct device *top = NULL, *sw = NULL;

        for (size_t i = 0; devpath && i < l->n; i++) {
                const struct device *p = &l->v[i];

                if (!p->devpath || !streq_ptr(kv_get(&p->knobs, "removable"), "removable") ||
                    !at_or_below(devpath, p->devpath))
                        continue;
                if (!top || strlen(p->devpath) < strlen(top->devpath))
                        top = p;
                /* a removable PCIe switch port on the way: a Thunderbolt or USB4
                 * device router's own switch (every dock has one) */
                if (startswith(strempty(kv_get(&p->ids, "class")), "0604") &&
                    (!sw || strlen(p->devpath) < strlen(sw->devpath)))
                        sw = p;
        }
        if (!top)
                return false;
        *ret = (struct removable_at) {
                .port = parent_name(top->devpath),
                .first = top->name,
                .dock = sw ? sw->name : NULL,
        };
        return true;
}

char *removable_words(const struct removable_at *at)
{
        if (at->dock)
                return xasprintf("in a dock below external-facing port %s (removable; PCIe switch %s: a Thunderbolt "
                                 "or USB4 device router)", at->port, at->dock);
        return xasprintf("below external-facing port %s (removable from %s on)", at->port, at->first);
}

/* runtime PM and autosuspend: what the kernel decides per device by default */
static bool runtime_attr(const char *attr)
{
        return streq_ptr(attr, "power/control") || streq_ptr(attr, "power/autosuspend_delay_ms");
}

void knob_removable_apply(struct planctx *c)
{
        struct plan *p = c->plan;

        for (size_t i = 0; i < p->n; i++) {
                struct setting *s = &p->v[i];
                struct removable_at at;
                const char *key, *want;

                if (!s->value || !s->device || s->mech != MECH_UDEV || !runtime_attr(s->attr) ||
                    !removable_port(c->inv, s->device, &at))
                        continue;
                key = at.dock ? "dock" : "policy";
                want = profile_value(c, "removable", key);
                {
                        _cleanup_free_ char *where = removable_words(&at);
                        _cleanup_free_ char *why = profile_reason(c, "removable", key);

                        if (streq_ptr(want, "same")) {
                                char *r = xasprintf("%s; %s: planned like a built-in device, %s", strempty(s->reason),
                                                    where, why);
                                free(s->reason);
                                s->reason = r;
                        } else
                                setting_make_skip(s, xasprintf("skipped: %s: the kernel's default stays; [removable] "
                                                               "%s = same to change (%s); without it: %s, %s",
                                                               where, key, why, s->value, strempty(s->reason)));
                }
                free(at.port);
        }
}

/* Thunderbolt: the kernel's router quirks (drivers/thunderbolt/quirks.c
 * tb_quirks[], imported by hwdb/import-linux onto the host router's NHI).
 * Nothing to plan: the kernel applies them; a skip row says so, which
 * explain shows, and verify names it when the NHI stays active
 * (.active_note). */
static void knob_thunderbolt_quirks(struct planctx *c)
{
        const struct device_list *l = &c->inv->classes[CL_PCI];

        for (size_t i = 0; i < l->n; i++) {
                const struct device *d = &l->v[i];
                struct hwdb_fact f;
                _cleanup_free_ char *why = NULL;

                if (!hwdb_fact(c, d->modalias, "IDLECFG_THUNDERBOLT_QUIRK", &f))
                        continue;
                why = fact_reason(&f);
                plan_skip(c, d, "thunderbolt.quirk",
                          xasprintf("kernel Thunderbolt quirk %s (%s): the kernel applies it; nothing to plan", f.value,
                                    why));
        }
}

/* same: plan them as any other device; keep: the kernel's defaults */
static const char *const ch_same[] = { "same", "keep", NULL };

static const struct profile_key keys[] = {
        KEY_CHOICE("policy", ch_same),
        KEY_CHOICE("dock", ch_same),
};

static const struct knob_attr attrs[] = {
        { "pci", "removable" },
};

static const struct knob_property properties[] = {
        PROP_WORDS("IDLECFG_THUNDERBOLT_QUIRK", "keep_power_in_dp_redrive",
                  "a kernel Thunderbolt quirk of this host router (tb_quirks[]): keep_power_in_dp_redrive, the kernel "
                  "holds it resumed while a USB4 port redrives DisplayPort; shown by plan, explain and verify"),
};

const struct knob_family knob_family_removable = {
        .name = "removable",
        .section = "removable",
        KNOB_LIST(keys, keys),
        KNOB_LIST(attrs, attrs),
        KNOB_LIST(properties, properties),
        .active_note = "thunderbolt.quirk",
        .plan = knob_thunderbolt_quirks,
};
