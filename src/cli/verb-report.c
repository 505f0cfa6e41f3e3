/* verb-report.c: idlecfg report: what this machine has, what idlecfg plans
 * on it and what was measured, as JSON or one self-contained HTML page, for
 * its owner to keep or send (nothing is sent by idlecfg); the privacy rules
 * are engine/report.c's */
#include "config.h"

#include <sys/stat.h>
#include <time.h>

#include "base/json.h"
#include "engine/report.h"
#include "cli/print-measure.h"
#include "cli/run.h"
#include "cli/verb-measure.h"
#include "cli/monitor.h"
#include "cli/verbs.h"
#include "state/measured.h"

struct report_doc {
        const struct run *c;
        const struct report_info *info;
        const struct measure_result *m;         /* NULL: not measured */
        const struct measure_floor *floor;      /* with m */
        const char *root;                       /* taken out of every string */
        const struct measured *rec;             /* what apply --measure kept per setting; NULL: none */
        const char *rec_note;                   /* rec NULL: why */
};

/* a string as a report may carry it (engine/report.c's rules) */
static char *scrub(const struct report_doc *d, const char *s)
{
        return report_scrub(d->root, s);
}

static void kv_scrubbed(struct json *j, const struct report_doc *d, const char *key, const char *v)
{
        _cleanup_free_ char *s = scrub(d, v);

        json_kv_string(j, key, s);
}

/* the device's power/runtime_status as detect read it, NULL if none */
static const char *runtime_status(const struct device *x)
{
        return kv_get(&x->knobs, "power/runtime_status");
}

/* a device's name, or NULL where the name itself carries a unit's identity
 * (a network interface named by its MAC address) */
static const char *device_name(const struct device *x)
{
        return report_value_private(x->name) ? NULL : x->name;
}

/* ---- JSON (schema in idlecfg(8), REPORT JSON) ---- */

static void json_device(struct json *j, const struct report_doc *d, const struct device *x)
{
        json_begin_object(j);
        json_kv_string(j, "class", x->class);
        json_kv_string(j, "name", device_name(x));
        json_kv_string(j, "driver", x->driver);
        json_key(j, "ids");
        json_begin_object(j);
        for (size_t i = 0; i < x->ids.n; i++)
                if (report_id_allowed(x->ids.v[i].key) && !report_value_private(x->ids.v[i].value))
                        kv_scrubbed(j, d, x->ids.v[i].key, x->ids.v[i].value);
        json_end_object(j);
        json_kv_string(j, "runtime_status", runtime_status(x));
        json_kv_string(j, "control", kv_get(&x->knobs, "power/control"));
        json_end_object(j);
}

static void json_devices(struct json *j, const struct report_doc *d)
{
        const struct inventory *inv = d->c->inv;

        json_key(j, "devices");
        json_begin_array(j);
        for (int cl = 0; cl < _CL_MAX; cl++)
                for (size_t i = 0; i < inv->classes[cl].n; i++)
                        json_device(j, d, &inv->classes[cl].v[i]);
        json_end_array(j);
}

static void json_settings(struct json *j, const struct report_doc *d)
{
        const struct plan *p = d->c->plan;

        json_key(j, "settings");
        json_begin_array(j);
        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                json_begin_object(j);
                json_kv_string(j, "knob", s->knob);
                json_kv_string(j, "device", report_value_private(s->device_name) ? NULL : s->device_name);
                json_kv_string(j, "device_class", s->device_class);
                json_kv_string(j, "mechanism", mechanism_to_string(s->mech));
                kv_scrubbed(j, d, "value", s->value);
                kv_scrubbed(j, d, "value_battery", s->value_battery);
                kv_scrubbed(j, d, "reason", s->reason);
                json_end_object(j);
        }
        json_end_array(j);
}

/* the floor of the measurement and what most likely holds it (print-measure.c's
 * words), with the names a report may carry */
static void json_report_floor(struct json *j, const struct report_doc *d)
{
        const struct measure_floor *f = d->floor;

        json_key(j, "floor");
        json_begin_object(j);
        json_kv_string(j, "source", floor_source_names[f->source]);
        json_kv_string(j, "deepest", f->deepest);
        json_kv_string(j, "deepest_from", f->deepest_from);
        json_kv_string(j, "reached", f->reached);
        json_kv_milli_or_null(j, "reached_percent", f->reached != NULL,
                              measure_share_milli(f->reached_us, d->m->interval_us));
        json_kv_bool(j, "above", f->above);
        json_kv_milli_or_null(j, "watts", f->have_watts, f->milliwatts);
        json_kv_int_or_null(j, "s0i3_us", d->m->susp.amd_s0ix_us.err == 0, (long long) d->m->susp.amd_s0ix_us.v);
        json_key(j, "holders");
        json_begin_array(j);
        for (size_t i = 0; i < f->n_holders; i++) {
                const struct measure_holder *h = &f->holders[i];
                _cleanup_free_ char *why = measure_holder_reason(d->m, h, false);
                json_begin_object(j);
                json_kv_int(j, "rank", (long long) i + 1);
                json_kv_string(j, "kind", holder_kind_names[h->kind]);
                json_kv_string(j, "device", report_value_private(h->m->d->name) ? NULL : h->m->d->name);
                json_kv_string(j, "subsystem", h->m->d->subsystem);
                json_kv_string(j, "knob", h->kind == HOLD_KNOB_OFF ? h->m->knob : NULL);
                kv_scrubbed(j, d, "reason", why);
                json_end_object(j);
        }
        json_end_array(j);
        json_end_object(j);
}

static void json_measurement(struct json *j, const struct report_doc *d)
{
        const struct measure_result *m = d->m;

        json_key(j, "measurement");
        if (!m) {
                json_null(j);
                return;
        }
        json_begin_object(j);
        json_kv_milli(j, "seconds", (long long) (m->interval_us / 1000));
        json_key(j, "devices");
        json_begin_array(j);
        for (size_t i = 0; i < m->n_devs; i++) {
                const struct measure_dev *x = &m->devs[i];
                json_begin_object(j);
                json_kv_string(j, "name", report_value_private(x->d->name) ? NULL : x->d->name);
                json_kv_string(j, "subsystem", x->d->subsystem);
                json_kv_string(j, "driver", x->d->driver);
                json_kv_int_or_null(j, "suspended_ms", x->have_times, (long long) x->suspended_ms);
                json_kv_int_or_null(j, "active_ms", x->have_times, (long long) x->active_ms);
                json_kv_string(j, "why_awake", x->awake ? awake_why_names[x->why] : NULL);
                json_end_object(j);
        }
        json_end_array(j);
        json_key(j, "residency_us");
        json_begin_object(j);
        for (int i = 0; i < _M_RES_MAX; i++)
                json_kv_int_or_null(j, measure_residency_names[i], m->residency[i].err >= 0,
                                    (long long) m->residency[i].v);
        json_end_object(j);
        json_key(j, "energy");
        json_begin_array(j);
        for (size_t i = 0; i < m->n_zones; i++) {
                const struct measure_zone *z = &m->zones[i];
                json_begin_object(j);
                json_kv_string(j, "zone", z->z->name);
                json_kv_milli_or_null(j, "watts", z->err == 0 && m->interval_us,
                                      m->interval_us ? (long long) ((double) z->delta_uj / (double) m->interval_us *
                                                                    1000.0 + 0.5) : 0);
                json_end_object(j);
        }
        for (size_t i = 0; i < m->n_bats; i++) {
                const struct measure_battery *b = &m->bats[i];
                json_begin_object(j);
                json_kv_string(j, "battery", b->b->name);
                json_kv_milli_or_null(j, "watts", b->b->power_uw.err >= 0, (long long) (b->b->power_uw.v / 1000));
                json_end_object(j);
        }
        json_end_array(j);
        json_kv_string(j, "watts_note", m->n_zones || m->n_bats ? NULL :
                       "not measurable here: no RAPL zone and no battery");
        json_report_floor(j, d);
        json_end_object(j);
}

/* ---- what apply --measure found per setting (state/measured.h) ---- */

/* the record is of another kernel or other hardware than this report: said */
static const char *rec_other(const struct report_doc *d)
{
        const struct inventory *inv = d->c->inv;

        if (!streq_ptr(d->rec->kernel, inv->kernel))
                return "measured with another kernel than this report's: it may not hold for this one";
        if (!streq_ptr(d->rec->fingerprint, inv->fingerprint))
                return "measured on other hardware (another device fingerprint) than this report's: it may not "
                       "hold for this machine";
        return NULL;
}

static const char *rec_result(const struct measured_setting *s)
{
        if (s->kind == MEASURED_MACHINE)
                return "machine-wide";
        if (s->kind == MEASURED_NONE)
                return "not measurable here";
        return s->after_milli > s->before_milli ? "gained" : s->after_milli < s->before_milli ? "lost" : "no change";
}

static void rec_time(const struct measured *m, char out[32])
{
        time_t t = (time_t) m->time;
        struct tm tm;

        if (!gmtime_r(&t, &tm) || strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
                snprintf(out, 32, "%lld", m->time);
}

static void json_rec_setting(struct json *j, const struct report_doc *d, const struct measured_setting *s)
{
        bool dev = s->kind == MEASURED_DEVICE;

        json_begin_object(j);
        json_kv_string(j, "knob", s->knob);
        json_kv_string(j, "device", report_value_private(s->device) ? NULL : s->device);
        kv_scrubbed(j, d, "value_before", s->value_before);
        kv_scrubbed(j, d, "value_after", s->value_after);
        json_kv_string(j, "unit", dev ? "runtime_suspended_time" : NULL);
        json_kv_milli_or_null(j, "suspended_percent_before", dev, s->before_milli);
        json_kv_milli_or_null(j, "suspended_percent_after", dev, s->after_milli);
        json_kv_milli_or_null(j, "change_points", dev, s->after_milli - s->before_milli);
        json_kv_string(j, "result", rec_result(s));
        json_kv_string(j, "note", s->kind == MEASURED_MACHINE ? "the only setting that changed: the machine-wide "
                       "change is its own" : s->kind == MEASURED_NONE ? "not measurable here: no counter of its own, "
                       "and more than one setting changed" : NULL);
        json_end_object(j);
}

static void json_rec_machine(struct json *j, const struct report_doc *d)
{
        const struct measured *m = d->rec;
        const struct measured_setting *owner = NULL;

        for (size_t i = 0; i < m->n; i++)
                if (m->v[i].kind == MEASURED_MACHINE)
                        owner = &m->v[i];
        json_key(j, "machine");
        json_begin_object(j);
        kv_scrubbed(j, d, "state", m->state);
        json_kv_milli_or_null(j, "residency_percent_before", m->have_residency, m->residency_before);
        json_kv_milli_or_null(j, "residency_percent_after", m->have_residency, m->residency_after);
        json_kv_string(j, "residency_note", m->have_residency ? NULL : "not measurable here");
        json_kv_milli_or_null(j, "watts_before", m->have_watts, m->mw_before);
        json_kv_milli_or_null(j, "watts_after", m->have_watts, m->mw_after);
        kv_scrubbed(j, d, "watts_from", m->have_watts ? m->watts_from : NULL);
        json_kv_string(j, "watts_note", m->have_watts ? NULL : "not measurable here");
        json_kv_string(j, "attributed_to", owner ? owner->knob : NULL);
        json_kv_string(j, "note", owner ? NULL : m->n == 0 ? "no setting changed" :
                       "not measurable per setting here: more than one setting changed at once");
        json_end_object(j);
}

static void json_settings_measured(struct json *j, const struct report_doc *d)
{
        const struct measured *m = d->rec;
        char when[32];

        json_key(j, "settings_measured");
        json_begin_object(j);
        if (!m) {
                json_kv_string(j, "note", d->rec_note);
                json_end_object(j);
                return;
        }
        rec_time(m, when);
        json_kv_string(j, "note", rec_other(d));
        json_kv_string(j, "measured_at", when);
        json_kv_string(j, "kernel", m->kernel);
        json_kv_bool(j, "same_kernel", streq_ptr(m->kernel, d->c->inv->kernel));
        json_kv_bool(j, "same_hardware", streq_ptr(m->fingerprint, d->c->inv->fingerprint));
        json_kv_string(j, "profile", m->profile);
        json_kv_int(j, "left_out", (long long) m->skipped);
        json_key(j, "settings");
        json_begin_array(j);
        for (size_t i = 0; i < m->n; i++)
                json_rec_setting(j, d, &m->v[i]);
        json_end_array(j);
        json_rec_machine(j, d);
        json_end_object(j);
}

static void render_json(const struct report_doc *d, FILE *f)
{
        const struct report_info *info = d->info;
        const struct inventory *inv = d->c->inv;
        struct json j;

        json_init(&j, f);
        json_begin_object(&j);
        json_kv_string(&j, "schema", "idlecfg-report/1");
        json_kv_string(&j, "idlecfg", PACKAGE_VERSION);
        json_kv_string(&j, "install_key", info->install_key);
        json_kv_string(&j, "install_key_note", info->install_key_note);
        json_key(&j, "model");
        json_begin_object(&j);
        json_kv_string(&j, "key", info->model_key);
        for (size_t i = 0; i < info->model.n; i++)
                kv_scrubbed(&j, d, info->model.v[i].key, info->model.v[i].value);
        json_end_object(&j);
        json_key(&j, "kernel");
        json_begin_object(&j);
        json_kv_string(&j, "release", inv->kernel);
        json_kv_string(&j, "version", inv->kernel_version);
        json_end_object(&j);
        json_key(&j, "distribution");
        json_begin_object(&j);
        json_kv_string(&j, "id", kv_get(&info->os, "ID"));
        json_kv_string(&j, "version_id", kv_get(&info->os, "VERSION_ID"));
        json_kv_string(&j, "pretty_name", kv_get(&info->os, "PRETTY_NAME"));
        json_end_object(&j);
        json_kv_string(&j, "profile", d->c->plan->profile);
        json_devices(&j, d);
        json_settings(&j, d);
        json_key(&j, "symptoms");
        json_begin_array(&j);
        for (size_t i = 0; i < info->n_symptoms; i++) {
                json_begin_object(&j);
                json_kv_string(&j, "device", info->symptoms[i].device);
                kv_scrubbed(&j, d, "text", info->symptoms[i].text);
                json_end_object(&j);
        }
        json_end_array(&j);
        json_measurement(&j, d);
        json_settings_measured(&j, d);
        json_end_object(&j);
        json_finish(&j);
}

/* ---- HTML: one page, inline CSS and SVG, nothing loaded from anywhere ---- */

static void html_text(FILE *f, const char *s)
{
        for (; s && *s; s++)
                switch (*s) {
                case '&': fputs("&amp;", f); break;
                case '<': fputs("&lt;", f); break;
                case '>': fputs("&gt;", f); break;
                case '"': fputs("&quot;", f); break;
                case '\'': fputs("&#39;", f); break;
                default: fputc(*s, f);
                }
}

static void html_scrubbed(FILE *f, const struct report_doc *d, const char *s)
{
        _cleanup_free_ char *t = scrub(d, s);

        html_text(f, t);
}

/* one horizontal bar chart: N rows of LABEL with PARTS stacked values */
struct bar_row {
        const char *label;
        unsigned long long part[3];
};
static const char *const bar_colours[3] = { "#2e7d32", "#f9a825", "#9e9e9e" };

static void svg_bars(FILE *f, const char *title, const char *const legend[3], const struct bar_row *rows, size_t n)
{
        const unsigned width = 720, label_w = 220, bar_w = width - label_w - 20, row_h = 22, top = 48;
        unsigned height = top + (unsigned) n * row_h + 12;

        fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" role=\"img\" "
                   "aria-label=\"", width, height);
        html_text(f, title);
        fputs("\">\n<text x=\"0\" y=\"18\" font-size=\"15\" font-weight=\"bold\">", f);
        html_text(f, title);
        fputs("</text>\n", f);
        for (int k = 0, x = 0; k < 3; k++) {
                if (!legend[k])
                        continue;
                fprintf(f, "<rect x=\"%d\" y=\"28\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                           "<text x=\"%d\" y=\"39\" font-size=\"12\">", x, bar_colours[k], x + 16);
                html_text(f, legend[k]);
                fputs("</text>\n", f);
                x += 16 + 8 * (int) strlen(legend[k]) + 16;
        }
        for (size_t i = 0; i < n; i++) {
                unsigned long long total = rows[i].part[0] + rows[i].part[1] + rows[i].part[2];
                unsigned y = top + (unsigned) i * row_h;
                double x = label_w;
                fprintf(f, "<text x=\"0\" y=\"%u\" font-size=\"12\">", y + 14);
                html_text(f, rows[i].label);
                fputs("</text>\n", f);
                for (int k = 0; k < 3 && total; k++) {
                        double w = (double) bar_w * (double) rows[i].part[k] / (double) total;
                        if (w <= 0)
                                continue;
                        fprintf(f, "<rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"16\" fill=\"%s\">"
                                   "<title>%llu</title></rect>\n", x, y + 2, w, bar_colours[k], rows[i].part[k]);
                        x += w;
                }
        }
        fputs("</svg>\n", f);
}

/* devices by class: runtime-suspended, active, runtime PM unsupported (a
 * class whose devices show no runtime status is left out) */
static void html_device_chart(FILE *f, const struct report_doc *d)
{
        static const char *const legend[3] = { "suspended", "active", "runtime PM unsupported" };
        const struct inventory *inv = d->c->inv;
        struct bar_row rows[_CL_MAX];
        size_t n = 0;

        for (int cl = 0; cl < _CL_MAX; cl++) {
                struct bar_row r = { .label = class_titles[cl] };
                if (!inv->classes[cl].n)
                        continue;
                for (size_t i = 0; i < inv->classes[cl].n; i++) {
                        const char *st = runtime_status(&inv->classes[cl].v[i]);
                        if (st)
                                r.part[streq(st, "suspended") ? 0 : streq(st, "active") ? 1 : 2]++;
                }
                if (r.part[0] + r.part[1] + r.part[2])
                        rows[n++] = r;
        }
        svg_bars(f, "Devices by runtime power state when the report was made", legend, rows, n);
}

/* the measurement: each device's share of the time runtime-suspended */
static void html_measure_chart(FILE *f, const struct report_doc *d)
{
        static const char *const legend[3] = { "runtime-suspended", "active", NULL };
        const struct measure_result *m = d->m;
        struct bar_row *rows = xcalloc(m->n_devs ? m->n_devs : 1, sizeof(*rows));
        size_t n = 0;

        for (size_t i = 0; i < m->n_devs; i++) {
                const struct measure_dev *x = &m->devs[i];
                if (!x->have_times || report_value_private(x->d->name))
                        continue;
                rows[n++] = (struct bar_row) { .label = x->d->name, .part = { x->suspended_ms, x->active_ms } };
        }
        svg_bars(f, "Time each device spent runtime-suspended during the measurement", legend, rows, n);
        free(rows);
}

/* a row of K and V; V scrubbed unless it is a key the report made itself */
static void html_row_as(FILE *f, const struct report_doc *d, const char *k, const char *v, bool scrubbed)
{
        fputs("<tr><th>", f);
        html_text(f, k);
        fputs("</th><td>", f);
        if (scrubbed)
                html_scrubbed(f, d, v ? v : "\xe2\x80\x94");
        else
                html_text(f, v);
        fputs("</td></tr>\n", f);
}

static void html_row(FILE *f, const struct report_doc *d, const char *k, const char *v)
{
        html_row_as(f, d, k, v, true);
}

/* the floor: the deepest package C-state reached, and the ranked holders */
static void html_floor(FILE *f, const struct report_doc *d)
{
        const struct measure_floor *fl = d->floor;
        char buf[64];

        fputs("<h2>Package idle floor</h2>\n<table>\n", f);
        html_row_as(f, d, "counter", floor_source_names[fl->source], false);
        html_row_as(f, d, "deepest offered", fl->deepest ? fl->deepest : "not measurable here", false);
        if (fl->reached)
                snprintf(buf, sizeof(buf), "%s, %.1f%% of the time", fl->reached,
                         measure_pct(fl->reached_us, d->m->interval_us));
        else if (fl->source == FLOOR_LPIT)
                snprintf(buf, sizeof(buf), "above PC10 (LPIT cannot say which state)");
        else
                snprintf(buf, sizeof(buf), "%s", fl->above ? "none of them" : "not measurable here");
        html_row_as(f, d, "deepest reached", buf, false);
        if (fl->have_watts)
                snprintf(buf, sizeof(buf), "%.3f W", (double) fl->milliwatts / 1000.0);
        html_row_as(f, d, "watts", fl->have_watts ? buf : "not measurable here", false);
        fputs("</table>\n", f);
        if (!fl->n_holders)
                return;
        fputs("<p>Most likely holding it above the deepest state, ranked: a setting that would change it first, "
              "then links and latency tolerance, then devices in use.</p>\n<ol>\n", f);
        for (size_t i = 0; i < fl->n_holders; i++) {
                _cleanup_free_ char *why = measure_holder_reason(d->m, &fl->holders[i], false);
                fputs("<li>", f);
                html_text(f, report_value_private(fl->holders[i].m->d->name) ? "(a device)" :
                                                                                fl->holders[i].m->d->name);
                fputs(": ", f);
                html_scrubbed(f, d, why);
                fputs("</li>\n", f);
        }
        fputs("</ol>\n", f);
}

static void html_settings(FILE *f, const struct report_doc *d)
{
        const struct plan *p = d->c->plan;

        fputs("<h2>Settings</h2>\n<table>\n<tr><th>knob</th><th>device</th><th>value</th><th>how</th>"
              "<th>why</th></tr>\n", f);
        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                fputs("<tr><td>", f);
                html_text(f, s->knob);
                fputs("</td><td>", f);
                html_text(f, report_value_private(s->device_name) ? "" : setting_where_name(s));
                fputs("</td><td>", f);
                html_scrubbed(f, d, s->value ? s->value : "(skipped)");
                fputs("</td><td>", f);
                html_text(f, mechanism_to_string(s->mech));
                fputs("</td><td>", f);
                html_scrubbed(f, d, s->reason);
                fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
}

/* one row of the per-setting table: the setting, its values, what it gained or lost */
static void html_rec_row(FILE *f, const struct report_doc *d, const struct measured_setting *s, size_t n)
{
        _cleanup_free_ char *values = xasprintf("%s \xe2\x86\x92 %s", s->value_before ? s->value_before : "?",
                                                s->value_after ? s->value_after : "?");
        _cleanup_free_ char *what = NULL;

        if (s->kind == MEASURED_DEVICE) {
                long long dm = s->after_milli - s->before_milli;
                what = xasprintf("runtime-suspended %.1f%% \xe2\x86\x92 %.1f%% of the time: %s %.1f points",
                                 (double) s->before_milli / 1000.0, (double) s->after_milli / 1000.0,
                                 dm >= 0 ? "gained" : "lost", (double) (dm >= 0 ? dm : -dm) / 1000.0);
        } else if (s->kind == MEASURED_MACHINE)
                what = xstrdup("the machine-wide change below is its own (the only setting that changed)");
        else
                what = xasprintf("not measurable here: no counter of its own, and %zu settings changed at once", n);
        fputs("<tr><td>", f);
        html_text(f, s->knob);
        fputs("</td><td>", f);
        html_text(f, report_value_private(s->device) ? "" : s->device);
        fputs("</td><td>", f);
        html_scrubbed(f, d, values);
        fputs("</td><td>", f);
        html_text(f, what);
        fputs("</td></tr>\n", f);
}

static void html_settings_measured(FILE *f, const struct report_doc *d)
{
        const struct measured *m = d->rec;
        _cleanup_free_ char *machine = NULL, *res = NULL, *watts = NULL;
        const char *owner = NULL, *other;
        char when[32];

        fputs("<h2>Per setting, as apply --measure found it</h2>\n", f);
        if (!m) {
                fputs("<p>", f);
                html_text(f, d->rec_note);
                fputs("</p>\n", f);
                return;
        }
        rec_time(m, when);
        fputs("<p>Measured ", f);
        html_text(f, when);
        fputs(" with kernel ", f);
        html_scrubbed(f, d, m->kernel);
        fputs(", profile ", f);
        html_text(f, m->profile ? m->profile : "?");
        fputs(", in the units this machine gives.", f);
        other = rec_other(d);
        if (other) {
                fputs(" <strong>", f);
                html_text(f, other);
                fputs(".</strong>", f);
        }
        fputs("</p>\n<table>\n<tr><th>knob</th><th>device</th><th>value</th><th>gained or lost</th></tr>\n", f);
        for (size_t i = 0; i < m->n; i++) {
                html_rec_row(f, d, &m->v[i], m->n);
                if (m->v[i].kind == MEASURED_MACHINE)
                        owner = m->v[i].knob;
        }
        res = m->have_residency ? xasprintf("package %s %.1f%% \xe2\x86\x92 %.1f%% of the time", m->state,
                                            (double) m->residency_before / 1000.0,
                                            (double) m->residency_after / 1000.0)
                                : xstrdup("package residency not measurable here");
        watts = m->have_watts ? xasprintf("%.3f W \xe2\x86\x92 %.3f W (%s)", (double) m->mw_before / 1000.0,
                                          (double) m->mw_after / 1000.0, m->watts_from ? m->watts_from : "?")
                              : xstrdup("watts not measurable here");
        machine = owner ? xasprintf("%s, %s: all of it %s's, the only setting that changed", res, watts, owner)
                        : xasprintf("%s, %s: not measurable per setting here: %zu settings changed at once", res,
                                    watts, m->n);
        fputs("<tr><td colspan=\"3\">machine-wide</td><td>", f);
        html_scrubbed(f, d, machine);
        fputs("</td></tr>\n</table>\n", f);
        if (m->skipped)
                fprintf(f, "<p>%zu malformed line(s) of the record left out.</p>\n", m->skipped);
}

static void render_html(const struct report_doc *d, FILE *f)
{
        const struct report_info *info = d->info;
        const struct inventory *inv = d->c->inv;

        fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
              "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
              "style-src 'unsafe-inline'; img-src data:\">\n<title>idlecfg report</title>\n<style>\n"
              "body{font-family:sans-serif;margin:2em;max-width:60em}\n"
              "table{border-collapse:collapse;margin-bottom:1.5em}\n"
              "th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top;font-size:90%}\n"
              "</style></head><body>\n<h1>idlecfg report</h1>\n"
              "<p>What this machine has, what idlecfg plans on it and why, and what was measured. "
              "It names the model, never the unit: no serial number, UUID, MAC address, host name or "
              "user name. idlecfg sends it nowhere.</p>\n<table>\n", f);
        html_row_as(f, d, "model key", info->model_key, false);
        for (size_t i = 0; i < info->model.n; i++)
                html_row(f, d, info->model.v[i].key, info->model.v[i].value);
        html_row_as(f, d, "installation key", info->install_key ? info->install_key : info->install_key_note,
                    !info->install_key);
        html_row(f, d, "kernel", inv->kernel);
        html_row(f, d, "distribution", kv_get(&info->os, "PRETTY_NAME"));
        html_row(f, d, "profile", d->c->plan->profile);
        fputs("</table>\n", f);
        html_device_chart(f, d);
        if (d->m) {
                html_measure_chart(f, d);
                html_floor(f, d);
        } else
                fputs("<p>Not measured: <code>idlecfg report --seconds N</code> measures idle for N "
                      "seconds.</p>\n", f);
        if (info->n_symptoms) {
                fputs("<h2>Symptoms</h2>\n<table>\n", f);
                for (size_t i = 0; i < info->n_symptoms; i++)
                        html_row(f, d, info->symptoms[i].device, info->symptoms[i].text);
                fputs("</table>\n", f);
        }
        html_settings(f, d);
        html_settings_measured(f, d);
        fputs("</body></html>\n", f);
}

/* ---- the verb ---- */

static int check_report(const struct args *a, int argc, char **argv)
{
        (void) argc;
        (void) argv;
        if (a->format && !streq(a->format, "json") && !streq(a->format, "html")) {
                fprintf(stderr, _("idlecfg: unknown --format '%s' for report; valid: json, html\n"), a->format);
                return EXIT_USAGE;
        }
        if (a->show && !a->output) {
                fprintf(stderr, _("idlecfg: --show goes with --output FILE (without it the report is printed, "
                                  "not written)\n"));
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

static int do_report(struct run *c, int argc, char **argv)
{
        const struct args *a = c->a;
        struct report_info info = {};
        struct measure_taken mt = {};
        _cleanup_(measured_done) struct measured rec = {};
        struct xerror e = {};
        _cleanup_free_ char *text = NULL, *why = NULL;
        size_t len = 0;
        FILE *f;
        int r;

        (void) argc;
        (void) argv;
        r = report_info_make(c->inv, &c->rfs, a->symptoms, a->n_symptoms, &info, &e);
        if (r < 0)
        {
                report(r, &e, "report");
                return EXIT_USAGE;
        }
        if ((a->given & O_SECONDS) && measure_take(a->seconds, c->plan, c->inv, &mt) < 0) {
                report_info_done(&info);
                return EXIT_FAILURE_;
        }
        r = measured_load(&c->rfs, &rec, &e);
        if (r < 0 && r != -ENOENT) {
                fprintf(stderr, _("idlecfg: warning: %s; the report goes on without what apply --measure found per "
                                  "setting\n"), e.message ? e.message : strerror(-r));
                xerror_done(&e);
        }
        f = open_memstream(&text, &len);
        if (!f)
                abort();
        {
                struct report_doc d = { .c = c, .info = &info, .m = mt.r, .floor = &mt.floor, .root = a->root,
                                        .rec = r == 0 ? &rec : NULL,
                                        .rec_note = r == -ENOENT ? "not measured: idlecfg apply --measure N "
                                                    "keeps what each setting gained or lost for the report" :
                                                    "left out: the record of apply --measure cannot be read "
                                                    "(idlecfg said why when it made this report)" };
                if (streq_ptr(a->format, "html"))
                        render_html(&d, f);
                else
                        render_json(&d, f);
        }
        if (fclose(f) != 0)
                abort();
        measure_taken_done(&mt);
        report_info_done(&info);
        if (!a->output || a->show) {
                fputs(text, stdout);
                if (a->show)
                        fprintf(stderr, _("idlecfg: --show: %s not written\n"), a->output);
                return flush_stdout();
        }
        if (monitor_write_file(a->output, text, &why) < 0) {
                fprintf(stderr, _("idlecfg: cannot write %s: %s\n"), a->output, why);
                return EXIT_FAILURE_;
        }
        printf(_("Report written to %s. idlecfg sent nothing: attach the file where your distribution "
                 "asks for it, after reading it.\n"), a->output);
        return flush_stdout();
}

const struct verb verb_report = {
        .name = "report", .min_args = 0, .max_args = 0, .needs = VERB_PLAN,
        .check = check_report, .run = do_report,
        .help = N_("Show what this machine has, plans and measured, for its owner to send"),
        .options = O_PLANNING | O_FORMAT | O_OUTPUT | O_SHOW | O_SYMPTOM | O_SECONDS,
};
