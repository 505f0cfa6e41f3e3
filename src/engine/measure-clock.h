/* measure-clock.h: the clock measure waits on, real or driven by a test */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* A clock the tests can drive: now() in microseconds (monotonic) and wait(),
 * which returns when MS have passed (or when the test says so). NULL members:
 * CLOCK_MONOTONIC and nanosleep. */
struct measure_clock {
        uint64_t (*now)(void *userdata);
        int (*wait)(unsigned ms, void *userdata);
        void *userdata;
};
/* IDLECFG_TEST_CLOCK=DIR (tests only): now() is DIR/now (milliseconds; 0 when
 * absent); wait() writes its sequence number and MS into DIR/waiting and
 * returns when the test has removed the file (after at most 120 s: -ETIMEDOUT).
 * Returns false (and leaves C alone) without the variable. */
bool measure_clock_from_env(struct measure_clock *c);
uint64_t measure_now(const struct measure_clock *c);
int measure_wait(const struct measure_clock *c, unsigned ms);
