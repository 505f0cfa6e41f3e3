/* measure.c: the difference of two idle samples (measure-sample.c): who
 * suspended, who stayed awake and why, how long settings take to show
 *
 * Everything here reads; nothing prints. A counter that is absent or
 * unreadable keeps its -errno so that the printer can say so instead of
 * showing a zero. */
#include "config.h"

#include "knobs/knob.h"
#include "knobs/registry.h"
#include "engine/measure.h"

const char *const awake_why_names[_WHY_MAX] = {
        "suspended", "no-runtime-pm", "knob-off", "on-purpose", "child", "busy",
};

/* ---- the difference ---- */

unsigned long long measure_energy_delta(unsigned long long start, unsigned long long end, unsigned long long max,
                                        bool *ret_wrapped)
{
        *ret_wrapped = end < start;
        if (end >= start)
                return end - start;
        /* the counter ran past max_energy_range_uj and started again at 0 */
        return max >= start ? max - start + end : end;
}

static const struct m_dev *find_dev(const struct measure_sample *s, const char *devpath)
{
        struct m_dev key = { .devpath = (char *) devpath };

        return s->n_devs ? bsearch(&key, s->devs, s->n_devs, sizeof(key), measure_dev_cmp) : NULL;
}

/* the plan's setting of power/control on DEVPATH */
static const struct setting *runtime_setting(const struct plan *p, const char *devpath)
{
        for (size_t i = 0; p && i < p->n; i++) {
                const struct setting *s = &p->v[i];
                if (knob_runtime_pm_placed(s, devpath))
                        return s;
                if (!streq_ptr(s->device, devpath))
                        continue;
                if (streq_ptr(s->attr, "power/control") || (!s->value && knob_runtime_pm_measured(s->device_class) &&
                                                            streq(s->knob,
                                                                  knob_runtime_pm_measured(s->device_class))))
                        return s;
        }
        return NULL;
}

static const char *inv_class(const struct device *d, const char *devpath)
{
        if (streq_ptr(d->devpath, devpath))
                return d->class;
        for (size_t i = 0; i < d->n_children; i++) {
                const char *c = inv_class(&d->children[i], devpath);
                if (c)
                        return c;
        }
        return NULL;
}

static const char *find_class(const struct inventory *inv, const char *devpath)
{
        for (size_t c = 0; inv && c < _CL_MAX; c++)
                for (size_t i = 0; i < inv->classes[c].n; i++) {
                        const char *x = inv_class(&inv->classes[c].v[i], devpath);
                        if (x)
                                return x;
                }
        return NULL;
}

static bool status_awake(const char *status)
{
        return streq(status, "active") || streq(status, "resuming") || streq(status, "suspending");
}

static int mdev_cmp(const void *key, const void *elem)
{
        return strcmp(key, ((const struct measure_dev *) elem)->d->devpath);
}

/* the nearest ancestor of device I in R->devs (sorted by devpath) that is in the list, or SIZE_MAX */
static size_t parent_of(const struct measure_result *r, size_t i)
{
        _cleanup_free_ char *p = xstrdup(r->devs[i].d->devpath);
        char *slash;

        while ((slash = strrchr(p, '/')) && slash != p) {
                const struct measure_dev *m;
                *slash = '\0';
                m = bsearch(p, r->devs, r->n_devs, sizeof(*r->devs), mdev_cmp);
                if (m)
                        return (size_t) (m - r->devs);
        }
        return SIZE_MAX;
}

static int count_cmp(const void *a, const void *b)
{
        const struct measure_count *x = a, *y = b;

        if (x->delta != y->delta)
                return x->delta > y->delta ? -1 : 1;
        return strcmp(x->c->key, y->c->key);
}

static void diff_counts(const struct m_count *a, size_t na, const struct m_count *b, size_t nb,
                        struct measure_count **ret, size_t *ret_n)
{
        struct measure_count *v = NULL;
        size_t n = 0;

        for (size_t i = 0; i < nb; i++) {
                const struct m_count *old = NULL;
                unsigned long long d, d2;
                for (size_t k = 0; k < na && !old; k++)
                        if (streq(a[k].key, b[i].key) && streq_ptr(a[k].desc, b[i].desc))
                                old = &a[k];
                /* a source that appeared during the interval counts from zero */
                d = old ? (b[i].count >= old->count ? b[i].count - old->count : 0) : b[i].count;
                d2 = old ? (b[i].count2 >= old->count2 ? b[i].count2 - old->count2 : 0) : b[i].count2;
                if (d == 0 && d2 == 0)
                        continue;
                v = xrealloc(v, (n + 1) * sizeof(*v));
                v[n++] = (struct measure_count) { .c = &b[i], .delta = d, .delta2 = d2 };
        }
        if (n > 1)
                qsort(v, n, sizeof(*v), count_cmp);
        *ret = v;
        *ret_n = n;
}

static bool battery_energy(const struct m_battery *b, long long *ret_uwh)
{
        if (b->energy_uwh.err == 0) {
                *ret_uwh = (long long) b->energy_uwh.v;
                return true;
        }
        if (b->charge_uah.err == 0 && b->voltage_uv.err == 0) {
                *ret_uwh = (long long) (b->charge_uah.v * b->voltage_uv.v / 1000000u);
                return true;
        }
        return false;
}

/* the devices: those with runtime PM, and those of a planned class without it */
static void diff_devs(const struct measure_sample *a, const struct measure_sample *b, const struct plan *p,
                      const struct inventory *inv, struct measure_result *r)
{
        for (size_t i = 0; i < b->n_devs; i++) {
                const struct m_dev *d = &b->devs[i], *old = find_dev(a, d->devpath);
                const char *class = find_class(inv, d->devpath);
                const struct setting *s = runtime_setting(p, d->devpath);
                struct measure_dev *m;

                /* without runtime PM: only a bound device idlecfg plans (class devices such
                 * as connectors or sound cards never have it, and say nothing) */
                if (streq(d->status, "unsupported") && !s && !(class && d->driver))
                        continue;
                r->devs = xrealloc(r->devs, (r->n_devs + 1) * sizeof(*r->devs));
                m = &r->devs[r->n_devs++];
                *m = (struct measure_dev) { .d = d, .class = class, .s = s };
                m->knob = s ? s->knob : knob_runtime_pm_measured(class);
                m->have_times = old && !d->active_ms.err && !d->suspended_ms.err && !old->active_ms.err &&
                                !old->suspended_ms.err && d->active_ms.v >= old->active_ms.v &&
                                d->suspended_ms.v >= old->suspended_ms.v;
                if (m->have_times) {
                        m->active_ms = d->active_ms.v - old->active_ms.v;
                        m->suspended_ms = d->suspended_ms.v - old->suspended_ms.v;
                        m->awake = m->suspended_ms == 0 && !streq(d->status, "suspended");
                } else
                        m->awake = !streq(d->status, "suspended");
        }
}

/* why each awake device stayed awake */
static void diff_why(struct measure_result *r)
{
        for (size_t i = 0; i < r->n_devs; i++) {
                struct measure_dev *m = &r->devs[i];
                if (!m->awake)
                        m->why = WHY_SUSPENDED;
                else if (streq(m->d->status, "unsupported") || streq(m->d->status, "error"))
                        m->why = WHY_NO_RUNTIME_PM;
                else if (streq_ptr(m->d->control, "on"))
                        m->why = m->s && (!m->s->value || streq(m->s->value, "on")) ? WHY_ON_PURPOSE : WHY_KNOB_OFF;
                else
                        m->why = WHY_BUSY;
        }
}

/* a busy device: the chain of awake children down to the leaf that holds it awake */
static void diff_chains(struct measure_result *r)
{
        size_t *parent;

        parent = xcalloc(r->n_devs + 1, sizeof(*parent));
        for (size_t i = 0; i < r->n_devs; i++)
                parent[i] = parent_of(r, i);
        for (size_t i = 0; i < r->n_devs; i++) {
                struct measure_dev *m = &r->devs[i];
                size_t cur = i;
                if (m->why != WHY_BUSY)
                        continue;
                /* follow awake children down to the leaf that holds the chain */
                for (unsigned depth = 0; depth < 64; depth++) {
                        size_t next = SIZE_MAX, busy = SIZE_MAX;
                        /* an awake child with a reason of its own explains more than a busy one */
                        for (size_t k = 0; k < r->n_devs && next == SIZE_MAX; k++)
                                if (k != cur && parent[k] == cur && r->devs[k].awake &&
                                    status_awake(r->devs[k].d->status)) {
                                        if (r->devs[k].why == WHY_BUSY || r->devs[k].why == WHY_CHILD)
                                                busy = busy == SIZE_MAX ? k : busy;
                                        else
                                                next = k;
                                }
                        if (next == SIZE_MAX)
                                next = busy;
                        if (next == SIZE_MAX)
                                break;
                        m->chain = xrealloc(m->chain, (m->n_chain + 1) * sizeof(*m->chain));
                        m->chain[m->n_chain++] = next;
                        cur = next;
                        /* a device awake for its own reason ends the chain: it is the leaf */
                        if (r->devs[next].why != WHY_BUSY && r->devs[next].why != WHY_CHILD)
                                break;
                }
                if (m->n_chain > 0)
                        m->why = WHY_CHILD;
        }
        free(parent);
}

/* cpuidle: time and entries of each C-state of each CPU; the residency counters */
static void diff_cpus(const struct measure_sample *a, const struct measure_sample *b, struct measure_result *r)
{
        for (size_t i = 0; i < b->n_cpus; i++) {
                const struct m_cpu *cb = &b->cpus[i], *ca = NULL;
                struct measure_cpu *mc;
                for (size_t k = 0; k < a->n_cpus && !ca; k++)
                        if (a->cpus[k].cpu == cb->cpu)
                                ca = &a->cpus[k];
                r->cpus = xrealloc(r->cpus, (r->n_cpus + 1) * sizeof(*r->cpus));
                mc = &r->cpus[r->n_cpus++];
                *mc = (struct measure_cpu) { .cpu = cb->cpu, .states = xcalloc(cb->n_states + 1, sizeof(*mc->states)),
                                             .n_states = cb->n_states };
                for (size_t k = 0; k < cb->n_states; k++) {
                        const struct m_cstate *sb = &cb->states[k], *sa = NULL;
                        for (size_t q = 0; ca && q < ca->n_states && !sa; q++)
                                if (ca->states[q].index == sb->index)
                                        sa = &ca->states[q];
                        mc->states[k].name = sb->name;
                        mc->states[k].have = sa && !sa->time_us.err && !sb->time_us.err && !sa->usage.err &&
                                             !sb->usage.err && sb->time_us.v >= sa->time_us.v &&
                                             sb->usage.v >= sa->usage.v;
                        if (mc->states[k].have) {
                                mc->states[k].time_us = sb->time_us.v - sa->time_us.v;
                                mc->states[k].usage = sb->usage.v - sa->usage.v;
                        }
                }
        }
        for (size_t i = 0; i < _M_RES_MAX; i++) {
                if (a->residency[i].err < 0 || b->residency[i].err < 0)
                        r->residency[i].err = a->residency[i].err < 0 ? a->residency[i].err : b->residency[i].err;
                else if (b->residency[i].v < a->residency[i].v)
                        r->residency[i].err = -ERANGE;
                else
                        r->residency[i].v = b->residency[i].v - a->residency[i].v;
        }
}

/* energy: RAPL zones and batteries */
static void diff_energy(const struct measure_sample *a, const struct measure_sample *b, struct measure_result *r)
{
        for (size_t i = 0; i < b->n_zones; i++) {
                const struct m_zone *zb = &b->zones[i], *za = NULL;
                struct measure_zone *mz;
                for (size_t k = 0; k < a->n_zones && !za; k++)
                        if (streq(a->zones[k].id, zb->id))
                                za = &a->zones[k];
                r->zones = xrealloc(r->zones, (r->n_zones + 1) * sizeof(*r->zones));
                mz = &r->zones[r->n_zones++];
                *mz = (struct measure_zone) { .z = zb };
                if (zb->energy_uj.err < 0)
                        mz->err = zb->energy_uj.err;
                else if (!za || za->energy_uj.err < 0)
                        mz->err = za ? za->energy_uj.err : -ENOENT;
                else if (zb->energy_uj.v < za->energy_uj.v && zb->max_uj.err < 0)
                        mz->err = -ERANGE;      /* it wrapped, and where is unknown */
                else
                        mz->delta_uj = measure_energy_delta(za->energy_uj.v, zb->energy_uj.v, zb->max_uj.v,
                                                            &mz->wrapped);
        }
        for (size_t i = 0; i < b->n_bats; i++) {
                const struct m_battery *bb = &b->bats[i], *ba = NULL;
                struct measure_battery *mb;
                long long ea, eb;
                for (size_t k = 0; k < a->n_bats && !ba; k++)
                        if (streq(a->bats[k].name, bb->name))
                                ba = &a->bats[k];
                r->bats = xrealloc(r->bats, (r->n_bats + 1) * sizeof(*r->bats));
                mb = &r->bats[r->n_bats++];
                *mb = (struct measure_battery) { .b = bb };
                if (ba && battery_energy(ba, &ea) && battery_energy(bb, &eb)) {
                        mb->have_energy = true;
                        mb->drained_uwh = ea - eb;
                }
        }
}

static struct m_value value_delta(struct m_value a, struct m_value b)
{
        if (a.err < 0 || b.err < 0)
                return (struct m_value) { .err = a.err < 0 ? a.err : b.err };
        return (struct m_value) { .v = b.v >= a.v ? b.v - a.v : 0 };
}

static void diff_suspend(const struct measure_sample *a, const struct measure_sample *b, struct measure_result *r)
{
        struct measure_suspend *s = &r->susp;

        s->have_cycles = a->susp.success.err == 0 && b->susp.success.err == 0;
        s->cycles = s->have_cycles && b->susp.success.v > a->susp.success.v ? b->susp.success.v - a->susp.success.v : 0;
        s->total_hw_sleep_us = value_delta(a->susp.total_hw_sleep, b->susp.total_hw_sleep);
        s->amd_s0ix_us = value_delta(a->susp.amd_s0ix_us, b->susp.amd_s0ix_us);
        s->last_failed_dev = b->susp.last_failed_dev;
        if (!s->cycles)
                return;
        if (b->susp.last_hw_sleep.err == 0) {
                s->hw_sleep_wraps = r->interval_us >= MEASURE_HW_SLEEP_WRAP_US;
                s->have_last_hw_sleep = !s->hw_sleep_wraps;
                s->last_hw_sleep_us = b->susp.last_hw_sleep.v;
        }
        if (b->susp.wakeup_irq.err == 0) {
                _cleanup_free_ char *key = xasprintf("%llu", b->susp.wakeup_irq.v);
                s->have_wakeup_irq = true;
                s->wakeup_irq = b->susp.wakeup_irq.v;
                for (size_t i = 0; !b->irq_err && i < b->n_irqs; i++)
                        if (streq(b->irqs[i].key, key))
                                s->wakeup_irq_line = &b->irqs[i];
        }
}

int measure_diff(const struct measure_sample *a, const struct measure_sample *b, const struct plan *p,
                 const struct inventory *inv, struct measure_result **ret)
{
        struct measure_result *r = xcalloc(1, sizeof(*r));

        r->a = a;
        r->b = b;
        r->interval_us = b->t_us > a->t_us ? b->t_us - a->t_us : 0;
        diff_devs(a, b, p, inv, r);
        diff_why(r);
        diff_chains(r);
        diff_cpus(a, b, r);
        diff_energy(a, b, r);
        if (!a->irq_err && !b->irq_err)
                diff_counts(a->irqs, a->n_irqs, b->irqs, b->n_irqs, &r->irqs, &r->n_irqs);
        if (!a->wakeup_err && !b->wakeup_err)
                diff_counts(a->wakeups, a->n_wakeups, b->wakeups, b->n_wakeups, &r->wakeups, &r->n_wakeups);
        diff_suspend(a, b, r);
        *ret = r;
        return 0;
}

void measure_result_free(struct measure_result *r)
{
        if (!r)
                return;
        for (size_t i = 0; i < r->n_devs; i++)
                free(r->devs[i].chain);
        free(r->devs);
        for (size_t i = 0; i < r->n_cpus; i++)
                free(r->cpus[i].states);
        free(r->cpus);
        free(r->zones);
        free(r->bats);
        free(r->irqs);
        free(r->wakeups);
        free(r);
}

/* ---- how long settings take to show ---- */

unsigned long long measure_settle_ms(const struct measure_sample *s, const struct plan *p, size_t **ret_chain,
                                     size_t *ret_n_chain, unsigned long long *ret_knob_ms,
                                     const char **ret_knob_message)
{
        /* total[i]: its own delay plus the longest total of its children; next[i]: that child + 1 */
        unsigned long long *total = xcalloc(s->n_devs + 1, sizeof(*total)), best = 0, knob;
        size_t *next = xcalloc(s->n_devs + 1, sizeof(*next)), top = SIZE_MAX;

        /* sorted by devpath, a device's descendants come after it: walking
         * backwards, each device is complete before its ancestors need it */
        for (size_t i = s->n_devs; i-- > 0;) {
                const struct m_dev *d = &s->devs[i];
                size_t len = strlen(d->devpath);
                if (streq_ptr(d->control, "on") || streq(d->status, "unsupported") ||
                    streq(d->status, "suspended")) {
                        /* it will not suspend, or it already is: nothing to wait for */
                        total[i] = 0;
                        continue;
                }
                if (d->delay_ms > 0)
                        total[i] += (unsigned long long) d->delay_ms;
                if (total[i] > best || (total[i] == best && top == SIZE_MAX && total[i] > 0)) {
                        best = total[i];
                        top = i;
                }
                for (size_t k = i; k-- > 0;) {
                        size_t l = strlen(s->devs[k].devpath);
                        if (l < len && strncmp(s->devs[k].devpath, d->devpath, l) == 0 && d->devpath[l] == '/') {
                                if (total[i] > total[k]) {
                                        total[k] = total[i];    /* its own delay is added when it is reached */
                                        next[k] = i + 1;
                                }
                                break;
                        }
                }
        }
        *ret_chain = NULL;
        *ret_n_chain = 0;
        for (size_t i = top; i != SIZE_MAX; i = next[i] ? next[i] - 1 : SIZE_MAX) {
                *ret_chain = xrealloc(*ret_chain, (*ret_n_chain + 1) * sizeof(**ret_chain));
                (*ret_chain)[(*ret_n_chain)++] = i;
        }
        /* leaf first */
        for (size_t i = 0; i < *ret_n_chain / 2; i++) {
                size_t t = (*ret_chain)[i];
                (*ret_chain)[i] = (*ret_chain)[*ret_n_chain - 1 - i];
                (*ret_chain)[*ret_n_chain - 1 - i] = t;
        }
        knob = knob_settle_ms(p, ret_knob_message);
        free(total);
        free(next);
        *ret_knob_ms = knob;
        return best > knob ? best : knob;
}

static const struct measure_dev *result_dev(const struct measure_result *r, const char *devpath)
{
        for (size_t i = 0; i < r->n_devs; i++)
                if (streq(r->devs[i].d->devpath, devpath))
                        return &r->devs[i];
        return NULL;
}

/* did power/control of DEVPATH change between the end of BEFORE and the start of AFTER? */
static bool control_changed(const struct measure_result *before, const struct measure_result *after,
                            const char *devpath, const struct m_dev **ret_old, const struct m_dev **ret_new)
{
        const struct m_dev *o = find_dev(before->b, devpath), *n = find_dev(after->a, devpath);

        if (!o || !n || streq_ptr(o->control, n->control))
                return false;
        *ret_old = o;
        *ret_new = n;
        return true;
}

int measure_compare(const struct measure_result *before, const struct measure_result *after, const struct plan *p,
                    struct measure_change **ret, size_t *ret_n)
{
        struct measure_change *v = NULL;
        size_t n = 0;

        for (size_t i = 0; i < after->n_devs; i++) {
                const struct measure_dev *ma = &after->devs[i], *mb = result_dev(before, ma->d->devpath), *awake;
                const struct measure_result *ra;
                struct measure_change *c;
                const struct m_dev *o = NULL, *nw = NULL;

                if (!mb || mb->awake == ma->awake)
                        continue;
                v = xrealloc(v, (n + 1) * sizeof(*v));
                c = &v[n++];
                *c = (struct measure_change) { .before = mb, .after = ma, .now_suspends = mb->awake };
                /* the awake side names the chain that held it */
                awake = c->now_suspends ? mb : ma;
                ra = c->now_suspends ? before : after;
                if (control_changed(before, after, ma->d->devpath, &o, &nw))
                        c->cause = nw;
                for (size_t k = 0; !c->cause && k < awake->n_chain; k++)
                        if (control_changed(before, after, ra->devs[awake->chain[k]].d->devpath, &o, &nw))
                                c->cause = nw;
                if (c->cause) {
                        c->control_before = o->control;
                        c->control_after = nw->control;
                        c->s = runtime_setting(p, c->cause->devpath);
                }
        }
        *ret = v;
        *ret_n = n;
        return 0;
}
