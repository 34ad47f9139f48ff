/* lsq.h - calibration by weighted nonlinear least squares within bounds.
 *
 * The model's free inputs x (p of them, at most CM_LSQ_MAXP) minimise
 * chi2(x) = sum_i r_i(x)^2, where the caller's residuals are already
 * weighted, r_i = (model_i(x) - measured_i) / sigma_i.  GSL's trust-region
 * solver (gsl_multifit_nlinear_trust, Levenberg-Marquardt steps) does the
 * work with a forward-difference Jacobian, because the models are solved
 * numerically (fixed points, queue recursions) and have no closed-form
 * derivative.
 *
 * Bounds by transformation: the solver moves u, never x, and x stays in
 * [lo, hi] whatever u is: x = lo + (hi - lo) / (1 + e^-u) with both
 * bounds, lo + scale e^u or hi - scale e^u with one, x = scale u with none
 * (scale: the parameter's typical magnitude, so that a parameter of
 * hundreds of cycles and one near 1 take comparable steps).  A start on a
 * bound is moved inside by 1e-3 of min(scale, hi - lo), where the
 * transform still has a slope.
 *
 * Uncertainty: at the optimum the Jacobian is taken again in x (forward
 * differences of 1e-6 of max(|x|, scale), towards the inside of the
 * range), and the covariance C = (J^T J)^-1 is scaled by chi2 / (n - p), so
 * that sigmas that were only relative weights still give honest standard
 * errors se_k = sqrt(C_kk chi2 / (n - p)).
 *
 * What the data cannot say is flagged (cm_fit_flags), parameter by
 * parameter, and such a parameter is not `identifiable`:
 *  - FLAT: the residuals do not depend on it (its Jacobian column, in
 *    units of its scale, below 1e-6 of the strongest: zero but for solver
 *    noise); its standard error is NaN, and so is every one when n <= p;
 *  - AT_BOUND: the optimum sits on a bound (within max(1e-3 scale,
 *    1e-6 (hi - lo)) of it): the data push it there or beyond;
 *  - WIDE: its standard error exceeds |x| (or is not finite): the data
 *    cannot tell it from 0;
 *  - SPANS: its 95% interval x +- 1.96 se covers its whole range. */
#ifndef CM_LSQ_H
#define CM_LSQ_H

#include <stddef.h>

#include "data/err.h"

#define CM_LSQ_MAXP 4

/* Fills r[0..n) for x[0..p); returns 0, or nonzero when the model cannot be
 * evaluated at x (the solver then treats x as infinitely bad). */
typedef int (*cm_lsq_resid_fn)(const double *x, double *r, void *arg);

typedef enum cm_fit_flag {
    CM_FIT_FLAT = 1,
    CM_FIT_AT_BOUND = 2,
    CM_FIT_WIDE = 4,
    CM_FIT_SPANS = 8
} cm_fit_flag;

typedef struct cm_lsq_result {
    double x[CM_LSQ_MAXP];
    double stderr_[CM_LSQ_MAXP];
    unsigned flags[CM_LSQ_MAXP]; /* cm_fit_flag bits; 0: identified */
    int identifiable[CM_LSQ_MAXP]; /* flags == 0 */
    double chisq;     /* sum of squared weighted residuals at x */
    double chisq_dof; /* chisq / (n - p); NaN when n <= p */
    size_t n, p;
    int iterations;
} cm_lsq_result;

/* x0: the start; scale: typical magnitude of each parameter (> 0); lo, hi:
 * each parameter's range, lo < hi, infinite for none (NULL: unbounded).
 * Errors: n or p out of range, a start or range that is not one, a start
 * where the model fails, no finite fit. */
cm_status cm_lsq_fit(cm_lsq_resid_fn f, void *arg, size_t n, size_t p,
                     const double *x0, const double *scale, const double *lo,
                     const double *hi, cm_lsq_result *res, cm_err *err);

/* The AT_BOUND, WIDE and SPANS flags of a fitted value x +- se in
 * [lo, hi], a bound counted as reached within tol. */
unsigned cm_fit_flags(double x, double se, double lo, double hi, double tol);

/* The flags in words, for notes and messages: "at its bound 0; standard
 * error above its value" ("" for none). */
void cm_fit_flags_text(unsigned flags, double x, double lo, double hi,
                       char *buf, size_t len);

#endif
