/* verb-explain.c: explain: one device as detect names it, and every
 * decision of the plan about it */
#include "config.h"

#include "knobs/knob.h"
#include "knobs/registry.h"
#include "pipeline/planner.h"
#include "cli/verb-explain.h"
#include "cli/run.h"
#include "cli/verbs.h"

/* ARG's vendor:product (USB) or vendor:device (PCI) is D's */
static bool names_ids(const struct device *d, const char *arg)
{
        const char *p = strchr(arg, ':'), *v = kv_get(&d->ids, "vendor");
        const char *id = streq(d->class, "usb") ? kv_get(&d->ids, "product") :
                         streq(d->class, "pci") ? kv_get(&d->ids, "device") : NULL;
        size_t n;

        if (!p || !v || !id || strchr(p + 1, ':'))
                return false;
        n = (size_t) (p - arg);
        if (startswith(v, "0x"))
                v += 2;
        if (startswith(id, "0x"))
                id += 2;
        return strlen(v) == n && strncasecmp(v, arg, n) == 0 && strcasecmp(id, p + 1) == 0;
}

/* Does ARG name device D? What detect prints: a sysfs path (/sys/devices/...,
 * or a class or bus link: /sys/class/net/wlan0, /sys/bus/pci/devices/X), a
 * PCI address with or without its domain, USB vendor:product, PCI
 * vendor:device, or a name (sysname, interface name, host0). */
static bool names_device(const struct device *d, const char *arg)
{
        if (startswith(arg, "/sys/class/") || startswith(arg, "/sys/bus/") || startswith(arg, "/sys/block/"))
                arg = strrchr(arg, '/') + 1;
        else if (startswith(arg, "/sys/"))
                arg += 4;
        if (d->devpath && streq(d->devpath, arg))
                return true;
        if (d->name && streq(d->name, arg))
                return true;
        /* a PCI address without its domain: 00:14.0 */
        if (streq(d->class, "pci") && d->name && startswith(d->name, "0000:") && streq(d->name + 5, arg))
                return true;
        return names_ids(d, arg);
}

static const struct device *find_device(const struct device *d, const char *arg)
{
        if (names_device(d, arg))
                return d;
        for (size_t i = 0; i < d->n_children; i++) {
                const struct device *x = find_device(&d->children[i], arg);
                if (x)
                        return x;
        }
        return NULL;
}

/* the devices whose name or path holds ARG (case ignored), at most MAX */
static void list_candidates(const struct device *d, const char *arg, size_t *n, size_t max, FILE *out)
{
        if (*n < max && ((d->name && strcasestr(d->name, arg)) || (d->devpath && strcasestr(d->devpath, arg)) ||
                         (d->driver && strcasestr(d->driver, arg)))) {
                fprintf(out, "  %s (%s) %s\n", d->name, d->class, strempty(d->devpath));
                (*n)++;
        }
        for (size_t i = 0; i < d->n_children; i++)
                list_candidates(&d->children[i], arg, n, max, out);
}

/* no device ARG: the ones like it, or those explain takes */
static void say_candidates(const struct inventory *inv, const char *arg)
{
        _cleanup_free_ char *key = xstrdup(arg);
        const char *k = key;
        size_t n = 0;

        /* the last component of a path, without a trailing slash */
        while (*key && key[strlen(key) - 1] == '/')
                key[strlen(key) - 1] = '\0';
        if (strrchr(key, '/'))
                k = strrchr(key, '/') + 1;
        fprintf(stderr, _("idlecfg: no device '%s' (give a sysfs path, a PCI address, USB vendor:product, "
                          "PCI vendor:device or a name such as host0 or wlan0, as detect prints them)\n"), arg);
        {
                _cleanup_free_ char *like = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&like, &len);

                for (size_t c = 0; f && *k && c < _CL_MAX && n < 20; c++)
                        for (size_t i = 0; i < inv->classes[c].n && n < 20; i++)
                                list_candidates(&inv->classes[c].v[i], k, &n, 20, f);
                if (f && fclose(f) == 0 && n > 0) {
                        fputs(_("Devices like it:\n"), stderr);
                        fputs(like, stderr);
                }
        }
        if (n == 0) {
                fputs(_("Devices of this machine:\n"), stderr);
                for (size_t c = 0; c < _CL_MAX && n < 40; c++)
                        for (size_t i = 0; i < inv->classes[c].n && n < 40; i++, n++)
                                fprintf(stderr, "  %s (%s)\n", inv->classes[c].v[i].name, inv->classes[c].v[i].class);
        }
        fputs(_("('idlecfg detect' lists them all.)\n"), stderr);
}

int explain_device(const struct inventory *inv, const struct plan *p, const char *device)
{
        const struct device *d = NULL;
        size_t shown = 0;

        _cleanup_free_ char *arg = xstrdup(device);

        /* a path as the shell completes it: /sys/devices/.../ */
        while (strlen(arg) > 1 && arg[strlen(arg) - 1] == '/')
                arg[strlen(arg) - 1] = '\0';
        for (size_t k = 0; k < _CL_MAX && !d; k++)
                for (size_t i = 0; i < inv->classes[k].n && !d; i++)
                        d = find_device(&inv->classes[k].v[i], arg);
        if (!d) {
                say_candidates(inv, device);
                return 2;
        }
        printf(_("Device %s (%s) %s\n"), d->name, d->class, strempty(d->devpath));
        if (d->driver)
                printf(_("  driver %s\n"), d->driver);
        if (d->modalias)
                printf(_("  modalias %s\n"), d->modalias);
        for (size_t i = 0; i < d->knobs.n; i++)
                printf("  %s = %s\n", d->knobs.v[i].key, d->knobs.v[i].value ? d->knobs.v[i].value : _("(unreadable)"));
        {
                struct removable_at at;
                if (d->devpath && removable_port(inv, d->devpath, &at)) {
                        _cleanup_free_ char *words = removable_words(&at);
                        printf(_("  removable: %s\n"), words);
                        free(at.port);
                } else {
                        _cleanup_free_ char *untold = removable_untold(inv, d->devpath);
                        if (untold)
                                printf(_("  removable: %s\n"), untold);
                }
        }
        printf(_("\nDecisions (profile %s, %s):\n"), p->profile, p->profile_reason);
        if (p->kernel && !streq_ptr(p->kernel_version, p->kernel)) {
                if (p->kernel_version)
                        printf(_("  kernel %s, version for _KERNEL ranges: %s (%s)\n"), p->kernel,
                               p->kernel_version, p->kernel_version_source);
                else
                        printf(_("  kernel %s, version for _KERNEL ranges: %s\n"), p->kernel, p->kernel_version_source);
        }
        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                /* a setting planned on the parent (an I2C adapter's on its controller) */
                bool parent = knob_on_parent(d->class) && s->device && d->devpath &&
                              startswith(d->devpath, s->device) && d->devpath[strlen(s->device)] == '/' &&
                              streq_ptr(s->device_class, d->class);
                /* a parameter of the device's driver, planned once for all its devices
                 * (i915.enable_psr for the i915 GPU: its reason says it taints the kernel) */
                bool driver = !s->device && s->module && d->driver && streq(s->module, d->driver);
                if (!streq_ptr(s->device, d->devpath) && !parent && !driver)
                        continue;
                shown++;
                if (s->value)
                        printf("  %s: %s %s -> %s (%s)\n      %s\n", s->knob, s->attr ? s->attr : strempty(s->param),
                               s->current ? s->current : "?", s->value, mechanism_to_string(s->mech), s->reason);
                else
                        printf("  %s: %s\n", s->knob, s->reason);
        }
        if (!shown)
                printf(_("  none: no knob family plans anything for this device (no knob it manages, "
                         "or the device is not in a class idlecfg plans)\n"));
        return 0;
}

/* ---- the verb (idlecfg.c's table runs it) ---- */

static int do_explain(struct run *c, int argc, char **argv)
{
        return explain_device(c->inv, c->plan, argv[0]);
}

const struct verb verb_explain = {
        .name = "explain", .min_args = 1, .max_args = 1, .needs = VERB_PLAN,
        .run = do_explain,
        .help = N_("Show every decision about one device and why"),
        .options = O_PLANNING, .synopsis = N_("DEVICE"),
};
