/* l1.h - the L1 data cache of one SM: tags, MSHRs and the protocol's L1
 * table (sim/mem.h, sim/protocol.h).
 *
 * The LD/ST unit hands the L1 one line request per cycle (cm_l1_access).
 * The L1 derives the line's state (I_V if a filling MSHR entry exists, V on
 * a tag hit, else I), finds the table row for (state, event) and executes
 * its actions; a missing row is an internal error naming the protocol, the
 * state and the event.  Before changing anything it checks the resources the
 * row needs, and refuses the request with the reason if one is missing:
 *  - CM_L1_FAIL_MERGE: the line's MSHR entry already holds l1.mshr_merge
 *    requests;
 *  - CM_L1_FAIL_MSHR: a new entry is needed and all l1.mshrs are in use;
 *  - CM_L1_FAIL_LINE: the row allocates and every way of the line's set is
 *    reserved by a fill in flight (no replaceable line);
 *  - CM_L1_BUSY: the memory side's sink refused the message; the L1 calls
 *    the SM's `wake` when the memory side calls the L1's retry.
 * A refused request leaves no trace (no counts but the failure), so the
 * LD/ST unit simply offers it again (or counts the offer, see
 * cm_l1_freed_gen).
 *
 * MSHRs: every request sent (load, store or atomic, under every protocol)
 * takes an entry until its reply, so entries are the L1's requests in
 * flight and Little's law ties l1.mshr.occupancy to roundtrip.latency.
 * Loads to a line with a pending fill merge into its entry (protocols.md A:
 * "the L1 MSHR merges loads to the same line from different warps; stores
 * are not merged").  Lines are reserved per set at miss time and chosen as
 * victims at fill time (the LRU line then), so a set refuses a miss only
 * when all its ways wait for fills; the victim stays readable meanwhile.
 *
 * Completion: a hit completes after l1.hit_latency cycles (an engine event),
 * a miss when its reply is consumed; each waiting request is reported to
 * the SM through `done(obj, warp, op)`.  Requests come from a cm_pool shared
 * with the memory side, sized for every L1's MSHRs: an empty pool is an
 * internal error.  Errors inside the event loop are sticky (cm_l1_error)
 * and stop the engine.  Engine capacity: one event per hit in flight, at
 * most l1.hit_latency + 1 per L1. */
#ifndef CM_L1_H
#define CM_L1_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/params.h"
#include "sim/cache.h"
#include "sim/engine.h"
#include "sim/mem.h"
#include "sim/stats.h"

typedef enum cm_l1_result {
    CM_L1_OK = 0,
    CM_L1_FAIL_MSHR,
    CM_L1_FAIL_MERGE,
    CM_L1_FAIL_LINE,
    CM_L1_BUSY,
    CM_L1_ERROR
} cm_l1_result;

/* A request of `warp` completed (op: the cm_op it was issued with). */
typedef void (*cm_l1_done_fn)(void *obj, uint32_t warp, uint8_t op);

typedef struct cm_l1_config {
    uint32_t sm;                /* for requests and messages */
    uint64_t size, ways, line;  /* bytes, ways, bytes */
    cm_cache_policy policy;     /* l1.policy */
    uint64_t seed;              /* random replacement */
    uint32_t mshrs, mshr_merge; /* l1.mshrs, l1.mshr_merge */
    uint64_t hit_latency;       /* cycles */
    const cm_protocol *proto;   /* its l1 table is executed */
    cm_pool *pool;              /* of cm_mreq, shared */
    cm_sink out;                /* the memory side's input for this SM */
    cm_l1_done_fn done;         /* completions, to the SM */
    void *done_obj;
    cm_retry wake;         /* the sink has room again */
    cm_retry freed;        /* optional: an entry or way was freed after a
                              reservation failure */
    cm_stats *stats;       /* required */
    const char *component; /* "sm3" */
} cm_l1_config;

/* Geometry, MSHRs and hit latency from the registry (l1.*); the rest of
 * *cfg is left as it was. */
void cm_l1_config_params(cm_l1_config *cfg, const cm_params *p);

typedef struct cm_l1 cm_l1;

cm_status cm_l1_new(const cm_l1_config *cfg, cm_engine *eng, cm_l1 **out,
                    cm_err *err);
void cm_l1_free(cm_l1 *l1);

/* One line request of warp; op is CM_OP_LOAD, CM_OP_STORE or CM_OP_ATOMIC;
 * bytes is the store or atomic payload. */
cm_l1_result cm_l1_access(cm_l1 *l1, uint64_t line, uint8_t op, uint32_t warp,
                          uint16_t bytes);

/* Functional warming (sampling, between detailed windows): applies the
 * protocol row of the access to the tags at once, as if it had finished:
 * a hit touches, an allocating miss fills, an invalidating row
 * invalidates.  Counts no statistic.  Returns the message the row sends to the
 * memory side (a cm_msg: CM_MSG_NONE when it sends none), for the caller
 * to warm the L2 with.  A line whose fill is in flight is left alone (the
 * fill installs it), so timed requests may be outstanding meanwhile. */
unsigned cm_l1_warm(cm_l1 *l1, uint64_t line, uint8_t op);

/* A flash event: CM_L1E_KERNEL_START or CM_L1E_ACQUIRE. */
void cm_l1_flash(cm_l1 *l1, unsigned event);

/* Where the memory side delivers replies (DATA or ACK) for this SM; it
 * always accepts. */
cm_sink cm_l1_reply_sink(cm_l1 *l1);
/* What the memory side calls when a refused request may be re-sent. */
cm_retry cm_l1_retry(cm_l1 *l1);

typedef struct cm_l1_counts {
    uint64_t accesses, misses, hits, merges, evictions;
    uint64_t fail_mshr, fail_merge, fail_line, busy;
    uint64_t sent, replies; /* requests sent, replies consumed */
} cm_l1_counts;

const cm_l1_counts *cm_l1_get_counts(const cm_l1 *l1);
/* Moves whenever an MSHR entry or a reserved way is freed.  A refused
 * request is refused again, the same way, until it moves: the LD/ST unit
 * then reports its offers with cm_l1_count_fails instead of making them,
 * and sleeps until the `freed` callback. */
uint64_t cm_l1_freed_gen(const cm_l1 *l1);
/* Counts n more reservation failures of reason why (CM_L1_FAIL_*). */
void cm_l1_count_fails(cm_l1 *l1, cm_l1_result why, uint64_t n);
size_t cm_l1_mshr_in_use(const cm_l1 *l1);
/* Whether the tags hold line (a lookup: LRU moves it to the front). */
int cm_l1_probe(cm_l1 *l1, uint64_t line);
/* NULL, or the sticky internal error. */
const cm_err *cm_l1_error(const cm_l1 *l1);

#endif
