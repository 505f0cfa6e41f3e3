/* verb-install.c: the verb install, which writes a plan into a root: the
 * checks before writing, the run (install.c), install --boot-steps, its exit
 * code, and what it prints: its progress, the --dry-run diff, the next
 * steps, its JSON, and install --check (a mode of install: whether a run
 * would change anything, in text and as the state line of Salt's cmd.run).
 * refresh installs through install_write() too. */
#include "config.h"

#include "base/json.h"
#include "cli/diff.h"
#include "cli/print-next-steps.h"
#include "cli/run.h"
#include "cli/verb-install.h"
#include "cli/verb-plan.h"
#include "cli/verbs.h"
#include "db/profile-select.h"
#include "engine/image.h"
#include "engine/install.h"
#include "engine/next-steps.h"
#include "engine/pstable.h"
#include "pipeline/powertools.h"
#include "root/target.h"
#include "state/firstboot.h"
#include "state/initramfs.h"
#include "state/manifest.h"

/* ---- what it prints ---- */

static const char *kind_name(enum target_kind k)
{
        switch (k) {
        case T_UDEV: return _("udev rules");
        case T_MODPROBE: return _("modprobe.d options");
        case T_TMPFILES: return _("tmpfiles.d lines");
        case T_SYSCTL: return _("sysctl.d lines");
        case T_NM: return _("NetworkManager defaults");
        case T_LINK: return _("systemd .link drop-in");
        case T_CMDLINE_KERNEL:
        case T_CMDLINE_GRUB:
        case T_CMDLINE_BOOTC:
        case T_CMDLINE_OWN: return _("kernel command line");
        case T_POWER: return _("power-source switch");
        case T_FIRSTBOOT: return _("first-boot unit enabled");
        case T_OTHER: break;
        }
        return _("file");
}

/* what install did, entry by entry in order (with --dry-run: the diffs) */
static void install_print(const struct install_result *r, FILE *out)
{
        for (size_t i = 0; i < r->n; i++) {
                const struct install_event *e = &r->v[i];

                switch (e->what) {
                case IE_WROTE:
                        fprintf(out, P_("  wrote %s (%s, %zu setting)\n", "  wrote %s (%s, %zu settings)\n",
                                        e->n_settings), e->path, kind_name(e->kind), e->n_settings);
                        break;
                case IE_CHANGED:
                        fprintf(out, P_("  changed %s (%s, %zu setting; the old file is kept for rollback)\n",
                                        "  changed %s (%s, %zu settings; the old file is kept for rollback)\n",
                                        e->n_settings), e->path, kind_name(e->kind), e->n_settings);
                        break;
                case IE_UPDATED:
                        fprintf(out, P_("  updated %s (%s, %zu setting)\n", "  updated %s (%s, %zu settings)\n",
                                        e->n_settings), e->path, kind_name(e->kind), e->n_settings);
                        break;
                case IE_OVERWROTE:
                        fprintf(out, _("  overwrote your changed %s (--force; your version is kept in %s)\n"),
                                e->path, BACKUP_DIR);
                        break;
                case IE_RESTORED_UNNEEDED:
                        fprintf(out, _("  restored %s: nothing of ours is needed there now\n"), e->path);
                        break;
                case IE_REMOVED_UNNEEDED:
                        fprintf(out, _("  removed %s: nothing of ours is needed there now\n"), e->path);
                        break;
                case IE_KEPT_BESIDE:
                        fprintf(out, _("  kept %s: it was changed since idlecfg wrote it; ours is "
                                       "beside it as %s%s (--force to overwrite)\n"), e->path, e->path, NEW_SUFFIX);
                        break;
                case IE_KEPT_LINK:
                        fprintf(out, _("  left %s as it is: the unit was disabled or enabled otherwise since "
                                       "idlecfg enabled it (--force to enable it again)\n"), e->path);
                        break;
                case IE_NOT_RECREATED:
                        fprintf(out, _("  did not recreate %s: it was deleted since idlecfg wrote "
                                       "it; ours is beside it as %s%s (--force to recreate)\n"),
                                e->path, e->path, NEW_SUFFIX);
                        break;
                case IE_KEPT_UNNEEDED:
                        fprintf(out, _("  kept %s: it was changed since idlecfg wrote it and is no longer "
                                       "needed (--force to restore the original)\n"), e->path);
                        break;
                case IE_NOTHING:
                        fprintf(out, _("Nothing to change: every file is as the plan wants it.\n"));
                        break;
                case IE_DIFF:
                        print_diff(out, e->name_a, e->a, e->name_b, e->b);
                        break;
                case IE_DIFF_KEPT:
                        fprintf(out, _("# %s was changed since idlecfg wrote it: it would be kept "
                                       "(--force to overwrite)\n"), e->path);
                        break;
                }
        }
}

static void print_steps_and_warnings(const struct next_steps *s, const struct plan *p, FILE *out)
{
        next_steps_print_text(s, s->running ? _("Next steps (idlecfg runs none of them):\n")
                                            : _("Next steps for the installer (idlecfg runs nothing in the target):\n"),
                              out);
        next_steps_print_acked(s, out);
        for (size_t i = 0; i < p->n_warnings; i++)
                fprintf(out, "%s %s\n", _("warning:"), p->warnings[i]);
}

/* what the installer runs next (next-steps.h), with the header for people,
 * then the plan's warnings; COMMENTED: each line a "# " comment, after
 * install --dry-run's diff */
static void install_print_next_steps(const struct next_steps *s, const struct plan *p, bool commented, FILE *out)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        FILE *f;

        if (!commented) {
                print_steps_and_warnings(s, p, out);
                return;
        }
        f = open_memstream(&text, &len);
        if (!f)
                return;
        print_steps_and_warnings(s, p, f);
        if (fclose(f) != 0)
                return;
        for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                fprintf(out, "# %s\n", line);
}

static const char *action_name(enum action a)
{
        switch (a) {
        case A_NONE: return "none";
        case A_WRITE: return "write";
        case A_RESTORE: return "restore";
        case A_DROP: return "drop";
        case A_KEEP_THEIRS: return "keep";
        case A_ADOPT: return "adopt";
        }
        return "none";
}

static const char *kind_key(enum target_kind k)
{
        switch (k) {
        case T_UDEV: return "udev";
        case T_MODPROBE: return "modprobe";
        case T_TMPFILES: return "tmpfiles";
        case T_SYSCTL: return "sysctl";
        case T_NM: return "networkmanager";
        case T_LINK: return "link";
        case T_CMDLINE_KERNEL:
        case T_CMDLINE_GRUB:
        case T_CMDLINE_BOOTC:
        case T_CMDLINE_OWN: return "cmdline";
        case T_POWER: return "power-source";
        case T_FIRSTBOOT: return "firstboot";
        case T_OTHER: break;
        }
        return "other";
}

/* how the words of the command-line file X reach the kernel: the file
 * itself (kernel-cmdline, grub, bootc-kargs), or a tool the next steps name
 * from the words of /etc/idlecfg/cmdline (grubby, bootc, rpm-ostree), or the
 * installer (file) */
static const char *cmdline_mechanism(const struct install_file *x, const struct plan *p)
{
        if (!x)
                return NULL;
        switch (x->kind) {
        case T_CMDLINE_KERNEL: return "kernel-cmdline";
        case T_CMDLINE_GRUB: return "grub";
        case T_CMDLINE_BOOTC: return "bootc-kargs";
        default: break;
        }
        if (p->boot.scheme == BOOT_GRUB_BLS)
                return "grubby";
        if (p->boot.scheme == BOOT_BOOTC && p->boot.booted)
                return "bootc";
        if (p->boot.scheme == BOOT_OSTREE)
                return "rpm-ostree";
        return "file";
}

/* "warnings": the other power tools that set the same knobs (code
 * "power-tool-conflict", the tool named), the plan's other warnings ("plan",
 * or their own code: "exclude-no-device", "exclude-module-wide")
 * and the root's files idlecfg could not use ("file"); the codes and names
 * untranslated, the messages for people. "power_tools": every tool found. */
static void install_print_warnings_json(const struct rootfs *rfs, const struct plan *p, const struct inventory *inv,
                                        const struct kvlist *preflight, struct json *j)
{
        json_key(j, "warnings");
        json_begin_array(j);
        /* about the root itself: "foreign-hardware", "image-machine-id" */
        for (size_t i = 0; preflight && i < preflight->n; i++) {
                json_begin_object(j);
                json_kv_string(j, "code", preflight->v[i].key);
                json_kv_string(j, "message", preflight->v[i].value);
                json_end_object(j);
        }
        for (size_t i = 0; i < p->n_warnings; i++) {
                const char *tool = NULL;
                for (size_t t = 0; t < inv->n_tools && !tool; t++) {
                        _cleanup_free_ char *w = power_tool_warning(&inv->tools[t]);
                        if (w && streq(w, p->warnings[i]))
                                tool = inv->tools[t].name;
                }
                json_begin_object(j);
                json_kv_string(j, "code", tool ? "power-tool-conflict" : plan_warning_code(p, p->warnings[i]));
                if (tool)
                        json_kv_string(j, "tool", tool);
                json_kv_string(j, "message", p->warnings[i]);
                json_end_object(j);
        }
        for (size_t i = 0; rfs->warnings && i < rfs->warnings->n; i++) {
                json_begin_object(j);
                json_kv_string(j, "code", "file");
                json_kv_string(j, "message", rfs->warnings->v[i]);
                json_end_object(j);
        }
        json_end_array(j);
        json_key(j, "power_tools");
        json_begin_array(j);
        for (size_t i = 0; i < inv->n_tools; i++) {
                json_begin_object(j);
                json_kv_string(j, "name", inv->tools[i].name);
                json_kv_bool(j, "enabled", inv->tools[i].enabled);
                json_kv_bool(j, "conflicts", inv->tools[i].conflicts);
                json_end_object(j);
        }
        json_end_array(j);
}

/* install --json: what was (or, with --dry-run, would be) done, and the words
 * of the kernel command line as an array; TEXT is what the text output says */
static void install_print_json(const struct install_result *r, const struct rootfs *rfs, const struct plan *p,
                        const struct inventory *inv, const struct next_steps *steps, const struct kvlist *warnings,
                        bool dry_run, int changes, const char *text, FILE *out)
{
        struct json j;

        json_init(&j, out);
        json_begin_object(&j);
        json_kv_int(&j, "schema", 1);
        json_kv_string(&j, "version", PACKAGE_VERSION);
        json_kv_string(&j, "root", rfs->path);
        plan_json_identity(&j, p);
        plan_json_boot(&j, p);
        json_kv_bool(&j, "dry_run", dry_run);
        json_kv_bool(&j, "changed", changes > 0);
        json_key(&j, "files");
        json_begin_array(&j);
        for (size_t i = 0; i < r->n_files; i++) {
                const struct install_file *x = &r->files[i];
                if (!x->wanted && x->action == A_NONE)
                        continue;       /* nothing of ours wanted there, and nothing there */
                json_begin_object(&j);
                json_kv_string(&j, "path", x->path);
                json_kv_string(&j, "kind", kind_key(x->kind));
                json_kv_string(&j, "action", action_name(x->action));
                json_kv_int(&j, "settings", (long long) x->n_settings);
                json_end_object(&j);
        }
        json_end_array(&j);
        json_key(&j, "cmdline");
        if (r->cmdline_words) {
                _cleanup_free_ char *w = xstrdup(r->cmdline_words);
                const struct install_file *x = NULL;
                for (size_t i = 0; i < r->n_files && !x; i++)
                        if (r->files[i].kind >= T_CMDLINE_KERNEL && r->files[i].kind <= T_CMDLINE_OWN &&
                            r->files[i].wanted)
                                x = &r->files[i];
                json_begin_object(&j);
                json_kv_string(&j, "path", x ? x->path : NULL);
                json_kv_string(&j, "mechanism", cmdline_mechanism(x, p));
                json_key(&j, "words");
                json_begin_array(&j);
                for (char *save = NULL, *word = strtok_r(w, " ", &save); word; word = strtok_r(NULL, " ", &save))
                        json_string(&j, word);
                json_end_array(&j);
                json_end_object(&j);
        } else
                json_null(&j);
        next_steps_print_json(steps, &j);
        install_print_warnings_json(rfs, p, inv, warnings, &j);
        if (dry_run)
                json_kv_string(&j, "diff", text);
        else {
                _cleanup_free_ char *l = xstrdup(text);
                json_key(&j, "messages");
                json_begin_array(&j);
                for (char *save = NULL, *line = strtok_r(l, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                        json_string(&j, line + strspn(line, " "));
                json_end_array(&j);
        }
        json_end_object(&j);
        json_finish(&j);
}

/* ---- install --check ---- */

static bool file_changes(const struct install_file *x)
{
        return x->action == A_WRITE || x->action == A_RESTORE;
}

/* install --check: one line per file that would change, then the verdict;
 * with no file to change, the boot steps STEPS still lacks (exit 4) */
static void install_print_check(const struct install_result *r, const struct next_steps *steps, const char *root,
                                FILE *out)
{
        size_t n = 0, kept = 0;

        for (size_t i = 0; i < r->n_files; i++) {
                const struct install_file *x = &r->files[i];
                if (file_changes(x)) {
                        fprintf(out, x->action == A_RESTORE ? _("  would restore %s\n")
                                     : x->wanted ? _("  would write %s\n") : _("  would remove %s\n"), x->path);
                        n++;
                } else if (x->action == A_KEEP_THEIRS) {
                        fprintf(out, _("  would keep %s: it was changed since idlecfg wrote it\n"), x->path);
                        kept++;
                }
        }
        if (n) {
                /* the words of an earlier profile the boot entries hold: their removal, as install names it */
                struct next_steps gone = *steps;
                _cleanup_free_ struct next_step *v = xcalloc(steps->n ? steps->n : 1, sizeof(*v));
                gone.v = v;
                gone.n = 0;
                for (size_t i = 0; i < steps->n; i++)
                        if (steps->v[i].remove || streq(steps->v[i].id, "grubby-remove-args") ||
                            streq(steps->v[i].id, "rpm-ostree-kargs-delete"))
                                v[gone.n++] = steps->v[i];
                fprintf(out, P_("%zu file in %s would change (--diff shows how).\n",
                                "%zu files in %s would change (--diff shows how).\n", n), n, root);
                next_steps_print_text(&gone, _("The boot entries would still hold words of the earlier profile "
                                               "(exit 4 after install); run:\n"), out);
        } else if (next_steps_boot_incomplete(steps)) {
                /* work to do all the same: what install says (exit 4) until the step has run */
                _cleanup_free_ char *header = xasprintf(_("No file would change in %s, but its boot configuration "
                                                          "still lacks what idlecfg installed (exit 4); run:\n"),
                                                        root);
                next_steps_print_text(steps, header, out);
        } else
                fprintf(out, _("Nothing would change in %s.\n"), root);
}

/* the ids of the boot steps, comma-separated: words without '=' or quotes */
static char *boot_step_ids(const struct next_steps *steps)
{
        struct strbuf sb = {};

        for (size_t i = 0; i < steps->n; i++)
                if (steps->v[i].boot) {
                        if (sb.s)
                                sb_putc(&sb, ',');
                        sb_append(&sb, steps->v[i].id);
                }
        return sb_steal(&sb);
}

/* the last line Salt's cmd.run reads with stateful: True:
 * changed=yes|no comment='...' [files=N] boot_step_pending=yes|no (no '=' or
 * quote in the comment; shlex-safe). CHECK: a check (would), else a run
 * (did); CHANGED: install_run() > 0. A boot step STEPS still lacks is work
 * to do: changed=yes, as install --check exits 4 */
static void install_print_salt(const struct install_result *r, const struct next_steps *steps, bool check,
                               bool changed, FILE *out)
{
        bool pending = next_steps_boot_incomplete(steps);
        _cleanup_free_ char *ids = pending ? boot_step_ids(steps) : NULL;
        size_t n = 0;

        for (size_t i = 0; i < r->n_files; i++)
                n += file_changes(&r->files[i]);
        /* untranslated: a state line for a program; Salt splits each word at
         * its one '=' (shlex, then split("=")): no '=' or quote inside. A
         * boot step still pending is work to do, as install --check's exit 4 */
        if (!changed && !pending)
                fprintf(out, "changed=no comment='idlecfg: nothing %s, every file is as the plan wants it' "
                        "boot_step_pending=no\n", check ? "would change" : "changed");
        else if (!changed)
                fprintf(out, "changed=yes comment='idlecfg: no file %s; the boot configuration still lacks a "
                        "step: %s' files=0 boot_step_pending=yes\n", check ? "would change" : "changed", ids);
        else
                fprintf(out, "changed=yes comment='idlecfg: %zu file%s %s' files=%zu boot_step_pending=%s\n", n,
                        n == 1 ? "" : "s", check ? "would change" : "changed", n, pending ? "yes" : "no");
}

/* ---- the run ---- */

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
void hand_on_boot_steps(const struct run *c, const struct next_steps *steps)
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
int install_write(struct run *c, bool json, bool take_effect)
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

/* the boot steps the root still lacks, run (their commands as the steps
 * give them: "chroot DIR ..." for --root DIR): 0 when none is left, 4 when a
 * step by hand is left, 3 when a command failed */
int install_boot_steps(struct run *c)
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

/* install --boot-steps, for installers: install, then run the boot steps
 * it leaves (update-initramfs, update-grub, kernel-install; through chroot
 * for --root DIR). 0, 4 (a step by hand is left), or the failure's code. */
static int install_with_boot_steps(struct run *c)
{
        int r = install_write(c, false, false);

        return r == EXIT_BOOT_INCOMPLETE ? install_boot_steps(c) : r;
}

static int check_install(const struct args *a, int argc, char **argv)
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

/* install: install_write(), or install_with_boot_steps() with --boot-steps */
static int do_install(struct run *c, int argc, char **argv)
{
        return c->a->boot_steps ? install_with_boot_steps(c) : install_write(c, c->a->json, false);
}

const struct verb verb_install = {
        .name = "install", .min_args = 0, .max_args = 0, .needs = VERB_LOCK | VERB_PLAN | VERB_STATUS | VERB_MANIFEST,
        .check = check_install, .run = do_install,
        .help = N_("Write the configuration files into the root, with a manifest"),
        .options = O_PLANNING | O_JSON | O_DRY_RUN | O_FORCE | O_WAIT | O_REFUSE_CONFLICTS | O_IMAGE | O_CHECK |
                   O_DIFF | O_FORMAT | O_BOOT_STEPS,
};
