/* print-measure.c: what measure, apply --measure and report print alike of a
 * measurement: shares and watts, an absent counter in words, the floor with
 * its ranked holders, and what each setting gained or lost */
#include "config.h"

#include <time.h>

#include "base/json.h"
#include "cli/print-measure.h"
#include "engine/report.h"

long long measure_share_milli(unsigned long long part_us, unsigned long long interval_us)
{
        if (interval_us == 0)
                return 0;
        return (long long) ((double) part_us * 100000.0 / (double) interval_us + 0.5);
}

double measure_pct(unsigned long long part_us, unsigned long long interval_us)
{
        return interval_us ? (double) part_us * 100.0 / (double) interval_us : 0.0;
}

long long measure_milliwatts(unsigned long long uj, unsigned long long interval_us)
{
        return interval_us ? (long long) ((double) uj * 1000.0 / (double) interval_us + 0.5) : 0;
}

/* why a counter has no value, in plain words */
const char *measure_absent_text(int err)
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
const char *measure_absent_word(int err)
{
        switch (err) {
        case -ENOENT: return "absent";
        case -EACCES: case -EPERM: return "permission-denied";
        case -EBADMSG: return "not-a-number";
        case -ERANGE: return "went-backwards";
        default: return "unreadable";
        }
}

const char *measure_dev_label(const struct measure_dev *m)
{
        return m->class ? m->class : m->d->subsystem ? m->d->subsystem : "?";
}

/* ---- the floor ---- */

/* why cstate_pkg gave no reading, in words */
static const char *pkg_why(int err)
{
        switch (err) {
        case -ENOENT:
                return _("no cstate_pkg PMU (/sys/bus/event_source/devices/cstate_pkg)");
        case -EACCES:
        case -EPERM:
                return _("perf_event_open refused (it needs CAP_PERFMON, or kernel.perf_event_paranoid 0 or lower)");
        case -EOPNOTSUPP:
                return _("no time stamp counter to divide by");
        default:
                return strerror(-err);
        }
}

static const char *pkg_word(int err)
{
        return err == -ENOENT ? "absent" : err == -EACCES || err == -EPERM ? "refused" : "unreadable";
}

/* the reason of a holder: N_() marked, "%s" the knob or the chain's leaf */
static const char *const holder_reasons[_HOLD_MAX] = {
        [HOLD_KNOB_OFF] = N_("awake the whole time with runtime PM off (power/control = on); %s would let it "
                             "suspend"),
        [HOLD_ASPM] = N_("awake on a PCIe link with ASPM L1 disabled (link/l1_aspm = 0): the link stays in L0 "
                         "while the device is up"),
        [HOLD_LTR] = N_("awake, LTR capable but LTR not enabled: the platform does not learn how much latency it "
                        "tolerates"),
        [HOLD_CHILD] = N_("awake the whole time because a child is: the chain ends at %s"),
        [HOLD_ON_PURPOSE] = N_("awake the whole time on purpose: idlecfg keeps runtime PM off (%s)"),
        [HOLD_BUSY] = N_("awake the whole time with runtime PM allowed: in use, or its autosuspend delay"),
        [HOLD_NO_RUNTIME_PM] = N_("awake the whole time: its driver has no runtime PM"),
};

char *measure_holder_reason(const struct measure_result *r, const struct measure_holder *h, bool translate)
{
        const struct measure_dev *m = h->m;
        const char *fmt = translate ? _(holder_reasons[h->kind]) : holder_reasons[h->kind];
        const char *arg = "";

        if (h->kind == HOLD_KNOB_OFF)
                arg = m->knob ? m->knob : "?";
        else if (h->kind == HOLD_CHILD && m->n_chain)
                arg = r->devs[m->chain[m->n_chain - 1]].d->name;
        else if (h->kind == HOLD_ON_PURPOSE)
                arg = m->s ? m->s->reason : "";
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        return xasprintf(fmt, arg);
#pragma GCC diagnostic pop
}

static void print_floor_states(const struct measure_result *r, const struct measure_floor *f, FILE *out)
{
        fputs(" ", out);
        for (size_t i = 0; i < _M_PKG_MAX; i++)
                if (f->pkg_have[i])
                        fprintf(out, " %s %.1f%%", measure_pkg_names[i], measure_pct(f->pkg_us[i], r->interval_us));
        fputc('\n', out);
}

static void print_floor_head(const struct measure_result *r, const struct measure_floor *f, FILE *out)
{
        switch (f->source) {
        case FLOOR_CSTATE_PKG:
                if (f->reached)
                        fprintf(out, _("Package idle floor (cstate_pkg): %s, %.1f%% of the time; the deepest this "
                                       "CPU offers is %s\n"), f->reached, measure_pct(f->reached_us, r->interval_us),
                                f->deepest);
                else
                        fprintf(out, _("Package idle floor (cstate_pkg): no package C-state reached; the deepest "
                                       "this CPU offers is %s\n"), f->deepest ? f->deepest : "?");
                print_floor_states(r, f, out);
                return;
        case FLOOR_LPIT:
                if (f->reached)
                        fprintf(out, _("Package idle floor (LPIT): PC10, %.1f%% of the time\n"),
                                measure_pct(f->reached_us, r->interval_us));
                else
                        fprintf(out, _("Package idle floor (LPIT): above PC10 the whole time (LPIT says PC10 or "
                                       "not, not which state above it)\n"));
                fprintf(out, _("  cstate_pkg: %s\n"), pkg_why(f->pkg_err));
                return;
        case FLOOR_WATTS:
        case FLOOR_NONE:
        case _FLOOR_MAX:
                break;
        }
        fprintf(out, _("Package idle floor: not measurable here: %s, and no LPIT residency\n"), pkg_why(f->pkg_err));
        if (f->source == FLOOR_NONE)
                fprintf(out, _("  watts: not measurable here either (no RAPL package zone, no discharging "
                               "battery)\n"));
}

void print_floor(const struct measure_result *r, const struct measure_floor *f, FILE *out)
{
        print_floor_head(r, f, out);
        if (f->have_watts)
                fprintf(out, f->watts_battery ? _("  drawing %.3f W (battery %s)\n") : _("  drawing %.3f W (RAPL %s)\n"),
                        (double) f->milliwatts / 1000.0, f->watts_from);
        if (!f->above)
                return;
        if (f->n_holders == 0) {
                fprintf(out, _("  above %s, and no awake device, link without ASPM L1 or function without LTR "
                               "was seen\n"), f->deepest);
                return;
        }
        fprintf(out, _("  most likely holding it above %s, ranked (a setting that would change it first, then "
                       "links and latency tolerance, then devices in use):\n"), f->deepest);
        for (size_t i = 0; i < f->n_holders; i++) {
                _cleanup_free_ char *why = measure_holder_reason(r, &f->holders[i], true);
                fprintf(out, "  %2zu. %s (%s): %s\n", i + 1, f->holders[i].m->d->name,
                        measure_dev_label(f->holders[i].m), why);
        }
        if (f->ltr_unknown)
                fprintf(out, _("  (LTR not read on every function: the PCI config space beyond 64 bytes is "
                               "root's)\n"));
}

void json_floor(struct json *j, const struct measure_result *r, const struct measure_floor *f)
{
        json_key(j, "floor");
        json_begin_object(j);
        json_kv_string(j, "source", floor_source_names[f->source]);
        json_kv_string(j, "cstate_pkg", f->source == FLOOR_CSTATE_PKG ? "read" : pkg_word(f->pkg_err));
        json_key(j, "states");
        json_begin_array(j);
        for (size_t i = 0; i < _M_PKG_MAX; i++) {
                if (!f->pkg_have[i])
                        continue;
                json_begin_object(j);
                json_kv_string(j, "name", measure_pkg_names[i]);
                json_kv_int(j, "residency_us", (long long) f->pkg_us[i]);
                json_kv_milli(j, "percent", measure_share_milli(f->pkg_us[i], r->interval_us));
                json_end_object(j);
        }
        json_end_array(j);
        json_kv_string(j, "deepest", f->deepest);
        json_kv_string(j, "deepest_from", f->deepest_from);
        json_kv_string(j, "reached", f->reached);
        json_kv_int_or_null(j, "reached_us", f->reached != NULL, (long long) f->reached_us);
        json_kv_milli_or_null(j, "reached_percent", f->reached != NULL,
                              measure_share_milli(f->reached_us, r->interval_us));
        json_kv_bool(j, "above", f->above);
        json_kv_milli_or_null(j, "watts", f->have_watts, f->milliwatts);
        json_kv_string(j, "watts_from", f->watts_from);
        json_kv_int_or_null(j, "s0i3_us", r->susp.amd_s0ix_us.err == 0, (long long) r->susp.amd_s0ix_us.v);
        json_kv_int_or_null(j, "last_hw_sleep_us", r->susp.have_last_hw_sleep, (long long) r->susp.last_hw_sleep_us);
        json_kv_bool(j, "ltr_unknown", f->ltr_unknown);
        json_key(j, "holders");
        json_begin_array(j);
        for (size_t i = 0; i < f->n_holders; i++) {
                const struct measure_holder *h = &f->holders[i];
                _cleanup_free_ char *why = measure_holder_reason(r, h, false);
                json_begin_object(j);
                json_kv_int(j, "rank", (long long) i + 1);
                json_kv_string(j, "kind", holder_kind_names[h->kind]);
                json_kv_string(j, "device", h->m->d->name);
                json_kv_string(j, "devpath", h->m->d->devpath);
                json_kv_string(j, "subsystem", h->m->d->subsystem);
                json_kv_string(j, "knob", h->kind == HOLD_KNOB_OFF ? h->m->knob : NULL);
                json_kv_string(j, "reason", why);
                json_end_object(j);
        }
        json_end_array(j);
        json_end_object(j);
}

/* ---- per setting ---- */

/* the state the two floors are compared at: the deepest either offers */
static const char *machine_state(const struct measure_floor *fx, const struct measure_floor *fy, unsigned long long *x_us,
                                 unsigned long long *y_us)
{
        const char *name = fy->deepest ? fy->deepest : fx->deepest;

        if (measure_floor_state_us(fx, name, x_us) && measure_floor_state_us(fy, name, y_us))
                return name;
        return NULL;
}

static double suspended_pct(const struct measure_dev *m)
{
        return measure_pct(m->suspended_ms, m->suspended_ms + m->active_ms);
}

void print_effects(const struct measure_result *x, const struct measure_result *y, const struct measure_floor *fx,
                   const struct measure_floor *fy, const struct measure_effects *e, FILE *out)
{
        unsigned long long ux = 0, uy = 0;
        const char *state = machine_state(fx, fy, &ux, &uy);

        if (e->n == 0) {
                fprintf(out, _("Per setting: no live value changed\n"));
                return;
        }
        fprintf(out, _("Per setting, what it gained or lost (in the units this machine gives):\n"));
        for (size_t i = 0; i < e->n; i++) {
                const struct measure_effect *t = &e->v[i];
                fprintf(out, "  %s%s%s (%s -> %s): ", t->s->knob, t->s->device_name ? _(" on ") : "",
                        strempty(t->s->device_name), t->value_before ? t->value_before : "?",
                        t->value_after ? t->value_after : "?");
                if (t->per_device) {
                        double d = suspended_pct(t->after) - suspended_pct(t->before);
                        fprintf(out, _("runtime-suspended %.1f%% -> %.1f%% of the time: %s %.1f points\n"),
                                suspended_pct(t->before), suspended_pct(t->after), d >= 0 ? _("gained") : _("lost"),
                                d >= 0 ? d : -d);
                } else if (e->machine_owner == t)
                        fprintf(out, _("the machine-wide change below is its own (the only setting that changed)\n"));
                else
                        fprintf(out, _("not measurable here: no counter of its own, and %zu settings changed at "
                                       "once\n"), e->n);
        }
        fprintf(out, _("Machine-wide: "));
        if (state)
                fprintf(out, _("package %s %.1f%% -> %.1f%% of the time"), state, measure_pct(ux, x->interval_us),
                        measure_pct(uy, y->interval_us));
        else
                fprintf(out, _("package residency not measurable here"));
        if (fx->have_watts && fy->have_watts)
                fprintf(out, _(", %.3f W -> %.3f W (%s)"), (double) fx->milliwatts / 1000.0,
                        (double) fy->milliwatts / 1000.0, fy->watts_from);
        else
                fprintf(out, _(", watts not measurable here"));
        if (e->machine_owner)
                fprintf(out, _(": all of it %s's, the only setting that changed\n"), e->machine_owner->s->knob);
        else
                fprintf(out, _(": not measurable per setting here: %zu settings changed at once, and a "
                               "machine-wide counter cannot tell them apart\n"), e->n);
}

static void json_effect(struct json *j, const struct measure_effect *t, const struct measure_effects *e)
{
        json_begin_object(j);
        json_kv_string(j, "knob", t->s->knob);
        json_kv_string(j, "device", t->s->device_name);
        json_kv_string(j, "devpath", t->s->device);
        json_kv_string(j, "value_before", t->value_before);
        json_kv_string(j, "value_after", t->value_after);
        json_kv_string(j, "unit", t->per_device ? "runtime_suspended_time" : NULL);
        json_kv_milli_or_null(j, "suspended_percent_before", t->per_device,
                              t->per_device ? measure_share_milli(t->before->suspended_ms,
                                                                  t->before->suspended_ms + t->before->active_ms) : 0);
        json_kv_milli_or_null(j, "suspended_percent_after", t->per_device,
                              t->per_device ? measure_share_milli(t->after->suspended_ms,
                                                                  t->after->suspended_ms + t->after->active_ms) : 0);
        json_kv_bool(j, "machine_wide_is_its_own", e->machine_owner == t);
        json_kv_string(j, "note", t->per_device || e->machine_owner == t ? NULL :
                       "not measurable here: no counter of its own, and more than one setting changed");
        json_end_object(j);
}

void json_effects(struct json *j, const struct measure_result *x, const struct measure_result *y,
                  const struct measure_floor *fx, const struct measure_floor *fy, const struct measure_effects *e)
{
        unsigned long long ux = 0, uy = 0;
        const char *state = machine_state(fx, fy, &ux, &uy);

        json_key(j, "effects");
        json_begin_object(j);
        json_key(j, "settings");
        json_begin_array(j);
        for (size_t i = 0; i < e->n; i++)
                json_effect(j, &e->v[i], e);
        json_end_array(j);
        json_key(j, "machine");
        json_begin_object(j);
        json_kv_string(j, "state", state);
        json_kv_milli_or_null(j, "residency_percent_before", state, measure_share_milli(ux, x->interval_us));
        json_kv_milli_or_null(j, "residency_percent_after", state, measure_share_milli(uy, y->interval_us));
        json_kv_milli_or_null(j, "watts_before", fx->have_watts && fy->have_watts, fx->milliwatts);
        json_kv_milli_or_null(j, "watts_after", fx->have_watts && fy->have_watts, fy->milliwatts);
        json_kv_string(j, "watts_from", fx->have_watts && fy->have_watts ? fy->watts_from : NULL);
        json_kv_string(j, "attributed_to", e->machine_owner ? e->machine_owner->s->knob : NULL);
        json_kv_string(j, "attributed_device", e->machine_owner ? e->machine_owner->s->device_name : NULL);
        json_kv_string(j, "note", e->machine_owner ? NULL : e->n == 0 ? "no setting changed" :
                       "not measurable per setting here: more than one setting changed at once");
        json_end_object(j);
        json_end_object(j);
}

void effects_record(const struct measure_result *x, const struct measure_result *y, const struct measure_floor *fx,
                    const struct measure_floor *fy, const struct measure_effects *e, const struct inventory *inv,
                    const char *profile, struct measured *ret)
{
        unsigned long long ux = 0, uy = 0;
        const char *state = machine_state(fx, fy, &ux, &uy);

        *ret = (struct measured) { .time = (long long) time(NULL), .kernel = xstrdup(inv->kernel),
                                   .fingerprint = xstrdup(inv->fingerprint),
                                   .profile = profile ? xstrdup(profile) : NULL };
        if (state) {
                ret->have_residency = true;
                ret->state = xstrdup(state);
                ret->residency_before = measure_share_milli(ux, x->interval_us);
                ret->residency_after = measure_share_milli(uy, y->interval_us);
        }
        if (fx->have_watts && fy->have_watts) {
                ret->have_watts = true;
                ret->mw_before = fx->milliwatts;
                ret->mw_after = fy->milliwatts;
                ret->watts_from = fy->watts_from ? xstrdup(fy->watts_from) : NULL;
        }
        for (size_t i = 0; i < e->n; i++) {
                const struct measure_effect *t = &e->v[i];
                /* the device as a report names it (report_value_private(): never a MAC or UUID) */
                const char *dev = report_value_private(t->s->device_name) ? NULL : t->s->device_name;
                struct measured_setting *s = measured_add(ret, t->s->knob, dev, t->value_before, t->value_after,
                                                          t->per_device ? MEASURED_DEVICE :
                                                          e->machine_owner == t ? MEASURED_MACHINE : MEASURED_NONE);
                if (t->per_device) {
                        s->before_milli = measure_share_milli(t->before->suspended_ms,
                                                              t->before->suspended_ms + t->before->active_ms);
                        s->after_milli = measure_share_milli(t->after->suspended_ms,
                                                             t->after->suspended_ms + t->after->active_ms);
                }
        }
}
