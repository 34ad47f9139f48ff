/* dist.h - an empirical distribution of a non-negative time, in cycles,
 * with an optional mass at infinity ("never happened").
 *
 * The distribution is a histogram: bins [lo, hi) with weights, the density
 * uniform inside each finite bin, plus a weight at +infinity.  Bins are
 * added in increasing order without overlap (gaps have zero density).
 * Weights need not sum to 1: every probability divides by the total, the
 * mass at infinity included.  F(x) = P(X <= x) is therefore continuous and
 * piecewise linear on [0, inf), and every quantity below is computed
 * exactly, piece by piece (these are the integrals GSL would evaluate;
 * cm_dist_expect integrates an arbitrary g with GSL where no piece form
 * exists).
 *
 * Usage: cm_dist d; cm_dist_init(&d); cm_dist_add_bin(&d, 0, 10, 3, &err);
 * ... ; cm_dist_free(&d).  A dist is plain data: no global state, safe to
 * share read-only between threads. */
#ifndef CM_DIST_H
#define CM_DIST_H

#include <stddef.h>

#include "data/err.h"

typedef struct cm_dist {
    size_t n, cap;  /* finite bins */
    double *lo, *hi, *w;
    /* prefix sums over the finite bins, n + 1 of each (NULL while there
     * is none): cw[i] = w[0] + ... + w[i-1], added in that order, and
     * cwm[i] the same of w[k] (lo[k] + hi[k]) / 2.  Kept by add_bin and
     * add_sample, so cm_dist_cdf and cm_dist_mean_excess_below take
     * O(log n), not a walk over the bins. */
    double *cw, *cwm;
    double w_inf;   /* weight at +infinity */
    double w_total; /* sum of w[] and w_inf */
} cm_dist;

void cm_dist_init(cm_dist *d);
void cm_dist_free(cm_dist *d);
/* Deep copy into an uninitialised dst. */
cm_status cm_dist_copy(cm_dist *dst, const cm_dist *src, cm_err *err);

/* Appends bin [lo, hi) with weight w >= 0.  hi = INFINITY adds w to the
 * mass at infinity (lo is then only checked not to be NaN).  Otherwise
 * 0 <= lo < hi < inf and lo >= the previous finite bin's hi. */
cm_status cm_dist_add_bin(cm_dist *d, double lo, double hi, double w,
                          cm_err *err);

/* Adds weight w to the bin holding x (lo <= x < hi), or to the mass at
 * infinity for x = INFINITY.  For building a histogram of samples over
 * bins first added with weight 0.  An x in no bin is CM_EINPUT. */
cm_status cm_dist_add_sample(cm_dist *d, double x, double w, cm_err *err);

/* Total weight; 0 means the distribution is empty and every probability
 * below is NaN. */
double cm_dist_total(const cm_dist *d);

/* P(X <= x); 1 at x = INFINITY, 0 for x < 0.  O(log n), the same to
 * the bit as summing the bins below x in order. */
double cm_dist_cdf(const cm_dist *d, double x);
/* P(X > x) = 1 - cdf, the mass at infinity included. */
double cm_dist_survival(const cm_dist *d, double x);
/* P(X = inf). */
double cm_dist_mass_inf(const cm_dist *d);
/* Density of the finite part at x (the weight per cycle of its bin over
 * the total); 0 outside every bin. */
double cm_dist_density(const cm_dist *d, double x);
/* E[X | X < inf]; NaN when there is no finite mass. */
double cm_dist_mean_finite(const cm_dist *d);

/* Integral of F over [a, b] (0 <= a <= b < inf). */
double cm_dist_integral_cdf(const cm_dist *d, double a, double b);
/* E[max(0, L - X)] = integral of F over [0, L]; X = inf contributes 0.
 * O(log n): the bins wholly below L add W L - W mid from the prefix sums
 * (to within a few ulps of W L of summing them one by one). */
double cm_dist_mean_excess_below(const cm_dist *d, double L);
/* The same for a run of L that moves a little at a time (the edges of
 * another distribution's bins): *at keeps the place of the last search
 * and the bins are walked from there, not searched afresh.  Start *at at
 * 0; any value gives the same result, only the time differs. */
double cm_dist_mean_excess_below_near(const cm_dist *d, double L,
                                      size_t *at);
/* E[max(0, L - X)^2] = 2 integral over [0, L] of (L - x) F(x) dx. */
double cm_dist_mean_excess2_below(const cm_dist *d, double L);

/* Integral over [a, b] of F_X(y) f_Y(y) dy, f_Y the density of Y's finite
 * part: P(a < Y <= b, X <= Y) for independent X and Y.  b may be
 * INFINITY (all of Y's finite support). */
double cm_dist_integral_cdf_density(const cm_dist *x, const cm_dist *y,
                                    double a, double b);

/* E[g(X); X < inf] = integral of g against the finite part's density, by
 * GSL adaptive quadrature (QAG) inside each bin.  For a g with no piece
 * form; tolerances are relative 1e-10. */
typedef double (*cm_dist_fn)(double x, void *ctx);
cm_status cm_dist_expect(const cm_dist *d, cm_dist_fn g, void *ctx,
                         double *out, cm_err *err);

#endif
