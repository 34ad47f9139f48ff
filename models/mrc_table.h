/* mrc_table.h - miss-ratio curves and set-associative predictions as
 * tables, for `cohmod mrc` and the study. */
#ifndef CM_MRC_TABLE_H
#define CM_MRC_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/table.h"
#include "models/reuse.h"
#include "models/setlocal.h"
#include "models/spatial.h"

typedef struct cm_mrc_method {
    const char *name; /* "exact", "shards:0.01", ... */
    const cm_reuse_hist *hist;
    const cm_reuse_hist *reps; /* its jackknife replicates (reuse.h), or NULL */
    size_t nreps;
    double resolved_lines; /* the smallest capacity it resolves
                              (cm_sample_resolved_lines; 0: every one) */
} cm_mrc_method;

/* Method m's miss ratios mr[] at the n capacities and their 95% interval
 * [lo, hi]: the jackknife's (cm_mrc_fa_interval) at each capacity, widened
 * for a sampled distance's resolution to span those at C +- 1/(2R) =
 * resolved_lines / 4 as well (SHARDS' d tracked lines stand for d/R +-
 * 1/(2R) real ones; the curve falls, so the ends are the intervals at C +
 * 1/(2R) and C - 1/(2R)).  *half (may be NULL): the mean half-width.
 * Returns 0, or -1 out of memory. */
int cm_mrc_method_curve(const cm_mrc_method *m, const double *caps,
                        size_t n, double *mr, double *lo, double *hi,
                        double *half);

/* The capacity grid every method is evaluated on: per_octave log-spaced
 * points from 1 line to past the largest footprint among the methods.
 * Returns the count (at most cap). */
size_t cm_mrc_grid(const cm_mrc_method *m, size_t n, unsigned per_octave,
                   double *caps, size_t cap);

/* method,capacity_lines,capacity_bytes,miss_ratio,sampling_rate,
 * ci95_lo,ci95_hi,resolved (cm_mrc_fa_interval; the point itself without
 * replicates).  Below a method's resolved_lines, resolved is "no" and
 * miss_ratio and the interval are empty: the sampled curve says nothing
 * there (a plot leaves it out). */
cm_status cm_mrc_curve_table(const cm_mrc_method *m, size_t n,
                             uint64_t line_bytes, unsigned per_octave,
                             cm_table **out, cm_err *err);

/* method,sets,ways,line,capacity_lines,miss_ratio_fa,miss_ratio_setlocal,
 * miss_ratio_setassoc,miss_ratio_binomial: one row per method and geometry
 * (sets x ways, every pair).  miss_ratio_fa comes from each method's
 * histogram; miss_ratio_setassoc is the occupancy model (setassoc.c) of
 * that histogram with the occupancy statistics sp, miss_ratio_binomial the
 * binomial model of the histogram alone; miss_ratio_setlocal is the exact
 * LRU miss ratio from the set-local distances sl.  sl and sp are collected
 * over the whole stream for every asked set count, so they are the same on
 * every method's row. */
cm_status cm_mrc_geometry_table(const cm_mrc_method *m, size_t n,
                                const cm_setlocal *sl,
                                const cm_spatial *sp,
                                const uint64_t *sets, size_t nsets,
                                const uint64_t *ways, size_t nways,
                                uint64_t line_bytes, cm_table **out,
                                cm_err *err);

/* n capacities evenly spaced up to the footprint of h (its distinct lines:
 * the cold count), the grid of the SHARDS paper's accuracy measure, which
 * weighs all cache sizes alike.  The log grid of cm_mrc_grid weighs small
 * caches far more, where sampling is blind below ~1/R lines.  Returns n. */
/* The 95% interval of the fully associative miss ratios mr[] at the n
 * capacities from g jackknife replicates (reuse.h) of an estimate sampled
 * at `rate`: mr +- t(0.975, g - 1) x the delete-a-group jackknife's
 * standard error, sqrt((1 - rate) (g - 1) / g x sum over replicates of
 * (mr_r - their mean)^2), clipped to [0, 1].  1 - rate is the finite-
 * population correction (a sample without replacement: none at rate 1,
 * where the estimate is the census).  The point itself when g < 2.
 * Returns the mean half-width over the capacities (NAN when n = 0 or out
 * of memory). */
double cm_mrc_fa_interval(const cm_reuse_hist *reps, size_t g, double rate,
                          const double *caps, size_t n, const double *mr,
                          double *lo, double *hi);

size_t cm_mrc_linear_grid(const cm_reuse_hist *h, size_t n, double *caps);

/* Mean absolute difference of two MRCs over a capacity grid. */
double cm_mrc_mae(const cm_reuse_hist *a, const cm_reuse_hist *b,
                  const double *caps, size_t n);

#endif
