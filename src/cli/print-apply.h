/* print-apply.h: what apply, power-source, verify and measure print alike of
 * live values (print-apply.c): apply's result, a setting's place, the
 * platform prerequisites of deep idle */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "engine/apply.h"
#include "engine/verify.h"

struct json;
/* a setting's knob and place as the JSON of verify and power-source show
 * name them: knob, device, devpath, attr, module, param */
void setting_json_place(struct json *j, const struct setting *s);
/* each entry of apply's result in order, then its counts when the run got to its end */
void apply_print(const struct apply_result *r, bool dry_run, FILE *out);
/* the platform prerequisites of deep idle that apply (verify, measure): a count line and each missing one */
void verify_print_prereqs(const struct verify_prereq *v, size_t n, FILE *out);
/* the same as the "prerequisites" array of a JSON object */
void verify_prereqs_json(struct json *j, const struct verify_prereq *v, size_t n);
