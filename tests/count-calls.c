/* tests/count-calls.c: an LD_PRELOAD library for tests/refresh-once.sh. It
 * passes every call on (dlsym(RTLD_NEXT)) and appends one line per call to
 * the file $IDLECFG_COUNT_CALLS: "udev_enumerate_scan_devices" (an
 * enumeration of /sys through libudev: detect), "kmod_new" and
 * "kmod_load_resources" (the module index). Loaded after umockdev's
 * preload library, which leaves libudev and libkmod alone. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void count(const char *what)
{
        const char *file = getenv("IDLECFG_COUNT_CALLS");
        int saved = errno, fd;

        if (!file)
                return;
        fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) {
                (void) !write(fd, what, strlen(what));
                (void) !write(fd, "\n", 1);
                close(fd);
        }
        errno = saved;
}

static void *next(const char *name)
{
        void *f = dlsym(RTLD_NEXT, name);

        if (!f)
                abort();
        return f;
}

int udev_enumerate_scan_devices(void *e)
{
        static int (*real)(void *);

        if (!real)
                real = (int (*)(void *)) next("udev_enumerate_scan_devices");
        count("udev_enumerate_scan_devices");
        return real(e);
}

void *kmod_new(const char *dirname, const char *const *config_paths)
{
        static void *(*real)(const char *, const char *const *);

        if (!real)
                real = (void *(*)(const char *, const char *const *)) next("kmod_new");
        count("kmod_new");
        return real(dirname, config_paths);
}

int kmod_load_resources(void *ctx)
{
        static int (*real)(void *);

        if (!real)
                real = (int (*)(void *)) next("kmod_load_resources");
        count("kmod_load_resources");
        return real(ctx);
}
