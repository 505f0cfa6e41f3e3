/* plan.c: the plan as data (settings, skips and warnings, each with its reason); cli/verb-plan.c prints it */
#include "config.h"

#include <stdarg.h>

#include "base/json.h"
#include "model/plan.h"
#include "base/util.h"

static const char *const mechanism_names[_MECH_MAX] = {
        [MECH_UDEV] = "udev",
        [MECH_MODPROBE] = "modprobe",
        [MECH_TMPFILES] = "tmpfiles",
        [MECH_CMDLINE] = "cmdline",
        [MECH_SYSCTL] = "sysctl",
        [MECH_NM] = "networkmanager",
        [MECH_LINK] = "link",
        [MECH_NONE] = "none",
};

const char *mechanism_to_string(enum mechanism m)
{
        if ((unsigned) m >= _MECH_MAX)
                return "unknown";
        return mechanism_names[m];
}

/* the plan's arrays carry no capacity: they grow whenever the count reaches a power of two */
static size_t grown(size_t n)
{
        if (n == 0)
                return 8;
        if (n >= 8 && (n & (n - 1)) == 0)
                return 2 * n;
        return 0;
}

struct setting *plan_add(struct plan *p)
{
        size_t cap = grown(p->n);
        struct setting *s;

        if (cap)
                p->v = xrealloc(p->v, cap * sizeof(*p->v));
        s = &p->v[p->n++];
        *s = (struct setting) { .mech = MECH_NONE };
        return s;
}

void setting_make_skip(struct setting *s, char *reason_take)
{
        free(s->reason);
        s->reason = reason_take;
        free(s->value);
        free(s->value_battery);
        free(s->attr);
        free(s->module);
        free(s->param);
        s->value = s->value_battery = s->attr = s->module = s->param = NULL;
        kv_free(&s->match);
        s->mech = MECH_NONE;
}

size_t plan_udev_devices(const struct plan *p, char ***ret)
{
        char **v = NULL;
        size_t n = 0;

        for (size_t i = 0; p && i < p->n; i++) {
                bool seen = false;

                if (p->v[i].mech != MECH_UDEV || !p->v[i].value || !p->v[i].device)
                        continue;
                for (size_t j = 0; j < i && !seen; j++)
                        seen = p->v[j].mech == MECH_UDEV && p->v[j].value && streq_ptr(p->v[j].device, p->v[i].device);
                if (seen)
                        continue;
                v = xrealloc(v, (n + 2) * sizeof(char *));
                v[n++] = xasprintf("/sys%s", p->v[i].device);
                v[n] = NULL;
        }
        *ret = v;
        return n;
}

size_t plan_n_per_source(const struct plan *p)
{
        size_t n = 0;

        for (size_t i = 0; i < p->n; i++)
                n += p->v[i].value && p->v[i].value_battery;
        return n;
}

void plan_add_warning(struct plan *p, const char *fmt, ...)
{
        size_t cap = grown(p->n_warnings);
        va_list ap;

        if (cap)
                p->warnings = xrealloc(p->warnings, cap * sizeof(*p->warnings));
        va_start(ap, fmt);
        p->warnings[p->n_warnings++] = xvasprintf(fmt, ap);
        va_end(ap);
}

void plan_warn_once(struct plan *p, const char *fmt, ...)
{
        _cleanup_free_ char *w = NULL;
        va_list ap;

        va_start(ap, fmt);
        w = xvasprintf(fmt, ap);
        va_end(ap);
        for (size_t i = 0; i < p->n_warnings; i++)
                if (streq(p->warnings[i], w))
                        return;
        plan_add_warning(p, "%s", w);
}

static void setting_done(struct setting *s)
{
        free(s->knob);
        free(s->device);
        free(s->device_name);
        free(s->device_class);
        free(s->attr);
        free(s->module);
        free(s->param);
        free(s->value);
        free(s->value_battery);
        free(s->current);
        free(s->reason);
        kv_free(&s->match);
}

const char *plan_warning_code(const struct plan *p, const char *w)
{
        for (size_t i = 0; i < p->warning_codes.n; i++)
                if (streq(p->warning_codes.v[i].value, w))
                        return p->warning_codes.v[i].key;
        return "plan";
}

void plan_free(struct plan *p)
{
        if (!p)
                return;
        for (size_t i = 0; i < p->n_exclusions; i++) {
                struct plan_exclusion *x = &p->exclusions[i];
                free(x->device);
                free(x->where);
                free(x->reason);
                free(x->knobs);
                for (size_t k = 0; k < x->n_matched; k++)
                        free(x->matched[k]);
                free(x->matched);
        }
        free(p->exclusions);
        kv_free(&p->warning_codes);
        for (size_t i = 0; i < p->n; i++)
                setting_done(&p->v[i]);
        free(p->v);
        for (size_t i = 0; i < p->n_warnings; i++)
                free(p->warnings[i]);
        free(p->warnings);
        free(p->profile);
        free(p->profile_reason);
        free(p->fingerprint);
        free(p->kernel);
        free(p->kernel_source);
        free(p->boot_cmdline);
        free(p->kernel_reason);
        free(p->kernel_version);
        free(p->kernel_version_source);
        boot_info_done(&p->boot);
        free(p);
}
