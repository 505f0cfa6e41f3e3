/* verb-detect.c: the detect verb and what it prints, the inventory as text and as JSON (the verb layer renders) */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "base/json.h"
#include "base/util.h"
#include "base/i18n.h"
#include "model/inventory.h"
#include "root/rootfs.h"
#include "cli/verb-detect.h"
#include "cli/run.h"
#include "cli/verbs.h"

/* ---- text ---- */

/* The text is wrapped on a terminal only (text_width(): 80 columns); in a
 * log or a pipe each list and note is one line, as grep reads it. */

/* key=value tokens, wrapped with a hanging indent */
static void print_tokens(FILE *f, int indent, const struct kvlist *l)
{
        int col = 0, width = text_width(f);

        for (size_t i = 0; i < l->n; i++) {
                _cleanup_free_ char *tok = NULL;
                const char *v = l->v[i].value;
                int len;

                if (!v)
                        tok = xasprintf("%s=%s", l->v[i].key, _("(unreadable)"));
                else if (!*v || strpbrk(v, " \t\"'"))
                        tok = xasprintf("%s=\"%s\"", l->v[i].key, v);
                else
                        tok = xasprintf("%s=%s", l->v[i].key, v);
                len = (int) strlen(tok);
                if (width && col > 0 && col + 1 + len > width) {
                        fputc('\n', f);
                        col = 0;
                }
                if (col == 0)
                        col = fprintf(f, "%*s%s", indent, "", tok);
                else
                        col += fprintf(f, " %s", tok);
        }
        if (col > 0)
                fputc('\n', f);
}

/* "note: ..." wrapped at word boundaries with a hanging indent */
static void print_note(FILE *f, int indent, const char *text)
{
        const char *label = _("note:");
        int width = text_width(f), col = fprintf(f, "%*s%s", indent, "", label);
        const char *p = text;

        while (*p) {
                size_t w = strcspn(p, " ");
                if (width && col + 1 + (int) w > width && col > indent + (int) strlen(label)) {
                        fputc('\n', f);
                        col = fprintf(f, "%*s", indent + (int) strlen(label) + 1, "") - 1;
                }
                col += fprintf(f, " %.*s", (int) w, p);
                p += w;
                p += strspn(p, " ");
        }
        fputc('\n', f);
}

static void print_device_text(FILE *f, const struct device *d, int indent)
{
        fprintf(f, "%*s%s", indent, "", d->name ? d->name : "?");
        if (!streq(d->class, "pci") && !streq(d->class, "usb") && !streq(d->class, "sata") &&
            !streq(d->class, "nvme") && !streq(d->class, "sound") && !streq(d->class, "drm") &&
            !streq(d->class, "i2c-adapter"))
                fprintf(f, " (%s)", d->class);
        if (d->driver)
                fprintf(f, "  [%s]", d->driver);
        fputc('\n', f);
        print_tokens(f, indent + 4, &d->ids);
        if (d->n_modules) {
                int col = fprintf(f, "%*s%s", indent + 4, "", _("modules:"));
                for (size_t i = 0; i < d->n_modules; i++)
                        col += fprintf(f, " %s (%s)", d->modules[i].name,
                                       mod_state_to_string(d->modules[i].state));
                fputc('\n', f);
        }
        print_tokens(f, indent + 4, &d->knobs);
        for (size_t i = 0; i < d->n_notes; i++)
                print_note(f, indent + 4, d->notes[i]);
        for (size_t i = 0; i < d->n_children; i++)
                print_device_text(f, &d->children[i], indent + 4);
}

/* "  key    value", the value wrapped at word boundaries below itself */
static void print_pair(FILE *f, const char *key, const char *value)
{
        int col, width = text_width(f);

        if (!value)
                return;
        col = fprintf(f, "  %-18s", key);
        for (const char *p = value; *p; p += strspn(p, " ")) {
                size_t w = strcspn(p, " ");
                if (width && col > 21 && col + 1 + (int) w > width)
                        col = fprintf(f, "\n%20s", "") - 1;
                col += fprintf(f, " %.*s", (int) w, p);
                p += w;
        }
        fputc('\n', f);
}

void inventory_print_text(const struct inventory *inv, FILE *f)
{
        const struct kvlist *p = &inv->platform;
        const struct storage *s = &inv->storage;

        fprintf(f, _("Fingerprint %s\n"), inv->fingerprint);
        fprintf(f, "\n%s\n", _("Platform"));
        print_pair(f, "vendor", kv_get(p, "sys_vendor"));
        print_pair(f, "product", kv_get(p, "product_name"));
        print_pair(f, "version", kv_get(p, "product_version"));
        print_pair(f, "family", kv_get(p, "product_family"));
        print_pair(f, "board", kv_get(p, "board_name"));
        if (kv_get(p, "bios_version")) {
                _cleanup_free_ char *b = xasprintf("%s %s (%s)", strempty(kv_get(p, "bios_vendor")),
                                                   kv_get(p, "bios_version"), strempty(kv_get(p, "bios_date")));
                print_pair(f, "bios", b);
        }
        if (kv_get(p, "chassis_type")) {
                _cleanup_free_ char *c = xasprintf("%s (%s)", kv_get(p, "chassis_type"),
                                                   kv_get(p, "chassis") ? kv_get(p, "chassis") : "?");
                print_pair(f, "chassis", c);
        }
        if (kv_get(p, "cpu_vendor")) {
                _cleanup_free_ char *c = xasprintf("%s family %s model %s", kv_get(p, "cpu_vendor"),
                                                   strempty(kv_get(p, "cpu_family")), strempty(kv_get(p, "cpu_model")));
                print_pair(f, "cpu", c);
        } else
                print_pair(f, "cpu", kv_get(p, "cpu_arch"));
        if (kv_get(p, "virtualization")) {
                _cleanup_free_ char *v = xasprintf("%s (%s)", kv_get(p, "virtualization"),
                                                   strempty(kv_get(p, "virtualization_source")));
                print_pair(f, "virtual", v);
        }
        print_pair(f, "mem_sleep", kv_get(p, "mem_sleep"));
        {
                _cleanup_free_ char *k = inv->kernel ? xasprintf("%s (%s)", inv->kernel, strempty(inv->kernel_reason))
                                                     : xstrdup(_("unknown"));
                print_pair(f, "kernel", k);
        }
        print_pair(f, "modules", inv->moddir);
        if (inv->moddir_note)
                print_note(f, 2, inv->moddir_note);

        fprintf(f, "\n%s\n", _("Storage"));
        {
                _cleanup_free_ char *r = NULL;
                if (s->root_device)
                        r = xasprintf("%s%s%s%s%s", s->root_device, s->root_fstype ? " " : "", strempty(s->root_fstype),
                                      s->root_uuid ? " UUID=" : "", strempty(s->root_uuid));
                print_pair(f, "root", r ? r : _("unknown"));
                print_pair(f, "root disk", s->root_disk);
                print_pair(f, "root in fstab", s->root_spec);
                if (s->root_note)
                        print_note(f, 2, s->root_note);
                for (size_t i = 0; i < s->n_swaps; i++) {
                        _cleanup_free_ char *w = xasprintf("%s -> %s (%s)", s->swaps[i].spec,
                                                           s->swaps[i].device ? s->swaps[i].device : _("not found"),
                                                           s->swaps[i].source);
                        print_pair(f, "swap", w);
                }
                if (!s->n_swaps)
                        print_pair(f, "swap", _("none"));
        }

        if (inv->modparams.n) {
                fprintf(f, "\n%s\n", _("Module parameters"));
                for (size_t i = 0; i < inv->modparams.n; i++)
                        fprintf(f, "  %s = %s\n", inv->modparams.v[i].key, strempty(inv->modparams.v[i].value));
        }
        if (inv->n_tools) {
                fprintf(f, "\n%s\n", _("Other power tools"));
                for (size_t i = 0; i < inv->n_tools; i++) {
                        const char *en = inv->tools[i].enabled ? _(" (enabled)") : "";
                        const char *cf = inv->tools[i].conflicts ? _(" (sets knobs idlecfg sets)") : _(" (no knob of idlecfg's)");
                        int w = fprintf(f, "  %-22s %s", inv->tools[i].name,
                                        inv->tools[i].path ? inv->tools[i].path : "");
                        /* the notes go on a line of their own where they would pass the width */
                        if (text_width(f) && w > 0 && (size_t) w + strlen(en) + strlen(cf) > (size_t) text_width(f))
                                fputs("\n   ", f);
                        fprintf(f, "%s%s\n", en, cf);
                }
        }
        for (size_t c = 0; c < _CL_MAX; c++) {
                const struct device_list *l = &inv->classes[c];
                if (!l->n)
                        continue;
                fprintf(f, "\n%s (%zu)\n", _(class_titles[c]), l->n);
                for (size_t i = 0; i < l->n; i++)
                        print_device_text(f, &l->v[i], 2);
        }
        if (inv->n_notes) {
                fputc('\n', f);
                for (size_t i = 0; i < inv->n_notes; i++)
                        print_note(f, 0, inv->notes[i]);
        }
}

/* ---- JSON (schema in idlecfg(8), "JSON OUTPUT"; keep it stable) ---- */

static void json_kvlist(struct json *j, const char *key, const struct kvlist *l)
{
        json_key(j, key);
        json_begin_object(j);
        for (size_t i = 0; i < l->n; i++)
                json_kv_string(j, l->v[i].key, l->v[i].value);
        json_end_object(j);
}

static void json_notes(struct json *j, char **notes, size_t n)
{
        json_key(j, "notes");
        json_begin_array(j);
        for (size_t i = 0; i < n; i++)
                json_string(j, notes[i]);
        json_end_array(j);
}

static void print_device_json(struct json *j, const struct device *d)
{
        json_begin_object(j);
        json_kv_string(j, "class", d->class);
        json_kv_string(j, "name", d->name);
        json_kv_string(j, "devpath", d->devpath);
        json_kv_string(j, "driver", d->driver);
        json_kv_string(j, "modalias", d->modalias);
        json_kvlist(j, "ids", &d->ids);
        json_kvlist(j, "knobs", &d->knobs);
        json_key(j, "modules");
        json_begin_array(j);
        for (size_t i = 0; i < d->n_modules; i++) {
                json_begin_object(j);
                json_kv_string(j, "name", d->modules[i].name);
                json_kv_string(j, "state", mod_state_to_string(d->modules[i].state));
                json_end_object(j);
        }
        json_end_array(j);
        json_notes(j, d->notes, d->n_notes);
        json_key(j, "children");
        json_begin_array(j);
        for (size_t i = 0; i < d->n_children; i++)
                print_device_json(j, &d->children[i]);
        json_end_array(j);
        json_end_object(j);
}

void inventory_print_json(const struct inventory *inv, FILE *f)
{
        const struct storage *s = &inv->storage;
        struct json j;

        json_init(&j, f);
        json_begin_object(&j);
        json_kv_int(&j, "schema", 1);
        json_kv_string(&j, "version", PACKAGE_VERSION);
        json_kv_string(&j, "fingerprint", inv->fingerprint);
        json_kv_string(&j, "root", inv->rfs->path);
        json_key(&j, "kernel");
        json_begin_object(&j);
        json_kv_string(&j, "release", inv->kernel);
        json_kv_string(&j, "source", inv->kernel_source);
        json_kv_string(&j, "reason", inv->kernel_reason);
        json_kv_string(&j, "module_dir", inv->moddir);
        json_kv_string(&j, "note", inv->moddir_note);
        json_end_object(&j);
        json_kvlist(&j, "platform", &inv->platform);
        json_kvlist(&j, "module_parameters", &inv->modparams);
        json_key(&j, "power_tools");
        json_begin_array(&j);
        for (size_t i = 0; i < inv->n_tools; i++) {
                json_begin_object(&j);
                json_kv_string(&j, "name", inv->tools[i].name);
                json_kv_string(&j, "path", inv->tools[i].path);
                json_kv_bool(&j, "enabled", inv->tools[i].enabled);
                json_kv_bool(&j, "conflicts", inv->tools[i].conflicts);
                json_end_object(&j);
        }
        json_end_array(&j);
        json_key(&j, "storage");
        json_begin_object(&j);
        json_key(&j, "root");
        json_begin_object(&j);
        json_kv_string(&j, "fstab_spec", s->root_spec);
        json_kv_string(&j, "source", s->root_source);
        json_kv_string(&j, "device", s->root_device);
        json_kv_string(&j, "fstype", s->root_fstype);
        json_kv_string(&j, "uuid", s->root_uuid);
        json_kv_string(&j, "disk", s->root_disk);
        json_kv_string(&j, "disk_devpath", s->root_disk_devpath);
        json_kv_string(&j, "note", s->root_note);
        json_end_object(&j);
        json_key(&j, "swap");
        json_begin_array(&j);
        for (size_t i = 0; i < s->n_swaps; i++) {
                json_begin_object(&j);
                json_kv_string(&j, "spec", s->swaps[i].spec);
                json_kv_string(&j, "device", s->swaps[i].device);
                json_kv_string(&j, "uuid", s->swaps[i].uuid);
                json_kv_string(&j, "source", s->swaps[i].source);
                json_end_object(&j);
        }
        json_end_array(&j);
        json_end_object(&j);
        json_key(&j, "devices");
        json_begin_object(&j);
        for (size_t c = 0; c < _CL_MAX; c++) {
                json_key(&j, class_names[c]);
                json_begin_array(&j);
                for (size_t i = 0; i < inv->classes[c].n; i++)
                        print_device_json(&j, &inv->classes[c].v[i]);
                json_end_array(&j);
        }
        json_end_object(&j);
        json_notes(&j, inv->notes, inv->n_notes);
        json_end_object(&j);
        json_finish(&j);
}

/* ---- the verb (idlecfg.c's table runs it) ---- */

static int do_detect(struct run *c, int argc, char **argv)
{
        struct xerror e = {};

        /* the modules of every device are shown: resolve them all (libkmod) */
        if (inventory_resolve_modules(c->inv, &e) < 0) {
                print_error(NULL, &e, NULL);
                xerror_done(&e);
                return EXIT_FAILURE_;
        }
        if (c->a->json)
                inventory_print_json(c->inv, stdout);
        else
                inventory_print_text(c->inv, stdout);
        return flush_stdout();
}

const struct verb verb_detect = {
        .name = "detect", .min_args = 0, .max_args = 0, .needs = VERB_INVENTORY,
        .run = do_detect,
        .help = N_("Show the hardware, its power knobs and the fingerprint"),
        .options = O_KERNEL | O_JSON,
};
