/* diff.c: the unified diff install --dry-run prints */
#include "config.h"

#include "cli/diff.h"
#include "base/util.h"

struct lines {
        const char **v;
        size_t *len;
        size_t n;
};

static void split_lines(const char *s, struct lines *l)
{
        while (*s) {
                const char *nl = strchr(s, '\n');
                size_t n = nl ? (size_t) (nl - s) + 1 : strlen(s);
                l->v = xrealloc(l->v, (l->n + 1) * sizeof(char *));
                l->len = xrealloc(l->len, (l->n + 1) * sizeof(size_t));
                l->v[l->n] = s;
                l->len[l->n++] = n;
                s += n;
        }
}

static bool line_eq(const struct lines *a, size_t i, const struct lines *b, size_t k)
{
        return a->len[i] == b->len[k] && memcmp(a->v[i], b->v[k], a->len[i]) == 0;
}

static void put_line(FILE *out, char tag, const char *s, size_t n)
{
        fputc(tag, out);
        fwrite(s, 1, n, out);
        if (n == 0 || s[n - 1] != '\n')
                fputs("\n\\ No newline at end of file\n", out);
}

void print_diff(FILE *out, const char *name_a, const char *a, const char *name_b, const char *b)
{
        struct lines la = {}, lb = {};
        char *ops;              /* ' ', '-', '+' in order */
        size_t n_ops = 0, *ia, *ib;
        unsigned *dp;

        split_lines(a, &la);
        split_lines(b, &lb);
        /* longest common subsequence, from the ends (files here are small) */
        if ((la.n + 1) * (lb.n + 1) > 16u << 20)
                dp = NULL;      /* too big for the table: shown as a whole replacement */
        else
                dp = xcalloc((la.n + 1) * (lb.n + 1), sizeof(unsigned));
#define DP(i, k) dp[(i) * (lb.n + 1) + (k)]
        for (size_t i = la.n; dp && i-- > 0;)
                for (size_t k = lb.n; k-- > 0;)
                        DP(i, k) = line_eq(&la, i, &lb, k) ? DP(i + 1, k + 1) + 1
                                   : DP(i + 1, k) > DP(i, k + 1) ? DP(i + 1, k) : DP(i, k + 1);
        ops = xmalloc(la.n + lb.n + 1);
        ia = xmalloc((la.n + lb.n + 1) * sizeof(size_t));
        ib = xmalloc((la.n + lb.n + 1) * sizeof(size_t));
        {
                size_t i = 0, k = 0;
                while (i < la.n || k < lb.n) {
                        if (dp && i < la.n && k < lb.n && line_eq(&la, i, &lb, k))
                                ops[n_ops] = ' ', ia[n_ops] = i++, ib[n_ops++] = k++;
                        else if (i < la.n && (k >= lb.n || !dp || DP(i + 1, k) >= DP(i, k + 1)))
                                ops[n_ops] = '-', ia[n_ops] = i++, ib[n_ops++] = k;
                        else
                                ops[n_ops] = '+', ia[n_ops] = i, ib[n_ops++] = k++;
                }
        }
#undef DP
        fprintf(out, "--- %s\n+++ %s\n", name_a, name_b);
        /* hunks with three lines of context */
        for (size_t s = 0; s < n_ops;) {
                size_t start, end, ca = 0, cb = 0;
                if (ops[s] == ' ') {
                        s++;
                        continue;
                }
                start = s >= 3 ? s - 3 : 0;
                end = s;
                for (;;) {
                        size_t run = 0;
                        while (end < n_ops && ops[end] != ' ')
                                end++;
                        while (end + run < n_ops && ops[end + run] == ' ')
                                run++;
                        if (end + run >= n_ops || run > 6) {
                                end += run < 3 ? run : 3;
                                break;
                        }
                        end += run;
                }
                for (size_t i = start; i < end; i++) {
                        ca += ops[i] != '+';
                        cb += ops[i] != '-';
                }
                fprintf(out, "@@ -%zu,%zu +%zu,%zu @@\n", ca ? ia[start] + 1 : ia[start], ca,
                        cb ? ib[start] + 1 : ib[start], cb);
                for (size_t i = start; i < end; i++) {
                        if (ops[i] == '+')
                                put_line(out, '+', lb.v[ib[i]], lb.len[ib[i]]);
                        else
                                put_line(out, ops[i], la.v[ia[i]], la.len[ia[i]]);
                }
                s = end;
        }
        free(ops);
        free(ia);
        free(ib);
        free(dp);
        free(la.v);
        free(la.len);
        free(lb.v);
        free(lb.len);
}
