/* mrc.h - miss-ratio curves and cache models from reuse distances.
 *
 *  - The fully associative LRU miss ratio of C lines is the share of
 *    accesses with stack distance >= C, cold included (cm_reuse_hist).
 *  - Set-associative LRU (setassoc.c): with S sets and A ways, an access
 *    whose stack distance is d hits iff fewer than A of the d distinct lines
 *    since its last use map to its set.  The binomial model spreads them
 *    over sets at random, Binomial(d, 1/S) (Smith 1978; Hill & Smith 1989);
 *    real data is contiguous and the binomial overstates its conflict
 *    misses (up to 5x on the lackey traces).  The occupancy model adds
 *    how the window's lines share sets (spatial.h), measured in the same
 *    pass: the reused line's set is taken to be as loaded as the set of a
 *    random line of its window.  Set-local stack distances (setlocal.h)
 *    give the exact answer beside both.
 *  - Parametric profile (fit.c): the MRC as a few numbers, fitted with GSL
 *    nonlinear least squares; the family and its justification are in
 *    fit.c's header.
 *  - Warp interleaving (interleave.c): the L1 hit rate of W interleaved warp
 *    streams predicted from per-warp reuse profiles; the model is in
 *    interleave.c's header.
 */
#ifndef CM_MRC_H
#define CM_MRC_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "models/reuse.h"
#include "models/spatial.h"
#include "solvers/binom.h"

/* Fully associative LRU miss ratios at each capacity (lines). */
void cm_mrc_fa(const cm_reuse_hist *h, const double *capacity_lines,
               size_t n, double *miss_ratio);

/* Capacities for a default MRC: 1, 2, 4, ... up to one octave past the
 * footprint, with `per_octave` points per doubling rounded to whole lines
 * (repeats dropped).  Returns the count written (at most cap). */
size_t cm_mrc_default_capacities(const cm_reuse_hist *h, unsigned per_octave,
                                 double *capacity_lines, size_t cap);

/* Set-associative LRU miss ratio of `sets` x `ways` lines. */
cm_status cm_mrc_setassoc(const cm_reuse_hist *h, uint64_t sets,
                          uint64_t ways, double *miss_ratio, cm_err *err);

/* Mean P(Bin(d, 1/sets) >= ways) over stack distances d spread uniformly
 * over the integers lo .. hi-1 (one histogram bin; hi = lo + 1 for a single
 * distance): the per-bin term of cm_mrc_setassoc, shared with the
 * interleaving model.  sets >= 1, 1 <= ways < UINT_MAX. */
double cm_mrc_setassoc_miss_prob(uint64_t sets, uint64_t ways, double lo,
                                 double hi);

/* The same model at one geometry, its constants computed once for the
 * many bins of a prediction (the recall model's distance pieces), and
 * optionally the summed tails of the bin edges it has met (bins share
 * edges with their neighbours and their pieces): direct mapped, in a
 * memo the caller owns. */
#define CM_MRC_MEMO 512
typedef struct cm_mrc_setassoc_memo {
    double n[CM_MRC_MEMO], t[CM_MRC_MEMO]; /* n < 0: empty */
} cm_mrc_setassoc_memo;

typedef struct cm_mrc_setassoc_geo {
    uint64_t sets, ways;
    double sat;       /* distances from here on are sure misses */
    cm_binom_law law; /* Bin(., 1 / sets) */
    cm_mrc_setassoc_memo *memo; /* may be NULL */
} cm_mrc_setassoc_geo;

/* memo (may be NULL) is emptied. */
void cm_mrc_setassoc_geo_init(cm_mrc_setassoc_geo *g, uint64_t sets,
                              uint64_t ways, cm_mrc_setassoc_memo *memo);
/* cm_mrc_setassoc_miss_prob(g->sets, g->ways, lo, hi). */
double cm_mrc_setassoc_geo_miss_prob(const cm_mrc_setassoc_geo *g,
                                     double lo, double hi);

/* Set-associative LRU miss ratio of `sets` x `ways` lines from the
 * histogram and the occupancy statistics sp of the same stream (collected
 * for `sets`): the occupancy model of setassoc.c's header.  Distance bins
 * sp has no sample of (and distances past its depth) fall back to the
 * binomial. */
cm_status cm_mrc_setassoc_spatial(const cm_reuse_hist *h,
                                  const cm_spatial *sp, uint64_t sets,
                                  uint64_t ways, double *miss_ratio,
                                  cm_err *err);

/* P(K >= ways) for a count K of window lines in the reused line's set
 * known only by its mean and variance: read as the binomial Bin(mean/q, q),
 * q = 1 - var/mean, continued to a real trial count by the incomplete beta
 * function; a sure count when var = 0, Poisson(mean) when var >= mean.
 * Scattered lines (mean d/S, var (d/S)(1 - 1/S)) give the binomial
 * P(Bin(d, 1/S) >= ways).  The occupancy model's reading past the
 * distribution it keeps (ways > CM_SPATIAL_KMAX). */
double cm_mrc_setassoc_moments_miss_prob(uint64_t ways, double mean,
                                         double var);

/* ---- parametric fit ---------------------------------------------------- */

typedef struct cm_mrc_fit {
    double param[3];     /* see fit.c: m_inf, c0, alpha */
    double stderr_[3];   /* one standard error of each, from the Jacobian */
    unsigned flags[3];   /* cm_fit_flag bits (solvers/lsq.h): on a bound of
                            the family (m_inf 0 or 1, c0 0, alpha 0 or its
                            cap), or a standard error above the value */
    const char *names[3];
    double rmse;         /* of the fitted miss ratios */
    double r2;           /* coefficient of determination */
    double chisq_dof;
    size_t points;
    int iterations;
} cm_mrc_fit;

/* Fits the MRC of h at the given capacities (as from
 * cm_mrc_default_capacities). */
cm_status cm_mrc_fit_profile(const cm_reuse_hist *h,
                             const double *capacity_lines, size_t n,
                             cm_mrc_fit *fit, cm_err *err);
/* The fitted curve's miss ratio at C lines. */
double cm_mrc_fit_eval(const cm_mrc_fit *fit, double lines);

/* The flagged parameters in words ("" when none): "m_inf (at its bound 0;
 * standard error above its value), alpha (at its bound 8)". */
void cm_mrc_fit_note(const cm_mrc_fit *fit, char *buf, size_t len);

/* ---- warp interleaving ------------------------------------------------- */

/* Per-warp profile: the stack-distance histogram of one warp's own stream
 * and the footprint curve of that stream. */
/* The reuse-time bin of t >= 1 that warp profiles use: t itself below 32,
 * then 8 bins per octave. */
size_t cm_reuse_time_bin(uint64_t t);

typedef struct cm_warp_profile cm_warp_profile;

/* Builds the profile of one warp from its line addresses. */
cm_status cm_warp_profile_new(const uint64_t *lines, size_t n,
                              cm_warp_profile **out, cm_err *err);
void cm_warp_profile_free(cm_warp_profile *p);
/* The warp's own stack-distance histogram. */
const cm_reuse_hist *cm_warp_profile_hist(const cm_warp_profile *p);
/* Mean distinct lines in a window of `window` consecutive accesses of the
 * warp's stream (all windows averaged; the footprint function). */
double cm_warp_profile_footprint(const cm_warp_profile *p, double window);

/* Predicted hit rate of a `sets` x `ways` LRU cache when `warps` warps,
 * each with a stream like the profiles (used round-robin if fewer), are
 * interleaved one access at a time. */
cm_status cm_interleave_hit_rate(cm_warp_profile *const *profiles,
                                 size_t nprofiles, unsigned warps,
                                 uint64_t sets, uint64_t ways,
                                 double *hit_rate, cm_err *err);

#endif
