/* verb-install.h: what the verb install lends refresh (verb-refresh.c):
 * the install of a run's plan, and the boot steps run after it */
#pragma once

#include <stdbool.h>

#include "cli/run.h"
#include "engine/next-steps.h"

/* install the run's plan into its root. JSON: install --json (refresh
 * prints text); TAKE_EFFECT: refresh --image, the first-boot unit: what udev
 * and sysfs can do now, the rest for the next boot. The exit code. */
int install_write(struct run *c, bool json, bool take_effect);
/* the boot steps the root still lacks, run (their commands as the steps
 * give them: "chroot DIR ..." for --root DIR): 0 when none is left, 4 when a
 * step by hand is left, 3 when a command failed */
int install_boot_steps(struct run *c);
/* refresh --image on the running system with boot steps left: said, and
 * handed to idlecfg-boot-steps.service, which makes them after this boot */
void hand_on_boot_steps(const struct run *c, const struct next_steps *steps);
