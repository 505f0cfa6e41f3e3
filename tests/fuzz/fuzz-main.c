/* tests/fuzz/fuzz-main.c: run a fuzz target on its seed corpus and regression inputs, as TAP, without libFuzzer */
#include "config.h"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>

#include "fuzz.h"
#include "base/util.h"

/*
 * Usage: fuzz-NAME [FILE|DIR...]
 *
 * Without arguments, fuzz-NAME replays tests/fuzz/NAME/ (the seed corpus,
 * which must not be empty) and tests/fuzz/regress/NAME/ (inputs that once
 * crashed, leaked or hung, if any) below $top_srcdir. Every input runs in a
 * child process of its own, so that one crash or sanitizer report names its
 * file and the others still run; a child that takes longer than
 * $FUZZ_REPLAY_TIMEOUT seconds (default 60) is a hang. One test point per input.
 */

static int n_tests, n_failed;
static char *corpus_prefix;     /* "$top_srcdir/tests/fuzz/", left out of test names */

static void result(bool ok, const char *path, const char *why)
{
        if (corpus_prefix && startswith(path, corpus_prefix))
                path += strlen(corpus_prefix);
        n_tests++;
        if (!ok)
                n_failed++;
        printf("%sok %d - %s%s%s\n", ok ? "" : "not ", n_tests, path, why ? ": " : "", why ? why : "");
        fflush(stdout);
}

static int read_input(const char *path, uint8_t **ret, size_t *ret_len)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct strbuf sb = {};
        char buf[65536];

        if (fd < 0)
                return -errno;
        for (;;) {
                ssize_t n = read(fd, buf, sizeof(buf));
                if (n < 0) {
                        int r = -errno;
                        sb_free(&sb);
                        return r;
                }
                if (n == 0)
                        break;
                sb_appendn(&sb, buf, (size_t) n);
        }
        *ret_len = sb.len;
        *ret = (uint8_t *) sb_steal(&sb);
        return 0;
}

static void run_one(const char *path, unsigned timeout)
{
        _cleanup_free_ char *why = NULL;
        int status;
        pid_t pid;

        fflush(stdout);
        pid = fork();
        if (pid < 0) {
                why = xasprintf("fork: %s", strerror(errno));
                result(false, path, why);
                return;
        }
        if (pid == 0) {
                uint8_t *data = NULL, *copy;
                size_t len = 0;
                int r = read_input(path, &data, &len);

                if (r < 0) {
                        fprintf(stderr, "fuzz: cannot read %s: %s\n", path, strerror(-r));
                        _exit(3);
                }
                /* exactly LEN bytes, as libFuzzer hands them: a read past the
                 * end is a heap overflow for ASan and valgrind, not a NUL */
                copy = xmalloc(len ? len : 1);
                memcpy(copy, data, len);
                free(data);
                alarm(timeout);
                LLVMFuzzerTestOneInput(copy, len);
                free(copy);
                /* exit(), not _exit(): LeakSanitizer checks at exit */
                exit(0);
        }
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR) {
                        why = xasprintf("waitpid: %s", strerror(errno));
                        result(false, path, why);
                        return;
                }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                result(true, path, NULL);
        else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
                why = xasprintf("hang: no result after %u s", timeout);
        else if (WIFSIGNALED(status))
                why = xasprintf("killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
        else
                why = xasprintf("exit status %d (a sanitizer report or a broken invariant: see above)",
                                WEXITSTATUS(status));
        if (why)
                result(false, path, why);
}

/* the regular files of DIR, sorted; -ENOENT if there is no such directory */
static int list_dir(const char *dir, char ***ret, size_t *ret_n)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        char **v = NULL;
        size_t n = 0;

        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                _cleanup_free_ char *path = NULL;
                struct stat st;

                if (de->d_name[0] == '.')
                        continue;
                path = xasprintf("%s/%s", dir, de->d_name);
                if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
                        continue;
                v = xrealloc(v, (n + 1) * sizeof(*v));
                v[n++] = TAKE_PTR(path);
        }
        closedir(d);
        if (n > 1)
                qsort(v, n, sizeof(*v), strv_cmp);
        *ret = v;
        *ret_n = n;
        return 0;
}

/* every file of DIR; MUST: a missing or empty directory is a failure */
static void run_dir(const char *dir, bool must, unsigned timeout)
{
        char **files = NULL;
        size_t n = 0;
        int r = list_dir(dir, &files, &n);

        if (r < 0 && (must || r != -ENOENT)) {
                _cleanup_free_ char *why = xasprintf("cannot read the directory: %s", strerror(-r));
                result(false, dir, why);
                return;
        }
        if (n == 0 && must)
                result(false, dir, "no inputs: the seed corpus is empty");
        for (size_t i = 0; i < n; i++) {
                run_one(files[i], timeout);
                free(files[i]);
        }
        free(files);
}

int main(int argc, char **argv)
{
        const char *base = strrchr(argv[0], '/'), *name, *top = getenv("top_srcdir"), *t;
        unsigned timeout = 60;

        base = base ? base + 1 : argv[0];
        name = startswith(base, "fuzz-") ? base + strlen("fuzz-") : base;
        t = getenv("FUZZ_REPLAY_TIMEOUT");
        if (t && atoi(t) > 0)
                timeout = (unsigned) atoi(t);

        if (argc > 1) {
                for (int i = 1; i < argc; i++) {
                        struct stat st;
                        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
                                run_dir(argv[i], false, timeout);
                        else
                                run_one(argv[i], timeout);
                }
        } else {
                _cleanup_free_ char *seeds = NULL, *regress = NULL;

                if (!top) {
                        fprintf(stderr, "usage: %s [FILE|DIR...] (or set top_srcdir to replay tests/fuzz/%s)\n",
                                base, name);
                        return 2;
                }
                corpus_prefix = xasprintf("%s/tests/fuzz/", top);
                seeds = xasprintf("%s/tests/fuzz/%s", top, name);
                regress = xasprintf("%s/tests/fuzz/regress/%s", top, name);
                run_dir(seeds, true, timeout);
                run_dir(regress, false, timeout);
                free(corpus_prefix);
        }
        printf("1..%d\n", n_tests);
        return n_failed > 0;
}
