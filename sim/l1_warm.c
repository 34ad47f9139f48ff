/* l1_warm.c - the L1's setup, its functional controller and its
 * inspection (see l1.h; the timed controller is sim/l1.c).
 *
 * Functional execution runs the same rows as the timed controller, on the
 * copy alone: the access row, then at once the reply row with the answer
 * the memory side gives (a request is never in flight), then the victim's
 * REPLACE row.  Nothing waits, nothing is counted, and a line with an MSHR
 * entry (a timed request in flight) is left to its requests. */
#include "sim/l1_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- functional execution --------------------------------------------------- */

void l1_warm_answer(cm_l1 *l1, unsigned msg, const l1_way *w)
{
    if (!l1->warm_mem) return;
    cm_mreq m = {.line = w->line,
                 .value = w->value,
                 .sm = l1->cfg.sm,
                 .msg = (uint8_t)msg,
                 .flags = w->dirty ? CM_MF_DIRTY : 0};
    cm_warm_reply ignored;
    l1->warm_mem(l1->warm_obj, &m, l1->warm_now, &ignored);
}

/* The reply a request gets when no memory side answers: its class's base
 * reply, the lease ending now. */
static void base_reply(const cm_l1 *l1, unsigned msg, uint64_t vtime,
                       cm_warm_reply *out)
{
    int wb = l1->cfg.proto->l1_write_back;
    out->value = 0;
    out->ts = vtime;
    out->msg = msg == CM_MSG_GETS     ? CM_MSG_DATA
               : msg == CM_MSG_ATOMIC ? (wb ? CM_MSG_DATA_M : CM_MSG_AREPLY)
               : msg == CM_MSG_UPGR   ? CM_MSG_ACK
               : wb                   ? CM_MSG_DATA_M
                                      : CM_MSG_ACK;
}

/* The event the functional reply raises (the entry's only request). */
static unsigned warm_event(const cm_l1 *l1, uint8_t op, const cm_warm_reply *rep,
                           uint64_t vtime)
{
    if (l1->cfg.proto->l1_write_back)
        return rep->msg == CM_MSG_DATA_E   ? CM_L1E_DATA_E
               : rep->msg == CM_MSG_DATA_M ? CM_L1E_DATA_M
               : rep->msg == CM_MSG_ACK    ? CM_L1E_ACK
                                           : CM_L1E_DATA;
    if (op == CM_OP_STORE) return CM_L1E_ACK_LAST;
    if (op == CM_OP_ATOMIC) return CM_L1E_AREPLY_LAST;
    if (l1->timestamps && rep->ts < vtime) return CM_L1E_DATA_EXP;
    return CM_L1E_DATA_LAST;
}

/* A row's effect on the copy when it leads to a stable state. */
static void settle_copy(cm_l1 *l1, l1_way *way, unsigned next, uint64_t now)
{
    if (cm_l1_state_transient(next) || !way || way->state == CM_L1S_I) return;
    if (next == CM_L1S_I)
        l1_leave(l1, way, 0, now);
    else
        way->state = (uint8_t)next;
}

static unsigned warm_access(cm_l1 *l1, uint64_t line, uint8_t op,
                            uint64_t value, uint64_t vtime)
{
    if (l1_ent_find(l1, line)) return CM_MSG_NONE;
    l1_way *way = l1_way_find(l1, line);
    unsigned st = way && !l1_expired(l1, way, vtime) ? way->state : CM_L1S_I;
    const cm_proto_row *r = l1_row(l1, st, l1_event_of(op));
    if (!r || (r->actions & CM_A1_STALL)) return CM_MSG_NONE;
    uint32_t a = r->actions;
    if (way && op == CM_OP_LOAD) l1_outcome(l1, way, 1, vtime);
    if (a & CM_A1_HIT) l1_touch(l1, way, 0);
    if ((a & CM_A1_WRITE) && way) {
        way->value = value;
        way->dirty = 1;
    }
    if ((a & CM_A1_INVAL) && way) {
        l1_leave(l1, way, 0, vtime);
        way = NULL;
    }
    int request = (a & CM_A1_SEND) &&
                  cm_msg_kind_of(r->msg) == CM_MK_REQUEST;
    if (!request) {
        settle_copy(l1, way, r->next, vtime);
        return CM_MSG_NONE;
    }
    cm_mreq q = {.line = line,
                 .value = value,
                 .ts = (r->msg == CM_MSG_UPGR && way) ? way->lt : 0,
                 .sm = l1->cfg.sm,
                 .op = op,
                 .msg = r->msg};
    cm_warm_reply rep;
    if (l1->warm_mem)
        l1->warm_mem(l1->warm_obj, &q, vtime, &rep);
    else
        base_reply(l1, r->msg, vtime, &rep);
    if (rep.msg == CM_MSG_NONE) return r->msg; /* not granted: no copy */
    const cm_proto_row *rr =
        l1_row(l1, r->next, warm_event(l1, op, &rep, vtime));
    if (!rr) return r->msg;
    if ((rr->actions & CM_A1_INVAL) && way) {
        l1_leave(l1, way, 0, vtime);
        way = NULL;
    }
    if (rr->actions & CM_A1_FILL) {
        cm_mreq m = {.line = line, .value = rep.value, .ts = rep.ts,
                     .msg = rep.msg};
        unsigned in = cm_l1_state_transient(rr->next) ? CM_L1S_V : rr->next;
        way = l1_install(l1, &m, in, vtime);
        /* a buffered store or atomic is performed on the granted copy */
        if (way && op != CM_OP_LOAD && rr->next == CM_L1S_M) {
            way->value = value;
            way->dirty = 1;
        }
        if (!way && l1->cfg.proto->l1_write_back) {
            l1_way spill = {.line = line, .value = m.value,
                            .state = rr->next};
            l1_replace(l1, &spill, vtime);
        }
        if (!way) return r->msg;
    }
    if (!(rr->actions & CM_A1_FILL)) settle_copy(l1, way, rr->next, vtime);
    return r->msg;
}

unsigned cm_l1_warm(cm_l1 *l1, uint64_t line, uint8_t op, uint64_t value,
                    uint64_t vtime, cm_l1_warm_fn mem, void *obj)
{
    if (l1->err.code != CM_OK ||
        (op != CM_OP_LOAD && op != CM_OP_STORE && op != CM_OP_ATOMIC))
        return CM_MSG_NONE;
    l1->timed = 0;
    l1->warm_mem = mem;
    l1->warm_obj = obj;
    l1->warm_now = vtime;
    unsigned msg = warm_access(l1, line, op, value, vtime);
    l1->timed = 1;
    return msg;
}

unsigned cm_l1_warm_grant(cm_l1 *l1, uint64_t line, unsigned msg,
                          uint64_t value, uint64_t ts, uint64_t vtime,
                          cm_l1_warm_fn mem, void *obj)
{
    static const unsigned from[] = {CM_L1S_IS, CM_L1S_IM, CM_L1S_SM};
    cm_warm_reply rep = {.msg = (uint8_t)msg, .value = value, .ts = ts};
    unsigned ev = warm_event(l1, CM_OP_LOAD, &rep, vtime);
    const cm_proto_row *r = NULL;
    for (size_t i = 0; !r && i < sizeof from / sizeof *from; i++) {
        r = l1->rowix[from[i]][ev]; /* the one that takes it */
        if (r && !(r->actions & CM_A1_FILL)) r = NULL;
    }
    if (l1->err.code != CM_OK || !r) return CM_L1S_I;
    l1->timed = 0;
    l1->warm_mem = mem;
    l1->warm_obj = obj;
    l1->warm_now = vtime;
    cm_mreq m = {.line = line, .value = value, .ts = ts, .msg = (uint8_t)msg};
    l1_way *way = l1_install(l1, &m, r->next, vtime);
    l1->timed = 1;
    return way ? r->next : CM_L1S_I;
}

static const unsigned forward_event[CM_MSG_COUNT] = {
    [CM_MSG_INV] = CM_L1E_INV,
    [CM_MSG_RCL] = CM_L1E_RCL,
    [CM_MSG_FWD_GETS] = CM_L1E_FWD_GETS,
    [CM_MSG_FWD_GETX] = CM_L1E_FWD_GETX};

unsigned cm_l1_warm_forward(cm_l1 *l1, uint64_t line, unsigned msg,
                            uint64_t vtime, uint64_t *value, int *dirty,
                            int *held)
{
    *value = 0;
    *dirty = 0;
    if (l1->err.code != CM_OK || cm_msg_kind_of(msg) != CM_MK_FORWARD)
        return CM_MSG_NONE;
    /* a line with a timed transaction is left to it: its answer (a fill
     * in flight) would undo what the forward did */
    if (l1_ent_find(l1, line)) return CM_MSG_NONE;
    l1_way *way = l1_way_find(l1, line);
    unsigned st = way && !l1_expired(l1, way, vtime) ? way->state : CM_L1S_I;
    if (held) *held = st != CM_L1S_I;
    l1->timed = 0;
    const cm_proto_row *r = l1_row(l1, st, forward_event[msg]);
    unsigned answer = CM_MSG_NONE;
    if (r) {
        if (way) {
            *value = way->value;
            *dirty = way->dirty;
        }
        if ((r->actions & CM_A1_INVAL) && way) {
            l1_leave(l1, way, 0, vtime);
            way = NULL;
        }
        settle_copy(l1, way, r->next, vtime);
        if (way && cm_msg_carries_line(r->msg, 1)) way->dirty = 0;
        answer = r->msg;
    }
    l1->timed = 1;
    return answer;
}

/* ---- setup ----------------------------------------------------------------- */

static cm_status register_stats(cm_l1 *l1, cm_err *err)
{
    cm_stats *reg = l1->cfg.stats;
    const char *c = l1->cfg.component;
    static const char *const fail_names[3] = {"l1.reservation_fail.mshr",
                                              "l1.reservation_fail.merge",
                                              "l1.reservation_fail.line"};
    static const char *const outcome[4] = {
        "tc.outcome.hit", "tc.outcome.expired", "tc.outcome.evicted",
        "tc.outcome.unused"};
    cm_status st;
    if ((st = cm_stats_counter(reg, "l1.accesses", c, &l1->st_acc, err)) ||
        (st = cm_stats_counter(reg, "l1.hits", c, &l1->st_hit, err)) ||
        (st = cm_stats_counter(reg, "l1.misses", c, &l1->st_miss, err)) ||
        (st = cm_stats_ratio(reg, "l1.miss_ratio", c, l1->st_miss, l1->st_acc,
                             err)) ||
        (st = cm_stats_occupancy(reg, "l1.mshr.occupancy", c, l1->cfg.mshrs,
                                 "l1.mshr.full_fraction", &l1->st_occ, err)) ||
        (st = cm_stats_counter(reg, "l1.mshr.merges", c, &l1->st_merge, err)) ||
        (st = cm_stats_counter(reg, "l1.evictions", c, &l1->st_evict, err)) ||
        (st = cm_stats_counter(reg, "l1.fills_stale", c, &l1->st_fstale,
                               err)) ||
        (st = cm_stats_counter(reg, "l1.fills_expired", c, &l1->st_fexp,
                               err)) ||
        (st = cm_stats_latency(reg, "roundtrip.latency", c, 24, 0, &l1->st_rt,
                               err)))
        return st;
    for (int i = 0; i < 3; i++)
        if ((st = cm_stats_counter(reg, fail_names[i], c, &l1->st_fail[i],
                                   err)))
            return st;
    for (int i = 0; l1->timestamps && i < 4; i++)
        if ((st = cm_stats_counter(reg, outcome[i], c, &l1->st_out[i], err)))
            return st;
    return CM_OK;
}

/* Whether every row of a flash event leaves everything as it was. */
static int flash_keeps(const cm_proto_table *t, unsigned event)
{
    for (size_t i = 0; i < t->nrows; i++) {
        const cm_proto_row *r = &t->rows[i];
        if (r->event == event && (r->actions || r->next != r->state)) return 0;
    }
    return 1;
}

static cm_status alloc_all(cm_l1 *l1, const cm_l1_config *cfg, cm_err *err)
{
    uint64_t lines = cfg->size / cfg->line;
    l1->nways = (uint32_t)cfg->ways;
    l1->sets = lines / cfg->ways;
    if (l1->sets && !(l1->sets & (l1->sets - 1))) l1->set_mask = l1->sets - 1;
    uint64_t nb = 1;
    while (nb < 2 * (uint64_t)cfg->mshrs) nb <<= 1;
    l1->bucket_mask = nb - 1;
    l1->obcap = 2 * cfg->mshrs + 8;
    l1->fwd_room = cfg->mshrs + 8; /* the rest is kept for PUTs */
    l1->ways = calloc(lines, sizeof *l1->ways);
    l1->reserved = calloc(l1->sets, sizeof *l1->reserved);
    l1->pinned = calloc(l1->sets, sizeof *l1->pinned);
    l1->ent = calloc(cfg->mshrs, sizeof *l1->ent);
    l1->waiters =
        calloc((size_t)cfg->mshrs * cfg->mshr_merge, sizeof *l1->waiters);
    l1->free_stack = calloc(cfg->mshrs, sizeof *l1->free_stack);
    l1->bucket = malloc(nb * sizeof *l1->bucket);
    l1->outbox = calloc(l1->obcap, sizeof *l1->outbox);
    l1->dq = calloc((size_t)cfg->mshr_merge + 1, sizeof *l1->dq);
    l1->rs.rng = gsl_rng_alloc(gsl_rng_taus2);
    l1->repl = cfg->policy ? cfg->policy : cm_repl_find("lru");
    l1->vcand = calloc(l1->nways, sizeof *l1->vcand);
    l1->vway = calloc(l1->nways, sizeof *l1->vway);
    if (!l1->ways || !l1->reserved || !l1->pinned || !l1->ent ||
        !l1->waiters || !l1->free_stack || !l1->bucket || !l1->outbox ||
        !l1->dq || !l1->rs.rng || !l1->vcand || !l1->vway)
        return cm_err_set(err, CM_EINTERNAL, "out of memory for the L1");
    gsl_rng_set(l1->rs.rng, (unsigned long)(cfg->seed * 1000003u + cfg->sm));
    for (uint64_t i = 0; i < nb; i++) l1->bucket[i] = -1;
    /* entry 0 on top: the lowest free entry is taken first */
    for (uint32_t i = 0; i < cfg->mshrs; i++) {
        l1->ent[i].w = l1->waiters + (size_t)i * cfg->mshr_merge;
        l1->free_stack[i] = cfg->mshrs - 1 - i;
    }
    l1->nfree = cfg->mshrs;
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
                          "l1.mshrs and l1.mshr_merge must be at least 1");
    if (!cfg->line || !cfg->ways || cfg->size % (cfg->ways * cfg->line) ||
        cfg->size < cfg->ways * cfg->line)
        return cm_err_set(err, CM_EINPUT,
                          "l1.size %llu is not a positive multiple of "
                          "l1.ways x l1.line = %llu x %llu",
                          (unsigned long long)cfg->size,
                          (unsigned long long)cfg->ways,
                          (unsigned long long)cfg->line);
    cm_l1 *l1 = calloc(1, sizeof *l1);
    if (!l1) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    l1->cfg = *cfg;
    l1->eng = eng;
    l1->timed = 1;
    l1->timestamps = cfg->proto->lifetime != CM_LIFE_NONE;
    const cm_proto_table *t = cfg->proto->l1;
    for (size_t i = 0; i < t->nrows; i++)
        if (!l1->rowix[t->rows[i].state][t->rows[i].event])
            l1->rowix[t->rows[i].state][t->rows[i].event] = &t->rows[i];
    l1->flash_keeps[0] = flash_keeps(t, CM_L1E_KERNEL_START);
    l1->flash_keeps[1] = flash_keeps(t, CM_L1E_ACQUIRE);
    cm_status st = alloc_all(l1, cfg, err);
    if (!st) st = register_stats(l1, err);
    if (st) {
        cm_l1_free(l1);
        return st;
    }
    *out = l1;
    return CM_OK;
}

void cm_l1_free(cm_l1 *l1)
{
    if (!l1) return;
    free(l1->ways);
    free(l1->reserved);
    free(l1->pinned);
    free(l1->ent);
    free(l1->waiters);
    free(l1->free_stack);
    free(l1->bucket);
    free(l1->outbox);
    free(l1->dq);
    if (l1->rs.rng) gsl_rng_free(l1->rs.rng);
    free(l1->vcand);
    free(l1->vway);
    free(l1);
}

/* ---- inspection ------------------------------------------------------------- */

void cm_l1_finish(cm_l1 *l1)
{
    uint64_t now = cm_engine_now(l1->eng);
    for (uint64_t i = 0; i < l1->sets * l1->nways; i++) {
        l1_way *w = &l1->ways[i];
        if (w->state != CM_L1S_I && w->open && l1_expired(l1, w, now))
            l1_outcome(l1, w, 0, now);
    }
}

const cm_l1_counts *cm_l1_get_counts(const cm_l1 *l1)
{
    return &l1->n;
}

uint64_t cm_l1_freed_gen(const cm_l1 *l1)
{
    return l1->freed_gen;
}

size_t cm_l1_mshr_in_use(const cm_l1 *l1)
{
    return l1->inflight;
}

unsigned cm_l1_line_state(const cm_l1 *l1, uint64_t line)
{
    const l1_ent *e = l1_ent_find(l1, line);
    if (e) return e->state;
    const l1_way *w = l1_way_find(l1, line);
    return w && !l1_expired(l1, w, cm_engine_now(l1->eng)) ? w->state
                                                           : CM_L1S_I;
}

int cm_l1_needs_request(const cm_l1 *l1, uint64_t line, uint8_t op)
{
    const cm_proto_row *r =
        l1->rowix[cm_l1_line_state(l1, line)][l1_event_of(op)];
    return !r || (r->actions & CM_A1_SEND);
}

int cm_l1_probe(const cm_l1 *l1, uint64_t line)
{
    unsigned s = cm_l1_line_state(l1, line);
    return s == CM_L1S_V || s == CM_L1S_S || s == CM_L1S_E || s == CM_L1S_M;
}

int cm_l1_owned_value(const cm_l1 *l1, uint64_t line, uint64_t *value)
{
    const l1_way *w = l1_way_find(l1, line);
    if (!w || (w->state != CM_L1S_E && w->state != CM_L1S_M)) return 0;
    *value = w->value;
    return 1;
}

size_t cm_l1_outbox(const cm_l1 *l1)
{
    return l1->obn;
}

const cm_err *cm_l1_error(const cm_l1 *l1)
{
    return l1->err.code != CM_OK ? &l1->err : NULL;
}
