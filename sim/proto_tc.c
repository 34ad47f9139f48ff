/* proto_tc.c - Temporal Coherence: TC-Strong (TCSUO, TCS, TCSOO) and
 * TC-Weak (TCW with the lifetime predictor, TCW-FIXED), self-invalidating
 * L1s whose copies expire at a timestamp.
 *
 * Seed statement (seed 000 via protocols.md A, "Temporal Coherence"):
 * "Each L1 line has a local timestamp LT, each L2 line a global timestamp
 * GT.  An L1 line is valid iff TIME <= LT; expiry is implicit, no message.
 * Load at L2: GT := max(GT, requested expiry); reply carries data and GT;
 * L1 sets LT := GT.  A reply that arrives already expired is used but not
 * filled."  The machine keeps the timestamps (cm_protocol.lifetime): the
 * L1 reads an expired V line as I and raises DATA_EXP for an expired fill;
 * the L2 reads a line whose GT has passed as E, else V.
 * TC L1 (seed): "I, V, V_M, I_V, I_I (store from V: UPGR carrying LT ->
 * V_M)"; no INV or RCL ever reaches it.
 * TC-Strong (seed): "Stores, GETX, UPGR and atomics stall at the in-order
 * L2 until the line's GT has expired (TIME > GT)"; "Optimisation 1,
 * private write: UPGR to a P line whose LT == GT completes at once" (TCS,
 * TCSOO: they have UPGR_PRIV rows, TCSUO does not, so its UPGR_PRIV falls
 * back to UPGR and stalls); "Optimisation 2, eviction: an unexpired line is
 * evicted at once and its timestamp parked in a free L2 MSHR (M_I);
 * requests to it stall until it expires" (TCS, TCSOO; TCSUO's eviction of
 * an unexpired line waits: the fill that needs the way is held until the
 * victim expires); TCSOO: "plus out-of-order servicing at L2"; "I_S merges
 * further GETS; I_M stalls".
 * TC-Weak (seed): "Stores never stall at the L2: data written at once, GT
 * incremented by one; the ACK carries GT as the Global Write Completion
 * Time (GWCT).  Private writes (P line, LT == GT) return no GWCT.  Stores
 * from stale L1 copies mismatch GT and receive fresh data.  M_I: new
 * requests refetch instead of stalling" (the parked timestamp waits beside
 * the line, CM_A2_PARK_SIDE; a refetch takes GT from it).  Requests during
 * a fetch wait on it and are replayed in order.  The GWCT goes out with
 * the write rows' replies (CM_A2_GWCT) and fences wait for it. */
#include "sim/proto_rows.h"

static const cm_proto_row l1[] = {
    L1_VALID_WT(UPGR),
    R1(I_V, DATA_EXP, I_I, NONE, CM_A1_WAKE),
    L1_WT_FLASH_KEEP(KERNEL_START),
    L1_WT_FLASH_KEEP(ACQUIRE),
};

/* Fetches and the rows of a line whose GT has passed (E); gw: CM_A2_GWCT
 * under TC-Weak, 0 under TC-Strong. */
#define L2_TC_COMMON(gw)                                                       \
    L2_FETCH(E), R2(I, GETX, I_M, NONE, CM_A2_FETCH),                         \
        R2(I, UPGR, I_M, NONE, CM_A2_FETCH),                                   \
        R2(I, ATOMIC, I_M, NONE, CM_A2_FETCH),                                 \
        R2(V, GETS, V, DATA, CM_A2_GT | CM_A2_REPLY),                          \
        R2(E, GETS, V, DATA, CM_A2_GT | CM_A2_REPLY),                          \
        R2(E, GETX, E, ACK, CM_A2_WRITE | (gw) | CM_A2_GTINC | CM_A2_REPLY),   \
        R2(E, UPGR, E, ACK, CM_A2_WRITE | (gw) | CM_A2_GTINC | CM_A2_REPLY),   \
        R2(E, ATOMIC, E, AREPLY,                                               \
           CM_A2_WRITE | (gw) | CM_A2_GTINC | CM_A2_REPLY),                    \
        R2(E, REPLACE, I, NONE, CM_A2_EVICT)

/* Writes stall while the line is in state s (TC-Strong). */
#define L2_TCS_STALL(s)                                                        \
    R2(s, GETX, s, NONE, CM_A2_STALL), R2(s, UPGR, s, NONE, CM_A2_STALL),      \
        R2(s, ATOMIC, s, NONE, CM_A2_STALL)

#define L2_TCS_ROWS                                                            \
    L2_TC_COMMON(0), L2_TCS_STALL(I_S),                                       \
        R2(I_M, GETS, I_M, NONE, CM_A2_STALL), L2_TCS_STALL(I_M),              \
        L2_TCS_STALL(V), R2(M_I, GETS, M_I, NONE, CM_A2_STALL),                \
        L2_TCS_STALL(M_I), R2(M_I, EXPIRE, I, NONE, CM_A2_DONE)

static const cm_proto_row l2_tcsuo[] = {
    L2_TCS_ROWS,
    R2(V, REPLACE, V, NONE, CM_A2_STALL),
};

static const cm_proto_row l2_tcs[] = {
    L2_TCS_ROWS,
    R2(V, UPGR_PRIV, V, ACK, CM_A2_WRITE | CM_A2_REPLY),
    R2(V, REPLACE, M_I, NONE, CM_A2_PARK | CM_A2_EVICT),
};

/* TC-Weak: every request to a line being fetched waits on the fetch. */
#define L2_TCW_FETCH(ev)                                                       \
    R2(I_S, ev, I_S, NONE, CM_A2_MERGE), R2(I_M, ev, I_M, NONE, CM_A2_MERGE)
#define TCW_WRITE (CM_A2_WRITE | CM_A2_GTINC | CM_A2_REPLY)

static const cm_proto_row l2_tcw[] = {
    L2_TC_COMMON(CM_A2_GWCT),
    R2(I_M, GETS, I_M, NONE, CM_A2_MERGE),
    L2_TCW_FETCH(GETX),
    L2_TCW_FETCH(UPGR),
    L2_TCW_FETCH(ATOMIC),
    R2(V, GETX, V, ACK, TCW_WRITE | CM_A2_GWCT),
    R2(V, UPGR, V, ACK, TCW_WRITE | CM_A2_GWCT),
    R2(V, UPGR_PRIV, V, ACK, TCW_WRITE),
    R2(V, UPGR_STALE, V, DATA, TCW_WRITE | CM_A2_GWCT),
    R2(V, ATOMIC, V, AREPLY, TCW_WRITE | CM_A2_GWCT),
    R2(V, REPLACE, I, NONE, CM_A2_PARK_SIDE | CM_A2_EVICT),
};

static const cm_proto_table l1_tab = TAB(l1), l2_tcsuo_tab = TAB(l2_tcsuo),
                            l2_tcs_tab = TAB(l2_tcs), l2_tcw_tab = TAB(l2_tcw);

#define TC_PROTOCOL(id, nm, sum, cons, life, ooo, l2tab)                       \
    const cm_protocol cm_proto_##id = {                                        \
        .name = nm,                                                            \
        .summary = sum,                                                        \
        .consistency = cons,                                                   \
        .lifetime = life,                                                      \
        .l2_out_of_order = ooo,                                                \
        .l1 = &l1_tab,                                                         \
        .l2 = &l2tab,                                                          \
    }

TC_PROTOCOL(tcsuo, "tcsuo", "TC-Strong without optimisations (seed 000)",
            CM_CONSISTENCY_RCSC, CM_LIFE_STRONG, 0, l2_tcsuo_tab);
TC_PROTOCOL(tcs, "tcs",
            "TC-Strong with private-write and eviction optimisations "
            "(seed 000)",
            CM_CONSISTENCY_RCSC, CM_LIFE_STRONG, 0, l2_tcs_tab);
TC_PROTOCOL(tcsoo, "tcsoo", "TCS plus out-of-order service at the L2 "
            "(seed 000)",
            CM_CONSISTENCY_RCSC, CM_LIFE_STRONG, 1, l2_tcs_tab);
TC_PROTOCOL(tcw, "tcw", "TC-Weak with the adaptive lifetime predictor "
            "(seed 000)",
            CM_CONSISTENCY_RCPC, CM_LIFE_PREDICTED, 0, l2_tcw_tab);
TC_PROTOCOL(tcw_fixed, "tcw-fixed",
            "TC-Weak with the fixed lifetime tc.lifetime_weak (seed 000)",
            CM_CONSISTENCY_RCPC, CM_LIFE_WEAK, 0, l2_tcw_tab);
