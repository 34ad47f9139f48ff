/* run_bench.c - runs every benchmark (tests/bench_*.c), or only those named
 * on the command line; each prints its own figures.  Benchmarks measure,
 * they never pass or fail. */
#include <stdio.h>
#include <string.h>

#define BENCH(n) void bench_##n(void);
#include "gen/benches.h"
#undef BENCH

static int chosen(int argc, char **argv, const char *name)
{
    if (argc < 2) return 1;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], name)) return 1;
    return 0;
}

int main(int argc, char **argv)
{
#define BENCH(n)                                                               \
    if (chosen(argc, argv, #n)) {                                              \
        printf("== %s ==\n", #n);                                              \
        fflush(stdout);                                                        \
        bench_##n();                                                           \
    }
#include "gen/benches.h"
#undef BENCH
    return 0;
}
