/* lhs.h - Latin hypercube designs on GSL's random numbers.
 *
 * A design of N points in [0,1)^d is a Latin hypercube when, cut into N
 * equal strata along any one dimension, every stratum holds exactly one
 * point (McKay, Beckman and Conover 1979): N points see N distinct values
 * of every parameter, where a grid of N points sees only N^(1/d).
 *
 * A sliced Latin hypercube (Qian, "Sliced Latin hypercube designs", JASA
 * 2012) splits the N = S x m points into S slices of m that are each a
 * Latin hypercube themselves (one point in each of m coarse strata per
 * dimension) while all of them together remain one of N.  cohmod's
 * validations make a slice of each workload x preset cell, so every cell
 * covers the whole design range and the cells together cover it finely.
 *
 * Construction, per dimension: for each coarse stratum c < m a random
 * permutation p_c of the S slices gives slice s the fine stratum
 * c S + p_c(s); each slice's own permutation t_s of its m points gives
 * point j the coarse stratum t_s(j); the point lies uniformly inside its
 * fine stratum.  Every random number comes from one GSL mt19937 stream
 * seeded with `seed`, so a seed is a design: the same seed gives the same
 * points, another seed others. */
#ifndef CM_LHS_H
#define CM_LHS_H

#include <stddef.h>

#include "data/err.h"

/* Fills u[(s m + j) d + k], point j of slice s, dimension k, in [0, 1).
 * slices and per_slice at least 1; dims may be 0 (nothing to draw). */
cm_status cm_lhs_sliced(unsigned long seed, size_t slices, size_t per_slice,
                        size_t dims, double *u, cm_err *err);

#endif
