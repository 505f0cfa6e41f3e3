/* verb-install.c: the printing side of install (the verb and its checks are run-install.c's): its progress, the --dry-run
 * diff, the next steps and its JSON, from the result install.c returns */
#include "config.h"

#include <time.h>

#include "cli/diff.h"
#include "base/json.h"
#include "state/manifest.h"
#include "pipeline/powertools.h"
#include "engine/pstable.h"
#include "cli/verb-install.h"
#include "cli/run.h"
#include "cli/verb-plan.h"

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

void install_print(const struct install_result *r, FILE *out)
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

/* ---- the next steps (engine/next-steps.c finds them) ---- */

/* ARG as one word for a POSIX shell */
void print_shell_word(const char *arg, FILE *out)
{
        if (*arg && strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,+-@%") ==
                    strlen(arg)) {
                fputs(arg, out);
                return;
        }
        fputc('\'', out);
        for (const char *p = arg; *p; p++)
                if (*p == '\'')
                        fputs("'\\''", out);
                else
                        fputc(*p, out);
        fputc('\'', out);
}

void next_steps_print_text(const struct next_steps *s, const char *header, FILE *out)
{
        if (!s->n)
                return;
        fputs(header, out);
        for (size_t i = 0; i < s->n; i++) {
                const struct next_step *x = &s->v[i];
                fputs(x->boot ? "  * " : "    ", out);
                if (x->argv)
                        for (char **a = x->argv; *a; a++) {
                                if (a != x->argv)
                                        fputc(' ', out);
                                print_shell_word(*a, out);
                        }
                else if (x->remove)
                        fprintf(out, _("take these words out of the kernel command line of the boot loader: %s"),
                                x->words);
                else
                        fprintf(out, _("add these words to the kernel command line of the boot loader: %s"),
                                x->words);
                fprintf(out, "\n      (%s)\n", _(x->why));
        }
        if (next_steps_boot_incomplete(s))
                fputs(_("  *: the boot configuration lacks it until it has run (exit status 4)\n"), out);
}

/* one step as a JSON object */
static void step_json(const struct next_step *x, struct json *j)
{
        json_begin_object(j);
        json_kv_string(j, "id", x->id);
        bool exact = true;
        for (char **a = x->argv; a && *a; a++)
                exact = exact && json_utf8_valid(*a);
        json_key(j, "argv");
        if (x->argv && exact) {
                json_begin_array(j);
                for (char **a = x->argv; *a; a++)
                        json_string(j, *a);
                json_end_array(j);
        } else
                json_null(j);
        if (!exact) {
                /* a byte that is not UTF-8 (the root's path): a JSON string
                 * cannot hold it, the bytes of each argument in hex can */
                json_key(j, "argv_hex");
                json_begin_array(j);
                for (char **a = x->argv; *a; a++) {
                        struct strbuf h = {};
                        for (const unsigned char *c = (const unsigned char *) *a; *c; c++)
                                sb_appendf(&h, "%02x", *c);
                        json_string(j, sb_str(&h));
                        sb_free(&h);
                }
                json_end_array(j);
        }
        json_kv_bool(j, "boot", x->boot);
        /* untranslated: the same for every reader */
        json_kv_string(j, "why", x->why);
        if (x->words) {
                _cleanup_free_ char *w = xstrdup(x->words);
                json_key(j, "words");
                json_begin_array(j);
                for (char *save = NULL, *word = strtok_r(w, " \t\n", &save); word;
                     word = strtok_r(NULL, " \t\n", &save))
                        json_string(j, word);
                json_end_array(j);
        }
        if (x->acknowledged)
                /* when "idlecfg steps done" said it was done (seconds since the epoch) */
                json_kv_int(j, "acknowledged", x->acknowledged);
        json_end_object(j);
}

void next_steps_print_json(const struct next_steps *s, struct json *j)
{
        json_key(j, "next_steps");
        json_begin_array(j);
        for (size_t i = 0; i < s->n; i++)
                step_json(&s->v[i], j);
        json_end_array(j);
        json_kv_bool(j, "boot_incomplete", next_steps_boot_incomplete(s));
        if (s->n_acked) {
                /* said done by hand (idlecfg steps done): not pending */
                json_key(j, "steps_done_by_hand");
                json_begin_array(j);
                for (size_t i = 0; i < s->n_acked; i++)
                        step_json(&s->acked[i], j);
                json_end_array(j);
        }
}

void next_steps_print_acked(const struct next_steps *s, FILE *out)
{
        if (!s->n_acked)
                return;
        fputs(_("Boot steps done by hand, as \"idlecfg steps done\" said (not pending):\n"), out);
        for (size_t i = 0; i < s->n_acked; i++) {
                const struct next_step *x = &s->acked[i];
                time_t t = (time_t) x->acknowledged;
                struct tm tm;
                char stamp[32] = "?";

                if (gmtime_r(&t, &tm))
                        strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S UTC", &tm);
                fprintf(out, "    %s: ", x->id);
                if (x->argv)
                        for (char **a = x->argv; *a; a++) {
                                if (a != x->argv)
                                        fputc(' ', out);
                                print_shell_word(*a, out);
                        }
                else
                        fputs(x->words, out);
                fprintf(out, _("\n      (acknowledged by hand on %s)\n"), stamp);
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

void install_print_next_steps(const struct next_steps *s, const struct plan *p, bool commented, FILE *out)
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
void install_print_json(const struct install_result *r, const struct rootfs *rfs, const struct plan *p,
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
