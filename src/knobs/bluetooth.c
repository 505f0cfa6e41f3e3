/* knobs/bluetooth.c: Bluetooth adapters on USB: btusb's autosuspend switch and
 * each adapter's USB autosuspend, never for an adapter the hwdb denies */
#include "config.h"

#include "knobs/knob.h"

/* btusb.enable_autosuspend: btusb enables USB autosuspend on every adapter it
 * binds (btusb_probe(); Debian's kernels default to Y through
 * CONFIG_BT_HCIBTUSB_AUTOSUSPEND). One switch for all adapters, set after
 * idlecfg's udev rule has run: with Y, an adapter's power/control = on would
 * be undone at the bind, so one denied adapter turns it off for all. */
#define K_PARAM "bluetooth.btusb_autosuspend"
/* each adapter's power/control, which the rule sets when it appears */
#define K_DEVICE "bluetooth.autosuspend"
#define DENY "IDLECFG_BLUETOOTH_AUTOSUSPEND"

/* the hwdb's word against autosuspend of adapter D: this family's entry, or
 * the usb family's deny for the same device (one device, both lists count) */
static bool adapter_denied(struct planctx *c, const struct device *d, struct hwdb_fact *ret)
{
        _cleanup_free_ char *key = usb_hwdb_key(d);

        return (hwdb_fact(c, key, DENY, ret) && streq(ret->value, "deny")) ||
               (hwdb_fact(c, key, "IDLECFG_USB_AUTOSUSPEND", ret) && streq(ret->value, "deny"));
}

void knob_bluetooth(struct planctx *c)
{
        const struct device_list *usb = &c->inv->classes[CL_USB];
        const char *want = profile_value(c, "bluetooth", "autosuspend");
        const struct device *first_denied = NULL;
        struct hwdb_fact deny = { 0 };
        size_t adapters = 0;

        for (size_t i = 0; i < usb->n; i++)
                if (usb_is_bluetooth(&usb->v[i]))
                        adapters++;
        if (adapters == 0)
                return;         /* nothing on this machine for the family */
        if (!want) {
                plan_skip_keep(c, K_DEVICE, "bluetooth", "autosuspend");
                plan_skip_keep(c, K_PARAM, "bluetooth", "autosuspend");
                return;
        }
        for (size_t i = 0; i < usb->n; i++) {
                const struct device *d = &usb->v[i];
                struct hwdb_fact f;

                if (!usb_is_bluetooth(d))
                        continue;
                if (!kv_find(&d->knobs, "power/control")) {
                        plan_skip(c, d, K_DEVICE, xstrdup("skipped: no power/control (kernel before 2.6.35)"));
                        continue;
                }
                if (streq(want, "off"))
                        plan_device(c, d, K_DEVICE, "power/control", "on", profile_reason(c, "bluetooth", "autosuspend"));
                else if (adapter_denied(c, d, &f)) {
                        if (!first_denied) {
                                first_denied = d;
                                deny = f;
                        }
                        plan_device(c, d, K_DEVICE, "power/control", "on", fact_reason(&f));
                } else
                        plan_device(c, d, K_DEVICE, "power/control", "auto",
                                    profile_reason(c, "bluetooth", "autosuspend"));
        }
        if (streq(want, "off"))
                plan_param(c, NULL, K_PARAM, "btusb", "enable_autosuspend", "N",
                           profile_reason(c, "bluetooth", "autosuspend"));
        else if (first_denied) {
                _cleanup_free_ char *why = fact_reason(&deny);
                plan_param(c, NULL, K_PARAM, "btusb", "enable_autosuspend", "N",
                           xasprintf("%s: adapter %s must not autosuspend, and btusb's switch is one for every "
                                     "adapter", why, first_denied->name));
        } else
                plan_param(c, NULL, K_PARAM, "btusb", "enable_autosuspend", "Y",
                           profile_reason(c, "bluetooth", "autosuspend"));
}

static const char *const ch_autosuspend[] = { "on", "off", "keep", NULL };

static const struct profile_key keys[] = {
        KEY_CHOICE("autosuspend", ch_autosuspend),
};

static const struct knob_rule rules[] = {
        RULE_WORDS(K_DEVICE, "auto|on", "power/control", NULL),
        RULE_WORDS(K_PARAM, "Y|N", NULL, "btusb.enable_autosuspend"),
};

static const struct knob_property properties[] = {
        PROP_WORDS(DENY, "deny", "this Bluetooth adapter drops its connections or itself when it autosuspends"),
};

/* detect reads /sys/module/btusb/parameters (the switch's current value) */
static const char *const modules[] = { "btusb", NULL };

const struct knob_family knob_family_bluetooth = {
        .name = "bluetooth",
        .section = "bluetooth",
        KNOB_LIST(keys, keys),
        KNOB_LIST(rules, rules),
        KNOB_LIST(properties, properties),
        .modules = modules,
        .plan = knob_bluetooth,
};
