/* measure.h: the difference of two samples (measure-sample.h), as plain data (never printed here) */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "model/inventory.h"
#include "engine/measure-sample.h"
#include "model/plan.h"

/* ---- the difference of two samples ---- */

enum awake_why {
        WHY_SUSPENDED,          /* not awake: suspended for part or all of the interval */
        WHY_NO_RUNTIME_PM,      /* runtime_status unsupported: its driver does not use runtime PM */
        WHY_KNOB_OFF,           /* power/control = on, and the plan would allow it (or plans nothing) */
        WHY_ON_PURPOSE,         /* power/control = on as planned: the plan's reason */
        WHY_CHILD,              /* runtime PM allowed, an awake child keeps it awake */
        WHY_BUSY,               /* runtime PM allowed, no awake child: in use, or its autosuspend delay */
        _WHY_MAX,
};
extern const char *const awake_why_names[_WHY_MAX];    /* JSON words: "suspended", "no-runtime-pm", ... */

struct measure_dev {
        const struct m_dev *d;          /* in the end sample */
        const char *class;              /* inventory class, NULL if idlecfg does not plan its class */
        bool have_times;
        unsigned long long active_ms, suspended_ms;     /* deltas, when have_times */
        bool awake;                     /* never suspended in the interval (or active at the end without times) */
        enum awake_why why;
        const struct setting *s;        /* the plan's runtime PM setting on it, if any */
        const char *knob;               /* knob that turns runtime PM on for it (s->knob, or by class) */
        size_t *chain;                  /* WHY_CHILD: indexes into measure_result.devs, first the child, last the leaf */
        size_t n_chain;
};

struct measure_cstate {
        const char *name;
        bool have;                      /* time and usage in both samples */
        unsigned long long time_us, usage;
};
struct measure_cpu {
        unsigned cpu;
        struct measure_cstate *states;
        size_t n_states;
};

struct measure_zone {
        const struct m_zone *z;
        int err;                        /* 0, or why there is no delta */
        bool wrapped;
        unsigned long long delta_uj;
};

struct measure_battery {
        const struct m_battery *b;      /* in the end sample */
        bool have_energy;               /* energy (or charge x voltage) in both samples */
        long long drained_uwh;          /* start - end (negative while charging) */
};

struct measure_count {
        const struct m_count *c;
        unsigned long long delta, delta2;
};

/* suspend cycles during the run (#36): /sys/power/suspend_stats and the PMC */
#define MEASURE_HW_SLEEP_WRAP_US (71ull * 60 * 1000000)   /* last_hw_sleep wraps after about 71 minutes */
struct measure_suspend {
        bool have_cycles;               /* suspend_stats/success readable at both samples */
        unsigned long long cycles;      /* suspend cycles between them */
        /* the last cycle's hardware sleep: only when a cycle ran and the run is
         * shorter than MEASURE_HW_SLEEP_WRAP_US (a longer cycle wraps it) */
        bool have_last_hw_sleep;
        bool hw_sleep_wraps;            /* a cycle ran, but the run is too long for last_hw_sleep */
        unsigned long long last_hw_sleep_us;
        struct m_value total_hw_sleep_us;       /* delta */
        struct m_value amd_s0ix_us;             /* delta */
        /* the IRQ that woke the last cycle, when a cycle ran and the kernel says
         * (pm_wakeup_irq), with its /proc/interrupts line; NULL: none */
        bool have_wakeup_irq;
        unsigned long long wakeup_irq;
        const struct m_count *wakeup_irq_line;
        const char *last_failed_dev;    /* the second sample's, NULL if none */
};

struct measure_result {
        uint64_t interval_us;
        const struct measure_sample *a, *b;
        struct measure_dev *devs;       /* devices with runtime PM, and those of planned classes without */
        size_t n_devs;
        struct measure_cpu *cpus;
        size_t n_cpus;
        struct m_value residency[_M_RES_MAX];   /* deltas */
        struct measure_zone *zones;
        size_t n_zones;
        struct measure_battery *bats;
        size_t n_bats;
        struct measure_count *irqs;     /* nonzero deltas, largest first */
        size_t n_irqs;
        struct measure_count *wakeups;  /* nonzero deltas, largest first */
        size_t n_wakeups;
        struct measure_suspend susp;
};

/* A and B stay owned by the caller and must outlive the result; P and INV may be NULL. */
int measure_diff(const struct measure_sample *a, const struct measure_sample *b, const struct plan *p,
                 const struct inventory *inv, struct measure_result **ret);
void measure_result_free(struct measure_result *r);

/* energy in microjoules between two readings of a counter that wraps at MAX */
unsigned long long measure_energy_delta(unsigned long long start, unsigned long long end, unsigned long long max,
                                        bool *ret_wrapped);

/* How long settings need to take effect on the devices of S: the longest chain
 * of autosuspend delays of devices that are awake and allowed to suspend (a
 * parent suspends after its child, then waits its own delay), at least the
 * longest delay a setting of the plan adds (knob_settle_ms(): an audio codec's
 * power_save), which goes to ret_knob_ms with the family's words for it
 * (N_() marked, "%llu": seconds). The chain's devices go to ret_chain
 * (indexes into S->devs, leaf first). Milliseconds, without margin. */
unsigned long long measure_settle_ms(const struct measure_sample *s, const struct plan *p, size_t **ret_chain,
                                     size_t *ret_n_chain, unsigned long long *ret_knob_ms,
                                     const char **ret_knob_message);

/* ---- before and after a change (apply --measure, rollback --measure) ---- */

struct measure_change {
        const struct measure_dev *before, *after;
        bool now_suspends;              /* awake before, suspended part of the time after; false: the reverse */
        /* the device whose power/control changed between the two measurements:
         * the device itself, or one of the chain that kept it awake before (or
         * keeps it awake now); NULL when no such change explains it */
        const struct m_dev *cause;
        const char *control_before, *control_after;
        const struct setting *s;        /* the plan's runtime PM setting on the cause */
};

int measure_compare(const struct measure_result *before, const struct measure_result *after, const struct plan *p,
                    struct measure_change **ret, size_t *ret_n);
