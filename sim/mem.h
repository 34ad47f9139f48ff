/* mem.h - what the simulator's components exchange: messages and the sink
 * interface between components.
 *
 * Data path (one request per unique line per warp instruction, from the
 * coalescer):
 *
 *   SM (warps, scheduler, coalescer, LD/ST unit)
 *     -> L1 (tags, MSHRs, the protocol's L1 table)
 *     -> memsys input sink of that SM: crossbar (request and response
 *        networks)
 *        -> L2 bank (request queue, tags, sharers, MSHRs, atomic unit, the
 *           protocol's L2 table) -> DRAM channel -> back to the bank
 *        -> crossbar (replies and forwards, ordered per bank and SM)
 *     -> the SM's reply sink (the L1) -> the waiting warps.
 *
 * A component hands a message to the next through a cm_sink; a sink that
 * cannot take it now returns CM_SINK_BUSY and later calls the `retry`
 * callback its sender registered, so back-pressure is exact and nothing is
 * dropped.  Messages live in one pool (sim/engine.h cm_pool) sized at
 * setup, so the run loop never allocates.  A request's record travels to
 * the L2 and back as its reply, and the L1 returns it to the pool; a
 * forward's record (INV, RCL, FWD_*) comes back as its answer (INVACK, WB,
 * NODATA), which the L2 returns; a PUT's record is the L2's to return. */
#ifndef CM_MEM_H
#define CM_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "data/trace.h" /* cm_op */
#include "sim/protocol.h"

/* cm_mreq.flags */
enum {
    CM_MF_EXPIRED_MISS = 1, /* a load that found its L1 copy expired (TC) */
    CM_MF_DIRTY = 2,        /* WB or PUT of a written copy */
    CM_MF_WAITED = 4,       /* a request that waited on an L2 entry */
    CM_MF_STALLED = 8,      /* a write waiting on coherence at the L2 */
    CM_MF_CREDIT = 16       /* holds a credit of the bank's queue */
};

typedef struct cm_mreq {
    uint64_t line;        /* byte address >> log2(line size) */
    uint64_t id;          /* unique per run, for the conservation checks */
    uint64_t issue_cycle; /* when the L1 sent it: round-trip latency */
    uint64_t noc_cycle;   /* when it entered the crossbar: NoC latency */
    uint64_t queued;      /* when it joined the L2 bank's queue */
    uint64_t value;  /* a store's or atomic's value; a reply's line (an
                        atomic's old value); a WB's or PUT's copy */
    uint64_t ts;     /* UPGR: the copy's LT; a reply: the line's GT */
    uint64_t gwct;   /* TC-Weak write replies: the GWCT (0: none) */
    uint64_t stall_cycle; /* when it first stalled at the L2 */
    uint32_t sm, warp;
    uint32_t seq;  /* the L1 entry's request number (fill ordering) */
    uint16_t bytes; /* store or atomic payload bytes */
    uint8_t op;     /* cm_op of the instruction */
    uint8_t msg;    /* cm_msg travelling now */
    uint8_t flags;  /* CM_MF_* */
    struct cm_mreq *next; /* the holder's list (L2 queue, waiters) */
} cm_mreq;

/* The value the k-th store or atomic line (k >= 1) of warp w of SM sm
 * writes: distinct for every store of a run, so a load's value names the
 * store it read; memory starts at 0. */
static inline uint64_t cm_store_value(uint32_t sm, uint32_t warp,
                                      uint32_t warps, uint32_t k)
{
    return ((uint64_t)sm * warps + warp + 1) << 32 | k;
}

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

/* ---- functional answers (sampling: warming and traffic injection) ------ */

/* The memory side's functional answer to a request: the reply class
 * (CM_MSG_NONE: not granted now, the L1 keeps no copy), the line's value
 * and its GT. */
typedef struct cm_warm_reply {
    uint8_t msg;
    uint64_t value, ts;
} cm_warm_reply;

/* Asked of the memory side by an L1: the answer to message m (a request,
 * or a PUT: then out is ignored) at the virtual time vtime. */
typedef void (*cm_l1_warm_fn)(void *obj, const cm_mreq *m, uint64_t vtime,
                              cm_warm_reply *out);

/* Asked of an L1 by the memory side: forward msg (INV, RCL, FWD_*) for
 * line at L1 sm; returns the answer class, with the copy's value and dirty
 * bit where it carries the line, and *held: whether the L1 held a valid
 * copy.  CM_MSG_NONE when the L1 cannot answer now (a timed transaction
 * holds the line). */
typedef unsigned (*cm_l2_forward_fn)(void *obj, uint32_t sm, uint64_t line,
                                     unsigned msg, uint64_t vtime,
                                     uint64_t *value, int *dirty, int *held);

#endif
