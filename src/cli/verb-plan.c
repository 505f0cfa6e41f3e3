/* verb-plan.c: the plan verb and what it prints, the plan as text and as JSON (the verb layer renders) */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "base/json.h"
#include "base/util.h"
#include "base/i18n.h"
#include "model/plan.h"
#include "cli/verb-plan.h"
#include "cli/run.h"
#include "cli/verbs.h"
#include "pipeline/emit.h"

/* ---- printing ---- */

/* text wrapped at spaces on a terminal (text_width()), every line indented */
static void print_wrapped(FILE *f, int indent, const char *text)
{
        int col = 0, width = text_width(f);

        for (const char *p = text; *p; p += strspn(p, " ")) {
                size_t w = strcspn(p, " ");
                if (width && col > indent && col + 1 + (int) w > width) {
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
        /* a release that hides its upstream version: say which one the ranges compared */
        if (p->kernel && !streq_ptr(p->kernel_version, p->kernel)) {
                _cleanup_free_ char *k = p->kernel_version
                        ? xasprintf(_("Kernel version for _KERNEL ranges: %s (%s)"), p->kernel_version,
                                    p->kernel_version_source)
                        : xasprintf(_("Kernel version for _KERNEL ranges: %s"), p->kernel_version_source);
                print_wrapped(f, 0, k);
        }
        if (p->kernel && p->kernel_reason) {
                _cleanup_free_ char *k = xasprintf(_("Kernel %s: %s"), p->kernel, p->kernel_reason);
                print_wrapped(f, 0, k);
        }
        plan_print_boot_text(p, f);
        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                const char *where = s->attr ? s->attr : s->param;

                fprintf(f, "\n%s %s%s%s\n", s->knob, s->device_name ? s->device_name : _("(global)"),
                        where ? " " : "", where ? where : "");
                if (s->value && s->value_battery) {
                        /* "ac" and "battery" are the names power-source, the profile and the JSON use */
                        fprintf(f, "    %s ac %s, battery %s  (%s %s, %s)\n", _("set"), s->value, s->value_battery,
                                _("now"), s->current ? s->current : "?", mechanism_to_string(s->mech));
                        planned++;
                        per[s->mech]++;
                } else if (s->value) {
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
        fprintf(f, _("\n%zu settings (udev %zu, modprobe %zu, tmpfiles %zu, command line %zu, sysctl %zu), "
                     "%zu skipped\n"),
                planned, per[MECH_UDEV], per[MECH_MODPROBE], per[MECH_TMPFILES], per[MECH_CMDLINE], per[MECH_SYSCTL],
                skipped);
}

void plan_print_boot_text(const struct plan *p, FILE *f)
{
        _cleanup_free_ char *b = xasprintf(_("Boot scheme %s: %s"), boot_scheme_to_string(p->boot.scheme),
                                           strempty(p->boot.reason));
        _cleanup_free_ char *i = xasprintf(_("Initramfs generator %s: %s"), initrd_generator_to_string(p->boot.initrd),
                                           strempty(p->boot.initrd_reason));
        print_wrapped(f, 0, b);
        print_wrapped(f, 0, i);
}

void plan_json_boot(struct json *j, const struct plan *p)
{
        json_key(j, "boot");
        json_begin_object(j);
        json_kv_string(j, "scheme", boot_scheme_to_string(p->boot.scheme));
        json_kv_string(j, "reason", p->boot.reason);
        json_kv_bool(j, "booted", p->boot.booted);
        json_kv_string(j, "initramfs", initrd_generator_to_string(p->boot.initrd));
        json_kv_string(j, "initramfs_reason", p->boot.initrd_reason);
        json_end_object(j);
}

void plan_json_identity(struct json *j, const struct plan *p)
{
        json_kv_string(j, "profile", p->profile);
        json_kv_string(j, "profile_reason", p->profile_reason);
        json_kv_string(j, "fingerprint", p->fingerprint);
        json_kv_string(j, "kernel", p->kernel);
        json_kv_string(j, "kernel_source", p->kernel_source);
        json_kv_string(j, "kernel_reason", p->kernel_reason);
}

/* "exclusions": idlecfg.conf's [exclude DEVICE] sections (only when there
 * are some), each with the devices it matched and its warning's code */
void plan_json_exclusions(struct json *j, const struct plan *p)
{
        json_key(j, "exclusions");
        json_begin_array(j);
        for (size_t i = 0; i < p->n_exclusions; i++) {
                const struct plan_exclusion *x = &p->exclusions[i];
                json_begin_object(j);
                json_kv_string(j, "device", x->device);
                json_kv_string(j, "where", x->where);
                json_kv_string(j, "reason", x->reason);
                json_kv_string(j, "knobs", x->knobs);
                json_key(j, "matched");
                json_begin_array(j);
                for (size_t k = 0; k < x->n_matched; k++)
                        json_string(j, x->matched[k]);
                json_end_array(j);
                json_kv_string(j, "warning", x->code);
                json_end_object(j);
        }
        json_end_array(j);
}

void plan_print_json(const struct plan *p, FILE *f)
{
        struct json j;

        json_init(&j, f);
        json_begin_object(&j);
        json_kv_int(&j, "schema", 1);
        json_kv_string(&j, "version", PACKAGE_VERSION);
        plan_json_identity(&j, p);
        json_kv_string(&j, "kernel_version", p->kernel_version);
        json_kv_string(&j, "kernel_version_source", p->kernel_version_source);
        plan_json_boot(&j, p);
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
                if (s->value_battery) {
                        /* per power source: "value" is the AC one, what the files hold */
                        json_key(&j, "per_source");
                        json_begin_object(&j);
                        json_kv_string(&j, "ac", s->value);
                        json_kv_string(&j, "battery", s->value_battery);
                        json_end_object(&j);
                }
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
        if (p->n_exclusions)
                plan_json_exclusions(&j, p);
        json_end_object(&j);
        json_finish(&j);
}

/* ---- the verb (idlecfg.c's table runs it) ---- */

static const struct { const char *name; enum emit_format fmt; } plan_formats[] = {
        { "udev", EMIT_UDEV }, { "modprobe", EMIT_MODPROBE },
        { "tmpfiles", EMIT_TMPFILES }, { "cmdline", EMIT_CMDLINE },
        { "sysctl", EMIT_SYSCTL },
        { "networkmanager", EMIT_NM }, { "link", EMIT_LINK },
};

static int check_plan(const struct args *a, int argc, char **argv)
{
        if (a->format && !streq(a->format, "text") && !streq(a->format, "json")) {
                bool known = false;
                for (size_t i = 0; i < ELEMENTSOF(plan_formats); i++)
                        known = known || streq(a->format, plan_formats[i].name);
                if (!known) {
                        fprintf(stderr, _("idlecfg: unknown --format '%s'; valid: text, json, udev, modprobe, "
                                          "tmpfiles, cmdline, sysctl, networkmanager, link\n"), a->format);
                        return EXIT_USAGE;
                }
        }
        return EXIT_OK;
}

static int do_plan(struct run *c, int argc, char **argv)
{
        const struct args *a = c->a;
        int r = EXIT_OK;

        if (a->json || streq_ptr(a->format, "json"))
                plan_print_json(c->plan, stdout);
        else if (!a->format || streq(a->format, "text"))
                plan_print_text(c->plan, stdout);
        else
                for (size_t i = 0; i < ELEMENTSOF(plan_formats); i++)
                        if (streq(a->format, plan_formats[i].name)) {
                                struct xerror ee = {};
                                if (emit_render(c->plan, plan_formats[i].fmt, stdout, &ee) < 0) {
                                        print_error(NULL, &ee, "?");
                                        xerror_done(&ee);
                                        r = EXIT_USAGE;
                                }
                        }
        if (r == EXIT_OK)
                r = flush_stdout();
        return r;
}

const struct verb verb_plan = {
        .name = "plan", .min_args = 0, .max_args = 0, .needs = VERB_PLAN,
        .check = check_plan, .run = do_plan,
        .help = N_("Show the settings for this machine and why"),
        .options = O_PLANNING | O_JSON | O_FORMAT,
};
