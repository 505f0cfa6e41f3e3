/* verb-check.c: install --check for configuration management: whether a run
 * would change anything, in text, and as the state line of Salt's cmd.run */
#include "config.h"

#include "cli/verb-check.h"
#include "cli/verb-install.h"

static bool file_changes(const struct install_file *x)
{
        return x->action == A_WRITE || x->action == A_RESTORE;
}

void install_print_check(const struct install_result *r, const struct next_steps *steps, const char *root, FILE *out)
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

void install_print_salt(const struct install_result *r, const struct next_steps *steps, bool check, bool changed,
                        FILE *out)
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
