/* knobs/wakeup.c: wake sources known to be spurious (power/wakeup = disabled),
 * never the keyboard, lid or power button a user wakes the machine with */
#include "config.h"

#include "knobs/knob.h"

/* each device's power/wakeup: "enabled" lets it wake the machine from
 * suspend (s2idle or S3), "disabled" does not; the kernel sets it when the
 * device is added or its driver binds (device_init_wakeup() in a probe),
 * so the rule runs at both, and at a change */
#define K_WAKEUP "wakeup.device"
#define PROP "IDLECFG_WAKEUP"

/* ACPI IDs of the lid, the power and sleep buttons and the button arrays
 * that carry the power button (PNP0C40: Windows button array; INT33D5,
 * INT33D6: Intel HID events and virtual buttons): a user wakes the machine
 * with these, so no entry disables them */
static const char *const buttons[] = { "PNP0C0C", "PNP0C0D", "PNP0C0E", "LNXPWRBN", "LNXSLPBN", "PNP0C40",
                                       "INT33D5", "INT33D6", NULL };

/* is ID one of the HID or CID of MODALIAS ("acpi:HID:CID1:CID2:")? */
static bool acpi_has_id(const char *modalias, const char *id)
{
        size_t n = strlen(id);

        if (!modalias || !startswith(modalias, "acpi:"))
                return false;
        for (const char *p = modalias + 5; *p; p += strcspn(p, ":") + (p[strcspn(p, ":")] ? 1 : 0))
                if (strncmp(p, id, n) == 0 && (p[n] == ':' || p[n] == '\0'))
                        return true;
        return false;
}

/* Why device D's wakeup must stay as the kernel sets it whatever an entry
 * says (NULL: it may be disabled). An i8042 keyboard port (serio type 01,
 * or 06 behind the translating controller) is the keyboard on nearly every
 * laptop; only an entry naming the machine (idlecfg-on:DMI|serio:...), made
 * for a machine whose vendor wired other keys to it, may disable it. */
static const char *guard(const struct device *d, bool machine_entry)
{
        for (size_t i = 0; buttons[i]; i++)
                if (acpi_has_id(d->modalias, buttons[i]))
                        return "the lid or a power or sleep button, which a user wakes the machine with";
        if (streq(d->class, "serio") && !machine_entry &&
            (streq_ptr(d->driver, "atkbd") || startswith(strempty(d->modalias), "serio:ty01") ||
             startswith(strempty(d->modalias), "serio:ty06")))
                return "the i8042 keyboard port, the keyboard a user wakes the machine with: only an entry for "
                       "this machine (an idlecfg-on: key with its DMI modalias) may disable it";
        return NULL;
}

/* the entry for D: one for this machine first, then one for the device anywhere */
static bool wake_fact(struct planctx *c, const struct device *d, struct hwdb_fact *ret, bool *ret_machine)
{
        _cleanup_free_ char *mk = machine_key(c, d->modalias);

        *ret_machine = mk && hwdb_fact(c, mk, PROP, ret);
        return *ret_machine || (d->modalias && hwdb_fact(c, d->modalias, PROP, ret));
}

static void one(struct planctx *c, const struct device *d, const char *want)
{
        struct hwdb_fact f;
        bool machine;
        const char *g;
        _cleanup_free_ char *why = NULL;

        if (!kv_find(&d->knobs, "power/wakeup") || !wake_fact(c, d, &f, &machine))
                return;         /* not a wake source, or none the hwdb names */
        why = fact_reason(&f);
        if ((g = guard(d, machine))) {
                plan_skip(c, d, K_WAKEUP, xasprintf("skipped: %s names it, but it is %s", why, g));
                return;
        }
        if (!want) {
                _cleanup_free_ char *keep = profile_reason(c, "wakeup", "spurious");
                plan_skip(c, d, K_WAKEUP, xasprintf("skipped: %s keeps the kernel's wakeup setting (%s names this "
                                                    "device a spurious wake source)", keep, why));
                return;
        }
        plan_device(c, d, K_WAKEUP, "power/wakeup", "disabled", TAKE_PTR(why));
}

void knob_wakeup(struct planctx *c)
{
        const struct device_list *serio = &c->inv->classes[CL_SERIO], *i2c = &c->inv->classes[CL_I2C];
        const char *want = profile_value(c, "wakeup", "spurious");

        for (size_t i = 0; i < serio->n; i++)
                one(c, &serio->v[i], want);
        for (size_t i = 0; i < i2c->n; i++)
                for (size_t k = 0; k < i2c->v[i].n_children; k++)
                        one(c, &i2c->v[i].children[k], want);
}

static const char *const ch_spurious[] = { "disable", "keep", NULL };

static const struct profile_key keys[] = {
        KEY_CHOICE("spurious", ch_spurious),
};

static const struct knob_rule rules[] = {
        /* enabled: the value rollback puts back */
        RULE_WORDS_ACTIONS(K_WAKEUP, "disabled|enabled", "power/wakeup", "add|bind|change"),
};

static const struct knob_property properties[] = {
        PROP_WORDS(PROP, "disabled", "this device wakes the machine from suspend when nobody asked (a spurious wake "
                                     "source): its power/wakeup is disabled"),
};

/* detect reads the serial input ports' wakeup (the i2c family reads the I2C clients') */
static const struct knob_attr attrs[] = {
        { "serio", "power/wakeup" }, { "i2c-client", "power/wakeup" },
};

const struct knob_family knob_family_wakeup = {
        .name = "wakeup",
        .section = "wakeup",
        KNOB_LIST(keys, keys),
        KNOB_LIST(rules, rules),
        KNOB_LIST(properties, properties),
        KNOB_LIST(attrs, attrs),
        .plan = knob_wakeup,
};
