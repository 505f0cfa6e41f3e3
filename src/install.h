/* install.h: render a plan into a root, undo it, and tell when it is out of date */
#pragma once

#include <stdio.h>

#include "inventory.h"
#include "manifest.h"
#include "plan.h"
#include "rootfs.h"
#include "state.h"

/* the files install owns */
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
/* /etc/kernel/cmdline (and /proc/cmdline): one line of kernel parameters */
#define KERNEL_CMDLINE_MAX (64u << 10)
#define GRUB_SNIPPET_PATH "/etc/default/grub.d/idlecfg.cfg"
#define OWN_CMDLINE_PATH "/etc/idlecfg/cmdline"
#define NEW_SUFFIX ".idlecfg-new"

struct install_options {
        bool dry_run;
        bool force;             /* overwrite files the administrator changed */
        const char *profiles_dir;
        bool json;              /* print install's JSON (schema in idlecfg(8)) to OUT instead of text */
        FILE *json_failed;      /* json: where the text goes when install fails (the caller's stderr); NULL: nowhere */
};

/* Write the plan's files into the root: 1 when something changed, 0 when all
 * was already in place, <0 on failure (ret_error says what; what was written
 * before the failure is in the manifest, so rollback undoes it). With
 * dry_run, print the diff of what would change and write nothing. Progress
 * and the installer's next steps go to OUT. */
int install_run(const struct rootfs *rfs, const struct plan *p, const struct inventory *inv,
                const struct install_options *o, FILE *out, struct xerror *ret_error);

/* Undo install: restore every file in the manifest as it was, remove the
 * directories install made, then the manifest and backups. Files changed by
 * someone else since install are reported and kept unless FORCE. 0 done,
 * 1 nothing to undo, <0 failure (-EBUSY: some files were left alone). */
int install_rollback(const struct rootfs *rfs, bool force, FILE *out, struct xerror *ret_error);
