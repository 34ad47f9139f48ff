/* mg1.c - M/G/1 and M/D/1 mean waits by the Pollaczek-Khinchine formula.
 *
 *     Wq = lambda E[S^2] / (2 (1 - rho)),  rho = lambda s,
 *     E[S^2] = s^2 (1 + scv)   (scv = Var S / s^2),
 * so M/D/1 (scv = 0) waits half as long as M/M/1 (scv = 1) (Kleinrock,
 * Queueing Systems I, 5.7; Allen, 2nd ed., 5.5). */
#include <math.h>

#include "solvers/queue.h"

static cm_status pk_wait(const char *model, double lambda, double s,
                         double scv, double *wq, cm_err *err)
{
    if (!isfinite(lambda) || lambda < 0)
        return cm_err_set(err, CM_EINPUT,
                          "%s: arrival rate must be a finite number >= 0, "
                          "got %g", model, lambda);
    if (!isfinite(s) || s <= 0)
        return cm_err_set(err, CM_EINPUT,
                          "%s: mean service time must be a finite number "
                          "> 0, got %g", model, s);
    if (!isfinite(scv) || scv < 0)
        return cm_err_set(err, CM_EINPUT,
                          "%s: squared coefficient of variation must be a "
                          "finite number >= 0, got %g", model, scv);
    double rho = lambda * s;
    if (!(rho < 1.0))
        return cm_err_set(err, CM_EINPUT,
                          "%s: utilisation %g >= 1: the queue is unstable",
                          model, rho);
    *wq = lambda * s * s * (1.0 + scv) / (2.0 * (1.0 - rho));
    if (isinf(*wq)) /* finite inputs, a wait beyond double precision */
        return cm_err_set(err, CM_EINPUT,
                          "%s: the mean wait overflows (service time %g, "
                          "scv %g)", model, s, scv);
    return CM_OK;
}

cm_status cm_mg1_wait(double lambda, double s, double scv, double *wq,
                      cm_err *err)
{
    return pk_wait("m/g/1", lambda, s, scv, wq, err);
}

cm_status cm_md1_wait(double lambda, double s, double *wq, cm_err *err)
{
    return pk_wait("m/d/1", lambda, s, 0.0, wq, err);
}
