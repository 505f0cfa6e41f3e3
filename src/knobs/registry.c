/* knobs/registry.c: the list of knob families, and every table derived from it */
#include "config.h"

#include <ctype.h>

#include "knobs/knob.h"
#include "knobs/registry.h"

/* the order in which the planner runs them: the order of the plan */
static const struct knob_family *const families[] = {
        &knob_family_pci,
        &knob_family_aspm,
        &knob_family_sata,
        &knob_family_usb,
        &knob_family_bluetooth,
        &knob_family_audio,
        &knob_family_gpu,
        &knob_family_i2c,
        &knob_family_nvme,
        &knob_family_suspend,
        &knob_family_kernel,
        &knob_family_wifi,
        &knob_family_network,
        &knob_family_wakeup,
        /* plans nothing itself: knob_removable_apply() goes over the plan after the others */
        &knob_family_removable,
};

const struct knob_family *const *knob_registry(size_t *ret_n)
{
        *ret_n = ELEMENTSOF(families);
        return families;
}

const struct knob_family *knob_family_of_section(const char *section)
{
        for (size_t i = 0; section && i < ELEMENTSOF(families); i++)
                if (streq_ptr(families[i]->section, section))
                        return families[i];
        return NULL;
}

/* The derived tables are built once, on first use, and live as long as the
 * program: the pointers handed out stay valid. */

static const char *key_section(const struct knob_family *f, size_t k)
{
        return f->keys[k].section ? f->keys[k].section : f->section;
}

/* grouped by section, sections in the order they first appear */
const struct profile_key *knob_profile_keys(size_t *ret_n)
{
        static struct profile_key *keys;
        static size_t n;

        if (!keys) {
                size_t total = 0;
                for (size_t i = 0; i < ELEMENTSOF(families); i++)
                        total += families[i]->n_keys;
                keys = xcalloc(total ? total : 1, sizeof(*keys));
                for (size_t i = 0; i < ELEMENTSOF(families); i++)
                        for (size_t k = 0; k < families[i]->n_keys; k++) {
                                const char *section = key_section(families[i], k);
                                bool seen = false;

                                for (size_t s = 0; s < n && !seen; s++)
                                        seen = streq(keys[s].section, section);
                                if (seen)
                                        continue;
                                for (size_t j = i; j < ELEMENTSOF(families); j++)
                                        for (size_t l = 0; l < families[j]->n_keys; l++)
                                                if (streq_ptr(key_section(families[j], l), section)) {
                                                        keys[n] = families[j]->keys[l];
                                                        keys[n++].section = section;
                                                }
                        }
        }
        *ret_n = n;
        return keys;
}

const struct knob_rule *knob_rules(size_t *ret_n)
{
        static struct knob_rule *rules;
        static size_t n;

        if (!rules) {
                size_t total = 0;
                for (size_t i = 0; i < ELEMENTSOF(families); i++)
                        total += families[i]->n_rules;
                rules = xcalloc(total ? total : 1, sizeof(*rules));
                for (size_t i = 0; i < ELEMENTSOF(families); i++)
                        for (size_t k = 0; k < families[i]->n_rules; k++)
                                rules[n++] = families[i]->rules[k];
        }
        *ret_n = n;
        return rules;
}

const struct knob_rule *knob_rule(const char *knob)
{
        size_t n;
        const struct knob_rule *rules = knob_rules(&n);

        if (!knob)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (streq(rules[i].knob, knob))
                        return &rules[i];
        return NULL;
}

const char *knob_runtime_pm_of(const char *class)
{
        for (size_t i = 0; class && i < ELEMENTSOF(families); i++)
                for (size_t k = 0; k < families[i]->n_runtime_pm; k++)
                        if (streq(families[i]->runtime_pm[k].class, class))
                                return families[i]->runtime_pm[k].knob;
        return NULL;
}

const char *knob_runtime_pm_measured(const char *class)
{
        const char *k = knob_runtime_pm_of(class);

        for (size_t i = 0; !k && class && i < ELEMENTSOF(families); i++)
                for (size_t j = 0; j < families[i]->n_runtime_pm_through; j++)
                        if (streq(families[i]->runtime_pm_through[j].class, class))
                                return families[i]->runtime_pm_through[j].knob;
        return k;
}

bool knob_runtime_pm_placed(const struct setting *s, const char *devpath)
{
        for (size_t i = 0; i < ELEMENTSOF(families); i++)
                if (families[i]->runtime_pm_placed && families[i]->runtime_pm_placed(s, devpath))
                        return true;
        return false;
}

int knob_live_value(const struct setting *s, char **ret)
{
        for (size_t i = 0; i < ELEMENTSOF(families); i++)
                if (families[i]->live_value && families[i]->live_value(s, ret) == 0)
                        return 0;
        return -ENOENT;
}

bool knob_on_parent(const char *class)
{
        for (size_t i = 0; class && i < ELEMENTSOF(families); i++)
                for (const char *const *c = families[i]->on_parent; c && *c; c++)
                        if (streq(*c, class))
                                return true;
        return false;
}

const struct knob_property *knob_property(const char *name)
{
        for (size_t i = 0; name && i < ELEMENTSOF(families); i++)
                for (size_t k = 0; k < families[i]->n_properties; k++)
                        if (streq(families[i]->properties[k].name, name))
                                return &families[i]->properties[k];
        return NULL;
}

/* a value of P (an IDLECFG_ property of some family) */
static bool knob_property_value_ok(const struct knob_property *p, const char *value)
{
        if (!p || !value)
                return false;
        if (p->kind == KNOB_INT) {
                char *end;
                long v;

                if (!*value || !(isdigit((unsigned char) value[0]) || (value[0] == '-' && isdigit((unsigned char) value[1]))))
                        return false;
                errno = 0;
                v = strtol(value, &end, 10);
                return errno == 0 && *end == '\0' && v >= p->min && v <= p->max;
        }
        /* KNOB_WORDS: one of the words, or for a list a comma-separated list of them */
        for (const char *w = value;;) {
                size_t n = p->list ? strcspn(w, ",") : strlen(w);
                bool found = false;

                if (n == 0)
                        return false;
                for (const char *s = p->words; *s && !found; s += strcspn(s, "|"), s += *s == '|') {
                        size_t m = strcspn(s, "|");
                        found = m == n && strncmp(s, w, n) == 0;
                }
                if (!found)
                        return false;
                if (w[n] == '\0')
                        return true;
                w += n + 1;
        }
}

/* a P_KERNEL value: empty, or one of < <= > >= = and a dotted release such as 6.1 */
static bool knob_kernel_range_ok(const char *value)
{
        const char *v = value;

        if (!*v)
                return true;
        if (startswith(v, "<=") || startswith(v, ">="))
                v += 2;
        else if (*v == '<' || *v == '>' || *v == '=')
                v++;
        else
                return false;
        for (;;) {
                size_t n = strspn(v, "0123456789");
                if (n == 0)
                        return false;
                v += n;
                if (*v == '\0')
                        return true;
                if (*v != '.')
                        return false;
                v++;
        }
}

/* the property of NAME, NAME_REASON or NAME_KERNEL; *ret_companion says which suffix */
static const struct knob_property *property_of(const char *name, const char **ret_companion)
{
        static const char *const companions[] = { "_REASON", "_KERNEL", "_BIOS_DATE" };
        const struct knob_property *p = knob_property(name);

        *ret_companion = NULL;
        if (p)
                return p;
        for (size_t i = 0; i < ELEMENTSOF(companions); i++)
                if (endswith_str(name, companions[i])) {
                        _cleanup_free_ char *base = xstrndup(name, strlen(name) - strlen(companions[i]));
                        p = knob_property(base);
                        if (p) {
                                *ret_companion = companions[i];
                                return p;
                        }
                }
        return NULL;
}

/* "allow|deny" as the page writes it, or "a comma-separated list of ...", or "MIN..MAX" */
static char *valid_set(const struct knob_property *p)
{
        if (p->kind == KNOB_INT)
                return xasprintf("%ld..%ld", p->min, p->max);
        if (p->list)
                return xasprintf(_("a comma-separated list of %s"), p->words);
        return xstrdup(p->words);
}

int knob_hwdb_check(const struct hwdb *h, struct xerror *ret_error)
{
        _cleanup_free_ struct hwdb_property *all = NULL;
        size_t n = hwdb_all_properties(h, &all);

        for (size_t i = 0; i < n; i++) {
                const struct hwdb_property *q = &all[i];
                const char *companion;
                const struct knob_property *p;
                char *msg = NULL;

                if (!startswith(q->key, "IDLECFG_"))
                        continue;
                p = property_of(q->key, &companion);
                if (!p)
                        msg = xasprintf(_("Unknown property %s=%s: no knob family reads it "
                                          "(idlecfg-hwdb(7) lists the properties)."), q->key, q->value);
                else if (companion && streq(companion, "_KERNEL") && !knob_kernel_range_ok(q->value))
                        msg = xasprintf(_("Invalid kernel range %s=%s: expected empty, or one of <, <=, >, >=, = "
                                          "followed by a release such as 6.1."), q->key, q->value);
                else if (!companion && !knob_property_value_ok(p, q->value)) {
                        _cleanup_free_ char *set = valid_set(p);
                        msg = xasprintf(_("Invalid value %s=%s: expected %s."), q->key, q->value, set);
                }
                if (msg) {
                        xerror_set_take(ret_error, q->file, q->line, msg);
                        return -EINVAL;
                }
        }
        return 0;
}

const struct profile_keyset *knob_profile_schema(void)
{
        static struct profile_keyset s;

        if (!s.keys) {
                size_t n_meta, n;
                const struct profile_key *meta = profile_meta_keys(&n_meta);
                const struct profile_key *knob = knob_profile_keys(&n);
                struct profile_key *keys = xcalloc(n_meta + n, sizeof(*keys));

                memcpy(keys, meta, n_meta * sizeof(*keys));
                memcpy(keys + n_meta, knob, n * sizeof(*keys));
                s = (struct profile_keyset) { keys, n_meta + n, false };
        }
        return &s;
}

unsigned long long knob_settle_ms(const struct plan *p, const char **ret_message)
{
        unsigned long long best = 0;

        *ret_message = NULL;
        for (size_t i = 0; p && i < p->n; i++) {
                if (!p->v[i].value)
                        continue;
                for (size_t f = 0; f < ELEMENTSOF(families); f++)
                        for (size_t k = 0; k < families[f]->n_settle; k++) {
                                const struct knob_settle *st = &families[f]->settle[k];
                                unsigned long long ms;

                                if (!streq(p->v[i].knob, st->knob))
                                        continue;
                                ms = strtoull(p->v[i].value, NULL, 10) * 1000u;
                                if (ms > best) {
                                        best = ms;
                                        *ret_message = st->message;
                                }
                        }
        }
        return best;
}
