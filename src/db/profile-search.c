/* profile-search.c: where profiles are: the search path, finding one, listing them */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>

#include "db/profile-file.h"
#include "db/profile-search.h"
#include "root/rootfs.h"
#include "base/util.h"

#define PROFILE_SUFFIX ".profile"

static char *strip_slashes(const char *dir)
{
        char *s = xstrdup(dir);
        size_t n = strlen(s);

        while (n > 1 && s[n - 1] == '/')
                s[--n] = '\0';
        return s;
}

size_t profile_dirs(const struct rootfs *rfs, const char *extra_dir, struct profile_dir dirs[static 3])
{
        const char *root = rfs->path;
        bool host = rfs->host;
        size_t n = 0;

        if (host)
                dirs[n++] = (struct profile_dir) { xstrdup(SYSCONFDIR "/idlecfg/profiles"),
                                                  xstrdup(SYSCONFDIR "/idlecfg/profiles"), false };
        else
                dirs[n++] = (struct profile_dir) { xstrdup("/etc/idlecfg/profiles"),
                                                  root_path(root, "/etc/idlecfg/profiles"), true };
        if (extra_dir)
                dirs[n++] = (struct profile_dir) { strip_slashes(extra_dir), strip_slashes(extra_dir), false };
        if (host)
                dirs[n++] = (struct profile_dir) { xstrdup(PKGDATADIR "/profiles"),
                                                  xstrdup(PKGDATADIR "/profiles"), false };
        else
                dirs[n++] = (struct profile_dir) { xstrdup("/usr/share/idlecfg/profiles"),
                                                  root_path(root, "/usr/share/idlecfg/profiles"), true };
        return n;
}

void profile_dirs_free(struct profile_dir *dirs, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(dirs[i].path);
                free(dirs[i].display);
        }
}

char *profile_dirs_string(const struct profile_dir *dirs, size_t from, size_t n)
{
        struct strbuf sb = {};

        for (size_t i = from; i < n; i++)
                sb_appendf(&sb, "%s%s", i > from ? ", " : "", dirs[i].display);
        return sb_steal(&sb);
}

/* The root a search directory is in: on the host every search directory is
 * in the root "/"; only --profiles-dir with --root is a host path outside the
 * root (NULL). A root that does not exist (fd < 0) has no files. */
static const struct rootfs *dir_root(const struct rootfs *rfs, bool in_root)
{
        return in_root || rfs->host ? rfs : NULL;
}

/* a search directory, to list */
static int open_dir(const struct rootfs *rfs, const char *path, bool in_root)
{
        const struct rootfs *in = dir_root(rfs, in_root);
        int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
        int fd;

        if (in)
                return in->fd < 0 ? -ENOENT : rootfs_openat(in, path, flags);
        fd = open(path, flags);
        return fd < 0 ? -errno : fd;
}

/* the link FILE in the search directory DIR leads to a file: the reader
 * answers anything but "not there" (a link out of the root is an error there) */
static bool profile_link_leads_somewhere(const struct rootfs *rfs, const struct profile_dir *dir, const char *file)
{
        _cleanup_free_ char *path = xasprintf("%s/%s", dir->path, file);
        int r = rootfs_check_file(dir_root(rfs, dir->in_root), path, 0, SIZE_MAX, NULL);

        return r != -ENOENT && r != -ENOLINK && r != -ENOTDIR;
}

/* First NAME.profile at or after dirs[from]; -ENOENT when there is none.
 * A file that exists but cannot be opened is an error, not a miss: skipping
 * it would silently drop an admin's override. */
int profile_find(const struct rootfs *rfs, const struct profile_dir *dirs, size_t n_dirs, size_t from,
                 const char *name, char **ret_display, size_t *ret_index, char **ret_buf,
                 size_t *ret_len, struct xerror *err)
{
        for (size_t i = from; i < n_dirs; i++) {
                _cleanup_free_ char *path = xasprintf("%s/%s" PROFILE_SUFFIX, dirs[i].path, name);
                _cleanup_free_ char *display = xasprintf("%s/%s" PROFILE_SUFFIX, dirs[i].display, name);
                const struct rootfs *in = dir_root(rfs, dirs[i].in_root);
                int r;

                if (in && in->fd < 0)
                        continue;
                r = profile_read_file(in, path, display, ret_buf, ret_len, err);
                if (r == -ENOENT)
                        continue;
                if (r < 0)
                        return r;
                *ret_display = TAKE_PTR(display);
                *ret_index = i;
                return 0;
        }
        return -ENOENT;
}

/* ---- listing ---- */

void profile_names_free(char **names, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
}

int profile_list_rootfs(const struct rootfs *rfs, const char *extra_dir, char ***ret_names, size_t *ret_n)
{
        struct profile_dir dirs[3];
        size_t n_dirs = profile_dirs(rfs, extra_dir, dirs);
        char **names = NULL;
        size_t n = 0, j = 0;

        for (size_t i = 0; i < n_dirs; i++) {
                int fd = open_dir(rfs, dirs[i].path, dirs[i].in_root);
                struct dirent *de;
                DIR *d;

                if (fd < 0)
                        continue;       /* a missing directory has no profiles */
                d = fdopendir(fd);
                if (!d) {
                        close(fd);
                        continue;
                }
                while ((de = readdir(d))) {
                        size_t l = strlen(de->d_name);
                        _cleanup_free_ char *name = NULL;

                        if (l <= strlen(PROFILE_SUFFIX) || !streq(de->d_name + l - strlen(PROFILE_SUFFIX), PROFILE_SUFFIX))
                                continue;
                        name = xstrndup(de->d_name, l - strlen(PROFILE_SUFFIX));
                        if (!profile_name_valid(name))
                                continue;
                        /* a link to nothing is no profile (profile_find() passes it by) */
                        if (de->d_type == DT_LNK && !profile_link_leads_somewhere(rfs, &dirs[i], de->d_name))
                                continue;
                        names = xrealloc(names, (n + 1) * sizeof(*names));
                        names[n++] = TAKE_PTR(name);
                }
                closedir(d);
        }
        profile_dirs_free(dirs, n_dirs);
        if (n > 0)
                qsort(names, n, sizeof(*names), strv_cmp);
        for (size_t i = 0; i < n; i++) {
                if (j > 0 && streq(names[j - 1], names[i])) {
                        free(names[i]);
                        continue;
                }
                names[j++] = names[i];
        }
        *ret_names = names;
        *ret_n = j;
        return 0;
}

/* a root that does not exist has no profiles in it (--profiles-dir may have) */
int profile_open_root(const char *root, struct rootfs *rfs, struct xerror *err)
{
        int r = rootfs_open(root, rfs);

        if (r == -ENOENT) {
                *rfs = (struct rootfs) { .fd = -1, .path = xstrdup(root), .host = root_is_host(root) };
                return 0;
        }
        if (r < 0)
                profile_set_error(err, root, 0, _("cannot open: %s"), strerror(-r));
        return r;
}

int profile_list(const char *root, const char *extra_dir, char ***ret_names, size_t *ret_n)
{
        struct rootfs rfs = { .fd = -1 };
        int r = profile_open_root(root, &rfs, NULL);

        if (r < 0) {
                *ret_names = NULL;
                *ret_n = 0;
                return r;
        }
        r = profile_list_rootfs(&rfs, extra_dir, ret_names, ret_n);
        rootfs_close(&rfs);
        return r;
}
