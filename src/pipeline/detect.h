/* detect.h: build the inventory of a root's machine from /sys (libudev) and
 * the root's files */
#pragma once

#include <stddef.h>

#include "model/inventory.h"
#include "root/rootfs.h"

struct detect_options {
        const struct rootfs *rfs;       /* the root, opened by the caller */
        const char *kernel;
};

int inventory_detect(const struct detect_options *o, struct inventory **ret);
/* the files of the root detect reads (fstab, other power tools), for refresh */
struct knob_input;
const struct knob_input *detect_inputs(size_t *ret_n);
/* the subsystems detect lists (src/root/sysfs.c), each once */
const char *const *detect_subsystems(size_t *ret_n);
