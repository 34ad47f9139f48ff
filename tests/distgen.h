/* distgen.h - time distributions for the dist, profile and lifetime tests:
 * a finely binned exponential (whose closed forms the binned one matches to
 * O(h^2)), random histograms with gaps and a mass at infinity, and a
 * sampler of the same piecewise-uniform law for Monte Carlo, all driven by
 * a seeded GSL generator; and the lifetime model's input built from such
 * distributions, which check_lifetime.c and check_lifetime_pred.c share. */
#ifndef CM_DISTGEN_H
#define CM_DISTGEN_H

#include <gsl/gsl_rng.h>
#include <math.h>

#include "models/dist.h"
#include "models/lifetime.h"
#include "tests/testutil.h"

/* A Mersenne twister with a fixed seed; the caller frees it. */
static inline gsl_rng *dg_rng(unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    ck_assert_ptr_nonnull(r);
    gsl_rng_set(r, seed);
    return r;
}

/* X = inf with probability u, else Exp(mean), in bins of mean/per_mean
 * up to 30 means (the tail beyond, e^-30, goes into the last bin). */
static inline void dg_exponential(cm_dist *d, double mean, double u,
                                  int per_mean)
{
    cm_err err = {0};
    cm_dist_init(d);
    double h = mean / per_mean, a = 1 / mean;
    int nb = 30 * per_mean;
    for (int k = 0; k < nb; k++) {
        double lo = k * h, hi = (k + 1) * h;
        double w = (1 - u) * (exp(-a * lo) - (k + 1 < nb ? exp(-a * hi) : 0));
        ck_assert_int_eq(cm_dist_add_bin(d, lo, hi, w, &err), CM_OK);
    }
    ck_assert_int_eq(cm_dist_add_bin(d, INFINITY, INFINITY, u, &err), CM_OK);
}

/* 1 to 8 bins of random width (some with gaps before them) within
 * [0, scale), random weights, and half the time a mass at infinity. */
static inline void dg_random(cm_dist *d, gsl_rng *r, double scale)
{
    cm_err err = {0};
    cm_dist_init(d);
    int nb = 1 + (int)gsl_rng_uniform_int(r, 8);
    double x = 0, step = scale / nb;
    for (int k = 0; k < nb; k++) {
        if (gsl_rng_uniform(r) < 0.3) x += gsl_rng_uniform(r) * step;
        double w = 0.05 + gsl_rng_uniform(r) * step;
        ck_assert_int_eq(cm_dist_add_bin(d, x, x + w, gsl_rng_uniform(r),
                                         &err), CM_OK);
        x += w;
    }
    if (gsl_rng_uniform(r) < 0.5)
        ck_assert_int_eq(cm_dist_add_bin(d, 0, INFINITY,
                                         gsl_rng_uniform(r), &err), CM_OK);
    if (!(cm_dist_total(d) > 0))
        ck_assert_int_eq(cm_dist_add_bin(d, 0, INFINITY, 1, &err), CM_OK);
}

/* One draw of the law: a bin by weight, uniform inside it. */
static inline double dg_sample(const cm_dist *d, gsl_rng *r)
{
    double u = gsl_rng_uniform(r) * d->w_total;
    for (size_t i = 0; i < d->n; i++) {
        if (u < d->w[i])
            return d->lo[i] + gsl_rng_uniform(r) * (d->hi[i] - d->lo[i]);
        u -= d->w[i];
    }
    return INFINITY;
}

/* ---- the lifetime model's input ---------------------------------------- */

/* The six distributions of a lifetime model input (models/lifetime.h). */
typedef struct dg_dists {
    cm_dist r, e, s, g, a, d;
} dg_dists;

static inline void dg_dists_free(dg_dists *x)
{
    cm_dist_free(&x->r), cm_dist_free(&x->e), cm_dist_free(&x->s);
    cm_dist_free(&x->g), cm_dist_free(&x->a), cm_dist_free(&x->d);
}

/* Exponential times of the given means and masses at infinity. */
static inline void dg_dists_exponential(dg_dists *x, int per_mean)
{
    dg_exponential(&x->r, 800, 0.3, per_mean);
    dg_exponential(&x->e, 3000, 0.2, per_mean);
    dg_exponential(&x->s, 2000, 0.4, per_mean);
    dg_exponential(&x->g, 1500, 0.3, per_mean);
    dg_exponential(&x->a, 5000, 0.1, per_mean);
    dg_exponential(&x->d, 200, 0.5, per_mean);
}

/* An input of x's distributions at fixed rates, costs and predictor
 * bounds. */
static inline cm_lifetime_input dg_lifetime_input(const dg_dists *x)
{
    cm_lifetime_input in = {0};
    in.reuse = &x->r;
    in.residency = &x->e;
    in.read_to_write = &x->s;
    in.load_gap = &x->g;
    in.evict_age = &x->a;
    in.store_to_fence = &x->d;
    in.l1_fills = 0.5;
    in.l2_loads = 0.6;
    in.l2_stores = 0.2;
    in.l2_evictions = 0.3;
    in.fences = 0.01;
    in.banks = 8;
    in.l2_service = 2;
    in.t_hit = 4, in.t_evict = 8, in.t_write = 8;
    in.write_update = 1;
    in.pred_min = 8, in.pred_max = 50000, in.pred_init = 1600;
    in.chain_states = 100000;
    return in;
}

/* Exponential times and the rates above. */
static inline cm_lifetime_input dg_exponential_input(dg_dists *x, int per_mean)
{
    dg_dists_exponential(x, per_mean);
    return dg_lifetime_input(x);
}

#endif
