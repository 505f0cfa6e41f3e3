/* profile-file.c: one profile or idlecfg.conf: the schema, the file read
 * through rootfs.h's reader, checked line by line, then parsed by inih */
#include "config.h"

#include <ini.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "db/profile-file.h"
#include "root/rootfs.h"
#include "base/util.h"

/* inih copies section names into a 50-byte buffer (MAX_SECTION): a longer
 * name is cut silently. Key names share the limit so the rule is one. */
#define NAME_MAX_LEN 49
/* a profile is a page of settings; anything this big is not one */
#define FILE_MAX_SIZE (64 * 1024)

/* ---- schema ---- */

/* [profile] describes the profile itself; the knob keys after it are the
 * knob families' (src/knobs/X.c), which their registry adds
 * (knob_profile_schema()): this layer knows no family */
static const struct profile_key meta_keys[] = {
        { "profile", "inherit", PROFILE_NAME, NULL, 0, 0 },
        { "profile", "description", PROFILE_TEXT, NULL, 0, 0 },
};
_Static_assert(ELEMENTSOF(meta_keys) == PROFILE_N_META, "profile-file.h counts the [profile] keys");
#define N_META PROFILE_N_META

static const char *const ch_power_source[] = { "auto", "ac", "battery", NULL };
static const struct profile_key conf_keys[] = {
        { "main", "profile", PROFILE_NAME, NULL, 0, 0 },
        /* the power-source switch: auto decides from the supplies, ac or battery pins that source */
        { "power", "source", PROFILE_CHOICE, ch_power_source, 0, 0 },
        /* [exclude DEVICE]: a device idlecfg leaves alone, and why; which of its
         * knobs (names the knob registry checks, profile-select.c's caller) */
        { "exclude", "reason", PROFILE_TEXT, NULL, 0, 0 },
        { "exclude", "knobs", PROFILE_TEXT, NULL, 0, 0 },
};

static const struct profile_keyset conf_file_schema = { conf_keys, ELEMENTSOF(conf_keys), true, "exclude" };

const struct profile_keyset *profile_conf_schema(void)
{
        return &conf_file_schema;
}

const struct profile_key *profile_meta_keys(size_t *ret_n)
{
        *ret_n = N_META;
        return meta_keys;
}

static bool schema_has_section(const struct profile_keyset *s, const char *section)
{
        for (size_t i = 0; i < s->n; i++)
                if (streq(s->keys[i].section, section))
                        return true;
        return false;
}

const struct profile_key *profile_schema_find(const struct profile_keyset *s, const char *section, const char *key)
{
        for (size_t i = 0; i < s->n; i++)
                if (streq(s->keys[i].section, section) && streq(s->keys[i].key, key))
                        return &s->keys[i];
        return NULL;
}

static char *schema_sections(const struct profile_keyset *s)
{
        struct strbuf sb = {};

        for (size_t i = 0; i < s->n; i++) {
                if (i > 0 && streq(s->keys[i - 1].section, s->keys[i].section))
                        continue;
                sb_appendf(&sb, "%s%s", sb.len ? ", " : "", s->keys[i].section);
                if (streq_ptr(s->arg_section, s->keys[i].section))
                        sb_append(&sb, " DEVICE");       /* a placeholder of the syntax */
        }
        return sb_steal(&sb);
}

/* NAME, a section header's text, is "ARG_SECTION ARG" or ARG_SECTION alone:
 * the argument, blanks around it stripped ("" when there is none); NULL
 * when NAME is another section */
static char *arg_of(const struct profile_keyset *s, const char *name)
{
        size_t n = s->arg_section ? strlen(s->arg_section) : 0;
        _cleanup_free_ char *copy = NULL;

        if (!n || strncmp(name, s->arg_section, n) != 0 || (name[n] && name[n] != ' ' && name[n] != '\t'))
                return NULL;
        copy = xstrdup(name + n);
        return xstrdup(strstrip(copy));
}

static char *schema_keys_of(const struct profile_keyset *s, const char *section)
{
        struct strbuf sb = {};

        for (size_t i = 0; i < s->n; i++)
                if (streq(s->keys[i].section, section))
                        sb_appendf(&sb, "%s%s", sb.len ? ", " : "", s->keys[i].key);
        return sb_steal(&sb);
}

char *profile_join(const char *const *v, const char *sep)
{
        struct strbuf sb = {};

        for (size_t i = 0; v[i]; i++)
                sb_appendf(&sb, "%s%s", i ? sep : "", v[i]);
        return sb_steal(&sb);
}

/* ---- errors ---- */

void profile_set_error(struct xerror *e, const char *file, unsigned line, const char *fmt, ...)
{
        va_list ap;
        char *msg;

        if (!e)
                return;
        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) < 0)
                msg = NULL;
        va_end(ap);
        if (!msg)
                msg = xstrdup("out of memory");
        xerror_done(e);
        e->file = file ? xstrdup(file) : NULL;
        e->line = line;
        e->message = msg;
}

void profile_move_error(struct xerror *to, struct xerror *from)
{
        if (to) {
                xerror_done(to);
                *to = *from;
        } else
                xerror_done(from);
        *from = (struct xerror) {};
}

/* ---- names and values ---- */

bool profile_name_valid(const char *name)
{
        size_t n;

        if (!name || !name[0] || !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", name[0]))
                return false;
        n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_");
        return name[n] == '\0' && n <= PROFILE_NAME_MAX;
}

/* Decimal digits only: no sign, no spaces, no locale. strtol alone would
 * take "+5", " 5" and, in some locales, grouping characters. */
int profile_parse_number(const char *s, long *ret)
{
        char *end;
        long v;

        if (!s[0] || s[strspn(s, "0123456789")] != '\0')
                return -EINVAL;
        errno = 0;
        v = strtol(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (*end)
                return -EINVAL;
        *ret = v;
        return 0;
}

void profile_parsed_done(struct profile_parsed *p)
{
        for (size_t i = 0; i < p->n; i++) {
                free(p->v[i].value);
                free(p->v[i].battery);
                free(p->v[i].arg);
        }
        free(p->v);
        for (size_t i = 0; i < p->n_sections; i++)
                free(p->sections[i].arg);
        free(p->sections);
        *p = (struct profile_parsed) {};
}

const struct profile_entry *profile_parsed_find(const struct profile_parsed *p, const char *section, const char *key)
{
        for (size_t i = 0; i < p->n; i++)
                if (streq(p->v[i].def->section, section) && streq(p->v[i].def->key, key))
                        return &p->v[i];
        return NULL;
}

/* NULL when VALUE is fine; else the message, which names the valid values */
static char *check_value(const struct profile_key *k, const char *value, struct profile_entry *e)
{
        _cleanup_free_ char *valid = NULL;
        long v;
        int r;

        switch (k->type) {
        case PROFILE_CHOICE:
                valid = profile_join(k->choices, ", ");
                if (!value[0])
                        return xasprintf(_("missing value for [%s] %s; valid: %s"), k->section, k->key, valid);
                for (size_t i = 0; k->choices[i]; i++)
                        if (streq(k->choices[i], value)) {
                                e->keep = streq(value, "keep");
                                return NULL;
                        }
                return xasprintf(_("unknown value '%s' for [%s] %s; valid: %s"), value, k->section, k->key, valid);
        case PROFILE_INT_OR_KEEP:
                if (streq(value, "keep")) {
                        e->keep = true;
                        return NULL;
                }
                if (!value[0])
                        return xasprintf(_("missing value for [%s] %s; valid: keep or an integer %ld..%ld"),
                                         k->section, k->key, k->min, k->max);
                r = profile_parse_number(value, &v);
                if (r == -EINVAL)
                        return xasprintf(_("invalid value '%s' for [%s] %s; valid: keep or an integer %ld..%ld"),
                                         value, k->section, k->key, k->min, k->max);
                if (r < 0 || v < k->min || v > k->max)
                        return xasprintf(_("value %s for [%s] %s is out of range; valid: keep or an integer %ld..%ld"),
                                         value, k->section, k->key, k->min, k->max);
                e->number = v;
                return NULL;
        case PROFILE_NAME:
                if (!value[0])
                        return xasprintf(_("missing profile name for [%s] %s"), k->section, k->key);
                if (!profile_name_valid(value))
                        return xasprintf(_("invalid profile name '%s' for [%s] %s; use letters, digits, '-' and '_' (at most %d)"),
                                         value, k->section, k->key, PROFILE_NAME_MAX);
                return NULL;
        case PROFILE_TEXT:
                if (!value[0])
                        return xasprintf(_("missing value for [%s] %s"), k->section, k->key);
                /* Printed as is in plans and in comments of generated files:
                 * without the two characters those formats escape, it can be
                 * copied into any of them verbatim. */
                for (const char *c = value; *c; c++)
                        if (*c == '"' || *c == '\\')
                                return xasprintf(_("'%c' in [%s] %s: double quotes and backslashes are not allowed"),
                                                 *c, k->section, k->key);
                return NULL;
        }
        return xstrdup("?");
}

/* Is VALUE written per power source: a word "ac:..." or "battery:..."? */
static bool is_per_source(const char *value)
{
        for (const char *w = value; *w; w += strspn(w, " \t")) {
                if (startswith(w, "ac:") || startswith(w, "battery:"))
                        return true;
                w += strcspn(w, " \t");
        }
        return false;
}

/* "ac:A battery:B", in either order, each part a valid single value other
 * than keep: a switch needs a value to write for each source. NULL when fine
 * (E holds the AC value in value/number, the battery one in battery). */
static char *check_per_source(const struct profile_key *k, const char *value, struct profile_entry *e)
{
        _cleanup_free_ char *copy = xstrdup(value);
        char *part[2] = {}, *save = NULL;
        size_t n = 0;

        if (!k->per_source)
                return xasprintf(_("[%s] %s cannot take a value per power source: idlecfg cannot change it at "
                                   "run time (a kernel command-line word, a read-only parameter, or a setting a "
                                   "service applies); give it one value"), k->section, k->key);
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                bool ac = startswith(w, "ac:"), bat = startswith(w, "battery:");
                size_t i = bat ? 1 : 0;
                if (!ac && !bat)
                        return xasprintf(_("'%s' in [%s] %s: a value per power source is written "
                                           "\"ac:VALUE battery:VALUE\""), w, k->section, k->key);
                if (part[i])
                        return xasprintf(_("[%s] %s names the %s value twice"), k->section, k->key,
                                         bat ? "battery" : "ac");
                part[i] = w + (bat ? strlen("battery:") : strlen("ac:"));
                n++;
        }
        if (n != 2 || !part[0] || !part[1])
                return xasprintf(_("[%s] %s needs both values: \"ac:VALUE battery:VALUE\""), k->section, k->key);
        for (size_t i = 0; i < 2; i++) {
                struct profile_entry one = {};
                char *msg = check_value(k, part[i], &one);
                if (msg) {
                        char *m = xasprintf("%s (%s)", msg, i ? "battery" : "ac");
                        free(msg);
                        return m;
                }
                if (one.keep)
                        return xasprintf(_("keep cannot be the %s value of [%s] %s: a switch needs a value to "
                                           "write on both power sources"), i ? "battery" : "ac", k->section, k->key);
                if (i == 0) {
                        e->value = xstrdup(part[0]);
                        e->number = one.number;
                } else if (!streq(part[0], part[1])) {
                        e->battery = xstrdup(part[1]);
                        e->battery_number = one.number;
                }
        }
        return NULL;
}

/* ---- the installed inih ---- */

static char *probe_reader(_unused_ char *str, int num, void *stream)
{
        *(int *) stream = num;
        return NULL;
}

static int probe_handler(_unused_ void *user, _unused_ const char *section,
                         _unused_ const char *name, _unused_ const char *value)
{
        return 1;
}

/* The longest line the installed library reads in one piece, newline not
 * counted. Its buffer size is fixed when the library is built (INI_MAX_LINE,
 * 200 in Debian's), not by the header we compile against, so ask it: it
 * hands that size to the reader. A longer line comes back in pieces that
 * inih parses as lines of their own, numbering everything after it wrong. */
static size_t ini_line_limit(void)
{
        static int num;

        if (num == 0) {
                ini_parse_stream(probe_reader, &num, probe_handler, NULL);
                if (num < 3)
                        num = 3;
        }
        return (size_t) num - 2;        /* room for '\n' and '\0' */
}

/* ---- one file: our own line check, then inih ---- */

/* prescan(): the bytes of line LINE (P, N): a BOM, NUL, CR, control
 * characters, its length */
static int prescan_bytes(const char *p, size_t n, unsigned line, size_t limit, const char *file,
                         struct xerror *err)
{
        if (line == 1 && n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) {
                profile_set_error(err, file, line, _("byte order mark (BOM) at the start of the file; save it as UTF-8 without a BOM"));
                return -EINVAL;
        }
        for (size_t i = 0; i < n; i++) {
                unsigned char ch = (unsigned char) p[i];
                if (ch == '\0') {
                        profile_set_error(err, file, line, _("NUL byte in the line"));
                        return -EINVAL;
                }
                if (ch == '\r') {
                        if (i == n - 1)
                                profile_set_error(err, file, line, _("carriage return at the end of the line (CRLF line endings); convert the file to LF line endings"));
                        else
                                profile_set_error(err, file, line, _("carriage return inside the line"));
                        return -EINVAL;
                }
                if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
                        profile_set_error(err, file, line, _("control character 0x%02x in the line"), ch);
                        return -EINVAL;
                }
        }
        if (n > limit) {
                profile_set_error(err, file, line, _("line too long (%zu bytes, limit %zu)"), n, limit);
                return -EINVAL;
        }
        return 0;
}

/* prescan(): the section header REST ("[NAME]") of line LINE */
static int prescan_section(char *rest, unsigned line, const char *file, const struct profile_keyset *s,
                           struct xerror *err)
{
        _cleanup_free_ char *arg = NULL, *valid = NULL;
        char *close = strchr(rest, ']');

        if (!close) {
                profile_set_error(err, file, line, _("missing ']' in section header"));
                return -EINVAL;
        }
        if (close[1 + strspn(close + 1, " \t")]) {
                profile_set_error(err, file, line, _("unexpected text after ']'"));
                return -EINVAL;
        }
        *close = '\0';
        arg = arg_of(s, rest + 1);
        if (arg) {
                /* the reader hands inih "[NAME]" alone: no length limit for ARG */
                if (!arg[0]) {
                        profile_set_error(err, file, line, _("[%s] needs a device: [%s DEVICE]"),
                                          s->arg_section, s->arg_section);
                        return -EINVAL;
                }
                if (arg[strcspn(arg, " \t\"\\")]) {
                        profile_set_error(err, file, line, _("'%s' in [%s %s]: one device per "
                                                             "section, without blanks, double "
                                                             "quotes or backslashes"),
                                          arg, s->arg_section, arg);
                        return -EINVAL;
                }
                return 0;
        }
        if (strlen(rest + 1) > NAME_MAX_LEN) {
                profile_set_error(err, file, line, _("section name too long (%zu characters, limit %d)"),
                          strlen(rest + 1), NAME_MAX_LEN);
                return -EINVAL;
        }
        if (!schema_has_section(s, rest + 1)) {
                valid = schema_sections(s);
                profile_set_error(err, file, line, _("unknown section [%s]; valid: %s"), rest + 1, valid);
                return -EINVAL;
        }
        return 0;
}

/* Everything inih would accept silently but differently from what the
 * author meant: a long line (split), a long section name (cut), ';' after
 * a blank (a comment, or part of the value without the blank), indented
 * lines (continuations), a BOM or CR (dropped), text after ']' (ignored),
 * "key: value" (accepted), a key before any section (section "").
 * Sets *ret_stop to the offset of the bad line. */
static int prescan(const char *buf, size_t len, const char *file, const struct profile_keyset *s,
                   struct xerror *err, size_t *ret_stop)
{
        const char *p = buf, *end = buf + len;
        size_t limit = ini_line_limit();
        bool in_section = false;

        for (unsigned line = 1; p < end; line++) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                size_t n = nl ? (size_t) (nl - p) : (size_t) (end - p);
                _cleanup_free_ char *copy = NULL;
                char *rest, *c;

                *ret_stop = (size_t) (p - buf);
                if (prescan_bytes(p, n, line, limit, file, err) < 0)
                        return -EINVAL;
                copy = xstrndup(p, n);
                p = nl ? nl + 1 : end;
                rest = copy + strspn(copy, " \t");
                if (!*rest || *rest == ';' || *rest == '#')
                        continue;
                if (rest != copy) {
                        profile_set_error(err, file, line, _("indented line: continuation lines are not supported; start sections and keys at the beginning of the line"));
                        return -EINVAL;
                }
                c = strpbrk(rest, ";#");
                if (c) {
                        profile_set_error(err, file, line, _("'%c' inside a line: inline comments are not supported; put the comment on a line of its own"), *c);
                        return -EINVAL;
                }
                if (*rest == '[') {
                        if (prescan_section(rest, line, file, s, err) < 0)
                                return -EINVAL;
                        in_section = true;
                } else {
                        char *sep = strpbrk(rest, "=:"), *name;

                        if (!sep) {
                                profile_set_error(err, file, line, _("expected 'key = value', '[section]' or a comment"));
                                return -EINVAL;
                        }
                        if (*sep == ':') {
                                profile_set_error(err, file, line, _("':' between key and value; use '='"));
                                return -EINVAL;
                        }
                        *sep = '\0';
                        name = strstrip(rest);
                        if (!name[0]) {
                                profile_set_error(err, file, line, _("missing key name before '='"));
                                return -EINVAL;
                        }
                        if (strlen(name) > NAME_MAX_LEN) {
                                profile_set_error(err, file, line, _("key name too long (%zu characters, limit %d)"),
                                          strlen(name), NAME_MAX_LEN);
                                return -EINVAL;
                        }
                        if (!in_section) {
                                profile_set_error(err, file, line, _("key '%s' before the first [section]"), name);
                                return -EINVAL;
                        }
                }
        }
        *ret_stop = len;
        return 0;
}

struct reader {
        const char *p, *end;
        unsigned line;
        bool overflow;
        /* the keyset's arg_section: its headers go to inih as "[NAME]" and
         * are kept here, the current one's argument in arg (NULL: another
         * section) */
        const struct profile_keyset *schema;
        struct profile_parsed *out;
        const char *arg;
        unsigned arg_line;
};

/* a header "[NAME ARG]" of the arg_section at LINE (N bytes, prescan
 * checked): true, with "[NAME]\n" in STR; else the current section is
 * another one's, if LINE is a header at all */
static bool reader_arg_section(struct reader *rd, const char *line, size_t n, char *str)
{
        _cleanup_free_ char *name = NULL;
        const char *close;
        char *arg;

        if (n == 0 || line[0] != '[' || !(close = memchr(line, ']', n)))
                return false;
        name = xstrndup(line + 1, (size_t) (close - line - 1));
        arg = arg_of(rd->schema, name);
        rd->arg = NULL;
        if (!arg)
                return false;
        rd->out->sections = xrealloc(rd->out->sections, (rd->out->n_sections + 1) * sizeof(*rd->out->sections));
        rd->out->sections[rd->out->n_sections++] = (struct profile_section) { .arg = arg, .line = rd->line };
        rd->arg = arg;
        rd->arg_line = rd->line;
        sprintf(str, "[%s]\n", rd->schema->arg_section);
        return true;
}

/* One line per call, so the line number of the handler's key is ours to
 * count. Comment lines go in empty: which comment characters the library
 * knows is its build's choice, not ours. */
static char *reader_line(char *str, int num, void *stream)
{
        struct reader *rd = stream;
        const char *nl, *start;
        size_t n;

        if (rd->p >= rd->end || num < 2)
                return NULL;
        nl = memchr(rd->p, '\n', (size_t) (rd->end - rd->p));
        n = nl ? (size_t) (nl - rd->p) + 1 : (size_t) (rd->end - rd->p);
        start = rd->p + strspn(rd->p, " \t");
        rd->line++;
        if (start < rd->p + n && (*start == ';' || *start == '#')) {
                rd->p += n;
                strcpy(str, "\n");
                return str;
        }
        if (rd->schema->arg_section && strlen(rd->schema->arg_section) + 4 <= (size_t) num &&
            reader_arg_section(rd, rd->p, n, str)) {
                rd->p += n;
                return str;
        }
        if (n > (size_t) num - 1) {
                rd->overflow = true;
                n = (size_t) num - 1;
        }
        memcpy(str, rd->p, n);
        str[n] = '\0';
        rd->p += n;
        return str;
}

struct parse_state {
        const struct profile_keyset *schema;
        const char *file;
        struct reader *rd;
        struct profile_parsed *out;
        struct xerror err;
        bool failed;
};

static int handler(void *user, const char *section, const char *name, const char *value)
{
        struct parse_state *st = user;
        const struct profile_key *k;
        struct profile_entry e = {};
        char *msg;

        if (st->failed)
                return 1;       /* the first error is the one we report */
        k = profile_schema_find(st->schema, section, name);
        if (!k) {
                _cleanup_free_ char *valid = schema_keys_of(st->schema, section);
                profile_set_error(&st->err, st->file, st->rd->line, _("unknown key '%s' in [%s]; valid: %s"),
                          name, section, valid);
                st->failed = true;
                return 0;
        }
        for (size_t i = 0; i < st->out->n; i++)
                if (st->out->v[i].def == k && streq_ptr(st->out->v[i].arg, st->rd->arg) &&
                    (!st->rd->arg || st->out->v[i].section_line == st->rd->arg_line)) {
                        if (st->rd->arg)
                                profile_set_error(&st->err, st->file, st->rd->line,
                                                  _("[%s %s] %s set twice (first at line %u)"), section,
                                                  st->rd->arg, name, st->out->v[i].line);
                        else
                                profile_set_error(&st->err, st->file, st->rd->line,
                                                  _("[%s] %s set twice (first at line %u)"), section, name,
                                                  st->out->v[i].line);
                        st->failed = true;
                        return 0;
                }
        if (!streq(section, "profile") && is_per_source(value))
                msg = check_per_source(k, value, &e);
        else
                msg = check_value(k, value, &e);
        if (msg) {
                profile_set_error(&st->err, st->file, st->rd->line, "%s", msg);
                free(msg);
                free(e.value);
                free(e.battery);
                st->failed = true;
                return 0;
        }
        e.def = k;
        if (!e.value)
                e.value = xstrdup(value);
        e.line = st->rd->line;
        if (st->rd->arg && streq(section, st->schema->arg_section)) {
                e.arg = xstrdup(st->rd->arg);
                e.section_line = st->rd->arg_line;
        }
        st->out->v = xrealloc(st->out->v, (st->out->n + 1) * sizeof(*st->out->v));
        st->out->v[st->out->n++] = e;
        return 1;
}

/* Parse BUF; on error the one nearest the top of the file is reported,
 * whether our line check or the schema found it. */
int profile_parse_buffer(const char *buf, size_t len, const char *file, const struct profile_keyset *s,
                         struct profile_parsed *ret, struct xerror *err)
{
        struct xerror scan_err = {};
        struct profile_parsed out = {};
        size_t stop = len;
        struct reader rd;
        struct parse_state st;
        int r, ir;

        if (len == 0) {
                if (s->allow_empty) {
                        *ret = out;
                        return 0;
                }
                profile_set_error(err, file, 0, _("file is empty"));
                return -EINVAL;
        }
        r = prescan(buf, len, file, s, &scan_err, &stop);
        /* inih gets only the lines before the first bad one: those are
         * known to reach it whole and unaltered */
        rd = (struct reader) { .p = buf, .end = buf + stop, .schema = s, .out = &out };
        st = (struct parse_state) { .schema = s, .file = file, .rd = &rd, .out = &out };
        ir = ini_parse_stream(reader_line, &rd, handler, &st);
        if (st.failed) {
                xerror_done(&scan_err);
                profile_move_error(err, &st.err);
                profile_parsed_done(&out);
                return -EINVAL;
        }
        xerror_done(&st.err);
        if (r < 0) {
                profile_move_error(err, &scan_err);
                profile_parsed_done(&out);
                return r;
        }
        /* the same device in two sections: which reason would hold? */
        for (size_t i = 0; r >= 0 && i < out.n_sections; i++)
                for (size_t k = 0; k < i; k++)
                        if (streq(out.sections[k].arg, out.sections[i].arg)) {
                                profile_set_error(err, file, out.sections[i].line,
                                                  _("[%s %s] given twice (first at line %u)"), s->arg_section,
                                                  out.sections[i].arg, out.sections[k].line);
                                profile_parsed_done(&out);
                                return -EINVAL;
                        }
        if (rd.overflow || ir != 0) {
                /* cannot happen after prescan; if it does, say so rather than guess */
                profile_set_error(err, file, ir > 0 ? (unsigned) ir : rd.line, _("inih could not parse this line"));
                profile_parsed_done(&out);
                return -EINVAL;
        }
        if (out.n == 0 && !s->allow_empty) {
                profile_set_error(err, file, 0, _("no settings: only comments, blank lines or empty sections"));
                return -EINVAL;
        }
        *ret = out;
        return 0;
}

/* ---- files inside a root ---- */

/* rootfs.h's reader, its answers in the words of a profile's errors */
int profile_read_file(const struct rootfs *rfs, const char *path, const char *display, char **ret,
                      size_t *ret_len, struct xerror *err)
{
        _cleanup_close_ int fd = rootfs_open_file(rfs, path, 0, FILE_MAX_SIZE, NULL);
        int r;

        /* a link to nothing in the root: the profile is not there */
        if (fd == -ENOENT || fd == -ENOTDIR || fd == -ENOLINK)
                return -ENOENT;
        switch (fd) {
        case -EISDIR:
        case -EBADFD:
        case -EFBIG: {
                /* the reader's words: a directory, a FIFO, a socket, a device
                 * node, over the limit (a sparse file of gigabytes is refused
                 * before anything is read) */
                _cleanup_free_ char *why = rootfs_why(rfs, path, fd, FILE_MAX_SIZE);
                profile_set_error(err, display, 0, "%s", why);
                return fd == -EBADFD ? -EINVAL : fd;
        }
        case -EXDEV: {
                /* a link out of the root names a file of the machine idlecfg
                 * runs on, not of the target: refused, never taken as absent */
                _cleanup_free_ char *why = rootfs_why(rfs, path, fd, FILE_MAX_SIZE);
                profile_set_error(err, display, 0, _("%s; idlecfg reads nothing outside the root"), why);
                return -EINVAL;
        }
        default:
                if (fd < 0) {
                        profile_set_error(err, display, 0, _("cannot open: %s"), strerror(-fd));
                        return fd;
                }
        }
        r = read_fd_full(fd, FILE_MAX_SIZE, ret, ret_len);
        if (r == -EFBIG) {
                /* grown since it was opened */
                _cleanup_free_ char *why = rootfs_read_strerror(r, FILE_MAX_SIZE);
                profile_set_error(err, display, 0, "%s", why);
        } else if (r < 0)
                profile_set_error(err, display, 0, _("cannot read: %s"), strerror(-r));
        return r;
}
