/* l1.c - the L1 data cache of one SM (see l1.h).
 *
 * Structures, all sized at cm_l1_new so the run loop allocates nothing:
 *  - the tags: a cm_cache (sim/cache.h), plus per set the number of valid
 *    ways (to tell a fill that evicts, the REPLACE event, from one that
 *    takes an empty way) and of ways reserved by fills in flight;
 *  - the MSHR entries: an array with a free stack, each with room for
 *    l1.mshr_merge waiting warps, and a chained hash from line to the
 *    line's filling entry (state I_V), the only entries later loads can
 *    find;
 *  - the statistics handles.
 * Protocol tables are executed as in protocol.h; which entry state a new
 * MSHR entry takes follows from the row: I_V when it allocates, else I_I. */
#include "sim/l1.h"

#include <stdlib.h>
#include <string.h>

#include "sim/protocol.h"

typedef struct l1_mshr {
    uint64_t line;
    cm_mreq *req;
    uint32_t *waiters; /* warps, [mshr_merge] */
    uint32_t nwait;
    int32_t hnext; /* next filling entry in the hash chain, -1 at the end */
    uint8_t state; /* CM_L1S_I_V or CM_L1S_I_I */
    uint8_t op;
    uint8_t in_use, reserved; /* reserved: holds a way of its set */
} l1_mshr;

struct cm_l1 {
    cm_l1_config cfg;
    cm_engine *eng;
    const cm_proto_table *tab;
    /* tab's rows by (state, event), looked up once: an access runs a few */
    const cm_proto_row *rowix[CM_L1S_COUNT][CM_L1E_COUNT];
    cm_cache *tags;
    uint64_t sets;
    uint32_t *valid, *reserved; /* per set */
    uint64_t nvalid;
    l1_mshr *mshr;
    uint32_t *waiters;
    uint32_t *free_stack, nfree;
    int32_t *bucket;
    uint64_t bucket_mask;
    uint64_t next_id;
    int blocked; /* a send was refused: wake the SM on retry */
    int refused; /* a reservation failed: call `freed` on the next free */
    uint64_t freed_gen;
    cm_l1_counts n;
    cm_err err;
    cm_stat *st_acc, *st_miss, *st_occ, *st_merge, *st_fail[3], *st_rt;
};

void cm_l1_config_params(cm_l1_config *cfg, const cm_params *p)
{
    cfg->size = (uint64_t)p->l1_size;
    cfg->ways = (uint64_t)p->l1_ways;
    cfg->line = (uint64_t)p->l1_line;
    cfg->policy = (cm_cache_policy)p->l1_policy;
    cfg->seed = (uint64_t)p->sim_seed;
    cfg->mshrs = (uint32_t)p->l1_mshrs;
    cfg->mshr_merge = (uint32_t)p->l1_mshr_merge;
    cfg->hit_latency = (uint64_t)p->l1_hit_latency;
}

static cm_status register_stats(cm_l1 *l1, cm_err *err)
{
    cm_stats *reg = l1->cfg.stats;
    const char *c = l1->cfg.component;
    static const char *const fail_names[3] = {"l1.reservation_fail.mshr",
                                              "l1.reservation_fail.merge",
                                              "l1.reservation_fail.line"};
    cm_status st;
    if ((st = cm_stats_counter(reg, "l1.accesses", c, &l1->st_acc, err)) ||
        (st = cm_stats_counter(reg, "l1.misses", c, &l1->st_miss, err)) ||
        (st = cm_stats_ratio(reg, "l1.miss_ratio", c, l1->st_miss, l1->st_acc,
                             err)) ||
        (st = cm_stats_occupancy(reg, "l1.mshr.occupancy", c, l1->cfg.mshrs,
                                 "l1.mshr.full_fraction", &l1->st_occ, err)) ||
        (st = cm_stats_counter(reg, "l1.mshr.merges", c, &l1->st_merge, err)) ||
        (st = cm_stats_latency(reg, "roundtrip.latency", c, 24, 0, &l1->st_rt,
                               err)))
        return st;
    for (int i = 0; i < 3; i++)
        if ((st =
                 cm_stats_counter(reg, fail_names[i], c, &l1->st_fail[i], err)))
            return st;
    return CM_OK;
}

cm_status cm_l1_new(const cm_l1_config *cfg, cm_engine *eng, cm_l1 **out,
                    cm_err *err)
{
    *out = NULL;
    if (!cfg->proto || !cfg->pool || !cfg->out.accept || !cfg->done ||
        !cfg->stats || !cfg->component)
        return cm_err_set(err, CM_EINTERNAL,
                          "L1 config lacks protocol, pool, sink, completion "
                          "callback or statistics");
    if (cfg->mshrs < 1 || cfg->mshr_merge < 1)
        return cm_err_set(err, CM_EINPUT,
                          "l1.mshrs and l1.mshr_merge must be "
                          "at least 1");
    cm_l1 *l1 = calloc(1, sizeof *l1);
    if (!l1) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    l1->cfg = *cfg;
    l1->eng = eng;
    l1->tab = &cfg->proto->l1;
    for (unsigned st = 0; st < CM_L1S_COUNT; st++)
        for (unsigned ev = 0; ev < CM_L1E_COUNT; ev++)
            l1->rowix[st][ev] = cm_proto_find(l1->tab, st, ev);
    cm_cache_config cc = {cfg->size,   cfg->ways, cfg->line,
                          cfg->policy, 0,         cfg->seed};
    cm_status st = cm_cache_new(&cc, &l1->tags, err);
    if (st) {
        free(l1);
        return st;
    }
    l1->sets = cm_cache_sets(l1->tags);
    uint64_t nb = 1;
    while (nb < 2 * (uint64_t)cfg->mshrs) nb <<= 1;
    l1->bucket_mask = nb - 1;
    l1->valid = calloc(l1->sets, sizeof *l1->valid);
    l1->reserved = calloc(l1->sets, sizeof *l1->reserved);
    l1->mshr = calloc(cfg->mshrs, sizeof *l1->mshr);
    l1->waiters =
        calloc((size_t)cfg->mshrs * cfg->mshr_merge, sizeof *l1->waiters);
    l1->free_stack = calloc(cfg->mshrs, sizeof *l1->free_stack);
    l1->bucket = malloc(nb * sizeof *l1->bucket);
    if (!l1->valid || !l1->reserved || !l1->mshr || !l1->waiters ||
        !l1->free_stack || !l1->bucket) {
        cm_l1_free(l1);
        return cm_err_set(err, CM_EINTERNAL, "out of memory for the L1");
    }
    for (uint64_t i = 0; i < nb; i++) l1->bucket[i] = -1;
    /* Entry 0 on top: the lowest free entry is taken first. */
    for (uint32_t i = 0; i < cfg->mshrs; i++) {
        l1->mshr[i].waiters = l1->waiters + (size_t)i * cfg->mshr_merge;
        l1->free_stack[i] = cfg->mshrs - 1 - i;
    }
    l1->nfree = cfg->mshrs;
    if ((st = register_stats(l1, err))) {
        cm_l1_free(l1);
        return st;
    }
    *out = l1;
    return CM_OK;
}

void cm_l1_free(cm_l1 *l1)
{
    if (!l1) return;
    cm_cache_free(l1->tags);
    free(l1->valid);
    free(l1->reserved);
    free(l1->mshr);
    free(l1->waiters);
    free(l1->free_stack);
    free(l1->bucket);
    free(l1);
}

/* ---- helpers ------------------------------------------------------------- */

static void fail(cm_l1 *l1, const char *what, unsigned state, unsigned event)
{
    if (l1->err.code == CM_OK)
        cm_err_set(&l1->err, CM_EINTERNAL,
                   "protocol %s, L1 of sm%u: %s (state %s, event %s)",
                   l1->cfg.proto->name, (unsigned)l1->cfg.sm, what,
                   state < l1->tab->nstates ? l1->tab->states[state] : "?",
                   event < l1->tab->nevents ? l1->tab->events[event] : "?");
    cm_engine_stop(l1->eng);
}

/* The row, or NULL after recording the internal error. */
static const cm_proto_row *row_for(cm_l1 *l1, unsigned state, unsigned event)
{
    const cm_proto_row *r = state < CM_L1S_COUNT && event < CM_L1E_COUNT
                                ? l1->rowix[state][event]
                                : NULL;
    if (!r) fail(l1, "the table has no row", state, event);
    return r;
}

static uint64_t set_of(const cm_l1 *l1, uint64_t line)
{
    return line % l1->sets;
}

static uint64_t hash_of(const cm_l1 *l1, uint64_t line)
{
    return (line * 0x9E3779B97F4A7C15ull) >> 32 & l1->bucket_mask;
}

static l1_mshr *find_filling(cm_l1 *l1, uint64_t line)
{
    for (int32_t i = l1->bucket[hash_of(l1, line)]; i >= 0;
         i = l1->mshr[i].hnext)
        if (l1->mshr[i].line == line) return &l1->mshr[i];
    return NULL;
}

static void hash_remove(cm_l1 *l1, l1_mshr *e)
{
    int32_t idx = (int32_t)(e - l1->mshr);
    int32_t *p = &l1->bucket[hash_of(l1, e->line)];
    while (*p != idx) p = &l1->mshr[*p].hnext;
    *p = e->hnext;
    e->hnext = -1;
}

/* A filling entry stops filling: later loads miss anew. */
static void unreserve(cm_l1 *l1, l1_mshr *e)
{
    if (e->state == CM_L1S_I_V) hash_remove(l1, e);
    if (e->reserved) l1->reserved[set_of(l1, e->line)]--;
    e->reserved = 0;
    e->state = CM_L1S_I_I;
}

static unsigned event_of(uint8_t op)
{
    switch (op) {
    case CM_OP_LOAD:
        return CM_L1E_LOAD;
    case CM_OP_STORE:
        return CM_L1E_STORE;
    case CM_OP_ATOMIC:
        return CM_L1E_ATOMIC;
    default:
        return CM_L1E_COUNT;
    }
}

static void hit_done(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)eng;
    cm_l1 *l1 = obj;
    l1->cfg.done(l1->cfg.done_obj, (uint32_t)(arg >> 8), (uint8_t)arg);
}

/* ---- accesses ------------------------------------------------------------ */

cm_l1_result cm_l1_access(cm_l1 *l1, uint64_t line, uint8_t op, uint32_t warp,
                          uint16_t bytes)
{
    if (l1->err.code != CM_OK) return CM_L1_ERROR;
    unsigned ev = event_of(op);
    if (ev == CM_L1E_COUNT) {
        fail(l1, "not a load, store or atomic", CM_L1S_I, CM_L1E_COUNT);
        return CM_L1_ERROR;
    }
    l1_mshr *fill = find_filling(l1, line);
    unsigned state = fill                                ? CM_L1S_I_V
                     : cm_cache_touch(l1->tags, line, 0) ? CM_L1S_V
                                                         : CM_L1S_I;
    const cm_proto_row *r = row_for(l1, state, ev);
    if (!r) return CM_L1_ERROR;
    unsigned a = r->actions;
    /* An MSHR action without a message joins the line's pending fill. */
    int merge = (a & CM_ACT_MSHR) && !(a & CM_ACT_SEND);
    int alloc = (a & CM_ACT_ALLOCATE) && !merge;
    uint64_t set = set_of(l1, line);

    if (merge && !fill) {
        fail(l1, "merge without a pending fill", state, ev);
        return CM_L1_ERROR;
    }
    cm_l1_result why = CM_L1_OK;
    if (merge && fill->nwait >= l1->cfg.mshr_merge)
        why = CM_L1_FAIL_MERGE;
    else if ((a & CM_ACT_MSHR) && !merge && l1->nfree == 0)
        why = CM_L1_FAIL_MSHR;
    else if (alloc && l1->reserved[set] >= l1->cfg.ways)
        why = CM_L1_FAIL_LINE;
    if (why != CM_L1_OK) {
        cm_l1_count_fails(l1, why, 1);
        l1->refused = 1;
        return why;
    }
    if ((a & CM_ACT_SEND) && !(a & CM_ACT_MSHR)) {
        fail(l1, "a message without an MSHR entry to answer", state, ev);
        return CM_L1_ERROR;
    }

    uint64_t now = cm_engine_now(l1->eng);
    l1_mshr *e = NULL;
    if (a & CM_ACT_SEND) {
        cm_mreq *q = cm_pool_get(l1->cfg.pool);
        if (!q) {
            fail(l1, "the request pool is empty (size it for every MSHR)",
                 state, ev);
            return CM_L1_ERROR;
        }
        e = &l1->mshr[l1->free_stack[l1->nfree - 1]];
        *q = (cm_mreq){.line = line,
                       .id = (uint64_t)l1->cfg.sm << 40 | l1->next_id,
                       .issue_cycle = now,
                       .sm = l1->cfg.sm,
                       .warp = warp,
                       .bytes = bytes,
                       .op = op,
                       .msg = r->msg,
                       .owner = e};
        if (cm_sink_send(&l1->cfg.out, q) != CM_SINK_OK) {
            cm_pool_put(l1->cfg.pool, q);
            l1->blocked = 1;
            l1->n.busy++;
            return CM_L1_BUSY;
        }
        l1->next_id++;
        l1->nfree--;
        *e = (l1_mshr){.line = line,
                       .req = q,
                       .waiters = e->waiters,
                       .nwait = 1,
                       .hnext = -1,
                       .state = alloc ? CM_L1S_I_V : CM_L1S_I_I,
                       .op = op,
                       .in_use = 1,
                       .reserved = (uint8_t)alloc};
        e->waiters[0] = warp;
        if (alloc) {
            l1->reserved[set]++;
            uint64_t h = hash_of(l1, line);
            e->hnext = l1->bucket[h];
            l1->bucket[h] = (int32_t)(e - l1->mshr);
        }
        l1->n.sent++;
        cm_stat_level(l1->st_occ, l1->cfg.mshrs - l1->nfree, now);
    }

    l1->n.accesses++;
    cm_stat_add(l1->st_acc, 1);
    if (!(a & CM_ACT_HIT)) {
        l1->n.misses++;
        cm_stat_add(l1->st_miss, 1);
    }
    if ((a & CM_ACT_INVALIDATE) && cm_cache_invalidate(l1->tags, line)) {
        l1->valid[set]--;
        l1->nvalid--;
    }
    /* CM_ACT_WRITE_LOCAL: values are not simulated; the lookup above has
     * already made the line most recently used. */
    if (merge) {
        fill->waiters[fill->nwait++] = warp;
        l1->n.merges++;
        cm_stat_add(l1->st_merge, 1);
    }
    if (a & CM_ACT_HIT) {
        l1->n.hits++;
        cm_engine_schedule(l1->eng, l1->cfg.hit_latency, hit_done, l1,
                           (uint64_t)warp << 8 | op);
    }
    return CM_L1_OK;
}

void cm_l1_count_fails(cm_l1 *l1, cm_l1_result why, uint64_t n)
{
    switch (why) {
    case CM_L1_FAIL_MSHR:
        l1->n.fail_mshr += n;
        cm_stat_add(l1->st_fail[0], (double)n);
        break;
    case CM_L1_FAIL_MERGE:
        l1->n.fail_merge += n;
        cm_stat_add(l1->st_fail[1], (double)n);
        break;
    case CM_L1_FAIL_LINE:
        l1->n.fail_line += n;
        cm_stat_add(l1->st_fail[2], (double)n);
        break;
    default:
        break;
    }
}

uint64_t cm_l1_freed_gen(const cm_l1 *l1)
{
    return l1->freed_gen;
}

/* An entry or a way came free: a refused request may now pass. */
static void note_freed(cm_l1 *l1)
{
    l1->freed_gen++;
    if (!l1->refused) return;
    l1->refused = 0;
    if (l1->cfg.freed.ready) l1->cfg.freed.ready(l1->cfg.freed.obj);
}

/* ---- replies ------------------------------------------------------------- */

static void fill_line(cm_l1 *l1, uint64_t line)
{
    uint64_t set = set_of(l1, line);
    if (cm_cache_touch(l1->tags, line, 1)) return; /* cannot happen: I_V */
    if (l1->valid[set] < l1->cfg.ways) {
        l1->valid[set]++;
        l1->nvalid++;
        return;
    }
    /* The fill displaced the set's victim: the victim's REPLACE row. */
    const cm_proto_row *r = row_for(l1, CM_L1S_V, CM_L1E_REPLACE);
    if (r && r->actions & CM_ACT_SEND)
        fail(l1, "eviction messages are not supported", CM_L1S_V,
             CM_L1E_REPLACE);
    l1->n.evictions++;
}

static int reply_accept(void *obj, cm_mreq *q)
{
    cm_l1 *l1 = obj;
    l1_mshr *e = q->owner;
    unsigned ev = q->msg == CM_MSG_DATA  ? CM_L1E_DATA
                  : q->msg == CM_MSG_ACK ? CM_L1E_ACK
                                         : CM_L1E_COUNT;
    if (!e || e < l1->mshr || e >= l1->mshr + l1->cfg.mshrs || !e->in_use ||
        e->req != q) {
        fail(l1, "a reply for no MSHR entry of this L1", CM_L1S_I, ev);
        return CM_SINK_OK;
    }
    const cm_proto_row *r = row_for(l1, e->state, ev);
    if (!r) return CM_SINK_OK;
    uint64_t now = cm_engine_now(l1->eng);
    if (r->actions & CM_ACT_FILL) {
        unreserve(l1, e);
        fill_line(l1, e->line);
    } else if (e->state == CM_L1S_I_V) {
        unreserve(l1, e);
    }
    cm_stat_sample(l1->st_rt, (double)(now - q->issue_cycle));
    l1->n.replies++;
    e->in_use = 0;
    e->req = NULL;
    l1->free_stack[l1->nfree++] = (uint32_t)(e - l1->mshr);
    cm_stat_level(l1->st_occ, l1->cfg.mshrs - l1->nfree, now);
    cm_pool_put(l1->cfg.pool, q);
    note_freed(l1);
    /* Last, so the SM sees the entry free when it reacts. */
    if (r->actions & CM_ACT_COMPLETE)
        for (uint32_t i = 0; i < e->nwait; i++)
            l1->cfg.done(l1->cfg.done_obj, e->waiters[i], e->op);
    return CM_SINK_OK;
}

cm_sink cm_l1_reply_sink(cm_l1 *l1)
{
    return (cm_sink){reply_accept, l1};
}

static void retry_ready(void *obj)
{
    cm_l1 *l1 = obj;
    if (!l1->blocked) return;
    l1->blocked = 0;
    if (l1->cfg.wake.ready) l1->cfg.wake.ready(l1->cfg.wake.obj);
}

cm_retry cm_l1_retry(cm_l1 *l1)
{
    return (cm_retry){retry_ready, l1};
}

unsigned cm_l1_warm(cm_l1 *l1, uint64_t line, uint8_t op)
{
    unsigned ev = event_of(op);
    /* A line with a fill in flight is left to it: its reply installs it. */
    if (l1->err.code != CM_OK || ev == CM_L1E_COUNT || find_filling(l1, line))
        return CM_MSG_NONE;
    unsigned state = cm_cache_touch(l1->tags, line, 0) ? CM_L1S_V : CM_L1S_I;
    const cm_proto_row *r = row_for(l1, state, ev);
    if (!r) return CM_MSG_NONE;
    if ((r->actions & CM_ACT_INVALIDATE) &&
        cm_cache_invalidate(l1->tags, line)) {
        l1->valid[set_of(l1, line)]--;
        l1->nvalid--;
    }
    if ((r->actions & CM_ACT_ALLOCATE) && state == CM_L1S_I)
        fill_line(l1, line);
    return r->actions & CM_ACT_SEND ? r->msg : CM_MSG_NONE;
}

/* ---- flash events -------------------------------------------------------- */

void cm_l1_flash(cm_l1 *l1, unsigned event)
{
    if (l1->err.code != CM_OK) return;
    if (l1->nvalid > 0) {
        const cm_proto_row *r = row_for(l1, CM_L1S_V, event);
        if (!r) return;
        if (r->actions & CM_ACT_INVALIDATE) {
            cm_cache_invalidate_all(l1->tags);
            memset(l1->valid, 0, l1->sets * sizeof *l1->valid);
            l1->nvalid = 0;
        }
    }
    for (uint32_t i = 0; i < l1->cfg.mshrs; i++) {
        l1_mshr *e = &l1->mshr[i];
        if (!e->in_use || e->state != CM_L1S_I_V) continue;
        const cm_proto_row *r = row_for(l1, CM_L1S_I_V, event);
        if (!r) return;
        if (r->next == CM_L1S_I_I) {
            unreserve(l1, e);
            note_freed(l1);
        }
    }
}

/* ---- inspection ---------------------------------------------------------- */

const cm_l1_counts *cm_l1_get_counts(const cm_l1 *l1)
{
    return &l1->n;
}

size_t cm_l1_mshr_in_use(const cm_l1 *l1)
{
    return l1->cfg.mshrs - l1->nfree;
}

int cm_l1_probe(cm_l1 *l1, uint64_t line)
{
    return cm_cache_touch(l1->tags, line, 0);
}

const cm_err *cm_l1_error(const cm_l1 *l1)
{
    return l1->err.code != CM_OK ? &l1->err : NULL;
}
