/* status.h: the status file, what the last writing run left for every user
 * to read (a fleet's agent, facter, osquery, verify as a user) */
#pragma once

#include <stdbool.h>
#include <time.h>

#include "root/rootfs.h"
#include "base/util.h"

/* Mode 0644, written atomically by install, apply, refresh, a power-source
 * switch and rollback; removed when nothing of idlecfg is left (rollback to
 * nothing). One flat JSON object, one key a line; its schema in idlecfg(8). */
#define STATUS_PATH "/var/lib/idlecfg/status.json"

struct status {
        char *verb;                     /* the run that wrote it: install, apply, refresh, power-source, rollback */
        long long time;                 /* when (seconds since the epoch) */
        char *version;                  /* idlecfg's */
        bool installed;                 /* a manifest of install */
        char *profile, *kernel;         /* the manifest's; NULL: none */
        bool applied;                   /* a journal of apply */
        char *power_source;             /* the source switched to last ("ac", "battery"); NULL: none since boot */
        bool power_source_forced;
        /* the running system against the plan, when that run planned; else
         * carried over from the file before (compared: that run's time; 0: never) */
        long long compared;
        long long settings, match, drift, missing, later;      /* -1: not compared */
        bool boot_step_pending;
        char *boot_steps;               /* the pending steps' ids, space-separated; NULL: none */
};

void status_done(struct status *s);
/* the status file of RFS: 0 and *RET, -ENOENT none, -EBADMSG not such a file */
int status_read(const struct rootfs *rfs, struct status *ret);
/* S as the status file, atomically (temporary files a killed write left go
 * first); the state directory must exist (-ENOENT: nothing of idlecfg there) */
int status_write(const struct rootfs *rfs, const struct status *s, struct xerror *ret_error);
/* remove it and what a killed write left; 0 if there was none */
int status_remove(const struct rootfs *rfs);
/* S as JSON text (the file's content); free it */
char *status_render(const struct status *s);
