/* verb-measure.c: idlecfg measure, apply --measure and rollback --measure: sampling through measure.c, printing here */
#include "config.h"

#include "base/json.h"
#include "engine/measure.h"
#include "engine/verify.h"
#include "cli/print-apply.h"
#include "cli/verb-measure.h"
#include "cli/run.h"
#include "cli/verbs.h"

#define EXIT_FAIL 3
#define SETTLE_MARGIN_MS 1000u
#define SETTLE_MAX_MS 120000u

/* thousandths of a percent of the interval: 12345 is 12.345 % */
static long long share_milli(unsigned long long part_us, unsigned long long interval_us)
{
        if (interval_us == 0)
                return 0;
        return (long long) ((double) part_us * 100000.0 / (double) interval_us + 0.5);
}

static double pct(unsigned long long part_us, unsigned long long interval_us)
{
        return interval_us ? (double) part_us * 100.0 / (double) interval_us : 0.0;
}

/* milliwatts from microjoules over an interval in microseconds */
static long long milliwatts(unsigned long long uj, unsigned long long interval_us)
{
        return interval_us ? (long long) ((double) uj * 1000.0 / (double) interval_us + 0.5) : 0;
}

/* why a counter has no value, in plain words */
static const char *absent_text(int err)
{
        switch (err) {
        case -ENOENT:
                return _("absent (the kernel does not expose it here)");
        case -EACCES:
        case -EPERM:
                return _("not readable (permission denied: run as root)");
        case -EBADMSG:
                return _("not a number");
        case -ERANGE:
                return _("went backwards (the counter was reset)");
        default:
                return strerror(-err);
        }
}

/* a short word for JSON */
static const char *absent_word(int err)
{
        switch (err) {
        case -ENOENT: return "absent";
        case -EACCES: case -EPERM: return "permission-denied";
        case -EBADMSG: return "not-a-number";
        case -ERANGE: return "went-backwards";
        default: return "unreadable";
        }
}

static const char *dev_label(const struct measure_dev *m)
{
        return m->class ? m->class : m->d->subsystem ? m->d->subsystem : "?";
}

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
                        fprintf(out, "  %s (%s%s%s): ", m->d->name, dev_label(m), m->d->driver ? ", " : "",
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
                                fprintf(out, _("  %s (%s): %.1f%% suspended\n"), m->d->name, dev_label(m),
                                        pct(m->suspended_ms, m->suspended_ms + m->active_ms));
                        else
                                fprintf(out, _("  %s (%s): suspended at the end\n"), m->d->name, dev_label(m));
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
                                        pct(c->states[k].time_us, r->interval_us), c->states[k].usage);
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
                        fprintf(out, "  %s: %s\n", measure_residency_names[i], absent_text(r->residency[i].err));
                else
                        fprintf(out, _("  %s: %.1f%% of the time (+%llu us)\n"), measure_residency_names[i],
                                pct(r->residency[i].v, r->interval_us), r->residency[i].v);
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
                        fprintf(out, _("energy_uj %s\n"), absent_text(z->err));
                else
                        fprintf(out, z->wrapped ? _("%.3f W (the counter wrapped at max_energy_range_uj)\n") : "%.3f W\n",
                                (double) milliwatts(z->delta_uj, r->interval_us) / 1000.0);
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
                        fprintf(out, _(", power_now %s"), absent_text(b->b->power_uw.err));
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
                        absent_text(r->b->irq_err < 0 ? r->b->irq_err : r->a->irq_err));
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
                        absent_text(r->b->wakeup_err < 0 ? r->b->wakeup_err : r->a->wakeup_err));
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

static void print_text(const struct measure_result *r, int verbose, FILE *out)
{
        fprintf(out, _("Measured %.1f s.\n"), (double) r->interval_us / 1e6);
        print_devices(r, verbose, out);
        print_cpuidle(r, out);
        print_residency(r, out);
        print_energy(r, out);
        print_counts(r, verbose, out);
        print_suspend(r, out);
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
                        json_milli(j, share_milli(m->suspended_ms, m->active_ms + m->suspended_ms));
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
                        json_kv_milli_or_null(j, "residency_percent", s->have, share_milli(s->time_us, r->interval_us));
                        json_end_object(j);
                }
                json_end_array(j);
                json_end_object(j);
        }
        json_end_array(j);
        json_end_object(j);
}

static void print_json_body(struct json *j, const struct measure_result *r)
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
                json_kv_milli_or_null(j, "percent", r->residency[i].err >= 0, share_milli(r->residency[i].v, r->interval_us));
                json_kv_string(j, "absent", r->residency[i].err < 0 ? absent_word(r->residency[i].err) : NULL);
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
                json_kv_milli_or_null(j, "watts", z->err >= 0, milliwatts(z->delta_uj, r->interval_us));
                json_kv_string(j, "absent", z->err < 0 ? absent_word(z->err) : NULL);
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
                                    absent_word(r->b->irq_err < 0 ? r->b->irq_err : r->a->irq_err) : NULL);
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
                                    absent_word(r->b->wakeup_err < 0 ? r->b->wakeup_err : r->a->wakeup_err) : NULL);
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
}

/* ---- sampling ---- */

struct session {
        struct measure_env env;
        struct measure_clock clock;
};

static void session_init(struct session *s)
{
        const char *proc = secure_getenv("IDLECFG_TEST_PROC");

        s->env = (struct measure_env) { .sys = "/sys", .proc = proc && *proc ? proc : "/proc" };
        s->clock = (struct measure_clock) {};
        (void) measure_clock_from_env(&s->clock);
}

/* two samples SECONDS apart */
static int measure_once(const struct session *ss, unsigned seconds, struct measure_sample **ret_a,
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
        struct session ss;
        struct measure_sample *a = NULL, *b = NULL;
        struct measure_result *r = NULL;
        struct verify_prereq *pre = NULL;
        size_t n_pre = 0;

        session_init(&ss);
        if (!q->json)
                printf(_("Measuring for %u s...\n"), q->seconds);
        fflush(stdout);
        if (measure_once(&ss, q->seconds, &a, &b) < 0)
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
                print_json_body(&j, r);
                verify_prereqs_json(&j, pre, n_pre);
                json_end_object(&j);
                json_finish(&j);
        } else {
                print_text(r, q->verbose, stdout);
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
        struct session ss;
        struct measure_taken t = {};

        session_init(&ss);
        if (measure_once(&ss, seconds, &t.a, &t.b) < 0)
                return -EIO;
        measure_diff(t.a, t.b, p, inv, &t.r);
        *ret = t;
        return 0;
}

void measure_taken_done(struct measure_taken *t)
{
        measure_result_free(t->r);
        measure_sample_free(t->a);
        measure_sample_free(t->b);
        *t = (struct measure_taken) {};
}

/* ---- before and after ---- */

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
                        snprintf(b1, sizeof(b1), "%s", absent_word(x->residency[i].err));
                else
                        snprintf(b1, sizeof(b1), "%.1f%%", pct(x->residency[i].v, x->interval_us));
                if (y->residency[i].err < 0)
                        snprintf(b2, sizeof(b2), "%s", absent_word(y->residency[i].err));
                else
                        snprintf(b2, sizeof(b2), "%.1f%%", pct(y->residency[i].v, y->interval_us));
                row(out, measure_residency_names[i], b1, b2);
        }
        for (size_t i = 0; i < y->n_zones; i++) {
                const struct measure_zone *zy = &y->zones[i], *zx = NULL;
                _cleanup_free_ char *what = xasprintf("%s %s", zy->z->id, strempty(zy->z->name));
                for (size_t k = 0; k < x->n_zones && !zx; k++)
                        if (streq(x->zones[k].z->id, zy->z->id))
                                zx = &x->zones[k];
                if (zx && zx->err == 0)
                        snprintf(b1, sizeof(b1), "%.3f W", (double) milliwatts(zx->delta_uj, x->interval_us) / 1000.0);
                else
                        snprintf(b1, sizeof(b1), "%s", absent_word(zx ? zx->err : -ENOENT));
                if (zy->err == 0)
                        snprintf(b2, sizeof(b2), "%.3f W", (double) milliwatts(zy->delta_uj, y->interval_us) / 1000.0);
                else
                        snprintf(b2, sizeof(b2), "%s", absent_word(zy->err));
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

        fprintf(out, "  %s (%s): ", y->d->name, dev_label(y));
        if (x->have_times && y->have_times)
                fprintf(out, _("%.1f%% -> %.1f%% suspended"), pct(x->suspended_ms, x->suspended_ms + x->active_ms),
                        pct(y->suspended_ms, y->suspended_ms + y->active_ms));
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
                json_milli(j, share_milli(x->suspended_ms, x->active_ms + x->suspended_ms));
        else
                json_null(j);
        json_key(j, "suspended_percent_after");
        if (y->have_times && y->active_ms + y->suspended_ms > 0)
                json_milli(j, share_milli(y->suspended_ms, y->active_ms + y->suspended_ms));
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
        struct measure_change *ch;
        size_t *chain;
        char *log;
};

static void around_done(struct around *x)
{
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
        json_key(&j, "before");
        json_begin_object(&j);
        print_json_body(&j, x->before);
        json_end_object(&j);
        json_key(&j, "after");
        json_begin_object(&j);
        print_json_body(&j, x->after);
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
        if (q->verbose) {
                printf(_("\nAfter %s:\n"), what);
                print_text(x->after, q->verbose, stdout);
        }
}

int measure_around(const struct measure_request *q, const char *what, const struct plan *p,
                   const struct inventory *inv, int (*change)(void *userdata, FILE *out), void *userdata)
{
        struct session ss;
        _cleanup_(around_done) struct around x = {};
        struct measure_sample *mid;
        size_t n_ch = 0, n_chain = 0, log_len = 0;
        unsigned long long settle, knob_ms;
        const char *knob_what;
        FILE *out = stdout;
        int code, r;

        session_init(&ss);
        if (!q->json)
                printf(_("Measuring for %u s before %s...\n"), q->seconds, what);
        fflush(stdout);
        if (measure_once(&ss, q->seconds, &x.a0, &x.a1) < 0)
                return EXIT_FAIL;
        if (q->json) {
                out = open_memstream(&x.log, &log_len);
                if (!out)
                        return EXIT_FAIL;
        }
        code = change(userdata, out);
        if (q->json)
                fclose(out);
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
        r = measure_sample(&ss.env, &ss.clock, &x.mid);
        if (r < 0) {
                fprintf(stderr, _("idlecfg: measuring failed: %s\n"), strerror(-r));
                return EXIT_FAIL;
        }
        mid = x.mid;
        settle = measure_settle_ms(mid, p, &x.chain, &n_chain, &knob_ms, &knob_what) + SETTLE_MARGIN_MS;
        if (settle > SETTLE_MAX_MS)
                settle = SETTLE_MAX_MS;
        if (!q->json) {
                printf(_("Waiting %.1f s for the settings to take effect: "), (double) settle / 1000.0);
                if (n_chain > 0) {
                        printf(_("the longest chain of autosuspend delays is "));
                        for (size_t k = 0; k < n_chain; k++)
                                printf("%s%s (%lld ms)", k ? " > " : "", mid->devs[x.chain[k]].name,
                                       mid->devs[x.chain[k]].delay_ms > 0 ? mid->devs[x.chain[k]].delay_ms : 0);
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
                printf(_("Measuring for %u s after %s...\n"), q->seconds, what);
        }
        fflush(stdout);
        r = measure_wait(&ss.clock, (unsigned) settle);
        if (r < 0) {
                fprintf(stderr, _("idlecfg: measuring failed: %s\n"), strerror(-r));
                return EXIT_FAIL;
        }
        if (measure_once(&ss, q->seconds, &x.b0, &x.b1) < 0)
                return EXIT_FAIL;
        measure_diff(x.a0, x.a1, p, inv, &x.before);
        measure_diff(x.b0, x.b1, p, inv, &x.after);
        measure_compare(x.before, x.after, p, &x.ch, &n_ch);
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
};
