/* gpu_impl.h - what the parts of the simulated GPU share (gpu.c builds
 * and runs it, gpu_inject.c holds the traffic injectors of spatial
 * sampling, gpu_sample.c the windows and fast-forwards of temporal
 * sampling): its state and the functions they call across. */
#ifndef CM_GPU_IMPL_H
#define CM_GPU_IMPL_H

#include <gsl/gsl_rng.h>

#include "sim/engine.h"
#include "sim/gpu.h"
#include "sim/memsys.h"
#include "sim/sm.h"
#include "sim/workload_source.h"

enum { RATE_SLICE = 1000, FF_CHUNK = 32 };
/* fast_forward: SMs get rates of their own only when their spread is
 * significant at this level against their window-to-window noise. */
#define FF_SM_SIGNIFICANCE 0.01

typedef struct gpu gpu;

/* A functional SM standing in for a detailed one at the memory side. */
typedef struct injector {
    gpu *g;
    cm_sm *sm;
    uint32_t id, out; /* requests in flight */
    cm_mreq *q;       /* requests produced and not sent yet */
    uint32_t qn, qpos;
    cm_mreq **ans; /* responses (answers to forwards, PUTs) waiting for
                      the network */
    uint32_t ah, an, acap;
    uint64_t *pend; /* write-back L1s: lines asked for (inj_pending) */
    uint32_t npend;
    double next;                  /* earliest cycle of the next send */
    int scheduled, retry, paused; /* paused: draining or fast-forwarding */
    uint64_t next_id;
} injector;

typedef struct reply_slot {
    cm_l1 *l1;     /* a detailed SM */
    injector *inj; /* or an injected one */
} reply_slot;

struct gpu {
    const cm_gpu_run_config *cfg;
    const cm_params *p;
    cm_engine eng;
    cm_pool pool;
    cm_memsys *ms;
    cm_stats *scratch; /* the injected SMs' statistics, never reported */
    cm_sm **sms;
    injector *inj;
    reply_slot *slots;
    cm_sink *reply_sinks;
    cm_workload_source *src;
    uint32_t nsm, warps, ndetail;
    int temporal;
    double rate; /* injector requests per cycle, from the detailed SMs */
    uint64_t rate_sent, rate_at;
    uint64_t ff_cycles;
    /* per SM, fast-forward scratch */
    double *ff_want, *ff_got, *ff_from, *ff_cold;
    /* the instructions a held SM's (kernel_hold) share of the
     * fast-forward asked for; 0: not held */
    double *ff_quota;
    gsl_rng *rng; /* the held SMs' choice of snapshot (kernel_hold) */
    /* Per detailed SM, over the windows it was live in: the sum and sum of
     * squares of its window IPC relative to the live SMs' mean, minus 1,
     * and their count (fast_forward's per-SM rates). */
    double *dev_sum, *dev_sq, *dev_n;
    /* L2 references made by warming, and per instruction in the last
     * fast-forward's warmed part (0: not measured yet). */
    uint64_t l2_refs;
    double refs_per_inst;
    cm_stat *st_inst, *st_cycles; /* machine totals (ipc of `all`) */
    uint64_t budget;              /* sim.max_instructions left (0: none) */
    uint64_t lease; /* an injector's guess of a copy's lease (timestamps) */
    uint64_t vtime; /* the virtual time of functional accesses */
    double work;    /* memory instructions the workload gives all warps
                       (0: a trace, not known) */
};

/* ---- gpu.c ---- */
int gpu_detail_done(const gpu *g);
uint64_t gpu_detail_instructions(const gpu *g);
uint64_t gpu_detail_sent(const gpu *g);
/* detailed cycles plus the fast-forwarded ones */
uint64_t gpu_machine_now(gpu *g);
/* Runs detailed time up to `until` (or until `stop` says so), in rate
 * slices; sim.max_cycles caps `until` unless uncapped (a drain). */
cm_status gpu_run_until(gpu *g, uint64_t until, int (*stop)(const gpu *),
                        int uncapped, cm_err *err);

/* ---- gpu_inject.c ---- */
void gpu_inj_schedule(injector *in, uint64_t at);
/* Stops sending; requests produced but not sent warm the L2 instead. */
void gpu_inj_pause(injector *in, int on);
void gpu_inj_retry(void *obj);
/* The reply sink of SM slot obj: its L1, or its injector. */
int gpu_reply_accept(void *obj, cm_mreq *r);
/* The memory side's functional answer (warming); a cm_sm_mem_fn. */
int gpu_warm_l2(void *obj, const cm_mreq *m, uint64_t vtime,
                cm_warm_reply *out);

/* ---- gpu_sample.c ---- */
void gpu_sync_sms(gpu *g);
cm_status gpu_run_temporal(gpu *g, cm_stats *stats, cm_err *err);
cm_status gpu_run_spatial(gpu *g, cm_stats *stats, cm_err *err);

#endif
