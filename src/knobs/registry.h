/* knobs/registry.h: what the rest of idlecfg asks of the knob families
 * (registry.c): the families in planning order, the profile schema made of
 * their keys, and the answers verify, measure, explain, exclude and the
 * planner take from their tables. A family fills in struct knob_family
 * (knob.h) and needs none of this. */
#pragma once

#include "knobs/knob.h"

/* every family, in planning order */
const struct knob_family *const *knob_registry(size_t *ret_n);
/* the family whose profile section is SECTION, NULL if none */
const struct knob_family *knob_family_of_section(const char *section);
/* every profile key of every family, .section filled in, in registry order */
const struct profile_key *knob_profile_keys(size_t *ret_n);
/* what a profile file may hold: the [profile] keys, then knob_profile_keys();
 * built once, for profile_load() */
const struct profile_keyset *knob_profile_schema(void);
/* the longest delay in milliseconds that a setting of P adds before what it
 * sets powers down (the families' .settle), 0 if none; *RET_MESSAGE: the
 * family's words for it (N_() marked, "%llu": seconds), NULL with 0 */
unsigned long long knob_settle_ms(const struct plan *p, const char **ret_message);
/* the knob that keeps a device of CLASS out of runtime PM when power/control = on */
const char *knob_runtime_pm_of(const char *class);
/* measure: the knob that sets the power/control of a device of CLASS (the
 * above, then the families' runtime_pm_through) */
const char *knob_runtime_pm_measured(const char *class);
/* verify: the live value of S from the family that reads it without sysfs
 * (.live_value): 0 and *RET (free it), or -errno when none does */
int knob_live_value(const struct setting *s, char **ret);
/* measure: is S the setting of DEVPATH's power/control that a family plans
 * on another device (the families' .runtime_pm_placed)? */
bool knob_runtime_pm_placed(const struct setting *s, const char *devpath);
/* is the runtime PM of a device of CLASS planned on its parent? */
bool knob_on_parent(const char *class);
/* Every IDLECFG_ property line of H: a value outside its family's set, a
 * property no family declares (with its _REASON and _KERNEL companions) or a
 * malformed _KERNEL range is an error at its file:line. systemd's own ID_
 * properties are never checked here. 0 or -EINVAL with *ret_error set. */
int knob_hwdb_check(const struct hwdb *h, struct xerror *ret_error);
