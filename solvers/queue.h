/* queue.h - closed-form and recursive queueing solvers.
 *
 * Conventions: rates are per unit time, `a` is offered load in Erlangs
 * (lambda / mu).  Every solver validates its inputs and returns CM_EINPUT
 * with a one-line message for nonsense (c = 0, negative rates, an unstable
 * open queue); it never aborts.  All recursions run in a numerically stable
 * form (ratios or log space): no factorial is ever formed, and c up to 1e5
 * at loads near saturation is fine. */
#ifndef CM_QUEUE_H
#define CM_QUEUE_H

#include <stddef.h>

#include "data/err.h"

/* Figures every queue reports; fields a model does not define are NAN. */
typedef struct cm_queue_metrics {
    double p_block;    /* probability an arrival is lost (time or call cong.) */
    double p_wait;     /* probability an admitted arrival waits */
    double throughput; /* accepted arrivals per unit time */
    double mean_n;     /* mean number in system */
    double mean_q;     /* mean number waiting */
    double mean_busy;  /* mean busy servers */
    double util;       /* mean_busy / c */
    double mean_resp;  /* mean response (wait + service) of accepted arrivals */
    double mean_wait;  /* mean wait in queue of accepted arrivals */
} cm_queue_metrics;

/* Erlang-B blocking B(c, a) for integer c: B(0,a)=1,
 * B(c,a) = a B(c-1,a) / (c + a B(c-1,a)). */
cm_status cm_erlang_b(unsigned long c, double a, double *b, cm_err *err);

/* Erlang-B for real c >= 0 through the incomplete gamma function:
 * 1/B(c,a) = a e^a Gamma(c+1, a) / a^(c+1)  (equals the recursion at
 * integers). */
cm_status cm_erlang_b_real(double c, double a, double *b, cm_err *err);

/* Erlang-C (M/M/c): probability of waiting; needs a < c.  mean_wait = C /
 * (c mu - lambda).  Fills all metrics of the M/M/c queue when m != NULL. */
cm_status cm_erlang_c(unsigned long c, double lambda, double mu, double *pwait,
                      cm_queue_metrics *m, cm_err *err);

/* M/M/c/K: c servers, K >= c places in total.  pmf (K+1 entries) may be
 * NULL. */
cm_status cm_mmck_solve(unsigned long c, unsigned long K, double lambda,
                        double mu, double *pmf, cm_queue_metrics *m,
                        cm_err *err);

/* The M/M/c/K and M/M/c/K/N distributions streamed: emit(n, p(n)) for n =
 * 0..K in order, the same values as the pmf arrays above, in memory
 * independent of K (a few hundred KB at K = 1e9).  emit's error stops the
 * walk and is returned. */
typedef cm_status (*cm_pmf_fn)(unsigned long n, double p, void *arg,
                               cm_err *err);
cm_status cm_mmck_pmf_each(unsigned long c, unsigned long K, double lambda,
                           double mu, cm_pmf_fn emit, void *arg, cm_err *err);
cm_status cm_mmckn_pmf_each(unsigned long c, unsigned long K, unsigned long N,
                            double lambda, double mu, cm_pmf_fn emit,
                            void *arg, cm_err *err);

/* Engset: N sources, c servers, no waiting room; beta = offered load per
 * idle source (lambda_idle / mu).  time_cong = P(all c busy);
 * call_cong = P(an arrival is blocked) = time congestion with N-1 sources. */
cm_status cm_engset(unsigned long c, unsigned long N, double beta,
                    double *time_cong, double *call_cong, cm_err *err);

/* Finite-source M/M/c/K/N (machine repairman with K places, c <= K <= N):
 * each of N sources, while idle, arrives at rate lambda; service rate mu.
 * Arrivals finding K in system are lost and the source returns to idle.
 * pmf (K+1 entries) may be NULL. p_block is call congestion (arrival
 * theorem: the distribution seen by an arrival is that with N-1 sources). */
cm_status cm_mmckn_solve(unsigned long c, unsigned long K, unsigned long N,
                         double lambda, double mu, double *pmf,
                         cm_queue_metrics *m, cm_err *err);

/* M/D/1 and M/G/1 (Pollaczek-Khinchine) mean waits in queue:
 * Wq = lambda E[S^2] / (2 (1 - rho)), E[S^2] = s^2 (1 + scv). */
cm_status cm_md1_wait(double lambda, double s, double *wq, cm_err *err);
cm_status cm_mg1_wait(double lambda, double s, double scv, double *wq,
                      cm_err *err);

/* ---- exact Mean Value Analysis, closed single-class network ---- */

typedef enum cm_mva_kind { CM_MVA_QUEUE, CM_MVA_DELAY } cm_mva_kind;

typedef struct cm_mva_station {
    const char *name;
    cm_mva_kind kind;
    double demand; /* service demand per cycle of a customer (visits x S) */
} cm_mva_station;

typedef struct cm_mva_result {
    double throughput;      /* customers per unit time */
    double response;        /* sum of residence times */
    double *queue_len;      /* per station, caller-provided, n entries */
    double *residence;      /* per station, caller-provided */
    double *util;           /* per station, caller-provided (delay: mean
                               number present) */
} cm_mva_result;

/* Exact MVA by the population recursion, O(population x n). */
cm_status cm_mva_solve(const cm_mva_station *st, size_t n,
                       unsigned long population, cm_mva_result *res,
                       cm_err *err);

#endif
