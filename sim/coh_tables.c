/* coh_tables.c - the protocols of seed 000 as transition tables (numbering
 * and action meanings in sim/coh_proto.h), and the protocol registry.
 *
 * Seed statements are quoted from protocols.md part A; where the seed is
 * silent the choice is written beside the row.  Choices common to all the
 * write-through protocols (MESI's own are written above its tables):
 *  - values are per line (coh.h), so a store replaces the line's value;
 *  - a store sent while a fill is in flight cancels that fill's install
 *    (the fill predates the store at the L2; installing it would let the
 *    storing warp read a value older than its own store): the loads merged
 *    on it still complete with it, later loads send a new GETS;
 *  - atomics are performed at the L2 atomic unit and drop the local copy
 *    (seed: "Atomic: ATOMIC, -> I_I (performed at L2, L1 copy
 *    invalidated)"); the requesting warp waits for the result (AREPLY);
 *  - L2 misses fetch the line from DRAM (write-allocate) and replay the
 *    requests that waited on the fetch in order. */
#include <string.h>

#include "sim/coh_proto.h"

const char *const coh_msg_names[COHM_COUNT] = {
    "none",   "gets",  "getx",     "upgr",     "write",  "atomic", "data",
    "data_e", "data_m", "ack",     "areply",   "inv",    "invack", "rcl",
    "fwd_gets", "fwd_getx", "wb",  "nodata",   "put"};
const char *const coh_l1_state_names[L1_NSTATES] = {
    "I", "V", "V_M", "I_V", "I_I", "S", "E", "M", "IS", "IM", "SM"};
const char *const coh_l1_event_names[L1_NEVENTS] = {
    "LOAD",      "STORE",  "ATOMIC",      "DATA",    "DATA_LAST",
    "DATA_STALE", "DATA_EXP", "DATA_E",    "DATA_M",  "ACK",
    "ACK_LAST",  "AREPLY", "AREPLY_LAST", "INV",     "RCL",
    "FWD_GETS",  "FWD_GETX", "REPLACE",   "FLASH"};
const char *const coh_l2_state_names[L2_NSTATES] = {
    "I", "N", "S", "X", "V", "E", "I_S", "I_M", "S_M", "X_S", "X_M", "M_I"};
const char *const coh_l2_event_names[L2_NEVENTS] = {
    "GETS",   "GETX",       "GETX_SOLE", "UPGR",     "UPGR_SOLE",
    "UPGR_PRIV", "UPGR_STALE", "WRITE",  "ATOMIC",   "ATOMIC_SOLE",
    "PUT",    "WB",         "NODATA",    "INVACK",   "INVACK_LAST",
    "INVACK_LAST_A", "INVACK_LAST_U", "FILL", "REPLACE", "DIR_REPLACE",
    "EXPIRE"};

int coh_l1_transient(unsigned s)
{
    return s == L1_V_M || s == L1_I_V || s == L1_I_I || s == L1_IS ||
           s == L1_IM || s == L1_SM;
}

int coh_l2_transient(unsigned s)
{
    return s >= L2_I_S;
}

int coh_msg_awaits_reply(unsigned m)
{
    return m == COHM_GETS || m == COHM_GETX || m == COHM_UPGR ||
           m == COHM_WRITE || m == COHM_ATOMIC;
}

int coh_msg_carries_line(unsigned m)
{
    return m == COHM_DATA || m == COHM_DATA_E || m == COHM_DATA_M ||
           m == COHM_WB || m == COHM_PUT;
}

uint64_t coh_msg_flits(unsigned m, int line, uint32_t bytes,
                       uint32_t header, uint32_t flit, uint32_t line_bytes)
{
    uint32_t payload = line ? line_bytes
                       : (m == COHM_GETX || m == COHM_UPGR ||
                          m == COHM_WRITE || m == COHM_ATOMIC ||
                          m == COHM_AREPLY)
                           ? bytes
                           : 0;
    uint64_t f = flit ? ((uint64_t)header + payload + flit - 1) / flit : 1;
    return f ? f : 1;
}

const coh_row *coh_table_find(const coh_table *t, unsigned state,
                              unsigned event)
{
    for (size_t i = 0; i < t->nrows; i++)
        if (t->rows[i].state == state && t->rows[i].event == event)
            return &t->rows[i];
    return NULL;
}

#define R1(s, e, n, m, a) {L1_##s, L1E_##e, L1_##n, COHM_##m, (a)}
#define R2(s, e, n, m, a) {L2_##s, L2E_##e, L2_##n, COHM_##m, (a)}
#define TAB(rows) {rows, sizeof rows / sizeof *rows}

/* L1 shorthands. */
#define GET (A1_ENTRY | A1_MERGE | A1_SEND) /* load miss */
#define THRU (A1_ENTRY | A1_SEND)           /* write-through, no allocate */

/* ---- L1 rows every write-through L1 shares ----------------------------- */

/* The transient rows of loads, fills and acknowledgements: I_V waits for a
 * fill that installs, I_I for replies that do not. */
#define L1_WT_COMMON                                                           \
    R1(I, LOAD, I_V, GETS, GET), R1(I_V, LOAD, I_V, NONE, A1_MERGE),           \
        R1(I_I, LOAD, I_V, GETS, A1_MERGE | A1_SEND),                          \
        R1(I_V, DATA_LAST, V, NONE, A1_FILL | A1_WAKE),                        \
        R1(I_V, DATA, V_M, NONE, A1_FILL | A1_WAKE),                           \
        R1(I_V, DATA_STALE, I_V, NONE, A1_WAKE),                               \
        R1(I_I, DATA_STALE, I_I, NONE, A1_WAKE),                               \
        R1(I_V, ACK, I_V, NONE, A1_DONE), R1(I_V, AREPLY, I_V, NONE, A1_DONE), \
        R1(I_I, ACK, I_I, NONE, A1_DONE), R1(I_I, ACK_LAST, I, NONE, A1_DONE), \
        R1(I_I, AREPLY, I_I, NONE, A1_DONE),                                   \
        R1(I_I, AREPLY_LAST, I, NONE, A1_DONE),                                \
        R1(I, ATOMIC, I_I, ATOMIC, THRU),                                      \
        R1(I_V, ATOMIC, I_I, ATOMIC, A1_CANCEL | A1_SEND),                     \
        R1(I_I, ATOMIC, I_I, ATOMIC, A1_SEND),                                 \
        R1(V, REPLACE, I, NONE, A1_INVAL)

/* NO-L1: "global loads and stores bypass the L1 entirely"; the LD/ST
 * unit still merges loads to a line in flight (its MSHR). */
static const coh_row l1_no_l1[] = {
    R1(I, LOAD, I_V, GETS, GET),
    R1(I_V, LOAD, I_V, NONE, A1_MERGE),
    R1(I_I, LOAD, I_V, GETS, A1_MERGE | A1_SEND),
    R1(I_V, DATA_LAST, I, NONE, A1_WAKE),
    R1(I_V, DATA, I_I, NONE, A1_WAKE),
    R1(I_V, DATA_STALE, I_V, NONE, A1_WAKE),
    R1(I_I, DATA_STALE, I_I, NONE, A1_WAKE),
    R1(I, STORE, I_I, WRITE, THRU),
    R1(I_V, STORE, I_I, WRITE, A1_CANCEL | A1_SEND),
    R1(I_I, STORE, I_I, WRITE, A1_SEND),
    R1(I, ATOMIC, I_I, ATOMIC, THRU),
    R1(I_V, ATOMIC, I_I, ATOMIC, A1_CANCEL | A1_SEND),
    R1(I_I, ATOMIC, I_I, ATOMIC, A1_SEND),
    R1(I_V, ACK, I_V, NONE, A1_DONE),
    R1(I_V, AREPLY, I_V, NONE, A1_DONE),
    R1(I_I, ACK, I_I, NONE, A1_DONE),
    R1(I_I, ACK_LAST, I, NONE, A1_DONE),
    R1(I_I, AREPLY, I_I, NONE, A1_DONE),
    R1(I_I, AREPLY_LAST, I, NONE, A1_DONE),
};

/* NO-COH: "L1 write-evict (a store invalidates the local copy),
 * write-no-allocate, not coherent"; no invalidation at fences. */
static const coh_row l1_no_coh[] = {
    L1_WT_COMMON,
    R1(V, LOAD, V, NONE, A1_HIT),
    R1(I, STORE, I_I, WRITE, THRU),
    R1(V, STORE, I_I, WRITE, A1_INVAL | THRU),
    R1(V, ATOMIC, I_I, ATOMIC, A1_INVAL | THRU),
    R1(I_V, STORE, I_I, WRITE, A1_CANCEL | A1_SEND),
    R1(I_I, STORE, I_I, WRITE, A1_SEND),
};

/* WT (seed 003): write-through with update of the local copy, the whole
 * L1 invalidated at kernel start and at every acquire (fence); a warp
 * reads its own stores from the copy (V_M hits). */
static const coh_row l1_wt[] = {
    L1_WT_COMMON,
    R1(V, LOAD, V, NONE, A1_HIT),
    R1(V_M, LOAD, V_M, NONE, A1_HIT),
    R1(I, STORE, I_I, WRITE, THRU),
    R1(V, STORE, V_M, WRITE, A1_ENTRY | A1_WRITE | A1_SEND),
    R1(V_M, STORE, V_M, WRITE, A1_WRITE | A1_SEND),
    R1(V, ATOMIC, I_I, ATOMIC, A1_INVAL | THRU),
    R1(V_M, ATOMIC, I_I, ATOMIC, A1_INVAL | A1_SEND),
    R1(I_V, STORE, I_I, WRITE, A1_CANCEL | A1_SEND),
    R1(I_I, STORE, I_I, WRITE, A1_SEND),
    R1(V_M, ACK, V_M, NONE, A1_DONE),
    R1(V_M, ACK_LAST, V, NONE, A1_DONE),
    R1(I, FLASH, I, NONE, 0),
    R1(V, FLASH, I, NONE, A1_INVAL),
    R1(V_M, FLASH, I_I, NONE, A1_INVAL),
    R1(I_V, FLASH, I_I, NONE, A1_CANCEL),
    R1(I_I, FLASH, I_I, NONE, 0),
};

/* GPU-VI L1 (seed): "Load to I: GETS, -> I_V; DATA -> V.  Store to I:
 * GETX, -> I_I; ACK -> I (no allocate).  Store to V: GETX, -> V_M, data
 * written into L1 at once; ACK -> V.  A load to a line with a pending
 * store is treated as a miss.  INV in a transient state -> I_I; INV in V
 * -> I; every INV answered by INVACK.  Eviction stalls in V_M and I_V"
 * (lines with an entry are never chosen as victims).  An RCL is answered
 * as an INV. */
#define L1_VI_INV(ev)                                                          \
    R1(I, ev, I, INVACK, A1_SEND), R1(V, ev, I, INVACK, A1_INVAL | A1_SEND),   \
        R1(V_M, ev, I_I, INVACK, A1_INVAL | A1_SEND),                          \
        R1(I_V, ev, I_I, INVACK, A1_CANCEL | A1_INVAL | A1_SEND),              \
        R1(I_I, ev, I_I, INVACK, A1_INVAL | A1_SEND)

/* The rows GPU-VI and TC share: stores write the copy and go through
 * (msg: GETX under GPU-VI, UPGR carrying LT under TC), V_M loads miss. */
#define L1_VALID_WT(store_msg)                                                 \
    L1_WT_COMMON, R1(V, LOAD, V, NONE, A1_HIT),                                \
        R1(V_M, LOAD, I_V, GETS, A1_MERGE | A1_SEND),                          \
        R1(I, STORE, I_I, GETX, THRU),                                         \
        R1(V, STORE, V_M, store_msg, A1_ENTRY | A1_WRITE | A1_SEND),           \
        R1(V_M, STORE, V_M, store_msg, A1_WRITE | A1_SEND),                    \
        R1(I_V, STORE, I_I, GETX, A1_CANCEL | A1_SEND),                        \
        R1(I_I, STORE, I_I, GETX, A1_SEND),                                    \
        R1(V, ATOMIC, I_I, ATOMIC, A1_INVAL | THRU),                           \
        R1(V_M, ATOMIC, I_I, ATOMIC, A1_INVAL | A1_SEND),                      \
        R1(V_M, ACK, V_M, NONE, A1_DONE), R1(V_M, ACK_LAST, V, NONE, A1_DONE)

static const coh_row l1_gpu_vi[] = {
    L1_VALID_WT(GETX),
    L1_VI_INV(INV),
    L1_VI_INV(RCL),
};

/* TC L1 (seed): "I, V, V_M, I_V, I_I (store from V: UPGR carrying LT ->
 * V_M)"; no INV or RCL ever reaches it; "a reply that arrives already
 * expired is used but not filled" (DATA_EXP). */
static const coh_row l1_tc[] = {
    L1_VALID_WT(UPGR),
    R1(I_V, DATA_EXP, I_I, NONE, A1_WAKE),
};

/* ---- L2 ---------------------------------------------------------------- */

/* Plain write-back L2 of NO-L1, NO-COH and WT: no sharers. */
static const coh_row l2_plain[] = {
    R2(I, GETS, I_S, NONE, A2_FETCH),
    R2(I, WRITE, I_M, NONE, A2_FETCH),
    R2(I, ATOMIC, I_M, NONE, A2_FETCH),
    R2(I_S, GETS, I_S, NONE, A2_MERGE),
    R2(I_S, WRITE, I_S, NONE, A2_MERGE),
    R2(I_S, ATOMIC, I_S, NONE, A2_MERGE),
    R2(I_M, GETS, I_M, NONE, A2_MERGE),
    R2(I_M, WRITE, I_M, NONE, A2_MERGE),
    R2(I_M, ATOMIC, I_M, NONE, A2_MERGE),
    R2(I_S, FILL, N, NONE, A2_DONE),
    R2(I_M, FILL, N, NONE, A2_DONE),
    R2(N, GETS, N, DATA, A2_REPLY),
    R2(N, WRITE, N, ACK, A2_WRITE | A2_REPLY),
    R2(N, ATOMIC, N, AREPLY, A2_WRITE | A2_REPLY),
    R2(N, REPLACE, I, NONE, A2_EVICT),
};

/* GPU-VI L2 (seed): "I, N (no sharers), S (>=1 sharer), I_S, I_M, S_M,
 * M_I.  GETX to S: requester sole sharer -> ACK; otherwise INV to other
 * sharers, -> S_M; all requests stall in S_M; on last INVACK requester
 * becomes sole sharer, ACK, -> S (atomic: DATA, -> N).  Evicting S: write
 * back if dirty, RCL to all sharers, -> M_I; last INVACK -> I.  I_S merges
 * further GETS; I_M stalls."  A GETX from a non-sharer leaves no sharer
 * (write-no-allocate): KEEP keeps only the requester. */
#define L2_VI_COMMON                                                           \
    R2(I, GETS, I_S, NONE, A2_FETCH), R2(I, GETX, I_M, NONE, A2_FETCH),        \
        R2(I, GETX_SOLE, I_M, NONE, A2_FETCH),                                 \
        R2(I, ATOMIC, I_M, NONE, A2_FETCH),                                    \
        R2(I, ATOMIC_SOLE, I_M, NONE, A2_FETCH),                               \
        R2(I_S, GETS, I_S, NONE, A2_MERGE),                                    \
        R2(I_S, GETX, I_S, NONE, A2_STALL),                                    \
        R2(I_S, GETX_SOLE, I_S, NONE, A2_STALL),                               \
        R2(I_S, ATOMIC, I_S, NONE, A2_STALL),                                  \
        R2(I_S, ATOMIC_SOLE, I_S, NONE, A2_STALL),                             \
        R2(I_M, GETS, I_M, NONE, A2_STALL),                                    \
        R2(I_M, GETX, I_M, NONE, A2_STALL),                                    \
        R2(I_M, GETX_SOLE, I_M, NONE, A2_STALL),                               \
        R2(I_M, ATOMIC, I_M, NONE, A2_STALL),                                  \
        R2(I_M, ATOMIC_SOLE, I_M, NONE, A2_STALL),                             \
        R2(I_S, FILL, N, NONE, A2_DONE), R2(I_M, FILL, N, NONE, A2_DONE),      \
        R2(N, GETS, S, DATA, A2_ADD | A2_REPLY),                               \
        R2(S, GETS, S, DATA, A2_ADD | A2_REPLY),                               \
        R2(N, GETX_SOLE, N, ACK, A2_WRITE | A2_KEEP | A2_REPLY),               \
        R2(S, GETX_SOLE, S, ACK, A2_WRITE | A2_KEEP | A2_REPLY),               \
        R2(S, GETX, S_M, INV, A2_TXN | A2_INV),                                \
        R2(N, ATOMIC_SOLE, N, AREPLY, A2_WRITE | A2_DROP | A2_REPLY),          \
        R2(S, ATOMIC_SOLE, N, AREPLY, A2_WRITE | A2_DROP | A2_REPLY),          \
        R2(S, ATOMIC, S_M, INV, A2_TXN | A2_INV),                              \
        R2(S_M, INVACK, S_M, NONE, 0),                                         \
        R2(S_M, INVACK_LAST, S, ACK,                                           \
           A2_WRITE | A2_KEEP | A2_REPLY | A2_DONE),                           \
        R2(S_M, INVACK_LAST_A, N, AREPLY,                                      \
           A2_WRITE | A2_DROP | A2_REPLY | A2_DONE),                           \
        R2(S_M, GETS, S_M, NONE, A2_STALL),                                    \
        R2(S_M, GETX, S_M, NONE, A2_STALL),                                    \
        R2(S_M, GETX_SOLE, S_M, NONE, A2_STALL),                               \
        R2(S_M, ATOMIC, S_M, NONE, A2_STALL),                                  \
        R2(S_M, ATOMIC_SOLE, S_M, NONE, A2_STALL),                             \
        R2(N, REPLACE, I, NONE, A2_EVICT), R2(M_I, INVACK, M_I, NONE, 0),      \
        R2(M_I, INVACK_LAST, I, NONE, A2_DONE),                                \
        R2(M_I, GETS, M_I, NONE, A2_STALL),                                    \
        R2(M_I, GETX, M_I, NONE, A2_STALL),                                    \
        R2(M_I, GETX_SOLE, M_I, NONE, A2_STALL),                               \
        R2(M_I, ATOMIC, M_I, NONE, A2_STALL),                                  \
        R2(M_I, ATOMIC_SOLE, M_I, NONE, A2_STALL)

static const coh_row l2_gpu_vi[] = {
    L2_VI_COMMON,
    R2(S, REPLACE, M_I, RCL, A2_TXN | A2_RCL | A2_EVICT),
};

/* GPU-VIni (seed): "a separate directory of R x (total L1 lines) entries,
 * W-way.  L2 eviction sends no recall; a directory eviction recalls L1
 * copies and also evicts the L2 line."  The directory keeps the sharers of
 * lines the L2 has dropped (state I with sharers), so a later write still
 * invalidates them. */
static const coh_row l2_gpu_vini[] = {
    L2_VI_COMMON,
    R2(S, REPLACE, I, NONE, A2_EVICT),
    R2(I, DIR_REPLACE, M_I, RCL, A2_TXN | A2_RCL),
    R2(S, DIR_REPLACE, M_I, RCL, A2_TXN | A2_RCL | A2_EVICT),
};

/* TC rows both variants share: fetches, reads renew GT. */
#define L2_TC_COMMON                                                           \
    R2(I, GETS, I_S, NONE, A2_FETCH), R2(I, GETX, I_M, NONE, A2_FETCH),        \
        R2(I, UPGR, I_M, NONE, A2_FETCH),                                      \
        R2(I, UPGR_PRIV, I_M, NONE, A2_FETCH),                                 \
        R2(I, UPGR_STALE, I_M, NONE, A2_FETCH),                                \
        R2(I, ATOMIC, I_M, NONE, A2_FETCH), R2(I_S, FILL, E, NONE, A2_DONE),   \
        R2(I_M, FILL, E, NONE, A2_DONE),                                       \
        R2(V, GETS, V, DATA, A2_GT | A2_REPLY),                                \
        R2(E, GETS, V, DATA, A2_GT | A2_REPLY),                                \
        R2(E, GETX, E, ACK, A2_WRITE | A2_GTINC | A2_REPLY),                   \
        R2(E, UPGR, E, ACK, A2_WRITE | A2_GTINC | A2_REPLY),                   \
        R2(E, UPGR_PRIV, E, ACK, A2_WRITE | A2_GTINC | A2_REPLY),              \
        R2(E, UPGR_STALE, E, ACK, A2_WRITE | A2_GTINC | A2_REPLY),             \
        R2(E, ATOMIC, E, AREPLY, A2_WRITE | A2_GTINC | A2_REPLY),              \
        R2(E, REPLACE, I, NONE, A2_EVICT)

/* The fetch rows of TC-Strong: "I_S merges further GETS; I_M stalls". */
#define L2_TCS_FETCH(ev) R2(I_S, ev, I_S, NONE, A2_STALL), R2(I_M, ev, I_M, NONE, A2_STALL)
/* TC-Strong (seed): "Stores, GETX, UPGR and atomics stall at the in-order
 * L2 until the line's GT has expired (TIME > GT)"; "UPGR to a P line whose
 * LT == GT completes at once" (TCS, TCSOO: UPGR_PRIV is only raised with
 * that optimisation); "an unexpired line is evicted at once and its
 * timestamp parked in a free L2 MSHR (M_I); requests to it stall until it
 * expires" (TCS, TCSOO).  TCSUO: the eviction of an unexpired line waits
 * (the fill that needs the way is held until the victim expires). */
#define L2_TCS_ROWS                                                            \
    L2_TC_COMMON, R2(I_S, GETS, I_S, NONE, A2_MERGE),                          \
        R2(I_M, GETS, I_M, NONE, A2_STALL), L2_TCS_FETCH(GETX),                \
        L2_TCS_FETCH(UPGR), L2_TCS_FETCH(UPGR_PRIV), L2_TCS_FETCH(UPGR_STALE), \
        L2_TCS_FETCH(ATOMIC), R2(V, GETX, V, NONE, A2_STALL),                  \
        R2(V, UPGR, V, NONE, A2_STALL), R2(V, UPGR_STALE, V, NONE, A2_STALL),  \
        R2(V, ATOMIC, V, NONE, A2_STALL),                                      \
        R2(V, UPGR_PRIV, V, ACK, A2_WRITE | A2_REPLY),                         \
        R2(M_I, GETS, M_I, NONE, A2_STALL),                                    \
        R2(M_I, GETX, M_I, NONE, A2_STALL),                                    \
        R2(M_I, UPGR, M_I, NONE, A2_STALL),                                    \
        R2(M_I, UPGR_PRIV, M_I, NONE, A2_STALL),                               \
        R2(M_I, UPGR_STALE, M_I, NONE, A2_STALL),                              \
        R2(M_I, ATOMIC, M_I, NONE, A2_STALL),                                  \
        R2(M_I, EXPIRE, I, NONE, A2_DONE)

static const coh_row l2_tcs[] = {
    L2_TCS_ROWS,
    R2(V, REPLACE, M_I, NONE, A2_PARK | A2_EVICT),
};

static const coh_row l2_tcsuo[] = {
    L2_TCS_ROWS,
    R2(V, REPLACE, V, NONE, A2_STALL),
};

/* TC-Weak (seed): "Stores never stall at the L2: data written at once, GT
 * incremented by one; the ACK carries GT as the Global Write Completion
 * Time (GWCT).  Private writes (P line, LT == GT) return no GWCT.  Stores
 * from stale L1 copies mismatch GT and receive fresh data.  M_I: new
 * requests refetch instead of stalling" (the parked timestamp waits beside
 * the line; a refetch takes GT from it).  Requests during a fetch wait on
 * it and are replayed in order. */
#define L2_TCW_FETCH(ev) R2(I_S, ev, I_S, NONE, A2_MERGE), R2(I_M, ev, I_M, NONE, A2_MERGE)
static const coh_row l2_tcw[] = {
    L2_TC_COMMON,
    L2_TCW_FETCH(GETS),
    L2_TCW_FETCH(GETX),
    L2_TCW_FETCH(UPGR),
    L2_TCW_FETCH(UPGR_PRIV),
    L2_TCW_FETCH(UPGR_STALE),
    L2_TCW_FETCH(ATOMIC),
    R2(V, GETX, V, ACK, A2_WRITE | A2_GTINC | A2_REPLY),
    R2(V, UPGR, V, ACK, A2_WRITE | A2_GTINC | A2_REPLY),
    R2(V, UPGR_PRIV, V, ACK, A2_WRITE | A2_GTINC | A2_REPLY),
    R2(V, UPGR_STALE, V, DATA, A2_WRITE | A2_GTINC | A2_REPLY),
    R2(V, ATOMIC, V, AREPLY, A2_WRITE | A2_GTINC | A2_REPLY),
    R2(V, REPLACE, I, NONE, A2_PARK | A2_EVICT),
};

/* ---- MESI -------------------------------------------------------------- */

/* MESI (seed: "L1 and L2 write-back and write-allocate.  Inclusive: an L2
 * eviction recalls L1 copies.  E allows silent E->M.  Atomics execute at
 * the L1 once write permission is held.  Controllers pick serviceable
 * requests from a pool.  Store data is buffered until permission arrives.
 * Extra traffic: write-allocate refills and full-line PUTs"; the thesis
 * takes it from gem5's MESI_Two_Level).  Choices where the seed is silent:
 *  - L1 stable I, S, E, M; transient IS (load miss: GETS), IM (store or
 *    atomic miss: GETX), SM (store or atomic to S: UPGR).  Loads, stores
 *    and atomics to IM and SM wait on the entry (store data buffered
 *    there) and are performed in arrival order when write permission
 *    arrives; a store counts as outstanding (for fences) until performed.
 *    Loads merge in IS; stores and atomics to IS wait (stall) until it
 *    settles in S.  Loads to SM wait too, so a warp reads its own buffered
 *    store.  One request per entry: a reply always answers it.
 *  - Stores and atomics to E or M are performed at once (E -> M silently)
 *    and never counted outstanding.
 *  - L1 eviction: S silent; E and M send PUT, the whole line if M (the
 *    seed's "full-line PUTs": no partial-line write-back), control-sized
 *    if E (gem5's PUTX: Writeback_Data if dirty, else Writeback_Control),
 *    so noc.msgs.put mixes both sizes.  PUTs are not acknowledged.
 *  - INV or RCL to an L1 without the line (silently evicted S, or an
 *    evicted owner whose PUT is in flight) is answered by INVACK; SM -> IM
 *    (the copy is gone, the UPGR will be served as a GETX).  RCL to an
 *    owner: WB with the line, the copy dropped.  FWD_GETS to an owner: WB,
 *    E/M -> S; FWD_GETX: WB, -> I; FWD to an evicted owner (I, IS, IM):
 *    NODATA.  A grant that finds every way of its set waiting is used and
 *    evicted at once (REPLACE row), so ownership is never dropped silently.
 *  - L2 stable I, N (no L1 copy), S (sharers), X (one owner, E or M).
 *    GETS: N -> DATA_E, requester owns (X); S -> DATA, sharer added; X ->
 *    FWD_GETS to the owner (X_S), then DATA to the requester, owner and
 *    requester sharers (S).  GETX: sole holder -> DATA_M (X); S -> INV to
 *    the other sharers (S_M), last INVACK -> DATA_M; X -> FWD_GETX (X_M),
 *    owner's answer -> DATA_M, requester owns.  UPGR from a sharer: sole ->
 *    ACK (grant without data), else INV (S_M), last INVACK -> ACK.  An UPGR
 *    from a requester no longer among the sharers (invalidated or recalled
 *    while its UPGR was on the way; its L1 went SM -> IM) is served as a
 *    GETX (event refined to GETX / GETX_SOLE).  Requests to I fetch from
 *    DRAM (I_S, I_M; later requests wait on the fetch) and replay as N.
 *  - Requests to a line in a transaction (S_M, X_S, X_M, M_I) stall;
 *    CF_OOO serves other lines meanwhile.  INVACK, WB, NODATA and PUT are
 *    handled on arrival.
 *  - PUT from the owner: X -> N (data taken, dirty if M); in X_S, X_M,
 *    M_I the data is taken and the owner cleared, and the transaction
 *    waits for the owner's NODATA (or INVACK, for a recall).  The crossbar
 *    keeps per-pair order, so that PUT always arrives before the answer,
 *    and a grant before any later INV or FWD to the same L1; the real
 *    design's five virtual networks are not modelled.
 *  - L2 eviction (inclusive): N evicts at once; S and X recall (RCL to
 *    every sharer or the owner, M_I), the way leaves at once and the
 *    owner's WB goes to DRAM; the last answer ends it. */
#define L1_MESI_WRITE(ev)                                                      \
    R1(I, ev, IM, GETX, GET), R1(S, ev, SM, UPGR, GET),                        \
        R1(E, ev, M, NONE, A1_HIT | A1_WRITE),                                 \
        R1(M, ev, M, NONE, A1_HIT | A1_WRITE),                                 \
        R1(IS, ev, IS, NONE, A1_STALL), R1(IM, ev, IM, NONE, A1_MERGE),        \
        R1(SM, ev, SM, NONE, A1_MERGE)
/* INV (to a sharer) and RCL (to a sharer or the owner). */
#define L1_MESI_INV(ev)                                                        \
    R1(I, ev, I, INVACK, A1_SEND), R1(S, ev, I, INVACK, A1_INVAL | A1_SEND),   \
        R1(IS, ev, IS, INVACK, A1_SEND), R1(IM, ev, IM, INVACK, A1_SEND),      \
        R1(SM, ev, IM, INVACK, A1_INVAL | A1_SEND)
/* FWD_GETS / FWD_GETX to the owner, or to an owner whose PUT is on the
 * way (I, and IS / IM if it asked for the line again since). */
#define L1_MESI_FWD(ev, next, drop)                                            \
    R1(E, ev, next, WB, (drop) | A1_SEND),                                     \
        R1(M, ev, next, WB, (drop) | A1_SEND),                                 \
        R1(I, ev, I, NODATA, A1_SEND), R1(IS, ev, IS, NODATA, A1_SEND),        \
        R1(IM, ev, IM, NODATA, A1_SEND)

static const coh_row l1_mesi[] = {
    R1(I, LOAD, IS, GETS, GET),
    R1(S, LOAD, S, NONE, A1_HIT),
    R1(E, LOAD, E, NONE, A1_HIT),
    R1(M, LOAD, M, NONE, A1_HIT),
    R1(IS, LOAD, IS, NONE, A1_MERGE),
    R1(IM, LOAD, IM, NONE, A1_MERGE),
    R1(SM, LOAD, SM, NONE, A1_MERGE),
    L1_MESI_WRITE(STORE),
    L1_MESI_WRITE(ATOMIC),
    R1(IS, DATA, S, NONE, A1_FILL | A1_WAKE),
    R1(IS, DATA_E, E, NONE, A1_FILL | A1_WAKE),
    R1(IM, DATA_M, M, NONE, A1_FILL | A1_WAKE),
    R1(SM, ACK, M, NONE, A1_FILL | A1_WAKE),
    L1_MESI_INV(INV),
    L1_MESI_INV(RCL),
    R1(E, RCL, I, WB, A1_INVAL | A1_SEND),
    R1(M, RCL, I, WB, A1_INVAL | A1_SEND),
    L1_MESI_FWD(FWD_GETS, S, 0),
    L1_MESI_FWD(FWD_GETX, I, A1_INVAL),
    R1(S, REPLACE, I, NONE, A1_INVAL),
    R1(E, REPLACE, I, PUT, A1_INVAL | A1_SEND),
    R1(M, REPLACE, I, PUT, A1_INVAL | A1_SEND),
};

/* Every request stalls while the line is in a transaction. */
#define L2_MESI_BUSY(s)                                                        \
    R2(s, GETS, s, NONE, A2_STALL), R2(s, GETX, s, NONE, A2_STALL),            \
        R2(s, GETX_SOLE, s, NONE, A2_STALL), R2(s, UPGR, s, NONE, A2_STALL),   \
        R2(s, UPGR_SOLE, s, NONE, A2_STALL)

/* Absent lines have no sharers: writes arrive as GETX_SOLE. */
static const coh_row l2_mesi[] = {
    R2(I, GETS, I_S, NONE, A2_FETCH),
    R2(I, GETX_SOLE, I_M, NONE, A2_FETCH),
    R2(I_S, GETS, I_S, NONE, A2_MERGE),
    R2(I_S, GETX_SOLE, I_S, NONE, A2_MERGE),
    R2(I_M, GETS, I_M, NONE, A2_MERGE),
    R2(I_M, GETX_SOLE, I_M, NONE, A2_MERGE),
    R2(I_S, FILL, N, NONE, A2_DONE),
    R2(I_M, FILL, N, NONE, A2_DONE),
    R2(N, GETS, X, DATA_E, A2_OWN | A2_REPLY),
    R2(N, GETX_SOLE, X, DATA_M, A2_OWN | A2_REPLY),
    R2(S, GETS, S, DATA, A2_ADD | A2_REPLY),
    R2(S, GETX_SOLE, X, DATA_M, A2_OWN | A2_REPLY),
    R2(S, GETX, S_M, INV, A2_TXN | A2_INV),
    R2(S, UPGR_SOLE, X, ACK, A2_OWN | A2_REPLY),
    R2(S, UPGR, S_M, INV, A2_TXN | A2_INV),
    R2(X, GETS, X_S, FWD_GETS, A2_TXN | A2_FWD),
    R2(X, GETX_SOLE, X_M, FWD_GETX, A2_TXN | A2_FWD),
    R2(X, PUT, N, NONE, A2_TAKE | A2_DROP),
    L2_MESI_BUSY(S_M),
    L2_MESI_BUSY(X_S),
    L2_MESI_BUSY(X_M),
    L2_MESI_BUSY(M_I),
    R2(S_M, INVACK, S_M, NONE, 0),
    R2(S_M, INVACK_LAST, X, DATA_M, A2_OWN | A2_REPLY | A2_DONE),
    R2(S_M, INVACK_LAST_U, X, ACK, A2_OWN | A2_REPLY | A2_DONE),
    R2(X_S, WB, S, DATA, A2_TAKE | A2_ADD | A2_DEMOTE | A2_REPLY | A2_DONE),
    R2(X_S, NODATA, S, DATA, A2_ADD | A2_REPLY | A2_DONE),
    R2(X_S, PUT, X_S, NONE, A2_TAKE | A2_DROP),
    R2(X_M, WB, X, DATA_M, A2_TAKE | A2_OWN | A2_REPLY | A2_DONE),
    R2(X_M, NODATA, X, DATA_M, A2_OWN | A2_REPLY | A2_DONE),
    R2(X_M, PUT, X_M, NONE, A2_TAKE | A2_DROP),
    R2(N, REPLACE, I, NONE, A2_EVICT),
    R2(S, REPLACE, M_I, RCL, A2_TXN | A2_RCL | A2_EVICT),
    R2(X, REPLACE, M_I, RCL, A2_TXN | A2_RCL | A2_EVICT),
    R2(M_I, INVACK, M_I, NONE, 0),
    R2(M_I, INVACK_LAST, I, NONE, A2_DONE),
    R2(M_I, WB, I, NONE, A2_TAKE | A2_DONE),
    R2(M_I, PUT, M_I, NONE, A2_TAKE | A2_DROP),
};

/* ---- registry ---------------------------------------------------------- */

static const cm_coh_protocol protocols[] = {
    {"no-l1", "no private L1: every access goes to the L2 (seed 000)",
     CM_COH_MODEL_RCSC, CF_NO_L1, TAB(l1_no_l1), TAB(l2_plain)},
    {"no-coh", "write-evict, write-no-allocate L1, not coherent (seed 000)",
     CM_COH_MODEL_NONE, 0, TAB(l1_no_coh), TAB(l2_plain)},
    {"wt", "write-through L1 invalidated at kernel start and acquire "
           "(seed 003)",
     CM_COH_MODEL_RCSC, CF_ACQUIRE_INV | CF_KERNEL_INV, TAB(l1_wt),
     TAB(l2_plain)},
    {"mesi", "write-back, write-allocate MESI L1 and inclusive L2 "
             "directory, atomics at the L1 (seed 000)",
     CM_COH_MODEL_RCSC, CF_SHARERS | CF_OOO | CF_WRITE_BACK, TAB(l1_mesi),
     TAB(l2_mesi)},
    {"gpu-vi", "write-through valid/invalid L1, directory in the L2 tags, "
               "recalls on L2 eviction (seed 000)",
     CM_COH_MODEL_RCSC, CF_SHARERS, TAB(l1_gpu_vi), TAB(l2_gpu_vi)},
    {"gpu-vini", "GPU-VI with a separate R x L1-lines, W-way directory "
                 "(seed 000)",
     CM_COH_MODEL_RCSC, CF_SHARERS | CF_DIR, TAB(l1_gpu_vi),
     TAB(l2_gpu_vini)},
    {"tcsuo", "TC-Strong without optimisations (seed 000)",
     CM_COH_MODEL_RCSC, CF_TC, TAB(l1_tc), TAB(l2_tcsuo)},
    {"tcs", "TC-Strong with private-write and eviction optimisations "
            "(seed 000)",
     CM_COH_MODEL_RCSC, CF_TC | CF_PRIVATE_WRITE, TAB(l1_tc), TAB(l2_tcs)},
    {"tcsoo", "TCS plus out-of-order service at the L2 (seed 000)",
     CM_COH_MODEL_RCSC, CF_TC | CF_PRIVATE_WRITE | CF_OOO, TAB(l1_tc),
     TAB(l2_tcs)},
    {"tcw", "TC-Weak with the adaptive lifetime predictor (seed 000)",
     CM_COH_MODEL_RCPC, CF_TC | CF_TC_WEAK | CF_PRIVATE_WRITE | CF_PREDICTOR,
     TAB(l1_tc), TAB(l2_tcw)},
    {"tcw-fixed", "TC-Weak with the fixed lifetime tc.lifetime_weak "
                  "(seed 000)",
     CM_COH_MODEL_RCPC, CF_TC | CF_TC_WEAK | CF_PRIVATE_WRITE, TAB(l1_tc),
     TAB(l2_tcw)},
};

size_t cm_coh_protocol_count(void)
{
    return sizeof protocols / sizeof *protocols;
}

const cm_coh_protocol *cm_coh_protocol_at(size_t i)
{
    return i < cm_coh_protocol_count() ? &protocols[i] : NULL;
}

const cm_coh_protocol *cm_coh_protocol_find(const char *name)
{
    for (size_t i = 0; name && i < cm_coh_protocol_count(); i++)
        if (strcmp(protocols[i].name, name) == 0) return &protocols[i];
    return NULL;
}

const char *cm_coh_protocol_name(const cm_coh_protocol *p)
{
    return p->name;
}

const char *cm_coh_protocol_summary(const cm_coh_protocol *p)
{
    return p->summary;
}

cm_coh_model cm_coh_protocol_model(const cm_coh_protocol *p)
{
    return p->model;
}
