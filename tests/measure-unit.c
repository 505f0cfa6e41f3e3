/* tests/measure-unit.c: TAP tests of the measure engine on a generated /sys and /proc tree */
#include "config.h"

#include "tap.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "engine/measure-floor.h"
#include "base/util.h"

static char base[] = "/tmp/idlecfg-measure.XXXXXX";

static void mkdir_p(const char *path)
{
        _cleanup_free_ char *p = xstrdup(path);

        for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                mkdir(p, 0755);
                *s = '/';
        }
        mkdir(p, 0755);
}

/* write VALUE into BASE/REL, making its directories */
static void put(const char *rel, const char *value)
{
        _cleanup_free_ char *path = xasprintf("%s%s", base, rel), *dir = xstrdup(path);
        FILE *f;

        *strrchr(dir, '/') = '\0';
        mkdir_p(dir);
        f = fopen(path, "w");
        if (!f) {
                ok(false, "cannot write %s", path);
                return;
        }
        fputs(value, f);
        fclose(f);
}

static void putf(const char *rel, unsigned long long v)
{
        char buf[32];

        snprintf(buf, sizeof(buf), "%llu\n", v);
        put(rel, buf);
}

static void link_to(const char *rel, const char *target)
{
        _cleanup_free_ char *path = xasprintf("%s%s", base, rel), *dir = xstrdup(path);

        *strrchr(dir, '/') = '\0';
        mkdir_p(dir);
        unlink(path);
        if (symlink(target, path) < 0)
                ok(false, "symlink %s", path);
}

/* a device with runtime PM counters below SYS ("/sys") */
static void dev_in(const char *sys, const char *devpath, const char *subsystem, const char *control,
                   const char *status, unsigned long long active, unsigned long long suspended, long long delay)
{
        _cleanup_free_ char *u = xasprintf("%s%s/uevent", sys, devpath);
        _cleanup_free_ char *c = xasprintf("%s%s/power/control", sys, devpath);
        _cleanup_free_ char *s = xasprintf("%s%s/power/runtime_status", sys, devpath);
        _cleanup_free_ char *a = xasprintf("%s%s/power/runtime_active_time", sys, devpath);
        _cleanup_free_ char *z = xasprintf("%s%s/power/runtime_suspended_time", sys, devpath);
        _cleanup_free_ char *sub = xasprintf("%s%s/subsystem", sys, devpath);
        _cleanup_free_ char *tgt = xasprintf("%s/sys/bus/%s", base, subsystem);

        put(u, "");
        put(c, control);
        put(s, status);
        putf(a, active);
        putf(z, suspended);
        link_to(sub, tgt);
        if (delay >= 0) {
                _cleanup_free_ char *d = xasprintf("%s%s/power/autosuspend_delay_ms", sys, devpath);
                putf(d, (unsigned long long) delay);
        }
}

static void dev(const char *devpath, const char *subsystem, const char *control, const char *status,
                unsigned long long active, unsigned long long suspended, long long delay)
{
        dev_in("/sys", devpath, subsystem, control, status, active, suspended, delay);
}

static uint64_t fake_us;
static uint64_t fake_now(void *userdata) { return fake_us; }
static int fake_wait(unsigned ms, void *userdata)
{
        fake_us += (uint64_t) ms * 1000u;
        return 0;
}

static const struct measure_dev *rdev(const struct measure_result *r, const char *name)
{
        for (size_t i = 0; i < r->n_devs; i++)
                if (streq(r->devs[i].d->name, name))
                        return &r->devs[i];
        return NULL;
}

#define PCI "/devices/pci0000:00"
#define XHCI PCI "/0000:00:14.0"
#define HUB XHCI "/usb1"
#define MOUSE HUB "/1-4"
#define NVME PCI "/0000:00:1d.0"
#define MEI PCI "/0000:00:16.0"
#define AUDIO PCI "/0000:00:1f.3"

static void write_first_sample(void)
{
        /* a chain: the controller and the hub are allowed to suspend, the
         * mouse below them has runtime PM off, and keeps both awake */
        dev(XHCI, "pci", "auto", "active", 1000, 0, -1);
        dev(HUB, "usb", "auto", "active", 1000, 0, 2000);
        dev(MOUSE, "usb", "on", "active", 1000, 0, 2000);
        dev(MOUSE "/1-4:1.0", "usb", "auto", "active", 1000, 0, -1);
        dev(NVME, "pci", "auto", "suspended", 0, 1000, 100);
        dev(MEI, "pci", "on", "unsupported", 0, 0, -1);
        dev(AUDIO, "pci", "on", "active", 1000, 0, -1);
        /* a device of no planned class without runtime PM: not listed */
        dev("/devices/platform/serial8250", "platform", "auto", "unsupported", 0, 0, -1);

        put("/sys/devices/system/cpu/cpuidle/current_driver", "intel_idle\n");
        put("/sys/devices/system/cpu/cpu0/cpuidle/state0/name", "POLL\n");
        putf("/sys/devices/system/cpu/cpu0/cpuidle/state0/time", 100);
        putf("/sys/devices/system/cpu/cpu0/cpuidle/state0/usage", 5);
        put("/sys/devices/system/cpu/cpu0/cpuidle/state1/name", "C10\n");
        putf("/sys/devices/system/cpu/cpu0/cpuidle/state1/time", 1000000);
        putf("/sys/devices/system/cpu/cpu0/cpuidle/state1/usage", 50);
        put("/sys/devices/system/cpu/cpu1/cpuidle/state0/name", "POLL\n");
        putf("/sys/devices/system/cpu/cpu1/cpuidle/state0/time", 0);
        putf("/sys/devices/system/cpu/cpu1/cpuidle/state0/usage", 0);
        putf("/sys/devices/system/cpu/cpuidle/low_power_idle_system_residency_us", 5000);

        /* package near the end of its range: it wraps; core has no readable counter */
        put("/sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/name", "package-0\n");
        putf("/sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/energy_uj", 262143000000ULL);
        putf("/sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/max_energy_range_uj", 262143328850ULL);
        put("/sys/devices/virtual/powercap/intel-rapl/intel-rapl:0:0/name", "core\n");
        put("/sys/devices/virtual/powercap/intel-rapl/enabled", "1\n");
        link_to("/sys/class/powercap/intel-rapl", "../../devices/virtual/powercap/intel-rapl");
        link_to("/sys/class/powercap/intel-rapl:0", "../../devices/virtual/powercap/intel-rapl/intel-rapl:0");
        link_to("/sys/class/powercap/intel-rapl:0:0", "../../devices/virtual/powercap/intel-rapl/intel-rapl:0:0");

        put("/sys/devices/platform/battery/power_supply/BAT0/type", "Battery\n");
        put("/sys/devices/platform/battery/power_supply/BAT0/status", "Discharging\n");
        putf("/sys/devices/platform/battery/power_supply/BAT0/energy_now", 40000000);
        putf("/sys/devices/platform/battery/power_supply/BAT0/power_now", 7000000);
        put("/sys/devices/platform/ac/power_supply/AC/type", "Mains\n");
        link_to("/sys/class/power_supply/BAT0", "../../devices/platform/battery/power_supply/BAT0");
        link_to("/sys/class/power_supply/AC", "../../devices/platform/ac/power_supply/AC");

        put("/proc/interrupts",
            "           CPU0       CPU1       \n"
            "  0:         10          0   IO-APIC   2-edge      timer\n"
            "127:        100         50   PCI-MSI 327680-edge      xhci_hcd\n"
            "LOC:       1000       2000   Local timer interrupts\n"
            "ERR:          0\n");
        /* no /sys/class/wakeup: the debugfs table */
        put("/sys/kernel/debug/wakeup_sources",
            "name\t\tactive_count\tevent_count\twakeup_count\texpire_count\tactive_since\n"
            "PNP0C0A:00\t3\t3\t0\t0\t0\n"
            "alarmtimer\t0\t0\t0\t0\t0\n");
}

static void write_second_sample(void)
{
        dev(XHCI, "pci", "auto", "active", 21000, 0, -1);
        dev(HUB, "usb", "auto", "active", 21000, 0, 2000);
        dev(MOUSE, "usb", "on", "active", 21000, 0, 2000);
        dev(MOUSE "/1-4:1.0", "usb", "auto", "active", 21000, 0, -1);
        dev(NVME, "pci", "auto", "active", 5000, 16000, 100);
        dev(MEI, "pci", "on", "unsupported", 0, 0, -1);
        dev(AUDIO, "pci", "on", "active", 21000, 0, -1);
        /* appeared during the interval, already suspended, with a long delay */
        dev("/devices/platform/tbt", "thunderbolt", "auto", "suspended", 0, 100, 15000);
        putf("/sys/devices/system/cpu/cpu0/cpuidle/state0/time", 200);
        putf("/sys/devices/system/cpu/cpu0/cpuidle/state0/usage", 7);
        putf("/sys/devices/system/cpu/cpu0/cpuidle/state1/time", 16000000);
        putf("/sys/devices/system/cpu/cpu0/cpuidle/state1/usage", 450);
        putf("/sys/devices/system/cpu/cpuidle/low_power_idle_system_residency_us", 10005000);
        /* 328850 - 0 + 39671150 = 40000000 uJ: 2 W over 20 s */
        putf("/sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/energy_uj", 39671150);
        /* 0.1 Wh less in 20 s: 18 W */
        putf("/sys/devices/platform/battery/power_supply/BAT0/energy_now", 39900000);
        put("/proc/interrupts",
            "           CPU0       CPU1       \n"
            "  0:         10          0   IO-APIC   2-edge      timer\n"
            "127:        300        250   PCI-MSI 327680-edge      xhci_hcd\n"
            "LOC:       1100       2100   Local timer interrupts\n"
            "ERR:          0\n");
        put("/sys/kernel/debug/wakeup_sources",
            "name\t\tactive_count\tevent_count\twakeup_count\texpire_count\tactive_since\n"
            "PNP0C0A:00\t9\t9\t2\t0\t0\n"
            "alarmtimer\t0\t0\t0\t0\t0\n");
}

static struct plan *make_plan(void)
{
        struct plan *p = xcalloc(1, sizeof(*p));
        struct setting *s;

        p->profile = xstrdup("test");
        s = plan_add(p);
        s->knob = xstrdup("usb.autosuspend");
        s->device = xstrdup(MOUSE);
        s->device_name = xstrdup("1-4");
        s->device_class = xstrdup("usb");
        s->attr = xstrdup("power/control");
        s->reason = xstrdup("skipped: HID device, not on an autosuspend allowlist");
        s->mech = MECH_NONE;
        s = plan_add(p);
        s->knob = xstrdup("pci.runtime_pm");
        s->device = xstrdup(AUDIO);
        s->device_name = xstrdup("0000:00:1f.3");
        s->device_class = xstrdup("pci");
        s->attr = xstrdup("power/control");
        s->value = xstrdup("auto");
        s->reason = xstrdup("profile test [pci] runtime_pm");
        s->mech = MECH_UDEV;
        s = plan_add(p);
        s->knob = xstrdup("pci.runtime_pm");
        s->device = xstrdup(MEI);
        s->device_name = xstrdup("0000:00:16.0");
        s->device_class = xstrdup("pci");
        s->attr = xstrdup("power/control");
        s->value = xstrdup("auto");
        s->reason = xstrdup("profile test [pci] runtime_pm");
        s->mech = MECH_UDEV;
        return p;
}

static void test_energy_delta(void)
{
        bool w;

        ok(measure_energy_delta(100, 350, 1000, &w) == 250 && !w, "energy delta without wrap");
        ok(measure_energy_delta(900, 50, 1000, &w) == 150 && w, "energy delta across max_energy_range_uj");
        ok(measure_energy_delta(262143000000ULL, 39671150, 262143328850ULL, &w) == 40000000 && w,
           "energy delta across a real RAPL range");
}

static void test_sample_and_diff(void)
{
        _cleanup_free_ char *sys = xasprintf("%s/sys", base), *proc = xasprintf("%s/proc", base);
        struct measure_env env = { .sys = sys, .proc = proc };
        struct measure_clock clk = { .now = fake_now, .wait = fake_wait };
        struct measure_sample *a = NULL, *b = NULL;
        struct measure_result *r = NULL;
        struct plan *p = make_plan();
        const struct measure_dev *m;

        write_first_sample();
        fake_us = 5000000;
        ok(measure_sample(&env, &clk, &a) == 0, "first sample");
        write_second_sample();
        ok(measure_wait(&clk, 20000) == 0, "the test clock waits");
        ok(measure_sample(&env, &clk, &b) == 0, "second sample");
        ok(measure_diff(a, b, p, NULL, &r) == 0 && r->interval_us == 20000000, "interval from the clock: 20 s");

        ok(a->n_devs == 8, "eight devices with power/runtime_status found by the walk (got %zu)", a->n_devs);
        ok(!rdev(r, "serial8250"), "a device without runtime PM and without a plan is not listed");
        m = rdev(r, "0000:00:1d.0");
        ok(m && !m->awake && m->have_times && m->suspended_ms == 15000 && m->active_ms == 5000,
           "a device suspended for 15 of 20 s: deltas of runtime_suspended_time and runtime_active_time");
        m = rdev(r, "1-4");
        ok(m && m->awake && m->why == WHY_ON_PURPOSE && m->s && strstr(m->s->reason, "HID"),
           "the mouse is on on purpose, with the plan's reason");
        m = rdev(r, "usb1");
        ok(m && m->awake && m->why == WHY_CHILD && m->n_chain == 1 && streq(r->devs[m->chain[0]].d->name, "1-4"),
           "the hub is kept awake by its child 1-4");
        m = rdev(r, "0000:00:14.0");
        ok(m && m->awake && m->why == WHY_CHILD && m->n_chain == 2 &&
           streq(r->devs[m->chain[m->n_chain - 1]].d->name, "1-4"),
           "the controller is kept awake by the chain usb1 > 1-4: the leaf is 1-4, awake for its own "
           "reason, not its busy interface below");
        m = rdev(r, "tbt");
        ok(m && !m->have_times && !m->awake, "a device that appeared during the interval: no share, its state");
        m = rdev(r, "1-4:1.0");
        ok(m && m->awake && m->why == WHY_BUSY && m->n_chain == 0, "the interface is busy: no awake child");
        m = rdev(r, "0000:00:1f.3");
        ok(m && m->awake && m->why == WHY_KNOB_OFF && m->s && streq(m->s->value, "auto") &&
           streq(m->knob, "pci.runtime_pm"), "a knob that is off, with the planned value");
        m = rdev(r, "0000:00:16.0");
        ok(m && m->awake && m->why == WHY_NO_RUNTIME_PM, "a driver without runtime PM (unsupported)");

        ok(r->n_cpus == 2 && r->cpus[0].n_states == 2 && r->cpus[0].states[1].have &&
           r->cpus[0].states[1].time_us == 15000000 && r->cpus[0].states[1].usage == 400 &&
           streq(r->cpus[0].states[1].name, "C10") && streq(b->cpuidle_driver, "intel_idle"),
           "cpuidle: per-CPU, per-state residency and usage deltas");
        ok(r->cpus[1].n_states == 1 && r->cpus[1].states[0].have && r->cpus[1].states[0].time_us == 0,
           "cpuidle: an idle counter that did not move is a zero, not absent");
        ok(r->residency[M_LPI_SYSTEM].err == 0 && r->residency[M_LPI_SYSTEM].v == 10000000,
           "system residency delta");
        ok(r->residency[M_LPI_CPU].err == -ENOENT && r->residency[M_PMC_SLP_S0].err == -ENOENT,
           "absent residency counters are absent, not zero");
        ok(r->n_zones == 2 && streq(r->zones[0].z->id, "intel-rapl:0") && r->zones[0].wrapped &&
           r->zones[0].delta_uj == 40000000, "RAPL package: wrapped at max_energy_range_uj, 40 J");
        ok(streq(r->zones[1].z->id, "intel-rapl:0:0") && r->zones[1].err == -ENOENT,
           "a zone without energy_uj: absent, and the control type itself is no zone");
        ok(r->n_bats == 1 && r->bats[0].have_energy && r->bats[0].drained_uwh == 100000,
           "battery: energy_now fell by 0.1 Wh; the mains supply is no battery");
        ok(r->n_irqs == 2 && streq(r->irqs[0].c->key, "127") && r->irqs[0].delta == 400 &&
           streq(r->irqs[0].c->desc, "PCI-MSI 327680-edge xhci_hcd") && streq(r->irqs[1].c->key, "LOC") &&
           r->irqs[1].delta == 200, "interrupts: deltas summed over CPUs, busiest first, quiet ones left out");
        ok(r->n_wakeups == 1 && streq(r->wakeups[0].c->key, "PNP0C0A:00") && r->wakeups[0].delta == 6 &&
           r->wakeups[0].delta2 == 2 && streq(b->wakeup_from, "/sys/kernel/debug/wakeup_sources"),
           "wakeup sources from debugfs when /sys/class/wakeup is absent");

        {
                size_t *chain = NULL, nc = 0;
                unsigned long long audio;
                const char *what;
                unsigned long long ms = measure_settle_ms(b, p, &chain, &nc, &audio, &what);
                struct setting *s;

                ok(ms == 2000 && nc == 1 && streq(b->devs[chain[0]].name, "usb1") && audio == 0 && !what,
                   "settle: the hub's 2000 ms (the mouse is on, it holds no chain; a suspended device's 15 s "
                   "delay is nothing to wait for) (got %llu ms, %zu)", ms, nc);
                free(chain);
                /* a delay a family declares (audio's power_save, knobs/audio.c .settle) */
                s = plan_add(p);
                s->knob = xstrdup("audio.power_save");
                s->module = xstrdup("snd_hda_intel");
                s->param = xstrdup("power_save");
                s->value = xstrdup("10");
                s->reason = xstrdup("profile test [audio] power_save");
                s->mech = MECH_MODPROBE;
                ms = measure_settle_ms(b, p, &chain, &nc, &audio, &what);
                ok(ms == 10000 && audio == 10000 && what && strstr(what, "audio codec"),
                   "settle: audio.power_save = 10 waits 10 s, in the audio family's words (got %llu ms, %s)", ms,
                   what ? what : "none");
                free(chain);
        }
        measure_result_free(r);

        /* after: the mouse allowed to suspend, so the hub and the controller follow */
        {
                struct measure_sample *c = NULL, *d = NULL;
                struct measure_result *r1 = NULL, *r2 = NULL;
                struct measure_change *ch = NULL;
                size_t nch = 0;
                const struct measure_change *hub = NULL, *mouse = NULL;

                measure_diff(a, b, p, NULL, &r1);
                dev(MOUSE, "usb", "auto", "active", 21000, 0, 2000);
                measure_sample(&env, &clk, &c);
                dev(XHCI, "pci", "auto", "suspended", 22000, 19000, -1);
                dev(HUB, "usb", "auto", "suspended", 22000, 19000, 2000);
                dev(MOUSE, "usb", "auto", "suspended", 23000, 18000, 2000);
                dev(MOUSE "/1-4:1.0", "usb", "auto", "suspended", 23000, 18000, -1);
                dev(NVME, "pci", "auto", "suspended", 6000, 35000, 100);
                fake_us += 20000000;
                measure_sample(&env, &clk, &d);
                measure_diff(c, d, p, NULL, &r2);
                measure_compare(r1, r2, p, &ch, &nch);
                ok(nch == 4, "four devices changed (got %zu)", nch);
                for (size_t i = 0; i < nch; i++) {
                        if (streq(ch[i].after->d->name, "usb1"))
                                hub = &ch[i];
                        if (streq(ch[i].after->d->name, "1-4"))
                                mouse = &ch[i];
                }
                ok(mouse && mouse->now_suspends && mouse->cause && streq(mouse->cause->name, "1-4") &&
                   streq(mouse->control_before, "on") && streq(mouse->control_after, "auto"),
                   "the mouse suspends: its own power/control on -> auto");
                ok(hub && hub->now_suspends && hub->cause && streq(hub->cause->name, "1-4") && hub->s &&
                   streq(hub->s->knob, "usb.autosuspend"),
                   "the hub suspends: attributed to the change on 1-4, the leaf that kept it awake");
                free(ch);
                measure_result_free(r1);
                measure_result_free(r2);
                measure_sample_free(c);
                measure_sample_free(d);
        }
        measure_sample_free(a);
        measure_sample_free(b);
        plan_free(p);
}

static void test_interrupts(void)
{
        struct m_count *v = NULL;
        size_t nv = 0;
        const char *text =
                "            CPU0       CPU1       CPU2\n"
                "   9:          0         12          0  IR-IO-APIC    9-fasteoi   acpi\n"
                " NMI:          1          2          3   Non-maskable interrupts\n"
                " ERR:          0\n"
                " MIS:          5\n"
                " 120:          7          0          0  PCI-MSIX-0000:00:14.0   0-edge      2-xhci\n";

        ok(measure_parse_interrupts(text, &v, &nv) == 0 && nv == 5, "interrupts: five lines (got %zu)", nv);
        if (nv == 5) {
                ok(streq(v[0].key, "9") && v[0].count == 12 && streq(v[0].desc, "IR-IO-APIC 9-fasteoi acpi"),
                   "a numbered line: counts summed, the description's number kept");
                ok(streq(v[1].key, "NMI") && v[1].count == 6 && streq(v[1].desc, "Non-maskable interrupts"),
                   "a named line");
                ok(streq(v[2].key, "ERR") && v[2].count == 0 && streq(v[3].key, "MIS") && v[3].count == 5 &&
                   streq(v[3].desc, ""), "ERR and MIS: one count, no description");
                ok(streq(v[4].desc, "PCI-MSIX-0000:00:14.0 0-edge 2-xhci") && v[4].count == 7,
                   "a description that starts with digits after the CPU columns");
        }
        for (size_t i = 0; i < nv; i++) {
                free(v[i].key);
                free(v[i].desc);
        }
        free(v);
        ok(measure_parse_interrupts("no header", &v, &nv) == -EBADMSG, "no CPU header: -EBADMSG");
}

static void test_missing(void)
{
        _cleanup_free_ char *sys = xasprintf("%s/bare/sys", base), *proc = xasprintf("%s/bare/proc", base);
        _cleanup_free_ char *devs = xasprintf("%s/devices/pci0000:00/0000:00:00.0/power", sys);
        struct measure_env env = { .sys = sys, .proc = proc };
        struct measure_sample *a = NULL, *b = NULL;
        struct measure_result *r = NULL;

        /* a machine without cpuidle, powercap, batteries, /proc/interrupts or
         * wakeup sources, and a device without runtime PM counters */
        mkdir_p(devs);
        {
                _cleanup_free_ char *u = xasprintf("%s/devices/pci0000:00/0000:00:00.0/uevent", sys);
                _cleanup_free_ char *s = xasprintf("%s/runtime_status", devs);
                FILE *f = fopen(u, "w");
                if (f)
                        fclose(f);
                f = fopen(s, "w");
                if (f) {
                        fputs("active", f);
                        fclose(f);
                }
        }
        ok(measure_sample(&env, NULL, &a) == 0 && measure_sample(&env, NULL, &b) == 0, "samples of a bare tree");
        measure_diff(a, b, NULL, NULL, &r);
        ok(r->n_cpus == 0 && !b->cpuidle_driver, "no cpuidle: no CPUs with states, no driver");
        ok(r->n_zones == 0 && r->n_bats == 0, "no powercap zones, no battery");
        ok(b->irq_err == -ENOENT && r->n_irqs == 0, "no /proc/interrupts: -ENOENT, not zero interrupts");
        ok(b->wakeup_err == -ENOENT, "no wakeup sources: -ENOENT");
        ok(r->n_devs == 1 && !r->devs[0].have_times && r->devs[0].awake && r->devs[0].why == WHY_BUSY,
           "a device without runtime_*_time: no shares, its state at the end");
        measure_result_free(r);
        measure_sample_free(a);
        measure_sample_free(b);
        {
                _cleanup_free_ char *gone = xasprintf("%s/nothing", base);
                struct measure_env e2 = { .sys = gone, .proc = gone };
                ok(measure_sample(&e2, NULL, &a) == -ENOENT, "no /sys/devices at all: -ENOENT");
        }
}

/* /sys/power/suspend_stats and pm_wakeup_irq across a run (#36): one cycle,
 * its hardware sleep, the IRQ that woke it; a run of 71 minutes or more
 * (last_hw_sleep wraps); no cycle; amd_pmc's S0i3 residency */
static void test_suspend(void)
{
        _cleanup_free_ char *sys = xasprintf("%s/susp/sys", base), *proc = xasprintf("%s/susp/proc", base);
        struct measure_env env = { .sys = sys, .proc = proc };
        struct measure_clock clk = { .now = fake_now, .wait = fake_wait };
        struct measure_sample *a = NULL, *b = NULL, *c = NULL;
        struct measure_result *r = NULL;

        put("/susp/sys/devices/.keep", "");
        putf("/susp/sys/power/suspend_stats/success", 3);
        putf("/susp/sys/power/suspend_stats/last_hw_sleep", 1000);
        putf("/susp/sys/power/suspend_stats/total_hw_sleep", 5000000);
        put("/susp/sys/power/suspend_stats/last_failed_dev", "\n");
        put("/susp/sys/kernel/debug/amd_pmc/s0ix_stats",
            "=== S0ix statistics ===\nS0ix Entry Time: 10\nS0ix Exit Time: 20\nResidency Time: 1000000\n");
        put("/susp/proc/interrupts", "           CPU0\n  9:          4   IO-APIC   9-fasteoi   acpi\n");
        fake_us = 0;
        ok(measure_sample(&env, &clk, &a) == 0, "suspend: first sample");
        putf("/susp/sys/power/suspend_stats/success", 4);
        putf("/susp/sys/power/suspend_stats/last_hw_sleep", 9500000);
        putf("/susp/sys/power/suspend_stats/total_hw_sleep", 14500000);
        putf("/susp/sys/power/pm_wakeup_irq", 9);
        put("/susp/sys/power/suspend_stats/last_failed_dev", "0000:00:14.0\n");
        put("/susp/sys/kernel/debug/amd_pmc/s0ix_stats",
            "=== S0ix statistics ===\nS0ix Entry Time: 10\nS0ix Exit Time: 20\nResidency Time: 10400000\n");
        put("/susp/proc/interrupts", "           CPU0\n  9:          6   IO-APIC   9-fasteoi   acpi\n");
        measure_wait(&clk, 600000);
        ok(measure_sample(&env, &clk, &b) == 0, "suspend: second sample, 10 minutes later");
        measure_diff(a, b, NULL, NULL, &r);
        ok(r->susp.have_cycles && r->susp.cycles == 1, "one suspend cycle during the run (success 3 -> 4)");
        ok(r->susp.have_last_hw_sleep && r->susp.last_hw_sleep_us == 9500000 && !r->susp.hw_sleep_wraps,
           "a run under 71 minutes: the last cycle's hardware sleep, 9.5 s");
        ok(r->susp.total_hw_sleep_us.err == 0 && r->susp.total_hw_sleep_us.v == 9500000, "total_hw_sleep: +9.5 s");
        ok(r->susp.have_wakeup_irq && r->susp.wakeup_irq == 9 && r->susp.wakeup_irq_line &&
           streq(r->susp.wakeup_irq_line->desc, "IO-APIC 9-fasteoi acpi"),
           "the last wake: IRQ 9 with its /proc/interrupts line");
        ok(streq_ptr(r->susp.last_failed_dev, "0000:00:14.0") && !a->susp.last_failed_dev,
           "last_failed_dev: the second sample's, an empty one is none");
        ok(r->susp.amd_s0ix_us.err == 0 && r->susp.amd_s0ix_us.v == 9400000, "amd_pmc S0i3 residency: +9.4 s");
        measure_result_free(r);
        putf("/susp/sys/power/suspend_stats/success", 5);
        measure_wait(&clk, 71u * 60u * 1000u);
        ok(measure_sample(&env, &clk, &c) == 0, "suspend: a third sample, 71 minutes later");
        measure_diff(b, c, NULL, NULL, &r);
        ok(r->susp.cycles == 1 && !r->susp.have_last_hw_sleep && r->susp.hw_sleep_wraps,
           "a run of 71 minutes: last_hw_sleep is not used (it wraps)");
        measure_result_free(r);
        measure_diff(c, c, NULL, NULL, &r);
        ok(r->susp.have_cycles && r->susp.cycles == 0 && !r->susp.have_last_hw_sleep && !r->susp.have_wakeup_irq,
           "no cycle: no last sleep, no last wake");
        measure_result_free(r);
        measure_sample_free(a);
        measure_sample_free(b);
        measure_sample_free(c);
}

/* the config space of the PCI function at BASE/DEVPATH with a PCI Express
 * capability at 0x40: LTR capable, enabled or not */
static void pci_config(const char *devpath, bool ltr_enabled)
{
        _cleanup_free_ char *path = xasprintf("%s%s/config", base, devpath);
        unsigned char c[256] = { 0 };
        FILE *f;

        c[6] = 0x10;                    /* PCI_STATUS_CAP_LIST */
        c[0x34] = 0x40;                 /* PCI_CAPABILITY_LIST */
        c[0x40] = 0x10;                 /* PCI_CAP_ID_EXP, no next */
        c[0x40 + 0x24 + 1] = 0x08;      /* PCI_EXP_DEVCAP2_LTR (0x800) */
        c[0x40 + 0x28 + 1] = ltr_enabled ? 0x04 : 0;    /* PCI_EXP_DEVCTL2_LTR_EN (0x400) */
        f = fopen(path, "w");
        if (!f || fwrite(c, 1, sizeof(c), f) != sizeof(c))
                ok(false, "cannot write %s", path);
        if (f)
                fclose(f);
}

static const struct measure_holder *holder_of(const struct measure_floor *f, enum holder_kind kind, const char *name,
                                              size_t *ret_rank)
{
        for (size_t i = 0; i < f->n_holders; i++)
                if (f->holders[i].kind == kind && streq(f->holders[i].m->d->name, name)) {
                        *ret_rank = i + 1;
                        return &f->holders[i];
                }
        return NULL;
}

#define FL "/floor/sys"
#define FPCI "/devices/pci0000:00"
#define CSTATE "/floor/sys/bus/event_source/devices/cstate_pkg"

/* the floor (#48 item 3): cstate_pkg's package C-states through the perf
 * seam, and the ranked holders with their reasons; LPIT when perf_event_open
 * is refused; watts alone without either (AMD) */
static void test_floor(void)
{
        _cleanup_free_ char *sys = xasprintf("%s" FL, base), *proc = xasprintf("%s/floor/proc", base);
        _cleanup_free_ char *perf = xasprintf("%s/floor/perf", base);
        struct measure_env env = { .sys = sys, .proc = proc, .perf_dir = perf };
        struct measure_clock clk = { .now = fake_now, .wait = fake_wait };
        struct measure_sample *a = NULL, *b = NULL;
        struct measure_result *r = NULL;
        struct measure_floor f;
        size_t rank = 0, rank2 = 0, rank3 = 0;

        /* four PCI functions: awake with runtime PM off where the profile
         * would allow it; awake on a link without ASPM L1; awake with LTR
         * off; suspended on a link without ASPM L1 */
        dev_in(FL, FPCI "/0000:00:02.0", "pci", "on", "active", 0, 0, -1);
        dev_in(FL, FPCI "/0000:00:1c.0", "pci", "auto", "active", 0, 0, -1);
        put(FL FPCI "/0000:00:1c.0/link/l1_aspm", "0\n");
        dev_in(FL, FPCI "/0000:00:1d.0", "pci", "auto", "active", 0, 0, -1);
        put(FL FPCI "/0000:00:1d.0/link/l1_aspm", "1\n");
        pci_config(FL FPCI "/0000:00:1d.0", false);
        dev_in(FL, FPCI "/0000:00:1f.0", "pci", "auto", "suspended", 0, 0, -1);
        put(FL FPCI "/0000:00:1f.0/link/l1_aspm", "0\n");
        pci_config(FL FPCI "/0000:00:1f.0", false);
        put(CSTATE "/type", "23\n");
        put(CSTATE "/cpumask", "0\n");
        put(CSTATE "/events/c2-residency", "event=0x00\n");
        put(CSTATE "/events/c6-residency", "event=0x02\n");
        put(CSTATE "/events/c10-residency", "event=0x06\n");
        putf("/floor/perf/c2-residency", 1000);
        putf("/floor/perf/c6-residency", 5000);
        putf("/floor/perf/c10-residency", 700);
        putf("/floor/perf/tsc", 1000000);
        putf("/floor/sys/devices/system/cpu/cpuidle/low_power_idle_cpu_residency_us", 100);
        env.pkg = measure_pkg_open(sys, perf);
        fake_us = 0;
        ok(measure_sample(&env, &clk, &a) == 0, "floor: first sample");
        /* 20 s; TSC +20e6: PC2 10 %, PC6 25 %, PC10 not at all */
        putf("/floor/perf/c2-residency", 2001000);
        putf("/floor/perf/c6-residency", 5005000);
        putf("/floor/perf/tsc", 21000000);
        putf("/floor/sys/devices/system/cpu/cpuidle/low_power_idle_cpu_residency_us", 100);
        measure_wait(&clk, 20000);
        ok(measure_sample(&env, &clk, &b) == 0, "floor: second sample");
        measure_pkg_close(env.pkg);
        {
                struct plan *p = xcalloc(1, sizeof(*p));
                struct setting *st = plan_add(p);
                st->knob = xstrdup("pci.runtime_pm");
                st->device = xstrdup(FPCI "/0000:00:02.0");
                st->device_name = xstrdup("0000:00:02.0");
                st->device_class = xstrdup("pci");
                st->attr = xstrdup("power/control");
                st->value = xstrdup("auto");
                st->reason = xstrdup("profile test [pci] runtime_pm");
                st->mech = MECH_UDEV;
                measure_diff(a, b, p, NULL, &r);
                measure_floor(r, &f);
                ok(f.source == FLOOR_CSTATE_PKG && f.pkg_err == 0 && streq_ptr(f.deepest, "PC10") &&
                   streq_ptr(f.reached, "PC6") && f.reached_us == 5000000 && f.pkg_have[M_PKG_C2] &&
                   f.pkg_us[M_PKG_C2] == 2000000 && !f.pkg_have[M_PKG_C3] && f.pkg_have[M_PKG_C10] &&
                   f.pkg_us[M_PKG_C10] == 0 && f.above,
                   "floor from cstate_pkg: PC6 reached (25 %% of 20 s by the TSC), PC10 offered and not reached "
                   "(got %s, %s, %llu us)", strempty(f.reached), strempty(f.deepest), f.reached_us);
                ok(holder_of(&f, HOLD_KNOB_OFF, "0000:00:02.0", &rank) && rank == 1 &&
                   streq_ptr(holder_of(&f, HOLD_KNOB_OFF, "0000:00:02.0", &rank)->m->knob, "pci.runtime_pm"),
                   "holder 1: the awake function whose runtime PM a planned knob would allow (knob-off)");
                ok(holder_of(&f, HOLD_ASPM, "0000:00:1c.0", &rank2) && rank2 > rank &&
                   !holder_of(&f, HOLD_ASPM, "0000:00:1f.0", &rank3) && !holder_of(&f, HOLD_ASPM, "0000:00:1d.0", &rank3),
                   "a holder: the awake function on a link without ASPM L1 (link/l1_aspm = 0), after knob-off; "
                   "a suspended one and one with L1 on are none");
                ok(holder_of(&f, HOLD_LTR, "0000:00:1d.0", &rank3) && rank3 > rank2 &&
                   holder_of(&f, HOLD_BUSY, "0000:00:1d.0", &rank) && rank > rank3,
                   "a holder: LTR capable but not enabled (Device Control 2), after ASPM, before devices in use");
                measure_floor_done(&f);
                measure_result_free(r);
                plan_free(p);
        }
        measure_sample_free(b);

        /* perf_event_open refused: LPIT's PC10 residency, and the refusal kept */
        put("/floor/perf/refused", "EACCES\n");
        env.pkg = measure_pkg_open(sys, perf);
        putf("/floor/sys/devices/system/cpu/cpuidle/low_power_idle_cpu_residency_us", 4000100);
        measure_wait(&clk, 20000);
        ok(measure_sample(&env, &clk, &b) == 0 && b->pkg.err == -EACCES, "floor: perf refused, said in the sample");
        measure_pkg_close(env.pkg);
        measure_sample_free(a);
        a = NULL;
        {
                struct measure_sample *c = NULL;
                putf("/floor/sys/devices/system/cpu/cpuidle/low_power_idle_cpu_residency_us", 8000100);
                env.pkg = measure_pkg_open(sys, perf);
                measure_wait(&clk, 20000);
                measure_sample(&env, &clk, &c);
                measure_pkg_close(env.pkg);
                measure_diff(b, c, NULL, NULL, &r);
                measure_floor(r, &f);
                ok(f.source == FLOOR_LPIT && f.pkg_err == -EACCES && streq_ptr(f.reached, "PC10") &&
                   f.reached_us == 4000000 && streq_ptr(f.deepest, "PC10") && !f.above && f.n_holders == 0,
                   "floor from LPIT when perf_event_open is refused: PC10 for 4 of 20 s, no holders at the bottom");
                measure_floor_done(&f);
                measure_result_free(r);
                measure_sample_free(c);
        }
        measure_sample_free(b);
}

/* AMD: no cstate_pkg, no LPIT: watts from RAPL's package zone, the S0i3 counter beside */
static void test_floor_watts(void)
{
        _cleanup_free_ char *sys = xasprintf("%s/amd/sys", base), *proc = xasprintf("%s/amd/proc", base);
        struct measure_env env = { .sys = sys, .proc = proc };
        struct measure_clock clk = { .now = fake_now, .wait = fake_wait };
        struct measure_sample *a = NULL, *b = NULL;
        struct measure_result *r = NULL;
        struct measure_floor f;

        put("/amd/sys/devices/.keep", "");
        put("/amd/sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/name", "package-0\n");
        putf("/amd/sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/energy_uj", 1000000);
        putf("/amd/sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/max_energy_range_uj", 262143328850ULL);
        link_to("/amd/sys/class/powercap/intel-rapl:0", "../../devices/virtual/powercap/intel-rapl/intel-rapl:0");
        env.pkg = measure_pkg_open(sys, NULL);
        fake_us = 0;
        measure_sample(&env, &clk, &a);
        putf("/amd/sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/energy_uj", 31000000);
        measure_wait(&clk, 10000);
        measure_sample(&env, &clk, &b);
        measure_pkg_close(env.pkg);
        measure_diff(a, b, NULL, NULL, &r);
        measure_floor(r, &f);
        ok(f.source == FLOOR_WATTS && f.pkg_err == -ENOENT && !f.deepest && !f.reached && !f.above &&
           f.have_watts && f.milliwatts == 3000 && streq_ptr(f.watts_from, "intel-rapl:0") && f.n_holders == 0,
           "AMD, no package counter: the floor not said, 3 W from RAPL's package zone, no holders guessed "
           "(got source %d, %lld mW)", f.source, f.milliwatts);
        measure_floor_done(&f);
        measure_result_free(r);
        measure_sample_free(a);
        measure_sample_free(b);
}

/* per setting (#48 item 4): a per-device unit for the setting on a device
 * with runtime PM times, none for one without; the machine-wide units given
 * to a setting only when it alone changed */
static void test_effects(void)
{
        _cleanup_free_ char *sys = xasprintf("%s/eff/sys", base), *proc = xasprintf("%s/eff/proc", base);
        struct measure_env env = { .sys = sys, .proc = proc };
        struct measure_clock clk = { .now = fake_now, .wait = fake_wait };
        struct measure_sample *a = NULL, *b = NULL, *c = NULL, *d = NULL;
        struct measure_result *x = NULL, *y = NULL;
        struct measure_effects e;
        struct plan *p = xcalloc(1, sizeof(*p));
        char *before[3] = { xstrdup("on"), xstrdup("1"), xstrdup("x") };
        char *after[3] = { xstrdup("auto"), xstrdup("0"), xstrdup("x") };
        struct setting *s;

        put("/eff/sys/devices/pci0000:00/0000:00:03.0/uevent", "");
        put("/eff/sys/devices/pci0000:00/0000:00:03.0/power/control", "on\n");
        put("/eff/sys/devices/pci0000:00/0000:00:03.0/power/runtime_status", "active\n");
        putf("/eff/sys/devices/pci0000:00/0000:00:03.0/power/runtime_active_time", 0);
        putf("/eff/sys/devices/pci0000:00/0000:00:03.0/power/runtime_suspended_time", 0);
        s = plan_add(p);
        s->knob = xstrdup("pci.runtime_pm");
        s->device = xstrdup("/devices/pci0000:00/0000:00:03.0");
        s->device_name = xstrdup("0000:00:03.0");
        s->attr = xstrdup("power/control");
        s->value = xstrdup("auto");
        s->reason = xstrdup("r");
        s = plan_add(p);
        s->knob = xstrdup("kernel.nmi_watchdog");
        s->value = xstrdup("0");
        s->reason = xstrdup("r");
        s = plan_add(p);
        s->knob = xstrdup("kernel.unchanged");
        s->value = xstrdup("x");
        s->reason = xstrdup("r");
        fake_us = 0;
        measure_sample(&env, &clk, &a);
        putf("/eff/sys/devices/pci0000:00/0000:00:03.0/power/runtime_active_time", 10000);
        measure_wait(&clk, 10000);
        measure_sample(&env, &clk, &b);
        put("/eff/sys/devices/pci0000:00/0000:00:03.0/power/control", "auto\n");
        measure_sample(&env, &clk, &c);
        putf("/eff/sys/devices/pci0000:00/0000:00:03.0/power/runtime_active_time", 12000);
        putf("/eff/sys/devices/pci0000:00/0000:00:03.0/power/runtime_suspended_time", 8000);
        put("/eff/sys/devices/pci0000:00/0000:00:03.0/power/runtime_status", "suspended\n");
        measure_wait(&clk, 10000);
        measure_sample(&env, &clk, &d);
        measure_diff(a, b, p, NULL, &x);
        measure_diff(c, d, p, NULL, &y);
        measure_effects(x, y, p, before, after, &e);
        ok(e.n == 2 && e.v[0].s == &p->v[0] && e.v[0].per_device && e.v[0].before->suspended_ms == 0 &&
           e.v[0].after->suspended_ms == 8000 && e.v[0].after->active_ms == 2000,
           "per setting: the runtime PM setting's gain in its device's runtime_suspended_time (0 -> 80 %%)");
        ok(e.n == 2 && e.v[1].s == &p->v[1] && !e.v[1].per_device && !e.machine_owner,
           "per setting: a setting without a device has no unit of its own, and with two changed the "
           "machine-wide units go to neither");
        measure_effects_free(&e);
        free(after[1]);
        after[1] = xstrdup("1");
        measure_effects(x, y, p, before, after, &e);
        ok(e.n == 1 && e.machine_owner == &e.v[0], "per setting: one setting changed: the machine-wide units are its");
        measure_effects_free(&e);
        measure_result_free(x);
        measure_result_free(y);
        measure_sample_free(a);
        measure_sample_free(b);
        measure_sample_free(c);
        measure_sample_free(d);
        plan_free(p);
        for (size_t i = 0; i < 3; i++) {
                free(before[i]);
                free(after[i]);
        }
}

int main(void)
{
        if (!mkdtemp(base)) {
                printf("1..0 # SKIP mkdtemp failed\n");
                return 0;
        }
        test_energy_delta();
        test_sample_and_diff();
        test_interrupts();
        test_missing();
        test_suspend();
        test_floor();
        test_floor_watts();
        test_effects();
        {
                _cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", base);
                if (system(cmd) != 0)
                        ok(false, "cleanup");
        }
        printf("1..%d\n", n);
        return failed ? 1 : 0;
}
