/* knobs/usb.c: USB autosuspend: allowlist first, risky classes never by default */
#include "config.h"

#include "knobs/knob.h"

/* interface classes that break when autosuspended (the reports each names) */
static const struct { const char *cls, *what; } risky[] = {
        { "03", "HID device (keyboards and mice lag and lose keys: powertop #101, #165)" },
        { "01", "audio device (pops, dropouts)" },
        { "e0", "wireless controller (RNDIS, WUSB)" },
        { "07", "printer" },
        { "06", "still-image device (scanner, camera, phone over PTP)" },
        { "02", "communications device (modem, WWAN)" },
        { "0a", "CDC data (WWAN)" },
        { "ff", "vendor-specific device (phones over MTP/ADB, unknown function)" },
};

/* [usb] autosuspend = classes: interface classes whose driver handles
 * autosuspend, and the drivers that must be bound (NULL: none needed) */
static const struct { const char *cls, *drivers, *what; } safe_classes[] = {
        /* uvc_driver.supports_autosuspend = 1 (drivers/media/usb/uvc/uvc_driver.c) */
        { "0e", "uvcvideo", "video camera (uvcvideo supports autosuspend)" },
        /* no kernel driver: pcscd opens it through usbfs, which holds it resumed
         * while in use; CCID 1.1 section 5.1 requires readers to support suspend */
        { "0b", NULL, "CCID smart-card reader" },
        /* usb_storage_driver and uas_driver set supports_autosuspend = 1 */
        { "08", "usb-storage,uas", "mass storage (usb-storage and uas support autosuspend)" },
};

/* is WORD an element of the comma-separated LIST? */
static bool in_csv(const char *list, const char *word)
{
        size_t n = strlen(word);

        for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 1 : 0))
                if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0'))
                        return true;
        return false;
}

/* The classes model: true and *ret_what set when every interface of D is of a
 * safe class with its driver bound (hubs are the kernel's own business) */
static bool safe_by_class(const struct inventory *inv, const struct device *d, const char **ret_what)
{
        const char *quirks = kv_get(&inv->modparams, "usb_storage.quirks");
        const char *what = NULL;

        if (d->n_children == 0)
                return false;
        for (size_t i = 0; i < d->n_children; i++) {
                const struct device *itf = &d->children[i];
                const char *cls = kv_get(&itf->ids, "class");
                size_t k;

                /* a DFU interface (fe/01) without a driver only serves firmware
                 * updates: it neither qualifies nor disqualifies the device */
                if (streq_ptr(cls, "fe") && streq_ptr(kv_get(&itf->ids, "subclass"), "01") && !itf->driver)
                        continue;
                for (k = 0; k < ELEMENTSOF(safe_classes); k++)
                        if (streq_ptr(cls, safe_classes[k].cls))
                                break;
                if (k == ELEMENTSOF(safe_classes))
                        return false;
                if (safe_classes[k].drivers && (!itf->driver || !in_csv(safe_classes[k].drivers, itf->driver)))
                        return false;
                /* the kernel's own word on the bound driver, where the tree has it */
                if (streq_ptr(kv_get(&itf->ids, "supports_autosuspend"), "0"))
                        return false;
                if (!what)
                        what = safe_classes[k].what;
        }
        /* usb_storage.quirks=VID:PID:FLAGS,...: the administrator knows this device misbehaves */
        if (quirks && usb_has_class(d, "08")) {
                _cleanup_free_ char *id = xasprintf("%s:%s:", strempty(kv_get(&d->ids, "vendor")),
                                                    strempty(kv_get(&d->ids, "product")));
                if (strcasestr(quirks, id))
                        return false;
        }
        if (!what)
                return false;
        *ret_what = what;
        return true;
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
                _cleanup_free_ char *key = usb_hwdb_key(d);
                struct hwdb_fact f;
                const char *why_risky = NULL;

                if (usb_has_class(d, "09"))
                        continue;       /* hubs: the kernel autosuspends them itself */
                if (usb_is_bluetooth(d)) {
                        /* one device, one family: knobs/bluetooth.c decides */
                        plan_skip(c, d, "usb.autosuspend",
                                  xstrdup("skipped: a Bluetooth adapter: its autosuspend is [bluetooth] autosuspend's "
                                          "(bluetooth.autosuspend)"));
                        continue;
                }
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
                if (streq(mode, "classes")) {
                        const char *what;
                        if (safe_by_class(c->inv, d, &what)) {
                                _cleanup_free_ char *why = profile_reason(c, "usb", "autosuspend");
                                plan_allowed(c, d, key, xasprintf("%s; %s, every interface of a class that "
                                                                  "autosuspends (hwdb deny entries, the kernel's "
                                                                  "USB quirks, checked first)", why, what));
                                continue;
                        }
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

static const char *const ch_autosuspend[] = { "allowlist", "classes", "off", "keep", NULL };

static const struct profile_key keys[] = {
        KEY_CHOICE("autosuspend", ch_autosuspend),
        KEY_NUMBER("delay_ms", 0, 600000),
};

static const struct knob_rule rules[] = {
        RULE_WORDS("usb.autosuspend", "auto|on", "power/control", NULL),
        /* ten minutes: a longer delay is "on" in all but name */
        RULE_RANGE("usb.autosuspend_delay_ms", 0, 600000, "power/autosuspend_delay_ms", NULL),
        RULE_WORDS("usb.persist", "0|1", "power/persist", NULL),
        /* -1 means never */
        RULE_RANGE("usbcore.autosuspend", -1, 3600, NULL, "usbcore.autosuspend"),
};

/* systemd's ID_ properties are honoured as systemd documents them; only
 * idlecfg's own IDLECFG_ values are checked */
static const struct knob_property properties[] = {
        PROP_WORDS("IDLECFG_USB_AUTOSUSPEND", "deny|allow", "autosuspend of this USB device: never, or known to work"),
        PROP_WORDS("IDLECFG_USB_PERSIST", "0", "the device loses its state when its power session ends"),
        PROP_WORDS("ID_AUTOSUSPEND", "1", "systemd's USB autosuspend allowlist"),
        PROP_RANGE("ID_AUTOSUSPEND_DELAY_MS", 0, 600000, "the autosuspend delay of an allowed device"),
        PROP_WORDS("ID_PERSIST", "0", "systemd's: the device loses its state when its power session ends"),
};

static const struct knob_attr attrs[] = {
        { "usb", "power/control" }, { "usb", "power/autosuspend_delay_ms" }, { "usb", "power/persist" },
        { "usb", "power/wakeup" }, { "usb", "power/runtime_status" },
        /* before 2.6.35: no power/control */
        { "usb", "power/level" }, { "usb", "power/autosuspend" },
        { "usb", "power/usb2_hardware_lpm" }, { "usb", "power/usb3_hardware_lpm_u1" },
        { "usb", "power/usb3_hardware_lpm_u2" },
};

static const char *const modules[] = { "usbcore", "usb_storage", NULL };

static const struct knob_runtime_pm runtime_pm[] = {
        { "usb", "usb.autosuspend" },
};

static const struct knob_blocker blockers[] = {
        BLOCKER("usb", "usb.autosuspend_delay_ms", "power/autosuspend_delay_ms", "-*",
                N_("autosuspend is disabled (power/autosuspend_delay_ms = %s)")),
};

const struct knob_family knob_family_usb = {
        .name = "usb",
        .section = "usb",
        KNOB_LIST(keys, keys),
        KNOB_LIST(rules, rules),
        KNOB_LIST(properties, properties),
        KNOB_LIST(attrs, attrs),
        .modules = modules,
        KNOB_LIST(runtime_pm, runtime_pm),
        KNOB_LIST(blockers, blockers),
        .plan = knob_usb,
};
