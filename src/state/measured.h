/* measured.h: what the last apply --measure found per setting, kept for
 * idlecfg report: the setting (knob, device as a report names it), its live
 * value before and after, and its gain or loss in the unit the machine gave
 * (the device's runtime-suspended share), or that the machine-wide change is
 * its own, or not measurable here; the machine-wide residency and watts; when,
 * with which kernel and on which hardware (fingerprint) it was measured */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "root/rootfs.h"
#include "base/util.h"

/* "idlecfg-measured 1", then lines of escaped fields (state/records.h):
 *   measured TIME KERNEL FINGERPRINT PROFILE
 *   residency STATE BEFORE AFTER       (thousandths of a percent; "residency" alone: not measurable)
 *   watts BEFORE AFTER FROM            (milliwatts; "watts" alone: not measurable)
 *   setting KNOB DEVICE BEFORE AFTER runtime_suspended_time PCT_BEFORE PCT_AFTER
 *   setting KNOB DEVICE BEFORE AFTER machine_wide | not_measurable
 * (an empty field: none). Written by apply --measure, removed with the
 * journal of apply (rollback) and by state_cleanup(). */
#define MEASURED_PATH "/var/lib/idlecfg/measured"

enum measured_kind {
        MEASURED_DEVICE,        /* its device's runtime-suspended share, before and after */
        MEASURED_MACHINE,       /* the only setting that changed: the machine-wide change is its own */
        MEASURED_NONE,          /* not measurable here */
};

struct measured_setting {
        char *knob;
        char *device;           /* NULL: on no device, or a name a report may not carry */
        char *value_before, *value_after;       /* NULL: not read */
        enum measured_kind kind;
        long long before_milli, after_milli;    /* MEASURED_DEVICE: percent x 1000 */
};

struct measured {
        long long time;         /* seconds since the epoch */
        char *kernel, *fingerprint, *profile;
        bool have_residency;
        char *state;            /* the package state the residency is of */
        long long residency_before, residency_after;    /* percent x 1000 */
        bool have_watts;
        long long mw_before, mw_after;
        char *watts_from;
        struct measured_setting *v;
        size_t n;
        size_t skipped;         /* malformed setting lines left out (each warned, NAME:LINE) */
};

/* the record of RFS: 0 and *RET; -ENOENT: none; -EINVAL with RET_ERROR
 * naming file and line when it is not such a file. A malformed line of a
 * setting is left out with a warning (rootfs_warn(): file and line). */
int measured_load(const struct rootfs *rfs, struct measured *ret, struct xerror *ret_error);
/* M as the record, atomically */
int measured_save(const struct rootfs *rfs, const struct measured *m, struct xerror *ret_error);
/* the record and what a killed write of it left: 0 when there was none */
int measured_remove(const struct rootfs *rfs);
/* add a setting to M (strings copied) */
struct measured_setting *measured_add(struct measured *m, const char *knob, const char *device,
                                      const char *value_before, const char *value_after, enum measured_kind kind);
void measured_done(struct measured *m);
