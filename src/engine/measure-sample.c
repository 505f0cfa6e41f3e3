/* measure-sample.c: sample idle counters (runtime PM, cpuidle, residency,
 * energy, wakeups, interrupts) at one moment (the clock between two
 * samples: measure-clock.c)
 *
 * Everything here reads; nothing prints. A counter that is absent or
 * unreadable keeps its -errno so that the printer can say so instead of
 * showing a zero. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/pci_regs.h>
#include <sys/stat.h>
#include <time.h>

#include "engine/measure-sample.h"
#include "base/util.h"
#include "root/sysfs.h"

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

struct devs {
        struct m_dev *v;
        size_t n;
};

/* a PCI function's LTR from its config space (include/uapi/linux/pci_regs.h):
 * the PCI Express capability's Device Capabilities 2 (LTR supported) and
 * Device Control 2 (LTR enabled), which pci_configure_ltr()
 * (drivers/pci/probe.c, later drivers/pci/pcie/aspm.c) sets where the
 * whole path to the root port supports it */
static void pci_ltr_at(int dfd, struct m_dev *d)
{
        _cleanup_close_ int fd = openat(dfd, "config", O_RDONLY | O_CLOEXEC);
        uint8_t c[256];
        ssize_t n = fd < 0 ? -1 : read(fd, c, sizeof(c));
        unsigned cap2, ctl2;
        int pos;

        d->ltr = -1;
        if (n < PCI_CAPABILITY_LIST + 1)
                return;
        pos = pci_config_cap(c, (size_t) n, PCI_CAP_ID_EXP);
        if (pos < 0 || (pos > 0 && (size_t) pos + PCI_EXP_DEVCTL2 + 2 > (size_t) n)) {
                /* an unprivileged reader gets the first 64 bytes only */
                d->ltr_unknown = true;
                return;
        }
        if (pos == 0)
                return;
        cap2 = c[pos + PCI_EXP_DEVCAP2] | (unsigned) c[pos + PCI_EXP_DEVCAP2 + 1] << 8;
        ctl2 = c[pos + PCI_EXP_DEVCTL2] | (unsigned) c[pos + PCI_EXP_DEVCTL2 + 1] << 8;
        if (cap2 & PCI_EXP_DEVCAP2_LTR)
                d->ltr = (ctl2 & PCI_EXP_DEVCTL2_LTR_EN) ? 1 : 0;
}

static void pci_link_at(int dfd, struct m_dev *d)
{
        _cleanup_free_ char *v = NULL;

        d->l1_aspm = -1;
        d->ltr = -1;
        if (!streq_ptr(d->subsystem, "pci"))
                return;
        if (read_attr_at(dfd, "link/l1_aspm", &v) == 0)
                d->l1_aspm = streq(v, "1") ? 1 : streq(v, "0") ? 0 : -1;
        pci_ltr_at(dfd, d);
}

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
                        pci_link_at(dfd, d);
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

int measure_dev_cmp(const void *a, const void *b)
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
        int r = read_file_full(p, MAX_PROC_FILE, ret, NULL);

        /* debugfs is root's: said, not taken for a kernel without the file */
        denied_note(p, r);
        return r;
}

struct m_value measure_read_residency(const char *sys, unsigned i)
{
        _cleanup_free_ char *p = xasprintf("%s%s", sys, measure_residency_paths[i]);
        _cleanup_free_ char *dir = xstrdup(p);
        _cleanup_close_ int dfd = -1;

        *strrchr(dir, '/') = '\0';
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0) {
                /* debugfs (pmc_core) is root's: said, not taken for a machine without the counter */
                int err = -errno;
                denied_note(dir, err);
                return (struct m_value) { .err = err };
        }
        return read_number_at(dfd, strrchr(p, '/') + 1);
}

/* "Residency Time: N" of amd_pmc's debugfs s0ix_stats */
static struct m_value amd_s0ix(const struct measure_env *env)
{
        _cleanup_free_ char *text = NULL;
        int r = sample_file(env->sys, "/kernel/debug/amd_pmc/s0ix_stats", &text);
        const char *at;
        char *end;
        unsigned long long v;

        if (r < 0)
                return (struct m_value) { .err = r };
        at = strstr(text, "Residency Time:");
        if (!at)
                return (struct m_value) { .err = -EBADMSG };
        errno = 0;
        v = strtoull(at + strlen("Residency Time:"), &end, 10);
        if (errno || end == at + strlen("Residency Time:"))
                return (struct m_value) { .err = -EBADMSG };
        return (struct m_value) { .v = v };
}

static void sample_suspend(const struct measure_env *env, struct m_suspend *s)
{
        _cleanup_close_ int pfd = open_dir(env->sys, "/power");
        _cleanup_close_ int sfd = open_dir(env->sys, "/power/suspend_stats");

        s->success = sfd < 0 ? (struct m_value) { .err = sfd } : read_number_at(sfd, "success");
        s->last_hw_sleep = sfd < 0 ? (struct m_value) { .err = sfd } : read_number_at(sfd, "last_hw_sleep");
        s->total_hw_sleep = sfd < 0 ? (struct m_value) { .err = sfd } : read_number_at(sfd, "total_hw_sleep");
        s->wakeup_irq = pfd < 0 ? (struct m_value) { .err = pfd } : read_number_at(pfd, "pm_wakeup_irq");
        s->last_failed_dev = sfd < 0 ? NULL : read_string_at(sfd, "last_failed_dev");
        if (s->last_failed_dev && !*strstrip(s->last_failed_dev)) {
                free(s->last_failed_dev);
                s->last_failed_dev = NULL;
        }
        s->amd_s0ix_us = amd_s0ix(env);
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
                qsort(devs.v, devs.n, sizeof(*devs.v), measure_dev_cmp);
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
        sample_suspend(env, &s->susp);
        measure_pkg_read(env->pkg, &s->pkg);
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
        free(s->susp.last_failed_dev);
        free(s);
}
