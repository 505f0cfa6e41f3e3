/* diff.h: the unified diff install --dry-run prints */
#pragma once

#include <stdio.h>

/* a unified diff of two texts, for --dry-run (whole files; names as given) */
void print_diff(FILE *out, const char *name_a, const char *a, const char *name_b, const char *b);
