/* target.h: the system idlecfg configures: whether it is the one running
 * now, and the kernel it will boot */
#pragma once

#include <stdbool.h>

struct rootfs;

/* Is the target the system that runs now? false for a root other than "/",
 * and for "/" when idlecfg runs inside a chroot of the target (an installer's
 * in-target): "/" is not PID 1's root (st_dev/st_ino of "/" against
 * "/proc/1/root", as systemd's running_in_chroot() compares them), or there is
 * no /proc at all. When /proc/1/root cannot be looked at (EACCES), the running
 * system is assumed. IDLECFG_TEST_CHROOT=1 (or 0) tells the tests' answer. */
bool target_is_running_system(const struct rootfs *rfs);

/* The kernel the target will boot, and why that one:
 *   "--kernel"          OVERRIDE, given by the caller
 *   "boot-loader"       systemd-boot's default (loader.conf "default", the
 *                       matching entry's "version"), if installed in the root
 *   "newest-installed"  the newest (strverscmp) X of /lib/modules/X that has a
 *                       kernel image (/boot/vmlinuz-X, /boot/vmlinux-X,
 *                       /lib/modules/X/vmlinuz) or an installed linux-image-X
 *                       in the dpkg status; failing that, the newest
 *                       /lib/modules/X at all
 *   "running"           the running system with no kernel installed
 * *ret_source is that untranslated key (JSON, the manifest); *ret_reason an
 * untranslated sentence, as the plan's reasons are, that also names the running kernel when it is another
 * one. 0, or -ENOENT: no kernel in a target that is not the running system. */
int target_kernel_choose(const struct rootfs *rfs, const char *override, char **ret_release, char **ret_source,
                         char **ret_reason);
