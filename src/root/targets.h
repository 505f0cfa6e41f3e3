/* targets.h: the files install writes into a root; the manifest names no other.
 * A plain list of paths (no code): the families (knobs/kernel.c) and refresh
 * name these files too, without reaching up into install.h. */
#pragma once

#define UDEV_RULES_PATH "/etc/udev/rules.d/70-idlecfg.rules"
#define MODPROBE_PATH "/etc/modprobe.d/idlecfg.conf"
#define TMPFILES_PATH "/etc/tmpfiles.d/idlecfg.conf"
/* 90: after the distribution's defaults (10-70, /usr/lib/sysctl.d), before the
 * administrator's 99-*.conf (Debian's 99-sysctl.conf -> ../sysctl.conf) */
#define SYSCTL_PATH "/etc/sysctl.d/90-idlecfg.conf"
/* read after the numbered files and Ubuntu's default-wifi-powersave-on.conf:
 * of two files, the sections of the one read later win (NetworkManager.conf(5)) */
#define NM_CONF_PATH "/etc/NetworkManager/conf.d/idlecfg.conf"
/* a drop-in of the distribution's 99-default.link: a .link file of our own
 * would replace it for the NICs it matched, NamePolicy and all */
#define LINK_DROPIN_PATH "/etc/systemd/network/99-default.link.d/50-idlecfg.conf"
#define KERNEL_CMDLINE_PATH "/etc/kernel/cmdline"
/* the longest KERNEL_CMDLINE_PATH (and /proc/cmdline) read: one line of
 * kernel parameters */
#define KERNEL_CMDLINE_MAX (64u << 10)
#define GRUB_SNIPPET_PATH "/etc/default/grub.d/idlecfg.cfg"
#define OWN_CMDLINE_PATH "/etc/idlecfg/cmdline"
/* what kernel-install reads when there is no KERNEL_CMDLINE_PATH (the vendor's) */
#define USR_KERNEL_CMDLINE_PATH "/usr/lib/kernel/cmdline"
/* a bootc image's kernel arguments (bootc's kargs.d: NN-NAME.toml, kargs = [...]) */
#define BOOTC_KARGS_PATH "/usr/lib/bootc/kargs.d/50-idlecfg.toml"
#define NEW_SUFFIX ".idlecfg-new"
/* image mode (install --image): the link that enables idlecfg-firstboot.service
 * as "systemctl enable" (and so presets) make it, from its [Install] section */
#define FIRSTBOOT_WANTS_PATH "/etc/systemd/system/sysinit.target.wants/idlecfg-firstboot.service"
/* ... what enabled it before (a drop-in: systemctl said "static"); an
 * install over a manifest naming it removes it */
#define FIRSTBOOT_DROPIN_PATH "/etc/systemd/system/sysinit.target.d/50-idlecfg-firstboot.conf"

/* the power-source switch (pstable.c): the table of values per source, the
 * udev rule, the boot unit and the drop-in that wants it at boot (a regular
 * file: install never makes links). Its system-sleep hook is the package's
 * (systemd-sleep reads /usr/lib/systemd/system-sleep only), which acts when
 * PS_TABLE_PATH is there; PS_HOOK_PATH is where earlier builds wrote their
 * own: a manifest may still name it, and install and rollback remove it */
#define PS_TABLE_PATH "/etc/idlecfg/power-source.conf"
#define PS_RULE_PATH "/etc/udev/rules.d/70-idlecfg-power-source.rules"
#define PS_UNIT_PATH "/etc/systemd/system/idlecfg-power-source.service"
#define PS_WANTS_PATH "/etc/systemd/system/multi-user.target.d/idlecfg-power-source.conf"
#define PS_HOOK_PATH "/usr/lib/systemd/system-sleep/idlecfg-power-source"

/* every file install may write (and, with NEW_SUFFIX, its copy beside an
 * administrator's version); a manifest naming another file is refused.
 * A new target goes here first. */
#define TARGET_PATHS \
        UDEV_RULES_PATH, MODPROBE_PATH, TMPFILES_PATH, SYSCTL_PATH, NM_CONF_PATH, LINK_DROPIN_PATH, \
        KERNEL_CMDLINE_PATH, GRUB_SNIPPET_PATH, OWN_CMDLINE_PATH, FIRSTBOOT_DROPIN_PATH, \
        PS_TABLE_PATH, PS_RULE_PATH, PS_UNIT_PATH, PS_WANTS_PATH, PS_HOOK_PATH, BOOTC_KARGS_PATH, FIRSTBOOT_WANTS_PATH
/* the command-line targets (the manifest's "cmdline" line) */
#define CMDLINE_TARGET_PATHS KERNEL_CMDLINE_PATH, GRUB_SNIPPET_PATH, OWN_CMDLINE_PATH, BOOTC_KARGS_PATH
