/* emit.c: the check of every value against its knob's whitelist, and the renderers of the files install writes */
#include "config.h"

#include <stdarg.h>

#include "pipeline/emit.h"
#include "model/plan.h"
#include "root/powersource.h"
#include "base/util.h"

/* ---- the whitelist ----
 * The rules are the knob families' own (src/knobs/X.c), listed by knob_rules()
 * in src/knobs/registry.c; here is what checks a value against one. */

#define LOWER "abcdefghijklmnopqrstuvwxyz"
#define UPPER "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#define DIGITS "0123456789"
#define HEX DIGITS "abcdefABCDEF"

/* Whatever its rule, a value that reaches a file is made of these bytes only:
 * nothing in it can end a quoted udev value, split a modprobe or command-line
 * word, start a new line, or be expanded ($ and % in udev, % in tmpfiles). */
#define VALUE_CHARS LOWER UPPER DIGITS "_=/-"
#define VALUE_MAX 255

/* is WORD one of the '|'-separated words of LIST? */
static bool in_list(const char *list, const char *word)
{
        size_t n = strlen(word);

        if (!list || n == 0)
                return false;
        for (const char *p = list;;) {
                size_t len = strcspn(p, "|");
                if (len == n && strncmp(p, word, n) == 0)
                        return true;
                if (!p[len])
                        return false;
                p += len + 1;
        }
}

static bool only(const char *s, const char *chars)
{
        return s[strspn(s, chars)] == '\0';
}

/* The kernel's spelling of an integer only: no '+', no leading zeros, no "-0",
 * no spaces; at most nine digits, so it cannot overflow a long. */
static bool parse_int(const char *s, long *ret)
{
        const char *p = s + (s[0] == '-');
        size_t n = strspn(p, DIGITS);
        long v = 0;

        if (n == 0 || n > 9 || p[n] || (p[0] == '0' && (n > 1 || p != s)))
                return false;
        for (size_t i = 0; i < n; i++)
                v = v * 10 + (p[i] - '0');
        *ret = p != s ? -v : v;
        return true;
}

static bool resume_ok(const char *v)
{
        const char *rest;

        if (startswith(v, "UUID=")) {
                rest = v + strlen("UUID=");
                return strpbrk(rest, HEX) && only(rest, HEX "-");
        }
        if (startswith(v, "/dev/")) {
                rest = v + strlen("/dev/");
                return *rest && *rest != '/' && rest[strlen(rest) - 1] != '/' && only(rest, LOWER UPPER DIGITS "/_-");
        }
        return false;
}

static size_t hex_run(const char *p)
{
        return strspn(p, "0123456789abcdef");
}

/* "0000:00:17.0=0x5[,0000:03:00.0=0x1]": PCI device names (domain of 4 to 8 hex
 * digits, VMD has 5) and masks of 1 to 8 hex digits, as ahci_get_port_map_mask() parses */
static bool portmask_ok(const char *v)
{
        for (const char *p = v;;) {
                size_t n = hex_run(p);
                if (n < 4 || n > 8 || p[n] != ':')
                        return false;
                p += n + 1;
                if (hex_run(p) != 2 || p[2] != ':' || hex_run(p + 3) != 2 || p[5] != '.' ||
                    !strchr("01234567", p[6]) || !p[6] || p[7] != '=' || p[8] != '0' || p[9] != 'x')
                        return false;
                p += 10;
                n = hex_run(p);
                if (n < 1 || n > 8)
                        return false;
                p += n;
                if (!*p)
                        return true;
                if (*p != ',')
                        return false;
                p++;
        }
}

/* "1b36:0010:no_apst[-144d:a808:no_deepest_ps]": lower-case PCI IDs of 4 digits and
 * the quirk names idlecfg writes, '-' between entries, as quirks_param_set()
 * (drivers/nvme/host/pci.c) parses them; its buffer holds 127 characters */
static bool nvme_quirks_ok(const char *v)
{
        if (strlen(v) > 127)
                return false;
        for (const char *p = v;;) {
                if (hex_run(p) != 4 || p[4] != ':' || hex_run(p + 5) != 4 || p[9] != ':')
                        return false;
                p += 10;
                if (startswith(p, "no_apst"))
                        p += strlen("no_apst");
                else if (startswith(p, "no_deepest_ps"))
                        p += strlen("no_deepest_ps");
                else
                        return false;
                if (!*p)
                        return true;
                if (*p != '-')
                        return false;
                p++;
        }
}

bool knob_value_ok(const struct knob_rule *r, const char *value)
{
        long v;

        if (r && r->kind == KNOB_PORTMASK)
                return value && strlen(value) <= VALUE_MAX && portmask_ok(value);
        if (r && r->kind == KNOB_NVME_QUIRKS)
                return value && nvme_quirks_ok(value);
        if (!r || !value || !*value || strlen(value) > VALUE_MAX || !only(value, VALUE_CHARS))
                return false;
        switch (r->kind) {
        case KNOB_WORDS:
                return in_list(r->words, value);
        case KNOB_INT:
                return parse_int(value, &v) && v >= r->min && v <= r->max;
        case KNOB_RESUME:
                return resume_ok(value);
        case KNOB_PORTMASK:
        case KNOB_NVME_QUIRKS:
                break;
        }
        return false;
}

/* A sysfs path below the device: letters, digits, '_' and '/' between
 * components. No '.', so nothing climbs out with ".."; no leading '/'. Attributes
 * a rule sets are lowercase; match keys also read idVendor and friends. */
static bool attr_name_ok(const char *a, bool upper)
{
        size_t n = strlen(a);

        return n > 0 && n <= 128 && only(a, upper ? LOWER UPPER DIGITS "_/" : LOWER DIGITS "_/") &&
               a[0] != '/' && a[n - 1] != '/' && !strstr(a, "//");
}

/* modprobe and the kernel treat '-' and '_' alike in module names; we write '_',
 * the spelling of /sys/module. 55: MODULE_NAME_LEN less its NUL. */
static bool module_name_ok(const char *m)
{
        size_t n = strlen(m);

        return n > 0 && n <= 55 && only(m, LOWER DIGITS "_-");
}

/* parameter names are C identifiers: nvidia's NVreg_DynamicPowerManagement has capitals */
static bool param_name_ok(const char *p)
{
        size_t n = strlen(p);

        return n > 0 && n <= 63 && only(p, LOWER UPPER DIGITS "_");
}

/* A rule matches the exact values the planner read from sysfs. Glob characters
 * would widen it to devices nobody checked (and udev cannot escape them), so
 * they are refused with everything that could end the quoted value or be
 * substituted. */
#define MATCH_VALUE_MAX 255
#define MATCH_KEYS_MAX 16

static bool match_value_ok(const char *v)
{
        size_t n = v ? strlen(v) : 0;

        if (n == 0 || n > MATCH_VALUE_MAX)
                return false;
        for (const unsigned char *p = (const unsigned char *) v; *p; p++)
                if (*p < 0x20 || *p > 0x7e || strchr("\"\\$%*?[]|", *p))
                        return false;
        return true;
}

static bool match_key_ok(const char *k)
{
        size_t n = strlen(k);
        size_t skip;

        if (streq(k, "SUBSYSTEM") || streq(k, "KERNEL") || streq(k, "DRIVER"))
                return true;
        if (startswith(k, "ATTR{"))
                skip = strlen("ATTR{");
        else if (startswith(k, "ATTRS{"))
                skip = strlen("ATTRS{");
        else
                return false;
        if (n <= skip + 1 || k[n - 1] != '}')
                return false;
        {
                _cleanup_free_ char *a = xstrndup(k + skip, n - skip - 1);
                return attr_name_ok(a, true);
        }
}

/* A sysctl key as systemd-sysctl and procps read it: lowercase components of
 * letters, digits and '_' joined by single dots. No '/', '*', '-' or '!'
 * (their other separator, glob and ignore-failure prefixes), no "..": the
 * key maps to exactly one file below /proc/sys. */
static bool sysctl_key_ok(const char *k)
{
        size_t n = strlen(k);

        return n > 0 && n <= 128 && only(k, LOWER DIGITS "_.") && k[0] != '.' && k[n - 1] != '.' && !strstr(k, "..") &&
               strchr(k, '.');
}

/* ---- errors ---- */

static int fail(struct xerror *e, int r, const char *fmt, ...) _printf_(3, 4);
static int fail(struct xerror *e, int r, const char *fmt, ...)
{
        va_list ap;

        if (!e)
                return r;
        free(e->message);
        va_start(ap, fmt);
        e->message = xvasprintf(fmt, ap);
        va_end(ap);
        return r;
}

#define QUOTE_MAX 64

/* a value for a message: quoted, control and non-ASCII bytes escaped, cut short */
static char *quote(const char *s)
{
        struct strbuf sb = {};
        size_t len;

        if (!s)
                return xstrdup("(null)");
        len = strlen(s);
        sb_putc(&sb, '"');
        for (size_t i = 0; i < len && i < QUOTE_MAX; i++) {
                unsigned char c = (unsigned char) s[i];
                switch (c) {
                case '"': sb_append(&sb, "\\\""); break;
                case '\\': sb_append(&sb, "\\\\"); break;
                case '\n': sb_append(&sb, "\\n"); break;
                case '\t': sb_append(&sb, "\\t"); break;
                case '\r': sb_append(&sb, "\\r"); break;
                default:
                        if (c < 0x20 || c > 0x7e)
                                sb_appendf(&sb, "\\x%02x", c);
                        else
                                sb_putc(&sb, (char) c);
                }
        }
        sb_putc(&sb, '"');
        if (len > QUOTE_MAX)
                sb_appendf(&sb, _("... (%zu bytes)"), len);
        return sb_steal(&sb);
}

/* "KNOB on DEVICE" or "KNOB (global)", for messages */
static char *where(const struct setting *s)
{
        _cleanup_free_ char *k = quote(s->knob);
        const char *dev = s->device_name ? s->device_name : s->device;
        _cleanup_free_ char *d = dev ? quote(dev) : NULL;

        /* the knob is quoted only when it is not a plain name */
        if (s->knob && only(s->knob, LOWER DIGITS "_.")) {
                free(k);
                k = xstrdup(s->knob);
        }
        if (d)
                return xasprintf(_("%s on %s"), k, d);
        return xasprintf(_("%s (global)"), k);
}

static char *expected(const struct knob_rule *r)
{
        switch (r->kind) {
        case KNOB_WORDS:
                return xasprintf(_("one of %s"), r->words);
        case KNOB_INT:
                return xasprintf(_("an integer from %ld to %ld"), r->min, r->max);
        case KNOB_RESUME:
                return xstrdup(_("UUID=<hex digits and dashes> or /dev/<name>"));
        case KNOB_PORTMASK:
                return xstrdup(_("PCI device=0x mask pairs, comma-separated"));
        case KNOB_NVME_QUIRKS:
                return xstrdup(_("VENDOR:DEVICE:no_apst or no_deepest_ps entries, '-' between them"));
        }
        return xstrdup("?");
}

/* "module.param" with the module spelt with '_', or a bare "param" */
static char *param_key(const struct setting *s)
{
        char *k;

        if (!s->module)
                return xstrdup(s->param);
        k = xasprintf("%s.%s", s->module, s->param);
        for (char *p = k; *p && *p != '.'; p++)
                if (*p == '-')
                        *p = '_';
        return k;
}

/* the attribute of a udev setting: one its knob may set */
static int check_attr(const struct setting *s, const struct knob_rule *r, const char *w, struct xerror *e)
{
        if (!s->attr || !attr_name_ok(s->attr, false) || !in_list(r->attrs, s->attr)) {
                _cleanup_free_ char *q = quote(s->attr);
                return fail(e, -EINVAL, _("%s: attribute %s is not one this knob may set (%s)"), w, q,
                            r->attrs ? r->attrs : _("none"));
        }
        return 0;
}

static int check_udev(const struct setting *s, const struct knob_rule *r, const char *w, struct xerror *e)
{
        bool anchored = false;
        int ret = check_attr(s, r, w, e);

        if (ret < 0)
                return ret;
        if (s->match.n == 0)
                return fail(e, -EINVAL, _("%s: no udev match keys: the rule would apply to every device"), w);
        if (s->match.n > MATCH_KEYS_MAX)
                return fail(e, -EINVAL, _("%s: %zu udev match keys, more than %d"), w, s->match.n, MATCH_KEYS_MAX);
        for (size_t i = 0; i < s->match.n; i++) {
                const struct kv *kv = &s->match.v[i];
                if (!match_key_ok(kv->key)) {
                        _cleanup_free_ char *q = quote(kv->key);
                        return fail(e, -EINVAL, _("%s: udev match key %s is not allowed (only SUBSYSTEM, KERNEL, "
                                                  "DRIVER, ATTR{...} and ATTRS{...})"), w, q);
                }
                if (!match_value_ok(kv->value)) {
                        _cleanup_free_ char *q = quote(kv->value);
                        return fail(e, -EINVAL, _("%s: udev match %s value %s is not allowed: 1 to %d printable "
                                                  "ASCII characters without quotes, backslashes, $, %% or glob "
                                                  "characters (* ? [ ] |)"), w, kv->key, q, MATCH_VALUE_MAX);
                }
                anchored = anchored || streq(kv->key, "SUBSYSTEM") || streq(kv->key, "KERNEL");
        }
        /* ATTR{vendor} alone would match in every subsystem that has a vendor file */
        if (!anchored)
                return fail(e, -EINVAL, _("%s: the udev match has neither SUBSYSTEM nor KERNEL"), w);
        return 0;
}

static int check_param(const struct setting *s, const struct knob_rule *r, const char *w, struct xerror *e)
{
        _cleanup_free_ char *key = NULL;

        if (!s->param || !param_name_ok(s->param)) {
                _cleanup_free_ char *q = quote(s->param);
                return fail(e, -EINVAL, _("%s: parameter name %s is not allowed (letters, digits and _)"), w, q);
        }
        if (s->module && !module_name_ok(s->module)) {
                _cleanup_free_ char *q = quote(s->module);
                return fail(e, -EINVAL, _("%s: module name %s is not allowed (lowercase letters, digits, _ "
                                          "and -)"), w, q);
        }
        /* a bare parameter (mem_sleep_default=) exists on the command line only */
        if (!s->module && s->mech != MECH_CMDLINE)
                return fail(e, -EINVAL, _("%s: a %s setting needs a module"), w, mechanism_to_string(s->mech));
        key = param_key(s);
        if (!in_list(r->params, key))
                return fail(e, -EINVAL, _("%s: parameter %s is not one this knob may set (%s)"), w, key,
                            r->params ? r->params : _("none"));
        return 0;
}

static int check_sysctl(const struct setting *s, const struct knob_rule *r, const char *w, struct xerror *e)
{
        if (!s->param || !sysctl_key_ok(s->param)) {
                _cleanup_free_ char *q = quote(s->param);
                return fail(e, -EINVAL, _("%s: sysctl key %s is not allowed (lowercase letters, digits and _ "
                                          "between single dots)"), w, q);
        }
        if (s->module || s->attr)
                return fail(e, -EINVAL, _("%s: a sysctl setting has neither module nor attribute"), w);
        if (!in_list(r->sysctls, s->param))
                return fail(e, -EINVAL, _("%s: sysctl %s is not one this knob may set (%s)"), w, s->param,
                            r->sysctls ? r->sysctls : _("none"));
        return 0;
}

/* NetworkManager and .link settings: the property must be one the knob may set,
 * and a NetworkManager section needs the interface it matches */
static int check_service(const struct setting *s, const struct knob_rule *r, const char *w, struct xerror *e)
{
        if (!s->param || !in_list(r->params, s->param))
                return fail(e, -EINVAL, _("%s: setting %s is not one this knob may set (%s)"), w,
                            s->param ? s->param : "(null)", r->params ? r->params : _("none"));
        if (s->mech == MECH_NM && !knob_nm_ifname_ok(s->device_name)) {
                _cleanup_free_ char *q = quote(s->device_name);
                return fail(e, -EINVAL, _("%s: interface name %s is not allowed (1 to 15 letters, digits, _ . "
                                          "and -)"), w, q);
        }
        return 0;
}

/* where S writes: a place its knob may set; a udev rule's match too with MATCH */
static int check_place(const struct setting *s, const struct knob_rule *r, const char *w, bool match,
                       struct xerror *e)
{
        switch (s->mech) {
        case MECH_NONE:
                return 0;
        case MECH_UDEV:
                return match ? check_udev(s, r, w, e) : check_attr(s, r, w, e);
        case MECH_MODPROBE:
        case MECH_TMPFILES:
        case MECH_CMDLINE:
                return check_param(s, r, w, e);
        case MECH_SYSCTL:
                return check_sysctl(s, r, w, e);
        case MECH_NM:
        case MECH_LINK:
                return check_service(s, r, w, e);
        default:
                return fail(e, -EINVAL, _("%s: unknown mechanism %d"), w, (int) s->mech);
        }
}

int emit_check_value(const struct setting *s, struct xerror *ret_error)
{
        _cleanup_free_ char *w = NULL;
        const struct knob_rule *r;

        if (!s->value)
                return 0;       /* a skip: nothing of it is written */
        w = where(s);
        r = knob_rule(s->knob);
        if (!r)
                return fail(ret_error, -EINVAL, _("%s: unknown knob: nothing may be written for it"), w);
        if (!knob_value_ok(r, s->value)) {
                _cleanup_free_ char *q = quote(s->value), *want = expected(r);
                return fail(ret_error, -EINVAL, _("%s: value %s is not allowed; expected %s"), w, q, want);
        }
        if (s->value_battery && !knob_value_ok(r, s->value_battery)) {
                _cleanup_free_ char *q = quote(s->value_battery), *want = expected(r);
                return fail(ret_error, -EINVAL, _("%s: battery value %s is not allowed; expected %s"), w, q, want);
        }
        return check_place(s, r, w, true, ret_error);
}

int emit_check_place(const struct setting *s, struct xerror *ret_error)
{
        _cleanup_free_ char *w = where(s);
        const struct knob_rule *r = knob_rule(s->knob);

        if (!r)
                return fail(ret_error, -EINVAL, _("%s: unknown knob: nothing may be written for it"), w);
        if (s->mech == MECH_NONE || s->mech == MECH_NM || s->mech == MECH_LINK)
                return fail(ret_error, -EINVAL, _("%s: %s has no file to write at run time"), w,
                            mechanism_to_string(s->mech));
        return check_place(s, r, w, false, ret_error);
}

/* ---- rendering ----
 *
 * Order: udev rules and tmpfiles lines keep plan order, because the planner's
 * order can carry meaning (per-link ASPM: L1 before its substates, as the
 * kernel's link files want). modprobe options, the command line and sysctl.d
 * lines are sorted by module and parameter or key, where order means nothing.
 * Either way the same plan gives the same bytes. Two settings with the same target and value give one
 * line (both reasons above it); the same target with different values is an
 * error: the file would say two things. */

struct item {
        const struct setting *s;
        size_t index;           /* in the plan: ties keep plan order */
        char *key;              /* what it sets: the rule's match and attribute, module.param, param */
        char *group;            /* modprobe: the module */
        char *line;             /* what it renders to */
        bool dup;               /* an earlier item renders the same line */
};

struct items {
        struct item *v;
        size_t n;
};

static void items_free(struct items *l)
{
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].key);
                free(l->v[i].group);
                free(l->v[i].line);
        }
        free(l->v);
}

/* the value as the service's file spells it: the knob's service_words
 * ("on=3|off=2": NetworkManager's numbers), else as it is */
static char *service_value(const struct setting *s)
{
        const struct knob_rule *r = knob_rule(s->knob);
        size_t len = strlen(s->value);

        for (const char *w = r ? r->service_words : NULL; w && *w;) {
                size_t n = strcspn(w, "|");
                if (n > len && strncmp(w, s->value, len) == 0 && w[len] == '=')
                        return xstrndup(w + len + 1, n - len - 1);
                w += n + (w[n] == '|');
        }
        return xstrdup(s->value);
}

static void item_render(struct item *it, enum emit_format fmt)
{
        const struct setting *s = it->s;
        struct strbuf sb = {};

        switch (fmt) {
        case EMIT_UDEV:
                /* add only, as systemd's 60-autosuspend.rules: the kernel resets these
                 * attributes only when it adds the device again; a knob whose rule
                 * names other actions (power/wakeup: a driver's probe sets it) runs then too */
                {
                        const struct knob_rule *r = knob_rule(s->knob);
                        sb_appendf(&sb, "ACTION==\"%s\"", r && r->udev_actions ? r->udev_actions : "add");
                }
                for (size_t i = 0; i < s->match.n; i++)
                        sb_appendf(&sb, ", %s==\"%s\"", s->match.v[i].key, s->match.v[i].value);
                sb_appendf(&sb, ", TEST==\"%s\"", s->attr);
                it->key = xstrdup(sb_str(&sb));
                if (s->value_battery) {
                        /* a value per power source: the one of the source the switch
                         * last decided (root/powersource.h), for a device added or
                         * bound after it, at boot or at a hotplug */
                        _cleanup_free_ char *match = sb_steal(&sb);
                        it->line = xasprintf("%s, TEST!=\"" PS_BATTERY_MARK_PATH "\", ATTR{%s}=\"%s\"\n"
                                             "%s, TEST==\"" PS_BATTERY_MARK_PATH "\", ATTR{%s}=\"%s\"",
                                             match, s->attr, s->value, match, s->attr, s->value_battery);
                        break;
                }
                sb_appendf(&sb, ", ATTR{%s}=\"%s\"", s->attr, s->value);
                it->line = sb_steal(&sb);
                {
                        const struct knob_rule *r = knob_rule(s->knob);
                        if (r && r->udev_unbind) {
                                /* the driver's unbind: its DRIVER is gone from that event */
                                sb_appendf(&sb, "%s\nACTION==\"unbind\"", it->line);
                                for (size_t i = 0; i < s->match.n; i++)
                                        if (!streq(s->match.v[i].key, "DRIVER"))
                                                sb_appendf(&sb, ", %s==\"%s\"", s->match.v[i].key, s->match.v[i].value);
                                sb_appendf(&sb, ", TEST==\"%s\", ATTR{%s}=\"%s\"", s->attr, s->attr, r->udev_unbind);
                                free(it->line);
                                it->line = sb_steal(&sb);
                        }
                }
                break;
        case EMIT_MODPROBE:
                it->key = param_key(s);
                it->group = xstrndup(it->key, strcspn(it->key, "."));
                it->line = xasprintf("%s=%s", s->param, s->value);
                break;
        case EMIT_TMPFILES:
                it->key = param_key(s);
                it->group = xstrndup(it->key, strcspn(it->key, "."));
                it->line = xasprintf("w /sys/module/%s/parameters/%s - - - - %s", it->group, s->param, s->value);
                break;
        case EMIT_CMDLINE:
                it->key = param_key(s);
                it->line = xasprintf("%s=%s", it->key, s->value);
                break;
        case EMIT_SYSCTL:
                /* sysctl.d(5): "key = value", as systemd's own files write it */
                it->key = xstrdup(s->param);
                it->line = xasprintf("%s = %s", s->param, s->value);
                break;
        case EMIT_NM: {
                /* one section per interface; sections of other files read after this one
                 * and [connection] sections are searched after it (NetworkManager.conf(5)) */
                _cleanup_free_ char *v = service_value(s);
                it->key = xasprintf("%s %s", s->device_name, s->param);
                it->line = xasprintf("[connection-idlecfg-%s]\nmatch-device=interface-name:%s\n%s=%s",
                                     s->device_name, s->device_name, s->param, v);
                break;
        }
        case EMIT_LINK: {
                /* "Key" goes into [Link], "Section.Key" into [Section] */
                const char *dot = strchr(s->param, '.');
                _cleanup_free_ char *v = service_value(s);
                it->key = xstrdup(s->param);
                it->group = dot ? xstrndup(s->param, dot - s->param) : xstrdup("Link");
                it->line = xasprintf("%s=%s", dot ? dot + 1 : s->param, v);
                break;
        }
        }
}

static int item_cmp(const void *a, const void *b)
{
        const struct item *x = a, *y = b;
        int c = strcmp(x->group ? x->group : "", y->group ? y->group : "");

        if (c == 0)
                c = strcmp(x->key, y->key);
        if (c == 0)
                c = x->index < y->index ? -1 : x->index > y->index;
        return c;
}

static enum mechanism format_mechanism(enum emit_format fmt)
{
        switch (fmt) {
        case EMIT_UDEV: return MECH_UDEV;
        case EMIT_MODPROBE: return MECH_MODPROBE;
        case EMIT_TMPFILES: return MECH_TMPFILES;
        case EMIT_CMDLINE: return MECH_CMDLINE;
        case EMIT_SYSCTL: return MECH_SYSCTL;
        case EMIT_NM: return MECH_NM;
        case EMIT_LINK: return MECH_LINK;
        }
        return _MECH_MAX;
}

#define COMMENT_MAX 400

/* Text inside a '#' line: printable ASCII only. A newline would end the comment
 * and start a rule; a trailing backslash joins the next line in modprobe.d
 * (libkmod reads continuations before comments); udev refuses a whole file for
 * one line longer than 16 KiB. */
static void comment_text(struct strbuf *sb, const char *s)
{
        size_t len = strlen(s);

        for (size_t i = 0; i < len && i < COMMENT_MAX; i++) {
                unsigned char c = (unsigned char) s[i];
                if (c < 0x20 || c > 0x7e || c == '\\')
                        sb_appendf(sb, "\\x%02x", c);
                else
                        sb_putc(sb, (char) c);
        }
        if (len > COMMENT_MAX)
                sb_append(sb, "...");
}

/* "# KNOB on DEVICE: REASON": written into files, so never translated */
static void comment(struct strbuf *sb, const struct setting *s)
{
        const char *dev = s->device_name ? s->device_name : s->device;

        sb_append(sb, "# ");
        comment_text(sb, s->knob);
        if (dev) {
                sb_append(sb, " on ");
                comment_text(sb, dev);
        }
        sb_append(sb, ": ");
        comment_text(sb, s->reason ? s->reason : "no reason recorded");
        sb_putc(sb, '\n');
}

static void header(struct strbuf *sb, const struct plan *p)
{
        sb_append(sb, "# Generated by " PACKAGE_NAME " " PACKAGE_VERSION " for profile ");
        comment_text(sb, p->profile ? p->profile : "(none)");
        sb_append(sb, ", fingerprint ");
        comment_text(sb, p->fingerprint ? p->fingerprint : "(none)");
        if (p->kernel) {
                sb_append(sb, ", kernel ");
                comment_text(sb, p->kernel);
        }
        sb_append(sb, ".\n# Do not edit: \"" PACKAGE_NAME " install\" rewrites this file and \"" PACKAGE_NAME
                  " rollback\" restores the one it replaced.\n");
}

static void render(const struct plan *p, enum emit_format fmt, const struct items *l, struct strbuf *sb)
{
        if (fmt == EMIT_CMDLINE) {
                bool first = true;
                for (size_t i = 0; i < l->n; i++)
                        if (!l->v[i].dup) {
                                if (!first)
                                        sb_putc(sb, ' ');
                                sb_append(sb, l->v[i].line);
                                first = false;
                        }
                if (!first)
                        sb_putc(sb, '\n');
                return;
        }
        header(sb, p);
        if (l->n == 0)
                sb_append(sb, "\n# Nothing of this kind to set on this machine.\n");
        if (fmt == EMIT_MODPROBE) {
                for (size_t i = 0; i < l->n;) {
                        size_t end = i;
                        while (end < l->n && streq(l->v[end].group, l->v[i].group))
                                end++;
                        sb_putc(sb, '\n');
                        for (size_t k = i; k < end; k++)
                                comment(sb, l->v[k].s);
                        sb_appendf(sb, "options %s", l->v[i].group);
                        for (size_t k = i; k < end; k++)
                                if (!l->v[k].dup)
                                        sb_appendf(sb, " %s", l->v[k].line);
                        sb_putc(sb, '\n');
                        i = end;
                }
                return;
        }
        for (size_t i = 0; i < l->n; i++) {
                if (l->v[i].dup)
                        continue;
                /* .link: a section header where the section changes (the items are sorted by it) */
                if (fmt == EMIT_LINK && (i == 0 || !streq(l->v[i].group, l->v[i - 1].group)))
                        sb_appendf(sb, "\n[%s]", l->v[i].group);
                sb_putc(sb, '\n');
                for (size_t k = i; k < l->n; k++)
                        if (k == i || (l->v[k].dup && streq(l->v[k].line, l->v[i].line)))
                                comment(sb, l->v[k].s);
                sb_append(sb, l->v[i].line);
                sb_putc(sb, '\n');
        }
}

int emit_render(const struct plan *p, enum emit_format fmt, FILE *f, struct xerror *ret_error)
{
        enum mechanism mech = format_mechanism(fmt);
        _cleanup_(items_free) struct items l = {};
        _cleanup_(sb_free) struct strbuf sb = {};
        int r;

        if (mech == _MECH_MAX)
                return fail(ret_error, -EINVAL, _("unknown output format %d"), (int) fmt);
        l.v = xcalloc(p->n ? p->n : 1, sizeof(*l.v));
        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                if (s->mech != mech || !s->value)
                        continue;
                r = emit_check_value(s, ret_error);
                if (r < 0)
                        return r;
                l.v[l.n] = (struct item) { .s = s, .index = i };
                item_render(&l.v[l.n++], fmt);
        }
        if (fmt == EMIT_MODPROBE || fmt == EMIT_CMDLINE || fmt == EMIT_SYSCTL || fmt == EMIT_LINK)
                qsort(l.v, l.n, sizeof(*l.v), item_cmp);
        for (size_t i = 0; i < l.n; i++)
                for (size_t k = 0; k < i && !l.v[i].dup; k++) {
                        if (l.v[k].dup || !streq(l.v[k].key, l.v[i].key))
                                continue;
                        if (!streq(l.v[k].line, l.v[i].line)) {
                                _cleanup_free_ char *a = where(l.v[k].s), *b = where(l.v[i].s);
                                _cleanup_free_ char *qa = quote(l.v[k].s->value), *qb = quote(l.v[i].s->value);
                                return fail(ret_error, -EINVAL, _("%s and %s set the same target to different "
                                                                  "values (%s, %s): %s"), a, b, qa, qb, l.v[i].key);
                        }
                        l.v[i].dup = true;
                }
        render(p, fmt, &l, &sb);
        /* one write of the finished text: an error above leaves f untouched */
        errno = 0;
        if (sb.len > 0 && fwrite(sb.s, 1, sb.len, f) != sb.len) {
                r = errno > 0 ? -errno : -EIO;
                return fail(ret_error, r, _("cannot write the rendered file: %s"), strerror(-r));
        }
        return 0;
}
