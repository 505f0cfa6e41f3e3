/* tests/emit-render.c: build a plan from a line description on stdin and print one rendered file */
#include "config.h"

#include "pipeline/emit.h"
#include "model/plan.h"
#include "base/util.h"

/*
 * Usage: emit-render FORMAT [PROFILE [FINGERPRINT [KERNEL]]]
 * FORMAT: udev, modprobe, tmpfiles, cmdline, sysctl, networkmanager or link. One setting per line of stdin:
 *
 *   mech|knob|device|attr|module|param|value|KEY=VALUE;KEY=VALUE|reason
 *
 * mech is udev, modprobe, tmpfiles, cmdline, sysctl, networkmanager, link or none; an empty field is NULL;
 * the match list and the reason may be left off. Blank lines and lines starting
 * with '#' are ignored. Exit 0 when rendered, 1 when emit_render refused the plan
 * (its message on stderr), 2 for bad usage or input.
 */

static const char *const mech_names[] = {
        [MECH_UDEV] = "udev", [MECH_MODPROBE] = "modprobe", [MECH_TMPFILES] = "tmpfiles",
        [MECH_CMDLINE] = "cmdline", [MECH_SYSCTL] = "sysctl", [MECH_NM] = "networkmanager", [MECH_LINK] = "link",
        [MECH_NONE] = "none",
};

static const struct { const char *name; enum emit_format fmt; } formats[] = {
        { "udev", EMIT_UDEV }, { "modprobe", EMIT_MODPROBE }, { "tmpfiles", EMIT_TMPFILES }, { "cmdline", EMIT_CMDLINE },
        { "sysctl", EMIT_SYSCTL },
        { "networkmanager", EMIT_NM }, { "link", EMIT_LINK },
};

/* next '|'-separated field of *p, NULL when empty or missing */
static char *field(char **p)
{
        char *f = *p;

        if (!f)
                return NULL;
        *p = strchr(f, '|');
        if (*p)
                *(*p)++ = '\0';
        return *f ? xstrdup(f) : NULL;
}

static int parse_line(struct plan *p, char *line, unsigned nr)
{
        _cleanup_free_ char *mech = NULL, *match = NULL;
        struct setting *s;
        char *rest = line;
        size_t m;

        mech = field(&rest);
        for (m = 0; m < ELEMENTSOF(mech_names); m++)
                if (mech && streq_ptr(mech, mech_names[m]))
                        break;
        if (m == ELEMENTSOF(mech_names)) {
                fprintf(stderr, "emit-render: line %u: unknown mechanism '%s'\n", nr, strempty(mech));
                return -EINVAL;
        }
        s = plan_add(p);
        s->mech = (enum mechanism) m;
        s->knob = field(&rest);
        s->device_name = field(&rest);
        s->attr = field(&rest);
        s->module = field(&rest);
        s->param = field(&rest);
        s->value = field(&rest);
        match = field(&rest);
        s->reason = field(&rest);
        for (char *save = NULL, *kv = match ? strtok_r(match, ";", &save) : NULL; kv; kv = strtok_r(NULL, ";", &save)) {
                char *eq = strchr(kv, '=');
                if (!eq) {
                        fprintf(stderr, "emit-render: line %u: match '%s' has no '='\n", nr, kv);
                        return -EINVAL;
                }
                *eq = '\0';
                kv_add(&s->match, kv, eq + 1);
        }
        return 0;
}

int main(int argc, char **argv)
{
        struct plan *p;
        struct xerror e = {};
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        ssize_t len;
        unsigned nr = 0;
        size_t f;
        int r;

        if (argc < 2 || argc > 5) {
                fprintf(stderr, "usage: emit-render udev|modprobe|tmpfiles|cmdline|sysctl|networkmanager|link [PROFILE [FINGERPRINT [KERNEL]]]\n");
                return 2;
        }
        for (f = 0; f < ELEMENTSOF(formats); f++)
                if (streq(argv[1], formats[f].name))
                        break;
        if (f == ELEMENTSOF(formats)) {
                fprintf(stderr, "emit-render: unknown format '%s'\n", argv[1]);
                return 2;
        }
        p = xcalloc(1, sizeof(*p));
        p->profile = xstrdup(argc > 2 ? argv[2] : "test");
        p->fingerprint = xstrdup(argc > 3 ? argv[3] : "0000000000000000");
        p->kernel = argc > 4 ? xstrdup(argv[4]) : NULL;
        while ((len = getline(&line, &cap, stdin)) >= 0) {
                nr++;
                if (len > 0 && line[len - 1] == '\n')
                        line[--len] = '\0';
                if (len == 0 || line[0] == '#')
                        continue;
                if (parse_line(p, line, nr) < 0) {
                        plan_free(p);
                        return 2;
                }
        }
        r = emit_render(p, formats[f].fmt, stdout, &e);
        plan_free(p);
        if (r < 0) {
                fprintf(stderr, "emit-render: %s\n", e.message ? e.message : strerror(-r));
                xerror_done(&e);
                return 1;
        }
        if (fflush(stdout) != 0)
                return 2;
        return 0;
}
