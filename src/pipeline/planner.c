/* planner.c: build the plan: load hwdb and profile, run every knob family */
#include "config.h"

#include "root/grubenv.h"
#include "db/hwdb-load.h"
#include "root/modules.h"
#include "knobs/registry.h"
#include "pipeline/planner.h"
#include "pipeline/powertools.h"
#include "db/profile-select.h"
#include "pipeline/exclude.h"
#include "root/rootfs.h"
#include "root/target.h"

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
 * system; for a root or a chroot of the target, what its boot setup passes
 * (/etc/kernel/cmdline, and what grub-mkconfig gives the normal entries from
 * /etc/default/grub and /etc/default/grub.d: src/root/grubenv.c), as one line of
 * words. Only used to respect what the administrator set: a file that cannot
 * be used is a warning, and idlecfg assumes it sets nothing. */
#define CMDLINE_MAX (64u * 1024u)       /* /proc/cmdline, /etc/kernel/cmdline */
/* the words of TEXT onto SB, a blank between, without those of OWN */
static void own_words_out(struct strbuf *sb, char *text, const char *own)
{
        for (char *save = NULL, *w = strtok_r(text, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
                _cleanup_free_ char *theirs = own ? words_missing(own, w) : NULL;
                if (!own || *theirs)
                        sb_appendf(sb, "%s%s", sb->len ? " " : "", w);
        }
}

/* the kernel command line the target boots with, as far as the administrator
 * made it: idlecfg's own words (OWN, from its manifest) left out, and in the
 * running kernel's those of an earlier profile (DROPPED) too */
static char *boot_cmdline(const struct rootfs *rfs, const char *own, const char *dropped)
{
        _cleanup_free_ char *text = NULL, *grub = NULL;
        struct strbuf sb = {};
        int r;

        if (target_is_running_system(rfs)) {
                /* procfs: a regular file of size 0 */
                r = rootfs_read_file(rfs, "/proc/cmdline", 0, CMDLINE_MAX, &text, NULL, NULL);
                if (r < 0) {
                        _cleanup_free_ char *why = rootfs_why(rfs, "/proc/cmdline", r, CMDLINE_MAX);
                        rootfs_warn(rfs, _("/proc/cmdline: %s; idlecfg assumes the kernel command line sets "
                                           "nothing it plans"), why);
                        return NULL;
                }
                _cleanup_free_ char *both = dropped ? xasprintf("%s %s", own ? own : "", dropped) : NULL;
                own_words_out(&sb, text, both ? both : own);
                return sb_steal(&sb);
        }
        r = rootfs_read_file(rfs, "/etc/kernel/cmdline", 0, CMDLINE_MAX, &text, NULL, NULL);
        if (r >= 0)
                own_words_out(&sb, text, own);
        else if (r != -ENOENT && r != -ENOTDIR) {
                _cleanup_free_ char *shown = rootfs_display(rfs, "/etc/kernel/cmdline");
                _cleanup_free_ char *why = rootfs_why(rfs, "/etc/kernel/cmdline", r, CMDLINE_MAX);
                rootfs_warn(rfs, _("%s: %s; idlecfg assumes it sets no kernel parameters"), shown, why);
        }
        grub = grub_boot_cmdline(rfs);
        if (grub)
                sb_appendf(&sb, "%s%s", sb.len ? " " : "", grub);
        return sb.len ? sb_steal(&sb) : NULL;
}

/* ---- values per power source ---- */

/* does the profile give a key of family F a value per power source? */
static bool family_per_source(const struct knob_family *f, const struct profile *p)
{
        for (size_t k = 0; k < f->n_keys; k++) {
                const struct profile_setting *s = profile_get(p, f->keys[k].section ? f->keys[k].section : f->section,
                                                              f->keys[k].key);
                if (s && s->battery)
                        return true;
        }
        return false;
}

/* the same knob in the same place */
static bool same_place(const struct setting *a, const struct setting *b)
{
        return streq(a->knob, b->knob) && a->mech == b->mech && streq_ptr(a->device, b->device) &&
               streq_ptr(a->attr, b->attr) && streq_ptr(a->module, b->module) && streq_ptr(a->param, b->param);
}

/* a mechanism whose value has a file to write at run time */
static bool mech_live(const struct setting *s)
{
        switch (s->mech) {
        case MECH_UDEV:
                return s->device && s->attr;
        case MECH_MODPROBE:
        case MECH_TMPFILES:
        case MECH_CMDLINE:
                return s->module && s->param;
        case MECH_SYSCTL:
                return s->param;
        default:
                return false;
        }
}

/* a setting's reason on a machine without a system battery: written into the
 * files' comments, never translated */
#define ONE_SOURCE_NOTE \
        "one power source here (no system battery in /sys/class/power_supply): the AC value, no power-source switch"

/* Plan the families whose keys take a value per power source once more with
 * the battery values, and give each setting of the plan (the AC one) its
 * battery value where it differs. A setting only one of the two plans has
 * cannot be switched: a warning says so, and the plan keeps the AC side. */
static void plan_battery(struct planctx *c, const struct profile *profile, const struct knob_family *const *fam,
                         size_t n_fam)
{
        struct profile *bat = profile_for_source(profile, true);
        struct plan *p2 = xcalloc(1, sizeof(*p2));
        struct planctx c2 = *c;
        struct plan *p = c->plan;

        p2->profile = xstrdup(p->profile);
        c2.profile = bat;
        c2.plan = p2;
        for (size_t i = 0; i < n_fam; i++)
                if (fam[i]->plan && family_per_source(fam[i], profile))
                        fam[i]->plan(&c2);
        for (size_t i = 0; i < p2->n; i++) {
                const struct setting *b = &p2->v[i];
                struct setting *a = NULL;

                if (!b->value) {
                        /* skipped on battery (a quirk, a deny entry) but set on AC: the AC
                         * value stays on both sources, and the reason says why */
                        for (size_t k = 0; k < p->n && !a; k++)
                                if (p->v[k].value && b->device && streq(p->v[k].knob, b->knob) &&
                                    streq_ptr(p->v[k].device, b->device))
                                        a = &p->v[k];
                        if (a && b->reason) {
                                /* no battery: nothing is switched, one_source()'s note says so */
                                char *r = c->inv->system_battery ? xasprintf("%s; on battery: %s", a->reason, b->reason)
                                                                 : xasprintf("%s; %s", a->reason, ONE_SOURCE_NOTE);
                                free(a->reason);
                                a->reason = r;
                        }
                        continue;
                }
                for (size_t k = 0; k < p->n && !a; k++)
                        if (p->v[k].value && same_place(&p->v[k], b))
                                a = &p->v[k];
                if (!a) {
                        plan_warn_once(p, _("%s on %s: planned on battery only (%s); idlecfg cannot switch it, the "
                                            "AC plan stands"), b->knob, setting_where_name(b), b->value);
                        continue;
                }
                if (streq(a->value, b->value))
                        continue;
                if (!mech_live(a)) {
                        plan_warn_once(p, _("%s on %s: %s cannot change at run time; the AC value %s stands on "
                                            "battery too"), a->knob, setting_where_name(a),
                                       mechanism_to_string(a->mech), a->value);
                        continue;
                }
                a->value_battery = xstrdup(b->value);
        }
        plan_free(p2);
        profile_free(bat);
}

/* No system battery: one power source, nothing to switch. The AC values
 * stand alone, install writes no switch, and each setting's reason says so. */
static void one_source(struct plan *p, const struct inventory *inv)
{
        if (inv->system_battery)
                return;
        for (size_t i = 0; i < p->n; i++) {
                struct setting *s = &p->v[i];
                char *r;

                if (!s->value_battery)
                        continue;
                r = xasprintf("%s; %s", s->reason, ONE_SOURCE_NOTE);
                free(s->reason);
                s->reason = r;
                free(s->value_battery);
                s->value_battery = NULL;
        }
}

/* a new plan's head: the profile, the fingerprint, the kernel and the
 * version its _KERNEL ranges compare (src/knobs/knob.c), the boot scheme */
static struct plan *plan_head(const struct inventory *inv, const char *name, const char *why)
{
        struct plan *p = xcalloc(1, sizeof(*p));

        p->profile = xstrdup(name);
        p->profile_reason = xstrdup(why);
        p->fingerprint = xstrdup(inv->fingerprint);
        p->kernel = inv->kernel ? xstrdup(inv->kernel) : NULL;
        p->kernel_source = inv->kernel_source ? xstrdup(inv->kernel_source) : NULL;
        p->kernel_reason = inv->kernel_reason ? xstrdup(inv->kernel_reason) : NULL;
        boot_detect(inv->rfs, &p->boot);
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
        return p;
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
        struct conf_exclusions excl = {};
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
                r = profile_load_rootfs(inv->rfs, knob_profile_schema(), o->profiles_dir, name, &profile, &pe);
        /* idlecfg.conf's [exclude DEVICE] sections, whichever profile applies */
        if (r >= 0)
                r = conf_exclusions(inv->rfs, &excl, &pe);
        if (r >= 0)
                r = plan_exclude_check(&excl, &pe);
        if (r < 0) {
                error_move(ret_error, &pe);
                profile_free(profile);
                conf_exclusions_done(&excl);
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
                conf_exclusions_done(&excl);
                return r;
        }
        p = plan_head(inv, name, why);
        warn = hwdb_warnings(hwdb, &n_warn);
        for (size_t i = 0; i < n_warn; i++) {
                _cleanup_free_ char *w = xerror_format(&warn[i]);
                plan_add_warning(p, "%s", w);
        }
        cmdline = boot_cmdline(inv->rfs, o ? o->own_words : NULL, o ? o->dropped_words : NULL);
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
        p->boot_cmdline = cmdline ? xstrdup(cmdline) : NULL;

        fam = knob_registry(&n_fam);
        for (size_t i = 0; i < n_fam; i++)
                if (fam[i]->plan)
                        fam[i]->plan(&c);
        if (profile_has_per_source(profile))
                plan_battery(&c, profile, fam, n_fam);
        /* devices below an external-facing port: after both sources are planned */
        knob_removable_apply(&c);
        one_source(p, inv);
        warn_tools(&c);
        plan_exclude(p, inv, &excl);
        conf_exclusions_done(&excl);

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
