/* verb-power.c: idlecfg power-source: the values of the current power source,
 * written when it changed (udev), at boot and after resume
 *
 * The decision is powersource.c's, the settings are the table install wrote
 * (pstable.c), and the writes are apply's (apply_run(): the journal line is
 * fsynced before each write, so rollback restores what the machine had before
 * idlecfg ever switched). */
#include "config.h"

#include "engine/apply.h"
#include "root/powersource.h"
#include "engine/pstable.h"
#include "cli/verb-apply.h"
#include "cli/verb-power.h"

bool power_source_mode_ok(const char *mode)
{
        return streq(mode, "event") || streq(mode, "boot") || streq(mode, "resume") || streq(mode, "show");
}

/* the sysfs root: /sys (umockdev redirects it in the tests) */
#define SYS "/sys"

int power_source_verb(const struct rootfs *rfs, const char *mode, bool dry_run, bool verbose)
{
        _cleanup_free_ char *buf = NULL, *shown = rootfs_display(rfs, PS_TABLE_PATH);
        struct ps_look look = {};
        struct ps_timing timing = ps_timing_default;
        const char *settle = secure_getenv("IDLECFG_TEST_SETTLE_MS");
        struct plan *table = NULL;
        struct apply_options o = { .dry_run = dry_run };
        struct apply_result res = {};
        struct xerror e = {};
        enum power_source last;
        bool battery, have_last;
        unsigned looks = 0;
        size_t len = 0;
        int r, code = 0;

        if (settle && *settle)
                /* the tests' debounce: a thousand switches in a few seconds */
                timing.settle_ms = (unsigned) strtoul(settle, NULL, 10);
        r = ps_decide(SYS, &timing, NULL, NULL, &look, &looks);
        if (r < 0) {
                fprintf(stderr, _("idlecfg: cannot read the power supplies: %s\n"), strerror(-r));
                return 3;
        }
        battery = look.source == PS_BATTERY;
        have_last = ps_last_read(rfs, &last) == 0;
        printf(_("Power source: %s (%s)\n"), power_source_name(look.source), look.why);
        if (verbose)
                printf(_("  decided after %u looks at the supplies\n"), looks);
        if (streq(mode, "show"))
                goto done;

        r = rootfs_read(rfs, PS_TABLE_PATH, PS_TABLE_MAX, &buf, &len, NULL);
        if (r == -ENOENT || r == -ENOTDIR) {
                printf(_("No setting takes another value on battery (%s is absent): nothing to switch.\n"), shown);
                goto done;
        }
        if (r < 0) {
                fprintf(stderr, _("idlecfg: cannot read %s: %s\n"), shown, strerror(-r));
                code = 3;
                goto done;
        }
        if (streq(mode, "event") && have_last && last == look.source) {
                /* the supplies bounced, or another event of the same change */
                printf(_("Unchanged since the last switch: nothing to do.\n"));
                goto done;
        }
        r = ps_table_parse(shown, buf, len, &table, &e);
        if (r < 0) {
                _cleanup_free_ char *m = xerror_format(&e);
                fprintf(stderr, "idlecfg: %s\n", m);
                xerror_done(&e);
                code = 2;
                goto done;
        }
        /* the values of this source, as apply writes a plan */
        for (size_t i = 0; i < table->n; i++) {
                struct setting *s = &table->v[i];
                if (battery) {
                        free(s->value);
                        s->value = TAKE_PTR(s->value_battery);
                } else {
                        free(s->value_battery);
                        s->value_battery = NULL;
                }
        }
        free(table->profile);
        table->profile = xasprintf("power-source-%s", power_source_name(look.source));
        /* the mark first: a device bound or a module loaded from now on takes
         * this source's value from the udev rules, one bound before it gets it
         * from the writes below */
        if (!dry_run) {
                r = ps_mark_write(rfs, look.source, &e);
                if (r < 0) {
                        _cleanup_free_ char *m = xerror_format(&e);
                        fprintf(stderr, "idlecfg: %s\n", m);
                        xerror_done(&e);
                        code = 3;
                        goto done;
                }
        }
        printf(dry_run ? _("Would write the %s values:\n") : _("Writing the %s values:\n"), power_source_name(look.source));
        r = apply_run(rfs, table, &o, &res, &e);
        apply_print(&res, dry_run, stdout);
        if (r < 0) {
                _cleanup_free_ char *m = xerror_format(&e);
                fprintf(stderr, _("idlecfg: power-source failed: %s\n"), m);
                xerror_done(&e);
                code = 3;
                goto done;
        }
        if (!dry_run) {
                r = ps_last_write(rfs, look.source, &e);
                if (r < 0) {
                        _cleanup_free_ char *m = xerror_format(&e);
                        fprintf(stderr, "idlecfg: %s\n", m);
                        xerror_done(&e);
                        code = 3;
                }
        } else if (r > 0)
                code = 1;
done:
        apply_result_free(&res);
        plan_free(table);
        ps_look_done(&look);
        return code;
}

void power_source_for_verify(struct plan *p, char **ret_text)
{
        struct ps_look look = {};

        *ret_text = NULL;
        if (plan_n_per_source(p) == 0)
                return;
        if (ps_look(SYS, &look) < 0) {
                *ret_text = xstrdup(_("Power source: unknown (the supplies cannot be read): the AC values "
                                      "apply\n"));
                return;
        }
        *ret_text = xasprintf(_("Power source assumed: %s (%s)\n"), power_source_name(look.source), look.why);
        if (look.source == PS_BATTERY)
                for (size_t i = 0; i < p->n; i++) {
                        struct setting *s = &p->v[i];
                        if (s->value && s->value_battery) {
                                char *ac = s->value;
                                s->value = s->value_battery;
                                s->value_battery = ac;
                        }
                }
        ps_look_done(&look);
}
