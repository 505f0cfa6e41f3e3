/* firstboot.h: the stamp of idlecfg-firstboot.service. The unit starts at
 * every boot, beside it (systemd's ConditionNeedsUpdate=/etc would need it
 * ordered before systemd-update-done.service, on sysinit.target's critical
 * path, and sees no new hardware); after a
 * successful refresh --image on the running system idlecfg records what the
 * run was for (/usr's mtime, /etc/machine-id, a key of the hardware) in a
 * stamp of its own, and the unit's ExecCondition= (refresh --image
 * --condition) skips it while all three are the same. Nothing here prints:
 * the verdict goes to the CLI. */
#pragma once

#include <stdbool.h>

#include "root/rootfs.h"

#define FIRSTBOOT_STAMP_PATH "/var/lib/idlecfg/firstboot.stamp"

/* why the first-boot unit runs, or does not */
enum firstboot_verdict {
        FB_NO_STAMP,            /* the first boot, or the unit has not finished yet */
        FB_UNREADABLE,          /* the stamp cannot be read (error) */
        FB_DAMAGED,             /* not a stamp (line) */
        FB_NO_MACHINE_ID,       /* /etc/machine-id holds no ID: a first boot */
        FB_OTHER_MACHINE_ID,    /* was, now: the IDs */
        FB_OTHER_HARDWARE,      /* was ("" in a stamp without one), now: the keys */
        FB_USR_CHANGED,         /* /usr's mtime is not the stamp's */
        FB_CONFIGURED,          /* all as the stamp says: nothing to do */
};

struct firstboot_check {
        enum firstboot_verdict verdict;
        int error;              /* FB_UNREADABLE: -errno */
        unsigned line;          /* FB_DAMAGED: the first line that is not the stamp's */
        char was[80], now[80];  /* FB_OTHER_MACHINE_ID, FB_OTHER_HARDWARE */
};

/* the ID of /etc/machine-id of the root (32 lowercase hex digits) into ID;
 * false when it holds none (missing, empty, "uninitialized") */
bool firstboot_machine_id(const struct rootfs *rfs, char id[static 33]);

/* Has the first-boot unit work in the root: no stamp, a stamp of another
 * /usr (its mtime differs), machine-id or HARDWARE (a key, e.g.
 * fingerprint_hardware_key(); NULL: not compared), or one that cannot be read
 * or parsed? The reason in *RET. Reads no more than the stat of /usr, the
 * stamp and /etc/machine-id. */
bool firstboot_needed(const struct rootfs *rfs, const char *hardware, struct firstboot_check *ret);

/* After refresh --image did its work on the running system: the stamp for
 * this /usr, machine-id and HARDWARE (nothing when /etc/machine-id holds no
 * ID: that boot has not made it yet). 0, or -errno (the stamp is then absent). */
int firstboot_stamp_write(const struct rootfs *rfs, const char *hardware);

/* rollback, install --image (a stamp must never go into an image): the stamp
 * and its temporary files go; 0 or -errno */
int firstboot_stamp_remove(const struct rootfs *rfs);
