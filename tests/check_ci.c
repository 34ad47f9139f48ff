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

Suite *suite_ci(void)
{
    Suite *s = suite_create("ci");
    TCase *tc = tcase_create("ci");
    tcase_add_test(tc, test_t_quantile);
    tcase_add_test(tc, test_batch_means);
    tcase_add_test(tc, test_ratio_estimator);
    tcase_add_test(tc, test_relative_error);
    suite_add_tcase(s, tc);
    return s;
}
