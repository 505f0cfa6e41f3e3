/* verb-monitor.c: verify for monitoring systems: node_exporter's textfile
 * collector format (--format=prometheus) and a Nagios plugin (--nagios).
 * Metric names, labels and the status line are for programs: untranslated. */
#include "config.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "engine/apply.h"
#include "root/rootfs.h"
#include "cli/verb-monitor.h"

/* a label value: backslash, double quote and newline escaped */
static void label(FILE *out, const char *name, const char *value, bool first)
{
        fprintf(out, "%s%s=\"", first ? "" : ",", name);
        for (const char *c = strempty(value); *c; c++) {
                if (*c == '\\' || *c == '"')
                        fprintf(out, "\\%c", *c);
                else if (*c == '\n')
                        fputs("\\n", out);
                else
                        fputc(*c, out);
        }
        fputc('"', out);
}

void verify_print_prometheus(const struct verify_result *r, const struct plan *p, FILE *out)
{
        fputs("# HELP idlecfg_installed Whether idlecfg install wrote its files into this system (a manifest).\n"
              "# TYPE idlecfg_installed gauge\n", out);
        fprintf(out, "idlecfg_installed{profile=\"%s\"} %d\n", p->profile, r->installed ? 1 : 0);
        fputs("# HELP idlecfg_setting_in_effect Whether a planned setting is in effect now (1) or not (0); "
              "state: match, drift, missing or later (boot or module load).\n"
              "# TYPE idlecfg_setting_in_effect gauge\n", out);
        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                if (!s->value)
                        continue;
                fputs("idlecfg_setting_in_effect{", out);
                label(out, "knob", s->knob, true);
                label(out, "device", setting_where(s), false);
                label(out, "attr", s->attr ? s->attr : s->param, false);
                label(out, "mechanism", mechanism_to_string(s->mech), false);
                label(out, "state", verify_state_names[r->state[i]], false);
                fprintf(out, "} %d\n", r->state[i] == VERIFY_MATCH ? 1 : 0);
        }
        fputs("# HELP idlecfg_settings The planned settings by state.\n# TYPE idlecfg_settings gauge\n", out);
        for (size_t k = 0; k < _VERIFY_MAX; k++)
                fprintf(out, "idlecfg_settings{state=\"%s\"} %zu\n", verify_state_names[k], r->count[k]);
        fputs("# HELP idlecfg_idle_blockers Devices or settings that keep a device or the package out of "
              "its idle state.\n# TYPE idlecfg_idle_blockers gauge\n", out);
        fprintf(out, "idlecfg_idle_blockers %zu\n", r->n_blockers);
        {
                bool any = false;
                for (size_t i = 0; i < _M_RES_MAX; i++) {
                        if (!r->residency[i].have)
                                continue;
                        if (!any)
                                fputs("# HELP idlecfg_package_residency_seconds_total Time the package spent "
                                      "in its deepest idle state, by the counter that says so.\n"
                                      "# TYPE idlecfg_package_residency_seconds_total counter\n", out);
                        any = true;
                        /* the counter's name as verify --json gives it, less the unit */
                        fprintf(out, "idlecfg_package_residency_seconds_total{counter=\"%.*s\"} %llu.%06llu\n",
                                verify_residency_stem(i), verify_residency_names[i],
                                r->residency[i].value / 1000000, r->residency[i].value % 1000000);
                }
        }
}

/* the words for the refusal of FILE, which lstat() found to be ST */
static char *refusal_words(const struct rootfs *host, const char *path, const struct stat *st)
{
        if (S_ISLNK(st->st_mode))
                return xstrdup(_("a symbolic link (not followed)"));
        return rootfs_why(host, path, S_ISDIR(st->st_mode) ? -EISDIR : -EBADFD, 0);
}

int monitor_write_file(const char *path, const char *text, char **ret_why)
{
        _cleanup_(rootfs_close) struct rootfs host = { .fd = -1 };
        _cleanup_free_ char *abs = NULL;
        mode_t mode = 0644;
        uid_t uid = (uid_t) -1;
        gid_t gid = (gid_t) -1;
        struct stat st;
        int r;

        if (path[0] != '/') {
                _cleanup_free_ char *cwd = getcwd(NULL, 0);
                if (!cwd) {
                        r = -errno;
                        *ret_why = xstrdup(strerror(-r));
                        return r;
                }
                abs = xasprintf("%s/%s", cwd, path);
        } else
                abs = xstrdup(path);
        r = rootfs_open("/", &host);
        if (r < 0) {
                *ret_why = xstrdup(strerror(-r));
                return r;
        }
        r = rootfs_lstat(&host, abs, &st);
        if (r == 0) {
                if (!S_ISREG(st.st_mode)) {
                        *ret_why = refusal_words(&host, abs, &st);
                        return S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? -EISDIR : -EBADFD;
                }
                /* replaced, it stays whose it was, with its mode */
                mode = st.st_mode & 07777;
                uid = st.st_uid;
                gid = st.st_gid;
        } else if (r != -ENOENT) {
                *ret_why = rootfs_why(&host, abs, r, 0);
                return r;
        }
        r = rootfs_write_atomic(&host, abs, text, strlen(text), mode, uid, gid);
        if (r < 0)
                *ret_why = rootfs_why(&host, abs, r, 0);
        return r;
}

int verify_print_nagios(const struct verify_result *r, const struct plan *p, FILE *out)
{
        size_t planned = r->count[VERIFY_MATCH] + r->count[VERIFY_DRIFT] + r->count[VERIFY_MISSING] +
                         r->count[VERIFY_LATER];
        size_t off = r->count[VERIFY_DRIFT] + r->count[VERIFY_MISSING];
        int code;

        if (!r->installed && planned > 0 && r->count[VERIFY_MATCH] == 0)
                code = NAGIOS_CRITICAL;
        else if (off > 0 || !r->installed)
                code = NAGIOS_WARNING;
        else
                code = NAGIOS_OK;
        fprintf(out, "IDLECFG %s - profile %s: %zu of %zu settings in effect, %zu drift, %zu missing, "
                "%zu at the next boot%s, %zu idle blockers",
                code == NAGIOS_OK ? "OK" : code == NAGIOS_WARNING ? "WARNING" : "CRITICAL", p->profile,
                r->count[VERIFY_MATCH], planned, r->count[VERIFY_DRIFT], r->count[VERIFY_MISSING],
                r->count[VERIFY_LATER], r->installed ? "" : ", not installed", r->n_blockers);
        /* perfdata: 'label'=value[UOM];warn;crit;min;max */
        fprintf(out, " | match=%zu;;;0;%zu drift=%zu;0;;0;%zu missing=%zu;0;;0;%zu later=%zu;;;0;%zu blockers=%zu;;;0;",
                r->count[VERIFY_MATCH], planned, r->count[VERIFY_DRIFT], planned, r->count[VERIFY_MISSING], planned,
                r->count[VERIFY_LATER], planned, r->n_blockers);
        for (size_t i = 0; i < _M_RES_MAX; i++)
                if (r->residency[i].have)
                        fprintf(out, " %.*s_residency=%lluus;;;0;", verify_residency_stem(i),
                                verify_residency_names[i], r->residency[i].value);
        fputc('\n', out);
        return code;
}
