/* rootfs.c: a target root: paths resolved inside it, the one reader of its files, atomic writes, the lock;
 * rootfs-why.c says why a file of it was refused */
#include "config.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <time.h>

#include "base/fault.h"
#include "root/rootfs.h"
#include "root/rootfs-resolve.h"

/* ---- resolution inside the root ---- */

static const char *rel(const char *path)
{
        while (*path == '/')
                path++;
        return *path ? path : ".";
}

static int openat2_state;      /* 0 unknown, 1 works, -1 missing: the walk below */

/* The fallback for kernels before 5.6, seccomp filters that refuse openat2
 * and valgrind: RESOLVE_IN_ROOT by hand. PATH is walked a component at a time
 * without following anything; each symbolic link is read and expanded against
 * the root (an absolute one restarts there), ".." stops at the root, 40 links
 * at most (-ELOOP). O_NOFOLLOW in FLAGS: the last component is not followed.
 * The same answers as openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS). */
static int walk_open(int rootfd, const char *path, int flags)
{
        _cleanup_free_ char *rest = xstrdup(path);
        _cleanup_close_ int dirfd = -1;
        unsigned links = 0, depth = 0;
        char *p = rest;

        dirfd = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
        if (dirfd < 0)
                return -errno;
        for (;;) {
                char target[PATH_MAX], *comp, *next;
                ssize_t n = -1;
                int fd;

                p += strspn(p, "/");
                comp = p;
                p += strcspn(p, "/");
                next = p + strspn(p, "/");
                if (*p)
                        *p++ = '\0';
                /* ".." at the root stays there, as in RESOLVE_IN_ROOT */
                if (comp[0] == '\0' || streq(comp, ".") || (streq(comp, "..") && depth == 0)) {
                        if (*next) {
                                p = next;
                                continue;
                        }
                        /* the path names the directory we are in */
                        fd = openat(dirfd, ".", (flags & ~O_NOFOLLOW) | O_CLOEXEC);
                        return fd < 0 ? -errno : fd;
                }
                if (!streq(comp, "..") && (*next || !(flags & O_NOFOLLOW)))
                        n = readlinkat(dirfd, comp, target, sizeof(target) - 1);
                if (n >= 0) {
                        char *joined;

                        if (++links > 40)
                                return -ELOOP;
                        target[n] = '\0';
                        joined = xasprintf("%s/%s", target, next);
                        free(rest);
                        rest = p = joined;
                        if (target[0] == '/') {
                                close(dirfd);
                                dirfd = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
                                if (dirfd < 0)
                                        return -errno;
                                depth = 0;
                        }
                        continue;
                }
                if (!*next) {
                        fd = openat(dirfd, comp, flags | O_NOFOLLOW | O_CLOEXEC);
                        return fd < 0 ? -errno : fd;
                }
                fd = openat(dirfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return -errno;
                close(dirfd);
                dirfd = fd;
                depth = streq(comp, "..") ? depth - 1 : depth + 1;
                p = next;
        }
}

/* The one resolver: every path of a root is opened here, links resolved
 * inside the root, magic links (/proc/self/fd/N) refused. */
int resolve_open(int rootfd, const char *path, int flags)
{
        if (openat2_state == 0) {
                /* IDLECFG_NO_OPENAT2=1: the tests run the fallback on new kernels too */
                const char *e = secure_getenv("IDLECFG_NO_OPENAT2");
                openat2_state = e && streq(e, "1") ? -1 : 1;
        }
        if (openat2_state > 0) {
                struct open_how how = {
                        .flags = (unsigned long long) (flags | O_CLOEXEC),
                        .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
                };
                long fd;
                do
                        fd = syscall(SYS_openat2, rootfd, rel(path), &how, sizeof(how));
                while (fd < 0 && (errno == EAGAIN || errno == EINTR));
                if (fd >= 0)
                        return (int) fd;
                /* ENOSYS: a kernel before 5.6; EPERM: a seccomp filter that does not know it */
                if (errno != ENOSYS && errno != EPERM)
                        return -errno;
                openat2_state = -1;
        }
        return walk_open(rootfd, path, flags);
}

int rootfs_open(const char *root, struct rootfs *ret)
{
        int fd = open(root && *root ? root : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0)
                return -errno;
        *ret = (struct rootfs) {
                .fd = fd,
                .path = xstrdup(root && *root ? root : "/"),
                .host = root_is_host(root),
                .warnings = xcalloc(1, sizeof(struct rootfs_warnings)),
        };
        return 0;
}

void rootfs_close(struct rootfs *r)
{
        if (r->fd >= 0)
                close(r->fd);
        r->fd = -1;
        free(r->path);
        r->path = NULL;
        if (r->warnings) {
                for (size_t i = 0; i < r->warnings->n; i++)
                        free(r->warnings->v[i]);
                free(r->warnings->v);
                free(r->warnings);
                r->warnings = NULL;
        }
}

char *rootfs_display(const struct rootfs *r, const char *path)
{
        return root_path(r->path, path);
}

int rootfs_openat(const struct rootfs *r, const char *path, int flags)
{
        if (flags & O_CREAT)
                return -EINVAL;
        trace_read(flags & O_PATH ? "path" : flags & O_DIRECTORY ? "dir" : "open", path);
        return resolve_open(r->fd, path, flags);
}

/* the directory of PATH, opened inside the root, and its last component */
static int open_parent(const struct rootfs *r, const char *path, char **ret_name)
{
        _cleanup_free_ char *dir = xstrdup(path);
        char *slash;
        int fd;

        while (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/')
                dir[strlen(dir) - 1] = '\0';
        slash = strrchr(dir, '/');
        if (!slash || !slash[1] || streq(slash + 1, "..") || streq(slash + 1, "."))
                return -EINVAL;
        *ret_name = xstrdup(slash + 1);
        *slash = '\0';
        fd = resolve_open(r->fd, *dir ? dir : "/", O_RDONLY | O_DIRECTORY);
        if (fd < 0) {
                free(*ret_name);
                *ret_name = NULL;
        }
        return fd;
}

/* fsync of a directory after an entry in it changed: a fault point, and every failure said */
static int fsync_dir(int dfd)
{
        int e = fault_point("fsync directory");

        if (e < 0)
                return e;
        return fsync(dfd) < 0 ? -errno : 0;
}

int rootfs_readlink(const struct rootfs *r, const char *path, char **ret)
{
        _cleanup_free_ char *name = NULL;
        _cleanup_close_ int dfd = open_parent(r, path, &name);
        char target[PATH_MAX];
        ssize_t n;

        if (dfd < 0)
                return dfd;
        n = readlinkat(dfd, name, target, sizeof(target) - 1);
        if (n < 0)
                return -errno;
        target[n] = '\0';
        *ret = xstrdup(target);
        return 0;
}

/* Whether the symbolic link LINK (a path inside the root) with target TARGET
 * leads out of the root, rather than to a name of the root that is not there:
 * relative, its ".." climbs above the root from the link's directory; or,
 * for a root that is not "/", absolute and naming the root's own directory
 * as this machine sees it, or a file this machine has where the root has
 * nothing (an image build that linked to the build host's file). With the
 * root "/" (the running system, a chroot) no link leads out of it. */
bool link_leaves_root(const struct rootfs *r, const char *link, const char *target)
{
        _cleanup_free_ char *copy = NULL;
        long depth = 0;
        char *save = NULL;

        /* nothing is outside "/": there ".." at the top stays, as the kernel has it */
        if (r->host)
                return false;
        if (target[0] == '/') {
                size_t l = strlen(r->path);
                while (l > 1 && r->path[l - 1] == '/')
                        l--;
                if (strncmp(target, r->path, l) == 0 && (target[l] == '/' || target[l] == '\0'))
                        return true;
                return faccessat(AT_FDCWD, target, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
        }
        /* the depth of the link's directory, then the target's components from there */
        copy = xstrdup(link);
        for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save))
                depth += streq(c, "..") ? -1 : !streq(c, ".");
        depth--;        /* the link's own name */
        free(copy);
        copy = xstrdup(target);
        for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
                if (streq(c, ".."))
                        depth--;
                else if (!streq(c, "."))
                        depth++;
                if (depth < 0)
                        return true;
        }
        return false;
}

/* one component of dangling_link()'s walk: NAME in the directory DFD, COPY
 * its path; 1 when it is there and leads somewhere, 0 when it is not there,
 * else the link to nothing's answer */
static int dangling_component(const struct rootfs *r, int dfd, const char *name, const char *copy,
                              char **ret_link, char **ret_target)
{
        struct stat st;

        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return 0;
        if (S_ISLNK(st.st_mode)) {
                _cleanup_close_ int fd = resolve_open(r->fd, copy, O_PATH);
                if (fd == -ENOENT) {
                        char target[PATH_MAX];
                        ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);
                        if (n < 0)
                                return -EXDEV;
                        target[n] = '\0';
                        if (ret_link)
                                *ret_link = xstrdup(copy);
                        if (ret_target)
                                *ret_target = xstrdup(target);
                        return link_leaves_root(r, copy, target) ? -EXDEV : -ENOLINK;
                }
        }
        return 1;
}

/* PATH was not found: if that is because one of its components is a symbolic
 * link to nothing, -EXDEV when that link leads out of the root
 * (link_leaves_root()), -ENOLINK when it names a file of the root that is
 * not there (a dangling link, as Debian's /etc/sysctl.d/99-sysctl.conf ->
 * ../sysctl.conf on a root without procps); else 0. RET_LINK, RET_TARGET (if
 * not NULL): that link's path and target. */
int dangling_link(const struct rootfs *r, const char *path, char **ret_link, char **ret_target)
{
        _cleanup_free_ char *copy = NULL;

        /* most often the directory of PATH is there: then no component on the
         * way is a link to nothing (the directory would not resolve), and only
         * the last one is looked at, not each from the root */
        {
                _cleanup_free_ char *name = NULL;
                _cleanup_close_ int dfd = open_parent(r, path, &name);
                if (dfd >= 0) {
                        int e = dangling_component(r, dfd, name, path, ret_link, ret_target);
                        return e < 0 ? e : 0;
                }
        }
        copy = xstrdup(path);
        for (char *p = copy + 1;; p++) {
                char c = *p;
                _cleanup_free_ char *name = NULL;
                _cleanup_close_ int dfd = -1;
                int e;

                if (c != '/' && c != '\0')
                        continue;
                *p = '\0';
                dfd = open_parent(r, copy, &name);
                if (dfd < 0)
                        return 0;
                e = dangling_component(r, dfd, name, copy, ret_link, ret_target);
                if (e <= 0)
                        return e;
                if (c == '\0')
                        return 0;
                *p = c;
        }
}

int rootfs_lstat_in(const struct rootfs *r, struct rootfs_dirs *dirs, const char *path, struct stat *ret)
{
        const char *name = strrchr(path, '/');
        _cleanup_free_ char *dir = NULL;
        int dfd = -ENOENT;
        size_t i;

        /* a plain absolute path only; anything else as rootfs_lstat() takes it */
        if (!dirs || path[0] != '/' || !name || !name[1] || streq(name, "/..") || streq(name, "/."))
                return rootfs_lstat(r, path, ret);
        trace_read("lstat", path);
        dir = name == path ? xstrdup("/") : xstrndup(path, (size_t) (name - path));
        name++;
        for (i = 0; i < dirs->n && !streq(dirs->v[i].dir, dir); i++)
                ;
        if (i < dirs->n)
                dfd = dirs->v[i].fd;
        else {
                dfd = resolve_open(r->fd, dir, O_RDONLY | O_DIRECTORY);
                if (dirs->n == ELEMENTSOF(dirs->v)) {
                        /* full: this one once, uncached */
                        _cleanup_close_ int fd = dfd;
                        if (fd < 0)
                                return fd;
                        return fstatat(fd, name, ret, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
                }
                dirs->v[dirs->n].dir = TAKE_PTR(dir);
                dirs->v[dirs->n++].fd = dfd;
        }
        if (dfd < 0)
                return dfd;
        return fstatat(dfd, name, ret, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

void rootfs_dirs_done(struct rootfs_dirs *dirs)
{
        for (size_t i = 0; i < dirs->n; i++) {
                free(dirs->v[i].dir);
                if (dirs->v[i].fd >= 0)
                        close(dirs->v[i].fd);
        }
        dirs->n = 0;
}

int rootfs_lstat(const struct rootfs *r, const char *path, struct stat *ret)
{
        _cleanup_free_ char *name = NULL;
        _cleanup_close_ int dfd = -1;

        trace_read("lstat", path);
        dfd = open_parent(r, path, &name);
        if (dfd < 0)
                return dfd;
        if (fstatat(dfd, name, ret, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        return 0;
}

/* the reader's checks: the fd of PATH, a regular file of at most MAX bytes.
 * R NULL: PATH is a path of this machine, outside any root (--profiles-dir
 * with --root; the tests' hwdb files), opened as it is. */
static int open_checked(const struct rootfs *r, const char *path, unsigned flags, size_t max, struct stat *ret_st)
{
        /* O_NONBLOCK: a FIFO opens at once (and is then refused) instead of waiting
         * for a writer; O_NOCTTY: a terminal device node does not become ours */
        int oflags = O_RDONLY | O_NONBLOCK | O_NOCTTY | (flags & ROOTFS_NOFOLLOW ? O_NOFOLLOW : 0);
        _cleanup_close_ int fd = -1;
        int e;

        if (r) {
                fd = resolve_open(r->fd, path, oflags);
                if (fd == -ENOENT && (e = dangling_link(r, path, NULL, NULL)) < 0)
                        return e;
        } else {
                fd = open(path, oflags | O_CLOEXEC);
                if (fd < 0)
                        fd = -errno;
        }
        if (fd < 0)
                return fd;
        if (fstat(fd, ret_st) < 0)
                return -errno;
        if (!S_ISREG(ret_st->st_mode))
                return S_ISDIR(ret_st->st_mode) ? -EISDIR : -EBADFD;
        /* the size first: a sparse file of gigabytes is refused without reading it */
        if ((uint64_t) ret_st->st_size > max)
                return -EFBIG;
        return TAKE_FD(fd);
}

int rootfs_read_file(const struct rootfs *r, const char *path, unsigned flags, size_t max, char **ret,
                     size_t *ret_len, struct stat *ret_st)
{
        _cleanup_close_ int fd = -1;
        struct stat st;
        int e;

        if (r)
                trace_read("read", path);
        fd = open_checked(r, path, flags, max, &st);
        if (fd < 0)
                return fd;
        e = read_fd_full(fd, max, ret, ret_len);
        if (e >= 0 && ret_st)
                *ret_st = st;
        return e;
}

int rootfs_open_file(const struct rootfs *r, const char *path, unsigned flags, size_t max, struct stat *ret_st)
{
        struct stat st;

        if (r)
                trace_read("open", path);
        return open_checked(r, path, flags, max, ret_st ? ret_st : &st);
}

int rootfs_check_file(const struct rootfs *r, const char *path, unsigned flags, size_t max, struct stat *ret_st)
{
        struct stat st;
        int fd;

        if (r)
                trace_read("read", path);
        fd = open_checked(r, path, flags, max, &st);
        if (fd < 0)
                return fd;
        close(fd);
        if (ret_st)
                *ret_st = st;
        return 0;
}

int rootfs_read(const struct rootfs *r, const char *path, size_t max, char **ret, size_t *ret_len,
                struct stat *ret_st)
{
        int e = rootfs_read_file(r, path, ROOTFS_NOFOLLOW, max, ret, ret_len, ret_st);

        return e == -EBADFD ? -EINVAL : e;
}

void rootfs_warn(const struct rootfs *r, const char *fmt, ...)
{
        struct rootfs_warnings *w = r->warnings;
        va_list ap;
        char *s;

        if (!w)
                return;
        va_start(ap, fmt);
        if (vasprintf(&s, fmt, ap) < 0)
                s = NULL;
        va_end(ap);
        if (!s)
                return;
        for (size_t i = 0; i < w->n; i++)
                if (streq(w->v[i], s)) {
                        free(s);
                        return;
                }
        w->v = xrealloc(w->v, (w->n + 1) * sizeof(*w->v));
        w->v[w->n++] = s;
}

int rootfs_mkdir_p(const struct rootfs *r, const char *dirpath,
                   int (*created)(const char *path, void *userdata), void *userdata)
{
        _cleanup_free_ char *copy = xstrdup(dirpath);
        struct stat st;

        for (char *p = copy + 1;; p++) {
                if (*p != '/' && *p != '\0')
                        continue;
                char c = *p;
                *p = '\0';
                if (strlen(copy) > 1) {
                        int e = rootfs_lstat(r, copy, &st);
                        if (e == -ENOENT) {
                                _cleanup_free_ char *name = NULL;
                                _cleanup_close_ int dfd = -1;
                                if (created && (e = created(copy, userdata)) != 0)
                                        return e < 0 ? e : -ECANCELED;
                                e = fault_point("mkdir");
                                if (e < 0)
                                        return e;
                                dfd = open_parent(r, copy, &name);
                                if (dfd < 0)
                                        return dfd;
                                if (mkdirat(dfd, name, 0755) < 0 && errno != EEXIST)
                                        return -errno;
                                /* 0755 whatever the umask: the directories stay in the target */
                                if (fchmodat(dfd, name, 0755, AT_SYMLINK_NOFOLLOW) < 0 &&
                                    (errno != EOPNOTSUPP || fchmodat(dfd, name, 0755, 0) < 0))
                                        return -errno;
                                e = fsync_dir(dfd);
                                if (e < 0)
                                        return e;
                        } else if (e < 0)
                                return e;
                        else if (S_ISLNK(st.st_mode)) {
                                /* a link to a directory inside the root is followed by the
                                 * resolution of later components; check it leads to one */
                                _cleanup_close_ int fd = resolve_open(r->fd, copy, O_RDONLY | O_DIRECTORY);
                                if (fd == -ENOENT)
                                        return dangling_link(r, copy, NULL, NULL) ?: -EXDEV;
                                if (fd < 0)
                                        return fd;
                        } else if (!S_ISDIR(st.st_mode))
                                return -ENOTDIR;
                }
                if (c == '\0')
                        break;
                *p = c;
        }
        return 0;
}

static int write_replace(const struct rootfs *r, const char *path, const void *data, size_t len, mode_t mode,
                         uid_t uid, gid_t gid, bool durable)
{
        _cleanup_free_ char *name = NULL, *tmpname = NULL;
        _cleanup_close_ int dfd = open_parent(r, path, &name);
        struct stat st;
        int fd = -1, e;

        if (dfd == -ENOENT && (e = dangling_link(r, path, NULL, NULL)) < 0)
                return e;
        if (dfd < 0)
                return dfd;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                if (S_ISLNK(st.st_mode))
                        return -ELOOP;
                if (S_ISDIR(st.st_mode))
                        return -EISDIR;
                /* refused to write, exit 3, as a link is: not bad input */
                if (!S_ISREG(st.st_mode))
                        return -EBADFD;
        } else if (errno != ENOENT)
                return -errno;

        e = fault_point("create temporary file");
        if (e < 0)
                return e;
        for (unsigned i = 0;; i++) {
                free(tmpname);
                tmpname = xasprintf(".#%s.%x%x", name, (unsigned) getpid(), i);
                /* created and known to the signal handler in one step */
                signals_defer();
                fd = openat(dfd, tmpname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
                if (fd >= 0) {
                        signals_temp_register(dfd, tmpname);
                        signals_undefer();
                        break;
                }
                e = -errno;
                signals_undefer();
                if (e != -EEXIST || i > 100)
                        return e;
        }
        for (size_t off = 0; off < len;) {
                ssize_t n;
                e = fault_point("write temporary file");
                if (e < 0)
                        goto fail;
                n = write(fd, (const char *) data + off, len - off);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        e = -errno;
                        goto fail;
                }
                off += (size_t) n;
        }
        if (fchmod(fd, mode) < 0 || ((uid != (uid_t) -1 || gid != (gid_t) -1) && fchown(fd, uid, gid) < 0)) {
                e = -errno;
                goto fail;
        }
        if (durable) {
                e = fault_point("fsync temporary file");
                if (e < 0)
                        goto fail;
                if (fsync(fd) < 0) {
                        e = -errno;
                        goto fail;
                }
        }
        close(fd);
        fd = -1;
        e = fault_point("rename");
        if (e < 0)
                goto fail;
        /* the commit: a signal now waits until the new file is in place and durable */
        signals_defer();
        if (renameat(dfd, tmpname, dfd, name) < 0) {
                e = -errno;
                signals_undefer();
                goto fail;
        }
        signals_temp_forget();
        e = durable ? fsync_dir(dfd) : 0;
        signals_undefer();
        /* e < 0: renamed, the new file is in place, only its durability is unknown */
        return e;
fail:
        if (fd >= 0)
                close(fd);
        (void) unlinkat(dfd, tmpname, 0);
        signals_temp_forget();
        return e;
}

int rootfs_write_atomic(const struct rootfs *r, const char *path, const void *data, size_t len, mode_t mode,
                        uid_t uid, gid_t gid)
{
        return write_replace(r, path, data, len, mode, uid, gid, true);
}

int rootfs_write_volatile(const struct rootfs *r, const char *path, const void *data, size_t len, mode_t mode)
{
        return write_replace(r, path, data, len, mode, (uid_t) -1, (gid_t) -1, false);
}

/* unlink PATH if it is of TYPE (S_IFREG, S_IFLNK), then fsync its directory */
static int unlink_of_type(const struct rootfs *r, const char *path, mode_t type)
{
        _cleanup_free_ char *name = NULL;
        _cleanup_close_ int dfd = open_parent(r, path, &name);
        struct stat st;
        int e;

        if (dfd == -ENOENT)
                return 0;
        if (dfd < 0)
                return dfd;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : -errno;
        if ((st.st_mode & S_IFMT) != type)
                return S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? -EISDIR : -EBADFD;
        e = fault_point("unlink");
        if (e < 0)
                return e;
        if (unlinkat(dfd, name, 0) < 0)
                return errno == ENOENT ? 0 : -errno;
        return fsync_dir(dfd);
}

int rootfs_unlink(const struct rootfs *r, const char *path)
{
        return unlink_of_type(r, path, S_IFREG);
}

int rootfs_symlink(const struct rootfs *r, const char *path, const char *target)
{
        _cleanup_free_ char *name = NULL;
        _cleanup_close_ int dfd = open_parent(r, path, &name);
        int e;

        if (dfd < 0)
                return dfd;
        e = fault_point("symlink");
        if (e < 0)
                return e;
        /* made whole or not at all: no temporary name is needed */
        if (symlinkat(target, dfd, name) < 0)
                return -errno;
        return fsync_dir(dfd);
}

int rootfs_unlink_symlink(const struct rootfs *r, const char *path)
{
        return unlink_of_type(r, path, S_IFLNK);
}

int rootfs_rmdir(const struct rootfs *r, const char *path)
{
        _cleanup_free_ char *name = NULL;
        _cleanup_close_ int dfd = open_parent(r, path, &name);
        struct stat st;
        int e;

        if (dfd == -ENOENT)
                return 0;
        if (dfd < 0)
                return dfd;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        e = fault_point("rmdir");
        if (e < 0)
                return e;
        if (unlinkat(dfd, name, AT_REMOVEDIR) < 0)
                return errno == ENOENT ? 0 : -errno;
        return fsync_dir(dfd);
}

/* /run was made by rootfs_lock() (the target had none): rootfs_unlock() removes it */
static bool lock_made_run;

int rootfs_lock(const struct rootfs *r, unsigned timeout_ms, struct xerror *ret_error)
{
        _cleanup_free_ char *shown = rootfs_display(r, "/run/idlecfg.lock");
        struct stat st, pst;
        int fd = -1, e;

        for (unsigned waited = 0;; waited += 50) {
                _cleanup_close_ int dfd = -1;

                if (fd < 0) {
                        /* /run of a target root is normally an empty mount point; make it if missing */
                        if (rootfs_lstat(r, "/run", &st) == -ENOENT) {
                                e = rootfs_mkdir_p(r, "/run", NULL, NULL);
                                if (e < 0)
                                        return xerror_set(ret_error, e, _("cannot create %s: %s"), shown, strerror(-e));
                                lock_made_run = true;
                        }
                        dfd = resolve_open(r->fd, "/run", O_RDONLY | O_DIRECTORY);
                        if (dfd < 0)
                                return xerror_set(ret_error, dfd, _("cannot open the directory of %s: %s"), shown,
                                                  strerror(-dfd));
                        fd = openat(dfd, "idlecfg.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
                        if (fd < 0)
                                return xerror_set(ret_error, -errno, _("cannot open %s: %s"), shown, strerror(errno));
                }
                if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
                        /* the holder before removed the file at its end (rootfs_unlock()):
                         * a lock on that unlinked inode excludes nobody; take the new file */
                        if (dfd < 0)
                                dfd = resolve_open(r->fd, "/run", O_RDONLY | O_DIRECTORY);
                        if (dfd >= 0 && fstat(fd, &st) == 0 &&
                            fstatat(dfd, "idlecfg.lock", &pst, AT_SYMLINK_NOFOLLOW) == 0 &&
                            st.st_dev == pst.st_dev && st.st_ino == pst.st_ino)
                                return fd;
                        close(fd);
                        fd = -1;
                        waited -= 50;   /* not a wait: try again at once */
                        continue;
                }
                if (errno != EWOULDBLOCK && errno != EINTR) {
                        e = -errno;
                        close(fd);
                        return xerror_set(ret_error, e, _("cannot lock %s: %s"), shown, strerror(-e));
                }
                if (waited >= timeout_ms) {
                        close(fd);
                        return xerror_set(ret_error, -EBUSY,
                                          _("another idlecfg is running (%s is locked); waited %u s, giving up"),
                                          shown, timeout_ms / 1000);
                }
                nanosleep(&(struct timespec) { .tv_nsec = 50 * 1000 * 1000 }, NULL);
        }
}

void rootfs_unlock(const struct rootfs *r, int fd)
{
        _cleanup_close_ int dfd = -1;

        if (fd < 0)
                return;
        /* still under the lock: an instance waiting on this file finds it
         * gone when it gets the lock, and makes a new one */
        dfd = resolve_open(r->fd, "/run", O_RDONLY | O_DIRECTORY);
        if (dfd >= 0)
                (void) unlinkat(dfd, "idlecfg.lock", 0);
        if (lock_made_run)
                (void) rootfs_rmdir(r, "/run");
        lock_made_run = false;
        close(fd);
}

#include <dirent.h>

int rootfs_remove_temps(const struct rootfs *r, const char *path)
{
        _cleanup_free_ char *name = NULL, *prefix = NULL;
        int dfd = open_parent(r, path, &name), n = 0, e;
        DIR *d;
        struct dirent *de;

        if (dfd == -ENOENT || dfd == -ENOTDIR)
                return 0;
        if (dfd < 0)
                return dfd;
        d = fdopendir(dfd);
        if (!d) {
                close(dfd);
                return -errno;
        }
        prefix = xasprintf(".#%s.", name);
        while ((de = readdir(d)))
                if (startswith(de->d_name, prefix) && de->d_type == DT_REG) {
                        if (fault_point("unlink temporary file") < 0 || unlinkat(dirfd(d), de->d_name, 0) < 0) {
                                closedir(d);
                                return -EIO;
                        }
                        n++;
                }
        if (n && (e = fsync_dir(dirfd(d))) < 0)
                n = e;
        closedir(d);
        return n;
}

int rootfs_remove_dir_files(const struct rootfs *r, const char *dirpath)
{
        int dfd = resolve_open(r->fd, dirpath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW), e;
        DIR *d;
        struct dirent *de;

        if (dfd == -ENOENT)
                return 0;
        if (dfd < 0)
                return dfd;
        d = fdopendir(dfd);
        if (!d) {
                close(dfd);
                return -errno;
        }
        while ((de = readdir(d)))
                if (de->d_type == DT_REG) {
                        if ((e = fault_point("unlink state file")) < 0 || (e = unlinkat(dirfd(d), de->d_name, 0) < 0 ? -errno : 0) < 0) {
                                closedir(d);
                                return e;
                        }
                }
        e = fsync_dir(dirfd(d));
        closedir(d);
        if (e < 0)
                return e;
        e = rootfs_rmdir(r, dirpath);
        return e == -ENOTEMPTY ? 0 : e;
}

int rootfs_list_dir(const struct rootfs *r, const char *path, const char *suffix, char ***ret, size_t *ret_n)
{
        int dfd = rootfs_openat(r, path, O_RDONLY | O_DIRECTORY);
        char **v = NULL;
        size_t n = 0;
        struct dirent *de;
        DIR *d;

        *ret = NULL;
        *ret_n = 0;
        if (dfd < 0)
                return dfd;
        d = fdopendir(dfd);
        if (!d) {
                close(dfd);
                return -errno;
        }
        while ((de = readdir(d)))
                if (de->d_name[0] != '.' && (!suffix || endswith_str(de->d_name, suffix))) {
                        v = xrealloc(v, (n + 1) * sizeof(char *));
                        v[n++] = xstrdup(de->d_name);
                }
        closedir(d);
        if (n)
                qsort(v, n, sizeof(char *), strv_cmp);
        *ret = v;
        *ret_n = n;
        return 0;
}

void rootfs_list_free(char **v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}
