/* birthdeath.c - M/M/c/K and finite-source M/M/c/K/N by their birth-death
 * balance equations.
 *
 * Both queues are birth-death chains on n = 0..K with death rate
 * mu min(n, c) and birth rate lambda_n = lambda (alpha - beta n):
 *     M/M/c/K     alpha = 1, beta = 0  (Poisson arrivals),
 *     M/M/c/K/N   alpha = N, beta = 1  (each idle source arrives at lambda),
 * so p(n) / p(n-1) = lambda_{n-1} / (mu min(n, c))   (Kleinrock, Queueing
 * Systems I, 3.1-3.8; Allen, 2nd ed., 5.2 and 5.4 on the machine repairman).
 * That ratio never increases with n, so the distribution is unimodal: we
 * find the mode m (the last n whose ratio is >= 1) by bisection, put t(m) = 1
 * and walk outward, every step multiplying by a ratio <= 1.  No factorial or
 * power is formed, nothing can overflow, and once a term falls below 1e-300
 * the rest are zero to double precision (they are smaller still and there
 * are at most K of them against a total >= 1).  One pass, O(K), no
 * allocation: this is the hot path of the MSHR model.  The streamed
 * distribution (cm_mmck_pmf_each) walks twice more, in memory independent
 * of K, for a calculator asked for K = 1e8.
 *
 * Figures, with S = sum t(n) and the arrivals in state n weighted by
 * lambda_n (PASTA for M/M/c/K; for M/M/c/K/N the arrival theorem says an
 * arrival sees the distribution of the system with N-1 sources, which is
 * lambda_n p(n) / sum lambda_j p(j)):
 *     p_block    = lambda_K p(K) / sum_n lambda_n p(n)
 *     throughput = sum_{n<K} lambda_n p(n)
 *     p_wait     = sum_{c<=n<K} lambda_n p(n) / throughput
 *     mean_wait  = sum_{c<=n<K} lambda_n p(n) (n-c+1) / (c mu throughput)
 * (an admitted arrival finding n >= c waits for n-c+1 service completions
 * at rate c mu, FCFS).  mean_n and mean_q come from the pmf, so Little's law
 * mean_q = throughput x mean_wait is a check, not a definition. */
#include <math.h>
#include <stdlib.h>

#include "solvers/queue.h"

typedef struct bd_chain {
    unsigned long c, K;
    double rho;          /* lambda / mu */
    double alpha, beta;  /* birth rate / lambda = alpha - beta n */
} bd_chain;

typedef struct bd_sums {
    double s0, sn, sq, sbusy; /* sum of t, n t, (n-c)+ t, min(n,c) t */
    double sarr;              /* sum over n <= K of birth(n) t */
    double swait, swaitlen;   /* c <= n < K: birth t, birth t (n-c+1) */
    double tK;
} bd_sums;

static inline double bd_birth(const bd_chain *ch, unsigned long n)
{
    return ch->alpha - ch->beta * (double)n;
}

static inline double bd_servers(const bd_chain *ch, unsigned long n)
{
    return (double)(n < ch->c ? n : ch->c);
}

static inline void bd_add(const bd_chain *ch, bd_sums *s, unsigned long n,
                          double t)
{
    double nd = (double)n, busy = bd_servers(ch, n), arr = bd_birth(ch, n) * t;
    s->s0 += t;
    s->sn += nd * t;
    s->sq += (nd - busy) * t;
    s->sbusy += busy * t;
    s->sarr += arr;
    if (n == ch->K) {
        s->tK = t;
    } else if (n >= ch->c) {
        s->swait += arr;
        s->swaitlen += arr * (nd - (double)ch->c + 1.0);
    }
}

/* p(n)/p(n-1) >= 1, for 1 <= n <= K. */
static inline int bd_rising(const bd_chain *ch, unsigned long n)
{
    return ch->rho * bd_birth(ch, n - 1) >= bd_servers(ch, n);
}

#define BD_TINY 1e-300

/* The last n whose ratio is >= 1 (0 when none is). */
static unsigned long bd_mode(const bd_chain *ch)
{
    unsigned long lo = 0, hi = ch->K; /* mode in [lo, hi] */
    while (lo < hi) {
        unsigned long mid = lo + (hi - lo + 1) / 2;
        if (bd_rising(ch, mid)) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* One step of each walk: t(n) from t(n-1), and t(n-1) from t(n). */
static inline double bd_up(const bd_chain *ch, unsigned long n, double t)
{
    return t * (ch->rho * bd_birth(ch, n - 1) / bd_servers(ch, n));
}

static inline double bd_down(const bd_chain *ch, unsigned long n, double t)
{
    return t * (bd_servers(ch, n) / (ch->rho * bd_birth(ch, n - 1)));
}

static void bd_solve(const bd_chain *ch, double *pmf, bd_sums *s)
{
    unsigned long m = bd_mode(ch), n;
    *s = (bd_sums){0};
    double t = 1.0;
    if (pmf) pmf[m] = t;
    bd_add(ch, s, m, t);
    for (n = m + 1; n <= ch->K && t >= BD_TINY; n++) {
        t = bd_up(ch, n, t);
        if (pmf) pmf[n] = t;
        bd_add(ch, s, n, t);
    }
    for (; pmf && n <= ch->K; n++) pmf[n] = 0.0;
    t = 1.0;
    for (n = m; n > 0 && t >= BD_TINY; n--) {
        t = bd_down(ch, n, t);
        if (pmf) pmf[n - 1] = t;
        bd_add(ch, s, n - 1, t);
    }
    for (; pmf && n > 0; n--) pmf[n - 1] = 0.0;
    if (pmf)
        for (n = 0; n <= ch->K; n++) pmf[n] /= s->s0;
}

static void bd_metrics(const bd_chain *ch, const bd_sums *s, double lambda,
                       double mu, cm_queue_metrics *m)
{
    double acc = s->sarr - bd_birth(ch, ch->K) * s->tK; /* x lambda / S */
    double c = (double)ch->c;
    m->p_block = bd_birth(ch, ch->K) * s->tK / s->sarr;
    m->throughput = lambda * acc / s->s0;
    m->p_wait = s->swait / acc;
    m->mean_wait = s->swaitlen / (acc * c * mu);
    m->mean_resp = m->mean_wait + 1.0 / mu;
    m->mean_n = s->sn / s->s0;
    m->mean_q = s->sq / s->s0;
    m->mean_busy = s->sbusy / s->s0;
    m->util = m->mean_busy / c;
}

static cm_status check_rates(const char *model, double lambda, double mu,
                             cm_err *err)
{
    if (!isfinite(lambda) || lambda <= 0)
        return cm_err_set(err, CM_EINPUT,
                          "%s: arrival rate must be a finite number > 0, "
                          "got %g", model, lambda);
    if (!isfinite(mu) || mu <= 0)
        return cm_err_set(err, CM_EINPUT,
                          "%s: service rate must be a finite number > 0, "
                          "got %g", model, mu);
    if (isinf(lambda / mu)) /* every ratio of the chain would be inf */
        return cm_err_set(err, CM_EINPUT,
                          "%s: the load arrival/service = %g/%g overflows",
                          model, lambda, mu);
    return CM_OK;
}

static cm_status check_places(const char *model, unsigned long c,
                              unsigned long K, cm_err *err)
{
    if (c == 0)
        return cm_err_set(err, CM_EINPUT, "%s: servers must be >= 1", model);
    if (K < c)
        return cm_err_set(err, CM_EINPUT,
                          "%s: capacity %lu < servers %lu (capacity counts "
                          "the places in service too)", model, K, c);
    return CM_OK;
}

static void bd_run(const bd_chain *ch, double lambda, double mu, double *pmf,
                   cm_queue_metrics *m)
{
    bd_sums s;
    bd_solve(ch, pmf, &s);
    if (m) bd_metrics(ch, &s, lambda, mu, m);
}

/* ---- the distribution, streamed ------------------------------------------
 * The same numbers as bd_solve's pmf, bit for bit, in increasing n, with
 * memory independent of K: above the mode the upward walk is already in
 * order; below it the downward walk runs again chunk by chunk from
 * checkpoints kept every BD_CHUNK states of a first pass, lowest chunk
 * first, each reversed from a buffer.  Zeros (the terms past 1e-300) need
 * no walk at all. */

#define BD_CHUNK 4096

static cm_status bd_emit_below(const bd_chain *ch, unsigned long m,
                               double s0, cm_pmf_fn emit, void *arg,
                               cm_err *err)
{
    /* First pass: where the walk stops (stop), and t at m - k BD_CHUNK. */
    size_t ncp = 0, cap = 0;
    double *cp = NULL, t = 1.0;
    unsigned long n;
    for (n = m;; n--) {
        if ((m - n) % BD_CHUNK == 0) {
            if (ncp == cap) {
                size_t nc = cap ? 2 * cap : 64;
                double *g = realloc(cp, nc * sizeof *g);
                if (!g) {
                    free(cp);
                    return cm_err_set(err, CM_EINTERNAL, "out of memory");
                }
                cp = g;
                cap = nc;
            }
            cp[ncp++] = t;
        }
        if (!(n > 0 && t >= BD_TINY)) break;
        t = bd_down(ch, n, t);
    }
    unsigned long stop = n; /* t(stop..m-1) walked; below it zeros */
    double *buf = malloc(BD_CHUNK * sizeof *buf);
    cm_status st = buf ? CM_OK : cm_err_set(err, CM_EINTERNAL,
                                            "out of memory");
    for (unsigned long z = 0; !st && z < stop; z++) st = emit(z, 0.0, arg, err);
    /* Chunk k walks down from its checkpoint t(top) to t(base): the same
     * steps from the same doubles as the first pass, so the same values. */
    for (size_t k = ncp; !st && k-- > 0;) {
        unsigned long top = m - (unsigned long)k * BD_CHUNK;
        unsigned long base = top - stop >= BD_CHUNK ? top - BD_CHUNK : stop;
        t = cp[k];
        for (unsigned long j = top; j > base; j--) {
            t = bd_down(ch, j, t);
            buf[j - 1 - base] = t;
        }
        for (unsigned long j = base; !st && j < top; j++)
            st = emit(j, buf[j - base] / s0, arg, err);
    }
    free(buf);
    free(cp);
    return st;
}

static cm_status bd_emit(const bd_chain *ch, cm_pmf_fn emit, void *arg,
                         cm_err *err)
{
    bd_sums s;
    bd_solve(ch, NULL, &s);
    unsigned long m = bd_mode(ch), n;
    cm_status st = bd_emit_below(ch, m, s.s0, emit, arg, err);
    double t = 1.0;
    if (!st) st = emit(m, t / s.s0, arg, err);
    for (n = m + 1; !st && n <= ch->K && t >= BD_TINY; n++) {
        t = bd_up(ch, n, t);
        st = emit(n, t / s.s0, arg, err);
    }
    for (; !st && n <= ch->K; n++) st = emit(n, 0.0, arg, err);
    return st;
}

cm_status cm_mmck_pmf_each(unsigned long c, unsigned long K, double lambda,
                           double mu, cm_pmf_fn emit, void *arg, cm_err *err)
{
    cm_status rc = check_places("mmck", c, K, err);
    if (!rc) rc = check_rates("mmck", lambda, mu, err);
    if (rc) return rc;
    bd_chain ch = {c, K, lambda / mu, 1.0, 0.0};
    return bd_emit(&ch, emit, arg, err);
}

cm_status cm_mmckn_pmf_each(unsigned long c, unsigned long K, unsigned long N,
                            double lambda, double mu, cm_pmf_fn emit,
                            void *arg, cm_err *err)
{
    cm_status rc = cm_mmckn_solve(c, K, N, lambda, mu, NULL, NULL, err);
    if (rc) return rc;
    bd_chain ch = {c, K, lambda / mu, (double)N, 1.0};
    return bd_emit(&ch, emit, arg, err);
}

cm_status cm_mmck_solve(unsigned long c, unsigned long K, double lambda,
                        double mu, double *pmf, cm_queue_metrics *m,
                        cm_err *err)
{
    cm_status rc = check_places("mmck", c, K, err);
    if (!rc) rc = check_rates("mmck", lambda, mu, err);
    if (rc) return rc;
    bd_chain ch = {c, K, lambda / mu, 1.0, 0.0};
    bd_run(&ch, lambda, mu, pmf, m);
    return CM_OK;
}

cm_status cm_mmckn_solve(unsigned long c, unsigned long K, unsigned long N,
                         double lambda, double mu, double *pmf,
                         cm_queue_metrics *m, cm_err *err)
{
    cm_status rc = check_places("mmckn", c, K, err);
    if (!rc && K > N)
        rc = cm_err_set(err, CM_EINPUT,
                        "mmckn: capacity %lu > sources %lu: at most %lu can "
                        "ever be present", K, N, N);
    if (!rc) rc = check_rates("mmckn", lambda, mu, err);
    if (rc) return rc;
    bd_chain ch = {c, K, lambda / mu, (double)N, 1.0};
    bd_run(&ch, lambda, mu, pmf, m);
    return CM_OK;
}
