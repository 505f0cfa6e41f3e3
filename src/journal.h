/* journal.h: the write-ahead journal of apply, read by rollback */
#pragma once

#include <stdbool.h>

#include "util.h"

#define JOURNAL_PATH "/var/lib/idlecfg/apply.journal"

struct journal_entry {
        char *path;             /* /sys/... */
        char *old;              /* the value before, as it is written back */
        char *new;              /* the value apply wrote */
        unsigned run;           /* which apply run */
};

struct journal {
        struct journal_entry *v;
        size_t n;
        unsigned runs;          /* the number of the last run */
        bool torn;              /* format 1: the last line was cut short (a crash while appending it) */
        unsigned format;        /* of the text read: 1 (appended, no end record) or 2 */
};

/* Parse a journal; NAME names it in errors ("NAME:LINE: ..."). Format 2 ends
 * with "end LINES SHA256": without it (cut short, lines lost) it is refused.
 * Format 1: a last line without its newline is a record the crash cut short:
 * it is dropped (its write never started). Paths and values are checked
 * against the knob registry (journal_path_ok, journal_value_ok). */
int journal_parse(const char *name, const char *buf, size_t len, struct journal **ret, struct xerror *ret_error);
void journal_free(struct journal *j);
static inline void journal_freep(struct journal **j) { journal_free(*j); }

/* the journal lines */
char *journal_header(void);
char *journal_run_line(unsigned run, long long when, const char *profile);
char *journal_set_line(const char *path, const char *old, const char *new);
/* the end record of the journal text TEXT (LEN bytes, whole lines) */
char *journal_end_line(const char *text, size_t len);

/* a path rollback may write, as the knob registry declares it: a device's
 * /sys/devices/.../ATTR of a rule's attrs, /sys/module/M/parameters/P of a
 * rule's params "M.P", or /proc/sys/... (in the tests, $IDLECFG_TEST_PROC/sys/...)
 * of a rule's sysctls; clean, no ".." */
bool journal_path_ok(const char *path);
/* VALUE (as read: blanks, a "[selected]" list) is one PATH's knob takes;
 * BEFORE: the value before idlecfg, which of a numeric knob may be any integer */
bool journal_value_ok(const char *path, const char *value, bool before);
