/* check_cli_fit.c - `cohmod fit mshr` and `cohmod validate mshr|reuse` end
 * to end on tiny machines: the files and columns promised, calib.csv usable as a
 * config, at most a fifth of the points calibrated, byte-identical reruns,
 * and one-line exit-2 errors for bad input with nothing half-written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/table.h"
#include "sim/stats.h"
#include "study/validate.h"
#include "tests/testutil.h"

#define TINY "--set gpu.sms=1 --set gpu.warps_per_sm=8 " \
             "--set sched.active_warps=8 --set sim.max_cycles=5000"

static int one_line(const char *s)
{
    return tu_count_lines(s) == 1;
}

/* Two tiny runs in dir: a.csv (8 MSHRs) and b.csv (4), with their dumps. */
static void two_runs(const char *dir)
{
    const char *m[2] = {"8", "4"}, *f[2] = {"a.csv", "b.csv"};
    for (int i = 0; i < 2; i++) {
        char *out = tu_path_in(dir, f[i]), args[1024];
        snprintf(args, sizeof args,
                 "sim --workload kmn " TINY " --set l1.mshrs=%s --quiet "
                 "--out %s", m[i], out);
        tu_run r = tu_cohmod(args);
        ck_assert_msg(r.status == 0, "%s", r.err);
        tu_run_free(&r);
        free(out);
    }
}

/* The value of `col` in the row of t whose column `key` is `name`. */
static double row_value(const cm_table *t, const char *key, const char *name,
                        const char *col)
{
    long k = cm_table_col_find(t, key);
    ck_assert_int_ge(k, 0);
    for (size_t r = 0; r < cm_table_nrows(t); r++)
        if (!strcmp(cm_table_cell(t, r, (size_t)k), name))
            return tu_num(t, r, col);
    ck_abort_msg("no row %s", name);
    return NAN;
}

static cm_table *read_table(const char *path)
{
    cm_table *t = NULL;
    cm_err err = {0};
    ck_assert_msg(cm_table_read_file(path, &t, &err) == CM_OK, "%s",
                  err.msg);
    return t;
}

/* The README's calibration, sim -> fit -> calibrated model (issue 23, item
 * 1): two runs at different MSHR counts, the default parameters fitted, a
 * calib.csv whose values lie in the model's domain, which `cohmod model
 * mshr --config tc2013 --config calib.csv` accepts; and the calibrated
 * model at a run's own inputs (its machine and measured workload
 * statistics) gives what the fit reports in calib.residuals.csv. */
START_TEST(test_fit_writes_a_config)
{
    char *dir = tu_tmpdir(), args[4096];
    two_runs(dir);
    snprintf(args, sizeof args,
             "fit mshr --samples %s/a.csv --samples %s/b.csv --quiet "
             "--out %s/calib.csv", dir, dir, dir);
    tu_run r = tu_cohmod(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.err, "");
    tu_run_free(&r);
    char *calib = tu_path_in(dir, "calib.csv");
    char *text = tu_read_file(calib, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert(!strncmp(text, "parameter,value,stderr,note\n", 28));
    ck_assert_uint_eq(tu_count_lines(text), 3);
    free(text);
    cm_table *c = read_table(calib);
    double extra = row_value(c, "parameter", "model.extra_latency", "value");
    ck_assert(extra >= 1 - 340 && extra <= 1e5); /* tc2013: l2.latency 340 */
    for (size_t i = 0; i < 2; i++) { /* identified: a stderr, no note */
        const char *note = cm_table_cell(c, i, 3);
        ck_assert_msg((note[0] == 0) == (cm_table_cell(c, i, 2)[0] != 0),
                      "%s", note);
        ck_assert(note[0] || isfinite(tu_num(c, i, "stderr")));
    }
    cm_table_free(c);
    char *res = tu_path_in(dir, "calib.residuals.csv");
    text = tu_read_file(res, NULL);
    ck_assert_ptr_nonnull(strstr(text, "sample,quantity,sim,ci95_lo,"
                                       "ci95_hi,model,sigma,residual\n"));
    ck_assert_uint_eq(tu_count_lines(text), 7); /* 2 runs x 3 + header */
    ck_assert_ptr_null(strstr(text, "nan"));
    free(text);
    /* the model at run a's inputs, calibrated, as the fit saw it */
    cm_table *rt = read_table(res);
    double want = -1;
    for (size_t i = 0; i < cm_table_nrows(rt); i++)
        if (strstr(cm_table_cell(rt, i, 0), "/a.csv") &&
            !strcmp(cm_table_cell(rt, i, 1), "occupancy"))
            want = tu_num(rt, i, "model");
    cm_table_free(rt);
    char *stats = tu_path_in(dir, "a.csv");
    cm_stat_row *rows;
    size_t n;
    cm_err err = {0};
    ck_assert_int_eq(cm_stats_read_rows(stats, &rows, &n, &err), CM_OK);
#define STAT(m) cm_stats_find(rows, n, m, "all")->value
    /* The measured inputs as models/mshr_fit.c states them: stores are
     * the write-through requests (kmn under the default protocol sends
     * WRITE, GETX or UPGR), every store is an L1 miss (no store row of
     * sim/proto_rows.h hits) that never merges, so the merge probability
     * is over load misses, l1.misses less the stores. */
    double stores = 0;
    const char *store_msgs[] = {"noc.msgs.write", "noc.msgs.getx",
                                "noc.msgs.upgr"};
    for (int k = 0; k < 3; k++) {
        const cm_stat_row *sr = cm_stats_find(rows, n, store_msgs[k], "all");
        if (sr && isfinite(sr->value)) stores += sr->value;
    }
    double wf = stores / STAT("l1.accesses");
    ck_assert(wf > 0 && wf < 1);
    snprintf(args, sizeof args,
             "model mshr --config %s/a.params.csv --config %s "
             "--set wl.l1_miss_ratio=%.17g --set wl.l2_miss_ratio=%.17g "
             "--set wl.write_frac=%.17g "
             "--set wl.merge_prob=%.17g --set wl.reqs_per_inst=%.17g "
             "--set wl.mem_rate=%.17g",
             dir, calib, STAT("l1.miss_ratio"), STAT("l2.miss_ratio"), wf,
             STAT("l1.mshr.merges") /
                 (STAT("l1.misses") - wf * STAT("l1.accesses")),
             STAT("l1.accesses") / STAT("sm.mem_instructions"),
             STAT("sm.mem_instructions") / STAT("sm.instructions"));
#undef STAT
    free(rows);
    free(stats);
    r = tu_cohmod(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cm_table *m = NULL;
    ck_assert_int_eq(cm_table_read_buffer("m", r.out, strlen(r.out), &m,
                                          &err), CM_OK);
    ck_assert_close(tu_num(m, 0, "mean_occupancy"), want, 1e-9);
    cm_table_free(m);
    tu_run_free(&r);
    /* the README's next step, and after another preset too */
    snprintf(args, sizeof args, "model mshr --config tc2013 --config %s",
             calib);
    r = tu_cohmod(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_null(strstr(r.out, "nan"));
    tu_run_free(&r);
    snprintf(args, sizeof args, "model mshr --config li2014 --config %s",
             calib);
    r = tu_cohmod(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    tu_run_free(&r);
    free(res);
    free(calib);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* Issue 23, item 1: one run (the README's sim, cut short) identifies
 * nothing: the old fit wrote extra_latency -423.66 +- 5.5e5 and svc_scv
 * 0 +- nan at exit 0.  Now it exits 2 in one line, saying why for each
 * parameter and which runs would help, and writes nothing. */
START_TEST(test_fit_refuses_what_it_cannot_identify)
{
    char *dir = tu_tmpdir(), args[4096];
    snprintf(args, sizeof args,
             "sim --workload kmn --protocol no-coh --sched gto --set "
             "sim.max_cycles=200000 --quiet --out %s/stats.csv", dir);
    tu_run r = tu_cohmod(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    tu_run_free(&r);
    snprintf(args, sizeof args,
             "fit mshr --samples %s/stats.csv --out %s/calib.csv", dir, dir);
    tu_expect_rejected(args, "identify no parameter");
    tu_expect_rejected(args, "run at two or more MSHR counts or warp counts");
    tu_expect_rejected(args, "model.extra_latency (fitted");
    tu_expect_rejected(args, "model.svc_scv (fitted");
    ck_assert_uint_eq(tu_dir_entries(dir), 2); /* stats.csv and its dump */
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

START_TEST(test_fit_bad_input)
{
    char *dir = tu_tmpdir(), args[2048];
    two_runs(dir);
    struct {
        const char *what;
        const char *args;
        const char *needle;
    } cases[] = {
        {"no file", "--samples %s/none.csv", "none"},
        {"no dump", "--samples %s/nodump.csv", "machine it ran on"},
        {"no metric", "--samples %s/short.csv", "l1.mshr.occupancy_mean"},
        {"bad param", "--samples %s/a.csv --param no.such", "no.such"},
    };
    /* a run without its dump, and one without a metric */
    char *a = tu_path_in(dir, "a.csv");
    char *text = tu_read_file(a, NULL);
    free(tu_write_file(dir, "nodump.csv", text));
    char *cut = strstr(text, "l1.mshr.occupancy_mean,all");
    ck_assert_ptr_nonnull(cut);
    cut[21] = 'X'; /* the machine-wide row renamed: ..._meaX */
    free(tu_write_file(dir, "short.csv", text));
    char *dump = tu_path_in(dir, "a.params.csv");
    char *dtext = tu_read_file(dump, NULL);
    free(tu_write_file(dir, "short.params.csv", dtext));
    free(dtext);
    free(dump);
    free(text);
    free(a);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char opts[1024];
        snprintf(opts, sizeof opts, cases[i].args, dir);
        snprintf(args, sizeof args, "fit mshr %s --out %s/c%zu.csv", opts,
                 dir, i);
        tu_run r = tu_cohmod(args);
        ck_assert_msg(r.status == 2, "%s: status %d", cases[i].what,
                      r.status);
        ck_assert_msg(one_line(r.err) && strstr(r.err, cases[i].needle),
                      "%s: %s", cases[i].what, r.err);
        char *out = malloc(strlen(dir) + 32);
        sprintf(out, "%s/c%zu.csv", dir, i);
        ck_assert_ptr_null(tu_read_file(out, NULL)); /* nothing written */
        free(out);
        tu_run_free(&r);
    }
    tu_run r = tu_cohmod("fit mshr --out x.csv");
    ck_assert_int_eq(r.status, 2);
    ck_assert(one_line(r.err));
    tu_run_free(&r);
    r = tu_cohmod("fit --help");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "Usage: cohmod fit mshr"));
    tu_run_free(&r);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* Every file exists in d1; the CSVs are byte-identical in d2 (figures
 * carry a timestamp). */
static void assert_rerun_identical(const char *d1, const char *d2,
                                   const char *const *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *p1 = tu_path_in(d1, files[i]), *p2 = tu_path_in(d2, files[i]);
        size_t n1 = 0, n2 = 0;
        char *t1 = tu_read_file(p1, &n1), *t2 = tu_read_file(p2, &n2);
        ck_assert_msg(t1 && n1 > 0, "%s missing", files[i]);
        if (strstr(files[i], ".csv"))
            ck_assert_msg(n1 == n2 && !memcmp(t1, t2, n1),
                          "%s differs on rerun", files[i]);
        free(t1);
        free(t2);
        free(p1);
        free(p2);
    }
}

#define VGRID_RUN "validate mshr --grid mshrs=4,8 --grid warps=2,4,8 " \
                  "--workloads kmn " TINY
#define VGRID VGRID_RUN " --quiet --out "

START_TEST(test_validate_tiny_grid)
{
    char *dir = tu_tmpdir(), args[2048];
    char *d1 = tu_path_in(dir, "a"), *d2 = tu_path_in(dir, "b");
    snprintf(args, sizeof args, VGRID "%s", d1);
    tu_run r = tu_cohmod(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    tu_run_free(&r);
    snprintf(args, sizeof args, VGRID "%s", d2);
    r = tu_cohmod(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    tu_run_free(&r);
    /* the summary on stderr: each quantity in its target's own measure,
     * with its worst held-out point (issue 23, item 6) */
    snprintf(args, sizeof args, VGRID_RUN " --out %s/c", dir);
    r = tu_cohmod(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.err, "occupancy: held-out MARE ") &&
                      strstr(r.err, "target MARE <= 10%: ") &&
                      strstr(r.err, "p_full: held-out mean |error| ") &&
                      strstr(r.err, "target mean |error| <= 0.05: ") &&
                      strstr(r.err, "where the simulator reads ") &&
                      strstr(r.err, "(1 calibration, 5 held out)"),
                  "%s", r.err);
    tu_run_free(&r);
    const char *files[] = {"points.csv", "summary.csv", "calib.csv",
                           "params.csv", "parity_occupancy.png",
                           "parity_p_full.png",
                           "occupancy_vs_sched.active_warps_kmn.png"};
    assert_rerun_identical(d1, d2, files, sizeof files / sizeof *files);
    cm_table *t = NULL;
    cm_err err = {0};
    char *pp = tu_path_in(d1, "points.csv");
    ck_assert_int_eq(cm_table_read_file(pp, &t, &err), CM_OK);
    const char *cols[] = {"workload", "l1.mshrs", "sched.active_warps",
                          "role", "model_occupancy", "sim_occupancy",
                          "sim_occupancy_ci95_lo", "sim_occupancy_ci95_hi",
                          "occupancy_rel_error", "model_p_full",
                          "sim_p_full", "p_full_abs_error"};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        ck_assert_msg(cm_table_col_find(t, cols[i]) >= 0, "no %s", cols[i]);
    ck_assert_uint_eq(cm_table_nrows(t), 6);
    size_t role = (size_t)cm_table_col_find(t, "role"), cal = 0;
    for (size_t i = 0; i < 6; i++)
        cal += !strcmp(cm_table_cell(t, i, role), "calibration");
    ck_assert_uint_eq(cal, 1); /* floor(6 / 5): at most 20% */
    cm_table_free(t);
    free(pp);
    pp = tu_path_in(d1, "summary.csv");
    ck_assert_int_eq(cm_table_read_file(pp, &t, &err), CM_OK);
    const char *scols[] = {"quantity",       "points",
                           "calibration_points", "heldout_points",
                           "mare",           "max_rel_error",
                           "mean_abs_error", "max_abs_error",
                           "target",         "target_met",
                           "worst_at",       "worst_model"};
    for (size_t i = 0; i < sizeof scols / sizeof *scols; i++)
        ck_assert_msg(cm_table_col_find(t, scols[i]) >= 0, "no %s",
                      scols[i]);
    ck_assert_uint_eq(cm_table_nrows(t), 2);
    ck_assert_str_eq(cm_table_cell(t, 0, 0), "occupancy");
    ck_assert_str_eq(cm_table_cell(t, 0, 2), "1");
    ck_assert_str_eq(cm_table_cell(t, 0, 3), "5");
    ck_assert_str_eq(cm_table_cell(t, 1, 8), "mean_abs_error");
    ck_assert_ptr_nonnull(strstr(cm_table_cell(t, 0, 11), "kmn l1.mshrs="));
    cm_table_free(t);
    free(pp);
    free(d1);
    free(d2);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

START_TEST(test_validate_bad_input)
{
    char *dir = tu_tmpdir(), args[2048];
    const char *bad[] = {
        "--grid mshrs=4,8 --workloads kmn",            /* 2 points: none */
        "--grid nosuch=1,2,3 --workloads kmn",
        "--grid mshrs=4,8,16 --grid warps=2,4 --workloads nosuch",
        "--grid mshrs=4,8,16 --grid warps=2,4 --protocol nosuch"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(args, sizeof args, "validate mshr %s " TINY " --quiet "
                 "--out %s/v%zu", bad[i], dir, i);
        tu_run r = tu_cohmod(args);
        ck_assert_msg(r.status == 2 && one_line(r.err), "%s: %d %s", bad[i],
                      r.status, r.err);
        tu_run_free(&r);
    }
    ck_assert_uint_eq(tu_dir_entries(dir), 0); /* nothing half-written */
    tu_run r = tu_cohmod("validate --help");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "sim.max_cycles"));
    tu_run_free(&r);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* 12 points (2 calibration); runs long enough for the L1 to warm up. */
#define RGRID "validate reuse --grid l1size=16K,32K --grid warps=2,4,8 " \
              "--workloads kmn,hsp " TINY " --set sim.max_cycles=30000 " \
              "--quiet --out "

/* The cell of a one-row-per-key table at column `col`, by the key in
 * column 0. */
static const char *cell_of(const cm_table *t, const char *key,
                           const char *col)
{
    long c = cm_table_col_find(t, col);
    ck_assert_msg(c >= 0, "no %s", col);
    for (size_t i = 0; i < cm_table_nrows(t); i++)
        if (!strcmp(cm_table_cell(t, i, 0), key))
            return cm_table_cell(t, i, (size_t)c);
    ck_abort_msg("no row %s", key);
    return NULL;
}

START_TEST(test_validate_reuse_tiny_grid)
{
    char *dir = tu_tmpdir(), args[2048];
    char *d[2] = {tu_path_in(dir, "a"), tu_path_in(dir, "b")};
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof args, RGRID "%s", d[k]);
        tu_run r = tu_cohmod(args);
        ck_assert_msg(r.status == 0, "%s", r.err);
        tu_run_free(&r);
    }
    const char *files[] = {"points.csv", "summary.csv", "calib.csv"};
    assert_rerun_identical(d[0], d[1], files, sizeof files / sizeof *files);
    cm_table *t = NULL;
    cm_err err = {0};
    char *pp = tu_path_in(d[0], "points.csv");
    ck_assert_int_eq(cm_table_read_file(pp, &t, &err), CM_OK);
    const char *cols[] = {"workload", "l1.size", "sched.active_warps", "role",
                          "model_l1_miss_ratio", "sim_l1_miss_ratio",
                          "sim_l1_miss_ratio_ci95_lo",
                          "sim_l1_miss_ratio_ci95_hi",
                          "l1_miss_ratio_rel_error",
                          "l1_miss_ratio_abs_error"};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        ck_assert_msg(cm_table_col_find(t, cols[i]) >= 0, "no %s", cols[i]);
    ck_assert_uint_eq(cm_table_nrows(t), 12);
    cm_table_free(t);
    free(pp);
    pp = tu_path_in(d[0], "summary.csv");
    ck_assert_int_eq(cm_table_read_file(pp, &t, &err), CM_OK);
    ck_assert_uint_eq(cm_table_nrows(t), 1);
    const char *q = "l1_miss_ratio";
    ck_assert_str_eq(cell_of(t, q, "points"), "12");
    ck_assert_str_eq(cell_of(t, q, "calibration_points"), "2"); /* <= 20% */
    const char *num[] = {"mare", "max_rel_error", "mean_abs_error"};
    for (size_t i = 0; i < 3; i++) {
        double v = strtod(cell_of(t, q, num[i]), NULL);
        ck_assert_msg(v >= 0 && v < 1, "%s %g", num[i], v);
    }
    cm_table_free(t);
    free(pp);
    pp = tu_path_in(d[0], "calib.csv");
    ck_assert_int_eq(cm_table_read_file(pp, &t, &err), CM_OK);
    double f = strtod(cell_of(t, "model.l1_interleave_fraction", "value"),
                      NULL);
    ck_assert_msg(f > 0 && f <= 1, "fraction %g", f);
    cm_table_free(t);
    free(pp);
    /* calib.csv is a configuration */
    snprintf(args, sizeof args, "params --config %s/calib.csv", d[0]);
    tu_run r = tu_cohmod(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "model.l1_interleave_fraction"));
    tu_run_free(&r);
    free(d[0]);
    free(d[1]);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

START_TEST(test_calibration_points_spread)
{
    /* floor(n/5) distinct indices for every n; never more than 20%. */
    for (size_t n = 1; n <= 200; n++) {
        size_t cnt = 0;
        for (size_t i = 0; i < n; i++) cnt += cm_validate_is_calibration(i, n);
        ck_assert_uint_eq(cnt, n / 5);
        ck_assert(5 * cnt <= n);
    }
    /* 27 = 3 workloads x 3 x 3: every workload gets a calibration point */
    for (size_t w = 0; w < 3; w++) {
        size_t cnt = 0;
        for (size_t i = 9 * w; i < 9 * w + 9; i++)
            cnt += cm_validate_is_calibration(i, 27);
        ck_assert(cnt >= 1);
    }
}
END_TEST

Suite *suite_cli_fit(void)
{
    Suite *s = suite_create("cli_fit");
    TCase *tc = tcase_create("e2e");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_fit_writes_a_config);
    tcase_add_test(tc, test_fit_refuses_what_it_cannot_identify);
    tcase_add_test(tc, test_fit_bad_input);
    tcase_add_test(tc, test_validate_tiny_grid);
    tcase_add_test(tc, test_validate_bad_input);
    tcase_add_test(tc, test_validate_reuse_tiny_grid);
    tcase_add_test(tc, test_calibration_points_spread);
    suite_add_tcase(s, tc);
    return s;
}
