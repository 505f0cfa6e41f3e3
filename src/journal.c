/* journal.c: the write-ahead journal of apply
 *
 *   idlecfg-journal 1
 *   run 1 1764763200 balanced           (one per apply run: number, time, profile)
 *   set /sys/devices/.../power/control on auto     (path, old, new; escaped fields)
 *   set /proc/sys/kernel/nmi_watchdog 1 0          (a sysctl)
 *
 * apply appends and fsyncs each "set" line before it writes the attribute;
 * rollback reads them all and restores the old values, last first. */
#include "config.h"

#include <limits.h>

#include "journal.h"
#include "knobs/knob.h"
#include "manifest.h"

/* FILE (below /proc/sys/) is a sysctl some knob family may set: rollback
 * writes no other one, whatever a journal says */
static bool sysctl_file_ok(const char *file)
{
        size_t n;
        const struct knob_rule *rules = knob_rules(&n);

        for (size_t i = 0; i < n; i++)
                for (const char *k = rules[i].sysctls; k && *k;) {
                        size_t m = strcspn(k, "|");
                        bool same = strlen(file) == m;
                        for (size_t c = 0; same && c < m; c++)
                                same = file[c] == (k[c] == '.' ? '/' : k[c]);
                        if (same)
                                return true;
                        k += m + (k[m] == '|');
                }
        return false;
}

bool journal_path_ok(const char *path)
{
        const char *proc = secure_getenv("IDLECFG_TEST_PROC");
        _cleanup_free_ char *test = NULL;

        if (!path || !path_is_clean(path))
                return false;
        if (startswith(path, "/sys/"))
                return true;
        if (startswith(path, "/proc/sys/"))
                return sysctl_file_ok(path + strlen("/proc/sys/"));
        /* the sysctls of the tests' /proc (IDLECFG_TEST_PROC), and only with it set */
        if (!proc || !*proc)
                return false;
        test = xasprintf("%s/sys/", proc);
        return startswith(path, test) && sysctl_file_ok(path + strlen(test));
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
        free(j);
}

#define MAX_VALUE 4096

int journal_parse(const char *name, const char *buf, size_t len, struct journal **ret, struct xerror *ret_error)
{
        struct journal *j = xcalloc(1, sizeof(*j));
        _cleanup_free_ char *text = NULL;
        char *line, *next;
        unsigned lineno = 0;
        bool header = false;
        int r = 0;

#define BAD(...) do { r = xerror_set(ret_error, -EINVAL, __VA_ARGS__); goto out; } while (0)
        if (memchr(buf, '\0', len))
                BAD(_("%s: not a text file (contains a NUL byte)"), name);
        text = xstrndup(buf, len);
        for (line = text; line && *line; line = next) {
                char *f[5], *v[4] = {};
                size_t n;

                lineno++;
                next = strchr(line, '\n');
                if (!next) {
                        /* cut short by a crash while it was appended: its write never
                         * began; without a header yet, it must be the start of one */
                        if (!header && !startswith("idlecfg-journal 1", line))
                                BAD(_("%s:%u: not an idlecfg journal (no \"idlecfg-journal 1\" line)"), name, lineno);
                        j->torn = true;
                        break;
                }
                *next++ = '\0';
                if (!*line || line[0] == '#')
                        continue;
                n = split_fields(line, f, 4);
                if (n > 4)
                        BAD(_("%s:%u: too many fields"), name, lineno);
                for (size_t i = 0; i < n; i++)
                        if (field_unescape(f[i], &v[i]) < 0 || strlen(v[i]) > MAX_VALUE) {
                                for (size_t k = 0; k <= i; k++)
                                        free(v[k]);
                                BAD(_("%s:%u: malformed field %zu"), name, lineno, i + 1);
                        }
#define LBAD(...) do { r = xerror_set(ret_error, -EINVAL, __VA_ARGS__); for (size_t k = 0; k < n; k++) free(v[k]); goto out; } while (0)
                if (!header) {
                        if (n != 2 || !streq(v[0], "idlecfg-journal"))
                                LBAD(_("%s:%u: not an idlecfg journal (no \"idlecfg-journal 1\" line)"), name, lineno);
                        if (!streq(v[1], "1"))
                                LBAD(_("%s:%u: journal format %s is not known to this version of idlecfg"),
                                     name, lineno, v[1]);
                        header = true;
                } else if (streq(v[0], "run")) {
                        char *end;
                        unsigned long run;
                        if (n != 4)
                                LBAD(_("%s:%u: expected \"run NUMBER TIME PROFILE\""), name, lineno);
                        errno = 0;
                        run = strtoul(v[1], &end, 10);
                        if (errno || *end || !*v[1] || run != (unsigned long) j->runs + 1 || run > 1000000)
                                LBAD(_("%s:%u: run %s out of sequence"), name, lineno, f[1]);
                        j->runs = (unsigned) run;
                } else if (streq(v[0], "set")) {
                        struct journal_entry *e;
                        if (n != 4)
                                LBAD(_("%s:%u: expected \"set PATH OLD NEW\""), name, lineno);
                        if (!j->runs)
                                LBAD(_("%s:%u: a \"set\" line before the first \"run\" line"), name, lineno);
                        if (!journal_path_ok(v[1]))
                                LBAD(_("%s:%u: refusing a path outside /sys and idlecfg's sysctls: %s"), name,
                                     lineno, f[1]);
                        j->v = xrealloc(j->v, (j->n + 1) * sizeof(*j->v));
                        e = &j->v[j->n++];
                        *e = (struct journal_entry) { .path = v[1], .old = v[2], .new = v[3], .run = j->runs };
                        free(v[0]);
                        continue;
                } else
                        LBAD(_("%s:%u: unknown line \"%s\""), name, lineno, f[0]);
                for (size_t k = 0; k < n; k++)
                        free(v[k]);
        }
        if (!header && !j->torn)
                BAD(_("%s: empty, not an idlecfg journal"), name);
out:
        if (r < 0) {
                journal_free(j);
                return r;
        }
        *ret = j;
        return 0;
#undef BAD
#undef LBAD
}

char *journal_header(void)
{
        return xstrdup("idlecfg-journal 1\n");
}

char *journal_run_line(unsigned run, long long when, const char *profile)
{
        _cleanup_free_ char *p = field_escape(strempty(profile));
        return xasprintf("run %u %lld %s\n", run, when, p);
}

char *journal_set_line(const char *path, const char *old, const char *new)
{
        _cleanup_free_ char *p = field_escape(path), *o = field_escape(old), *n = field_escape(new);
        return xasprintf("set %s %s %s\n", p, o, n);
}
