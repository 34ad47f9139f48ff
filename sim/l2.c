/* l2.c - the L2 banks of l2.h: service of the request queue, the rows'
 * actions, answers, fills and parked timestamps.
 *
 * Every row runs through exec() in the order of protocol.h's actions,
 * after room() has found everything it needs, so a request that must wait
 * leaves nothing changed.  Requests that wait on an entry (a fetch, or a
 * merge into one) leave the queue and come back to its head, in order,
 * when the entry is done, and are served again in the line's new state.
 * Re-entry: serving may free what would serve again (a write-back leaving
 * for DRAM), so l2_kick is guarded and its loop re-checks. */
#include "sim/l2_impl.h"

#include <math.h>
#include <stdio.h>

/* ---- state, events, lifetimes ----------------------------------------------- */

unsigned l2_state(cm_l2 *l2, l2_bank *b, uint64_t line, uint64_t now,
                  l2_way **way, l2_ent **ent)
{
    *ent = l2_ent_find(l2, b, line);
    *way = l2_way_find(l2, b, line);
    if (*ent) return (*ent)->state;
    if (!*way) return CM_L2S_I;
    if (l2->timestamps) return (*way)->gt >= now ? CM_L2S_V : CM_L2S_E;
    if (l2->cfg.proto->l1_write_back && (*way)->owner >= 0) return CM_L2S_X;
    uint64_t *sh = l2_sharers(l2, b, line, *way);
    return sh && *sh ? CM_L2S_S : CM_L2S_N;
}

static const unsigned request_event[CM_MSG_COUNT] = {
    [CM_MSG_GETS] = CM_L2E_GETS,   [CM_MSG_GETX] = CM_L2E_GETX,
    [CM_MSG_UPGR] = CM_L2E_UPGR,   [CM_MSG_WRITE] = CM_L2E_WRITE,
    [CM_MSG_ATOMIC] = CM_L2E_ATOMIC};

/* The most specific event a request raises (refined events fall back to
 * their base where a table has no row for them). */
unsigned l2_refine(cm_l2 *l2, l2_bank *b, const cm_mreq *m, unsigned st,
                   l2_way *way)
{
    const cm_protocol *p = l2->cfg.proto;
    unsigned ev = request_event[m->msg];
    uint64_t me = 1ull << m->sm;
    if (p->l1_write_back && way && way->owner == (int32_t)m->sm)
        return CM_L2E_REQ_OWNER;
    if (p->sharers != CM_SHARERS_NONE) {
        uint64_t *sh = l2_sharers(l2, b, m->line, way);
        uint64_t others = sh ? *sh & ~me : 0;
        /* write-back: an UPGR whose requester lost its copy (invalidated
         * or recalled while the UPGR was on its way) is the GETX it has
         * become */
        if (p->l1_write_back && ev == CM_L2E_UPGR && !(sh && (*sh & me)))
            ev = CM_L2E_GETX;
        if (!others && ev == CM_L2E_UPGR && p->l1_write_back)
            ev = CM_L2E_UPGR_SOLE;
        if (!others && ev == CM_L2E_GETX) ev = CM_L2E_GETX_SOLE;
        if (!others && ev == CM_L2E_ATOMIC) ev = CM_L2E_ATOMIC_SOLE;
    }
    if (l2->timestamps && ev == CM_L2E_UPGR && way && st == CM_L2S_V) {
        if (!way->multi && way->reader == (int32_t)m->sm && m->ts == way->gt)
            ev = CM_L2E_UPGR_PRIV;
        else if (m->ts != way->gt)
            ev = CM_L2E_UPGR_STALE;
    }
    if (ev == CM_L2E_WRITE && m->bytes >= l2->cfg.line_bytes)
        ev = CM_L2E_WRITE_FULL;
    return ev;
}

uint64_t l2_lifetime(const cm_l2 *l2, const l2_bank *b)
{
    if (l2->cfg.proto->lifetime == CM_LIFE_PREDICTED)
        return (uint64_t)llround(b->pred);
    return l2->lifetime;
}

void l2_pred_add(l2_bank *b, double d, uint64_t now)
{
    const cm_params *p = b->l2->p;
    b->pred += d;
    if (b->pred < p->tc_predictor_min) b->pred = p->tc_predictor_min;
    if (b->pred > p->tc_predictor_max) b->pred = p->tc_predictor_max;
    if (b->st_life) cm_stat_level(b->st_life, (uint32_t)llround(b->pred), now);
}

/* The TC-Weak predictor's updates (seed 000, section 4.4).  Every
 * timestamp protocol counts the events (tc.pred.*), so that a fixed
 * lifetime shows the rates the predictor would see there; only the
 * predicting one acts on them. */
static void pred_count(l2_bank *b, int kind, double d, uint64_t now)
{
    if (b->l2->timed) cm_stat_add(b->st_pred[kind], 1);
    if (b->l2->cfg.proto->lifetime == CM_LIFE_PREDICTED) l2_pred_add(b, d, now);
}

void l2_pred_event(l2_bank *b, unsigned st, unsigned ev, const cm_mreq *m,
                   uint64_t now)
{
    cm_l2 *l2 = b->l2;
    const cm_params *p = l2->p;
    if (!l2->timestamps) return;
    unsigned base = cm_l2_event_base(ev);
    int write = base == CM_L2E_GETX || base == CM_L2E_UPGR ||
                base == CM_L2E_ATOMIC;
    /* a load served again after waiting on an entry (a miss) was counted
     * when it first came, and the line it finds, filled with GT 0, is no
     * valid line whose GT expired */
    int load = ev == CM_L2E_GETS && m && !(m->flags & CM_MF_WAITED);
    if (load && (m->flags & CM_MF_EXPIRED_MISS))
        pred_count(b, PE_L1_EXPIRED, p->tc_t_hit, now);
    if (load && st == CM_L2S_E) pred_count(b, PE_L2_EXPIRED, p->tc_t_hit, now);
    if (write && st == CM_L2S_V &&
        (p->tc_write_update == 1 ||
         (p->tc_write_update == 0 && l2->fences_seen)))
        pred_count(b, PE_WRITE, -p->tc_t_write, now);
    if (ev == CM_L2E_REPLACE && st == CM_L2S_V)
        pred_count(b, PE_EVICT, -p->tc_t_evict, now);
}

static const cm_proto_row *row_of(cm_l2 *l2, unsigned st, unsigned ev)
{
    const cm_proto_row *r = l2->row[st][ev];
    if (!r && l2->eng->err.code == CM_OK) {
        cm_err_set(&l2->eng->err, CM_EINTERNAL,
                   "protocol %s, L2: no row for state %s, event %s",
                   l2->cfg.proto->name, cm_l2_state_names[st],
                   cm_l2_event_names[ev]);
        cm_engine_stop(l2->eng);
    }
    return r;
}

/* ---- what a row needs ----------------------------------------------------- */

static double blocked_now(const l2_bank *b, uint64_t now)
{
    return b->hol_cum + (b->stalled ? (double)(now - b->stall_since) : 0);
}

static void obs_at(cm_obs_l2 *at, l2_bank *b, const l2_way *way, unsigned st,
                   unsigned ev, const cm_proto_row *r, const uint64_t *sh,
                   uint64_t now)
{
    cm_l2 *l2 = b->l2;
    *at = (cm_obs_l2){.bank = b->id,
                      .way = way ? (int32_t)(way - b->tags) : -1,
                      .state = (uint8_t)st,
                      .event = (uint8_t)ev,
                      .actions = r ? r->actions : 0,
                      .sharers = sh ? *sh : 0,
                      .gt = way ? way->gt : 0,
                      .reader = way ? way->reader : -1,
                      .multi = way ? way->multi : 0,
                      .blocked = blocked_now(b, now),
                      .lifetime = l2->timestamps ? l2_lifetime(l2, b) : 0};
}

/* The L1s an INV (all sharers but req) or RCL (all, and the owner) of
 * the row reaches. */
static uint64_t targets(const cm_proto_row *r, const uint64_t *sh,
                        const l2_way *way, int32_t req)
{
    uint64_t to = 0;
    if (r->actions & CM_A2_INV) to |= (sh ? *sh : 0) & ~(req >= 0 ? 1ull << req : 0);
    if (r->actions & CM_A2_RCL) {
        to |= sh ? *sh : 0;
        if (way && way->owner >= 0) to |= 1ull << way->owner;
    }
    return to;
}

static int dir_make_room(l2_bank *b, uint64_t line, uint64_t now);
static int replace(l2_bank *b, uint64_t line, unsigned ev, uint64_t now,
                   uint64_t *retry);
static void fill_ev(cm_engine *eng, void *obj, uint64_t arg);

/* Entries and reply slots the row takes (m: the request, or NULL). */
static void needs(cm_l2 *l2, l2_bank *b, const cm_proto_row *r, uint64_t line,
                  l2_way *way, const cm_mreq *m, uint32_t *ents,
                  uint32_t *slots)
{
    uint32_t a = r->actions;
    uint64_t *sh = l2_sharers(l2, b, line, way);
    *ents = ((a & (CM_A2_FETCH | CM_A2_TXN)) != 0) +
            ((a & (CM_A2_PARK | CM_A2_PARK_SIDE)) != 0) +
            ((a & CM_A2_EVICT) && way && way->dirty);
    *slots = (uint32_t)__builtin_popcountll(
                 targets(r, sh, way, m ? (int32_t)m->sm : -1)) +
             ((a & CM_A2_FWD) != 0) + ((a & CM_A2_REPLY) != 0) +
             ((a & CM_A2_TXN) && m);
}

/* Whether row r may run for line now.  What it evicts to make room comes
 * first (an allocation's victim, a load's directory entry: they may wait
 * themselves), then its entries and reply slots are counted. */
static int room(l2_bank *b, const cm_proto_row *r, uint64_t line, l2_way *way,
                l2_ent *e, const cm_mreq *m, uint64_t now)
{
    cm_l2 *l2 = b->l2;
    if ((r->actions & CM_A2_MERGE) && e && e->nwait >= l2->cfg.merge) return 0;
    if (r->actions & CM_A2_ALLOC) {
        l2_way *v = l2_victim(l2, b, line);
        uint64_t retry = 0;
        if (!v || (v->valid &&
                   !replace(b, v->line, CM_L2E_REPLACE, now, &retry)))
            return 0;
    }
    if ((r->actions & CM_A2_ADD) && l2->cfg.proto->sharers == CM_SHARERS_DIR &&
        !l2_dir_find(l2, b, line) && !dir_make_room(b, line, now))
        return 0;
    uint32_t ents, slots;
    needs(l2, b, r, line, way, m, &ents, &slots);
    return ents <= b->nfree && b->reserved + slots <= l2->out_cap;
}

/* ---- the rows' actions ------------------------------------------------------- */

static void send_forward(l2_bank *b, unsigned msg, uint64_t line, uint32_t to)
{
    cm_l2 *l2 = b->l2;
    cm_mreq *x = cm_pool_get(l2->cfg.pool);
    if (!x) {
        l2_fail(l2, "protocol %s, L2: the message pool is empty (%s%s)", "",
                "");
        return;
    }
    *x = (cm_mreq){.line = line, .sm = to, .msg = (uint8_t)msg,
                   .id = UINT64_MAX};
    if (msg == CM_MSG_INV) cm_stat_add(b->st_inv, 1);
    if (msg == CM_MSG_RCL) cm_stat_add(b->st_rcl, 1);
    l2_out_push(l2, b, x, 0);
}

static void wait_on(l2_ent *e, cm_mreq *m)
{
    m->next = NULL;
    m->flags |= CM_MF_WAITED;
    if (e->wt)
        e->wt->next = m;
    else
        e->wh = m;
    e->wt = m;
    e->nwait++;
}

static void release_credit(cm_l2 *l2, l2_bank *b, cm_mreq *m)
{
    if (!(m->flags & CM_MF_CREDIT)) return;
    m->flags &= (uint8_t)~CM_MF_CREDIT;
    cm_noc_release_req(l2->noc, b->id);
}

/* Frees e (a detached copy is not freed) and puts what waited on it back
 * at the head of the queue; an owner's dirty line taken meanwhile goes to
 * DRAM, on the entry. */
static void done(l2_bank *b, l2_ent *e, int detached)
{
    cm_l2 *l2 = b->l2;
    if (e->wh) {
        /* back in the queue, out of the pipeline: waiting there anew */
        for (cm_mreq *m = e->wh; m; m = m == e->wt ? NULL : m->next)
            m->queued = b->l2->eng->now;
        e->wt->next = b->qh;
        if (!b->qh) b->qt = e->wt;
        b->qh = e->wh;
        b->qn += e->nwait;
        cm_stat_level(b->st_qocc, b->qn - b->npipe, b->l2->eng->now);
    }
    e->wh = e->wt = NULL;
    e->nwait = 0;
    if (!detached) {
        if (e->wb) {
            uint64_t line = e->line, value = e->value;
            l2_ent_free(l2, b, e); /* the line's map entry goes */
            l2_ent *w = l2_ent_new(l2, b, line, ENT_WB, 0);
            l2_writeback(l2, b, line, value, w);
        } else {
            l2_ent_free(l2, b, e);
        }
    }
    l2_kick(b);
}

static void expire_ev(cm_engine *eng, void *obj, uint64_t arg);

static void install(cm_l2 *l2, l2_bank *b, l2_way *v, uint64_t line,
                    uint64_t now)
{
    l2_way_install(l2, b, v, line);
    /* a TC-Weak refetch takes the parked timestamps (GT >= every LT) */
    for (uint32_t i = 0; l2->timestamps && i < l2->cfg.mshrs; i++)
        if (b->ent[i].kind == ENT_SIDE && b->ent[i].line == line &&
            b->ent[i].gt > v->gt) {
            v->gt = b->ent[i].gt;
            v->multi = 1;
        }
    if (l2->timed && l2->cfg.obs && l2->cfg.obs->l2_fill)
        l2->cfg.obs->l2_fill(l2->cfg.obs->obj, b->id, (int32_t)(v - b->tags),
                             line, now);
}

static void evict(l2_bank *b, l2_way *w, uint64_t now)
{
    cm_l2 *l2 = b->l2;
    if (l2->timed) {
        cm_stat_add(b->st_evict, 1);
        if (l2->cfg.obs && l2->cfg.obs->l2_evict)
            l2->cfg.obs->l2_evict(l2->cfg.obs->obj, b->id,
                                  (int32_t)(w - b->tags), now);
    }
    /* the way leaves before its write-back is queued: queueing can wake
     * the bank, which must not serve the line from it (bug: a GETX was
     * granted on the leaving way, and its owner's PUT later met I) */
    l2_way_clear(b, w);
    if (w->dirty) l2_writeback(l2, b, w->line, w->value, NULL);
}

/* The reply to request m, on m's record. */
static void reply(l2_bank *b, const cm_proto_row *r, const cm_obs_l2 *at,
                  cm_mreq *m, const l2_way *way, uint64_t old, uint64_t gwct,
                  uint64_t now)
{
    cm_l2 *l2 = b->l2;
    int atomic = m->msg == CM_MSG_ATOMIC;
    m->msg = r->msg;
    m->value = r->msg == CM_MSG_AREPLY ? old : way ? way->value : 0;
    m->ts = way ? way->gt : 0;
    m->gwct = gwct;
    if (l2->cfg.obs && l2->cfg.obs->l2_reply)
        l2->cfg.obs->l2_reply(l2->cfg.obs->obj, at, m, now);
    l2_out_push(l2, b, m, atomic);
}

/* A write's wait on coherence starts (once): held by an unexpired GT, or
 * waiting for the answers to the invalidations or recalls it sent.  Its
 * waits on a fetch or for a free entry are a cache's, not coherence's
 * (l2.hol_stall_cycles holds every blocked cycle). */
static void stall_start(cm_mreq *m, uint64_t now)
{
    if (m->flags & CM_MF_STALLED) return;
    m->flags |= CM_MF_STALLED;
    m->stall_cycle = now;
}

/* Executes row r for line.  m: the request (served, or the transaction's
 * on an answer), may be NULL; resp: the answer being handled.  Returns 1
 * if m left the queue for good (answered, waiting, held). */
static int exec(l2_bank *b, const cm_proto_row *r, const cm_obs_l2 *at,
                uint64_t line, l2_way *way, l2_ent *e, int detached,
                cm_mreq *m, const cm_mreq *resp, uint64_t now)
{
    cm_l2 *l2 = b->l2;
    uint32_t a = r->actions;
    int32_t req = m ? (int32_t)m->sm : -1;
    uint64_t old = way ? way->value : 0, gwct = 0;
    if (a & CM_A2_FETCH) {
        e = l2_ent_new(l2, b, line, ENT_LINE, r->next);
        wait_on(e, m);
        l2_todram(l2, b, e);
        l2_drain_todram(b);
        return 1;
    }
    if (a & CM_A2_MERGE) {
        wait_on(e, m);
        cm_stat_add(b->st_merge, 1);
        return 1;
    }
    if (a & CM_A2_ALLOC) {
        way = l2_victim(l2, b, line); /* room() made it free */
        install(l2, b, way, line, now);
    }
    if (a & CM_A2_TXN) {
        e = l2_ent_new(l2, b, line, ENT_LINE, r->next);
        e->txn = m;
        if (m) stall_start(m, now);
    }
    uint64_t *sh = l2_sharers(l2, b, line, way);
    uint64_t to = targets(r, sh, way, req);
    for (uint32_t i = 0; to >> i; i++)
        if (to >> i & 1) {
            send_forward(b, (a & CM_A2_INV) ? CM_MSG_INV : CM_MSG_RCL, line, i);
            e->acks++;
        }
    if (a & CM_A2_FWD) {
        if (!way || way->owner < 0 || way->owner == req) {
            l2_fail(l2, "protocol %s, L2: %s to %s owner", cm_msg_name(r->msg),
                    way && way->owner >= 0 ? "the requesting" : "no");
            return 1;
        }
        send_forward(b, r->msg, line, (uint32_t)way->owner);
        e->acks++;
    }
    if ((a & CM_A2_WRITE) && way && m) {
        if (l2->cfg.obs && l2->cfg.obs->l2_write)
            l2->cfg.obs->l2_write(l2->cfg.obs->obj, at, m, now);
        way->value = m->value;
        way->dirty = 1;
        if (m->flags & CM_MF_STALLED)
            cm_stat_add(b->st_sstall, (double)(now - m->stall_cycle));
    }
    if ((a & CM_A2_TAKE) && resp) {
        if (way) {
            way->value = resp->value;
            way->dirty |= (resp->flags & CM_MF_DIRTY) != 0;
        } else if ((resp->flags & CM_MF_DIRTY) && e) { /* the line left */
            e->wb = 1;
            e->value = resp->value;
        }
    }
    if ((a & CM_A2_GT) && way) {
        if (way->gt < now) {
            way->reader = -1;
            way->multi = 0;
        }
        uint64_t t = now + l2_lifetime(l2, b);
        if (t > way->gt) way->gt = t;
        if (way->reader < 0)
            way->reader = req;
        else if (way->reader != req)
            way->multi = 1;
    }
    if ((a & CM_A2_GWCT) && way) gwct = way->gt;
    if ((a & CM_A2_GTINC) && way) way->gt++;
    if ((a & CM_A2_ADD) && req >= 0) {
        if (!sh && l2->cfg.proto->sharers == CM_SHARERS_DIR) {
            if (!l2_dir_find(l2, b, line)) dir_make_room(b, line, now);
            sh = l2_sharers(l2, b, line, way);
        }
        if (sh) *sh |= 1ull << req;
    }
    if ((a & CM_A2_KEEP) && sh) *sh &= req >= 0 ? 1ull << req : 0;
    if ((a & CM_A2_DROP) && sh) *sh = 0;
    if ((a & CM_A2_DROP) && way) way->owner = -1;
    if ((a & CM_A2_OWN) && way && req >= 0) {
        way->owner = req;
        way->sharers = 0;
    }
    if ((a & CM_A2_DEMOTE) && way && way->owner >= 0) {
        way->sharers |= 1ull << way->owner;
        way->owner = -1;
    }
    if ((a & CM_A2_REPLY) && m) reply(b, r, at, m, way, old, gwct, now);
    if ((a & (CM_A2_PARK | CM_A2_PARK_SIDE)) && way) {
        l2_ent *p = l2_ent_new(l2, b, line,
                               (a & CM_A2_PARK) ? ENT_LINE : ENT_SIDE,
                               CM_L2S_M_I);
        p->gt = way->gt;
        cm_engine_schedule_at(l2->eng, way->gt + 1, expire_ev, b,
                              (uint64_t)(p - b->ent));
    }
    if ((a & CM_A2_EVICT) && way) evict(b, way, now);
    if (a & CM_A2_DONE) done(b, e, detached);
    if ((a & CM_A2_TXN) && e->acks == 0) done(b, e, 0);
    return (a & (CM_A2_REPLY | CM_A2_TXN)) != 0;
}

/* ---- replacement and the directory --------------------------------------------- */

/* Runs the REPLACE (or DIR_REPLACE) row of a stable line; 0 if it stalls
 * or lacks room, *retry then the time to try again (0: at the next change). */
static int replace(l2_bank *b, uint64_t line, unsigned ev, uint64_t now,
                   uint64_t *retry)
{
    cm_l2 *l2 = b->l2;
    l2_way *way;
    l2_ent *e;
    unsigned st = l2_state(l2, b, line, now, &way, &e);
    const cm_proto_row *r = row_of(l2, st, ev);
    if (!r) return 0;
    uint32_t ents, slots;
    needs(l2, b, r, line, way, NULL, &ents, &slots);
    if ((r->actions & CM_A2_STALL) || ents > b->nfree ||
        b->reserved + slots > l2->out_cap) {
        if (way && st == CM_L2S_V) *retry = way->gt + 1;
        return 0;
    }
    b->reserved += slots;
    l2_pred_event(b, st, ev, NULL, now);
    uint64_t *sh = l2_sharers(l2, b, line, way);
    if ((ev == CM_L2E_DIR_REPLACE ||
         l2->cfg.proto->sharers != CM_SHARERS_DIR) &&
        l2->cfg.obs && l2->cfg.obs->l2_replace)
        l2->cfg.obs->l2_replace(
            l2->cfg.obs->obj, b->id,
            (unsigned)(sh ? __builtin_popcountll(*sh) : 0) +
                (way && way->owner >= 0),
            now);
    if (ev == CM_L2E_DIR_REPLACE) cm_stat_add(b->st_direv, 1);
    cm_obs_l2 at;
    obs_at(&at, b, way, st, ev, r, sh, now);
    exec(b, r, &at, line, way, e, 0, NULL, NULL, now);
    return 1;
}

/* GPU-VIni: a free directory way for line, evicting (DIR_REPLACE) the LRU
 * entry of the set if needed.  0 when every candidate is busy. */
static int dir_make_room(l2_bank *b, uint64_t line, uint64_t now)
{
    cm_l2 *l2 = b->l2;
    l2_dirent *set = l2_dir_set(l2, b, line), *v = NULL;
    for (uint32_t i = 0; i < l2->dir_ways && !v; i++)
        if (!set[i].valid || !set[i].sharers) v = &set[i];
    if (!v) { /* LRU among lines with no transaction */
        for (uint32_t j = 0; j < l2->dir_ways; j++)
            if (!l2_ent_find(l2, b, set[j].line) &&
                (!v || set[j].stamp < v->stamp))
                v = &set[j];
        uint64_t retry = 0;
        if (!v || !replace(b, v->line, CM_L2E_DIR_REPLACE, now, &retry))
            return 0;
    }
    l2_dir_put(b, v, line);
    return 1;
}

/* ---- serving the queue --------------------------------------------------------- */

static void kick_at(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)arg;
    l2_bank *b = obj;
    if (cm_engine_now(eng) >= b->wake_at) b->wake_at = 0;
    l2_kick(b);
}

/* The request could not go: a write held by an unexpired GT starts its
 * stall (the observer sees it) and wakes the bank when the GT passes. */
static void stall(l2_bank *b, cm_mreq *m, const cm_proto_row *r, l2_way *way,
                  unsigned st, unsigned ev, uint64_t now)
{
    cm_l2 *l2 = b->l2;
    if (!(m->flags & CM_MF_STALLED) && st == CM_L2S_V &&
        (r->actions & CM_A2_STALL)) {
        stall_start(m, now);
        if (l2->cfg.obs && l2->cfg.obs->l2_stall) {
            cm_obs_l2 at;
            obs_at(&at, b, way, st, ev, r, l2_sharers(l2, b, m->line, way),
                   now);
            l2->cfg.obs->l2_stall(l2->cfg.obs->obj, &at, m, now);
        }
    }
    uint64_t t = way ? way->gt + 1 : 0;
    if (st == CM_L2S_V && way && (r->actions & CM_A2_STALL) &&
        (b->wake_at <= now || t < b->wake_at)) {
        b->wake_at = t;
        cm_engine_schedule_at(l2->eng, t, kick_at, b, 0);
    }
}

/* Serves request m (unlinked from the queue): 1 done, 0 stalled. */
static int serve(l2_bank *b, cm_mreq *m, uint64_t now)
{
    cm_l2 *l2 = b->l2;
    l2_way *way;
    l2_ent *e;
    unsigned st = l2_state(l2, b, m->line, now, &way, &e);
    unsigned ev = l2_refine(l2, b, m, st, way);
    const cm_proto_row *r = row_of(l2, st, ev);
    if (!r) return 0;
    if ((r->actions & CM_A2_STALL) || !room(b, r, m->line, way, e, m, now)) {
        stall(b, m, r, way, st, ev, now);
        return 0;
    }
    uint32_t ents, slots;
    needs(l2, b, r, m->line, way, m, &ents, &slots);
    b->reserved += slots;
    l2_pred_event(b, st, ev, m, now);
    /* a request served again after waiting on a fetch was counted, as a
     * miss, when it first came */
    if (!(m->flags & CM_MF_WAITED)) {
        cm_stat_add(b->st_acc, 1);
        if (r->actions & (CM_A2_FETCH | CM_A2_MERGE))
            cm_stat_add(b->st_miss, 1);
    }
    if (way) way->stamp = ++b->stamp;
    if (l2->cfg.proto->sharers == CM_SHARERS_DIR) { /* LRU over requests */
        l2_dirent *d = l2_dir_find(l2, b, m->line);
        if (d) d->stamp = ++b->stamp;
    }
    cm_obs_l2 at;
    obs_at(&at, b, way, st, ev, r, l2_sharers(l2, b, m->line, way), now);
    if (l2->cfg.obs && l2->cfg.obs->l2_request)
        l2->cfg.obs->l2_request(l2->cfg.obs->obj, &at, m, now);
    cm_stat_sample(b->st_qwait, (double)(now - m->queued));
    release_credit(l2, b, m);
    if (!exec(b, r, &at, m->line, way, e, 0, m, NULL, now))
        l2_fail(l2, "protocol %s, L2: a request left unanswered (%s%s)", "",
                "");
    return 1;
}

static void serve_ev(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)eng;
    (void)arg;
    l2_bank *b = obj;
    b->serve_pending = 0;
    l2_kick(b);
}

/* A request leaves the bank's input pipeline. */
static void pipe_ev(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)arg;
    l2_bank *b = obj;
    if (cm_engine_now(eng) < b->pipe_at) return; /* a later one is due */
    b->pipe_pending = 0;
    l2_kick(b);
}

/* One request served: the queue head, or (out of order) the oldest whose
 * line no earlier request blocks; 0 if none could go, *ready then the time
 * the first request still in the bank's input pipeline comes out of it
 * (0: none). */
static int serve_one(l2_bank *b, uint64_t now, uint64_t *ready)
{
    cm_l2 *l2 = b->l2;
    uint64_t seen[64];
    uint32_t nseen = 0;
    uint32_t depth = l2->cfg.proto->l2_out_of_order ? l2->cfg.queue : 1;
    cm_mreq *prev = NULL;
    *ready = 0;
    for (cm_mreq *m = b->qh; m && depth; prev = m, m = m->next, depth--) {
        if (m->queued > now) { /* arrivals are in order: the rest too */
            *ready = m->queued;
            return 0;
        }
        int blocked = 0;
        for (uint32_t i = 0; i < nseen; i++) blocked |= seen[i] == m->line;
        if (blocked) continue;
        cm_mreq *next = m->next;
        /* unlinked first: serving may put replays at the head */
        if (prev)
            prev->next = next;
        else
            b->qh = next;
        if (b->qt == m) b->qt = prev;
        b->qn--;
        if (serve(b, m, now)) return 1;
        m->next = next; /* stalled: back in place */
        if (prev)
            prev->next = m;
        else
            b->qh = m;
        if (!next) b->qt = m;
        b->qn++;
        if (nseen < 64) seen[nseen++] = m->line;
        if (l2->eng->err.code != CM_OK) return 0;
    }
    return 0;
}

/* Requests out of the input pipeline join the queue proper (occupancy). */
/* Requests out of the input pipeline join the queue's occupancy at the
 * cycle they left it, not at the next kick (a bank busy serving kicks
 * late), so the occupancy and the waits, timed from then, agree (Little).
 * Every kick advances first, so these times follow the last change. */
static void pipe_advance(l2_bank *b, uint64_t now)
{
    while (b->pipe_first && b->pipe_first->queued <= now) {
        uint64_t t = b->pipe_first->queued;
        b->pipe_first = b->pipe_first->next;
        b->npipe--;
        cm_stat_level(b->st_qocc, b->qn - b->npipe, t);
    }
}

/* Serves requests, one per L2 cycle, until the queue empties, the next
 * slot lies ahead (an event is set) or nothing can go. */
void l2_kick(l2_bank *b)
{
    cm_l2 *l2 = b->l2;
    cm_ratio sv = l2->cfg.service;
    if (b->kicking || b->serve_pending || !l2->timed) return;
    pipe_advance(b, l2->eng->now);
    b->kicking = 1;
    while (b->qn && l2->eng->err.code == CM_OK) {
        uint64_t now = l2->eng->now;
        if (now < b->serve_tick / sv.den) {
            b->serve_pending = 1;
            cm_engine_schedule_at(l2->eng, b->serve_tick / sv.den, serve_ev,
                                  b, 0);
            break;
        }
        uint64_t ready;
        if (!serve_one(b, now, &ready)) {
            if (ready && ready > now) {
                /* the pipeline is no stall: only a request that could
                 * go and may not blocks the bank */
                if (!b->pipe_pending || ready < b->pipe_at) {
                    b->pipe_pending = 1;
                    b->pipe_at = ready;
                    cm_engine_schedule_at(l2->eng, ready, pipe_ev, b, 0);
                }
                if (b->qh->queued <= now && !b->stalled) {
                    b->stalled = 1;
                    b->stall_since = now;
                }
                break;
            }
            if (!b->stalled) {
                b->stalled = 1;
                b->stall_since = now;
            }
            break;
        }
        if (b->stalled) {
            cm_stat_add(b->st_hol, (double)(now - b->stall_since));
            b->hol_cum += (double)(now - b->stall_since);
            b->stalled = 0;
        }
        cm_stat_level(b->st_qocc, b->qn - b->npipe, now);
        uint64_t start = now * sv.den;
        if (start < b->serve_tick) start = b->serve_tick;
        b->serve_tick = start + sv.num;
    }
    b->kicking = 0;
}

void cm_l2_accept(cm_l2 *l2, unsigned bank, cm_mreq *r)
{
    l2_bank *b = &l2->bank[bank];
    r->next = NULL;
    r->queued = l2->eng->now + l2->pipe_in; /* out of the input pipeline */
    r->flags |= CM_MF_CREDIT;
    if (b->qt)
        b->qt->next = r;
    else
        b->qh = r;
    b->qt = r;
    b->qn++;
    if (!b->pipe_first) b->pipe_first = r;
    b->npipe++;
    if (l2->cfg.obs && l2->cfg.obs->l2_enqueue)
        l2->cfg.obs->l2_enqueue(l2->cfg.obs->obj, bank, r, l2->eng->now);
    l2_kick(b);
}

/* ---- answers, fills, parked timestamps ---------------------------------------- */

/* An answer handled on arrival: INVACK (to INV or RCL), WB or NODATA (an
 * owner's answer to FWD or RCL) each count one of the answers the line's
 * entry awaits; a PUT (eviction of E or M) needs no entry. */
void cm_l2_response(cm_l2 *l2, unsigned bank, cm_mreq *m)
{
    l2_bank *b = &l2->bank[bank];
    uint64_t now = l2->eng->now;
    l2_way *way;
    l2_ent *e;
    unsigned st = l2_state(l2, b, m->line, now, &way, &e), ev;
    if (m->msg == CM_MSG_PUT) {
        ev = CM_L2E_PUT;
        if (way && way->owner != (int32_t)m->sm) {
            l2_fail(l2, "protocol %s, L2: PUT in state %s from an L1 that "
                        "does not own the line%s",
                    cm_l2_state_names[st], "");
            return;
        }
    } else {
        if (!e || !e->acks) {
            l2_fail(l2, "protocol %s, L2: %s without a transaction%s",
                    cm_msg_name(m->msg), "");
            return;
        }
        const cm_mreq *t = e->txn;
        --e->acks;
        if (m->msg == CM_MSG_WB)
            ev = CM_L2E_WB;
        else if (m->msg == CM_MSG_NODATA)
            ev = CM_L2E_NODATA;
        else if (e->acks)
            ev = CM_L2E_INVACK;
        else if (t && t->msg == CM_MSG_ATOMIC)
            ev = CM_L2E_INVACK_LAST_A;
        else if (t && t->msg == CM_MSG_UPGR && way &&
                 (way->sharers >> t->sm & 1))
            ev = CM_L2E_INVACK_LAST_U; /* its copy survived: no data */
        else
            ev = CM_L2E_INVACK_LAST;
    }
    const cm_proto_row *r = row_of(l2, st, ev);
    if (r) {
        cm_obs_l2 at;
        obs_at(&at, b, way, st, ev, r, l2_sharers(l2, b, m->line, way), now);
        exec(b, r, &at, m->line, way, e, 0, e ? e->txn : NULL, m, now);
    }
    cm_pool_put(l2->cfg.pool, m);
    l2_kick(b);
}

static void fill(l2_bank *b, l2_ent *e);

static void fill_ev(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)eng;
    l2_bank *b = obj;
    fill(b, &b->ent[arg]);
}

/* The line arrives from DRAM.  The fill leaves its entry before its
 * victim is evicted, so an eviction that needs an entry (a recall, a
 * parked timestamp, a write-back) can take it: otherwise fills holding
 * every entry would wait for each other. */
static void fill(l2_bank *b, l2_ent *e)
{
    cm_l2 *l2 = b->l2;
    uint64_t now = l2->eng->now, retry = 0;
    l2_ent f = *e;
    l2_ent_free(l2, b, e);
    l2_way *v = l2_victim(l2, b, f.line);
    if (!v ||
        (v->valid && !replace(b, v->line, CM_L2E_REPLACE, now, &retry))) {
        /* every way busy or the victim waits: the entry back (the one
         * just freed: nothing took it), and try again */
        e = l2_ent_new(l2, b, f.line, ENT_LINE, f.state);
        f.kind = e->kind;
        *e = f;
        cm_ratio sv = l2->cfg.service;
        uint64_t next = now + cm_ratio_ceil(sv.num, sv);
        cm_engine_schedule_at(l2->eng, retry > now ? retry : next, fill_ev, b,
                              (uint64_t)(e - b->ent));
        return;
    }
    install(l2, b, v, f.line, now);
    const cm_proto_row *r = row_of(l2, f.state, CM_L2E_FILL);
    if (!r) return;
    cm_obs_l2 at;
    obs_at(&at, b, v, f.state, CM_L2E_FILL, r, NULL, now);
    exec(b, r, &at, f.line, v, &f, 1, NULL, NULL, now);
}

void cm_l2_dram_done(cm_l2 *l2, const cm_dram_req *q)
{
    if (q->write) return; /* a write-back left its entry when queued */
    l2_bank *b = &l2->bank[q->src];
    l2_ent *e = q->ctx;
    e->dram = DR_NONE;
    fill(b, e);
}

static void expire_ev(cm_engine *eng, void *obj, uint64_t arg)
{
    l2_bank *b = obj;
    cm_l2 *l2 = b->l2;
    l2_ent *e = &b->ent[arg];
    if (e->kind == ENT_SIDE) {
        l2_ent_free(l2, b, e);
        l2_kick(b);
        return;
    }
    if (e->kind != ENT_LINE || e->state != CM_L2S_M_I) return;
    const cm_proto_row *r = row_of(l2, CM_L2S_M_I, CM_L2E_EXPIRE);
    if (!r) return;
    cm_obs_l2 at;
    obs_at(&at, b, NULL, CM_L2S_M_I, CM_L2E_EXPIRE, r, NULL,
           cm_engine_now(eng));
    exec(b, r, &at, e->line, NULL, e, 0, NULL, NULL, cm_engine_now(eng));
}
