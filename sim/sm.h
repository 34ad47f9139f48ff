/* sm.h - one streaming multiprocessor: warps, a warp scheduler, the
 * coalescer, the LD/ST unit and its L1 (sim/l1.h).
 *
 * Timing (one cycle = one core cycle; protocols.md A, policies.md):
 *  - one scheduler issues at most one warp instruction per cycle per SM
 *    (the seed-002 machine has two schedulers of 24 warps; one issue slot
 *    is the compact simulator's simplification);
 *  - COMPUTE(n) is n warp instructions, each taking the issue slot for a
 *    cycle; results are ready the next cycle (no ALU latency modelled);
 *  - a memory instruction is coalesced at issue into one request per
 *    unique line (the source gives lines, or per-thread byte addresses of
 *    `bytes` each, an access straddling lines touching both) and handed to
 *    the LD/ST unit, which holds one instruction at a time and offers one
 *    request per cycle to the L1.  A refused request (reservation failure)
 *    is offered again next cycle; a busy memory side is waited out until
 *    its retry.  Every cycle the LD/ST unit is stuck is a memory-pipeline
 *    stall cycle (mem_pipeline.stall_ratio = stall cycles / SM cycles);
 *    while it is busy no other memory instruction issues;
 *  - a load or atomic instruction blocks its warp until every request of
 *    it has completed; stores are fire-and-forget, but counted per warp;
 *  - FENCE waits for the warp's outstanding stores (release) and, where
 *    acknowledgements carry a Global Write Completion Time (TC-Weak), until
 *    time has passed the warp's largest; then it performs an acquire at
 *    the L1 (flash event ACQUIRE: WT invalidates);
 *  - data values: the k-th store or atomic line (k = 1, 2, ...) of warp w
 *    writes cm_store_value(sm, w, warps, k), so a load's value names the
 *    store it read (the L1 reports values through the observer);
 *  - BARRIER waits until every live warp of its block (block_warps warps,
 *    0: the whole SM) has arrived; KERNEL (a kernel boundary) waits for
 *    every live warp of the SM, then sends KERNEL_START to the L1.  Grid
 *    scope is the machine's business: both are SM-local here;
 *  - END retires the warp.
 * Throttling: at most active_warps (sched.active_warps) warps are launched
 * at a time; a retiring warp's place goes to the lowest unlaunched warp.
 * Barriers count launched warps only, so a throttle should admit whole
 * blocks.
 * Schedulers (sched.policy) plug in through sim/sched.h, one file per
 * policy: LRR (sched_lrr.c), GTO (sched_gto.c), two-level
 * (sched_two_level.c).
 * The run loop allocates nothing; the SM sleeps (schedules no event) while
 * no warp can issue and the LD/ST unit has nothing to retry, and is woken
 * by completions and retries. */
#ifndef CM_SM_H
#define CM_SM_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/params.h"
#include "sim/engine.h"
#include "sim/l1.h"
#include "sim/observe.h"
#include "sim/sched.h"
#include "sim/stats.h"

/* ---- instruction source -------------------------------------------------- */

typedef enum cm_inst_kind {
    CM_INST_COMPUTE = 0, /* n instructions of ALU work */
    CM_INST_LOAD,        /* memory: addrs[0..n) */
    CM_INST_STORE,
    CM_INST_ATOMIC,
    CM_INST_BARRIER,
    CM_INST_FENCE,
    CM_INST_KERNEL, /* kernel boundary */
    CM_INST_END     /* the warp is done; returned on every later call */
} cm_inst_kind;

typedef struct cm_inst {
    uint8_t kind;          /* cm_inst_kind */
    uint8_t per_thread;    /* memory: addrs are per-thread byte addresses */
    uint16_t bytes;        /* per-thread access size (per_thread), or the
                              payload per line of a store or atomic */
    uint32_t n;            /* COMPUTE: instructions; memory: entries of addrs */
    const uint64_t *addrs; /* line numbers, or byte addresses; owned by the
                              source, valid until its next call for this
                              warp */
} cm_inst;

/* Fills *inst with warp's next instruction of SM sm: CM_OK, or an error
 * (which stops the SM).  Called once per instruction, in program order. */
typedef struct cm_warp_source {
    cm_status (*next)(void *obj, uint32_t sm, uint32_t warp, cm_inst *inst,
                      cm_err *err);
    void *obj;
} cm_warp_source;

/* ---- configuration ------------------------------------------------------- */

typedef enum cm_stall_reason {
    CM_STALL_MEM_PIPELINE = 0, /* a memory instruction waits for LD/ST */
    CM_STALL_MEM_WAIT,         /* warps wait for loads or atomics */
    CM_STALL_FENCE,            /* warps wait for store acks */
    CM_STALL_BARRIER,          /* warps wait at a barrier or kernel end */
    CM_STALL_IDLE,             /* no live warp */
    CM_STALL_COUNT
} cm_stall_reason;

typedef struct cm_sm_config {
    uint32_t id;
    uint32_t warps;        /* gpu.warps_per_sm */
    uint32_t active_warps; /* sched.active_warps (clamped to warps) */
    uint32_t block_warps;  /* warps per block for BARRIER; 0: all */
    const cm_sched_policy *policy; /* sched.policy (sim/sched.h) */
    uint32_t two_level_active; /* sched.two_level_active */
    uint32_t max_lines;        /* coalescer capacity per instruction */
    cm_l1_config l1;           /* all but sm, done, wake, stats, component */
    cm_warp_source src;
    cm_stats *stats; /* required */
    const cm_observer *obs; /* optional; also the L1's */
    /* optional: the machine's instruction budget (sim.max_instructions),
     * shared by the SMs; the engine stops when it runs out */
    uint64_t *budget;
    /* optional: called at every fence issued (the L2's t_write rule) */
    void (*fenced)(void *obj);
    void *fenced_obj;
    /* Optional trace of every issued instruction (tests, debugging). */
    void (*on_issue)(void *obj, uint32_t sm, uint32_t warp, uint8_t kind,
                     uint64_t cycle);
    void *on_issue_obj;
} cm_sm_config;

/* warps, active_warps, policy, two_level_active, max_lines (2 x
 * gpu.threads_per_warp: a straddling access touches two lines) and the L1's
 * params (cm_l1_config_params); the rest of *cfg is left as it was. */
void cm_sm_config_params(cm_sm_config *cfg, const cm_params *p);

typedef struct cm_sm cm_sm;

cm_status cm_sm_new(const cm_sm_config *cfg, cm_engine *eng, cm_sm **out,
                    cm_err *err);
void cm_sm_free(cm_sm *sm);

/* Starts a kernel: KERNEL_START at the L1, launches the first active_warps
 * warps and schedules the first cycle. */
cm_status cm_sm_start(cm_sm *sm, cm_err *err);

cm_l1 *cm_sm_l1(cm_sm *sm);
/* Every warp retired and every request it sent answered. */
int cm_sm_done(const cm_sm *sm);
uint64_t cm_sm_finish_cycle(const cm_sm *sm); /* when the last retired */
/* Memory instructions issued so far, timed and functional (fast-forward,
 * injection): how far the warps are through their programs. */
uint64_t cm_sm_mem_issued(const cm_sm *sm);
/* Instructions issued so far (it settles a planned compute stretch). */
uint64_t cm_sm_instructions(cm_sm *sm);
uint64_t cm_sm_stall_cycles(const cm_sm *sm, cm_stall_reason r);
uint64_t cm_sm_mem_stall_cycles(const cm_sm *sm);
/* ---- sampling (sim/gpu.c) ------------------------------------------------ */

/* While draining, the scheduler issues nothing new; the LD/ST unit still
 * finishes its instruction and outstanding requests still complete.
 * Turning it off wakes the SM. */
void cm_sm_set_drain(cm_sm *sm, int on);
/* Charges a sleeping SM's cycles and a compute stretch's
 * cycles before now, to its statistics (the next tick would, later): call
 * it at window boundaries so each window gets its own cycles. */
void cm_sm_sync(cm_sm *sm);
/* Nothing in flight: the LD/ST unit is empty and no warp waits for a load,
 * an atomic or a store acknowledgement. */
int cm_sm_quiet(const cm_sm *sm);

/* The memory side's functional answer to a message a functional
 * instruction's L1 access sends (sim/mem.h cm_l1_warm_fn: a request, or a
 * victim's PUT); nonzero asks cm_sm_functional to stop after this
 * instruction. */
typedef int (*cm_sm_mem_fn)(void *obj, const cm_mreq *m, uint64_t vtime,
                            cm_warm_reply *out);

/* Functional execution (fast-forward and traffic injection): about n
 * instructions, an equal share per live warp (a compute run counts its
 * instructions), each memory request applied to the L1 tags by
 * cm_l1_warm and its message, if any, handed to mem.  No time passes and
 * no statistic is counted, but cm_sm_instructions is.  It runs beside the
 * timed state: a warp waiting for loads moves on and their replies, when
 * they come, are absorbed; a fence or a kernel boundary waiting for
 * stores passes (their acknowledgements still count); the LD/ST unit's
 * instruction is left alone.  Returns the instructions
 * executed: fewer than n when every warp has retired, or mem said stop.
 * mem NULL: the warps only advance, no tag is warmed and no message made
 * (a fast-forward's unwarmed stretch).
 * An SM never started runs functionally only (a traffic injector's). */
uint64_t cm_sm_functional(cm_sm *sm, uint64_t n, cm_sm_mem_fn mem,
                          void *obj, uint64_t vtime);

/* Kernel boundaries the SM has passed (timed or functionally), and in
 * *insts (if not NULL) its instructions when it passed the last. */
uint64_t cm_sm_kernels(const cm_sm *sm, uint64_t *insts);
/* Kernel snapshots: cm_sm_kernel_snap records, if the SM has passed a
 * kernel boundary, its boundaries passed, its instructions and each
 * warp's place in its kernel (memory instructions issued since its kernel
 * began) in a ring of the last CM_SM_SNAPS; cm_sm_kernel_snaps counts
 * those kept and cm_sm_kernel_snap_at(k) reads the k-th oldest. */
enum { CM_SM_SNAPS = 64 };
void cm_sm_kernel_snap(cm_sm *sm);
uint32_t cm_sm_kernel_snaps(const cm_sm *sm);
void cm_sm_kernel_snap_at(const cm_sm *sm, uint32_t k, uint64_t *kernels,
                          uint64_t *insts);
/* A kernel hold (goal > 0): later cm_sm_functional calls take each warp
 * across kernel boundaries until the SM has passed goal of them, and then
 * to its place in snapshot k (k >= the snapshots kept: its place now),
 * and no further: as many memory instructions issued in its kernel as
 * there, then stopped before the next, or waiting at the boundary.  They
 * execute fewer than n once every warp is there.  The warps' spread
 * inside the kernel carries over a fast-forward of whole kernels.  The
 * goal must be past the boundaries passed now.
 * goal = 0 ends the hold; the timed machine passes the boundary if every
 * warp waits there. */
void cm_sm_kernel_hold(cm_sm *sm, uint32_t k, uint64_t goal);

/* NULL, or the sticky error (the SM's or its L1's). */
const cm_err *cm_sm_error(const cm_sm *sm);

#endif
