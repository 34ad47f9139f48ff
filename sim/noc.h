/* noc.h - the crossbar: a request network (SM -> L2 bank) and a reply
 * network (L2 bank -> SM), one per direction (configs.md tc2013: "Crossbar
 * per direction, 32 B flits, 700 MHz, 32 B/cycle/link, 8-flit VC
 * buffers").
 *
 * Each network is input-queued: an injection port per source (cm_port:
 * serialised at the link rate in flits, then the router pipeline latency)
 * into a FIFO at the switch input, and an ejection port per destination
 * (serialised again at the link rate).  Flow control is by credits:
 *  - a source may have `in_buffer` messages between its send and the switch
 *    forwarding them (the VC buffer), else the send is refused and the
 *    source's retry is called when a credit returns;
 *  - the switch forwards an input's head only with a credit of its
 *    destination (the bank's queue, or the SM's reply buffer), which the
 *    destination returns with cm_noc_release_*; a head without one waits,
 *    blocking its input (head-of-line), and blocked inputs are served
 *    oldest-first when credits return.
 * Simplifications (documented choices):
 *  - noc.vc_buffer is read as messages, not flits: a control message is one
 *    flit, and counting a 5-flit DATA reply as 5 slots would let the
 *    store-and-forward ports below reach only a fraction of the link
 *    bandwidth;
 *  - store-and-forward: a message is serialised on both links, so an
 *    unloaded traversal of f flits is 2 ceil(f x link) + pipeline; the L2
 *    pipeline latency absorbs the difference to cut-through (memsys.h);
 *  - message flits = ceil((header + payload) / flit), at least 1: GETS and
 *    ACK header only, DATA header + line, WRITE and ATOMIC header + bytes.
 * Statistics (component "all"): noc.msgs, noc.flits and per class
 * noc.msgs.<class>, noc.flits.<class> (gets, write, atomic, data, ack),
 * counted at injection; noc.latency, per traversal from injection to
 * ejection of either network, and noc.req.latency, noc.reply.latency. */
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
    uint32_t in_buffer;  /* credits of a source (noc.vc_buffer) */
    uint32_t bank_queue; /* credits of a bank (its request queue) */
    uint32_t sm_buffer;  /* credits of an SM (its ejection buffer) */
    /* Called at ejection; the receiver takes the message (it was sent
     * with a credit) and later returns the credit. */
    void (*deliver_req)(void *obj, unsigned bank, cm_mreq *r);
    void (*deliver_reply)(void *obj, unsigned sm, cm_mreq *r);
    void *obj;
} cm_noc_config;

typedef struct cm_noc cm_noc;

cm_status cm_noc_new(const cm_noc_config *cfg, cm_engine *eng, cm_stats *stats,
                     cm_noc **out, cm_err *err);
void cm_noc_free(cm_noc *noc);

/* Ports (one event each) of both networks. */
size_t cm_noc_events(const cm_noc_config *cfg);

/* Flits of a message of class msg carrying `bytes` (WRITE, ATOMIC). */
uint32_t cm_noc_flits(const cm_noc_config *cfg, unsigned msg, uint32_t bytes);

/* Unloaded traversal of f flits in core cycles. */
uint64_t cm_noc_traversal(const cm_noc_config *cfg, uint32_t flits);

/* The bank of a line: line mod banks. */
static inline unsigned cm_noc_bank_of(uint64_t line, unsigned banks)
{
    return (unsigned)(line % banks);
}

/* Injects r (msg GETS, WRITE or ATOMIC) from SM sm, or a reply (DATA,
 * ACK) from bank b: CM_SINK_OK or CM_SINK_BUSY (no credit). */
int cm_noc_send_req(cm_noc *noc, unsigned sm, cm_mreq *r);
int cm_noc_send_reply(cm_noc *noc, unsigned bank, cm_mreq *r);

/* Callbacks for refused sources. */
void cm_noc_set_req_retry(cm_noc *noc, unsigned sm, cm_retry retry);
void cm_noc_set_reply_retry(cm_noc *noc, unsigned bank, cm_retry retry);

/* A destination frees one slot (returns one credit). */
void cm_noc_release_req(cm_noc *noc, unsigned bank);
void cm_noc_release_reply(cm_noc *noc, unsigned sm);

#endif
