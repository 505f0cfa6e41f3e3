/* verb-refresh.c: install and refresh, the verbs that write a plan into a
 * root: the checks before writing, the run, what it prints, its exit code */
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
#include "cli/verb-refresh.h"
#include "root/target.h"
#include "cli/verb-check.h"
#include "cli/verb-install.h"
#include "cli/verb-plan.h"

/* --refuse-conflicts: another power tool sets the same knobs */
static int refuse_conflicts(const struct run *c)
{
        bool refused = false;

        for (size_t i = 0; c->a->refuse_conflicts && i < c->inv->n_tools; i++) {
                const struct power_tool *t = &c->inv->tools[i];
                if (!t->conflicts)
                        continue;
                fprintf(stderr, _("idlecfg: refused (--refuse-conflicts): %s%s%s is installed and sets knobs "
                                  "idlecfg sets too (%s)\n"),
                        t->name, t->path ? " " : "", strempty(t->path), _(t->touches));
                refused = true;
        }
        if (refused)
                fprintf(stderr, _("idlecfg: nothing written; remove or disable the tool, or install without "
                                  "--refuse-conflicts to let both run\n"));
        return refused ? EXIT_REFUSED : EXIT_OK;
}

/* install --image: the plan of no hardware, for the profile given (else the
 * first boot chooses by the machine's chassis) */
static void image_plan(const struct plan *p, const struct args *a, struct plan *ret)
{
        *ret = (struct plan) { .profile = p->profile, .fingerprint = (char *) IMAGE_FINGERPRINT, .kernel = p->kernel,
                               .profile_reason = a->profile ? (char *) "--profile"
                                                            : (char *) "image: chosen at the first boot",
                               .boot = p->boot };
}

/* the warnings of install before it writes, for text and JSON: code
 * (untranslated) -> message */
static void preflight_warnings(struct run *c, bool image, struct kvlist *ret)
{
        _cleanup_(manifest_freep) struct manifest *m = NULL;
        _cleanup_free_ char *why = NULL;
        struct xerror me = {};
        int r;

        if (image) {
                if (image_machine_id_filled(&c->rfs)) {
                        _cleanup_free_ char *shown = rootfs_display(&c->rfs, "/etc/machine-id");
                        kv_add_take(ret, "image-machine-id",
                                    xasprintf(_("%s holds a machine ID: every machine booted from the image "
                                                "shares it, and systemd's first boot (ConditionFirstBoot=) never "
                                                "comes; empty it before the image is sealed (truncate -s 0 %s)"),
                                              shown, shown));
                }
                return;
        }
        if (c->refresh)
                return;
        r = manifest_load(&c->rfs, &m, &me);
        xerror_done(&me);
        /* a manifest that is there but refused (damaged, cut, not a regular
         * file) is no "root without a manifest": install_run() refuses it
         * next, naming the file, the line and the damage */
        if (r < 0 && r != -ENOENT)
                return;
        if (image_foreign_hardware(&c->rfs, c->inv, m ? m->fingerprint : NULL, &why))
                kv_add_take(ret, "foreign-hardware",
                            xasprintf(_("%s is not this machine's running system and %s: the settings written "
                                        "are for this machine's devices (fingerprint %s). For an image booted "
                                        "on other machines, use install --image: each configures itself at its "
                                        "first boot."),
                                      c->rfs.path, why, c->plan->fingerprint));
}

/* before install writes: a machine with devices, no other power tool
 * refused, whether what it writes can take effect now (TAKE_EFFECT, cleared
 * if not), and the warnings about the root (RET_WARNINGS; said here in text) */
static int install_preflight(struct run *c, bool json, bool image, bool *take_effect, struct kvlist *ret_warnings)
{
        size_t devices = 0;
        int r;

        /* no /sys (an image build's chroot) or nothing in it: a manifest for
         * a machine without devices would only be wrong on the real one */
        for (size_t i = 0; c->inv && i < _CL_MAX; i++)
                devices += c->inv->classes[i].n;
        if (devices == 0 && c->inv && !image) {
                fprintf(stderr, _("idlecfg: no devices found in /sys (is sysfs mounted?): refusing to install a "
                                  "configuration for a machine without devices; run install on the target machine, "
                                  "or in a chroot with its /sys bound (for an image booted on other machines: "
                                  "install --image)\n"));
                return EXIT_FAILURE_;
        }
        r = refuse_conflicts(c);
        if (r != EXIT_OK)
                return r;
        if (*take_effect && !image_can_take_effect(&c->rfs)) {
                fprintf(stderr, _("idlecfg: %s is not the running system: nothing takes effect now; the next "
                                  "steps are below\n"), c->rfs.path);
                *take_effect = false;
        }
        preflight_warnings(c, image, ret_warnings);
        for (size_t i = 0; !json && i < ret_warnings->n; i++)
                fprintf(stderr, _("idlecfg: warning: %s\n"), ret_warnings->v[i].value);
        return EXIT_OK;
}

/* an image_log as it happens: the lines of the first-boot unit's journal */
static void show_image_event(const struct image_event *e, void *userdata)
{
        FILE *out = userdata;

        switch (e->kind) {
        case IMG_SAY:
                fprintf(out, "%s\n", e->text);
                break;
        case IMG_RUN:
                fputs("  +", out);
                for (char **a = e->argv; a && *a; a++)
                        fprintf(out, " %s", *a);
                fputc('\n', out);
                break;
        case IMG_FAILED:
                fprintf(out, "  %s\n", e->text);
                break;
        }
        fflush(out);
}

/* refresh --image on the running system with boot steps left: said, and
 * handed to idlecfg-boot-steps.service, which makes them after this boot */
static void hand_on_boot_steps(const struct run *c, const struct next_steps *steps)
{
        struct image_log log = { .show = show_image_event, .userdata = stdout };
        _cleanup_free_ char *header = xasprintf(_("Left for the next boot of %s (exit status 4):\n"), c->rfs.path);

        next_steps_print_text(steps, header, stdout);
        if (image_can_take_effect(&c->rfs))
                (void) image_start_boot_steps(&log);
        image_log_free(&log);
}

/* install failed (CODE, said): how the root stands now, and what undoes it */
static int install_failed(const struct run *c, const struct install_result *res, bool dry, int code)
{
        const struct args *a = c->a;

        if (res->state_refused) {
                _cleanup_free_ char *dir = rootfs_display(&c->rfs, STATE_DIR);
                fprintf(stderr, _("idlecfg: nothing was changed. rollback refuses the same state, with or "
                                  "without --force: inspect the file named above (backups in %s/backup "
                                  "are named by the SHA-256 of their content). To start afresh, put back "
                                  "by hand the files the manifest lists, then remove %s and install "
                                  "again.\n"), dir, dir);
        } else if (!dry && res->touched) {
                fprintf(stderr, _("idlecfg: what was written before the failure is in the manifest: "
                                  "\"idlecfg rollback%s"), a->root ? " --root " : "");
                if (a->root)
                        print_shell_word(a->root, stderr);
                fputs(_("\" undoes it\n"), stderr);
        }
        return code;
}

/* JSON: install --json (refresh prints text); TAKE_EFFECT: refresh --image,
 * the first-boot unit: what udev and sysfs can do now, the rest for the next boot */
int do_install(struct run *c, bool json, bool take_effect)
{
        const struct args *a = c->a;
        const struct plan *p = c->plan;
        struct plan image;
        bool dry = a->dry_run || a->check, salt = streq_ptr(a->format, "salt");
        struct install_options o = { .dry_run = dry, .force = a->force, .profiles_dir = a->profiles_dir,
                                     .image = a->image && !c->refresh };
        _cleanup_(install_result_free) struct install_result res = {};
        _cleanup_(next_steps_free) struct next_steps steps = {};
        _cleanup_(kv_free) struct kvlist warnings = {};
        struct xerror e = {};
        int r;

        /* what writes nothing writes no cache either */
        if (dry)
                initramfs_cache_readonly();
        r = install_preflight(c, json, o.image, &take_effect, &warnings);
        if (r != EXIT_OK)
                return r;
        if (o.image) {
                image_plan(c->plan, a, &image);
                p = &image;
        }
        if (!dry && !json && !salt)
                printf(o.image ? _("Installing image mode of profile %s (%s) into %s: no hardware setting; "
                                   "idlecfg-firstboot.service configures the machine the image boots on, at "
                                   "its first boot:\n")
                               : _("Installing profile %s (%s) into %s for fingerprint %s, kernel %s:\n"),
                       p->profile, p->profile_reason, c->rfs.path, p->fingerprint,
                       p->kernel ? p->kernel : _("(unknown)"));
        if (!dry && !json && !salt)
                plan_print_boot_text(p, stdout);
        r = install_run(&c->rfs, p, c->inv, &o, &res, &e);
        /* an image gets no stamp: each machine's first boot runs the unit */
        if (r >= 0 && o.image && !dry) {
                int k = firstboot_stamp_remove(&c->rfs);
                if (k < 0) {
                        _cleanup_free_ char *shown = rootfs_display(&c->rfs, FIRSTBOOT_STAMP_PATH);
                        _cleanup_free_ char *why = rootfs_why(&c->rfs, FIRSTBOOT_STAMP_PATH, k, 0);
                        fprintf(stderr, _("idlecfg: warning: cannot remove %s: %s\n"), shown, why);
                }
        }
        next_steps_init(&steps, &c->rfs);
        if (r >= 0) {
                /* what this run's files call for, and what earlier runs' still do */
                next_steps_for_files(&steps, &c->rfs, &res, p, dry);
                next_steps_boot_pending(&steps, &c->rfs);
        }
        if (salt && r >= 0) {
                if (a->check && a->diff)
                        install_print(&res, stdout);
                install_print_salt(&res, &steps, a->check, r > 0, stdout);
        } else if (!json && a->check) {
                if (a->diff)
                        install_print(&res, stdout);
                install_print_check(&res, &steps, c->rfs.path, stdout);
        } else if (!json) {
                install_print(&res, stdout);
                if (r >= 0 && take_effect && r > 0) {
                        /* the first boot: what takes effect now; the slow steps after it */
                        struct image_log log = { .show = show_image_event, .userdata = stdout };
                        size_t failed = image_take_effect(&c->rfs, &res, p, &log);
                        image_log_free(&log);
                        if (next_steps_boot_incomplete(&steps))
                                hand_on_boot_steps(c, &steps);
                        if (failed) {
                                fprintf(stderr, _("idlecfg: %zu command(s) to make the settings take effect now "
                                                  "failed: see above\n"), failed);
                                return EXIT_FAILURE_;
                        }
                } else if (r >= 0)
                        /* the next steps and the warnings plan prints (another power
                         * tool, the hwdb); after a diff as lines patch(1) skips */
                        install_print_next_steps(&steps, p, dry, stdout);
        } else {
                /* the text goes into the JSON (or, on failure, to stderr before the error) */
                _cleanup_free_ char *text = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&text, &len);

                if (!f)
                        return report(-ENOMEM, &e, _("install failed"));
                install_print(&res, f);
                if (fclose(f) != 0)
                        return report(-ENOMEM, &e, _("install failed"));
                if (r < 0)
                        fputs(text, stderr);
                else
                        install_print_json(&res, &c->rfs, p, c->inv, &steps, &warnings, dry, r, text, stdout);
        }
        if (r < 0)
                return install_failed(c, &res, dry, report(r, &e, _("install failed")));
        /* a boot step still pending is work to do: install exits 4 too */
        if (a->check && !salt)
                return r > 0 ? EXIT_WOULD_CHANGE : next_steps_boot_incomplete(&steps) ? EXIT_BOOT_INCOMPLETE : EXIT_OK;
        /* Salt fails a state on any exit but 0 */
        if (salt)
                return EXIT_OK;
        if (a->dry_run && r > 0)
                return EXIT_CHANGES;
        /* refresh --image as refresh: 4 while the boot configuration lacks a step */
        return next_steps_boot_incomplete(&steps) ? EXIT_BOOT_INCOMPLETE : EXIT_OK;
}

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
        return do_install(c, false, a->image);
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

/* the boot steps the root still lacks, run (their commands as the steps
 * give them: "chroot DIR ..." for --root DIR): 0 when none is left, 4 when a
 * step by hand is left, 3 when a command failed */
static int boot_steps(struct run *c)
{
        _cleanup_(next_steps_free) struct next_steps steps = {}, after = {};
        struct image_log log = { .show = show_image_event, .userdata = stdout };
        size_t failed;

        next_steps_init(&steps, &c->rfs);
        next_steps_boot_pending(&steps, &c->rfs);
        failed = image_run_boot_steps(&steps, &log);
        image_log_free(&log);
        next_steps_init(&after, &c->rfs);
        next_steps_boot_pending(&after, &c->rfs);
        if (next_steps_boot_incomplete(&after))
                next_steps_print_text(&after, _("The boot configuration still lacks:\n"), stdout);
        if (failed) {
                fprintf(stderr, _("idlecfg: %zu boot step(s) failed: see above\n"), failed);
                return EXIT_FAILURE_;
        }
        return next_steps_boot_incomplete(&after) ? EXIT_BOOT_INCOMPLETE : EXIT_OK;
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
        r = boot_steps(c);
        if (r == EXIT_OK)
                firstboot_done(c);
        return r;
}

int install_with_boot_steps(struct run *c)
{
        int r = do_install(c, false, false);

        return r == EXIT_BOOT_INCOMPLETE ? boot_steps(c) : r;
}

int check_install(const struct args *a, int argc, char **argv)
{
        if (a->format && !streq(a->format, "salt")) {
                fprintf(stderr, _("idlecfg: install takes --format salt only, not '%s'\n"), a->format);
                return EXIT_USAGE;
        }
        if (a->check && a->dry_run) {
                fprintf(stderr, _("idlecfg: --check and --dry-run: choose one (--check --diff shows the diff)\n"));
                return EXIT_USAGE;
        }
        if (a->diff && !a->check) {
                fprintf(stderr, _("idlecfg: --diff goes with --check (--dry-run always shows the diff)\n"));
                return EXIT_USAGE;
        }
        if (a->boot_steps && (a->image || a->check || a->dry_run || a->json || a->format)) {
                fprintf(stderr, _("idlecfg: install --boot-steps runs the boot steps after the install: not with "
                                  "--image, --check, --dry-run, --json or --format\n"));
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

int check_refresh(const struct args *a, int argc, char **argv)
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

int verb_install(struct run *c, int argc, char **argv)
{
        return c->a->boot_steps ? install_with_boot_steps(c) : do_install(c, c->a->json, false);
}

int verb_refresh(struct run *c, int argc, char **argv)
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
                        r = boot_steps(c);
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
