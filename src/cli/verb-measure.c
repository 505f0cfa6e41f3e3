/* verb-measure.c: idlecfg measure, and one measurement for report (apply
 * and rollback --measure: verb-measure-around.c); sampling through
 * measure-sample.c, printing here and in print-measure.c */
#include "config.h"

#include "base/json.h"
#include "engine/measure.h"
#include "engine/verify.h"
#include "cli/print-apply.h"
#include "cli/print-measure.h"
#include "cli/verb-measure.h"
#include "cli/run.h"
#include "cli/verbs.h"

#define EXIT_FAIL 3

static void print_why(const struct measure_result *r, const struct measure_dev *m, FILE *out)
{
        switch (m->why) {
        case WHY_SUSPENDED:
        case _WHY_MAX:
                break;
        case WHY_NO_RUNTIME_PM:
                fprintf(out, _("its driver %s has no runtime PM (runtime_status = %s)"),
                        m->d->driver ? m->d->driver : _("(none bound)"), m->d->status);
                break;
        case WHY_ON_PURPOSE:
                fprintf(out, _("idlecfg keeps it on on purpose: %s"), m->s->reason);
                break;
        case WHY_KNOB_OFF:
                if (m->s)
                        fprintf(out, _("its knob is off (power/control = on): %s, planned %s"), m->s->knob, m->s->value);
                else if (m->knob)
                        fprintf(out, _("its knob is off (power/control = on): %s, not planned on this device"), m->knob);
                else
                        fprintf(out, _("runtime PM is off (power/control = on); idlecfg plans nothing for it"));
                break;
        case WHY_CHILD: {
                const struct measure_dev *leaf = &r->devs[m->chain[m->n_chain - 1]];
                fprintf(out, _("a child keeps it awake: "));
                for (size_t k = 0; k < m->n_chain; k++)
                        fprintf(out, "%s%s", k ? " > " : "", r->devs[m->chain[k]].d->name);
                if (leaf->why != WHY_BUSY) {
                        fprintf(out, _("; the leaf %s: "), leaf->d->name);
                        print_why(r, leaf, out);
                }
                break;
        }
        case WHY_BUSY:
                if (m->d->delay_ms >= 0)
                        fprintf(out, _("in use: runtime PM is allowed and no child is awake (autosuspend delay %lld ms)"),
                                m->d->delay_ms);
                else
                        fprintf(out, _("in use: runtime PM is allowed and no child is awake"));
                break;
        }
}

static void print_devices(const struct measure_result *r, int verbose, FILE *out)
{
        size_t awake = 0, part = 0, whole = 0, nopm = 0;

        for (size_t i = 0; i < r->n_devs; i++) {
                const struct measure_dev *m = &r->devs[i];
                if (m->why == WHY_NO_RUNTIME_PM)
                        nopm++;
                if (m->awake)
                        awake++;
                else if (m->have_times && m->active_ms > 0)
                        part++;
                else
                        whole++;
        }
        fprintf(out, _("Devices: %zu (%zu without runtime PM): %zu suspended the whole time, %zu part of the time, "
                       "%zu awake\n"), r->n_devs, nopm, whole, part, awake);
        if (r->n_devs > 0 && !r->devs[0].have_times)
                fprintf(out, _("  (power/runtime_active_time and runtime_suspended_time are absent: "
                               "the state at the end is shown instead of shares)\n"));
        if (awake > 0) {
                fprintf(out, _("Awake the whole time, and why:\n"));
                for (size_t i = 0; i < r->n_devs; i++) {
                        const struct measure_dev *m = &r->devs[i];
                        if (!m->awake)
                                continue;
                        fprintf(out, "  %s (%s%s%s): ", m->d->name, measure_dev_label(m), m->d->driver ? ", " : "",
                                strempty(m->d->driver));
                        print_why(r, m, out);
                        fputc('\n', out);
                }
        }
        if (part > 0 || (verbose && whole > 0)) {
                fprintf(out, verbose ? _("Suspended:\n") : _("Suspended part of the time:\n"));
                for (size_t i = 0; i < r->n_devs; i++) {
                        const struct measure_dev *m = &r->devs[i];
                        if (m->awake || (!verbose && !(m->have_times && m->active_ms > 0)))
                                continue;
                        if (m->have_times)
                                fprintf(out, _("  %s (%s): %.1f%% suspended\n"), m->d->name, measure_dev_label(m),
                                        measure_pct(m->suspended_ms, m->suspended_ms + m->active_ms));
                        else
                                fprintf(out, _("  %s (%s): suspended at the end\n"), m->d->name, measure_dev_label(m));
                }
        }
}

static void print_cpuidle(const struct measure_result *r, FILE *out)
{
        if (r->n_cpus == 0) {
                fprintf(out, _("CPU idle: no cpuidle states in /sys/devices/system/cpu/cpu*/cpuidle (cpuidle "
                               "driver: %s)\n"), r->b->cpuidle_driver ? r->b->cpuidle_driver : _("none"));
                return;
        }
        fprintf(out, _("CPU idle (driver %s), share of the time in each state (entries):\n"),
                r->b->cpuidle_driver ? r->b->cpuidle_driver : _("unknown"));
        for (size_t i = 0; i < r->n_cpus; i++) {
                const struct measure_cpu *c = &r->cpus[i];
                fprintf(out, "  cpu%-3u", c->cpu);
                for (size_t k = 0; k < c->n_states; k++) {
                        if (c->states[k].have)
                                fprintf(out, "  %s %.1f%% (%llu)", c->states[k].name,
                                        measure_pct(c->states[k].time_us, r->interval_us), c->states[k].usage);
                        else
                                fprintf(out, _("  %s unreadable"), c->states[k].name);
                }
                if (c->n_states == 0)
                        fprintf(out, _("  no states"));
                fputc('\n', out);
        }
}

static void print_residency(const struct measure_result *r, FILE *out)
{
        fprintf(out, _("System idle residency:\n"));
        for (size_t i = 0; i < _M_RES_MAX; i++) {
                if (r->residency[i].err < 0)
                        fprintf(out, "  %s: %s\n", measure_residency_names[i], measure_absent_text(r->residency[i].err));
                else
                        fprintf(out, _("  %s: %.1f%% of the time (+%llu us)\n"), measure_residency_names[i],
                                measure_pct(r->residency[i].v, r->interval_us), r->residency[i].v);
        }
}

static void print_energy(const struct measure_result *r, FILE *out)
{
        if (r->n_zones == 0)
                fprintf(out, _("Energy: no powercap zones in /sys/class/powercap (no RAPL driver)\n"));
        else
                fprintf(out, _("Energy (powercap), average power:\n"));
        for (size_t i = 0; i < r->n_zones; i++) {
                const struct measure_zone *z = &r->zones[i];
                fprintf(out, "  %s %s: ", z->z->id, z->z->name ? z->z->name : "?");
                if (z->err < 0)
                        fprintf(out, _("energy_uj %s\n"), measure_absent_text(z->err));
                else
                        fprintf(out, z->wrapped ? _("%.3f W (the counter wrapped at max_energy_range_uj)\n") : "%.3f W\n",
                                (double) measure_milliwatts(z->delta_uj, r->interval_us) / 1000.0);
        }
        if (r->n_bats == 0)
                fprintf(out, _("Battery: none in /sys/class/power_supply\n"));
        for (size_t i = 0; i < r->n_bats; i++) {
                const struct measure_battery *b = &r->bats[i];
                const char *status = b->b->status ? b->b->status : "?";
                fprintf(out, _("Battery %s (%s): "), b->b->name, status);
                if (b->have_energy && r->interval_us > 0)
                        fprintf(out, _("%.3f W drawn on average (energy_now)"),
                                (double) b->drained_uwh * 3600.0 / (double) r->interval_us);
                else
                        fprintf(out, _("energy_now and charge_now absent"));
                if (b->b->power_uw.err == 0)
                        fprintf(out, _(", power_now %.3f W"), (double) b->b->power_uw.v / 1e6);
                else
                        fprintf(out, _(", power_now %s"), measure_absent_text(b->b->power_uw.err));
                if (!streq(status, "Discharging"))
                        fprintf(out, _("; not discharging: this does not show what the system draws"));
                fputc('\n', out);
        }
}

static void print_counts(const struct measure_result *r, int verbose, FILE *out)
{
        size_t show = verbose ? SIZE_MAX : 10;
        unsigned long long total = 0;

        if (r->b->irq_err < 0 || r->a->irq_err < 0)
                fprintf(out, _("Interrupts: /proc/interrupts %s\n"),
                        measure_absent_text(r->b->irq_err < 0 ? r->b->irq_err : r->a->irq_err));
        else {
                for (size_t i = 0; i < r->n_irqs; i++)
                        total += r->irqs[i].delta;
                fprintf(out, _("Interrupts: %llu (%.1f/s) from %zu sources"), total,
                        r->interval_us ? (double) total * 1e6 / (double) r->interval_us : 0.0, r->n_irqs);
                fprintf(out, r->n_irqs > show ? _(", the %zu busiest:\n") : ":\n", show);
                for (size_t i = 0; i < r->n_irqs && i < show; i++)
                        fprintf(out, "  %6s %8llu %8.1f/s  %s\n", r->irqs[i].c->key, r->irqs[i].delta,
                                r->interval_us ? (double) r->irqs[i].delta * 1e6 / (double) r->interval_us : 0.0,
                                r->irqs[i].c->desc);
        }
        if (r->b->wakeup_err < 0 || r->a->wakeup_err < 0 || !r->b->wakeup_from)
                fprintf(out, _("Wakeup sources: no /sys/class/wakeup, and %s %s\n"),
                        "/sys/kernel/debug/wakeup_sources",
                        measure_absent_text(r->b->wakeup_err < 0 ? r->b->wakeup_err : r->a->wakeup_err));
        else {
                fprintf(out, _("Wakeup sources (%s): %zu active"), r->b->wakeup_from, r->n_wakeups);
                fprintf(out, r->n_wakeups ? ":\n" : "\n");
                for (size_t i = 0; i < r->n_wakeups && i < show; i++)
                        fprintf(out, _("  %s%s%s%s: %llu events, %llu wakeups\n"), r->wakeups[i].c->key,
                                r->wakeups[i].c->desc ? " (" : "", strempty(r->wakeups[i].c->desc),
                                r->wakeups[i].c->desc ? ")" : "", r->wakeups[i].delta, r->wakeups[i].delta2);
        }
}

/* the suspend cycles of the run, the platform's deep-idle residency beside them */
static void print_suspend(const struct measure_result *r, FILE *out)
{
        const struct measure_suspend *s = &r->susp;

        if (s->have_cycles)
                fprintf(out, _("Suspend cycles during the run: %llu (/sys/power/suspend_stats/success)\n"), s->cycles);
        if (s->have_last_hw_sleep)
                fprintf(out, _("  hardware sleep in the last cycle: %.1f s (suspend_stats/last_hw_sleep)\n"),
                        (double) s->last_hw_sleep_us / 1e6);
        else if (s->hw_sleep_wraps)
                fprintf(out, _("  hardware sleep in the last cycle: not shown: the run is 71 minutes or longer, "
                               "where suspend_stats/last_hw_sleep wraps\n"));
        if (s->cycles && s->total_hw_sleep_us.err == 0)
                fprintf(out, _("  hardware sleep in all cycles: %.1f s (suspend_stats/total_hw_sleep)\n"),
                        (double) s->total_hw_sleep_us.v / 1e6);
        if (s->have_wakeup_irq)
                fprintf(out, _("  last wake: IRQ %llu%s%s%s (/sys/power/pm_wakeup_irq)\n"), s->wakeup_irq,
                        s->wakeup_irq_line ? " (" : "", s->wakeup_irq_line ? strempty(s->wakeup_irq_line->desc) : "",
                        s->wakeup_irq_line ? ")" : "");
        if (s->last_failed_dev)
                fprintf(out, _("  last device that failed to suspend: %s (suspend_stats/last_failed_dev)\n"),
                        s->last_failed_dev);
        if (s->amd_s0ix_us.err == 0)
                fprintf(out, _("AMD PMC S0i3 residency: +%.1f s (/sys/kernel/debug/amd_pmc/s0ix_stats)\n"),
                        (double) s->amd_s0ix_us.v / 1e6);
}

void measure_print_text(const struct measure_result *r, int verbose, FILE *out)
{
        fprintf(out, _("Measured %.1f s.\n"), (double) r->interval_us / 1e6);
        print_devices(r, verbose, out);
        print_cpuidle(r, out);
        print_residency(r, out);
        print_energy(r, out);
        print_counts(r, verbose, out);
        print_suspend(r, out);
        {
                struct measure_floor f;
                measure_floor(r, &f);
                print_floor(r, &f, out);
                measure_floor_done(&f);
        }
}

/* ---- JSON (schema in idlecfg(8), section MEASURE JSON) ---- */

static void json_kv_value_or_null(struct json *j, const char *key, const struct m_value *v)
{
        json_kv_int_or_null(j, key, v->err >= 0, (long long) v->v);
}

static void json_chain(struct json *j, const struct measure_result *r, const size_t *chain, size_t n)
{
        json_begin_array(j);
        for (size_t k = 0; k < n; k++)
                json_string(j, r->devs[chain[k]].d->name);
        json_end_array(j);
}

/* measure --json: "devices", each device's runtime PM over the interval */
static void json_devices(struct json *j, const struct measure_result *r)
{
        json_key(j, "devices");
        json_begin_array(j);
        for (size_t i = 0; i < r->n_devs; i++) {
                const struct measure_dev *m = &r->devs[i];
                json_begin_object(j);
                json_kv_string(j, "device", m->d->name);
                json_kv_string(j, "devpath", m->d->devpath);
                json_kv_string(j, "class", m->class);
                json_kv_string(j, "subsystem", m->d->subsystem);
                json_kv_string(j, "driver", m->d->driver);
                json_kv_string(j, "control", m->d->control);
                json_kv_string(j, "runtime_status", m->d->status);
                json_kv_int_or_null(j, "active_ms", m->have_times, (long long) m->active_ms);
                json_kv_int_or_null(j, "suspended_ms", m->have_times, (long long) m->suspended_ms);
                json_key(j, "suspended_percent");
                if (m->have_times && m->active_ms + m->suspended_ms > 0)
                        json_milli(j, measure_share_milli(m->suspended_ms, m->active_ms + m->suspended_ms));
                else
                        json_null(j);
                json_kv_bool(j, "awake", m->awake);
                json_kv_string(j, "why", m->awake ? awake_why_names[m->why] : NULL);
                json_kv_string(j, "knob", m->knob);
                json_kv_string(j, "planned", m->s ? m->s->value : NULL);
                json_kv_string(j, "reason", m->s ? m->s->reason : NULL);
                json_key(j, "chain");
                json_chain(j, r, m->chain, m->n_chain);
                json_kv_string(j, "leaf", m->n_chain ? r->devs[m->chain[m->n_chain - 1]].d->name : NULL);
                json_end_object(j);
        }
        json_end_array(j);
}

/* measure --json: "cpuidle", each CPU's idle states over the interval */
static void json_cpuidle(struct json *j, const struct measure_result *r)
{
        json_key(j, "cpuidle");
        json_begin_object(j);
        json_kv_string(j, "driver", r->b->cpuidle_driver);
        json_key(j, "cpus");
        json_begin_array(j);
        for (size_t i = 0; i < r->n_cpus; i++) {
                json_begin_object(j);
                json_kv_int(j, "cpu", r->cpus[i].cpu);
                json_key(j, "states");
                json_begin_array(j);
                for (size_t k = 0; k < r->cpus[i].n_states; k++) {
                        const struct measure_cstate *s = &r->cpus[i].states[k];
                        json_begin_object(j);
                        json_kv_string(j, "name", s->name);
                        json_kv_int_or_null(j, "time_us", s->have, (long long) s->time_us);
                        json_kv_int_or_null(j, "usage", s->have, (long long) s->usage);
                        json_kv_milli_or_null(j, "residency_percent", s->have, measure_share_milli(s->time_us, r->interval_us));
                        json_end_object(j);
                }
                json_end_array(j);
                json_end_object(j);
        }
        json_end_array(j);
        json_end_object(j);
}

void measure_print_json_body(struct json *j, const struct measure_result *r)
{
        json_kv_int(j, "interval_us", (long long) r->interval_us);
        json_devices(j, r);
        json_cpuidle(j, r);

        json_key(j, "residency");
        json_begin_array(j);
        for (size_t i = 0; i < _M_RES_MAX; i++) {
                json_begin_object(j);
                json_kv_string(j, "name", measure_residency_names[i]);
                {
                        _cleanup_free_ char *p = xasprintf("/sys%s", measure_residency_paths[i]);
                        json_kv_string(j, "path", p);
                }
                json_kv_value_or_null(j, "delta_us", &r->residency[i]);
                json_kv_milli_or_null(j, "percent", r->residency[i].err >= 0, measure_share_milli(r->residency[i].v, r->interval_us));
                json_kv_string(j, "absent", r->residency[i].err < 0 ? measure_absent_word(r->residency[i].err) : NULL);
                json_end_object(j);
        }
        json_end_array(j);

        json_key(j, "energy");
        json_begin_array(j);
        for (size_t i = 0; i < r->n_zones; i++) {
                const struct measure_zone *z = &r->zones[i];
                json_begin_object(j);
                json_kv_string(j, "zone", z->z->id);
                json_kv_string(j, "name", z->z->name);
                json_kv_int_or_null(j, "delta_uj", z->err >= 0, (long long) z->delta_uj);
                json_kv_bool(j, "wrapped", z->wrapped);
                json_kv_milli_or_null(j, "watts", z->err >= 0, measure_milliwatts(z->delta_uj, r->interval_us));
                json_kv_string(j, "absent", z->err < 0 ? measure_absent_word(z->err) : NULL);
                json_end_object(j);
        }
        json_end_array(j);

        json_key(j, "batteries");
        json_begin_array(j);
        for (size_t i = 0; i < r->n_bats; i++) {
                const struct measure_battery *b = &r->bats[i];
                json_begin_object(j);
                json_kv_string(j, "name", b->b->name);
                json_kv_string(j, "status", b->b->status);
                json_kv_int_or_null(j, "drained_uwh", b->have_energy, b->drained_uwh);
                json_kv_milli_or_null(j, "watts", b->have_energy && r->interval_us,
                                      r->interval_us ? (long long) ((double) b->drained_uwh * 3600.0 * 1000.0 /
                                                                    (double) r->interval_us) : 0);
                json_kv_value_or_null(j, "power_now_uw", &b->b->power_uw);
                json_end_object(j);
        }
        json_end_array(j);

        json_key(j, "interrupts");
        json_begin_object(j);
        json_kv_string(j, "absent", r->a->irq_err < 0 || r->b->irq_err < 0 ?
                                    measure_absent_word(r->b->irq_err < 0 ? r->b->irq_err : r->a->irq_err) : NULL);
        json_key(j, "sources");
        json_begin_array(j);
        for (size_t i = 0; i < r->n_irqs; i++) {
                json_begin_object(j);
                json_kv_string(j, "irq", r->irqs[i].c->key);
                json_kv_string(j, "name", r->irqs[i].c->desc);
                json_kv_int(j, "count", (long long) r->irqs[i].delta);
                json_end_object(j);
        }
        json_end_array(j);
        json_end_object(j);

        json_key(j, "wakeup_sources");
        json_begin_object(j);
        json_kv_string(j, "from", r->b->wakeup_from);
        json_kv_string(j, "absent", r->a->wakeup_err < 0 || r->b->wakeup_err < 0 ?
                                    measure_absent_word(r->b->wakeup_err < 0 ? r->b->wakeup_err : r->a->wakeup_err) : NULL);
        json_key(j, "sources");
        json_begin_array(j);
        for (size_t i = 0; i < r->n_wakeups; i++) {
                json_begin_object(j);
                json_kv_string(j, "name", r->wakeups[i].c->key);
                json_kv_string(j, "device", r->wakeups[i].c->desc);
                json_kv_int(j, "events", (long long) r->wakeups[i].delta);
                json_kv_int(j, "wakeups", (long long) r->wakeups[i].delta2);
                json_end_object(j);
        }
        json_end_array(j);
        json_end_object(j);

        json_key(j, "suspend");
        json_begin_object(j);
        json_kv_int_or_null(j, "cycles", r->susp.have_cycles, (long long) r->susp.cycles);
        json_kv_int_or_null(j, "last_hw_sleep_us", r->susp.have_last_hw_sleep, (long long) r->susp.last_hw_sleep_us);
        json_kv_value_or_null(j, "total_hw_sleep_us", &r->susp.total_hw_sleep_us);
        json_kv_int_or_null(j, "wakeup_irq", r->susp.have_wakeup_irq, (long long) r->susp.wakeup_irq);
        json_kv_string(j, "wakeup_irq_name", r->susp.wakeup_irq_line ? r->susp.wakeup_irq_line->desc : NULL);
        json_kv_string(j, "last_failed_dev", r->susp.last_failed_dev);
        json_kv_value_or_null(j, "amd_s0ix_us", &r->susp.amd_s0ix_us);
        json_end_object(j);
        {
                struct measure_floor f;
                measure_floor(r, &f);
                json_floor(j, r, &f);
                measure_floor_done(&f);
        }
}

/* ---- sampling ---- */

void measure_session_init(struct measure_session *s)
{
        const char *proc = secure_getenv("IDLECFG_TEST_PROC"), *mock = getenv("UMOCKDEV_DIR");

        s->env = (struct measure_env) { .sys = "/sys", .proc = proc && *proc ? proc : "/proc" };
        /* under umockdev /sys is a recording: the host's package counters
         * (perf_event_open) would contradict it, so a testbed's own files
         * stand in for them ($UMOCKDEV_DIR/perf, outside the mock /sys), and a
         * run outside a testbed never reads them */
        s->perf_dir = mock && *mock ? xasprintf("%s/perf", mock) : NULL;
        s->env.perf_dir = s->perf_dir;
        s->env.pkg = measure_pkg_open(s->env.sys, s->env.perf_dir);
        s->clock = (struct measure_clock) {};
        (void) measure_clock_from_env(&s->clock);
}

void measure_session_done(struct measure_session *s)
{
        measure_pkg_close(s->env.pkg);
        free(s->perf_dir);
        *s = (struct measure_session) {};
}

/* two samples SECONDS apart */
int measure_once(const struct measure_session *ss, unsigned seconds, struct measure_sample **ret_a,
                 struct measure_sample **ret_b)
{
        int r = measure_sample(&ss->env, &ss->clock, ret_a);

        if (r < 0) {
                fprintf(stderr, _("idlecfg: cannot read %s/devices: %s\n"), ss->env.sys, strerror(-r));
                return r;
        }
        r = measure_wait(&ss->clock, seconds * 1000u);
        if (r == 0)
                r = measure_sample(&ss->env, &ss->clock, ret_b);
        if (r < 0) {
                fprintf(stderr, _("idlecfg: measuring failed: %s\n"), strerror(-r));
                measure_sample_free(*ret_a);
                *ret_a = NULL;
        }
        return r;
}

int measure_show(const struct measure_request *q, const struct plan *p, const struct inventory *inv)
{
        struct measure_session ss;
        struct measure_sample *a = NULL, *b = NULL;
        struct measure_result *r = NULL;
        struct verify_prereq *pre = NULL;
        size_t n_pre = 0;
        int r0;

        measure_session_init(&ss);
        if (!q->json)
                printf(_("Measuring for %u s...\n"), q->seconds);
        fflush(stdout);
        r0 = measure_once(&ss, q->seconds, &a, &b);
        measure_session_done(&ss);
        if (r0 < 0)
                return EXIT_FAIL;
        measure_diff(a, b, p, inv, &r);
        if (inv)
                verify_prereqs(inv, p, &pre, &n_pre);
        if (q->json) {
                struct json j;
                json_init(&j, stdout);
                json_begin_object(&j);
                json_kv_int(&j, "schema", 1);
                json_kv_string(&j, "profile", p ? p->profile : NULL);
                measure_print_json_body(&j, r);
                verify_prereqs_json(&j, pre, n_pre);
                json_end_object(&j);
                json_finish(&j);
        } else {
                measure_print_text(r, q->verbose, stdout);
                verify_print_prereqs(pre, n_pre, stdout);
        }
        verify_prereqs_free(pre, n_pre);
        measure_result_free(r);
        measure_sample_free(a);
        measure_sample_free(b);
        if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, _("idlecfg: cannot write output: %s\n"), strerror(errno));
                return EXIT_FAIL;
        }
        return 0;
}

int measure_take(unsigned seconds, const struct plan *p, const struct inventory *inv, struct measure_taken *ret)
{
        struct measure_session ss;
        struct measure_taken t = {};

        int r;

        measure_session_init(&ss);
        r = measure_once(&ss, seconds, &t.a, &t.b);
        measure_session_done(&ss);
        if (r < 0)
                return -EIO;
        measure_diff(t.a, t.b, p, inv, &t.r);
        measure_floor(t.r, &t.floor);
        *ret = t;
        return 0;
}

void measure_taken_done(struct measure_taken *t)
{
        measure_floor_done(&t->floor);
        measure_result_free(t->r);
        measure_sample_free(t->a);
        measure_sample_free(t->b);
        *t = (struct measure_taken) {};
}

/* ---- the verb (idlecfg.c's table runs it) ---- */

static int do_measure(struct run *c, int argc, char **argv)
{
        struct measure_request q = { .seconds = c->a->seconds, .json = c->a->json, .verbose = c->a->verbose };

        return measure_show(&q, c->plan, c->inv);
}

const struct verb verb_measure = {
        .name = "measure", .min_args = 0, .max_args = 0, .needs = VERB_PLAN,
        .run = do_measure,
        .help = N_("Measure idle for --seconds: who suspends, who stays awake and why"),
        .options = O_PLANNING | O_JSON | O_SECONDS,
        .mistaken_option = O_MEASURE,
        .mistaken_hint = N_("idlecfg: --measure is for apply and rollback; measure takes --seconds\n"),
};
