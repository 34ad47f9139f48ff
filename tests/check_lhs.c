/* check_lhs.c - sliced Latin hypercube designs (solvers/lhs.h): the
 * stratification that makes them Latin, over all points and within every
 * slice, and seeds as designs. */
#include <stdlib.h>
#include <string.h>

#include "solvers/lhs.h"
#include "tests/testutil.h"

/* Whether floor(u[i] * n) over the n values at stride is a permutation of
 * 0..n-1: one value in each of n equal strata. */
static int latin(const double *u, size_t n, size_t stride)
{
    char *seen = calloc(n, 1);
    int ok = seen != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        double x = u[i * stride];
        size_t k = (size_t)(x * (double)n);
        ok = x >= 0 && x < 1 && k < n && !seen[k];
        if (ok) seen[k] = 1;
    }
    free(seen);
    return ok;
}

START_TEST(test_every_dimension_latin_overall_and_per_slice)
{
    static const size_t shapes[][3] = {{1, 7, 3}, {50, 4, 2}, {24, 9, 3},
                                       {3, 1, 2}, {2, 100, 1}};
    for (size_t c = 0; c < sizeof shapes / sizeof *shapes; c++) {
        size_t S = shapes[c][0], m = shapes[c][1], d = shapes[c][2];
        double *u = malloc(S * m * d * sizeof *u);
        cm_err err = {0};
        ck_assert_int_eq(cm_lhs_sliced(42, S, m, d, u, &err), CM_OK);
        for (size_t k = 0; k < d; k++) {
            ck_assert_msg(latin(u + k, S * m, d),
                          "%zux%zu, dim %zu: not Latin overall", S, m, k);
            for (size_t s = 0; s < S; s++)
                ck_assert_msg(latin(u + s * m * d + k, m, d),
                              "%zux%zu, dim %zu: slice %zu not Latin", S, m,
                              k, s);
        }
        free(u);
    }
}
END_TEST

START_TEST(test_uniform_draws_are_not_latin)
{
    /* The check above can fail: independent uniform draws (what a design
     * without strata would be) leave strata empty. */
    double u[64];
    unsigned long long x = 99;
    for (size_t i = 0; i < 64; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        u[i] = (double)(x >> 11) / 9007199254740992.0;
    }
    ck_assert(!latin(u, 64, 1));
}
END_TEST

START_TEST(test_seed_is_the_design)
{
    double a[60], b[60], c[60];
    cm_err err = {0};
    ck_assert_int_eq(cm_lhs_sliced(1, 5, 4, 3, a, &err), CM_OK);
    ck_assert_int_eq(cm_lhs_sliced(1, 5, 4, 3, b, &err), CM_OK);
    ck_assert_int_eq(cm_lhs_sliced(2, 5, 4, 3, c, &err), CM_OK);
    ck_assert_int_eq(memcmp(a, b, sizeof a), 0);
    size_t same = 0;
    for (size_t i = 0; i < 60; i++) same += a[i] == c[i];
    ck_assert_uint_eq(same, 0);
    /* no dimension is a copy of another */
    size_t dup = 0;
    for (size_t i = 0; i < 20; i++) dup += a[3 * i] == a[3 * i + 1];
    ck_assert_uint_eq(dup, 0);
}
END_TEST

START_TEST(test_empty_design_is_an_error)
{
    double u[1];
    cm_err err = {0};
    ck_assert_int_eq(cm_lhs_sliced(1, 0, 4, 1, u, &err), CM_EINPUT);
    ck_assert_int_eq(cm_lhs_sliced(1, 4, 0, 1, u, &err), CM_EINPUT);
    ck_assert_int_eq(cm_lhs_sliced(1, 4, 2, 0, u, &err), CM_OK);
}
END_TEST

Suite *suite_lhs(void)
{
    Suite *s = suite_create("lhs");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_every_dimension_latin_overall_and_per_slice);
    tcase_add_test(tc, test_uniform_draws_are_not_latin);
    tcase_add_test(tc, test_seed_is_the_design);
    tcase_add_test(tc, test_empty_design_is_an_error);
    suite_add_tcase(s, tc);
    return s;
}
