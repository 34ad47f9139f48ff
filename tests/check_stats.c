/* check_stats.c - the statistics registry against hand computations.
 *
 * Integrals of occupancy levels, latency moments and bins, merges and the
 * window intervals are worked out in the comments; the t quantiles are
 * typed in from a table, so the registry is not checked against itself. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/stats.h"
#include "tests/testutil.h"

#define T975_2 4.302652729911275
#define T975_3 3.182446305284263
#define T975_4 2.7764451051977987

static void ok(cm_status st, const cm_err *err)
{
    ck_assert_msg(st == CM_OK, "%s", err->msg);
}

static cm_stat *counter(cm_stats *reg, const char *name, const char *comp)
{
    cm_stat *s = NULL;
    cm_err err = {0};
    ok(cm_stats_counter(reg, name, comp, &s, &err), &err);
    return s;
}

static cm_stat *occupancy(cm_stats *reg, const char *name, const char *comp,
                          uint32_t max, const char *full)
{
    cm_stat *s = NULL;
    cm_err err = {0};
    ok(cm_stats_occupancy(reg, name, comp, max, full, &s, &err), &err);
    return s;
}

static cm_stat *latency(cm_stats *reg, const char *name, const char *comp,
                        uint32_t bins, double width)
{
    cm_stat *s = NULL;
    cm_err err = {0};
    ok(cm_stats_latency(reg, name, comp, bins, width, &s, &err), &err);
    return s;
}

/* The registry's rows, kept for lookups by row(). */
typedef struct rowset {
    cm_stat_row *rows;
    size_t n;
} rowset;

static rowset rows_of(const cm_stats *reg)
{
    rowset r;
    cm_err err = {0};
    ok(cm_stats_rows(reg, &r.rows, &r.n, &err), &err);
    return r;
}

static const cm_stat_row *row(const rowset *r, const char *metric,
                              const char *comp)
{
    const cm_stat_row *x = cm_stats_find(r->rows, r->n, metric, comp);
    ck_assert_msg(x != NULL, "no row %s/%s", metric, comp);
    return x;
}

static double value(const rowset *r, const char *metric, const char *comp)
{
    return row(r, metric, comp)->value;
}

static void assert_no_ci(const cm_stat_row *x)
{
    ck_assert_msg(isnan(x->ci95_lo) && isnan(x->ci95_hi),
                  "%s: interval without windows", x->metric);
}

START_TEST(test_counters)
{
    cm_stats *reg = cm_stats_new();
    cm_stat *a = counter(reg, "l1.accesses", "sm0");
    cm_stat *b = counter(reg, "bytes", "all");
    for (int i = 0; i < 1000; i++) cm_stat_add(a, 1);
    cm_stat_add(b, 2.5);
    cm_stat_add(b, 0.25);
    rowset r = rows_of(reg);
    ck_assert_uint_eq(r.n, 2);
    ck_assert(value(&r, "l1.accesses", "sm0") == 1000);
    ck_assert(value(&r, "bytes", "all") == 2.75);
    assert_no_ci(row(&r, "bytes", "all"));
    free(r.rows);
    cm_stats_free(reg);
}
END_TEST

START_TEST(test_occupancy_integral)
{
    cm_stats *reg = cm_stats_new();
    cm_stat *q =
        occupancy(reg, "l1.mshr.occupancy", "sm0", 3, "l1.mshr.full_fraction");
    /* 0 on [0,10), 2 on [10,15), 1 on [15,20), 3 on [20,30):
     * integral 0 + 10 + 5 + 30 = 45 over 30 cycles. */
    cm_stat_level(q, 2, 10);
    cm_stat_level(q, 1, 15);
    cm_stat_level(q, 3, 20);
    /* Levels above max: 4 on [0,10), 1 on [10,30): mean 60/30, and the
     * time at 4 counts as "max or more". */
    cm_stat *c = occupancy(reg, "clamp", "sm0", 2, NULL);
    cm_stat_level(c, 4, 0);
    cm_stat_level(c, 1, 10);
    cm_stats_sync(reg, 30);
    cm_stats_sync(reg, 20); /* going back in time charges nothing */
    rowset r = rows_of(reg);
    ck_assert_close(value(&r, "l1.mshr.occupancy_mean", "sm0"), 1.5, 1e-15);
    ck_assert_close(value(&r, "l1.mshr.occupancy.frac_at_0", "sm0"), 1.0 / 3, 1e-15);
    ck_assert_close(value(&r, "l1.mshr.occupancy.frac_at_1", "sm0"), 1.0 / 6, 1e-15);
    ck_assert_close(value(&r, "l1.mshr.occupancy.frac_at_2", "sm0"), 1.0 / 6, 1e-15);
    ck_assert_close(value(&r, "l1.mshr.occupancy.frac_at_3_or_more", "sm0"), 1.0 / 3, 1e-15);
    ck_assert_close(value(&r, "l1.mshr.full_fraction", "sm0"), 1.0 / 3, 1e-15);
    ck_assert_close(value(&r, "clamp_mean", "sm0"), 2.0, 1e-15);
    ck_assert_close(value(&r, "clamp.frac_at_1", "sm0"), 20.0 / 30, 1e-15);
    ck_assert_close(value(&r, "clamp.frac_at_2_or_more", "sm0"), 10.0 / 30, 1e-15);
    ck_assert_close(value(&r, "clamp_full_fraction", "sm0"), 10.0 / 30, 1e-15);
    assert_no_ci(row(&r, "clamp_mean", "sm0"));
    ck_assert_uint_eq(r.n, 2 + 4 + 2 + 3);
    free(r.rows);
    cm_stats_free(reg);
}
END_TEST

START_TEST(test_latency_histogram)
{
    cm_stats *reg = cm_stats_new();
    cm_stat *lg = latency(reg, "rt", "sm0", 5, 0);
    cm_stat *ln = latency(reg, "lin", "sm0", 3, 5);
    cm_stat *none = latency(reg, "none", "sm0", 2, 0);
    (void)none;
    const double x[] = {1, 2, 3, 10, 0.5, 300};
    for (int i = 0; i < 6; i++) {
        cm_stat_sample(lg, x[i]);
        cm_stat_sample(ln, x[i]);
    }
    rowset r = rows_of(reg);
    /* sum 316.5, mean 52.75; sum of squares 1 + 4 + 9 + 100 + 0.25 +
     * 90000 = 90114.25, variance 90114.25/6 - 52.75^2. */
    ck_assert(value(&r, "rt_count", "sm0") == 6);
    ck_assert_close(value(&r, "rt_mean", "sm0"), 52.75, 1e-15);
    ck_assert_close(value(&r, "rt_stddev", "sm0"),
                    sqrt(90114.25 / 6 - 52.75 * 52.75), 1e-12);
    ck_assert(value(&r, "rt_min", "sm0") == 0.5);
    ck_assert(value(&r, "rt_max", "sm0") == 300);
    /* log2 bins [0,1) [1,2) [2,4) [4,8) [8,inf): 0.5 | 1 | 2 3 | - | 10 300 */
    ck_assert_close(value(&r, "rt.frac_in_0_1", "sm0"), 1.0 / 6, 1e-15);
    ck_assert_close(value(&r, "rt.frac_in_1_2", "sm0"), 1.0 / 6, 1e-15);
    ck_assert_close(value(&r, "rt.frac_in_2_4", "sm0"), 2.0 / 6, 1e-15);
    ck_assert(value(&r, "rt.frac_in_4_8", "sm0") == 0);
    ck_assert_close(value(&r, "rt.frac_from_8", "sm0"), 2.0 / 6, 1e-15);
    /* width 5: [0,5) [5,10) [10,inf): 0.5 1 2 3 | - | 10 300 */
    ck_assert_close(value(&r, "lin.frac_in_0_5", "sm0"), 4.0 / 6, 1e-15);
    ck_assert(value(&r, "lin.frac_in_5_10", "sm0") == 0);
    ck_assert_close(value(&r, "lin.frac_from_10", "sm0"), 2.0 / 6, 1e-15);
    /* No samples: a count of 0 and nothing else to report. */
    ck_assert(value(&r, "none_count", "sm0") == 0);
    ck_assert(isnan(value(&r, "none_mean", "sm0")));
    ck_assert(isnan(value(&r, "none_stddev", "sm0")));
    ck_assert(isnan(value(&r, "none_min", "sm0")));
    free(r.rows);
    ck_assert_uint_eq(cm_stat_bin_log2(1023, 64), 10);
    ck_assert_uint_eq(cm_stat_bin_log2(1024, 64), 11);
    ck_assert_uint_eq(cm_stat_bin_log2(1e300, 64), 64);
    cm_stats_free(reg);
}
END_TEST

START_TEST(test_merge_all)
{
    cm_stats *reg = cm_stats_new();
    cm_err err = {0};
    cm_stat *acc[2], *miss[2], *occ[2], *lat[2];
    const char *comp[2] = {"sm0", "sm1"};
    for (int i = 0; i < 2; i++) {
        acc[i] = counter(reg, "l1.accesses", comp[i]);
        miss[i] = counter(reg, "l1.misses", comp[i]);
        occ[i] = occupancy(reg, "q", comp[i], 2, NULL);
        lat[i] = latency(reg, "rt", comp[i], 4, 0);
        ok(cm_stats_ratio(reg, "l1.miss_ratio", comp[i], miss[i], acc[i], &err),
           &err);
    }
    cm_stat *own = counter(reg, "cycles", "all");
    cm_stat_add(own, 100);
    cm_stat_add(acc[0], 10);
    cm_stat_add(miss[0], 1);
    cm_stat_add(acc[1], 30);
    cm_stat_add(miss[1], 9);
    cm_stat_level(occ[0], 2, 0); /* sm0 at 2 for 10 cycles, sm1 at 0 */
    cm_stat_sample(lat[0], 2);
    cm_stat_sample(lat[1], 4);
    cm_stat_sample(lat[1], 6);
    cm_stats_sync(reg, 10);
    ok(cm_stats_merge_all(reg, &err), &err);
    ok(cm_stats_merge_all(reg, &err), &err); /* rebuilt, not doubled */
    rowset r = rows_of(reg);
    ck_assert(value(&r, "l1.accesses", "all") == 40);
    ck_assert(value(&r, "cycles", "all") == 100);
    /* Pooled, not the mean of the ratios (0.1 and 0.3). */
    ck_assert_close(value(&r, "l1.miss_ratio", "all"), 10.0 / 40, 1e-15);
    ck_assert_close(value(&r, "l1.miss_ratio", "sm1"), 0.3, 1e-15);
    /* Occupancy averages over the components; samples pool. */
    ck_assert_close(value(&r, "q_mean", "all"), 1.0, 1e-15);
    ck_assert_close(value(&r, "q_full_fraction", "all"), 0.5, 1e-15);
    ck_assert_close(value(&r, "rt_mean", "all"), 4.0, 1e-15);
    ck_assert(value(&r, "rt_min", "all") == 2);
    ck_assert(value(&r, "rt_max", "all") == 6);
    /* "all" first, then the components; nothing else was added. */
    const cm_stat_row *first = row(&r, "l1.accesses", "all");
    ck_assert_str_eq(first[1].component, "sm0");
    size_t per_sm = 1 + 1 + (2 + 3) + (5 + 4) + 1;
    ck_assert_uint_eq(r.n, 3 * per_sm + 1);
    free(r.rows);

    /* Components of one metric must agree in bins. */
    cm_stat *odd = NULL;
    ok(cm_stats_occupancy(reg, "q", "sm2", 5, NULL, &odd, &err), &err);
    ck_assert_int_eq(cm_stats_merge_all(reg, &err), CM_EINTERNAL);
    ck_assert_msg(strstr(err.msg, "'q'"), "%s", err.msg);
    cm_stats_free(reg);
}
END_TEST

/* Regression: merging many ratios grows the ratio table while it is being
 * read; the "all" names must not be read from the moved table. */
START_TEST(test_merge_all_many_ratios)
{
    cm_stats *reg = cm_stats_new();
    cm_err err = {0};
    char comp[16];
    for (int i = 0; i < 16; i++) { /* fills the table to a power of two */
        snprintf(comp, sizeof comp, "sm%d", i);
        cm_stat *acc = counter(reg, "l1.accesses", comp);
        cm_stat *miss = counter(reg, "l1.misses", comp);
        cm_stat_add(acc, 4);
        cm_stat_add(miss, (double)(i % 4));
        ok(cm_stats_ratio(reg, "l1.miss_ratio", comp, miss, acc, &err),
           &err);
    }
    ok(cm_stats_merge_all(reg, &err), &err);
    rowset r = rows_of(reg);
    /* misses 4 x (0+1+2+3) = 24 over 64 accesses */
    ck_assert_close(value(&r, "l1.miss_ratio", "all"), 24.0 / 64, 1e-15);
    free(r.rows);
    cm_stats_free(reg);
}
END_TEST

START_TEST(test_window_intervals)
{
    cm_stats *reg = cm_stats_new();
    cm_err err = {0};
    cm_stat *c = counter(reg, "insts", "sm0");
    cm_stat *q = occupancy(reg, "q", "sm0", 2, NULL);
    cm_stat *acc = counter(reg, "acc", "sm0");
    cm_stat *miss = counter(reg, "miss", "sm0");
    ok(cm_stats_ratio(reg, "miss_ratio", "sm0", miss, acc, &err), &err);
    /* Five windows of 10 cycles, 10 cycles apart.  insts per window 10 12 9
     * 11 13 (mean 11, s^2 2.5); the gaps add 100 each, never counted.
     * q: level 1, 2, 0, 0, 0 (integrals 10 20 0 0 0: R = 30/50, residuals
     * 4 14 -6 -6 -6, s = sqrt(320 / 4) / 10).  miss/acc: 2/10 3/10 1/10
     * 4/10 0/10 (R = 0.2, residuals 0 1 -1 2 -2, s = sqrt(10/4) / 10). */
    const double insts[] = {10, 12, 9, 11, 13}, misses[] = {2, 3, 1, 4, 0};
    const uint32_t level[] = {1, 2, 0, 0, 0};
    for (int w = 0; w < 5; w++) {
        uint64_t t = 20 * (uint64_t)w;
        cm_stat_level(q, level[w], t);
        ok(cm_stats_window_begin(reg, t, &err), &err);
        cm_stat_add(c, insts[w]);
        cm_stat_add(acc, 10);
        cm_stat_add(miss, misses[w]);
        ok(cm_stats_window_end(reg, t + 10, &err), &err);
        cm_stat_add(c, 100);
        cm_stat_add(acc, 100);
        cm_stat_level(q, 2, t + 10);
    }
    ck_assert_uint_eq(cm_stats_windows(reg), 5);
    rowset r = rows_of(reg);
    const cm_stat_row *x = row(&r, "insts", "sm0");
    double half = T975_4 * sqrt(2.5) / sqrt(5.0);
    ck_assert_close(x->value, 55, 1e-15);
    ck_assert_close(x->ci95_lo, 5 * (11 - half), 1e-12);
    ck_assert_close(x->ci95_hi, 5 * (11 + half), 1e-12);
    x = row(&r, "q_mean", "sm0");
    half = T975_4 * sqrt(320.0 / 4) / 10 / sqrt(5.0);
    ck_assert_close(x->value, 0.6, 1e-15);
    ck_assert_close(x->ci95_hi - x->value, half, 1e-12);
    ck_assert_close(x->value - x->ci95_lo, half, 1e-12);
    x = row(&r, "miss_ratio", "sm0");
    half = T975_4 * sqrt(10.0 / 4) / 10 / sqrt(5.0);
    ck_assert_close(x->value, 0.2, 1e-15);
    ck_assert_close(x->ci95_hi, 0.2 + half, 1e-12);
    free(r.rows);

    /* Misuse is an error, not a crash. */
    ck_assert_int_eq(cm_stats_window_end(reg, 200, &err), CM_EINTERNAL);
    ok(cm_stats_window_begin(reg, 200, &err), &err);
    ck_assert_int_eq(cm_stats_window_begin(reg, 200, &err), CM_EINTERNAL);
    cm_stats_free(reg);
}
END_TEST

START_TEST(test_one_window_has_no_interval)
{
    cm_stats *reg = cm_stats_new();
    cm_err err = {0};
    cm_stat *c = counter(reg, "insts", "sm0");
    cm_stat *l = latency(reg, "rt", "sm0", 4, 0);
    cm_stat_add(c, 7);
    cm_stat_sample(l, 100); /* before the window: not measured */
    ok(cm_stats_window_begin(reg, 0, &err), &err);
    cm_stat_add(c, 3);
    cm_stat_sample(l, 2);
    cm_stat_sample(l, 4);
    ok(cm_stats_window_end(reg, 10, &err), &err);
    rowset r = rows_of(reg);
    ck_assert(value(&r, "insts", "sm0") == 3);
    assert_no_ci(row(&r, "insts", "sm0"));
    ck_assert(value(&r, "rt_count", "sm0") == 2);
    ck_assert_close(value(&r, "rt_mean", "sm0"), 3, 1e-15);
    ck_assert_close(value(&r, "rt_stddev", "sm0"), 1, 1e-15);
    assert_no_ci(row(&r, "rt_mean", "sm0"));
    free(r.rows);
    cm_stats_free(reg);
}
END_TEST

/* A registry with one counter whose windows hold the given values. */
static cm_stats *windowed(const double *v, int n, const char *comp)
{
    cm_stats *reg = cm_stats_new();
    cm_err err = {0};
    cm_stat *c = counter(reg, "n", comp);
    for (int w = 0; w < n; w++) {
        ok(cm_stats_window_begin(reg, (uint64_t)w, &err), &err);
        cm_stat_add(c, v[w]);
        ok(cm_stats_window_end(reg, (uint64_t)w + 1, &err), &err);
    }
    return reg;
}

START_TEST(test_merge_registries)
{
    const double a[] = {1, 3}, b[] = {5, 7};
    cm_stats *ra = windowed(a, 2, "sm0"), *rb = windowed(b, 2, "sm0");
    cm_err err = {0};
    ok(cm_stats_merge(ra, rb, &err), &err);
    ck_assert_uint_eq(cm_stats_windows(ra), 4);
    /* Windows 1 3 5 7: mean 4, s^2 20/3; the sum 16 has 4x the interval. */
    rowset r = rows_of(ra);
    const cm_stat_row *x = row(&r, "n", "sm0");
    double half = T975_3 * sqrt(20.0 / 3) / 2;
    ck_assert_close(x->value, 16, 1e-15);
    ck_assert_close(x->ci95_hi, 4 * (4 + half), 1e-12);
    free(r.rows);

    /* Different statistics: refused, dst untouched. */
    cm_stats *rc = windowed(b, 2, "sm1");
    ck_assert_int_eq(cm_stats_merge(ra, rc, &err), CM_EINTERNAL);
    ck_assert_msg(strstr(err.msg, "missing"), "%s", err.msg);
    ck_assert_uint_eq(cm_stats_windows(ra), 4);
    cm_stats *none = cm_stats_new();
    counter(none, "n", "sm0");
    ck_assert_int_eq(cm_stats_merge(ra, none, &err), CM_EINTERNAL);
    cm_stats_free(ra);
    cm_stats_free(rb);
    cm_stats_free(rc);
    cm_stats_free(none);
}
END_TEST

START_TEST(test_registration_errors)
{
    cm_stats *reg = cm_stats_new();
    cm_err err = {0};
    cm_stat *s, *c = counter(reg, "x", "sm0");
    ck_assert_int_eq(cm_stats_counter(reg, "x", "sm0", &s, &err), CM_EINTERNAL);
    ck_assert_msg(strstr(err.msg, "twice"), "%s", err.msg);
    ck_assert_int_eq(cm_stats_counter(reg, "a,b", "sm0", &s, &err),
                     CM_EINTERNAL);
    ck_assert_int_eq(cm_stats_counter(reg, "", "sm0", &s, &err), CM_EINTERNAL);
    char longname[CM_STAT_NAME_MAX + 2];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    ck_assert_int_eq(cm_stats_counter(reg, longname, "sm0", &s, &err),
                     CM_EINTERNAL);
    ck_assert_int_eq(cm_stats_occupancy(reg, "q", "sm0", 0, NULL, &s, &err),
                     CM_EINTERNAL);
    ck_assert_int_eq(cm_stats_latency(reg, "l", "sm0", 0, 0, &s, &err),
                     CM_EINTERNAL);
    ck_assert_int_eq(cm_stats_latency(reg, "l", "sm0", 66, 0, &s, &err),
                     CM_EINTERNAL);
    cm_stat *q = occupancy(reg, "q", "sm0", 2, NULL);
    ck_assert_int_eq(cm_stats_ratio(reg, "r", "sm0", q, c, &err), CM_EINTERNAL);
    ck_assert_int_eq(cm_stats_ratio(reg, "x", "sm0", c, c, &err), CM_EINTERNAL);
    /* A derived row may not clash with another statistic's row. */
    counter(reg, "q_mean", "sm0");
    cm_stat_row *rows;
    size_t n;
    ck_assert_int_eq(cm_stats_rows(reg, &rows, &n, &err), CM_EINTERNAL);
    ck_assert_msg(strstr(err.msg, "q_mean"), "%s", err.msg);
    cm_stats_free(reg);
}
END_TEST

/* The registry of the CSV test, built the same way every time. */
static cm_stats *small_registry(void)
{
    cm_stats *reg = cm_stats_new();
    cm_err err = {0};
    cm_stat_add(counter(reg, "l1.misses", "sm10"), 4);
    cm_stat_add(counter(reg, "l1.misses", "sm2"), 5);
    cm_stat *q = occupancy(reg, "mshr", "sm2", 1, NULL);
    cm_stat_level(q, 1, 2);
    cm_stats_sync(reg, 4);
    ok(cm_stats_merge_all(reg, &err), &err);
    return reg;
}

START_TEST(test_csv_bytes)
{
    const char *expect = "metric,component,value,ci95_lo,ci95_hi\n"
                         "l1.misses,all,9,,\n"
                         "l1.misses,sm2,5,,\n"
                         "l1.misses,sm10,4,,\n"
                         "mshr.frac_at_0,all,0.5,,\n"
                         "mshr.frac_at_0,sm2,0.5,,\n"
                         "mshr.frac_at_1_or_more,all,0.5,,\n"
                         "mshr.frac_at_1_or_more,sm2,0.5,,\n"
                         "mshr_full_fraction,all,0.5,,\n"
                         "mshr_full_fraction,sm2,0.5,,\n"
                         "mshr_mean,all,0.5,,\n"
                         "mshr_mean,sm2,0.5,,\n";
    char *dir = tu_tmpdir();
    char *p1 = tu_path_in(dir, "a.csv"), *p2 = tu_path_in(dir, "b.csv");
    cm_err err = {0};
    cm_stats *a = small_registry(), *b = small_registry();
    ok(cm_stats_write(a, p1, &err), &err);
    ok(cm_stats_write(b, p2, &err), &err);
    char *t1 = tu_read_file(p1, NULL), *t2 = tu_read_file(p2, NULL);
    ck_assert_str_eq(t1, expect);
    ck_assert_str_eq(t2, t1);
    ck_assert_int_ne(cm_stats_write(a, "/nonexistent/dir/x.csv", &err), CM_OK);
    /* Issue 23, item 2: the empty interval cells read back as NaN, as do
     * the "nan" cells older files hold, and the values are exact. */
    cm_stat_row *rows;
    size_t n;
    ok(cm_stats_read_rows(p1, &rows, &n, &err), &err);
    ck_assert_uint_eq(n, 11);
    const cm_stat_row *m = cm_stats_find(rows, n, "l1.misses", "sm10");
    ck_assert(m && m->value == 4 && isnan(m->ci95_lo) && isnan(m->ci95_hi));
    free(rows);
    char *old = tu_write_file(dir, "old.csv",
                              "metric,component,value,ci95_lo,ci95_hi\n"
                              "x,all,1,nan,nan\ny,all,,1,2\n");
    ok(cm_stats_read_rows(old, &rows, &n, &err), &err);
    ck_assert(isnan(rows[0].ci95_lo) && isnan(rows[1].value) &&
              rows[1].ci95_hi == 2);
    free(rows);
    free(old);
    free(t1);
    free(t2);
    cm_stats_free(a);
    cm_stats_free(b);
    tu_rm_tree(dir);
    free(p1);
    free(p2);
    free(dir);
}
END_TEST

START_TEST(test_natural_order)
{
    cm_stats *reg = cm_stats_new();
    const char *comps[] = {"sm10", "sm2", "bank1", "sm0",
                           "all",  "sm1", "accel0"};
    for (int i = 0; i < 7; i++) counter(reg, "x", comps[i]);
    occupancy(reg, "q", "sm0", 11, NULL);
    rowset r = rows_of(reg);
    /* "all" first even where the alphabet would put another before it. */
    const char *order[] = {"all", "accel0", "bank1", "sm0",
                           "sm1", "sm2",    "sm10"};
    const cm_stat_row *x = row(&r, "x", "all");
    for (int i = 0; i < 7; i++) ck_assert_str_eq(x[i].component, order[i]);
    const cm_stat_row *p = row(&r, "q.frac_at_0", "sm0");
    for (int k = 0; k <= 11; k++) {
        char name[32];
        snprintf(name, sizeof name, "q.frac_at_%d%s", k,
                 k == 11 ? "_or_more" : "");
        ck_assert_str_eq(p[k].metric, name);
    }
    free(r.rows);
    cm_stats_free(reg);
}
END_TEST

/* A level keeps its time average alone: 100 over [0,10), 300 over
 * [10,20), mean 200, and no bin rows. */
START_TEST(test_level_mean_only)
{
    cm_stats *reg = cm_stats_new();
    cm_stat *l = NULL;
    cm_err err = {0};
    ok(cm_stats_level(reg, "life", "bank0", &l, &err), &err);
    cm_stat_level(l, 100, 0);
    cm_stat_level(l, 300, 10);
    cm_stats_sync(reg, 20);
    rowset r = rows_of(reg);
    ck_assert_uint_eq(r.n, 1);
    ck_assert_str_eq(r.rows[0].metric, "life_mean");
    ck_assert_close(value(&r, "life_mean", "bank0"), 200, 1e-15);
    free(r.rows);
    cm_stats_free(reg);
}
END_TEST

/* A window weighed by w counts w of its changes: a counter's windows 10
 * and 30, the first at half weight, sum to 35; a ratio of the counter to
 * the cycles (10 per window) is 35 / 15.  Weights past the windows, or
 * negative, are errors. */
START_TEST(test_window_weight)
{
    cm_stats *reg = cm_stats_new();
    cm_stat *c = counter(reg, "c", "all"), *t = counter(reg, "t", "all");
    cm_err err = {0};
    ok(cm_stats_ratio(reg, "rate", "all", c, t, &err), &err);
    const double adds[2] = {10, 30};
    for (int w = 0; w < 2; w++) {
        ok(cm_stats_window_begin(reg, (uint64_t)(10 * w), &err), &err);
        cm_stat_add(c, adds[w]);
        cm_stat_add(t, 10);
        ok(cm_stats_window_end(reg, (uint64_t)(10 * w + 10), &err), &err);
    }
    ok(cm_stats_window_weight(reg, 0, 0.5, &err), &err);
    ck_assert_int_eq(cm_stats_window_weight(reg, 2, 1, &err), CM_EINTERNAL);
    ck_assert_int_eq(cm_stats_window_weight(reg, 1, -1, &err), CM_EINTERNAL);
    rowset r = rows_of(reg);
    ck_assert_close(value(&r, "c", "all"), 35, 1e-12);
    ck_assert_close(value(&r, "rate", "all"), 35.0 / 15, 1e-12);
    free(r.rows);
    cm_stats_free(reg);
}
END_TEST

Suite *suite_stats(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("stats");
    tcase_add_test(tc, test_counters);
    tcase_add_test(tc, test_occupancy_integral);
    tcase_add_test(tc, test_latency_histogram);
    tcase_add_test(tc, test_merge_all);
    tcase_add_test(tc, test_merge_all_many_ratios);
    tcase_add_test(tc, test_window_intervals);
    tcase_add_test(tc, test_one_window_has_no_interval);
    tcase_add_test(tc, test_merge_registries);
    tcase_add_test(tc, test_registration_errors);
    tcase_add_test(tc, test_csv_bytes);
    tcase_add_test(tc, test_natural_order);
    tcase_add_test(tc, test_level_mean_only);
    tcase_add_test(tc, test_window_weight);
    suite_add_tcase(s, tc);
    return s;
}
