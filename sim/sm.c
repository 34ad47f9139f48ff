/* sm.c - one SM: warps, scheduler, coalescer, LD/ST unit (see sm.h).
 *
 * One engine event per active cycle (tick): the LD/ST unit offers its next
 * request to the L1, then the scheduler issues at most one instruction.
 * Cycles the SM sleeps through are charged at the next tick to the stall
 * reason it fell asleep with, so statistics do not need an event per idle
 * cycle.  Warp waits are counters (requests of the blocking instruction,
 * stores not yet acknowledged) decremented by the L1's completions. */
#include "sim/sm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/protocol.h"

enum {
    W_UNLAUNCHED = 0,
    W_READY,
    W_WAIT_MEM,
    W_WAIT_FENCE,
    W_WAIT_BARRIER,
    W_WAIT_KERNEL,
    W_FETCH, /* released from a wait, next instruction not fetched yet */
    W_DONE
};

enum { IN_NONE = 0, IN_ACTIVE, IN_PENDING }; /* two-level membership */

typedef struct sm_warp {
    cm_inst inst;
    uint32_t compute_left;
    uint32_t loads_out;  /* requests of the blocking load/atomic */
    uint32_t stores_out; /* stores not yet acknowledged */
    uint64_t age;        /* launch order, for GTO's "oldest" */
    uint8_t state, where;
} sm_warp;

static const char *const stall_names[CM_STALL_COUNT] = {
    "sm.issue.stall.mem_pipeline", "sm.issue.stall.mem_wait",
    "sm.issue.stall.fence", "sm.issue.stall.barrier", "sm.issue.stall.idle"};

struct cm_sm {
    cm_sm_config cfg;
    cm_engine *eng;
    cm_l1 *l1;
    char comp[24];
    sm_warp *w;
    uint32_t nwarps, block_warps, nblocks;
    uint32_t next_launch, live, ndone;
    uint32_t *arrived, *live_blk; /* per block */
    uint32_t kernel_arrived;
    uint64_t stores_total, age_next;
    /* LD/ST unit: one instruction's lines */
    uint64_t *lines;
    uint32_t ln, lpos, lwarp;
    uint8_t lop;
    uint16_t lbytes;
    int lwait; /* refused by a busy memory side: wait for the retry */
    /* scheduler */
    uint32_t last;
    int have_last;
    uint32_t *act, nact, *pend, npend, rr_pos;
    /* timing */
    int started, scheduled, done;
    uint64_t last_tick, finish;
    uint8_t sleep_reason, sleep_memstall;
    uint64_t insts, stall[CM_STALL_COUNT], mem_stall;
    cm_stat *st_inst, *st_cycles, *st_stall[CM_STALL_COUNT], *st_mem;
    cm_stat *st_meminst; /* memory instructions issued: the models' wl.mem_rate
                            and wl.reqs_per_inst are ratios of it */
    cm_err err;
};

void cm_sm_config_params(cm_sm_config *cfg, const cm_params *p)
{
    cfg->warps = (uint32_t)p->gpu_warps_per_sm;
    cfg->active_warps = (uint32_t)p->sched_active_warps;
    cfg->policy = (cm_sched_policy)p->sched_policy;
    cfg->two_level_active = (uint32_t)p->sched_two_level_active;
    cfg->max_lines = 2 * (uint32_t)p->gpu_threads_per_warp;
    cm_l1_config_params(&cfg->l1, p);
}

static void sm_fail(cm_sm *sm, const char *msg)
{
    if (sm->err.code == CM_OK)
        cm_err_set(&sm->err, CM_EINTERNAL, "sm%u: %s", (unsigned)sm->cfg.id,
                   msg);
    cm_engine_stop(sm->eng);
}

static int is_mem(uint8_t kind)
{
    return kind == CM_INST_LOAD || kind == CM_INST_STORE ||
           kind == CM_INST_ATOMIC;
}

/* ---- two-level sets ------------------------------------------------------ */

static void remove_at(uint32_t *a, uint32_t *n, uint32_t i)
{
    memmove(a + i, a + i + 1, (*n - i - 1) * sizeof *a);
    (*n)--;
}

static void pend_push(cm_sm *sm, uint32_t w)
{
    sm->pend[sm->npend++] = w;
    sm->w[w].where = IN_PENDING;
}

/* w starts to wait or retires: it leaves the active set. */
static void leave_active(cm_sm *sm, uint32_t w)
{
    if (sm->cfg.policy != CM_SCHED_TWO_LEVEL || sm->w[w].where != IN_ACTIVE)
        return;
    for (uint32_t i = 0; i < sm->nact; i++)
        if (sm->act[i] == w) {
            remove_at(sm->act, &sm->nact, i);
            if (i < sm->rr_pos) sm->rr_pos--;
            break;
        }
    sm->w[w].where = IN_NONE;
    if (sm->w[w].state != W_DONE) pend_push(sm, w);
}

static void refill_active(cm_sm *sm)
{
    for (uint32_t i = 0;
         i < sm->npend && sm->nact < sm->cfg.two_level_active;) {
        uint32_t w = sm->pend[i];
        if (sm->w[w].state != W_READY) {
            i++;
            continue;
        }
        remove_at(sm->pend, &sm->npend, i);
        sm->act[sm->nact++] = w;
        sm->w[w].where = IN_ACTIVE;
    }
}

/* ---- warp life ----------------------------------------------------------- */

static void set_wait(cm_sm *sm, uint32_t w, uint8_t state)
{
    sm->w[w].state = state;
    leave_active(sm, w);
}

static void fetch(cm_sm *sm, uint32_t w);
static void check_kernel(cm_sm *sm);

static void launch(cm_sm *sm, uint32_t w)
{
    sm->w[w].age = sm->age_next++;
    sm->w[w].state = W_FETCH;
    sm->live++;
    sm->live_blk[w / sm->block_warps]++;
    if (sm->cfg.policy == CM_SCHED_TWO_LEVEL) pend_push(sm, w);
    fetch(sm, w);
}

static void release_block(cm_sm *sm, uint32_t b)
{
    uint32_t lo = b * sm->block_warps, hi = lo + sm->block_warps;
    if (hi > sm->nwarps) hi = sm->nwarps;
    sm->arrived[b] = 0;
    /* Mark all first: a warp that reaches the next barrier while the rest
     * are still being released must not complete it early. */
    for (uint32_t w = lo; w < hi; w++)
        if (sm->w[w].state == W_WAIT_BARRIER) sm->w[w].state = W_FETCH;
    for (uint32_t w = lo; w < hi; w++)
        if (sm->w[w].state == W_FETCH) fetch(sm, w);
}

static void check_barrier(cm_sm *sm, uint32_t b)
{
    if (sm->arrived[b] > 0 && sm->arrived[b] == sm->live_blk[b])
        release_block(sm, b);
}

/* A kernel boundary is a release (seed 003: kernel end waits until all
 * earlier writes are visible) and then KERNEL_START at the L1. */
static void check_kernel(cm_sm *sm)
{
    if (sm->kernel_arrived == 0 || sm->kernel_arrived != sm->live ||
        sm->stores_total != 0)
        return;
    sm->kernel_arrived = 0;
    cm_l1_flash(sm->l1, CM_L1E_KERNEL_START);
    for (uint32_t w = 0; w < sm->nwarps; w++)
        if (sm->w[w].state == W_WAIT_KERNEL) sm->w[w].state = W_FETCH;
    for (uint32_t w = 0; w < sm->nwarps; w++)
        if (sm->w[w].state == W_FETCH) fetch(sm, w);
}

static void retire(cm_sm *sm, uint32_t w)
{
    uint32_t b = w / sm->block_warps;
    set_wait(sm, w, W_DONE);
    sm->live--;
    sm->live_blk[b]--;
    sm->ndone++;
    if (sm->next_launch < sm->nwarps) launch(sm, sm->next_launch++);
    check_barrier(sm, b);
    check_kernel(sm);
}

/* Fetches w's next instruction; the warp becomes READY, or waits at a
 * kernel boundary, or retires. */
static void fetch(cm_sm *sm, uint32_t w)
{
    sm_warp *wp = &sm->w[w];
    for (;;) {
        cm_err e = {0};
        if (sm->cfg.src.next(sm->cfg.src.obj, sm->cfg.id, w, &wp->inst, &e)) {
            if (sm->err.code == CM_OK) sm->err = e;
            cm_engine_stop(sm->eng);
            wp->state = W_DONE; /* stops issuing; the run ends in error */
            return;
        }
        switch (wp->inst.kind) {
        case CM_INST_COMPUTE:
            if (wp->inst.n == 0) continue;
            wp->compute_left = wp->inst.n;
            wp->state = W_READY;
            return;
        case CM_INST_LOAD:
        case CM_INST_STORE:
        case CM_INST_ATOMIC:
            if (wp->inst.n == 0) continue;
            wp->state = W_READY;
            return;
        case CM_INST_BARRIER:
        case CM_INST_FENCE:
            wp->state = W_READY;
            return;
        case CM_INST_KERNEL:
            set_wait(sm, w, W_WAIT_KERNEL);
            sm->kernel_arrived++;
            check_kernel(sm);
            return;
        case CM_INST_END:
            retire(sm, w);
            return;
        default:
            sm_fail(sm, "the warp source returned an unknown instruction");
            wp->state = W_DONE;
            return;
        }
    }
}

/* ---- completions and wake-ups -------------------------------------------- */

static void tick(cm_engine *eng, void *obj, uint64_t arg);

static void wake(cm_sm *sm)
{
    if (!sm->started || sm->scheduled || sm->done) return;
    uint64_t now = cm_engine_now(sm->eng);
    uint64_t at = now > sm->last_tick ? now : sm->last_tick + 1;
    if (cm_engine_schedule_at(sm->eng, at, tick, sm, 0) == CM_OK)
        sm->scheduled = 1;
}

static void l1_done(void *obj, uint32_t w, uint8_t op)
{
    cm_sm *sm = obj;
    sm_warp *wp = &sm->w[w];
    if (op == CM_OP_STORE) {
        wp->stores_out--;
        sm->stores_total--;
        if (wp->stores_out == 0 && wp->state == W_WAIT_FENCE) {
            cm_l1_flash(sm->l1, CM_L1E_ACQUIRE);
            fetch(sm, w);
        }
        if (sm->stores_total == 0) check_kernel(sm);
    } else {
        if (--wp->loads_out == 0 && wp->state == W_WAIT_MEM) fetch(sm, w);
    }
    wake(sm);
}

static void l1_wake(void *obj)
{
    cm_sm *sm = obj;
    sm->lwait = 0;
    wake(sm);
}

/* ---- issue --------------------------------------------------------------- */

static int issuable(const cm_sm *sm, uint32_t w)
{
    const sm_warp *wp = &sm->w[w];
    return wp->state == W_READY && (!is_mem(wp->inst.kind) || sm->ln == 0);
}

/* The coalescer: one request per unique line, in first-touch order. */
static int coalesce(cm_sm *sm, const cm_inst *in)
{
    unsigned shift = 0;
    while ((1ull << shift) < sm->cfg.l1.line) shift++;
    uint32_t n = 0;
    for (uint32_t i = 0; i < in->n; i++) {
        uint64_t first = in->addrs[i], last = first;
        if (in->per_thread) {
            uint64_t span = in->bytes ? in->bytes - 1u : 0;
            last = (first + span) >> shift;
            first >>= shift;
        }
        for (uint64_t l = first; l <= last; l++) {
            uint32_t j = 0;
            while (j < n && sm->lines[j] != l) j++;
            if (j < n) continue;
            if (n == sm->cfg.max_lines) return -1;
            sm->lines[n++] = l;
        }
    }
    return (int)n;
}

static void issue(cm_sm *sm, uint32_t w)
{
    sm_warp *wp = &sm->w[w];
    uint8_t kind = wp->inst.kind;
    uint64_t now = cm_engine_now(sm->eng);
    if (sm->cfg.on_issue)
        sm->cfg.on_issue(sm->cfg.on_issue_obj, sm->cfg.id, w, kind, now);
    sm->last = w;
    sm->have_last = 1;
    sm->insts++;
    cm_stat_add(sm->st_inst, 1);
    switch (kind) {
    case CM_INST_COMPUTE:
        if (--wp->compute_left == 0) fetch(sm, w);
        return;
    case CM_INST_LOAD:
    case CM_INST_STORE:
    case CM_INST_ATOMIC: {
        cm_stat_add(sm->st_meminst, 1);
        int n = coalesce(sm, &wp->inst);
        if (n < 0) {
            sm_fail(sm, "a memory instruction touches more lines than the "
                        "coalescer holds (2 x gpu.threads_per_warp)");
            return;
        }
        sm->ln = (uint32_t)n;
        sm->lpos = 0;
        sm->lwarp = w;
        sm->lop = kind == CM_INST_LOAD    ? CM_OP_LOAD
                  : kind == CM_INST_STORE ? CM_OP_STORE
                                          : CM_OP_ATOMIC;
        sm->lbytes = wp->inst.bytes;
        if (kind == CM_INST_STORE) {
            wp->stores_out += (uint32_t)n;
            sm->stores_total += (uint32_t)n;
            fetch(sm, w);
        } else {
            wp->loads_out = (uint32_t)n;
            set_wait(sm, w, W_WAIT_MEM);
        }
        return;
    }
    case CM_INST_BARRIER: {
        uint32_t b = w / sm->block_warps;
        set_wait(sm, w, W_WAIT_BARRIER);
        sm->arrived[b]++;
        check_barrier(sm, b);
        return;
    }
    case CM_INST_FENCE:
        if (wp->stores_out == 0) {
            cm_l1_flash(sm->l1, CM_L1E_ACQUIRE);
            fetch(sm, w);
        } else {
            set_wait(sm, w, W_WAIT_FENCE);
        }
        return;
    default:
        sm_fail(sm, "issued an instruction that cannot issue");
        return;
    }
}

static int pick(cm_sm *sm, uint32_t *out)
{
    uint32_t W = sm->nwarps;
    switch (sm->cfg.policy) {
    case CM_SCHED_GTO: {
        if (sm->have_last && issuable(sm, sm->last)) {
            *out = sm->last;
            return 1;
        }
        int found = 0;
        for (uint32_t w = 0; w < W; w++)
            if (issuable(sm, w) && (!found || sm->w[w].age < sm->w[*out].age)) {
                *out = w;
                found = 1;
            }
        return found;
    }
    case CM_SCHED_TWO_LEVEL:
        refill_active(sm);
        for (uint32_t i = 0; i < sm->nact; i++) {
            uint32_t pos = (sm->rr_pos + i) % sm->nact;
            if (issuable(sm, sm->act[pos])) {
                *out = sm->act[pos];
                sm->rr_pos = pos + 1;
                return 1;
            }
        }
        return 0;
    default: /* LRR */
        for (uint32_t i = 1; i <= W; i++) {
            uint32_t w = ((sm->have_last ? sm->last : W - 1) + i) % W;
            if (issuable(sm, w)) {
                *out = w;
                return 1;
            }
        }
        return 0;
    }
}

static cm_stall_reason stall_reason(const cm_sm *sm)
{
    int seen[W_DONE + 1] = {0};
    for (uint32_t w = 0; w < sm->nwarps; w++) seen[sm->w[w].state] = 1;
    if (seen[W_READY]) return CM_STALL_MEM_PIPELINE;
    if (seen[W_WAIT_MEM]) return CM_STALL_MEM_WAIT;
    if (seen[W_WAIT_FENCE]) return CM_STALL_FENCE;
    if (seen[W_WAIT_BARRIER] || seen[W_WAIT_KERNEL]) return CM_STALL_BARRIER;
    return CM_STALL_IDLE;
}

static int any_issuable(cm_sm *sm)
{
    for (uint32_t w = 0; w < sm->nwarps; w++)
        if (issuable(sm, w)) return 1;
    return 0;
}

static void tick(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)arg;
    cm_sm *sm = obj;
    uint64_t now = cm_engine_now(eng);
    sm->scheduled = 0;
    if (sm->err.code != CM_OK || sm->done) return;
    /* Cycles slept through since the last tick. */
    uint64_t gap = now - sm->last_tick - 1;
    if (gap > 0) {
        sm->stall[sm->sleep_reason] += gap;
        cm_stat_add(sm->st_stall[sm->sleep_reason], (double)gap);
        if (sm->sleep_memstall) {
            sm->mem_stall += gap;
            cm_stat_add(sm->st_mem, (double)gap);
        }
    }
    cm_stat_add(sm->st_cycles, (double)(now - sm->last_tick));
    sm->last_tick = now;

    /* LD/ST unit: one request per cycle into the L1. */
    if (sm->ln > 0) {
        int stuck = 1;
        if (!sm->lwait) {
            cm_l1_result r = cm_l1_access(sm->l1, sm->lines[sm->lpos], sm->lop,
                                          sm->lwarp, sm->lbytes);
            if (r == CM_L1_OK) {
                stuck = 0;
                if (++sm->lpos == sm->ln) sm->ln = 0;
            } else if (r == CM_L1_BUSY) {
                sm->lwait = 1;
            } else if (r == CM_L1_ERROR) {
                cm_engine_stop(eng);
                return;
            }
        }
        if (stuck) {
            sm->mem_stall++;
            cm_stat_add(sm->st_mem, 1);
        }
    }

    uint32_t w = 0;
    if (pick(sm, &w)) {
        issue(sm, w);
    } else {
        cm_stall_reason r = stall_reason(sm);
        sm->stall[r]++;
        cm_stat_add(sm->st_stall[r], 1);
    }
    if (sm->err.code != CM_OK) return;

    if (sm->ndone == sm->nwarps && sm->ln == 0) {
        sm->done = 1;
        sm->finish = now;
        return;
    }
    if (sm->scheduled) return; /* a completion during this tick woke us */
    /* any_issuable also sees ready warps still in the two-level pending
     * queue: the next tick's refill moves them in. */
    if ((sm->ln > 0 && !sm->lwait) || any_issuable(sm)) {
        if (cm_engine_schedule(eng, 1, tick, sm, 0) == CM_OK) sm->scheduled = 1;
        return;
    }
    sm->sleep_reason = (uint8_t)stall_reason(sm);
    sm->sleep_memstall = (uint8_t)(sm->ln > 0);
}

/* ---- setup --------------------------------------------------------------- */

static cm_status register_stats(cm_sm *sm, cm_err *err)
{
    cm_stats *reg = sm->cfg.stats;
    cm_status st;
    if ((st = cm_stats_counter(reg, "sm.instructions", sm->comp, &sm->st_inst,
                               err)) ||
        (st = cm_stats_counter(reg, "sm.cycles", sm->comp, &sm->st_cycles,
                               err)) ||
        (st = cm_stats_ratio(reg, "ipc", sm->comp, sm->st_inst, sm->st_cycles,
                             err)) ||
        (st = cm_stats_counter(reg, "sm.mem_instructions", sm->comp,
                               &sm->st_meminst, err)) ||
        (st = cm_stats_counter(reg, "mem_pipeline.stall_cycles", sm->comp,
                               &sm->st_mem, err)) ||
        (st = cm_stats_ratio(reg, "mem_pipeline.stall_ratio", sm->comp,
                             sm->st_mem, sm->st_cycles, err)))
        return st;
    for (int r = 0; r < CM_STALL_COUNT; r++)
        if ((st = cm_stats_counter(reg, stall_names[r], sm->comp,
                                   &sm->st_stall[r], err)))
            return st;
    return CM_OK;
}

cm_status cm_sm_new(const cm_sm_config *cfg, cm_engine *eng, cm_sm **out,
                    cm_err *err)
{
    *out = NULL;
    if (cfg->warps < 1 || !cfg->src.next || !cfg->stats || cfg->max_lines < 1)
        return cm_err_set(err, CM_EINPUT,
                          "SM config needs warps, a warp source, statistics "
                          "and a coalescer size");
    if (cfg->policy == CM_SCHED_TWO_LEVEL && cfg->two_level_active < 1)
        return cm_err_set(err, CM_EINPUT,
                          "sched.two_level_active must be at least 1");
    cm_sm *sm = calloc(1, sizeof *sm);
    if (!sm) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    sm->cfg = *cfg;
    sm->eng = eng;
    sm->nwarps = cfg->warps;
    if (sm->cfg.active_warps == 0 || sm->cfg.active_warps > cfg->warps)
        sm->cfg.active_warps = cfg->warps;
    sm->block_warps = cfg->block_warps && cfg->block_warps < cfg->warps
                          ? cfg->block_warps
                          : cfg->warps;
    sm->nblocks = (cfg->warps + sm->block_warps - 1) / sm->block_warps;
    snprintf(sm->comp, sizeof sm->comp, "sm%u", (unsigned)cfg->id);
    sm->w = calloc(cfg->warps, sizeof *sm->w);
    sm->arrived = calloc(sm->nblocks, sizeof *sm->arrived);
    sm->live_blk = calloc(sm->nblocks, sizeof *sm->live_blk);
    sm->lines = calloc(cfg->max_lines, sizeof *sm->lines);
    sm->act = calloc(cfg->warps, sizeof *sm->act);
    sm->pend = calloc(cfg->warps, sizeof *sm->pend);
    if (!sm->w || !sm->arrived || !sm->live_blk || !sm->lines || !sm->act ||
        !sm->pend) {
        cm_sm_free(sm);
        return cm_err_set(err, CM_EINTERNAL, "out of memory for an SM");
    }
    cm_l1_config lc = cfg->l1;
    lc.sm = cfg->id;
    lc.done = l1_done;
    lc.done_obj = sm;
    lc.wake = (cm_retry){l1_wake, sm};
    lc.stats = cfg->stats;
    lc.component = sm->comp;
    cm_status st = cm_l1_new(&lc, eng, &sm->l1, err);
    if (!st) st = register_stats(sm, err);
    if (st) {
        cm_sm_free(sm);
        return st;
    }
    *out = sm;
    return CM_OK;
}

void cm_sm_free(cm_sm *sm)
{
    if (!sm) return;
    cm_l1_free(sm->l1);
    free(sm->w);
    free(sm->arrived);
    free(sm->live_blk);
    free(sm->lines);
    free(sm->act);
    free(sm->pend);
    free(sm);
}

cm_status cm_sm_start(cm_sm *sm, cm_err *err)
{
    if (sm->started)
        return cm_err_set(err, CM_EINTERNAL, "sm%u started twice",
                          (unsigned)sm->cfg.id);
    uint64_t now = cm_engine_now(sm->eng);
    sm->started = 1;
    /* The first tick is at `now`: charge nothing before it. */
    sm->last_tick = now - 1;
    cm_l1_flash(sm->l1, CM_L1E_KERNEL_START);
    while (sm->next_launch < sm->cfg.active_warps)
        launch(sm, sm->next_launch++);
    if (cm_engine_schedule_at(sm->eng, now, tick, sm, 0) != CM_OK)
        return cm_err_set(err, CM_EINTERNAL, "sm%u: event queue full",
                          (unsigned)sm->cfg.id);
    sm->scheduled = 1;
    return sm->err.code != CM_OK
               ? cm_err_set(err, sm->err.code, "%s", sm->err.msg)
               : CM_OK;
}

cm_l1 *cm_sm_l1(cm_sm *sm)
{
    return sm->l1;
}
int cm_sm_done(const cm_sm *sm)
{
    return sm->done;
}
uint64_t cm_sm_finish_cycle(const cm_sm *sm)
{
    return sm->finish;
}
uint64_t cm_sm_instructions(const cm_sm *sm)
{
    return sm->insts;
}

uint64_t cm_sm_stall_cycles(const cm_sm *sm, cm_stall_reason r)
{
    return (unsigned)r < CM_STALL_COUNT ? sm->stall[r] : 0;
}

uint64_t cm_sm_mem_stall_cycles(const cm_sm *sm)
{
    return sm->mem_stall;
}

const cm_err *cm_sm_error(const cm_sm *sm)
{
    if (sm->err.code != CM_OK) return &sm->err;
    return cm_l1_error(sm->l1);
}
