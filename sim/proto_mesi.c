/* proto_mesi.c - MESI: write-back, write-allocate L1s owning lines, under
 * an inclusive L2 that keeps the sharers and the owner of each line.
 *
 * Seed statement (seed 000 via protocols.md A, "MESI"): "L1 and L2
 * write-back and write-allocate.  Inclusive: an L2 eviction recalls L1
 * copies.  E allows silent E->M.  Atomics execute at the L1 once write
 * permission is held.  Controllers pick serviceable requests from a pool
 * (no point-to-point ordering needed).  Store data is buffered until
 * permission arrives.  Extra traffic: write-allocate refills and
 * full-line PUTs"; the thesis takes it from gem5's MESI_Two_Level.
 * Choices where the seed is silent:
 *  - L1 stable I, S, E, M; transient IS (load miss: GETS), IM (store or
 *    atomic miss: GETX), SM (store or atomic to S: UPGR).  Loads, stores
 *    and atomics to IM and SM wait on the entry (store data buffered there)
 *    and are performed in arrival order when write permission arrives; a
 *    store is outstanding (for fences) until performed.  Loads merge in IS;
 *    stores and atomics to IS wait (stall) until it settles in S.  Loads to
 *    SM wait too, so a warp reads its own buffered store.  One request per
 *    entry: a reply always answers it.
 *  - Stores and atomics to E or M are performed at once (E -> M silently).
 *  - L1 eviction: S silent; E and M send PUT, the whole line if M (the
 *    seed's "full-line PUTs"), control-sized if E (gem5's PUTX:
 *    Writeback_Data if dirty, else Writeback_Control), so noc.msgs.put
 *    mixes both sizes.  PUTs are not acknowledged.
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
 *    while its UPGR was on the way; its L1 went SM -> IM) is served as the
 *    GETX it has become.  Requests to I fetch from DRAM (I_S, I_M; later
 *    requests wait on the fetch) and replay as N.
 *  - Requests to a line in a transaction (S_M, X_S, X_M, M_I) stall; the
 *    bank serves other lines meanwhile (cm_protocol.l2_out_of_order).
 *  - PUT from the owner: X -> N (data taken, dirty if M); in X_S, X_M, M_I
 *    the data is taken and the owner cleared, and the transaction waits
 *    for the owner's NODATA (or INVACK, for a recall).
 *  - Ordering: replies and forwards from a bank reach an L1 in the order
 *    sent (a grant before any later INV or FWD), and an L1's responses
 *    (INVACK, WB, NODATA, PUT) reach the bank in the order sent (a PUT
 *    before the answer to a FWD).  An L1's requests travel apart from its
 *    responses, so a request may overtake the PUT of the line it asks for
 *    again: the bank sees a request from the line's recorded owner
 *    (REQ_OWNER) and holds it until the PUT lands.
 *  - L2 eviction (inclusive): N evicts at once; S and X recall (RCL to
 *    every sharer or the owner, M_I), the way leaves at once and the
 *    owner's WB goes to DRAM; the last answer ends it. */
#include "sim/proto_rows.h"

#define L1_MESI_WRITE(ev)                                                      \
    R1(I, ev, IM, GETX, GET), R1(S, ev, SM, UPGR, GET),                        \
        R1(E, ev, M, NONE, CM_A1_HIT | CM_A1_WRITE),                           \
        R1(M, ev, M, NONE, CM_A1_HIT | CM_A1_WRITE),                           \
        R1(IS, ev, IS, NONE, CM_A1_STALL), R1(IM, ev, IM, NONE, CM_A1_MERGE),  \
        R1(SM, ev, SM, NONE, CM_A1_MERGE)
/* INV (to a sharer) and RCL (to a sharer or the owner). */
#define L1_MESI_INV(ev)                                                        \
    R1(I, ev, I, INVACK, CM_A1_SEND),                                          \
        R1(S, ev, I, INVACK, CM_A1_INVAL | CM_A1_SEND),                        \
        R1(IS, ev, IS, INVACK, CM_A1_SEND), R1(IM, ev, IM, INVACK, CM_A1_SEND), \
        R1(SM, ev, IM, INVACK, CM_A1_INVAL | CM_A1_SEND)
/* FWD_GETS / FWD_GETX to the owner, or to an owner whose PUT is on the way
 * (I, and IS / IM if it asked for the line again since). */
#define L1_MESI_FWD(ev, next, drop)                                            \
    R1(E, ev, next, WB, (drop) | CM_A1_SEND),                                  \
        R1(M, ev, next, WB, (drop) | CM_A1_SEND),                              \
        R1(I, ev, I, NODATA, CM_A1_SEND), R1(IS, ev, IS, NODATA, CM_A1_SEND),  \
        R1(IM, ev, IM, NODATA, CM_A1_SEND)
#define L1_MESI_FLASH_KEEP(ev)                                                 \
    R1(S, ev, S, NONE, 0), R1(E, ev, E, NONE, 0), R1(M, ev, M, NONE, 0),       \
        R1(IS, ev, IS, NONE, 0), R1(IM, ev, IM, NONE, 0),                      \
        R1(SM, ev, SM, NONE, 0)

static const cm_proto_row l1[] = {
    R1(I, LOAD, IS, GETS, GET),
    R1(S, LOAD, S, NONE, CM_A1_HIT),
    R1(E, LOAD, E, NONE, CM_A1_HIT),
    R1(M, LOAD, M, NONE, CM_A1_HIT),
    R1(IS, LOAD, IS, NONE, CM_A1_MERGE),
    R1(IM, LOAD, IM, NONE, CM_A1_MERGE),
    R1(SM, LOAD, SM, NONE, CM_A1_MERGE),
    L1_MESI_WRITE(STORE),
    L1_MESI_WRITE(ATOMIC),
    R1(IS, DATA, S, NONE, CM_A1_FILL | CM_A1_WAKE),
    R1(IS, DATA_E, E, NONE, CM_A1_FILL | CM_A1_WAKE),
    R1(IM, DATA_M, M, NONE, CM_A1_FILL | CM_A1_WAKE),
    R1(SM, ACK, M, NONE, CM_A1_FILL | CM_A1_WAKE),
    L1_MESI_INV(INV),
    L1_MESI_INV(RCL),
    R1(E, RCL, I, WB, CM_A1_INVAL | CM_A1_SEND),
    R1(M, RCL, I, WB, CM_A1_INVAL | CM_A1_SEND),
    L1_MESI_FWD(FWD_GETS, S, 0),
    L1_MESI_FWD(FWD_GETX, I, CM_A1_INVAL),
    R1(S, REPLACE, I, NONE, CM_A1_INVAL),
    R1(E, REPLACE, I, PUT, CM_A1_INVAL | CM_A1_SEND),
    R1(M, REPLACE, I, PUT, CM_A1_INVAL | CM_A1_SEND),
    L1_MESI_FLASH_KEEP(KERNEL_START),
    L1_MESI_FLASH_KEEP(ACQUIRE),
};

/* Every request stalls while the line is in a transaction. */
#define L2_MESI_BUSY(s)                                                        \
    R2(s, GETS, s, NONE, CM_A2_STALL), R2(s, GETX, s, NONE, CM_A2_STALL),      \
        R2(s, UPGR, s, NONE, CM_A2_STALL),                                     \
        R2(s, REQ_OWNER, s, NONE, CM_A2_STALL)

/* Absent lines have no sharers: writes arrive as GETX_SOLE, which falls
 * back to the GETX rows of I, I_S and I_M. */
static const cm_proto_row l2[] = {
    L2_FETCH(N),
    R2(I, GETX, I_M, NONE, CM_A2_FETCH),
    R2(I_S, GETX, I_S, NONE, CM_A2_MERGE),
    R2(I_M, GETS, I_M, NONE, CM_A2_MERGE),
    R2(I_M, GETX, I_M, NONE, CM_A2_MERGE),
    R2(N, GETS, X, DATA_E, CM_A2_OWN | CM_A2_REPLY),
    R2(N, GETX, X, DATA_M, CM_A2_OWN | CM_A2_REPLY),
    R2(S, GETS, S, DATA, CM_A2_ADD | CM_A2_REPLY),
    R2(S, GETX_SOLE, X, DATA_M, CM_A2_OWN | CM_A2_REPLY),
    R2(S, GETX, S_M, INV, CM_A2_TXN | CM_A2_INV),
    R2(S, UPGR_SOLE, X, ACK, CM_A2_OWN | CM_A2_REPLY),
    R2(S, UPGR, S_M, INV, CM_A2_TXN | CM_A2_INV),
    R2(X, GETS, X_S, FWD_GETS, CM_A2_TXN | CM_A2_FWD),
    R2(X, GETX, X_M, FWD_GETX, CM_A2_TXN | CM_A2_FWD),
    R2(X, REQ_OWNER, X, NONE, CM_A2_STALL),
    R2(X, PUT, N, NONE, CM_A2_TAKE | CM_A2_DROP),
    L2_MESI_BUSY(S_M),
    L2_MESI_BUSY(X_S),
    L2_MESI_BUSY(X_M),
    L2_MESI_BUSY(M_I),
    R2(S_M, INVACK, S_M, NONE, 0),
    R2(S_M, INVACK_LAST, X, DATA_M, CM_A2_OWN | CM_A2_REPLY | CM_A2_DONE),
    R2(S_M, INVACK_LAST_U, X, ACK, CM_A2_OWN | CM_A2_REPLY | CM_A2_DONE),
    R2(X_S, WB, S, DATA,
       CM_A2_TAKE | CM_A2_ADD | CM_A2_DEMOTE | CM_A2_REPLY | CM_A2_DONE),
    R2(X_S, NODATA, S, DATA, CM_A2_ADD | CM_A2_REPLY | CM_A2_DONE),
    R2(X_S, PUT, X_S, NONE, CM_A2_TAKE | CM_A2_DROP),
    R2(X_M, WB, X, DATA_M, CM_A2_TAKE | CM_A2_OWN | CM_A2_REPLY | CM_A2_DONE),
    R2(X_M, NODATA, X, DATA_M, CM_A2_OWN | CM_A2_REPLY | CM_A2_DONE),
    R2(X_M, PUT, X_M, NONE, CM_A2_TAKE | CM_A2_DROP),
    R2(N, REPLACE, I, NONE, CM_A2_EVICT),
    R2(S, REPLACE, M_I, RCL, CM_A2_TXN | CM_A2_RCL | CM_A2_EVICT),
    R2(X, REPLACE, M_I, RCL, CM_A2_TXN | CM_A2_RCL | CM_A2_EVICT),
    R2(M_I, INVACK, M_I, NONE, 0),
    R2(M_I, INVACK_LAST, I, NONE, CM_A2_DONE),
    R2(M_I, WB, I, NONE, CM_A2_TAKE | CM_A2_DONE),
    R2(M_I, PUT, M_I, NONE, CM_A2_TAKE | CM_A2_DROP),
};

static const cm_proto_table l1_tab = TAB(l1), l2_tab = TAB(l2);

const cm_protocol cm_proto_mesi = {
    .name = "mesi",
    .summary = "write-back, write-allocate MESI L1 and inclusive L2 "
               "directory, atomics at the L1 (seed 000)",
    .consistency = CM_CONSISTENCY_RCSC,
    .sharers = CM_SHARERS_L2,
    .l2_out_of_order = 1,
    .l1_write_back = 1,
    .l1 = &l1_tab,
    .l2 = &l2_tab,
};
