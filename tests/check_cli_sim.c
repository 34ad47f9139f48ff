/* check_cli_sim.c - `cohmod sim` end to end on a small machine: every
 * protocol runs to completion, output is byte-identical for a seed, the
 * conservation check holds (it is inside the run: a broken one exits 1),
 * the metric names scripts rely on are present, and bad input fails
 * cleanly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/table.h"
#include "tests/testutil.h"

#define SMALL "--set gpu.sms=2 --set gpu.warps_per_sm=8 " \
              "--set sched.active_warps=8 --quiet"

static double metric(const char *csv, const char *name, const char *comp)
{
    cm_table *t = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_read_buffer("stats", csv, strlen(csv), &t, &err),
                     CM_OK);
    double v = -1;
    for (size_t r = 0; r < cm_table_nrows(t); r++)
        if (!strcmp(cm_table_cell(t, r, 0), name) &&
            !strcmp(cm_table_cell(t, r, 1), comp))
            ck_assert_int_eq(cm_table_get_double(t, r, 2, &v, &err), CM_OK);
    cm_table_free(t);
    return v;
}

START_TEST(test_sim_small_machine_every_protocol)
{
    const char *protos[] = {"no-l1", "no-coh", "wt"};
    double l1_miss[3];
    for (int i = 0; i < 3; i++) {
        char args[512];
        snprintf(args, sizeof args, "sim --workload bfs --protocol %s " SMALL,
                 protos[i]);
        tu_run r = tu_cohmod(args);
        ck_assert_msg(r.status == 0, "%s: %s", protos[i], r.err);
        ck_assert_ptr_nonnull(strstr(r.out, "metric,component,value,ci95_lo,"
                                            "ci95_hi\n"));
        const char *names[] = {"ipc", "l1.miss_ratio", "l2.miss_ratio",
                               "l1.mshr.occupancy_mean",
                               "l1.mshr.full_fraction",
                               "l1.reservation_fail.mshr", "noc.flits",
                               "roundtrip.latency_mean"};
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
            ck_assert_msg(metric(r.out, names[k], "all") >= 0, "%s missing",
                          names[k]);
        ck_assert(metric(r.out, "ipc", "all") > 0);
        ck_assert(metric(r.out, "ipc", "sm1") > 0);
        l1_miss[i] = metric(r.out, "l1.miss_ratio", "all");
        tu_run_free(&r);
    }
    /* NO-L1 never hits; the caching protocols do on BFS's reuse. */
    ck_assert_double_eq(l1_miss[0], 1.0);
    ck_assert(l1_miss[1] < 1.0 && l1_miss[2] < 1.0);
}
END_TEST

START_TEST(test_sim_is_deterministic)
{
    tu_run a = tu_cohmod("sim --workload cc --seed 7 " SMALL);
    tu_run b = tu_cohmod("sim --workload cc --seed 7 " SMALL);
    tu_run c = tu_cohmod("sim --workload cc --seed 8 " SMALL);
    ck_assert_int_eq(a.status, 0);
    ck_assert_str_eq(a.out, b.out);
    ck_assert_str_ne(a.out, c.out);
    tu_run_free(&a);
    tu_run_free(&b);
    tu_run_free(&c);
}
END_TEST

START_TEST(test_sim_lists_and_rejects)
{
    tu_run r = tu_cohmod("sim --list-workloads");
    ck_assert_int_eq(r.status, 0);
    ck_assert_uint_eq(tu_count_lines(r.out), 26); /* header + 25 profiles */
    ck_assert_ptr_nonnull(strstr(r.out, "\nkmn,"));
    ck_assert_ptr_nonnull(strstr(r.out, "\nsssp,"));
    tu_run_free(&r);
    struct { const char *args, *needle; } bad[] = {
        {"sim --workload nosuch", "no such built-in"},
        {"sim --workload bfs --protocol mesi", "--protocol"},
        {"sim --workload bfs --sched fifo", "sched.policy"},
        {"sim", "which workload"},
        {"sim --workload /nonexistent.csv", "/nonexistent.csv"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = tu_cohmod(bad[i].args);
        ck_assert_msg(r.status == 2, "%s: exit %d", bad[i].args, r.status);
        ck_assert_msg(strstr(r.err, bad[i].needle) != NULL, "%s: %s",
                      bad[i].args, r.err);
        ck_assert_uint_eq(tu_count_lines(r.err), 1);
        tu_run_free(&r);
    }
}
END_TEST

Suite *suite_cli_sim(void)
{
    Suite *s = suite_create("cli_sim");
    TCase *tc = tcase_create("e2e");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_sim_small_machine_every_protocol);
    tcase_add_test(tc, test_sim_is_deterministic);
    tcase_add_test(tc, test_sim_lists_and_rejects);
    suite_add_tcase(s, tc);
    return s;
}
