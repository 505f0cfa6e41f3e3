/* target.c: the system idlecfg configures: the running one or another, and the kernel it will boot */
#include "config.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "root/modules.h"
#include "root/rootfs.h"
#include "root/target.h"

#define MOUNTINFO_MAX (16u << 20)

/* 1 if /proc/self/mountinfo has a mount on "/", 0 if not, < 0 if unreadable */
static int mountinfo_has_root(const struct rootfs *rfs)
{
        _cleanup_free_ char *text = NULL;
        int r = rootfs_read_file(rfs, "/proc/self/mountinfo", 0, MOUNTINFO_MAX, &text, NULL, NULL);

        if (r < 0)
                return r;
        /* ID PARENT MAJ:MIN ROOT MOUNTPOINT ...: the fifth field */
        for (char *l = text, *nl; l && *l; l = nl) {
                const char *m = l;
                nl = strchr(l, '\n');
                if (nl)
                        *nl++ = '\0';
                for (int i = 0; i < 4 && m; i++) {
                        m = strchr(m, ' ');
                        m = m ? m + 1 : NULL;
                }
                if (m && m[0] == '/' && m[1] == ' ')
                        return 1;
        }
        return 0;
}

bool target_is_running_system(const struct rootfs *rfs)
{
        const char *t = secure_getenv("IDLECFG_TEST_CHROOT");
        struct stat a, b;

        if (!rfs->host)
                return false;
        if (t && *t)
                return !streq(t, "1");
        if (stat("/", &a) < 0)
                return true;
        if (stat("/proc/1/root", &b) == 0)
                return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
        /* a running system always has /proc; one without is being built */
        if (errno == ENOENT)
                return false;
        /* PID 1's root not ours to look at (no CAP_SYS_PTRACE over it): a
         * chroot into a directory that is not a mount point shows no mount
         * on "/" in its own mountinfo */
        return mountinfo_has_root(rfs) != 0;
}

/* the largest loader.conf or boot entry read */
#define LOADER_MAX (64u * 1024u)

static bool kernel_installed(const struct rootfs *rfs, const char *release)
{
        _cleanup_free_ char *m = xasprintf("/lib/modules/%s", release);
        _cleanup_close_ int fd = rootfs_openat(rfs, m, O_PATH | O_DIRECTORY);
        return fd >= 0;
}

/* the value of KEY in a "key value" file (loader.conf, a boot entry), NULL if none */
static char *loader_value(char *text, const char *key)
{
        size_t n = strlen(key);

        for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
                l = strstrip(l);
                if (strncmp(l, key, n) == 0 && (l[n] == ' ' || l[n] == '\t'))
                        return xstrdup(strstrip(l + n));
        }
        return NULL;
}

/* systemd-boot's default entry: loader.conf's "default" glob matched against
 * the entries' names (with or without ".conf"), the highest "version" of the
 * matches; NULL if there is no loader.conf, no simple default ("@saved") or
 * no match installed in the root */
static char *boot_loader_default(const struct rootfs *rfs, char **ret_where)
{
        static const char *const esps[] = { "/boot", "/efi", "/boot/efi" };

        for (size_t i = 0; i < ELEMENTSOF(esps); i++) {
                _cleanup_free_ char *conf = xasprintf("%s/loader/loader.conf", esps[i]), *text = NULL;
                _cleanup_free_ char *pattern = NULL, *best = NULL;
                const char *dirs[] = { esps[i], "/boot" };

                if (rootfs_read_file(rfs, conf, 0, LOADER_MAX, &text, NULL, NULL) < 0)
                        continue;
                pattern = loader_value(text, "default");
                if (!pattern || pattern[0] == '@')
                        continue;
                for (size_t d = 0; d < ELEMENTSOF(dirs) && (d == 0 || !streq(dirs[0], dirs[1])); d++) {
                        _cleanup_free_ char *edir = xasprintf("%s/loader/entries", dirs[d]);
                        char **names = NULL;
                        size_t n = 0;

                        if (rootfs_list_dir(rfs, edir, ".conf", &names, &n) < 0)
                                continue;
                        for (size_t k = 0; k < n; k++) {
                                _cleanup_free_ char *id = xstrndup(names[k], strlen(names[k]) - 5);
                                _cleanup_free_ char *p = NULL, *etext = NULL, *ver = NULL;

                                if (fnmatch(pattern, names[k], 0) != 0 && fnmatch(pattern, id, 0) != 0)
                                        continue;
                                p = xasprintf("%s/%s", edir, names[k]);
                                if (rootfs_read_file(rfs, p, 0, LOADER_MAX, &etext, NULL, NULL) < 0)
                                        continue;
                                ver = loader_value(etext, "version");
                                if (!ver || !kernel_installed(rfs, ver))
                                        continue;
                                if (!best || strverscmp(ver, best) > 0) {
                                        free(best);
                                        best = TAKE_PTR(ver);
                                }
                        }
                        rootfs_list_free(names, n);
                }
                if (best) {
                        *ret_where = TAKE_PTR(conf);
                        return TAKE_PTR(best);
                }
        }
        return NULL;
}

/* has RELEASE a kernel image in the root, or an installed linux-image package?
 * *DPKG_STATUS: /var/lib/dpkg/status, read here the first time a release has
 * no image file (a few MiB on a desktop: a system whose kernels have their
 * images, every Debian one, never reads it); *DPKG_READ: whether it was tried */
static bool kernel_has_image(const struct rootfs *rfs, const char *release, char **dpkg_status, bool *dpkg_read)
{
        /* the path before and after the release */
        static const char *const images[][2] = {
                { "/boot/vmlinuz-", "" }, { "/boot/vmlinux-", "" }, { "/boot/Image-", "" },
                { "/lib/modules/", "/vmlinuz" },
        };

        for (size_t i = 0; i < ELEMENTSOF(images); i++) {
                _cleanup_free_ char *p = xasprintf("%s%s%s", images[i][0], release, images[i][1]);
                _cleanup_close_ int fd = rootfs_openat(rfs, p, O_PATH);
                if (fd >= 0)
                        return true;
        }
        if (!*dpkg_read) {
                *dpkg_read = true;
                if (rootfs_read_file(rfs, "/var/lib/dpkg/status", 0, DPKG_STATUS_MAX, dpkg_status, NULL, NULL) < 0)
                        *dpkg_status = NULL;
        }
        if (*dpkg_status) {
                _cleanup_free_ char *pkg = xasprintf("linux-image-%s", release);
                _cleanup_free_ char *v = dpkg_installed_version(*dpkg_status, pkg);
                if (v)
                        return true;
        }
        return false;
}

/* the newest kernel installed: with an image if any has one (*ret_image) */
static char *newest_installed(const struct rootfs *rfs, bool *ret_image)
{
        _cleanup_free_ char *dpkg = NULL, *best = NULL, *best_image = NULL;
        char **names = NULL;
        size_t n = 0;
        bool dpkg_read = false;

        if (rootfs_list_dir(rfs, "/lib/modules", NULL, &names, &n) < 0)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                if (!kernel_installed(rfs, names[i]))
                        continue;
                if (!best || strverscmp(names[i], best) > 0) {
                        free(best);
                        best = xstrdup(names[i]);
                }
                if (kernel_has_image(rfs, names[i], &dpkg, &dpkg_read) &&
                    (!best_image || strverscmp(names[i], best_image) > 0)) {
                        free(best_image);
                        best_image = xstrdup(names[i]);
                }
        }
        rootfs_list_free(names, n);
        *ret_image = best_image != NULL;
        return best_image ? TAKE_PTR(best_image) : TAKE_PTR(best);
}

int target_kernel_choose(const struct rootfs *rfs, const char *override, char **ret_release, char **ret_source,
                         char **ret_reason)
{
        bool running_system = target_is_running_system(rfs), image = false;
        _cleanup_free_ char *release = NULL, *where = NULL, *why = NULL;
        const char *source;
        struct utsname u;
        bool have_uname = uname(&u) == 0;

        if (override) {
                *ret_release = xstrdup(override);
                *ret_source = xstrdup("--kernel");
                *ret_reason = xstrdup("given with --kernel");
                return 0;
        }
        release = boot_loader_default(rfs, &where);
        if (release) {
                source = "boot-loader";
                why = xasprintf("the boot loader's default (%s)", where);
        } else {
                release = newest_installed(rfs, &image);
                if (release) {
                        source = "newest-installed";
                        why = xstrdup(image ? "the newest installed"
                                            : "the newest in /lib/modules; no kernel image found for any");
                } else if (running_system && have_uname) {
                        *ret_release = xstrdup(u.release);
                        *ret_source = xstrdup("running");
                        *ret_reason = xstrdup("the running kernel; none installed in /lib/modules");
                        return 0;
                } else
                        return -ENOENT;
        }
        *ret_source = xstrdup(source);
        if (!have_uname || streq(u.release, release))
                *ret_reason = TAKE_PTR(why);
        else if (running_system)
                *ret_reason = xasprintf("%s; the running kernel %s is not the one the system boots next", why,
                                        u.release);
        else if (rfs->host)
                *ret_reason = xasprintf("%s in this chroot; the running kernel %s is the installer's", why,
                                        u.release);
        else
                *ret_reason = xasprintf("%s in the root; the running kernel %s is the host's", why, u.release);
        *ret_release = TAKE_PTR(release);
        return 0;
}
