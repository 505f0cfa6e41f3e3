/* usb4.h: the USB4 routers and the Type-C connector links, for detect */
#pragma once

#include "model/inventory.h"

/* Fill INV->usb4 from /sys: the routers of /sys/bus/thunderbolt/devices, and,
 * where there is a host router, the "connector" links of its usb4_portN and of
 * the root-hub ports of the USB devices already in INV (usbB-portP). Nothing
 * is read on a machine without a router; a link or file that cannot be read
 * is left out (the port is then not told apart). */
void usb4_detect(struct inventory *inv);
