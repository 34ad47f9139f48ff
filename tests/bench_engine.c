/* bench_engine.c - event-engine throughput with ~10k events pending.
 *
 * Each event reschedules itself at a pseudo-random delay (an xorshift), so
 * one executed event is one pop plus one push with 10,000 pending.  Two
 * figures: delays of 1..1024 cycles (the simulator's mix: nearly all land
 * in the timing wheel) and of 1..16384 (most go through the heap first and
 * move into the wheel later), so neither path can regress unseen. */
#include <stdint.h>
#include <stdio.h>

#include "sim/engine.h"
#include "tests/benchutil.h"

#define PENDING 10000
#define BATCH 4096

typedef struct bench_state {
    cm_engine eng;
    uint64_t seed, mask; /* delays are 1 + (random & mask) */
} bench_state;

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void reschedule(cm_engine *eng, void *obj, uint64_t arg)
{
    bench_state *b = obj;
    cm_engine_schedule(eng, 1 + (xorshift(&b->seed) & b->mask), reschedule, b,
                       arg);
}

static void run_batch(void *p)
{
    bench_state *b = p;
    cm_engine_run(&b->eng, UINT64_MAX, BATCH, NULL, NULL);
}

static void bench_delays(const char *name, uint64_t mask)
{
    static bench_state b;
    b.seed = 88172645463325252ULL;
    b.mask = mask;
    if (cm_engine_init(&b.eng, PENDING, NULL) != CM_OK) return;
    for (uint64_t i = 0; i < PENDING; i++)
        cm_engine_schedule(&b.eng, xorshift(&b.seed) & mask, reschedule, &b, i);
    double rate = bench_rate(run_batch, &b, 1.0) * BATCH;
    printf("%-14s %.1f Mevents/s  (%d pending, delays 1..%llu, %.1f "
           "ns/event)\n",
           name, rate / 1e6, PENDING, (unsigned long long)mask + 1, 1e9 / rate);
    cm_engine_free(&b.eng);
}

void bench_engine(void)
{
    bench_delays("engine.events", 1023);
    bench_delays("engine.far", 16383);
}
