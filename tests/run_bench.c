/* run_bench.c - runs every benchmark (tests/bench_*.c); each prints its own
 * figures.  Benchmarks measure, they never pass or fail. */
#include <stdio.h>

#define BENCH(n) void bench_##n(void);
#include "gen/benches.h"
#undef BENCH

int main(void)
{
#define BENCH(n)                          \
    printf("== %s ==\n", #n);             \
    fflush(stdout);                       \
    bench_##n();
#include "gen/benches.h"
#undef BENCH
    return 0;
}
