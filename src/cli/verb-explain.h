/* verb-explain.h: the explain verb (every decision about one device) */
#pragma once

#include "model/inventory.h"
#include "model/plan.h"

/* Print every decision of plan P about DEVICE: what detect prints (a sysfs
 * path, a /sys/class or /sys/bus link, a PCI address, USB vendor:product,
 * PCI vendor:device, a name). 0, or 2 when no device matches (the devices
 * like it are listed on stderr). */
int explain_device(const struct inventory *inv, const struct plan *p, const char *device);
