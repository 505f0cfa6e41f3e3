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
        /* the words an earlier profile's install gave the boot entries and this
         * one no longer plans (the manifest's dropped-words): the running
         * kernel was booted with them until a reboot, so in /proc/cmdline they
         * are not the administrator's either */
        const char *dropped_words;
};

/* ret_error (struct xerror, util.h) names file and line where there is one */
int plan_build(const struct inventory *inv, const struct plan_options *o, struct plan **ret,
               struct xerror *ret_error);
