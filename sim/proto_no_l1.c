/* proto_no_l1.c - NO-L1: global loads, stores and atomics bypass the L1.
 *
 * Seed statement (seed 000 via protocols.md A, "NO-L1"): "Global loads and
 * stores bypass the L1 entirely.  Baseline for how much private caches
 * buy."  Every access is sent straight through (GETS, WRITE, ATOMIC) and
 * never allocates or merges: "entirely" leaves out the L1's MSHR merging
 * too, as GPGPU-Sim's L1 bypass sends each warp's request on its own.  The
 * line's MSHR entry only counts the requests in flight (so l1.mshrs bounds
 * outstanding requests under every protocol alike), in state I_I until the
 * last reply; each reply completes its own access (CM_A1_DONE, a load's
 * value included).  No line is ever valid, so the flash events find only
 * entries and change nothing.  (The seed's "bypass entirely" decides:
 * loads are not merged.) */
#include "sim/proto_rows.h"

#define NO_L1_SEND(ev, m)                                                      \
    R1(I, ev, I_I, m, THRU), R1(I_I, ev, I_I, m, CM_A1_SEND)
#define NO_L1_REPLY(ev)                                                        \
    R1(I_I, ev, I_I, NONE, CM_A1_DONE), R1(I_I, ev##_LAST, I, NONE, CM_A1_DONE)

static const cm_proto_row l1[] = {
    NO_L1_SEND(LOAD, GETS),
    NO_L1_SEND(STORE, WRITE),
    NO_L1_SEND(ATOMIC, ATOMIC),
    NO_L1_REPLY(DATA),
    NO_L1_REPLY(ACK),
    NO_L1_REPLY(AREPLY),
    R1(I_I, DATA_STALE, I_I, NONE, CM_A1_DONE),
    R1(I_I, KERNEL_START, I_I, NONE, 0),
    R1(I_I, ACQUIRE, I_I, NONE, 0),
};

static const cm_proto_table l1_tab = TAB(l1);

const cm_protocol cm_proto_no_l1 = {
    .name = "no-l1",
    .summary = "no private L1: every access goes to the L2 (seed 000)",
    .consistency = CM_CONSISTENCY_RCSC,
    .l1 = &l1_tab,
    .l2 = &cm_l2_plain,
};
