/* tests/count-calls.c: an LD_PRELOAD library for tests/refresh-once.sh. It
 * passes every call on (dlsym(RTLD_NEXT)) and appends one line per call to
 * the file $IDLECFG_COUNT_CALLS: "udev_enumerate_scan_devices" (an
 * enumeration of /sys through libudev: detect), "kmod_new" and
 * "kmod_load_resources" (the module index). Loaded after umockdev's
 * preload library, which leaves libudev and libkmod alone. idlecfg opens
 * libudev and libkmod with dlopen() and takes their functions with
 * dlsym(handle, name), which a preloaded definition does not interpose:
 * dlsym() itself is wrapped, and hands out the counting functions below. */
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

static int (*real_udev_enumerate_scan_devices)(void *);

int udev_enumerate_scan_devices(void *e)
{
        if (!real_udev_enumerate_scan_devices)
                real_udev_enumerate_scan_devices = (int (*)(void *)) next("udev_enumerate_scan_devices");
        count("udev_enumerate_scan_devices");
        return real_udev_enumerate_scan_devices(e);
}

static void *(*real_kmod_new)(const char *, const char *const *);
static int (*real_kmod_load_resources)(void *);

void *kmod_new(const char *dirname, const char *const *config_paths)
{
        if (!real_kmod_new)
                real_kmod_new = (void *(*)(const char *, const char *const *)) next("kmod_new");
        count("kmod_new");
        return real_kmod_new(dirname, config_paths);
}

int kmod_load_resources(void *ctx)
{
        if (!real_kmod_load_resources)
                real_kmod_load_resources = (int (*)(void *)) next("kmod_load_resources");
        count("kmod_load_resources");
        return real_kmod_load_resources(ctx);
}

/* the real dlsym(), by version: glibc 2.34 moved it into libc */
static void *real_dlsym(void *handle, const char *name)
{
        static void *(*real)(void *, const char *);

        if (!real)
                real = (void *(*)(void *, const char *)) dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (!real)
                real = (void *(*)(void *, const char *)) dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
        if (!real)
                abort();
        return real(handle, name);
}

void *dlsym(void *handle, const char *name)
{
        void *f = real_dlsym(handle, name);

        if (!f || handle == RTLD_NEXT || handle == RTLD_DEFAULT)
                return f;
        if (strcmp(name, "udev_enumerate_scan_devices") == 0) {
                real_udev_enumerate_scan_devices = (int (*)(void *)) f;
                return (void *) udev_enumerate_scan_devices;
        }
        if (strcmp(name, "kmod_new") == 0) {
                real_kmod_new = (void *(*)(const char *, const char *const *)) f;
                return (void *) kmod_new;
        }
        if (strcmp(name, "kmod_load_resources") == 0) {
                real_kmod_load_resources = (int (*)(void *)) f;
                return (void *) kmod_load_resources;
        }
        return f;
}
