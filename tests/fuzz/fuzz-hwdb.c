/* tests/fuzz/fuzz-hwdb.c: the hwdb reader and matcher on arbitrary .hwdb text */
#include "config.h"

#include <fnmatch.h>

#include "fuzz.h"
#include "db/hwdb-load.h"
#include "db/hwdb.h"
#include "base/util.h"

/*
 * Input: .hwdb text; a line starting with "#@@" (a comment to the hwdb
 * parser) starts another file, up to MAX_FILES. Part i is written to the
 * scratch root as NN-fuzz.hwdb, NN = 10 (i + 1), alternately in
 * /etc/udev/hwdb.d and /usr/lib/udev/hwdb.d, and read twice: by
 * hwdb_load_files() in that order and by hwdb_load() of the root, each with
 * and without HWDB_STRICT. The modaliases queried are the match lines of the
 * input, as written and with their globs filled in, and a few fixed ones.
 *
 * Checked: the four loads agree (a strict load fails exactly at the first
 * warning of the lax one, and otherwise answers alike); every property is a
 * key without '=' or blanks around it and a value without a comment, a line
 * break or trailing space; its file and line exist; its match line matches
 * the modalias (fnmatch, where the pattern has no backslash: sd-hwdb, and so
 * we, take a backslash before the first glob literally); hwdb_get() gives
 * the answer hwdb_query() gave.
 */

#define MAX_FILES 4
#define MAX_QUERIES 48
#define MAX_INPUT (256 * 1024)

static const char *const fixed_queries[] = {
        "",
        "usb:v046DpC52Bd1201dc00dsc00dp00ic03isc01ip01in00",
        "pci:v00008086d0000A0EDsv00001028sd00000A1Fbc0Csc03i30",
        "dmi:bvnLENOVO:bvrN32ET:bd01/01/2022:svnLENOVO:pn20XW:pvrThinkPadX1:rvnLENOVO:rn20XW:cvnLENOVO:ct10:",
        "idlecfg-ata:Samsung SSD 840 EVO 250GB:EXT0BB6Q",
};

struct loaded {
        struct hwdb *h;
        struct xerror err;
        int r;
};

static void load_files(const char *const *paths, unsigned flags, struct loaded *ret)
{
        ret->err = (struct xerror) {};
        ret->h = NULL;
        ret->r = hwdb_load_files(paths, flags, &ret->h, &ret->err);
}

static void load_root(const char *root, unsigned flags, struct loaded *ret)
{
        ret->err = (struct xerror) {};
        ret->h = NULL;
        ret->r = hwdb_load(root, flags, &ret->h, &ret->err);
}

static void loaded_done(struct loaded *l)
{
        hwdb_free(l->h);
        xerror_done(&l->err);
}

static const char *basename_of(const char *path)
{
        const char *s = strrchr(path, '/');

        return s ? s + 1 : path;
}

static unsigned count_lines(const char *data, size_t len)
{
        unsigned n = 1;

        for (size_t i = 0; i < len; i++)
                n += data[i] == '\n' || data[i] == '\r' || data[i] == '\0';
        return n;
}

/* A load that succeeds answers; a strict load fails exactly where the lax one warned first. */
static void check_strict(const struct loaded *lax, const struct loaded *strict)
{
        size_t n_warn;
        const struct xerror *w;

        fuzz_assert(lax->r == 0, "a lax load of readable files failed: %d %s", lax->r, strempty(lax->err.message));
        w = hwdb_warnings(lax->h, &n_warn);
        if (strict->r == 0) {
                fuzz_assert(n_warn == 0, "strict load passed, the lax one has %zu warnings", n_warn);
                fuzz_assert(strict->h, "no hwdb from a successful load");
        } else {
                _cleanup_free_ char *a = xerror_format(&strict->err), *b = NULL;

                fuzz_assert(strict->r == -EINVAL, "strict load failed with %d", strict->r);
                fuzz_assert(!strict->h, "a failed load returned a hwdb");
                fuzz_assert(n_warn > 0, "strict load failed (%s), the lax one has no warning", a);
                b = xerror_format(&w[0]);
                fuzz_assert(streq(a, b), "strict error \"%s\" is not the first warning \"%s\"", a, b);
        }
        for (size_t i = 0; i < n_warn; i++) {
                fuzz_assert(w[i].message && w[i].message[0], "warning without a message");
                fuzz_assert(w[i].file, "warning without a file");
        }
}

/* how many lines each part has, at most */
static unsigned part_lines[MAX_FILES];

static void check_props(const struct hwdb *h, const char *modalias, const struct hwdb_property *p, size_t n,
                        size_t n_parts)
{
        for (size_t i = 0; i < n; i++) {
                const char *k = p[i].key, *v = p[i].value;
                size_t vl = strlen(v);
                struct hwdb_property got;
                unsigned idx;

                fuzz_assert(k[0] && k[0] != ' ' && k[0] != '\t', "bad key \"%s\"", k);
                fuzz_assert(!strpbrk(k, "=#\n\r"), "key \"%s\" holds '=', '#' or a line break", k);
                fuzz_assert(!strpbrk(v, "#\n\r"), "value \"%s\" holds '#' or a line break", v);
                fuzz_assert(vl == 0 || !strchr(" \t\n\v\f\r", v[vl - 1]), "value \"%s\" ends in a space", v);
                for (size_t j = 0; j < i; j++)
                        fuzz_assert(!streq(p[j].key, k), "key %s answered twice", k);

                /* "NN-fuzz.hwdb": which part, and so how many lines it has */
                fuzz_assert(sscanf(basename_of(p[i].file), "%u-fuzz.hwdb", &idx) == 1 && idx % 10 == 0 &&
                            idx >= 10 && idx / 10 - 1 < n_parts, "unknown file %s", p[i].file);
                idx = idx / 10 - 1;
                fuzz_assert(p[i].line >= 1 && p[i].line <= part_lines[idx],
                            "%s:%u is not a line of the file", p[i].file, p[i].line);

                fuzz_assert(p[i].match && !strpbrk(p[i].match, "\n\r#"), "bad match line");
                if (!strchr(p[i].match, '\\'))
                        fuzz_assert(fnmatch(p[i].match, modalias, 0) == 0, "match \"%s\" does not match \"%s\"",
                                    p[i].match, modalias);

                fuzz_assert(hwdb_get(h, modalias, k, &got) == 0, "hwdb_get(%s) found nothing", k);
                fuzz_assert(streq(got.value, v) && got.line == p[i].line && streq(got.file, p[i].file),
                            "hwdb_get(%s) and hwdb_query() disagree", k);
        }
}

static void query_all(const struct loaded *l, const char *modalias, struct hwdb_property **ret, size_t *ret_n,
                      size_t n_parts)
{
        int r = hwdb_query(l->h, modalias, ret, ret_n);

        fuzz_assert(r == 0, "hwdb_query: %d", r);
        check_props(l->h, modalias, *ret, *ret_n, n_parts);
}

static void same_answer(const char *what, const struct hwdb_property *a, size_t na,
                        const struct hwdb_property *b, size_t nb)
{
        fuzz_assert(na == nb, "%s: %zu properties against %zu", what, na, nb);
        for (size_t i = 0; i < na; i++)
                fuzz_assert(streq(a[i].key, b[i].key) && streq(a[i].value, b[i].value) && a[i].line == b[i].line &&
                            streq(a[i].match, b[i].match) && streq(basename_of(a[i].file), basename_of(b[i].file)),
                            "%s: property %zu differs: %s=%s %s:%u against %s=%s %s:%u", what, i, a[i].key,
                            a[i].value, a[i].file, a[i].line, b[i].key, b[i].value, b[i].file, b[i].line);
}

static void query(struct loaded *l, size_t n_loads, const char *modalias, size_t n_parts)
{
        struct hwdb_property *first = NULL;
        size_t n_first = 0;

        for (size_t i = 0; i < n_loads; i++) {
                struct hwdb_property *p = NULL;
                size_t n = 0;

                if (l[i].r < 0)
                        continue;
                query_all(&l[i], modalias, &p, &n, n_parts);
                if (!first) {
                        first = p;
                        n_first = n;
                        continue;
                }
                same_answer(modalias, first, n_first, p, n);
                free(p);
        }
        free(first);
}

/* the match line's globs filled in with one choice each */
static char *fill_globs(const char *pattern)
{
        struct strbuf sb = {};

        for (const char *c = pattern; *c; c++) {
                if (*c == '*')
                        continue;
                if (*c == '?') {
                        sb_putc(&sb, '0');
                } else if (*c == '[') {
                        const char *close = strchr(c + 1, ']');
                        if (!close) {
                                sb_putc(&sb, *c);
                                continue;
                        }
                        sb_putc(&sb, c[1] == '!' || c[1] == '^' || c[1] == ']' ? '0' : c[1]);
                        c = close;
                } else
                        sb_putc(&sb, *c);
        }
        return sb_steal(&sb);
}

/* match-line candidates of the input: non-empty lines without leading blanks */
static size_t queries_from(const struct fuzz_part *parts, size_t n_parts, char **q, size_t max)
{
        size_t n = 0;

        for (size_t i = 0; i < n_parts; i++) {
                const char *p = parts[i].data, *end = p + strlen(p);

                while (p < end && n + 2 <= max) {
                        size_t len = strcspn(p, "\n\r");
                        _cleanup_free_ char *line = xstrndup(p, len);
                        size_t l = strcspn(line, "#");

                        p += len + 1;
                        while (l > 0 && strchr(" \t\v\f", line[l - 1]))
                                l--;
                        line[l] = '\0';
                        if (!line[0] || line[0] == ' ' || line[0] == '\t')
                                continue;
                        q[n++] = fill_globs(line);
                        q[n++] = TAKE_PTR(line);
                }
        }
        return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const char *const dirs[] = { "etc/udev/hwdb.d", "usr/lib/udev/hwdb.d" };
        struct fuzz_part parts[MAX_FILES];
        const char *paths[MAX_FILES + 1] = {};
        char *files[MAX_FILES] = {}, *q[MAX_QUERIES];
        _cleanup_free_ char *root = NULL;
        struct loaded l[4];
        size_t n_parts, n_q;

        if (size > MAX_INPUT)
                return 0;
        root = xasprintf("%s/root", fuzz_scratch_dir());
        fuzz_clear_dir(root);
        n_parts = fuzz_split(data, size, "#@@", parts, MAX_FILES);
        for (size_t i = 0; i < n_parts; i++) {
                files[i] = xasprintf("%s/%s/%02zu-fuzz.hwdb", root, dirs[i % 2], 10 * (i + 1));
                fuzz_write_file(files[i], parts[i].data, parts[i].len);
                part_lines[i] = count_lines(parts[i].data, parts[i].len);
                paths[i] = files[i];
        }

        load_files(paths, 0, &l[0]);
        load_files(paths, HWDB_STRICT, &l[1]);
        load_root(root, 0, &l[2]);
        load_root(root, HWDB_STRICT, &l[3]);
        check_strict(&l[0], &l[1]);
        check_strict(&l[2], &l[3]);
        {
                struct hwdb_stats a, b;
                size_t wa, wb;

                hwdb_stats(l[0].h, &a);
                hwdb_stats(l[2].h, &b);
                hwdb_warnings(l[0].h, &wa);
                hwdb_warnings(l[2].h, &wb);
                fuzz_assert(a.files == n_parts && b.files == n_parts, "%zu and %zu files read of %zu", a.files,
                            b.files, n_parts);
                fuzz_assert(a.matches == b.matches && a.properties == b.properties && a.bytes == b.bytes && wa == wb,
                            "hwdb_load() and hwdb_load_files() read the same files differently");
                fuzz_assert(l[1].r == l[3].r, "strict loads disagree: %d and %d", l[1].r, l[3].r);
        }

        n_q = queries_from(parts, n_parts, q, MAX_QUERIES - ELEMENTSOF(fixed_queries));
        for (size_t i = 0; i < ELEMENTSOF(fixed_queries); i++)
                q[n_q++] = xstrdup(fixed_queries[i]);
        for (size_t i = 0; i < n_q; i++) {
                query(l, ELEMENTSOF(l), q[i], n_parts);
                free(q[i]);
        }

        for (size_t i = 0; i < ELEMENTSOF(l); i++)
                loaded_done(&l[i]);
        for (size_t i = 0; i < n_parts; i++)
                free(files[i]);
        fuzz_parts_free(parts, n_parts);
        return 0;
}
