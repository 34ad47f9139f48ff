/* lsq.c - weighted nonlinear least squares on gsl_multifit_nlinear; the
 * maths is in lsq.h. */
#include "solvers/lsq.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { LSQ_MAXITER = 200 };

/* A failed evaluation is a very bad point rather than a solver error, so the
 * trust region shrinks away from it instead of aborting the fit. */
#define LSQ_BAD 1e6

/* A Jacobian column this much weaker than the strongest is flat. */
#define LSQ_FLAT 1e-6

typedef struct lsq_ctx {
    cm_lsq_resid_fn f;
    void *arg;
    size_t n, p;
    const double *scale;
    double *buf; /* n residuals: GSL may hand f a strided vector (a column
                    of the Jacobian for finite differences) */
} lsq_ctx;

static int lsq_f(const gsl_vector *u, void *arg, gsl_vector *r)
{
    const lsq_ctx *c = arg;
    double x[CM_LSQ_MAXP];
    for (size_t k = 0; k < c->p; k++)
        x[k] = gsl_vector_get(u, k) * c->scale[k];
    int bad = c->f(x, c->buf, c->arg) != 0;
    for (size_t i = 0; i < c->n; i++)
        gsl_vector_set(r, i, bad || !isfinite(c->buf[i]) ? LSQ_BAD
                                                        : c->buf[i]);
    return GSL_SUCCESS;
}

static void lsq_report(gsl_multifit_nlinear_workspace *w, const lsq_ctx *c,
                       cm_lsq_result *res)
{
    const gsl_matrix *J = gsl_multifit_nlinear_jac(w);
    const gsl_vector *u = gsl_multifit_nlinear_position(w);
    gsl_blas_ddot(gsl_multifit_nlinear_residual(w),
                  gsl_multifit_nlinear_residual(w), &res->chisq);
    res->chisq_dof = c->n > c->p ? res->chisq / (double)(c->n - c->p) : NAN;
    gsl_matrix *cov = gsl_matrix_alloc(c->p, c->p);
    int ok = cov && gsl_multifit_nlinear_covar(J, 0.0, cov) == GSL_SUCCESS;
    double norm[CM_LSQ_MAXP], top = 0;
    for (size_t k = 0; k < c->p; k++) {
        gsl_vector_const_view col = gsl_matrix_const_column(J, k);
        norm[k] = gsl_blas_dnrm2(&col.vector);
        top = fmax(top, norm[k]);
    }
    for (size_t k = 0; k < c->p; k++) {
        res->x[k] = gsl_vector_get(u, k) * c->scale[k];
        /* Relative to the strongest column: solver noise in the model
         * (root finders stop at ~1e-12) is not sensitivity. */
        res->identifiable[k] = norm[k] > LSQ_FLAT * top;
        double v = ok && res->identifiable[k]
                       ? gsl_matrix_get(cov, k, k) * res->chisq_dof
                       : NAN;
        res->stderr_[k] = v >= 0 ? c->scale[k] * sqrt(v) : NAN;
    }
    gsl_matrix_free(cov);
    res->iterations = (int)gsl_multifit_nlinear_niter(w);
}

cm_status cm_lsq_fit(cm_lsq_resid_fn f, void *arg, size_t n, size_t p,
                     const double *x0, const double *scale,
                     cm_lsq_result *res, cm_err *err)
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
    double u0[CM_LSQ_MAXP];
    for (size_t k = 0; k < p; k++) {
        if (!(scale[k] > 0) || !isfinite(x0[k]))
            return cm_err_set(err, CM_EINPUT,
                              "least squares: bad start or scale for "
                              "parameter %zu", k);
        u0[k] = x0[k] / scale[k];
    }
    lsq_ctx c = {f, arg, n, p, scale, malloc(n * sizeof(double))};
    if (!c.buf) return cm_err_set(err, CM_EINTERNAL, "out of memory");
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
    cm_status st = CM_OK;
    gsl_vector_const_view x = gsl_vector_const_view_array(u0, p);
    if (!w) {
        st = cm_err_set(err, CM_EINTERNAL, "least squares: out of memory");
    } else if (gsl_multifit_nlinear_init(&x.vector, &fdf, w) != GSL_SUCCESS) {
        st = cm_err_set(err, CM_EINTERNAL,
                        "least squares: cannot start the solver");
    } else {
        int info = 0;
        /* EMAXITER or ENOPROG still leave the best point found. */
        gsl_multifit_nlinear_driver(LSQ_MAXITER, 1e-10, 1e-10, 1e-12, NULL,
                                    NULL, &info, w);
        lsq_report(w, &c, res);
        if (!isfinite(res->chisq) || res->chisq >= LSQ_BAD * LSQ_BAD)
            st = cm_err_set(err, CM_EINPUT,
                            "least squares: the model cannot be evaluated "
                            "near the start");
    }
    gsl_multifit_nlinear_free(w);
    gsl_set_error_handler(old);
    free(c.buf);
    return st;
}
