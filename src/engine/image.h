/* image.h: images built on one machine and booted on another (install --image,
 * refresh --image: the first-boot unit idlecfg-firstboot.service, and
 * idlecfg-boot-steps.service that makes the boot configuration after it).
 * Nothing here prints: what happens is an image_log the CLI renders. */
#pragma once

#include <stdbool.h>

#include "engine/install.h"
#include "engine/next-steps.h"
#include "model/inventory.h"
#include "model/plan.h"
#include "root/rootfs.h"

/* the unit refresh --image starts, without waiting, for the slow steps */
#define BOOT_STEPS_UNIT "idlecfg-boot-steps.service"

/* Is "/" a chroot, not the root of PID 1 (stat of "/" and "/proc/1/root";
 * no /proc: a chroot)? IDLECFG_TEST_CHROOT=1 says yes, =0 no (tests). */
bool image_in_chroot(void);

/* Would a plain install into the root write the hardware of another machine?
 * True, with the reason in *ret_why (translated), when idlecfg runs in a
 * chroot, or the root is not the running system and it has no manifest of
 * this machine: none (an empty root, a build host's target), an image's
 * (install --image), or one of another fingerprint. RECORDED: the
 * fingerprint of the root's manifest, or NULL when it has none. */
bool image_foreign_hardware(const struct rootfs *rfs, const struct inventory *inv, const char *recorded,
                            char **ret_why);

/* install --image: does /etc/machine-id of the root hold an ID (every
 * machine booted from the image would share it, and systemd's first boot,
 * ConditionFirstBoot=, never comes)? */
bool image_machine_id_filled(const struct rootfs *rfs);

/* Is the root the running system, where commands make settings take effect
 * (not --root DIR, not a chroot)? */
bool image_can_take_effect(const struct rootfs *rfs);

/* what a run of the commands below did, in order */
enum image_event_kind {
        IMG_SAY,                /* a line for the journal: text */
        IMG_RUN,                /* a command about to run: argv */
        IMG_FAILED,             /* the command before failed, or could not run: text says why */
};

struct image_event {
        enum image_event_kind kind;
        char *text;
        char **argv;
};

struct image_log {
        struct image_event *v;
        size_t n;
        size_t failed;          /* commands that failed */
        /* the CLI's renderer, called with each event as it happens (a
         * command's own output then follows its line); NULL: none */
        void (*show)(const struct image_event *e, void *userdata);
        void *userdata;
};
void image_log_free(struct image_log *l);

/* refresh --image, in the first-boot unit, after install wrote files for the
 * running machine: what udev and sysfs can do takes effect now (udevadm
 * trigger of the devices of the udev settings, systemd-tmpfiles,
 * systemd-sysctl); what needs the initramfs or the kernel command line is
 * said to take effect at the next boot, and left to the boot steps (below):
 * nothing slow runs on the boot's critical path. Returns the number of
 * commands that failed (also in LOG). */
size_t image_take_effect(const struct rootfs *rfs, const struct install_result *res, const struct plan *p,
                         struct image_log *log);

/* the boot steps (next_steps_boot_pending()) handed on: systemctl start
 * --no-block of BOOT_STEPS_UNIT, which runs them after the boot (0, or -1
 * said in LOG) */
int image_start_boot_steps(struct image_log *log);

/* refresh --image --boot-steps (BOOT_STEPS_UNIT): run each boot step of S
 * that has a command (update-initramfs, kernel-install, update-grub), in
 * order; a step by hand is said (not a failure). Returns the number of
 * commands that failed or could not run. */
size_t image_run_boot_steps(const struct next_steps *s, struct image_log *log);
