/* fingerprint.c: the fingerprint detect computes, read from /sys without
 * libudev for refresh's cheap look, and the first-boot stamp's hardware key.
 * Which devices are listed and have an identity is detect's route table's
 * answer (detect_fp_listed(), detect_fp_of()): there is no second table. */
#include "config.h"

#include <limits.h>

#include "pipeline/detect.h"
#include "pipeline/fingerprint.h"
#include "model/identity.h"
#include "model/inventory.h"
#include "root/sysfs.h"

struct sysdev {
        char *devpath;          /* /devices/... */
        char *subsystem;        /* the directory it was listed in */
        char *devtype;          /* uevent DEVTYPE */
        char *modalias;         /* uevent MODALIAS */
        char *pci_id;           /* uevent PCI_ID */
        char *pci_subsys_id;    /* uevent PCI_SUBSYS_ID */
        char *pci_class;        /* uevent PCI_CLASS */
        char *product;          /* uevent PRODUCT (USB: "%x/%x/%x") */
};

struct sysdevs {
        struct sysdev *v;
        size_t n, cap;
};

static const char *sysname_of(const struct sysdev *d)
{
        return strrchr(d->devpath, '/') + 1;
}

static char *syspath(const char *devpath)
{
        return xasprintf("/sys%s", devpath);
}

static bool is_numbered(const char *n, const char *prefix)
{
        size_t l = strlen(prefix);
        return strncmp(n, prefix, l) == 0 && n[l] && strspn(n + l, "0123456789") == strlen(n + l);
}

/* the devices listed under /sys/bus/SUB/devices and /sys/class/SUB, as
 * detect lists them, less those detect's routes tell have no part in the
 * fingerprint (detect_fp_listed()) */
static void list_subsystem(struct sysdevs *out, const char *sub)
{
        bool uevent_read = detect_fp_uevent(sub);
        char **paths;
        size_t n;

        /* a listing cut short gives another fingerprint: refresh re-plans */
        (void) sysfs_list(&sub, 1, detect_fp_listed, &paths, &n);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *uevent = NULL;
                struct sysdev *x;

                if (uevent_read) {
                        _cleanup_free_ char *sp = xasprintf("%s/uevent", paths[i]);

                        /* one read: sysfs gives an attribute whole, a page at most */
                        if (read_live(sp, LIVE_RAW, &uevent) < 0)
                                continue;       /* not a device (or gone) */
                }
                if (out->n == out->cap) {
                        out->cap = out->cap ? out->cap * 2 : 64;
                        out->v = xrealloc(out->v, out->cap * sizeof(*out->v));
                }
                x = &out->v[out->n++];
                *x = (struct sysdev) {
                        .devpath = xstrdup(paths[i] + strlen("/sys")),
                        .subsystem = xstrdup(sub),
                        .devtype = uevent_value(uevent, "DEVTYPE"),
                        .modalias = uevent_value(uevent, "MODALIAS"),
                        .pci_id = uevent_value(uevent, "PCI_ID"),
                        .pci_subsys_id = uevent_value(uevent, "PCI_SUBSYS_ID"),
                        .pci_class = uevent_value(uevent, "PCI_CLASS"),
                        .product = uevent_value(uevent, "PRODUCT"),
                };
        }
        sysfs_list_free(paths, n);
}

static void sysdevs_free(struct sysdevs *l)
{
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].devpath);
                free(l->v[i].subsystem);
                free(l->v[i].devtype);
                free(l->v[i].modalias);
                free(l->v[i].pci_id);
                free(l->v[i].pci_subsys_id);
                free(l->v[i].pci_class);
                free(l->v[i].product);
        }
        free(l->v);
}

/* an attribute's value as an identity holds it, NULL if absent */
static char *attr_id(const char *devpath, const char *attr, bool hex)
{
        _cleanup_free_ char *sp = syspath(devpath);
        char *v = NULL;

        if (read_attr(sp, attr, &v) < 0)
                return NULL;
        return identity_value(v, hex);
}

/* a device's identity from its attributes, as detect reads them */
static char *identity_attrs_of(const char *devpath, enum identity_kind kind)
{
        const struct identity_attrs *a = &identity_attrs[kind];
        char *v[ELEMENTSOF(a->attr)] = {};
        char *id;

        for (size_t i = 0; i < ELEMENTSOF(a->attr) && a->attr[i]; i++)
                v[i] = attr_id(devpath, a->attr[i], a->hex);
        id = device_identity(kind, (const char *const *) v);
        for (size_t i = 0; i < ELEMENTSOF(v); i++)
                free(v[i]);
        return id;
}

/* S is N hex digits and nothing else */
static bool all_hex(const char *s, size_t n)
{
        return s && strlen(s) == n && strspn(s, "0123456789abcdefABCDEF") == n;
}

/* "VVVV:DDDD" of a uevent into two lower-case ids; false if it is not that */
static bool id_pair(const char *s, char a[5], char b[5])
{
        if (!s || strlen(s) != 9 || s[4] != ':')
                return false;
        memcpy(a, s, 4);
        memcpy(b, s + 5, 4);
        a[4] = b[4] = '\0';
        if (!all_hex(a, 4) || !all_hex(b, 4))
                return false;
        identity_value(a, true);
        identity_value(b, true);
        return true;
}

/* the N hex digits at SRC as "%0*lx" prints their number with WIDTH (>= N)
 * digits: zeros in front, lower case; into DST of WIDTH + 1 bytes (no
 * snprintf: refresh's cheap look does this for every PCI and USB device) */
static void hex_pad(char *dst, const char *src, size_t n, size_t width)
{
        size_t pad = width - n;

        memset(dst, '0', pad);
        for (size_t i = 0; i < n; i++)
                dst[pad + i] = (char) (src[i] >= 'A' && src[i] <= 'F' ? src[i] - 'A' + 'a' : src[i]);
        dst[width] = '\0';
}

/* a PCI device's identity from its uevent (PCI_ID, PCI_SUBSYS_ID and
 * PCI_CLASS, which the kernel writes from the same fields as the vendor,
 * device, subsystem_vendor, subsystem_device and class attributes), with
 * the values the attributes give; NULL where the uevent lacks one of them */
static char *pci_identity_uevent(const struct sysdev *d)
{
        char v[5], dev[5], sv[5], sd[5], cls[7];

        if (!id_pair(d->pci_id, v, dev) || !id_pair(d->pci_subsys_id, sv, sd) || !d->pci_class ||
            !all_hex(d->pci_class, strlen(d->pci_class)) || !*d->pci_class || strlen(d->pci_class) > 6)
                return NULL;
        /* the attribute is "0x%06x"; the uevent "%X", without leading zeros */
        hex_pad(cls, d->pci_class, strlen(d->pci_class), 6);
        return device_identity(ID_PCI, (const char *const[]) { v, dev, sv, sd, cls });
}

/* the same from the attributes, as detect reads them */
static char *pci_identity_attrs(const struct sysdev *d)
{
        const char *dp = d->devpath;
        _cleanup_free_ char *v = attr_id(dp, "vendor", true), *dev = attr_id(dp, "device", true);
        _cleanup_free_ char *sv = attr_id(dp, "subsystem_vendor", true);
        _cleanup_free_ char *sd = attr_id(dp, "subsystem_device", true);
        _cleanup_free_ char *cls = attr_id(dp, "class", true);

        /* old or odd trees: the uevent's PCI_ID, as detect does */
        if (!v && d->pci_id && strchr(d->pci_id, ':')) {
                v = identity_value(xstrndup(d->pci_id, strcspn(d->pci_id, ":")), true);
                /* detect adds a second "device"; the attribute's stays first */
                if (!dev)
                        dev = identity_value(xstrdup(strchr(d->pci_id, ':') + 1), true);
        }
        return device_identity(ID_PCI, (const char *const[]) { v, dev, sv, sd, cls });
}

/* a USB device's identity from its uevent's PRODUCT (idVendor, idProduct
 * and bcdDevice, "%x/%x/%x"), with the values the attributes give ("%04x");
 * NULL where it is not that */
static char *usb_identity_uevent(const struct sysdev *d)
{
        char x[3][5];
        const char *p = d->product;

        if (!p)
                return NULL;
        for (int i = 0; i < 3; i++) {
                size_t n = strspn(p, "0123456789abcdefABCDEF");

                if (n == 0 || n > 4 || p[n] != (i < 2 ? '/' : '\0'))
                        return NULL;
                hex_pad(x[i], p, n, 4);
                p += n + 1;
        }
        return device_identity(ID_USB, (const char *const[]) { x[0], x[1], x[2] });
}

/* the nearest ancestor that is a device (has a uevent), as libudev's parent; NULL if none */
static char *parent_of(const char *devpath)
{
        _cleanup_free_ char *p = xstrdup(devpath);
        char *slash;

        while ((slash = strrchr(p, '/')) && slash != p) {
                _cleanup_free_ char *ue = NULL;

                *slash = '\0';
                ue = xasprintf("/sys%s/uevent", p);
                if (access(ue, F_OK) == 0)
                        return xstrdup(p);
        }
        return NULL;
}

/* the nearest ancestor in SUBSYSTEM */
static char *ancestor_in(const char *devpath, const char *subsystem)
{
        char *p = parent_of(devpath);

        while (p) {
                _cleanup_free_ char *link = xasprintf("/sys%s/subsystem", p);
                char target[PATH_MAX];
                ssize_t n = readlink(link, target, sizeof(target) - 1);
                char *next;

                if (n > 0) {
                        target[n] = '\0';
                        if (streq(strrchr(target, '/') ? strrchr(target, '/') + 1 : target, subsystem))
                                return p;
                }
                next = parent_of(p);
                free(p);
                p = next;
        }
        return NULL;
}

static bool under(const char *devpath, const char *parent)
{
        size_t n = strlen(parent);
        return strncmp(devpath, parent, n) == 0 && devpath[n] == '/';
}

static bool under_any(const char *devpath, char **anchors, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (anchors[i] && under(devpath, anchors[i]))
                        return true;
        return false;
}

int fingerprint_read(char ret[17], char **ret_chassis_type)
{
        size_t n_sub;
        const char *const *subsystems = detect_fp_subsystems(&n_sub);
        struct inventory inv = {};
        struct sysdevs l = {};
        char **hosts = NULL, **cards = NULL, **adapters = NULL;
        size_t n_hosts = 0, n_cards = 0, n_adapters = 0;
        struct device_list *ids = &inv.classes[CL_PCI];
        _cleanup_free_ char *cpu = NULL;

        for (size_t i = 0; i < IDENTITY_N_DMI; i++) {
                char *v = attr_id("/class/dmi/id", identity_platform_keys[i], false);
                if (v)
                        kv_add_take(&inv.platform, identity_platform_keys[i], v);
        }
        /* cpu0 is a bus device on a real system, a class one in umockdev's tree */
        for (int kind = 0; kind < 2 && !cpu; kind++) {
                _cleanup_free_ char *ue = NULL;
                if (read_file_full(kind == 0 ? "/sys/bus/cpu/devices/cpu0/uevent" : "/sys/class/cpu/cpu0/uevent",
                                   65536, &ue, NULL) == 0)
                        cpu = uevent_value(ue, "MODALIAS");
        }
        if (cpu)
                platform_add_cpu(&inv.platform, cpu);

        /* the devices of detect's routes that have an identity (detect_fp_of()) */
        for (size_t i = 0; i < n_sub; i++)
                list_subsystem(&l, subsystems[i]);
        /* the parents first: SCSI hosts, sound cards, I2C adapters */
        for (size_t i = 0; i < l.n; i++) {
                const struct sysdev *d = &l.v[i];
                const char *n = sysname_of(d);
                enum detect_fp fp = detect_fp_of(d->subsystem, d->devtype);

                if (fp == FP_SCSI_HOST) {
                        /* the disks hang below the host device, not its class device */
                        char *p = parent_of(d->devpath);
                        hosts = xrealloc(hosts, (n_hosts + 1) * sizeof(*hosts));
                        hosts[n_hosts++] = p ? p : xstrdup(d->devpath);
                } else if (fp == FP_SOUND) {
                        /* a card: list_subsystem() lists no other sound device (detect_fp_listed()) */
                        char *p = ancestor_in(d->devpath, "pci");
                        if (!p)
                                p = parent_of(d->devpath);
                        cards = xrealloc(cards, (n_cards + 1) * sizeof(*cards));
                        cards[n_cards++] = p;
                } else if (fp == FP_I2C && is_numbered(n, "i2c-")) {
                        adapters = xrealloc(adapters, (n_adapters + 1) * sizeof(*adapters));
                        adapters[n_adapters++] = xstrdup(d->devpath);
                }
        }
        for (size_t i = 0; i < l.n; i++) {
                const struct sysdev *d = &l.v[i];
                const char *n = sysname_of(d), *dp = d->devpath;
                enum detect_fp fp = detect_fp_of(d->subsystem, d->devtype);
                char *id = NULL;

                if (fp == FP_PCI) {
                        id = pci_identity_uevent(d);
                        if (!id)
                                id = pci_identity_attrs(d);
                } else if (fp == FP_USB) {
                        id = usb_identity_uevent(d);
                        if (!id)
                                id = identity_attrs_of(dp, ID_USB);
                } else if (fp == FP_SCSI_DEVICE && under_any(dp, hosts, n_hosts))
                        id = identity_attrs_of(dp, ID_DISK);
                else if (fp == FP_NVME)         /* a controller (detect_fp_listed()) */
                        id = identity_attrs_of(dp, ID_NVME);
                else if (fp == FP_HDAUDIO && under_any(dp, cards, n_cards))
                        id = identity_attrs_of(dp, ID_HDAUDIO);
                else if (fp == FP_I2C && !is_numbered(n, "i2c-") && under_any(dp, adapters, n_adapters)) {
                        _cleanup_free_ char *m = NULL, *name = NULL;
                        if (!d->modalias) {
                                _cleanup_free_ char *sp = syspath(dp);
                                (void) read_attr(sp, "modalias", &m);
                        }
                        if (!d->modalias && !m)
                                name = attr_id(dp, "name", false);
                        id = device_identity(ID_I2C, (const char *const[]) { d->modalias ? d->modalias : m ? m : name });
                }
                if (id)
                        device_list_add(ids)->identity = id;
        }
        inventory_fingerprint(&inv);
        memcpy(ret, inv.fingerprint, 17);
        if (ret_chassis_type)
                *ret_chassis_type = kv_get(&inv.platform, "chassis_type") ?
                                    xstrdup(kv_get(&inv.platform, "chassis_type")) : NULL;

        for (size_t i = 0; i < n_hosts; i++)
                free(hosts[i]);
        for (size_t i = 0; i < n_cards; i++)
                free(cards[i]);
        for (size_t i = 0; i < n_adapters; i++)
                free(adapters[i]);
        free(hosts);
        free(cards);
        free(adapters);
        sysdevs_free(&l);
        for (size_t i = 0; i < ids->n; i++)
                free(ids->v[i].identity);
        free(ids->v);
        kv_free(&inv.platform);
        return 0;
}

/* a DMI product UUID that names one machine: not the placeholders of
 * firmware that fills none (all zeros, all ones, the vendor's template) */
static bool uuid_usable(const char *u)
{
        if (!u || strlen(u) != 36 || strspn(u, "0123456789abcdefABCDEF-") != 36)
                return false;
        return strspn(u, "0-") != 36 && strspn(u, "fF-") != 36 &&
               strcasecmp(u, "03000200-0400-0500-0006-000700080009") != 0;
}

char *fingerprint_hardware_key(void)
{
        _cleanup_free_ char *uuid = attr_id("/class/dmi/id", "product_uuid", false);
        struct inventory inv = {};
        struct sysdevs l = {};
        struct device_list *ids = &inv.classes[CL_PCI];
        char *key;

        if (uuid_usable(uuid)) {
                for (char *c = uuid; *c; c++)
                        *c = (char) (*c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c);
                return xasprintf("%s%s", HW_KEY_UUID, uuid);
        }
        /* the DMI and PCI part of the fingerprint: what a new board or a VM
         * of another configuration changes; not the disks or USB devices */
        for (size_t i = 0; i < IDENTITY_N_DMI; i++) {
                char *v = attr_id("/class/dmi/id", identity_platform_keys[i], false);
                if (v)
                        kv_add_take(&inv.platform, identity_platform_keys[i], v);
        }
        list_subsystem(&l, "pci");
        for (size_t i = 0; i < l.n; i++) {
                char *id = pci_identity_uevent(&l.v[i]);
                if (!id)
                        id = pci_identity_attrs(&l.v[i]);
                if (id)
                        device_list_add(ids)->identity = id;
        }
        inventory_fingerprint(&inv);
        key = xasprintf("%s%s", HW_KEY_DMI_PCI, inv.fingerprint);
        sysdevs_free(&l);
        for (size_t i = 0; i < ids->n; i++)
                free(ids->v[i].identity);
        free(ids->v);
        kv_free(&inv.platform);
        return key;
}
