/* setassoc.c - miss-ratio curves from a stack-distance histogram: fully
 * associative LRU and set-associative LRU (the binomial model and the
 * region model).
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
 * and the mean over the bin is (T(hi) - T(lo)) / (hi - lo): two GSL
 * binomial tails (incomplete beta functions, ~0.3 us each at any size
 * measured, S up to 2^20 and A up to 128) per bin edge.  Neither term
 * cancels badly: the second is at most (A+1)/(np) times the first.
 *
 * Large distances: once np >= mu* = A + 40 + sqrt(80 A + 1600), the
 * Chernoff bound P(Bin < A) <= exp(-(np - A)^2 / (2 np)) <= e^-40 says the
 * access misses to within 4e-18, so distances past n* = S mu* count as sure
 * misses and GSL is never asked about them.  GSL's binomial takes an
 * unsigned int trial count; only if n* exceeds it (more than ~2^25 sets)
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
 * Region model (cm_mrc_setassoc_spatial).  Let x be the reused line.  The
 * lines of x's set are x + kS, k an integer; cut the line address space
 * around x into blocks of S consecutive lines, block k = [x - S/2 + kS,
 * x - S/2 + (k+1) S), so that block k holds exactly one line of x's set,
 * x + kS, and block 0 holds x alone of it.  The count K of window lines in
 * x's set is then the number of blocks k != 0 whose line x + kS is in the
 * window.  Two parts of the window are told apart:
 *  - the anchored run: the window lines contiguous with x, x - a .. x + b
 *    (x itself excluded; a, b >= 0).  It holds x + kS exactly for
 *    -a/S <= k <= b/S: a sure floor(a/S) + floor(b/S) lines of the set;
 *  - the other lines, j_k of them in block k.  Taking their positions in
 *    a block as uniform over its positions the run leaves free (f_k = S
 *    less the run's share of the block), block k holds x + kS with
 *    probability p_k = j_k / f_k, independently of the other blocks (the
 *    one placement assumption; blocks whose x + kS the run holds add
 *    nothing, nor does block 0).
 * So K = floor(a/S) + floor(b/S) + a Poisson-binomial sum, with
 *     mean m = floor(a/S) + floor(b/S) + sum_k p_k,
 *     variance v = sum_k p_k (1 - p_k).
 * The model is the binomial with that mean and variance,
 *     P(miss | d) = P(Bin(m/q, q) >= A) = I_q(A, m/q - A + 1), q = 1 - v/m,
 * continued to a real trial count by the regularized incomplete beta
 * function (GSL's beta distribution function); v = 0 is a sure count m.
 * Matching two moments keeps the Poisson binomial's tail where blocks are
 * equally full, and its limits are exact:
 *  - scattered lines (no two within S, no neighbour of x): every j_k = 1,
 *    m = d/S, v = (d/S)(1 - 1/S), q = 1/S: the binomial model above;
 *  - a contiguous loop through x, from any base: the whole window is the
 *    anchored run, v = 0, K = floor(a/S) + floor(b/S), which is exactly
 *    the LRU set count: a loop of L lines hits every reuse if L <= S A and
 *    none if L >= S (A + 1), the fully associative answer.
 * Blocks are laid around x, not aligned in the address space, so the
 * model, like the cache, is unchanged when every address moves by the
 * same amount.  A reference whose mean is past mu* above counts as a miss
 * by the same Chernoff bound (it holds for Poisson binomials).
 *
 * The mean and variance per window line, m/d and v/d, are measured per
 * distance bin (16 exact bins, then 8 per octave) over a random sample of
 * reuses in the same streaming pass as the stack distances (spatial.c;
 * memory bounded by the depth followed, reuse.spatial_depth; cost by
 * reuse.spatial_budget), as ratios of sums over the sampled windows, and
 * read at distance d as m = d (m/d), v = d (v/d).  For a histogram bin the
 * model evaluates each integer distance of exact bins, and 8 midpoints of
 * each statistics bin inside wider log2 bins; a bin with no sample, and
 * every distance past the depth, falls back to the binomial.
 *
 * What was tried first: the same Poisson binomial over regions aligned in
 * the address space (aligned S-line regions, x's own region excluded)
 * reached gzip 62/6.5/0.5%, sha256sum 30/20/4.3%, ls 11/4.7/13% (worst
 * errors at 4/8/16 ways, below): runs of the window crossing an aligned
 * boundary, and the run through x spilling into the next region, count
 * there as independent chances of holding x's set that they are not.
 * Centring the blocks on x brought gzip's 4-way error to 20%; the anchored
 * run makes the contiguous limits exact.  With aligned regions, the exact
 * Poisson binomial of every window (no moment matching, no binning), on a
 * 1-in-8 subsample of the references, was off by as much as the per-bin
 * model (gzip 128 KB 4-way +26% against +20%): the misses belong to the
 * independence assumption, not to the approximations after it.
 *
 * Accuracy against the exact cache on valgrind lackey traces of real
 * programs (tests/check_accuracy.c: 64 B lines, 4 KB to 128 KB, default
 * depth and budget), worst relative error of the miss ratio at 4/8/16
 * ways, region model (binomial model): sort 0.2/0.1/0.1% (0.8/0.4/0.3%),
 * ls 10.6/4.2/15.1% (22/17.5/1.7%), sha256sum 22.3/19.1/5.4%
 * (46/29/4.2%), gzip 17.1/7.2/0.7% (476/259/113%).  Walking every reuse's
 * window instead of the sampled ones changes these by about a point.
 * The 10% is met on sort, on ls at 8 ways, sha256sum at 16 and
 * gzip at 8 and 16.  The worst cases are where blocks' contents are
 * correlated with each other and with x, which the independence above
 * drops: gzip's 128 KB 4-way cache (miss ratio 0.0034, of which 0.0007
 * are conflicts; predicted 0.0040), sha256sum's 32 KB 4- and 8-way caches,
 * which partly hold a loop a little larger than they are (4-way: 0.0028,
 * predicted 0.0034), ls's 16 KB 4-way (+10.6%) and its 8 KB 16-way cache,
 * where the binomial is right and the region model low (0.016, predicted
 * 0.014).  Where the trace is at hand and exactness matters, set-local
 * stack distances (setlocal.c) give the set-associative miss ratio with no
 * placement assumption. */
#include "models/mrc.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <limits.h>
#include <math.h>

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

/* P(Bin(n, p) >= a). */
static double binom_tail(double n, double p, uint64_t a)
{
    if (a == 0) return 1;
    if (n < (double)a) return 0;
    if (n <= UINT_MAX)
        return gsl_cdf_binomial_Q((unsigned)(a - 1), p, (unsigned)n);
    return gsl_cdf_poisson_Q((unsigned)(a - 1), n * p);
}

/* T(n) of the header: the summed miss probability of distances 0..n-1,
 * valid up to the saturation point. */
static double tail_sum(double n, double p, uint64_t ways)
{
    if (n <= 0) return 0;
    return n * binom_tail(n - 1, p, ways) -
           ((double)ways / p) * binom_tail(n, p, ways + 1);
}

double cm_mrc_setassoc_miss_prob(uint64_t sets, uint64_t ways, double lo,
                                 double hi)
{
    if (hi <= lo) hi = lo + 1;
    if (hi <= (double)ways) return 0; /* fewer lines than ways: no miss */
    double p = 1.0 / (double)sets, wd = (double)ways;
    double sat = ceil((wd + 40 + sqrt(80 * wd + 1600)) * (double)sets);
    if (lo >= sat) return 1;
    if (hi - lo == 1) return binom_tail(lo, p, ways);
    double top = hi <= sat ? tail_sum(hi, p, ways)
                           : tail_sum(sat, p, ways) + (hi - sat);
    double m = (top - tail_sum(lo, p, ways)) / (hi - lo);
    return m < 0 ? 0 : m > 1 ? 1 : m;
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

double cm_mrc_setassoc_region_miss_prob(uint64_t ways, double mean,
                                        double var)
{
    double A = (double)ways;
    if (!(mean > 0)) return 0;
    if (var <= 0) /* a sure count (rounding of the per-bin ratios aside) */
        return mean >= A * (1 - 1e-12) ? 1 : 0;
    if (mean >= A + 40 + sqrt(80 * A + 1600)) return 1; /* Chernoff, above */
    double q = 1 - var / mean;
    if (q <= 0) return gsl_cdf_poisson_Q((unsigned)(ways - 1), mean);
    double n = mean / q; /* effective blocks, each P(x's set) = q */
    if (n <= A - 1) return 0;
    return gsl_cdf_beta_P(q, A, n - A + 1);
}

/* Mean region-model miss probability over the integer distances a..e-1,
 * all in one bin of the region statistics (count mean m1 d, variance
 * v1 d at distance d). */
static double region_piece(uint64_t ways, double a, double e, double m1,
                           double v1)
{
    double w = e - a;
    if (w <= 8) {
        double sum = 0;
        for (double d = a; d < e; d++)
            sum += cm_mrc_setassoc_region_miss_prob(ways, m1 * d, v1 * d);
        return sum;
    }
    /* Wide pieces lie past the histogram's exact bins, where the
     * probability is smooth in d: eight midpoints. */
    double sum = 0;
    for (int k = 0; k < 8; k++) {
        double d = a + (k + 0.5) * w / 8 - 0.5;
        sum += cm_mrc_setassoc_region_miss_prob(ways, m1 * d, v1 * d);
    }
    return sum * w / 8;
}

/* The region model's mean over a histogram bin, piece by piece of the
 * region statistics' bins. */
static double region_bin(const void *ctx, uint64_t sets, uint64_t ways,
                         double lo, double hi)
{
    const cm_spatial *sp = ctx;
    if (hi <= lo) hi = lo + 1;
    double sum = 0;
    for (double a = lo; a < hi;) {
        size_t k = cm_spatial_bin_of((uint64_t)a);
        double e = fmin(hi, (double)cm_spatial_bin_lo(k + 1)), m1, v1;
        if (cm_spatial_bin_stats(sp, sets, k, &m1, &v1))
            sum += region_piece(ways, a, e, m1, v1);
        else /* nothing sampled here: lines placed at random */
            sum += (e - a) * cm_mrc_setassoc_miss_prob(sets, ways, a, e);
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
                          "region statistics were not collected for %llu "
                          "sets", (unsigned long long)sets);
    *miss_ratio = sum_misses(h, sets, ways, region_bin, sp);
    return CM_OK;
}
