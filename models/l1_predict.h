/* l1_predict.h - the L1 miss ratio of one SM predicted from a workload
 * profile: set-local reuse statistics of the generator's own warp streams
 * (l1_profile.h, built once per workload and cached), composed over the
 * interleaved warps, at the degree the warp scheduler leads to.  The
 * mathematics, assumptions and how accesses count are in l1_predict.c's
 * header.
 *
 * Measured domain of validity (held-out mean |error| of l1.miss_ratio
 * under NO-COH, LRU; model.l1_interleave_fraction fitted on a fifth):
 *   cohmod validate reuse                                      0.017
 *   cohmod validate reuse --config li2014
 *       --workloads comd,sssp,scluster,atax,kmn                0.029
 *   cohmod validate reuse --design lhs:200 --seed 1            0.024
 *       (tc2013 0.017, li2014 0.031, worst workload gesummv 0.071,
 *        worst point 0.16: li2014 gesummv at 16 KB, 37 warps)
 * Known to over-predict heavy sharing (80% of fresh lines from a small
 * shared pool) and to under-predict uncoalesced kernels under GTO with
 * few MSHRs (queueing is not in the degree's bound). */
#ifndef CM_L1_PREDICT_H
#define CM_L1_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/params.h"
#include "data/workload.h"

/* Line accesses generated per warp at most: every built-in profile's
 * whole stream (kernels x kernel_len x reqs_mean <= 64000) fits. */
#define CM_L1_PREDICT_MAX_ACCESSES ((size_t)1 << 16)

typedef struct cm_l1_prediction {
    double miss_ratio; /* as the simulator's l1.miss_ratio counts it */
    double warps_interleaved; /* the degree W the prediction is at */
    size_t warps;      /* ceil(warps_interleaved) */
    double accesses_per_warp; /* line accesses (loads, stores, atomics) of
                                 the profile's mean warp */
    int set_local;     /* 1: the exact set-local statistics were used (sets
                          a power of two up to 2^CM_L1_PROFILE_MAX_LOG2_SETS,
                          ways <= CM_L1_PROFILE_DEPTH); 0: the binomial
                          placement model of interleave.c */
} cm_l1_prediction;

/* Predicts the L1 miss ratio of one SM running `warps_interleaved` warps
 * of workload w on the L1 geometry of p (l1.size, l1.ways, l1.line), from
 * the per-warp reuse profiles of the workload's generated streams and the
 * interleaving model (models/interleave.c).  warps_interleaved is the
 * calibratable effective interleaving degree (real schedulers like GTO
 * interleave fewer warps than are resident); it may be fractional
 * (interpolate between floor and ceil).  It must lie in
 * 1 .. gpu.warps_per_sm. */
cm_status cm_l1_predict_miss_ratio(const cm_params *p,
                                   const cm_workload_profile *w,
                                   double warps_interleaved,
                                   cm_l1_prediction *out, cm_err *err);

/* The same at the degree the scheduler leads to (l1_predict.c's header,
 * "Interleaving degree"): W = clamp(fraction x sched.active_warps, 1,
 * gpu.warps_per_sm) under LRR; under GTO and two-level at most the warps
 * the SM keeps in play at the predicted miss ratio, a fixed point.
 * fraction in (0, 1] is the calibrated model.l1_interleave_fraction. */
cm_status cm_l1_predict_scheduled(const cm_params *p,
                                  const cm_workload_profile *w,
                                  double fraction, cm_l1_prediction *out,
                                  cm_err *err);

#endif
