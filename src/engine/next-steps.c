/* next-steps.c: what is left to do after install, for people and scripts:
 * the commands the files a run wrote call for, and what the root's boot
 * configuration still lacks, told from the root's own files on every run
 * (install, refresh, verify) until it is done */
#include "config.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <time.h>
#include <sys/stat.h>

#include "state/initramfs.h"
#include "engine/install.h"
#include "engine/next-steps.h"
#include "state/state.h"
#include "state/stepsdone.h"
#include "base/sha256.h"
#include "root/grubenv.h"
#include "root/target.h"

#define GRUB_CFG_MAX (16u << 20)
#define BOOT_FILE_MAX (1u << 20)

/* Is the target the system running now? Only then do steps for the running
 * system (udevadm trigger, sysctl -p, systemd-tmpfiles) make sense: not for
 * --root DIR, nor for "/" inside a chroot of the target (src/root/target.c). */
static bool target_running(const struct rootfs *rfs)
{
        return target_is_running_system(rfs);
}

void next_steps_init(struct next_steps *s, const struct rootfs *rfs)
{
        *s = (struct next_steps) {
                .running = target_running(rfs),
                .chroot = !rfs->host,
                .root = xstrdup(rfs->path),
        };
        boot_detect(rfs, &s->boot);
}

void next_steps_free(struct next_steps *s)
{
        for (size_t i = 0; i < s->n; i++) {
                strv_free(s->v[i].argv);
                free(s->v[i].words);
        }
        free(s->v);
        for (size_t i = 0; i < s->n_acked; i++) {
                strv_free(s->acked[i].argv);
                free(s->acked[i].words);
        }
        free(s->acked);
        free(s->root);
        boot_info_done(&s->boot);
        *s = (struct next_steps) {};
}

/* a step, once per id; ARGV NULL-terminated (NULL: by hand), run through
 * chroot when the root is not "/" */
static struct next_step *add_step_argv(struct next_steps *s, const char *id, const char *why, bool boot,
                                       const char *const *argv)
{
        struct next_step *x;
        size_t n = 0, k = 0;

        for (size_t i = 0; i < s->n; i++)
                if (streq(s->v[i].id, id)) {
                        s->v[i].boot = s->v[i].boot || boot;
                        return &s->v[i];
                }
        s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
        x = &s->v[s->n++];
        *x = (struct next_step) { .id = id, .why = why, .boot = boot };
        while (argv && argv[n])
                n++;
        if (!n)
                return x;
        x->argv = xcalloc(n + 3, sizeof(char *));
        if (s->chroot) {
                x->argv[k++] = xstrdup("chroot");
                x->argv[k++] = xstrdup(s->root);
        }
        for (size_t i = 0; i < n; i++)
                x->argv[k++] = xstrdup(argv[i]);
        return x;
}

/* the same, ARGV... as arguments, NULL-terminated */
static struct next_step *add_step(struct next_steps *s, const char *id, const char *why, bool boot, ...)
{
        const char *argv[16];
        size_t n = 0;
        va_list ap;

        va_start(ap, boot);
        while (n < ELEMENTSOF(argv) - 1 && (argv[n] = va_arg(ap, const char *)))
                n++;
        argv[n] = NULL;
        va_end(ap);
        return add_step_argv(s, id, why, boot, argv);
}

static bool exists(const struct rootfs *rfs, const char *path)
{
        _cleanup_close_ int fd = rootfs_openat(rfs, path, O_PATH | O_CLOEXEC);
        return fd >= 0;
}

/* the modification time of PATH in the root, links followed inside it */
static bool mtime_of(const struct rootfs *rfs, const char *path, struct timespec *ret)
{
        _cleanup_close_ int fd = rootfs_openat(rfs, path, O_PATH | O_CLOEXEC);
        struct stat st;

        if (fd < 0 || fstat(fd, &st) < 0)
                return false;
        *ret = st.st_mtim;
        return true;
}

static bool older(const struct timespec *a, const struct timespec *b)
{
        return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* ---- the commands, as the root has them ---- */

static void step_update_grub(struct next_steps *s, const struct rootfs *rfs)
{
        static const char *const why_snippet = N_("GRUB reads the kernel command line from grub.cfg, which "
                                                  "/etc/default/grub.d/idlecfg.cfg only changes when it is made "
                                                  "again");
        static const char *const why_default = N_("GRUB reads the kernel command line from grub.cfg, which "
                                                  "/etc/default/grub only changes when it is made again");
        const char *why = s->boot.grub_words == GRUB_WORDS_SNIPPET ? why_snippet : why_default;

        /* Debian's update-grub where it is (or nothing says otherwise: GRUB
         * not installed yet), else the grub-mkconfig the root has */
        if (exists(rfs, "/usr/sbin/grub2-mkconfig") && !exists(rfs, "/usr/sbin/update-grub"))
                add_step(s, "update-grub", why, true, "grub2-mkconfig", "-o", "/boot/grub2/grub.cfg", NULL);
        else if ((exists(rfs, "/usr/sbin/grub-mkconfig") || exists(rfs, "/usr/bin/grub-mkconfig")) &&
                 !exists(rfs, "/usr/sbin/update-grub"))
                add_step(s, "update-grub", why, true, "grub-mkconfig", "-o", "/boot/grub/grub.cfg", NULL);
        else
                add_step(s, "update-grub", why, true, "update-grub", NULL);
}

static void step_kernel_install(struct next_steps *s, const struct rootfs *rfs, const char *kernel)
{
        static const char *const why = N_("a boot entry takes /etc/kernel/cmdline when kernel-install makes it");
        static const char *const why_uki = N_("the unified kernel image holds the command line and the "
                                              "initramfs: kernel-install makes it again (ukify)");
        const char *k = kernel ? kernel : "KERNEL";
        _cleanup_free_ char *usr = xasprintf("/usr/lib/modules/%s/vmlinuz", k);
        _cleanup_free_ char *boot = xasprintf("/boot/vmlinuz-%s", k);

        add_step(s, "kernel-install", s->boot.scheme == BOOT_KERNEL_INSTALL_UKI ? why_uki : why, true,
                 "kernel-install", "add", k, exists(rfs, usr) ? usr : boot, NULL);
}

/* the initramfs generator the root has (root/bootscheme.c); a UKI holds
 * the initramfs: kernel-install makes it again after it */
static void step_initramfs(struct next_steps *s, const struct rootfs *rfs, const char *kernel)
{
        static const char *const why = N_("the initramfs holds a copy of modprobe.d: the modules it loads "
                                          "read their options there");

        switch (s->boot.initrd) {
        case INITRD_DRACUT:
                add_step(s, "update-initramfs", why, true, "dracut", "--force", "--kver", kernel ? kernel : "KERNEL",
                         NULL);
                break;
        case INITRD_MKINITCPIO:
                add_step(s, "update-initramfs", why, true, "mkinitcpio", "-P", NULL);
                break;
        case INITRD_INITRAMFS_TOOLS:
        case INITRD_NONE:       /* none found: Debian's, as before */
        case _INITRD_MAX:
                add_step(s, "update-initramfs", why, true, "update-initramfs", "-u", "-k", kernel ? kernel : "all",
                         NULL);
                break;
        }
        if (s->boot.scheme == BOOT_KERNEL_INSTALL_UKI)
                step_kernel_install(s, rfs, kernel);
}

static void step_words(struct next_steps *s, const char *words)
{
        struct next_step *x = add_step(s, "cmdline-words",
                                       N_("idlecfg found no boot loader configuration it can write to "
                                          "(/etc/kernel/cmdline or GRUB); /etc/idlecfg/cmdline holds the words"),
                                       true, NULL);
        if (!x->words)
                x->words = xstrdup(words);
}

static bool has_words(const char *text, const char *words);
static bool has_any_word(const char *text, const char *words);

/* GRUB where no grub.d file can carry the words (root/bootscheme.h): the
 * administrator puts them into GRUB_CMDLINE_LINUX_DEFAULT of
 * /etc/default/grub (or takes them out: UNDO), then grub.cfg is made again.
 * A step by hand only while /etc/default/grub lacks them (still holds one) */
static void step_grub_default(struct next_steps *s, const struct rootfs *rfs, const char *words, bool undo)
{
        static const char *const why_add[] = {
                [GRUB_WORDS_NO_GRUB_D] = N_("this GRUB's grub-mkconfig reads /etc/default/grub only, not "
                                            "/etc/default/grub.d: add the words to GRUB_CMDLINE_LINUX_DEFAULT "
                                            "there (/etc/idlecfg/cmdline holds them)"),
                [GRUB_WORDS_READONLY] = N_("/etc/default/grub makes GRUB_CMDLINE_LINUX_DEFAULT readonly, so no "
                                           "grub.d file can add to it: add the words to its line there "
                                           "(/etc/idlecfg/cmdline holds them)"),
        };
        static const char *const why_remove = N_("idlecfg's words, added to /etc/default/grub by hand: take them "
                                                 "out of GRUB_CMDLINE_LINUX_DEFAULT there");
        _cleanup_free_ char *line = grub_boot_cmdline(rfs);
        bool there = line && (undo ? has_any_word(line, words) : has_words(line, words));

        if (undo ? there : !there) {
                struct next_step *x = add_step(s, undo ? "grub-default-words-remove" : "grub-default-words",
                                               undo ? why_remove : why_add[s->boot.grub_words], true, NULL);
                x->remove = undo;
                if (!x->words)
                        x->words = xstrdup(words);
        }
        /* adding: grub.cfg is made again after (pending_own_cmdline() asks only while it lacks them);
         * removing: next_steps_undo() names it when grub.cfg holds them */
        if (!undo)
                step_update_grub(s, rfs);
}

/* argv of PREFIX... then OPT=WORD for each word of WORDS (rpm-ostree kargs --append=W) */
static const char **argv_per_word(const char *const *prefix, const char *opt, char *words_buf)
{
        size_t n = 0, k = 0;
        const char **argv;

        while (prefix[n])
                n++;
        argv = xcalloc(n + strlen(words_buf) / 2 + 2, sizeof(char *));
        for (; k < n; k++)
                argv[k] = prefix[k];
        for (char *save = NULL, *w = strtok_r(words_buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
                argv[k++] = xasprintf("%s=%s", opt, w);
        argv[k] = NULL;
        return argv;
}

static void argv_per_word_free(const char **argv, size_t n_prefix)
{
        for (size_t i = n_prefix; argv && argv[i]; i++)
                free((char *) argv[i]);
        free(argv);
}

/* The words of /etc/idlecfg/cmdline into the boot configuration, by the
 * scheme: grubby on GRUB with BLS entries, bootc loader-entries on a
 * running bootc host, rpm-ostree kargs on a booted OSTree host; elsewhere
 * the installer adds them (step_words). UNDO: the steps that take them out
 * again (rollback). */
static void step_own_words(struct next_steps *s, const struct rootfs *rfs, const char *words, bool undo)
{
        _cleanup_free_ char *one = xstrdup(words), *buf = xstrdup(words);

        strstrip(one);
        switch (s->boot.scheme) {
        case BOOT_GRUB_BLS: {
                _cleanup_free_ char *arg = xasprintf(undo ? "--remove-args=%s" : "--args=%s", one);
                const char *argv[] = { "grubby", "--update-kernel=ALL", arg, NULL };
                add_step_argv(s, undo ? "grubby-remove-args" : "grubby",
                              undo ? N_("GRUB boots the BLS entries with their own options: grubby takes "
                                        "idlecfg's words out of every entry")
                                   : N_("GRUB boots the BLS entries with their own options: grubby adds the "
                                        "words to every entry"), true, argv);
                return;
        }
        case BOOT_BOOTC:
                if (s->boot.booted) {
                        const char *argv[] = { "bootc", "loader-entries", "set-options-for-source", "--source",
                                               PACKAGE_NAME, "--options", undo ? "" : one, NULL };
                        add_step_argv(s, undo ? "bootc-kargs-remove" : "bootc-kargs",
                                      undo ? N_("a running bootc host: bootc drops the options idlecfg's source "
                                                "set, the others' are kept")
                                           : N_("a running bootc host: bootc keeps these options for the "
                                                "source idlecfg, apart from the others'"), true, argv);
                        return;
                }
                break;
        case BOOT_OSTREE:
                if (s->boot.booted) {
                        static const char *const prefix[] = { "rpm-ostree", "kargs", NULL };
                        const char **argv = argv_per_word(prefix, undo ? "--delete" : "--append", buf);
                        add_step_argv(s, undo ? "rpm-ostree-kargs-delete" : "rpm-ostree-kargs",
                                      undo ? N_("a booted OSTree host: rpm-ostree takes the words out of the "
                                                "next deployment's kernel arguments")
                                           : N_("a booted OSTree host: rpm-ostree adds the words to the next "
                                                "deployment's kernel arguments"), true, argv);
                        argv_per_word_free(argv, 2);
                        return;
                } else {
                        struct next_step *x = add_step(s, undo ? "rpm-ostree-kargs-delete" : "rpm-ostree-kargs",
                                                       N_("an OSTree deployment that is not running: rpm-ostree "
                                                          "kargs changes a booted host only (never a container "
                                                          "build); run it there with these words"), true, NULL);
                        x->remove = undo;
                        if (!x->words)
                                x->words = xstrdup(one);
                        return;
                }
        case BOOT_GRUB:
                if (s->boot.grub_words != GRUB_WORDS_SNIPPET) {
                        step_grub_default(s, rfs, one, undo);
                        return;
                }
                break;
        default:
                break;
        }
        if (!undo)
                step_words(s, one);
}

char **udev_trigger_argv(const char *udevadm, const struct plan *p)
{
        char **devices = NULL;
        size_t n = plan_udev_devices(p, &devices);
        char **argv;

        if (n == 0)
                return NULL;
        argv = xcalloc(n + 4, sizeof(char *));
        argv[0] = xstrdup(udevadm);
        argv[1] = xstrdup("trigger");
        argv[2] = xstrdup("--action=add");
        memcpy(argv + 3, devices, n * sizeof(char *));
        free(devices);
        return argv;
}

static void step_udev_trigger(struct next_steps *s, const struct plan *p)
{
        char **argv = udev_trigger_argv("udevadm", p);

        if (argv)
                add_step_argv(s, "udev-trigger", N_("the rules act on the devices they match now (or reboot)"), false,
                              (const char *const *) argv);
        strv_free(argv);
}

static void pending_dropped_words(struct next_steps *s, const struct rootfs *rfs, const char *dropped);

void next_steps_for_files(struct next_steps *s, const struct rootfs *rfs, const struct install_result *r,
                          const struct plan *p, bool dry_run)
{
        const char *kernel = p ? p->kernel : NULL;

        for (size_t i = 0; i < r->n_files; i++) {
                const struct install_file *x = &r->files[i];
                bool wrote = x->action == A_WRITE;
                bool boot = x->kind == T_MODPROBE || x->kind == T_CMDLINE_KERNEL || x->kind == T_CMDLINE_GRUB ||
                            x->kind == T_CMDLINE_OWN;

                if ((x->action != A_WRITE && x->action != A_RESTORE) || x->kind == T_OTHER)
                        continue;
                /* written for real: the root's files tell (next_steps_boot_pending) */
                if (boot && wrote && !dry_run)
                        continue;
                switch (x->kind) {
                case T_UDEV:
                        if (s->running) {
                                add_step(s, "udev-reload", N_("udevd reads its rules again"), false,
                                         "udevadm", "control", "--reload", NULL);
                                step_udev_trigger(s, p);
                        }
                        break;
                case T_MODPROBE: {
                        /* only an initramfs that is there is out of date */
                        _cleanup_free_ char *img = initramfs_of(rfs, kernel);
                        if (img)
                                step_initramfs(s, rfs, kernel);
                        break;
                }
                case T_TMPFILES:
                        if (s->running && wrote)
                                add_step(s, "tmpfiles", N_("the lines take effect now (or reboot)"), false,
                                         "systemd-tmpfiles", "--create", TMPFILES_PATH, NULL);
                        break;
                case T_SYSCTL:
                        /* only a file that is there: not the one rollback or
                         * a no-longer-needed restore removed */
                        if (s->running && exists(rfs, SYSCTL_PATH))
                                add_step(s, "sysctl", N_("the values take effect now (or reboot: "
                                                         "systemd-sysctl reads it at boot)"), false,
                                         "sysctl", "-p", SYSCTL_PATH, NULL);
                        break;
                case T_NM:
                        if (s->running)
                                add_step(s, "networkmanager-reload", N_("NetworkManager applies it when it "
                                                                        "next activates a Wi-Fi connection"),
                                         false, "nmcli", "general", "reload", "conf", NULL);
                        break;
                case T_POWER:
                        /* once, for the table: the rule, unit and drop-in come with it */
                        if (s->running && wrote && streq(x->path, PS_TABLE_PATH)) {
                                add_step(s, "systemd-reload", N_("systemd reads the power-source unit and "
                                                                 "its drop-in"), false,
                                         "systemctl", "daemon-reload", NULL);
                                add_step(s, "udev-reload", N_("udevd reads its rules again"), false,
                                         "udevadm", "control", "--reload", NULL);
                                add_step(s, "power-source", N_("the values of the current power source "
                                                               "take effect now (or reboot)"), false,
                                         "idlecfg", "power-source", "boot", NULL);
                        }
                        break;
                case T_FIRSTBOOT:       /* systemd reads it when the image boots */
                case T_LINK:    /* udevd applies it when a NIC is added: the next boot */
                        break;
                case T_CMDLINE_KERNEL:
                        step_kernel_install(s, rfs, kernel);
                        break;
                case T_CMDLINE_GRUB:
                        step_update_grub(s, rfs);
                        break;
                case T_CMDLINE_OWN:
                        if (x->wanted && r->cmdline_words)
                                step_own_words(s, rfs, r->cmdline_words, false);
                        break;
                case T_CMDLINE_BOOTC:   /* bootc takes it when it deploys the image */
                        break;
                case T_OTHER:
                        break;
                }
        }
        /* a dry run records no dropped-words: the removal the run would ask, named as install names it */
        if (dry_run && r->dropped_words)
                pending_dropped_words(s, rfs, r->dropped_words);
}

/* ---- what the boot configuration lacks, from the root's files ---- */

/* WORD in TEXT, between blanks, quotes or the ends */
static bool has_word(const char *text, const char *word)
{
        size_t n = strlen(word);

        for (const char *p = text; n && (p = strstr(p, word)); p++) {
                char before = p == text ? ' ' : p[-1], after = p[n];
                if (strchr(" \t\n\"'", before) && (after == 0 || strchr(" \t\n\"'", after)))
                        return true;
        }
        return false;
}

static bool has_words(const char *text, const char *words)
{
        _cleanup_free_ char *w = xstrdup(words);
        bool any = false;

        for (char *save = NULL, *word = strtok_r(w, " \t\n", &save); word; word = strtok_r(NULL, " \t\n", &save)) {
                if (!has_word(text, word))
                        return false;
                any = true;
        }
        return any;
}

static char *read_text(const struct rootfs *rfs, const char *path, size_t max, struct timespec *ret_mtime)
{
        char *text = NULL;
        struct stat st;

        if (rootfs_read_file(rfs, path, 0, max, &text, NULL, &st) < 0)
                return NULL;
        if (ret_mtime)
                *ret_mtime = st.st_mtim;
        return text;
}

/* the words of idlecfg's GRUB snippet: GRUB_CMDLINE_LINUX_DEFAULT="${...} WORDS" */
static char *grub_snippet_words(const char *text)
{
        const char *p = strstr(text, "${GRUB_CMDLINE_LINUX_DEFAULT} "), *end;

        if (!p)
                return NULL;
        p += strlen("${GRUB_CMDLINE_LINUX_DEFAULT} ");
        end = strchr(p, '"');
        return end ? xstrndup(p, (size_t) (end - p)) : NULL;
}

static void pending_grub(struct next_steps *s, const struct rootfs *rfs)
{
        static const char *const cfgs[] = { "/boot/grub/grub.cfg", "/boot/grub2/grub.cfg" };
        struct timespec snippet_time, cfg_time;
        _cleanup_free_ char *snippet = read_text(rfs, GRUB_SNIPPET_PATH, BOOT_FILE_MAX, &snippet_time);
        _cleanup_free_ char *words = snippet ? grub_snippet_words(snippet) : NULL;
        _cleanup_free_ char *dropped = NULL;

        if (!words)
                return;
        /* a later grub.d file drops them: no update-grub can give them to
         * the kernel (warned; verify counts the settings as missing) */
        dropped = grub_snippet_dropped_by(rfs);
        if (dropped)
                return;
        for (size_t i = 0; i < ELEMENTSOF(cfgs); i++) {
                _cleanup_free_ char *cfg = read_text(rfs, cfgs[i], GRUB_CFG_MAX, &cfg_time);
                /* made since the snippet changed, and with its words */
                if (cfg && !older(&cfg_time, &snippet_time) && has_words(cfg, words))
                        return;
        }
        step_update_grub(s, rfs);
}

/* a boot entry (Boot Loader Specification) of KERNEL with every word of
 * /etc/kernel/cmdline, or a unified kernel image of it made since */
static bool boot_entry_has(const struct rootfs *rfs, const char *kernel, const char *words,
                           const struct timespec *since)
{
        static const char *const esps[] = { "/boot", "/efi", "/boot/efi" };

        for (size_t e = 0; e < ELEMENTSOF(esps); e++) {
                _cleanup_free_ char *dir = xasprintf("%s/loader/entries", esps[e]);
                _cleanup_free_ char *uki = xasprintf("%s/EFI/Linux", esps[e]);
                char **names = NULL;
                size_t n = 0;
                bool found = false;

                if (rootfs_list_dir(rfs, dir, ".conf", &names, &n) == 0) {
                        for (size_t i = 0; i < n && !found; i++) {
                                _cleanup_free_ char *p = xasprintf("%s/%s", dir, names[i]);
                                _cleanup_free_ char *text = read_text(rfs, p, BOOT_FILE_MAX, NULL);
                                if (!text || (kernel && !strstr(text, kernel) && !strstr(names[i], kernel)))
                                        continue;
                                for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && !found;
                                     l = strtok_r(NULL, "\n", &save))
                                        found = startswith(l + strspn(l, " \t"), "options") && has_words(l, words);
                        }
                        rootfs_list_free(names, n);
                }
                if (!found && rootfs_list_dir(rfs, uki, ".efi", &names, &n) == 0) {
                        for (size_t i = 0; i < n && !found; i++) {
                                _cleanup_free_ char *p = xasprintf("%s/%s", uki, names[i]);
                                struct timespec t;
                                found = (!kernel || strstr(names[i], kernel)) && mtime_of(rfs, p, &t) &&
                                        !older(&t, since);
                        }
                        rootfs_list_free(names, n);
                }
                if (found)
                        return true;
        }
        return false;
}

/* the words of an earlier profile (the manifest's dropped-words) that boot
 * entries still hold: taken out by the tool that put them there */
static void pending_dropped_words(struct next_steps *s, const struct rootfs *rfs, const char *dropped)
{
        _cleanup_free_ char *held = NULL;

        if (s->boot.scheme != BOOT_GRUB_BLS && s->boot.scheme != BOOT_OSTREE)
                return;
        held = boot_bls_words_held(rfs, dropped);
        if (held)
                step_own_words(s, rfs, held, true);
}

static void pending_kernel_cmdline(struct next_steps *s, const struct rootfs *rfs, const char *kernel)
{
        struct timespec t;
        _cleanup_free_ char *line = read_text(rfs, KERNEL_CMDLINE_PATH, KERNEL_CMDLINE_MAX, &t);

        if (line && !boot_entry_has(rfs, kernel, line, &t))
                step_kernel_install(s, rfs, kernel);
}

/* the words of /etc/idlecfg/cmdline in some boot loader's configuration */
static void pending_own_cmdline(struct next_steps *s, const struct rootfs *rfs, const char *kernel)
{
        static const char *const configs[] = {
                "/boot/grub/grub.cfg", "/boot/grub2/grub.cfg", "/etc/kernel/cmdline",
                "/boot/extlinux/extlinux.conf", "/boot/syslinux/syslinux.cfg", "/boot/refind_linux.conf",
                "/boot/cmdline.txt", "/boot/firmware/cmdline.txt",
        };
        _cleanup_free_ char *words = read_text(rfs, OWN_CMDLINE_PATH, KERNEL_CMDLINE_MAX, NULL);
        struct timespec never = {};

        if (!words || !*strstrip(words))
                return;
        for (size_t i = 0; i < ELEMENTSOF(configs); i++) {
                _cleanup_free_ char *text = read_text(rfs, configs[i], GRUB_CFG_MAX, NULL);
                if (text && has_words(text, words))
                        return;
        }
        if (boot_entry_has(rfs, kernel, words, &never))
                return;
        if (s->running) {
                /* procfs: size 0, read as the running kernel's line */
                _cleanup_free_ char *text = read_text(rfs, "/proc/cmdline", KERNEL_CMDLINE_MAX, NULL);
                if (text && has_words(text, words))
                        return;
        }
        step_own_words(s, rfs, words, false);
}

static void pending_initramfs(struct next_steps *s, const struct rootfs *rfs, const char *kernel)
{
        _cleanup_free_ char *img = initramfs_of(rfs, kernel);
        struct timespec conf, made;

        /* older than the options, and holding a module they name (or not
         * known not to: its list is read on the running system only) */
        if (img && mtime_of(rfs, MODPROBE_PATH, &conf) && mtime_of(rfs, img, &made) && older(&made, &conf) &&
            initramfs_check(rfs, kernel, NULL) != INITRAMFS_LACKS)
                step_initramfs(s, rfs, kernel);
}

void next_steps_boot_pending(struct next_steps *s, const struct rootfs *rfs)
{
        _cleanup_(manifest_freep) struct manifest *m = NULL;
        struct xerror e = {};

        /* no manifest (or one install and rollback report): nothing of ours */
        if (manifest_load(rfs, &m, &e) < 0) {
                xerror_done(&e);
                return;
        }
        next_steps_boot_pending_of(s, rfs, m);
}

/* the digest of boot step X: its id, command, words, and the content of
 * the boot files of M it is for (a new install that changes one asks again) */
static void step_digest(struct next_step *x, const struct manifest *m)
{
        static const char *const files[] = { MODPROBE_PATH, GRUB_SNIPPET_PATH, KERNEL_CMDLINE_PATH,
                                             OWN_CMDLINE_PATH };
        struct strbuf sb = {};

        sb_appendf(&sb, "%s\x1f%d\x1f%s\x1f", x->id, x->remove, strempty(x->words));
        for (char **a = x->argv; a && *a; a++)
                sb_appendf(&sb, "%s\x1f", *a);
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                const struct manifest_file *mf = manifest_find(m, files[i]);
                if (mf)
                        sb_appendf(&sb, "\x1e%s\x1f%s", files[i], mf->sha);
        }
        sha256_hex(sb_str(&sb), sb.len, 32, x->digest);
        sb_free(&sb);
}

void next_steps_boot_pending_of(struct next_steps *s, const struct rootfs *rfs, const struct manifest *m)
{
        struct steps_done done = {};
        struct xerror e = {};
        size_t first = s->n, k;

        /* the initramfs first: kernel-install puts it into a UKI */
        if (manifest_find(m, MODPROBE_PATH))
                pending_initramfs(s, rfs, m->kernel);
        if (manifest_find(m, GRUB_SNIPPET_PATH))
                pending_grub(s, rfs);
        if (manifest_find(m, KERNEL_CMDLINE_PATH))
                pending_kernel_cmdline(s, rfs, m->kernel);
        if (manifest_find(m, OWN_CMDLINE_PATH))
                pending_own_cmdline(s, rfs, m->kernel);
        if (m->dropped_words)
                pending_dropped_words(s, rfs, m->dropped_words);
        /* the steps said done by hand leave the list; a list that cannot be
         * read acknowledges nothing (the steps stay pending) */
        if (steps_done_load(rfs, &done, &e) < 0)
                xerror_done(&e);
        for (size_t i = k = first; i < s->n; i++) {
                struct next_step *x = &s->v[i];
                const struct step_done *d;
                if (x->boot)
                        step_digest(x, m);
                d = x->boot ? steps_done_find(&done, x->id, x->digest) : NULL;
                if (d) {
                        x->boot = false;
                        x->acknowledged = d->time;
                        s->acked = xrealloc(s->acked, (s->n_acked + 1) * sizeof(*s->acked));
                        s->acked[s->n_acked++] = *x;
                } else
                        s->v[k++] = *x;
        }
        s->n = k;
        steps_done_free(&done);
}

int next_steps_acknowledge(const struct rootfs *rfs, char *const *ids, size_t n_ids, struct xerror *ret_error)
{
        _cleanup_(next_steps_free) struct next_steps s = {};
        struct steps_done old = {}, now = {};
        bool all = n_ids == 1 && streq(ids[0], "all");
        long long t = (long long) time(NULL);
        int r;

        next_steps_init(&s, rfs);
        next_steps_boot_pending(&s, rfs);
        for (size_t i = 0; i < n_ids && !all; i++) {
                bool found = false;
                for (size_t k = 0; k < s.n && !found; k++)
                        found = s.v[k].boot && streq(s.v[k].id, ids[i]);
                for (size_t k = 0; k < s.n_acked && !found; k++)
                        found = streq(s.acked[k].id, ids[i]);
                if (!found) {
                        struct strbuf pending = {};
                        for (size_t k = 0; k < s.n; k++)
                                if (s.v[k].boot)
                                        sb_appendf(&pending, "%s%s", pending.len ? ", " : "", s.v[k].id);
                        r = pending.len ? xerror_set(ret_error, -EINVAL, _("no boot step \"%s\" is pending here "
                                                                           "(pending: %s)"), ids[i], sb_str(&pending))
                                        : xerror_set(ret_error, -EINVAL, _("no boot step \"%s\" is pending here "
                                                                           "(none is)"), ids[i]);
                        sb_free(&pending);
                        return r;
                }
        }
        r = steps_done_load(rfs, &old, ret_error);
        if (r < 0)
                return r;
        /* the records of steps still acknowledged stay with their time */
        for (size_t k = 0; k < s.n_acked; k++) {
                const struct step_done *d = steps_done_find(&old, s.acked[k].id, s.acked[k].digest);
                now.v = xrealloc(now.v, (now.n + 1) * sizeof(*now.v));
                now.v[now.n] = (struct step_done) { .id = xstrdup(d->id), .time = d->time };
                memcpy(now.v[now.n++].digest, d->digest, 65);
        }
        for (size_t k = 0; k < s.n; k++) {
                bool named = all;
                for (size_t i = 0; i < n_ids && !named; i++)
                        named = streq(ids[i], s.v[k].id);
                if (!s.v[k].boot || !named)
                        continue;
                now.v = xrealloc(now.v, (now.n + 1) * sizeof(*now.v));
                now.v[now.n] = (struct step_done) { .id = xstrdup(s.v[k].id), .time = t };
                memcpy(now.v[now.n++].digest, s.v[k].digest, 65);
        }
        r = steps_done_save(rfs, &now, ret_error);
        steps_done_free(&old);
        steps_done_free(&now);
        return r;
}

bool next_steps_boot_incomplete(const struct next_steps *s)
{
        for (size_t i = 0; i < s->n; i++)
                if (s->v[i].boot)
                        return true;
        return false;
}

/* ---- after rollback: what the boot artifacts still hold ---- */

static bool has_any_word(const char *text, const char *words)
{
        _cleanup_free_ char *w = xstrdup(words);

        for (char *save = NULL, *word = strtok_r(w, " \t\n", &save); word; word = strtok_r(NULL, " \t\n", &save))
                if (has_word(text, word))
                        return true;
        return false;
}

/* does the file PATH of the root hold a word of WORDS anywhere? A unified
 * kernel image carries its command line as plain text (.cmdline), so a
 * word in its bytes is a word it boots with (read a MiB at a time) */
static bool file_has_any_word(const struct rootfs *rfs, const char *path, const char *words)
{
        enum { CHUNK = 1u << 20, KEEP = 4096 };
        _cleanup_close_ int fd = rootfs_open_file(rfs, path, 0, SIZE_MAX, NULL);
        _cleanup_free_ char *buf = NULL, *w = NULL;
        size_t have = 0;

        if (fd < 0)
                return false;
        buf = xmalloc(CHUNK + KEEP + 1);
        for (;;) {
                ssize_t n = read(fd, buf + have, CHUNK);
                if (n <= 0)
                        return false;
                have += (size_t) n;
                buf[have] = '\0';
                free(w);
                w = xstrdup(words);
                for (char *save = NULL, *word = strtok_r(w, " \t\n", &save); word;
                     word = strtok_r(NULL, " \t\n", &save)) {
                        size_t k = strlen(word);
                        for (const char *p = buf; (p = memmem(p, have - (size_t) (p - buf), word, k)); p++) {
                                char before = p == buf ? ' ' : p[-1], after = p + k < buf + have ? p[k] : ' ';
                                if ((before == ' ' || before == '\0' || before == '"') &&
                                    (after == ' ' || after == '\0' || after == '\n' || after == '"'))
                                        return true;
                        }
                }
                /* the tail again with the next chunk: a word across the boundary */
                if (have > KEEP) {
                        memmove(buf, buf + have - KEEP, KEEP);
                        have = KEEP;
                }
        }
}

void next_steps_undo(struct next_steps *s, const struct rootfs *rfs, const char *words, const char *kernel,
                     const struct timespec *modprobe_time)
{
        static const char *const cfgs[] = { "/boot/grub/grub.cfg", "/boot/grub2/grub.cfg" };
        static const char *const esps[] = { "/boot", "/efi", "/boot/efi" };
        bool entries = false, uki = false, grub = false;

        /* the initramfs first: kernel-install puts it into a UKI */
        if (modprobe_time) {
                _cleanup_free_ char *img = initramfs_of(rfs, kernel);
                struct timespec made;
                /* made since idlecfg's options were written: it may hold them */
                if (img && mtime_of(rfs, img, &made) && !older(&made, modprobe_time))
                        step_initramfs(s, rfs, kernel);
        }
        if (!words || !*words)
                return;
        for (size_t i = 0; i < ELEMENTSOF(cfgs) && !grub; i++) {
                _cleanup_free_ char *cfg = read_text(rfs, cfgs[i], GRUB_CFG_MAX, NULL);
                grub = cfg && has_any_word(cfg, words);
        }
        for (size_t e = 0; e < ELEMENTSOF(esps); e++) {
                _cleanup_free_ char *dir = xasprintf("%s/loader/entries", esps[e]);
                _cleanup_free_ char *ukidir = xasprintf("%s/EFI/Linux", esps[e]);
                char **names = NULL;
                size_t n = 0;

                if (rootfs_list_dir(rfs, dir, ".conf", &names, &n) == 0) {
                        for (size_t i = 0; i < n && !entries; i++) {
                                _cleanup_free_ char *p = xasprintf("%s/%s", dir, names[i]);
                                _cleanup_free_ char *text = read_text(rfs, p, BOOT_FILE_MAX, NULL);
                                for (char *save = NULL, *l = text ? strtok_r(text, "\n", &save) : NULL;
                                     l && !entries; l = strtok_r(NULL, "\n", &save))
                                        entries = startswith(l + strspn(l, " \t"), "options") &&
                                                  has_any_word(l, words);
                        }
                        rootfs_list_free(names, n);
                }
                if (rootfs_list_dir(rfs, ukidir, ".efi", &names, &n) == 0) {
                        for (size_t i = 0; i < n && !uki; i++) {
                                _cleanup_free_ char *p = xasprintf("%s/%s", ukidir, names[i]);
                                uki = file_has_any_word(rfs, p, words);
                        }
                        rootfs_list_free(names, n);
                }
        }
        switch (s->boot.scheme) {
        case BOOT_GRUB_BLS:
                if (entries)
                        step_own_words(s, rfs, words, true);
                break;
        case BOOT_BOOTC:
                /* the options of idlecfg's source: emptied whatever the entries show */
                if (s->boot.booted)
                        step_own_words(s, rfs, words, true);
                break;
        case BOOT_OSTREE:
                if (entries)
                        step_own_words(s, rfs, words, true);
                break;
        default:
                if (entries || uki)
                        step_kernel_install(s, rfs, kernel);
                break;
        }
        if (s->boot.scheme == BOOT_GRUB && s->boot.grub_words != GRUB_WORDS_SNIPPET)
                /* the words the administrator put into /etc/default/grub, if it still holds them */
                step_grub_default(s, rfs, words, true);
        if (grub)
                step_update_grub(s, rfs);
}

/* ---- after rollback: what the running kernel and the initramfs still hold ---- */

#define INITRAMFS_MODPROBE "etc/modprobe.d/idlecfg.conf"

static struct boot_left *left_add(struct boot_lefts *l, const struct rootfs *rfs, const char *what,
                                  const char *where, const char *holds)
{
        struct boot_left *x;

        l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
        x = &l->v[l->n++];
        *x = (struct boot_left) { .what = what, .where = xstrdup(where), .holds = xstrdup(holds) };
        next_steps_init(&x->steps, rfs);
        return x;
}

/* what of NOTE the running kernel and the initramfs still hold */
static void lefts_of(const struct rootfs *rfs, const struct left_note note, bool list, struct boot_lefts *ret)
{
        *ret = (struct boot_lefts) {};
        if (note.words && target_is_running_system(rfs)) {
                _cleanup_free_ char *text = NULL, *w = NULL;
                struct strbuf held = {};

                /* the running kernel's, as /sys is read: straight (no file of the root) */
                if (read_file_full("/proc/cmdline", KERNEL_CMDLINE_MAX, &text, NULL) < 0)
                        text = NULL;
                w = xstrdup(note.words);
                for (char *save = NULL, *word = strtok_r(w, " \t", &save); text && word;
                     word = strtok_r(NULL, " \t", &save))
                        if (has_word(text, word))
                                sb_appendf(&held, "%s%s", held.len ? " " : "", word);
                if (held.len) {
                        struct boot_left *x = left_add(ret, rfs, "kernel-cmdline", "/proc/cmdline", sb_str(&held));
                        /* the boot artifacts' steps, if they still hold them; a reboot anyway */
                        next_steps_undo(&x->steps, rfs, sb_str(&held), note.kernel, NULL);
                        x->reboot = true;
                }
                sb_free(&held);
        }
        if (note.words && ret->n == 0) {
                /* not (or no longer) in the running kernel's: grub.cfg, the boot
                 * entries or a UKI may still hold them until their step runs */
                struct next_steps steps = {};
                next_steps_init(&steps, rfs);
                next_steps_undo(&steps, rfs, note.words, note.kernel, NULL);
                if (steps.n) {
                        struct boot_left *x = left_add(ret, rfs, "boot-config", "", note.words);
                        next_steps_free(&x->steps);
                        x->steps = steps;
                } else
                        next_steps_free(&steps);
        }
        if (note.modprobe && (list ? initramfs_holds_file(rfs, note.kernel, INITRAMFS_MODPROBE) == INITRAMFS_HOLDS
                                   : initramfs_may_hold_file(rfs, note.kernel, INITRAMFS_MODPROBE))) {
                _cleanup_free_ char *img = initramfs_of(rfs, note.kernel);
                struct boot_left *x = left_add(ret, rfs, "initramfs", img, INITRAMFS_MODPROBE);
                struct timespec always = {};
                /* the generator's step (and kernel-install for a UKI) */
                next_steps_undo(&x->steps, rfs, NULL, note.kernel, &always);
                x->reboot = target_is_running_system(rfs);
        }
}

void boot_lefts_find(const struct rootfs *rfs, struct boot_lefts *ret)
{
        _cleanup_(manifest_freep) struct manifest *m = NULL;
        struct xerror e = {};
        int r;

        r = manifest_load(rfs, &m, &e);
        xerror_done(&e);
        boot_lefts_find_of(rfs, r, ret);
}

void boot_lefts_find_of(const struct rootfs *rfs, int manifest_r, struct boot_lefts *ret)
{
        struct left_note note = {};

        *ret = (struct boot_lefts) {};
        /* installed again: what it installs is install's to say */
        if (manifest_r != -ENOENT || left_note_read(rfs, &note) < 0)
                return;
        lefts_of(rfs, note, true, ret);
        left_note_done(&note);
}

void boot_lefts_free(struct boot_lefts *l)
{
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].where);
                free(l->v[i].holds);
                next_steps_free(&l->v[i].steps);
        }
        free(l->v);
        *l = (struct boot_lefts) {};
}

int boot_left_note(const struct rootfs *rfs, const char *words, bool modprobe, const char *kernel)
{
        _cleanup_(boot_lefts_free) struct boot_lefts l = {};
        int r;

        if ((words && *words) || modprobe) {
                struct left_note n = { .kernel = (char *) kernel, .words = (char *) (words && *words ? words : NULL),
                                       .modprobe = modprobe };
                /* no listing of the initramfs here: unpacking it takes seconds (half a
                 * minute in check-vm's guest under TCG) in every rollback; an initramfs
                 * of that kernel may hold the options, and verify lists it */
                lefts_of(rfs, n, false, &l);
                if (l.n) {
                        r = left_note_write(rfs, &n);
                        return r == -ENOENT ? 0 : r;    /* a root without /var/lib: nothing kept */
                }
        } else
                boot_lefts_find(rfs, &l);
        return l.n ? 0 : left_note_remove(rfs);
}
