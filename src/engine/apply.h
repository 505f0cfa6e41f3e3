/* apply.h: the plan's live settings written to sysfs, journal first; undo */
#pragma once

#include "model/plan.h"
#include "root/rootfs.h"
#include "state/state.h"

struct apply_options {
        bool keep_going;        /* apply what the kernel takes instead of undoing the run */
        bool dry_run;
        /* a switch to AC from battery: the live files of the table at the switch
         * to battery, one a line (the battery mark's text); NULL otherwise. A
         * file not in it that the journal does not name and that holds its
         * setting's value_battery appeared since (a module loaded, a device
         * bound) and got that value from the installed rules under the mark,
         * unjournaled: it is journaled as that write too, from the setting's
         * value, so that rollback restores the value the file takes without
         * the switch, not the battery one */
        const char *battery_seen;
};

/* what apply did with one setting, or with its all-or-nothing undo */
enum apply_state {
        APPLY_LATER,            /* no file at run time: why says when it takes effect */
        APPLY_SYSCTL_ABSENT,    /* the running kernel has no such sysctl */
        APPLY_SYSCTL_READONLY,  /* ... or has it read-only */
        APPLY_MODULE_LATER,     /* the module is not loaded or does not show the parameter */
        APPLY_PARAM_READONLY,   /* the parameter is read-only at run time */
        APPLY_ABSENT,           /* the device's attribute does not exist now */
        APPLY_READ_FAILED,      /* err: the old value cannot be read, nothing written */
        APPLY_WOULD_SET,        /* --dry-run */
        APPLY_SET,
        APPLY_REFUSED,          /* err: the kernel refused the write */
        APPLY_UNDOING,          /* the undo of this run's n_undo changes begins (all or nothing) */
        APPLY_UNDONE,
        APPLY_UNDO_FAILED,      /* err: rollback will try again */
};

struct apply_entry {
        enum apply_state state;
        const struct setting *s;        /* NULL for APPLY_UNDOING */
        char *path;                     /* the live file */
        char *old;                      /* the value before, normalized (set, would set) */
        const char *why;                /* APPLY_LATER */
        int err;
        size_t n_undo;                  /* APPLY_UNDOING */
};

/* the entries in the order they happened; the counts when the run got to its end */
struct apply_result {
        struct apply_entry *v;
        size_t n;
        bool finished;          /* the counts below are the run's (not set after an undo) */
        size_t n_changed, n_would, n_same, n_later, n_failed;
};
void apply_result_free(struct apply_result *r);

/* 0 nothing to change, 1 changed, <0 failure (ret_error says what; with
 * keep_going -EIO after applying what could be). The journal lives in the
 * running system's state directory (state_live_root()), whatever RFS is. What happened is in *ret, also on failure. */
int apply_run(const struct rootfs *rfs, const struct plan *p, const struct apply_options *o,
              struct apply_result *ret, struct xerror *ret_error);

/* Restore every journaled value, last first; values someone else changed since
 * are reported and kept unless FORCE. 0 done, 1 no journal, -EBUSY some left.
 * What happened is in *ret, also on failure. */
int apply_rollback(const struct rootfs *rfs, bool force, struct rollback_result *ret, struct xerror *ret_error);

/* the sysfs file a setting writes at run time; NULL when it has none
 * (a boot-time parameter), with the reason in *ret_why */
char *setting_live_path(const struct setting *s, const char **ret_why);
/* an attribute's value for comparing: the [selected] word of a list, or the
 * text without trailing white space */
char *value_normalize(const char *raw);
/* where a setting is: its device's name, its module, or "system" */
const char *setting_where(const struct setting *s);
