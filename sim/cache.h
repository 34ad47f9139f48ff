/* cache.h - an exact set-associative cache, the reference the reuse models
 * are checked against and the building block of the simulator's caches.
 *
 * Geometry: size = sets x ways x line bytes, sets a power of two is not
 * required (set = line mod sets).  Replacement: LRU, FIFO or random (a GSL
 * generator with an explicit seed, so runs repeat).  Writes: allocate on a
 * write miss or not (no-write-allocate writes around the cache).
 *
 * Counting follows cachegrind's conventions:
 *  - an access that straddles a line boundary touches every line it
 *    covers but counts as one access, and as one miss if any line missed;
 *  - a modify (lackey M: read-modify-write of one location) counts as one
 *    access of its own op class, simulated as a read: its write can never
 *    miss once the read has brought the line in.  Atomics are simulated the
 *    same way; an op outside cm_op is ignored. */
#ifndef CM_CACHE_H
#define CM_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/trace.h"

typedef enum cm_cache_policy {
    CM_CACHE_LRU = 0,
    CM_CACHE_FIFO,
    CM_CACHE_RANDOM
} cm_cache_policy;

cm_status cm_cache_policy_parse(const char *name, cm_cache_policy *p,
                                cm_err *err);

typedef struct cm_cache_config {
    uint64_t size_bytes, ways, line_bytes;
    cm_cache_policy policy;
    int write_allocate; /* 1: allocate on write miss */
    uint64_t seed;      /* for CM_CACHE_RANDOM */
} cm_cache_config;

typedef struct cm_cache_counts {
    uint64_t accesses[CM_OP_COUNT], misses[CM_OP_COUNT];
    /* The same per line touched rather than per access: the unit of stack
     * distances, so models are compared with simulation like for like. */
    uint64_t line_refs, line_misses;
} cm_cache_counts;

typedef struct cm_cache cm_cache;

/* size must be a whole number of ways x line (and line a power of two). */
cm_status cm_cache_new(const cm_cache_config *cfg, cm_cache **out,
                       cm_err *err);
void cm_cache_free(cm_cache *c);

/* One line lookup; returns 1 on hit, 0 on miss.  `allocate` says whether a
 * miss fills the line.  No counting: the building block for simulators.
 * O(ways) per call. */
int cm_cache_touch(cm_cache *c, uint64_t line, int allocate);

/* Drops line if present (returns 1) or does nothing (0): write-evict.
 * O(ways). */
int cm_cache_invalidate(cm_cache *c, uint64_t line);

/* Drops every line (flash invalidate). O(sets). */
void cm_cache_invalidate_all(cm_cache *c);

/* One trace access, counted per cachegrind's conventions above. */
void cm_cache_access(cm_cache *c, const cm_access *a);

const cm_cache_counts *cm_cache_get_counts(const cm_cache *c);
uint64_t cm_cache_sets(const cm_cache *c);

#endif
