// SPDX-License-Identifier: GPL-2.0
static void quirk_disable_aspm_l0s(struct pci_dev *dev)
{
	pci_info(dev, "Disabling L0s\n");
	pci_disable_link_state(dev, PCIE_LINK_STATE_L0S);
}
DECLARE_PCI_FIXUP_HEADER(0x8086, 0x10a7, quirk_disable_aspm_l0s);
DECLARE_PCI_FIXUP_HEADER(0x8086, 0x10a9, quirk_disable_aspm_l0s);

/* ASM1083/1085 PCIe-to-PCI bridge */
DECLARE_PCI_FIXUP_HEADER(0x1b21, 0x1080, quirk_disable_aspm_l0s_l1);

DECLARE_PCI_FIXUP_FINAL(PCI_VENDOR_ID_INTEL, 0x56c1, aspm_l1_acceptable_latency);

/* Some ATA devices break if put into D3 */
DECLARE_PCI_FIXUP_CLASS_EARLY(PCI_VENDOR_ID_ATI, PCI_ANY_ID,
				PCI_CLASS_STORAGE_IDE, 8, quirk_no_ata_d3);

DECLARE_PCI_FIXUP_FINAL(PCI_VENDOR_ID_AMD, 0x15e0, quirk_ryzen_xhci_d3hot);
DECLARE_PCI_FIXUP_HEADER(PCI_VENDOR_ID_AMD, 0x15e9, quirk_ryzen_xhci_d3hot);

DECLARE_PCI_FIXUP_SUSPEND(PCI_VENDOR_ID_INTEL, PCI_DEVICE_ID_INTEL_ICH6_1, asus_hides_smbus_lpc_ich6_suspend);
DECLARE_PCI_FIXUP_FINAL(PCI_VENDOR_ID_INTEL, 0x0412, quirk_remove_d3hot_delay);
DECLARE_PCI_FIXUP_FINAL(0x1234, 0x5678, quirk_made_up_pm_thing);
DECLARE_PCI_FIXUP_HEADER(PCI_VENDOR_ID_INTEL, 0x1234, quirk_not_related);
