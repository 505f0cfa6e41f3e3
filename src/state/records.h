/* records.h: the line format of idlecfg's state files (the manifest, apply's
 * journal), read in one place: a header line "MAGIC FORMAT", lines of
 * escaped fields (field_escape()), '#' and empty lines ignored, and in
 * format 2 an end record "end LINES SHA256" (the count and digest of the
 * lines before it) that proves the file whole */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

/* what differs between the files: their magic word, their limits, and the
 * messages that name them (N_() marked, translated when they are given) */
struct records_format {
        const char *magic;              /* "idlecfg-manifest" */
        size_t max_fields;              /* at most this many fields a line */
        size_t max_value;               /* at most this many bytes a field, unescaped; 0: any */
        /* format 1 was appended line by line: a last line without its newline
         * is a write a crash cut short, dropped (ret_torn), not an error */
        bool torn_v1;
        const char *not_ours;           /* "%s:%u: not an idlecfg manifest (...)": NAME, line */
        const char *unknown_format;     /* "%s:%u: manifest format %s is not known ...": NAME, line, format */
        const char *empty;              /* "%s: empty, not an idlecfg manifest": NAME */
        const char *no_end;             /* "%s: no end record ...": NAME (format 2 without its end) */
        const char *torn_header;        /* torn_v1: "%s: no end record ...": a header cut short */
};

/* a small state file replaced whole: what an earlier write left half-done
 * (its temporaries) removed, TEXT written atomically (0644), or <0 with
 * "cannot write PATH: why" in *RET_ERROR */
struct rootfs;
int records_write(const struct rootfs *rfs, const char *path, const char *text, size_t len,
                  struct xerror *ret_error);

/* one line after the header, for the file's own parser */
struct record {
        const char *name;               /* the file, as messages name it */
        unsigned lineno;
        unsigned format;                /* the header's: 1 or 2 */
        char **v;                       /* the fields, unescaped: take one by setting it NULL */
        char **f;                       /* the same as written (for messages) */
        size_t n;
};

/* 0 for a line taken, or <0 with *ret_error set (the file is refused) */
/* a field that is a decimal number below 2^32 - 1 (an end record's count,
 * a uid or gid): digits only, no sign or blank */
bool records_parse_u32(const char *s, unsigned *ret);

typedef int (*record_fn)(void *userdata, const struct record *r, struct xerror *ret_error);

/* Read BUF (LEN bytes, the file NAME) as a file of format FMT: LINE is
 * called for each line between the header and the end record, in order.
 * 0 with *ret_format (1 or 2) and *ret_torn (a format 1 file whose last
 * line a crash cut short: dropped), or -EINVAL with *ret_error saying
 * where. */
int records_parse(const struct records_format *fmt, const char *name, const char *buf, size_t len, record_fn line,
                  void *userdata, unsigned *ret_format, bool *ret_torn, struct xerror *ret_error);
