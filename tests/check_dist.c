/* check_dist.c - empirical time distributions (models/dist.h) and workload
 * timing profiles (models/profile.h).
 *
 * References: closed forms of the exponential and of one uniform bin,
 * Monte Carlo of the same piecewise-uniform law, and GSL quadrature. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/dist.h"
#include "models/profile.h"
#include "tests/distgen.h"
#include "tests/testutil.h"

START_TEST(dist_exponential_closed_forms)
{
    /* X = inf w.p. u, else Exp(1/a). */
    double mean = 800, a = 1 / mean, u = 0.3;
    cm_dist d;
    dg_exponential(&d, mean, u, 500);
    ck_assert_double_eq_tol(cm_dist_mass_inf(&d), u, 1e-12);
    ck_assert_double_eq_tol(cm_dist_mean_finite(&d), mean, 1e-3 * mean);
    for (double x = 0; x <= 6000; x += 375) {
        double F = (1 - u) * (1 - exp(-a * x));
        ck_assert_double_eq_tol(cm_dist_cdf(&d, x), F, 1e-6);
        ck_assert_double_eq_tol(cm_dist_survival(&d, x), 1 - F, 1e-6);
        /* E[(x-X)+] = (1-u)(x - (1 - e^-ax)/a) */
        double m1 = (1 - u) * (x - (1 - exp(-a * x)) / a);
        ck_assert_double_eq_tol(cm_dist_mean_excess_below(&d, x), m1,
                                1e-6 * mean);
        /* E[(x-X)+^2] = (1-u)(x^2 - 2x/a + 2/a^2 - 2 e^-ax / a^2) */
        double m2 = (1 - u) * (x * x - 2 * x / a + 2 / (a * a) -
                               2 * exp(-a * x) / (a * a));
        /* binning errs by O(h^2) (h = mean/500): relative 1e-7 */
        double h = mean / 500;
        ck_assert_double_eq_tol(cm_dist_mean_excess2_below(&d, x), m2,
                                1e-6 * m2 + h * h);
        ck_assert_double_eq_tol(cm_dist_density(&d, x + 1e-9),
                                (1 - u) * a * exp(-a * x), 1e-3 * a);
    }
    ck_assert_double_eq(cm_dist_cdf(&d, INFINITY), 1);
    ck_assert_double_eq(cm_dist_cdf(&d, -1), 0);
    cm_dist_free(&d);
}
END_TEST

START_TEST(dist_one_bin_exact)
{
    /* [10, 30) with weight 3, infinity with weight 1: P(finite) = 0.75. */
    cm_dist d;
    cm_dist_init(&d);
    cm_err err = {0};
    ck_assert_int_eq(cm_dist_add_bin(&d, 10, 30, 3, &err), CM_OK);
    ck_assert_int_eq(cm_dist_add_bin(&d, 30, INFINITY, 1, &err), CM_OK);
    ck_assert_double_eq_tol(cm_dist_cdf(&d, 20), 0.375, 1e-15);
    ck_assert_double_eq_tol(cm_dist_survival(&d, 25), 0.25 + 0.75 * 0.25,
                            1e-15);
    ck_assert_double_eq_tol(cm_dist_mean_excess_below(&d, 40),
                            0.75 * (40 - 20), 1e-12);
    ck_assert_double_eq_tol(cm_dist_mean_excess_below(&d, 20),
                            0.75 * 100.0 / 40, 1e-12);
    ck_assert_double_eq_tol(cm_dist_mean_excess2_below(&d, 40),
                            0.75 * (400 + 400.0 / 12), 1e-10);
    ck_assert_double_eq_tol(cm_dist_mean_excess2_below(&d, 20),
                            0.75 * 1000.0 / 60, 1e-10);
    ck_assert_double_eq_tol(cm_dist_integral_cdf(&d, 20, 40),
                            15 - 1.875, 1e-12);
    ck_assert_double_eq_tol(cm_dist_mean_finite(&d), 20, 1e-15);
    ck_assert_double_eq(cm_dist_mean_excess_below(&d, 10), 0);
    cm_dist_free(&d);
}
END_TEST

/* Monte Carlo of independent X and Y from random histograms against the
 * sweep that integrates F_X against f_Y. */
START_TEST(dist_cdf_density_monte_carlo)
{
    gsl_rng *r = dg_rng(7);
    for (int rep = 0; rep < 10; rep++) {
        cm_dist x, y;
        dg_random(&x, r, 100);
        dg_random(&y, r, 100);
        double a = gsl_rng_uniform(r) * 40, b = a + gsl_rng_uniform(r) * 80;
        if (rep == 0) b = INFINITY;
        double want = cm_dist_integral_cdf_density(&x, &y, a, b);
        int n = 100000, hits = 0;
        for (int i = 0; i < n; i++) {
            double xs = dg_sample(&x, r), ys = dg_sample(&y, r);
            hits += ys > a && ys <= b && isfinite(ys) && xs <= ys;
        }
        double p = (double)hits / n, sd = sqrt(want * (1 - want) / n);
        ck_assert_msg(fabs(p - want) <= 5 * sd + 1e-4,
                      "rep %d: MC %g model %g", rep, p, want);
        cm_dist_free(&x);
        cm_dist_free(&y);
    }
    gsl_rng_free(r);
}
END_TEST

static double square(double x, void *ctx)
{
    (void)ctx;
    return x * x;
}

START_TEST(dist_expect_quadrature)
{
    /* E[X^2; X < inf] of a mixture of uniforms: sum p (lo^2+lo hi+hi^2)/3 */
    gsl_rng *r = dg_rng(11);
    for (int rep = 0; rep < 20; rep++) {
        cm_dist d;
        dg_random(&d, r, 1000);
        double want = 0;
        for (size_t i = 0; i < d.n; i++)
            want += d.w[i] / d.w_total *
                    (d.lo[i] * d.lo[i] + d.lo[i] * d.hi[i] +
                     d.hi[i] * d.hi[i]) / 3;
        double got;
        cm_err err = {0};
        ck_assert_int_eq(cm_dist_expect(&d, square, NULL, &got, &err), CM_OK);
        ck_assert_close(got, want, 1e-10);
        cm_dist_free(&d);
    }
    gsl_rng_free(r);
}
END_TEST

START_TEST(dist_bad_input)
{
    cm_dist d;
    cm_dist_init(&d);
    cm_err err = {0};
    ck_assert_int_eq(cm_dist_add_bin(&d, 0, 10, 1, &err), CM_OK);
    ck_assert_int_eq(cm_dist_add_bin(&d, 5, 20, 1, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "increasing order"));
    ck_assert_int_eq(cm_dist_add_bin(&d, 20, 20, 1, &err), CM_EINPUT);
    ck_assert_int_eq(cm_dist_add_bin(&d, 20, 30, -1, &err), CM_EINPUT);
    ck_assert_int_eq(cm_dist_add_bin(&d, -1, 3, 1, &err), CM_EINPUT);
    ck_assert_int_eq(cm_dist_add_sample(&d, 12, 1, &err), CM_EINPUT);
    ck_assert_int_eq(cm_dist_add_sample(&d, 3, 2, &err), CM_OK);
    ck_assert_int_eq(cm_dist_add_sample(&d, INFINITY, 1, &err), CM_OK);
    ck_assert_double_eq_tol(cm_dist_cdf(&d, 10), 0.75, 1e-15);
    ck_assert_double_eq_tol(cm_dist_mass_inf(&d), 0.25, 1e-15);
    cm_dist_free(&d);
    cm_dist_init(&d);
    ck_assert(isnan(cm_dist_cdf(&d, 1))); /* empty: no probabilities */
    cm_dist_free(&d);
}
END_TEST

/* ---- profiles ---------------------------------------------------------- */

static cm_profile *sample_profile(void)
{
    cm_profile *p = cm_profile_new();
    cm_err err = {0};
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(cm_profile_set_rate(p, "rate.l2_loads", 0.125, &err),
                     CM_OK);
    ck_assert_int_eq(cm_profile_set_rate(p, "rate.l2_banks", 8, &err), CM_OK);
    ck_assert_int_eq(cm_profile_add_bin(p, "l1.reuse_time", 0, 1.5, 3, &err),
                     CM_OK);
    ck_assert_int_eq(cm_profile_add_bin(p, "l2.evict_age", 10, 20, 0.1,
                                        &err), CM_OK);
    ck_assert_int_eq(cm_profile_add_bin(p, "l1.reuse_time", 2, 1e9,
                                        1.0 / 3, &err), CM_OK);
    ck_assert_int_eq(cm_profile_add_bin(p, "l1.reuse_time", 7, INFINITY, 4,
                                        &err), CM_OK);
    return p;
}

static void assert_same_dist(const cm_dist *a, const cm_dist *b)
{
    ck_assert_uint_eq(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        ck_assert_double_eq(a->lo[i], b->lo[i]);
        ck_assert_double_eq(a->hi[i], b->hi[i]);
        ck_assert_double_eq(a->w[i], b->w[i]);
    }
    ck_assert_double_eq(a->w_inf, b->w_inf);
}

/* p written to a file named prof.csv and read back; the file's text in
 * *text when asked (the caller frees it). */
static cm_profile *write_read(const cm_profile *p, char **text)
{
    cm_profile *q = NULL;
    char *dir = tu_tmpdir(), *path = tu_path_in(dir, "prof.csv");
    cm_err err = {0};
    ck_assert_msg(cm_profile_write(p, path, &err) == CM_OK, "%s", err.msg);
    ck_assert_msg(cm_profile_read(path, &q, &err) == CM_OK, "%s", err.msg);
    if (text) *text = tu_read_file(path, NULL);
    tu_rm_tree(dir);
    free(path);
    free(dir);
    return q;
}

START_TEST(profile_round_trip)
{
    cm_profile *p = sample_profile();
    char *text;
    cm_profile *q = write_read(p, &text);
    cm_err err = {0};
    ck_assert_uint_eq(cm_profile_ndists(q), 2);
    ck_assert_uint_eq(cm_profile_nrates(q), 2);
    for (size_t i = 0; i < cm_profile_ndists(p); i++) {
        const char *name = cm_profile_dist_name(p, i);
        const cm_dist *a, *b;
        ck_assert_int_eq(cm_profile_dist(p, name, &a, &err), CM_OK);
        ck_assert_int_eq(cm_profile_dist(q, name, &b, &err), CM_OK);
        assert_same_dist(a, b);
    }
    double v;
    ck_assert_int_eq(cm_profile_rate(q, "rate.l2_loads", &v, &err), CM_OK);
    ck_assert_double_eq(v, 0.125);
    /* the file is exactly what profile.h says */
    ck_assert_str_eq(text, "quantity,lo,hi,value\n"
                           "rate.l2_loads,,,0.125\n"
                           "rate.l2_banks,,,8\n"
                           "l1.reuse_time,0,1.5,3\n"
                           "l1.reuse_time,2,1000000000,0.3333333333333333\n"
                           "l1.reuse_time,inf,inf,4\n"
                           "l2.evict_age,10,20,0.1\n");
    free(text);
    /* missing look-ups say what is missing and where */
    ck_assert_int_eq(cm_profile_rate(q, "rate.fences", &v, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "no rate 'rate.fences'"));
    ck_assert_ptr_nonnull(strstr(err.msg, "prof.csv"));
    const cm_dist *d;
    ck_assert_int_eq(cm_profile_dist(q, "l2.load_gap", &d, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "no distribution 'l2.load_gap'"));
    cm_profile_free(p);
    cm_profile_free(q);
}
END_TEST

/* A malformed profile fails at the offending cell. */
static void assert_bad(const char *text, const char *where, const char *what)
{
    cm_profile *p = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_profile_read_buffer("bad.csv", text, strlen(text),
                                            &p, &err), CM_EINPUT);
    ck_assert_ptr_null(p);
    ck_assert_msg(strncmp(err.msg, where, strlen(where)) == 0 &&
                      strstr(err.msg, what),
                  "got '%s', want '%s...%s'", err.msg, where, what);
}

/* Joint distributions ("joint." rows: a point (x, y) and its weight per
 * row) survive a write and a read in their order, beside the rest, and
 * stay out of the one-dimensional look-ups. */
START_TEST(profile_joint_round_trip)
{
    cm_profile *p = sample_profile();
    cm_err err = {0};
    ck_assert_int_eq(cm_profile_add_point(p, "joint.a", 3, 0, 2, &err), CM_OK);
    ck_assert_int_eq(cm_profile_add_point(p, "joint.a", 1.5, 40, 1, &err),
                     CM_OK);
    ck_assert_int_eq(cm_profile_add_point(p, "l2.a", 1, 1, 1, &err),
                     CM_EINPUT);
    ck_assert_int_eq(cm_profile_add_bin(p, "joint.a", 0, 1, 1, &err),
                     CM_EINPUT);
    cm_profile *q = write_read(p, NULL);
    const cm_point *pts;
    size_t n;
    cm_profile_points(q, "joint.a", &pts, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert(pts[0].x == 3 && pts[0].y == 0 && pts[0].w == 2);
    ck_assert(pts[1].x == 1.5 && pts[1].y == 40 && pts[1].w == 1);
    cm_profile_points(q, "joint.b", &pts, &n);
    ck_assert(n == 0 && pts == NULL);
    ck_assert_uint_eq(cm_profile_ndists(q), 2);
    const cm_dist *d;
    ck_assert_int_eq(cm_profile_dist(q, "joint.a", &d, &err), CM_EINPUT);
    cm_profile_free(p);
    cm_profile_free(q);
}
END_TEST

/* Pooling replicate profiles: identical bins add, others interleave,
 * the masses at infinity add, rates average over the profiles that have
 * them, joint points are all kept; overlapping different bins fail. */
static cm_profile *profile_of(const char *text)
{
    cm_profile *p = NULL;
    cm_err err = {0};
    ck_assert_msg(cm_profile_read_buffer("p.csv", text, strlen(text), &p,
                                         &err) == CM_OK, "%s", err.msg);
    return p;
}

START_TEST(profile_pool_replicates)
{
    cm_profile *a = profile_of("quantity,lo,hi,value\n"
                               "rate.r,,,2\nx,0,1,1\nx,2,3,2\nx,inf,inf,1\n"
                               "joint.j,1,2,3\n");
    cm_profile *b = profile_of("quantity,lo,hi,value\n"
                               "rate.r,,,4\nrate.s,,,1\nx,0,1,3\nx,1,2,4\n"
                               "y,5,6,1\njoint.j,4,5,6\n");
    const cm_profile *ab[2] = {a, b};
    cm_profile *p = NULL;
    cm_err err = {0};
    ck_assert_msg(cm_profile_pool(ab, 2, &p, &err) == CM_OK, "%s", err.msg);
    const cm_dist *x, *y;
    ck_assert_int_eq(cm_profile_dist(p, "x", &x, &err), CM_OK);
    ck_assert_int_eq(cm_profile_dist(p, "y", &y, &err), CM_OK);
    ck_assert_uint_eq(x->n, 3);
    const double lo[3] = {0, 1, 2}, w[3] = {4, 4, 2};
    for (int i = 0; i < 3; i++) {
        ck_assert_double_eq(x->lo[i], lo[i]);
        ck_assert_double_eq(x->w[i], w[i]);
    }
    ck_assert_double_eq(x->w_inf, 1);
    ck_assert_double_eq(cm_dist_total(y), 1);
    double r, s2;
    ck_assert_int_eq(cm_profile_rate(p, "rate.r", &r, &err), CM_OK);
    ck_assert_int_eq(cm_profile_rate(p, "rate.s", &s2, &err), CM_OK);
    ck_assert_double_eq(r, 3);
    ck_assert_double_eq(s2, 1);
    const cm_point *pts;
    size_t n;
    cm_profile_points(p, "joint.j", &pts, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert(pts[0].w == 3 && pts[1].x == 4 && pts[1].w == 6);
    cm_profile_free(p);
    /* one profile pools to itself */
    ck_assert_int_eq(cm_profile_pool(ab, 1, &p, &err), CM_OK);
    ck_assert_int_eq(cm_profile_dist(p, "x", &x, &err), CM_OK);
    ck_assert(x->n == 2 && x->w[1] == 2 && x->w_inf == 1);
    cm_profile_free(p);
    cm_profile *c = profile_of("quantity,lo,hi,value\nx,0.5,1.5,1\n");
    const cm_profile *ac[2] = {a, c};
    ck_assert_int_eq(cm_profile_pool(ac, 2, &p, &err), CM_EINPUT);
    ck_assert_ptr_null(p);
    ck_assert_ptr_nonnull(strstr(err.msg, "pooling profiles"));
    cm_profile_free(a);
    cm_profile_free(b);
    cm_profile_free(c);
}
END_TEST

START_TEST(profile_malformed)
{
    const char *hdr = "quantity,lo,hi,value\n";
    char buf[512];
#define BAD(body, where, what)                              \
    do {                                                    \
        snprintf(buf, sizeof buf, "%s%s", hdr, body);       \
        assert_bad(buf, where, what);                       \
    } while (0)
    BAD("l1.reuse_time,0,10,1\nl1.reuse_time,abc,20,1\n", "bad.csv:3:15:",
        "expected a number");
    BAD("rate.fences,1,,0.5\n", "bad.csv:2:13:", "leaves lo and hi empty");
    BAD("l1.reuse_time,0,10,1\nl1.reuse_time,5,20,1\n", "bad.csv:3:15:",
        "increasing order");
    BAD("rate.fences,,,1\nrate.fences,,,2\n", "bad.csv:3:1:", "given twice");
    BAD("l1.reuse_time,0,10,-1\n", "bad.csv:2:20:", ">= 0");
    BAD("l1.reuse_time,-3,10,1\n", "bad.csv:2:15:", ">= 0");
    BAD(",0,10,1\n", "bad.csv:2:1:", "empty name");
    BAD("l1.reuse_time,0,10\n", "bad.csv:2:1:", "fields");
    /* a joint distribution's point has finite coordinates and a weight */
    BAD("joint.x,inf,3,1\n", "bad.csv:2:9:", "finite times");
    BAD("joint.x,2,inf,1\n", "bad.csv:2:11:", "finite times");
    BAD("joint.x,2,3,-1\n", "bad.csv:2:13:", ">= 0");
#undef BAD
    assert_bad("quantity,lo,value\nx,1,2\n", "bad.csv:1:1:",
               "missing column 'hi'");
    /* inf is accepted in any case, and lo is free on an infinity row */
    const char *ok = "quantity,lo,hi,value\nx,0,1,1\nx,5,Infinity,1\n";
    cm_profile *p;
    cm_err err = {0};
    ck_assert_msg(cm_profile_read_buffer("ok.csv", ok, strlen(ok), &p, &err)
                  == CM_OK, "%s", err.msg);
    const cm_dist *d;
    ck_assert_int_eq(cm_profile_dist(p, "x", &d, &err), CM_OK);
    ck_assert_double_eq(cm_dist_mass_inf(d), 0.5);
    cm_profile_free(p);
}
END_TEST

/* The walk over every bin that cm_dist_cdf and cm_dist_mean_excess_below
 * made before their prefix sums: the references for them. */
static double walk_cdf(const cm_dist *d, double x)
{
    double s = 0;
    for (size_t i = 0; i < d->n && d->lo[i] < x; i++)
        s += d->w[i] * (x >= d->hi[i] ? 1 : (x - d->lo[i]) /
                                             (d->hi[i] - d->lo[i]));
    return s / d->w_total;
}

static double walk_excess(const cm_dist *d, double x)
{
    double s = 0;
    for (size_t i = 0; i < d->n && d->lo[i] < x; i++) {
        double lo = d->lo[i], hi = d->hi[i];
        s += d->w[i] * (x >= hi ? x - 0.5 * (lo + hi)
                                : (x - lo) * (x - lo) / (2 * (hi - lo)));
    }
    return s / d->w_total;
}

/* At the bins' edges, their middles, between and beyond them: the cdf
 * equal to the walk's to the bit (the same sums in the same order), the
 * mean excess to 1e-13 of x (W x - W mid against a sum of w (x - mid)),
 * and its walked search (_near, from any start) the same as its own. */
static void check_prefix_at(const cm_dist *d, gsl_rng *r)
{
    double top = d->n ? d->hi[d->n - 1] : 1;
    double xs[8 + 3 * 64];
    size_t nx = 0;
    xs[nx++] = -1;
    xs[nx++] = 0;
    xs[nx++] = top;
    xs[nx++] = 2 * top + 1;
    xs[nx++] = 1e9;
    for (size_t i = 0; i < d->n && nx + 3 <= sizeof xs / sizeof *xs; i++) {
        xs[nx++] = d->lo[i];
        xs[nx++] = d->hi[i];
        xs[nx++] = d->lo[i] + gsl_rng_uniform(r) * (d->hi[i] - d->lo[i]);
    }
    for (int k = 0; k < 3; k++) xs[nx++] = gsl_rng_uniform(r) * 1.2 * top;
    size_t at = gsl_rng_uniform_int(r, d->n + 3);
    for (size_t k = 0; k < nx; k++) {
        double x = xs[k];
        ck_assert_msg(cm_dist_cdf(d, x) == walk_cdf(d, x),
                      "cdf at %g: %.17g, walk %.17g", x, cm_dist_cdf(d, x),
                      walk_cdf(d, x));
        double m = cm_dist_mean_excess_below(d, x), ref = walk_excess(d, x);
        ck_assert_msg(fabs(m - ref) <= 1e-13 * fmax(1, fabs(x)),
                      "mean excess at %g: %.17g, walk %.17g", x, m, ref);
        /* the walked search from wherever the last one stopped */
        ck_assert(cm_dist_mean_excess_below_near(d, x, &at) == m);
    }
    ck_assert_double_eq(cm_dist_cdf(d, INFINITY), 1);
    ck_assert(cm_dist_cdf(d, NAN) == walk_cdf(d, NAN));
    ck_assert_double_eq(cm_dist_mean_excess_below(d, NAN), 0);
}

START_TEST(dist_prefix_matches_walk)
{
    gsl_rng *r = dg_rng(26);
    cm_err err = {0};
    for (int t = 0; t < 200; t++) { /* random, gaps, a mass at inf */
        cm_dist d, c;
        dg_random(&d, r, t % 2 ? 100 : 5e4);
        ck_assert_int_eq(cm_dist_copy(&c, &d, &err), CM_OK);
        check_prefix_at(&d, r);
        check_prefix_at(&c, r);
        cm_dist_free(&d);
        cm_dist_free(&c);
    }
    /* many log-spaced bins, as profiles have, some of weight 0 */
    cm_dist d;
    cm_dist_init(&d);
    for (int k = 0; k < 60; k++) {
        double lo = pow(2, k / 4.0), hi = pow(2, (k + 1) / 4.0);
        double w = k % 7 == 3 ? 0 : gsl_rng_uniform(r) * 1000;
        ck_assert_int_eq(cm_dist_add_bin(&d, lo, hi, w, &err), CM_OK);
    }
    check_prefix_at(&d, r);
    /* samples added afterwards move the sums above their bin */
    for (int k = 0; k < 500; k++)
        ck_assert_int_eq(cm_dist_add_sample(&d, 1 + gsl_rng_uniform(r) * 3e4,
                                            gsl_rng_uniform(r), &err),
                         CM_OK);
    check_prefix_at(&d, r);
    cm_dist_free(&d);
    /* only a mass at infinity; one bin; one bin of weight 0 */
    cm_dist_init(&d);
    ck_assert_int_eq(cm_dist_add_bin(&d, 0, INFINITY, 2, &err), CM_OK);
    check_prefix_at(&d, r);
    ck_assert_int_eq(cm_dist_add_bin(&d, 3, 7, 0, &err), CM_OK);
    check_prefix_at(&d, r);
    ck_assert_int_eq(cm_dist_add_bin(&d, 7, 8, 5, &err), CM_OK);
    check_prefix_at(&d, r);
    cm_dist_free(&d);
    gsl_rng_free(r);
}
END_TEST

Suite *suite_dist(void)
{
    Suite *s = suite_create("dist");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, dist_exponential_closed_forms);
    tcase_add_test(tc, dist_one_bin_exact);
    tcase_add_test(tc, dist_prefix_matches_walk);
    tcase_add_test(tc, dist_cdf_density_monte_carlo);
    tcase_add_test(tc, dist_expect_quadrature);
    tcase_add_test(tc, dist_bad_input);
    tcase_add_test(tc, profile_round_trip);
    tcase_add_test(tc, profile_malformed);
    tcase_add_test(tc, profile_joint_round_trip);
    tcase_add_test(tc, profile_pool_replicates);
    suite_add_tcase(s, tc);
    return s;
}
