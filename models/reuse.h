/* reuse.h - reuse (LRU stack) distances: exact and sampled.
 *
 * The stack distance of an access is the number of distinct lines touched
 * since the previous access to the same line (0: an immediate re-use); the
 * first access to a line is cold.  A fully associative LRU cache of C lines
 * hits exactly the accesses with distance < C (Mattson et al. 1970), so the
 * distance histogram gives the whole miss-ratio curve.  The reuse time of an
 * access is the number of accesses since the previous access to its line,
 * counted strictly between the two (0 for an immediate re-use), so reuse
 * time >= distance.
 *
 * Engines (all stream one line address at a time, allocation-free in the
 * steady state except for table growth):
 *  - exact (stackdist.c): a hash map line -> last access time and a Fenwick
 *    tree over access times holding a 1 at each line's latest access;
 *    distance = ones after the previous access.  O(log M) per access with
 *    periodic compaction of the time axis to the M live lines.
 *  - SHARDS (shards.c, Waldspurger et al., FAST'15): only lines with
 *    hash(line) mod P < T are tracked (rate R = T/P); their distances are
 *    scaled by 1/R and counted with weight 1/R.  The fixed-size variant
 *    keeps at most S lines, lowering T to evict the largest hashes, and
 *    rescales counts as R falls.
 *  - StatStack (statstack.c, Eklov & Hagersten, ISPASS'10): reuse times of
 *    sampled accesses give P(RT > i), and the expected stack distance of a
 *    reuse time r is SD(r) = sum_{i<r} P(RT > i).
 *
 * Sampling error (cm_reuse_engine_replicates): a sampled engine asked for
 * replicates splits what it sampled into CM_REUSE_GROUPS random groups (of
 * tracked lines for SHARDS, whose estimate is a sum over lines; of samples
 * for StatStack) and gives the leave-one-group-out estimates, each
 * normalised as the estimate itself.  Their spread is the delete-a-group
 * jackknife's variance (Quenouille; Efron & Stein 1981) of anything
 * computed from the histogram: mrc.h cm_mrc_fa_interval.
 */
#ifndef CM_REUSE_H
#define CM_REUSE_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/stackdist.h"

/* ---- histogram --------------------------------------------------------- */

/* Counts are doubles so sampled (weighted) and exact histograms share one
 * type; exact counts stay exact below 2^53. */
typedef struct cm_reuse_hist {
    uint64_t exact_bins; /* distances 0 .. exact_bins-1 have their own bin */
    double *exact;       /* [exact_bins] */
    /* log2 bin k covers [exact_bins * 2^k, exact_bins * 2^(k+1)) */
    double *log2;
    size_t nlog2;
    double cold;     /* first accesses to a line */
    double total;    /* all accesses counted, cold included */
    double sampled;  /* accesses actually processed by the engine */
    double rate;     /* effective sampling rate (1 for exact) */
} cm_reuse_hist;

/* exact_bins >= 1. */
cm_status cm_reuse_hist_init(cm_reuse_hist *h, uint64_t exact_bins,
                             cm_err *err);
void cm_reuse_hist_free(cm_reuse_hist *h);
void cm_reuse_hist_clear(cm_reuse_hist *h);
/* distance < 0 means cold; weight >= 0.  Adds weight to total and 1 to
 * sampled (engines that sample set both themselves at finish). */
cm_status cm_reuse_hist_add(cm_reuse_hist *h, double distance, double weight,
                            cm_err *err);
/* Bin index range of the bin holding distance d: [lo, hi). */
void cm_reuse_hist_bin_bounds(const cm_reuse_hist *h, size_t bin,
                              double *lo, double *hi);
size_t cm_reuse_hist_nbins(const cm_reuse_hist *h); /* exact + log2 */
double cm_reuse_hist_bin_count(const cm_reuse_hist *h, size_t bin);
/* Accesses with distance >= d, cold included (interpolating linearly
 * inside a log2 bin), divided by total: the LRU miss ratio of d lines. */
double cm_reuse_hist_miss_ratio(const cm_reuse_hist *h, double lines);
/* Multiplies every count (cold and total included) by f. */
void cm_reuse_hist_scale(cm_reuse_hist *h, double f);
/* Adds b into a (same exact_bins). */
cm_status cm_reuse_hist_merge(cm_reuse_hist *a, const cm_reuse_hist *b,
                              cm_err *err);

/* ---- exact engine: data/stackdist.h ---------------------------------- */

/* ---- sampled engines --------------------------------------------------- */

typedef enum cm_sample_kind {
    CM_SAMPLE_NONE = 0,
    CM_SAMPLE_SHARDS,     /* fixed rate R */
    CM_SAMPLE_SHARDS_MAX, /* fixed size S lines */
    CM_SAMPLE_STATSTACK   /* rate R of sampled reuse times */
} cm_sample_kind;

typedef struct cm_sample_spec {
    cm_sample_kind kind;
    double rate;     /* SHARDS, StatStack: 0 < R <= 1 */
    uint64_t max_lines; /* SHARDS_MAX: S >= 1 */
    uint64_t seed;   /* hash / sampling seed */
    int replicates;  /* keep the jackknife groups (the caller sets it) */
} cm_sample_spec;

#define CM_REUSE_GROUPS 20 /* jackknife groups of a sampled estimate */

/* "none", "shards:R", "shards-max:S", "statstack:R".  Sets every field;
 * seed is 0, for the caller to set. */
cm_status cm_sample_spec_parse(const char *text, cm_sample_spec *spec,
                               cm_err *err);

/* The smallest capacity, in lines, a curve sampled this way at effective
 * rate `rate` resolves: 2 / rate for SHARDS below rate 1 (a distance of d
 * tracked lines stands for d / rate +- 1 / (2 rate) real ones, so every
 * reuse closer than 1 / rate looks like distance 0 and the curve is flat
 * there; between 1 / rate and 2 / rate the 95% interval held the exact
 * curve at only 83-93% of sizes on some test traces, 92.5-100% beyond,
 * tests/check_accuracy.c), 0 (every capacity) for the exact histogram and
 * for StatStack, which samples reuse times instead. */
double cm_sample_resolved_lines(cm_sample_kind kind, double rate);

/* One engine of any kind: feed lines, then finish into a histogram. */
typedef struct cm_reuse_engine cm_reuse_engine;
cm_status cm_reuse_engine_new(const cm_sample_spec *spec,
                              uint64_t exact_bins, cm_reuse_engine **out,
                              cm_err *err);
cm_status cm_reuse_engine_access(cm_reuse_engine *e, uint64_t line,
                                 cm_err *err);
/* Fills h (initialised by the call; empty on error) with the distances so
 * far; h->rate is the effective sampling rate.  Feeding may go on after. */
cm_status cm_reuse_engine_finish(cm_reuse_engine *e, cm_reuse_hist *h,
                                 cm_err *err);
/* After finish, the CM_REUSE_GROUPS leave-one-group-out histograms into
 * reps[] (each initialised by the call; the caller frees them) and their
 * count into *n: 0 for the exact engine or without spec.replicates. */
cm_status cm_reuse_engine_replicates(const cm_reuse_engine *e,
                                     cm_reuse_hist *reps, size_t *n,
                                     cm_err *err);
void cm_reuse_engine_free(cm_reuse_engine *e);

#endif
