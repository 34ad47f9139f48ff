/* erlang.c - Erlang-B, Erlang-C and Engset loss formulas.
 *
 * Erlang-B (M/M/c/c, offered load a = lambda/mu):
 *     B(0,a) = 1,   B(k,a) = a B(k-1,a) / (k + a B(k-1,a)),
 * run as 1/B(k) = 1 + (k/a) / B(k-1).  Each step shrinks the relative error
 * already made, so the result is exact to a few ulps for any c (Kleinrock,
 * Queueing Systems I, 3.7; Tijms, A First Course in Stochastic Models, 5.2).
 *
 * For real c >= 0 the integral form 1/B(c,a) = int_0^inf e^-t (1+t/a)^c dt
 * (Jagerman 1974) gives, with u = a + t,
 *     1/B(c,a) = e^a a^-c Gamma(c+1, a),   i.e.   B = D / Q(c+1, a),
 * where Q is GSL's regularised upper incomplete gamma and
 *     D = a^c e^-a / Gamma(c+1) = exp(c ln(a/c) + c - a) / (G*(c) sqrt(2pi c))
 * with G* GSL's gammastar (Gamma with Stirling's factor divided out).  The
 * exponent is formed as c log1p((a-c)/c) - (a-c), whose absolute error is a
 * few ulps of |a-c|, so c = a = 1e5 keeps ~1e-12 relative accuracy.  Where a
 * is so far above c that D (and Q, since Q >= D there) would underflow,
 * B = T / a with T the Legendre continued fraction of Gamma(c+1,a):
 *     T = b0 - a1/(b1 - a2/(b2 - ...)),  b_n = a - c + 2n, a_n = n(n-1-c),
 * evaluated by the modified Lentz method (Abramowitz & Stegun 6.5.31).
 *
 * Erlang-C (M/M/c): C = c B / (c - a (1 - B)) (Kleinrock 3.5; Allen,
 * Probability, Statistics and Queueing Theory, 2nd ed., table C.1), with
 * Wq = C / (c mu - lambda) and Little's law for the rest.
 *
 * Engset (c servers, N sources, beta = lambda_idle / mu): the time
 * congestion E(c) = C(N,c) beta^c / sum_{j<=c} C(N,j) beta^j obeys
 *     E(k) = (N-k+1) beta E(k-1) / (k + (N-k+1) beta E(k-1)),
 * Erlang-B's recursion with a replaced by (N-k+1) beta (Tijms 5.3).  The call
 * congestion is E with N-1 sources (arrival theorem). */
#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_sf_gamma.h>

#include "solvers/queue.h"

/* One step of the Erlang-B / Engset forward recursion. */
static double loss_step(double prev, double k, double load)
{
    double x = load * prev;
    return isinf(x) ? 1.0 : x / (k + x); /* inf/inf: its limit, 1 */
}

static int finite_nonneg(double v) { return isfinite(v) && v >= 0; }

/* The same recursion for 1/B, 1/B(k) = 1 + (k/a) / B(k-1): one multiply-add
 * a step instead of a division, with the same error damping.  1/B
 * overflows only where B is below DBL_MIN anyway; a = 0 gives 1/a = inf and
 * B = 0 for c >= 1 as it should. */
static double erlang_b_rec(unsigned long c, double a)
{
    double inv_a = 1.0 / a, r = 1.0;
    for (unsigned long k = 1; k <= c; k++) r = 1.0 + (double)k * inv_a * r;
    return 1.0 / r;
}

cm_status cm_erlang_b(unsigned long c, double a, double *b, cm_err *err)
{
    if (!finite_nonneg(a))
        return cm_err_set(err, CM_EINPUT,
                          "erlang-b: load must be a finite number >= 0, "
                          "got %g", a);
    *b = erlang_b_rec(c, a);
    return CM_OK;
}

/* T / a from the continued fraction above; for a > c only. */
static cm_status erlang_b_cf(double c, double a, double *b, cm_err *err)
{
    const double tiny = 1e-300;
    double f = a - c, C = f, D = 0.0;
    if (f == 0.0) f = C = tiny;
    for (int n = 1; n <= 100000; n++) {
        double an = -(double)n * ((double)n - 1.0 - c);
        double bn = a - c + 2.0 * n;
        D = bn + an * D;
        if (fabs(D) < tiny) D = tiny;
        C = bn + an / C;
        if (fabs(C) < tiny) C = tiny;
        D = 1.0 / D;
        double delta = C * D;
        f *= delta;
        if (fabs(delta - 1.0) < 1e-15) {
            *b = fmin(1.0, f / a);
            return CM_OK;
        }
    }
    return cm_err_set(err, CM_EINTERNAL,
                      "erlang-b: continued fraction did not converge for "
                      "servers %g, load %g", c, a);
}

cm_status cm_erlang_b_real(double c, double a, double *b, cm_err *err)
{
    if (!finite_nonneg(c))
        return cm_err_set(err, CM_EINPUT,
                          "erlang-b: servers must be a finite number >= 0, "
                          "got %g", c);
    if (!finite_nonneg(a))
        return cm_err_set(err, CM_EINPUT,
                          "erlang-b: load must be a finite number >= 0, "
                          "got %g", a);
    if (c == 0.0) {
        *b = 1.0;
        return CM_OK;
    }
    if (a == 0.0) {
        *b = 0.0;
        return CM_OK;
    }
    double d = a - c;
    double expo = fabs(d) < 0.5 * c ? c * log1p(d / c) - d
                                    : c * (log(a) - log(c)) - d;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_sf_result gs, q;
    int st = gsl_sf_gammastar_e(c, &gs);
    double lnD = expo - log(gs.val) - 0.5 * log(2.0 * M_PI * c);
    cm_status rc = CM_OK;
    if (st == GSL_SUCCESS && a > c && lnD < -650.0) {
        rc = erlang_b_cf(c, a, b, err);
    } else if (st == GSL_SUCCESS &&
               (st = gsl_sf_gamma_inc_Q_e(c + 1.0, a, &q)) == GSL_SUCCESS &&
               q.val > 0.0) {
        *b = fmin(1.0, exp(lnD) / q.val);
    } else {
        rc = cm_err_set(err, CM_EINTERNAL,
                        "erlang-b: incomplete gamma failed for servers %g, "
                        "load %g: %s", c, a, gsl_strerror(st));
    }
    gsl_set_error_handler(old);
    return rc;
}

cm_status cm_erlang_c(unsigned long c, double lambda, double mu, double *pwait,
                      cm_queue_metrics *m, cm_err *err)
{
    if (c == 0)
        return cm_err_set(err, CM_EINPUT, "erlang-c: servers must be >= 1");
    if (!finite_nonneg(lambda))
        return cm_err_set(err, CM_EINPUT,
                          "erlang-c: arrival rate must be a finite number "
                          ">= 0, got %g", lambda);
    if (!isfinite(mu) || mu <= 0)
        return cm_err_set(err, CM_EINPUT,
                          "erlang-c: service rate must be a finite number "
                          "> 0, got %g", mu);
    double a = lambda / mu, cd = (double)c;
    if (isinf(a))
        return cm_err_set(err, CM_EINPUT,
                          "erlang-c: the load arrival/service = %g/%g "
                          "overflows", lambda, mu);
    if (!(a < cd))
        return cm_err_set(err, CM_EINPUT,
                          "erlang-c: load %g >= servers %lu: the queue is "
                          "unstable", a, c);
    double b = erlang_b_rec(c, a);
    double C = cd * b / (cd - a * (1.0 - b));
    if (pwait) *pwait = C;
    if (m) {
        double wq = C / (cd * mu - lambda);
        m->p_block = 0.0;
        m->p_wait = C;
        m->throughput = lambda;
        m->mean_wait = wq;
        m->mean_resp = wq + 1.0 / mu;
        m->mean_q = lambda * wq;
        m->mean_busy = a;
        m->mean_n = m->mean_q + a;
        m->util = a / cd;
    }
    return CM_OK;
}

cm_status cm_engset(unsigned long c, unsigned long N, double beta,
                    double *time_cong, double *call_cong, cm_err *err)
{
    if (c == 0)
        return cm_err_set(err, CM_EINPUT, "engset: servers must be >= 1");
    if (c > N)
        return cm_err_set(err, CM_EINPUT,
                          "engset: servers %lu > sources %lu: there is "
                          "nothing to block", c, N);
    if (!finite_nonneg(beta))
        return cm_err_set(err, CM_EINPUT,
                          "engset: load per source must be a finite number "
                          ">= 0, got %g", beta);
    double et = 1.0, ec = 1.0; /* N sources; N-1 sources */
    for (unsigned long k = 1; k <= c; k++) {
        double kd = (double)k, idle = (double)(N - k + 1);
        et = loss_step(et, kd, idle * beta);
        ec = loss_step(ec, kd, (idle - 1.0) * beta);
    }
    if (time_cong) *time_cong = et;
    if (call_cong) *call_cong = ec;
    return CM_OK;
}
