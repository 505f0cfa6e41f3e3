/* apply.h: the plan's live settings written to sysfs, journal first; undo; verify */
#pragma once

#include <stdio.h>

#include "inventory.h"
#include "plan.h"
#include "rootfs.h"

struct apply_options {
        bool keep_going;        /* apply what the kernel takes instead of undoing the run */
        bool dry_run;
};

/* 0 nothing to change, 1 changed, <0 failure (ret_error says what; with
 * keep_going -EIO after applying what could be). The journal lives in the
 * root's state directory. */
int apply_run(const struct rootfs *rfs, const struct plan *p, const struct apply_options *o, FILE *out,
              struct xerror *ret_error);

/* Restore every journaled value, last first; values someone else changed since
 * are reported and kept unless FORCE. 0 done, 1 no journal, -EBUSY some left. */
int apply_rollback(const struct rootfs *rfs, bool force, FILE *out, struct xerror *ret_error);

/* Compare the running system with the plan; list the idle blockers.
 * 0 everything matches, 1 drift, <0 failure. */
int verify_run(const struct rootfs *rfs, const struct plan *p, const struct inventory *inv, bool json,
               FILE *out, struct xerror *ret_error);

/* the sysfs file a setting writes at run time; NULL when it has none
 * (a boot-time parameter), with the reason in *ret_why */
char *setting_live_path(const struct setting *s, const char **ret_why);
/* an attribute's value for comparing: the [selected] word of a list, or the
 * text without trailing white space */
char *value_normalize(const char *raw);
