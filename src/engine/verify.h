/* verify.h: the running system held against the plan; the idle blockers the
 * knob families declare; the package residency counters */
#pragma once

#include "model/inventory.h"
#include "engine/measure.h"
#include "model/plan.h"
#include "root/rootfs.h"

struct manifest;

/* verify: each setting of the plan against the running system */
enum verify_state { VERIFY_MATCH, VERIFY_DRIFT, VERIFY_LATER, VERIFY_MISSING, _VERIFY_MAX };
/* "match", "drift", "later", "missing": the states as verify --json and the
 * monitoring formats name them (for programs: never translated) */
extern const char *const verify_state_names[_VERIFY_MAX];

/* the residency counters as verify names them, with their unit
 * ("low_power_idle_cpu_residency_us"; measure names the last one
 * slp_s0_residency_usec) */
extern const char *const verify_residency_names[_M_RES_MAX];
/* the length of counter I's name without "_residency" and the unit, as the
 * monitoring formats name it ("low_power_idle_cpu") */
int verify_residency_stem(size_t i);

/* something that keeps a device or the package out of its idle state */
struct verify_blocker {
        const struct device *d;
        char *what;
        const char *knob;               /* the knob family that would change it, or NULL */
        const struct setting *s;        /* the plan's setting of that knob on the device, or NULL */
};

/* the runtime power of a device whose power/control = auto the plan sets
 * with a knob a family follows (.runtime_followed: a GPU's) */
enum verify_runtime_state {
        VERIFY_RT_D3COLD,               /* power_state or real_power_state D3cold: the platform cut its power */
        VERIFY_RT_SUSPENDED,            /* runtime-suspended, not in D3cold (D3hot, or no power state shown) */
        VERIFY_RT_AWAKE,                /* not runtime-suspended */
        _VERIFY_RT_MAX
};
/* "d3cold", "suspended", "awake": as verify --json names them (never translated) */
extern const char *const verify_runtime_names[_VERIFY_RT_MAX];

struct verify_runtime {
        const struct device *d;
        size_t setting;                 /* the plan's setting (p->v[setting]) that lets it suspend */
        enum verify_runtime_state state;
        char *status;                   /* power/runtime_status, NULL: unreadable */
        char *power_state;              /* power_state (PCI, Linux 5.11 on), NULL: absent */
        char *real_power_state;         /* firmware_node/real_power_state (ACPI), NULL: absent */
        long long suspended_ms;         /* power/runtime_suspended_time (ms, since the device was added), -1: unreadable */
        const char *why;                /* not D3cold: the device's idle blocker that says why (its what, owned
                                         * by the result's blockers), NULL: none */
};

/* a platform prerequisite of deep idle (the families' .prereqs) that applies here */
struct verify_prereq {
        const char *name;               /* "pmc", "pciehp", "i2c_hid_acpi", "mem_sleep" */
        bool met;
        char *what;                     /* !met: what is missing and what it costs (translated) */
};

struct verify_result {
        bool installed;                 /* the root has a manifest */
        size_t n;                       /* the plan's number of settings */
        enum verify_state *state;       /* per setting of the plan (p->v[i]); those without a value unset */
        char **actual;                  /* per setting: the value read, or NULL */
        size_t count[_VERIFY_MAX];
        struct verify_blocker *blockers;
        size_t n_blockers;
        struct verify_runtime *runtime; /* in the order of the devices, as the blockers */
        size_t n_runtime;
        struct {
                bool have;              /* readable at both looks */
                unsigned long long value, delta;        /* the second look, and its growth in 0.25 s */
        } residency[_M_RES_MAX];
        struct verify_prereq *prereqs;
        size_t n_prereqs;
        /* the grub.d file after idlecfg's that sets GRUB's command line
         * without its words (shown as in the root): the command-line
         * settings counted missing for it; NULL: none */
        char *grub_dropped_by;
};
/* the platform prerequisites that apply to the running system (INV, P: its
 * plan, for the boot command line), in the families' order */
void verify_prereqs(const struct inventory *inv, const struct plan *p, struct verify_prereq **ret, size_t *ret_n);
void verify_prereqs_free(struct verify_prereq *v, size_t n);
void verify_result_free(struct verify_result *r);

/* Compare the running system with the plan; list the idle blockers.
 * 0 everything matches, 1 drift, <0 failure (a manifest that exists but is
 * refused too: not "not installed"). */
int verify_run(const struct rootfs *rfs, const struct plan *p, const struct inventory *inv,
               struct verify_result *ret, struct xerror *ret_error);
/* the same with the root's manifest M already read (NULL: none) */
int verify_run_of(const struct rootfs *rfs, const struct plan *p, const struct inventory *inv,
                  const struct manifest *m, struct verify_result *ret, struct xerror *ret_error);
