/* measure-pkg.h: the package C-state residency counters of Intel's cstate_pkg
 * perf PMU, read at one moment (never printed here) */
#pragma once

#include <stdbool.h>

/* the PMU's events, shallow to deep: c2-residency ... c10-residency
 * (arch/x86/events/intel/cstate.c: PMU_EVENT_ATTR_STRING(c2-residency, ...,
 * "event=0x00") ... (c10-residency, ..., "event=0x06")) */
enum { M_PKG_C2, M_PKG_C3, M_PKG_C6, M_PKG_C7, M_PKG_C8, M_PKG_C9, M_PKG_C10, _M_PKG_MAX };
extern const char *const measure_pkg_events[_M_PKG_MAX];   /* "c2-residency", ... */
extern const char *const measure_pkg_names[_M_PKG_MAX];    /* "PC2", ... "PC10" */

/* one reading: the counters of the events this CPU has, and the time stamp
 * counter they count at (the residency MSRs count at the TSC's rate) */
struct m_pkg {
        /* 0, or why there is no reading: -ENOENT no cstate_pkg PMU (not an
         * Intel CPU, or a model cstate.c does not know), -EACCES or -EPERM
         * perf_event_open refused (no CAP_PERFMON, perf_event_paranoid > 0),
         * -EOPNOTSUPP no time stamp counter to divide by */
        int err;
        bool have[_M_PKG_MAX];          /* the PMU has the event (events/cN-residency) */
        unsigned long long count[_M_PKG_MAX];
        unsigned long long tsc;
};

struct measure_pkg;

/* Open the cstate_pkg events below SYS ("/sys") once: perf_event_open(2) of each
 * event on each CPU of the PMU's cpumask (system-wide counting, the only
 * mode the PMU has). With a test's PERF_DIR the counts are that
 * directory's files instead (measure-sample.h, struct measure_env). Never fails: a refusal is
 * kept and each reading says it. */
struct measure_pkg *measure_pkg_open(const char *sys, const char *perf_dir);
void measure_pkg_read(struct measure_pkg *p, struct m_pkg *ret);
void measure_pkg_close(struct measure_pkg *p);
