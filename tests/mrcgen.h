/* mrcgen.h - synthetic line streams for the cache-model tests
 * (check_mrc.c, check_interleave.c): a seeded splitmix generator, line
 * numbers scrambled so that lines fall into sets the way the binomial set
 * model assumes, Zipf and stencil streams, their reuse histograms and an
 * exact LRU cache (sim/cache) to hold the models to. */
#ifndef CM_MRCGEN_H
#define CM_MRCGEN_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "models/reuse.h"
#include "sim/cache.h"
#include "tests/testutil.h"

static inline uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline double uniform01(uint64_t *s)
{
    return (double)(splitmix(s) >> 11) * 0x1p-53;
}

/* A distinct, well-spread line number for item i of address range base. */
static inline uint64_t scramble(uint64_t base, uint64_t i)
{
    uint64_t s = (base << 40) ^ i;
    return splitmix(&s);
}

/* Zipf(a) popularity over ws lines (independent reference model). */
static inline uint64_t *zipf_stream(size_t n, size_t ws, double a, uint64_t seed,
                             uint64_t base)
{
    double *cdf = malloc(ws * sizeof *cdf), t = 0;
    uint64_t *out = malloc(n * sizeof *out);
    ck_assert(cdf && out);
    for (size_t i = 0; i < ws; i++) cdf[i] = t += pow((double)i + 1, -a);
    for (size_t i = 0; i < n; i++) {
        double u = uniform01(&seed) * t;
        size_t lo = 0, hi = ws - 1;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (cdf[mid] < u) lo = mid + 1;
            else hi = mid;
        }
        out[i] = scramble(base, lo);
    }
    free(cdf);
    return out;
}

/* A sweep over an array: each access picks a line at random within a
 * window of `span` lines that advances one line every 4 accesses. */
static inline uint64_t *stencil_stream(size_t n, size_t span, uint64_t seed,
                                uint64_t base)
{
    uint64_t *out = malloc(n * sizeof *out);
    ck_assert_ptr_nonnull(out);
    for (size_t i = 0; i < n; i++)
        out[i] = scramble(base, i / 4 + (size_t)(uniform01(&seed) *
                                                 (double)span));
    return out;
}

static inline void hist_of(const uint64_t *lines, size_t n, uint64_t exact_bins,
                    cm_reuse_hist *h)
{
    cm_err err = {0};
    ck_assert_int_eq(cm_reuse_hist_init(h, exact_bins, &err), CM_OK);
    cm_stackdist *sd = cm_stackdist_new();
    ck_assert_ptr_nonnull(sd);
    for (size_t i = 0; i < n; i++) {
        int64_t d;
        ck_assert_int_eq(cm_stackdist_access(sd, lines[i], &d, NULL, &err),
                         CM_OK);
        ck_assert_int_eq(cm_reuse_hist_add(h, (double)d, 1, &err), CM_OK);
    }
    cm_stackdist_free(sd);
}

static inline double exact_miss_ratio(const uint64_t *lines, size_t n,
                               uint64_t sets, uint64_t ways)
{
    cm_cache_config cfg = {sets * ways * 64, ways, 64, CM_CACHE_LRU, 1, 0};
    cm_cache *c;
    ck_assert_int_eq(cm_cache_new(&cfg, &c, NULL), CM_OK);
    size_t misses = 0;
    for (size_t i = 0; i < n; i++) misses += !cm_cache_touch(c, lines[i], 1);
    cm_cache_free(c);
    return (double)misses / (double)n;
}


#endif
