/* binom.h - the binomial upper tail P(Bin(n, p) > k) of
 * gsl_cdf_binomial_Q, summed term by term when that takes few terms (the
 * set-associative cache models ask for tails of at most a few dozen ways
 * thousands of times per prediction) and from GSL otherwise; binom.c says
 * when each is used and how accurate the sum is. */
#ifndef CM_BINOM_H
#define CM_BINOM_H

/* P(X > k) for X ~ Binomial(n, p), as gsl_cdf_binomial_Q(k, p, n):
 * 0 if k >= n; NaN if p is not in [0, 1]. */
double cm_binom_q(unsigned k, double p, unsigned n);

/* Bin(n, p) at one p for many n (the cache models' set-associative
 * tails at one geometry): the constants of the terms' recurrence. */
typedef struct cm_binom_law {
    double p, log1m, ratio; /* p, log(1 - p), p / (1 - p) */
} cm_binom_law;

void cm_binom_law_init(cm_binom_law *b, double p);
/* cm_binom_q(k, p, n), and P(X = k) in *pmf_k (may be NULL): with P(X >
 * k), P(X >= k) = P(X > k) + P(X = k) without cancellation. */
double cm_binom_law_q(const cm_binom_law *b, unsigned k, unsigned n,
                      double *pmf_k);

#endif
