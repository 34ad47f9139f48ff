/* coh.h - the coherence simulator: the GPU coherence protocols of seed 000
 * (Temporal Coherence thesis; protocols.md part A) executed as tables, with
 * data values, on a compact event-driven machine.
 *
 * Machine (one cycle = one core cycle):
 *  - cores (SMs) of `warps` warps; each core issues at most one warp
 *    instruction per cycle, round-robin over ready warps.  A memory
 *    instruction becomes one request per line (its addrs are lines, or
 *    per-thread byte addresses coalesced here), handed to the L1 one per
 *    cycle.  Loads and atomics block their warp until every line has
 *    answered; stores are fire-and-forget but counted per warp; FENCE
 *    waits for the warp's stores to be acknowledged (and, under TC-Weak,
 *    for TIME >= the warp's GWCT); BARRIER and KERNEL wait for every warp
 *    of the core;
 *  - one private L1 per core (l1.size, l1.ways, l1.line, LRU) whose
 *    controller runs the protocol's L1 table; at most l1.mshrs requests of
 *    a core are in flight (every request kind counts);
 *  - a crossbar: every message is serialised at its source and destination
 *    port (one flit per NoC cycle, noc.flit bytes, header noc.header) and
 *    travels noc.latency NoC cycles; messages between one source and one
 *    destination arrive in the order sent (point-to-point order, which
 *    GPU-VI and TC rely on);
 *  - l2.banks L2 banks (address-interleaved by line) whose controller runs
 *    the protocol's L2 table: an in-order request queue served one request
 *    per L2 cycle, whose head blocks the queue while it cannot proceed
 *    (head-of-line blocking; TCSOO and MESI instead serve the oldest
 *    request that can proceed); responses (INVACK, owner data) and DRAM
 *    fills are handled on arrival, on their own virtual networks;
 *  - DRAM: one channel per bank, a fixed access time plus the line's
 *    transfer time, serialised per channel.
 * The timing is deliberately simpler than sim/gpu.c's detailed machine
 * (no bounded NoC buffers, no DRAM rows): the coherence study compares
 * protocols on one model, and the analytical models are calibrated on it.
 *
 * Data values.  Each line carries one 64-bit value (litmus variables live
 * on distinct lines).  The k-th store or atomic (k = 1, 2, ...) of warp w
 * of core c writes cm_coh_store_value(c, w, k), so a load's value names
 * the store it read; memory starts at 0.  on_load reports every value a
 * load or atomic returns, in completion order.
 *
 * Randomised timing (litmus): with jitter > 0 every message gets a random
 * extra delay in [0, jitter] (per-link order kept), each thread's start
 * and each instruction's issue too; the seed makes it reproducible.
 *
 * Statistics (cm_stats, component "all" unless said): noc.flits,
 * noc.msgs.<class> (every message class the protocol sends), dir.recalls,
 * dir.invalidations, l2.store_stall_cycles, fence.wait_cycles,
 * l1.accesses, l1.hits, l1.misses, l1.miss_ratio, l2.accesses, l2.misses,
 * l2.evictions, l2.mshr.occupancy (parked timestamps included),
 * coh.cycles, coh.instructions, coh.ipc; under TC also
 * tc.outcome.<hit|expired|evicted|unused>, tc.lifetime_mean (the
 * time-average of the lifetime loads request, over banks, from the start
 * of the run) and the lifetime predictor's events (seed 000 section 4.4),
 * counted under every TC protocol whether or not it predicts:
 * tc.pred.l1_expired (loads whose L1 copy expired), tc.pred.l2_expired
 * (loads reaching a valid L2 line whose GT expired; not the ones that
 * missed), tc.pred.evict_unexpired, tc.pred.write_unexpired (stores to an
 * unexpired line, when tc.write_update applies). */
#ifndef CM_COH_H
#define CM_COH_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/params.h"
#include "sim/sm.h" /* cm_warp_source, cm_inst */
#include "sim/stats.h"

/* The consistency model a protocol gives programs with fences. */
typedef enum cm_coh_model {
    CM_COH_MODEL_NONE = 0, /* not coherent (NO-COH) */
    CM_COH_MODEL_RCPC,     /* release consistency, no write atomicity
                              (TC-Weak) */
    CM_COH_MODEL_RCSC      /* release consistency with write atomicity
                              (MESI, GPU-VI, GPU-VIni, TC-Strong, NO-L1,
                              WT) */
} cm_coh_model;

typedef struct cm_coh_protocol cm_coh_protocol;

/* By --protocol name: no-l1 no-coh wt mesi gpu-vi gpu-vini tcsuo tcs tcsoo
 * tcw tcw-fixed.  NULL when unknown. */
const cm_coh_protocol *cm_coh_protocol_find(const char *name);
size_t cm_coh_protocol_count(void);
const cm_coh_protocol *cm_coh_protocol_at(size_t i); /* NULL past the end */
const char *cm_coh_protocol_name(const cm_coh_protocol *p);
const char *cm_coh_protocol_summary(const cm_coh_protocol *p);
cm_coh_model cm_coh_protocol_model(const cm_coh_protocol *p);

/* The value the k-th store (k >= 1) of warp w of core c writes. */
static inline uint64_t cm_coh_store_value(uint32_t core, uint32_t warp,
                                          uint32_t warps, uint32_t k)
{
    return ((uint64_t)core * warps + warp + 1) << 32 | k;
}

typedef void (*cm_coh_load_fn)(void *obj, uint32_t core, uint32_t warp,
                               uint64_t line, uint64_t value);

typedef struct cm_coh_config {
    const cm_coh_protocol *proto;
    const cm_params *params; /* machine, tc.*, dir.*, sim.seed ignored */
    uint32_t cores, warps;   /* 0: gpu.sms, gpu.warps_per_sm */
    cm_warp_source src;
    uint64_t seed;   /* random timing and nothing else */
    uint32_t jitter; /* cycles; 0: no random timing */
    cm_stats *stats; /* required */
    cm_coh_load_fn on_load; /* optional */
    void *on_load_obj;
    /* optional: filled at the end of cm_coh_run with the run's timing
     * profile (models/profile.h: reuse, residency, read-to-write, load
     * gap, eviction age, store-to-fence and directory stack-distance
     * distributions, sharers per directory eviction, and the rates) */
    struct cm_profile *profile;
} cm_coh_config;

typedef struct cm_coh cm_coh;

cm_status cm_coh_new(const cm_coh_config *cfg, cm_coh **out, cm_err *err);
void cm_coh_free(cm_coh *c);

typedef struct cm_coh_result {
    uint64_t cycles;       /* when the last warp retired and all was quiet */
    uint64_t instructions; /* warp instructions issued */
    int finished;          /* 0: stopped at max_cycles or
                              sim.max_instructions */
} cm_coh_result;

/* Runs until every warp has retired and every message is answered, or
 * max_cycles, or the params' sim.max_instructions (when not 0) have been
 * executed.  An internal protocol error (a missing table row) names the
 * protocol, controller, state and event. */
cm_status cm_coh_run(cm_coh *c, uint64_t max_cycles, cm_coh_result *res,
                     cm_err *err);

/* The line's value in coherent memory after a run: the owner's copy under
 * MESI, else the L2 (or DRAM). */
uint64_t cm_coh_value(const cm_coh *c, uint64_t line);

/* One run of a workload profile (sim/workload.h; its warps seeded from
 * sim.seed) or, if source.next is set, of that instruction source, on the
 * machine of params, to completion or sim.max_cycles.  sim/coh_workload.c */
struct cm_workload_profile;
cm_status cm_coh_simulate(const cm_params *params,
                          const struct cm_workload_profile *workload,
                          cm_warp_source source, const cm_coh_protocol *proto,
                          cm_stats *stats, cm_coh_result *res, cm_err *err);
/* The same, also filling the timing profile (may be NULL). */
cm_status cm_coh_simulate_profile(const cm_params *params,
                                  const struct cm_workload_profile *workload,
                                  cm_warp_source source,
                                  const cm_coh_protocol *proto,
                                  cm_stats *stats, struct cm_profile *profile,
                                  cm_coh_result *res, cm_err *err);

#endif
