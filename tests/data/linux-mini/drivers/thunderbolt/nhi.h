/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/data/linux-mini: the PCI device IDs of drivers/thunderbolt/nhi.h
 * that the synthetic tb_quirks[] names (cut down).
 */
#ifndef DSL3510_H_
#define DSL3510_H_

#define PCI_DEVICE_ID_INTEL_ADL_NHI0			0x463e
#define PCI_DEVICE_ID_INTEL_BARLOW_RIDGE_HOST_80G_NHI	0x5781
#define PCI_DEVICE_ID_INTEL_BARLOW_RIDGE_HOST_40G_NHI	0x5784
#define PCI_DEVICE_ID_INTEL_BARLOW_RIDGE_HUB_80G_BRIDGE	0x5786

#endif
