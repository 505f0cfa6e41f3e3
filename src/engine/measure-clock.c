/* measure-clock.c: the clock measure waits on: CLOCK_MONOTONIC and
 * nanosleep, or the one a test drives (IDLECFG_TEST_CLOCK) */
#include "config.h"

#include <time.h>

#include "engine/measure-clock.h"
#include "base/util.h"

static uint64_t mono_now(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

uint64_t measure_now(const struct measure_clock *c)
{
        return c && c->now ? c->now(c->userdata) : mono_now();
}

int measure_wait(const struct measure_clock *c, unsigned ms)
{
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000L };

        if (c && c->wait)
                return c->wait(ms, c->userdata);
        while (nanosleep(&ts, &ts) < 0)
                if (errno != EINTR)
                        return -errno;
        return 0;
}

static uint64_t test_now(void *userdata)
{
        _cleanup_free_ char *v = NULL;

        if (read_attr(userdata, "now", &v) < 0)
                return 0;
        return strtoull(v, NULL, 10) * 1000u;
}

static int test_wait(unsigned ms, void *userdata)
{
        static unsigned seq;
        _cleanup_free_ char *path = xasprintf("%s/waiting", (const char *) userdata);
        _cleanup_free_ char *tmp = xasprintf("%s/.waiting", (const char *) userdata);
        FILE *f = fopen(tmp, "we");

        if (!f)
                return -errno;
        fprintf(f, "%u %u\n", ++seq, ms);
        if (fclose(f) != 0 || rename(tmp, path) < 0)
                return -errno;
        for (unsigned i = 0; i < 12000; i++) {
                if (access(path, F_OK) < 0)
                        return 0;
                nanosleep(&(struct timespec) { .tv_nsec = 10 * 1000 * 1000 }, NULL);
        }
        return -ETIMEDOUT;
}

bool measure_clock_from_env(struct measure_clock *c)
{
        const char *dir = secure_getenv("IDLECFG_TEST_CLOCK");

        if (!dir || !*dir)
                return false;
        *c = (struct measure_clock) { .now = test_now, .wait = test_wait, .userdata = (void *) dir };
        return true;
}
