/* monitor.h: verify for monitoring systems: node_exporter's textfile
 * collector format (--format=prometheus) and a Nagios plugin (--nagios) */
#pragma once

#include <stdio.h>

#include "model/plan.h"
#include "cli/options.h"
#include "engine/next-steps.h"
#include "engine/verify.h"

/* the plugin exit codes of the Nagios plugin API */
enum { NAGIOS_OK = 0, NAGIOS_WARNING = 1, NAGIOS_CRITICAL = 2, NAGIOS_UNKNOWN = 3 };

/* verify's result in the Prometheus text exposition format: the version
 * (idlecfg_build_info), idlecfg_error 0, the time of this run as the last
 * success, the boot steps STEPS still lacks, then the settings */
void verify_print_prometheus(const struct verify_result *r, const struct plan *p, const struct next_steps *steps,
                             FILE *out);
/* verify --format=prometheus failed before its gauges: the version,
 * idlecfg_error 1 and the time of the last success the old OUTPUT held,
 * written over OUTPUT as monitor_write_file() writes (NULL: on stdout), so
 * that the old file does not look fresh. Nothing when the gauges were
 * printed or their write was tried. 0 or -errno (said). */
int monitor_prometheus_failed(const char *output);
/* --output FILE: TEXT replaces FILE, a file of this machine (not of --root),
 * through the one writer (rootfs_write_atomic() in the root "/"): a
 * temporary file beside it, removed when a signal ends the run, fsync,
 * rename. FILE that exists and is not a regular file (a device node such as
 * /dev/null, a FIFO, a socket, a directory, a symbolic link) is refused and
 * left as it is; an existing file keeps its mode and owner, a new one is
 * 0644 (the collector reads it as whoever it runs as). 0, or -errno with
 * *RET_WHY the words for it (allocated). */
int monitor_write_file(const char *path, const char *text, char **ret_why);
/* --warning, --critical and --timeout: with --nagios only, the ranges
 * valid; EXIT_OK or EXIT_USAGE (said) */
int nagios_check_args(const struct args *a);
/* One status line with perfdata, untranslated, numbers in the C locale;
 * returns the plugin exit code. STEPS: the boot steps still pending (a
 * WARNING); A: the thresholds (-w, -c) */
int verify_print_nagios(const struct verify_result *r, const struct plan *p, const struct next_steps *steps,
                        const struct args *a, FILE *out);
/* ARGV asks for --nagios (before any parsing: a usage error is a status line too) */
bool nagios_asked(int argc, char **argv);
/* UNKNOWN, one line, when the run takes longer than SECONDS (--timeout) */
void nagios_timeout(unsigned seconds);
/* RUN as a monitoring plugin: what it says on stderr is kept and passed on;
 * a run that printed no status line (a usage error, a failure) prints
 * "IDLECFG UNKNOWN - REASON", the first thing it said, and exits 3 */
int nagios_plugin(int (*run)(int argc, char **argv), int argc, char **argv);
