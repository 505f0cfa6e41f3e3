/* journal.h: the write-ahead journal of apply, read by rollback */
#pragma once

#include <stdbool.h>

#include "base/util.h"

#define JOURNAL_PATH "/var/lib/idlecfg/apply.journal"

struct journal_entry {
        char *path;             /* /sys/... */
        char *old;              /* the value before, as it is written back */
        char *new;              /* the value apply wrote */
        unsigned run;           /* which apply run */
};

/* a "run" line: when and with which profile (as read, written back as they are) */
struct journal_run {
        char *when;
        char *profile;
};

struct journal {
        struct journal_entry *v;
        size_t n;
        unsigned runs;          /* the number of the last run */
        struct journal_run *run_v;      /* runs of them: run N is run_v[N - 1] */
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

/* The whole journal text of one more apply run: the journal J (NULL: none
 * yet) and this run's records ADD (path, old as read, new; run unused) in a
 * new run line, then the end record. For rollback only the value before
 * idlecfg first touched a path matters, so J's records of a path this run
 * writes are folded into one: its first old value, and as its new value the
 * one this run read (what idlecfg left there; a run cut short before its
 * write reads the value before it, and rollback then finds the write "never
 * happened" in this run's record and restores the first old value from the
 * folded one). A folded record whose old value is the one this run read goes
 * (this run's record has it). Runs left without a record go and the rest are
 * numbered again from 1. So a path has at most two records, however often
 * it is switched, and the journal is bounded by the number of knobs. */
char *journal_text_with_run(const struct journal *j, const struct journal_entry *add, size_t n_add, long long when,
                            const char *profile);

/* Does J already let rollback restore PATH's value from before idlecfg
 * whether the live value is OLD (a write not yet made) or NEW (made)? Its
 * records of PATH, last first, as rollback goes through them, lead from
 * both to the first record's old value. Then a run that writes NEW over OLD
 * needs no journal write of its own: a switch between two sources' values
 * the journal has both of costs no journal write. */
bool journal_covers(const struct journal *j, const char *path, const char *old, const char *new);

/* has J (NULL: none) a record of PATH? */
bool journal_names(const struct journal *j, const char *path);

/* the journal lines */
char *journal_header(void);
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
