/* stepsdone.c: the file of the boot steps done by hand (stepsdone.h) */
#include "config.h"

#include <stdlib.h>

#include "state/records.h"
#include "state/stepsdone.h"

#define STEPS_DONE_MAX (64u << 10)

void steps_done_free(struct steps_done *d)
{
        for (size_t i = 0; i < d->n; i++)
                free(d->v[i].id);
        free(d->v);
        *d = (struct steps_done) {};
}

static bool id_ok(const char *id)
{
        return *id && strlen(id) < 64 && strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(id);
}

static bool digest_ok(const char *d)
{
        return strlen(d) == 64 && strspn(d, "0123456789abcdef") == 64;
}

const struct step_done *steps_done_find(const struct steps_done *d, const char *id, const char *digest)
{
        for (size_t i = 0; i < d->n; i++)
                if (streq(d->v[i].id, id) && streq(d->v[i].digest, digest))
                        return &d->v[i];
        return NULL;
}

int steps_done_load(const struct rootfs *rfs, struct steps_done *ret, struct xerror *ret_error)
{
        _cleanup_free_ char *text = NULL, *shown = NULL;
        struct steps_done d = {};
        unsigned lineno = 0;
        size_t len = 0;
        int r = rootfs_read_file(rfs, STEPS_DONE_PATH, ROOTFS_NOFOLLOW, STEPS_DONE_MAX, &text, &len, NULL);

        *ret = (struct steps_done) {};
        if (r == -ENOENT || r == -ENOTDIR)
                return 0;
        shown = rootfs_display(rfs, STEPS_DONE_PATH);
        if (r < 0) {
                _cleanup_free_ char *why = rootfs_why(rfs, STEPS_DONE_PATH, r, STEPS_DONE_MAX);
                return xerror_set(ret_error, r, _("cannot read %s: %s"), shown, why);
        }
        if (strlen(text) != len)
                return xerror_set(ret_error, -EINVAL, _("%s: not a list of steps done by hand"), shown);
        for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *w[5] = {}, *s2 = NULL, *end;
                size_t n = 0;
                long long t;

                lineno++;
                for (char *x = strtok_r(line, " ", &s2); x && n < 5; x = strtok_r(NULL, " ", &s2))
                        w[n++] = x;
                if (lineno == 1 && n == 2 && streq(w[0], "idlecfg-steps-done") && streq(w[1], "1"))
                        continue;
                errno = 0;
                t = n == 4 ? strtoll(w[3], &end, 10) : 0;
                if (lineno == 1 || n != 4 || !streq(w[0], "done") || !id_ok(w[1]) || !digest_ok(w[2]) || errno ||
                    *end || t < 0) {
                        steps_done_free(&d);
                        return xerror_set(ret_error, -EINVAL, _("%s:%u: not a line of steps done by hand"), shown,
                                          lineno);
                }
                d.v = xrealloc(d.v, (d.n + 1) * sizeof(*d.v));
                d.v[d.n] = (struct step_done) { .id = xstrdup(w[1]), .time = t };
                memcpy(d.v[d.n].digest, w[2], 65);
                d.n++;
        }
        *ret = d;
        return 0;
}

int steps_done_save(const struct rootfs *rfs, const struct steps_done *d, struct xerror *ret_error)
{
        struct strbuf sb = {};
        int r;

        if (d->n == 0) {
                r = rootfs_unlink(rfs, STEPS_DONE_PATH);
                r = r == -ENOENT || r == -ENOTDIR ? 0 : r;
        } else {
                sb_append(&sb, "idlecfg-steps-done 1\n");
                for (size_t i = 0; i < d->n; i++)
                        sb_appendf(&sb, "done %s %s %lld\n", d->v[i].id, d->v[i].digest, d->v[i].time);
                r = records_write(rfs, STEPS_DONE_PATH, sb_str(&sb), sb.len, ret_error);
                sb_free(&sb);
                return r;
        }
        if (r < 0) {
                _cleanup_free_ char *shown = rootfs_display(rfs, STEPS_DONE_PATH);
                _cleanup_free_ char *why = rootfs_why(rfs, STEPS_DONE_PATH, r, 0);
                return xerror_set(ret_error, r, _("cannot write %s: %s"), shown, why);
        }
        return 0;
}
