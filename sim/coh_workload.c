/* coh_workload.c - runs a workload profile (or any instruction source) on
 * the coherence simulator: the glue `cohmod sim --protocol`, the study and
 * the validations share. */
#include "sim/coh.h"
#include "sim/workload.h"
#include "sim/workload_source.h"

cm_status cm_coh_simulate(const cm_params *params,
                          const cm_workload_profile *workload,
                          cm_warp_source source, const cm_coh_protocol *proto,
                          cm_stats *stats, cm_coh_result *res, cm_err *err)
{
    cm_workload_source *ws = NULL;
    cm_status st = CM_OK;
    if (!source.next) {
        st = cm_workload_source_new(workload, (uint64_t)params->sim_seed,
                                    (uint32_t)params->gpu_sms,
                                    (uint32_t)params->gpu_warps_per_sm,
                                    (uint32_t)params->l1_line, &ws, err);
        if (st) return st;
        source = cm_workload_source_warps(ws);
    }
    cm_coh_config cfg = {.proto = proto, .params = params, .src = source,
                         .seed = (uint64_t)params->sim_seed, .stats = stats};
    cm_coh *c = NULL;
    st = cm_coh_new(&cfg, &c, err);
    if (!st) st = cm_coh_run(c, (uint64_t)params->sim_max_cycles, res, err);
    cm_coh_free(c);
    cm_workload_source_free(ws);
    return st;
}
