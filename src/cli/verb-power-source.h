/* verb-power-source.h: idlecfg power-source, and the source verify assumes */
#pragma once

#include <stdbool.h>

#include "model/plan.h"
#include "root/rootfs.h"

/* power-source [event|boot|resume|show|ac|battery]: decide AC or battery
 * (ac and battery force it until the next event; [power] source of
 * idlecfg.conf pins one) and write the values of that source (through
 * apply_run(), journal first); show lists the table's settings with both
 * values and the one in effect (JSON with JSON). An exit code. */
int power_source_switch(const struct rootfs *rfs, const char *mode, bool dry_run, bool verbose, bool json);
bool power_source_mode_ok(const char *mode);

/* verify and apply: the source in effect (forced by power-source ac|battery
 * until the next event, pinned in idlecfg.conf, else one look at the
 * supplies); the plan's settings get the values of that source
 * (value_battery moved into value on battery).
 * *ret_text says which source was assumed and why (text to print); NULL
 * when no setting has a value per source. */
void power_source_for_verify(const struct rootfs *rfs, struct plan *p, char **ret_text);
