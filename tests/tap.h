/* tests/tap.h: TAP output for the C unit tests (one test program includes it once) */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int n, failed;

/* one test point; returns cond so a caller can add diagnostics */
static bool ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3), unused));
static bool ok(bool cond, const char *fmt, ...)
{
        va_list ap;

        n++;
        printf("%sok %d - ", cond ? "" : "not ", n);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
        if (!cond)
                failed++;
        return cond;
}
