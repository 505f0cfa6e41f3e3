/* verb-report.h: the report verb (what this machine has, plans and measured, for its owner to send) */
#pragma once

struct run;
struct args;
int check_report(const struct args *a, int argc, char **argv);
int verb_report(struct run *c, int argc, char **argv);
