/* binom.h - the binomial upper tail P(Bin(n, p) > k) of
 * gsl_cdf_binomial_Q, summed term by term when that takes few terms (the
 * set-associative cache models ask for tails of at most a few dozen ways
 * thousands of times per prediction) and from GSL otherwise; binom.c says
 * when each is used and how accurate the sum is. */
#ifndef CM_BINOM_H
#define CM_BINOM_H

/* P(X > k) for X ~ Binomial(n, p), as gsl_cdf_binomial_Q(k, p, n):
 * 0 if k >= n; p outside [0, 1] is clamped to it. */
double cm_binom_q(unsigned k, double p, unsigned n);

#endif
