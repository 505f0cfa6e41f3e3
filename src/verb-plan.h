/* verb-plan.h: what plan prints (the verb layer renders; plan.h holds the data) */
#pragma once

#include <stdio.h>

#include "plan.h"

void plan_print_text(const struct plan *p, FILE *f);
void plan_print_json(const struct plan *p, FILE *f);
