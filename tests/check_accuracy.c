/* check_accuracy.c - the reuse engine's accuracy targets on real traces.
 *
 * The traces are valgrind lackey traces of real programs, made by
 * scripts/make_traces.sh into $COHMOD_TRACES (make test does it once per
 * build tree): ls -l (1M data accesses), sort and gzip (2M), sha256sum (1M).
 *
 * SHARDS (issue target: MAE <= 0.01 at R = 0.01) is measured the way the
 * SHARDS paper does, over cache sizes evenly spaced up to the footprint.
 * A sampled curve is a random variable, so the target is checked as the
 * paper reports it, on average over hash seeds (20 here), besides the
 * default seed's own curve.  gzip is the hard case: its footprint is
 * ~5,000 lines of 64 B (~2,700 of 128 B), so R = 0.01 tracks ~50 of them
 * and the error is mostly which ones (models/shards.c).  Over 40 seeds at
 * 64 B the mean MAE is 0.0059 on gzip, 0.0017 on ls, 0.0008 on
 * sha256sum, 0.0002 on sort, and 4 of the 160 runs exceed 0.01 (gzip 3,
 * ls 1); at 128 B gzip averages 0.0091 and 14 of its 40 runs exceed 0.01.
 * A single seed's bound is therefore 0.02 on gzip.
 *
 * The set-associative prediction is compared with exact simulation per
 * line reference (the unit of stack distances) on every trace. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/params.h"
#include "models/mrc.h"
#include "models/mrc_table.h"
#include "models/reuse_stream.h"
#include "models/setlocal.h"
#include "models/spatial.h"
#include "sim/cache.h"
#include "tests/testutil.h"

static char *trace_path(const char *name)
{
    const char *dir = getenv("COHMOD_TRACES");
    ck_assert_msg(dir != NULL, "COHMOD_TRACES is not set (run make test)");
    return tu_path_in(dir, name);
}

static cm_reuse_result measure_at(const char *path, const char *spec,
                                  uint32_t line_bytes, uint64_t seed,
                                  cm_setlocal *sl, cm_spatial *sp)
{
    cm_reuse_request req = {0};
    cm_err err = {0};
    req.trace = path;
    req.line_bytes = line_bytes;
    req.trace_opts.line_bytes = line_bytes;
    req.op_mask = (1u << CM_OP_COUNT) - 1;
    req.exact_bins = 4096;
    req.setlocal = sl;
    req.spatial = sp;
    ck_assert_int_eq(cm_sample_spec_parse(spec, &req.sample, &err), CM_OK);
    req.sample.seed = seed;
    cm_reuse_result res;
    ck_assert_msg(cm_reuse_from_trace(&req, &res, &err) == CM_OK, "%s",
                  err.msg);
    ck_assert_uint_eq(res.nstreams, 1);
    return res;
}

static cm_reuse_result measure(const char *path, const char *spec,
                               cm_setlocal *sl, cm_spatial *sp)
{
    return measure_at(path, spec, 64, 1, sl, sp);
}

/* The MAE of one SHARDS 1% curve against the exact one (over 100 sizes
 * evenly spaced up to the footprint, as in the SHARDS paper). */
static double shards_mae(const char *path, const cm_reuse_hist *exact,
                         uint32_t line_bytes, uint64_t seed)
{
    cm_reuse_result sampled =
        measure_at(path, "shards:0.01", line_bytes, seed, NULL, NULL);
    const cm_reuse_hist *s = &sampled.streams[0].hist;
    ck_assert_close(s->rate, 0.01, 1e-6);
    ck_assert_double_eq(s->total, exact->total);
    double caps[100];
    cm_mrc_linear_grid(exact, 100, caps);
    double mae = cm_mrc_mae(exact, s, caps, 100);
    cm_reuse_result_free(&sampled);
    return mae;
}

static const struct {
    const char *name;
    double bound;
} shards_cases[] = {{"sort.lackey", 0.01},
                    {"ls.lackey", 0.01},
                    {"sha256sum.lackey", 0.01},
                    {"gzip.lackey", 0.02}};

START_TEST(test_shards_one_percent_on_real_traces)
{
    char *path = trace_path(shards_cases[_i].name);
    cm_reuse_result exact = measure(path, "none", NULL, NULL);
    double mae = shards_mae(path, &exact.streams[0].hist, 64, 1);
    fprintf(stderr, "accuracy: SHARDS 1%% on %s: MAE %.4f (bound %.2f)\n",
            shards_cases[_i].name, mae, shards_cases[_i].bound);
    ck_assert_msg(mae <= shards_cases[_i].bound, "%s: MAE %.4f",
                  shards_cases[_i].name, mae);
    cm_reuse_result_free(&exact);
    free(path);
}
END_TEST

/* The target on average over seeds, on the two traces where single seeds
 * exceed it, at the CPU line size (64 B) and the GPU one (128 B: gzip's
 * ~2,700 lines are the smallest footprint here, the bound is that of the
 * mean of 20 runs whose 40-seed mean is 0.0091 and spread 0.006). */
static const struct {
    const char *name;
    uint32_t line_bytes;
    double bound;
} shards_seed_cases[] = {{"gzip.lackey", 64, 0.01},
                         {"ls.lackey", 64, 0.01},
                         {"gzip.lackey", 128, 0.0125}};

START_TEST(test_shards_one_percent_over_seeds)
{
    enum { SEEDS = 20 };
    char *path = trace_path(shards_seed_cases[_i].name);
    uint32_t lb = shards_seed_cases[_i].line_bytes;
    cm_reuse_result exact = measure_at(path, "none", lb, 1, NULL, NULL);
    double sum = 0, worst = 0;
    unsigned over = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        double mae = shards_mae(path, &exact.streams[0].hist, lb, seed);
        sum += mae;
        over += mae > 0.01;
        if (mae > worst) worst = mae;
    }
    fprintf(stderr,
            "accuracy: SHARDS 1%% on %s, %u B lines, %d seeds: mean MAE "
            "%.4f (bound %.4f), worst %.4f, %u above 0.01\n",
            shards_seed_cases[_i].name, (unsigned)lb, SEEDS, sum / SEEDS,
            shards_seed_cases[_i].bound, worst, over);
    ck_assert_msg(sum / SEEDS <= shards_seed_cases[_i].bound,
                  "%s: mean MAE %.4f", shards_seed_cases[_i].name,
                  sum / SEEDS);
    cm_reuse_result_free(&exact);
    free(path);
}
END_TEST

/* The set-associative predictions against exact simulation of 4-, 8- and
 * 16-way LRU caches of 4 KB to 128 KB on every real trace.  The set-local
 * distances (exact for LRU) must be within 10% of the miss count.  The
 * statistical occupancy model (stack-distance histogram plus the set
 * occupancy of the reuse windows, both from the same pass, at the default
 * depth and budget of params.def) meets the 10% everywhere; it is
 * held to the worst error measured at 4/8/16 ways plus 3 points (sort
 * 0.0/0.0/0.0%, ls 2.7/4.7/6.0%, sha256sum 0.7/1.0/0.2%, gzip
 * 3.8/0.6/0.3%), so a change that loses accuracy fails (models/setassoc.c's
 * header has the history).  The binomial model from the histogram alone is
 * printed beside it. */
#define SA_NWAYS 3
#define SA_NSIZES 6
static const uint64_t sa_ways[SA_NWAYS] = {4, 8, 16};
/* Bounds on the occupancy model's relative error per trace and ways. */
static const double sa_bound[][SA_NWAYS] = {
    {0.031, 0.031, 0.031}, /* sort */
    {0.057, 0.077, 0.090}, /* ls */
    {0.038, 0.040, 0.032}, /* sha256sum */
    {0.069, 0.037, 0.033}, /* gzip */
};

static uint64_t sa_sets(size_t w, size_t z)
{
    return (4096ull << z) / 64 / sa_ways[w];
}

/* Issue 23, item 8: with shards:0.01 the sampled curve was flat below
 * ~12 KB where the exact one falls from 0.6, and its plotted 95% bars did
 * not hold the exact curve.  Below 2/R lines the table now leaves the
 * sampled curve and its interval empty (resolved "no"); every interval it
 * does give must hold the exact value at 90% or more of the sizes, over
 * the four test traces and 20 hash seeds (measured: gzip 96.5%, ls 100%,
 * sha256sum 96.1%, sort 95.0% at 64 B lines).  The raw jackknife
 * intervals below 2/R, which the old table drew, hold it far less often
 * (64%). */
START_TEST(test_shards_interval_coverage)
{
    static const char *const traces[] = {"gzip.lackey", "ls.lackey",
                                         "sha256sum.lackey", "sort.lackey"};
    enum { SEEDS = 20 };
    size_t held_all = 0, drawn_all = 0, raw_held = 0, raw_n = 0;
    for (size_t t = 0; t < 4; t++) {
        char *path = trace_path(traces[t]);
        cm_reuse_result exact = measure(path, "none", NULL, NULL);
        size_t held = 0, drawn = 0;
        for (uint64_t seed = 1; seed <= SEEDS; seed++) {
            cm_reuse_request req = {0};
            cm_err err = {0};
            req.trace = path;
            req.line_bytes = req.trace_opts.line_bytes = 64;
            req.op_mask = (1u << CM_OP_COUNT) - 1;
            req.exact_bins = 4096;
            ck_assert_int_eq(
                cm_sample_spec_parse("shards:0.01", &req.sample, &err), CM_OK);
            req.sample.seed = seed;
            req.sample.replicates = 1;
            cm_reuse_result s;
            ck_assert_msg(cm_reuse_from_trace(&req, &s, &err) == CM_OK, "%s",
                          err.msg);
            const cm_reuse_hist *sh = &s.streams[0].hist;
            cm_mrc_method m[2] = {
                {"exact", &exact.streams[0].hist, NULL, 0, 0},
                {"shards", sh, s.streams[0].reps, s.streams[0].nreps,
                 cm_sample_resolved_lines(CM_SAMPLE_SHARDS, sh->rate)}};
            ck_assert_close(m[1].resolved_lines, 200, 1e-5);
            cm_table *tab;
            ck_assert_int_eq(cm_mrc_curve_table(m, 2, 64, 8, &tab, &err),
                             CM_OK);
            size_t n = cm_table_nrows(tab) / 2;
            for (size_t j = 0; j < n; j++) {
                double cap = tu_num(tab, j, "capacity_lines");
                double ex = tu_num(tab, j, "miss_ratio");
                const char *res = cm_table_cell(tab, n + j, 7);
                if (cap < m[1].resolved_lines) {
                    ck_assert_str_eq(res, "no");
                    ck_assert_str_eq(cm_table_cell(tab, n + j, 3), "");
                    ck_assert_str_eq(cm_table_cell(tab, n + j, 5), "");
                    double mr, lo, hi; /* what the old table drew */
                    cm_mrc_fa(sh, &cap, 1, &mr);
                    cm_mrc_fa_interval(m[1].reps, m[1].nreps, sh->rate, &cap,
                                       1, &mr, &lo, &hi);
                    raw_held += ex >= lo && ex <= hi;
                    raw_n++;
                    continue;
                }
                ck_assert_str_eq(res, "yes");
                double lo = tu_num(tab, n + j, "ci95_lo");
                double hi = tu_num(tab, n + j, "ci95_hi");
                held += ex >= lo && ex <= hi;
                drawn++;
            }
            cm_table_free(tab);
            cm_reuse_result_free(&s);
        }
        fprintf(stderr, "accuracy: SHARDS 1%% 95%% interval on %s, 64 B "
                "lines, %d seeds: holds the exact curve at %zu of %zu "
                "resolved sizes (%.1f%%)\n", traces[t], SEEDS, held, drawn,
                100.0 * (double)held / (double)drawn);
        ck_assert_msg(drawn > 0 && held >= 0.9 * (double)drawn, "%s: %zu/%zu",
                      traces[t], held, drawn);
        held_all += held;
        drawn_all += drawn;
        cm_reuse_result_free(&exact);
        free(path);
    }
    fprintf(stderr, "accuracy: SHARDS 1%% 95%% interval over the four "
            "traces: %.1f%% of %zu resolved sizes; the raw interval below "
            "2/R lines: %.1f%% of %zu\n",
            100.0 * (double)held_all / (double)drawn_all, drawn_all,
            100.0 * (double)raw_held / (double)raw_n, raw_n);
    ck_assert(held_all >= 0.9 * (double)drawn_all);
    ck_assert(raw_held < 0.9 * (double)raw_n);
}
END_TEST

START_TEST(test_setassoc_against_simulation_on_real_traces)
{
    char *path = trace_path(shards_cases[_i].name);
    cm_err err = {0};
    uint64_t sets[SA_NWAYS * SA_NSIZES];
    cm_cache *cache[SA_NWAYS * SA_NSIZES];
    for (size_t w = 0; w < SA_NWAYS; w++)
        for (size_t z = 0; z < SA_NSIZES; z++) {
            size_t g = w * SA_NSIZES + z;
            sets[g] = sa_sets(w, z);
            cm_cache_config cfg = {4096ull << z, sa_ways[w], 64,
                                   CM_CACHE_LRU, 1, 1};
            ck_assert_int_eq(cm_cache_new(&cfg, &cache[g], &err), CM_OK);
        }
    cm_setlocal *sl;
    ck_assert_int_eq(cm_setlocal_new(sets, SA_NWAYS * SA_NSIZES, 16, &sl,
                                     &err), CM_OK);
    cm_params p;
    cm_params_init(&p);
    cm_spatial *sp;
    ck_assert_int_eq(cm_spatial_new(sets, SA_NWAYS * SA_NSIZES,
                                    (uint64_t)p.reuse_spatial_depth,
                                    p.reuse_spatial_budget, 1, &sp, &err),
                     CM_OK);
    cm_reuse_result exact = measure(path, "none", sl, sp);
    ck_assert_uint_eq(cm_spatial_references(sp), exact.references);
    /* The reference: one pass of the trace through every exact cache. */
    cm_trace_opts topts = {CM_TRACE_AUTO, 64};
    cm_trace *t;
    ck_assert_int_eq(cm_trace_open(path, &topts, &t, &err), CM_OK);
    cm_access a;
    int got;
    while ((got = cm_trace_next(t, &a, &err)) == 1)
        for (size_t g = 0; g < SA_NWAYS * SA_NSIZES; g++)
            cm_cache_access(cache[g], &a);
    ck_assert_int_eq(got, 0);
    cm_trace_close(t);
    for (size_t w = 0; w < SA_NWAYS; w++) {
        double worst_sl = 0, worst = 0, worst_bi = 0;
        for (size_t z = 0; z < SA_NSIZES; z++) {
            size_t g = w * SA_NSIZES + z;
            const cm_cache_counts *c = cm_cache_get_counts(cache[g]);
            ck_assert_uint_eq(c->line_refs, exact.references);
            double sim = (double)c->line_misses / (double)c->line_refs;
            double setlocal, model, binomial;
            ck_assert_int_eq(cm_setlocal_miss_ratio(sl, sets[g], sa_ways[w],
                                                    &setlocal, &err), CM_OK);
            ck_assert_int_eq(cm_mrc_setassoc_spatial(&exact.streams[0].hist,
                                                     sp, sets[g], sa_ways[w],
                                                     &model, &err), CM_OK);
            ck_assert_int_eq(cm_mrc_setassoc(&exact.streams[0].hist, sets[g],
                                             sa_ways[w], &binomial, &err),
                             CM_OK);
            ck_assert_msg(fabs(setlocal - sim) <= 0.10 * sim,
                          "%s %llu B %llu-way: set-local %.5f, simulation "
                          "%.5f", shards_cases[_i].name,
                          (unsigned long long)(4096ull << z),
                          (unsigned long long)sa_ways[w], setlocal, sim);
            ck_assert_msg(fabs(model - sim) <= sa_bound[_i][w] * sim,
                          "%s %llu B %llu-way: occupancy model %.5f, "
                          "simulation %.5f", shards_cases[_i].name,
                          (unsigned long long)(4096ull << z),
                          (unsigned long long)sa_ways[w], model, sim);
            worst_sl = fmax(worst_sl, fabs(setlocal - sim) / sim);
            worst = fmax(worst, fabs(model - sim) / sim);
            worst_bi = fmax(worst_bi, fabs(binomial - sim) / sim);
            cm_cache_free(cache[g]);
        }
        fprintf(stderr, "accuracy: set-associative on %s, %llu-way, 4-128 "
                "KB: worst relative error: occupancy model %.2f%% (bound "
                "%.1f%%), binomial %.1f%%, set-local %.2f%%\n",
                shards_cases[_i].name, (unsigned long long)sa_ways[w],
                100 * worst, 100 * sa_bound[_i][w], 100 * worst_bi,
                100 * worst_sl);
    }
    cm_spatial_free(sp);
    cm_setlocal_free(sl);
    cm_reuse_result_free(&exact);
    free(path);
}
END_TEST

Suite *suite_accuracy(void)
{
    Suite *s = suite_create("accuracy");
    TCase *tc = tcase_create("real_traces");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_shards_one_percent_on_real_traces, 0,
                        sizeof shards_cases / sizeof shards_cases[0]);
    tcase_add_loop_test(tc, test_shards_one_percent_over_seeds, 0,
                        sizeof shards_seed_cases / sizeof shards_seed_cases[0]);
    tcase_add_test(tc, test_shards_interval_coverage);
    tcase_add_loop_test(tc, test_setassoc_against_simulation_on_real_traces,
                        0, sizeof shards_cases / sizeof shards_cases[0]);
    suite_add_tcase(s, tc);
    return s;
}
