/* bench_trace.c - lackey trace parsing speed, file to accesses.
 * Target (reuse-distance engine, item 1): at least 50 MB/s, so that reading
 * a trace never dominates a reuse-distance study. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "data/trace.h"
#include "tests/benchutil.h"

/* A 20 MB trace shaped like real lackey output: banners, then instruction
 * fetches and data accesses in about the mix of `sort` (2.6 I lines a data
 * line), addresses from a fixed-seed generator. */
static int write_trace(const char *path, size_t bytes)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    uint64_t s = 42, pc = 0x4016b90;
    size_t n = (size_t)fprintf(f, "==1== Lackey, an example Valgrind tool\n"
                                  "==1== Command: sort input.txt\n==1== \n");
    while (n < bytes) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t x = s >> 24;
        pc += 1 + x % 7;
        int len;
        if (x % 18 < 13) {
            len = fprintf(f, "I  %08llx,%u\n", (unsigned long long)pc,
                          (unsigned)(1 + x % 9));
        } else {
            static const char ops[] = "LLSM";
            unsigned long long a = x & 7 ? 0x1ffefff000ULL + (x >> 8 & 0xff8)
                                         : 0x4a00000ULL + (x >> 4 & 0xfffff);
            len = fprintf(f, " %c %08llx,%u\n", ops[x >> 40 & 3], a,
                          1u << (x >> 42 & 3));
        }
        if (len < 0) break;
        n += (size_t)len;
    }
    return fclose(f);
}

void bench_trace(void)
{
    char path[] = "/tmp/cohmod-bench-trace-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write_trace(path, 20u << 20)) {
        printf("trace.lackey_parse  cannot write %s\n", path);
        if (fd >= 0) close(fd), unlink(path);
        return;
    }
    close(fd);
    uint64_t bytes = 0, accesses = 0;
    double t0 = bench_now();
    for (int rep = 0; rep < 5; rep++) {
        cm_trace *t;
        cm_err err = {0};
        cm_trace_opts o = {CM_TRACE_LACKEY, 0};
        if (cm_trace_open(path, &o, &t, &err) != CM_OK) {
            printf("trace.lackey_parse  %s\n", err.msg);
            break;
        }
        cm_access a;
        int got;
        while ((got = cm_trace_next(t, &a, &err)) == 1) accesses++;
        if (got < 0) printf("trace.lackey_parse  %s\n", err.msg);
        bytes += cm_trace_bytes_read(t);
        cm_trace_close(t);
    }
    double secs = bench_now() - t0;
    printf("trace.lackey_parse  %.0f MB/s  (target >= 50)  %.1f M "
           "accesses/s over %.0f MB\n",
           (double)bytes / 1e6 / secs, (double)accesses / 1e6 / secs,
           (double)bytes / 1e6);
    unlink(path);
}
