/* hwdb.c: read .hwdb text files into one index and answer queries as sd-hwdb does */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/stat.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "hwdb.h"
#include "rootfs.h"
#include "util.h"

/* systemd's LONG_LINE_MAX: a line this long ends the file, what came before stays */
#define HWDB_LINE_MAX (1024u * 1024u)
/* all files together; keeps line numbers and array indices well inside 32 bits */
#define HWDB_TOTAL_MAX (256u * 1024u * 1024u)
/* the skip scan reads files in chunks of this size (tests/hwdb.sh cuts a key at its end) */
#define SCAN_CHUNK (64u * 1024u)
/* how much of an offending line a message quotes */
#define QUOTE_MAX 80

/* systemd 252 reads /etc/udev/hwdb.d and UDEVLIBEXECDIR/hwdb.d, which is
 * /lib/udev or /usr/lib/udev depending on how it was built; reading both
 * gives the same answer on merged-/usr roots and does not miss either kind
 * of unmerged one. For one file name the first directory wins. */
static const char *const hwdb_dirs[] = {
        "/etc/udev/hwdb.d",
        "/usr/lib/udev/hwdb.d",
        "/lib/udev/hwdb.d",
};

struct prop {
        const char *key;        /* points into the file data, after the leading space */
        const char *value;
        uint32_t line;
        uint32_t file;          /* index into paths[] and data[]: the file's priority */
};

struct match {
        const char *pattern;
        uint32_t literal;       /* bytes before the first '*', '?' or '[' */
        uint32_t first_prop;    /* the entry's properties: props[first_prop ..] */
        uint32_t n_props;
        uint32_t next;          /* 1 + next match with the same literal prefix; 0 ends */
};

/* open addressing over the literal prefixes: a query probes each prefix of
 * the modalias once instead of running fnmatch() on every pattern */
struct slot {
        uint32_t hash;
        uint32_t head;          /* 1 + first match of the chain; 0: free */
};

struct hwdb {
        char **paths;           /* files read, lowest priority first */
        char **data;            /* their contents, a NUL after every line */
        size_t n_files, bytes;

        struct prop *props;
        size_t n_props, cap_props;
        struct match *matches;
        size_t n_matches, cap_matches;

        struct slot *slots;
        size_t mask;
        size_t max_literal;

        struct xerror *warnings;
        size_t n_warnings, cap_warnings;

        locale_t c_locale;

        /* hwdb_load_keys(): the key prefixes a caller reads; NULL keeps all */
        const char *const *keys;
        size_t max_key, min_key, n_keys;
        char key_first[8], key_span[8]; /* of the first 8 keys: byte 0 and byte min_key - 1 */
        size_t skipped_files, skipped_bytes;
};

#define GROW(array, n, cap)                                                             \
        do {                                                                            \
                if ((n) >= (cap)) {                                                     \
                        (cap) = (cap) ? (cap) * 2 : 64;                                 \
                        (array) = xrealloc((array), (cap) * sizeof(*(array)));          \
                }                                                                       \
        } while (0)

static void set_error(struct xerror *ret_error, const char *file, unsigned line, const char *fmt, ...)
        _printf_(4, 5);
static void set_error(struct xerror *ret_error, const char *file, unsigned line, const char *fmt, ...)
{
        va_list ap;
        char *msg;

        if (!ret_error)
                return;
        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) < 0)
                msg = NULL;
        va_end(ap);
        xerror_done(ret_error);
        *ret_error = (struct xerror) {
                .file = file ? xstrdup(file) : NULL,
                .line = line,
                .message = msg ? msg : xstrdup(""),
        };
}

/* Record a problem; with HWDB_STRICT it is also the error that ends the load. */
static int warn_at(struct hwdb *h, unsigned flags, struct xerror *ret_error,
                   const char *file, unsigned line, const char *fmt, ...) _printf_(6, 7);
static int warn_at(struct hwdb *h, unsigned flags, struct xerror *ret_error,
                   const char *file, unsigned line, const char *fmt, ...)
{
        va_list ap;
        char *msg;

        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) < 0)
                msg = xstrdup("");
        va_end(ap);

        GROW(h->warnings, h->n_warnings, h->cap_warnings);
        h->warnings[h->n_warnings++] = (struct xerror) {
                .file = xstrdup(file),
                .line = line,
                .message = msg,
        };
        if (!(flags & HWDB_STRICT))
                return 0;
        set_error(ret_error, file, line, "%s", msg);
        return -EINVAL;
}

static struct hwdb *hwdb_new(void)
{
        struct hwdb *h = xcalloc(1, sizeof(*h));

        /* fnmatch() ranges and classes follow LC_CTYPE/LC_COLLATE; systemd-hwdb
         * and udevd run in the C locale, so queries do too, whatever the CLI set */
        h->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t) 0);
        if (!h->c_locale) {
                int saved = errno;
                free(h);
                errno = saved;
                return NULL;
        }
        return h;
}

void hwdb_free(struct hwdb *h)
{
        if (!h)
                return;
        for (size_t i = 0; i < h->n_files; i++) {
                free(h->paths[i]);
                free(h->data[i]);
        }
        free(h->paths);
        free(h->data);
        free(h->props);
        free(h->matches);
        free(h->slots);
        for (size_t i = 0; i < h->n_warnings; i++)
                xerror_done(&h->warnings[i]);
        free(h->warnings);
        if (h->c_locale)
                freelocale(h->c_locale);
        free(h);
}

static bool is_space(char c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

/* the end-of-line bytes systemd's read_line() knows */
enum {
        EOL_NUL = 1 << 0,
        EOL_LF = 1 << 1,
        EOL_CR = 1 << 2,
};

static int eol_kind(char c)
{
        switch (c) {
        case '\0': return EOL_NUL;
        case '\n': return EOL_LF;
        case '\r': return EOL_CR;
        default: return 0;
        }
}

static bool key_wanted(const struct hwdb *h, const char *key)
{
        if (!h->keys)
                return true;
        for (const char *const *k = h->keys; *k; k++)
                if (startswith(key, *k))
                        return true;
        return false;
}

/* A record's matches become visible only once it has a property: until then
 * they sit at the end of matches[] and may be dropped. A record that sets no
 * key the caller reads is dropped as well: it cannot answer any of its
 * lookups, and the records kept keep their file and line, so which of them
 * wins a key is what it was. */
static void record_end(struct hwdb *h, size_t first_match, size_t first_prop)
{
        uint32_t n = (uint32_t) (h->n_props - first_prop);
        bool wanted = !h->keys;

        for (size_t i = first_prop; i < h->n_props && !wanted; i++)
                wanted = key_wanted(h, h->props[i].key);
        if (n == 0 || !wanted) {
                h->n_matches = first_match;
                h->n_props = first_prop;
                return;
        }
        for (size_t i = first_match; i < h->n_matches; i++) {
                h->matches[i].first_prop = (uint32_t) first_prop;
                h->matches[i].n_props = n;
        }
}

static void add_match(struct hwdb *h, const char *line)
{
        GROW(h->matches, h->n_matches, h->cap_matches);
        h->matches[h->n_matches++] = (struct match) {
                .pattern = line,
                .literal = (uint32_t) strcspn(line, "*?["),
        };
}

/* " KEY=VALUE", as systemd's insert_data() takes it apart */
static int add_prop(struct hwdb *h, unsigned flags, struct xerror *ret_error,
                    uint32_t file, unsigned line_number, char *line)
{
        char *eq = strchr(line, '='), *key;

        if (!eq)
                return warn_at(h, flags, ret_error, h->paths[file], line_number,
                               _("Key-value pair expected but got \"%.*s\", ignoring."), QUOTE_MAX, line);
        *eq = '\0';
        /* systemd squeezes leading blanks down to one and keeps that one in the key */
        key = line;
        while (is_blank(key[0]) && is_blank(key[1]))
                key++;
        if (key[1] == '\0')
                return warn_at(h, flags, ret_error, h->paths[file], line_number,
                               _("Empty key in \"%s=%.*s\", ignoring."), key, QUOTE_MAX, eq + 1);
        /* sd-hwdb silently drops keys that do not start with a space (reserved
         * for extensions); a tab there is a typo worth a warning */
        if (key[0] != ' ')
                return warn_at(h, flags, ret_error, h->paths[file], line_number,
                               _("Property key \"%.*s\" is preceded by a tab, ignoring (systemd ignores it too)."),
                               QUOTE_MAX, key + 1);

        GROW(h->props, h->n_props, h->cap_props);
        h->props[h->n_props++] = (struct prop) {
                .key = key + 1,
                .value = eq + 1,
                .line = line_number,
                .file = file,
        };
        return 0;
}

/* systemd's import_file(): the same states, the same skipped lines and records */
static int parse_file(struct hwdb *h, uint32_t file, size_t size, unsigned flags, struct xerror *ret_error)
{
        char *p = h->data[file], *end = p + size;
        enum { HW_NONE, HW_MATCH, HW_DATA } state = HW_NONE;
        size_t first_match = h->n_matches, first_prop = h->n_props;
        unsigned line_number = 0;
        int r = 0;

        while (p < end) {
                char *line = p, *comment = NULL;
                size_t len;
                int seen = 0;

                /* data[size] is a NUL, so strcspn() stops at the end too */
                p += strcspn(p, "\n\r#");
                if (*p == '#') {
                        comment = p;
                        p += strcspn(p, "\n\r");
                }
                len = (size_t) (p - line);
                if (len >= HWDB_LINE_MAX) {
                        /* read_line() fails: the rest of the file is not read */
                        r = warn_at(h, flags, ret_error, h->paths[file], line_number + 1,
                                    _("Line longer than %u bytes, ignoring the rest of the file."),
                                    HWDB_LINE_MAX - 1);
                        if (r < 0)
                                return r;
                        if (state == HW_MATCH)
                                h->n_matches = first_match;
                        else if (state == HW_DATA)
                                record_end(h, first_match, first_prop);
                        return 0;
                }
                /* one line ends at a run of \n, \r and NUL with no kind twice,
                 * and right after a NUL: "\r\n" and "\n\r" are one end, "\n\n" two */
                while (p < end) {
                        int k = eol_kind(*p);

                        if (k == 0 || (seen & EOL_NUL) || (seen & k))
                                break;
                        seen |= k;
                        p++;
                }
                line[len] = '\0';
                line_number++;

                if (line[0] == '#')
                        continue;
                /* a '#' anywhere starts a comment, in values too */
                if (comment) {
                        *comment = '\0';
                        len = (size_t) (comment - line);
                }
                while (len > 0 && is_space(line[len - 1]))
                        len--;
                line[len] = '\0';

                switch (state) {
                case HW_NONE:
                        if (len == 0)
                                break;
                        if (line[0] == ' ') {
                                r = warn_at(h, flags, ret_error, h->paths[file], line_number,
                                            _("Match expected but got indented property \"%.*s\", ignoring line."),
                                            QUOTE_MAX, line);
                                if (r < 0)
                                        return r;
                                break;
                        }
                        state = HW_MATCH;
                        first_match = h->n_matches;
                        add_match(h, line);
                        break;

                case HW_MATCH:
                        if (len == 0) {
                                r = warn_at(h, flags, ret_error, h->paths[file], line_number,
                                            _("Property expected, ignoring record with no properties."));
                                if (r < 0)
                                        return r;
                                h->n_matches = first_match;
                                state = HW_NONE;
                                break;
                        }
                        if (line[0] != ' ') {
                                add_match(h, line);
                                break;
                        }
                        state = HW_DATA;
                        first_prop = h->n_props;
                        r = add_prop(h, flags, ret_error, file, line_number, line);
                        if (r < 0)
                                return r;
                        break;

                case HW_DATA:
                        if (len == 0) {
                                record_end(h, first_match, first_prop);
                                state = HW_NONE;
                                break;
                        }
                        if (line[0] != ' ') {
                                /* the properties so far stay; this line starts nothing */
                                record_end(h, first_match, first_prop);
                                state = HW_NONE;
                                r = warn_at(h, flags, ret_error, h->paths[file], line_number,
                                            _("Property or empty line expected, got \"%.*s\", ignoring record."),
                                            QUOTE_MAX, line);
                                if (r < 0)
                                        return r;
                                break;
                        }
                        r = add_prop(h, flags, ret_error, file, line_number, line);
                        if (r < 0)
                                return r;
                        break;
                }
        }

        if (state == HW_MATCH) {
                h->n_matches = first_match;
                r = warn_at(h, flags, ret_error, h->paths[file], line_number,
                            _("Property expected, ignoring record with no properties."));
                if (r < 0)
                        return r;
        } else if (state == HW_DATA)
                record_end(h, first_match, first_prop);
        return 0;
}

static int read_fd(int fd, size_t budget, char **ret, size_t *ret_size)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, cap;
        struct stat st;

        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        if ((uint64_t) st.st_size > budget)
                return -EFBIG;
        cap = (size_t) st.st_size + 1;
        buf = xmalloc(cap + 1);
        for (;;) {
                ssize_t n;

                if (len == cap) {
                        /* the file grew since fstat() */
                        if (cap > budget)
                                return -EFBIG;
                        cap *= 2;
                        buf = xrealloc(buf, cap + 1);
                }
                n = read(fd, buf + len, cap - len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                len += (size_t) n;
        }
        if (len > budget)
                return -EFBIG;
        buf[len] = '\0';
        *ret = TAKE_PTR(buf);
        *ret_size = len;
        return 0;
}

/* Does BUF[0..N) hold one of the wanted keys, whole? With SSE2, 16
 * positions at a time are tested for the first byte and the byte at
 * min_key - 1 of any key (rare together in hwdb text: the vendor and model
 * databases are mostly "ID_..._FROM_DATABASE" lines), and only those
 * candidates are compared; otherwise one memmem() per key. A key cut by the
 * end of BUF is the next chunk's (the scan carries max_key - 1 bytes over). */
static bool chunk_mentions_keys(const struct hwdb *h, const char *buf, size_t n)
{
        size_t i = 0;

#ifdef __SSE2__
        size_t span = h->min_key - 1;   /* the second test byte's offset */

        if (h->n_keys <= ELEMENTSOF(h->key_first) && h->min_key >= 2) {
                bool one_first = true;

                /* the usual case: all keys start with the same byte ("ID") */
                for (size_t k = 1; k < h->n_keys; k++)
                        one_first = one_first && h->key_first[k] == h->key_first[0];
                for (; i + 16 + span <= n; i += 16) {
                        __m128i a = _mm_loadu_si128((const __m128i *) (buf + i));
                        __m128i b = _mm_loadu_si128((const __m128i *) (buf + i + span));
                        __m128i hit = _mm_setzero_si128();
                        unsigned mask;

                        for (size_t k = 0; k < h->n_keys; k++)
                                hit = _mm_or_si128(hit, one_first ?
                                        _mm_cmpeq_epi8(b, _mm_set1_epi8(h->key_span[k])) :
                                        _mm_and_si128(_mm_cmpeq_epi8(a, _mm_set1_epi8(h->key_first[k])),
                                                      _mm_cmpeq_epi8(b, _mm_set1_epi8(h->key_span[k]))));
                        if (one_first)
                                hit = _mm_and_si128(hit, _mm_cmpeq_epi8(a, _mm_set1_epi8(h->key_first[0])));
                        for (mask = (unsigned) _mm_movemask_epi8(hit); mask; mask &= mask - 1) {
                                size_t at = i + (size_t) __builtin_ctz(mask);

                                for (const char *const *k = h->keys; *k; k++) {
                                        size_t len = strlen(*k);
                                        if (at + len <= n && memcmp(buf + at, *k, len) == 0)
                                                return true;
                                }
                        }
                }
                /* the last few positions one by one */
                for (; i < n; i++)
                        for (const char *const *k = h->keys; *k; k++) {
                                size_t len = strlen(*k);
                                if (i + len <= n && memcmp(buf + i, *k, len) == 0)
                                        return true;
                        }
                return false;
        }
#endif
        for (const char *const *k = h->keys; *k; k++)
                if (memmem(buf + i, n - i, *k, strlen(*k)))
                        return true;
        return false;
}

/* Does the regular file FD mention any of the wanted keys anywhere (a cheap
 * superset of "sets one of them")? Read in fixed chunks, so that skipping a
 * file costs neither its size in memory nor a parse. Errors, and files
 * the full read refuses: yes, and the full read reports them. */
static bool fd_mentions_keys(const struct hwdb *h, int fd)
{
        char buf[SCAN_CHUNK + 1];
        size_t keep = 0;
        off_t off = 0;
        struct stat st;

        /* not a regular file, or over the size limit: the full read says so */
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t) st.st_size > HWDB_TOTAL_MAX - h->bytes)
                return true;
        for (;;) {
                ssize_t n = pread(fd, buf + keep, sizeof(buf) - 1 - keep, off);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return true;
                }
                if (n == 0)
                        return false;
                off += n;
                n += (ssize_t) keep;
                if (chunk_mentions_keys(h, buf, (size_t) n))
                        return true;
                /* a key cut by the chunk's end is found in the next one */
                keep = (size_t) n < h->max_key - 1 ? (size_t) n : h->max_key - 1;
                memmove(buf, buf + n - keep, keep);
        }
}

/* A file that cannot be read: systemd skips it with a warning; with
 * HWDB_FILES_REQUIRED it is the error (its deny entries must not go missing). */
static int unreadable(struct hwdb *h, unsigned flags, struct xerror *ret_error, const char *path, int r)
{
        if (flags & HWDB_FILES_REQUIRED) {
                set_error(ret_error, path, 0, _("cannot read this hwdb file: %s; its entries would be missing"),
                          rootfs_strerror(r));
                return r;
        }
        if (r == -EBADFD || r == -EISDIR)
                return warn_at(h, flags, ret_error, path, 0, _("Not a regular file, ignoring."));
        return warn_at(h, flags, ret_error, path, 0, _("Cannot read, ignoring: %s"), strerror(-r));
}

/* Add one file; fd < 0 stands for a masked (empty) one. */
static int add_file(struct hwdb *h, const char *path, int fd, unsigned flags, struct xerror *ret_error)
{
        uint32_t file = (uint32_t) h->n_files;
        char *data = NULL;
        size_t size = 0;
        int r;

        if (fd >= 0 && h->keys && !fd_mentions_keys(h, fd)) {
                struct stat st;

                /* not one wanted key in it: nothing it holds can answer */
                h->skipped_files++;
                if (fstat(fd, &st) == 0)
                        h->skipped_bytes += (size_t) st.st_size;
                return 0;
        }

        if (h->n_files >= UINT16_MAX) {
                /* systemd counts file priorities in 16 bits */
                set_error(ret_error, path, 0, _("Too many hwdb files."));
                return -E2BIG;
        }
        if (fd >= 0) {
                r = read_fd(fd, HWDB_TOTAL_MAX - h->bytes, &data, &size);
                if (r < 0)
                        return unreadable(h, flags, ret_error, path, r);
        } else
                data = xstrdup("");

        h->paths = xrealloc(h->paths, (h->n_files + 1) * sizeof(*h->paths));
        h->data = xrealloc(h->data, (h->n_files + 1) * sizeof(*h->data));
        h->paths[file] = xstrdup(path);
        h->data[file] = data;
        h->n_files++;
        h->bytes += size;
        return parse_file(h, file, size, flags, ret_error);
}

static uint32_t hash_step(uint32_t hash, char c)
{
        /* FNV-1a: extends byte by byte, as a query walks the modalias */
        return (hash ^ (uint8_t) c) * 16777619u;
}

#define HASH_INIT 2166136261u

static void build_index(struct hwdb *h)
{
        size_t n_slots = 64;

        /* the arrays grew by doubling; give back what the parse did not use */
        if (h->n_props > 0 && h->n_props < h->cap_props) {
                h->props = xrealloc(h->props, h->n_props * sizeof(*h->props));
                h->cap_props = h->n_props;
        }
        if (h->n_matches > 0 && h->n_matches < h->cap_matches) {
                h->matches = xrealloc(h->matches, h->n_matches * sizeof(*h->matches));
                h->cap_matches = h->n_matches;
        }

        while (n_slots < h->n_matches * 2)
                n_slots *= 2;
        free(h->slots);
        h->slots = xcalloc(n_slots, sizeof(*h->slots));
        h->mask = n_slots - 1;
        h->max_literal = 0;

        for (size_t i = 0; i < h->n_matches; i++) {
                struct match *m = &h->matches[i];
                uint32_t hash = HASH_INIT;
                size_t s;

                for (uint32_t k = 0; k < m->literal; k++)
                        hash = hash_step(hash, m->pattern[k]);
                if (m->literal > h->max_literal)
                        h->max_literal = m->literal;

                for (s = hash & h->mask; h->slots[s].head; s = (s + 1) & h->mask) {
                        const struct match *o = &h->matches[h->slots[s].head - 1];

                        if (h->slots[s].hash == hash && o->literal == m->literal &&
                            memcmp(o->pattern, m->pattern, m->literal) == 0)
                                break;
                }
                m->next = h->slots[s].head;
                h->slots[s] = (struct slot) { .hash = hash, .head = (uint32_t) i + 1 };
        }
}

static struct hwdb *hwdb_new_or_error(struct xerror *ret_error, int *ret_r)
{
        struct hwdb *h = hwdb_new();

        if (!h) {
                *ret_r = -errno;
                set_error(ret_error, NULL, 0, _("Cannot create the C locale: %s"), strerror(errno));
        }
        return h;
}

int hwdb_load_files(const char *const *paths, unsigned flags, struct hwdb **ret, struct xerror *ret_error)
{
        _cleanup_(hwdb_freep) struct hwdb *h = NULL;
        int r = 0;

        h = hwdb_new_or_error(ret_error, &r);
        if (!h)
                return r;
        for (size_t i = 0; paths && paths[i]; i++) {
                /* O_NONBLOCK: a FIFO must not hang the load; it is refused as not regular */
                _cleanup_close_ int fd = open(paths[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

                if (fd < 0) {
                        r = unreadable(h, flags, ret_error, paths[i], -errno);
                        if (r < 0)
                                return r;
                        continue;
                }
                r = add_file(h, paths[i], fd, flags, ret_error);
                if (r < 0)
                        return r;
        }
        build_index(h);
        *ret = TAKE_PTR(h);
        return 0;
}

struct conf_name {
        char *name;
        size_t dir;
};

static int conf_name_cmp(const void *a, const void *b)
{
        const struct conf_name *x = a, *y = b;
        int c = strcmp(x->name, y->name);

        if (c != 0)
                return c;
        return x->dir < y->dir ? -1 : x->dir > y->dir;
}

static bool is_hwdb_name(const char *name)
{
        size_t n = strlen(name);

        /* systemd skips hidden files; ".hwdb" alone is one */
        return name[0] != '.' && n > 5 && streq(name + n - 5, ".hwdb");
}

/* a symlink to /dev/null masks the same name in later directories */
static bool is_masked(int dirfd, const char *name)
{
        char target[16];
        ssize_t n = readlinkat(dirfd, name, target, sizeof(target) - 1);

        if (n < 0)
                return false;
        target[n] = '\0';
        return streq(target, "/dev/null");
}

struct conf_list {
        struct conf_name *v;
        size_t n, cap;
        int dirfd[ELEMENTSOF(hwdb_dirs)];
};

static void conf_list_done(struct conf_list *l)
{
        for (size_t i = 0; i < l->n; i++)
                free(l->v[i].name);
        free(l->v);
        for (size_t i = 0; i < ELEMENTSOF(l->dirfd); i++)
                if (l->dirfd[i] >= 0)
                        close(l->dirfd[i]);
}

static int conf_list_dir(struct conf_list *l, const struct rootfs *rfs, size_t d, struct xerror *ret_error)
{
        DIR *dir;
        struct dirent *de;
        int fd, r = 0;

        fd = rootfs_openat(rfs, hwdb_dirs[d], O_RDONLY | O_DIRECTORY);
        if (fd == -ENOENT || fd == -ENOTDIR)
                return 0;
        if (fd < 0) {
                set_error(ret_error, hwdb_dirs[d], 0, _("Cannot read the directory: %s"), strerror(-fd));
                return fd;
        }
        l->dirfd[d] = fd;
        fd = fcntl(l->dirfd[d], F_DUPFD_CLOEXEC, 3);
        if (fd < 0 || !(dir = fdopendir(fd))) {
                r = -errno;
                if (fd >= 0)
                        close(fd);
                set_error(ret_error, hwdb_dirs[d], 0, _("Cannot read the directory: %s"), strerror(-r));
                return r;
        }
        for (;;) {
                errno = 0;
                de = readdir(dir);
                if (!de) {
                        r = -errno;
                        break;
                }
                if (!is_hwdb_name(de->d_name))
                        continue;
                GROW(l->v, l->n, l->cap);
                l->v[l->n++] = (struct conf_name) { .name = xstrdup(de->d_name), .dir = d };
        }
        closedir(dir);
        if (r < 0)
                set_error(ret_error, hwdb_dirs[d], 0, _("Cannot read the directory: %s"), strerror(-r));
        return r;
}

int hwdb_load_rootfs(const struct rootfs *rfs, unsigned flags, struct hwdb **ret, struct xerror *ret_error)
{
        return hwdb_load_rootfs_keys(rfs, flags, NULL, ret, ret_error);
}

int hwdb_load_rootfs_keys(const struct rootfs *rfs, unsigned flags, const char *const *keys, struct hwdb **ret,
                          struct xerror *ret_error)
{
        _cleanup_(hwdb_freep) struct hwdb *h = NULL;
        _cleanup_(conf_list_done) struct conf_list l = {};
        int r = 0;

        for (size_t d = 0; d < ELEMENTSOF(l.dirfd); d++)
                l.dirfd[d] = -1;

        for (size_t d = 0; d < ELEMENTSOF(hwdb_dirs); d++) {
                r = conf_list_dir(&l, rfs, d, ret_error);
                if (r < 0)
                        return r;
        }
        if (l.n > 0)
                qsort(l.v, l.n, sizeof(*l.v), conf_name_cmp);

        h = hwdb_new_or_error(ret_error, &r);
        if (!h)
                return r;
        h->keys = keys;
        for (const char *const *k = keys; k && *k; k++)
                if (strlen(*k) > h->max_key)
                        h->max_key = strlen(*k);
        for (const char *const *k = keys; k && *k; k++)
                if (h->n_keys++ == 0 || strlen(*k) < h->min_key)
                        h->min_key = strlen(*k);
        for (size_t i = 0; h->min_key > 0 && i < h->n_keys && i < ELEMENTSOF(h->key_first); i++) {
                h->key_first[i] = keys[i][0];
                h->key_span[i] = keys[i][h->min_key - 1];
        }
        if (keys && h->max_key == 0)
                h->keys = NULL;         /* an empty prefix wants everything */
        for (size_t i = 0; i < l.n; i++) {
                const struct conf_name *c = &l.v[i];
                _cleanup_free_ char *path = NULL;
                _cleanup_close_ int fd = -1;

                /* the same name in an earlier directory won */
                if (i > 0 && streq(c->name, l.v[i - 1].name))
                        continue;
                path = xasprintf("%s/%s", hwdb_dirs[c->dir], c->name);
                if (!is_masked(l.dirfd[c->dir], c->name)) {
                        /* O_NONBLOCK: a FIFO must not hang the load; it is refused as not regular */
                        fd = rootfs_openat(rfs, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
                        if (fd < 0) {
                                /* a dangling symlink, say: systemd skips it */
                                r = unreadable(h, flags, ret_error, path, fd);
                                if (r < 0)
                                        return r;
                                continue;
                        }
                }
                r = add_file(h, path, fd, flags, ret_error);
                if (r < 0)
                        return r;
        }
        build_index(h);
        *ret = TAKE_PTR(h);
        return 0;
}

int hwdb_load(const char *root, unsigned flags, struct hwdb **ret, struct xerror *ret_error)
{
        return hwdb_load_keys(root, flags, NULL, ret, ret_error);
}

int hwdb_load_keys(const char *root, unsigned flags, const char *const *keys, struct hwdb **ret,
                   struct xerror *ret_error)
{
        const char *rootdir = root_is_host(root) ? "/" : root;
        struct rootfs rfs = { .fd = -1 };
        int r;

        r = rootfs_open(rootdir, &rfs);
        if (r < 0) {
                set_error(ret_error, rootdir, 0, _("Cannot open the root directory: %s"), strerror(-r));
                return r;
        }
        r = hwdb_load_rootfs_keys(&rfs, flags, keys, ret, ret_error);
        rootfs_close(&rfs);
        return r;
}

const struct xerror *hwdb_warnings(const struct hwdb *h, size_t *ret_n)
{
        *ret_n = h->n_warnings;
        return h->warnings;
}

const char *const *hwdb_files(const struct hwdb *h, size_t *ret_n)
{
        *ret_n = h->n_files;
        return (const char *const *) h->paths;
}

void hwdb_stats(const struct hwdb *h, struct hwdb_stats *ret)
{
        *ret = (struct hwdb_stats) {
                .files = h->n_files,
                .matches = h->n_matches,
                .properties = h->n_props,
                .bytes = h->bytes,
                .skipped_files = h->skipped_files,
                .skipped_bytes = h->skipped_bytes,
        };
}

/* The order in which sd-hwdb's trie walk reaches the patterns: shorter
 * literal prefix first; then byte order, a pattern after those it is a
 * prefix of (children before the node's own values). */
static int walk_cmp(const void *a, const void *b)
{
        const struct match *x = *(const struct match *const *) a, *y = *(const struct match *const *) b;
        const unsigned char *p, *q;

        if (x->literal != y->literal)
                return x->literal < y->literal ? -1 : 1;
        for (p = (const unsigned char *) x->pattern, q = (const unsigned char *) y->pattern; *p == *q; p++, q++)
                if (*p == '\0')
                        return 0;
        if (*p == '\0')
                return 1;
        if (*q == '\0')
                return -1;
        return *p < *q ? -1 : 1;
}

struct cand {
        const struct prop *prop;
        const struct match *match;
        uint32_t group;         /* rank of the match's pattern in walk order */
};

/* by key; then the winner first: highest (file, line), earliest pattern */
static int cand_cmp(const void *a, const void *b)
{
        const struct cand *x = a, *y = b;
        int c = strcmp(x->prop->key, y->prop->key);

        if (c != 0)
                return c;
        if (x->prop->file != y->prop->file)
                return x->prop->file > y->prop->file ? -1 : 1;
        if (x->prop->line != y->prop->line)
                return x->prop->line > y->prop->line ? -1 : 1;
        return x->group < y->group ? -1 : x->group > y->group;
}

/* a key is printed where the walk first met it: earliest pattern, then key order */
static int result_cmp(const void *a, const void *b)
{
        const struct cand *x = a, *y = b;

        if (x->group != y->group)
                return x->group < y->group ? -1 : 1;
        return strcmp(x->prop->key, y->prop->key);
}

static void find_matches(const struct hwdb *h, const char *modalias,
                         const struct match ***ret, size_t *ret_n)
{
        const struct match **hits = NULL;
        size_t n = 0, cap = 0, len = strlen(modalias);
        uint32_t hash = HASH_INIT;
        locale_t old;

        if (h->n_matches == 0) {
                *ret = NULL;
                *ret_n = 0;
                return;
        }
        old = uselocale(h->c_locale);
        for (size_t k = 0; k <= len && k <= h->max_literal; k++) {
                size_t s;

                if (k > 0)
                        hash = hash_step(hash, modalias[k - 1]);
                for (s = hash & h->mask; h->slots[s].head; s = (s + 1) & h->mask) {
                        const struct match *o = &h->matches[h->slots[s].head - 1];

                        if (h->slots[s].hash == hash && o->literal == k && memcmp(o->pattern, modalias, k) == 0)
                                break;
                }
                for (uint32_t i = h->slots[s].head; i; i = h->matches[i - 1].next) {
                        const struct match *m = &h->matches[i - 1];

                        /* the literal part is equal; sd-hwdb hands fnmatch() only
                         * the rest of both strings, from the first glob on */
                        if (m->pattern[k] == '\0' ? k != len : fnmatch(m->pattern + k, modalias + k, 0) != 0)
                                continue;
                        GROW(hits, n, cap);
                        hits[n++] = m;
                }
        }
        uselocale(old);
        *ret = hits;
        *ret_n = n;
}

int hwdb_query(const struct hwdb *h, const char *modalias, struct hwdb_property **ret, size_t *ret_n)
{
        _cleanup_free_ const struct match **hits = NULL;
        _cleanup_free_ struct cand *cands = NULL;
        struct hwdb_property *props;
        size_t n_hits, n_cands = 0, n_out = 0;
        uint32_t group = 0;

        if (!h || !modalias)
                return -EINVAL;

        find_matches(h, modalias, &hits, &n_hits);
        if (n_hits > 1)
                qsort(hits, n_hits, sizeof(*hits), walk_cmp);

        for (size_t i = 0; i < n_hits; i++)
                n_cands += hits[i]->n_props;
        cands = xmalloc(n_cands * sizeof(*cands));
        n_cands = 0;
        for (size_t i = 0; i < n_hits; i++) {
                /* equal patterns share one trie node in systemd: one group */
                if (i > 0 && walk_cmp(&hits[i - 1], &hits[i]) != 0)
                        group++;
                for (uint32_t j = 0; j < hits[i]->n_props; j++)
                        cands[n_cands++] = (struct cand) {
                                .prop = &h->props[hits[i]->first_prop + j],
                                .match = hits[i],
                                .group = group,
                        };
        }
        if (n_cands > 1)
                qsort(cands, n_cands, sizeof(*cands), cand_cmp);

        /* keep each key's winner, placed at the first group that had the key */
        for (size_t i = 0; i < n_cands;) {
                struct cand best = cands[i];
                size_t j = i + 1;

                for (; j < n_cands && streq(cands[j].prop->key, best.prop->key); j++)
                        if (cands[j].group < best.group)
                                best.group = cands[j].group;
                cands[n_out++] = best;
                i = j;
        }
        if (n_out > 1)
                qsort(cands, n_out, sizeof(*cands), result_cmp);

        props = xmalloc(n_out * sizeof(*props));
        for (size_t i = 0; i < n_out; i++)
                props[i] = (struct hwdb_property) {
                        .key = cands[i].prop->key,
                        .value = cands[i].prop->value,
                        .file = h->paths[cands[i].prop->file],
                        .line = cands[i].prop->line,
                        .match = cands[i].match->pattern,
                };
        *ret = props;
        *ret_n = n_out;
        return 0;
}

int hwdb_get_keys(const struct hwdb *h, const char *modalias, const char *const *keys, size_t n_keys,
                  struct hwdb_property *ret)
{
        _cleanup_free_ struct hwdb_property *props = NULL;
        size_t n;
        int r, found = 0;

        r = hwdb_query(h, modalias, &props, &n);
        if (r < 0)
                return r;
        for (size_t k = 0; k < n_keys; k++) {
                ret[k] = (struct hwdb_property) {};
                for (size_t i = 0; keys[k] && i < n; i++)
                        if (streq(props[i].key, keys[k])) {
                                ret[k] = props[i];
                                found++;
                                break;
                        }
        }
        return found;
}

int hwdb_get(const struct hwdb *h, const char *modalias, const char *key, struct hwdb_property *ret)
{
        _cleanup_free_ struct hwdb_property *props = NULL;
        size_t n;
        int r;

        if (!key)
                return -EINVAL;
        r = hwdb_query(h, modalias, &props, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (streq(props[i].key, key)) {
                        *ret = props[i];
                        return 0;
                }
        return -ENOENT;
}

size_t hwdb_all_properties(const struct hwdb *h, struct hwdb_property **ret)
{
        struct hwdb_property *a = xcalloc(h->n_props ? h->n_props : 1, sizeof(*a));

        for (size_t i = 0; i < h->n_props; i++)
                a[i] = (struct hwdb_property) {
                        .key = h->props[i].key,
                        .value = h->props[i].value,
                        .file = h->paths[h->props[i].file],
                        .line = h->props[i].line,
                };
        *ret = a;
        return h->n_props;
}
