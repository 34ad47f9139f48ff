/* proto.h - the vocabulary of protocol tables: message classes, L1 and L2
 * states, events and actions, numbered and named.  The simulator's tables
 * (sim/protocol.h) are written in it, and the CSV form of a protocol that
 * the models read (sim/protocol.h cm_protocol_export, models/ptable.h)
 * names them by these names, so both sides read one vocabulary and meet
 * in data.  What the states, events and actions mean: sim/protocol.h. */
#ifndef CM_PROTO_H
#define CM_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* ---- messages ------------------------------------------------------------- */

typedef enum cm_msg {
    CM_MSG_NONE = 0,
    /* requests, L1 -> L2 (each answered by one reply) */
    CM_MSG_GETS,   /* read */
    CM_MSG_GETX,   /* write (write-through: with the data; MESI: ownership) */
    CM_MSG_UPGR,   /* write from a valid copy (TC: carries LT) */
    CM_MSG_WRITE,  /* non-coherent write-through store */
    CM_MSG_ATOMIC, /* atomic at the L2 */
    /* replies, L2 -> L1 */
    CM_MSG_DATA,   /* a line (MESI: shared) */
    CM_MSG_DATA_E, /* MESI: a line, exclusive clean */
    CM_MSG_DATA_M, /* MESI: a line, exclusive for writing */
    CM_MSG_ACK,    /* write acknowledgement (TC-Weak: with the GWCT) */
    CM_MSG_AREPLY, /* an atomic's result (one word) */
    /* forwards, L2 -> L1 */
    CM_MSG_INV,      /* invalidate a sharer */
    CM_MSG_RCL,      /* recall: the L2 or directory evicts the line */
    CM_MSG_FWD_GETS, /* MESI: owner, give the line back and keep S */
    CM_MSG_FWD_GETX, /* MESI: owner, give the line back and drop it */
    /* responses, L1 -> L2 */
    CM_MSG_INVACK, /* a sharer's answer to INV or RCL */
    CM_MSG_WB,     /* MESI: the owner's line, answering FWD or RCL */
    CM_MSG_NODATA, /* MESI: the asked owner no longer holds it */
    CM_MSG_PUT,    /* MESI: eviction of E (clean) or M (with the line) */
    CM_MSG_COUNT
} cm_msg;

typedef enum cm_msg_kind {
    CM_MK_NONE = 0,
    CM_MK_REQUEST,
    CM_MK_REPLY,
    CM_MK_FORWARD,
    CM_MK_RESPONSE
} cm_msg_kind;

extern const char *const cm_msg_names[CM_MSG_COUNT];
const char *cm_msg_name(unsigned m); /* "gets", ...; "?" out of range */
cm_msg_kind cm_msg_kind_of(unsigned m);
/* Whether the message carries a line (DATA*, WB, PUT of a dirty copy: a
 * clean PUT passes dirty = 0 and carries none, as gem5's PUTX). */
int cm_msg_carries_line(unsigned m, int dirty);
/* Whether a class without a line carries the access's bytes (write
 * requests, atomics, atomic replies). */
int cm_msg_carries_bytes(unsigned m);
/* Flits of one message: header plus payload (a line, or the access's
 * bytes for write requests, atomics and atomic replies), at least one.
 * The simulator counts by it, and the directory model by the same
 * rule. */
uint32_t cm_msg_flits(unsigned m, int dirty, uint32_t bytes, uint32_t header,
                      uint32_t flit, uint32_t line_bytes);

/* ---- L1 ------------------------------------------------------------------- */

enum cm_l1_state {
    CM_L1S_I = 0, CM_L1S_V, CM_L1S_V_M, CM_L1S_I_V, CM_L1S_I_I,
    CM_L1S_S, CM_L1S_E, CM_L1S_M, CM_L1S_IS, CM_L1S_IM, CM_L1S_SM,
    CM_L1S_COUNT
};

enum cm_l1_event {
    CM_L1E_LOAD = 0, CM_L1E_STORE, CM_L1E_ATOMIC,
    CM_L1E_DATA, CM_L1E_DATA_LAST, /* the latest fill: stores still out /
                                      none */
    CM_L1E_DATA_STALE, /* an older or cancelled fill: not installed */
    CM_L1E_DATA_EXP,   /* timestamps: the latest fill, its LT already past */
    CM_L1E_DATA_E, CM_L1E_DATA_M,
    CM_L1E_ACK, CM_L1E_ACK_LAST, CM_L1E_AREPLY, CM_L1E_AREPLY_LAST,
    CM_L1E_INV, CM_L1E_RCL, CM_L1E_FWD_GETS, CM_L1E_FWD_GETX,
    CM_L1E_REPLACE,      /* the copy is a fill's victim */
    CM_L1E_KERNEL_START, /* flash events: run for every line with a copy */
    CM_L1E_ACQUIRE,      /* or an entry */
    CM_L1E_COUNT
};

/* L1 actions, run in this order. */
enum {
    CM_A1_STALL = 1u << 0,  /* refuse the access now; it is offered again */
    CM_A1_ENTRY = 1u << 1,  /* the line needs an MSHR entry (allocate) */
    CM_A1_MERGE = 1u << 2,  /* the access waits on the entry's fill */
    CM_A1_HIT = 1u << 3,    /* performed on the local copy */
    CM_A1_WRITE = 1u << 4,  /* the store's value into the local copy */
    CM_A1_INVAL = 1u << 5,  /* drop the local copy */
    CM_A1_SEND = 1u << 6,   /* the row's message to the home bank */
    CM_A1_FILL = 1u << 7,   /* install the reply's line */
    CM_A1_WAKE = 1u << 8,   /* perform the accesses merged on the entry */
    CM_A1_DONE = 1u << 9,   /* the reply's store or atomic is done */
    CM_A1_CANCEL = 1u << 10 /* the pending fill will not be installed */
};
#define CM_A1_COUNT 11
/* Under a write-back L1 (MESI) the L1 owns lines: CM_A1_MERGE also buffers
 * a store or atomic on the entry (with its value), CM_A1_WAKE performs the
 * merged accesses in order on the granted copy, CM_A1_FILL of a grant
 * without data (ACK) upgrades the copy in place, CM_A1_HIT performs a store
 * or atomic on a writable copy at once, and CM_A1_SEND of a line-carrying
 * answer (WB, PUT) carries the copy, dirty if it was written. */

extern const char *const cm_l1_state_names[CM_L1S_COUNT];
extern const char *const cm_l1_event_names[CM_L1E_COUNT];
extern const char *const cm_l1_action_names[CM_A1_COUNT];
/* Transient states live in an MSHR entry. */
int cm_l1_state_transient(unsigned s);
/* Transient states whose reply installs a line not yet held (the entry
 * reserves a way of its set until the fill or a cancel). */
int cm_l1_state_fills(unsigned s);

/* ---- L2 ------------------------------------------------------------------- */

enum cm_l2_state {
    CM_L2S_I = 0, CM_L2S_N, CM_L2S_S, CM_L2S_X, CM_L2S_V, CM_L2S_E,
    CM_L2S_I_S, CM_L2S_I_M, CM_L2S_S_M, CM_L2S_X_S, CM_L2S_X_M, CM_L2S_M_I,
    CM_L2S_COUNT
};

enum cm_l2_event {
    CM_L2E_GETS = 0, CM_L2E_GETX, CM_L2E_UPGR, CM_L2E_WRITE, CM_L2E_ATOMIC,
    /* refinements of the requests above (cm_l2_event_base) */
    CM_L2E_GETX_SOLE,   /* no other sharer */
    CM_L2E_UPGR_SOLE,   /* write-back: no other sharer */
    CM_L2E_UPGR_PRIV,   /* timestamps: from the line's only reader, LT == GT */
    CM_L2E_UPGR_STALE,  /* timestamps: LT != GT (a stale copy's write) */
    CM_L2E_WRITE_FULL,  /* a store of the whole line */
    CM_L2E_ATOMIC_SOLE, /* no other sharer */
    CM_L2E_REQ_OWNER,   /* write-back: from the line's recorded owner, whose
                           PUT is still on its way */
    /* handled on arrival */
    CM_L2E_PUT, CM_L2E_WB, CM_L2E_NODATA, CM_L2E_INVACK,
    CM_L2E_INVACK_LAST,   /* the last awaited answer */
    CM_L2E_INVACK_LAST_A, /* ... of an atomic's transaction */
    CM_L2E_INVACK_LAST_U, /* ... of an UPGR whose requester kept its copy
                             (write-back: grant without data) */
    CM_L2E_FILL, CM_L2E_REPLACE, CM_L2E_DIR_REPLACE, CM_L2E_EXPIRE,
    CM_L2E_COUNT
};

/* L2 actions, run in this order. */
enum {
    CM_A2_STALL = 1u << 0,  /* the request waits (head-of-line when in order) */
    CM_A2_FETCH = 1u << 1,  /* MSHR entry, read DRAM; the request waits on it */
    CM_A2_MERGE = 1u << 2,  /* the request waits on the line's entry */
    CM_A2_ALLOC = 1u << 3,  /* the line is allocated at once, no read */
    CM_A2_TXN = 1u << 4,    /* MSHR entry holding the request until answers */
    CM_A2_INV = 1u << 5,    /* INV to every sharer but the requester */
    CM_A2_RCL = 1u << 6,    /* RCL to every sharer and the owner */
    CM_A2_FWD = 1u << 7,    /* the row's message to the owner */
    CM_A2_WRITE = 1u << 8,  /* the request's value into the line (dirty) */
    CM_A2_TAKE = 1u << 9,   /* an owner's line (WB, PUT) into the L2 line, or
                               to DRAM once the line has left; dirty if it
                               was written */
    CM_A2_GT = 1u << 10,    /* GT = max(GT, now + lifetime) */
    CM_A2_GWCT = 1u << 11,  /* the reply carries GT as the GWCT */
    CM_A2_GTINC = 1u << 12, /* GT += 1 after a write */
    CM_A2_ADD = 1u << 13,   /* the requester becomes a sharer */
    CM_A2_KEEP = 1u << 14,  /* sharers = sharers & {requester} */
    CM_A2_DROP = 1u << 15,  /* no sharers, no owner */
    CM_A2_OWN = 1u << 16,   /* the requester becomes the only holder (owner) */
    CM_A2_DEMOTE = 1u << 17, /* the owner becomes a sharer */
    CM_A2_REPLY = 1u << 18, /* the row's message to the requester */
    CM_A2_PARK = 1u << 19,  /* an unexpired evictee's GT waits in an MSHR
                               entry as M_I; requests to it stall */
    CM_A2_PARK_SIDE = 1u << 20, /* the same, kept aside: requests refetch and
                                   take GT from it (TC-Weak) */
    CM_A2_EVICT = 1u << 21, /* the line leaves the tags (written back if
                               dirty) */
    CM_A2_DONE = 1u << 22   /* free the MSHR entry, replay what waited */
};
#define CM_A2_COUNT 23

extern const char *const cm_l2_state_names[CM_L2S_COUNT];
extern const char *const cm_l2_event_names[CM_L2E_COUNT];
extern const char *const cm_l2_action_names[CM_A2_COUNT];
int cm_l2_state_transient(unsigned s);
/* The event a refined event falls back to (itself if none). */
unsigned cm_l2_event_base(unsigned e);

/* ---- rows ------------------------------------------------------------------ */

/* (state, event) -> next state, message class sent, actions (bits). */
typedef struct cm_proto_row {
    uint8_t state, event, next, msg;
    uint32_t actions;
} cm_proto_row;

/* The row of rows[0..n) for (state, event), or NULL; the _l2 lookup falls
 * back from a refined event to its base. */
const cm_proto_row *cm_proto_rows_find(const cm_proto_row *rows, size_t n,
                                       unsigned state, unsigned event);
const cm_proto_row *cm_proto_rows_find_l2(const cm_proto_row *rows, size_t n,
                                          unsigned state, unsigned event);

/* ---- properties (what a protocol keeps besides its states) -------------- */

/* The consistency model a protocol gives programs with fences. */
typedef enum cm_consistency {
    CM_CONSISTENCY_NONE = 0, /* not coherent (NO-COH) */
    CM_CONSISTENCY_RCPC,     /* release consistency, no write atomicity */
    CM_CONSISTENCY_RCSC      /* release consistency with write atomicity */
} cm_consistency;

/* What the protocol keeps besides its states: the structures its tables
 * act on, which rows cannot express. */
typedef enum cm_lifetime_src {
    CM_LIFE_NONE = 0,  /* no timestamps */
    CM_LIFE_STRONG,    /* fixed, tc.lifetime_strong */
    CM_LIFE_WEAK,      /* fixed, tc.lifetime_weak */
    CM_LIFE_PREDICTED  /* per-bank predictor, tc.predictor_* and tc.t_* */
} cm_lifetime_src;

typedef enum cm_sharer_track {
    CM_SHARERS_NONE = 0,
    CM_SHARERS_L2,  /* sharer bits in the L2 tags (inclusive: L2 evictions
                       recall) */
    CM_SHARERS_DIR  /* a separate R x L1-lines, W-way directory (dir.*) */
} cm_sharer_track;

extern const char *const cm_consistency_names[3];  /* none rcpc rcsc */
extern const char *const cm_lifetime_names[4];     /* none strong weak
                                                      predicted */
extern const char *const cm_sharer_track_names[3]; /* none l2 directory */

/* The number of a name in a vocabulary of n names, or -1. */
int cm_proto_lookup(const char *const *names, unsigned n, const char *name);
/* The action bits of a '|'-separated list of names ("" is 0); -1 if a
 * name is unknown. */
long cm_proto_actions(const char *const *names, unsigned n, const char *list);

#endif
