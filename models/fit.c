/* fit.c - a workload's miss-ratio curve as three numbers.
 *
 * Family (a shifted power law, the survival function of a Lomax or
 * Pareto II distribution):
 *     m(C) = m_inf + (1 - m_inf) (1 + C / c0)^(-alpha),
 *  - m_inf in [0, 1]: the floor no capacity removes (cold misses);
 *  - c0 > 0 lines: the knee, where the curve turns from flat into its tail;
 *  - alpha > 0: the tail exponent.  For C >> c0 the excess miss ratio falls
 *    as C^-alpha, the power law real programs follow over wide capacity
 *    ranges (Hartstein et al., "Cache miss behavior: is it sqrt(2)?",
 *    CF 2006: alpha near 0.5 on average, 0.3-0.7 typically).  Unlike a pure
 *    power law the family is finite at C = 0, where m(0) = 1 as an empty
 *    cache misses everything.
 * Why Lomax: it is the mixture of exponential reuse-distance tails with
 * gamma-distributed rates, i.e. a program made of many working sets of
 * different sizes; the MRC is then exactly this survival function.
 * Limits: a 3-parameter smooth curve cannot show a cliff (a loop whose
 * footprint just fits) or several plateaus; rmse and r2 say how far to
 * trust it.
 *
 * Fit: unweighted nonlinear least squares on the exact MRC at log-spaced
 * capacities (cm_mrc_default_capacities), so every octave weighs alike.
 * GSL's trust-region Levenberg-Marquardt (gsl_multifit_nlinear) works on
 * u = (logit m_inf, log c0, logit(alpha / 8)), which keeps the parameters
 * in range without bounds, with the analytic Jacobian; with
 * g = (1 + C/c0)^-a and a' = a (1 - a/8)
 *     dm/du0 = (1 - g) m_inf (1 - m_inf)
 *     dm/du1 = (1 - m_inf) a g C / (c0 + C)
 *     dm/du2 = -(1 - m_inf) a' g log(1 + C/c0).
 * alpha is capped at 8 (see FIT_ALPHA_MAX).
 * Three starts (alpha = 0.5, 1, 2, each with c0 putting the half-way point
 * of the curve where the data has it) guard against a poor local minimum;
 * the lowest chi-square wins.  Standard errors: the covariance
 * (J^T J)^-1 scaled by chisq / (n - 3), carried back to the parameters by
 * the delta method (se(m_inf) = m_inf (1 - m_inf) se(u0), se(c0) = c0
 * se(u1), se(alpha) = a' se(u2)).
 * Degenerate fits are flagged, not hidden: a parameter within 1e-6 of a
 * bound of the family (m_inf 0 or 1, alpha 0 or the cap, relative to the
 * range; c0 below 1e-3 of the smallest capacity fitted, a knee below
 * anything measured) or with a standard error above its value
 * (cm_fit_flags). */
#include "models/mrc.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/lsq.h"

enum { FIT_P = 3, FIT_MAXITER = 500 };

/* alpha is bounded: a curve that falls faster than any power law (a sharp
 * knee) would otherwise send alpha and c0 off to infinity together, along
 * (1 + C/c0)^-alpha -> exp(-C alpha/c0), with meaningless uncertainties.
 * At the bound the family is that exponential knee of width c0/alpha. */
#define FIT_ALPHA_MAX 8.0

static double logistic(double u);

static double alpha_of(double u) { return FIT_ALPHA_MAX * logistic(u); }

/* d alpha / du */
static double alpha_slope(double a) { return a * (1 - a / FIT_ALPHA_MAX); }

typedef struct fit_data {
    const double *c, *y;
    size_t n;
} fit_data;

static double logistic(double u)
{
    return u >= 0 ? 1 / (1 + exp(-u)) : exp(u) / (1 + exp(u));
}

static double family_eval(double m_inf, double c0, double alpha, double c)
{
    return m_inf + (1 - m_inf) * exp(-alpha * log1p(c / c0));
}

static int fit_f(const gsl_vector *u, void *arg, gsl_vector *f)
{
    const fit_data *d = arg;
    double m = logistic(gsl_vector_get(u, 0));
    double c0 = exp(gsl_vector_get(u, 1)), a = alpha_of(gsl_vector_get(u, 2));
    for (size_t i = 0; i < d->n; i++)
        gsl_vector_set(f, i, family_eval(m, c0, a, d->c[i]) - d->y[i]);
    return GSL_SUCCESS;
}

static int fit_df(const gsl_vector *u, void *arg, gsl_matrix *J)
{
    const fit_data *d = arg;
    double m = logistic(gsl_vector_get(u, 0));
    double c0 = exp(gsl_vector_get(u, 1)), a = alpha_of(gsl_vector_get(u, 2));
    for (size_t i = 0; i < d->n; i++) {
        double c = d->c[i], l = log1p(c / c0), g = exp(-a * l);
        gsl_matrix_set(J, i, 0, (1 - g) * m * (1 - m));
        gsl_matrix_set(J, i, 1, (1 - m) * a * g * c / (c0 + c));
        gsl_matrix_set(J, i, 2, -(1 - m) * alpha_slope(a) * g * l);
    }
    return GSL_SUCCESS;
}

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* One start: the solver's position and chi-square in *u, *chisq. */
static void fit_run(gsl_multifit_nlinear_workspace *w,
                    gsl_multifit_nlinear_fdf *fdf, const double u0[FIT_P],
                    double u[FIT_P], double *chisq, int *iters)
{
    gsl_vector_const_view x0 = gsl_vector_const_view_array(u0, FIT_P);
    int info = 0;
    *chisq = INFINITY;
    if (gsl_multifit_nlinear_init(&x0.vector, fdf, w) != GSL_SUCCESS)
        return;
    /* EMAXITER or ENOPROG still leave the best point found; it competes
     * on chi-square like any other. */
    gsl_multifit_nlinear_driver(FIT_MAXITER, 1e-14, 1e-14, 0, NULL, NULL,
                                &info, w);
    const gsl_vector *x = gsl_multifit_nlinear_position(w);
    double c2;
    gsl_blas_ddot(gsl_multifit_nlinear_residual(w),
                  gsl_multifit_nlinear_residual(w), &c2);
    for (int k = 0; k < FIT_P; k++) u[k] = gsl_vector_get(x, (size_t)k);
    if (isfinite(c2) && isfinite(u[0]) && isfinite(u[1]) && isfinite(u[2]))
        *chisq = c2;
    *iters = (int)gsl_multifit_nlinear_niter(w);
}

/* Standard errors and quality figures of the fit at u. */
static void fit_report(gsl_multifit_nlinear_workspace *w, const double u[],
                       double chisq, const double *y, size_t n,
                       double smallest, cm_mrc_fit *fit)
{
    double m = logistic(u[0]), c0 = exp(u[1]), a = alpha_of(u[2]);
    fit->param[0] = m;
    fit->param[1] = c0;
    fit->param[2] = a;
    double dof = (double)(n - FIT_P), scale = chisq / dof;
    double dpdu[FIT_P] = {m * (1 - m), c0, alpha_slope(a)};
    gsl_matrix *cov = gsl_matrix_alloc(FIT_P, FIT_P);
    int ok = cov && gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w),
                                               0.0, cov) == GSL_SUCCESS;
    const double lo[FIT_P] = {0, 0, 0}, hi[FIT_P] = {1, INFINITY,
                                                     FIT_ALPHA_MAX};
    const double tol[FIT_P] = {1e-6, 1e-3 * smallest, 1e-6 * FIT_ALPHA_MAX};
    for (size_t k = 0; k < FIT_P; k++) {
        double v = ok ? gsl_matrix_get(cov, k, k) * scale : NAN;
        fit->stderr_[k] = v >= 0 ? dpdu[k] * sqrt(v) : NAN;
        fit->flags[k] = cm_fit_flags(fit->param[k], fit->stderr_[k], lo[k],
                                     hi[k], tol[k]);
    }
    gsl_matrix_free(cov);
    double mean = 0, ss = 0;
    for (size_t i = 0; i < n; i++) mean += y[i] / (double)n;
    for (size_t i = 0; i < n; i++) ss += (y[i] - mean) * (y[i] - mean);
    fit->rmse = sqrt(chisq / (double)n);
    fit->r2 = 1 - chisq / ss;
    fit->chisq_dof = scale;
    fit->points = n;
}

/* Fits y(c); y must not be flat. */
static cm_status fit_curve(const double *c, const double *y, size_t n,
                           cm_mrc_fit *fit, cm_err *err)
{
    double ymin = y[0];
    for (size_t i = 1; i < n; i++) ymin = fmin(ymin, y[i]);
    double m0 = clamp(0.99 * ymin, 1e-9, 1 - 1e-9);
    /* The first capacity where the curve has fallen half way to m0. */
    double half = c[n - 1];
    for (size_t i = 0; i < n; i++)
        if ((y[i] - m0) / (1 - m0) <= 0.5) {
            half = c[i];
            break;
        }
    fit_data data = {c, y, n};
    gsl_multifit_nlinear_fdf fdf = {0};
    fdf.f = fit_f;
    fdf.df = fit_df;
    fdf.n = n;
    fdf.p = FIT_P;
    fdf.params = &data;
    gsl_multifit_nlinear_parameters par =
        gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, n, FIT_P);
    if (!w) return cm_err_set(err, CM_EINTERNAL, "MRC fit: out of memory");
    const double alphas[] = {0.5, 1, 2};
    double best[FIT_P] = {0}, best_chisq = INFINITY;
    int best_iters = 0;
    for (size_t s = 0; s < sizeof alphas / sizeof *alphas; s++) {
        double a = alphas[s];
        double u0[FIT_P] = {log(m0 / (1 - m0)),
                            log(half / (exp2(1 / a) - 1)),
                            log(a / (FIT_ALPHA_MAX - a))};
        double u[FIT_P], chisq;
        int iters = 0;
        fit_run(w, &fdf, u0, u, &chisq, &iters);
        if (chisq < best_chisq) {
            best_chisq = chisq;
            best_iters = iters;
            for (int k = 0; k < FIT_P; k++) best[k] = u[k];
        }
    }
    cm_status st = CM_OK;
    if (!isfinite(best_chisq)) {
        st = cm_err_set(err, CM_EINTERNAL,
                        "MRC fit: the solver found no finite fit");
    } else {
        /* Back to the winner, so the workspace's Jacobian is its own. */
        gsl_vector_const_view x = gsl_vector_const_view_array(best, FIT_P);
        gsl_multifit_nlinear_init(&x.vector, &fdf, w);
        fit->iterations = best_iters;
        double smallest = c[0];
        for (size_t i = 1; i < n; i++) smallest = fmin(smallest, c[i]);
        fit_report(w, best, best_chisq, y, n, smallest, fit);
    }
    gsl_multifit_nlinear_free(w);
    return st;
}

cm_status cm_mrc_fit_profile(const cm_reuse_hist *h,
                             const double *capacity_lines, size_t n,
                             cm_mrc_fit *fit, cm_err *err)
{
    static const char *const names[FIT_P] = {"m_inf", "c0", "alpha"};
    memset(fit, 0, sizeof *fit);
    for (int k = 0; k < FIT_P; k++) fit->names[k] = names[k];
    if (n < 4)
        return cm_err_set(err, CM_EINPUT,
                          "MRC fit needs at least 4 capacities, not %zu", n);
    if (!(h->total > 0))
        return cm_err_set(err, CM_EINPUT, "MRC fit: the histogram is empty");
    for (size_t i = 0; i < n; i++)
        if (!(capacity_lines[i] > 0) || isinf(capacity_lines[i]))
            return cm_err_set(err, CM_EINPUT,
                              "MRC fit: capacity %g is not a positive "
                              "number of lines", capacity_lines[i]);
    double *y = malloc(n * sizeof *y);
    if (!y) return cm_err_set(err, CM_EINTERNAL, "MRC fit: out of memory");
    cm_mrc_fa(h, capacity_lines, n, y);
    double lo = y[0], hi = y[0];
    for (size_t i = 1; i < n; i++) {
        lo = fmin(lo, y[i]);
        hi = fmax(hi, y[i]);
    }
    cm_status st;
    if (hi - lo < 1e-12) {
        st = cm_err_set(err, CM_EINPUT,
                        "MRC fit: the miss ratio is %g at every capacity, so "
                        "the knee and slope cannot be fitted", lo);
    } else {
        gsl_error_handler_t *old = gsl_set_error_handler_off();
        st = fit_curve(capacity_lines, y, n, fit, err);
        gsl_set_error_handler(old);
    }
    free(y);
    return st;
}

void cm_mrc_fit_note(const cm_mrc_fit *fit, char *buf, size_t len)
{
    const double lo[FIT_P] = {0, 0, 0}, hi[FIT_P] = {1, INFINITY,
                                                     FIT_ALPHA_MAX};
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < FIT_P && k < len; i++) {
        if (!fit->flags[i]) continue;
        char what[160];
        cm_fit_flags_text(fit->flags[i], fit->param[i], lo[i], hi[i], what,
                          sizeof what);
        int m = snprintf(buf + k, len - k, "%s%s (%s)", k ? ", " : "",
                         fit->names[i], what);
        k += m > 0 ? (size_t)m : 0;
    }
}

double cm_mrc_fit_eval(const cm_mrc_fit *fit, double lines)
{
    return family_eval(fit->param[0], fit->param[1], fit->param[2], lines);
}
