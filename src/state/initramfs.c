/* initramfs.c: whether modprobe.d/idlecfg.conf calls for the initramfs to be
 * made again. The initramfs holds a copy of modprobe.d for the modules it
 * loads; a module it does not hold loads from the root, with the root's
 * modprobe.d. Making it again (update-initramfs, dracut) is the longest step
 * of a first boot, and needless for modules such as snd_hda_intel that no
 * initramfs generator takes in: so the list of the initramfs decides. */
#include "config.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "state/initramfs.h"
#include "state/manifest.h"
#include "root/target.h"
#include "root/targets.h"

extern char **environ;

#define MODPROBE_MAX (1u << 20)

char *initramfs_of(const struct rootfs *rfs, const char *kernel)
{
        char *forms[3];
        char *found = NULL;

        if (!kernel)
                return NULL;
        forms[0] = xasprintf("/boot/initrd.img-%s", kernel);
        forms[1] = xasprintf("/boot/initramfs-%s.img", kernel);
        forms[2] = xasprintf("/boot/initrd-%s", kernel);
        for (size_t i = 0; i < ELEMENTSOF(forms); i++) {
                _cleanup_close_ int fd = found ? -1 : rootfs_openat(rfs, forms[i], O_PATH | O_CLOEXEC);
                if (fd >= 0)
                        found = TAKE_PTR(forms[i]);
                free(forms[i]);
        }
        return found;
}

/* can an initramfs be listed here: only on the running system (tests:
 * through their program, IDLECFG_TEST_TAKE_EFFECT) */
static bool listed_here(const struct rootfs *rfs)
{
        const char *t = secure_getenv("IDLECFG_TEST_TAKE_EFFECT");

        return (t && *t) || target_is_running_system(rfs);
}

/* a module name as modprobe compares them: '-' and '_' alike */
static void normalize(char *name)
{
        for (char *p = name; *p; p++)
                if (*p == '-')
                        *p = '_';
}

/* the modules of the "options" lines of TEXT, each once, a NULL-terminated list */
static char **option_modules(char *text, size_t *ret_n)
{
        char **v = NULL;
        size_t n = 0;

        for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                char *w = l + strspn(l, " \t");
                size_t len;
                bool seen = false;

                if (!startswith(w, "options") || !strchr(" \t", w[strlen("options")]) || !w[strlen("options")])
                        continue;
                w += strlen("options");
                w += strspn(w, " \t");
                len = strcspn(w, " \t");
                if (!len)
                        continue;
                w = xstrndup(w, len);
                normalize(w);
                for (size_t i = 0; i < n && !seen; i++)
                        seen = streq(v[i], w);
                if (seen) {
                        free(w);
                        continue;
                }
                v = xrealloc(v, (n + 2) * sizeof(char *));
                v[n++] = w;
                v[n] = NULL;
        }
        *ret_n = n;
        return v;
}

static void list_free(char **v)
{
        for (char **p = v; p && *p; p++)
                free(*p);
        free(v);
}

/* the module a line of the listing names ("usr/lib/modules/K/kernel/.../snd-hda-intel.ko.xz",
 * or lsinitrd's "ls -l" form), normalized, or NULL */
static char *module_of_line(const char *line)
{
        static const char *const suffixes[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };
        const char *base = strrchr(line, '/');
        size_t len;

        base = base ? base + 1 : line;
        len = strcspn(base, " \t\n");
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                size_t s = strlen(suffixes[i]);
                if (len > s && strncmp(base + len - s, suffixes[i], s) == 0) {
                        char *m = xstrndup(base, len - s);
                        normalize(m);
                        return m;
                }
        }
        return NULL;
}

/* the first of NAMES that is an executable file, or NULL */
static const char *find_lister(void)
{
        static const char *const names[] = { "/usr/sbin/lsinitramfs", "/sbin/lsinitramfs", "/usr/bin/lsinitramfs",
                                             "/usr/bin/lsinitrd", "/usr/sbin/lsinitrd", NULL };

        for (const char *const *p = names; *p; p++)
                if (access(*p, X_OK) == 0)
                        return *p;
        return NULL;
}

/* list IMG (a path of the running system), each line of the listing to
 * LINE; false when it cannot be listed */
static bool list_initramfs(const char *img, void (*line_cb)(const char *line, void *userdata), void *userdata)
{
        const char *t = secure_getenv("IDLECFG_TEST_TAKE_EFFECT");
        const char *lister = find_lister();
        posix_spawn_file_actions_t fa;
        char *argv[4];
        size_t n = 0;
        int p[2], status, r;
        pid_t pid;
        FILE *f;
        char *line = NULL;
        size_t cap = 0;

        if (t && *t) {
                /* tests: the program gets the lister's command line and prints a listing */
                argv[n++] = (char *) t;
                argv[n++] = (char *) (lister ? lister : "/usr/sbin/lsinitramfs");
        } else if (lister)
                argv[n++] = (char *) lister;
        else
                return false;
        argv[n++] = (char *) img;
        argv[n] = NULL;
        if (pipe2(p, O_CLOEXEC) < 0)
                return false;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
        r = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        close(p[1]);
        if (r != 0) {
                close(p[0]);
                return false;
        }
        f = fdopen(p[0], "r");
        if (!f)
                close(p[0]);
        while (f && getline(&line, &cap, f) >= 0)
                line_cb(line, userdata);
        free(line);
        if (f)
                fclose(f);
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return false;
        return f && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

struct found_modules {
        char **modules;
        bool *found;
};

/* mark which of the modules a line of the listing holds */
static void line_modules(const char *line, void *userdata)
{
        struct found_modules *fm = userdata;
        _cleanup_free_ char *m = module_of_line(line);

        for (size_t i = 0; m && fm->modules[i]; i++)
                if (streq(m, fm->modules[i]))
                        fm->found[i] = true;
}

/* The verdict of a listing is kept in the state directory (INITRAMFS_CACHE_PATH), for
 * the verify and quiet refresh of every later boot: the initramfs stays older
 * than the options when it was not made again. Its key is everything the
 * verdict depends on: the kernel, the initramfs's path, size, mtime and inode,
 * the modules of the options; a file that does not start with the key of now
 * (another initramfs, or damaged) is listed again and rewritten. A cache: no
 * fsync, and a failure to read or write it is no failure of the run. */
#define CACHE_MAX 65536u
#define CACHE_HEADER "idlecfg-initramfs-cache 1\n"

static bool cache_write_allowed = true;

void initramfs_cache_readonly(void)
{
        cache_write_allowed = false;
}

/* The cache's path holds what idlecfg neither reads nor replaces (a FIFO, a
 * directory, a link: R is the reader's or the writer's answer): one warning
 * a run naming it, for the listing it costs every time */
static void cache_occupied(const struct rootfs *rfs, int r)
{
        _cleanup_free_ char *shown = NULL, *why = NULL;

        if (r != -ELOOP && r != -EISDIR && r != -EINVAL && r != -EBADFD)
                return;
        shown = rootfs_display(rfs, INITRAMFS_CACHE_PATH);
        why = rootfs_why(rfs, INITRAMFS_CACHE_PATH, r, CACHE_MAX);
        rootfs_warn(rfs, _("%s: %s; idlecfg cannot keep its verdict on the initramfs there, and lists the "
                           "initramfs again at every verify and refresh: remove it"), shown, why);
}

/* the key: the lines the cache file starts with; NULL when a part cannot be
 * written on a line of its own */
static char *cache_key(const char *kernel, const char *img, const struct stat *st, char **modules)
{
        char *key;
        size_t len;

        if (strchr(kernel, '\n') || strchr(img, '\n'))
                return NULL;
        key = xasprintf(CACHE_HEADER "kernel %s\nimage %s\nsize %lld\nmtime %lld.%09ld\ninode %llu %llu\nmodules",
                        kernel, img, (long long) st->st_size, (long long) st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
                        (unsigned long long) st->st_dev, (unsigned long long) st->st_ino);
        len = strlen(key);
        for (char **m = modules; *m; m++) {
                key = xrealloc(key, len + strlen(*m) + 3);
                len += (size_t) sprintf(key + len, " %s", *m);
        }
        strcpy(key + len, "\n");
        return key;
}

/* the verdict the cache file holds for KEY: HOLDS or LACKS and *RET_NAMES,
 * else UNKNOWN (none, another key, damaged) */
static enum initramfs_verdict cache_read(const struct rootfs *rfs, const char *key, char **ret_names)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0, klen = strlen(key);
        enum initramfs_verdict v;
        const char *rest, *nl;
        int r;

        *ret_names = NULL;
        r = rootfs_read(rfs, INITRAMFS_CACHE_PATH, CACHE_MAX, &text, &len, NULL);
        if (r < 0) {
                cache_occupied(rfs, r);
                return INITRAMFS_UNKNOWN;
        }
        if (len <= klen || memcmp(text, key, klen) != 0 || memchr(text, 0, len))
                return INITRAMFS_UNKNOWN;
        rest = text + klen;
        if (startswith(rest, "verdict holds\n"))
                v = INITRAMFS_HOLDS;
        else if (startswith(rest, "verdict lacks\n"))
                v = INITRAMFS_LACKS;
        else
                return INITRAMFS_UNKNOWN;
        rest += strlen("verdict holds\n");
        if (!startswith(rest, "names "))
                return INITRAMFS_UNKNOWN;
        rest += strlen("names ");
        nl = strchr(rest, '\n');
        /* one line of names, the end of the file */
        if (!nl || nl[1] || nl == rest)
                return INITRAMFS_UNKNOWN;
        *ret_names = xstrndup(rest, (size_t) (nl - rest));
        return v;
}

static void cache_write(const struct rootfs *rfs, const char *key, enum initramfs_verdict v, const char *names)
{
        _cleanup_free_ char *text = NULL;
        struct stat st;

        /* the state directory is install's: never made for the cache alone */
        if (!cache_write_allowed || (v != INITRAMFS_HOLDS && v != INITRAMFS_LACKS) || !names || strchr(names, '\n') ||
            rootfs_lstat(rfs, STATE_DIR, &st) < 0 || !S_ISDIR(st.st_mode))
                return;
        text = xasprintf("%sverdict %s\nnames %s\n", key, v == INITRAMFS_HOLDS ? "holds" : "lacks", names);
        cache_occupied(rfs, rootfs_write_volatile(rfs, INITRAMFS_CACHE_PATH, text, strlen(text), 0644));
}

/* one listing per initramfs and module set in a run */
static struct {
        char *key;
        enum initramfs_verdict verdict;
        char *modules;
} cache;

enum initramfs_verdict initramfs_check(const struct rootfs *rfs, const char *kernel, char **ret_modules)
{
        _cleanup_free_ char *img = initramfs_of(rfs, kernel), *text = NULL, *key = NULL, *names = NULL;
        _cleanup_free_ bool *found = NULL;
        enum initramfs_verdict v;
        char **modules;
        struct stat st;
        size_t n = 0, len = 0;

        if (ret_modules)
                *ret_modules = NULL;
        if (!img)
                return INITRAMFS_NONE;
        if (!listed_here(rfs))
                return INITRAMFS_UNKNOWN;
        if (rootfs_read_file(rfs, MODPROBE_PATH, 0, MODPROBE_MAX, &text, NULL, NULL) < 0)
                return INITRAMFS_UNKNOWN;
        if (rootfs_lstat(rfs, img, &st) < 0)
                return INITRAMFS_UNKNOWN;
        modules = option_modules(text, &n);
        /* no option left (a file emptied by a restore): the old copy may be inside */
        if (n == 0) {
                list_free(modules);
                return INITRAMFS_UNKNOWN;
        }
        key = cache_key(kernel, img, &st, modules);
        if (key && cache.key && streq(cache.key, key)) {
                list_free(modules);
                if (ret_modules && cache.modules)
                        *ret_modules = xstrdup(cache.modules);
                return cache.verdict;
        }
        v = key ? cache_read(rfs, key, &names) : INITRAMFS_UNKNOWN;
        if (v == INITRAMFS_UNKNOWN) {
                found = xcalloc(n, sizeof(bool));
                if (list_initramfs(img, line_modules, &(struct found_modules) { modules, found })) {
                        v = INITRAMFS_LACKS;
                        for (size_t i = 0; i < n; i++)
                                if (found[i])
                                        v = INITRAMFS_HOLDS;
                        for (size_t i = 0; i < n; i++) {
                                if (v == INITRAMFS_HOLDS && !found[i])
                                        continue;
                                names = xrealloc(names, len + strlen(modules[i]) + 2);
                                len += (size_t) sprintf(names + len, "%s%s", len ? " " : "", modules[i]);
                        }
                        if (key)
                                cache_write(rfs, key, v, names);
                }
        }
        list_free(modules);
        free(cache.key);
        free(cache.modules);
        cache.key = TAKE_PTR(key);
        cache.verdict = v;
        cache.modules = names ? xstrdup(names) : NULL;
        if (ret_modules)
                *ret_modules = TAKE_PTR(names);
        return v;
}

struct found_file {
        const char *path;
        bool found;
};

/* the path a line of the listing names: its last field (lsinitrd lists as
 * ls -l does, lsinitramfs the path alone), without a leading "./" or "/" */
static void line_file(const char *line, void *userdata)
{
        struct found_file *ff = userdata;
        size_t len = strcspn(line, "\n");
        const char *p = line + len;

        while (p > line && p[-1] != ' ' && p[-1] != '\t')
                p--;
        len -= (size_t) (p - line);
        if (len >= 2 && p[0] == '.' && p[1] == '/')
                p += 2, len -= 2;
        else if (len >= 1 && p[0] == '/')
                p++, len--;
        if (len == strlen(ff->path) && strncmp(p, ff->path, len) == 0)
                ff->found = true;
}

enum initramfs_verdict initramfs_holds_file(const struct rootfs *rfs, const char *kernel, const char *path)
{
        _cleanup_free_ char *img = initramfs_of(rfs, kernel);
        struct found_file ff = { .path = path };

        if (!img)
                return INITRAMFS_NONE;
        if (!listed_here(rfs))
                return INITRAMFS_UNKNOWN;
        if (!list_initramfs(img, line_file, &ff))
                return INITRAMFS_UNKNOWN;
        return ff.found ? INITRAMFS_HOLDS : INITRAMFS_LACKS;
}

bool initramfs_may_hold_file(const struct rootfs *rfs, const char *kernel, const char *path)
{
        _cleanup_free_ char *img = NULL;
        const char *t = secure_getenv("IDLECFG_TEST_TAKE_EFFECT");

        if (!listed_here(rfs))
                return false;
        /* the tests' program stands for a listing: it tells */
        if (t && *t)
                return initramfs_holds_file(rfs, kernel, path) == INITRAMFS_HOLDS;
        /* initramfs_of() names only an image that is there */
        img = initramfs_of(rfs, kernel);
        return img != NULL;
}
