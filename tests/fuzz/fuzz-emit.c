/* tests/fuzz/fuzz-emit.c: the value whitelist and the four renderers on plans made of arbitrary strings */
#include "config.h"

#include "fuzz.h"
#include "pipeline/emit.h"
#include "model/plan.h"
#include "base/util.h"

/*
 * Input: a plan, one setting a line, the fields of tests/emit-render.c
 *
 *   mech|knob|device|attr|module|param|value|KEY=VALUE;KEY=VALUE|reason|devpath|current
 *
 * and "@profile TEXT", "@fingerprint TEXT", "@kernel TEXT" lines for the
 * header. Fields may carry any byte through C escapes: \n \r \t \\ \| \; \=
 * \" \xHH (any other escaped character stands for itself). An empty field is
 * NULL; an unknown mech is a number outside the enum.
 *
 * The invariant: whatever passes emit_check_value() is made of the
 * characters the whitelist allows, and every file emit_render() writes reads
 * back, with a strict parser of its format, as exactly the settings of the
 * plan: nothing more (no quote, newline, backslash, '$', '%' or glob that
 * ends a value early, starts a rule or widens a match), nothing less, no
 * target with two values. Comments are printable ASCII and never end in a
 * backslash (a continuation in modprobe.d). A refused plan writes nothing.
 * Rendering is deterministic. Any violation aborts.
 */

#define MAX_INPUT (64 * 1024)
#define MAX_SETTINGS 64

#define VALUE_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_=/-"
#define NAME_CHARS "abcdefghijklmnopqrstuvwxyz0123456789_"

static bool only(const char *s, const char *chars)
{
        return s[strspn(s, chars)] == '\0';
}

static int hexval(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* the text of [p, end) without its escapes; a \x00 ends the C string there */
static char *unescape(const char *p, const char *end)
{
        struct strbuf sb = {};

        sb_append(&sb, "");
        for (; p < end; p++) {
                if (*p != '\\' || p + 1 == end) {
                        sb_putc(&sb, *p);
                        continue;
                }
                switch (*++p) {
                case 'n': sb_putc(&sb, '\n'); break;
                case 'r': sb_putc(&sb, '\r'); break;
                case 't': sb_putc(&sb, '\t'); break;
                case 'x':
                        if (p + 2 < end && hexval(p[1]) >= 0 && hexval(p[2]) >= 0) {
                                sb_putc(&sb, (char) (hexval(p[1]) * 16 + hexval(p[2])));
                                p += 2;
                                break;
                        }
                        sb_putc(&sb, 'x');
                        break;
                default: sb_putc(&sb, *p);
                }
        }
        return sb_steal(&sb);
}

/* the end of the field starting at p: the first SEP not escaped */
static const char *field_end(const char *p, const char *end, char sep)
{
        for (; p < end; p++) {
                if (*p == '\\' && p + 1 < end)
                        p++;
                else if (*p == sep)
                        return p;
        }
        return end;
}

/* the next SEP-separated field of [*p, end), NULL when empty; *p moves past it */
static char *next_field(const char **p, const char *end, char sep)
{
        const char *start = *p, *e;

        if (start > end)
                return NULL;
        e = field_end(start, end, sep);
        *p = e + 1;
        return e > start ? unescape(start, e) : NULL;
}

static enum mechanism parse_mech(const char *s)
{
        for (int m = 0; m < _MECH_MAX; m++)
                if (s && streq(s, mechanism_to_string((enum mechanism) m)))
                        return (enum mechanism) m;
        return (enum mechanism) (_MECH_MAX + 1);
}

static void parse_setting(struct plan *p, const char *line, const char *end)
{
        struct setting *s = plan_add(p);
        _cleanup_free_ char *mech = NULL;
        const char *m_start, *m_end;

        mech = next_field(&line, end, '|');
        s->mech = parse_mech(mech);
        s->knob = next_field(&line, end, '|');
        s->device_name = next_field(&line, end, '|');
        s->attr = next_field(&line, end, '|');
        s->module = next_field(&line, end, '|');
        s->param = next_field(&line, end, '|');
        s->value = next_field(&line, end, '|');
        m_start = line;
        m_end = line <= end ? field_end(line, end, '|') : line;
        line = m_end + 1;
        s->reason = next_field(&line, end, '|');
        s->device = next_field(&line, end, '|');
        s->current = next_field(&line, end, '|');
        for (const char *kv = m_start; kv < m_end;) {
                const char *kv_end = field_end(kv, m_end, ';');
                const char *eq = field_end(kv, kv_end, '=');
                _cleanup_free_ char *k = unescape(kv, eq);
                _cleanup_free_ char *v = eq < kv_end ? unescape(eq + 1, kv_end) : NULL;

                /* no '=': a NULL value, as for an unreadable attribute */
                kv_add(&s->match, k, v);
                kv = kv_end + 1;
        }
}

static struct plan *parse_plan(const uint8_t *input, size_t size)
{
        struct plan *p = xcalloc(1, sizeof(*p));
        _cleanup_free_ char *data = xmalloc(size + 1);
        const char *end = data + size;

        /* NUL-terminated, for startswith(); a NUL inside ends a field early in unescape() */
        memcpy(data, input, size);
        data[size] = '\0';

        for (const char *line = data; line < end;) {
                const char *nl = memchr(line, '\n', (size_t) (end - line));
                const char *le = nl ? nl : end;
                char **hdr = NULL;

                if (startswith(line, "@profile "))
                        hdr = &p->profile;
                else if (startswith(line, "@fingerprint "))
                        hdr = &p->fingerprint;
                else if (startswith(line, "@kernel "))
                        hdr = &p->kernel;
                if (hdr) {
                        free(*hdr);
                        *hdr = unescape(strchr(line, ' ') + 1, le);
                } else if (le > line && p->n < MAX_SETTINGS)
                        parse_setting(p, line, le);
                line = le + 1;
        }
        return p;
}

/* ---- what passes the check ---- */

static bool match_key_ok(const char *k)
{
        size_t n = strlen(k), skip;

        if (streq(k, "SUBSYSTEM") || streq(k, "KERNEL") || streq(k, "DRIVER"))
                return true;
        skip = startswith(k, "ATTR{") ? 5 : startswith(k, "ATTRS{") ? 6 : 0;
        return skip && n > skip + 1 && k[n - 1] == '}' && strcspn(k + skip, "}") == n - skip - 1 &&
               strspn(k + skip, NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZ/") == n - skip - 1;
}

static void check_setting(const struct setting *s)
{
        struct xerror e = {};
        const struct knob_rule *rules;
        size_t n_rules;
        int r = emit_check_value(s, &e);

        /* the whitelist of every knob lets through its characters only */
        rules = knob_rules(&n_rules);
        for (size_t i = 0; s->value && i < n_rules; i++)
                if (knob_value_ok(&rules[i], s->value))
                        fuzz_assert(only(s->value, VALUE_CHARS) && strlen(s->value) <= 255,
                                    "%s accepts \"%s\"", rules[i].knob, s->value);

        if (r < 0) {
                fuzz_assert(r == -EINVAL && e.message && e.message[0], "refused with %d and no message", r);
                xerror_done(&e);
                return;
        }
        fuzz_assert(!e.message, "passed with a message: %s", e.message);
        if (!s->value || s->mech == MECH_NONE)
                return;
        fuzz_assert(knob_rule(s->knob) && knob_value_ok(knob_rule(s->knob), s->value), "%s = \"%s\" passed",
                    strempty(s->knob), s->value);
        switch (s->mech) {
        case MECH_UDEV:
                fuzz_assert(s->attr && s->attr[0] && only(s->attr, NAME_CHARS "/") && !strstr(s->attr, ".."),
                            "udev attribute \"%s\" passed", strempty(s->attr));
                fuzz_assert(s->match.n > 0 && s->match.n <= 16, "%zu match keys passed", s->match.n);
                for (size_t i = 0; i < s->match.n; i++) {
                        const char *k = s->match.v[i].key, *v = s->match.v[i].value;
                        fuzz_assert(match_key_ok(k), "match key \"%s\" passed", k);
                        fuzz_assert(v && v[0], "empty match value passed");
                        for (const unsigned char *c = (const unsigned char *) v; *c; c++)
                                fuzz_assert(*c >= 0x20 && *c < 0x7f && !strchr("\"\\$%*?[]|", *c),
                                            "match value \"%s\" passed", v);
                }
                break;
        case MECH_MODPROBE:
        case MECH_TMPFILES:
                fuzz_assert(s->module, "a %s setting without a module passed", mechanism_to_string(s->mech));
                /* fall through */
        case MECH_CMDLINE:
                fuzz_assert(s->param && s->param[0] && only(s->param, NAME_CHARS), "parameter \"%s\" passed",
                            strempty(s->param));
                fuzz_assert(!s->module || (s->module[0] && only(s->module, NAME_CHARS "-")),
                            "module \"%s\" passed", s->module);
                break;
        case MECH_SYSCTL:
                /* one file below /proc/sys: dotted names, no glob, no '/', no ".." */
                fuzz_assert(!s->module && !s->attr && s->param && s->param[0] != '.' && strchr(s->param, '.') &&
                            only(s->param, NAME_CHARS ".") && !strstr(s->param, "..") &&
                            s->param[strlen(s->param) - 1] != '.', "sysctl key \"%s\" passed", strempty(s->param));
                break;
        default:
                fuzz_assert(false, "mechanism %d passed", (int) s->mech);
        }
}

/* ---- reading a rendered file back ---- */

/* a sorted list of strings, for comparing what a file says with what the plan says */
struct set {
        char **v;
        size_t n;
};

static void set_add(struct set *s, char *take)
{
        s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
        s->v[s->n++] = take;
}

static void set_done(struct set *s)
{
        for (size_t i = 0; i < s->n; i++)
                free(s->v[i]);
        free(s->v);
        *s = (struct set) {};
}

/* sort; drop duplicates */
static void set_unique(struct set *s)
{
        size_t j = 0;

        if (s->n > 1)
                qsort(s->v, s->n, sizeof(*s->v), strv_cmp);
        for (size_t i = 0; i < s->n; i++) {
                if (j > 0 && streq(s->v[j - 1], s->v[i])) {
                        free(s->v[i]);
                        continue;
                }
                s->v[j++] = s->v[i];
        }
        s->n = j;
}

/* "target\x1dvalue" items: every target has one value */
static void set_one_value_per_target(const struct set *s, const char *what)
{
        for (size_t i = 1; i < s->n; i++) {
                size_t a = strcspn(s->v[i - 1], "\x1d"), b = strcspn(s->v[i], "\x1d");
                fuzz_assert(a != b || strncmp(s->v[i - 1], s->v[i], a) != 0, "%s: a target with two values: %s / %s",
                            what, s->v[i - 1], s->v[i]);
        }
}

static void set_same(struct set *got, struct set *want, const char *what, const char *out)
{
        set_unique(got);
        set_unique(want);
        set_one_value_per_target(want, what);
        fuzz_assert(got->n == want->n, "%s: the file says %zu things, the plan %zu:\n%s", what, got->n, want->n, out);
        for (size_t i = 0; i < got->n; i++)
                fuzz_assert(streq(got->v[i], want->v[i]), "%s: the file says \"%s\", the plan \"%s\":\n%s", what,
                            got->v[i], want->v[i], out);
}

/* one KEY=="VALUE" or KEY="VALUE" of a udev rule; *p moves past it */
static bool udev_token(const char **p, char **ret_key, char **ret_value, bool *ret_assign)
{
        const char *k = *p, *eq = strchr(k, '='), *bad = strpbrk(k, "\", "), *v, *q;

        if (!eq || eq == k || (bad && bad < eq))
                return false;
        *ret_assign = eq[1] != '=';
        v = eq + (*ret_assign ? 1 : 2);
        if (*v != '"')
                return false;
        q = strchr(v + 1, '"');
        if (!q)
                return false;
        *ret_key = xstrndup(k, (size_t) (eq - k));
        *ret_value = xstrndup(v + 1, (size_t) (q - v - 1));
        *p = q + 1;
        return true;
}

static char *plan_udev_item(const struct setting *s)
{
        struct strbuf sb = {};

        for (size_t i = 0; i < s->match.n; i++)
                sb_appendf(&sb, "%s=%s\x1f", s->match.v[i].key, s->match.v[i].value);
        sb_appendf(&sb, "\x1e%s\x1d%s", s->attr, s->value);
        return sb_steal(&sb);
}

static void read_udev(const char *line, struct set *got, const char *out)
{
        struct strbuf sb = {};
        const char *p = line;
        char *keys[64], *values[64];
        bool assign[64];
        size_t n = 0;

        while (*p) {
                fuzz_assert(n < ELEMENTSOF(keys), "rule with too many keys:\n%s", out);
                fuzz_assert(udev_token(&p, &keys[n], &values[n], &assign[n]), "not a udev rule: \"%s\"\n%s", line,
                            out);
                n++;
                if (*p) {
                        fuzz_assert(startswith(p, ", "), "not a udev rule: \"%s\"\n%s", line, out);
                        p += 2;
                }
        }
        fuzz_assert(n >= 4, "short rule \"%s\"", line);
        fuzz_assert(streq(keys[0], "ACTION") && streq(values[0], "add") && !assign[0], "rule \"%s\": no ACTION", line);
        fuzz_assert(streq(keys[n - 2], "TEST") && !assign[n - 2], "rule \"%s\": no TEST", line);
        fuzz_assert(assign[n - 1] && startswith(keys[n - 1], "ATTR{") &&
                    strlen(keys[n - 1]) == strlen(values[n - 2]) + 6 && keys[n - 1][strlen(keys[n - 1]) - 1] == '}' &&
                    strncmp(keys[n - 1] + 5, values[n - 2], strlen(values[n - 2])) == 0,
                    "rule \"%s\": the assignment is not ATTR{TEST's attribute}", line);
        for (size_t i = 1; i < n - 2; i++) {
                fuzz_assert(!assign[i] && match_key_ok(keys[i]), "rule \"%s\": key %s", line, keys[i]);
                fuzz_assert(!strpbrk(values[i], "\\$%*?[]|"), "rule \"%s\": match value %s", line, values[i]);
                sb_appendf(&sb, "%s=%s\x1f", keys[i], values[i]);
        }
        fuzz_assert(!strpbrk(values[n - 1], "\\$%") && only(values[n - 1], VALUE_CHARS), "rule \"%s\": value %s",
                    line, values[n - 1]);
        sb_appendf(&sb, "\x1e%s\x1d%s", values[n - 2], values[n - 1]);
        set_add(got, sb_steal(&sb));
        for (size_t i = 0; i < n; i++) {
                free(keys[i]);
                free(values[i]);
        }
}

static char *module_spelling(const char *m)
{
        char *s = xstrdup(m);

        for (char *c = s; *c; c++)
                if (*c == '-')
                        *c = '_';
        return s;
}

static char *plan_param_item(const struct setting *s)
{
        _cleanup_free_ char *m = s->module ? module_spelling(s->module) : NULL;

        return m ? xasprintf("%s.%s\x1d%s", m, s->param, s->value) : xasprintf("%s\x1d%s", s->param, s->value);
}

/* "param=value" words of modprobe.d and the command line */
static void read_word(const char *module, const char *word, struct set *got, const char *out)
{
        const char *eq = strchr(word, '=');
        _cleanup_free_ char *key = NULL;

        fuzz_assert(eq && eq > word, "word \"%s\" is not key=value:\n%s", word, out);
        key = xstrndup(word, (size_t) (eq - word));
        fuzz_assert(only(key, NAME_CHARS ".") && eq[1] && only(eq + 1, VALUE_CHARS), "word \"%s\":\n%s", word, out);
        set_add(got, module ? xasprintf("%s.%s\x1d%s", module, key, eq + 1) : xasprintf("%s\x1d%s", key, eq + 1));
}

static void read_modprobe(char *line, struct set *got, struct set *modules, const char *out)
{
        char *save = NULL, *w = strtok_r(line, " ", &save), *module;

        fuzz_assert(w && streq(w, "options"), "modprobe.d line \"%s\"\n%s", line, out);
        module = strtok_r(NULL, " ", &save);
        fuzz_assert(module && only(module, NAME_CHARS), "modprobe.d module \"%s\"\n%s", strempty(module), out);
        for (size_t i = 0; i < modules->n; i++)
                fuzz_assert(!streq(modules->v[i], module), "two options lines for %s\n%s", module, out);
        set_add(modules, xstrdup(module));
        while ((w = strtok_r(NULL, " ", &save)))
                read_word(module, w, got, out);
}

static void read_tmpfiles(char *line, struct set *got, const char *out)
{
        char *f[8], *save = NULL;
        size_t n = 0;
        char module[64], param[64];
        int end = 0;

        for (char *w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
                fuzz_assert(n < ELEMENTSOF(f), "tmpfiles.d line with too many fields\n%s", out);
                f[n++] = w;
        }
        fuzz_assert(n == 7 && streq(f[0], "w") && streq(f[2], "-") && streq(f[3], "-") && streq(f[4], "-") &&
                    streq(f[5], "-"), "tmpfiles.d line\n%s", out);
        fuzz_assert(sscanf(f[1], "/sys/module/%63[a-z0-9_]/parameters/%63[a-z0-9_]%n", module, param, &end) == 2 &&
                    f[1][end] == '\0', "tmpfiles.d path %s\n%s", f[1], out);
        fuzz_assert(only(f[6], VALUE_CHARS), "tmpfiles.d value \"%s\"\n%s", f[6], out);
        set_add(got, xasprintf("%s.%s\x1d%s", module, param, f[6]));
}

static void check_file(const struct plan *p, enum emit_format fmt, const char *out, size_t len)
{
        static const enum mechanism mech_of[] = {
                [EMIT_UDEV] = MECH_UDEV, [EMIT_MODPROBE] = MECH_MODPROBE,
                [EMIT_TMPFILES] = MECH_TMPFILES, [EMIT_CMDLINE] = MECH_CMDLINE,
                [EMIT_SYSCTL] = MECH_SYSCTL,
        };
        struct set got = {}, want = {}, modules = {};
        _cleanup_free_ char *copy = xstrdup(out);
        size_t n_lines = 0;

        fuzz_assert(strlen(out) == len, "a NUL in the file");
        for (size_t i = 0; i < len; i++)
                fuzz_assert(out[i] == '\n' || (out[i] >= 0x20 && out[i] < 0x7f), "byte 0x%02x in the file:\n%s",
                            (unsigned char) out[i], out);
        fuzz_assert(len == 0 || out[len - 1] == '\n', "no newline at the end:\n%s", out);

        for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                size_t l = strlen(line);

                fuzz_assert(line[l - 1] != '\\', "line \"%s\" ends in a backslash:\n%s", line, out);
                if (line[0] == '#') {
                        fuzz_assert(fmt != EMIT_CMDLINE, "a comment on the command line:\n%s", out);
                        continue;
                }
                n_lines++;
                /* words are split at single spaces: there are no others (udev
                 * quotes its values, which may hold spaces and '#') */
                if (fmt != EMIT_UDEV)
                        fuzz_assert(line[0] != ' ' && line[l - 1] != ' ' && !strstr(line, "  "),
                                    "spaces in \"%s\":\n%s", line, out);
                switch (fmt) {
                case EMIT_UDEV:
                        read_udev(line, &got, out);
                        break;
                case EMIT_MODPROBE:
                        read_modprobe(line, &got, &modules, out);
                        break;
                case EMIT_TMPFILES:
                        read_tmpfiles(line, &got, out);
                        break;
                case EMIT_CMDLINE:
                        for (char *s2 = NULL, *w = strtok_r(line, " ", &s2); w; w = strtok_r(NULL, " ", &s2))
                                read_word(NULL, w, &got, out);
                        break;
                case EMIT_SYSCTL: {
                        /* "key = value", as systemd-sysctl splits it at the first '=' */
                        char *eq = strstr(line, " = ");
                        fuzz_assert(eq && eq > line && only(eq + 3, VALUE_CHARS),
                                    "sysctl.d line \"%s\":\n%s", line, out);
                        *eq = '\0';
                        fuzz_assert(only(line, NAME_CHARS "."), "sysctl key \"%s\":\n%s", line, out);
                        set_add(&got, xasprintf("%s\x1d%s", line, eq + 3));
                        break;
                }
                case EMIT_NM:
                case EMIT_LINK:
                        /* not rendered by this fuzzer (LLVMFuzzerTestOneInput) */
                        fuzz_assert(false, "format %d is not one this fuzzer renders", (int) fmt);
                        break;
                }
        }
        if (fmt == EMIT_CMDLINE)
                fuzz_assert(n_lines <= 1, "command line of %zu lines:\n%s", n_lines, out);
        else if (fmt == EMIT_UDEV)
                /* one rule a line, no two alike */
                fuzz_assert(n_lines == got.n, "udev: lines and rules differ");

        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                if (s->mech != mech_of[fmt] || !s->value)
                        continue;
                set_add(&want, fmt == EMIT_UDEV ? plan_udev_item(s) : plan_param_item(s));
        }
        if (fmt == EMIT_UDEV) {
                size_t before = got.n;
                set_unique(&got);
                fuzz_assert(got.n == before, "the same rule twice:\n%s", out);
        }
        set_one_value_per_target(&got, "file");
        set_same(&got, &want, fmt == EMIT_UDEV ? "udev" : fmt == EMIT_MODPROBE ? "modprobe" :
                              fmt == EMIT_TMPFILES ? "tmpfiles" : fmt == EMIT_SYSCTL ? "sysctl" : "cmdline", out);
        set_done(&got);
        set_done(&want);
        set_done(&modules);
}

static void render(const struct plan *p, enum emit_format fmt)
{
        char *out[2] = {};
        size_t len[2] = {};
        int r[2];

        for (int k = 0; k < 2; k++) {
                struct xerror e = {};
                FILE *f = open_memstream(&out[k], &len[k]);

                fuzz_assert(f, "open_memstream");
                r[k] = emit_render(p, fmt, f, &e);
                fclose(f);
                if (r[k] < 0) {
                        fuzz_assert(r[k] == -EINVAL && e.message && e.message[0], "refused with %d, no message", r[k]);
                        fuzz_assert(len[k] == 0, "refused (%s) but wrote %zu bytes", e.message, len[k]);
                } else
                        fuzz_assert(!e.message, "rendered with a message");
                xerror_done(&e);
        }
        fuzz_assert(r[0] == r[1] && len[0] == len[1] && memcmp(out[0], out[1], len[0]) == 0,
                    "format %d: two renderings of one plan differ", (int) fmt);
        if (r[0] == 0)
                check_file(p, fmt, out[0], len[0]);
        free(out[0]);
        free(out[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct plan *p;

        if (size > MAX_INPUT)
                return 0;
        p = parse_plan(data, size);
        for (size_t i = 0; i < p->n; i++)
                check_setting(&p->v[i]);
        render(p, EMIT_UDEV);
        render(p, EMIT_MODPROBE);
        render(p, EMIT_TMPFILES);
        render(p, EMIT_CMDLINE);
        render(p, EMIT_SYSCTL);
        plan_free(p);
        return 0;
}
