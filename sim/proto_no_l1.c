/* proto_no_l1.c - NO-L1: global loads, stores and atomics bypass the L1.
 *
 * Seed statement (seed 000 via protocols.md A, "NO-L1"): "Global loads and
 * stores bypass the L1 entirely. Baseline for how much private caches buy."
 * Every access is sent straight through (GETS, WRITE, ATOMIC) and never
 * allocates or merges: the MSHR entry it takes is only the LD/ST unit's
 * record of the request in flight (so l1.mshrs bounds outstanding requests
 * for every protocol alike), in state I_I until its reply.  No line is ever
 * valid, so V and I_V are unreachable and the flash events do nothing.
 * The L2 table belongs to the memory side (sim/memsys) and is empty here. */
#include "sim/proto_rows.h"

static const cm_proto_row rows[] = {
    ROW(I, LOAD, I_I, GETS, CM_ACT_MSHR | CM_ACT_SEND),
    ROW(I, STORE, I_I, WRITE, CM_ACT_MSHR | CM_ACT_SEND),
    ROW(I, ATOMIC, I_I, ATOMIC, CM_ACT_MSHR | CM_ACT_SEND),
    ROW(I_I, LOAD, I_I, GETS, CM_ACT_MSHR | CM_ACT_SEND),
    ROW(I_I, STORE, I_I, WRITE, CM_ACT_MSHR | CM_ACT_SEND),
    ROW(I_I, ATOMIC, I_I, ATOMIC, CM_ACT_MSHR | CM_ACT_SEND),
    ROW(I_I, DATA, I, NONE, CM_ACT_COMPLETE),
    ROW(I_I, ACK, I, NONE, CM_ACT_COMPLETE),
    ROW(I, KERNEL_START, I, NONE, 0),
    ROW(I, ACQUIRE, I, NONE, 0),
};

const cm_protocol cm_proto_no_l1 = {
    .name = "no-l1",
    .summary = "global accesses bypass the L1 (seed 000 baseline)",
    .l1 = {cm_l1_state_names, CM_L1S_COUNT, cm_l1_event_names, CM_L1E_COUNT,
           rows, sizeof rows / sizeof *rows},
    .l2 = {0},
    .bypass_l1 = 1,
};
