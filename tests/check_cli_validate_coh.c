/* check_cli_validate_coh.c - `cohmod validate lifetime|recall|directory`: the
 * coherence models against the coherence simulator, end to end on small
 * grids (runs cut at 30k cycles, about a second each).
 *
 * Checked: the files and their columns; one calibration point per
 * workload of five points (a fifth; for lifetime the longest); probabilities in [0, 1]; and the
 * properties the models must have where they are measured:
 *  - at the calibration point the TC-Strong store stall is the model's own
 *    input evaluated at the run's lifetime, so it matches the simulator
 *    (within 10%; the store-to-read gap was once measured after the stall,
 *    which put every stalled store beyond L and the model 10x low);
 *  - the simulated stall grows with the lifetime;
 *  - the TC-Weak fence wait at the calibration point (acks and GWCT) is
 *    within 30% of the simulator's;
 *  - under tcw, the predictor's mean-field time average follows the
 *    simulated one across t_hit (10% held out);
 *  - the recall model at its calibration point is within 35% of the
 *    simulated recall rate, and both fall as the directory grows;
 *  - the directory-bandwidth model (GPU-VI) is within 5% of the simulated
 *    messages per L1 access at its calibration point and 20% across L1
 *    sizes 8K-128K, and both fall as the L1 grows;
 * and bad input: a lifetime validation on a protocol without a lifetime, a recall validation on one without a directory, an unknown
 * protocol, and a grid with too few points per workload, each one line and
 * exit 2 with nothing written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/table.h"
#include "models/profile.h"
#include "tests/testutil.h"

#define SHORT "--set sim.max_cycles=30000 --quiet"

/* The table a validation wrote as name in out. */
static cm_table *out_table(const char *out, const char *name)
{
    char *p = tu_path_in(out, name);
    cm_table *t = NULL;
    cm_err err = {0};
    ck_assert_msg(cm_table_read_file(p, &t, &err) == CM_OK, "%s", err.msg);
    free(p);
    return t;
}

/* A validation run into a fresh directory; its points.csv.  *dir and
 * *out (dir/v) are the caller's to free with done(). */
/* Runs `validate args` with the given run length options into a temporary
 * directory; returns its points.csv. */
static cm_table *validate_points_run(const char *args, const char *length,
                                     char **dir, char **out)
{
    *dir = tu_tmpdir();
    *out = tu_path_in(*dir, "v");
    tu_run r = tu_cohmodf("validate %s %s --out %s", args, length, *out);
    ck_assert_msg(r.status == 0, "%s", r.err);
    tu_run_free(&r);
    return out_table(*out, "points.csv");
}

static cm_table *validate_points(const char *args, char **dir, char **out)
{
    return validate_points_run(args, SHORT, dir, out);
}

static void done(cm_table *t, char *dir, char *out)
{
    cm_table_free(t);
    tu_rm_tree(dir);
    free(out);
    free(dir);
}

static int is_calibration(const cm_table *t, size_t row)
{
    long c = cm_table_col_find(t, "role");
    ck_assert(c >= 0);
    return !strcmp(cm_table_cell(t, row, (size_t)c), "calibration");
}

/* TC-Strong on bh and stn: outputs and probabilities in range, one
 * calibration point per workload at its longest lifetime, where the model
 * (fed the profile measured there, pooled over the default three
 * replicates) reproduces the store stall, pooled alike, within 15%
 * (measured: bh +3.9%, stn +2.2%; the replicates' stalls per store range
 * 22-331 cycles on bh, and their unweighted mean, 137, put the model 21%
 * low: a bug), the simulated stall grows with
 * the lifetime, and every point's simulated value sits inside its 95%
 * interval over the replicates. */
START_TEST(test_validate_lifetime_tcs)
{
    char *dir, *out;
    cm_table *t = validate_points("lifetime --protocol tcs --workloads "
                                  "bh,stn --grid lifetime=400,1000,2500,"
                                  "6400,16000", &dir, &out);
    const char *files[] = {"summary.csv", "calib.csv", "params.csv",
                           "parity_stall_cycles.png",
                           "p_expired_vs_tc.lifetime_strong_bh.png"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char *p = tu_path_in(out, files[i]);
        FILE *f = fopen(p, "r");
        ck_assert_msg(f != NULL, "no %s", files[i]);
        fclose(f);
        free(p);
    }
    ck_assert_uint_eq(cm_table_nrows(t), 10);
    size_t cal = 0;
    for (size_t i = 0; i < 10; i++) {
        for (int k = 0; k < 2; k++) {
            const char *col = k ? "model_p_expired" : "model_p_hit";
            double p = tu_num(t, i, col);
            ck_assert_msg(p >= 0 && p <= 1, "%s = %g", col, p);
        }
        double model = tu_num(t, i, "model_stall_cycles");
        double sim = tu_num(t, i, "sim_stall_cycles");
        if (is_calibration(t, i)) {
            cal++;
            ck_assert_uint_eq(i % 5, 4); /* the longest lifetime */
            ck_assert_msg(tu_close(model, sim, 0.15),
                          "row %zu: stall model %g, simulated %g", i, model,
                          sim);
        }
        if (i % 5) /* same workload, the next lifetime up */
            ck_assert_msg(sim > tu_num(t, i - 1, "sim_stall_cycles"),
                          "row %zu: stall not growing with L", i);
        double lo = tu_num(t, i, "sim_stall_cycles_ci95_lo"),
               hi = tu_num(t, i, "sim_stall_cycles_ci95_hi");
        ck_assert_msg(lo <= sim && sim <= hi && hi > lo,
                      "row %zu: %g outside [%g, %g]", i, sim, lo, hi);
    }
    ck_assert_uint_eq(cal, 2); /* one of five per workload */
    done(t, dir, out);
}
END_TEST

START_TEST(test_validate_lifetime_tcw_fence)
{
    char *dir, *out;
    cm_table *t = validate_points("lifetime --workloads bh --grid "
                                  "lifetime=400,1000,2500,6400,16000 "
                                  "--replicates 1", &dir, &out);
    ck_assert_int_ge(cm_table_col_find(t, "tc.lifetime_weak"), 0);
    for (size_t i = 0; i < cm_table_nrows(t); i++)
        if (is_calibration(t, i)) {
            double model = tu_num(t, i, "model_stall_cycles");
            double sim = tu_num(t, i, "sim_stall_cycles");
            ck_assert_msg(tu_close(model, sim, 0.30),
                          "fence wait: model %g, simulated %g", model, sim);
        }
    done(t, dir, out);
}
END_TEST

/* Row i's model_<q> within cal (calibration) or held (held-out) of its
 * sim_<q>. */
static void assert_row_close(const cm_table *t, size_t i, const char *q,
                             double cal, double held)
{
    char mq[64], sq[64];
    snprintf(mq, sizeof mq, "model_%s", q);
    snprintf(sq, sizeof sq, "sim_%s", q);
    double model = tu_num(t, i, mq), sim = tu_num(t, i, sq);
    ck_assert_msg(tu_close(model, sim, is_calibration(t, i) ? cal : held),
                  "row %zu: %s model %g, simulated %g", i, q, model, sim);
}

/* Under tcw the adaptive predictor: the mean-field time average from
 * tc.predictor_init follows the simulated tc.lifetime_mean across t_hit
 * (over 100k cycles, 5.4-10.6% low held out, 6.1% at the calibration
 * point; it once could not, when the simulator took every L2 miss for a
 * load to an expired line), both grow with t_hit, and in so short a run
 * the predictor is still on its way up to the equilibrium.  Bug: the rate
 * of loads finding their L1 copy expired ignored the lease delay (the copy
 * fills d after the L2 granted L, so it expires at age L - d), 35-47% low
 * against the simulator at fixed L = 2000 and 8000 on kmn (12% and 2%
 * with d), and the time average 9-25% low.  Over 30k cycles kmn's cold
 * start (no reuse yet, then faster than its average) is a fifth of the
 * run, which no stationary rate follows (20% low at t_hit = 16). */
START_TEST(test_validate_lifetime_tcw_predictor)
{
    char *dir, *out;
    cm_table *t = validate_points_run("lifetime --protocol tcw --workloads "
                                      "kmn --grid tc.t_hit=1,2,4,8,16",
                                      "--set sim.max_cycles=100000 --quiet",
                                      &dir, &out);
    ck_assert_uint_eq(cm_table_nrows(t), 5);
    for (size_t i = 0; i < 5; i++) {
        assert_row_close(t, i, "lifetime_mean", 0.10, 0.15);
        double model = tu_num(t, i, "model_lifetime_mean");
        double sim = tu_num(t, i, "sim_lifetime_mean");
        ck_assert(tu_num(t, i, "model_equilibrium") > sim);
        ck_assert_double_eq(tu_num(t, i, "sim_equilibrium"), sim);
        if (i) {
            ck_assert(model > tu_num(t, i - 1, "model_lifetime_mean"));
            ck_assert(sim > tu_num(t, i - 1, "sim_lifetime_mean"));
        }
    }
    cm_table *sum = out_table(out, "summary.csv");
    ck_assert_uint_eq(cm_table_nrows(sum), 2);
    ck_assert_str_eq(cm_table_cell(sum, 0, 0), "equilibrium");
    ck_assert_str_eq(cm_table_cell(sum, 1, 0), "lifetime_mean");
    ck_assert_double_eq(tu_num(sum, 0, "target_value"), 0.15);
    cm_table_free(sum);
    done(t, dir, out);
}
END_TEST

/* bh stores to and does atomics on lines it never loads; GPU-VIni's
 * directory allocates only on loads, so those requests touch no entry.  A
 * model fed the L2's stream (every request allocating) overpredicted
 * recalls by 50-63% here; fed the directory's own stream it is within 10%
 * at the calibration point and 15% at the two smaller directories (larger
 * ones, not yet full after 30k cycles, conflict through the simulator's
 * address-bit set index, which the uniform set model does not see). */
START_TEST(test_validate_recall_gpu_vini_stream)
{
    char *dir, *out;
    cm_table *t = validate_points("recall --workloads bh --grid "
                                  "ratio=1,1.5,2,3,4", &dir, &out);
    ck_assert_uint_eq(cm_table_nrows(t), 5);
    for (size_t i = 0; i < 3; i++)
        assert_row_close(t, i, "recalls_per_access", 0.10, 0.15);
    done(t, dir, out);
}
END_TEST

START_TEST(test_validate_recall_gpu_vini)
{
    char *dir, *out;
    cm_table *t = validate_points("recall --workloads kmn --grid "
                                  "ratio=1,2,4,8,16", &dir, &out);
    ck_assert_uint_eq(cm_table_nrows(t), 5);
    for (size_t i = 0; i < 5; i++) {
        double model = tu_num(t, i, "model_recalls_per_access");
        double sim = tu_num(t, i, "sim_recalls_per_access");
        if (is_calibration(t, i))
            ck_assert_msg(tu_close(model, sim, 0.35),
                          "recalls: model %g, simulated %g", model, sim);
        if (i) {
            ck_assert(model < tu_num(t, i - 1, "model_recalls_per_access"));
            ck_assert(sim < tu_num(t, i - 1, "sim_recalls_per_access"));
        }
    }
    cm_table_free(t);
    t = out_table(out, "summary.csv");
    ck_assert_uint_eq(cm_table_nrows(t), 1);
    ck_assert_str_eq(cm_table_cell(t, 0, 0), "recalls_per_access");
    done(t, dir, out);
}
END_TEST

START_TEST(test_validate_directory_gpu_vi)
{
    char *dir, *out;
    /* the command's own run length (SHORT overridden): recalls need it to
     * settle */
    cm_table *t = validate_points_run("directory --workloads kmn --grid "
                                      "l1size=8K,16K,32K,64K,128K",
                                      "--quiet", &dir, &out);
    ck_assert_uint_eq(cm_table_nrows(t), 5);
    for (size_t i = 0; i < 5; i++) {
        double sim = tu_num(t, i, "sim_msgs_per_access");
        /* 0.2 before the recalls per access were carried over from the
         * profile (held-out 128K was -22%) */
        assert_row_close(t, i, "msgs_per_access", 0.05, 0.1);
        /* a request and its answer: at least 1 message and 1 flit each */
        ck_assert(tu_num(t, i, "sim_flits_per_access") >= sim && sim >= 1);
        if (i) { /* a bigger L1 misses less */
            ck_assert(tu_num(t, i, "model_msgs_per_access") <=
                      tu_num(t, i - 1, "model_msgs_per_access"));
            ck_assert(sim < tu_num(t, i - 1, "sim_msgs_per_access"));
        }
    }
    done(t, dir, out);
}
END_TEST

START_TEST(test_validate_coh_bad_input)
{
    char *dir = tu_tmpdir();
    const struct {
        const char *args, *needle;
    } bad[] = {
        {"lifetime --protocol mesi --workloads bh --grid "
         "lifetime=400,800,1600,3200,6400", "fixed lifetime"},
        {"recall --protocol tcs --workloads kmn --grid ratio=1,2,4,8,16",
         "tcs"},
        {"recall --protocol nosuch --workloads kmn", "nosuch"},
        {"lifetime --workloads bh,cl --grid lifetime=400,1600,6400",
         "per workload"},
        {"lifetime --workloads bh --replicates 0", "--replicates"},
        {"lifetime --workloads bh --replicates 2x", "--replicates"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char args[1024];
        snprintf(args, sizeof args, "validate %s " SHORT " --out %s/v%zu",
                 bad[i].args, dir, i);
        tu_expect_rejected(args, bad[i].needle);
    }
    ck_assert_uint_eq(tu_dir_entries(dir), 0); /* nothing half-written */
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* The stores one `cohmod sim` run made at the L2 (rate.l2_stores of its
 * profile times its cycles: the events the stall is a mean over). */
static double run_stores(const char *dir, unsigned seed, double lifetime)
{
    char *prof = tu_path_in(dir, "profile.csv"),
         *stats = tu_path_in(dir, "stats.csv");
    tu_run r = tu_cohmodf("sim --protocol tcsuo --workload stn --set "
                          "tc.lifetime_strong=%g --set sim.seed=%u "
                          SHORT " --profile-out %s --out %s",
                          lifetime, seed, prof, stats);
    ck_assert_msg(r.status == 0, "sim: %s", r.err);
    tu_run_free(&r);
    cm_profile *p;
    cm_table *t;
    cm_err err = {0};
    double rate, cycles = -1;
    ck_assert(!cm_profile_read(prof, &p, &err));
    ck_assert(!cm_profile_rate(p, "rate.l2_stores", &rate, &err));
    ck_assert(!cm_table_read_file(stats, &t, &err));
    for (size_t i = 0; i < cm_table_nrows(t); i++)
        if (!strcmp(cm_table_cell(t, i, 0), "gpu.cycles") &&
            !strcmp(cm_table_cell(t, i, 1), "all"))
            cycles = tu_num(t, i, "value");
    ck_assert(cycles > 0);
    cm_profile_free(p);
    cm_table_free(t);
    free(prof);
    free(stats);
    return rate * cycles;
}

/* --replicates N runs every point with seeds sim.seed .. sim.seed + N - 1
 * and reports the mean with its Student-t interval.  The stall is a mean
 * per store, so the replicates pool as one run: against single runs at
 * seeds 5 and 6 (stalls a, b over n5, n6 stores), the mean is
 * (n5 a + n6 b) / (n5 + n6), and the ratio estimator's half-width with
 * lambda = n5 / (n5 + n6) is t(0.975, 1) 2 lambda (1 - lambda) |a - b|
 * (12.706 |a - b| / 2 at equal weights). */
START_TEST(test_validate_replicates_mean_of_seeds)
{
    static const double grid[] = {400, 1000, 2500, 6400, 16000};
    const char *args = "lifetime --protocol tcsuo --workloads stn --grid "
                       "lifetime=400,1000,2500,6400,16000";
    char *d[3], *o[3];
    char a1[256], a2[256], a3[256];
    snprintf(a1, sizeof a1, "%s --replicates 2 --set sim.seed=5", args);
    snprintf(a2, sizeof a2, "%s --replicates 1 --set sim.seed=5", args);
    snprintf(a3, sizeof a3, "%s --replicates 1 --set sim.seed=6", args);
    cm_table *two = validate_points(a1, &d[0], &o[0]);
    cm_table *s5 = validate_points(a2, &d[1], &o[1]);
    cm_table *s6 = validate_points(a3, &d[2], &o[2]);
    char *tmp = tu_tmpdir();
    ck_assert_uint_eq(cm_table_nrows(two), 5);
    for (size_t i = 0; i < cm_table_nrows(two); i++) {
        double a = tu_num(s5, i, "sim_stall_cycles"),
               b = tu_num(s6, i, "sim_stall_cycles");
        double n5 = run_stores(tmp, 5, grid[i]), n6 = run_stores(tmp, 6, grid[i]);
        double lambda = n5 / (n5 + n6);
        double mean = tu_num(two, i, "sim_stall_cycles");
        double half = 0.5 * (tu_num(two, i, "sim_stall_cycles_ci95_hi") -
                             tu_num(two, i, "sim_stall_cycles_ci95_lo"));
        ck_assert_msg(tu_close(mean, lambda * a + (1 - lambda) * b, 1e-9),
                      "row %zu: mean %g of %g and %g over %g and %g stores",
                      i, mean, a, b, n5, n6);
        double want = 12.7062047 * 2 * lambda * (1 - lambda) * fabs(a - b);
        ck_assert_msg(fabs(half - want) <= 1e-6 * (1 + half),
                      "row %zu: half-width %g for %g and %g (want %g)", i,
                      half, a, b, want);
    }
    tu_rm_tree(tmp);
    free(tmp);
    for (int k = 0; k < 3; k++) done(k ? (k == 1 ? s5 : s6) : two, d[k], o[k]);
}
END_TEST

Suite *suite_cli_validate_coh(void)
{
    Suite *s = suite_create("cli_validate_coh");
    TCase *tc = tcase_create("validate");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_validate_lifetime_tcs);
    tcase_add_test(tc, test_validate_lifetime_tcw_fence);
    tcase_add_test(tc, test_validate_lifetime_tcw_predictor);
    tcase_add_test(tc, test_validate_recall_gpu_vini);
    tcase_add_test(tc, test_validate_recall_gpu_vini_stream);
    tcase_add_test(tc, test_validate_directory_gpu_vi);
    tcase_add_test(tc, test_validate_coh_bad_input);
    tcase_add_test(tc, test_validate_replicates_mean_of_seeds);
    suite_add_tcase(s, tc);
    return s;
}
