/* install-targets.c: the list of files an install writes, and a plan rendered
 * into one of them; install.c and install-cmdline.c both build on it */
#include "config.h"

#include <stdio.h>

#include "engine/install-targets.h"

struct target *install_target_add(struct targets *t, const char *path, char *content_take, enum target_kind kind)
{
        struct target *x;

        for (size_t i = 0; i < t->n; i++)
                if (streq(t->v[i].path, path)) {
                        free(t->v[i].content);
                        t->v[i].content = content_take;
                        return &t->v[i];
                }
        t->v = xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
        x = &t->v[t->n++];
        *x = (struct target) { .path = xstrdup(path), .content = content_take, .kind = kind,
                               .link = manifest_path_is_link(path) };
        return x;
}

size_t install_count_mech(const struct plan *p, enum mechanism m)
{
        size_t n = 0;
        for (size_t i = 0; i < p->n; i++)
                n += p->v[i].mech == m && p->v[i].value;
        return n;
}

int install_render(const struct plan *p, enum emit_format fmt, char **ret, struct xerror *ret_error)
{
        struct xerror ee = {};
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        int r;

        if (!f)
                return -ENOMEM;
        r = emit_render(p, fmt, f, &ee);
        fclose(f);
        if (r < 0) {
                xerror_set(ret_error, r, "%s", ee.message ? ee.message : strerror(-r));
                xerror_done(&ee);
                free(buf);
                return r;
        }
        *ret = buf;
        return 0;
}
