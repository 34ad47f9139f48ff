/* check_queue.c - the queueing solvers against independent references.
 *
 * The references are computed here by other means than the solvers use:
 * direct sums of the closed-form state probabilities in long double (with
 * lgammal, normalised by the largest term), Buzen's convolution for the
 * closed networks, numerical integration for real-c Erlang-B, and exact
 * rational values for the smallest cases. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_math.h>

#include "solvers/queue.h"
#include "tests/testutil.h"

#define TOL 1e-9

/* ---- long double references ------------------------------------------- */

static double ref_erlang_b(unsigned long c, double a)
{
    long double *p = malloc((c + 1) * sizeof *p);
    ck_assert_ptr_nonnull(p);
    tu_ref_pmf(c, c, 0, a, p);
    double b = (double)p[c];
    free(p);
    return b;
}

/* Erlang-C from the M/M/c closed form: terms a^k/k! for k < c plus the
 * geometric tail a^c/c! * c/(c-a). */
static double ref_erlang_c(unsigned long c, double a)
{
    long double mx = -INFINITY, s = 0, tail;
    long double ltail = tu_ref_logw(c, c, 0, a) + logl((long double)c / (c - a));
    mx = ltail;
    for (unsigned long k = 0; k < c; k++)
        if (tu_ref_logw(k, c, 0, a) > mx) mx = tu_ref_logw(k, c, 0, a);
    for (unsigned long k = 0; k < c; k++) s += expl(tu_ref_logw(k, c, 0, a) - mx);
    tail = expl(ltail - mx);
    return (double)(tail / (s + tail));
}

/* Engset time congestion from the binomial sums. */
static double ref_engset(unsigned long c, unsigned long N, double beta)
{
    long double mx = -INFINITY, s = 0, l[256];
    ck_assert_uint_lt(c, 256);
    for (unsigned long k = 0; k <= c; k++) {
        l[k] = lgammal(N + 1.0L) - lgammal(k + 1.0L) - lgammal(N - k + 1.0L) +
               k * logl(beta);
        if (l[k] > mx) mx = l[k];
    }
    for (unsigned long k = 0; k <= c; k++) s += expl(l[k] - mx);
    return (double)(expl(l[c] - mx) / s);
}

typedef struct ref_metrics {
    double p_block, p_wait, throughput, mean_n, mean_q, mean_busy, mean_wait;
} ref_metrics;

/* Metrics of M/M/c/K (sources 0) or M/M/c/K/N from the pmf: throughput by
 * flow balance (mu x busy servers), mean_wait by Little's law, p_block for
 * finite sources as p(K) of the system with one source fewer (the arrival
 * theorem, taken literally). */
static ref_metrics ref_bd(unsigned long c, unsigned long K,
                          unsigned long sources, double lambda, double mu,
                          long double *p)
{
    tu_ref_pmf(c, K, sources, (long double)lambda / mu, p);
    long double n = 0, q = 0, busy = 0, wait = 0, accept = 0;
    for (unsigned long i = 0; i <= K; i++) {
        long double arr = sources ? (long double)(sources - i) : 1.0L;
        n += i * p[i];
        q += (i > c ? i - c : 0) * p[i];
        busy += (i < c ? i : c) * p[i];
        if (i < K) accept += arr * p[i];
        if (i >= c && i < K) wait += arr * p[i];
    }
    ref_metrics r;
    r.throughput = (double)(mu * busy);
    r.mean_n = (double)n;
    r.mean_q = (double)q;
    r.mean_busy = (double)busy;
    r.mean_wait = (double)(q / (mu * busy));
    r.p_wait = (double)(wait / accept);
    if (sources && K == sources) {
        r.p_block = 0.0; /* N-1 sources can never fill N places */
    } else if (sources) {
        long double *p1 = malloc((K + 1) * sizeof *p1);
        ck_assert_ptr_nonnull(p1);
        tu_ref_pmf(c, K, sources - 1, (long double)lambda / mu, p1);
        r.p_block = (double)p1[K];
        free(p1);
    } else {
        r.p_block = (double)p[K];
    }
    return r;
}

static void assert_metrics(const cm_queue_metrics *m, const ref_metrics *r)
{
    ck_assert_close(m->p_block, r->p_block, TOL);
    ck_assert_close(m->p_wait, r->p_wait, TOL);
    ck_assert_close(m->throughput, r->throughput, TOL);
    ck_assert_close(m->mean_n, r->mean_n, TOL);
    ck_assert_close(m->mean_q, r->mean_q, TOL);
    ck_assert_close(m->mean_busy, r->mean_busy, TOL);
    ck_assert_close(m->mean_wait, r->mean_wait, TOL);
}

/* Little's law and flow balance, each side computed differently. */
static void assert_little(const cm_queue_metrics *m, unsigned long c,
                          double mu)
{
    ck_assert_close(m->mean_n, m->throughput * m->mean_resp, TOL);
    ck_assert_close(m->mean_q, m->throughput * m->mean_wait, TOL);
    ck_assert_close(m->throughput, mu * m->mean_busy, TOL);
    ck_assert_close(m->util, m->mean_busy / (double)c, TOL);
    ck_assert_close(m->mean_resp, m->mean_wait + 1.0 / mu, TOL);
}

static double pmf_sum(const double *p, unsigned long K)
{
    long double s = 0;
    for (unsigned long n = 0; n <= K; n++) {
        ck_assert(isfinite(p[n]) && p[n] >= 0);
        s += p[n];
    }
    return (double)s;
}

#define CK_OK(call)                                                       \
    do {                                                                  \
        cm_err e_ = {0};                                                  \
        cm_status rc_ = (call);                                           \
        ck_assert_msg(rc_ == CM_OK, "%s failed: %s", #call, e_.msg);      \
    } while (0)
/* Calls must pass &e_ as their error argument inside CK_OK. */
#define ERR (&e_)

/* ---- Erlang-B --------------------------------------------------------- */

START_TEST(erlang_b_exact_values)
{
    double b;
    CK_OK(cm_erlang_b(0, 3.0, &b, ERR));
    ck_assert_close(b, 1.0, 1e-15);
    CK_OK(cm_erlang_b(1, 1.0, &b, ERR));
    ck_assert_close(b, 0.5, 1e-15);
    CK_OK(cm_erlang_b(2, 1.0, &b, ERR));
    ck_assert_close(b, 0.2, 1e-15);
    CK_OK(cm_erlang_b(3, 1.0, &b, ERR));
    ck_assert_close(b, 1.0 / 16, 1e-15);
    CK_OK(cm_erlang_b(2, 2.0, &b, ERR));
    ck_assert_close(b, 0.4, 1e-15);
    CK_OK(cm_erlang_b(4, 0.0, &b, ERR));
    ck_assert(b == 0.0);
    /* Published Erlang-B tables: 10 trunks at 5 Erlangs block 1.84 %;
     * 2 % grade of service with 10 trunks is 5.08 Erlangs. */
    CK_OK(cm_erlang_b(10, 5.0, &b, ERR));
    ck_assert_close(b, 0.018384, 1e-4);
    CK_OK(cm_erlang_b(10, 5.08, &b, ERR));
    ck_assert_close(b, 0.02, 1e-2);
}
END_TEST

START_TEST(erlang_b_against_direct_sum)
{
    static const unsigned long cs[] = {1, 2, 3, 5, 10, 17, 32, 50};
    static const double fr[] = {0.01, 0.3, 0.8, 0.97, 1.0, 1.2, 2.5, 10};
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        for (size_t j = 0; j < sizeof fr / sizeof fr[0]; j++) {
            double a = cs[i] * fr[j], b, br;
            CK_OK(cm_erlang_b(cs[i], a, &b, ERR));
            ck_assert_close(b, ref_erlang_b(cs[i], a), TOL);
            CK_OK(cm_erlang_b_real((double)cs[i], a, &br, ERR));
            ck_assert_close(br, ref_erlang_b(cs[i], a), TOL);
        }
}
END_TEST

START_TEST(erlang_b_real_matches_recursion)
{
    static const double cs[] = {1, 4, 30, 128, 1000, 20000};
    static const double fr[] = {0.001, 0.2, 0.9, 0.999, 1.0, 1.001, 1.05,
                                1.5,   4,   50,  1e3};
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        for (size_t j = 0; j < sizeof fr / sizeof fr[0]; j++) {
            double a = cs[i] * fr[j], b, br;
            CK_OK(cm_erlang_b((unsigned long)cs[i], a, &b, ERR));
            CK_OK(cm_erlang_b_real(cs[i], a, &br, ERR));
            if (b < 1e-280) /* underflow range: both essentially zero */
                ck_assert(br < 1e-270);
            else
                ck_assert_close(br, b, TOL);
        }
}
END_TEST

typedef struct ib_arg { double c, a; } ib_arg;

static double ib_integrand(double t, void *p)
{
    const ib_arg *x = p;
    return exp(-t + x->c * log1p(t / x->a));
}

/* 1/B(c,a) = int_0^inf e^-t (1 + t/a)^c dt, by GSL's adaptive quadrature. */
static double ref_erlang_b_integral(double c, double a)
{
    gsl_set_error_handler_off();
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
    ck_assert_ptr_nonnull(w);
    ib_arg arg = {c, a};
    gsl_function f = {ib_integrand, &arg};
    double r, abserr;
    ck_assert_int_eq(gsl_integration_qagiu(&f, 0, 0, 1e-13, 1000, w, &r,
                                           &abserr),
                     0);
    gsl_integration_workspace_free(w);
    return 1.0 / r;
}

START_TEST(erlang_b_real_fractional)
{
    static const ib_arg cases[] = {{0.5, 0.3}, {2.5, 3.0}, {7.3, 4.1},
                                   {12.75, 15.0}, {0.1, 20.0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double b;
        CK_OK(cm_erlang_b_real(cases[i].c, cases[i].a, &b, ERR));
        ck_assert_close(b, ref_erlang_b_integral(cases[i].c, cases[i].a),
                        TOL);
    }
    /* Strictly decreasing in c through the integers. */
    double prev = 2.0;
    for (double c = 8.0; c <= 12.0; c += 0.25) {
        double b;
        CK_OK(cm_erlang_b_real(c, 9.0, &b, ERR));
        ck_assert_double_lt(b, prev);
        prev = b;
    }
    double b;
    CK_OK(cm_erlang_b_real(0.0, 5.0, &b, ERR));
    ck_assert(b == 1.0);
    CK_OK(cm_erlang_b_real(3.5, 0.0, &b, ERR));
    ck_assert(b == 0.0);
}
END_TEST

START_TEST(erlang_b_large_c_stable)
{
    const unsigned long c = 100000;
    static const double fr[] = {0.999, 1.0, 1.05};
    double prev = -1.0;
    for (size_t j = 0; j < 3; j++) {
        double a = c * fr[j], b, br;
        CK_OK(cm_erlang_b(c, a, &b, ERR));
        CK_OK(cm_erlang_b_real((double)c, a, &br, ERR));
        ck_assert(isfinite(b) && b > 0 && b < 1);
        ck_assert_double_gt(b, prev);
        ck_assert_close(br, b, TOL);
        prev = b;
    }
    /* At a = c, B ~ sqrt(2 / (pi c)) (Jagerman): 2.5e-3. */
    double b;
    CK_OK(cm_erlang_b(c, (double)c, &b, ERR));
    ck_assert_close(b, sqrt(2.0 / (M_PI * c)), 1e-2);
    /* a = 1.05 c: B -> 1 - c/a as c grows. */
    CK_OK(cm_erlang_b(c, 1.05 * c, &b, ERR));
    ck_assert_close(b, 1.0 - 1.0 / 1.05, 1e-2);

    double pw;
    cm_queue_metrics m;
    CK_OK(cm_erlang_c(c, 0.999 * c, 1.0, &pw, &m, ERR));
    ck_assert(isfinite(pw) && pw > 0 && pw < 1);
    ck_assert(isfinite(m.mean_wait) && m.mean_wait > 0);
    assert_little(&m, c, 1.0);
}
END_TEST

/* ---- Erlang-C --------------------------------------------------------- */

START_TEST(erlang_c_values)
{
    double pw;
    cm_queue_metrics m;
    /* M/M/1: P(wait) = rho, Wq = rho / (mu - lambda). */
    CK_OK(cm_erlang_c(1, 0.6, 1.5, &pw, &m, ERR));
    ck_assert_close(pw, 0.4, 1e-15);
    ck_assert_close(m.mean_wait, 0.4 / 0.9, 1e-14);
    /* M/M/2 at a = 1: C = a^2 / (2 + a) = 1/3. */
    CK_OK(cm_erlang_c(2, 1.0, 1.0, &pw, NULL, ERR));
    ck_assert_close(pw, 1.0 / 3, 1e-15);
    static const unsigned long cs[] = {1, 2, 5, 16, 40, 50};
    static const double fr[] = {0.05, 0.5, 0.9, 0.99};
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        for (size_t j = 0; j < sizeof fr / sizeof fr[0]; j++) {
            double mu = 2.5, lambda = cs[i] * fr[j] * mu;
            CK_OK(cm_erlang_c(cs[i], lambda, mu, &pw, &m, ERR));
            ck_assert_close(pw, ref_erlang_c(cs[i], lambda / mu), TOL);
            ck_assert_close(m.mean_wait, pw / (cs[i] * mu - lambda), TOL);
            ck_assert(m.p_block == 0.0);
            assert_little(&m, cs[i], mu);
        }
}
END_TEST

/* M/M/c is M/M/c/K with K so large that the truncated tail is below 1e-16. */
START_TEST(erlang_c_is_mmck_limit)
{
    const unsigned long c = 8, K = 2000;
    double lambda = 5.0, mu = 1.0, pw;
    cm_queue_metrics mc, mk;
    CK_OK(cm_erlang_c(c, lambda, mu, &pw, &mc, ERR));
    CK_OK(cm_mmck_solve(c, K, lambda, mu, NULL, &mk, ERR));
    ck_assert_close(mk.p_wait, mc.p_wait, TOL);
    ck_assert_close(mk.mean_wait, mc.mean_wait, TOL);
    ck_assert_close(mk.mean_n, mc.mean_n, TOL);
    ck_assert_close(mk.mean_q, mc.mean_q, TOL);
}
END_TEST

/* ---- M/M/c/K ---------------------------------------------------------- */

/* The streamed distribution (cm_mmck_pmf_each) must be the pmf array bit
 * for bit, in order: collected here into an array of its own. */
typedef struct pmf_collect {
    double *p;
    unsigned long next, K;
} pmf_collect;

static cm_status collect(unsigned long n, double p, void *arg, cm_err *err)
{
    pmf_collect *c = arg;
    if (n != c->next || n > c->K)
        return cm_err_set(err, CM_EINTERNAL, "state %lu out of order", n);
    c->p[c->next++] = p;
    return CM_OK;
}

static cm_status stop_at_ten(unsigned long n, double p, void *arg,
                             cm_err *err)
{
    (void)p;
    (void)arg;
    return n == 10 ? cm_err_set(err, CM_EINPUT, "enough") : CM_OK;
}

START_TEST(pmf_stream_equals_pmf_array)
{
    /* Modes at 0, inside, at K; supports wider than a chunk (4096 states)
     * and ending at 1e-300 on both sides; rho exactly 1. */
    static const struct {
        unsigned long c, K, N;
        double lambda, mu;
    } cs[] = {{1, 10, 0, 0.5, 1.0},       {3, 3, 0, 2.0, 1.0},
              {1, 20000, 0, 0.9999, 1.0}, {1, 30000, 0, 1.0, 1.0},
              {1, 30000, 0, 1.0001, 1.0}, {50, 40000, 0, 49.0, 1.0},
              {4, 9000, 0, 3000.0, 1.0},  {2, 8193, 0, 2.0, 1.0},
              {3, 9000, 9000, 0.01, 0.05}, {1, 12000, 15000, 1e-3, 10.0}};
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        unsigned long K = cs[i].K;
        double *arr = malloc((K + 1) * sizeof *arr);
        double *str = malloc((K + 1) * sizeof *str);
        ck_assert(arr && str);
        pmf_collect c = {str, 0, K};
        if (cs[i].N) {
            CK_OK(cm_mmckn_solve(cs[i].c, K, cs[i].N, cs[i].lambda, cs[i].mu,
                                 arr, NULL, ERR));
            CK_OK(cm_mmckn_pmf_each(cs[i].c, K, cs[i].N, cs[i].lambda,
                                    cs[i].mu, collect, &c, ERR));
        } else {
            CK_OK(cm_mmck_solve(cs[i].c, K, cs[i].lambda, cs[i].mu, arr,
                                NULL, ERR));
            CK_OK(cm_mmck_pmf_each(cs[i].c, K, cs[i].lambda, cs[i].mu,
                                   collect, &c, ERR));
        }
        ck_assert_uint_eq(c.next, K + 1);
        ck_assert_msg(memcmp(arr, str, (K + 1) * sizeof *arr) == 0,
                      "case %zu differs", i);
        free(arr);
        free(str);
    }
    /* bad input is refused before the first state; emit's error stops */
    cm_err err = {0};
    ck_assert_int_eq(cm_mmck_pmf_each(0, 5, 1, 1, collect, NULL, &err),
                     CM_EINPUT);
    ck_assert_int_eq(cm_mmck_pmf_each(1, 10, 1e308, 1e-300, collect, NULL,
                                      &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "overflows"));
    ck_assert_int_eq(cm_mmck_pmf_each(1, 100, 0.5, 1, stop_at_ten, NULL,
                                      &err), CM_EINPUT);
    ck_assert_str_eq(err.msg, "enough");
}
END_TEST

START_TEST(mmck_against_direct_sum)
{
    static const struct { unsigned long c, K; double lambda, mu; } cs[] = {
        {1, 1, 0.5, 1.0},  {1, 10, 0.9, 1.0}, {1, 10, 3.0, 1.0},
        {3, 3, 2.0, 1.0},  {4, 12, 3.9, 1.0}, {10, 40, 12.0, 1.3},
        {50, 50, 45.0, 1.0}, {20, 200, 0.5, 0.01}, {7, 30, 7.0, 1.0}};
    double pmf[201];
    long double ref[201];
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        cm_queue_metrics m;
        CK_OK(cm_mmck_solve(cs[i].c, cs[i].K, cs[i].lambda, cs[i].mu, pmf,
                            &m, ERR));
        ref_metrics r =
            ref_bd(cs[i].c, cs[i].K, 0, cs[i].lambda, cs[i].mu, ref);
        for (unsigned long n = 0; n <= cs[i].K; n++)
            ck_assert_close(pmf[n], (double)ref[n], TOL);
        ck_assert_close(pmf_sum(pmf, cs[i].K), 1.0, 1e-13);
        assert_metrics(&m, &r);
        assert_little(&m, cs[i].c, cs[i].mu);
    }
}
END_TEST

START_TEST(mmck_loss_system_is_erlang_b)
{
    for (unsigned long c = 1; c <= 40; c += 13) {
        cm_queue_metrics m;
        double b;
        CK_OK(cm_mmck_solve(c, c, 0.8 * c, 1.0, NULL, &m, ERR));
        CK_OK(cm_erlang_b(c, 0.8 * c, &b, ERR));
        ck_assert_close(m.p_block, b, TOL);
        ck_assert_close(m.throughput, 0.8 * c * (1 - b), TOL);
        ck_assert(m.p_wait == 0.0 && m.mean_wait == 0.0);
    }
}
END_TEST

START_TEST(mmck_large_stable)
{
    const unsigned long c = 100000, K = 300000;
    static const double fr[] = {0.999, 1.0, 1.05};
    double *pmf = malloc((K + 1) * sizeof *pmf), prev = -1;
    ck_assert_ptr_nonnull(pmf);
    for (size_t j = 0; j < 3; j++) {
        cm_queue_metrics m;
        CK_OK(cm_mmck_solve(c, K, fr[j] * c, 1.0, pmf, &m, ERR));
        ck_assert_close(pmf_sum(pmf, K), 1.0, 1e-12);
        ck_assert(isfinite(m.p_block) && m.p_block >= 0 && m.p_block <= 1);
        ck_assert_double_ge(m.p_block, prev);
        ck_assert(isfinite(m.mean_n) && isfinite(m.mean_wait));
        assert_little(&m, c, 1.0);
        prev = m.p_block;
    }
    /* Overloaded with room for 2c more: nearly all the excess is lost. */
    ck_assert_close(prev, 1.0 - 1.0 / 1.05, 1e-9);
    free(pmf);
}
END_TEST

/* ---- Engset and M/M/c/K/N --------------------------------------------- */

START_TEST(engset_against_direct_sum)
{
    static const struct { unsigned long c, N; double beta; } cs[] = {
        {1, 1, 0.7}, {1, 5, 0.2}, {3, 10, 0.5},
        {10, 20, 1.5}, {10, 100, 0.08}, {50, 60, 3.0}};
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        double tc, cc;
        CK_OK(cm_engset(cs[i].c, cs[i].N, cs[i].beta, &tc, &cc, ERR));
        ck_assert_close(tc, ref_engset(cs[i].c, cs[i].N, cs[i].beta), TOL);
        if (cs[i].c < cs[i].N)
            ck_assert_close(cc, ref_engset(cs[i].c, cs[i].N - 1, cs[i].beta),
                            TOL);
        else
            ck_assert(cc == 0.0);
        /* Call congestion is below time congestion for finite sources. */
        ck_assert_double_lt(cc, tc);
        /* ... and equals the M/M/c/c/N blocking of an arrival. */
        cm_queue_metrics m;
        double pmf[61];
        CK_OK(cm_mmckn_solve(cs[i].c, cs[i].c, cs[i].N, cs[i].beta, 1.0, pmf,
                             &m, ERR));
        ck_assert_close(m.p_block, cc, TOL);
        ck_assert_close(pmf[cs[i].c], tc, TOL);
    }
}
END_TEST

START_TEST(engset_tends_to_erlang_b)
{
    const unsigned long c = 10;
    const double a = 8.0;
    double b, prev_err = INFINITY;
    CK_OK(cm_erlang_b(c, a, &b, ERR));
    for (unsigned long N = 100; N <= 10000000; N *= 10) {
        double tc, cc;
        CK_OK(cm_engset(c, N, a / N, &tc, &cc, ERR));
        double e = fabs(cc - b) / b;
        ck_assert_double_lt(e, prev_err);
        prev_err = e;
    }
    ck_assert_double_lt(prev_err, 1e-5);
}
END_TEST

START_TEST(mmckn_against_direct_sum)
{
    static const struct { unsigned long c, K, N; double lambda, mu; } cs[] = {
        {1, 1, 1, 0.5, 1.0},    {1, 5, 5, 0.3, 1.0},   {1, 3, 10, 0.2, 1.0},
        {2, 6, 6, 1.0, 1.0},    {4, 10, 30, 0.1, 0.7}, {8, 8, 16, 2.0, 1.0},
        {32, 48, 48, 0.9, 1.0}, {10, 60, 120, 0.05, 0.02}};
    double pmf[61];
    long double ref[61];
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        cm_queue_metrics m;
        CK_OK(cm_mmckn_solve(cs[i].c, cs[i].K, cs[i].N, cs[i].lambda,
                             cs[i].mu, pmf, &m, ERR));
        ref_metrics r = ref_bd(cs[i].c, cs[i].K, cs[i].N, cs[i].lambda,
                               cs[i].mu, ref);
        for (unsigned long n = 0; n <= cs[i].K; n++)
            ck_assert_close(pmf[n], (double)ref[n], TOL);
        ck_assert_close(pmf_sum(pmf, cs[i].K), 1.0, 1e-13);
        assert_metrics(&m, &r);
        assert_little(&m, cs[i].c, cs[i].mu);
        /* The hot path without a pmf gives the very same figures. */
        cm_queue_metrics m2;
        CK_OK(cm_mmckn_solve(cs[i].c, cs[i].K, cs[i].N, cs[i].lambda,
                             cs[i].mu, NULL, &m2, ERR));
        ck_assert(memcmp(&m, &m2, sizeof m) == 0);
    }
}
END_TEST

START_TEST(mmckn_tends_to_mmck)
{
    const unsigned long c = 4, K = 20;
    const double lambda = 3.5, mu = 1.0;
    cm_queue_metrics ref, m;
    CK_OK(cm_mmck_solve(c, K, lambda, mu, NULL, &ref, ERR));
    double prev_err = INFINITY;
    for (unsigned long N = 100; N <= 100000000; N *= 10) {
        CK_OK(cm_mmckn_solve(c, K, N, lambda / N, mu, NULL, &m, ERR));
        double e = fabs(m.p_block - ref.p_block) / ref.p_block +
                   fabs(m.mean_n - ref.mean_n) / ref.mean_n;
        ck_assert_double_lt(e, prev_err);
        prev_err = e;
    }
    ck_assert_double_lt(prev_err, 1e-5);
}
END_TEST

START_TEST(mmckn_large_stable)
{
    const unsigned long N = 100000, c = 1000, K = 50000;
    double *pmf = malloc((K + 1) * sizeof *pmf);
    ck_assert_ptr_nonnull(pmf);
    static const double lam[] = {1e-4, 0.01, 0.0105, 1.0, 100.0};
    double prev = -1;
    for (size_t j = 0; j < sizeof lam / sizeof lam[0]; j++) {
        cm_queue_metrics m;
        CK_OK(cm_mmckn_solve(c, K, N, lam[j], 1.0, pmf, &m, ERR));
        ck_assert_close(pmf_sum(pmf, K), 1.0, 1e-12);
        ck_assert(isfinite(m.p_block) && m.p_block >= 0 && m.p_block <= 1);
        ck_assert_double_ge(m.p_block, prev);
        assert_little(&m, c, 1.0);
        prev = m.p_block;
    }
    /* c = K = N: nobody is ever blocked or waits. */
    cm_queue_metrics m;
    CK_OK(cm_mmckn_solve(N, N, N, 3.0, 1.0, NULL, &m, ERR));
    ck_assert(m.p_block == 0.0 && m.p_wait == 0.0);
    ck_assert_close(m.mean_n, N * 0.75, TOL);
    free(pmf);
}
END_TEST

/* ---- M/G/1 ------------------------------------------------------------ */

START_TEST(mg1_values)
{
    double wd, wg, wm;
    cm_queue_metrics m;
    /* M/D/1: Lq = rho^2 / (2 (1 - rho)). */
    CK_OK(cm_md1_wait(0.8, 1.0, &wd, ERR));
    ck_assert_close(0.8 * wd, 0.64 / 0.4, 1e-14);
    /* M/G/1 with scv 1 is M/M/1. */
    CK_OK(cm_mg1_wait(0.3, 2.0, 1.0, &wg, ERR));
    CK_OK(cm_erlang_c(1, 0.3, 0.5, NULL, &m, ERR));
    ck_assert_close(wg, m.mean_wait, 1e-14);
    /* Wq is linear in 1 + scv. */
    CK_OK(cm_mg1_wait(0.3, 2.0, 3.0, &wm, ERR));
    ck_assert_close(wm, 2.0 * wg, 1e-14);
    CK_OK(cm_mg1_wait(0.0, 2.0, 1.0, &wm, ERR));
    ck_assert(wm == 0.0);
}
END_TEST

/* Finite inputs whose load or wait overflows are the user's input out of
 * the model's domain (exit 2), not NaN or inf with exit 0; and Engset's
 * loss tends to 1, not inf/inf, as the load per source grows. */
START_TEST(overflowing_loads_are_bad_input)
{
    cm_err err = {0};
    cm_queue_metrics m;
    double w, tc, cc;
    ck_assert_int_eq(cm_mmck_solve(1, 10, 1e308, 1e-300, NULL, &m, &err),
                     CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "overflows"));
    ck_assert_int_eq(cm_mmckn_solve(1, 10, 100, 1e308, 1e-10, NULL, &m,
                                    &err), CM_EINPUT);
    ck_assert_int_eq(cm_erlang_c(2, 1e300, 1e-300, &w, &m, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "overflows"));
    ck_assert_int_eq(cm_mg1_wait(1e-300, 1e299, 1e300, &w, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "mean wait overflows"));
    CK_OK(cm_engset(5, 10, 1e308, &tc, &cc, ERR));
    ck_assert(tc == 1.0 && cc == 1.0);
}
END_TEST

/* ---- MVA -------------------------------------------------------------- */

/* Buzen's convolution in long double: G(n) over stations, a queue station
 * contributing D^j and a delay station D^j / j!. */
static void ref_buzen(const cm_mva_station *st, size_t n, unsigned long N,
                      long double *G)
{
    for (unsigned long j = 0; j <= N; j++) G[j] = j == 0;
    for (size_t k = 0; k < n; k++)
        for (unsigned long j = N + 1; j-- > 0;) {
            long double s = 0, f = 1;
            for (unsigned long i = 0; i <= j; i++) {
                s += f * G[j - i];
                f *= st[k].demand;
                if (st[k].kind == CM_MVA_DELAY) f /= (long double)(i + 1);
            }
            G[j] = s;
        }
}

START_TEST(mva_two_stations_by_hand)
{
    cm_mva_station st[2] = {{"a", CM_MVA_QUEUE, 1.0},
                            {"b", CM_MVA_QUEUE, 2.0}};
    double q[2], r[2], u[2];
    cm_mva_result res = {0, 0, q, r, u};
    /* N=1: X = 1/3, Q = (1/3, 2/3).  N=2: R = (4/3, 10/3), X = 3/7. */
    CK_OK(cm_mva_solve(st, 2, 2, &res, ERR));
    ck_assert_close(res.throughput, 3.0 / 7, 1e-15);
    ck_assert_close(res.response, 14.0 / 3, 1e-15);
    ck_assert_close(q[0], 4.0 / 7, 1e-15);
    ck_assert_close(q[1], 10.0 / 7, 1e-15);
    ck_assert_close(r[1], 10.0 / 3, 1e-15);
    ck_assert_close(u[0], 3.0 / 7, 1e-15);
    ck_assert_close(u[1], 6.0 / 7, 1e-15);
}
END_TEST

START_TEST(mva_against_convolution)
{
    cm_mva_station st[4] = {{"cpu", CM_MVA_QUEUE, 0.05},
                            {"disk", CM_MVA_QUEUE, 0.08},
                            {"think", CM_MVA_DELAY, 1.5},
                            {"net", CM_MVA_QUEUE, 0.02}};
    double q[4], r[4], u[4];
    long double G[101];
    for (unsigned long N = 1; N <= 100; N += 33) {
        cm_mva_result res = {0, 0, q, r, u};
        CK_OK(cm_mva_solve(st, 4, N, &res, ERR));
        ref_buzen(st, 4, N, G);
        double x = (double)(G[N - 1] / G[N]);
        ck_assert_close(res.throughput, x, TOL);
        double total = 0;
        for (size_t k = 0; k < 4; k++) {
            long double qk = 0, dj = 1;
            if (st[k].kind == CM_MVA_DELAY) {
                qk = x * st[k].demand;
            } else {
                for (unsigned long j = 1; j <= N; j++) {
                    dj *= st[k].demand;
                    qk += dj * G[N - j] / G[N];
                }
            }
            ck_assert_close(q[k], (double)qk, TOL);
            ck_assert_close(u[k], x * st[k].demand, TOL);
            total += q[k];
        }
        /* Little's law over the whole cycle and per station. */
        ck_assert_close(total, (double)N, 1e-12);
        ck_assert_close(res.throughput * res.response, (double)N, 1e-12);
    }
}
END_TEST

START_TEST(mva_is_machine_repairman)
{
    const double lambda = 0.05, mu = 1.0;
    cm_mva_station st[2] = {{"server", CM_MVA_QUEUE, 1.0 / mu},
                            {"think", CM_MVA_DELAY, 1.0 / lambda}};
    double q[2], r[2], u[2];
    for (unsigned long N = 1; N <= 60; N += 7) {
        cm_mva_result res = {0, 0, q, r, u};
        cm_queue_metrics m;
        CK_OK(cm_mva_solve(st, 2, N, &res, ERR));
        CK_OK(cm_mmckn_solve(1, N, N, lambda, mu, NULL, &m, ERR));
        ck_assert_close(res.throughput, m.throughput, TOL);
        ck_assert_close(q[0], m.mean_n, TOL);
        ck_assert_close(r[0], m.mean_resp, TOL);
        ck_assert_close(u[0], m.util, TOL);
    }
}
END_TEST

/* ---- bad input -------------------------------------------------------- */

static void assert_einput(cm_status rc, const cm_err *e, const char *want)
{
    ck_assert_int_eq(rc, CM_EINPUT);
    ck_assert_int_eq(e->code, CM_EINPUT);
    ck_assert_msg(strstr(e->msg, want) != NULL, "'%s' lacks '%s'", e->msg,
                  want);
    ck_assert_ptr_null(strchr(e->msg, '\n'));
}

START_TEST(bad_inputs)
{
    cm_err e;
    double x, y;
    cm_queue_metrics m;
    assert_einput(cm_erlang_b(3, -1.0, &x, &e), &e, "load");
    assert_einput(cm_erlang_b(3, NAN, &x, &e), &e, "load");
    assert_einput(cm_erlang_b_real(-0.5, 1.0, &x, &e), &e, "servers");
    assert_einput(cm_erlang_b_real(2.0, INFINITY, &x, &e), &e, "load");
    assert_einput(cm_erlang_c(10, 12.0, 1.0, &x, &m, &e), &e,
                  "erlang-c: load 12 >= servers 10: the queue is unstable");
    assert_einput(cm_erlang_c(10, 10.0, 1.0, &x, &m, &e), &e, "unstable");
    assert_einput(cm_erlang_c(0, 1.0, 1.0, &x, &m, &e), &e, "servers");
    assert_einput(cm_erlang_c(2, 1.0, 0.0, &x, &m, &e), &e, "service");
    assert_einput(cm_mmck_solve(0, 5, 1, 1, NULL, &m, &e), &e, "servers");
    assert_einput(cm_mmck_solve(4, 3, 1, 1, NULL, &m, &e), &e, "capacity");
    assert_einput(cm_mmck_solve(2, 3, -1, 1, NULL, &m, &e), &e, "arrival");
    assert_einput(cm_mmck_solve(2, 3, 1, NAN, NULL, &m, &e), &e, "service");
    assert_einput(cm_mmckn_solve(2, 8, 5, 1, 1, NULL, &m, &e), &e,
                  "sources");
    assert_einput(cm_mmckn_solve(3, 2, 5, 1, 1, NULL, &m, &e), &e,
                  "capacity");
    assert_einput(cm_mmckn_solve(1, 2, 5, 0, 1, NULL, &m, &e), &e,
                  "arrival");
    assert_einput(cm_engset(5, 3, 0.1, &x, &y, &e), &e, "sources");
    assert_einput(cm_engset(0, 3, 0.1, &x, &y, &e), &e, "servers");
    assert_einput(cm_engset(2, 3, -0.1, &x, &y, &e), &e, "load");
    assert_einput(cm_md1_wait(1.0, 1.0, &x, &e), &e, "unstable");
    assert_einput(cm_mg1_wait(0.5, 1.0, -1.0, &x, &e), &e, "coefficient");
    assert_einput(cm_mg1_wait(0.5, 0.0, 1.0, &x, &e), &e, "service");
    assert_einput(cm_mg1_wait(-0.5, 1.0, 1.0, &x, &e), &e, "arrival");

    cm_mva_station st[2] = {{"a", CM_MVA_QUEUE, 1.0}, {"b", CM_MVA_DELAY, -2}};
    double q[2], r[2], u[2];
    cm_mva_result res = {0, 0, q, r, u};
    assert_einput(cm_mva_solve(st, 2, 3, &res, &e), &e, "station 'b'");
    assert_einput(cm_mva_solve(st, 0, 3, &res, &e), &e, "no stations");
    st[0].demand = st[1].demand = 0;
    assert_einput(cm_mva_solve(st, 2, 3, &res, &e), &e, "every demand");
    res.util = NULL;
    assert_einput(cm_mva_solve(st, 2, 3, &res, &e), &e, "arrays");
}
END_TEST

Suite *suite_queue(void)
{
    Suite *s = suite_create("queue");
    TCase *tc = tcase_create("solvers");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, erlang_b_exact_values);
    tcase_add_test(tc, erlang_b_against_direct_sum);
    tcase_add_test(tc, erlang_b_real_matches_recursion);
    tcase_add_test(tc, erlang_b_real_fractional);
    tcase_add_test(tc, erlang_b_large_c_stable);
    tcase_add_test(tc, erlang_c_values);
    tcase_add_test(tc, erlang_c_is_mmck_limit);
    tcase_add_test(tc, mmck_against_direct_sum);
    tcase_add_test(tc, pmf_stream_equals_pmf_array);
    tcase_add_test(tc, mmck_loss_system_is_erlang_b);
    tcase_add_test(tc, mmck_large_stable);
    tcase_add_test(tc, engset_against_direct_sum);
    tcase_add_test(tc, engset_tends_to_erlang_b);
    tcase_add_test(tc, mmckn_against_direct_sum);
    tcase_add_test(tc, mmckn_tends_to_mmck);
    tcase_add_test(tc, mmckn_large_stable);
    tcase_add_test(tc, mg1_values);
    tcase_add_test(tc, overflowing_loads_are_bad_input);
    tcase_add_test(tc, mva_two_stations_by_hand);
    tcase_add_test(tc, mva_against_convolution);
    tcase_add_test(tc, mva_is_machine_repairman);
    tcase_add_test(tc, bad_inputs);
    suite_add_tcase(s, tc);
    return s;
}
