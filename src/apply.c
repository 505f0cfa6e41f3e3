/* apply.c: write the plan's live settings, journal first; undo them; verify
 *
 * Every write is preceded by a journal line (path, old, new) that is fsynced
 * before the attribute is touched, so a crash or a kill at any point leaves a
 * journal that names every attribute that may have changed. */
#include "config.h"

#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "apply.h"
#include "install.h"
#include "journal.h"
#include "knobs/knob.h"
#include "json.h"
#include "manifest.h"

#define MAX_JOURNAL (64u << 20)

char *value_normalize(const char *raw)
{
        _cleanup_free_ char *copy = xstrdup(raw);
        char *sel = NULL;

        strstrip(copy);
        if (strchr(copy, '[') && parse_selected(copy, &sel) == 0)
                return sel;
        return TAKE_PTR(copy);
}

/* which module parameters exist as files at run time is the kernel's business;
 * a boot-time-only parameter has no file, or one without write permission */
char *setting_live_path(const struct setting *s, const char **ret_why)
{
        if (!s->value) {
                *ret_why = "skip";
                return NULL;
        }
        switch (s->mech) {
        case MECH_UDEV:
                if (!s->device || !s->attr)
                        break;
                return xasprintf("/sys%s/%s", s->device, s->attr);
        case MECH_MODPROBE:
        case MECH_TMPFILES:
        case MECH_CMDLINE:
                if (s->module && s->param)
                        return xasprintf("/sys/module/%s/parameters/%s", s->module, s->param);
                *ret_why = _("a kernel parameter: it takes effect at the next boot");
                return NULL;
        case MECH_SYSCTL: {
                char *path = s->param ? sysctl_proc_path(s->param) : NULL;
                if (!path)
                        *ret_why = _("/proc/sys is the host's under umockdev: set IDLECFG_TEST_PROC");
                return path;
        }
        case MECH_NM:
                /* no sysfs file: nl80211 only, and NetworkManager sets it again on every activation */
                *ret_why = _("NetworkManager sets it when it next activates a Wi-Fi connection (reload its "
                             "configuration, or boot)");
                return NULL;
        case MECH_LINK:
                /* Wake-on-LAN has no sysfs file; systemd-udevd sets it when the NIC is added */
                *ret_why = _("systemd-udevd sets it when the network interface is added (the next boot)");
                return NULL;
        case MECH_NONE:
        case _MECH_MAX:
                break;
        }
        *ret_why = _("nothing to write at run time");
        return NULL;
}

/* one read() of a sysfs attribute, as it is */
static int read_raw(const char *path, char **ret)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        char buf[4097];
        ssize_t n;

        if (fd < 0)
                return -errno;
        n = read(fd, buf, sizeof(buf) - 1);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        if (memchr(buf, '\0', (size_t) n))
                return -EBADMSG;
        *ret = xstrdup(buf);
        return 0;
}

static int write_attr(const char *path, const char *value)
{
        _cleanup_close_ int fd = -1;
        size_t len = strlen(value);
        ssize_t n;
        int r;

        r = fault_point("sysfs write");
        if (r < 0)
                return r;
        /* O_TRUNC: sysfs ignores it; a file in a recorded tree needs it */
        fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        n = write(fd, value, len);
        if (n < 0)
                return -errno;
        if ((size_t) n != len)
                return -EIO;
        return 0;
}

/* the value to write back: what was read, unless it is a [selected] list,
 * which the kernel does not take back: then the selected word */
static char *restore_value(const char *old)
{
        if (strchr(old, '['))
                return value_normalize(old);
        return xstrdup(old);
}

/* ---- the journal file ---- */

struct jfile {
        const struct rootfs *rfs;
        int fd;
        bool run_written;
        unsigned run;
        const char *profile;
};

static int journal_load(const struct rootfs *rfs, struct journal **ret, struct xerror *ret_error)
{
        _cleanup_free_ char *text = NULL, *shown = rootfs_display(rfs, JOURNAL_PATH);
        size_t len;
        int r = rootfs_read(rfs, JOURNAL_PATH, MAX_JOURNAL, &text, &len, NULL);

        if (r == -ENOENT)
                return r;
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot read %s: %s"), shown, strerror(-r));
        return journal_parse(shown, text, len, ret, ret_error);
}

static int jfile_append(struct jfile *jf, const char *line, struct xerror *ret_error)
{
        _cleanup_free_ char *shown = rootfs_display(jf->rfs, JOURNAL_PATH);
        size_t len = strlen(line);
        int r;

        if (jf->fd < 0) {
                struct stat st;
                r = rootfs_lstat(jf->rfs, JOURNAL_PATH, &st);
                if (r == -ENOENT || (r == 0 && st.st_size == 0)) {
                        _cleanup_free_ char *h = journal_header();
                        r = rootfs_mkdir_p(jf->rfs, STATE_DIR, NULL, NULL);
                        if (r >= 0)
                                r = rootfs_write_atomic(jf->rfs, JOURNAL_PATH, h, strlen(h), 0600, (uid_t) -1,
                                                        (gid_t) -1);
                }
                if (r < 0)
                        return xerror_set(ret_error, r, _("cannot create %s: %s"), shown, strerror(-r));
                jf->fd = rootfs_openat(jf->rfs, JOURNAL_PATH, O_WRONLY | O_APPEND | O_NOFOLLOW);
                if (jf->fd < 0)
                        return xerror_set(ret_error, jf->fd, _("cannot open %s: %s"), shown, strerror(-jf->fd));
        }
        r = fault_point("journal append");
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot write %s: %s"), shown, strerror(-r));
        for (size_t off = 0; off < len;) {
                ssize_t n = write(jf->fd, line + off, len - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return xerror_set(ret_error, -errno, _("cannot write %s: %s"), shown, strerror(errno));
                off += (size_t) n;
        }
        r = fault_point("journal fsync");
        if (r < 0 || fsync(jf->fd) < 0) {
                r = r < 0 ? r : -errno;
                return xerror_set(ret_error, r, _("cannot write %s: %s"), shown, strerror(-r));
        }
        return 0;
}

/* ---- apply ---- */

struct change {
        char *path;
        char *old;
        const struct setting *s;
};

static const char *setting_where(const struct setting *s)
{
        return s->device_name ? s->device_name : s->module ? s->module : "system";
}

/* undo this run's changes, last first */
static size_t undo(struct change *v, size_t n, FILE *out)
{
        size_t failed = 0;

        for (size_t i = n; i-- > 0;) {
                _cleanup_free_ char *back = restore_value(v[i].old);
                int r = write_attr(v[i].path, back);
                if (r < 0) {
                        fprintf(out, _("  could not undo %s (%s): %s; \"idlecfg rollback\" will try again\n"),
                                v[i].path, setting_where(v[i].s), strerror(-r));
                        failed++;
                } else
                        fprintf(out, _("  undid %s\n"), v[i].path);
        }
        return failed;
}

int apply_run(const struct rootfs *rfs, const struct plan *p, const struct apply_options *o, FILE *out,
              struct xerror *ret_error)
{
        _cleanup_(journal_freep) struct journal *j = NULL;
        struct jfile jf = { .rfs = rfs, .fd = -1, .profile = p->profile };
        struct change *done = NULL;
        size_t n_done = 0, n_would = 0, n_failed = 0, n_later = 0, n_same = 0;
        int r;

        r = journal_load(rfs, &j, ret_error);
        if (r < 0 && r != -ENOENT)
                return r;
        jf.run = (j ? j->runs : 0) + 1;

        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                const char *why = NULL;
                _cleanup_free_ char *path = setting_live_path(s, &why), *old = NULL, *norm = NULL;
                struct stat st;

                if (!s->value)
                        continue;
                if (path) {
                        /* two settings of one file (a parameter both in tmpfiles.d and on
                         * the command line): the first one decides */
                        bool dup = false;
                        for (size_t k = 0; k < i && !dup; k++) {
                                const char *w2 = NULL;
                                _cleanup_free_ char *p2 = p->v[k].value ? setting_live_path(&p->v[k], &w2) : NULL;
                                dup = p2 && streq(p2, path);
                        }
                        if (dup)
                                continue;
                }
                if (!path) {
                        n_later++;
                        fprintf(out, _("  later: %s %s=%s: %s\n"), s->knob, strempty(s->param), s->value, why);
                        continue;
                }
                r = read_raw(path, &old);
                if (s->mech == MECH_SYSCTL && (r == -ENOENT || (r == 0 && stat(path, &st) == 0 &&
                                                                 !(st.st_mode & 0222)))) {
                        /* the running kernel lacks it, or has it read-only (nmi_watchdog
                         * without a hard-lockup detector): systemd-sysctl gets nowhere either */
                        n_later++;
                        fprintf(out, r == -ENOENT ? _("  absent: %s %s=%s: the running kernel has no %s; nothing to set\n")
                                                  : _("  absent: %s %s=%s: %s is read-only in the running kernel; "
                                                      "nothing to set\n"), s->knob, s->param, s->value, path);
                        continue;
                }
                if (r == -ENOENT && s->mech != MECH_UDEV) {
                        n_later++;
                        fprintf(out, _("  later: %s %s.%s=%s: the module is not loaded or does not show the "
                                       "parameter; it takes effect when it loads\n"), s->knob, s->module, s->param,
                                s->value);
                        continue;
                }
                if (r == 0 && s->mech != MECH_UDEV && stat(path, &st) == 0 && !(st.st_mode & 0222)) {
                        n_later++;
                        fprintf(out, _("  later: %s %s.%s=%s: read-only at run time, it takes effect at the "
                                       "next boot or module load\n"), s->knob, s->module, s->param, s->value);
                        continue;
                }
                if (r == -ENOENT) {
                        /* the generated rule's TEST== guard skips it the same way */
                        n_later++;
                        fprintf(out, _("  absent: %s on %s: %s does not exist now; nothing to set\n"), s->knob,
                                setting_where(s), path);
                        continue;
                }
                if (r < 0) {
                        fprintf(out, _("  FAILED %s on %s: cannot read %s: %s (nothing written: the old value "
                                       "is needed to undo it)\n"), s->knob, setting_where(s), path, strerror(-r));
                        n_failed++;
                        if (!o->keep_going) {
                                xerror_set(ret_error, r, _("%s on %s: cannot read %s: %s"), s->knob, setting_where(s),
                                           path, strerror(-r));
                                r = -EIO;
                                goto fail;
                        }
                        continue;
                }
                norm = value_normalize(old);
                if (streq(norm, s->value)) {
                        n_same++;
                        continue;
                }
                if (o->dry_run) {
                        fprintf(out, _("  would set %s on %s: %s %s -> %s\n"), s->knob, setting_where(s), path, norm,
                                s->value);
                        n_would++;
                        continue;
                }
                if (!jf.run_written) {
                        _cleanup_free_ char *line = journal_run_line(jf.run, (long long) time(NULL), p->profile);
                        r = jfile_append(&jf, line, ret_error);
                        if (r < 0)
                                goto fail;
                        jf.run_written = true;
                }
                /* the journal line and the write it announces: a signal waits for both */
                signals_defer();
                {
                        _cleanup_free_ char *line = journal_set_line(path, old, s->value);
                        r = jfile_append(&jf, line, ret_error);
                        if (r < 0) {
                                signals_undefer();
                                goto fail;
                        }
                }
                r = write_attr(path, s->value);
                signals_undefer();
                if (r < 0) {
                        fprintf(out, _("  FAILED %s on %s: the kernel refused %s for %s: %s\n"), s->knob,
                                setting_where(s), s->value, path, strerror(-r));
                        n_failed++;
                        if (!o->keep_going) {
                                xerror_set(ret_error, r, _("%s on %s: the kernel refused %s for %s: %s"), s->knob,
                                           setting_where(s), s->value, path, strerror(-r));
                                r = -EIO;       /* a runtime failure, not bad input */
                                goto fail;
                        }
                        continue;
                }
                done = xrealloc(done, (n_done + 1) * sizeof(*done));
                done[n_done++] = (struct change) { .path = TAKE_PTR(path), .old = TAKE_PTR(old), .s = s };
                fprintf(out, _("  set %s on %s: %s %s -> %s\n"), s->knob, setting_where(s),
                        done[n_done - 1].path, norm, s->value);
        }
        if (jf.fd >= 0)
                close(jf.fd);
        for (size_t i = 0; i < n_done; i++) {
                free(done[i].path);
                free(done[i].old);
        }
        free(done);
        fprintf(out, o->dry_run ? _("%zu settings would change, %zu already as planned, %zu take effect later or not at all now\n")
                                : _("%zu settings changed, %zu already as planned, %zu take effect later or not at all now\n"),
                o->dry_run ? n_would : n_done, n_same, n_later);
        if (n_failed > 0)
                return xerror_set(ret_error, -EIO, _("%zu settings were refused (--keep-going: the rest is applied; "
                                                     "\"idlecfg rollback\" undoes it)"), n_failed);
        return n_done + n_would > 0;

fail:
        if (jf.fd >= 0)
                close(jf.fd);
        if (n_done > 0)
                fprintf(out, _("Undoing the %zu settings this run changed (all or nothing; --keep-going "
                               "applies what the kernel takes):\n"), n_done);
        if (undo(done, n_done, out) > 0)
                xerror_set(ret_error, -EIO, _("apply failed and could not undo everything"));
        for (size_t i = 0; i < n_done; i++) {
                free(done[i].path);
                free(done[i].old);
        }
        free(done);
        return r < 0 ? r : -EIO;
}

int apply_rollback(const struct rootfs *rfs, bool force, FILE *out, struct xerror *ret_error)
{
        _cleanup_(journal_freep) struct journal *j = NULL;
        _cleanup_free_ char *shown = rootfs_display(rfs, JOURNAL_PATH);
        size_t left = 0, restored = 0;
        int r;

        r = journal_load(rfs, &j, ret_error);
        if (r == -ENOENT) {
                r = rootfs_remove_temps(rfs, JOURNAL_PATH);
                return r < 0 ? xerror_set(ret_error, r, _("cannot clean up %s: %s"), STATE_DIR, strerror(-r)) : 1;
        }
        if (r < 0)
                return r;
        for (size_t i = j->n; i-- > 0;) {
                const struct journal_entry *e = &j->v[i];
                _cleanup_free_ char *cur = NULL, *ncur = NULL, *nold = value_normalize(e->old);
                _cleanup_free_ char *nnew = value_normalize(e->new), *back = NULL;

                r = read_raw(e->path, &cur);
                if (r < 0) {
                        fprintf(out, _("  left %s: cannot read it: %s\n"), e->path, strerror(-r));
                        left++;
                        continue;
                }
                ncur = value_normalize(cur);
                if (streq(ncur, nold))
                        continue;       /* as before: the write never happened, or was undone */
                if (!streq(ncur, nnew) && !force) {
                        fprintf(out, _("  left %s alone: it is %s, not %s as idlecfg set it (someone changed it "
                                       "since; --force restores %s anyway)\n"), e->path, ncur, nnew, nold);
                        left++;
                        continue;
                }
                back = restore_value(e->old);
                r = write_attr(e->path, back);
                if (r < 0) {
                        fprintf(out, _("  could not restore %s to %s: %s\n"), e->path, nold, strerror(-r));
                        left++;
                        continue;
                }
                fprintf(out, _("  restored %s: %s -> %s\n"), e->path, ncur, nold);
                restored++;
        }
        if (left > 0)
                return xerror_set(ret_error, -EBUSY, P_("%zu value was left as it is; %s keeps it for a later rollback",
                                                          "%zu values were left as they are; %s keeps them for a later rollback",
                                                          left), left, shown);
        r = rootfs_unlink(rfs, JOURNAL_PATH);
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot remove %s: %s"), shown, strerror(-r));
        (void) rootfs_remove_temps(rfs, JOURNAL_PATH);
        fprintf(out, _("Every value idlecfg applied is as it was before (%zu restored).\n"), restored);
        return 0;
}

/* ---- verify ---- */

/* what the plan says about KNOB on device DEVPATH: the setting, or NULL */
static const struct setting *plan_find(const struct plan *p, const char *devpath, const char *knob)
{
        for (size_t i = 0; i < p->n; i++)
                if (streq_ptr(p->v[i].device, devpath) && knob && streq(p->v[i].knob, knob))
                        return &p->v[i];
        return NULL;
}

struct blocker {
        const struct device *d;
        char *what;
        const char *knob;
        const struct setting *s;
};

struct blockers {
        struct blocker *v;
        size_t n;
};

static void blocker_add(struct blockers *b, const struct plan *p, const struct device *d, const char *knob,
                        char *what_take)
{
        b->v = xrealloc(b->v, (b->n + 1) * sizeof(*b->v));
        b->v[b->n++] = (struct blocker) { .d = d, .what = what_take, .knob = knob,
                                          .s = plan_find(p, d->devpath, knob) };
}

static void find_blockers(const struct plan *p, const struct device *d, struct blockers *b)
{
        const char *control = kv_get(&d->knobs, "power/control"), *status = kv_get(&d->knobs, "power/runtime_status");
        const char *v;

        if (control && streq(control, "on"))
                blocker_add(b, p, d, knob_runtime_pm_of(d->class), xstrdup(_("runtime PM is off (power/control = on)")));
        else if (status && streq(status, "active") && control && streq(control, "auto"))
                blocker_add(b, p, d, NULL, xstrdup(_("runtime PM is allowed but the device is active (in use, "
                                                      "or a child keeps it awake)")));
        /* the ATA port above a SATA host (detect reads ataN/power/control); the plan
         * names a planned port by its ata_port class device, a skip by the host */
        if ((v = kv_get(&d->knobs, "port/power/control")) && streq(v, "on") && streq(d->class, "sata")) {
                const char *knob = knob_runtime_pm_of("ata-port"), *port = kv_get(&d->ids, "port");
                _cleanup_free_ char *dir = xstrdup(strempty(d->anchor)), *cdev = NULL;
                char *slash = strrchr(dir, '/');
                const struct setting *s = NULL;

                if (slash && port) {
                        *slash = '\0';         /* .../ataN/hostM -> .../ataN */
                        cdev = xasprintf("%s/ata_port/%s", dir, port);
                        s = plan_find(p, cdev, knob);
                }
                blocker_add(b, p, d, knob, xasprintf(_("runtime PM of ATA port %s is off (power/control = on)"),
                                                     strempty(port)));
                if (s)
                        b->v[b->n - 1].s = s;
        }
        if ((v = kv_get(&d->knobs, "power/autosuspend_delay_ms")) && v[0] == '-' && streq(d->class, "usb"))
                blocker_add(b, p, d, "usb.autosuspend_delay_ms",
                            xasprintf(_("autosuspend is disabled (power/autosuspend_delay_ms = %s)"), v));
        if ((v = kv_get(&d->knobs, "link_power_management_policy")) && streq(v, "max_performance"))
                blocker_add(b, p, d, "sata.alpm", xstrdup(_("SATA link power management is off "
                                                           "(link_power_management_policy = max_performance)")));
        if ((v = kv_get(&d->knobs, "link/l1_aspm")) && streq(v, "0"))
                blocker_add(b, p, d, "pcie_aspm.link", xstrdup(_("ASPM L1 is disabled on this link (link/l1_aspm = 0)")));
        if (((v = kv_get(&d->knobs, "power/rc6_enable")) || (v = kv_get(&d->knobs, "gt/gt0/rc6_enable"))) &&
            streq(v, "0"))
                blocker_add(b, p, d, NULL, xstrdup(_("GPU RC6 is disabled (rc6_enable = 0)")));
        else if (streq(d->class, "drm") && d->devpath) {
                static const char *const files[] = { "power/rc6_residency_ms", "gt/gt0/rc6_residency_ms" };
                for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                        _cleanup_free_ char *path = xasprintf("/sys%s/%s", d->devpath, files[i]);
                        _cleanup_free_ char *a = NULL, *z = NULL;
                        if (read_raw(path, &a) < 0)
                                continue;
                        nanosleep(&(struct timespec) { .tv_nsec = 200 * 1000 * 1000 }, NULL);
                        if (read_raw(path, &z) == 0 && strtoull(z, NULL, 10) <= strtoull(a, NULL, 10))
                                blocker_add(b, p, d, NULL, xasprintf(_("GPU RC6 residency did not grow in 0.2 s "
                                                                      "(%s stays %llu): the GPU is busy or "
                                                                      "cannot enter RC6"), files[i],
                                                                    strtoull(z, NULL, 10)));
                        break;
                }
        }
        for (size_t i = 0; i < d->n_children; i++)
                find_blockers(p, &d->children[i], b);
}

struct residency {
        const char *name;
        const char *path;
        bool have;
        unsigned long long value, delta;
};

static void residencies(struct residency *r, size_t n)
{
        _cleanup_free_ char **first = xcalloc(n, sizeof(char *));
        bool any = false;

        for (size_t i = 0; i < n; i++)
                any = (read_raw(r[i].path, &first[i]) == 0) || any;
        if (any)
                nanosleep(&(struct timespec) { .tv_nsec = 250 * 1000 * 1000 }, NULL);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *again = NULL;
                if (!first[i] || read_raw(r[i].path, &again) < 0) {
                        free(first[i]);
                        continue;
                }
                r[i].have = true;
                r[i].value = strtoull(again, NULL, 10);
                r[i].delta = r[i].value - strtoull(first[i], NULL, 10);
                free(first[i]);
        }
}

enum vstate { V_MATCH, V_DRIFT, V_LATER, V_MISSING };

/* Wake-on-LAN of interface NAME as the kernel reports it (ETHTOOL_GWOL, read
 * only): 0 and "off" or the ethtool letters ("g", "pumbg"), or -errno. The
 * interface must be the one sysfs shows: under umockdev /sys is a recording
 * and the kernel's interface of that name, if any, is another NIC. */
static int wol_read(const char *name, char **ret)
{
        static const struct { unsigned bit; char letter; } bits[] = {
                { WAKE_PHY, 'p' }, { WAKE_UCAST, 'u' }, { WAKE_MCAST, 'm' }, { WAKE_BCAST, 'b' },
                { WAKE_ARP, 'a' }, { WAKE_MAGIC, 'g' }, { WAKE_MAGICSECURE, 's' }, { WAKE_FILTER, 'f' },
        };
        struct ethtool_wolinfo wol = { .cmd = ETHTOOL_GWOL };
        _cleanup_free_ char *path = NULL, *idx = NULL;
        _cleanup_close_ int fd = -1;
        struct ifreq ifr = {};
        char letters[ELEMENTSOF(bits) + 1];
        size_t n = 0;

        if (!name || strlen(name) >= sizeof(ifr.ifr_name) || getenv("UMOCKDEV_DIR"))
                return -ENODEV;
        path = xasprintf("/sys/class/net/%s/ifindex", name);
        if (read_raw(path, &idx) < 0 || strtoul(idx, NULL, 10) != if_nametoindex(name))
                return -ENODEV;
        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        memcpy(ifr.ifr_name, name, strlen(name));
        ifr.ifr_data = (void *) &wol;
        if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
                return -errno;
        for (size_t i = 0; i < ELEMENTSOF(bits); i++)
                if (wol.wolopts & bits[i].bit)
                        letters[n++] = bits[i].letter;
        letters[n] = '\0';
        *ret = xstrdup(n ? letters : "off");
        return 0;
}

int verify_run(const struct rootfs *rfs, const struct plan *p, const struct inventory *inv, bool json,
               FILE *out, struct xerror *ret_error)
{
        static const char *const state_names[] = { "match", "drift", "later", "missing" };
        struct residency res[] = {
                { "low_power_idle_cpu_residency_us", "/sys/devices/system/cpu/cpuidle/low_power_idle_cpu_residency_us" },
                { "low_power_idle_system_residency_us", "/sys/devices/system/cpu/cpuidle/low_power_idle_system_residency_us" },
                { "pmc_core_slp_s0_residency_usec", "/sys/kernel/debug/pmc_core/slp_s0_residency_usec" },
        };
        _cleanup_(manifest_freep) struct manifest *m = NULL;
        struct blockers b = {};
        enum vstate *st = xcalloc(p->n ? p->n : 1, sizeof(*st));
        char **actual = xcalloc(p->n ? p->n : 1, sizeof(char *));
        size_t count[4] = {};
        struct xerror ignored = {};
        struct json j;
        int r;

        r = manifest_load(rfs, &m, &ignored);
        xerror_done(&ignored);
        if (r < 0)
                m = NULL;
        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                const char *why = NULL;
                _cleanup_free_ char *path = setting_live_path(s, &why), *raw = NULL;
                if (!s->value)
                        continue;
                if (s->mech == MECH_LINK && streq_ptr(s->param, "WakeOnLan") &&
                    wol_read(s->device_name, &actual[i]) == 0)
                        /* the kernel answers: the one network setting verify can read */
                        st[i] = streq(actual[i], s->value) ? V_MATCH : V_DRIFT;
                else if (!path)
                        st[i] = V_LATER;
                else if (read_raw(path, &raw) < 0)
                        st[i] = s->mech == MECH_UDEV ? V_MISSING : V_LATER;
                else {
                        actual[i] = value_normalize(raw);
                        st[i] = streq(actual[i], s->value) ? V_MATCH : V_DRIFT;
                }
                count[st[i]]++;
        }
        for (size_t c = 0; c < _CL_MAX; c++)
                for (size_t i = 0; i < inv->classes[c].n; i++)
                        find_blockers(p, &inv->classes[c].v[i], &b);
        residencies(res, ELEMENTSOF(res));

        if (json) {
                json_init(&j, out);
                json_begin_object(&j);
                json_kv_int(&j, "schema", 1);
                json_kv_string(&j, "profile", p->profile);
                json_kv_bool(&j, "installed", m != NULL);
                json_key(&j, "settings");
                json_begin_array(&j);
                for (size_t i = 0; i < p->n; i++) {
                        const struct setting *s = &p->v[i];
                        if (!s->value)
                                continue;
                        json_begin_object(&j);
                        json_kv_string(&j, "knob", s->knob);
                        json_kv_string(&j, "device", s->device_name);
                        json_kv_string(&j, "devpath", s->device);
                        json_kv_string(&j, "attr", s->attr);
                        json_kv_string(&j, "module", s->module);
                        json_kv_string(&j, "param", s->param);
                        json_kv_string(&j, "wanted", s->value);
                        json_kv_string(&j, "actual", actual[i]);
                        json_kv_string(&j, "state", state_names[st[i]]);
                        json_kv_string(&j, "mechanism", mechanism_to_string(s->mech));
                        json_end_object(&j);
                }
                json_end_array(&j);
                json_key(&j, "blockers");
                json_begin_array(&j);
                for (size_t i = 0; i < b.n; i++) {
                        json_begin_object(&j);
                        json_kv_string(&j, "device", b.v[i].d->name);
                        json_kv_string(&j, "devpath", b.v[i].d->devpath);
                        json_kv_string(&j, "class", b.v[i].d->class);
                        json_kv_string(&j, "what", b.v[i].what);
                        json_kv_string(&j, "knob", b.v[i].knob);
                        json_kv_string(&j, "planned", b.v[i].s ? b.v[i].s->value : NULL);
                        json_kv_string(&j, "reason", b.v[i].s ? b.v[i].s->reason : NULL);
                        json_end_object(&j);
                }
                json_end_array(&j);
                json_key(&j, "residency");
                json_begin_array(&j);
                for (size_t i = 0; i < ELEMENTSOF(res); i++) {
                        if (!res[i].have)
                                continue;
                        json_begin_object(&j);
                        json_kv_string(&j, "name", res[i].name);
                        json_kv_int(&j, "value", (long long) res[i].value);
                        json_kv_int(&j, "delta", (long long) res[i].delta);
                        json_end_object(&j);
                }
                json_end_array(&j);
                json_end_object(&j);
                json_finish(&j);
        } else {
                fprintf(out, _("Settings of profile %s: %zu match, %zu drift, %zu missing, %zu take effect "
                               "later (boot or module load)\n"), p->profile, count[V_MATCH], count[V_DRIFT],
                        count[V_MISSING], count[V_LATER]);
                for (size_t i = 0; i < p->n; i++) {
                        const struct setting *s = &p->v[i];
                        if (!s->value || (st[i] != V_DRIFT && st[i] != V_MISSING))
                                continue;
                        fprintf(out, "  %-7s %s %s %s: ", state_names[st[i]], s->knob, setting_where(s),
                                s->attr ? s->attr : strempty(s->param));
                        if (st[i] == V_DRIFT)
                                fprintf(out, _("wanted %s, is %s; "), s->value, actual[i]);
                        else
                                fprintf(out, _("the attribute is gone; "));
                        if (s->mech == MECH_LINK)
                                /* apply has no way to set it: only udevd, when the NIC is added */
                                fprintf(out, m ? _("%s (installed; systemd-udevd sets it at the next boot)\n")
                                               : _("%s (not installed: idlecfg install, then boot)\n"),
                                        mechanism_to_string(s->mech));
                        else
                                fprintf(out, m ? _("%s (installed; idlecfg apply sets it now)\n")
                                               : _("%s (not installed: idlecfg install, or apply for now)\n"),
                                        mechanism_to_string(s->mech));
                }
                fprintf(out, b.n ? _("Idle blockers (%zu):\n") : _("Idle blockers: none found\n"), b.n);
                for (size_t i = 0; i < b.n; i++) {
                        const struct blocker *x = &b.v[i];
                        fprintf(out, "  %s (%s): %s", x->d->name, x->d->class, x->what);
                        if (x->s && !x->s->value)
                                fprintf(out, _("; kept on purpose: %s\n"), x->s->reason);
                        else if (x->s)
                                fprintf(out, _("; knob %s, planned %s\n"), x->knob, x->s->value);
                        else if (x->knob)
                                fprintf(out, _("; knob %s (not planned on this device)\n"), x->knob);
                        else
                                fputc('\n', out);
                }
                for (size_t i = 0; i < ELEMENTSOF(res); i++)
                        if (res[i].have)
                                fprintf(out, _("Residency %s: %llu (+%llu in 0.25 s)\n"), res[i].name, res[i].value,
                                        res[i].delta);
        }
        for (size_t i = 0; i < b.n; i++)
                free(b.v[i].what);
        free(b.v);
        for (size_t i = 0; i < p->n; i++)
                free(actual[i]);
        free(actual);
        free(st);
        return count[V_DRIFT] + count[V_MISSING] > 0;
}
