/* l1.h - the L1 data cache of one SM: tags with their protocol states,
 * MSHR entries, and the protocol's L1 table (sim/protocol.h), executed.
 *
 * The LD/ST unit hands the L1 one line request per cycle (cm_l1_access).
 * The L1 derives the line's state (the state of the line's MSHR entry if
 * it has one, else the copy's, where an expired timestamp reads as I),
 * finds the table row for (state, event) and executes its actions; a
 * missing row is an internal error naming the protocol, state and event.
 * Before changing anything it checks what the row needs, and refuses the
 * request with the reason if something is missing:
 *  - CM_L1_STALL: the row says wait (MESI: a store to a line being read);
 *  - CM_L1_FAIL_MERGE: the row waits on the line's entry, which already
 *    holds l1.mshr_merge accesses;
 *  - CM_L1_FAIL_MSHR: the row sends a request and l1.mshrs requests are
 *    in flight, or it needs a new entry and all l1.mshrs are in use;
 *  - CM_L1_FAIL_LINE: the row starts a fill of a line not held and every
 *    way of its set is reserved by fills in flight or held by lines with
 *    an entry (allocate on miss: no replaceable line);
 *  - CM_L1_BUSY: the memory side refused the request; the L1 calls the
 *    SM's `wake` when the memory side calls the L1's retry.
 * A refused request leaves no trace (only the failure is counted), so the
 * LD/ST unit simply offers it again (or counts the offer, see
 * cm_l1_freed_gen).
 *
 * MSHRs: an entry per line with requests in flight or accesses waiting;
 * every request sent (load, store or atomic, under every protocol) counts
 * towards l1.mshrs until its reply, so l1.mshr.occupancy is the L1's
 * requests in flight and Little's law ties it to roundtrip.latency.
 * Loads to a line with a pending fill merge into its entry ("the L1 MSHR
 * merges loads to the same line from different warps; stores are not
 * merged", protocols.md A).  A way is reserved per set when a fill starts
 * and the victim chosen when it arrives (l1.policy among the lines without
 * an entry), so the victim stays readable meanwhile.  Fill ordering: an
 * entry numbers its requests; a reply installs only if it answers the
 * newest read and no store or invalidation came after that read was sent,
 * while older replies still complete the loads that waited for them, which
 * keeps every load's value at least as new as its warp's earlier stores.
 *
 * Completion: a hit completes after l1.hit_latency cycles (an engine
 * event), a miss when its reply is consumed; each access is reported to
 * the SM through `done(obj, warp, op, gwct)` (gwct: a TC-Weak store's or
 * atomic's Global Write Completion Time, else 0), and the values loads and
 * atomics return through the observer's `value` hook.  Messages come from
 * a cm_pool shared with the memory side: an empty pool is an internal
 * error.  The L1's answers to forwards and its evictions' PUTs wait in an
 * outbox while the response network is full; a forward that finds the
 * outbox full is refused and offered again by the memory side.  Errors
 * inside the event loop are sticky (cm_l1_error) and stop the engine.
 *
 * Statistics (component "sm<i>"): l1.accesses, l1.hits, l1.misses,
 * l1.miss_ratio, l1.mshr.occupancy (full: l1.mshr.full_fraction),
 * l1.mshr.merges, l1.reservation_fail.{mshr,merge,line}, l1.evictions,
 * l1.fills_stale, l1.fills_expired, roundtrip.latency, and under
 * timestamps tc.outcome.{hit,expired,evicted,unused} (per fill: loaded
 * before expiry, expired before its first load, evicted before expiry,
 * never loaded). */
#ifndef CM_L1_H
#define CM_L1_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/params.h"
#include "sim/repl.h"
#include "sim/engine.h"
#include "sim/mem.h"
#include "sim/observe.h"
#include "sim/stats.h"

typedef enum cm_l1_result {
    CM_L1_OK = 0,
    CM_L1_FAIL_MSHR,
    CM_L1_FAIL_MERGE,
    CM_L1_FAIL_LINE,
    CM_L1_STALL,
    CM_L1_BUSY,
    CM_L1_ERROR
} cm_l1_result;

/* An access of warp completed (op: the cm_op it was issued with; gwct: a
 * TC-Weak write's completion time, 0 otherwise). */
typedef void (*cm_l1_done_fn)(void *obj, uint32_t warp, uint8_t op,
                              uint64_t gwct);

typedef struct cm_l1_config {
    uint32_t sm;                /* for requests and messages */
    uint64_t size, ways, line;  /* bytes, ways, bytes */
    const cm_repl_policy *policy; /* l1.policy (sim/repl.h); NULL: lru */
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
                              refusal */
    const cm_observer *obs; /* optional */
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
 * bytes is the store or atomic payload, value what it writes. */
cm_l1_result cm_l1_access(cm_l1 *l1, uint64_t line, uint8_t op, uint32_t warp,
                          uint16_t bytes, uint64_t value);

/* A flash event at every line: CM_L1E_KERNEL_START or CM_L1E_ACQUIRE. */
void cm_l1_flash(cm_l1 *l1, unsigned event);

/* Where the memory side delivers replies and forwards for this SM.
 * Replies are always taken; a forward is refused (CM_SINK_BUSY) while the
 * outbox is full. */
cm_sink cm_l1_reply_sink(cm_l1 *l1);
/* What the memory side calls when a refused message may be re-sent. */
cm_retry cm_l1_retry(cm_l1 *l1);

/* ---- functional execution (sampling: warming and traffic injection) ------ */

/* Applies the access's protocol rows to the tags at once, as if it had
 * finished at time vtime: the access row, then (if it sends a request)
 * the reply row with the answer mem gives, and the victim's REPLACE row
 * (its message, a PUT, handed to mem too).  Counts no statistic.  Returns
 * the request sent (CM_MSG_NONE if none).  A line with an MSHR entry is
 * left alone (its requests are in flight), so timed requests may be
 * outstanding meanwhile.  mem NULL: a request's answer is taken to be the
 * base reply of its class (DATA for GETS, ...), with GT = vtime. */
unsigned cm_l1_warm(cm_l1 *l1, uint64_t line, uint8_t op, uint64_t value,
                    uint64_t vtime, cm_l1_warm_fn mem, void *obj);

/* A timed grant (DATA, DATA_E, DATA_M, or ACK to an UPGR) reaching a
 * functional L1, an injected SM's under a write-back protocol: the copy
 * takes the state the reply's row gives from the request's transient
 * state, a victim leaving through mem (its PUT).  Returns the state (I if
 * no row takes the reply). */
unsigned cm_l1_warm_grant(cm_l1 *l1, uint64_t line, unsigned msg,
                          uint64_t value, uint64_t ts, uint64_t vtime,
                          cm_l1_warm_fn mem, void *obj);

/* A forward (INV, RCL, FWD_*) applied functionally: its row's effect on
 * the copy.  Returns the answer class, with the copy's value and dirty bit
 * if it carries the line, and in *held (if not NULL) whether the L1 held a
 * valid copy.  CM_MSG_NONE if there is no row, or the line has an entry (a
 * timed transaction, whose answer in flight would undo the forward). */
unsigned cm_l1_warm_forward(cm_l1 *l1, uint64_t line, unsigned msg,
                            uint64_t vtime, uint64_t *value, int *dirty,
                            int *held);

/* ---- inspection -------------------------------------------------------- */

typedef struct cm_l1_counts {
    uint64_t accesses, misses, hits, merges, evictions;
    uint64_t fail_mshr, fail_merge, fail_line, stalls, busy;
    uint64_t sent, replies; /* requests sent, replies consumed */
} cm_l1_counts;

const cm_l1_counts *cm_l1_get_counts(const cm_l1 *l1);
/* Moves whenever an entry or a reserved way is freed or a reply changes
 * an entry.  A refused request is refused again, the same way, until it
 * moves: the LD/ST unit then reports its offers with cm_l1_count_fails
 * instead of making them, and sleeps until the `freed` callback. */
uint64_t cm_l1_freed_gen(const cm_l1 *l1);
/* Counts n more refusals of reason why (CM_L1_FAIL_*, CM_L1_STALL). */
void cm_l1_count_fails(cm_l1 *l1, cm_l1_result why, uint64_t n);
size_t cm_l1_mshr_in_use(const cm_l1 *l1); /* requests in flight */
/* The line's state as the table sees it now (tests, litmus). */
unsigned cm_l1_line_state(const cm_l1 *l1, uint64_t line);
/* Whether an access (CM_OP_*) to line would send a request now: 0 when
 * the copy held serves it (an injector's queued request the grant since
 * made needless, sim/gpu.c). */
int cm_l1_needs_request(const cm_l1 *l1, uint64_t line, uint8_t op);
/* Whether the tags hold a copy of line that a load could hit. */
int cm_l1_probe(const cm_l1 *l1, uint64_t line);
/* The copy's value and whether the L1 owns it (state E or M). */
int cm_l1_owned_value(const cm_l1 *l1, uint64_t line, uint64_t *value);
/* The end of a run: copies still held whose lease has passed count as
 * never loaded (tc.outcome.unused); the others have no outcome. */
void cm_l1_finish(cm_l1 *l1);
/* Messages waiting in the outbox (conservation). */
size_t cm_l1_outbox(const cm_l1 *l1);
/* NULL, or the sticky internal error. */
const cm_err *cm_l1_error(const cm_l1 *l1);

#endif
