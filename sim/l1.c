/* l1.c - the L1 data cache of one SM (see l1.h): the timed controller.
 * The functional one (warming, traffic injection) is sim/l1_warm.c; both
 * run the same rows through the helpers of sim/l1_impl.h.
 *
 * Each access, reply and forward derives the line's state, refines the
 * event by the conditions the tables name (last reply, stale or expired
 * fill), finds the row (indexed once at setup) and executes its actions
 * in the fixed order of protocol.h.  Resource checks and the send of a
 * request come first, so a refused access leaves nothing changed.
 * Everything is sized at cm_l1_new: the run loop allocates nothing. */
#include "sim/l1_impl.h"

#include <stdlib.h>
#include <string.h>

void cm_l1_config_params(cm_l1_config *cfg, const cm_params *p)
{
    cfg->size = (uint64_t)p->l1_size;
    cfg->ways = (uint64_t)p->l1_ways;
    cfg->line = (uint64_t)p->l1_line;
    cfg->policy = cm_repl_at((size_t)p->l1_policy);
    cfg->seed = (uint64_t)p->sim_seed;
    cfg->mshrs = (uint32_t)p->l1_mshrs;
    cfg->mshr_merge = (uint32_t)p->l1_mshr_merge;
    cfg->hit_latency = (uint64_t)p->l1_hit_latency;
}

/* ---- errors and rows ----------------------------------------------------- */

void l1_fail(cm_l1 *l1, const char *what, unsigned state, unsigned event)
{
    if (l1->err.code == CM_OK)
        cm_err_set(&l1->err, CM_EINTERNAL,
                   "protocol %s, L1 of sm%u: %s (state %s, event %s)",
                   l1->cfg.proto->name, (unsigned)l1->cfg.sm, what,
                   state < CM_L1S_COUNT ? cm_l1_state_names[state] : "?",
                   event < CM_L1E_COUNT ? cm_l1_event_names[event] : "?");
    cm_engine_stop(l1->eng);
}

const cm_proto_row *l1_row(cm_l1 *l1, unsigned state, unsigned event)
{
    const cm_proto_row *r = l1->rowix[state][event];
    if (!r) l1_fail(l1, "the table has no row", state, event);
    return r;
}

unsigned l1_event_of(uint8_t op)
{
    return op == CM_OP_LOAD    ? CM_L1E_LOAD
           : op == CM_OP_STORE ? CM_L1E_STORE
                               : CM_L1E_ATOMIC;
}

/* ---- tags ------------------------------------------------------------------ */

l1_way *l1_way_find(const cm_l1 *l1, uint64_t line)
{
    l1_way *set = &l1->ways[l1_set_of(l1, line) * l1->nways];
    for (uint32_t i = 0; i < l1->nways; i++)
        if (set[i].state != CM_L1S_I && set[i].line == line) return &set[i];
    return NULL;
}

int l1_expired(const cm_l1 *l1, const l1_way *w, uint64_t now)
{
    return l1->timestamps && w->state == CM_L1S_V && now > w->lt;
}

void l1_touch(cm_l1 *l1, l1_way *w, uint32_t warp)
{
    cm_repl_ctx a = {.warp = warp, .now = cm_engine_now(l1->eng)};
    l1->repl->hit(&l1->rs, &w->meta, &a);
}

/* The fill's timestamp outcome (tc.outcome.*), decided at its first load
 * or when it leaves: loaded before expiry (hit), loaded after (expired),
 * gone before expiry (evicted), gone after (unused). */
void l1_outcome(cm_l1 *l1, l1_way *w, int loaded, uint64_t now)
{
    if (!w->open) return;
    w->open = 0;
    if (!l1->timestamps || !l1->timed) return;
    int valid = now <= w->lt;
    cm_stat_add(l1->st_out[loaded ? (valid ? 0 : 1) : (valid ? 2 : 3)], 1);
}

static void unpin(cm_l1 *l1, l1_way *w)
{
    if (!w->pinned) return;
    w->pinned = 0;
    l1->pinned[(w - l1->ways) / l1->nways]--;
}

void l1_pin(cm_l1 *l1, l1_ent *e, l1_way *w)
{
    e->way = (int32_t)(w - l1->ways);
    if (w->pinned) return;
    w->pinned = 1;
    l1->pinned[e->way / l1->nways]++;
}

/* The copy leaves the tags (capacity: as a fill's victim). */
void l1_leave(cm_l1 *l1, l1_way *w, int capacity, uint64_t now)
{
    l1_outcome(l1, w, 0, now);
    if (l1->timed && l1->cfg.obs && l1->cfg.obs->l1_leave)
        l1->cfg.obs->l1_leave(l1->cfg.obs->obj, l1->cfg.sm,
                              (int32_t)(w - l1->ways), capacity, now);
    if (w->pinned) {
        l1_ent *e = l1_ent_find(l1, w->line);
        if (e) e->way = -1;
        unpin(l1, w);
    }
    w->state = CM_L1S_I;
    w->dirty = 0;
}

/* A way for line's fill in its set: an invalid one, else the policy's
 * victim (sim/repl.h) among those without an entry; NULL if every way
 * waits. */
l1_way *l1_victim(cm_l1 *l1, uint64_t line)
{
    l1_way *set = &l1->ways[l1_set_of(l1, line) * l1->nways];
    const cm_repl_meta **cand = l1->vcand;
    l1_way **way = l1->vway;
    size_t n = 0;
    for (uint32_t i = 0; i < l1->nways; i++) {
        if (set[i].state == CM_L1S_I) return &set[i];
        if (set[i].pinned) continue;
        cand[n] = &set[i].meta;
        way[n++] = &set[i];
    }
    return n ? way[l1->repl->victim(&l1->rs, cand, n)] : NULL;
}

/* ---- MSHR entries ---------------------------------------------------------- */

static uint64_t hash_of(const cm_l1 *l1, uint64_t line)
{
    return (line * 0x9E3779B97F4A7C15ull) >> 32 & l1->bucket_mask;
}

l1_ent *l1_ent_find(const cm_l1 *l1, uint64_t line)
{
    for (int32_t i = l1->bucket[hash_of(l1, line)]; i >= 0;
         i = l1->ent[i].hnext)
        if (l1->ent[i].line == line) return &l1->ent[i];
    return NULL;
}

l1_ent *l1_ent_new(cm_l1 *l1, uint64_t line, uint8_t state, l1_way *way)
{
    if (!l1->nfree) return NULL;
    l1_ent *e = &l1->ent[l1->free_stack[--l1->nfree]];
    l1_waiter *w = e->w;
    memset(e, 0, sizeof *e);
    e->w = w;
    e->line = line;
    e->state = state;
    e->used = 1;
    e->way = -1;
    uint64_t h = hash_of(l1, line);
    e->hnext = l1->bucket[h];
    l1->bucket[h] = (int32_t)(e - l1->ent);
    if (way) l1_pin(l1, e, way);
    return e;
}

/* An entry or a way came free, or a reply changed an entry: a refused
 * access may now pass. */
void l1_note_freed(cm_l1 *l1)
{
    l1->freed_gen++;
    if (!l1->refused) return;
    l1->refused = 0;
    if (l1->cfg.freed.ready) l1->cfg.freed.ready(l1->cfg.freed.obj);
}

static void ent_release(cm_l1 *l1, l1_ent *e)
{
    int32_t idx = (int32_t)(e - l1->ent), *p = &l1->bucket[hash_of(l1, e->line)];
    while (*p != idx) p = &l1->ent[*p].hnext;
    *p = e->hnext;
    if (e->way >= 0) unpin(l1, &l1->ways[e->way]);
    if (e->reserved) l1->reserved[l1_set_of(l1, e->line)]--;
    e->reserved = 0;
    e->used = 0;
    l1->free_stack[l1->nfree++] = (uint32_t)idx;
    l1_note_freed(l1);
}

/* After a row: the entry takes its next state (or leaves when idle), and
 * holds a reservation of a way exactly while it waits for a fill of a
 * line without a way (one is taken when the set has room; a fill without
 * one may still find a way, or is used without installing). */
void l1_ent_settle(cm_l1 *l1, l1_ent *e, unsigned next)
{
    if (cm_l1_state_transient(next)) e->state = (uint8_t)next;
    if (!e->pending && !e->nwait) {
        ent_release(l1, e);
        return;
    }
    uint64_t set = l1_set_of(l1, e->line);
    int want = cm_l1_state_fills(e->state) && e->way < 0;
    if (want && !e->reserved &&
        l1->reserved[set] + l1->pinned[set] < l1->nways) {
        e->reserved = 1;
        l1->reserved[set]++;
    } else if (!want && e->reserved) {
        e->reserved = 0;
        l1->reserved[set]--;
        l1_note_freed(l1);
    }
}

/* ---- messages -------------------------------------------------------------- */

static void outbox_drain(cm_l1 *l1)
{
    while (l1->obn) {
        if (cm_sink_send(&l1->cfg.out, l1->outbox[l1->obh]) != CM_SINK_OK) {
            l1->blocked = 1;
            return;
        }
        if (++l1->obh == l1->obcap) l1->obh = 0;
        l1->obn--;
    }
}

/* An answer (INVACK, WB, NODATA, PUT) leaves through the outbox. */
void l1_answer(cm_l1 *l1, cm_mreq *m)
{
    uint32_t t = l1->obh + l1->obn++;
    l1->outbox[t >= l1->obcap ? t - l1->obcap : t] = m;
    if (l1->obn == 1) outbox_drain(l1);
}

/* A PUT (or any answer that answers nothing) for the copy in w. */
static void answer_new(cm_l1 *l1, unsigned msg, const l1_way *w)
{
    cm_mreq *m = cm_pool_get(l1->cfg.pool);
    if (!m) {
        l1_fail(l1, "the message pool is empty", w->state, CM_L1E_REPLACE);
        return;
    }
    *m = (cm_mreq){.line = w->line,
                   .id = (uint64_t)l1->cfg.sm << 40 | l1->next_id++,
                   .sm = l1->cfg.sm,
                   .value = w->value,
                   .msg = (uint8_t)msg,
                   .flags = w->dirty ? CM_MF_DIRTY : 0};
    l1_answer(l1, m);
}

/* The victim's REPLACE row (MESI: a PUT for E and M); 0 if the table has
 * none (an internal error is set). */
int l1_replace(cm_l1 *l1, l1_way *w, uint64_t now)
{
    const cm_proto_row *r = l1_row(l1, w->state, CM_L1E_REPLACE);
    if (!r) return 0;
    if ((r->actions & CM_A1_SEND) && l1->timed)
        answer_new(l1, r->msg, w);
    else if (r->actions & CM_A1_SEND)
        l1_warm_answer(l1, r->msg, w);
    l1->n.evictions++;
    if (l1->timed) cm_stat_add(l1->st_evict, 1);
    l1_leave(l1, w, 1, now);
    return 1;
}

/* Installs reply m's line in state `state`: the line's own way, an
 * invalid one, or the victim's (whose REPLACE row runs); NULL when every
 * way of the set waits (then the line is used without installing). */
l1_way *l1_install(cm_l1 *l1, const cm_mreq *m, unsigned state, uint64_t now)
{
    l1_way *w = l1_way_find(l1, m->line);
    if (w && !cm_msg_carries_line(m->msg, 1)) { /* a grant without data */
        w->state = (uint8_t)state;
        l1_touch(l1, w, m->warp);
        return w;
    }
    if (w) {
        l1_leave(l1, w, 0, now); /* refilled in place: a new fill */
    } else {
        w = l1_victim(l1, m->line);
        if (!w) return NULL;
        if (w->state != CM_L1S_I && !l1_replace(l1, w, now)) return NULL;
    }
    w->line = m->line;
    w->value = m->value;
    w->dirty = 0;
    w->lt = m->ts;
    w->state = (uint8_t)state;
    cm_repl_ctx a = {.warp = m->warp, .now = now};
    l1->repl->insert(&l1->rs, &w->meta, &a);
    w->open = (uint8_t)l1->timed; /* a warmed copy's outcome is not counted */
    if (l1->timed && l1->cfg.obs && l1->cfg.obs->l1_fill)
        l1->cfg.obs->l1_fill(l1->cfg.obs->obj, l1->cfg.sm,
                             (int32_t)(w - l1->ways), m, now);
    return w;
}

/* ---- accesses -------------------------------------------------------------- */

static void hit_done(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)eng;
    cm_l1 *l1 = obj;
    l1->cfg.done(l1->cfg.done_obj, (uint32_t)(arg >> 8), (uint8_t)arg, 0);
}

void l1_value(cm_l1 *l1, uint32_t warp, uint64_t line, uint64_t value)
{
    if (l1->timed && l1->cfg.obs && l1->cfg.obs->value)
        l1->cfg.obs->value(l1->cfg.obs->obj, l1->cfg.sm, warp, line, value);
}

static cm_l1_result refuse(cm_l1 *l1, cm_l1_result why)
{
    cm_l1_count_fails(l1, why, 1);
    l1->refused = 1;
    return why;
}

/* The request a row sends, built before anything changes; NULL with
 * *why set when it cannot go now. */
static cm_mreq *request_make(cm_l1 *l1, const cm_proto_row *r, const l1_ent *e,
                             const l1_way *way, uint64_t line, uint8_t op,
                             uint32_t warp, uint16_t bytes, uint64_t value,
                             cm_l1_result *why)
{
    cm_mreq *q = cm_pool_get(l1->cfg.pool);
    if (!q) {
        l1_fail(l1, "the message pool is empty (size it for every MSHR)",
                e ? e->state : CM_L1S_I, l1_event_of(op));
        *why = CM_L1_ERROR;
        return NULL;
    }
    uint64_t now = cm_engine_now(l1->eng);
    uint32_t seq = e ? e->gets_seq : 0;
    if (r->msg == CM_MSG_GETS || l1->cfg.proto->l1_write_back) seq++;
    *q = (cm_mreq){.line = line,
                   .id = (uint64_t)l1->cfg.sm << 40 | l1->next_id,
                   .issue_cycle = now,
                   .value = value,
                   .ts = (r->msg == CM_MSG_UPGR && way) ? way->lt : 0,
                   .sm = l1->cfg.sm,
                   .warp = warp,
                   .seq = seq,
                   /* a write-back L1 keeps the store data */
                   .bytes = l1->cfg.proto->l1_write_back ? 0 : bytes,
                   .op = op,
                   .msg = r->msg};
    if (way && op == CM_OP_LOAD && l1_expired(l1, way, now))
        q->flags |= CM_MF_EXPIRED_MISS;
    if (cm_sink_send(&l1->cfg.out, q) != CM_SINK_OK) {
        cm_pool_put(l1->cfg.pool, q);
        l1->blocked = 1;
        l1->n.busy++;
        *why = CM_L1_BUSY;
        return NULL;
    }
    l1->next_id++;
    return q;
}

/* Whether the row may run now; the refusal's reason if not. */
static cm_l1_result access_room(cm_l1 *l1, const cm_proto_row *r,
                                const l1_ent *e, const l1_way *way,
                                uint64_t line)
{
    uint32_t a = r->actions;
    if (a & CM_A1_STALL) return CM_L1_STALL;
    if ((a & CM_A1_ENTRY) && !e && !l1->nfree) return CM_L1_FAIL_MSHR;
    if ((a & CM_A1_MERGE) && e && e->nwait >= l1->cfg.mshr_merge)
        return CM_L1_FAIL_MERGE;
    if ((a & CM_A1_SEND) && cm_msg_kind_of(r->msg) == CM_MK_REQUEST &&
        l1->inflight >= l1->cfg.mshrs)
        return CM_L1_FAIL_MSHR;
    uint64_t set = l1_set_of(l1, line);
    if (cm_l1_state_fills(r->next) && !way && !(e && e->reserved) &&
        l1->reserved[set] + l1->pinned[set] >= l1->nways)
        return CM_L1_FAIL_LINE;
    return CM_L1_OK;
}

cm_l1_result cm_l1_access(cm_l1 *l1, uint64_t line, uint8_t op, uint32_t warp,
                          uint16_t bytes, uint64_t value)
{
    if (l1->err.code != CM_OK) return CM_L1_ERROR;
    if (op != CM_OP_LOAD && op != CM_OP_STORE && op != CM_OP_ATOMIC) {
        l1_fail(l1, "not a load, store or atomic", CM_L1S_I, CM_L1E_COUNT);
        return CM_L1_ERROR;
    }
    uint64_t now = cm_engine_now(l1->eng);
    unsigned ev = l1_event_of(op);
    l1_ent *e = l1_ent_find(l1, line);
    l1_way *way = l1_way_find(l1, line);
    int expired = way && l1_expired(l1, way, now);
    unsigned st = e ? e->state : way && !expired ? way->state : CM_L1S_I;
    const cm_proto_row *r = l1_row(l1, st, ev);
    if (!r) return CM_L1_ERROR;
    uint32_t a = r->actions;
    cm_l1_result why = access_room(l1, r, e, way, line);
    if (why != CM_L1_OK) return refuse(l1, why);
    int request = (a & CM_A1_SEND) &&
                  cm_msg_kind_of(r->msg) == CM_MK_REQUEST;
    cm_mreq *q = NULL;
    if (request && !(q = request_make(l1, r, e, way, line, op, warp, bytes,
                                      value, &why)))
        return why;

    /* committed */
    l1->n.accesses++;
    cm_stat_add(l1->st_acc, 1);
    if (l1->cfg.obs && l1->cfg.obs->l1_access)
        l1->cfg.obs->l1_access(l1->cfg.obs->obj, l1->cfg.sm, warp, line, op,
                               way ? (int32_t)(way - l1->ways) : -1, q, now);
    if (expired && op == CM_OP_LOAD) l1_outcome(l1, way, 1, now);
    if (a & CM_A1_HIT) {
        l1->n.hits++;
        cm_stat_add(l1->st_hit, 1);
        l1_touch(l1, way, warp);
        if (op == CM_OP_LOAD) l1_outcome(l1, way, 1, now);
        if (op != CM_OP_STORE) l1_value(l1, warp, line, way->value);
        cm_engine_schedule(l1->eng, l1->cfg.hit_latency, hit_done, l1,
                           (uint64_t)warp << 8 | op);
    } else {
        l1->n.misses++;
        cm_stat_add(l1->st_miss, 1);
    }
    if ((a & CM_A1_ENTRY) && !e) e = l1_ent_new(l1, line, (uint8_t)st, way);
    if (a & CM_A1_MERGE) {
        e->w[e->nwait++] =
            (l1_waiter){value, warp, e->gets_seq + (request ? 1u : 0u), op};
        if (!request) {
            l1->n.merges++;
            cm_stat_add(l1->st_merge, 1);
        }
    }
    if ((a & CM_A1_WRITE) && way) {
        way->value = value;
        way->dirty = 1;
    }
    if ((a & CM_A1_INVAL) && way) {
        l1_leave(l1, way, 0, now);
        way = NULL;
    }
    if (a & CM_A1_CANCEL) e->cancel_seq = e->gets_seq;
    if (request) {
        if (r->msg == CM_MSG_GETS || l1->cfg.proto->l1_write_back)
            e->gets_seq++;
        e->pending++;
        l1->inflight++;
        l1->n.sent++;
        cm_stat_level(l1->st_occ, l1->inflight, now);
    }
    if (e) l1_ent_settle(l1, e, r->next);
    if (!cm_l1_state_transient(r->next) && way && way->state != CM_L1S_I) {
        if (r->next == CM_L1S_I)
            l1_leave(l1, way, 0, now);
        else
            way->state = r->next; /* e.g. MESI's silent E -> M */
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
    case CM_L1_STALL:
        l1->n.stalls += n;
        break;
    default:
        break;
    }
}

/* ---- flash events ------------------------------------------------------------ */

static void flash_line(cm_l1 *l1, l1_way *way, l1_ent *e, unsigned event,
                       uint64_t now)
{
    unsigned st = e ? e->state : way->state;
    const cm_proto_row *r = l1_row(l1, st, event);
    if (!r) return;
    if ((r->actions & CM_A1_INVAL) && way && way->state != CM_L1S_I)
        l1_leave(l1, way, 0, now);
    if ((r->actions & CM_A1_CANCEL) && e) e->cancel_seq = e->gets_seq;
    if (e) l1_ent_settle(l1, e, r->next);
}

void cm_l1_flash(cm_l1 *l1, unsigned event)
{
    if (l1->err.code != CM_OK || l1->flash_keeps[event == CM_L1E_ACQUIRE])
        return;
    uint64_t now = cm_engine_now(l1->eng);
    for (uint32_t i = 0; i < l1->cfg.mshrs; i++) {
        l1_ent *e = &l1->ent[i];
        if (!e->used) continue;
        flash_line(l1, e->way >= 0 ? &l1->ways[e->way] : NULL, e, event, now);
    }
    for (uint64_t i = 0; i < l1->sets * l1->nways; i++)
        if (l1->ways[i].state != CM_L1S_I && !l1->ways[i].pinned)
            flash_line(l1, &l1->ways[i], NULL, event, now);
}

/* ---- replies and forwards ----------------------------------------------------- */

/* The event a reply raises (e: the line's entry). */
static unsigned reply_event(const cm_l1 *l1, const cm_mreq *m, const l1_ent *e,
                            uint64_t now)
{
    if (l1->cfg.proto->l1_write_back) /* one request at a time: its reply */
        return m->msg == CM_MSG_DATA_E   ? CM_L1E_DATA_E
               : m->msg == CM_MSG_DATA_M ? CM_L1E_DATA_M
               : m->msg == CM_MSG_ACK    ? CM_L1E_ACK
                                         : CM_L1E_DATA;
    int last = e->pending == 1;
    if (m->op == CM_OP_STORE) return last ? CM_L1E_ACK_LAST : CM_L1E_ACK;
    if (m->op == CM_OP_ATOMIC)
        return last ? CM_L1E_AREPLY_LAST : CM_L1E_AREPLY;
    if (m->seq != e->gets_seq || m->seq <= e->cancel_seq)
        return CM_L1E_DATA_STALE;
    if (l1->timestamps && m->ts < now) return CM_L1E_DATA_EXP;
    return last ? CM_L1E_DATA_LAST : CM_L1E_DATA;
}

static void done_later(cm_l1 *l1, uint32_t warp, uint8_t op, uint64_t gwct)
{
    l1->dq[l1->ndq++] = (struct l1_done){warp, op, gwct};
}

/* Performs the accesses waiting on e that reply m answers, on way (the
 * installed copy, if the row filled) in arrival order. */
void l1_wake(cm_l1 *l1, l1_ent *e, const cm_mreq *m, l1_way *way, int filled,
             int writable)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < e->nwait; i++) {
        l1_waiter w = e->w[i];
        if (w.need > m->seq) {
            e->w[kept++] = w;
            continue;
        }
        if (w.op == CM_OP_LOAD) {
            l1_value(l1, w.warp, m->line,
                     way && filled ? way->value : m->value);
            if (l1->timed) done_later(l1, w.warp, w.op, 0);
            continue;
        }
        /* a buffered store or atomic (write-back): only on permission */
        if (!way || !filled || !writable) {
            l1_fail(l1, "a buffered store or atomic woken without write "
                        "permission",
                    e->state, CM_L1E_COUNT);
            return;
        }
        if (w.op == CM_OP_ATOMIC) l1_value(l1, w.warp, m->line, way->value);
        way->value = w.value;
        way->dirty = 1;
        if (l1->timed) done_later(l1, w.warp, w.op, 0);
    }
    e->nwait = kept;
}

/* The reply's own access is done (a store's ACK, an atomic's AREPLY, a
 * bypassing load's DATA). */
static void reply_done(cm_l1 *l1, const cm_mreq *m)
{
    if (m->op != CM_OP_STORE) l1_value(l1, m->warp, m->line, m->value);
    done_later(l1, m->warp, m->op, m->gwct);
}

static void reply_handle(cm_l1 *l1, cm_mreq *m)
{
    uint64_t now = cm_engine_now(l1->eng);
    l1_ent *e = l1_ent_find(l1, m->line);
    if (!e) {
        l1_fail(l1, "a reply for a line without an entry", CM_L1S_I,
                CM_L1E_DATA);
        return;
    }
    l1_way *way = l1_way_find(l1, m->line);
    unsigned ev = reply_event(l1, m, e, now);
    const cm_proto_row *r = l1_row(l1, e->state, ev);
    if (!r) return;
    uint32_t a = r->actions;
    if (ev == CM_L1E_DATA_STALE) cm_stat_add(l1->st_fstale, 1);
    if (ev == CM_L1E_DATA_EXP) cm_stat_add(l1->st_fexp, 1);
    e->pending--;
    l1->inflight--;
    l1->n.replies++;
    cm_stat_level(l1->st_occ, l1->inflight, now);
    cm_stat_sample(l1->st_rt, (double)(now - m->issue_cycle));
    if (m->op == CM_OP_LOAD) e->data_seq = m->seq;
    if ((a & CM_A1_INVAL) && way) {
        l1_leave(l1, way, 0, now);
        way = NULL;
    }
    if (a & CM_A1_CANCEL) e->cancel_seq = e->gets_seq;
    l1_way spill;
    if (a & CM_A1_FILL) {
        unsigned in = cm_l1_state_transient(r->next) ? CM_L1S_V : r->next;
        way = l1_install(l1, m, in, now);
        if (way) {
            if (e->reserved) {
                e->reserved = 0;
                l1->reserved[l1_set_of(l1, e->line)]--;
            }
            l1_pin(l1, e, way);
        } else if (l1->cfg.proto->l1_write_back) {
            /* every way waits: a granted line is still used, then
             * evicted by its REPLACE row (never dropped silently) */
            spill = (l1_way){.line = m->line, .value = m->value,
                             .state = r->next};
            way = &spill;
        }
    }
    if (a & CM_A1_WAKE)
        l1_wake(l1, e, m, way, (a & CM_A1_FILL) != 0, r->next == CM_L1S_M);
    if (a & CM_A1_DONE) reply_done(l1, m);
    l1_ent_settle(l1, e, r->next);
    if (way == &spill) {
        l1_replace(l1, &spill, now);
    } else if (!cm_l1_state_transient(r->next) && way &&
               way->state != CM_L1S_I) {
        if (r->next == CM_L1S_I)
            l1_leave(l1, way, 0, now);
        else if (!(a & CM_A1_FILL))
            way->state = r->next;
    }
    if (l1->cfg.obs && l1->cfg.obs->l1_reply)
        l1->cfg.obs->l1_reply(l1->cfg.obs->obj, l1->cfg.sm, m, now);
    cm_pool_put(l1->cfg.pool, m);
    l1_note_freed(l1);
    /* last, so the SM sees the L1 settled when it reacts */
    uint32_t n = l1->ndq;
    l1->ndq = 0;
    for (uint32_t i = 0; i < n; i++)
        l1->cfg.done(l1->cfg.done_obj, l1->dq[i].warp, l1->dq[i].op,
                     l1->dq[i].gwct);
}

static const unsigned forward_event[CM_MSG_COUNT] = {
    [CM_MSG_INV] = CM_L1E_INV,
    [CM_MSG_RCL] = CM_L1E_RCL,
    [CM_MSG_FWD_GETS] = CM_L1E_FWD_GETS,
    [CM_MSG_FWD_GETX] = CM_L1E_FWD_GETX};

/* A forward is answered on the same record (it carries the copy if its
 * class carries a line). */
static int forward_handle(cm_l1 *l1, cm_mreq *m)
{
    if (l1->obn >= l1->fwd_room) return CM_SINK_BUSY;
    uint64_t now = cm_engine_now(l1->eng);
    l1_ent *e = l1_ent_find(l1, m->line);
    l1_way *way = l1_way_find(l1, m->line);
    unsigned st = e ? e->state
                  : way && !l1_expired(l1, way, now) ? way->state
                                                     : CM_L1S_I;
    const cm_proto_row *r = l1_row(l1, st, forward_event[m->msg]);
    if (!r) return CM_SINK_OK;
    uint32_t a = r->actions;
    uint64_t value = way ? way->value : 0;
    int dirty = way && way->dirty;
    if (a & CM_A1_CANCEL) e->cancel_seq = e->gets_seq;
    if ((a & CM_A1_INVAL) && way && way->state != CM_L1S_I) {
        l1_leave(l1, way, 0, now);
        way = NULL;
    }
    if (e) l1_ent_settle(l1, e, r->next);
    if (!cm_l1_state_transient(r->next) && way && way->state != CM_L1S_I) {
        if (r->next == CM_L1S_I)
            l1_leave(l1, way, 0, now);
        else
            way->state = r->next; /* MESI: E/M -> S */
    }
    if (!(a & CM_A1_SEND)) {
        l1_fail(l1, "a forward left unanswered", st, forward_event[m->msg]);
        return CM_SINK_OK;
    }
    m->msg = r->msg;
    m->sm = l1->cfg.sm;
    m->value = value;
    m->flags = dirty ? CM_MF_DIRTY : 0;
    if (way && cm_msg_carries_line(r->msg, 1)) way->dirty = 0;
    l1_answer(l1, m);
    return CM_SINK_OK;
}

static int reply_accept(void *obj, cm_mreq *m)
{
    cm_l1 *l1 = obj;
    if (l1->err.code != CM_OK) return CM_SINK_OK;
    if (cm_msg_kind_of(m->msg) == CM_MK_FORWARD) return forward_handle(l1, m);
    reply_handle(l1, m);
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
    outbox_drain(l1);
    if (l1->cfg.wake.ready) l1->cfg.wake.ready(l1->cfg.wake.obj);
}

cm_retry cm_l1_retry(cm_l1 *l1)
{
    return (cm_retry){retry_ready, l1};
}
