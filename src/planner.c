/* planner.c: build the plan: load hwdb and profile, run every knob family */
#include "config.h"

#include "modules.h"
#include "planner.h"
#include "rootfs.h"

/* hand the error of a loader on to the caller, file and line kept */
static void error_move(struct xerror *to, struct xerror *from)
{
        if (to) {
                xerror_done(to);
                *to = *from;
        } else
                xerror_done(from);
        *from = (struct xerror) {};
}

/* other power tools that manage the same knobs */
static void warn_tools(struct planctx *c)
{
        for (size_t i = 0; i < c->inv->n_tools; i++) {
                _cleanup_free_ char *w = power_tool_warning(&c->inv->tools[i]);
                /* power-profiles-daemon, auto-cpufreq: CPU and platform
                 * profiles only, knobs idlecfg leaves alone: no warning */
                if (w)
                        plan_add_warning(c->plan, "%s", w);
        }
}

/* The kernel command line the target boots with: /proc/cmdline for this
 * system; for a root, what its boot setup passes (/etc/kernel/cmdline and the
 * GRUB_CMDLINE_LINUX* lines of /etc/default/grub), as one line of words,
 * quotes dropped. Only used to respect what the administrator set: a file
 * that cannot be used is a warning, and idlecfg assumes it sets nothing. */
#define CMDLINE_MAX (64u * 1024u)       /* /proc/cmdline, /etc/kernel/cmdline */
#define GRUB_MAX (1024u * 1024u)        /* /etc/default/grub */
static char *boot_cmdline(const struct rootfs *rfs)
{
        static const struct { const char *path; size_t max; } files[] = {
                { "/etc/kernel/cmdline", CMDLINE_MAX }, { "/etc/default/grub", GRUB_MAX },
        };
        struct strbuf sb = {};

        if (root_is_host(rfs->path)) {
                char *c = NULL;
                /* procfs: a regular file of size 0 */
                int r = rootfs_read_file(rfs, "/proc/cmdline", 0, CMDLINE_MAX, &c, NULL, NULL);
                if (r < 0) {
                        _cleanup_free_ char *why = rootfs_read_strerror(r, CMDLINE_MAX);
                        rootfs_warn(rfs, _("/proc/cmdline: %s; idlecfg assumes the kernel command line sets "
                                           "nothing it plans"), why);
                        return NULL;
                }
                strstrip(c);
                return c;
        }
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *text = NULL;
                int r = rootfs_read_file(rfs, files[i].path, 0, files[i].max, &text, NULL, NULL);
                if (r < 0) {
                        if (r != -ENOENT && r != -ENOTDIR) {
                                _cleanup_free_ char *shown = rootfs_display(rfs, files[i].path);
                                _cleanup_free_ char *why = rootfs_read_strerror(r, files[i].max);
                                rootfs_warn(rfs, _("%s: %s; idlecfg assumes it sets no kernel parameters"),
                                            shown, why);
                        }
                        continue;
                }
                for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
                        if (i == 1 && !startswith(strstrip(line), "GRUB_CMDLINE_LINUX"))
                                continue;
                        if (i == 1 && strchr(line, '='))
                                line = strchr(line, '=') + 1;
                        for (char *q = line; *q; q++)
                                if (*q == '"' || *q == '\'' || *q == '\t')
                                        *q = ' ';
                        sb_appendf(&sb, "%s%s", sb.len ? " " : "", strstrip(line));
                }
        }
        return sb.len ? sb_steal(&sb) : NULL;
}

int plan_build(const struct inventory *inv, const struct plan_options *o, struct plan **ret,
               struct xerror *ret_error)
{
        struct planctx c = { .inv = inv };
        _cleanup_free_ char *name = NULL, *why = NULL, *cmdline = NULL, *moddir = NULL, *note = NULL;
        struct xerror pe = {};
        struct xerror he = {};
        struct hwdb *hwdb = NULL;
        struct modctx *own_mc = NULL;
        struct profile *profile = NULL;
        struct plan *p;
        size_t n_warn;
        const struct xerror *warn;
        const struct knob_family *const *fam;
        size_t n_fam;
        int r;

        if (o->profile_reason) {
                name = xstrdup(o->profile);
                why = xstrdup(o->profile_reason);
                r = 0;
        } else
                r = profile_select_rootfs(inv->rfs, o->profile, kv_get(&inv->platform, "chassis_type"), &name,
                                          &why, &pe);
        if (r >= 0)
                r = profile_load_rootfs(inv->rfs, o->profiles_dir, name, &profile, &pe);
        if (r < 0) {
                error_move(ret_error, &pe);
                return r;
        }
        r = hwdb_load_rootfs_keys(inv->rfs, HWDB_FILES_REQUIRED, planner_hwdb_keys, &hwdb, &he);
        /* an IDLECFG_ value the planner does not know must not be ignored silently:
         * every loaded entry is checked, for present devices or not */
        if (r >= 0) {
                r = knob_hwdb_check(hwdb, &he);
                if (r < 0) {
                        hwdb_free(hwdb);
                        hwdb = NULL;
                }
        }
        if (r < 0) {
                error_move(ret_error, &he);
                profile_free(profile);
                return r;
        }
        p = xcalloc(1, sizeof(*p));
        p->profile = xstrdup(name);
        p->profile_reason = xstrdup(why);
        p->fingerprint = xstrdup(inv->fingerprint);
        p->kernel = inv->kernel ? xstrdup(inv->kernel) : NULL;
        /* what _KERNEL ranges compare (src/knobs/knob.c) */
        if (inv->kernel_version) {
                p->kernel_version = xstrdup(inv->kernel_version);
                p->kernel_version_source = xstrdup(strempty(inv->kernel_version_source));
        } else if (inv->kernel && kernel_release_abi_only(inv->kernel)) {
                p->kernel_version_source = xasprintf("unknown: %s names no upstream sublevel and the root does not "
                                                     "say it (%s); ranges that need it are not decided",
                                                     inv->kernel,
                                                     inv->kernel_version_source ? inv->kernel_version_source
                                                                                : "not looked up");
        } else if (inv->kernel) {
                p->kernel_version = xstrdup(inv->kernel);
                p->kernel_version_source = xstrdup("the release");
        }
        warn = hwdb_warnings(hwdb, &n_warn);
        for (size_t i = 0; i < n_warn; i++) {
                _cleanup_free_ char *w = xerror_format(&warn[i]);
                plan_add_warning(p, "%s", w);
        }
        cmdline = boot_cmdline(inv->rfs);
        /* detect loaded the target's module indexes; a hand-made inventory has none */
        c.mc = inv->mc;
        if (!c.mc && inv->kernel && !inv->moddir_note) {
                modctx_new(inv->rfs, inv->kernel, &own_mc, &moddir, &note);
                c.mc = own_mc;
        }
        c.hwdb = hwdb;
        c.profile = profile;
        c.plan = p;
        c.cmdline = cmdline;

        fam = knob_registry(&n_fam);
        for (size_t i = 0; i < n_fam; i++)
                if (fam[i]->plan)
                        fam[i]->plan(&c);
        warn_tools(&c);

        /* a module question found libkmod.so.2 (or the indexes) missing: the
         * answers it got are not the kernel's, and neither is this plan */
        {
                const char *kmod_why;
                r = modctx_error(c.mc, &kmod_why);
                if (r < 0) {
                        xerror_set_take(ret_error, NULL, 0, xstrdup(kmod_why));
                        modctx_free(own_mc);
                        plan_free(p);
                        hwdb_free(hwdb);
                        profile_free(profile);
                        return r;
                }
        }
        modctx_free(own_mc);
        hwdb_free(hwdb);
        profile_free(profile);
        *ret = p;
        return 0;
}
