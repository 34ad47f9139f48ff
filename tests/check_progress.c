/* check_progress.c - the one progress bar (data/progress.h) and the
 * commands drawing it (issue 23, item 9): it reaches 100% of the work
 * actually done, ends its line before anything else is printed, starts a
 * line per step, and is silent under --quiet or when stderr is not a
 * terminal.  The CLI cases run the binary with stderr on a
 * pseudo-terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/progress.h"
#include "tests/testutil.h"

/* Feeds reports, returns everything the bar wrote (static buffer). */
static const char *feed(cm_progress_bar *b, const size_t (*r)[2], size_t n)
{
    static char all[8192];
    size_t k = 0;
    all[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char text[256];
        size_t len = cm_progress_bar_report(b, r[i][0], r[i][1], text,
                                            sizeof text);
        ck_assert_uint_eq(len, strlen(text));
        ck_assert(k + len < sizeof all);
        memcpy(all + k, text, len + 1);
        k += len;
    }
    return all;
}

START_TEST(test_bar_reaches_its_total_and_ends_its_line)
{
    cm_progress_bar b;
    cm_progress_bar_init(&b, "runs", 0);
    const size_t r[][2] = {{1, 4}, {2, 4}, {2, 4}, {3, 4}, {4, 4}};
    const char *t = feed(&b, r, 5);
    ck_assert_ptr_nonnull(strstr(t, " 25% 1/4 runs"));
    ck_assert_ptr_nonnull(strstr(t, "100% 4/4 runs\n"));
    ck_assert_uint_eq(tu_count_lines(t), 1);     /* one line, ended */
    const char *two = strstr(t, "2/4 runs"); /* drawn once, not redrawn */
    ck_assert(two && !strstr(two + 1, "2/4 runs"));
    char end[256];
    ck_assert_uint_eq(cm_progress_bar_finish(&b, 1, end, sizeof end), 0);
}
END_TEST

/* The simulator bar stopped at 18% of sim.max_cycles when the
 * workload ended, and the summary was glued onto it.  At the end the bar
 * shows the work that was done as all of it, and ends its line. */
START_TEST(test_bar_finish_after_an_early_end)
{
    cm_progress_bar b;
    cm_progress_bar_init(&b, "sim", 0);
    const size_t r[][2] = {{1000000, 50000000}, {9200000, 50000000}};
    const char *t = feed(&b, r, 2);
    ck_assert_ptr_nonnull(strstr(t, " 18% 9200000/50000000 sim"));
    ck_assert_uint_eq(tu_count_lines(t), 0); /* still open */
    char end[256];
    ck_assert_uint_gt(cm_progress_bar_finish(&b, 1, end, sizeof end), 0);
    ck_assert_msg(strstr(end, "100% 9200000/9200000 sim\n"), "%s", end);
    /* a failure ends the line without claiming anything */
    cm_progress_bar_init(&b, "sim", 0);
    feed(&b, r, 1);
    cm_progress_bar_finish(&b, 0, end, sizeof end);
    ck_assert_str_eq(end, "\n");
}
END_TEST

START_TEST(test_bar_steps_and_bytes)
{
    /* a file of 100 MB read in two passes: a percentage of its bytes, a
     * line per pass, the first ended as done when the second starts */
    cm_progress_bar b;
    cm_progress_bar_init(&b, "t.lackey", 100000000);
    const size_t r[][2] = {{50000000, 0}, {99000000, 0}, {10000000, 0},
                           {100000000, 0}};
    const char *t = feed(&b, r, 4);
    ck_assert_ptr_nonnull(strstr(t, " 50% 50000000/100000000 t.lackey"));
    ck_assert_ptr_nonnull(strstr(t, "100% 100000000/100000000 t.lackey\n"));
    ck_assert_ptr_nonnull(
        strstr(t, "100% 100000000/100000000 t.lackey, step 2\n"));
    ck_assert_uint_eq(tu_count_lines(t), 2);
    /* no known size: megabytes read, and the line ends at the finish */
    cm_progress_bar_init(&b, NULL, 0);
    const size_t u[][2] = {{3 << 20, 0}};
    t = feed(&b, u, 1);
    ck_assert_ptr_nonnull(strstr(t, "3.1 MB read"));
    char end[256];
    cm_progress_bar_finish(&b, 1, end, sizeof end);
    ck_assert_ptr_nonnull(strstr(end, "MB read\n"));
    /* steps with their own totals: each line ends, the last at 100% */
    cm_progress_bar_init(&b, "study", 0);
    const size_t s[][2] = {{5, 10}, {1, 3}, {3, 3}};
    t = feed(&b, s, 3);
    ck_assert_ptr_nonnull(strstr(t, "100% 5/5 study\n"));
    ck_assert_ptr_nonnull(strstr(t, "100% 3/3 study, step 2\n"));
}
END_TEST

/* The size of $COHMOD_TRACES/ls.lackey. */
static size_t trace_size(const char *dir)
{
    char *p = tu_path_in(dir, "ls.lackey");
    size_t len = 0;
    char *bytes = tu_read_file(p, &len);
    free(bytes);
    free(p);
    return len;
}

/* The text written before `what` on a terminal: it must start a line. */
static void assert_own_line(const char *err, const char *what)
{
    const char *p = strstr(err, what);
    ck_assert_msg(p != NULL, "no '%s' in: %s", what, err);
    ck_assert_msg(p == err || p[-1] == '\n', "'%s' glued onto: %.*s", what,
                  (int)(p - err), err);
}

#define TINY "--set gpu.sms=1 --set gpu.warps_per_sm=8 " \
             "--set sched.active_warps=8"

START_TEST(test_cli_bars_on_a_terminal)
{
    char *dir = tu_tmpdir(), args[4096];
    /* a workload that ends long before sim.max_cycles (50M) */
    tu_run r = tu_cohmod_tty("sim --workload bfs " TINY);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.err, "] 100% "), "%s", r.err);
    assert_own_line(r.err, "cohmod sim: ");
    const char *last = strstr(r.err, "] 100% ");
    ck_assert_ptr_null(strstr(last, "/50000000 sim")); /* of what ran */
    tu_run_free(&r);
    /* a rate is said only where it has a value: no "0.00 M.../s" */
    r = tu_cohmod_tty("sim --workload bh --protocol tcw " TINY
                      " --set sim.max_cycles=20000");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_null(strstr(r.err, "Mevents/s"));
    tu_run_free(&r);
#define VGRID "validate mshr --grid mshrs=4,8 --grid warps=2,4,8 " \
              "--workloads kmn " TINY " --set sim.max_cycles=5000 "
    snprintf(args, sizeof args, VGRID "--out %s/v", dir);
    r = tu_cohmod_tty(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.err, "100% 6/6 runs of validate mshr\r\n"), "%s",
                  r.err);
    assert_own_line(r.err, "cohmod validate: ");
    tu_run_free(&r);
    /* --quiet: nothing at all */
    snprintf(args, sizeof args, VGRID "--quiet --out %s/q", dir);
    r = tu_cohmod_tty(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.err, "");
    tu_run_free(&r);
    /* a trace read twice: a line per pass, each to 100% of the file */
    const char *traces = getenv("COHMOD_TRACES");
    ck_assert_ptr_nonnull(traces);
    snprintf(args, sizeof args, "mrc %s/ls.lackey --exact --sample "
             "shards:0.5", traces);
    r = tu_cohmod_tty(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    char whole[64]; /* the file's size, of which both passes read all */
    snprintf(whole, sizeof whole, "/%zu ls.lackey", trace_size(traces));
    const char *a = strstr(r.err, whole), *b = a ? strstr(a + 1, whole) : NULL;
    ck_assert_msg(a && b, "no %s", whole);
    ck_assert_msg(strstr(r.err, "] 100% ") &&
                      strstr(r.err, " ls.lackey\r\n") &&
                      strstr(r.err, " ls.lackey shards:0.5\r\n"),
                  "%.200s", r.err);
    assert_own_line(r.err, "cohmod mrc: ");
    tu_run_free(&r);
    r = tu_cohmod_tty("reuse tests/data/traces/ls.lackey --quiet");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_null(strchr(r.err, '['));
    tu_run_free(&r);
    /* an error after a bar starts its own line too */
    r = tu_cohmod_tty(VGRID "--out /proc/cohmod-x");
    ck_assert_int_eq(r.status, 2);
    assert_own_line(r.err, "cohmod validate: ");
    tu_run_free(&r);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* Not a terminal (every other test): no bar, no carriage return. */
START_TEST(test_cli_no_bar_off_a_terminal)
{
    tu_run r = tu_cohmod("mrc tests/data/traces/ls.lackey --exact --sample "
                         "shards:0.5");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_null(strchr(r.err, '\r'));
    tu_run_free(&r);
    r = tu_cohmod("sim --workload bfs " TINY);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_null(strchr(r.err, '\r'));
    ck_assert_uint_eq(tu_count_lines(r.err), 1);
    tu_run_free(&r);
}
END_TEST

Suite *suite_progress(void)
{
    Suite *s = suite_create("progress");
    TCase *tc = tcase_create("bar");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_bar_reaches_its_total_and_ends_its_line);
    tcase_add_test(tc, test_bar_finish_after_an_early_end);
    tcase_add_test(tc, test_bar_steps_and_bytes);
    tcase_add_test(tc, test_cli_bars_on_a_terminal);
    tcase_add_test(tc, test_cli_no_bar_off_a_terminal);
    suite_add_tcase(s, tc);
    return s;
}
