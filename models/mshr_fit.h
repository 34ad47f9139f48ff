/* mshr_fit.h - calibrating the MSHR model (mshr.h) against simulation.
 *
 * An observation is one simulated run reduced to what the model needs: the
 * machine it ran on (registry parameters), the workload statistics the model
 * takes as inputs, measured by the run (wl.* parameters), and what the
 * model predicts, measured (mean MSHR occupancy, P(all MSHRs busy), the
 * miss round-trip latency), with the run's 95% intervals.  The fit chooses
 * 1 to CM_LSQ_MAXP model inputs that are registry parameters (the
 * "[calibrated]" ones of params.def, e.g. model.extra_latency,
 * model.svc_scv) to minimise the weighted squared error over observations;
 * the maths is in mshr_fit.c. */
#ifndef CM_MSHR_FIT_H
#define CM_MSHR_FIT_H

#include <stddef.h>

#include "data/err.h"
#include "data/params.h"
#include "data/table.h"
#include "models/mshr.h"
#include "data/statrows.h"
#include "solvers/lsq.h"

typedef enum cm_mshr_qty {
    CM_MQ_OCCUPANCY = 0, /* l1.mshr.occupancy_mean: mean busy entries */
    CM_MQ_P_FULL,        /* l1.mshr.full_fraction: time with all busy */
    CM_MQ_LATENCY,       /* roundtrip.latency_mean: an entry's hold time */
    CM_MQ_COUNT
} cm_mshr_qty;

const char *cm_mshr_qty_name(cm_mshr_qty q); /* "occupancy", ... */

typedef struct cm_mshr_obs {
    cm_params params; /* the machine, the measured wl.* and the model.* knobs */
    double sim[CM_MQ_COUNT];      /* measured; latency NaN if not reported */
    double lo[CM_MQ_COUNT], hi[CM_MQ_COUNT]; /* 95% interval, NaN if none */
    double sigma[CM_MQ_COUNT];    /* the weight of a residual, see .c */
} cm_mshr_obs;

/* Builds an observation from a run's statistics (component `all`):
 * machine = the parameters it ran on (its dump), knobs = where the model.*
 * parameters come from (the calibration's own configuration).  `source`
 * names the run in messages.  A missing metric is CM_EINPUT. */
cm_status cm_mshr_obs_from_rows(const cm_params *machine,
                                const cm_params *knobs,
                                const cm_stat_row *rows, size_t n,
                                const char *source, cm_mshr_obs *obs,
                                cm_err *err);

typedef struct cm_mshr_fit {
    size_t np;
    const cm_param_info *param[CM_LSQ_MAXP];
    double value[CM_LSQ_MAXP], stderr_[CM_LSQ_MAXP];
    int identifiable[CM_LSQ_MAXP];
    double chisq, chisq_dof;
    size_t observations, residuals;
    int iterations;
    /* residual summary over the fitted observations, at the optimum */
    double occ_mare;    /* mean |model - sim| / sim of the occupancy */
    double p_full_mae;  /* mean |model - sim| of P(full) */
    double latency_mare;/* NaN when no observation has a latency */
} cm_mshr_fit;

/* Fits params[0..np) (registry parameters the model reads), starting from
 * obs[0]'s values.  Each obs contributes its occupancy, P(full) and, when
 * measured, latency residual. */
cm_status cm_mshr_fit_run(const cm_mshr_obs *obs, size_t n,
                          const cm_param_info *const *params, size_t np,
                          cm_mshr_fit *fit, cm_err *err);

/* The fitted values as a table of parameter,value,stderr rows: a
 * configuration file (--config) of the calibrated parameters. */
cm_status cm_mshr_fit_table(const cm_mshr_fit *fit, cm_table **out,
                            cm_err *err);

/* Writes the fitted values into p. */
void cm_mshr_fit_apply(const cm_mshr_fit *fit, cm_params *p);

/* The model at an observation's inputs, with fit applied if not NULL:
 * model[q] for every cm_mshr_qty. */
cm_status cm_mshr_obs_predict(const cm_mshr_obs *o, const cm_mshr_fit *fit,
                              cm_mshr_ws *ws, double model[CM_MQ_COUNT],
                              cm_err *err);

#endif
