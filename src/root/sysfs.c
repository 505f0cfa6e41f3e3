/* sysfs.c: the devices of some subsystems, listed straight from /sys in the
 * order libudev's enumeration gives them, without libudev's enumeration.
 *
 * udev_enumerate_scan_devices() creates a device object (its uevent read and
 * parsed) for every match and keeps them all until it is freed: the largest
 * share of a run's peak memory on a big machine, and a second uevent read per
 * device, since detect creates each device again to look at it. Here only the
 * paths are kept; detect creates one device at a time. */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/pci_regs.h>

#include "root/sysfs.h"

void path_simplify(char *path)
{
        char *out = path, *p = path;

        while (*p) {
                size_t n;

                p += strspn(p, "/");
                n = strcspn(p, "/");
                if (n == 0)
                        break;
                if (n == 1 && p[0] == '.') {
                        p += n;
                        continue;
                }
                if (n == 2 && p[0] == '.' && p[1] == '.') {
                        while (out > path && *--out != '/')
                                ;
                        p += n;
                        continue;
                }
                *out++ = '/';
                memmove(out, p, n);
                out += n;
                p += n;
        }
        if (out == path)
                *out++ = '/';
        *out = '\0';
}

static bool late_block(const char *p)
{
        return strstr(p, "/block/md") || strstr(p, "/block/dm-");
}

/* the order of sd-device's device_compare() as libudev 252 (Debian 12)
 * applies it. Its rule for sound cards, meant to put a card's control device
 * (controlC) after the card's other devices, compares from the start of the
 * path there and so changes nothing; later versions apply it. detect does
 * not depend on it (a card is found by its cardN device). The order here is
 * 252's: by path, md and dm last; with a newer libudev only a card's control
 * device would come elsewhere. */
int sysfs_path_compare(const char *a, const char *b)
{
        int r = (int) late_block(a) - (int) late_block(b);

        if (r != 0)
                return r;
        return strcmp(a, b);
}

static int qsort_compare(const void *a, const void *b)
{
        return sysfs_path_compare(*(char *const *) a, *(char *const *) b);
}

/* where the entry NAME of DIR leads: the target of its link, or itself */
static char *entry_path(const char *dir, const char *name)
{
        char target[PATH_MAX], *full;
        ssize_t n;
        _cleanup_free_ char *link = xasprintf("%s/%s", dir, name);

        n = readlink(link, target, sizeof(target) - 1);
        if (n < 0)
                return TAKE_PTR(link);
        target[n] = '\0';
        full = target[0] == '/' ? xstrdup(target) : xasprintf("%s/%s", dir, target);
        path_simplify(full);
        return full;
}

int sysfs_list(const char *const *subsystems, size_t n_subsystems,
               bool (*keep)(const char *subsystem, const char *name), char ***ret, size_t *ret_n)
{
        char **v = NULL;
        size_t n = 0, cap = 0, out = 0;
        int r = 0;

        for (size_t s = 0; s < n_subsystems; s++)
                for (int kind = 0; kind < 2; kind++) {
                        _cleanup_free_ char *dir = kind == 0 ? xasprintf("/sys/bus/%s/devices", subsystems[s]) :
                                                               xasprintf("/sys/class/%s", subsystems[s]);
                        DIR *d = opendir(dir);
                        struct dirent *de;

                        if (!d) {
                                /* ENOENT: a subsystem this kernel or machine does not have */
                                int err = -errno;

                                if (err != -ENOENT && r == 0)
                                        r = err;
                                denied_note(dir, err);
                                continue;
                        }
                        while ((de = readdir(d))) {
                                char *p;

                                if (de->d_name[0] == '.' || (keep && !keep(subsystems[s], de->d_name)))
                                        continue;
                                p = entry_path(dir, de->d_name);
                                if (!startswith(p, "/sys/")) {
                                        free(p);
                                        continue;
                                }
                                if (n == cap) {
                                        cap = cap ? cap * 2 : 256;
                                        v = xrealloc(v, cap * sizeof(*v));
                                }
                                v[n++] = p;
                        }
                        closedir(d);
                }
        if (n)
                qsort(v, n, sizeof(*v), qsort_compare);
        /* a device in both its bus and its class directory is one device */
        for (size_t i = 0; i < n; i++) {
                if (out > 0 && streq(v[out - 1], v[i])) {
                        free(v[i]);
                        continue;
                }
                v[out++] = v[i];
        }
        *ret = v;
        *ret_n = out;
        return r;
}

void sysfs_list_free(char **v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

char *uevent_value(const char *text, const char *key)
{
        size_t n = strlen(key);

        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
                if (strncmp(l, key, n) == 0 && l[n] == '=')
                        return xstrndup(l + n + 1, strcspn(l + n + 1, "\n"));
        return NULL;
}

int pci_config_cap(const uint8_t *c, size_t n, uint8_t id)
{
        unsigned pos;

        if (n < PCI_CAPABILITY_LIST + 1)
                return -1;
        if (!(c[PCI_STATUS] & PCI_STATUS_CAP_LIST))
                return 0;
        pos = c[PCI_CAPABILITY_LIST] & ~3u;
        /* a list that loops ends: 48 capabilities fit in 256 bytes */
        for (unsigned hops = 0; pos >= 0x40 && hops < 48; hops++) {
                if (pos + 2 > n)
                        return -1;
                if (c[pos] == id)
                        return (int) pos;
                pos = c[pos + 1] & ~3u;
        }
        return 0;
}

int pci_config_pme(int dfd)
{
        _cleanup_close_ int fd = openat(dfd, "config", O_RDONLY | O_CLOEXEC);
        uint8_t c[256];
        ssize_t n = fd < 0 ? -1 : read(fd, c, sizeof(c));
        int pos = n > 0 ? pci_config_cap(c, (size_t) n, PCI_CAP_ID_PM) : -1;
        unsigned pmc;

        if (pos < 0 || (pos > 0 && (size_t) pos + PCI_PM_PMC + 2 > (size_t) n))
                return -1;
        pmc = pos ? c[pos + PCI_PM_PMC] | (unsigned) c[pos + PCI_PM_PMC + 1] << 8 : 0;
        return (int) ((pmc & PCI_PM_CAP_PME_MASK) >> 11);
}
