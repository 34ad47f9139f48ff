/* sm.c - one SM: warps, scheduler, coalescer, LD/ST unit (see sm.h).
 *
 * One engine event per active cycle (tick): the LD/ST unit offers its next
 * request to the L1, then the scheduler issues at most one instruction.
 * Cycles the SM sleeps through are charged at the next tick to the stall
 * reason it fell asleep with, so statistics do not need an event per idle
 * cycle.  Warp waits are counters (requests of the blocking instruction,
 * stores not yet acknowledged) decremented by the L1's completions.
 *
 * Compute stretches in one event.  While the LD/ST unit is idle, the
 * cycles ahead are fixed until a warp's turn comes to issue anything but
 * compute (its run's last instruction, a memory instruction, a barrier, a
 * fence), or something outside the SM (an L1 completion, a drain, a
 * window edge) touches it: LRR rotates over the issuable warps in slot
 * order, GTO keeps issuing its last warp.  A tick then plans the stretch,
 * schedules one event for the cycle of that turn, and the cycles in
 * between are settled arithmetically, either by that tick or, earlier, by
 * the outside event, which cancels the stretch and resumes cycle-by-cycle
 * ticking.  The outcome is the cycle-by-cycle one (tests/check_sm.c runs
 * both), with the rule for ties that an outside event at cycle t sees the
 * SM after its cycles before t.  Ready warps are bit sets, so the
 * schedulers find the next issuable warp by word scans. */
#include "sim/sm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/protocol.h"
#include "sim/sched.h"

enum {
    W_UNLAUNCHED = 0,
    W_READY,
    W_WAIT_MEM,
    W_WAIT_FENCE,
    W_WAIT_BARRIER,
    W_WAIT_KERNEL,
    W_FETCH, /* released from a wait, next instruction not fetched yet */
    W_DONE,
    /* Not a state: the count class of a READY warp holding a memory
     * instruction, which can issue only while the LD/ST unit is free. */
    W_CLASS_READY_MEM,
    W_CLASSES
};

typedef struct sm_warp {
    cm_inst inst;
    uint32_t compute_left;
    uint32_t loads_out;  /* requests of the blocking load/atomic */
    uint32_t stores_out; /* stores not yet acknowledged */
    uint32_t orphans;    /* replies of loads a fast-forward moved past */
    uint32_t memk;       /* memory instructions issued in its kernel */
    uint32_t ktgt;       /* a kernel hold's place for it (cm_sm_kernel_hold) */
    uint32_t k;          /* store and atomic lines written so far */
    uint64_t gwct;       /* the largest GWCT its writes brought back */
    uint64_t fence_t;    /* when its waiting fence issued */
    uint8_t state;
    uint8_t cls; /* counted under nclass[cls] */
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
    /* Warps per state (W_CLASS_READY_MEM split off), so the per-cycle
     * questions "can anything issue?" and "why not?" cost O(1). */
    uint32_t nclass[W_CLASSES];
    uint32_t *arrived, *live_blk; /* per block */
    uint32_t kernel_arrived;
    uint64_t stores_total, age_next;
    uint64_t orphans_total; /* load replies a fast-forward moved past */
    int functional;         /* inside cm_sm_functional */
    uint64_t fcount;        /* instructions of the functional call so far */
    /* Kernel boundaries passed, instructions issued when the last passed,
     * and a kernel hold's goal (the boundaries passed at which it stops;
     * 0: no hold). */
    uint64_t kernels, kinsts, kgoal;
    /* Kernel snapshots (cm_sm_kernel_snap), a ring of CM_SM_SNAPS: the
     * boundaries passed, the instructions, and per warp its memory
     * instructions in its kernel (snap_memk[slot * nwarps + w]). */
    uint64_t snap_kernels[CM_SM_SNAPS], snap_insts[CM_SM_SNAPS];
    uint32_t *snap_memk, nsnap, snap_pos;
    /* LD/ST unit: one instruction's lines */
    uint64_t *lines;
    uint64_t *flines;     /* the functional executor's coalescer output */
    uint64_t *fused;      /* its instructions per warp in this call */
    uint32_t fpos;        /* the warp it resumes with (round robin) */
    uint32_t lpos, lwarp; /* and sched.ln, its line count */
    uint8_t lop;
    uint16_t lbytes;
    int lwait; /* refused by a busy memory side: wait for the retry */
    /* functional calls: the memory side's answers, and a stop asked */
    cm_sm_mem_fn fmem;
    void *fobj;
    int fstop;
    /* Refused by a reservation failure (a cm_l1_result): until the L1
     * frees something (its freed generation moves) every retry fails the
     * same way, so it is counted without being made. */
    uint8_t lfail;
    uint64_t lfail_gen;
    /* The scheduler and what it sees: READY warps by slot, split as
     * nclass is (rdy, and rdym: issuable only while the LD/ST unit is
     * free), launch order, the last warp issued (sim/sched.h). */
    const cm_sched_policy *pol;
    void *pol_state;
    cm_sched_view sched;
    /* A planned compute stretch (see the header): the ready warps in issue
     * order, the next to issue, and the cycle of the tick that ends it. */
    uint32_t *bat, nbat, bpos;
    uint64_t bat_end;
    uint64_t tick_gen; /* a tick event whose arg differs was cancelled */
    /* timing */
    int started, scheduled, done, drain, launched;
    uint64_t last_tick, finish;
    uint8_t sleep_reason, sleep_memstall, sleep_lfail;
    /* Counted here and added to the statistics registry at flush points
     * (stats_flush: windows edges, the end): a registry counter per
     * cycle is a cache miss per cycle. */
    uint64_t insts, stall[CM_STALL_COUNT], mem_stall, cycles, meminsts;
    uint64_t fences, fence_wait;
    struct {
        uint64_t insts, stall[CM_STALL_COUNT], mem_stall, cycles, meminsts;
        uint64_t fences, fence_wait;
    } flushed;
    /* memory instructions issued, timed or functional: the run's progress
     * through the warps' programs (cm_sm_mem_issued) */
    uint64_t mem_issued;
    cm_stat *st_inst, *st_cycles, *st_stall[CM_STALL_COUNT], *st_mem;
    cm_stat *st_meminst; /* memory instructions issued: the models' wl.mem_rate
                            and wl.reqs_per_inst are ratios of it */
    cm_stat *st_fences, *st_fwait; /* fences completed, their warp-cycles */
    cm_err err;
};

void cm_sm_config_params(cm_sm_config *cfg, const cm_params *p)
{
    cfg->warps = (uint32_t)p->gpu_warps_per_sm;
    cfg->active_warps = (uint32_t)p->sched_active_warps;
    cfg->policy = cm_sched_at((uint32_t)p->sched_policy);
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

static void obs_warp(cm_sm *sm, uint32_t w, cm_obs_warp_event what)
{
    if (sm->cfg.obs && sm->cfg.obs->warp && !sm->functional)
        sm->cfg.obs->warp(sm->cfg.obs->obj, sm->cfg.id, w, what,
                          cm_engine_now(sm->eng));
}

/* n more instructions issued: the machine's budget, if any, runs down. */
static void budget_spend(cm_sm *sm, uint64_t n)
{
    uint64_t *b = sm->cfg.budget;
    if (!b || !*b) return;
    *b = n >= *b ? 0 : *b - n;
    if (!*b) cm_engine_stop(sm->eng);
}

static int is_mem(uint8_t kind)
{
    return kind == CM_INST_LOAD || kind == CM_INST_STORE ||
           kind == CM_INST_ATOMIC;
}

/* ---- warp states ------------------------------------------------------- */

/* Every state change goes through here to keep nclass true. */
static uint64_t *ready_set(cm_sm *sm, uint8_t cls)
{
    return cls == W_READY             ? sm->sched.rdy
           : cls == W_CLASS_READY_MEM ? sm->sched.rdym
                                      : NULL;
}

static void warp_set_state(cm_sm *sm, uint32_t w, uint8_t state)
{
    sm_warp *wp = &sm->w[w];
    uint64_t bit = 1ull << (w % 64), *set = ready_set(sm, wp->cls);
    if (set) set[w / 64] &= ~bit;
    sm->nclass[wp->cls]--;
    wp->state = state;
    wp->cls =
        state == W_READY && is_mem(wp->inst.kind) ? W_CLASS_READY_MEM : state;
    sm->nclass[wp->cls]++;
    if ((set = ready_set(sm, wp->cls))) set[w / 64] |= bit;
}

/* w starts to wait or retires: the scheduler hears of it. */
static void leave_active(cm_sm *sm, uint32_t w)
{
    if (sm->pol->leave)
        sm->pol->leave(sm->pol_state, &sm->sched, w, sm->w[w].state == W_DONE);
}

/* ---- warp life ----------------------------------------------------------- */

static void set_wait(cm_sm *sm, uint32_t w, uint8_t state)
{
    warp_set_state(sm, w, state);
    leave_active(sm, w);
}

static void fetch(cm_sm *sm, uint32_t w);
static void check_kernel(cm_sm *sm);

static void launch(cm_sm *sm, uint32_t w)
{
    sm->sched.age[w] = sm->age_next++;
    warp_set_state(sm, w, W_FETCH);
    sm->live++;
    sm->live_blk[w / sm->block_warps]++;
    if (sm->pol->launch) sm->pol->launch(sm->pol_state, &sm->sched, w);
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
        if (sm->w[w].state == W_WAIT_BARRIER) warp_set_state(sm, w, W_FETCH);
    for (uint32_t w = lo; w < hi; w++)
        if (sm->w[w].state == W_FETCH) fetch(sm, w);
}

static void check_barrier(cm_sm *sm, uint32_t b)
{
    if (sm->arrived[b] > 0 && sm->arrived[b] == sm->live_blk[b])
        release_block(sm, b);
}

/* A kernel boundary is a release (seed 003: kernel end waits until all
 * earlier writes are visible) and then KERNEL_START at the L1.  Inside a
 * fast-forward no time passes for timed stores to be acknowledged, so it
 * passes them as a fence does: waiting would stop every fast-forward at
 * the first boundary (ndl, 64 short kernels: one detailed window per
 * kernel, all at the kernel's start, MSHR occupancy +88%). */
static void check_kernel(cm_sm *sm)
{
    if (sm->kernel_arrived == 0 || sm->kernel_arrived != sm->live ||
        (sm->stores_total != 0 && !sm->functional) ||
        (sm->kgoal && sm->kernels >= sm->kgoal))
        return;
    sm->kernel_arrived = 0;
    sm->kernels++;
    sm->kinsts = sm->insts + sm->fcount;
    obs_warp(sm, 0, CM_OBS_KERNEL);
    cm_l1_flash(sm->l1, CM_L1E_KERNEL_START);
    for (uint32_t w = 0; w < sm->nwarps; w++)
        if (sm->w[w].state == W_WAIT_KERNEL) {
            sm->w[w].memk = 0;
            warp_set_state(sm, w, W_FETCH);
        }
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
        cm_err e;
        cm_err_clear(&e);
        if (sm->cfg.src.next(sm->cfg.src.obj, sm->cfg.id, w, &wp->inst, &e)) {
            if (sm->err.code == CM_OK) sm->err = e;
            cm_engine_stop(sm->eng);
            warp_set_state(sm, w, W_DONE); /* the run ends in error */
            return;
        }
        switch (wp->inst.kind) {
        case CM_INST_COMPUTE:
            if (wp->inst.n == 0) continue;
            wp->compute_left = wp->inst.n;
            warp_set_state(sm, w, W_READY);
            return;
        case CM_INST_LOAD:
        case CM_INST_STORE:
        case CM_INST_ATOMIC:
            if (wp->inst.n == 0) continue;
            warp_set_state(sm, w, W_READY);
            return;
        case CM_INST_BARRIER:
        case CM_INST_FENCE:
            warp_set_state(sm, w, W_READY);
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
            warp_set_state(sm, w, W_DONE);
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
    if (cm_engine_schedule_at(sm->eng, at, tick, sm, sm->tick_gen) == CM_OK)
        sm->scheduled = 1;
}

/* The planned stretch's cycles before t: each issued one compute
 * instruction of the next warp in its rotation (no run ends inside it). */
static void batch_settle(cm_sm *sm, uint64_t t)
{
    if (sm->nbat == 0) return;
    uint64_t upto = t < sm->bat_end ? t : sm->bat_end;
    if (upto <= sm->last_tick + 1) return;
    uint64_t m = upto - 1 - sm->last_tick;
    uint32_t pos = sm->bpos;
    for (uint64_t k = 0; k < m; k++) {
        sm->w[sm->bat[pos]].compute_left--;
        sm->sched.last = sm->bat[pos];
        if (++pos == sm->nbat) pos = 0;
    }
    sm->bpos = pos;
    sm->insts += m;
    budget_spend(sm, m);
    sm->cycles += m;
    sm->last_tick += m;
}

/* Something outside the SM is about to touch it: the stretch ends at the
 * cycles before now, and its far tick is cancelled (wake() schedules the
 * next one); 1 if one was. */
static int batch_stop(cm_sm *sm)
{
    if (sm->nbat == 0) return 0;
    uint64_t now = cm_engine_now(sm->eng);
    int cancel = now < sm->bat_end;
    batch_settle(sm, now);
    if (cancel) {
        sm->tick_gen++;
        sm->scheduled = 0;
    }
    sm->nbat = 0;
    return cancel;
}

static void fence_timer(cm_engine *eng, void *obj, uint64_t arg);

/* A fence of warp w may go once its stores are acknowledged and time has
 * passed its GWCT (a copy is valid while TIME <= LT, so TIME > GWCT is when
 * every copy its writes raced with has expired); then the acquire. */
static void fence_try(cm_sm *sm, uint32_t w)
{
    sm_warp *wp = &sm->w[w];
    uint64_t now = cm_engine_now(sm->eng);
    if (wp->state != W_WAIT_FENCE || wp->stores_out) return;
    if (now <= wp->gwct && !sm->functional) {
        cm_engine_schedule_at(sm->eng, wp->gwct + 1, fence_timer, sm, w);
        return;
    }
    cm_l1_flash(sm->l1, CM_L1E_ACQUIRE);
    obs_warp(sm, w, CM_OBS_FENCE_DONE);
    if (!sm->functional) {
        sm->fences++;
        sm->fence_wait += now - wp->fence_t;
    }
    fetch(sm, w);
}

static void fence_timer(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)eng;
    cm_sm *sm = obj;
    batch_stop(sm);
    fence_try(sm, (uint32_t)arg);
    wake(sm);
}

static void l1_done(void *obj, uint32_t w, uint8_t op, uint64_t gwct)
{
    cm_sm *sm = obj;
    sm_warp *wp = &sm->w[w];
    batch_stop(sm);
    if (gwct > wp->gwct) wp->gwct = gwct;
    if (op == CM_OP_STORE) {
        wp->stores_out--;
        sm->stores_total--;
        if (wp->stores_out == 0) fence_try(sm, w);
        if (sm->stores_total == 0) check_kernel(sm);
    } else if (wp->orphans > 0) {
        wp->orphans--;
        sm->orphans_total--;
    } else {
        if (--wp->loads_out == 0 && wp->state == W_WAIT_MEM) fetch(sm, w);
    }
    wake(sm);
}

static void l1_wake(void *obj)
{
    cm_sm *sm = obj;
    batch_stop(sm);
    sm->lwait = 0;
    wake(sm);
}

/* The L1 freed an MSHR entry or a reserved way after a reservation
 * failure: the LD/ST unit's next offer may succeed. */
static void l1_freed(void *obj)
{
    cm_sm *sm = obj;
    if (sm->lfail) wake(sm); /* no stretch runs while an offer fails */
}

/* ---- issue --------------------------------------------------------------- */

/* The coalescer: one request per unique line, in first-touch order, into
 * out (max_lines long). */
static int coalesce(const cm_sm *sm, const cm_inst *in, uint64_t *out)
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
            while (j < n && out[j] != l) j++;
            if (j < n) continue;
            if (n == sm->cfg.max_lines) return -1;
            out[n++] = l;
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
    sm->sched.last = w;
    sm->sched.have_last = 1;
    sm->insts++;
    budget_spend(sm, 1);
    switch (kind) {
    case CM_INST_COMPUTE:
        if (--wp->compute_left == 0) fetch(sm, w);
        return;
    case CM_INST_LOAD:
    case CM_INST_STORE:
    case CM_INST_ATOMIC: {
        sm->meminsts++;
        sm->mem_issued++;
        wp->memk++;
        obs_warp(sm, w, CM_OBS_MEMORY);
        int n = coalesce(sm, &wp->inst, sm->lines);
        if (n < 0) {
            sm_fail(sm, "a memory instruction touches more lines than the "
                        "coalescer holds (2 x gpu.threads_per_warp)");
            return;
        }
        sm->sched.ln = (uint32_t)n;
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
        obs_warp(sm, w, CM_OBS_BARRIER);
        set_wait(sm, w, W_WAIT_BARRIER);
        sm->arrived[b]++;
        check_barrier(sm, b);
        return;
    }
    case CM_INST_FENCE:
        obs_warp(sm, w, CM_OBS_FENCE);
        wp->fence_t = now;
        if (sm->cfg.fenced) sm->cfg.fenced(sm->cfg.fenced_obj);
        set_wait(sm, w, W_WAIT_FENCE);
        fence_try(sm, w);
        return;
    default:
        sm_fail(sm, "issued an instruction that cannot issue");
        return;
    }
}

static int any_issuable(const cm_sm *sm);

static int pick(cm_sm *sm, uint32_t *out)
{
    if (!sm->pol->pick_always && !any_issuable(sm)) return 0;
    return sm->pol->pick(sm->pol_state, &sm->sched, out);
}

static cm_stall_reason stall_reason(const cm_sm *sm)
{
    const uint32_t *n = sm->nclass;
    if (n[W_READY] || n[W_CLASS_READY_MEM]) return CM_STALL_MEM_PIPELINE;
    if (n[W_WAIT_MEM]) return CM_STALL_MEM_WAIT;
    if (n[W_WAIT_FENCE]) return CM_STALL_FENCE;
    if (n[W_WAIT_BARRIER] || n[W_WAIT_KERNEL]) return CM_STALL_BARRIER;
    return CM_STALL_IDLE;
}

static int any_issuable(const cm_sm *sm)
{
    return sm->nclass[W_READY] > 0 ||
           (sm->sched.ln == 0 && sm->nclass[W_CLASS_READY_MEM] > 0);
}

/* Every warp retired and every request answered: an SM is done only then,
 * as a kernel ends when its writes are visible. */
static int all_answered(const cm_sm *sm)
{
    return sm->ndone == sm->nwarps && sm->sched.ln == 0 &&
           sm->stores_total == 0 && sm->orphans_total == 0;
}

/* Charges gap cycles slept through to the reason the SM fell asleep with
 * (and, if it slept on a reservation failure, as that many failed
 * offers), so statistics need no event per idle cycle. */
static void charge_sleep(cm_sm *sm, uint64_t gap)
{
    if (gap == 0) return;
    sm->stall[sm->sleep_reason] += gap;
    sm->cycles += gap;
    if (sm->sleep_memstall) sm->mem_stall += gap;
    if (sm->sleep_lfail) cm_l1_count_fails(sm->l1, sm->lfail, gap);
}

/* Adds what was counted since the last flush to the registry. */
static void stats_flush(cm_sm *sm)
{
#define FLUSH(stat, field)                                                     \
    do {                                                                       \
        cm_stat_add(stat, (double)(sm->field - sm->flushed.field));            \
        sm->flushed.field = sm->field;                                         \
    } while (0)
    FLUSH(sm->st_inst, insts);
    FLUSH(sm->st_cycles, cycles);
    FLUSH(sm->st_mem, mem_stall);
    FLUSH(sm->st_meminst, meminsts);
    FLUSH(sm->st_fences, fences);
    FLUSH(sm->st_fwait, fence_wait);
    for (int r = 0; r < CM_STALL_COUNT; r++) FLUSH(sm->st_stall[r], stall[r]);
#undef FLUSH
}

void cm_sm_sync(cm_sm *sm)
{
    uint64_t now = cm_engine_now(sm->eng);
    batch_settle(sm, now);
    /* the cycles before now: now itself is the next run's (the engine
     * runs a budget's cycles 0 .. N-1, cm_engine_run_before) */
    if (sm->started && !sm->scheduled && !sm->done && now > sm->last_tick + 1) {
        charge_sleep(sm, now - 1 - sm->last_tick);
        sm->last_tick = now - 1;
    }
    stats_flush(sm);
}

/* The compute stretch that follows this tick, if the cycles ahead are
 * fixed (see the header): its length in cycles before the tick that ends
 * it (the one where the first run issues its last instruction), or 0. */
static uint64_t batch_plan(cm_sm *sm)
{
    if (sm->cfg.on_issue || sm->drain || sm->sched.ln > 0 ||
        !sm->sched.have_last || !sm->pol->rotation)
        return 0;
    uint32_t n = sm->pol->rotation(sm->pol_state, &sm->sched);
    /* Rotation position p issues at cycles p, p + n, ...: a run's last
     * instruction at p + (left - 1) n, anything but compute (a memory
     * instruction, a barrier, a fence) at p, in a real tick.  Only the
     * positions before the stretch's end matter. */
    uint64_t len = UINT64_MAX;
    uint32_t w = sm->sched.last;
    for (uint32_t p = 0; p < n && p < len; p++) {
        w = sm->pol->follow(sm->pol_state, &sm->sched, w);
        sm->bat[p] = w;
        const sm_warp *wp = &sm->w[w];
        uint64_t left = wp->inst.kind == CM_INST_COMPUTE ? wp->compute_left : 1;
        uint64_t end = p + (left - 1) * n;
        if (end < len) len = end;
    }
    if (n == 0 || len == 0) return 0;
    sm->nbat = n;
    sm->bpos = 0;
    return len;
}

static void tick(cm_engine *eng, void *obj, uint64_t arg)
{
    cm_sm *sm = obj;
    if (arg != sm->tick_gen) return; /* cancelled by batch_stop */
    uint64_t now = cm_engine_now(eng);
    sm->scheduled = 0;
    batch_settle(sm, now);
    sm->nbat = 0;
    if (sm->err.code != CM_OK || sm->done) return;
    charge_sleep(sm, now - sm->last_tick - 1);
    sm->cycles++;
    sm->last_tick = now;

    /* LD/ST unit: one request per cycle into the L1. */
    if (sm->sched.ln > 0) {
        int stuck = 1;
        if (sm->lwait) {
            /* the memory side's retry clears it */
        } else if (sm->lfail && cm_l1_freed_gen(sm->l1) == sm->lfail_gen) {
            cm_l1_count_fails(sm->l1, sm->lfail, 1);
        } else {
            sm_warp *lw = &sm->w[sm->lwarp];
            uint64_t value = sm->lop == CM_OP_LOAD
                                 ? 0
                                 : cm_store_value(sm->cfg.id, sm->lwarp,
                                                  sm->nwarps, lw->k + 1);
            cm_l1_result r = cm_l1_access(sm->l1, sm->lines[sm->lpos], sm->lop,
                                          sm->lwarp, sm->lbytes, value);
            sm->lfail = 0;
            if (r == CM_L1_OK) {
                stuck = 0;
                if (sm->lop != CM_OP_LOAD) lw->k++;
                if (sm->lop != CM_OP_ATOMIC)
                    obs_warp(sm, sm->lwarp,
                             sm->lop == CM_OP_STORE ? CM_OBS_STORE
                                                    : CM_OBS_LOAD);
                if (++sm->lpos == sm->sched.ln) sm->sched.ln = 0;
            } else if (r == CM_L1_BUSY) {
                sm->lwait = 1;
            } else if (r == CM_L1_ERROR) {
                cm_engine_stop(eng);
                return;
            } else {
                sm->lfail = (uint8_t)r;
                sm->lfail_gen = cm_l1_freed_gen(sm->l1);
            }
        }
        if (stuck) sm->mem_stall++;
    }

    uint32_t w = 0;
    if (!sm->drain && pick(sm, &w)) {
        issue(sm, w);
    } else {
        cm_stall_reason r = stall_reason(sm);
        sm->stall[r]++;
    }
    if (sm->err.code != CM_OK) return;

    if (all_answered(sm)) {
        sm->done = 1;
        sm->finish = now;
        stats_flush(sm);
        return;
    }
    if (sm->scheduled) return; /* a completion during this tick woke us */
    /* any_issuable also sees ready warps still in the two-level pending
     * queue: the next tick's refill moves them in. */
    int lsd_blocked =
        sm->lwait || (sm->lfail && cm_l1_freed_gen(sm->l1) == sm->lfail_gen);
    if ((sm->sched.ln > 0 && !lsd_blocked) ||
        (!sm->drain && any_issuable(sm))) {
        uint64_t len = batch_plan(sm);
        sm->bat_end = now + 1 + len;
        if (cm_engine_schedule(eng, 1 + len, tick, sm, sm->tick_gen) == CM_OK)
            sm->scheduled = 1;
        else
            sm->nbat = 0;
        return;
    }
    sm->sleep_reason = (uint8_t)stall_reason(sm);
    sm->sleep_memstall = (uint8_t)(sm->sched.ln > 0);
    sm->sleep_lfail = (uint8_t)(sm->sched.ln > 0 && !sm->lwait && sm->lfail);
}

/* ---- sampling ------------------------------------------------------------ */

void cm_sm_set_drain(cm_sm *sm, int on)
{
    /* a cancelled stretch's SM ticks on, so that it falls asleep with
     * the stall reason of the drain */
    int cancelled = batch_stop(sm);
    sm->drain = on;
    if (!on || cancelled) wake(sm);
}

int cm_sm_quiet(const cm_sm *sm)
{
    return sm->sched.ln == 0 && sm->nclass[W_WAIT_MEM] == 0 &&
           sm->stores_total == 0 && sm->orphans_total == 0;
}

/* One instruction (or compute run of at most budget) of ready warp w,
 * functionally; returns the instructions it counts for. */
/* The L1's functional questions go to the caller's mem, which may ask
 * for a stop after the instruction. */
static void functional_mem(void *obj, const cm_mreq *m, uint64_t vtime,
                           cm_warm_reply *out)
{
    cm_sm *sm = obj;
    if (sm->fmem(sm->fobj, m, vtime, out)) sm->fstop = 1;
}

static uint64_t functional_step(cm_sm *sm, uint32_t w, uint64_t budget,
                                cm_sm_mem_fn mem, uint64_t vtime, int *stop)
{
    sm_warp *wp = &sm->w[w];
    switch (wp->inst.kind) {
    case CM_INST_COMPUTE: {
        uint64_t k = wp->compute_left < budget ? wp->compute_left : budget;
        wp->compute_left -= (uint32_t)k;
        if (wp->compute_left == 0) fetch(sm, w);
        return k;
    }
    case CM_INST_LOAD:
    case CM_INST_STORE:
    case CM_INST_ATOMIC: {
        wp->memk++;
        sm->mem_issued++;
        if (!mem) { /* advancing only: no tag is warmed */
            fetch(sm, w);
            return 1;
        }
        int n = coalesce(sm, &wp->inst, sm->flines);
        if (n < 0) {
            sm_fail(sm, "a memory instruction touches more lines than the "
                        "coalescer holds (2 x gpu.threads_per_warp)");
            return 0;
        }
        uint8_t op = wp->inst.kind == CM_INST_LOAD    ? CM_OP_LOAD
                     : wp->inst.kind == CM_INST_STORE ? CM_OP_STORE
                                                      : CM_OP_ATOMIC;
        for (int i = 0; i < n; i++) {
            uint64_t value =
                op == CM_OP_LOAD
                    ? 0
                    : cm_store_value(sm->cfg.id, w, sm->nwarps, ++wp->k);
            cm_l1_warm(sm->l1, sm->flines[i], op, value, vtime, functional_mem,
                       sm);
        }
        if (sm->fstop) *stop = 1;
        fetch(sm, w);
        return 1;
    }
    case CM_INST_BARRIER: {
        uint32_t b = w / sm->block_warps;
        set_wait(sm, w, W_WAIT_BARRIER);
        sm->arrived[b]++;
        check_barrier(sm, b);
        return 1;
    }
    case CM_INST_FENCE: /* timed stores may still be out: as issue() does */
        set_wait(sm, w, W_WAIT_FENCE);
        fence_try(sm, w);
        return 1;
    default:
        sm_fail(sm, "functional execution met an instruction it cannot run");
        return 0;
    }
}

static void launch_all(cm_sm *sm);

/* A warp waiting in the timed machine joins a fast-forward: its loads in
 * flight become orphans (their replies still come and are absorbed, so
 * every request is still answered once) and a fence waiting for store
 * acknowledgements passes (the acknowledgements still arrive and count).
 * Without this only the warps ready at that instant would move, the rest
 * would fall behind, and the spread of their working sets biased the
 * windows after (measured on cc: L2 miss ratio +4%, IPC -6%). */
static void functional_join(cm_sm *sm, uint32_t w)
{
    sm_warp *wp = &sm->w[w];
    if (wp->state == W_WAIT_MEM) {
        wp->orphans += wp->loads_out;
        sm->orphans_total += wp->loads_out;
        wp->loads_out = 0;
        fetch(sm, w);
    } else if (wp->state == W_WAIT_FENCE) {
        cm_l1_flash(sm->l1, CM_L1E_ACQUIRE);
        fetch(sm, w);
    }
}

/* w has reached its place of a kernel hold: the goal's boundaries passed,
 * and it waits at the next or is about to issue the memory instruction
 * after as many as it had issued in its kernel when the hold began. */
static int kernel_held(const cm_sm *sm, uint32_t w)
{
    if (!sm->kgoal || sm->kernels < sm->kgoal) return 0;
    const sm_warp *wp = &sm->w[w];
    return wp->state == W_WAIT_KERNEL ||
           (wp->state == W_READY && is_mem(wp->inst.kind) &&
            wp->memk >= wp->ktgt);
}

/* The ring slot of the k-th oldest snapshot kept. */
static uint32_t snap_slot(const cm_sm *sm, uint32_t k)
{
    return (sm->snap_pos + CM_SM_SNAPS - sm->nsnap + k) % CM_SM_SNAPS;
}

void cm_sm_kernel_snap(cm_sm *sm)
{
    if (sm->kernels == 0 || sm->done) return;
    if (!sm->snap_memk) {
        sm->snap_memk =
            calloc((size_t)CM_SM_SNAPS * sm->nwarps, sizeof *sm->snap_memk);
        if (!sm->snap_memk) return; /* no snapshot: holds use the present */
    }
    uint32_t j = sm->snap_pos;
    sm->snap_kernels[j] = sm->kernels;
    sm->snap_insts[j] = cm_sm_instructions(sm);
    for (uint32_t w = 0; w < sm->nwarps; w++)
        sm->snap_memk[(size_t)j * sm->nwarps + w] = sm->w[w].memk;
    sm->snap_pos = (j + 1) % CM_SM_SNAPS;
    if (sm->nsnap < CM_SM_SNAPS) sm->nsnap++;
}

uint32_t cm_sm_kernel_snaps(const cm_sm *sm)
{
    return sm->nsnap;
}

void cm_sm_kernel_snap_at(const cm_sm *sm, uint32_t k, uint64_t *kernels,
                          uint64_t *insts)
{
    uint32_t j = snap_slot(sm, k);
    *kernels = sm->snap_kernels[j];
    *insts = sm->snap_insts[j];
}

void cm_sm_kernel_hold(cm_sm *sm, uint32_t k, uint64_t goal)
{
    if (goal == 0) {
        if (!sm->kgoal) return;
        sm->kgoal = 0;
        /* every warp may wait at the boundary the hold stopped at, for
         * timed stores or for nothing: the timed machine passes it */
        check_kernel(sm);
        wake(sm);
        return;
    }
    sm->kgoal = goal;
    uint32_t j = snap_slot(sm, k);
    for (uint32_t w = 0; w < sm->nwarps; w++)
        sm->w[w].ktgt = k < sm->nsnap
                            ? sm->snap_memk[(size_t)j * sm->nwarps + w]
                            : sm->w[w].memk;
}

uint64_t cm_sm_kernels(const cm_sm *sm, uint64_t *insts)
{
    if (insts) *insts = sm->kinsts;
    return sm->kernels;
}

uint64_t cm_sm_functional(cm_sm *sm, uint64_t n, cm_sm_mem_fn mem, void *obj,
                          uint64_t vtime)
{
    batch_stop(sm);
    launch_all(sm); /* an SM that only ever runs functionally */
    uint64_t total = 0, quota = sm->live ? n / sm->live : n;
    if (quota == 0) quota = 1;
    memset(sm->fused, 0, sm->nwarps * sizeof *sm->fused);
    int stop = 0, progress = 1;
    sm->functional = 1;
    sm->fmem = mem;
    sm->fobj = obj;
    sm->fstop = 0;
    check_kernel(sm); /* warps may wait only for timed stores */
    while (progress && !stop && sm->err.code == CM_OK) {
        progress = 0;
        for (uint32_t k = 0; k < sm->nwarps && !stop; k++) {
            uint32_t w = (sm->fpos + k) % sm->nwarps;
            if (sm->fused[w] >= quota || sm->w[w].state == W_DONE ||
                sm->w[w].state == W_UNLAUNCHED || kernel_held(sm, w))
                continue;
            functional_join(sm, w);
            while (sm->w[w].state == W_READY && sm->fused[w] < quota && !stop &&
                   sm->err.code == CM_OK && !kernel_held(sm, w)) {
                uint64_t d = functional_step(sm, w, quota - sm->fused[w], mem,
                                             vtime, &stop);
                sm->fused[w] += d;
                total += d;
                sm->fcount = total;
                progress |= d > 0;
            }
            if (stop) sm->fpos = (w + 1) % sm->nwarps;
        }
    }
    sm->functional = 0;
    sm->fcount = 0;
    sm->insts += total;
    sm->flushed.insts += total; /* counted, but not as a statistic */
    if (all_answered(sm) && !sm->done) {
        sm->done = 1;
        sm->finish = cm_engine_now(sm->eng);
        stats_flush(sm);
    }
    return total;
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
        (st = cm_stats_counter(reg, "fence.count", sm->comp, &sm->st_fences,
                               err)) ||
        (st = cm_stats_counter(reg, "fence.wait_cycles", sm->comp,
                               &sm->st_fwait, err)) ||
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
    if (!cfg->policy || !cfg->policy->pick)
        return cm_err_set(err, CM_EINPUT, "SM config needs a scheduler");
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
    sm->nclass[W_UNLAUNCHED] = cfg->warps;
    snprintf(sm->comp, sizeof sm->comp, "sm%u", (unsigned)cfg->id);
    sm->w = calloc(cfg->warps, sizeof *sm->w);
    sm->arrived = calloc(sm->nblocks, sizeof *sm->arrived);
    sm->live_blk = calloc(sm->nblocks, sizeof *sm->live_blk);
    sm->lines = calloc(cfg->max_lines, sizeof *sm->lines);
    sm->flines = calloc(cfg->max_lines, sizeof *sm->flines);
    sm->fused = calloc(cfg->warps, sizeof *sm->fused);
    sm->bat = calloc(cfg->warps, sizeof *sm->bat);
    cm_sched_view *v = &sm->sched;
    v->nwarps = cfg->warps;
    v->nwords = (cfg->warps + 63) / 64;
    v->rdy = calloc(v->nwords, sizeof *v->rdy);
    v->rdym = calloc(v->nwords, sizeof *v->rdym);
    v->age = calloc(cfg->warps, sizeof *v->age);
    v->active_limit = cfg->two_level_active;
    if (!sm->bat || !v->rdy || !v->rdym || !v->age || !sm->w || !sm->arrived ||
        !sm->live_blk || !sm->lines || !sm->flines || !sm->fused) {
        cm_sm_free(sm);
        return cm_err_set(err, CM_EINTERNAL, "out of memory for an SM");
    }
    sm->pol = cfg->policy;
    cm_status st =
        sm->pol->create ? sm->pol->create(v, &sm->pol_state, err) : CM_OK;
    if (st) {
        cm_sm_free(sm);
        return st;
    }
    cm_l1_config lc = cfg->l1;
    lc.sm = cfg->id;
    lc.done = l1_done;
    lc.done_obj = sm;
    lc.wake = (cm_retry){l1_wake, sm};
    lc.freed = (cm_retry){l1_freed, sm};
    lc.stats = cfg->stats;
    lc.component = sm->comp;
    lc.obs = cfg->obs;
    st = cm_l1_new(&lc, eng, &sm->l1, err);
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
    free(sm->flines);
    free(sm->fused);
    free(sm->bat);
    free(sm->sched.rdy);
    free(sm->sched.rdym);
    free(sm->sched.age);
    if (sm->pol && sm->pol->destroy) sm->pol->destroy(sm->pol_state);
    free(sm->snap_memk);
    free(sm);
}

/* The kernel starts: KERNEL_START at the L1, the first warps launch. */
static void launch_all(cm_sm *sm)
{
    if (sm->launched) return;
    sm->launched = 1;
    cm_l1_flash(sm->l1, CM_L1E_KERNEL_START);
    while (sm->next_launch < sm->cfg.active_warps)
        launch(sm, sm->next_launch++);
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
    launch_all(sm);
    if (cm_engine_schedule_at(sm->eng, now, tick, sm, sm->tick_gen) != CM_OK)
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
uint64_t cm_sm_mem_issued(const cm_sm *sm)
{
    return sm->mem_issued;
}

uint64_t cm_sm_instructions(cm_sm *sm)
{
    batch_settle(sm, cm_engine_now(sm->eng));
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
