/* rootfs-why.c: what the one reader (rootfs.c) refused, in words: the kind
 * of file, the link and where it leads */
#include "config.h"

#include <fcntl.h>
#include <limits.h>

#include "root/rootfs.h"
#include "root/rootfs-resolve.h"

const char *rootfs_strerror(int e)
{
        switch (e) {
        case -EBADFD:
                return _("not a regular file (a FIFO, socket or device node)");
        case -EISDIR:
                return _("is a directory, not a file");
        case -EFBIG:
                return _("larger than idlecfg reads for this file");
        case -ELOOP:
                return _("a symbolic link loop, or a link where none is allowed");
        case -EXDEV:
                return _("a symbolic link leading out of the root");
        case -ENOLINK:
                return _("a symbolic link to a file that does not exist");
        default:
                return strerror(e < 0 ? -e : e);
        }
}

char *rootfs_read_strerror(int e, size_t max)
{
        if (e == -EFBIG) {
                bool mib = max >= (1u << 20) && max % (1u << 20) == 0;
                return xasprintf(_("larger than %zu %s, idlecfg's limit for this file"),
                                 mib ? max >> 20 : max >> 10, mib ? "MiB" : "KiB");
        }
        return xstrdup(rootfs_strerror(e));
}

/* what is at PATH that the reader refused for not being a regular file */
static char *file_type_words(const struct rootfs *r, const char *path, int e)
{
        _cleanup_close_ int fd = r ? resolve_open(r->fd, path, O_PATH) : open(path, O_PATH | O_CLOEXEC);
        struct stat st;

        if (fd < 0 || fstat(fd, &st) < 0)
                return xstrdup(rootfs_strerror(e));
        if (S_ISDIR(st.st_mode))
                return xstrdup(_("is a directory, not a file"));
        if (S_ISFIFO(st.st_mode))
                return xstrdup(_("not a regular file (a FIFO)"));
        if (S_ISSOCK(st.st_mode))
                return xstrdup(_("not a regular file (a socket)"));
        if (S_ISCHR(st.st_mode))
                return xstrdup(_("not a regular file (a character device node)"));
        if (S_ISBLK(st.st_mode))
                return xstrdup(_("not a regular file (a block device node)"));
        return xstrdup(rootfs_strerror(e));
}

/* lstat() and readlink() of PATH, in the root R or (R NULL) on this machine */
static int lstat_any(const struct rootfs *r, const char *path, struct stat *ret)
{
        if (r)
                return rootfs_lstat(r, path, ret);
        return lstat(path, ret) < 0 ? -errno : 0;
}

static int readlink_any(const struct rootfs *r, const char *path, char **ret)
{
        char target[PATH_MAX];
        ssize_t n;

        if (r)
                return rootfs_readlink(r, path, ret);
        n = readlink(path, target, sizeof(target) - 1);
        if (n < 0)
                return -errno;
        target[n] = '\0';
        *ret = xstrdup(target);
        return 0;
}

/* The words for the symbolic link PATH with target TARGET, by where it leads:
 * to a file of the root, to nothing there, out of the root, round in a loop */
static char *link_words(const struct rootfs *r, const char *path, const char *target)
{
        _cleanup_close_ int fd = -1;

        if (r)
                fd = resolve_open(r->fd, path, O_PATH);
        else {
                fd = open(path, O_PATH | O_CLOEXEC);
                if (fd < 0)
                        fd = -errno;
        }
        if (fd == -ELOOP)
                return xasprintf(_("a symbolic link loop (to %s)"), target);
        if (fd == -ENOENT && r && link_leaves_root(r, path, target))
                return xasprintf(_("a symbolic link leading out of the root (to %s)"), target);
        if (fd == -ENOENT)
                return xasprintf(_("a symbolic link to %s, which does not exist"), target);
        return xasprintf(_("a symbolic link to %s"), target);
}

/* -ENOTDIR: the first component on the way to PATH that is no directory */
static char *not_dir_words(const struct rootfs *r, const char *path)
{
        _cleanup_free_ char *copy = xstrdup(path);

        for (char *p = copy + 1; *p; p++) {
                _cleanup_free_ char *shown = NULL, *target = NULL;
                struct stat st;

                if (*p != '/')
                        continue;
                *p = '\0';
                if (lstat_any(r, copy, &st) < 0)
                        break;
                shown = r ? rootfs_display(r, copy) : xstrdup(copy);
                if (S_ISLNK(st.st_mode) && readlink_any(r, copy, &target) == 0) {
                        struct stat tst;
                        _cleanup_close_ int fd = r ? resolve_open(r->fd, copy, O_PATH) : open(copy, O_PATH | O_CLOEXEC);
                        if (fd >= 0 && fstat(fd, &tst) == 0 && !S_ISDIR(tst.st_mode))
                                return xasprintf(_("on its way, %s is a symbolic link to %s, not to a directory"),
                                                 shown, target);
                } else if (S_ISREG(st.st_mode))
                        return xasprintf(_("on its way, %s is a regular file, not a directory"), shown);
                else if (!S_ISDIR(st.st_mode)) {
                        _cleanup_free_ char *what = file_type_words(r, copy, -ENOTDIR);
                        return xasprintf(_("on its way, %s: %s"), shown, what);
                }
                *p = '/';
        }
        return xstrdup(rootfs_strerror(-ENOTDIR));
}

char *rootfs_why(const struct rootfs *r, const char *path, int e, size_t max)
{
        _cleanup_free_ char *link = NULL, *target = NULL, *shown = NULL;
        struct stat st;

        switch (e) {
        case -ELOOP:
                /* a link where none is followed (a state file, a file idlecfg
                 * writes), or a loop: said for where it leads */
                if (lstat_any(r, path, &st) == 0 && S_ISLNK(st.st_mode) && readlink_any(r, path, &target) == 0)
                        return link_words(r, path, target);
                break;
        case -EBADFD:
        case -EISDIR:
        case -EINVAL:   /* rootfs_read()'s FIFO, socket or device node */
                return file_type_words(r, path, e);
        case -ENOTDIR:
                return not_dir_words(r, path);
        case -EXDEV:
        case -ENOLINK:
                if (!r || dangling_link(r, path, &link, &target) != e)
                        break;
                if (streq(link, path))
                        return e == -ENOLINK ? xasprintf(_("a symbolic link to %s, which does not exist"), target)
                                             : xasprintf(_("a symbolic link leading out of the root (to %s)"),
                                                         target);
                shown = rootfs_display(r, link);
                return e == -ENOLINK ? xasprintf(_("on its way, %s is a symbolic link to %s, which does not exist"),
                                                 shown, target)
                                     : xasprintf(_("on its way, %s is a symbolic link leading out of the root "
                                                   "(to %s)"), shown, target);
        default:
                break;
        }
        return rootfs_read_strerror(e, max);
}
