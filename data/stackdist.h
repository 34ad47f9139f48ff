/* stackdist.h - exact LRU stack distances and reuse times of a stream of
 * lines, O(log M) per access (the algorithm: stackdist.c).  The
 * reuse-distance models build on it (models/reuse.h), and so does the
 * simulator's profile recorder (sim/profile_rec.h). */
#ifndef CM_STACKDIST_H
#define CM_STACKDIST_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"

typedef struct cm_stackdist cm_stackdist;
cm_stackdist *cm_stackdist_new(void);
void cm_stackdist_free(cm_stackdist *s);
/* Records an access to `line`; *distance is -1 for a cold access, and
 * *reuse_time (accesses since the last one to this line, -1 if cold) may
 * be NULL. */
cm_status cm_stackdist_access(cm_stackdist *s, uint64_t line,
                              int64_t *distance, int64_t *reuse_time,
                              cm_err *err);
size_t cm_stackdist_lines(const cm_stackdist *s); /* distinct lines seen */

/* For the samplers: */
/* Forgets `line` as if it had never been accessed (SHARDS_MAX evicts lines
 * whose hash rose above the threshold); returns 1 if it was tracked. */
int cm_stackdist_remove(cm_stackdist *s, uint64_t line);

/* Starts loading the map entry of `line`: callers that know their next
 * lines overlap those cache misses, the main cost of an access. */
void cm_stackdist_prefetch(const cm_stackdist *s, uint64_t line);

#endif
