/* verb-facts.c: the verb facts: idlecfg's state as external facts, for
 * facter and OpenVox (facts.d), Salt's grains and any agent that runs a
 * command: flat key=value lines, or one flat JSON object (--json). Read from
 * the status file and the manifest, both readable by every user. */
#include "config.h"

#include <sys/stat.h>

#include "base/json.h"
#include "cli/run.h"
#include "cli/verbs.h"
#include "state/manifest.h"
#include "state/status.h"

/* one fact: "idlecfg_NAME=VALUE", or the JSON object's member; VALUE NULL:
 * left out of the lines (key=value has no null), null in JSON */
static void fact(struct json *j, const char *name, const char *value)
{
        if (j) {
                _cleanup_free_ char *key = xasprintf("idlecfg_%s", name);
                json_kv_string(j, key, value);
        } else if (value)
                printf("idlecfg_%s=%s\n", name, value);
}

static void fact_bool(struct json *j, const char *name, bool v)
{
        if (j) {
                _cleanup_free_ char *key = xasprintf("idlecfg_%s", name);
                json_kv_bool(j, key, v);
        } else
                printf("idlecfg_%s=%s\n", name, v ? "true" : "false");
}

static void fact_int(struct json *j, const char *name, bool have, long long v)
{
        if (j) {
                _cleanup_free_ char *key = xasprintf("idlecfg_%s", name);
                json_kv_int_or_null(j, key, have, v);
        } else if (have)
                printf("idlecfg_%s=%lld\n", name, v);
}

/* the status file's facts; without one, what the manifest's presence says */
static void status_facts(const struct run *c, struct json *j)
{
        _cleanup_(status_done) struct status s = {};
        struct stat st;
        int r = status_read(&c->rfs, &s);

        /* "ok", "none" (no writing run since idlecfg 0.1 wrote one), or why it cannot be read */
        fact(j, "status", r == 0 ? "ok" : r == -ENOENT ? "none" : strerror(-r));
        if (r < 0) {
                fact_bool(j, "installed", rootfs_lstat(&c->rfs, MANIFEST_PATH, &st) == 0);
                return;
        }
        fact_bool(j, "installed", s.installed);
        fact(j, "profile", s.profile);
        fact(j, "kernel", s.kernel);
        fact_bool(j, "applied", s.applied);
        fact(j, "power_source", s.power_source);
        fact_bool(j, "power_source_forced", s.power_source_forced);
        fact_int(j, "settings", s.settings >= 0, s.settings);
        fact_int(j, "drift", s.drift >= 0, s.drift);
        fact_int(j, "missing", s.missing >= 0, s.missing);
        fact_bool(j, "boot_step_pending", s.boot_step_pending);
        fact(j, "boot_steps", s.boot_steps);
        fact(j, "last_run", s.verb);
        fact_int(j, "last_run_time", true, s.time);
        fact_int(j, "compared_time", s.compared > 0, s.compared);
}

static int do_facts(struct run *c, int argc, char **argv)
{
        struct json j;

        if (c->a->json) {
                json_init(&j, stdout);
                json_begin_object(&j);
        }
        fact(c->a->json ? &j : NULL, "version", PACKAGE_VERSION);
        status_facts(c, c->a->json ? &j : NULL);
        if (c->a->json) {
                json_end_object(&j);
                json_finish(&j);
        }
        return flush_stdout();
}

/* reads the status file only: any user, no lock, no detect */
const struct verb verb_facts = {
        .name = "facts", .min_args = 0, .max_args = 0, .needs = 0,
        .run = do_facts,
        .help = N_("Print idlecfg's state as external facts (facter, Salt grains): key=value, or --json"),
        .options = O_JSON,
};
