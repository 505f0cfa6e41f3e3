/* verb-power-source.c: idlecfg power-source: the values of the current power source,
 * written when it changed (udev), at boot and after resume
 *
 * The decision is powersource.c's, the settings are the table install wrote
 * (pstable.c), and the writes are apply's (apply_run(): the journal line is
 * fsynced before each write, so rollback restores what the machine had before
 * idlecfg ever switched). */
#include "config.h"

#include "engine/apply.h"
#include "base/json.h"
#include "db/profile-select.h"
#include "root/powersource.h"
#include "engine/pstable.h"
#include "cli/print-apply.h"
#include "cli/verb-power-source.h"
#include "cli/run.h"
#include "cli/verbs.h"

bool power_source_mode_ok(const char *mode)
{
        return streq(mode, "event") || streq(mode, "boot") || streq(mode, "resume") || streq(mode, "show") ||
               streq(mode, "ac") || streq(mode, "battery");
}

/* the sysfs root: /sys (umockdev redirects it in the tests) */
#define SYS "/sys"

static void say_error(struct xerror *e, const char *prefix)
{
        _cleanup_free_ char *m = xerror_format(e);

        fprintf(stderr, "idlecfg: %s%s\n", prefix, m);
        xerror_done(e);
}

/* the live value of table line S, NULL when it cannot be read */
static char *value_now(const struct setting *s)
{
        const char *why = NULL;
        _cleanup_free_ char *path = setting_live_path(s, &why), *raw = NULL;

        if (!path || read_raw(path, &raw) < 0)
                return NULL;
        return value_normalize(raw);
}

/* power-source show: the decision, the source in effect, and each setting
 * of the table with its two values and the one the machine has now */
static int show_table(const struct rootfs *rfs, const struct ps_look *look, unsigned looks, const char *pinned,
                      bool json)
{
        _cleanup_free_ char *buf = NULL, *shown = rootfs_display(rfs, PS_TABLE_PATH);
        struct plan *table = NULL;
        struct xerror e = {};
        enum power_source last;
        bool forced = false, have_last = ps_last_read(rfs, &last, &forced) == 0;
        const char *effect = have_last ? power_source_name(last) : "ac";
        size_t len = 0;
        struct json j;
        int r = rootfs_read(rfs, PS_TABLE_PATH, PS_TABLE_MAX, &buf, &len, NULL);

        if (r >= 0) {
                r = ps_table_parse(shown, buf, len, &table, &e);
                if (r < 0) {
                        say_error(&e, "");
                        return 2;
                }
        } else if (r != -ENOENT && r != -ENOTDIR) {
                fprintf(stderr, _("idlecfg: cannot read %s: %s\n"), shown, strerror(-r));
                return 3;
        }
        if (json) {
                json_init(&j, stdout);
                json_begin_object(&j);
                json_key(&j, "decision");
                json_begin_object(&j);
                json_kv_string(&j, "source", power_source_name(look->source));
                json_kv_string(&j, "why", look->why);
                json_end_object(&j);
                json_kv_string(&j, "pinned", pinned);
                /* what the last switch wrote; none since boot: the installed files' AC values */
                json_kv_string(&j, "in_effect", effect);
                json_kv_bool(&j, "switched_since_boot", have_last);
                json_kv_bool(&j, "forced", forced);
                json_kv_string(&j, "table", table ? shown : NULL);
                json_key(&j, "settings");
                json_begin_array(&j);
        } else {
                printf(_("Power source: %s (%s)\n"), power_source_name(look->source), look->why);
                if (looks > 0)
                        printf(_("  decided after %u looks at the supplies\n"), looks);
                if (have_last)
                        printf(forced ? _("In effect: the %s values, forced until the next event\n")
                                      : _("In effect: the %s values, since the last switch\n"), effect);
                else
                        printf(_("In effect: the ac values of the installed files (no switch since boot)\n"));
                if (!table)
                        printf(_("No setting takes another value on battery (%s is absent): nothing to switch.\n"),
                               shown);
                else
                        printf(_("Settings per source (%s):\n"), shown);
        }
        for (size_t i = 0; table && i < table->n; i++) {
                const struct setting *s = &table->v[i];
                _cleanup_free_ char *now = value_now(s);
                _cleanup_free_ char *ac = value_normalize(s->value), *bat = value_normalize(s->value_battery);
                const char *is = !now ? NULL : streq(now, bat) ? "battery" : streq(now, ac) ? "ac" : NULL;
                const char *where = s->attr ? s->attr : s->param;

                if (json) {
                        json_begin_object(&j);
                        setting_json_place(&j, s);
                        json_kv_string(&j, "mechanism", mechanism_to_string(s->mech));
                        json_kv_string(&j, "ac", s->value);
                        json_kv_string(&j, "battery", s->value_battery);
                        json_kv_string(&j, "now", now);
                        json_kv_string(&j, "now_is", is);
                        json_end_object(&j);
                } else
                        printf(_("  %s %s %s: ac %s, battery %s, now %s (%s)\n"), s->knob, setting_where_name(s),
                               where ? where : "-", s->value, s->value_battery, now ? now : "?",
                               is ? is : _("neither"));
        }
        if (json) {
                json_end_array(&j);
                json_end_object(&j);
                json_finish(&j);
        }
        plan_free(table);
        return 0;
}

/* [power] source of idlecfg.conf: 1 and *look filled when it pins one, 0
 * when not, <0 when the file is bad (*e says where) */
static int pinned_look(const struct rootfs *rfs, struct ps_look *look, char **ret_pin, char **ret_where,
                       struct xerror *e)
{
        int r = conf_power_source(rfs, ret_pin, ret_where, e);

        if (r < 0 || !*ret_pin)
                return r < 0 ? r : 0;
        look->source = streq(*ret_pin, "battery") ? PS_BATTERY : PS_AC;
        look->why = xasprintf(_("pinned by %s: [power] source = %s"), *ret_where, *ret_pin);
        return 1;
}

/* the switch's table made a plan of the values of SOURCE, as apply writes a
 * plan (on AC each setting keeps its battery value: apply_options'
 * battery_seen) */
static void table_for_source(struct plan *table, enum power_source source)
{
        for (size_t i = 0; i < table->n; i++) {
                struct setting *s = &table->v[i];
                if (source == PS_BATTERY) {
                        free(s->value);
                        s->value = TAKE_PTR(s->value_battery);
                }
        }
        free(table->profile);
        table->profile = xasprintf("power-source-%s", power_source_name(source));
}

/* the live files of TABLE there now, one a line */
static char *table_seen(const struct plan *table)
{
        struct strbuf sb = {};

        for (size_t i = 0; i < table->n; i++) {
                const char *why = NULL;
                _cleanup_free_ char *path = setting_live_path(&table->v[i], &why), *now = value_now(&table->v[i]);
                if (path && now)
                        sb_appendf(&sb, "%s\n", path);
        }
        return sb_steal(&sb);
}

/* The mark's text for a switch to SOURCE: the live files of the table at
 * the switch to battery. To AC: what a file not among them holds came from
 * the rules under the mark (O's battery_seen, the text returned). To
 * battery again: the files of the first switch, the others got their value
 * from the rules. NULL: none */
static char *mark_seen(const struct rootfs *rfs, const struct plan *table, enum power_source source,
                       struct apply_options *o)
{
        char *seen = NULL;
        bool marked = ps_mark_read(rfs, &seen) == 0;

        if (marked && source == PS_AC)
                o->battery_seen = seen;
        else if (!marked && source == PS_BATTERY)
                seen = table_seen(table);
        return seen;
}

int power_source_switch(const struct rootfs *rfs, const char *mode, bool dry_run, bool verbose, bool json)
{
        _cleanup_free_ char *buf = NULL, *shown = rootfs_display(rfs, PS_TABLE_PATH), *seen = NULL;
        _cleanup_free_ char *pin = NULL, *pin_where = NULL;
        struct ps_look look = {};
        struct ps_timing timing = ps_timing_default;
        const char *settle = secure_getenv("IDLECFG_TEST_SETTLE_MS");
        bool force = streq(mode, "ac") || streq(mode, "battery");
        struct plan *table = NULL;
        struct apply_options o = { .dry_run = dry_run };
        struct apply_result res = {};
        struct xerror e = {};
        enum power_source last;
        bool have_last, last_forced = false;
        unsigned looks = 0;
        size_t len = 0;
        int r, code = 0;

        if (settle && *settle)
                /* the tests' debounce: a thousand switches in a few seconds */
                timing.settle_ms = (unsigned) strtoul(settle, NULL, 10);
        r = pinned_look(rfs, &look, &pin, &pin_where, &e);
        if (r < 0) {
                say_error(&e, "");
                return 2;
        }
        if (force) {
                /* until the next event, as TLP's "tlp ac" and "tlp bat"; over a pin too */
                ps_look_done(&look);
                look.source = streq(mode, "battery") ? PS_BATTERY : PS_AC;
                look.why = xasprintf(_("forced by \"power-source %s\" until the next event"), mode);
        } else if (r == 0) {
                r = ps_decide(SYS, &timing, NULL, NULL, &look, &looks);
                if (r < 0) {
                        fprintf(stderr, _("idlecfg: cannot read the power supplies: %s\n"), strerror(-r));
                        return 3;
                }
        }
        if (streq(mode, "show")) {
                code = show_table(rfs, &look, verbose ? looks : 0, pin_where, json);
                ps_look_done(&look);
                return code;
        }
        have_last = ps_last_read(rfs, &last, &last_forced) == 0;
        r = rootfs_read(rfs, PS_TABLE_PATH, PS_TABLE_MAX, &buf, &len, NULL);
        if ((r == -ENOENT || r == -ENOTDIR) && force) {
                /* nothing is forced, and nothing recorded: no "until the next event" */
                printf(_("No per-source table (%s is absent): no setting takes another value on battery, "
                         "nothing to force and nothing recorded.\n"), shown);
                goto done;
        }
        printf(_("Power source: %s (%s)\n"), power_source_name(look.source), look.why);
        if (verbose && looks > 0)
                printf(_("  decided after %u looks at the supplies\n"), looks);
        if (r == -ENOENT || r == -ENOTDIR) {
                printf(_("No setting takes another value on battery (%s is absent): nothing to switch.\n"), shown);
                goto done;
        }
        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, PS_TABLE_PATH, r, PS_TABLE_MAX);
                fprintf(stderr, _("idlecfg: cannot read %s: %s\n"), shown, why);
                code = 3;
                goto done;
        }
        if (streq(mode, "event") && have_last && last == look.source) {
                /* the supplies bounced, or another event of the same change; a
                 * source forced before is now the decided one */
                printf(_("Unchanged since the last switch: nothing to do.\n"));
                if (last_forced && !dry_run && ps_last_write(rfs, look.source, false, &e) < 0) {
                        say_error(&e, "");
                        code = 3;
                }
                goto done;
        }
        r = ps_table_parse(shown, buf, len, &table, &e);
        if (r < 0) {
                say_error(&e, "");
                code = 2;
                goto done;
        }
        table_for_source(table, look.source);
        seen = mark_seen(rfs, table, look.source, &o);
        /* the mark first: a device bound or a module loaded from now on takes
         * this source's value from the udev rules, one bound before it gets it
         * from the writes below */
        if (!dry_run) {
                r = ps_mark_write(rfs, look.source, seen, &e);
                if (r < 0) {
                        say_error(&e, "");
                        code = 3;
                        goto done;
                }
        }
        printf(dry_run ? _("Would write the %s values:\n") : _("Writing the %s values:\n"), power_source_name(look.source));
        r = apply_run(rfs, table, &o, &res, &e);
        apply_print(&res, dry_run, stdout);
        if (r < 0) {
                say_error(&e, _("power-source failed: "));
                code = 3;
                goto done;
        }
        if (!dry_run) {
                r = ps_last_write(rfs, look.source, force, &e);
                if (r < 0) {
                        say_error(&e, "");
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

void power_source_for_verify(const struct rootfs *rfs, struct plan *p, char **ret_text)
{
        _cleanup_free_ char *pin = NULL, *pin_where = NULL;
        struct ps_look look = {};
        struct xerror e = {};
        enum power_source last;
        bool forced = false;
        int r;

        *ret_text = NULL;
        if (plan_n_per_source(p) == 0)
                return;
        /* the source in effect, as power-source decides it: forced by
         * "power-source ac|battery" until the next event, pinned by
         * idlecfg.conf, else the supplies */
        if (ps_last_read(rfs, &last, &forced) == 0 && forced) {
                look.source = last;
                look.why = xasprintf(_("forced by \"power-source %s\" until the next event"),
                                     power_source_name(last));
        } else if ((r = pinned_look(rfs, &look, &pin, &pin_where, &e)) < 0) {
                _cleanup_free_ char *m = xerror_format(&e);
                xerror_done(&e);
                *ret_text = xasprintf(_("Power source: unknown (%s): the AC values apply\n"), m);
                return;
        } else if (r == 0 && ps_look(SYS, &look) < 0) {
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

/* ---- the verb (idlecfg.c's table runs it) ---- */

/* show only reads: no lock, any user may run it */
static bool power_source_reads_only(int argc, char **argv)
{
        return argc > 0 && streq(argv[0], "show");
}

static int check_power_source(const struct args *a, int argc, char **argv)
{
        if (argc > 0 && !power_source_mode_ok(argv[0])) {
                fprintf(stderr, _("idlecfg: power-source takes event, boot, resume, show, ac or battery, not '%s'\n"),
                        argv[0]);
                return EXIT_USAGE;
        }
        if (a->json && !power_source_reads_only(argc, argv)) {
                fprintf(stderr, _("idlecfg: power-source prints JSON only with show\n"));
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

static int do_power_source(struct run *c, int argc, char **argv)
{
        return power_source_switch(&c->rfs, argc > 0 ? argv[0] : "event", c->a->dry_run, c->a->verbose, c->a->json);
}

const struct verb verb_power_source = {
        /* a switch that gave up on the lock would be lost until the next
         * change: it waits as long as the holder takes (VERB_WAIT_HOLDER) */
        .name = "power-source", .min_args = 0, .max_args = 1, .needs = VERB_LOCK | VERB_STATUS | VERB_WAIT_HOLDER,
        .check = check_power_source, .run = do_power_source,
        .help = N_("Write the values of the current power source: power-source "
                   "[event|boot|resume|show|ac|battery]"),
        .options = O_DRY_RUN | O_WAIT | O_JSON, .synopsis = N_("[event|boot|resume|show|ac|battery]"),
        .reads_only = power_source_reads_only,
};
