/* powersource.c: AC or battery, from all power supplies together, debounced
 *
 * The rules are TLP's (tlp-func-base, get_sys_power_supply) and the sysfs
 * ABI is the kernel's Documentation/ABI/testing/sysfs-class-power: type
 * (Battery, UPS, Mains, USB, Wireless), online, status, scope (System,
 * Device), usb_type ("[PD] PD_PPS ..." with the selected word bracketed). */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <time.h>

#include "root/powersource.h"
#include "base/util.h"

const struct ps_timing ps_timing_default = { .settle_ms = 200, .lag_ms = 1500, .max_ms = 3000 };

const char *power_source_name(enum power_source s)
{
        return s == PS_BATTERY ? "battery" : "ac";
}

void ps_look_done(struct ps_look *l)
{
        free(l->why);
        *l = (struct ps_look) {};
}

/* an attribute of supply NAME, stripped; NULL when absent or unreadable */
static char *attr(const char *dir, const char *name, const char *file)
{
        _cleanup_free_ char *path = xasprintf("%s/%s/%s", dir, name, file);
        char *v;

        return read_live(path, LIVE_STRIP, &v) < 0 ? NULL : v;
}

/* usb_type names USB Power Delivery: its selected word ("[PD_PPS]"), or the
 * one word a driver without a list shows, starts with PD */
static bool usb_pd(const char *usb_type)
{
        const char *open = usb_type ? strchr(usb_type, '[') : NULL;

        if (!usb_type)
                return false;
        if (open)
                return startswith(open + 1, "PD");
        return !strchr(usb_type, ' ') && startswith(usb_type, "PD");
}

/* online: 0 offline, 1 online, 2 "Online Programmable" (USB PD PPS) or
 * any later kind of online: at least 1 counts, as systemd's on_ac_power() */
static bool online_ok(const char *on)
{
        char *end;
        unsigned long v;

        if (!on || !*on)
                return false;
        errno = 0;
        v = strtoul(on, &end, 10);
        return errno == 0 && *end == '\0' && on[0] != '-' && v >= 1;
}

/* the power roles of the Type-C devices in TYPEC (a directory of links)
 * below the device PARENT */
static void typec_roles(const char *typec, const char *parent, bool *source, bool *sink)
{
        DIR *d = opendir(typec);
        size_t n = strlen(parent);
        struct dirent *de;

        while (d && (de = readdir(d))) {
                _cleanup_free_ char *link = xasprintf("%s/%s", typec, de->d_name), *port = NULL, *role = NULL;

                if (de->d_name[0] == '.')
                        continue;
                port = realpath(link, NULL);
                if (!port || strncmp(port, parent, n) != 0 || port[n] != '/')
                        continue;
                role = attr(typec, de->d_name, "power_role");
                if (role && strstr(role, "[source]"))
                        *source = true;
                else if (role && strstr(role, "[sink]"))
                        *sink = true;
        }
        if (d)
                closedir(d);
}

/* systemd's device_is_power_sink(): the Type-C ports under the supply's
 * parent device; a USB supply whose ports are all in the source role is the
 * machine feeding a phone, not a charger. False only when a port is a
 * source and none a sink. The ports are class devices (SYS/class/typec);
 * the bus of the same name is searched too, as sd-device's enumerator does */
static bool usb_sink(const char *sys, const char *dir, const char *name)
{
        _cleanup_free_ char *self = xasprintf("%s/%s", dir, name), *class = xasprintf("%s/class/typec", sys);
        _cleanup_free_ char *bus = xasprintf("%s/bus/typec/devices", sys);
        _cleanup_free_ char *parent = realpath(self, NULL);
        bool source = false, sink = false;
        char *slash;

        /* a class device sits in PARENT/power_supply/NAME */
        for (int up = 0; up < 2; up++) {
                slash = parent ? strrchr(parent, '/') : NULL;
                if (!slash || slash == parent)
                        return true;
                *slash = '\0';
        }
        typec_roles(class, parent, &source, &sink);
        typec_roles(bus, parent, &source, &sink);
        return sink || !source;
}

/* the names in DIR (SYS/class/power_supply), sorted: the decision does
 * not depend on readdir()'s order. -errno when DIR exists but cannot be read */
static int supplies(const char *dir, char ***ret, size_t *ret_n)
{
        DIR *d = opendir(dir);  /* opendir, not scandir: umockdev redirects it in the tests */
        struct dirent *de;
        char **names = NULL;
        size_t n = 0;

        *ret = NULL;
        *ret_n = 0;
        if (!d)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                names = xrealloc(names, (n + 1) * sizeof(*names));
                names[n++] = xstrdup(de->d_name);
        }
        closedir(d);
        if (n > 0)
                qsort(names, n, sizeof(*names), strv_cmp);
        *ret = names;
        *ret_n = n;
        return 0;
}

int ps_look(const char *sys, struct ps_look *ret)
{
        _cleanup_free_ char *dir = xasprintf("%s/class/power_supply", sys);
        _cleanup_free_ char *online = NULL, *discharging = NULL, *waiting = NULL, *device_bat = NULL;
        _cleanup_free_ char *ignored = NULL;
        char **names = NULL;
        size_t n = 0;
        int r;

        *ret = (struct ps_look) {};
        r = supplies(dir, &names, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                const char *name = names[i];
                _cleanup_free_ char *type = NULL, *scope = NULL, *on = NULL, *status = NULL, *ut = NULL;
                _cleanup_free_ char *present = NULL;

                if (online)
                        continue;
                type = attr(dir, name, "type");
                scope = attr(dir, name, "scope");
                if (!type)
                        continue;
                if (streq_ptr(scope, "Device")) {
                        /* a mouse's, a keyboard's or a controller's battery (hid-*,
                         * HID++, UCSI without charging): it feeds that device only */
                        if (!device_bat)
                                device_bat = xstrdup(name);
                        continue;
                }
                if (streq(type, "Battery")) {
                        present = attr(dir, name, "present");
                        if (streq_ptr(present, "0"))
                                continue;       /* an empty bay */
                        status = attr(dir, name, "status");
                        /* no status: discharging, as systemd assumes */
                        if (!status || streq(status, "Discharging")) {
                                if (!discharging)
                                        discharging = xstrdup(name);
                        } else if (!waiting)
                                waiting = xasprintf("%s %s", name, status);
                        continue;
                }
                on = attr(dir, name, "online");
                if (!online_ok(on))
                        continue;
                if (streq(type, "USB")) {
                        /* systemd: not while its Type-C ports all supply power; TLP,
                         * stricter: only USB Power Delivery counts (a 5 V port does not
                         * run a laptop) */
                        ut = attr(dir, name, "usb_type");
                        if (!usb_sink(sys, dir, name)) {
                                if (!ignored)
                                        ignored = xasprintf("USB supply %s ignored: its Type-C ports are all power "
                                                            "sources", name);
                        } else if (!usb_pd(ut)) {
                                if (!ignored)
                                        ignored = xasprintf("USB supply %s online without Power Delivery (%s) "
                                                            "ignored", name, ut ? ut : "no usb_type");
                        } else
                                online = xasprintf("USB Power Delivery supply %s online (%s)", name, ut);
                } else if (streq(type, "Wireless"))
                        /* an inductive (Qi) receiver online: the machine draws from
                         * the pad, as from a cable; systemd counts it too */
                        online = xasprintf("wireless supply %s online", name);
                else if (streq(type, "Mains"))
                        online = xasprintf("mains supply %s online", name);
                else
                        /* UPS and the kinds sysfs-class-power adds later: online, not a battery */
                        online = xasprintf("%s supply %s online", type, name);
        }
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);

        if (online) {
                ret->source = PS_AC;
                ret->why = TAKE_PTR(online);
        } else if (discharging) {
                ret->source = PS_BATTERY;
                ret->why = xasprintf("no supply online, battery %s discharging%s%s", discharging, ignored ? "; " : "",
                                     strempty(ignored));
        } else if (waiting) {
                ret->source = PS_AC;
                ret->lagging = true;
                ret->why = xasprintf("no supply online, battery %s, not discharging: counted as AC", waiting);
        } else if (device_bat)
                ret->why = xasprintf("no system battery (device battery %s ignored): counted as AC", device_bat);
        else
                ret->why = xstrdup("no power supply online and no system battery: counted as AC");
        return 0;
}

char *ps_system_battery(const char *sys)
{
        _cleanup_free_ char *dir = xasprintf("%s/class/power_supply", sys);
        char **names = NULL, *found = NULL;
        size_t n = 0;

        (void) supplies(dir, &names, &n);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *type = NULL, *scope = NULL, *present = NULL;
                if (!found && streq_ptr(type = attr(dir, names[i], "type"), "Battery") &&
                    !streq_ptr(scope = attr(dir, names[i], "scope"), "Device") &&
                    !streq_ptr(present = attr(dir, names[i], "present"), "0"))
                        found = xstrdup(names[i]);
                free(names[i]);
        }
        free(names);
        return found;
}

static void sleep_ms(unsigned ms, _unused_ void *userdata)
{
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000L };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

int ps_decide(const char *sys, const struct ps_timing *t, void (*wait)(unsigned ms, void *userdata), void *userdata,
              struct ps_look *ret, unsigned *ret_looks)
{
        struct ps_look prev = {}, cur = {};
        unsigned elapsed = 0, looks = 1;
        int r;

        if (!wait)
                wait = sleep_ms;
        r = ps_look(sys, &prev);
        if (r < 0)
                return r;
        for (;;) {
                unsigned step = t->settle_ms ? t->settle_ms : 1;
                wait(step, userdata);
                elapsed += step;
                r = ps_look(sys, &cur);
                looks++;
                if (r < 0) {
                        ps_look_done(&prev);
                        return r;
                }
                /* stable: the same source twice in a row, and no battery status that may still change */
                if (cur.source == prev.source && (!cur.lagging || elapsed >= t->lag_ms))
                        break;
                if (elapsed >= t->max_ms)
                        break;
                ps_look_done(&prev);
                prev = cur;
                cur = (struct ps_look) {};
        }
        ps_look_done(&prev);
        *ret = cur;
        if (ret_looks)
                *ret_looks = looks;
        return 0;
}

int ps_last_read(const struct rootfs *rfs, enum power_source *ret, bool *ret_forced)
{
        _cleanup_free_ char *text = NULL;
        int r = rootfs_read(rfs, PS_STATE_PATH, 64, &text, NULL, NULL);
        bool forced;

        if (r < 0)
                return r == -ENOTDIR ? -ENOENT : r;
        strstrip(text);
        forced = endswith_str(text, " forced");
        if (forced)
                text[strlen(text) - strlen(" forced")] = '\0';
        if (streq(text, "ac"))
                *ret = PS_AC;
        else if (streq(text, "battery"))
                *ret = PS_BATTERY;
        else
                return -ENOENT;         /* not ours to trust: decide again */
        if (ret_forced)
                *ret_forced = forced;
        return 0;
}

int ps_last_write(const struct rootfs *rfs, enum power_source s, bool forced, struct xerror *ret_error)
{
        _cleanup_free_ char *text = xasprintf("%s%s\n", power_source_name(s), forced ? " forced" : "");
        int r = rootfs_mkdir_p(rfs, "/run/idlecfg", NULL, NULL);

        if (r >= 0)
                /* /run: no fsync, the state is gone at the next boot whatever happens */
                r = rootfs_write_volatile(rfs, PS_STATE_PATH, text, strlen(text), 0644);
        if (r < 0) {
                _cleanup_free_ char *shown = rootfs_display(rfs, PS_STATE_PATH);
                _cleanup_free_ char *why = rootfs_why(rfs, PS_STATE_PATH, r, 64);
                return xerror_set(ret_error, r, _("cannot write %s: %s"), shown, why);
        }
        return 0;
}

int ps_mark_write(const struct rootfs *rfs, enum power_source s, const char *seen, struct xerror *ret_error)
{
        int r = s == PS_BATTERY ? rootfs_mkdir_p(rfs, "/run/idlecfg", NULL, NULL) : 0;

        if (r >= 0)
                r = s == PS_BATTERY ? rootfs_write_volatile(rfs, PS_BATTERY_MARK_PATH, strempty(seen),
                                                            strlen(strempty(seen)), 0644)
                                    : rootfs_unlink(rfs, PS_BATTERY_MARK_PATH);
        if (r == -ENOTDIR && s == PS_AC)
                r = 0;          /* no /run/idlecfg: no mark either */
        if (r < 0) {
                _cleanup_free_ char *shown = rootfs_display(rfs, PS_BATTERY_MARK_PATH);
                return xerror_set(ret_error, r, s == PS_BATTERY ? _("cannot write %s: %s") : _("cannot remove %s: %s"),
                                  shown, strerror(-r));
        }
        return 0;
}

int ps_mark_read(const struct rootfs *rfs, char **ret_seen)
{
        int r = rootfs_read(rfs, PS_BATTERY_MARK_PATH, 1u << 20, ret_seen, NULL, NULL);

        return r == -ENOTDIR ? -ENOENT : r;
}
