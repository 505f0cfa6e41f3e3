/* install.h: render a plan into a root (rollback.h undoes it) */
#pragma once

#include "model/inventory.h"
#include "state/manifest.h"
#include "model/plan.h"
#include "root/rootfs.h"
#include "state/state.h"

/* the files install owns: targets.h */
#include "root/targets.h"
#include "engine/install-targets.h"
/* image mode (install --image): what enables idlecfg-firstboot.service, the
 * link of its [Install] section (FIRSTBOOT_WANTS_PATH, targets.h: the one
 * link install makes) */
#define FIRSTBOOT_UNIT "idlecfg-firstboot.service"
/* the fingerprint an image's manifest records: no machine's, so that the
 * first refresh on the machine the image boots on installs for it */
#define IMAGE_FINGERPRINT "image"

struct install_options {
        bool dry_run;
        bool force;             /* overwrite files the administrator changed */
        bool image;             /* install --image: no hardware setting, the first-boot unit enabled */
        const char *profiles_dir;
};

/* what install did (or, with dry_run, would do), in order */
enum install_event_kind {
        IE_WROTE,               /* a new file: path, kind, n_settings */
        IE_CHANGED,             /* a file that was there, now ours (kept for rollback) */
        IE_UPDATED,             /* ours, updated */
        IE_OVERWROTE,           /* the administrator's, overwritten with --force */
        IE_RESTORED_UNNEEDED,   /* no longer needed: the file before idlecfg is back */
        IE_REMOVED_UNNEEDED,    /* no longer needed: removed */
        IE_KEPT_BESIDE,         /* changed since: kept, ours beside it as path.idlecfg-new */
        IE_NOT_RECREATED,       /* deleted since: not recreated, ours beside it */
        IE_KEPT_UNNEEDED,       /* changed since and no longer needed: kept */
        IE_KEPT_LINK,           /* a link removed or changed since (systemctl disable): left so */
        IE_NOTHING,             /* every file is as the plan wants it */
        IE_DIFF,                /* dry run: the diff of name_a (a) to name_b (b) */
        IE_DIFF_KEPT,           /* dry run: path was changed since, it would be kept */
};

struct install_event {
        enum install_event_kind what;
        char *path;             /* as shown (with the root) */
        enum target_kind kind;
        size_t n_settings;
        char *name_a, *a, *name_b, *b;
};

/* a file install owns, wants or wanted, and what it does with it */
struct install_file {
        char *path;             /* in the root */
        enum target_kind kind;
        enum action action;
        size_t n_settings;
        bool wanted;            /* it has content of ours */
};

struct install_result {
        struct install_event *v;
        size_t n;
        struct install_file *files;     /* every target, once decided */
        size_t n_files;
        char *cmdline_words;            /* the kernel parameters planned; NULL: none */
        char *dropped_words;            /* an earlier profile's words the boot entries still hold (dropped-words) */
        bool touched;                   /* a target file was changed (rollback has something to undo) */
        bool state_refused;             /* the manifest or a backup was refused: rollback refuses it too */
};
void install_result_free(struct install_result *r);

/* Write the plan's files into the root: 1 when something changed, 0 when all
 * was already in place, <0 on failure (ret_error says what; what was written
 * before the failure is in the manifest, so rollback undoes it). With
 * dry_run, the diffs of what would change, and nothing written. What
 * happened is in *ret, also on failure. */
int install_run(const struct rootfs *rfs, const struct plan *p, const struct inventory *inv,
                const struct install_options *o, struct install_result *ret, struct xerror *ret_error);

