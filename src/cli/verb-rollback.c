/* verb-rollback.c: the verb rollback [apply|install|all]: apply's values
 * and install's files undone exactly (rollback.c), and what it prints:
 * text and JSON from the result rollback.c returns */
#include "config.h"

#include "base/json.h"
#include "cli/print-next-steps.h"
#include "cli/run.h"
#include "cli/verb-measure-around.h"
#include "cli/verb-measure.h"
#include "cli/verbs.h"
#include "engine/apply.h"
#include "engine/next-steps.h"
#include "engine/rollback.h"
#include "state/state.h"

/* each entry of a rollback's result in order, then the last line when everything is undone;
 * VALUES: the rollback of apply (live values), else of install (files) */
static void rollback_print(const struct rollback_result *r, bool values, FILE *out)
{
        for (size_t i = 0; i < r->n; i++) {
                const struct rollback_entry *e = &r->v[i];

                switch (e->state) {
                case RB_UNREADABLE:
                        fprintf(out, _("  left %s: cannot read it: %s\n"), e->path, strerror(-e->err));
                        break;
                case RB_VALUE_CHANGED:
                        fprintf(out, _("  left %s alone: it is %s, not %s as idlecfg set it (someone changed it "
                                       "since; --force restores %s anyway)\n"), e->path, e->cur, e->set, e->old);
                        break;
                case RB_WRITE_FAILED:
                        fprintf(out, _("  could not restore %s to %s: %s\n"), e->path, e->old, strerror(-e->err));
                        break;
                case RB_VALUE_RESTORED:
                        fprintf(out, _("  restored %s: %s -> %s\n"), e->path, e->cur, e->old);
                        break;
                case RB_NOT_REGULAR:
                        fprintf(out, _("  left %s alone: it is no longer a regular file\n"), e->path);
                        break;
                case RB_FILE_RESTORED:
                        fprintf(out, _("  restored %s\n"), e->path);
                        break;
                case RB_FILE_REMOVED:
                        fprintf(out, _("  removed %s\n"), e->path);
                        break;
                case RB_FILE_CHANGED:
                        fprintf(out, _("  left %s alone: it was changed since idlecfg wrote it "
                                       "(--force restores the original anyway)\n"), e->path);
                        break;
                case RB_WORDS_REMOVED:
                        fprintf(out, _("  took idlecfg's words (%s) out of %s, which was changed since: the "
                                       "other words are kept\n"), e->set, e->path);
                        break;
                case RB_FILE_DELETED:
                        fprintf(out, _("  left %s alone: it was deleted since idlecfg wrote it "
                                       "(--force restores the original anyway)\n"), e->path);
                        break;
                }
        }
        if (r->done && values)
                fprintf(out, _("Every value idlecfg applied is as it was before (%zu restored).\n"), r->restored);
        else if (r->done)
                fprintf(out, _("Every file idlecfg installed is as it was before.\n"));
}

struct rollback_ctx {
        const struct run *c;
        const char *what;
        struct next_steps *steps;       /* what the boot artifacts still hold: the steps */
};

/* after the install's rollback: what the boot artifacts still hold of
 * what it put there (grub.cfg, the boot entries, a UKI, the initramfs), and
 * the steps that take it out, in STEPS and said on OUT; true when there is
 * any (exit 4) */
static bool rollback_boot_left(const struct run *c, const struct rollback_result *res, struct next_steps *steps,
                               FILE *out)
{
        next_steps_undo(steps, &c->rfs, res->boot_words, res->kernel, res->modprobe ? &res->modprobe_time : NULL);
        next_steps_print_text(steps, steps->running
                              ? _("The boot artifacts may still hold what idlecfg installed; run (idlecfg runs "
                                  "none of them):\n")
                              : _("The boot artifacts may still hold what idlecfg installed; next steps for the "
                                  "installer (idlecfg runs nothing in the target):\n"), out);
        return next_steps_boot_incomplete(steps);
}

static int rollback_change(void *userdata, FILE *out)
{
        const struct rollback_ctx *rc = userdata;
        const struct run *c = rc->c;
        static const struct {
                const char *part;
                int (*undo)(const struct rootfs *rfs, bool force, struct rollback_result *ret, struct xerror *ret_error);
                bool values;            /* live values (apply), or files (install) */
                const char *failed;
        } parts[] = {
                /* the live values first, then the files */
                { "apply", apply_rollback, true, N_("rollback of apply failed") },
                { "install", install_rollback, false, N_("rollback of install failed") },
        };
        struct xerror e = {};
        bool any = false;
        int r, code = EXIT_OK;

        for (size_t i = 0; i < ELEMENTSOF(parts) && (code == EXIT_OK || code == EXIT_CHANGES); i++) {
                if (!streq(rc->what, "all") && !streq(rc->what, parts[i].part))
                        continue;
                _cleanup_(rollback_result_free) struct rollback_result res = {};
                r = parts[i].undo(&c->rfs, c->a->force, &res, &e);
                rollback_print(&res, parts[i].values, out);
                if (r == 1 && !parts[i].values && res.boot_words) {
                        /* rolled back before, and a boot artifact still holds the words: said until its step ran */
                        fprintf(out, _("The files idlecfg installed in %s were rolled back before; its words (%s) "
                                       "are still in the boot configuration.\n"), c->rfs.path, res.boot_words);
                        any = true;
                        r = 0;
                }
                if (r == 0 && !parts[i].values && rollback_boot_left(c, &res, rc->steps, out))
                        code = EXIT_BOOT_INCOMPLETE;
                if (r == -EBUSY) {
                        /* some values or files were left alone: said, not a failure */
                        print_error(NULL, &e, strerror(-r));
                        xerror_done(&e);
                        code = EXIT_CHANGES;
                        any = true;
                } else if (r < 0)
                        code = report(r, &e, _(parts[i].failed));
                else
                        any = any || r == 0;
        }
        if (code == EXIT_OK && !any)
                fprintf(out, _("Nothing to roll back: no journal of apply and no manifest of install in %s.\n"),
                        c->rfs.path);
        return code;
}

static int check_rollback(const struct args *a, int argc, char **argv)
{
        const char *what = argc > 0 ? argv[0] : "all";

        if (!streq(what, "all") && !streq(what, "apply") && !streq(what, "install")) {
                fprintf(stderr, _("idlecfg: rollback takes apply, install or all, not '%s'\n"), what);
                return EXIT_USAGE;
        }
        /* JSON: with --measure the measurement's, else what was done and the
         * next steps (the plan's inputs are taken all the same, for a
         * script's wrapper that gives them to every verb) */
        return EXIT_OK;
}

/* TEXT's lines, each a string without its leading blanks; a newline inside
 * ROOT (the root's path, in the lines as it is) does not end a line */
static void json_lines(struct json *j, const char *text, const char *root)
{
        size_t rn = strlen(root);
        bool split = rn && strchr(root, '\n');
        struct strbuf line = {};

        for (const char *p = text; *p;) {
                if (split && strncmp(p, root, rn) == 0) {
                        sb_appendf(&line, "%s", root);
                        p += rn;
                        continue;
                }
                if (*p != '\n') {
                        sb_putc(&line, *p++);
                        continue;
                }
                p++;
                if (line.len)
                        json_string(j, sb_str(&line) + strspn(sb_str(&line), " "));
                sb_free(&line);
                line = (struct strbuf) {};
        }
        if (line.len)
                json_string(j, sb_str(&line) + strspn(sb_str(&line), " "));
        sb_free(&line);
}

/* rollback --json: {"schema", "root", "exit", "messages": [the text's lines],
 * "next_steps", "boot_incomplete"} */
static int rollback_json(struct rollback_ctx *rc)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        struct json j;
        int code;

        if (!f)
                return EXIT_FAILURE_;
        code = rollback_change(rc, f);
        if (fclose(f) != 0)
                return EXIT_FAILURE_;
        json_init(&j, stdout);
        json_begin_object(&j);
        json_kv_int(&j, "schema", 1);
        json_kv_string(&j, "root", rc->c->rfs.path);
        json_kv_int(&j, "exit", code);
        json_key(&j, "messages");
        json_begin_array(&j);
        json_lines(&j, text ? text : "", rc->c->rfs.path);
        json_end_array(&j);
        next_steps_print_json(rc->steps, &j);
        json_end_object(&j);
        json_finish(&j);
        return code;
}

static int do_rollback(struct run *c, int argc, char **argv)
{
        _cleanup_(next_steps_free) struct next_steps steps = {};
        struct rollback_ctx rc = { .c = c, .what = argc > 0 ? argv[0] : "all", .steps = &steps };

        next_steps_init(&steps, &c->rfs);
        if (c->a->json && !c->a->measure)
                return rollback_json(&rc);

        if (c->a->measure) {
                /* the plan only names knobs and reasons in the measurement: without one, measured all the same */
                struct measure_request q = { .seconds = c->a->measure, .json = c->a->json, .verbose = c->a->verbose };
                (void) run_plan(c);
                return measure_around(&q, "rollback", c->plan, c->plan ? c->inv : NULL, NULL, rollback_change, &rc);
        }
        return rollback_change(&rc, stdout);
}

const struct verb verb_rollback = {
        /* undoes whatever kernel: a --kernel the root lacks only warns */
        .name = "rollback", .min_args = 0, .max_args = 1,
        .needs = VERB_LOCK | VERB_STATUS | VERB_MANIFEST | VERB_ANY_KERNEL,
        .check = check_rollback, .run = do_rollback,
        .help = N_("Undo apply and/or install exactly: rollback [apply|install|all]"),
        .options = O_FORCE | O_WAIT | O_MEASURE | O_JSON | O_PLANNING, .synopsis = N_("[apply|install|all]"),
};
