/* planner.h: build a plan by running every knob family of the registry */
#pragma once

#include "knobs/knob.h"

struct plan_options {
        const char *profile;            /* --profile, NULL for the usual choice */
        /* set: PROFILE is chosen already (profile_select_rootfs(), by refresh), and this is why */
        const char *profile_reason;
        const char *profiles_dir;       /* extra profile directory (tests, uninstalled runs) */
        /* the kernel parameters an earlier install added (its manifest's): read in
         * /etc/kernel/cmdline or /proc/cmdline, they are not the administrator's */
        const char *own_words;
};

/* ret_error (struct xerror, util.h) names file and line where there is one */
int plan_build(const struct inventory *inv, const struct plan_options *o, struct plan **ret,
               struct xerror *ret_error);
