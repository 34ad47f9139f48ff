/* check_binom.c - the binomial upper tail of solvers/binom.h.
 *
 * References: gsl_cdf_binomial_Q, which it replaces, over a grid of
 * (k, p, n) that takes every branch (X's side by the complement and by
 * the terms past k, Y's side, underflowing first terms, GSL's own for long
 * sums); exact values from mpmath (50 digits) where GSL is the less
 * accurate of the two; the edge cases by definition; the law's P(X = k)
 * against gsl_ran_binomial_pdf. */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <math.h>

#include "solvers/binom.h"
#include "tests/testutil.h"

/* |a - b| relative to b; 0 when both are below the normal range, where
 * only the exponent is meaningful. */
static double rel_diff(double a, double b)
{
    if (a == b || (fabs(a) < 1e-290 && fabs(b) < 1e-290)) return 0;
    return fabs(a - b) / fmax(fabs(b), 1e-300);
}

START_TEST(binom_matches_gsl)
{
    static const unsigned ns[] = {1,   2,    3,     5,      8,       16,
                                  17,  63,   64,    65,     100,     129,
                                  1000, 12345, 100000, 10000000, 4000000000u};
    static const double ps[] = {1e-9, 1e-6, 1e-4, 1e-3, 0.01, 0.05, 0.1,
                                0.3,  0.5,  0.7,  0.9,  0.99, 0.999};
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    double worst = 0;
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
        for (size_t b = 0; b < sizeof ps / sizeof *ps; b++) {
            unsigned n = ns[a];
            const unsigned ks[] = {0,      1,      2,      3,      7,
                                   8,      15,     16,     31,     32,
                                   63,     64,     65,     100,    n / 2,
                                   n - 1,  n - 2,  n - 3,  n - 8,  n - 63,
                                   n - 64, n - 65, n};
            for (size_t c = 0; c < sizeof ks / sizeof *ks; c++) {
                unsigned k = ks[c];
                if (k > n) continue; /* n - 63 wrapped */
                double want = gsl_cdf_binomial_Q(k, ps[b], n),
                       got = cm_binom_q(k, ps[b], n), d = rel_diff(got, want);
                /* n = 1e7 at its middle: GSL's continued fraction gives
                 * up, and so does the long sum that falls back on it */
                if (isnan(want) && isnan(got)) continue;
                ck_assert_msg(d <= 1e-10,
                              "k=%u p=%g n=%u: %.17g, GSL %.17g (rel %.3g)",
                              k, ps[b], n, got, want, d);
                worst = fmax(worst, d);
            }
        }
    gsl_set_error_handler(old);
    /* measured: 1.3e-12, GSL's own error at the worst point (below) */
    ck_assert_msg(worst < 1e-11, "worst %.3g", worst);
}
END_TEST

START_TEST(binom_exact_values)
{
    /* mpmath: sum of the pmf at 50 digits, for p = the double nearest */
    static const struct {
        unsigned k, n;
        double p, q;
    } v[] = {
        /* Y's side, p near 1: GSL is 2.6e-8 off here */
        {3999999998u, 4000000000u, 1 - 1e-9, 0.091578202621803718},
        /* X's side by the complement: GSL 1.0e-12 off */
        {8, 100000, 1e-4, 0.66719158179060152},
        /* one term: P(X = n) = p^n */
        {4, 5, 0.5, 0.03125},
        /* P(X > 0) = 1 - (1 - p)^n */
        {0, 10, 0.25, 0.94368648529052734},
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        double got = cm_binom_q(v[i].k, v[i].p, v[i].n);
        ck_assert_msg(rel_diff(got, v[i].q) <= 1e-14,
                      "k=%u p=%.17g n=%u: %.17g, want %.17g", v[i].k, v[i].p,
                      v[i].n, got, v[i].q);
    }
}
END_TEST

START_TEST(binom_edges)
{
    /* p = 0: no success; p = 1: n of them; k >= n: nothing above */
    ck_assert(cm_binom_q(0, 0, 10) == 0);
    ck_assert(cm_binom_q(9, 1, 10) == 1);
    ck_assert(cm_binom_q(0, 1, 1) == 1);
    ck_assert(cm_binom_q(10, 0.5, 10) == 0);
    ck_assert(cm_binom_q(11, 0.5, 10) == 0);
    ck_assert(cm_binom_q(0, 0.5, 0) == 0);
    ck_assert(cm_binom_q(5, 1, 5) == 0);
    ck_assert(isnan(cm_binom_q(1, -0.1, 10)));
    ck_assert(isnan(cm_binom_q(1, 1.1, 10)));
    ck_assert(isnan(cm_binom_q(1, NAN, 10)));
    /* the directory model's set-local cells: j mates, a in flight, ways W
     * = 4: P(Bin(j, a) > j - W) for a from 0 to 1 */
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    for (unsigned j = 4; j <= 400; j += 3)
        for (double a = 0; a <= 1; a += 1.0 / 64) {
            double want = gsl_cdf_binomial_Q(j - 4, a, j),
                   got = cm_binom_q(j - 4, a, j);
            ck_assert_msg(rel_diff(got, want) <= 1e-10,
                          "j=%u a=%g: %.17g, GSL %.17g", j, a, got, want);
        }
    /* long sums on both sides: GSL's own answer */
    ck_assert(cm_binom_q(1000, 0.2, 5000) ==
              gsl_cdf_binomial_Q(1000, 0.2, 5000));
    gsl_set_error_handler(old);
}
END_TEST

START_TEST(binom_tiny_tails)
{
    /* first terms below the normal range, tails that are not */
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    const struct {
        unsigned k, n;
        double p;
    } v[] = {{140, 150, 1e-3}, {30, 2000000, 1e-6}, {2, 5000, 0.3},
             {60, 100, 1e-3}};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        double want = gsl_cdf_binomial_Q(v[i].k, v[i].p, v[i].n),
               got = cm_binom_q(v[i].k, v[i].p, v[i].n);
        ck_assert_msg(rel_diff(got, want) <= 1e-10,
                      "k=%u p=%g n=%u: %.17g, GSL %.17g", v[i].k, v[i].p,
                      v[i].n, got, want);
    }
    gsl_set_error_handler(old);
}
END_TEST

START_TEST(binom_law_pmf)
{
    /* the law's tail is cm_binom_q's, its P(X = k) GSL's pdf, on every
     * branch (X's side by the complement and by the tail, Y's side, GSL,
     * the edges k >= n, p = 0 and 1) */
    static const double ps[] = {0, 1e-6, 1.0 / 1024, 0.01, 0.3, 0.5, 0.9,
                                0.999, 1};
    static const unsigned ns[] = {0, 1, 8, 9, 30, 100, 5000, 100000};
    static const unsigned ks[] = {0, 1, 7, 8, 9, 29, 50, 99, 4990, 99999};
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    for (size_t a = 0; a < sizeof ps / sizeof *ps; a++) {
        cm_binom_law b;
        cm_binom_law_init(&b, ps[a]);
        for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
            for (size_t j = 0; j < sizeof ks / sizeof *ks; j++) {
                unsigned n = ns[i], k = ks[j];
                double pmf, q = cm_binom_law_q(&b, k, n, &pmf),
                            want = gsl_ran_binomial_pdf(k, ps[a], n);
                ck_assert_msg(q == cm_binom_q(k, ps[a], n), "k=%u p=%g n=%u",
                              k, ps[a], n);
                /* GSL's pdf is the less accurate: 2.3e-10 off mpmath
                 * on this grid, the law's 4.8e-14 */
                ck_assert_msg(rel_diff(pmf, want) <= 1e-9,
                              "k=%u p=%g n=%u: pmf %.17g, GSL %.17g", k,
                              ps[a], n, pmf, want);
            }
    }
    gsl_set_error_handler(old);
    /* mpmath, 40 digits; GSL's pdf is 1.8e-10 off */
    cm_binom_law b;
    double pmf;
    cm_binom_law_init(&b, 1e-6);
    cm_binom_law_q(&b, 7, 100000, &pmf);
    ck_assert_msg(rel_diff(pmf, 1.794947828049010417e-11) <= 1e-13, "%.17g",
                  pmf);
}
END_TEST

Suite *suite_binom(void)
{
    Suite *s = suite_create("binom");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, binom_matches_gsl);
    tcase_add_test(tc, binom_exact_values);
    tcase_add_test(tc, binom_edges);
    tcase_add_test(tc, binom_tiny_tails);
    tcase_add_test(tc, binom_law_pmf);
    suite_add_tcase(s, tc);
    return s;
}
