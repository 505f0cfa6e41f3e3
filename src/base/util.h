/* util.h: small helpers shared by every part of idlecfg */
#pragma once

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/i18n.h"

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

static inline void freep(void *p) { free(*(void **) p); }
static inline void closep(int *fd) { if (*fd >= 0) close(*fd); }
static inline void fclosep(FILE **f) { if (*f) fclose(*f); }
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* hand ownership on: returns the pointer and clears the variable */
#define TAKE_PTR(p) ({ __typeof__(p) _p = (p); (p) = NULL; _p; })
#define TAKE_FD(fd) ({ int _fd = (fd); (fd) = -1; _fd; })

static inline bool streq(const char *a, const char *b) { return strcmp(a, b) == 0; }
static inline bool streq_ptr(const char *a, const char *b)
{
        if (!a || !b)
                return a == b;
        return streq(a, b);
}
static inline bool startswith(const char *s, const char *prefix)
{
        return strncmp(s, prefix, strlen(prefix)) == 0;
}
static inline const char *strempty(const char *s) { return s ? s : ""; }

/* allocation failures end the program: there is nothing sensible left to do */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) _printf_(1, 2);
/* the same with a va_list (not consumed: copied first) */
char *xvasprintf(const char *fmt, va_list ap) _printf_(1, 0);

/* growable string */
struct strbuf {
        char *s;
        size_t len, cap;
};
void sb_append(struct strbuf *sb, const char *s);
void sb_appendn(struct strbuf *sb, const char *s, size_t n);
void sb_appendf(struct strbuf *sb, const char *fmt, ...) _printf_(2, 3);
void sb_putc(struct strbuf *sb, char c);
static inline const char *sb_str(const struct strbuf *sb) { return sb->s ? sb->s : ""; }
char *sb_steal(struct strbuf *sb);
void sb_free(struct strbuf *sb);

/* ordered key/value list; value NULL means "present but unreadable" */
struct kv {
        const char *key;        /* interned (str_intern()): shared, never freed */
        char *value;
};
struct kvlist {
        struct kv *v;
        size_t n, cap;
};
/* one copy of each distinct string for the whole run: the keys of every
 * kvlist (attribute and property names, the same few hundred on any
 * machine, stored once instead of once per device) */
const char *str_intern(const char *s);
void kv_add(struct kvlist *l, const char *key, const char *value);
void kv_add_take(struct kvlist *l, const char *key, char *value);
const struct kv *kv_find(const struct kvlist *l, const char *key);
/* KEY's value replaced by a copy of VALUE, or KEY added with it */
void kv_set(struct kvlist *l, const char *key, const char *value);
const char *kv_get(const struct kvlist *l, const char *key);
void kv_free(struct kvlist *l);

/* A library opened at run time, as systemd's dlopen_*() do: SONAME with
 * dlopen(), then every symbol of SYMS (sym_X receives X). 0; or -ELIBACC with
 * *ret_error saying why (dlerror(): the file, or the missing symbol), and
 * nothing kept open. */
struct dlsym_arg {
        void **sym;
        const char *name;
};
#define DLSYM_ARG(name) { (void **) &sym_##name, #name }
int dlopen_syms(const char *soname, const struct dlsym_arg *syms, size_t n_syms, void **ret_dl, char **ret_error);

/* IDLECFG_TRACE_READS (tests): a line "KIND PATH" for a file read (util.c) */
void trace_read(const char *kind, const char *path);

/* sysfs and small files. The one reader of a live attribute (sysfs,
 * /proc/sys): one read() of a page at most from FD, opened O_NONBLOCK (FD < 0:
 * -errno of the open), and the value as TRIM says. */
enum live_trim {
        LIVE_LINE,      /* the first line, trailing blanks off (read_attr) */
        LIVE_STRIP,     /* the first line, white space off both ends (strstrip) */
        LIVE_RAW,       /* as it is, newlines kept; a NUL in it: -EBADMSG (read_raw) */
};
int read_live_fd(int fd, enum live_trim trim, char **ret);
/* What a run could not read for want of privilege: PATH (a file root can
 * read, or a directory to list) refused with ERR (-EACCES, -EPERM) while
 * not root. read_live() notes its own; a caller that opens a directory notes
 * its refusal. The cli layer says them (an unprivileged user's answer differs
 * from root's only where it says why); denied_list() gives them, in order. */
void denied_note(const char *path, int err);
struct denied {
        char *path;
        int err;
};
const struct denied *denied_list(size_t *ret_n);
/* the same, opening PATH */
int read_live(const char *path, enum live_trim trim, char **ret);
/* DIRFD's or DIR's attribute ATTR, LIVE_LINE */
int read_attr_at(int dirfd, const char *attr, char **ret);
int read_attr(const char *dir, const char *attr, char **ret);
/* PATH's attribute, LIVE_RAW */
int read_raw(const char *path, char **ret);
int read_file_full(const char *path, size_t max, char **ret, size_t *ret_len);
/* all of FD (at most MAX bytes, -EFBIG beyond), NUL-terminated: the read
 * loop of rootfs_read_file(), rootfs.h, the one reader of a root's files */
int read_fd_full(int fd, size_t max, char **ret, size_t *ret_len);
char *strstrip(char *s);
/* the words of WORDS (space-separated) that LINE does not have yet, in order */
char *words_missing(const char *line, const char *words);
/* the line end of the LEN bytes of TEXT, a one-line file: "\r\n", "\n" or "" (none) */
const char *cmdline_line_end(const char *text, size_t len);
int parse_selected(const char *list, char **ret);

/* paths below a root ("/" or an installer's target) */
char *root_path(const char *root, const char *path);
bool root_is_host(const char *root);

int strv_cmp(const void *a, const void *b);
/* free a NULL-terminated list of strings and the list; V may be NULL */
void strv_free(char **v);
/* the same of a list of N strings, not NULL-terminated */
void strv_free_n(char **v, size_t n);

/* The one error type of idlecfg: an error for the user, translated, with the
 * file and line it is about where there is one (the hwdb, a profile, a
 * manifest). Library code fills it and returns -errno; only the verb layer
 * prints it, as xerror_format() says: "FILE:LINE: message", "FILE: message"
 * or "message". */
struct xerror {
        char *file;             /* NULL: no file, or the message names it */
        unsigned line;          /* 0: no line */
        char *message;
};
/* set the message (if none is set yet) and return R */
int xerror_set(struct xerror *e, int r, const char *fmt, ...) _printf_(3, 4);
/* replace what E holds with MESSAGE (taken), at FILE:LINE (FILE may be NULL) */
void xerror_set_take(struct xerror *e, const char *file, unsigned line, char *message);
/* "file:line: message", "file: message" or "message" */
char *xerror_format(const struct xerror *e);
/* free what E holds and clear it; E may be NULL */
void xerror_done(struct xerror *e);

/* one field of a line-based state file: bytes outside '!'..'~' and the
 * backslash become \xHH, the empty string "\-" */
char *field_escape(const char *s);
/* the inverse; -EINVAL for a malformed escape */
int field_unescape(const char *s, char **ret);
/* split LINE in place at single spaces into at most MAX fields: the count,
 * MAX + 1 when there are more; two spaces make an empty field */
size_t split_fields(char *line, char **fields, size_t max);
static inline bool endswith_str(const char *s, const char *suffix)
{
        size_t a = strlen(s), b = strlen(suffix);
        return a >= b && memcmp(s + a - b, suffix, b) == 0;
}
