/* verb-measure-around.h: apply --measure and rollback --measure
 * (verb-measure-around.c) */
#pragma once

#include <stdio.h>

#include "cli/verb-measure.h"

/* measure, run CHANGE (which prints to OUT and returns an exit status), wait
 * for the settings to take effect, measure again, print before and after,
 * and what each setting that changed gained or lost. WHAT is "apply" or
 * "rollback". The exit status is CHANGE's, or 3. */
int measure_around(const struct measure_request *q, const char *what, const struct plan *p,
                   const struct inventory *inv, int (*change)(void *userdata, FILE *out), void *userdata);
