/* verb-install.h: the printing side of install (the results of install.c) */
#pragma once

#include <stdio.h>

#include "install.h"

/* what install did, entry by entry in order (with --dry-run: the diffs) */
void install_print(const struct install_result *r, FILE *out);
/* what the installer runs next, for the files install changed */
void install_print_next_steps(const struct install_result *r, const struct rootfs *rfs, const struct plan *p,
                              FILE *out);
/* install --json (schema in idlecfg(8)); TEXT is what install_print() says */
void install_print_json(const struct install_result *r, const struct rootfs *rfs, const struct plan *p,
                        bool dry_run, int changes, const char *text, FILE *out);
