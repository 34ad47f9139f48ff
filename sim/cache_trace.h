/* cache_trace.h - a whole trace through the exact cache, and the counts as
 * the table `cohmod cache` writes. */
#ifndef CM_CACHE_TRACE_H
#define CM_CACHE_TRACE_H

#include "data/progress.h"
#include "data/table.h"
#include "sim/cache.h"

/* Runs every access of the trace with an op in op_mask through a new cache
 * of configuration cfg; the counts land in *counts. */
cm_status cm_cache_run_trace(const cm_cache_config *cfg, const char *path,
                             const cm_trace_opts *topts, unsigned op_mask,
                             cm_progress_fn progress, void *progress_arg,
                             cm_cache_counts *counts, cm_err *err);

/* op,accesses,hits,misses,miss_ratio: one row per op, then "all";
 * miss_ratio is empty for an op with no access. */
cm_status cm_cache_counts_table(const cm_cache_counts *c, cm_table **out,
                                cm_err *err);

#endif
