/* powersource.h: which power source the machine runs on, read from every
 * power supply together, debounced; and the last source decided */
#pragma once

#include <stdbool.h>

#include "root/rootfs.h"

enum power_source { PS_AC, PS_BATTERY };
/* "ac" or "battery": the names of the profile syntax, the plan and the state file */
const char *power_source_name(enum power_source s);

/* one look at every supply */
struct ps_look {
        enum power_source source;
        /* no supply online and a system battery that is not "Discharging" yet:
         * its status lags the unplug, so the look is repeated for a while */
        bool lagging;
        char *why;              /* "mains supply AC online", "battery BAT0 discharging", ... */
};
void ps_look_done(struct ps_look *l);

/* Look at SYS/class/power_supply (SYS is "/sys"; a directory in the unit
 * tests) as systemd's on_ac_power() does (src/shared/battery-util.c): a
 * supply that is not a battery and has online >= 1 means AC (Mains,
 * Wireless, UPS); a USB supply not when its Type-C ports are all power
 * sources, and, TLP's rule where it is stricter, only when USB Power
 * Delivery (usb_type's selected word starts with PD); batteries of scope
 * Device or with present 0 are ignored; a system battery "Discharging" (or
 * without a status) with nothing online means battery; no supply at all (a
 * desktop, a VM) means AC. 0, or -errno when the directory cannot be read
 * (a missing one is no supply). */
int ps_look(const char *sys, struct ps_look *ret);

/* The first system battery (a Battery supply not of scope Device, present)
 * in SYS/class/power_supply, NULL when there is none: without one the
 * machine has one source, and nothing switches. */
char *ps_system_battery(const char *sys);

struct ps_timing {
        unsigned settle_ms;     /* between two looks (debounce): 200 */
        unsigned lag_ms;        /* how long a lagging battery status is looked at again: 1500 */
        unsigned max_ms;        /* the longest a decision takes, then the last look stands: 3000 */
};
extern const struct ps_timing ps_timing_default;

/* Decide: look, wait settle_ms, look again, until two looks in a row agree
 * and no battery lags (or lag_ms passed: a battery that never discharges
 * counts as AC), at most max_ms. WAIT (NULL: sleep) is called between looks
 * with the milliseconds to wait; the unit tests change the files there.
 * *ret_looks: how many looks it took. */
int ps_decide(const char *sys, const struct ps_timing *t, void (*wait)(unsigned ms, void *userdata), void *userdata,
              struct ps_look *ret, unsigned *ret_looks);

/* the last source switched to, kept in the root's /run/idlecfg/power-source
 * ("battery", or "battery forced" when "power-source battery" forced it until
 * the next event): 0 and *ret (*ret_forced may be NULL), -ENOENT when none
 * was decided since boot */
#define PS_STATE_PATH "/run/idlecfg/power-source"
int ps_last_read(const struct rootfs *rfs, enum power_source *ret, bool *ret_forced);
int ps_last_write(const struct rootfs *rfs, enum power_source s, bool forced, struct xerror *ret_error);

/* The run-time mark of the battery: present while the machine runs on
 * battery. The udev rules install writes (70-idlecfg.rules for devices, the
 * switch's rule for modules) test it (TEST=="...") to pick the value of a
 * device added or bound, or a module loaded, after the last switch; its
 * absence (every boot starts without it) means AC. Written before the values
 * of a switch, so that no event after it takes the other source's value.
 * Its text (SEEN): the table's live files at the switch to battery, one a
 * line, for the switch to AC (apply_options' battery_seen). */
#define PS_BATTERY_MARK_PATH "/run/idlecfg/on-battery"
int ps_mark_write(const struct rootfs *rfs, enum power_source s, const char *seen, struct xerror *ret_error);
/* The mark's text: SEEN of the switch to battery that wrote it, the live
 * files of the table there then, one a line (a file not in it appeared
 * after the switch: its value came from the rules). 0 and *ret_seen, or
 * -ENOENT: no mark */
int ps_mark_read(const struct rootfs *rfs, char **ret_seen);
