/* setassoc.c - miss-ratio curves from a stack-distance histogram: fully
 * associative LRU and set-associative LRU.
 *
 * Fully associative: a cache of C lines misses exactly the accesses with
 * stack distance >= C and the cold ones (Mattson et al. 1970).
 *
 * Set-associative (Smith 1978; Hill & Smith 1989): with S sets and A ways,
 * an access of stack distance d hits iff fewer than A of the d distinct lines
 * touched since its last use map to its own set.  If lines map to sets
 * uniformly and independently that number is Binomial(d, p = 1/S), so
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
 * 20000 lines, caches of 64 to 4096 lines, 4 to 16 ways): within 5% of the
 * miss count when the histogram's exact bins cover the cache.  Log2 bins
 * add the uniform-within-bin reading's error, up to ~20% where a cache
 * just holds a working set whose distances pile up at one end of a bin.
 * The binomial assumes lines fall into sets independently; strided or
 * set-aligned data (power-of-two arrays) conflicts more than it says, and
 * contiguous data spreads over sets more evenly, so conflicts less: on
 * valgrind lackey traces of real programs (64 B lines, 4 to 128 KB) it is
 * within 1% on sort but up to 22% high on ls, 46% on sha256sum and 5x on
 * gzip, where the miss ratio is 0.003-0.03 and conflict misses dominate.
 * Where the trace is at hand, set-local stack distances (setlocal.c)
 * give the set-associative miss ratio without a placement assumption. */
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

cm_status cm_mrc_setassoc(const cm_reuse_hist *h, uint64_t sets,
                          uint64_t ways, double *miss_ratio, cm_err *err)
{
    if (sets < 1 || ways < 1 || ways >= UINT_MAX)
        return cm_err_set(err, CM_EINPUT,
                          "set-associative model needs sets >= 1 and "
                          "1 <= ways < %u (got %llu x %llu)", UINT_MAX,
                          (unsigned long long)sets, (unsigned long long)ways);
    if (!(h->total > 0))
        return cm_err_set(err, CM_EINPUT,
                          "set-associative model: the histogram is empty");
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    double miss = h->cold;
    size_t nb = cm_reuse_hist_nbins(h);
    for (size_t b = 0; b < nb; b++) {
        double count = cm_reuse_hist_bin_count(h, b), lo, hi;
        if (count == 0) continue;
        cm_reuse_hist_bin_bounds(h, b, &lo, &hi);
        miss += count * cm_mrc_setassoc_miss_prob(sets, ways, lo, hi);
    }
    gsl_set_error_handler(old);
    double r = miss / h->total;
    *miss_ratio = r > 1 ? 1 : r;
    return CM_OK;
}
