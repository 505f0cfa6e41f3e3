/* exclude.h: idlecfg.conf's [exclude DEVICE] sections applied to a plan */
#pragma once

#include "db/profile-select.h"
#include "knobs/knob.h"

/* Every knob name of X's knobs = lists is one a family declares: 0, or
 * -EINVAL with RET_ERROR naming the file and the line of the list. */
int plan_exclude_check(const struct conf_exclusions *x, struct xerror *ret_error);

/* Apply X to P, planned for INV: each setting of an excluded device (of the
 * knobs the section names, else all) becomes a skip carrying the
 * administrator's reason; a udev rule of another device that would also
 * match it gets that device's KERNEL name; a module-wide setting (modprobe.d,
 * command line, tmpfiles.d, sysctl.d, a .link drop-in) stays, with a skip row
 * of the device saying it cannot leave the device out. A section that
 * matches no device, or names only module-wide knobs, is a warning (its
 * code in P's warning_codes). The sections go into P's exclusions. */
void plan_exclude(struct plan *p, const struct inventory *inv, const struct conf_exclusions *x);
