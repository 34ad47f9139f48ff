/* mshr_fixed.c - the MSHR model's two fixed points, solved together:
 * the store instructions in flight mus = F(mus) = w X_inst(mus, T) T
 * (N_s, compound Poisson of mean mus, shapes the pool every load sees),
 * and the latency T* = T(X(T*)) of the memory system at the request rate
 * the chain sends (mshr.c's header states both).  Each evaluation is a
 * chain solve (f_M, f_S and the QBD at one (T, mus)), ~20 us at 48
 * warps, so the cost of a point is the number of solves.
 *
 * The direct path (cm_mshr_ws_direct, the model's first solver): at every
 * T the stores from none by damped steps mus <- (mus + F) / 2 (~15
 * solves), the latency by GSL's Brent on g(T) = T - T(X(T)) from a
 * doubled bracket (~13 latencies): ~250 solves, 4-13 ms a point.
 *
 * The fast path, the same roots to solver tolerance (~12 solves):
 *  - stores: safeguarded secant steps on h(mus) = F(mus) - mus (h falls,
 *    h(0) >= 0, so the evaluations bracket the root), started from the
 *    latency root finder's guess or the fixed points at the last two
 *    latencies; solved to 1e-4 of the latency's current relative gap and
 *    to STORE_TOL once that gap is below 1e-8: far from T* only the
 *    gap's sign and rough size matter;
 *  - latency: T(X(lo)) above the unloaded lo brackets T* (X falls as T
 *    grows); each next T solves T = T(X_model(T)) with the memory
 *    system's own T(x), cheap and exact, and X_model(T) = a / (T + c)
 *    through the last two chains (a closed network's throughput against
 *    its round trip), so the steep T(x) near saturation is never
 *    interpolated: 4-6 latencies where Brent on g took 7-14.  Steps that
 *    leave the bracket bisect; 40 latencies without convergence hand
 *    over to the direct path's Brent. */
#include "models/mshr_impl.h"

#include <gsl/gsl_errno.h>
#include <math.h>

/* The direct path's store tolerance: far below the fast path's effect on
 * the outputs, so a test sees the fast path's error alone. */
#define DIRECT_TOL 1e-12


/* One solve of the chain at T for the store population n->mus, and the
 * flows it implies. */
static cm_status chain_flow(sm_net *n, double T, sm_flow *fl, cm_err *err)
{
    if (!(n->mus == n->probs_mus)) { /* N_s and f_M, f_S depend on mus only */
        cm_mshr_store_pmf(n);
        cm_mshr_fit_probs(n);
        n->probs_mus = n->mus;
    }
    cm_status st = cm_mshr_chain_solve(n, T, err);
    if (st) return st;
    double xi = 0, xm = 0;
    for (unsigned long j = 0; j <= n->N; j++) {
        const double *p = n->pi + j * NPH;
        xi += p[0] * n->lam[n->N - j];
        xi += p[4] * n->lam[n->N - j];
        xm += (p[0] + p[1] + p[2] + p[3] + p[4]) * (double)j / T;
    }
    /* Every instruction that reaches the unit sends its requests (after a
     * wait if refused): the requests follow from the instruction rate,
     * (1 - w) E[K] + w r each. */
    fl->x_inst = xi;
    fl->x_mem = xm;
    fl->x_st = n->w * xi;
    fl->x_req = xi * ((1 - n->w) * n->pia * n->ekp + n->w * n->r);
    return CM_OK;
}

/* The direct solve (cm_mshr_ws_direct): from no stores in flight at every
 * T, mus <- (mus + F(mus)) / 2 until a step is below tol (the model's
 * first solver, 1e-6, ~15 chain solves a latency).  F falls as mus grows,
 * hence the damping. */
static cm_status stores_damped(sm_net *n, double T, sm_flow *fl, double tol,
                               cm_err *err)
{
    n->mus = 0;
    for (int it = 0; it < 400; it++) {
        cm_status st = chain_flow(n, T, fl, err);
        if (st) return st;
        double mus = fl->x_st * T;
        if (fabs(mus - n->mus) <= tol * (1 + mus)) {
            n->mus = mus;
            break;
        }
        n->mus = 0.5 * (n->mus + mus);
    }
    return CM_OK;
}

#define STORE_TOL 1e-11 /* |F(mus) - mus| / (1 + mus) at the fixed point */

/* Where the store population's solve at T starts: the latency root
 * finder's own guess (stores_hint), else the line through the fixed
 * points at the last two latencies, or the last one, or none in
 * flight. */
static double stores_guess(const sm_net *n, double T)
{
    if (n->mus_hint >= 0) return n->mus_hint;
    if (n->nwarm == 0) return 0;
    double m = n->warm_mus[0];
    if (n->nwarm == 2 && n->warm_t[0] != n->warm_t[1])
        m += (T - n->warm_t[0]) * (n->warm_mus[0] - n->warm_mus[1]) /
             (n->warm_t[0] - n->warm_t[1]);
    return fmax(0, m);
}

static void stores_remember(sm_net *n, double T)
{
    n->warm_t[1] = n->warm_t[0];
    n->warm_mus[1] = n->warm_mus[0];
    n->warm_t[0] = T;
    n->warm_mus[0] = n->mus;
    if (n->nwarm < 2) n->nwarm++;
}

/* The store instructions in flight mus solve h(mus) = F(mus) - mus = 0,
 * F(mus) = w X_inst(mus) T.  h falls (stores in flight refuse
 * instructions), h(0) = F(0) >= 0: safeguarded secant steps inside the
 * bracket [lo, hi] the evaluations give, from stores_guess and the last
 * slope (1-3 chain solves a latency where damped steps from 0 took ~15). */
static cm_status stores_secant(sm_net *n, double T, double tol, sm_flow *fl,
                               cm_err *err)
{
    double lo = 0, hi = INFINITY, m = stores_guess(n, T), mp = NAN, hp = NAN;
    for (int it = 0; it < 100; it++) {
        n->mus = m;
        cm_status st = chain_flow(n, T, fl, err);
        if (st) return st;
        double h = fl->x_st * T - m;
        if (fabs(h) <= tol * (1 + m)) break;
        if (h > 0) lo = m;
        else hi = m;
        if (hi - lo <= tol * (1 + lo)) break;
        double s = (h - hp) / (m - mp);
        if (s < 0 && isfinite(s)) n->slope = s; /* else keep the last */
        double next = m - h / n->slope;
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        mp = m;
        hp = h;
        m = next;
    }
    stores_remember(n, T);
    return CM_OK;
}

/* The chain at T, the store population at its fixed point (the fast
 * path's to tol). */
static cm_status sm_eval(sm_net *n, double T, int direct, double tol,
                         sm_flow *fl, cm_err *err)
{
    double z = (1 - n->w) * (n->p_mergeonly * T / 2 +
                             n->p_allhit * n->in->hit_latency);
    cm_mshr_core_throughput(n, z);
    if (!(n->w > 0)) {
        n->mus = 0;
        return chain_flow(n, T, fl, err);
    }
    return direct ? stores_damped(n, T, fl, DIRECT_TOL, err)
                  : stores_secant(n, T, tol, fl, err);
}

typedef struct root_ctx {
    sm_net *net;
    int direct;
    cm_status status;
    cm_err *err;
    double last_t;   /* the T whose chain net holds */
    sm_flow last;    /* and its flows */
    double last_lat; /* T(X) there */
    double last_tol; /* the store tolerance it was solved to */
    double resid;    /* |T - T(X)| / T there */
} root_ctx;

/* The chain at T and the memory system's latency at its request rate.
 * Far from T* the gap's sign and rough size are all the root finder
 * uses: the fast path solves the store population to 1e-4 of the last
 * latency's relative gap (at most 1e-4), and to STORE_TOL once that would
 * be below 1e-8 (so the last latency is solved tightly at once, not
 * once more). */
static cm_status latency_eval(root_ctx *rc, double T)
{
    rc->last_tol = fmin(1e-4, 1e-4 * rc->resid);
    if (rc->last_tol < 1e-8) rc->last_tol = STORE_TOL;
    rc->last_t = T;
    cm_status st = sm_eval(rc->net, T, rc->direct, rc->last_tol, &rc->last,
                           rc->err);
    if (st) return rc->status = st;
    rc->last_lat = cm_mshr_memsys(rc->net->in, rc->last.x_req).latency;
    rc->resid = fabs(T - rc->last_lat) / T;
    return CM_OK;
}

/* The direct path's gap g(T) = T - T(X(T)), increasing in T (-1e300
 * where X(T) overloads a station). */
static double coupling_gap(double T, void *arg)
{
    root_ctx *rc = arg;
    if (latency_eval(rc, T)) return GSL_NAN;
    return T - fmin(rc->last_lat, 1e300);
}

/* The direct path, the model's first solver: g's bracket by doubling from
 * lo, then GSL's Brent to 1e-9 of T (~13 latencies, 3-20 solves each). */
static cm_status find_latency_direct(gsl_root_fsolver *brent, root_ctx *rc,
                                     double lo, double *root,
                                     int *iterations)
{
    gsl_function f = {coupling_gap, rc};
    coupling_gap(lo, rc);
    if (rc->status) return rc->status;
    if (rc->last_lat - lo <= 1e-12 * lo) { /* no queueing at all */
        *root = lo;
        *iterations = 0;
        return CM_OK;
    }
    double hi = 2 * lo;
    while (coupling_gap(hi, rc) <= 0) {
        if (rc->status) return rc->status;
        lo = hi;
        hi *= 2;
        if (hi > 1e15)
            return cm_err_set(rc->err, CM_EINTERNAL,
                              "mshr model: no latency fixed point below 1e15 "
                              "cycles");
    }
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int gst = gsl_root_fsolver_set(brent, &f, lo, hi);
    int it = 0;
    while (gst == GSL_SUCCESS && it < 200) {
        it++;
        gst = gsl_root_fsolver_iterate(brent);
        if (gst != GSL_SUCCESS || rc->status) break;
        double a = gsl_root_fsolver_x_lower(brent);
        double b = gsl_root_fsolver_x_upper(brent);
        if (gsl_root_test_interval(a, b, 0, 1e-9) == GSL_SUCCESS) break;
    }
    gsl_set_error_handler(old);
    if (rc->status) return rc->status;
    if (gst != GSL_SUCCESS)
        return cm_err_set(rc->err, CM_EINTERNAL,
                          "mshr model: root finder failed: %s",
                          gsl_strerror(gst));
    *root = gsl_root_fsolver_root(brent);
    *iterations = it;
    return CM_OK;
}

/* X(T) near the last two chains: a / (T + c) through both (a closed
 * network's throughput against its round trip), or the line through
 * them where that does not fit. */
typedef struct rate_model {
    const cm_mshr_input *in;
    int hyper;
    double a, c;        /* a / (T + c) */
    double t, x, slope; /* x + slope (T - t) */
} rate_model;

static rate_model rate_model_fit(const cm_mshr_input *in, double t1,
                                 double x1, double t2, double x2)
{
    rate_model m = {.in = in, .t = t2, .x = x2};
    if (t1 == t2 || x1 == x2) return m; /* flat: X = x2 */
    double c = (x2 * t2 - x1 * t1) / (x1 - x2);
    if (t1 + c > 0 && t2 + c > 0 && isfinite(c)) {
        m.hyper = 1;
        m.c = c;
        m.a = x2 * (t2 + c);
    } else {
        m.slope = (x2 - x1) / (t2 - t1);
    }
    return m;
}

static double model_rate(const rate_model *m, double T)
{
    return m->hyper ? (T + m->c > 0 ? m->a / (T + m->c) : INFINITY)
                    : fmax(0, m->x + m->slope * (T - m->t));
}

/* 1 / T(X_model(T)) - 1 / T: increasing in T, continuous through
 * saturation (1 / T(X) falls to 0 there), cheap (no chain). */
static double model_gap(double T, void *arg)
{
    const rate_model *m = arg;
    return 1 / cm_mshr_memsys(m->in, model_rate(m, T)).latency - 1 / T;
}

/* The store instructions in flight the model expects at T: w X_inst T,
 * X_inst = X / ((1 - w) E[K] + w r) (the requests of an instruction);
 * the next store solve starts there (-1: no guess). */
static double stores_hint(const sm_net *n, const rate_model *m, double T)
{
    double x = model_rate(m, T);
    double per_inst = (1 - n->w) * n->pia * n->ekp + n->w * n->r;
    return x > 0 && isfinite(x) ? n->w * x / per_inst * T : -1;
}

/* The next latency to solve the chain at: the root of the model's gap in
 * (lo, hi), *from_model set; or, where the model has none there, the
 * middle (twice lo while no hi is known). */
static double model_step(gsl_root_fsolver *s, rate_model *m, double lo,
                         double hi, int *from_model)
{
    *from_model = 0;
    double fallback = isfinite(hi) ? 0.5 * (lo + hi) : 2 * lo;
    double b = hi;
    if (!isfinite(b))
        for (b = fmax(2 * lo, m->t); model_gap(b, m) <= 0 && b < 1e15;)
            b *= 2;
    if (!(model_gap(lo, m) < 0 && model_gap(b, m) > 0)) return fallback;
    gsl_function f = {model_gap, m};
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int gst = gsl_root_fsolver_set(s, &f, lo, b);
    for (int it = 0; gst == GSL_SUCCESS && it < 200; it++) {
        gst = gsl_root_fsolver_iterate(s);
        if (gst != GSL_SUCCESS ||
            gsl_root_test_interval(gsl_root_fsolver_x_lower(s),
                                   gsl_root_fsolver_x_upper(s), 0,
                                   1e-13) == GSL_SUCCESS)
            break;
    }
    gsl_set_error_handler(old);
    double T = gsl_root_fsolver_root(s);
    if (!(gst == GSL_SUCCESS && T > lo && T < hi)) return fallback;
    *from_model = 1;
    return T;
}

#define FAST_EVALS 40 /* latencies before the fast path gives way */

/* The fast path: from lo, T(X(lo)) (T* lies between, X falling as T
 * grows), then each next latency from the memory system's own T(x),
 * exact and cheap, and X(T) modelled through the last two chains: where
 * T(x) is steep near saturation only X's smooth curve is interpolated,
 * and 4-6 latencies reach T* (Brent on the gap took 7-14).  The bracket
 * [lo, hi] the gaps' signs give catches a poor model.  With the stores
 * solved to STORE_TOL it stops once |T - T(X(T))| <= 1e-9 T (the gap
 * rises at slope >= 1, so T is then within 1e-9 T of T*) or the model's
 * next step is below 1e-9 T: near saturation T(x) is so steep that the
 * chain's rounding in X moves T(X) by more than that, while the step, the
 * gap over its model slope, still measures the distance to T*.  Should it
 * not converge, the direct path's bracket and Brent take over. */
static cm_status find_latency_fast(gsl_root_fsolver *brent, root_ctx *rc,
                                   double lo, double *root, int *iterations)
{
    double lo0 = lo;
    if (latency_eval(rc, lo)) return rc->status;
    if (rc->last_lat - lo <= 1e-12 * lo) { /* no queueing at all */
        *root = lo;
        *iterations = 0;
        return CM_OK;
    }
    double hi = INFINITY, tp = lo, xp = rc->last.x_req;
    double T = isfinite(rc->last_lat) ? rc->last_lat : 2 * lo;
    for (int it = 1; it <= FAST_EVALS && T < 1e15; it++) {
        if (latency_eval(rc, T)) return rc->status;
        if (rc->last_lat > T) lo = T;
        else hi = T;
        int tight = rc->last_tol <= STORE_TOL, from_model;
        rate_model m = rate_model_fit(rc->net->in, tp, xp, T,
                                      rc->last.x_req);
        tp = T;
        xp = rc->last.x_req;
        double next = model_step(brent, &m, lo, hi, &from_model);
        if (tight && (rc->resid <= 1e-9 ||
                      (from_model && fabs(next - T) <= 1e-9 * T))) {
            *root = T;
            *iterations = it;
            return CM_OK;
        }
        rc->net->mus_hint = from_model ? stores_hint(rc->net, &m, next) : -1;
        T = next;
    }
    rc->net->mus_hint = -1;
    return find_latency_direct(brent, rc, lo0, root, iterations);
}

cm_status cm_mshr_fixed_point(sm_net *n, gsl_root_fsolver *brent, int direct,
                              double lo, double *T, sm_flow *f, int *iterations,
                              cm_err *err)
{
    n->nwarm = 0;
    n->mus_hint = -1;
    n->slope = -1; /* a plain step's, F' = 0 (the bracket guards it) */
    root_ctx rc = {.net = n, .direct = direct, .status = CM_OK, .err = err,
                   .last_t = NAN, .resid = INFINITY};
    cm_status st = direct ? find_latency_direct(brent, &rc, lo, T, iterations)
                          : find_latency_fast(brent, &rc, lo, T, iterations);
    if (st) return st;
    /* the chain at T*: the last one solved, unless that was loose (or the
     * direct path, which solves it again as the first solver did) */
    *f = rc.last;
    if (direct || *T != rc.last_t || rc.last_tol > STORE_TOL)
        st = sm_eval(n, *T, direct, STORE_TOL, f, err);
    return st;
}
