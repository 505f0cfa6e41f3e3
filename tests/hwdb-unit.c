/* tests/hwdb-unit.c: TAP tests of the .hwdb reader: format, overrides, order, errors */
#include "config.h"

#include "tap.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "db/hwdb-load.h"
#include "db/hwdb.h"
#include "base/util.h"

static char base[] = "/tmp/idlecfg-hwdb-unit.XXXXXX";


static void diag_str(const char *what, const char *s)
{
        printf("# %s:\n", what);
        for (const char *p = s; *p;) {
                size_t l = strcspn(p, "\n");
                printf("#   %.*s\n", (int) l, p);
                p += l + (p[l] == '\n');
        }
}

static bool ok_str(const char *got, const char *expected, const char *desc)
{
        bool same = streq(got, expected);

        ok(same, "%s", desc);
        if (!same) {
                diag_str("expected", expected);
                diag_str("got", got);
        }
        return same;
}

/* write DIR/REL with LEN bytes (-1: strlen), creating directories */
static void put(const char *dir, const char *rel, const char *content, ssize_t len)
{
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, rel);
        _cleanup_close_ int fd = -1;

        for (char *s = strchr(path + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                (void) mkdir(path, 0755);
                *s = '/';
        }
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, content, len < 0 ? strlen(content) : (size_t) len) < 0) {
                perror(path);
                exit(EXIT_FAILURE);
        }
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
        (void) st; (void) type; (void) f;
        return remove(p);
}

static char *fresh_dir(const char *name)
{
        char *d = xasprintf("%s/%s", base, name);

        (void) nftw(d, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        if (mkdir(d, 0755) < 0) {
                perror(d);
                exit(EXIT_FAILURE);
        }
        return d;
}

/* the answer as "KEY=VALUE@FILE:LINE\n" lines, FILE without its directory */
static char *answer(const struct hwdb *h, const char *modalias, bool sources)
{
        _cleanup_free_ struct hwdb_property *props = NULL;
        struct strbuf sb = {};
        size_t np;

        if (hwdb_query(h, modalias, &props, &np) < 0)
                return xstrdup("<query failed>");
        for (size_t i = 0; i < np; i++) {
                const char *f = strrchr(props[i].file, '/');
                sb_appendf(&sb, "%s=%s", props[i].key, props[i].value);
                if (sources)
                        sb_appendf(&sb, "@%s:%u", f ? f + 1 : props[i].file, props[i].line);
                sb_putc(&sb, '\n');
        }
        return sb_steal(&sb);
}

static bool check(const struct hwdb *h, const char *modalias, bool sources, const char *expected, const char *desc)
{
        _cleanup_free_ char *got = answer(h, modalias, sources);
        return ok_str(got, expected, desc);
}

static struct hwdb *load_root(const char *root, unsigned flags)
{
        struct xerror err = {};
        struct hwdb *h = NULL;
        int r = hwdb_load(root, flags, &h, &err);

        if (r < 0) {
                _cleanup_free_ char *msg = xerror_format(&err);
                printf("# hwdb_load(%s): %s\n", root, msg);
                xerror_done(&err);
                return NULL;
        }
        return h;
}

/* load one file with CONTENT; the first problem as "LINE: message", or "" */
static char *strict_error(const char *content, ssize_t len)
{
        _cleanup_free_ char *dir = fresh_dir("strict");
        _cleanup_free_ char *path = xasprintf("%s/t.hwdb", dir);
        const char *paths[] = { path, NULL };
        struct xerror err = {};
        struct hwdb *h = NULL;
        char *res;
        int r;

        put(dir, "t.hwdb", content, len);
        r = hwdb_load_files(paths, HWDB_STRICT, &h, &err);
        if (r >= 0) {
                hwdb_free(h);
                return xstrdup("");
        }
        res = xasprintf("%s%s:%u: %s", streq_ptr(err.file, path) ? "" : "<wrong file>", "t.hwdb",
                        err.line, err.message);
        xerror_done(&err);
        return res;
}

static void test_format(void)
{
        _cleanup_free_ char *dir = fresh_dir("format");
        _cleanup_free_ char *p1 = xasprintf("%s/10-a.hwdb", dir);
        const char *paths[] = { p1, NULL };
        struct xerror err = {};
        struct hwdb *h = NULL;
        size_t nw;

        put(dir, "10-a.hwdb",
            "# comment line\n"
            "pci:v00008086d0000A0EDsv*\n"                       /* 2 */
            "# a comment between the match lines\n"
            "pci:v00008086d0000A36Dsv*\n"                       /* 4 */
            " IDLECFG_RUNTIME_PM=auto\n"                        /* 5 */
            "  IDLECFG_REASON=xhci # a trailing comment\n"      /* 6 */
            "\n"
            "usb:v1D6Bp000?*\n"
            " IDLECFG_AUTOSUSPEND=hub\n"                        /* 9 */
            "\n"
            "usb:v046Dp[Cc]52[AB]*\n"
            " IDLECFG_AUTOSUSPEND=no\n"                         /* 12 */
            " IDLECFG_NOTE=a=b, c\t  \n"                        /* 13 */
            "\n"
            "usb:v04F3p0[!0-7]??:*\n"
            " IDLECFG_AUTOSUSPEND=elan\n"                       /* 16 */
            "\n"
            "dmi:*:svnLENOVO:*:pvrThinkPad*\n"
            " IDLECFG_PLATFORM=thinkpad\n", -1);                /* 19 */
        if (!ok(hwdb_load_files(paths, HWDB_STRICT, &h, &err) == 0, "well-formed file loads in strict mode"))
                return;
        (void) hwdb_warnings(h, &nw);
        ok(nw == 0, "no warnings");
        check(h, "pci:v00008086d0000A0EDsv000017AAsd000022D5bc0Csc03i30", true,
              "IDLECFG_REASON=xhci@10-a.hwdb:6\nIDLECFG_RUNTIME_PM=auto@10-a.hwdb:5\n",
              "first of two match lines, trailing comment cut, extra indentation squeezed");
        check(h, "pci:v00008086d0000A36Dsv00001028sd0000085Cbc0Csc03i30", false,
              "IDLECFG_REASON=xhci\nIDLECFG_RUNTIME_PM=auto\n", "second match line of the same entry");
        check(h, "pci:v00008086d0000A0EEsv00000000", false, "", "no match: empty answer");
        check(h, "usb:v1D6Bp0003d0606dc09dsc00dp03ic09isc00ip00in00", false, "IDLECFG_AUTOSUSPEND=hub\n", "'?' matches one character");
        check(h, "usb:v1D6Bp03d0606", false, "", "'?' does not match the empty string");
        check(h, "usb:v046DpC52B:USB Receiver", true,
              "IDLECFG_AUTOSUSPEND=no@10-a.hwdb:12\nIDLECFG_NOTE=a=b, c@10-a.hwdb:13\n",
              "'[..]' sets; value keeps '=' and inner spaces, trailing blanks stripped");
        check(h, "usb:v046Dpc52A:", false, "IDLECFG_AUTOSUSPEND=no\nIDLECFG_NOTE=a=b, c\n", "'[Cc]' takes either case");
        check(h, "usb:v046DpC52C:", false, "", "'[AB]' rejects C");
        check(h, "usb:v04F3p0C9A:", false, "IDLECFG_AUTOSUSPEND=elan\n", "'[!0-7]' accepts C");
        check(h, "usb:v04F3p059A:", false, "", "'[!0-7]' rejects 5");
        check(h, "dmi:bvnLENOVO:bvrN1MET:svnLENOVO:pn20HRCTO1WW:pvrThinkPadX1Carbon5th:", false,
              "IDLECFG_PLATFORM=thinkpad\n", "'*' spans ':' (no FNM_PATHNAME)");
        check(h, "DMI:bvnLENOVO:svnLENOVO:pnThinkPad", false, "", "matching is case-sensitive");
        hwdb_free(h);
}

static void test_override(void)
{
        _cleanup_free_ char *root = fresh_dir("override");
        struct hwdb *h;
        const char *const *files;
        size_t nf;

        put(root, "usr/lib/udev/hwdb.d/10-base.hwdb",
            "usb:v1234p5678*\n"
            " ID_SPECIFIC=usr10\n"                              /* 2 */
            " ID_ORDER=specific-first\n"                        /* 3 */
            "\n"
            "usb:v1234*\n"
            " ID_ORDER=generic-later\n"                         /* 6 */
            " ID_GENERIC=usr10\n"                               /* 7 */
            "\n"
            "usb:v1234p5678*\n"
            " ID_SAME_PATTERN=first\n"                          /* 10 */
            "\n"
            "usb:v1234p5678*\n"
            " ID_SAME_PATTERN=second\n", -1);                   /* 13 */
        put(root, "usr/lib/udev/hwdb.d/20-later.hwdb",
            "usb:v*\n"
            " ID_SPECIFIC=usr20-generic\n", -1);                /* 2 */
        put(root, "usr/lib/udev/hwdb.d/30-shadow.hwdb",
            "usb:v1234*\n"
            " ID_SHADOW=usr\n"
            " ID_ONLY_IN_USR=1\n", -1);
        put(root, "etc/udev/hwdb.d/30-shadow.hwdb",
            "usb:v1234*\n"
            " ID_SHADOW=etc\n", -1);                            /* 2 */
        put(root, "etc/udev/hwdb.d/05-early.hwdb",
            "usb:v1234p5678\n"
            " ID_GENERIC=etc05-exact\n", -1);
        put(root, "usr/lib/udev/hwdb.d/README", "not a hwdb file\n", -1);
        put(root, "usr/lib/udev/hwdb.d/.hidden.hwdb", "usb:v*\n ID_HIDDEN=1\n", -1);

        h = load_root(root, HWDB_STRICT);
        if (!ok(h != NULL, "root with /etc and /usr/lib files loads"))
                return;
        files = hwdb_files(h, &nf);
        ok(nf == 4 && streq(files[0], "/etc/udev/hwdb.d/05-early.hwdb") &&
           streq(files[1], "/usr/lib/udev/hwdb.d/10-base.hwdb") &&
           streq(files[3], "/etc/udev/hwdb.d/30-shadow.hwdb"),
           "files sorted by name across directories, /etc replaces the same name, README and dot files skipped");
        check(h, "usb:v1234p5678", true,
              "ID_SPECIFIC=usr20-generic@20-later.hwdb:2\n"
              "ID_GENERIC=usr10@10-base.hwdb:7\n"
              "ID_ORDER=generic-later@10-base.hwdb:6\n"
              "ID_SHADOW=etc@30-shadow.hwdb:2\n"
              "ID_SAME_PATTERN=second@10-base.hwdb:13\n",
              "later file wins over a more specific match, later line wins in a file, "
              "/etc/udev/hwdb.d wins only by name, in systemd-hwdb's order");
        hwdb_free(h);
}

static void test_dirs(void)
{
        _cleanup_free_ char *root = fresh_dir("dirs");
        _cleanup_free_ char *outside = fresh_dir("outside");
        _cleanup_free_ char *lib = NULL, *link = NULL;
        struct hwdb *h;

        /* an unmerged root: /lib and /usr/lib both exist */
        put(root, "lib/udev/hwdb.d/10-a.hwdb", "x:*\n A=lib\n L=lib\n", -1);
        put(root, "lib/udev/hwdb.d/20-b.hwdb", "x:*\n B=lib\n", -1);
        put(root, "usr/lib/udev/hwdb.d/10-a.hwdb", "x:*\n A=usr\n", -1);
        h = load_root(root, 0);
        if (h) {
                check(h, "x:1", false, "A=usr\nB=lib\n", "/lib/udev/hwdb.d is read, /usr/lib wins for the same name");
                hwdb_free(h);
        } else
                ok(false, "unmerged root loads");

        /* an absolute symlink resolves inside the root, not on the host */
        put(outside, "usr/lib/udev/hwdb.d/10-a.hwdb", "x:*\n A=host\n", -1);
        put(root, "srv/hwdb/10-a.hwdb", "x:*\n A=in-root\n", -1);
        put(root, "etc/udev/hwdb.d/README", "not read\n", -1);
        lib = xasprintf("%s/etc/udev/hwdb.d", root);
        link = xasprintf("%s/10-a.hwdb", lib);
        if (symlink("/srv/hwdb/10-a.hwdb", link) < 0)
                perror(link);
        free(link);
        link = xasprintf("%s/20-b.hwdb", lib);
        if (symlink("/dev/null", link) < 0)
                perror(link);
        h = load_root(root, HWDB_STRICT);
        if (h) {
                check(h, "x:1", false, "A=in-root\n",
                      "absolute symlink resolved inside the root; a symlink to /dev/null masks");
                hwdb_free(h);
        } else
                ok(false, "root with symlinks loads");
}

static void test_order(void)
{
        _cleanup_free_ char *dir = fresh_dir("order");
        _cleanup_free_ char *p = xasprintf("%s/o.hwdb", dir);
        const char *paths[] = { p, NULL };
        struct xerror err = {};
        struct hwdb *h = NULL;

        /* sd-hwdb prints a key where its trie walk first meets it: shorter
         * literal prefix first, '*' before '?' before '[', an exact match last */
        put(dir, "o.hwdb",
            "usb:v1234p0001*\n ZZZ=1\n AAA=1\n KEY_A=specific-first\n\n"
            "usb:v1234*\n KEY_A=generic-later\n MMM=2\n\n"
            "usb:v1234p000?\n QQQ=q\n KEY_A=q\n\n"
            "usb:v1234p[0]001\n BRK=b\n\n"
            "*\n ALL=all\n\n"
            "usb:v1234p0001\n EXACT=e\n AAA=exact\n\n"
            "usb:v1234p0001*\n KEY_A=same-pattern-later\n", -1);
        if (!ok(hwdb_load_files(paths, HWDB_STRICT, &h, &err) == 0, "order test file loads"))
                return;
        check(h, "usb:v1234p0001", false,
              "ALL=all\nKEY_A=same-pattern-later\nMMM=2\nBRK=b\nQQQ=q\nAAA=exact\nZZZ=1\nEXACT=e\n",
              "properties in systemd-hwdb's order (checked against systemd 252)");
        hwdb_free(h);
}

static void test_line_ends(void)
{
        _cleanup_free_ char *dir = fresh_dir("eol");
        _cleanup_free_ char *p = xasprintf("%s/e.hwdb", dir);
        const char *paths[] = { p, NULL };
        struct xerror err = {};
        struct hwdb *h = NULL;
        static const char content[] =
                "a:*\r\n K=crlf\r\n\r\n"                        /* 1-3 */
                "b:*\r K=cr\r\r"                                /* 4-6 */
                "c:*\n\r K=lfcr\n\r\n"                          /* 7-9: "\n\r" is one end */
                "d:*\0 K=nul\0\0"                               /* 10-12 */
                "e:*\n K=no-final-newline";                     /* 13-14 */

        put(dir, "e.hwdb", content, sizeof(content) - 1);
        if (!ok(hwdb_load_files(paths, HWDB_STRICT, &h, &err) == 0, "CRLF, CR, LFCR and NUL line ends load strictly"))
                return;
        check(h, "a:", true, "K=crlf@e.hwdb:2\n", "CRLF");
        check(h, "b:", true, "K=cr@e.hwdb:5\n", "lone CR, CR CR is an empty line");
        check(h, "c:", true, "K=lfcr@e.hwdb:8\n", "LF CR is one line end");
        check(h, "d:", true, "K=nul@e.hwdb:11\n", "NUL ends a line");
        check(h, "e:", true, "K=no-final-newline@e.hwdb:14\n", "last line without newline");
        hwdb_free(h);
}

static void test_errors(void)
{
        struct {
                const char *content;
                const char *expected;
        } cases[] = {
                { "# property first\n IDLECFG_X=1\n",
                  "t.hwdb:2: Match expected but got indented property \" IDLECFG_X=1\", ignoring line." },
                { "usb:v1*\n IDLECFG_X\n",
                  "t.hwdb:2: Key-value pair expected but got \" IDLECFG_X\", ignoring." },
                { "usb:v1*\n =1\n",
                  "t.hwdb:2: Empty key in \" =1\", ignoring." },
                { "usb:v1*\n  \t=1\n",
                  "t.hwdb:2: Empty key in \"\t=1\", ignoring." },
                { "usb:v1*\n A=1\n\tB=2\n",
                  "t.hwdb:3: Property or empty line expected, got \"\tB=2\", ignoring record." },
                { "usb:v1*\n \tB=2\n",
                  "t.hwdb:2: Property key \"B\" is preceded by a tab, ignoring (systemd ignores it too)." },
                { "usb:v1*\n\n A=1\n",
                  "t.hwdb:2: Property expected, ignoring record with no properties." },
                { "usb:v1*\n\tA=1\n",
                  "t.hwdb:2: Property expected, ignoring record with no properties." },
                { "usb:v1*\n A=1\n # note\n B=2\n",
                  "t.hwdb:4: Match expected but got indented property \" B=2\", ignoring line." },
                { "usb:v1*\n A=1\nusb:v2*\n B=1\n",
                  "t.hwdb:3: Property or empty line expected, got \"usb:v2*\", ignoring record." },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *got = strict_error(cases[i].content, -1);
                _cleanup_free_ char *desc = xasprintf("strict: %s", cases[i].expected);

                ok_str(got, cases[i].expected, desc);
        }
}

static void test_long_lines(void)
{
        size_t max = 1024 * 1024 - 1, len = max + 64;
        _cleanup_free_ char *buf = xmalloc(len + 1);
        _cleanup_free_ char *got = NULL;
        size_t k;

        /* the longest line systemd reads: 1048575 bytes before the line end */
        k = (size_t) sprintf(buf, "usb:v1*\n K=ok\n ");
        memset(buf + k, 'x', max - 3);
        memcpy(buf + k + max - 3, "=1\n", 3);
        buf[k + max] = '\0';
        got = strict_error(buf, (ssize_t) (k + max));
        ok_str(got, "", "a line of 1048575 bytes is fine");
        free(got);

        buf[k + max - 1] = 'x';
        memcpy(buf + k + max, "=1\n", 4);
        got = strict_error(buf, (ssize_t) (k + max + 3));
        ok_str(got, "t.hwdb:3: Line longer than 1048575 bytes, ignoring the rest of the file.",
               "a line of 1048576 bytes is an error with file:line");
}

static void test_lenient(void)
{
        _cleanup_free_ char *dir = fresh_dir("lenient");
        _cleanup_free_ char *p1 = xasprintf("%s/10-bad.hwdb", dir);
        _cleanup_free_ char *p2 = xasprintf("%s/20-missing.hwdb", dir);
        _cleanup_free_ char *p3 = xasprintf("%s/30-good.hwdb", dir);
        const char *paths[] = { p1, p2, p3, NULL };
        struct xerror err = {};
        const struct xerror *w;
        struct hwdb *h = NULL;
        size_t nw;

        put(dir, "10-bad.hwdb",
            " STRAY=1\n"                                        /* 1: ignored */
            "\n"
            "usb:v1*\n"
            " NOEQ\n"                                           /* 4: ignored, entry goes on */
            " A=1\n"                                            /* 5 */
            "usb:v2*\n"                                         /* 6: ends the entry, starts nothing */
            " B=1\n"                                            /* 7: ignored */
            "\n"
            "usb:v3*\n"
            " C=1\n", -1);                                      /* 10 */
        put(dir, "30-good.hwdb", "usb:v*\n G=1\n", -1);
        if (!ok(hwdb_load_files(paths, 0, &h, &err) == 0, "lenient load of a malformed and a missing file succeeds"))
                return;
        w = hwdb_warnings(h, &nw);
        ok(nw == 5 && w[0].line == 1 && w[1].line == 4 && w[2].line == 6 && w[3].line == 7 &&
           streq(w[4].file, p2) && w[4].line == 0 && streq(w[0].file, p1),
           "warnings name file and line, in order (%zu)", nw);
        check(h, "usb:v1", false, "G=1\nA=1\n", "good properties of a damaged entry stay");
        check(h, "usb:v2", false, "G=1\n", "a match line after properties starts no entry");
        check(h, "usb:v3", false, "G=1\nC=1\n", "parsing resumes after a blank line");
        hwdb_free(h);
}

static void test_misc(void)
{
        _cleanup_free_ char *root = fresh_dir("misc");
        _cleanup_free_ char *missing = xasprintf("%s/does-not-exist", base);
        struct xerror err = {};
        struct hwdb_property prop;
        struct hwdb *h = NULL;
        size_t nf;
        int r;

        r = hwdb_load(missing, 0, &h, &err);
        ok(r == -ENOENT && streq_ptr(err.file, missing), "missing root: -ENOENT naming it");
        xerror_done(&err);

        h = load_root(root, HWDB_STRICT);
        if (ok(h != NULL, "root without hwdb directories is an empty database")) {
                (void) hwdb_files(h, &nf);
                ok(nf == 0 && hwdb_get(h, "usb:v1", "A", &prop) == -ENOENT, "and answers nothing");
                hwdb_free(h);
        }

        put(root, "usr/lib/udev/hwdb.d/10-a.hwdb", "usb:v1*\n A=1\n B=2\n", -1);
        h = load_root(root, HWDB_STRICT);
        if (h) {
                r = hwdb_get(h, "usb:v1x", "B", &prop);
                ok(r == 0 && streq(prop.value, "2") && prop.line == 3 && streq(prop.match, "usb:v1*") &&
                   streq(prop.file, "/usr/lib/udev/hwdb.d/10-a.hwdb"),
                   "hwdb_get: value, file inside the root, line and match");
                ok(hwdb_get(h, "usb:v1x", "C", &prop) == -ENOENT, "hwdb_get: -ENOENT for an unset key");
                hwdb_free(h);
        } else
                ok(false, "hwdb_get root loads");

        {
                _cleanup_free_ char *fifo = xasprintf("%s/usr/lib/udev/hwdb.d/20-fifo.hwdb", root);
                _cleanup_free_ char *subdir = xasprintf("%s/usr/lib/udev/hwdb.d/30-dir.hwdb", root);
                const struct xerror *w;
                size_t nw;

                if (mkfifo(fifo, 0644) < 0 || mkdir(subdir, 0755) < 0)
                        perror("mkfifo/mkdir");
                h = load_root(root, 0);
                if (h) {
                        w = hwdb_warnings(h, &nw);
                        ok(nw == 2 && streq(w[0].file, "/usr/lib/udev/hwdb.d/20-fifo.hwdb") &&
                           streq(w[0].message, "not a regular file (a FIFO), ignoring.") && w[0].line == 0 &&
                           streq(w[1].file, "/usr/lib/udev/hwdb.d/30-dir.hwdb") &&
                           streq(w[1].message, "is a directory, not a file, ignoring."),
                           "a FIFO and a directory named *.hwdb are warnings naming what each is, not hangs");
                        check(h, "usb:v1", false, "A=1\nB=2\n", "the other files are still read");
                        hwdb_free(h);
                } else
                        ok(false, "root with a FIFO loads");
                /* idlecfg's policy: a file that cannot be read fails the load, naming it */
                r = hwdb_load(root, HWDB_FILES_REQUIRED, &h, &err);
                ok(r == -EBADFD && streq_ptr(err.file, "/usr/lib/udev/hwdb.d/20-fifo.hwdb") && err.line == 0 &&
                   strstr(err.message, "not a regular file (a FIFO)"),
                   "HWDB_FILES_REQUIRED: the FIFO is the error, naming it (r=%d)", r);
                xerror_done(&err);
                unlink(fifo);
                r = hwdb_load(root, HWDB_FILES_REQUIRED, &h, &err);
                ok(r == -EISDIR && streq_ptr(err.file, "/usr/lib/udev/hwdb.d/30-dir.hwdb") &&
                   streq_ptr(err.message, "cannot read this hwdb file: is a directory, not a file; its entries "
                                          "would be missing"),
                   "HWDB_FILES_REQUIRED: a directory is the error, called a directory (r=%d: %s)", r,
                   err.message ? err.message : "");
                xerror_done(&err);
                rmdir(subdir);
                {
                        _cleanup_free_ char *dangling = xasprintf("%s/usr/lib/udev/hwdb.d/40-gone.hwdb", root);
                        if (symlink("../../../../usr/lib/udev/gone.hwdb", dangling) < 0)
                                perror("symlink");
                        h = load_root(root, 0);
                        ok(h && (hwdb_warnings(h, &nw), nw == 0),
                           "a link to nothing inside the root: skipped without a word, as systemd-hwdb does");
                        hwdb_free(h);
                        r = hwdb_load(root, HWDB_FILES_REQUIRED, &h, &err);
                        ok(r == -ENOLINK && streq_ptr(err.file, "/usr/lib/udev/hwdb.d/40-gone.hwdb") &&
                           err.message && strstr(err.message, "a symbolic link to ../../../../usr/lib/udev/gone.hwdb, "
                                                              "which does not exist"),
                           "HWDB_FILES_REQUIRED: it is the error, named as a link to nothing (r=%d)", r);
                        xerror_done(&err);
                        unlink(dangling);
                }
        }

        {
                struct xerror e = { .file = (char *) "f.hwdb", .line = 3, .message = (char *) "bad" };
                _cleanup_free_ char *a = xerror_format(&e);
                _cleanup_free_ char *b = NULL;
                e.line = 0;
                b = xerror_format(&e);
                ok(streq(a, "f.hwdb:3: bad") && streq(b, "f.hwdb: bad"), "xerror_format");
        }
}

int main(void)
{
        if (!mkdtemp(base)) {
                perror("mkdtemp");
                return EXIT_FAILURE;
        }
        test_format();
        test_override();
        test_dirs();
        test_order();
        test_line_ends();
        test_errors();
        test_long_lines();
        test_lenient();
        test_misc();
        (void) nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        printf("1..%d\n", n);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
