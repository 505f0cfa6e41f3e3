/* powertools.c: the other power tools installed in a root (TLP, tuned,
 * laptop-mode-tools, powertop's unit, ...), and which of them set knobs
 * idlecfg sets too */
#include "config.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "pipeline/powertools.h"
#include "root/rootfs.h"

/* Each tool: a file of its package (program or unit file, /lib and /usr/lib
 * for roots without the merged /usr) and the unit that enables it; whether it
 * sets knobs idlecfg plans (the coexistence table of idlecfg(8) and README). */
#define TOOL_PATHS 6
static const struct {
        const char *name, *unit, *paths[TOOL_PATHS];
        bool conflicts;
        const char *touches;
} tools[] = {
        { "tlp", "tlp.service", { "/usr/sbin/tlp", "/usr/bin/tlp" }, true,
          N_("runtime PM, PCIe ASPM, SATA ALPM, USB autosuspend, audio power save, Wi-Fi power save, "
             "NMI watchdog, dirty writeback, CPU") },
        /* tuned-ppd before tuned: it needs tuned, and switches tuned's profiles
         * (/etc/tuned/ppd.conf) on the power-profiles-daemon D-Bus API */
        { "tuned-ppd", "tuned-ppd.service",
          { "/usr/sbin/tuned-ppd", "/usr/bin/tuned-ppd", "/usr/lib/systemd/system/tuned-ppd.service",
            "/lib/systemd/system/tuned-ppd.service" }, true,
          N_("tuned's profiles, switched as power profiles: the stock balanced and powersave set SATA ALPM "
             "and the audio power-save timeout, powersave sysctls too") },
        { "tuned", "tuned.service",
          { "/usr/sbin/tuned", "/usr/bin/tuned", "/usr/lib/systemd/system/tuned.service",
            "/lib/systemd/system/tuned.service" }, true,
          N_("what its profile says: SATA ALPM, audio power save, USB autosuspend, sysctls, CPU") },
        { "power-profiles-daemon", "power-profiles-daemon.service",
          { "/usr/libexec/power-profiles-daemon", "/usr/lib/power-profiles-daemon/power-profiles-daemon",
            "/usr/lib/systemd/system/power-profiles-daemon.service",
            "/lib/systemd/system/power-profiles-daemon.service" }, false,
          N_("CPU energy preference, ACPI platform profile, battery charge type, AMD panel power savings") },
        { "laptop-mode-tools", "laptop-mode.service", { "/usr/sbin/laptop_mode", "/usr/bin/laptop_mode" }, true,
          N_("runtime PM, SATA ALPM, USB autosuspend, audio power save, Wi-Fi power save, dirty writeback, CPU") },
        { "powertop", "powertop.service",
          { "/etc/systemd/system/powertop.service", "/usr/lib/systemd/system/powertop.service",
            "/lib/systemd/system/powertop.service" }, true,
          N_("powertop --auto-tune at boot: runtime PM of every device, SATA ALPM, USB autosuspend, audio, "
             "Wi-Fi power save, NMI watchdog, dirty writeback") },
        { "auto-cpufreq", "auto-cpufreq.service",
          { "/usr/bin/auto-cpufreq", "/usr/local/bin/auto-cpufreq", "/etc/systemd/system/auto-cpufreq.service",
            "/usr/lib/systemd/system/auto-cpufreq.service" }, false,
          N_("CPU governor, energy preference and turbo") },
};
static const char *const wants[] = {
        "/etc/systemd/system/multi-user.target.wants", "/etc/systemd/system/graphical.target.wants",
        "/etc/systemd/system/sysinit.target.wants", "/etc/systemd/system/basic.target.wants",
};

const char *const *power_tool_files(size_t *ret_n)
{
        static const char **paths;
        static size_t n;

        if (!paths) {
                paths = xcalloc(ELEMENTSOF(tools) * (TOOL_PATHS + ELEMENTSOF(wants)), sizeof(*paths));
                for (size_t i = 0; i < ELEMENTSOF(tools); i++) {
                        for (size_t p = 0; p < TOOL_PATHS && tools[i].paths[p]; p++)
                                paths[n++] = tools[i].paths[p];
                        for (size_t w = 0; w < ELEMENTSOF(wants); w++)
                                paths[n++] = xasprintf("%s/%s", wants[w], tools[i].unit);
                }
        }
        *ret_n = n;
        return paths;
}

char *power_tool_warning(const struct power_tool *t)
{
        if (!t->conflicts)
                return NULL;
        return xasprintf(_("%s is installed%s: it sets knobs idlecfg sets too (%s); two tools will fight: "
                           "disable one of them, or install with --refuse-conflicts to be stopped"),
                         t->name, t->enabled ? _(" and enabled") : "", _(t->touches));
}

void detect_power_tools(struct inventory *inv)
{
        for (size_t i = 0; i < ELEMENTSOF(tools); i++) {
                char *found = NULL;
                bool enabled = false;

                for (size_t p = 0; p < TOOL_PATHS && tools[i].paths[p] && !found; p++) {
                        /* exists, links followed inside the root */
                        _cleanup_close_ int fd = rootfs_openat(inv->rfs, tools[i].paths[p], O_PATH);
                        if (fd >= 0)
                                found = xstrdup(tools[i].paths[p]);
                }
                for (size_t w = 0; w < ELEMENTSOF(wants) && !enabled; w++) {
                        _cleanup_free_ char *rel = xasprintf("%s/%s", wants[w], tools[i].unit);
                        struct stat st;
                        enabled = rootfs_lstat(inv->rfs, rel, &st) == 0;
                }
                if (!found && !enabled)
                        continue;
                inv->tools = xrealloc(inv->tools, (inv->n_tools + 1) * sizeof(*inv->tools));
                inv->tools[inv->n_tools++] = (struct power_tool) {
                        .name = tools[i].name, .path = found, .enabled = enabled,
                        .conflicts = tools[i].conflicts, .touches = tools[i].touches,
                };
        }
}
