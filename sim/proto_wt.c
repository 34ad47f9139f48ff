/* proto_wt.c - WT: the conventional write-through L1 of release
 * consistency, invalidated at kernel start and at acquire.
 *
 * Seed statement (seed 003, section 2.4.1, via protocols.md C "WT"): "a
 * release operation (kernel end, barrier, or StRel) will need to wait for
 * all prior writes to be visible globally before executing more memory
 * operations.  In addition, an acquiring memory fence (kernel begin or
 * LdAcq) will invalidate all clean and potentially stale L1 cache data."
 *  - a store to a valid line writes the copy and is sent through, so the
 *    storing warp reads its own store; the copy is V_M while stores are in
 *    flight and V again at the last ACK.  The seed names no states; V_M is
 *    the write-through state of GPU-VI and TC, and it is what lets the
 *    entry count the line's stores in flight (one machine parameter,
 *    l1.mshrs, bounds outstanding requests under every protocol).  (The
 *    detailed machine this one replaced kept such a line in V; the two
 *    differ only in that bookkeeping.);
 *  - a store miss does not allocate (write-no-allocate, as GPU-VI);
 *  - atomics run at the L2 and drop the local copy (as GPU-VI, seed 000);
 *  - KERNEL_START and ACQUIRE flash-invalidate: every V line goes to I, a
 *    V_M line drops its copy and waits for its stores (I_I), and a fill in
 *    flight (I_V) is cancelled to I_I because its data may predate the
 *    acquire; its waiting loads still complete with it, later loads miss
 *    anew;
 *  - release is the SM's: a fence waits for the warp's store ACKs.
 * "Needs no MSHRs; relies on in-order responses": requests in flight
 * still hold l1.mshrs entries here, and replies come in order per bank.
 * The L2 is the plain one (proto_l2_plain.c). */
#include "sim/proto_rows.h"

#define WT_FLASH(ev)                                                           \
    R1(V, ev, I, NONE, CM_A1_INVAL), R1(V_M, ev, I_I, NONE, CM_A1_INVAL),      \
        R1(I_V, ev, I_I, NONE, CM_A1_CANCEL), R1(I_I, ev, I_I, NONE, 0)

static const cm_proto_row l1[] = {
    L1_WT_COMMON,
    L1_V_M_REPLIES,
    R1(V, LOAD, V, NONE, CM_A1_HIT),
    R1(V_M, LOAD, V_M, NONE, CM_A1_HIT),
    L1_WT_STORES(WRITE),
    L1_WT_KEEP_STORES(WRITE),
    WT_FLASH(KERNEL_START),
    WT_FLASH(ACQUIRE),
};

static const cm_proto_table l1_tab = TAB(l1);

const cm_protocol cm_proto_wt = {
    .name = "wt",
    .summary = "write-through L1 invalidated at kernel start and acquire "
               "(seed 003)",
    .consistency = CM_CONSISTENCY_RCSC,
    .l1 = &l1_tab,
    .l2 = &cm_l2_plain,
};
