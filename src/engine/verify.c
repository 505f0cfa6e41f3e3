/* verify.c: each setting of the plan against the running system; the idle
 * blockers, as the knob families declare them (src/knobs/X.c, .blockers;
 * .live_value where sysfs does not show a setting);
 * the package residency counters */
#include "config.h"

#include <dirent.h>
#include <fnmatch.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "engine/apply.h"
#include "knobs/knob.h"
#include "knobs/registry.h"
#include "root/grubenv.h"
#include "root/targets.h"
#include "state/manifest.h"
#include "engine/verify.h"

const char *const verify_state_names[_VERIFY_MAX] = {
        [VERIFY_MATCH] = "match",
        [VERIFY_DRIFT] = "drift",
        [VERIFY_LATER] = "later",
        [VERIFY_MISSING] = "missing",
};

const char *const verify_runtime_names[_VERIFY_RT_MAX] = {
        [VERIFY_RT_D3COLD] = "d3cold",
        [VERIFY_RT_SUSPENDED] = "suspended",
        [VERIFY_RT_AWAKE] = "awake",
};

const char *const verify_residency_names[_M_RES_MAX] = {
        [M_LPI_CPU] = "low_power_idle_cpu_residency_us",
        [M_LPI_SYSTEM] = "low_power_idle_system_residency_us",
        [M_PMC_SLP_S0] = "pmc_core_slp_s0_residency_usec",
};

int verify_residency_stem(size_t i)
{
        return (int) (strstr(verify_residency_names[i], "_residency_") - verify_residency_names[i]);
}

/* what the plan says about KNOB on device DEVPATH: the setting, or NULL */
static const struct setting *plan_find(const struct plan *p, const char *devpath, const char *knob)
{
        for (size_t i = 0; i < p->n; i++)
                if (streq_ptr(p->v[i].device, devpath) && knob && streq(p->v[i].knob, knob))
                        return &p->v[i];
        return NULL;
}

struct blockers {
        struct verify_blocker *v;
        size_t n;
        struct verify_runtime *rt;
        size_t n_rt;
};

static void blocker_add(struct blockers *b, const struct plan *p, const struct device *d, const char *knob,
                        char *what_take)
{
        const struct setting *s = plan_find(p, d->devpath, knob), *g;

        /* a knob set once for all devices (a module parameter, such as
         * ahci.mask_port_ext): its planned value is this device's too */
        if (!s && (g = plan_find(p, NULL, knob)) && g->value)
                s = g;
        b->v = xrealloc(b->v, (b->n + 1) * sizeof(*b->v));
        b->v[b->n++] = (struct verify_blocker) { .d = d, .what = what_take, .knob = knob, .s = s };
}

/* MESSAGE (translated) with its "%s", if any, replaced by VALUE */
static char *blocker_message(const char *message, const char *value)
{
        const char *at = strstr(message, "%s");

        if (!at)
                return xstrdup(message);
        return xasprintf("%.*s%s%s", (int) (at - message), message, value, at + 2);
}

/* one family's blocker X on device D */
static void family_blocker(const struct knob_blocker *x, const struct plan *p, const struct device *d,
                           struct blockers *b)
{
        const char *v;

        if (x->class && !streq_ptr(d->class, x->class))
                return;
        if (x->check) {
                _cleanup_free_ char *devpath = NULL;
                char *what = x->check(d, &devpath);
                const struct setting *s;
                if (!what)
                        return;
                blocker_add(b, p, d, x->knob, what);
                if (devpath && (s = plan_find(p, devpath, x->knob)))
                        b->v[b->n - 1].s = s;
        } else if ((v = kv_get(&d->knobs, x->attr)) && fnmatch(x->bad, v, 0) == 0)
                blocker_add(b, p, d, x->knob, blocker_message(_(x->message), v));
}

/* the runtime power of device D where a followed setting of the plan sets its
 * power/control = auto: D3cold per power_state (PCI, drivers/pci/pci-sysfs.c,
 * Linux 5.11 on) or the ACPI companion's real_power_state
 * (drivers/acpi/device_sysfs.c), else suspended or awake per
 * power/runtime_status; why not D3cold: D's blocker of the setting's knob
 * (FAMILY on: the families'), else its runtime PM blocker (FIRST to FAMILY:
 * off, or active); no other (an ASPM link says nothing of D3cold) */
static void runtime_add(struct blockers *b, const struct plan *p, const struct device *d, size_t first,
                        size_t family)
{
        size_t n;
        const struct knob_family *const *fam = knob_registry(&n);
        const struct setting *s = NULL;
        _cleanup_free_ char *dir = NULL, *ms = NULL;
        struct verify_runtime *x;
        const char *st;

        /* the first setting of the plan on D, of a followed knob, that writes auto */
        for (size_t i = 0; d->devpath && i < n; i++)
                for (const char *const *k = fam[i]->runtime_followed; k && *k; k++) {
                        const struct setting *t = plan_find(p, d->devpath, *k);

                        if (t && streq_ptr(t->attr, "power/control") && streq_ptr(t->value, "auto") && (!s || t < s))
                                s = t;
                }
        if (!s)
                return;
        dir = xasprintf("/sys%s", d->devpath);
        b->rt = xrealloc(b->rt, (b->n_rt + 1) * sizeof(*b->rt));
        x = &b->rt[b->n_rt++];
        *x = (struct verify_runtime) { .d = d, .setting = (size_t) (s - p->v), .suspended_ms = -1 };
        /* runtime_status as detect read it in this run; the rest is not in the inventory */
        st = kv_get(&d->knobs, "power/runtime_status");
        x->status = st ? xstrdup(st) : NULL;
        (void) read_attr(dir, "power_state", &x->power_state);
        (void) read_attr(dir, "firmware_node/real_power_state", &x->real_power_state);
        if (read_attr(dir, "power/runtime_suspended_time", &ms) == 0 && ms[0] >= '0' && ms[0] <= '9')
                x->suspended_ms = strtoll(ms, NULL, 10);
        if (streq_ptr(x->power_state, "D3cold") || streq_ptr(x->real_power_state, "D3cold"))
                x->state = VERIFY_RT_D3COLD;
        else
                x->state = streq_ptr(x->status, "suspended") ? VERIFY_RT_SUSPENDED : VERIFY_RT_AWAKE;
        for (size_t k = family; x->state != VERIFY_RT_D3COLD && !x->why && k < b->n; k++)
                if (b->v[k].d == d && streq_ptr(b->v[k].knob, s->knob))
                        x->why = b->v[k].what;
        if (x->state != VERIFY_RT_D3COLD && !x->why && first < family)
                x->why = b->v[first].what;
}

static void find_blockers(const struct plan *p, const struct device *d, struct blockers *b)
{
        size_t first = b->n, family;
        const char *control = kv_get(&d->knobs, "power/control"), *status = kv_get(&d->knobs, "power/runtime_status");
        size_t n;
        const struct knob_family *const *fam = knob_registry(&n);

        /* runtime PM, whichever family's knob it is (their runtime_pm tables) */
        if (control && streq(control, "on"))
                blocker_add(b, p, d, knob_runtime_pm_of(d->class), xstrdup(_("runtime PM is off (power/control = on)")));
        else if (status && streq(status, "active") && control && streq(control, "auto")) {
                /* a kernel quirk that holds it resumed, where a family plans its note */
                const char *note = NULL;
                for (size_t i = 0; i < n && !note; i++)
                        if (fam[i]->active_note && plan_find(p, d->devpath, fam[i]->active_note))
                                note = fam[i]->active_note;
                blocker_add(b, p, d, note, xstrdup(_("runtime PM is allowed but the device is active (in use, "
                                                      "or a child keeps it awake)")));
        }
        family = b->n;
        for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < fam[i]->n_blockers; k++)
                        family_blocker(&fam[i]->blockers[k], p, d, b);
        runtime_add(b, p, d, first, family);
        for (size_t i = 0; i < d->n_children; i++)
                find_blockers(p, &d->children[i], b);
}

/* the package residency counters, read twice 0.25 s apart */
static void residencies(struct verify_result *res)
{
        struct m_value first[_M_RES_MAX];
        bool any = false;

        for (size_t i = 0; i < _M_RES_MAX; i++) {
                first[i] = measure_read_residency("/sys", i);
                any = first[i].err == 0 || any;
        }
        if (any)
                nanosleep(&(struct timespec) { .tv_nsec = 250 * 1000 * 1000 }, NULL);
        for (size_t i = 0; i < _M_RES_MAX; i++) {
                struct m_value again;
                if (first[i].err < 0)
                        continue;
                again = measure_read_residency("/sys", i);
                if (again.err < 0)
                        continue;
                res->residency[i].have = true;
                res->residency[i].value = again.v;
                res->residency[i].delta = again.v - first[i].v;
        }
}

/* /sys/bus/BUS/devices/NAME/driver: a link whose last part is DRIVER */
static bool sys_bound(const char *bus, const char *driver)
{
        _cleanup_free_ char *dir = xasprintf("/sys/bus/%s/devices", bus);
        DIR *d = opendir(dir);
        struct dirent *de;
        bool found = false;

        if (!d)
                return false;
        while (!found && (de = readdir(d))) {
                _cleanup_free_ char *link = NULL;
                char buf[PATH_MAX];
                ssize_t n;

                if (de->d_name[0] == '.')
                        continue;
                link = xasprintf("%s/%s/driver", dir, de->d_name);
                n = readlink(link, buf, sizeof(buf) - 1);
                if (n <= 0)
                        continue;
                buf[n] = '\0';
                found = streq(strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf, driver);
        }
        closedir(d);
        return found;
}

static bool sys_registered(const char *bus, const char *driver)
{
        _cleanup_free_ char *path = xasprintf("/sys/bus/%s/drivers/%s", bus, driver);
        struct stat st;

        return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

void verify_prereqs(const struct inventory *inv, const struct plan *p, struct verify_prereq **ret, size_t *ret_n)
{
        static const struct prereq_sys sys = { sys_bound, sys_registered };
        size_t n_fam, n = 0;
        const struct knob_family *const *fam = knob_registry(&n_fam);
        struct verify_prereq *v = NULL;

        for (size_t i = 0; i < n_fam; i++)
                for (size_t k = 0; k < fam[i]->n_prereqs; k++) {
                        char *what = NULL;
                        int r = fam[i]->prereqs[k].check(inv, p, &sys, &what);

                        if (r < 0)
                                continue;
                        v = xrealloc(v, (n + 1) * sizeof(*v));
                        v[n++] = (struct verify_prereq) { .name = fam[i]->prereqs[k].name, .met = r == 0,
                                                          .what = what };
                }
        *ret = v;
        *ret_n = n;
}

void verify_prereqs_free(struct verify_prereq *v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(v[i].what);
        free(v);
}

void verify_result_free(struct verify_result *r)
{
        for (size_t i = 0; i < r->n_blockers; i++)
                free(r->blockers[i].what);
        free(r->blockers);
        for (size_t i = 0; i < r->n_runtime; i++) {
                free(r->runtime[i].status);
                free(r->runtime[i].power_state);
                free(r->runtime[i].real_power_state);
        }
        free(r->runtime);
        for (size_t i = 0; r->actual && i < r->n; i++)
                free(r->actual[i]);
        free(r->actual);
        free(r->state);
        verify_prereqs_free(r->prereqs, r->n_prereqs);
        free(r->grub_dropped_by);
        *r = (struct verify_result) {};
}

int verify_run(const struct rootfs *rfs, const struct plan *p, const struct inventory *inv,
               struct verify_result *res, struct xerror *ret_error)
{
        _cleanup_(manifest_freep) struct manifest *m = NULL;
        int r;

        /* one that exists but is refused is no "not installed": said, as install and rollback say it */
        r = manifest_load(rfs, &m, ret_error);
        if (r < 0 && r != -ENOENT)
                return r;
        return verify_run_of(rfs, p, inv, m, res, ret_error);
}

int verify_run_of(const struct rootfs *rfs, const struct plan *p, const struct inventory *inv,
                  const struct manifest *m, struct verify_result *res, struct xerror *ret_error)
{
        struct blockers b = {};
        int dropped = -1;

        res->installed = m != NULL;
        res->n = p->n;
        res->state = xcalloc(p->n ? p->n : 1, sizeof(*res->state));
        res->actual = xcalloc(p->n ? p->n : 1, sizeof(char *));
        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                const char *why = NULL;
                _cleanup_free_ char *path = setting_live_path(s, &why), *raw = NULL;
                enum verify_state *st = &res->state[i];
                if (!s->value)
                        continue;
                if (knob_live_value(s, &res->actual[i]) == 0)
                        /* the kernel answers (a family's .live_value) */
                        *st = streq(res->actual[i], s->value) ? VERIFY_MATCH : VERIFY_DRIFT;
                else if (!path)
                        *st = VERIFY_LATER;
                else if (read_raw(path, &raw) < 0)
                        *st = s->mech == MECH_UDEV ? VERIFY_MISSING : VERIFY_LATER;
                else {
                        res->actual[i] = value_normalize(raw);
                        *st = streq(res->actual[i], s->value) ? VERIFY_MATCH : VERIFY_DRIFT;
                }
                /* a kernel parameter a later grub.d file drops: never at the next boot */
                if (*st == VERIFY_LATER && s->mech == MECH_CMDLINE && m && manifest_find(m, GRUB_SNIPPET_PATH)) {
                        if (dropped < 0) {
                                _cleanup_free_ char *d = grub_snippet_dropped_by(rfs);
                                dropped = !!d;
                                if (d)
                                        res->grub_dropped_by = rootfs_display(rfs, d);
                        }
                        if (dropped)
                                *st = VERIFY_MISSING;
                }
                res->count[*st]++;
        }
        for (size_t c = 0; c < _CL_MAX; c++)
                for (size_t i = 0; i < inv->classes[c].n; i++)
                        find_blockers(p, &inv->classes[c].v[i], &b);
        res->blockers = b.v;
        res->n_blockers = b.n;
        res->runtime = b.rt;
        res->n_runtime = b.n_rt;
        residencies(res);
        verify_prereqs(inv, p, &res->prereqs, &res->n_prereqs);
        return res->count[VERIFY_DRIFT] + res->count[VERIFY_MISSING] > 0;
}
