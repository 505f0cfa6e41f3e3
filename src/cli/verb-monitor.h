/* verb-monitor.h: verify for monitoring systems: node_exporter's textfile
 * collector format (--format=prometheus) and a Nagios plugin (--nagios) */
#pragma once

#include <stdio.h>

#include "model/plan.h"
#include "engine/verify.h"

/* the plugin exit codes of the Nagios plugin API */
enum { NAGIOS_OK = 0, NAGIOS_WARNING = 1, NAGIOS_CRITICAL = 2, NAGIOS_UNKNOWN = 3 };

/* verify's result in the Prometheus text exposition format */
void verify_print_prometheus(const struct verify_result *r, const struct plan *p, FILE *out);
/* --output FILE: TEXT replaces FILE, a file of this machine (not of --root),
 * through the one writer (rootfs_write_atomic() in the root "/"): a
 * temporary file beside it, removed when a signal ends the run, fsync,
 * rename. FILE that exists and is not a regular file (a device node such as
 * /dev/null, a FIFO, a socket, a directory, a symbolic link) is refused and
 * left as it is; an existing file keeps its mode and owner, a new one is
 * 0644 (the collector reads it as whoever it runs as). 0, or -errno with
 * *RET_WHY the words for it (allocated). */
int monitor_write_file(const char *path, const char *text, char **ret_why);
/* one status line with perfdata; returns the plugin exit code */
int verify_print_nagios(const struct verify_result *r, const struct plan *p, FILE *out);
