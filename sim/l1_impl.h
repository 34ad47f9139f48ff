/* l1_impl.h - the L1's structures and the helpers its timed controller
 * (sim/l1.c) and its functional one (sim/l1_warm.c) share.  Private to
 * those files.
 *
 * Structures, all sized at cm_l1_new:
 *  - the tags: sets x ways of l1_way (line, protocol state, LT, value,
 *    dirty bit, replacement stamp), per set the ways held by lines with an
 *    entry (pinned: never a victim) and the ways reserved by fills of lines
 *    without one;
 *  - the MSHR entries: an array with a free stack and a chained hash from
 *    line to entry, each with room for l1.mshr_merge waiting accesses;
 *  - the outbox of answers waiting for the response network. */
#ifndef CM_L1_IMPL_H
#define CM_L1_IMPL_H

#include <gsl/gsl_rng.h>

#include "sim/l1.h"

typedef struct l1_way {
    uint64_t line, lt, value;
    cm_repl_meta meta; /* the replacement policy's (sim/repl.h) */
    uint8_t state;  /* a stable state; CM_L1S_I: empty */
    uint8_t dirty;  /* written since the L2 last had it (write-back) */
    uint8_t open;   /* the fill's timestamp outcome is undecided */
    uint8_t pinned; /* the line has an MSHR entry */
} l1_way;

typedef struct l1_waiter {
    uint64_t value; /* a buffered store's or atomic's value (write-back) */
    uint32_t warp, need; /* need: the request number it waits for */
    uint8_t op;
} l1_waiter;

typedef struct l1_ent {
    uint64_t line;
    uint32_t pending;    /* requests in flight */
    uint32_t gets_seq;   /* reads sent (write-back: requests sent) */
    uint32_t data_seq;   /* the latest read answered */
    uint32_t cancel_seq; /* reads sent before the latest store or
                            invalidation: their fills do not install */
    uint32_t nwait;
    int32_t hnext; /* hash chain */
    int32_t way;   /* the copy's slot while the entry pins it, or -1 */
    uint8_t state;    /* transient */
    uint8_t used;     /* 0: free */
    uint8_t reserved; /* holds a way of its set for its fill */
    l1_waiter *w;
} l1_ent;

struct cm_l1 {
    cm_l1_config cfg;
    cm_engine *eng;
    const cm_repl_policy *repl;
    cm_repl_state rs; /* the policy's clock and random stream */
    const cm_repl_meta **vcand; /* a victim's candidates (nways) */
    struct l1_way **vway;
    int timestamps; /* the protocol keeps leases */
    int timed;      /* 0 while a functional call runs */
    /* the rows by (state, event), looked up once */
    const cm_proto_row *rowix[CM_L1S_COUNT][CM_L1E_COUNT];
    int flash_keeps[2]; /* KERNEL_START, ACQUIRE change nothing */
    l1_way *ways;
    uint64_t sets;
    uint64_t set_mask; /* sets - 1 where sets is a power of two, else 0 */
    uint32_t nways;
    uint32_t *reserved, *pinned; /* per set */
    l1_ent *ent;
    l1_waiter *waiters;
    uint32_t *free_stack, nfree;
    int32_t *bucket;
    uint64_t bucket_mask;
    uint32_t inflight; /* requests sent, not yet answered */
    /* completions of the reply being handled, reported when it is done
     * (the SM may react by touching the L1: a fence's acquire) */
    struct l1_done { uint32_t warp; uint8_t op; uint64_t gwct; } *dq;
    uint32_t ndq;
    cm_mreq **outbox;
    uint32_t obh, obn, obcap, fwd_room;
    uint64_t next_id;
    int blocked; /* a send was refused: wake the SM on retry */
    int refused; /* an access was refused: call `freed` on the next change */
    uint64_t freed_gen;
    /* functional calls: where an eviction's answer (PUT) goes */
    cm_l1_warm_fn warm_mem;
    void *warm_obj;
    uint64_t warm_now;
    cm_l1_counts n;
    cm_err err;
    cm_stat *st_acc, *st_hit, *st_miss, *st_occ, *st_merge, *st_fail[3];
    cm_stat *st_rt, *st_evict, *st_fstale, *st_fexp, *st_out[4];
};

void l1_fail(cm_l1 *l1, const char *what, unsigned state, unsigned event);
const cm_proto_row *l1_row(cm_l1 *l1, unsigned state, unsigned event);
unsigned l1_event_of(uint8_t op);
l1_way *l1_way_find(const cm_l1 *l1, uint64_t line);
int l1_expired(const cm_l1 *l1, const l1_way *w, uint64_t now);
void l1_touch(cm_l1 *l1, l1_way *w, uint32_t warp);
/* line's set (a mask where the sets are a power of two: every access) */
static inline uint64_t l1_set_of(const cm_l1 *l1, uint64_t line)
{
    return l1->set_mask ? line & l1->set_mask : line % l1->sets;
}
void l1_outcome(cm_l1 *l1, l1_way *w, int loaded, uint64_t now);
void l1_leave(cm_l1 *l1, l1_way *w, int capacity, uint64_t now);
l1_way *l1_victim(cm_l1 *l1, uint64_t line);
l1_ent *l1_ent_find(const cm_l1 *l1, uint64_t line);
l1_ent *l1_ent_new(cm_l1 *l1, uint64_t line, uint8_t state, l1_way *way);
void l1_pin(cm_l1 *l1, l1_ent *e, l1_way *w);
void l1_ent_settle(cm_l1 *l1, l1_ent *e, unsigned next);
void l1_note_freed(cm_l1 *l1);
void l1_answer(cm_l1 *l1, cm_mreq *m);
int l1_replace(cm_l1 *l1, l1_way *w, uint64_t now);
l1_way *l1_install(cm_l1 *l1, const cm_mreq *m, unsigned state,
                   uint64_t now);
void l1_value(cm_l1 *l1, uint32_t warp, uint64_t line, uint64_t value);
/* Functional: the answer of a victim's REPLACE row (sim/l1_warm.c). */
void l1_warm_answer(cm_l1 *l1, unsigned msg, const l1_way *w);
void l1_wake(cm_l1 *l1, l1_ent *e, const cm_mreq *m, l1_way *way, int filled,
             int writable);

#endif
