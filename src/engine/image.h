/* image.h: images built on one machine and booted on another (install --image,
 * refresh --image: the first-boot unit idlecfg-firstboot.service) */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "engine/install.h"
#include "model/inventory.h"
#include "model/plan.h"
#include "root/rootfs.h"

/* Is "/" a chroot, not the root of PID 1 (stat of "/" and "/proc/1/root";
 * no /proc: a chroot)? IDLECFG_TEST_CHROOT=1 says yes, =0 no (tests). */
bool image_in_chroot(void);

/* Would a plain install into the root write the hardware of another machine?
 * True, with the reason in *ret_why (translated), when the root is not the
 * running system and the inventory has no device (a chroot without /sys), or
 * the root's manifest records another machine's fingerprint, or idlecfg runs
 * in a chroot. RECORDED: the fingerprint of the root's manifest, or NULL. */
bool image_foreign_hardware(const struct rootfs *rfs, const struct inventory *inv, const char *recorded,
                            char **ret_why);

/* Is the root the running system, where commands make settings take effect
 * (not --root DIR, not a chroot)? */
bool image_can_take_effect(const struct rootfs *rfs);

/* refresh --image, in the first-boot unit, after install wrote files for the
 * running machine: what udev and sysfs can do takes effect now (udevadm
 * trigger of the devices of the udev settings, systemd-tmpfiles, systemd-sysctl),
 * what needs the initramfs or the kernel command line is regenerated for the
 * next boot (update-initramfs, kernel-install or update-grub, where the system
 * has them) and said so; the initramfs only when it holds a module that
 * modprobe.d/idlecfg.conf names, or its list cannot be read (initramfs.h).
 * Returns the number of commands that failed. */
size_t image_take_effect(const struct rootfs *rfs, const struct install_result *res, const struct plan *p,
                         FILE *out);
