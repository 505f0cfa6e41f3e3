/* tests/slow-open.c: an LD_PRELOAD library for tests/fleet-check.sh: an
 * open() of a path that contains $IDLECFG_SLOW_OPEN sleeps 60 seconds
 * first (a sysfs read that hangs), then passes the call on
 * (dlsym(RTLD_NEXT): umockdev's preload library, loaded after it). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void maybe_hang(const char *path)
{
        const char *slow = getenv("IDLECFG_SLOW_OPEN");

        if (slow && *slow && path && strstr(path, slow))
                sleep(60);
}

#define WRAP(name)                                                                      \
        int name(const char *path, int flags, ...)                                      \
        {                                                                               \
                static int (*next)(const char *, int, ...);                             \
                mode_t mode = 0;                                                        \
                if (flags & (O_CREAT | O_TMPFILE)) {                                    \
                        va_list ap;                                                     \
                        va_start(ap, flags);                                            \
                        mode = va_arg(ap, mode_t);                                      \
                        va_end(ap);                                                     \
                }                                                                       \
                if (!next)                                                              \
                        next = (int (*)(const char *, int, ...)) dlsym(RTLD_NEXT, #name); \
                maybe_hang(path);                                                       \
                return next(path, flags, mode);                                         \
        }
WRAP(open)
WRAP(open64)
