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
        bool torn;              /* the last line was cut short (a crash while appending it) */
};

/* Parse a journal; NAME names it in errors ("NAME:LINE: ..."). A last line
 * without its newline is a record the crash cut short: it is dropped (its
 * write never started, because each write waits for its record's fsync). */
int journal_parse(const char *name, const char *buf, size_t len, struct journal **ret, struct xerror *ret_error);
void journal_free(struct journal *j);
static inline void journal_freep(struct journal **j) { journal_free(*j); }

/* the journal lines */
char *journal_header(void);
char *journal_run_line(unsigned run, long long when, const char *profile);
char *journal_set_line(const char *path, const char *old, const char *new);

/* a path rollback may write: /sys/..., or /proc/sys/... (in the tests,
 * $IDLECFG_TEST_PROC/sys/...) of a sysctl a knob family sets; clean, no ".." */
bool journal_path_ok(const char *path);
