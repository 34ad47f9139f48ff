/* litmus.h - litmus tests of the simulator (sim/gpu.h): tiny
 * multi-threaded programs run many times under random timing, whose
 * outcomes (the values loads return, the final memory) are checked against
 * what each protocol's consistency model allows.  A forbidden outcome is a
 * protocol bug, replayable from the seed of the run that showed it.
 *
 * The machine as the tests see it (sim/gpu.h, sim/sm.h):
 *  - a thread is warp 0 of its own SM (gpu.sms = threads,
 *    gpu.warps_per_sm = 1);
 *  - one memory instruction per program line, one line per instruction
 *    (cm_inst per_thread = 0, n = 1, addrs = the variable's line);
 *  - loads block their warp until they answer, so load->load and
 *    load->store keep program order; stores are fire-and-forget, so
 *    store->store and store->load may be reordered (they travel to
 *    different L2 banks over jittered links) unless a FENCE separates them;
 *  - FENCE waits for every store of the warp to be acknowledged (under
 *    TC-Weak also until TIME >= the warp's GWCT, when every stale copy of
 *    what it stored has expired) and then acquires at the L1 (WT
 *    flash-invalidates it).  An acknowledgement means the store is
 *    globally performed under write atomicity (GPU-VI and GPU-VIni collect
 *    INVACKs first, TC-Strong stalls the store until every copy expired,
 *    MESI holds M, NO-L1 has no copies, WT invalidates at the reader's
 *    acquire); under TC-Weak it only means the L2 holds the value;
 *  - NO-COH's fence does not invalidate the L1, and a store there does not
 *    invalidate other L1s: it is not coherent.
 *
 * Variables.  Variable i (x = 0, y = 1) lives alone on line
 * CM_LITMUS_LINE(i) = 1001 * (i + 1): x = 1001, y = 2002.  The two differ
 * in the lowest bit, so they fall in different L2 banks for any power-of-two
 * l2.banks >= 2 (and in different L1 and L2 sets of the default machines:
 * 1001 mod 64 = 41, 2002 mod 64 = 18), which lets messages to x and y take
 * independent paths and overtake each other.  Memory starts at 0; the k-th
 * store of thread t writes cm_store_value(t, 0, 1, k) (sim/mem.h; written
 * "t.k" below and in outcome strings), so a load's value names the store it
 * read.
 *
 * The tests (registers r0.. numbered over all threads; a warm-up load is a
 * load whose value the weak outcome ignores: it puts a copy of the line in
 * the thread's L1 that a non-coherent or non-write-atomic protocol may
 * leave stale):
 *
 *  mp        T0: st x; st y               T1: r0=ld y; r1=ld x
 *            weak: r0 = 0.2 (flag new), r1 = 0 (data old).  Allowed by
 *            every model: the stores may reorder (no fence).
 *  mp+fences T0: st x; fence; st y        T1: r0=ld x (warm-up); r1=ld y;
 *                                             fence; r2=ld x
 *            weak: r1 = 0.2, r2 = 0.  Forbidden by RCpc and RCsc: st y is
 *            issued after st x is performed (acknowledged with write
 *            atomicity; under TC-Weak after its GWCT, when T1's copy of x
 *            has expired); r1 read st y, so r2, issued after r1 returned
 *            and after T1's fence, reads x after st x was performed and
 *            cannot see 0.  NO-COH (model none) shows it: T1's warm-up copy
 *            of x survives st x and its fence, and r2 hits it.
 *  sb        T0: st x; r0=ld y            T1: st y; r1=ld x
 *            weak: r0 = r1 = 0.  Allowed by every model (store->load
 *            reorders without a fence).
 *  sb+fences T0: r0=ld y (warm-up); st x; fence; r1=ld y
 *            T1: r2=ld x (warm-up); st y; fence; r3=ld x
 *            weak: r1 = r3 = 0.  Forbidden by RCsc: each fence completes
 *            after its store is performed everywhere, so the later of the
 *            two fences is after both stores are performed, and the load
 *            after it reads the other thread's store.  Allowed by RCpc (a
 *            release followed by an acquire may reorder); TC-Weak's unified
 *            FENCE waits for its GWCT, which is after every stale copy
 *            expired, so it should not show it either.  NO-COH shows it
 *            (both loads hit the warm-up copies).
 *  lb        T0: r0=ld x; st y            T1: r1=ld y; st x
 *            weak: r0 = 1.1, r1 = 0.1.  Forbidden by every model, NO-COH
 *            included: a load blocks, so each store is issued after the
 *            other thread's store was read, a cycle in time; no value can
 *            come from a store not yet issued.
 *  iriw      T0: st x                     T1: st y
 *            T2: r0=ld y (warm-up); r1=ld x; fence; r2=ld y
 *            T3: r3=ld x (warm-up); r4=ld y; fence; r5=ld x
 *            weak: r1 = 0.1, r2 = 0, r4 = 1.1, r5 = 0 (the readers see the
 *            two stores in opposite orders).  Forbidden by RCsc (write
 *            atomicity: one store became visible to all first).  Allowed
 *            by RCpc: under TC-Weak T2's warm-up copy of y may still be
 *            valid after T3 read the new y from the L2 (the warm-ups make
 *            this possible; without them every read would go to the L2,
 *            which orders each line's accesses).
 *  corr      T0: st x; st x               T1: r0=ld x; r1=ld x; r2=ld x
 *            weak: T1 reads x backwards in coherence order 0 < 0.1 < 0.2
 *            (r1 before r0, or r2 before r1).  Forbidden by RCpc and RCsc
 *            (per-location coherence: T0's stores reach the L2 in order
 *            over one link, and an L1 copy is only replaced by a newer
 *            fill).
 *  cowr      T0: r0=ld x (warm-up); st x; r1=ld x     T1: st x
 *            weak: r1 = 0, or r1 = 1.1 while the final x is 0.1 (T1's
 *            store coherence-precedes T0's own, yet T0 read it after its
 *            own).  Forbidden by RCpc and RCsc: a thread reads its own
 *            store or a coherence-later one.  The warm-up copy exercises a
 *            store to a valid L1 line (GPU-VI writes it at once and treats
 *            the later load as a miss; NO-COH evicts it).
 *  coww      T0: st x; st x               T1: st x
 *            weak: the final x is 0.1 (T0's stores performed out of
 *            program order).  Forbidden by RCpc and RCsc.
 *  corw      T0: r0=ld x; st x            T1: st x
 *            weak: r0 = 0.1 (T0 read its own program-later store), or
 *            r0 = 1.1 and the final x is 1.1 (T0 read T1's store, yet its
 *            own later store is coherence-before it).  Forbidden by RCpc
 *            and RCsc; structurally impossible here since the load blocks.
 *
 * Every test's forbidden set is per cm_consistency; "weak" counts the weak
 * outcome whether or not the model allows it, "forbidden" only where the
 * protocol's model forbids it.
 *
 * Runs.  Run r of a batch uses a fresh machine with seed
 * cm_litmus_run_seed(seed, r) and random timing of up to `jitter` cycles:
 * at every crossbar port (noc.jitter, the simulator's own randomisation)
 * and before every thread's instruction (a compute stretch of 0..jitter
 * cycles).  A run that has not
 * finished after min(sim.max_cycles, CM_LITMUS_MAX_CYCLES) cycles is
 * counted as unfinished (a deadlock or livelock: a bug) and has no outcome.
 * cm_litmus_run_once replays a single run from its seed. */
#ifndef CM_LITMUS_H
#define CM_LITMUS_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/params.h"
#include "sim/protocol.h"

#define CM_LITMUS_MAX_THREADS 4
#define CM_LITMUS_MAX_OPS 6
#define CM_LITMUS_MAX_REGS 8
#define CM_LITMUS_MAX_VARS 2
#define CM_LITMUS_MAX_CYCLES 1000000u
#define CM_LITMUS_LINE(var) (1001u * ((uint64_t)(var) + 1))

typedef enum cm_litmus_op_kind {
    CM_LITMUS_LD = 1, /* reg <- var */
    CM_LITMUS_ST,     /* var <- the thread's next store value */
    CM_LITMUS_FENCE
} cm_litmus_op_kind;

typedef struct cm_litmus_op {
    uint8_t kind; /* cm_litmus_op_kind; 0 ends the program */
    uint8_t var;  /* LD, ST */
    uint8_t reg;  /* LD */
} cm_litmus_op;

/* What a run produced: every register and the final value of every
 * variable (raw 64-bit values: 0 or a cm_store_value). */
typedef struct cm_litmus_outcome {
    uint64_t reg[CM_LITMUS_MAX_REGS];
    uint64_t mem[CM_LITMUS_MAX_VARS];
} cm_litmus_outcome;

typedef struct cm_litmus_test {
    const char *name;    /* for --test */
    const char *summary; /* one line */
    uint8_t nthreads, nvars, nregs;
    cm_litmus_op prog[CM_LITMUS_MAX_THREADS][CM_LITMUS_MAX_OPS];
    /* The weak (relaxed) outcome: nonzero when o is it. */
    int (*weak)(const cm_litmus_outcome *o);
    unsigned forbidden; /* bit (1u << cm_consistency) per model forbidding
                           it */
} cm_litmus_test;

size_t cm_litmus_test_count(void);
const cm_litmus_test *cm_litmus_test_at(size_t i); /* NULL past the end */
const cm_litmus_test *cm_litmus_test_find(const char *name);

/* Whether the model forbids the test's weak outcome. */
int cm_litmus_forbids(const cm_litmus_test *t, cm_consistency m);
/* "none", "rcpc", "rcsc". */
const char *cm_litmus_model_name(cm_consistency m);

/* The value of thread t's k-th store (k >= 1) in a litmus run. */
uint64_t cm_litmus_store_value(uint32_t thread, uint32_t k);

/* "r0=0.2 r1=0 x=0.1 y=0.2": registers, then final memory; a store's value
 * as thread.k.  Truncated to len. */
void cm_litmus_outcome_format(const cm_litmus_test *t,
                              const cm_litmus_outcome *o, char *buf,
                              size_t len);

/* The seed of run r of a batch seeded with seed (a bijective mix). */
uint64_t cm_litmus_run_seed(uint64_t seed, uint64_t r);

/* One run on a fresh machine: *finished is 0 when it hit the cycle limit
 * (then *out is what it had).  Errors: the simulator's (a missing table
 * row...), or a load answering on a line it did not ask for, prefixed by
 * the test, protocol and run seed. */
cm_status cm_litmus_run_once(const cm_litmus_test *t,
                             const cm_protocol *proto,
                             const cm_params *params, uint64_t run_seed,
                             uint32_t jitter, cm_litmus_outcome *out,
                             int *finished, cm_err *err);

typedef struct cm_litmus_count {
    cm_litmus_outcome outcome;
    uint64_t count;
} cm_litmus_count;

typedef struct cm_litmus_result {
    const cm_litmus_test *test;
    const cm_protocol *proto;
    cm_consistency model;
    int model_forbids;   /* the model forbids the weak outcome */
    uint64_t runs;       /* runs done (finished or not) */
    uint64_t unfinished; /* runs that hit the cycle limit */
    uint64_t weak;       /* runs showing the weak outcome */
    uint64_t forbidden;  /* = weak when model_forbids, else 0 */
    /* the first run showing a forbidden outcome (forbidden > 0) */
    uint64_t first_forbidden_run, first_forbidden_seed;
    /* the first run showing the weak outcome (weak > 0) */
    uint64_t first_weak_run, first_weak_seed;
    /* distinct outcomes with their counts, in order of first appearance */
    cm_litmus_count *hist;
    size_t nhist, cap;
} cm_litmus_result;

void cm_litmus_result_init(cm_litmus_result *res, const cm_litmus_test *t,
                           const cm_protocol *proto);
void cm_litmus_result_free(cm_litmus_result *res);

/* Runs first .. first + n - 1 of the batch seeded with seed, adding to
 * *res (initialised for the same test and protocol).  Batches can so be
 * cut in pieces (for progress) with the same outcome as one piece. */
cm_status cm_litmus_run_range(cm_litmus_result *res, const cm_params *params,
                              uint64_t first, uint64_t n, uint64_t seed,
                              uint32_t jitter, cm_err *err);

/* runs runs of test t on protocol proto: *res is initialised here (free it
 * with cm_litmus_result_free, on error too). */
cm_status cm_litmus_run(const cm_litmus_test *t, const cm_protocol *proto,
                        const cm_params *params, uint64_t runs, uint64_t seed,
                        uint32_t jitter, cm_litmus_result *res, cm_err *err);

#endif
