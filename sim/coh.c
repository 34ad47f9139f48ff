/* coh.c - the coherence simulator of coh.h: cores, L1 controllers, the
 * crossbar, L2 banks with their directory and DRAM, executing the tables
 * of sim/coh_tables.c (numbering in sim/coh_proto.h).
 *
 * Each controller derives a line's state, refines the event by the
 * conditions the tables name (last reply, sole sharer, private write,
 * stale or expired fill), finds the row and executes its actions in the
 * fixed order of coh_proto.h.  Resource checks come first, so a refused
 * access or a stalled request leaves nothing changed.
 *
 * L1 fill ordering.  An entry numbers the GETS it sends (gets_seq); a
 * merged load waits for the GETS current when it merged, and a reply
 * installs only if it answers the newest GETS and no store or invalidation
 * came after that GETS was sent (cancel_seq).  Older replies still wake
 * the loads that waited for them: this keeps every load's value at least
 * as new as the warp's own earlier stores (per-location coherence) while
 * fills in flight are never wasted.
 *
 * Timing constants (core cycles) come from the registry: a NoC cycle is
 * gpu.core_clock / noc.clock core cycles, a message takes noc.latency NoC
 * cycles plus one per flit at each port; the L2 bank pipeline is whatever
 * makes an unloaded L2 hit take l2.latency from L1 to L1 again, and DRAM
 * adds dram.latency - l2.latency plus the line's transfer on its channel.
 *
 * Messages come from a free list that grows in blocks when empty (rare:
 * the MSHR limits bound them), so the steady run loop does not allocate. */
#include "sim/coh.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/trace.h"
#include "models/profile.h"
#include "models/reuse.h"
#include "models/reuse_impl.h" /* cm_linemap */
#include "sim/coh_proto.h"
#include "sim/engine.h"

#define NONE64 UINT64_MAX
enum {
    MF_EXPIRED_MISS = 1,
    MF_DIRTY = 2,   /* WB or PUT of a written copy */
    MF_WAITED = 4   /* a request that waited on an L2 entry (a miss): when
                       it is served again the line it finds is no valid
                       line it reached (the predictor's L2-expired load) */
};

/* Histograms of the timing profile (models/profile.h): quarter-octave
 * bins, [0,1), [1, 2^0.25), ..., plus the mass at infinity. */
enum {
    H_REUSE, H_RESID, H_R2W, H_R2WS, H_GAP, H_EVAGE, H_S2F, H_FSLACK, H_FACK,
    H_SD, H_LGAP, H_LSD, H_SGAP, H_LAST, H_ASD, H_ESD, H_EGAP, H_LDELAY,
    H_OWN, H_OWNS, H_R2WO, H_R2WOS, H_OWNN, H_OWNNS, H_COUNT
};
#define HBINS 181
typedef struct hist {
    double bin[HBINS], inf;
} hist;
/* The profile's classification of an L1 access by what happened to its
 * line since this core's previous load (loads) or access (stores), in
 * program order whatever the protocol (models/profile.h). */
enum {
    HF_REMOTE = 1, HF_STORE = 2, HF_ATOMIC = 4, HF_SYNC = 8, HF_OWNED = 16,
    HF_SEEN = 32, HF_COUNT = 64
};
enum { SF_HOLDS = 1, SF_ONLY = 2, SF_COUNT = 4 };
static const char *const hist_names[H_COUNT] = {
    "l1.reuse_time",       "l1.residency",          "l2.read_to_write",
    "l2.read_to_write_shared", "l2.load_gap",       "l2.evict_age",
    "warp.store_to_fence", "warp.fence_lease_slack", "warp.fence_ack_wait",
    "dir.stack_distance",  "l1.load_gap",           "l1.load_distance",
    "l1.store_gap",        "l1.last_use",           "dir.alloc_distance",
    "dir.empty_distance",  "dir.empty_gap",         "l1.lease_delay",
    "l2.read_to_write_own", "l2.read_to_write_own_shared",
    "l2.read_to_write_other",
    "l2.read_to_write_other_shared", "l2.read_to_write_own_next",
    "l2.read_to_write_own_next_shared"};

static int hist_bin(double x)
{
    int i = x < 1 ? 0 : 1 + (int)floor(4 * log2(x));
    return i < HBINS ? i : HBINS - 1;
}

static void hist_add(hist *h, double x)
{
    if (!isfinite(x)) {
        h->inf += 1;
        return;
    }
    h->bin[hist_bin(x)] += 1;
}

static double hist_edge(int i)
{
    return i == 0 ? 0 : exp2((i - 1) / 4.0);
}

typedef struct cmsg {
    struct cmsg *next;
    uint64_t line, value, ts, gwct, stall_t, born;
    uint64_t enq_t;    /* joined its bank's queue (profile) */
    double stall_hol; /* the bank's blocked cycles when it stalled */
    uint64_t lease1; /* a reply with a GWCT to a store or atomic: 1 + the
                        line's latest L2 load time (profile); 0: none, as
                        every message starts */
    uint64_t lease_len; /* a reply that granted a lease (TC): the lifetime
                           the bank granted, ts - lease_len when; 0: none */
    uint64_t stall_read_t; /* a store held by a GT: the line's latest load
                              when it first stalled (profile) */
    uint32_t stall_read_core, stall_read_warp, stall_read_inst;
    double stall_read_hol;
    uint32_t inst; /* profile: its warp's waits so far (warp.waits) */
    uint32_t src, dst, core, warp, seq;
    uint16_t bytes;
    uint8_t cls, op, flags, stalled;
} cmsg;

typedef struct waiter {
    uint64_t value; /* a buffered store's or atomic's value (write-back) */
    uint32_t warp, need;
    uint8_t op;
} waiter;

typedef struct l1way {
    uint64_t line, lt, stamp, fill_t;
    uint64_t use_t; /* the latest load that found the copy (NONE64: none) */
    uint64_t value;
    uint8_t state, open; /* open: the fill's lifetime outcome is undecided */
    uint8_t dirty;       /* written since the L2 last had it (write-back) */
} l1way;

typedef struct l1ent {
    uint64_t line;
    uint32_t pending, gets_seq, data_seq, cancel_seq, nwait;
    uint8_t state, used;
    waiter *w;
} l1ent;

enum { W_READY = 0, W_MEM, W_FENCE, W_BAR, W_DONE };

typedef struct warp {
    cm_inst inst;
    uint64_t ready, gwct, fence_t, last_store;
    /* profile: the latest L2 load of a line its stores since the last fence
     * wrote (NONE64: none), and when its last outstanding ack came */
    uint64_t lease_t, acked_t;
    uint32_t wait_n, stores_out, k;
    /* profile: memory instructions, fences and barriers issued: what a
     * warp can wait for (a round trip, its acks, other warps) */
    uint32_t waits;
    uint8_t st, has;
} warp;

typedef struct core {
    cm_coh *c;
    uint32_t id, lrr, live, at_bar, inflight;
    warp *w;
    uint64_t issue_free, tick_at, timer_at, stamp;
    uint64_t sync_t; /* profile: the latest fence or kernel start issued */
    /* LD/ST unit: the memory instruction being handed to the L1 */
    uint64_t *ld_lines;
    uint32_t ld_n, ld_i, ld_warp;
    uint8_t ld_busy, ld_op, refused;
    l1way *ways;
    l1ent *ent;
    waiter *waiters;
} core;

typedef struct l2way {
    uint64_t line, gt, value, stamp, sharers, read_t;
    double read_hol; /* the bank's blocked cycles at read_t (profile) */
    uint32_t read_core, read_warp; /* whose load read_t is (profile) */
    uint32_t read_inst; /* and that warp's waits then (warp.waits) */
    int32_t reader, owner; /* owner: the L1 holding it E or M (MESI), -1 */
    uint8_t valid, dirty, multi;
} l2way;

typedef struct l2ent {
    uint64_t line, gt;
    cmsg *txn, *wh, *wt;
    uint32_t acks;
    uint8_t state, used, side; /* side: TC-Weak parked GT, not line-mapped */
} l2ent;

typedef struct dirent {
    uint64_t line, sharers, stamp;
    uint8_t valid;
} dirent;

typedef struct bank {
    cm_coh *c;
    uint32_t id, nused;
    l2way *ways;
    l2ent *ent;
    dirent *dir;
    cmsg *qh, *qt;
    uint32_t qn;
    uint64_t next_slot, chan_free, stamp, hol_since, pred_t, wake_at;
    double pred, pred_area;
    double hol_cum; /* cycles blocked with nothing servable, closed spells */
    uint8_t serve_pending, hol;
    cm_stat *st_mocc;
} bank;

/* The bank's cycles blocked with nothing it may serve, up to now. */
static double bank_blocked(const bank *b, uint64_t now)
{
    return b->hol_cum + (b->hol ? (double)(now - b->hol_since) : 0);
}

typedef struct memval {
    uint64_t line, value;
} memval;

struct cm_coh {
    cm_coh_config cfg;
    const cm_coh_protocol *p;
    cm_params prm;
    cm_engine eng;
    gsl_rng *rng;
    uint32_t ncores, nwarps, nbanks, eps;
    core *cores;
    bank *banks;
    /* geometry */
    uint32_t l1_sets, l1_ways, l2_sets, l2_ways, dir_sets, dir_ways;
    uint32_t dir_hash, dir_index_bits; /* dir.index; bits to cover dir_sets */
    uint32_t mshrs, merge, l2_mshrs, scan, line_bytes;
    /* timing */
    uint64_t ncyc, noc_lat, l2_cycle, pipe, dram_access, xfer, hit_lat;
    uint64_t reply_slack; /* cycles of replies a bank may have queued */
    uint32_t flit, header;
    uint64_t *out_free, *in_free, *last_arr;
    double reply_busy; /* cycles the banks' reply ports spent sending */
    double hol_sum, sstall_sum; /* bank-cycles blocked, store stall cycles */
    /* stores held by a lease, and their cycles from the lease's end (the
     * held load's L after it) to their service: TCSOO's out-of-order bank
     * serves one only when its scan finds nothing servable before it
     * (models/lifetime.c, "The wait after the lease") */
    double n_held, post_sum;
    /* messages */
    cmsg *free_msgs;
    void **blocks;
    size_t nblocks;
    /* DRAM contents: open addressing, grows */
    memval *mem;
    size_t mem_cap, mem_n;
    uint64_t lifetime, finish, instructions;
    uint64_t max_instructions; /* sim.max_instructions; 0: none */
    int fences_seen, err_set;
    cm_err err;
    /* the timing profile */
    hist h[H_COUNT];
    /* other warps' stores queued behind the lease's load, by (S less the
     * bank's blocked cycles, those cycles) on the histogram grid: weight,
     * sum of each, for all stores and without private writes */
    double (*behind)[HBINS][HBINS][3];
    double sharers_hist[65], ack_sum, ack_n, fill_sum, fill_n;
    double flight_sum, flight_n; /* requests' L1-to-bank flight */
    double n_fills, n_loads, n_l2_loads, n_l2_stores, n_l2_evict, n_fences,
        n_dir;
    cm_stackdist *sd;
    /* GPU-VIni's directory stream (profile_dir_stream): lines loaded at the
     * L2, with their sharers in an unbounded directory */
    cm_stackdist *asd;
    cm_linemap amap; /* line -> index into arec */
    struct arec { uint64_t sharers, empty_at; } *arec;
    size_t an, acap;
    double n_empties;
    /* the profile's program-order access history (hist_access) */
    cm_linemap hmap; /* line x 64 + core -> index into hrec */
    cm_linemap gmap; /* line -> index into grec */
    struct hrec { uint64_t load_t, store_t, atomic_t, any_t; } *hrec;
    struct grec { uint64_t w_t, w2_t, holders; int32_t writer; } *grec;
    size_t hn, hcap, gn, gcap;
    cm_stackdist **lsd; /* per core, over its loads */
    double load_flags[HF_COUNT], store_flags[SF_COUNT], write_sharers[65],
        n_stores, n_atomics;
    /* statistics */
    cm_stat *st_flits, *st_msgs[COHM_COUNT], *st_recalls, *st_invs;
    cm_stat *st_sstall, *st_hol, *st_fwait, *st_fences, *st_l1acc, *st_l1hit,
        *st_l1miss, *st_l2acc, *st_l2miss, *st_l2evict, *st_wb, *st_cycles,
        *st_inst, *st_fstale, *st_fexp, *st_out[4], *st_lifemean, *st_pred_t;
    cm_stat *st_pred[4]; /* the predictor's events, PE_* */
};

static void fail(cm_coh *c, const char *fmt, const char *a, const char *b,
                 const char *d)
{
    if (c->err_set) return;
    c->err_set = 1;
    cm_err_set(&c->err, CM_EINTERNAL, fmt, c->p->name, a, b, d);
    cm_engine_stop(&c->eng);
}

/* ---- messages and the crossbar ------------------------------------------ */

static cmsg *msg_new(cm_coh *c)
{
    if (!c->free_msgs) {
        enum { BLOCK = 1024 };
        void **nb = realloc(c->blocks, (c->nblocks + 1) * sizeof *nb);
        cmsg *blk = nb ? calloc(BLOCK, sizeof *blk) : NULL;
        if (nb) c->blocks = nb;
        if (!blk) {
            fail(c, "protocol %s: out of memory for messages%s%s%s", "", "",
                 "");
            return NULL;
        }
        c->blocks[c->nblocks++] = blk;
        for (size_t i = 0; i < BLOCK; i++) {
            blk[i].next = c->free_msgs;
            c->free_msgs = &blk[i];
        }
    }
    cmsg *m = c->free_msgs;
    c->free_msgs = m->next;
    memset(m, 0, sizeof *m);
    return m;
}

static void msg_free(cm_coh *c, cmsg *m)
{
    m->next = c->free_msgs;
    c->free_msgs = m;
}

static uint32_t bank_of(const cm_coh *c, uint64_t line)
{
    return (uint32_t)(line % c->nbanks);
}

static uint64_t jitter(cm_coh *c)
{
    return c->cfg.jitter
               ? gsl_rng_uniform_int(c->rng, (unsigned long)c->cfg.jitter + 1)
               : 0;
}

static void deliver(cm_engine *eng, void *obj, uint64_t arg);

/* Sends m from endpoint src to dst, leaving src at `depart` or later.
 * Serialised at both ports; per (src, dst) pair, arrivals keep send
 * order. */
static void noc_send(cm_coh *c, cmsg *m, uint32_t src, uint32_t dst,
                     uint64_t depart)
{
    /* a clean PUT (MESI eviction of E) carries no data (gem5's PUTX:
     * Writeback_Control unless dirty) */
    int line = coh_msg_carries_line(m->cls) &&
               !(m->cls == COHM_PUT && !(m->flags & MF_DIRTY));
    uint64_t flits = coh_msg_flits(m->cls, line, m->bytes, c->header,
                                   c->flit, c->line_bytes);
    uint64_t ser = flits * c->ncyc;
    uint64_t t0 = depart > c->out_free[src] ? depart : c->out_free[src];
    c->out_free[src] = t0 + ser;
    if (src >= c->ncores) c->reply_busy += (double)ser;
    uint64_t in = t0 + c->noc_lat;
    if (in < c->in_free[dst]) in = c->in_free[dst];
    c->in_free[dst] = in + ser;
    /* jitter after the port: messages from different sources may then
     * pass each other (per-pair order is kept below) */
    uint64_t arr = in + ser + jitter(c);
    if (dst >= c->ncores) arr += c->pipe / 2; /* the bank's input pipeline */
    uint64_t *last = &c->last_arr[(size_t)src * c->eps + dst];
    if (arr < *last) arr = *last;
    *last = arr;
    m->src = src;
    m->dst = dst;
    cm_stat_add(c->st_flits, (double)flits);
    cm_stat_add(c->st_msgs[m->cls], 1);
    if (m->cls == COHM_RCL) cm_stat_add(c->st_recalls, 1);
    if (m->cls == COHM_INV) cm_stat_add(c->st_invs, 1);
    cm_engine_schedule_at(&c->eng, arr, deliver, c, (uint64_t)(uintptr_t)m);
}

/* ---- DRAM contents ------------------------------------------------------- */

static size_t mem_slot(const cm_coh *c, uint64_t line)
{
    size_t h = (size_t)((line * 0x9E3779B97F4A7C15ull) >> 20) & (c->mem_cap - 1);
    while (c->mem[h].line != NONE64 && c->mem[h].line != line)
        h = (h + 1) & (c->mem_cap - 1);
    return h;
}

static uint64_t mem_read(const cm_coh *c, uint64_t line)
{
    size_t h = mem_slot(c, line);
    return c->mem[h].line == line ? c->mem[h].value : 0;
}

static void mem_write(cm_coh *c, uint64_t line, uint64_t value)
{
    if (2 * (c->mem_n + 1) > c->mem_cap) {
        memval *old = c->mem;
        size_t oc = c->mem_cap;
        memval *nm = malloc(2 * oc * sizeof *nm);
        if (!nm) {
            fail(c, "protocol %s: out of memory for DRAM%s%s%s", "", "", "");
            return;
        }
        c->mem = nm;
        c->mem_cap = 2 * oc;
        for (size_t i = 0; i < c->mem_cap; i++) c->mem[i].line = NONE64;
        for (size_t i = 0; i < oc; i++)
            if (old[i].line != NONE64) c->mem[mem_slot(c, old[i].line)] = old[i];
        free(old);
    }
    size_t h = mem_slot(c, line);
    if (c->mem[h].line != line) c->mem_n++;
    c->mem[h].line = line;
    c->mem[h].value = value;
}

/* ---- cores ----------------------------------------------------------------- */

static void core_tick(cm_engine *eng, void *obj, uint64_t arg);

static void core_wake(core *k, uint64_t at)
{
    cm_coh *c = k->c;
    uint64_t now = cm_engine_now(&c->eng);
    if (at < now) at = now;
    if (k->tick_at != NONE64 && k->tick_at <= at) return;
    k->tick_at = at;
    cm_engine_schedule_at(&c->eng, at, core_tick, k, at);
}

/* One of the warp's loads or atomics returned value. */
static void warp_value(core *k, uint32_t wi, uint64_t line, uint64_t value)
{
    cm_coh *c = k->c;
    if (c->cfg.on_load)
        c->cfg.on_load(c->cfg.on_load_obj, k->id, wi, line, value);
    warp *w = &k->w[wi];
    if (w->wait_n && --w->wait_n == 0 && w->st == W_MEM) {
        w->st = W_READY;
        w->ready = cm_engine_now(&c->eng);
        core_wake(k, w->ready);
    }
}

static void flash_l1(core *k);

static void core_timer(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)arg;
    core *k = obj;
    if (cm_engine_now(eng) < k->timer_at) return; /* an earlier one ran */
    k->timer_at = NONE64;
    core_wake(k, cm_engine_now(eng));
}

/* A wake-up at time t for fences waiting out a GWCT.  Kept apart from the
 * tick (which moves every cycle) so that a fence re-checked each cycle
 * does not leave an event behind each time. */
static void core_timer_set(core *k, uint64_t t)
{
    if (k->timer_at != NONE64 && k->timer_at <= t) return;
    k->timer_at = t;
    cm_engine_schedule_at(&k->c->eng, t, core_timer, k, t);
}

/* The warp's latest lease among the GWCTs its stores and atomics brought
 * back: the L2 load time whose lease the coming fence waits out. */
static void warp_lease_note(warp *w, const cmsg *m)
{
    if (m->lease1 && (w->lease_t == NONE64 || m->lease1 - 1 > w->lease_t))
        w->lease_t = m->lease1 - 1;
}

/* A fence may go once the warp's stores are acknowledged and, under
 * TC-Weak, TIME has passed its GWCT (a copy is valid while TIME <= LT, so
 * TIME > GWCT is when every copy the stores raced with has expired). */
static void fence_try(core *k, warp *w)
{
    cm_coh *c = k->c;
    uint64_t now = cm_engine_now(&c->eng);
    if (w->st != W_FENCE || w->stores_out) return;
    if ((c->p->flags & CF_TC_WEAK) && now <= w->gwct) {
        core_timer_set(k, w->gwct + 1);
        return;
    }
    if (c->p->flags & CF_ACQUIRE_INV) flash_l1(k);
    cm_stat_add(c->st_fwait, (double)(now - w->fence_t));
    /* a load after the fence issued can make the slack negative: the GWCT
     * then lies beyond fence + L; clamped at 0 */
    hist_add(&c->h[H_FSLACK], w->lease_t == NONE64
                                  ? INFINITY
                                  : w->lease_t >= w->fence_t
                                        ? 0
                                        : (double)(w->fence_t - w->lease_t));
    hist_add(&c->h[H_FACK], w->acked_t > w->fence_t
                                ? (double)(w->acked_t - w->fence_t)
                                : 0);
    w->lease_t = NONE64;
    w->st = W_READY;
    w->ready = now;
    core_wake(k, now);
}

static void barrier_check(core *k)
{
    if (!k->live || k->at_bar < k->live) return;
    int kernel = 0;
    for (uint32_t i = 0; i < k->c->nwarps; i++)
        if (k->w[i].st == W_BAR) {
            kernel |= k->w[i].inst.kind == CM_INST_KERNEL;
            k->w[i].st = W_READY;
            k->w[i].ready = cm_engine_now(&k->c->eng);
            k->w[i].has = 0;
        }
    k->at_bar = 0;
    if (kernel) k->sync_t = cm_engine_now(&k->c->eng);
    if (kernel && (k->c->p->flags & CF_KERNEL_INV)) flash_l1(k);
    core_wake(k, cm_engine_now(&k->c->eng));
}

static int l1_access(core *k, uint64_t line, uint8_t op, uint32_t wi,
                     uint64_t value, uint16_t bytes);

/* Issues warp wi's current instruction; 0 if it must wait (LD/ST busy). */
static int issue(core *k, uint32_t wi)
{
    cm_coh *c = k->c;
    warp *w = &k->w[wi];
    uint64_t now = cm_engine_now(&c->eng);
    cm_inst *in = &w->inst;
    switch (in->kind) {
    case CM_INST_COMPUTE:
        k->issue_free = now + (in->n ? in->n : 1);
        w->ready = k->issue_free;
        break;
    case CM_INST_LOAD:
    case CM_INST_STORE:
    case CM_INST_ATOMIC: {
        if (k->ld_busy) return 0;
        uint32_t n = 0;
        for (uint32_t i = 0; i < in->n; i++) {
            uint64_t l = in->per_thread ? in->addrs[i] / c->line_bytes
                                        : in->addrs[i];
            uint32_t j = 0;
            while (j < n && k->ld_lines[j] != l) j++;
            if (j == n && n < 2 * 64) k->ld_lines[n++] = l;
        }
        k->ld_n = n;
        k->w[wi].waits++;
        k->ld_i = 0;
        k->ld_warp = wi;
        k->ld_op = in->kind == CM_INST_LOAD    ? CM_OP_LOAD
                   : in->kind == CM_INST_STORE ? CM_OP_STORE
                                               : CM_OP_ATOMIC;
        k->ld_busy = n > 0;
        k->refused = 0;
        if (in->kind != CM_INST_STORE && n) {
            w->wait_n = n;
            w->st = W_MEM;
        } else {
            w->ready = now + 1;
        }
        k->issue_free = now + 1;
        break;
    }
    case CM_INST_FENCE:
        c->fences_seen = 1;
        c->n_fences++;
        k->sync_t = now;
        hist_add(&c->h[H_S2F], w->last_store == NONE64
                                   ? INFINITY
                                   : (double)(now - w->last_store));
        w->last_store = NONE64;
        cm_stat_add(c->st_fences, 1);
        w->st = W_FENCE;
        w->fence_t = now;
        w->waits++;
        k->issue_free = now + 1;
        w->has = 0;
        fence_try(k, w);
        return 1;
    case CM_INST_BARRIER:
    case CM_INST_KERNEL:
        w->st = W_BAR;
        w->waits++;
        k->at_bar++;
        k->issue_free = now + 1;
        barrier_check(k);
        return 1;
    default: /* END */
        w->st = W_DONE;
        k->live--;
        if (now > c->finish) c->finish = now;
        barrier_check(k);
        return 1;
    }
    cm_stat_add(c->st_inst, in->kind == CM_INST_COMPUTE && in->n ? in->n : 1);
    c->instructions += in->kind == CM_INST_COMPUTE && in->n ? in->n : 1;
    if (c->max_instructions && c->instructions >= c->max_instructions)
        cm_engine_stop(&c->eng);
    w->has = 0;
    return 1;
}

static void ldst_step(core *k)
{
    cm_coh *c = k->c;
    warp *w = &k->w[k->ld_warp];
    uint64_t line = k->ld_lines[k->ld_i];
    uint64_t value = 0;
    if (k->ld_op != CM_OP_LOAD)
        value = cm_coh_store_value(k->id, k->ld_warp, c->nwarps, w->k + 1);
    uint16_t bytes = w->inst.bytes ? w->inst.bytes : 4;
    if (l1_access(k, line, k->ld_op, k->ld_warp, value, bytes)) {
        k->refused = 1;
        return;
    }
    if (k->ld_op != CM_OP_LOAD) w->k++;
    if (k->ld_op == CM_OP_STORE) w->last_store = cm_engine_now(&c->eng);
    if (k->ld_op == CM_OP_LOAD) c->n_loads++;
    if (++k->ld_i == k->ld_n) k->ld_busy = 0;
}

static void core_tick(cm_engine *eng, void *obj, uint64_t arg)
{
    core *k = obj;
    cm_coh *c = k->c;
    if (arg != k->tick_at) return; /* superseded */
    k->tick_at = NONE64;
    uint64_t now = cm_engine_now(eng);
    if (k->ld_busy && !k->refused) ldst_step(k);
    for (uint32_t i = 0; i < c->nwarps; i++)
        if (k->w[i].st == W_FENCE) fence_try(k, &k->w[i]);
    if (now >= k->issue_free) {
        for (uint32_t j = 1; j <= c->nwarps; j++) {
            uint32_t wi = (k->lrr + j) % c->nwarps;
            warp *w = &k->w[wi];
            if (w->st != W_READY || w->ready > now) continue;
            if (!w->has) {
                cm_err e;
                cm_err_clear(&e);
                if (c->cfg.src.next(c->cfg.src.obj, k->id, wi, &w->inst, &e)) {
                    if (!c->err_set) {
                        c->err = e;
                        c->err_set = 1;
                    }
                    cm_engine_stop(eng);
                    return;
                }
                w->has = 1;
                if (c->cfg.jitter) w->ready = now + jitter(c);
                if (w->ready > now) continue;
            }
            if (w->inst.kind <= CM_INST_ATOMIC && w->inst.kind &&
                k->ld_busy)
                continue;
            /* a fence waits until the LD/ST unit has handed its warp's
             * store to the L1: a line the L1 refused has no ack
             * outstanding yet, and the fence would pass before it */
            if (w->inst.kind == CM_INST_FENCE && k->ld_busy &&
                k->ld_warp == wi)
                continue;
            if (issue(k, wi)) {
                k->lrr = wi;
                break;
            }
        }
    }
    /* next cycle with something to do */
    uint64_t next = NONE64;
    if (k->ld_busy && !k->refused) next = now + 1;
    for (uint32_t i = 0; i < c->nwarps && next > now + 1; i++) {
        warp *w = &k->w[i];
        if (w->st != W_READY) continue;
        uint64_t t = w->ready > k->issue_free ? w->ready : k->issue_free;
        if (t <= now) t = now + 1;
        if (t < next) next = t;
    }
    if (next != NONE64) core_wake(k, next);
}

/* ---- the profile's access history ---------------------------------------- */

/* A record of map m (key) in the growable array *arr of *n, *cap records
 * of size sz, zero-filled with its times at NONE64 when new (*fresh).
 * NULL when out of memory (the run fails). */
static void *hist_rec(cm_coh *c, cm_linemap *m, uint64_t key, void **arr,
                      size_t *n, size_t *cap, size_t sz, int *fresh)
{
    cm_linemap_entry *e;
    cm_err err = {0};
    int found;
    if (cm_linemap_upsert(m, key, &e, &found, &err)) {
        fail(c, "protocol %s: out of memory for the profile%s%s%s", "", "",
             "");
        return NULL;
    }
    *fresh = !found;
    if (*fresh) {
        if (*n == *cap) {
            size_t nc = *cap ? 2 * *cap : 4096;
            void *na = realloc(*arr, nc * sz);
            if (!na) {
                e->val = 0; /* the key must not stay half inserted */
                fail(c, "protocol %s: out of memory for the profile%s%s%s",
                     "", "", "");
                return NULL;
            }
            *arr = na;
            *cap = nc;
        }
        e->val = (*n)++;
        memset((char *)*arr + e->val * sz, 0xff, sz); /* times NONE64 */
    }
    return (char *)*arr + e->val * sz;
}

/* Records an accepted L1 access in program order, blind to the protocol:
 * what the line went through since this core's previous load of it (remote
 * writes, own stores or atomics, a fence or kernel start at this core),
 * the load's gap and LRU stack distance in the core's load stream, and for
 * writes the other cores holding the line (loaded it since its latest
 * write).  The directory model (models/directory.c) turns these into each
 * protocol's state x event probabilities. */
static void hist_access(core *k, uint64_t line, uint8_t op)
{
    cm_coh *c = k->c;
    if (!c->cfg.profile || c->err_set) return;
    uint64_t now = cm_engine_now(&c->eng), me = 1ull << k->id;
    int fresh;
    struct hrec *r = hist_rec(c, &c->hmap, line * 64 + k->id,
                              (void **)&c->hrec, &c->hn, &c->hcap,
                              sizeof *c->hrec, &fresh);
    struct grec *g = r ? hist_rec(c, &c->gmap, line, (void **)&c->grec,
                                  &c->gn, &c->gcap, sizeof *c->grec, &fresh)
                       : NULL;
    if (!g) return;
    if (fresh) {
        g->holders = 0;
        g->writer = -1;
    }
    /* the latest write to the line by a core other than this one */
    uint64_t other_w = g->writer == (int32_t)k->id ? g->w2_t : g->w_t;
    if (op == CM_OP_LOAD) {
        unsigned f = 0;
        if (r->load_t != NONE64) {
            uint64_t t = r->load_t;
            f |= HF_SEEN;
            if (other_w != NONE64 && other_w > t) f |= HF_REMOTE;
            if (r->store_t != NONE64 && r->store_t > t) f |= HF_STORE;
            if (r->atomic_t != NONE64 && r->atomic_t > t) f |= HF_ATOMIC;
            if (k->sync_t != NONE64 && k->sync_t > t) f |= HF_SYNC;
        }
        if (g->holders && !(g->holders & me) &&
            !(g->holders & (g->holders - 1)))
            f |= HF_OWNED;
        c->load_flags[f] += 1;
        hist_add(&c->h[H_LGAP],
                 r->load_t == NONE64 ? INFINITY : (double)(now - r->load_t));
        int64_t d = -1;
        cm_err e;
        cm_err_clear(&e);
        if (!cm_stackdist_access(c->lsd[k->id], line, &d, NULL, &e))
            hist_add(&c->h[H_LSD], d < 0 ? INFINITY : (double)d);
        r->load_t = now;
        g->holders |= me;
    } else {
        unsigned f = (g->holders & me) ? SF_HOLDS : 0;
        if (g->holders == me) f |= SF_ONLY;
        c->store_flags[f] += 1;
        c->write_sharers[__builtin_popcountll(g->holders & ~me)] += 1;
        hist_add(&c->h[H_SGAP],
                 r->any_t == NONE64 ? INFINITY : (double)(now - r->any_t));
        if (op == CM_OP_STORE) {
            r->store_t = now;
            c->n_stores++;
        } else {
            r->atomic_t = now;
            c->n_atomics++;
        }
        if (g->writer != (int32_t)k->id) g->w2_t = g->w_t;
        g->writer = (int32_t)k->id;
        g->w_t = now;
        g->holders = me;
    }
    r->any_t = now;
}

/* ---- L1 ---------------------------------------------------------------------- */

static l1way *l1_find(core *k, uint64_t line)
{
    cm_coh *c = k->c;
    l1way *set = &k->ways[(line % c->l1_sets) * c->l1_ways];
    for (uint32_t i = 0; i < c->l1_ways; i++)
        if (set[i].state != L1_I && set[i].line == line) return &set[i];
    return NULL;
}

static l1ent *l1_entry(core *k, uint64_t line)
{
    for (uint32_t i = 0; i < k->c->mshrs; i++)
        if (k->ent[i].used && k->ent[i].line == line) return &k->ent[i];
    return NULL;
}

static l1ent *l1_entry_new(core *k, uint64_t line, uint8_t state)
{
    for (uint32_t i = 0; i < k->c->mshrs; i++)
        if (!k->ent[i].used) {
            l1ent *e = &k->ent[i];
            waiter *w = e->w;
            memset(e, 0, sizeof *e);
            e->w = w;
            e->used = 1;
            e->line = line;
            e->state = state;
            return e;
        }
    return NULL;
}

static int l1_tc_expired(const cm_coh *c, const l1way *w)
{
    return (c->p->flags & CF_TC) && w->state == L1_V &&
           cm_engine_now(&c->eng) > w->lt;
}

/* The line's state as the table sees it. */
static unsigned l1_state(core *k, uint64_t line, l1way **way, l1ent **ent)
{
    *ent = l1_entry(k, line);
    *way = l1_find(k, line);
    if (*ent) return (*ent)->state;
    if (!*way || l1_tc_expired(k->c, *way)) return L1_I;
    return (*way)->state;
}

/* The fill's lifetime outcome (TC), decided at its first load or when it
 * leaves the cache. */
static void tc_outcome(cm_coh *c, l1way *w, int loaded)
{
    if (!w->open) return;
    uint64_t now = cm_engine_now(&c->eng);
    w->open = 0;
    hist_add(&c->h[H_REUSE], loaded ? (double)(now - w->fill_t) : INFINITY);
    if (!(c->p->flags & CF_TC)) return;
    int valid = now <= w->lt;
    cm_stat_add(c->st_out[loaded ? (valid ? 0 : 1) : (valid ? 2 : 3)], 1);
}

/* One behind store into the joint histogram k (0: all, 1: no private
 * writes): its unblocked cycles x and blocked cycles y. */
static void behind_add(cm_coh *c, int k, double x, double y)
{
    double *cell = c->behind[k][hist_bin(x)][hist_bin(y)];
    cell[0] += 1;
    cell[1] += x;
    cell[2] += y;
}

/* Per fill: the age of the copy at the latest load that found it, hit or
 * expired (inf: none). */
static void last_use(cm_coh *c, const l1way *w)
{
    hist_add(&c->h[H_LAST], w->use_t == NONE64
                                ? INFINITY
                                : (double)(w->use_t - w->fill_t));
}

/* The copy leaves the L1: by capacity (a victim) or otherwise. */
static void l1_leave(cm_coh *c, l1way *w, int capacity)
{
    tc_outcome(c, w, 0);
    last_use(c, w);
    hist_add(&c->h[H_RESID],
             capacity ? (double)(cm_engine_now(&c->eng) - w->fill_t)
                      : INFINITY);
    w->state = L1_I;
    w->dirty = 0;
}

static void l1_drop(cm_coh *c, l1way *w)
{
    l1_leave(c, w, 0);
}

static const coh_row *l1_row(core *k, unsigned st, unsigned ev)
{
    const coh_row *r = coh_table_find(&k->c->p->l1, st, ev);
    if (!r)
        fail(k->c, "protocol %s, L1: no row for state %s, event %s%s",
             coh_l1_state_names[st], coh_l1_event_names[ev], "");
    return r;
}

static void hit_done(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)eng;
    core *k = obj;
    cmsg *m = (cmsg *)(uintptr_t)arg;
    warp_value(k, m->warp, m->line, m->value);
    msg_free(k->c, m);
}

static void l1_send(core *k, l1ent *e, l1way *way, const coh_row *r,
                    uint64_t line, uint8_t op, uint32_t wi, uint64_t value,
                    uint16_t bytes, uint8_t flags)
{
    cm_coh *c = k->c;
    cmsg *m = msg_new(c);
    if (!m) return;
    m->cls = r->msg;
    m->line = line;
    m->op = op;
    m->core = k->id;
    m->warp = wi;
    m->inst = k->w[wi].waits;
    m->value = value;
    /* a write-back L1 keeps the store data: its requests carry none */
    m->bytes = (c->p->flags & CF_WRITE_BACK) ? 0 : bytes;
    m->flags = flags;
    m->born = cm_engine_now(&c->eng);
    if (r->msg == COHM_UPGR && way) m->ts = way->lt;
    if (coh_msg_awaits_reply(r->msg)) {
        e->pending++;
        k->inflight++;
        /* write-back entries have one request at a time, whatever it is;
         * its waiters wake on its reply */
        if (r->msg == COHM_GETS || (c->p->flags & CF_WRITE_BACK))
            m->seq = ++e->gets_seq;
        /* a merged store was counted when it merged */
        if (op == CM_OP_STORE && !(r->actions & A1_MERGE))
            k->w[wi].stores_out++;
    }
    noc_send(c, m, k->id, c->ncores + bank_of(c, line),
             cm_engine_now(&c->eng));
}

/* A message of class cls from core k to line's home bank that answers
 * nothing (INVACK, WB, NODATA, PUT); a line-carrying one takes the copy
 * (value, dirty), after which the L2 holds what the copy holds. */
static void l1_answer(core *k, unsigned cls, uint64_t line, uint64_t value,
                      int dirty, l1way *way)
{
    cm_coh *c = k->c;
    cmsg *x = msg_new(c);
    if (!x) return;
    x->cls = (uint8_t)cls;
    x->line = line;
    x->core = k->id;
    if (coh_msg_carries_line(cls)) {
        x->value = value;
        x->flags = dirty ? MF_DIRTY : 0;
        if (way) way->dirty = 0;
    }
    noc_send(c, x, k->id, c->ncores + bank_of(c, line),
             cm_engine_now(&c->eng));
}

/* Evicts way w (a capacity victim) by its REPLACE row (MESI: a PUT for E and M); 0 if the
 * table has no row (an internal error is set). */
static int l1_replace(core *k, l1way *w)
{
    const coh_row *r = l1_row(k, w->state, L1E_REPLACE);
    if (!r) return 0;
    if (r->actions & A1_SEND)
        l1_answer(k, r->msg, w->line, w->value, w->dirty, NULL);
    l1_leave(k->c, w, 1);
    return 1;
}

/* Installs the reply's line: a way of the set (the line's own, an invalid
 * one, or the least recently used one without an entry). */
static l1way *l1_install(core *k, const cmsg *m, unsigned state)
{
    cm_coh *c = k->c;
    l1way *w = l1_find(k, m->line);
    if (!w) {
        l1way *set = &k->ways[(m->line % c->l1_sets) * c->l1_ways];
        for (uint32_t i = 0; i < c->l1_ways && !w; i++)
            if (set[i].state == L1_I) w = &set[i];
        for (uint32_t i = 0; i < c->l1_ways; i++) {
            if (w && w->state == L1_I) break;
            if (l1_entry(k, set[i].line)) continue;
            if (!w || set[i].stamp < w->stamp) w = &set[i];
        }
        if (!w) return NULL; /* every way waits: use, do not install */
        if (w->state != L1_I && !l1_replace(k, w)) return NULL;
    } else if (!coh_msg_carries_line(m->cls) && w->state != L1_I) {
        /* a grant without data (MESI ACK): the copy is upgraded */
        w->state = (uint8_t)state;
        w->stamp = ++k->stamp;
        return w;
    } else {
        l1_leave(c, w, 0); /* refilled in place: a new fill begins */
    }
    c->n_fills++;
    /* the lease's start at the L2 to its copy's fill here: the copy
     * lives that much less than the lifetime granted */
    if ((c->p->flags & CF_TC) && m->lease_len > 0)
        hist_add(&c->h[H_LDELAY],
                 fmax(0, (double)m->lease_len -
                             ((double)m->ts -
                              (double)cm_engine_now(&c->eng))));
    w->line = m->line;
    w->value = m->value;
    w->dirty = 0;
    w->lt = m->ts;
    w->state = (uint8_t)state;
    w->stamp = ++k->stamp;
    w->fill_t = cm_engine_now(&c->eng);
    w->use_t = NONE64;
    w->open = 1;
    return w;
}

/* The access of warp wi to line; 0 done, 1 refused (offer again later). */
static int l1_access(core *k, uint64_t line, uint8_t op, uint32_t wi,
                     uint64_t value, uint16_t bytes)
{
    cm_coh *c = k->c;
    l1way *way;
    l1ent *e;
    unsigned st = l1_state(k, line, &way, &e);
    unsigned ev = op == CM_OP_LOAD    ? L1E_LOAD
                  : op == CM_OP_STORE ? L1E_STORE
                                      : L1E_ATOMIC;
    const coh_row *r = l1_row(k, st, ev);
    if (!r) return 0;
    uint32_t a = r->actions;
    if (a & A1_STALL) return 1;
    if ((a & A1_ENTRY) && !e && !l1_entry_new(k, line, (uint8_t)st)) return 1;
    e = l1_entry(k, line);
    if ((a & A1_MERGE) && e->nwait == c->merge) return 1;
    if ((a & A1_SEND) && coh_msg_awaits_reply(r->msg) &&
        k->inflight >= c->mshrs)
        return 1;
    uint8_t flags = 0;
    cm_stat_add(c->st_l1acc, 1);
    hist_access(k, line, op);
    if (way && way->state != L1_I && op == CM_OP_LOAD)
        way->use_t = cm_engine_now(&c->eng);
    if (way && way->state == L1_V && l1_tc_expired(c, way) &&
        op == CM_OP_LOAD) {
        tc_outcome(c, way, 1);
        flags = MF_EXPIRED_MISS;
    }
    if (a & A1_HIT) {
        /* loads and atomics return the copy's value (an atomic's old
         * value); a store hit (write-back) is performed at once */
        cm_stat_add(c->st_l1hit, 1);
        way->stamp = ++k->stamp;
        if (op == CM_OP_LOAD) tc_outcome(c, way, 1);
        if (op != CM_OP_STORE) {
            cmsg *m = msg_new(c);
            if (!m) return 0;
            m->line = line;
            m->warp = wi;
            m->value = way->value;
            cm_engine_schedule(&c->eng, c->hit_lat, hit_done, k,
                               (uint64_t)(uintptr_t)m);
        }
    } else {
        cm_stat_add(c->st_l1miss, 1);
    }
    if (a & A1_MERGE) {
        e->w[e->nwait++] = (waiter){value, wi,
                                    e->gets_seq + ((a & A1_SEND) != 0), op};
        /* a buffered store is outstanding until performed (A1_WAKE) */
        if (op == CM_OP_STORE) k->w[wi].stores_out++;
    }
    if ((a & A1_WRITE) && way) {
        way->value = value;
        way->dirty = 1;
    }
    if ((a & A1_INVAL) && way) l1_drop(c, way);
    if (a & A1_CANCEL) e->cancel_seq = e->gets_seq;
    if (a & A1_SEND) l1_send(k, e, way, r, line, op, wi, value, bytes, flags);
    if (e) {
        if (coh_l1_transient(r->next)) e->state = r->next;
        else if (!e->pending && !e->nwait) e->used = 0;
    }
    if (!coh_l1_transient(r->next) && way && way->state != L1_I) {
        if (r->next == L1_I) l1_drop(c, way);
        else way->state = r->next; /* e.g. MESI's silent E -> M */
    }
    return 0;
}

static void l1_flash_line(core *k, l1way *way, l1ent *e)
{
    unsigned st = e ? e->state : way ? way->state : L1_I;
    const coh_row *r = l1_row(k, st, L1E_FLASH);
    if (!r) return;
    if ((r->actions & A1_INVAL) && way && way->state != L1_I)
        l1_drop(k->c, way);
    if ((r->actions & A1_CANCEL) && e) e->cancel_seq = e->gets_seq;
    if (e && coh_l1_transient(r->next)) e->state = r->next;
}

/* Kernel start or acquire: every valid line and every filling entry. */
static void flash_l1(core *k)
{
    cm_coh *c = k->c;
    for (uint32_t i = 0; i < c->mshrs; i++)
        if (k->ent[i].used)
            l1_flash_line(k, l1_find(k, k->ent[i].line), &k->ent[i]);
    for (uint32_t i = 0; i < c->l1_sets * c->l1_ways; i++)
        if (k->ways[i].state != L1_I && !l1_entry(k, k->ways[i].line))
            l1_flash_line(k, &k->ways[i], NULL);
}

/* The event a message from the L2 raises at the L1 (e: the line's entry;
 * every reply has one). */
static unsigned l1_event(const cm_coh *c, const cmsg *m, const l1ent *e)
{
    switch (m->cls) {
    case COHM_INV: return L1E_INV;
    case COHM_RCL: return L1E_RCL;
    case COHM_FWD_GETS: return L1E_FWD_GETS;
    case COHM_FWD_GETX: return L1E_FWD_GETX;
    default: break;
    }
    if (c->p->flags & CF_WRITE_BACK) /* one request at a time: its reply */
        return m->cls == COHM_DATA_E   ? L1E_DATA_E
               : m->cls == COHM_DATA_M ? L1E_DATA_M
               : m->cls == COHM_ACK    ? L1E_ACK
                                       : L1E_DATA;
    int last = e->pending == 1;
    if (m->op == CM_OP_STORE) return last ? L1E_ACK_LAST : L1E_ACK;
    if (m->op == CM_OP_ATOMIC) return last ? L1E_AREPLY_LAST : L1E_AREPLY;
    if (m->seq != e->gets_seq || m->seq <= e->cancel_seq)
        return L1E_DATA_STALE;
    if ((c->p->flags & CF_TC) && m->ts < cm_engine_now(&c->eng))
        return L1E_DATA_EXP;
    return last ? L1E_DATA_LAST : L1E_DATA;
}

/* Performs the accesses waiting on entry e that reply m answers, on way
 * (the installed copy, if the row fills) in arrival order. */
static void l1_wake(core *k, l1ent *e, const cmsg *m, l1way *way, int filled,
                    int writable)
{
    cm_coh *c = k->c;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < e->nwait; i++) {
        waiter w = e->w[i];
        if (w.need > m->seq) {
            e->w[kept++] = w;
            continue;
        }
        if (w.op == CM_OP_LOAD) {
            warp_value(k, w.warp, m->line,
                       way && filled ? way->value : m->value);
            continue;
        }
        /* a buffered store or atomic (write-back): only on write
         * permission */
        if (!way || !filled || !writable) {
            fail(c, "protocol %s, L1: a buffered %s woken by %s without "
                    "write permission%s",
                 w.op == CM_OP_STORE ? "store" : "atomic",
                 coh_msg_names[m->cls], "");
            return;
        }
        if (w.op == CM_OP_ATOMIC) warp_value(k, w.warp, m->line, way->value);
        way->value = w.value;
        way->dirty = 1;
        if (w.op == CM_OP_STORE) {
            k->w[w.warp].stores_out--;
            fence_try(k, &k->w[w.warp]);
        }
    }
    e->nwait = kept;
}

/* A message from the L2 to core k. */
static void l1_receive(core *k, cmsg *m)
{
    cm_coh *c = k->c;
    l1way *way;
    l1ent *e;
    unsigned st = l1_state(k, m->line, &way, &e);
    int reply = m->cls != COHM_INV && m->cls != COHM_RCL &&
                m->cls != COHM_FWD_GETS && m->cls != COHM_FWD_GETX;
    if (reply && !e) {
        fail(c, "protocol %s, L1: reply %s for line without entry%s%s",
             coh_msg_names[m->cls], "", "");
        msg_free(c, m);
        return;
    }
    unsigned ev = l1_event(c, m, e);
    const coh_row *r = l1_row(k, st, ev);
    if (!r) {
        msg_free(c, m);
        return;
    }
    if (ev == L1E_DATA_STALE) cm_stat_add(c->st_fstale, 1);
    if (ev == L1E_DATA_EXP) cm_stat_add(c->st_fexp, 1);
    uint32_t a = r->actions;
    /* an answer carries the copy as it was before this row */
    uint64_t cval = way ? way->value : 0;
    int cdirty = way && way->dirty;
    if (reply) {
        e->pending--;
        k->inflight--;
        if (m->op == CM_OP_LOAD) {
            e->data_seq = m->seq;
            c->fill_sum += (double)(cm_engine_now(&c->eng) - m->born);
            c->fill_n++;
        }
    }
    if ((a & A1_INVAL) && way && way->state != L1_I) {
        l1_drop(c, way);
        way = NULL;
    }
    if (a & A1_CANCEL) e->cancel_seq = e->gets_seq;
    l1way spill;
    if (a & A1_FILL) {
        way = l1_install(k, m, coh_l1_transient(r->next) ? L1_V : r->next);
        if (!way && (c->p->flags & CF_WRITE_BACK)) {
            /* every way of the set waits: a granted line is still used,
             * then evicted by its REPLACE row (never dropped silently) */
            spill = (l1way){.line = m->line, .value = m->value,
                            .state = r->next,
                            .fill_t = cm_engine_now(&c->eng),
                            .use_t = NONE64};
            way = &spill;
        }
    }
    if (a & A1_WAKE)
        l1_wake(k, e, m, way, (a & A1_FILL) != 0, r->next == L1_M);
    if (a & A1_DONE) {
        warp *w = &k->w[m->warp];
        if (m->op == CM_OP_STORE) {
            c->ack_sum += (double)(cm_engine_now(&c->eng) - m->born);
            c->ack_n++;
            w->stores_out--;
            if (m->gwct > w->gwct) w->gwct = m->gwct;
            warp_lease_note(w, m);
            if (!w->stores_out) w->acked_t = cm_engine_now(&c->eng);
            fence_try(k, w);
        } else { /* an atomic's reply: its GWCT counts as a store's */
            if (m->gwct > w->gwct) w->gwct = m->gwct;
            warp_lease_note(w, m);
            warp_value(k, m->warp, m->line, m->value);
        }
    }
    if (a & A1_SEND) l1_answer(k, r->msg, m->line, cval, cdirty, way);
    if (e) {
        if (coh_l1_transient(r->next)) e->state = r->next;
        if (!e->pending && !e->nwait) e->used = 0;
    }
    if (way == &spill) {
        l1_replace(k, &spill);
    } else if (!coh_l1_transient(r->next) && way && way->state != L1_I) {
        if (r->next == L1_I) l1_drop(c, way);
        else if (!(a & A1_FILL)) way->state = r->next; /* MESI: E/M -> S */
    }
    msg_free(c, m);
    if (k->refused) {
        k->refused = 0;
        core_wake(k, cm_engine_now(&c->eng));
    }
}

/* ---- L2 -------------------------------------------------------------------- */

static void bank_serve(cm_engine *eng, void *obj, uint64_t arg);

static void bank_kick(bank *b)
{
    cm_coh *c = b->c;
    if (b->serve_pending || !b->qn) return;
    uint64_t now = cm_engine_now(&c->eng);
    b->serve_pending = 1;
    cm_engine_schedule_at(&c->eng, b->next_slot > now ? b->next_slot : now,
                          bank_serve, b, 0);
}

static void bank_kick_at(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)arg;
    bank *b = obj;
    if (cm_engine_now(eng) >= b->wake_at) b->wake_at = 0;
    bank_kick(b);
}

static l2way *l2_find(bank *b, uint64_t line)
{
    cm_coh *c = b->c;
    l2way *set = &b->ways[((line / c->nbanks) % c->l2_sets) * c->l2_ways];
    for (uint32_t i = 0; i < c->l2_ways; i++)
        if (set[i].valid && set[i].line == line) return &set[i];
    return NULL;
}

static l2ent *l2_entry(bank *b, uint64_t line)
{
    for (uint32_t i = 0; i < b->c->l2_mshrs; i++)
        if (b->ent[i].used && !b->ent[i].side && b->ent[i].line == line)
            return &b->ent[i];
    return NULL;
}

static void mocc_update(bank *b)
{
    cm_stat_level(b->st_mocc, b->nused, cm_engine_now(&b->c->eng));
}

static l2ent *l2_entry_new(bank *b, uint64_t line, uint8_t state)
{
    for (uint32_t i = 0; i < b->c->l2_mshrs; i++)
        if (!b->ent[i].used) {
            l2ent *e = &b->ent[i];
            memset(e, 0, sizeof *e);
            e->used = 1;
            e->line = line;
            e->state = state;
            b->nused++;
            mocc_update(b);
            return e;
        }
    return NULL;
}

/* The directory set of a line within its bank.  Address bits alone put
 * lines a power-of-two stride apart (every warp's region of a workload)
 * into the same sets; the hash XOR-folds all the bits above the bank into
 * the index, so that they spread as the recall model assumes
 * (models/recall.c). */
static dirent *dir_set(const cm_coh *c, bank *b, uint64_t line)
{
    uint64_t h = line / c->nbanks, idx = h;
    if (c->dir_hash && c->dir_index_bits) {
        uint64_t mask = (1ull << c->dir_index_bits) - 1;
        idx = 0;
        for (; h; h >>= c->dir_index_bits) idx ^= h & mask;
    }
    return &b->dir[(idx % c->dir_sets) * c->dir_ways];
}

static dirent *dir_find(bank *b, uint64_t line)
{
    cm_coh *c = b->c;
    dirent *set = dir_set(c, b, line);
    for (uint32_t i = 0; i < c->dir_ways; i++)
        if (set[i].valid && set[i].line == line) return &set[i];
    return NULL;
}

static uint64_t *sharers_of(bank *b, uint64_t line, l2way *way)
{
    if (b->c->p->flags & CF_DIR) {
        dirent *d = dir_find(b, line);
        return d ? &d->sharers : NULL;
    }
    return way ? &way->sharers : NULL;
}

static unsigned l2_state(bank *b, uint64_t line, l2way **way, l2ent **ent)
{
    cm_coh *c = b->c;
    *ent = l2_entry(b, line);
    *way = l2_find(b, line);
    if (*ent) return (*ent)->state;
    if (!*way) return L2_I;
    if (c->p->flags & CF_TC)
        return (*way)->gt >= cm_engine_now(&c->eng) ? L2_V : L2_E;
    if ((c->p->flags & CF_WRITE_BACK) && (*way)->owner >= 0) return L2_X;
    uint64_t *sh = sharers_of(b, line, *way);
    return sh && *sh ? L2_S : L2_N;
}

static const coh_row *l2_row(bank *b, unsigned st, unsigned ev)
{
    const coh_row *r = coh_table_find(&b->c->p->l2, st, ev);
    if (!r)
        fail(b->c, "protocol %s, L2: no row for state %s, event %s%s",
             coh_l2_state_names[st], coh_l2_event_names[ev], "");
    return r;
}

static uint64_t lifetime(const bank *b)
{
    const cm_coh *c = b->c;
    if (c->p->flags & CF_PREDICTOR) return (uint64_t)llround(b->pred);
    return c->lifetime;
}

static void pred_add(bank *b, double d)
{
    cm_coh *c = b->c;
    uint64_t now = cm_engine_now(&c->eng);
    b->pred_area += b->pred * (double)(now - b->pred_t);
    b->pred_t = now;
    b->pred += d;
    if (b->pred < c->prm.tc_predictor_min) b->pred = c->prm.tc_predictor_min;
    if (b->pred > c->prm.tc_predictor_max) b->pred = c->prm.tc_predictor_max;
}

/* The TC-Weak predictor's updates (seed 000, section 4.4).  Every TC
 * protocol counts the events (tc.pred.*), so that a fixed lifetime shows
 * the rates the predictor would see there; only TCW acts on them. */
enum { PE_L1_EXPIRED, PE_L2_EXPIRED, PE_EVICT, PE_WRITE, PE_COUNT };
static void pred_count(bank *b, int kind, double d)
{
    cm_coh *c = b->c;
    if (c->st_pred[kind]) cm_stat_add(c->st_pred[kind], 1);
    if (c->p->flags & CF_PREDICTOR) pred_add(b, d);
}

static void pred_event(bank *b, unsigned st, unsigned ev, const cmsg *m)
{
    cm_coh *c = b->c;
    if (!(c->p->flags & CF_TC)) return;
    int write = ev == L2E_GETX || ev == L2E_UPGR || ev == L2E_UPGR_PRIV ||
                ev == L2E_UPGR_STALE || ev == L2E_ATOMIC;
    /* a load served again after waiting on an L2 entry (a miss) was
     * counted when it first arrived, and the line it finds then, filled
     * with GT 0, is no valid line with an expired GT */
    int load = ev == L2E_GETS && m && !(m->flags & MF_WAITED);
    if (load && (m->flags & MF_EXPIRED_MISS))
        pred_count(b, PE_L1_EXPIRED, c->prm.tc_t_hit);
    if (load && st == L2_E)
        pred_count(b, PE_L2_EXPIRED, c->prm.tc_t_hit);
    if (write && st == L2_V &&
        (c->prm.tc_write_update == 1 ||
         (c->prm.tc_write_update == 0 && c->fences_seen)))
        pred_count(b, PE_WRITE, -c->prm.tc_t_write);
    if (ev == L2E_REPLACE && st == L2_V)
        pred_count(b, PE_EVICT, -c->prm.tc_t_evict);
}

static void bank_send(bank *b, cmsg *m, uint32_t core_id)
{
    cm_coh *c = b->c;
    noc_send(c, m, c->ncores + b->id, core_id,
             cm_engine_now(&c->eng) + c->pipe - c->pipe / 2);
}

static void expire_event(cm_engine *eng, void *obj, uint64_t arg);
static void fill_event(cm_engine *eng, void *obj, uint64_t arg);

static void dram_writeback(bank *b, uint64_t line, uint64_t value)
{
    cm_coh *c = b->c;
    uint64_t now = cm_engine_now(&c->eng);
    uint64_t t = b->chan_free > now ? b->chan_free : now;
    b->chan_free = t + c->xfer;
    mem_write(c, line, value);
    cm_stat_add(c->st_wb, 1);
}

static void l2_evict(bank *b, l2way *w)
{
    cm_coh *c = b->c;
    c->n_l2_evict++;
    hist_add(&c->h[H_EVAGE], w->read_t == NONE64
                                 ? INFINITY
                                 : (double)(cm_engine_now(&c->eng) - w->read_t));
    if (w->dirty) dram_writeback(b, w->line, w->value);
    cm_stat_add(b->c->st_l2evict, 1);
    w->valid = 0;
    w->dirty = 0;
    w->sharers = 0;
    w->owner = -1;
}

/* Frees e and puts what waited on it back at the head of the queue. */
static void l2_done(bank *b, l2ent *e)
{
    cm_coh *c = b->c;
    if (e->wh) {
        e->wt->next = b->qh;
        if (!b->qh) b->qt = e->wt;
        b->qh = e->wh;
        for (cmsg *m = e->wh; m; m = m->next) {
            b->qn++;
            if (m == e->wt) break;
        }
    }
    if (e->txn) msg_free(c, e->txn);
    e->wh = e->wt = e->txn = NULL;
    if (e >= b->ent && e < b->ent + c->l2_mshrs) { /* not a detached fill */
        e->used = 0;
        b->nused--;
        mocc_update(b);
    }
    bank_kick(b);
}

static void l2_wait_on(l2ent *e, cmsg *m)
{
    m->next = NULL;
    m->flags |= MF_WAITED;
    if (e->wt) e->wt->next = m;
    else e->wh = m;
    e->wt = m;
}

/* Sends INV (others: all sharers but req) or RCL (all, and the owner)
 * and counts the acks the entry waits for. */
static void l2_invalidate(bank *b, l2ent *e, uint64_t line, uint64_t *sh,
                          const l2way *way, int32_t req, uint8_t cls)
{
    cm_coh *c = b->c;
    uint64_t to = sh ? *sh : 0;
    if (cls == COHM_RCL && way && way->owner >= 0) to |= 1ull << way->owner;
    for (uint32_t i = 0; i < c->ncores; i++) {
        if (!(to >> i & 1) || (int32_t)i == req) continue;
        cmsg *x = msg_new(c);
        if (!x) return;
        x->cls = cls;
        x->line = line;
        bank_send(b, x, i);
        e->acks++;
    }
}

static int dir_make_room(bank *b, uint64_t line);

/* Executes row r for line in bank b.  m: the request (queue events, or
 * the entry's transaction on an answer), may be NULL; resp: the answer
 * (INVACK, WB, NODATA, PUT) being handled, else NULL. */
static void l2_exec(bank *b, const coh_row *r, unsigned st, unsigned ev,
                    uint64_t line, l2way *way, l2ent *e, cmsg *m,
                    const cmsg *resp, int *consumed)
{
    cm_coh *c = b->c;
    uint64_t now = cm_engine_now(&c->eng);
    uint32_t a = r->actions;
    int32_t req = m ? (int32_t)m->core : -1;
    uint64_t old = way ? way->value : 0, gwct = 0, lease1 = 0;
    (void)st;
    if (a & A2_FETCH) {
        e = l2_entry_new(b, line, r->next);
        l2_wait_on(e, m);
        *consumed = 1;
        cm_stat_add(c->st_l2miss, 1);
        uint64_t t = now + c->pipe;
        if (b->chan_free > t) t = b->chan_free;
        b->chan_free = t + c->xfer;
        cm_engine_schedule_at(&c->eng, t + c->dram_access + c->xfer,
                              fill_event, b, (uint64_t)(e - b->ent));
        return;
    }
    if (a & A2_MERGE) {
        l2_wait_on(e, m);
        *consumed = 1;
        return;
    }
    if (a & A2_TXN) {
        e = l2_entry_new(b, line, r->next);
        e->txn = m;
        if (m) { /* a write waiting for INVACKs */
            *consumed = 1;
            if (!m->stalled) {
                m->stalled = 1;
                m->stall_t = now;
            }
        }
    }
    uint64_t *sh = sharers_of(b, line, way);
    if (a & A2_INV) l2_invalidate(b, e, line, sh, way, req, COHM_INV);
    if (a & A2_RCL) l2_invalidate(b, e, line, sh, way, -1, COHM_RCL);
    if ((a & A2_FWD) && way && e) {
        if (way->owner < 0 || way->owner == req) {
            fail(c, "protocol %s, L2: %s to %s owner%s",
                 coh_msg_names[r->msg], way->owner < 0 ? "no" : "the "
                 "requesting", "");
            return;
        }
        cmsg *x = msg_new(c);
        if (!x) return;
        x->cls = r->msg;
        x->line = line;
        bank_send(b, x, (uint32_t)way->owner);
        e->acks++;
    }
    if ((a & A2_WRITE) && way && m) {
        /* S from the store's arrival at the head of the queue, before any
         * stall (S is what decides the stall); for the private-write
         * optimisation's view, a write by the line's only lease holder is
         * never held (S = inf) */
        uint64_t arrival = m->stalled ? m->stall_t : now;
        /* a store held by a GT is timed from the load that held it: the
         * line may have left the L2 and come back while it waited (TCSOO
         * serves around it; 25% of stn's stalled stores at L = 16000 found
         * a fresh line, S = inf, whose stall then went uncounted) */
        int held = m->stalled && m->stall_read_t != NONE64;
        uint64_t read_t = held ? m->stall_read_t : way->read_t;
        uint32_t read_core = held ? m->stall_read_core : way->read_core;
        uint32_t read_warp = held ? m->stall_read_warp : way->read_warp;
        uint32_t read_inst = held ? m->stall_read_inst : way->read_inst;
        double s2w = read_t == NONE64 ? INFINITY
                     : read_t > arrival /* TCSOO served a later load */
                         ? 0
                         : (double)(arrival - read_t);
        int priv = !held && !way->multi &&
                   way->reader == (int32_t)m->core && m->ts == way->gt;
        c->n_l2_stores++;
        hist_add(&c->h[H_R2W], s2w);
        hist_add(&c->h[H_R2WS], priv ? INFINITY : s2w);
        /* S split for carrying it across L (models/lifetime.c): stores
         * after their own warp's load of the line, whose S holds that
         * warp's round trip, and the others */
        if (isfinite(s2w) && read_core == m->core && read_warp == m->warp) {
            hist_add(&c->h[H_OWN], s2w);
            if (!priv) hist_add(&c->h[H_OWNS], s2w);
            /* the warp's next memory instruction after that load, with no
             * fence or barrier between: nothing the warp waited for lies
             * between the two, so S does not stretch with the machine's
             * speed (models/lifetime.c) */
            if (m->inst == read_inst + 1) {
                hist_add(&c->h[H_OWNN], s2w);
                if (!priv) hist_add(&c->h[H_OWNNS], s2w);
            }
        } else {
            hist_add(&c->h[H_R2WO], s2w);
            hist_add(&c->h[H_R2WOS], priv ? INFINITY : s2w);
            /* queued behind the load that set the lease: S is the service
             * of the requests between, split into the cycles the bank was
             * blocked (by the leases of stalled stores) and the rest */
            if (c->behind && isfinite(s2w) && m->enq_t < read_t) {
                double blocked = (m->stalled ? m->stall_hol
                                             : bank_blocked(b, now)) -
                                 (held ? m->stall_read_hol : way->read_hol);
                blocked = fmin(fmax(blocked, 0), s2w);
                behind_add(c, 0, s2w - blocked, blocked);
                if (!priv) behind_add(c, 1, s2w - blocked, blocked);
            }
        }
        way->value = m->value;
        way->dirty = 1;
        if (m->stalled) {
            cm_stat_add(c->st_sstall, (double)(now - m->stall_t));
            c->sstall_sum += (double)(now - m->stall_t);
        }
        /* the stall less its lease part (L - S')+, not clipped at 0, so
         * the lease parts and these waits sum to the stalls */
        if (held) {
            double lease = fmax(0, (double)lifetime(b) - s2w);
            c->n_held++;
            c->post_sum += (double)(now - m->stall_t) - lease;
        }
    }
    if ((a & A2_TAKE) && resp) {
        if (way) {
            way->value = resp->value;
            way->dirty |= (resp->flags & MF_DIRTY) != 0;
        } else if (resp->flags & MF_DIRTY) { /* the line has left (M_I) */
            dram_writeback(b, line, resp->value);
        }
    }
    if ((a & A2_GT) && way) {
        if (way->gt < now) {
            way->reader = -1;
            way->multi = 0;
        }
        uint64_t t = now + lifetime(b);
        if (t > way->gt) way->gt = t;
        if (way->reader < 0) way->reader = req;
        else if (way->reader != req) way->multi = 1;
    }
    if (way && (c->p->flags & CF_TC_WEAK) && ev != L2E_UPGR_PRIV) {
        gwct = way->gt;
        /* the lease slack follows the GWCT: a private write returns
         * none, so it names no lease for the fence to wait out */
        if ((a & A2_WRITE) && m && way->read_t != NONE64)
            lease1 = way->read_t + 1;
    }
    if ((a & A2_GTINC) && way) way->gt++;
    if (a & A2_ADD) {
        if ((c->p->flags & CF_DIR) && !sh) {
            dirent *d = dir_find(b, line);
            if (!d) {
                dir_make_room(b, line);
                d = dir_find(b, line);
            }
            sh = d ? &d->sharers : NULL;
        }
        if (sh) *sh |= 1ull << req;
    }
    if ((a & A2_KEEP) && sh) *sh &= req >= 0 ? 1ull << req : 0;
    if ((a & A2_DROP) && sh) *sh = 0;
    if ((a & A2_DROP) && way) way->owner = -1;
    if ((a & A2_OWN) && way && req >= 0) {
        way->owner = req;
        way->sharers = 0;
    }
    if ((a & A2_DEMOTE) && way && way->owner >= 0) {
        way->sharers |= 1ull << way->owner;
        way->owner = -1;
    }
    if ((a & A2_REPLY) && m) {
        cmsg *x = msg_new(c);
        if (x) {
            x->cls = r->msg;
            x->line = line;
            x->op = m->op;
            x->seq = m->seq;
            x->core = m->core;
            x->warp = m->warp;
            x->bytes = 8;
            x->value = r->msg == COHM_AREPLY ? old : way ? way->value : 0;
            x->ts = way ? way->gt : 0;
            x->gwct = gwct;
            x->lease1 = lease1;
            if ((a & A2_GT) && way) x->lease_len = lifetime(b);
            x->born = m->born;
            bank_send(b, x, m->core);
        }
    }
    if (a & A2_PARK) {
        l2ent *p = l2_entry_new(b, line, L2_M_I);
        p->gt = way->gt;
        p->side = (c->p->flags & CF_TC_WEAK) != 0;
        cm_engine_schedule_at(&c->eng, way->gt + 1, expire_event, b,
                              (uint64_t)(p - b->ent));
    }
    if ((a & A2_EVICT) && way) l2_evict(b, way);
    if (a & A2_DONE) l2_done(b, e);
    if (a & A2_TXN && e && e->acks == 0) l2_done(b, e);
}

/* Resources a row needs before it may run: MSHR entries, a directory
 * entry.  0 when it cannot run now. */
static int l2_room(bank *b, const coh_row *r, uint64_t line)
{
    cm_coh *c = b->c;
    uint32_t need = ((r->actions & (A2_FETCH | A2_TXN)) != 0) +
                    ((r->actions & A2_PARK) != 0);
    if (b->nused + need > c->l2_mshrs) return 0;
    if ((r->actions & A2_ADD) && (c->p->flags & CF_DIR) && !dir_find(b, line))
        return dir_make_room(b, line);
    return 1;
}

static unsigned l2_refine(bank *b, const cmsg *m, unsigned st, l2way *way)
{
    cm_coh *c = b->c;
    unsigned ev = m->cls == COHM_GETS    ? L2E_GETS
                  : m->cls == COHM_GETX  ? L2E_GETX
                  : m->cls == COHM_UPGR  ? L2E_UPGR
                  : m->cls == COHM_WRITE ? L2E_WRITE
                                         : L2E_ATOMIC;
    if (c->p->flags & CF_SHARERS) {
        uint64_t *sh = sharers_of(b, m->line, way);
        uint64_t others = sh ? *sh & ~(1ull << m->core) : 0;
        /* MESI: an UPGR whose requester lost its copy (invalidated or
         * recalled while the UPGR was on its way: its L1 is in IM now) is
         * served as the GETX it has become */
        if ((c->p->flags & CF_WRITE_BACK) && ev == L2E_UPGR &&
            !(sh && (*sh >> m->core & 1)))
            ev = L2E_GETX;
        if (!others && ev == L2E_UPGR && (c->p->flags & CF_WRITE_BACK))
            ev = L2E_UPGR_SOLE;
        if (!others && ev == L2E_GETX) ev = L2E_GETX_SOLE;
        if (!others && ev == L2E_ATOMIC) ev = L2E_ATOMIC_SOLE;
    }
    if ((c->p->flags & CF_TC) && ev == L2E_UPGR && way && st == L2_V) {
        if ((c->p->flags & CF_PRIVATE_WRITE) && !way->multi &&
            way->reader == (int32_t)m->core && m->ts == way->gt)
            ev = L2E_UPGR_PRIV;
        else if ((c->p->flags & CF_TC_WEAK) && m->ts != way->gt)
            ev = L2E_UPGR_STALE;
    }
    return ev;
}

/* GPU-VIni's directory sees a different stream from the L2's: only a load
 * (GETS) creates an entry, so a store or atomic to a line never loaded
 * touches none, and an entry whose sharer list a store or atomic empties is
 * the first victim of its set (dir_make_room).  Recorded per request, with
 * the sharer lists of an unbounded directory (the cores whose GETS the line
 * served since its latest emptying):
 *   dir.alloc_distance  per GETS: LRU stack distance over the requests to
 *                       lines loaded before (inf: the line's first GETS);
 *   dir.empty_distance  per store or atomic that empties a non-empty list
 *                       (an atomic, or a store by a core not listed): its
 *                       stack distance in the same stream;
 *   dir.empty_gap       per such emptying: GETS served (machine-wide) until
 *                       the line's next GETS; inf if none in the run. */
static void profile_dir_stream(cm_coh *c, const cmsg *m)
{
    int load = m->cls == COHM_GETS, fresh = 0;
    struct arec *r;
    if (load) {
        r = hist_rec(c, &c->amap, m->line, (void **)&c->arec, &c->an,
                     &c->acap, sizeof *r, &fresh);
        if (!r) return;
        if (fresh) r->sharers = 0;
    } else {
        cm_linemap_entry *e = cm_linemap_find(&c->amap, m->line);
        if (!e) return; /* never loaded: no entry to touch */
        r = &c->arec[e->val];
    }
    int64_t d;
    cm_err err = {0};
    if (cm_stackdist_access(c->asd, m->line, &d, NULL, &err)) {
        fail(c, "protocol %s: out of memory for the profile%s%s%s", "", "",
             "");
        return;
    }
    double dist = d < 0 ? INFINITY : (double)d;
    uint64_t me = 1ull << m->core;
    if (load) {
        hist_add(&c->h[H_ASD], dist);
        if (r->empty_at != NONE64) {
            hist_add(&c->h[H_EGAP], c->n_l2_loads - (double)r->empty_at);
            r->empty_at = NONE64;
        }
        r->sharers |= me;
        return;
    }
    uint64_t left = m->cls == COHM_ATOMIC ? 0 : r->sharers & me;
    if (r->sharers && !left) {
        hist_add(&c->h[H_ESD], dist);
        c->n_empties++;
        r->empty_at = (uint64_t)c->n_l2_loads;
    }
    r->sharers = left;
}

/* The profile's view of a served request: the directory's stack distance,
 * and for loads the gap since the line's latest load at the L2. */
static void profile_request(bank *b, const cmsg *m, const l2way *way,
                            unsigned st)
{
    cm_coh *c = b->c;
    c->n_dir++;
    if (c->sd) {
        int64_t d;
        cm_err e;
        cm_err_clear(&e);
        if (!cm_stackdist_access(c->sd, m->line, &d, NULL, &e))
            hist_add(&c->h[H_SD], d < 0 ? INFINITY : (double)d);
    }
    if (c->asd) profile_dir_stream(c, m);
    if (m->cls != COHM_GETS) return;
    c->n_l2_loads++;
    int valid = way && !coh_l2_transient(st);
    hist_add(&c->h[H_GAP], valid && way->read_t != NONE64
                               ? (double)(cm_engine_now(&c->eng) - way->read_t)
                               : INFINITY);
}

/* Serves request m: 1 done, 0 stalled. */
static int l2_request(bank *b, cmsg *m)
{
    cm_coh *c = b->c;
    l2way *way;
    l2ent *e;
    unsigned st = l2_state(b, m->line, &way, &e);
    unsigned ev = l2_refine(b, m, st, way);
    const coh_row *r = l2_row(b, st, ev);
    if (!r) return 1;
    uint64_t now = cm_engine_now(&c->eng);
    if ((r->actions & A2_STALL) || !l2_room(b, r, m->line)) {
        /* a store held by an unexpired GT (TC-Strong) */
        if (!m->stalled && st == L2_V && (r->actions & A2_STALL)) {
            m->stalled = 1;
            m->stall_t = now;
            m->stall_read_t = way ? way->read_t : NONE64;
            m->stall_hol = bank_blocked(b, now);
            m->stall_read_core = way ? way->read_core : 0;
            m->stall_read_warp = way ? way->read_warp : 0;
            m->stall_read_inst = way ? way->read_inst : 0;
            m->stall_read_hol = way ? way->read_hol : 0;
        }
        /* a store waits for the GT to pass: one wake-up per bank at the
         * earliest such time (a stall repeats every serve attempt) */
        uint64_t t = way ? way->gt + 1 : 0;
        if (st == L2_V && way && (r->actions & A2_STALL) &&
            (b->wake_at <= now || t < b->wake_at)) {
            b->wake_at = t;
            cm_engine_schedule_at(&c->eng, t, bank_kick_at, b, 0);
        }
        return 0;
    }
    pred_event(b, st, ev, m);
    cm_stat_add(c->st_l2acc, 1);
    if (way) way->stamp = ++b->stamp;
    if (c->p->flags & CF_DIR) { /* the directory is LRU over its requests */
        dirent *d = dir_find(b, m->line);
        if (d) d->stamp = ++b->stamp;
    }
    profile_request(b, m, way, st);
    int consumed = 0;
    l2_exec(b, r, st, ev, m->line, way, e, m, NULL, &consumed);
    if (m->cls == COHM_GETS && way && way->valid && way->line == m->line &&
        !(r->actions & (A2_FETCH | A2_MERGE | A2_STALL))) {
        way->read_t = now;
        way->read_hol = bank_blocked(b, now);
        way->read_core = m->core;
        way->read_warp = m->warp;
        way->read_inst = m->inst;
    }
    if (!consumed) msg_free(c, m);
    return 1;
}

static void bank_serve(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)arg;
    bank *b = obj;
    cm_coh *c = b->c;
    uint64_t now = cm_engine_now(eng);
    b->serve_pending = 0;
    /* Back-pressure from the reply port: the bank serves only while its
     * replies would leave within a few messages' time, as a bounded reply
     * buffer would let it (else GT would be set long before the line could
     * reach the L1, and leases expire in the crossbar). */
    uint64_t post = c->pipe - c->pipe / 2;
    uint64_t busy = c->out_free[c->ncores + b->id];
    if (busy > now + post + c->reply_slack) {
        b->serve_pending = 1;
        cm_engine_schedule_at(eng, busy - post - c->reply_slack, bank_serve,
                              b, 0);
        return;
    }
    uint64_t seen[64];
    uint32_t nseen = 0, depth = (c->p->flags & CF_OOO) ? c->scan : 1;
    cmsg *prev = NULL;
    for (cmsg *m = b->qh; m && depth; prev = m, m = m->next, depth--) {
        int blocked = 0;
        for (uint32_t i = 0; i < nseen; i++) blocked |= seen[i] == m->line;
        if (blocked) continue;
        cmsg *next = m->next;
        /* unlink first: serving may put replays at the head */
        if (prev) prev->next = next;
        else b->qh = next;
        if (b->qt == m) b->qt = prev;
        b->qn--;
        if (l2_request(b, m)) {
            if (b->hol) {
                cm_stat_add(c->st_hol, (double)(now - b->hol_since));
                c->hol_sum += (double)(now - b->hol_since);
                b->hol_cum += (double)(now - b->hol_since);
                b->hol = 0;
            }
            b->next_slot = now + c->l2_cycle;
            bank_kick(b);
            return;
        }
        /* stalled: back in place */
        m->next = next;
        if (prev) prev->next = m;
        else b->qh = m;
        if (!next) b->qt = m;
        b->qn++;
        if (nseen < 64) seen[nseen++] = m->line;
    }
    if (!b->hol) {
        b->hol = 1;
        b->hol_since = now;
    }
}

static void bank_enqueue(bank *b, cmsg *m)
{
    m->next = NULL;
    m->enq_t = cm_engine_now(&b->c->eng);
    b->c->flight_sum += (double)(cm_engine_now(&b->c->eng) - m->born);
    b->c->flight_n++;
    if (b->qt) b->qt->next = m;
    else b->qh = m;
    b->qt = m;
    b->qn++;
    bank_kick(b);
}

/* A victim way for line's set in bank b: invalid, else LRU of those
 * without an entry (transient lines stay).  NULL when none. */
static l2way *l2_victim(bank *b, uint64_t line)
{
    cm_coh *c = b->c;
    l2way *set = &b->ways[((line / c->nbanks) % c->l2_sets) * c->l2_ways];
    l2way *v = NULL;
    for (uint32_t i = 0; i < c->l2_ways; i++) {
        if (!set[i].valid) return &set[i];
        if (l2_entry(b, set[i].line)) continue;
        if (!v || set[i].stamp < v->stamp) v = &set[i];
    }
    return v;
}

/* Runs the REPLACE (or DIR_REPLACE) row of a stable line; 0 if it stalls
 * or lacks room (retry at *retry, or on the next change if 0). */
static int l2_replace(bank *b, uint64_t line, unsigned ev, uint64_t *retry)
{
    l2way *way;
    l2ent *e;
    unsigned st = l2_state(b, line, &way, &e);
    const coh_row *r = l2_row(b, st, ev);
    if (!r) return 0;
    if ((r->actions & A2_STALL) || !l2_room(b, r, line)) {
        if (retry && way && st == L2_V) *retry = way->gt + 1;
        return 0;
    }
    pred_event(b, st, ev, NULL);
    if (ev == L2E_DIR_REPLACE || !(b->c->p->flags & CF_DIR)) {
        uint64_t *sh = sharers_of(b, line, way);
        /* a MESI owner is the one L1 copy the recall reaches */
        int n = (sh ? __builtin_popcountll(*sh) : 0) +
                (way && way->owner >= 0);
        b->c->sharers_hist[n] += 1;
    }
    int consumed = 0;
    l2_exec(b, r, st, ev, line, way, e, NULL, NULL, &consumed);
    return 1;
}

/* GPU-VIni: a free directory way for line, evicting (DIR_REPLACE) the LRU
 * entry of the set if needed.  0 when every candidate is busy. */
static int dir_make_room(bank *b, uint64_t line)
{
    cm_coh *c = b->c;
    dirent *set = dir_set(c, b, line);
    dirent *v = NULL;
    for (uint32_t i = 0; i < c->dir_ways && !v; i++)
        if (!set[i].valid || !set[i].sharers) v = &set[i];
    for (uint32_t i = 0; i < c->dir_ways && !v; i++) {
        /* LRU among lines with no transaction */
        dirent *cand = NULL;
        for (uint32_t j = 0; j < c->dir_ways; j++)
            if (!l2_entry(b, set[j].line) &&
                (!cand || set[j].stamp < cand->stamp))
                cand = &set[j];
        if (!cand) return 0;
        if (b->nused + 1 > c->l2_mshrs) return 0;
        if (!l2_replace(b, cand->line, L2E_DIR_REPLACE, NULL)) return 0;
        v = cand;
    }
    v->valid = 1;
    v->line = line;
    v->sharers = 0;
    v->stamp = ++b->stamp;
    return 1;
}

static void fill_event(cm_engine *eng, void *obj, uint64_t arg)
{
    bank *b = obj;
    cm_coh *c = b->c;
    l2ent *e = &b->ent[arg];
    uint64_t now = cm_engine_now(eng), retry = 0;
    l2way *v = l2_victim(b, e->line);
    /* The fill leaves its MSHR entry before the victim is evicted, so an
     * eviction that needs an entry (recall, parked timestamp) can take it:
     * otherwise fills holding every entry would wait for each other. */
    l2ent fill = *e;
    e->used = 0;
    b->nused--;
    if (v && v->valid && !l2_replace(b, v->line, L2E_REPLACE, &retry))
        v = NULL;
    if (!v) { /* every way busy or the victim stalls: try again */
        e->used = 1;
        b->nused++;
        cm_engine_schedule_at(eng, retry > now ? retry : now + c->l2_cycle,
                              fill_event, b, arg);
        return;
    }
    mocc_update(b);
    e = &fill;
    v->valid = 1;
    v->line = e->line;
    v->value = mem_read(c, e->line);
    v->dirty = 0;
    v->sharers = 0;
    v->reader = -1;
    v->owner = -1;
    v->multi = 0;
    v->gt = 0;
    v->read_t = NONE64;
    v->stamp = ++b->stamp;
    /* a TC-Weak refetch takes the parked timestamp (GT >= every LT) */
    for (uint32_t i = 0; i < c->l2_mshrs; i++)
        if (b->ent[i].used && b->ent[i].side && b->ent[i].line == e->line &&
            b->ent[i].gt > v->gt) {
            v->gt = b->ent[i].gt;
            v->multi = 1;
        }
    const coh_row *r = l2_row(b, e->state, L2E_FILL);
    if (!r) return;
    int consumed = 0;
    l2_exec(b, r, e->state, L2E_FILL, e->line, v, e, NULL, NULL, &consumed);
}

static void expire_event(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)eng;
    bank *b = obj;
    l2ent *e = &b->ent[arg];
    if (!e->used || e->state != L2_M_I) return;
    if (e->side) {
        e->used = 0;
        b->nused--;
        mocc_update(b);
        bank_kick(b);
        return;
    }
    const coh_row *r = l2_row(b, L2_M_I, L2E_EXPIRE);
    if (!r) return;
    int consumed = 0;
    l2_exec(b, r, L2_M_I, L2E_EXPIRE, e->line, NULL, e, NULL, NULL,
            &consumed);
}

/* An answer handled on arrival: INVACK (to INV or RCL), WB or NODATA (an
 * owner's answer to FWD or RCL) each count one of the acks the line's
 * entry awaits; PUT (MESI eviction of E or M) needs no entry. */
static void l2_response(bank *b, cmsg *m)
{
    cm_coh *c = b->c;
    l2way *way;
    l2ent *e;
    unsigned st = l2_state(b, m->line, &way, &e);
    unsigned ev;
    if (m->cls == COHM_PUT) {
        ev = L2E_PUT;
        if (way && way->owner != (int32_t)m->core) {
            fail(c, "protocol %s, L2: PUT in state %s from an L1 that does "
                    "not own the line%s%s",
                 coh_l2_state_names[st], "", "");
            return;
        }
    } else {
        if (!e || !e->acks) {
            fail(c, "protocol %s, L2: %s in state %s without a "
                    "transaction%s",
                 coh_msg_names[m->cls], coh_l2_state_names[st], "");
            return;
        }
        --e->acks;
        const cmsg *t = e->txn;
        if (m->cls == COHM_WB) ev = L2E_WB;
        else if (m->cls == COHM_NODATA) ev = L2E_NODATA;
        else if (e->acks) ev = L2E_INVACK;
        else if (t && t->cls == COHM_ATOMIC) ev = L2E_INVACK_LAST_A;
        else if (t && t->cls == COHM_UPGR && way &&
                 (way->sharers >> t->core & 1))
            ev = L2E_INVACK_LAST_U; /* its copy survived: grant, no data */
        else ev = L2E_INVACK_LAST;
    }
    const coh_row *r = l2_row(b, st, ev);
    if (!r) return;
    int consumed = 0;
    l2_exec(b, r, st, ev, m->line, way, e, e ? e->txn : NULL, m, &consumed);
}

static void deliver(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)eng;
    cm_coh *c = obj;
    cmsg *m = (cmsg *)(uintptr_t)arg;
    if (m->dst < c->ncores) {
        l1_receive(&c->cores[m->dst], m);
        return;
    }
    bank *b = &c->banks[m->dst - c->ncores];
    if (coh_msg_awaits_reply(m->cls)) {
        bank_enqueue(b, m);
    } else if (m->cls == COHM_INVACK || m->cls == COHM_WB ||
               m->cls == COHM_NODATA || m->cls == COHM_PUT) {
        l2_response(b, m);
        msg_free(c, m);
    } else {
        fail(c, "protocol %s, L2: unexpected message %s%s%s",
             coh_msg_names[m->cls], "", "");
        msg_free(c, m);
    }
}

/* ---- setup and run ------------------------------------------------------- */

static uint32_t ceil_ratio(double a, double b)
{
    double r = ceil(a / b - 1e-9);
    return r < 1 ? 1 : (uint32_t)r;
}

static cm_status setup_stats(cm_coh *c, cm_err *err)
{
    cm_stats *s = c->cfg.stats;
    cm_status st = CM_OK;
    static const char *const outcome[4] = {"tc.outcome.hit", "tc.outcome.expired",
                                           "tc.outcome.evicted",
                                           "tc.outcome.unused"};
#define CNT(var, name)                                                         \
    if (!st) st = cm_stats_counter(s, name, "all", &c->var, err)
    CNT(st_flits, "noc.flits");
    for (unsigned i = 1; i < COHM_COUNT; i++) {
        char name[64];
        snprintf(name, sizeof name, "noc.msgs.%s", coh_msg_names[i]);
        if (!st) st = cm_stats_counter(s, name, "all", &c->st_msgs[i], err);
    }
    CNT(st_recalls, "dir.recalls");
    CNT(st_invs, "dir.invalidations");
    CNT(st_sstall, "l2.store_stall_cycles");
    CNT(st_hol, "l2.hol_stall_cycles");
    CNT(st_fwait, "fence.wait_cycles");
    CNT(st_fences, "fence.count");
    CNT(st_l1acc, "l1.accesses");
    CNT(st_l1hit, "l1.hits");
    CNT(st_l1miss, "l1.misses");
    CNT(st_fstale, "l1.fills_stale");
    CNT(st_fexp, "l1.fills_expired");
    CNT(st_l2acc, "l2.accesses");
    CNT(st_l2miss, "l2.misses");
    CNT(st_l2evict, "l2.evictions");
    CNT(st_wb, "l2.writebacks");
    CNT(st_cycles, "coh.cycles");
    CNT(st_inst, "coh.instructions");
    if (c->p->flags & CF_TC) {
        for (int i = 0; i < 4; i++)
            if (!st) st = cm_stats_counter(s, outcome[i], "all", &c->st_out[i], err);
        CNT(st_lifemean, "tc.lifetime_mean");
        CNT(st_pred[PE_L1_EXPIRED], "tc.pred.l1_expired");
        CNT(st_pred[PE_L2_EXPIRED], "tc.pred.l2_expired");
        CNT(st_pred[PE_EVICT], "tc.pred.evict_unexpired");
        CNT(st_pred[PE_WRITE], "tc.pred.write_unexpired");
    } else {
        c->st_out[0] = c->st_out[1] = c->st_out[2] = c->st_out[3] = NULL;
        memset(c->st_pred, 0, sizeof c->st_pred);
    }
#undef CNT
    if (!st) st = cm_stats_ratio(s, "l1.miss_ratio", "all", c->st_l1miss, c->st_l1acc, err);
    if (!st) st = cm_stats_ratio(s, "coh.ipc", "all", c->st_inst, c->st_cycles, err);
    for (uint32_t i = 0; !st && i < c->nbanks; i++) {
        char comp[32];
        snprintf(comp, sizeof comp, "bank%u", (unsigned)i);
        st = cm_stats_occupancy(s, "l2.mshr.occupancy", comp, c->l2_mshrs, NULL,
                                &c->banks[i].st_mocc, err);
    }
    return st;
}

void cm_coh_free(cm_coh *c)
{
    if (!c) return;
    for (uint32_t i = 0; c->cores && i < c->ncores; i++) {
        free(c->cores[i].w);
        free(c->cores[i].ld_lines);
        free(c->cores[i].ways);
        free(c->cores[i].ent);
        free(c->cores[i].waiters);
    }
    for (uint32_t i = 0; c->banks && i < c->nbanks; i++) {
        free(c->banks[i].ways);
        free(c->banks[i].ent);
        free(c->banks[i].dir);
    }
    for (size_t i = 0; i < c->nblocks; i++) free(c->blocks[i]);
    free(c->blocks);
    free(c->cores);
    free(c->banks);
    free(c->out_free);
    free(c->in_free);
    free(c->last_arr);
    free(c->mem);
    free(c->behind);
    if (c->rng) gsl_rng_free(c->rng);
    cm_stackdist_free(c->sd);
    cm_stackdist_free(c->asd);
    cm_linemap_free(&c->amap);
    free(c->arec);
    for (uint32_t i = 0; c->lsd && i < c->ncores; i++)
        cm_stackdist_free(c->lsd[i]);
    free(c->lsd);
    cm_linemap_free(&c->hmap);
    cm_linemap_free(&c->gmap);
    free(c->hrec);
    free(c->grec);
    cm_engine_free(&c->eng);
    free(c);
}

cm_status cm_coh_new(const cm_coh_config *cfg, cm_coh **out, cm_err *err)
{
    *out = NULL;
    if (!cfg->proto || !cfg->params || !cfg->src.next || !cfg->stats)
        return cm_err_set(err, CM_EINTERNAL,
                          "coherence simulator: config lacks protocol, "
                          "params, source or statistics");
    const cm_params *p = cfg->params;
    uint32_t ncores = cfg->cores ? cfg->cores : (uint32_t)p->gpu_sms;
    uint32_t nwarps = cfg->warps ? cfg->warps : (uint32_t)p->gpu_warps_per_sm;
    if (ncores > 64)
        return cm_err_set(err, CM_EINPUT,
                          "coherence simulator: %u cores; sharer sets hold at "
                          "most 64 (gpu.sms <= 64)",
                          (unsigned)ncores);
    uint64_t l1_lines = (uint64_t)(p->l1_size / p->l1_line);
    uint64_t l2_lines = (uint64_t)(p->l2_bank_size / p->l2_line);
    if (p->l1_line != p->l2_line || l1_lines < p->l1_ways ||
        l2_lines < p->l2_ways)
        return cm_err_set(err, CM_EINPUT,
                          "coherence simulator: l1.line must equal l2.line "
                          "and each cache hold at least one set");
    cm_coh *c = calloc(1, sizeof *c);
    if (!c) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    c->cfg = *cfg;
    c->p = cfg->proto;
    c->prm = *p;
    c->ncores = ncores;
    c->nwarps = nwarps;
    c->nbanks = (uint32_t)p->l2_banks;
    c->eps = c->ncores + c->nbanks;
    c->l1_ways = (uint32_t)p->l1_ways;
    c->l1_sets = (uint32_t)(l1_lines / c->l1_ways);
    c->l2_ways = (uint32_t)p->l2_ways;
    c->l2_sets = (uint32_t)(l2_lines / c->l2_ways);
    c->mshrs = (uint32_t)p->l1_mshrs;
    c->merge = (uint32_t)p->l1_mshr_merge;
    c->l2_mshrs = (uint32_t)p->l2_mshrs;
    c->scan = (uint32_t)p->l2_queue;
    c->line_bytes = (uint32_t)p->l1_line;
    double total_l1 = (double)l1_lines * ncores;
    uint64_t dir_entries = (uint64_t)ceil(p->dir_ratio * total_l1 / c->nbanks);
    c->dir_ways = (uint32_t)p->dir_ways;
    c->dir_sets = (uint32_t)((dir_entries + c->dir_ways - 1) / c->dir_ways);
    if (!c->dir_sets) c->dir_sets = 1;
    c->dir_hash = p->dir_index == 0;
    while (c->dir_index_bits < 32 && (1ull << c->dir_index_bits) < c->dir_sets)
        c->dir_index_bits++;
    /* timing */
    c->ncyc = ceil_ratio(p->gpu_core_clock, p->noc_clock);
    c->noc_lat = (uint64_t)p->noc_latency * c->ncyc;
    c->l2_cycle = ceil_ratio(p->gpu_core_clock, p->l2_clock);
    c->flit = (uint32_t)p->noc_flit;
    c->header = (uint32_t)p->noc_header;
    uint64_t ctrl = (c->header + c->flit - 1) / c->flit;
    uint64_t data = (c->header + c->line_bytes + c->flit - 1) / c->flit;
    c->reply_slack = 4 * data * c->ncyc;
    double trip = 2.0 * (double)c->noc_lat + (double)((ctrl ? ctrl : 1) + data) * c->ncyc;
    c->pipe = p->l2_latency > trip ? (uint64_t)llround(p->l2_latency - trip) : 0;
    c->dram_access = p->dram_latency > p->l2_latency
                         ? (uint64_t)llround(p->dram_latency - p->l2_latency)
                         : 0;
    c->xfer = ceil_ratio(p->l2_line / (p->dram_bus_bytes * p->dram_data_rate) *
                             p->gpu_core_clock,
                         p->dram_clock);
    c->hit_lat = (uint64_t)llround(p->l1_hit_latency);
    c->max_instructions = (uint64_t)p->sim_max_instructions;
    c->lifetime = (uint64_t)((c->p->flags & CF_TC_WEAK) ? p->tc_lifetime_weak
                                                         : p->tc_lifetime_strong);
    c->mem_cap = 1024;
    c->mem = malloc(c->mem_cap * sizeof *c->mem);
    c->rng = gsl_rng_alloc(gsl_rng_mt19937);
    c->sd = cfg->profile ? cm_stackdist_new() : NULL;
    c->behind = cfg->profile ? calloc(2, sizeof *c->behind) : NULL;
    c->cores = calloc(ncores, sizeof *c->cores);
    c->banks = calloc(c->nbanks, sizeof *c->banks);
    c->out_free = calloc(c->eps, sizeof *c->out_free);
    c->in_free = calloc(c->eps, sizeof *c->in_free);
    c->last_arr = calloc((size_t)c->eps * c->eps, sizeof *c->last_arr);
    int bad = !c->mem || !c->rng ||
              (cfg->profile && (!c->sd || !c->behind)) || !c->cores ||
              !c->banks || !c->out_free || !c->in_free || !c->last_arr;
    if (!bad && cfg->profile) {
        c->lsd = calloc(ncores, sizeof *c->lsd);
        bad = !c->lsd || cm_linemap_alloc(&c->hmap, 12) ||
              cm_linemap_alloc(&c->gmap, 12);
        for (uint32_t i = 0; !bad && i < ncores; i++)
            bad = !(c->lsd[i] = cm_stackdist_new());
        if (!bad && (c->p->flags & CF_DIR))
            bad = !(c->asd = cm_stackdist_new()) ||
                  cm_linemap_alloc(&c->amap, 12);
    }
    if (!bad) {
        for (size_t i = 0; i < c->mem_cap; i++) c->mem[i].line = NONE64;
        gsl_rng_set(c->rng, (unsigned long)cfg->seed);
    }
    for (uint32_t i = 0; !bad && i < ncores; i++) {
        core *k = &c->cores[i];
        k->c = c;
        k->id = i;
        k->live = nwarps;
        k->tick_at = NONE64;
        k->timer_at = NONE64;
        k->sync_t = NONE64;
        k->w = calloc(nwarps, sizeof *k->w);
        for (uint32_t j = 0; k->w && j < nwarps; j++)
            k->w[j].last_store = k->w[j].lease_t = NONE64;
        k->ld_lines = calloc(2 * 64, sizeof *k->ld_lines);
        k->ways = calloc((size_t)c->l1_sets * c->l1_ways, sizeof *k->ways);
        k->ent = calloc(c->mshrs, sizeof *k->ent);
        k->waiters = calloc((size_t)c->mshrs * c->merge, sizeof *k->waiters);
        bad = !k->w || !k->ld_lines || !k->ways || !k->ent || !k->waiters;
        for (uint32_t j = 0; !bad && j < c->mshrs; j++)
            k->ent[j].w = &k->waiters[(size_t)j * c->merge];
    }
    for (uint32_t i = 0; !bad && i < c->nbanks; i++) {
        bank *b = &c->banks[i];
        b->c = c;
        b->id = i;
        b->pred = p->tc_predictor_init;
        b->ways = calloc((size_t)c->l2_sets * c->l2_ways, sizeof *b->ways);
        b->ent = calloc(c->l2_mshrs, sizeof *b->ent);
        b->dir = (c->p->flags & CF_DIR)
                     ? calloc((size_t)c->dir_sets * c->dir_ways, sizeof *b->dir)
                     : NULL;
        bad = !b->ways || !b->ent || ((c->p->flags & CF_DIR) && !b->dir);
    }
    if (bad) {
        cm_coh_free(c);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    size_t events = (size_t)ncores * (c->mshrs * (ncores + 4) + nwarps * 4) +
                    (size_t)c->nbanks * (c->l2_mshrs * 4 + 64) + 4096;
    cm_status st = cm_engine_init(&c->eng, events, err);
    if (!st) st = setup_stats(c, err);
    if (st) {
        cm_coh_free(c);
        return st;
    }
    *out = c;
    return CM_OK;
}

/* Writes the run's timing profile into cfg.profile. */
static cm_status profile_fill(cm_coh *c, uint64_t cycles, cm_err *err)
{
    cm_profile *p = c->cfg.profile;
    cm_status st = CM_OK;
    for (size_t i = 0; i < c->an; i++) /* emptied, not loaded again */
        if (c->arec[i].empty_at != NONE64) {
            hist_add(&c->h[H_EGAP], INFINITY);
            c->arec[i].empty_at = NONE64;
        }
    for (int k = 0; !st && k < H_COUNT; k++) {
        const hist *h = &c->h[k];
        for (int i = 0; !st && i < HBINS; i++)
            if (h->bin[i] > 0)
                st = cm_profile_add_bin(p, hist_names[k], hist_edge(i),
                                        hist_edge(i + 1), h->bin[i], err);
        if (!st && h->inf > 0)
            st = cm_profile_add_bin(p, hist_names[k], INFINITY, INFINITY,
                                    h->inf, err);
    }
    static const char *const behind_names[2] = {
        "joint.l2.behind_parts", "joint.l2.behind_parts_shared"};
    for (int k = 0; !st && k < 2; k++)
        for (int i = 0; !st && i < HBINS; i++)
            for (int j = 0; !st && j < HBINS; j++) {
                const double *cell = c->behind[k][i][j];
                if (cell[0] > 0)
                    st = cm_profile_add_point(p, behind_names[k],
                                              cell[1] / cell[0],
                                              cell[2] / cell[0], cell[0],
                                              err);
            }
    struct {
        const char *name;
        const double *w;
        int n;
    } counts[] = {{"dir.sharers", c->sharers_hist, 65},
                  {"l1.load_flags", c->load_flags, HF_COUNT},
                  {"l1.store_flags", c->store_flags, SF_COUNT},
                  {"l1.write_sharers", c->write_sharers, 65}};
    for (size_t k = 0; !st && k < sizeof counts / sizeof *counts; k++)
        for (int i = 0; !st && i < counts[k].n; i++)
            if (counts[k].w[i] > 0)
                st = cm_profile_add_bin(p, counts[k].name, i, i + 1,
                                        counts[k].w[i], err);
    double t = cycles ? (double)cycles : 1;
    double mshr_occupancy = 0;
    for (uint32_t i = 0; i < c->nbanks; i++)
        mshr_occupancy += cm_stat_occupancy_mean(c->banks[i].st_mocc);
    /* the lifetime the run held fixed (TC-Strong, TC-Weak without its
     * predictor): what models/lifetime.c carries the profile from */
    double fixed_lifetime =
        (c->p->flags & CF_TC) && !(c->p->flags & CF_PREDICTOR)
            ? (double)c->lifetime
            : 0;
    struct {
        const char *name;
        double v;
    } rates[] = {
        {"rate.l1_fills", c->n_fills / t},
        {"rate.l1_loads", c->n_loads / t},
        {"rate.l1_stores", c->n_stores / t},
        {"rate.l1_atomics", c->n_atomics / t},
        {"rate.l2_loads", c->n_l2_loads / t},
        {"rate.l2_stores", c->n_l2_stores / t},
        {"rate.l2_evictions", c->n_l2_evict / t},
        {"rate.fences", c->n_fences / t},
        {"rate.dir_accesses", c->n_dir / t},
        {"rate.l2_banks", c->nbanks},
        {"rate.store_ack_latency", c->ack_n ? c->ack_sum / c->ack_n : 0},
        {"rate.fill_latency", c->fill_n ? c->fill_sum / c->fill_n : 0},
        {"rate.request_flight",
         c->flight_n ? c->flight_sum / c->flight_n : 0},
        {"rate.dir_footprint", c->sd ? (double)cm_stackdist_lines(c->sd) : 0},
        {"rate.l1_lines", (double)c->l1_sets * c->l1_ways},
        {"rate.l2_reply_busy", c->reply_busy / (c->nbanks * t)},
        {"rate.l2_mshr_occupancy", mshr_occupancy / c->nbanks},
        {"rate.lifetime", fixed_lifetime},
        /* bank-cycles with nothing the bank may serve per store stall
         * cycle: 1 at an in-order bank, whose stalled store blocks it;
         * less when it serves around the stalled stores (TCSOO) */
        {"rate.l2_hol_per_stall",
         c->sstall_sum > 0 ? c->hol_sum / c->sstall_sum : 0},
        /* stores held by a lease per store, and their mean wait after
         * it passed (0 without such stores) */
        {"rate.l2_stall_share",
         c->n_l2_stores > 0 ? c->n_held / c->n_l2_stores : 0},
        {"rate.l2_post_wait", c->n_held > 0 ? c->post_sum / c->n_held : 0},
    };
    for (size_t i = 0; !st && i < sizeof rates / sizeof *rates; i++)
        st = cm_profile_set_rate(p, rates[i].name, rates[i].v, err);
    if (!st && c->asd)
        st = cm_profile_set_rate(p, "rate.dir_alloc_footprint",
                                 (double)cm_stackdist_lines(c->asd), err);
    if (!st && c->asd)
        st = cm_profile_set_rate(p, "rate.dir_empties", c->n_empties / t, err);
    return st;
}

cm_status cm_coh_run(cm_coh *c, uint64_t max_cycles, cm_coh_result *res,
                     cm_err *err)
{
    memset(res, 0, sizeof *res);
    for (uint32_t i = 0; i < c->ncores; i++)
        core_wake(&c->cores[i], jitter(c));
    cm_run_end why;
    cm_status st = cm_engine_run(&c->eng, max_cycles, 0, &why, err);
    if (c->err_set) {
        *err = c->err;
        return c->err.code ? c->err.code : CM_EINTERNAL;
    }
    if (st) return st;
    uint64_t now = cm_engine_now(&c->eng);
    int retired = 1;
    for (uint32_t i = 0; i < c->ncores; i++) retired &= c->cores[i].live == 0;
    res->finished = retired && why == CM_RUN_EMPTY;
    if (!res->finished && why == CM_RUN_EMPTY)
        return cm_err_set(err, CM_EINTERNAL,
                          "protocol %s: deadlock at cycle %llu (warps wait, "
                          "nothing in flight)",
                          c->p->name, (unsigned long long)now);
    res->cycles = res->finished ? c->finish : now;
    res->instructions = c->instructions;
    cm_stat_add(c->st_cycles, (double)res->cycles);
    for (uint32_t i = 0; i < c->nbanks; i++) {
        bank *b = &c->banks[i];
        pred_add(b, 0); /* close the time integral */
        cm_stat_level(b->st_mocc, b->nused, now);
    }
    if (c->st_lifemean) {
        double area = 0, t = 0;
        for (uint32_t i = 0; i < c->nbanks; i++) {
            area += (c->p->flags & CF_PREDICTOR) ? c->banks[i].pred_area
                                                  : (double)c->lifetime * now;
            t += (double)now;
        }
        cm_stat_add(c->st_lifemean, t > 0 ? area / t : (double)c->lifetime);
    }
    /* Copies still held: an expired TC copy was never reused (unused);
     * others are censored (no outcome, no reuse sample), but their
     * residency is known to be no capacity eviction. */
    for (uint32_t i = 0; i < c->ncores; i++)
        for (uint32_t j = 0; j < c->l1_sets * c->l1_ways; j++) {
            l1way *w = &c->cores[i].ways[j];
            if (w->state == L1_I) continue;
            if ((c->p->flags & CF_TC) && w->open && now > w->lt)
                tc_outcome(c, w, 0);
            hist_add(&c->h[H_RESID], INFINITY);
            last_use(c, w);
        }
    cm_stats_sync(c->cfg.stats, now);
    return c->cfg.profile ? profile_fill(c, res->cycles, err) : CM_OK;
}

uint64_t cm_coh_value(const cm_coh *c, uint64_t line)
{
    bank *b = &c->banks[bank_of(c, line)];
    l2way *w = l2_find(b, line);
    if (w && w->owner >= 0) { /* MESI: the owner's copy is the newest */
        l1way *o = l1_find(&c->cores[w->owner], line);
        if (o && (o->state == L1_E || o->state == L1_M)) return o->value;
    }
    return w ? w->value : mem_read(c, line);
}
