/* verb-check.c: install --check for configuration management: whether a run
 * would change anything, in text, and as the state line of Salt's cmd.run */
#include "config.h"

#include "cli/verb-check.h"

static bool file_changes(const struct install_file *x)
{
        return x->action == A_WRITE || x->action == A_RESTORE;
}

void install_print_check(const struct install_result *r, const char *root, FILE *out)
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
        if (n)
                fprintf(out, P_("%zu file in %s would change (--diff shows how).\n",
                                "%zu files in %s would change (--diff shows how).\n", n), n, root);
        else
                fprintf(out, _("Nothing would change in %s.\n"), root);
}

void install_print_salt(const struct install_result *r, bool check, bool changed, FILE *out)
{
        size_t n = 0;

        for (size_t i = 0; i < r->n_files; i++)
                n += file_changes(&r->files[i]);
        /* untranslated: a state line for a program; Salt splits each word at
         * its one '=' (shlex, then split("=")): no '=' or quote inside */
        if (!changed)
                fprintf(out, "changed=no comment='idlecfg: nothing %s, every file is as the plan wants it'\n",
                        check ? "would change" : "changed");
        else
                fprintf(out, "changed=yes comment='idlecfg: %zu file%s %s' files=%zu\n", n, n == 1 ? "" : "s",
                        check ? "would change" : "changed", n);
}
