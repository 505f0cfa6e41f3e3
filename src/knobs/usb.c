/* knobs/usb.c: USB autosuspend: allowlist first, risky classes never by default */
#include "config.h"

#include <ctype.h>

#include "planner.h"

/* interface classes that break when autosuspended (KNOBS.md) */
static const struct { const char *cls, *what; } risky[] = {
        { "03", "HID device (keyboards and mice lag and lose keys: powertop #101, #165)" },
        { "01", "audio device (pops, dropouts)" },
        { "e0", "wireless controller (Bluetooth drops: TLP #545)" },
        { "07", "printer" },
        { "06", "still-image device (scanner, camera, phone over PTP)" },
        { "02", "communications device (modem, WWAN)" },
        { "0a", "CDC data (WWAN)" },
        { "ff", "vendor-specific device (phones over MTP/ADB, unknown function)" },
};

/* the key systemd 252's hwdb builtin uses for a USB device */
static char *usb_key(const struct device *d)
{
        _cleanup_free_ char *v = xstrdup(strempty(kv_get(&d->ids, "vendor")));
        _cleanup_free_ char *p = xstrdup(strempty(kv_get(&d->ids, "product")));

        for (char *x = v; *x; x++)
                *x = (char) toupper((unsigned char) *x);
        for (char *x = p; *x; x++)
                *x = (char) toupper((unsigned char) *x);
        return xasprintf("usb:v%sp%s:%s", v, p, strempty(kv_get(&d->ids, "product_name")));
}

static void plan_allowed(struct planctx *c, const struct device *d, const char *key, char *why_take)
{
        struct hwdb_fact f;
        const char *delay = profile_value(c, "usb", "delay_ms");
        _cleanup_free_ char *why = why_take;

        plan_device(c, d, "usb.autosuspend", "power/control", "auto", xstrdup(why));
        if (kv_find(&d->knobs, "power/autosuspend_delay_ms")) {
                if (hwdb_fact(c, key, "ID_AUTOSUSPEND_DELAY_MS", &f))
                        plan_device(c, d, "usb.autosuspend_delay_ms", "power/autosuspend_delay_ms", f.value,
                                    fact_reason(&f));
                else if (delay)
                        plan_device(c, d, "usb.autosuspend_delay_ms", "power/autosuspend_delay_ms", delay,
                                    profile_reason(c, "usb", "delay_ms"));
        }
        if (kv_find(&d->knobs, "power/persist") &&
            ((hwdb_fact(c, key, "IDLECFG_USB_PERSIST", &f) || hwdb_fact(c, key, "ID_PERSIST", &f)) &&
             streq(f.value, "0")))
                plan_device(c, d, "usb.persist", "power/persist", "0", fact_reason(&f));
}

void knob_usb(struct planctx *c)
{
        const struct device_list *l = &c->inv->classes[CL_USB];
        const char *mode = profile_value(c, "usb", "autosuspend");

        if (!mode) {
                if (l->n)
                        plan_skip_keep(c, "usb.autosuspend", "usb", "autosuspend");
                return;
        }
        for (size_t i = 0; i < l->n; i++) {
                const struct device *d = &l->v[i];
                _cleanup_free_ char *key = usb_key(d);
                struct hwdb_fact f;
                const char *why_risky = NULL;

                if (usb_has_class(d, "09"))
                        continue;       /* hubs: the kernel autosuspends them itself */
                if (!kv_find(&d->knobs, "power/control")) {
                        plan_skip(c, d, "usb.autosuspend",
                                  xstrdup("skipped: no power/control (kernel before 2.6.35, power/level API)"));
                        continue;
                }
                if (streq(mode, "off")) {
                        plan_device(c, d, "usb.autosuspend", "power/control", "on",
                                    profile_reason(c, "usb", "autosuspend"));
                        continue;
                }
                if (hwdb_fact(c, key, "IDLECFG_USB_AUTOSUSPEND", &f)) {
                        if (streq(f.value, "deny")) {
                                _cleanup_free_ char *why = fact_reason(&f);
                                plan_skip(c, d, "usb.autosuspend", xasprintf("skipped: %s", why));
                                continue;
                        }
                        if (streq(f.value, "allow")) {
                                plan_allowed(c, d, key, fact_reason(&f));
                                continue;
                        }
                }
                if (hwdb_fact(c, key, "ID_AUTOSUSPEND", &f) && streq(f.value, "1")) {
                        plan_allowed(c, d, key, fact_reason(&f));
                        continue;
                }
                for (size_t k = 0; k < ELEMENTSOF(risky) && !why_risky; k++)
                        if (usb_has_class(d, risky[k].cls))
                                why_risky = risky[k].what;
                if (why_risky)
                        plan_skip(c, d, "usb.autosuspend",
                                  xasprintf("skipped: %s, not on an autosuspend allowlist", why_risky));
                else
                        plan_skip(c, d, "usb.autosuspend",
                                  xstrdup("skipped: not on an autosuspend allowlist (systemd's or idlecfg's hwdb)"));
        }
}
