/* l1_profile.h - the per-workload stream profile the L1 model
 * (l1_predict.h) reads: built once per workload, sim.seed and line size
 * from the generator's own warp streams, then shared by every design
 * point (every L1 size, associativity and interleaving degree).  The
 * statistics and why they suffice are in l1_profile.c's header. */
#ifndef CM_L1_PROFILE_H
#define CM_L1_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/workload.h"
#include "models/mrc.h"

/* Warps of SM 0 whose streams make the profile: their statistics are
 * averaged into one mean warp (the generator draws every warp from the
 * same profile; only the seeds differ). */
#define CM_L1_PROFILE_WARPS 16
/* Set counts 2^0 .. 2^CM_L1_PROFILE_MAX_LOG2_SETS are profiled exactly. */
#define CM_L1_PROFILE_MAX_LOG2_SETS 12
/* Set-local distances are kept exactly below this: associativities up to
 * it use the set-local statistics, larger ones the binomial model. */
#define CM_L1_PROFILE_DEPTH 32

/* Shared pools: SM-shared, GPU-shared and false-shared lines (the
 * generator's regions); every warp of an SM draws from the same lines. */
#define CM_L1_PROFILE_POOLS 3

typedef struct cm_l1_profile cm_l1_profile;

/* The profile of workload w for sim.seed `seed` and `line`-byte lines,
 * from the cache kept by this module (built on first use; the cache
 * holds the last few dozen).  The pointer stays valid until
 * cm_l1_profile_cache_clear. */
cm_status cm_l1_profile_get(const cm_workload_profile *w, uint64_t seed,
                            uint32_t line, const cm_l1_profile **out,
                            cm_err *err);
void cm_l1_profile_cache_clear(void);

/* Per mean warp: line accesses (loads, stores, atomics) and loads. */
double cm_l1_profile_accesses(const cm_l1_profile *p);
double cm_l1_profile_loads(const cm_l1_profile *p);
/* Per mean warp: memory instructions, and compute cycles (the
 * generator's compute stretches) before them. */
double cm_l1_profile_mem_insts(const cm_l1_profile *p);
double cm_l1_profile_compute(const cm_l1_profile *p);

/* Reuse-time bins: how many (at most CM_L1_PROFILE_NBINS_MAX), and bin
 * b's representative window t (in loads of one warp) and bounds. */
#define CM_L1_PROFILE_NBINS_MAX 128
size_t cm_l1_profile_nbins(void);
double cm_l1_profile_bin_t(size_t b);
void cm_l1_profile_bin_bounds(size_t b, double *lo, double *hi);

/* Mean-warp statistics at 2^log2_sets sets: the loads of reuse-time bin
 * b at set-local distance k, k = 0 .. CM_L1_PROFILE_DEPTH-1 (an array),
 * the distinct sets of a window of bin b's length, and its distinct lines
 * (any set count). */
const double *cm_l1_profile_counts(const cm_l1_profile *p,
                                   unsigned log2_sets, size_t b);
double cm_l1_profile_sets_touched(const cm_l1_profile *p, unsigned log2_sets,
                                  size_t b);
double cm_l1_profile_lines_touched(const cm_l1_profile *p, size_t b);

/* Per mean warp, of the loads of shared pool `pool`: by set-local distance
 * (as cm_l1_profile_counts), by reuse-time bin at any distance, cold, all;
 * and the pool's lines. */
const double *cm_l1_profile_shared_counts(const cm_l1_profile *p, int pool,
                                          unsigned log2_sets, size_t b);
double cm_l1_profile_shared_reused(const cm_l1_profile *p, int pool,
                                   size_t b);
double cm_l1_profile_shared_cold(const cm_l1_profile *p, int pool);
double cm_l1_profile_shared_loads(const cm_l1_profile *p, int pool);
double cm_l1_profile_pool_lines(const cm_l1_profile *p, int pool);

/* Everything of one set count at once, for the per-point loop: arrays
 * indexed by reuse-time bin (counts: [bin * CM_L1_PROFILE_DEPTH + k]). */
typedef struct cm_l1_profile_level {
    const double *counts, *sets_touched, *lines_touched;
    const double *shared_counts[CM_L1_PROFILE_POOLS];
    const double *shared_reused[CM_L1_PROFILE_POOLS];
} cm_l1_profile_level;
void cm_l1_profile_level_view(const cm_l1_profile *p, unsigned log2_sets,
                              cm_l1_profile_level *out);

/* The sample warps' reuse profiles (interleave.c), built on first use:
 * the fallback for geometries the set-local statistics do not cover. */
cm_status cm_l1_profile_warps(const cm_l1_profile *p,
                              cm_warp_profile *const **profiles, size_t *n,
                              cm_err *err);

#endif
