/* verb-refresh.h: the install and refresh verbs (verb-refresh.c) */
#pragma once

#include <stdbool.h>

#include "cli/run.h"

/* install the run's plan into its root. JSON: install --json (refresh
 * prints text); TAKE_EFFECT: refresh --image, the first-boot unit: what udev
 * and sysfs can do now, the rest for the next boot. The exit code. */
int do_install(struct run *c, bool json, bool take_effect);
/* install --boot-steps, for installers: install, then run the boot steps
 * it leaves (update-initramfs, update-grub, kernel-install; through chroot
 * for --root DIR). 0, 4 (a step by hand is left), or the failure's code. */
int install_with_boot_steps(struct run *c);
/* install: do_install(), or install_with_boot_steps() with --boot-steps */
int verb_install(struct run *c, int argc, char **argv);
/* the options install and refresh take together, checked before the run */
int check_install(const struct args *a, int argc, char **argv);
int check_refresh(const struct args *a, int argc, char **argv);
/* refresh: the cheap look first, then detect, plan and install only when
 * something changed. The exit code. */
int verb_refresh(struct run *c, int argc, char **argv);
