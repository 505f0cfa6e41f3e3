/* hwdb.c: the loaded database: what it holds, and queries answered as sd-hwdb does */
#include "config.h"

#include <fnmatch.h>
#include <locale.h>

#include "db/hwdb-parse.h"
#include "db/hwdb.h"
#include "base/util.h"

void hwdb_free(struct hwdb *h)
{
        if (!h)
                return;
        for (size_t i = 0; i < h->n_files; i++) {
                free(h->paths[i]);
                free(h->data[i]);
        }
        free(h->paths);
        free(h->data);
        free(h->props);
        free(h->matches);
        free(h->slots);
        for (size_t i = 0; i < h->n_warnings; i++)
                xerror_done(&h->warnings[i]);
        free(h->warnings);
        if (h->c_locale)
                freelocale(h->c_locale);
        free(h);
}

const struct xerror *hwdb_warnings(const struct hwdb *h, size_t *ret_n)
{
        *ret_n = h->n_warnings;
        return h->warnings;
}

const char *const *hwdb_files(const struct hwdb *h, size_t *ret_n)
{
        *ret_n = h->n_files;
        return (const char *const *) h->paths;
}

void hwdb_stats(const struct hwdb *h, struct hwdb_stats *ret)
{
        *ret = (struct hwdb_stats) {
                .files = h->n_files,
                .matches = h->n_matches,
                .properties = h->n_props,
                .bytes = h->bytes,
                .skipped_files = h->skipped_files,
                .skipped_bytes = h->skipped_bytes,
        };
}

/* The order in which sd-hwdb's trie walk reaches the patterns: shorter
 * literal prefix first; then byte order, a pattern after those it is a
 * prefix of (children before the node's own values). */
static int walk_cmp(const void *a, const void *b)
{
        const struct match *x = *(const struct match *const *) a, *y = *(const struct match *const *) b;
        const unsigned char *p, *q;

        if (x->literal != y->literal)
                return x->literal < y->literal ? -1 : 1;
        for (p = (const unsigned char *) x->pattern, q = (const unsigned char *) y->pattern; *p == *q; p++, q++)
                if (*p == '\0')
                        return 0;
        if (*p == '\0')
                return 1;
        if (*q == '\0')
                return -1;
        return *p < *q ? -1 : 1;
}

struct cand {
        const struct prop *prop;
        const struct match *match;
        uint32_t group;         /* rank of the match's pattern in walk order */
};

/* by key; then the winner first: highest (file, line), earliest pattern */
static int cand_cmp(const void *a, const void *b)
{
        const struct cand *x = a, *y = b;
        int c = strcmp(x->prop->key, y->prop->key);

        if (c != 0)
                return c;
        if (x->prop->file != y->prop->file)
                return x->prop->file > y->prop->file ? -1 : 1;
        if (x->prop->line != y->prop->line)
                return x->prop->line > y->prop->line ? -1 : 1;
        return x->group < y->group ? -1 : x->group > y->group;
}

/* a key is printed where the walk first met it: earliest pattern, then key order */
static int result_cmp(const void *a, const void *b)
{
        const struct cand *x = a, *y = b;

        if (x->group != y->group)
                return x->group < y->group ? -1 : 1;
        return strcmp(x->prop->key, y->prop->key);
}

static void find_matches(const struct hwdb *h, const char *modalias,
                         const struct match ***ret, size_t *ret_n)
{
        const struct match **hits = NULL;
        size_t n = 0, cap = 0, len = strlen(modalias);
        uint32_t hash = HASH_INIT;
        locale_t old;

        if (h->n_matches == 0) {
                *ret = NULL;
                *ret_n = 0;
                return;
        }
        old = uselocale(h->c_locale);
        for (size_t k = 0; k <= len && k <= h->max_literal; k++) {
                size_t s;

                if (k > 0)
                        hash = hwdb_hash_step(hash, modalias[k - 1]);
                for (s = hash & h->mask; h->slots[s].head; s = (s + 1) & h->mask) {
                        const struct match *o = &h->matches[h->slots[s].head - 1];

                        if (h->slots[s].hash == hash && o->literal == k && memcmp(o->pattern, modalias, k) == 0)
                                break;
                }
                for (uint32_t i = h->slots[s].head; i; i = h->matches[i - 1].next) {
                        const struct match *m = &h->matches[i - 1];

                        /* the literal part is equal; sd-hwdb hands fnmatch() only
                         * the rest of both strings, from the first glob on */
                        if (m->pattern[k] == '\0' ? k != len : fnmatch(m->pattern + k, modalias + k, 0) != 0)
                                continue;
                        GROW(hits, n, cap);
                        hits[n++] = m;
                }
        }
        uselocale(old);
        *ret = hits;
        *ret_n = n;
}

int hwdb_query(const struct hwdb *h, const char *modalias, struct hwdb_property **ret, size_t *ret_n)
{
        _cleanup_free_ const struct match **hits = NULL;
        _cleanup_free_ struct cand *cands = NULL;
        struct hwdb_property *props;
        size_t n_hits, n_cands = 0, n_out = 0;
        uint32_t group = 0;

        if (!h || !modalias)
                return -EINVAL;

        find_matches(h, modalias, &hits, &n_hits);
        if (n_hits > 1)
                qsort(hits, n_hits, sizeof(*hits), walk_cmp);

        for (size_t i = 0; i < n_hits; i++)
                n_cands += hits[i]->n_props;
        cands = xmalloc(n_cands * sizeof(*cands));
        n_cands = 0;
        for (size_t i = 0; i < n_hits; i++) {
                /* equal patterns share one trie node in systemd: one group */
                if (i > 0 && walk_cmp(&hits[i - 1], &hits[i]) != 0)
                        group++;
                for (uint32_t j = 0; j < hits[i]->n_props; j++)
                        cands[n_cands++] = (struct cand) {
                                .prop = &h->props[hits[i]->first_prop + j],
                                .match = hits[i],
                                .group = group,
                        };
        }
        if (n_cands > 1)
                qsort(cands, n_cands, sizeof(*cands), cand_cmp);

        /* keep each key's winner, placed at the first group that had the key */
        for (size_t i = 0; i < n_cands;) {
                struct cand best = cands[i];
                size_t j = i + 1;

                for (; j < n_cands && streq(cands[j].prop->key, best.prop->key); j++)
                        if (cands[j].group < best.group)
                                best.group = cands[j].group;
                cands[n_out++] = best;
                i = j;
        }
        if (n_out > 1)
                qsort(cands, n_out, sizeof(*cands), result_cmp);

        props = xmalloc(n_out * sizeof(*props));
        for (size_t i = 0; i < n_out; i++)
                props[i] = (struct hwdb_property) {
                        .key = cands[i].prop->key,
                        .value = cands[i].prop->value,
                        .file = h->paths[cands[i].prop->file],
                        .line = cands[i].prop->line,
                        .match = cands[i].match->pattern,
                };
        *ret = props;
        *ret_n = n_out;
        return 0;
}

int hwdb_get_keys(const struct hwdb *h, const char *modalias, const char *const *keys, size_t n_keys,
                  struct hwdb_property *ret)
{
        _cleanup_free_ struct hwdb_property *props = NULL;
        size_t n;
        int r, found = 0;

        r = hwdb_query(h, modalias, &props, &n);
        if (r < 0)
                return r;
        for (size_t k = 0; k < n_keys; k++) {
                ret[k] = (struct hwdb_property) {};
                for (size_t i = 0; keys[k] && i < n; i++)
                        if (streq(props[i].key, keys[k])) {
                                ret[k] = props[i];
                                found++;
                                break;
                        }
        }
        return found;
}

int hwdb_get(const struct hwdb *h, const char *modalias, const char *key, struct hwdb_property *ret)
{
        _cleanup_free_ struct hwdb_property *props = NULL;
        size_t n;
        int r;

        if (!key)
                return -EINVAL;
        r = hwdb_query(h, modalias, &props, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (streq(props[i].key, key)) {
                        *ret = props[i];
                        return 0;
                }
        return -ENOENT;
}

size_t hwdb_all_properties(const struct hwdb *h, struct hwdb_property **ret)
{
        struct hwdb_property *a = xcalloc(h->n_props ? h->n_props : 1, sizeof(*a));

        for (size_t i = 0; i < h->n_props; i++)
                a[i] = (struct hwdb_property) {
                        .key = h->props[i].key,
                        .value = h->props[i].value,
                        .file = h->paths[h->props[i].file],
                        .line = h->props[i].line,
                };
        *ret = a;
        return h->n_props;
}
