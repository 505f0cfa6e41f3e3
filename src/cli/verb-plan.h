/* verb-plan.h: the plan verb and what it prints (the verb layer renders; plan.h holds the data) */
#pragma once

#include <stdio.h>

#include "base/json.h"
#include "model/plan.h"

void plan_print_text(const struct plan *p, FILE *f);
void plan_print_json(const struct plan *p, FILE *f);
/* the keys that say what P is for, in the order plan and install print them:
 * profile, profile_reason, fingerprint, kernel, kernel_source, kernel_reason */
void plan_json_identity(struct json *j, const struct plan *p);
/* the target's boot scheme and initramfs generator with their reasons: two
 * lines of text; "boot": {scheme, reason, booted, initramfs, initramfs_reason} */
void plan_print_boot_text(const struct plan *p, FILE *f);
void plan_json_boot(struct json *j, const struct plan *p);
/* "exclusions": idlecfg.conf's [exclude DEVICE] sections as the plan applied
 * them: device, where, reason, knobs, matched (names), warning (its code or null) */
void plan_json_exclusions(struct json *j, const struct plan *p);
