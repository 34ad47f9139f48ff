/* lsq.c - weighted nonlinear least squares within bounds on
 * gsl_multifit_nlinear; the maths is in lsq.h. */
#include "solvers/lsq.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LSQ_MAXITER = 200 };

/* A failed evaluation is a very bad point rather than a solver error, so the
 * trust region shrinks away from it instead of aborting the fit. */
#define LSQ_BAD 1e6

/* A Jacobian column this much weaker than the strongest is flat. */
#define LSQ_FLAT 1e-6

/* The step of the final Jacobian, relative to max(|x|, scale): the models
 * are solved to ~1e-12, and this keeps that noise out of the differences. */
#define LSQ_STEP 1e-6

typedef struct lsq_ctx {
    cm_lsq_resid_fn f;
    void *arg;
    size_t n, p;
    const double *scale;
    double lo[CM_LSQ_MAXP], hi[CM_LSQ_MAXP];
    double *buf; /* n residuals: GSL may hand f a strided vector (a column
                    of the Jacobian for finite differences) */
} lsq_ctx;

static double logistic(double u)
{
    return u >= 0 ? 1 / (1 + exp(-u)) : exp(u) / (1 + exp(u));
}

/* The transform of lsq.h, and its inverse. */
static double lsq_x(const lsq_ctx *c, size_t k, double u)
{
    double lo = c->lo[k], hi = c->hi[k], s = c->scale[k];
    if (isfinite(lo) && isfinite(hi)) {
        double x = lo + (hi - lo) * logistic(u);
        return x < lo ? lo : x > hi ? hi : x;
    }
    if (isfinite(lo)) return lo + s * exp(u);
    if (isfinite(hi)) return hi - s * exp(u);
    return s * u;
}

static double lsq_u(const lsq_ctx *c, size_t k, double x)
{
    double lo = c->lo[k], hi = c->hi[k], s = c->scale[k];
    if (isfinite(lo) && isfinite(hi)) {
        double q = (x - lo) / (hi - lo);
        return log(q / (1 - q));
    }
    if (isfinite(lo)) return log((x - lo) / s);
    if (isfinite(hi)) return log((hi - x) / s);
    return x / s;
}

/* Residuals at x into r (n of them, stride 1); 0, or 1 when the model
 * fails or gives a non-finite residual. */
static int lsq_eval(const lsq_ctx *c, const double *x, double *r)
{
    if (c->f(x, r, c->arg)) return 1;
    for (size_t i = 0; i < c->n; i++)
        if (!isfinite(r[i])) return 1;
    return 0;
}

static int lsq_f(const gsl_vector *u, void *arg, gsl_vector *r)
{
    const lsq_ctx *c = arg;
    double x[CM_LSQ_MAXP];
    for (size_t k = 0; k < c->p; k++)
        x[k] = lsq_x(c, k, gsl_vector_get(u, k));
    int bad = lsq_eval(c, x, c->buf);
    for (size_t i = 0; i < c->n; i++)
        gsl_vector_set(r, i, bad ? LSQ_BAD : c->buf[i]);
    return GSL_SUCCESS;
}

unsigned cm_fit_flags(double x, double se, double lo, double hi, double tol)
{
    unsigned f = 0;
    if ((isfinite(lo) && x - lo <= tol) || (isfinite(hi) && hi - x <= tol))
        f |= CM_FIT_AT_BOUND;
    if (!(se <= fabs(x))) f |= CM_FIT_WIDE;
    if (isfinite(se) && x - 1.96 * se <= lo && x + 1.96 * se >= hi)
        f |= CM_FIT_SPANS;
    return f;
}

void cm_fit_flags_text(unsigned flags, double x, double lo, double hi,
                       char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
#define LSQ_SAY(...)                                                        \
    do {                                                                    \
        if (k < len) {                                                      \
            int m = snprintf(buf + k, len - k, "%s", k ? "; " : "");        \
            k += m > 0 ? (size_t)m : 0;                                     \
        }                                                                   \
        if (k < len) {                                                      \
            int m = snprintf(buf + k, len - k, __VA_ARGS__);                \
            k += m > 0 ? (size_t)m : 0;                                     \
        }                                                                   \
    } while (0)
    if (flags & CM_FIT_FLAT) LSQ_SAY("no effect on the fitted quantities");
    if (flags & CM_FIT_AT_BOUND)
        LSQ_SAY("at its bound %g", fabs(x - lo) < fabs(hi - x) ? lo : hi);
    if ((flags & CM_FIT_WIDE) && !(flags & CM_FIT_FLAT))
        LSQ_SAY("standard error above its value");
    if (flags & CM_FIT_SPANS)
        LSQ_SAY("95%% interval spans its range [%g, %g]", lo, hi);
#undef LSQ_SAY
}

/* The Jacobian in u = x / scale at x, by forward differences in x towards
 * the inside of the range; 0, or 1 when a step cannot be evaluated. */
static int lsq_jacobian(const lsq_ctx *c, const double *x, const double *r0,
                        gsl_matrix *J)
{
    for (size_t k = 0; k < c->p; k++) {
        double xs[CM_LSQ_MAXP];
        memcpy(xs, x, c->p * sizeof *x);
        double h = LSQ_STEP * fmax(fabs(x[k]), c->scale[k]);
        if (x[k] + h > c->hi[k]) h = -h;
        xs[k] = x[k] + h;
        if (lsq_eval(c, xs, c->buf)) return 1;
        for (size_t i = 0; i < c->n; i++)
            gsl_matrix_set(J, i, k,
                           (c->buf[i] - r0[i]) / h * c->scale[k]);
    }
    return 0;
}

/* How near a bound counts as on it (lsq.h). */
static double lsq_tol(const lsq_ctx *c, size_t k)
{
    double tol = fmax(1e-3 * c->scale[k], 1e-6 * (c->hi[k] - c->lo[k]));
    return isfinite(tol) ? tol : 1e-3 * c->scale[k];
}

/* GSL's driver loop, with one more stop: a parameter that has sat on a
 * bound for LSQ_AT_BOUND iterations in a row.  The transform only lets
 * it creep closer, each step a Jacobian's worth of model evaluations (a
 * reuse-model fit took 93 s there instead of 7). */
enum { LSQ_AT_BOUND = 2 };

static void lsq_solve(gsl_multifit_nlinear_workspace *w, const lsq_ctx *c)
{
    int pinned = 0, info = 0;
    for (size_t it = 0; it < LSQ_MAXITER; it++) {
        /* ENOPROG or a failed step still leave the best point found */
        if (gsl_multifit_nlinear_iterate(w) != GSL_SUCCESS) return;
        if (gsl_multifit_nlinear_test(1e-10, 1e-10, 1e-12, &info, w) ==
            GSL_SUCCESS)
            return;
        const gsl_vector *u = gsl_multifit_nlinear_position(w);
        int on = 0;
        for (size_t k = 0; k < c->p; k++) {
            double x = lsq_x(c, k, gsl_vector_get(u, k)), tol = lsq_tol(c, k);
            on |= x - c->lo[k] <= tol || c->hi[k] - x <= tol;
        }
        pinned = on ? pinned + 1 : 0;
        if (pinned >= LSQ_AT_BOUND) return;
    }
}

static void lsq_report(gsl_multifit_nlinear_workspace *w, const lsq_ctx *c,
                       cm_lsq_result *res)
{
    const gsl_vector *u = gsl_multifit_nlinear_position(w);
    for (size_t k = 0; k < c->p; k++)
        res->x[k] = lsq_x(c, k, gsl_vector_get(u, k));
    double *r0 = malloc(c->n * sizeof *r0);
    gsl_matrix *J = gsl_matrix_alloc(c->n, c->p);
    gsl_matrix *cov = gsl_matrix_alloc(c->p, c->p);
    int ok = r0 && J && cov && !lsq_eval(c, res->x, r0);
    res->chisq = 0;
    for (size_t i = 0; ok && i < c->n; i++) res->chisq += r0[i] * r0[i];
    if (!ok) res->chisq = INFINITY;
    res->chisq_dof = c->n > c->p ? res->chisq / (double)(c->n - c->p) : NAN;
    ok = ok && !lsq_jacobian(c, res->x, r0, J);
    double norm[CM_LSQ_MAXP] = {0}, top = 0;
    for (size_t k = 0; ok && k < c->p; k++) {
        gsl_vector_const_view col = gsl_matrix_const_column(J, k);
        norm[k] = gsl_blas_dnrm2(&col.vector);
        top = fmax(top, norm[k]);
    }
    ok = ok && gsl_multifit_nlinear_covar(J, 0.0, cov) == GSL_SUCCESS;
    for (size_t k = 0; k < c->p; k++) {
        /* Relative to the strongest column: solver noise in the model
         * (root finders stop at ~1e-12) is not sensitivity. */
        int flat = !(norm[k] > LSQ_FLAT * top);
        double v = ok && !flat ? gsl_matrix_get(cov, k, k) * res->chisq_dof
                               : NAN;
        res->stderr_[k] = v >= 0 ? c->scale[k] * sqrt(v) : NAN;
        res->flags[k] = cm_fit_flags(res->x[k], res->stderr_[k], c->lo[k],
                                     c->hi[k], lsq_tol(c, k)) |
                        (flat ? CM_FIT_FLAT : 0);
        res->identifiable[k] = res->flags[k] == 0;
    }
    gsl_matrix_free(cov);
    gsl_matrix_free(J);
    free(r0);
    res->iterations = (int)gsl_multifit_nlinear_niter(w);
}

/* Checks the ranges and moves the start inside them, into u0. */
static cm_status lsq_start(lsq_ctx *c, const double *x0, const double *lo,
                           const double *hi, double *u0, cm_err *err)
{
    for (size_t k = 0; k < c->p; k++) {
        c->lo[k] = lo ? lo[k] : -INFINITY;
        c->hi[k] = hi ? hi[k] : INFINITY;
        if (!(c->scale[k] > 0) || !isfinite(c->scale[k]) ||
            !isfinite(x0[k]) || isnan(c->lo[k]) || isnan(c->hi[k]) ||
            !(c->lo[k] < c->hi[k]) || x0[k] < c->lo[k] || x0[k] > c->hi[k])
            return cm_err_set(err, CM_EINPUT,
                              "least squares: bad start, scale or range for "
                              "parameter %zu", k);
        double in = 1e-3 * fmin(c->scale[k], c->hi[k] - c->lo[k]);
        double x = fmax(x0[k], c->lo[k] + in);
        x = fmin(x, c->hi[k] - in);
        u0[k] = lsq_u(c, k, x);
    }
    return CM_OK;
}

cm_status cm_lsq_fit(cm_lsq_resid_fn f, void *arg, size_t n, size_t p,
                     const double *x0, const double *scale, const double *lo,
                     const double *hi, cm_lsq_result *res, cm_err *err)
{
    memset(res, 0, sizeof *res);
    res->n = n;
    res->p = p;
    if (p < 1 || p > CM_LSQ_MAXP)
        return cm_err_set(err, CM_EINPUT,
                          "least squares: %zu parameters (1 to %d)", p,
                          CM_LSQ_MAXP);
    if (n < p)
        return cm_err_set(err, CM_EINPUT,
                          "least squares: %zu residuals cannot fix %zu "
                          "parameters", n, p);
    lsq_ctx c = {.f = f, .arg = arg, .n = n, .p = p, .scale = scale};
    double u0[CM_LSQ_MAXP];
    cm_status st = lsq_start(&c, x0, lo, hi, u0, err);
    if (st) return st;
    if (!(c.buf = malloc(n * sizeof(double))))
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    gsl_multifit_nlinear_fdf fdf = {0};
    fdf.f = lsq_f;
    fdf.df = NULL; /* forward differences */
    fdf.n = n;
    fdf.p = p;
    fdf.params = &c;
    gsl_multifit_nlinear_parameters par =
        gsl_multifit_nlinear_default_parameters();
    /* The models are solved to ~1e-12; a larger step than GSL's sqrt(eps)
     * keeps that solver noise out of the differences. */
    par.h_df = 1e-6;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, n, p);
    gsl_vector_const_view x = gsl_vector_const_view_array(u0, p);
    if (!w) {
        st = cm_err_set(err, CM_EINTERNAL, "least squares: out of memory");
    } else if (gsl_multifit_nlinear_init(&x.vector, &fdf, w) != GSL_SUCCESS) {
        st = cm_err_set(err, CM_EINTERNAL,
                        "least squares: cannot start the solver");
    } else {
        lsq_solve(w, &c);
        lsq_report(w, &c, res);
        if (!isfinite(res->chisq))
            st = cm_err_set(err, CM_EINPUT,
                            "least squares: the model cannot be evaluated "
                            "near the start");
    }
    gsl_multifit_nlinear_free(w);
    gsl_set_error_handler(old);
    free(c.buf);
    return st;
}
