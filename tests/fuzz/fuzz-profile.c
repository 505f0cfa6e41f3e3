/* tests/fuzz/fuzz-profile.c: the profile loader and idlecfg.conf on arbitrary files of a root */
#include "config.h"

#include "fuzz.h"
#include "db/profile-search.h"
#include "db/profile-select.h"
#include "db/profile.h"
#include "knobs/knob.h"
#include "knobs/registry.h"
#include "base/util.h"

/*
 * Input: one or more files. What comes before the first line starting with
 * "%%" is ROOT/etc/idlecfg/profiles/fuzz.profile; each "%%" line starts
 * another file, named by the rest of the line:
 *
 *   %% conf        ROOT/etc/idlecfg/idlecfg.conf
 *   %% etc/NAME    ROOT/etc/idlecfg/profiles/NAME.profile
 *   %% extra/NAME  EXTRA/NAME.profile (EXTRA is the --profiles-dir)
 *   %% NAME        ROOT/usr/share/idlecfg/profiles/NAME.profile
 *
 * (a part whose name is not a valid profile name is dropped). Then
 * profile_load("fuzz"), profile_select() with chassis type 10 and the load
 * of the profile it selects, and profile_list().
 *
 * Checked: a loaded profile has a valid chain that names files we wrote;
 * each setting is a key of the schema, in schema order, with a value of its
 * type (a choice, "keep" or a number in range, with keep and number
 * matching the text) that holds no quote, backslash, comment character or
 * line break; and line LINE of the file it names is that key and that value,
 * in that section. An error has a message, and a file and line that exist.
 */

#define MAX_FILES 12
#define MAX_INPUT (128 * 1024)

struct file {
        char *display;          /* as the library names it */
        const char *data;
        size_t len;
};

static struct file files[MAX_FILES];
static size_t n_files;

static const struct file *find_file(const char *display)
{
        for (size_t i = 0; i < n_files; i++)
                if (streq(files[i].display, display))
                        return &files[i];
        return NULL;
}

/* line LINE (from 1) of F, without its newline; NULL past the end */
static char *line_of(const struct file *f, unsigned line)
{
        const char *p = f->data, *end = f->data + f->len;

        for (unsigned i = 1; p <= end; i++) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                size_t n = nl ? (size_t) (nl - p) : (size_t) (end - p);

                if (i == line)
                        return xstrndup(p, n);
                if (!nl)
                        break;
                p = nl + 1;
        }
        return NULL;
}

static void check_error(const char *what, int r, const struct xerror *e)
{
        _cleanup_free_ char *s = xerror_format(e);

        fuzz_assert(r < 0, "%s: %d", what, r);
        fuzz_assert(e->message && e->message[0], "%s: error %d without a message", what, r);
        fuzz_assert(s && s[0], "%s: empty formatted error", what);
        if (e->file && find_file(e->file)) {
                _cleanup_free_ char *l = e->line > 0 ? line_of(find_file(e->file), e->line) : NULL;
                /* a file that ends without a newline has as many lines as it has line starts */
                fuzz_assert(e->line == 0 || l, "%s: error at %s:%u, past the end of the file", what, e->file,
                            e->line);
        }
}

static const struct profile_key *schema_key(const char *section, const char *key, size_t *ret_index)
{
        size_t n;
        const struct profile_key *k = knob_profile_keys(&n);

        for (size_t i = 0; i < n; i++)
                if (streq(k[i].section, section) && streq(k[i].key, key)) {
                        *ret_index = i;
                        return &k[i];
                }
        return NULL;
}

static void check_value(const struct profile_setting *s, const struct profile_key *k)
{
        const char *v = s->value;
        bool ok = false;

        fuzz_assert(v && v[0], "[%s] %s: empty value", s->section, s->key);
        fuzz_assert(!strpbrk(v, "\"\\\n\r;#") && !strchr(" \t", v[0]) && !strchr(" \t", v[strlen(v) - 1]),
                    "[%s] %s: value \"%s\" holds a quote, a backslash, a comment or a line break, or blanks",
                    s->section, s->key, v);
        fuzz_assert(s->keep == streq(v, "keep"), "[%s] %s = %s: keep is %d", s->section, s->key, v, s->keep);
        switch (k->type) {
        case PROFILE_CHOICE:
                for (size_t i = 0; k->choices[i]; i++)
                        ok = ok || streq(k->choices[i], v);
                fuzz_assert(ok, "[%s] %s = %s: not one of the choices", s->section, s->key, v);
                break;
        case PROFILE_INT_OR_KEEP:
                if (s->keep)
                        break;
                fuzz_assert(v[strspn(v, "0123456789")] == '\0' && strtol(v, NULL, 10) == s->number,
                            "[%s] %s = %s: number %ld", s->section, s->key, v, s->number);
                fuzz_assert(s->number >= k->min && s->number <= k->max, "[%s] %s = %ld: out of %ld..%ld",
                            s->section, s->key, s->number, k->min, k->max);
                break;
        case PROFILE_NAME:
        case PROFILE_TEXT:
                fuzz_assert(false, "[%s] %s: a knob of type %d", s->section, s->key, (int) k->type);
        }
}

/* line s->line of s->file is "key = value" under [section] */
static void check_origin(const struct profile_setting *s)
{
        const struct file *f = find_file(s->file);
        _cleanup_free_ char *line = NULL, *section = NULL;
        char *eq, *key, *value;

        fuzz_assert(f, "[%s] %s set in %s, a file we did not write", s->section, s->key, s->file);
        line = line_of(f, s->line);
        fuzz_assert(s->line > 0 && line, "[%s] %s: %s:%u past the end", s->section, s->key, s->file, s->line);
        eq = strchr(line, '=');
        fuzz_assert(eq, "[%s] %s: %s:%u has no '=': \"%s\"", s->section, s->key, s->file, s->line, line);
        *eq = '\0';
        key = strstrip(line);
        value = strstrip(eq + 1);
        fuzz_assert(streq(key, s->key) && streq(value, s->value), "[%s] %s = %s, but %s:%u says %s = %s",
                    s->section, s->key, s->value, s->file, s->line, key, value);
        for (unsigned i = s->line - 1; i > 0 && !section; i--) {
                _cleanup_free_ char *l = line_of(f, i);
                char *t = strstrip(l);
                if (t[0] == '[' && strchr(t, ']'))
                        section = xstrndup(t + 1, strcspn(t + 1, "]"));
        }
        fuzz_assert(section && streq(section, s->section), "[%s] %s at %s:%u is in section [%s]", s->section,
                    s->key, s->file, s->line, strempty(section));
}

static void check_profile(const struct profile *p, const char *name)
{
        size_t last = 0;

        fuzz_assert(streq(p->name, name), "loaded %s as %s", name, p->name);
        fuzz_assert(p->n_chain >= 1 && p->n_chain <= PROFILE_MAX_DEPTH, "chain of %zu", p->n_chain);
        fuzz_assert(streq(p->chain[0].name, name) && streq(p->path, p->chain[0].path), "chain does not start at %s",
                    name);
        for (size_t i = 0; i < p->n_chain; i++) {
                fuzz_assert(profile_name_valid(p->chain[i].name), "chain name \"%s\"", p->chain[i].name);
                fuzz_assert(find_file(p->chain[i].path), "chain file %s: not ours", p->chain[i].path);
                for (size_t j = 0; j < i; j++)
                        fuzz_assert(!streq(p->chain[i].path, p->chain[j].path), "%s twice in the chain",
                                    p->chain[i].path);
        }
        if (p->description)
                fuzz_assert(p->description[0] && !strpbrk(p->description, "\"\\\n\r"), "description \"%s\"",
                            p->description);
        for (size_t i = 0; i < p->n_settings; i++) {
                const struct profile_setting *s = &p->settings[i];
                const struct profile_key *k;
                size_t idx;
                bool in_chain = false;

                k = schema_key(s->section, s->key, &idx);
                fuzz_assert(k, "[%s] %s is not in the schema", s->section, s->key);
                fuzz_assert(i == 0 || idx > last, "[%s] %s out of schema order", s->section, s->key);
                last = idx;
                check_value(s, k);
                for (size_t j = 0; j < p->n_chain; j++)
                        in_chain = in_chain || (streq(p->chain[j].name, s->from) && streq(p->chain[j].path, s->file));
                fuzz_assert(in_chain, "[%s] %s from %s (%s), not in the chain", s->section, s->key, s->from, s->file);
                check_origin(s);
                fuzz_assert(profile_get(p, s->section, s->key) == s, "profile_get([%s] %s)", s->section, s->key);
        }
}

static void load(const char *root, const char *extra, const char *name)
{
        struct xerror e = {};
        struct profile *p = NULL;
        int r = profile_load(root, knob_profile_schema(), extra, name, &p, &e);

        if (r == 0) {
                fuzz_assert(p, "profile_load(%s) returned 0 and nothing", name);
                check_profile(p, name);
        } else {
                fuzz_assert(!p, "profile_load(%s) failed and returned a profile", name);
                check_error(name, r, &e);
        }
        profile_free(p);
        xerror_done(&e);
}

static void select_and_load(const char *root, const char *extra)
{
        _cleanup_free_ char *name = NULL, *reason = NULL;
        struct xerror e = {};
        int r = profile_select(root, NULL, "10", &name, &reason, &e);

        if (r == 0) {
                fuzz_assert(profile_name_valid(name), "selected \"%s\"", strempty(name));
                fuzz_assert(reason && reason[0], "selected %s without a reason", name);
                load(root, extra, name);
        } else {
                fuzz_assert(!name && !reason, "profile_select failed and returned a name");
                check_error("idlecfg.conf", r, &e);
        }
        xerror_done(&e);
}

static void list(const char *root, const char *extra)
{
        char **names = NULL;
        size_t n = 0;
        int r = profile_list(root, extra, &names, &n);

        fuzz_assert(r == 0, "profile_list: %d", r);
        for (size_t i = 0; i < n; i++) {
                fuzz_assert(profile_name_valid(names[i]), "listed \"%s\"", names[i]);
                fuzz_assert(i == 0 || strcmp(names[i - 1], names[i]) < 0, "list not sorted or not unique at %s",
                            names[i]);
        }
        profile_names_free(names, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct fuzz_part parts[MAX_FILES];
        _cleanup_free_ char *root = NULL, *extra = NULL;
        size_t n_parts;

        if (size > MAX_INPUT)
                return 0;
        root = xasprintf("%s/root", fuzz_scratch_dir());
        extra = xasprintf("%s/extra", fuzz_scratch_dir());
        fuzz_clear_dir(root);
        fuzz_clear_dir(extra);
        n_parts = fuzz_split(data, size, "%%", parts, MAX_FILES);

        n_files = 0;
        for (size_t i = 0; i < n_parts; i++) {
                char *hdr = parts[i].hdr ? strstrip(parts[i].hdr) : NULL;
                char *path = NULL, *display = NULL;

                if (!hdr) {
                        if (parts[i].len == 0 && n_parts > 1)
                                continue;
                        display = xasprintf("%s/etc/idlecfg/profiles/fuzz.profile", root);
                } else if (streq(hdr, "conf")) {
                        display = xasprintf("%s/etc/idlecfg/idlecfg.conf", root);
                } else if (startswith(hdr, "etc/") && profile_name_valid(hdr + 4)) {
                        display = xasprintf("%s/etc/idlecfg/profiles/%s.profile", root, hdr + 4);
                } else if (startswith(hdr, "extra/") && profile_name_valid(hdr + 6)) {
                        display = xasprintf("%s/%s.profile", extra, hdr + 6);
                } else if (profile_name_valid(hdr)) {
                        display = xasprintf("%s/usr/share/idlecfg/profiles/%s.profile", root, hdr);
                } else
                        continue;
                if (find_file(display)) {
                        free(display);
                        continue;       /* the first of two parts for one file wins */
                }
                path = display;
                fuzz_write_file(path, parts[i].data, parts[i].len);
                files[n_files++] = (struct file) { display, parts[i].data, parts[i].len };
        }

        load(root, extra, "fuzz");
        select_and_load(root, extra);
        list(root, extra);

        for (size_t i = 0; i < n_files; i++)
                free(files[i].display);
        fuzz_parts_free(parts, n_parts);
        return 0;
}
