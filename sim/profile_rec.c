/* profile_rec.c - the profile recorder of profile_rec.h: its records, the
 * hooks that fill them, its setup, and the records still open at the end.
 * The GPU-VIni directory's stream and sets are profile_dirsets.c's, the
 * set lists of both the directory and the L1 profile_sets.c's, the rows
 * of the profile profile_table.c's; the state they share is
 * profile_rec_impl.h.
 *
 * Per-slot records: an L1 copy's fill and latest load, an L2 line's latest
 * load (the one that set its lease) with whose it was; per warp its latest
 * store, its fence and the leases its writes came back with; per request
 * in flight (by id) what the L2 told about it.  The program-order access
 * history (hist_access) is blind to the protocol: what happened to a line
 * since a core's previous load or access of it, which the directory model
 * turns into each protocol's (state, event) probabilities
 * (models/directory.c). */
#include "sim/profile_rec_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/linemap.h"
#include "data/stackdist.h"
#include "sim/l2.h"

/* ---- records ------------------------------------------------------------------- */

/* The time from t to now; a time never set (NONE64) is infinitely far. */
static double since(uint64_t now, uint64_t t)
{
    return t == NONE64 ? INFINITY : (double)(now - t);
}

/* A point (x, y) into joint k's cell. */
static void joint_add(cm_profile_rec *r, int k, double x, double y)
{
    double *cell = r->joint[k][hist_bin(x)][hist_bin(y)];
    cell[0] += 1;
    cell[1] += x;
    cell[2] += y;
}

/* A record of map m (key) in the growable array *arr, zero-filled with
 * its times at NONE64 when new (*fresh); NULL when out of memory. */
void *profile_rec_grow(cm_profile_rec *r, cm_linemap *m, uint64_t key,
                       void **arr, size_t *n, size_t *cap, size_t sz,
                       int *fresh)
{
    cm_linemap_entry *e;
    cm_err err = {0};
    int found;
    if (cm_linemap_upsert(m, key, &e, &found, &err)) {
        r->oom = 1;
        return NULL;
    }
    *fresh = !found;
    if (*fresh) {
        if (*n == *cap) {
            size_t nc = *cap ? 2 * *cap : 4096;
            void *na = realloc(*arr, nc * sz);
            if (!na) {
                cm_linemap_erase(m, e); /* the key must not stay half in */
                r->oom = 1;
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

static req_rec *req_of(cm_profile_rec *r, uint64_t id)
{
    cm_linemap_entry *e = cm_linemap_find(&r->reqmap, id);
    return e ? &r->req[e->val] : NULL;
}

static req_rec *req_new(cm_profile_rec *r, uint64_t id)
{
    if (r->free_req == UINT32_MAX) {
        uint32_t nc = r->creq ? 2 * r->creq : 1024;
        req_rec *n = realloc(r->req, nc * sizeof *n);
        if (!n) {
            r->oom = 1;
            return NULL;
        }
        for (uint32_t i = r->creq; i < nc; i++)
            n[i].next_free = i + 1 < nc ? i + 1 : UINT32_MAX;
        r->req = n;
        r->free_req = r->creq;
        r->creq = nc;
    }
    cm_linemap_entry *e;
    cm_err err = {0};
    int found;
    if (cm_linemap_upsert(&r->reqmap, id, &e, &found, &err)) {
        r->oom = 1;
        return NULL;
    }
    if (!found) {
        e->val = r->free_req;
        r->free_req = r->req[e->val].next_free;
    }
    req_rec *q = &r->req[e->val];
    *q = (req_rec){.stall_read_t = NONE64};
    return q;
}

static void req_drop(cm_profile_rec *r, uint64_t id)
{
    cm_linemap_entry *e = cm_linemap_find(&r->reqmap, id);
    if (!e) return;
    uint32_t i = (uint32_t)e->val;
    r->req[i].next_free = r->free_req;
    r->free_req = i;
    cm_linemap_erase(&r->reqmap, e);
}

static warp_rec *warp_of(cm_profile_rec *r, uint32_t sm, uint32_t warp)
{
    return &r->w[(size_t)sm * r->warps + warp];
}

/* ---- the program-order history --------------------------------------------- */

/* The L1's sets at every size (joint.l1.set_mates_<w>, 2^w sets per L1,
 * w = 0 .. L1S_MAX_W: one set to 1024, the design's 8-128 KB L1s of 4
 * ways and more): a core's load of line (its record id, its stack
 * distance d in the core's load stream, -1: its first).  The L1 indexes
 * its sets by the line's low bits (sim/l1_impl.h). */
#define L1S_MAX_W 10

static void l1_sets_access(cm_profile_rec *r, uint32_t sm, uint32_t id,
                           uint64_t line, int64_t d)
{
    uint64_t idx[L1S_MAX_W + 1];
    for (unsigned b = 0; b <= L1S_MAX_W; b++) idx[b] = line;
    if (profile_sets_access(r->l1sl, sm, id, idx, d)) r->oom = 1;
}

static void hist_access(cm_profile_rec *r, uint32_t sm, uint64_t line,
                        uint8_t op, uint64_t now)
{
    uint64_t me = 1ull << sm;
    int fresh;
    struct hrec *h =
        profile_rec_grow(r, &r->hmap, line * 64 + sm, (void **)&r->hrec,
                         &r->hn, &r->hcap, sizeof *r->hrec, &fresh);
    struct grec *g =
        h ? profile_rec_grow(r, &r->gmap, line, (void **)&r->grec, &r->gn,
                             &r->gcap, sizeof *r->grec, &fresh)
          : NULL;
    if (!g) return;
    if (fresh) {
        g->holders = 0;
        g->writer = -1;
    }
    /* the latest write to the line by another core */
    uint64_t other_w = g->writer == (int32_t)sm ? g->w2_t : g->w_t;
    if (op == CM_OP_LOAD) {
        unsigned f = 0;
        if (h->load_t != NONE64) {
            uint64_t t = h->load_t;
            f |= HF_SEEN;
            if (other_w != NONE64 && other_w > t) f |= HF_REMOTE;
            if (h->store_t != NONE64 && h->store_t > t) f |= HF_STORE;
            if (h->atomic_t != NONE64 && h->atomic_t > t) f |= HF_ATOMIC;
            if (r->sync_t[sm] != NONE64 && r->sync_t[sm] > t) f |= HF_SYNC;
        }
        if (g->holders && !(g->holders & me) &&
            !(g->holders & (g->holders - 1)))
            f |= HF_OWNED;
        r->load_flags[f] += 1;
        hist_add(&r->h[H_LGAP], since(now, h->load_t));
        int64_t d = -1;
        cm_err e = {0};
        if (!cm_stackdist_access(r->lsd[sm], line, &d, NULL, &e))
            hist_add(&r->h[H_LSD], d < 0 ? INFINITY : (double)d);
        if (r->l1sl) l1_sets_access(r, sm, (uint32_t)(g - r->grec), line, d);
        h->load_t = now;
        g->holders |= me;
    } else {
        unsigned f = (g->holders & me) ? SF_HOLDS : 0;
        if (g->holders == me) f |= SF_ONLY;
        r->store_flags[f] += 1;
        r->write_sharers[__builtin_popcountll(g->holders & ~me)] += 1;
        hist_add(&r->h[H_SGAP], since(now, h->any_t));
        if (op == CM_OP_STORE) {
            h->store_t = now;
            r->n_stores++;
        } else {
            h->atomic_t = now;
            r->n_atomics++;
        }
        if (g->writer != (int32_t)sm) g->w2_t = g->w_t;
        g->writer = (int32_t)sm;
        g->w_t = now;
        g->holders = me;
    }
    h->any_t = now;
}

/* ---- L1 and warp hooks ---------------------------------------------------------- */

/* A fill's first load (or its leaving, loaded = 0): its reuse time. */
static void reuse_end(cm_profile_rec *r, l1_rec *c, int loaded, uint64_t now)
{
    if (!c->open) return;
    c->open = 0;
    hist_add(&r->h[H_REUSE], loaded ? (double)(now - c->fill_t) : INFINITY);
}

static void on_l1_access(void *obj, uint32_t sm, uint32_t warp, uint64_t line,
                         uint8_t op, int32_t way, const cm_mreq *req,
                         uint64_t now)
{
    cm_profile_rec *r = obj;
    if (r->history) hist_access(r, sm, line, op, now);
    if (op == CM_OP_LOAD) r->n_loads++;
    if (way >= 0 && op == CM_OP_LOAD) {
        l1_rec *c = &r->l1[(size_t)sm * r->l1_lines + way];
        c->use_t = now;
        /* a hit, or a copy found expired, ends the fill's reuse wait */
        if (!req || (req->flags & CM_MF_EXPIRED_MISS)) reuse_end(r, c, 1, now);
    }
    if (req) {
        req_rec *q = req_new(r, req->id);
        if (q) q->inst = warp_of(r, sm, warp)->waits;
    }
}

static void on_l1_fill(void *obj, uint32_t sm, int32_t way, const cm_mreq *m,
                       uint64_t now)
{
    cm_profile_rec *r = obj;
    l1_rec *c = &r->l1[(size_t)sm * r->l1_lines + way];
    r->n_fills++;
    const req_rec *q = req_of(r, m->id);
    /* the lease's start at the L2 to the copy's fill: the copy lives that
     * much less than the lifetime granted */
    if (r->proto->lifetime != CM_LIFE_NONE && q && q->lease_len > 0)
        hist_add(&r->h[H_LDELAY],
                 fmax(0, (double)q->lease_len -
                             ((double)m->ts - (double)now)));
    *c = (l1_rec){.fill_t = now, .use_t = NONE64, .lt = m->ts, .live = 1,
                  .open = 1};
}

/* Per fill: the age of the copy at the latest load that found it. */
static void last_use(cm_profile_rec *r, const l1_rec *c)
{
    hist_add(&r->h[H_LAST],
             c->use_t == NONE64 ? INFINITY : (double)(c->use_t - c->fill_t));
}

static void on_l1_leave(void *obj, uint32_t sm, int32_t way, int capacity,
                        uint64_t now)
{
    cm_profile_rec *r = obj;
    l1_rec *c = &r->l1[(size_t)sm * r->l1_lines + way];
    if (!c->live) return;
    reuse_end(r, c, 0, now);
    last_use(r, c);
    hist_add(&r->h[H_RESID],
             capacity ? (double)(now - c->fill_t) : INFINITY);
    c->live = 0;
}

static void on_l1_reply(void *obj, uint32_t sm, const cm_mreq *m,
                        uint64_t now)
{
    cm_profile_rec *r = obj;
    warp_rec *w = warp_of(r, sm, m->warp);
    const req_rec *q = req_of(r, m->id);
    if (m->op == CM_OP_LOAD) {
        r->fill_sum += (double)(now - m->issue_cycle);
        r->fill_n++;
    }
    /* the warp's latest lease among the GWCTs its writes brought back:
     * the L2 load whose lease its coming fence waits out */
    if (m->op != CM_OP_LOAD && q && q->lease1 &&
        (w->lease_t == NONE64 || q->lease1 - 1 > w->lease_t))
        w->lease_t = q->lease1 - 1;
    if (m->op == CM_OP_STORE) {
        r->ack_sum += (double)(now - m->issue_cycle);
        r->ack_n++;
        if (w->stores_out && --w->stores_out == 0) w->acked_t = now;
    }
    req_drop(r, m->id);
}

static void on_warp(void *obj, uint32_t sm, uint32_t warp,
                    cm_obs_warp_event what, uint64_t now)
{
    cm_profile_rec *r = obj;
    warp_rec *w = warp_of(r, sm, warp);
    switch (what) {
    case CM_OBS_MEMORY:
    case CM_OBS_BARRIER:
        w->waits++;
        break;
    case CM_OBS_STORE:
        w->last_store = now;
        w->stores_out++;
        break;
    case CM_OBS_FENCE:
        w->waits++;
        r->n_fences++;
        r->sync_t[sm] = now;
        hist_add(&r->h[H_S2F], since(now, w->last_store));
        w->last_store = NONE64;
        w->fence_t = now;
        break;
    case CM_OBS_FENCE_DONE: {
        /* a load after the fence issued can make the slack negative: the
         * GWCT then lies beyond fence + L; clamped at 0 */
        double slack = w->lease_t == NONE64        ? INFINITY
                       : w->lease_t >= w->fence_t ? 0
                                                  : (double)(w->fence_t -
                                                             w->lease_t);
        double ack = w->acked_t != NONE64 && w->acked_t > w->fence_t
                         ? (double)(w->acked_t - w->fence_t)
                         : 0;
        hist_add(&r->h[H_FSLACK], slack);
        hist_add(&r->h[H_FACK], ack);
        /* the pair, for the fences with a lease: a fence's ack wait and
         * slack are not independent (models/lifetime.c, section 5) */
        if (isfinite(slack)) joint_add(r, JOINT_FENCE, ack, slack);
        w->lease_t = NONE64;
        break;
    }
    case CM_OBS_KERNEL:
        r->sync_t[sm] = now;
        break;
    default:
        break;
    }
}

/* ---- L2 hooks ----------------------------------------------------------------- */

static l2_rec *l2_of(cm_profile_rec *r, const cm_obs_l2 *at)
{
    return at->way >= 0 ? &r->l2[(size_t)at->bank * r->l2_lines + at->way]
                        : NULL;
}

static void on_l2_enqueue(void *obj, uint32_t bank, const cm_mreq *m,
                          uint64_t now)
{
    (void)bank;
    cm_profile_rec *r = obj;
    r->flight_sum += (double)(now - m->issue_cycle);
    r->flight_n++;
}

static void on_l2_stall(void *obj, const cm_obs_l2 *at, const cm_mreq *m,
                        uint64_t now)
{
    (void)now;
    cm_profile_rec *r = obj;
    req_rec *q = req_of(r, m->id);
    const l2_rec *l = l2_of(r, at);
    /* a write held by an unexpired GT (TC-Strong) */
    if (!q || !l || at->state != CM_L2S_V || !(at->actions & CM_A2_STALL))
        return;
    q->stall_read_t = l->read_t;
    q->stall_hol = at->blocked;
    q->stall_read_core = l->read_core;
    q->stall_read_warp = l->read_warp;
    q->stall_read_inst = l->read_inst;
    q->stall_read_hol = l->read_hol;
}

static void on_l2_request(void *obj, const cm_obs_l2 *at, const cm_mreq *m,
                          uint64_t now)
{
    cm_profile_rec *r = obj;
    /* a request served again after waiting on a fetch was counted, and
     * its distances taken, when it first came (as the L2's own
     * statistics count it once); here it only sets the lease below */
    int again = (m->flags & CM_MF_WAITED) != 0;
    if (!again) {
        r->n_dir++;
        int64_t d;
        cm_err e = {0};
        if (!cm_stackdist_access(r->sd, m->line, &d, NULL, &e))
            hist_add(&r->h[H_SD], d < 0 ? INFINITY : (double)d);
        if (r->asd) profile_dirsets_record(r, m);
    }
    if (m->msg != CM_MSG_GETS) return;
    l2_rec *l = l2_of(r, at);
    int valid = l && !cm_l2_state_transient(at->state);
    if (!again) {
        r->n_l2_loads++;
        hist_add(&r->h[H_GAP], valid ? since(now, l->read_t) : INFINITY);
        /* a valid line no load has leased since its fill (a store or an
         * atomic brought it in): its GT is 0, so under TC this load finds
         * it expired whatever the lifetime */
        if (valid && l->read_t == NONE64) r->n_l2_unleased++;
    }
    /* the load that sets the lease, if it is served here */
    if (l && !(at->actions & (CM_A2_FETCH | CM_A2_MERGE))) {
        const req_rec *q = req_of(r, m->id);
        *l = (l2_rec){.read_t = now, .read_hol = at->blocked,
                      .read_core = m->sm, .read_warp = m->warp,
                      .read_inst = q ? q->inst : 0};
    }
}

/* S (the store's time since the line's latest load), split for carrying
 * it across lifetimes (models/lifetime.c): stores after their own warp's
 * load of the line, whose S holds that warp's round trip, and the others,
 * queued behind the load that set the lease. */
static void store_split(cm_profile_rec *r, const cm_mreq *m, double s2w,
                        int priv, uint32_t core, uint32_t warp, uint32_t inst,
                        const req_rec *q, double blocked0, double blocked1,
                        uint64_t read_t)
{
    if (isfinite(s2w) && core == m->sm && warp == m->warp) {
        hist_add(&r->h[H_OWN], s2w);
        if (!priv) hist_add(&r->h[H_OWNS], s2w);
        /* its warp's next memory instruction after that load, nothing
         * between to wait for: S does not stretch with the machine */
        if (q && q->inst == inst + 1) {
            hist_add(&r->h[H_OWNN], s2w);
            if (!priv) hist_add(&r->h[H_OWNNS], s2w);
        }
        return;
    }
    hist_add(&r->h[H_R2WO], s2w);
    hist_add(&r->h[H_R2WOS], priv ? INFINITY : s2w);
    if (isfinite(s2w) && m->queued < read_t) {
        double blocked = fmin(fmax(blocked1 - blocked0, 0), s2w);
        joint_add(r, JOINT_BEHIND, s2w - blocked, blocked);
        if (!priv) joint_add(r, JOINT_BEHIND_SHARED, s2w - blocked, blocked);
    }
}

static void on_l2_write(void *obj, const cm_obs_l2 *at, const cm_mreq *m,
                        uint64_t now)
{
    cm_profile_rec *r = obj;
    const l2_rec *l = l2_of(r, at);
    const req_rec *q = req_of(r, m->id);
    if (!l) return;
    int stalled = (m->flags & CM_MF_STALLED) != 0;
    /* S from the store's arrival at the queue head, before any stall; a
     * store held by a GT is timed from the load that held it: the line may
     * have left the L2 and come back while it waited */
    uint64_t arrival = stalled ? m->stall_cycle : now;
    int held = stalled && q && q->stall_read_t != NONE64;
    uint64_t read_t = held ? q->stall_read_t : l->read_t;
    double s2w = read_t == NONE64 ? INFINITY
                 : read_t > arrival ? 0 /* an out-of-order bank */
                                    : (double)(arrival - read_t);
    /* a write by the line's only lease holder is never held (S = inf) */
    int priv = !held && !at->multi && at->reader == (int32_t)m->sm &&
               m->ts == at->gt;
    r->n_l2_stores++;
    hist_add(&r->h[H_R2W], s2w);
    hist_add(&r->h[H_R2WS], priv ? INFINITY : s2w);
    store_split(r, m, s2w, priv, held ? q->stall_read_core : l->read_core,
                held ? q->stall_read_warp : l->read_warp,
                held ? q->stall_read_inst : l->read_inst, q,
                held ? q->stall_read_hol : l->read_hol,
                stalled && q ? q->stall_hol : at->blocked, read_t);
    if (stalled) r->sstall_sum += (double)(now - m->stall_cycle);
    /* the stall less its lease part (L - S')+, so the lease parts and
     * these waits sum to the stalls */
    if (held) {
        r->n_held++;
        r->post_sum += (double)(now - m->stall_cycle) -
                       fmax(0, (double)at->lifetime - s2w);
    }
}

static void on_l2_reply(void *obj, const cm_obs_l2 *at, const cm_mreq *m,
                        uint64_t now)
{
    (void)now;
    cm_profile_rec *r = obj;
    req_rec *q = req_of(r, m->id);
    const l2_rec *l = l2_of(r, at);
    if (!q) return;
    if (at->actions & CM_A2_GT) q->lease_len = at->lifetime;
    /* the lease slack follows the GWCT: a private write returns none */
    if ((at->actions & CM_A2_GWCT) && (at->actions & CM_A2_WRITE) && l &&
        l->read_t != NONE64)
        q->lease1 = l->read_t + 1;
}

static void on_l2_evict(void *obj, uint32_t bank, int32_t way, uint64_t now)
{
    cm_profile_rec *r = obj;
    l2_rec *l = &r->l2[(size_t)bank * r->l2_lines + way];
    r->n_l2_evict++;
    hist_add(&r->h[H_EVAGE], since(now, l->read_t));
}

static void on_l2_fill(void *obj, uint32_t bank, int32_t way, uint64_t line,
                       uint64_t now)
{
    (void)line;
    (void)now;
    cm_profile_rec *r = obj;
    r->l2[(size_t)bank * r->l2_lines + way] = (l2_rec){.read_t = NONE64};
}

static void on_l2_replace(void *obj, uint32_t bank, unsigned copies,
                          uint64_t now)
{
    (void)bank;
    (void)now;
    cm_profile_rec *r = obj;
    r->sharers_hist[copies < 64 ? copies : 64] += 1;
}

static void on_l2_reply_busy(void *obj, uint32_t bank, double cycles)
{
    (void)bank;
    cm_profile_rec *r = obj;
    r->reply_busy += cycles;
}

/* ---- setup ------------------------------------------------------------------- */

cm_status cm_profile_rec_new(const cm_params *p, const cm_protocol *proto,
                             cm_profile_rec **out, cm_err *err)
{
    *out = NULL;
    cm_profile_rec *r = calloc(1, sizeof *r);
    if (!r) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    r->proto = proto;
    r->sms = (uint32_t)p->gpu_sms;
    r->warps = (uint32_t)p->gpu_warps_per_sm;
    r->banks = (uint32_t)p->l2_banks;
    r->l1_lines = (uint32_t)(p->l1_size / p->l1_line);
    r->l2_lines = (uint32_t)(p->l2_bank_size / p->l2_line);
    r->history = r->sms <= 64;
    r->dir_hash = p->dir_index == 0;
    if (proto->lifetime == CM_LIFE_STRONG)
        r->fixed_lifetime = (uint64_t)p->tc_lifetime_strong;
    if (proto->lifetime == CM_LIFE_WEAK)
        r->fixed_lifetime = (uint64_t)p->tc_lifetime_weak;
    r->free_req = UINT32_MAX;
    r->l1 = calloc((size_t)r->sms * r->l1_lines, sizeof *r->l1);
    r->l2 = malloc((size_t)r->banks * r->l2_lines * sizeof *r->l2);
    r->w = malloc((size_t)r->sms * r->warps * sizeof *r->w);
    r->sync_t = malloc(r->sms * sizeof *r->sync_t);
    r->joint = calloc(JOINT_COUNT, sizeof *r->joint);
    r->sd = cm_stackdist_new();
    r->lsd = calloc(r->sms, sizeof *r->lsd);
    int bad = !r->l1 || !r->l2 || !r->w || !r->sync_t ||
              !r->joint || !r->sd || !r->lsd ||
              cm_linemap_alloc(&r->reqmap, 12) ||
              cm_linemap_alloc(&r->hmap, 12) || cm_linemap_alloc(&r->gmap, 12);
    for (uint32_t i = 0; !bad && i < r->sms; i++)
        bad = !(r->lsd[i] = cm_stackdist_new());
    if (!bad && r->history)
        bad = !(r->l1sl = profile_sets_new(r->sms, 0, L1S_MAX_W, SIZE_MAX));
    if (!bad && proto->sharers == CM_SHARERS_DIR)
        bad = !(r->asd = cm_stackdist_new()) ||
              cm_linemap_alloc(&r->amap, 12) ||
              !(r->sl = profile_dirsets_new(r->banks));
    if (bad) {
        cm_profile_rec_free(r);
        return cm_err_set(err, CM_EINTERNAL, "out of memory for the profile");
    }
    for (size_t i = 0; i < (size_t)r->banks * r->l2_lines; i++)
        r->l2[i] = (l2_rec){.read_t = NONE64};
    for (size_t i = 0; i < (size_t)r->sms * r->warps; i++)
        r->w[i] = (warp_rec){.last_store = NONE64, .fence_t = NONE64,
                             .lease_t = NONE64, .acked_t = NONE64};
    for (uint32_t i = 0; i < r->sms; i++) r->sync_t[i] = NONE64;
    r->obs = (cm_observer){.obj = r,
                           .l1_access = on_l1_access,
                           .l1_fill = on_l1_fill,
                           .l1_leave = on_l1_leave,
                           .l1_reply = on_l1_reply,
                           .warp = on_warp,
                           .l2_enqueue = on_l2_enqueue,
                           .l2_stall = on_l2_stall,
                           .l2_request = on_l2_request,
                           .l2_write = on_l2_write,
                           .l2_reply = on_l2_reply,
                           .l2_evict = on_l2_evict,
                           .l2_fill = on_l2_fill,
                           .l2_replace = on_l2_replace,
                           .l2_reply_busy = on_l2_reply_busy};
    *out = r;
    return CM_OK;
}

void cm_profile_rec_free(cm_profile_rec *r)
{
    if (!r) return;
    free(r->l1);
    free(r->l2);
    free(r->w);
    free(r->sync_t);
    free(r->joint);
    free(r->req);
    cm_linemap_free(&r->reqmap);
    cm_stackdist_free(r->sd);
    cm_stackdist_free(r->asd);
    for (uint32_t i = 0; r->lsd && i < r->sms; i++) cm_stackdist_free(r->lsd[i]);
    free(r->lsd);
    cm_linemap_free(&r->hmap);
    cm_linemap_free(&r->gmap);
    cm_linemap_free(&r->amap);
    free(r->hrec);
    free(r->grec);
    free(r->arec);
    profile_sets_free(r->sl);
    profile_sets_free(r->l1sl);
    free(r);
}

const cm_observer *cm_profile_rec_observer(cm_profile_rec *r)
{
    return &r->obs;
}

/* ---- the end of the run ------------------------------------------------------- */

/* Copies still held at the end: an expired copy's first load never came;
 * the others are censored (no reuse sample), but their residency is known
 * to be no capacity eviction. */
void profile_rec_close_copies(cm_profile_rec *r, uint64_t now)
{
    for (size_t i = 0; i < (size_t)r->sms * r->l1_lines; i++) {
        l1_rec *c = &r->l1[i];
        if (!c->live) continue;
        if (r->proto->lifetime != CM_LIFE_NONE && now > c->lt)
            reuse_end(r, c, 0, now);
        hist_add(&r->h[H_RESID], INFINITY);
        last_use(r, c);
        c->live = 0;
    }
    for (size_t i = 0; i < r->an; i++) /* emptied, not loaded again */
        if (r->arec[i].empty_at != NONE64) {
            hist_add(&r->h[H_EGAP], INFINITY);
            r->arec[i].empty_at = NONE64;
        }
}
