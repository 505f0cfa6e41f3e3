/* tests/powersource-unit.c: the power-source decision with a made-up sysfs
 * in a temporary directory, the waits between looks driven by a script of
 * changes (no sleeping, no timing): debounce, a lagging battery status */
#include "config.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "root/powersource.h"
#include "tap.h"
#include "base/util.h"

static char *sys;

static void put(const char *supply, const char *attr, const char *value)
{
        _cleanup_free_ char *dir = xasprintf("%s/class/power_supply/%s", sys, supply);
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, attr);
        _cleanup_free_ char *mk = xasprintf("mkdir -p '%s'", dir);
        FILE *f;

        if (system(mk) != 0)
                abort();
        f = fopen(path, "w");
        if (!f)
                abort();
        fprintf(f, "%s\n", value);
        fclose(f);
}

/* what changes at each wait: the Nth wait sets supply/attr to value */
struct change {
        unsigned at;
        const char *supply, *attr, *value;
};
struct script {
        const struct change *v;
        size_t n;
        unsigned waits, waited_ms;
};

static void wait_cb(unsigned ms, void *userdata)
{
        struct script *s = userdata;

        s->waits++;
        s->waited_ms += ms;
        for (size_t i = 0; i < s->n; i++)
                if (s->v[i].at == s->waits)
                        put(s->v[i].supply, s->v[i].attr, s->v[i].value);
}

static void laptop(const char *online, const char *status)
{
        _cleanup_free_ char *rm = xasprintf("rm -rf '%s/class'", sys);
        if (system(rm) != 0)
                abort();
        put("AC", "type", "Mains");
        put("AC", "online", online);
        put("BAT0", "type", "Battery");
        put("BAT0", "status", status);
}

static enum power_source decide(const struct change *v, size_t n_changes, struct script *s, char **why)
{
        struct ps_look l = {};
        enum power_source src;
        unsigned looks = 0;

        *s = (struct script) { .v = v, .n = n_changes };
        if (ps_decide(sys, &ps_timing_default, wait_cb, s, &l, &looks) < 0)
                abort();
        free(*why);
        *why = xstrdup(l.why);
        src = l.source;
        ps_look_done(&l);
        return src;
}

int main(void)
{
        char tmpl[] = "/tmp/idlecfg-ps.XXXXXX";
        _cleanup_free_ char *why = NULL;
        struct script s;
        enum power_source src;

        sys = mkdtemp(tmpl);
        if (!sys)
                return 99;

        /* steady states: two looks, one wait */
        laptop("1", "Charging");
        src = decide(NULL, 0, &s, &why);
        ok(src == PS_AC && s.waits == 1, "plugged in, steady: AC after one wait (%u)", s.waits);
        laptop("0", "Discharging");
        src = decide(NULL, 0, &s, &why);
        ok(src == PS_BATTERY && s.waits == 1, "unplugged, steady: battery after one wait (%u, %s)", s.waits, why);

        /* plugged in: online bounces 1 -> 0 -> 1 for ~150 ms (a Framework's
         * ucsi supply): the event's first look sees 1, the second 0, then 1 */
        {
                static const struct change bounce[] = {
                        { 1, "AC", "online", "0" }, { 1, "BAT0", "status", "Discharging" },
                        { 2, "AC", "online", "1" }, { 2, "BAT0", "status", "Charging" },
                };
                laptop("1", "Charging");
                src = decide(bounce, ELEMENTSOF(bounce), &s, &why);
                ok(src == PS_AC && s.waits >= 3, "online bouncing after the plug does not latch battery: AC after %u "
                   "waits", s.waits);
        }
        /* unplugged, but the battery says Charging for another second */
        {
                static const struct change lag[] = { { 5, "BAT0", "status", "Discharging" } };
                laptop("0", "Charging");
                src = decide(lag, ELEMENTSOF(lag), &s, &why);
                ok(src == PS_BATTERY && s.waits == 6,
                   "a battery status that lags the unplug is read again until it discharges: battery after %u waits",
                   s.waits);
        }
        /* ... and one that never discharges (no AC device online, battery full): AC after 1.5 s */
        laptop("0", "Full");
        src = decide(NULL, 0, &s, &why);
        ok(src == PS_AC && s.waited_ms >= ps_timing_default.lag_ms && s.waited_ms <= ps_timing_default.max_ms,
           "a battery that never discharges: AC after %u ms (%s)", s.waited_ms, why);
        /* a supply that keeps flapping: the decision ends within max_ms all the same */
        {
                static const struct change flap[] = {
                        { 1, "AC", "online", "0" }, { 2, "AC", "online", "1" }, { 3, "AC", "online", "0" },
                        { 4, "AC", "online", "1" }, { 5, "AC", "online", "0" }, { 6, "AC", "online", "1" },
                        { 7, "AC", "online", "0" }, { 8, "AC", "online", "1" }, { 9, "AC", "online", "0" },
                        { 10, "AC", "online", "1" }, { 11, "AC", "online", "0" }, { 12, "AC", "online", "1" },
                        { 13, "AC", "online", "0" }, { 14, "AC", "online", "1" }, { 15, "AC", "online", "0" },
                        { 16, "AC", "online", "1" },
                };
                laptop("1", "Discharging");
                decide(flap, ELEMENTSOF(flap), &s, &why);
                ok(s.waited_ms <= ps_timing_default.max_ms, "a supply that never settles: decided within %u ms "
                   "(%u)", ps_timing_default.max_ms, s.waited_ms);
        }
        {
                _cleanup_free_ char *rm = xasprintf("rm -rf '%s'", sys);
                if (system(rm) != 0)
                        return 99;
        }
        printf("1..%d\n", n);
        return failed ? 1 : 0;
}
