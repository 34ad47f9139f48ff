/* l2_warm.c - the L2's setup, statistics, functional controller and
 * inspection (see l2.h; the timed controller is sim/l2.c).
 *
 * The functional controller runs the protocol's rows for one message at
 * once, as if its transaction had finished: a fetch fills (the victim's
 * REPLACE row runs first), a write held by an unexpired GT waits it out,
 * a transaction's invalidations, recalls and forwards go to the L1s
 * through the caller's function and its last row takes their answers.
 * Parked timestamps are not kept (nothing waits functionally), and a line
 * with an entry (a timed transaction) is left to it.
 *
 * The TC-Weak lifetime predictor is not driven here: it keeps the value
 * the detailed machine left it at across a fast-forward.  Warming puts a
 * round's accesses at one time (gpu_sample.c ff_run), so copies expire
 * and lines are written or evicted unexpired at rates no timed run has;
 * driven by them the predictor fell to about half its equilibrium and
 * the windows after it missed more (kmn, 3M cycles, sampled against full
 * detail: tc.lifetime_mean 3815 against 6952, L1 miss ratio 0.824
 * against 0.657; frozen: 6342 and 0.687). */
#include "sim/l2_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- functional execution ------------------------------------------------------ */

static void warm_base(const cm_l2 *l2, const l2_bank *b, const cm_mreq *m,
                      cm_warm_reply *out)
{
    const l2_way *way = l2_way_find(l2, b, m->line);
    int wb = l2->cfg.proto->l1_write_back;
    out->value = way ? way->value : l2_mem_read(l2, m->line);
    out->ts = way ? way->gt : 0;
    out->msg = m->msg == CM_MSG_GETS     ? CM_MSG_DATA
               : m->msg == CM_MSG_ATOMIC ? (wb ? CM_MSG_DATA_M : CM_MSG_AREPLY)
               : m->msg == CM_MSG_UPGR   ? CM_MSG_ACK
               : wb                      ? CM_MSG_DATA_M
                                         : CM_MSG_ACK;
}

static void warm_evict(cm_l2 *l2, l2_bank *b, l2_way *w)
{
    l2_way_clear(b, w); /* first, as evict (l2.c) */
    if (w->dirty) l2_writeback(l2, b, w->line, w->value, NULL);
}

/* Sends the row's INVs, RCLs or FWD to the L1s; the last answer (an
 * owner's WB or NODATA, else an INVACK) in *resp.  CM_MSG_NONE if an L1
 * could not answer: the row does not go (copies already dropped stay
 * listed, which is safe). */
static unsigned warm_forwards(cm_l2 *l2, l2_bank *b, const cm_proto_row *r,
                              uint64_t line, l2_way *way, int32_t req,
                              uint64_t vtime, cm_mreq *resp)
{
    uint64_t *sh = l2_sharers(l2, b, line, way), to = 0;
    uint32_t a = r->actions;
    if (a & CM_A2_INV) to = (sh ? *sh : 0) & ~(req >= 0 ? 1ull << req : 0);
    if (a & CM_A2_RCL) {
        to = sh ? *sh : 0;
        if (way && way->owner >= 0) to |= 1ull << way->owner;
    }
    if ((a & CM_A2_FWD) && way && way->owner >= 0 && way->owner != req)
        to = 1ull << way->owner;
    unsigned last = CM_MSG_INVACK;
    for (uint32_t i = 0; to >> i; i++) {
        if (!(to >> i & 1)) continue;
        uint64_t v = 0;
        int dirty = 0, held = 1;
        unsigned msg = (a & CM_A2_FWD) ? r->msg
                       : (a & CM_A2_INV) ? CM_MSG_INV
                                         : CM_MSG_RCL;
        unsigned ans = l2->fwd ? l2->fwd(l2->fwd_obj, i, line, msg, vtime, &v,
                                         &dirty, &held)
                               : CM_MSG_INVACK;
        /* an L1 in a timed transaction on the line, or an owner without
         * its copy (its PUT on the way): they must end first */
        if (ans == CM_MSG_NONE ||
            (!held && way && way->owner == (int32_t)i))
            return CM_MSG_NONE;
        if (ans == CM_MSG_WB || ans == CM_MSG_NODATA) {
            last = ans;
            resp->value = v;
            resp->flags = dirty ? CM_MF_DIRTY : 0;
        }
    }
    resp->msg = (uint8_t)last;
    return last;
}

static void warm_row(cm_l2 *l2, l2_bank *b, const cm_proto_row *r,
                     uint64_t line, l2_way **wayp, cm_mreq *m,
                     const cm_mreq *resp, uint64_t vtime, cm_warm_reply *out);

/* A REPLACE or DIR_REPLACE row, functionally (a stall waits out its GT). */
static void warm_replace(cm_l2 *l2, l2_bank *b, uint64_t line, unsigned ev,
                         uint64_t vtime)
{
    l2_way *way;
    l2_ent *e;
    unsigned st = l2_state(l2, b, line, vtime, &way, &e);
    if (e) return;
    const cm_proto_row *r = l2->row[st][ev];
    if (r && (r->actions & CM_A2_STALL) && st == CM_L2S_V)
        r = l2->row[CM_L2S_E][ev];
    if (!r || (r->actions & CM_A2_STALL)) {
        if (way) warm_evict(l2, b, way);
        return;
    }
    warm_row(l2, b, r, line, &way, NULL, NULL, vtime, NULL);
}

static void warm_dir_room(cm_l2 *l2, l2_bank *b, uint64_t line, uint64_t vtime)
{
    l2_dirent *set = l2_dir_set(l2, b, line), *v = NULL;
    for (uint32_t i = 0; i < l2->dir_ways && !v; i++)
        if (!set[i].valid || !set[i].sharers) v = &set[i];
    for (uint32_t j = 0; !v && j < l2->dir_ways; j++)
        if (!l2_ent_find(l2, b, set[j].line) &&
            (!v || set[j].stamp < v->stamp))
            v = &set[j];
    if (!v) return;
    if (v->valid && v->sharers)
        warm_replace(l2, b, v->line, CM_L2E_DIR_REPLACE, vtime);
    l2_dir_put(b, v, line);
}

static l2_way *warm_install(cm_l2 *l2, l2_bank *b, uint64_t line,
                            uint64_t vtime)
{
    l2_way *v = l2_victim(l2, b, line);
    if (v && v->valid) {
        warm_replace(l2, b, v->line, CM_L2E_REPLACE, vtime);
        v = l2_victim(l2, b, line);
    }
    if (!v || v->valid) return NULL;
    l2_way_install(l2, b, v, line);
    return v;
}

/* Row r's actions, functionally; a transaction runs to its last row. */
static void warm_row(cm_l2 *l2, l2_bank *b, const cm_proto_row *r,
                     uint64_t line, l2_way **wayp, cm_mreq *m,
                     const cm_mreq *resp, uint64_t vtime, cm_warm_reply *out)
{
    uint32_t a = r->actions;
    l2_way *way = *wayp;
    int32_t req = m ? (int32_t)m->sm : -1;
    uint64_t old = way ? way->value : 0, gwct = 0;
    if (a & CM_A2_ALLOC) way = *wayp = warm_install(l2, b, line, vtime);
    if (a & (CM_A2_TXN | CM_A2_FWD | CM_A2_INV | CM_A2_RCL)) {
        cm_mreq ans = {.line = line};
        unsigned last = warm_forwards(l2, b, r, line, way, req, vtime, &ans);
        if (last == CM_MSG_NONE) {
            if (out) out->msg = CM_MSG_NONE;
            return;
        }
        unsigned ev = last == CM_MSG_WB       ? CM_L2E_WB
                      : last == CM_MSG_NODATA ? CM_L2E_NODATA
                      : m && m->msg == CM_MSG_ATOMIC ? CM_L2E_INVACK_LAST_A
                      : m && m->msg == CM_MSG_UPGR && way &&
                              (way->sharers >> m->sm & 1)
                          ? CM_L2E_INVACK_LAST_U
                          : CM_L2E_INVACK_LAST;
        if (a & CM_A2_EVICT && way) {
            warm_evict(l2, b, way);
            way = *wayp = NULL;
        }
        const cm_proto_row *rr = l2->row[r->next][ev];
        if (rr) warm_row(l2, b, rr, line, wayp, m, &ans, vtime, out);
        return;
    }
    if ((a & CM_A2_WRITE) && way && m) {
        way->value = m->value;
        way->dirty = 1;
    }
    if ((a & CM_A2_TAKE) && resp && (resp->flags & CM_MF_DIRTY)) {
        if (way) {
            way->value = resp->value;
            way->dirty = 1;
        } else {
            l2_mem_write(l2, line, resp->value);
        }
    }
    if ((a & CM_A2_GT) && way) {
        if (way->gt < vtime) {
            way->reader = -1;
            way->multi = 0;
        }
        uint64_t t = vtime + l2_lifetime(l2, b);
        if (t > way->gt) way->gt = t;
        if (way->reader < 0)
            way->reader = req;
        else if (way->reader != req)
            way->multi = 1;
    }
    if ((a & CM_A2_GWCT) && way) gwct = way->gt;
    if ((a & CM_A2_GTINC) && way) way->gt++;
    uint64_t *sh = l2_sharers(l2, b, line, way);
    if ((a & CM_A2_ADD) && req >= 0) {
        if (!sh && l2->cfg.proto->sharers == CM_SHARERS_DIR) {
            warm_dir_room(l2, b, line, vtime);
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
    if ((a & CM_A2_REPLY) && out) {
        out->msg = r->msg;
        out->value = r->msg == CM_MSG_AREPLY ? old : way ? way->value : 0;
        out->ts = way ? way->gt : 0;
        (void)gwct;
    }
    if ((a & CM_A2_EVICT) && way) {
        warm_evict(l2, b, way);
        *wayp = NULL;
    }
}

static void warm_put(cm_l2 *l2, l2_bank *b, const cm_mreq *m)
{
    l2_way *way = l2_way_find(l2, b, m->line);
    if (!way) {
        if (m->flags & CM_MF_DIRTY) l2_mem_write(l2, m->line, m->value);
        return;
    }
    if (m->flags & CM_MF_DIRTY) {
        way->value = m->value;
        way->dirty = 1;
    }
    if (way->owner == (int32_t)m->sm) way->owner = -1;
}

/* The request's rows, functionally.  One the L2 cannot apply at once (the
 * line busy with a timed transaction, a stall an owner's PUT will end, no
 * way free of transactions for its fill) answers CM_MSG_NONE: the L1
 * keeps no copy, so no L1 holds a line the L2 does not know it holds. */
static void warm_request(cm_l2 *l2, l2_bank *b, cm_mreq *m, uint64_t vtime,
                         cm_warm_reply *out)
{
    l2_way *way;
    l2_ent *e;
    unsigned st = l2_state(l2, b, m->line, vtime, &way, &e);
    out->msg = CM_MSG_NONE;
    if (e) return; /* left to the timed transaction */
    for (int step = 0; step < 4; step++) {
        unsigned ev = l2_refine(l2, b, m, st, way);
        const cm_proto_row *r = l2->row[st][ev];
        if (!r) return;
        if (r->actions & CM_A2_STALL) {
            if (st != CM_L2S_V) return; /* the owner's PUT is on its way */
            st = CM_L2S_E;              /* the write waits out the GT */
            continue;
        }
        if (way) way->stamp = ++b->stamp;
        if (r->actions & CM_A2_FETCH) {
            way = warm_install(l2, b, m->line, vtime);
            const cm_proto_row *f = way ? l2->row[r->next][CM_L2E_FILL] : NULL;
            if (!f) return;
            st = f->next;
            continue;
        }
        if (r->actions & CM_A2_MERGE) return;
        warm_base(l2, b, m, out);
        warm_row(l2, b, r, m->line, &way, m, NULL, vtime, out);
        return;
    }
}

void cm_l2_warm(cm_l2 *l2, const cm_mreq *m, uint64_t vtime,
                cm_warm_reply *out, cm_l2_forward_fn forward, void *obj)
{
    l2_bank *b = &l2->bank[m->line % l2->cfg.banks];
    cm_mreq q = *m;
    l2->timed = 0;
    l2->fwd = forward;
    l2->fwd_obj = obj;
    if (m->msg == CM_MSG_PUT) {
        warm_put(l2, b, m);
    } else {
        warm_request(l2, b, &q, vtime, out);
    }
    l2->timed = 1;
}

/* ---- setup ------------------------------------------------------------------ */

static cm_status bank_stats(cm_l2 *l2, l2_bank *b, cm_stats *st, cm_err *err)
{
    const cm_l2_config *c = &l2->cfg;
    char comp[32];
    snprintf(comp, sizeof comp, "bank%u", b->id);
    struct {
        const char *name;
        cm_stat **s;
    } counters[] = {{"l2.accesses", &b->st_acc},
                    {"l2.misses", &b->st_miss},
                    {"l2.mshr.merges", &b->st_merge},
                    {"l2.writebacks", &b->st_wb},
                    {"l2.atomics", &b->st_atom},
                    {"l2.evictions", &b->st_evict},
                    {"l2.hol_stall_cycles", &b->st_hol},
                    {"l2.store_stall_cycles", &b->st_sstall}};
    cm_status s = CM_OK;
    for (size_t i = 0; !s && i < sizeof counters / sizeof *counters; i++)
        s = cm_stats_counter(st, counters[i].name, comp, counters[i].s, err);
    if (!s)
        s = cm_stats_ratio(st, "l2.miss_ratio", comp, b->st_miss, b->st_acc,
                           err);
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
        s = cm_stats_latency(st, "l2.mshr.lifetime", comp, 32, 0,
                             &b->st_mlife, err);
    if (!s && c->proto->sharers != CM_SHARERS_NONE)
        s = cm_stats_counter(st, "dir.invalidations", comp, &b->st_inv, err);
    if (!s && c->proto->sharers != CM_SHARERS_NONE)
        s = cm_stats_counter(st, "dir.recalls", comp, &b->st_rcl, err);
    if (!s && c->proto->sharers == CM_SHARERS_DIR)
        s = cm_stats_counter(st, "dir.evictions", comp, &b->st_direv, err);
    static const char *const pred[PE_COUNT] = {
        "tc.pred.l1_expired", "tc.pred.l2_expired", "tc.pred.evict_unexpired",
        "tc.pred.write_unexpired"};
    for (int k = 0; !s && l2->timestamps && k < PE_COUNT; k++)
        s = cm_stats_counter(st, pred[k], comp, &b->st_pred[k], err);
    /* the lifetime loads are granted, over time: tc.lifetime_mean */
    if (!s && l2->timestamps) s = cm_stats_level(st, "tc.lifetime", comp,
                                                 &b->st_life, err);
    if (!s && l2->timestamps)
        cm_stat_level(b->st_life, (uint32_t)l2_lifetime(l2, b), 0);
    return s;
}

static cm_status bank_init(cm_l2 *l2, l2_bank *b, unsigned id, cm_err *err)
{
    const cm_l2_config *c = &l2->cfg;
    b->l2 = l2;
    b->id = id;
    b->ch = id % c->channels;
    b->pred = l2->p->tc_predictor_init;
    b->tags = calloc(l2->sets * c->ways, sizeof *b->tags);
    b->tagl = malloc(l2->sets * c->ways * sizeof *b->tagl);
    b->ent = calloc(c->mshrs, sizeof *b->ent);
    b->free_stack = malloc(c->mshrs * sizeof *b->free_stack);
    b->map = malloc(((size_t)l2->map_mask + 1) * sizeof *b->map);
    b->todram = malloc(c->mshrs * sizeof *b->todram);
    b->out = malloc(l2->out_cap * sizeof *b->out);
    if (c->proto->sharers == CM_SHARERS_DIR)
        b->dir = calloc((size_t)l2->dir_sets * l2->dir_ways, sizeof *b->dir);
    b->dir_absent = L2_NONE;
    if (!b->tags || !b->tagl || !b->ent || !b->free_stack || !b->map ||
        !b->todram || !b->out ||
        (c->proto->sharers == CM_SHARERS_DIR && !b->dir))
        return cm_err_set(err, CM_EINTERNAL, "out of memory for L2 bank %u",
                          id);
    for (uint32_t k = 0; k < c->mshrs; k++)
        b->free_stack[k] = c->mshrs - 1 - k; /* entry 0 first */
    b->nfree = c->mshrs;
    memset(b->map, 0xff, ((size_t)l2->map_mask + 1) * sizeof *b->map);
    for (size_t k = 0; k < l2->sets * c->ways; k++) b->tagl[k] = L2_NONE;
    return CM_OK;
}

static void noc_ready(void *obj)
{
    l2_out_kick(obj);
}

static void dram_ready(void *obj)
{
    l2_drain_todram(obj);
}

static cm_status geometry(cm_l2 *l2, const cm_l2_config *cfg, cm_err *err)
{
    const cm_params *p = cfg->params;
    if (!cfg->banks || !cfg->channels || !cfg->ways || !cfg->line_bytes ||
        !cfg->queue || !cfg->mshrs || !cfg->merge || !cfg->service.num ||
        !cfg->service.den || !cfg->atomic.num || !cfg->atomic.den ||
        !cfg->proto || !p || !cfg->pool)
        return cm_err_set(err, CM_EINPUT, "L2: incomplete configuration");
    if (cfg->bank_bytes % (cfg->ways * cfg->line_bytes) != 0 ||
        cfg->bank_bytes < cfg->ways * cfg->line_bytes)
        return cm_err_set(err, CM_EINPUT,
                          "l2.bank_size %llu is not a positive multiple of "
                          "l2.ways x l2.line = %llu x %llu",
                          (unsigned long long)cfg->bank_bytes,
                          (unsigned long long)cfg->ways,
                          (unsigned long long)cfg->line_bytes);
    if (cfg->proto->sharers != CM_SHARERS_NONE && cfg->sms > 64)
        return cm_err_set(err, CM_EINPUT,
                          "protocol %s keeps sharer sets of at most 64 L1s; "
                          "gpu.sms is %u",
                          cfg->proto->name, cfg->sms);
    l2->sets = cfg->bank_bytes / (cfg->ways * cfg->line_bytes);
    if (!(cfg->banks & (cfg->banks - 1)) && l2->sets &&
        !(l2->sets & (l2->sets - 1))) {
        l2->bank_shift = (unsigned)__builtin_ctzll(cfg->banks);
        l2->set_mask = l2->sets - 1;
    }
    uint32_t m = 1;
    while (m < 2 * cfg->mshrs) m <<= 1;
    l2->map_mask = m - 1;
    /* every request a merge list or the queue can hold, every forward of
     * every transaction, and the hits in the pipeline at full rate: the
     * reply FIFO throttles only when the reply network backs up */
    l2->out_cap = cfg->mshrs * (cfg->merge + cfg->sms + 1) + cfg->queue + 2 +
                  (uint32_t)((cfg->pipe + 2) * cfg->service.den /
                             cfg->service.num);
    double l1_lines = p->l1_size / p->l1_line * (double)cfg->sms;
    uint64_t dir = (uint64_t)ceil(p->dir_ratio * l1_lines / cfg->banks);
    l2->dir_ways = (uint32_t)p->dir_ways;
    l2->dir_sets = (uint32_t)((dir + l2->dir_ways - 1) / l2->dir_ways);
    if (!l2->dir_sets) l2->dir_sets = 1;
    l2->dir_hash = p->dir_index == 0;
    while (l2->dir_bits < 32 && (1ull << l2->dir_bits) < l2->dir_sets)
        l2->dir_bits++;
    l2->timestamps = cfg->proto->lifetime != CM_LIFE_NONE;
    /* part of the pipeline (GPGPU-Sim's ROP delay, the tag lookup) comes
     * before a request is served: a lease starts at service, so where
     * service falls in the round trip is how long a copy lives in the L1 */
    l2->pipe_in = cfg->pipe_in < cfg->pipe ? cfg->pipe_in : cfg->pipe;
    l2->lifetime = (uint64_t)(cfg->proto->lifetime == CM_LIFE_WEAK
                                  ? p->tc_lifetime_weak
                                  : p->tc_lifetime_strong);
    return CM_OK;
}

cm_status cm_l2_new(const cm_l2_config *cfg, cm_engine *eng, cm_stats *stats,
                    cm_noc *noc, cm_dram *dram, cm_l2 **out, cm_err *err)
{
    *out = NULL;
    cm_l2 *l2 = calloc(1, sizeof *l2);
    if (!l2) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st = geometry(l2, cfg, err);
    if (st) {
        free(l2);
        return st;
    }
    l2->cfg = *cfg;
    l2->p = cfg->params;
    l2->eng = eng;
    l2->noc = noc;
    l2->dram = dram;
    l2->timed = 1;
    for (unsigned s = 0; s < CM_L2S_COUNT; s++)
        for (unsigned e = 0; e < CM_L2E_COUNT; e++)
            l2->row[s][e] = cm_proto_find_l2(cfg->proto->l2, s, e);
    l2->mem_cap = 1024;
    l2->mem = malloc(l2->mem_cap * sizeof *l2->mem);
    l2->bank = calloc(cfg->banks, sizeof *l2->bank);
    if (!l2->mem || !l2->bank)
        st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t i = 0; !st && i < l2->mem_cap; i++) l2->mem[i].line = L2_NONE;
    for (unsigned i = 0; !st && i < cfg->banks; i++) {
        st = bank_init(l2, &l2->bank[i], i, err);
        if (!st) st = bank_stats(l2, &l2->bank[i], stats, err);
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
        free(b->tags);
        free(b->tagl);
        free(b->ent);
        free(b->free_stack);
        free(b->map);
        free(b->todram);
        free(b->out);
        free(b->dir);
    }
    free(l2->bank);
    free(l2->mem);
    free(l2);
}

size_t cm_l2_events(const cm_l2_config *cfg)
{
    /* per bank: service, reply FIFO, GT wake-up, fill retries, and the
     * parked timestamps' expiries (at most one per entry) */
    return (size_t)cfg->banks * (4 + 2 * (size_t)cfg->mshrs);
}

/* ---- the end and inspection --------------------------------------------------- */

void cm_l2_finish(cm_l2 *l2)
{
    uint64_t now = l2->eng->now;
    for (unsigned i = 0; i < l2->cfg.banks; i++) {
        l2_bank *b = &l2->bank[i];
        if (b->stalled) {
            cm_stat_add(b->st_hol, (double)(now - b->stall_since));
            b->hol_cum += (double)(now - b->stall_since);
            b->stall_since = now;
        }
    }
}

void cm_l2_fence_seen(cm_l2 *l2)
{
    l2->fences_seen = 1;
}

uint64_t cm_l2_inside(const cm_l2 *l2)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < l2->cfg.banks; i++) {
        const l2_bank *b = &l2->bank[i];
        n += b->qn + b->reserved;
        for (uint32_t k = 0; k < l2->cfg.mshrs; k++)
            if (b->ent[k].kind == ENT_LINE) n += b->ent[k].nwait;
    }
    return n;
}

unsigned cm_l2_line_state(const cm_l2 *l2, uint64_t line)
{
    cm_l2 *m = (cm_l2 *)l2; /* l2_state reads only */
    l2_way *way;
    l2_ent *e;
    return l2_state(m, &m->bank[line % l2->cfg.banks], line, l2->eng->now,
                    &way, &e);
}

uint64_t cm_l2_value(const cm_l2 *l2, uint64_t line)
{
    const l2_bank *b = &l2->bank[line % l2->cfg.banks];
    const l2_way *w = l2_way_find(l2, b, line);
    return w ? w->value : l2_mem_read(l2, line);
}

int cm_l2_owner(const cm_l2 *l2, uint64_t line)
{
    const l2_bank *b = &l2->bank[line % l2->cfg.banks];
    const l2_way *w = l2_way_find(l2, b, line);
    return w ? w->owner : -1;
}
