/* proto_vi.c - GPU-VI and GPU-VIni: write-through valid/invalid L1s kept
 * coherent by invalidations from a directory, in the L2 tags (GPU-VI) or
 * separate (GPU-VIni).
 *
 * Seed statement (seed 000 via protocols.md A, "GPU-VI"): "L1 states I, V,
 * V_M, I_V, I_I.  Load to I: GETS, -> I_V; DATA -> V.  Store to I: GETX,
 * -> I_I; ACK -> I (no allocate).  Store to V: GETX, -> V_M, data written
 * into L1 at once; ACK -> V.  Atomic: ATOMIC, -> I_I (performed at L2, L1
 * copy invalidated).  A load to a line with a pending store is treated as
 * a miss.  INV in a transient state -> I_I; INV in V -> I; every INV
 * answered by INVACK.  Eviction stalls in V_M and I_V."  L2: "I, N (no
 * sharers), S (>=1 sharer), I_S, I_M, S_M, M_I.  GETX to S: requester sole
 * sharer -> ACK; otherwise INV to other sharers, -> S_M; all requests
 * stall in S_M; on last INVACK requester becomes sole sharer, ACK, -> S
 * (atomic: DATA, -> N).  Evicting S: write back if dirty, RCL to all
 * sharers, -> M_I; last INVACK -> I.  I_S merges further GETS; I_M
 * stalls."  GPU-VIni: "a separate directory of R x (total L1 lines)
 * entries, W-way.  L2 eviction sends no recall; a directory eviction
 * recalls L1 copies and also evicts the L2 line."
 * Choices where the seed is silent:
 *  - eviction stalls are kept by never choosing a line with an MSHR entry
 *    as a fill's victim (the L1 does that for every protocol);
 *  - an RCL is answered as an INV;
 *  - a GETX from a non-sharer leaves no sharer (write-no-allocate): KEEP
 *    keeps only the requester, and only if it was one;
 *  - an atomic's reply is AREPLY (one word), not DATA;
 *  - GPU-VIni's directory keeps the sharers of lines the L2 has dropped
 *    (state I with sharers), so a later write still invalidates them, and
 *    only a load allocates a directory entry. */
#include "sim/proto_rows.h"

/* INV and RCL to an L1, in every state. */
#define L1_VI_INV(ev)                                                          \
    R1(I, ev, I, INVACK, CM_A1_SEND),                                          \
        R1(V, ev, I, INVACK, CM_A1_INVAL | CM_A1_SEND),                        \
        R1(V_M, ev, I_I, INVACK, CM_A1_INVAL | CM_A1_SEND),                    \
        R1(I_V, ev, I_I, INVACK, CM_A1_CANCEL | CM_A1_INVAL | CM_A1_SEND),     \
        R1(I_I, ev, I_I, INVACK, CM_A1_INVAL | CM_A1_SEND)

static const cm_proto_row l1[] = {
    L1_VALID_WT(GETX),
    L1_VI_INV(INV),
    L1_VI_INV(RCL),
    L1_WT_FLASH_KEEP(KERNEL_START),
    L1_WT_FLASH_KEEP(ACQUIRE),
};

/* Requests that stall while the line is in state s. */
#define L2_VI_STALL(s)                                                         \
    R2(s, GETX, s, NONE, CM_A2_STALL), R2(s, ATOMIC, s, NONE, CM_A2_STALL)

#define L2_VI_COMMON                                                           \
    L2_FETCH(N), R2(I, GETX, I_M, NONE, CM_A2_FETCH),                         \
        R2(I, ATOMIC, I_M, NONE, CM_A2_FETCH), L2_VI_STALL(I_S),               \
        R2(I_M, GETS, I_M, NONE, CM_A2_STALL), L2_VI_STALL(I_M),               \
        R2(N, GETS, S, DATA, CM_A2_ADD | CM_A2_REPLY),                         \
        R2(S, GETS, S, DATA, CM_A2_ADD | CM_A2_REPLY),                         \
        R2(N, GETX, N, ACK, CM_A2_WRITE | CM_A2_KEEP | CM_A2_REPLY),           \
        R2(S, GETX_SOLE, S, ACK, CM_A2_WRITE | CM_A2_KEEP | CM_A2_REPLY),      \
        R2(S, GETX, S_M, INV, CM_A2_TXN | CM_A2_INV),                          \
        R2(N, ATOMIC, N, AREPLY, CM_A2_WRITE | CM_A2_DROP | CM_A2_REPLY),      \
        R2(S, ATOMIC_SOLE, N, AREPLY, CM_A2_WRITE | CM_A2_DROP | CM_A2_REPLY), \
        R2(S, ATOMIC, S_M, INV, CM_A2_TXN | CM_A2_INV),                        \
        R2(S_M, INVACK, S_M, NONE, 0),                                         \
        R2(S_M, INVACK_LAST, S, ACK,                                           \
           CM_A2_WRITE | CM_A2_KEEP | CM_A2_REPLY | CM_A2_DONE),               \
        R2(S_M, INVACK_LAST_A, N, AREPLY,                                      \
           CM_A2_WRITE | CM_A2_DROP | CM_A2_REPLY | CM_A2_DONE),               \
        R2(S_M, GETS, S_M, NONE, CM_A2_STALL), L2_VI_STALL(S_M),               \
        R2(N, REPLACE, I, NONE, CM_A2_EVICT),                                  \
        R2(M_I, INVACK, M_I, NONE, 0),                                         \
        R2(M_I, INVACK_LAST, I, NONE, CM_A2_DONE),                             \
        R2(M_I, GETS, M_I, NONE, CM_A2_STALL), L2_VI_STALL(M_I)

static const cm_proto_row l2_vi[] = {
    L2_VI_COMMON,
    R2(S, REPLACE, M_I, RCL, CM_A2_TXN | CM_A2_RCL | CM_A2_EVICT),
};

static const cm_proto_row l2_vini[] = {
    L2_VI_COMMON,
    R2(S, REPLACE, I, NONE, CM_A2_EVICT),
    R2(I, DIR_REPLACE, M_I, RCL, CM_A2_TXN | CM_A2_RCL),
    R2(S, DIR_REPLACE, M_I, RCL, CM_A2_TXN | CM_A2_RCL | CM_A2_EVICT),
};

static const cm_proto_table l1_tab = TAB(l1), l2_vi_tab = TAB(l2_vi),
                            l2_vini_tab = TAB(l2_vini);

const cm_protocol cm_proto_gpu_vi = {
    .name = "gpu-vi",
    .summary = "write-through valid/invalid L1, directory in the L2 tags, "
               "recalls on L2 eviction (seed 000)",
    .consistency = CM_CONSISTENCY_RCSC,
    .sharers = CM_SHARERS_L2,
    .l1 = &l1_tab,
    .l2 = &l2_vi_tab,
};

const cm_protocol cm_proto_gpu_vini = {
    .name = "gpu-vini",
    .summary = "GPU-VI with a separate R x L1-lines, W-way directory "
               "(seed 000)",
    .consistency = CM_CONSISTENCY_RCSC,
    .sharers = CM_SHARERS_DIR,
    .l1 = &l1_tab,
    .l2 = &l2_vini_tab,
};
