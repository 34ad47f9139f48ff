/* spatial.h - how the lines between two uses of a line lie in address
 * space: the statistic of the set-associative model (setassoc.c,
 * cm_mrc_setassoc_spatial) that the stack distance alone lacks.
 *
 * For a set count S, the line address space is cut into aligned regions of
 * S consecutive lines, so a region holds at most one line of each set.  At
 * a reuse of line x with stack distance d, the d distinct lines touched
 * since x's previous use fall into regions: k0 of them into x's own region
 * (never x's set) and j_r into each other region r.  Per distance bin the
 * collector keeps, over a random sample of reuses, the sums of d, k0 and
 * sum_{r != own} j_r^2; from them the model reads the share of the window
 * in the own region, F0 = sum k0 / sum d, and the line-weighted mean
 * occupancy of the other regions, M = sum_r j_r^2 / sum_r j_r (1 for
 * scattered lines, S for full contiguous regions).  The derivation is in
 * setassoc.c's header.
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

/* The region statistics of bin b for `sets` (one of the collector's):
 * *own_share = F0 and *occupancy = M as above.  Returns the number of
 * reuses sampled in the bin; with none (or b past the depth) F0 = 0 and
 * M = 1, the values of lines scattered at random. */
uint64_t cm_spatial_bin_stats(const cm_spatial *s, uint64_t sets, size_t b,
                              double *own_share, double *occupancy);
/* Whether `sets` is one of the collector's set counts. */
int cm_spatial_has_sets(const cm_spatial *s, uint64_t sets);

#endif
