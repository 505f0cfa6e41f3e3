/* records.c: the line format of idlecfg's state files, read in one place
 * for the manifest (manifest.c) and apply's journal (journal.c); and the
 * whole-file write of the small ones (measured.c, status.c, stepsdone.c) */
#include "config.h"

#include <stdarg.h>

#include "base/sha256.h"
#include "root/rootfs.h"
#include "state/records.h"

/* -EINVAL with *E set from FMT_TRANSLATED, one of the format's messages:
 * N_() marked (and so checked) where the format is written, translated by
 * the caller, so not a literal here */
static int refuse(struct xerror *e, const char *fmt_translated, ...)
{
        _cleanup_free_ char *m = NULL;
        va_list ap;

        va_start(ap, fmt_translated);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        if (vasprintf(&m, fmt_translated, ap) < 0)
                m = NULL;
#pragma GCC diagnostic pop
        va_end(ap);
        return xerror_set(e, -EINVAL, "%s", m ? m : fmt_translated);
}

bool records_parse_u32(const char *s, unsigned *ret)
{
        char *end;
        unsigned long v;

        if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 10)
                return false;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || *end || v >= 0xffffffffUL)
                return false;
        *ret = (unsigned) v;
        return true;
}

static bool is_sha(const char *s)
{
        size_t i;

        for (i = 0; s[i]; i++)
                if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                        return false;
        return i == 64;
}

/* a last line without its newline: an error, or (format 1, appended) a
 * write cut short: 1 when it is dropped */
static int torn(const struct records_format *fmt, const char *name, unsigned lineno, const char *line, bool header,
                unsigned format, struct xerror *e)
{
        _cleanup_free_ char *h1 = NULL, *h2 = NULL;

        if (!fmt->torn_v1 || (header && format >= 2))
                return xerror_set(e, -EINVAL, _("%s:%u: the last line has no newline: the file was cut short"), name,
                                  lineno);
        if (header)
                return 1;
        /* without a header yet, it must be the start of one */
        h1 = xasprintf("%s 1", fmt->magic);
        h2 = xasprintf("%s 2", fmt->magic);
        if (!startswith(h1, line) && !startswith(h2, line))
                return refuse(e, _(fmt->not_ours), name, lineno);
        return refuse(e, _(fmt->torn_header), name);
}

/* the header line: *RET_FORMAT */
static int header_line(const struct records_format *fmt, const char *name, unsigned lineno, char **v, size_t n,
                       unsigned *ret_format, struct xerror *e)
{
        if (n != 2 || !streq(v[0], fmt->magic))
                return refuse(e, _(fmt->not_ours), name, lineno);
        if (!streq(v[1], "1") && !streq(v[1], "2"))
                return refuse(e, _(fmt->unknown_format), name, lineno, v[1]);
        *ret_format = streq(v[1], "1") ? 1 : 2;
        return 0;
}

/* the end record: the LINES before it (every line, comments too) and their digest */
static int end_line(const char *name, unsigned lineno, char **v, size_t n, const char *buf, size_t before,
                    struct xerror *e)
{
        char sha[65];
        unsigned count;

        if (n != 3 || !records_parse_u32(v[1], &count) || !is_sha(v[2]))
                return xerror_set(e, -EINVAL, _("%s:%u: expected \"end LINES SHA256\""), name, lineno);
        sha256_hex(buf, before, 32, sha);
        if (count != lineno - 1 || !streq(sha, v[2]))
                return xerror_set(e, -EINVAL, _("%s:%u: the end record does not match the %u lines before it: lines "
                                                "were lost or changed"), name, lineno, lineno - 1);
        return 0;
}

/* split LINE into F and unescape them into V (both at most MAX_FIELDS): the count, or <0 */
static int fields(const struct records_format *fmt, const char *name, unsigned lineno, char *line, char **f, char **v,
                  struct xerror *e)
{
        size_t n = split_fields(line, f, fmt->max_fields);

        if (n > fmt->max_fields)
                return xerror_set(e, -EINVAL, _("%s:%u: too many fields"), name, lineno);
        for (size_t i = 0; i < n; i++)
                if (field_unescape(f[i], &v[i]) < 0 || (fmt->max_value && strlen(v[i]) > fmt->max_value)) {
                        for (size_t k = 0; k <= i; k++) {
                                free(v[k]);
                                v[k] = NULL;
                        }
                        return xerror_set(e, -EINVAL, _("%s:%u: malformed field %zu"), name, lineno, i + 1);
                }
        return (int) n;
}

int records_parse(const struct records_format *fmt, const char *name, const char *buf, size_t len, record_fn line_fn,
                  void *userdata, unsigned *ret_format, bool *ret_torn, struct xerror *ret_error)
{
        _cleanup_free_ char *text = NULL;
        _cleanup_free_ char **f = xcalloc(fmt->max_fields + 1, sizeof(*f));
        _cleanup_free_ char **v = xcalloc(fmt->max_fields + 1, sizeof(*v));
        unsigned lineno = 0, format = 0;
        bool header = false, ended = false, cut = false;
        char *line, *next;
        int r = 0;

        if (memchr(buf, '\0', len))
                return xerror_set(ret_error, -EINVAL, _("%s: not a text file (contains a NUL byte)"), name);
        text = xstrndup(buf, len);
        for (line = text; r >= 0 && line && *line; line = next) {
                lineno++;
                next = strchr(line, '\n');
                if (!next) {
                        r = torn(fmt, name, lineno, line, header, format, ret_error);
                        cut = r > 0;
                        break;
                }
                *next++ = '\0';
                if (!*line || line[0] == '#')
                        continue;
                if (ended)
                        return xerror_set(ret_error, -EINVAL, _("%s:%u: a line after the end record"), name, lineno);
                r = fields(fmt, name, lineno, line, f, v, ret_error);
                if (r < 0)
                        break;
                size_t n = (size_t) r;
                if (!header) {
                        r = header_line(fmt, name, lineno, v, n, &format, ret_error);
                        header = r >= 0;
                } else if (streq(v[0], "end") && format >= 2) {
                        r = end_line(name, lineno, v, n, buf, (size_t) (line - text), ret_error);
                        ended = r >= 0;
                } else
                        r = line_fn(userdata,
                                    &(const struct record) { .name = name, .lineno = lineno, .format = format,
                                                             .v = v, .f = f, .n = n },
                                    ret_error);
                for (size_t k = 0; k < n; k++) {
                        free(v[k]);
                        v[k] = NULL;
                }
        }
        if (r < 0)
                return r;
        if (!header && !cut)
                return refuse(ret_error, _(fmt->empty), name);
        if (format >= 2 && !ended)
                return refuse(ret_error, _(fmt->no_end), name);
        *ret_format = format;
        *ret_torn = cut;
        return 0;
}

int records_write(const struct rootfs *rfs, const char *path, const char *text, size_t len,
                  struct xerror *ret_error)
{
        int r = rootfs_remove_temps(rfs, path);

        if (r >= 0)
                r = rootfs_write_atomic(rfs, path, text, len, 0644, (uid_t) -1, (gid_t) -1);
        if (r < 0) {
                _cleanup_free_ char *shown = rootfs_display(rfs, path);
                _cleanup_free_ char *why = rootfs_why(rfs, path, r, 0);
                return xerror_set(ret_error, r, _("cannot write %s: %s"), shown, why);
        }
        return 0;
}
