/* pipeline/usb4.c: the USB4 routers and the ports linked to a USB Type-C connector, read straight from /sys */
#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <unistd.h>

#include "pipeline/usb4.h"
#include "root/sysfs.h"

/* What the kernel shows, and since when (checked in the 6.1, 6.12 and 7.3
 * trees):
 *  - a router is a device of the thunderbolt bus of type thunderbolt_device,
 *    named "DOMAIN-ROUTE" (drivers/thunderbolt/switch.c, dev_set_name()
 *    "%u-%llx"), below its upstream router (0-0 the host, 0-1 the router on
 *    the host's lane adapter 1, 0-301 the one on port 3 of that); the route
 *    holds one byte per hop, the first hop in the lowest
 *    (tb_downstream_route()). XDomain peers (another host) share the naming
 *    with type thunderbolt_xdomain, retimers are "0-0:1.1".
 *  - its uevent says USB4_TYPE=host (route 0), hub (a downstream lane
 *    adapter: a dock) or device, and USB4_VERSION for a USB4 router
 *    (tb_switch_uevent()).
 *  - a USB4 router has one usb4_portN directory per lane 0 adapter N, no bus
 *    of its own (drivers/thunderbolt/usb4.c usb4_switch_add_ports(),
 *    usb4_port.c; none on a Thunderbolt 3 router or under the firmware
 *    connection manager); a root hub's ports are usbB-portP below its
 *    interface B-0:1.0 (drivers/usb/core/port.c), no bus either.
 *  - both carry a "connector" link to the USB Type-C connector they are wired
 *    to (connector_bind() in usb4_port.c and port.c, through the component
 *    framework: only with the Type-C connector class and firmware that
 *    describes the connectors, ACPI _PLD). USB ports have it since Linux 5.17
 *    (8c67d06f3fd9), USB4 ports since 5.19 (5dddb4169284).
 * So a USB device whose root-hub port shares its connector with a USB4 port
 * that has a router attached runs over that connector: in the router's USB3
 * tunnel (a SuperSpeed root hub) or on the connector's USB 2 lines. */

/* the link NAME of the directory DIR (/sys/devices/...), as a devpath; NULL: none */
static char *link_devpath(const char *dir, const char *name)
{
        _cleanup_free_ char *link = xasprintf("%s/%s", dir, name), *full = NULL;
        char target[PATH_MAX];
        ssize_t n = readlink(link, target, sizeof(target) - 1);

        if (n <= 0)
                return NULL;
        target[n] = '\0';
        full = target[0] == '/' ? xstrdup(target) : xasprintf("%s/%s", dir, target);
        path_simplify(full);
        return startswith(full, "/sys/devices/") ? xstrdup(full + strlen("/sys")) : NULL;
}

/* "0-1" and the like, not a retimer's "0-0:1.1" */
static bool router_name(const char *subsystem, const char *name)
{
        size_t d = strspn(name, "0123456789");

        (void) subsystem;
        return d > 0 && name[d] == '-' && name[d + 1] && strspn(name + d + 1, "0123456789abcdef") == strlen(name + d + 1);
}

static unsigned long long route_of(const char *name)
{
        return strtoull(strchr(name, '-') + 1, NULL, 16);
}

/* HOST/usb4_portN for a router other than a host: HOST is its domain's router
 * "D-0" among its ancestors, N the route's first hop */
static char *host_port_of(const char *devpath, const char *name)
{
        unsigned long long route = route_of(name);
        _cleanup_free_ char *host = xasprintf("/%.*s-0/", (int) strcspn(name, "-"), name);
        const char *at = strstr(devpath, host);

        if (route == 0 || !at)
                return NULL;
        return xasprintf("%.*s/usb4_port%llu", (int) (at - devpath + strlen(host) - 1), devpath, route & 0xff);
}

static void add_router(struct usb4_topology *t, const char *syspath)
{
        _cleanup_free_ char *file = xasprintf("%s/uevent", syspath), *uevent = NULL, *devtype = NULL;
        struct usb4_router *r;
        const char *name = strrchr(syspath, '/') + 1;
        char *v = NULL;

        if (read_raw(file, &uevent) < 0)
                return;
        devtype = uevent_value(uevent, "DEVTYPE");
        if (!streq_ptr(devtype, "thunderbolt_device"))
                return;
        t->routers = xrealloc(t->routers, (t->n_routers + 1) * sizeof(*t->routers));
        r = &t->routers[t->n_routers++];
        *r = (struct usb4_router) {
                .name = xstrdup(name),
                .devpath = xstrdup(syspath + strlen("/sys")),
                .type = uevent_value(uevent, "USB4_TYPE"),
                .version = uevent_value(uevent, "USB4_VERSION"),
        };
        if (read_attr(syspath, "vendor_name", &v) >= 0)
                r->vendor_name = *v ? v : (free(v), NULL);
        if (read_attr(syspath, "device_name", &v) >= 0)
                r->device_name = *v ? v : (free(v), NULL);
        r->host_port = host_port_of(r->devpath, r->name);
}

/* the entries of DEVPATH's directory named PREFIX<digits> with a connector link */
static void add_links(struct kvlist *l, const char *devpath, const char *prefix)
{
        _cleanup_free_ char *dir = xasprintf("/sys%s", devpath);
        DIR *d = opendir(dir);
        struct dirent *de;
        size_t n = strlen(prefix);

        if (!d)
                return;
        while ((de = readdir(d))) {
                _cleanup_free_ char *port = NULL, *to = NULL;

                if (strncmp(de->d_name, prefix, n) != 0 || !de->d_name[n] ||
                    strspn(de->d_name + n, "0123456789") != strlen(de->d_name + n))
                        continue;
                port = xasprintf("%s/%s", dir, de->d_name);
                to = link_devpath(port, "connector");
                if (to)
                        kv_add(l, port + strlen("/sys"), to);
        }
        closedir(d);
}

void usb4_detect(struct inventory *inv)
{
        struct usb4_topology *t = &inv->usb4;
        static const char *const bus[] = { "thunderbolt" };
        const struct device_list *usb = &inv->classes[CL_USB];
        char **paths = NULL;
        size_t n = 0;
        bool host = false;

        (void) sysfs_list(bus, 1, router_name, &paths, &n);
        for (size_t i = 0; i < n; i++)
                add_router(t, paths[i]);
        sysfs_list_free(paths, n);
        for (size_t i = 0; i < t->n_routers; i++)
                if (!t->routers[i].host_port) {
                        host = true;
                        add_links(&t->connectors, t->routers[i].devpath, "usb4_port");
                }
        if (!host)
                return;
        /* the root hubs' ports: usbB below the controller, its ports below B-0:1.0 */
        for (size_t i = 0; i < usb->n; i++) {
                const char *name = usb->v[i].name;
                _cleanup_free_ char *intf = NULL, *prefix = NULL;

                if (!startswith(name, "usb") || !usb->v[i].devpath)
                        continue;
                intf = xasprintf("%s/%s-0:1.0", usb->v[i].devpath, name + 3);
                prefix = xasprintf("%s-port", name);
                add_links(&t->connectors, intf, prefix);
        }
}
