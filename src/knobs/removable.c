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
 * counts through the PCI function its host controller is (a dock's xHCI), or
 * through the Type-C connector its root-hub port shares with a USB4 port a
 * router is attached to: a USB4 dock without an xHCI of its own carries USB in
 * a USB3 tunnel to the host router's built-in xHCI (pipeline/usb4.c reads the
 * routers and the connector links). */

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

/* ---- USB over a USB4 port's Type-C connector (pipeline/usb4.c says the kernel's facts) ---- */

static const char *base_name(const char *path)
{
        const char *s = strrchr(path, '/');
        return s ? s + 1 : path;
}

/* The root-hub port a USB device at or above DEVPATH hangs on:
 * ".../usbB/B-P[.Q...][/...]" -> ".../usbB/B-0:1.0/usbB-portP" (port.c names it
 * after the root hub, below the hub's interface); *RET_HUB the root hub's
 * devpath. NULL: not below a root hub's port (the root hub itself, its
 * interface B-0:1.0, or no USB device). */
static char *root_port_of(const char *devpath, char **ret_hub)
{
        for (const char *s = strstr(devpath, "/usb"); s; s = strstr(s + 1, "/usb")) {
                const char *b = s + 4, *port;
                int nb = (int) strspn(b, "0123456789"), np;

                if (!nb || b[nb] != '/' || strncmp(b + nb + 1, b, (size_t) nb) != 0 || b[2 * nb + 1] != '-')
                        continue;
                port = b + 2 * nb + 2;
                np = (int) strspn(port, "0123456789");
                if (!np || (port[0] == '0' && np == 1) || !strchr("./:", port[np]) )
                        return NULL;
                *ret_hub = xstrndup(devpath, (size_t) (b + nb - devpath));
                return xasprintf("%s/%.*s-0:1.0/usb%.*s-port%.*s", *ret_hub, nb, b, nb, b, np, port);
        }
        return NULL;
}

/* the router attached on the host's USB4 port USB4_PORT (a devpath): the first
 * in sysfs order, the one nearest the host; NULL: none */
static const struct usb4_router *router_on(const struct inventory *inv, const char *usb4_port)
{
        for (size_t i = 0; i < inv->usb4.n_routers; i++)
                if (streq_ptr(inv->usb4.routers[i].host_port, usb4_port))
                        return &inv->usb4.routers[i];
        return NULL;
}

/* a port of KIND ("usb4_port": a USB4 port, else a root-hub port) linked to CONNECTOR */
static const struct kv *linked(const struct inventory *inv, const char *connector, bool usb4)
{
        const struct kvlist *l = &inv->usb4.connectors;

        for (size_t i = 0; i < l->n; i++)
                if (streq_ptr(l->v[i].value, connector) && startswith(base_name(l->v[i].key), "usb4_port") == usb4 &&
                    (!usb4 || router_on(inv, l->v[i].key)))
                        return &l->v[i];
        return NULL;
}

static bool superspeed_hub(const struct inventory *inv, const char *hub)
{
        const struct device_list *l = &inv->classes[CL_USB];

        for (size_t i = 0; i < l->n; i++)
                if (streq_ptr(l->v[i].devpath, hub))
                        return atoi(strempty(kv_get(&l->v[i].ids, "speed"))) >= 5000;
        return false;
}

static bool usb4_connector(const struct inventory *inv, const char *devpath, struct removable_at *ret)
{
        _cleanup_free_ char *hub = NULL, *port = devpath ? root_port_of(devpath, &hub) : NULL;
        const struct kv *p = port ? kv_find(&inv->usb4.connectors, port) : NULL, *u;

        if (!p || !p->value || !(u = linked(inv, p->value, true)))
                return false;
        *ret = (struct removable_at) {
                .port = xstrdup(base_name(u->key)),
                .router = router_on(inv, u->key),
                .usb_port = p->key,
                .connector = p->value,
                .superspeed = superspeed_hub(inv, hub),
        };
        return true;
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
                return usb4_connector(inv, devpath, ret);
        *ret = (struct removable_at) {
                .port = parent_name(top->devpath),
                .first = top->name,
                .dock = sw ? sw->name : NULL,
        };
        return true;
}

/* "router 0-1, USB4_TYPE=hub, Vendor Device" */
static char *router_words(const struct usb4_router *r)
{
        _cleanup_free_ char *type = r->type ? xasprintf("USB4_TYPE=%s", r->type) : xstrdup("no USB4_TYPE");

        if (r->vendor_name || r->device_name)
                return xasprintf("router %s, %s, %s%s%s", r->name, type, strempty(r->vendor_name),
                                 r->vendor_name && r->device_name ? " " : "", strempty(r->device_name));
        return xasprintf("router %s, %s", r->name, type);
}

char *removable_words(const struct removable_at *at)
{
        if (at->router) {
                _cleanup_free_ char *r = router_words(at->router);

                return xasprintf("in a USB4 %s on %s (%s; %s root-hub port %s, which shares Type-C connector %s "
                                 "with %s)", streq_ptr(at->router->type, "hub") ? "dock" : "device", at->port, r,
                                 at->superspeed ? "the router's USB3 tunnel to" : "the connector's USB 2 lines to",
                                 base_name(at->usb_port), base_name(at->connector), at->port);
        }
        if (at->dock)
                return xasprintf("in a dock below external-facing port %s (removable; PCIe switch %s: a Thunderbolt "
                                 "or USB4 device router)", at->port, at->dock);
        return xasprintf("below external-facing port %s (removable from %s on)", at->port, at->first);
}

char *removable_untold(const struct inventory *inv, const char *devpath)
{
        _cleanup_free_ char *hub = NULL, *port = NULL;
        struct removable_at at;
        const char *conn;

        if (!devpath)
                return NULL;
        if (removable_port(inv, devpath, &at)) {
                free(at.port);
                return NULL;
        }
        port = root_port_of(devpath, &hub);
        if (!port)
                return NULL;
        conn = kv_get(&inv->usb4.connectors, port);
        for (size_t i = 0; i < inv->usb4.n_routers; i++) {
                const struct usb4_router *r = &inv->usb4.routers[i];
                const char *c = r->host_port ? kv_get(&inv->usb4.connectors, r->host_port) : NULL;
                _cleanup_free_ char *words = NULL, *why = NULL;

                /* told apart: the device's port is on another connector, one a root-hub port shares */
                if (!r->host_port || router_on(inv, r->host_port) != r || (c && (conn || linked(inv, c, false))))
                        continue;
                words = router_words(r);
                why = c ? xasprintf("no root-hub port shares its Type-C connector %s", base_name(c)) :
                          xstrdup("the kernel links no Type-C connector to it");
                return xasprintf("not told apart: USB4 %s (%s) is attached on %s, but %s, and root-hub port %s %s%s: "
                                 "a device in its USB3 tunnel or on the connector's USB 2 lines is planned like a "
                                 "built-in device (the connector links need the Type-C connector class, firmware "
                                 "that describes the connectors (ACPI _PLD), Linux 5.17 for USB ports and 5.19 for "
                                 "USB4 ports)", streq_ptr(r->type, "hub") ? "dock" : "device", words,
                                 base_name(r->host_port), why, base_name(port),
                                 conn ? "is on Type-C connector " : "has no connector link",
                                 conn ? base_name(conn) : "");
        }
        return NULL;
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
                key = at.dock || at.router ? "dock" : "policy";
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
