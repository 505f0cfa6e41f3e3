/* planner.c: build the plan: load hwdb and profile, run every knob family */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>

#include "json.h"
#include "planner.h"
#include "rootfs.h"

void plan_error_done(struct plan_error *e)
{
        free(e->message);
        e->message = NULL;
}

static void plan_error_set(struct plan_error *e, char *message)
{
        if (e) {
                free(e->message);
                e->message = message;
        } else
                free(message);
}

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

/* "<6.10", ">=6.1": does the target kernel fall in the range? Unknown kernel: yes. */
static bool kernel_in_range(const char *kernel, const char *range)
{
        const char *v = range + strspn(range, "<>=");
        size_t oplen = (size_t) (v - range);
        int c;

        if (!kernel || !*v)
                return true;
        c = kernel_compare(kernel, v);
        if (oplen == 1 && range[0] == '<') return c < 0;
        if (oplen == 2 && startswith(range, "<=")) return c <= 0;
        if (oplen == 1 && range[0] == '>') return c > 0;
        if (oplen == 2 && startswith(range, ">=")) return c >= 0;
        if (oplen == 1 && range[0] == '=') return c == 0;
        return true;
}

bool hwdb_fact(struct planctx *c, const char *key, const char *property, struct hwdb_fact *ret)
{
        struct hwdb_property p, r;
        _cleanup_free_ char *rkey = NULL, *kkey = NULL;

        if (!c->hwdb || !key || hwdb_get(c->hwdb, key, property, &p) < 0)
                return false;
        kkey = xasprintf("%s_KERNEL", property);
        if (hwdb_get(c->hwdb, key, kkey, &r) == 0 && !kernel_in_range(c->inv->kernel, r.value))
                return false;
        rkey = xasprintf("%s_REASON", property);
        *ret = (struct hwdb_fact) {
                .value = p.value, .file = p.file, .line = p.line,
                .reason = hwdb_get(c->hwdb, key, rkey, &r) == 0 ? r.value : NULL,
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

/* a path below ROOT as the target will see it */
static const char *in_root(const char *root, const char *path)
{
        size_t n = root ? strlen(root) : 0;

        while (n > 1 && root[n - 1] == '/')
                n--;
        if (!root_is_host(root) && strncmp(path, root, n) == 0 && path[n] == '/')
                return path + n;
        return path;
}

char *profile_reason(struct planctx *c, const char *section, const char *key)
{
        const struct profile_setting *s = profile_get(c->profile, section, key);

        if (!s)
                return xasprintf("profile %s [%s] %s (not set)", c->profile->name, section, key);
        return xasprintf("profile %s [%s] %s = %s (%s:%u)", c->profile->name, section, key, s->value,
                         in_root(c->inv->root, s->file), s->line);
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

/* other power tools that manage the same knobs */
static void warn_tools(struct planctx *c)
{
        for (size_t i = 0; i < c->inv->n_tools; i++) {
                const struct power_tool *t = &c->inv->tools[i];
                if (streq(t->name, "power-profiles-daemon"))
                        /* it sets platform profiles and CPU EPP, not the device knobs planned here,
                         * except SATA ALPM through its "power-saver" action on some versions */
                        plan_add_warning(c->plan, _("%s is installed%s: it changes platform and CPU settings; "
                                                   "idlecfg leaves those alone, but check its SATA/ASPM actions"),
                                         t->name, t->enabled ? _(" and enabled") : "");
                else
                        plan_add_warning(c->plan, _("%s is installed%s: it sets the same knobs (runtime PM, ASPM, "
                                                   "SATA ALPM, USB autosuspend, audio); two tools will fight: "
                                                   "disable one of them"),
                                         t->name, t->enabled ? _(" and enabled") : "");
        }
}

/* The kernel command line the target boots with: /proc/cmdline for this
 * system; for a root, what its boot setup passes (/etc/kernel/cmdline and the
 * GRUB_CMDLINE_LINUX* lines of /etc/default/grub), as one line of words,
 * quotes dropped. Only used to respect what the administrator set: a file
 * that cannot be used is a warning, and idlecfg assumes it sets nothing. */
#define CMDLINE_MAX (64u * 1024u)       /* /proc/cmdline, /etc/kernel/cmdline */
#define GRUB_MAX (1024u * 1024u)        /* /etc/default/grub */
static char *boot_cmdline(const struct rootfs *rfs)
{
        static const struct { const char *path; size_t max; } files[] = {
                { "/etc/kernel/cmdline", CMDLINE_MAX }, { "/etc/default/grub", GRUB_MAX },
        };
        struct strbuf sb = {};

        if (root_is_host(rfs->path)) {
                char *c = NULL;
                /* procfs: a regular file of size 0 */
                int r = rootfs_read_file(rfs, "/proc/cmdline", 0, CMDLINE_MAX, &c, NULL, NULL);
                if (r < 0) {
                        _cleanup_free_ char *why = rootfs_read_strerror(r, CMDLINE_MAX);
                        rootfs_warn(rfs, _("/proc/cmdline: %s; idlecfg assumes the kernel command line sets "
                                           "nothing it plans"), why);
                        return NULL;
                }
                strstrip(c);
                return c;
        }
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *text = NULL;
                int r = rootfs_read_file(rfs, files[i].path, 0, files[i].max, &text, NULL, NULL);
                if (r < 0) {
                        if (r != -ENOENT && r != -ENOTDIR) {
                                _cleanup_free_ char *shown = rootfs_display(rfs, files[i].path);
                                _cleanup_free_ char *why = rootfs_read_strerror(r, files[i].max);
                                rootfs_warn(rfs, _("%s: %s; idlecfg assumes it sets no kernel parameters"),
                                            shown, why);
                        }
                        continue;
                }
                for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
                        if (i == 1 && !startswith(strstrip(line), "GRUB_CMDLINE_LINUX"))
                                continue;
                        if (i == 1 && strchr(line, '='))
                                line = strchr(line, '=') + 1;
                        for (char *q = line; *q; q++)
                                if (*q == '"' || *q == '\'' || *q == '\t')
                                        *q = ' ';
                        sb_appendf(&sb, "%s%s", sb.len ? " " : "", strstrip(line));
                }
        }
        return sb.len ? sb_steal(&sb) : NULL;
}

int plan_build(const struct inventory *inv, const struct plan_options *o, struct plan **ret,
               struct plan_error *ret_error)
{
        struct planctx c = { .inv = inv };
        _cleanup_free_ char *name = NULL, *why = NULL, *cmdline = NULL, *moddir = NULL, *note = NULL;
        struct profile_error pe = {};
        struct hwdb_error he = {};
        struct hwdb *hwdb = NULL;
        struct profile *profile = NULL;
        struct plan *p;
        size_t n_warn;
        const struct hwdb_error *warn;
        int r;

        r = profile_select_rootfs(inv->rfs, o->profile, kv_get(&inv->platform, "chassis_type"), &name, &why, &pe);
        if (r >= 0)
                r = profile_load_rootfs(inv->rfs, o->profiles_dir, name, &profile, &pe);
        if (r < 0) {
                plan_error_set(ret_error, profile_error_format(&pe));
                profile_error_done(&pe);
                return r;
        }
        r = hwdb_load_rootfs(inv->rfs, HWDB_FILES_REQUIRED, &hwdb, &he);
        if (r < 0) {
                plan_error_set(ret_error, hwdb_error_format(&he));
                hwdb_error_done(&he);
                profile_free(profile);
                return r;
        }
        p = xcalloc(1, sizeof(*p));
        p->profile = xstrdup(name);
        p->profile_reason = xstrdup(why);
        p->fingerprint = xstrdup(inv->fingerprint);
        p->kernel = inv->kernel ? xstrdup(inv->kernel) : NULL;
        warn = hwdb_warnings(hwdb, &n_warn);
        for (size_t i = 0; i < n_warn; i++) {
                _cleanup_free_ char *w = hwdb_error_format(&warn[i]);
                plan_add_warning(p, "%s", w);
        }
        cmdline = boot_cmdline(inv->rfs);
        if (inv->kernel)
                c.mc = modctx_new(inv->rfs, inv->kernel, &moddir, &note);
        c.hwdb = hwdb;
        c.profile = profile;
        c.plan = p;
        c.cmdline = cmdline;

        knob_pci_runtime_pm(&c);
        knob_aspm(&c);
        knob_sata(&c);
        knob_usb(&c);
        knob_audio(&c);
        knob_gpu(&c);
        knob_i2c(&c);
        knob_nvme(&c);
        knob_suspend(&c);
        warn_tools(&c);

        modctx_free(c.mc);
        hwdb_free(hwdb);
        profile_free(profile);
        *ret = p;
        return 0;
}

/* ---- printing ---- */

/* text wrapped at 80 columns at spaces, every line indented */
static void print_wrapped(FILE *f, int indent, const char *text)
{
        int col = 0;

        for (const char *p = text; *p; p += strspn(p, " ")) {
                size_t w = strcspn(p, " ");
                if (col > indent && col + 1 + (int) w > 80) {
                        fputc('\n', f);
                        col = 0;
                }
                if (col == 0)
                        col = fprintf(f, "%*s%.*s", indent, "", (int) w, p);
                else
                        col += fprintf(f, " %.*s", (int) w, p);
                p += w;
        }
        fputc('\n', f);
}

void plan_print_text(const struct plan *p, FILE *f)
{
        size_t planned = 0, skipped = 0, per[_MECH_MAX] = {};

        fprintf(f, _("Profile %s (%s), fingerprint %s, kernel %s\n"), p->profile, p->profile_reason,
                p->fingerprint, p->kernel ? p->kernel : _("unknown"));
        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                const char *where = s->attr ? s->attr : s->param;

                fprintf(f, "\n%s %s%s%s\n", s->knob, s->device_name ? s->device_name : _("(global)"),
                        where ? " " : "", where ? where : "");
                if (s->value) {
                        fprintf(f, "    %s %s  (%s %s, %s)\n", _("set"), s->value, _("now"),
                                s->current ? s->current : "?", mechanism_to_string(s->mech));
                        planned++;
                        per[s->mech]++;
                } else
                        skipped++;
                print_wrapped(f, 4, s->reason ? s->reason : "");
        }
        if (p->n_warnings) {
                fputc('\n', f);
                for (size_t i = 0; i < p->n_warnings; i++) {
                        _cleanup_free_ char *w = xasprintf("%s %s", _("warning:"), p->warnings[i]);
                        print_wrapped(f, 0, w);
                }
        }
        fprintf(f, _("\n%zu settings (udev %zu, modprobe %zu, tmpfiles %zu, command line %zu), %zu skipped\n"),
                planned, per[MECH_UDEV], per[MECH_MODPROBE], per[MECH_TMPFILES], per[MECH_CMDLINE], skipped);
}

void plan_print_json(const struct plan *p, FILE *f)
{
        struct json j;

        json_init(&j, f);
        json_begin_object(&j);
        json_kv_int(&j, "schema", 1);
        json_kv_string(&j, "version", PACKAGE_VERSION);
        json_kv_string(&j, "profile", p->profile);
        json_kv_string(&j, "profile_reason", p->profile_reason);
        json_kv_string(&j, "fingerprint", p->fingerprint);
        json_kv_string(&j, "kernel", p->kernel);
        json_key(&j, "settings");
        json_begin_array(&j);
        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                json_begin_object(&j);
                json_kv_string(&j, "knob", s->knob);
                json_kv_string(&j, "device", s->device_name);
                json_kv_string(&j, "devpath", s->device);
                json_kv_string(&j, "class", s->device_class);
                json_kv_string(&j, "attr", s->attr);
                json_kv_string(&j, "module", s->module);
                json_kv_string(&j, "param", s->param);
                json_kv_string(&j, "value", s->value);
                json_kv_string(&j, "current", s->current);
                json_kv_string(&j, "mechanism", mechanism_to_string(s->mech));
                json_kv_bool(&j, "skipped", !s->value);
                json_kv_string(&j, "reason", s->reason);
                json_end_object(&j);
        }
        json_end_array(&j);
        json_key(&j, "warnings");
        json_begin_array(&j);
        for (size_t i = 0; i < p->n_warnings; i++)
                json_string(&j, p->warnings[i]);
        json_end_array(&j);
        json_end_object(&j);
        json_finish(&j);
}
