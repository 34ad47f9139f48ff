/* mem.h - what the simulator's components exchange: memory requests, the
 * sink interface between components, and the protocol-as-table form.
 *
 * Data path (one request per unique line per warp instruction, from the
 * coalescer):
 *
 *   SM (warps, scheduler, coalescer, LD/ST unit)
 *     -> L1 (tags, MSHRs, the protocol's L1 table)
 *     -> memsys input sink of that SM: crossbar request network
 *        -> L2 bank (in-order queue, tags, MSHRs, atomic unit, L2 table)
 *           -> DRAM channel -> back to the bank
 *        -> crossbar reply network
 *     -> the SM's reply sink (the L1) -> the waiting warps.
 *
 * A component hands a request to the next through a cm_sink; a sink that
 * cannot take it now returns CM_SINK_BUSY and later calls the `retry`
 * callback its sender registered, so back-pressure is exact and nothing is
 * dropped.  Requests live in one pool (sim/engine.h cm_pool) sized at setup,
 * so the run loop never allocates: the L1 gets one for each request it
 * sends and puts it back when the reply has been consumed.
 *
 * A protocol is a table (design.md, "A protocol is a table"): each
 * controller (L1, L2) has states, events and rows state x event -> next
 * state, actions, message sent.  The simulator executes the table; the
 * directory-bandwidth model weights the same rows' messages by the
 * probabilities of (state, event) pairs.  A missing row means the event
 * cannot happen in that state, and the simulator reports it as an internal
 * error with the protocol, controller, state and event named. */
#ifndef CM_MEM_H
#define CM_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "data/trace.h" /* cm_op */

/* ---- requests ------------------------------------------------------------ */

/* Message classes on the crossbar; each protocol names the ones it uses.
 * Sizes in flits follow from the payload: control messages carry a header,
 * data messages a header and a line (or the written bytes). */
typedef enum cm_msg {
    CM_MSG_NONE = 0,
    CM_MSG_GETS,     /* read request */
    CM_MSG_WRITE,    /* write-through / write-around store, with data */
    CM_MSG_ATOMIC,   /* atomic, performed at the L2 atomic unit */
    CM_MSG_DATA,     /* reply with a line */
    CM_MSG_ACK,      /* store acknowledgement */
    CM_MSG_COUNT
} cm_msg;

const char *cm_msg_name(cm_msg m); /* "gets", "write", ... */

typedef struct cm_mreq {
    uint64_t line;        /* byte address >> log2(line size) */
    uint64_t id;          /* unique per run, for the conservation checks */
    uint64_t issue_cycle; /* when the L1 sent it: round-trip latency */
    uint64_t noc_cycle;   /* when it entered the crossbar: NoC latency */
    uint32_t sm, warp;
    uint16_t bytes;       /* store or atomic payload bytes */
    uint8_t op;           /* cm_op of the instruction */
    uint8_t msg;          /* cm_msg travelling now */
    void *owner;          /* the L1 MSHR entry (or warp) awaiting the reply */
} cm_mreq;

/* ---- sinks ------------------------------------------------------------- */

enum { CM_SINK_OK = 0, CM_SINK_BUSY = -1 };

typedef struct cm_sink {
    /* Takes r now (CM_SINK_OK) or refuses it (CM_SINK_BUSY). */
    int (*accept)(void *obj, cm_mreq *r);
    void *obj;
} cm_sink;

/* A sender refused by a sink is called back through this when the sink
 * has room again; it then re-sends.  The receiver keeps one retry callback
 * per sender. */
typedef struct cm_retry {
    void (*ready)(void *obj);
    void *obj;
} cm_retry;

static inline int cm_sink_send(const cm_sink *s, cm_mreq *r)
{
    return s->accept(s->obj, r);
}

/* ---- protocols as tables ----------------------------------------------- */

/* Actions a row can take (bit set). */
enum {
    CM_ACT_ALLOCATE = 1u << 0,   /* reserve a line (fill on data) */
    CM_ACT_MSHR = 1u << 1,       /* reserve or merge into an MSHR entry */
    CM_ACT_SEND = 1u << 2,       /* send the row's message */
    CM_ACT_HIT = 1u << 3,        /* complete from the local copy */
    CM_ACT_FILL = 1u << 4,       /* write the arriving line into the cache */
    CM_ACT_INVALIDATE = 1u << 5, /* drop the local copy */
    CM_ACT_COMPLETE = 1u << 6,   /* wake the waiting warp(s), free MSHR */
    CM_ACT_WRITE_LOCAL = 1u << 7 /* write the store into the local copy */
};

typedef struct cm_proto_row {
    uint8_t state, event, next;
    uint8_t msg;      /* cm_msg sent when CM_ACT_SEND */
    uint16_t actions; /* CM_ACT_* */
} cm_proto_row;

typedef struct cm_proto_table {
    const char *const *states; /* names, index = state */
    size_t nstates;
    const char *const *events; /* names, index = event */
    size_t nevents;
    const cm_proto_row *rows;
    size_t nrows;
} cm_proto_table;

typedef struct cm_protocol {
    const char *name; /* as given to --protocol */
    const char *summary;
    cm_proto_table l1, l2;
    int bypass_l1; /* NO-L1: the L1 never holds data */
} cm_protocol;

/* The row for (state, event), or NULL if the table has none. */
const cm_proto_row *cm_proto_find(const cm_proto_table *t, unsigned state,
                                  unsigned event);

#endif
