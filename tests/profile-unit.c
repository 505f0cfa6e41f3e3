/* tests/profile-unit.c: TAP tests of profiles: format checks, schema, inherit, selection */
#include "config.h"

#include "tap.h"

#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "db/profile-search.h"
#include "db/profile-select.h"
#include "db/profile.h"
#include "knobs/knob.h"
#include "knobs/registry.h"
#include "base/util.h"

static const char *top;
static char *bad, *good, *shipped, *roots, *none;       /* none: a root with nothing in it */


static void skip(const char *why, const char *desc)
{
        printf("ok %d - %s # SKIP %s\n", ++n, desc, why);
}

static bool streq_diag(const char *got, const char *want)
{
        if (streq_ptr(got, want))
                return true;
        printf("# got:  %s\n# want: %s\n", got ? got : "(null)", want ? want : "(null)");
        return false;
}

/* load NAME and compare the formatted error; want_r 0 means "loads" */
static void check_load(const char *root, const char *dir, const char *name, int want_r, const char *want,
                       const char *desc)
{
        struct xerror e = {};
        struct profile *p = NULL;
        _cleanup_free_ char *got = NULL;
        int r = profile_load(root, knob_profile_schema(), dir, name, &p, &e);

        if (r < 0)
                got = xerror_format(&e);
        ok(r == want_r && (r < 0 ? !p : !!p) && streq_diag(got, want), "%s (r=%d)", desc, r);
        profile_free(p);
        xerror_done(&e);
}

/* "DIR/NAME.profile:LINE: MSG" for a file of the bad directory */
static void check_bad(const char *name, unsigned line, const char *msg)
{
        _cleanup_free_ char *want = line ? xasprintf("%s/%s.profile:%u: %s", bad, name, line, msg)
                                         : xasprintf("%s/%s.profile: %s", bad, name, msg);
        _cleanup_free_ char *desc = xasprintf("bad/%s.profile: %s", name, msg);

        check_load(none, bad, name, -EINVAL, want, desc);
}

/* "valid: profile, pci, ...": [profile], then the section of every family of
 * the registry in its order (a new family adds itself) */
static char *valid_sections(void)
{
        size_t n_fam;
        const struct knob_family *const *fam = knob_registry(&n_fam);
        struct strbuf sb = {};

        sb_append(&sb, "valid: profile");
        for (size_t i = 0; i < n_fam; i++)
                if (fam[i]->section)
                        sb_appendf(&sb, ", %s", fam[i]->section);
        return sb_steal(&sb);
}

static char *searched(const char *root, const char *dir)
{
        return xasprintf("%s/etc/idlecfg/profiles, %s, %s/usr/share/idlecfg/profiles", root, dir, root);
}

/* line number of the first line of PATH that starts with TEXT, 0 if none */
static unsigned line_of(const char *path, const char *text)
{
        _cleanup_free_ char *buf = NULL;
        size_t len;
        unsigned line = 1;

        if (read_file_full(path, 1 << 20, &buf, &len) < 0)
                return 0;
        for (char *p = buf; *p; line++) {
                char *nl = strchr(p, '\n');
                if (startswith(p, text))
                        return line;
                if (!nl)
                        break;
                p = nl + 1;
        }
        return 0;
}

static bool setting_is(const struct profile *p, const char *section, const char *key, const char *value,
                       const char *file, unsigned line)
{
        const struct profile_setting *s = p ? profile_get(p, section, key) : NULL;

        if (!s) {
                printf("# [%s] %s not set\n", section, key);
                return false;
        }
        if (!streq(s->value, value) || !streq(s->file, file) || s->line != line) {
                printf("# [%s] %s = %s (%s:%u), want %s (%s:%u)\n", section, key, s->value, s->file, s->line,
                       value, file, line);
                return false;
        }
        return true;
}

static struct profile *load_ok(const char *root, const char *dir, const char *name)
{
        struct xerror e = {};
        struct profile *p = NULL;

        if (profile_load(root, knob_profile_schema(), dir, name, &p, &e) < 0) {
                _cleanup_free_ char *m = xerror_format(&e);
                printf("# loading %s: %s\n", name, m);
        }
        xerror_done(&e);
        return p;
}

/* ---- format: everything inih would accept silently ---- */

static void test_format(void)
{
        check_bad("empty", 0, "file is empty");
        check_bad("comments-only", 0, "no settings: only comments, blank lines or empty sections");
        check_bad("bom", 1, "byte order mark (BOM) at the start of the file; save it as UTF-8 without a BOM");
        check_bad("crlf", 1, "carriage return at the end of the line (CRLF line endings); convert the file to LF line endings");
        check_bad("cr-inside", 2, "carriage return inside the line");
        check_bad("nul", 2, "NUL byte in the line");
        check_bad("control", 2, "control character 0x1b in the line");
        check_bad("long-line", 3, "line too long (230 bytes, limit 198)");
        check_bad("long-199", 2, "line too long (199 bytes, limit 198)");
        check_bad("long-section", 1, "section name too long (50 characters, limit 49)");
        {
                _cleanup_free_ char *valid = valid_sections();
                _cleanup_free_ char *m49 = xasprintf("unknown section [%s]; %s",
                                                     "sssssssssssssssssssssssssssssssssssssssssssssssss", valid);
                _cleanup_free_ char *musbb = xasprintf("unknown section [usbb]; %s", valid);
                check_bad("section-49", 1, m49);
                check_bad("unknown-section", 4, musbb);
        }
        check_bad("long-key", 2, "key name too long (50 characters, limit 49)");
        check_bad("inline-semicolon", 3,
                  "';' inside a line: inline comments are not supported; put the comment on a line of its own");
        check_bad("inline-hash", 3,
                  "'#' inside a line: inline comments are not supported; put the comment on a line of its own");
        check_bad("inline-nospace", 3,
                  "';' inside a line: inline comments are not supported; put the comment on a line of its own");
        check_bad("section-junk", 2, "unexpected text after ']'");
        check_bad("section-comment", 1,
                  "';' inside a line: inline comments are not supported; put the comment on a line of its own");
        check_bad("section-unterminated", 1, "missing ']' in section header");
        check_bad("key-before-section", 3, "key 'autosuspend' before the first [section]");
        check_bad("continuation", 3,
                  "indented line: continuation lines are not supported; start sections and keys at the beginning of the line");
        check_bad("indented-key", 2,
                  "indented line: continuation lines are not supported; start sections and keys at the beginning of the line");
        check_bad("colon", 2, "':' between key and value; use '='");
        check_bad("no-equals", 2, "expected 'key = value', '[section]' or a comment");
        check_bad("empty-key", 2, "missing key name before '='");

        /* the boundary: 198 bytes and its newline reach inih in one piece */
        {
                struct profile *p = load_ok(none, good, "long-198");
                const struct profile_setting *s = p ? profile_get(p, "usb", "autosuspend") : NULL;
                ok(p && p->description && strlen(p->description) == 198 - strlen("description = ") &&
                   s && s->line == 5, "good/long-198.profile: a 198-byte line loads whole, lines after it count right");
                profile_free(p);
        }
        /* comments of both kinds, indented comments, no blanks around '=',
         * tabs, trailing blanks, a repeated and an empty section, no final newline */
        {
                _cleanup_free_ char *f = xasprintf("%s/format.profile", good);
                struct profile *p = load_ok(none, good, "format");
                ok(p && setting_is(p, "usb", "autosuspend", "allowlist", f, 5) &&
                   setting_is(p, "usb", "delay_ms", "600000", f, 6) && profile_get(p, "usb", "delay_ms")->number == 600000 &&
                   setting_is(p, "audio", "power_save", "0", f, 9) && !profile_get(p, "audio", "power_save")->keep &&
                   setting_is(p, "suspend", "mem_sleep", "deep", f, 12) &&
                   setting_is(p, "suspend", "hibernate", "yes", f, 13),
                   "good/format.profile: accepted layout variations, values and lines as written");
                profile_free(p);
        }
}

/* ---- schema: sections, keys, values ---- */

static void test_schema(void)
{
        size_t nk, n_fam, n_declared = 0;
        const struct profile_key *k = knob_profile_keys(&nk);
        const struct knob_family *const *fam = knob_registry(&n_fam);
        bool all_have_keep = true;

        check_bad("unknown-key", 2, "unknown key 'autosuspnd' in [usb]; valid: autosuspend, delay_ms");
        check_bad("unknown-value", 8,
                  "unknown value 'medium' for [sata] alpm; valid: max_performance, medium_power, med_power_with_dipm, "
                  "min_power_with_partial, min_power, keep");
        /* the network families' keys (#11): their values only, with file:line */
        check_bad("wifi-value", 3, "unknown value '3' for [wifi] power_save; valid: on, off, keep");
        check_bad("wol-value", 3, "unknown value 'g' for [network] wake_on_lan; valid: off, keep");
        check_bad("empty-value", 2,
                  "missing value for [sata] alpm; valid: max_performance, medium_power, med_power_with_dipm, "
                  "min_power_with_partial, min_power, keep");
        /* [kernel]: the profile's words, not the sysctl's numbers; a writeback of 0 (never) is refused */
        check_bad("kernel-nmi-value", 3, "unknown value '0' for [kernel] nmi_watchdog; valid: off, keep");
        check_bad("kernel-writeback-range", 2,
                  "value 0 for [kernel] dirty_writeback_centisecs is out of range; valid: keep or an integer 100..6000");
        /* per power source (#23): only keys idlecfg writes at run time, both values, no keep */
        check_bad("source-runtime", 3,
                  "[wifi] power_save cannot take a value per power source: idlecfg cannot change it at run time (a "
                  "kernel command-line word, a read-only parameter, or a setting a service applies); give it one value");
        check_bad("source-keep", 2,
                  "keep cannot be the battery value of [audio] power_save: a switch needs a value to write on both "
                  "power sources");
        check_bad("source-one", 2, "[audio] power_save needs both values: \"ac:VALUE battery:VALUE\"");
        check_bad("source-twice", 2, "[sata] alpm names the ac value twice");
        check_bad("source-value", 2,
                  "unknown value 'min' for [sata] alpm; valid: max_performance, medium_power, med_power_with_dipm, "
                  "min_power_with_partial, min_power, keep (battery)");
        check_bad("source-word", 2,
                  "'dc:1' in [audio] power_save: a value per power source is written \"ac:VALUE battery:VALUE\"");
        {
                _cleanup_free_ char *source_dir = xasprintf("%s/tests/data/profiles/source", top);
                struct profile *g = load_ok(none, source_dir, "per-source");
                const struct profile_setting *s = g ? profile_get(g, "audio", "power_save") : NULL;
                const struct profile_setting *same = g ? profile_get(g, "sata", "alpm") : NULL;
                struct profile *b = g ? profile_for_source(g, true) : NULL;
                ok(s && streq(s->value, "0") && s->number == 0 && streq_ptr(s->battery, "5") &&
                   s->battery_number == 5 && same && !same->battery && streq(same->value, "min_power") &&
                   b && streq(profile_get(b, "audio", "power_save")->value, "5") &&
                   profile_get(b, "audio", "power_save")->number == 5 && !profile_has_per_source(b) &&
                   profile_has_per_source(g),
                   "source/per-source: battery first is fine; the same value twice is one value; the battery copy");
                profile_free(b);
                profile_free(g);
        }
        check_bad("int-text", 2, "invalid value '2s' for [usb] delay_ms; valid: keep or an integer 0..600000");
        check_bad("int-range", 2, "value 600001 for [usb] delay_ms is out of range; valid: keep or an integer 0..600000");
        check_bad("int-overflow", 2,
                  "value 99999999999999999999 for [usb] delay_ms is out of range; valid: keep or an integer 0..600000");
        check_bad("int-negative", 2, "invalid value '-1' for [audio] power_save; valid: keep or an integer 0..3600");
        check_bad("int-plus", 2, "invalid value '+5' for [audio] power_save; valid: keep or an integer 0..3600");
        check_bad("int-hex", 2, "invalid value '0x10' for [audio] power_save; valid: keep or an integer 0..3600");
        check_bad("duplicate", 8, "[sata] alpm set twice (first at line 2)");
        check_bad("duplicate-same-section", 4, "[usb] autosuspend set twice (first at line 2)");
        check_bad("inherit-badname", 2,
                  "invalid profile name '../balanced' for [profile] inherit; use letters, digits, '-' and '_' (at most 64)");
        check_bad("description-quote", 2, "'\"' in [profile] description: double quotes and backslashes are not allowed");
        check_bad("description-backslash", 2, "'\\' in [profile] description: double quotes and backslashes are not allowed");

        /* the error struct carries the place apart from the message */
        {
                struct xerror e = {};
                struct profile *p = NULL;
                _cleanup_free_ char *f = xasprintf("%s/unknown-value.profile", bad);
                int r = profile_load(none, knob_profile_schema(), bad, "unknown-value", &p, &e);
                ok(r == -EINVAL && !p && streq_ptr(e.file, f) && e.line == 8 && e.message &&
                   startswith(e.message, "unknown value 'medium'"),
                   "error struct: file, line and message apart");
                xerror_done(&e);
                ok(!e.file && !e.message && e.line == 0, "xerror_done clears");
        }

        /* every knob can be left alone, except yes/no ones whose "no" already is that */
        for (size_t i = 0; i < nk; i++) {
                bool has = k[i].type == PROFILE_INT_OR_KEEP;
                for (size_t j = 0; k[i].choices && k[i].choices[j]; j++)
                        has = has || streq(k[i].choices[j], "keep");
                if (!has && !(k[i].choices && streq(k[i].choices[0], "yes") && streq(k[i].choices[1], "no")))
                        all_have_keep = false, printf("# [%s] %s has no keep\n", k[i].section, k[i].key);
        }
        /* every key each family of the registry declares, none more */
        for (size_t i = 0; i < n_fam; i++)
                n_declared += fam[i]->n_keys;
        ok(nk > 0 && nk == n_declared && all_have_keep, "schema: %zu knob keys (the families declare %zu), each can be left alone",
           nk, n_declared);

        ok(profile_name_valid("balanced") && profile_name_valid("my-laptop_2") && !profile_name_valid("") &&
           !profile_name_valid("../x") && !profile_name_valid("a/b") && !profile_name_valid(".hidden") &&
           !profile_name_valid("-x") && !profile_name_valid("a.b") && !profile_name_valid(NULL),
           "profile names: letters, digits, '-', '_'; no path");
        {
                char name[PROFILE_NAME_MAX + 2];
                memset(name, 'a', sizeof(name));
                name[PROFILE_NAME_MAX] = '\0';
                ok(profile_name_valid(name), "a name of %d characters is valid", PROFILE_NAME_MAX);
                name[PROFILE_NAME_MAX] = 'a';
                name[PROFILE_NAME_MAX + 1] = '\0';
                ok(!profile_name_valid(name), "a name of %d characters is not", PROFILE_NAME_MAX + 1);
        }
}

/* ---- files that cannot be read ---- */

static void test_files(void)
{
        char tmpl[] = "/tmp/profile-unit.XXXXXX";
        char *tmp = mkdtemp(tmpl);
        _cleanup_free_ char *want = NULL, *s = NULL;

        {
                _cleanup_free_ char *w = xasprintf("%s/dir.profile: is a directory, not a file", bad);
                check_load(none, bad, "dir", -EISDIR, w, "bad/dir.profile: a directory is an error");
        }
        {
                _cleanup_free_ char *w = xasprintf("invalid profile name '../x'; use letters, digits, '-' and '_' (at most 64)");
                check_load(none, bad, "../x", -EINVAL, w, "a name with a path is refused before any open");
        }
        s = searched(none, good);
        want = xasprintf("profile 'nope' not found; searched: %s; available: base, child, format, grandchild, long-198", s);
        check_load(none, good, "nope", -ENOENT, want, "a missing profile names the directories and what is there");

        if (!tmp) {
                skip("no temporary directory", "a FIFO, an unreadable and a huge file");
                return;
        }
        {
                _cleanup_free_ char *f = xasprintf("%s/fifo.profile", tmp);
                _cleanup_free_ char *w = xasprintf("%s: not a regular file (a FIFO)", f);
                if (mkfifo(f, 0600) == 0)
                        check_load(none, tmp, "fifo", -EINVAL, w, "a FIFO is refused without blocking");
                else
                        skip("mkfifo failed", "a FIFO is refused without blocking");
                unlink(f);
        }
        {
                _cleanup_free_ char *f = xasprintf("%s/big.profile", tmp);
                _cleanup_free_ char *w = xasprintf("%s: larger than 64 KiB, idlecfg's limit for this file", f);
                FILE *fp = fopen(f, "we");
                for (int i = 0; fp && i < 7000; i++)
                        fputs("# padding\n", fp);
                if (fp)
                        fclose(fp);
                check_load(none, tmp, "big", -EFBIG, w, "a file over 64 KiB is refused");
                unlink(f);
        }
        if (geteuid() == 0)
                skip("running as root, which reads any file", "an unreadable profile is an error, not skipped");
        else {
                _cleanup_free_ char *f = xasprintf("%s/locked.profile", tmp);
                _cleanup_free_ char *w = xasprintf("%s: cannot open: %s", f, strerror(EACCES));
                FILE *fp = fopen(f, "we");
                if (fp) {
                        fputs("[usb]\nautosuspend = keep\n", fp);
                        fclose(fp);
                }
                chmod(f, 0);
                check_load(none, tmp, "locked", -EACCES, w, "an unreadable profile is an error, not skipped");
                unlink(f);
        }
        rmdir(tmp);
}

/* ---- inherit ---- */

static void test_inherit(void)
{
        _cleanup_free_ char *base = xasprintf("%s/base.profile", good);
        _cleanup_free_ char *child = xasprintf("%s/child.profile", good);
        _cleanup_free_ char *grand = xasprintf("%s/grandchild.profile", good);
        _cleanup_free_ char *pkg = xasprintf("%s/pkg", roots);
        struct profile *p;

        p = load_ok(none, good, "child");
        ok(p && p->n_chain == 2 && streq(p->chain[0].name, "child") && streq(p->chain[1].name, "base") &&
           streq(p->path, child) && streq(p->chain[1].path, base),
           "child inherits base: the chain, child first");
        ok(p && setting_is(p, "usb", "autosuspend", "off", child, 6) && streq(profile_get(p, "usb", "autosuspend")->from, "child"),
           "the child's value overrides, with the child's file:line");
        ok(p && setting_is(p, "usb", "delay_ms", "2000", base, 11) && profile_get(p, "usb", "delay_ms")->number == 2000 &&
           streq(profile_get(p, "usb", "delay_ms")->from, "base"),
           "what the child does not set comes from base, with base's file:line");
        ok(p && setting_is(p, "audio", "power_save", "1", child, 9) && setting_is(p, "suspend", "mem_sleep", "s2idle", base, 14),
           "keys only one of them sets");
        ok(p && streq_ptr(p->description, "Base profile") && !profile_get(p, "gpu", "i915_psr") &&
           !profile_get(p, "nosuch", "key"),
           "description is inherited; unset and unknown keys are NULL");
        profile_free(p);

        p = load_ok(none, good, "grandchild");
        ok(p && p->n_chain == 3 && setting_is(p, "sata", "alpm", "keep", grand, 5) && profile_get(p, "sata", "alpm")->keep &&
           setting_is(p, "usb", "autosuspend", "off", child, 6) && setting_is(p, "usb", "delay_ms", "2000", base, 11) &&
           streq_ptr(p->description, "Third level"),
           "three levels: each value from the nearest file that sets it");
        profile_free(p);

        {
                _cleanup_free_ char *f = xasprintf("%s/cycle-b.profile", bad);
                _cleanup_free_ char *w = xasprintf("%s:3: inherit cycle: cycle-a -> cycle-b -> cycle-a", f);
                check_load(none, bad, "cycle-a", -ELOOP, w, "a cycle is named where it closes");
        }
        {
                _cleanup_free_ char *f = xasprintf("%s/deep-8.profile", bad);
                _cleanup_free_ char *w = xasprintf("%s:2: inherit chain longer than 8 profiles: deep-1 -> deep-2 -> deep-3 -> "
                                                   "deep-4 -> deep-5 -> deep-6 -> deep-7 -> deep-8 -> deep-9", f);
                check_load(none, bad, "deep-1", -ELOOP, w, "a chain of 9 is too deep");
        }
        p = load_ok(none, bad, "deep-2");
        ok(p && p->n_chain == PROFILE_MAX_DEPTH && streq(p->chain[7].name, "deep-9"), "a chain of exactly 8 loads");
        profile_free(p);
        {
                _cleanup_free_ char *f = xasprintf("%s/inherit-missing.profile", bad);
                _cleanup_free_ char *s = searched(none, bad);
                _cleanup_free_ char *w = xasprintf("%s:2: inherited profile 'nosuch' not found; searched: %s", f, s);
                check_load(none, bad, "inherit-missing", -ENOENT, w, "a missing parent is named with its inherit line");
        }
        {
                _cleanup_free_ char *f = xasprintf("%s/unknown-value.profile", bad);
                _cleanup_free_ char *w = xasprintf(
                        "%s:8: unknown value 'medium' for [sata] alpm; valid: max_performance, medium_power, "
                        "med_power_with_dipm, min_power_with_partial, min_power, keep "
                        "(profile chain: inherits-bad -> unknown-value)", f);
                check_load(none, bad, "inherits-bad", -EINVAL, w, "an error in a parent names the chain");
        }
        {
                _cleanup_free_ char *f = xasprintf("%s/self.profile", bad);
                _cleanup_free_ char *w = xasprintf("%s:2: inherited profile 'self' not found after this one; searched: "
                                                   "%s/usr/share/idlecfg/profiles", f, none);
                check_load(none, bad, "self", -ENOENT, w, "inheriting its own name looks only further down the path");
        }

        /* search path in a root: /etc overrides and may extend /usr/share */
        {
                _cleanup_free_ char *etc = xasprintf("%s/etc/idlecfg/profiles/balanced.profile", pkg);
                _cleanup_free_ char *usr = xasprintf("%s/usr/share/idlecfg/profiles/balanced.profile", pkg);
                _cleanup_free_ char *src = xasprintf("%s/balanced.profile", shipped);

                p = load_ok(pkg, NULL, "balanced");
                ok(p && p->n_chain == 2 && streq(p->chain[0].path, etc) && streq(p->chain[1].path, usr) &&
                   setting_is(p, "sata", "alpm", "max_performance", etc, 5) &&
                   setting_is(p, "usb", "autosuspend", "allowlist", usr, 5),
                   "root: /etc/idlecfg/profiles/balanced extends /usr/share/idlecfg/profiles/balanced");
                profile_free(p);

                p = load_ok(pkg, shipped, "balanced");
                ok(p && p->n_chain == 2 && streq(p->chain[1].path, src) &&
                   setting_is(p, "sata", "alpm", "max_performance", etc, 5) &&
                   setting_is(p, "usb", "delay_ms", "keep", src, line_of(src, "delay_ms =")),
                   "root + extra dir: /etc first, then the extra dir, before /usr/share");
                profile_free(p);
        }
        {
                _cleanup_free_ char *w = xasprintf("%s/etc/idlecfg/profiles/loop.profile:2: inherited profile 'loop' not found "
                                                   "after this one; searched: %s/usr/share/idlecfg/profiles", pkg, pkg);
                check_load(pkg, NULL, "loop", -ENOENT, w, "root: /etc profile inheriting its own name, none below");
        }
        {
                _cleanup_free_ char *w = xasprintf("%s/usr/share/idlecfg/profiles/selfish.profile:2: inherited profile "
                                                   "'selfish' not found: no directory after this one to search", pkg);
                check_load(pkg, NULL, "selfish", -ENOENT, w, "inheriting its own name in the last directory");
        }
        {
                char **names = NULL;
                size_t nn = 0;
                profile_list(pkg, good, &names, &nn);
                ok(nn == 9 && streq(names[0], "balanced") && streq(names[1], "base") && streq(names[nn - 1], "selfish"),
                   "profile_list: every directory, sorted, no duplicates (%zu)", nn);
                profile_names_free(names, nn);
        }
}

/* ---- symlinks inside a root: built here, since "make dist" dereferences them ---- */

static void write_file(const char *path, const char *text)
{
        FILE *f = fopen(path, "we");

        if (f) {
                fputs(text, f);
                fclose(f);
        }
}

static void test_symlinks(void)
{
        static const char *const dirs[] = { "etc", "etc/idlecfg", "etc/idlecfg/profiles", "usr", "usr/share",
                                            "usr/share/idlecfg", "usr/share/idlecfg/profiles" };
        static const char *const links[][2] = {
                { "link", "/usr/share/idlecfg/profiles/target.profile" },
                { "escape", "../../../../../../../../usr/share/idlecfg/profiles/target.profile" },
                { "loopy", "loopy.profile" },
        };
        char tmpl[] = "/tmp/profile-root.XXXXXX";
        char *root = mkdtemp(tmpl);
        _cleanup_free_ char *target = NULL;
        struct profile *p;

        if (!root) {
                skip("no temporary directory", "symlinks in a root");
                return;
        }
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                _cleanup_free_ char *d = xasprintf("%s/%s", root, dirs[i]);
                mkdir(d, 0755);
        }
        /* a value no installed profile of the host has: reading the host's
         * /usr/share by mistake cannot pass */
        target = xasprintf("%s/usr/share/idlecfg/profiles/target.profile", root);
        write_file(target, "# the root's own file\n[usb]\n\n\ndelay_ms = 4242\n");
        for (size_t i = 0; i < ELEMENTSOF(links); i++) {
                _cleanup_free_ char *l = xasprintf("%s/etc/idlecfg/profiles/%s.profile", root, links[i][0]);
                if (symlink(links[i][1], l) < 0)
                        printf("# symlink %s: %s\n", l, strerror(errno));
        }

        {
                _cleanup_free_ char *f = xasprintf("%s/etc/idlecfg/profiles/link.profile", root);
                p = load_ok(root, NULL, "link");
                ok(p && setting_is(p, "usb", "delay_ms", "4242", f, 5), "an absolute symlink in the root resolves inside the root");
                profile_free(p);
        }
        {
                _cleanup_free_ char *f = xasprintf("%s/etc/idlecfg/profiles/escape.profile", root);
                p = load_ok(root, NULL, "escape");
                ok(p && setting_is(p, "usb", "delay_ms", "4242", f, 5),
                   "a relative symlink climbing out with '..' stops at the root");
                profile_free(p);
        }
        {
                _cleanup_free_ char *w = xasprintf("%s/etc/idlecfg/profiles/loopy.profile: cannot open: %s", root, strerror(ELOOP));
                check_load(root, NULL, "loopy", -ELOOP, w, "a symlink loop in the root is an error");
        }

        for (size_t i = 0; i < ELEMENTSOF(links); i++) {
                _cleanup_free_ char *l = xasprintf("%s/etc/idlecfg/profiles/%s.profile", root, links[i][0]);
                unlink(l);
        }
        unlink(target);
        for (size_t i = ELEMENTSOF(dirs); i-- > 0;) {
                _cleanup_free_ char *d = xasprintf("%s/%s", root, dirs[i]);
                rmdir(d);
        }
        rmdir(root);
}

/* ---- the shipped profiles ---- */

static void test_shipped(void)
{
        static const char *const expected[] = { "balanced", "desktop", "performance", "powersave", "server" };
        _cleanup_free_ char *bal = xasprintf("%s/balanced.profile", shipped);
        _cleanup_free_ char *ps = xasprintf("%s/powersave.profile", shipped);
        _cleanup_free_ char *srv = xasprintf("%s/server.profile", shipped);
        _cleanup_free_ char *perf = xasprintf("%s/performance.profile", shipped);
        char **names = NULL;
        size_t nn = 0, nk;
        struct profile *p;

        knob_profile_keys(&nk);
        profile_list(none, shipped, &names, &nn);
        ok(nn == ELEMENTSOF(expected), "profiles/ holds %zu profiles", nn);
        for (size_t i = 0; i < nn; i++) {
                ok(i < ELEMENTSOF(expected) && streq(names[i], expected[i]), "profiles/%s.profile is expected", names[i]);
                p = load_ok(none, shipped, names[i]);
                ok(p && p->description, "profiles/%s.profile loads cleanly and has a description", names[i]);
                profile_free(p);
        }
        profile_names_free(names, nn);

        p = load_ok(none, shipped, "balanced");
        ok(p && p->n_chain == 1 && p->n_settings == nk, "balanced is the reference: it sets all %zu keys", nk);
        ok(p && setting_is(p, "pcie_aspm", "policy", "default", bal, line_of(bal, "policy =")) &&
           setting_is(p, "pci", "runtime_pm", "auto", bal, line_of(bal, "runtime_pm = auto\n")) &&
           !profile_get(p, "pci", "runtime_pm")->battery &&
           setting_is(p, "sata", "alpm", "med_power_with_dipm", bal, line_of(bal, "alpm =")) &&
           setting_is(p, "usb", "autosuspend", "classes", bal, line_of(bal, "autosuspend =")) &&
           setting_is(p, "sata", "mask_port_ext", "yes", bal, line_of(bal, "mask_port_ext =")) &&
           setting_is(p, "audio", "power_save", "10", bal, line_of(bal, "power_save = 10")) &&
           !profile_get(p, "audio", "power_save")->battery &&
           setting_is(p, "kernel", "dirty_writeback_centisecs", "500", bal,
                      line_of(bal, "dirty_writeback_centisecs = ac:500 battery:1500")) &&
           profile_get(p, "kernel", "dirty_writeback_centisecs")->battery_number == 1500,
           "balanced: ASPM default, PCI runtime PM auto on both sources, DIPM, USB by class, external-port mask, "
           "audio 10 s, writeback 5 s on AC and 15 s on battery");
        profile_free(p);

        p = load_ok(none, shipped, "performance");
        {
                bool all_keep = p && p->n_settings == nk;
                for (size_t i = 0; p && i < p->n_settings; i++)
                        if (!p->settings[i].keep && !streq(p->settings[i].value, "no"))
                                all_keep = false;
                ok(all_keep && p->n_chain == 1 && streq(p->path, perf),
                   "performance sets every key to keep (or no), on its own");
        }
        profile_free(p);

        p = load_ok(none, shipped, "powersave");
        ok(p && p->n_chain == 2 && streq(p->chain[1].name, "balanced") &&
           setting_is(p, "pcie_aspm", "policy", "powersupersave", ps, line_of(ps, "policy =")) &&
           setting_is(p, "sata", "alpm", "med_power_with_dipm", bal, line_of(bal, "alpm =")) &&
           setting_is(p, "audio", "power_save", "10", ps, line_of(ps, "power_save =")) &&
           streq_ptr(profile_get(p, "audio", "power_save")->battery, "1") &&
           p->n_settings == nk,
           "powersave: balanced plus powersupersave and 1 s audio, each with its own file:line");
        profile_free(p);

        p = load_ok(none, shipped, "server");
        ok(p && p->n_chain == 2 && streq(p->chain[1].name, "performance") &&
           setting_is(p, "sata", "alpm", "max_performance", srv, line_of(srv, "alpm =")) &&
           setting_is(p, "nvme", "apst", "quirks", srv, line_of(srv, "apst =")) &&
           profile_get(p, "usb", "autosuspend")->keep && profile_get(p, "pcie_aspm", "policy")->keep,
           "server: performance plus ALPM max_performance and the NVMe quirks");
        profile_free(p);

        p = load_ok(none, shipped, "desktop");
        ok(p && streq(p->chain[1].name, "balanced") && profile_get(p, "audio", "power_save")->keep &&
           streq(profile_get(p, "usb", "autosuspend")->value, "classes") &&
           profile_get(p, "audio", "power_save_controller")->keep,
           "desktop: balanced devices, USB autosuspend by class, kernel defaults for audio");
        profile_free(p);
}

/* ---- selection: --profile > idlecfg.conf > chassis type ---- */

static void check_select(const char *root, const char *cli, const char *chassis, const char *want_name,
                         const char *want_reason, const char *desc)
{
        _cleanup_free_ char *name = NULL, *reason = NULL;
        struct xerror e = {};
        int r = profile_select(root, cli, chassis, &name, &reason, &e);

        if (r < 0) {
                _cleanup_free_ char *m = xerror_format(&e);
                printf("# %s\n", m);
        }
        ok(r == 0 && streq_diag(name, want_name) && streq_diag(reason, want_reason), "select: %s", desc);
        xerror_done(&e);
}

static void check_select_error(const char *root, const char *cli, const char *want, const char *desc)
{
        _cleanup_free_ char *name = NULL, *reason = NULL, *got = NULL;
        struct xerror e = {};
        int r = profile_select(root, cli, "10", &name, &reason, &e);

        got = xerror_format(&e);
        ok(r == -EINVAL && !name && !reason && streq_diag(got, want), "select: %s", desc);
        xerror_done(&e);
}

static void test_select(void)
{
        static const struct { const char *type, *profile, *name; } table[] = {
                { "8", "balanced", "Portable" }, { "9", "balanced", "Laptop" }, { "10", "balanced", "Notebook" },
                { "11", "balanced", "Hand Held" }, { "14", "balanced", "Sub Notebook" }, { "30", "balanced", "Tablet" },
                { "31", "balanced", "Convertible" }, { "32", "balanced", "Detachable" },
                { "3", "desktop", "Desktop" }, { "4", "desktop", "Low Profile Desktop" }, { "5", "desktop", "Pizza Box" },
                { "6", "desktop", "Mini Tower" }, { "7", "desktop", "Tower" }, { "13", "desktop", "All in One" },
                { "15", "desktop", "Space-saving" }, { "16", "desktop", "Lunch Box" }, { "24", "desktop", "Sealed-case PC" },
                { "35", "desktop", "Mini PC" }, { "36", "desktop", "Stick PC" },
                { "17", "server", "Main Server Chassis" }, { "23", "server", "Rack Mount Chassis" },
                { "28", "server", "Blade" }, { "29", "server", "Blade Enclosure" },
        };
        _cleanup_free_ char *conf = xasprintf("%s/conf", roots);
        _cleanup_free_ char *conf_path = xasprintf("%s/conf/etc/idlecfg/idlecfg.conf:3", roots);
        _cleanup_free_ char *comments = xasprintf("%s/conf-comments", roots);
        bool all_load = true;

        check_select(conf, "performance", "23", "performance", "--profile", "--profile wins over idlecfg.conf and chassis");
        check_select(conf, NULL, "23", "powersave", conf_path, "idlecfg.conf wins over the chassis, reason names file:line");
        check_select(comments, NULL, "10", "balanced", "chassis type 10 (Notebook)",
                     "an idlecfg.conf without a profile falls through to the chassis");
        check_select(none, NULL, "31", "balanced", "chassis type 31 (Convertible)", "no idlecfg.conf: chassis");

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                _cleanup_free_ char *want = xasprintf("chassis type %s (%s)", table[i].type, table[i].name);
                _cleanup_free_ char *desc = xasprintf("chassis %s -> %s", table[i].type, table[i].profile);
                check_select(none, NULL, table[i].type, table[i].profile, want, desc);
        }
        check_select(none, NULL, "2", "balanced", "chassis type 2 (Unknown) has no rule, the default", "unknown chassis: balanced");
        check_select(none, NULL, "33", "balanced", "chassis type 33 (IoT Gateway) has no rule, the default", "IoT gateway: balanced");
        check_select(none, NULL, "99", "balanced", "chassis type 99 has no rule, the default", "a type beyond SMBIOS: balanced");
        check_select(none, NULL, "ten", "balanced", "chassis type 'ten' not understood, the default", "a non-number: balanced");
        check_select(none, NULL, NULL, "balanced", "no chassis type (no DMI), the default", "no DMI: balanced");
        check_select(none, NULL, "", "balanced", "no chassis type (no DMI), the default", "empty chassis type: balanced");

        /* whatever the chassis, the chosen profile must exist */
        for (int t = 0; t <= 40; t++) {
                _cleanup_free_ char *type = xasprintf("%d", t), *name = NULL, *reason = NULL;
                struct xerror e = {};
                struct profile *p = NULL;
                if (profile_select(none, NULL, type, &name, &reason, &e) < 0 || !(p = load_ok(none, shipped, name)))
                        all_load = false;
                profile_free(p);
                xerror_done(&e);
        }
        ok(all_load, "every chassis type 0..40 selects a shipped profile that loads");

        check_select_error(none, "../etc/passwd",
                           "invalid profile name '../etc/passwd' for --profile; use letters, digits, '-' and '_' (at most 64)",
                           "a bad --profile name");
        {
                _cleanup_free_ char *root = xasprintf("%s/conf-badkey", roots);
                _cleanup_free_ char *w = xasprintf("%s/etc/idlecfg/idlecfg.conf:2: unknown key 'profil' in [main]; valid: profile", root);
                check_select_error(root, NULL, w, "idlecfg.conf: an unknown key");
        }
        {
                _cleanup_free_ char *root = xasprintf("%s/conf-badname", roots);
                _cleanup_free_ char *w = xasprintf("%s/etc/idlecfg/idlecfg.conf:2: invalid profile name '../powersave' for [main] "
                                                   "profile; use letters, digits, '-' and '_' (at most 64)", root);
                check_select_error(root, NULL, w, "idlecfg.conf: a bad profile name");
        }
        {
                _cleanup_free_ char *root = xasprintf("%s/conf-section", roots);
                _cleanup_free_ char *w = xasprintf("%s/etc/idlecfg/idlecfg.conf:1: unknown section [Main]; valid: main, power, exclude DEVICE", root);
                check_select_error(root, NULL, w, "idlecfg.conf: an unknown section");
        }
}

int main(void)
{
        top = getenv("top_srcdir");
        if (!top || !top[0])
                top = ".";
        bad = xasprintf("%s/tests/data/profiles/bad", top);
        good = xasprintf("%s/tests/data/profiles/good", top);
        roots = xasprintf("%s/tests/data/profiles/roots", top);
        none = xasprintf("%s/tests/data/profiles/roots/none", top);
        shipped = xasprintf("%s/profiles", top);

        test_format();
        test_schema();
        test_files();
        test_inherit();
        test_symlinks();
        test_shipped();
        test_select();

        printf("1..%d\n", n);
        free(bad);
        free(good);
        free(roots);
        free(none);
        free(shipped);
        return failed ? 1 : 0;
}
