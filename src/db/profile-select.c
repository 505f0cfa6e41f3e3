/* profile-select.c: which profile applies: --profile, idlecfg.conf, the chassis type */
#include "config.h"

#include <ctype.h>

#include "db/profile-file.h"
#include "db/profile-search.h"
#include "db/profile-select.h"
#include "root/rootfs.h"
#include "base/util.h"

/* ---- which profile ---- */

const char *chassis_name(long t)
{
        /* SMBIOS 3.x, 7.4.1 System Enclosure or Chassis Types */
        static const char *const names[] = {
                NULL, "Other", "Unknown", "Desktop", "Low Profile Desktop", "Pizza Box", "Mini Tower",
                "Tower", "Portable", "Laptop", "Notebook", "Hand Held", "Docking Station", "All in One",
                "Sub Notebook", "Space-saving", "Lunch Box", "Main Server Chassis", "Expansion Chassis",
                "SubChassis", "Bus Expansion Chassis", "Peripheral Chassis", "RAID Chassis",
                "Rack Mount Chassis", "Sealed-case PC", "Multi-system chassis", "Compact PCI",
                "Advanced TCA", "Blade", "Blade Enclosure", "Tablet", "Convertible", "Detachable",
                "IoT Gateway", "Embedded PC", "Mini PC", "Stick PC",
        };

        if (t <= 0 || t >= (long) ELEMENTSOF(names))
                return NULL;
        return names[t];
}

/* NULL: no rule, the default applies */
static const char *chassis_profile(long t)
{
        switch (t) {
        case 8: case 9: case 10: case 11: case 14: case 30: case 31: case 32:
                return "balanced";      /* runs on battery */
        case 3: case 4: case 5: case 6: case 7: case 13: case 15: case 16: case 24: case 35: case 36:
                return "desktop";
        case 17: case 23: case 28: case 29:
                return "server";
        default:
                return NULL;
        }
}

static char *conf_path(const struct rootfs *rfs, bool display)
{
        if (rfs->host)
                return xstrdup(SYSCONFDIR "/idlecfg/idlecfg.conf");
        return display ? root_path(rfs->path, "/etc/idlecfg/idlecfg.conf") : xstrdup("/etc/idlecfg/idlecfg.conf");
}

/* idlecfg.conf parsed: 0 with *RET (empty when there is no file) and
 * *RET_DISPLAY, the file's name for messages */
static int conf_parse(const struct rootfs *rfs, struct profile_parsed *ret, char **ret_display, struct xerror *err)
{
        _cleanup_free_ char *path = conf_path(rfs, false), *display = conf_path(rfs, true);
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r;

        *ret = (struct profile_parsed) {};
        *ret_display = NULL;
        if (rfs->fd < 0)
                return 0;
        r = profile_read_file(rfs, path, display, &buf, &len, err);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        r = profile_parse_buffer(buf, len, display, profile_conf_schema(), ret, err);
        if (r < 0)
                return r;
        *ret_display = TAKE_PTR(display);
        return 0;
}

/* KEY in [SECTION] of idlecfg.conf: 0 and *ret_value with *ret_where
 * (FILE:LINE), both NULL when the file or the key is absent */
static int conf_value(const struct rootfs *rfs, const char *section, const char *key, char **ret_value,
                      char **ret_where, struct xerror *err)
{
        _cleanup_free_ char *display = NULL;
        struct profile_parsed parsed = {};
        const struct profile_entry *e;
        int r;

        *ret_value = *ret_where = NULL;
        r = conf_parse(rfs, &parsed, &display, err);
        if (r < 0)
                return r;
        e = profile_parsed_find(&parsed, section, key);
        if (e) {
                *ret_value = xstrdup(e->value);
                *ret_where = xasprintf("%s:%u", display, e->line);
        }
        profile_parsed_done(&parsed);
        return 0;
}

/* the entry KEY of the [exclude ARG] section */
static const struct profile_entry *exclude_entry(const struct profile_parsed *p, const char *arg, const char *key)
{
        for (size_t i = 0; i < p->n; i++)
                if (streq_ptr(p->v[i].arg, arg) && streq(p->v[i].def->key, key))
                        return &p->v[i];
        return NULL;
}

/* ARG as the device it names, for telling two sections apart: a PCI address
 * (with or without its domain) and a USB vendor:product are hex, matched
 * whatever the case (exclude.c); anything else as written */
static char *exclude_key(const char *arg)
{
        size_t n = strlen(arg);
        bool pci = (n == 12 && arg[4] == ':' && arg[7] == ':' && arg[10] == '.') ||
                   (n == 7 && arg[2] == ':' && arg[5] == '.');
        bool usb = n == 9 && arg[4] == ':';
        char *k;

        if (!pci && !usb)
                return xstrdup(arg);
        for (size_t i = 0; i < n; i++)
                if (arg[i] != ':' && arg[i] != '.' && !isxdigit((unsigned char) arg[i]))
                        return xstrdup(arg);
        k = n == 7 ? xasprintf("0000:%s", arg) : xstrdup(arg);
        for (char *c = k; *c; c++)
                *c = (char) tolower((unsigned char) *c);
        return k;
}

void conf_exclusions_done(struct conf_exclusions *x)
{
        for (size_t i = 0; i < x->n; i++) {
                free(x->v[i].device);
                free(x->v[i].reason);
                for (size_t k = 0; x->v[i].knobs && x->v[i].knobs[k]; k++)
                        free(x->v[i].knobs[k]);
                free(x->v[i].knobs);
                free(x->v[i].file);
        }
        free(x->v);
        *x = (struct conf_exclusions) {};
}

int conf_exclusions(const struct rootfs *rfs, struct conf_exclusions *ret, struct xerror *ret_error)
{
        _cleanup_free_ char *display = NULL;
        struct profile_parsed parsed = {};
        struct conf_exclusions x = {};
        int r;

        *ret = x;
        r = conf_parse(rfs, &parsed, &display, ret_error);
        if (r < 0)
                return r;
        for (size_t i = 0; i < parsed.n_sections; i++) {
                const struct profile_section *sec = &parsed.sections[i];
                const struct profile_entry *reason = exclude_entry(&parsed, sec->arg, "reason");
                const struct profile_entry *knobs = exclude_entry(&parsed, sec->arg, "knobs");
                struct conf_exclusion *e;

                if (!reason) {
                        profile_set_error(ret_error, display, sec->line,
                                          _("[exclude %s] has no reason: say why idlecfg leaves the device alone "
                                            "(reason = TEXT)"), sec->arg);
                        conf_exclusions_done(&x);
                        profile_parsed_done(&parsed);
                        return -EINVAL;
                }
                for (size_t k = 0; k < x.n; k++) {
                        _cleanup_free_ char *a = exclude_key(sec->arg), *b = exclude_key(x.v[k].device);
                        if (!streq(a, b))
                                continue;
                        profile_set_error(ret_error, display, sec->line,
                                          _("[exclude %s] names the device of [exclude %s] (line %u) again"),
                                          sec->arg, x.v[k].device, x.v[k].line);
                        conf_exclusions_done(&x);
                        profile_parsed_done(&parsed);
                        return -EINVAL;
                }
                x.v = xrealloc(x.v, (x.n + 1) * sizeof(*x.v));
                e = &x.v[x.n++];
                *e = (struct conf_exclusion) { .device = xstrdup(sec->arg), .reason = xstrdup(reason->value),
                                               .file = xstrdup(display), .line = sec->line };
                if (knobs) {
                        _cleanup_free_ char *copy = xstrdup(knobs->value);
                        size_t n = 0;
                        char *save = NULL;

                        e->knobs_line = knobs->line;
                        e->knobs = xcalloc(strlen(copy) / 2 + 2, sizeof(char *));
                        for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save))
                                e->knobs[n++] = xstrdup(w);
                }
        }
        profile_parsed_done(&parsed);
        *ret = x;
        return 0;
}

int conf_power_source(const struct rootfs *rfs, char **ret_source, char **ret_where, struct xerror *ret_error)
{
        int r = conf_value(rfs, "power", "source", ret_source, ret_where, ret_error);

        if (r >= 0 && streq_ptr(*ret_source, "auto")) {
                free(*ret_source);
                free(*ret_where);
                *ret_source = *ret_where = NULL;
        }
        return r;
}

int profile_select_rootfs(const struct rootfs *rfs, const char *cli_name, const char *chassis_type,
                          char **ret_name, char **ret_reason, struct xerror *ret_error)
{
        _cleanup_free_ char *name = NULL, *reason = NULL;
        long t = 0;
        int r;

        if (cli_name) {
                if (!profile_name_valid(cli_name)) {
                        profile_set_error(ret_error, NULL, 0,
                                  _("invalid profile name '%s' for --profile; use letters, digits, '-' and '_' (at most %d)"),
                                  cli_name, PROFILE_NAME_MAX);
                        return -EINVAL;
                }
                *ret_name = xstrdup(cli_name);
                *ret_reason = xstrdup("--profile");
                return 0;
        }

        r = conf_value(rfs, "main", "profile", &name, &reason, ret_error);
        if (r < 0)
                return r;
        if (name) {
                *ret_name = TAKE_PTR(name);
                *ret_reason = TAKE_PTR(reason);
                return 0;
        }

        /* Unknown, odd or missing types get balanced: its settings are the
         * ones known to be safe on any hardware, and machines without DMI
         * (ARM boards, tablets, many VMs) are mostly not servers. */
        if (!chassis_type || !chassis_type[0])
                reason = xstrdup(_("no chassis type (no DMI), the default"));
        else if (profile_parse_number(chassis_type, &t) < 0)
                reason = xasprintf(_("chassis type '%s' not understood, the default"), chassis_type);
        else if (chassis_profile(t))
                reason = xasprintf(_("chassis type %ld (%s)"), t, chassis_name(t));
        else if (chassis_name(t))
                reason = xasprintf(_("chassis type %ld (%s) has no rule, the default"), t, chassis_name(t));
        else
                reason = xasprintf(_("chassis type %ld has no rule, the default"), t);
        *ret_name = xstrdup(chassis_profile(t) ? chassis_profile(t) : PROFILE_DEFAULT);
        *ret_reason = TAKE_PTR(reason);
        return 0;
}

/* ---- the same for a root given by its path (tests, tools) ---- */

int profile_select(const char *root, const char *cli_name, const char *chassis_type,
                   char **ret_name, char **ret_reason, struct xerror *ret_error)
{
        struct rootfs rfs = { .fd = -1 };
        int r = profile_open_root(root, &rfs, ret_error);

        if (r >= 0)
                r = profile_select_rootfs(&rfs, cli_name, chassis_type, ret_name, ret_reason, ret_error);
        rootfs_close(&rfs);
        return r;
}
