/* measure-pkg.c: the package C-state residency counters of Intel's cstate_pkg
 * perf PMU (arch/x86/events/intel/cstate.c), or a test's files in their place
 *
 * The PMU counts system-wide only (cstate_pmu_event_init() refuses
 * event->cpu < 0), one reader CPU per package (its cpumask file), and its
 * counters are the PKG_Cx_RESIDENCY MSRs, which count at the time stamp
 * counter's rate: a share of the time is a delta over the TSC's delta. */
#include "config.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "engine/measure-pkg.h"
#include "base/util.h"

#define PMU "/bus/event_source/devices/cstate_pkg"
#define MAX_PKGS 16

const char *const measure_pkg_events[_M_PKG_MAX] = {
        "c2-residency", "c3-residency", "c6-residency", "c7-residency", "c8-residency", "c9-residency",
        "c10-residency",
};
const char *const measure_pkg_names[_M_PKG_MAX] = { "PC2", "PC3", "PC6", "PC7", "PC8", "PC9", "PC10" };

struct measure_pkg {
        int err;
        bool have[_M_PKG_MAX];
        char *test_dir;                         /* a test's counts: ENV->perf_dir */
        int fd[_M_PKG_MAX][MAX_PKGS];
        size_t n_cpus;
};

/* "event=0x06" (the PMU's format is "config:0-63"): the config */
static int event_config(const char *dir, const char *event, unsigned long long *ret)
{
        _cleanup_free_ char *v = NULL;
        const char *at;
        char *end;

        if (read_attr(dir, event, &v) < 0)
                return -ENOENT;
        at = strstr(v, "event=");
        if (!at)
                return -EBADMSG;
        errno = 0;
        *ret = strtoull(at + strlen("event="), &end, 0);
        return errno || end == at + strlen("event=") ? -EBADMSG : 0;
}

/* the cpumask file, a CPU list ("0" or "0,28" or "0-1"): its first MAX_PKGS CPUs */
static size_t parse_cpus(const char *s, int *cpus)
{
        size_t n = 0;

        while (*s && n < MAX_PKGS) {
                char *end;
                long a = strtol(s, &end, 10), b;
                if (end == s || a < 0)
                        break;
                b = a;
                if (*end == '-')
                        b = strtol(end + 1, &end, 10);
                for (long c = a; c <= b && n < MAX_PKGS; c++)
                        cpus[n++] = (int) c;
                s = end + (*end == ',');
        }
        return n;
}

static int perf_open(unsigned type, unsigned long long config, int cpu)
{
        struct perf_event_attr attr = { .type = type, .size = sizeof(attr), .config = config };
        long fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

        return fd < 0 ? -errno : (int) fd;
}

static void open_events(struct measure_pkg *p, const char *pmu)
{
        _cleanup_free_ char *type_s = NULL, *mask = NULL, *events = xasprintf("%s/events", pmu);
        int cpus[MAX_PKGS];
        unsigned long long config[_M_PKG_MAX];
        unsigned type;

        if (read_attr(pmu, "type", &type_s) < 0 || read_attr(pmu, "cpumask", &mask) < 0) {
                p->err = -ENOENT;
                return;
        }
        type = (unsigned) strtoul(type_s, NULL, 10);
        p->n_cpus = parse_cpus(mask, cpus);
        if (p->n_cpus == 0) {
                /* no reader CPU (all of a package's CPUs offline): nothing counts */
                p->err = -ENOENT;
                return;
        }
        for (size_t i = 0; i < _M_PKG_MAX; i++)
                p->have[i] = event_config(events, measure_pkg_events[i], &config[i]) == 0;
        for (size_t i = 0; i < _M_PKG_MAX; i++)
                for (size_t c = 0; c < MAX_PKGS; c++)
                        p->fd[i][c] = -1;
        for (size_t i = 0; i < _M_PKG_MAX && !p->err; i++)
                for (size_t c = 0; p->have[i] && c < p->n_cpus && !p->err; c++) {
                        int fd = perf_open(type, config[i], cpus[c]);
                        if (fd < 0)
                                p->err = fd;
                        else
                                p->fd[i][c] = fd;
                }
}

struct measure_pkg *measure_pkg_open(const char *sys, const char *perf_dir)
{
        struct measure_pkg *p = xcalloc(1, sizeof(*p));
        _cleanup_free_ char *pmu = xasprintf("%s%s", sys, PMU);

        if (access(pmu, F_OK) < 0) {
                p->err = -ENOENT;
                return p;
        }
        if (perf_dir) {
                /* a test's seam: the events from the (mock) sysfs, the counts from its files */
                _cleanup_free_ char *events = xasprintf("%s/events", pmu), *refused = NULL;
                unsigned long long config;
                p->test_dir = xstrdup(perf_dir);
                for (size_t i = 0; i < _M_PKG_MAX; i++)
                        p->have[i] = event_config(events, measure_pkg_events[i], &config) == 0;
                if (read_attr(perf_dir, "refused", &refused) == 0)
                        p->err = streq(refused, "EPERM") ? -EPERM : -EACCES;
                return p;
        }
#if defined(__x86_64__) || defined(__i386__)
        open_events(p, pmu);
#else
        p->err = -EOPNOTSUPP;
#endif
        return p;
}

static int read_count(const struct measure_pkg *p, size_t i, unsigned long long *ret)
{
        *ret = 0;
        if (p->test_dir) {
                _cleanup_free_ char *v = NULL;
                if (read_attr(p->test_dir, measure_pkg_events[i], &v) < 0)
                        return -ENOENT;
                *ret = strtoull(v, NULL, 10);
                return 0;
        }
        /* the packages' counters summed; the TSC's delta is multiplied by their number */
        for (size_t c = 0; c < p->n_cpus; c++) {
                unsigned long long v;
                if (p->fd[i][c] < 0 || read(p->fd[i][c], &v, sizeof(v)) != (ssize_t) sizeof(v))
                        return -EIO;
                *ret += v;
        }
        return 0;
}

void measure_pkg_read(struct measure_pkg *p, struct m_pkg *ret)
{
        *ret = (struct m_pkg) { .err = p ? p->err : -ENOENT };
        if (!p || p->err < 0)
                return;
        memcpy(ret->have, p->have, sizeof(ret->have));
        for (size_t i = 0; i < _M_PKG_MAX; i++)
                if (p->have[i] && read_count(p, i, &ret->count[i]) < 0)
                        ret->err = -EIO;
        if (p->test_dir) {
                _cleanup_free_ char *v = NULL;
                if (read_attr(p->test_dir, "tsc", &v) < 0)
                        ret->err = -EOPNOTSUPP;
                else
                        ret->tsc = strtoull(v, NULL, 10);
        } else {
#if defined(__x86_64__) || defined(__i386__)
                ret->tsc = __rdtsc() * (p->n_cpus ? p->n_cpus : 1);
#else
                ret->err = -EOPNOTSUPP;
#endif
        }
}

void measure_pkg_close(struct measure_pkg *p)
{
        if (!p)
                return;
        for (size_t i = 0; !p->test_dir && p->err != -ENOENT && i < _M_PKG_MAX; i++)
                for (size_t c = 0; c < p->n_cpus; c++)
                        if (p->fd[i][c] >= 0)
                                close(p->fd[i][c]);
        free(p->test_dir);
        free(p);
}
