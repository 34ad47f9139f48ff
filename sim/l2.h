/* l2.h - the L2 banks, one per memory partition, each the home of its
 * lines: tags with sharers (or a separate directory), MSHR entries, the
 * atomic unit, and the protocol's L2 table (sim/protocol.h), executed.
 *
 * Common machine (protocols.md A, configs.md tc2013): "L2 banks (one per
 * memory partition, write-back, write-allocate)"; "L2 controllers (one
 * request per cycle, in order)"; "Atomics run at the L2 bank's atomic unit
 * (one cycle on a resident line)"; tc2013: 8 banks x 128 KB, 8-way, 128 B
 * lines, 128 MSHRs per bank, 700 MHz.
 *
 * A bank takes requests from the crossbar's request network into its
 * queue (l2.queue credits) and serves at most one per L2 cycle: its head,
 * or (cm_protocol.l2_out_of_order) the oldest request whose line is not
 * blocked.  Service derives the line's state (I, N, S, X, V, E from the
 * tags and sharers; the MSHR entry's transient state), refines the event
 * (sole sharer, private write, full-line write, ...), finds the row and
 * runs its actions, after checking what the row needs: MSHR entries (a
 * fetch, a transaction, a parked timestamp, a dirty victim's write-back),
 * room in the merge list (l2.mshr_merge), room in the reply FIFO for every
 * message it sends, a directory way.  A request that cannot go stays
 * queued (in order: it blocks the bank, l2.hol_stall_cycles) until
 * something changes.  Responses (INVACK, WB, NODATA, PUT) arrive on their
 * own network and are handled at once, always: that is what lets every
 * transaction finish.
 * Misses read DRAM (sim/dram.h, channel = bank mod channels); the fill
 * picks its victim then (LRU among lines without an entry), runs the
 * victim's REPLACE row (recalls, parked timestamps, write-backs) and
 * replays the requests that waited on the fetch, in order.  Write-backs go
 * to DRAM through an MSHR entry, so MSHRs bound them too.  Replies and
 * forwards leave through one FIFO per bank after the bank pipeline (and
 * the atomic unit, one L2 cycle per atomic, in order), so a bank's
 * messages reach each L1 in the order sent.
 * Data values: each line carries one 64-bit value, as does DRAM (0 until
 * written), so litmus tests see which store a load read.
 * Timestamps (cm_protocol.lifetime): GT per line, a lifetime per bank
 * (fixed, or TC-Weak's predictor: seed 000 section 4.4), parked
 * timestamps, and a wake-up when a stalled write's GT passes.
 *
 * Statistics per bank ("bank0", ...): l2.accesses, l2.misses (requests
 * finding the line absent or being fetched), l2.miss_ratio,
 * l2.mshr.merges, l2.writebacks, l2.atomics, l2.evictions,
 * l2.hol_stall_cycles (bank-cycles a request that could not go blocked
 * the bank), l2.store_stall_cycles (cycles writes waited on coherence, on
 * an unexpired GT or for the answers to their invalidations and recalls,
 * counted when they write), l2.queue.occupancy (full: l2.queue.full_fraction)
 * with l2.queue.wait, l2.mshr.occupancy (full: l2.mshr.full_fraction) with
 * l2.mshr.lifetime; where there are sharers dir.invalidations and
 * dir.recalls (INVs and RCLs sent) and, with a directory, dir.evictions;
 * under timestamps tc.lifetime_mean (the time-average lifetime loads
 * were granted) and the predictor's events tc.pred.l1_expired (loads whose
 * L1 copy had expired), tc.pred.l2_expired (loads finding a valid line
 * whose GT had passed), tc.pred.evict_unexpired, tc.pred.write_unexpired,
 * counted under every timestamp protocol whether or not it predicts. */
#ifndef CM_L2_H
#define CM_L2_H

#include <stddef.h>
#include <stdint.h>

#include "sim/dram.h"
#include "sim/memsys.h"
#include "sim/noc.h"
#include "sim/observe.h"

typedef struct cm_l2_config {
    unsigned banks, channels, sms;
    uint64_t bank_bytes, ways, line_bytes;
    uint32_t queue, mshrs, merge;
    cm_ratio service; /* core cycles per request served */
    cm_ratio atomic;  /* core cycles per atomic operation */
    uint64_t pipe;    /* bank pipeline, core cycles */
    uint64_t pipe_in; /* ... the part before service (memsys.h) */
    const cm_protocol *proto;
    const cm_params *params; /* tc.*, dir.*, l1.* (directory size) */
    cm_pool *pool;           /* forwards come from it */
    const cm_observer *obs;  /* optional */
} cm_l2_config;

typedef struct cm_l2 cm_l2;

/* Replies and forwards go into noc's reply network, misses and
 * write-backs to dram; the caller routes crossbar deliveries to
 * cm_l2_accept (requests) and cm_l2_response (responses), DRAM completions
 * to cm_l2_dram_done. */
cm_status cm_l2_new(const cm_l2_config *cfg, cm_engine *eng, cm_stats *stats,
                    cm_noc *noc, cm_dram *dram, cm_l2 **out, cm_err *err);
void cm_l2_free(cm_l2 *l2);

/* GPU-VIni's directory: the set index of line before its reduction modulo
 * a bank's sets, the line's bits above the bank (line / banks) XOR-folded
 * in chunks of `bits` bits (hash != 0, dir.index=hash; bits 0 leaves them
 * whole) or left as they are (dir.index=bits).  The directory indexes by
 * it; the profile recorder tells with it how a run's lines spread over the
 * sets of any directory size (sim/profile_table.c, sim/profile_dirsets.c). */
uint64_t cm_l2_dir_fold(uint64_t line, unsigned banks, unsigned bits, int hash);

size_t cm_l2_events(const cm_l2_config *cfg);

/* A request from the crossbar (with a credit of the bank's queue). */
void cm_l2_accept(cm_l2 *l2, unsigned bank, cm_mreq *r);
/* A response (INVACK, WB, NODATA, PUT): handled at once. */
void cm_l2_response(cm_l2 *l2, unsigned bank, cm_mreq *r);
/* A DRAM completion of a request the L2 sent. */
void cm_l2_dram_done(cm_l2 *l2, const cm_dram_req *q);

/* Functional execution (sampling): the answer to message m (a request or
 * a PUT) at virtual time vtime, the rows run as if the transaction had
 * finished: a miss fills at once (its victim's REPLACE row included), a
 * stalled write waits out its GT, invalidations and forwards go to the
 * L1s through `forward` (cm_l1_warm_forward of L1 sm), whose answers the
 * transaction's last row takes.  A line with an MSHR entry is left to the
 * timed requests (the answer is then the base reply).  Counts nothing. */
void cm_l2_warm(cm_l2 *l2, const cm_mreq *m, uint64_t vtime,
                cm_warm_reply *out, cm_l2_forward_fn forward, void *obj);

/* Some warp has executed a fence (tc.write_update = fences). */
void cm_l2_fence_seen(cm_l2 *l2);

/* The end of a run: the stalls still open are charged. */
void cm_l2_finish(cm_l2 *l2);

/* Requests inside the banks (queued, waiting, in transactions, replies not
 * yet sent). */
uint64_t cm_l2_inside(const cm_l2 *l2);
/* The line's state now (a cm_l2_state) and value in coherent memory below
 * the L1s (the L2's copy, else DRAM's). */
unsigned cm_l2_line_state(const cm_l2 *l2, uint64_t line);
uint64_t cm_l2_value(const cm_l2 *l2, uint64_t line);
/* The line's owner (MESI), or -1. */
int cm_l2_owner(const cm_l2 *l2, uint64_t line);

#endif
