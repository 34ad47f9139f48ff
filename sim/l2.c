/* l2.c - the L2 banks of l2.h.
 *
 * Per bank, all sized at setup:
 *  - tags: sets x ways of {line, dirty}, each set newest first (LRU as
 *    sim/cache.c does it).  The bank keeps its own array rather than
 *    cm_cache because a write-back cache must learn its victim and its
 *    dirty bit, which cm_cache_touch does not report;
 *  - the request queue, a ring with each request's arrival time;
 *  - MSHR entries with their merged requests, a free list, and an
 *    open-addressing map line -> entry (linear probing, backward-shift
 *    deletion) for the merge lookup;
 *  - the DRAM FIFO: entries whose read or write-back awaits a DRAM queue
 *    slot, in order;
 *  - the reply FIFO: replies in bank order with the cycle each is ready
 *    (pipeline, atomic unit).  Every served request reserves its slot, so a
 *    fill can always queue the requests it answers.
 * Re-entry: serving may free resources that would serve again (a
 * write-back leaving), so kick() is guarded and its loop re-checks. */
#include "sim/l2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the baseline table ------------------------------------------------ */

static const char *const state_names[CM_L2S_COUNT] = {"I", "V", "M", "IV",
                                                      "IM"};
static const char *const event_names[CM_L2E_COUNT] = {
    "GETS", "WRITE", "WRITE_FULL", "ATOMIC", "FILL", "REPLACE"};

#define ROW(s, e, n, m, a)                                                     \
    {                                                                          \
        CM_L2S_##s, CM_L2E_##e, CM_L2S_##n, CM_MSG_##m, (a)                    \
    }
#define FETCH (CM_ACT_MSHR | CM_ACT_SEND) /* read the line from DRAM */
#define HIT (CM_ACT_HIT | CM_ACT_SEND)
#define WHIT (CM_ACT_HIT | CM_ACT_WRITE_LOCAL | CM_ACT_SEND)

static const cm_proto_row rows[] = {
    ROW(I, GETS, IV, GETS, FETCH),
    ROW(I, WRITE, IM, GETS, FETCH), /* fetch-on-write */
    ROW(I, WRITE_FULL, M, ACK,
        CM_ACT_ALLOCATE | CM_ACT_WRITE_LOCAL | CM_ACT_SEND),
    ROW(I, ATOMIC, IM, GETS, FETCH),
    ROW(V, GETS, V, DATA, HIT),
    ROW(V, WRITE, M, ACK, WHIT),
    ROW(V, WRITE_FULL, M, ACK, WHIT),
    ROW(V, ATOMIC, M, DATA, WHIT),
    ROW(V, REPLACE, I, NONE, CM_ACT_INVALIDATE),
    ROW(M, GETS, M, DATA, HIT),
    ROW(M, WRITE, M, ACK, WHIT),
    ROW(M, WRITE_FULL, M, ACK, WHIT),
    ROW(M, ATOMIC, M, DATA, WHIT),
    ROW(M, REPLACE, I, WRITE, CM_ACT_INVALIDATE | CM_ACT_SEND), /* WB */
    ROW(IV, GETS, IV, NONE, CM_ACT_MSHR),                       /* merges */
    ROW(IV, WRITE, IM, NONE, CM_ACT_MSHR),
    ROW(IV, WRITE_FULL, IM, NONE, CM_ACT_MSHR),
    ROW(IV, ATOMIC, IM, NONE, CM_ACT_MSHR),
    ROW(IV, FILL, V, NONE, CM_ACT_FILL | CM_ACT_COMPLETE),
    ROW(IM, GETS, IM, NONE, CM_ACT_MSHR),
    ROW(IM, WRITE, IM, NONE, CM_ACT_MSHR),
    ROW(IM, WRITE_FULL, IM, NONE, CM_ACT_MSHR),
    ROW(IM, ATOMIC, IM, NONE, CM_ACT_MSHR),
    ROW(IM, FILL, M, NONE, CM_ACT_FILL | CM_ACT_WRITE_LOCAL | CM_ACT_COMPLETE),
};

static const cm_proto_table baseline = {
    state_names,  CM_L2S_COUNT, event_names,
    CM_L2E_COUNT, rows,         sizeof rows / sizeof *rows};

const cm_proto_table *cm_l2_baseline_table(void)
{
    return &baseline;
}

/* ---- structures --------------------------------------------------------- */

enum { MS_FREE = 0, MS_READ_WAIT, MS_READ, MS_WB };

typedef struct l2_way {
    uint64_t line;
    uint8_t dirty;
} l2_way;

typedef struct l2_mshr {
    uint64_t line, since;
    cm_mreq **reqs; /* merged requests, in arrival order */
    uint32_t n, next_free;
    uint8_t state, dirty; /* dirty: a store or atomic merged (IM) */
} l2_mshr;

typedef struct l2_reply {
    cm_mreq *r;
    uint64_t ready;
} l2_reply;

typedef struct l2_bank {
    cm_l2 *l2;
    unsigned id, ch;
    l2_way *tags;
    uint32_t *fill;
    cm_mreq **q;
    uint64_t *q_since;
    uint32_t qhead, qcount;
    l2_mshr *mshr;
    uint32_t free_mshr, nfree;
    int32_t *map;
    uint32_t *todram, dhead, dcount;
    l2_reply *out;
    uint32_t ohead, ocount, reserved;
    uint64_t serve_tick, atomic_tick, last_ready, stall_since;
    int serve_pending, out_pending, kicking, stalled;
    cm_stat *st_acc, *st_miss, *st_merge, *st_wb, *st_atom, *st_hol;
    cm_stat *st_qocc, *st_qwait, *st_mocc, *st_mlife;
} l2_bank;

struct cm_l2 {
    cm_l2_config cfg;
    cm_engine *eng;
    cm_noc *noc;
    cm_dram *dram;
    l2_bank *bank;
    uint64_t sets;
    uint32_t map_mask, out_cap;
    const cm_proto_row *row[CM_L2S_COUNT][CM_L2E_COUNT];
};

#define NO_MSHR UINT32_MAX

/* ---- tags ---------------------------------------------------------------- */

static l2_way *set_of(const cm_l2 *l2, const l2_bank *b, uint64_t line,
                      uint32_t **fill)
{
    /* line mod banks chose the bank; the set comes from the bits above. */
    uint64_t set = (line / l2->cfg.banks) % l2->sets;
    *fill = &b->fill[set];
    return b->tags + set * l2->cfg.ways;
}

/* The way holding line, moved to the front (LRU), or NULL. */
static l2_way *tag_touch(cm_l2 *l2, l2_bank *b, uint64_t line)
{
    uint32_t *fill;
    l2_way *t = set_of(l2, b, line, &fill);
    for (uint32_t i = 0; i < *fill; i++) {
        if (t[i].line != line) continue;
        l2_way w = t[i];
        memmove(t + 1, t, i * sizeof *t);
        t[0] = w;
        return t;
    }
    return NULL;
}

static const l2_way *tag_find(const cm_l2 *l2, const l2_bank *b, uint64_t line)
{
    uint32_t *fill;
    const l2_way *t = set_of(l2, b, line, &fill);
    for (uint32_t i = 0; i < *fill; i++)
        if (t[i].line == line) return &t[i];
    return NULL;
}

/* Installs line (absent) at the front; *victim gets the evicted way, if
 * any (returns 1). */
static int tag_install(cm_l2 *l2, l2_bank *b, uint64_t line, int dirty,
                       l2_way *victim)
{
    uint32_t *fill;
    l2_way *t = set_of(l2, b, line, &fill);
    int evicted = *fill == l2->cfg.ways;
    if (evicted)
        *victim = t[*fill - 1];
    else
        ++*fill;
    memmove(t + 1, t, (*fill - 1) * sizeof *t);
    t[0] = (l2_way){line, (uint8_t)dirty};
    return evicted;
}

static l2_mshr *map_find(const cm_l2 *l2, const l2_bank *b, uint64_t line);

void cm_l2_warm(cm_l2 *l2, uint64_t line, int write)
{
    l2_bank *b = &l2->bank[line % l2->cfg.banks];
    if (map_find(l2, b, line)) return; /* its fill will install it */
    l2_way *w = tag_touch(l2, b, line), victim;
    if (w)
        w->dirty |= (uint8_t)(write != 0);
    else
        tag_install(l2, b, line, write, &victim);
}

/* ---- the MSHR map ------------------------------------------------------- */

static uint32_t hash(uint64_t line, uint32_t mask)
{
    return (uint32_t)((line * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static l2_mshr *map_find(const cm_l2 *l2, const l2_bank *b, uint64_t line)
{
    uint32_t m = l2->map_mask;
    for (uint32_t i = hash(line, m); b->map[i] >= 0; i = (i + 1) & m)
        if (b->mshr[b->map[i]].line == line) return &b->mshr[b->map[i]];
    return NULL;
}

static void map_insert(const cm_l2 *l2, l2_bank *b, uint32_t idx)
{
    uint32_t m = l2->map_mask, i = hash(b->mshr[idx].line, m);
    while (b->map[i] >= 0) i = (i + 1) & m;
    b->map[i] = (int32_t)idx;
}

static void map_remove(const cm_l2 *l2, l2_bank *b, uint64_t line)
{
    uint32_t m = l2->map_mask, i = hash(line, m);
    while (b->mshr[b->map[i]].line != line) i = (i + 1) & m;
    /* Backward shift: pull later entries of the probe run into the hole
     * unless their home lies cyclically in (hole, slot]. */
    for (uint32_t j = (i + 1) & m; b->map[j] >= 0; j = (j + 1) & m) {
        uint32_t k = hash(b->mshr[b->map[j]].line, m);
        int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (stays) continue;
        b->map[i] = b->map[j];
        i = j;
    }
    b->map[i] = -1;
}

/* ---- MSHRs ------------------------------------------------------------- */

static l2_mshr *mshr_alloc(cm_l2 *l2, l2_bank *b, uint64_t line)
{
    uint32_t idx = b->free_mshr;
    l2_mshr *e = &b->mshr[idx];
    b->free_mshr = e->next_free;
    b->nfree--;
    e->line = line;
    e->since = l2->eng->now;
    e->n = 0;
    e->dirty = 0;
    cm_stat_level(b->st_mocc, l2->cfg.mshrs - b->nfree, l2->eng->now);
    return e;
}

static void mshr_release(cm_l2 *l2, l2_bank *b, l2_mshr *e)
{
    cm_stat_sample(b->st_mlife, (double)(l2->eng->now - e->since));
    e->state = MS_FREE;
    e->next_free = b->free_mshr;
    b->free_mshr = (uint32_t)(e - b->mshr);
    b->nfree++;
    cm_stat_level(b->st_mocc, l2->cfg.mshrs - b->nfree, l2->eng->now);
}

static void todram_push(cm_l2 *l2, l2_bank *b, l2_mshr *e)
{
    uint32_t t = b->dhead + b->dcount++;
    b->todram[t >= l2->cfg.mshrs ? t - l2->cfg.mshrs : t] =
        (uint32_t)(e - b->mshr);
}

static void kick(l2_bank *b);

/* Sends the DRAM FIFO's entries in order while the channel takes them. */
static void drain_todram(l2_bank *b)
{
    cm_l2 *l2 = b->l2;
    int released = 0;
    while (b->dcount) {
        l2_mshr *e = &b->mshr[b->todram[b->dhead]];
        cm_dram_req q = {e->line, e, b->id, e->state == MS_WB};
        if (cm_dram_send(l2->dram, b->ch, &q) != CM_SINK_OK) break;
        if (++b->dhead == l2->cfg.mshrs) b->dhead = 0;
        b->dcount--;
        if (e->state == MS_WB) {
            mshr_release(l2, b, e);
            released = 1;
        } else {
            e->state = MS_READ;
        }
    }
    if (released) kick(b);
}

static void dram_ready(void *obj)
{
    drain_todram(obj);
}

/* A victim: the REPLACE row; a dirty one is written back through an MSHR
 * entry (e, or a spare one the caller reserved). */
static void replace(cm_l2 *l2, l2_bank *b, const l2_way *v, l2_mshr *e)
{
    const cm_proto_row *row =
        l2->row[v->dirty ? CM_L2S_M : CM_L2S_V][CM_L2E_REPLACE];
    if (!(row->actions & CM_ACT_SEND)) {
        if (e) mshr_release(l2, b, e);
        return;
    }
    if (!e) e = mshr_alloc(l2, b, v->line);
    e->line = v->line;
    e->state = MS_WB;
    cm_stat_add(b->st_wb, 1);
    todram_push(l2, b, e);
}

/* ---- replies ----------------------------------------------------------- */

static void out_ev(cm_engine *eng, void *obj, uint64_t arg);

/* Sends ready replies in order while the reply network takes them. */
static void out_kick(l2_bank *b)
{
    cm_l2 *l2 = b->l2;
    int freed = 0;
    if (b->out_pending) return;
    while (b->ocount) {
        l2_reply *h = &b->out[b->ohead];
        if (h->ready > l2->eng->now) {
            b->out_pending = 1;
            cm_engine_schedule_at(l2->eng, h->ready, out_ev, b, 0);
            break;
        }
        if (cm_noc_send_reply(l2->noc, b->id, h->r) != CM_SINK_OK) break;
        if (++b->ohead == l2->out_cap) b->ohead = 0;
        b->ocount--;
        b->reserved--;
        freed = 1;
    }
    if (freed && b->stalled) kick(b);
}

static void out_ev(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)eng;
    (void)arg;
    l2_bank *b = obj;
    b->out_pending = 0;
    out_kick(b);
}

static void noc_ready(void *obj)
{
    out_kick(obj);
}

/* Queues r's reply (its slot was reserved when r was served). */
static void reply(cm_l2 *l2, l2_bank *b, cm_mreq *r, unsigned msg)
{
    uint64_t now = l2->eng->now, ready = now + l2->cfg.pipe;
    if (r->msg == CM_MSG_ATOMIC) {
        cm_ratio a = l2->cfg.atomic;
        uint64_t start = ready * a.den;
        if (start < b->atomic_tick) start = b->atomic_tick;
        b->atomic_tick = start + a.num;
        ready = cm_ratio_ceil(b->atomic_tick, a);
        cm_stat_add(b->st_atom, 1);
    }
    /* Replies leave in bank order (point-to-point ordering). */
    if (ready < b->last_ready) ready = b->last_ready;
    b->last_ready = ready;
    r->msg = (uint8_t)msg;
    uint32_t t = b->ohead + b->ocount++;
    b->out[t >= l2->out_cap ? t - l2->out_cap : t] = (l2_reply){r, ready};
    out_kick(b);
}

static unsigned reply_msg(const cm_mreq *r)
{
    return r->msg == CM_MSG_WRITE ? CM_MSG_ACK : CM_MSG_DATA;
}

/* ---- serving the queue -------------------------------------------------- */

static unsigned state_of(const cm_l2 *l2, const l2_bank *b, uint64_t line)
{
    const l2_mshr *e = map_find(l2, b, line);
    if (e) return e->dirty ? CM_L2S_IM : CM_L2S_IV;
    const l2_way *w = tag_find(l2, b, line);
    if (w) return w->dirty ? CM_L2S_M : CM_L2S_V;
    return CM_L2S_I;
}

static const cm_proto_row *find_row(cm_l2 *l2, unsigned s, unsigned ev)
{
    const cm_proto_row *row = l2->row[s][ev];
    if (!row)
        cm_err_set(&l2->eng->err, CM_EINTERNAL,
                   "L2 table (baseline): no row for state %s, event %s",
                   state_names[s], event_names[ev]);
    return row;
}

/* Serves r, the queue head: 1, or 0 when it must wait for a resource (or
 * the table has no row: the engine's sticky error then stops the run). */
static int serve(l2_bank *b, cm_mreq *r)
{
    cm_l2 *l2 = b->l2;
    unsigned ev;
    switch (r->msg) {
    case CM_MSG_GETS:
        ev = CM_L2E_GETS;
        break;
    case CM_MSG_WRITE:
        ev = r->bytes >= l2->cfg.line_bytes ? CM_L2E_WRITE_FULL : CM_L2E_WRITE;
        break;
    case CM_MSG_ATOMIC:
        ev = CM_L2E_ATOMIC;
        break;
    default:
        cm_err_set(&l2->eng->err, CM_EINTERNAL,
                   "L2 bank %u: request %llu carries message %u, not a "
                   "request",
                   b->id, (unsigned long long)r->id, (unsigned)r->msg);
        return 0;
    }
    unsigned s = state_of(l2, b, r->line);
    const cm_proto_row *row = find_row(l2, s, ev);
    if (!row) return 0;
    /* Resources first, so a blocked head changes nothing. */
    l2_mshr *e = NULL;
    if (b->reserved == l2->out_cap) return 0;
    if (row->actions & CM_ACT_MSHR) {
        e = map_find(l2, b, r->line);
        if (e ? e->n == l2->cfg.merge : !b->nfree) return 0;
    }
    /* A line allocated without a fetch may evict a dirty victim, whose
     * write-back needs an MSHR entry. */
    if ((row->actions & CM_ACT_ALLOCATE) && !b->nfree) return 0;

    b->reserved++;
    cm_stat_add(b->st_acc, 1);
    if (s != CM_L2S_V && s != CM_L2S_M) cm_stat_add(b->st_miss, 1);
    if (row->actions & CM_ACT_HIT) {
        l2_way *w = tag_touch(l2, b, r->line);
        if (row->next == CM_L2S_M) w->dirty = 1;
        reply(l2, b, r, row->msg);
    } else if (row->actions & CM_ACT_MSHR) {
        if (e) {
            cm_stat_add(b->st_merge, 1);
        } else {
            e = mshr_alloc(l2, b, r->line);
            e->state = MS_READ_WAIT;
            map_insert(l2, b, (uint32_t)(e - b->mshr));
            todram_push(l2, b, e);
        }
        e->reqs[e->n++] = r;
        if (row->next == CM_L2S_IM) e->dirty = 1;
        drain_todram(b);
    } else if (row->actions & CM_ACT_ALLOCATE) {
        l2_way v;
        if (tag_install(l2, b, r->line, row->next == CM_L2S_M, &v))
            replace(l2, b, &v, NULL);
        reply(l2, b, r, row->msg);
        drain_todram(b);
    }
    return 1;
}

static void serve_ev(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)eng;
    (void)arg;
    l2_bank *b = obj;
    b->serve_pending = 0;
    kick(b);
}

/* Serves queue heads, one per L2 cycle, until the queue empties, the next
 * slot lies ahead (an event is set) or the head blocks. */
static void kick(l2_bank *b)
{
    cm_l2 *l2 = b->l2;
    cm_ratio sv = l2->cfg.service;
    if (b->kicking || b->serve_pending) return;
    b->kicking = 1;
    while (b->qcount) {
        uint64_t now = l2->eng->now;
        if (now < b->serve_tick / sv.den) {
            b->serve_pending = 1;
            cm_engine_schedule_at(l2->eng, b->serve_tick / sv.den, serve_ev, b,
                                  0);
            break;
        }
        cm_mreq *r = b->q[b->qhead];
        if (!serve(b, r)) {
            if (!b->stalled) {
                b->stalled = 1;
                b->stall_since = now;
            }
            break;
        }
        if (b->stalled) {
            cm_stat_add(b->st_hol, (double)(now - b->stall_since));
            b->stalled = 0;
        }
        cm_stat_sample(b->st_qwait, (double)(now - b->q_since[b->qhead]));
        if (++b->qhead == l2->cfg.queue) b->qhead = 0;
        b->qcount--;
        cm_stat_level(b->st_qocc, b->qcount, now);
        uint64_t start = now * sv.den;
        if (start < b->serve_tick) start = b->serve_tick;
        b->serve_tick = start + sv.num;
        cm_noc_release_req(l2->noc, b->id);
    }
    b->kicking = 0;
}

void cm_l2_accept(cm_l2 *l2, unsigned bank, cm_mreq *r)
{
    l2_bank *b = &l2->bank[bank];
    uint32_t t = b->qhead + b->qcount;
    if (t >= l2->cfg.queue) t -= l2->cfg.queue;
    b->q[t] = r;
    b->q_since[t] = l2->eng->now;
    b->qcount++;
    cm_stat_level(b->st_qocc, b->qcount, l2->eng->now);
    kick(b);
}

void cm_l2_dram_done(cm_l2 *l2, const cm_dram_req *q)
{
    if (q->write) return; /* a write-back left its MSHR when queued */
    l2_bank *b = &l2->bank[q->src];
    l2_mshr *e = q->ctx;
    const cm_proto_row *row =
        find_row(l2, e->dirty ? CM_L2S_IM : CM_L2S_IV, CM_L2E_FILL);
    if (!row) return;
    map_remove(l2, b, e->line);
    l2_way v;
    int evicted = tag_install(l2, b, e->line, row->next == CM_L2S_M, &v);
    for (uint32_t k = 0; k < e->n; k++)
        reply(l2, b, e->reqs[k], reply_msg(e->reqs[k]));
    if (evicted)
        replace(l2, b, &v, e); /* e holds a write-back or is released */
    else
        mshr_release(l2, b, e);
    drain_todram(b);
    kick(b);
}

/* ---- setup ------------------------------------------------------------ */

size_t cm_l2_events(const cm_l2_config *cfg)
{
    return 2 * (size_t)cfg->banks;
}

uint64_t cm_l2_inside(const cm_l2 *l2)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < l2->cfg.banks; i++)
        n += l2->bank[i].qcount + l2->bank[i].reserved;
    return n;
}

unsigned cm_l2_line_state(const cm_l2 *l2, uint64_t line)
{
    return state_of(l2, &l2->bank[line % l2->cfg.banks], line);
}

static cm_status bank_stats(l2_bank *b, cm_stats *st, cm_err *err)
{
    const cm_l2_config *c = &b->l2->cfg;
    char comp[32];
    snprintf(comp, sizeof comp, "bank%u", b->id);
    cm_status s = cm_stats_counter(st, "l2.accesses", comp, &b->st_acc, err);
    if (!s) s = cm_stats_counter(st, "l2.misses", comp, &b->st_miss, err);
    if (!s)
        s = cm_stats_ratio(st, "l2.miss_ratio", comp, b->st_miss, b->st_acc,
                           err);
    if (!s) s = cm_stats_counter(st, "l2.mshr.merges", comp, &b->st_merge, err);
    if (!s) s = cm_stats_counter(st, "l2.writebacks", comp, &b->st_wb, err);
    if (!s) s = cm_stats_counter(st, "l2.atomics", comp, &b->st_atom, err);
    if (!s)
        s = cm_stats_counter(st, "l2.hol_stall_cycles", comp, &b->st_hol, err);
    if (!s)
        s = cm_stats_occupancy(st, "l2.queue.occupancy", comp, c->queue,
                               "l2.queue.full_fraction", &b->st_qocc, err);
    if (!s)
        s = cm_stats_latency(st, "l2.queue.wait", comp, 32, 0, &b->st_qwait,
                             err);
    if (!s)
        s = cm_stats_occupancy(st, "l2.mshr.occupancy", comp, c->mshrs,
                               "l2.mshr.full_fraction", &b->st_mocc, err);
    if (!s)
        s = cm_stats_latency(st, "l2.mshr.lifetime", comp, 32, 0, &b->st_mlife,
                             err);
    return s;
}

static cm_status bank_init(cm_l2 *l2, l2_bank *b, unsigned id, cm_err *err)
{
    const cm_l2_config *c = &l2->cfg;
    b->l2 = l2;
    b->id = id;
    b->ch = id % c->channels;
    b->tags = malloc(l2->sets * c->ways * sizeof *b->tags);
    b->fill = calloc(l2->sets, sizeof *b->fill);
    b->q = malloc(c->queue * sizeof *b->q);
    b->q_since = malloc(c->queue * sizeof *b->q_since);
    b->mshr = calloc(c->mshrs, sizeof *b->mshr);
    b->map = malloc(((size_t)l2->map_mask + 1) * sizeof *b->map);
    b->todram = malloc(c->mshrs * sizeof *b->todram);
    b->out = malloc(l2->out_cap * sizeof *b->out);
    if (!b->tags || !b->fill || !b->q || !b->q_since || !b->mshr || !b->map ||
        !b->todram || !b->out)
        return cm_err_set(err, CM_EINTERNAL, "out of memory for L2 bank %u",
                          id);
    for (uint32_t k = 0; k < c->mshrs; k++) {
        b->mshr[k].reqs = malloc(c->merge * sizeof *b->mshr[k].reqs);
        if (!b->mshr[k].reqs)
            return cm_err_set(err, CM_EINTERNAL, "out of memory for L2 bank %u",
                              id);
        b->mshr[k].next_free = k + 1 < c->mshrs ? k + 1 : NO_MSHR;
    }
    b->nfree = c->mshrs;
    memset(b->map, 0xff, ((size_t)l2->map_mask + 1) * sizeof *b->map);
    return CM_OK;
}

cm_status cm_l2_new(const cm_l2_config *cfg, cm_engine *eng, cm_stats *stats,
                    cm_noc *noc, cm_dram *dram, cm_l2 **out, cm_err *err)
{
    *out = NULL;
    if (!cfg->banks || !cfg->channels || !cfg->ways || !cfg->line_bytes ||
        !cfg->queue || !cfg->mshrs || !cfg->merge || !cfg->service.num ||
        !cfg->service.den || !cfg->atomic.num || !cfg->atomic.den)
        return cm_err_set(err, CM_EINPUT, "L2: incomplete configuration");
    if (cfg->bank_bytes % (cfg->ways * cfg->line_bytes) != 0 ||
        cfg->bank_bytes < cfg->ways * cfg->line_bytes)
        return cm_err_set(err, CM_EINPUT,
                          "l2.bank_size %llu is not a positive multiple of "
                          "l2.ways x l2.line = %llu x %llu",
                          (unsigned long long)cfg->bank_bytes,
                          (unsigned long long)cfg->ways,
                          (unsigned long long)cfg->line_bytes);
    cm_l2 *l2 = calloc(1, sizeof *l2);
    if (!l2) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    l2->cfg = *cfg;
    l2->eng = eng;
    l2->noc = noc;
    l2->dram = dram;
    l2->sets = cfg->bank_bytes / (cfg->ways * cfg->line_bytes);
    uint32_t m = 1;
    while (m < 2 * cfg->mshrs) m <<= 1;
    l2->map_mask = m - 1;
    /* Room for every request an MSHR can hold plus the hits in the
     * pipeline at full rate: the reply FIFO throttles only when the reply
     * network backs up. */
    l2->out_cap =
        cfg->mshrs * cfg->merge + cfg->queue + 2 +
        (uint32_t)((cfg->pipe + 2) * cfg->service.den / cfg->service.num);
    for (size_t i = 0; i < baseline.nrows; i++)
        l2->row[rows[i].state][rows[i].event] = &rows[i];
    l2->bank = calloc(cfg->banks, sizeof *l2->bank);
    cm_status st =
        l2->bank ? CM_OK : cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (unsigned i = 0; !st && i < cfg->banks; i++) {
        st = bank_init(l2, &l2->bank[i], i, err);
        if (!st) st = bank_stats(&l2->bank[i], stats, err);
        if (!st) {
            cm_noc_set_reply_retry(noc, i, (cm_retry){noc_ready, &l2->bank[i]});
            cm_dram_set_retry(dram, i, (cm_retry){dram_ready, &l2->bank[i]});
        }
    }
    if (st) {
        cm_l2_free(l2);
        return st;
    }
    *out = l2;
    return CM_OK;
}

void cm_l2_free(cm_l2 *l2)
{
    if (!l2) return;
    for (unsigned i = 0; l2->bank && i < l2->cfg.banks; i++) {
        l2_bank *b = &l2->bank[i];
        for (uint32_t k = 0; b->mshr && k < l2->cfg.mshrs; k++)
            free(b->mshr[k].reqs);
        free(b->tags);
        free(b->fill);
        free(b->q);
        free(b->q_since);
        free(b->mshr);
        free(b->map);
        free(b->todram);
        free(b->out);
    }
    free(l2->bank);
    free(l2);
}
