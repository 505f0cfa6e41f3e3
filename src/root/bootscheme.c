/* bootscheme.c: the target's boot scheme and initramfs generator, from its
 * files (read through the root's one reader) */
#include "config.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "base/i18n.h"
#include "root/bootscheme.h"
#include "root/grubenv.h"
#include "root/target.h"

#define INSTALL_CONF_MAX (64u << 10)
/* grub-mkconfig is a shell script of some 10 KiB */
#define GRUB_MKCONFIG_MAX (1u << 20)
#define BLS_ENTRY_MAX (1u << 20)

static const char *const scheme_names[_BOOT_SCHEME_MAX] = {
        [BOOT_NONE] = "none",
        [BOOT_GRUB] = "grub",
        [BOOT_GRUB_BLS] = "grub-bls",
        [BOOT_KERNEL_INSTALL_BLS] = "kernel-install-bls",
        [BOOT_KERNEL_INSTALL_UKI] = "kernel-install-uki",
        [BOOT_SYSTEMD_BOOT] = "systemd-boot",
        [BOOT_BOOTC] = "bootc",
        [BOOT_OSTREE] = "ostree",
};

static const char *const initrd_names[_INITRD_MAX] = {
        [INITRD_NONE] = "none",
        [INITRD_INITRAMFS_TOOLS] = "initramfs-tools",
        [INITRD_DRACUT] = "dracut",
        [INITRD_MKINITCPIO] = "mkinitcpio",
};

const char *boot_scheme_to_string(enum boot_scheme s)
{
        return s < _BOOT_SCHEME_MAX ? scheme_names[s] : "none";
}

const char *initrd_generator_to_string(enum initrd_generator g)
{
        return g < _INITRD_MAX ? initrd_names[g] : "none";
}

bool boot_root_has(const struct rootfs *rfs, const char *path)
{
        _cleanup_close_ int fd = rootfs_openat(rfs, path, O_PATH | O_CLOEXEC);
        return fd >= 0;
}

static bool is_dir(const struct rootfs *rfs, const char *path)
{
        _cleanup_close_ int fd = rootfs_openat(rfs, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        return fd >= 0;
}

/* the first of PATHS the root has, NULL: none */
static const char *first_of(const struct rootfs *rfs, const char *const *paths, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (boot_root_has(rfs, paths[i]))
                        return paths[i];
        return NULL;
}

/* ---- kernel-install's install.conf ---- */

struct install_conf {
        const char *path;       /* the file read; NULL: none */
        char *layout, *initrd_generator, *uki_generator;
        unsigned layout_line, initrd_line;
};

static void install_conf_done(struct install_conf *c)
{
        free(c->layout);
        free(c->initrd_generator);
        free(c->uki_generator);
}

/* VALUE of a KEY=VALUE line, as kernel-install's environment-file reader
 * takes it: blanks around it dropped, one pair of quotes removed; NULL when
 * a quote is not closed */
static char *conf_value(const char *v)
{
        size_t n;

        v += strspn(v, " \t");
        n = strlen(v);
        while (n && strchr(" \t\r", v[n - 1]))
                n--;
        if (n && (v[0] == '"' || v[0] == '\'')) {
                if (n < 2 || v[n - 1] != v[0] || memchr(v + 1, v[0], n - 2))
                        return NULL;
                return xstrndup(v + 1, n - 2);
        }
        return xstrndup(v, n);
}

static bool valid_key(const char *s, size_t n)
{
        if (!n || !(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
                return false;
        for (size_t i = 1; i < n; i++)
                if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
                      (s[i] >= '0' && s[i] <= '9')))
                        return false;
        return true;
}

/* /etc/kernel/install.conf, else /usr/lib/kernel/install.conf: the first one
 * there is the one kernel-install reads */
static void install_conf_read(const struct rootfs *rfs, struct install_conf *ret)
{
        static const char *const paths[] = { "/etc/kernel/install.conf", "/usr/lib/kernel/install.conf" };
        _cleanup_free_ char *text = NULL;
        unsigned line = 0;
        int r = -ENOENT;

        *ret = (struct install_conf) {};
        for (size_t i = 0; i < ELEMENTSOF(paths) && (r == -ENOENT || r == -ENOTDIR); i++) {
                r = rootfs_read_file(rfs, paths[i], 0, INSTALL_CONF_MAX, &text, NULL, NULL);
                ret->path = paths[i];
        }
        if (r == -ENOENT || r == -ENOTDIR) {
                ret->path = NULL;
                return;
        }
        if (r < 0) {
                _cleanup_free_ char *shown = rootfs_display(rfs, ret->path);
                _cleanup_free_ char *why = rootfs_why(rfs, ret->path, r, INSTALL_CONF_MAX);
                rootfs_warn(rfs, _("%s: %s; idlecfg assumes it sets no layout"), shown, why);
                ret->path = NULL;
                return;
        }
        for (char *l = text, *next; l; l = next) {
                char *eq, **slot = NULL, *v;
                size_t k;

                next = strchr(l, '\n');
                if (next)
                        *next++ = '\0';
                line++;
                l += strspn(l, " \t");
                if (!*l || *l == '#' || *l == ';' || *l == '\r')
                        continue;
                eq = strchr(l, '=');
                k = eq ? (size_t) (eq - l) : 0;
                while (k && strchr(" \t", l[k - 1]))
                        k--;
                v = eq && valid_key(l, k) ? conf_value(eq + 1) : NULL;
                if (!v) {
                        _cleanup_free_ char *shown = rootfs_display(rfs, ret->path);
                        rootfs_warn(rfs, _("%s:%u: not a KEY=VALUE line; idlecfg ignores it"), shown, line);
                        continue;
                }
                if (k == 6 && strncmp(l, "layout", 6) == 0) {
                        slot = &ret->layout;
                        ret->layout_line = line;
                } else if (k == 16 && strncmp(l, "initrd_generator", 16) == 0) {
                        slot = &ret->initrd_generator;
                        ret->initrd_line = line;
                } else if (k == 13 && strncmp(l, "uki_generator", 13) == 0)
                        slot = &ret->uki_generator;
                if (slot) {
                        free(*slot);
                        *slot = v;      /* the last one wins */
                } else
                        free(v);
        }
}

/* ---- the scheme ---- */

static bool grub_bls_enabled(const struct rootfs *rfs)
{
        struct grubenv env = {};
        bool on;

        grub_boot_env(rfs, &env);
        on = streq(grubenv_get(&env, "GRUB_ENABLE_BLSCFG"), "true");
        grubenv_done(&env);
        return on;
}

static const char *systemd_boot_mark(const struct rootfs *rfs)
{
        static const char *const marks[] = {
                "/boot/efi/EFI/systemd/systemd-bootx64.efi", "/efi/EFI/systemd/systemd-bootx64.efi",
                "/boot/EFI/systemd/systemd-bootx64.efi", "/boot/efi/EFI/systemd/systemd-bootaa64.efi",
                "/efi/EFI/systemd/systemd-bootaa64.efi", "/boot/EFI/systemd/systemd-bootaa64.efi",
                "/boot/efi/loader/loader.conf", "/efi/loader/loader.conf", "/boot/loader/loader.conf",
        };
        return first_of(rfs, marks, ELEMENTSOF(marks));
}

/* a directory of boot entries (Boot Loader Specification) that holds one */
static const char *bls_entries_mark(const struct rootfs *rfs)
{
        static const char *const dirs[] = { "/boot/loader/entries", "/efi/loader/entries", "/boot/efi/loader/entries" };

        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                char **names = NULL;
                size_t n = 0;
                if (rootfs_list_dir(rfs, dirs[i], ".conf", &names, &n) == 0) {
                        rootfs_list_free(names, n);
                        if (n > 0)
                                return dirs[i];
                }
        }
        return NULL;
}

/* the words of the options lines of the entry PATH, onto OPTS; false: not read */
static bool bls_entry_options(const struct rootfs *rfs, const char *path, struct strbuf *opts)
{
        _cleanup_free_ char *text = NULL;

        if (rootfs_read_file(rfs, path, 0, BLS_ENTRY_MAX, &text, NULL, NULL) < 0)
                return false;
        for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                l += strspn(l, " \t");
                if (startswith(l, "options") && strchr(" \t", l[7]))
                        sb_appendf(opts, " %s", l + 7);
        }
        return true;
}

char *boot_bls_common_words(const struct rootfs *rfs)
{
        const char *dir = bls_entries_mark(rfs);
        char *common = NULL, **names = NULL;
        size_t n = 0;

        if (!dir || rootfs_list_dir(rfs, dir, ".conf", &names, &n) < 0)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *path = xasprintf("%s/%s", dir, names[i]), *missing = NULL;
                struct strbuf opts = {};

                if (!bls_entry_options(rfs, path, &opts))
                        continue;
                if (!common)
                        common = xstrdup(sb_str(&opts));
                else {
                        char *c;
                        /* the words of COMMON this entry lacks, then COMMON without them */
                        missing = words_missing(sb_str(&opts), common);
                        c = words_missing(missing, common);
                        free(common);
                        common = c;
                }
                sb_free(&opts);
        }
        rootfs_list_free(names, n);
        return common;
}

char *boot_bls_words_held(const struct rootfs *rfs, const char *words)
{
        const char *dir = bls_entries_mark(rfs);
        _cleanup_free_ char *lacking = NULL;
        struct strbuf all = {};
        char **names = NULL, *held;
        size_t n = 0;

        if (!words || !dir || rootfs_list_dir(rfs, dir, ".conf", &names, &n) < 0)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *path = xasprintf("%s/%s", dir, names[i]);
                (void) bls_entry_options(rfs, path, &all);
        }
        rootfs_list_free(names, n);
        /* the words no entry has, then WORDS without them */
        lacking = words_missing(sb_str(&all), words);
        held = words_missing(lacking, words);
        sb_free(&all);
        if (!*held) {
                free(held);
                return NULL;
        }
        return held;
}

const char *boot_grub_mark(const struct rootfs *rfs)
{
        static const char *const marks[] = {
                "/etc/default/grub", "/etc/default/grub.d", "/usr/sbin/update-grub", "/usr/sbin/grub-mkconfig",
                "/usr/sbin/grub2-mkconfig", "/boot/grub/grub.cfg", "/boot/grub2/grub.cfg",
        };
        struct stat st;

        /* a dangling link counts too: the package is there */
        for (size_t i = 0; i < ELEMENTSOF(marks); i++)
                if (rootfs_lstat(rfs, marks[i], &st) == 0)
                        return marks[i];
        return NULL;
}

const char *boot_grub_mkconfig_no_grub_d(const struct rootfs *rfs)
{
        /* update-grub runs grub-mkconfig; a root without it runs the one it has */
        static const char *const scripts[] = {
                "/usr/sbin/grub-mkconfig", "/usr/sbin/grub2-mkconfig", "/usr/bin/grub-mkconfig",
                "/usr/bin/grub2-mkconfig", "/sbin/grub-mkconfig", "/sbin/grub2-mkconfig",
        };

        for (size_t i = 0; i < ELEMENTSOF(scripts); i++) {
                _cleanup_free_ char *text = NULL;
                int r = rootfs_read_file(rfs, scripts[i], 0, GRUB_MKCONFIG_MAX, &text, NULL, NULL);
                if (r == -ENOENT || r == -ENOTDIR)
                        continue;
                /* a script that sources /etc/default/grub says which files it
                 * reads; anything else (empty, unreadable, a binary) does not */
                if (r < 0 || !strstr(text, "/default/grub"))
                        return NULL;
                return strstr(text, "/default/grub.d/") ? NULL : scripts[i];
        }
        return NULL;
}

static void detect_grub_words(const struct rootfs *rfs, struct boot_info *b)
{
        const char *script;
        char *ro;

        if (!boot_grub_mark(rfs))
                return;
        if ((script = boot_grub_mkconfig_no_grub_d(rfs))) {
                b->grub_words = GRUB_WORDS_NO_GRUB_D;
                b->grub_words_where = xstrdup(script);
        } else if ((ro = grub_cmdline_readonly_before_snippet(rfs))) {
                b->grub_words = GRUB_WORDS_READONLY;
                b->grub_words_where = ro;
        }
}

static void detect_scheme(const struct rootfs *rfs, const struct install_conf *conf, struct boot_info *b)
{
        bool ostree_booted = boot_root_has(rfs, "/run/ostree-booted");
        const char *mark;

        b->booted = ostree_booted && target_is_running_system(rfs);
        if (is_dir(rfs, "/usr/lib/bootc")) {
                b->scheme = BOOT_BOOTC;
                b->reason = xstrdup(b->booted ? "/usr/lib/bootc is there and /run/ostree-booted: a running bootc host"
                                              : "/usr/lib/bootc is there: a bootc image, whose kernel arguments "
                                                "come from /usr/lib/bootc/kargs.d");
                return;
        }
        if (is_dir(rfs, "/ostree") || ostree_booted) {
                b->scheme = BOOT_OSTREE;
                b->reason = xstrdup(b->booted ? "/run/ostree-booted: a booted OSTree host"
                                              : "/ostree is there: an OSTree deployment");
                return;
        }
        if (boot_grub_mark(rfs) && is_dir(rfs, "/boot/loader/entries") && grub_bls_enabled(rfs)) {
                b->scheme = BOOT_GRUB_BLS;
                b->reason = xstrdup("GRUB_ENABLE_BLSCFG=true in /etc/default/grub and /boot/loader/entries "
                                    "is there: GRUB boots the entries, with their options");
                return;
        }
        if (conf->layout && (streq(conf->layout, "uki") || streq(conf->layout, "bls"))) {
                b->scheme = streq(conf->layout, "uki") ? BOOT_KERNEL_INSTALL_UKI : BOOT_KERNEL_INSTALL_BLS;
                b->reason = xasprintf("layout=%s in %s:%u", conf->layout, conf->path, conf->layout_line);
                return;
        }
        if ((mark = systemd_boot_mark(rfs))) {
                b->scheme = BOOT_SYSTEMD_BOOT;
                b->reason = xasprintf("systemd-boot is installed (%s): kernel-install makes its entries", mark);
                return;
        }
        if (boot_root_has(rfs, "/etc/kernel/cmdline") && (mark = bls_entries_mark(rfs))) {
                /* boot entries made from /etc/kernel/cmdline, GRUB or not: some
                 * boot loader reads them, and kernel-install makes them */
                b->scheme = BOOT_KERNEL_INSTALL_BLS;
                b->reason = xasprintf("/etc/kernel/cmdline and the boot entries in %s are there: "
                                      "kernel-install makes them with it", mark);
                return;
        }
        if ((mark = boot_grub_mark(rfs))) {
                b->scheme = BOOT_GRUB;
                b->reason = xasprintf("GRUB is there (%s): grub-mkconfig makes grub.cfg", mark);
                return;
        }
        if (boot_root_has(rfs, "/etc/kernel/cmdline")) {
                b->scheme = BOOT_KERNEL_INSTALL_BLS;
                b->reason = xstrdup("/etc/kernel/cmdline is there and no GRUB: kernel-install makes the boot "
                                    "entries with it");
                return;
        }
        b->scheme = BOOT_NONE;
        b->reason = conf->layout
                ? xasprintf("layout=%s in %s:%u leaves the command line to another boot loader, and no GRUB, "
                            "systemd-boot, bootc or OSTree is there", conf->layout, conf->path, conf->layout_line)
                : xstrdup("no GRUB, kernel-install layout, systemd-boot, bootc or OSTree is there");
}

static void detect_initrd(const struct rootfs *rfs, const struct install_conf *conf, struct boot_info *b)
{
        static const struct { const char *path; enum initrd_generator g; } tools[] = {
                { "/usr/sbin/update-initramfs", INITRD_INITRAMFS_TOOLS },
                { "/sbin/update-initramfs", INITRD_INITRAMFS_TOOLS },
                { "/usr/bin/dracut", INITRD_DRACUT },
                { "/usr/sbin/dracut", INITRD_DRACUT },
                { "/usr/bin/mkinitcpio", INITRD_MKINITCPIO },
        };

        if (conf->initrd_generator) {
                for (size_t g = INITRD_INITRAMFS_TOOLS; g < _INITRD_MAX; g++)
                        if (streq(conf->initrd_generator, initrd_names[g])) {
                                b->initrd = g;
                                b->initrd_reason = xasprintf("initrd_generator=%s in %s:%u", conf->initrd_generator,
                                                             conf->path, conf->initrd_line);
                                return;
                        }
        }
        for (size_t i = 0; i < ELEMENTSOF(tools); i++)
                if (boot_root_has(rfs, tools[i].path)) {
                        b->initrd = tools[i].g;
                        b->initrd_reason = xasprintf("%s is there", tools[i].path);
                        return;
                }
        b->initrd = INITRD_NONE;
        b->initrd_reason = xstrdup("no update-initramfs, dracut or mkinitcpio is there");
}

void boot_detect(const struct rootfs *rfs, struct boot_info *ret)
{
        struct install_conf conf;

        *ret = (struct boot_info) {};
        install_conf_read(rfs, &conf);
        if (conf.layout && !(streq(conf.layout, "bls") || streq(conf.layout, "uki") || streq(conf.layout, "other") ||
                             /* Gentoo's installkernel: other boot loaders' layouts */
                             streq(conf.layout, "grub") || streq(conf.layout, "compat") ||
                             streq(conf.layout, "efistub"))) {
                _cleanup_free_ char *shown = rootfs_display(rfs, conf.path);
                rootfs_warn(rfs, _("%s:%u: layout=%s is none that kernel-install knows (bls, uki, other); "
                                   "idlecfg looks for the boot loader itself"), shown, conf.layout_line, conf.layout);
        }
        detect_scheme(rfs, &conf, ret);
        detect_grub_words(rfs, ret);
        detect_initrd(rfs, &conf, ret);
        install_conf_done(&conf);
}

void boot_info_done(struct boot_info *b)
{
        free(b->reason);
        free(b->initrd_reason);
        free(b->grub_words_where);
        *b = (struct boot_info) {};
}
