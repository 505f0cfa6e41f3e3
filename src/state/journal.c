/* journal.c: the write-ahead journal of apply
 *
 *   idlecfg-journal 2
 *   run 1 1764763200 balanced           (one per apply run: number, time, profile)
 *   set /sys/devices/.../power/control on auto     (path, old, new; escaped fields)
 *   set /proc/sys/kernel/nmi_watchdog 1 0          (a sysctl)
 *   end 4 SHA256                        (the lines before it and their digest)
 *
 * apply records the "set" lines of a run before it writes any attribute: the
 * whole journal is written again with the run's lines and a new end record
 * (temporary file, fsync, rename: one write per run), so it is always whole;
 * earlier records of the paths the run writes are folded into one
 * (journal_text_with_run()), so the journal does not grow with every run;
 * rollback reads them all and restores the old values, last first. Format 1 (lines appended, no end
 * record, a last line cut short by a crash dropped) is still read. Every path
 * is an attribute, parameter or sysctl of the knob registry, every value one
 * of the knob's (the value before: of its kind), or the journal is refused. */
#include "config.h"

#include <ctype.h>
#include <limits.h>

#include "pipeline/emit.h"
#include "state/journal.h"
#include "state/records.h"
#include "knobs/knob.h"
#include "state/manifest.h"
#include "base/sha256.h"

/* "a|b|c" has WORD */
static bool list_has(const char *list, const char *word, size_t n)
{
        for (const char *k = list; k && *k;) {
                size_t m = strcspn(k, "|");
                if (m == n && strncmp(k, word, n) == 0)
                        return true;
                k += m + (k[m] == '|');
        }
        return false;
}

/* the sysctl key of FILE ("kernel/nmi_watchdog" -> "kernel.nmi_watchdog") */
static char *sysctl_key(const char *file)
{
        char *k = xstrdup(file);

        for (char *p = k; *p; p++)
                if (*p == '/')
                        *p = '.';
        return k;
}

/* does rule R declare PATH, a live file apply writes? PATH is clean. */
static bool rule_has_path(const struct knob_rule *r, const char *path)
{
        static const char *proc;
        static bool proc_read;
        const char *rest;

        if (!proc_read) {
                /* the same for the whole run: read once (a journal check tries every rule) */
                proc = secure_getenv("IDLECFG_TEST_PROC");
                proc_read = true;
        }

        if (startswith(path, "/proc/sys/") || (proc && *proc && startswith(path, proc) &&
                                               startswith(path + strlen(proc), "/sys/"))) {
                _cleanup_free_ char *key = NULL;
                rest = startswith(path, "/proc/sys/") ? path + strlen("/proc/sys/") : path + strlen(proc) + 5;
                /* the tests' /proc only with IDLECFG_TEST_PROC set, the real one always */
                key = sysctl_key(rest);
                return list_has(r->sysctls, key, strlen(key));
        }
        if ((rest = startswith(path, "/sys/module/") ? path + strlen("/sys/module/") : NULL)) {
                size_t mod = strcspn(rest, "/");
                const char *param = rest + mod;
                _cleanup_free_ char *mp = NULL;
                if (!startswith(param, "/parameters/") || strchr(param + strlen("/parameters/"), '/'))
                        return false;
                param += strlen("/parameters/");
                mp = xasprintf("%.*s.%s", (int) mod, rest, param);
                return list_has(r->params, mp, strlen(mp));
        }
        if (!startswith(path, "/sys/devices/"))
                return false;
        /* an attribute of a device: the path ends in one the rule sets */
        for (const char *k = r->attrs; k && *k;) {
                size_t m = strcspn(k, "|"), n = strlen(path);
                if (n > m + strlen("/sys/devices/") && path[n - m - 1] == '/' && strncmp(path + n - m, k, m) == 0)
                        return true;
                k += m + (k[m] == '|');
        }
        return false;
}

bool journal_path_ok(const char *path)
{
        size_t n;
        const struct knob_rule *rules = knob_rules(&n);

        if (!path || !path_is_clean(path))
                return false;
        for (size_t i = 0; i < n; i++)
                if (rule_has_path(&rules[i], path))
                        return true;
        return false;
}

/* the value as it is compared and written back: blanks stripped, the
 * selected word of a "[selected]" list */
static char *plain_value(const char *raw)
{
        _cleanup_free_ char *v = xstrdup(raw);
        char *open, *close;

        strstrip(v);
        open = strchr(v, '[');
        close = open ? strchr(open, ']') : NULL;
        if (open && close)
                return xstrndup(open + 1, (size_t) (close - open - 1));
        return xstrdup(v);
}

/* an integer, as the kernel prints one */
static bool is_integer(const char *s)
{
        char *end;

        if (!*s || strlen(s) > 20)
                return false;
        errno = 0;
        (void) strtoll(s, &end, 10);
        return !errno && !*end && (isdigit((unsigned char) s[0]) || (s[0] == '-' && isdigit((unsigned char) s[1])));
}

/* the values of a rule are numbers */
static bool rule_numeric(const struct knob_rule *r)
{
        if (r->kind == KNOB_INT)
                return true;
        if (r->kind != KNOB_WORDS || !r->words)
                return false;
        for (const char *k = r->words; *k;) {
                size_t m = strcspn(k, "|");
                _cleanup_free_ char *w = xstrndup(k, m);
                if (!is_integer(w))
                        return false;
                k += m + (k[m] == '|');
        }
        return true;
}

bool journal_value_ok(const char *path, const char *value, bool before)
{
        size_t n;
        const struct knob_rule *rules = knob_rules(&n);
        _cleanup_free_ char *v = plain_value(value);

        for (size_t i = 0; i < n; i++) {
                if (!rule_has_path(&rules[i], path))
                        continue;
                if (knob_value_ok(&rules[i], v))
                        return true;
                /* the kernel's value before idlecfg may lie outside what idlecfg
                 * sets (nmi_watchdog 1): of a numeric knob, any integer */
                if (before && rule_numeric(&rules[i]) && is_integer(v))
                        return true;
        }
        return false;
}

/* a "set" record: PATH one of the registry's (*ret_path), OLD a value before
 * and NEW a value of its knob; each rule is tried once */
static bool record_ok(const char *path, const char *old, const char *new, bool *ret_path)
{
        size_t n;
        const struct knob_rule *rules = knob_rules(&n);
        _cleanup_free_ char *o = plain_value(old), *w = plain_value(new);
        bool old_ok = false, new_ok = false;

        *ret_path = false;
        if (!path_is_clean(path))
                return false;
        for (size_t i = 0; i < n && !(old_ok && new_ok); i++) {
                if (!rule_has_path(&rules[i], path))
                        continue;
                *ret_path = true;
                old_ok = old_ok || knob_value_ok(&rules[i], o) || (rule_numeric(&rules[i]) && is_integer(o));
                new_ok = new_ok || knob_value_ok(&rules[i], w);
        }
        return old_ok && new_ok;
}

void journal_free(struct journal *j)
{
        if (!j)
                return;
        for (size_t i = 0; i < j->n; i++) {
                free(j->v[i].path);
                free(j->v[i].old);
                free(j->v[i].new);
        }
        free(j->v);
        for (unsigned i = 0; i < j->runs; i++) {
                free(j->run_v[i].when);
                free(j->run_v[i].profile);
        }
        free(j->run_v);
        free(j);
}

#define MAX_VALUE 4096

/* one line of a journal after its header (records_parse()) */
static int journal_line(void *userdata, const struct record *l, struct xerror *ret_error)
{
        struct journal *j = userdata;
        const char *name = l->name;
        unsigned lineno = l->lineno;
        char **v = l->v, **f = l->f;

#define LBAD(...) return xerror_set(ret_error, -EINVAL, __VA_ARGS__)
        if (streq(v[0], "run")) {
                char *end;
                unsigned long run;
                if (l->n != 4)
                        LBAD(_("%s:%u: expected \"run NUMBER TIME PROFILE\""), name, lineno);
                errno = 0;
                run = strtoul(v[1], &end, 10);
                if (errno || *end || !*v[1] || run != (unsigned long) j->runs + 1 || run > 1000000)
                        LBAD(_("%s:%u: run %s out of sequence"), name, lineno, f[1]);
                j->run_v = xrealloc(j->run_v, run * sizeof(*j->run_v));
                j->run_v[run - 1] = (struct journal_run) { .when = TAKE_PTR(v[2]), .profile = TAKE_PTR(v[3]) };
                j->runs = (unsigned) run;
        } else if (streq(v[0], "set")) {
                bool path_ok, rec_ok;
                if (l->n != 4)
                        LBAD(_("%s:%u: expected \"set PATH OLD NEW\""), name, lineno);
                if (!j->runs)
                        LBAD(_("%s:%u: a \"set\" line before the first \"run\" line"), name, lineno);
                rec_ok = record_ok(v[1], v[2], v[3], &path_ok);
                if (!rec_ok && !path_ok)
                        LBAD(_("%s:%u: refusing a path that is no attribute, parameter or sysctl idlecfg "
                               "sets: %s"), name, lineno, f[1]);
                if (!rec_ok)
                        LBAD(_("%s:%u: refusing a value that %s does not take"), name, lineno, f[1]);
                j->v = xrealloc(j->v, (j->n + 1) * sizeof(*j->v));
                j->v[j->n++] = (struct journal_entry) { .path = TAKE_PTR(v[1]), .old = TAKE_PTR(v[2]),
                                                        .new = TAKE_PTR(v[3]), .run = j->runs };
        } else
                LBAD(_("%s:%u: unknown line \"%s\""), name, lineno, f[0]);
        return 0;
#undef LBAD
}

static const struct records_format journal_records = {
        .magic = "idlecfg-journal",
        .max_fields = 4,
        .max_value = MAX_VALUE,
        .torn_v1 = true,
        .not_ours = N_("%s:%u: not an idlecfg journal (no \"idlecfg-journal 2\" line)"),
        .unknown_format = N_("%s:%u: journal format %s is not known to this version of idlecfg"),
        .empty = N_("%s: empty, not an idlecfg journal"),
        .no_end = N_("%s: no end record: the journal was cut short, lines are missing"),
        .torn_header = N_("%s: no end record: the file was cut short"),
};

int journal_parse(const char *name, const char *buf, size_t len, struct journal **ret, struct xerror *ret_error)
{
        struct journal *j = xcalloc(1, sizeof(*j));
        int r;

        r = records_parse(&journal_records, name, buf, len, journal_line, j, &j->format, &j->torn, ret_error);
        if (r < 0) {
                journal_free(j);
                return r;
        }
        *ret = j;
        return 0;
}

char *journal_header(void)
{
        return xstrdup("idlecfg-journal 2\n");
}

char *journal_end_line(const char *text, size_t len)
{
        char sha[65];
        unsigned lines = 0;

        for (size_t i = 0; i < len; i++)
                lines += text[i] == '\n';
        sha256_hex(text, len, 32, sha);
        return xasprintf("end %u %s\n", lines, sha);
}

char *journal_set_line(const char *path, const char *old, const char *new)
{
        _cleanup_free_ char *p = field_escape(path), *o = field_escape(old), *n = field_escape(new);
        return xasprintf("set %s %s %s\n", p, o, n);
}

static char *run_line(unsigned run, const char *when, const char *profile)
{
        _cleanup_free_ char *w = field_escape(when), *p = field_escape(strempty(profile));
        return xasprintf("run %u %s %s\n", run, w, p);
}

static void text_add(char **text, size_t *len, char *line_take)
{
        size_t n = strlen(line_take);

        *text = xrealloc(*text, *len + n + 1);
        memcpy(*text + *len, line_take, n + 1);
        *len += n;
        free(line_take);
}

char *journal_text_with_run(const struct journal *j, const struct journal_entry *add, size_t n_add, long long when,
                            const char *profile)
{
        size_t n = j ? j->n : 0, len = 0;
        _cleanup_free_ char **newv = xcalloc(n + 1, sizeof(char *));
        _cleanup_free_ bool *drop = xcalloc(n + 1, sizeof(bool));
        _cleanup_free_ const char **addold = xcalloc(n_add + 1, sizeof(char *));
        char *text = NULL;
        unsigned number = 0, last_run = 0;

        for (size_t a = 0; a < n_add; a++) {
                size_t first = n, last = n;
                _cleanup_free_ char *o = NULL, *now = plain_value(add[a].old);
                for (size_t i = 0; i < n; i++)
                        if (streq(j->v[i].path, add[a].path)) {
                                if (first == n)
                                        first = i;
                                else
                                        drop[i] = true;
                                last = i;
                        }
                if (first == n)
                        continue;
                o = plain_value(j->v[first].old);
                if (streq(o, now)) {
                        /* this run's record takes the value before idlecfg, in its bytes as first read */
                        drop[first] = true;
                        addold[a] = j->v[first].old;
                } else if (journal_value_ok(add[a].path, now, false))
                        newv[first] = TAKE_PTR(now);
                else if (last != first)
                        /* a value none of idlecfg's (someone else's since): rollback says so */
                        newv[first] = xstrdup(j->v[last].new);
        }
        text_add(&text, &len, journal_header());
        for (size_t i = 0; i < n; i++) {
                const struct journal_entry *e = &j->v[i];
                if (drop[i])
                        continue;
                if (e->run != last_run) {
                        last_run = e->run;
                        text_add(&text, &len, run_line(++number, j->run_v[e->run - 1].when, j->run_v[e->run - 1].profile));
                }
                text_add(&text, &len, journal_set_line(e->path, e->old, newv[i] ? newv[i] : e->new));
        }
        if (n_add > 0) {
                _cleanup_free_ char *w = xasprintf("%lld", when);
                text_add(&text, &len, run_line(++number, w, profile));
        }
        for (size_t a = 0; a < n_add; a++)
                text_add(&text, &len, journal_set_line(add[a].path, addold[a] ? addold[a] : add[a].old, add[a].new));
        text_add(&text, &len, journal_end_line(text, len));
        for (size_t i = 0; i < n; i++)
                free(newv[i]);
        return text;
}

/* rollback of J's records of PATH from the live value CUR (plain): the value
 * it ends with, or NULL where it would leave the value alone */
static char *rollback_from(const struct journal *j, const char *path, const char *cur)
{
        char *v = xstrdup(cur);

        for (size_t i = j->n; i-- > 0;) {
                _cleanup_free_ char *o = NULL, *n = NULL;
                if (!streq(j->v[i].path, path))
                        continue;
                o = plain_value(j->v[i].old);
                n = plain_value(j->v[i].new);
                if (streq(v, o))
                        continue;
                if (!streq(v, n)) {
                        free(v);
                        return NULL;
                }
                free(v);
                v = TAKE_PTR(o);
        }
        return v;
}

bool journal_names(const struct journal *j, const char *path)
{
        for (size_t i = 0; j && i < j->n; i++)
                if (streq(j->v[i].path, path))
                        return true;
        return false;
}

bool journal_covers(const struct journal *j, const char *path, const char *old, const char *new)
{
        _cleanup_free_ char *first = NULL, *po = plain_value(old), *pn = plain_value(new), *a = NULL, *b = NULL;

        if (!j)
                return false;
        for (size_t i = 0; i < j->n && !first; i++)
                if (streq(j->v[i].path, path))
                        first = plain_value(j->v[i].old);
        if (!first)
                return false;
        a = rollback_from(j, path, po);
        b = rollback_from(j, path, pn);
        return a && b && streq(a, first) && streq(b, first);
}
