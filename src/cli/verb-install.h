/* verb-install.h: the printing side of install (the results of install.c); the verb is run-install.h's */
#pragma once

#include <stdio.h>

#include "engine/install.h"
#include "base/json.h"
#include "engine/next-steps.h"

/* what install did, entry by entry in order (with --dry-run: the diffs) */
void install_print(const struct install_result *r, FILE *out);
/* what the installer runs next (next-steps.h), with the header for people,
 * then the plan's warnings; COMMENTED: each line a "# " comment, after
 * install --dry-run's diff */
void install_print_next_steps(const struct next_steps *s, const struct plan *p, bool commented, FILE *out);
/* install --json (schema in idlecfg(8)); TEXT is what install_print() says;
 * WARNINGS: install's own about the root, code -> message (NULL: none) */
void install_print_json(const struct install_result *r, const struct rootfs *rfs, const struct plan *p,
                        const struct inventory *inv, const struct next_steps *steps, const struct kvlist *warnings,
                        bool dry_run, int changes, const char *text, FILE *out);

/* ARG as one word for a POSIX shell, quoted when it must be */
void print_shell_word(const char *arg, FILE *out);
/* people: one step a line, the root quoted for the shell; HEADER first when
 * there is any step */
void next_steps_print_text(const struct next_steps *s, const char *header, FILE *out);
/* scripts: "next_steps": [ {"id", "argv", "boot", "why"[, "words"]} ],
 * "boot_incomplete": bool (schema in idlecfg(8)) */
void next_steps_print_json(const struct next_steps *s, struct json *j);
/* the boot steps said done by hand (idlecfg steps done), with when; nothing when none */
void next_steps_print_acked(const struct next_steps *s, FILE *out);
