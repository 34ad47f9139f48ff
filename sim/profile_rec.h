/* profile_rec.h - the profile recorder: an observer (sim/observe.h) that
 * turns a run into the timing profile the coherence models read (the
 * quantities and their meaning: models/profile.h), for any protocol.
 *
 * It watches the L1s, the warps and the L2 banks through their hooks and
 * keeps what it needs on its side (per tag slot, per warp, per request in
 * flight), so the components carry none of it.  Run the simulator with
 * cm_profile_rec_observer as the run's observer (full detail: sampled runs
 * skip what a profile needs), then cm_profile_rec_table gives the profile
 * as rows quantity,lo,hi,value (models/profile.h cm_profile_from_table). */
#ifndef CM_PROFILE_REC_H
#define CM_PROFILE_REC_H

#include <stdint.h>

#include "data/err.h"
#include "data/params.h"
#include "data/table.h"
#include "sim/observe.h"
#include "sim/protocol.h"
#include "sim/stats.h"

typedef struct cm_profile_rec cm_profile_rec;

/* A recorder for a run of proto on the machine of p. */
cm_status cm_profile_rec_new(const cm_params *p, const cm_protocol *proto,
                             cm_profile_rec **out, cm_err *err);
void cm_profile_rec_free(cm_profile_rec *r);

const cm_observer *cm_profile_rec_observer(cm_profile_rec *r);

/* After the run (cycles: its length; stats: its registry, for the L2
 * MSHRs' occupancy): the profile. */
cm_status cm_profile_rec_table(cm_profile_rec *r, const cm_stats *stats,
                               uint64_t cycles, cm_table **out, cm_err *err);

#endif
