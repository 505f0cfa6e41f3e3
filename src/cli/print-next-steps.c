/* print-next-steps.c: the boot steps left (engine/next-steps.c finds them),
 * as install, refresh, verify, rollback and steps print them: text for
 * people, JSON for scripts, and the steps said done by hand */
#include "config.h"

#include <time.h>

#include "base/json.h"
#include "cli/print-next-steps.h"

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
