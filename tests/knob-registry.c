/* tests/knob-registry.c: print the knob registry, one fact a line, for the shell tests
 *   key SECTION KEY VALUE|VALUE...     (a number key: keep|MIN|MAX)
 *   property NAME VALUE|VALUE...       (a list: "list:" before the words; a range: MIN..MAX)
 *   rule KNOB
 *   module MODULE                      (module parameters detect reads)
 *   sysctl KEY                         (sysctl keys a rule lets sysctl.d set) */
#include "config.h"

#include "knobs/knob.h"
#include "knobs/registry.h"

int main(void)
{
        size_t n, nk;
        const struct knob_family *const *fam = knob_registry(&n);
        const struct profile_key *k = knob_profile_keys(&nk);

        for (size_t i = 0; i < nk; i++) {
                printf("key %s %s ", k[i].section, k[i].key);
                if (k[i].type == PROFILE_INT_OR_KEEP)
                        printf("keep|%ld|%ld\n", k[i].min, k[i].max);
                else
                        for (size_t j = 0; k[i].choices[j]; j++)
                                printf("%s%s", k[i].choices[j], k[i].choices[j + 1] ? "|" : "\n");
        }
        for (size_t i = 0; i < n; i++) {
                /* the family, and its keys with their sections (tests/family-NAME.sh plans them) */
                printf("family %s\n", fam[i]->name);
                for (size_t j = 0; j < fam[i]->n_keys; j++)
                        printf("family-key %s %s %s\n", fam[i]->name,
                               fam[i]->keys[j].section ? fam[i]->keys[j].section : fam[i]->section,
                               fam[i]->keys[j].key);
                for (size_t j = 0; j < fam[i]->n_properties; j++) {
                        const struct knob_property *p = &fam[i]->properties[j];
                        if (p->kind == KNOB_INT)
                                printf("property %s %ld..%ld\n", p->name, p->min, p->max);
                        else
                                printf("property %s %s%s\n", p->name, p->list ? "list:" : "", p->words);
                }
                for (size_t j = 0; j < fam[i]->n_rules; j++) {
                        const char *sc = fam[i]->rules[j].sysctls;
                        printf("rule %s\n", fam[i]->rules[j].knob);
                        while (sc && *sc) {
                                size_t m = strcspn(sc, "|");
                                printf("sysctl %.*s\n", (int) m, sc);
                                sc += m + (sc[m] == '|');
                        }
                }
                for (const char *const *m = fam[i]->modules; m && *m; m++)
                        printf("module %s\n", *m);
                for (const char *const *m = fam[i]->modules_shown; m && *m; m++)
                        printf("module %s\n", *m);
        }
        return 0;
}
