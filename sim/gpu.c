/* gpu.c - the whole simulated GPU (see gpu.h), in full detail or sampled.
 *
 * Wiring: the memory side needs each SM's reply sink and each L1 needs the
 * memory side's input, so replies go through a small trampoline per SM that
 * is pointed at its L1 (or at its traffic injector) once the SMs exist.
 * Warps take their instructions from the workload's generators
 * (sim/workload_source.h) or from the caller's source (a trace).
 *
 * Sampling (sim.sample): spatial (traffic injectors stand in for every
 * SM but sim.sample_sms, gpu_inject.c) and temporal (windows and
 * fast-forwards, gpu_sample.c); the reasoning is in each file's header.
 *
 * Sizing: every request in flight holds an L1 MSHR entry (or an injector's
 * slot), so a pool of SMs x l1.mshrs requests can never run dry; the event
 * queue gets the memory side's own bound plus a generous per-warp
 * allowance. */
#include "sim/gpu_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/metrics.h"

/* ---- building --------------------------------------------------------------
 */

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
    c.src =
        g->cfg->source.next ? g->cfg->source : cm_workload_source_warps(g->src);
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
    cm_memsys_set_retry(g->ms, i, (cm_retry){gpu_inj_retry, in});
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
    size_t fwd =
        g->cfg->protocol->sharers != CM_SHARERS_NONE
            ? (size_t)p->l2_banks * (size_t)p->l2_mshrs * (sms < 64 ? sms : 64)
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
    case CM_LIFE_STRONG:
        g->lease = (uint64_t)p->tc_lifetime_strong;
        break;
    case CM_LIFE_WEAK:
        g->lease = (uint64_t)p->tc_lifetime_weak;
        break;
    case CM_LIFE_PREDICTED:
        g->lease = (uint64_t)p->tc_predictor_init;
        break;
    default:
        g->lease = 0;
        break;
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
    size_t events =
        cm_memsys_events(p) +
        (size_t)g->nsm * (4 * g->warps + 2 * (size_t)p->l1_mshrs + 64);
    cm_status st = g->cfg->source.next
                       ? CM_OK
                       : cm_workload_source_new(
                             g->cfg->workload, (uint64_t)p->sim_seed, g->nsm,
                             g->warps, (uint32_t)p->l1_line, &g->src, err);
    if (!st) st = cm_engine_init(&g->eng, events, err);
    if (!st) st = cm_pool_init(&g->pool, sizeof(cm_mreq), pool_size(g), err);
    for (uint32_t i = 0; !st && i < g->nsm; i++)
        g->reply_sinks[i] = (cm_sink){gpu_reply_accept, &g->slots[i]};
    if (!st)
        st = cm_memsys_new(p, g->cfg->protocol, &g->pool, g->cfg->observer,
                           &g->eng, stats, g->reply_sinks, &g->ms, err);
    for (uint32_t i = 0; !st && i < g->nsm; i++)
        st = build_sm(g, i, stats, err);
    if (!st)
        st = cm_stats_counter(stats, "gpu.instructions", "all", &g->st_inst,
                              err);
    if (!st)
        st = cm_stats_counter(stats, "gpu.cycles", "all", &g->st_cycles, err);
    if (!st)
        st = cm_stats_ratio(stats, "ipc", "all", g->st_inst, g->st_cycles, err);
    return st;
}

/* ---- running ---------------------------------------------------------------
 */

int gpu_detail_done(const gpu *g)
{
    for (uint32_t i = 0; i < g->ndetail; i++)
        if (!cm_sm_done(g->sms[i])) return 0;
    return 1;
}

uint64_t gpu_detail_instructions(const gpu *g)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < g->ndetail; i++)
        n += cm_sm_instructions(g->sms[i]);
    return n;
}

uint64_t gpu_detail_sent(const gpu *g)
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
    uint64_t now = cm_engine_now(&g->eng), sent = gpu_detail_sent(g);
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
uint64_t gpu_machine_now(gpu *g)
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
        f = (double)gpu_machine_now(g) / (double)p->sim_max_cycles;
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
cm_status gpu_run_until(gpu *g, uint64_t until, int (*stop)(const gpu *),
                        int uncapped, cm_err *err)
{
    const uint64_t max = (uint64_t)g->p->sim_max_cycles;
    if (until > max && !uncapped) until = max;
    while (!stop(g) && cm_engine_now(&g->eng) < until && !budget_out(g)) {
        uint64_t to = cm_engine_now(&g->eng) + RATE_SLICE;
        cm_run_end why;
        cm_status st = cm_engine_run_before(&g->eng, to < until ? to : until, 0,
                                            &why, err);
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
            gpu_inj_pause(&g->inj[i], on);
        else
            cm_sm_set_drain(g->sms[i], on);
    }
}

/* Issues nothing new until nothing is in flight. */
static cm_status drain(gpu *g, cm_err *err)
{
    set_drain(g, 1);
    return gpu_run_until(g, UINT64_MAX, all_quiet, 1, err);
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
            gpu_inj_schedule(&g->inj[i], 0);
        else
            st = cm_sm_start(g->sms[i], err);
    }
    if (st) return st;
    if (g->temporal)
        st = gpu_run_temporal(g, stats, err);
    else if (g->ndetail < g->nsm)
        st = gpu_run_spatial(g, stats, err);
    else
        st = gpu_run_until(g, UINT64_MAX, gpu_detail_done, 0, err);
    /* The injected SMs' last requests come home (conservation). */
    if (!st && g->ndetail < g->nsm) st = drain(g, err);
    if (st) return st;
    gpu_sync_sms(g); /* a run stopped at sim.max_cycles: SMs mid-stretch */
    for (uint32_t i = 0; i < g->ndetail; i++) cm_l1_finish(cm_sm_l1(g->sms[i]));
    cm_memsys_finish(g->ms);
    for (size_t k = 0; k < g->cfg->nprobe; k++)
        g->cfg->probe_values[k] = coherent_value(g, g->cfg->probe_lines[k]);
    res->finished = gpu_detail_done(g);
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
    if (res->finished &&
        (cm_memsys_outstanding(g->ms) != 0 || cm_pool_in_use(&g->pool) != 0))
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
    static const cm_metric_kind of[] = {[CM_STAT_COUNTER] = CM_METRIC_COUNTER,
                                        [CM_STAT_OCCUPANCY] =
                                            CM_METRIC_OCCUPANCY,
                                        [CM_STAT_LEVEL] = CM_METRIC_LEVEL,
                                        [CM_STAT_LATENCY] = CM_METRIC_LATENCY};
    cm_metric_kind k = ratio ? CM_METRIC_RATIO : of[kind];
    const char *missing = !cm_metric_find(name, k) ? name
                          : full && !cm_metric_find(full, CM_METRIC_FULL)
                              ? full
                              : NULL;
    if (missing)
        return cm_err_set(err, CM_EINTERNAL,
                          "statistic '%s' is not in data/metrics.def", missing);
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
