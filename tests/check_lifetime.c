/* check_lifetime.c - the lifetime-outcome model (models/lifetime.h) at a
 * given lifetime: the L1 copies' outcomes, the bank's delay, the stores'
 * stalls and the fences' waits, and the speeds that carry a profile across
 * lifetimes.  The TC-Weak predictor that picks the lifetime is tested in
 * check_lifetime_pred.c; the inputs both build are tests/distgen.h's.
 *
 * References: closed forms for exponential times, Monte Carlo with a GSL
 * generator of the same independence assumptions, and the
 * Pollaczek-Khinchine formula written out here. */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/lifetime.h"
#include "tests/distgen.h"
#include "tests/testutil.h"

static cm_lifetime_result eval(const cm_lifetime_input *in, double L)
{
    cm_lifetime_result r;
    cm_err err = {0};
    ck_assert_msg(cm_lifetime_eval(in, L, &r, &err) == CM_OK, "%s", err.msg);
    return r;
}

START_TEST(outcomes_exponential)
{
    /* R = inf w.p. u else Exp(a); E = inf w.p. v else Exp(b).  R is the
     * first reuse while the copy is held, so a finite R decides hit or
     * expired alone; E splits the never-reused copies. */
    dg_dists x;
    cm_lifetime_input in = dg_exponential_input(&x, 500);
    double a = 1.0 / 800, u = 0.3, b = 1.0 / 3000, v = 0.2;
    for (double L = 0; L <= 6400; L += 400) {
        cm_lifetime_result r = eval(&in, L);
        double keep = v + (1 - v) * exp(-b * L);
        ck_assert_double_eq_tol(r.p_evicted, u * (1 - keep), 1e-6);
        ck_assert_double_eq_tol(r.p_hit, (1 - u) * (1 - exp(-a * L)), 1e-6);
        ck_assert_double_eq_tol(r.p_expired, (1 - u) * exp(-a * L), 1e-6);
        ck_assert_double_eq_tol(r.p_unused, u * keep, 1e-6);
        /* no lease delay, no speed: TC-Strong's are the same */
        ck_assert_double_eq(r.p_hit_strong, r.p_hit);
        ck_assert_double_eq(r.p_expired_strong, r.p_expired);
        /* TC-Strong: S = inf w.p. 0.4 else Exp(1/2000) */
        double as = 1.0 / 2000, stall = 0.6 * (L - (1 - exp(-as * L)) / as);
        /* bins of mean/500 err by O(h^2) */
        ck_assert_double_eq_tol(r.store_stall, stall, 1e-4 + 1e-6 * stall);
        ck_assert_double_eq_tol(r.store_stall_rate, in.l2_stores * stall,
                                1e-4 + 1e-6 * stall);
        /* parked: A = inf w.p. 0.1 else Exp(1/5000) */
        double aa = 1.0 / 5000;
        ck_assert_double_eq_tol(r.parked_rate,
                                in.l2_evictions * 0.9 * (1 - exp(-aa * L)),
                                1e-7);
        double held = in.l2_evictions * 0.9 *
                      (L - (1 - exp(-aa * L)) / aa) / in.banks;
        ck_assert_double_eq_tol(r.parked_mshrs, held, 1e-4 + 1e-6 * held);
    }
    dg_dists_free(&x);
}
END_TEST

/* One fill, classified as the simulator does (sim/l1.c l1_outcome): its
 * copy lives L - D after the fill; the first load while it is held (R,
 * profile time, inf: it left first, at capacity E) finds it valid or
 * expired; on a machine k times as fast R and E shrink by k, D does not. */
static int classify(double R, double E, double D, double L, double k)
{
    if (isfinite(R)) return R / k + D <= L ? 0 : 1; /* hit, expired */
    return E / k + D <= L ? 2 : 3;                  /* evicted, unused */
}

START_TEST(outcomes_monte_carlo)
{
    gsl_rng *rng = dg_rng(2024);
    for (int rep = 0; rep < 8; rep++) {
        dg_dists x;
        dg_random(&x.r, rng, 1000);
        dg_random(&x.e, rng, 1000);
        dg_random(&x.s, rng, 1000);
        dg_random(&x.g, rng, 1000);
        dg_random(&x.a, rng, 1000);
        dg_random(&x.d, rng, 1000);
        cm_lifetime_input in = dg_lifetime_input(&x);
        double L = gsl_rng_uniform(rng) * 1000;
        cm_lifetime_result r = eval(&in, L);
        /* a lease delay (finite: every fill has one) and a speed */
        cm_dist dl;
        do {
            dg_random(&dl, rng, 300);
            if (cm_dist_mass_inf(&dl) == 0) break;
            cm_dist_free(&dl);
        } while (1);
        double k = 0.5 + 2 * gsl_rng_uniform(rng), p[4];
        cm_lifetime_outcomes(&x.r, &x.e, &dl, L, k, &p[0], &p[1], &p[2],
                             &p[3]);
        long cnt[4] = {0}, l1exp = 0;
        double fw = 0, fw2 = 0;
        int n = 100000;
        for (int i = 0; i < n; i++) {
            double R = dg_sample(&x.r, rng), E = dg_sample(&x.e, rng);
            cnt[classify(R, E, dg_sample(&dl, rng), L, k)]++;
            l1exp += R > L && isfinite(R);
            /* a fence D after a store whose lease ends max(0, L-S) later */
            double S = dg_sample(&x.s, rng), D = dg_sample(&x.d, rng);
            double w = fmax(0, fmax(0, L - S) - D);
            fw += w, fw2 += w * w;
        }
        for (int k = 0; k < 4; k++) {
            double f = (double)cnt[k] / n, sd = sqrt(p[k] * (1 - p[k]) / n);
            ck_assert_msg(fabs(f - p[k]) <= 5 * sd + 1e-4,
                          "rep %d outcome %d: MC %g model %g", rep, k, f,
                          p[k]);
        }
        double q = r.rates.l1_expired / in.l1_fills;
        ck_assert_msg(fabs((double)l1exp / n - q) <=
                          5 * sqrt(q * (1 - q) / n) + 1e-4,
                      "rep %d: L1 expired MC %g model %g", rep,
                      (double)l1exp / n, q);
        double m = fw / n, se = sqrt((fw2 / n - m * m) / n);
        ck_assert_msg(fabs(m - r.fence_wait) <= 5 * se + 1e-6 * (1 + m),
                      "rep %d: fence wait MC %g model %g", rep, m,
                      r.fence_wait);
        cm_dist_free(&dl);
        dg_dists_free(&x);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(outcomes_sum_to_one)
{
    gsl_rng *rng = dg_rng(99);
    for (int rep = 0; rep < 300; rep++) {
        cm_dist r, e;
        dg_random(&r, rng, 500);
        dg_random(&e, rng, 500);
        double L = gsl_rng_uniform(rng) * 700, p[4];
        cm_lifetime_outcomes(&r, &e, rep % 2 ? &r : NULL, L,
                             0.5 + gsl_rng_uniform(rng), &p[0], &p[1],
                             &p[2], &p[3]);
        double sum = 0;
        for (int k = 0; k < 4; k++) {
            ck_assert_msg(p[k] >= -1e-15 && p[k] <= 1 + 1e-15, "p%d = %g",
                          k, p[k]);
            sum += p[k];
        }
        ck_assert_double_eq_tol(sum, 1, 1e-12);
        cm_dist_free(&r);
        cm_dist_free(&e);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(hol_delay_pollaczek_khinchine)
{
    dg_dists x;
    cm_lifetime_input in = dg_exponential_input(&x, 100);
    double as = 1.0 / 2000;
    for (double L = 0; L <= 1200; L += 200) {
        cm_lifetime_result r = eval(&in, L);
        /* E[(L-S)+] and E[(L-S)+^2] for S = inf w.p. 0.4 else Exp */
        double m1 = 0.6 * (L - (1 - exp(-as * L)) / as);
        double m2 = 0.6 * (L * L - 2 * L / as + 2 / (as * as) -
                           2 * exp(-as * L) / (as * as));
        double lam = (in.l2_loads + in.l2_stores) / in.banks;
        double q = in.l2_stores / (in.l2_loads + in.l2_stores), s0 = 2;
        double es = s0 + q * m1, es2 = s0 * s0 + q * (2 * s0 * m1 + m2);
        double rho = lam * es;
        ck_assert_double_eq_tol(r.bank_util, rho, 1e-4 * rho);
        if (rho < 0.95) {
            double wq = lam * es2 / (2 * (1 - rho));
            ck_assert_double_eq_tol(r.hol_delay, wq, 1e-3 * wq);
        }
    }
    /* a lifetime that saturates the bank has no finite delay */
    cm_lifetime_result r = eval(&in, 20000);
    ck_assert(r.bank_util >= 1 && isinf(r.hol_delay));
    dg_dists_free(&x);
}
END_TEST

/* The TC-Weak fence wait from the per-fence ack wait A and lease slack Z,
 * E[max(A, (L - Z)+)], against a direct midpoint double sum of the
 * expectation (not the survival integral the model uses): A uniform on
 * [0, 300); Z uniform on [0, 1000) with weight 0.6 and infinite (no lease)
 * with 0.4. */
START_TEST(fence_wait_acks_and_gwct)
{
    dg_dists x;
    cm_lifetime_input in = dg_exponential_input(&x, 1);
    cm_dist ack, slack;
    cm_dist_init(&ack);
    cm_dist_init(&slack);
    cm_err err = {0};
    ck_assert_int_eq(cm_dist_add_bin(&ack, 0, 300, 1, &err), CM_OK);
    ck_assert_int_eq(cm_dist_add_bin(&slack, 0, 1000, 0.6, &err), CM_OK);
    ck_assert_int_eq(cm_dist_add_bin(&slack, INFINITY, INFINITY, 0.4, &err),
                     CM_OK);
    in.fence_ack = &ack;
    in.fence_slack = &slack;
    for (double L = 0; L <= 2000; L += 250) {
        enum { NA = 600, NZ = 2000 };
        double ref = 0;
        for (int i = 0; i < NA; i++) {
            double a = (i + 0.5) * 300.0 / NA, inner = 0;
            for (int j = 0; j < NZ; j++) {
                double z = (j + 0.5) * 1000.0 / NZ;
                inner += fmax(a, fmax(0, L - z));
            }
            ref += 0.6 * inner / NZ + 0.4 * a;
        }
        ref /= NA;
        double got = eval(&in, L).fence_wait;
        ck_assert_msg(fabs(got - ref) <= 1e-3 * ref, "L=%g: %.6g, reference "
                      "%.6g", L, got, ref);
    }
    cm_dist_free(&ack);
    cm_dist_free(&slack);
    dg_dists_free(&x);
}
END_TEST

/* The bank's busy fraction at speed k (requests and store stalls, each
 * stall cycle blocking it in->stall_block, 1 if unset), for the reference
 * speeds below: bisection, not the model's Brent. */
static double bank_busy(const cm_lifetime_input *in, double L, double k)
{
    double block = in->stall_block > 0 ? in->stall_block : 1;
    return k * (in->l2_loads + in->l2_stores) / in->banks * in->l2_service +
           block * in->l2_stores / in->banks *
               cm_dist_mean_excess_below(in->read_to_write, k * L);
}

static double bank_speed(const cm_lifetime_input *in, double L)
{
    double lo = 0, hi = 1 / in->reply_busy;
    if (bank_busy(in, L, hi) <= 1) return hi;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (bank_busy(in, L, mid) > 1) hi = mid;
        else lo = mid;
    }
    return 0.5 * (lo + hi);
}

/* TC-Strong's speed at L from the resources' bound at L and at L0
 * (bisection below): their ratio, or the leases' clock L0 / L if that is
 * slower (lifetime.c, "Carrying a profile across L"); a bound below 1 at
 * L0 (the profile's machine at its limit) divides, one above does not
 * (its machine runs below the bound, on the leases' clock). */
static double strong_speed(double k_L, double k_L0, double L0, double L)
{
    return fmin(k_L / fmin(k_L0, 1), L0 / L);
}

/* Carrying a profile across L.  TC-Weak: the profile's own L0 is MSHR
 * bound (parked timestamps fill the MSHRs exactly), a shorter L is bound
 * by the reply ports at 1/busy = 2x, so the machine runs 2x faster and
 * every time halves: the fence wait must equal the unscaled model's on
 * the same exponentials with half the means (an independent input, no
 * speed rates).  TC-Strong: the speed is the bank's bound over its bound
 * at L0, each found by bisection here, and the stall E[(kL - S)+] / k. */
START_TEST(speed_carries_profile_across_lifetimes)
{
    dg_dists x, half;
    cm_lifetime_input in = dg_exponential_input(&x, 20);
    in.profile_lifetime = 8000;
    in.reply_busy = 0.5;
    in.mshr_inflight = 0;
    in.l2_mshrs = in.l2_evictions / in.banks *
                  cm_dist_mean_excess_below(&x.a, in.profile_lifetime);
    in.l2_stores = 1e-4; /* the bank stays far from busy (TC-Weak) */
    dg_exponential(&half.r, 400, 0.3, 20);
    dg_exponential(&half.e, 1500, 0.2, 20);
    dg_exponential(&half.s, 1000, 0.4, 20);
    dg_exponential(&half.g, 750, 0.3, 20);
    dg_exponential(&half.a, 2500, 0.1, 20);
    dg_exponential(&half.d, 100, 0.5, 20);
    cm_lifetime_input ref = dg_lifetime_input(&half);
    for (double L = 500; L <= 2000; L += 500) {
        cm_lifetime_result r = eval(&in, L);
        ck_assert_double_eq_tol(r.speed_weak, 2, 1e-5);
        double want = eval(&ref, L).fence_wait;
        ck_assert_msg(fabs(r.fence_wait - want) <= 1e-5 * want,
                      "L=%g: fence wait %.8g, half-time model %.8g", L,
                      r.fence_wait, want);
    }
    ck_assert_double_eq_tol(eval(&in, in.profile_lifetime).speed_weak, 1,
                            1e-6);

    in.l2_stores = 0.2; /* the stalls now bind the bank */
    in.l2_mshrs = 1e9;
    in.read_to_write_shared = NULL;
    double k0 = bank_speed(&in, in.profile_lifetime);
    ck_assert_msg(k0 < 1 / in.reply_busy, "the bank must bind at L0");
    for (double L = 500; L <= 8000; L *= 2) {
        cm_lifetime_result r = eval(&in, L);
        double k = strong_speed(bank_speed(&in, L), k0, in.profile_lifetime, L);
        ck_assert_msg(fabs(r.speed_strong - k) <= 1e-5 * k,
                      "L=%g: speed %.8g, bisection %.8g", L, r.speed_strong, k);
        double stall = cm_dist_mean_excess_below(&x.s, k * L) / k;
        ck_assert_msg(fabs(r.store_stall - stall) <= 1e-4 * (stall + 1e-9),
                      "L=%g: stall %.8g, want %.8g", L, r.store_stall, stall);
        ck_assert_double_eq_tol(r.store_stall_shared, r.store_stall,
                                1e-12 * (1 + stall));
    }
    dg_dists_free(&x);
    dg_dists_free(&half);
}
END_TEST

/* Exponential times with the speed rates of a profile at L0 = 8000
 * whose reply ports allow 2x and whose MSHRs never bind; no S'. */
static cm_lifetime_input strong_speed_input(dg_dists *x)
{
    cm_lifetime_input in = dg_exponential_input(x, 20);
    in.profile_lifetime = 8000;
    in.reply_busy = 0.5;
    in.mshr_inflight = 0;
    in.l2_mshrs = 1e9;
    in.read_to_write_shared = NULL;
    return in;
}

/* The leases' clock.  A TC-Strong profile whose machine at L0 runs below
 * every resource's bound (here the reply ports allow 2x and a bank's
 * stalls use a sliver of it) is held back by the leases themselves: its
 * loads and stores wait out leases of L0, so at L it runs L0 / L times as
 * fast until the ports bind.  Measured (tcs, tc2013, 300k instructions,
 * from L0 = 16000): 2.04-2.50x at 6400 on all 25 workloads, and the fill
 * outcomes at 6400 the same counts as at 16000 (the run is the same run on
 * a clock 2.5x as fast); up to 1/busy at 400 (atax 3.59 for 3.83).  Bug:
 * the speed was the bound at L over the bound at L0, as if the profile's
 * machine sat at its bound: 1.88x at every L on atax, 1.96x on vpr.  So
 * the speed follows L0 / L to the bound, and p_hit, p_expired do not move
 * while it does (no lease delay here: P(R / k <= L) = P(R <= L0)). */
START_TEST(lease_clock_until_a_resource_binds)
{
    dg_dists x;
    cm_lifetime_input in = strong_speed_input(&x);
    in.l2_stores = 1e-5;
    in.lease_delay = NULL;
    double L0 = in.profile_lifetime;
    ck_assert(bank_speed(&in, L0) >= 1 / in.reply_busy - 1e-9);
    cm_lifetime_result at0 = eval(&in, L0);
    cm_lifetime_result r = eval(&in, L0 / 1.5);
    ck_assert_double_eq_tol(r.speed_strong, 1.5, 1e-12);
    ck_assert_double_eq_tol(r.p_hit_strong, at0.p_hit_strong, 1e-12);
    ck_assert_double_eq_tol(r.p_expired_strong, at0.p_expired_strong, 1e-12);
    /* the reply ports bind at 2x */
    ck_assert_double_eq_tol(eval(&in, L0 / 4).speed_strong, 2, 1e-9);
    /* TC-Weak's stores never wait on a lease: its speed is the bound's */
    ck_assert_double_eq_tol(r.speed_weak, 1, 1e-9);
    dg_dists_free(&x);
}
END_TEST

/* Out-of-order service (TCSOO): a stalled store waits beside the queue
 * and the bank serves around it, so a stall cycle blocks the bank only a
 * fraction (rate.l2_hol_per_stall, 0.13-0.32 measured at L = 16000) of a
 * cycle.  Bug: every stall cycle held the bank, so the profile's own
 * machine was over-full by 4x at L0 (bh: B(1) = 4 on stalls alone), its
 * bound k0 fell to a quarter and every speed came out 2-3x too high
 * (predicted 10.6 / 6.0 / 2.4 against 3.3 / 2.2 / 1.5 simulated, bh /
 * cl / stn from L = 16000 to 400).  The speed must follow the bisection
 * with the stalls weighted by the fraction, and differ from the in-order
 * one. */
START_TEST(out_of_order_stalls_share_the_bank)
{
    dg_dists x;
    cm_lifetime_input in = strong_speed_input(&x);
    in.l2_stores = 0.2;
    in.stall_block = 0.25;
    cm_lifetime_input full = in;
    full.stall_block = 1;
    double k0 = bank_speed(&in, in.profile_lifetime);
    ck_assert_msg(k0 < 1 / in.reply_busy, "the bank must bind at L0");
    for (double L = 500; L <= 8000; L *= 2) {
        double k = strong_speed(bank_speed(&in, L), k0, 8000, L);
        double k_full = strong_speed(bank_speed(&full, L),
                                     bank_speed(&full, 8000), 8000, L);
        cm_lifetime_result r = eval(&in, L);
        ck_assert_msg(fabs(r.speed_strong - k) <= 1e-5 * k,
                      "L=%g: speed %.8g, bisection %.8g", L, r.speed_strong, k);
        ck_assert_double_eq_tol(eval(&full, L).speed_strong, k_full,
                                1e-5 * k_full);
        if (L < 8000)
            ck_assert_msg(k <= k_full, "L=%g: %g above in-order %g", L, k,
                          k_full);
    }
    dg_dists_free(&x);
}
END_TEST

/* The wait after the lease (TCSOO): the out-of-order bank serves a store
 * its lease held only when its scan finds nothing servable before it, so
 * the store waits on after its lease has passed.  Bug: the stall per
 * store was E[(L - S')+] alone, 4.5/1.9/0.6 cycles against 10.5/2.6/1.4
 * simulated on bh/cl/stn from their own TCSOO profiles at L = 400.  The
 * stall must add the held share, carried by P(S/k < L) / P(S < L0), times
 * the profile's own wait per held store, at the bisection's speed (the
 * wait does not enter it: the bank serves others meanwhile); and nothing
 * at an in-order bank (stall_block 1), whose stalled store holds the head
 * until its lease passes. */
START_TEST(wait_after_lease_out_of_order)
{
    dg_dists x;
    cm_lifetime_input in = strong_speed_input(&x);
    in.l2_stores = 0.2;
    in.stall_block = 0.25;
    in.stall_share = 0.1;
    in.post_wait = 150;
    cm_lifetime_input in_order = in;
    in_order.stall_block = 1;
    double L0 = in.profile_lifetime;
    double k0 = bank_speed(&in, L0);
    double p0 = cm_dist_cdf(&x.s, L0);
    for (double L = 500; L <= 8000; L *= 2) {
        double k = strong_speed(bank_speed(&in, L), k0, L0, L);
        double lease = cm_dist_mean_excess_below(&x.s, k * L) / k;
        double want = lease + in.stall_share * cm_dist_cdf(&x.s, k * L) /
                                  p0 * in.post_wait;
        cm_lifetime_result r = eval(&in, L);
        ck_assert_msg(fabs(r.speed_strong - k) <= 1e-5 * k,
                      "L=%g: speed %.8g, bisection %.8g", L, r.speed_strong, k);
        ck_assert_msg(fabs(r.store_stall - want) <= 1e-4 * want,
                      "L=%g: stall %.8g, want %.8g (lease part %.8g)", L,
                      r.store_stall, want, lease);
        ck_assert_msg(r.store_stall > lease + 1e-3, "L=%g: no wait added", L);
        /* the in-order bank: the lease part alone */
        cm_lifetime_result o = eval(&in_order, L);
        double k_o = strong_speed(bank_speed(&in_order, L),
                                  bank_speed(&in_order, L0), L0, L);
        double lease_o = cm_dist_mean_excess_below(&x.s, k_o * L) / k_o;
        ck_assert_msg(fabs(o.store_stall - lease_o) <= 1e-4 * lease_o,
                      "L=%g: in-order stall %.8g, lease part %.8g", L,
                      o.store_stall, lease_o);
    }
    /* exact at the profile's own L: its lease part plus its measured wait */
    double own = cm_dist_mean_excess_below(&x.s, L0) +
                 in.stall_share * in.post_wait;
    ck_assert_double_eq_tol(eval(&in, L0).store_stall, own, 1e-6 * own);
    dg_dists_free(&x);
}
END_TEST

/* An exponential histogram whose weights sum to `share`. */
static void exponential_share(cm_dist *d, double mean, double u, double share)
{
    cm_dist tmp;
    cm_err err = {0};
    dg_exponential(&tmp, mean, u, 20);
    cm_dist_init(d);
    for (size_t j = 0; j < tmp.n; j++)
        ck_assert_int_eq(cm_dist_add_bin(d, tmp.lo[j], tmp.hi[j],
                                         share * tmp.w[j], &err), CM_OK);
    ck_assert_int_eq(cm_dist_add_bin(d, INFINITY, INFINITY,
                                     share * tmp.w_inf, &err), CM_OK);
    cm_dist_free(&tmp);
}

/* E[(L - min(S, c) - (S - c)+ / k)+] by midpoint quadrature within each
 * bin (not the model's closed form), per store of d. */
static double own_stall_ref(const cm_dist *d, double c, double L, double k)
{
    double sum = 0;
    for (size_t j = 0; j < d->n; j++) {
        enum { N = 64 };
        double in = 0;
        for (int i = 0; i < N; i++) {
            double s = d->lo[j] + (i + 0.5) / N * (d->hi[j] - d->lo[j]);
            in += fmax(0, L - fmin(s, c) - fmax(0, s - c) / k);
        }
        sum += d->w[j] * in / N;
    }
    return sum / cm_dist_total(d);
}

typedef struct split_ref {
    const cm_lifetime_input *in;
    const cm_dist *own, *other;
    double c;
    const cm_dist *next; /* of own, stalling unscaled (NULL: none) */
} split_ref;

static double split_stall(const split_ref *x, double L, double k)
{
    double n = cm_dist_total(x->in->read_to_write);
    double next = 0;
    if (x->next)
        next = cm_dist_total(x->next) *
               (cm_dist_mean_excess_below(x->next, L) -
                own_stall_ref(x->next, x->c, L, k));
    /* at an in-order bank the other stores carry as the own ones: the
     * round trip c does not scale (lifetime.c, "Carrying S: the stores
     * queued behind the load") */
    return (cm_dist_total(x->own) * own_stall_ref(x->own, x->c, L, k) +
            next +
            cm_dist_total(x->other) * own_stall_ref(x->other, x->c, L, k)) /
           n;
}

static double split_speed(const split_ref *x, double L)
{
    const cm_lifetime_input *in = x->in;
    double lo = 0, hi = 1 / in->reply_busy;
    for (int i = 0; i < 100; i++) {
        double k = 0.5 * (lo + hi);
        double busy = k * (in->l2_loads + in->l2_stores) / in->banks *
                          in->l2_service +
                      in->l2_stores / in->banks * k * split_stall(x, L, k);
        if (busy > 1) hi = k;
        else lo = k;
    }
    return 0.5 * (lo + hi);
}

/* The model at L against the reference (speed by bisection, stall by
 * quadrature), relative to the reference's own speed at L0, k0. */
static cm_lifetime_result split_check(const split_ref *ref, double L,
                                      double k0)
{
    cm_lifetime_result r = eval(ref->in, L);
    double k =
        strong_speed(split_speed(ref, L), k0, ref->in->profile_lifetime, L);
    ck_assert_msg(fabs(r.speed_strong - k) <= 1e-4 * k,
                  "L=%g: speed %.8g, reference %.8g", L, r.speed_strong, k);
    double want = split_stall(ref, L, k);
    ck_assert_msg(fabs(r.store_stall - want) <= 1e-3 * want,
                  "L=%g: stall %.8g, reference %.8g", L, r.store_stall, want);
    return r;
}

/* Carrying S with the own warp's round trip as a latency: a store after
 * its own warp's load of the line cannot reach the bank sooner than that
 * load's reply and its own flight (c cycles) at any speed, so only S - c
 * shrinks with the machine's speed (at an in-order bank the other
 * stores' S carries the same way).
 * Bug: every S was divided by the speed, so on a machine k times as fast
 * own stores stalled from S < kL (stn, TCSUO, from L = 16000 to 400: 10.1
 * cycles per store against 1.34 simulated).  The speed and the stall must
 * follow a reference built by bisection and quadrature. */
START_TEST(own_round_trip_does_not_scale)
{
    dg_dists x;
    cm_lifetime_input in = strong_speed_input(&x);
    cm_dist own, other;
    exponential_share(&own, 1500, 0, 0.6);
    exponential_share(&other, 2000, 0.4, 0.4);
    in.own_read_to_write = &own;
    in.other_read_to_write = &other;
    in.own_trip_floor = 600;
    split_ref ref = {&in, &own, &other, in.own_trip_floor, NULL};
    double k0 = split_speed(&ref, in.profile_lifetime);
    ck_assert_msg(k0 < 1.999, "the bank must bind at L0");
    for (double L = 400; L <= 8000; L *= 2) {
        cm_lifetime_result r = split_check(&ref, L, k0);
        if (L == 400) { /* below the round trip nothing scales */
            double unscaled = (0.6 * cm_dist_mean_excess_below(&own, L) +
                               0.4 * cm_dist_mean_excess_below(&other, L)) /
                              (0.6 + 0.4);
            ck_assert(r.speed_strong > 1.2);
            ck_assert_msg(fabs(r.store_stall - unscaled) <= 1e-6 * unscaled,
                          "stall %.8g, unscaled %.8g", r.store_stall,
                          unscaled);
        }
    }
    cm_dist_free(&own);
    cm_dist_free(&other);
    dg_dists_free(&x);
}
END_TEST

/* Other warps' stores queued behind the load that set the lease: S is
 * the bank's service of the requests between, x cycles of it serving and
 * y blocked by stalled stores' leases, and only y stretches with the
 * lease: S_L = x + y L / L0 (lifetime.c, "Carrying S: the stores queued
 * behind the load").  Measured (tcsuo, 300k instructions at every L,
 * oracle speeds): these stores carry 67-92% of bh's and cl's stall, and
 * dividing their S by the speed put tcsuo's held-out stall MARE at 28%,
 * this split at 10%.  Here the speed is held at 1 (no reply-port rate)
 * so the stall is known by hand: three behind stores at the midpoints of
 * the other class's bins (and four that never stall), exact at the
 * profile's own L; and an out-of-order bank (TCSOO, which serves around
 * a stall, so no drain is blocked) ignores the split. */
START_TEST(behind_store_blocked_part_scales_with_lease)
{
    dg_dists x;
    cm_lifetime_input in = strong_speed_input(&x);
    in.reply_busy = 0; /* speed 1 at every L */
    cm_dist other;
    cm_err err = {0};
    cm_dist_init(&other);
    ck_assert_int_eq(cm_dist_add_bin(&other, 100, 200, 3, &err), CM_OK);
    ck_assert_int_eq(cm_dist_add_bin(&other, 1000, 1100, 2, &err), CM_OK);
    ck_assert_int_eq(cm_dist_add_bin(&other, 3000, 3100, 1, &err), CM_OK);
    ck_assert_int_eq(cm_dist_add_bin(&other, INFINITY, INFINITY, 4, &err),
                     CM_OK);
    const cm_point behind[] = {{150, 0, 3}, {50, 1000, 2}, {50, 3000, 1}};
    in.read_to_write = &other;
    in.other_read_to_write = &other;
    in.own_trip_floor = 600;
    in.behind = behind;
    in.nbehind = 3;
    const double L0 = in.profile_lifetime;
    for (double L = 400; L <= L0; L *= 2.5) {
        double want = 0;
        for (int i = 0; i < 3; i++)
            want += behind[i].w *
                    fmax(0, L - behind[i].x - behind[i].y * L / L0);
        want /= 10;
        cm_lifetime_result r = eval(&in, L);
        ck_assert_msg(fabs(r.store_stall - want) <= 1e-9 * want,
                      "L=%g: stall %.10g, by hand %.10g", L, r.store_stall,
                      want);
    }
    cm_lifetime_result own_l = eval(&in, L0);
    double unsplit = cm_dist_mean_excess_below(&other, L0);
    ck_assert(fabs(own_l.store_stall - unsplit) <= 1e-9 * unsplit);
    in.stall_block = 0.3; /* out of order: S as a whole, scaled by k = 1 */
    cm_lifetime_result ooo = eval(&in, 1000);
    ck_assert_msg(fabs(ooo.store_stall - 255) <= 1e-9,
                  "out of order: %.10g", ooo.store_stall);
    cm_dist_free(&other);
    dg_dists_free(&x);
}
END_TEST

/* A store that is its warp's next memory instruction after the load
 * (no fence or barrier between) has no wait of its own warp inside its
 * S, so S is not stretched by the speed: it stalls E[(L - S)+] at every
 * speed, while the rest of the own class carries as above.  Bug it
 * guards against: those stores carried as every own store, their S
 * divided by the speed beyond the round trip (stn, TCSUO, from L = 16000
 * to 1000: 29.4 cycles per store predicted, 15.3 simulated).  Here the
 * own class is 0.6 of the stores with the same shape as its next part
 * (0.2), so its later part is known exactly. */
START_TEST(next_instruction_store_does_not_scale)
{
    dg_dists x;
    cm_lifetime_input in = strong_speed_input(&x);
    cm_dist own, next, other;
    exponential_share(&own, 1500, 0, 0.6);
    exponential_share(&next, 1500, 0, 0.2);
    exponential_share(&other, 2000, 0.4, 0.4);
    in.own_read_to_write = &own;
    in.own_next_read_to_write = &next;
    in.other_read_to_write = &other;
    in.own_trip_floor = 600;
    split_ref ref = {&in, &own, &other, in.own_trip_floor, &next};
    split_ref scaled = ref;
    scaled.next = NULL;
    double k0 = split_speed(&ref, in.profile_lifetime);
    for (double L = 800; L <= 8000; L *= 2) {
        cm_lifetime_result r = split_check(&ref, L, k0);
        double k = r.speed_strong;
        /* on a faster machine, fewer stalls than if they scaled */
        if (k > 1.05)
            ck_assert_msg(r.store_stall < split_stall(&scaled, L, k),
                          "L=%g: %.8g not below the scaled %.8g", L,
                          r.store_stall, split_stall(&scaled, L, k));
    }
    cm_dist_free(&own);
    cm_dist_free(&next);
    cm_dist_free(&other);
    dg_dists_free(&x);
}
END_TEST

/* The fills that happen at L (lifetime.c, 2): with the lease delay d
 * uniform on [0, 800) a share phi = P(d <= L) / P(d <= L0) of the replies
 * fills, L0 = 16000, and a copy is held at its core's next load, T ~
 * Exp(600) after its fill, with P(R < inf) P(T < E / phi) / P(T < E);
 * E is Exp(3000) or never (0.2): P(T < c E) = 0.2 + 0.8 c 3000 / (600 +
 * c 3000) in closed form.  The hit is unchanged, the expired share takes
 * the rest of the held ones, the never-held evict on the E / phi clock;
 * without l1.load_gap, or at L >= L0, every outcome is the phi = 1 one
 * (cm_lifetime_outcomes). */
START_TEST(fill_share_lengthens_residency)
{
    dg_dists x;
    cm_lifetime_input in = dg_exponential_input(&x, 200);
    cm_dist d, t;
    cm_err err = {0};
    cm_dist_init(&d);
    ck_assert_int_eq(cm_dist_add_bin(&d, 0, 800, 1, &err), CM_OK);
    dg_exponential(&t, 600, 0, 200);
    in.lease_delay = &d;
    in.fill_lifetime = 16000;
    double held0 = 0.7; /* dg_dists_exponential: R never with 0.3 */
    for (double L = 100; L <= 16000; L *= 2) {
        cm_lifetime_result with, without;
        in.l1_load_gap = &t;
        ck_assert_int_eq(cm_lifetime_eval(&in, L, &with, &err), CM_OK);
        in.l1_load_gap = NULL;
        ck_assert_int_eq(cm_lifetime_eval(&in, L, &without, &err), CM_OK);
        double phi = fmin(1, L / 800);
        ck_assert_double_eq_tol(with.fill_share, phi, 1e-12);
        double c = 1 / phi, at0 = 0.2 + 0.8 * 3000 / (600 + 3000.0),
               at = 0.2 + 0.8 * c * 3000 / (600 + c * 3000);
        double held = fmin(1, held0 * at / at0);
        double p[4], k = with.speed_weak;
        cm_lifetime_outcomes(&x.r, &x.e, &d, L, k, &p[0], &p[1], &p[2], &p[3]);
        ck_assert_double_eq_tol(with.p_hit, p[0], 1e-12);
        ck_assert_double_eq_tol(with.p_expired, held - p[0], 2e-3 * held);
        ck_assert_double_eq_tol(with.p_hit + with.p_expired + with.p_evicted +
                                    with.p_unused, 1, 1e-9);
        ck_assert_double_eq_tol(with.p_evicted + with.p_unused, 1 - held,
                                2e-3);
        if (phi < 1) {
            ck_assert(with.p_expired > without.p_expired + 1e-3);
            ck_assert(with.p_evicted < without.p_evicted);
        } else {
            ck_assert_double_eq_tol(with.p_expired, p[1], 1e-12);
            ck_assert_double_eq_tol(with.p_evicted, p[2], 1e-12);
        }
        /* without the gaps only the residency's clock moves */
        ck_assert_double_eq_tol(without.p_expired, p[1], 1e-12);
    }
    cm_dist_free(&d);
    cm_dist_free(&t);
    dg_dists_free(&x);
}
END_TEST

Suite *suite_lifetime(void)
{
    Suite *s = suite_create("lifetime");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, outcomes_exponential);
    tcase_add_test(tc, outcomes_monte_carlo);
    tcase_add_test(tc, outcomes_sum_to_one);
    tcase_add_test(tc, hol_delay_pollaczek_khinchine);
    tcase_add_test(tc, fence_wait_acks_and_gwct);
    tcase_add_test(tc, speed_carries_profile_across_lifetimes);
    tcase_add_test(tc, own_round_trip_does_not_scale);
    tcase_add_test(tc, next_instruction_store_does_not_scale);
    tcase_add_test(tc, behind_store_blocked_part_scales_with_lease);
    tcase_add_test(tc, lease_clock_until_a_resource_binds);
    tcase_add_test(tc, out_of_order_stalls_share_the_bank);
    tcase_add_test(tc, wait_after_lease_out_of_order);
    tcase_add_test(tc, fill_share_lengthens_residency);
    suite_add_tcase(s, tc);
    return s;
}
