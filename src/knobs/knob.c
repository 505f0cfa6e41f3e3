/* knobs/knob.c: the helpers every knob family shares: hwdb facts, profile values, settings */
#include "config.h"

#include <ctype.h>

#include "knobs/knob.h"
#include "root/rootfs.h"

/* digits and dots compared as numbers: 6.1.0-18 < 6.10 */
int kernel_compare(const char *a, const char *b)
{
        while (*a || *b) {
                if (isdigit((unsigned char) *a) && isdigit((unsigned char) *b)) {
                        unsigned long x = strtoul(a, (char **) &a, 10);
                        unsigned long y = strtoul(b, (char **) &b, 10);
                        if (x != y)
                                return x < y ? -1 : 1;
                        continue;
                }
                /* the numeric release ends at the first other character */
                if (!isdigit((unsigned char) *a) && *a != '.' && !isdigit((unsigned char) *b) && *b != '.')
                        return 0;
                if (*a == '.' && *b == '.') {
                        a++;
                        b++;
                        continue;
                }
                /* "6.1" vs "6.1.0": a missing part counts as 0 */
                if (*a == '.' || isdigit((unsigned char) *a))
                        return strspn(a, ".0") == strspn(a, ".0123456789") ? 0 : 1;
                if (*b == '.' || isdigit((unsigned char) *b))
                        return strspn(b, ".0") == strspn(b, ".0123456789") ? 0 : -1;
                return 0;
        }
        return 0;
}

/* X.Y.Z with Z > 0 in the X.Y of RELEASE: a comparison the sublevel decides */
static bool range_needs_sublevel(const char *release, const char *v)
{
        const char *a = release, *b = v;

        for (int part = 0; part < 2; part++) {
                size_t n = strspn(a, "0123456789"), m = strspn(b, "0123456789");
                if (n != m || strncmp(a, b, n) != 0 || a[n] != '.' || b[m] != '.')
                        return false;
                a += n + 1;
                b += m + 1;
        }
        return strspn(b, "0123456789") > 0 && strspn(b, "0") < strspn(b, "0123456789");
}

enum { RANGE_OUT, RANGE_IN, RANGE_UNDECIDED };

/* "<6.10", ">=6.1": does the target kernel fall in the range? It compares the
 * upstream version where detect found one, else the release. Unknown kernel:
 * yes. A release that hides its sublevel (6.1.0-18-amd64) with no upstream
 * version known and a range in its X.Y that needs the sublevel: undecided. */
static int kernel_in_range(const struct inventory *inv, const char *range)
{
        const char *kernel = inv->kernel_version ? inv->kernel_version : inv->kernel;
        const char *v = range + strspn(range, "<>=");
        size_t oplen = (size_t) (v - range);
        int c;

        if (!kernel || !*v)
                return RANGE_IN;
        if (!inv->kernel_version && kernel_release_abi_only(inv->kernel) && range_needs_sublevel(inv->kernel, v))
                return RANGE_UNDECIDED;
        c = kernel_compare(kernel, v);
        if (oplen == 1 && range[0] == '<') return c < 0;
        if (oplen == 2 && startswith(range, "<=")) return c <= 0;
        if (oplen == 1 && range[0] == '>') return c > 0;
        if (oplen == 2 && startswith(range, ">=")) return c >= 0;
        if (oplen == 1 && range[0] == '=') return c == 0;
        return true;
}

static bool bios_date(const struct inventory *inv, char ret[static 9])
{
        const char *d = kv_get(&inv->platform, "bios_date");
        unsigned m, day, y;
        int n = 0;

        if (!d || sscanf(d, "%2u/%2u/%4u%n", &m, &day, &y, &n) != 3 || d[n] != '\0' || m > 12 || day > 31)
                return false;
        if (y < 100)    /* two-digit year, as dmi_get_date() reads it */
                y += y < 70 ? 2000 : 1900;
        snprintf(ret, 9, "%04u%02u%02u", y % 10000, m, day);
        return true;
}

/* "<20180406", ">=20180406": does the machine's BIOS date fall in the range? Unknown date: yes. */
static bool bios_in_range(const struct inventory *inv, const char *range)
{
        const char *v = range + strspn(range, "<>=");
        char date[9];
        int c;

        if (!bios_date(inv, date) || strlen(v) != 8 || strspn(v, "0123456789") != 8)
                return true;
        c = strcmp(date, v);
        if (startswith(range, "<=")) return c <= 0;
        if (startswith(range, ">=")) return c >= 0;
        if (range[0] == '<') return c < 0;
        if (range[0] == '>') return c > 0;
        return true;
}

char *knob_input_path(const char *path, const char *kernel)
{
        const char *k = strstr(path, "%k");

        if (!k)
                return xstrdup(path);
        if (!kernel)
                return NULL;
        return xasprintf("%.*s%s%s", (int) (k - path), path, kernel, k + 2);
}

char *machine_key(struct planctx *c, const char *key)
{
        const char *dmi = kv_get(&c->inv->platform, "modalias");

        if (!dmi || !key)
                return NULL;
        return xasprintf("idlecfg-on:%s|%s", dmi, key);
}

const struct device *pci_parent(struct planctx *c, const struct device *d)
{
        const struct device_list *pci = &c->inv->classes[CL_PCI];
        const struct device *best = NULL;

        for (size_t k = 0; d->devpath && k < pci->n; k++) {
                const char *p = pci->v[k].devpath;
                size_t n = p ? strlen(p) : 0;
                if (n && strncmp(d->devpath, p, n) == 0 && d->devpath[n] == '/' &&
                    (!best || n > strlen(best->devpath)))
                        best = &pci->v[k];
        }
        return best;
}

/* The hwdb keys the knob families read: IDLECFG_* and the systemd
 * properties idlecfg honours, each with its companions. Files and records
 * that set none of them are not even parsed (hwdb_load_keys()): systemd's
 * 9 MB of vendor and model names hold not one. tests/hwdb.sh checks that
 * every property src/knobs asks for starts with one of these. */
const char *const planner_hwdb_keys[] = { "IDLECFG_", "ID_AUTOSUSPEND", "ID_PERSIST", NULL };

bool hwdb_fact(struct planctx *c, const char *key, const char *property, struct hwdb_fact *ret)
{
        return hwdb_fact_undecided(c, key, property, ret, NULL);
}

/* why the entry of P (the property) and K (its _KERNEL) is not used */
static char *undecided_reason(struct planctx *c, const struct hwdb_property *p, const struct hwdb_property *k)
{
        return xasprintf("hwdb %s:%u sets %s=%s for kernels %s only, and the upstream sublevel of kernel %s is "
                         "unknown (%s)", p->file, p->line, p->key, p->value, k->value, c->inv->kernel,
                         strempty(c->inv->kernel_version_source));
}

bool hwdb_fact_undecided(struct planctx *c, const char *key, const char *property, struct hwdb_fact *ret,
                         char **ret_undecided)
{
        _cleanup_free_ char *kkey = NULL, *bkey = NULL, *rkey = NULL;
        struct hwdb_property p[4];

        if (!c->hwdb || !key)
                return false;
        kkey = xasprintf("%s_KERNEL", property);
        bkey = xasprintf("%s_BIOS_DATE", property);
        rkey = xasprintf("%s_REASON", property);
        /* the property, its kernel range, BIOS date range and reason from one query */
        if (hwdb_get_keys(c->hwdb, key, (const char *const[]) { property, kkey, bkey, rkey }, 4, p) <= 0 ||
            !p[0].key)
                return false;
        if (p[1].key) {
                int k = kernel_in_range(c->inv, p[1].value);
                if (k == RANGE_UNDECIDED) {
                        _cleanup_free_ char *why = undecided_reason(c, &p[0], &p[1]);
                        if (ret_undecided) {
                                if (!*ret_undecided)
                                        *ret_undecided = TAKE_PTR(why);
                        } else
                                plan_warn_once(c->plan, "%s: the entry is not used", why);
                        return false;
                }
                if (k == RANGE_OUT)
                        return false;
        }
        if (p[2].key && !bios_in_range(c->inv, p[2].value))
                return false;
        *ret = (struct hwdb_fact) {
                .value = p[0].value, .file = p[0].file, .line = p[0].line,
                .reason = p[3].key ? p[3].value : NULL,
        };
        return true;
}

char *fact_reason(const struct hwdb_fact *f)
{
        if (f->reason)
                return xasprintf("hwdb %s:%u (%s)", f->file, f->line, f->reason);
        return xasprintf("hwdb %s:%u", f->file, f->line);
}

const char *profile_value(struct planctx *c, const char *section, const char *key)
{
        const struct profile_setting *s = profile_get(c->profile, section, key);

        if (!s || s->keep)
                return NULL;
        return s->value;
}

/* a path below the root RFS as the target will see it */
static const char *in_root(const struct rootfs *rfs, const char *path)
{
        const char *root = rfs->path;
        size_t n = root ? strlen(root) : 0;

        while (n > 1 && root[n - 1] == '/')
                n--;
        if (!rfs->host && strncmp(path, root, n) == 0 && path[n] == '/')
                return path + n;
        return path;
}

char *profile_reason(struct planctx *c, const char *section, const char *key)
{
        const struct profile_setting *s = profile_get(c->profile, section, key);

        if (!s)
                return xasprintf("profile %s [%s] %s (not set)", c->profile->name, section, key);
        if (s->battery)
                return xasprintf("profile %s [%s] %s = ac:%s battery:%s (%s:%u)", c->profile->name, section, key,
                                 s->value, s->battery, in_root(c->inv->rfs, s->file), s->line);
        return xasprintf("profile %s [%s] %s = %s (%s:%u)", c->profile->name, section, key, s->value,
                         in_root(c->inv->rfs, s->file), s->line);
}

char *hex_attr(const char *id)
{
        return xasprintf("0x%s", id);
}

void match_device(const struct device *d, struct kvlist *match)
{
        const char *v;

        if (streq(d->class, "pci")) {
                kv_add(match, "SUBSYSTEM", "pci");
                kv_add_take(match, "ATTR{vendor}", hex_attr(strempty(kv_get(&d->ids, "vendor"))));
                kv_add_take(match, "ATTR{device}", hex_attr(strempty(kv_get(&d->ids, "device"))));
                if ((v = kv_get(&d->ids, "subsystem_vendor")))
                        kv_add_take(match, "ATTR{subsystem_vendor}", hex_attr(v));
                if ((v = kv_get(&d->ids, "subsystem_device")))
                        kv_add_take(match, "ATTR{subsystem_device}", hex_attr(v));
        } else if (streq(d->class, "usb")) {
                kv_add(match, "SUBSYSTEM", "usb");
                kv_add(match, "ATTR{idVendor}", strempty(kv_get(&d->ids, "vendor")));
                kv_add(match, "ATTR{idProduct}", strempty(kv_get(&d->ids, "product")));
        } else if (streq(d->class, "sata")) {
                const char *port = d->devpath ? strstr(d->devpath, "/ata") : NULL;
                kv_add(match, "SUBSYSTEM", "scsi_host");
                if ((v = kv_get(&d->ids, "proc_name")))
                        kv_add(match, "ATTR{proc_name}", v);
                /* The ATA port, not hostN: SCSI host numbers follow probe order (a
                 * USB disk probed first takes host0, seen in tests/vm), while libata
                 * numbers only its own ports and sets the host's unique_id to that
                 * number (ata_scsi_add_hosts: shost->unique_id = ap->print_id). */
                if (v && port && port[4] >= '1' && port[4] <= '9')
                        kv_add_take(match, "ATTR{unique_id}", xstrndup(port + 4, strspn(port + 4, "0123456789")));
                else
                        kv_add(match, "KERNEL", d->name);
        } else if (streq(d->class, "ata-port")) {
                /* the ata_port class device; the ATA port itself has no subsystem and no uevent */
                kv_add(match, "SUBSYSTEM", "ata_port");
                kv_add(match, "KERNEL", d->name);
        } else if (streq(d->class, "disk")) {
                /* H:C:T:L follows probe order: the model and type must agree too, so a
                 * renumbered host makes the rule miss rather than hit another drive */
                kv_add(match, "SUBSYSTEM", "scsi");
                kv_add(match, "KERNEL", d->name);
                if ((v = kv_get(&d->ids, "vendor")))
                        kv_add(match, "ATTR{vendor}", v);
                if ((v = kv_get(&d->ids, "model")))
                        kv_add(match, "ATTR{model}", v);
        } else if (streq(d->class, "i2c-client")) {
                kv_add(match, "SUBSYSTEM", "i2c");
                kv_add(match, "KERNEL", d->name);
        } else if (streq(d->class, "serio")) {
                /* an i8042 port: serio0 the keyboard port, serio1 the aux port, as the
                 * controller registers them */
                kv_add(match, "SUBSYSTEM", "serio");
                kv_add(match, "KERNEL", d->name);
        } else if (streq(d->class, "connector")) {
                /* a DRM connector: card0-eDP-1 */
                kv_add(match, "SUBSYSTEM", "drm");
                kv_add(match, "KERNEL", d->name);
        } else if (streq(d->class, "i2c-adapter")) {
                /* the knob is the controller's: match it by name and driver */
                kv_add(match, "KERNEL", strempty(kv_get(&d->ids, "controller")));
                if ((v = kv_get(&d->ids, "controller_driver")))
                        kv_add(match, "DRIVER", v);
        } else {
                kv_add(match, "KERNEL", d->name);
        }
}

static struct setting *add(struct planctx *c, const struct device *d, const char *knob, char *reason_take)
{
        struct setting *s = plan_add(c->plan);

        s->knob = xstrdup(knob);
        if (d) {
                s->device = xstrdup(d->devpath);
                s->device_name = xstrdup(d->name);
                s->device_class = xstrdup(d->class);
        }
        s->reason = reason_take;
        s->mech = MECH_NONE;
        return s;
}

struct setting *plan_device(struct planctx *c, const struct device *d, const char *knob,
                            const char *attr, const char *value, char *reason_take)
{
        struct setting *s = add(c, d, knob, reason_take);
        const struct kv *cur;

        s->attr = xstrdup(attr);
        if (d && (cur = kv_find(&d->knobs, attr)) && cur->value)
                s->current = xstrdup(cur->value);
        if (!value)
                return s;
        s->value = xstrdup(value);
        s->mech = MECH_UDEV;
        match_device(d, &s->match);
        return s;
}

void plan_skip(struct planctx *c, const struct device *d, const char *knob, char *reason_take)
{
        add(c, d, knob, reason_take);
}

void plan_skip_keep(struct planctx *c, const char *knob, const char *section, const char *key)
{
        _cleanup_free_ char *why = profile_reason(c, section, key);
        plan_skip(c, NULL, knob, xasprintf("skipped: %s: the kernel default stays", why));
}

struct setting *plan_param(struct planctx *c, const struct device *d, const char *knob, const char *module,
                           const char *param, const char *value, char *reason_take)
{
        _cleanup_free_ char *key = xasprintf("%s.%s", module, param);
        struct setting *s = add(c, d, knob, NULL);
        const char *cur = kv_get(&c->inv->modparams, key);
        enum mod_state st;

        s->module = xstrdup(module);
        s->param = xstrdup(param);
        if (cur)
                s->current = xstrdup(cur);
        if (!c->mc) {
                s->reason = xasprintf("skipped: %s: the target kernel's modules cannot be checked (%s); wanted %s=%s",
                                      key, c->inv->moddir_note ? c->inv->moddir_note : "no module directory",
                                      key, value);
                free(reason_take);
                return s;
        }
        st = modctx_state(c->mc, module);
        if (st != MOD_BUILTIN && st != MOD_LOADABLE) {
                s->reason = xasprintf("skipped: module %s is not in kernel %s", module, c->inv->kernel);
                free(reason_take);
                return s;
        }
        if (!modctx_has_param(c->mc, module, param)) {
                s->reason = xasprintf("skipped: module %s has no parameter %s in kernel %s", module, param,
                                      c->inv->kernel);
                free(reason_take);
                return s;
        }
        s->value = xstrdup(value);
        /* a modprobe.d option does nothing for a built-in module */
        s->mech = st == MOD_BUILTIN ? MECH_CMDLINE : MECH_MODPROBE;
        s->reason = reason_take;
        return s;
}

struct setting *plan_global(struct planctx *c, const char *knob, const char *module, const char *param,
                            const char *value, const char *current, enum mechanism mech, char *reason_take)
{
        struct setting *s = add(c, NULL, knob, reason_take);

        s->module = module ? xstrdup(module) : NULL;
        s->param = xstrdup(param);
        s->value = xstrdup(value);
        s->current = current ? xstrdup(current) : NULL;
        s->mech = mech;
        return s;
}

bool knob_nm_ifname_ok(const char *name)
{
        static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
        size_t len = name ? strlen(name) : 0;

        return len > 0 && len <= 15 && !streq(name, ".") && !streq(name, "..") && name[strspn(name, ok)] == '\0';
}

struct setting *plan_service(struct planctx *c, const struct device *d, const char *knob, enum mechanism mech,
                             const char *param, const char *value, char *reason_take)
{
        struct setting *s = add(c, d, knob, reason_take);

        s->param = xstrdup(param);
        s->value = xstrdup(value);
        s->mech = mech;
        return s;
}

bool usb_has_class(const struct device *d, const char *cls)
{
        const char *dc = kv_get(&d->ids, "device_class");

        if (dc && streq(dc, cls))
                return true;
        for (size_t i = 0; i < d->n_children; i++)
                if (streq_ptr(kv_get(&d->children[i].ids, "class"), cls))
                        return true;
        return false;
}

bool usb_is_bluetooth(const struct device *d)
{
        for (size_t i = 0; i < d->n_children; i++) {
                const struct kvlist *ids = &d->children[i].ids;

                if (streq_ptr(kv_get(ids, "class"), "e0") && streq_ptr(kv_get(ids, "subclass"), "01") &&
                    streq_ptr(kv_get(ids, "protocol"), "01"))
                        return true;
        }
        return false;
}

char *usb_hwdb_key(const struct device *d)
{
        _cleanup_free_ char *v = xstrdup(strempty(kv_get(&d->ids, "vendor")));
        _cleanup_free_ char *p = xstrdup(strempty(kv_get(&d->ids, "product")));

        for (char *x = v; *x; x++)
                *x = (char) toupper((unsigned char) *x);
        for (char *x = p; *x; x++)
                *x = (char) toupper((unsigned char) *x);
        return xasprintf("usb:v%sp%s:%s", v, p, strempty(kv_get(&d->ids, "product_name")));
}

/* ---- mechanisms more than one layer or family uses ---- */

char *sysctl_canonical_path(const char *key)
{
        char *path = xasprintf("/proc/sys/%s", key);

        for (char *p = path + strlen("/proc/sys/"); *p; p++)
                if (*p == '.')
                        *p = '/';
        return path;
}

char *sysctl_proc_path(const char *key)
{
        const char *proc = secure_getenv("IDLECFG_TEST_PROC");
        char *path;

        /* umockdev redirects /sys only: a test that forgot the variable must not
         * read or write the host's /proc/sys through the plan of a recording */
        if (!(proc && *proc) && getenv("UMOCKDEV_DIR"))
                return NULL;
        path = xasprintf("%s/sys/%s", proc && *proc ? proc : "/proc", key);
        for (char *p = path + strlen(path) - strlen(key); *p; p++)
                if (*p == '.')
                        *p = '/';
        return path;
}

/* "yes", "no" (the option is not set, or "is not set"), or NULL when the
 * target kernel's config is not in the root */
const char *knob_kconfig_option(struct planctx *c, const char *option, char **ret_file, int *ret_error)
{
        _cleanup_free_ char *text = NULL, *set = NULL;
        const char *v;
        int r;

        if (!c->inv->kernel || !c->inv->rfs)
                return NULL;
        *ret_file = knob_input_path(KCONFIG_PATH, c->inv->kernel);
        r = rootfs_read_file(c->inv->rfs, *ret_file, 0, KCONFIG_MAX, &text, NULL, NULL);
        if (ret_error)
                *ret_error = r < 0 ? r : 0;
        if (r < 0 && r != -ENOENT && r != -ENOTDIR) {
                /* a FIFO or a 3 GB file is there, but unusable: said, not "not in the root" */
                _cleanup_free_ char *shown = rootfs_display(c->inv->rfs, *ret_file);
                _cleanup_free_ char *why = rootfs_why(c->inv->rfs, *ret_file, r, KCONFIG_MAX);
                rootfs_warn(c->inv->rfs, _("%s: %s; idlecfg does not check the target kernel's options in it"),
                            shown, why);
        }
        if (r < 0)
                return NULL;
        set = xasprintf("\n%s=", option);
        /* a leading newline so that the first line matches like the others;
         * "# CONFIG_X is not set", or no line at all: not set */
        {
                _cleanup_free_ char *t = xasprintf("\n%s", text);
                v = strstr(t, set);
                if (v && (v[strlen(set)] == 'y' || v[strlen(set)] == 'm'))
                        return "yes";
        }
        return "no";
}
