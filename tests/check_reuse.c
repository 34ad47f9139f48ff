/* check_reuse.c - reuse-distance engines against a naive LRU stack.
 *
 * The reference is Mattson's own procedure: an array kept in recency order
 * with move-to-front, O(M) per access, sharing no code with the Fenwick
 * engine.  Sampled engines are held to documented error bounds against
 * the exact histogram on fixed-seed synthetic streams. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/mrc.h"
#include "models/mrc_table.h"
#include "models/reuse.h"
#include "models/reuse_impl.h"
#include "tests/reusegen.h"
#include "tests/testutil.h"

/* ---- naive reference ---------------------------------------------------- */

typedef struct naive_stack {
    uint64_t *line;     /* most recent first */
    uint64_t *last;     /* access index of line[i]'s latest access */
    size_t n, cap;
    uint64_t now;
} naive_stack;

static void naive_init(naive_stack *s, size_t cap)
{
    s->line = malloc(cap * sizeof *s->line);
    s->last = malloc(cap * sizeof *s->last);
    ck_assert(s->line && s->last);
    s->n = 0;
    s->cap = cap;
    s->now = 0;
}

static void naive_free(naive_stack *s)
{
    free(s->line);
    free(s->last);
}

static size_t naive_find(const naive_stack *s, uint64_t line)
{
    size_t i = 0;
    while (i < s->n && s->line[i] != line) i++;
    return i;
}

static void naive_access(naive_stack *s, uint64_t line, int64_t *d,
                         int64_t *rt)
{
    size_t i = naive_find(s, line);
    if (i == s->n) {
        if (s->n == s->cap) ck_abort_msg("naive stack full");
        *d = *rt = -1;
        s->n++;
    } else {
        *d = (int64_t)i;
        *rt = (int64_t)(s->now - s->last[i] - 1);
    }
    memmove(s->line + 1, s->line, i * sizeof *s->line);
    memmove(s->last + 1, s->last, i * sizeof *s->last);
    s->line[0] = line;
    s->last[0] = s->now++;
}

static void naive_remove(naive_stack *s, uint64_t line)
{
    size_t i = naive_find(s, line);
    if (i == s->n) return;
    memmove(s->line + i, s->line + i + 1, (s->n - i - 1) * sizeof *s->line);
    memmove(s->last + i, s->last + i + 1, (s->n - i - 1) * sizeof *s->last);
    s->n--;
}

/* ---- streams ------------------------------------------------------------ */

enum { ST_UNIFORM, ST_ZIPF, ST_STRIDED, ST_FEW, ST_DISTINCT, ST_COUNT };

static const char *const stream_names[ST_COUNT] = {
    "uniform", "zipf", "strided", "few lines", "many distinct"};

/* Streams sized so the naive O(N M) reference stays quick under ASan. */
static uint64_t *make_stream(int kind, size_t *n)
{
    uint64_t st = 1000 + (uint64_t)kind;
    *n = kind == ST_FEW ? 100000 : 20000;
    uint64_t *a = malloc(*n * sizeof *a);
    ck_assert_ptr_nonnull(a);
    for (size_t i = 0; i < *n; i++) {
        switch (kind) {
        case ST_UNIFORM: a[i] = rg_next(&st) % 700; break;
        case ST_ZIPF: a[i] = rg_zipf(&st, 3000, 1) << 7; break;
        case ST_STRIDED: /* a strided sweep with random interruptions */
            a[i] = rg_unit(&st) < 0.1 ? rg_next(&st) % 50
                                      : 64 * ((i * 17) % 400); break;
        case ST_FEW: a[i] = rg_next(&st) % 8; break;  /* compacts often */
        default: /* half new lines: the axis and the map keep growing */
            a[i] = rg_unit(&st) < 0.5 ? (1ull << 40) + i
                                      : rg_next(&st) % 5000; break;
        }
    }
    return a;
}

static cm_reuse_hist run_engine(const cm_sample_spec *spec, uint64_t bins,
                                const uint64_t *a, size_t n)
{
    cm_reuse_engine *e;
    cm_reuse_hist h;
    cm_err err = {0};
    ck_assert_msg(cm_reuse_engine_new(spec, bins, &e, &err) == CM_OK, "%s",
                  err.msg);
    cm_status st = CM_OK;
    for (size_t i = 0; i < n && st == CM_OK; i++)
        st = cm_reuse_engine_access(e, a[i], &err);
    if (st == CM_OK) st = cm_reuse_engine_finish(e, &h, &err);
    ck_assert_msg(st == CM_OK, "%s", err.msg);
    cm_reuse_engine_free(e);
    return h;
}

static cm_reuse_hist run_kind(cm_sample_kind kind, double rate,
                              uint64_t max_lines, const uint64_t *a, size_t n)
{
    cm_sample_spec spec = {kind, rate, max_lines, 42, 0};
    return run_engine(&spec, 256, a, n);
}

/* Mean absolute miss-ratio error up to twice the footprint, at capacities
 * log-spaced from 1 line (4 a doubling: small caches count as much as
 * large ones) or, with `linear`, at 100 evenly spaced ones as in the
 * SHARDS paper's figures. */
static double mrc_mae(const cm_reuse_hist *a, const cm_reuse_hist *b,
                      double footprint, int linear)
{
    double sum = 0, step = 2 * footprint / 100;
    int k = 0;
    for (double c = linear ? step : 1; c <= 2 * footprint;
         c = linear ? c + step : c * 1.189207115, k++)
        sum += fabs(cm_reuse_hist_miss_ratio(a, round(c)) -
                    cm_reuse_hist_miss_ratio(b, round(c)));
    return sum / k;
}

/* ---- exact engine ------------------------------------------------------- */

START_TEST(test_exact_matches_naive)
{
    int kind = _i;
    size_t n;
    uint64_t *a = make_stream(kind, &n);
    naive_stack ref;
    naive_init(&ref, n);
    cm_stackdist *s = cm_stackdist_new();
    ck_assert_ptr_nonnull(s);
    cm_err err = {0};
    for (size_t i = 0; i < n; i++) {
        int64_t d, rt, dref, rtref;
        naive_access(&ref, a[i], &dref, &rtref);
        /* Check records every ck_assert; test the million cheap ones
         * plainly and report only a failure. */
        if (cm_stackdist_access(s, a[i], &d, &rt, &err) != CM_OK)
            ck_abort_msg("%s", err.msg);
        if (d != dref || rt != rtref)
            ck_abort_msg("%s access %zu: distance %lld (naive %lld), reuse "
                         "time %lld (naive %lld)", stream_names[kind], i,
                         (long long)d, (long long)dref, (long long)rt,
                         (long long)rtref);
    }
    ck_assert_uint_eq(cm_stackdist_lines(s), ref.n);
    cm_stackdist_free(s);
    naive_free(&ref);
    free(a);
}
END_TEST

START_TEST(test_remove_matches_naive)
{
    /* SHARDS_max forgets lines: the rest must see distances as if the
     * forgotten lines had never been accessed. */
    uint64_t st = 7;
    naive_stack ref;
    naive_init(&ref, 4000);
    cm_stackdist *s = cm_stackdist_new();
    ck_assert_ptr_nonnull(s);
    cm_err err = {0};
    for (size_t i = 0; i < 30000; i++) {
        uint64_t line = rg_next(&st) % 3000;
        if (rg_unit(&st) < 0.2) {
            int had = naive_find(&ref, line) < ref.n;
            naive_remove(&ref, line);
            if (cm_stackdist_remove(s, line) != had)
                ck_abort_msg("remove %llu: tracked %d", (unsigned long long)
                             line, had);
            continue;
        }
        int64_t d, dref, rtref;
        naive_access(&ref, line, &dref, &rtref);
        if (cm_stackdist_access(s, line, &d, NULL, &err) != CM_OK)
            ck_abort_msg("%s", err.msg);
        if (d != dref)
            ck_abort_msg("access %zu: %lld vs naive %lld", i, (long long)d,
                         (long long)dref);
    }
    ck_assert_uint_eq(cm_stackdist_lines(s), ref.n);
    cm_stackdist_free(s);
    naive_free(&ref);
}
END_TEST

/* ---- histogram ---------------------------------------------------------- */

START_TEST(test_hist_matches_naive_mrc)
{
    size_t n;
    uint64_t *a = make_stream(ST_ZIPF, &n);
    /* 16 exact bins: most distances land in log2 bins. */
    cm_sample_spec none = {CM_SAMPLE_NONE, 1, 0, 0, 0};
    cm_reuse_hist h = run_engine(&none, 16, a, n);
    naive_stack ref;
    naive_init(&ref, n);
    double *at_least = calloc(n + 2, sizeof *at_least), cold = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t d, rt;
        naive_access(&ref, a[i], &d, &rt);
        if (d < 0) cold++;
        else at_least[d]++;
    }
    for (size_t d = n; d-- > 0;) at_least[d] += at_least[d + 1];

    double sum = h.cold;
    for (size_t b = 0; b < cm_reuse_hist_nbins(&h); b++)
        sum += cm_reuse_hist_bin_count(&h, b);
    ck_assert_double_eq(sum, h.total);
    ck_assert_double_eq(h.total, (double)n);
    ck_assert_double_eq(h.sampled, (double)n);
    ck_assert_double_eq(h.rate, 1);
    ck_assert_double_eq(h.cold, cold);
    ck_assert_double_eq(cm_reuse_hist_miss_ratio(&h, 0), 1);
    for (size_t c = 0; c <= h.exact_bins; c++)
        ck_assert_close(cm_reuse_hist_miss_ratio(&h, (double)c),
                        (cold + at_least[c]) / (double)n, 1e-12);
    double prev = 1;
    for (double c = 0; c < 2.0 * (double)ref.n; c += 0.75) {
        double mr = cm_reuse_hist_miss_ratio(&h, c);
        ck_assert_msg(mr >= 0 && mr <= 1 && mr <= prev + 1e-15,
                      "mr(%g) = %g after %g", c, mr, prev);
        prev = mr;
    }
    ck_assert_close(cm_reuse_hist_miss_ratio(&h, 1e9), cold / (double)n,
                    1e-12);
    /* A histogram with every distance exact matches at every capacity. */
    cm_reuse_hist big = run_engine(&none, n, a, n);
    ck_assert_uint_eq(big.nlog2, 0);
    for (size_t c = 0; c <= ref.n + 1; c++)
        ck_assert_close(cm_reuse_hist_miss_ratio(&big, (double)c),
                        (cold + at_least[c]) / (double)n, 1e-12);
    cm_reuse_hist_free(&big);
    cm_reuse_hist_free(&h);
    free(at_least);
    naive_free(&ref);
    free(a);
}
END_TEST

START_TEST(test_hist_bins_and_interpolation)
{
    cm_reuse_hist h;
    cm_err err = {0};
    ck_assert_int_eq(cm_reuse_hist_init(&h, 0, &err), CM_EINPUT);
    ck_assert_int_eq(cm_reuse_hist_init(&h, 4, &err), CM_OK);
    ck_assert_int_eq(cm_reuse_hist_add(&h, 10, 8, &err), CM_OK); /* [8,16) */
    ck_assert_int_eq(cm_reuse_hist_add(&h, 1, 4, &err), CM_OK);
    ck_assert_int_eq(cm_reuse_hist_add(&h, 4, 2, &err), CM_OK);  /* [4,8) */
    ck_assert_int_eq(cm_reuse_hist_add(&h, -1, 2, &err), CM_OK);
    ck_assert_int_eq(cm_reuse_hist_add(&h, NAN, 1, &err), CM_EINPUT);
    ck_assert_int_eq(cm_reuse_hist_add(&h, 3, -1, &err), CM_EINPUT);
    ck_assert_double_eq(h.total, 16);
    ck_assert_double_eq(h.sampled, 4);
    ck_assert_uint_eq(cm_reuse_hist_nbins(&h), 6);
    double lo, hi, prev_hi = 0;
    for (size_t b = 0; b < cm_reuse_hist_nbins(&h); b++) {
        cm_reuse_hist_bin_bounds(&h, b, &lo, &hi);
        ck_assert_double_eq(lo, prev_hi);
        ck_assert(hi > lo);
        prev_hi = hi;
    }
    cm_reuse_hist_bin_bounds(&h, 5, &lo, &hi);
    ck_assert_double_eq(lo, 8);
    ck_assert_double_eq(hi, 16);
    ck_assert_double_eq(cm_reuse_hist_bin_count(&h, 5), 8);
    ck_assert_double_eq(cm_reuse_hist_bin_count(&h, 99), 0);
    /* cold 2 + a quarter of [8,16) at 14 lines; all but d=1 at 2 lines */
    ck_assert_double_eq(cm_reuse_hist_miss_ratio(&h, 14), 4.0 / 16);
    ck_assert_double_eq(cm_reuse_hist_miss_ratio(&h, 6), 11.0 / 16);
    ck_assert_double_eq(cm_reuse_hist_miss_ratio(&h, 2), 12.0 / 16);
    ck_assert_double_eq(cm_reuse_hist_miss_ratio(&h, 1.5), 12.0 / 16);
    ck_assert_double_eq(cm_reuse_hist_miss_ratio(&h, 1), 1);
    ck_assert_double_eq(cm_reuse_hist_miss_ratio(&h, 100), 2.0 / 16);

    cm_reuse_hist other, wrong;
    ck_assert_int_eq(cm_reuse_hist_init(&other, 4, &err), CM_OK);
    ck_assert_int_eq(cm_reuse_hist_add(&other, 1000, 16, &err), CM_OK);
    ck_assert_int_eq(cm_reuse_hist_merge(&h, &other, &err), CM_OK);
    ck_assert_double_eq(h.total, 32);
    ck_assert_uint_eq(h.nlog2, 8); /* 1000 is in [512, 1024) */
    ck_assert_double_eq(cm_reuse_hist_miss_ratio(&h, 100), 18.0 / 32);
    ck_assert_int_eq(cm_reuse_hist_init(&wrong, 5, &err), CM_OK);
    ck_assert_int_eq(cm_reuse_hist_merge(&h, &wrong, &err), CM_EINPUT);
    cm_reuse_hist_clear(&h);
    ck_assert_double_eq(h.total, 0);
    ck_assert_double_eq(cm_reuse_hist_miss_ratio(&h, 3), 0);
    cm_reuse_hist_free(&h);
    cm_reuse_hist_free(&other);
    cm_reuse_hist_free(&wrong);
}
END_TEST

START_TEST(test_hist_merge_of_halves)
{
    size_t n;
    uint64_t *a = make_stream(ST_UNIFORM, &n);
    cm_sample_spec none = {CM_SAMPLE_NONE, 1, 0, 0, 0};
    /* The halves run as separate streams; their merge must add bin by
     * bin and keep the exact rate. */
    cm_reuse_hist x = run_engine(&none, 32, a, n / 2);
    cm_reuse_hist y = run_engine(&none, 32, a + n / 2, n - n / 2);
    cm_reuse_hist sum;
    cm_err err = {0};
    ck_assert_int_eq(cm_reuse_hist_init(&sum, 32, &err), CM_OK);
    ck_assert_int_eq(cm_reuse_hist_merge(&sum, &x, &err), CM_OK);
    ck_assert_int_eq(cm_reuse_hist_merge(&sum, &y, &err), CM_OK);
    ck_assert_double_eq(sum.total, (double)n);
    ck_assert_double_eq(sum.cold, x.cold + y.cold);
    ck_assert_double_eq(sum.rate, 1);
    for (size_t b = 0; b < cm_reuse_hist_nbins(&sum); b++)
        ck_assert_double_eq(cm_reuse_hist_bin_count(&sum, b),
                            cm_reuse_hist_bin_count(&x, b) +
                                cm_reuse_hist_bin_count(&y, b));
    cm_reuse_hist_free(&x);
    cm_reuse_hist_free(&y);
    cm_reuse_hist_free(&sum);
    free(a);
}
END_TEST

/* ---- sampled engines ---------------------------------------------------- */

static void assert_same_hist(const cm_reuse_hist *a, const cm_reuse_hist *b)
{
    ck_assert_uint_eq(cm_reuse_hist_nbins(a), cm_reuse_hist_nbins(b));
    for (size_t k = 0; k < cm_reuse_hist_nbins(a); k++)
        ck_assert_double_eq(cm_reuse_hist_bin_count(a, k),
                            cm_reuse_hist_bin_count(b, k));
    ck_assert_double_eq(a->cold, b->cold);
    ck_assert_double_eq(a->total, b->total);
    ck_assert_double_eq(a->rate, b->rate);
}

START_TEST(test_shards_full_rate_is_exact)
{
    size_t n;
    uint64_t *a = make_stream(ST_DISTINCT, &n);
    cm_reuse_hist exact = run_kind(CM_SAMPLE_NONE, 1, 0, a, n);
    cm_reuse_hist r1 = run_kind(CM_SAMPLE_SHARDS, 1, 0, a, n);
    cm_reuse_hist big = run_kind(CM_SAMPLE_SHARDS_MAX, 0, 1u << 20, a, n);
    assert_same_hist(&r1, &exact);
    assert_same_hist(&big, &exact);
    ck_assert_double_eq(r1.sampled, (double)n);
    cm_reuse_hist_free(&exact);
    cm_reuse_hist_free(&r1);
    cm_reuse_hist_free(&big);
    free(a);
}
END_TEST

/* The accuracy stream: 1e6 accesses, 95% over a working set of 1e5 lines
 * with Zipf-like popularity (exponent 0.6), 5% streaming lines; about
 * 1.5e5 distinct lines.  Built once, with its exact histogram, before the
 * sampled tests fork.
 *
 * SHARDS's error is dominated by the sampled share of the hottest lines:
 * the weights' sum has variance (1-R)/R sum_l p_l^2, and SHARDS_adj puts
 * the shortfall at distance 0, so a skewed stream shows it at small
 * capacities.  Measured (log grid, mean of 10 hash seeds, R = 0.1): 0.007
 * here, 0.014 at exponent 0.7, 0.025 at 0.8, 0.05 at 1 (where one line
 * takes 6% of the accesses); on the linear grid all stay below 0.01. */
#define ACC_N 1000000
#define ACC_LINES 100000
#define ACC_SKEW 0.6
#define ACC_STREAM 0.05

static uint64_t *acc_stream;
static cm_reuse_hist acc_exact;
static double acc_footprint;

static void accuracy_setup(void)
{
    acc_stream = malloc(ACC_N * sizeof *acc_stream);
    ck_assert_ptr_nonnull(acc_stream);
    rg_fill_mixed(acc_stream, ACC_N, ACC_LINES, ACC_SKEW, ACC_STREAM, 99);
    acc_exact = run_kind(CM_SAMPLE_NONE, 1, 0, acc_stream, ACC_N);
    acc_footprint = acc_exact.cold;
}

static void accuracy_teardown(void)
{
    cm_reuse_hist_free(&acc_exact);
    free(acc_stream);
}

START_TEST(test_shards_accuracy)
{
    /* Anchor (spec/models.md section 4; FAST'15 Fig. 5): SHARDS MRCs are
     * within a few hundredths of exact at R = 0.1 and below. */
    const uint64_t *a = acc_stream;
    double fp = acc_footprint;
    cm_reuse_hist r = run_kind(CM_SAMPLE_SHARDS, 0.1, 0, a, ACC_N);
    double mae = mrc_mae(&r, &acc_exact, fp, 0);
    ck_assert_msg(mae <= 0.02, "SHARDS R=0.1 MAE %g", mae);
    mae = mrc_mae(&r, &acc_exact, fp, 1);
    ck_assert_msg(mae <= 0.01, "SHARDS R=0.1 MAE %g (linear grid)", mae);
    ck_assert(fabs(r.rate - 0.1) < 1e-6);
    ck_assert_double_eq(r.total, ACC_N);
    ck_assert_msg(fabs(r.sampled / ACC_N - 0.1) < 0.03, "sampled %g",
                  r.sampled);
    ck_assert_close(cm_reuse_hist_miss_ratio(&r, 0), 1, 1e-12);
    cm_reuse_hist_free(&r);

    /* Fixed size: 2000 of ~1.5e5 lines, so the rate must have fallen to
     * about 2000/1.5e5; the curve stays close. */
    r = run_kind(CM_SAMPLE_SHARDS_MAX, 0, 2000, a, ACC_N);
    mae = mrc_mae(&r, &acc_exact, fp, 0);
    ck_assert_msg(mae <= 0.02, "SHARDS_max S=2000 MAE %g", mae);
    ck_assert_msg(r.rate > 0.5 * 2000 / fp && r.rate < 2.0 * 2000 / fp,
                  "rate %g for footprint %g", r.rate, fp);
    ck_assert_close(cm_reuse_hist_miss_ratio(&r, 0), 1, 1e-12);
    cm_reuse_hist_free(&r);
}
END_TEST

START_TEST(test_statstack_accuracy)
{
    /* StatStack's expected distances assume a stationary stream, which
     * this one is: at R = 0.01 its MRC is within 0.002 of exact (mean
     * absolute, log grid); 0.02 leaves room for other seeds. */
    double fp = acc_footprint;
    cm_reuse_hist r = run_kind(CM_SAMPLE_STATSTACK, 0.01, 0, acc_stream,
                               ACC_N);
    double mae = mrc_mae(&r, &acc_exact, fp, 0);
    ck_assert_msg(mae <= 0.02, "StatStack R=0.01 MAE %g", mae);
    ck_assert_double_eq(r.total, ACC_N);
    ck_assert_msg(fabs(r.rate - 0.01) < 0.001, "rate %g", r.rate);
    ck_assert_close(cm_reuse_hist_miss_ratio(&r, 0), 1, 1e-12);
    double prev = 1;
    for (double c = 1; c < 4 * fp; c *= 1.5) {
        double mr = cm_reuse_hist_miss_ratio(&r, c);
        ck_assert(mr >= 0 && mr <= prev + 1e-12);
        prev = mr;
    }
    cm_reuse_hist_free(&r);
}
END_TEST

/* Every line accessed once from `first`, each `stride` lines apart, at a
 * rate of exactly 2^-6: the cold weight is 64 x the lines tracked. */
static double shards_tracked_weight(uint64_t seed, uint64_t first,
                                    uint64_t stride, size_t n)
{
    uint64_t *a = malloc(n * sizeof *a);
    ck_assert_ptr_nonnull(a);
    for (size_t i = 0; i < n; i++) a[i] = first + i * stride;
    cm_sample_spec spec = {CM_SAMPLE_SHARDS, 1.0 / 64, 0, seed, 0};
    cm_reuse_hist h = run_engine(&spec, 256, a, n);
    free(a);
    ck_assert_double_eq(h.total, (double)n);
    double cold = h.cold;
    cm_reuse_hist_free(&h);
    return cold;
}

START_TEST(test_shards_stratified_lines)
{
    /* Contiguous lines: exactly one in 64 of every aligned block is
     * tracked, so the footprint estimate is exact (independent hashing
     * would be off by ~64 x sqrt(1000) = 2000 lines, 3%). */
    for (uint64_t seed = 1; seed <= 4; seed++)
        ck_assert_double_eq(shards_tracked_weight(seed, 64 * 1000 + 64 * 7,
                                                  1, 64 * 1000),
                            64 * 1000);
    /* A stride of one line per block: the tracked line is a random one of
     * its block, so the pattern is tracked at the rate on average
     * (Bin(2^16, 1/64): sd 3%), not all or nothing as with a fixed phase.
     * The same holds across scales (a stride of 4096 lines). */
    const size_t n = 1u << 16;
    double sum = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        double w = shards_tracked_weight(seed, 5, 64, n);
        ck_assert_msg(fabs(w / n - 1) < 0.15, "stride 64, seed %llu: %g of %zu",
                      (unsigned long long)seed, w, n);
        sum += shards_tracked_weight(seed, 5 + 64 * 3, 4096, n);
    }
    ck_assert_msg(fabs(sum / (4.0 * n) - 1) < 0.08, "stride 4096: %g",
                  sum / 4);
}
END_TEST

START_TEST(test_shards_max_tiny_and_resumed)
{
    /* One tracked line: the threshold keeps falling, yet the histogram
     * stays a consistent estimate; and finish may be called mid-stream. */
    size_t n;
    uint64_t *a = make_stream(ST_UNIFORM, &n);
    cm_sample_spec spec = {CM_SAMPLE_SHARDS_MAX, 0, 1, 5, 0};
    cm_reuse_engine *e;
    cm_reuse_hist h;
    cm_err err = {0};
    ck_assert_int_eq(cm_reuse_engine_new(&spec, 8, &e, &err), CM_OK);
    for (size_t i = 0; i < n / 2; i++)
        if (cm_reuse_engine_access(e, a[i], &err) != CM_OK)
            ck_abort_msg("%s", err.msg);
    ck_assert_int_eq(cm_reuse_engine_finish(e, &h, &err), CM_OK);
    ck_assert_double_eq(h.total, (double)(n / 2));
    double rate = h.rate;
    cm_reuse_hist_free(&h);
    for (size_t i = n / 2; i < n; i++)
        if (cm_reuse_engine_access(e, a[i], &err) != CM_OK)
            ck_abort_msg("%s", err.msg);
    ck_assert_int_eq(cm_reuse_engine_finish(e, &h, &err), CM_OK);
    ck_assert_double_eq(h.total, (double)n);
    ck_assert(h.rate <= rate && h.rate < 0.01);
    ck_assert_close(cm_reuse_hist_miss_ratio(&h, 0), 1, 1e-12);
    for (double c = 1; c < 2000; c *= 2) {
        double mr = cm_reuse_hist_miss_ratio(&h, c);
        ck_assert_msg(mr >= 0 && mr <= 1, "mr(%g) = %g", c, mr);
    }
    cm_reuse_hist_free(&h);
    cm_reuse_engine_free(e);
    free(a);
}
END_TEST

START_TEST(test_nothing_sampled)
{
    uint64_t a[3] = {1, 2, 3};
    cm_err err = {0};
    cm_reuse_engine *e;
    cm_reuse_hist h;
    cm_sample_spec spec = {CM_SAMPLE_STATSTACK, 1e-6, 0, 1, 0};
    ck_assert_int_eq(cm_reuse_engine_new(&spec, 8, &e, &err), CM_OK);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(cm_reuse_engine_access(e, a[i], &err), CM_OK);
    ck_assert_int_eq(cm_reuse_engine_finish(e, &h, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "sampled"));
    cm_reuse_engine_free(e);
    /* an empty stream is not an error: an empty histogram */
    spec.kind = CM_SAMPLE_SHARDS;
    ck_assert_int_eq(cm_reuse_engine_new(&spec, 8, &e, &err), CM_OK);
    ck_assert_int_eq(cm_reuse_engine_finish(e, &h, &err), CM_OK);
    ck_assert_double_eq(h.total, 0);
    cm_reuse_hist_free(&h);
    cm_reuse_engine_free(e);
    spec.rate = 0;
    ck_assert_int_eq(cm_reuse_engine_new(&spec, 8, &e, &err), CM_EINPUT);
    spec.kind = CM_SAMPLE_SHARDS_MAX;
    spec.max_lines = 0;
    ck_assert_int_eq(cm_reuse_engine_new(&spec, 8, &e, &err), CM_EINPUT);
}
END_TEST

START_TEST(test_spec_parse)
{
    cm_sample_spec s;
    cm_err err = {0};
    ck_assert_int_eq(cm_sample_spec_parse("none", &s, &err), CM_OK);
    ck_assert_int_eq(s.kind, CM_SAMPLE_NONE);
    ck_assert_int_eq(cm_sample_spec_parse("shards:0.01", &s, &err), CM_OK);
    ck_assert_int_eq(s.kind, CM_SAMPLE_SHARDS);
    ck_assert_double_eq(s.rate, 0.01);
    ck_assert_int_eq(cm_sample_spec_parse("shards:1", &s, &err), CM_OK);
    ck_assert_int_eq(cm_sample_spec_parse("shards-max:8192", &s, &err),
                     CM_OK);
    ck_assert_int_eq(s.kind, CM_SAMPLE_SHARDS_MAX);
    ck_assert_uint_eq(s.max_lines, 8192);
    ck_assert_int_eq(cm_sample_spec_parse("statstack:0.5", &s, &err), CM_OK);
    ck_assert_int_eq(s.kind, CM_SAMPLE_STATSTACK);
    ck_assert_double_eq(s.rate, 0.5);
    static const char *const bad[] = {
        "",            "shards",      "shards:",      "shards:0",
        "shards:1.5",  "shards:-0.1", "shards:0.1x",  "shards:nan",
        "shards-max:0", "shards-max:-3", "shards-max:2.5", "shards-max:",
        "statstack:2", "statstack",   "none:1",       "lru:0.1",
        "SHARDS:0.1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err.msg[0] = 0;
        ck_assert_msg(cm_sample_spec_parse(bad[i], &s, &err) == CM_EINPUT,
                      "'%s' accepted", bad[i]);
        ck_assert_ptr_nonnull(strstr(err.msg, "shards-max:S"));
    }
}
END_TEST

/* The engine's estimate and, when asked, its jackknife replicates. */
static cm_reuse_hist run_replicated(cm_sample_kind kind, double rate,
                                    uint64_t seed, cm_reuse_hist *reps,
                                    size_t *nreps)
{
    cm_sample_spec spec = {kind, rate, 0, seed, 1};
    cm_reuse_engine *e;
    cm_reuse_hist h;
    cm_err err = {0};
    ck_assert_int_eq(cm_reuse_engine_new(&spec, 256, &e, &err), CM_OK);
    cm_status st = CM_OK;
    for (size_t i = 0; i < ACC_N && st == CM_OK; i++)
        st = cm_reuse_engine_access(e, acc_stream[i], &err);
    if (!st) st = cm_reuse_engine_finish(e, &h, &err);
    if (!st) st = cm_reuse_engine_replicates(e, reps, nreps, &err);
    ck_assert_msg(st == CM_OK, "%s", err.msg);
    cm_reuse_engine_free(e);
    return h;
}

static void free_reps(cm_reuse_hist *reps, size_t n)
{
    for (size_t i = 0; i < n; i++) cm_reuse_hist_free(&reps[i]);
}

START_TEST(test_jackknife_interval_by_hand)
{
    /* Three replicates whose cold shares (the miss ratio of 1 line when
     * every reuse is at distance 0) are 0.2, 0.3 and 0.4: mean 0.3,
     * jackknife variance (2/3) x 0.02, t(0.975, 2) = 4.302653. */
    cm_reuse_hist reps[3];
    cm_err err = {0};
    for (int r = 0; r < 3; r++) {
        ck_assert_int_eq(cm_reuse_hist_init(&reps[r], 4, &err), CM_OK);
        cm_reuse_hist_add(&reps[r], -1, 2 + r, &err);
        cm_reuse_hist_add(&reps[r], 0, 8 - r, &err);
    }
    double cap = 1, mr = 0.6, lo, hi;
    double half = cm_mrc_fa_interval(reps, 3, 0, &cap, 1, &mr, &lo, &hi);
    ck_assert_close(half, 4.302653 * sqrt(2.0 / 3 * 0.02), 1e-5);
    ck_assert_close(lo, 0.6 - half, 1e-12);
    ck_assert_double_eq(hi, 1); /* clipped */
    /* Fewer than two replicates: the point itself. */
    half = cm_mrc_fa_interval(reps, 1, 0, &cap, 1, &mr, &lo, &hi);
    ck_assert(half == 0 && lo == mr && hi == mr);
    /* A census (rate 1) has no sampling error; at rate 3/4, half. */
    half = cm_mrc_fa_interval(reps, 3, 1, &cap, 1, &mr, &lo, &hi);
    ck_assert(half == 0 && lo == mr && hi == mr);
    half = cm_mrc_fa_interval(reps, 3, 0.75, &cap, 1, &mr, &lo, &hi);
    ck_assert_close(half, 0.5 * 4.302653 * sqrt(2.0 / 3 * 0.02), 1e-5);
    free_reps(reps, 3);
}
END_TEST

START_TEST(test_jackknife_replicates)
{
    cm_reuse_hist reps[CM_REUSE_GROUPS];
    size_t n;
    /* The exact engine has no sampling error, so no replicates. */
    cm_reuse_hist h = run_replicated(CM_SAMPLE_NONE, 1, 1, reps, &n);
    ck_assert_uint_eq(n, 0);
    cm_reuse_hist_free(&h);
    /* Each replicate is an estimate of its own: the true count, and the
     * rate of the groups it keeps. */
    for (int kind = CM_SAMPLE_SHARDS; kind <= CM_SAMPLE_STATSTACK;
         kind += CM_SAMPLE_STATSTACK - CM_SAMPLE_SHARDS) {
        h = run_replicated((cm_sample_kind)kind, 0.01, 3, reps, &n);
        ck_assert_uint_eq(n, CM_REUSE_GROUPS);
        double sampled = 0;
        for (size_t r = 0; r < n; r++) {
            ck_assert_close(reps[r].total, ACC_N, 1e-9 * ACC_N);
            ck_assert_close(cm_reuse_hist_miss_ratio(&reps[r], 0), 1, 1e-12);
            sampled += reps[r].sampled;
        }
        if (kind == CM_SAMPLE_STATSTACK) /* each sample left out once */
            ck_assert_double_eq(sampled, (n - 1) * h.sampled);
        free_reps(reps, n);
        cm_reuse_hist_free(&h);
    }
}
END_TEST

START_TEST(test_jackknife_covers_exact)
{
    /* SHARDS at 1% tracks ~1000 of the 1e5 lines.  Over 10 seeds and three
     * capacities the 95% interval holds the exact miss ratio in 26 of 30
     * cases (at least 24 asked; a 4x narrower interval holds it once),
     * and it narrows as the rate grows: its width goes as 1/sqrt(lines
     * tracked), sqrt(10) from 1% to 10% (measured 2.7). */
    double caps[3] = {acc_footprint / 8, acc_footprint / 4,
                      acc_footprint / 2};
    double exact[3], mr[3], lo[3], hi[3], half[2] = {0, 0};
    cm_mrc_fa(&acc_exact, caps, 3, exact);
    int covered = 0, cases = 0;
    for (uint64_t seed = 1; seed <= 10; seed++)
        for (int k = 0; k < 2; k++) {
            cm_reuse_hist reps[CM_REUSE_GROUPS];
            size_t n;
            cm_reuse_hist h = run_replicated(CM_SAMPLE_SHARDS,
                                             k ? 0.1 : 0.01, seed, reps, &n);
            cm_mrc_fa(&h, caps, 3, mr);
            half[k] += cm_mrc_fa_interval(reps, n, h.rate, caps, 3, mr, lo,
                                          hi) / 10;
            for (int j = 0; !k && j < 3; j++, cases++)
                covered += lo[j] <= exact[j] && exact[j] <= hi[j];
            free_reps(reps, n);
            cm_reuse_hist_free(&h);
        }
    ck_assert_msg(covered >= 24, "exact inside %d of %d intervals", covered,
                  cases);
    ck_assert_msg(half[0] / half[1] > 2 && half[0] / half[1] < 5,
                  "half-width %g at 1%%, %g at 10%%", half[0], half[1]);
    ck_assert_msg(half[0] < 0.06, "half-width %g at 1%%", half[0]);
}
END_TEST

Suite *suite_reuse(void)
{
    Suite *s = suite_create("reuse");
    TCase *tc = tcase_create("exact");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_exact_matches_naive, 0, ST_COUNT);
    tcase_add_test(tc, test_remove_matches_naive);
    suite_add_tcase(s, tc);
    tc = tcase_create("hist");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_hist_matches_naive_mrc);
    tcase_add_test(tc, test_hist_bins_and_interpolation);
    tcase_add_test(tc, test_hist_merge_of_halves);
    suite_add_tcase(s, tc);
    tc = tcase_create("sampled");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, accuracy_setup, accuracy_teardown);
    tcase_add_test(tc, test_shards_full_rate_is_exact);
    tcase_add_test(tc, test_shards_accuracy);
    tcase_add_test(tc, test_statstack_accuracy);
    tcase_add_test(tc, test_shards_stratified_lines);
    tcase_add_test(tc, test_shards_max_tiny_and_resumed);
    tcase_add_test(tc, test_nothing_sampled);
    tcase_add_test(tc, test_spec_parse);
    tcase_add_test(tc, test_jackknife_interval_by_hand);
    tcase_add_test(tc, test_jackknife_replicates);
    tcase_add_test(tc, test_jackknife_covers_exact);
    suite_add_tcase(s, tc);
    return s;
}
