/* image.c: images built on one machine and booted on another: the warnings
 * of install into a root of other hardware and of an image with a machine ID,
 * what the first-boot unit makes take effect at once, and the boot steps it
 * hands to a unit of their own. Every line and command goes into an image_log. */
#include "config.h"

#include <spawn.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "engine/image.h"
#include "state/firstboot.h"
#include "state/initramfs.h"

extern char **environ;

bool image_in_chroot(void)
{
        const char *e = getenv("IDLECFG_TEST_CHROOT");
        struct stat a, b;

        if (e && *e)
                return streq(e, "1");
        if (stat("/", &a) < 0)
                return false;
        if (stat("/proc/1/root", &b) < 0)
                /* no /proc at all: a build chroot; unreadable: assume the running system */
                return errno == ENOENT;
        return a.st_dev != b.st_dev || a.st_ino != b.st_ino;
}

static size_t count_devices(const struct inventory *inv)
{
        size_t n = 0;

        for (size_t k = 0; k < ELEMENTSOF(inv->classes); k++)
                n += inv->classes[k].n;
        return n;
}

bool image_foreign_hardware(const struct rootfs *rfs, const struct inventory *inv, const char *recorded,
                            char **ret_why)
{
        *ret_why = NULL;
        if (image_in_chroot())
                *ret_why = xstrdup(_("idlecfg runs in a chroot, where /sys is the build host's or empty"));
        else if (rfs->host)
                return false;
        else if (count_devices(inv) == 0)
                *ret_why = xstrdup(_("no device was found in /sys (a build chroot or container?)"));
        else if (!recorded)
                *ret_why = xstrdup(_("it holds no manifest of this machine (an empty root, or one being built)"));
        else if (streq(recorded, IMAGE_FINGERPRINT))
                *ret_why = xstrdup(_("it was prepared with install --image, for the machines it boots on"));
        else if (!streq(recorded, inv->fingerprint))
                *ret_why = xasprintf(_("its manifest was written for the hardware with fingerprint %s, "
                                       "this machine's is %s"), recorded, inv->fingerprint);
        return *ret_why != NULL;
}

bool image_machine_id_filled(const struct rootfs *rfs)
{
        char id[33];

        return firstboot_machine_id(rfs, id);
}

/* ---- the log ---- */

static void argv_free(char **argv)
{
        for (char **a = argv; a && *a; a++)
                free(*a);
        free(argv);
}

void image_log_free(struct image_log *l)
{
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].text);
                argv_free(l->v[i].argv);
        }
        free(l->v);
        l->v = NULL;
        l->n = l->failed = 0;
}

static void log_add(struct image_log *l, enum image_event_kind kind, char *text_take, char *const *argv)
{
        struct image_event *e;
        size_t n = 0;

        l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
        e = &l->v[l->n++];
        *e = (struct image_event) { .kind = kind, .text = text_take };
        if (argv) {
                while (argv[n])
                        n++;
                e->argv = xcalloc(n + 1, sizeof(char *));
                for (size_t i = 0; i < n; i++)
                        e->argv[i] = xstrdup(argv[i]);
        }
        if (kind == IMG_FAILED)
                l->failed++;
        if (l->show)
                l->show(e, l->userdata);
}

_printf_(2, 3) static void say(struct image_log *l, const char *fmt, ...)
{
        va_list ap;
        char *text;

        va_start(ap, fmt);
        if (vasprintf(&text, fmt, ap) < 0)
                abort();
        va_end(ap);
        log_add(l, IMG_SAY, text, NULL);
}

/* ---- running commands ---- */

/* tests: IDLECFG_TEST_TAKE_EFFECT names a program that gets each command as
 * its arguments instead of running it; the root need not be the running system */
static const char *test_runner(void)
{
        const char *t = secure_getenv("IDLECFG_TEST_TAKE_EFFECT");

        return t && *t ? t : NULL;
}

/* the first of NAMES that is an executable file, or NULL; tests: the first
 * name when none is (the runner only logs it, on any machine) */
static const char *find_program(const char *const *names)
{
        for (const char *const *n = names; *n; n++)
                if (access(*n, X_OK) == 0)
                        return *n;
        return test_runner() ? names[0] : NULL;
}

#define SBIN(x) (const char *const[]) { "/usr/sbin/" x, "/usr/bin/" x, "/sbin/" x, "/bin/" x, NULL }

bool image_can_take_effect(const struct rootfs *rfs)
{
        return test_runner() || (rfs->host && !image_in_chroot());
}

/* run ARGV (argv[0] a full path, or a name looked up in PATH), its output
 * to ours (the journal); 0, or -1 with the failure in LOG */
static int run_logged(struct image_log *l, char *const argv[])
{
        pid_t pid;
        int status, r;

        log_add(l, IMG_RUN, NULL, argv);
        fflush(NULL);
        if (test_runner()) {
                /* tests: the command goes to a program that logs it, nothing of the system changes */
                size_t n = 0;
                while (argv[n])
                        n++;
                char **v = xcalloc(n + 2, sizeof(char *));
                v[0] = (char *) test_runner();
                memcpy(v + 1, argv, n * sizeof(char *));
                r = posix_spawn(&pid, v[0], NULL, NULL, v, environ);
                free(v);
        } else
                r = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
        if (r != 0) {
                log_add(l, IMG_FAILED, xasprintf(_("cannot run %s: %s"), argv[0], strerror(r)), NULL);
                return -1;
        }
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR) {
                        log_add(l, IMG_FAILED, xasprintf(_("cannot wait for %s: %s"), argv[0], strerror(errno)),
                                NULL);
                        return -1;
                }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                log_add(l, IMG_FAILED,
                        xasprintf(_("%s failed (%s %d)"), argv[0], WIFEXITED(status) ? _("exit status") : _("signal"),
                                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status)),
                        NULL);
                return -1;
        }
        return 0;
}

static bool changed(const struct install_result *res, enum target_kind kind)
{
        for (size_t i = 0; i < res->n_files; i++)
                if (res->files[i].kind == kind &&
                    (res->files[i].action == A_WRITE || res->files[i].action == A_RESTORE))
                        return true;
        return false;
}

/* udevadm trigger of the devices of the plan's udev settings (udev_trigger_argv()) */
static void take_effect_udev(const struct plan *p, const char *udevadm, struct image_log *l)
{
        char **argv = udev_trigger_argv(udevadm, p);

        say(l, "%s", _("udev rules: applied now to the devices they match"));
        (void) (run_logged(l, (char *const[]) { (char *) udevadm, (char *) "control", (char *) "--reload",
                                                NULL }) < 0 ||
                (argv && run_logged(l, argv) < 0) ||
                run_logged(l, (char *const[]) { (char *) udevadm, (char *) "settle", (char *) "--timeout=60",
                                                NULL }) < 0);
        strv_free(argv);
}

size_t image_take_effect(const struct rootfs *rfs, const struct install_result *res, const struct plan *p,
                         struct image_log *l)
{
        const char *udevadm = find_program(SBIN("udevadm"));
        size_t failed = l->failed;

        if (changed(res, T_UDEV) && udevadm)
                take_effect_udev(p, udevadm, l);
        else if (changed(res, T_UDEV))
                say(l, "%s", _("udev rules: no udevadm; they apply at the next boot"));
        if (changed(res, T_TMPFILES)) {
                const char *t = find_program(SBIN("systemd-tmpfiles"));
                say(l, "%s", _("tmpfiles.d: applied now"));
                if (!t)
                        log_add(l, IMG_FAILED, xstrdup(_("no systemd-tmpfiles")), NULL);
                else
                        (void) run_logged(l, (char *const[]) { (char *) t, (char *) "--create", (char *) TMPFILES_PATH,
                                                               NULL });
        }
        if (changed(res, T_SYSCTL)) {
                const char *s = find_program((const char *const[]) { "/usr/lib/systemd/systemd-sysctl",
                                                                      "/lib/systemd/systemd-sysctl", NULL });
                const char *sp = find_program(SBIN("sysctl"));
                say(l, "%s", _("sysctl.d: applied now"));
                if (s)
                        (void) run_logged(l, (char *const[]) { (char *) s, (char *) SYSCTL_PATH, NULL });
                else if (sp)
                        (void) run_logged(l, (char *const[]) { (char *) sp, (char *) "-q", (char *) "-p",
                                                               (char *) SYSCTL_PATH, NULL });
                else
                        log_add(l, IMG_FAILED, xstrdup(_("neither systemd-sysctl nor sysctl")), NULL);
        }
        if (changed(res, T_NM) || changed(res, T_LINK))
                say(l, "%s", _("NetworkManager and .link settings: take effect when the interface is next "
                               "activated or added (the next boot)"));
        if (changed(res, T_MODPROBE)) {
                _cleanup_free_ char *mods = NULL;
                enum initramfs_verdict v = initramfs_check(rfs, p->kernel, &mods);

                if (v == INITRAMFS_LACKS)
                        /* the longest step of a first boot, and needless */
                        say(l, _("modprobe.d options: take effect when the modules load from the root, at the "
                                 "next boot; the initramfs of %s holds none of them (%s), it is not made again"),
                            p->kernel, strempty(mods));
                else if (v == INITRAMFS_HOLDS)
                        say(l, _("modprobe.d options: take effect when the modules load, at the next boot; the "
                                 "initramfs holds %s: it is made again after this boot (%s)"),
                            strempty(mods), BOOT_STEPS_UNIT);
                else
                        say(l, _("modprobe.d options: take effect when the modules load, at the next boot"));
        }
        if (changed(res, T_CMDLINE_KERNEL) || changed(res, T_CMDLINE_GRUB) || changed(res, T_CMDLINE_OWN))
                say(l, _("kernel command line (%s): takes effect at the next boot"), strempty(res->cmdline_words));
        return l->failed - failed;
}

int image_start_boot_steps(struct image_log *l)
{
        const char *sc = find_program((const char *const[]) { "/usr/bin/systemctl", "/bin/systemctl", NULL });

        say(l, _("the boot configuration is made after this boot, off its critical path: %s"), BOOT_STEPS_UNIT);
        if (!sc) {
                log_add(l, IMG_FAILED, xstrdup(_("no systemctl")), NULL);
                return -1;
        }
        return run_logged(l, (char *const[]) { (char *) sc, (char *) "start", (char *) "--no-block",
                                                (char *) BOOT_STEPS_UNIT, NULL });
}

size_t image_run_boot_steps(const struct next_steps *s, struct image_log *l)
{
        size_t failed = l->failed;

        for (size_t i = 0; i < s->n; i++) {
                const struct next_step *x = &s->v[i];
                if (!x->boot)
                        continue;
                say(l, "%s: %s", x->id, _(x->why));
                if (x->argv)
                        (void) run_logged(l, x->argv);
                else
                        say(l, _("  a step by hand: add %s to the boot loader's kernel command line"),
                            strempty(x->words));
        }
        return l->failed - failed;
}
