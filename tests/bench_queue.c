/* bench_queue.c - queue-solver calls per second on one core: Erlang-B at
 * c = 128, M/M/c/K/N at the MSHR model's size (N = K = 48, c = 32; target
 * 100,000/s), and exact MVA with 3 stations and 100 customers. */
#include <stdio.h>

#include "solvers/queue.h"
#include "tests/benchutil.h"

static volatile double sink;
static unsigned step; /* varies the load so no two calls are identical */

static double wobble(void) { return 1.0 + 0.01 * (double)(step++ & 7); }

static void erlang_b_once(void *arg)
{
    (void)arg;
    double b;
    if (cm_erlang_b(128, 120.0 * wobble(), &b, NULL) == CM_OK) sink += b;
}

static void mmckn_once(void *arg)
{
    (void)arg;
    cm_queue_metrics m;
    if (cm_mmckn_solve(32, 48, 48, 0.9 * wobble(), 1.0, NULL, &m, NULL) ==
        CM_OK)
        sink += m.mean_n;
}

static void mva_once(void *arg)
{
    (void)arg;
    cm_mva_station st[3] = {{"core", CM_MVA_DELAY, 20.0 * wobble()},
                            {"l2", CM_MVA_QUEUE, 1.5},
                            {"dram", CM_MVA_QUEUE, 2.0}};
    double q[3], r[3], u[3];
    cm_mva_result res = {0, 0, q, r, u};
    if (cm_mva_solve(st, 3, 100, &res, NULL) == CM_OK) sink += res.throughput;
}

static void report(const char *name, void (*fn)(void *))
{
    double rate = bench_rate(fn, NULL, 0.5);
    printf("%-16s %12.0f calls/s  (%.3f us each)\n", name, rate, 1e6 / rate);
}

void bench_queue(void)
{
    report("queue.erlang_b", erlang_b_once);
    report("queue.mmckn", mmckn_once);
    report("queue.mva", mva_once);
}
