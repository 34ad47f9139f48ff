/* reuse_stream.h - reuse histograms of a trace, split into streams.
 *
 * Reads a trace once, keeps the accesses whose op is selected, maps each
 * to the lines it covers (an access straddling a line boundary references
 * every line it touches, each once), and feeds one reuse engine per stream:
 * the whole trace, each SM, or each warp (kernel, block and warp together
 * name a warp, so warps of different blocks never share a stream). */
#ifndef CM_REUSE_STREAM_H
#define CM_REUSE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/progress.h"
#include "data/table.h"
#include "data/trace.h"
#include "models/reuse.h"
#include "models/setlocal.h"
#include "models/spatial.h"

typedef enum cm_reuse_per {
    CM_PER_ALL = 0,
    CM_PER_SM,
    CM_PER_WARP
} cm_reuse_per;

cm_status cm_reuse_per_parse(const char *text, cm_reuse_per *per,
                             cm_err *err);

/* "load,store,modify,atomic" (any subset, or "all") -> bit per cm_op. */
cm_status cm_op_mask_parse(const char *text, unsigned *mask, cm_err *err);

typedef struct cm_reuse_request {
    const char *trace;
    cm_trace_opts trace_opts;
    uint32_t line_bytes;
    unsigned op_mask;    /* 1u << cm_op for each op kept */
    cm_reuse_per per;
    cm_sample_spec sample;
    uint64_t exact_bins;
    /* Optional: also fed every line reference kept (whatever its stream),
     * so set-local distances come from the same pass. */
    cm_setlocal *setlocal;
    /* Optional, the same way: set occupancy of the reuse windows. */
    cm_spatial *spatial;
    cm_progress_fn progress; /* called with bytes read, total 0 */
    void *progress_arg;
} cm_reuse_request;

typedef struct cm_reuse_stream {
    char name[48];      /* "all", "sm3", "k1.b12.w3" */
    uint64_t key;
    cm_reuse_hist hist;
    /* the jackknife's replicates of hist (reuse.h) when the request's
     * sample.replicates is set and the engine samples; else none */
    cm_reuse_hist *reps;
    size_t nreps;
} cm_reuse_stream;

typedef struct cm_reuse_result {
    cm_reuse_stream *streams; /* ordered by key */
    size_t nstreams;
    uint64_t accesses;        /* trace accesses kept */
    uint64_t references;      /* line references fed to the engines */
} cm_reuse_result;

cm_status cm_reuse_from_trace(const cm_reuse_request *req,
                              cm_reuse_result *res, cm_err *err);
void cm_reuse_result_free(cm_reuse_result *res);

/* The histograms as a table:
 * stream,kind,distance_lo,distance_hi,count,fraction,sampling_rate with kind
 * exact, log2 or cold (distance_lo = distance_hi = inf). */
cm_status cm_reuse_result_table(const cm_reuse_result *res, cm_table **out,
                                cm_err *err);

/* The parametric fit of each stream's MRC as a table:
 * stream,m_inf,m_inf_se,c0,c0_se,alpha,alpha_se,rmse,r2,points,note; note
 * names the parameters on a bound or with a standard error above their
 * value (cm_mrc_fit_note), or why a stream has no fit (its numbers then
 * empty), and is empty for a clean fit. */
cm_status cm_reuse_fit_table(const cm_reuse_result *res, cm_table **out,
                             cm_err *err);

#endif
