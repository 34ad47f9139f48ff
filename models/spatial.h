/* spatial.h - how the lines between two uses of a line lie in address
 * space around it: the statistic of the set-associative region model
 * (setassoc.c, cm_mrc_setassoc_spatial) that the stack distance alone
 * lacks.
 *
 * At a reuse of line x with stack distance d, the d distinct lines touched
 * since x's previous use (its window) form a run anchored at x (the window
 * lines contiguous with x) and other lines.  For a set count S the other
 * lines fall into blocks of S consecutive lines laid around x, block k
 * holding x's set's line x + kS.  From these the region model takes the
 * mean and variance of the count of window lines in x's set (setassoc.c's
 * header derives them).  Per distance bin the collector keeps, over a
 * random sample of reuses, the sums of d and of that mean and variance.
 *
 * One collector holds several set counts and is fed every line reference
 * in the streaming reuse pass (cm_reuse_request's spatial field).  It keeps
 * the `depth` most recent distinct lines in an LRU list (bounded memory,
 * whatever the footprint: ~2.6 MB at the default depth 16384) and samples
 * references at random, at the rate that spends `budget` window lines
 * walked per reference (spatial.c); a sampled reuse walks the list from
 * the top to the reused line.  Reuses at distance >= depth (and cold
 * references) contribute nothing. */
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

/* The statistics of bin b for `sets` (one of the collector's), per window
 * line: *mean and *var of the count of window lines in the reused line's
 * set, divided by d (so the model reads mean x d and var x d at distance
 * d).  Returns the number of reuses sampled in the bin; with none (or b
 * past the depth) the values of lines scattered at random, 1/S and
 * (1/S)(1 - 1/S). */
uint64_t cm_spatial_bin_stats(const cm_spatial *s, uint64_t sets, size_t b,
                              double *mean, double *var);
/* Whether `sets` is one of the collector's set counts. */
int cm_spatial_has_sets(const cm_spatial *s, uint64_t sets);

#endif
