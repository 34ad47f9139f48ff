/* setassoc.c - miss-ratio curves from a stack-distance histogram: fully
 * associative LRU and set-associative LRU (the binomial model and the
 * occupancy model).
 *
 * Fully associative: a cache of C lines misses exactly the accesses with
 * stack distance >= C and the cold ones (Mattson et al. 1970).
 *
 * Set-associative (Smith 1978; Hill & Smith 1989): with S sets and A ways,
 * set = line mod S, an access of stack distance d hits iff fewer than A of
 * the d distinct lines touched since its last use (its window) map to its
 * own set.
 *
 * Binomial model (cm_mrc_setassoc).  If lines map to sets uniformly and
 * independently that number is Binomial(d, p = 1/S), so
 *     P(miss | d) = P(Bin(d, p) >= A),
 * which is 1{d >= A} for S = 1 (fully associative, A lines) and
 * 1 - (1 - 1/S)^d for A = 1 (direct mapped).
 *
 * A histogram bin [lo, hi) is taken as counts spread uniformly over its
 * integer distances, the same reading cm_reuse_hist_miss_ratio uses, so the
 * S = 1 case reproduces the fully associative curve.  The bin's mean miss
 * probability needs no quadrature: the (A+1)-th element of the set arrives
 * at trial d+1 with probability p P(Bin(d,p) = A), which gives
 *     T(n) = sum_{d<n} P(Bin(d,p) >= A) = (1/p) E[(Bin(n,p) - A)^+]
 *          = n P(Bin(n-1,p) >= A) - (A/p) P(Bin(n,p) >= A+1),
 * and the mean over the bin is (T(hi) - T(lo)) / (hi - lo): two binomial
 * tails per bin edge (solvers/binom.h: A terms of the mass function,
 * ~0.06 us, up to 64 ways; GSL's incomplete beta function beyond, ~0.3
 * us).  Neither term cancels badly: the second is at most (A+1)/(np)
 * times the first.
 *
 * Large distances: once np >= mu* = A + 40 + sqrt(80 A + 1600), the
 * Chernoff bound P(Bin < A) <= exp(-(np - A)^2 / (2 np)) <= e^-40 says the
 * access misses to within 4e-18, so distances past n* = S mu* count as sure
 * misses and the tail is never asked about them.  The binomial tail takes
 * an unsigned int trial count; only if n* exceeds it (more than ~2^25 sets)
 * is Bin(n, p) replaced by Poisson(np), whose total-variation error is at
 * most n p^2 = mu* p < 1e-5 there (Le Cam).
 *
 * Accuracy against the exact cache (check_mrc.c; Zipf streams over 1000 to
 * 20000 scattered lines, caches of 64 to 4096 lines, 4 to 16 ways): within
 * 5% of the miss count when the histogram's exact bins cover the cache.
 * Log2 bins add the uniform-within-bin reading's error, up to ~20% where a
 * cache just holds a working set whose distances pile up at one end of a
 * bin.  On real programs it fails: their data is contiguous, and
 * contiguous lines spread over sets far more evenly than random placement.
 *
 * Occupancy model (cm_mrc_setassoc_spatial).  At a reuse of x with
 * window W (d lines), the access misses iff K_x >= A, K_x the number of
 * lines of W in x's set.  The model takes x to be exchangeable with the
 * lines of its window as far as sets go: among the d + 1 lines W + x, x's
 * set is as loaded as the set of one of them drawn at random.  So, with
 * c_s the number of the d + 1 lines in set s,
 *     P(K = k | window) = sum_s c_s 1{c_s - 1 = k} / (d + 1),
 * the share of the lines whose set holds k others, and
 *     P(miss | d) = P(K >= A) over the windows of reuses at distance d.
 * That distribution, per distance bin (16 exact bins, then 8 per octave)
 * and set count, over a random sample of reuses in the same streaming
 * pass as the stack distances, is spatial.c's statistic (memory bounded
 * by the depth followed, reuse.spatial_depth; cost by
 * reuse.spatial_budget); it does not depend on A, so one pass serves every
 * associativity.  A histogram bin takes, piece by piece of the statistics'
 * bins it overlaps, each piece's P(K >= A) for all its distances; a bin
 * with no sample, and every distance past the depth, falls back to the
 * binomial.  The distribution is kept for K < CM_SPATIAL_KMAX = 64, K >=
 * 64 lumped, so it is exact up to 64 ways; beyond, the model reads K as
 * the binomial of its mean and variance (cm_mrc_setassoc_moments_miss_prob
 * below).
 * What the draw keeps is how the program placed the window: contiguous
 * data spreads evenly over sets, aligned arrays and strides crowd a few
 * sets, and both reach every line's K.  Its limits:
 *  - lines placed at random: a drawn line's set holds Bin(d, 1/S) others,
 *    the binomial model, on average over placements (and the one placement
 *    at hand, not its average, for a given trace);
 *  - a contiguous loop of L lines from any base: every set holds floor(L/S)
 *    or ceil(L/S) of them, so K < A for every line if L <= S A and K >= A
 *    if L >= S (A + 1): exactly the LRU answer, as fully associative;
 *  - all lines in one set: K = d, the fully associative cache of A lines.
 * What it drops is any correlation between x and its set's load beyond
 * the window's own: x is the line being reused, not a random one.
 *
 * What was tried first (worst relative error at 4/8/16 ways on the traces
 * below, default depth and budget):
 *  - the binomial: sort 0.8/0.4/0.3%, ls 22/17.5/1.7%, sha256sum 46/29/4.2%,
 *    gzip 476/259/113%;
 *  - a region model: blocks of S lines laid around x, each holding one line
 *    of x's set, with x's set's line in block k taken as in the window with
 *    probability (window lines in block k) / (free positions), blocks
 *    independent, the run of window lines contiguous with x counted for
 *    sure, and the count read as the binomial of its mean and variance
 *    per distance bin: sort 0.2/0.1/0.1%, ls 10.6/4.2/15.1%, sha256sum
 *    22.3/19.1/5.4%, gzip 17.1/7.2/0.7%.  Measured per window, walking
 *    every fourth reuse (a scratch tool, not kept), its errors had two
 *    sources:
 *    on sha256sum's 32 KB caches the two-moment binomial, which folds the
 *    sure count of the anchored run into the random part (per-window
 *    moment matching +16/+15/+3%, the exact Poisson binomial of the same
 *    blocks -3/-5/-10%); on ls (16 KB 4-way +11.6%, 8 KB 16-way -15%) and
 *    gzip (128 KB 4-way +44% with the exact Poisson binomial) the
 *    independence of the blocks, which the moment matching partly
 *    cancelled on gzip;
 *  - the mean and variance of x's own count per distance bin (and per
 *    sure count of the anchored run), read as a binomial or negative
 *    binomial: ls and sha256sum within 8%, gzip 128 KB 4-way -25%; as a
 *    shifted Poisson, +45%: gzip's count there is much narrower than
 *    binomial (variance 0.4 at mean 2.2) with a tail that no two-moment
 *    shape gets right.
 *
 * Accuracy against the exact cache on valgrind lackey traces of real
 * programs (tests/check_accuracy.c: 64 B lines, 4 KB to 128 KB, default
 * depth and budget), worst relative error of the miss ratio at 4/8/16
 * ways: sort 0.0/0.0/0.0%, ls 2.7/4.7/6.0%, sha256sum 0.7/1.0/0.2%, gzip
 * 3.8/0.6/0.3%; other sampling seeds (2 to 4) move these by up to 1.5
 * points, walking every reuse (budget 10^6) by up to 1.2.  The worst case
 * left, ls's 8 KB 16-way cache (-6%), is the reused line's set being
 * busier than a random window line's.  Where the trace is at hand and exactness
 * matters, set-local stack distances (setlocal.c) give the
 * set-associative miss ratio with no placement assumption. */
#include "models/mrc.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>

void cm_mrc_fa(const cm_reuse_hist *h, const double *capacity_lines,
               size_t n, double *miss_ratio)
{
    for (size_t i = 0; i < n; i++)
        miss_ratio[i] = cm_reuse_hist_miss_ratio(h, capacity_lines[i]);
}

/* The largest distance worth telling apart from a certain miss: the last
 * bin of the histogram with a count, or the number of distinct lines. */
static double hist_reach(const cm_reuse_hist *h)
{
    double reach = h->cold;
    for (size_t b = cm_reuse_hist_nbins(h); b-- > 0;)
        if (cm_reuse_hist_bin_count(h, b) > 0) {
            double lo, hi;
            cm_reuse_hist_bin_bounds(h, b, &lo, &hi);
            if (hi > reach) reach = hi;
            break;
        }
    return reach;
}

size_t cm_mrc_default_capacities(const cm_reuse_hist *h, unsigned per_octave,
                                 double *capacity_lines, size_t cap)
{
    /* Whole lines only: distances are integers, so a fractional capacity
     * would repeat its floor's miss ratio.  One octave past the footprint
     * shows the cold-miss floor a fit needs to pin m_inf. */
    if (per_octave == 0) per_octave = 1;
    double stop = 2.0 * hist_reach(h);
    if (stop < 2) stop = 2;
    size_t n = 0;
    for (unsigned k = 0; n < cap; k++) {
        double c = round(exp2((double)k / per_octave));
        if (n > 0 && c <= capacity_lines[n - 1]) continue;
        capacity_lines[n++] = c;
        if (c >= stop) break;
    }
    return n;
}

/* P(Bin(n, p) >= a), p = b->p. */
static double binom_tail(const cm_binom_law *b, double n, uint64_t a)
{
    if (a == 0) return 1;
    if (n < (double)a) return 0;
    if (n <= UINT_MAX)
        return cm_binom_law_q(b, (unsigned)(a - 1), (unsigned)n, NULL);
    return gsl_cdf_poisson_Q((unsigned)(a - 1), n * b->p);
}

/* T(n) of the header: the summed miss probability of distances 0..n-1,
 * valid up to the saturation point.  Its two tails from one sum of
 * terms: with X ~ Bin(n - 1, p), P(X >= A) = P(X > A) + P(X = A), and
 * Bin(n, p) >= A + 1 iff X > A, or X = A and the n-th trial is in the
 * set: P(X > A) + p P(X = A). */
static double tail_sum(const cm_mrc_setassoc_geo *g, double n)
{
    if (n <= 0) return 0;
    double A = (double)g->ways, p = g->law.p;
    if (n - 1 >= A && n <= UINT_MAX) {
        double at, above = cm_binom_law_q(&g->law, (unsigned)g->ways,
                                          (unsigned)(n - 1), &at);
        return n * (above + at) - (A / p) * (above + p * at);
    }
    return n * binom_tail(&g->law, n - 1, g->ways) -
           (A / p) * binom_tail(&g->law, n, g->ways + 1);
}

/* tail_sum through the memo, if any. */
static double tail_sum_memo(const cm_mrc_setassoc_geo *g, double n)
{
    cm_mrc_setassoc_memo *m = g->memo;
    if (!m) return tail_sum(g, n);
    uint64_t bits;
    memcpy(&bits, &n, sizeof bits);
    size_t i = (size_t)((bits * 0x9E3779B97F4A7C15ull) >> 55) % CM_MRC_MEMO;
    if (m->n[i] != n) {
        m->n[i] = n;
        m->t[i] = tail_sum(g, n);
    }
    return m->t[i];
}

void cm_mrc_setassoc_geo_init(cm_mrc_setassoc_geo *g, uint64_t sets,
                              uint64_t ways, cm_mrc_setassoc_memo *memo)
{
    double wd = (double)ways;
    g->sets = sets;
    g->ways = ways;
    g->sat = ceil((wd + 40 + sqrt(80 * wd + 1600)) * (double)sets);
    cm_binom_law_init(&g->law, 1.0 / (double)sets);
    g->memo = memo;
    for (size_t i = 0; memo && i < CM_MRC_MEMO; i++) memo->n[i] = -1;
}

double cm_mrc_setassoc_geo_miss_prob(const cm_mrc_setassoc_geo *g,
                                     double lo, double hi)
{
    if (hi <= lo) hi = lo + 1;
    if (hi <= (double)g->ways) return 0; /* fewer lines than ways: no miss */
    double sat = g->sat;
    if (lo >= sat) return 1;
    if (hi - lo == 1) return binom_tail(&g->law, lo, g->ways);
    double top = hi <= sat ? tail_sum_memo(g, hi)
                           : tail_sum_memo(g, sat) + (hi - sat);
    double m = (top - tail_sum_memo(g, lo)) / (hi - lo);
    return m < 0 ? 0 : m > 1 ? 1 : m;
}

double cm_mrc_setassoc_miss_prob(uint64_t sets, uint64_t ways, double lo,
                                 double hi)
{
    cm_mrc_setassoc_geo g;
    cm_mrc_setassoc_geo_init(&g, sets, ways, NULL);
    return cm_mrc_setassoc_geo_miss_prob(&g, lo, hi);
}

static cm_status check_geometry(const cm_reuse_hist *h, uint64_t sets,
                                uint64_t ways, cm_err *err)
{
    if (sets < 1 || ways < 1 || ways >= UINT_MAX)
        return cm_err_set(err, CM_EINPUT,
                          "set-associative model needs sets >= 1 and "
                          "1 <= ways < %u (got %llu x %llu)", UINT_MAX,
                          (unsigned long long)sets, (unsigned long long)ways);
    if (!(h->total > 0))
        return cm_err_set(err, CM_EINPUT,
                          "set-associative model: the histogram is empty");
    return CM_OK;
}

/* Mean miss probability over the integer distances lo .. hi-1. */
typedef double (*bin_prob_fn)(const void *ctx, uint64_t sets, uint64_t ways,
                              double lo, double hi);

/* The miss ratio: cold accesses plus each bin's count times its mean miss
 * probability, over all accesses. */
static double sum_misses(const cm_reuse_hist *h, uint64_t sets,
                         uint64_t ways, bin_prob_fn prob, const void *ctx)
{
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    double miss = h->cold;
    size_t nb = cm_reuse_hist_nbins(h);
    for (size_t b = 0; b < nb; b++) {
        double count = cm_reuse_hist_bin_count(h, b), lo, hi;
        if (count == 0) continue;
        cm_reuse_hist_bin_bounds(h, b, &lo, &hi);
        miss += count * prob(ctx, sets, ways, lo, hi);
    }
    gsl_set_error_handler(old);
    double r = miss / h->total;
    return r > 1 ? 1 : r;
}

static double binomial_bin(const void *ctx, uint64_t sets, uint64_t ways,
                           double lo, double hi)
{
    (void)ctx;
    return cm_mrc_setassoc_miss_prob(sets, ways, lo, hi);
}

cm_status cm_mrc_setassoc(const cm_reuse_hist *h, uint64_t sets,
                          uint64_t ways, double *miss_ratio, cm_err *err)
{
    cm_status st = check_geometry(h, sets, ways, err);
    if (st) return st;
    *miss_ratio = sum_misses(h, sets, ways, binomial_bin, NULL);
    return CM_OK;
}

double cm_mrc_setassoc_moments_miss_prob(uint64_t ways, double mean,
                                         double var)
{
    double A = (double)ways;
    if (!(mean > 0)) return 0;
    if (var <= 0) /* a sure count (rounding of the per-bin ratios aside) */
        return mean >= A * (1 - 1e-12) ? 1 : 0;
    if (mean >= A + 40 + sqrt(80 * A + 1600)) return 1; /* Chernoff, above */
    double q = 1 - var / mean;
    if (q <= 0) return gsl_cdf_poisson_Q((unsigned)(ways - 1), mean);
    double n = mean / q; /* effective trials, each a success with P q */
    if (n <= A - 1) return 0;
    return gsl_cdf_beta_P(q, A, n - A + 1);
}

/* The occupancy model's mean over a histogram bin, piece by piece of the
 * statistics' distance bins. */
static double occupancy_bin(const void *ctx, uint64_t sets, uint64_t ways,
                         double lo, double hi)
{
    const cm_spatial *sp = ctx;
    if (hi <= lo) hi = lo + 1;
    double sum = 0;
    for (double a = lo; a < hi;) {
        size_t k = cm_spatial_bin_of((uint64_t)a);
        double e = fmin(hi, (double)cm_spatial_bin_lo(k + 1)), tail, m, v;
        if (!cm_spatial_bin_stats(sp, sets, k, ways, &tail, &m, &v))
            /* nothing sampled here: lines placed at random */
            sum += (e - a) * cm_mrc_setassoc_miss_prob(sets, ways, a, e);
        else if (ways <= CM_SPATIAL_KMAX)
            sum += (e - a) * tail;
        else /* past the kept distribution: its two moments */
            sum += (e - a) * cm_mrc_setassoc_moments_miss_prob(ways, m, v);
        a = e;
    }
    return sum / (hi - lo);
}

cm_status cm_mrc_setassoc_spatial(const cm_reuse_hist *h,
                                  const cm_spatial *sp, uint64_t sets,
                                  uint64_t ways, double *miss_ratio,
                                  cm_err *err)
{
    cm_status st = check_geometry(h, sets, ways, err);
    if (st) return st;
    if (!cm_spatial_has_sets(sp, sets))
        return cm_err_set(err, CM_EINPUT,
                          "occupancy statistics were not collected for %llu "
                          "sets", (unsigned long long)sets);
    *miss_ratio = sum_misses(h, sets, ways, occupancy_bin, sp);
    return CM_OK;
}
