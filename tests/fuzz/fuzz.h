/* tests/fuzz/fuzz.h: what the fuzz targets share: the entry point, invariant checks, a scratch directory */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Every target is one LLVMFuzzerTestOneInput(). Built with clang
 * -fsanitize=fuzzer it is a libFuzzer binary (make fuzz); built with
 * fuzz-main.c it replays its seed corpus and regression inputs under make
 * check. A target returns 0 for every input: the library may refuse one,
 * but it must not crash, leak, hang or break an invariant, and a broken
 * invariant is an abort() with the reason on stderr.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define fuzz_assert(cond, fmt, ...)                                                              \
        do {                                                                                     \
                if (!(cond)) {                                                                   \
                        fprintf(stderr, "fuzz: %s:%d: %s: " fmt "\n", __FILE__, __LINE__, #cond, \
                                ##__VA_ARGS__);                                                  \
                        abort();                                                                 \
                }                                                                                \
        } while (0)

static int fuzz_rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
        (void) st, (void) type, (void) ftw;
        remove(path);
        return 0;
}

static int fuzz_rm_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
        (void) st, (void) ftw;
        if (type != FTW_DP && type != FTW_D)
                unlink(path);
        return 0;
}

static char *fuzz_scratch;

static void fuzz_scratch_remove(void)
{
        if (fuzz_scratch)
                nftw(fuzz_scratch, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* One directory for the whole process, removed at exit: targets whose
 * library entry points read files write the input there. In /dev/shm when
 * there is one: a disk file system makes creating and deleting files the
 * slowest part of a run. */
static __attribute__((unused)) const char *fuzz_scratch_dir(void)
{
        static char path[4096];
        const char *tmp = getenv("FUZZ_TMPDIR");

        if (fuzz_scratch)
                return fuzz_scratch;
        if (!tmp || !*tmp)
                tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
        snprintf(path, sizeof(path), "%s/idlecfg-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(path)) {
                perror("fuzz: mkdtemp");
                abort();
        }
        fuzz_scratch = path;
        atexit(fuzz_scratch_remove);
        return fuzz_scratch;
}

/* mkdir -p of PATH's parent directories */
static __attribute__((unused)) void fuzz_mkdir_parents(const char *path)
{
        char buf[4096];

        snprintf(buf, sizeof(buf), "%s", path);
        for (char *p = buf + 1; (p = strchr(p, '/')); p++) {
                *p = '\0';
                if (access(buf, F_OK) < 0 && mkdir(buf, 0755) < 0 && errno != EEXIST) {
                        fprintf(stderr, "fuzz: mkdir %s: %s\n", buf, strerror(errno));
                        abort();
                }
                *p = '/';
        }
}

/* write LEN bytes to PATH (created with its directories); the scratch
 * directory is ours, so any failure is the harness's and aborts */
static __attribute__((unused)) void fuzz_write_file(const char *path, const void *data, size_t len)
{
        int fd;

        fuzz_mkdir_parents(path);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) {
                fprintf(stderr, "fuzz: open %s: %s\n", path, strerror(errno));
                abort();
        }
        while (len > 0) {
                ssize_t n = write(fd, data, len);
                if (n < 0) {
                        fprintf(stderr, "fuzz: write %s: %s\n", path, strerror(errno));
                        abort();
                }
                data = (const char *) data + n;
                len -= (size_t) n;
        }
        close(fd);
}

/* Remove the files the previous input left below DIR; the directories stay
 * for the next one. */
static __attribute__((unused)) void fuzz_clear_dir(const char *dir)
{
        char buf[4096];

        nftw(dir, fuzz_rm_file, 16, FTW_DEPTH | FTW_PHYS);
        snprintf(buf, sizeof(buf), "%s/", dir);
        fuzz_mkdir_parents(buf);
}

/* Split DATA at lines that start with MARKER: part[0] is what comes before
 * the first marker line, part[i] the text after the i-th marker line, with
 * hdr[i] pointing at the rest of that marker line (hdr[0] is NULL). The
 * parts are copies, NUL-terminated (their own NULs stay: len says how long).
 * Returns the number of parts, at most MAX; later markers stay in the last part. */
struct fuzz_part {
        char *hdr;
        char *data;
        size_t len;
};

static __attribute__((unused)) size_t fuzz_split(const uint8_t *data, size_t size, const char *marker,
                                                 struct fuzz_part *parts, size_t max)
{
        size_t mlen = strlen(marker), n = 0, start = 0, hdr_start = 0, hdr_len = 0;
        int have_hdr = 0;

        for (size_t pos = 0;;) {
                /* pos is the start of a line */
                int is_marker = pos + mlen <= size && memcmp(data + pos, marker, mlen) == 0 && n + 1 < max;
                const uint8_t *nl;
                size_t next;

                if (pos >= size || is_marker) {
                        size_t end = pos;
                        /* the newline before a marker belongs to the marker */
                        if (is_marker && end > start && data[end - 1] == '\n')
                                end--;
                        parts[n].hdr = have_hdr ? strndup((const char *) data + hdr_start, hdr_len) : NULL;
                        parts[n].len = end - start;
                        parts[n].data = malloc(parts[n].len + 1);
                        if (!parts[n].data || (have_hdr && !parts[n].hdr))
                                abort();
                        memcpy(parts[n].data, data + start, parts[n].len);
                        parts[n].data[parts[n].len] = '\0';
                        n++;
                        if (pos >= size)
                                return n;
                }
                nl = memchr(data + pos, '\n', size - pos);
                next = nl ? (size_t) (nl - data) + 1 : size;
                if (is_marker) {
                        have_hdr = 1;
                        hdr_start = pos + mlen;
                        hdr_len = next - hdr_start - (nl ? 1 : 0);
                        start = next;
                }
                pos = next;
        }
}

static __attribute__((unused)) void fuzz_parts_free(struct fuzz_part *parts, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(parts[i].hdr);
                free(parts[i].data);
        }
}
