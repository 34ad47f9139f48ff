/* binom.c - the binomial upper tail of binom.h.
 *
 * Why not always GSL.  gsl_cdf_binomial_Q goes through the incomplete beta
 * function (a continued fraction and gsl_sf_lnbeta, ~0.25 us); the set-
 * associative cache models (models/setassoc.c, the directory model's
 * set-local capacity) ask for P(Bin(n, p) >= A) with A the ways, a few
 * dozen at most, thousands of times per prediction, and that dominated
 * their cost.  Few terms of the probability mass function, each from the
 * last by t(i+1) = t(i) (n - i) / (i + 1) x p / (1 - p), sum to the same
 * tail for a fraction of the cost.
 *
 * Which terms.  With X ~ Bin(n, p), P(X > k) = 1 - P(X <= k) (k + 1 terms
 * of X from 0) = P(Y < n - k) (n - k terms of Y = n - X ~ Bin(n, 1 - p)
 * from 0); the shorter side is summed if it has at most DIRECT_TERMS terms,
 * else GSL answers.  On X's side the complement would cancel when the tail
 * is small, so once P(X <= k) > 1/2 the tail is summed itself: the terms
 * past k, which decrease (k is then at or past the mode) until they are
 * below 1e-17 of the sum (at most TAIL_TERMS of them, else GSL).
 *
 * Scale.  The first term (1 - p)^n can underflow where the tail does not
 * (Y's p^n for p = 1e-3, n = 150): the terms are summed relative to the
 * first, t(i) / t(0), and the sum s taken back as t(0) s, or as
 * exp(n log(1 - p) + log s) where t(0) is not a normal number; if s
 * overflows, GSL answers.
 *
 * Accuracy.  Each term carries ~i rounding errors and the exponential's
 * argument an absolute error of ~|n log(1 - p)| x 2^-53, so the result is
 * within ~1e-13 relative of the exact tail where that argument is above
 * -700; tests/check_binom.c holds it to GSL's within 1e-12 over a grid of
 * (k, p, n). */
#include "solvers/binom.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

#define DIRECT_TERMS 64
#define TAIL_TERMS 2048

/* Sum of t(i) / t(0) for i = 0 .. m - 1 of Bin(n, q), r = q / (1 - q);
 * *last: the last term's ratio, *next: the index after it. */
static double ratio_sum(unsigned m, unsigned n, double r, double *last)
{
    double t = 1, s = 1;
    for (unsigned i = 0; i + 1 < m; i++) {
        t *= (double)(n - i) / (double)(i + 1) * r;
        s += t;
    }
    *last = t;
    return s;
}

/* t(0) s with log t(0) = lt: the product where t(0) is a normal number,
 * else through the logarithm. */
static double scaled(double lt, double s)
{
    return lt > -700 ? exp(lt) * s : exp(lt + log(s));
}

/* P(X > k) from X's side: 1 - P(X <= k), or the terms past k. */
static double upper_from_x(unsigned k, double p, unsigned n)
{
    double lt0 = (double)n * log1p(-p), r = p / (1 - p), t;
    double s = ratio_sum(k + 1, n, r, &t);
    if (!isfinite(s)) return gsl_cdf_binomial_Q(k, p, n);
    double below = scaled(lt0, s);
    if (below <= 0.5) return 1 - below;
    double u = 0;
    for (unsigned i = k; i < n; i++) {
        if (i - k >= TAIL_TERMS) return gsl_cdf_binomial_Q(k, p, n);
        t *= (double)(n - i) / (double)(i + 1) * r;
        u += t;
        if (t <= 1e-17 * u) break;
    }
    return u > 0 ? scaled(lt0, u) : 0;
}

double cm_binom_q(unsigned k, double p, unsigned n)
{
    if (!(p >= 0 && p <= 1)) return NAN;
    if (k >= n || p == 0) return 0;
    if (p == 1) return 1;
    unsigned x_terms = k + 1, y_terms = n - k;
    if (x_terms <= y_terms && x_terms <= DIRECT_TERMS)
        return upper_from_x(k, p, n);
    if (y_terms <= DIRECT_TERMS) {
        double t, s = ratio_sum(y_terms, n, (1 - p) / p, &t);
        if (!isfinite(s)) return gsl_cdf_binomial_Q(k, p, n);
        double q = scaled((double)n * log(p), s);
        return q < 1 ? q : 1;
    }
    return gsl_cdf_binomial_Q(k, p, n);
}
