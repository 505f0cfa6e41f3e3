/* hwdb-load.c: the .hwdb files of a root, found and read as systemd-hwdb does */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "db/hwdb-load.h"
#include "db/hwdb-parse.h"
#include "db/hwdb.h"
#include "root/rootfs.h"
#include "base/util.h"

/* the skip scan reads files in chunks of this size (tests/hwdb.sh cuts a key at its end) */
#define SCAN_CHUNK (64u * 1024u)

/* systemd 252 reads /etc/udev/hwdb.d and UDEVLIBEXECDIR/hwdb.d, which is
 * /lib/udev or /usr/lib/udev depending on how it was built; reading both
 * gives the same answer on merged-/usr roots and does not miss either kind
 * of unmerged one. For one file name the first directory wins. */
static const char *const hwdb_dirs[] = {
        "/etc/udev/hwdb.d",
        "/usr/lib/udev/hwdb.d",
        "/lib/udev/hwdb.d",
};

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
 * file costs neither its size in memory nor a parse. Errors: yes, and the
 * full read reports them. */
static bool fd_mentions_keys(const struct hwdb *h, int fd)
{
        char buf[SCAN_CHUNK + 1];
        size_t keep = 0;
        off_t off = 0;

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

/* A file that cannot be read (R, from open_file(); RFS NULL: a path of this
 * machine): systemd skips it with a warning, a link to nothing inside the
 * root without one; with HWDB_FILES_REQUIRED it is the error (its deny
 * entries must not go missing). The words name what is there (a directory,
 * a FIFO, a link to nothing), from the reader. */
static int unreadable(struct hwdb *h, const struct rootfs *rfs, unsigned flags, struct xerror *ret_error,
                      const char *path, int r)
{
        _cleanup_free_ char *why = rootfs_why(rfs, path, r, HWDB_TOTAL_MAX - h->bytes);

        if (flags & HWDB_FILES_REQUIRED) {
                hwdb_set_error(ret_error, path, 0, _("cannot read this hwdb file: %s; its entries would be missing"),
                               why);
                return r;
        }
        /* systemd-hwdb's fopen() fails, and only --strict makes that an error */
        if (r == -ENOLINK && !(flags & HWDB_STRICT))
                return 0;
        if (r == -EBADFD || r == -EISDIR)
                return hwdb_warn_at(h, flags & HWDB_STRICT, ret_error, path, 0, _("%s, ignoring."), why);
        return hwdb_warn_at(h, flags & HWDB_STRICT, ret_error, path, 0, _("Cannot read, ignoring: %s"), why);
}

/* PATH through the reader of rootfs.h (RFS NULL: a path of this machine):
 * never blocking, a regular file within what is left of the budget; its
 * -errno as the reader gives it, for unreadable(). */
static int open_file(const struct hwdb *h, const struct rootfs *rfs, const char *path, struct stat *ret_st)
{
        return rootfs_open_file(rfs, path, 0, HWDB_TOTAL_MAX - h->bytes, ret_st);
}

/* Add one file, opened by open_file() (a regular file within the
 * budget); fd < 0 stands for a masked (empty) one, ST its fstat(). */
static int add_file(struct hwdb *h, const char *path, int fd, const struct stat *st, unsigned flags,
                    struct xerror *ret_error)
{
        uint32_t file = (uint32_t) h->n_files;
        char *data = NULL;
        size_t size = 0;
        int r;

        if (fd >= 0 && h->keys && !fd_mentions_keys(h, fd)) {
                /* not one wanted key in it: nothing it holds can answer */
                h->skipped_files++;
                h->skipped_bytes += (size_t) st->st_size;
                return 0;
        }

        if (h->n_files >= UINT16_MAX) {
                /* systemd counts file priorities in 16 bits */
                hwdb_set_error(ret_error, path, 0, _("Too many hwdb files."));
                return -E2BIG;
        }
        if (fd >= 0) {
                r = read_fd_full(fd, HWDB_TOTAL_MAX - h->bytes, &data, &size);
                if (r < 0)
                        return unreadable(h, NULL, flags, ret_error, path, r);
        } else
                data = xstrdup("");

        h->paths = xrealloc(h->paths, (h->n_files + 1) * sizeof(*h->paths));
        h->data = xrealloc(h->data, (h->n_files + 1) * sizeof(*h->data));
        h->paths[file] = xstrdup(path);
        h->data[file] = data;
        h->n_files++;
        h->bytes += size;
        return hwdb_parse_file(h, file, size, flags & HWDB_STRICT, ret_error);
}

int hwdb_load_files(const char *const *paths, unsigned flags, struct hwdb **ret, struct xerror *ret_error)
{
        _cleanup_(hwdb_freep) struct hwdb *h = NULL;
        int r = 0;

        h = hwdb_new_or_error(ret_error, &r);
        if (!h)
                return r;
        for (size_t i = 0; paths && paths[i]; i++) {
                struct stat st;
                _cleanup_close_ int fd = open_file(h, NULL, paths[i], &st);

                if (fd < 0) {
                        r = unreadable(h, NULL, flags, ret_error, paths[i], fd);
                        if (r < 0)
                                return r;
                        continue;
                }
                r = add_file(h, paths[i], fd, &st, flags, ret_error);
                if (r < 0)
                        return r;
        }
        hwdb_build_index(h);
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
                hwdb_set_error(ret_error, hwdb_dirs[d], 0, _("Cannot read the directory: %s"), strerror(-fd));
                return fd;
        }
        l->dirfd[d] = fd;
        fd = fcntl(l->dirfd[d], F_DUPFD_CLOEXEC, 3);
        if (fd < 0 || !(dir = fdopendir(fd))) {
                r = -errno;
                if (fd >= 0)
                        close(fd);
                hwdb_set_error(ret_error, hwdb_dirs[d], 0, _("Cannot read the directory: %s"), strerror(-r));
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
                hwdb_set_error(ret_error, hwdb_dirs[d], 0, _("Cannot read the directory: %s"), strerror(-r));
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
                struct stat st;

                /* the same name in an earlier directory won */
                if (i > 0 && streq(c->name, l.v[i - 1].name))
                        continue;
                path = xasprintf("%s/%s", hwdb_dirs[c->dir], c->name);
                if (!is_masked(l.dirfd[c->dir], c->name)) {
                        fd = open_file(h, rfs, path, &st);
                        if (fd < 0) {
                                /* a dangling symlink, say: systemd skips it */
                                r = unreadable(h, rfs, flags, ret_error, path, fd);
                                if (r < 0)
                                        return r;
                                continue;
                        }
                }
                r = add_file(h, path, fd, &st, flags, ret_error);
                if (r < 0)
                        return r;
        }
        hwdb_build_index(h);
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
                hwdb_set_error(ret_error, rootdir, 0, _("Cannot open the root directory: %s"), strerror(-r));
                return r;
        }
        r = hwdb_load_rootfs_keys(&rfs, flags, keys, ret, ret_error);
        rootfs_close(&rfs);
        return r;
}
