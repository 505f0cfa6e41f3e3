/* verb-verify.c: the verb verify: the running system compared with the
 * plan, the idle blockers, and what it prints: text and JSON from the
 * result verify.c returns (Prometheus and Nagios: monitor.c) */
#include "config.h"

#include "base/json.h"
#include "cli/monitor.h"
#include "cli/print-apply.h"
#include "cli/print-next-steps.h"
#include "cli/run.h"
#include "cli/verb-power-source.h"
#include "cli/verbs.h"
#include "engine/next-steps.h"
#include "engine/rollback.h"
#include "engine/verify.h"
#include "state/status.h"

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
                else if (streq(x->what, "boot-config"))
                        fprintf(out, _("left from before rollback: the boot configuration (grub.cfg, the boot "
                                       "entries or a unified kernel image) holds %s"), x->holds);
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

/* what this run could not read for want of privilege, and the status file
 * taken for it (ST, NULL: none consulted) */
static void verify_denied_json(const struct status *st, struct json *j)
{
        size_t n;
        const struct denied *d = denied_list(&n);

        json_key(j, "unreadable");
        json_begin_array(j);
        for (size_t i = 0; i < n; i++) {
                json_begin_object(j);
                json_kv_string(j, "path", d[i].path);
                json_kv_string(j, "error", strerror(-d[i].err));
                json_end_object(j);
        }
        json_end_array(j);
        json_key(j, "status_file");
        if (!st) {
                json_null(j);
                return;
        }
        json_begin_object(j);
        json_kv_string(j, "path", STATUS_PATH);
        json_kv_string(j, "verb", st->verb);
        json_kv_int(j, "time", st->time);
        json_kv_int_or_null(j, "compared", st->compared > 0, st->compared);
        json_kv_int_or_null(j, "drift", st->drift >= 0, st->drift);
        json_kv_int_or_null(j, "missing", st->missing >= 0, st->missing);
        json_kv_bool(j, "boot_step_pending", st->boot_step_pending);
        json_end_object(j);
}

/* the runtime power verify read for the plan's setting I, NULL: none */
static const struct verify_runtime *runtime_of(const struct verify_result *r, size_t i)
{
        for (size_t k = 0; k < r->n_runtime; k++)
                if (r->runtime[k].setting == i)
                        return &r->runtime[k];
        return NULL;
}

static void runtime_json(const struct verify_runtime *x, struct json *j)
{
        json_key(j, "runtime");
        if (!x) {
                json_null(j);
                return;
        }
        json_begin_object(j);
        json_kv_string(j, "state", verify_runtime_names[x->state]);
        json_kv_string(j, "status", x->status);
        json_kv_string(j, "power_state", x->power_state);
        json_kv_string(j, "real_power_state", x->real_power_state);
        json_kv_int_or_null(j, "suspended_time_ms", x->suspended_ms >= 0, x->suspended_ms);
        json_kv_string(j, "why", x->why);
        json_end_object(j);
}

/* the runtime power of the devices the plan lets suspend: D3cold reached,
 * runtime-suspended short of it, or awake, with the evidence; why not D3cold
 * is the device's idle blocker, printed above */
static void runtime_text(const struct verify_result *r, FILE *out)
{
        if (r->n_runtime)
                fprintf(out, _("Runtime power of the devices the plan lets suspend:\n"));
        for (size_t i = 0; i < r->n_runtime; i++) {
                const struct verify_runtime *x = &r->runtime[i];
                struct strbuf ev = {};

                sb_appendf(&ev, "runtime_status %s, power_state %s", x->status ? x->status : "?",
                           x->power_state ? x->power_state : "-");
                if (x->real_power_state)
                        sb_appendf(&ev, ", firmware_node/real_power_state %s", x->real_power_state);
                fprintf(out, "  %s (%s): ", x->d->name, x->d->class);
                if (x->state == VERIFY_RT_D3COLD)
                        fprintf(out, _("D3cold reached (%s)"), sb_str(&ev));
                else if (x->state == VERIFY_RT_SUSPENDED && x->power_state)
                        fprintf(out, _("runtime-suspended in %s, not D3cold (%s)"), x->power_state, sb_str(&ev));
                else if (x->state == VERIFY_RT_SUSPENDED)
                        fprintf(out, _("runtime-suspended, D3cold not shown (%s; no power_state before Linux 5.11)"),
                                sb_str(&ev));
                else
                        fprintf(out, _("not runtime-suspended (%s)"), sb_str(&ev));
                if (x->suspended_ms >= 0)
                        fprintf(out, _("; suspended %.1f s in all since it was added"), (double) x->suspended_ms / 1000);
                fputs(x->why ? _("; why not D3cold: its idle blocker above\n") : "\n", out);
                sb_free(&ev);
        }
}

static void verify_print_json(const struct verify_result *r, const struct plan *p, const struct next_steps *steps,
                              const struct boot_lefts *left, const struct status *st, FILE *out)
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
                runtime_json(runtime_of(r, i), &j);
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
        /* the file the text names for the command-line settings counted missing */
        json_kv_string(&j, "grub_dropped_by", r->grub_dropped_by);
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
        verify_denied_json(st, &j);
        json_end_object(&j);
        json_finish(&j);
}

/* verify's result as text, or as JSON (schema in idlecfg(8)); ST: the status
 * file taken for what this run could not read (NULL: none) */
static void verify_print(const struct verify_result *r, const struct plan *p, const struct next_steps *steps,
                         const struct boot_lefts *left, const struct status *st, bool json, FILE *out)
{
        if (json) {
                verify_print_json(r, p, steps, left, st, out);
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
                else if (s->mech == MECH_CMDLINE && r->grub_dropped_by) {
                        /* no attribute gone, no next boot that brings it: a later file overrides the words */
                        fprintf(out, _("%s: never at a boot: %s, read after idlecfg's file, sets GRUB's kernel command "
                                       "line without its words; make that file keep them (or remove it), then "
                                       "update-grub\n"), mechanism_to_string(s->mech), r->grub_dropped_by);
                        continue;
                } else
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
        runtime_text(r, out);
        verify_print_prereqs(r->prereqs, r->n_prereqs, out);
        for (size_t i = 0; i < _M_RES_MAX; i++)
                if (r->residency[i].have)
                        fprintf(out, _("Residency %s: %llu (+%llu in 0.25 s)\n"), verify_residency_names[i],
                                r->residency[i].value, r->residency[i].delta);
        next_steps_print_text(steps, _("The boot configuration still lacks what idlecfg installed; run:\n"), out);
        next_steps_print_acked(steps, out);
        boot_lefts_text(left, out);
}

static int check_verify(const struct args *a, int argc, char **argv)
{
        if (a->format && !streq(a->format, "prometheus") && !streq(a->format, "text") && !streq(a->format, "json")) {
                fprintf(stderr, _("idlecfg: unknown --format '%s' for verify; valid: text, json, prometheus\n"),
                        a->format);
                return EXIT_USAGE;
        }
        if (a->output && !streq_ptr(a->format, "prometheus")) {
                fprintf(stderr, _("idlecfg: --output goes with --format prometheus\n"));
                return EXIT_USAGE;
        }
        if (a->nagios && (a->format || a->json)) {
                fprintf(stderr, _("idlecfg: --nagios prints the plugin's status line: not with --format or --json\n"));
                return EXIT_USAGE;
        }
        return nagios_check_args(a);
}

/* Some reads were refused (a user's run: root-only files, debugfs): the
 * status file the last writing run left (root's comparison) into *ST, said
 * on stderr; true when there is one to take. */
static bool verify_status_for_denied(const struct run *c, struct status *st)
{
        size_t n;
        _cleanup_free_ char *shown = rootfs_display(&c->rfs, STATUS_PATH);
        int r;

        (void) denied_list(&n);
        if (!n)
                return false;
        r = status_read(&c->rfs, st);
        if (r < 0) {
                fprintf(stderr, _("idlecfg: warning: %zu path(s) need root to read (below) and there is no status "
                                  "file to take for them (%s: %s): the verdict is of what this run could read\n"),
                        n, shown, strerror(-r));
                return false;
        }
        if (st->drift < 0 || st->missing < 0) {
                fprintf(stderr, _("idlecfg: warning: %zu path(s) need root to read (below); the status file %s "
                                  "holds no comparison: the verdict is of what this run could read\n"), n, shown);
                return true;
        }
        {
                time_t t = (time_t) st->compared;
                struct tm tm;
                char when[32] = "?";

                if (gmtime_r(&t, &tm))
                        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
                fprintf(stderr, _("idlecfg: %zu path(s) need root to read (below): taken from the status file %s, "
                                  "the running system as %s compared it at %s: %lld drift, %lld missing\n"),
                        n, shown, st->verb, when, st->drift, st->missing);
        }
        return true;
}

static int do_verify(struct run *c, int argc, char **argv)
{
        const struct args *a = c->a;
        _cleanup_(status_done) struct status st = {};
        bool have_status;
        _cleanup_(verify_result_free) struct verify_result res = {};
        _cleanup_free_ char *source = NULL;
        _cleanup_(next_steps_free) struct next_steps steps = {};
        _cleanup_(boot_lefts_free) struct boot_lefts left = {};
        const struct manifest *m;
        struct xerror e = {};
        int r, mr;

        /* values per power source: those of the source the supplies show now */
        power_source_for_verify(&c->rfs, c->plan, &source);
        /* one that exists but is refused is no "not installed": said, as verify_run() says it */
        mr = run_manifest(c, &m, &e);
        r = mr < 0 && mr != -ENOENT ? mr : verify_run_of(&c->rfs, c->plan, c->inv, m, &res, &e);
        if (r < 0)
                return report(r, &e, NULL);
        /* said in text, on stderr beside JSON; the plugin and the gauges stay as their readers parse them */
        if (source && !a->nagios && !streq_ptr(a->format, "prometheus"))
                fputs(source, a->json || streq_ptr(a->format, "json") ? stderr : stdout);
        /* what the boot configuration still lacks of what was installed */
        next_steps_init(&steps, &c->rfs);
        if (m)
                next_steps_boot_pending_of(&steps, &c->rfs, m);
        if (a->nagios) {
                r = verify_print_nagios(&res, c->plan, &steps, a, stdout);
                return flush_stdout() == EXIT_OK ? r : NAGIOS_UNKNOWN;
        }
        if (streq_ptr(a->format, "prometheus")) {
                if (a->output) {
                        _cleanup_free_ char *text = NULL, *why = NULL;
                        size_t len = 0;
                        FILE *f = open_memstream(&text, &len);
                        if (!f)
                                return report(-ENOMEM, &e, NULL);
                        verify_print_prometheus(&res, c->plan, &steps, f);
                        if (fclose(f) != 0)
                                return report(-ENOMEM, &e, NULL);
                        if (monitor_write_file(a->output, text, &why) < 0) {
                                fprintf(stderr, _("idlecfg: cannot write %s: %s\n"),
                                        a->output, why);
                                return EXIT_FAILURE_;
                        }
                } else
                        verify_print_prometheus(&res, c->plan, &steps, stdout);
                /* a monitoring system reads the gauges: drift is no failure of the run */
                return flush_stdout();
        }
        /* what a rollback took out and the running kernel or the initramfs still hold */
        boot_lefts_find_of(&c->rfs, mr, &left);
        have_status = verify_status_for_denied(c, &st);
        verify_print(&res, c->plan, &steps, &left, have_status ? &st : NULL, a->json || streq_ptr(a->format, "json"),
                     stdout);
        /* what needs root: the verdict of the last run that could read it */
        if (r > 0 || (have_status && st.drift + st.missing > 0))
                return EXIT_CHANGES;
        return next_steps_boot_incomplete(&steps) || left.n ? EXIT_BOOT_INCOMPLETE : EXIT_OK;
}

/* the gauges of a failed run: an error, not the old file looking fresh;
 * not under --nagios (refused with --format): the status line is all */
static int after_verify(const struct args *a, int r)
{
        if (r != EXIT_OK && streq_ptr(a->format, "prometheus") && !a->nagios &&
            monitor_prometheus_failed(a->output) < 0)
                return EXIT_FAILURE_;
        return r;
}

const struct verb verb_verify = {
        .name = "verify", .min_args = 0, .max_args = 0, .needs = VERB_PLAN | VERB_INSTALLED,
        .check = check_verify, .run = do_verify,
        .help = N_("Compare the running system with the plan; list idle blockers"),
        .options = O_PLANNING | O_JSON | O_FORMAT | O_NAGIOS | O_OUTPUT | O_WARNING | O_CRITICAL | O_TIMEOUT,
        .after_run = after_verify,
};
