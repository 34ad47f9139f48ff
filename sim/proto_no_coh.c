/* proto_no_coh.c - NO-COH: the non-coherent L1, write-evict and
 * write-no-allocate.
 *
 * Seed statement (seed 000 via protocols.md A, "NO-COH"): "L1 write-evict
 * (a store invalidates the local copy), write-no-allocate, not coherent.
 * States: L1 4 (2 stable, 2 transient)."  The four are I, V (stable), I_V
 * (load miss awaiting its fill) and I_I (store or atomic in flight, line
 * not kept).  Atomics run at the L2 (protocols.md A, common machine), so an
 * atomic drops the local copy like a store.  Choices the seed leaves open:
 *  - a store to a line whose fill is pending (I_V) is sent through and the
 *    fill still installs the line: values are not simulated, and the seed's
 *    four states leave none for "fill, then drop";
 *  - kernel start and acquire change nothing: the protocol is not coherent
 *    and relies on no invalidation (the rows exist so the L1 can run them);
 *  - a clean eviction (REPLACE) is silent.
 * The L2 table belongs to the memory side (sim/memsys) and is empty here. */
#include "sim/proto_rows.h"

static const cm_proto_row rows[] = {
    ROW(I, LOAD, I_V, GETS, MISS),
    ROW(I, STORE, I_I, WRITE, THRU),
    ROW(I, ATOMIC, I_I, ATOMIC, THRU),
    ROW(V, LOAD, V, NONE, CM_ACT_HIT),
    ROW(V, STORE, I_I, WRITE, CM_ACT_INVALIDATE | THRU),
    ROW(V, ATOMIC, I_I, ATOMIC, CM_ACT_INVALIDATE | THRU),
    ROW(V, REPLACE, I, NONE, CM_ACT_INVALIDATE),
    ROW(I_V, LOAD, I_V, NONE, CM_ACT_MSHR), /* merge */
    ROW(I_V, STORE, I_V, WRITE, THRU),      /* not merged */
    ROW(I_V, ATOMIC, I_V, ATOMIC, THRU),
    ROW(I_V, DATA, V, NONE, CM_ACT_FILL | CM_ACT_COMPLETE),
    ROW(I_I, LOAD, I_V, GETS, MISS),
    ROW(I_I, STORE, I_I, WRITE, THRU),
    ROW(I_I, ATOMIC, I_I, ATOMIC, THRU),
    ROW(I_I, DATA, I, NONE, CM_ACT_COMPLETE),
    ROW(I_I, ACK, I, NONE, CM_ACT_COMPLETE),
    ROW(I, KERNEL_START, I, NONE, 0),
    ROW(V, KERNEL_START, V, NONE, 0),
    ROW(I_V, KERNEL_START, I_V, NONE, 0),
    ROW(I, ACQUIRE, I, NONE, 0),
    ROW(V, ACQUIRE, V, NONE, 0),
    ROW(I_V, ACQUIRE, I_V, NONE, 0),
};

const cm_protocol cm_proto_no_coh = {
    .name = "no-coh",
    .summary = "non-coherent L1: write-evict, write-no-allocate (seed 000)",
    .l1 = {cm_l1_state_names, CM_L1S_COUNT, cm_l1_event_names, CM_L1E_COUNT,
           rows, sizeof rows / sizeof *rows},
    .l2 = {0},
    .bypass_l1 = 0,
};
