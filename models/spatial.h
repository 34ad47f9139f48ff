/* spatial.h - how the lines between two uses of a line share sets: the
 * statistic of the set-associative occupancy model (setassoc.c,
 * cm_mrc_setassoc_spatial) that the stack distance alone lacks.
 *
 * At a reuse of line x with stack distance d, the d distinct lines touched
 * since x's previous use (its window) and x itself fall into the S sets of
 * a cache (set = line mod S) as the program placed them: contiguous data
 * spreads evenly, aligned arrays pile into the same sets.  For one of
 * these d + 1 lines drawn at random, let K be the number of the other d
 * that share its set.  Per distance bin the collector keeps, over a random
 * sample of reuses, the distribution of K (each reuse's d + 1 lines
 * weighted alike), its mean and its second moment; the occupancy model
 * reads x's own count as such a draw (setassoc.c's header).
 *
 * One collector holds several set counts and is fed every line reference
 * in the streaming reuse pass (cm_reuse_request's spatial field).  It keeps
 * the `depth` most recent distinct lines in an LRU list (bounded memory,
 * whatever the footprint: ~2.3 MB at the default depth 16384, and ~53 KB
 * per set count for the distributions) and samples references at random,
 * at the rate that spends `budget` window lines walked per reference
 * (spatial.c); a sampled reuse walks the list from the top to the reused
 * line.  Reuses at distance >= depth (and cold references) contribute
 * nothing. */
#ifndef CM_SPATIAL_H
#define CM_SPATIAL_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"

typedef struct cm_spatial cm_spatial;

/* Set counts sets[0 .. nsets-1] (each >= 1; repeats kept once), windows
 * followed up to depth lines (16 <= depth <= 2^26), budget > 0 window lines
 * walked per reference on average, sampling seed. */
cm_status cm_spatial_new(const uint64_t *sets, size_t nsets, uint64_t depth,
                         double budget, uint64_t seed, cm_spatial **out,
                         cm_err *err);
void cm_spatial_free(cm_spatial *s);

/* One reference to `line`.  Allocation-free. */
void cm_spatial_access(cm_spatial *s, uint64_t line);

uint64_t cm_spatial_depth(const cm_spatial *s);
uint64_t cm_spatial_references(const cm_spatial *s);
/* Reuses sampled (each has contributed to one distance bin). */
uint64_t cm_spatial_samples(const cm_spatial *s);

/* The distance bins: stack distances below 16 have their own bin, then 8
 * bins per octave.  Bin b holds the distances lo(b) <= d < lo(b + 1). */
size_t cm_spatial_bin_of(uint64_t d);
uint64_t cm_spatial_bin_lo(size_t b);

/* The distribution of K is kept for K < CM_SPATIAL_KMAX, K >= KMAX
 * lumped: tails are exact for ways <= KMAX. */
#define CM_SPATIAL_KMAX 64

/* The statistics of bin b for `sets` (one of the collector's): *tail =
 * P(K >= ways) (ways capped at CM_SPATIAL_KMAX), *mean and *var of K.
 * Returns the number of reuses sampled in the bin; with none (or b past
 * the depth) all three are 0. */
uint64_t cm_spatial_bin_stats(const cm_spatial *s, uint64_t sets, size_t b,
                              uint64_t ways, double *tail, double *mean,
                              double *var);
/* Whether `sets` is one of the collector's set counts. */
int cm_spatial_has_sets(const cm_spatial *s, uint64_t sets);

#endif
