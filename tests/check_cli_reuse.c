/* check_cli_reuse.c - `cohmod reuse`, `mrc` and `cache` end to end on a
 * trace small enough to check by hand.
 *
 * Lines (64 B) A B A C B A: stack distances cold, cold, 1, cold, 2, 2.
 *  - histogram: d=1 once, d=2 twice, cold 3 of 6;
 *  - fully associative LRU miss ratio: 1 line 6/6, 2 lines 5/6, 3 lines 3/6;
 *  - a 2-line LRU cache: miss miss hit miss miss miss = 5 of 6, and so
 *    is a 2-set 2-way one: A, B and C share set 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/table.h"
#include "tests/testutil.h"

static const char trace_text[] =
    "==123== Lackey, an example Valgrind tool\n"
    "I  04000000,3\n"
    " L 00001000,8\n"  /* A */
    " S 00002008,4\n"  /* B */
    "I  04000003,2\n"
    " L 00001010,8\n"  /* A */
    " M 00003000,4\n"  /* C */
    " L 00002000,8\n"  /* B */
    " S 00001038,8\n"; /* A */

static char *dir, *trace;

static void setup(void)
{
    dir = tu_tmpdir();
    trace = tu_write_file(dir, "t.lackey", trace_text);
}

static void teardown(void)
{
    tu_rm_tree(dir);
    free(dir);
    free(trace);
}

static cm_table *run_table(const char *fmt)
{
    char args[8192];
    snprintf(args, sizeof args, fmt, trace);
    tu_run r = tu_cohmod(args);
    ck_assert_msg(r.status == 0, "%s: %s", args, r.err);
    cm_table *t = NULL;
    cm_err err = {0};
    ck_assert_msg(cm_table_read_buffer("out", r.out, strlen(r.out), &t,
                                       &err) == CM_OK, "%s", err.msg);
    tu_run_free(&r);
    return t;
}

static double cell(const cm_table *t, size_t row, const char *col)
{
    size_t c;
    double v;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_col_require(t, col, &c, &err), CM_OK);
    ck_assert_int_eq(cm_table_get_double(t, row, c, &v, &err), CM_OK);
    return v;
}

static long row_where(const cm_table *t, const char *col, const char *value)
{
    long c = cm_table_col_find(t, col);
    ck_assert_int_ge(c, 0);
    for (size_t r = 0; r < cm_table_nrows(t); r++)
        if (strcmp(cm_table_cell(t, r, (size_t)c), value) == 0) return (long)r;
    return -1;
}

START_TEST(test_reuse_histogram_by_hand)
{
    cm_table *t = run_table("reuse %s --line 64");
    /* rows: d=1, d=2, cold */
    ck_assert_uint_eq(cm_table_nrows(t), 3);
    ck_assert_double_eq(cell(t, 0, "distance_lo"), 1);
    ck_assert_double_eq(cell(t, 0, "count"), 1);
    ck_assert_double_eq(cell(t, 1, "distance_lo"), 2);
    ck_assert_double_eq(cell(t, 1, "count"), 2);
    ck_assert_str_eq(cm_table_cell(t, 2, 1), "cold");
    ck_assert_double_eq(cell(t, 2, "count"), 3);
    ck_assert_close(cell(t, 2, "fraction"), 0.5, 1e-15);
    cm_table_free(t);
    /* loads only: A, A, B -> cold, cold, d=1... A B: A cold, A d=0, B cold */
    t = run_table("reuse %s --line 64 --ops load");
    ck_assert_uint_eq(cm_table_nrows(t), 2);
    ck_assert_double_eq(cell(t, 0, "distance_lo"), 0);
    ck_assert_double_eq(cell(t, 1, "count"), 2);
    cm_table_free(t);
}
END_TEST

START_TEST(test_mrc_and_geometry_by_hand)
{
    cm_table *t = run_table("mrc %s --line 64 --points 1");
    /* capacities 1, 2, 4, ... lines */
    ck_assert_double_eq(cell(t, 0, "capacity_lines"), 1);
    ck_assert_close(cell(t, 0, "miss_ratio"), 1.0, 1e-15);
    ck_assert_double_eq(cell(t, 1, "capacity_lines"), 2);
    ck_assert_close(cell(t, 1, "miss_ratio"), 5.0 / 6, 1e-15);
    ck_assert_double_eq(cell(t, 1, "capacity_bytes"), 128);
    cm_table_free(t);
    t = run_table("mrc %s --line 64 --sets 1,2 --ways 2");
    ck_assert_uint_eq(cm_table_nrows(t), 2);
    ck_assert_str_eq(cm_table_colname(t, 1), "sets");
    ck_assert_close(cell(t, 0, "miss_ratio_fa"), 5.0 / 6, 1e-15);
    ck_assert_close(cell(t, 0, "miss_ratio_setlocal"), 5.0 / 6, 1e-12);
    ck_assert_close(cell(t, 0, "miss_ratio_setassoc"), 5.0 / 6, 1e-12);
    ck_assert_close(cell(t, 0, "miss_ratio_binomial"), 5.0 / 6, 1e-12);
    ck_assert_double_eq(cell(t, 1, "capacity_lines"), 4);
    /* A, B and C all map to set 0 of 2: the set-local distances are the
     * stack distances, so 2 ways miss 5 of 6; the binomial places d = 2
     * lines at random, both in A's set with probability 1/4: 3.5 of 6.
     * The occupancy model sees every window share one set, so it gives
     * the exact 5 of 6. */
    ck_assert_close(cell(t, 1, "miss_ratio_setlocal"), 5.0 / 6, 1e-12);
    ck_assert_close(cell(t, 1, "miss_ratio_setassoc"), 5.0 / 6, 1e-12);
    ck_assert_close(cell(t, 1, "miss_ratio_binomial"), 3.5 / 6, 1e-12);
    cm_table_free(t);
}
END_TEST

START_TEST(test_cache_by_hand)
{
    cm_table *t = run_table("cache %s --size 128 --ways 2 --line 64");
    long all = row_where(t, "op", "all");
    ck_assert_int_ge(all, 0);
    ck_assert_double_eq(cell(t, (size_t)all, "accesses"), 6);
    ck_assert_double_eq(cell(t, (size_t)all, "misses"), 5);
    ck_assert_double_eq(cell(t, (size_t)all, "hits"), 1);
    long modify = row_where(t, "op", "modify");
    ck_assert_double_eq(cell(t, (size_t)modify, "accesses"), 1);
    ck_assert_uint_eq(cm_table_nrows(t), 5); /* 4 ops + all */
    /* no atomic in the trace: its miss ratio is empty, not nan (issue 23,
     * item 2) */
    long atomic = row_where(t, "op", "atomic");
    ck_assert_double_eq(cell(t, (size_t)atomic, "accesses"), 0);
    ck_assert_str_eq(cm_table_cell(t, (size_t)atomic,
                                   (size_t)cm_table_col_find(t, "miss_ratio")),
                     "");
    cm_table_free(t);
    /* 4 lines hold everything: only the 3 cold misses remain */
    t = run_table("cache %s --size 256 --ways 4 --line 64");
    ck_assert_double_eq(cell(t, (size_t)row_where(t, "op", "all"), "misses"),
                        3);
    cm_table_free(t);
}
END_TEST

START_TEST(test_plot_and_sampled_curves)
{
    char args[8192];
    snprintf(args, sizeof args,
             "mrc %s --line 64 --exact --sample shards:1 --plot %s/m.png "
             "--out %s/m.csv", trace, dir, dir);
    tu_run r = tu_cohmod(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    /* SHARDS at rate 1 is exact, so its error is 0, and so is its
     * sampling error: the interval is the point. */
    ck_assert_ptr_nonnull(strstr(r.err, "mean absolute error 0.0000 over 100"));
    ck_assert_ptr_nonnull(strstr(r.err, "half-width (jackknife) 0.0000"));
    char *csv = tu_path_in(dir, "m.csv");
    cm_table *t = NULL;
    cm_err err = {0};
    ck_assert_msg(cm_table_read_file(csv, &t, &err) == CM_OK, "%s", err.msg);
    for (size_t i = 0; i < cm_table_nrows(t); i++) {
        ck_assert_double_eq(cell(t, i, "ci95_lo"), cell(t, i, "miss_ratio"));
        ck_assert_double_eq(cell(t, i, "ci95_hi"), cell(t, i, "miss_ratio"));
    }
    cm_table_free(t);
    free(csv);
    char *png = tu_path_in(dir, "m.png");
    size_t len = 0;
    char *bytes = tu_read_file(png, &len);
    ck_assert(bytes && len > 1000 && memcmp(bytes, "\x89PNG", 4) == 0);
    free(bytes);
    free(png);
    tu_run_free(&r);
}
END_TEST

START_TEST(test_errors)
{
    struct { const char *args, *needle; } cases[] = {
        {"reuse %s --sample shards:2", "shards"},
        {"reuse %s --per core", "--per"},
        {"reuse %s --ops loads", "--ops"},
        {"reuse %s --format bogus", "bogus"},
        {"reuse %s.missing", "missing"},
        {"mrc %s --sets 4", "--sets and --ways"},
        {"mrc %s --sets 0 --ways 2", "--sets"},
        {"cache %s --size 100 --ways 3", "l1"},
        {"cache %s --policy plru", "lru|fifo|random"},
        {"cache %s --line 48", "power of two"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[8192];
        snprintf(args, sizeof args, cases[i].args, trace);
        tu_run r = tu_cohmod(args);
        ck_assert_msg(r.status == 2, "%s: exit %d (%s)", args, r.status,
                      r.err);
        ck_assert_msg(strstr(r.err, cases[i].needle) != NULL, "%s: '%s'",
                      args, r.err);
        ck_assert_uint_eq(tu_count_lines(r.err), 1);
        tu_run_free(&r);
    }
    char *bad = tu_write_file(dir, "bad.lackey", " L 1000,8\n L zz,8\n");
    char args[8192];
    snprintf(args, sizeof args, "reuse %s --format lackey", bad);
    tu_run r = tu_cohmod(args);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "bad.lackey:2:"));
    tu_run_free(&r);
    free(bad);
}
END_TEST

/* Issue 23, item 7: `reuse --fit` printed m_inf = 2.4e-14 and c0 =
 * 5.8e-8 lines as if measured.  A loop over 100 lines is a cliff the
 * family reaches only with alpha on its cap: the row's note and a line on
 * stderr say so, and a clean fit has an empty note. */
START_TEST(test_fit_flags_degenerate)
{
    char *text = malloc(200000), *p = text;
    ck_assert_ptr_nonnull(text);
    for (int i = 0; i < 10000; i++)
        p += sprintf(p, " L %08x,8\n", 0x10000 + (i % 100) * 64);
    char *loop = tu_write_file(dir, "loop.lackey", text);
    free(text);
    char args[8192];
    snprintf(args, sizeof args, "reuse %s --line 64 --fit", loop);
    tu_run r = tu_cohmod(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.out, "alpha (at its bound 8"), "%s", r.out);
    ck_assert_msg(strstr(r.err, "fit of stream all: ") &&
                      strstr(r.err, "alpha (at its bound 8"),
                  "%s", r.err);
    ck_assert_ptr_null(strstr(r.out, "nan"));
    tu_run_free(&r);
    free(loop);
}
END_TEST

/* Issue 23, item 2: `cache --format lackey` on an empty trace printed an
 * all-NaN table at exit 0 and `reuse empty.lackey` said it "cannot tell
 * the trace format".  Every trace command gives the one error, exit 2,
 * and writes nothing. */
START_TEST(test_empty_traces)
{
    char *files[] = {tu_write_file(dir, "empty.lackey", ""),
                     tu_write_file(dir, "banner.lackey", "==1== Lackey\n"),
                     tu_write_file(dir, "header.csv", "op,addr,size\n"),
                     tu_write_file(dir, "blank.trace", "\n\n")};
    static const char *const cmds[] = {
        "reuse %s", "reuse %s --format lackey --sample shards:0.1 --fit",
        "mrc %s --exact --sample shards:0.5", "mrc %s --sets 2 --ways 2",
        "cache %s", "cache %s --format lackey --size 256 --ways 2 --line 64",
        "sim --trace %s"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++)
        for (size_t c = 0; c < sizeof cmds / sizeof *cmds; c++) {
            if (strstr(cmds[c], "--format lackey") && f >= 2) continue;
            char args[8192], cmd[4096];
            snprintf(cmd, sizeof cmd, cmds[c], files[f]);
            snprintf(args, sizeof args, "%s --out %s/o.csv", cmd, dir);
            tu_expect_rejected(args, "the trace holds no memory accesses");
            char *o = tu_path_in(dir, "o.csv");
            ck_assert_msg(!tu_read_file(o, NULL), "%s wrote its output", cmd);
            free(o);
        }
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) free(files[f]);
}
END_TEST

Suite *suite_cli_reuse(void)
{
    Suite *s = suite_create("cli_reuse");
    TCase *tc = tcase_create("e2e");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_reuse_histogram_by_hand);
    tcase_add_test(tc, test_mrc_and_geometry_by_hand);
    tcase_add_test(tc, test_cache_by_hand);
    tcase_add_test(tc, test_plot_and_sampled_curves);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_empty_traces);
    tcase_add_test(tc, test_fit_flags_degenerate);
    suite_add_tcase(s, tc);
    return s;
}
