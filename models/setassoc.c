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
 * Region model (cm_mrc_setassoc_spatial).  Cut the line address space into
 * aligned regions of S consecutive lines; a region holds exactly one line
 * of each set.  Let x be the reused line, at offset o in its region, and
 * let the window hold k0 lines of x's own region and j_r lines of each
 * other region r.  The own region's lines are never in x's set (its only
 * line of that set is x), and region r contributes a line to x's set iff
 * one of its j_r lines sits at offset o.  Taking o uniform and independent
 * of where the other regions' lines sit (the one placement assumption
 * left), region r contributes Bernoulli(j_r / S), independently, so the
 * count K in x's set is Poisson-binomial:
 *     E K = sum_r j_r / S = d' / S,         d' = d - k0,
 *     Var K = sum_r (j_r/S)(1 - j_r/S) = d'/S - sum_r j_r^2 / S^2.
 * With M = sum_r j_r^2 / sum_r j_r, the line-weighted mean occupancy of the
 * other regions, that is Var K = (d'/S)(1 - M/S): the mean and variance of
 * Bin(n, q) with n = d'/M effective regions of M lines, each holding a
 * line of x's set with probability q = M/S.  The model is that binomial,
 *     P(miss | d) = P(Bin(d'/M, M/S) >= A) = I_{M/S}(A, d'/M - A + 1),
 * continued to real n by the regularized incomplete beta function (GSL's
 * beta distribution function), which matches the Poisson binomial's first
 * two moments; its tail is the binomial's whenever all regions are equally
 * full.  Limits: scattered lines (k0 = 0, every j_r = 1, M = 1) give
 * exactly the binomial model above; full contiguous regions (M = S) give
 * the deterministic count d'/S, i.e. a miss iff d' >= S A, the fully
 * associative answer for a contiguous loop aligned to regions.  A
 * reference that misses for sure (mean d'/S past mu* above) counts as a
 * miss, by the same Chernoff bound (it holds for Poisson binomials).
 *
 * The statistics F0 = k0/d and M are measured per distance bin (16 exact
 * bins, then 8 per octave) over a random sample of reuses in the same
 * streaming pass as the stack distances (spatial.c; memory bounded by the
 * depth followed, reuse.spatial_depth), as ratios of sums over the sampled
 * windows.  For a histogram bin the model evaluates each integer distance
 * of exact bins, and 8 midpoints of each statistics bin inside wider log2
 * bins; a bin with no sample, and every distance past the depth, falls
 * back to the binomial.  Aggregating per bin instead of per window costs
 * little: with every window's own k0 and sum j_r^2 the worst errors below
 * moved by at most a few points.
 *
 * Accuracy against the exact cache on valgrind lackey traces of real
 * programs (tests/check_accuracy.c: 64 B lines, 4 KB to 128 KB, default
 * depth 16384 and budget 4), worst relative error of the miss ratio at
 * 4/8/16 ways, region model (binomial model): sort 0.3/0.1/0.1%
 * (0.8/0.4/0.3%), ls 11/4.7/13% (22/17.5/1.7%), sha256sum 30/20/4.3%
 * (46/29/4.2%), gzip 62/6.5/0.5% (476/259/113%).  The 10% is met
 * on sort, on ls at 8 ways, sha256sum at 16 and gzip at 8 and 16.  The
 * misses are the cases where the regions' contents are correlated with
 * each other and with x's offset, which the independence above drops:
 * gzip's 128 KB 4-way cache (miss ratio 0.0034, of which 0.0007 are
 * conflicts) where runs of the window and of arrays streamed in step cross
 * region boundaries together (predicted 0.0055), sha256sum's 32 KB 4- and
 * 8-way caches, which partly hold a loop a little larger than they are
 * (4-way: 0.0028, predicted 0.0036), and ls's 8 KB 16-way cache, where the
 * binomial is right by chance and the region model low (0.016, predicted
 * 0.014).  The exact Poisson binomial of every window (its own j_r, no
 * moment matching, no binning), computed on a 1-in-8 subsample of the
 * references, misses by as much (gzip 128 KB 4-way +26% where the
 * per-bin model gave +20% on the same subsample; sha256sum 32 KB 4-way
 * +17%, ls 8 KB 16-way -14%), so the misses belong to the independence
 * assumption, not to the approximations after it.
 * Where the trace is at hand and exactness matters, set-local stack
 * distances (setlocal.c) give the set-associative miss ratio with no
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

double cm_mrc_setassoc_region_miss_prob(uint64_t sets, uint64_t ways,
                                        double d, double own_share,
                                        double occupancy)
{
    double S = (double)sets, A = (double)ways;
    double other = d * (1 - own_share); /* d' */
    if (!(other > 0) || other < A) return 0;
    double mu = other / S;
    if (mu >= A + 40 + sqrt(80 * A + 1600)) return 1; /* Chernoff, above */
    double q = occupancy / S;
    if (q >= 1) /* every other region full: exactly d'/S of the set */
        return mu >= A * (1 - 1e-12) ? 1 : 0;
    if (q <= 1.0 / S) q = 1.0 / S; /* M >= 1: scattered lines at worst */
    double n = mu / q; /* effective regions, each P(target set) = q */
    if (n <= A - 1) return 0;
    return gsl_cdf_beta_P(q, A, n - A + 1);
}

/* Mean region-model miss probability over the integer distances a..e-1,
 * all in one bin of the region statistics (stats own, occ). */
static double region_piece(uint64_t sets, uint64_t ways, double a, double e,
                           double own, double occ)
{
    double w = e - a;
    if (w <= 8) {
        double sum = 0;
        for (double d = a; d < e; d++)
            sum += cm_mrc_setassoc_region_miss_prob(sets, ways, d, own, occ);
        return sum;
    }
    /* Wide pieces lie past the histogram's exact bins, where the
     * probability is smooth in d: eight midpoints. */
    double sum = 0;
    for (int k = 0; k < 8; k++)
        sum += cm_mrc_setassoc_region_miss_prob(
            sets, ways, a + (k + 0.5) * w / 8 - 0.5, own, occ);
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
        double e = fmin(hi, (double)cm_spatial_bin_lo(k + 1)), own, occ;
        if (cm_spatial_bin_stats(sp, sets, k, &own, &occ))
            sum += region_piece(sets, ways, a, e, own, occ);
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
