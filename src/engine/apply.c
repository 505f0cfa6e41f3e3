/* apply.c: write the plan's live settings, journal first; undo them
 *
 * A run reads every old value first, then writes the journal with a line
 * (path, old, new) for each write it will make, in one atomic, fsynced write,
 * and only then touches the attributes: a crash or a kill at any point leaves
 * a journal that names every attribute that may have changed (a line whose
 * write never happened finds the old value, which rollback leaves alone). */
#include "config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "engine/apply.h"
#include "base/fault.h"
#include "state/journal.h"
#include "knobs/knob.h"
#include "state/state.h"

char *value_normalize(const char *raw)
{
        _cleanup_free_ char *copy = xstrdup(raw);
        char *sel = NULL, *t = strstrip(copy);

        /* leading blanks too: an empty string parameter reads "\n" (param_get_string()) */
        memmove(copy, t, strlen(t) + 1);
        if (strchr(copy, '[') && parse_selected(copy, &sel) == 0)
                return sel;
        return TAKE_PTR(copy);
}

/* which module parameters exist as files at run time is the kernel's business;
 * a boot-time-only parameter has no file, or one without write permission */
char *setting_live_path(const struct setting *s, const char **ret_why)
{
        if (!s->value) {
                *ret_why = "skip";
                return NULL;
        }
        switch (s->mech) {
        case MECH_UDEV:
                if (!s->device || !s->attr)
                        break;
                return xasprintf("/sys%s/%s", s->device, s->attr);
        case MECH_MODPROBE:
        case MECH_TMPFILES:
        case MECH_CMDLINE:
                if (s->module && s->param)
                        return xasprintf("/sys/module/%s/parameters/%s", s->module, s->param);
                *ret_why = _("a kernel parameter: it takes effect at the next boot");
                return NULL;
        case MECH_SYSCTL: {
                char *path = s->param ? sysctl_proc_path(s->param) : NULL;
                if (!path)
                        *ret_why = _("/proc/sys is the host's under umockdev: set IDLECFG_TEST_PROC");
                return path;
        }
        case MECH_NM:
                /* no sysfs file: nl80211 only, and NetworkManager sets it again on every activation */
                *ret_why = _("NetworkManager sets it when it next activates a Wi-Fi connection (reload its "
                             "configuration, or boot)");
                return NULL;
        case MECH_LINK:
                /* Wake-on-LAN has no sysfs file; systemd-udevd sets it when the NIC is added */
                *ret_why = _("systemd-udevd sets it when the network interface is added (the next boot)");
                return NULL;
        case MECH_NONE:
        case _MECH_MAX:
                break;
        }
        *ret_why = _("nothing to write at run time");
        return NULL;
}

static int write_attr(const char *path, const char *value)
{
        _cleanup_close_ int fd = -1;
        size_t len = strlen(value);
        ssize_t n;
        int r;

        r = fault_point("sysfs write");
        if (r < 0)
                return r;
        /* O_TRUNC: sysfs ignores it; a file in a recorded tree needs it */
        fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        n = write(fd, value, len);
        if (n < 0)
                return -errno;
        if ((size_t) n != len)
                return -EIO;
        return 0;
}

/* the value to write back: what was read, unless it is a [selected] list,
 * which the kernel does not take back: then the selected word */
static char *restore_value(const char *old)
{
        if (strchr(old, '['))
                return value_normalize(old);
        return xstrdup(old);
}

/* ---- apply ---- */

/* a write of this run: planned while every old value is read, then
 * journaled with the others in one journal write, then done */
struct change {
        char *path;
        char *old;                      /* as read */
        const struct setting *s;
        size_t entry;                   /* its entry in the result */
        bool written;
        bool by_rules;                  /* old is the rules' battery value (apply_options' battery_seen) */
};

const char *setting_where(const struct setting *s)
{
        return s->device_name ? s->device_name : s->module ? s->module : "system";
}

static struct apply_entry *entry_add(struct apply_result *res, enum apply_state state, const struct setting *s,
                                     const char *path)
{
        res->v = xrealloc(res->v, (res->n + 1) * sizeof(*res->v));
        res->v[res->n] = (struct apply_entry) { .state = state, .s = s, .path = path ? xstrdup(path) : NULL };
        return &res->v[res->n++];
}

void apply_result_free(struct apply_result *r)
{
        for (size_t i = 0; i < r->n; i++) {
                free(r->v[i].path);
                free(r->v[i].old);
        }
        free(r->v);
        *r = (struct apply_result) {};
}

/* the planned writes' entries go from the result (nothing was written) */
static void entries_drop_planned(struct apply_result *res, const struct change *ch, size_t n)
{
        for (size_t k = n; k-- > 0;) {
                struct apply_entry *e = &res->v[ch[k].entry];
                free(e->path);
                free(e->old);
                memmove(e, e + 1, (res->n - ch[k].entry - 1) * sizeof(*e));
                res->n--;
        }
}

/* the entries from index FROM on go from the result */
static void entries_truncate(struct apply_result *res, size_t from)
{
        for (size_t i = from; i < res->n; i++) {
                free(res->v[i].path);
                free(res->v[i].old);
        }
        res->n = from;
}

/* undo this run's writes, last first */
static size_t undo(const struct change *v, size_t n, struct apply_result *res)
{
        size_t failed = 0;

        for (size_t i = n; i-- > 0;) {
                _cleanup_free_ char *back = NULL;
                int r;
                if (!v[i].written)
                        continue;
                back = restore_value(v[i].old);
                r = write_attr(v[i].path, back);
                if (r < 0) {
                        entry_add(res, APPLY_UNDO_FAILED, v[i].s, v[i].path)->err = r;
                        failed++;
                } else
                        entry_add(res, APPLY_UNDONE, v[i].s, v[i].path);
        }
        return failed;
}

/* the journal with this run's writes, in one write before the first of them */
static int journal_write_ahead(const struct rootfs *rfs, const struct journal *j, const struct plan *p,
                               const struct change *ch, size_t n, struct xerror *ret_error)
{
        /* two records of a file the rules wrote under the battery mark */
        _cleanup_free_ struct journal_entry *add = xcalloc(2 * n + 1, sizeof(*add));
        _cleanup_free_ char *text = NULL;
        size_t m = 0;

        for (size_t k = 0; k < n; k++) {
                if (ch[k].by_rules)
                        /* the rules' write under the mark, before this run's: rollback
                         * goes from the battery value to the value without the switch */
                        add[m++] = (struct journal_entry) { .path = ch[k].path, .old = ch[k].s->value,
                                                            .new = ch[k].s->value_battery };
                add[m++] = (struct journal_entry) { .path = ch[k].path, .old = ch[k].old, .new = ch[k].s->value };
        }
        text = journal_text_with_run(j, add, m, (long long) time(NULL), p->profile);
        return journal_commit(rfs, text, ret_error);
}

struct apply_counts {
        size_t done, would, failed, later, same;
};

/* is LINE a whole line of TEXT? */
static bool line_in(const char *text, const char *line)
{
        size_t n = strlen(line);

        for (const char *p = text; (p = strstr(p, line)); p++)
                if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
                        return true;
        return false;
}

/* Setting S's old value from its live file PATH (NULL: WHY it has none): an
 * entry of RES, and the change to make added to *CH. 0; or -EIO with
 * *ret_error set when it cannot be read and --keep-going is not given. */
static int read_old(const struct setting *s, const char *path, const char *why, const struct apply_options *o,
                    const struct journal *j, struct apply_result *res, struct apply_counts *n, struct change **ch,
                    size_t *n_ch, struct xerror *ret_error)
{
        _cleanup_free_ char *old = NULL, *norm = NULL, *bat = NULL;
        bool by_rules = false;
        struct stat st;
        int r;

        if (!path) {
                n->later++;
                entry_add(res, APPLY_LATER, s, NULL)->why = why;
                return 0;
        }
        r = read_raw(path, &old);
        if (s->mech == MECH_SYSCTL && (r == -ENOENT || (r == 0 && stat(path, &st) == 0 &&
                                                         !(st.st_mode & 0222)))) {
                /* the running kernel lacks it, or has it read-only (nmi_watchdog
                 * without a hard-lockup detector): systemd-sysctl gets nowhere either */
                n->later++;
                entry_add(res, r == -ENOENT ? APPLY_SYSCTL_ABSENT : APPLY_SYSCTL_READONLY, s, path);
                return 0;
        }
        if (r == -ENOENT && s->mech != MECH_UDEV) {
                n->later++;
                entry_add(res, APPLY_MODULE_LATER, s, path);
                return 0;
        }
        if (r == 0 && s->mech != MECH_UDEV && stat(path, &st) == 0 && !(st.st_mode & 0222)) {
                n->later++;
                entry_add(res, APPLY_PARAM_READONLY, s, path);
                return 0;
        }
        if (r == -ENOENT) {
                /* the generated rule's TEST== guard skips it the same way */
                n->later++;
                entry_add(res, APPLY_ABSENT, s, path);
                return 0;
        }
        if (r < 0) {
                entry_add(res, APPLY_READ_FAILED, s, path)->err = r;
                n->failed++;
                if (!o->keep_going) {
                        xerror_set(ret_error, r, _("%s on %s: cannot read %s: %s"), s->knob, setting_where(s),
                                   path, strerror(-r));
                        return -EIO;
                }
                return 0;
        }
        norm = value_normalize(old);
        if (streq(norm, s->value)) {
                n->same++;
                return 0;
        }
        if (!journal_value_ok(path, old, true) || !journal_value_ok(path, s->value, false)) {
                /* rollback would refuse the journal line: not written */
                n->later++;
                entry_add(res, APPLY_LATER, s, NULL)->why =
                        _("its value now is none that rollback could put back: left as it is");
                return 0;
        }
        if (o->battery_seen && s->value_battery && !journal_names(j, path) && !line_in(o->battery_seen, path)) {
                bat = value_normalize(s->value_battery);
                by_rules = streq(norm, bat) && journal_value_ok(path, s->value_battery, false);
        }
        entry_add(res, APPLY_WOULD_SET, s, path)->old = TAKE_PTR(norm);
        if (o->dry_run) {
                n->would++;
                return 0;
        }
        *ch = xrealloc(*ch, (*n_ch + 1) * sizeof(**ch));
        (*ch)[(*n_ch)++] = (struct change) { .path = xstrdup(path), .old = TAKE_PTR(old), .s = s,
                                       .entry = res->n - 1, .by_rules = by_rules };
        return 0;
}

/* the writes of CH, in order: 0; or -EIO with *ret_error set at the first
 * one the kernel refuses, without --keep-going */
static int write_changes(struct change *ch, size_t n_ch, const struct apply_options *o, struct apply_result *res,
                         struct apply_counts *n, struct xerror *ret_error)
{
        int r;

        for (size_t k = 0; k < n_ch; k++) {
                struct change *c = &ch[k];
                struct apply_entry *e = &res->v[c->entry];

                /* the write the journal announces: a signal waits for it */
                signals_defer();
                r = write_attr(c->path, c->s->value);
                signals_undefer();
                if (r < 0) {
                        free(e->old);
                        e->old = NULL;
                        e->state = APPLY_REFUSED;
                        e->err = r;
                        n->failed++;
                        if (!o->keep_going) {
                                xerror_set(ret_error, r, _("%s on %s: the kernel refused %s for %s: %s"), c->s->knob,
                                           setting_where(c->s), c->s->value, c->path, strerror(-r));
                                /* what came after it was never reached */
                                entries_truncate(res, c->entry + 1);
                                return -EIO;    /* a runtime failure, not bad input */
                        }
                        continue;
                }
                e->state = APPLY_SET;
                c->written = true;
                n->done++;
        }
        return 0;
}

int apply_run(const struct rootfs *root, const struct plan *p, const struct apply_options *o,
              struct apply_result *res, struct xerror *ret_error)
{
        _cleanup_(journal_freep) struct journal *j = NULL;
        _cleanup_(rootfs_close) struct rootfs live = { .fd = -1 };
        const struct rootfs *rfs = root;
        bool same;
        struct change *ch = NULL;
        char **paths = NULL;
        const char **whys = NULL;
        bool covered;
        struct apply_counts n = {};
        size_t n_ch = 0;
        int r;

        /* the live values are the running system's: so is their journal, whatever --root says */
        r = state_live_root(root, &live, &same);
        if (r < 0)
                return xerror_set(ret_error, r, _("cannot open the running system's root: %s"), strerror(-r));
        if (!same)
                rfs = &live;
        if (!o->dry_run) {
                /* a killed apply's temporary file beside the journal goes now */
                r = journal_remove_temps(rfs, ret_error);
                if (r < 0)
                        return r;
        }
        r = journal_load(rfs, &j, ret_error);
        if (r < 0 && r != -ENOENT)
                return r;

        /* each setting's live file, once */
        paths = xcalloc(p->n + 1, sizeof(*paths));
        whys = xcalloc(p->n + 1, sizeof(*whys));
        for (size_t i = 0; i < p->n; i++)
                if (p->v[i].value)
                        paths[i] = setting_live_path(&p->v[i], &whys[i]);
        /* every old value is read first: they all go into the journal before the first write */
        for (size_t i = 0; i < p->n; i++) {
                const struct setting *s = &p->v[i];
                const char *path = paths[i];

                if (!s->value)
                        continue;
                if (path) {
                        /* two settings of one file (a parameter both in tmpfiles.d and on
                         * the command line): the first one decides */
                        bool dup = false;
                        for (size_t k = 0; k < i && !dup; k++)
                                dup = paths[k] && streq(paths[k], path);
                        if (dup)
                                continue;
                }
                r = read_old(s, path, whys[i], o, j, res, &n, &ch, &n_ch, ret_error);
                if (r < 0) {
                        /* nothing was written: the writes planned so far go from the list */
                        entries_drop_planned(res, ch, n_ch);
                        goto fail;
                }
        }
        covered = n_ch > 0;
        for (size_t k = 0; k < n_ch && covered; k++)
                covered = journal_covers(j, ch[k].path, ch[k].old, ch[k].s->value);
        /* a switch back to values the journal has: rollback restores them from either value as it is */
        if (n_ch > 0 && !covered) {
                r = journal_write_ahead(rfs, j, p, ch, n_ch, ret_error);
                if (r < 0) {
                        entries_drop_planned(res, ch, n_ch);
                        goto fail;
                }
        }
        r = write_changes(ch, n_ch, o, res, &n, ret_error);
        if (r < 0)
                goto fail;
        res->finished = true;
        res->n_changed = n.done;
        res->n_would = n.would;
        res->n_same = n.same;
        res->n_later = n.later;
        res->n_failed = n.failed;
        if (n.failed > 0)
                r = xerror_set(ret_error, -EIO, _("%zu settings were refused (--keep-going: the rest is applied; "
                                                  "\"idlecfg rollback\" undoes it)"), n.failed);
        else
                r = n.done + n.would > 0;
        goto out;

fail:
        if (n.done > 0)
                entry_add(res, APPLY_UNDOING, NULL, NULL)->n_undo = n.done;
        if (undo(ch, n_ch, res) > 0)
                xerror_set(ret_error, -EIO, _("apply failed and could not undo everything"));
        r = r < 0 ? r : -EIO;
out:
        for (size_t k = 0; k < n_ch; k++) {
                free(ch[k].path);
                free(ch[k].old);
        }
        free(ch);
        for (size_t i = 0; paths && i < p->n; i++)
                free(paths[i]);
        free(paths);
        free(whys);
        return r;
}

/* is NCUR (normalized) the old value of the first entry of entry I's path,
 * the value from before idlecfg? */
static bool first_old_is(const struct journal *j, size_t i, const char *ncur)
{
        for (size_t k = 0; k < i; k++)
                if (streq(j->v[k].path, j->v[i].path)) {
                        _cleanup_free_ char *first = value_normalize(j->v[k].old);
                        return streq(first, ncur);
                }
        return false;
}

int apply_rollback(const struct rootfs *rfs, bool force, struct rollback_result *res, struct xerror *ret_error)
{
        _cleanup_(journal_freep) struct journal *j = NULL;
        _cleanup_free_ char *shown = rootfs_display(rfs, JOURNAL_PATH);
        size_t left = 0, restored = 0;
        struct stat st;
        bool same;
        int r;

        {
                _cleanup_(rootfs_close) struct rootfs live = { .fd = -1 };
                r = state_live_root(rfs, &live, &same);
                if (r < 0)
                        return xerror_set(ret_error, r, _("cannot open the running system's root: %s"), strerror(-r));
        }
        if (!same) {
                /* a journal in another root (an image, a foreign disk) names
                 * values of whatever system wrote it: never written here */
                if (rootfs_lstat(rfs, JOURNAL_PATH, &st) == -ENOENT)
                        return 1;
                return xerror_set(ret_error, -EBUSY, _("%s left alone: rollback --root rolls back the files installed "
                                                      "there and never writes a live value; the values it names "
                                                      "are rolled back by \"idlecfg rollback apply\" on the system "
                                                      "that applied them"), shown);
        }
        r = journal_load(rfs, &j, ret_error);
        if (r == -ENOENT) {
                r = journal_remove_temps(rfs, ret_error);
                return r < 0 ? r : 1;
        }
        if (r == -EINVAL) {
                _cleanup_free_ char *why = xstrdup(strempty(ret_error->message));
                xerror_done(ret_error);
                return xerror_set(ret_error, -EINVAL, _("%s; idlecfg does not trust %s and leaves every live value "
                                                      "as it is"), why, shown);
        }
        if (r < 0)
                return r;
        for (size_t i = j->n; i-- > 0;) {
                const struct journal_entry *e = &j->v[i];
                _cleanup_free_ char *cur = NULL, *ncur = NULL, *nold = value_normalize(e->old);
                _cleanup_free_ char *nnew = value_normalize(e->new), *back = NULL;
                struct rollback_entry *x;

                r = read_raw(e->path, &cur);
                if (r < 0) {
                        rollback_add(res, RB_UNREADABLE, e->path)->err = r;
                        left++;
                        continue;
                }
                ncur = value_normalize(cur);
                back = restore_value(e->old);
                if (streq(ncur, nold)) {
                        if (streq(cur, e->old) || streq(cur, back))
                                continue;       /* as before: the write never happened, or was undone */
                        /* the value before in another form: idlecfg wrote it (a switch back to
                         * it); a recorded tree keeps the bytes written, the kernel prints its own */
                } else if (first_old_is(j, i, ncur)) {
                        /* already the value from before idlecfg, the path's first old
                         * value (a rollback killed after restoring it): restored, and
                         * nobody changed it */
                        continue;
                } else if (!streq(ncur, nnew) && !force) {
                        x = rollback_add(res, RB_VALUE_CHANGED, e->path);
                        x->cur = TAKE_PTR(ncur);
                        x->set = TAKE_PTR(nnew);
                        x->old = TAKE_PTR(nold);
                        left++;
                        continue;
                }
                r = write_attr(e->path, back);
                if (r < 0) {
                        x = rollback_add(res, RB_WRITE_FAILED, e->path);
                        x->old = TAKE_PTR(nold);
                        x->err = r;
                        left++;
                        continue;
                }
                x = rollback_add(res, RB_VALUE_RESTORED, e->path);
                x->cur = TAKE_PTR(ncur);
                x->old = TAKE_PTR(nold);
                restored++;
        }
        res->restored = restored;
        if (left > 0)
                return xerror_set(ret_error, -EBUSY, P_("%zu value was left as it is; %s keeps it for a later rollback",
                                                          "%zu values were left as they are; %s keeps them for a later rollback",
                                                          left), left, shown);
        r = journal_remove(rfs, ret_error);
        if (r < 0)
                return r;
        res->done = true;
        return 0;
}
