/* check_cli_validate_design.c - `cohmod validate M --design lhs:N` end to
 * end (issue 26, item 1): the points are a sliced Latin hypercube over
 * the registry's design ranges, spread over every workload x preset
 * cell; calibration takes at most a fifth of each workload's points (the
 * coherence models: the longest lifetimes of each cell); the per-workload,
 * per-preset and validity files are the held-out errors of points.csv,
 * recomputed here; a seed is a design; and bad designs are one line and
 * exit 2.  The runs are cut short (sim.max_cycles): what is checked is
 * the bookkeeping, not the models. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/params.h"
#include "data/table.h"
#include "tests/testutil.h"

#define MSHR_DESIGN                                                       \
    "validate mshr --design lhs:30 --workloads kmn,bfs,cfd --presets "    \
    "tc2013,li2014 --set sim.max_cycles=5000 --quiet"

#define read_in tu_read_table
#define cell tu_cell

static void run_ok(tu_run r)
{
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    tu_run_free(&r);
}

static const cm_param_design *range_of(const char *name)
{
    for (size_t i = 0; i < cm_param_design_count(); i++)
        if (!strcmp(cm_param_design_param(cm_param_design_at(i))->name,
                    name) &&
            cm_param_design_for(cm_param_design_at(i), "mshr"))
            return cm_param_design_at(i);
    ck_abort_msg("no design range of %s", name);
    return NULL;
}

/* Mean |error| by the measure over the held-out rows of points.csv that
 * match preset and workload (NULL: any). */
static double heldout_error(const cm_table *pts, const char *q, int rel,
                            const char *preset, const char *wl, size_t *n)
{
    char col[64];
    snprintf(col, sizeof col, "%s_%s_error", q, rel ? "rel" : "abs");
    double sum = 0;
    *n = 0;
    for (size_t i = 0; i < cm_table_nrows(pts); i++) {
        if (strcmp(cell(pts, i, "role"), "heldout") ||
            (preset && strcmp(cell(pts, i, "preset"), preset)) ||
            (wl && strcmp(cell(pts, i, "workload"), wl)))
            continue;
        sum += fabs(tu_num(pts, i, col));
        (*n)++;
    }
    return sum / (double)*n;
}

START_TEST(test_design_cells_latin_and_calibration)
{
    char *dir = tu_tmpdir();
    run_ok(tu_cohmodf(MSHR_DESIGN " --out %s/d", dir));
    char *d = tu_path_in(dir, "d");
    cm_table *t = read_in(d, "points.csv");
    ck_assert_uint_eq(cm_table_nrows(t), 30);
    static const char *const pre[] = {"tc2013", "li2014"};
    static const char *const wl[] = {"kmn", "bfs", "cfd"};
    const cm_param_design *mshrs = range_of("l1.mshrs"),
                          *warps = range_of("sched.active_warps");
    /* machine-major, then workload: 5 points a cell, each cell's l1.mshrs
     * one in each fifth of its log range (a Latin hypercube per cell) */
    for (size_t c = 0; c < 6; c++) {
        int strata[5] = {0};
        for (size_t j = 0; j < 5; j++) {
            size_t i = 5 * c + j;
            ck_assert_str_eq(cell(t, i, "preset"), pre[c / 3]);
            ck_assert_str_eq(cell(t, i, "workload"), wl[c % 3]);
            double m = tu_num(t, i, "l1.mshrs");
            double w = tu_num(t, i, "sched.active_warps");
            ck_assert(m >= mshrs->lo && m <= mshrs->hi && m == floor(m));
            ck_assert(w >= warps->lo && w <= warps->hi);
            /* integer k owns [k - 1/2, k + 1/2) of the log */
            double u = (log(m) - log(mshrs->lo - 0.5)) /
                       (log(mshrs->hi + 0.5) - log(mshrs->lo - 0.5));
            int s = (int)(u * 5);
            ck_assert(s >= 0 && s < 5);
            strata[s]++;
        }
        for (int s = 0; s < 5; s++)
            ck_assert_msg(strata[s] <= 2, "cell %zu crowds a fifth", c);
    }
    /* a fifth of each workload's 10 points calibrate: 2 */
    for (size_t w = 0; w < 3; w++) {
        size_t cal = 0;
        for (size_t i = 0; i < 30; i++)
            cal += !strcmp(cell(t, i, "workload"), wl[w]) &&
                   !strcmp(cell(t, i, "role"), "calibration");
        ck_assert_uint_eq(cal, 2);
    }
    /* the measured inputs are there */
    ck_assert(tu_num(t, 0, "wl.mem_rate") > 0);

    /* per workload and per preset: the held-out errors of points.csv */
    cm_table *sw = read_in(d, "summary_workloads.csv");
    cm_table *sp = read_in(d, "summary_presets.csv");
    ck_assert_uint_eq(cm_table_nrows(sw), 3 * 2);
    ck_assert_uint_eq(cm_table_nrows(sp), 2 * 2);
    for (size_t i = 0; i < cm_table_nrows(sw); i++) {
        const char *q = cell(sw, i, "quantity");
        int rel = !strcmp(q, "occupancy");
        size_t n;
        double e = heldout_error(t, q, rel, NULL, cell(sw, i, "workload"),
                                 &n);
        ck_assert_uint_eq((size_t)tu_num(sw, i, "heldout_points"), n);
        ck_assert_close(tu_num(sw, i, rel ? "mare" : "mean_abs_error"), e,
                        1e-12);
        ck_assert_close(tu_num(sw, i, "limit"),
                        2 * tu_num(sw, i, "target_value"), 1e-15);
        ck_assert_str_eq(cell(sw, i, "limit_met"),
                         e <= tu_num(sw, i, "limit") ? "yes" : "no");
    }
    for (size_t i = 0; i < cm_table_nrows(sp); i++) {
        const char *q = cell(sp, i, "quantity");
        int rel = !strcmp(q, "occupancy");
        size_t n;
        double e = heldout_error(t, q, rel, cell(sp, i, "preset"), NULL, &n);
        ck_assert_close(tu_num(sp, i, rel ? "mare" : "mean_abs_error"), e,
                        1e-12);
        ck_assert_close(tu_num(sp, i, "limit"),
                        tu_num(sp, i, "target_value"), 1e-15);
    }

    /* validity.csv: a preset's whole region is its held-out error over a
     * box that holds all its points; its workload regions too */
    cm_table *v = read_in(d, "validity.csv");
    size_t whole = 0, parts = 0, wls = 0;
    for (size_t i = 0; i < cm_table_nrows(v); i++) {
        const char *scope = cell(v, i, "scope"), *q = cell(v, i, "quantity");
        const char *preset = cell(v, i, "preset");
        ck_assert_str_eq(cell(v, i, "model"), "mshr");
        ck_assert_str_eq(cell(v, i, "output"),
                         !strcmp(q, "occupancy") ? "mean_occupancy"
                                                 : "p_full");
        parts += !strcmp(scope, "part");
        if (!strcmp(scope, "part")) continue;
        size_t n;
        const char *w = strcmp(scope, "whole") ? cell(v, i, "workload") : NULL;
        double e = heldout_error(t, q, !strcmp(q, "occupancy"), preset, w,
                                 &n);
        ck_assert_close(tu_num(v, i, "error"), e, 1e-12);
        ck_assert_uint_eq((size_t)tu_num(v, i, "heldout_points"), n);
        whole += !w;
        wls += w != NULL;
        /* every point of the region inside its box */
        const char *box = cell(v, i, "region");
        for (size_t k = 0; k < cm_table_nrows(t); k++) {
            if (strcmp(cell(t, k, "preset"), preset) ||
                (w && strcmp(cell(t, k, "workload"), w)))
                continue;
            double m = tu_num(t, k, "l1.mshrs");
            const char *at = strstr(box, "l1.mshrs=");
            ck_assert_ptr_nonnull(at);
            double lo, hi;
            ck_assert_int_eq(sscanf(at, "l1.mshrs=%lf:%lf", &lo, &hi), 2);
            ck_assert(m >= lo && m <= hi);
        }
    }
    ck_assert_uint_eq(whole, 2 * 2);
    ck_assert_uint_eq(wls, 2 * 2 * 3);
    ck_assert_uint_gt(parts, 0);
    cm_table_free(v);
    cm_table_free(sw);
    cm_table_free(sp);
    cm_table_free(t);
    tu_rm_tree(dir);
    free(d);
    free(dir);
}
END_TEST

START_TEST(test_design_seed_is_the_design)
{
    char *dir = tu_tmpdir();
    run_ok(tu_cohmodf(MSHR_DESIGN " --out %s/a", dir));
    run_ok(tu_cohmodf(MSHR_DESIGN " --out %s/b --seed 1", dir));
    run_ok(tu_cohmodf(MSHR_DESIGN " --out %s/c --seed 2", dir));
    tu_run r = tu_shf("cd %s && for f in points.csv summary.csv "
                      "summary_workloads.csv summary_presets.csv "
                      "validity.csv; do cmp a/$f b/$f || exit 1; done", dir);
    ck_assert_msg(r.status == 0, "the default seed is 1, and a seed the "
                  "same design: %s", r.out);
    tu_run_free(&r);
    char *a = tu_path_in(dir, "a"), *c = tu_path_in(dir, "c");
    cm_table *ta = read_in(a, "points.csv"), *tc = read_in(c, "points.csv");
    size_t same = 0;
    for (size_t i = 0; i < 30; i++)
        same += tu_num(ta, i, "l1.mshrs") == tu_num(tc, i, "l1.mshrs") &&
                tu_num(ta, i, "sched.active_warps") ==
                    tu_num(tc, i, "sched.active_warps");
    ck_assert_msg(same < 5, "seeds 1 and 2 share %zu of 30 points", same);
    cm_table_free(ta);
    cm_table_free(tc);
    tu_rm_tree(dir);
    free(a);
    free(c);
    free(dir);
}
END_TEST

/* Every other validation too: the same seed is the same output, byte for
 * byte, and another seed another design (the points' design parameters,
 * in order: a one-parameter design on a few pow2 levels can only move its
 * points between positions).  Tiny: one workload, one preset, the fewest
 * points that calibrate, short runs. */
START_TEST(test_design_seed_every_validation)
{
    static const struct {
        const char *args, *dims[2];
    } v[] = {
        {"reuse --workloads cfd --design lhs:5 --presets li2014 --set "
         "sim.max_cycles=5000",
         {"l1.size", "sched.active_warps"}},
        {"directory --workloads bh --design lhs:5 --presets tc2013 --set "
         "sim.max_cycles=5000",
         {"l1.size", NULL}},
        {"recall --workloads bh --design lhs:5 --presets tc2013 --set "
         "sim.max_cycles=20000",
         {"dir.ratio", "dir.ways"}},
        {"lifetime --protocol tcs --workloads bh --design lhs:5 --presets "
         "tc2013 --replicates 1 --set sim.max_instructions=10000",
         {"tc.lifetime_strong", NULL}}};
    char *dir = tu_tmpdir();
    for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
        for (int run = 0; run < 3; run++)
            run_ok(tu_cohmodf("validate %s --quiet --seed %d --out %s/%zu.%d",
                              v[k].args, run < 2 ? 7 : 8, dir, k, run));
        tu_run r = tu_shf("cd %s && for f in points.csv summary.csv "
                          "summary_workloads.csv summary_presets.csv "
                          "validity.csv; do cmp %zu.0/$f %zu.1/$f || exit 1; "
                          "done", dir, k, k);
        ck_assert_msg(r.status == 0, "%s: seed 7 twice differs: %s",
                      v[k].args, r.out);
        tu_run_free(&r);
        char a_dir[64], c_dir[64];
        snprintf(a_dir, sizeof a_dir, "%zu.0", k);
        snprintf(c_dir, sizeof c_dir, "%zu.2", k);
        char *a = tu_path_in(dir, a_dir), *c = tu_path_in(dir, c_dir);
        cm_table *ta = read_in(a, "points.csv"), *tc = read_in(c, "points.csv");
        ck_assert_uint_eq(cm_table_nrows(ta), cm_table_nrows(tc));
        size_t same = 0;
        for (size_t i = 0; i < cm_table_nrows(ta); i++) {
            int eq = 1;
            for (size_t d = 0; d < 2 && v[k].dims[d]; d++)
                eq &= tu_num(ta, i, v[k].dims[d]) ==
                      tu_num(tc, i, v[k].dims[d]);
            same += eq;
        }
        ck_assert_msg(same < cm_table_nrows(ta),
                      "%s: seeds 7 and 8 give the same design", v[k].args);
        cm_table_free(ta);
        cm_table_free(tc);
        free(a);
        free(c);
    }
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* Bug: a quantity no held-out point of a workload measures (kmn has no
 * fences, so no fence wait under tcw-fixed) read limit_met "no", as if
 * the workload had missed twice its target.  It reads "no value", and the
 * summary does not list it beyond twice the target. */
START_TEST(test_design_group_without_values)
{
    char *dir = tu_tmpdir();
    tu_run r = tu_cohmodf("validate lifetime --protocol tcw-fixed --workloads "
                          "kmn --design lhs:5 --presets tc2013 --replicates 1 "
                          "--set sim.max_instructions=10000 --out %s/w",
                          dir);
    ck_assert_msg(r.status == 0, "%s", r.err);
    const char *beyond = strstr(r.err, "beyond twice the target:");
    ck_assert_msg(!beyond || !strstr(beyond, "stall_cycles"), "%s", r.err);
    tu_run_free(&r);
    char *d = tu_path_in(dir, "w");
    cm_table *sw = read_in(d, "summary_workloads.csv");
    int seen = 0;
    for (size_t i = 0; i < cm_table_nrows(sw); i++) {
        if (strcmp(cell(sw, i, "quantity"), "stall_cycles")) continue;
        ck_assert_str_eq(cell(sw, i, "mare"), "");
        ck_assert_str_eq(cell(sw, i, "limit_met"), "no value");
        seen++;
    }
    ck_assert_int_eq(seen, 1);
    cm_table_free(sw);
    tu_rm_tree(dir);
    free(d);
    free(dir);
}
END_TEST

/* A coherence model carries a cell's profile down in the lifetime: its
 * calibration point is the longest lifetime of each cell. */
START_TEST(test_design_lifetime_calibrates_on_longest)
{
    char *dir = tu_tmpdir();
    run_ok(tu_cohmodf("validate lifetime --protocol tcs --design lhs:10 "
                      "--workloads bh --replicates 1 --set "
                      "sim.max_instructions=20000 --quiet --out %s/l", dir));
    char *d = tu_path_in(dir, "l");
    cm_table *t = read_in(d, "points.csv");
    ck_assert_uint_eq(cm_table_nrows(t), 10);
    ck_assert(cm_table_col_find(t, "tc.lifetime_weak") < 0); /* unused */
    for (size_t c = 0; c < 2; c++) {
        double cal = -1, most = -1;
        for (size_t j = 0; j < 5; j++) {
            double L = tu_num(t, 5 * c + j, "tc.lifetime_strong");
            most = fmax(most, L);
            if (!strcmp(cell(t, 5 * c + j, "role"), "calibration")) {
                ck_assert(cal < 0);
                cal = L;
            }
        }
        ck_assert(cal == most);
    }
    cm_table_free(t);
    tu_rm_tree(dir);
    free(d);
    free(dir);
}
END_TEST

/* A coherence model's held-out points are predicted from the profile of
 * their own cell's calibration point: the same workload on the same
 * machine.  Keyed on the workload alone, a two-preset design predicted
 * tc2013's points from li2014's profile: at every calibration point the
 * validation's model then disagreed with `cohmod model directory` on that
 * point's own profile (kmn, 100k cycles: 1.50 against 2.11 messages per
 * access).  Here both must agree at every calibration point of both
 * presets. */
START_TEST(test_design_coh_calibrates_per_machine)
{
    char *dir = tu_tmpdir();
    run_ok(tu_cohmodf("validate directory --design lhs:10 --workloads bh "
                      "--presets li2014,tc2013 --set sim.max_cycles=20000 "
                      "--quiet --out %s/d", dir));
    char *d = tu_path_in(dir, "d");
    cm_table *t = read_in(d, "points.csv");
    ck_assert_uint_eq(cm_table_nrows(t), 10);
    size_t checked[2] = {0, 0};
    for (size_t i = 0; i < cm_table_nrows(t); i++) {
        if (strcmp(cell(t, i, "role"), "calibration")) continue;
        const char *preset = cell(t, i, "preset");
        tu_run r = tu_cohmodf(
            "model directory --config %s --set sim.max_cycles=20000 --set "
            "l1.size=%.0f --profile %s/runs/%zu.profile.csv --protocol "
            "gpu-vi --out -", preset, tu_num(t, i, "l1.size"), d, i);
        ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
        double want = tu_num(t, i, "model_msgs_per_access");
        const char *col = strstr(r.out, "\ngpu-vi,");
        ck_assert_msg(col, "no gpu-vi row: %s", r.out);
        double got = strtod(col + 8, NULL);
        ck_assert_msg(fabs(got - want) <= 1e-9 * fabs(want),
                      "%s point %zu: validation %.6f, its own profile %.6f",
                      preset, i, want, got);
        checked[!strcmp(preset, "tc2013")]++;
        tu_run_free(&r);
    }
    ck_assert(checked[0] == 1 && checked[1] == 1);
    cm_table_free(t);
    tu_rm_tree(dir);
    free(d);
    free(dir);
}
END_TEST

START_TEST(test_design_bad_input)
{
    tu_expect_rejected("validate mshr --design lhs:0", "--design 'lhs:0'");
    tu_expect_rejected("validate mshr --design grid:5", "expected lhs:N");
    tu_expect_rejected("validate mshr --seed 3", "--seed draws a --design");
    tu_expect_rejected("validate mshr --design lhs:50 --grid mshrs=4,8",
                       "give one");
    tu_expect_rejected("validate mshr --design lhs:50 --presets tc2013,nope",
                       "no preset 'nope'");
    tu_expect_rejected("validate mshr --design lhs:50 --seed x", "--seed 'x'");
    /* too few points to calibrate on a fifth of each */
    tu_expect_rejected("validate mshr --design lhs:8 --workloads kmn,bfs "
                       "--presets tc2013 --out /tmp/cohmod-never",
                       "give lhs:");
    tu_expect_rejected("validate recall --design lhs:10 --workloads bh,cl "
                       "--out /tmp/cohmod-never", "give lhs:20 or more");
    /* gpu-vi has no separate directory: no design range applies */
    tu_expect_rejected("validate recall --protocol gpu-vi --design lhs:50 "
                       "--workloads bh --out /tmp/cohmod-never",
                       "no design range");
}
END_TEST

Suite *suite_cli_validate_design(void)
{
    Suite *s = suite_create("cli_validate_design");
    TCase *tc = tcase_create("design");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_design_cells_latin_and_calibration);
    tcase_add_test(tc, test_design_seed_is_the_design);
    tcase_add_test(tc, test_design_seed_every_validation);
    tcase_add_test(tc, test_design_lifetime_calibrates_on_longest);
    tcase_add_test(tc, test_design_group_without_values);
    tcase_add_test(tc, test_design_coh_calibrates_per_machine);
    tcase_add_test(tc, test_design_bad_input);
    suite_add_tcase(s, tc);
    return s;
}
