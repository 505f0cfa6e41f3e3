/* inventory.c: the inventory's memory, its modules and its fingerprint (cli/verb-detect.c prints it) */
#include "config.h"

#include <stdarg.h>

#include "model/identity.h"
#include "model/inventory.h"
#include "base/json.h"
#include "root/modules.h"
#include "root/rootfs.h"
#include "base/sha256.h"

const char *const class_names[_CL_MAX] = {
        [CL_PCI] = "pci", [CL_USB] = "usb", [CL_SATA] = "sata", [CL_NVME] = "nvme",
        [CL_SOUND] = "sound", [CL_DRM] = "drm", [CL_I2C] = "i2c",
        [CL_NET] = "net", [CL_SERIO] = "serio",
};

const char *const class_titles[_CL_MAX] = {
        [CL_PCI] = N_("PCI devices"), [CL_USB] = N_("USB devices"), [CL_SATA] = N_("SATA hosts and disks"),
        [CL_NVME] = N_("NVMe controllers"), [CL_SOUND] = N_("Sound cards and codecs"),
        [CL_DRM] = N_("Graphics (DRM)"), [CL_I2C] = N_("I2C adapters and clients"),
        [CL_NET] = N_("Network interfaces"),
        [CL_SERIO] = N_("Serial input ports (i8042)"),
};

struct device *device_list_add(struct device_list *l)
{
        if (l->n == l->cap) {
                l->cap = l->cap ? l->cap * 2 : 16;
                l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
        }
        l->v[l->n] = (struct device) {};
        return &l->v[l->n++];
}

struct device *device_add_child(struct device *parent)
{
        parent->children = xrealloc(parent->children, (parent->n_children + 1) * sizeof(struct device));
        parent->children[parent->n_children] = (struct device) {};
        return &parent->children[parent->n_children++];
}

static void add_note(char ***notes, size_t *n, const char *fmt, va_list ap)
{
        char *s;

        if (vasprintf(&s, fmt, ap) < 0)
                abort();
        *notes = xrealloc(*notes, (*n + 1) * sizeof(char *));
        (*notes)[(*n)++] = s;
}

void device_add_note(struct device *d, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        add_note(&d->notes, &d->n_notes, fmt, ap);
        va_end(ap);
}

void inventory_add_note(struct inventory *inv, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        add_note(&inv->notes, &inv->n_notes, fmt, ap);
        va_end(ap);
}

void device_free(struct device *d)
{
        free(d->name);
        free(d->devpath);
        free(d->anchor);
        free(d->driver);
        free(d->modalias);
        free(d->identity);
        kv_free(&d->ids);
        kv_free(&d->knobs);
        for (size_t i = 0; i < d->n_modules; i++)
                free(d->modules[i].name);
        free(d->modules);
        for (size_t i = 0; i < d->n_children; i++)
                device_free(&d->children[i]);
        free(d->children);
        strv_free_n(d->notes, d->n_notes);
}

void inventory_free(struct inventory *inv)
{
        if (!inv)
                return;
        free(inv->kernel);
        free(inv->kernel_source);
        free(inv->kernel_reason);
        free(inv->kernel_version);
        free(inv->kernel_version_source);
        free(inv->moddir);
        free(inv->moddir_note);
        free(inv->system_battery);
        modctx_free(inv->mc);
        kv_free(&inv->platform);
        kv_free(&inv->modparams);
        for (size_t i = 0; i < inv->n_tools; i++)
                free(inv->tools[i].path);
        free(inv->tools);
        free(inv->storage.root_spec);
        free(inv->storage.root_source);
        free(inv->storage.root_device);
        free(inv->storage.root_fstype);
        free(inv->storage.root_uuid);
        free(inv->storage.root_disk);
        free(inv->storage.root_disk_devpath);
        kv_free(&inv->storage.used_disks);
        free(inv->storage.root_note);
        for (size_t i = 0; i < inv->storage.n_swaps; i++) {
                free(inv->storage.swaps[i].spec);
                free(inv->storage.swaps[i].device);
                free(inv->storage.swaps[i].uuid);
                free(inv->storage.swaps[i].source);
        }
        free(inv->storage.swaps);
        for (size_t c = 0; c < _CL_MAX; c++) {
                for (size_t i = 0; i < inv->classes[c].n; i++)
                        device_free(&inv->classes[c].v[i]);
                free(inv->classes[c].v);
        }
        for (size_t i = 0; i < inv->usb4.n_routers; i++) {
                struct usb4_router *r = &inv->usb4.routers[i];

                free(r->name);
                free(r->devpath);
                free(r->type);
                free(r->version);
                free(r->vendor_name);
                free(r->device_name);
                free(r->host_port);
        }
        free(inv->usb4.routers);
        kv_free(&inv->usb4.connectors);
        strv_free_n(inv->notes, inv->n_notes);
        free(inv);
}

/* ---- the modules of the devices, resolved on demand ---- */

const struct module_ref *device_modules(const struct inventory *inv, const struct device *d, size_t *ret_n)
{
        /* a cache: the answer is the same whenever it is asked */
        struct device *x = (struct device *) d;

        if (!x->modules_resolved) {
                x->modules_resolved = true;
                modctx_resolve(inv->mc, x->modalias, &x->modules, &x->n_modules);
        }
        *ret_n = x->n_modules;
        return x->modules;
}

static void resolve_all(const struct inventory *inv, struct device *v, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                size_t k;
                (void) device_modules(inv, &v[i], &k);
                resolve_all(inv, v[i].children, v[i].n_children);
        }
}

int inventory_resolve_modules(struct inventory *inv, struct xerror *ret_error)
{
        const char *why;
        int r;

        for (size_t c = 0; c < ELEMENTSOF(inv->classes); c++)
                resolve_all(inv, inv->classes[c].v, inv->classes[c].n);
        r = modctx_error(inv->mc, &why);
        if (r < 0)
                xerror_set_take(ret_error, NULL, 0, xstrdup(why));
        return r;
}

/* ---- fingerprint ---- */

struct strv {
        char **v;
        size_t n, cap;
};

static void collect_identities(const struct device *d, struct strv *out)
{
        if (d->identity) {
                if (out->n == out->cap) {
                        out->cap = out->cap ? out->cap * 2 : 64;
                        out->v = xrealloc(out->v, out->cap * sizeof(char *));
                }
                out->v[out->n++] = d->identity;
        }
        for (size_t i = 0; i < d->n_children; i++)
                collect_identities(&d->children[i], out);
}

/* The platform identity plus the sorted device identities: no attribute values,
 * no bus addresses, so enumeration order and renumbering do not change it. */
void inventory_fingerprint(struct inventory *inv)
{
        struct strv ids = {};
        struct strbuf sb = {};
        struct sha256 h;
        uint8_t d[32];

        for (const char *const *k = identity_platform_keys; *k; k++)
                sb_appendf(&sb, "%s=%s\n", *k, strempty(kv_get(&inv->platform, *k)));
        for (size_t c = 0; c < _CL_MAX; c++)
                for (size_t i = 0; i < inv->classes[c].n; i++)
                        collect_identities(&inv->classes[c].v[i], &ids);
        if (ids.n)
                qsort(ids.v, ids.n, sizeof(char *), strv_cmp);
        for (size_t i = 0; i < ids.n; i++) {
                sb_append(&sb, ids.v[i]);
                sb_putc(&sb, '\n');
        }
        sha256_init(&h);
        sha256_update(&h, sb_str(&sb), sb.len);
        sha256_final(&h, d);
        for (size_t i = 0; i < 8; i++)
                snprintf(inv->fingerprint + 2 * i, 3, "%02x", d[i]);
        free(ids.v);
        sb_free(&sb);
}
