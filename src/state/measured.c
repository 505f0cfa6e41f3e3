/* measured.c: the record of apply --measure's per-setting results
 * (measured.h), in the line format of state/records.h */
#include "config.h"

#include <stdlib.h>

#include "state/measured.h"
#include "state/records.h"

#define MEASURED_MAX (256u << 10)

static const struct records_format measured_records = {
        .magic = "idlecfg-measured",
        .max_fields = 8,
        .max_value = 4096,
        .not_ours = N_("%s:%u: not a record of apply --measure (no \"idlecfg-measured 1\" line)"),
        .unknown_format = N_("%s:%u: measurement record format %s is not known to this version of idlecfg"),
        .empty = N_("%s: empty, not a record of apply --measure"),
        .no_end = N_("%s: no end record: the file was cut short (lines are missing)"),
};

static char *dup_or_null(const char *s)
{
        return s && *s ? xstrdup(s) : NULL;
}

struct measured_setting *measured_add(struct measured *m, const char *knob, const char *device,
                                      const char *value_before, const char *value_after, enum measured_kind kind)
{
        m->v = xrealloc(m->v, (m->n + 1) * sizeof(*m->v));
        m->v[m->n] = (struct measured_setting) { .knob = xstrdup(knob), .device = dup_or_null(device),
                                                 .value_before = dup_or_null(value_before),
                                                 .value_after = dup_or_null(value_after), .kind = kind };
        return &m->v[m->n++];
}

void measured_done(struct measured *m)
{
        for (size_t i = 0; i < m->n; i++) {
                free(m->v[i].knob);
                free(m->v[i].device);
                free(m->v[i].value_before);
                free(m->v[i].value_after);
        }
        free(m->v);
        free(m->kernel);
        free(m->fingerprint);
        free(m->profile);
        free(m->state);
        free(m->watts_from);
        *m = (struct measured) {};
}

/* a number as written here: an optional '-', then digits */
static bool parse_ll(const char *s, long long *ret)
{
        unsigned v;

        if (*s == '-' && records_parse_u32(s + 1, &v)) {
                *ret = -(long long) v;
                return true;
        }
        if (!records_parse_u32(s, &v))
                return false;
        *ret = v;
        return true;
}

struct load_ctx {
        const struct rootfs *rfs;
        struct measured *m;
        bool have_header;
};

/* a setting line: false when malformed */
static bool setting_line(struct measured *m, char **v, size_t n)
{
        enum measured_kind kind;
        long long b = 0, a = 0;

        if (n < 6 || !*v[1])
                return false;
        if (streq(v[5], "runtime_suspended_time") && n == 8 && parse_ll(v[6], &b) && parse_ll(v[7], &a) &&
            b >= 0 && b <= 100000 && a >= 0 && a <= 100000)
                kind = MEASURED_DEVICE;
        else if (streq(v[5], "machine_wide") && n == 6)
                kind = MEASURED_MACHINE;
        else if (streq(v[5], "not_measurable") && n == 6)
                kind = MEASURED_NONE;
        else
                return false;
        struct measured_setting *s = measured_add(m, v[1], v[2], v[3], v[4], kind);
        s->before_milli = b;
        s->after_milli = a;
        return true;
}

static int load_line(void *userdata, const struct record *r, struct xerror *e)
{
        struct load_ctx *x = userdata;
        struct measured *m = x->m;
        char **v = r->v;

        if (streq(v[0], "measured")) {
                if (x->have_header || r->n != 5 || !parse_ll(v[1], &m->time) || m->time < 0 || !*v[2])
                        return xerror_set(e, -EINVAL, _("%s:%u: expected \"measured TIME KERNEL FINGERPRINT "
                                                        "PROFILE\" once"), r->name, r->lineno);
                x->have_header = true;
                m->kernel = xstrdup(v[2]);
                m->fingerprint = dup_or_null(v[3]);
                m->profile = dup_or_null(v[4]);
                return 0;
        }
        if (streq(v[0], "residency") && (r->n == 1 || (r->n == 4 && *v[1] && parse_ll(v[2], &m->residency_before) &&
                                                      parse_ll(v[3], &m->residency_after)))) {
                m->have_residency = r->n == 4;
                m->state = r->n == 4 ? xstrdup(v[1]) : NULL;
                return 0;
        }
        if (streq(v[0], "watts") && (r->n == 1 || (r->n == 4 && parse_ll(v[1], &m->mw_before) &&
                                                  parse_ll(v[2], &m->mw_after)))) {
                m->have_watts = r->n == 4;
                m->watts_from = r->n == 4 ? dup_or_null(v[3]) : NULL;
                return 0;
        }
        if (streq(v[0], "setting") && setting_line(m, v, r->n))
                return 0;
        /* one record the report cannot take: said, left out, the rest read */
        rootfs_warn(x->rfs, _("%s:%u: not a measured setting (expected \"setting KNOB DEVICE BEFORE AFTER "
                              "RESULT...\"): left out of the report"), r->name, r->lineno);
        m->skipped++;
        return 0;
}

int measured_load(const struct rootfs *rfs, struct measured *ret, struct xerror *ret_error)
{
        _cleanup_free_ char *text = NULL, *shown = rootfs_display(rfs, MEASURED_PATH);
        struct measured m = {};
        struct load_ctx x = { .rfs = rfs, .m = &m };
        size_t len = 0;
        unsigned format;
        bool cut;
        int r = rootfs_read(rfs, MEASURED_PATH, MEASURED_MAX, &text, &len, NULL);

        *ret = (struct measured) {};
        if (r == -ENOENT || r == -ENOTDIR)
                return -ENOENT;
        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, MEASURED_PATH, r, MEASURED_MAX);
                return xerror_set(ret_error, r, _("cannot read %s: %s"), shown, why);
        }
        r = records_parse(&measured_records, shown, text, len, load_line, &x, &format, &cut, ret_error);
        if (r >= 0 && !x.have_header)
                r = xerror_set(ret_error, -EINVAL, _("%s: no \"measured TIME KERNEL FINGERPRINT PROFILE\" line"),
                               shown);
        if (r < 0) {
                measured_done(&m);
                return r;
        }
        *ret = m;
        return 0;
}

static void field(struct strbuf *sb, const char *s)
{
        _cleanup_free_ char *f = field_escape(s ? s : "");

        sb_appendf(sb, " %s", f);
}

int measured_save(const struct rootfs *rfs, const struct measured *m, struct xerror *ret_error)
{
        static const char *const kinds[] = { "runtime_suspended_time", "machine_wide", "not_measurable" };
        struct strbuf sb = {};
        int r;

        sb_appendf(&sb, "idlecfg-measured 1\nmeasured %lld", m->time);
        field(&sb, m->kernel);
        field(&sb, m->fingerprint);
        field(&sb, m->profile);
        sb_append(&sb, "\nresidency");
        if (m->have_residency) {
                field(&sb, m->state);
                sb_appendf(&sb, " %lld %lld", m->residency_before, m->residency_after);
        }
        sb_append(&sb, "\nwatts");
        if (m->have_watts) {
                sb_appendf(&sb, " %lld %lld", m->mw_before, m->mw_after);
                field(&sb, m->watts_from);
        }
        sb_append(&sb, "\n");
        for (size_t i = 0; i < m->n; i++) {
                const struct measured_setting *s = &m->v[i];
                sb_append(&sb, "setting");
                field(&sb, s->knob);
                field(&sb, s->device);
                field(&sb, s->value_before);
                field(&sb, s->value_after);
                sb_appendf(&sb, " %s", kinds[s->kind]);
                if (s->kind == MEASURED_DEVICE)
                        sb_appendf(&sb, " %lld %lld", s->before_milli, s->after_milli);
                sb_append(&sb, "\n");
        }
        r = records_write(rfs, MEASURED_PATH, sb_str(&sb), sb.len, ret_error);
        sb_free(&sb);
        return r;
}

int measured_remove(const struct rootfs *rfs)
{
        int r = rootfs_unlink(rfs, MEASURED_PATH);

        if (r < 0 && r != -ENOENT && r != -ENOTDIR)
                return r;
        r = rootfs_remove_temps(rfs, MEASURED_PATH);
        return r == -ENOENT || r == -ENOTDIR ? 0 : r;
}
