/* modules.h: the target kernel's modules, through libkmod */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct modctx;

/* how a module is present in the target kernel */
enum mod_state {
        MOD_UNKNOWN,    /* no module directory to ask */
        MOD_NOT_FOUND,  /* the directory does not know it */
        MOD_BUILTIN,
        MOD_LOADABLE,
};
const char *mod_state_to_string(enum mod_state s);

struct module_ref {
        char *name;
        enum mod_state state;
};

struct rootfs;

/* Is RELEASE a distribution's ABI name that hides the upstream sublevel,
 * X.Y.0-N[-FLAVOUR] (Debian's 6.1.0-18-amd64, Ubuntu's 6.8.0-45-generic)? */
bool kernel_release_abi_only(const char *release);

/* The largest dpkg status file kernel_upstream() reads (a desktop's is a few MiB) */
#define DPKG_STATUS_MAX (64u << 20)

/* the Version of the installed package NAME in a dpkg status TEXT, NULL if none */
char *dpkg_installed_version(const char *text, const char *name);

/* The upstream version X.Y.Z of RELEASE where the target says it: the Version
 * of its linux-image-RELEASE package in /var/lib/dpkg/status ("6.1.76-1"
 * gives 6.1.76), else, when RELEASE is the running kernel and the target is the
 * running system (RUNNING: target_is_running_system(); in a chroot the host's
 * /proc/version tells of the host's package, not the target's), "Debian X.Y.Z"
 * in /proc/version. 1 with *ret_version and *ret_source ("the file: what it
 * says"), 0 when unknown with *ret_source saying what was looked at; every
 * file is read through rootfs_read_file(). */
int kernel_upstream(const struct rootfs *rfs, const char *release, bool running, char **ret_version,
                    char **ret_source);

/* The target's module indexes: *ret when DIR/lib/modules/KVER has
 * modules.dep.bin, else *ret NULL and a note. Nothing is loaded yet:
 * libkmod.so.2 is opened (dlopen) and the indexes read at the first question,
 * so that a run that asks none never loads libkmod (nor libcrypto, libzstd
 * and liblzma, which it pulls in). */
void modctx_new(const struct rootfs *rfs, const char *kver, struct modctx **ret, char **ret_moddir, char **ret_note);
/* 0, or < 0 when a question could not be answered because libkmod.so.2 or the
 * indexes could not be loaded (-ELIBACC: the library), *ret_message saying so;
 * the answers given meanwhile (unknown, no parameter, no modules) must not be used */
int modctx_error(const struct modctx *m, const char **ret_message);
void modctx_free(struct modctx *m);

/* modules a modalias resolves to, each with its state */
void modctx_resolve(struct modctx *m, const char *modalias, struct module_ref **ret, size_t *ret_n);
enum mod_state modctx_state(struct modctx *m, const char *name);
/* does module NAME have parameter PARAM in the target kernel? */
bool modctx_has_param(struct modctx *m, const char *name, const char *param);
