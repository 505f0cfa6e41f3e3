// SPDX-License-Identifier: GPL-2.0-or-later
enum board_ids {
	board_ahci,
	board_ahci_mcp65,
	board_ahci_nolpm_test,

	/* aliases */
	board_ahci_mcp67	= board_ahci_mcp65,
	board_ahci_nolpm_alias	= board_ahci_nolpm_test,
};

static const struct ata_port_info ahci_port_info[] = {
	[board_ahci] = {
		.flags		= AHCI_FLAG_COMMON,
		.port_ops	= &ahci_ops,
	},
	[board_ahci_mcp65] = {
		AHCI_HFLAGS	(AHCI_HFLAG_NO_FPDMA_AA | AHCI_HFLAG_NO_PMP),
		.flags		= AHCI_FLAG_COMMON | ATA_FLAG_NO_DIPM,
		.port_ops	= &ahci_ops,
	},
	[board_ahci_nolpm_test] = {
		AHCI_HFLAGS	(AHCI_HFLAG_NO_LPM),
		.flags		= AHCI_FLAG_COMMON,
		.port_ops	= &ahci_ops,
	},
};

static const struct pci_device_id ahci_pci_tbl[] = {
	/* Intel */
	{
		/* ICH6 */
		PCI_VDEVICE(INTEL, 0x2652),
		.driver_data = board_ahci,
	},

	/* NVIDIA */
	{
		/* MCP65 */
		PCI_VDEVICE(NVIDIA, 0x044c),
		.driver_data = board_ahci_mcp65,
	}, {
		/* MCP67 */
		PCI_VDEVICE(NVIDIA, 0x0554),
		.driver_data = board_ahci_mcp67,
	},

	/* AMD */
	{
		/* made up */
		PCI_VDEVICE(AMD, 0x7901),
		.driver_data = board_ahci_nolpm_test,
	}, {
		/* made up, through an alias */
		PCI_VDEVICE(AMD, 0x7904),
		.driver_data = board_ahci_nolpm_alias,
	},
	{ }	/* terminate list */
};

static char *ahci_mask_port_ext;
module_param_named(mask_port_ext, ahci_mask_port_ext, charp, 0444);
MODULE_PARM_DESC(mask_port_ext,
		 "32-bits mask to ignore the external/hotplug capability of ports.");

static bool ahci_broken_lpm(struct pci_dev *pdev)
{
	static const struct dmi_system_id sysids[] = {
		/* Various Lenovo 50 series have LPM issues with older BIOSen */
		{
			.matches = {
				DMI_MATCH(DMI_SYS_VENDOR, "LENOVO"),
				DMI_MATCH(DMI_PRODUCT_VERSION, "ThinkPad X250"),
			},
			.driver_data = "20180406", /* 1.31 */
		},
		{
			.matches = {
				DMI_MATCH(DMI_BOARD_VENDOR, "ASUSTeK COMPUTER INC."),
				DMI_MATCH(DMI_BOARD_NAME, "ROG STRIX B550-F GAMING (WI-FI)"),
			},
			/* 3621 is broken, there is no known good version. */
		},
		{
			.matches = {
				DMI_MATCH(DMI_PRODUCT_FAMILY, "Made Up Family"),
			},
		},
		{ }	/* terminate list */
	};
	const struct dmi_system_id *dmi = dmi_first_match(sysids);

	return dmi != NULL;
}
