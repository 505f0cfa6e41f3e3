/* image.c: images built on one machine and booted on another: the warning of
 * a plain install into a root of other hardware, and what the first-boot unit
 * makes take effect once install has written the running machine's files */
#include "config.h"

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "engine/image.h"
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
        else if (root_is_host(rfs->path))
                return false;
        else if (count_devices(inv) == 0)
                *ret_why = xstrdup(_("no device was found in /sys (a build chroot or container?)"));
        else if (recorded && !streq(recorded, IMAGE_FINGERPRINT) && !streq(recorded, inv->fingerprint))
                *ret_why = xasprintf(_("its manifest was written for the hardware with fingerprint %s, "
                                       "this machine's is %s"), recorded, inv->fingerprint);
        return *ret_why != NULL;
}

static const char *test_runner(void);

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

/* tests: IDLECFG_TEST_TAKE_EFFECT names a program that gets each command as
 * its arguments instead of running it; the root need not be the running system */
static const char *test_runner(void)
{
        const char *t = secure_getenv("IDLECFG_TEST_TAKE_EFFECT");

        return t && *t ? t : NULL;
}

static size_t take_effect_cmdline(const struct install_result *res, const char *k, FILE *out);

bool image_can_take_effect(const struct rootfs *rfs)
{
        return test_runner() || (root_is_host(rfs->path) && !image_in_chroot());
}

/* run ARGV (argv[0] a full path), its output to ours (the journal); 0 or -1 */
static int run(FILE *out, char *const argv[])
{
        pid_t pid;
        int status, r;

        fputs("  +", out);
        for (size_t i = 0; argv[i]; i++)
                fprintf(out, " %s", argv[i]);
        fputc('\n', out);
        fflush(out);
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
                r = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
        if (r != 0) {
                fprintf(out, _("  cannot run %s: %s\n"), argv[0], strerror(r));
                return -1;
        }
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -1;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                fprintf(out, _("  %s failed (%s %d)\n"), argv[0], WIFEXITED(status) ? _("exit status") : _("signal"),
                        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
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

size_t image_take_effect(const struct rootfs *rfs, const struct install_result *res, const struct plan *p, FILE *out)
{
        const char *udevadm = find_program(SBIN("udevadm"));
        const char *k = p->kernel;
        size_t failed = 0;

        if (changed(res, T_UDEV) && udevadm) {
                /* the devices of the rules, each once: a change event applies them */
                char **argv = xcalloc(p->n + 4, sizeof(char *));
                size_t n = 0;
                fputs(_("udev rules: applied now to the devices they match\n"), out);
                argv[n++] = (char *) udevadm;
                argv[n++] = (char *) "trigger";
                argv[n++] = (char *) "--action=change";
                for (size_t i = 0; i < p->n; i++) {
                        bool seen = false;
                        if (p->v[i].mech != MECH_UDEV || !p->v[i].value || !p->v[i].device)
                                continue;
                        for (size_t j = 0; j < i && !seen; j++)
                                seen = p->v[j].mech == MECH_UDEV && p->v[j].value &&
                                       streq_ptr(p->v[j].device, p->v[i].device);
                        if (!seen)
                                argv[n++] = xasprintf("/sys%s", p->v[i].device);
                }
                if (run(out, (char *const[]) { (char *) udevadm, (char *) "control", (char *) "--reload", NULL }) < 0 ||
                    (n > 3 && run(out, argv) < 0) ||
                    run(out, (char *const[]) { (char *) udevadm, (char *) "settle", (char *) "--timeout=60", NULL }) < 0)
                        failed++;
                for (size_t i = 3; i < n; i++)
                        free(argv[i]);
                free(argv);
        } else if (changed(res, T_UDEV)) {
                fputs(_("udev rules: no udevadm; they apply at the next boot\n"), out);
        }
        if (changed(res, T_TMPFILES)) {
                const char *t = find_program(SBIN("systemd-tmpfiles"));
                fputs(_("tmpfiles.d: applied now\n"), out);
                if (!t || run(out, (char *const[]) { (char *) t, (char *) "--create", (char *) TMPFILES_PATH, NULL }) < 0)
                        failed++;
        }
        if (changed(res, T_SYSCTL)) {
                const char *s = find_program((const char *const[]) { "/usr/lib/systemd/systemd-sysctl",
                                                                      "/lib/systemd/systemd-sysctl", NULL });
                const char *sp = find_program(SBIN("sysctl"));
                fputs(_("sysctl.d: applied now\n"), out);
                if (s ? run(out, (char *const[]) { (char *) s, (char *) SYSCTL_PATH, NULL }) < 0
                      : !sp || run(out, (char *const[]) { (char *) sp, (char *) "-q", (char *) "-p",
                                                          (char *) SYSCTL_PATH, NULL }) < 0)
                        failed++;
        }
        if (changed(res, T_NM) || changed(res, T_LINK))
                fputs(_("NetworkManager and .link settings: take effect when the interface is next "
                        "activated or added (the next boot)\n"), out);
        if (changed(res, T_MODPROBE)) {
                const char *u = find_program(SBIN("update-initramfs")), *d = find_program(SBIN("dracut"));
                _cleanup_free_ char *mods = NULL;
                enum initramfs_verdict v = initramfs_check(rfs, k, &mods);

                if (v == INITRAMFS_LACKS) {
                        /* the longest step of a first boot, and needless */
                        fprintf(out, _("modprobe.d options: take effect when the modules load from the root, at "
                                       "the next boot; the initramfs of %s holds none of them (%s), it is not "
                                       "made again\n"), k, strempty(mods));
                        return failed + take_effect_cmdline(res, k, out);
                }
                if (v == INITRAMFS_HOLDS)
                        fprintf(out, _("modprobe.d options: take effect when the modules load, at the next boot; "
                                       "the initramfs holds %s, it is made again\n"), strempty(mods));
                else
                        fputs(_("modprobe.d options: take effect when the modules load, at the next boot; the "
                                "initramfs is made again for the modules it holds\n"), out);
                if (!k)
                        fputs(_("  the kernel is unknown: the initramfs is not made again\n"), out), failed++;
                else if (u) {
                        if (run(out, (char *const[]) { (char *) u, (char *) "-u", (char *) "-k", (char *) k, NULL }) < 0)
                                failed++;
                } else if (d) {
                        if (run(out, (char *const[]) { (char *) d, (char *) "-f", (char *) "--kver", (char *) k,
                                                       NULL }) < 0)
                                failed++;
                } else
                        fputs(_("  neither update-initramfs nor dracut: modules in an initramfs keep their "
                                "defaults\n"), out);
        }
        return failed + take_effect_cmdline(res, k, out);
}

/* the kernel command line for the next boot: the boot entry or grub.cfg made again */
static size_t take_effect_cmdline(const struct install_result *res, const char *k, FILE *out)
{
        size_t failed = 0;

        if (changed(res, T_CMDLINE_KERNEL) || changed(res, T_CMDLINE_GRUB) || changed(res, T_CMDLINE_OWN))
                fprintf(out, _("kernel command line (%s): takes effect at the next boot\n"),
                        strempty(res->cmdline_words));
        if (changed(res, T_CMDLINE_KERNEL)) {
                const char *ki = find_program(SBIN("kernel-install"));
                _cleanup_free_ char *image = k ? xasprintf("/boot/vmlinuz-%s", k) : NULL;
                if (!ki || !k || run(out, (char *const[]) { (char *) ki, (char *) "add", (char *) k, image, NULL }) < 0)
                        failed++;
        } else if (changed(res, T_CMDLINE_GRUB)) {
                const char *g = find_program(SBIN("update-grub"));
                if (!g || run(out, (char *const[]) { (char *) g, NULL }) < 0)
                        failed++;
        } else if (changed(res, T_CMDLINE_OWN)) {
                fprintf(out, _("  no /etc/kernel/cmdline and no GRUB: add the words to the boot loader (%s "
                               "holds them)\n"), OWN_CMDLINE_PATH);
                failed++;
        }
        return failed;
}
