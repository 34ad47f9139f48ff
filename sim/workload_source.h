/* workload_source.h - the SMs' instruction source (sim/sm.h
 * cm_warp_source) over workload profiles: one generator per warp, seeded
 * from (seed, SM, warp), so a warp's stream does not depend on the
 * schedule and runs repeat byte for byte.  Each warp has its own
 * instruction buffer: the lines an instruction hands the SM stay valid
 * until that warp's next fetch, however many other warps fetch meanwhile
 * (the SM coalesces at issue, long after the fetch). */
#ifndef CM_WORKLOAD_SOURCE_H
#define CM_WORKLOAD_SOURCE_H

#include <stdint.h>

#include "data/err.h"
#include "sim/sm.h"
#include "data/workload.h"

typedef struct cm_workload_source cm_workload_source;

/* line_bytes: the L1 line the profile's addresses are cut into. */
cm_status cm_workload_source_new(const cm_workload_profile *prof,
                                 uint64_t seed, uint32_t sms, uint32_t warps,
                                 uint32_t line_bytes,
                                 cm_workload_source **out, cm_err *err);
void cm_workload_source_free(cm_workload_source *src);

/* The cm_warp_source to give every SM (SM ids 0..sms-1). */
cm_warp_source cm_workload_source_warps(cm_workload_source *src);

/* SM sm's warps skim (cm_wgen_skim; on = 1) or stop skimming (0). */
void cm_workload_source_skim(cm_workload_source *src, uint32_t sm, int on);

#endif
