/* tests/bench/hwdb-bench.c: time hwdb_load() of a root and queries against it, print peak RSS */
#include "config.h"

#include <sys/resource.h>
#include <time.h>

#include "db/hwdb.h"
#include "db/hwdb-load.h"
#include "base/util.h"

static double now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static int double_cmp(const void *a, const void *b)
{
        double x = *(const double *) a, y = *(const double *) b;
        return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
        qsort(v, n, sizeof(*v), double_cmp);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
        const char *root = argc > 1 ? argv[1] : "/";
        int runs = argc > 2 ? atoi(argv[2]) : 9;
        const char *list = argc > 3 ? argv[3] : NULL;
        _cleanup_free_ double *t = NULL;
        struct hwdb *h = NULL;
        struct hwdb_stats st;
        struct rusage ru;
        size_t n_warn;
        double med;

        if (runs < 1 || argc > 4) {
                fputs("Usage: hwdb-bench [ROOT [RUNS [MODALIAS-FILE]]]\n", stderr);
                return 2;
        }
        t = xmalloc((size_t) runs * sizeof(*t));
        for (int i = 0; i < runs; i++) {
                struct xerror err = {};
                double start = now_ms();
                int r = hwdb_load(root, 0, &h, &err);

                if (r < 0) {
                        _cleanup_free_ char *msg = xerror_format(&err);
                        fprintf(stderr, "hwdb-bench: %s\n", msg);
                        xerror_done(&err);
                        return 1;
                }
                t[i] = now_ms() - start;
                if (i + 1 < runs)
                        hwdb_free(h);
        }
        hwdb_stats(h, &st);
        (void) hwdb_warnings(h, &n_warn);
        printf("files %zu, bytes %zu, match lines %zu, properties %zu, warnings %zu\n",
               st.files, st.bytes, st.matches, st.properties, n_warn);
        med = median(t, (size_t) runs);         /* sorts t: t[0] is the fastest */
        printf("load: median %.2f ms, min %.2f ms, max %.2f ms over %d runs\n", med, t[0], t[runs - 1], runs);

        if (list) {
                _cleanup_fclose_ FILE *f = fopen(list, "re");
                _cleanup_free_ char *line = NULL;
                char **mods = NULL;
                size_t n = 0, cap = 0, total = 0;
                ssize_t len;
                double start, ms;

                if (!f) {
                        fprintf(stderr, "hwdb-bench: %s: %s\n", list, strerror(errno));
                        return 1;
                }
                while ((len = getline(&line, &cap, f)) >= 0) {
                        if (len > 0 && line[len - 1] == '\n')
                                line[len - 1] = '\0';
                        mods = xrealloc(mods, (n + 1) * sizeof(*mods));
                        mods[n++] = xstrdup(line);
                }
                start = now_ms();
                for (size_t i = 0; i < n; i++) {
                        _cleanup_free_ struct hwdb_property *props = NULL;
                        size_t np;

                        if (hwdb_query(h, mods[i], &props, &np) == 0)
                                total += np;
                }
                ms = now_ms() - start;
                printf("query: %zu modaliases, %zu properties, %.2f us per query\n",
                       n, total, n ? ms * 1e3 / (double) n : 0.0);
                for (size_t i = 0; i < n; i++)
                        free(mods[i]);
                free(mods);
        }
        hwdb_free(h);

        if (getrusage(RUSAGE_SELF, &ru) == 0)
                printf("peak RSS: %ld KiB\n", ru.ru_maxrss);
        return 0;
}
