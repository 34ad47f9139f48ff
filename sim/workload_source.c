/* workload_source.c - workload profiles as warp instruction streams (see
 * workload_source.h).  A generator instruction becomes one SM
 * instruction: its lines are already coalesced; its compute, in cycles,
 * is spent as that many one-cycle instructions. */
#include "sim/workload_source.h"

#include <stdlib.h>
#include <string.h>

struct cm_workload_source {
    uint32_t sms, warps;
    cm_wgen *gens;    /* sms x warps */
    cm_winst *insts;  /* each warp's last instruction: its lines live here */
};

static cm_status next_inst(void *obj, uint32_t sm, uint32_t warp,
                           cm_inst *inst, cm_err *err)
{
    cm_workload_source *s = obj;
    if (sm >= s->sms || warp >= s->warps)
        return cm_err_set(err, CM_EINTERNAL,
                          "workload source: no warp %u of SM %u", warp, sm);
    size_t k = (size_t)sm * s->warps + warp;
    cm_winst *w = &s->insts[k];
    cm_wgen_next(&s->gens[k], w);
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

cm_status cm_workload_source_new(const cm_workload_profile *prof,
                                 uint64_t seed, uint32_t sms, uint32_t warps,
                                 uint32_t line_bytes,
                                 cm_workload_source **out, cm_err *err)
{
    *out = NULL;
    cm_workload_source *s = calloc(1, sizeof *s);
    size_t n = (size_t)sms * warps;
    if (s) {
        s->gens = calloc(n, sizeof *s->gens);
        s->insts = calloc(n, sizeof *s->insts);
    }
    if (!s || !s->gens || !s->insts) {
        cm_workload_source_free(s);
        return cm_err_set(err, CM_EINTERNAL, "out of memory for %zu warps", n);
    }
    s->sms = sms;
    s->warps = warps;
    cm_status st = CM_OK;
    for (uint32_t i = 0; !st && i < sms; i++)
        for (uint32_t w = 0; !st && w < warps; w++)
            st = cm_wgen_init(&s->gens[(size_t)i * warps + w], prof, seed, i,
                              w, line_bytes, err);
    if (st) {
        cm_workload_source_free(s);
        return st;
    }
    *out = s;
    return CM_OK;
}

void cm_workload_source_free(cm_workload_source *src)
{
    if (!src) return;
    free(src->gens);
    free(src->insts);
    free(src);
}

cm_warp_source cm_workload_source_warps(cm_workload_source *src)
{
    return (cm_warp_source){next_inst, src};
}

void cm_workload_source_skim(cm_workload_source *src, uint32_t sm, int on)
{
    for (uint32_t w = 0; sm < src->sms && w < src->warps; w++)
        cm_wgen_skim(&src->gens[(size_t)sm * src->warps + w], on);
}
