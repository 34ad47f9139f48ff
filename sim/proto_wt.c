/* proto_wt.c - WT: the conventional write-through L1 of release
 * consistency, invalidated at kernel start and at acquire.
 *
 * Seed statement (seed 003 via protocols.md C, "WT"): "Write-through L1s,
 * shared L2. Release (kernel end, barrier, store-release) waits until all
 * earlier writes are globally visible. Acquire (kernel begin, load-acquire)
 * invalidates the whole L1. L1 also invalidated at every kernel launch."
 *  - a store to a valid line updates the copy and is sent through (V stays
 *    V); a store miss does not allocate (write-no-allocate, as GPU-VI);
 *  - atomics run at the L2 and drop the local copy (as GPU-VI, seed 000);
 *  - KERNEL_START and ACQUIRE flash-invalidate: every V line goes to I, and
 *    a fill in flight (I_V) is cancelled to I_I, because its data may
 *    predate the acquire; its waiting loads still complete on DATA, later
 *    loads miss anew;
 *  - release is the SM's job: a fence waits for the warp's store ACKs.
 * "Needs no MSHRs; relies on in-order responses": here the requests in
 * flight still occupy l1.mshrs entries so that one machine parameter bounds
 * outstanding requests under every protocol.  The L2 table belongs to the
 * memory side (sim/memsys) and is empty here. */
#include "sim/proto_rows.h"

static const cm_proto_row rows[] = {
    ROW(I, LOAD, I_V, GETS, MISS),
    ROW(I, STORE, I_I, WRITE, THRU),
    ROW(I, ATOMIC, I_I, ATOMIC, THRU),
    ROW(V, LOAD, V, NONE, CM_ACT_HIT),
    ROW(V, STORE, V, WRITE, CM_ACT_WRITE_LOCAL | THRU),
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
    ROW(V, KERNEL_START, I, NONE, CM_ACT_INVALIDATE),
    ROW(I_V, KERNEL_START, I_I, NONE, 0),
    ROW(I, ACQUIRE, I, NONE, 0),
    ROW(V, ACQUIRE, I, NONE, CM_ACT_INVALIDATE),
    ROW(I_V, ACQUIRE, I_I, NONE, 0),
};

const cm_protocol cm_proto_wt = {
    .name = "wt",
    .summary = "write-through L1, invalidated at kernel start and acquire "
               "(seed 003)",
    .l1 = {cm_l1_state_names, CM_L1S_COUNT, cm_l1_event_names, CM_L1E_COUNT,
           rows, sizeof rows / sizeof *rows},
    .l2 = {0},
    .bypass_l1 = 0,
};
