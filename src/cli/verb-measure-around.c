/* verb-measure-around.c: apply --measure and rollback --measure: one
 * measurement before the change and one after it has taken effect, compared device by
 * device and setting by setting (the measurements themselves: verb-measure.c) */
#include "config.h"

#include "base/json.h"
#include "cli/verb-measure-around.h"
#include "cli/print-measure.h"
#include "cli/verb-measure.h"

#define EXIT_FAIL 3
#define SETTLE_MARGIN_MS 1000u
#define SETTLE_MAX_MS 120000u

static size_t count_suspending(const struct measure_result *r)
{
        size_t n = 0;

        for (size_t i = 0; i < r->n_devs; i++)
                n += !r->devs[i].awake;
        return n;
}

/* per state name: the share of all CPUs' time in it */
static bool state_share(const struct measure_result *r, const char *name, double *ret)
{
        unsigned long long t = 0;
        size_t cpus = 0;

        for (size_t i = 0; i < r->n_cpus; i++)
                for (size_t k = 0; k < r->cpus[i].n_states; k++)
                        if (streq(r->cpus[i].states[k].name, name) && r->cpus[i].states[k].have) {
                                t += r->cpus[i].states[k].time_us;
                                cpus++;
                        }
        if (cpus == 0 || r->interval_us == 0)
                return false;
        *ret = (double) t * 100.0 / ((double) r->interval_us * (double) cpus);
        return true;
}

static void row(FILE *out, const char *what, const char *before, const char *after)
{
        fprintf(out, "  %-40s %14s %14s\n", what, before, after);
}

static void print_table(const struct measure_result *x, const struct measure_result *y, FILE *out)
{
        char b1[64], b2[64];

        row(out, "", _("before"), _("after"));
        snprintf(b1, sizeof(b1), "%zu/%zu", count_suspending(x), x->n_devs);
        snprintf(b2, sizeof(b2), "%zu/%zu", count_suspending(y), y->n_devs);
        row(out, _("devices suspended part or all of the time"), b1, b2);
        /* the state names of the first CPU (all CPUs share a driver) */
        for (size_t k = 0; y->n_cpus && k < y->cpus[0].n_states; k++) {
                const char *name = y->cpus[0].states[k].name;
                double v1, v2;
                _cleanup_free_ char *what = xasprintf(_("CPU idle %s (all CPUs)"), name);
                bool h1 = state_share(x, name, &v1), h2 = state_share(y, name, &v2);
                snprintf(b1, sizeof(b1), h1 ? "%.1f%%" : "-", v1);
                snprintf(b2, sizeof(b2), h2 ? "%.1f%%" : "-", v2);
                row(out, what, b1, b2);
        }
        if (y->n_cpus == 0)
                row(out, _("CPU idle"), _("no cpuidle"), _("no cpuidle"));
        for (size_t i = 0; i < _M_RES_MAX; i++) {
                if (x->residency[i].err < 0)
                        snprintf(b1, sizeof(b1), "%s", measure_absent_word(x->residency[i].err));
                else
                        snprintf(b1, sizeof(b1), "%.1f%%", measure_pct(x->residency[i].v, x->interval_us));
                if (y->residency[i].err < 0)
                        snprintf(b2, sizeof(b2), "%s", measure_absent_word(y->residency[i].err));
                else
                        snprintf(b2, sizeof(b2), "%.1f%%", measure_pct(y->residency[i].v, y->interval_us));
                row(out, measure_residency_names[i], b1, b2);
        }
        for (size_t i = 0; i < y->n_zones; i++) {
                const struct measure_zone *zy = &y->zones[i], *zx = NULL;
                _cleanup_free_ char *what = xasprintf("%s %s", zy->z->id, strempty(zy->z->name));
                for (size_t k = 0; k < x->n_zones && !zx; k++)
                        if (streq(x->zones[k].z->id, zy->z->id))
                                zx = &x->zones[k];
                if (zx && zx->err == 0)
                        snprintf(b1, sizeof(b1), "%.3f W", (double) measure_milliwatts(zx->delta_uj, x->interval_us) / 1000.0);
                else
                        snprintf(b1, sizeof(b1), "%s", measure_absent_word(zx ? zx->err : -ENOENT));
                if (zy->err == 0)
                        snprintf(b2, sizeof(b2), "%.3f W", (double) measure_milliwatts(zy->delta_uj, y->interval_us) / 1000.0);
                else
                        snprintf(b2, sizeof(b2), "%s", measure_absent_word(zy->err));
                row(out, what, b1, b2);
        }
        if (y->n_zones == 0)
                row(out, _("energy (powercap)"), _("no zones"), _("no zones"));
        for (size_t i = 0; i < y->n_bats; i++) {
                const struct measure_battery *by = &y->bats[i], *bx = NULL;
                _cleanup_free_ char *what = xasprintf(_("battery %s"), by->b->name);
                for (size_t k = 0; k < x->n_bats && !bx; k++)
                        if (streq(x->bats[k].b->name, by->b->name))
                                bx = &x->bats[k];
                if (bx && bx->have_energy && x->interval_us)
                        snprintf(b1, sizeof(b1), "%.3f W", (double) bx->drained_uwh * 3600.0 / (double) x->interval_us);
                else
                        snprintf(b1, sizeof(b1), "-");
                if (by->have_energy && y->interval_us)
                        snprintf(b2, sizeof(b2), "%.3f W", (double) by->drained_uwh * 3600.0 / (double) y->interval_us);
                else
                        snprintf(b2, sizeof(b2), "-");
                row(out, what, b1, b2);
        }
        {
                unsigned long long t1 = 0, t2 = 0;
                for (size_t i = 0; i < x->n_irqs; i++)
                        t1 += x->irqs[i].delta;
                for (size_t i = 0; i < y->n_irqs; i++)
                        t2 += y->irqs[i].delta;
                if (x->b->irq_err < 0 || x->a->irq_err < 0)
                        snprintf(b1, sizeof(b1), "-");
                else
                        snprintf(b1, sizeof(b1), "%.1f", x->interval_us ? (double) t1 * 1e6 / (double) x->interval_us : 0.0);
                if (y->b->irq_err < 0 || y->a->irq_err < 0)
                        snprintf(b2, sizeof(b2), "-");
                else
                        snprintf(b2, sizeof(b2), "%.1f", y->interval_us ? (double) t2 * 1e6 / (double) y->interval_us : 0.0);
                row(out, _("interrupts per second"), b1, b2);
        }
}

static void print_change(const struct measure_change *c, FILE *out)
{
        const struct measure_dev *x = c->before, *y = c->after;

        fprintf(out, "  %s (%s): ", y->d->name, measure_dev_label(y));
        if (x->have_times && y->have_times)
                fprintf(out, _("%.1f%% -> %.1f%% suspended"), measure_pct(x->suspended_ms, x->suspended_ms + x->active_ms),
                        measure_pct(y->suspended_ms, y->suspended_ms + y->active_ms));
        else
                fprintf(out, "%s -> %s", x->d->status, y->d->status);
        if (!c->cause)
                fprintf(out, _("; no runtime PM setting changed on it or its chain (another setting, or its use)\n"));
        else if (c->s && c->s->value)
                fprintf(out, _("; power/control %s -> %s on %s: %s (%s)\n"), strempty(c->control_before),
                        strempty(c->control_after), c->cause->name, c->s->knob, c->s->reason);
        else
                fprintf(out, _("; power/control %s -> %s on %s\n"), strempty(c->control_before),
                        strempty(c->control_after), c->cause->name);
}

static void json_change(struct json *j, const struct measure_change *c)
{
        const struct measure_dev *x = c->before, *y = c->after;

        json_begin_object(j);
        json_kv_string(j, "device", y->d->name);
        json_kv_string(j, "devpath", y->d->devpath);
        json_kv_string(j, "change", c->now_suspends ? "suspends" : "awake");
        json_key(j, "suspended_percent_before");
        if (x->have_times && x->active_ms + x->suspended_ms > 0)
                json_milli(j, measure_share_milli(x->suspended_ms, x->active_ms + x->suspended_ms));
        else
                json_null(j);
        json_key(j, "suspended_percent_after");
        if (y->have_times && y->active_ms + y->suspended_ms > 0)
                json_milli(j, measure_share_milli(y->suspended_ms, y->active_ms + y->suspended_ms));
        else
                json_null(j);
        json_kv_string(j, "cause", c->cause ? c->cause->name : NULL);
        json_kv_string(j, "cause_devpath", c->cause ? c->cause->devpath : NULL);
        json_kv_string(j, "control_before", c->control_before);
        json_kv_string(j, "control_after", c->control_after);
        json_kv_string(j, "knob", c->s ? c->s->knob : NULL);
        json_kv_string(j, "reason", c->s ? c->s->reason : NULL);
        json_end_object(j);
}

/* everything one before/after run holds, freed in one place */
struct around {
        struct measure_sample *a0, *a1, *mid, *b0, *b1;
        struct measure_result *before, *after;
        struct measure_floor floor_before, floor_after;
        struct measure_change *ch;
        size_t *chain;
        char *log;
        char **live_before, **live_after;       /* each setting's live value (measure_live_values()) */
        size_t n_live;
        struct measure_effects effects;
        struct measure_session ss;
};

static void around_done(struct around *x)
{
        measure_effects_free(&x->effects);
        measure_live_free(x->live_before, x->n_live);
        measure_live_free(x->live_after, x->n_live);
        measure_floor_done(&x->floor_before);
        measure_floor_done(&x->floor_after);
        measure_session_done(&x->ss);
        free(x->ch);
        free(x->chain);
        free(x->log);
        measure_result_free(x->before);
        measure_result_free(x->after);
        measure_sample_free(x->a0);
        measure_sample_free(x->a1);
        measure_sample_free(x->mid);
        measure_sample_free(x->b0);
        measure_sample_free(x->b1);
}

/* apply's or rollback's own lines, one string each */
static void json_log(struct json *j, const char *log)
{
        json_key(j, "log");
        json_begin_array(j);
        while (log && *log) {
                const char *nl = strchr(log, '\n');
                _cleanup_free_ char *l = nl ? xstrndup(log, (size_t) (nl - log)) : xstrdup(log);
                json_string(j, l);
                log = nl ? nl + 1 : log + strlen(log);
        }
        json_end_array(j);
}

/* measure's JSON around a change begins: the change, its exit code, the
 * profile, and the change's own lines */
static void around_json_begin(struct json *j, const char *what, int code, const struct plan *p, const char *log)
{
        json_init(j, stdout);
        json_begin_object(j);
        json_kv_int(j, "schema", 1);
        json_kv_string(j, "change", what);
        json_kv_int(j, "exit", code);
        json_kv_string(j, "profile", p ? p->profile : NULL);
        json_log(j, log);
}

/* measure's JSON after the change: the settling, what changed, both intervals */
static void around_json(const struct around *x, const char *what, int code, const struct plan *p,
                        unsigned long long settle, const struct measure_sample *mid, size_t n_chain, size_t n_ch)
{
        struct json j;

        around_json_begin(&j, what, code, p, x->log);
        json_kv_int(&j, "settle_ms", (long long) settle);
        json_key(&j, "settle_chain");
        json_begin_array(&j);
        for (size_t k = 0; k < n_chain; k++)
                json_string(&j, mid->devs[x->chain[k]].name);
        json_end_array(&j);
        json_key(&j, "changes");
        json_begin_array(&j);
        for (size_t i = 0; i < n_ch; i++)
                json_change(&j, &x->ch[i]);
        json_end_array(&j);
        json_effects(&j, x->before, x->after, &x->floor_before, &x->floor_after, &x->effects);
        json_key(&j, "before");
        json_begin_object(&j);
        measure_print_json_body(&j, x->before);
        json_end_object(&j);
        json_key(&j, "after");
        json_begin_object(&j);
        measure_print_json_body(&j, x->after);
        json_end_object(&j);
        json_end_object(&j);
        json_finish(&j);
}

/* measure's text after the change: the table, what suspends now and what no longer does */
static void around_text(const struct around *x, const struct measure_request *q, const char *what, size_t n_ch)
{
        size_t ns = 0, na = 0;

        printf(_("\nBefore and after %s (%.1f s and %.1f s):\n"), what, (double) x->before->interval_us / 1e6,
               (double) x->after->interval_us / 1e6);
        print_table(x->before, x->after, stdout);
        for (size_t i = 0; i < n_ch; i++)
                ns += x->ch[i].now_suspends, na += !x->ch[i].now_suspends;
        printf(ns ? _("Newly suspended (%zu):\n") : _("Newly suspended: none\n"), ns);
        for (size_t i = 0; i < n_ch; i++)
                if (x->ch[i].now_suspends)
                        print_change(&x->ch[i], stdout);
        if (na) {
                printf(_("Now awake the whole time (%zu):\n"), na);
                for (size_t i = 0; i < n_ch; i++)
                        if (!x->ch[i].now_suspends)
                                print_change(&x->ch[i], stdout);
        }
        if (x->live_before)
                print_effects(x->before, x->after, &x->floor_before, &x->floor_after, &x->effects, stdout);
        printf(_("After %s: "), what);
        print_floor(x->after, &x->floor_after, stdout);
        if (q->verbose) {
                printf(_("\nAfter %s:\n"), what);
                measure_print_text(x->after, q->verbose, stdout);
        }
}

/* why the wait after the change is as long as it is */
static void print_settle(const struct around *x, unsigned long long settle, size_t n_chain, unsigned long long knob_ms,
                         const char *knob_what)
{
        const struct measure_sample *mid = x->mid;

        printf(_("Waiting %.1f s for the settings to take effect: "), (double) settle / 1000.0);
        if (n_chain > 0) {
                printf(_("the longest chain of autosuspend delays is "));
                for (size_t k = 0; k < n_chain; k++)
                        printf("%s%s (%lld ms)", k ? " > " : "", mid->devs[x->chain[k]].name,
                               mid->devs[x->chain[k]].delay_ms > 0 ? mid->devs[x->chain[k]].delay_ms : 0);
                printf(_(" (a parent suspends only after its children, then waits its own delay)"));
        } else
                printf(_("no device has an autosuspend delay"));
        if (knob_ms > 0 && knob_what) {
                /* the family's words (knobs' .settle), N_() marked, "%llu" the seconds */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
                printf(_(knob_what), knob_ms / 1000);
#pragma GCC diagnostic pop
        }
        printf(_("; plus %u s margin\n"), SETTLE_MARGIN_MS / 1000);
}

/* what each setting gained or lost, kept in RECORD's state directory for report */
static void keep_record(const struct around *x, const struct plan *p, const struct inventory *inv,
                        const struct rootfs *record)
{
        _cleanup_(measured_done) struct measured m = {};
        struct xerror e = {};

        effects_record(x->before, x->after, &x->floor_before, &x->floor_after, &x->effects, inv, p->profile, &m);
        if (measured_save(record, &m, &e) < 0) {
                fprintf(stderr, _("idlecfg: warning: %s: report will not carry what each setting gained or lost\n"),
                        e.message ? e.message : strerror(EIO));
                xerror_done(&e);
        }
}

int measure_around(const struct measure_request *q, const char *what, const struct plan *p,
                   const struct inventory *inv, const struct rootfs *record,
                   int (*change)(void *userdata, FILE *out), void *userdata)
{
        _cleanup_(around_done) struct around x = {};
        struct measure_sample *mid;
        size_t n_ch = 0, n_chain = 0, log_len = 0;
        unsigned long long settle, knob_ms;
        const char *knob_what;
        FILE *out = stdout;
        int code, r;

        measure_session_init(&x.ss);
        if (!q->json)
                printf(_("Measuring for %u s before %s...\n"), q->seconds, what);
        fflush(stdout);
        if (measure_once(&x.ss, q->seconds, &x.a0, &x.a1) < 0)
                return EXIT_FAIL;
        /* each setting's live value on both sides of the change: which changed */
        x.n_live = p ? p->n : 0;
        x.live_before = p ? measure_live_values(p) : NULL;
        if (q->json) {
                out = open_memstream(&x.log, &log_len);
                if (!out)
                        return EXIT_FAIL;
        }
        code = change(userdata, out);
        if (q->json)
                fclose(out);
        x.live_after = p ? measure_live_values(p) : NULL;
        if (code != 0 && code != 1) {
                /* the change failed (and apply undid itself): nothing to compare */
                if (q->json) {
                        struct json j;
                        around_json_begin(&j, what, code, p, x.log);
                        json_end_object(&j);
                        json_finish(&j);
                }
                return code;
        }
        /* how long the new settings need: a device suspends only after its
         * autosuspend delay, and a parent only after its children */
        r = measure_sample(&x.ss.env, &x.ss.clock, &x.mid);
        if (r < 0) {
                fprintf(stderr, _("idlecfg: measuring failed: %s\n"), strerror(-r));
                return EXIT_FAIL;
        }
        mid = x.mid;
        settle = measure_settle_ms(mid, p, &x.chain, &n_chain, &knob_ms, &knob_what) + SETTLE_MARGIN_MS;
        if (settle > SETTLE_MAX_MS)
                settle = SETTLE_MAX_MS;
        if (!q->json) {
                print_settle(&x, settle, n_chain, knob_ms, knob_what);
                printf(_("Measuring for %u s after %s...\n"), q->seconds, what);
        }
        fflush(stdout);
        r = measure_wait(&x.ss.clock, (unsigned) settle);
        if (r < 0) {
                fprintf(stderr, _("idlecfg: measuring failed: %s\n"), strerror(-r));
                return EXIT_FAIL;
        }
        if (measure_once(&x.ss, q->seconds, &x.b0, &x.b1) < 0)
                return EXIT_FAIL;
        measure_diff(x.a0, x.a1, p, inv, &x.before);
        measure_diff(x.b0, x.b1, p, inv, &x.after);
        measure_compare(x.before, x.after, p, &x.ch, &n_ch);
        measure_floor(x.before, &x.floor_before);
        measure_floor(x.after, &x.floor_after);
        if (p)
                measure_effects(x.before, x.after, p, x.live_before, x.live_after, &x.effects);
        if (p && record)
                keep_record(&x, p, inv, record);
        if (q->json)
                around_json(&x, what, code, p, settle, mid, n_chain, n_ch);
        else
                around_text(&x, q, what, n_ch);
        if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, _("idlecfg: cannot write output: %s\n"), strerror(errno));
                return EXIT_FAIL;
        }
        return code;
}
