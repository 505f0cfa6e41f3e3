/* modules.c: resolve modaliases and module parameters in the target kernel (libkmod) */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <libkmod.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "root/modules.h"
#include "root/rootfs.h"

struct modctx {
        const struct rootfs *rfs;
        char *rel;              /* /lib/modules/VERSION, in the root */
        struct kmod_ctx *ctx;   /* NULL until the first question */
        int dirfd;              /* the module directory libkmod reads through /proc/self/fd */
        char *kdir;             /* the name libkmod is given: /proc/self/fd/N */
        char *dir;              /* for messages: DIR/lib/modules/VERSION */
        int error;              /* < 0: the indexes could not be loaded; error_message says why */
        char *error_message;
};

/* libkmod is opened at run time, the first time a module question must be
 * answered, as systemd's dlopen_libkmod() does: it pulls in libcrypto, libzstd
 * and liblzma, which cost every run their loading (a few ms and 2 MiB), and
 * most runs (refresh with nothing changed, rollback, --help) ask none. The
 * headers still give the prototypes; sym_X has X's type. */
static void *libkmod_dl;
static typeof(kmod_new) *sym_kmod_new;
static typeof(kmod_set_log_priority) *sym_kmod_set_log_priority;
static typeof(kmod_load_resources) *sym_kmod_load_resources;
static typeof(kmod_unref) *sym_kmod_unref;
static typeof(kmod_list_next) *sym_kmod_list_next;
static typeof(kmod_module_new_from_name) *sym_kmod_module_new_from_name;
static typeof(kmod_module_new_from_lookup) *sym_kmod_module_new_from_lookup;
static typeof(kmod_module_get_module) *sym_kmod_module_get_module;
static typeof(kmod_module_get_name) *sym_kmod_module_get_name;
static typeof(kmod_module_get_path) *sym_kmod_module_get_path;
static typeof(kmod_module_get_initstate) *sym_kmod_module_get_initstate;
static typeof(kmod_module_get_info) *sym_kmod_module_get_info;
static typeof(kmod_module_info_get_key) *sym_kmod_module_info_get_key;
static typeof(kmod_module_info_get_value) *sym_kmod_module_info_get_value;
static typeof(kmod_module_info_free_list) *sym_kmod_module_info_free_list;
static typeof(kmod_module_unref) *sym_kmod_module_unref;
static typeof(kmod_module_unref_list) *sym_kmod_module_unref_list;

/* libkmod's kmod_list_foreach() calls kmod_list_next() by name */
#define sym_kmod_list_foreach(entry, first) \
        for (entry = (first); entry; entry = sym_kmod_list_next((first), entry))

/* 0, or -ELIBACC with *ret_error saying why (dlerror(): the file, or the missing symbol) */
static int dlopen_libkmod(char **ret_error)
{
        static const struct dlsym_arg syms[] = {
                DLSYM_ARG(kmod_new), DLSYM_ARG(kmod_set_log_priority), DLSYM_ARG(kmod_load_resources),
                DLSYM_ARG(kmod_unref), DLSYM_ARG(kmod_list_next), DLSYM_ARG(kmod_module_new_from_name),
                DLSYM_ARG(kmod_module_new_from_lookup), DLSYM_ARG(kmod_module_get_module),
                DLSYM_ARG(kmod_module_get_name), DLSYM_ARG(kmod_module_get_path),
                DLSYM_ARG(kmod_module_get_initstate), DLSYM_ARG(kmod_module_get_info),
                DLSYM_ARG(kmod_module_info_get_key), DLSYM_ARG(kmod_module_info_get_value),
                DLSYM_ARG(kmod_module_info_free_list), DLSYM_ARG(kmod_module_unref),
                DLSYM_ARG(kmod_module_unref_list),
        };
        /* the tests' way to run without it (tests/modules.sh) */
        const char *name = getenv("IDLECFG_TEST_LIBKMOD");

        if (libkmod_dl)
                return 0;
        return dlopen_syms(name && *name ? name : "libkmod.so.2", syms, ELEMENTSOF(syms), &libkmod_dl, ret_error);
}

const char *mod_state_to_string(enum mod_state s)
{
        switch (s) {
        case MOD_BUILTIN: return "builtin";
        case MOD_LOADABLE: return "loadable";
        case MOD_NOT_FOUND: return "not-found";
        default: return "unknown";
        }
}

bool kernel_release_abi_only(const char *release)
{
        const char *p = release;
        size_t n;

        for (int part = 0; part < 2; part++) {
                n = strspn(p, "0123456789");
                if (n == 0 || p[n] != '.')
                        return false;
                p += n + 1;
        }
        if (!startswith(p, "0-"))
                return false;
        p += 2;
        n = strspn(p, "0123456789");
        return n > 0 && (p[n] == '\0' || p[n] == '-');
}

/* "6.1.76-1", "1:6.1.76-1~deb12u1": the leading X.Y.Z, if it belongs to RELEASE's X.Y */
static char *upstream_of(const char *release, const char *version)
{
        const char *v = version + strspn(version, "0123456789");
        size_t n, mm;

        if (*v == ':')
                version = v + 1;
        n = strspn(version, "0123456789.");
        mm = strspn(release, "0123456789.");
        /* X.Y of the release, with its dot: "6.1." */
        for (size_t i = 0, dots = 0; i < mm; i++)
                if (release[i] == '.' && ++dots == 2) {
                        mm = i + 1;
                        break;
                }
        if (n <= mm || strncmp(version, release, mm) != 0 || strspn(version + mm, "0123456789") != n - mm)
                return NULL;
        return xstrndup(version, n);
}

/* the Version of NAME in one stanza (LEN bytes at S) if it is installed, NULL if not */
static char *stanza_version(const char *s, size_t len, const char *name)
{
        _cleanup_free_ char *st = xstrndup(s, len);
        char *pkg = NULL, *ver = NULL, *status = NULL;

        for (char *l = st, *nl; l; l = nl) {
                nl = strchr(l, '\n');
                if (nl)
                        *nl++ = '\0';
                if (startswith(l, "Package: "))
                        pkg = l + 9;
                else if (startswith(l, "Version: "))
                        ver = l + 9;
                else if (startswith(l, "Status: "))
                        status = l + 8;
        }
        if (pkg && ver && streq(pkg, name) && (!status || endswith_str(status, " installed")))
                return xstrdup(ver);
        return NULL;
}

/* the Version of the installed package NAME in a dpkg status text, NULL if
 * none; only the stanzas with its Package line are parsed (refresh reads the
 * file on every package hook, and a desktop's holds thousands) */
char *dpkg_installed_version(const char *text, const char *name)
{
        _cleanup_free_ char *needle = xasprintf("Package: %s", name);
        size_t n = strlen(needle);

        for (const char *p = strstr(text, needle); p; p = strstr(p + n, needle)) {
                const char *start = p, *end;
                char *v;

                if ((p != text && p[-1] != '\n') || (p[n] != '\n' && p[n] != '\0'))
                        continue;
                while (start > text + 1 && !(start[-1] == '\n' && start[-2] == '\n'))
                        start--;
                if (start == text + 1)
                        start = text;
                end = strstr(p, "\n\n");
                v = stanza_version(start, end ? (size_t) (end - start) : strlen(start), name);
                if (v)
                        return v;
        }
        return NULL;
}

int kernel_upstream(const struct rootfs *rfs, const char *release, bool running, char **ret_version,
                    char **ret_source)
{
        _cleanup_free_ char *text = NULL, *pkg = xasprintf("linux-image-%s", release), *looked = NULL;
        struct utsname u;
        int r;

        r = rootfs_read_file(rfs, "/var/lib/dpkg/status", 0, DPKG_STATUS_MAX, &text, NULL, NULL);
        if (r >= 0) {
                /* the signed image, else the unsigned one of a custom build */
                _cleanup_free_ char *unsigned_pkg = xasprintf("%s-unsigned", pkg);
                const char *names[] = { pkg, unsigned_pkg };
                for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                        _cleanup_free_ char *ver = dpkg_installed_version(text, names[i]);
                        _cleanup_free_ char *up = ver ? upstream_of(release, ver) : NULL;
                        if (up) {
                                *ret_source = xasprintf("/var/lib/dpkg/status: %s %s", names[i], ver);
                                *ret_version = TAKE_PTR(up);
                                return 1;
                        }
                }
                looked = xasprintf("no installed %s in /var/lib/dpkg/status", pkg);
        } else if (r == -ENOENT)
                looked = xstrdup("no /var/lib/dpkg/status");
        else {
                _cleanup_free_ char *why = rootfs_why(rfs, "/var/lib/dpkg/status", r, DPKG_STATUS_MAX);
                _cleanup_free_ char *shown = rootfs_display(rfs, "/var/lib/dpkg/status");
                looked = xasprintf("/var/lib/dpkg/status: %s", why);
                rootfs_warn(rfs, _("%s: %s; idlecfg does not look up the package of kernel %s there"), shown, why,
                            release);
        }
        free(text);
        text = NULL;
        if (running && uname(&u) == 0 && streq(u.release, release) &&
            rootfs_read_file(rfs, "/proc/version", 0, 4096, &text, NULL, NULL) >= 0) {
                const char *d = strstr(text, " Debian ");
                _cleanup_free_ char *up = d ? upstream_of(release, d + 8) : NULL;
                if (up) {
                        size_t n = strcspn(d + 8, " \n");
                        *ret_source = xasprintf("/proc/version: Debian %.*s", (int) n, d + 8);
                        *ret_version = TAKE_PTR(up);
                        return 1;
                }
                *ret_source = xasprintf("%s; no \"Debian X.Y.Z\" in /proc/version", looked);
                return 0;
        }
        *ret_source = TAKE_PTR(looked);
        return 0;
}

/* The files of the module directory that libkmod opens itself (kmod 30-34:
 * the indexes kmod_load_resources() maps, the softdep and weakdep files
 * kmod_new() parses, the modinfo of built-in modules). */
static const char *const kmod_files[] = {
        "modules.dep.bin", "modules.alias.bin", "modules.symbols.bin", "modules.builtin.alias.bin",
        "modules.builtin.bin", "modules.softdep", "modules.weakdep", "modules.builtin.modinfo",
};
#define MODULE_INDEX_MAX (64u << 20)    /* each index; Debian 6.1's largest is 1.3 MiB */
#define MODULE_FILE_MAX (256u << 20)    /* a module's .ko, read for its parameters */

/* PATH of the root (through the one reader: regular, within MAX, never
 * blocking) is a file libkmod will open as KPATH, by itself: both must name
 * the same file. A link that the reader resolves inside the root but the
 * kernel, for libkmod, resolves to the host's file is -EXDEV. 0 when it is
 * absent by both names (libkmod copes), or -errno of the reader. */
static int check_kmod_file(const struct rootfs *rfs, const char *path, const char *kpath, size_t max)
{
        struct stat st, kst;
        _cleanup_close_ int kfd = -1;
        int r = rootfs_check_file(rfs, path, 0, max, &st);

        if (r < 0 && r != -ENOENT)
                return r;
        /* O_PATH: resolves as libkmod's open() will, without opening a FIFO */
        kfd = open(kpath, O_PATH | O_CLOEXEC);
        if (kfd < 0)
                return r == -ENOENT ? 0 : -EXDEV;
        if (r == -ENOENT || fstat(kfd, &kst) < 0 || kst.st_dev != st.st_dev || kst.st_ino != st.st_ino)
                return -EXDEV;
        return 0;
}

void modctx_new(const struct rootfs *rfs, const char *kver, struct modctx **ret, char **ret_moddir,
                char **ret_note)
{
        _cleanup_free_ char *rel = xasprintf("/lib/modules/%s", kver);
        _cleanup_free_ char *dir = rootfs_display(rfs, rel);
        _cleanup_free_ char *dep = NULL, *kdir = NULL;
        _cleanup_close_ int fd = -1;
        struct modctx *m;

        *ret = NULL;
        *ret_moddir = NULL;
        *ret_note = NULL;
        fd = rootfs_openat(rfs, rel, O_PATH | O_DIRECTORY);
        if (fd < 0) {
                if (rfs->host)
                        *ret_note = xasprintf(_("no module directory %s: this kernel has no loadable modules "
                                                "installed; module resolution and parameter checks are skipped"),
                                              dir);
                else
                        *ret_note = xasprintf(_("no module directory %s in the target root; module resolution "
                                                "and parameter checks are skipped"), dir);
                return;
        }
        dep = xasprintf("%s/modules.dep.bin", rel);
        if (rootfs_check_file(rfs, dep, 0, MODULE_INDEX_MAX, NULL) == -ENOENT) {
                *ret_note = xasprintf(_("%s has no modules.dep.bin (run depmod for %s); module resolution "
                                        "is skipped"), dir, kver);
                return;
        }
        /* libkmod takes a directory name: give it the directory resolved in the
         * root, /proc/self/fd/N, so that it does not resolve the path again
         * (the joined string only where /proc is missing) */
        kdir = xasprintf("/proc/self/fd/%d", fd);
        if (access(kdir, X_OK) < 0) {
                free(kdir);
                kdir = xstrdup(dir);
        }
        /* libkmod opens these itself, blocking and following links as the
         * host does: each is checked through the root's reader first */
        for (size_t i = 0; i < ELEMENTSOF(kmod_files); i++) {
                _cleanup_free_ char *path = xasprintf("%s/%s", rel, kmod_files[i]);
                _cleanup_free_ char *kpath = xasprintf("%s/%s", kdir, kmod_files[i]);
                int r = check_kmod_file(rfs, path, kpath, MODULE_INDEX_MAX);
                if (r < 0) {
                        _cleanup_free_ char *shown = rootfs_display(rfs, path);
                        _cleanup_free_ char *why = rootfs_why(rfs, path, r, MODULE_INDEX_MAX);
                        *ret_note = xasprintf(_("%s: %s; idlecfg goes on without module information: module "
                                                "resolution and parameter checks are skipped"), shown, why);
                        rootfs_warn(rfs, "%s", *ret_note);
                        return;
                }
        }
        m = xcalloc(1, sizeof(*m));
        m->rfs = rfs;
        m->rel = TAKE_PTR(rel);
        m->dirfd = TAKE_FD(fd);
        m->kdir = TAKE_PTR(kdir);
        m->dir = xstrdup(dir);
        *ret_moddir = TAKE_PTR(dir);
        *ret = m;
}

/* libkmod and the indexes, at the first question: NULL (and M's error) if they cannot be had */
static struct kmod_ctx *ctx_of(struct modctx *m)
{
        _cleanup_free_ char *why = NULL;
        struct kmod_ctx *ctx;
        int r;

        if (!m || m->ctx || m->error < 0)
                return m ? m->ctx : NULL;
        r = dlopen_libkmod(&why);
        if (r < 0) {
                m->error = r;
                m->error_message = xasprintf(_("the module index of %s cannot be read: %s"), m->dir, why);
                return NULL;
        }
        /* no configuration: the running system's aliases are not the target's */
        ctx = sym_kmod_new(m->kdir, (const char *const[]) { NULL });
        if (!ctx) {
                m->error = -ENOENT;
                m->error_message = xasprintf(_("cannot open module directory %s"), m->dir);
                return NULL;
        }
        sym_kmod_set_log_priority(ctx, 0);
        if (sym_kmod_load_resources(ctx) < 0) {
                sym_kmod_unref(ctx);
                m->error = -EBADMSG;
                m->error_message = xasprintf(_("cannot load the module indexes of %s"), m->dir);
                return NULL;
        }
        m->ctx = ctx;
        return ctx;
}

int modctx_error(const struct modctx *m, const char **ret_message)
{
        *ret_message = m ? m->error_message : NULL;
        return m ? m->error : 0;
}

void modctx_free(struct modctx *m)
{
        if (!m)
                return;
        if (m->ctx)
                sym_kmod_unref(m->ctx);
        if (m->dirfd >= 0)
                close(m->dirfd);
        free(m->kdir);
        free(m->rel);
        free(m->dir);
        free(m->error_message);
        free(m);
}

/* Offline: a loadable module has its .ko path from modules.dep; a built-in one
 * has none, and get_initstate() answers BUILTIN from the target's
 * modules.builtin.bin before it would look at the running /sys/module. */
static enum mod_state state_of(struct kmod_module *mod)
{
        if (sym_kmod_module_get_path(mod))
                return MOD_LOADABLE;
        if (sym_kmod_module_get_initstate(mod) == KMOD_MODULE_BUILTIN)
                return MOD_BUILTIN;
        return MOD_NOT_FOUND;
}

enum mod_state modctx_state(struct modctx *m, const char *name)
{
        struct kmod_module *mod = NULL;
        enum mod_state s;

        if (!ctx_of(m))
                return MOD_UNKNOWN;
        if (sym_kmod_module_new_from_name(m->ctx, name, &mod) < 0)
                return MOD_NOT_FOUND;
        s = state_of(mod);
        sym_kmod_module_unref(mod);
        return s;
}

void modctx_resolve(struct modctx *m, const char *modalias, struct module_ref **ret, size_t *ret_n)
{
        struct kmod_list *list = NULL, *l;
        struct module_ref *v = NULL;
        size_t n = 0;

        *ret = NULL;
        *ret_n = 0;
        if (!modalias || !ctx_of(m) || sym_kmod_module_new_from_lookup(m->ctx, modalias, &list) < 0)
                return;
        sym_kmod_list_foreach(l, list) {
                struct kmod_module *mod = sym_kmod_module_get_module(l);
                const char *name = sym_kmod_module_get_name(mod);
                bool dup = false;

                for (size_t i = 0; i < n; i++)
                        dup = dup || streq(v[i].name, name);
                if (!dup) {
                        v = xrealloc(v, (n + 1) * sizeof(*v));
                        v[n++] = (struct module_ref) { .name = xstrdup(name), .state = state_of(mod) };
                }
                sym_kmod_module_unref(mod);
        }
        sym_kmod_module_unref_list(list);
        *ret = v;
        *ret_n = n;
}

/* a loadable module's file, which libkmod opens itself to read its
 * parameters, checked as the indexes are; false (and a warning) if it cannot
 * be read safely. A built-in module has none. */
static bool module_file_ok(struct modctx *m, struct kmod_module *mod)
{
        const char *kpath = sym_kmod_module_get_path(mod);
        size_t n = strlen(m->kdir);
        _cleanup_free_ char *path = NULL, *shown = NULL, *why = NULL;
        int r;

        if (!kpath)
                return true;
        if (strncmp(kpath, m->kdir, n) != 0 || kpath[n] != '/' || strstr(kpath + n, "/../")) {
                rootfs_warn(m->rfs, _("%s: modules.dep names %s, outside the module directory; idlecfg does not "
                                      "read it and assumes the module has no parameters"), m->dir, kpath);
                return false;
        }
        path = xasprintf("%s%s", m->rel, kpath + n);
        r = check_kmod_file(m->rfs, path, kpath, MODULE_FILE_MAX);
        if (r == 0)
                return true;
        shown = rootfs_display(m->rfs, path);
        why = rootfs_why(m->rfs, path, r, MODULE_FILE_MAX);
        rootfs_warn(m->rfs, _("%s: %s; idlecfg assumes the module has no parameters"), shown, why);
        return false;
}

bool modctx_has_param(struct modctx *m, const char *name, const char *param)
{
        struct kmod_module *mod = NULL;
        struct kmod_list *info = NULL, *l;
        size_t plen = strlen(param);
        bool found = false;

        if (!ctx_of(m) || sym_kmod_module_new_from_name(m->ctx, name, &mod) < 0)
                return false;
        if (module_file_ok(m, mod) && sym_kmod_module_get_info(mod, &info) >= 0) {
                sym_kmod_list_foreach(l, info) {
                        const char *k = sym_kmod_module_info_get_key(l);
                        const char *v = sym_kmod_module_info_get_value(l);
                        if (v && (streq(k, "parm") || streq(k, "parmtype")) &&
                            strncmp(v, param, plen) == 0 && v[plen] == ':')
                                found = true;
                }
                sym_kmod_module_info_free_list(info);
        }
        sym_kmod_module_unref(mod);
        return found;
}
