/* refresh-run.c: refresh decided in one call: the manifest, the cheap look
 * (fingerprint.c, refresh_compare()), the stale inputs recorded, the lock,
 * the full inventory and the profile when something differs */
#include "config.h"

#include <errno.h>

#include "db/profile-select.h"
#include "engine/install.h"
#include "engine/refresh-run.h"
#include "engine/refresh.h"
#include "pipeline/detect.h"
#include "pipeline/fingerprint.h"
#include "root/target.h"

/* The cheap look, what a package hook pays on every upgrade: the
 * fingerprint straight from /sys, the kernel, the profile's name and the
 * stat (then content) digests of the files. True when nothing changed since
 * manifest M. RET_CHASSIS: the chassis type it read; RET_NAME, RET_WHY: the
 * profile it chose, *RET_SELECTED false if it could not choose one. */
static bool cheap_look_unchanged(const struct refresh_options *o, const char *profile, const struct manifest *m,
                                 char **ret_chassis, char **ret_name, char **ret_why, bool *ret_selected,
                                 struct kvlist *ret_stale)
{
        _cleanup_free_ char *kernel = NULL, *ksource = NULL, *kreason = NULL;
        struct kvlist now = {};
        struct xerror e = {};
        char fp[17];
        bool unchanged;

        if (target_kernel_choose(o->rfs, o->kernel, &kernel, &ksource, &kreason) < 0)
                kernel = NULL;
        fingerprint_read(fp, ret_chassis);
        *ret_selected = profile_select_rootfs(o->rfs, profile, *ret_chassis, ret_name, ret_why, &e) >= 0;
        /* (an install killed half-way is finished whatever the inputs say) */
        unchanged = *ret_selected && !manifest_pending(m) &&
                    refresh_compare(o->rfs, &m->inputs, fp, kernel, NULL, *ret_name, o->profiles_dir, &now,
                                    ret_stale) == 0;
        xerror_done(&e);
        kv_free(&now);
        return unchanged;
}

/* whether the manifest of the root is no longer M (read again: only when
 * refresh has something to write, never on the quiet path) */
static bool manifest_replaced(const struct rootfs *rfs, const struct manifest *m)
{
        _cleanup_(manifest_freep) struct manifest *now = NULL;
        _cleanup_free_ char *was = NULL, *is = NULL;

        if (manifest_load(rfs, &now, NULL) < 0)
                return true;
        was = manifest_format(m);
        is = manifest_format(now);
        return !streq(was, is);
}

/* Nothing changed, but files were touched or replaced by the same bytes
 * (every udev upgrade replaces the whole hwdb): their new stat digests
 * (STALE) go into the manifest, else every later look, on every boot, reads
 * and hashes their contents again until the next install. Bookkeeping only:
 * with the lock held by another instance, on a read-only root, or when the
 * manifest was replaced meanwhile, nothing is written and the next refresh
 * tries again; a failure is kept in RES and changes nothing else. The
 * manifest is replaced whole (temporary file, rename): killed, it is the old
 * one or the new, and the next one removes the temporary file. */
static void record_stale(const struct refresh_options *o, struct refresh_result *res, const struct kvlist *stale)
{
        struct manifest *m = res->manifest;
        struct xerror e = {};
        int r;

        if (stale->n == 0 || o->dry_run)
                return;
        if (*o->lock < 0) {
                r = rootfs_lock(o->rfs, 0, &e);
                xerror_done(&e);
                if (r < 0)
                        return;
                *o->lock = r;
        }
        if (manifest_replaced(o->rfs, m))
                return;
        /* what an earlier one killed half-way left beside the manifest */
        (void) rootfs_remove_temps(o->rfs, MANIFEST_PATH);
        for (size_t i = 0; i < stale->n; i++)
                kv_set(&m->inputs, stale->v[i].key, stale->v[i].value);
        r = manifest_save(o->rfs, m, &res->stale_error);
        res->stale_r = r < 0 ? r : 1;
}

static void failed(struct refresh_result *res, enum refresh_failure what, int r, struct xerror *e)
{
        res->verdict = REFRESH_FAILED;
        res->failed = what;
        res->error = r;
        if (e) {
                res->e = *e;
                *e = (struct xerror) {};
        }
}

/* something differs: the full inventory decides, and is what gets
 * installed; the profile is chosen again only if the inventory's chassis
 * type is not the one the cheap look read (CHASSIS; SELECTED: NAME, WHY) */
static void full_look(const struct refresh_options *o, struct refresh_result *res, const char *chassis,
                      bool selected, char *name, char *why)
{
        struct detect_options d = { .rfs = o->rfs, .kernel = o->kernel };
        const struct inventory *inv;
        struct xerror e = {};
        size_t changed;
        int r;

        res->chosen = name;
        res->chosen_reason = why;
        r = inventory_detect(&d, &res->inv);
        if (r < 0) {
                res->inv = NULL;
                failed(res, REFRESH_FAILED_DETECT, r, NULL);
                return;
        }
        inv = res->inv;
        if (!selected || !streq_ptr(chassis, kv_get(&inv->platform, "chassis_type"))) {
                free(res->chosen);
                free(res->chosen_reason);
                res->chosen = res->chosen_reason = NULL;
                r = profile_select_rootfs(o->rfs, res->profile, kv_get(&inv->platform, "chassis_type"),
                                          &res->chosen, &res->chosen_reason, &e);
                if (r < 0) {
                        failed(res, REFRESH_FAILED_PROFILE, r, &e);
                        return;
                }
        }
        changed = refresh_compare(o->rfs, &res->manifest->inputs, inv->fingerprint, inv->kernel, inv, res->chosen,
                                  o->profiles_dir, &res->changed, NULL);
        res->cut_short = manifest_pending(res->manifest);
        res->verdict = changed > 0 || res->cut_short ? REFRESH_CHANGED : REFRESH_UNCHANGED;
}

/* one look; true: the manifest was replaced while refresh waited for the
 * lock (an instance we waited for installed, or rolled back): look again */
static bool refresh_look(const struct refresh_options *o, struct refresh_result *res)
{
        _cleanup_free_ char *chassis = NULL;
        struct kvlist stale = {};
        struct xerror e = {};
        char *name = NULL, *why = NULL;
        bool selected;
        int r;

        r = manifest_load(o->rfs, &res->manifest, &e);
        if (r == -ENOENT) {
                xerror_done(&e);
                res->verdict = REFRESH_NOT_INSTALLED;
                return false;
        }
        if (r < 0) {
                failed(res, REFRESH_FAILED_MANIFEST, r, &e);
                return false;
        }
        /* an image's manifest: package hooks in the image build (a chroot of
         * the build host) must not install the build host's hardware; the
         * first boot's refresh --image installs for the machine it boots on */
        if (streq_ptr(res->manifest->fingerprint, IMAGE_FINGERPRINT) && !o->image) {
                res->verdict = REFRESH_IMAGE;
                return false;
        }
        /* the profile install chose: --profile again if that is how it was chosen */
        res->profile = o->profile;
        if (!o->profile && streq_ptr(kv_get(&res->manifest->inputs, "profile-reason"), "--profile"))
                res->profile = res->manifest->profile;

        if (cheap_look_unchanged(o, res->profile, res->manifest, &chassis, &name, &why, &selected, &stale)) {
                free(name);
                free(why);
                record_stale(o, res, &stale);
                kv_free(&stale);
                res->verdict = REFRESH_UNCHANGED;
                return false;
        }
        kv_free(&stale);
        /* something differs: the lock; a manifest replaced meanwhile is looked at again */
        if (*o->lock < 0 && !o->dry_run) {
                r = rootfs_lock(o->rfs, o->wait_ms, &e);
                /* a read-only root: nobody can change it, nor leave a lock in
                 * it; what would need a write fails later and says so */
                if (r < 0 && r != -EROFS) {
                        free(name);
                        free(why);
                        failed(res, REFRESH_FAILED_LOCK, r, &e);
                        return false;
                }
                xerror_done(&e);
                if (r >= 0)
                        *o->lock = r;
                if (manifest_replaced(o->rfs, res->manifest)) {
                        free(name);
                        free(why);
                        return true;
                }
        }
        full_look(o, res, chassis, selected, name, why);
        return false;
}

void refresh_run(const struct refresh_options *o, struct refresh_result *ret)
{
        *ret = (struct refresh_result) {};
        while (refresh_look(o, ret)) {
                refresh_result_free(ret);
                *ret = (struct refresh_result) {};
        }
}

void refresh_result_free(struct refresh_result *r)
{
        manifest_free(r->manifest);
        xerror_done(&r->stale_error);
        inventory_free(r->inv);
        kv_free(&r->changed);
        free(r->chosen);
        free(r->chosen_reason);
        xerror_done(&r->e);
}
