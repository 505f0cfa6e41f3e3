/* modules.h: the target kernel's modules, through libkmod */
#pragma once

#include "inventory.h"

struct modctx;

/* Pick the target kernel: --kernel, else the running one for the host root,
 * else the newest DIR/lib/modules/VERSION. ret_note explains a missing dir. */
struct rootfs;
int kernel_choose(const struct rootfs *rfs, const char *kernel, char **ret_kver, char **ret_source);

/* NULL (and a note) when the target has no module directory */
struct modctx *modctx_new(const struct rootfs *rfs, const char *kver, char **ret_moddir, char **ret_note);
void modctx_free(struct modctx *m);

/* modules a modalias resolves to, each with its state */
void modctx_resolve(struct modctx *m, const char *modalias, struct module_ref **ret, size_t *ret_n);
enum mod_state modctx_state(struct modctx *m, const char *name);
/* does module NAME have parameter PARAM in the target kernel? */
bool modctx_has_param(struct modctx *m, const char *name, const char *param);
