/* proto_rows.h - shorthand for writing protocol tables, for the proto_*.c
 * files only (generic names, kept out of protocol.h).
 *
 * R1(state, event, next, message, actions) is an L1 row and R2 an L2 row,
 * with the CM_L1S_ / CM_L1E_ / CM_L2S_ / CM_L2E_ / CM_MSG_ prefixes
 * dropped; TAB(rows) makes a cm_proto_table of an array.  The rows below
 * are the ones several tables share. */
#ifndef CM_PROTO_ROWS_H
#define CM_PROTO_ROWS_H

#include "sim/protocol.h"

#define R1(s, e, n, m, a)                                                      \
    {CM_L1S_##s, CM_L1E_##e, CM_L1S_##n, CM_MSG_##m, (a)}
#define R2(s, e, n, m, a)                                                      \
    {CM_L2S_##s, CM_L2E_##e, CM_L2S_##n, CM_MSG_##m, (a)}
#define TAB(rows) {rows, sizeof rows / sizeof *rows}

/* L1: a load miss (entry, wait on it, GETS) and a write-through access that
 * allocates nothing. */
#define GET (CM_A1_ENTRY | CM_A1_MERGE | CM_A1_SEND)
#define THRU (CM_A1_ENTRY | CM_A1_SEND)

/* The transient rows of loads, fills and acknowledgements every
 * write-through L1 with a cache shares: I_V waits for a fill that
 * installs, I_I for replies that do not; atomics run at the L2 and drop
 * the local copy (seed 000: "Atomic: ATOMIC, -> I_I (performed at L2, L1
 * copy invalidated)").  What a fill does while the line's stores are
 * still in flight is each protocol's (I_V, DATA) row. */
#define L1_WT_COMMON                                                           \
    R1(I, LOAD, I_V, GETS, GET), R1(I_V, LOAD, I_V, NONE, CM_A1_MERGE),        \
        R1(I_I, LOAD, I_V, GETS, CM_A1_MERGE | CM_A1_SEND),                    \
        R1(I_V, DATA_LAST, V, NONE, CM_A1_FILL | CM_A1_WAKE),                  \
        R1(I_V, DATA_STALE, I_V, NONE, CM_A1_WAKE),                            \
        R1(I_I, DATA_STALE, I_I, NONE, CM_A1_WAKE),                            \
        R1(I_V, ACK, I_V, NONE, CM_A1_DONE),                                   \
        R1(I_V, AREPLY, I_V, NONE, CM_A1_DONE),                                \
        R1(I_I, ACK, I_I, NONE, CM_A1_DONE),                                   \
        R1(I_I, ACK_LAST, I, NONE, CM_A1_DONE),                                \
        R1(I_I, AREPLY, I_I, NONE, CM_A1_DONE),                                \
        R1(I_I, AREPLY_LAST, I, NONE, CM_A1_DONE),                             \
        R1(I, ATOMIC, I_I, ATOMIC, THRU),                                      \
        R1(I_V, ATOMIC, I_I, ATOMIC, CM_A1_CANCEL | CM_A1_SEND),               \
        R1(I_I, ATOMIC, I_I, ATOMIC, CM_A1_SEND),                              \
        R1(V, REPLACE, I, NONE, CM_A1_INVAL)

/* A valid copy with requests in flight (V_M): the latest fill installed
 * while stores, atomics or older reads of its line were out; their
 * replies complete them, and the last leaves the copy V. */
#define L1_V_M_REPLIES                                                         \
    R1(I_V, DATA, V_M, NONE, CM_A1_FILL | CM_A1_WAKE),                         \
        R1(V_M, DATA_STALE, V_M, NONE, CM_A1_WAKE),                            \
        R1(V_M, ACK, V_M, NONE, CM_A1_DONE),                                   \
        R1(V_M, ACK_LAST, V, NONE, CM_A1_DONE),                                \
        R1(V_M, AREPLY, V_M, NONE, CM_A1_DONE),                                \
        R1(V_M, AREPLY_LAST, V, NONE, CM_A1_DONE)

/* Every write-through L1: a store without a valid copy goes through as
 * msg (WRITE, or GPU-VI's and TC's GETX) and allocates nothing; one
 * behind a fill in flight cancels the fill (its data may predate the
 * store); an atomic drops a valid copy. */
#define L1_WT_STORES(msg)                                                      \
    R1(I, STORE, I_I, msg, THRU),                                              \
        R1(I_V, STORE, I_I, msg, CM_A1_CANCEL | CM_A1_SEND),                   \
        R1(I_I, STORE, I_I, msg, CM_A1_SEND),                                  \
        R1(V, ATOMIC, I_I, ATOMIC, CM_A1_INVAL | THRU)

/* A write-through L1 that keeps its copy on a store: the copy is written
 * and the store goes through as msg, the line V_M while stores are in
 * flight; an atomic drops it. */
#define L1_WT_KEEP_STORES(msg)                                                 \
    R1(V, STORE, V_M, msg, CM_A1_ENTRY | CM_A1_WRITE | CM_A1_SEND),            \
        R1(V_M, STORE, V_M, msg, CM_A1_WRITE | CM_A1_SEND),                    \
        R1(V_M, ATOMIC, I_I, ATOMIC, CM_A1_INVAL | CM_A1_SEND)

/* The rows GPU-VI and TC share: a store writes the copy and goes through
 * (store_msg: GETX under GPU-VI, UPGR carrying LT under TC), a load to a
 * line with stores in flight misses (seed 000: "A load to a line with a
 * pending store is treated as a miss"). */
#define L1_VALID_WT(store_msg)                                                 \
    L1_WT_COMMON, L1_V_M_REPLIES, R1(V, LOAD, V, NONE, CM_A1_HIT),             \
        R1(V_M, LOAD, I_V, GETS, CM_A1_MERGE | CM_A1_SEND),                    \
        L1_WT_STORES(GETX), L1_WT_KEEP_STORES(store_msg)

/* A flash event (kernel start, acquire) that changes nothing, in every
 * state of a write-through L1 that holds a copy or an entry. */
#define L1_WT_FLASH_KEEP(ev)                                                   \
    R1(V, ev, V, NONE, 0), R1(V_M, ev, V_M, NONE, 0),                          \
        R1(I_V, ev, I_V, NONE, 0), R1(I_I, ev, I_I, NONE, 0)

/* Every L2: a load to an absent line fetches it (I_S), later loads wait
 * on the fetch, and a fill leaves the line in `filled` (N, or E where GT
 * starts in the past).  Writes fetch as I_M, each protocol's way. */
#define L2_FETCH(filled)                                                       \
    R2(I, GETS, I_S, NONE, CM_A2_FETCH),                                       \
        R2(I_S, GETS, I_S, NONE, CM_A2_MERGE),                                 \
        R2(I_S, FILL, filled, NONE, CM_A2_DONE),                               \
        R2(I_M, FILL, filled, NONE, CM_A2_DONE)

/* The plain write-back L2 of NO-L1, NO-COH and WT (proto_l2_plain.c). */
extern const cm_proto_table cm_l2_plain;

#endif
