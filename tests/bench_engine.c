/* bench_engine.c - event-engine throughput with ~10k events pending.
 *
 * Each event reschedules itself at a pseudo-random delay (1..1024 cycles,
 * an xorshift, so the heap sees a realistic mix of near and far events), so
 * one executed event is one pop plus one push on a heap of 10,000. */
#include <stdint.h>
#include <stdio.h>

#include "sim/engine.h"
#include "tests/benchutil.h"

#define PENDING 10000
#define BATCH 4096

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void reschedule(cm_engine *eng, void *obj, uint64_t arg)
{
    cm_engine_schedule(eng, 1 + (xorshift(obj) & 1023), reschedule, obj, arg);
}

static void run_batch(void *p)
{
    cm_engine_run(p, UINT64_MAX, BATCH, NULL, NULL);
}

void bench_engine(void)
{
    cm_engine eng;
    uint64_t seed = 88172645463325252ULL;
    if (cm_engine_init(&eng, PENDING, NULL) != CM_OK) return;
    for (uint64_t i = 0; i < PENDING; i++)
        cm_engine_schedule(&eng, xorshift(&seed) & 1023, reschedule, &seed, i);
    double rate = bench_rate(run_batch, &eng, 1.0) * BATCH;
    printf("engine.events  %.1f Mevents/s  (%d pending, %.1f ns/event)\n",
           rate / 1e6, PENDING, 1e9 / rate);
    cm_engine_free(&eng);
}
