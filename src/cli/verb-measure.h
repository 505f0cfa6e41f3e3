/* verb-measure.h: the measure verb, one measurement for report, and what
 * verb-measure-around.c (apply/rollback --measure) shares of it */
#pragma once

#include <stdio.h>

#include "model/inventory.h"
#include "model/plan.h"
#include "engine/measure-floor.h"

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
        struct measure_floor floor;
};
int measure_take(unsigned seconds, const struct plan *p, const struct inventory *inv, struct measure_taken *ret);
void measure_taken_done(struct measure_taken *t);

/* for verb-measure-around.c: one measurement as text and as the JSON object's
 * members; the counters' places and clock (the package counters opened once
 * for a session: measure_session_done() closes them); two samples SECONDS
 * apart (0, or -errno said on stderr) */
struct json;
void measure_print_text(const struct measure_result *r, int verbose, FILE *out);
void measure_print_json_body(struct json *j, const struct measure_result *r);
struct measure_session {
        struct measure_env env;
        struct measure_clock clock;
        char *perf_dir;
};
void measure_session_init(struct measure_session *s);
void measure_session_done(struct measure_session *s);
int measure_once(const struct measure_session *ss, unsigned seconds, struct measure_sample **ret_a,
                 struct measure_sample **ret_b);
