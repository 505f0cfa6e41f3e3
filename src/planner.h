/* planner.h: build a plan by running every knob family of the registry */
#pragma once

#include "knobs/knob.h"

struct plan_options {
        const char *root;
        const char *profile;            /* --profile, NULL for the usual choice */
        const char *profiles_dir;       /* extra profile directory (tests, uninstalled runs) */
};

/* ret_error (struct xerror, util.h) names file and line where there is one */
int plan_build(const struct inventory *inv, const struct plan_options *o, struct plan **ret,
               struct xerror *ret_error);
