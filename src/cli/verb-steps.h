/* verb-steps.h: idlecfg steps: the boot steps left, and "steps done" for
 * those the administrator did by hand */
#pragma once

struct run;
struct args;
int check_steps(const struct args *a, int argc, char **argv);
int verb_steps(struct run *c, int argc, char **argv);
