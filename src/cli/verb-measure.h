/* verb-measure.h: the measure verb and apply/rollback --measure (the printing side of measure.c) */
#pragma once

#include <stdio.h>

#include "model/inventory.h"
#include "model/plan.h"
#include "engine/measure.h"

struct measure_request {
        unsigned seconds;       /* the length of one measurement */
        bool json;
        int verbose;
};

/* sample, wait, sample, print; the exit status (0, or 3 when /sys cannot be read) */
int measure_show(const struct measure_request *q, const struct plan *p, const struct inventory *inv);

/* one measurement of SECONDS, for a verb that renders it itself (report):
 * 0, or -EIO (said on stderr) */
struct measure_taken {
        struct measure_sample *a, *b;
        struct measure_result *r;
};
int measure_take(unsigned seconds, const struct plan *p, const struct inventory *inv, struct measure_taken *ret);
void measure_taken_done(struct measure_taken *t);

/* measure, run CHANGE (which prints to OUT and returns an exit status), wait
 * for the settings to take effect, measure again, print before and after.
 * WHAT is "apply" or "rollback". The exit status is CHANGE's, or 3. */
int measure_around(const struct measure_request *q, const char *what, const struct plan *p,
                   const struct inventory *inv, int (*change)(void *userdata, FILE *out), void *userdata);
