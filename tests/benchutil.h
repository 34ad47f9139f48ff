/* benchutil.h - timing for the benchmarks: a monotonic clock and a loop
 * that repeats a call until enough time has passed to trust the rate. */
#ifndef CM_BENCHUTIL_H
#define CM_BENCHUTIL_H

#include <time.h>

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* This process's CPU time: the figure to compare runs by on a machine
 * other work shares (wall time counts the others' share too). */
static inline double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Calls fn(arg) in batches until `seconds` have passed; returns calls/s. */
static inline double bench_rate(void (*fn)(void *), void *arg, double seconds)
{
    long calls = 0, batch = 1;
    double t0 = bench_now(), t;
    do {
        for (long i = 0; i < batch; i++) fn(arg);
        calls += batch;
        if (batch < (1L << 20)) batch *= 2;
        t = bench_now();
    } while (t - t0 < seconds);
    return (double)calls / (t - t0);
}

#endif
