/* knobs/nvme.c: NVMe APST off, or its deepest state unused, only where the hwdb has a quirk
 * for the drive: per PCI ID where the target kernel's nvme takes quirks=, else machine-wide */
#include "config.h"

#include <ctype.h>

#include "knobs/knob.h"

/* drivers/nvme/host/pci.c (Linux 7.x) keeps the quirks= string in a
 * kparam_string of 128 bytes: param_set_copystring() refuses a longer one */
#define NVME_QUIRKS_MAX 127

/* what the hwdb says of one drive, and what the planner makes of it */
struct drive {
        const struct device *d;
        char id[10];                    /* the controller's PCI ID "vvvv:dddd", "" if unknown */
        struct hwdb_fact f;
        bool found;
        char *undecided;
        const char *quirk;              /* the quirk it wants: "no_apst", "no_deepest_ps", NULL */
};

/* the shipped files hwdb/import-linux writes mirror the kernel's own tables:
 * a no-deepest entry there is a quirk the kernel applies itself */
static bool kernel_mirror(const struct hwdb_fact *f)
{
        const char *base = f->file ? strrchr(f->file, '/') : NULL;

        return startswith(base ? base + 1 : strempty(f->file), "60-idlecfg-linux-");
}

static const char *model(const struct drive *v)
{
        return strempty(kv_get(&v->d->ids, "model"));
}

static void lookup(struct planctx *c, struct drive *v)
{
        const struct device *pci = NULL;
        _cleanup_free_ char *key = xasprintf("idlecfg-nvme:%s:%s", model(v),
                                             strempty(kv_get(&v->d->ids, "firmware")));
        _cleanup_free_ char *mkey = NULL;
        const char *ctrl = kv_get(&v->d->ids, "controller"), *pci_alias = NULL, *ven, *dev;

        for (size_t k = 0; k < c->inv->classes[CL_PCI].n; k++)
                if (streq_ptr(c->inv->classes[CL_PCI].v[k].name, ctrl))
                        pci = &c->inv->classes[CL_PCI].v[k];
        if (pci) {
                pci_alias = pci->modalias;
                ven = kv_get(&pci->ids, "vendor");
                dev = kv_get(&pci->ids, "device");
                if (ven && dev && strlen(ven) == 4 && strlen(dev) == 4)
                        snprintf(v->id, sizeof(v->id), "%s:%s", ven, dev);
                for (char *p = v->id; *p; p++)
                        *p = (char) tolower((unsigned char) *p);
        }
        mkey = machine_key(c, pci_alias);
        /* this controller on this machine (check_vendor_combination_bug), the
         * model, the PCI ID, then the machine alone; an entry whose kernel
         * range cannot be decided stops the search */
        v->found = hwdb_fact_undecided(c, mkey, "IDLECFG_NVME_APST", &v->f, &v->undecided) ||
                   (!v->undecided && hwdb_fact_undecided(c, key, "IDLECFG_NVME_APST", &v->f, &v->undecided)) ||
                   (!v->undecided && hwdb_fact_undecided(c, pci_alias, "IDLECFG_NVME_APST", &v->f, &v->undecided)) ||
                   (!v->undecided && hwdb_fact_undecided(c, kv_get(&c->inv->platform, "modalias"),
                                                         "IDLECFG_NVME_APST", &v->f, &v->undecided));
        if (!v->found)
                return;
        if (streq(v->f.value, "deny"))
                v->quirk = "no_apst";
        else if (streq(v->f.value, "no-deepest") && !kernel_mirror(&v->f))
                v->quirk = "no_deepest_ps";
}

/* does the target kernel's nvme take quirks= (Linux 7.x, quirks_param_set())? */
static bool has_quirks_param(struct planctx *c)
{
        enum mod_state st;

        if (!c->mc)
                return false;
        st = modctx_state(c->mc, "nvme");
        return (st == MOD_BUILTIN || st == MOD_LOADABLE) && modctx_has_param(c->mc, "nvme", "quirks");
}

/* nvme.quirks= for the drives that want a quirk, one VID:DID:quirk entry per
 * PCI ID ('-' between them, as quirks_param_set() splits them; no_apst where
 * any drive of the ID wants it); NULL when none does or when it would not fit */
static char *quirks_value(const struct drive *v, size_t n)
{
        struct strbuf sb = {};

        for (size_t i = 0; i < n; i++) {
                const char *q = v[i].quirk;
                bool seen = false;

                if (!q || !v[i].id[0])
                        continue;
                for (size_t k = 0; k < i && !seen; k++)
                        seen = v[k].quirk && streq(v[k].id, v[i].id);
                if (seen)
                        continue;
                for (size_t k = i + 1; k < n; k++)
                        if (v[k].quirk && streq(v[k].id, v[i].id) && streq(v[k].quirk, "no_apst"))
                                q = "no_apst";
                sb_appendf(&sb, "%s%s:%s", sb_str(&sb)[0] ? "-" : "", v[i].id, q);
        }
        if (!sb_str(&sb)[0] || strlen(sb_str(&sb)) > NVME_QUIRKS_MAX) {
                sb_free(&sb);
                return NULL;
        }
        return sb_steal(&sb);
}

/* "nvme1 (MODEL), ..." for every drive but V[SKIP]: those of PCI ID ID (SAME) or of
 * another ID without a quirk of its own (!SAME); every one with ID NULL; NULL if none */
static char *others(const struct drive *v, size_t n, size_t skip, const char *id, bool same)
{
        struct strbuf sb = {};

        for (size_t i = 0; i < n; i++) {
                if (i == skip || (id && streq(v[i].id, id) != same) || (id && !same && v[i].quirk))
                        continue;
                sb_appendf(&sb, "%s%s (%s)", sb_str(&sb)[0] ? ", " : "", strempty(v[i].d->name), model(&v[i]));
        }
        if (!sb_str(&sb)[0]) {
                sb_free(&sb);
                return NULL;
        }
        return sb_steal(&sb);
}

/* the drive's quirk, per PCI ID: the other drives keep APST, but those of the same PCI ID */
static void plan_quirk(struct planctx *c, const struct drive *v, size_t n, size_t i, const char *value)
{
        _cleanup_free_ char *why = fact_reason(&v[i].f), *same = others(v, n, i, v[i].id, true),
                            *keep = others(v, n, i, v[i].id, false);

        plan_param(c, v[i].d, "nvme.quirks", "nvme", "quirks", value,
                   xasprintf("%s; per drive: %s:%s in nvme.quirks (kernel %s's nvme takes quirks=), for PCI ID %s "
                             "alone%s%s%s%s", why, v[i].id, v[i].quirk, c->inv->kernel, v[i].id,
                             same ? "; the same ID also covers " : "", strempty(same),
                             keep ? "; APST stays on for " : "", strempty(keep)));
}

/* the machine-wide switch of a kernel without quirks=: it also turns APST off for the other drives */
static void plan_machine_wide(struct planctx *c, const struct drive *v, size_t n, size_t i, const char *no_param)
{
        _cleanup_free_ char *why = fact_reason(&v[i].f), *all = others(v, n, i, NULL, false);

        plan_param(c, v[i].d, "nvme.apst", "nvme_core", "default_ps_max_latency_us", "0",
                   xasprintf("%s; machine-wide, as %s%s%s", why, no_param, all ? ": APST also off for " : "",
                             strempty(all)));
}

/* a drive without an entry of its own */
static void plan_unquirked(struct planctx *c, const struct drive *v, size_t n, size_t i, const char *value,
                           bool machine_wide)
{
        for (size_t k = 0; k < n; k++) {
                if (!v[k].quirk)
                        continue;
                if (machine_wide && streq(v[k].quirk, "no_apst")) {
                        plan_skip(c, v[i].d, "nvme.apst",
                                  xasprintf("skipped: no APST quirk for %s, but nvme_core.default_ps_max_latency_us=0 "
                                            "(for %s) turns its APST off too", model(&v[i]), strempty(v[k].d->name)));
                        return;
                }
                if (value && v[i].id[0] && streq(v[k].id, v[i].id)) {
                        plan_skip(c, v[i].d, "nvme.apst",
                                  xasprintf("skipped: no APST quirk for %s, but nvme.quirks=%s (for %s) covers its "
                                            "PCI ID %s too", model(&v[i]), value, strempty(v[k].d->name), v[i].id));
                        return;
                }
        }
        plan_skip(c, v[i].d, "nvme.apst",
                  xasprintf("skipped: no APST quirk for %s: the kernel's APST stays", model(&v[i])));
}

/* why drive V's quirk cannot be its own (VALUE: the planned quirks=, NULL if none) */
static char *why_not_per_drive(struct planctx *c, bool param, const char *value, const struct drive *v)
{
        if (!param)
                return xasprintf("kernel %s's nvme has no quirks= parameter (Linux 7.x's has)",
                                 strempty(c->inv->kernel));
        if (!value)
                return xasprintf("the quirks= of kernel %s's nvme holds %d characters: too few for these drives",
                                 c->inv->kernel, NVME_QUIRKS_MAX);
        return xasprintf("the PCI ID of %s is unknown", strempty(v->d->name));
}

/* one drive's row: its quirk, the machine-wide switch, or a skip */
static void plan_drive(struct planctx *c, const struct drive *v, size_t n, size_t i, bool param, const char *value,
                       bool machine_wide)
{
        const struct drive *d = &v[i];
        _cleanup_free_ char *why = NULL, *no = NULL;

        if (!d->found && d->undecided) {
                plan_skip(c, d->d, "nvme.apst", xasprintf("skipped: %s: the kernel's APST stays", d->undecided));
                return;
        }
        if (!d->found) {
                plan_unquirked(c, v, n, i, value, machine_wide);
                return;
        }
        if (d->quirk && value && d->id[0]) {
                plan_quirk(c, v, n, i, value);
                return;
        }
        no = why_not_per_drive(c, param, value, d);
        if (d->quirk && streq(d->quirk, "no_apst")) {
                plan_machine_wide(c, v, n, i, no);
                return;
        }
        why = fact_reason(&d->f);
        plan_skip(c, d->d, "nvme.apst",
                  d->quirk ? xasprintf("skipped: %s: %s: the deepest power state cannot be kept out for one "
                                       "drive; APST stays", why, no)
                           : xasprintf("skipped: %s: the kernel applies this quirk itself", why));
}

void knob_nvme(struct planctx *c)
{
        const struct device_list *l = &c->inv->classes[CL_NVME];
        const char *mode = profile_value(c, "nvme", "apst");
        struct drive *v;
        _cleanup_free_ char *value = NULL;
        bool param, machine_wide = false;

        if (!l->n)
                return;
        if (!mode) {
                plan_skip_keep(c, "nvme.apst", "nvme", "apst");
                return;
        }
        v = xcalloc(l->n, sizeof(*v));
        for (size_t i = 0; i < l->n; i++) {
                v[i].d = &l->v[i];
                lookup(c, &v[i]);
        }
        /* decided by the target kernel's module, not the running one */
        param = has_quirks_param(c);
        if (param)
                value = quirks_value(v, l->n);
        for (size_t i = 0; i < l->n; i++)
                machine_wide = machine_wide || (v[i].quirk && streq(v[i].quirk, "no_apst") && !(value && v[i].id[0]));
        for (size_t i = 0; i < l->n; i++)
                plan_drive(c, v, l->n, i, param, value, machine_wide);
        for (size_t i = 0; i < l->n; i++)
                free(v[i].undecided);
        free(v);
}

static const char *const ch_apst[] = { "quirks", "keep", NULL };

static const struct profile_key keys[] = {
        KEY_CHOICE("apst", ch_apst),
};

static const struct knob_rule rules[] = {
        /* 0 turns APST off */
        RULE_RANGE("nvme.apst", 0, 100000000, NULL, "nvme_core.default_ps_max_latency_us"),
        /* VID:DID:no_apst|no_deepest_ps, '-' between entries (drivers/nvme/host/pci.c quirks_param_set()) */
        { "nvme.quirks", KNOB_NVME_QUIRKS, NULL, 0, 0, NULL, "nvme.quirks" },
};

static const struct knob_property properties[] = {
        PROP_WORDS("IDLECFG_NVME_APST", "deny|no-deepest", "APST must stay off, or its deepest state unused (the kernel's quirk)"),
};

static const struct knob_attr attrs[] = {
        { "nvme", "power/pm_qos_latency_tolerance_us" }, { "nvme", "power/control" }, { "nvme", "power/runtime_status" },
};

static const char *const modules[] = { "nvme_core", "nvme", NULL };

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
