/* lsq.h - calibration by weighted nonlinear least squares.
 *
 * The model's free inputs x (p of them, at most CM_LSQ_MAXP) minimise
 * chi2(x) = sum_i r_i(x)^2, where the caller's residuals are already
 * weighted, r_i = (model_i(x) - measured_i) / sigma_i.  GSL's trust-region
 * solver (gsl_multifit_nlinear_trust, Levenberg-Marquardt steps) does the
 * work with a forward-difference Jacobian, because the models are solved
 * numerically (fixed points, queue recursions) and have no closed-form
 * derivative.  The solver works on x / scale, so a parameter of hundreds of
 * cycles and one near 1 take comparable steps.
 *
 * Uncertainty: the covariance C = (J^T J)^-1 at the optimum
 * (gsl_multifit_nlinear_covar), scaled by chi2 / (n - p) so that sigmas that
 * were only relative weights still give honest standard errors
 * se_k = scale_k sqrt(C_kk chi2 / (n - p)).  A parameter the residuals do not
 * depend on (a Jacobian column below 1e-6 of the strongest, i.e. zero but
 * for solver noise: unidentifiable from these data) gets a
 * NaN standard error and `identifiable` 0, not a misleading 0; so does every
 * parameter when n <= p. */
#ifndef CM_LSQ_H
#define CM_LSQ_H

#include <stddef.h>

#include "data/err.h"

#define CM_LSQ_MAXP 4

/* Fills r[0..n) for x[0..p); returns 0, or nonzero when the model cannot be
 * evaluated at x (the solver then treats x as infinitely bad). */
typedef int (*cm_lsq_resid_fn)(const double *x, double *r, void *arg);

typedef struct cm_lsq_result {
    double x[CM_LSQ_MAXP];
    double stderr_[CM_LSQ_MAXP];
    int identifiable[CM_LSQ_MAXP];
    double chisq;     /* sum of squared weighted residuals at x */
    double chisq_dof; /* chisq / (n - p); NaN when n <= p */
    size_t n, p;
    int iterations;
} cm_lsq_result;

/* x0: the start; scale: typical magnitude of each parameter (> 0).
 * Errors: n or p out of range, a start where the model fails, no finite
 * fit. */
cm_status cm_lsq_fit(cm_lsq_resid_fn f, void *arg, size_t n, size_t p,
                     const double *x0, const double *scale,
                     cm_lsq_result *res, cm_err *err);

#endif
