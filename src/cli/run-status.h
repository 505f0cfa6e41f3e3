/* run-status.h: the status file after a writing run (the verb layer's one
 * call per verb, from run_verb()) */
#pragma once

#include "cli/run.h"

/* the status file (state/status.h) after writing verb VERB: what is
 * installed and applied, the power source, the boot steps left and, when the
 * run planned, the running system against the plan; removed when nothing of
 * idlecfg is left. 0; or -errno when it cannot be written (said), but for
 * a read-only root or one without the state directory, which keep none. */
int run_status(struct run *c, const char *verb);
