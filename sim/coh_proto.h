/* coh_proto.h - the coherence protocols as tables: the state, event,
 * action and message numbering that sim/coh_tables.c writes the tables in,
 * sim/coh.c executes and the directory-bandwidth model weights.
 *
 * One numbering serves every protocol, so one executor runs them all; a
 * table uses the states and events it needs.  A row is
 *   (state, event) -> next state, actions, message class sent.
 * A missing row means the event cannot happen in that state: the executor
 * stops with an internal error naming protocol, controller, state, event.
 *
 * L1.  Stable states live in the tag array (I: no tag), transient ones in
 * the line's L1 entry (an MSHR: the line's outstanding requests, `pending`
 * of them awaiting replies, and the accesses waiting on it).  Write-through
 * family (NO-L1, NO-COH, WT, GPU-VI, GPU-VIni, TC): I, V stable; V_M (a
 * valid copy with stores in flight), I_V (a fill in flight), I_I (requests
 * in flight, nothing to install).  MESI: I, S, E, M stable; IS, IM, SM.
 * Under TC a V line whose LT has passed reads as I (expiry is implicit),
 * and a fill whose LT has passed on arrival is used but not installed.
 * Reply events are refined by whether they are the entry's last awaited
 * reply (X_LAST), which is how "ACK -> V" from V_M waits for every store.
 *
 * L2.  Stable states are derived from the tags and the sharer set: I (not
 * present), N (present, no L1 copy known), S (L1 sharers), X (one L1 owns
 * it, MESI), and under TC V (GT not yet passed) and E (GT passed).
 * Transient states live in the bank's MSHR entry: I_S / I_M (fetching from
 * DRAM for a load / for a write), S_M (a write waits for INVACKs), X_S /
 * X_M (MESI: the owner was asked for the line), M_I (an eviction waits for
 * INVACKs or owner data, or TC-Strong's parked timestamp waits to expire).
 * Requests (GETS, GETX, UPGR, WRITE, ATOMIC) come through the bank's queue;
 * INVACK, WB, NODATA, PUT, FILL and EXPIRE are handled on arrival.
 * Under MESI (CF_WRITE_BACK) the L2 keeps an owner per line besides the
 * sharers; A2_DROP clears both, A2_OWN makes the requester the only
 * holder, A2_RCL recalls the owner too, and every answer to an INV, RCL or
 * FWD (INVACK, WB, NODATA) counts as one of the acks an entry awaits. */
#ifndef CM_COH_PROTO_H
#define CM_COH_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "sim/coh.h"

/* Message classes (noc.msgs.<name>). */
enum coh_msg {
    COHM_NONE = 0,
    COHM_GETS,   /* read request */
    COHM_GETX,   /* write request (write-through: with the data) */
    COHM_UPGR,   /* write from a valid copy (TC: carries LT) */
    COHM_WRITE,  /* non-coherent write-through store */
    COHM_ATOMIC, /* atomic at the L2 */
    COHM_DATA,   /* line reply (MESI: shared) */
    COHM_DATA_E, /* MESI: line, exclusive clean */
    COHM_DATA_M, /* MESI: line, exclusive for writing */
    COHM_ACK,    /* write acknowledgement (TC-Weak: with GWCT) */
    COHM_AREPLY, /* atomic result (one word) */
    COHM_INV,    /* invalidate a sharer */
    COHM_INVACK, /* sharer's answer to INV or RCL */
    COHM_RCL,    /* recall: the directory or L2 evicts the line */
    COHM_FWD_GETS, /* MESI: owner, give the line back and keep S */
    COHM_FWD_GETX, /* MESI: owner, give the line back and drop it */
    COHM_WB,       /* MESI: owner's line, answering FWD or RCL */
    COHM_NODATA,   /* MESI: owner no longer holds it */
    COHM_PUT,      /* MESI: eviction of E (clean) or M (with data) */
    COHM_COUNT
};

enum coh_l1_state {
    L1_I = 0, L1_V, L1_V_M, L1_I_V, L1_I_I,
    L1_S, L1_E, L1_M, L1_IS, L1_IM, L1_SM,
    L1_NSTATES
};

enum coh_l1_event {
    L1E_LOAD = 0, L1E_STORE, L1E_ATOMIC,
    L1E_DATA, L1E_DATA_LAST, /* the latest fill: stores still out / none */
    L1E_DATA_STALE, /* an older or cancelled fill: not installed */
    L1E_DATA_EXP,   /* TC: the latest fill, its LT already past */
    L1E_DATA_E, L1E_DATA_M,
    L1E_ACK, L1E_ACK_LAST, L1E_AREPLY, L1E_AREPLY_LAST,
    L1E_INV, L1E_RCL, L1E_FWD_GETS, L1E_FWD_GETX,
    L1E_REPLACE, L1E_FLASH, /* FLASH: kernel start or acquire */
    L1_NEVENTS
};

enum coh_l2_state {
    L2_I = 0, L2_N, L2_S, L2_X, L2_V, L2_E,
    L2_I_S, L2_I_M, L2_S_M, L2_X_S, L2_X_M, L2_M_I,
    L2_NSTATES
};

enum coh_l2_event {
    L2E_GETS = 0, L2E_GETX, L2E_GETX_SOLE, L2E_UPGR, L2E_UPGR_SOLE,
    L2E_UPGR_PRIV, /* TC: from the line's only reader, LT == GT */
    L2E_UPGR_STALE, /* MESI: requester lost its copy; TC-Weak: LT != GT */
    L2E_WRITE, L2E_ATOMIC, L2E_ATOMIC_SOLE,
    L2E_PUT, L2E_WB, L2E_NODATA, L2E_INVACK, L2E_INVACK_LAST,
    L2E_INVACK_LAST_A, /* the last ack of an atomic's transaction */
    L2E_INVACK_LAST_U, /* MESI: the last ack of an UPGR whose requester
                          still holds its copy (grant without data) */
    L2E_FILL, L2E_REPLACE, L2E_DIR_REPLACE, L2E_EXPIRE,
    L2_NEVENTS
};

/* L1 actions, executed in this order. */
enum {
    A1_STALL = 1u << 0,  /* refuse the access now; retried later */
    A1_ENTRY = 1u << 1,  /* the line needs an entry (allocate if none) */
    A1_MERGE = 1u << 2,  /* the access waits on the entry's fill */
    A1_HIT = 1u << 3,    /* performed on the local copy */
    A1_WRITE = 1u << 4,  /* the store's value into the local copy */
    A1_INVAL = 1u << 5,  /* drop the local copy */
    A1_SEND = 1u << 6,   /* send the row's message to the home bank */
    A1_FILL = 1u << 7,   /* install the reply's line */
    A1_WAKE = 1u << 8,   /* perform the accesses merged on the entry */
    A1_DONE = 1u << 9,   /* a store or atomic of the reply's warp is done */
    A1_CANCEL = 1u << 10 /* the pending fill will not be installed */
};
/* Under CF_WRITE_BACK (MESI) the L1 owns lines: A1_MERGE also buffers a
 * store or atomic on the entry (with its value), A1_WAKE then performs the
 * merged accesses in order on the granted copy (loads read, stores write,
 * atomics read then write), A1_FILL of a grant without data (ACK) upgrades
 * the local copy in place, A1_HIT performs a store or atomic on a writable
 * copy at once, and A1_SEND of a line-carrying answer (WB, PUT) carries
 * the copy, marked dirty if it was written. */

/* L2 actions, executed in this order. */
enum {
    A2_STALL = 1u << 0,   /* the request waits (head-of-line in order) */
    A2_FETCH = 1u << 1,   /* MSHR entry, read DRAM; the request waits on it */
    A2_MERGE = 1u << 2,   /* the request waits on the line's entry */
    A2_TXN = 1u << 3,     /* MSHR entry holding this request until acks */
    A2_INV = 1u << 4,     /* INV to every sharer but the requester */
    A2_RCL = 1u << 5,     /* RCL to every sharer */
    A2_FWD = 1u << 6,     /* the row's message to the owner */
    A2_WRITE = 1u << 7,   /* the request's value into the line (dirty) */
    A2_GT = 1u << 8,      /* GT = max(GT, now + lifetime) */
    A2_GTINC = 1u << 9,   /* TC-Weak: GT += 1 after a write */
    A2_REPLY = 1u << 10,  /* the row's message to the requester */
    A2_ADD = 1u << 11,    /* requester becomes a sharer */
    A2_KEEP = 1u << 12,   /* sharers = sharers & {requester} */
    A2_DROP = 1u << 13,   /* no sharers, no owner */
    A2_OWN = 1u << 14,    /* requester becomes the owner (MESI) */
    A2_EVICT = 1u << 15,  /* the line leaves the tags (write back if dirty) */
    A2_PARK = 1u << 16,   /* TC: an unexpired evictee's GT waits in an MSHR */
    A2_DONE = 1u << 17,   /* free the MSHR entry, replay what waited on it */
    A2_DEMOTE = 1u << 18, /* MESI: the old owner becomes a sharer */
    A2_TAKE = 1u << 19    /* MESI: the owner's line (WB or PUT) into the L2
                             line, or to DRAM once the line has left;
                             dirty if the owner had modified it.  Runs
                             right after A2_WRITE (before any REPLY) */
};

typedef struct coh_row {
    uint8_t state, event, next, msg;
    uint32_t actions;
} coh_row;

typedef struct coh_table {
    const coh_row *rows;
    size_t nrows;
} coh_table;

/* Protocol features the executor needs besides the tables. */
enum {
    CF_NO_L1 = 1u << 0,      /* every access goes to the L2 */
    CF_TC = 1u << 1,         /* timestamps */
    CF_TC_WEAK = 1u << 2,    /* GWCT acks, fences wait for them */
    CF_PREDICTOR = 1u << 3,  /* per-bank adaptive lifetime */
    CF_OOO = 1u << 4,        /* the L2 serves the oldest request that can go */
    CF_DIR = 1u << 5,        /* GPU-VIni: a separate directory */
    CF_SHARERS = 1u << 6,    /* the L2 tracks sharers */
    CF_ACQUIRE_INV = 1u << 7,/* WT: a fence invalidates the L1 */
    CF_KERNEL_INV = 1u << 8, /* the L1 is invalidated at kernel start */
    CF_PRIVATE_WRITE = 1u << 9, /* TC: UPGR from the only reader, LT == GT */
    CF_WRITE_BACK = 1u << 10    /* MESI: the L1 owns dirty lines */
};

struct cm_coh_protocol {
    const char *name, *summary;
    cm_coh_model model;
    uint32_t flags;
    coh_table l1, l2;
};

extern const char *const coh_msg_names[COHM_COUNT];
extern const char *const coh_l1_state_names[L1_NSTATES];
extern const char *const coh_l1_event_names[L1_NEVENTS];
extern const char *const coh_l2_state_names[L2_NSTATES];
extern const char *const coh_l2_event_names[L2_NEVENTS];

/* Whether an L1 or L2 state is transient (kept in an MSHR entry). */
int coh_l1_transient(unsigned state);
int coh_l2_transient(unsigned state);
/* Whether a message class is a request that the L1 awaits a reply to. */
int coh_msg_awaits_reply(unsigned msg);
/* Whether a message carries a line of data (for its flit count; a clean
 * MESI PUT, of an E copy, carries none). */
int coh_msg_carries_line(unsigned msg);

/* Flits of one message of class m on the crossbar: header plus payload,
 * at least one flit.  The payload is a line when `line` (a line-carrying
 * class; a clean MESI PUT passes 0), else the access's bytes for write
 * requests, atomics and atomic replies, else nothing.  The simulator and
 * the directory-bandwidth model (models/directory.c) both count by it. */
uint64_t coh_msg_flits(unsigned m, int line, uint32_t bytes, uint32_t header,
                       uint32_t flit, uint32_t line_bytes);

const coh_row *coh_table_find(const coh_table *t, unsigned state,
                              unsigned event);

#endif
