/* verb-measure-around.h: apply --measure and rollback --measure
 * (verb-measure-around.c) */
#pragma once

#include <stdio.h>

#include "cli/verb-measure.h"
#include "root/rootfs.h"

/* measure, run CHANGE (which prints to OUT and returns an exit status), wait
 * for the settings to take effect, measure again, print before and after,
 * and what each setting that changed gained or lost. WHAT is "apply" or
 * "rollback". The exit status is CHANGE's, or 3. RECORD (apply's live root;
 * NULL: none) keeps the per-setting results in its state directory
 * (state/measured.h) for idlecfg report. */
int measure_around(const struct measure_request *q, const char *what, const struct plan *p,
                   const struct inventory *inv, const struct rootfs *record,
                   int (*change)(void *userdata, FILE *out), void *userdata);
