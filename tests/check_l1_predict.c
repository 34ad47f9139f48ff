/* check_l1_predict.c - the L1 miss-ratio prediction (models/l1_predict.h):
 * one warp reduces to the set-associative model of its own histogram, a
 * footprint that fits leaves only cold misses (and the stores, which always
 * miss), more interleaved warps never lower the miss ratio, fractional
 * degrees interpolate, and the prediction meets the simulator on a small
 * machine within a measured tolerance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/l1_predict.h"
#include "models/mrc.h"
#include "models/reuse.h"
#include "sim/gpu.h"
#include "sim/protocol.h"
#include "tests/testutil.h"

/* A user profile with private data only (no sharing: the model's
 * disjointness assumption holds). */
static cm_workload_profile private_profile(double lines, double write_frac)
{
    cm_workload_profile w;
    cm_workload_profile_default(&w);
    w.private_lines = lines;
    w.write_frac = write_frac;
    w.kernel_len = 500;
    return w;
}

static void machine(cm_params *p, double warps)
{
    cm_params_init(p);
    p->gpu_sms = 1;
    p->gpu_warps_per_sm = warps;
    p->sched_active_warps = warps;
    p->sched_policy = 0; /* LRR: the closest to the model's round-robin */
}

static cm_l1_prediction predict(const cm_params *p,
                                const cm_workload_profile *w, double warps)
{
    cm_l1_prediction pr;
    cm_err err = {0};
    ck_assert_msg(cm_l1_predict_miss_ratio(p, w, warps, &pr, &err) == CM_OK,
                  "%s", err.msg);
    return pr;
}

/* Warp `warp` of SM 0's line stream, as gpu.c generates it. */
static size_t warp_lines(const cm_params *p, const cm_workload_profile *w,
                         uint32_t warp, uint64_t *lines, size_t cap)
{
    cm_wgen *g = malloc(sizeof *g);
    cm_winst in;
    cm_err err = {0};
    ck_assert_int_eq(cm_wgen_init(g, w, (uint64_t)p->sim_seed, 0, warp,
                                  (uint32_t)p->l1_line, &err),
                     CM_OK);
    size_t n = 0;
    for (cm_wgen_next(g, &in); in.kind != CM_WI_END; cm_wgen_next(g, &in))
        for (unsigned j = 0; in.kind == CM_WI_MEM && j < in.n; j++) {
            ck_assert_uint_lt(n, cap);
            lines[n++] = in.lines[j];
        }
    free(g);
    return n;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

START_TEST(test_one_warp_is_setassoc_of_its_histogram)
{
    cm_params p;
    machine(&p, 4);
    cm_workload_profile w = private_profile(512, 0); /* loads only */
    w.kernel_len = 3000;
    cm_l1_prediction pr = predict(&p, &w, 1);
    /* The reference: warp 0's exact stack distances, the binomial
     * set-associative model (same 1024 exact bins as a warp profile). */
    enum { CAP = 4000 };
    uint64_t *lines = malloc(CAP * sizeof *lines);
    size_t n = warp_lines(&p, &w, 0, lines, CAP);
    ck_assert_uint_eq(pr.accesses, n);
    ck_assert_uint_eq(pr.warps, 1);
    cm_sample_spec none = {.kind = CM_SAMPLE_NONE};
    cm_reuse_engine *e = NULL;
    cm_reuse_hist h;
    cm_err err = {0};
    ck_assert_int_eq(cm_reuse_engine_new(&none, 1024, &e, &err), CM_OK);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(cm_reuse_engine_access(e, lines[i], &err), CM_OK);
    ck_assert_int_eq(cm_reuse_engine_finish(e, &h, &err), CM_OK);
    double ref;
    uint64_t sets = (uint64_t)(p.l1_size / (p.l1_ways * p.l1_line));
    ck_assert_int_eq(cm_mrc_setassoc(&h, sets, (uint64_t)p.l1_ways, &ref,
                                     &err),
                     CM_OK);
    ck_assert_close(pr.miss_ratio, ref, 1e-9);
    /* and fully associative: the LRU miss ratio of the whole capacity */
    ck_assert_close(1 - pr.hit_rate_fa,
                    cm_reuse_hist_miss_ratio(&h, p.l1_size / p.l1_line),
                    1e-9);
    ck_assert(ref > 0.05 && ref < 0.95); /* a case with something to get */
    cm_reuse_hist_free(&h);
    cm_reuse_engine_free(e);
    free(lines);
}
END_TEST

START_TEST(test_fitting_footprint_leaves_cold_misses)
{
    /* 8 warps of 16 private lines: 128 lines in a 256-line L1. */
    cm_params p;
    machine(&p, 8);
    cm_workload_profile w = private_profile(16, 0);
    cm_l1_prediction pr = predict(&p, &w, 8);
    enum { CAP = 2000 };
    uint64_t *lines = malloc(CAP * sizeof *lines);
    double cold = 0, accesses = 0;
    for (uint32_t k = 0; k < 8; k++) {
        size_t n = warp_lines(&p, &w, k, lines, CAP);
        qsort(lines, n, sizeof *lines, u64_cmp);
        for (size_t i = 0; i < n; i++) cold += !i || lines[i] != lines[i - 1];
        accesses += (double)n;
    }
    free(lines);
    ck_assert_double_eq((double)pr.accesses, accesses);
    /* Fully associative: exactly the cold misses, no capacity miss. */
    ck_assert_close(1 - pr.hit_rate_fa, cold / accesses, 1e-9);
    /* Set-associative adds conflicts only.  Random placement of 128 lines
     * in 64 sets of 4 predicts about 0.05 of them (the simulator, whose
     * contiguous footprints spread evenly over sets, shows 0.002: the
     * model's placement assumption, measured); one warp's 16 lines
     * conflict almost never. */
    ck_assert(pr.miss_ratio >= 1 - pr.hit_rate_fa - 1e-12);
    ck_assert(pr.miss_ratio < cold / accesses + 0.08);
    cm_l1_prediction one = predict(&p, &w, 1);
    ck_assert(one.miss_ratio - (1 - one.hit_rate_fa) < 0.002);
    ck_assert(1 - one.hit_rate_fa > 0.01); /* the cold misses are there */
    /* Stores always miss and are excluded from the reuse streams: with
     * 30% stores the miss ratio rises by about 0.3. */
    cm_workload_profile ws = private_profile(16, 0.3);
    cm_l1_prediction prs = predict(&p, &ws, 8);
    ck_assert(prs.miss_ratio > pr.miss_ratio + 0.25);
}
END_TEST

START_TEST(test_more_warps_never_fewer_misses)
{
    /* Streaming with reuse: half the fresh instructions stream, the rest
     * sweep 64 private lines; reuses within a window of 16. */
    cm_params p;
    machine(&p, 24);
    cm_workload_profile w = private_profile(64, 0.1);
    w.stream_frac = 0.5;
    w.kernel_len = 2000;
    double prev = 0, first = 0;
    for (double k = 1; k <= 24; k += 0.5) {
        cm_l1_prediction pr = predict(&p, &w, k);
        if (k == 1) first = pr.miss_ratio;
        ck_assert_msg(pr.miss_ratio >= prev - 1e-12,
                      "W=%g: %.6f < %.6f at W-0.5", k, pr.miss_ratio, prev);
        prev = pr.miss_ratio;
    }
    ck_assert(prev > first + 0.1); /* and it does rise: thrashing */
    /* Fractional degrees interpolate between the neighbours. */
    cm_l1_prediction a = predict(&p, &w, 6), b = predict(&p, &w, 7),
                     c = predict(&p, &w, 6.25);
    ck_assert_close(c.miss_ratio, 0.75 * a.miss_ratio + 0.25 * b.miss_ratio,
                    1e-12);
    ck_assert_uint_eq(c.warps, 7);
}
END_TEST

START_TEST(test_rejects_bad_degree)
{
    cm_params p;
    machine(&p, 8);
    cm_workload_profile w = private_profile(64, 0);
    cm_l1_prediction pr;
    cm_err err = {0};
    double bad[] = {0.5, 8.5, NAN};
    for (size_t i = 0; i < 3; i++) {
        ck_assert_int_eq(cm_l1_predict_miss_ratio(&p, &w, bad[i], &pr, &err),
                         CM_EINPUT);
        ck_assert_ptr_nonnull(strstr(err.msg, "gpu.warps_per_sm"));
    }
    w.reuse_prob = 2;
    ck_assert_int_eq(cm_l1_predict_miss_ratio(&p, &w, 2, &pr, &err),
                     CM_EINPUT);
}
END_TEST

static double sim_miss_ratio(const cm_params *p, const cm_workload_profile *w)
{
    cm_stats *stats = cm_stats_new();
    cm_gpu_run_config cfg = {.params = p, .workload = w,
                             .protocol = cm_protocol_find("no-coh")};
    cm_gpu_result res;
    cm_err err = {0};
    ck_assert_msg(cm_gpu_run(&cfg, stats, &res, &err) == CM_OK, "%s",
                  err.msg);
    ck_assert(res.finished);
    cm_stat_row *rows = NULL;
    size_t n = 0;
    ck_assert_int_eq(cm_stats_rows(stats, &rows, &n, &err), CM_OK);
    const cm_stat_row *r = cm_stats_find(rows, n, "l1.miss_ratio", "sm0");
    ck_assert_ptr_nonnull(r);
    double v = r->value;
    free(rows);
    cm_stats_free(stats);
    return v;
}

/* One SM, 8 warps all active, LRR, NO-COH, 10% stores.  Measured over
 * sim.seed 1..5 (kernel_len 500): 16 lines per warp (fits) model - sim =
 * +0.042, +0.013, +0.039, +0.040, +0.015; 128 lines per warp (thrashes)
 * +0.005, +0.005, +0.005, +0.005, -0.008.  Tolerance 0.06: the largest
 * error seen plus the spread from run to run.  The model reads merges
 * into fills in flight as hits and places lines in sets at random (the L1
 * uses line mod sets), and near the capacity cliff (32 lines per warp:
 * 256 lines, exactly the L1) it errs by up to +0.11: not tested here. */
START_TEST(test_agrees_with_simulator)
{
    const double lines[] = {16, 128};
    for (size_t i = 0; i < 2; i++) {
        cm_params p;
        machine(&p, 8);
        cm_workload_profile w = private_profile(lines[i], 0.1);
        double sim = sim_miss_ratio(&p, &w);
        cm_l1_prediction pr = predict(&p, &w, 8);
        ck_assert_msg(fabs(pr.miss_ratio - sim) < 0.06,
                      "%g lines/warp: model %.4f, simulator %.4f", lines[i],
                      pr.miss_ratio, sim);
    }
}
END_TEST

Suite *suite_l1_predict(void)
{
    Suite *s = suite_create("l1_predict");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_one_warp_is_setassoc_of_its_histogram);
    tcase_add_test(tc, test_fitting_footprint_leaves_cold_misses);
    tcase_add_test(tc, test_more_warps_never_fewer_misses);
    tcase_add_test(tc, test_rejects_bad_degree);
    tcase_add_test(tc, test_agrees_with_simulator);
    suite_add_tcase(s, tc);
    return s;
}
