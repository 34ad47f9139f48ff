/* lifetime.h - lifetime-prediction outcomes of Temporal Coherence (seed 000)
 * against the lifetime L, from a workload timing profile.
 *
 * The mathematics, assumptions and the measured domain of validity are in
 * the header comments of lifetime.c and lifetime_pred.c (the TC-Weak
 * predictor).
 * Usage: cm_lifetime_input_from_profile fills the input from a profile
 * (models/profile.h) and the tc.* parameters; cm_lifetime_eval gives every
 * figure at one L; cm_lifetime_equilibrium finds the root of the TC-Weak
 * predictor's drift, cm_lifetime_run_mean its approach from the start;
 * cm_lifetime_stationary solves the predictor as a Markov chain.
 * cm_lifetime_table does a whole sweep for the CLI.  The input points
 * into the profile, which must outlive it. */
#ifndef CM_LIFETIME_H
#define CM_LIFETIME_H

#include <stddef.h>

#include "data/err.h"
#include "data/params.h"
#include "data/table.h"
#include "models/dist.h"
#include "models/profile.h"

typedef struct cm_lifetime_input {
    /* profile distributions (profile.h says what each measures) */
    const cm_dist *reuse;          /* R  l1.reuse_time */
    const cm_dist *residency;      /* E  l1.residency */
    const cm_dist *read_to_write;  /* S  l2.read_to_write */
    const cm_dist *load_gap;       /* G  l2.load_gap */
    const cm_dist *evict_age;      /* A  l2.evict_age (NULL: no evictions) */
    const cm_dist *store_to_fence; /* D  warp.store_to_fence */
    /* optional (NULL: absent from the profile) */
    const cm_dist *read_to_write_shared; /* S' l2.read_to_write_shared */
    const cm_dist *fence_slack;    /* Z  warp.fence_lease_slack */
    const cm_dist *fence_ack;      /* A  warp.fence_ack_wait */
    /* the fences with a finite Z as (A, Z) points (joint.warp.
     * fence_ack_slack; NULL, 0: none in the profile) */
    const cm_point *fence_pairs;
    size_t nfence_pairs;
    const cm_dist *last_use;       /* V  l1.last_use */
    const cm_dist *lease_delay;    /* d  l1.lease_delay */
    const cm_dist *l1_load_gap;    /* T  l1.load_gap: a core's loads of a
                                      line apart (NULL: fills' outcomes
                                      unscaled by the fill share) */
    double fill_lifetime;          /* rate.lifetime, the profile's L0 for
                                      the fill share (0: unknown) */
    /* S split by the store's warp (lifetime.c, "Carrying S"): S of the
     * stores after a load by their own warp (the _shared one without
     * private writes) and of the others (the _shared one with private
     * writes at inf) */
    const cm_dist *own_read_to_write, *own_read_to_write_shared;
    /* of the own ones, those whose store was the warp's next memory
     * instruction after the load (their S is not stretched by the speed) */
    const cm_dist *own_next_read_to_write, *own_next_read_to_write_shared;
    const cm_dist *other_read_to_write, *other_read_to_write_shared;
    double own_trip_floor; /* the round trip's latency c (0: unknown) */
    /* of the others, those queued behind the load that set the lease:
     * points (S less the bank's blocked cycles, the blocked cycles), the
     * _shared ones without private writes (lifetime.c, "Carrying S: the
     * stores queued behind the load"); NULL, 0: none in the profile */
    const cm_point *behind, *behind_shared;
    size_t nbehind, nbehind_shared;
    /* machine-wide rates per core cycle */
    double l1_fills, l2_loads, l2_stores, l2_evictions, fences;
    double l2_unleased; /* rate.l2_loads_unleased (0: absent) */
    double banks;      /* L2 banks sharing those rates evenly */
    double l2_service; /* core cycles a bank takes per request (one L2 cycle) */
    /* the profiled machine's speed (optional, 0: unknown; lifetime.c,
     * "Carrying a profile across L") */
    double profile_lifetime; /* L the profile was measured at */
    double reply_busy;       /* busy fraction of a bank's reply port */
    double mshr_inflight;    /* L2 MSHRs per bank not parked, at L0 */
    double l2_mshrs;         /* L2 MSHRs per bank (l2.mshrs) */
    double stall_block;      /* bank-cycles a stall cycle blocks, <= 1
                                (0: unknown, taken as 1; lifetime.c,
                                "Out-of-order service") */
    double stall_share;      /* stores held by a lease per store, and */
    double post_wait;        /* their mean wait after it passed, cycles,
                                at L0 (0: none or unknown; lifetime.c,
                                "The wait after the lease") */
    /* predictor (tc.*) */
    double t_hit, t_evict, t_write;
    int write_update;  /* the t_write decrement applies */
    double pred_min, pred_max, pred_init;
    double chain_states; /* most lattice points of the predictor chain */
} cm_lifetime_input;

/* Reads the distributions and rates above from the profile (every one is
 * required but the optional ones, which are NULL or 0 when absent;
 * rate.l1_loads and rate.store_ack_latency are not used) and the
 * constants from the parameters: tc.t_hit, tc.t_evict,
 * tc.t_write, tc.write_update (fences: applies iff rate.fences > 0),
 * tc.predictor_min/max/init, model.lifetime_states, l2.mshrs, and
 * l2_service = gpu.core_clock / l2.clock. */
cm_status cm_lifetime_input_from_profile(const cm_profile *prof,
                                         const cm_params *p,
                                         cm_lifetime_input *in, cm_err *err);

/* Rates of the predictor's events at lifetime L, machine-wide per cycle. */
typedef struct cm_lifetime_rates {
    double l1_expired;          /* L1 loads finding their copy expired */
    double l2_expired;          /* L2 loads to a valid line, GT expired */
    double unexpired_evictions; /* L2 evictions with GT unexpired */
    double unexpired_stores;    /* stores to an L2 line with GT unexpired */
} cm_lifetime_rates;

typedef struct cm_lifetime_result {
    double lifetime;
    /* per L1 fill, TC-Weak (carried at speed_weak); the four sum to 1 */
    double p_hit, p_expired, p_evicted, p_unused;
    /* the same, TC-Strong (carried unscaled) */
    double p_hit_strong, p_expired_strong, p_evicted_strong, p_unused_strong;
    double fill_share;       /* replies that fill at L over those at L0:
                                P(d <= L) / P(d <= L0) (lifetime.c, 2) */
    /* TC-Strong */
    double store_stall;      /* E[max(0, L - S)] per store, cycles (TCSUO),
                                and the wait after the lease where the
                                bank serves around stalls (lifetime.c) */
    double store_stall_shared; /* the same with the private-write
                                  optimisation, E[max(0, L - S')] (TCS,
                                  TCSOO); store_stall without S' */
    double store_stall_rate; /* stall cycles per cycle, machine-wide */
    double speed_strong;     /* machine speed at L over the profile's,
                                TC-Strong (stores stall at the banks) */
    double speed_weak;       /* the same, TC-Weak (no store stalls) */
    double bank_util;        /* utilisation of one L2 bank */
    double hol_delay;        /* mean queueing delay per request at a bank,
                                cycles; INFINITY when bank_util >= 1 */
    double parked_rate;      /* unexpired L2 evictions per cycle, machine */
    double parked_mshrs;     /* mean L2 MSHRs holding parked timestamps,
                                per bank */
    /* TC-Weak */
    double fence_wait;       /* mean wait of a fence for its stores' acks
                                and GWCT, cycles (GWCT part only, from the
                                latest store, without Z and A) */
    cm_lifetime_rates rates;
    double drift;            /* predictor drift, cycles per cycle per bank */
} cm_lifetime_result;

/* The four outcomes of an L1 fill for first reuse R (inf: the copy left
 * first) and capacity residency E, both profile times, at lifetime L on a
 * machine k times as fast as the profile's; delay (may be NULL) is the
 * lease's start at the L2 to the fill, which does not scale. */
void cm_lifetime_outcomes(const cm_dist *reuse, const cm_dist *residency,
                          const cm_dist *delay, double L, double k,
                          double *p_hit, double *p_expired,
                          double *p_evicted, double *p_unused);

void cm_lifetime_event_rates(const cm_lifetime_input *in, double L,
                             cm_lifetime_rates *r);
/* t_hit (l1 + l2 expired) - t_evict evictions - t_write stores, per bank. */
double cm_lifetime_drift(const cm_lifetime_input *in, double L);

/* Every figure at lifetime L >= 0. */
cm_status cm_lifetime_eval(const cm_lifetime_input *in, double L,
                           cm_lifetime_result *r, cm_err *err);

typedef enum cm_lifetime_bound {
    CM_LIFETIME_ROOT = 0, /* the drift changes sign inside the bounds */
    CM_LIFETIME_AT_MIN,   /* drift <= 0 everywhere: the predictor sinks */
    CM_LIFETIME_AT_MAX,   /* drift >= 0 everywhere: the predictor rises */
    CM_LIFETIME_NO_DRIFT  /* no events at all: it stays at its start */
} cm_lifetime_bound;

const char *cm_lifetime_bound_name(cm_lifetime_bound b);

/* Root of the drift in [pred_min, pred_max] by GSL's Brent solver. */
cm_status cm_lifetime_equilibrium(const cm_lifetime_input *in, double *L,
                                  cm_lifetime_bound *bound, cm_err *err);

/* The predictor's mean-field approach from its start: dL/dt = drift(L)
 * from L(0) = pred_init for the given cycles; *mean is the time average
 * of L(t) over them (what a simulated run reports as tc.lifetime_mean),
 * *end (may be NULL) L at the last cycle. */
cm_status cm_lifetime_run_mean(const cm_lifetime_input *in, double cycles,
                               double *mean, double *end, cm_err *err);

/* Stationary distribution of the predictor on its lattice. */
typedef struct cm_lifetime_chain {
    size_t n;          /* lattice points */
    double *lifetime;  /* n values, pred_min + k step */
    double *prob;      /* n probabilities summing to 1 */
    double step;       /* lattice spacing, cycles */
    double mean, sd;
} cm_lifetime_chain;

cm_status cm_lifetime_stationary(const cm_lifetime_input *in,
                                 cm_lifetime_chain *out, cm_err *err);
void cm_lifetime_chain_free(cm_lifetime_chain *c);

/* The sweep table: lifetime,p_hit,p_expired,p_evicted,p_unused,
 * store_stall,hol_delay,fence_wait,parked_mshrs,drift,store_stall_rate,
 * parked_rate,store_stall_shared,speed_strong,speed_weak; with equilibrium
 * != 0 three more
 * columns, the same on every row: equilibrium, equilibrium_bound,
 * stationary_mean. */
cm_status cm_lifetime_table(const cm_lifetime_input *in,
                            const double *lifetimes, size_t n,
                            int equilibrium, cm_table **out, cm_err *err);

#endif
