/* gpu.h - the whole simulated GPU: SMs with their L1s, the memory side
 * (crossbar, L2 banks, DRAM), driven by workload profiles (or any
 * cm_warp_source, e.g. a trace), sized from the parameter registry.
 *
 * One call builds the machine, runs it to completion (every warp retired)
 * or to sim.max_cycles, checks conservation (every request answered, every
 * pooled request returned) and leaves the statistics in the caller's
 * registry, whose `all` rows it fills: `ipc` for component `all` is the
 * machine's warp instructions per cycle (the sum over SMs), the per-SM
 * rows carry each SM's own.  With sim.sample set the run is sampled (see
 * gpu.c): values are estimated from the measured windows with 95%
 * intervals, per-SM rows exist for the detailed SMs only, and
 * cm_gpu_result's cycles include the fast-forwarded ones. */
#ifndef CM_GPU_H
#define CM_GPU_H

#include <stdint.h>

#include "data/err.h"
#include "data/params.h"
#include "data/progress.h"
#include "sim/mem.h"
#include "sim/observe.h"
#include "sim/sm.h"
#include "sim/stats.h"
#include "data/workload.h"

typedef struct cm_gpu_run_config {
    const cm_params *params;
    const cm_workload_profile *workload;
    const cm_protocol *protocol;
    /* per mille of the run done (the farther of the warps' programs,
     * sim.max_cycles and sim.max_instructions), 1000 at its end; may be
     * NULL */
    cm_progress_fn progress;
    void *progress_arg;
    /* Optional instruction source overriding the workload's generators
     * (trace mode, sim/trace_source.h); workload is then unused. */
    cm_warp_source source;
    /* Optional: what the detailed SMs' components report (sim/observe.h) */
    const cm_observer *observer;
    /* Optional: lines whose values in coherent memory (the owner's copy,
     * else the L2's or DRAM's) are written into probe_values at the end */
    const uint64_t *probe_lines;
    uint64_t *probe_values;
    size_t nprobe;
} cm_gpu_run_config;

typedef struct cm_gpu_result {
    uint64_t cycles;       /* when the last warp retired */
    uint64_t instructions; /* warp instructions, all SMs */
    uint64_t events;       /* engine events executed */
    int finished;          /* every warp retired before sim.max_cycles */
} cm_gpu_result;

/* Parameters the machine cannot run with, whatever the workload:
 * sim.max_instructions when sampling, a temporal budget shorter than one
 * warm-up and window.  cm_gpu_run checks them first; a caller that runs
 * several configurations checks them before any. */
cm_status cm_gpu_check_params(const cm_params *p, cm_err *err);

cm_status cm_gpu_run(const cm_gpu_run_config *cfg, cm_stats *stats,
                     cm_gpu_result *res, cm_err *err);

#endif
