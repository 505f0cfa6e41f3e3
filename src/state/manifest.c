/* manifest.c: the manifest of install, a small line-based text file
 *
 *   idlecfg-manifest 2                     (1: an earlier idlecfg's, without "end")
 *   version 0.2
 *   profile balanced
 *   fingerprint 16de5ac23f7e2453
 *   kernel 6.1.0-18-amd64                  ("\-" when unknown)
 *   cmdline /etc/kernel/cmdline            (where the command line went)
 *   dropped-words WORD\x20WORD...         (an earlier profile's words still in boot entries)
 *   input NAME DIGEST                      (what refresh compares)
 *   dir /etc/udev/rules.d                  (created by install, in order)
 *   file PATH SHA256 MODE new
 *   file PATH SHA256 120777 new            (a symbolic link: SHA256 of its target)
 *   file PATH SHA256 MODE replaced PREV-SHA256 PREV-MODE UID GID
 *   pending PATH SHA256|-                  (intent: PATH is being rewritten)
 *   end LINES SHA256                       (the lines before it, their digest)
 *
 * Fields are escaped with field_escape(); '#' lines and empty lines are
 * ignored; the header, the end record and the fields are read by records.c,
 * the journal's parser too. Every field is checked: rollback acts on what it
 * reads here.
 *
 * "pending" follows the file line of PATH while install writes it: the file
 * line has the new checksum, and until the run ends the file may still hold
 * the content before ("-": as it was before idlecfg). state_recover() settles
 * it at the next run. "end" proves the file whole: format 1 (written before it
 * existed) is read without it and rewritten as format 2 by the next save. */
#include "config.h"

#include <limits.h>
#include <sys/stat.h>

#include "state/manifest.h"
#include "state/records.h"
#include "base/sha256.h"
#include "root/targets.h"

static const char *const target_paths[] = { TARGET_PATHS };
static const char *const cmdline_paths[] = { CMDLINE_TARGET_PATHS };

static bool in_list(const char *path, const char *const *v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (streq(path, v[i]))
                        return true;
        return false;
}

bool manifest_path_allowed(const char *path)
{
        size_t n = strlen(path), ns = strlen(NEW_SUFFIX);

        if (in_list(path, target_paths, ELEMENTSOF(target_paths)))
                return true;
        if (n > ns && streq(path + n - ns, NEW_SUFFIX)) {
                _cleanup_free_ char *base = xstrndup(path, n - ns);
                return in_list(base, target_paths, ELEMENTSOF(target_paths));
        }
        return false;
}

bool manifest_path_is_link(const char *path)
{
        return streq(path, FIRSTBOOT_WANTS_PATH);
}

/* a directory install may create: a parent of a target or of the backup store */
static bool dir_allowed(const char *dir)
{
        size_t n = strlen(dir);

        if (strncmp(BACKUP_DIR, dir, n) == 0 && (BACKUP_DIR[n] == '/' || BACKUP_DIR[n] == '\0'))
                return true;
        for (size_t i = 0; i < ELEMENTSOF(target_paths); i++)
                if (strncmp(target_paths[i], dir, n) == 0 && target_paths[i][n] == '/')
                        return true;
        return false;
}

bool path_is_clean(const char *path)
{
        const char *p;

        if (!path || path[0] != '/' || strlen(path) > PATH_MAX || streq(path, "/"))
                return false;
        for (p = path; *p; p++)
                if ((unsigned char) *p <= ' ' || (unsigned char) *p > '~' || *p == '\\')
                        return false;
        for (p = path; *p;) {
                size_t n;
                p++;    /* the slash */
                n = strcspn(p, "/");
                if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return false;
                p += n;
        }
        return true;
}

bool sha_is_valid(const char *s)
{
        size_t i;

        for (i = 0; s[i]; i++)
                if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                        return false;
        return i == 64;
}

static bool parse_mode(const char *s, mode_t *ret)
{
        char *end;
        unsigned long v;

        /* a symbolic link install made (targets.h: the link that enables a unit) */
        if (streq(s, "120777")) {
                *ret = S_IFLNK | 0777;
                return true;
        }
        if (!*s || strspn(s, "01234567") != strlen(s) || strlen(s) > 5)
                return false;
        v = strtoul(s, &end, 8);
        if (*end || v > 07777)
                return false;
        *ret = (mode_t) v;
        return true;
}

struct manifest_file *manifest_find(const struct manifest *m, const char *path)
{
        for (size_t i = 0; i < m->n_files; i++)
                if (streq(m->files[i].path, path))
                        return &m->files[i];
        return NULL;
}

struct manifest_file *manifest_add_file(struct manifest *m, const char *path)
{
        struct manifest_file *f = manifest_find(m, path);

        if (f)
                return f;
        m->files = xrealloc(m->files, (m->n_files + 1) * sizeof(*m->files));
        f = &m->files[m->n_files++];
        *f = (struct manifest_file) { .path = xstrdup(path) };
        return f;
}

void manifest_remove_file(struct manifest *m, const char *path)
{
        struct manifest_file *f = manifest_find(m, path);
        size_t i;

        if (!f)
                return;
        i = (size_t) (f - m->files);
        free(f->path);
        memmove(f, f + 1, (m->n_files - i - 1) * sizeof(*f));
        m->n_files--;
}

bool manifest_pending(const struct manifest *m)
{
        for (size_t i = 0; i < m->n_files; i++)
                if (m->files[i].pending)
                        return true;
        return false;
}

bool manifest_has_dir(const struct manifest *m, const char *path)
{
        for (size_t i = 0; i < m->n_dirs; i++)
                if (streq(m->dirs[i], path))
                        return true;
        return false;
}

void manifest_add_dir(struct manifest *m, const char *path)
{
        if (manifest_has_dir(m, path))
                return;
        m->dirs = xrealloc(m->dirs, (m->n_dirs + 1) * sizeof(char *));
        m->dirs[m->n_dirs++] = xstrdup(path);
}

void manifest_free(struct manifest *m)
{
        if (!m)
                return;
        free(m->version);
        free(m->profile);
        free(m->fingerprint);
        free(m->kernel);
        free(m->cmdline_target);
        free(m->dropped_words);
        kv_free(&m->inputs);
        for (size_t i = 0; i < m->n_dirs; i++)
                free(m->dirs[i]);
        free(m->dirs);
        for (size_t i = 0; i < m->n_files; i++)
                free(m->files[i].path);
        free(m->files);
        free(m);
}

#define MAX_FIELDS 10

/* a manifest's "pending" line, its fields V (unescaped) and F (as written), N of them */
static int parse_pending_line(struct manifest *m, const char *name, unsigned lineno, char **v, char **f, size_t n,
                              struct xerror *ret_error)
{
#define PBAD(...) return xerror_set(ret_error, -EINVAL, __VA_ARGS__)
        struct manifest_file *mf = n == 3 ? manifest_find(m, v[1]) : NULL;

        if (n != 3 || (!streq(v[2], "-") && !sha_is_valid(v[2])))
                PBAD(_("%s:%u: expected \"pending PATH SHA256\" or \"pending PATH -\""), name,
                     lineno);
        if (!mf || mf->pending)
                PBAD(_("%s:%u: \"pending\" for %s without its file line, or twice"), name, lineno,
                     f[1]);
        mf->pending = true;
        mf->pending_was_ours = !streq(v[2], "-");
        if (mf->pending_was_ours)
                memcpy(mf->pending_sha, v[2], 65);
        return 0;
#undef PBAD
}

/* a manifest's "file" line, its fields V (unescaped) and F (as written), N of them */
static int parse_file_line(struct manifest *m, const char *name, unsigned lineno, char **v, char **f, size_t n,
                           struct xerror *ret_error)
{
#define FBAD(...) return xerror_set(ret_error, -EINVAL, __VA_ARGS__)
        struct manifest_file *mf;
        bool replaced = n >= 5 && streq(v[4], "replaced");

        if (!(n == 5 && streq(v[4], "new")) && !(n == 9 && replaced))
                FBAD(_("%s:%u: expected \"file PATH SHA256 MODE new\" or "
                       "\"file PATH SHA256 MODE replaced SHA256 MODE UID GID\""), name, lineno);
        if (!path_is_clean(v[1]))
                FBAD(_("%s:%u: not a clean absolute path: %s"), name, lineno, f[1]);
        if (startswith(v[1], STATE_DIR "/") || manifest_find(m, v[1]))
                FBAD(_("%s:%u: file %s listed twice or inside idlecfg's own state"), name,
                     lineno, v[1]);
        if (!manifest_path_allowed(v[1]))
                FBAD(_("%s:%u: %s is not a file idlecfg writes"), name, lineno, f[1]);
        mf = manifest_add_file(m, v[1]);
        if (!sha_is_valid(v[2]) || !parse_mode(v[3], &mf->mode)) {
                manifest_remove_file(m, v[1]);
                FBAD(_("%s:%u: bad checksum or mode"), name, lineno);
        }
        memcpy(mf->sha, v[2], 65);
        /* install makes a link only where nothing was, and only the links of targets.h */
        if (S_ISLNK(mf->mode) != manifest_path_is_link(v[1]) || (S_ISLNK(mf->mode) && replaced)) {
                manifest_remove_file(m, v[1]);
                FBAD(_("%s:%u: %s: a symbolic link of idlecfg is \"file PATH SHA256 120777 new\", "
                       "and only %s is one"), name, lineno, f[1], FIRSTBOOT_WANTS_PATH);
        }
        if (replaced) {
                unsigned uid, gid;
                if (!sha_is_valid(v[5]) || !parse_mode(v[6], &mf->prev_mode) || S_ISLNK(mf->prev_mode) ||
                    !records_parse_u32(v[7], &uid) || !records_parse_u32(v[8], &gid)) {
                        manifest_remove_file(m, v[1]);
                        FBAD(_("%s:%u: bad checksum, mode or owner of the replaced file"),
                             name, lineno);
                }
                mf->prev_exists = true;
                memcpy(mf->prev_sha, v[5], 65);
                mf->prev_uid = uid;
                mf->prev_gid = gid;
        }
        return 0;
#undef FBAD
}

/* one line of a manifest after its header (records_parse()) */
static int manifest_line(void *userdata, const struct record *l, struct xerror *ret_error)
{
        struct manifest *m = userdata;
        const char *name = l->name;
        unsigned lineno = l->lineno;
        char **v = l->v, **f = l->f;
        size_t n = l->n;

#define LBAD(...) return xerror_set(ret_error, -EINVAL, __VA_ARGS__)
        if (streq(v[0], "pending") && l->format >= 2)
                return parse_pending_line(m, name, lineno, v, f, n, ret_error);
        if (streq(v[0], "version") || streq(v[0], "profile") || streq(v[0], "fingerprint") || streq(v[0], "kernel") ||
            streq(v[0], "cmdline")) {
                char **slot = streq(v[0], "version") ? &m->version :
                              streq(v[0], "profile") ? &m->profile :
                              streq(v[0], "fingerprint") ? &m->fingerprint :
                              streq(v[0], "kernel") ? &m->kernel : &m->cmdline_target;
                if (n != 2)
                        LBAD(_("%s:%u: \"%s\" takes one value"), name, lineno, v[0]);
                if (*slot)
                        LBAD(_("%s:%u: \"%s\" given twice"), name, lineno, v[0]);
                if (slot == &m->cmdline_target && !in_list(v[1], cmdline_paths, ELEMENTSOF(cmdline_paths)))
                        LBAD(_("%s:%u: not a file idlecfg writes the command line to: %s"), name, lineno, f[1]);
                *slot = TAKE_PTR(v[1]);
        } else if (streq(v[0], "dropped-words")) {
                if (n != 2 || !*v[1] || strlen(v[1]) > KERNEL_CMDLINE_MAX)
                        LBAD(_("%s:%u: \"%s\" takes one value"), name, lineno, v[0]);
                if (m->dropped_words)
                        LBAD(_("%s:%u: \"%s\" given twice"), name, lineno, v[0]);
                for (const char *c = v[1]; *c; c++)
                        if ((*c <= ' ' && *c != ' ') || *c >= 0x7f || *c == '"' || *c == '\'' || *c == '\\')
                                LBAD(_("%s:%u: not kernel parameters: %s"), name, lineno, f[1]);
                m->dropped_words = TAKE_PTR(v[1]);
        } else if (streq(v[0], "input")) {
                if (n != 3 || !*v[1])
                        LBAD(_("%s:%u: \"input\" takes a name and a digest"), name, lineno);
                if (kv_find(&m->inputs, v[1]))
                        LBAD(_("%s:%u: input %s given twice"), name, lineno, f[1]);
                kv_add(&m->inputs, v[1], v[2]);
        } else if (streq(v[0], "dir")) {
                if (n != 2 || !path_is_clean(v[1]))
                        LBAD(_("%s:%u: \"dir\" takes one clean absolute path"), name, lineno);
                if (!dir_allowed(v[1]))
                        LBAD(_("%s:%u: %s is not a directory of a file idlecfg writes"), name, lineno, f[1]);
                if (manifest_has_dir(m, v[1]))
                        LBAD(_("%s:%u: directory %s given twice"), name, lineno, v[1]);
                manifest_add_dir(m, v[1]);
        } else if (streq(v[0], "file"))
                return parse_file_line(m, name, lineno, v, f, n, ret_error);
        else
                LBAD(_("%s:%u: unknown line \"%s\""), name, lineno, f[0]);
        return 0;
#undef LBAD
}

static const struct records_format manifest_records = {
        .magic = "idlecfg-manifest",
        .max_fields = MAX_FIELDS,
        .not_ours = N_("%s:%u: not an idlecfg manifest (no \"idlecfg-manifest 2\" line)"),
        .unknown_format = N_("%s:%u: manifest format %s is not known to this version of idlecfg"),
        .empty = N_("%s: empty, not an idlecfg manifest"),
        .no_end = N_("%s: no end record: the file was cut short (lines are missing)"),
};

int manifest_parse(const char *name, const char *buf, size_t len, struct manifest **ret, struct xerror *ret_error)
{
        struct manifest *m = xcalloc(1, sizeof(*m));
        unsigned format;
        bool cut;
        int r;

        r = records_parse(&manifest_records, name, buf, len, manifest_line, m, &format, &cut, ret_error);
        if (r >= 0 && (!m->version || !m->profile || !m->fingerprint))
                r = xerror_set(ret_error, -EINVAL, _("%s: incomplete: version, profile or fingerprint missing"), name);
        if (r < 0) {
                manifest_free(m);
                return r;
        }
        m->format = format;
        *ret = m;
        return 0;
}

static void put(struct strbuf *sb, const char *key, const char *value)
{
        _cleanup_free_ char *e = field_escape(value);
        sb_appendf(sb, "%s %s\n", key, e);
}

char *manifest_format(const struct manifest *m)
{
        struct strbuf sb = {};

        char sha[65];
        unsigned lines = 0;

        sb_append(&sb, "idlecfg-manifest 2\n"
                       "# Written by idlecfg install: what it wrote and what it replaced, for\n"
                       "# \"idlecfg rollback\" and \"idlecfg refresh\". Do not edit.\n");
        put(&sb, "version", strempty(m->version));
        put(&sb, "profile", strempty(m->profile));
        put(&sb, "fingerprint", strempty(m->fingerprint));
        if (m->kernel)
                put(&sb, "kernel", m->kernel);
        if (m->cmdline_target)
                put(&sb, "cmdline", m->cmdline_target);
        if (m->dropped_words)
                put(&sb, "dropped-words", m->dropped_words);
        for (size_t i = 0; i < m->inputs.n; i++) {
                _cleanup_free_ char *k = field_escape(m->inputs.v[i].key), *v = field_escape(strempty(m->inputs.v[i].value));
                sb_appendf(&sb, "input %s %s\n", k, v);
        }
        for (size_t i = 0; i < m->n_dirs; i++)
                put(&sb, "dir", m->dirs[i]);
        for (size_t i = 0; i < m->n_files; i++) {
                const struct manifest_file *f = &m->files[i];
                _cleanup_free_ char *p = field_escape(f->path);
                sb_appendf(&sb, "file %s %s %04o", p, f->sha, (unsigned) f->mode);
                if (f->prev_exists)
                        sb_appendf(&sb, " replaced %s %04o %u %u\n", f->prev_sha, (unsigned) f->prev_mode,
                                   (unsigned) f->prev_uid, (unsigned) f->prev_gid);
                else
                        sb_append(&sb, " new\n");
                if (f->pending)
                        sb_appendf(&sb, "pending %s %s\n", p, f->pending_was_ours ? f->pending_sha : "-");
        }
        for (size_t i = 0; i < sb.len; i++)
                lines += sb.s[i] == '\n';
        sha256_hex(sb.s, sb.len, 32, sha);
        sb_appendf(&sb, "end %u %s\n", lines, sha);
        return sb_steal(&sb);
}
