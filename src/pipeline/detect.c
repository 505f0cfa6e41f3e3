/* detect.c: the hardware inventory, enumerated with libudev */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdarg.h>

#include "pipeline/detect.h"
#include "model/identity.h"
#include "model/inventory.h"
#include "knobs/knob.h"
#include "knobs/registry.h"
#include "root/rootfs.h"
#include "root/modules.h"
#include "pipeline/powertools.h"
#include "pipeline/storage.h"
#include "pipeline/udev-dl.h"
#include "pipeline/usb4.h"
#include "root/target.h"
#include "root/virt.h"
#include "root/powersource.h"
#include "db/profile-select.h"
#include "db/profile.h"
#include "root/sysfs.h"

/* a udev device and its sysfs directory, opened once */
struct dev {
        struct udev_device *u;
        int dfd;
};

static bool dev_open(struct udev_device *u, struct dev *ret)
{
        int fd = open(sym_udev_device_get_syspath(u), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0)
                return false;   /* gone since enumeration */
        *ret = (struct dev) { .u = u, .dfd = fd };
        return true;
}

static void dev_close(struct dev *d)
{
        if (d->dfd >= 0)
                close(d->dfd);
        d->dfd = -1;
}

/* attribute value, NULL if absent or unreadable */
static char *dev_attr(struct dev *d, const char *attr)
{
        char *v = NULL;

        if (read_attr_at(d->dfd, attr, &v) < 0)
                return NULL;
        return v;
}

static void add_id(struct device *x, struct dev *d, const char *key, const char *attr, bool hex)
{
        char *v = dev_attr(d, attr);

        if (!v)
                return;
        kv_add_take(&x->ids, key, identity_value(v, hex));
}

/* one power knob: absent ones are skipped, unreadable ones kept as null with a note */
static void add_knob(struct device *x, struct dev *d, const char *attr)
{
        char *v = NULL;
        int r = read_attr_at(d->dfd, attr, &v);

        if (r == -ENOENT || r == -ENOTDIR)
                return;
        /* the kernel's way of saying "this driver does not use autosuspend" */
        if (r == -EIO && strstr(attr, "autosuspend_delay_ms"))
                return;
        if (r < 0) {
                kv_add(&x->knobs, attr, NULL);
                device_add_note(x, "%s: %s", attr, strerror(-r));
                return;
        }
        kv_add_take(&x->knobs, attr, v);
}

/* the attributes the knob families read on a device of x's class, in registry order */
static void add_knobs(struct device *x, struct dev *d)
{
        size_t n;
        const struct knob_family *const *fam = knob_registry(&n);

        for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < fam[i]->n_attrs; k++)
                        if (streq(fam[i]->attrs[k].class, x->class) && !kv_find(&x->knobs, fam[i]->attrs[k].attr))
                                add_knob(x, d, fam[i]->attrs[k].attr);
}

static void set_common(struct device *x, struct dev *d)
{
        const char *s;

        x->name = xstrdup(sym_udev_device_get_sysname(d->u));
        x->devpath = xstrdup(sym_udev_device_get_devpath(d->u));
        s = sym_udev_device_get_driver(d->u);
        x->driver = s ? xstrdup(s) : NULL;
        s = sym_udev_device_get_property_value(d->u, "MODALIAS");
        if (!s)
                s = sym_udev_device_get_sysattr_value(d->u, "modalias");
        x->modalias = s ? xstrdup(s) : NULL;
        /* its modules are resolved on demand: device_modules() */
}

typedef void (*visit_fn)(struct inventory *inv, struct udev *udev, struct dev *d);

/* the nearest ancestor in SUBSYSTEM, as devpath; NULL if none */
static const char *ancestor_devpath(struct udev_device *u, const char *subsystem)
{
        struct udev_device *p = sym_udev_device_get_parent_with_subsystem_devtype(u, subsystem, NULL);
        return p ? sym_udev_device_get_devpath(p) : NULL;
}

static bool under(const char *devpath, const char *parent)
{
        size_t n = strlen(parent);
        return strncmp(devpath, parent, n) == 0 && devpath[n] == '/';
}

/* ---- PCI ---- */

static void visit_pci(struct inventory *inv, struct udev *udev, struct dev *d)
{
        struct device *x = device_list_add(&inv->classes[CL_PCI]);
        const char *v;
        int pme;

        x->class = "pci";
        add_id(x, d, "vendor", "vendor", true);
        add_id(x, d, "device", "device", true);
        add_id(x, d, "subsystem_vendor", "subsystem_vendor", true);
        add_id(x, d, "subsystem_device", "subsystem_device", true);
        add_id(x, d, "class", "class", true);
        add_id(x, d, "revision", "revision", true);
        /* old or odd trees: fall back to the uevent's PCI_ID */
        if (!kv_get(&x->ids, "vendor") && (v = sym_udev_device_get_property_value(d->u, "PCI_ID"))) {
                _cleanup_free_ char *id = xstrdup(v);
                char *colon = strchr(id, ':');
                if (colon) {
                        *colon = '\0';
                        kv_add_take(&x->ids, "vendor", identity_value(xstrdup(id), true));
                        kv_add_take(&x->ids, "device", identity_value(xstrdup(colon + 1), true));
                }
        }
        set_common(x, d);
        add_knobs(x, d);
        /* the PME a function signals: read only where a family asks (pci.c, Ethernet controllers) */
        if (startswith(strempty(kv_get(&x->ids, "class")), "02") && (pme = pci_config_pme(d->dfd)) >= 0) {
                x->pme_known = true;
                x->pme_support = (uint8_t) pme;
        }
        x->identity = device_identity(ID_PCI, (const char *const[]) {
                kv_get(&x->ids, "vendor"), kv_get(&x->ids, "device"), kv_get(&x->ids, "subsystem_vendor"),
                kv_get(&x->ids, "subsystem_device"), kv_get(&x->ids, "class") });
}

/* ---- USB ---- */

static void visit_usb(struct inventory *inv, struct udev *udev, struct dev *d)
{
        struct device *x = device_list_add(&inv->classes[CL_USB]);

        x->class = "usb";
        add_id(x, d, "vendor", "idVendor", true);
        add_id(x, d, "product", "idProduct", true);
        add_id(x, d, "bcd_device", "bcdDevice", true);
        add_id(x, d, "device_class", "bDeviceClass", true);
        add_id(x, d, "manufacturer", "manufacturer", false);
        add_id(x, d, "product_name", "product", false);
        add_id(x, d, "speed", "speed", false);
        add_id(x, d, "removable", "removable", false);
        set_common(x, d);
        add_knobs(x, d);
        x->identity = device_identity(ID_USB, (const char *const[]) {
                kv_get(&x->ids, "vendor"), kv_get(&x->ids, "product"), kv_get(&x->ids, "bcd_device") });
}

static void visit_usb_interface(struct inventory *inv, struct udev *udev, struct dev *d)
{
        struct device_list *usb = &inv->classes[CL_USB];
        const char *devpath = sym_udev_device_get_devpath(d->u);
        struct device *parent = NULL, *x;

        /* interfaces come sorted after their device: look from the end */
        for (size_t i = usb->n; i > 0; i--)
                if (under(devpath, usb->v[i - 1].devpath)) {
                        parent = &usb->v[i - 1];
                        break;
                }
        if (!parent)
                return;
        x = device_add_child(parent);
        x->class = "usb-interface";
        add_id(x, d, "number", "bInterfaceNumber", true);
        add_id(x, d, "class", "bInterfaceClass", true);
        add_id(x, d, "subclass", "bInterfaceSubClass", true);
        add_id(x, d, "protocol", "bInterfaceProtocol", true);
        /* 1 when the bound driver declares autosuspend support (or none is bound) */
        add_id(x, d, "supports_autosuspend", "supports_autosuspend", false);
        set_common(x, d);
}

/* the distinct interface classes of each USB device, for the planner's risk rules */
static void usb_summarize(struct device_list *usb)
{
        for (size_t i = 0; i < usb->n; i++) {
                struct device *x = &usb->v[i];
                struct strbuf sb = {};
                struct strbuf drivers = {};

                for (size_t c = 0; c < x->n_children; c++) {
                        const char *cls = kv_get(&x->children[c].ids, "class");
                        const char *drv = x->children[c].driver;
                        if (cls && !strstr(sb_str(&sb), cls)) {
                                if (sb.len)
                                        sb_putc(&sb, ',');
                                sb_append(&sb, cls);
                        }
                        if (drv && !strstr(sb_str(&drivers), drv)) {
                                if (drivers.len)
                                        sb_putc(&drivers, ',');
                                sb_append(&drivers, drv);
                        }
                }
                if (sb.len)
                        kv_add_take(&x->ids, "interface_classes", sb_steal(&sb));
                if (drivers.len)
                        kv_add_take(&x->ids, "interface_drivers", sb_steal(&drivers));
        }
}

/* ---- SATA: scsi hosts with their link policy, and the disks behind them ---- */

static void visit_scsi_host(struct inventory *inv, struct udev *udev, struct dev *d)
{
        struct device *x = device_list_add(&inv->classes[CL_SATA]);
        struct udev_device *host = sym_udev_device_get_parent(d->u);
        const char *pci;

        x->class = "sata";
        add_id(x, d, "proc_name", "proc_name", false);
        pci = ancestor_devpath(d->u, "pci");
        if (pci)
                kv_add(&x->ids, "controller", strrchr(pci, '/') + 1);
        /* the ata port directory above the host carries the AHCI runtime PM file */
        if (host) {
                _cleanup_free_ char *dir = xstrdup(sym_udev_device_get_syspath(host));
                char *slash = strrchr(dir, '/'), *port;
                if (slash) {
                        *slash = '\0';
                        port = strrchr(dir, '/');
                        if (port && startswith(port + 1, "ata") && isdigit((unsigned char) port[4])) {
                                char *v = NULL;
                                _cleanup_free_ char *no = xasprintf("ata_port/%s/port_no", port + 1);
                                kv_add(&x->ids, "port", port + 1);
                                /* libata's 1-based number of the port on its controller: bit
                                 * port_no - 1 of ahci.mask_port_map and mask_port_ext */
                                if (read_attr(dir, no, &v) >= 0)
                                        kv_add_take(&x->ids, "port_no", v);
                                if (read_attr(dir, "power/control", &v) >= 0)
                                        kv_add_take(&x->knobs, "port/power/control", v);
                                /* a runtime-suspended AHCI port has its engines stopped:
                                 * its PxCMD can read 0 like a port outside the port map */
                                if (read_attr(dir, "power/runtime_status", &v) >= 0)
                                        kv_add_take(&x->knobs, "port/power/runtime_status", v);
                        }
                }
        }
        /* AHCI's PxCMD and CAP registers (libahci's ahci_port_cmd and ahci_host_caps,
         * "%x"): they tell internal ports from hot-plug capable and external ones */
        add_id(x, d, "port_cmd", "ahci_port_cmd", false);
        add_id(x, d, "host_caps", "ahci_host_caps", false);
        set_common(x, d);
        /* the disks hang below the host device (host0), not its class device */
        x->anchor = xstrdup(host ? sym_udev_device_get_devpath(host) : x->devpath);
        add_knobs(x, d);
}

static const char *scsi_type_name(const char *t)
{
        static const char *const names[] = {
                [0] = "disk", [1] = "tape", [4] = "worm", [5] = "optical", [7] = "optical-memory",
                [12] = "raid", [13] = "enclosure", [14] = "rbc",
        };
        char *end;
        long v = t ? strtol(t, &end, 10) : -1;

        if (!t || *end || v < 0 || v >= (long) ELEMENTSOF(names) || !names[v])
                return "other";
        return names[v];
}

/* libata exposes pm_qos_no_power_off on the ATA device (ataN/linkN/devN.0)
 * only where zpodd_init() found zero-power ODD support: an ACPI companion that
 * can power the drive off (_PR3) and a drive whose loading mechanism is a slot
 * or a drawer (drivers/ata/libata-zpodd.c, dev_pm_qos_expose_flags) */
static void detect_zpodd(const struct device *host, struct device *x)
{
        const char *port = kv_get(&host->ids, "port");
        _cleanup_free_ char *dir = NULL, *attr = NULL, *v = NULL;
        char *slash;

        if (!port || !host->anchor || !startswith(port, "ata"))
                return;
        dir = xasprintf("/sys%s", host->anchor);
        slash = strrchr(dir, '/');
        if (!slash)
                return;
        *slash = '\0';         /* .../ataN/hostM -> .../ataN */
        attr = xasprintf("link%s/dev%s.0/power/pm_qos_no_power_off", port + 3, port + 3);
        kv_add(&x->ids, "zpodd", read_attr(dir, attr, &v) >= 0 ? "yes" : "no");
}

static void visit_scsi_device(struct inventory *inv, struct udev *udev, struct dev *d)
{
        struct device_list *hosts = &inv->classes[CL_SATA];
        const char *devpath = sym_udev_device_get_devpath(d->u);
        struct device *host = NULL, *x;
        _cleanup_free_ char *type = NULL;
        DIR *bd;

        for (size_t i = 0; i < hosts->n; i++)
                if (under(devpath, hosts->v[i].anchor))
                        host = &hosts->v[i];
        if (!host)
                return;
        x = device_add_child(host);
        x->class = "disk";
        add_id(x, d, "vendor", "vendor", false);
        add_id(x, d, "model", "model", false);
        add_id(x, d, "firmware", "rev", false);
        type = dev_attr(d, "type");
        kv_add(&x->ids, "kind", scsi_type_name(type));
        set_common(x, d);
        add_knobs(x, d);
        if (streq(kv_get(&x->ids, "kind"), "optical"))
                detect_zpodd(host, x);
        /* the block device of the disk: block/sda */
        {
                int bfd = openat(d->dfd, "block", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                bd = bfd >= 0 ? fdopendir(bfd) : NULL;
        }
        if (bd) {
                struct dirent *de;
                while ((de = readdir(bd))) {
                        _cleanup_free_ char *base = NULL;
                        char *v = NULL;
                        if (de->d_name[0] == '.')
                                continue;
                        kv_add(&x->ids, "block", de->d_name);
                        base = xasprintf("%s/removable", de->d_name);
                        if (read_attr_at(dirfd(bd), base, &v) >= 0)
                                kv_add_take(&x->ids, "removable", v);
                        free(base);
                        base = xasprintf("%s/queue/rotational", de->d_name);
                        if (read_attr_at(dirfd(bd), base, &v) >= 0)
                                kv_add_take(&x->ids, "rotational", v);
                        break;
                }
                closedir(bd);
        }
        x->identity = device_identity(ID_DISK, (const char *const[]) {
                kv_get(&x->ids, "vendor"), kv_get(&x->ids, "model"), kv_get(&x->ids, "firmware") });
}

/* ---- NVMe ---- */

static void visit_nvme(struct inventory *inv, struct udev *udev, struct dev *d)
{
        const char *n = sym_udev_device_get_sysname(d->u), *pci;
        struct device *x;

        /* controllers only (nvme0), not namespaces or the nvme-generic nodes */
        if (!n || !startswith(n, "nvme") || strspn(n + 4, "0123456789") != strlen(n + 4) || !n[4])
                return;
        x = device_list_add(&inv->classes[CL_NVME]);
        x->class = "nvme";
        add_id(x, d, "model", "model", false);
        add_id(x, d, "firmware", "firmware_rev", false);
        add_id(x, d, "transport", "transport", false);
        pci = ancestor_devpath(d->u, "pci");
        if (pci)
                kv_add(&x->ids, "controller", strrchr(pci, '/') + 1);
        set_common(x, d);
        add_knobs(x, d);
        x->identity = device_identity(ID_NVME, (const char *const[]) {
                kv_get(&x->ids, "model"), kv_get(&x->ids, "firmware") });
}

/* ---- sound: cards, their controller and HDA codecs ---- */

static bool is_cardN(const char *n, const char *prefix)
{
        size_t l = strlen(prefix);
        return n && strncmp(n, prefix, l) == 0 && n[l] && strspn(n + l, "0123456789") == strlen(n + l);
}

static void add_controller(struct device *x, struct udev_device *u)
{
        struct udev_device *p = sym_udev_device_get_parent_with_subsystem_devtype(u, "pci", NULL);
        const char *drv;

        if (!p)
                p = sym_udev_device_get_parent(u);
        if (!p)
                return;
        kv_add(&x->ids, "controller", sym_udev_device_get_sysname(p));
        drv = sym_udev_device_get_driver(p);
        if (drv)
                kv_add(&x->ids, "controller_driver", drv);
        x->anchor = xstrdup(sym_udev_device_get_devpath(p));
}

static void visit_sound(struct inventory *inv, struct udev *udev, struct dev *d)
{
        const char *n = sym_udev_device_get_sysname(d->u);
        struct device *x;

        if (!is_cardN(n, "card"))
                return;
        x = device_list_add(&inv->classes[CL_SOUND]);
        x->class = "sound";
        add_id(x, d, "id", "id", false);
        add_id(x, d, "number", "number", false);
        set_common(x, d);
        /* codecs hang below the controller, not below the card */
        add_controller(x, d->u);
}

static void visit_hdaudio(struct inventory *inv, struct udev *udev, struct dev *d)
{
        struct device_list *cards = &inv->classes[CL_SOUND];
        const char *devpath = sym_udev_device_get_devpath(d->u);
        struct device *card = NULL, *x;

        for (size_t i = 0; i < cards->n; i++)
                if (cards->v[i].anchor && under(devpath, cards->v[i].anchor))
                        card = &cards->v[i];
        if (!card)
                return;
        x = device_add_child(card);
        x->class = "hda-codec";
        add_id(x, d, "vendor_id", "vendor_id", true);
        add_id(x, d, "subsystem_id", "subsystem_id", true);
        add_id(x, d, "revision_id", "revision_id", true);
        add_id(x, d, "vendor_name", "vendor_name", false);
        add_id(x, d, "chip_name", "chip_name", false);
        set_common(x, d);
        add_knobs(x, d);
        x->identity = device_identity(ID_HDAUDIO, (const char *const[]) {
                kv_get(&x->ids, "vendor_id"), kv_get(&x->ids, "subsystem_id"), kv_get(&x->ids, "revision_id") });
}

/* ---- DRM: cards, connectors, GPU power files ---- */

static void visit_drm(struct inventory *inv, struct udev *udev, struct dev *d)
{
        struct device_list *cards = &inv->classes[CL_DRM];
        const char *n = sym_udev_device_get_sysname(d->u);
        struct device *x;

        if (is_cardN(n, "card")) {
                x = device_list_add(cards);
                x->class = "drm";
                set_common(x, d);
                add_controller(x, d->u);
                add_knobs(x, d);
                return;
        }
        /* connectors: card0-eDP-1 */
        if (!n || !startswith(n, "card") || !strchr(n, '-'))
                return;
        for (size_t i = cards->n; i > 0; i--) {
                struct device *card = &cards->v[i - 1];
                size_t l = strlen(card->name);
                if (strncmp(n, card->name, l) == 0 && n[l] == '-') {
                        const char *type = n + l + 1;
                        const char *dash = strrchr(type, '-');
                        _cleanup_free_ char *t = dash ? xstrndup(type, (size_t) (dash - type)) : xstrdup(type);

                        x = device_add_child(card);
                        x->class = "connector";
                        x->name = xstrdup(n);
                        x->devpath = xstrdup(sym_udev_device_get_devpath(d->u));
                        kv_add(&x->ids, "type", t);
                        kv_add(&x->ids, "internal",
                               streq(t, "eDP") || streq(t, "LVDS") || streq(t, "DSI") ? "yes" : "no");
                        add_id(x, d, "status", "status", false);
                        add_id(x, d, "enabled", "enabled", false);
                        add_knobs(x, d);
                        return;
                }
        }
}

/* ---- I2C: adapters (with their controller's runtime PM) and clients ---- */

static void visit_i2c(struct inventory *inv, struct udev *udev, struct dev *d)
{
        struct device_list *adapters = &inv->classes[CL_I2C];
        const char *n = sym_udev_device_get_sysname(d->u);
        const char *devpath = sym_udev_device_get_devpath(d->u);
        struct device *x, *adapter = NULL;

        if (is_cardN(n, "i2c-")) {
                struct udev_device *p = sym_udev_device_get_parent(d->u);
                x = device_list_add(adapters);
                x->class = "i2c-adapter";
                add_id(x, d, "name", "name", false);
                if (p) {
                        const char *drv = sym_udev_device_get_driver(p);
                        kv_add(&x->ids, "controller", sym_udev_device_get_sysname(p));
                        if (drv)
                                kv_add(&x->ids, "controller_driver", drv);
                }
                set_common(x, d);
                add_knobs(x, d);
                return;
        }
        for (size_t i = adapters->n; i > 0; i--)
                if (under(devpath, adapters->v[i - 1].devpath)) {
                        adapter = &adapters->v[i - 1];
                        break;
                }
        if (!adapter)
                return;
        x = device_add_child(adapter);
        x->class = "i2c-client";
        add_id(x, d, "name", "name", false);
        set_common(x, d);
        add_knobs(x, d);
        x->identity = device_identity(ID_I2C, (const char *const[]) {
                x->modalias ? x->modalias : kv_get(&x->ids, "name") });
}

/* ---- serial input ports (i8042's keyboard and aux ports): their wakeup ---- */

/* Not part of the fingerprint: a port is the platform's, its wakeup is all a
 * family reads of it (the wakeup family, by its modalias and the machine's) */
static void visit_serio(struct inventory *inv, struct udev *udev, struct dev *d)
{
        struct device *x = device_list_add(&inv->classes[CL_SERIO]);

        x->class = "serio";
        add_id(x, d, "description", "description", false);
        set_common(x, d);
        add_knobs(x, d);
}

/* ---- network interfaces with a device below them (not virtual ones) ---- */

static void visit_net(struct inventory *inv, struct udev *udev, struct dev *d)
{
        struct udev_device *p = sym_udev_device_get_parent(d->u);
        const char *devpath = sym_udev_device_get_devpath(d->u), *type = sym_udev_device_get_devtype(d->u), *v;
        _cleanup_free_ char *arphrd = NULL;
        struct device *x;

        if (!p || !devpath || startswith(devpath, "/devices/virtual/"))
                return;
        /* Ethernet (ARPHRD_ETHER, no DEVTYPE) and Wi-Fi (DEVTYPE=wlan) only: bridges,
         * VLANs, WWAN and the like have neither Wake-on-LAN nor 802.11 power save */
        arphrd = dev_attr(d, "type");
        if (type && !streq(type, "wlan"))
                return;
        if (arphrd && !streq(strstrip(arphrd), "1"))
                return;
        x = device_list_add(&inv->classes[CL_NET]);
        x->class = "net";
        kv_add(&x->ids, "kind", type ? "wlan" : "ether");
        kv_add(&x->ids, "device", sym_udev_device_get_sysname(p));
        if ((v = sym_udev_device_get_subsystem(p)))
                kv_add(&x->ids, "bus", v);
        set_common(x, d);
        /* the interface has no driver and no modalias: its device's are the ones
         * the hwdb and the module parameters are about */
        free(x->driver);
        v = sym_udev_device_get_property_value(d->u, "ID_NET_DRIVER");
        if (!v)
                v = sym_udev_device_get_driver(p);
        x->driver = v ? xstrdup(v) : NULL;
        if (!x->modalias && (v = sym_udev_device_get_property_value(p, "MODALIAS")))
                x->modalias = xstrdup(v);
        add_knobs(x, d);
}

/* ---- platform: DMI, CPU ---- */

/* the SMBIOS name of a chassis_type attribute, NULL if it is not a known number */
static const char *chassis_of(const char *t)
{
        char *end;
        long v;

        if (!t)
                return NULL;
        errno = 0;
        v = strtol(t, &end, 10);
        if (errno || end == t || *end)
                return NULL;
        return chassis_name(v);
}

static void detect_dmi(struct inventory *inv)
{
        static const char *const fields[] = {
                "sys_vendor", "product_name", "product_version", "product_family", "product_sku",
                "board_vendor", "board_name", "board_version", "bios_vendor", "bios_version",
                "bios_date", "chassis_vendor", "chassis_type", "modalias", NULL
        };
        _cleanup_close_ int dfd = open("/sys/class/dmi/id", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (dfd < 0) {
                int err = errno;

                denied_note("/sys/class/dmi/id", -err);
                inventory_add_note(inv, _("no DMI information (/sys/class/dmi/id): %s"), strerror(err));
                return;
        }
        for (const char *const *f = fields; *f; f++) {
                char *v = NULL;
                if (read_attr_at(dfd, *f, &v) < 0)
                        continue;
                kv_add_take(&inv->platform, *f, identity_value(v, false));
                if (streq(*f, "chassis_type") && chassis_of(kv_get(&inv->platform, *f)))
                        kv_add(&inv->platform, "chassis", chassis_of(kv_get(&inv->platform, *f)));
        }
}

static void detect_cpu(struct inventory *inv, struct udev *udev)
{
        struct udev_device *u = sym_udev_device_new_from_subsystem_sysname(udev, "cpu", "cpu0");
        const char *m = u ? sym_udev_device_get_property_value(u, "MODALIAS") : NULL;

        if (!m) {
                inventory_add_note(inv, _("no CPU modalias in /sys/devices/system/cpu/cpu0"));
                sym_udev_device_unref(u);
                return;
        }
        platform_add_cpu(&inv->platform, m);
        sym_udev_device_unref(u);
}

/* the suspend variants the running kernel offers (/sys/power/mem_sleep,
 * "s2idle [deep]": the bracketed one is the default); absent in a container
 * or a recording without it. The platform checks and the pcie_aspm family
 * read it (s2idle machines). */
static void detect_sleep(struct inventory *inv)
{
        _cleanup_close_ int dfd = open("/sys/power", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        char *v = NULL;

        if (dfd >= 0 && read_attr_at(dfd, "mem_sleep", &v) >= 0)
                kv_add_take(&inv->platform, "mem_sleep", identity_value(v, false));
}

/* ---- module parameters the knob families read ---- */

/* opendir(), not scandir(): umockdev redirects the former only */
static void read_modparams(struct inventory *inv, const char *module)
{
        _cleanup_free_ char *dir = xasprintf("/sys/module/%s/parameters", module);
        DIR *d = opendir(dir);
        struct dirent *de;
        char **names = NULL;
        size_t n = 0;

        if (!d) {
                denied_note(dir, -errno);
                return;
        }
        while ((de = readdir(d)))
                if (de->d_name[0] != '.') {
                        names = xrealloc(names, (n + 1) * sizeof(char *));
                        names[n++] = xstrdup(de->d_name);
                }
        closedir(d);
        if (n)
                qsort(names, n, sizeof(char *), strv_cmp);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *key = xasprintf("%s.%s", module, names[i]);
                char *v = NULL;
                int r = read_attr(dir, names[i], &v);

                if (r >= 0)
                        kv_add_take(&inv->modparams, key, v);
                else if (r != -EPERM && r != -EACCES && r != -ENOENT)
                        inventory_add_note(inv, "%s/%s: %s", dir, names[i], strerror(-r));
                free(names[i]);
        }
        free(names);
}

/* the modules the families read (plan and verify), then those they show */
static void detect_modparams(struct inventory *inv)
{
        size_t n;
        const struct knob_family *const *fam = knob_registry(&n);

        for (size_t i = 0; i < n; i++)
                for (const char *const *m = fam[i]->modules; m && *m; m++)
                        read_modparams(inv, *m);
        for (size_t i = 0; i < n; i++)
                for (const char *const *m = fam[i]->modules_shown; m && *m; m++)
                        read_modparams(inv, *m);
}

/* the files of the root detect reads, for refresh: whether each power
 * tool's program and its enabling link exist, and /etc/fstab (storage.c) */
const struct knob_input *detect_inputs(size_t *ret_n)
{
        static const char *const fstab[] = { "/etc/fstab" };
        static struct knob_input inputs[2];

        if (!inputs[0].paths) {
                size_t n;
                const char *const *paths = power_tool_files(&n);

                inputs[0] = (struct knob_input) { INPUT_EXISTS, paths, n, NULL };
                inputs[1] = (struct knob_input) KNOB_INPUT(INPUT_FILE, fstab, NULL);
        }
        *ret_n = ELEMENTSOF(inputs);
        return inputs;
}

static bool is_numbered(const char *n, const char *prefix)
{
        size_t l = strlen(prefix);
        return strncmp(n, prefix, l) == 0 && n[l] && strspn(n + l, "0123456789") == strlen(n + l);
}

/* By the kernel's names, the entries of a route the fingerprint takes
 * (fingerprint.c): a USB device is "usbN" (a root hub) or "BUS-PORT[.PORT]"
 * where its interfaces are "BUS-PORT:CONFIG.IFACE" (usb_interface: no
 * identity) and class usb's "hiddev0" or "lp0" have no devtype (no route); a
 * SCSI device is "H:C:T:L" where hosts and targets are "hostN" and
 * "targetH:C:T"; of sound only the cards ("cardN") anchor their codecs, and
 * of nvme only the controllers ("nvmeN") have an identity. */
static bool fp_usb_device(const char *n)
{
        return is_numbered(n, "usb") || (n[0] >= '0' && n[0] <= '9' && !strchr(n, ':'));
}

static bool fp_scsi_device(const char *n)
{
        return n[0] >= '0' && n[0] <= '9';
}

static bool fp_sound_card(const char *n)
{
        return is_numbered(n, "card");
}

static bool fp_nvme_controller(const char *n)
{
        return is_numbered(n, "nvme");
}

/* Which visitor takes a device. Pass 1 builds the parents (controllers, USB
 * devices, SCSI hosts, sound cards); pass 2 hangs the children on them.
 * Refresh's fingerprint (fingerprint.c) reads the same table: FP, what a
 * device of the route is to it; FP_NAME, which entries of the subsystem it
 * lists for the route (NULL: every one); FP_UEVENT, whether it reads their
 * uevent (DEVTYPE to route them, the PCI and USB ids, MODALIAS). */
static const struct route {
        const char *subsystem, *devtype;
        int pass;
        visit_fn fn;
        enum detect_fp fp;
        bool (*fp_name)(const char *name);
        bool fp_uevent;
} routes[] = {
        { "pci", NULL, 1, visit_pci, FP_PCI, NULL, true },
        { "usb", "usb_device", 1, visit_usb, FP_USB, fp_usb_device, true },
        { "scsi_host", NULL, 1, visit_scsi_host, FP_SCSI_HOST, NULL, false },
        { "nvme", NULL, 1, visit_nvme, FP_NVME, fp_nvme_controller, false },
        { "sound", NULL, 1, visit_sound, FP_SOUND, fp_sound_card, false },
        { "usb", "usb_interface", 2, visit_usb_interface, FP_NONE, NULL, false },
        { "scsi", "scsi_device", 2, visit_scsi_device, FP_SCSI_DEVICE, fp_scsi_device, true },
        { "hdaudio", NULL, 2, visit_hdaudio, FP_HDAUDIO, NULL, false },
        { "drm", NULL, 2, visit_drm, FP_NONE, NULL, false },
        { "i2c", NULL, 2, visit_i2c, FP_I2C, NULL, true },
        { "net", NULL, 2, visit_net, FP_NONE, NULL, false },
        { "serio", NULL, 1, visit_serio, FP_NONE, NULL, false },
};

bool detect_fp_listed(const char *subsystem, const char *name)
{
        bool any = false;

        for (size_t i = 0; i < ELEMENTSOF(routes); i++) {
                if (routes[i].fp == FP_NONE || !streq(routes[i].subsystem, subsystem))
                        continue;
                if (!routes[i].fp_name || routes[i].fp_name(name))
                        return true;
                any = true;
        }
        return !any;
}

bool detect_fp_uevent(const char *subsystem)
{
        bool any = false;

        for (size_t i = 0; i < ELEMENTSOF(routes); i++) {
                if (routes[i].fp == FP_NONE || !streq(routes[i].subsystem, subsystem))
                        continue;
                if (routes[i].fp_uevent)
                        return true;
                any = true;
        }
        return !any;
}

/* the subsystems of the routes (with an identity only: FP), each once */
static const char *const *subsystems_of(bool fp, const char **v, size_t *ret_n)
{
        size_t n = 0;

        for (size_t i = 0; i < ELEMENTSOF(routes); i++) {
                bool seen = false;

                if (fp && routes[i].fp == FP_NONE)
                        continue;
                for (size_t k = 0; k < n && !seen; k++)
                        seen = streq(v[k], routes[i].subsystem);
                if (!seen)
                        v[n++] = routes[i].subsystem;
        }
        *ret_n = n;
        return v;
}

const char *const *detect_subsystems(size_t *ret_n)
{
        static const char *v[ELEMENTSOF(routes)];

        return subsystems_of(false, v, ret_n);
}

const char *const *detect_fp_subsystems(size_t *ret_n)
{
        static const char *v[ELEMENTSOF(routes)];

        return subsystems_of(true, v, ret_n);
}

static const struct route *route_find(const char *sub, const char *type)
{
        for (size_t i = 0; sub && i < ELEMENTSOF(routes); i++)
                if (streq(routes[i].subsystem, sub) && (!routes[i].devtype || streq_ptr(routes[i].devtype, type)))
                        return &routes[i];
        return NULL;
}

enum detect_fp detect_fp_of(const char *subsystem, const char *devtype)
{
        const struct route *r = route_find(subsystem, devtype);

        return r ? r->fp : FP_NONE;
}

static const struct route *route_of(struct udev_device *u)
{
        return route_find(sym_udev_device_get_subsystem(u), sym_udev_device_get_devtype(u));
}

static void visit(struct inventory *inv, struct udev *udev, struct udev_device *u,
                  const struct route *r)
{
        struct dev d;

        if (dev_open(u, &d)) {
                r->fn(inv, udev, &d);
                dev_close(&d);
        }
}

/* Every device of the subsystems we know, in libudev's order. Memory is
 * what grows with the machine, so no libudev object is kept longer than its
 * use: the devices are listed as paths straight from /sys (sysfs.c) instead
 * of by libudev's enumeration, which holds a device object for every match,
 * and a device of the second pass is created again when its turn comes
 * instead of being kept from the first. */
static void scan_devices(struct inventory *inv, struct udev *udev)
{
        size_t n_sub, n = 0, n_later = 0;
        const char *const *subsystems = detect_subsystems(&n_sub);
        char **paths = NULL;
        _cleanup_free_ const struct route **later_route = NULL;
        int err;

        /* a listing cut short is noted, and what could be read is used */
        err = sysfs_list(subsystems, n_sub, NULL, &paths, &n);
        if (err < 0)
                inventory_add_note(inv, _("cannot enumerate devices: %s"), strerror(-err));

        later_route = xmalloc((n ? n : 1) * sizeof(*later_route));
        for (size_t i = 0; i < n; i++) {
                struct udev_device *u = sym_udev_device_new_from_syspath(udev, paths[i]);
                const struct route *r;

                if (!u) {
                        free(paths[i]);         /* removed while we looked */
                        continue;
                }
                r = route_of(u);
                if (r && r->pass == 2) {
                        /* kept at the front of paths[], in order */
                        paths[n_later] = paths[i];
                        later_route[n_later++] = r;
                } else {
                        if (r)
                                visit(inv, udev, u, r);
                        free(paths[i]);
                }
                sym_udev_device_unref(u);
        }
        for (size_t i = 0; i < n_later; i++) {
                struct udev_device *u = sym_udev_device_new_from_syspath(udev, paths[i]);

                if (u) {
                        visit(inv, udev, u, later_route[i]);
                        sym_udev_device_unref(u);
                }
                free(paths[i]);
        }
        free(paths);
}

const char *detect_error(int r)
{
        const char *e;

        /* dlopen_libudev() answers again as it did, without a second try */
        if (r == -ELIBACC && dlopen_libudev(&e) < 0)
                return e;
        return strerror(-r);
}

int inventory_detect(const struct detect_options *o, struct inventory **ret)
{
        struct inventory *inv = xcalloc(1, sizeof(*inv));
        struct udev *udev;
        struct modctx *mc = NULL;
        const char *udev_error;        /* detect_error() says it */
        int r;

        inv->rfs = o->rfs;
        r = target_kernel_choose(inv->rfs, o->kernel, &inv->kernel, &inv->kernel_source, &inv->kernel_reason);
        if (r < 0)
                inv->moddir_note = xasprintf(_("no kernel found in %s/lib/modules: %s"),
                                             inv->rfs->host ? "" : inv->rfs->path, strerror(-r));
        else {
                (void) modctx_new(inv->rfs, inv->kernel, &mc, &inv->moddir, &inv->moddir_note);
                if (kernel_release_abi_only(inv->kernel))
                        (void) kernel_upstream(inv->rfs, inv->kernel, target_is_running_system(inv->rfs),
                                               &inv->kernel_version, &inv->kernel_version_source);
        }

        r = dlopen_libudev(&udev_error);
        udev = r < 0 ? NULL : sym_udev_new();
        if (!udev) {
                modctx_free(mc);
                inventory_free(inv);
                return r < 0 ? r : -ENOMEM;
        }
        detect_dmi(inv);
        detect_cpu(inv, udev);
        detect_sleep(inv);
        platform_add_virt(&inv->platform);
        detect_modparams(inv);
        detect_power_tools(inv);
        inv->system_battery = ps_system_battery("/sys");

        scan_devices(inv, udev);
        usb_summarize(&inv->classes[CL_USB]);
        usb4_detect(inv);
        detect_storage(inv, udev);

        sym_udev_unref(udev);
        /* kept for the planner and device_modules(): the indexes are loaded once per run, at the first question */
        inv->mc = mc;
        inventory_fingerprint(inv);
        *ret = inv;
        return 0;
}
