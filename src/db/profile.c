/* profile.c: a profile with what it inherits, merged into one (file and line kept per value) */
#include "config.h"

#include "db/profile-search.h"
#include "db/profile.h"
#include "root/rootfs.h"
#include "base/util.h"

/* ---- loading a chain ---- */

struct loaded {
        char *name;
        char *path;
        size_t dir_index;
        struct profile_parsed parsed;
};

static char *chain_string(const struct loaded *chain, size_t n, const char *last)
{
        struct strbuf sb = {};

        for (size_t i = 0; i < n; i++)
                sb_appendf(&sb, "%s%s", i ? " -> " : "", chain[i].name);
        if (last)
                sb_appendf(&sb, "%s%s", n ? " -> " : "", last);
        return sb_steal(&sb);
}

void profile_free(struct profile *p)
{
        if (!p)
                return;
        free(p->name);
        free(p->path);
        free(p->description);
        for (size_t i = 0; i < p->n_chain; i++) {
                free(p->chain[i].name);
                free(p->chain[i].path);
        }
        free(p->chain);
        for (size_t i = 0; i < p->n_settings; i++) {
                free(p->settings[i].value);
                free(p->settings[i].battery);
                free(p->settings[i].file);
                free(p->settings[i].from);
        }
        free(p->settings);
        free(p);
}

/* Parents first, so that each child overrides what it inherits and every
 * value keeps the file and line where it was last set. */
static struct profile *merge(const struct profile_keyset *schema, struct loaded *chain, size_t n)
{
        const struct profile_key *profile_keys = schema->keys;
        struct profile *p = xcalloc(1, sizeof(*p));
        _cleanup_free_ const struct profile_entry **slot = xcalloc(schema->n, sizeof(*slot));
        _cleanup_free_ const struct loaded **owner = xcalloc(schema->n, sizeof(*owner));
        const struct profile_key *desc;

        for (size_t i = n; i-- > 0;)
                for (size_t j = 0; j < chain[i].parsed.n; j++) {
                        const struct profile_entry *e = &chain[i].parsed.v[j];
                        size_t idx = (size_t) (e->def - profile_keys);
                        slot[idx] = e;
                        owner[idx] = &chain[i];
                }

        p->name = xstrdup(chain[0].name);
        p->chain = xcalloc(n, sizeof(*p->chain));
        for (size_t i = 0; i < n; i++)
                p->chain[i] = (struct profile_link) { xstrdup(chain[i].name), xstrdup(chain[i].path) };
        p->n_chain = n;
        p->path = xstrdup(chain[0].path);
        desc = profile_schema_find(schema, "profile", "description");
        if (slot[desc - profile_keys])
                p->description = xstrdup(slot[desc - profile_keys]->value);

        p->settings = xcalloc(schema->n, sizeof(*p->settings));
        for (size_t idx = PROFILE_N_META; idx < schema->n; idx++) {
                if (!slot[idx])
                        continue;
                p->settings[p->n_settings++] = (struct profile_setting) {
                        .section = profile_keys[idx].section,
                        .key = profile_keys[idx].key,
                        .value = xstrdup(slot[idx]->value),
                        .keep = slot[idx]->keep,
                        .number = slot[idx]->number,
                        .battery = slot[idx]->battery ? xstrdup(slot[idx]->battery) : NULL,
                        .battery_number = slot[idx]->battery_number,
                        .file = xstrdup(owner[idx]->path),
                        .line = slot[idx]->line,
                        .from = xstrdup(owner[idx]->name),
                };
        }
        return p;
}

static void chain_free(struct loaded *chain, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(chain[i].name);
                free(chain[i].path);
                profile_parsed_done(&chain[i].parsed);
        }
}

static int not_found(const struct rootfs *rfs, const char *extra_dir, const struct profile_dir *dirs, size_t n_dirs,
                     const char *name, struct xerror *err)
{
        _cleanup_free_ char *searched = profile_dirs_string(dirs, 0, n_dirs);
        _cleanup_free_ char *avail = NULL;
        char **names = NULL;
        size_t n = 0;

        profile_list_rootfs(rfs, extra_dir, &names, &n);
        if (n > 0) {
                char **v = xcalloc(n + 1, sizeof(*v));
                memcpy(v, names, n * sizeof(*v));
                avail = profile_join((const char *const *) v, ", ");
                free(v);
        }
        profile_names_free(names, n);
        if (avail)
                profile_set_error(err, NULL, 0, _("profile '%s' not found; searched: %s; available: %s"),
                                  name, searched, avail);
        /* no profile at all: not a misspelt name but a root (or a build
         * tree) without idlecfg's profiles; say which, and the way out */
        else if (extra_dir)
                profile_set_error(err, NULL, 0, _("profile '%s' not found: --profiles-dir %s holds no profile "
                                                  "(NAME.profile), nor does any other place searched (%s)"),
                                  name, extra_dir, searched);
        else if (!rfs->host)
                profile_set_error(err, NULL, 0, _("profile '%s' not found: %s holds no profile (searched: %s): "
                                                  "install idlecfg's package in the root, or give --profiles-dir "
                                                  "DIR with the profiles to use"),
                                  name, rfs->path, searched);
        else
                profile_set_error(err, NULL, 0, _("profile '%s' not found: no profile is installed (searched: %s); "
                                                  "from a build tree, give --profiles-dir with the source tree's "
                                                  "profiles/ directory (idlecfg --profiles-dir profiles plan), or "
                                                  "run make install"),
                                  name, searched);
        return -ENOENT;
}

int profile_load_rootfs(const struct rootfs *rfs, const struct profile_keyset *schema, const char *extra_dir,
                        const char *name, struct profile **ret, struct xerror *ret_error)
{
        struct profile_dir dirs[3];
        size_t n_dirs, n = 0, from = 0;
        struct loaded chain[PROFILE_MAX_DEPTH] = {};
        const char *want = name;
        const char *inherit_file = NULL;        /* where WANT was named, for errors */
        unsigned inherit_line = 0;
        int r = 0;

        if (!profile_name_valid(name)) {
                profile_set_error(ret_error, NULL, 0, _("invalid profile name '%s'; use letters, digits, '-' and '_' (at most %d)"),
                          name, PROFILE_NAME_MAX);
                return -EINVAL;
        }
        n_dirs = profile_dirs(rfs, extra_dir, dirs);

        for (;;) {
                _cleanup_free_ char *buf = NULL, *path = NULL;
                struct xerror err = {};
                const struct profile_entry *inh;
                size_t len = 0, idx = 0;

                r = profile_find(rfs, dirs, n_dirs, from, want, &path, &idx, &buf, &len, &err);
                if (r == -ENOENT && n == 0) {
                        r = not_found(rfs, extra_dir, dirs, n_dirs, want, ret_error);
                        break;
                }
                if (r == -ENOENT) {
                        _cleanup_free_ char *searched = profile_dirs_string(dirs, from, n_dirs);
                        if (from > 0 && from >= n_dirs)
                                profile_set_error(ret_error, inherit_file, inherit_line,
                                          _("inherited profile '%s' not found: no directory after this one to search"), want);
                        else if (from > 0)
                                profile_set_error(ret_error, inherit_file, inherit_line,
                                          _("inherited profile '%s' not found after this one; searched: %s"), want, searched);
                        else
                                profile_set_error(ret_error, inherit_file, inherit_line,
                                          _("inherited profile '%s' not found; searched: %s"), want, searched);
                        break;
                }
                if (r >= 0) {
                        for (size_t i = 0; i < n; i++)
                                if (streq(chain[i].path, path)) {
                                        _cleanup_free_ char *cs = chain_string(chain, n, want);
                                        profile_set_error(ret_error, inherit_file, inherit_line, _("inherit cycle: %s"), cs);
                                        r = -ELOOP;
                                        break;
                                }
                        if (r < 0)
                                break;
                        if (n == PROFILE_MAX_DEPTH) {
                                _cleanup_free_ char *cs = chain_string(chain, n, want);
                                profile_set_error(ret_error, inherit_file, inherit_line,
                                          _("inherit chain longer than %d profiles: %s"), PROFILE_MAX_DEPTH, cs);
                                r = -ELOOP;
                                break;
                        }
                        r = profile_parse_buffer(buf, len, path, schema, &chain[n].parsed, &err);
                }
                if (r < 0) {
                        /* an error in an inherited file: say how we got there */
                        if (n > 0) {
                                _cleanup_free_ char *cs = chain_string(chain, n, want);
                                char *m = xasprintf(_("%s (profile chain: %s)"), err.message, cs);
                                free(err.message);
                                err.message = m;
                        }
                        profile_move_error(ret_error, &err);
                        break;
                }
                chain[n].name = xstrdup(want);
                chain[n].path = TAKE_PTR(path);
                chain[n].dir_index = idx;
                n++;

                inh = profile_parsed_find(&chain[n - 1].parsed, "profile", "inherit");
                if (!inh)
                        break;
                /* An /etc profile may inherit its own name to extend the
                 * packaged one: look further down the path, not at itself. */
                from = streq(inh->value, chain[n - 1].name) ? chain[n - 1].dir_index + 1 : 0;
                want = inh->value;
                inherit_file = chain[n - 1].path;
                inherit_line = inh->line;
        }

        if (r >= 0)
                *ret = merge(schema, chain, n);
        chain_free(chain, n);
        profile_dirs_free(dirs, n_dirs);
        return r < 0 ? r : 0;
}

const struct profile_setting *profile_get(const struct profile *p, const char *section, const char *key)
{
        for (size_t i = 0; i < p->n_settings; i++)
                if (streq(p->settings[i].section, section) && streq(p->settings[i].key, key))
                        return &p->settings[i];
        return NULL;
}

bool profile_has_per_source(const struct profile *p)
{
        for (size_t i = 0; p && i < p->n_settings; i++)
                if (p->settings[i].battery)
                        return true;
        return false;
}

struct profile *profile_for_source(const struct profile *p, bool battery)
{
        struct profile *c = xcalloc(1, sizeof(*c));

        c->name = xstrdup(p->name);
        c->path = xstrdup(p->path);
        c->description = p->description ? xstrdup(p->description) : NULL;
        c->chain = xcalloc(p->n_chain ? p->n_chain : 1, sizeof(*c->chain));
        for (size_t i = 0; i < p->n_chain; i++)
                c->chain[i] = (struct profile_link) { xstrdup(p->chain[i].name), xstrdup(p->chain[i].path) };
        c->n_chain = p->n_chain;
        c->settings = xcalloc(p->n_settings ? p->n_settings : 1, sizeof(*c->settings));
        for (size_t i = 0; i < p->n_settings; i++) {
                const struct profile_setting *s = &p->settings[i];
                bool b = battery && s->battery;
                c->settings[i] = (struct profile_setting) {
                        .section = s->section,
                        .key = s->key,
                        .value = xstrdup(b ? s->battery : s->value),
                        .keep = s->keep,
                        .number = b ? s->battery_number : s->number,
                        .file = xstrdup(s->file),
                        .line = s->line,
                        .from = xstrdup(s->from),
                };
        }
        c->n_settings = p->n_settings;
        return c;
}

/* ---- the same for a root given by its path (tests, tools) ---- */

int profile_load(const char *root, const struct profile_keyset *schema, const char *extra_dir, const char *name,
                 struct profile **ret, struct xerror *ret_error)
{
        struct rootfs rfs = { .fd = -1 };
        int r = profile_open_root(root, &rfs, ret_error);

        if (r >= 0)
                r = profile_load_rootfs(&rfs, schema, extra_dir, name, ret, ret_error);
        rootfs_close(&rfs);
        return r;
}
