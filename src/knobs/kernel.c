/* knobs/kernel.c: kernel sysctls (NMI watchdog, dirty writeback) written as a sysctl.d file */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "knobs/knob.h"
#include "root/rootfs.h"
#include "root/targets.h"

#define SYSCTL_CONF_MAX (1u << 20)
#define SYSCTL_CONF "/etc/sysctl.conf"

/* Is the plan for the kernel running here, so that /proc/sys tells about it? */
static bool plan_is_live(struct planctx *c)
{
        struct utsname u;

        if (!c->inv->rfs->host)
                return false;
        return !c->inv->kernel || (uname(&u) == 0 && streq(u.release, c->inv->kernel));
}

/* KEY's /proc/sys file on the running kernel: 0 and its value (newline
 * stripped) and whether it is writable; -ENOENT when the kernel has no such
 * sysctl; -EOPNOTSUPP when /proc/sys cannot be used (under umockdev) */
static int sysctl_read_live(const char *key, char **ret, bool *ret_writable)
{
        _cleanup_free_ char *path = sysctl_proc_path(key);
        _cleanup_close_ int fd = -1;
        struct stat st;
        int r;

        if (!path)
                return -EOPNOTSUPP;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        r = read_live_fd(fd, LIVE_STRIP, ret);
        if (r < 0)
                return r;
        *ret_writable = (st.st_mode & 0222) != 0;
        return 0;
}

/* the value of WORD= on the kernel command line, NULL if not there */
static char *cmdline_value(const char *cmdline, const char *word)
{
        size_t n = strlen(word);

        for (const char *p = cmdline; p && (p = strstr(p, word)); p += n)
                if ((p == cmdline || p[-1] == ' ') && p[n] == '=')
                        return xstrndup(p + n + 1, strcspn(p + n + 1, " "));
        return NULL;
}

static void plan_nmi_watchdog(struct planctx *c)
{
        const char *v = profile_value(c, "kernel", "nmi_watchdog");
        _cleanup_free_ char *why = NULL, *cur = NULL, *boot = NULL, *file = NULL, *kwhy = NULL;
        bool writable = false;
        const char *has, *option = "CONFIG_HARDLOCKUP_DETECTOR";
        int r, kr = 0;

        if (!v) {
                plan_skip_keep(c, "kernel.nmi_watchdog", "kernel", "nmi_watchdog");
                return;
        }
        why = profile_reason(c, "kernel", "nmi_watchdog");
        /* nmi_watchdog= at boot is the administrator's choice, e.g. panic on a hard lockup */
        boot = cmdline_value(c->cmdline, "nmi_watchdog");
        if (boot) {
                plan_skip(c, NULL, "kernel.nmi_watchdog",
                          xasprintf("skipped: %s: the kernel command line sets nmi_watchdog=%s: that choice stays",
                                    why, boot));
                return;
        }
        if (plan_is_live(c)) {
                r = sysctl_read_live("kernel.nmi_watchdog", &cur, &writable);
                if (r == -ENOENT) {
                        plan_skip(c, NULL, "kernel.nmi_watchdog",
                                  xasprintf("skipped: %s: the running kernel has no kernel.nmi_watchdog (built "
                                            "without CONFIG_LOCKUP_DETECTOR): there is no watchdog to turn off", why));
                        return;
                }
                if (r == 0 && !writable) {
                        plan_skip(c, NULL, "kernel.nmi_watchdog",
                                  xasprintf("skipped: %s: kernel.nmi_watchdog is read-only: the running kernel has "
                                            "no hard-lockup detector here (CONFIG_HARDLOCKUP_DETECTOR off, or no NMI "
                                            "source such as a perf counter, as in most VMs): nothing to turn off", why));
                        return;
                }
                plan_global(c, "kernel.nmi_watchdog", NULL, "kernel.nmi_watchdog", "0", r == 0 ? cur : NULL,
                            MECH_SYSCTL, TAKE_PTR(why));
                return;
        }
        has = knob_kconfig_option(c, "CONFIG_HARDLOCKUP_DETECTOR", &file, &kr);
        if (has && streq(has, "no")) {
                /* an architecture's own NMI watchdog (CONFIG_HAVE_NMI_WATCHDOG: powerpc,
                 * sparc) answers to the same sysctl */
                _cleanup_free_ char *again = NULL;
                if (streq_ptr(knob_kconfig_option(c, "CONFIG_HAVE_NMI_WATCHDOG", &again, &kr), "yes"))
                        has = "yes", option = "CONFIG_HAVE_NMI_WATCHDOG";
        }
        if (has && streq(has, "no")) {
                plan_skip(c, NULL, "kernel.nmi_watchdog",
                          xasprintf("skipped: %s: %s sets neither CONFIG_HARDLOCKUP_DETECTOR nor "
                                    "CONFIG_HAVE_NMI_WATCHDOG: the target kernel has no hard-lockup detector to turn "
                                    "off", why, file));
                return;
        }
        /* the reader's words, as in the warning about the file */
        if (!has && file && kr < 0 && kr != -ENOENT && kr != -ENOTDIR)
                kwhy = rootfs_why(c->inv->rfs, file, kr, KCONFIG_MAX);
        plan_global(c, "kernel.nmi_watchdog", NULL, "kernel.nmi_watchdog", "0", NULL, MECH_SYSCTL,
                    has ? xasprintf("%s; %s has %s", why, file, option)
                    : kwhy ? xasprintf("%s; %s cannot be read (%s): on a kernel without a hard-lockup detector the "
                                       "line does nothing", why, file, kwhy)
                    : file ? xasprintf("%s; %s is not in the root to check: on a kernel without a hard-lockup "
                                       "detector the line does nothing", why, file)
                           : xasprintf("%s; the target kernel is unknown: on a kernel without a hard-lockup "
                                       "detector the line does nothing", why));
}

static void plan_dirty_writeback(struct planctx *c)
{
        const char *v = profile_value(c, "kernel", "dirty_writeback_centisecs");
        _cleanup_free_ char *cur = NULL;
        bool writable = false;
        int r = -EOPNOTSUPP;

        if (!v) {
                plan_skip_keep(c, "kernel.dirty_writeback_centisecs", "kernel", "dirty_writeback_centisecs");
                return;
        }
        if (plan_is_live(c)) {
                r = sysctl_read_live("vm.dirty_writeback_centisecs", &cur, &writable);
                if (r == -ENOENT) {
                        _cleanup_free_ char *why = profile_reason(c, "kernel", "dirty_writeback_centisecs");
                        plan_skip(c, NULL, "kernel.dirty_writeback_centisecs",
                                  xasprintf("skipped: %s: the running kernel has no vm.dirty_writeback_centisecs", why));
                        return;
                }
        }
        plan_global(c, "kernel.dirty_writeback_centisecs", NULL, "vm.dirty_writeback_centisecs", v,
                    r == 0 ? cur : NULL, MECH_SYSCTL, profile_reason(c, "kernel", "dirty_writeback_centisecs"));
}

/* ---- other sysctl.d files that set the same keys ----
 * systemd-sysctl (and procps' sysctl --system) read every *.conf of these
 * directories in the order of the file names; a name in an earlier directory
 * hides the same name in a later one; the last assignment of a key wins. */

static const char *const sysctl_dirs[] = {
        "/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d", "/lib/sysctl.d",
};

struct conf_file {
        char *name;
        size_t dir;
};

static int conf_file_cmp(const void *a, const void *b)
{
        const struct conf_file *x = a, *y = b;
        int r = strcmp(x->name, y->name);

        return r ? r : (x->dir > y->dir) - (x->dir < y->dir);
}

/* systemd's sysctl_normalize(): '/' separators become '.', and a key written
 * with '/' first has its dots as the slashes they stand for */
static void key_normalize(char *k)
{
        char *sep = strpbrk(k, "./");

        if (!sep || *sep == '.')
                return;
        for (char *p = k; *p; p++)
                *p = *p == '/' ? '.' : *p == '.' ? '/' : *p;
}

/* warn about each line of TEXT (shown as SHOWN) that sets a key this family
 * plans to another value: AFTER, the file is read after ours and wins; else,
 * for an administrator's file (ADMIN), ours replaces what it says */
static void conf_check(struct planctx *c, const char *shown, char *text, bool after, bool admin)
{
        unsigned line = 0;

        if (!after && !admin)
                return;
        for (char *l = text, *next; l && *l; l = next) {
                char *eq, *key, *value;

                next = strchr(l, '\n');
                if (next)
                        *next++ = '\0';
                line++;
                l = strstrip(l);
                if (!*l || *l == '#' || *l == ';' || !(eq = strchr(l, '=')))
                        continue;
                *eq = '\0';
                key = strstrip(l);
                value = strstrip(eq + 1);
                if (*key == '-')
                        key++;  /* "-key = value": ignore a failed write */
                key_normalize(key);
                for (size_t i = 0; i < c->plan->n; i++) {
                        const struct setting *s = &c->plan->v[i];
                        if (s->mech != MECH_SYSCTL || !s->value || fnmatch(key, s->param, 0) != 0 ||
                            streq(value, s->value))
                                continue;
                        if (after)
                                plan_add_warning(c->plan, _("%s:%u sets %s = %s and is read after %s: it wins over "
                                                            "idlecfg's %s; remove the line or set the profile key to "
                                                            "keep"), shown, line, s->param, value, SYSCTL_PATH,
                                                 s->value);
                        else
                                plan_add_warning(c->plan, _("%s:%u sets %s = %s; %s, read after it, replaces that "
                                                            "with %s"), shown, line, s->param, value, SYSCTL_PATH,
                                                 s->value);
                }
        }
}

/* a sysctl.d file through the root's reader; one it cannot use is said, with
 * what idlecfg assumes. IN_DIR: a name of a sysctl.d directory, where a link
 * to nothing inside the root (Debian's 99-sysctl.conf -> ../sysctl.conf
 * without procps) is skipped without a word, as systemd-sysctl and procps'
 * sysctl --system skip it; a link out of the root is still said. */
static int sysctl_read(const struct rootfs *rfs, const char *path, bool in_dir, char **ret)
{
        int r = rootfs_read_file(rfs, path, 0, SYSCTL_CONF_MAX, ret, NULL, NULL);

        if (r < 0 && r != -ENOENT && r != -ENOTDIR && !(in_dir && r == -ENOLINK)) {
                _cleanup_free_ char *shown = rootfs_display(rfs, path);
                _cleanup_free_ char *why = rootfs_why(rfs, path, r, SYSCTL_CONF_MAX);
                rootfs_warn(rfs, _("%s: %s; idlecfg cannot tell whether it sets a sysctl idlecfg plans, and "
                                   "assumes it sets none"), shown, why);
        }
        return r;
}

static void sysctl_conflicts(struct planctx *c)
{
        const struct rootfs *rfs = c->inv->rfs;
        const char *ours = strrchr(SYSCTL_PATH, '/') + 1;
        struct conf_file *v = NULL;
        size_t n = 0, planned = 0;
        _cleanup_free_ char *etc_conf = NULL;
        bool etc_conf_linked = false;

        for (size_t i = 0; i < c->plan->n; i++)
                planned += c->plan->v[i].mech == MECH_SYSCTL && c->plan->v[i].value;
        if (!planned || !rfs)
                return;
        for (size_t d = 0; d < ELEMENTSOF(sysctl_dirs); d++) {
                char **names;
                size_t m;

                if (rootfs_list_dir(rfs, sysctl_dirs[d], ".conf", &names, &m) < 0)
                        continue;
                v = xrealloc(v, (n + m + 1) * sizeof(*v));
                for (size_t i = 0; i < m; i++)
                        v[n++] = (struct conf_file) { .name = names[i], .dir = d };
                free(names);
        }
        if (n)
                qsort(v, n, sizeof(*v), conf_file_cmp);
        sysctl_read(rfs, SYSCTL_CONF, false, &etc_conf);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *path = NULL, *text = NULL, *shown = NULL;
                int cmp = strcmp(v[i].name, ours);

                /* hidden by the same name in an earlier directory, or ours */
                if ((i > 0 && streq(v[i - 1].name, v[i].name)) || (cmp == 0 && v[i].dir == 0))
                        continue;
                if (cmp == 0)
                        continue;       /* a packaged file of our name: /etc hides it */
                path = xasprintf("%s/%s", sysctl_dirs[v[i].dir], v[i].name);
                if (sysctl_read(rfs, path, true, &text) < 0)
                        continue;
                if (etc_conf && streq(text, etc_conf))
                        etc_conf_linked = true; /* Debian's 99-sysctl.conf -> ../sysctl.conf */
                shown = rootfs_display(rfs, path);
                /* files before ours: a distribution's are what idlecfg means to
                 * override; an administrator's (in /etc, /run, /usr/local) are said */
                conf_check(c, shown, text, cmp > 0, v[i].dir <= 2);
        }
        if (etc_conf && !etc_conf_linked) {
                _cleanup_free_ char *shown = rootfs_display(rfs, SYSCTL_CONF);
                /* procps' sysctl --system reads it after every sysctl.d file */
                conf_check(c, shown, etc_conf, true, true);
        }
        for (size_t i = 0; i < n; i++)
                free(v[i].name);
        free(v);
}

void knob_kernel(struct planctx *c)
{
        plan_nmi_watchdog(c);
        plan_dirty_writeback(c);
        sysctl_conflicts(c);
}

static const char *const ch_nmi_watchdog[] = { "off", "keep", NULL };

static const struct profile_key keys[] = {
        KEY_CHOICE("nmi_watchdog", ch_nmi_watchdog),
        KEY_NUMBER_SOURCE("dirty_writeback_centisecs", 100, 6000),
};

static const struct knob_rule rules[] = {
        { "kernel.nmi_watchdog", KNOB_WORDS, "0", 0, 0, NULL, NULL, "kernel.nmi_watchdog" },
        { "kernel.dirty_writeback_centisecs", KNOB_INT, NULL, 100, 6000, NULL, NULL, "vm.dirty_writeback_centisecs" },
};

/* the kernel's configuration (nmi_watchdog's detector), the sysctl.d files
 * whose settings the plan warns about */
static const char *const kconfig[] = { KCONFIG_PATH };
static const char *const sysctl_conf[] = { SYSCTL_CONF };
static const struct knob_input inputs[] = {
        KNOB_INPUT(INPUT_FILE, kconfig, NULL),
        KNOB_INPUT(INPUT_DIR, sysctl_dirs, ".conf"),
        KNOB_INPUT(INPUT_FILE, sysctl_conf, NULL),
};

const struct knob_family knob_family_kernel = {
        .name = "kernel",
        .section = "kernel",
        KNOB_LIST(keys, keys),
        KNOB_LIST(rules, rules),
        KNOB_LIST(inputs, inputs),
        .plan = knob_kernel,
};
