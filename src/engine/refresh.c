/* refresh.c: the inputs refresh compares, and the cheap look at them that
 * lets a package hook learn "nothing changed" without a full inventory */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "pipeline/detect.h"
#include "model/identity.h"
#include "knobs/knob.h"
#include "knobs/registry.h"
#include "root/modules.h"
#include "model/inventory.h"
#include "engine/refresh.h"
#include "base/sha256.h"
#include "root/sysfs.h"
#include "root/target.h"
#include "root/targets.h"

/* the largest input file read for a content digest */
#define INPUT_MAX (256u * 1024u * 1024u)

enum digest_mode { BY_STAT, BY_CONTENT };

static void digest_stat(struct sha256 *s, const struct stat *st)
{
        char buf[128];
        int len = snprintf(buf, sizeof(buf), "%llu %lld.%09ld %llu\n", (unsigned long long) st->st_size,
                           (long long) st->st_mtim.tv_sec, st->st_mtim.tv_nsec, (unsigned long long) st->st_ino);

        sha256_update(s, buf, (size_t) len);
}

/* size and content; "-" when it cannot be read (that is a change too) */
static void digest_content(const struct rootfs *rfs, const char *path, struct sha256 *s)
{
        _cleanup_free_ char *data = NULL;
        size_t len = 0;
        char buf[32];
        int n;

        /* through the root's one reader; a link is followed inside the root, as the planner reads it */
        if (rootfs_read_file(rfs, path, 0, INPUT_MAX, &data, &len, NULL) < 0) {
                sha256_update(s, "-\n", 2);
                return;
        }
        n = snprintf(buf, sizeof(buf), "%zu\n", len);
        sha256_update(s, buf, (size_t) n);
        sha256_update(s, data, len);
}

/* a directory of the distribution's packages: /usr (not /usr/local) and
 * /lib. Package managers replace its files whole (dpkg and rpm rename a new
 * file into place, ostree and bootc deploy a new tree): a new inode, which
 * the directory listing itself gives. /etc and /usr/local are the
 * administrator's, edited in place: their files' size and time count too. */
static bool vendor_dir(const char *dir)
{
        return (startswith(dir, "/usr/") && !startswith(dir, "/usr/local/") && !streq(dir, "/usr/local")) ||
               startswith(dir, "/lib/");
}

struct dir_entry {
        char *name;
        ino_t ino;
        bool plain;             /* a regular file by the listing: its inode is the listing's */
};

static int dir_entry_cmp(const void *a, const void *b)
{
        return strcmp(((const struct dir_entry *) a)->name, ((const struct dir_entry *) b)->name);
}

static void digest_dir(const struct rootfs *rfs, const char *dir, const char *suffix, enum digest_mode mode,
                       struct sha256 *s)
{
        int dfd = rootfs_openat(rfs, dir, O_RDONLY | O_DIRECTORY);
        bool vendor = mode == BY_STAT && vendor_dir(dir);
        DIR *d;
        struct dirent *de;
        struct dir_entry *list = NULL;
        size_t n = 0;

        sha256_update(s, dir, strlen(dir) + 1);
        if (dfd < 0)
                return;
        d = fdopendir(dfd);
        if (!d) {
                close(dfd);
                return;
        }
        while ((de = readdir(d)))
                if (de->d_name[0] != '.' && (!suffix || endswith_str(de->d_name, suffix))) {
                        list = xrealloc(list, (n + 1) * sizeof(*list));
                        list[n++] = (struct dir_entry) {
                                .name = xstrdup(de->d_name), .ino = de->d_ino, .plain = de->d_type == DT_REG,
                        };
                }
        if (n)
                qsort(list, n, sizeof(*list), dir_entry_cmp);
        for (size_t i = 0; i < n; i++) {
                struct stat st;

                if (vendor && list[i].plain) {
                        /* name and inode, without a stat of each file (46 in
                         * Debian's hwdb.d); a link is followed below, as before */
                        char buf[32];
                        int len = snprintf(buf, sizeof(buf), "i %llu\n", (unsigned long long) list[i].ino);
                        sha256_update(s, list[i].name, strlen(list[i].name) + 1);
                        sha256_update(s, buf, (size_t) len);
                } else if (fstatat(dirfd(d), list[i].name, &st, 0) == 0) {
                        sha256_update(s, list[i].name, strlen(list[i].name) + 1);
                        if (mode == BY_STAT)
                                digest_stat(s, &st);
                        else {
                                _cleanup_free_ char *path = xasprintf("%s/%s", streq(dir, "/") ? "" : dir,
                                                                      list[i].name);
                                digest_content(rfs, path, s);
                        }
                }
                free(list[i].name);
        }
        free(list);
        closedir(d);
}

/* DIRS: the directories of this pass, each opened once */
static void digest_file(const struct rootfs *rfs, struct rootfs_dirs *dirs, const char *path, enum digest_mode mode,
                        struct sha256 *s)
{
        struct stat st;

        sha256_update(s, path, strlen(path) + 1);
        if (rootfs_lstat_in(rfs, dirs, path, &st) == 0) {
                if (mode == BY_STAT)
                        digest_stat(s, &st);
                else
                        digest_content(rfs, path, s);
        }
}

static char *digest_end(struct sha256 *s)
{
        static const char hex[] = "0123456789abcdef";
        uint8_t d[32];
        char out[33];

        sha256_final(s, d);
        for (size_t i = 0; i < 16; i++) {
                out[2 * i] = hex[d[i] >> 4];
                out[2 * i + 1] = hex[d[i] & 15];
        }
        out[32] = '\0';
        return xstrdup(out);
}

/* the names in DIR that start with PREFIX, without their stat data or contents */
static void digest_names(const struct rootfs *rfs, const char *dir, const char *prefix, struct sha256 *s)
{
        char **names = NULL;
        size_t n = 0;

        sha256_update(s, dir, strlen(dir) + 1);
        if (rootfs_list_dir(rfs, dir, NULL, &names, &n) < 0)
                return;
        for (size_t i = 0; i < n; i++)
                if (startswith(names[i], prefix))
                        sha256_update(s, names[i], strlen(names[i]) + 1);
        rootfs_list_free(names, n);
}

/* whether PATH exists: the name itself (a link, even a dangling one) and
 * what it leads to; only a link needs the second look (most of these paths
 * are missing, and a name that is not there leads nowhere) */
static void digest_exists(const struct rootfs *rfs, struct rootfs_dirs *dirs, const char *path, struct sha256 *s)
{
        struct stat st;
        bool name = rootfs_lstat_in(rfs, dirs, path, &st) == 0, target = name;
        char what[2];

        if (name && S_ISLNK(st.st_mode)) {
                int fd = rootfs_openat(rfs, path, O_PATH);
                target = fd >= 0;
                if (fd >= 0)
                        close(fd);
        }
        what[0] = name ? 'l' : '-';
        what[1] = target ? 'e' : '-';
        sha256_update(s, path, strlen(path) + 1);
        sha256_update(s, what, sizeof(what));
}

static void digest_inputs(const struct rootfs *rfs, struct rootfs_dirs *dirs, const struct knob_input *in, size_t n,
                          const char *kernel, enum digest_mode mode, struct sha256 *s)
{
        for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < in[i].n_paths; k++) {
                        _cleanup_free_ char *path = knob_input_path(in[i].paths[k], kernel);

                        if (!path)
                                continue;
                        switch (in[i].kind) {
                        case INPUT_FILE:
                                digest_file(rfs, dirs, path, mode, s);
                                break;
                        case INPUT_DIR:
                                digest_dir(rfs, path, in[i].match, mode, s);
                                break;
                        case INPUT_NAMES:
                                digest_names(rfs, path, in[i].match, s);
                                break;
                        case INPUT_EXISTS:
                                digest_exists(rfs, dirs, path, s);
                                break;
                        }
                }
}

/* the groups of files a plan reads: "system" holds the files that detect
 * and the knob families declare (struct knob_input) */
enum group { G_HWDB, G_PROFILES, G_MODULES, G_BOOT, G_SYSTEM, _G_MAX };
static const char *const group_names[_G_MAX] = { "hwdb", "profiles", "modules", "boot", "system" };
static const char *const group_content_names[_G_MAX] = {
        "hwdb-content", "profiles-content", "modules-content", "boot-content", "system-content",
};

static char *digest_group(const struct rootfs *rfs, enum group g, const char *kernel, const char *profiles_dir,
                          enum digest_mode mode)
{
        static const char *const hwdb_dirs[] = { "/etc/udev/hwdb.d", "/usr/lib/udev/hwdb.d", "/lib/udev/hwdb.d" };
        /* the text indexes, and the binary ones libkmod reads (depmod writes all at once) */
        static const char *const module_files[] = {
                "modules.dep", "modules.alias", "modules.builtin", "modules.builtin.modinfo",
                "modules.dep.bin", "modules.alias.bin", "modules.builtin.bin", "modules.builtin.alias.bin",
                "modules.symbols.bin", "modules.softdep", "modules.weakdep",
        };
        struct rootfs_dirs cache = {}, *dirs = &cache;
        struct sha256 s;

        sha256_init(&s);
        switch (g) {
        case G_HWDB:
                for (size_t i = 0; i < ELEMENTSOF(hwdb_dirs); i++)
                        digest_dir(rfs, hwdb_dirs[i], ".hwdb", mode, &s);
                break;
        case G_PROFILES:
                digest_file(rfs, dirs, "/etc/idlecfg/idlecfg.conf", mode, &s);
                digest_dir(rfs, "/etc/idlecfg/profiles", ".profile", mode, &s);
                digest_dir(rfs, "/usr/share/idlecfg/profiles", ".profile", mode, &s);
                if (rfs->host) {
                        struct rootfs host = { .fd = rfs->fd, .path = rfs->path, .host = true };
                        digest_dir(&host, SYSCONFDIR "/idlecfg/profiles", ".profile", mode, &s);
                        digest_dir(&host, PKGDATADIR "/profiles", ".profile", mode, &s);
                        digest_file(&host, NULL, SYSCONFDIR "/idlecfg/idlecfg.conf", mode, &s);
                }
                if (profiles_dir) {
                        struct rootfs extra = {};
                        if (rootfs_open(profiles_dir, &extra) == 0) {
                                digest_dir(&extra, "/", ".profile", mode, &s);
                                rootfs_close(&extra);
                        }
                }
                break;
        case G_MODULES:
                if (kernel)
                        for (size_t i = 0; i < ELEMENTSOF(module_files); i++) {
                                _cleanup_free_ char *a = xasprintf("/lib/modules/%s/%s", kernel, module_files[i]);
                                _cleanup_free_ char *b = xasprintf("/usr/lib/modules/%s/%s", kernel, module_files[i]);
                                digest_file(rfs, dirs, a, mode, &s);
                                digest_file(rfs, dirs, b, mode, &s);
                        }
                break;
        case G_BOOT:
                if (target_is_running_system(rfs)) {
                        _cleanup_free_ char *c = NULL;
                        if (rootfs_read_file(rfs, "/proc/cmdline", 0, KERNEL_CMDLINE_MAX, &c, NULL, NULL) == 0)
                                sha256_update(&s, c, strlen(c));
                } else {
                        digest_file(rfs, dirs, KERNEL_CMDLINE_PATH, mode, &s);
                        digest_file(rfs, dirs, "/etc/default/grub", mode, &s);
                        /* grub-mkconfig sources these after it (src/root/grubenv.c) */
                        digest_dir(rfs, "/etc/default/grub.d", ".cfg", mode, &s);
                }
                break;
        case G_SYSTEM: {
                size_t n, m;
                const struct knob_input *d = detect_inputs(&n);
                const struct knob_family *const *fam = knob_registry(&m);

                digest_inputs(rfs, dirs, d, n, kernel, mode, &s);
                for (size_t i = 0; i < m; i++)
                        digest_inputs(rfs, dirs, fam[i]->inputs, fam[i]->n_inputs, kernel, mode, &s);
                break;
        }
        default:
                break;
        }
        rootfs_dirs_done(&cache);
        return digest_end(&s);
}

/* the upstream version the plan's _KERNEL ranges use, where the release
 * hides it (a kernel package update that keeps the ABI name); "" where the
 * release says it, "-" where it is unknown. INV: the inventory of this run,
 * whose detect read it already from the same root; NULL: read it now.
 * RET_SOURCE (if not NULL): where it came from, as kernel_upstream() says. */
static char *kernel_version_input(const struct rootfs *rfs, const char *kernel, const struct inventory *inv,
                                  char **ret_source)
{
        _cleanup_free_ char *source = NULL;
        char *v = NULL;

        if (!kernel || !kernel_release_abi_only(kernel))
                return xstrdup("");
        if (inv && streq_ptr(inv->kernel, kernel)) {
                if (ret_source)
                        *ret_source = xstrdup(strempty(inv->kernel_version_source));
                return xstrdup(inv->kernel_version ? inv->kernel_version : "-");
        }
        if (kernel_upstream(rfs, kernel, target_is_running_system(rfs), &v, &source) <= 0) {
                free(v);
                v = xstrdup("-");
        }
        if (ret_source)
                *ret_source = TAKE_PTR(source);
        return v;
}

#define DPKG_SOURCE "/var/lib/dpkg/status: "

/* What says that a kernel_version read from the dpkg status still holds,
 * without reading that file again (a few MiB on a desktop, on every boot):
 * the file list of the kernel's package, which dpkg writes anew, a new
 * inode, on every unpack of it (an upgrade, a reinstall) and removes with
 * the package. "PACKAGE SIZE MTIME INODE"; "" where the version came from
 * elsewhere (the release, /proc/version) or the root has no such list (a
 * status file without dpkg's database: it is read every time). KERNEL: the
 * release, whose package (or its -unsigned build) PACKAGE must be. */
static char *kernel_version_key(const struct rootfs *rfs, const char *kernel, const char *package)
{
        _cleanup_free_ char *signed_pkg = xasprintf("linux-image-%s", strempty(kernel));
        _cleanup_free_ char *unsigned_pkg = xasprintf("%s-unsigned", signed_pkg), *list = NULL;
        struct stat st;

        if (!kernel || !(streq(package, signed_pkg) || streq(package, unsigned_pkg)))
                return xstrdup("");
        list = xasprintf("/var/lib/dpkg/info/%s.list", package);
        if (rootfs_lstat(rfs, list, &st) < 0 || !S_ISREG(st.st_mode))
                return xstrdup("");
        return xasprintf("%s %llu %lld.%09ld %llu", package, (unsigned long long) st.st_size,
                         (long long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (unsigned long long) st.st_ino);
}

/* the package of a SOURCE that is the dpkg status ("" if it is not) */
static char *dpkg_source_package(const char *source)
{
        if (!source || !startswith(source, DPKG_SOURCE))
                return xstrdup("");
        source += strlen(DPKG_SOURCE);
        return xstrndup(source, strcspn(source, " "));
}

/* the cheap look's kernel_version: the manifest's WAS while the key it
 * recorded still holds, else read (kernel_version_input()); then
 * *RET_KEY: the key as it is now, where it is not the one WAS has */
static char *kernel_version_now(const struct rootfs *rfs, const char *kernel, const struct kvlist *was,
                                char **ret_key)
{
        const char *key = kv_get(was, "kernel_version_key"), *value = kv_get(was, "kernel_version");
        _cleanup_free_ char *source = NULL, *package = NULL, *now = NULL;
        char *v;

        if (key && *key && value) {
                _cleanup_free_ char *p = xstrndup(key, strcspn(key, " "));
                _cleanup_free_ char *held = kernel_version_key(rfs, kernel, p);
                if (streq(held, key))
                        return xstrdup(value);
        }
        v = kernel_version_input(rfs, kernel, NULL, &source);
        package = dpkg_source_package(source);
        now = kernel_version_key(rfs, kernel, package);
        if (!streq(now, strempty(key)))
                *ret_key = TAKE_PTR(now);
        return v;
}

/* /sys/power/mem_sleep as detect records it ("" where absent): the suspend
 * and pcie_aspm families plan on it, and firmware that starts or
 * stops offering S3 changes it. INV: this run's inventory; NULL: one read */
static char *mem_sleep_input(const struct inventory *inv)
{
        char *v = NULL;

        if (inv)
                return xstrdup(strempty(kv_get(&inv->platform, "mem_sleep")));
        return read_live("/sys/power/mem_sleep", LIVE_STRIP, &v) < 0 ? xstrdup("") : v;
}

void refresh_inputs(const struct rootfs *rfs, const struct inventory *inv, const char *profile,
                    const char *profiles_dir, unsigned flags, struct kvlist *ret)
{
        const char *fingerprint = inv->fingerprint, *kernel = inv->kernel;
        _cleanup_free_ char *source = NULL, *package = NULL;

        kv_add(ret, "version", PACKAGE_VERSION);
        kv_add(ret, "fingerprint", strempty(fingerprint));
        kv_add(ret, "kernel", strempty(kernel));
        kv_add_take(ret, "kernel_version", kernel_version_input(rfs, kernel, inv, &source));
        package = dpkg_source_package(source);
        kv_add_take(ret, "kernel_version_key", kernel_version_key(rfs, kernel, package));
        kv_add(ret, "profile", strempty(profile));
        kv_add_take(ret, "mem_sleep", mem_sleep_input(inv));
        /* files: names and stat data (a package upgrade replaces a file, a new
         * inode, even when it keeps its time), then names and contents */
        for (enum group g = 0; g < _G_MAX; g++)
                kv_add_take(ret, group_names[g], digest_group(rfs, g, kernel, profiles_dir, BY_STAT));
        if (flags & REFRESH_CONTENT)
                for (enum group g = 0; g < _G_MAX; g++)
                        kv_add_take(ret, group_content_names[g], digest_group(rfs, g, kernel, profiles_dir, BY_CONTENT));
}

size_t refresh_compare(const struct rootfs *rfs, const struct kvlist *was, const char *fingerprint,
                       const char *kernel, const struct inventory *inv, const char *profile,
                       const char *profiles_dir, struct kvlist *ret_changed, struct kvlist *ret_stale)
{
        _cleanup_free_ char *key = NULL;
        _cleanup_free_ char *kernel_version = inv ? kernel_version_input(rfs, kernel, inv, NULL)
                                                  : kernel_version_now(rfs, kernel, was, &key);
        _cleanup_free_ char *mem_sleep = mem_sleep_input(inv);
        const char *const values[][2] = {
                { "version", PACKAGE_VERSION }, { "fingerprint", strempty(fingerprint) },
                { "kernel", strempty(kernel) }, { "kernel_version", kernel_version },
                { "profile", strempty(profile) }, { "mem_sleep", mem_sleep },
        };
        size_t changed = 0;

        for (size_t i = 0; i < ELEMENTSOF(values); i++) {
                const char *old = kv_get(was, values[i][0]);

                if (streq_ptr(old, values[i][1]))
                        continue;
                kv_add_take(ret_changed, values[i][0],
                            xasprintf("%s -> %s", old ? (*old ? old : "-") : "-", *values[i][1] ? values[i][1] : "-"));
                changed++;
        }
        for (enum group g = 0; g < _G_MAX; g++) {
                _cleanup_free_ char *now = digest_group(rfs, g, kernel, profiles_dir, BY_STAT);
                const char *old_content = kv_get(was, group_content_names[g]);

                if (streq_ptr(kv_get(was, group_names[g]), now))
                        continue;
                /* touched, or replaced by the same bytes: the contents decide
                 * (an older manifest has no content digest: changed, as it was) */
                if (old_content) {
                        _cleanup_free_ char *content = digest_group(rfs, g, kernel, profiles_dir, BY_CONTENT);
                        if (streq(content, old_content)) {
                                if (ret_stale)
                                        kv_add(ret_stale, group_names[g], now);
                                continue;
                        }
                }
                kv_add(ret_changed, group_names[g], NULL);
                changed++;
        }
        /* a key that no longer says so, for a version that stayed (the
         * package reinstalled, or a manifest from before the key) */
        if (ret_stale && key && !kv_find(ret_changed, "kernel") && !kv_find(ret_changed, "kernel_version"))
                kv_add(ret_stale, "kernel_version_key", key);
        return changed;
}
