/* profile_rec.c - the profile recorder of profile_rec.h.
 *
 * Histograms use quarter-octave bins, [0,1), [1, 2^0.25), ..., plus the
 * mass at infinity ("never happened").  Per-slot records: an L1 copy's
 * fill and latest load, an L2 line's latest load (the one that set its
 * lease) with whose it was; per warp its latest store, its fence and the
 * leases its writes came back with; per request in flight (by id) what the
 * L2 told about it.  The program-order access history (hist_access) is
 * blind to the protocol: what happened to a line since a core's previous
 * load or access of it, which the directory model turns into each
 * protocol's (state, event) probabilities (models/directory.c). */
#include "sim/profile_rec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/linemap.h"
#include "data/stackdist.h"
#include "sim/l2.h"

#define NONE64 UINT64_MAX
#define HBINS 181

enum {
    H_REUSE, H_RESID, H_R2W, H_R2WS, H_GAP, H_EVAGE, H_S2F, H_FSLACK, H_FACK,
    H_SD, H_LGAP, H_LSD, H_SGAP, H_LAST, H_ASD, H_ESD, H_EGAP, H_LDELAY,
    H_OWN, H_OWNS, H_R2WO, H_R2WOS, H_OWNN, H_OWNNS, H_COUNT
};
static const char *const hist_names[H_COUNT] = {
    "l1.reuse_time",         "l1.residency",
    "l2.read_to_write",      "l2.read_to_write_shared",
    "l2.load_gap",           "l2.evict_age",
    "warp.store_to_fence",   "warp.fence_lease_slack",
    "warp.fence_ack_wait",   "dir.stack_distance",
    "l1.load_gap",           "l1.load_distance",
    "l1.store_gap",          "l1.last_use",
    "dir.alloc_distance",    "dir.empty_distance",
    "dir.empty_gap",         "l1.lease_delay",
    "l2.read_to_write_own",  "l2.read_to_write_own_shared",
    "l2.read_to_write_other", "l2.read_to_write_other_shared",
    "l2.read_to_write_own_next", "l2.read_to_write_own_next_shared"};

/* l1.load_flags and l1.store_flags (models/profile.h) */
enum {
    HF_REMOTE = 1, HF_STORE = 2, HF_ATOMIC = 4, HF_SYNC = 8, HF_OWNED = 16,
    HF_SEEN = 32, HF_COUNT = 64
};
enum { SF_HOLDS = 1, SF_ONLY = 2, SF_COUNT = 4 };
enum { JOINT_BEHIND, JOINT_BEHIND_SHARED, JOINT_FENCE, JOINT_COUNT };

typedef struct hist {
    double bin[HBINS], inf;
} hist;

typedef struct l1_rec {
    uint64_t fill_t, use_t, lt;
    uint8_t live, open; /* open: its first load is still to come */
} l1_rec;

typedef struct l2_rec {
    uint64_t read_t; /* the latest load that set the lease (NONE64) */
    double read_hol; /* the bank's blocked cycles then */
    uint32_t read_core, read_warp, read_inst;
} l2_rec;

typedef struct warp_rec {
    uint64_t last_store, fence_t, lease_t, acked_t;
    uint32_t waits, stores_out;
} warp_rec;

typedef struct req_rec {
    uint64_t lease1;    /* 1 + the L2 load a GWCT reply's lease came from */
    uint64_t lease_len; /* the lifetime a lease-granting reply carried */
    uint64_t stall_read_t; /* a write held by a lease: its load's time */
    double stall_read_hol, stall_hol;
    uint32_t inst, stall_read_core, stall_read_warp, stall_read_inst;
    uint32_t next_free;
} req_rec;

struct cm_profile_rec {
    cm_observer obs;
    const cm_protocol *proto;
    uint32_t sms, warps, banks, l1_lines, l2_lines, line_bytes;
    int history; /* the program-order history (at most 64 SMs) */
    int dir_hash; /* dir.index=hash (joint.dir.index_lines) */
    uint64_t fixed_lifetime;
    l1_rec *l1;    /* [sm * l1_lines + way] */
    l2_rec *l2;    /* [bank * l2_lines + way] */
    warp_rec *w;   /* [sm * warps + warp] */
    uint64_t *sync_t; /* [sm]: the latest fence or kernel start */
    req_rec *req;
    uint32_t nreq, creq, free_req;
    cm_linemap reqmap; /* request id -> req index */
    hist h[H_COUNT];
    /* joint cells, by the bins of (x, y): weight, sum of x, sum of y.
     * JOINT_BEHIND(_SHARED): the stores queued behind the lease's load, by
     * (S less the bank's blocked cycles, those cycles), all / no private
     * writes; JOINT_FENCE: the fences with a lease to wait out, by (ack
     * wait, lease slack) */
    double (*joint)[HBINS][HBINS][3];
    double sharers_hist[65], load_flags[HF_COUNT], store_flags[SF_COUNT],
        write_sharers[65];
    double ack_sum, ack_n, fill_sum, fill_n, flight_sum, flight_n;
    double n_fills, n_loads, n_stores, n_atomics, n_l2_loads, n_l2_stores,
        n_l2_evict, n_fences, n_dir, n_held, post_sum, sstall_sum,
        reply_busy, n_empties;
    cm_stackdist *sd, *asd, **lsd;
    /* the history: line x 64 + core -> hrec; line -> grec */
    cm_linemap hmap, gmap, amap;
    struct hrec { uint64_t load_t, store_t, atomic_t, any_t; } *hrec;
    struct grec { uint64_t w_t, w2_t, holders; int32_t writer; } *grec;
    struct arec { uint64_t sharers, empty_at, first_load; } *arec;
    struct setlocal *sl; /* GPU-VIni: the directory's sets at every size */
    size_t hn, hcap, gn, gcap, an, acap;
    int oom; /* out of memory inside a hook: reported at the end */
};

/* ---- histograms -------------------------------------------------------------- */

static int hist_bin(double x)
{
    int i = x < 1 ? 0 : 1 + (int)floor(4 * log2(x));
    return i < HBINS ? i : HBINS - 1;
}

static void hist_add(hist *h, double x)
{
    if (!isfinite(x))
        h->inf += 1;
    else
        h->bin[hist_bin(x)] += 1;
}

static double hist_edge(int i)
{
    return i == 0 ? 0 : exp2((i - 1) / 4.0);
}

static double since(uint64_t now, uint64_t t)
{
    return t == NONE64 ? INFINITY : (double)(now - t);
}

/* ---- records ------------------------------------------------------------------- */

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
static void *grow_rec(cm_profile_rec *r, cm_linemap *m, uint64_t key,
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

static void hist_access(cm_profile_rec *r, uint32_t sm, uint64_t line,
                        uint8_t op, uint64_t now)
{
    uint64_t me = 1ull << sm;
    int fresh;
    struct hrec *h = grow_rec(r, &r->hmap, line * 64 + sm, (void **)&r->hrec,
                              &r->hn, &r->hcap, sizeof *r->hrec, &fresh);
    struct grec *g = h ? grow_rec(r, &r->gmap, line, (void **)&r->grec,
                                  &r->gn, &r->gcap, sizeof *r->grec, &fresh)
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

/* ---- GPU-VIni: the directory's sets at every size
 * ---------------------------- */

/* For every width b of the directory's index from SL_MIN (2^b sets per bank
 * under cm_l2_dir_fold; nbits widths, to 14 at most: 16384 sets per bank),
 * each set's GETS as an LRU list, so that a
 * GETS's position in its set's list is its set-local stack distance j, the
 * distinct lines of its set loaded since its own last load: an LRU
 * directory of W ways misses it iff j >= W.  Only loads count: a store or
 * atomic refreshes an entry only while it is there (j < W), which depends
 * on W; counting every request undercounted the misses of a trace-driven
 * LRU directory by 5-7% on dlb, loads alone overcount them by 0.5-4%.
 * Counted per GETS by the octave of its stack distance d in the whole
 * directory stream (dir_stream's, as the model reads it), into
 * joint.dir.set_mates_<b> (x: mean d, y: mean j of a cell; j from SL_CAP
 * on is recorded as SL_CAP, "at least").  The lists are walked to SL_CAP
 * at most. */
#define SL_MIN 2
#define SL_BITS 13
#define SL_CAP 64
#define SL_DBINS 48
#define SL_JBINS 26

/* A set's lines, most recent first, the first SL_CAP of them. */
typedef struct sl_set {
    uint32_t *ids;
    uint8_t len, cap;
} sl_set;

typedef struct setlocal {
    unsigned nbits;
    size_t off[SL_BITS]; /* where width SL_MIN + b's sets start */
    sl_set *set;         /* banks << (SL_MIN + b) sets per width */
    double cell[SL_BITS][SL_DBINS][SL_JBINS][3]; /* GETS, sum d, sum j */
} setlocal;

static setlocal *sl_new(uint32_t banks)
{
    setlocal *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    size_t sets = 0;
    while (s->nbits < SL_BITS &&
           sets + ((size_t)banks << (SL_MIN + s->nbits)) <= ((size_t)1 << 21)) {
        s->off[s->nbits] = sets;
        sets += (size_t)banks << (SL_MIN + s->nbits++);
    }
    s->set = calloc(sets ? sets : 1, sizeof *s->set);
    if (!s->set) {
        free(s);
        return NULL;
    }
    return s;
}

static void sl_free(setlocal *s, uint32_t banks)
{
    if (!s) return;
    size_t sets = s->nbits ? s->off[s->nbits - 1] +
                                 ((size_t)banks << (SL_MIN + s->nbits - 1))
                           : 0;
    for (size_t i = 0; i < sets; i++) free(s->set[i].ids);
    free(s->set);
    free(s);
}

/* 0 .. 16 one each, then [17,19) [19,23) [23,27) [27,32) [32,38) [38,45)
 * [45,54) [54,64) and SL_CAP on. */
static int sl_jbin(unsigned j)
{
    static const unsigned edge[] = {19, 23, 27, 32, 38, 45, 54, SL_CAP};
    if (j <= 16) return (int)j;
    for (int k = 0; k < 8; k++)
        if (j < edge[k]) return 17 + k;
    return SL_JBINS - 1;
}

/* A GETS of line (its record id, stack distance d, -1: its first): its
 * set-local distance at every width, and the line to the front of its
 * sets. */
static void sl_access(cm_profile_rec *r, uint32_t id, uint64_t line, int64_t d)
{
    setlocal *s = r->sl;
    int db = d < 1 ? 0 : 1 + (int)floor(log2((double)d));
    if (db >= SL_DBINS) db = SL_DBINS - 1;
    for (unsigned b = 0; b < s->nbits; b++) {
        unsigned w = SL_MIN + b;
        uint64_t idx = cm_l2_dir_fold(line, r->banks, w, r->dir_hash);
        sl_set *st =
            &s->set[s->off[b] + ((size_t)(line % r->banks) << w |
                                 (size_t)(idx & (((uint64_t)1 << w) - 1)))];
        unsigned j = 0;
        while (j < st->len && st->ids[j] != id) j++;
        if (d >= 0) {
            double *c = s->cell[b][db][sl_jbin(j < SL_CAP ? j : SL_CAP)];
            c[0] += 1;
            c[1] += (double)d;
            c[2] += j < SL_CAP ? j : SL_CAP;
        }
        if (j == st->len) { /* not among the first SL_CAP: in at the front */
            if (st->len == st->cap && st->cap < SL_CAP) {
                unsigned nc = st->cap ? 2u * st->cap : 2;
                if (nc > SL_CAP) nc = SL_CAP;
                uint32_t *n = realloc(st->ids, nc * sizeof *n);
                if (!n) {
                    r->oom = 1;
                    return;
                }
                st->ids = n;
                st->cap = (uint8_t)nc;
            }
            if (st->len < st->cap) st->len++;
            j = st->len - 1u;
        }
        memmove(st->ids + 1, st->ids, j * sizeof *st->ids);
        st->ids[0] = id;
    }
}

/* GPU-VIni's directory sees a different stream from the L2's: only a load
 * (GETS) creates an entry, so a store or atomic to a line never loaded
 * touches none, and an entry whose sharer list a store or atomic empties is
 * the first victim of its set.  Recorded per request, with the sharer
 * lists of an unbounded directory (the cores whose GETS the line served
 * since its latest emptying): dir.alloc_distance, dir.empty_distance and
 * dir.empty_gap (models/profile.h). */
static void dir_stream(cm_profile_rec *r, const cm_mreq *m)
{
    int load = m->msg == CM_MSG_GETS, fresh = 0;
    struct arec *a;
    if (load) {
        a = grow_rec(r, &r->amap, m->line, (void **)&r->arec, &r->an, &r->acap,
                     sizeof *a, &fresh);
        if (!a) return;
        if (fresh) {
            a->sharers = 0;
            a->first_load = (uint64_t)r->n_l2_loads;
        }
    } else {
        cm_linemap_entry *e = cm_linemap_find(&r->amap, m->line);
        if (!e) return; /* never loaded: no entry to touch */
        a = &r->arec[e->val];
    }
    int64_t d;
    cm_err err = {0};
    if (cm_stackdist_access(r->asd, m->line, &d, NULL, &err)) {
        r->oom = 1;
        return;
    }
    double dist = d < 0 ? INFINITY : (double)d;
    uint64_t me = 1ull << m->sm;
    if (r->sl && load) sl_access(r, (uint32_t)(a - r->arec), m->line, d);
    if (load) {
        hist_add(&r->h[H_ASD], dist);
        if (a->empty_at != NONE64) {
            hist_add(&r->h[H_EGAP], r->n_l2_loads - (double)a->empty_at);
            a->empty_at = NONE64;
        }
        a->sharers |= me;
        return;
    }
    uint64_t left = m->msg == CM_MSG_ATOMIC ? 0 : a->sharers & me;
    if (a->sharers && !left) {
        hist_add(&r->h[H_ESD], dist);
        r->n_empties++;
        a->empty_at = (uint64_t)r->n_l2_loads;
    }
    a->sharers = left;
}

static void on_l2_request(void *obj, const cm_obs_l2 *at, const cm_mreq *m,
                          uint64_t now)
{
    cm_profile_rec *r = obj;
    r->n_dir++;
    int64_t d;
    cm_err e = {0};
    if (!cm_stackdist_access(r->sd, m->line, &d, NULL, &e))
        hist_add(&r->h[H_SD], d < 0 ? INFINITY : (double)d);
    if (r->asd) dir_stream(r, m);
    if (m->msg != CM_MSG_GETS) return;
    r->n_l2_loads++;
    l2_rec *l = l2_of(r, at);
    int valid = l && !cm_l2_state_transient(at->state);
    hist_add(&r->h[H_GAP], valid ? since(now, l->read_t) : INFINITY);
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
    if (!bad && proto->sharers == CM_SHARERS_DIR)
        bad = !(r->asd = cm_stackdist_new()) ||
              cm_linemap_alloc(&r->amap, 12) || !(r->sl = sl_new(r->banks));
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
    sl_free(r->sl, r->banks);
    free(r);
}

const cm_observer *cm_profile_rec_observer(cm_profile_rec *r)
{
    return &r->obs;
}

/* ---- the profile ---------------------------------------------------------------- */

typedef struct rows {
    cm_table *t;
    cm_status st;
    cm_err *err;
} rows;

static void row(rows *o, const char *q, double lo, double hi, double v,
                int rate)
{
    if (o->st) return;
    char a[32], b[32], c[32];
    cm_fmt_double(a, lo);
    cm_fmt_double(b, hi);
    cm_fmt_double(c, v);
    const char *cells[4] = {q, rate ? "" : a, rate ? "" : b, c};
    o->st = cm_table_append(o->t, cells, o->err);
}

static double stat_value(const cm_stat_row *rs, size_t n, const char *metric,
                         const char *comp)
{
    const cm_stat_row *x = cm_stats_find(rs, n, metric, comp);
    return x && isfinite(x->value) ? x->value : 0;
}

/* Copies still held at the end: an expired copy's first load never came;
 * the others are censored (no reuse sample), but their residency is known
 * to be no capacity eviction. */
static void close_copies(cm_profile_rec *r, uint64_t now)
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

static void dist_rows(cm_profile_rec *r, rows *o)
{
    for (int k = 0; k < H_COUNT; k++) {
        const hist *h = &r->h[k];
        for (int i = 0; i < HBINS; i++)
            if (h->bin[i] > 0)
                row(o, hist_names[k], hist_edge(i), hist_edge(i + 1),
                    h->bin[i], 0);
        if (h->inf > 0) row(o, hist_names[k], INFINITY, INFINITY, h->inf, 0);
    }
    static const char *const joint_names[JOINT_COUNT] = {
        "joint.l2.behind_parts", "joint.l2.behind_parts_shared",
        "joint.warp.fence_ack_slack"};
    for (int k = 0; k < JOINT_COUNT; k++)
        for (int i = 0; i < HBINS; i++)
            for (int j = 0; j < HBINS; j++) {
                const double *cell = r->joint[k][i][j];
                if (cell[0] > 0)
                    row(o, joint_names[k], cell[1] / cell[0],
                        cell[2] / cell[0], cell[0], 0);
            }
    struct {
        const char *name;
        const double *w;
        int n;
    } counts[] = {{"dir.sharers", r->sharers_hist, 65},
                  {"l1.load_flags", r->load_flags, HF_COUNT},
                  {"l1.store_flags", r->store_flags, SF_COUNT},
                  {"l1.write_sharers", r->write_sharers, 65}};
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
        for (int i = 0; i < counts[k].n; i++)
            if (counts[k].w[i] > 0)
                row(o, counts[k].name, i, i + 1, counts[k].w[i], 0);
}

/* GPU-VIni: how the lines the run loaded (the directory's entries) spread
 * over the sets of a directory of any size, under its own index
 * (cm_l2_dir_fold).  For every number of index bits b from 0 to a few past
 * the lines per bank, the (bank, index) pairs by the lines they hold: the
 * point (b, n) weighs the pairs holding n lines (n = 0 too).  The model
 * reduces an index modulo the sets as the directory does.  Stops at 2^22
 * counters.  And how the pairs fill as the run goes on: at width b,
 * joint.dir.index_late_<b> has per number n of lines a pair holds (x) the
 * mean of them first loaded in the run's last quarter of GETS (y),
 * weight the pairs (n >= 1): a longer or shorter run of the same program
 * adds or drops lines at that rate (models/recall_geom.c, "The run's length"). */
static void index_rows(cm_profile_rec *r, rows *o)
{
    if (!r->asd || !r->an || o->st) return;
    size_t per_bank = (r->an + r->banks - 1) / r->banks;
    unsigned top = 0;
    while (top < 40 && ((size_t)1 << top) < per_bank) top++;
    top += 3;
    while (top > 0 && ((size_t)r->banks << top) > ((size_t)1 << 22)) top--;
    uint32_t *cnt = malloc(((size_t)r->banks << top) * sizeof *cnt);
    uint32_t *late = malloc(((size_t)r->banks << top) * sizeof *late);
    double *hist = NULL, *hlate = NULL;
    size_t hcap = 0;
    uint64_t last_quarter = (uint64_t)(r->n_l2_loads * 3 / 4);
    if (!cnt || !late) {
        free(cnt);
        free(late);
        r->oom = 1;
        return;
    }
    for (unsigned b = 0; b <= top && !o->st; b++) {
        size_t n = (size_t)r->banks << b, most = 0;
        uint64_t mask = ((uint64_t)1 << b) - 1;
        memset(cnt, 0, n * sizeof *cnt);
        memset(late, 0, n * sizeof *late);
        for (size_t i = 0; i <= r->amap.mask; i++) {
            const cm_linemap_entry *e = &r->amap.e[i];
            if (e->val == CM_LINEMAP_EMPTY) continue;
            uint64_t idx = cm_l2_dir_fold(e->key, r->banks, b, r->dir_hash);
            size_t k = (size_t)(e->key % r->banks) << b | (size_t)(idx & mask);
            if (++cnt[k] > most) most = cnt[k];
            if (r->arec[e->val].first_load >= last_quarter) late[k]++;
        }
        if (most + 1 > hcap) {
            double *nh = realloc(hist, (most + 1) * sizeof *nh);
            double *nl = nh ? realloc(hlate, (most + 1) * sizeof *nl) : NULL;
            if (nh) hist = nh;
            if (nl) hlate = nl;
            if (!nh || !nl) {
                r->oom = 1;
                break;
            }
            hcap = most + 1;
        }
        memset(hist, 0, (most + 1) * sizeof *hist);
        memset(hlate, 0, (most + 1) * sizeof *hlate);
        for (size_t k = 0; k < n; k++) {
            hist[cnt[k]] += 1;
            hlate[cnt[k]] += late[k];
        }
        for (size_t v = 0; v <= most; v++)
            if (hist[v] > 0) row(o, "joint.dir.index_lines", b, v, hist[v], 0);
        char name[48];
        snprintf(name, sizeof name, "joint.dir.index_late_%u", b);
        for (size_t v = 1; v <= most && !o->st; v++)
            if (hist[v] > 0) row(o, name, v, hlate[v] / hist[v], hist[v], 0);
    }
    free(hist);
    free(hlate);
    free(late);
    free(cnt);
    for (unsigned b = 0; r->sl && b < r->sl->nbits && !o->st; b++) {
        char name[48];
        snprintf(name, sizeof name, "joint.dir.set_mates_%u", SL_MIN + b);
        for (int i = 0; i < SL_DBINS; i++)
            for (int j = 0; j < SL_JBINS; j++) {
                const double *c = r->sl->cell[b][i][j];
                if (c[0] > 0) row(o, name, c[1] / c[0], c[2] / c[0], c[0], 0);
            }
    }
}

cm_status cm_profile_rec_table(cm_profile_rec *r, const cm_stats *stats,
                               uint64_t cycles, cm_table **out, cm_err *err)
{
    static const char *const cols[4] = {"quantity", "lo", "hi", "value"};
    *out = NULL;
    if (r->oom)
        return cm_err_set(err, CM_EINTERNAL, "out of memory for the profile");
    cm_stat_row *rs = NULL;
    size_t nrs = 0;
    cm_status st = cm_stats_rows(stats, &rs, &nrs, err);
    if (st) return st;
    rows o = {cm_table_new(4, cols), CM_OK, err};
    if (!o.t) {
        free(rs);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    close_copies(r, cycles);
    double t = cycles ? (double)cycles : 1, occ = 0;
    for (uint32_t b = 0; b < r->banks; b++) {
        char comp[32];
        snprintf(comp, sizeof comp, "bank%u", b);
        occ += stat_value(rs, nrs, "l2.mshr.occupancy_mean", comp);
    }
    double hol = stat_value(rs, nrs, "l2.hol_stall_cycles", "all");
    free(rs);
    struct {
        const char *name;
        double v;
    } rates[] = {
        {"rate.l1_fills", r->n_fills / t},
        {"rate.l1_loads", r->n_loads / t},
        {"rate.l1_stores", r->n_stores / t},
        {"rate.l1_atomics", r->n_atomics / t},
        {"rate.l2_loads", r->n_l2_loads / t},
        {"rate.l2_stores", r->n_l2_stores / t},
        {"rate.l2_evictions", r->n_l2_evict / t},
        {"rate.fences", r->n_fences / t},
        {"rate.dir_accesses", r->n_dir / t},
        {"rate.l2_banks", r->banks},
        {"rate.store_ack_latency", r->ack_n ? r->ack_sum / r->ack_n : 0},
        {"rate.fill_latency", r->fill_n ? r->fill_sum / r->fill_n : 0},
        {"rate.request_flight", r->flight_n ? r->flight_sum / r->flight_n : 0},
        {"rate.dir_footprint", (double)cm_stackdist_lines(r->sd)},
        {"rate.l1_lines", r->l1_lines},
        {"rate.l2_reply_busy", r->reply_busy / (r->banks * t)},
        {"rate.l2_mshr_occupancy", occ / r->banks},
        /* the lifetime the run held fixed: what models/lifetime.c carries
         * the profile from */
        {"rate.lifetime", (double)r->fixed_lifetime},
        /* bank-cycles with nothing the bank may serve per store stall
         * cycle: 1 at an in-order bank, whose stalled store blocks it;
         * less when it serves around the stalled stores (TCSOO) */
        {"rate.l2_hol_per_stall", r->sstall_sum > 0 ? hol / r->sstall_sum : 0},
        /* stores held by a lease per store, and their mean wait after it
         * passed (0 without such stores) */
        {"rate.l2_stall_share",
         r->n_l2_stores > 0 ? r->n_held / r->n_l2_stores : 0},
        {"rate.l2_post_wait", r->n_held > 0 ? r->post_sum / r->n_held : 0},
    };
    for (size_t i = 0; i < sizeof rates / sizeof *rates; i++)
        row(&o, rates[i].name, 0, 0, rates[i].v, 1);
    if (r->asd) {
        row(&o, "rate.dir_alloc_footprint", 0, 0,
            (double)cm_stackdist_lines(r->asd), 1);
        row(&o, "rate.dir_empties", 0, 0, r->n_empties / t, 1);
    }
    dist_rows(r, &o);
    index_rows(r, &o);
    if (r->oom && !o.st)
        o.st = cm_err_set(err, CM_EINTERNAL, "out of memory for the profile");
    if (o.st) {
        cm_table_free(o.t);
        return o.st;
    }
    *out = o.t;
    return CM_OK;
}
