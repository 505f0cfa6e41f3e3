// SPDX-License-Identifier: GPL-2.0-or-later
struct ata_dev_quirks_entry {
	const char *model_num;
	const char *model_rev;
	u64 quirks;
};

static const struct ata_dev_quirks_entry __ata_dev_quirks[] = {
	/* Devices with DMA related problems under Linux */
	{ "WDC AC11000H",	NULL,		ATA_QUIRK_NODMA },

	/* ADATA devices with LPM issues. */
	{ "ADATA SU680",	NULL,		ATA_QUIRK_NOLPM },

	/* 512GB MX100 with MU01 firmware has both queued TRIM and LPM issues */
	{ "Crucial_CT512MX100*",	"MU01",	ATA_QUIRK_NO_NCQ_TRIM |
						ATA_QUIRK_ZERO_AFTER_TRIM |
						ATA_QUIRK_NOLPM },
	/* These specific Pioneer models have LPM issues */
	{ "PIONEER BD-RW   BDR-207M",	NULL,	ATA_QUIRK_NOLPM },
	{ "Samsung SSD 860*",		NULL,	ATA_QUIRK_NO_NCQ_TRIM |
						ATA_QUIRK_NO_LPM_ON_ATI_AND_AMD },
	/*
	 * Some WD SATA-I drives spin up and down erratically when the link
	 * is put into the slumber mode.
	 */
	{ "WDC WD800JD-*",		NULL,	ATA_QUIRK_WD_BROKEN_LPM },
	{ "SAMSUNG SSD PM830 mSATA *",  "CXM13D1Q", ATA_QUIRK_NOLPM },

	/* End Marker */
	{ }
};
