/* dist.c - empirical time distributions with a mass at infinity (dist.h).
 *
 * The finite part is a mixture of uniforms: bin i is U_i ~ Uniform[lo_i,
 * hi_i) with probability p_i = w_i / T, T the total weight including the
 * mass at infinity.  Every quantity is a sum over bins of the same quantity
 * of one uniform, in closed form:
 *     P(U <= x)            = (x - lo) / (hi - lo) inside the bin
 *     E[(x - U)+]          = (x - lo)^2 / (2 (hi - lo)) inside, x - mid past it
 *     E[(x - U)+^2]        = (x - lo)^3 / (3 (hi - lo)) inside,
 *                            (x - mid)^2 + (hi - lo)^2 / 12 past it.
 * Since the integral of F over [0, x] is E[(x - X)+] (X = inf contributes
 * 0), these give the integrals of F exactly.  The integral of F_X against
 * f_Y is a sum over Y's bins of their density times an integral of F_X,
 * evaluated by one sweep over both bin lists (both are sorted), so it costs
 * O(n_X + n_Y): the lifetime predictor's Markov chain asks for it at every
 * lattice point.  The cdf and E[(x - U)+] take O(log n) from prefix sums
 * of w and w mid kept as bins are added: the bins wholly below x add w
 * and w (x - mid) each, and only one bin can hold x (the predictor's ODE
 * asks for them ~40 times a step). */
#include "models/dist.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void cm_dist_init(cm_dist *d) { memset(d, 0, sizeof *d); }

void cm_dist_free(cm_dist *d)
{
    if (!d) return;
    free(d->lo);
    free(d->hi);
    free(d->w);
    free(d->cw);
    free(d->cwm);
    cm_dist_init(d);
}

/* Grows *a to hold cap doubles; 0 on success. */
static int grow(double **a, size_t cap)
{
    double *p = realloc(*a, cap * sizeof *p);
    if (!p) return -1;
    *a = p;
    return 0;
}

static int dist_reserve(cm_dist *d, size_t need)
{
    if (need <= d->cap) return 0;
    size_t cap = d->cap ? 2 * d->cap : 16;
    while (cap < need) cap *= 2;
    int fresh = d->cw == NULL;
    if (grow(&d->lo, cap) || grow(&d->hi, cap) || grow(&d->w, cap) ||
        grow(&d->cw, cap + 1) || grow(&d->cwm, cap + 1))
        return -1;
    if (fresh) d->cw[0] = d->cwm[0] = 0;
    d->cap = cap;
    return 0;
}

/* The prefix sums from bin i on (add_bin: the new last bin; add_sample:
 * the bin it grew and every one after). */
static void dist_prefix_from(cm_dist *d, size_t i)
{
    for (size_t k = i; k < d->n; k++) {
        d->cw[k + 1] = d->cw[k] + d->w[k];
        d->cwm[k + 1] = d->cwm[k] + d->w[k] * (0.5 * (d->lo[k] + d->hi[k]));
    }
}

cm_status cm_dist_copy(cm_dist *dst, const cm_dist *src, cm_err *err)
{
    cm_dist_init(dst);
    if (dist_reserve(dst, src->n ? src->n : 1))
        return cm_err_set(err, CM_EINTERNAL, "distribution: out of memory");
    size_t bytes = src->n * sizeof(double);
    if (bytes) {
        memcpy(dst->lo, src->lo, bytes);
        memcpy(dst->hi, src->hi, bytes);
        memcpy(dst->w, src->w, bytes);
        memcpy(dst->cw, src->cw, bytes + sizeof(double));
        memcpy(dst->cwm, src->cwm, bytes + sizeof(double));
    }
    dst->n = src->n;
    dst->w_inf = src->w_inf;
    dst->w_total = src->w_total;
    return CM_OK;
}

cm_status cm_dist_add_bin(cm_dist *d, double lo, double hi, double w,
                          cm_err *err)
{
    if (!isfinite(w) || w < 0)
        return cm_err_set(err, CM_EINPUT,
                          "bin weight must be a finite number >= 0, got %g",
                          w);
    if (isnan(lo) || isnan(hi))
        return cm_err_set(err, CM_EINPUT, "bin bounds must be numbers");
    if (hi == INFINITY) {
        d->w_inf += w;
        d->w_total += w;
        return CM_OK;
    }
    if (!(lo >= 0 && lo < hi && isfinite(hi)))
        return cm_err_set(err, CM_EINPUT,
                          "bin [%g, %g) must have 0 <= lo < hi", lo, hi);
    if (d->n && lo < d->hi[d->n - 1])
        return cm_err_set(err, CM_EINPUT,
                          "bin [%g, %g) overlaps or precedes the previous "
                          "bin [%g, %g): bins must come in increasing order",
                          lo, hi, d->lo[d->n - 1], d->hi[d->n - 1]);
    if (dist_reserve(d, d->n + 1))
        return cm_err_set(err, CM_EINTERNAL, "distribution: out of memory");
    d->lo[d->n] = lo;
    d->hi[d->n] = hi;
    d->w[d->n] = w;
    d->n++;
    dist_prefix_from(d, d->n - 1);
    d->w_total += w;
    return CM_OK;
}

/* The first bin with hi > x (n if none): the bins before it lie wholly
 * at or below x, and only it can hold x.  Bins are sorted. */
static size_t dist_first_above(const cm_dist *d, double x)
{
    size_t a = 0, b = d->n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (d->hi[m] <= x) a = m + 1;
        else b = m;
    }
    return a;
}

/* Index of the bin holding x (lo <= x < hi), or -1. */
static long dist_find(const cm_dist *d, double x)
{
    size_t a = dist_first_above(d, x);
    return a < d->n && d->lo[a] <= x ? (long)a : -1;
}

cm_status cm_dist_add_sample(cm_dist *d, double x, double w, cm_err *err)
{
    if (!isfinite(w) || w < 0)
        return cm_err_set(err, CM_EINPUT,
                          "sample weight must be a finite number >= 0, "
                          "got %g", w);
    if (x == INFINITY) {
        d->w_inf += w;
        d->w_total += w;
        return CM_OK;
    }
    long i = isnan(x) ? -1 : dist_find(d, x);
    if (i < 0)
        return cm_err_set(err, CM_EINPUT, "sample %g lies in no bin", x);
    d->w[i] += w;
    dist_prefix_from(d, (size_t)i);
    d->w_total += w;
    return CM_OK;
}

double cm_dist_total(const cm_dist *d) { return d->w_total; }

/* P(U_i <= x), E[(x - U_i)+] and E[(x - U_i)+^2] of one bin's uniform. */
static double bin_cdf(const cm_dist *d, size_t i, double x)
{
    if (x <= d->lo[i]) return 0;
    if (x >= d->hi[i]) return 1;
    return (x - d->lo[i]) / (d->hi[i] - d->lo[i]);
}

static double bin_excess(double lo, double hi, double x)
{
    if (x <= lo) return 0;
    if (x >= hi) return x - 0.5 * (lo + hi);
    return (x - lo) * (x - lo) / (2 * (hi - lo));
}

static double bin_excess2(double lo, double hi, double x)
{
    if (x <= lo) return 0;
    double w = hi - lo;
    if (x >= hi) {
        double c = x - 0.5 * (lo + hi);
        return c * c + w * w / 12;
    }
    double u = x - lo;
    return u * u * u / (3 * w);
}

double cm_dist_cdf(const cm_dist *d, double x)
{
    if (!(d->w_total > 0)) return NAN;
    if (x == INFINITY) return 1;
    if (d->n == 0) return 0;
    /* the bins wholly below x each add w (bin_cdf 1): their prefix sum,
     * added in the same order; then the one x falls in */
    size_t i = dist_first_above(d, x);
    double s = d->cw[i];
    if (i < d->n && d->lo[i] < x) s += d->w[i] * bin_cdf(d, i, x);
    return s / d->w_total;
}

double cm_dist_survival(const cm_dist *d, double x)
{
    if (!(d->w_total > 0)) return NAN;
    if (x == INFINITY) return 0;
    /* Summed from the top so that small tails keep their digits. */
    double s = d->w_inf;
    for (size_t i = d->n; i-- > 0 && d->hi[i] > x;)
        s += d->w[i] * (1 - bin_cdf(d, i, x));
    return s / d->w_total;
}

double cm_dist_mass_inf(const cm_dist *d)
{
    return d->w_total > 0 ? d->w_inf / d->w_total : NAN;
}

double cm_dist_density(const cm_dist *d, double x)
{
    if (!(d->w_total > 0)) return NAN;
    long i = isfinite(x) ? dist_find(d, x) : -1;
    if (i < 0) return 0;
    return d->w[i] / (d->w_total * (d->hi[i] - d->lo[i]));
}

double cm_dist_mean_finite(const cm_dist *d)
{
    double s = 0, wsum = 0;
    for (size_t i = 0; i < d->n; i++) {
        s += d->w[i] * 0.5 * (d->lo[i] + d->hi[i]);
        wsum += d->w[i];
    }
    return wsum > 0 ? s / wsum : NAN;
}

/* E[f(L, X)] over the finite bins, for an f that is 0 on bins above L. */
static double below_sum(const cm_dist *d, double L,
                        double (*f)(double lo, double hi, double x))
{
    if (!(d->w_total > 0)) return NAN;
    double s = 0;
    for (size_t i = 0; i < d->n && d->lo[i] < L; i++)
        s += d->w[i] * f(d->lo[i], d->hi[i], L);
    return s / d->w_total;
}

/* E[(L - X)+] with i the first bin above L (dist_first_above). */
static double excess_at(const cm_dist *d, double L, size_t i)
{
    if (!(d->w_total > 0)) return NAN;
    if (d->n == 0) return 0;
    /* the bins wholly below L each add w (L - mid): W L - W mid from the
     * prefix sums (positive: L - mid is at least half a bin), then the
     * one L falls in */
    double s = i ? fmax(0, d->cw[i] * L - d->cwm[i]) : 0;
    if (i < d->n && d->lo[i] < L)
        s += d->w[i] * bin_excess(d->lo[i], d->hi[i], L);
    return s / d->w_total;
}

double cm_dist_mean_excess_below(const cm_dist *d, double L)
{
    return excess_at(d, L, dist_first_above(d, L));
}

double cm_dist_mean_excess_below_near(const cm_dist *d, double L, size_t *at)
{
    size_t i = *at < d->n ? *at : d->n;
    while (i > 0 && !(d->hi[i - 1] <= L)) i--;
    while (i < d->n && d->hi[i] <= L) i++;
    *at = i;
    return excess_at(d, L, i);
}

double cm_dist_mean_excess2_below(const cm_dist *d, double L)
{
    return below_sum(d, L, bin_excess2);
}

double cm_dist_integral_cdf(const cm_dist *d, double a, double b)
{
    if (!(b > a)) return 0;
    return cm_dist_mean_excess_below(d, b) - cm_dist_mean_excess_below(d, a);
}

/* Phi(y) = integral of F over [0, y] at increasing y, in amortised O(1)
 * per call plus one pass over the bins: bins wholly below y contribute
 * w (y - mid), so two running sums carry them; at most one bin straddles
 * y because bins do not overlap. */
typedef struct phi_sweep {
    const cm_dist *d;
    size_t i;           /* bins before i lie wholly below the last y */
    double sw, swm;     /* sum of w and of w mid over those bins */
} phi_sweep;

static double phi_at(phi_sweep *s, double y)
{
    const cm_dist *d = s->d;
    while (s->i < d->n && d->hi[s->i] <= y) {
        s->sw += d->w[s->i];
        s->swm += d->w[s->i] * 0.5 * (d->lo[s->i] + d->hi[s->i]);
        s->i++;
    }
    double v = s->sw * y - s->swm;
    if (s->i < d->n && d->lo[s->i] < y)
        v += d->w[s->i] * bin_excess(d->lo[s->i], d->hi[s->i], y);
    return v / d->w_total;
}

double cm_dist_integral_cdf_density(const cm_dist *x, const cm_dist *y,
                                    double a, double b)
{
    if (!(x->w_total > 0) || !(y->w_total > 0)) return NAN;
    if (a < 0) a = 0;
    phi_sweep s = {x, 0, 0, 0};
    double sum = 0;
    for (size_t j = 0; j < y->n; j++) {
        double lo = fmax(y->lo[j], a), hi = fmin(y->hi[j], b);
        if (y->lo[j] >= b) break;
        if (!(hi > lo) || y->w[j] == 0) continue;
        double dens = y->w[j] / (y->hi[j] - y->lo[j]);
        double p0 = phi_at(&s, lo);
        sum += dens * (phi_at(&s, hi) - p0);
    }
    return sum / y->w_total;
}

typedef struct expect_ctx {
    cm_dist_fn g;
    void *ctx;
} expect_ctx;

static double expect_f(double x, void *p)
{
    const expect_ctx *e = p;
    return e->g(x, e->ctx);
}

cm_status cm_dist_expect(const cm_dist *d, cm_dist_fn g, void *ctx,
                         double *out, cm_err *err)
{
    if (!(d->w_total > 0))
        return cm_err_set(err, CM_EINPUT, "expectation over an empty "
                                          "distribution");
    enum { LIMIT = 200 };
    gsl_integration_workspace *ws = gsl_integration_workspace_alloc(LIMIT);
    if (!ws)
        return cm_err_set(err, CM_EINTERNAL, "distribution: out of memory");
    expect_ctx e = {g, ctx};
    gsl_function f = {expect_f, &e};
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    cm_status st = CM_OK;
    double sum = 0;
    for (size_t i = 0; i < d->n && st == CM_OK; i++) {
        if (d->w[i] == 0) continue;
        double r, abserr;
        int rc = gsl_integration_qag(&f, d->lo[i], d->hi[i], 0, 1e-10, LIMIT,
                                     GSL_INTEG_GAUSS21, ws, &r, &abserr);
        if (rc || !isfinite(r))
            st = cm_err_set(err, CM_EINTERNAL,
                            "integral over bin [%g, %g) failed: %s",
                            d->lo[i], d->hi[i],
                            rc ? gsl_strerror(rc) : "not finite");
        sum += d->w[i] / (d->hi[i] - d->lo[i]) * r;
    }
    gsl_set_error_handler(old);
    gsl_integration_workspace_free(ws);
    if (st == CM_OK) *out = sum / d->w_total;
    return st;
}
