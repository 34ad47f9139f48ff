/* lifetime.c - lifetime-prediction outcomes of Temporal Coherence against
 * the lifetime L, from a workload timing profile.
 *
 * Paper: Singh, Temporal Coherence (seed 000), ch. 3-4: TC-Strong, TC-Weak
 * and the lifetime predictor of section 4.4, constants of Table 5.1;
 * spec/models.md section 5.  The history of each choice below (what was
 * tried, what it scored) is in git log.
 *
 * Notation.  The profile's distributions (models/profile.h): R =
 * l1.reuse_time, E = l1.residency, d = l1.lease_delay, V = l1.last_use,
 * S = l2.read_to_write (S' without private writes), G = l2.load_gap, A =
 * l2.evict_age, Z = warp.fence_lease_slack, A_f = warp.fence_ack_wait, T =
 * l1.load_gap; each may hold mass at infinity ("never").  F is a cdf,
 * m(y) = E[(y - X)+] = int_0^y F.  Every integral is an exact piecewise
 * formula of models/dist.c (histogram bins with uniform density).  L0 = rate.lifetime, the
 * profile's own lifetime; a profile carries to every L <= L0.
 *
 * 1. The machine's speed k at L (relative to the profile's).  Every time
 * of the profile that is the machine's progress (R, E, S, Z, A_f) is
 * divided by k at L; latencies that do not follow the throughput (d, the
 * round trip c below) are not.  Two limits:
 *  - resources: each bank's reply port (busy rho0, rate.l2_reply_busy:
 *    k rho0 <= 1), its in-order server
 *        B(k) = k lambda s0 + b (stores / banks) E[stall at L, speed k] <= 1
 *    (lambda = (loads + stores) / banks, s0 one L2 cycle, b =
 *    rate.l2_hol_per_stall <= 1: the bank-cycles a stall blocks, below 1
 *    where the bank serves around it, TCSOO), and its MSHRs
 *        M(k) = (evictions / banks) E[(kL - A)+] + k I0 <= l2.mshrs
 *    (parked timestamps by Little's law plus the misses in flight I0 =
 *    rate.l2_mshr_occupancy less the parked ones at L0).  k_bw(L) is the
 *    largest k meeting all three (Brent on B and M, both increasing in k).
 *  - the leases' clock (TC-Strong only): a machine whose loads and stores
 *    wait out leases runs on their clock, L0 / L times as fast at L.
 * TC-Strong: k(L) = min(k_bw(L) / min(k_bw(L0), 1), L0 / L): a profile
 * whose machine ran at its bound (k_bw(L0) <= 1) carries by the bound's
 * ratio, one that ran below it (held back by its leases) by the leases'
 * clock until a resource binds; k(L0) = 1.  While the leases' clock holds,
 * the fill outcomes below do not move (the simulated runs at 6400 and
 * 16000 have the same outcome counts).  TC-Weak (stores never wait on a
 * lease): k = k_bw(L) / k_bw(L0).  Assumed: a saturated resource is busy
 * all the time (the simulated ports reach 0.92-0.99, so k is 3-10% high
 * where they bind), and the knee between the two limits is sharp (the
 * simulated speed at the knee runs 10-25% below the min).
 *
 * 2. L1 fill outcomes.  The L2 grants a lease of L when it serves a load;
 * the copy fills d later, so it lives L - d.  With R the first load of
 * the copy while it is held (inf if it leaves first, so a finite R alone
 * decides), d independent of R and E, as the simulator counts them
 * (sim/l1.c l1_outcome):
 *     hit      P(R/k + d <= L)
 *     expired  H - P(R/k + d <= L)
 *     evicted  (1 - H) P(E/(k phi) + d <= L)
 *     unused   (1 - H) P(E/(k phi) + d > L)
 * with H = P(R < inf) at L0 and phi, H below.  Each bin of d has a
 * uniform density and int F_R(k(L - x)) dx over it is a difference of
 * m_R: the convolution is exact.  TC-Weak carries them at its speed,
 * TC-Strong at its own.
 * The fills that happen.  A reply that arrives after its lease ended is
 * used but not filled (seed 000; sim/l1.c, DATA_EXP), and the simulator
 * counts outcomes per fill.  A share phi = P(d <= L) / P(d <= L0) of the
 * profile's replies fills at L (rate.lifetime = L0); the L1's sets then
 * take phi times the fills per load, so a copy waits 1 / phi times as
 * long for the fills that evict it, E -> E / phi, and is still held at
 * its core's next load of the line, T after its fill (l1.load_gap, T and
 * E independent), more often: H = P(R < inf) P(T < E / phi) / P(T < E),
 * at most 1; P(T < c E) is exact per bin of E (m_T again).  At L0 = 16000
 * bh's fills are reused while held 0.091 of the time, at L = 400 0.278;
 * with the fill share the simulator measured (0.066 of L0's per load) this
 * gives 0.262 (cl 0.092 for 0.110, stn 0.533 for 0.486).  Assumed: d at L
 * is the profile's; where the reply ports saturate (L <= 1000 on the
 * memory-bound workloads) replies wait longer than at L0 and fewer fill
 * (bh at 400: 0.066 measured, phi = 0.65), so H, expired, still runs low
 * there; the never-reused copies' capacity residency is every copy's E
 * (evicted runs low, unused high).  cm_lifetime_outcomes is the case
 * phi = 1.
 *
 * 3. TC-Strong store stall.  A load at time 0 sets GT = L; a store
 * reaching the L2 S cycles later stalls max(0, L - S), so E[(L - S)+] =
 * m_S(L) per store (S' under the private-write optimisation, TCS and
 * TCSOO: a store by the line's only lease holder never stalls).  Carried
 * to speed k by parts of S, each exact at L0 (the stall is linear in the
 * histogram, so the parts add):
 *  - other warps' stores: S/k, E[(kL - S)+] / k;
 *  - a store after its own warp's load of the line (l2.read_to_write_own)
 *    cannot reach the bank before that load's reply and its own flight,
 *    c = E[d] + rate.request_flight, which do not scale:
 *        S_k = min(S, c) + (S - c)+ / k,
 *        E[(L - S_k)+] = m(c) + (L - c) F(c)
 *                        + (m(y) - m(c) - (y - c) F(c)) / k,
 *    y = kL - (k - 1) c (m(L) when L <= c); at an in-order bank the other
 *    warps' stores carry the same way (they come a round trip after their
 *    own loads too);
 *  - of the own ones, a store that is its warp's next memory instruction
 *    after the load, no fence or barrier between (l2.read_to_write_own_
 *    next): nothing it waited for stretches, E[(L - S)+] unscaled;
 *  - at an in-order bank, other warps' stores queued behind the load that
 *    set the lease (joint.l2.behind_parts): S = x + y, y the cycles the
 *    bank sat blocked by stalled stores (they go with the lease), x its
 *    service of the requests between (it does not): (L - x - y L/L0)+ per
 *    store;
 *  - where the bank serves around a stall (b < 1, TCSOO) a held store
 *    also waits after its lease until the scan reaches it: the profile's
 *    held share (rate.l2_stall_share) times its mean wait W0
 *    (rate.l2_post_wait), carried by P(S_k < L) / P(S < L0), W0 held.
 * The in-order bank's head-of-line delay is the M/G/1 wait of its
 * requests with service s0 + (store share) x stall (solvers/queue.h), at
 * the profile's own rates.
 *
 * 4. Parked timestamps (TC-Strong eviction optimisation): an L2 line
 * evicted A cycles after its latest load is unexpired iff A < L, holding
 * an MSHR for L - A: rate.l2_evictions F_A(L) parkings per cycle, and
 * rate.l2_evictions m_A(L) / banks MSHRs per bank (Little).
 *
 * 5. TC-Weak fence wait.  A fence waits for its warp's store acks (A_f
 * after it issues) and for TIME >= GWCT, the latest lease end among the
 * lines those stores wrote, L - Z after the fence: W = max(A_f, L - Z)+.
 * With A_f and Z independent,
 *     E[W] = int_0^L (1 - F_Af(t) P(Z >= L - t)) dt + E[(A_f - L)+],
 * piecewise quadratic between the merged bin edges, so two-point
 * Gauss-Legendre (GSL) per piece is exact; carried as E[W at kL] / k at
 * TC-Weak's speed.  Without Z and A_f (older profiles): the latest store
 * only, E[(L - S - D)+] over independent S and D = warp.store_to_fence,
 * int_0^L m_S(L - x) dF_D(x), exact by Psi_S(y) = E[(y - S)+^2] / 2 (a
 * lower bound).
 *
 * 6. The predictor (TCW, section 4.4): models/lifetime_pred.c.
 *
 * Measured domain (tc2013, held out from L0 = 16000 to L = 400-6400,
 * 300k warp instructions per run, 3 replicates; MARE overall (per
 * workload)):
 *   cohmod validate lifetime --protocol tcs (bh cl stn): p_expired 12.6%
 *     (bh 18.4, cl 13.2, stn 6.4), store stall 8.9% (9.2, 9.5, 8.0),
 *     p_hit mean |error| 0.005;
 *   cohmod validate lifetime --protocol tcs --workloads dlb,vpr,cc:
 *     p_expired 12.5% (dlb 8.2, vpr 22.0, cc 7.4), store stall 30.7%
 *     (dlb 3.7, vpr 83.3, cc 5.0), p_hit mean |error| 0.010;
 *   cohmod validate lifetime (tcw-fixed, bh cl stn): fence wait 17.9%,
 *     p_expired 25.7%, p_hit mean |error| 0.014;
 *   cohmod validate lifetime --protocol tcw (the predictor, bh kmn stn):
 *     equilibrium 2.3%, run-average lifetime 4.4%;
 *   the same --design lhs:250 (all workloads, both presets; seeds 1, 2):
 *     run-average lifetime 5.5%, 5.6% (dlb, cc 17-20% the worst),
 *     equilibrium against the runs' average 13.8%, 14.0% (comd, ndl ~50%:
 *     their runs are still climbing from tc.predictor_init);
 *   tcs --design lhs:250: p_expired 14.6%, 14.0%, store stall 18.3%,
 *     17.9% (vpr, mvt, bicg, atax 42-82%); tcw-fixed: p_expired 33.5%,
 *     30.0%, fence wait 16.7%, 13.7% (docs/validation.md).
 * Before the fill share (section 2): tcs p_expired 17.7% and 19.1%,
 * tcw-fixed 32.8%; nothing else moved.  The stall or fence wait is within
 * 15% on four of these six workloads, not on cl (tcw-fixed) and vpr.  L
 * <= L0 only.  Where the reply ports saturate (L = 400) p_expired still
 * runs low on bh (64%) and cl (43%): replies there wait past their leases
 * and fewer fill than phi says; vpr at 1000-2500 25-43% low; the rest of
 * tcs within 17%.  The stall at L <= 1000 runs 20-90% high where the
 * in-order bank bunched the profile's S near 0 (vpr: 0.91 for 0.31 cycles per store at
 * 400, the polybench kernels). */
#include "models/lifetime.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/lifetime_impl.h"
#include "solvers/queue.h"

static cm_status need_dist(const cm_profile *prof, const char *name,
                           const cm_dist **d, cm_err *err)
{
    return cm_profile_dist(prof, name, d, err);
}

/* A distribution a workload may lack (no stores, no fences): NULL then,
 * and the quantities built on it are 0. */
static const cm_dist *optional_dist(const cm_profile *prof, const char *name)
{
    const cm_dist *d = NULL;
    cm_err e = {0};
    return cm_profile_dist(prof, name, &d, &e) ? NULL : d;
}

/* Evictions per cycle whose line was younger than L (parked), and the
 * parked time E[(L - A)+] per eviction: 0 without evictions. */
double cm_lifetime_evict_young(const cm_lifetime_input *in, double L)
{
    return in->evict_age ? in->l2_evictions * cm_dist_cdf(in->evict_age, L)
                         : 0;
}

static double evict_parked(const cm_lifetime_input *in, double L)
{
    return in->evict_age ? in->l2_evictions *
                               cm_dist_mean_excess_below(in->evict_age, L)
                         : 0;
}

cm_status cm_lifetime_input_from_profile(const cm_profile *prof,
                                         const cm_params *p,
                                         cm_lifetime_input *in, cm_err *err)
{
    memset(in, 0, sizeof *in);
    if (need_dist(prof, "l1.reuse_time", &in->reuse, err) ||
        need_dist(prof, "l1.residency", &in->residency, err) ||
        need_dist(prof, "l2.load_gap", &in->load_gap, err) ||
        cm_profile_rate(prof, "rate.l1_fills", &in->l1_fills, err) ||
        cm_profile_rate(prof, "rate.l2_loads", &in->l2_loads, err) ||
        cm_profile_rate(prof, "rate.l2_stores", &in->l2_stores, err) ||
        cm_profile_rate(prof, "rate.l2_evictions", &in->l2_evictions, err) ||
        cm_profile_rate(prof, "rate.fences", &in->fences, err) ||
        cm_profile_rate(prof, "rate.l2_banks", &in->banks, err))
        return CM_EINPUT;
    /* a run with no L2 evictions has no eviction ages: none is parked */
    in->evict_age = optional_dist(prof, "l2.evict_age");
    if (!in->evict_age && in->l2_evictions > 0)
        return need_dist(prof, "l2.evict_age", &in->evict_age, err);
    in->read_to_write = optional_dist(prof, "l2.read_to_write");
    in->store_to_fence = optional_dist(prof, "warp.store_to_fence");
    in->read_to_write_shared = optional_dist(prof, "l2.read_to_write_shared");
    in->fence_slack = optional_dist(prof, "warp.fence_lease_slack");
    in->fence_ack = optional_dist(prof, "warp.fence_ack_wait");
    in->last_use = optional_dist(prof, "l1.last_use");
    in->lease_delay = optional_dist(prof, "l1.lease_delay");
    in->l1_load_gap = optional_dist(prof, "l1.load_gap");
    cm_err no_lifetime = {0};
    if (cm_profile_rate(prof, "rate.lifetime", &in->fill_lifetime,
                        &no_lifetime) ||
        !(in->fill_lifetime > 0))
        in->fill_lifetime = 0;
    /* older profiles lack it: their unleased loads are not counted */
    if (cm_profile_rate(prof, "rate.l2_loads_unleased", &in->l2_unleased,
                        &no_lifetime) ||
        !(in->l2_unleased >= 0))
        in->l2_unleased = 0;
    in->own_read_to_write = optional_dist(prof, "l2.read_to_write_own");
    in->own_read_to_write_shared =
        optional_dist(prof, "l2.read_to_write_own_shared");
    in->own_next_read_to_write = optional_dist(prof, "l2.read_to_write_own_next");
    in->own_next_read_to_write_shared =
        optional_dist(prof, "l2.read_to_write_own_next_shared");
    double flight = 0;
    cm_err no_flight = {0};
    if (in->lease_delay && cm_dist_total(in->lease_delay) > 0 &&
        !cm_profile_rate(prof, "rate.request_flight", &flight, &no_flight))
        in->own_trip_floor = cm_dist_mean_finite(in->lease_delay) + flight;
    cm_profile_points(prof, "joint.l2.behind_parts", &in->behind,
                      &in->nbehind);
    cm_profile_points(prof, "joint.warp.fence_ack_slack", &in->fence_pairs,
                      &in->nfence_pairs);
    cm_profile_points(prof, "joint.l2.behind_parts_shared",
                      &in->behind_shared, &in->nbehind_shared);
    in->other_read_to_write = optional_dist(prof, "l2.read_to_write_other");
    in->other_read_to_write_shared =
        optional_dist(prof, "l2.read_to_write_other_shared");
    if (!(in->banks >= 1))
        return cm_err_set(err, CM_EINPUT,
                          "rate.l2_banks must be >= 1, got %g", in->banks);
    in->l2_service = p->gpu_core_clock / p->l2_clock;
    in->l2_mshrs = p->l2_mshrs;
    /* 1 at an in-order bank (its excess over 1 is MSHR-full blocking,
     * which M(k) carries), less at an out-of-order one; 1 if unknown */
    double block = 0;
    cm_err no_block = {0};
    in->stall_block = 1;
    if (!cm_profile_rate(prof, "rate.l2_hol_per_stall", &block, &no_block) &&
        block > 0 && block < 1)
        in->stall_block = block;
    cm_err no_post = {0};
    if (cm_profile_rate(prof, "rate.l2_stall_share", &in->stall_share,
                        &no_post) ||
        cm_profile_rate(prof, "rate.l2_post_wait", &in->post_wait, &no_post))
        in->stall_share = in->post_wait = 0;
    double occupancy = 0;
    cm_err ignored = {0};
    /* all three or none: the speed model needs each */
    if (!cm_profile_rate(prof, "rate.lifetime", &in->profile_lifetime,
                         &ignored) &&
        !cm_profile_rate(prof, "rate.l2_reply_busy", &in->reply_busy,
                         &ignored) &&
        !cm_profile_rate(prof, "rate.l2_mshr_occupancy", &occupancy,
                         &ignored) &&
        in->profile_lifetime > 0 && in->reply_busy > 0) {
        double parked = evict_parked(in, in->profile_lifetime) / in->banks;
        in->mshr_inflight = fmax(0, occupancy - parked);
    } else {
        in->profile_lifetime = in->reply_busy = 0;
    }
    in->t_hit = p->tc_t_hit;
    in->t_evict = p->tc_t_evict;
    in->t_write = p->tc_t_write;
    /* tc.write_update: 0 fences, 1 always, 2 never */
    in->write_update = p->tc_write_update == 1 ||
                       (p->tc_write_update == 0 && in->fences > 0);
    in->pred_min = p->tc_predictor_min;
    in->pred_max = p->tc_predictor_max;
    in->pred_init = p->tc_predictor_init;
    in->chain_states = p->model_lifetime_states;
    if (!(in->pred_min <= in->pred_max))
        return cm_err_set(err, CM_EINPUT,
                          "tc.predictor_min (%g) exceeds tc.predictor_max "
                          "(%g)", in->pred_min, in->pred_max);
    return CM_OK;
}


/* P(X / k + D <= L): a time X of the profile, on a machine k times as
 * fast, after a delay D that does not scale (NULL: D = 0).  Each bin of D
 * has a uniform density, and int F_X(k (L - x)) dx over it is a
 * difference of m_X = int F_X, so the convolution is exact. */
double cm_lifetime_delayed_cdf(const cm_dist *x, const cm_dist *delay,
                               double L, double k)
{
    if (!delay || !(cm_dist_total(delay) > 0)) return cm_dist_cdf(x, k * L);
    /* adjacent bins of D share an edge: m_X there is taken once; the
     * edges fall, and m_X's search walks down from the last one */
    double sum = 0, edge = NAN, m_edge = NAN;
    size_t at = x->n;
    for (size_t j = 0; j < delay->n && delay->lo[j] <= L; j++) {
        double lo = delay->lo[j], hi = fmin(delay->hi[j], L);
        if (delay->w[j] == 0) continue;
        if (!(delay->hi[j] > lo)) { /* a point mass */
            sum += delay->w[j] * cm_dist_cdf(x, k * (L - lo));
            continue;
        }
        double a = k * (L - lo), b = k * (L - hi);
        double m_a = a == edge ? m_edge
                               : cm_dist_mean_excess_below_near(x, a, &at);
        edge = b;
        m_edge = cm_dist_mean_excess_below_near(x, b, &at);
        sum += delay->w[j] / (delay->hi[j] - lo) / k * (m_a - m_edge);
    }
    return sum / cm_dist_total(delay);
}

void cm_lifetime_outcomes(const cm_dist *reuse, const cm_dist *residency,
                          const cm_dist *delay, double L, double k,
                          double *p_hit, double *p_expired,
                          double *p_evicted, double *p_unused)
{
    double never = cm_dist_mass_inf(reuse);
    *p_hit = cm_lifetime_delayed_cdf(reuse, delay, L, k);
    *p_expired = fmax(0, 1 - never - *p_hit);
    *p_evicted = never * cm_lifetime_delayed_cdf(residency, delay, L, k);
    *p_unused = never - *p_evicted;
}

/* E[max(0, L - S - D)] over independent S and D (D = inf gives 0). */
static double fence_wait(const cm_dist *s, const cm_dist *d, double L)
{
    double sum = 0;
    if (!s || !d) return 0; /* no stores or no fences */
    for (size_t j = 0; j < d->n && d->lo[j] < L; j++) {
        if (d->w[j] == 0) continue;
        double hi = fmin(d->hi[j], L);
        double psi_lo = 0.5 * cm_dist_mean_excess2_below(s, L - d->lo[j]);
        double psi_hi = 0.5 * cm_dist_mean_excess2_below(s, L - hi);
        sum += d->w[j] / (d->hi[j] - d->lo[j]) * (psi_lo - psi_hi);
    }
    return sum / cm_dist_total(d);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct wait_ctx {
    const cm_dist *ack, *slack;
    double L, k, c;
} wait_ctx;

/* Z_k = min(Z, c) + (Z - c)+ / k >= y iff Z >= z(y): the slack whose
 * carried value is y. */
static double slack_of(double y, double k, double c)
{
    return y <= c ? y : c + k * (y - c);
}

/* The carried value of a slack z (the inverse of slack_of). */
static double slack_at(double z, double k, double c)
{
    return z <= c ? z : c + (z - c) / k;
}

/* P(W > t) for t in [0, L]: 1 - F_A(t) P(Z_k >= L - t). */
static double wait_survival(double t, void *arg)
{
    const wait_ctx *w = arg;
    return 1 - cm_dist_cdf(w->ack, t) *
                   cm_dist_survival(w->slack, slack_of(w->L - t, w->k, w->c));
}

/* E[max(A, L - Z_k)+] (header, section 5): the ack wait A a latency, the
 * slack Z the program's time on a machine k times as fast beyond the
 * round trip c it holds. */
static cm_status fence_wait_acked(const cm_dist *ack, const cm_dist *slack,
                                  double L, double k, double c, double *out,
                                  cm_err *err)
{
    size_t n = 3 + 2 * (ack->n + slack->n), np = 0;
    double *x = malloc(n * sizeof *x);
    gsl_integration_glfixed_table *gl = gsl_integration_glfixed_table_alloc(2);
    if (!x || !gl) {
        free(x);
        if (gl) gsl_integration_glfixed_table_free(gl);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    x[np++] = 0;
    x[np++] = L;
    for (size_t i = 0; i < ack->n; i++) {
        if (ack->lo[i] < L) x[np++] = ack->lo[i];
        if (ack->hi[i] < L) x[np++] = ack->hi[i];
    }
    for (size_t i = 0; i < slack->n; i++) {
        double lo = slack_at(slack->lo[i], k, c), hi = slack_at(slack->hi[i], k, c);
        if (lo < L) x[np++] = L - lo;
        if (hi < L) x[np++] = L - hi;
    }
    if (c > 0 && c < L) x[np++] = L - c;
    qsort(x, np, sizeof *x, cmp_double);
    wait_ctx w = {ack, slack, L, k, c};
    gsl_function f = {wait_survival, &w};
    double sum = 0;
    for (size_t i = 0; i + 1 < np; i++)
        if (x[i + 1] > x[i])
            sum += gsl_integration_glfixed(&f, x[i], x[i + 1], gl);
    gsl_integration_glfixed_table_free(gl);
    free(x);
    double mean_a = cm_dist_mean_finite(ack);
    if (cm_dist_mass_inf(ack) > 0 || !isfinite(mean_a))
        return cm_err_set(err, CM_EINPUT, "warp.fence_ack_wait must be "
                          "finite (every fence's acks arrive)");
    *out = sum + fmax(0, mean_a - L + cm_dist_mean_excess_below(ack, L));
    return CM_OK;
}

/* E[max(A, L - Z_k)] over the profile's (A, Z) pairs: E[A] over every
 * fence plus (L - Z_k - A)+ over those with a lease, per fence. */
static double fence_wait_pairs(const cm_lifetime_input *in, double L,
                               double k)
{
    double n = cm_dist_total(in->fence_ack), sum = 0;
    for (size_t i = 0; i < in->nfence_pairs; i++) {
        const cm_point *p = &in->fence_pairs[i];
        sum += p->w *
               fmax(0, L - slack_at(p->y, k, in->own_trip_floor) - p->x);
    }
    return cm_dist_mean_finite(in->fence_ack) + sum / n;
}

/* The root of f in [lo, hi], where f changes sign, by GSL's Brent. */
cm_status cm_lifetime_brent_root(gsl_function *f, double lo, double hi,
                                 double *root, const char *what,
                                 cm_err *err)
{
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!s) return cm_err_set(err, CM_EINTERNAL, "%s: out of memory", what);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int rc = gsl_root_fsolver_set(s, f, lo, hi), status = GSL_CONTINUE;
    for (int it = 0; !rc && status == GSL_CONTINUE && it < 200; it++) {
        rc = gsl_root_fsolver_iterate(s);
        lo = gsl_root_fsolver_x_lower(s);
        hi = gsl_root_fsolver_x_upper(s);
        status = gsl_root_test_interval(lo, hi, 1e-6, 1e-12);
    }
    *root = gsl_root_fsolver_root(s);
    gsl_set_error_handler(old);
    gsl_root_fsolver_free(s);
    if (rc || status != GSL_SUCCESS)
        return cm_err_set(err, CM_EINTERNAL, "%s: Brent did not converge (%s)",
                          what, gsl_strerror(rc ? rc : status));
    return CM_OK;
}

/* ---- the store stall at speed k ----------------------------------------- */

/* Whether every stall cycle holds the bank (rate.l2_hol_per_stall >= 1,
 * or unknown): an in-order bank, not one that serves around a stall
 * (TCSOO, header: "Out-of-order service"). */
static int bank_in_order(const cm_lifetime_input *in)
{
    return !(in->stall_block > 0 && in->stall_block < 1);
}

/* Where a family's S comes from: the whole S (S or S'), and its split
 * when the profile has one (NULL: none). */
typedef struct stall_src {
    const cm_dist *whole, *other, *own;
    double floor;       /* the own class's round-trip latency */
    const cm_dist *next; /* of the own, the warp's next instruction (NULL) */
    const cm_point *behind; /* of the other, queued behind the load */
    size_t nbehind;
    double L0; /* the profile's own lifetime (0: unknown) */
    int in_order; /* every stall cycle holds the bank (bank_in_order) */
} stall_src;

/* A store's S carried as an own store's: min(S, c) + (S - c)+ / k. */
static double trip_carry(double S, double c, double k)
{
    return fmin(S, c) + fmax(S - c, 0) / k;
}

/* Over the behind stores, per store of the whole S: the sum of their
 * stalls (L - S_L)+ with S_L = x + y L / L0 (the blocked cycles y stretch
 * with the lease, the service between does not), less the same stores'
 * part of the other class as trip_carry carries it (it counts them too),
 * so the class total stays linear. */
static double behind_excess(const stall_src *s, double L, double k)
{
    double n = cm_dist_total(s->whole);
    if (!s->in_order || !s->nbehind || !(s->L0 > 0) || !(n > 0)) return 0;
    double g = L / s->L0, sum = 0;
    for (size_t i = 0; i < s->nbehind; i++) {
        const cm_point *p = &s->behind[i];
        double now = L - (p->x + p->y * g);
        double was = L - trip_carry(p->x + p->y, s->floor, k);
        sum += p->w * (fmax(now, 0) - fmax(was, 0));
    }
    return sum / n;
}

/* E[(L - min(S, c) - (S - c)+ / k)+] per store of the own class (and of
 * the other at an in-order bank): the round trip's latency c does not
 * scale, the rest of S does.  With m the
 * mean excess of S and F its cdf, for L > c
 *     E[(L - S) 1{S < c}] = m(c) + (L - c) F(c),
 *     E[(y - S)+ 1{S >= c}] / k = (m(y) - m(c) - (y - c) F(c)) / k,
 * y = kL - (k - 1) c >= c; for L <= c only S < L stalls: m(L). */
static double own_excess(const cm_dist *own, double c, double L, double k)
{
    if (L <= c) return cm_dist_mean_excess_below(own, L);
    double mc = cm_dist_mean_excess_below(own, c), fc = cm_dist_cdf(own, c);
    double y = k * L - (k - 1) * c;
    return mc + (L - c) * fc +
           fmax(0, cm_dist_mean_excess_below(own, y) - mc - (y - c) * fc) / k;
}

/* The shares of all stores (the whole S counts them all) in the other
 * and own classes of a split S, and of the own ones that were their
 * warp's next memory instruction; 0 when there is no store. */
static int stall_shares(const stall_src *s, double *other, double *own,
                        double *next)
{
    double n = cm_dist_total(s->whole);
    if (!(n > 0)) return 0;
    *other = s->other ? cm_dist_total(s->other) / n : 0;
    *own = s->own ? cm_dist_total(s->own) / n : 0;
    *next = s->own && s->next ? cm_dist_total(s->next) / n : 0;
    return 1;
}

/* The mean stall per store at L on a machine k times as fast (header:
 * "Carrying S", each part): E[(L - S/k)+] = m_S(kL) / k without the
 * split. */
static double stall_per_store(const stall_src *s, double L, double k)
{
    if (!s->whole) return 0;
    if (!s->other && !s->own)
        return cm_dist_mean_excess_below(s->whole, k * L) / k;
    double w_other, w_own, w_next;
    if (!stall_shares(s, &w_other, &w_own, &w_next)) return 0;
    double other = w_other <= 0 ? 0
                   : s->in_order
                       ? own_excess(s->other, s->floor, L, k)
                       : cm_dist_mean_excess_below(s->other, k * L) / k;
    double own = w_own > 0 ? own_excess(s->own, s->floor, L, k) : 0;
    /* the next-instruction stores leave the own class (the excess is
     * linear in the histogram, so their part subtracts exactly) and stall
     * E[(L - S)+] unscaled */
    double next = w_next > 0 ? cm_dist_mean_excess_below(s->next, L) -
                                   own_excess(s->next, s->floor, L, k)
                             : 0;
    return w_other * other + w_own * own + w_next * next +
           behind_excess(s, L, k);
}

/* P(S_k < L): the share of stores a lease holds at L on a machine k times
 * as fast, S carried as in stall_per_store at a bank that serves around a
 * stall, its only use (post_lease): the other stores' S whole, an own
 * store's S_k < L iff S < kL - (k - 1) c when L > c, S < L otherwise. */
static double stall_prob(const stall_src *s, double L, double k)
{
    if (!s->whole) return 0;
    if (!s->other && !s->own) return cm_dist_cdf(s->whole, k * L);
    double w_other, w_own, w_next;
    if (!stall_shares(s, &w_other, &w_own, &w_next)) return 0;
    double y = L <= s->floor ? L : k * L - (k - 1) * s->floor;
    double other = w_other > 0 ? cm_dist_cdf(s->other, k * L) : 0;
    double own = w_own > 0 ? cm_dist_cdf(s->own, y) : 0;
    double next = w_next > 0 ? cm_dist_cdf(s->next, L) -
                                   cm_dist_cdf(s->next, y)
                             : 0;
    return w_other * other + w_own * own + w_next * next;
}

/* ---- the machine's speed at another lifetime ---------------------------- */

typedef struct speed_ctx {
    const cm_lifetime_input *in;
    const stall_src *stall; /* S or S' for TC-Strong, NULL for TC-Weak */
    double L;
    int mshr; /* which load: 1 the MSHRs, 0 the bank */
} speed_ctx;

/* A bank's load at speed k, less its capacity: the in-order server's busy
 * fraction (requests and the stores' stalls) or the MSHRs in use (parked
 * timestamps and misses in flight).  Non-decreasing in k. */
static double speed_excess(double k, void *arg)
{
    const speed_ctx *c = arg;
    const cm_lifetime_input *in = c->in;
    if (c->mshr)
        return evict_parked(in, k * c->L) / in->banks +
               k * in->mshr_inflight - in->l2_mshrs;
    double block = in->stall_block > 0 ? in->stall_block : 1;
    double stalls = c->stall ? block * in->l2_stores / in->banks * k *
                                   stall_per_store(c->stall, c->L, k)
                             : 0;
    return k * (in->l2_loads + in->l2_stores) / in->banks * in->l2_service +
           stalls - 1;
}

/* The fastest speed (relative to the profile's) no resource exceeds. */
static cm_status speed_bound(const cm_lifetime_input *in,
                             const stall_src *stall, double L, double *k,
                             cm_err *err)
{
    *k = 1 / in->reply_busy; /* the reply ports, at most always busy */
    for (int mshr = 0; mshr < 2; mshr++) {
        speed_ctx c = {in, stall, L, mshr};
        gsl_function f = {speed_excess, &c};
        double lo = 1e-9;
        if (speed_excess(*k, &c) <= 0 || speed_excess(lo, &c) >= 0) continue;
        cm_status st =
            cm_lifetime_brent_root(&f, lo, *k, k, "lifetime speed", err);
        if (st) return st;
    }
    return CM_OK;
}

/* The wait after the lease per store at L on a machine k times as fast
 * (header: "The wait after the lease"): the held share carried by
 * P(S_k < L) / P(S < L0), times the profile's own wait per held store.
 * 0 at an in-order bank (in->stall_block 1: the store holds the head and
 * is served as its lease passes; what is left there is MSHR-full
 * blocking, which M(k) carries), without the profile's wait, or without
 * its own L. */
static double post_lease(const cm_lifetime_input *in, const stall_src *s,
                         double L, double k)
{
    double L0 = in->profile_lifetime;
    if (!s->whole || bank_in_order(in) ||
        !(in->stall_share > 0 && in->post_wait > 0 && L0 > 0))
        return 0;
    double p0 = stall_prob(s, L0, 1);
    if (!(p0 > 0)) return 0;
    return in->stall_share * stall_prob(s, L, k) / p0 * in->post_wait;
}

/* Speed at L over speed at the profile's own lifetime; 1 without the
 * profile's speed rates. */
static cm_status speed_at(const cm_lifetime_input *in, const stall_src *stall,
                          double L, double *k, cm_err *err)
{
    double k0 = 1;
    *k = 1;
    if (!(in->profile_lifetime > 0 && in->reply_busy > 0)) return CM_OK;
    cm_status st = speed_bound(in, stall, L, k, err);
    if (!st) st = speed_bound(in, stall, in->profile_lifetime, &k0, err);
    if (st) return st;
    /* TC-Strong: a machine held back by leases at L0 runs on their clock,
     * L0 / L times as fast at L, until a resource binds (header: "Carrying
     * a profile across L"); TC-Weak's stores never wait */
    if (stall && stall->whole && L > 0)
        *k = fmin(*k / fmin(k0, 1), in->profile_lifetime / L);
    else
        *k /= k0;
    return st;
}

/* ---- the fills that happen at L ---------------------------------------- */

/* The replies that fill at L against those at the profile's L0: a reply
 * d after its lease began fills iff d <= L (header, 2). */
static double fill_share(const cm_lifetime_input *in, double L)
{
    const cm_dist *d = in->lease_delay;
    if (!d || !(cm_dist_total(d) > 0) || !(in->fill_lifetime > 0) ||
        L >= in->fill_lifetime)
        return 1;
    double at0 = cm_dist_cdf(d, in->fill_lifetime);
    if (!(at0 > 0)) return 1;
    return fmax(1e-9, fmin(1, cm_dist_cdf(d, L) / at0));
}

/* P(T < c E) for independent T and E (E = inf: P(T < inf)); each bin of
 * E has a uniform density, and int F_T(c e) de over it is a difference of
 * m_T = int F_T: exact. */
static double below_scaled(const cm_dist *t, const cm_dist *e, double c)
{
    double tot = cm_dist_total(e), sum = 0;
    if (!(tot > 0)) return 0;
    for (size_t j = 0; j < e->n; j++) {
        double lo = e->lo[j], hi = e->hi[j], w = e->w[j];
        if (w == 0) continue;
        if (!(hi > lo)) {
            sum += w * cm_dist_cdf(t, c * lo);
            continue;
        }
        sum += w *
               (cm_dist_mean_excess_below(t, c * hi) -
                cm_dist_mean_excess_below(t, c * lo)) /
               (c * (hi - lo));
    }
    return sum / tot +
           cm_dist_mass_inf(e) * (1 - cm_dist_mass_inf(t));
}

/* The outcomes of the fills at L on a machine k times as fast, a share
 * phi of the profile's replies filling (header, 2): a copy stays 1 / phi
 * times as long, so P(held at its next load) moves from P(R < inf) by
 * P(T < E / phi) / P(T < E). */
static void filled_outcomes(const cm_lifetime_input *in, double L, double k,
                            double phi, double *hit, double *expired,
                            double *evicted, double *unused)
{
    double held = 1 - cm_dist_mass_inf(in->reuse);
    if (phi < 1 && in->l1_load_gap && cm_dist_total(in->l1_load_gap) > 0) {
        double at0 = below_scaled(in->l1_load_gap, in->residency, 1);
        double at = below_scaled(in->l1_load_gap, in->residency, 1 / phi);
        if (at0 > 0) held = fmin(1, held * at / at0);
    }
    *hit = cm_lifetime_delayed_cdf(in->reuse, in->lease_delay, L, k);
    *expired = fmax(0, held - *hit);
    double never = fmax(0, 1 - held);
    *evicted = never * cm_lifetime_delayed_cdf(in->residency,
                                               in->lease_delay, L, k * phi);
    *unused = never - *evicted;
}

cm_status cm_lifetime_eval(const cm_lifetime_input *in, double L,
                           cm_lifetime_result *r, cm_err *err)
{
    if (!(L >= 0) || !isfinite(L))
        return cm_err_set(err, CM_EINPUT,
                          "lifetime must be a finite number >= 0, got %g", L);
    memset(r, 0, sizeof *r);
    r->lifetime = L;

    const cm_dist *s2w = in->read_to_write;
    int has_shared = in->read_to_write_shared != NULL;
    stall_src all = {s2w,
                     in->other_read_to_write,
                     in->own_read_to_write,
                     in->own_trip_floor,
                     in->own_next_read_to_write,
                     in->behind,
                     in->nbehind,
                     in->profile_lifetime,
                     bank_in_order(in)};
    stall_src shared = all;
    if (has_shared)
        shared = (stall_src){in->read_to_write_shared,
                             in->other_read_to_write_shared,
                             in->own_read_to_write_shared,
                             in->own_trip_floor,
                             in->own_next_read_to_write_shared,
                             in->behind_shared,
                             in->nbehind_shared,
                             in->profile_lifetime,
                             bank_in_order(in)};
    double k_all, k_shared;
    cm_status st = speed_at(in, s2w ? &all : NULL, L, &k_all, err);
    k_shared = k_all; /* the same solve when the profile has no S' */
    if (!st && has_shared) st = speed_at(in, &shared, L, &k_shared, err);
    if (!st) st = speed_at(in, NULL, L, &r->speed_weak, err);
    if (st) return st;
    r->speed_strong = k_shared;
    /* each family's fills at its own speed (header: "Carrying the L1
     * outcomes") */
    r->fill_share = fill_share(in, L);
    filled_outcomes(in, L, r->speed_weak, r->fill_share, &r->p_hit,
                    &r->p_expired, &r->p_evicted, &r->p_unused);
    filled_outcomes(in, L, r->speed_strong, r->fill_share, &r->p_hit_strong,
                    &r->p_expired_strong, &r->p_evicted_strong,
                    &r->p_unused_strong);
    r->store_stall = s2w ? stall_per_store(&all, L, k_all) +
                               post_lease(in, &all, L, k_all)
                         : 0;
    r->store_stall_shared =
        shared.whole ? stall_per_store(&shared, L, k_shared) +
                           post_lease(in, &shared, L, k_shared)
                     : 0;
    r->store_stall_rate = in->l2_stores * k_all * r->store_stall;
    /* the bank queue below stays at the profile's own rates */
    double stall = s2w ? cm_dist_mean_excess_below(s2w, L) : 0;
    double stall2 = s2w ? cm_dist_mean_excess2_below(s2w, L) : 0;

    double req = in->l2_loads + in->l2_stores;
    double lambda = req / in->banks, s0 = in->l2_service;
    double q = req > 0 ? in->l2_stores / req : 0;
    double es = s0 + q * stall, es2 = s0 * s0 + q * (2 * s0 * stall + stall2);
    r->bank_util = lambda * es;
    if (lambda == 0) {
        r->hol_delay = 0;
    } else if (r->bank_util >= 1) {
        r->hol_delay = INFINITY;
    } else {
        double scv = fmax(0, es2 / (es * es) - 1);
        st = cm_mg1_wait(lambda, es, scv, &r->hol_delay, err);
        if (st) return st;
    }

    r->parked_rate = cm_lifetime_evict_young(in, L);
    r->parked_mshrs = evict_parked(in, L) / in->banks;
    double kw = r->speed_weak;
    if (in->fence_ack && in->nfence_pairs &&
        cm_dist_total(in->fence_ack) > 0) {
        r->fence_wait = fence_wait_pairs(in, L, kw);
    } else if (in->fence_ack && in->fence_slack) {
        st = fence_wait_acked(in->fence_ack, in->fence_slack, L, kw,
                              in->own_trip_floor, &r->fence_wait, err);
        if (st) return st;
    } else {
        r->fence_wait = fence_wait(in->read_to_write, in->store_to_fence,
                                   kw * L) / kw;
    }
    cm_lifetime_event_rates(in, L, &r->rates);
    r->drift = cm_lifetime_drift(in, L);
    return CM_OK;
}

/* ---- the sweep table ---------------------------------------------------- */

cm_status cm_lifetime_table(const cm_lifetime_input *in,
                            const double *lifetimes, size_t n,
                            int equilibrium, cm_table **out, cm_err *err)
{
    static const char *const cols[] = {
        "lifetime",     "p_hit",       "p_expired",        "p_evicted",
        "p_unused",     "store_stall", "hol_delay",        "fence_wait",
        "parked_mshrs", "drift",       "store_stall_rate", "parked_rate",
        "store_stall_shared", "speed_strong", "speed_weak", "p_hit_strong",
        "p_expired_strong", "equilibrium", "equilibrium_bound",
        "stationary_mean"};
    enum { NBASE = 17, NALL = 20, BOUND = 18 };
    *out = NULL;
    double eq = NAN, smean = NAN;
    cm_lifetime_bound bound = CM_LIFETIME_ROOT;
    if (equilibrium) {
        cm_lifetime_chain ch;
        cm_status st = cm_lifetime_equilibrium(in, &eq, &bound, err);
        if (!st) st = cm_lifetime_stationary(in, &ch, err);
        if (st) return st;
        smean = ch.mean;
        cm_lifetime_chain_free(&ch);
    }
    size_t nc = equilibrium ? NALL : NBASE;
    cm_table *t = cm_table_new(nc, cols);
    if (!t) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        cm_lifetime_result r;
        cm_status st = cm_lifetime_eval(in, lifetimes[i], &r, err);
        if (st) {
            cm_table_free(t);
            return st;
        }
        double v[NALL] = {r.lifetime,     r.p_hit,       r.p_expired,
                          r.p_evicted,    r.p_unused,    r.store_stall,
                          r.hol_delay,    r.fence_wait,  r.parked_mshrs,
                          r.drift,        r.store_stall_rate, r.parked_rate,
                          r.store_stall_shared, r.speed_strong,
                          r.speed_weak,   r.p_hit_strong, r.p_expired_strong,
                          eq,             0,             smean};
        char buf[NALL][32];
        const char *cells[NALL];
        for (size_t c = 0; c < nc; c++) {
            cm_fmt_double(buf[c], v[c]);
            cells[c] = buf[c];
        }
        if (equilibrium) cells[BOUND] = cm_lifetime_bound_name(bound);
        if ((st = cm_table_append(t, cells, err))) {
            cm_table_free(t);
            return st;
        }
    }
    *out = t;
    return CM_OK;
}
