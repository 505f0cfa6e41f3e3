/* report.c: what a report may tell of a machine (report.h): the model key,
 * the installation key, the distribution, the owner's symptoms, and the
 * privacy rules */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "base/i18n.h"
#include "base/sha256.h"
#include "engine/report.h"

const char *const report_model_fields[] = {
        "sys_vendor", "product_family", "product_name", "product_sku", "board_vendor", "board_name", NULL
};

/* shown beside the key: what says which model and firmware it is */
static const char *const report_platform_fields[] = {
        "bios_vendor", "bios_version", "bios_date", "chassis", "cpu_arch", "cpu_vendor", "cpu_family", "cpu_model",
        "mem_sleep", NULL
};

/* what identifies a kind of device: the keys detect reads that name a
 * model, a driver or a firmware revision, never a unit */
static const char *const report_ids[] = {
        "vendor", "device", "subsystem_vendor", "subsystem_device", "class", "revision", "bcd_device",
        "device_class", "product", "product_name", "manufacturer", "model", "firmware", "vendor_id",
        "subsystem_id", "revision_id", "chip_name", "kind", "type", "transport", "removable", "internal",
        "speed", "interface_classes", "interface_drivers", "controller_driver", "subclass", "protocol", NULL
};

bool report_id_allowed(const char *key)
{
        for (const char *const *k = report_ids; *k; k++)
                if (streq(*k, key))
                        return true;
        return false;
}

static size_t hex_run(const char *s)
{
        size_t n = 0;

        while (isxdigit((unsigned char) s[n]))
                n++;
        return n;
}

/* at S: a MAC address (aa:bb:cc:dd:ee:ff or aa-bb-...): its length, else 0 */
static size_t mac_at(const char *s)
{
        for (int i = 0; i < 6; i++) {
                const char *p = s + 3 * i;
                if (!isxdigit((unsigned char) p[0]) || !isxdigit((unsigned char) p[1]))
                        return 0;
                if (i < 5 && p[2] != ':' && p[2] != '-')
                        return 0;
        }
        return isxdigit((unsigned char) s[17]) ? 0 : 17;
}

/* at S: a UUID (8-4-4-4-12 hex digits): its length, else 0 */
static size_t uuid_at(const char *s)
{
        static const size_t groups[] = { 8, 4, 4, 4, 12 };
        size_t off = 0;

        for (size_t i = 0; i < ELEMENTSOF(groups); i++) {
                if (hex_run(s + off) != groups[i])
                        return 0;
                off += groups[i];
                if (i < 4) {
                        if (s[off] != '-')
                                return 0;
                        off++;
                }
        }
        return off;
}

bool report_value_private(const char *v)
{
        if (!v)
                return false;
        for (const char *p = v; *p; p++) {
                if (p != v && isxdigit((unsigned char) p[-1]))
                        continue;
                if (mac_at(p) || uuid_at(p))
                        return true;
                /* an interface named by its MAC address (enx...), a WWN */
                if (hex_run(p) >= 12)
                        return true;
        }
        return false;
}

char *report_scrub(const char *root, const char *s)
{
        struct strbuf sb = {};
        size_t rl = root && !streq(root, "/") ? strlen(root) : 0;

        if (!s)
                return NULL;
        while (rl && root[rl - 1] == '/')
                rl--;
        for (const char *p = s; *p;) {
                size_t n;
                /* the root's path: its files by their path inside it, the root itself as "/" */
                if (rl && strncmp(p, root, rl) == 0) {
                        char next = p[rl];
                        if (next == '/') {
                                p += rl;
                                continue;
                        }
                        if (next == '\0' || (!isalnum((unsigned char) next) && !strchr("-_.~", next))) {
                                sb_putc(&sb, '/');
                                p += rl;
                                continue;
                        }
                }
                /* a home directory's name is a user name, wherever the path starts */
                if (startswith(p, "/home/")) {
                        sb_append(&sb, "/home/\xe2\x80\xa6");
                        p += strlen("/home/");
                        p += strcspn(p, "/ \t\n:'\")");
                        continue;
                }
                if (p == s || !isxdigit((unsigned char) p[-1])) {
                        n = uuid_at(p);
                        if (!n)
                                n = mac_at(p);
                        if (n) {
                                sb_append(&sb, "[private]");
                                p += n;
                                continue;
                        }
                }
                sb_putc(&sb, *p++);
        }
        return sb_steal(&sb);
}

void hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len, uint8_t out[32])
{
        uint8_t k[64] = {}, pad[64], inner[32];
        struct sha256 s;

        if (key_len > sizeof(k)) {
                sha256_init(&s);
                sha256_update(&s, key, key_len);
                sha256_final(&s, k);
        } else
                memcpy(k, key, key_len);
        for (size_t i = 0; i < sizeof(pad); i++)
                pad[i] = k[i] ^ 0x36;
        sha256_init(&s);
        sha256_update(&s, pad, sizeof(pad));
        sha256_update(&s, msg, msg_len);
        sha256_final(&s, inner);
        for (size_t i = 0; i < sizeof(pad); i++)
                pad[i] = k[i] ^ 0x5c;
        sha256_init(&s);
        sha256_update(&s, pad, sizeof(pad));
        sha256_update(&s, inner, sizeof(inner));
        sha256_final(&s, out);
}

static void hex(const uint8_t *v, size_t n, char *out)
{
        static const char digits[] = "0123456789abcdef";

        for (size_t i = 0; i < n; i++) {
                out[2 * i] = digits[v[i] >> 4];
                out[2 * i + 1] = digits[v[i] & 15];
        }
        out[2 * n] = '\0';
}

/* the model fields joined by '&' as HardwareID-3 joins them, hashed; shown
 * as a UUID of version 8 (RFC 9562: a name-based UUID of one's own hash) */
static void model_key(const struct kvlist *platform, char out[37])
{
        struct sha256 s;
        uint8_t d[32];
        char h[33];

        sha256_init(&s);
        for (const char *const *f = report_model_fields; *f; f++) {
                const char *v = kv_get(platform, *f);
                if (f != report_model_fields)
                        sha256_update(&s, "&", 1);
                if (v)
                        sha256_update(&s, v, strlen(v));
        }
        sha256_final(&s, d);
        d[6] = (d[6] & 0x0f) | 0x80;
        d[8] = (d[8] & 0x3f) | 0x80;
        hex(d, 16, h);
        snprintf(out, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", h, h + 8, h + 12, h + 16, h + 20);
}

static void install_key(const struct rootfs *rfs, struct report_info *info)
{
        _cleanup_free_ char *id = NULL;
        uint8_t d[32];
        char h[65];
        int r = rootfs_read_file(rfs, "/etc/machine-id", 0, 4096, &id, NULL, NULL);

        if (r < 0) {
                info->install_key_note = xasprintf(_("no installation key: /etc/machine-id: %s"),
                                                   rootfs_strerror(r));
                return;
        }
        strstrip(id);
        if (strlen(id) != 32 || hex_run(id) != 32) {
                info->install_key_note = xstrdup(_("no installation key: /etc/machine-id holds no machine ID "
                                                   "(an image not booted yet, or 'uninitialized')"));
                return;
        }
        hmac_sha256(id, strlen(id), "idlecfg-report", strlen("idlecfg-report"), d);
        hex(d, 16, h);
        info->install_key = xstrdup(h);
}

/* KEY=VALUE lines of os-release, the few a report names, unquoted */
static void os_release(const struct rootfs *rfs, struct kvlist *os)
{
        static const char *const paths[] = { "/etc/os-release", "/usr/lib/os-release" };
        static const char *const keys[] = { "ID", "VERSION_ID", "PRETTY_NAME", NULL };
        _cleanup_free_ char *text = NULL;

        for (size_t i = 0; i < ELEMENTSOF(paths) && !text; i++)
                if (rootfs_read_file(rfs, paths[i], 0, 65536, &text, NULL, NULL) < 0)
                        text = NULL;
        for (char *line = text, *next; line && *line; line = next) {
                char *eq, *v;
                size_t n;
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                eq = strchr(line, '=');
                if (!eq)
                        continue;
                *eq = '\0';
                v = eq + 1;
                n = strlen(v);
                if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
                        v[n - 1] = '\0';
                        v++;
                }
                for (const char *const *k = keys; *k; k++)
                        if (streq(line, *k) && !kv_get(os, *k))
                                kv_add(os, *k, v);
        }
}

static bool device_named(const struct device_list *l, const char *name)
{
        for (size_t i = 0; i < l->n; i++) {
                if (streq(l->v[i].name, name))
                        return true;
                for (size_t c = 0; c < l->v[i].n_children; c++)
                        if (streq(l->v[i].children[c].name, name))
                                return true;
        }
        return false;
}

static int add_symptom(const struct inventory *inv, const char *arg, struct report_info *info, struct xerror *e)
{
        const char *colon = strchr(arg, ':');
        _cleanup_free_ char *dev = NULL;
        bool found = false;

        /* a PCI name holds colons itself (0000:00:14.3:TEXT): the device is
         * the longest prefix that names one */
        for (const char *c = colon; c && !found; c = strchr(c + 1, ':')) {
                free(dev);
                dev = xstrndup(arg, (size_t) (c - arg));
                for (int cl = 0; cl < _CL_MAX && !found; cl++)
                        found = device_named(&inv->classes[cl], dev);
                if (found)
                        colon = c;
        }
        if (!colon || !found || !colon[1])
                return xerror_set(e, -EINVAL,
                                  !colon || !colon[1] ? _("--symptom %s: give DEVICE:TEXT (a device name as detect "
                                                          "shows it, a colon, what went wrong)")
                                                      : _("--symptom %s: no such device on this machine "
                                                          "('idlecfg detect' lists their names)"),
                                  arg);
        info->symptoms = xrealloc(info->symptoms, (info->n_symptoms + 1) * sizeof(*info->symptoms));
        info->symptoms[info->n_symptoms++] = (struct report_symptom) { .device = TAKE_PTR(dev),
                                                                       .text = xstrdup(colon + 1) };
        return 0;
}

int report_info_make(const struct inventory *inv, const struct rootfs *rfs, char *const *symptoms,
                     size_t n_symptoms, struct report_info *ret, struct xerror *e)
{
        struct report_info info = {};

        for (size_t i = 0; i < n_symptoms; i++) {
                int r = add_symptom(inv, symptoms[i], &info, e);
                if (r < 0) {
                        report_info_done(&info);
                        return r;
                }
        }
        model_key(&inv->platform, info.model_key);
        for (const char *const *f = report_model_fields; *f; f++)
                if (kv_get(&inv->platform, *f) && !report_value_private(kv_get(&inv->platform, *f)))
                        kv_add(&info.model, *f, kv_get(&inv->platform, *f));
        for (const char *const *f = report_platform_fields; *f; f++)
                if (kv_get(&inv->platform, *f))
                        kv_add(&info.model, *f, kv_get(&inv->platform, *f));
        install_key(rfs, &info);
        os_release(rfs, &info.os);
        *ret = info;
        return 0;
}

void report_info_done(struct report_info *info)
{
        kv_free(&info->model);
        kv_free(&info->os);
        free(info->install_key);
        free(info->install_key_note);
        for (size_t i = 0; i < info->n_symptoms; i++) {
                free(info->symptoms[i].device);
                free(info->symptoms[i].text);
        }
        free(info->symptoms);
        *info = (struct report_info) {};
}
