/* tests/bench/timeit.c: run a command once, its output to /dev/null, and
 * print "WALL_US MAXRSS_KIB EXIT CPU_US" of that run (wall clock; peak RSS
 * and user + system CPU time of the child from wait4()). On a loaded machine
 * the wall clock mostly measures the wait for a CPU; CPU time does not. Usage: timeit CMD [ARGS...]
 * TIMEIT_OUT names a file for the command's output instead of /dev/null: under
 * umockdev /dev/null is an emulated terminal, and a long output blocks on it. */
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
        struct timespec a, b;
        struct rusage ru;
        pid_t pid;
        int status;

        if (argc < 2) {
                fputs("Usage: timeit CMD [ARGS...]\n", stderr);
                return 2;
        }
        clock_gettime(CLOCK_MONOTONIC, &a);
        pid = fork();
        if (pid < 0)
                return 3;
        if (pid == 0) {
                const char *out = getenv("TIMEIT_OUT");
                int fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
                if (fd >= 0) {
                        dup2(fd, 1);
                        dup2(fd, 2);
                }
                execvp(argv[1], argv + 1);
                _exit(127);
        }
        if (wait4(pid, &status, 0, &ru) < 0)
                return 3;
        clock_gettime(CLOCK_MONOTONIC, &b);
        printf("%lld %ld %d %lld\n", (long long) (b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000,
               ru.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128,
               (long long) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
        return 0;
}
