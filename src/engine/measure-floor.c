/* measure-floor.c: the floor of one measurement (the deepest package C-state
 * reached and the devices most likely holding it), and what each setting a
 * change made gained or lost
 *
 * Everything here reads; nothing prints. What the machine's counters do not
 * say stays unsaid: no share is divided among settings, no state is guessed
 * from another counter. */
#include "config.h"

#include "engine/apply.h"
#include "engine/measure-floor.h"

const char *const floor_source_names[_FLOOR_MAX] = { "none", "cstate_pkg", "lpit", "watts" };
const char *const holder_kind_names[_HOLD_MAX] = {
        "knob-off", "aspm-l1-off", "ltr-off", "child", "on-purpose", "busy", "no-runtime-pm",
};

/* the package C-states from cstate_pkg: each one's residency in microseconds,
 * its count's share of the time stamp counter's delta over the interval */
static bool floor_cstate(const struct measure_result *r, struct measure_floor *f)
{
        const struct m_pkg *a = &r->a->pkg, *b = &r->b->pkg;
        unsigned long long tsc;

        f->pkg_err = a->err < 0 ? a->err : b->err;
        if (f->pkg_err < 0)
                return false;
        if (b->tsc <= a->tsc) {
                f->pkg_err = -ERANGE;
                return false;
        }
        tsc = b->tsc - a->tsc;
        f->source = FLOOR_CSTATE_PKG;
        f->deepest_from = "cstate_pkg";
        for (size_t i = 0; i < _M_PKG_MAX; i++) {
                unsigned long long d;
                if (!a->have[i] || !b->have[i])
                        continue;
                d = b->count[i] >= a->count[i] ? b->count[i] - a->count[i] : 0;
                f->pkg_have[i] = true;
                f->pkg_us[i] = (unsigned long long) ((double) d / (double) tsc * (double) r->interval_us + 0.5);
                f->deepest = measure_pkg_names[i];
                if (d > 0) {
                        f->reached = measure_pkg_names[i];
                        f->reached_us = f->pkg_us[i];
                }
        }
        f->above = f->deepest && f->reached != f->deepest;
        return true;
}

/* LPIT's CPU low-power idle residency is the package's time in PC10
 * (Documentation/ABI/testing/sysfs-devices-system-cpu,
 * low_power_idle_cpu_residency_us): it says PC10 or not, not which state
 * above it the package stopped at */
static bool floor_lpit(const struct measure_result *r, struct measure_floor *f)
{
        if (r->residency[M_LPI_CPU].err < 0)
                return false;
        f->source = FLOOR_LPIT;
        f->deepest = "PC10";
        f->deepest_from = "lpit";
        if (r->residency[M_LPI_CPU].v > 0) {
                f->reached = "PC10";
                f->reached_us = r->residency[M_LPI_CPU].v;
        }
        f->above = !f->reached;
        return true;
}

/* the draw: RAPL's package zone, else a discharging battery's energy */
static void floor_watts(const struct measure_result *r, struct measure_floor *f)
{
        for (size_t i = 0; i < r->n_zones && !f->have_watts; i++) {
                const struct measure_zone *z = &r->zones[i];
                if (z->err < 0 || !z->z->name || !startswith(z->z->name, "package") || !r->interval_us)
                        continue;
                f->have_watts = true;
                f->milliwatts = (long long) ((double) z->delta_uj * 1000.0 / (double) r->interval_us + 0.5);
                f->watts_from = z->z->id;
        }
        for (size_t i = 0; i < r->n_bats && !f->have_watts; i++) {
                const struct measure_battery *b = &r->bats[i];
                if (!b->have_energy || !streq_ptr(b->b->status, "Discharging") || !r->interval_us)
                        continue;
                f->have_watts = true;
                f->milliwatts = (long long) ((double) b->drained_uwh * 3600.0 * 1000.0 / (double) r->interval_us);
                f->watts_from = b->b->name;
                f->watts_battery = true;
        }
}

static void holder_add(struct measure_floor *f, enum holder_kind kind, const struct measure_dev *m)
{
        f->holders = xrealloc(f->holders, (f->n_holders + 1) * sizeof(*f->holders));
        f->holders[f->n_holders++] = (struct measure_holder) { .kind = kind, .m = m };
}

static int holder_cmp(const void *x, const void *y)
{
        const struct measure_holder *a = x, *b = y;
        bool pa = streq_ptr(a->m->d->subsystem, "pci"), pb = streq_ptr(b->m->d->subsystem, "pci");

        if (a->kind != b->kind)
                return a->kind < b->kind ? -1 : 1;
        /* a PCI function sits on the package's own links: before what hangs below it */
        if (pa != pb)
                return pa ? -1 : 1;
        return strcmp(a->m->d->devpath, b->m->d->devpath);
}

/* what most likely holds the package above its deepest state, ranked */
static void floor_holders(const struct measure_result *r, struct measure_floor *f)
{
        static const enum holder_kind of_why[_WHY_MAX] = {
                [WHY_SUSPENDED] = _HOLD_MAX, [WHY_NO_RUNTIME_PM] = HOLD_NO_RUNTIME_PM,
                [WHY_KNOB_OFF] = HOLD_KNOB_OFF, [WHY_ON_PURPOSE] = HOLD_ON_PURPOSE,
                [WHY_CHILD] = HOLD_CHILD, [WHY_BUSY] = HOLD_BUSY,
        };

        for (size_t i = 0; i < r->n_devs; i++) {
                const struct measure_dev *m = &r->devs[i];
                /* awake some of the time: a link or latency it holds counts */
                bool up = m->awake || (m->have_times && m->active_ms > 0);
                if (m->d->ltr_unknown)
                        f->ltr_unknown = true;
                if (m->awake && of_why[m->why] != _HOLD_MAX)
                        holder_add(f, of_why[m->why], m);
                if (up && m->d->l1_aspm == 0)
                        holder_add(f, HOLD_ASPM, m);
                if (up && m->d->ltr == 0)
                        holder_add(f, HOLD_LTR, m);
        }
        if (f->n_holders > 1)
                qsort(f->holders, f->n_holders, sizeof(*f->holders), holder_cmp);
}

void measure_floor(const struct measure_result *r, struct measure_floor *ret)
{
        struct measure_floor f = {};

        if (!floor_cstate(r, &f) && !floor_lpit(r, &f))
                f.source = FLOOR_NONE;
        floor_watts(r, &f);
        if (f.source == FLOOR_NONE && f.have_watts)
                f.source = FLOOR_WATTS;
        if (f.above)
                floor_holders(r, &f);
        *ret = f;
}

void measure_floor_done(struct measure_floor *f)
{
        free(f->holders);
        *f = (struct measure_floor) {};
}

bool measure_floor_state_us(const struct measure_floor *f, const char *name, unsigned long long *ret_us)
{
        if (!name)
                return false;
        if (f->source == FLOOR_CSTATE_PKG)
                for (size_t i = 0; i < _M_PKG_MAX; i++)
                        if (f->pkg_have[i] && streq(measure_pkg_names[i], name)) {
                                *ret_us = f->pkg_us[i];
                                return true;
                        }
        if (f->source == FLOOR_LPIT && streq(name, "PC10")) {
                *ret_us = f->reached_us;
                return true;
        }
        return false;
}

/* ---- per setting ---- */

char **measure_live_values(const struct plan *p)
{
        char **v = xcalloc(p->n + 1, sizeof(*v));

        for (size_t i = 0; i < p->n; i++) {
                const char *why = NULL;
                _cleanup_free_ char *path = p->v[i].value ? setting_live_path(&p->v[i], &why) : NULL;
                char *text = NULL;
                if (!path || read_file_full(path, 4096, &text, NULL) < 0)
                        continue;
                v[i] = strstrip(text) == text ? text : xstrdup(strstrip(text));
                if (v[i] != text)
                        free(text);
        }
        return v;
}

void measure_live_free(char **v, size_t n)
{
        for (size_t i = 0; v && i < n; i++)
                free(v[i]);
        free(v);
}

static const struct measure_dev *result_dev_at(const struct measure_result *r, const char *devpath)
{
        for (size_t i = 0; devpath && i < r->n_devs; i++)
                if (streq(r->devs[i].d->devpath, devpath))
                        return &r->devs[i];
        return NULL;
}

void measure_effects(const struct measure_result *before, const struct measure_result *after, const struct plan *p,
                     char **before_values, char **after_values, struct measure_effects *ret)
{
        struct measure_effects e = {};

        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                struct measure_effect *x;
                if (!s->value || (!before_values[i] && !after_values[i]) ||
                    streq_ptr(before_values[i], after_values[i]))
                        continue;
                e.v = xrealloc(e.v, (e.n + 1) * sizeof(*e.v));
                x = &e.v[e.n++];
                *x = (struct measure_effect) { .s = s, .value_before = before_values[i],
                                               .value_after = after_values[i] };
                x->before = result_dev_at(before, s->device);
                x->after = result_dev_at(after, s->device);
                x->per_device = x->before && x->after && x->before->have_times && x->after->have_times &&
                                x->before->active_ms + x->before->suspended_ms > 0 &&
                                x->after->active_ms + x->after->suspended_ms > 0;
        }
        e.machine_owner = e.n == 1 ? &e.v[0] : NULL;
        *ret = e;
}

void measure_effects_free(struct measure_effects *e)
{
        free(e->v);
        *e = (struct measure_effects) {};
}
