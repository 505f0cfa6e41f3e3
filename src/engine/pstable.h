/* pstable.h: the files install writes for the power-source switch (the
 * table of settings per source, the udev rule, the boot unit and its
 * drop-in: all below /etc), and the table read back by power-source. The
 * system-sleep hook that runs the switch after a resume is the package's
 * own file (src/units/idlecfg-power-source.sleep.in): install writes
 * nothing below /usr, which may be read-only */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "model/plan.h"
#include "root/targets.h"
#include "base/util.h"

/* the paths: targets.h (PS_*_PATH), the list of what a manifest may name */
#define PS_TABLE_MAX (1u << 20)

/* one file to write: PATH, its text */
struct ps_file {
        const char *path;
        char *text;
};

/* The files of the switch for plan P, each with its text; none (0) when no
 * setting of P takes another value on battery. SBIN is the directory of
 * the idlecfg program the job runs. *ret_n files in *ret (free with
 * ps_files_free). -EINVAL with a message when a value fails its knob's rule. */
int ps_render(const struct plan *p, const char *sbin, struct ps_file **ret, size_t *ret_n, struct xerror *ret_error);
void ps_files_free(struct ps_file *v, size_t n);

/* Read the table back as a plan whose settings carry value (AC) and
 * value_battery; every line is checked against the knob registry and must
 * name a file rollback may write. NAME:LINE in errors. */
int ps_table_parse(const char *name, const char *buf, size_t len, struct plan **ret, struct xerror *ret_error);
