/* gpu.c - the whole simulated GPU (see gpu.h), in full detail or sampled.
 *
 * Wiring: the memory side needs each SM's reply sink and each L1 needs the
 * memory side's input, so replies go through a small trampoline per SM that
 * is pointed at its L1 (or at its traffic injector) once the SMs exist.
 * Warps take their instructions from the workload's generators
 * (sim/workload_source.h) or from the caller's source (a trace).
 *
 * Sampling (design.md, "Sampling in the simulator"; sim.sample):
 *  - spatial: SMs 0..K-1 (K = sim.sample_sms) run in detail.  Every other
 *    SM is a traffic injector: its warps run functionally through its own
 *    L1 tags (cm_sm_functional), and the requests that reach the memory
 *    side are sent, timed, at the detailed SMs' current rate of L1
 *    requests per SM per cycle (re-measured every rate slice of 1000
 *    cycles, smoothed), an instruction's requests back to back one per
 *    cycle as the LD/ST unit sends them (the traffic keeps its bursts),
 *    with at most l1.mshrs of them in flight, so the
 *    shared crossbar, L2 and DRAM see the whole machine's load and its
 *    back-pressure.  Per-SM rows exist for the detailed SMs only; machine
 *    totals (ipc of `all`) scale the detailed SMs' instructions by N/K.
 *    Assumption: the injected SMs behave like the average detailed one
 *    (true of the statistical profiles, whose SMs are alike);
 *  - temporal (SMARTS-like): each sim.sample_period cycles of simulated
 *    time hold an unmeasured detailed warm-up (sim.sample_warmup), a
 *    measured window (sim.sample_window) and a fast-forward: every SM
 *    executes functionally the instructions it would have issued in the
 *    rest of the period at the last window's IPC (the live SMs' mean,
 *    times each SM's own lasting deviation where that is significant: see
 *    fast_forward).  Only the fast-forward's last part warms the L1 and
 *    L2 tags, enough instructions for sim.sample_ff_warm (4) times the
 *    L2's lines in L2 references (SMARTS-style warm-up before the window);
 *    before that the warps only advance, their generators skimming
 *    (workload.h cm_wgen_skim: same draws and cadence, no stack lookups).
 *    The fast-forward takes no engine time and leaves the timed state as
 *    it was: requests in flight, queues, MSHRs and row buffers carry on
 *    from the window's steady state; warps waiting for memory, a fence or
 *    a kernel boundary move on (sm.h cm_sm_functional: their replies and
 *    acknowledgements still come).  Draining the machine instead biased
 *    the windows (every warp restarting at once sends a burst the queues
 *    take tens of thousands of cycles to absorb), and the warm-up is
 *    10000 cycles because the warps the fast-forward releases restart
 *    together too.  Simulated cycles = detailed cycles + fast-forwarded
 *    cycles.
 *    Kernel holds (kernel_hold, sm.h cm_sm_kernel_hold): an SM whose
 *    kernels are short moves by whole kernels, each warp across m
 *    boundaries to the place in its kernel (memory instructions since its
 *    kernel began, or waiting at the boundary) it had in a snapshot of the
 *    SM (cm_sm_kernel_snap: one per rate slice of detailed time, the last
 *    CM_SM_SNAPS kept), picked at random (sim.seed); m = the
 *    fast-forward's instructions plus those since the snapshot over the
 *    SM's instructions per kernel so far, rounded.  The cycles covered
 *    scale from the instructions done (the held SMs' mean).  Held only
 *    where a kernel (simulated cycles so far per kernel) takes no longer
 *    than the snapshots span, CM_SM_SNAPS x RATE_SLICE cycles, and the
 *    fast-forward covers sim.sample_ff_kernels (1) kernels: a random
 *    snapshot is then a random place in a kernel.  Why: equal quotas move
 *    every warp at one rate and line the warps up at each boundary, and
 *    all SMs in lockstep, so windows miss the kernels' tails, where in
 *    full detail many warps wait and the SMs drift apart (ndl); a random
 *    snapshot per SM restores the mix of places.  Of the 25 built-in
 *    workloads only ndl is held.  Detailed SMs only: an injector's warps
 *    never wait in time, so they have no places to keep.
 *    Assumptions: a window's IPC holds for the period around it; the
 *    warps' spread inside an SM is the detailed one by the window (what
 *    kernel holds restore where kernels are short); a run's stretches are
 *    alike enough that one window per period represents its period.
 *    Each window counts for its period's span over sim.sample_period
 *    (cm_stats_window_weight): 1 where the fast-forward covered the rest
 *    of the period, about 1 where whole kernels dither it, less where the
 *    run's end cut it short.  Counted at full weight, a window of the
 *    run's final drain (a few warps left: ndl seed 1, IPC 0.37 over the
 *    last 10k of 1.18M cycles) stood for a whole period and moved the
 *    sampled IPC by -4.9%; the weight is its 10.5k cycles over 80k.
 *    Accuracy (tc2013 machine, seeds 1-4, `make bench`): IPC, L1 miss
 *    ratio and MSHR occupancy all within 3% of full detail on 12-15 of
 *    the 25 built-in workloads, 5-9x faster in CPU time; mean absolute
 *    errors 1.9, 0.53 and 4.6%.  The misses are window noise on the short
 *    runs (few windows) and an occupancy bias after fast-forwards,
 *    carried by the round trip at the right L1 miss ratio: high on
 *    reuse-heavy single-kernel workloads (comd, scluster, ii), low on
 *    streaming ones (sm, lps) and hsp.  It is not the generators' stream
 *    state, the tags, the rates or the run's end, and it outlasts
 *    150000-cycle warm-ups.  Full detail itself relaxes from the launch
 *    over millions of cycles (comd: MSHR occupancy 8% lower at 2-3M
 *    cycles than over the first 200k), and the sampled machine ages only
 *    in its detailed cycles, which fits the high side.  docs/sampling.md keeps the measurements
 *    behind every choice above and the designs tried and dropped.
 * Windows are batches (stats.h): every reported value is estimated from
 * them with its 95% interval; spatial sampling without temporal runs
 * back-to-back windows after one warm-up.
 *
 * Sizing: every request in flight holds an L1 MSHR entry (or an injector's
 * slot), so a pool of SMs x l1.mshrs requests can never run dry; the event
 * queue gets the memory side's own bound plus a generous per-warp
 * allowance. */
#include "sim/gpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>

#include "data/metrics.h"
#include "sim/engine.h"
#include "sim/memsys.h"
#include "sim/sm.h"
#include "sim/workload_source.h"

enum { RATE_SLICE = 1000, FF_CHUNK = 32 };
/* fast_forward: SMs get rates of their own only when their spread is
 * significant at this level against their window-to-window noise. */
#define FF_SM_SIGNIFICANCE 0.01

typedef struct gpu gpu;

/* A functional SM standing in for a detailed one at the memory side. */
typedef struct injector {
    gpu *g;
    cm_sm *sm;
    uint32_t id, out; /* requests in flight */
    cm_mreq *q;       /* requests produced and not sent yet */
    uint32_t qn, qpos;
    cm_mreq **ans;    /* responses (answers to forwards, PUTs) waiting for
                         the network */
    uint32_t ah, an, acap;
    uint64_t *pend;   /* write-back L1s: lines asked for (inj_pending) */
    uint32_t npend;
    double next;                  /* earliest cycle of the next send */
    int scheduled, retry, paused; /* paused: draining or fast-forwarding */
    uint64_t next_id;
} injector;

typedef struct reply_slot {
    cm_l1 *l1;     /* a detailed SM */
    injector *inj; /* or an injected one */
} reply_slot;

struct gpu {
    const cm_gpu_run_config *cfg;
    const cm_params *p;
    cm_engine eng;
    cm_pool pool;
    cm_memsys *ms;
    cm_stats *scratch; /* the injected SMs' statistics, never reported */
    cm_sm **sms;
    injector *inj;
    reply_slot *slots;
    cm_sink *reply_sinks;
    cm_workload_source *src;
    uint32_t nsm, warps, ndetail;
    int temporal;
    double rate; /* injector requests per cycle, from the detailed SMs */
    uint64_t rate_sent, rate_at;
    uint64_t ff_cycles;
    /* per SM, fast-forward scratch */
    double *ff_want, *ff_got, *ff_from, *ff_cold;
    /* the instructions a held SM's (kernel_hold) share of the
     * fast-forward asked for; 0: not held */
    double *ff_quota;
    gsl_rng *rng; /* the held SMs' choice of snapshot (kernel_hold) */
    /* Per detailed SM, over the windows it was live in: the sum and sum of
     * squares of its window IPC relative to the live SMs' mean, minus 1,
     * and their count (fast_forward's per-SM rates). */
    double *dev_sum, *dev_sq, *dev_n;
    /* L2 references made by warming, and per instruction in the last
     * fast-forward's warmed part (0: not measured yet). */
    uint64_t l2_refs;
    double refs_per_inst;
    cm_stat *st_inst, *st_cycles; /* machine totals (ipc of `all`) */
    uint64_t budget; /* sim.max_instructions left (0: none) */
    uint64_t lease;  /* an injector's guess of a copy's lease (timestamps) */
    uint64_t vtime;  /* the virtual time of functional accesses */
    double work;     /* memory instructions the workload gives all warps
                        (0: a trace, not known) */
};

/* ---- traffic injectors ----------------------------------------------------- */

static void inj_fire(cm_engine *eng, void *obj, uint64_t arg);

static void inj_schedule(injector *in, uint64_t at)
{
    if (in->scheduled || in->paused || in->retry) return;
    if (cm_engine_schedule_at(&in->g->eng, at, inj_fire, in, 0) == CM_OK)
        in->scheduled = 1;
}

/* An injected SM's L1 sent m functionally: it is sent timed instead.  A
 * write-back L1 (MESI) takes its copy when the timed grant comes
 * (cm_l1_warm_grant: the L2 records an owner only then, and its PUTs must
 * follow); the others assume the base reply of its class, with a lease of
 * a fixed lifetime. */
static int inj_respond(injector *in, const cm_mreq *m);

static int inj_collect(void *obj, const cm_mreq *m, uint64_t vtime,
                       cm_warm_reply *out)
{
    injector *in = obj;
    /* a victim's PUT leaves at once, on the responses' network: queued
     * behind requests the L2's full queue holds back, it would never reach
     * the L2 that holds the owner's next request until it lands */
    if (cm_msg_kind_of(m->msg) != CM_MK_REQUEST && inj_respond(in, m))
        return 0;
    in->q[in->qn++] = *m;
    if (in->g->cfg->protocol->l1_write_back) {
        out->msg = CM_MSG_NONE;
        return cm_msg_kind_of(m->msg) == CM_MK_REQUEST;
    }
    out->value = 0;
    out->ts = vtime + in->g->lease;
    out->msg = m->msg == CM_MSG_GETS     ? CM_MSG_DATA
               : m->msg == CM_MSG_ATOMIC ? CM_MSG_AREPLY
               : m->msg == CM_MSG_GETX &&
                       in->g->cfg->protocol->l1_write_back
                   ? CM_MSG_DATA_M
                   : CM_MSG_ACK;
    /* stop after this instruction: send before running on */
    return cm_msg_kind_of(m->msg) == CM_MK_REQUEST;
}

/* Sends the answers to forwards while the network takes them. */
static void inj_answers(injector *in)
{
    while (in->an) {
        cm_sink s = cm_memsys_input(in->g->ms, in->id);
        if (cm_sink_send(&s, in->ans[in->ah]) != CM_SINK_OK) return;
        if (++in->ah == in->acap) in->ah = 0;
        in->an--;
    }
}

/* Queues a response (a PUT) of the injected SM for the network; 0 if the
 * queue is full (the answers ahead leave first). */
static int inj_respond(injector *in, const cm_mreq *m)
{
    if (in->an == in->acap) return 0;
    cm_mreq *r = cm_pool_get(&in->g->pool);
    if (!r) return 0;
    *r = *m;
    r->sm = in->id;
    r->issue_cycle = cm_engine_now(&in->g->eng);
    uint32_t t = in->ah + in->an++;
    in->ans[t >= in->acap ? t - in->acap : t] = r;
    inj_answers(in);
    return 1;
}

/* A PUT the grant's victim makes (cm_l1_warm_grant). */
static void inj_victim(void *obj, const cm_mreq *m, uint64_t vtime,
                       cm_warm_reply *out)
{
    (void)vtime;
    (void)out;
    inj_respond(obj, m); /* room was made before the grant */
}

/* Write-back L1s: the lines with a request in flight (their grant not in
 * yet), so a line is asked for once, as an MSHR would merge: a second
 * request from the line's owner-to-be would wait at the L2 for a PUT that
 * never comes. */
static int inj_pending(const injector *in, uint64_t line, uint32_t *at)
{
    for (uint32_t i = 0; i < in->npend; i++)
        if (in->pend[i] == line) {
            if (at) *at = i;
            return 1;
        }
    return 0;
}

static void inj_fire(cm_engine *eng, void *obj, uint64_t arg)
{
    (void)arg;
    injector *in = obj;
    gpu *g = in->g;
    uint64_t now = cm_engine_now(eng);
    in->scheduled = 0;
    while (!in->paused && in->out < (uint32_t)g->p->l1_mshrs) {
        if (in->qpos == in->qn) {
            in->qn = in->qpos = 0;
            cm_sm_functional(in->sm, UINT64_MAX, inj_collect, in, now);
            if (in->qn == 0) return; /* its warps have all retired */
        }
        if (cm_msg_kind_of(in->q[in->qpos].msg) != CM_MK_REQUEST) {
            /* a victim's PUT: the owner's (write-back L1s own only what
             * the L2 granted); none is made without ownership */
            if (!inj_respond(in, &in->q[in->qpos])) return;
            in->qpos++;
            continue;
        }
        if ((double)now < in->next) {
            inj_schedule(in, (uint64_t)ceil(in->next));
            return;
        }
        const cm_mreq *m = &in->q[in->qpos];
        int wb = g->cfg->protocol->l1_write_back;
        /* merged with the request in flight, or served by the copy a
         * grant brought since the request was made */
        if (wb && (inj_pending(in, m->line, NULL) ||
                   !cm_l1_needs_request(cm_sm_l1(in->sm), m->line, m->op))) {
            in->qpos++;
            continue;
        }
        cm_mreq *q = cm_pool_get(&g->pool);
        if (!q) return; /* cannot happen: the pool holds every slot */
        *q = (cm_mreq){.line = m->line,
                       .id = (uint64_t)in->id << 40 | in->next_id,
                       .issue_cycle = now,
                       .value = m->value,
                       .ts = m->ts,
                       .sm = in->id,
                       .bytes = 4,
                       .op = m->op,
                       .msg = m->msg};
        cm_sink s = cm_memsys_input(g->ms, in->id);
        if (cm_sink_send(&s, q) != CM_SINK_OK) {
            cm_pool_put(&g->pool, q);
            in->retry = 1;
            return;
        }
        in->next_id++;
        in->qpos++;
        in->out++;
        if (wb) in->pend[in->npend++] = m->line;
        /* An instruction's requests leave one per cycle, as from the
         * LD/ST unit; the rate spaces whole instructions, so the traffic
         * keeps the detailed SMs' burstiness. */
        double gap = in->qpos < in->qn ? 1
                     : g->rate > 0     ? (double)in->qn / g->rate - in->qn + 1
                                       : 1e9;
        in->next = (double)now + (gap > 1 ? gap : 1);
    }
}

static void inj_retry(void *obj)
{
    injector *in = obj;
    inj_answers(in);
    in->retry = 0;
    inj_schedule(in, cm_engine_now(&in->g->eng));
}

/* An L2's functional forward to L1 sm (detailed or injected). */
static unsigned warm_forward(void *obj, uint32_t sm, uint64_t line,
                             unsigned msg, uint64_t vtime, uint64_t *value,
                             int *dirty, int *held)
{
    gpu *g = obj;
    /* an injected SM's line with a grant in flight: not answerable now,
     * as a detailed L1's entry is not */
    const injector *in = g->slots[sm].inj;
    if (in && g->cfg->protocol->l1_write_back && inj_pending(in, line, NULL))
        return CM_MSG_NONE;
    return cm_l1_warm_forward(cm_sm_l1(g->sms[sm]), line, msg, vtime, value,
                              dirty, held);
}

/* The memory side's functional answer (warming). */
static int warm_l2(void *obj, const cm_mreq *m, uint64_t vtime,
                   cm_warm_reply *out)
{
    gpu *g = obj;
    if (cm_msg_kind_of(m->msg) == CM_MK_REQUEST) g->l2_refs++;
    /* an injected SM's line with a timed request in flight is left to
     * it, as a detailed L1's entry is (its grant would undo this one) */
    const injector *in = m->sm < g->nsm ? g->slots[m->sm].inj : NULL;
    if (in && cm_msg_kind_of(m->msg) == CM_MK_REQUEST &&
        inj_pending(in, m->line, NULL)) {
        out->msg = CM_MSG_NONE;
        return 0;
    }
    cm_memsys_warm(g->ms, m, vtime, out, warm_forward, g);
    return 0;
}

/* A victim's PUT while paused: to the L2 functionally, as the rest. */
static void inj_victim_warm(void *obj, const cm_mreq *m, uint64_t vtime,
                            cm_warm_reply *out)
{
    injector *in = obj;
    warm_l2(in->g, m, vtime, out);
}

/* Stops sending; requests produced but not sent warm the L2 instead. */
static void inj_pause(injector *in, int on)
{
    in->paused = on;
    if (!on) {
        inj_schedule(in, cm_engine_now(&in->g->eng));
        return;
    }
    uint64_t now = cm_engine_now(&in->g->eng);
    for (; in->qpos < in->qn; in->qpos++) {
        const cm_mreq *m = &in->q[in->qpos];
        cm_warm_reply rep = {.msg = CM_MSG_NONE};
        warm_l2(in->g, m, now, &rep);
        /* a write-back L1 takes what the L2 granted it (inj_collect) */
        if (in->g->cfg->protocol->l1_write_back && rep.msg != CM_MSG_NONE &&
            cm_msg_kind_of(m->msg) == CM_MK_REQUEST)
            cm_l1_warm_grant(cm_sm_l1(in->sm), m->line, rep.msg, rep.value,
                             rep.ts, now, inj_victim_warm, in);
    }
}

static int reply_accept(void *obj, cm_mreq *r)
{
    reply_slot *slot = obj;
    if (slot->l1) {
        cm_sink s = cm_l1_reply_sink(slot->l1);
        return cm_sink_send(&s, r);
    }
    injector *in = slot->inj;
    if (cm_msg_kind_of(r->msg) == CM_MK_FORWARD) {
        /* answered from the injected SM's functional L1 */
        if (in->an == in->acap) return CM_SINK_BUSY;
        uint64_t value;
        int dirty;
        r->msg = (uint8_t)cm_l1_warm_forward(cm_sm_l1(in->sm), r->line, r->msg,
                                             cm_engine_now(&in->g->eng),
                                             &value, &dirty, NULL);
        r->sm = in->id;
        r->value = value;
        r->flags = dirty ? CM_MF_DIRTY : 0;
        uint32_t t = in->ah + in->an++;
        in->ans[t >= in->acap ? t - in->acap : t] = r;
        inj_answers(in);
        return CM_SINK_OK;
    }
    if (in->g->cfg->protocol->l1_write_back) {
        /* a grant: the copy the L2 now records; its victim's PUT needs
         * room in the queue first */
        if (in->an == in->acap) return CM_SINK_BUSY;
        cm_l1_warm_grant(cm_sm_l1(in->sm), r->line, r->msg, r->value, r->ts,
                         cm_engine_now(&in->g->eng), inj_victim, in);
        uint32_t at;
        if (inj_pending(in, r->line, &at)) in->pend[at] = in->pend[--in->npend];
    }
    cm_pool_put(&in->g->pool, r);
    in->out--;
    inj_schedule(in, cm_engine_now(&in->g->eng));
    return CM_SINK_OK;
}

/* ---- building -------------------------------------------------------------- */

static void gpu_free(gpu *g)
{
    for (uint32_t i = 0; g->sms && i < g->nsm; i++) cm_sm_free(g->sms[i]);
    for (uint32_t i = 0; g->inj && i < g->nsm; i++) {
        free(g->inj[i].q);
        free(g->inj[i].ans);
        free(g->inj[i].pend);
    }
    cm_memsys_free(g->ms);
    cm_pool_free(&g->pool);
    cm_engine_free(&g->eng);
    cm_stats_free(g->scratch);
    free(g->sms);
    free(g->inj);
    free(g->ff_want);
    free(g->ff_got);
    free(g->ff_from);
    free(g->ff_cold);
    free(g->ff_quota);
    if (g->rng) gsl_rng_free(g->rng);
    free(g->dev_sum);
    free(g->dev_sq);
    free(g->dev_n);
    free(g->slots);
    free(g->reply_sinks);
    cm_workload_source_free(g->src);
}

static void sm_fenced(void *obj)
{
    gpu *g = obj;
    cm_memsys_fence_seen(g->ms);
}

static cm_status build_sm(gpu *g, uint32_t i, cm_stats *stats, cm_err *err)
{
    const cm_params *p = g->p;
    cm_status st;
    int detailed = i < g->ndetail;
    cm_sm_config c;
    memset(&c, 0, sizeof c);
    cm_sm_config_params(&c, p);
    c.id = i;
    c.l1.proto = g->cfg->protocol;
    c.l1.pool = &g->pool;
    c.l1.out = cm_memsys_input(g->ms, i);
    c.obs = detailed ? g->cfg->observer : NULL;
    c.budget = g->budget ? &g->budget : NULL;
    c.fenced = sm_fenced;
    c.fenced_obj = g;
    c.src = g->cfg->source.next ? g->cfg->source
                                : cm_workload_source_warps(g->src);
    c.stats = detailed ? stats : g->scratch;
    if ((st = cm_sm_new(&c, &g->eng, &g->sms[i], err))) return st;
    if (detailed) {
        g->slots[i].l1 = cm_sm_l1(g->sms[i]);
        cm_memsys_set_retry(g->ms, i, cm_l1_retry(g->slots[i].l1));
        return CM_OK;
    }
    injector *in = &g->inj[i];
    *in = (injector){.g = g, .sm = g->sms[i], .id = i};
    in->acap = (uint32_t)p->l1_mshrs + 8;
    /* an instruction's lines, each with a victim's PUT */
    in->q = calloc(2 * (size_t)c.max_lines, sizeof *in->q);
    in->ans = calloc(in->acap, sizeof *in->ans);
    in->pend = calloc((size_t)p->l1_mshrs, sizeof *in->pend);
    if (!in->q || !in->ans || !in->pend)
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    g->slots[i].inj = in;
    cm_memsys_set_retry(g->ms, i, (cm_retry){inj_retry, in});
    return CM_OK;
}

/* Every message in flight at once: each SM's requests (an MSHR's each,
 * their replies on the same record) and its outbox of answers and PUTs,
 * the forwards every bank's transactions may send (one per L1 each, their
 * answers on the same record), and what the crossbar's buffers hold. */
static size_t pool_size(const gpu *g)
{
    const cm_params *p = g->p;
    size_t sms = g->nsm, mshrs = (size_t)p->l1_mshrs;
    size_t fwd = g->cfg->protocol->sharers != CM_SHARERS_NONE
                     ? (size_t)p->l2_banks * (size_t)p->l2_mshrs *
                           (sms < 64 ? sms : 64)
                     : 0;
    size_t noc = (sms + (size_t)p->l2_banks) * 4 * (size_t)p->noc_vc_buffer;
    return sms * (3 * mshrs + 16) + fwd + noc;
}

static cm_status gpu_build(gpu *g, cm_stats *stats, cm_err *err)
{
    const cm_params *p = g->p;
    g->nsm = (uint32_t)p->gpu_sms;
    g->warps = (uint32_t)p->gpu_warps_per_sm;
    int spatial = p->sim_sample == 2 || p->sim_sample == 3;
    g->temporal = p->sim_sample == 1 || p->sim_sample == 3;
    g->ndetail = spatial && p->sim_sample_sms < g->nsm
                     ? (uint32_t)p->sim_sample_sms
                     : g->nsm;
    g->rate = 1; /* until the detailed SMs have been measured */
    g->budget = (uint64_t)p->sim_max_instructions;
    const cm_workload_profile *w = g->cfg->workload;
    if (!g->cfg->source.next && w)
        g->work = (double)g->nsm * g->warps * w->kernels * w->kernel_len;
    switch (g->cfg->protocol->lifetime) {
    case CM_LIFE_STRONG: g->lease = (uint64_t)p->tc_lifetime_strong; break;
    case CM_LIFE_WEAK: g->lease = (uint64_t)p->tc_lifetime_weak; break;
    case CM_LIFE_PREDICTED: g->lease = (uint64_t)p->tc_predictor_init; break;
    default: g->lease = 0; break;
    }
    g->sms = calloc(g->nsm, sizeof *g->sms);
    g->inj = calloc(g->nsm, sizeof *g->inj);
    g->slots = calloc(g->nsm, sizeof *g->slots);
    g->reply_sinks = calloc(g->nsm, sizeof *g->reply_sinks);
    g->scratch = cm_stats_new();
    g->ff_want = calloc(g->nsm, sizeof *g->ff_want);
    g->ff_got = calloc(g->nsm, sizeof *g->ff_got);
    g->ff_from = calloc(g->nsm, sizeof *g->ff_from);
    g->ff_cold = calloc(g->nsm, sizeof *g->ff_cold);
    g->ff_quota = calloc(g->nsm, sizeof *g->ff_quota);
    g->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (g->rng) gsl_rng_set(g->rng, (unsigned long)p->sim_seed);
    g->dev_sum = calloc(g->nsm, sizeof *g->dev_sum);
    g->dev_sq = calloc(g->nsm, sizeof *g->dev_sq);
    g->dev_n = calloc(g->nsm, sizeof *g->dev_n);
    if (!g->sms || !g->inj || !g->slots || !g->reply_sinks || !g->scratch ||
        !g->ff_want || !g->ff_got || !g->ff_from || !g->ff_cold ||
        !g->ff_quota || !g->rng || !g->dev_sum || !g->dev_sq || !g->dev_n)
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    size_t events = cm_memsys_events(p) +
                    (size_t)g->nsm * (4 * g->warps + 2 * (size_t)p->l1_mshrs +
                                      64);
    cm_status st = g->cfg->source.next
                       ? CM_OK
                       : cm_workload_source_new(g->cfg->workload,
                                                (uint64_t)p->sim_seed, g->nsm,
                                                g->warps, (uint32_t)p->l1_line,
                                                &g->src, err);
    if (!st) st = cm_engine_init(&g->eng, events, err);
    if (!st)
        st = cm_pool_init(&g->pool, sizeof(cm_mreq), pool_size(g), err);
    for (uint32_t i = 0; !st && i < g->nsm; i++)
        g->reply_sinks[i] = (cm_sink){reply_accept, &g->slots[i]};
    if (!st)
        st = cm_memsys_new(p, g->cfg->protocol, &g->pool, g->cfg->observer,
                           &g->eng, stats, g->reply_sinks, &g->ms, err);
    for (uint32_t i = 0; !st && i < g->nsm; i++) st = build_sm(g, i, stats, err);
    if (!st)
        st = cm_stats_counter(stats, "gpu.instructions", "all", &g->st_inst,
                              err);
    if (!st)
        st = cm_stats_counter(stats, "gpu.cycles", "all", &g->st_cycles, err);
    if (!st)
        st = cm_stats_ratio(stats, "ipc", "all", g->st_inst, g->st_cycles, err);
    return st;
}

/* ---- running --------------------------------------------------------------- */

static int detail_done(const gpu *g)
{
    for (uint32_t i = 0; i < g->ndetail; i++)
        if (!cm_sm_done(g->sms[i])) return 0;
    return 1;
}

static uint64_t detail_instructions(const gpu *g)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < g->ndetail; i++) n += cm_sm_instructions(g->sms[i]);
    return n;
}

static uint64_t detail_sent(const gpu *g)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < g->ndetail; i++)
        n += cm_l1_get_counts(cm_sm_l1(g->sms[i]))->sent;
    return n;
}

/* The injectors follow the detailed SMs' request rate, smoothed over
 * slices so one slice's burst does not swing them. */
static void update_rate(gpu *g)
{
    uint64_t now = cm_engine_now(&g->eng), sent = detail_sent(g);
    if (g->ndetail == g->nsm || now <= g->rate_at) return;
    double r = (double)(sent - g->rate_sent) /
               ((double)g->ndetail * (double)(now - g->rate_at));
    g->rate = g->rate_at == 0 ? r : 0.75 * g->rate + 0.25 * r;
    g->rate_sent = sent;
    g->rate_at = now;
}

static cm_status check_errors(gpu *g, cm_err *err)
{
    for (uint32_t i = 0; i < g->nsm; i++) {
        const cm_err *e = cm_sm_error(g->sms[i]);
        if (e) {
            *err = *e;
            return e->code ? e->code : CM_EINTERNAL;
        }
    }
    return CM_OK;
}

/* sim.max_instructions ran out. */
static int budget_out(const gpu *g)
{
    return g->p->sim_max_instructions > 0 && g->budget == 0;
}

/* Machine time: detailed cycles plus the fast-forwarded ones. */
static uint64_t machine_now(gpu *g)
{
    return cm_engine_now(&g->eng) + g->ff_cycles;
}

/* How far the run is, in per mille of the work it will do: the farther of
 * the warps' programs (memory instructions issued of those the workload
 * gives every warp; unknown for a trace), the cycles of sim.max_cycles and
 * the instructions of sim.max_instructions.  The end reports 1000. */
static void report_progress(gpu *g, int end)
{
    if (!g->cfg->progress) return;
    double f = 1;
    if (!end) {
        const cm_params *p = g->p;
        double mem = 0;
        for (uint32_t i = 0; i < g->nsm; i++)
            mem += (double)cm_sm_mem_issued(g->sms[i]);
        f = (double)machine_now(g) / (double)p->sim_max_cycles;
        if (g->work > 0 && mem / g->work > f) f = mem / g->work;
        if (p->sim_max_instructions > 0) {
            double ins = 0;
            for (uint32_t i = 0; i < g->nsm; i++)
                ins += (double)cm_sm_instructions(g->sms[i]);
            if (ins / p->sim_max_instructions > f)
                f = ins / p->sim_max_instructions;
        }
        if (f > 0.999) f = 0.999; /* the end alone says done */
    }
    g->cfg->progress((size_t)(1000 * f), 1000, g->cfg->progress_arg);
}

/* Runs detailed time up to `until` (or until `stop` says so), in rate
 * slices; sim.max_cycles caps `until` unless uncapped (a drain). */
static cm_status run_until(gpu *g, uint64_t until, int (*stop)(const gpu *),
                           int uncapped, cm_err *err)
{
    const uint64_t max = (uint64_t)g->p->sim_max_cycles;
    if (until > max && !uncapped) until = max;
    while (!stop(g) && cm_engine_now(&g->eng) < until && !budget_out(g)) {
        uint64_t to = cm_engine_now(&g->eng) + RATE_SLICE;
        cm_run_end why;
        cm_status st = cm_engine_run_before(&g->eng, to < until ? to : until,
                                            0, &why, err);
        if (!st) st = check_errors(g, err);
        if (st) return st;
        if (why == CM_RUN_EMPTY && !stop(g) && !budget_out(g))
            return cm_err_set(err, CM_EINTERNAL,
                              "simulation deadlock: no event pending at cycle "
                              "%llu with warps still live",
                              (unsigned long long)cm_engine_now(&g->eng));
        update_rate(g);
        for (uint32_t i = 0; g->temporal && i < g->ndetail; i++)
            cm_sm_kernel_snap(g->sms[i]);
        report_progress(g, 0);
    }
    return CM_OK;
}

static int all_quiet(const gpu *g)
{
    for (uint32_t i = 0; i < g->nsm; i++)
        if (!cm_sm_quiet(g->sms[i]) || (g->slots[i].inj && g->inj[i].out))
            return 0;
    return cm_memsys_outstanding(g->ms) == 0;
}

static void set_drain(gpu *g, int on)
{
    for (uint32_t i = 0; i < g->nsm; i++) {
        if (g->slots[i].inj)
            inj_pause(&g->inj[i], on);
        else
            cm_sm_set_drain(g->sms[i], on);
    }
}

/* Issues nothing new until nothing is in flight. */
static cm_status drain(gpu *g, cm_err *err)
{
    set_drain(g, 1);
    return run_until(g, UINT64_MAX, all_quiet, 1, err);
}

static void sync_sms(gpu *g)
{
    for (uint32_t i = 0; i < g->ndetail; i++) cm_sm_sync(g->sms[i]);
}

static cm_status window_begin(gpu *g, cm_stats *stats, uint64_t *inst0,
                              cm_err *err)
{
    sync_sms(g);
    *inst0 = detail_instructions(g);
    return cm_stats_window_begin(stats, cm_engine_now(&g->eng), err);
}

/* Closes a window: the machine's instructions (detailed ones scaled to
 * every SM) and cycles of the window join the totals inside it. */
static cm_status window_end(gpu *g, cm_stats *stats, uint64_t inst0,
                            uint64_t t0, cm_err *err)
{
    sync_sms(g);
    double scale = (double)g->nsm / g->ndetail;
    cm_stat_add(g->st_inst, scale * (double)(detail_instructions(g) - inst0));
    cm_stat_add(g->st_cycles, (double)(cm_engine_now(&g->eng) - t0));
    return cm_stats_window_end(stats, cm_engine_now(&g->eng), err);
}

/* Runs every SM functionally from got[i] towards want[i] instructions,
 * warming the tags (mem = warm_l2) or only advancing them (NULL).
 * Warming goes in rounds of FF_CHUNK instructions per warp: warming SM
 * after SM would leave the L2's LRU order favouring the last SMs' lines,
 * which the windows after would then miss on; rounds much finer than that
 * re-load every warp's generator state from memory each visit (32 instead
 * of 4 per visit: 11% less time over the 25 workloads, errors unchanged
 * within their spread).  Unwarmed, order does not matter: one visit. */
static void ff_run(gpu *g, const double *want, double *got, cm_sm_mem_fn mem,
                   uint64_t span)
{
    uint64_t now = cm_engine_now(&g->eng);
    double most = 0, *from = g->ff_from;
    for (uint32_t i = 0; i < g->nsm; i++) {
        from[i] = got[i];
        if (want[i] - got[i] > most) most = want[i] - got[i];
    }
    double rounds = mem ? ceil(most / ((double)FF_CHUNK * g->warps)) : 1;
    if (rounds < 1) rounds = 1;
    for (double r = 1; r <= rounds; r++) {
        /* the warmed part happened before now, round by round: leases
         * granted early in it have expired by the window */
        double back = (double)span * (rounds - r) / rounds;
        uint64_t vtime = back < (double)now ? now - (uint64_t)back : 0;
        for (uint32_t i = 0; i < g->nsm; i++) {
            double target = from[i] + floor((want[i] - from[i]) * r / rounds);
            if (target > got[i])
                got[i] += (double)cm_sm_functional(
                    g->sms[i], (uint64_t)(target - got[i]), mem, g, vtime);
        }
    }
}

/* SM i's share want[i] of a fast-forward, in whole kernels (see the
 * header) where it covers at least sim.sample_ff_kernels of them at the
 * SM's instructions per kernel so far and a kernel takes no longer than
 * the snapshots span: the SM is held (cm_sm_kernel_hold) to the places of
 * a random snapshot, m kernels on, m rounded from the share plus the
 * instructions since the snapshot.  want[i] becomes the instructions that
 * takes, an estimate for the warming split and the rounds
 * (ff_finish_held takes the warps the rest of the way); ff_quota[i] keeps
 * the share asked for, which the cycles covered scale from.  1 if held. */
static int kernel_hold(gpu *g, uint32_t i, double *want)
{
    cm_sm *sm = g->sms[i];
    uint64_t at = 0, k = cm_sm_kernels(sm, &at);
    double least = g->p->sim_sample_ff_kernels;
    if (i >= g->ndetail || least <= 0 || k == 0 || at == 0 || want[i] <= 0 ||
        cm_sm_done(sm))
        return 0;
    double per = (double)at / (double)k;
    double kcycles =
        (double)(cm_engine_now(&g->eng) + g->ff_cycles) / (double)k;
    if (want[i] / per < least || kcycles > (double)CM_SM_SNAPS * RATE_SLICE)
        return 0;
    uint32_t n = cm_sm_kernel_snaps(sm), pick = n;
    uint64_t ks = k, is = cm_sm_instructions(sm);
    if (n > 0) {
        pick = (uint32_t)gsl_rng_uniform_int(g->rng, n);
        cm_sm_kernel_snap_at(sm, pick, &ks, &is);
    }
    double back = (double)(cm_sm_instructions(sm) - is);
    double m = floor((want[i] + back) / per + 0.5);
    if ((double)ks + m < (double)k + 1) m = (double)(k + 1 - ks);
    cm_sm_kernel_hold(sm, pick, ks + (uint64_t)m);
    g->ff_quota[i] = want[i];
    want[i] = m * per - back;
    if (want[i] < 0) want[i] = 0;
    return 1;
}

/* The held SMs' warps run on to their places (warming), in rounds as
 * ff_run's, then the holds end. */
static void ff_finish_held(gpu *g, double *got)
{
    for (int progress = 1; progress;) {
        progress = 0;
        for (uint32_t i = 0; i < g->nsm; i++) {
            if (g->ff_quota[i] <= 0) continue;
            uint64_t d = cm_sm_functional(g->sms[i],
                                          (uint64_t)FF_CHUNK * g->warps,
                                          warm_l2, g, cm_engine_now(&g->eng));
            got[i] += (double)d;
            progress |= d > 0;
        }
    }
    for (uint32_t i = 0; i < g->nsm; i++)
        if (g->ff_quota[i] > 0) cm_sm_kernel_hold(g->sms[i], 0, 0);
}

/* Fast-forwards every SM the instructions it would issue in `cycles` at
 * the window's IPC per live SM times its own relative rate.  Not each
 * SM's own window IPC: over a short window that is noisy, and
 * extrapolated over a period the noise drove the SMs apart in a random
 * walk the machine does not take (tc2013 machine: bh +11%, stn +20%, hsp
 * +45% simulated cycles).  But not the mean alone either: where SMs differ
 * for good (scluster: some ~25% faster all run long, tests/check_sampling
 * .c) the fast ones finish first in full detail and the run ends in a
 * tail of slow SMs, which SMs kept together never show (sampled IPC +19%).
 * So each SM's deviation from the live SMs' mean is averaged over the
 * windows, and kept, shrunk by the share of its spread across SMs that
 * window-to-window noise explains (James-Stein), only when that spread is
 * significant (F test at FF_SM_SIGNIFICANCE): alike SMs still move alike.
 * Only the last part warms the tags (SMARTS-style warm-up before the
 * window, sim.sample_ff_warm): instructions enough for that many times
 * the L2's lines in L2 references, at the rate the last fast-forward's
 * warmed part measured (for the first, the first window's L1 requests
 * per instruction: each is an L2 reference).  A line not
 * used while its LRU set saw several times its ways in references has
 * been evicted, so older references hardly change the tags the window
 * starts from; each L1, a small fraction of the L2 seeing more references
 * than its share of it, is warm before the L2.  Before that the warps only
 * advance, their generators skimming (cm_wgen_skim): 4 instead of
 * warming throughout cut a sampled run's CPU time by a third (bh 1.1 ->
 * 0.70 s, kmn 1.5 -> 1.15 s, dlb 0.64 -> 0.41 s), errors unchanged within
 * their spread (10 instead of 4: no better over two seeds).
 * Returns the cycles actually covered: fewer if the warps retire first. */
static uint64_t fast_forward(gpu *g, const uint64_t *win_inst,
                             uint64_t win_cycles, uint64_t cycles)
{
    const cm_params *p = g->p;
    double now = 0, live = 0, total = 0;
    for (uint32_t i = 0; i < g->ndetail; i++)
        if (!cm_sm_done(g->sms[i])) {
            now += (double)win_inst[i];
            live++;
        }
    double mean = live > 0 ? now / live : 0;
    double spread = 0, noise = 0, dev_mean = 0, n = 0, df = 0;
    for (uint32_t i = 0; i < g->ndetail && mean > 0; i++) {
        if (cm_sm_done(g->sms[i])) continue;
        double d = (double)win_inst[i] / mean - 1;
        g->dev_sum[i] += d;
        g->dev_sq[i] += d * d;
        g->dev_n[i]++;
    }
    for (uint32_t i = 0; i < g->ndetail; i++) {
        double k = g->dev_n[i];
        if (k < 2) continue;
        double m = g->dev_sum[i] / k;
        dev_mean += m;
        spread += m * m;
        noise += (g->dev_sq[i] / k - m * m) / (k - 1);
        df += k - 1;
        n++;
    }
    double keep = 0;
    if (n >= 2) {
        dev_mean /= n;
        spread = (spread / n - dev_mean * dev_mean) * n / (n - 1);
        noise /= n;
        /* The p-value, not the critical value: gsl_cdf_fdist_Qinv fails
         * to converge (and GSL's default handler aborted the process) at
         * degrees of freedom that many windows reach (8 SMs: 552 and from
         * 880 on, ~70 windows); the upper tail itself converges there,
         * and a failure (NaN) counts as not significant.  Same decisions
         * wherever the inverse converged. */
        if (noise > 0) {
            gsl_error_handler_t *old = gsl_set_error_handler_off();
            double pv = gsl_cdf_fdist_Q(spread / noise, n - 1, df);
            gsl_set_error_handler(old);
            if (pv < FF_SM_SIGNIFICANCE) keep = 1 - noise / spread;
        }
    }
    double *want = g->ff_want, *got = g->ff_got, *quota = g->ff_quota;
    double ipc = mean / (double)(win_cycles ? win_cycles : 1);
    int held = 0;
    for (uint32_t i = 0; i < g->nsm; i++) {
        double rel = 1;
        if (i < g->ndetail && g->dev_n[i] >= 2)
            rel = 1 + keep * (g->dev_sum[i] / g->dev_n[i] - dev_mean);
        want[i] = floor(ipc * (rel > 0 ? rel : 0) * (double)cycles + 0.5);
        got[i] = 0;
        quota[i] = 0;
        held |= kernel_hold(g, i, want);
        total += want[i];
    }
    double lines = p->l2_banks * p->l2_bank_size / p->l2_line;
    double warm = g->refs_per_inst > 0 && p->sim_sample_ff_warm > 0
                      ? p->sim_sample_ff_warm * lines / g->refs_per_inst
                      : total;
    if (warm < total) {
        double *cold = g->ff_cold;
        for (uint32_t i = 0; i < g->nsm; i++)
            cold[i] = floor(want[i] * (1 - warm / total));
        for (uint32_t i = 0; g->src && i < g->nsm; i++)
            cm_workload_source_skim(g->src, i, 1);
        ff_run(g, cold, got, NULL, 0);
        for (uint32_t i = 0; g->src && i < g->nsm; i++)
            cm_workload_source_skim(g->src, i, 0);
    }
    double before = 0, after = 0;
    uint64_t refs = g->l2_refs;
    for (uint32_t i = 0; i < g->nsm; i++) before += got[i];
    ff_run(g, want, got, warm_l2,
           (uint64_t)((double)cycles * (warm < total ? warm / total : 1)));
    if (held) ff_finish_held(g, got);
    for (uint32_t i = 0; i < g->nsm; i++) after += got[i];
    if (after > before)
        g->refs_per_inst = (double)(g->l2_refs - refs) / (after - before);
    double covered = 0, sum = 0;
    for (uint32_t i = 0; i < g->ndetail; i++) {
        double c = quota[i] > 0  ? (double)cycles * got[i] / quota[i]
                   : want[i] > 0 ? (double)cycles * got[i] / want[i]
                                 : (double)cycles;
        if (c > covered) covered = c;
        sum += c;
    }
    /* Dithered whole kernels cover more or less than asked, by SM: their
     * mean; otherwise got <= want and the last SM's is the time. */
    if (held) covered = sum / g->ndetail;
    if (!held && covered > cycles) covered = (double)cycles;
    return (uint64_t)llround(covered);
}

/* Window k stands for its period, from its warm-up's start to the next
 * one's (or the run's end): weighed by that span over sim.sample_period,
 * 1 where the fast-forward covered the rest of the period, less where the
 * run's end cut the period short (its last instructions retired inside
 * the fast-forward, then a detailed drain). */
static cm_status weigh_period(gpu *g, cm_stats *stats, size_t k,
                              uint64_t from, uint64_t to, cm_err *err)
{
    double w = (double)(to - from) / (double)g->p->sim_sample_period;
    return cm_stats_window_weight(stats, k, w, err);
}

static cm_status run_temporal(gpu *g, cm_stats *stats, cm_err *err)
{
    const cm_params *p = g->p;
    uint64_t warm = (uint64_t)p->sim_sample_warmup;
    uint64_t win = (uint64_t)p->sim_sample_window;
    uint64_t period = (uint64_t)p->sim_sample_period;
    uint64_t *base = calloc(g->ndetail, sizeof *base);
    if (!base) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    const uint64_t max = (uint64_t)p->sim_max_cycles;
    cm_status st = CM_OK;
    size_t last = 0;         /* the latest window, + 1 (0: none yet) */
    uint64_t last_from = 0;  /* its period's start, machine time */
    /* a window starts only where the budget holds it whole */
    while (!st && !detail_done(g) && machine_now(g) + warm + win <= max) {
        uint64_t start = cm_engine_now(&g->eng), from = machine_now(g);
        uint64_t inst0 = 0;
        st = run_until(g, start + warm, detail_done, 0, err);
        if (st || detail_done(g)) break; /* a drain: the last period's */
        if (last && (st = weigh_period(g, stats, last - 1, last_from, from,
                                       err)))
            break;
        last = 0;
        uint64_t t0 = cm_engine_now(&g->eng);
        for (uint32_t i = 0; i < g->ndetail; i++)
            base[i] = cm_sm_instructions(g->sms[i]);
        if ((st = window_begin(g, stats, &inst0, err))) break;
        uint64_t sent0 = detail_sent(g);
        st = run_until(g, t0 + win, detail_done, 0, err);
        uint64_t t1 = cm_engine_now(&g->eng);
        /* Until a fast-forward has measured it, the window's own requests
         * per instruction (every request an L1 sends is an L2 reference,
         * as warming counts them): without it the first fast-forward
         * warmed throughout (stn, hsp: 3-4% of a sampled run's CPU time). */
        uint64_t dinst = detail_instructions(g) - inst0;
        if (g->refs_per_inst <= 0 && dinst > 0)
            g->refs_per_inst = (double)(detail_sent(g) - sent0) / (double)dinst;
        if (!st) st = window_end(g, stats, inst0, t0, err);
        if (st) break;
        last = cm_stats_windows(stats);
        last_from = from;
        if (detail_done(g)) break;
        for (uint32_t i = 0; i < g->ndetail; i++)
            base[i] = cm_sm_instructions(g->sms[i]) - base[i];
        uint64_t used = cm_engine_now(&g->eng) - start;
        uint64_t left = max > machine_now(g) ? max - machine_now(g) : 0;
        uint64_t ff = period > used ? period - used : 0;
        if (ff > left) ff = left; /* not past sim.max_cycles */
        if (ff) g->ff_cycles += fast_forward(g, base, t1 - t0, ff);
        /* Sleeping SMs may have ready warps again. */
        for (uint32_t i = 0; i < g->ndetail; i++)
            cm_sm_set_drain(g->sms[i], 0);
    }
    /* the last period: to the run's end, its drain included */
    if (!st && last)
        st = weigh_period(g, stats, last - 1, last_from, machine_now(g), err);
    free(base);
    return st;
}

static cm_status run_spatial(gpu *g, cm_stats *stats, cm_err *err)
{
    const cm_params *p = g->p;
    uint64_t win = (uint64_t)p->sim_sample_window;
    cm_status st = run_until(g, (uint64_t)p->sim_sample_warmup, detail_done,
                             0, err);
    while (!st && !detail_done(g) &&
           cm_engine_now(&g->eng) < (uint64_t)p->sim_max_cycles) {
        uint64_t t0 = cm_engine_now(&g->eng), inst0 = 0;
        if ((st = window_begin(g, stats, &inst0, err))) break;
        st = run_until(g, t0 + win, detail_done, 0, err);
        if (!st) st = window_end(g, stats, inst0, t0, err);
    }
    return st;
}

/* The line's value in coherent memory: the owner's copy (MESI), else the
 * L2's or DRAM's. */
static uint64_t coherent_value(const gpu *g, uint64_t line)
{
    int owner = cm_memsys_owner(g->ms, line);
    uint64_t v;
    if (owner >= 0 && cm_l1_owned_value(cm_sm_l1(g->sms[owner]), line, &v))
        return v;
    return cm_memsys_value(g->ms, line);
}

static cm_status gpu_simulate(gpu *g, cm_stats *stats, cm_gpu_result *res,
                              cm_err *err)
{
    cm_status st = CM_OK;
    for (uint32_t i = 0; !st && i < g->nsm; i++) {
        if (g->slots[i].inj)
            inj_schedule(&g->inj[i], 0);
        else
            st = cm_sm_start(g->sms[i], err);
    }
    if (st) return st;
    if (g->temporal)
        st = run_temporal(g, stats, err);
    else if (g->ndetail < g->nsm)
        st = run_spatial(g, stats, err);
    else
        st = run_until(g, UINT64_MAX, detail_done, 0, err);
    /* The injected SMs' last requests come home (conservation). */
    if (!st && g->ndetail < g->nsm) st = drain(g, err);
    if (st) return st;
    sync_sms(g); /* a run stopped at sim.max_cycles: SMs mid-stretch */
    for (uint32_t i = 0; i < g->ndetail; i++) cm_l1_finish(cm_sm_l1(g->sms[i]));
    cm_memsys_finish(g->ms);
    for (size_t k = 0; k < g->cfg->nprobe; k++)
        g->cfg->probe_values[k] = coherent_value(g, g->cfg->probe_lines[k]);
    res->finished = detail_done(g);
    report_progress(g, 1);
    for (uint32_t i = 0; i < g->nsm; i++)
        res->instructions += cm_sm_instructions(g->sms[i]);
    for (uint32_t i = 0; i < g->ndetail; i++) {
        uint64_t f = cm_sm_finish_cycle(g->sms[i]);
        if (f > res->cycles) res->cycles = f;
    }
    if (!res->finished) res->cycles = cm_engine_now(&g->eng);
    res->cycles += g->ff_cycles;
    res->events = cm_engine_executed(&g->eng);
    if (cm_stats_windows(stats) == 0) {
        cm_stat_add(g->st_inst, (double)res->instructions);
        cm_stat_add(g->st_cycles, (double)res->cycles);
    }
    /* Conservation: a finished machine has answered every request. */
    if (res->finished && (cm_memsys_outstanding(g->ms) != 0 ||
                          cm_pool_in_use(&g->pool) != 0))
        return cm_err_set(err, CM_EINTERNAL,
                          "conservation broken: %llu requests unanswered, "
                          "%zu still pooled at the end",
                          (unsigned long long)cm_memsys_outstanding(g->ms),
                          cm_pool_in_use(&g->pool));
    return CM_OK;
}

/* Every statistic the machine registered is in the registry
 * (data/metrics.def) under its kind, so names, units and meanings cannot
 * drift. */
static cm_status metric_known(void *arg, const char *name, cm_stat_kind kind,
                              int ratio, const char *full, cm_err *err)
{
    (void)arg;
    static const cm_metric_kind of[] = {
        [CM_STAT_COUNTER] = CM_METRIC_COUNTER, [CM_STAT_OCCUPANCY] = CM_METRIC_OCCUPANCY,
        [CM_STAT_LEVEL] = CM_METRIC_LEVEL, [CM_STAT_LATENCY] = CM_METRIC_LATENCY};
    cm_metric_kind k = ratio ? CM_METRIC_RATIO : of[kind];
    const char *missing = !cm_metric_find(name, k)             ? name
                          : full && !cm_metric_find(full, CM_METRIC_FULL) ? full
                                                                  : NULL;
    if (missing)
        return cm_err_set(err, CM_EINTERNAL,
                          "statistic '%s' is not in data/metrics.def",
                          missing);
    return CM_OK;
}

cm_status cm_gpu_check_params(const cm_params *p, cm_err *err)
{
    /* sampled runs skip instructions functionally, so an instruction
     * budget would mean different things in their modes */
    if (p->sim_max_instructions > 0 && p->sim_sample != 0)
        return cm_err_set(err, CM_EINPUT,
                          "sim.max_instructions applies to full detail only "
                          "(sim.sample=off); use sim.max_cycles");
    /* a temporal budget must hold one warm-up and one window: a window
     * cut short measures nothing (every statistic was NaN) */
    if ((p->sim_sample == 1 || p->sim_sample == 3) &&
        p->sim_max_cycles < p->sim_sample_warmup + p->sim_sample_window)
        return cm_err_set(err, CM_EINPUT,
                          "sim.max_cycles %.0f is shorter than one sampling "
                          "window (sim.sample_warmup %.0f + sim.sample_window "
                          "%.0f cycles): raise it, or set sim.sample=off",
                          p->sim_max_cycles, p->sim_sample_warmup,
                          p->sim_sample_window);
    return CM_OK;
}

cm_status cm_gpu_run(const cm_gpu_run_config *cfg, cm_stats *stats,
                     cm_gpu_result *res, cm_err *err)
{
    memset(res, 0, sizeof *res);
    gpu g;
    memset(&g, 0, sizeof g);
    g.cfg = cfg;
    g.p = cfg->params;
    cm_status st = cm_gpu_check_params(g.p, err);
    if (st) return st;
    if (!cfg->protocol)
        return cm_err_set(err, CM_EINTERNAL, "no protocol to simulate");
    st = cfg->source.next ? CM_OK
                          : cm_workload_profile_validate(cfg->workload, err);
    if (!st) st = gpu_build(&g, stats, err);
    if (!st) st = cm_stats_each(stats, metric_known, NULL, err);
    if (!st) st = gpu_simulate(&g, stats, res, err);
    if (!st) {
        cm_stats_sync(stats, cm_engine_now(&g.eng));
        st = cm_stats_merge_all(stats, err);
    }
    gpu_free(&g);
    return st;
}
