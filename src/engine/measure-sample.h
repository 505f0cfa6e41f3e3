/* measure-sample.h: idle counters sampled at one moment, as plain data
 * (never printed here); the clock between two samples: measure-clock.h */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/measure-clock.h"
#include "engine/measure-pkg.h"

/* Where the counters are read: "/sys" and "/proc" on a live system. The unit
 * tests give a directory of their own for both; the shell tests replace /proc
 * only (umockdev redirects /sys), through IDLECFG_TEST_PROC.
 * The package C-state counters are perf events, which no file can stand in
 * for: PKG (measure_pkg_open(), NULL: none read) reads them by
 * perf_event_open(2), or, with PERF_DIR set, from that directory's files
 * (cN-residency and tsc, each a count; "refused" holding EACCES or EPERM
 * refuses them). Only the tests set PERF_DIR: the unit tests, and the cli
 * under umockdev, whose /sys is a recording the host's counters would
 * contradict (verb-measure.c, session_init()). */
struct measure_env {
        const char *sys;
        const char *proc;
        const char *perf_dir;
        struct measure_pkg *pkg;
};

/* a counter that may be absent or unreadable: err is 0 or -errno */
struct m_value {
        int err;
        unsigned long long v;
};

struct m_dev {
        char *devpath;          /* /devices/... */
        char *name, *subsystem, *driver;
        char *status;           /* power/runtime_status: active, suspended, unsupported, ... */
        char *control;          /* power/control, NULL if absent */
        long long delay_ms;     /* power/autosuspend_delay_ms, -1 without autosuspend */
        struct m_value active_ms, suspended_ms; /* power/runtime_active_time, runtime_suspended_time */
        /* a PCI function: link/l1_aspm (drivers/pci/pcie/aspm.c, since 5.5),
         * -1 absent (no such link state, or no link); and its LTR from the
         * config space's PCI Express capability: 1 enabled, 0 capable but not
         * enabled (Device Control 2's LTR_EN), -1 not capable or unknown (the
         * config space beyond 64 bytes is root's: ltr_unknown) */
        signed char l1_aspm, ltr;
        bool ltr_unknown;
};

struct m_cstate {
        unsigned index;
        char *name;
        struct m_value time_us, usage;
};

struct m_cpu {
        unsigned cpu;
        struct m_cstate *states;
        size_t n_states;
};

struct m_zone {
        char *id;               /* intel-rapl:0 */
        char *name;             /* package-0 */
        struct m_value energy_uj, max_uj;
};

struct m_battery {
        char *name;
        char *status;           /* Discharging, Charging, Full, ... (NULL: unreadable) */
        struct m_value power_uw, energy_uwh, charge_uah, voltage_uv;
};

struct m_count {
        char *key;              /* irq label ("127", "LOC") or wakeup source name */
        char *desc;             /* irq chip and handlers; wakeup source's device */
        unsigned long long count;
        unsigned long long count2;      /* wakeups: wakeup_count */
};

enum { M_LPI_CPU, M_LPI_SYSTEM, M_PMC_SLP_S0, _M_RES_MAX };
extern const char *const measure_residency_names[_M_RES_MAX];
extern const char *const measure_residency_paths[_M_RES_MAX];
/* one package residency counter (M_LPI_CPU, ...) below SYS ("/sys"): the one
 * reader of measure and verify */
struct m_value measure_read_residency(const char *sys, unsigned i);

/* /sys/power: the suspend cycles and what the kernel says of the last one */
struct m_suspend {
        struct m_value success;         /* suspend_stats/success: cycles so far */
        struct m_value last_hw_sleep;   /* suspend_stats/last_hw_sleep, us in hardware sleep in the last cycle */
        struct m_value total_hw_sleep;  /* suspend_stats/total_hw_sleep, us */
        struct m_value wakeup_irq;      /* pm_wakeup_irq: the IRQ that woke the last cycle */
        char *last_failed_dev;          /* suspend_stats/last_failed_dev, NULL if empty or absent */
        /* amd_pmc's S0i3 residency, us ("Residency Time:" of
         * /sys/kernel/debug/amd_pmc/s0ix_stats, where debugfs is readable) */
        struct m_value amd_s0ix_us;
};

struct measure_sample {
        uint64_t t_us;
        struct m_dev *devs;             /* sorted by devpath */
        size_t n_devs;
        char *cpuidle_driver;           /* NULL: none */
        struct m_cpu *cpus;
        size_t n_cpus;
        struct m_value residency[_M_RES_MAX];
        struct m_zone *zones;
        size_t n_zones;
        struct m_battery *bats;
        size_t n_bats;
        int irq_err;                    /* /proc/interrupts */
        struct m_count *irqs;
        size_t n_irqs;
        int wakeup_err;
        const char *wakeup_from;        /* "/sys/class/wakeup", "/sys/kernel/debug/wakeup_sources" */
        struct m_count *wakeups;
        size_t n_wakeups;
        struct m_suspend susp;
        struct m_pkg pkg;               /* the cstate_pkg counters (measure-pkg.h) */
};

/* /proc/interrupts: a header of CPU columns, then "LABEL: n n ... description";
 * the counts of each line summed, the description with single spaces */
int measure_parse_interrupts(const char *text, struct m_count **ret, size_t *ret_n);

int measure_sample(const struct measure_env *env, const struct measure_clock *c, struct measure_sample **ret);
void measure_sample_free(struct measure_sample *s);
/* the order of a sample's devices: by devpath (qsort, bsearch) */
int measure_dev_cmp(const void *a, const void *b);
