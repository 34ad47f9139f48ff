/* mva.c - exact Mean Value Analysis of a closed single-class product-form
 * network (Reiser & Lavenberg, J. ACM 27(2), 1980; Lazowska et al.,
 * Quantitative System Performance, ch. 6).
 *
 * With D_k the service demand of station k per cycle and Q_k(0) = 0, for
 * n = 1..N:
 *     R_k(n) = D_k (1 + Q_k(n-1))   queueing station (arrival theorem: an
 *                                   arrival sees the network with n-1)
 *     R_k(n) = D_k                  delay station (infinite server)
 *     X(n)   = n / sum_k R_k(n)
 *     Q_k(n) = X(n) R_k(n)          (Little's law per station)
 * and U_k = X D_k.  O(N x stations), in the caller's arrays.  Population 0
 * gives X = 0, Q_k = 0 and R_k = D_k (what a lone customer would meet). */
#include <math.h>

#include "solvers/queue.h"

cm_status cm_mva_solve(const cm_mva_station *st, size_t n,
                       unsigned long population, cm_mva_result *res,
                       cm_err *err)
{
    if (!st || n == 0)
        return cm_err_set(err, CM_EINPUT, "mva: the network has no stations");
    if (!res || !res->queue_len || !res->residence || !res->util)
        return cm_err_set(err, CM_EINPUT,
                          "mva: result arrays (queue_len, residence, util) "
                          "are required");
    double total = 0.0;
    for (size_t k = 0; k < n; k++) {
        const char *name = st[k].name ? st[k].name : "?";
        if (!isfinite(st[k].demand) || st[k].demand < 0)
            return cm_err_set(err, CM_EINPUT,
                              "mva: station '%s': demand must be a finite "
                              "number >= 0, got %g", name, st[k].demand);
        if (st[k].kind != CM_MVA_QUEUE && st[k].kind != CM_MVA_DELAY)
            return cm_err_set(err, CM_EINPUT,
                              "mva: station '%s': kind must be queue or "
                              "delay", name);
        total += st[k].demand;
    }
    if (!(total > 0))
        return cm_err_set(err, CM_EINPUT,
                          "mva: every demand is 0: the throughput is "
                          "unbounded");
    double x = 0.0, r = total;
    for (size_t k = 0; k < n; k++) {
        res->queue_len[k] = 0.0;
        res->residence[k] = st[k].demand;
    }
    for (unsigned long pop = 1; pop <= population; pop++) {
        r = 0.0;
        for (size_t k = 0; k < n; k++) {
            double q = st[k].kind == CM_MVA_QUEUE ? res->queue_len[k] : 0.0;
            res->residence[k] = st[k].demand * (1.0 + q);
            r += res->residence[k];
        }
        x = (double)pop / r;
        for (size_t k = 0; k < n; k++)
            res->queue_len[k] = x * res->residence[k];
    }
    for (size_t k = 0; k < n; k++) res->util[k] = x * st[k].demand;
    res->throughput = x;
    res->response = r;
    return CM_OK;
}
