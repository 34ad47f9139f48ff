/* noc.h - the crossbar: a request network (SM -> L2 bank) and a reply
 * network (L2 bank -> SM), one per direction (configs.md tc2013: "Crossbar
 * per direction, 32 B flits, 700 MHz, 32 B/cycle/link, 8-flit VC
 * buffers").
 *
 * Each network is input-queued: an injection port per source (cm_port:
 * serialised at the link rate in flits, then the router pipeline latency)
 * into FIFOs at the switch input, and an ejection port per destination
 * (serialised again at the link rate).  Flow control is by credits, per
 * virtual network:
 *  - a source may have `in_buffer` messages of a virtual network between
 *    its send and the switch forwarding them (the VC buffer), else the send
 *    is refused and the source's retry is called when a credit returns;
 *  - the switch forwards a FIFO head only with a credit of its destination
 *    for that virtual network, which the destination returns with
 *    cm_noc_release_*; a head without one waits, blocking its FIFO
 *    (head-of-line), and blocked FIFOs are served oldest-first when
 *    credits return.  Virtual networks share the links, not the buffers.
 * Virtual networks (noc.vnets):
 *  - request network: requests (GETS, GETX, UPGR, WRITE, ATOMIC) on one,
 *    the L1s' responses (INVACK, WB, NODATA, PUT) on another.  A bank's
 *    queue may refuse requests while its transactions wait for responses;
 *    responses, handled on arrival and always taken, must not queue behind
 *    such requests, or recalls and invalidations deadlock.  With
 *    noc.vnets = 1 both share one buffer, which shows that deadlock;
 *  - reply network: one, carrying replies and forwards (INV, RCL, FWD_*)
 *    in the order each bank sends them to each SM: the seed's
 *    point-to-point order, which GPU-VI's write atomicity and MESI's
 *    grants-before-forwards rely on.  It needs no second buffer: an L1
 *    takes every reply, and answers a forward on the response network,
 *    which the banks always drain, so a forward waits only a bounded time.
 * Randomised timing (noc.jitter > 0, litmus): every port adds a random
 *  0..jitter cycles to each message, keeping its FIFO order.
 * Simplifications (documented choices):
 *  - noc.vc_buffer is read as messages, not flits: a control message is one
 *    flit, and counting a 5-flit DATA reply as 5 slots would let the
 *    store-and-forward ports below reach only a fraction of the link
 *    bandwidth;
 *  - store-and-forward: a message is serialised on both links, so an
 *    unloaded traversal of f flits is 2 ceil(f x link) + pipeline; the L2
 *    pipeline latency absorbs the difference to cut-through (memsys.h);
 *  - message flits: cm_msg_flits (header plus payload).
 * Statistics (component "all"): noc.msgs, noc.flits and per message class
 * noc.msgs.<class>, noc.flits.<class>, counted at injection; noc.latency,
 * per traversal from injection to ejection of either network, and
 * noc.req.latency, noc.reply.latency. */
#ifndef CM_NOC_H
#define CM_NOC_H

#include <stddef.h>
#include <stdint.h>

#include "sim/memsys.h"

typedef struct cm_noc_config {
    unsigned sms, banks;
    uint32_t flit_bytes, header_bytes, line_bytes;
    cm_ratio link;       /* core cycles per flit on every link */
    uint64_t latency;    /* router pipeline, core cycles */
    uint32_t in_buffer;  /* credits of a source per virtual network */
    uint32_t bank_queue; /* credits of a bank's request queue */
    uint32_t bank_resp;  /* credits of a bank's response input */
    uint32_t sm_buffer;  /* credits of an SM (its ejection buffer) */
    uint32_t vnets;      /* request-network virtual networks: 1 or 2 */
    uint32_t jitter;     /* cycles; 0: none */
    uint64_t seed;       /* the jitter's */
    /* Called at ejection; the receiver takes the message (it was sent with
     * a credit) and later returns the credit.  Responses come through
     * deliver_resp with two virtual networks, else through deliver_req. */
    void (*deliver_req)(void *obj, unsigned bank, cm_mreq *r);
    void (*deliver_resp)(void *obj, unsigned bank, cm_mreq *r);
    void (*deliver_reply)(void *obj, unsigned sm, cm_mreq *r);
    void *obj;
} cm_noc_config;

typedef struct cm_noc cm_noc;

cm_status cm_noc_new(const cm_noc_config *cfg, cm_engine *eng, cm_stats *stats,
                     cm_noc **out, cm_err *err);
void cm_noc_free(cm_noc *noc);

/* Ports (one event each) of both networks. */
size_t cm_noc_events(const cm_noc_config *cfg);

/* Flits of message r on this crossbar, and the core cycles it occupies a
 * link. */
uint32_t cm_noc_flits(const cm_noc_config *cfg, const cm_mreq *r);
double cm_noc_link_cycles(const cm_noc *noc, const cm_mreq *r);

/* Unloaded traversal of f flits in core cycles. */
uint64_t cm_noc_traversal(const cm_noc_config *cfg, uint32_t flits);

/* The bank of a line: line mod banks. */
static inline unsigned cm_noc_bank_of(uint64_t line, unsigned banks)
{
    return (unsigned)(line % banks);
}

/* Injects r from SM sm (a request or a response, to the line's bank), or
 * from bank b (a reply or a forward, to SM r->sm): CM_SINK_OK or
 * CM_SINK_BUSY (no credit). */
int cm_noc_send_req(cm_noc *noc, unsigned sm, cm_mreq *r);
int cm_noc_send_reply(cm_noc *noc, unsigned bank, cm_mreq *r);

/* Callbacks for refused sources (one per source, every network). */
void cm_noc_set_req_retry(cm_noc *noc, unsigned sm, cm_retry retry);
void cm_noc_set_reply_retry(cm_noc *noc, unsigned bank, cm_retry retry);

/* A destination frees one slot (returns one credit): of a bank's request
 * queue, of its response input, of an SM's ejection buffer. */
void cm_noc_release_req(cm_noc *noc, unsigned bank);
void cm_noc_release_resp(cm_noc *noc, unsigned bank);
void cm_noc_release_reply(cm_noc *noc, unsigned sm);

#endif
