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
 * One p, many n.  cm_binom_law keeps the recurrence's constants, and
 * gives P(X = k) beside P(X > k): the set model's tail sums need P(X >= A)
 * and P(X > A) of the same law, one sum of terms for both.
 *
 * Accuracy.  Each term carries ~i rounding errors and the exponential's
 * argument an absolute error of ~|n log(1 - p)| x 2^-53, so the result is
 * within ~1e-13 relative of the exact tail where that argument is above
 * -700; tests/check_binom.c holds it to GSL's within 1e-10 over a grid of
 * (k, p, n) (measured: 1.3e-12, GSL's own error there) and to mpmath's
 * 50-digit values within 1e-14. */
#include "solvers/binom.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>

#define DIRECT_TERMS 64
#define TAIL_TERMS 2048

/* Sum of t(i) / t(0) for i = 0 .. m - 1 of Bin(n, q), r = q / (1 - q);
 * *last: the last term's ratio t(m - 1) / t(0). */
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

/* t(0) s with log t(0) = lt: the product where t(0) = e0 = exp(lt) is a
 * normal number, else through the logarithm. */
static double scaled(double lt, double e0, double s)
{
    return lt > -700 ? e0 * s : exp(lt + log(s));
}

static double first_term(double lt)
{
    return lt > -700 ? exp(lt) : 0;
}

/* GSL's answer, for sums too long or out of range. */
static double from_gsl(unsigned k, double p, unsigned n, double *pmf_k)
{
    if (pmf_k) *pmf_k = gsl_ran_binomial_pdf(k, p, n);
    return gsl_cdf_binomial_Q(k, p, n);
}

/* P(X > k) from X's side: 1 - P(X <= k), or the terms past k; *pmf_k
 * (may be NULL): P(X = k). */
static double upper_from_x(const cm_binom_law *b, unsigned k, unsigned n,
                           double *pmf_k)
{
    double lt0 = (double)n * b->log1m, e0 = first_term(lt0), r = b->ratio, t;
    double s = ratio_sum(k + 1, n, r, &t);
    if (!isfinite(s)) return from_gsl(k, b->p, n, pmf_k);
    if (pmf_k) *pmf_k = scaled(lt0, e0, t);
    double below = scaled(lt0, e0, s);
    if (below <= 0.5) return 1 - below;
    double u = 0;
    for (unsigned i = k; i < n; i++) {
        if (i - k >= TAIL_TERMS) return from_gsl(k, b->p, n, pmf_k);
        t *= (double)(n - i) / (double)(i + 1) * r;
        u += t;
        if (t <= 1e-17 * u) break;
    }
    return u > 0 ? scaled(lt0, e0, u) : 0;
}

/* P(X > k) = P(Y < n - k) from Y = n - X's side (n - k terms). */
static double upper_from_y(const cm_binom_law *b, unsigned k, unsigned n,
                           double *pmf_k)
{
    double p = b->p, r = (1 - p) / p, lt0 = (double)n * log(p), t;
    double e0 = first_term(lt0);
    unsigned m = n - k;
    double s = ratio_sum(m, n, r, &t);
    if (!isfinite(s)) return from_gsl(k, p, n, pmf_k);
    /* P(X = k) = P(Y = n - k): the next term */
    if (pmf_k) *pmf_k = scaled(lt0, e0, t * (double)(k + 1) / (double)m * r);
    double q = scaled(lt0, e0, s);
    return q < 1 ? q : 1;
}

void cm_binom_law_init(cm_binom_law *b, double p)
{
    b->p = p;
    b->log1m = log1p(-p);
    b->ratio = p / (1 - p);
}

double cm_binom_law_q(const cm_binom_law *b, unsigned k, unsigned n,
                      double *pmf_k)
{
    double p = b->p;
    if (!(p >= 0 && p <= 1)) {
        if (pmf_k) *pmf_k = NAN;
        return NAN;
    }
    if (k >= n || p == 0 || p == 1) {
        if (pmf_k)
            *pmf_k = k > n ? 0
                     : p == 0 ? (k == 0)
                     : p == 1 ? (k == n)
                              : exp((double)n * log(p));
        return k < n && p == 1;
    }
    unsigned x_terms = k + 1, y_terms = n - k;
    if (x_terms <= y_terms && x_terms <= DIRECT_TERMS)
        return upper_from_x(b, k, n, pmf_k);
    if (y_terms <= DIRECT_TERMS) return upper_from_y(b, k, n, pmf_k);
    return from_gsl(k, p, n, pmf_k);
}

double cm_binom_q(unsigned k, double p, unsigned n)
{
    cm_binom_law b;
    cm_binom_law_init(&b, p);
    return cm_binom_law_q(&b, k, n, NULL);
}
