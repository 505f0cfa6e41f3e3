/* bootscheme.h: how the target boots (its boot loader scheme and initramfs
 * generator), told from its own files: where the kernel command line must go,
 * and which step makes the boot artifacts again */
#pragma once

#include <stdbool.h>

#include "root/rootfs.h"

enum boot_scheme {
        BOOT_NONE,              /* nothing idlecfg knows: the words go to /etc/idlecfg/cmdline */
        BOOT_GRUB,              /* GRUB, grub.cfg made by update-grub/grub-mkconfig (Debian) */
        BOOT_GRUB_BLS,          /* GRUB reading BLS entries (GRUB_ENABLE_BLSCFG=true): grubby edits their options */
        BOOT_KERNEL_INSTALL_BLS,        /* kernel-install, layout bls: entries from /etc/kernel/cmdline */
        BOOT_KERNEL_INSTALL_UKI,        /* kernel-install, layout uki: the words inside the image */
        BOOT_SYSTEMD_BOOT,      /* systemd-boot installed, no layout given: kernel-install's entries */
        BOOT_BOOTC,             /* a bootc image: /usr/lib/bootc/kargs.d */
        BOOT_OSTREE,            /* an OSTree deployment (rpm-ostree kargs) */
        _BOOT_SCHEME_MAX,
};

enum initrd_generator {
        INITRD_NONE,
        INITRD_INITRAMFS_TOOLS,
        INITRD_DRACUT,
        INITRD_MKINITCPIO,
        _INITRD_MAX,
};

/* GRUB: can a grub.d file (GRUB_SNIPPET_PATH) carry the words to grub.cfg? */
enum grub_words {
        GRUB_WORDS_SNIPPET,     /* yes: grub-mkconfig sources /etc/default/grub.d/NAME.cfg (Debian's) */
        GRUB_WORDS_NO_GRUB_D,   /* its grub-mkconfig sources /etc/default/grub only (upstream's,
                                 * openSUSE's, Fedora's): a snippet is never read */
        GRUB_WORDS_READONLY,    /* GRUB_CMDLINE_LINUX_DEFAULT is readonly before the snippet: assigning
                                 * it there stops grub-mkconfig ("is read only") */
};

struct boot_info {
        enum boot_scheme scheme;
        char *reason;           /* untranslated, as the plan's reasons are */
        enum initrd_generator initrd;
        char *initrd_reason;
        /* bootc, ostree: the target is the running host, booted from a deployment
         * (/run/ostree-booted): its kernel arguments change through the tool */
        bool booted;
        /* where GRUB is there (any scheme): whether a grub.d file can carry
         * the words, and what says not (the mkconfig script's path, or the
         * readonly's FILE:LINE) */
        enum grub_words grub_words;
        char *grub_words_where;
};

/* "grub", "grub-bls", "kernel-install-bls", "kernel-install-uki",
 * "systemd-boot", "bootc", "ostree", "none" (JSON, idlecfg(8)) */
const char *boot_scheme_to_string(enum boot_scheme s);
/* "initramfs-tools", "dracut", "mkinitcpio", "none" */
const char *initrd_generator_to_string(enum initrd_generator g);

/* The scheme and generator of root RFS, from its files (first match):
 *   bootc          /usr/lib/bootc is a directory (booted: /run/ostree-booted
 *                  on the running system)
 *   ostree         /ostree is a directory, or /run/ostree-booted
 *   grub-bls       GRUB_ENABLE_BLSCFG=true in /etc/default/grub(.d) and
 *                  /boot/loader/entries is a directory
 *   kernel-install-uki, -bls   layout=uki, layout=bls in /etc/kernel/install.conf,
 *                  else /usr/lib/kernel/install.conf (kernel-install's order)
 *   systemd-boot   its loader in /boot, /efi or /boot/efi (EFI/systemd/),
 *                  or loader/loader.conf there
 *   kernel-install-bls   /etc/kernel/cmdline and a boot entry (loader/entries/NAME.conf
 *                  in /boot, /efi or /boot/efi)
 *   grub           /etc/default/grub(.d), update-grub, grub(2)-mkconfig, grub.cfg
 *   kernel-install-bls   /etc/kernel/cmdline exists (no GRUB)
 *   none
 * The generator: initrd_generator= of install.conf, else the first of
 * update-initramfs, dracut, mkinitcpio the root has. A line of install.conf
 * that is not KEY=VALUE, or a layout kernel-install does not know, is a
 * warning of RFS naming FILE:LINE (rootfs_warn()), and the line is ignored. */
void boot_detect(const struct rootfs *rfs, struct boot_info *ret);
void boot_info_done(struct boot_info *b);
/* the grub-mkconfig script of the root (update-grub's, else grub2-mkconfig's)
 * that does not source /etc/default/grub.d/NAME.cfg: its path in the root, or
 * NULL (it does, or there is none to tell: Debian's is assumed) */
const char *boot_grub_mkconfig_no_grub_d(const struct rootfs *rfs);
/* the words every boot entry (Boot Loader Specification, the first of
 * /boot, /efi, /boot/efi with one) has on its options lines, space-separated;
 * NULL: no entry */
char *boot_bls_common_words(const struct rootfs *rfs);
/* of WORDS, those some boot entry (the same entries) has on an options
 * line, space-separated; NULL: none, or no entry */
char *boot_bls_words_held(const struct rootfs *rfs, const char *words);
/* the first file of GRUB the root has (a dangling link counts), NULL: none */
const char *boot_grub_mark(const struct rootfs *rfs);
/* is it a path of the root (links followed inside it)? */
bool boot_root_has(const struct rootfs *rfs, const char *path);
