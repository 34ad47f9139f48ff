/* gpu.c - the whole simulated GPU (see gpu.h).
 *
 * Wiring: the memory side needs each SM's reply sink and each L1 needs the
 * memory side's input, so replies go through a small trampoline per SM that
 * is pointed at its L1 once the SMs exist.  Each warp's instructions come
 * from its own workload generator (seeded from sim.seed, SM and warp), so a
 * warp's stream does not depend on the schedule and runs repeat byte for
 * byte.
 *
 * Sizing: every request in flight holds an L1 MSHR entry, so a pool of
 * SMs x l1.mshrs requests can never run dry; the event queue gets the
 * memory side's own bound plus a generous per-warp allowance. */
#include "sim/gpu.h"

#include <stdlib.h>
#include <string.h>

#include "sim/engine.h"
#include "sim/memsys.h"
#include "sim/sm.h"

typedef struct reply_slot {
    cm_l1 *l1;
} reply_slot;

typedef struct gpu {
    const cm_gpu_run_config *cfg;
    cm_engine eng;
    cm_pool pool;
    cm_memsys *ms;
    cm_sm **sms;
    reply_slot *slots;
    cm_sink *reply_sinks;
    cm_wgen *gens; /* sms x warps */
    cm_winst inst; /* the instruction being translated */
    uint32_t nsm, warps;
} gpu;

static int reply_accept(void *obj, cm_mreq *r)
{
    reply_slot *slot = obj;
    cm_sink s = cm_l1_reply_sink(slot->l1);
    return cm_sink_send(&s, r);
}

/* Workload instruction -> SM instruction.  The generator's lines are
 * already coalesced; its compute is in cycles, which the SM spends as that
 * many one-cycle instructions. */
static cm_status next_inst(void *obj, uint32_t sm, uint32_t warp,
                           cm_inst *inst, cm_err *err)
{
    (void)err;
    gpu *g = obj;
    cm_winst *w = &g->inst;
    cm_wgen_next(&g->gens[(size_t)sm * g->warps + warp], w);
    memset(inst, 0, sizeof *inst);
    switch (w->kind) {
    case CM_WI_COMPUTE:
        inst->kind = CM_INST_COMPUTE;
        inst->n = w->compute;
        break;
    case CM_WI_MEM:
        inst->kind = w->op == CM_WOP_LOAD    ? CM_INST_LOAD
                     : w->op == CM_WOP_STORE ? CM_INST_STORE
                                             : CM_INST_ATOMIC;
        inst->n = w->n;
        inst->addrs = w->lines;
        inst->bytes = 4; /* a 32-bit word per thread of the warp */
        break;
    case CM_WI_BARRIER:
        inst->kind = CM_INST_BARRIER;
        break;
    case CM_WI_FENCE:
        inst->kind = CM_INST_FENCE;
        break;
    case CM_WI_KERNEL:
        inst->kind = CM_INST_KERNEL;
        break;
    default:
        inst->kind = CM_INST_END;
    }
    return CM_OK;
}

static void gpu_free(gpu *g)
{
    for (uint32_t i = 0; g->sms && i < g->nsm; i++) cm_sm_free(g->sms[i]);
    cm_memsys_free(g->ms);
    cm_pool_free(&g->pool);
    cm_engine_free(&g->eng);
    free(g->sms);
    free(g->slots);
    free(g->reply_sinks);
    free(g->gens);
}

static cm_status gpu_build(gpu *g, cm_stats *stats, cm_err *err)
{
    const cm_params *p = g->cfg->params;
    g->nsm = (uint32_t)p->gpu_sms;
    g->warps = (uint32_t)p->gpu_warps_per_sm;
    g->sms = calloc(g->nsm, sizeof *g->sms);
    g->slots = calloc(g->nsm, sizeof *g->slots);
    g->reply_sinks = calloc(g->nsm, sizeof *g->reply_sinks);
    g->gens = calloc((size_t)g->nsm * g->warps, sizeof *g->gens);
    if (!g->sms || !g->slots || !g->reply_sinks || !g->gens)
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    size_t events = cm_memsys_events(p) +
                    (size_t)g->nsm * (4 * g->warps + 2 * (size_t)p->l1_mshrs +
                                      64);
    cm_status st = cm_engine_init(&g->eng, events, err);
    if (!st)
        st = cm_pool_init(&g->pool, sizeof(cm_mreq),
                          (size_t)g->nsm * ((size_t)p->l1_mshrs + 8), err);
    for (uint32_t i = 0; !st && i < g->nsm; i++)
        g->reply_sinks[i] = (cm_sink){reply_accept, &g->slots[i]};
    if (!st) st = cm_memsys_new(p, &g->eng, stats, g->reply_sinks, &g->ms, err);
    for (uint32_t i = 0; !st && i < g->nsm; i++) {
        for (uint32_t w = 0; !st && !g->cfg->source.next && w < g->warps; w++)
            st = cm_wgen_init(&g->gens[(size_t)i * g->warps + w],
                              g->cfg->workload, (uint64_t)p->sim_seed, i, w,
                              (uint32_t)p->l1_line, err);
        cm_sm_config c;
        memset(&c, 0, sizeof c);
        cm_sm_config_params(&c, p);
        c.id = i;
        c.l1.proto = g->cfg->protocol;
        c.l1.pool = &g->pool;
        c.l1.out = cm_memsys_input(g->ms, i);
        c.src = g->cfg->source.next ? g->cfg->source
                                    : (cm_warp_source){next_inst, g};
        c.stats = stats;
        if (!st) st = cm_sm_new(&c, &g->eng, &g->sms[i], err);
        if (st) break;
        g->slots[i].l1 = cm_sm_l1(g->sms[i]);
        cm_memsys_set_retry(g->ms, i, cm_l1_retry(g->slots[i].l1));
    }
    return st;
}

static int all_done(const gpu *g)
{
    for (uint32_t i = 0; i < g->nsm; i++)
        if (!cm_sm_done(g->sms[i])) return 0;
    return 1;
}

/* Runs in slices so progress can be shown and a finished machine stops at
 * once. */
static cm_status gpu_simulate(gpu *g, cm_gpu_result *res, cm_err *err)
{
    const uint64_t max = (uint64_t)g->cfg->params->sim_max_cycles;
    const uint64_t slice = 100000;
    cm_status st = CM_OK;
    for (uint32_t i = 0; !st && i < g->nsm; i++)
        st = cm_sm_start(g->sms[i], err);
    while (!st && !all_done(g) && cm_engine_now(&g->eng) < max) {
        uint64_t until = cm_engine_now(&g->eng) + slice;
        cm_run_end why;
        st = cm_engine_run(&g->eng, until < max ? until : max, 0, &why, err);
        for (uint32_t i = 0; !st && i < g->nsm; i++) {
            const cm_err *e = cm_sm_error(g->sms[i]);
            if (e) {
                *err = *e;
                st = e->code ? e->code : CM_EINTERNAL;
            }
        }
        if (!st && why == CM_RUN_EMPTY && !all_done(g))
            st = cm_err_set(err, CM_EINTERNAL,
                            "simulation deadlock: no event pending at cycle "
                            "%llu with warps still live",
                            (unsigned long long)cm_engine_now(&g->eng));
        if (g->cfg->progress)
            g->cfg->progress((size_t)cm_engine_now(&g->eng), (size_t)max,
                             g->cfg->progress_arg);
    }
    if (st) return st;
    res->finished = all_done(g);
    for (uint32_t i = 0; i < g->nsm; i++) {
        res->instructions += cm_sm_instructions(g->sms[i]);
        uint64_t f = cm_sm_finish_cycle(g->sms[i]);
        if (f > res->cycles) res->cycles = f;
    }
    if (!res->finished) res->cycles = cm_engine_now(&g->eng);
    res->events = cm_engine_executed(&g->eng);
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

/* The machine-wide rows: ipc over the whole GPU, registered before the
 * merge so it is not replaced by the per-SM average. */
static cm_status gpu_totals(cm_stats *stats, const cm_gpu_result *res,
                            cm_err *err)
{
    cm_stat *inst = NULL, *cycles = NULL;
    cm_status st = cm_stats_counter(stats, "gpu.instructions", "all", &inst,
                                    err);
    if (!st) st = cm_stats_counter(stats, "gpu.cycles", "all", &cycles, err);
    if (!st) st = cm_stats_ratio(stats, "ipc", "all", inst, cycles, err);
    if (st) return st;
    cm_stat_add(inst, (double)res->instructions);
    cm_stat_add(cycles, (double)res->cycles);
    return cm_stats_merge_all(stats, err);
}

cm_status cm_gpu_run(const cm_gpu_run_config *cfg, cm_stats *stats,
                     cm_gpu_result *res, cm_err *err)
{
    memset(res, 0, sizeof *res);
    gpu g;
    memset(&g, 0, sizeof g);
    g.cfg = cfg;
    cm_status st = cfg->source.next
                       ? CM_OK
                       : cm_workload_profile_validate(cfg->workload, err);
    if (!st) st = gpu_build(&g, stats, err);
    if (!st) st = gpu_simulate(&g, res, err);
    if (!st) {
        cm_stats_sync(stats, cm_engine_now(&g.eng));
        st = gpu_totals(stats, res, err);
    }
    gpu_free(&g);
    return st;
}
