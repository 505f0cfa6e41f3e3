/* initramfs.h: does the initramfs of a kernel need making again for
 * modprobe.d/idlecfg.conf? Only when it holds a module the file gives an
 * option to: the initramfs carries a copy of modprobe.d for the modules it
 * loads itself; a module loaded from the root reads the root's modprobe.d. */
#pragma once

#include <stdbool.h>

#include "root/rootfs.h"

enum initramfs_verdict {
        INITRAMFS_NONE,         /* the kernel has no initramfs in the root (or no kernel is known) */
        INITRAMFS_UNKNOWN,      /* its content cannot be listed here: make it again to be sure */
        INITRAMFS_HOLDS,        /* it holds a module of the options: make it again */
        INITRAMFS_LACKS,        /* it holds none of them: the options act when they load from the root */
};

/* the initramfs of KERNEL in the root (Debian, Fedora, SUSE names), NULL
 * when it has none */
char *initramfs_of(const struct rootfs *rfs, const char *kernel);

/* The verdict for KERNEL's initramfs and the modules named by the "options"
 * lines of the root's /etc/modprobe.d/idlecfg.conf. The content is listed
 * (lsinitramfs, lsinitrd) only where the root is the running system; with
 * IDLECFG_TEST_TAKE_EFFECT set, that program gets the lister's command line
 * and prints the listing (tests). One listing per initramfs and content of
 * the file in a run. *RET_MODULES (may be NULL): the modules it holds
 * (HOLDS) or the modules of the file (LACKS), space-separated. */
enum initramfs_verdict initramfs_check(const struct rootfs *rfs, const char *kernel, char **ret_modules);

/* The verdict of a listing (HOLDS, LACKS) is kept in the root's state
 * directory, when there is one, keyed by the kernel, the initramfs (path,
 * size, mtime, device and inode) and the modules: a later run (verify, the
 * quiet refresh of each boot) lists it again only when one of them changed.
 * rollback removes it (state_cleanup()). */
#define INITRAMFS_CACHE_PATH "/var/lib/idlecfg/initramfs.cache"
/* --dry-run, install --check: the cache is read, never written */
void initramfs_cache_readonly(void);

/* Does KERNEL's initramfs hold the file PATH (relative: "etc/modprobe.d/
 * idlecfg.conf")? Listed as initramfs_check() lists it (the running system,
 * or the tests' program), never cached: HOLDS, LACKS, UNKNOWN or NONE. */
enum initramfs_verdict initramfs_holds_file(const struct rootfs *rfs, const char *kernel, const char *path);

/* Cheap, without listing: may KERNEL's initramfs hold PATH? True when the
 * kernel has an initramfs where initramfs_check() would list it (the
 * running system); with IDLECFG_TEST_TAKE_EFFECT, the tests' program is
 * asked as initramfs_holds_file() asks it. Elsewhere (a root that is not the
 * running system, where initramfs_check() says UNKNOWN) false. rollback's
 * note of what may be left decides by it; verify lists. */
bool initramfs_may_hold_file(const struct rootfs *rfs, const char *kernel, const char *path);
