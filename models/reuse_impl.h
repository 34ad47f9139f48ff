/* reuse_impl.h - internals shared by the reuse-distance engines (not part
 * of the public API; see reuse.h): the sampled engines behind
 * cm_reuse_engine.  The line map and the exact engine are data/linemap.h
 * and data/stackdist.h. */
#ifndef CM_REUSE_IMPL_H
#define CM_REUSE_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "data/err.h"
#include "data/linemap.h"
#include "data/stackdist.h"
#include "models/reuse.h"

/* ---- sampled engines behind cm_reuse_engine ----------------------------- */

/* SHARDS (fixed rate or fixed size) and, with kind CM_SAMPLE_NONE, the
 * exact histogram: the same path with every line sampled. */
typedef struct cm_shards cm_shards;
cm_status cm_shards_new(const cm_sample_spec *spec, uint64_t exact_bins,
                        cm_shards **out, cm_err *err);
cm_status cm_shards_access(cm_shards *s, uint64_t line, cm_err *err);
cm_status cm_shards_finish(cm_shards *s, cm_reuse_hist *h, cm_err *err);
cm_status cm_shards_replicates(const cm_shards *s, cm_reuse_hist *reps,
                               size_t *n, cm_err *err);
void cm_shards_free(cm_shards *s);

typedef struct cm_statstack cm_statstack;
cm_status cm_statstack_new(const cm_sample_spec *spec, uint64_t exact_bins,
                           cm_statstack **out, cm_err *err);
cm_status cm_statstack_access(cm_statstack *s, uint64_t line, cm_err *err);
cm_status cm_statstack_finish(const cm_statstack *s, cm_reuse_hist *h,
                              cm_err *err);
cm_status cm_statstack_replicates(const cm_statstack *s,
                                  cm_reuse_hist *reps, size_t *n,
                                  cm_err *err);
void cm_statstack_free(cm_statstack *s);

/* Copies src into dst (initialised by the call). */
cm_status cm_reuse_hist_copy(cm_reuse_hist *dst, const cm_reuse_hist *src,
                             cm_err *err);

#endif
