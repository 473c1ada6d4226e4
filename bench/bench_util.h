/* bench_util: what the benchmarks share: a clock and a repeatable random stream. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdint.h>
#include <time.h>

/* Seconds on the given clock (CLOCK_MONOTONIC for wall time, CLOCK_THREAD_CPUTIME_ID
 * for what one core did on a loaded machine). */
static inline double bench_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* xorshift64: uniform in [0, 1), the same sequence every run. */
static inline double bench_urand(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

#endif
