/* profile.c: read profiles and idlecfg.conf with inih, checked line by line first */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "knobs/knob.h"
#include "profile.h"
#include "rootfs.h"
#include "util.h"

#ifndef SYSCONFDIR
# define SYSCONFDIR "/etc"
#endif
#ifndef PKGDATADIR
# define PKGDATADIR "/usr/share/idlecfg"
#endif

#define PROFILE_SUFFIX ".profile"
/* inih copies section names into a 50-byte buffer (MAX_SECTION): a longer
 * name is cut silently. Key names share the limit so the rule is one. */
#define NAME_MAX_LEN 49
/* a profile is a page of settings; anything this big is not one */
#define FILE_MAX_SIZE (64 * 1024)

/* ---- schema ---- */

/* [profile] describes the profile itself; the knob keys after it are the
 * knob families' (src/knobs/X.c), in registry order, grouped by section: the
 * list of valid sections is read off this table */
static const struct profile_key meta_keys[] = {
        { "profile", "inherit", PROFILE_NAME, NULL, 0, 0 },
        { "profile", "description", PROFILE_TEXT, NULL, 0, 0 },
};
#define N_META ELEMENTSOF(meta_keys)

static const struct profile_key conf_keys[] = {
        { "main", "profile", PROFILE_NAME, NULL, 0, 0 },
};

struct schema {
        const struct profile_key *keys;
        size_t n;
        bool allow_empty;       /* idlecfg.conf may be all comments */
};

static const struct schema conf_file_schema = { conf_keys, ELEMENTSOF(conf_keys), true };

/* meta_keys, then the registry's keys; built once, kept for the program's life */
static const struct schema *profile_file_schema(void)
{
        static struct schema s;

        if (!s.keys) {
                size_t n;
                const struct profile_key *knob = knob_profile_keys(&n);
                struct profile_key *keys = xcalloc(N_META + n, sizeof(*keys));

                memcpy(keys, meta_keys, sizeof(meta_keys));
                memcpy(keys + N_META, knob, n * sizeof(*keys));
                s = (struct schema) { keys, N_META + n, false };
        }
        return &s;
}

const struct profile_key *profile_schema(size_t *ret_n)
{
        const struct schema *s = profile_file_schema();

        *ret_n = s->n - N_META;
        return s->keys + N_META;
}

static bool schema_has_section(const struct schema *s, const char *section)
{
        for (size_t i = 0; i < s->n; i++)
                if (streq(s->keys[i].section, section))
                        return true;
        return false;
}

static const struct profile_key *schema_find(const struct schema *s, const char *section, const char *key)
{
        for (size_t i = 0; i < s->n; i++)
                if (streq(s->keys[i].section, section) && streq(s->keys[i].key, key))
                        return &s->keys[i];
        return NULL;
}

static char *schema_sections(const struct schema *s)
{
        struct strbuf sb = {};

        for (size_t i = 0; i < s->n; i++) {
                if (i > 0 && streq(s->keys[i - 1].section, s->keys[i].section))
                        continue;
                sb_appendf(&sb, "%s%s", sb.len ? ", " : "", s->keys[i].section);
        }
        return sb_steal(&sb);
}

static char *schema_keys_of(const struct schema *s, const char *section)
{
        struct strbuf sb = {};

        for (size_t i = 0; i < s->n; i++)
                if (streq(s->keys[i].section, section))
                        sb_appendf(&sb, "%s%s", sb.len ? ", " : "", s->keys[i].key);
        return sb_steal(&sb);
}

static char *join(const char *const *v, const char *sep)
{
        struct strbuf sb = {};

        for (size_t i = 0; v[i]; i++)
                sb_appendf(&sb, "%s%s", i ? sep : "", v[i]);
        return sb_steal(&sb);
}

/* ---- errors ---- */

_printf_(4, 5)
static void set_error(struct xerror *e, const char *file, unsigned line, const char *fmt, ...)
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

static void move_error(struct xerror *to, struct xerror *from)
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
static int parse_number(const char *s, long *ret)
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

struct entry {
        const struct profile_key *def;
        char *value;
        long number;
        bool keep;
        char *battery;          /* per-source: the battery value, value the AC one */
        long battery_number;
        unsigned line;
};

struct parsed {
        struct entry *v;
        size_t n;
};

static void parsed_done(struct parsed *p)
{
        for (size_t i = 0; i < p->n; i++) {
                free(p->v[i].value);
                free(p->v[i].battery);
        }
        free(p->v);
        *p = (struct parsed) {};
}

static const struct entry *parsed_find(const struct parsed *p, const char *section, const char *key)
{
        for (size_t i = 0; i < p->n; i++)
                if (streq(p->v[i].def->section, section) && streq(p->v[i].def->key, key))
                        return &p->v[i];
        return NULL;
}

/* NULL when VALUE is fine; else the message, which names the valid values */
static char *check_value(const struct profile_key *k, const char *value, struct entry *e)
{
        _cleanup_free_ char *valid = NULL;
        long v;
        int r;

        switch (k->type) {
        case PROFILE_CHOICE:
                valid = join(k->choices, ", ");
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
                r = parse_number(value, &v);
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
static char *check_per_source(const struct profile_key *k, const char *value, struct entry *e)
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
                struct entry one = {};
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

/* Everything inih would accept silently but differently from what the
 * author meant: a long line (split), a long section name (cut), ';' after
 * a blank (a comment, or part of the value without the blank), indented
 * lines (continuations), a BOM or CR (dropped), text after ']' (ignored),
 * "key: value" (accepted), a key before any section (section "").
 * Sets *ret_stop to the offset of the bad line. */
static int prescan(const char *buf, size_t len, const char *file, const struct schema *s,
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
                if (line == 1 && n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) {
                        set_error(err, file, line, _("byte order mark (BOM) at the start of the file; save it as UTF-8 without a BOM"));
                        return -EINVAL;
                }
                for (size_t i = 0; i < n; i++) {
                        unsigned char ch = (unsigned char) p[i];
                        if (ch == '\0') {
                                set_error(err, file, line, _("NUL byte in the line"));
                                return -EINVAL;
                        }
                        if (ch == '\r') {
                                if (i == n - 1)
                                        set_error(err, file, line, _("carriage return at the end of the line (CRLF line endings); convert the file to LF line endings"));
                                else
                                        set_error(err, file, line, _("carriage return inside the line"));
                                return -EINVAL;
                        }
                        if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
                                set_error(err, file, line, _("control character 0x%02x in the line"), ch);
                                return -EINVAL;
                        }
                }
                if (n > limit) {
                        set_error(err, file, line, _("line too long (%zu bytes, limit %zu)"), n, limit);
                        return -EINVAL;
                }

                copy = xstrndup(p, n);
                p = nl ? nl + 1 : end;
                rest = copy + strspn(copy, " \t");
                if (!*rest || *rest == ';' || *rest == '#')
                        continue;
                if (rest != copy) {
                        set_error(err, file, line, _("indented line: continuation lines are not supported; start sections and keys at the beginning of the line"));
                        return -EINVAL;
                }
                c = strpbrk(rest, ";#");
                if (c) {
                        set_error(err, file, line, _("'%c' inside a line: inline comments are not supported; put the comment on a line of its own"), *c);
                        return -EINVAL;
                }
                if (*rest == '[') {
                        char *close = strchr(rest, ']');
                        _cleanup_free_ char *valid = NULL;

                        if (!close) {
                                set_error(err, file, line, _("missing ']' in section header"));
                                return -EINVAL;
                        }
                        if (close[1 + strspn(close + 1, " \t")]) {
                                set_error(err, file, line, _("unexpected text after ']'"));
                                return -EINVAL;
                        }
                        *close = '\0';
                        if (strlen(rest + 1) > NAME_MAX_LEN) {
                                set_error(err, file, line, _("section name too long (%zu characters, limit %d)"),
                                          strlen(rest + 1), NAME_MAX_LEN);
                                return -EINVAL;
                        }
                        if (!schema_has_section(s, rest + 1)) {
                                valid = schema_sections(s);
                                set_error(err, file, line, _("unknown section [%s]; valid: %s"), rest + 1, valid);
                                return -EINVAL;
                        }
                        in_section = true;
                } else {
                        char *sep = strpbrk(rest, "=:"), *name;

                        if (!sep) {
                                set_error(err, file, line, _("expected 'key = value', '[section]' or a comment"));
                                return -EINVAL;
                        }
                        if (*sep == ':') {
                                set_error(err, file, line, _("':' between key and value; use '='"));
                                return -EINVAL;
                        }
                        *sep = '\0';
                        name = strstrip(rest);
                        if (!name[0]) {
                                set_error(err, file, line, _("missing key name before '='"));
                                return -EINVAL;
                        }
                        if (strlen(name) > NAME_MAX_LEN) {
                                set_error(err, file, line, _("key name too long (%zu characters, limit %d)"),
                                          strlen(name), NAME_MAX_LEN);
                                return -EINVAL;
                        }
                        if (!in_section) {
                                set_error(err, file, line, _("key '%s' before the first [section]"), name);
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
};

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
        const struct schema *schema;
        const char *file;
        struct reader *rd;
        struct parsed *out;
        struct xerror err;
        bool failed;
};

static int handler(void *user, const char *section, const char *name, const char *value)
{
        struct parse_state *st = user;
        const struct profile_key *k;
        struct entry e = {};
        char *msg;

        if (st->failed)
                return 1;       /* the first error is the one we report */
        k = schema_find(st->schema, section, name);
        if (!k) {
                _cleanup_free_ char *valid = schema_keys_of(st->schema, section);
                set_error(&st->err, st->file, st->rd->line, _("unknown key '%s' in [%s]; valid: %s"),
                          name, section, valid);
                st->failed = true;
                return 0;
        }
        for (size_t i = 0; i < st->out->n; i++)
                if (st->out->v[i].def == k) {
                        set_error(&st->err, st->file, st->rd->line, _("[%s] %s set twice (first at line %u)"),
                                  section, name, st->out->v[i].line);
                        st->failed = true;
                        return 0;
                }
        if (!streq(section, "profile") && is_per_source(value))
                msg = check_per_source(k, value, &e);
        else
                msg = check_value(k, value, &e);
        if (msg) {
                set_error(&st->err, st->file, st->rd->line, "%s", msg);
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
        st->out->v = xrealloc(st->out->v, (st->out->n + 1) * sizeof(*st->out->v));
        st->out->v[st->out->n++] = e;
        return 1;
}

/* Parse BUF; on error the one nearest the top of the file is reported,
 * whether our line check or the schema found it. */
static int parse_buffer(const char *buf, size_t len, const char *file, const struct schema *s,
                        struct parsed *ret, struct xerror *err)
{
        struct xerror scan_err = {};
        struct parsed out = {};
        size_t stop = len;
        struct reader rd;
        struct parse_state st;
        int r, ir;

        if (len == 0) {
                if (s->allow_empty) {
                        *ret = out;
                        return 0;
                }
                set_error(err, file, 0, _("file is empty"));
                return -EINVAL;
        }
        r = prescan(buf, len, file, s, &scan_err, &stop);
        /* inih gets only the lines before the first bad one: those are
         * known to reach it whole and unaltered */
        rd = (struct reader) { .p = buf, .end = buf + stop };
        st = (struct parse_state) { .schema = s, .file = file, .rd = &rd, .out = &out };
        ir = ini_parse_stream(reader_line, &rd, handler, &st);
        if (st.failed) {
                xerror_done(&scan_err);
                move_error(err, &st.err);
                parsed_done(&out);
                return -EINVAL;
        }
        xerror_done(&st.err);
        if (r < 0) {
                move_error(err, &scan_err);
                parsed_done(&out);
                return r;
        }
        if (rd.overflow || ir != 0) {
                /* cannot happen after prescan; if it does, say so rather than guess */
                set_error(err, file, ir > 0 ? (unsigned) ir : rd.line, _("inih could not parse this line"));
                parsed_done(&out);
                return -EINVAL;
        }
        if (out.n == 0 && !s->allow_empty) {
                set_error(err, file, 0, _("no settings: only comments, blank lines or empty sections"));
                return -EINVAL;
        }
        *ret = out;
        return 0;
}

/* ---- files inside a root ---- */

/* FD was opened O_NONBLOCK so that a FIFO cannot hang us; only regular
 * files are read. */
static int read_fd(int fd, const char *file, char **ret, size_t *ret_len, struct xerror *err)
{
        struct strbuf sb = {};
        struct stat st;
        char buf[8192];

        if (fstat(fd, &st) < 0) {
                int r = -errno;
                set_error(err, file, 0, _("cannot read: %s"), strerror(-r));
                return r;
        }
        if (!S_ISREG(st.st_mode)) {
                set_error(err, file, 0, S_ISDIR(st.st_mode) ? _("is a directory, not a file") : _("not a regular file"));
                return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
        }
        /* a sparse file of gigabytes is refused before anything is read */
        if (st.st_size > FILE_MAX_SIZE) {
                set_error(err, file, 0, _("file too large (more than %d bytes)"), FILE_MAX_SIZE);
                return -EFBIG;
        }
        for (;;) {
                ssize_t n = read(fd, buf, sizeof(buf));
                if (n < 0) {
                        int r = -errno;
                        if (r == -EINTR)
                                continue;
                        sb_free(&sb);
                        set_error(err, file, 0, _("cannot read: %s"), strerror(-r));
                        return r;
                }
                if (n == 0)
                        break;
                if (sb.len + (size_t) n > FILE_MAX_SIZE) {
                        sb_free(&sb);
                        set_error(err, file, 0, _("file too large (more than %d bytes)"), FILE_MAX_SIZE);
                        return -EFBIG;
                }
                sb_appendn(&sb, buf, (size_t) n);
        }
        *ret_len = sb.len;
        *ret = sb_steal(&sb);
        return 0;
}

struct search_dir {
        char *path;             /* inside the root when in_root */
        char *display;          /* as a user finds it on this machine */
        bool in_root;
};

static char *strip_slashes(const char *dir)
{
        char *s = xstrdup(dir);
        size_t n = strlen(s);

        while (n > 1 && s[n - 1] == '/')
                s[--n] = '\0';
        return s;
}

static size_t search_dirs(const char *root, const char *extra_dir, struct search_dir dirs[static 3])
{
        bool host = root_is_host(root);
        size_t n = 0;

        if (host)
                dirs[n++] = (struct search_dir) { xstrdup(SYSCONFDIR "/idlecfg/profiles"),
                                                  xstrdup(SYSCONFDIR "/idlecfg/profiles"), false };
        else
                dirs[n++] = (struct search_dir) { xstrdup("/etc/idlecfg/profiles"),
                                                  root_path(root, "/etc/idlecfg/profiles"), true };
        if (extra_dir)
                dirs[n++] = (struct search_dir) { strip_slashes(extra_dir), strip_slashes(extra_dir), false };
        if (host)
                dirs[n++] = (struct search_dir) { xstrdup(PKGDATADIR "/profiles"),
                                                  xstrdup(PKGDATADIR "/profiles"), false };
        else
                dirs[n++] = (struct search_dir) { xstrdup("/usr/share/idlecfg/profiles"),
                                                  root_path(root, "/usr/share/idlecfg/profiles"), true };
        return n;
}

static void search_dirs_free(struct search_dir *dirs, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(dirs[i].path);
                free(dirs[i].display);
        }
}

static char *dirs_string(const struct search_dir *dirs, size_t from, size_t n)
{
        struct strbuf sb = {};

        for (size_t i = from; i < n; i++)
                sb_appendf(&sb, "%s%s", i > from ? ", " : "", dirs[i].display);
        return sb_steal(&sb);
}

/* A file of the root through rootfs.h's resolver (links resolve inside the
 * root); on the host every search directory is in the root "/". Only
 * --profiles-dir with --root is a host path outside the root. */
static int open_file(const struct rootfs *rfs, const char *path, bool in_root)
{
        int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
        int fd;

        if (in_root || root_is_host(rfs->path))
                return rfs->fd < 0 ? -ENOENT : rootfs_openat(rfs, path, flags);
        fd = open(path, flags);
        return fd < 0 ? -errno : fd;
}

/* First NAME.profile at or after dirs[from]; -ENOENT when there is none.
 * A file that exists but cannot be opened is an error, not a miss: skipping
 * it would silently drop an admin's override. */
static int find_profile(const struct rootfs *rfs, const struct search_dir *dirs, size_t n_dirs, size_t from,
                        const char *name, char **ret_display, size_t *ret_index, char **ret_buf,
                        size_t *ret_len, struct xerror *err)
{
        for (size_t i = from; i < n_dirs; i++) {
                _cleanup_free_ char *path = xasprintf("%s/%s" PROFILE_SUFFIX, dirs[i].path, name);
                _cleanup_free_ char *display = xasprintf("%s/%s" PROFILE_SUFFIX, dirs[i].display, name);
                _cleanup_close_ int fd = open_file(rfs, path, dirs[i].in_root);
                int r;

                if (fd == -ENOENT || fd == -ENOTDIR)
                        continue;
                if (fd < 0) {
                        set_error(err, display, 0, _("cannot open: %s"), strerror(-fd));
                        return fd;
                }
                r = read_fd(fd, display, ret_buf, ret_len, err);
                if (r < 0)
                        return r;
                *ret_display = TAKE_PTR(display);
                *ret_index = i;
                return 0;
        }
        return -ENOENT;
}

/* ---- listing ---- */

void profile_names_free(char **names, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
}

int profile_list_rootfs(const struct rootfs *rfs, const char *extra_dir, char ***ret_names, size_t *ret_n)
{
        const char *root = rfs->path;
        struct search_dir dirs[3];
        size_t n_dirs = search_dirs(root, extra_dir, dirs);
        char **names = NULL;
        size_t n = 0, j = 0;

        for (size_t i = 0; i < n_dirs; i++) {
                int fd = open_file(rfs, dirs[i].path, dirs[i].in_root);
                struct dirent *de;
                DIR *d;

                if (fd < 0)
                        continue;       /* a missing directory has no profiles */
                d = fdopendir(fd);
                if (!d) {
                        close(fd);
                        continue;
                }
                while ((de = readdir(d))) {
                        size_t l = strlen(de->d_name);
                        _cleanup_free_ char *name = NULL;

                        if (l <= strlen(PROFILE_SUFFIX) || !streq(de->d_name + l - strlen(PROFILE_SUFFIX), PROFILE_SUFFIX))
                                continue;
                        name = xstrndup(de->d_name, l - strlen(PROFILE_SUFFIX));
                        if (!profile_name_valid(name))
                                continue;
                        names = xrealloc(names, (n + 1) * sizeof(*names));
                        names[n++] = TAKE_PTR(name);
                }
                closedir(d);
        }
        search_dirs_free(dirs, n_dirs);
        if (n > 0)
                qsort(names, n, sizeof(*names), strv_cmp);
        for (size_t i = 0; i < n; i++) {
                if (j > 0 && streq(names[j - 1], names[i])) {
                        free(names[i]);
                        continue;
                }
                names[j++] = names[i];
        }
        *ret_names = names;
        *ret_n = j;
        return 0;
}

/* ---- loading a chain ---- */

struct loaded {
        char *name;
        char *path;
        size_t dir_index;
        struct parsed parsed;
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
static struct profile *merge(struct loaded *chain, size_t n)
{
        const struct schema *schema = profile_file_schema();
        const struct profile_key *profile_keys = schema->keys;
        struct profile *p = xcalloc(1, sizeof(*p));
        _cleanup_free_ const struct entry **slot = xcalloc(schema->n, sizeof(*slot));
        _cleanup_free_ const struct loaded **owner = xcalloc(schema->n, sizeof(*owner));
        const struct profile_key *desc;

        for (size_t i = n; i-- > 0;)
                for (size_t j = 0; j < chain[i].parsed.n; j++) {
                        const struct entry *e = &chain[i].parsed.v[j];
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
        desc = schema_find(schema, "profile", "description");
        if (slot[desc - profile_keys])
                p->description = xstrdup(slot[desc - profile_keys]->value);

        p->settings = xcalloc(schema->n, sizeof(*p->settings));
        for (size_t idx = N_META; idx < schema->n; idx++) {
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
                parsed_done(&chain[i].parsed);
        }
}

static int not_found(const struct rootfs *rfs, const char *extra_dir, const struct search_dir *dirs, size_t n_dirs,
                     const char *name, struct xerror *err)
{
        _cleanup_free_ char *searched = dirs_string(dirs, 0, n_dirs);
        _cleanup_free_ char *avail = NULL;
        char **names = NULL;
        size_t n = 0;

        profile_list_rootfs(rfs, extra_dir, &names, &n);
        if (n > 0) {
                char **v = xcalloc(n + 1, sizeof(*v));
                memcpy(v, names, n * sizeof(*v));
                avail = join((const char *const *) v, ", ");
                free(v);
        }
        profile_names_free(names, n);
        set_error(err, NULL, 0, _("profile '%s' not found; searched: %s; available: %s"),
                  name, searched, avail ? avail : _("none"));
        return -ENOENT;
}

int profile_load_rootfs(const struct rootfs *rfs, const char *extra_dir, const char *name,
                        struct profile **ret, struct xerror *ret_error)
{
        const char *root = rfs->path;
        struct search_dir dirs[3];
        size_t n_dirs, n = 0, from = 0;
        struct loaded chain[PROFILE_MAX_DEPTH] = {};
        const char *want = name;
        const char *inherit_file = NULL;        /* where WANT was named, for errors */
        unsigned inherit_line = 0;
        int r = 0;

        if (!profile_name_valid(name)) {
                set_error(ret_error, NULL, 0, _("invalid profile name '%s'; use letters, digits, '-' and '_' (at most %d)"),
                          name, PROFILE_NAME_MAX);
                return -EINVAL;
        }
        n_dirs = search_dirs(root, extra_dir, dirs);

        for (;;) {
                _cleanup_free_ char *buf = NULL, *path = NULL;
                struct xerror err = {};
                const struct entry *inh;
                size_t len = 0, idx = 0;

                r = find_profile(rfs, dirs, n_dirs, from, want, &path, &idx, &buf, &len, &err);
                if (r == -ENOENT && n == 0) {
                        r = not_found(rfs, extra_dir, dirs, n_dirs, want, ret_error);
                        break;
                }
                if (r == -ENOENT) {
                        _cleanup_free_ char *searched = dirs_string(dirs, from, n_dirs);
                        if (from > 0 && from >= n_dirs)
                                set_error(ret_error, inherit_file, inherit_line,
                                          _("inherited profile '%s' not found: no directory after this one to search"), want);
                        else if (from > 0)
                                set_error(ret_error, inherit_file, inherit_line,
                                          _("inherited profile '%s' not found after this one; searched: %s"), want, searched);
                        else
                                set_error(ret_error, inherit_file, inherit_line,
                                          _("inherited profile '%s' not found; searched: %s"), want, searched);
                        break;
                }
                if (r >= 0) {
                        for (size_t i = 0; i < n; i++)
                                if (streq(chain[i].path, path)) {
                                        _cleanup_free_ char *cs = chain_string(chain, n, want);
                                        set_error(ret_error, inherit_file, inherit_line, _("inherit cycle: %s"), cs);
                                        r = -ELOOP;
                                        break;
                                }
                        if (r < 0)
                                break;
                        if (n == PROFILE_MAX_DEPTH) {
                                _cleanup_free_ char *cs = chain_string(chain, n, want);
                                set_error(ret_error, inherit_file, inherit_line,
                                          _("inherit chain longer than %d profiles: %s"), PROFILE_MAX_DEPTH, cs);
                                r = -ELOOP;
                                break;
                        }
                        r = parse_buffer(buf, len, path, profile_file_schema(), &chain[n].parsed, &err);
                }
                if (r < 0) {
                        /* an error in an inherited file: say how we got there */
                        if (n > 0) {
                                _cleanup_free_ char *cs = chain_string(chain, n, want);
                                char *m = xasprintf(_("%s (profile chain: %s)"), err.message, cs);
                                free(err.message);
                                err.message = m;
                        }
                        move_error(ret_error, &err);
                        break;
                }
                chain[n].name = xstrdup(want);
                chain[n].path = TAKE_PTR(path);
                chain[n].dir_index = idx;
                n++;

                inh = parsed_find(&chain[n - 1].parsed, "profile", "inherit");
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
                *ret = merge(chain, n);
        chain_free(chain, n);
        search_dirs_free(dirs, n_dirs);
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

/* ---- which profile ---- */

const char *chassis_name(long t)
{
        /* SMBIOS 3.x, 7.4.1 System Enclosure or Chassis Types */
        static const char *const names[] = {
                NULL, "Other", "Unknown", "Desktop", "Low Profile Desktop", "Pizza Box", "Mini Tower",
                "Tower", "Portable", "Laptop", "Notebook", "Hand Held", "Docking Station", "All in One",
                "Sub Notebook", "Space-saving", "Lunch Box", "Main Server Chassis", "Expansion Chassis",
                "SubChassis", "Bus Expansion Chassis", "Peripheral Chassis", "RAID Chassis",
                "Rack Mount Chassis", "Sealed-case PC", "Multi-system chassis", "Compact PCI",
                "Advanced TCA", "Blade", "Blade Enclosure", "Tablet", "Convertible", "Detachable",
                "IoT Gateway", "Embedded PC", "Mini PC", "Stick PC",
        };

        if (t <= 0 || t >= (long) ELEMENTSOF(names))
                return NULL;
        return names[t];
}

/* NULL: no rule, the default applies */
static const char *chassis_profile(long t)
{
        switch (t) {
        case 8: case 9: case 10: case 11: case 14: case 30: case 31: case 32:
                return "balanced";      /* runs on battery */
        case 3: case 4: case 5: case 6: case 7: case 13: case 15: case 16: case 24: case 35: case 36:
                return "desktop";
        case 17: case 23: case 28: case 29:
                return "server";
        default:
                return NULL;
        }
}

static char *conf_path(const char *root, bool display)
{
        if (root_is_host(root))
                return xstrdup(SYSCONFDIR "/idlecfg/idlecfg.conf");
        return display ? root_path(root, "/etc/idlecfg/idlecfg.conf") : xstrdup("/etc/idlecfg/idlecfg.conf");
}

/* [main] profile= of idlecfg.conf; *ret_name stays NULL without one */
static int conf_profile(const struct rootfs *rfs, char **ret_name, char **ret_reason, struct xerror *err)
{
        const char *root = rfs->path;
        _cleanup_free_ char *path = conf_path(root, false), *display = conf_path(root, true);
        _cleanup_close_ int fd = open_file(rfs, path, true);
        _cleanup_free_ char *buf = NULL;
        struct parsed parsed = {};
        const struct entry *e;
        size_t len = 0;
        int r;

        if (fd == -ENOENT || fd == -ENOTDIR)
                return 0;
        if (fd < 0) {
                set_error(err, display, 0, _("cannot open: %s"), strerror(-fd));
                return fd;
        }
        r = read_fd(fd, display, &buf, &len, err);
        if (r < 0)
                return r;
        r = parse_buffer(buf, len, display, &conf_file_schema, &parsed, err);
        if (r < 0)
                return r;
        e = parsed_find(&parsed, "main", "profile");
        if (e) {
                *ret_name = xstrdup(e->value);
                *ret_reason = xasprintf("%s:%u", display, e->line);
        }
        parsed_done(&parsed);
        return 0;
}

int profile_select_rootfs(const struct rootfs *rfs, const char *cli_name, const char *chassis_type,
                          char **ret_name, char **ret_reason, struct xerror *ret_error)
{
        _cleanup_free_ char *name = NULL, *reason = NULL;
        long t = 0;
        int r;

        if (cli_name) {
                if (!profile_name_valid(cli_name)) {
                        set_error(ret_error, NULL, 0,
                                  _("invalid profile name '%s' for --profile; use letters, digits, '-' and '_' (at most %d)"),
                                  cli_name, PROFILE_NAME_MAX);
                        return -EINVAL;
                }
                *ret_name = xstrdup(cli_name);
                *ret_reason = xstrdup("--profile");
                return 0;
        }

        r = conf_profile(rfs, &name, &reason, ret_error);
        if (r < 0)
                return r;
        if (name) {
                *ret_name = TAKE_PTR(name);
                *ret_reason = TAKE_PTR(reason);
                return 0;
        }

        /* Unknown, odd or missing types get balanced: its settings are the
         * ones known to be safe on any hardware, and machines without DMI
         * (ARM boards, tablets, many VMs) are mostly not servers. */
        if (!chassis_type || !chassis_type[0])
                reason = xstrdup(_("no chassis type (no DMI), the default"));
        else if (parse_number(chassis_type, &t) < 0)
                reason = xasprintf(_("chassis type '%s' not understood, the default"), chassis_type);
        else if (chassis_profile(t))
                reason = xasprintf(_("chassis type %ld (%s)"), t, chassis_name(t));
        else if (chassis_name(t))
                reason = xasprintf(_("chassis type %ld (%s) has no rule, the default"), t, chassis_name(t));
        else
                reason = xasprintf(_("chassis type %ld has no rule, the default"), t);
        *ret_name = xstrdup(chassis_profile(t) ? chassis_profile(t) : PROFILE_DEFAULT);
        *ret_reason = TAKE_PTR(reason);
        return 0;
}

/* ---- the same for a root given by its path (tests, tools) ---- */

/* a root that does not exist has no profiles in it (--profiles-dir may have) */
static int open_root(const char *root, struct rootfs *rfs, struct xerror *err)
{
        int r = rootfs_open(root_is_host(root) ? "/" : root, rfs);

        if (r == -ENOENT) {
                *rfs = (struct rootfs) { .fd = -1, .path = xstrdup(root) };
                return 0;
        }
        if (r < 0)
                set_error(err, root, 0, _("cannot open: %s"), strerror(-r));
        return r;
}

int profile_load(const char *root, const char *extra_dir, const char *name,
                 struct profile **ret, struct xerror *ret_error)
{
        struct rootfs rfs = { .fd = -1 };
        int r = open_root(root, &rfs, ret_error);

        if (r >= 0)
                r = profile_load_rootfs(&rfs, extra_dir, name, ret, ret_error);
        rootfs_close(&rfs);
        return r;
}

int profile_list(const char *root, const char *extra_dir, char ***ret_names, size_t *ret_n)
{
        struct rootfs rfs = { .fd = -1 };
        int r = open_root(root, &rfs, NULL);

        if (r < 0) {
                *ret_names = NULL;
                *ret_n = 0;
                return r;
        }
        r = profile_list_rootfs(&rfs, extra_dir, ret_names, ret_n);
        rootfs_close(&rfs);
        return r;
}

int profile_select(const char *root, const char *cli_name, const char *chassis_type,
                   char **ret_name, char **ret_reason, struct xerror *ret_error)
{
        struct rootfs rfs = { .fd = -1 };
        int r = open_root(root, &rfs, ret_error);

        if (r >= 0)
                r = profile_select_rootfs(&rfs, cli_name, chassis_type, ret_name, ret_reason, ret_error);
        rootfs_close(&rfs);
        return r;
}
