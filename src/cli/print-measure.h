/* print-measure.h: what measure, apply --measure and report print alike of a
 * measurement (print-measure.c): shares and watts, an absent counter in
 * words, the floor and its holders, what each setting gained or lost */
#pragma once

#include <stdio.h>

#include "engine/measure-floor.h"
#include "state/measured.h"

struct json;

/* thousandths of a percent of the interval: 12345 is 12.345 % */
long long measure_share_milli(unsigned long long part_us, unsigned long long interval_us);
double measure_pct(unsigned long long part_us, unsigned long long interval_us);
/* milliwatts from microjoules over an interval in microseconds */
long long measure_milliwatts(unsigned long long uj, unsigned long long interval_us);
/* why a counter has no value: in plain words (translated), and a JSON word */
const char *measure_absent_text(int err);
const char *measure_absent_word(int err);
const char *measure_dev_label(const struct measure_dev *m);

/* the reason of holder H of R's floor, translated or not (JSON), a new string */
char *measure_holder_reason(const struct measure_result *r, const struct measure_holder *h, bool translate);
/* the floor of R (F: measure_floor()), its holders ranked with their reasons */
void print_floor(const struct measure_result *r, const struct measure_floor *f, FILE *out);
/* "floor": the same as JSON (schema in idlecfg(8)) */
void json_floor(struct json *j, const struct measure_result *r, const struct measure_floor *f);

/* what each setting that changed gained or lost between measurements X and Y
 * (floors FX, FY): per device where its unit is, the machine-wide units
 * once, given to a setting only when it is the one that changed */
void print_effects(const struct measure_result *x, const struct measure_result *y, const struct measure_floor *fx,
                   const struct measure_floor *fy, const struct measure_effects *e, FILE *out);
void json_effects(struct json *j, const struct measure_result *x, const struct measure_result *y,
                  const struct measure_floor *fx, const struct measure_floor *fy, const struct measure_effects *e);
/* the same as the record apply --measure keeps for report (state/measured.h),
 * of the machine INV, profile PROFILE, now */
void effects_record(const struct measure_result *x, const struct measure_result *y, const struct measure_floor *fx,
                    const struct measure_floor *fy, const struct measure_effects *e, const struct inventory *inv,
                    const char *profile, struct measured *ret);
