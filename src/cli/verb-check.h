/* verb-check.h: install --check (would a run change anything?) and the
 * state line of configuration management (--format=salt) */
#pragma once

#include <stdio.h>

#include "engine/install.h"

/* install --check: one line per file that would change, then the verdict */
void install_print_check(const struct install_result *r, const char *root, FILE *out);
/* the last line Salt's cmd.run reads with stateful: True:
 * changed=yes|no comment='...' (no '=' or quote in the comment; shlex-safe).
 * CHECK: a check (would), else a run (did); CHANGED: install_run() > 0 */
void install_print_salt(const struct install_result *r, bool check, bool changed, FILE *out);
