/* stepsdone.h: the boot steps the administrator said were done by hand
 * ("idlecfg steps done"), each with the digest of what it was about and when */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "root/rootfs.h"
#include "base/util.h"

/* "idlecfg-steps-done 1", then "done ID DIGEST TIME" lines; removed with the
 * manifest (state_cleanup()) */
#define STEPS_DONE_PATH "/var/lib/idlecfg/steps-done"

struct step_done {
        char *id;
        char digest[65];        /* next_step's digest: the step and the boot files it is for */
        long long time;         /* when it was said (seconds since the epoch) */
};

struct steps_done {
        struct step_done *v;
        size_t n;
};

/* the file of RFS: 0 and *ret (empty when there is none); -EINVAL with a
 * message (NAME:LINE) when it is not such a file */
int steps_done_load(const struct rootfs *rfs, struct steps_done *ret, struct xerror *ret_error);
/* D as the file, atomically; none when D is empty */
int steps_done_save(const struct rootfs *rfs, const struct steps_done *d, struct xerror *ret_error);
void steps_done_free(struct steps_done *d);
/* the record of step ID with DIGEST, NULL: none */
const struct step_done *steps_done_find(const struct steps_done *d, const char *id, const char *digest);
