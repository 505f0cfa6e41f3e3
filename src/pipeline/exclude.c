/* exclude.c: idlecfg.conf's [exclude DEVICE] sections applied to a plan:
 * the devices an administrator wants left alone, and why */
#include "config.h"

#include <strings.h>

#include "db/profile-file.h"
#include "knobs/registry.h"
#include "pipeline/exclude.h"

int plan_exclude_check(const struct conf_exclusions *x, struct xerror *ret_error)
{
        for (size_t i = 0; i < x->n; i++)
                for (size_t k = 0; x->v[i].knobs && x->v[i].knobs[k]; k++) {
                        const char *name = x->v[i].knobs[k];
                        struct strbuf valid = {};
                        size_t n;
                        const struct knob_rule *rules;

                        if (knob_rule(name))
                                continue;
                        rules = knob_rules(&n);
                        for (size_t r = 0; r < n; r++)
                                sb_appendf(&valid, "%s%s", r ? ", " : "", rules[r].knob);
                        xerror_set_take(ret_error, x->v[i].file, x->v[i].knobs_line,
                                        xasprintf(_("unknown knob '%s' in [exclude %s] knobs; valid: %s"), name,
                                                  x->v[i].device, sb_str(&valid)));
                        sb_free(&valid);
                        return -EINVAL;
                }
        return 0;
}

static bool hex4(const char *s, size_t n)
{
        return n == 4 && strspn(s, "0123456789abcdefABCDEF") >= 4;
}

static const char *base_name(const char *path)
{
        const char *slash = path ? strrchr(path, '/') : NULL;

        return slash ? slash + 1 : path;
}

/* does ARG, as an [exclude ARG] section writes it, name device D? A sysfs path
 * (/sys/devices/... or /devices/...), a PCI address (0000:00:1f.3, or
 * 00:1f.3 in domain 0000), a USB vendor:product, or D's name as detect
 * prints it */
static bool device_named(const struct device *d, const char *arg)
{
        const char *path = startswith(arg, "/sys/devices/") ? arg + strlen("/sys") : arg;
        const char *colon = strchr(arg, ':');

        if (startswith(path, "/devices/")) {
                size_t n = strlen(path);
                while (n > 1 && path[n - 1] == '/')
                        n--;
                return d->devpath && strlen(d->devpath) == n && strncmp(d->devpath, path, n) == 0;
        }
        if (streq(d->name, arg))
                return true;
        if (streq(d->class, "pci"))
                return strcasecmp(d->name, arg) == 0 ||
                       (strlen(arg) == 7 && startswith(d->name, "0000:") && strcasecmp(d->name + 5, arg) == 0);
        if (streq(d->class, "usb") && colon && hex4(arg, (size_t) (colon - arg)) && hex4(colon + 1, strlen(colon + 1)))
                return strncasecmp(strempty(kv_get(&d->ids, "vendor")), arg, 4) == 0 &&
                       strcasecmp(strempty(kv_get(&d->ids, "product")), colon + 1) == 0;
        return false;
}

struct matches {
        const struct device **v;
        size_t n;
};

static void find_devices(const struct device *d, const char *arg, struct matches *m)
{
        if (device_named(d, arg)) {
                m->v = xrealloc(m->v, (m->n + 1) * sizeof(*m->v));
                m->v[m->n++] = d;
                return;         /* its children are its own */
        }
        for (size_t i = 0; i < d->n_children; i++)
                find_devices(&d->children[i], arg, m);
}

/* is S a setting of device D: on it, on one of its children, or planned on
 * its parent for it (an I2C adapter's runtime PM is its controller's)? */
static bool setting_of(const struct setting *s, const struct device *d)
{
        if (!s->device || !d->devpath)
                return false;
        if (streq(s->device, d->devpath))
                return true;
        if (knob_on_parent(d->class) && streq_ptr(s->device_class, d->class) && startswith(d->devpath, s->device) &&
            d->devpath[strlen(s->device)] == '/')
                return true;
        for (size_t i = 0; i < d->n_children; i++)
                if (setting_of(s, &d->children[i]))
                        return true;
        return false;
}

static bool knob_selected(const struct conf_exclusion *e, const char *knob)
{
        if (!e->knobs)
                return true;
        for (size_t i = 0; e->knobs[i]; i++)
                if (streq(e->knobs[i], knob))
                        return true;
        return false;
}

/* a file that reaches every device of a module or the whole system */
static bool module_wide(const struct setting *s)
{
        switch (s->mech) {
        case MECH_MODPROBE:
        case MECH_CMDLINE:
        case MECH_TMPFILES:
        case MECH_SYSCTL:
        case MECH_LINK:
                return true;
        default:
                return false;
        }
}

static bool same_module(const char *a, const char *b)
{
        if (!a || !b || strlen(a) != strlen(b))
                return false;
        for (; *a; a++, b++)
                if (*a != *b && !(strchr("-_", *a) && strchr("-_", *b)))
                        return false;
        return true;
}

/* is MODULE the driver of D or of one of its children, or a module D's
 * modalias loads? */
static bool drives(const struct inventory *inv, const struct device *d, const char *module)
{
        const struct module_ref *refs;
        size_t n = 0;

        if (same_module(d->driver, module))
                return true;
        if (d->modalias) {
                refs = device_modules(inv, d, &n);
                for (size_t i = 0; i < n; i++)
                        if (same_module(refs[i].name, module))
                                return true;
        }
        for (size_t i = 0; i < d->n_children; i++)
                if (drives(inv, &d->children[i], module))
                        return true;
        return false;
}

/* what a module-wide setting writes, for people: "snd_hda_intel.power_save" */
static char *wide_target(const struct setting *s)
{
        if (s->mech == MECH_SYSCTL)
                return xasprintf("sysctl %s", strempty(s->param));
        if (s->mech == MECH_LINK)
                return xasprintf("99-default.link %s", strempty(s->param));
        if (s->module)
                return xasprintf("%s.%s", s->module, strempty(s->param));
        return xstrdup(strempty(s->param));
}

/* "[exclude ARG] (FILE:LINE)": the section, in the plan's words; never
 * translated, as it goes into the comments of generated files */
static char *section_where(const struct conf_exclusion *e)
{
        return xasprintf("[exclude %s] (%s:%u)", e->device, e->file, e->line);
}

static void replace_reason(struct setting *s, char *reason_take)
{
        free(s->reason);
        s->reason = reason_take;
}

/* S, a setting of an excluded device, becomes a skip with E's reason */
static void make_skip(struct setting *s, const struct conf_exclusion *e)
{
        _cleanup_free_ char *where = section_where(e);

        if (s->value)
                setting_make_skip(s, xasprintf("skipped: %s: %s; without the exclusion: %s, %s", where, e->reason,
                                               s->value, strempty(s->reason)));
        else
                setting_make_skip(s, xasprintf("skipped: %s: %s; without the exclusion: %s", where, e->reason,
                                               strempty(s->reason)));
}

/* the udev subsystem of a device of inventory class CLASS, NULL if not known here */
static const char *class_subsystem(const char *class)
{
        static const char *const map[][2] = {
                { "pci", "pci" }, { "usb", "usb" }, { "usb-interface", "usb" }, { "sata", "scsi_host" },
                { "ata-port", "ata_port" }, { "disk", "scsi" }, { "i2c-client", "i2c" }, { "nvme", "nvme" },
                { "net", "net" }, { "sound", "sound" }, { "drm", "drm" },
        };

        for (size_t i = 0; i < ELEMENTSOF(map); i++)
                if (streq(map[i][0], class))
                        return map[i][1];
        return NULL;
}

/* could the udev rule of S also match device D? Every match key whose value
 * D is known to have must agree; a key whose value for D is not known here
 * (an ATTRS{} of a parent, a DRIVER) is taken to agree */
static bool rule_may_match(const struct setting *s, const struct device *d)
{
        _cleanup_(kv_free) struct kvlist m = {};

        match_device(d, &m);
        for (size_t i = 0; i < s->match.n; i++) {
                const char *key = s->match.v[i].key, *want = s->match.v[i].value;
                const char *have = kv_get(&m, key);
                if (!have && streq(key, "KERNEL"))
                        have = base_name(d->devpath);
                if (!have && streq(key, "SUBSYSTEM"))
                        have = class_subsystem(d->class);
                if (have && !streq(have, want))
                        return false;
        }
        return true;
}

static void add_warning(struct plan *p, const char *code, char *text_take)
{
        plan_add_warning(p, "%s", text_take);
        kv_add(&p->warning_codes, code, text_take);
        free(text_take);
}

/* a skip row of device D for the module-wide setting S that reaches it */
static void wide_row(struct plan *p, size_t si, const struct device *d, const struct conf_exclusion *e)
{
        _cleanup_free_ char *where = section_where(e), *target = NULL, *tag = NULL;
        struct setting *row, *s;

        for (size_t i = 0; i < p->n; i++)
                if (streq_ptr(p->v[i].device, d->devpath) && streq(p->v[i].knob, p->v[si].knob) && !p->v[i].value)
                        return;         /* one row per device and knob */
        row = plan_add(p);
        s = &p->v[si];                  /* plan_add may have moved it */
        target = wide_target(s);
        *row = (struct setting) {
                .knob = xstrdup(s->knob),
                .device = xstrdup(d->devpath),
                .device_name = xstrdup(d->name),
                .device_class = xstrdup(d->class),
                .mech = MECH_NONE,
                .reason = xasprintf("skipped: %s: %s; but %s is module-wide (%s = %s, %s): it reaches every "
                                    "device there, and idlecfg cannot leave %s out of it", where, e->reason,
                                    s->knob, target, s->value, mechanism_to_string(s->mech), d->name),
        };
        tag = xasprintf("; %s cannot leave %s out of it (module-wide)", where, d->name);
        if (!strstr(strempty(s->reason), tag))
                replace_reason(s, xasprintf("%s%s", strempty(s->reason), tag));
}

static void exclude_one(struct plan *p, const struct inventory *inv, const struct conf_exclusion *e,
                        struct plan_exclusion *out)
{
        struct matches m = {};
        size_t n_plan = p->n, skipped = 0, wide = 0;

        for (size_t c = 0; c < _CL_MAX; c++)
                for (size_t i = 0; i < inv->classes[c].n; i++)
                        find_devices(&inv->classes[c].v[i], e->device, &m);
        out->matched = xcalloc(m.n ? m.n : 1, sizeof(char *));
        for (size_t k = 0; k < m.n; k++)
                out->matched[out->n_matched++] = xstrdup(m.v[k]->name);
        if (m.n == 0) {
                out->code = "exclude-no-device";
                add_warning(p, out->code, xasprintf(_("%s:%u: [exclude %s] matches no device on this machine; "
                                                      "nothing is left out"), e->file, e->line, e->device));
                return;
        }
        for (size_t k = 0; k < m.n; k++) {
                const struct device *d = m.v[k];
                /* the settings of the device; module-wide ones that reach it stay */
                for (size_t i = 0; i < n_plan; i++) {
                        struct setting *s = &p->v[i];
                        if (!knob_selected(e, s->knob))
                                continue;
                        if (s->value && module_wide(s)) {
                                if (setting_of(s, d) ||
                                    (!s->device && ((s->module && drives(inv, d, s->module)) || e->knobs))) {
                                        wide_row(p, i, d, e);
                                        wide++;
                                }
                        } else if (setting_of(s, d)) {
                                make_skip(s, e);
                                skipped++;
                        }
                }
                /* another device's rule that would match this one too (the
                 * same vendor and device IDs) is narrowed to its own name */
                for (size_t i = 0; i < n_plan; i++) {
                        struct setting *s = &p->v[i];
                        const char *name = base_name(s->device);
                        if (s->mech != MECH_UDEV || !s->value || !name || !knob_selected(e, s->knob) ||
                            kv_get(&s->match, "KERNEL") || !rule_may_match(s, d))
                                continue;
                        kv_add(&s->match, "KERNEL", name);
                        {
                                _cleanup_free_ char *where = section_where(e);
                                replace_reason(s, xasprintf("%s; KERNEL==\"%s\" added: the rule would also match "
                                                            "%s, which %s leaves out", strempty(s->reason), name,
                                                            d->name, where));
                        }
                }
        }
        if (e->knobs && wide > 0 && skipped == 0) {
                _cleanup_free_ char *knobs = profile_join((const char *const *) e->knobs, " ");
                out->code = "exclude-module-wide";
                add_warning(p, out->code, xasprintf(_("%s:%u: [exclude %s] names only module-wide knobs (%s): they "
                                                      "reach every device of their module, and idlecfg cannot "
                                                      "leave %s out of them"), e->file, e->knobs_line, e->device,
                                                    knobs, e->device));
        }
        free(m.v);
}

void plan_exclude(struct plan *p, const struct inventory *inv, const struct conf_exclusions *x)
{
        if (x->n == 0)
                return;
        p->exclusions = xcalloc(x->n, sizeof(*p->exclusions));
        for (size_t i = 0; i < x->n; i++) {
                const struct conf_exclusion *e = &x->v[i];
                struct plan_exclusion *out = &p->exclusions[p->n_exclusions++];
                out->device = xstrdup(e->device);
                out->where = xasprintf("%s:%u", e->file, e->line);
                out->reason = xstrdup(e->reason);
                out->knobs = e->knobs ? profile_join((const char *const *) e->knobs, " ") : NULL;
                exclude_one(p, inv, e, out);
        }
}
