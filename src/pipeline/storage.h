/* storage.h: which disk holds the target's root filesystem, and its swap */
#pragma once

#include <libudev.h>

#include "model/inventory.h"

/* fill INV->storage (the root filesystem, swap, the disks they use) from the
 * root's /etc/fstab and mounts, and /proc/swaps when the target is the
 * running system (target_is_running_system(): not in a chroot), resolved
 * through UDEV and libblkid; 0 */
int detect_storage(struct inventory *inv, struct udev *udev);
