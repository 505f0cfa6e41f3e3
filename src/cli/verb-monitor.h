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
/* Write it to PATH atomically (a temporary file beside it, fsync, rename),
 * as node_exporter's textfile collector wants; 0 or -errno */
int verify_write_prometheus(const struct verify_result *r, const struct plan *p, const char *path);
/* one status line with perfdata; returns the plugin exit code */
int verify_print_nagios(const struct verify_result *r, const struct plan *p, FILE *out);
