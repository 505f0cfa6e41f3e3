/* print-next-steps.h: the boot steps left, printed (print-next-steps.c):
 * what install, refresh, verify, rollback and steps print alike */
#pragma once

#include <stdio.h>

#include "engine/next-steps.h"

struct json;
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
