/* check_lifetime_pred.c - the TC-Weak lifetime predictor in the
 * lifetime model (models/lifetime.h): its drift and equilibrium, its
 * event rates, its stationary chain and its approach from the start.
 * Apart from check_lifetime.c (the outcomes, stalls and speeds at a given
 * lifetime) to keep each file short; the inputs both build are
 * tests/distgen.h's.
 *
 * References: the closed-form root of a two-event drift, a truncated
 * geometric law, the predictor chain's generator solved densely with GSL's
 * LU (not the model's cut recursion), and an explicit Euler integration of
 * the drift. */
#include <gsl/gsl_linalg.h>
#include <math.h>

#include "models/lifetime.h"
#include "tests/distgen.h"
#include "tests/testutil.h"

/* The equilibrium, which must be of the given kind. */
static double equilibrium(const cm_lifetime_input *in, cm_lifetime_bound want)
{
    double L;
    cm_lifetime_bound b;
    cm_err err = {0};
    ck_assert_msg(cm_lifetime_equilibrium(in, &L, &b, &err) == CM_OK, "%s",
                  err.msg);
    ck_assert_msg(b == want, "bound %s, want %s", cm_lifetime_bound_name(b),
                  cm_lifetime_bound_name(want));
    return L;
}

/* Only L2 loads (+t_hit when G > L) and stores (-t_write when S < L), G
 * and S Exp(1/m) with no mass at infinity: the drift
 *     t_h l (1 - F(L)) - t_w s F(L),  F(L) = 1 - e^{-L/m},
 * vanishes at L* = m ln((t_h l + t_w s) / (t_w s)). */
START_TEST(drift_root_closed_form)
{
    dg_dists x;
    dg_dists_exponential(&x, 50);
    cm_dist_free(&x.g), cm_dist_free(&x.s);
    double m = 1000;
    dg_exponential(&x.g, m, 0, 500);
    dg_exponential(&x.s, m, 0, 500);
    cm_lifetime_input in = dg_lifetime_input(&x);
    in.l1_fills = 0, in.l2_evictions = 0;
    double want = m * log((in.t_hit * in.l2_loads +
                           in.t_write * in.l2_stores) /
                          (in.t_write * in.l2_stores));
    double L = equilibrium(&in, CM_LIFETIME_ROOT);
    ck_assert_double_eq_tol(L, want, 1e-4 * want);
    ck_assert(cm_lifetime_drift(&in, L - 10) > 0);
    ck_assert(cm_lifetime_drift(&in, L + 10) < 0);
    /* loads of lines no load leased (rate.l2_loads_unleased, GT 0) push
     * at every L: t_h (l e^{-L/m} + u) = t_w s (1 - e^{-L/m}) */
    double u = 0.25 * in.t_write * in.l2_stores / in.t_hit;
    in.l2_unleased = u;
    want = m * log((in.t_hit * in.l2_loads + in.t_write * in.l2_stores) /
                   (in.t_write * in.l2_stores - in.t_hit * u));
    L = equilibrium(&in, CM_LIFETIME_ROOT);
    ck_assert_double_eq_tol(L, want, 1e-4 * want);
    in.l2_unleased = 0;
    /* with write updates off (tc.write_update) the stores stop pulling */
    in.write_update = 0;
    ck_assert_double_eq(equilibrium(&in, CM_LIFETIME_AT_MAX), in.pred_max);
    dg_dists_free(&x);
}
END_TEST

START_TEST(drift_one_signed_clamps)
{
    dg_dists x;
    cm_lifetime_input in = dg_exponential_input(&x, 20);
    /* only decrements: the predictor sinks to its lower bound */
    in.l1_fills = 0, in.l2_loads = 0;
    ck_assert_double_eq(equilibrium(&in, CM_LIFETIME_AT_MIN), in.pred_min);
    /* only increments: it rises to its upper bound */
    in = dg_lifetime_input(&x);
    in.l2_evictions = 0, in.l2_stores = 0;
    ck_assert_double_eq(equilibrium(&in, CM_LIFETIME_AT_MAX), in.pred_max);
    /* no events: it stays where it starts */
    in.l1_fills = 0, in.l2_loads = 0;
    ck_assert_double_eq(equilibrium(&in, CM_LIFETIME_NO_DRIFT),
                        in.pred_init);
    dg_dists_free(&x);
}
END_TEST

/* With the profile's last use V, an L1 copy raises the predictor's
 * expired-load event iff V > L, whether or not it hit first: the rate is
 * fills P(L < V < inf), closed form for an exponential V, and it exceeds
 * the first-reuse rate that counts only copies unused before expiry. */
START_TEST(l1_expired_from_last_use)
{
    dg_dists x;
    cm_lifetime_input in = dg_exponential_input(&x, 20);
    cm_dist v;
    dg_exponential(&v, 2500, 0.25, 20);
    for (double L = 0; L <= 6000; L += 1500) {
        cm_lifetime_rates first, last;
        cm_lifetime_event_rates(&in, L, &first);
        in.last_use = &v;
        cm_lifetime_event_rates(&in, L, &last);
        in.last_use = NULL;
        double want = in.l1_fills * 0.75 * exp(-L / 2500);
        ck_assert_double_eq_tol(last.l1_expired, want, 1e-3 * want);
        ck_assert_double_eq(last.l2_expired, first.l2_expired);
        ck_assert(last.l1_expired > first.l1_expired);
    }
    cm_dist_free(&v);
    dg_dists_free(&x);
}
END_TEST

static cm_lifetime_chain chain_of(const cm_lifetime_input *in)
{
    cm_lifetime_chain ch;
    cm_err err = {0};
    ck_assert_msg(cm_lifetime_stationary(in, &ch, &err) == CM_OK, "%s",
                  err.msg);
    double sum = 0;
    for (size_t k = 0; k < ch.n; k++) sum += ch.prob[k];
    ck_assert_double_eq_tol(sum, 1, 1e-12);
    return ch;
}

/* Rates that do not depend on L in [min, max] and steps of one lattice
 * point each way: a birth-death chain, pi_k ~ (up/down)^k. */
START_TEST(stationary_geometric)
{
    dg_dists x;
    dg_dists_exponential(&x, 20);
    cm_err err = {0};
    cm_dist_free(&x.g), cm_dist_free(&x.a);
    cm_dist_init(&x.g), cm_dist_init(&x.a);
    ck_assert_int_eq(cm_dist_add_bin(&x.g, 1e6, 2e6, 1, &err), CM_OK);
    ck_assert_int_eq(cm_dist_add_bin(&x.a, 0, 1, 1, &err), CM_OK);
    cm_lifetime_input in = dg_lifetime_input(&x);
    in.l1_fills = 0, in.write_update = 0;
    in.t_evict = in.t_hit;
    in.pred_max = in.pred_min + 50 * in.t_hit;
    double rho = in.l2_loads / in.l2_evictions; /* 2: mass at the top */
    cm_lifetime_chain ch = chain_of(&in);
    ck_assert_uint_eq(ch.n, 51);
    double norm = (pow(rho, 51) - 1) / (rho - 1);
    for (size_t k = 0; k < ch.n; k++) {
        ck_assert_double_eq(ch.lifetime[k], in.pred_min + 4.0 * (double)k);
        ck_assert_double_eq_tol(ch.prob[k], pow(rho, (double)k) / norm,
                                1e-12);
    }
    cm_lifetime_chain_free(&ch);
    dg_dists_free(&x);
}
END_TEST

/* The same chain built as a dense generator and solved by LU: jumps of
 * 1.5 and 2.5 points split between floor and ceiling, clamped at 0. */
START_TEST(stationary_against_dense_generator)
{
    dg_dists x;
    cm_lifetime_input in = dg_exponential_input(&x, 20);
    in.t_hit = 40, in.t_evict = 60, in.t_write = 100;
    in.pred_min = 0, in.pred_max = 40 * 30;
    in.l2_evictions = 3; /* pull the mass off the upper bound */
    cm_lifetime_chain ch = chain_of(&in);
    size_t n = ch.n;
    ck_assert_uint_eq(n, 31);
    gsl_matrix *Q = gsl_matrix_calloc(n, n);
    for (size_t k = 0; k < n; k++) {
        cm_lifetime_rates r;
        cm_lifetime_event_rates(&in, ch.lifetime[k], &r);
        double up = (r.l1_expired + r.l2_expired) / in.banks;
        double de = r.unexpired_evictions / in.banks;
        double dw = r.unexpired_stores / in.banks;
        struct { double rate; size_t to; } moves[5] = {
            {up, k + 1 < n ? k + 1 : k},
            {de * 0.5, k >= 1 ? k - 1 : 0}, {de * 0.5, k >= 2 ? k - 2 : 0},
            {dw * 0.5, k >= 2 ? k - 2 : 0}, {dw * 0.5, k >= 3 ? k - 3 : 0}};
        for (int m = 0; m < 5; m++) {
            *gsl_matrix_ptr(Q, k, moves[m].to) += moves[m].rate;
            *gsl_matrix_ptr(Q, k, k) -= moves[m].rate;
        }
    }
    /* pi Q = 0 and sum pi = 1: solve Q^T pi = 0 with one row replaced */
    gsl_matrix *A = gsl_matrix_alloc(n, n);
    gsl_matrix_transpose_memcpy(A, Q);
    gsl_vector *rhs = gsl_vector_calloc(n), *pi = gsl_vector_alloc(n);
    for (size_t j = 0; j < n; j++) gsl_matrix_set(A, n - 1, j, 1);
    gsl_vector_set(rhs, n - 1, 1);
    gsl_permutation *perm = gsl_permutation_alloc(n);
    int sign;
    ck_assert_int_eq(gsl_linalg_LU_decomp(A, perm, &sign), 0);
    ck_assert_int_eq(gsl_linalg_LU_solve(A, perm, rhs, pi), 0);
    double mass_low = 0;
    for (size_t k = 0; k < n; k++) {
        ck_assert_double_eq_tol(ch.prob[k], gsl_vector_get(pi, k), 1e-10);
        if (k < n / 2) mass_low += ch.prob[k];
    }
    ck_assert(mass_low > 0.05 && mass_low < 0.95); /* not a corner case */
    gsl_permutation_free(perm);
    gsl_vector_free(rhs), gsl_vector_free(pi);
    gsl_matrix_free(A), gsl_matrix_free(Q);
    cm_lifetime_chain_free(&ch);
    dg_dists_free(&x);
}
END_TEST

/* Steps small against the scale on which the rates change: the walk
 * concentrates around the root of its drift. */
START_TEST(stationary_mean_near_root)
{
    dg_dists x;
    cm_lifetime_input in = dg_exponential_input(&x, 20);
    in.pred_max = 6000;
    double L = equilibrium(&in, CM_LIFETIME_ROOT);
    cm_lifetime_chain ch = chain_of(&in);
    ck_assert_double_eq_tol(ch.mean, L, 0.02 * L);
    ck_assert(ch.sd > 0 && ch.sd < 0.2 * L);
    cm_lifetime_chain_free(&ch);
    /* a coarse lattice keeps its size bound and the drift */
    in.chain_states = 50;
    ch = chain_of(&in);
    ck_assert_uint_eq(ch.n, 50);
    ck_assert_double_eq_tol(ch.mean, L, 0.05 * L);
    cm_lifetime_chain_free(&ch);
    dg_dists_free(&x);
}
END_TEST

/* dL/dt = drift(L) by explicit Euler, one cycle per step: the mean of L
 * over the first T cycles. */
static double euler_run_mean(const cm_lifetime_input *in, double T)
{
    double L = in->pred_init, area = 0;
    for (double t = 0; t < T; t += 1) {
        area += L;
        L = fmin(fmax(L + cm_lifetime_drift(in, L), in->pred_min),
                 in->pred_max);
    }
    return area / T;
}

/* The predictor's mean-field approach from its start: the time average
 * agrees with an Euler integration, stays between the start and the
 * equilibrium, and tends to the equilibrium for long runs. */
START_TEST(run_mean_approach)
{
    dg_dists x;
    cm_lifetime_input in = dg_exponential_input(&x, 4);
    in.pred_max = 6000;
    double eq = equilibrium(&in, CM_LIFETIME_ROOT);
    cm_err err = {0};
    for (int k = 0; k < 2; k++) {
        in.pred_init = k ? 5900 : 100; /* below and above the root */
        double m, end;
        ck_assert_msg(cm_lifetime_run_mean(&in, 10000, &m, &end, &err) ==
                          CM_OK, "%s", err.msg);
        double ref = euler_run_mean(&in, 10000);
        ck_assert_msg(fabs(m - ref) <= 2e-3 * ref, "RKF45 %g, Euler %g", m,
                      ref);
        ck_assert(fmin(in.pred_init, eq) < m && m < fmax(in.pred_init, eq));
        ck_assert(fmin(in.pred_init, eq) <= end &&
                  end <= fmax(in.pred_init, eq));
        ck_assert_int_eq(cm_lifetime_run_mean(&in, 1e9, &m, NULL, &err),
                         CM_OK);
        ck_assert_double_eq_tol(m, eq, 1e-3 * eq);
    }
    double m;
    ck_assert_int_eq(cm_lifetime_run_mean(&in, 0, &m, NULL, &err),
                     CM_EINPUT);
    dg_dists_free(&x);
}
END_TEST

Suite *suite_lifetime_pred(void)
{
    Suite *s = suite_create("lifetime_pred");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, drift_root_closed_form);
    tcase_add_test(tc, drift_one_signed_clamps);
    tcase_add_test(tc, stationary_geometric);
    tcase_add_test(tc, stationary_against_dense_generator);
    tcase_add_test(tc, stationary_mean_near_root);
    tcase_add_test(tc, l1_expired_from_last_use);
    tcase_add_test(tc, run_mean_approach);
    suite_add_tcase(s, tc);
    return s;
}
