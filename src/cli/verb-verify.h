/* verb-verify.h: the verbs apply, rollback and verify, and what they print (the results of apply.c, verify.c and rollback.c) */
#pragma once

#include <stdio.h>

#include "engine/apply.h"
#include "engine/next-steps.h"
#include "state/state.h"
#include "engine/verify.h"

struct json;
/* each entry of a rollback's result in order, then the last line when everything is undone;
 * VALUES: the rollback of apply (live values), else of install (files) */
void rollback_print(const struct rollback_result *r, bool values, FILE *out);
/* verify's result as text, or as JSON (schema in idlecfg(8)) */
struct status;
/* ST: the status file taken for what this run could not read (NULL: none) */
void verify_print(const struct verify_result *r, const struct plan *p, const struct next_steps *steps,
                  const struct boot_lefts *left, const struct status *st, bool json, FILE *out);

/* the verbs apply, rollback and verify and their checks, for the verb table
 * of idlecfg.c (cli/run.h) */
struct run;
struct args;
int verb_apply(struct run *c, int argc, char **argv);
int check_rollback(const struct args *a, int argc, char **argv);
int verb_rollback(struct run *c, int argc, char **argv);
int check_verify(const struct args *a, int argc, char **argv);
int verb_verify(struct run *c, int argc, char **argv);
int check_apply(const struct args *a, int argc, char **argv);
