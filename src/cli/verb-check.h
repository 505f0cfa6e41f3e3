/* verb-check.h: install --check (would a run change anything?) and the
 * state line of configuration management (--format=salt) */
#pragma once

#include <stdio.h>

#include "engine/install.h"
#include "engine/next-steps.h"

/* install --check: one line per file that would change, then the verdict;
 * with no file to change, the boot steps STEPS still lacks (exit 4) */
void install_print_check(const struct install_result *r, const struct next_steps *steps, const char *root,
                         FILE *out);
/* the last line Salt's cmd.run reads with stateful: True:
 * changed=yes|no comment='...' [files=N] boot_step_pending=yes|no (no '=' or
 * quote in the comment; shlex-safe). CHECK: a check (would), else a run
 * (did); CHANGED: install_run() > 0. A boot step STEPS still lacks is work
 * to do: changed=yes, as install --check exits 4 */
void install_print_salt(const struct install_result *r, const struct next_steps *steps, bool check, bool changed,
                        FILE *out);
