/* check_cli.c - end-to-end tests of the cohmod binary: dispatch, help,
 * params and model, and the error contract (one line, exit 2, no file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/testutil.h"

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

START_TEST(test_help_everywhere)
{
    tu_run r = tu_cohmod("--help");
    ck_assert_int_eq(r.status, 0);
    const char *cmds[] = {"params", "model", "queue", "plot",
                          "study",  "reuse", "mrc",   "cache",
                          "sim"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        ck_assert_msg(strstr(r.out, cmds[i]) != NULL, "%s not listed",
                      cmds[i]);
        char args[64];
        snprintf(args, sizeof args, "%s --help", cmds[i]);
        tu_run h = tu_cohmod(args);
        ck_assert_msg(h.status == 0, "%s --help exit %d", cmds[i], h.status);
        ck_assert_msg(strstr(h.out, "Usage: cohmod") != NULL, "%s", cmds[i]);
        ck_assert_msg(strstr(h.out, "--config") != NULL, "%s", cmds[i]);
        tu_run_free(&h);
    }
    tu_run_free(&r);
    r = tu_cohmod("frobnicate");
    ck_assert_int_eq(r.status, 2);
    ck_assert_uint_eq(tu_count_lines(r.err), 1);
    tu_run_free(&r);
    r = tu_cohmod("params --bogus");
    ck_assert_int_eq(r.status, 2);
    tu_run_free(&r);
}
END_TEST

START_TEST(test_params_lists_registry)
{
    tu_run r = tu_cohmod("params --csv --set l1.mshrs=64 --config li2014");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "name,value,default,range,unit,help"));
    /* --set applies after --config whatever the order on the line */
    ck_assert_ptr_nonnull(strstr(r.out, "l1.mshrs,64,128,1..100000,entries"));
    ck_assert_ptr_nonnull(strstr(r.out, "sched.policy,gto,lrr"));
    tu_run_free(&r);
    r = tu_cohmod("params");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "l2.latency"));
    tu_run_free(&r);
}
END_TEST

START_TEST(test_params_errors)
{
    struct { const char *args, *needle; } cases[] = {
        {"params --set l1.mshrs=0", "1..100000"},
        {"params --set l1.mshrz=4", "unknown parameter 'l1.mshrz'"},
        {"params --set l1.mshrs=4x", "not a number"},
        {"params --config /nonexistent/m.csv", "/nonexistent/m.csv"},
        {"params --config nosuch", "no such preset"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r = tu_cohmod(cases[i].args);
        ck_assert_msg(r.status == 2, "%s: exit %d", cases[i].args, r.status);
        ck_assert_msg(strstr(r.err, cases[i].needle) != NULL, "%s: '%s'",
                      cases[i].args, r.err);
        ck_assert_uint_eq(tu_count_lines(r.err), 1);
        ck_assert_str_eq(r.out, "");
        tu_run_free(&r);
    }
}
END_TEST

START_TEST(test_model_mshr_sweep_writes_csv_and_dump)
{
    char *dir = tu_tmpdir();
    char args[4300], path[4200];
    snprintf(args, sizeof args,
             "model mshr --sweep l1.mshrs=8:32:8 --sweep "
             "wl.mem_rate=0.01,0.05 --out %s/m.csv",
             dir);
    tu_run r = tu_cohmod(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    snprintf(path, sizeof path, "%s/m.csv", dir);
    char *csv = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(csv);
    ck_assert_uint_eq(tu_count_lines(csv), 9); /* header + 4 x 2 */
    ck_assert_ptr_nonnull(
        strstr(csv, "l1.mshrs,wl.mem_rate,mean_occupancy,p_full,"));
    free(csv);
    snprintf(path, sizeof path, "%s/m.params.csv", dir);
    char *dump = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(dump);
    ck_assert_ptr_nonnull(strstr(dump, "l2.latency,340,cycles"));
    free(dump);
    unlink(path);
    snprintf(path, sizeof path, "%s/m.csv", dir);
    unlink(path);
    rmdir(dir);
    free(dir);
    tu_run_free(&r);
}
END_TEST

START_TEST(test_model_mshr_is_deterministic_and_pmf_sums)
{
    tu_run a = tu_cohmod("model mshr --sweep sched.active_warps=8:48:8");
    tu_run b = tu_cohmod("model mshr --sweep sched.active_warps=8:48:8");
    ck_assert_int_eq(a.status, 0);
    ck_assert_str_eq(a.out, b.out);
    tu_run_free(&a);
    tu_run_free(&b);
    tu_run p = tu_cohmod("model mshr --pmf --set l1.mshrs=16");
    ck_assert_int_eq(p.status, 0);
    ck_assert_uint_eq(tu_count_lines(p.out), 18);
    double sum = 0;
    for (char *line = strchr(p.out, '\n') + 1; *line;) {
        char *comma = strchr(line, ',');
        sum += strtod(comma + 1, NULL);
        line = strchr(line, '\n') + 1;
    }
    ck_assert_close(sum, 1.0, 1e-9);
    tu_run_free(&p);
}
END_TEST

START_TEST(test_model_errors_leave_no_file)
{
    char *dir = tu_tmpdir();
    char args[4300], path[4200];
    snprintf(args, sizeof args,
             "model mshr --sweep l1.mshrs=8:4:1 --out %s/x.csv", dir);
    tu_run r = tu_cohmod(args);
    ck_assert_int_eq(r.status, 2);
    snprintf(path, sizeof path, "%s/x.csv", dir);
    ck_assert(!file_exists(path));
    tu_run_free(&r);
    r = tu_cohmod("model mshr --out /nonexistent-dir/x.csv");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "/nonexistent-dir/x.csv"));
    ck_assert_uint_eq(tu_count_lines(r.err), 1);
    tu_run_free(&r);
    r = tu_cohmod("model nosuch");
    ck_assert_int_eq(r.status, 2);
    tu_run_free(&r);
    r = tu_cohmod("model mshr --set sched.active_warps=64");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "gpu.warps_per_sm"));
    tu_run_free(&r);
    rmdir(dir);
    free(dir);
}
END_TEST

Suite *suite_cli(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("e2e");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_help_everywhere);
    tcase_add_test(tc, test_params_lists_registry);
    tcase_add_test(tc, test_params_errors);
    tcase_add_test(tc, test_model_mshr_sweep_writes_csv_and_dump);
    tcase_add_test(tc, test_model_mshr_is_deterministic_and_pmf_sums);
    tcase_add_test(tc, test_model_errors_leave_no_file);
    suite_add_tcase(s, tc);
    return s;
}
