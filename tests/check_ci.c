/* check_ci.c - batch-means and ratio intervals against hand computations.
 *
 * The t quantiles are typed in from a printed table (to 17 digits from an
 * independent evaluation), so a wrong level, a one-sided quantile or an
 * off-by-one in the degrees of freedom all show. */
#include <math.h>

#include "solvers/ci.h"
#include "tests/testutil.h"

#define T975_1 12.706204736174707
#define T975_3 3.182446305284263
#define T975_4 2.7764451051977987

START_TEST(test_t_quantile)
{
    ck_assert_close(cm_ci_t_quantile(0.95, 1), T975_1, 1e-12);
    ck_assert_close(cm_ci_t_quantile(0.95, 4), T975_4, 1e-12);
    ck_assert_close(cm_ci_t_quantile(0.90, 4), 2.1318467863266499, 1e-12);
    /* Toward the normal quantile as the degrees of freedom grow. */
    ck_assert_close(cm_ci_t_quantile(0.95, 1e7), 1.959963984540054, 1e-6);
    ck_assert(isnan(cm_ci_t_quantile(1.0, 4)));
    ck_assert(isnan(cm_ci_t_quantile(0.95, 0)));
}
END_TEST

START_TEST(test_batch_means)
{
    /* mean 11, s^2 = (1 + 1 + 4 + 0 + 4) / 4 = 2.5, half = t s / sqrt 5. */
    const double x[] = {10, 12, 9, 11, 13};
    double half = T975_4 * sqrt(2.5) / sqrt(5.0);
    cm_ci ci;
    cm_ci_mean(x, 1, 5, 0.95, &ci);
    ck_assert_close(ci.value, 11, 1e-15);
    ck_assert_close(ci.lo, 11 - half, 1e-12);
    ck_assert_close(ci.hi, 11 + half, 1e-12);
    ck_assert_close(cm_ci_halfwidth(&ci), half, 1e-12);

    /* Every other value of an interleaved array: 10, 9, 13. */
    const double xy[] = {10, -1, 9, -1, 13, -1};
    cm_ci_mean(xy, 2, 3, 0.95, &ci);
    ck_assert_close(ci.value, 32.0 / 3, 1e-15);

    /* One window: the value, but no interval; none: nothing. */
    cm_ci_mean(x, 1, 1, 0.95, &ci);
    ck_assert(ci.value == 10 && isnan(ci.lo) && isnan(ci.hi));
    cm_ci_mean(x, 1, 0, 0.95, &ci);
    ck_assert(isnan(ci.value) && isnan(ci.lo));
}
END_TEST

START_TEST(test_ratio_estimator)
{
    /* Equal denominators: R = 10/40, residuals -0.5 0.5 -1.5 1.5, so
     * s = sqrt(5/3) / 10 and half = t3 s / 2 (batch means of 0.2 .. 0.4). */
    const double num[] = {2, 3, 1, 4}, den[] = {10, 10, 10, 10};
    cm_ci ci;
    cm_ci_ratio(num, den, 1, 4, 0.95, &ci);
    double half = T975_3 * sqrt(5.0 / 3) / 10 / 2;
    ck_assert_close(ci.value, 0.25, 1e-15);
    ck_assert_close(ci.hi - ci.value, half, 1e-12);
    ck_assert_close(ci.value - ci.lo, half, 1e-12);

    /* Unequal: R = 5/8, residuals -0.25 0.25, s = sqrt(0.125) / 4. */
    const double n2[] = {1, 4}, d2[] = {2, 6};
    cm_ci_ratio(n2, d2, 1, 2, 0.95, &ci);
    ck_assert_close(ci.value, 0.625, 1e-15);
    ck_assert_close(cm_ci_halfwidth(&ci), T975_1 * sqrt(0.125) / 4 / sqrt(2.0),
                    1e-12);

    const double zero[] = {0, 0};
    cm_ci_ratio(n2, zero, 1, 2, 0.95, &ci);
    ck_assert(isnan(ci.value));
}
END_TEST

START_TEST(test_relative_error)
{
    ck_assert_close(cm_rel_error(1.1, 1.0), 0.1, 1e-12);
    ck_assert_close(cm_rel_error(-0.5, -1.0), 0.5, 1e-15);
    ck_assert(cm_rel_error(0, 0) == 0);
    ck_assert(cm_rel_error(1, 0) == INFINITY);
    ck_assert(cm_rel_error(-1, 0) == -INFINITY);
    const double est[] = {1.1, 0.8, 2}, ref[] = {1, 1, 2};
    double mare, mx;
    cm_rel_error_summary(est, ref, 3, &mare, &mx);
    ck_assert_close(mare, 0.1, 1e-12);
    ck_assert_close(mx, 0.2, 1e-12);
    cm_rel_error_summary(est, ref, 0, &mare, &mx);
    ck_assert(isnan(mare) && isnan(mx));
}
END_TEST

/* The Poisson interval of a count, against closed forms: with 2 degrees
 * of freedom chi2(p; 2) / 2 = -ln(1 - p), so n = 0 gives [0, -ln 0.025]
 * and n = 1's lower end is -ln 0.975; the rest are tabulated (Garwood
 * 1936; e.g. n = 1: 5.5716, n = 10: [4.7954, 18.3904]).  The interval
 * holds n and narrows relative to it as n grows, to 1e8 events. */
START_TEST(test_poisson_interval)
{
    double lo, hi;
    cm_ci_poisson95(0, &lo, &hi);
    ck_assert_double_eq(lo, 0);
    ck_assert_double_eq_tol(hi, -log(0.025), 1e-9);
    cm_ci_poisson95(1, &lo, &hi);
    ck_assert_double_eq_tol(lo, -log(0.975), 1e-9);
    ck_assert_double_eq_tol(hi, 5.5716, 1e-4);
    cm_ci_poisson95(10, &lo, &hi);
    ck_assert_double_eq_tol(lo, 4.7954, 1e-4);
    ck_assert_double_eq_tol(hi, 18.3904, 1e-4);
    /* past 100 events the cube: continuous there (within 1e-4), finite
     * where GSL's quantile fails (2316, 10797 events), and at 1e7 the
     * normal interval */
    double elo, ehi;
    cm_ci_poisson95(100, &elo, &ehi);
    cm_ci_poisson95(100 * (1 + 1e-12), &lo, &hi);
    ck_assert_double_eq_tol(lo / elo, 1, 1e-4);
    ck_assert_double_eq_tol(hi / ehi, 1, 1e-4);
    cm_ci_poisson95(2316, &lo, &hi);
    ck_assert(lo > 2200 && hi < 2420);
    cm_ci_poisson95(10797, &lo, &hi);
    ck_assert(lo > 10580 && hi < 11010);
    cm_ci_poisson95(1e7, &lo, &hi);
    ck_assert_double_eq_tol(lo, 1e7 - 1.959964 * sqrt(1e7), 2);
    ck_assert_double_eq_tol(hi, 1e7 + 1.959964 * sqrt(1e7) + 1, 2);
    double prev = INFINITY;
    for (double n = 1; n <= 1e8; n *= 10) {
        cm_ci_poisson95(n, &lo, &hi);
        ck_assert(lo < n && n < hi);
        ck_assert((hi - lo) / n < prev);
        prev = (hi - lo) / n;
    }
}
END_TEST

Suite *suite_ci(void)
{
    Suite *s = suite_create("ci");
    TCase *tc = tcase_create("ci");
    tcase_add_test(tc, test_t_quantile);
    tcase_add_test(tc, test_batch_means);
    tcase_add_test(tc, test_ratio_estimator);
    tcase_add_test(tc, test_relative_error);
    tcase_add_test(tc, test_poisson_interval);
    suite_add_tcase(s, tc);
    return s;
}
