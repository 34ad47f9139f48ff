/* setlocal.h - set-local LRU stack distances: the exact set-associative
 * LRU miss ratio of `cohmod mrc --sets --ways` (miss_ratio_setlocal,
 * beside the statistical models' miss_ratio_setassoc and
 * miss_ratio_binomial).
 *
 * For a cache of S sets (set = line mod S) the set-local stack distance of
 * a reference is the number of distinct lines of its own set touched since
 * the previous reference to its line.  An A-way LRU set hits exactly the
 * references whose set-local distance is below A, so one histogram per S
 * gives the miss ratio of every associativity (the math, its assumptions
 * and why the statistic is needed at all are in setlocal.c's header).
 *
 * One collector holds several set counts and is fed line references in the
 * same streaming pass as the stack-distance engines (cm_reuse_request's
 * setlocal field); distances are told apart up to a depth D, the largest
 * associativity asked for. */
#ifndef CM_SETLOCAL_H
#define CM_SETLOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"

typedef struct cm_setlocal cm_setlocal;

/* Set counts sets[0 .. nsets-1] (each >= 1; repeats are kept once),
 * distances told apart below depth >= 1.  Memory: sum of sets x depth
 * line tags, as an exact cache of that size needs. */
cm_status cm_setlocal_new(const uint64_t *sets, size_t nsets, uint64_t depth,
                          cm_setlocal **out, cm_err *err);
void cm_setlocal_free(cm_setlocal *s);

/* One reference to `line`, under every set count.  O(depth) per count at
 * worst; allocation-free. */
void cm_setlocal_access(cm_setlocal *s, uint64_t line);

uint64_t cm_setlocal_depth(const cm_setlocal *s);
uint64_t cm_setlocal_references(const cm_setlocal *s);

/* References of the `sets` collector with set-local distance exactly d
 * (d < depth); those at depth or beyond, cold ones included, are
 * cm_setlocal_references minus the sum of these. */
cm_status cm_setlocal_count(const cm_setlocal *s, uint64_t sets, uint64_t d,
                            double *count, cm_err *err);

/* The LRU miss ratio of sets x ways (1 <= ways <= depth; sets one of the
 * collector's): references with set-local distance >= ways, cold included,
 * over all references. */
cm_status cm_setlocal_miss_ratio(const cm_setlocal *s, uint64_t sets,
                                 uint64_t ways, double *miss_ratio,
                                 cm_err *err);

#endif
