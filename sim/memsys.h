/* memsys.h - the GPU memory side behind one interface: crossbar (sim/noc),
 * L2 banks (sim/l2) and DRAM channels (sim/dram), sized from cm_params,
 * running one protocol's L2 table.
 *
 * An SM hands requests and responses (sim/mem.h cm_mreq) to
 * cm_memsys_input(ms, sm); a refused message is re-sent when the retry
 * registered with cm_memsys_set_retry is called.  Every request gets
 * exactly one reply, and every forward (INV, RCL, FWD_*) one response,
 * through the SM's reply sink given at creation.  A reply sink that
 * returns CM_SINK_BUSY (an L1 refusing a forward while its outbox is full)
 * keeps the message in the reply network's ejection buffer of that SM
 * (noc.vc_buffer messages; the network stops sending to the SM when it is
 * full), and the messages behind it wait too (point-to-point order); the
 * memsys retries every NoC cycle, or at once when the SM calls
 * cm_memsys_reply_ready.
 *
 * Latency split (seed 000 / configs.md tc2013: "Min L2 latency 340 core
 * cycles; min DRAM latency 460"): both are unloaded round trips seen by
 * the L1, so the components' latencies are derived from them:
 *   T(f)      = 2 ceil(f x link) + noc.latency x core/noc   one traversal
 *               of f flits: serialised on the injection and on the
 *               ejection link (store-and-forward), plus the router pipeline;
 *   l2 pipe   = l2.latency - T(GETS flits) - T(DATA flits)   tag + data
 *               pipeline of a bank (includes GPGPU-Sim's ROP delay), half
 *               before a request is served (its lease, TC, starts then),
 *               half after;
 *   DRAM      = dram.latency - l2.latency = burst + the access latency of a
 *               row-closed access (tRCD + tCL + controller pipeline).
 * tc2013: link 2 core cycles per 32 B flit, noc.latency 4 NoC = 8 core
 * cycles, GETS 1 flit (T = 12), DATA 5 flits (T = 28), l2 pipe 300, DRAM
 * burst 8, row-closed access 112 (row hit 100, conflict 124).
 *
 * Clock ratios need not be integral (li2014's DRAM runs at 933.333 MHz):
 * rates are kept as exact fractions of core cycles (cm_ratio) and paced in
 * ticks of 1/den cycle, so long-run rates are exact; event times are whole
 * core cycles. */
#ifndef CM_MEMSYS_H
#define CM_MEMSYS_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/params.h"
#include "sim/engine.h"
#include "sim/mem.h"
#include "sim/stats.h"

struct cm_observer;

/* A positive rational num/den (core cycles per item). */
typedef struct cm_ratio {
    uint32_t num, den;
} cm_ratio;

/* The closest fraction to x > 0 with den <= 1000 (continued fractions). */
cm_ratio cm_ratio_of(double x);

/* ceil(ticks / den). */
static inline uint64_t cm_ratio_ceil(uint64_t ticks, cm_ratio r)
{
    return (ticks + r.den - 1) / r.den;
}

/* The derived latencies of the split above, in core cycles. */
typedef struct cm_memsys_timing {
    cm_ratio link;          /* core cycles per flit on a crossbar link */
    cm_ratio l2_service;    /* core cycles per request a bank serves */
    cm_ratio atomic;        /* the atomic unit: one L2 cycle */
    cm_ratio dram_burst;    /* core cycles one line occupies a DRAM bus */
    uint64_t noc_pipe;      /* router pipeline, core cycles */
    uint64_t noc_gets;      /* unloaded traversal of a GETS (header only) */
    uint64_t noc_data;      /* ... of a DATA reply (header + line) */
    uint64_t l2_pipe;       /* L2 bank pipeline */
    uint64_t l2_pipe_in;    /* ... the part before a request is served (the
                               tag lookup comes after GPGPU-Sim's ROP delay):
                               half of it */
    uint32_t l2_pipe_slots; /* requests that input part holds at one per
                               service slot: the bank's credits are its
                               queue's and these */
    uint64_t dram_closed;   /* after the burst: row closed (first access) */
    uint64_t dram_hit;      /* open-row hit: dram_closed - tRCD */
    uint64_t dram_conflict; /* other row open: dram_closed + tRP */
} cm_memsys_timing;

/* Errors (CM_EINPUT) when l2.latency or dram.latency is too small for the
 * crossbar and DRAM parameters to fit. */
cm_status cm_memsys_timing_of(const cm_params *p, cm_memsys_timing *t,
                              cm_err *err);

typedef struct cm_memsys cm_memsys;

/* reply_sinks: gpu.sms sinks, copied.  stats: the registry every component
 * registers in (not NULL); pool: the messages' (forwards come from it);
 * obs: optional.  The engine must have room for cm_memsys_events(p)
 * pending events besides the caller's own. */
cm_status cm_memsys_new(const cm_params *p, const cm_protocol *proto,
                        cm_pool *pool, const struct cm_observer *obs,
                        cm_engine *eng, cm_stats *stats,
                        const cm_sink *reply_sinks, cm_memsys **out,
                        cm_err *err);
void cm_memsys_free(cm_memsys *ms);

/* The most events the memsys keeps pending at once; 0 when the parameters
 * are invalid (cm_memsys_new says why). */
size_t cm_memsys_events(const cm_params *p);

/* The input of SM sm (messages need line, id, sm, msg, bytes). */
cm_sink cm_memsys_input(cm_memsys *ms, unsigned sm);

/* Called when SM sm's refused message can be re-sent. */
void cm_memsys_set_retry(cm_memsys *ms, unsigned sm, cm_retry retry);

/* The SM's reply sink has room again: deliver held messages now. */
void cm_memsys_reply_ready(cm_memsys *ms, unsigned sm);

/* Functional execution of message m at virtual time vtime (sim/l2.h
 * cm_l2_warm): the answer in *out; invalidations and forwards go to the
 * L1s through forward. */
void cm_memsys_warm(cm_memsys *ms, const cm_mreq *m, uint64_t vtime,
                    cm_warm_reply *out, cm_l2_forward_fn forward, void *obj);

/* Some warp executed a fence (sim/l2.h cm_l2_fence_seen). */
void cm_memsys_fence_seen(cm_memsys *ms);
/* The end of a run (sim/l2.h cm_l2_finish). */
void cm_memsys_finish(cm_memsys *ms);

/* Requests accepted and not yet replied to (conservation checks). */
uint64_t cm_memsys_outstanding(const cm_memsys *ms);

/* The L2's state of a line ("I", "N", "S", ..., sim/protocol.h), its value
 * in coherent memory below the L1s, and its owner (MESI) or -1. */
const char *cm_memsys_line_state(const cm_memsys *ms, uint64_t line);
uint64_t cm_memsys_value(const cm_memsys *ms, uint64_t line);
int cm_memsys_owner(const cm_memsys *ms, uint64_t line);

#endif
