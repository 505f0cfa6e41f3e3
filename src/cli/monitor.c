/* monitor.c: verify for monitoring systems: node_exporter's textfile
 * collector format (--format=prometheus) and a Nagios plugin (--nagios).
 * Metric names, labels and the status line are for programs: untranslated. */
#include "config.h"

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <time.h>
#include <sys/stat.h>

#include "base/fault.h"
#include "engine/apply.h"
#include "root/rootfs.h"
#include "cli/monitor.h"

/* verify printed or wrote its gauges, or tried to */
static bool prometheus_reached;

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

/* what every file says, a failed run's too: the version, whether the run
 * failed, when one last succeeded (LAST: 0, never known) */
static void prometheus_head(bool error, long long last, FILE *out)
{
        fputs("# HELP idlecfg_build_info The version of idlecfg that wrote these metrics (always 1).\n"
              "# TYPE idlecfg_build_info gauge\n", out);
        fputs("idlecfg_build_info{", out);
        label(out, "version", PACKAGE_VERSION, true);
        fputs("} 1\n", out);
        fputs("# HELP idlecfg_error Whether the last run of idlecfg verify failed (1: its error is on its "
              "standard error, and only the time of the last success is kept).\n"
              "# TYPE idlecfg_error gauge\n", out);
        fprintf(out, "idlecfg_error %d\n", error ? 1 : 0);
        if (last > 0)
                fprintf(out, "# HELP idlecfg_last_success_timestamp_seconds When idlecfg verify last ran to its "
                        "end (Unix time).\n# TYPE idlecfg_last_success_timestamp_seconds gauge\n"
                        "idlecfg_last_success_timestamp_seconds %lld\n", last);
}

void verify_print_prometheus(const struct verify_result *r, const struct plan *p, const struct next_steps *steps,
                             FILE *out)
{
        size_t pending = 0;

        prometheus_reached = true;
        for (size_t i = 0; i < steps->n; i++)
                pending += steps->v[i].boot;
        prometheus_head(false, (long long) time(NULL), out);
        fputs("# HELP idlecfg_boot_steps_pending Steps the boot configuration still lacks of what idlecfg "
              "installed (update-grub, kernel-install, update-initramfs, words for the boot loader).\n"
              "# TYPE idlecfg_boot_steps_pending gauge\n", out);
        fprintf(out, "idlecfg_boot_steps_pending %zu\n", pending);
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

/* the time of the last success the file at PATH (a file of this machine)
 * holds, 0 if none */
static long long last_success(const char *path)
{
        static const char key[] = "idlecfg_last_success_timestamp_seconds ";
        _cleanup_free_ char *text = NULL;
        _cleanup_close_ int fd = rootfs_open_file(NULL, path, ROOTFS_NOFOLLOW, 1u << 20, NULL);
        size_t len;

        if (fd < 0 || read_fd_full(fd, 1u << 20, &text, &len) < 0)
                return 0;
        for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
                if (startswith(l, key))
                        return strtoll(l + strlen(key), NULL, 10);
        return 0;
}

int monitor_prometheus_failed(const char *output)
{
        _cleanup_free_ char *text = NULL, *why = NULL;
        size_t len = 0;
        FILE *f;

        if (prometheus_reached)
                return 0;
        if (!output) {
                prometheus_head(true, 0, stdout);
                return fflush(stdout) == 0 ? 0 : -errno;
        }
        f = open_memstream(&text, &len);
        if (!f)
                return -ENOMEM;
        prometheus_head(true, last_success(output), f);
        if (fclose(f) != 0)
                return -ENOMEM;
        if (monitor_write_file(output, text, &why) < 0) {
                fprintf(stderr, _("idlecfg: cannot write %s: %s\n"), output, why);
                return -EIO;
        }
        return 0;
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

/* ---- the Nagios plugin ---- */

/* one range of the Monitoring Plugins guidelines: [@]START:END, START
 * omitted 0, "~" minus infinity, END omitted infinity; alert outside it,
 * with '@' inside it */
struct nagios_range {
        bool set, inside;
        double lo, hi;          /* -HUGE_VAL, HUGE_VAL: open */
        const char *text;       /* as given, for the perfdata */
        size_t len;
};

struct nagios_thresholds {
        /* [0] drift (each of drift and missing), [1] idle blockers */
        struct nagios_range warning[2], critical[2];
};

static bool range_alert(const struct nagios_range *r, double v)
{
        bool in = v >= r->lo && v <= r->hi;

        return r->set && (r->inside ? in : !in);
}

static int range_parse(const char *s, size_t len, struct nagios_range *ret)
{
        _cleanup_free_ char *t = xstrndup(s, len);
        char *p = t, *colon, *end;
        struct nagios_range r = { .set = true, .lo = 0, .hi = HUGE_VAL, .text = s, .len = len };

        if (*p == '@') {
                r.inside = true;
                p++;
        }
        colon = strchr(p, ':');
        if (colon) {
                *colon = '\0';
                if (streq(p, "~"))
                        r.lo = -HUGE_VAL;
                else if (*p) {
                        /* (numbers in the C locale: idlecfg sets no LC_NUMERIC) */
                        r.lo = strtod(p, &end);
                        if (*end || !isfinite(r.lo))
                                return -EINVAL;
                }
                p = colon + 1;
        }
        if (*p) {
                r.hi = strtod(p, &end);
                if (*end || !isfinite(r.hi))
                        return -EINVAL;
        } else if (!colon)
                return -EINVAL;
        if (r.lo > r.hi)
                return -EINVAL;
        *ret = r;
        return 0;
}

/* "DRIFT[,BLOCKERS]" of -w or -c into RET[2]: a part left empty stays as it is */
static int ranges_parse(const char *option, const char *s, struct nagios_range ret[2])
{
        const char *comma = s ? strchr(s, ',') : NULL;

        if (!s)
                return 0;
        if (comma && strchr(comma + 1, ','))
                goto bad;
        for (size_t k = 0; k < 2; k++) {
                const char *part = k == 0 ? s : comma ? comma + 1 : NULL;
                size_t len = !part ? 0 : k == 0 && comma ? (size_t) (comma - s) : strlen(part);
                if (len && range_parse(part, len, &ret[k]) < 0)
                        goto bad;
        }
        return 0;
bad:
        fprintf(stderr, _("idlecfg: %s '%s': not DRIFT[,BLOCKERS], each a range as the monitoring plugins "
                          "take it ([@]START:END, START omitted 0, ~ for minus infinity)\n"), option, s);
        return -EINVAL;
}

static int thresholds_parse(const struct args *a, struct nagios_thresholds *ret)
{
        /* by default, a setting that drifts or is missing is a WARNING */
        *ret = (struct nagios_thresholds) { .warning[0] = { .set = true, .hi = 0, .text = "0", .len = 1 } };
        if (ranges_parse("--warning", a->warning, ret->warning) < 0 ||
            ranges_parse("--critical", a->critical, ret->critical) < 0)
                return EXIT_USAGE;
        return EXIT_OK;
}

int nagios_check_args(const struct args *a)
{
        struct nagios_thresholds t;

        if (!a->nagios && (a->warning || a->critical || (a->given & O_TIMEOUT))) {
                fprintf(stderr, _("idlecfg: --warning, --critical and --timeout go with --nagios\n"));
                return EXIT_USAGE;
        }
        return thresholds_parse(a, &t);
}

/* perfdata: 'label'=value[UOM];warn;crit;min;max */
static void perf(FILE *out, const char *label, size_t value, const struct nagios_thresholds *t, int k, size_t max)
{
        fprintf(out, " %s=%zu;", label, value);
        if (k >= 0 && t->warning[k].set)
                fprintf(out, "%.*s", (int) t->warning[k].len, t->warning[k].text);
        fputc(';', out);
        if (k >= 0 && t->critical[k].set)
                fprintf(out, "%.*s", (int) t->critical[k].len, t->critical[k].text);
        fputs(";0;", out);
        if (max != (size_t) -1)
                fprintf(out, "%zu", max);
}

static bool judged;

int verify_print_nagios(const struct verify_result *r, const struct plan *p, const struct next_steps *steps,
                        const struct args *a, FILE *out)
{
        size_t planned = r->count[VERIFY_MATCH] + r->count[VERIFY_DRIFT] + r->count[VERIFY_MISSING] +
                         r->count[VERIFY_LATER];
        size_t drift = r->count[VERIFY_DRIFT], missing = r->count[VERIFY_MISSING], pending = 0;
        struct nagios_thresholds t;
        struct strbuf ids = {};
        int code;

        if (thresholds_parse(a, &t) != EXIT_OK)
                return NAGIOS_UNKNOWN;
        for (size_t i = 0; i < steps->n; i++)
                if (steps->v[i].boot) {
                        if (pending++)
                                sb_putc(&ids, ',');
                        sb_append(&ids, steps->v[i].id);
                }
        if ((!r->installed && planned > 0 && r->count[VERIFY_MATCH] == 0) || range_alert(&t.critical[0], drift) ||
            range_alert(&t.critical[0], missing) || range_alert(&t.critical[1], r->n_blockers))
                code = NAGIOS_CRITICAL;
        else if (range_alert(&t.warning[0], drift) || range_alert(&t.warning[0], missing) ||
                 range_alert(&t.warning[1], r->n_blockers) || !r->installed || pending > 0)
                code = NAGIOS_WARNING;
        else
                code = NAGIOS_OK;
        judged = true;
        fprintf(out, "IDLECFG %s - profile %s (%s): %zu of %zu settings in effect, %zu drift, %zu missing, "
                "%zu at the next boot%s",
                code == NAGIOS_OK ? "OK" : code == NAGIOS_WARNING ? "WARNING" : "CRITICAL", p->profile,
                p->profile_reason, r->count[VERIFY_MATCH], planned, drift, missing, r->count[VERIFY_LATER],
                r->installed ? "" : ", not installed");
        if (pending)
                fprintf(out, ", %zu boot step%s pending (%s)", pending, pending == 1 ? "" : "s", sb_str(&ids));
        fprintf(out, ", %zu idle blockers |", r->n_blockers);
        sb_free(&ids);
        perf(out, "match", r->count[VERIFY_MATCH], &t, -1, planned);
        perf(out, "drift", drift, &t, 0, planned);
        perf(out, "missing", missing, &t, 0, planned);
        perf(out, "later", r->count[VERIFY_LATER], &t, -1, planned);
        perf(out, "pending", pending, &t, -1, (size_t) -1);
        perf(out, "blockers", r->n_blockers, &t, 1, (size_t) -1);
        for (size_t i = 0; i < _M_RES_MAX; i++)
                if (r->residency[i].have)
                        fprintf(out, " %.*s_residency=%lluus;;;0;", verify_residency_stem(i),
                                verify_residency_names[i], r->residency[i].value);
        fputc('\n', out);
        return code;
}

bool nagios_asked(int argc, char **argv)
{
        for (int i = 1; i < argc && !streq(argv[i], "--"); i++) {
                size_t n = strlen(argv[i]);
                /* getopt takes "--nag", unambiguous, for --nagios */
                if (n >= 3 && strncmp(argv[i], "--nagios", n) == 0)
                        return true;
        }
        return false;
}

static char timeout_line[128];
static size_t timeout_len;

static void on_alarm(int sig)
{
        (void) sig;
        /* (the cache verify may be writing: its temporary file goes first) */
        signals_temp_remove();
        (void) !write(STDOUT_FILENO, timeout_line, timeout_len);
        _exit(NAGIOS_UNKNOWN);
}

void nagios_timeout(unsigned seconds)
{
        struct sigaction sa = { .sa_handler = on_alarm };

        snprintf(timeout_line, sizeof(timeout_line), "IDLECFG UNKNOWN - verify timed out after %u s (--timeout)\n",
                 seconds);
        timeout_len = strlen(timeout_line);
        sigemptyset(&sa.sa_mask);
        (void) sigaction(SIGALRM, &sa, NULL);
        alarm(seconds);
}

int nagios_plugin(int (*run)(int argc, char **argv), int argc, char **argv)
{
        _cleanup_free_ char *said = NULL;
        size_t len = 0;
        FILE *real = stderr, *mem = open_memstream(&said, &len);
        int r;

        /* what a run says on stderr, kept for the status line, then passed on */
        if (mem)
                stderr = mem;
        r = run(argc, argv);
        if (mem) {
                (void) fclose(mem);
                stderr = real;
                if (said)
                        fputs(said, stderr);
        }
        if (judged || (r == EXIT_OK && !len))
                /* the status line is out; or --help, --version (nothing said on stderr:
                 * open_memstream() leaves an empty string, not NULL) */
                return r;
        {
                /* the reason: the first thing said, without "idlecfg: " and
                 * without the '|' that would begin the perfdata */
                const char *why = said ? said : "";
                size_t n;
                if (startswith(why, "idlecfg: "))
                        why += strlen("idlecfg: ");
                n = strcspn(why, "\n");
                printf("IDLECFG UNKNOWN - ");
                for (size_t i = 0; i < n; i++)
                        putchar(why[i] == '|' ? '/' : why[i]);
                if (!n)
                        printf("verify failed (exit %d)", r);
                putchar('\n');
        }
        (void) fflush(stdout);
        return NAGIOS_UNKNOWN;
}
