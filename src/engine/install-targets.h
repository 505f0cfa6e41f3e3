/* install-targets.h: the files one install run writes (install.c; the list
 * and a plan rendered into a file: install-targets.c), and the kernel
 * command line's among them (install-cmdline.c); install.h includes it for
 * the kinds and actions */
#pragma once

#include <stdbool.h>
#include <sys/stat.h>

#include "model/plan.h"
#include "pipeline/emit.h"
#include "root/rootfs.h"
#include "state/manifest.h"

/* the kind of a file install owns */
enum target_kind {
        T_UDEV,
        T_MODPROBE,
        T_TMPFILES,
        T_SYSCTL,
        T_NM,                   /* NetworkManager conf.d */
        T_LINK,                 /* drop-in of 99-default.link */
        T_CMDLINE_KERNEL,       /* words appended to /etc/kernel/cmdline */
        T_CMDLINE_GRUB,         /* a /etc/default/grub.d snippet */
        T_CMDLINE_BOOTC,        /* a bootc image's kargs.d file */
        T_CMDLINE_OWN,          /* /etc/idlecfg/cmdline: the installer has to add them */
        T_POWER,                /* the power-source switch: table, udev rule, unit, drop-in (pstable.h) */
        T_FIRSTBOOT,            /* the drop-in that enables idlecfg-firstboot.service (image mode) */
        T_OTHER,                /* a file of an earlier install that is no longer wanted */
};

/* what install does with it */
enum action {
        A_NONE,                 /* already as wanted */
        A_WRITE,                /* write ours (recording what it replaces) */
        A_RESTORE,              /* no longer wanted: put back what was there */
        A_DROP,                 /* no longer wanted and already as before: forget it */
        A_KEEP_THEIRS,          /* changed by the administrator: left alone */
        A_ADOPT,                /* already has our content, the manifest an older checksum */
};

struct target {
        char *path;
        char *content;          /* wanted (a link's target); NULL: not ours any more */
        enum target_kind kind;
        size_t n_settings;
        /* found before anything is written */
        bool exists;
        char *cur;
        size_t cur_len;
        char cur_sha[65];
        struct stat st;
        enum action action;
        bool conflict;          /* ours goes beside it, to PATH.idlecfg-new */
        bool link;              /* a symbolic link (manifest_path_is_link()), not a file */
        /* the administrator's file, already as wanted (CONTENT its bytes): left
         * as it is and not taken into the manifest, while no manifest names it */
        bool as_is;
        /* /etc/kernel/cmdline after the state was lost (CMDLINE_NOTE_PATH):
         * made by idlecfg (OWN: removed by rollback), or ORIG, the
         * administrator's line without idlecfg's earlier words (restored) */
        bool own;
        char *orig;
};

struct targets {
        struct target *v;
        size_t n;
        char *cmdline_words;    /* the kernel parameters planned, space-separated; NULL: none */
        char *dropped_words;    /* the manifest's dropped-words (install_dropped_words()) */
};

/* the target of PATH (an earlier one's content replaced) */
struct target *install_target_add(struct targets *t, const char *path, char *content_take, enum target_kind kind);
/* the settings of P that mechanism M carries */
size_t install_count_mech(const struct plan *p, enum mechanism m);
/* P's file of format FMT as text, in *RET */
int install_render(const struct plan *p, enum emit_format fmt, char **ret, struct xerror *ret_error);
/* the file the kernel parameters go to, by the target's boot scheme
 * (p->boot, root/bootscheme.h); none when the plan has none */
int install_cmdline_target(const struct rootfs *rfs, const struct plan *p, const struct manifest *m,
                           struct targets *t, struct xerror *ret_error);
/* GRUB with BLS entries, an OSTree host: the words an earlier install gave
 * the boot entries through a tool (the words of idlecfg's own
 * /etc/idlecfg/cmdline, and those an earlier install found dropped) that
 * WORDS, this plan's own words (NULL: none), no longer has, and some entry
 * still holds; never an administrator's word (not in idlecfg's file: see
 * bls_own_words()). NULL: none. Read before anything is written. */
char *install_dropped_words(const struct rootfs *rfs, const struct plan *p, const struct manifest *m,
                            const char *words);
/* the note of idlecfg's words in /etc/kernel/cmdline (CMDLINE_NOTE_PATH) as
 * manifest M wants it: written while M names that file with words of
 * idlecfg's in it (install_own_words()), else removed. 0 or -errno */
int install_cmdline_note(const struct rootfs *rfs, const struct manifest *m);
