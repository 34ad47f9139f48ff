/* directory.h - directory bandwidth: expected coherence messages and flits
 * per L1 access, by message class, for each protocol (spec/models.md
 * section 2, seed 000).
 *
 * The mathematics and assumptions are in the header comment of
 * directory.c.  The model takes the protocol's own L1 and L2 transition
 * tables (models/ptable.h: the simulator's, as data) and weights each row's message by the
 * probability of its (state, event) pair, derived from a workload profile
 * (models/profile.h) of a run of the same workload - any protocol, any
 * machine - and the machine parameters being predicted.
 *
 * "Per access" means per L1 access: one load, store or atomic line request
 * accepted by an L1 (the simulator's l1.accesses).  The simulator-side
 * figures to compare with are sum(noc.msgs.*) / l1.accesses and
 * noc.flits / l1.accesses of the run.
 *
 * Profile quantities read (the simulator's profile recorder writes them):
 *   rate.l1_loads, rate.l1_stores, rate.l1_atomics   op mix
 *   l1.load_gap, l1.load_distance, l1.load_flags     loads' reuse
 *   l1.store_gap, l1.store_flags, l1.write_sharers   writes (only needed
 *                                                     when there are any)
 *   rate.store_ack_latency                           round trip (NO-L1
 *                                                     merges)
 *   recall inputs (models/recall.h) for protocols with sharers, and the
 *   lifetime inputs (models/lifetime.h) for TC-Weak's predictor; without
 *   them recalls count zero and the predictor sits at tc.predictor_init. */
#ifndef CM_DIRECTORY_H
#define CM_DIRECTORY_H

#include <stddef.h>

#include "data/err.h"
#include "data/params.h"
#include "data/progress.h"
#include "data/sweep.h"
#include "data/table.h"
#include "models/profile.h"
#include "models/ptable.h"

/* Message classes, numbered as data/proto.h's cm_msg (index 0 is "none"
 * and always 0). */
#define CM_DIR_NCLASSES 19
const char *cm_directory_class_name(size_t cls);

typedef struct cm_directory_result {
    double msgs_per_access;  /* every message class, per L1 access */
    double flits_per_access; /* their flits (noc.flit, noc.header) */
    double msgs[CM_DIR_NCLASSES];  /* per L1 access, by class */
    double flits[CM_DIR_NCLASSES]; /* per L1 access, by class */
    /* the access-class probabilities behind them */
    double p_load, p_store, p_atomic; /* op mix, summing to 1 */
    double p_load_miss;   /* P(a load sends a request) */
    double p_store_valid; /* P(a store or atomic finds a valid copy) */
    double lifetime;      /* TC lifetime used (cycles); 0 otherwise */
    double dir_per_access; /* requests reaching the L2 per L1 access */
} cm_directory_result;

cm_status cm_directory_predict(const cm_params *p,
                               const cm_ptable *proto,
                               const cm_profile *prof,
                               cm_directory_result *out, cm_err *err);

/* One row per grid point and protocol: the swept parameters, protocol,
 * msgs_per_access, flits_per_access, p_load_miss, then msgs.<class> for
 * every class but "none". */
cm_status cm_directory_grid_table(const cm_params *base,
                                  const cm_ptable *protos,
                                  size_t nprotos, const cm_profile *prof,
                                  cm_sweep *sweeps, size_t nsweeps,
                                  cm_progress_fn progress, void *progress_arg,
                                  cm_table **out, cm_err *err);

#endif
