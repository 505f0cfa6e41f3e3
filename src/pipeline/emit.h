/* emit.h: render one file of a plan (udev rules, modprobe.d, tmpfiles.d,
 * command-line words, sysctl.d, NetworkManager conf.d, a .link drop-in), every
 * value checked against the whitelist of its knob first */
#pragma once

#include <stdio.h>

#include "knobs/knob.h"
#include "model/plan.h"
#include "base/util.h"

enum emit_format {
        EMIT_UDEV,
        EMIT_MODPROBE,
        EMIT_TMPFILES,
        EMIT_CMDLINE,
        EMIT_SYSCTL,
        EMIT_NM,
        EMIT_LINK,
};

/* Errors (struct xerror, util.h) of the emitters have no file: the message
 * names the setting and the offending value. */

/* Is VALUE one a knob of rule R (knob_rule(), knobs/knob.h) may take?
 * (journal.c and pstable.c check what they read back with it.) */
bool knob_value_ok(const struct knob_rule *r, const char *value);

/* Check one planned value against the strict whitelist of its knob before it
 * is written anywhere: 0, or -EINVAL with a message. */
int emit_check_value(const struct setting *s, struct xerror *ret_error);

/* Is where S writes (its attribute, module parameter or sysctl key) a place
 * its knob may set? The check of emit_check_value() without the udev match,
 * for settings read back from a table (pstable.c): 0, or -EINVAL. */
int emit_check_place(const struct setting *s, struct xerror *ret_error);

/* Render the settings of one mechanism into f: deterministic, with a header
 * naming version, profile and fingerprint. Every value is checked first; on
 * any error nothing is written to f and -EINVAL is returned. */
int emit_render(const struct plan *p, enum emit_format fmt, FILE *f, struct xerror *ret_error);
