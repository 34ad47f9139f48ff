/* check_workload.c - workload profiles and the warp stream generator: the
 * built-ins exist and validate, streams are deterministic per (seed, sm,
 * warp), long streams show the profile's statistics (op mix, coalescing,
 * compute gaps, fences, barriers, sharing, and the intra-warp reuse
 * distances measured with the exact stack-distance engine), user CSV
 * profiles load or fail at file:line:col. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/table.h"
#include "models/reuse.h"
#include "data/workload.h"
#include "sim/workload_source.h"
#include "tests/testutil.h"

/* Check reports every passed ck_assert through a pipe write, far too slow
 * for per-instruction checks in long streams: test those with a plain if. */
#define REQUIRE(cond, ...)                                                     \
    do {                                                                       \
        if (!(cond)) ck_abort_msg(__VA_ARGS__);                                \
    } while (0)

static const char *const expected_names[] = {
    "bh",       "cc",   "cl",   "dlb",     "stn", "vpr", "hsp", "kmn", "lps",
    "ndl",      "rg",   "sr",   "comd",    "ii",  "bfs", "sm",  "ss",  "sssp",
    "scluster", "atax", "bicg", "gesummv", "mvt", "wc",  "cfd"};
#define NEXPECTED (sizeof expected_names / sizeof expected_names[0])

/* A profile for the statistics tests: no reuse window by default, so each
 * test sets only what it measures. */
static cm_workload_profile base_profile(void)
{
    cm_workload_profile p;
    cm_workload_profile_default(&p);
    p.reuse_prob = 0;
    p.write_frac = 0;
    p.kernel_len = 20000;
    return p;
}

static cm_wgen *gen_new(const cm_workload_profile *p, uint64_t seed,
                        uint32_t sm, uint32_t warp)
{
    cm_wgen *g = malloc(sizeof *g);
    ck_assert_ptr_nonnull(g);
    cm_err err = {0};
    ck_assert_msg(cm_wgen_init(g, p, seed, sm, warp, 128, &err) == CM_OK, "%s",
                  err.msg);
    return g;
}

START_TEST(test_builtins_exist_and_validate)
{
    ck_assert_uint_eq(cm_workload_builtin_count(), NEXPECTED);
    for (size_t i = 0; i < NEXPECTED; i++) {
        const cm_workload_profile *p = cm_workload_builtin(expected_names[i]);
        ck_assert_msg(p != NULL, "missing built-in %s", expected_names[i]);
        ck_assert_str_eq(p->name, expected_names[i]);
        ck_assert_msg(p->seed == 0 || p->seed == 2, "%s: seed %d", p->name,
                      p->seed);
        cm_err err = {0};
        ck_assert_msg(cm_workload_profile_validate(p, &err) == CM_OK, "%s",
                      err.msg);
        ck_assert_ptr_nonnull(cm_workload_builtin_name(i));
    }
    ck_assert_ptr_null(cm_workload_builtin_name(NEXPECTED));
    ck_assert_ptr_null(cm_workload_builtin("KMN"));
    /* Seed 002 Table 4.1 numbers reach the hints. */
    const cm_workload_profile *k = cm_workload_builtin("kmn");
    ck_assert(k->warp_max == 24 && k->warp_opt == 1 &&
              k->cache_speedup16x == 7.46);
    ck_assert(cm_workload_builtin("stn")->barrier_grid == 1);
    ck_assert(cm_workload_builtin("ndl")->stream_frac >= 0.5);
    ck_assert(cm_workload_builtin("hsp")->false_share > 0);
    ck_assert(cm_workload_builtin("rg")->persist == 1);
    static const char *const no_fences[] = {"hsp", "kmn", "lps",
                                            "ndl", "rg",  "sr"};
    for (size_t i = 0; i < 6; i++)
        ck_assert(cm_workload_builtin(no_fences[i])->fence_rate == 0);
}
END_TEST

START_TEST(test_validate_rejects_out_of_range)
{
    cm_workload_profile p = *cm_workload_builtin("kmn");
    cm_err err = {0};
    p.reuse_prob = 1.5;
    ck_assert_int_eq(cm_workload_profile_validate(&p, &err), CM_EINPUT);
    ck_assert_msg(strstr(err.msg, "kmn") && strstr(err.msg, "reuse_prob") &&
                      strstr(err.msg, "0..1"),
                  "%s", err.msg);
    p = *cm_workload_builtin("kmn");
    p.kernels = 2.5;
    ck_assert_int_eq(cm_workload_profile_validate(&p, &err), CM_EINPUT);
    ck_assert_msg(strstr(err.msg, "an integer"), "%s", err.msg);
    p = *cm_workload_builtin("kmn");
    p.share_gpu = 0.7;
    p.share_sm = 0.7;
    ck_assert_int_eq(cm_workload_profile_validate(&p, &err), CM_EINPUT);
    ck_assert_msg(strstr(err.msg, "at most 1"), "%s", err.msg);
    cm_wgen g;
    ck_assert_int_eq(cm_wgen_init(&g, &p, 1, 0, 0, 128, &err), CM_EINPUT);
    p = *cm_workload_builtin("kmn");
    ck_assert_int_eq(cm_wgen_init(&g, &p, 1, 0, 0, 100, &err), CM_EINPUT);
    ck_assert_int_eq(cm_wgen_init(&g, &p, 1, 0, 4096, 128, &err), CM_EINPUT);
}
END_TEST

START_TEST(test_list_table)
{
    cm_table *t = NULL;
    cm_err err = {0};
    ck_assert_msg(cm_workload_list_table(&t, &err) == CM_OK, "%s", err.msg);
    ck_assert_uint_eq(cm_table_nrows(t), NEXPECTED);
    ck_assert_str_eq(cm_table_colname(t, 0), "name");
    ck_assert_str_eq(cm_table_colname(t, 1), "description");
    ck_assert_str_eq(cm_table_colname(t, 2), "seed");
    ck_assert_str_eq(cm_table_colname(t, 3), "suite");
    /* every built-in says what it stands for, and only built-ins do */
    for (size_t r = 0; r < cm_table_nrows(t); r++)
        ck_assert_msg(strlen(cm_table_cell(t, r, 1)) > 5,
                      "%s: no description", cm_table_cell(t, r, 0));
    ck_assert_ptr_null(cm_workload_description("nosuch"));
    ck_assert_str_eq(cm_workload_description("kmn"), "k-means clustering");
    long c = cm_table_col_find(t, "reuse_prob");
    ck_assert_int_ge(c, 0);
    int found = 0;
    for (size_t r = 0; r < cm_table_nrows(t); r++)
        if (strcmp(cm_table_cell(t, r, 0), "kmn") == 0) {
            found = 1;
            ck_assert_str_eq(cm_table_cell(t, r, (size_t)c), "0.87");
            ck_assert_str_eq(cm_table_cell(t, r, 2), "000");
        }
    ck_assert(found);
    cm_table_free(t);
}
END_TEST

/* Same (seed, sm, warp): identical bytes.  Other warp or seed: another
 * stream (compared on kinds, ops, sizes and gaps, not on addresses, which
 * differ by construction). */
START_TEST(test_determinism)
{
    const cm_workload_profile *p = cm_workload_builtin("dlb");
    cm_wgen *a = gen_new(p, 42, 3, 7), *b = gen_new(p, 42, 3, 7);
    cm_wgen *c = gen_new(p, 42, 3, 8), *d = gen_new(p, 43, 3, 7);
    cm_winst ia, ib, ic, id;
    memset(&ia, 0, sizeof ia);
    memset(&ib, 0, sizeof ib);
    int diff_warp = 0, diff_seed = 0;
    for (int i = 0; i < 5000; i++) {
        cm_wgen_next(a, &ia);
        cm_wgen_next(b, &ib);
        cm_wgen_next(c, &ic);
        cm_wgen_next(d, &id);
        REQUIRE(memcmp(&ia, &ib, sizeof ia) == 0, "differs at %d", i);
        diff_warp |= ia.kind != ic.kind || ia.n != ic.n || ia.op != ic.op ||
                     ia.compute != ic.compute;
        diff_seed |= ia.kind != id.kind || ia.n != id.n || ia.op != id.op ||
                     ia.compute != id.compute;
    }
    ck_assert(diff_warp && diff_seed);
    /* A copied generator continues the same stream on its own: its RNG
     * state is inside the struct, not shared through a pointer. */
    cm_wgen *e = malloc(sizeof *e);
    ck_assert_ptr_nonnull(e);
    memcpy(e, a, sizeof *e);
    for (int i = 0; i < 2000; i++) {
        cm_wgen_next(a, &ia);
        cm_wgen_next(e, &ib);
        REQUIRE(memcmp(&ia, &ib, sizeof ia) == 0, "fork at %d", i);
    }
    free(a), free(b), free(c), free(d), free(e);
}
END_TEST

/* Skimming (cm_wgen_skim) changes lines, never the draws: kinds, ops,
 * sizes, gaps and kernels stay those of the unskimmed stream, during and
 * after it.  Afterwards the stack holds each line once, the filter counts
 * exactly its lines, and every instruction's lines are distinct again. */
START_TEST(test_skim_keeps_draws_and_stack)
{
    /* A private footprint smaller than the stack: fresh lines repeat. */
    cm_workload_profile p = *cm_workload_builtin("bh");
    p.private_lines = 64;
    cm_wgen *a = gen_new(&p, 5, 2, 9), *b = gen_new(&p, 5, 2, 9);
    cm_winst ia, ib;
    for (int i = 0; i < 9000; i++) {
        if (i == 1000) cm_wgen_skim(b, 1);
        if (i == 6000) {
            cm_wgen_skim(b, 0);
            uint16_t count[CM_WGEN_FILTER] = {0};
            for (size_t x = 0; x < b->depth; x++) {
                uint64_t line = b->stack[(b->top + x) % CM_WGEN_STACK_MAX];
                count[(line * 0x9E3779B97F4A7C15ull) >> 40 &
                      (CM_WGEN_FILTER - 1)]++;
                for (size_t y = 0; y < x; y++)
                    REQUIRE(line !=
                                b->stack[(b->top + y) % CM_WGEN_STACK_MAX],
                            "stack positions %zu and %zu repeat a line", y,
                            x);
            }
            ck_assert(memcmp(count, b->in_stack, sizeof count) == 0);
        }
        cm_wgen_next(a, &ia);
        cm_wgen_next(b, &ib);
        REQUIRE(ia.kind == ib.kind && ia.op == ib.op && ia.n == ib.n &&
                    ia.compute == ib.compute && ia.kernel == ib.kernel,
                "draws differ at %d", i);
        if (i >= 6000 && ib.kind == CM_WI_MEM)
            for (unsigned x = 0; x < ib.n; x++)
                for (unsigned y = 0; y < x; y++)
                    REQUIRE(ib.lines[x] != ib.lines[y],
                            "line repeated after the skim at %d", i);
    }
    free(a), free(b);
}
END_TEST

typedef struct tally {
    double mem, lines, compute, fences, barriers, grid_barriers, kernels;
    double op[3];
    double region[6]; /* lines by region, non-atomic instructions */
    double ends;
} tally;

/* Runs a warp to END (and 3 calls past it), checking every instruction's
 * shape on the way. */
static void run_warp(const cm_workload_profile *p, uint64_t seed, uint32_t sm,
                     uint32_t warp, tally *t)
{
    cm_wgen *g = gen_new(p, seed, sm, warp);
    cm_winst in;
    memset(t, 0, sizeof *t);
    for (long guard = 0;; guard++) {
        REQUIRE(guard < 100000000, "no END");
        cm_wgen_next(g, &in);
        if (in.kind == CM_WI_END) break;
        switch (in.kind) {
        case CM_WI_COMPUTE:
            REQUIRE(in.compute > 0, "empty compute");
            t->compute += in.compute;
            break;
        case CM_WI_MEM:
            REQUIRE(in.n >= 1 && in.n <= CM_WINST_MAX_LINES, "n %u", in.n);
            REQUIRE(in.op <= CM_WOP_ATOMIC, "op %u", in.op);
            for (unsigned i = 0; i < in.n; i++) {
                for (unsigned j = 0; j < i; j++)
                    REQUIRE(in.lines[i] != in.lines[j],
                            "line repeated in one instruction");
                if (in.op != CM_WOP_ATOMIC)
                    t->region[cm_wline_region(in.lines[i])]++;
                else
                    REQUIRE(cm_wline_region(in.lines[i]) == CM_WR_LOCK,
                            "atomic off the lock lines");
            }
            t->mem++;
            t->lines += in.n;
            t->op[in.op]++;
            break;
        case CM_WI_FENCE:
            t->fences++;
            break;
        case CM_WI_BARRIER:
            t->barriers++;
            t->grid_barriers += in.grid;
            break;
        case CM_WI_KERNEL:
            t->kernels++;
            break;
        default:
            ck_abort_msg("kind %u", in.kind);
        }
    }
    for (int i = 0; i < 3; i++) {
        cm_wgen_next(g, &in);
        REQUIRE(in.kind == CM_WI_END, "not END after END");
    }
    free(g);
}

START_TEST(test_mix_coalescing_gaps_sync)
{
    cm_workload_profile p = base_profile();
    p.write_frac = 0.3;
    p.atomic_frac = 0.1;
    p.reqs_mean = 3.4;
    p.reqs_dist = 0;
    p.gap_mean = 6;
    p.gap_dist = 1;
    p.fence_rate = 0.05;
    p.barrier_interval = 10;
    p.barrier_grid = 1;
    p.kernels = 3;
    p.kernel_len = 20000;
    tally t;
    run_warp(&p, 9, 1, 2, &t);
    ck_assert_double_eq(t.mem, 60000);
    ck_assert_double_eq(t.kernels, 2); /* boundaries between 3 kernels */
    ck_assert_double_eq(t.barriers, 6000);
    ck_assert_double_eq(t.grid_barriers, 6000);
    ck_assert_msg(fabs(t.op[CM_WOP_STORE] / t.mem - 0.3) < 0.01, "%g",
                  t.op[CM_WOP_STORE] / t.mem);
    ck_assert_msg(fabs(t.op[CM_WOP_ATOMIC] / t.mem - 0.1) < 0.01, "%g",
                  t.op[CM_WOP_ATOMIC] / t.mem);
    ck_assert_close(t.lines / t.mem, 3.4, 0.01);
    ck_assert_close(t.compute / t.mem, 6.0, 0.03);
    ck_assert_msg(fabs(t.fences / t.mem - 0.05) < 0.005, "%g",
                  t.fences / t.mem);

    /* Fixed gaps and bimodal coalescing. */
    p.gap_dist = 0;
    p.gap_mean = 2.5;
    p.reqs_dist = 1;
    p.reqs_mean = 8;
    p.barrier_interval = 0;
    run_warp(&p, 9, 1, 2, &t);
    ck_assert_double_eq(t.barriers, 0);
    ck_assert_close(t.compute / t.mem, 2.5, 0.02);
    ck_assert_close(t.lines / t.mem, 8.0, 0.04);
}
END_TEST

START_TEST(test_sharing_fractions)
{
    cm_workload_profile p = base_profile();
    p.share_gpu = 0.2;
    p.share_sm = 0.3;
    p.false_share = 0.1;
    p.stream_frac = 0.5;
    p.reqs_mean = 2;
    p.reqs_dist = 0;
    p.gpu_shared_lines = 4096;
    p.sm_shared_lines = 1024;
    p.false_share_lines = 64;
    tally t;
    run_warp(&p, 5, 0, 0, &t);
    double n = t.lines;
    ck_assert_msg(fabs(t.region[CM_WR_GPU_SHARED] / n - 0.2) < 0.015, "%g",
                  t.region[CM_WR_GPU_SHARED] / n);
    ck_assert_msg(fabs(t.region[CM_WR_SM_SHARED] / n - 0.3) < 0.015, "%g",
                  t.region[CM_WR_SM_SHARED] / n);
    ck_assert_msg(fabs(t.region[CM_WR_FALSE_SHARED] / n - 0.1) < 0.015, "%g",
                  t.region[CM_WR_FALSE_SHARED] / n);
    ck_assert_msg(fabs(t.region[CM_WR_STREAM] / n - 0.2) < 0.015, "%g",
                  t.region[CM_WR_STREAM] / n);
    ck_assert_msg(fabs(t.region[CM_WR_PRIVATE] / n - 0.2) < 0.015, "%g",
                  t.region[CM_WR_PRIVATE] / n);

    /* Who shares with whom: GPU-shared lines between SMs, SM-shared lines
     * between the warps of one SM only, false-shared lines at per-SM
     * word offsets. */
    p.kernel_len = 2000;
    cm_wgen *a = gen_new(&p, 5, 0, 0), *b = gen_new(&p, 5, 0, 1);
    cm_wgen *c = gen_new(&p, 5, 1, 0);
    static uint8_t seen_a[3][4096];
    memset(seen_a, 0, sizeof seen_a);
    cm_winst in;
    for (int i = 0; i < 6000; i++) {
        cm_wgen_next(a, &in);
        if (in.kind != CM_WI_MEM) continue;
        for (unsigned j = 0; j < in.n; j++) {
            cm_wregion r = cm_wline_region(in.lines[j]);
            uint64_t low = in.lines[j] & 4095;
            if (r == CM_WR_GPU_SHARED) seen_a[0][low] = 1;
            if (r == CM_WR_SM_SHARED) seen_a[1][low] = 1;
            if (r == CM_WR_FALSE_SHARED) REQUIRE(in.off[j] == 0, "off");
        }
    }
    int sm_with_b = 0, gpu_with_c = 0;
    for (int i = 0; i < 6000; i++) {
        cm_wgen_next(b, &in);
        for (unsigned j = 0; in.kind == CM_WI_MEM && j < in.n; j++)
            if (cm_wline_region(in.lines[j]) == CM_WR_SM_SHARED)
                sm_with_b |= seen_a[1][in.lines[j] & 4095];
        cm_wgen_next(c, &in);
        for (unsigned j = 0; in.kind == CM_WI_MEM && j < in.n; j++) {
            cm_wregion r = cm_wline_region(in.lines[j]);
            if (r == CM_WR_GPU_SHARED)
                gpu_with_c |= seen_a[0][in.lines[j] & 4095];
            if (r == CM_WR_SM_SHARED) /* SM 1's tile: another address */
                REQUIRE((in.lines[j] >> 32 & 0xFFFFFFF) == 1, "SM tag");
            if (r == CM_WR_FALSE_SHARED) REQUIRE(in.off[j] == 4, "off");
        }
    }
    ck_assert(sm_with_b && gpu_with_c);
    free(a), free(b), free(c);
}
END_TEST

/* Measures D = (stack distance over the warp's line stream) - (index of
 * the line in its instruction) with the exact engine; reuse lines have D
 * in 0..K-1 with P ~ (D+1)^-s, fresh sweep lines lie beyond the window. */
static void measure_window(const cm_workload_profile *p, uint64_t seed,
                           double *within, double *bins, size_t nbins,
                           double *total)
{
    cm_wgen *g = gen_new(p, seed, 2, 5);
    cm_stackdist *s = cm_stackdist_new();
    ck_assert_ptr_nonnull(s);
    cm_winst in;
    cm_err err = {0};
    *within = *total = 0;
    for (size_t i = 0; i < nbins; i++) bins[i] = 0;
    for (;;) {
        cm_wgen_next(g, &in);
        if (in.kind == CM_WI_END) break;
        if (in.kind != CM_WI_MEM) continue;
        for (unsigned j = 0; j < in.n; j++) {
            int64_t d;
            REQUIRE(cm_stackdist_access(s, in.lines[j], &d, NULL, &err) ==
                        CM_OK,
                    "%s", err.msg);
            *total += 1;
            if (d < 0) continue;
            REQUIRE(d >= (int64_t)j, "distance %lld < index %u", (long long)d,
                    j);
            int64_t dd = d - (int64_t)j;
            if (dd < (int64_t)p->reuse_window) *within += 1;
            if (dd < (int64_t)nbins) bins[dd]++;
        }
    }
    cm_stackdist_free(s);
    free(g);
}

START_TEST(test_reuse_distance_distribution)
{
    cm_workload_profile p = base_profile();
    p.reuse_prob = 0.6;
    p.reuse_window = 32;
    p.reuse_skew = 1;
    p.reqs_mean = 3;
    p.reqs_dist = 0;
    p.private_lines = 4096;
    p.kernel_len = 30000;
    double within, total, bins[8];
    measure_window(&p, 11, &within, bins, 8, &total);
    ck_assert_msg(fabs(within / total - 0.6) < 0.01, "P(D<K) = %g",
                  within / total);
    /* The Zipf law inside the window: P(D = d | reuse) = (d+1)^-1 / H_32. */
    double h = 0;
    for (int d = 0; d < 32; d++) h += 1.0 / (d + 1);
    for (int d = 0; d < 8; d++) {
        double expect = within / (d + 1) / h;
        double sd = sqrt(expect);
        ck_assert_msg(fabs(bins[d] - expect) < 5 * sd + 1,
                      "D=%d: %g measured, %g expected", d, bins[d], expect);
    }
    /* Uniform window (skew 0): P(D = 0 | reuse) = 1/K. */
    p.reuse_skew = 0;
    p.reuse_window = 16;
    measure_window(&p, 12, &within, bins, 8, &total);
    ck_assert_msg(fabs(bins[0] / within - 1.0 / 16) < 0.006, "%g",
                  bins[0] / within);

    /* A built-in: its window catches at least its reuse_prob. */
    cm_workload_profile k = *cm_workload_builtin("kmn");
    k.kernels = 1;
    k.kernel_len = 4000;
    measure_window(&k, 13, &within, bins, 8, &total);
    ck_assert_msg(within / total > k.reuse_prob - 0.02, "%g < %g",
                  within / total, k.reuse_prob);
}
END_TEST

START_TEST(test_kernels_persist_and_density)
{
    /* persist 1: kernel 2 re-touches kernel 1's private lines; persist 0:
     * a new working set. */
    cm_workload_profile p = base_profile();
    p.private_lines = 512;
    p.kernel_len = 256;
    p.kernels = 2;
    p.reqs_mean = 1;
    p.region_density = 0.25; /* 2 of 8 lines per 1 KB region */
    for (int persist = 0; persist <= 1; persist++) {
        p.persist = persist;
        cm_wgen *g = gen_new(&p, 3, 0, 0);
        static uint64_t first[256];
        size_t nf = 0, hits = 0, second = 0;
        cm_winst in;
        for (;;) {
            cm_wgen_next(g, &in);
            if (in.kind == CM_WI_END) break;
            if (in.kind != CM_WI_MEM) continue;
            uint64_t off = (in.lines[0] & 0xFFFFFFFF) - g->warp_off;
            REQUIRE(off % 8 < 2, "offset %llu outside the used lines",
                    (unsigned long long)off);
            if (in.kernel == 0) {
                first[nf++] = in.lines[0];
                continue;
            }
            second++;
            for (size_t i = 0; i < nf; i++) hits += first[i] == in.lines[0];
        }
        ck_assert_uint_eq(second, 256);
        ck_assert_uint_eq(hits, persist ? 256 : 0);
        free(g);
    }
}
END_TEST

START_TEST(test_profile_csv)
{
    char *dir = tu_tmpdir();
    cm_workload_profile p;
    cm_err err = {0};
    char *ok = tu_write_file(dir, "ok.csv",
                             "parameter,value\nbase,kmn\nname,mine\n"
                             "reuse_prob,0.5\nkernels, 3 \n");
    ck_assert_msg(cm_workload_profile_load(ok, &p, &err) == CM_OK, "%s",
                  err.msg);
    ck_assert_str_eq(p.name, "mine");
    ck_assert_int_eq(p.seed, -1);
    ck_assert_double_eq(p.reuse_prob, 0.5);
    ck_assert_double_eq(p.kernels, 3);
    ck_assert_double_eq(p.reuse_window, 64); /* from kmn */
    ck_assert_int_eq(cm_workload_profile_validate(&p, &err), CM_OK);

    static const struct {
        const char *text, *where, *what;
    } bad[] = {
        {"parameter,value\nreuse_prob,1.5\n", ":2:12: ", "0..1"},
        {"parameter,value\nbogus,1\n", ":2:1: ", "unknown workload parameter"},
        {"parameter,value\ngap_mean,abc\n", ":2:10: ", "not a number"},
        {"parameter,value\nkernels,2.5\n",
         ":2:9: ", "an integer in 1..1000000"},
        {"parameter,value\nshare_gpu,0.6\nshare_sm,0.6\n",
         ":3:10: ", "at most 1"},
        {"parameter,value\nname,x\nbase,kmn\n", ":3:1: ", "first row"},
        {"parameter,value\nbase,nosuch\n", ":2:6: ", "unknown built-in"},
        {"parameter,value\nname,a b\n", ":2:6: ", "letters"},
        {"param,value\nreuse_prob,0.5\n", ":1:1: ", "parameter"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "bad%zu.csv", i);
        char *path = tu_write_file(dir, name, bad[i].text);
        cm_workload_profile q = p;
        ck_assert_int_eq(cm_workload_profile_load(path, &q, &err), CM_EINPUT);
        char want[64];
        snprintf(want, sizeof want, "%s%s", name, bad[i].where);
        ck_assert_msg(strstr(err.msg, want) && strstr(err.msg, bad[i].what),
                      "case %zu: %s", i, err.msg);
        ck_assert_str_eq(q.name, "mine"); /* untouched on error */
        free(path);
    }
    char *missing = tu_path_in(dir, "none.csv");
    ck_assert_int_ne(cm_workload_profile_load(missing, &p, &err), CM_OK);
    free(missing);
    free(ok);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

/* Every built-in from a few warps: shapes hold (at most 32 distinct lines
 * per instruction, atomics on lock lines) and the warp ends. */
START_TEST(test_builtins_run_to_end)
{
    for (size_t i = 0; i < cm_workload_builtin_count(); i++) {
        cm_workload_profile p =
            *cm_workload_builtin(cm_workload_builtin_name(i));
        p.kernel_len = p.kernel_len > 300 ? 300 : p.kernel_len;
        p.kernels = p.kernels > 3 ? 3 : p.kernels;
        tally t;
        run_warp(&p, 1, 4, 9, &t);
        ck_assert_double_eq(t.mem, p.kernels * p.kernel_len);
        ck_assert_double_eq(t.kernels, p.kernels - 1);
    }
}
END_TEST

/* Regression: the SM keeps an instruction's lines from fetch to issue,
 * while other warps fetch.  The source once translated every warp through
 * one shared buffer, so a warp issued the lines of whichever warp fetched
 * last.  Each warp's lines must stay its own generator's. */
START_TEST(test_source_lines_survive_other_fetches)
{
    const cm_workload_profile *p = cm_workload_builtin("kmn");
    cm_workload_source *src = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_workload_source_new(p, 5, 2, 3, 128, &src, &err),
                     CM_OK);
    cm_warp_source ws = cm_workload_source_warps(src);
    cm_wgen *ref[2][3];
    for (uint32_t sm = 0; sm < 2; sm++)
        for (uint32_t w = 0; w < 3; w++) ref[sm][w] = gen_new(p, 5, sm, w);
    int mem_checked = 0;
    for (int round = 0; round < 300; round++) {
        cm_inst in[2][3];
        cm_winst want[2][3];
        for (uint32_t sm = 0; sm < 2; sm++)
            for (uint32_t w = 0; w < 3; w++) {
                ck_assert_int_eq(ws.next(ws.obj, sm, w, &in[sm][w], &err),
                                 CM_OK);
                cm_wgen_next(ref[sm][w], &want[sm][w]);
            }
        /* Only now, after every other warp has fetched, look at them. */
        for (uint32_t sm = 0; sm < 2; sm++)
            for (uint32_t w = 0; w < 3; w++) {
                if (want[sm][w].kind != CM_WI_MEM) continue;
                REQUIRE(in[sm][w].n == want[sm][w].n, "line count");
                for (uint32_t i = 0; i < want[sm][w].n; i++)
                    REQUIRE(in[sm][w].addrs[i] == want[sm][w].lines[i],
                            "sm %u warp %u round %d: another warp's line", sm,
                            w, round);
                mem_checked++;
            }
    }
    ck_assert_int_gt(mem_checked, 100);
    ck_assert_int_ne(ws.next(ws.obj, 2, 0, &(cm_inst){0}, &err), CM_OK);
    for (uint32_t sm = 0; sm < 2; sm++)
        for (uint32_t w = 0; w < 3; w++) free(ref[sm][w]);
    cm_workload_source_free(src);
}
END_TEST

/* Streams start at each warp's own offset: 64 warps' first stream lines
 * fall in distinct cache sets of a 64-set cache far more often than
 * lockstep streams (all at offset 0, one set) would. */
START_TEST(test_streams_start_apart)
{
    cm_workload_profile p = base_profile();
    p.stream_frac = 1;
    p.reqs_mean = 1;
    p.gap_mean = 0;
    int seen[64] = {0}, distinct = 0;
    for (uint32_t w = 0; w < 64; w++) {
        cm_wgen *g = gen_new(&p, 3, 0, w);
        cm_winst in;
        do cm_wgen_next(g, &in);
        while (in.kind != CM_WI_MEM);
        ck_assert_int_eq(cm_wline_region(in.lines[0]), CM_WR_STREAM);
        unsigned set = (unsigned)(in.lines[0] % 64);
        distinct += !seen[set];
        seen[set] = 1;
        free(g);
    }
    /* 64 random offsets cover about 64 (1 - 1/e) = 40 sets */
    ck_assert_int_ge(distinct, 30);
}
END_TEST

Suite *suite_workload(void)
{
    Suite *s = suite_create("workload");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_builtins_exist_and_validate);
    tcase_add_test(tc, test_validate_rejects_out_of_range);
    tcase_add_test(tc, test_list_table);
    tcase_add_test(tc, test_determinism);
    tcase_add_test(tc, test_skim_keeps_draws_and_stack);
    tcase_add_test(tc, test_mix_coalescing_gaps_sync);
    tcase_add_test(tc, test_sharing_fractions);
    tcase_add_test(tc, test_reuse_distance_distribution);
    tcase_add_test(tc, test_kernels_persist_and_density);
    tcase_add_test(tc, test_profile_csv);
    tcase_add_test(tc, test_builtins_run_to_end);
    tcase_add_test(tc, test_source_lines_survive_other_fetches);
    tcase_add_test(tc, test_streams_start_apart);
    suite_add_tcase(s, tc);
    return s;
}
