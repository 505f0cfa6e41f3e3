/* refresh-run.h: refresh decided in the engine: the cheap look, the full
 * one when something differs, the stale inputs recorded, under the lock;
 * the command line renders the result and installs what it says */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "model/inventory.h"
#include "state/manifest.h"
#include "root/rootfs.h"
#include "base/util.h"

struct refresh_options {
        const struct rootfs *rfs;       /* the root, opened by the caller */
        const char *profile;            /* --profile, or NULL */
        const char *kernel;             /* --kernel, or NULL */
        const char *profiles_dir;       /* --profiles-dir, or NULL */
        bool image;                     /* refresh --image: the first-boot unit's */
        bool dry_run;                   /* nothing written, no lock taken */
        unsigned wait_ms;               /* how long to wait for another instance's lock */
        int *lock;                      /* the run's lock: -1 until taken; refresh_run() takes it
                                         * when it writes or installs, and the caller frees it */
};

enum refresh_verdict {
        REFRESH_FAILED,                 /* FAILED says where, ERROR and E why */
        REFRESH_NOT_INSTALLED,          /* no manifest: nothing to refresh */
        REFRESH_IMAGE,                  /* an image's manifest and not refresh --image: its first boot configures it */
        REFRESH_UNCHANGED,              /* nothing changed since the last install */
        REFRESH_CHANGED,                /* install CHOSEN for INV */
};

enum refresh_failure {
        REFRESH_FAILED_MANIFEST,        /* the manifest is refused */
        REFRESH_FAILED_LOCK,            /* the lock could not be taken */
        REFRESH_FAILED_DETECT,          /* inventory_detect(): detect_error() says ERROR */
        REFRESH_FAILED_PROFILE,         /* no profile for the inventory's chassis */
};

struct refresh_result {
        enum refresh_verdict verdict;
        struct manifest *manifest;      /* the manifest decided on (NULL: none, or refused) */
        const char *profile;            /* the --profile decided with: the option's, else the
                                         * manifest's when install was given one (else NULL) */
        /* UNCHANGED by the cheap look: the stat digests of files touched or
         * replaced by the same bytes, recorded anew in the manifest:
         * STALE_R 1 recorded, 0 not tried (none, --dry-run, another
         * instance's lock, a read-only root, a manifest replaced meanwhile),
         * < 0 the write failed (STALE_ERROR) */
        int stale_r;
        struct xerror stale_error;
        /* the full look (something differed at the cheap one): */
        struct inventory *inv;          /* the inventory detected (NULL: none) */
        struct kvlist changed;          /* what changed: name and "OLD -> NEW", NULL for files */
        bool cut_short;                 /* the last install was cut short: it is finished now */
        char *chosen, *chosen_reason;   /* the profile for INV, and why */
        /* FAILED: */
        enum refresh_failure failed;
        int error;
        struct xerror e;
};

/* Refresh the root of O: what changed since the manifest, decided. The
 * lock is taken only when something differs at the cheap look (and to
 * record stale inputs, without waiting); a manifest replaced meanwhile by
 * the instance waited for is looked at again. RET is freed by
 * refresh_result_free(). */
void refresh_run(const struct refresh_options *o, struct refresh_result *ret);
void refresh_result_free(struct refresh_result *r);
