/* hwdb-parse.c: .hwdb text into records as systemd-hwdb reads it, and their index */
#include "config.h"

#include <stdarg.h>

#include "db/hwdb-parse.h"

/* systemd's LONG_LINE_MAX: a line this long ends the file, what came before stays */
#define HWDB_LINE_MAX (1024u * 1024u)
/* how much of an offending line a message quotes */
#define QUOTE_MAX 80

void hwdb_set_error(struct xerror *ret_error, const char *file, unsigned line, const char *fmt, ...)
{
        va_list ap;
        char *msg;

        if (!ret_error)
                return;
        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) < 0)
                msg = NULL;
        va_end(ap);
        xerror_done(ret_error);
        *ret_error = (struct xerror) {
                .file = file ? xstrdup(file) : NULL,
                .line = line,
                .message = msg ? msg : xstrdup(""),
        };
}

int hwdb_warn_at(struct hwdb *h, bool strict, struct xerror *ret_error,
                 const char *file, unsigned line, const char *fmt, ...)
{
        va_list ap;
        char *msg;

        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) < 0)
                msg = xstrdup("");
        va_end(ap);

        GROW(h->warnings, h->n_warnings, h->cap_warnings);
        h->warnings[h->n_warnings++] = (struct xerror) {
                .file = xstrdup(file),
                .line = line,
                .message = msg,
        };
        if (!strict)
                return 0;
        hwdb_set_error(ret_error, file, line, "%s", msg);
        return -EINVAL;
}

static struct hwdb *hwdb_new(void)
{
        struct hwdb *h = xcalloc(1, sizeof(*h));

        /* fnmatch() ranges and classes follow LC_CTYPE/LC_COLLATE; systemd-hwdb
         * and udevd run in the C locale, so queries do too, whatever the CLI set */
        h->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t) 0);
        if (!h->c_locale) {
                int saved = errno;
                free(h);
                errno = saved;
                return NULL;
        }
        return h;
}

static bool is_space(char c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

/* the end-of-line bytes systemd's read_line() knows */
enum {
        EOL_NUL = 1 << 0,
        EOL_LF = 1 << 1,
        EOL_CR = 1 << 2,
};

static int eol_kind(char c)
{
        switch (c) {
        case '\0': return EOL_NUL;
        case '\n': return EOL_LF;
        case '\r': return EOL_CR;
        default: return 0;
        }
}

static bool key_wanted(const struct hwdb *h, const char *key)
{
        if (!h->keys)
                return true;
        for (const char *const *k = h->keys; *k; k++)
                if (startswith(key, *k))
                        return true;
        return false;
}

/* A record's matches become visible only once it has a property: until then
 * they sit at the end of matches[] and may be dropped. A record that sets no
 * key the caller reads is dropped as well: it cannot answer any of its
 * lookups, and the records kept keep their file and line, so which of them
 * wins a key is what it was. */
static void record_end(struct hwdb *h, size_t first_match, size_t first_prop)
{
        uint32_t n = (uint32_t) (h->n_props - first_prop);
        bool wanted = !h->keys;

        for (size_t i = first_prop; i < h->n_props && !wanted; i++)
                wanted = key_wanted(h, h->props[i].key);
        if (n == 0 || !wanted) {
                h->n_matches = first_match;
                h->n_props = first_prop;
                return;
        }
        for (size_t i = first_match; i < h->n_matches; i++) {
                h->matches[i].first_prop = (uint32_t) first_prop;
                h->matches[i].n_props = n;
        }
}

static void add_match(struct hwdb *h, const char *line)
{
        GROW(h->matches, h->n_matches, h->cap_matches);
        h->matches[h->n_matches++] = (struct match) {
                .pattern = line,
                .literal = (uint32_t) strcspn(line, "*?["),
        };
}

/* " KEY=VALUE", as systemd's insert_data() takes it apart */
static int add_prop(struct hwdb *h, bool strict, struct xerror *ret_error,
                    uint32_t file, unsigned line_number, char *line)
{
        char *eq = strchr(line, '='), *key;

        if (!eq)
                return hwdb_warn_at(h, strict, ret_error, h->paths[file], line_number,
                               _("Key-value pair expected but got \"%.*s\", ignoring."), QUOTE_MAX, line);
        *eq = '\0';
        /* systemd squeezes leading blanks down to one and keeps that one in the key */
        key = line;
        while (is_blank(key[0]) && is_blank(key[1]))
                key++;
        if (key[1] == '\0')
                return hwdb_warn_at(h, strict, ret_error, h->paths[file], line_number,
                               _("Empty key in \"%s=%.*s\", ignoring."), key, QUOTE_MAX, eq + 1);
        /* sd-hwdb silently drops keys that do not start with a space (reserved
         * for extensions); a tab there is a typo worth a warning */
        if (key[0] != ' ')
                return hwdb_warn_at(h, strict, ret_error, h->paths[file], line_number,
                               _("Property key \"%.*s\" is preceded by a tab, ignoring (systemd ignores it too)."),
                               QUOTE_MAX, key + 1);

        GROW(h->props, h->n_props, h->cap_props);
        h->props[h->n_props++] = (struct prop) {
                .key = key + 1,
                .value = eq + 1,
                .line = line_number,
                .file = file,
        };
        return 0;
}

/* systemd's import_file(): the same states, the same skipped lines and records */
/* past the end of a line at P: one line ends at a run of \n, \r and NUL
 * with no kind twice, and right after a NUL: "\r\n" and "\n\r" are one
 * end, "\n\n" two */
static char *skip_eol(char *p, const char *end)
{
        int seen = 0;

        while (p < end) {
                int k = eol_kind(*p);

                if (k == 0 || (seen & EOL_NUL) || (seen & k))
                        break;
                seen |= k;
                p++;
        }
        return p;
}

/* LINE (LEN bytes) cut at its COMMENT (NULL: none; a '#' anywhere starts a
 * comment, in values too) and its trailing blanks: its length now */
static size_t line_trim(char *line, size_t len, char *comment)
{
        if (comment) {
                *comment = '\0';
                len = (size_t) (comment - line);
        }
        while (len > 0 && is_space(line[len - 1]))
                len--;
        line[len] = '\0';
        return len;
}

int hwdb_parse_file(struct hwdb *h, uint32_t file, size_t size, bool strict, struct xerror *ret_error)
{
        char *p = h->data[file], *end = p + size;
        enum { HW_NONE, HW_MATCH, HW_DATA } state = HW_NONE;
        size_t first_match = h->n_matches, first_prop = h->n_props;
        unsigned line_number = 0;
        int r = 0;

        while (p < end) {
                char *line = p, *comment = NULL;
                size_t len;

                /* data[size] is a NUL, so strcspn() stops at the end too */
                p += strcspn(p, "\n\r#");
                if (*p == '#') {
                        comment = p;
                        p += strcspn(p, "\n\r");
                }
                len = (size_t) (p - line);
                if (len >= HWDB_LINE_MAX) {
                        /* read_line() fails: the rest of the file is not read */
                        r = hwdb_warn_at(h, strict, ret_error, h->paths[file], line_number + 1,
                                    _("Line longer than %u bytes, ignoring the rest of the file."),
                                    HWDB_LINE_MAX - 1);
                        if (r < 0)
                                return r;
                        if (state == HW_MATCH)
                                h->n_matches = first_match;
                        else if (state == HW_DATA)
                                record_end(h, first_match, first_prop);
                        return 0;
                }
                p = skip_eol(p, end);
                line[len] = '\0';
                line_number++;

                if (line[0] == '#')
                        continue;
                len = line_trim(line, len, comment);

                switch (state) {
                case HW_NONE:
                        if (len == 0)
                                break;
                        if (line[0] == ' ') {
                                r = hwdb_warn_at(h, strict, ret_error, h->paths[file], line_number,
                                            _("Match expected but got indented property \"%.*s\", ignoring line."),
                                            QUOTE_MAX, line);
                                if (r < 0)
                                        return r;
                                break;
                        }
                        state = HW_MATCH;
                        first_match = h->n_matches;
                        add_match(h, line);
                        break;

                case HW_MATCH:
                        if (len == 0) {
                                r = hwdb_warn_at(h, strict, ret_error, h->paths[file], line_number,
                                            _("Property expected, ignoring record with no properties."));
                                if (r < 0)
                                        return r;
                                h->n_matches = first_match;
                                state = HW_NONE;
                                break;
                        }
                        if (line[0] != ' ') {
                                add_match(h, line);
                                break;
                        }
                        state = HW_DATA;
                        first_prop = h->n_props;
                        r = add_prop(h, strict, ret_error, file, line_number, line);
                        if (r < 0)
                                return r;
                        break;

                case HW_DATA:
                        if (len == 0) {
                                record_end(h, first_match, first_prop);
                                state = HW_NONE;
                                break;
                        }
                        if (line[0] != ' ') {
                                /* the properties so far stay; this line starts nothing */
                                record_end(h, first_match, first_prop);
                                state = HW_NONE;
                                r = hwdb_warn_at(h, strict, ret_error, h->paths[file], line_number,
                                            _("Property or empty line expected, got \"%.*s\", ignoring record."),
                                            QUOTE_MAX, line);
                                if (r < 0)
                                        return r;
                                break;
                        }
                        r = add_prop(h, strict, ret_error, file, line_number, line);
                        if (r < 0)
                                return r;
                        break;
                }
        }

        if (state == HW_MATCH) {
                h->n_matches = first_match;
                r = hwdb_warn_at(h, strict, ret_error, h->paths[file], line_number,
                            _("Property expected, ignoring record with no properties."));
                if (r < 0)
                        return r;
        } else if (state == HW_DATA)
                record_end(h, first_match, first_prop);
        return 0;
}

void hwdb_build_index(struct hwdb *h)
{
        size_t n_slots = 64;

        /* the arrays grew by doubling; give back what the parse did not use */
        if (h->n_props > 0 && h->n_props < h->cap_props) {
                h->props = xrealloc(h->props, h->n_props * sizeof(*h->props));
                h->cap_props = h->n_props;
        }
        if (h->n_matches > 0 && h->n_matches < h->cap_matches) {
                h->matches = xrealloc(h->matches, h->n_matches * sizeof(*h->matches));
                h->cap_matches = h->n_matches;
        }

        while (n_slots < h->n_matches * 2)
                n_slots *= 2;
        free(h->slots);
        h->slots = xcalloc(n_slots, sizeof(*h->slots));
        h->mask = n_slots - 1;
        h->max_literal = 0;

        for (size_t i = 0; i < h->n_matches; i++) {
                struct match *m = &h->matches[i];
                uint32_t hash = HASH_INIT;
                size_t s;

                for (uint32_t k = 0; k < m->literal; k++)
                        hash = hwdb_hash_step(hash, m->pattern[k]);
                if (m->literal > h->max_literal)
                        h->max_literal = m->literal;

                for (s = hash & h->mask; h->slots[s].head; s = (s + 1) & h->mask) {
                        const struct match *o = &h->matches[h->slots[s].head - 1];

                        if (h->slots[s].hash == hash && o->literal == m->literal &&
                            memcmp(o->pattern, m->pattern, m->literal) == 0)
                                break;
                }
                m->next = h->slots[s].head;
                h->slots[s] = (struct slot) { .hash = hash, .head = (uint32_t) i + 1 };
        }
}

struct hwdb *hwdb_new_or_error(struct xerror *ret_error, int *ret_r)
{
        struct hwdb *h = hwdb_new();

        if (!h) {
                *ret_r = -errno;
                hwdb_set_error(ret_error, NULL, 0, _("Cannot create the C locale: %s"), strerror(errno));
        }
        return h;
}
