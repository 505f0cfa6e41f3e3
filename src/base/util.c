/* util.c: allocation, strings, key/value lists and sysfs reads */
#include "config.h"

#include <dlfcn.h>

#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/stat.h>

#include "base/util.h"

static void oom(void)
{
        fputs("idlecfg: out of memory\n", stderr);
        abort();
}

void *xmalloc(size_t n)
{
        void *p = malloc(n ? n : 1);
        if (!p)
                oom();
        return p;
}

void *xcalloc(size_t n, size_t size)
{
        void *p = calloc(n ? n : 1, size ? size : 1);
        if (!p)
                oom();
        return p;
}

void *xrealloc(void *p, size_t n)
{
        p = realloc(p, n ? n : 1);
        if (!p)
                oom();
        return p;
}

char *xstrdup(const char *s)
{
        char *p = strdup(s);
        if (!p)
                oom();
        return p;
}

char *xstrndup(const char *s, size_t n)
{
        char *p = strndup(s, n);
        if (!p)
                oom();
        return p;
}

char *xasprintf(const char *fmt, ...)
{
        va_list ap;
        char *p;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&p, fmt, ap);
        va_end(ap);
        if (r < 0)
                oom();
        return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
        va_list aq;
        char *s;
        int n;

        va_copy(aq, ap);
        n = vsnprintf(NULL, 0, fmt, aq);
        va_end(aq);
        if (n < 0)
                n = 0;
        s = xmalloc((size_t) n + 1);
        s[0] = '\0';
        vsnprintf(s, (size_t) n + 1, fmt, ap);
        return s;
}

static void sb_grow(struct strbuf *sb, size_t extra)
{
        if (sb->len + extra + 1 <= sb->cap)
                return;
        sb->cap = (sb->len + extra + 1) * 2;
        if (sb->cap < 64)
                sb->cap = 64;
        sb->s = xrealloc(sb->s, sb->cap);
}

void sb_appendn(struct strbuf *sb, const char *s, size_t n)
{
        sb_grow(sb, n);
        memcpy(sb->s + sb->len, s, n);
        sb->len += n;
        sb->s[sb->len] = '\0';
}

void sb_append(struct strbuf *sb, const char *s)
{
        sb_appendn(sb, s, strlen(s));
}

void sb_putc(struct strbuf *sb, char c)
{
        sb_appendn(sb, &c, 1);
}

void sb_appendf(struct strbuf *sb, const char *fmt, ...)
{
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        if (n < 0)
                return;
        sb_grow(sb, (size_t) n);
        va_start(ap, fmt);
        vsnprintf(sb->s + sb->len, (size_t) n + 1, fmt, ap);
        va_end(ap);
        sb->len += (size_t) n;
}

char *sb_steal(struct strbuf *sb)
{
        char *s = sb->s ? sb->s : xstrdup("");
        *sb = (struct strbuf) {};
        return s;
}

void sb_free(struct strbuf *sb)
{
        free(sb->s);
        *sb = (struct strbuf) {};
}

/* an open-addressing set of strings, grown at three quarters full */
static struct {
        char **v;
        size_t n, cap;
} interned;

static size_t str_hash(const char *s)
{
        size_t h = 5381;

        for (; *s; s++)
                h = h * 33 + (unsigned char) *s;
        return h;
}

const char *str_intern(const char *s)
{
        size_t i;

        if (4 * (interned.n + 1) > 3 * interned.cap) {
                size_t cap = interned.cap ? interned.cap * 2 : 256;
                char **v = xcalloc(cap, sizeof(*v));

                for (size_t k = 0; k < interned.cap; k++)
                        if (interned.v[k]) {
                                for (i = str_hash(interned.v[k]) & (cap - 1); v[i]; i = (i + 1) & (cap - 1))
                                        ;
                                v[i] = interned.v[k];
                        }
                free(interned.v);
                interned.v = v;
                interned.cap = cap;
        }
        for (i = str_hash(s) & (interned.cap - 1); interned.v[i]; i = (i + 1) & (interned.cap - 1))
                if (streq(interned.v[i], s))
                        return interned.v[i];
        interned.n++;
        return interned.v[i] = xstrdup(s);
}

void kv_add_take(struct kvlist *l, const char *key, char *value)
{
        if (l->n == l->cap) {
                l->cap = l->cap ? l->cap * 2 : 8;
                l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
        }
        l->v[l->n++] = (struct kv) { .key = str_intern(key), .value = value };
}

void kv_add(struct kvlist *l, const char *key, const char *value)
{
        kv_add_take(l, key, value ? xstrdup(value) : NULL);
}

const struct kv *kv_find(const struct kvlist *l, const char *key)
{
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->v[i].key, key))
                        return &l->v[i];
        return NULL;
}

void kv_set(struct kvlist *l, const char *key, const char *value)
{
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->v[i].key, key)) {
                        free(l->v[i].value);
                        l->v[i].value = value ? xstrdup(value) : NULL;
                        return;
                }
        kv_add(l, key, value);
}

const char *kv_get(const struct kvlist *l, const char *key)
{
        const struct kv *kv = kv_find(l, key);
        return kv ? kv->value : NULL;
}

void kv_free(struct kvlist *l)
{
        for (size_t i = 0; i < l->n; i++)
                free(l->v[i].value);
        free(l->v);
        *l = (struct kvlist) {};
}

char *strstrip(char *s)
{
        size_t n;

        s += strspn(s, " \t\n\r");
        n = strlen(s);
        while (n > 0 && strchr(" \t\n\r", s[n - 1]))
                s[--n] = '\0';
        return s;
}

const char *cmdline_line_end(const char *text, size_t len)
{
        if (len >= 2 && text[len - 2] == '\r' && text[len - 1] == '\n')
                return "\r\n";
        return len && text[len - 1] == '\n' ? "\n" : "";
}

char *words_missing(const char *line, const char *words)
{
        _cleanup_free_ char *w = xstrdup(words);
        struct strbuf sb = {};
        char *save = NULL;

        for (char *tok = strtok_r(w, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
                bool have = false;
                size_t n = strlen(tok);
                for (const char *p = line; *p && !have;) {
                        size_t k;
                        p += strspn(p, " \t");
                        k = strcspn(p, " \t");
                        have = k == n && strncmp(p, tok, n) == 0;
                        p += k;
                }
                for (const char *p = sb_str(&sb); *p && !have;) {
                        size_t k = strcspn(p, " ");
                        have = k == n && strncmp(p, tok, n) == 0;
                        p += k + (p[k] == ' ');
                }
                if (!have)
                        sb_appendf(&sb, "%s%s", sb.len ? " " : "", tok);
        }
        return sb_steal(&sb);
}

int dlopen_syms(const char *soname, const struct dlsym_arg *syms, size_t n_syms, void **ret_dl, char **ret_error)
{
        void *dl = dlopen(soname, RTLD_NOW | RTLD_NODELETE);

        if (!dl) {
                *ret_error = xstrdup(dlerror());
                return -ELIBACC;
        }
        for (size_t i = 0; i < n_syms; i++) {
                *syms[i].sym = dlsym(dl, syms[i].name);
                if (!*syms[i].sym) {
                        *ret_error = xstrdup(dlerror());
                        dlclose(dl);
                        return -ELIBACC;
                }
        }
        *ret_dl = dl;
        return 0;
}

/* IDLECFG_TRACE_READS=FILE (tests): every path of the root that is opened,
 * read or looked at (not written), and every live attribute read (read_live:
 * /sys, /proc/sys), one a line "KIND PATH", appended to FILE, so that a test
 * can compare what plan reads with what refresh digests, and count how often
 * a run reads a file. KIND: read (rootfs_read_file), open (rootfs_openat to
 * read), dir (a directory to list), path (O_PATH: whether it exists), lstat,
 * live. */
void trace_read(const char *kind, const char *path)
{
        static int state;       /* 0 not looked, 1 on, -1 off */
        static FILE *f;

        if (state == 0) {
                const char *file = secure_getenv("IDLECFG_TRACE_READS");
                f = file && *file ? fopen(file, "ae") : NULL;
                state = f ? 1 : -1;
        }
        if (state > 0) {
                fprintf(f, "%s %s\n", kind, path);
                fflush(f);
        }
}

/* The one reader of a live attribute: one read() of a page at most from FD,
 * opened O_NONBLOCK; the value as TRIM says (util.h). */
#define ATTR_MAX 4096
int read_live_fd(int fd, enum live_trim trim, char **ret)
{
        char buf[ATTR_MAX + 1];
        ssize_t n;

        if (fd < 0)
                return -errno;
        n = read(fd, buf, ATTR_MAX);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        switch (trim) {
        case LIVE_RAW:
                if (memchr(buf, '\0', (size_t) n))
                        return -EBADMSG;
                break;
        case LIVE_LINE:
                /* only the first line: sysfs attributes are single values */
                buf[strcspn(buf, "\n")] = '\0';
                for (size_t l = strlen(buf); l > 0 && (buf[l - 1] == ' ' || buf[l - 1] == '\t'); l--)
                        buf[l - 1] = '\0';
                break;
        case LIVE_STRIP:
                buf[strcspn(buf, "\n")] = '\0';
                *ret = xstrdup(strstrip(buf));
                return 0;
        }
        *ret = xstrdup(buf);
        return 0;
}

static struct denied *denied_v;
static size_t denied_n;

void denied_note(const char *path, int err)
{
        if (geteuid() == 0 || (err != -EACCES && err != -EPERM))
                return;
        for (size_t i = 0; i < denied_n; i++)
                if (streq(denied_v[i].path, path))
                        return;
        denied_v = xrealloc(denied_v, (denied_n + 1) * sizeof(*denied_v));
        denied_v[denied_n++] = (struct denied) { .path = xstrdup(path), .err = err };
}

const struct denied *denied_list(size_t *ret_n)
{
        *ret_n = denied_n;
        return denied_v;
}

int read_live(const char *path, enum live_trim trim, char **ret)
{
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        int r;

        trace_read("live", path);
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        r = read_live_fd(fd, trim, ret);
        /* refused, and root could read it (a write-only attribute is nobody's to read) */
        if ((r == -EACCES || r == -EPERM) && stat(path, &st) == 0 && (st.st_mode & S_IRUSR))
                denied_note(path, r);
        return r;
}

int read_attr_at(int dirfd, const char *attr, char **ret)
{
        _cleanup_close_ int fd = openat(dirfd, attr, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

        return read_live_fd(fd, LIVE_LINE, ret);
}

/* one open of DIR/ATTR: under umockdev a path is translated once, where an
 * open of the directory and an openat() in it cost three times the calls */
int read_attr(const char *dir, const char *attr, char **ret)
{
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, attr);

        return read_live(path, LIVE_LINE, ret);
}

int read_raw(const char *path, char **ret)
{
        return read_live(path, LIVE_RAW, ret);
}

/* The one loop that reads a whole file: FD's size, where fstat() knows it,
 * sizes the buffer, so that a regular file takes one read() and one more
 * that finds its end. */
int read_fd_full(int fd, size_t max, char **ret, size_t *ret_len)
{
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t len = 0, cap = 8191;

        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
                cap = (uint64_t) st.st_size < max ? (size_t) st.st_size + 1 : max + 1;
        buf = xmalloc(cap + 1);
        for (;;) {
                ssize_t n;

                if (len == cap) {
                        /* the file grew since fstat(), or its size was not known */
                        if (cap > max)
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
                if (len > max)
                        return -EFBIG;
        }
        buf[len] = '\0';
        if (ret_len)
                *ret_len = len;
        *ret = TAKE_PTR(buf);
        return 0;
}

int read_file_full(const char *path, size_t max, char **ret, size_t *ret_len)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

        if (fd < 0)
                return -errno;
        return read_fd_full(fd, max, ret, ret_len);
}

/* "a [b] c" -> "b"; a value without brackets is returned whole */
int parse_selected(const char *list, char **ret)
{
        const char *a = strchr(list, '['), *b;

        if (!a) {
                *ret = xstrdup(list);
                return 0;
        }
        b = strchr(a, ']');
        if (!b || b == a + 1)
                return -EINVAL;
        *ret = xstrndup(a + 1, (size_t) (b - a - 1));
        return 0;
}

bool root_is_host(const char *root)
{
        return !root || streq(root, "/") || streq(root, "");
}

char *root_path(const char *root, const char *path)
{
        if (root_is_host(root))
                return xstrdup(path);
        return xasprintf("%s%s%s", root, path[0] == '/' ? "" : "/", path);
}

void strv_free(char **v)
{
        for (char **x = v; x && *x; x++)
                free(*x);
        free(v);
}

void strv_free_n(char **v, size_t n)
{
        for (size_t i = 0; v && i < n; i++)
                free(v[i]);
        free(v);
}

int strv_cmp(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int xerror_set(struct xerror *e, int r, const char *fmt, ...)
{
        va_list ap;

        if (!e || e->message)
                return r;
        va_start(ap, fmt);
        if (vasprintf(&e->message, fmt, ap) < 0) {
                e->message = NULL;
                abort();
        }
        va_end(ap);
        return r;
}

void xerror_set_take(struct xerror *e, const char *file, unsigned line, char *message)
{
        if (!e) {
                free(message);
                return;
        }
        xerror_done(e);
        *e = (struct xerror) {
                .file = file ? xstrdup(file) : NULL,
                .line = line,
                .message = message ? message : xstrdup(""),
        };
}

char *xerror_format(const struct xerror *e)
{
        if (e->file && e->line > 0)
                return xasprintf("%s:%u: %s", e->file, e->line, strempty(e->message));
        if (e->file)
                return xasprintf("%s: %s", e->file, strempty(e->message));
        return xstrdup(strempty(e->message));
}

void xerror_done(struct xerror *e)
{
        if (!e)
                return;
        free(e->file);
        free(e->message);
        *e = (struct xerror) {};
}

char *field_escape(const char *s)
{
        struct strbuf sb = {};

        if (!*s)
                return xstrdup("\\-");
        for (; *s; s++) {
                unsigned char c = (unsigned char) *s;
                if (c <= ' ' || c > '~' || c == '\\')
                        sb_appendf(&sb, "\\x%02x", c);
                else
                        sb_putc(&sb, (char) c);
        }
        return sb_steal(&sb);
}

static int hexval(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        return -1;
}

int field_unescape(const char *s, char **ret)
{
        struct strbuf sb = {};

        if (streq(s, "\\-")) {
                *ret = xstrdup("");
                return 0;
        }
        if (!*s)
                return -EINVAL;
        /* most fields (digests, modes, plain paths) have no escape: one copy */
        size_t plain = strcspn(s, "\\");
        if (!s[plain]) {
                for (size_t i = 0; i < plain; i++)
                        if ((unsigned char) s[i] <= ' ' || (unsigned char) s[i] > '~')
                                return -EINVAL;
                *ret = xstrndup(s, plain);
                return 0;
        }
        for (; *s; s++) {
                if (*s != '\\') {
                        if ((unsigned char) *s <= ' ' || (unsigned char) *s > '~') {
                                sb_free(&sb);
                                return -EINVAL;
                        }
                        sb_putc(&sb, *s);
                        continue;
                }
                int hi, lo;
                if (s[1] != 'x' || (hi = hexval(s[2])) < 0 || (lo = hexval(s[3])) < 0 || (hi == 0 && lo == 0)) {
                        sb_free(&sb);
                        return -EINVAL;
                }
                sb_putc(&sb, (char) (hi * 16 + lo));
                s += 3;
        }
        *ret = sb_steal(&sb);
        return 0;
}

size_t split_fields(char *line, char **fields, size_t max)
{
        size_t n = 0;

        while (*line) {
                if (n == max)
                        return max + 1;         /* more than MAX: the caller refuses the line */
                fields[n++] = line;
                line += strcspn(line, " ");
                if (!*line)
                        break;
                *line++ = '\0';
        }
        return n;
}
