/* fault.c: fault injection for the tests, and SIGTERM and SIGINT that wait for a commit */
#include "config.h"

#include <limits.h>
#include <signal.h>

#include "base/fault.h"
#include "base/util.h"

/* ---- fault injection ---- */

static struct {
        bool init;
        enum { FAULT_NONE, FAULT_KILL, FAULT_FAIL, FAULT_TERM } kind;
        unsigned long at;
        int error;
        unsigned long count, matched;
        const char *count_file;
        char filter[64];        /* only fault points whose name starts with it count */
} fault;

static void fault_count_write(void)
{
        FILE *f = fopen(fault.count_file, "ae");
        if (f) {
                fprintf(f, "%lu\n", fault.count);
                fclose(f);
        }
}

static void fault_init(void)
{
        static const struct { const char *name; int error; } errors[] = {
                { "EIO", EIO }, { "ENOSPC", ENOSPC }, { "EINVAL", EINVAL }, { "EOPNOTSUPP", EOPNOTSUPP },
                { "EBUSY", EBUSY }, { "EROFS", EROFS }, { "EACCES", EACCES },
        };
        const char *s = secure_getenv("IDLECFG_FAULT");
        char *end;

        fault.init = true;
        fault.count_file = secure_getenv("IDLECFG_FAULT_COUNT");
        if (fault.count_file && *fault.count_file)
                atexit(fault_count_write);
        if (!s || !*s)
                return;
        if (startswith(s, "kill:"))
                fault.kind = FAULT_KILL, s += 5;
        else if (startswith(s, "fail:"))
                fault.kind = FAULT_FAIL, s += 5;
        else if (startswith(s, "term:"))
                fault.kind = FAULT_TERM, s += 5;
        else
                return;
        fault.at = strtoul(s, &end, 10);
        fault.error = EIO;
        if (*end == ':') {
                const char *name = end + 1, *colon = strchr(name, ':');
                size_t n = colon ? (size_t) (colon - name) : strlen(name);
                for (size_t i = 0; i < ELEMENTSOF(errors); i++)
                        if (strlen(errors[i].name) == n && strncmp(name, errors[i].name, n) == 0)
                                fault.error = errors[i].error;
                if (colon)
                        snprintf(fault.filter, sizeof(fault.filter), "%s", colon + 1);
        }
}

int fault_point(const char *what)
{
        if (!fault.init)
                fault_init();
        fault.count++;
        if (fault.kind == FAULT_NONE || !startswith(what, fault.filter))
                return 0;
        if (++fault.matched != fault.at)
                return 0;
        if (fault.kind == FAULT_KILL) {
                fprintf(stderr, "idlecfg: injected kill at fault point %lu (%s)\n", fault.matched, what);
                raise(SIGKILL);
        }
        if (fault.kind == FAULT_TERM) {
                /* as if SIGTERM came now: the handler ends the run, or defers to the commit's end */
                fprintf(stderr, "idlecfg: injected SIGTERM at fault point %lu (%s)\n", fault.matched, what);
                raise(SIGTERM);
                return 0;
        }
        fprintf(stderr, "idlecfg: injected %s at fault point %lu (%s)\n", strerror(fault.error), fault.matched, what);
        return -fault.error;
}

/* ---- SIGTERM and SIGINT ----
 * The handler ends the process at once, by the same signal (the parent sees
 * it: a shell's $? is 143 or 130), after it has removed the temporary file
 * of an atomic write in progress. Only the commit of a write defers it: the
 * rename of an atomic write, the journal line and the sysfs write of apply.
 * Everything before such a commit is as safe to stop as a SIGKILL is (the
 * fault tests kill at every step); the deferral only keeps a commit whole. */

static volatile sig_atomic_t defer_depth, pending_signal;
static struct {
        volatile sig_atomic_t set;
        int dirfd;
        char name[NAME_MAX + 1];
} temp_file;

static void die_by_signal(int sig)
{
        struct sigaction sa = { .sa_handler = SIG_DFL };
        sigset_t set;

        signals_temp_remove();
        (void) sigaction(sig, &sa, NULL);
        sigemptyset(&set);
        sigaddset(&set, sig);
        (void) sigprocmask(SIG_UNBLOCK, &set, NULL);
        (void) raise(sig);
        _exit(128 + sig);
}

static void on_signal(int sig)
{
        if (defer_depth > 0) {
                pending_signal = sig;
                return;
        }
        die_by_signal(sig);
}

void signals_setup(void)
{
        static const int sigs[] = { SIGTERM, SIGINT };
        struct sigaction sa = { .sa_handler = on_signal }, old;

        sigemptyset(&sa.sa_mask);
        sigaddset(&sa.sa_mask, SIGTERM);
        sigaddset(&sa.sa_mask, SIGINT);
        for (size_t i = 0; i < ELEMENTSOF(sigs); i++) {
                /* ignored when we started (a background job of a script): stays ignored */
                if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
                        continue;
                (void) sigaction(sigs[i], &sa, NULL);
        }
}

void signals_defer(void)
{
        defer_depth++;
}

void signals_undefer(void)
{
        if (defer_depth > 0 && --defer_depth == 0 && pending_signal)
                die_by_signal(pending_signal);
}

void signals_temp_register(int dirfd, const char *name)
{
        temp_file.set = 0;
        temp_file.dirfd = dirfd;
        snprintf(temp_file.name, sizeof(temp_file.name), "%s", name);
        temp_file.set = 1;
}

void signals_temp_forget(void)
{
        temp_file.set = 0;
}

void signals_temp_remove(void)
{
        if (temp_file.set)
                (void) unlinkat(temp_file.dirfd, temp_file.name, 0);
}
