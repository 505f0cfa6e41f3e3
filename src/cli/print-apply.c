/* print-apply.c: what apply writes and verify checks, as apply, power-source, verify and measure print it:
 * apply's result, a setting's place in JSON, the platform prerequisites of deep idle (verb-apply.c,
 * verb-power-source.c, verb-verify.c and verb-measure.c share them; none of them includes another for these) */
#include "config.h"

#include "base/json.h"
#include "cli/print-apply.h"

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
