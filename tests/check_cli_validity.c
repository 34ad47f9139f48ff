/* check_cli_validity.c - model results carry their error estimates (issue
 * 26, item 3): `cohmod model mshr|recall|lifetime` add, beside each column
 * a validation measures, its held-out error where the row lies in a
 * validated region and an empty cell with "outside: why" where it does
 * not; --validity none adds nothing; the shipped table is found and read;
 * and a plot of the result shades the error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/table.h"
#include "tests/testutil.h"

#define HEADER "model,protocol,quantity,output,measure,preset,workload," \
               "scope,region,machine,heldout_points,error\n"

static void run_ok(tu_run r)
{
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    tu_run_free(&r);
}

/* The MSHR model's table: an error where l1.mshrs and the inputs are in
 * the box on tc2013, none beyond; --validity none: the model's columns
 * only. */
START_TEST(test_model_mshr_estimates)
{
    char *dir = tu_tmpdir();
    char *v = tu_write_file(
        dir, "v.csv",
        HEADER "mshr,no-coh,occupancy,mean_occupancy,mare,tc2013,all,whole,"
               "l1.mshrs=8:64 wl.mem_rate=0.05:0.2,sim.max_cycles=300000,"
               "30,0.08\n"
               "mshr,no-coh,p_full,p_full,mean_abs_error,tc2013,all,whole,"
               "l1.mshrs=8:64 wl.mem_rate=0.05:0.2,,30,0.04\n"
               "mshr,no-coh,p_full,p_full,mean_abs_error,li2014,all,whole,"
               "l1.mshrs=8:64 wl.mem_rate=0.05:0.2,,30,0.5\n");
    run_ok(tu_cohmodf("model mshr --sweep l1.mshrs=4,16,64,128 --validity "
                      "%s --out %s/m.csv", v, dir));
    cm_table *t = tu_read_table(dir, "m.csv");
    ck_assert_str_eq(tu_cell(t, 0, "mean_occupancy_rel_err"), "");
    ck_assert_ptr_nonnull(strstr(tu_cell(t, 0, "mean_occupancy_domain"),
                                 "outside: l1.mshrs=4"));
    for (size_t i = 1; i < 3; i++) {
        ck_assert(tu_num(t, i, "mean_occupancy_rel_err") == 0.08);
        ck_assert(tu_num(t, i, "p_full_abs_err") == 0.04);
        ck_assert_ptr_nonnull(strstr(tu_cell(t, i, "p_full_domain"),
                                     "tc2013"));
    }
    ck_assert_str_eq(tu_cell(t, 3, "p_full_abs_err"), "");
    cm_table_free(t);
    /* li2014's machine gets li2014's error */
    run_ok(tu_cohmodf("model mshr --config li2014 --set l1.mshrs=16 "
                      "--validity %s --out %s/l.csv", v, dir));
    t = tu_read_table(dir, "l.csv");
    ck_assert(tu_num(t, 0, "p_full_abs_err") == 0.5);
    cm_table_free(t);
    /* another machine is outside, and says where it differs */
    run_ok(tu_cohmodf("model mshr --set l2.latency=500 --validity %s --out "
                      "%s/o.csv", v, dir));
    t = tu_read_table(dir, "o.csv");
    ck_assert_ptr_nonnull(strstr(tu_cell(t, 0, "p_full_domain"),
                                 "l2.latency=500"));
    cm_table_free(t);
    /* none: no estimate columns; the pmf has none either */
    run_ok(tu_cohmodf("model mshr --validity none --out %s/n.csv", dir));
    t = tu_read_table(dir, "n.csv");
    ck_assert(cm_table_col_find(t, "p_full_abs_err") < 0);
    cm_table_free(t);
    run_ok(tu_cohmodf("model mshr --pmf --validity %s --out %s/p.csv", v,
                      dir));
    t = tu_read_table(dir, "p.csv");
    ck_assert_uint_eq(cm_table_ncols(t), 2);
    cm_table_free(t);
    /* the plot of the result shades the error where it holds */
    run_ok(tu_cohmodf("model mshr --sweep l1.mshrs=4,8,16,32,64,128 "
                      "--validity %s --out %s/s.csv", v, dir));
    run_ok(tu_cohmodf("plot %s/s.csv --x l1.mshrs --y p_full --out %s/s.svg",
                      dir, dir));
    char *p = tu_path_in(dir, "s.svg");
    char *svg = tu_read_file(p, NULL);
    ck_assert_ptr_nonnull(strstr(svg, "fill-opacity:0.22"));
    free(svg);
    free(p);
    free(v);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* Profile models: recall's rows name their protocol; lifetime's lifetime
 * column is the protocol's lifetime parameter. */
START_TEST(test_profile_models_estimates)
{
    char *dir = tu_tmpdir();
    run_ok(tu_cohmodf("sim --workload bh --protocol gpu-vini --set "
                      "sim.max_cycles=20000 --profile-out %s/prof.csv --out "
                      "%s/s.csv", dir, dir));
    char *v = tu_write_file(
        dir, "v.csv",
        HEADER "recall,gpu-vini,recalls_per_access,recall_msgs_per_access,"
               "mare,tc2013,all,whole,dir.ratio=1:4 dir.ways=8:16,,20,0.12\n"
               "lifetime,tcs,stall_cycles,store_stall_shared,mare,tc2013,"
               "all,whole,tc.lifetime_strong=400:2000,,20,0.3\n"
               "lifetime,tcw-fixed,p_hit,p_hit,mean_abs_error,tc2013,all,"
               "whole,tc.lifetime_weak=1000:8000,,20,0.02\n");
    run_ok(tu_cohmodf("model recall --profile %s/prof.csv --protocol "
                      "gpu-vini --sweep dir.ratio=2,8 --validity %s --out "
                      "%s/r.csv", dir, v, dir));
    cm_table *t = tu_read_table(dir, "r.csv");
    ck_assert(tu_num(t, 0, "recall_msgs_per_access_rel_err") == 0.12);
    ck_assert_str_eq(tu_cell(t, 1, "recall_msgs_per_access_rel_err"), "");
    cm_table_free(t);
    run_ok(tu_cohmodf("model recall --profile %s/prof.csv --protocol gpu-vi "
                      "--validity %s --out %s/g.csv", dir, v, dir));
    t = tu_read_table(dir, "g.csv");
    ck_assert_ptr_nonnull(strstr(tu_cell(t, 0,
                                         "recall_msgs_per_access_domain"),
                                 "no validation"));
    cm_table_free(t);
    run_ok(tu_cohmodf("model lifetime --profile %s/prof.csv --lifetimes "
                      "500,1500,4000 --validity %s --out %s/l.csv", dir, v,
                      dir));
    t = tu_read_table(dir, "l.csv");
    /* TCS's stall at L = 500 and 1500, not 4000 */
    ck_assert(tu_num(t, 0, "store_stall_shared_rel_err") == 0.3);
    ck_assert(tu_num(t, 1, "store_stall_shared_rel_err") == 0.3);
    ck_assert_str_eq(tu_cell(t, 2, "store_stall_shared_rel_err"), "");
    /* TCW-FIXED's hits at 1500 and 4000, not 500 */
    ck_assert_str_eq(tu_cell(t, 0, "p_hit_abs_err"), "");
    ck_assert(tu_num(t, 2, "p_hit_abs_err") == 0.02);
    cm_table_free(t);
    free(v);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* Without --validity the shipped table is read: every validated column
 * has its estimate columns, and each row is inside a region or says why
 * not. */
START_TEST(test_shipped_table)
{
    tu_run r = tu_cohmod("model mshr --sweep l1.mshrs=8,32");
    ck_assert_msg(r.status == 0, "%s", r.err);
    cm_table *t = NULL;
    cm_err err = {0};
    ck_assert(!cm_table_read_buffer("out", r.out, strlen(r.out), &t, &err));
    for (size_t i = 0; i < cm_table_nrows(t); i++) {
        const char *d = tu_cell(t, i, "p_full_domain");
        const char *e = tu_cell(t, i, "p_full_abs_err");
        ck_assert_msg(!strncmp(d, "outside: ", 9) == !*e,
                      "row %zu: error '%s' with domain '%s'", i, e, d);
    }
    cm_table_free(t);
    tu_run_free(&r);
    tu_expect_rejected("model mshr --validity /nonexistent.csv",
                       "/nonexistent.csv");
}
END_TEST

Suite *suite_cli_validity(void)
{
    Suite *s = suite_create("cli_validity");
    TCase *tc = tcase_create("validity");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_model_mshr_estimates);
    tcase_add_test(tc, test_profile_models_estimates);
    tcase_add_test(tc, test_shipped_table);
    suite_add_tcase(s, tc);
    return s;
}
