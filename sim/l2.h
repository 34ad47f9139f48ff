/* l2.h - the L2 banks, one per memory partition (protocols.md A, common
 * machine: "L2 banks (one per memory partition, write-back,
 * write-allocate)"; "L2 controllers (one request per cycle, in order)";
 * "Atomics run at the L2 bank's atomic unit (one cycle on a resident
 * line)"; configs.md tc2013: 8 banks x 128 KB, 8-way, 128 B lines, 128
 * MSHRs per bank, 700 MHz).
 *
 * A bank takes requests from the crossbar into an in-order queue
 * (l2.queue) and serves its head at most once per L2 cycle.  The head is
 * looked up in the tags (LRU, l2.ways; the bank indexes sets by line /
 * banks, the bits the interleaving leaves) and the line's state drives the
 * baseline L2 table (cm_l2_baseline_table):
 *   I   not present;  V  present, clean;  M  present, dirty;
 *   IV  fetching from DRAM;  IM  fetching, a store or atomic merged.
 * Hits reply after the bank pipeline (memsys.h, latency split); misses
 * take an MSHR (l2.mshrs; later requests to the line merge, up to
 * l2.mshr_merge each) and read DRAM; the fill installs the line (LRU
 * victim; a dirty victim is written back to DRAM) and answers the merged
 * requests in order.  A head that cannot proceed - no free MSHR, merge
 * list full, reply buffer full - blocks the queue (head-of-line blocking;
 * l2.hol_stall_cycles) until a resource frees.
 * Choices the seeds leave open:
 *  - stores: write-allocate; a full-line store miss allocates without
 *    reading DRAM, a partial one fetches the line first (fetch-on-write),
 *    so DRAM read traffic needs no per-byte valid masks;
 *  - atomics: performed by the atomic unit, one L2 cycle each in order,
 *    after the pipeline; on a miss after the fill; they leave the line M;
 *  - the fill path does not take a request-service slot;
 *  - an MSHR entry whose fill evicts a dirty line stays allocated until the
 *    write-back enters the DRAM queue, so MSHRs bound write-backs too;
 *    requests for DRAM (reads and write-backs) leave a bank in order;
 *  - the L2 tables of NO-L1, NO-COH and WT are this one table (their L1s
 *    differ, the L2 sees the same GETS, WRITE and ATOMIC); the coherence
 *    protocols of the next issue supply their own.
 * Statistics per bank ("bank0", ...): l2.accesses, l2.misses (every access
 * not finding the line present, merges included), l2.miss_ratio,
 * l2.mshr.merges, l2.writebacks, l2.atomics, l2.hol_stall_cycles,
 * l2.queue.occupancy (full: l2.queue.full_fraction) with l2.queue.wait
 * (arrival to service), l2.mshr.occupancy (full: l2.mshr.full_fraction)
 * with l2.mshr.lifetime (allocation to release). */
#ifndef CM_L2_H
#define CM_L2_H

#include <stddef.h>
#include <stdint.h>

#include "sim/dram.h"
#include "sim/memsys.h"
#include "sim/noc.h"

typedef struct cm_l2_config {
    unsigned banks, channels;
    uint64_t bank_bytes, ways, line_bytes;
    uint32_t queue, mshrs, merge;
    cm_ratio service; /* core cycles per request served */
    cm_ratio atomic;  /* core cycles per atomic operation */
    uint64_t pipe;    /* bank pipeline, core cycles */
} cm_l2_config;

typedef struct cm_l2 cm_l2;

/* Replies go into noc's reply network, misses to dram (channel = bank mod
 * channels); the caller routes crossbar deliveries to cm_l2_accept and
 * DRAM completions to cm_l2_dram_done. */
cm_status cm_l2_new(const cm_l2_config *cfg, cm_engine *eng, cm_stats *stats,
                    cm_noc *noc, cm_dram *dram, cm_l2 **out, cm_err *err);
void cm_l2_free(cm_l2 *l2);

size_t cm_l2_events(const cm_l2_config *cfg);

/* A request from the crossbar (with a credit of the bank's queue). */
void cm_l2_accept(cm_l2 *l2, unsigned bank, cm_mreq *r);

/* A DRAM completion of a request the L2 sent. */
void cm_l2_dram_done(cm_l2 *l2, const cm_dram_req *q);

/* Functional warming (sampling, between detailed windows): the tags see
 * an access to line (write: a store or atomic) as a finished one would
 * leave them: the line most recently used, dirty if written, a victim
 * evicted (its write-back is not timed).  A line with a fill in flight is
 * left to the fill, so requests may be inside the banks meanwhile. */
void cm_l2_warm(cm_l2 *l2, uint64_t line, int write);

/* Requests inside the banks (queued, in MSHRs, awaiting reply). */
uint64_t cm_l2_inside(const cm_l2 *l2);

/* The line's state, a cm_l2_state. */
unsigned cm_l2_line_state(const cm_l2 *l2, uint64_t line);

enum cm_l2_state {
    CM_L2S_I = 0,
    CM_L2S_V,
    CM_L2S_M,
    CM_L2S_IV,
    CM_L2S_IM,
    CM_L2S_COUNT
};
enum cm_l2_event {
    CM_L2E_GETS = 0,
    CM_L2E_WRITE,      /* a partial-line store */
    CM_L2E_WRITE_FULL, /* a store of the whole line */
    CM_L2E_ATOMIC,
    CM_L2E_FILL,    /* the line arrives from DRAM */
    CM_L2E_REPLACE, /* the line is the victim of a fill */
    CM_L2E_COUNT
};

/* The baseline table (states and events above). */
const cm_proto_table *cm_l2_baseline_table(void);

#endif
