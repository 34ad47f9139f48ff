/* dram.h - DRAM channels, one per memory partition (configs.md tc2013:
 * "GDDR5 1400 MHz, 8 B/cycle/channel (175 GB/s peak), queue 32, FR-FCFS;
 * tCL=12 tRP=12 ... tRCD=12").
 *
 * A channel has a scheduling queue of dram.queue requests (full: the send
 * is refused and the sender's retry called when a slot frees) and one data
 * bus that moves a line in `burst` core cycles (line / (dram.bus_bytes x
 * dram.data_rate) DRAM clocks).  Requests leave the queue in arrival order
 * when the bus is free (FCFS) and complete `burst + access` cycles after
 * their burst starts, where the access latency depends on the row buffer
 * of the request's DRAM bank (row = line / lines per dram.row_bytes, bank =
 * row mod dram.banks; every bank starts precharged):
 *   row hit (row open)  closed - tRCD
 *   row closed          closed (= dram.latency - l2.latency - burst)
 *   row conflict        closed + tRP.
 * Documented simplification of FR-FCFS: rows change latency, not bus
 * occupancy, and requests are not reordered for row hits; the bus bound
 * (bandwidth) is exact.  Row hits are counted (dram.row_hits).
 * Statistics per channel ("ch0", ...): dram.reads, dram.writes,
 * dram.row_hits, dram.busy_cycles (bus), dram.bus occupancy whose full
 * fraction is dram.utilisation (bus busy time / time; a burst is charged
 * when it is issued, so a window boundary inside a burst is off by at most
 * one burst), dram.queue.occupancy. */
#ifndef CM_DRAM_H
#define CM_DRAM_H

#include <stddef.h>
#include <stdint.h>

#include "sim/memsys.h"

typedef struct cm_dram_req {
    uint64_t line;
    void *ctx;    /* the sender's, returned at completion */
    uint32_t src; /* the sender (an L2 bank) */
    uint8_t write;
} cm_dram_req;

typedef void (*cm_dram_done_fn)(void *obj, const cm_dram_req *q);

typedef struct cm_dram_config {
    unsigned channels, sources; /* sources: senders (retry slots) */
    uint32_t queue, banks;
    uint64_t lines_per_row;
    cm_ratio burst;                 /* core cycles per line on the bus */
    uint64_t hit, closed, conflict; /* access latency after the burst */
    cm_dram_done_fn done;           /* every completion, reads and writes */
    void *obj;
} cm_dram_config;

typedef struct cm_dram cm_dram;

cm_status cm_dram_new(const cm_dram_config *cfg, cm_engine *eng,
                      cm_stats *stats, cm_dram **out, cm_err *err);
void cm_dram_free(cm_dram *d);

/* The most events the channels keep pending. */
size_t cm_dram_events(const cm_dram_config *cfg);

/* Queues a copy of q at channel ch: CM_SINK_OK or CM_SINK_BUSY. */
int cm_dram_send(cm_dram *d, unsigned ch, const cm_dram_req *q);

/* Called when a channel that refused source src has room. */
void cm_dram_set_retry(cm_dram *d, unsigned src, cm_retry retry);

#endif
