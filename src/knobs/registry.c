/* knobs/registry.c: the list of knob families, and every table derived from it */
#include "config.h"

#include "knob.h"

/* the order in which the planner runs them: the order of the plan */
static const struct knob_family *const families[] = {
        &knob_family_pci,
        &knob_family_aspm,
        &knob_family_sata,
        &knob_family_usb,
        &knob_family_audio,
        &knob_family_gpu,
        &knob_family_i2c,
        &knob_family_nvme,
        &knob_family_suspend,
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
