/* verb-apply.c: the printing side of apply, verify and rollback: text and JSON
 * from the results apply.c, verify.c and install.c return */
#include "config.h"

#include "base/json.h"
#include "cli/verb-apply.h"
#include "cli/verb-install.h"

void setting_json_place(struct json *j, const struct setting *s)
{
        json_kv_string(j, "knob", s->knob);
        json_kv_string(j, "device", s->device_name);
        json_kv_string(j, "devpath", s->device);
        json_kv_string(j, "attr", s->attr);
        json_kv_string(j, "module", s->module);
        json_kv_string(j, "param", s->param);
}

void apply_print(const struct apply_result *r, bool dry_run, FILE *out)
{
        for (size_t i = 0; i < r->n; i++) {
                const struct apply_entry *e = &r->v[i];
                const struct setting *s = e->s;

                switch (e->state) {
                case APPLY_LATER:
                        fprintf(out, _("  later: %s %s=%s: %s\n"), s->knob, strempty(s->param), s->value, e->why);
                        break;
                case APPLY_SYSCTL_ABSENT:
                        fprintf(out, _("  absent: %s %s=%s: the running kernel has no %s; nothing to set\n"),
                                s->knob, s->param, s->value, e->path);
                        break;
                case APPLY_SYSCTL_READONLY:
                        fprintf(out, _("  absent: %s %s=%s: %s is read-only in the running kernel; "
                                       "nothing to set\n"), s->knob, s->param, s->value, e->path);
                        break;
                case APPLY_MODULE_LATER:
                        fprintf(out, _("  later: %s %s.%s=%s: the module is not loaded or does not show the "
                                       "parameter; it takes effect when it loads\n"), s->knob, s->module, s->param,
                                s->value);
                        break;
                case APPLY_PARAM_READONLY:
                        fprintf(out, _("  later: %s %s.%s=%s: read-only at run time, it takes effect at the "
                                       "next boot or module load\n"), s->knob, s->module, s->param, s->value);
                        break;
                case APPLY_ABSENT:
                        fprintf(out, _("  absent: %s on %s: %s does not exist now; nothing to set\n"), s->knob,
                                setting_where(s), e->path);
                        break;
                case APPLY_READ_FAILED:
                        fprintf(out, _("  FAILED %s on %s: cannot read %s: %s (nothing written: the old value "
                                       "is needed to undo it)\n"), s->knob, setting_where(s), e->path,
                                strerror(-e->err));
                        break;
                case APPLY_WOULD_SET:
                        fprintf(out, _("  would set %s on %s: %s %s -> %s\n"), s->knob, setting_where(s), e->path,
                                e->old, s->value);
                        break;
                case APPLY_SET:
                        fprintf(out, _("  set %s on %s: %s %s -> %s\n"), s->knob, setting_where(s), e->path, e->old,
                                s->value);
                        break;
                case APPLY_REFUSED:
                        fprintf(out, _("  FAILED %s on %s: the kernel refused %s for %s: %s\n"), s->knob,
                                setting_where(s), s->value, e->path, strerror(-e->err));
                        break;
                case APPLY_UNDOING:
                        fprintf(out, _("Undoing the %zu settings this run changed (all or nothing; --keep-going "
                                       "applies what the kernel takes):\n"), e->n_undo);
                        break;
                case APPLY_UNDONE:
                        fprintf(out, _("  undid %s\n"), e->path);
                        break;
                case APPLY_UNDO_FAILED:
                        fprintf(out, _("  could not undo %s (%s): %s; \"idlecfg rollback\" will try again\n"),
                                e->path, setting_where(s), strerror(-e->err));
                        break;
                }
        }
        if (r->finished)
                fprintf(out, dry_run ? _("%zu settings would change, %zu already as planned, %zu take effect later or not at all now\n")
                                     : _("%zu settings changed, %zu already as planned, %zu take effect later or not at all now\n"),
                        dry_run ? r->n_would : r->n_changed, r->n_same, r->n_later);
}

void rollback_print(const struct rollback_result *r, bool values, FILE *out)
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

/* what a rollback left in the running kernel or the initramfs: each with the steps after which it is gone */
static void boot_lefts_json(const struct boot_lefts *l, struct json *j)
{
        json_key(j, "left_from_before_rollback");
        json_begin_array(j);
        for (size_t i = 0; i < l->n; i++) {
                const struct boot_left *x = &l->v[i];
                _cleanup_free_ char *w = xstrdup(x->holds);
                json_begin_object(j);
                json_kv_string(j, "what", x->what);
                json_kv_string(j, "where", x->where);
                json_key(j, "holds");
                json_begin_array(j);
                for (char *save = NULL, *word = strtok_r(w, " ", &save); word; word = strtok_r(NULL, " ", &save))
                        json_string(j, word);
                json_end_array(j);
                json_key(j, "gone_after");
                json_begin_array(j);
                for (size_t k = 0; k < x->steps.n; k++) {
                        json_begin_object(j);
                        json_kv_string(j, "id", x->steps.v[k].id);
                        json_key(j, "argv");
                        if (x->steps.v[k].argv) {
                                json_begin_array(j);
                                for (char **a = x->steps.v[k].argv; *a; a++)
                                        json_string(j, *a);
                                json_end_array(j);
                        } else
                                json_null(j);
                        json_end_object(j);
                }
                json_end_array(j);
                json_kv_bool(j, "reboot", x->reboot);
                json_end_object(j);
        }
        json_end_array(j);
}

static void boot_lefts_text(const struct boot_lefts *l, FILE *out)
{
        for (size_t i = 0; i < l->n; i++) {
                const struct boot_left *x = &l->v[i];
                struct strbuf ids = {};

                for (size_t k = 0; k < x->steps.n; k++)
                        sb_appendf(&ids, "%s%s", ids.len ? ", " : "", x->steps.v[k].id);
                if (streq(x->what, "kernel-cmdline"))
                        fprintf(out, _("left from before rollback: the running kernel's command line (%s) holds %s"),
                                x->where, x->holds);
                else
                        fprintf(out, _("left from before rollback: the initramfs %s holds %s"), x->where, x->holds);
                if (ids.len)
                        fprintf(out, x->reboot ? _(": gone after %s and a reboot\n") : _(": gone after %s\n"),
                                sb_str(&ids));
                else
                        fprintf(out, _(": gone after a reboot\n"));
                for (size_t k = 0; k < x->steps.n; k++) {
                        fputs("  * ", out);
                        for (char **a = x->steps.v[k].argv; a && *a; a++) {
                                if (a != x->steps.v[k].argv)
                                        fputc(' ', out);
                                print_shell_word(*a, out);
                        }
                        fputc('\n', out);
                }
                sb_free(&ids);
        }
}

static void verify_print_json(const struct verify_result *r, const struct plan *p, const struct next_steps *steps,
                              const struct boot_lefts *left, FILE *out)
{
        struct json j;

        json_init(&j, out);
        json_begin_object(&j);
        json_kv_int(&j, "schema", 1);
        json_kv_string(&j, "profile", p->profile);
        json_kv_string(&j, "profile_reason", p->profile_reason);
        json_kv_bool(&j, "installed", r->installed);
        json_key(&j, "settings");
        json_begin_array(&j);
        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                if (!s->value)
                        continue;
                json_begin_object(&j);
                setting_json_place(&j, s);
                json_kv_string(&j, "wanted", s->value);
                json_kv_string(&j, "actual", r->actual[i]);
                json_kv_string(&j, "state", verify_state_names[r->state[i]]);
                json_kv_string(&j, "mechanism", mechanism_to_string(s->mech));
                json_end_object(&j);
        }
        json_end_array(&j);
        json_key(&j, "blockers");
        json_begin_array(&j);
        for (size_t i = 0; i < r->n_blockers; i++) {
                const struct verify_blocker *b = &r->blockers[i];
                json_begin_object(&j);
                json_kv_string(&j, "device", b->d->name);
                json_kv_string(&j, "devpath", b->d->devpath);
                json_kv_string(&j, "class", b->d->class);
                json_kv_string(&j, "what", b->what);
                json_kv_string(&j, "knob", b->knob);
                json_kv_string(&j, "planned", b->s ? b->s->value : NULL);
                json_kv_string(&j, "reason", b->s ? b->s->reason : NULL);
                json_end_object(&j);
        }
        json_end_array(&j);
        verify_prereqs_json(&j, r->prereqs, r->n_prereqs);
        json_key(&j, "residency");
        json_begin_array(&j);
        for (size_t i = 0; i < _M_RES_MAX; i++) {
                if (!r->residency[i].have)
                        continue;
                json_begin_object(&j);
                json_kv_string(&j, "name", verify_residency_names[i]);
                json_kv_int(&j, "value", (long long) r->residency[i].value);
                json_kv_int(&j, "delta", (long long) r->residency[i].delta);
                json_end_object(&j);
        }
        json_end_array(&j);
        next_steps_print_json(steps, &j);
        boot_lefts_json(left, &j);
        json_end_object(&j);
        json_finish(&j);
}

void verify_prereqs_json(struct json *j, const struct verify_prereq *v, size_t n)
{
        json_key(j, "prerequisites");
        json_begin_array(j);
        for (size_t i = 0; i < n; i++) {
                json_begin_object(j);
                json_kv_string(j, "name", v[i].name);
                json_kv_bool(j, "met", v[i].met);
                json_kv_string(j, "what", v[i].what);
                json_end_object(j);
        }
        json_end_array(j);
}

void verify_print_prereqs(const struct verify_prereq *v, size_t n, FILE *out)
{
        size_t missing = 0;

        if (!n)
                return;
        for (size_t i = 0; i < n; i++)
                missing += !v[i].met;
        fprintf(out, _("Deep-idle prerequisites (the machine suspends to idle): %zu met, %zu missing\n"), n - missing,
                missing);
        for (size_t i = 0; i < n; i++)
                if (!v[i].met)
                        fprintf(out, "  %s: %s\n", v[i].name, v[i].what);
}

void verify_print(const struct verify_result *r, const struct plan *p, const struct next_steps *steps,
                  const struct boot_lefts *left, bool json, FILE *out)
{
        if (json) {
                verify_print_json(r, p, steps, left, out);
                return;
        }
        fprintf(out, _("Settings of profile %s (%s): %zu match, %zu drift, %zu missing, %zu take effect "
                       "later (boot or module load)\n"), p->profile, p->profile_reason, r->count[VERIFY_MATCH], r->count[VERIFY_DRIFT],
                r->count[VERIFY_MISSING], r->count[VERIFY_LATER]);
        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                if (!s->value || (r->state[i] != VERIFY_DRIFT && r->state[i] != VERIFY_MISSING))
                        continue;
                fprintf(out, "  %-7s %s %s %s: ", verify_state_names[r->state[i]], s->knob, setting_where(s),
                        s->attr ? s->attr : strempty(s->param));
                if (r->state[i] == VERIFY_DRIFT)
                        fprintf(out, _("wanted %s, is %s; "), s->value, r->actual[i]);
                else
                        fprintf(out, _("the attribute is gone; "));
                if (s->mech == MECH_LINK)
                        /* apply has no way to set it: only udevd, when the NIC is added */
                        fprintf(out, r->installed ? _("%s (installed; systemd-udevd sets it at the next boot)\n")
                                                  : _("%s (not installed: idlecfg install, then boot)\n"),
                                mechanism_to_string(s->mech));
                else if (r->installed && (s->mech == MECH_CMDLINE || s->mech == MECH_MODPROBE))
                        /* the kernel command line and modprobe.d (the initramfs too) act at boot */
                        fprintf(out, _("%s (installed; takes effect at the next boot, idlecfg apply sets it "
                                       "now)\n"), mechanism_to_string(s->mech));
                else
                        fprintf(out, r->installed ? _("%s (installed; idlecfg apply sets it now)\n")
                                                  : _("%s (not installed: idlecfg install, or apply for now)\n"),
                                mechanism_to_string(s->mech));
        }
        fprintf(out, r->n_blockers ? _("Idle blockers (%zu):\n") : _("Idle blockers: none found\n"), r->n_blockers);
        for (size_t i = 0; i < r->n_blockers; i++) {
                const struct verify_blocker *x = &r->blockers[i];
                fprintf(out, "  %s (%s): %s", x->d->name, x->d->class, x->what);
                if (x->s && !x->s->value)
                        fprintf(out, _("; kept on purpose: %s\n"), x->s->reason);
                else if (x->s)
                        fprintf(out, _("; knob %s, planned %s\n"), x->knob, x->s->value);
                else if (x->knob)
                        fprintf(out, _("; knob %s (not planned on this device)\n"), x->knob);
                else
                        fputc('\n', out);
        }
        verify_print_prereqs(r->prereqs, r->n_prereqs, out);
        for (size_t i = 0; i < _M_RES_MAX; i++)
                if (r->residency[i].have)
                        fprintf(out, _("Residency %s: %llu (+%llu in 0.25 s)\n"), verify_residency_names[i],
                                r->residency[i].value, r->residency[i].delta);
        next_steps_print_text(steps, _("The boot configuration still lacks what idlecfg installed; run:\n"), out);
        boot_lefts_text(left, out);
}
