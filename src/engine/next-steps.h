/* next-steps.h: what is left to do after install, as commands (argv) a
 * script can run: the steps for the files a run wrote, and what the boot
 * configuration of the root still lacks, read from the root on every run */
#pragma once

#include <stdio.h>

#include "model/plan.h"
#include "root/bootscheme.h"
#include "root/rootfs.h"
#include "state/manifest.h"

struct install_result;   /* engine/install.h: next-steps.c reads its files */

struct next_step {
        const char *id;         /* untranslated, for scripts: "update-grub", "sysctl", ... */
        char **argv;            /* the command, NULL-terminated; NULL: a step by hand */
        const char *why;        /* N_(): English in JSON, translated in text */
        char *words;            /* a step by hand: the words to add (or to take out: REMOVE), space-separated */
        bool remove;
        bool boot;              /* the boot configuration lacks it until it runs: exit 4 */
        char digest[65];        /* a boot step: the step and the installed boot files it is for */
        long long acknowledged; /* in next_steps.acked: when "idlecfg steps done" said it was done */
};

struct next_steps {
        struct next_step *v;
        size_t n;
        bool running;           /* the target is the running system */
        bool chroot;            /* the commands run in the root through chroot */
        char *root;
        struct boot_info boot;  /* how the root boots: which tool each step is */
        /* boot steps the administrator said were done by hand ("idlecfg steps
         * done", state/stepsdone.h) while they and the files they are for are
         * the same: not in v, not pending */
        struct next_step *acked;
        size_t n_acked;
};

/* An empty list for the root: whether commands run through chroot, and
 * whether steps for the running system (udevadm, sysctl -p) apply. */
void next_steps_init(struct next_steps *s, const struct rootfs *rfs);
void next_steps_free(struct next_steps *s);

/* the steps for the files install wrote or would write (dry run): KERNEL is
 * the plan's. The boot steps of files written (update-grub, kernel-install,
 * update-initramfs, the words) only with DRY_RUN: after a real run the
 * root's files say whether they are needed (next_steps_boot_pending()); a
 * file restored or removed still needs its boot step. */
void next_steps_for_files(struct next_steps *s, const struct rootfs *rfs, const struct install_result *r,
                          const struct plan *p, bool dry_run);

/* "UDEVADM trigger --action=add DEVICE..." of the devices of P's udev
 * settings, each once (plan_udev_devices()), for strv_free(); NULL when there
 * are none. An add event: the rules match ACTION=="add" (emit.c; wakeup's
 * add|bind|change too), so a "change" event would set nothing; an add event
 * of a device that is there is what systemd-udev-trigger.service sends each
 * at every boot. The next step after install, and the first boot's own run. */
char **udev_trigger_argv(const char *udevadm, const struct plan *p);

/* What the boot configuration of the root still lacks, from its files and
 * idlecfg's manifest: a GRUB snippet newer than grub.cfg or with words it
 * lacks, /etc/kernel/cmdline words no boot entry has, /etc/idlecfg/cmdline
 * words in no boot loader's configuration, the words of an earlier profile
 * (the manifest's dropped-words) boot entries still hold, an initramfs older than
 * modprobe.d/idlecfg.conf that may hold a module it names (initramfs_check()).
 * Nothing installed: nothing. */
void next_steps_boot_pending(struct next_steps *s, const struct rootfs *rfs);
/* the same, of manifest M the caller loaded already */
void next_steps_boot_pending_of(struct next_steps *s, const struct rootfs *rfs, const struct manifest *m);

/* Record the pending boot steps of the root named in IDS ("all": every one)
 * as done by hand, now; records of steps no longer pending go. -EINVAL
 * with a message naming the first ID that is no pending boot step */
int next_steps_acknowledge(const struct rootfs *rfs, char *const *ids, size_t n_ids, struct xerror *ret_error);

/* does the boot configuration still lack something (exit 4) */
bool next_steps_boot_incomplete(const struct next_steps *s);

/* After rollback: the steps that take out of the boot artifacts what
 * install put there and they still hold. WORDS: the kernel parameters
 * idlecfg added (NULL: none); MODPROBE_TIME: when modprobe.d/idlecfg.conf
 * was written (NULL: it was not), an initramfs made since may hold it.
 * grub.cfg with a word (update-grub), boot entries' options or a unified
 * kernel image with one (kernel-install; grubby --remove-args on GRUB+BLS,
 * rpm-ostree kargs --delete on OSTree), bootc's options of idlecfg's source
 * on a running bootc host, the initramfs (the generator's step). */
void next_steps_undo(struct next_steps *s, const struct rootfs *rfs, const char *words, const char *kernel,
                     const struct timespec *modprobe_time);

/* What the running kernel's command line (/proc/cmdline, when the target
 * is the running system) or the current initramfs (its listing, where it
 * can be listed: initramfs_holds_file()) still holds of what a rollback
 * took out (the root's LEFT_NOTE_PATH, when no manifest says idlecfg is
 * installed again), or else the boot configuration (grub.cfg, boot entries,
 * a UKI: "boot-config") until the steps that take the words out ran: each
 * with the steps after which it is gone (and a reboot, for the running
 * kernel). */
struct boot_left {
        const char *what;               /* "kernel-cmdline", "initramfs", "boot-config": for scripts */
        char *where;                    /* "/proc/cmdline", the initramfs's path ("" for boot-config:
                                         * grub.cfg, boot entries or a UKI, as the steps say) */
        char *holds;                    /* the words, or the file in the initramfs */
        struct next_steps steps;        /* gone after these ... */
        bool reboot;                    /* ... and a reboot */
};
struct boot_lefts {
        struct boot_left *v;
        size_t n;
};
void boot_lefts_find(const struct rootfs *rfs, struct boot_lefts *ret);
/* the same with manifest_load()'s answer MANIFEST_R already known */
void boot_lefts_find_of(const struct rootfs *rfs, int manifest_r, struct boot_lefts *ret);
void boot_lefts_free(struct boot_lefts *l);

/* At the end of a rollback: the note of what it took out of the files
 * (WORDS, MODPROBE, KERNEL; none: a rollback that found no manifest) is kept
 * while boot_lefts_find() finds some of it left, else removed. */
int boot_left_note(const struct rootfs *rfs, const char *words, bool modprobe, const char *kernel);
