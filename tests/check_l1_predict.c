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
#include "models/l1_profile.h"
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

/* Brute force: the miss ratio of a sets x ways LRU cache (set = line
 * mod sets) over the round-robin interleaving of nw streams, one access
 * per warp per turn (a finished warp drops out). */
static double lru_sim(uint64_t *const *st, const size_t *n, size_t nw,
                      uint64_t sets, uint64_t ways)
{
    uint64_t *tag = malloc(sets * ways * sizeof *tag);
    uint64_t *age = calloc(sets * ways, sizeof *age);
    size_t *pos = calloc(nw, sizeof *pos);
    double miss = 0, acc = 0;
    uint64_t now = 0;
    for (size_t i = 0; i < sets * ways; i++) tag[i] = UINT64_MAX;
    for (int more = 1; more;) {
        more = 0;
        for (size_t w = 0; w < nw; w++) {
            if (pos[w] == n[w]) continue;
            more = 1;
            uint64_t x = st[w][pos[w]++], *t = tag + (x % sets) * ways;
            uint64_t *a = age + (x % sets) * ways;
            size_t hit = ways, old = 0;
            for (size_t k = 0; k < ways; k++) {
                if (t[k] == x) hit = k;
                if (a[k] < a[old]) old = k;
            }
            acc += 1;
            if (hit == ways) {
                miss += 1;
                t[old] = x;
                hit = old;
            }
            a[hit] = ++now;
        }
    }
    free(tag);
    free(age);
    free(pos);
    return miss / acc;
}

/* The streams of warps 0 .. nw-1 (loads only: write_frac 0). */
static void streams(const cm_params *p, const cm_workload_profile *w,
                    size_t nw, uint64_t **st, size_t *n)
{
    enum { CAP = 70000 };
    for (size_t k = 0; k < nw; k++) {
        st[k] = malloc(CAP * sizeof **st);
        n[k] = warp_lines(p, w, (uint32_t)k, st[k], CAP);
    }
}

static void geometry(cm_params *p, uint64_t sets, uint64_t ways)
{
    p->l1_ways = (double)ways;
    p->l1_size = (double)(sets * ways) * p->l1_line;
}

START_TEST(test_one_warp_is_exact_lru)
{
    /* W = 1: the prediction is the mean over the profile's warps of each
     * warp alone in the cache, exactly: fully associative (1 set of 16
     * ways), direct mapped, 4-way; contiguous and strided data. */
    static const uint64_t geo[][2] = {{1, 16}, {64, 1}, {16, 4}, {32, 4}};
    static const double stride[] = {1, 32};
    cm_params p;
    machine(&p, 4);
    uint64_t *st[CM_L1_PROFILE_WARPS];
    size_t n[CM_L1_PROFILE_WARPS];
    for (size_t s = 0; s < 2; s++) {
        cm_workload_profile w = private_profile(512, 0); /* loads only */
        w.kernel_len = 1500;
        w.reqs_mean = 4;
        w.line_stride = stride[s];
        streams(&p, &w, CM_L1_PROFILE_WARPS, st, n);
        for (size_t g = 0; g < 4; g++) {
            geometry(&p, geo[g][0], geo[g][1]);
            double ref = 0;
            for (size_t k = 0; k < CM_L1_PROFILE_WARPS; k++)
                ref += lru_sim(&st[k], &n[k], 1, geo[g][0], geo[g][1]) /
                       CM_L1_PROFILE_WARPS;
            cm_l1_prediction pr = predict(&p, &w, 1);
            ck_assert_int_eq(pr.set_local, 1);
            ck_assert_msg(fabs(pr.miss_ratio - ref) < 1e-9,
                          "stride %g, %llu x %llu: model %.6f, LRU %.6f",
                          stride[s], (unsigned long long)geo[g][0],
                          (unsigned long long)geo[g][1], pr.miss_ratio, ref);
            ck_assert(ref > 0.02 && ref < 0.98); /* something to get */
        }
        for (size_t k = 0; k < CM_L1_PROFILE_WARPS; k++) free(st[k]);
    }
}
END_TEST

/* Loads only, 4 lines per instruction, 80% reuses within 16 lines, 1024
 * private lines: the brute-force comparisons' streams. */
static cm_workload_profile reuse_profile(void)
{
    cm_workload_profile w = private_profile(1024, 0);
    w.kernel_len = 1500;
    w.reqs_mean = 4;
    w.reuse_prob = 0.8;
    return w;
}

/* The geometries of the brute-force comparisons, sets x ways. */
static const uint64_t bf_geo[][2] = {{32, 4}, {64, 1}};

/* For profile w, per geometry g and degree warps[j] (j < nw <= 3): the
 * model into model[g][j], the brute-force round-robin LRU of warps
 * 0 .. warps[j]-1 into ref[g][j] (W = 1: the mean over the profile's
 * warps of each alone, what the model's mean warp stands for). */
static void brute_force(const cm_workload_profile *w, const size_t *warps,
                        size_t nw, double model[2][3], double ref[2][3])
{
    cm_params p;
    machine(&p, 16);
    uint64_t *st[16];
    size_t n[16];
    streams(&p, w, 16, st, n);
    for (size_t g = 0; g < 2; g++) {
        geometry(&p, bf_geo[g][0], bf_geo[g][1]);
        for (size_t j = 0; j < nw; j++) {
            model[g][j] = predict(&p, w, (double)warps[j]).miss_ratio;
            ref[g][j] = 0;
            for (size_t k = 0; warps[j] == 1 && k < CM_L1_PROFILE_WARPS;
                 k++)
                ref[g][j] += lru_sim(&st[k], &n[k], 1, bf_geo[g][0],
                                     bf_geo[g][1]) / CM_L1_PROFILE_WARPS;
            if (warps[j] > 1)
                ref[g][j] = lru_sim(st, n, warps[j], bf_geo[g][0],
                                    bf_geo[g][1]);
        }
    }
    for (size_t k = 0; k < 16; k++) free(st[k]);
}

/* Measured (model - brute-force round-robin LRU, warps 0..W-1) over
 * stride 1 and 32 (an instruction's 4 lines in one set of a 32-set L1:
 * scluster's pattern, where the binomial placement model under-predicted
 * li2014's misses by 0.33), W = 4 and 16, 32 x 4 and 64 x 1 caches: see
 * the assertion's message; tolerance 0.05. */
START_TEST(test_interleaved_against_brute_force)
{
    static const double stride[] = {1, 32};
    static const size_t warps[] = {4, 16};
    for (size_t s = 0; s < 2; s++) {
        cm_workload_profile w = reuse_profile();
        w.line_stride = stride[s];
        double model[2][3], ref[2][3];
        brute_force(&w, warps, 2, model, ref);
        for (size_t g = 0; g < 2; g++)
            for (size_t j = 0; j < 2; j++)
                ck_assert_msg(fabs(model[g][j] - ref[g][j]) < 0.05,
                              "stride %g, %llu x %llu, W %zu: model %.4f, "
                              "LRU %.4f", stride[s],
                              (unsigned long long)bf_geo[g][0],
                              (unsigned long long)bf_geo[g][1], warps[j],
                              model[g][j], ref[g][j]);
    }
}
END_TEST

/* Shared data: every warp of the SM draws from one pool of lines.  The
 * model credits a pool's load with the other warps' touches of its line
 * but still counts their copies of the pool's lines as distinct in its
 * set, so it stays above the truth.  Measured against the brute-force
 * round-robin LRU of the same streams (32 x 4 and 64 x 1, W = 4 and 16):
 * 40% of 64 SM-shared lines + 30% of 512 GPU-shared -0.014 .. +0.078;
 * 80% of 64 SM-shared +0.039 .. +0.35.  Asserted: never more than 0.02
 * below, and W = 1 exact (no other warp to share with). */
START_TEST(test_shared_pool_bounds)
{
    static const size_t warps[] = {1, 4, 16};
    for (size_t s = 0; s < 2; s++) {
        cm_workload_profile w = reuse_profile();
        w.share_sm = s ? 0.8 : 0.4;
        w.sm_shared_lines = 64;
        w.share_gpu = s ? 0 : 0.3;
        w.gpu_shared_lines = 512;
        double model[2][3], ref[2][3];
        brute_force(&w, warps, 3, model, ref);
        for (size_t g = 0; g < 2; g++) {
            ck_assert_close(model[g][0], ref[g][0], 1e-9);
            for (size_t j = 1; j < 3; j++)
                ck_assert_msg(model[g][j] > ref[g][j] - 0.02,
                              "sharing %zu, %llu x %llu, W %zu: model "
                              "%.4f, LRU %.4f", s,
                              (unsigned long long)bf_geo[g][0],
                              (unsigned long long)bf_geo[g][1], warps[j],
                              model[g][j], ref[g][j]);
        }
    }
}
END_TEST

START_TEST(test_fitting_footprint_leaves_cold_misses)
{
    /* 2 warps of 8 private lines in a fully associative 32-line L1: only
     * the cold misses, exactly (profile's mean warp: each of its warps'
     * distinct lines over its accesses). */
    cm_params p;
    machine(&p, 2);
    geometry(&p, 1, 32);
    cm_workload_profile w = private_profile(8, 0);
    cm_l1_prediction pr = predict(&p, &w, 2);
    enum { CAP = 4000 };
    uint64_t *lines = malloc(CAP * sizeof *lines);
    double cold = 0, accesses = 0;
    for (uint32_t k = 0; k < CM_L1_PROFILE_WARPS; k++) {
        size_t n = warp_lines(&p, &w, k, lines, CAP);
        qsort(lines, n, sizeof *lines, u64_cmp);
        for (size_t i = 0; i < n; i++) cold += !i || lines[i] != lines[i - 1];
        accesses += (double)n;
    }
    free(lines);
    ck_assert_close(pr.accesses_per_warp, accesses / CM_L1_PROFILE_WARPS,
                    1e-9);
    ck_assert_close(pr.miss_ratio, cold / accesses, 1e-9);
    ck_assert(cold / accesses > 0.005);
    /* Stores always miss and are excluded from the reuse streams: with
     * 30% stores the miss ratio rises by about 0.3. */
    machine(&p, 8);
    cm_workload_profile w16 = private_profile(16, 0),
                        ws = private_profile(16, 0.3);
    ck_assert(predict(&p, &ws, 8).miss_ratio >
              predict(&p, &w16, 8).miss_ratio + 0.25);
}
END_TEST

START_TEST(test_profile_cache_keys)
{
    /* One profile per (workload parameters, seed, line); a change in any
     * of them is another profile. */
    cm_workload_profile a = private_profile(64, 0), b = a;
    b.reuse_window = 8;
    const cm_l1_profile *pa, *pa2, *pb, *ps, *pl;
    cm_err err = {0};
    ck_assert_int_eq(cm_l1_profile_get(&a, 1, 128, &pa, &err), CM_OK);
    ck_assert_int_eq(cm_l1_profile_get(&a, 1, 128, &pa2, &err), CM_OK);
    ck_assert_ptr_eq(pa, pa2);
    ck_assert_int_eq(cm_l1_profile_get(&b, 1, 128, &pb, &err), CM_OK);
    ck_assert_int_eq(cm_l1_profile_get(&a, 2, 128, &ps, &err), CM_OK);
    ck_assert_int_eq(cm_l1_profile_get(&a, 1, 64, &pl, &err), CM_OK);
    ck_assert_ptr_ne(pa, pb);
    ck_assert_ptr_ne(pa, ps);
    ck_assert_ptr_ne(pa, pl);
    ck_assert(cm_l1_profile_loads(pa) > 0);
    ck_assert_uint_le(cm_l1_profile_nbins(), CM_L1_PROFILE_NBINS_MAX);
    cm_l1_profile_cache_clear();
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

/* The interleaving degree from the scheduler: LRR interleaves the fraction
 * of the active warps; GTO at most the warps in play, which for a workload
 * bound by its MSHRs (32 lines per instruction, 8 MSHRs) does not grow
 * with the active warps (the simulator: atax on li2014 misses 0.546 at
 * both 26 and 37 active warps). */
START_TEST(test_scheduler_degree)
{
    cm_params p;
    machine(&p, 48);
    p.l1_mshrs = 8;
    cm_workload_profile w = private_profile(1024, 0);
    w.reqs_mean = 32;
    w.reuse_prob = 0.7;
    w.kernel_len = 300;
    cm_l1_prediction a, b, c, d;
    cm_err err = {0};
    p.sched_active_warps = 40;
    ck_assert_int_eq(cm_l1_predict_scheduled(&p, &w, 0.5, &a, &err), CM_OK);
    ck_assert_close(a.warps_interleaved, 20, 1e-12); /* LRR: f x active */
    ck_assert_close(a.miss_ratio, predict(&p, &w, 20).miss_ratio, 1e-12);
    p.sched_policy = 1; /* GTO */
    ck_assert_int_eq(cm_l1_predict_scheduled(&p, &w, 0.5, &b, &err), CM_OK);
    p.sched_active_warps = 24;
    ck_assert_int_eq(cm_l1_predict_scheduled(&p, &w, 0.5, &c, &err), CM_OK);
    ck_assert(b.warps_interleaved < 4);
    ck_assert_close(b.warps_interleaved, c.warps_interleaved, 1e-9);
    ck_assert_close(b.miss_ratio, c.miss_ratio, 1e-9);
    ck_assert(b.miss_ratio < a.miss_ratio - 0.05);
    /* more MSHRs keep more warps in play */
    p.l1_mshrs = 128;
    ck_assert_int_eq(cm_l1_predict_scheduled(&p, &w, 0.5, &d, &err), CM_OK);
    ck_assert(d.warps_interleaved > c.warps_interleaved + 1);
    ck_assert_int_eq(cm_l1_predict_scheduled(&p, &w, 0, &d, &err),
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
    tcase_add_test(tc, test_one_warp_is_exact_lru);
    tcase_add_test(tc, test_interleaved_against_brute_force);
    tcase_add_test(tc, test_shared_pool_bounds);
    tcase_add_test(tc, test_fitting_footprint_leaves_cold_misses);
    tcase_add_test(tc, test_profile_cache_keys);
    tcase_add_test(tc, test_more_warps_never_fewer_misses);
    tcase_add_test(tc, test_rejects_bad_degree);
    tcase_add_test(tc, test_scheduler_degree);
    tcase_add_test(tc, test_agrees_with_simulator);
    suite_add_tcase(s, tc);
    return s;
}
