/* firstboot.h: the stamp of idlecfg-firstboot.service. systemd's
 * ConditionNeedsUpdate=/etc is true at every boot where nothing writes
 * /etc/.updated (Debian ships no systemd-update-done.service); after a
 * successful refresh --image on the running system idlecfg records what the
 * run was for (/usr's mtime, /etc/machine-id) in a stamp of its own, and the
 * unit's ExecCondition= (refresh --image --condition) skips it while both
 * are the same. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "root/rootfs.h"

#define FIRSTBOOT_STAMP_PATH "/var/lib/idlecfg/firstboot.stamp"

/* Has the first-boot unit work in the root: no stamp, a stamp of another
 * /usr (its mtime differs) or machine-id, or one that cannot be read or
 * parsed (a warning naming the file on WARN)? Reads no more than the stat
 * of /usr, the stamp and /etc/machine-id. VERBOSE: the reason on OUT. */
bool firstboot_needed(const struct rootfs *rfs, bool verbose, FILE *out, FILE *warn);

/* After refresh --image did its work on the running system: the stamp for
 * this /usr and machine-id (nothing when /etc/machine-id holds no ID: that
 * boot has not made it yet). 0, or -errno (the stamp is then absent). */
int firstboot_stamp_write(const struct rootfs *rfs);

/* rollback, install --image (a stamp must never go into an image): the stamp
 * and its temporary files go; 0 or -errno */
int firstboot_stamp_remove(const struct rootfs *rfs);
