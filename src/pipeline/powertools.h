/* powertools.h: the other power tools installed in a root, found by detect */
#pragma once

#include <stddef.h>

#include "model/inventory.h"

/* add the tools the root has (a file of the package, or an enabled unit) to INV->tools */
void detect_power_tools(struct inventory *inv);
/* every path detect_power_tools() looks at, for refresh (whether each exists) */
const char *const *power_tool_files(size_t *ret_n);
/* the warning about a tool that sets knobs idlecfg plans (translated), NULL
 * for one that does not (power-profiles-daemon, auto-cpufreq) */
char *power_tool_warning(const struct power_tool *t);
