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
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        char buf[256];
        ssize_t n;

        if (fd < 0)
                return NULL;
        n = read(fd, buf, sizeof(buf) - 1);
        if (n < 0)
                return NULL;
        buf[n] = '\0';
        return xstrdup(strstrip(buf));
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

int ps_look(const char *sys, struct ps_look *ret)
{
        _cleanup_free_ char *dir = xasprintf("%s/class/power_supply", sys);
        _cleanup_free_ char *online = NULL, *discharging = NULL, *waiting = NULL, *device_bat = NULL;
        char **names = NULL;
        size_t n = 0;
        DIR *d = opendir(dir);  /* opendir, not scandir: umockdev redirects it in the tests */
        struct dirent *de;

        *ret = (struct ps_look) {};
        if (!d && errno != ENOENT && errno != ENOTDIR)
                return -errno;
        while (d && (de = readdir(d))) {
                names = xrealloc(names, (n + 1) * sizeof(*names));
                names[n++] = xstrdup(de->d_name);
        }
        if (d)
                closedir(d);
        if (n > 0)
                qsort(names, n, sizeof(*names), strv_cmp);
        for (size_t i = 0; i < n; i++) {
                const char *name = names[i];
                _cleanup_free_ char *type = NULL, *scope = NULL, *on = NULL, *status = NULL, *ut = NULL;

                if (name[0] == '.' || online)
                        continue;
                type = attr(dir, name, "type");
                scope = attr(dir, name, "scope");
                if (!type)
                        continue;
                if (streq_ptr(scope, "Device")) {
                        /* a mouse's, a keyboard's or a controller's battery (hid-*, ...) */
                        if (!device_bat)
                                device_bat = xstrdup(name);
                        continue;
                }
                on = attr(dir, name, "online");
                if (streq(type, "Mains") && streq_ptr(on, "1"))
                        online = xasprintf("mains supply %s online", name);
                else if (streq(type, "USB") && streq_ptr(on, "1") && usb_pd(ut = attr(dir, name, "usb_type")))
                        online = xasprintf("USB Power Delivery supply %s online (%s)", name, ut);
                else if (streq(type, "Battery")) {
                        status = attr(dir, name, "status");
                        if (streq_ptr(status, "Discharging")) {
                                if (!discharging)
                                        discharging = xstrdup(name);
                        } else if (!waiting)
                                waiting = xasprintf("%s %s", name, status ? status : "(no status)");
                }
        }
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);

        if (online) {
                ret->source = PS_AC;
                ret->why = TAKE_PTR(online);
        } else if (discharging) {
                ret->source = PS_BATTERY;
                ret->why = xasprintf("no supply online, battery %s discharging", discharging);
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

int ps_last_read(const struct rootfs *rfs, enum power_source *ret)
{
        _cleanup_free_ char *text = NULL;
        int r = rootfs_read(rfs, PS_STATE_PATH, 64, &text, NULL, NULL);

        if (r < 0)
                return r == -ENOTDIR ? -ENOENT : r;
        strstrip(text);
        if (streq(text, "ac"))
                *ret = PS_AC;
        else if (streq(text, "battery"))
                *ret = PS_BATTERY;
        else
                return -ENOENT;         /* not ours to trust: decide again */
        return 0;
}

int ps_last_write(const struct rootfs *rfs, enum power_source s, struct xerror *ret_error)
{
        _cleanup_free_ char *text = xasprintf("%s\n", power_source_name(s));
        int r = rootfs_mkdir_p(rfs, "/run/idlecfg", NULL, NULL);

        if (r >= 0)
                /* /run: no fsync, the state is gone at the next boot whatever happens */
                r = rootfs_write_volatile(rfs, PS_STATE_PATH, text, strlen(text), 0644);
        if (r < 0) {
                _cleanup_free_ char *shown = rootfs_display(rfs, PS_STATE_PATH);
                return xerror_set(ret_error, r, _("cannot write %s: %s"), shown, strerror(-r));
        }
        return 0;
}

int ps_mark_write(const struct rootfs *rfs, enum power_source s, struct xerror *ret_error)
{
        int r = s == PS_BATTERY ? rootfs_mkdir_p(rfs, "/run/idlecfg", NULL, NULL) : 0;

        if (r >= 0)
                r = s == PS_BATTERY ? rootfs_write_volatile(rfs, PS_BATTERY_MARK_PATH, "", 0, 0644)
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
