/* check_cli_queue.c - `cohmod queue` end to end: the CSV it prints carries
 * the solvers' figures, help works, and bad input is one line and exit 2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/table.h"
#include "solvers/queue.h"
#include "tests/testutil.h"

/* A run that must have succeeded quietly: its stdout as a table. */
static cm_table *table_of(tu_run r)
{
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.err, "");
    cm_table *t;
    cm_err err = {0};
    ck_assert_msg(cm_table_read_buffer("stdout", r.out, strlen(r.out), &t,
                                       &err) == CM_OK,
                  "%s", err.msg);
    tu_run_free(&r);
    return t;
}
#define csv_of(...) table_of(tu_cohmodf(__VA_ARGS__))

/* The one-line failure contract: exit 2, nothing on stdout, one line on
 * stderr containing `want`. */
static void assert_fails(tu_run r, const char *want)
{
    ck_assert_msg(r.status == 2, "exit %d, stderr: %s", r.status, r.err);
    ck_assert_str_eq(r.out, "");
    ck_assert_msg(tu_count_lines(r.err) == 1, "stderr: %s", r.err);
    ck_assert_msg(strstr(r.err, want) != NULL, "'%s' lacks '%s'", r.err,
                  want);
    tu_run_free(&r);
}
#define fails(want, ...) assert_fails(tu_cohmodf(__VA_ARGS__), want)

#define TOL 1e-14

START_TEST(queue_help)
{
    static const char *const models[] = {"erlang-b", "erlang-c", "mmck",
                                         "engset",   "mmckn",    "mva",
                                         "md1",      "mg1"};
    tu_run r = tu_cohmod("queue --help");
    ck_assert_int_eq(r.status, 0);
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        ck_assert_msg(strstr(r.out, models[i]) != NULL, "%s", models[i]);
        tu_run h = tu_cohmodf("queue %s --help", models[i]);
        ck_assert_msg(h.status == 0, "%s --help exit %d", models[i],
                      h.status);
        char usage[64];
        snprintf(usage, sizeof usage, "Usage: cohmod queue %s", models[i]);
        ck_assert_msg(strstr(h.out, usage) != NULL, "%s", h.out);
        ck_assert_ptr_nonnull(strstr(h.out, "--config"));
        tu_run_free(&h);
    }
    tu_run_free(&r);
    r = tu_cohmod("queue erlang-b --help");
    ck_assert_ptr_nonnull(strstr(r.out, "--servers C"));
    ck_assert_ptr_nonnull(strstr(r.out, "--load A"));
    ck_assert_ptr_null(strstr(r.out, "--capacity"));
    tu_run_free(&r);
}
END_TEST

START_TEST(queue_erlang_b)
{
    cm_table *t = csv_of("queue erlang-b --servers 10 --load 5");
    double b;
    cm_err err;
    ck_assert_int_eq(cm_erlang_b(10, 5.0, &b, &err), CM_OK);
    ck_assert_uint_eq(cm_table_nrows(t), 1);
    ck_assert_close(tu_num(t, 0, "blocking"), b, TOL);
    ck_assert_close(tu_num(t, 0, "carried_load"), 5.0 * (1 - b), TOL);
    ck_assert_close(tu_num(t, 0, "lost_load"), 5.0 * b, TOL);
    cm_table_free(t);

    t = csv_of("queue erlang-b --servers 2 --load 1");
    ck_assert_close(tu_num(t, 0, "blocking"), 0.2, TOL);
    cm_table_free(t);

    t = csv_of("queue erlang-b --servers 7.5 --load 6");
    ck_assert_int_eq(cm_erlang_b_real(7.5, 6.0, &b, &err), CM_OK);
    ck_assert_close(tu_num(t, 0, "blocking"), b, TOL);
    cm_table_free(t);
}
END_TEST

START_TEST(queue_erlang_c)
{
    cm_table *t = csv_of("queue erlang-c --servers 2 --arrival 3 --service 3");
    ck_assert_close(tu_num(t, 0, "p_wait"), 1.0 / 3, TOL);
    ck_assert_close(tu_num(t, 0, "load"), 1.0, TOL);
    /* Wq = C / (c mu - lambda) = (1/3) / 3. */
    ck_assert_close(tu_num(t, 0, "mean_wait"), 1.0 / 9, TOL);
    ck_assert_close(tu_num(t, 0, "mean_resp"), 1.0 / 9 + 1.0 / 3, TOL);
    cm_table_free(t);
}
END_TEST

/* Issue 23, item 10: every formula that depends only on the offered load
 * takes --load, as the references state it (service rate 1, times in mean
 * service times), and any two of arrival, service and load fix the third.
 * References: Erlang B by its recursion, Erlang C from it, C = c B / (c -
 * a (1 - B)), and Pollaczek-Khinchine Wq = rho s (1 + scv) / (2 (1 - rho)). */
START_TEST(queue_load_alone)
{
    const double a = 5, c = 10;
    double b = 1;
    for (int k = 1; k <= (int)c; k++) b = a * b / (k + a * b);
    double erlang_c = c * b / (c - a * (1 - b));
    cm_table *t = csv_of("queue erlang-c --servers 10 --load 5");
    ck_assert_close(tu_num(t, 0, "p_wait"), erlang_c, 1e-12);
    ck_assert_close(tu_num(t, 0, "mean_wait"), erlang_c / (c - a), 1e-12);
    ck_assert_close(tu_num(t, 0, "service"), 1.0, 0);
    cm_table_free(t);
    /* the same queue stated with rates in other units */
    t = csv_of("queue erlang-c --servers 10 --load 5 --service 4");
    ck_assert_close(tu_num(t, 0, "arrival"), 20.0, TOL);
    ck_assert_close(tu_num(t, 0, "p_wait"), erlang_c, 1e-12);
    ck_assert_close(tu_num(t, 0, "mean_wait"), erlang_c / (c - a) / 4, 1e-12);
    cm_table_free(t);
    t = csv_of("queue erlang-c --servers 10 --load 5 --arrival 20");
    ck_assert_close(tu_num(t, 0, "service"), 4.0, TOL);
    cm_table_free(t);
    /* M/M/c/c is Erlang's loss system */
    t = csv_of("queue mmck --servers 10 --capacity 10 --load 5");
    ck_assert_close(tu_num(t, 0, "p_block"), b, 1e-12);
    cm_table_free(t);
    t = csv_of("queue md1 --load 0.5");
    ck_assert_close(tu_num(t, 0, "mean_wait"), 0.5 / (2 * 0.5), 1e-12);
    cm_table_free(t);
    t = csv_of("queue mg1 --load 0.5 --service 2 --scv 1");
    ck_assert_close(tu_num(t, 0, "arrival"), 0.25, TOL);
    ck_assert_close(tu_num(t, 0, "mean_wait"), 0.5 * 2 * 2 / (2 * 0.5), 1e-12);
    cm_table_free(t);
    t = csv_of("queue mmckn --servers 2 --capacity 4 --sources 5 "
               "--load-per-source 0.3");
    cm_table *u = csv_of("queue mmckn --servers 2 --capacity 4 --sources 5 "
                         "--arrival 0.3 --service 1");
    ck_assert_close(tu_num(t, 0, "p_block"), tu_num(u, 0, "p_block"), TOL);
    cm_table_free(t);
    cm_table_free(u);
    fails("give two of --arrival, --service and --load",
          "queue erlang-c --servers 2 --load 1 --arrival 1 --service 1");
    fails("missing --load (or --arrival and --service)",
          "queue md1");
}
END_TEST

START_TEST(queue_mmck_and_pmf)
{
    cm_queue_metrics m;
    double pmf[7];
    cm_err err;
    ck_assert_int_eq(cm_mmck_solve(2, 6, 2.5, 1.0, pmf, &m, &err), CM_OK);
    cm_table *t = csv_of(
        "queue mmck --servers 2 --capacity 6 --arrival 2.5 --service 1");
    ck_assert_close(tu_num(t, 0, "p_block"), m.p_block, TOL);
    ck_assert_close(tu_num(t, 0, "throughput"), m.throughput, TOL);
    ck_assert_close(tu_num(t, 0, "mean_n"), m.mean_n, TOL);
    ck_assert_close(tu_num(t, 0, "mean_wait"), m.mean_wait, TOL);
    cm_table_free(t);

    t = csv_of(
        "queue mmck --pmf --servers 2 --capacity 6 --arrival 2.5 --service 1");
    ck_assert_uint_eq(cm_table_nrows(t), 7);
    for (size_t n = 0; n < 7; n++) {
        ck_assert_close(tu_num(t, n, "n"), (double)n, 0);
        ck_assert_close(tu_num(t, n, "p"), pmf[n], TOL);
    }
    ck_assert_close(tu_num(t, 6, "cdf"), 1.0, 1e-15);
    cm_table_free(t);
}
END_TEST

START_TEST(queue_engset_and_mmckn)
{
    double tc, cc;
    cm_err err;
    ck_assert_int_eq(cm_engset(3, 10, 0.5, &tc, &cc, &err), CM_OK);
    cm_table *t = csv_of(
        "queue engset --servers 3 --sources 10 --load-per-source 0.5");
    ck_assert_close(tu_num(t, 0, "time_congestion"), tc, TOL);
    ck_assert_close(tu_num(t, 0, "call_congestion"), cc, TOL);
    cm_table_free(t);

    cm_queue_metrics m;
    ck_assert_int_eq(cm_mmckn_solve(4, 12, 30, 0.2, 1.5, NULL, &m, &err),
                     CM_OK);
    t = csv_of("queue mmckn --servers 4 --capacity 12 --sources 30 "
                  "--arrival 0.2 --service 1.5");
    ck_assert_close(tu_num(t, 0, "p_block"), m.p_block, TOL);
    ck_assert_close(tu_num(t, 0, "throughput"), m.throughput, TOL);
    ck_assert_close(tu_num(t, 0, "mean_resp"), m.mean_resp, TOL);
    ck_assert_close(tu_num(t, 0, "sources"), 30, 0);
    cm_table_free(t);

    t = csv_of("queue mmckn --pmf --servers 4 --capacity 12 --sources 30 "
                  "--arrival 0.2 --service 1.5");
    ck_assert_uint_eq(cm_table_nrows(t), 13);
    cm_table_free(t);
}
END_TEST

START_TEST(queue_mg1)
{
    /* M/D/1 at rho = 0.8, s = 1: Wq = 0.8 / (2 x 0.2) = 2. */
    cm_table *t = csv_of("queue md1 --arrival 0.8 --service 1");
    ck_assert_close(tu_num(t, 0, "mean_wait"), 2.0, TOL);
    ck_assert_close(tu_num(t, 0, "mean_q"), 1.6, TOL);
    ck_assert_close(tu_num(t, 0, "util"), 0.8, TOL);
    cm_table_free(t);
    t = csv_of("queue mg1 --arrival 0.8 --service 1 --scv 1");
    ck_assert_close(tu_num(t, 0, "mean_wait"), 4.0, TOL);
    ck_assert_close(tu_num(t, 0, "mean_resp"), 5.0, TOL);
    cm_table_free(t);
}
END_TEST

START_TEST(queue_mva)
{
    char *dir = tu_tmpdir();
    char *path = tu_write_file(dir, "net.csv",
                               "name,type,demand\n"
                               "a,queue,1\n"
                               "\"b, the slow one\",queue,2\n"
                               "think,delay,0\n");
    cm_table *t = csv_of("queue mva --stations %s --population 2", path);
    ck_assert_uint_eq(cm_table_nrows(t), 4);
    ck_assert_str_eq(cm_table_cell(t, 1, 0), "b, the slow one");
    ck_assert_close(tu_num(t, 0, "throughput"), 3.0 / 7, TOL);
    ck_assert_close(tu_num(t, 0, "queue_len"), 4.0 / 7, TOL);
    ck_assert_close(tu_num(t, 1, "queue_len"), 10.0 / 7, TOL);
    ck_assert_close(tu_num(t, 1, "util"), 6.0 / 7, TOL);
    ck_assert_str_eq(cm_table_cell(t, 3, 0), "total");
    ck_assert_close(tu_num(t, 3, "queue_len"), 2.0, TOL);
    ck_assert_close(tu_num(t, 3, "residence"), 14.0 / 3, TOL);
    cm_table_free(t);

    /* --out: the file and the parameter dump beside it, nothing on stdout */
    tu_run r = tu_cohmodf("queue mva --stations %s --population 2 --out %s/res.csv",
                path, dir);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "");
    tu_run_free(&r);
    char p[4200];
    snprintf(p, sizeof p, "%s/res.csv", dir);
    char *body = tu_read_file(p, NULL);
    ck_assert_ptr_nonnull(body);
    ck_assert_ptr_nonnull(strstr(body, "total,,3,,2,"));
    free(body);
    unlink(p);
    snprintf(p, sizeof p, "%s/res.params.csv", dir);
    ck_assert_int_eq(access(p, R_OK), 0);
    unlink(p);
    unlink(path);
    free(path);
    rmdir(dir);
    free(dir);
}
END_TEST

START_TEST(queue_mva_bad_files)
{
    char *dir = tu_tmpdir();
    static const struct { const char *text, *want; } bad[] = {
        {"name,type,demand\ncpu,queue,1\ndisk,qeue,2\n",
         "bad.csv:3:6: column 'type': expected queue or delay, got 'qeue'"},
        {"name,type,demand\ncpu,queue,fast\n", "bad.csv:2:11: column "
                                                "'demand'"},
        {"name,type,demand\ncpu,queue,-1\n", "bad.csv:2:11: column 'demand'"},
        {"name,kind,demand\ncpu,queue,1\n", "bad.csv:1:1: missing column "
                                             "'type'"},
        {"name,type,demand\ncpu,queue\n", "bad.csv:2:"},
        {"name,type,demand\n", "bad.csv:2:1: no stations"},
        {"name,type,demand\ncpu,queue,0\n", "every demand is 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *path = tu_write_file(dir, "bad.csv", bad[i].text);
        fails(bad[i].want, "queue mva --stations %s --population 3", path);
        unlink(path);
        free(path);
    }
    fails("missing.csv", "queue mva --stations %s/missing.csv --population 3",
          dir);
    rmdir(dir);
    free(dir);
}
END_TEST

START_TEST(queue_bad_usage)
{
    static const struct { const char *args, *want; } bad[] = {
        {"queue", "which model?"},
        {"queue erlang-z --servers 1", "unknown model 'erlang-z'"},
        {"queue erlang-b --servers ten --load 5",
         "--servers: expected a number >= 0, got 'ten'"},
        {"queue erlang-b --servers 10 --load -5", "--load: expected a number"},
        {"queue erlang-b --servers 10 --load 5x", "got '5x'"},
        {"queue erlang-b --servers 10 --load nan", "got 'nan'"},
        {"queue erlang-b --servers 10", "missing --load"},
        {"queue erlang-c --servers 2.5 --arrival 1 --service 2",
         "--servers: expected a whole number"},
        {"queue erlang-c --servers 2 --arrival 1", "missing --service"},
        {"queue mmck --servers 2 --capacity 4 --arrival 1 --service 0",
         "service rate must be"},
        {"queue mmck --servers 4 --capacity 3 --arrival 1 --service 1",
         "capacity 3 < servers 4"},
        {"queue erlang-c --servers 10 --arrival 12 --service 1",
         "load 12 >= servers 10: the queue is unstable"},
        {"queue mg1 --arrival 2 --service 0.5", "utilisation 1 >= 1"},
        {"queue engset --servers 3 --sources 2 --load-per-source 1",
         "servers 3 > sources 2"},
        {"queue mmckn --servers 2 --capacity 9 --sources 5 --arrival 1 "
         "--service 1",
         "capacity 9 > sources 5"},
        {"queue erlang-b --servers 2 --load 1 --capacity 4",
         "--capacity does not apply to erlang-b"},
        {"queue erlang-b --servers 2 --load", "'--load'"},
        {"queue erlang-b --servers 2 --load 1 --bogus", "'--bogus'"},
        {"queue erlang-b --servers 2 --load 1 stray", "'stray'"},
        {"queue mva --stations x.csv --population 1e12", "too large"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        fails(bad[i].want, "%s", bad[i].args);
}
END_TEST

Suite *suite_cli_queue(void)
{
    Suite *s = suite_create("cli_queue");
    TCase *tc = tcase_create("queue");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, queue_help);
    tcase_add_test(tc, queue_erlang_b);
    tcase_add_test(tc, queue_erlang_c);
    tcase_add_test(tc, queue_load_alone);
    tcase_add_test(tc, queue_mmck_and_pmf);
    tcase_add_test(tc, queue_engset_and_mmckn);
    tcase_add_test(tc, queue_mg1);
    tcase_add_test(tc, queue_mva);
    tcase_add_test(tc, queue_mva_bad_files);
    tcase_add_test(tc, queue_bad_usage);
    suite_add_tcase(s, tc);
    return s;
}
