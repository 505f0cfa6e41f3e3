/* measure-floor.h: the floor of one measurement (the deepest package C-state
 * reached, the devices most likely holding it) and what each setting a change
 * made gained or lost, as plain data (never printed here) */
#pragma once

#include "engine/measure.h"

/* ---- the floor: the deepest package C-state reached, and what holds it ---- */

enum floor_source {
        FLOOR_NONE,             /* no counter of package idle here */
        FLOOR_CSTATE_PKG,       /* Intel's cstate_pkg perf events: each package C-state */
        FLOOR_LPIT,             /* ACPI LPIT's CPU residency: PC10 or not, not which state above it */
        FLOOR_WATTS,            /* no package C-state counter (AMD has none): watts only */
        _FLOOR_MAX,
};
extern const char *const floor_source_names[_FLOOR_MAX];       /* JSON words: "none", "cstate_pkg", ... */

/* why a device may hold the package above its deepest state, in the order
 * they are ranked: what a setting would change first, then what the kernel
 * shows keeping a link or its latency tolerance up, then devices in use */
enum holder_kind {
        HOLD_KNOB_OFF,          /* awake, runtime PM off (power/control = on) where a knob would allow it */
        HOLD_ASPM,              /* a PCI function awake on a link with ASPM L1 disabled (link/l1_aspm = 0) */
        HOLD_LTR,               /* a PCI function awake, LTR capable but not enabled */
        HOLD_CHILD,             /* awake because an awake child holds it (the chain's leaf named) */
        HOLD_ON_PURPOSE,        /* awake: power/control = on as the plan means it */
        HOLD_BUSY,              /* awake with runtime PM allowed: in use */
        HOLD_NO_RUNTIME_PM,     /* awake: its driver has no runtime PM */
        _HOLD_MAX,
};
extern const char *const holder_kind_names[_HOLD_MAX];         /* JSON words: "knob-off", "aspm-l1-off", ... */

struct measure_holder {
        enum holder_kind kind;
        const struct measure_dev *m;
};

struct measure_floor {
        enum floor_source source;
        int pkg_err;                    /* why cstate_pkg was not used: 0, -ENOENT, -EACCES, -EPERM, ... */
        /* FLOOR_CSTATE_PKG: each state's residency (have: the CPU has the event) */
        bool pkg_have[_M_PKG_MAX];
        unsigned long long pkg_us[_M_PKG_MAX];
        /* the deepest the platform offers (its name: "PC10"), and where that was
         * read ("cstate_pkg", "lpit", "cpuidle"); NULL: unknown */
        const char *deepest, *deepest_from;
        /* the deepest reached during the interval and its residency; NULL: none
         * reached, or (LPIT) only that PC10 was not */
        const char *reached;
        unsigned long long reached_us;
        bool above;                     /* known to stay above the deepest offered */
        bool have_watts;                /* FLOOR_WATTS and beside the others: the package's or battery's draw */
        long long milliwatts;
        const char *watts_from;         /* the RAPL zone's id or battery's name */
        bool watts_battery;
        struct measure_holder *holders; /* when above: ranked */
        size_t n_holders;
        bool ltr_unknown;               /* some PCI function's LTR unreadable (not root) */
};

/* The floor of R: its samples' cstate_pkg counters, else LPIT's residency,
 * else watts alone (RAPL's package zone or a discharging battery); the
 * holders only where it is known to stay above the deepest state offered.
 * Free with measure_floor_done(). */
void measure_floor(const struct measure_result *r, struct measure_floor *ret);
void measure_floor_done(struct measure_floor *f);
/* the residency of state NAME ("PC10") in F, false where F does not say it */
bool measure_floor_state_us(const struct measure_floor *f, const char *name, unsigned long long *ret_us);

/* ---- per setting: what each changed setting gained or lost ---- */

/* the live value of each setting of P with a value and a live file, NULL
 * where it has none or it is unreadable (setting_live_path()); free with
 * measure_live_free(ret, p->n) */
char **measure_live_values(const struct plan *p);
void measure_live_free(char **v, size_t n);

struct measure_effect {
        const struct setting *s;
        const char *value_before, *value_after;
        /* the unit of one device: its runtime-suspended time, before and after
         * (per_device false: the device has no runtime_suspended_time, or the
         * setting is on no device) */
        bool per_device;
        const struct measure_dev *before, *after;
};

struct measure_effects {
        struct measure_effect *v;       /* the settings whose live value changed */
        size_t n;
        /* the machine-wide units (the floor's residency, watts) go to a setting
         * only when it is the one that changed: else NULL, and not divided */
        const struct measure_effect *machine_owner;
};

/* BEFORE_VALUES, AFTER_VALUES: measure_live_values() before and after the change */
void measure_effects(const struct measure_result *before, const struct measure_result *after, const struct plan *p,
                     char **before_values, char **after_values, struct measure_effects *ret);
void measure_effects_free(struct measure_effects *e);
