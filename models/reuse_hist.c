/* reuse_hist.c - the stack-distance histogram and the LRU miss ratio it
 * implies (Mattson et al., "Evaluation techniques for storage hierarchies",
 * IBM Systems Journal 1970: a fully associative LRU cache of C lines hits
 * exactly the accesses with distance < C).
 *
 * Bins: distances 0 .. E-1 are counted one by one (E = exact_bins), larger
 * ones in log2 bins [E 2^k, E 2^(k+1)), so a histogram stays small however
 * long the stream; the log2 array grows to the largest bin used.  A real
 * (scaled, sampled) distance d falls in the bin holding floor(d).
 *
 * Miss ratio at C lines: (cold + count of distances >= C) / total.  In the
 * exact range that is exact for integer C (non-integer C is rounded up: an
 * integer distance d >= C iff d >= ceil(C)); inside a log2 bin the
 * distances are assumed uniform, so the share of the bin at or above C is
 * (hi - C) / (hi - lo), which agrees with the exact rule at integer C for
 * distances spread evenly over the bin's integers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/reuse.h"
#include "models/reuse_impl.h"

cm_status cm_reuse_hist_init(cm_reuse_hist *h, uint64_t exact_bins,
                             cm_err *err)
{
    memset(h, 0, sizeof *h);
    if (exact_bins < 1 || exact_bins > SIZE_MAX / sizeof(double))
        return cm_err_set(err, CM_EINPUT,
                          "reuse histogram: exact_bins must be >= 1, not "
                          "%llu", (unsigned long long)exact_bins);
    h->exact = calloc((size_t)exact_bins, sizeof *h->exact);
    if (!h->exact)
        return cm_err_set(err, CM_EINTERNAL,
                          "reuse histogram: out of memory for %llu bins",
                          (unsigned long long)exact_bins);
    h->exact_bins = exact_bins;
    h->rate = 1;
    return CM_OK;
}

void cm_reuse_hist_free(cm_reuse_hist *h)
{
    if (!h) return;
    free(h->exact);
    free(h->log2);
    memset(h, 0, sizeof *h);
}

void cm_reuse_hist_clear(cm_reuse_hist *h)
{
    memset(h->exact, 0, (size_t)h->exact_bins * sizeof *h->exact);
    if (h->nlog2) memset(h->log2, 0, h->nlog2 * sizeof *h->log2);
    h->cold = h->total = h->sampled = 0;
    h->rate = 1;
}

static cm_status hist_reserve_log2(cm_reuse_hist *h, size_t n, cm_err *err)
{
    if (n <= h->nlog2) return CM_OK;
    double *p = realloc(h->log2, n * sizeof *p);
    if (!p)
        return cm_err_set(err, CM_EINTERNAL,
                          "reuse histogram: out of memory");
    memset(p + h->nlog2, 0, (n - h->nlog2) * sizeof *p);
    h->log2 = p;
    h->nlog2 = n;
    return CM_OK;
}

/* log2 bin of d >= exact_bins: the k with E 2^k <= d < E 2^(k+1), in
 * integers while d fits (the per-access path).  Beyond 2^63 ilogb of the
 * quotient may be off by one where the division rounds across a power of
 * two, so its bounds are checked exactly. */
static size_t hist_log2_bin(uint64_t exact_bins, double d)
{
    if (d < 0x1p63)
        return (size_t)(63 - __builtin_clzll((uint64_t)d / exact_bins));
    double e = (double)exact_bins;
    int k = ilogb(d / e);
    while (k > 0 && ldexp(e, k) > d) k--;
    while (ldexp(e, k + 1) <= d) k++;
    return (size_t)k;
}

cm_status cm_reuse_hist_add(cm_reuse_hist *h, double distance, double weight,
                            cm_err *err)
{
    if (isnan(distance) || isinf(distance) || !(weight >= 0) ||
        isinf(weight))
        return cm_err_set(err, CM_EINPUT,
                          "reuse histogram: bad distance %g or weight %g",
                          distance, weight);
    double e = (double)h->exact_bins;
    if (distance < 0) {
        h->cold += weight;
    } else if (distance < e) {
        h->exact[(size_t)distance] += weight;
    } else {
        size_t k = hist_log2_bin(h->exact_bins, distance);
        cm_status st = hist_reserve_log2(h, k + 1, err);
        if (st != CM_OK) return st;
        h->log2[k] += weight;
    }
    h->total += weight;
    h->sampled += 1;
    return CM_OK;
}

size_t cm_reuse_hist_nbins(const cm_reuse_hist *h)
{
    return (size_t)h->exact_bins + h->nlog2;
}

void cm_reuse_hist_bin_bounds(const cm_reuse_hist *h, size_t bin,
                              double *lo, double *hi)
{
    if (bin < h->exact_bins) {
        *lo = (double)bin;
        *hi = (double)bin + 1;
    } else {
        int k = (int)(bin - h->exact_bins);
        *lo = ldexp((double)h->exact_bins, k);
        *hi = ldexp((double)h->exact_bins, k + 1);
    }
}

double cm_reuse_hist_bin_count(const cm_reuse_hist *h, size_t bin)
{
    if (bin < h->exact_bins) return h->exact[bin];
    bin -= (size_t)h->exact_bins;
    return bin < h->nlog2 ? h->log2[bin] : 0;
}

double cm_reuse_hist_miss_ratio(const cm_reuse_hist *h, double lines)
{
    if (!(h->total > 0)) return 0;
    double tail = h->cold;
    /* Largest bins first: they hold the smallest counts, so the sum loses
     * less to rounding. */
    for (size_t k = h->nlog2; k-- > 0;) {
        double lo, hi;
        cm_reuse_hist_bin_bounds(h, (size_t)h->exact_bins + k, &lo, &hi);
        if (lines <= lo) tail += h->log2[k];
        else if (lines < hi) tail += h->log2[k] * (hi - lines) / (hi - lo);
    }
    double first = ceil(lines);
    if (first < 0) first = 0;
    for (size_t d = h->exact_bins; d-- > 0 && (double)d >= first;)
        tail += h->exact[d];
    return tail / h->total;
}

void cm_reuse_hist_scale(cm_reuse_hist *h, double f)
{
    for (size_t d = 0; d < h->exact_bins; d++) h->exact[d] *= f;
    for (size_t k = 0; k < h->nlog2; k++) h->log2[k] *= f;
    h->cold *= f;
    h->total *= f;
}

cm_status cm_reuse_hist_merge(cm_reuse_hist *a, const cm_reuse_hist *b,
                              cm_err *err)
{
    if (a->exact_bins != b->exact_bins)
        return cm_err_set(err, CM_EINPUT,
                          "reuse histogram merge: exact_bins differ (%llu "
                          "vs %llu)", (unsigned long long)a->exact_bins,
                          (unsigned long long)b->exact_bins);
    cm_status st = hist_reserve_log2(a, b->nlog2, err);
    if (st != CM_OK) return st;
    for (size_t d = 0; d < a->exact_bins; d++) a->exact[d] += b->exact[d];
    for (size_t k = 0; k < b->nlog2; k++) a->log2[k] += b->log2[k];
    /* The merged rate is the total-weighted mean, so merging exact
     * histograms keeps 1. */
    double total = a->total + b->total;
    if (total > 0)
        a->rate = (a->rate * a->total + b->rate * b->total) / total;
    a->cold += b->cold;
    a->total = total;
    a->sampled += b->sampled;
    return CM_OK;
}

cm_status cm_reuse_hist_copy(cm_reuse_hist *dst, const cm_reuse_hist *src,
                             cm_err *err)
{
    cm_status st = cm_reuse_hist_init(dst, src->exact_bins, err);
    if (st == CM_OK) st = cm_reuse_hist_merge(dst, src, err);
    if (st != CM_OK) {
        cm_reuse_hist_free(dst);
        return st;
    }
    dst->rate = src->rate;
    return CM_OK;
}
