/* modules.c: resolve modaliases and module parameters in the target kernel (libkmod) */
#include "config.h"

#include <dirent.h>
#include <libkmod.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "modules.h"

struct modctx {
        struct kmod_ctx *ctx;
};

const char *mod_state_to_string(enum mod_state s)
{
        switch (s) {
        case MOD_BUILTIN: return "builtin";
        case MOD_LOADABLE: return "loadable";
        case MOD_NOT_FOUND: return "not-found";
        default: return "unknown";
        }
}

static bool is_dir(const char *p)
{
        struct stat st;
        return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int kernel_choose(const char *root, const char *kernel, char **ret_kver, char **ret_source)
{
        _cleanup_free_ char *dir = NULL;
        _cleanup_free_ char *best = NULL;
        struct utsname u;
        DIR *d;
        struct dirent *de;

        if (kernel) {
                *ret_kver = xstrdup(kernel);
                *ret_source = xstrdup("--kernel");
                return 0;
        }
        if (root_is_host(root)) {
                if (uname(&u) < 0)
                        return -errno;
                *ret_kver = xstrdup(u.release);
                *ret_source = xstrdup("running");
                return 0;
        }
        dir = root_path(root, "/lib/modules");
        d = opendir(dir);
        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                _cleanup_free_ char *p = NULL;
                if (de->d_name[0] == '.')
                        continue;
                p = xasprintf("%s/%s", dir, de->d_name);
                if (!is_dir(p))
                        continue;
                if (!best || strverscmp(de->d_name, best) > 0) {
                        free(best);
                        best = xstrdup(de->d_name);
                }
        }
        closedir(d);
        if (!best)
                return -ENOENT;
        *ret_kver = TAKE_PTR(best);
        *ret_source = xstrdup("newest in root");
        return 0;
}

struct modctx *modctx_new(const char *root, const char *kver, char **ret_moddir, char **ret_note)
{
        _cleanup_free_ char *rel = xasprintf("/lib/modules/%s", kver);
        _cleanup_free_ char *dir = root_path(root, rel);
        _cleanup_free_ char *dep = NULL;
        struct kmod_ctx *ctx;
        struct modctx *m;

        *ret_moddir = NULL;
        *ret_note = NULL;
        if (!is_dir(dir)) {
                if (root_is_host(root))
                        *ret_note = xasprintf(_("no module directory %s: this kernel has no loadable modules "
                                                "installed; module resolution and parameter checks are skipped"),
                                              dir);
                else
                        *ret_note = xasprintf(_("no module directory %s in the target root; module resolution "
                                                "and parameter checks are skipped"), dir);
                return NULL;
        }
        dep = xasprintf("%s/modules.dep.bin", dir);
        if (access(dep, R_OK) < 0) {
                *ret_note = xasprintf(_("%s has no modules.dep.bin (run depmod for %s); module resolution "
                                        "is skipped"), dir, kver);
                return NULL;
        }
        /* no configuration: the running system's aliases are not the target's */
        ctx = kmod_new(dir, (const char *const[]) { NULL });
        if (!ctx) {
                *ret_note = xasprintf(_("cannot open module directory %s"), dir);
                return NULL;
        }
        kmod_set_log_priority(ctx, 0);
        if (kmod_load_resources(ctx) < 0) {
                kmod_unref(ctx);
                *ret_note = xasprintf(_("cannot load the module indexes of %s"), dir);
                return NULL;
        }
        m = xcalloc(1, sizeof(*m));
        m->ctx = ctx;
        *ret_moddir = TAKE_PTR(dir);
        return m;
}

void modctx_free(struct modctx *m)
{
        if (!m)
                return;
        kmod_unref(m->ctx);
        free(m);
}

/* Offline: a loadable module has its .ko path from modules.dep; a built-in one
 * has none, and get_initstate() answers BUILTIN from the target's
 * modules.builtin.bin before it would look at the running /sys/module. */
static enum mod_state state_of(struct kmod_module *mod)
{
        if (kmod_module_get_path(mod))
                return MOD_LOADABLE;
        if (kmod_module_get_initstate(mod) == KMOD_MODULE_BUILTIN)
                return MOD_BUILTIN;
        return MOD_NOT_FOUND;
}

enum mod_state modctx_state(struct modctx *m, const char *name)
{
        struct kmod_module *mod = NULL;
        enum mod_state s;

        if (!m)
                return MOD_UNKNOWN;
        if (kmod_module_new_from_name(m->ctx, name, &mod) < 0)
                return MOD_NOT_FOUND;
        s = state_of(mod);
        kmod_module_unref(mod);
        return s;
}

void modctx_resolve(struct modctx *m, const char *modalias, struct module_ref **ret, size_t *ret_n)
{
        struct kmod_list *list = NULL, *l;
        struct module_ref *v = NULL;
        size_t n = 0;

        *ret = NULL;
        *ret_n = 0;
        if (!m || !modalias || kmod_module_new_from_lookup(m->ctx, modalias, &list) < 0)
                return;
        kmod_list_foreach(l, list) {
                struct kmod_module *mod = kmod_module_get_module(l);
                const char *name = kmod_module_get_name(mod);
                bool dup = false;

                for (size_t i = 0; i < n; i++)
                        dup = dup || streq(v[i].name, name);
                if (!dup) {
                        v = xrealloc(v, (n + 1) * sizeof(*v));
                        v[n++] = (struct module_ref) { .name = xstrdup(name), .state = state_of(mod) };
                }
                kmod_module_unref(mod);
        }
        kmod_module_unref_list(list);
        *ret = v;
        *ret_n = n;
}

bool modctx_has_param(struct modctx *m, const char *name, const char *param)
{
        struct kmod_module *mod = NULL;
        struct kmod_list *info = NULL, *l;
        size_t plen = strlen(param);
        bool found = false;

        if (!m || kmod_module_new_from_name(m->ctx, name, &mod) < 0)
                return false;
        if (kmod_module_get_info(mod, &info) >= 0) {
                kmod_list_foreach(l, info) {
                        const char *k = kmod_module_info_get_key(l);
                        const char *v = kmod_module_info_get_value(l);
                        if (v && (streq(k, "parm") || streq(k, "parmtype")) &&
                            strncmp(v, param, plen) == 0 && v[plen] == ':')
                                found = true;
                }
                kmod_module_info_free_list(info);
        }
        kmod_module_unref(mod);
        return found;
}
