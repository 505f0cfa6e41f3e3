/* SPDX-License-Identifier: GPL-2.0-or-later */
/* the 7.x shape: quirk bits numbered in an enum, the masks 64 bits wide */
enum ata_quirks {
	__ATA_QUIRK_NOLPM,		/* Do not use LPM */
	__ATA_QUIRK_WD_BROKEN_LPM,	/* Some WDs have broken LPM */
	__ATA_QUIRK_NO_LPM_ON_ATI_AND_AMD,
	__ATA_QUIRK_MAX,
};

enum {
	ATA_QUIRK_NOLPM			= BIT_ULL(__ATA_QUIRK_NOLPM),
	ATA_QUIRK_WD_BROKEN_LPM		= BIT_ULL(__ATA_QUIRK_WD_BROKEN_LPM),
	ATA_QUIRK_NO_LPM_ON_ATI_AND_AMD	= BIT_ULL(__ATA_QUIRK_NO_LPM_ON_ATI_AND_AMD),
};
