/* verb-refresh.c: the verb refresh: the engine decides whether anything
 * changed (refresh_run()), and what changed is planned and installed
 * (verb-install.c's install_write()); the first-boot unit's condition and
 * stamp, and the boot steps it hands on */
#include "config.h"

#include "state/firstboot.h"
#include "engine/image.h"
#include "state/initramfs.h"
#include "engine/install.h"
#include "state/manifest.h"
#include "engine/next-steps.h"
#include "pipeline/powertools.h"
#include "db/profile-select.h"
#include "engine/refresh-run.h"
#include "pipeline/detect.h"
#include "pipeline/fingerprint.h"
#include "root/target.h"
#include "cli/print-next-steps.h"
#include "cli/run.h"
#include "cli/verb-install.h"
#include "cli/verbs.h"


/* What the boot configuration of the root still lacks, said on every run
 * until it is done (the steps of an earlier install nobody ran): exit 4 */
static int boot_still_lacks(const struct run *c, const struct manifest *m)
{
        _cleanup_(next_steps_free) struct next_steps steps = {};
        _cleanup_free_ char *header = NULL;

        next_steps_init(&steps, &c->rfs);
        next_steps_boot_pending_of(&steps, &c->rfs, m);
        if (!next_steps_boot_incomplete(&steps))
                return EXIT_OK;
        /* refresh --image: a first boot cut short before its boot steps ran */
        if (c->a->image) {
                hand_on_boot_steps(c, &steps);
                return EXIT_BOOT_INCOMPLETE;
        }
        header = xasprintf(_("The boot configuration of %s still lacks what idlecfg installed; run:\n"),
                           c->rfs.path);
        next_steps_print_text(&steps, header, stdout);
        return EXIT_BOOT_INCOMPLETE;
}

/* refresh could not decide (refresh_run(): FAILED): said; the exit code */
static int refresh_failed(struct refresh_result *res)
{
        switch (res->failed) {
        case REFRESH_FAILED_MANIFEST:
                return report(res->error, &res->e, NULL);
        case REFRESH_FAILED_DETECT:
                fprintf(stderr, _("idlecfg: detect failed: %s\n"), detect_error(res->error));
                return EXIT_FAILURE_;
        case REFRESH_FAILED_LOCK:
                print_error(NULL, &res->e, strerror(-res->error));
                return EXIT_FAILURE_;
        case REFRESH_FAILED_PROFILE:
                print_error(NULL, &res->e, strerror(-res->error));
                return EXIT_USAGE;
        }
        return EXIT_FAILURE_;
}

/* refresh: the engine decides (refresh_run()); here what it found is said,
 * and what changed is planned and installed */
static int refresh_root(struct run *c)
{
        const struct args *a = c->a;
        struct refresh_options o = { .rfs = &c->rfs, .profile = c->profile, .kernel = a->kernel,
                                     .profiles_dir = a->profiles_dir, .image = a->image, .dry_run = a->dry_run,
                                     .wait_ms = a->wait_ms, .lock = &c->lock };
        _cleanup_(refresh_result_free) struct refresh_result res = {};
        int r;

        refresh_run(&o, &res);
        switch (res.verdict) {
        case REFRESH_FAILED:
                return refresh_failed(&res);
        case REFRESH_NOT_INSTALLED:
                printf(_("idlecfg was not installed into %s (no manifest): nothing to refresh.\n"), c->rfs.path);
                return EXIT_OK;
        case REFRESH_IMAGE:
                if (a->verbose)
                        printf(_("%s is an image (install --image): the first boot of each machine configures "
                                 "it; nothing to refresh now.\n"), c->rfs.path);
                return EXIT_OK;
        case REFRESH_UNCHANGED:
        case REFRESH_CHANGED:
                break;
        }
        if (res.stale_r < 0 && a->verbose)
                print_error(NULL, &res.stale_error, strerror(-res.stale_r));
        else if (res.stale_r > 0 && a->verbose)
                printf(_("The stat data of files touched or replaced by the same bytes is recorded anew in the "
                         "manifest of %s.\n"), c->rfs.path);
        for (size_t i = 0; i < res.changed.n; i++) {
                if (i == 0)
                        printf(_("Changed since the last install of %s:\n"), c->rfs.path);
                if (!res.changed.v[i].value)
                        printf(_("  %s: files changed\n"), res.changed.v[i].key);
                else
                        printf("  %s: %s\n", res.changed.v[i].key, res.changed.v[i].value);
        }
        if (res.cut_short)
                printf(_("The last install into %s was cut short: it is finished now.\n"), c->rfs.path);
        c->inv = TAKE_PTR(res.inv);
        if (res.verdict == REFRESH_UNCHANGED) {
                if (a->verbose)
                        printf(_("%s is up to date: nothing changed since the last install.\n"), c->rfs.path);
                return boot_still_lacks(c, res.manifest);
        }
        /* the plan of this inventory and this profile: nothing detected or chosen twice */
        c->refresh = true;
        c->profile = res.profile;
        c->chosen = TAKE_PTR(res.chosen);
        c->chosen_reason = TAKE_PTR(res.chosen_reason);
        r = run_plan(c);
        if (r != EXIT_OK)
                return r;
        return install_write(c, false, a->image);
}

/* the lock, taken late: refresh's cheap look reads files written whole
 * (the manifest, the stamp: renamed into place), so "nothing changed" needs
 * none; whatever refresh writes, it writes under the lock */
static int refresh_lock(struct run *c)
{
        if (c->lock >= 0 || c->a->dry_run)
                return EXIT_OK;
        return run_lock(c);
}

/* refresh --image --condition: the verdict on the stamp, said (-v) */
static int firstboot_condition(struct run *c)
{
        _cleanup_free_ char *key = fingerprint_hardware_key(), *shown = rootfs_display(&c->rfs, FIRSTBOOT_STAMP_PATH);
        struct firstboot_check fc;
        bool needed = firstboot_needed(&c->rfs, key, &fc), v = c->a->verbose;

        switch (fc.verdict) {
        case FB_NO_STAMP:
                if (v)
                        printf(_("%s: none: the first boot of this machine, or idlecfg-firstboot.service "
                                 "has not finished yet: it runs\n"), shown);
                break;
        case FB_UNREADABLE: {
                _cleanup_free_ char *why = rootfs_why(&c->rfs, FIRSTBOOT_STAMP_PATH, fc.error, 4096);
                fprintf(stderr, _("idlecfg: warning: cannot read %s: %s; idlecfg-firstboot.service runs\n"), shown,
                        why);
                break;
        }
        case FB_DAMAGED:
                fprintf(stderr, _("idlecfg: warning: %s:%u: not a stamp of idlecfg-firstboot.service; it runs (and "
                                  "writes the stamp again)\n"), shown, fc.line);
                break;
        case FB_NO_MACHINE_ID:
                if (v)
                        printf(_("/etc/machine-id holds no machine ID (a first boot): idlecfg-firstboot.service "
                                 "runs\n"));
                break;
        case FB_OTHER_MACHINE_ID:
                if (v)
                        printf(_("%s: the stamp is of another machine ID (%s, now %s): idlecfg-firstboot.service "
                                 "runs\n"), shown, fc.was, fc.now);
                break;
        case FB_OTHER_HARDWARE:
                if (v)
                        printf(_("%s: the stamp is of other hardware (%s, now %s: a cloned or moved disk): "
                                 "idlecfg-firstboot.service runs\n"), shown, *fc.was ? fc.was : _("none"), fc.now);
                break;
        case FB_USR_CHANGED:
                if (v)
                        printf(_("%s: /usr changed since the stamp (its mtime): idlecfg-firstboot.service runs\n"),
                               shown);
                break;
        case FB_CONFIGURED:
                if (v)
                        printf(_("%s: this /usr, machine ID and hardware were configured: "
                                 "idlecfg-firstboot.service has nothing to do\n"), shown);
                break;
        }
        return needed ? EXIT_OK : EXIT_CHANGES;
}

/* the stamp of a first boot whose work is done: the unit skips itself from now */
static void firstboot_done(struct run *c)
{
        _cleanup_free_ char *key = fingerprint_hardware_key();
        int k = firstboot_stamp_write(&c->rfs, key);

        if (k < 0) {
                _cleanup_free_ char *shown = rootfs_display(&c->rfs, FIRSTBOOT_STAMP_PATH);
                _cleanup_free_ char *why = rootfs_why(&c->rfs, FIRSTBOOT_STAMP_PATH, k, 0);
                fprintf(stderr, _("idlecfg: warning: cannot write %s: %s; idlecfg-firstboot.service "
                                  "runs again at the next boot\n"), shown, why);
        }
}

/* refresh --image --boot-steps, idlecfg-boot-steps.service: the steps the
 * first boot left, run after it; 0 and the stamp when none is left, else 4
 * (3: a command failed; the next boot's first-boot unit tries again) */
static int run_boot_steps(struct run *c)
{
        struct stat st;
        int r;

        if (!image_can_take_effect(&c->rfs)) {
                fprintf(stderr, _("idlecfg: %s is not the running system: --boot-steps runs nothing there; "
                                  "\"idlecfg --root %s verify\" lists the steps\n"), c->rfs.path, c->rfs.path);
                return EXIT_USAGE;
        }
        if (rootfs_lstat(&c->rfs, MANIFEST_PATH, &st) < 0) {
                printf(_("idlecfg was not installed into %s (no manifest): no boot step.\n"), c->rfs.path);
                return EXIT_OK;
        }
        r = install_boot_steps(c);
        if (r == EXIT_OK)
                firstboot_done(c);
        return r;
}

static int check_refresh(const struct args *a, int argc, char **argv)
{
        if (a->condition && (!a->image || a->dry_run)) {
                fprintf(stderr, _("idlecfg: --condition goes with refresh --image, without --dry-run (the "
                                  "first-boot unit's ExecCondition=)\n"));
                return EXIT_USAGE;
        }
        if (a->boot_steps && (a->dry_run || a->condition)) {
                fprintf(stderr, _("idlecfg: refresh --boot-steps runs the boot steps: not with --dry-run or "
                                  "--condition\n"));
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

static int do_refresh(struct run *c, int argc, char **argv)
{
        const struct args *a = c->a;
        struct stat st;
        int r;

        /* the first-boot unit's ExecCondition=: 0 runs it, 1 skips it */
        if (a->condition)
                return firstboot_condition(c);
        if (a->boot_steps && a->image) {
                r = refresh_lock(c);
                return r != EXIT_OK ? r : run_boot_steps(c);
        }
        /* the package triggers (rpm, pacman) and the kernel hook: refresh,
         * then the boot steps the root still lacks, as install --boot-steps */
        if (a->boot_steps) {
                r = refresh_root(c);
                if ((r == EXIT_OK || r == EXIT_BOOT_INCOMPLETE) && rootfs_lstat(&c->rfs, MANIFEST_PATH, &st) == 0)
                        r = install_boot_steps(c);
                return r;
        }
        if (a->dry_run)
                initramfs_cache_readonly();
        r = refresh_root(c);
        /* the unit did its work for this /usr, machine ID and hardware
         * (firstboot.h); with a boot step left, idlecfg-boot-steps.service
         * writes the stamp once it is done */
        if (r == EXIT_OK && a->image && !a->dry_run && image_can_take_effect(&c->rfs) &&
            rootfs_lstat(&c->rfs, MANIFEST_PATH, &st) == 0) {
                r = refresh_lock(c);
                if (r == EXIT_OK)
                        firstboot_done(c);
        }
        return r;
}

/* detects and plans itself, only when something changed */
const struct verb verb_refresh = {
        .name = "refresh", .min_args = 0, .max_args = 0,
        .needs = VERB_LOCK | VERB_LOCK_LATE | VERB_STATUS | VERB_MANIFEST,
        .check = check_refresh, .run = do_refresh,
        .help = N_("Re-install if hardware, kernel, hwdb or profile changed"),
        .options = O_PLANNING | O_DRY_RUN | O_FORCE | O_WAIT | O_REFUSE_CONFLICTS | O_IMAGE | O_CONDITION |
                   O_BOOT_STEPS,
};
