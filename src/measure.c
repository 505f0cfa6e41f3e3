/* measure.c: sample idle counters (runtime PM, cpuidle, residency, energy, wakeups) and diff two samples
 *
 * Everything here reads; nothing prints. A counter that is absent or
 * unreadable keeps its -errno so that the printer can say so instead of
 * showing a zero. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "knobs/knob.h"
#include "measure.h"

#define MAX_PROC_FILE (4u << 20)

const char *const measure_residency_names[_M_RES_MAX] = {
        "low_power_idle_cpu_residency_us",
        "low_power_idle_system_residency_us",
        "slp_s0_residency_usec",
};
const char *const measure_residency_paths[_M_RES_MAX] = {
        "/devices/system/cpu/cpuidle/low_power_idle_cpu_residency_us",
        "/devices/system/cpu/cpuidle/low_power_idle_system_residency_us",
        "/kernel/debug/pmc_core/slp_s0_residency_usec",
};
const char *const awake_why_names[_WHY_MAX] = {
        "suspended", "no-runtime-pm", "knob-off", "on-purpose", "child", "busy",
};

/* ---- reading ---- */

static struct m_value read_number_at(int dfd, const char *attr)
{
        _cleanup_free_ char *v = NULL;
        char *end;
        int r = read_attr_at(dfd, attr, &v);

        if (r < 0)
                return (struct m_value) { .err = r };
        errno = 0;
        unsigned long long n = strtoull(v, &end, 10);
        if (errno || end == v || *end || v[0] == '-')
                return (struct m_value) { .err = -EBADMSG };
        return (struct m_value) { .v = n };
}

static char *read_string_at(int dfd, const char *attr)
{
        char *v = NULL;

        return read_attr_at(dfd, attr, &v) < 0 ? NULL : v;
}

static char *link_base_at(int dfd, const char *name)
{
        char buf[4096];
        ssize_t n = readlinkat(dfd, name, buf, sizeof(buf) - 1);
        const char *b;

        if (n <= 0)
                return NULL;
        buf[n] = '\0';
        b = strrchr(buf, '/');
        return xstrdup(b ? b + 1 : buf);
}

static int open_dir(const char *base, const char *path)
{
        _cleanup_free_ char *p = xasprintf("%s%s", base, path);
        int fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        return fd < 0 ? -errno : fd;
}

static bool is_dir_entry(int dfd, const struct dirent *de)
{
        struct stat st;

        if (de->d_name[0] == '.')
                return false;
        if (de->d_type == DT_DIR)
                return true;
        if (de->d_type != DT_UNKNOWN)
                return false;
        return fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* entries of DFD (any type but . and ..), sorted */
static char **list_dir(int dfd, bool dirs_only, size_t *ret_n)
{
        int fd2 = dup(dfd);
        DIR *d;
        struct dirent *de;
        char **v = NULL;
        size_t n = 0;

        *ret_n = 0;
        if (fd2 < 0)
                return NULL;
        d = fdopendir(fd2);
        if (!d) {
                close(fd2);
                return NULL;
        }
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.' || (dirs_only && !is_dir_entry(dfd, de)))
                        continue;
                v = xrealloc(v, (n + 1) * sizeof(*v));
                v[n++] = xstrdup(de->d_name);
        }
        closedir(d);
        if (n > 1)
                qsort(v, n, sizeof(*v), strv_cmp);
        *ret_n = n;
        return v;
}

static void strv_free_n(char **v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

struct devs {
        struct m_dev *v;
        size_t n;
};

/* every device below DFD (DEVPATH) that has power/runtime_status; symbolic
 * links (subsystem, driver, port links) are not followed */
static void walk_devices(int dfd, const char *devpath, unsigned depth, struct devs *out)
{
        _cleanup_close_ int pfd = -1;
        size_t n;
        char **names;

        if (depth > 64)
                return;
        pfd = openat(dfd, "power", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (pfd >= 0 && faccessat(dfd, "uevent", F_OK, 0) == 0) {
                char *status = read_string_at(pfd, "runtime_status");
                if (status) {
                        struct m_dev *d;
                        _cleanup_free_ char *delay = NULL;
                        out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
                        d = &out->v[out->n++];
                        *d = (struct m_dev) { .devpath = xstrdup(devpath), .status = status, .delay_ms = -1 };
                        d->name = xstrdup(strrchr(devpath, '/') + 1);
                        d->subsystem = link_base_at(dfd, "subsystem");
                        d->driver = link_base_at(dfd, "driver");
                        d->control = read_string_at(pfd, "control");
                        if (read_attr_at(pfd, "autosuspend_delay_ms", &delay) == 0 && delay[0] != '-')
                                d->delay_ms = strtoll(delay, NULL, 10);
                        d->active_ms = read_number_at(pfd, "runtime_active_time");
                        d->suspended_ms = read_number_at(pfd, "runtime_suspended_time");
                }
        }
        names = list_dir(dfd, true, &n);
        for (size_t i = 0; i < n; i++) {
                _cleanup_close_ int cfd = -1;
                _cleanup_free_ char *child = NULL;
                if (streq(names[i], "power"))
                        continue;
                cfd = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (cfd < 0)
                        continue;
                child = xasprintf("%s/%s", devpath, names[i]);
                walk_devices(cfd, child, depth + 1, out);
        }
        strv_free_n(names, n);
}

static int dev_cmp(const void *a, const void *b)
{
        return strcmp(((const struct m_dev *) a)->devpath, ((const struct m_dev *) b)->devpath);
}

static bool parse_index(const char *s, const char *prefix, unsigned *ret)
{
        char *end;
        unsigned long v;

        if (!startswith(s, prefix) || !isdigit((unsigned char) s[strlen(prefix)]))
                return false;
        v = strtoul(s + strlen(prefix), &end, 10);
        if (*end || v > 1u << 20)
                return false;
        *ret = (unsigned) v;
        return true;
}

static int cpu_cmp(const void *a, const void *b)
{
        unsigned x = ((const struct m_cpu *) a)->cpu, y = ((const struct m_cpu *) b)->cpu;
        return x < y ? -1 : x > y;
}

static int cstate_cmp(const void *a, const void *b)
{
        unsigned x = ((const struct m_cstate *) a)->index, y = ((const struct m_cstate *) b)->index;
        return x < y ? -1 : x > y;
}

static void sample_cpuidle(const struct measure_env *env, struct measure_sample *s)
{
        _cleanup_close_ int cfd = open_dir(env->sys, "/devices/system/cpu");
        size_t n;
        char **names;

        if (cfd < 0)
                return;
        {
                _cleanup_close_ int ifd = openat(cfd, "cpuidle", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (ifd >= 0) {
                        s->cpuidle_driver = read_string_at(ifd, "current_driver");
                        if (s->cpuidle_driver && streq(s->cpuidle_driver, "none")) {
                                free(s->cpuidle_driver);
                                s->cpuidle_driver = NULL;
                        }
                }
        }
        names = list_dir(cfd, true, &n);
        for (size_t i = 0; i < n; i++) {
                _cleanup_close_ int ifd = -1;
                char **states;
                size_t ns;
                unsigned cpu;
                struct m_cpu *c;

                if (!parse_index(names[i], "cpu", &cpu))
                        continue;
                {
                        _cleanup_free_ char *p = xasprintf("%s/cpuidle", names[i]);
                        ifd = openat(cfd, p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                }
                if (ifd < 0)
                        continue;
                s->cpus = xrealloc(s->cpus, (s->n_cpus + 1) * sizeof(*s->cpus));
                c = &s->cpus[s->n_cpus++];
                *c = (struct m_cpu) { .cpu = cpu };
                states = list_dir(ifd, true, &ns);
                for (size_t k = 0; k < ns; k++) {
                        _cleanup_close_ int sfd = -1;
                        unsigned idx;
                        struct m_cstate *st;
                        if (!parse_index(states[k], "state", &idx))
                                continue;
                        sfd = openat(ifd, states[k], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (sfd < 0)
                                continue;
                        c->states = xrealloc(c->states, (c->n_states + 1) * sizeof(*c->states));
                        st = &c->states[c->n_states++];
                        *st = (struct m_cstate) { .index = idx };
                        st->name = read_string_at(sfd, "name");
                        if (!st->name)
                                st->name = xstrdup(states[k]);
                        st->time_us = read_number_at(sfd, "time");
                        st->usage = read_number_at(sfd, "usage");
                }
                strv_free_n(states, ns);
                if (c->n_states > 1)
                        qsort(c->states, c->n_states, sizeof(*c->states), cstate_cmp);
        }
        strv_free_n(names, n);
        if (s->n_cpus > 1)
                qsort(s->cpus, s->n_cpus, sizeof(*s->cpus), cpu_cmp);
}

static void sample_class(const struct measure_env *env, const char *class, struct measure_sample *s,
                         void (*one)(int dfd, const char *name, struct measure_sample *s))
{
        _cleanup_free_ char *path = xasprintf("/class/%s", class);
        _cleanup_close_ int dfd = open_dir(env->sys, path);
        size_t n;
        char **names;

        if (dfd < 0)
                return;
        names = list_dir(dfd, false, &n);
        for (size_t i = 0; i < n; i++) {
                /* the class directory holds links to the devices: follow them */
                _cleanup_close_ int efd = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (efd >= 0)
                        one(efd, names[i], s);
        }
        strv_free_n(names, n);
}

static void one_zone(int dfd, const char *name, struct measure_sample *s)
{
        struct m_zone *z;

        /* a control type (intel-rapl) has no zone name and no counter */
        if (faccessat(dfd, "energy_uj", F_OK, 0) < 0 && faccessat(dfd, "name", F_OK, 0) < 0)
                return;
        s->zones = xrealloc(s->zones, (s->n_zones + 1) * sizeof(*s->zones));
        z = &s->zones[s->n_zones++];
        *z = (struct m_zone) { .id = xstrdup(name), .name = read_string_at(dfd, "name") };
        z->energy_uj = read_number_at(dfd, "energy_uj");
        z->max_uj = read_number_at(dfd, "max_energy_range_uj");
}

static void one_supply(int dfd, const char *name, struct measure_sample *s)
{
        _cleanup_free_ char *type = read_string_at(dfd, "type");
        struct m_battery *b;

        if (!type || !streq(type, "Battery"))
                return;
        s->bats = xrealloc(s->bats, (s->n_bats + 1) * sizeof(*s->bats));
        b = &s->bats[s->n_bats++];
        *b = (struct m_battery) { .name = xstrdup(name), .status = read_string_at(dfd, "status") };
        b->power_uw = read_number_at(dfd, "power_now");
        b->energy_uwh = read_number_at(dfd, "energy_now");
        b->charge_uah = read_number_at(dfd, "charge_now");
        b->voltage_uv = read_number_at(dfd, "voltage_now");
}

static void one_wakeup(int dfd, const char *name, struct measure_sample *s)
{
        struct m_count *c;
        struct m_value ev = read_number_at(dfd, "event_count"), wk = read_number_at(dfd, "wakeup_count");
        _cleanup_free_ char *wname = read_string_at(dfd, "name");

        if (ev.err < 0 && wk.err < 0)
                return;
        s->wakeups = xrealloc(s->wakeups, (s->n_wakeups + 1) * sizeof(*s->wakeups));
        c = &s->wakeups[s->n_wakeups++];
        *c = (struct m_count) { .key = xstrdup(wname ? wname : name), .desc = link_base_at(dfd, "device"),
                                .count = ev.v, .count2 = wk.v };
}

static char *collapse_spaces(const char *s)
{
        struct strbuf sb = {};

        for (; *s; s++) {
                if (isspace((unsigned char) *s)) {
                        while (isspace((unsigned char) s[1]))
                                s++;
                        if (s[1])
                                sb_putc(&sb, ' ');
                        continue;
                }
                sb_putc(&sb, *s);
        }
        return sb_steal(&sb);
}

int measure_parse_interrupts(const char *text, struct m_count **ret, size_t *ret_n)
{
        const char *line = text, *nl;
        unsigned ncpu = 0;
        struct m_count *v = NULL;
        size_t n = 0;

        nl = strchr(line, '\n');
        if (!nl)
                return -EBADMSG;
        for (const char *p = line; p < nl; p++)
                if (startswith(p, "CPU"))
                        ncpu++;
        if (ncpu == 0)
                return -EBADMSG;
        for (line = nl + 1; *line; line = nl ? nl + 1 : line + strlen(line)) {
                _cleanup_free_ char *l = NULL;
                char *p, *colon, *end;
                unsigned long long sum = 0;
                nl = strchr(line, '\n');
                l = nl ? xstrndup(line, (size_t) (nl - line)) : xstrdup(line);
                p = l + strspn(l, " ");
                colon = strchr(p, ':');
                if (!colon || colon == p)
                        continue;
                *colon = '\0';
                p = colon + 1;
                for (unsigned i = 0; i < ncpu; i++) {
                        unsigned long long x;
                        while (*p == ' ')
                                p++;
                        if (!isdigit((unsigned char) *p))
                                break;
                        x = strtoull(p, &end, 10);
                        sum += x;
                        p = end;
                }
                v = xrealloc(v, (n + 1) * sizeof(*v));
                v[n++] = (struct m_count) { .key = xstrdup(l + strspn(l, " ")), .desc = collapse_spaces(p + strspn(p, " ")),
                                            .count = sum };
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

/* debugfs wakeup_sources: "name active_count event_count wakeup_count ..." */
static int parse_wakeup_sources(const char *text, struct measure_sample *s)
{
        const char *line, *nl;

        nl = strchr(text, '\n');
        if (!nl || !startswith(text, "name"))
                return -EBADMSG;
        for (line = nl + 1; *line; line = nl ? nl + 1 : line + strlen(line)) {
                _cleanup_free_ char *l = NULL;
                char name[256];
                unsigned long long active, event, wakeup;
                nl = strchr(line, '\n');
                l = nl ? xstrndup(line, (size_t) (nl - line)) : xstrdup(line);
                if (sscanf(l, "%255s %llu %llu %llu", name, &active, &event, &wakeup) != 4)
                        continue;
                s->wakeups = xrealloc(s->wakeups, (s->n_wakeups + 1) * sizeof(*s->wakeups));
                s->wakeups[s->n_wakeups++] = (struct m_count) { .key = xstrdup(name), .count = event,
                                                                .count2 = wakeup };
        }
        return 0;
}

static int sample_file(const char *base, const char *path, char **ret)
{
        _cleanup_free_ char *p = xasprintf("%s%s", base, path);

        return read_file_full(p, MAX_PROC_FILE, ret, NULL);
}

struct m_value measure_read_residency(const char *sys, unsigned i)
{
        _cleanup_free_ char *p = xasprintf("%s%s", sys, measure_residency_paths[i]);
        _cleanup_free_ char *dir = xstrdup(p);
        _cleanup_close_ int dfd = -1;

        *strrchr(dir, '/') = '\0';
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return dfd < 0 ? (struct m_value) { .err = -errno } : read_number_at(dfd, strrchr(p, '/') + 1);
}

int measure_sample(const struct measure_env *env, const struct measure_clock *c, struct measure_sample **ret)
{
        struct measure_sample *s = xcalloc(1, sizeof(*s));
        struct devs devs = {};
        _cleanup_free_ char *irq = NULL;
        int r;

        s->t_us = measure_now(c);
        {
                _cleanup_close_ int dfd = open_dir(env->sys, "/devices");
                if (dfd < 0) {
                        r = dfd;
                        free(s);
                        return r;
                }
                walk_devices(dfd, "/devices", 0, &devs);
        }
        if (devs.n > 1)
                qsort(devs.v, devs.n, sizeof(*devs.v), dev_cmp);
        s->devs = devs.v;
        s->n_devs = devs.n;
        sample_cpuidle(env, s);
        for (size_t i = 0; i < _M_RES_MAX; i++)
                s->residency[i] = measure_read_residency(env->sys, i);
        sample_class(env, "powercap", s, one_zone);
        sample_class(env, "power_supply", s, one_supply);
        r = sample_file(env->proc, "/interrupts", &irq);
        s->irq_err = r < 0 ? r : measure_parse_interrupts(irq, &s->irqs, &s->n_irqs);
        {
                _cleanup_close_ int wfd = open_dir(env->sys, "/class/wakeup");
                if (wfd >= 0) {
                        s->wakeup_from = "/sys/class/wakeup";
                        sample_class(env, "wakeup", s, one_wakeup);
                } else {
                        _cleanup_free_ char *text = NULL;
                        s->wakeup_from = "/sys/kernel/debug/wakeup_sources";
                        r = sample_file(env->sys, "/kernel/debug/wakeup_sources", &text);
                        s->wakeup_err = r < 0 ? r : parse_wakeup_sources(text, s);
                }
        }
        *ret = s;
        return 0;
}

static void counts_free(struct m_count *v, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(v[i].key);
                free(v[i].desc);
        }
        free(v);
}

void measure_sample_free(struct measure_sample *s)
{
        if (!s)
                return;
        for (size_t i = 0; i < s->n_devs; i++) {
                struct m_dev *d = &s->devs[i];
                free(d->devpath);
                free(d->name);
                free(d->subsystem);
                free(d->driver);
                free(d->status);
                free(d->control);
        }
        free(s->devs);
        for (size_t i = 0; i < s->n_cpus; i++) {
                for (size_t k = 0; k < s->cpus[i].n_states; k++)
                        free(s->cpus[i].states[k].name);
                free(s->cpus[i].states);
        }
        free(s->cpus);
        free(s->cpuidle_driver);
        for (size_t i = 0; i < s->n_zones; i++) {
                free(s->zones[i].id);
                free(s->zones[i].name);
        }
        free(s->zones);
        for (size_t i = 0; i < s->n_bats; i++) {
                free(s->bats[i].name);
                free(s->bats[i].status);
        }
        free(s->bats);
        counts_free(s->irqs, s->n_irqs);
        counts_free(s->wakeups, s->n_wakeups);
        free(s);
}

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

        return s->n_devs ? bsearch(&key, s->devs, s->n_devs, sizeof(key), dev_cmp) : NULL;
}

/* whether setting S names DEVPATH's power/control through a class device's
 * "device" link: an ATA port (.../ataN) is planned as .../ataN/ata_port/ataN,
 * attribute device/power/control */
static bool names_through_link(const struct setting *s, const char *devpath)
{
        size_t n = strlen(devpath);

        return streq_ptr(s->attr, "device/power/control") && s->device && startswith(s->device, devpath) &&
               s->device[n] == '/' && strchr(s->device + n + 1, '/') &&
               !strchr(strchr(s->device + n + 1, '/') + 1, '/');
}

/* whether S is the skip of an ATA port's runtime PM, which the plan puts on
 * the SATA host below the port (DEVPATH .../ataN, S on .../ataN/hostM/...) */
static bool port_skip_below(const struct setting *s, const char *devpath)
{
        size_t n = strlen(devpath);

        return !s->value && streq_ptr(s->device_class, "sata") &&
               streq_ptr(s->knob, knob_runtime_pm_of("ata-port")) && s->device &&
               startswith(s->device, devpath) && startswith(s->device + n, "/host");
}

/* the plan's setting of power/control on DEVPATH */
static const struct setting *runtime_setting(const struct plan *p, const char *devpath)
{
        for (size_t i = 0; p && i < p->n; i++) {
                const struct setting *s = &p->v[i];
                if (names_through_link(s, devpath) || port_skip_below(s, devpath))
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

int measure_diff(const struct measure_sample *a, const struct measure_sample *b, const struct plan *p,
                 const struct inventory *inv, struct measure_result **ret)
{
        struct measure_result *r = xcalloc(1, sizeof(*r));
        size_t *parent;

        r->a = a;
        r->b = b;
        r->interval_us = b->t_us > a->t_us ? b->t_us - a->t_us : 0;

        /* devices: those with runtime PM, and those of a planned class without it */
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
        /* why each awake device stayed awake */
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

        /* cpuidle */
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

        /* energy */
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
        if (!a->irq_err && !b->irq_err)
                diff_counts(a->irqs, a->n_irqs, b->irqs, b->n_irqs, &r->irqs, &r->n_irqs);
        if (!a->wakeup_err && !b->wakeup_err)
                diff_counts(a->wakeups, a->n_wakeups, b->wakeups, b->n_wakeups, &r->wakeups, &r->n_wakeups);
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
                                     size_t *ret_n_chain, unsigned long long *ret_audio_ms)
{
        /* total[i]: its own delay plus the longest total of its children; next[i]: that child + 1 */
        unsigned long long *total = xcalloc(s->n_devs + 1, sizeof(*total)), best = 0, audio = 0;
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
        for (size_t i = 0; p && i < p->n; i++)
                if (p->v[i].value && streq(p->v[i].knob, "audio.power_save"))
                        audio = strtoull(p->v[i].value, NULL, 10) * 1000u;
        free(total);
        free(next);
        *ret_audio_ms = audio;
        return best > audio ? best : audio;
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
