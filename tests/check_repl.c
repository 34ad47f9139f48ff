/* check_repl.c - the replacement and insertion policies (sim/repl.h): the
 * registry is l1.policy's choices in order, and each policy orders lines
 * as it says: LRU by last use, FIFO by fill, random uniformly and the same
 * for the same stream. */
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "data/params.h"
#include "sim/repl.h"
#include "tests/testutil.h"

START_TEST(test_registry_is_the_parameter)
{
    const cm_param_info *pi = cm_param_find("l1.policy");
    ck_assert_ptr_nonnull(pi);
    char want[256] = "";
    for (size_t i = 0; cm_repl_at(i); i++) {
        const cm_repl_policy *r = cm_repl_at(i);
        ck_assert(r->insert && r->hit && r->victim && *r->summary);
        ck_assert_ptr_eq(cm_repl_find(r->name), r);
        strcat(want, i ? "|" : "");
        strcat(want, r->name);
    }
    ck_assert_str_eq(pi->choices, want);
    ck_assert_ptr_null(cm_repl_find("plru"));
}
END_TEST

/* Lines a, b, c filled in that order, then a hit: LRU evicts b, FIFO a. */
static size_t victim_after_hit(const char *name)
{
    const cm_repl_policy *r = cm_repl_find(name);
    cm_repl_state st = {0};
    cm_repl_meta m[3] = {{0}};
    cm_repl_ctx a = {.warp = 7, .now = 1};
    for (int i = 0; i < 3; i++) r->insert(&st, &m[i], &a);
    r->hit(&st, &m[0], &a);
    const cm_repl_meta *cand[3] = {&m[0], &m[1], &m[2]};
    ck_assert_uint_eq(m[2].warp, 7);
    return r->victim(&st, cand, 3);
}

START_TEST(test_lru_and_fifo_order)
{
    ck_assert_uint_eq(victim_after_hit("lru"), 1);
    ck_assert_uint_eq(victim_after_hit("fifo"), 0);
}
END_TEST

/* Random: each of 4 candidates about a quarter of 40000 draws (4 sigma is
 * 0.0087), and the same draws from the same seed. */
START_TEST(test_random_is_uniform_and_seeded)
{
    const cm_repl_policy *r = cm_repl_find("random");
    cm_repl_meta m[4] = {{0}};
    const cm_repl_meta *cand[4] = {&m[0], &m[1], &m[2], &m[3]};
    size_t count[4] = {0}, first[2][16];
    for (int run = 0; run < 2; run++) {
        cm_repl_state st = {.rng = gsl_rng_alloc(gsl_rng_taus2)};
        gsl_rng_set(st.rng, 42);
        for (int i = 0; i < 40000; i++) {
            size_t v = r->victim(&st, cand, 4);
            ck_assert_uint_lt(v, 4);
            if (i < 16) first[run][i] = v;
            if (!run) count[v]++;
        }
        gsl_rng_free(st.rng);
    }
    ck_assert_mem_eq(first[0], first[1], sizeof first[0]);
    for (int k = 0; k < 4; k++)
        ck_assert_double_eq_tol((double)count[k] / 40000, 0.25, 0.0087);
}
END_TEST

Suite *suite_repl(void)
{
    Suite *s = suite_create("repl");
    TCase *tc = tcase_create("policies");
    tcase_add_test(tc, test_registry_is_the_parameter);
    tcase_add_test(tc, test_lru_and_fifo_order);
    tcase_add_test(tc, test_random_is_uniform_and_seeded);
    suite_add_tcase(s, tc);
    return s;
}
