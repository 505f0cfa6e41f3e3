/* tests/unit.c: TAP unit tests of the helpers (sha256, json, sysfs reads, lists)
 * and of the knob families' declarations that no plan exercises (verify's
 * blockers, measure's runtime PM mapping) */
#include "config.h"

#include "tap.h"

#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "base/json.h"
#include "knobs/knob.h"
#include "knobs/registry.h"
#include "root/modules.h"
#include "root/rootfs.h"
#include "base/sha256.h"
#include "engine/report.h"
#include "base/util.h"
#include "state/journal.h"
#include "state/manifest.h"



static void test_sha256(void)
{
        char hex[65];

        sha256_hex("", 0, 32, hex);
        ok(streq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), "sha256 of empty");
        sha256_hex("abc", 3, 32, hex);
        ok(streq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "sha256 of abc");
        {
                const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
                sha256_hex(m, strlen(m), 32, hex);
                ok(streq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
                   "sha256 of the 448-bit message");
        }
        {
                /* one million 'a', fed in odd-sized pieces */
                struct sha256 s;
                uint8_t d[32];
                char buf[1001];
                memset(buf, 'a', sizeof(buf));
                sha256_init(&s);
                for (int i = 0; i < 1000; i++)
                        sha256_update(&s, buf, i % 2 ? 999 : 1001);
                sha256_final(&s, d);
                for (int i = 0; i < 32; i++)
                        snprintf(hex + 2 * i, 3, "%02x", d[i]);
                ok(streq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
                   "sha256 of a million a, in pieces");
        }
        {
                /* 1 MiB of an LCG's bytes (Python's hashlib gave the digest), in
                 * pieces of every length 0..199, by the CPU's SHA extensions
                 * where it has them and by the portable code */
                static uint8_t big[1 << 20];
                uint32_t x = 1;
                for (size_t i = 0; i < sizeof(big); i++) {
                        x = x * 1103515245u + 12345u;
                        big[i] = (uint8_t) (x >> 16);
                }
                for (int portable = 0; portable < 2; portable++) {
                        struct sha256 s;
                        uint8_t d[32];
                        size_t off = 0;
                        bool was = sha256_set_portable(portable);
                        sha256_init(&s);
                        for (size_t k = 0; off < sizeof(big); k = (k + 1) % 200) {
                                size_t len = k < sizeof(big) - off ? k : sizeof(big) - off;
                                sha256_update(&s, big + off, len);
                                off += len;
                        }
                        sha256_final(&s, d);
                        for (int i = 0; i < 32; i++)
                                snprintf(hex + 2 * i, 3, "%02x", d[i]);
                        ok(streq(hex, "3dbac2f942957e365de60b4316ada461206b725f9446456bc85be911fb542ce8"),
                           "sha256 of 1 MiB in pieces, %s", portable ? "the portable code" :
                           was ? "the portable code (the CPU has no SHA extensions)" : "the CPU's SHA extensions");
                }
                sha256_set_portable(false);
        }
}

static char *json_of(void (*fn)(struct json *j))
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        struct json j;

        json_init(&j, f);
        fn(&j);
        fclose(f);
        return buf;
}

static void json_sample(struct json *j)
{
        json_begin_object(j);
        json_kv_string(j, "a", "q\"u\\o\nte\x01");
        json_kv_string(j, "bad", "x\xff" "y\xc3\xa9");
        json_kv_string(j, "null", NULL);
        json_key(j, "list");
        json_begin_array(j);
        json_int(j, -5);
        json_bool(j, true);
        json_end_array(j);
        json_key(j, "empty");
        json_begin_object(j);
        json_end_object(j);
        json_end_object(j);
}

static void test_json(void)
{
        _cleanup_free_ char *s = json_of(json_sample);
        const char *want =
                "{\n"
                "  \"a\": \"q\\\"u\\\\o\\nte\\u0001\",\n"
                "  \"bad\": \"x\\ufffdy\xc3\xa9\",\n"
                "  \"null\": null,\n"
                "  \"list\": [\n"
                "    -5,\n"
                "    true\n"
                "  ],\n"
                "  \"empty\": {}\n"
                "}";
        ok(streq(s, want), "json escaping, invalid UTF-8 and layout");
        if (!streq(s, want))
                printf("# got:\n%s\n", s);
}

static void json_numbers(struct json *j)
{
        json_begin_array(j);
        json_milli(j, 0);
        json_milli(j, 1234);
        json_milli(j, -5);
        json_milli(j, 100000);
        json_end_array(j);
}

static void test_json_milli(void)
{
        _cleanup_free_ char *s = NULL;

        /* a decimal comma would make it invalid JSON: the locale must not matter */
        setlocale(LC_NUMERIC, "de_DE.UTF-8");
        s = json_of(json_numbers);
        setlocale(LC_NUMERIC, "C");
        ok(streq(s, "[\n  0.000,\n  1.234,\n  -0.005,\n  100.000\n]"), "json_milli: three decimals, sign, no locale");
}

/* /proc/version tells the running kernel's package only on the running
 * system: in a chroot of the target (running = false) it is the host's */
static void test_kernel_upstream_running(void)
{
        char dir[] = "/tmp/idlecfg-unit.XXXXXX";
        struct utsname u;
        struct rootfs rfs = {};
        char *v = NULL, *src = NULL;
        int r;

        if (!mkdtemp(dir) || uname(&u) < 0) {
                ok(false, "mkdtemp, uname");
                ok(false, "mkdtemp, uname");
                return;
        }
        {
                _cleanup_free_ char *d = xasprintf("%s/proc", dir), *f = xasprintf("%s/version", d);
                size_t mm = strspn(u.release, "0123456789.");
                FILE *fp;
                mkdir(d, 0755);
                fp = fopen(f, "w");
                /* the release's own X.Y.Z, as a Debian kernel prints it */
                fprintf(fp, "Linux version %s (debian-kernel@lists.debian.org) #1 SMP Debian %.*s-1 (2026-01-01)\n",
                        u.release, (int) mm, u.release);
                fclose(fp);
        }
        if (rootfs_open(dir, &rfs) < 0) {
                ok(false, "rootfs_open");
                ok(false, "rootfs_open");
                return;
        }
        r = kernel_upstream(&rfs, u.release, true, &v, &src);
        ok(r == 1 && src && startswith(src, "/proc/version: Debian "),
           "the running system: the running kernel's version from /proc/version (%d, %s)", r, src ? src : "(null)");
        free(v);
        free(src);
        v = src = NULL;
        r = kernel_upstream(&rfs, u.release, false, &v, &src);
        ok(r == 0 && !v && src && !strstr(src, "/proc/version"),
           "a chroot of the target: the host's /proc/version is not the target's package (%d, %s)", r, src ? src : "(null)");
        free(v);
        free(src);
        rootfs_close(&rfs);
        {
                _cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", dir);
                (void) !system(cmd);
        }
}

/* the reader's dangling links: -ENOLINK (a name of the root that is not
 * there) or -EXDEV (out of the root), and their words; run twice, the
 * second time with the walk that stands in for openat2 */
static void test_dangling_links(void)
{
        char dir[] = "/tmp/idlecfg-unit.XXXXXX";
        struct rootfs rfs = {}, host = {};
        char *text = NULL;

        if (!mkdtemp(dir)) {
                ok(false, "mkdtemp");
                return;
        }
        {
                _cleanup_free_ char *d = xasprintf("%s/root/etc/sysctl.d", dir);
                _cleanup_free_ char *cmd = xasprintf("mkdir -p '%s' && : >'%s/host.conf'", d, dir);
                (void) !system(cmd);
                free(cmd);
                cmd = xasprintf("cd '%s' && ln -s ../sysctl.conf 99-sysctl.conf && ln -s ../../../../../../../../../host.conf "
                                "10-up.conf && ln -s '%s/host.conf' 20-host.conf && ln -s /etc/gone.conf 30-abs.conf && "
                                "ln -s ../gone.d ../sub.d && ln -s '%s/root/etc/gone.conf' 40-self.conf", d, dir, dir);
                (void) !system(cmd);
        }
        {
                _cleanup_free_ char *root = xasprintf("%s/root", dir);
                if (rootfs_open(root, &rfs) < 0 || rootfs_open("/", &host) < 0) {
                        ok(false, "rootfs_open");
                        return;
                }
        }
        for (int pass = 0; pass < 2; pass++) {
                const char *how = pass ? "walk" : "openat2";
                _cleanup_free_ char *w1 = NULL, *w2 = NULL, *w3 = NULL;
                int r;

                if (pass)
                        setenv("IDLECFG_NO_OPENAT2", "1", 1);
                r = rootfs_read_file(&rfs, "/etc/sysctl.d/99-sysctl.conf", 0, 4096, &text, NULL, NULL);
                w1 = rootfs_why(&rfs, "/etc/sysctl.d/99-sysctl.conf", r, 4096);
                ok(r == -ENOLINK && streq(w1, "a symbolic link to ../sysctl.conf, which does not exist"),
                   "%s: Debian's 99-sysctl.conf without procps: a link to nothing inside the root (%d, %s)", how, r, w1);
                r = rootfs_read_file(&rfs, "/etc/sysctl.d/30-abs.conf", 0, 4096, &text, NULL, NULL);
                ok(r == -ENOLINK, "%s: an absolute link to a name of the root that is not there: -ENOLINK (%d)", how, r);
                r = rootfs_read_file(&rfs, "/etc/sysctl.d/10-up.conf", 0, 4096, &text, NULL, NULL);
                w2 = rootfs_why(&rfs, "/etc/sysctl.d/10-up.conf", r, 4096);
                ok(r == -EXDEV && startswith(w2, "a symbolic link leading out of the root (to ../../"),
                   "%s: a link whose .. climbs above the root: -EXDEV, named so (%d, %s)", how, r, w2);
                r = rootfs_read_file(&rfs, "/etc/sysctl.d/20-host.conf", 0, 4096, &text, NULL, NULL);
                ok(r == -EXDEV, "%s: an absolute link to a file of this machine, not of the root: -EXDEV (%d)", how, r);
                r = rootfs_read_file(&rfs, "/etc/sysctl.d/40-self.conf", 0, 4096, &text, NULL, NULL);
                ok(r == -EXDEV, "%s: an absolute link through the root's own directory: -EXDEV (%d)", how, r);
                r = rootfs_read_file(&rfs, "/etc/sub.d/x.conf", 0, 4096, &text, NULL, NULL);
                w3 = rootfs_why(&rfs, "/etc/sub.d/x.conf", r, 4096);
                ok(r == -ENOLINK && strstr(w3, "on its way, ") && strstr(w3, "/root/etc/sub.d is a symbolic link to ../gone.d"),
                   "%s: a directory on the way that is a link to nothing: named (%d, %s)", how, r, w3);
                {
                        /* the running system: "/" is the root, a link never leads out of it */
                        _cleanup_free_ char *p = xasprintf("%s/root/etc/sysctl.d/30-abs.conf", dir);
                        _cleanup_free_ char *q = xasprintf("%s/root/etc/sysctl.d/10-up.conf", dir);
                        int a = rootfs_read_file(&host, p, 0, 4096, &text, NULL, NULL);
                        int b = rootfs_read_file(&host, q, 0, 4096, &text, NULL, NULL);
                        ok(a == -ENOLINK && b == -ENOLINK,
                           "%s: root \"/\": a dangling link, absolute or climbing, is a link to nothing (%d, %d)", how,
                           a, b);
                }
        }
        unsetenv("IDLECFG_NO_OPENAT2");
        rootfs_close(&rfs);
        rootfs_close(&host);
        {
                _cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", dir);
                (void) !system(cmd);
        }
}

/* rootfs_lstat_in(), the directories of a pass opened once, answers as
 * rootfs_lstat() does: a file, a link (not followed), a missing name, a
 * missing directory, a link on the way that climbs out, more directories than
 * it keeps; and each directory is opened once */
static void test_lstat_in(void)
{
        char dir[] = "/tmp/idlecfg-unit.XXXXXX";
        static const char *const paths[] = {
                "/etc/a.conf", "/etc/link", "/etc/gone", "/nodir/x", "/etc/up/a.conf", "/a.conf", "/etc/a.conf/x",
                "/etc/./a.conf", "/etc/../etc/a.conf", "etc/a.conf",
        };
        struct rootfs rfs = {};
        struct rootfs_dirs dirs = {};
        bool same = true;

        if (!mkdtemp(dir)) {
                ok(false, "mkdtemp");
                return;
        }
        {
                _cleanup_free_ char *cmd = xasprintf("cd '%s' && mkdir -p root/etc root/d && : >root/etc/a.conf && "
                                                     ": >root/a.conf && ln -s a.conf root/etc/link && "
                                                     "ln -s ../../../../../.. root/etc/up", dir);
                _cleanup_free_ char *root = xasprintf("%s/root", dir);
                (void) !system(cmd);
                if (rootfs_open(root, &rfs) < 0) {
                        ok(false, "rootfs_open");
                        return;
                }
        }
        for (int round = 0; round < 2; round++)
                for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
                        struct stat a = {}, b = {};
                        int ra = rootfs_lstat(&rfs, paths[i], &a), rb = rootfs_lstat_in(&rfs, &dirs, paths[i], &b);

                        if (ra != rb || (ra == 0 && (a.st_ino != b.st_ino || a.st_mode != b.st_mode))) {
                                printf("# %s: rootfs_lstat %d, rootfs_lstat_in %d\n", paths[i], ra, rb);
                                same = false;
                        }
                }
        ok(same, "rootfs_lstat_in() answers as rootfs_lstat(), twice over the same directories");
        ok(dirs.n == 7, "each directory opened once: 7 kept (%zu)", dirs.n);
        {
                /* more directories than it keeps: the rest looked at uncached */
                bool all = true;
                for (int i = 0; i < 40; i++) {
                        _cleanup_free_ char *p = xasprintf("/d%d/x", i);
                        struct stat st;
                        all = all && rootfs_lstat_in(&rfs, &dirs, p, &st) == -ENOENT;
                }
                all = all && rootfs_lstat_in(&rfs, &dirs, "/etc/a.conf", &(struct stat) {}) == 0;
                ok(all && dirs.n == ELEMENTSOF(dirs.v), "past %zu directories: the rest uncached, same answers",
                   ELEMENTSOF(dirs.v));
        }
        rootfs_dirs_done(&dirs);
        ok(dirs.n == 0, "rootfs_dirs_done() closes them all");
        rootfs_close(&rfs);
        {
                _cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", dir);
                (void) !system(cmd);
        }
}

static void test_read_attr(void)
{
        char dir[] = "/tmp/idlecfg-unit.XXXXXX";
        char *v = NULL;
        int fd, r;

        if (!mkdtemp(dir)) {
                ok(false, "mkdtemp");
                return;
        }
        fd = open(dir, O_RDONLY | O_DIRECTORY);
        {
                FILE *f;
                _cleanup_free_ char *p1 = xasprintf("%s/nl", dir), *p2 = xasprintf("%s/nonl", dir);
                _cleanup_free_ char *p3 = xasprintf("%s/multi", dir), *p4 = xasprintf("%s/isdir", dir);
                f = fopen(p1, "w"); fputs("auto\n", f); fclose(f);
                f = fopen(p2, "w"); fputs("on", f); fclose(f);
                f = fopen(p3, "w"); fputs("[default] performance \nsecond\n", f); fclose(f);
                mkdir(p4, 0755);
        }
        r = read_attr_at(fd, "nl", &v);
        ok(r == 0 && streq(v, "auto"), "attribute with newline");
        free(v);
        r = read_attr_at(fd, "nonl", &v);
        ok(r == 0 && streq(v, "on"), "attribute without newline");
        free(v);
        r = read_attr_at(fd, "multi", &v);
        ok(r == 0 && streq(v, "[default] performance"), "first line only, trailing blank stripped");
        free(v);
        v = NULL;
        r = read_attr_at(fd, "missing", &v);
        ok(r == -ENOENT && v == NULL, "missing attribute: -ENOENT, output untouched");
        r = read_attr_at(fd, "isdir", &v);
        ok(r == -EISDIR && v == NULL, "unreadable attribute: -EISDIR");
        close(fd);
        {
                _cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", dir);
                if (system(cmd) != 0)
                        ok(false, "cleanup");
        }
}

static void test_parse_selected(void)
{
        char *v = NULL;

        ok(parse_selected("[default] performance powersave", &v) == 0 && streq(v, "default"), "selected first");
        free(v);
        ok(parse_selected("max_performance [med_power_with_dipm] min_power", &v) == 0 &&
           streq(v, "med_power_with_dipm"), "selected middle");
        free(v);
        ok(parse_selected("auto", &v) == 0 && streq(v, "auto"), "plain value");
        free(v);
        v = NULL;
        ok(parse_selected("a [] b", &v) == -EINVAL && !v, "empty brackets refused");
        ok(parse_selected("a [b", &v) == -EINVAL && !v, "unclosed bracket refused");
}

static void test_kv(void)
{
        struct kvlist l = {};
        kv_add(&l, "a", "1");
        kv_add(&l, "b", NULL);
        ok(streq(kv_get(&l, "a"), "1") && kv_find(&l, "b") && !kv_get(&l, "b") && !kv_find(&l, "c"),
           "kv list: value, unreadable and absent are told apart");
        kv_set(&l, "a", "2");
        kv_set(&l, "c", "3");
        ok(l.n == 3 && streq(kv_get(&l, "a"), "2") && streq(kv_get(&l, "c"), "3"),
           "kv_set replaces a value in place and adds a new key");
        kv_free(&l);
        {
                _cleanup_free_ char *a = root_path("/", "/etc/fstab"), *b = root_path("/target", "/etc/fstab");
                ok(streq(a, "/etc/fstab") && streq(b, "/target/etc/fstab"), "root_path");
        }
}

/* does FAMILY declare that detect reads ATTR on a device of CLASS? */
static bool family_reads(const struct knob_family *f, const char *class, const char *attr)
{
        for (size_t i = 0; i < f->n_attrs; i++)
                if (streq(f->attrs[i].class, class) && streq(f->attrs[i].attr, attr))
                        return true;
        return false;
}

static void test_knob_declarations(void)
{
        size_t n_fam, n_blockers = 0;
        const struct knob_family *const *fam = knob_registry(&n_fam);
        bool fine = true;

        for (size_t i = 0; i < n_fam; i++)
                for (size_t k = 0; k < fam[i]->n_blockers; k++) {
                        const struct knob_blocker *b = &fam[i]->blockers[k];
                        n_blockers++;
                        if (b->check)
                                fine = fine && !b->attr && !b->bad && !b->message;
                        else
                                fine = fine && b->class && b->attr && b->bad && b->message &&
                                       family_reads(fam[i], b->class, b->attr) &&
                                       (!strstr(b->message, "%") ||
                                        (strstr(b->message, "%s") && !strchr(strstr(b->message, "%s") + 1, '%')));
                        fine = fine && (!b->knob || knob_rule(b->knob));
                }
        ok(fine && n_blockers >= 5, "every idle blocker: a check, or an attribute its family reads on its class, "
           "a pattern and a message with at most one %%s; its knob a known one (%zu blockers)", n_blockers);
        ok(streq_ptr(knob_runtime_pm_measured("pci"), "pci.runtime_pm") &&
           streq_ptr(knob_runtime_pm_measured("usb"), "usb.autosuspend") &&
           streq_ptr(knob_runtime_pm_measured("disk"), "sata.runtime_pm") &&
           streq_ptr(knob_runtime_pm_measured("sata"), "sata.runtime_pm") &&
           streq_ptr(knob_runtime_pm_measured("i2c"), "i2c.runtime_pm") &&
           streq_ptr(knob_runtime_pm_measured("i2c-client"), "i2c.runtime_pm") &&
           streq_ptr(knob_runtime_pm_measured("i2c-adapter"), "i2c.runtime_pm") &&
           streq_ptr(knob_runtime_pm_measured("drm"), "gpu.runtime_pm") &&
           streq_ptr(knob_runtime_pm_measured("nvme"), "pci.runtime_pm") &&
           !knob_runtime_pm_of("nvme") && !knob_runtime_pm_of("i2c-adapter") &&
           !knob_runtime_pm_measured("hda-codec") && !knob_runtime_pm_measured(NULL),
           "measure's runtime PM knobs by class: the families' runtime_pm, then runtime_pm_through");
}

static bool streq_diag(const char *got, const char *want)
{
        if (streq_ptr(got, want))
                return true;
        printf("# got:  %s\n# want: %s\n", got ? got : "(null)", want);
        return false;
}

/* BODY and its end record: the count and the digest of its lines */
static char *with_end(const char *body, const char *tail)
{
        char sha[65];
        unsigned lines = 0;

        sha256_hex(body, strlen(body), 32, sha);
        for (const char *c = body; *c; c++)
                lines += *c == '\n';
        return xasprintf("%send %u %s\n%s", body, lines, sha, tail);
}

/* a state file through its parser: 0, or the message of its refusal in *RET_MSG */
static int parse_state(bool journal, const char *text, char **ret_msg)
{
        struct xerror e = {};
        int r;

        if (journal) {
                struct journal *j = NULL;
                r = journal_parse("J", text, strlen(text), &j, &e);
                journal_free(r < 0 ? NULL : j);
        } else {
                struct manifest *m = NULL;
                r = manifest_parse("M", text, strlen(text), &m, &e);
                manifest_free(r < 0 ? NULL : m);
        }
        *ret_msg = r < 0 ? xstrdup(strempty(e.message)) : NULL;
        xerror_done(&e);
        return r;
}

/* the manifest and the journal are one line format, read by one parser
 * (state/records.c): what is wrong with a file's frame is said alike */
static void test_state_records(void)
{
        static const char *const body[] = {
                "idlecfg-manifest 2\nversion 0.1\nprofile balanced\nfingerprint ab\n",
                "idlecfg-journal 2\n# a comment\n\nrun 1 1764763200 balanced\n",
        };
        bool fine = true;

        for (int k = 0; k < 2; k++) {
                const char *who = k ? "J" : "M";
                _cleanup_free_ char *good = with_end(body[k], ""), *m_good = NULL;
                _cleanup_free_ char *after = with_end(body[k], "x\\zz\n"), *m_after = NULL;
                _cleanup_free_ char *bad_sha = xasprintf("%send 4 %064d\n", body[k], 0), *m_sha = NULL;
                _cleanup_free_ char *m_cut = NULL;
                _cleanup_free_ char *w_after = xasprintf("%s:6: a line after the end record", who);
                _cleanup_free_ char *w_sha = xasprintf("%s:5: the end record does not match the 4 lines before it: "
                                                       "lines were lost or changed", who);
                _cleanup_free_ char *w_sha2 = xasprintf("%s:5: expected \"end LINES SHA256\"", who);
                _cleanup_free_ char *sha_x = xasprintf("%send 4 %064d\n", body[k], 0);
                _cleanup_free_ char *cut = xstrndup(good, strlen(good) - 1);
                _cleanup_free_ char *w_cut = xasprintf("%s:5: the last line has no newline: the file was cut short",
                                                       who);

                sha_x[strlen(sha_x) - 2] = 'x';         /* a digest that is no digest */
                fine = fine && parse_state(k, good, &m_good) == 0;
                if (m_good)
                        printf("# %s: %s\n", who, m_good);
                fine = fine && parse_state(k, after, &m_after) == -EINVAL && streq_diag(m_after, w_after);
                fine = fine && parse_state(k, bad_sha, &m_sha) == -EINVAL && streq_diag(m_sha, w_sha);
                free(m_sha);
                m_sha = NULL;
                fine = fine && parse_state(k, sha_x, &m_sha) == -EINVAL && streq_diag(m_sha, w_sha2);
                fine = fine && parse_state(k, cut, &m_cut) == -EINVAL && streq_diag(m_cut, w_cut);
        }
        ok(fine, "manifest and journal: a good frame read; a line after the end record, an end record that does not "
                 "match or is no digest, a last line without its newline refused alike");
}

/* the report's installation key and privacy rules (engine/report.c) */
static void test_report_rules(void)
{
        uint8_t d[32];
        char hex[65];
        uint8_t key1[20];
        _cleanup_free_ char *a = NULL, *b = NULL, *c = NULL;

        /* RFC 4231, test cases 1 and 2 */
        memset(key1, 0x0b, sizeof(key1));
        hmac_sha256(key1, sizeof(key1), "Hi There", 8, d);
        for (int i = 0; i < 32; i++)
                snprintf(hex + 2 * i, 3, "%02x", d[i]);
        ok(streq(hex, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"), "HMAC-SHA-256, RFC 4231 case 1");
        hmac_sha256("Jefe", 4, "what do ya want for nothing?", 28, d);
        for (int i = 0; i < 32; i++)
                snprintf(hex + 2 * i, 3, "%02x", d[i]);
        ok(streq(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"), "HMAC-SHA-256, RFC 4231 case 2");
        ok(report_value_private("00:1b:21:3a:4f:5e") && report_value_private("enx001b213a4f5e") &&
           report_value_private("UUID=0ef28f3d-2e27-57b2-a1e3-b1a112d193fc") && report_value_private("5000c500a1b2c3d4") &&
           !report_value_private("0000:00:14.0") && !report_value_private("8086") &&
           !report_value_private("Laptop (12th Gen Intel Core)") && !report_value_private("06:00.0"),
           "report: MAC addresses, UUIDs and long hex runs are private; PCI names and IDs are not");
        ok(!report_id_allowed("serial") && !report_id_allowed("address") && report_id_allowed("vendor") &&
           report_id_allowed("firmware"), "report: identity keys by allow list (no serial, no address)");
        a = report_scrub("/srv/roots/r1", "hwdb /srv/roots/r1/etc/udev/hwdb.d/x.hwdb:3 (/srv/roots/r1) /srv/roots/r10 /srv/roots/r1");
        b = report_scrub(NULL, "profile /home/alice/p/x.profile:2, /tmp/t/home/bob/y; mac 00:1b:21:3a:4f:5e.");
        c = report_scrub("/", "/etc/idlecfg/idlecfg.conf:4");
        ok(streq(a, "hwdb /etc/udev/hwdb.d/x.hwdb:3 (/) /srv/roots/r10 /") &&
           streq(b, "profile /home/\xe2\x80\xa6/p/x.profile:2, /tmp/t/home/\xe2\x80\xa6/y; mac [private].") &&
           streq(c, "/etc/idlecfg/idlecfg.conf:4"),
           "report: the root's path taken out, user names after /home/ cut, MAC addresses masked (%s | %s)", a, b);
}

/* the manifest's dropped-words (an earlier profile's words the boot
 * entries still hold): read and written back; anything that is no
 * kernel parameter words refused, as is the line given twice */
static void test_manifest_dropped_words(void)
{
        static const char *const head = "idlecfg-manifest 2\nversion 0.1\nprofile balanced\nfingerprint ab\n";
        _cleanup_free_ char *good_body = xasprintf("%sdropped-words pcie_aspm.policy=powersupersave\\x20a=1\n",
                                                   head);
        _cleanup_free_ char *good = with_end(good_body, "");
        _cleanup_free_ char *quote_body = xasprintf("%sdropped-words a=\"x\n", head);
        _cleanup_free_ char *quote = with_end(quote_body, "");
        _cleanup_free_ char *twice_body = xasprintf("%sdropped-words a=1\ndropped-words b=2\n", head);
        _cleanup_free_ char *twice = with_end(twice_body, "");
        _cleanup_free_ char *m_quote = NULL, *m_twice = NULL, *text = NULL;
        struct manifest *m = NULL;
        struct xerror e = {};
        int r = manifest_parse("M", good, strlen(good), &m, &e);
        bool fine;

        ok(r == 0 && m->dropped_words && streq(m->dropped_words, "pcie_aspm.policy=powersupersave a=1") &&
           (text = manifest_format(m)) && strstr(text, "\ndropped-words pcie_aspm.policy=powersupersave\\x20a=1\n"),
           "manifest dropped-words: read, and written back as it was");
        manifest_free(r < 0 ? NULL : m);
        xerror_done(&e);
        fine = parse_state(false, quote, &m_quote) == -EINVAL && m_quote &&
               startswith(m_quote, "M:5: not kernel parameters: ") &&
               parse_state(false, twice, &m_twice) == -EINVAL && m_twice &&
               streq(m_twice, "M:6: \"dropped-words\" given twice");
        ok(fine, "manifest dropped-words: a quote in a word refused, the line twice refused");
        if (!fine)
                printf("# %s\n# %s\n", strempty(m_quote), strempty(m_twice));
}

/* the host question, asked once: rootfs_open() says whether the root is
 * this machine's "/" (NULL, "" and "/"), and every layer reads rfs->host */
static void test_rootfs_host(void)
{
        char dir[] = "/tmp/idlecfg-unit.XXXXXX";
        const char *hosts[] = { NULL, "", "/" };
        bool fine = true;

        for (size_t i = 0; i < ELEMENTSOF(hosts); i++) {
                struct rootfs rfs = {};
                fine = fine && rootfs_open(hosts[i], &rfs) == 0 && rfs.host;
                rootfs_close(&rfs);
        }
        if (mkdtemp(dir)) {
                struct rootfs rfs = {};
                fine = fine && rootfs_open(dir, &rfs) == 0 && !rfs.host;
                rootfs_close(&rfs);
                (void) rmdir(dir);
        } else
                fine = false;
        ok(fine, "rootfs_open: NULL, \"\" and \"/\" are the host, a directory is not (rfs->host)");
}

int main(void)
{
        test_sha256();
        test_json();
        test_json_milli();
        test_read_attr();
        test_kernel_upstream_running();
        test_dangling_links();
        test_lstat_in();
        test_parse_selected();
        test_kv();
        test_knob_declarations();
        test_state_records();
        test_manifest_dropped_words();
        test_report_rules();
        test_rootfs_host();
        printf("1..%d\n", n);
        return failed ? 1 : 0;
}
