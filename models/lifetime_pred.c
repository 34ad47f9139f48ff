/* lifetime_pred.c - TC-Weak's adaptive lifetime predictor (seed 000,
 * section 4.4) for the lifetime model (models/lifetime.h; the outcomes,
 * stalls and speed are lifetime.c, the helpers both share
 * lifetime_impl.h): the events that move a bank's lifetime, their drift,
 * its equilibrium, the approach from tc.predictor_init and the
 * stationary distribution of the predictor as a Markov chain.
 *
 * The predictor (TCW, section 4.4).  One bank's lifetime moves +t_hit
 * when a load finds its L1 copy expired, +t_hit when a load reaches a
 * valid L2 line whose GT passed, -t_evict at an unexpired L2 eviction,
 * -t_write at a store to an unexpired line (tc.write_update).  Their
 * machine-wide rates at L:
 *     l1_expired = rate.l1_fills (P(V < inf) - P(V + d <= L)),
 *     l2_expired = rate.l2_loads P(L < G < inf) + rate.l2_loads_unleased,
 *     evictions  = rate.l2_evictions F_A(L),
 *     stores     = rate.l2_stores F_S(L),
 * the last term the loads of a line a store or an atomic brought into the
 * L2, whose timestamp no load has set (0: expired at every L; on cc
 * under TC-Weak 46% of the expired L2 loads), spread evenly over the
 * banks: drift(L) = (t_hit (l1 + l2) - t_evict ev -
 * t_write st) / banks.  The first two fall with L, the last two rise: at
 * most one sign change, found by GSL's Brent in [tc.predictor_min,
 * tc.predictor_max] (clamped at a bound the drift pushes on).  Its
 * approach from tc.predictor_init: dL/dt = drift(L) by GSL's RKF45 with
 * the integral of L, whose mean over the run is the simulator's
 * tc.lifetime_mean.  As a Markov chain on the lattice min + j g (g = t_hit,
 * or coarser to model.lifetime_states points): skip-free upward, so the
 * flux balance across each cut gives the stationary distribution from the
 * top down with no linear system; a non-integral jump goes to its two
 * neighbours with the probabilities that keep its mean.  Assumed: the
 * distributions at L are the profile's (measured near L). */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/lifetime_impl.h"

/* P(a < X < inf). */
static double finite_above(const cm_dist *d, double a)
{
    return fmax(0, cm_dist_survival(d, a) - cm_dist_mass_inf(d));
}

void cm_lifetime_event_rates(const cm_lifetime_input *in, double L,
                             cm_lifetime_rates *r)
{
    const cm_dist *v = in->last_use ? in->last_use : in->reuse;
    double l1 = 1 - cm_dist_mass_inf(v) -
                cm_lifetime_delayed_cdf(v, in->lease_delay, L, 1);
    r->l1_expired = in->l1_fills * fmax(0, l1);
    r->l2_expired =
        in->l2_loads * finite_above(in->load_gap, L) + in->l2_unleased;
    r->unexpired_evictions = cm_lifetime_evict_young(in, L);
    r->unexpired_stores =
        in->write_update
            ? in->l2_stores *
                  (in->read_to_write ? cm_dist_cdf(in->read_to_write, L) : 0)
            : 0;
}

static double drift_of(const cm_lifetime_input *in, const cm_lifetime_rates *r)
{
    return (in->t_hit * (r->l1_expired + r->l2_expired) -
            in->t_evict * r->unexpired_evictions -
            in->t_write * r->unexpired_stores) /
           in->banks;
}

double cm_lifetime_drift(const cm_lifetime_input *in, double L)
{
    cm_lifetime_rates r;
    cm_lifetime_event_rates(in, L, &r);
    return drift_of(in, &r);
}

/* ---- equilibrium -------------------------------------------------------- */

const char *cm_lifetime_bound_name(cm_lifetime_bound b)
{
    switch (b) {
    case CM_LIFETIME_ROOT:
        return "root";
    case CM_LIFETIME_AT_MIN:
        return "min";
    case CM_LIFETIME_AT_MAX:
        return "max";
    case CM_LIFETIME_NO_DRIFT:
        return "no_drift";
    }
    return "?";
}

static double drift_fn(double L, void *p)
{
    return cm_lifetime_drift(p, L);
}

cm_status cm_lifetime_equilibrium(const cm_lifetime_input *in, double *L,
                                  cm_lifetime_bound *bound, cm_err *err)
{
    double lo = in->pred_min, hi = in->pred_max;
    double flo = cm_lifetime_drift(in, lo), fhi = cm_lifetime_drift(in, hi);
    if (!isfinite(flo) || !isfinite(fhi))
        return cm_err_set(err, CM_EINTERNAL, "lifetime drift is not finite");
    if (flo == 0 && fhi == 0) {
        *bound = CM_LIFETIME_NO_DRIFT;
        *L = fmin(fmax(in->pred_init, lo), hi);
        return CM_OK;
    }
    if (flo <= 0) {
        *bound = CM_LIFETIME_AT_MIN;
        *L = lo;
        return CM_OK;
    }
    if (fhi >= 0) {
        *bound = CM_LIFETIME_AT_MAX;
        *L = hi;
        return CM_OK;
    }
    gsl_function f = {drift_fn, (void *)in};
    cm_status st =
        cm_lifetime_brent_root(&f, lo, hi, L, "lifetime equilibrium", err);
    if (!st) *bound = CM_LIFETIME_ROOT;
    return st;
}

/* ---- approach from the start ------------------------------------------ */

/* y = (L, integral of L dt); the drift stops at a bound it pushes on. */
static int run_rhs(double t, const double y[], double dydt[], void *arg)
{
    (void)t;
    const cm_lifetime_input *in = arg;
    double L = fmin(fmax(y[0], in->pred_min), in->pred_max);
    double d = cm_lifetime_drift(in, L);
    if ((L <= in->pred_min && d < 0) || (L >= in->pred_max && d > 0)) d = 0;
    dydt[0] = d;
    dydt[1] = L;
    return isfinite(d) ? GSL_SUCCESS : GSL_EBADFUNC;
}

cm_status cm_lifetime_run_mean(const cm_lifetime_input *in, double cycles,
                               double *mean, double *end, cm_err *err)
{
    double y[2] = {fmin(fmax(in->pred_init, in->pred_min), in->pred_max), 0};
    if (!(cycles > 0) || !isfinite(cycles))
        return cm_err_set(err, CM_EINPUT,
                          "run length must be > 0 cycles, got %g", cycles);
    gsl_odeiv2_system sys = {run_rhs, NULL, 2, (void *)in};
    /* a thousandth of a cycle of lifetime, or 1e-7 of the integral */
    gsl_odeiv2_driver *d = gsl_odeiv2_driver_alloc_y_new(
        &sys, gsl_odeiv2_step_rkf45, fmin(cycles, 100), 1e-3, 1e-7);
    if (!d) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    double t = 0;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int rc = gsl_odeiv2_driver_apply(d, &t, cycles, y);
    gsl_set_error_handler(old);
    gsl_odeiv2_driver_free(d);
    if (rc != GSL_SUCCESS)
        return cm_err_set(err, CM_EINTERNAL, "lifetime predictor approach: %s",
                          gsl_strerror(rc));
    *mean = y[1] / cycles;
    if (end) *end = fmin(fmax(y[0], in->pred_min), in->pred_max);
    return CM_OK;
}

/* ---- stationary distribution ------------------------------------------- */

/* P(a jump of mean size d lattice points moves at least m >= 1 points). */
static double jump_at_least(double d, size_t m)
{
    double f = floor(d);
    if ((double)m <= f) return 1;
    if ((double)m == f + 1) return d - f;
    return 0;
}

void cm_lifetime_chain_free(cm_lifetime_chain *c)
{
    if (!c) return;
    free(c->lifetime);
    free(c->prob);
    memset(c, 0, sizeof *c);
}

cm_status cm_lifetime_stationary(const cm_lifetime_input *in,
                                 cm_lifetime_chain *out, cm_err *err)
{
    memset(out, 0, sizeof *out);
    double range = in->pred_max - in->pred_min;
    double cap = in->chain_states >= 2 ? in->chain_states : 2;
    double g = in->t_hit > 0 ? in->t_hit : range;
    if (range > 0 && range / g + 1 > cap) g = range / (cap - 1);
    size_t n = range > 0 ? (size_t)floor(range / g + 1e-9) + 1 : 1;
    double *up = malloc(n * sizeof *up), *dn_e = malloc(n * sizeof *dn_e),
           *dn_w = malloc(n * sizeof *dn_w);
    out->lifetime = malloc(n * sizeof *out->lifetime);
    out->prob = malloc(n * sizeof *out->prob);
    if (!up || !dn_e || !dn_w || !out->lifetime || !out->prob) {
        free(up), free(dn_e), free(dn_w);
        cm_lifetime_chain_free(out);
        return cm_err_set(err, CM_EINTERNAL, "lifetime chain: out of memory");
    }
    out->n = n;
    out->step = range > 0 ? g : 0;
    double up_scale = range > 0 ? in->t_hit / g : 0;
    double je = range > 0 ? in->t_evict / g : 0;
    double jw = range > 0 ? in->t_write / g : 0;
    int any = 0;
    for (size_t k = 0; k < n; k++) {
        cm_lifetime_rates r;
        double L = in->pred_min + (double)k * g;
        out->lifetime[k] = L;
        cm_lifetime_event_rates(in, L, &r);
        up[k] = (r.l1_expired + r.l2_expired) / in->banks * up_scale;
        dn_e[k] = je > 0 ? r.unexpired_evictions / in->banks : 0;
        dn_w[k] = jw > 0 ? r.unexpired_stores / in->banks : 0;
        any |= up[k] > 0 || dn_e[k] > 0 || dn_w[k] > 0;
    }
    double *pi = out->prob;
    memset(pi, 0, n * sizeof *pi);
    if (!any) { /* nothing ever moves it: it stays where it starts */
        double k = round((in->pred_init - in->pred_min) / (g > 0 ? g : 1));
        pi[(size_t)fmin(fmax(k, 0), (double)(n - 1))] = 1;
    } else {
        size_t reach = (size_t)fmax(floor(je), floor(jw)) + 1;
        pi[n - 1] = 1;
        for (size_t k = n - 1; k-- > 0;) {
            double flux = 0;
            for (size_t j = k + 1; j < n && j - k <= reach; j++)
                flux += pi[j] * (dn_e[j] * jump_at_least(je, j - k) +
                                 dn_w[j] * jump_at_least(jw, j - k));
            if (up[k] > 0) {
                pi[k] = flux / up[k];
            } else { /* the levels above are transient */
                memset(pi + k + 1, 0, (n - k - 1) * sizeof *pi);
                pi[k] = 1;
            }
            if (pi[k] > 1e250) /* keep the unnormalised weights finite */
                for (size_t j = k; j < n; j++) pi[j] *= 1e-250;
        }
    }
    double tot = 0, m = 0, m2 = 0;
    for (size_t k = 0; k < n; k++) tot += pi[k];
    for (size_t k = 0; k < n; k++) {
        pi[k] /= tot;
        m += pi[k] * out->lifetime[k];
    }
    for (size_t k = 0; k < n; k++)
        m2 += pi[k] * (out->lifetime[k] - m) * (out->lifetime[k] - m);
    out->mean = m;
    out->sd = sqrt(m2);
    free(up), free(dn_e), free(dn_w);
    if (!(tot > 0) || !isfinite(m)) {
        cm_lifetime_chain_free(out);
        return cm_err_set(err, CM_EINTERNAL,
                          "lifetime chain: the stationary weights vanished");
    }
    return CM_OK;
}
