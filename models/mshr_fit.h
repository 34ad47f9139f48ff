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
#include "data/workload.h"
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

/* The instruction shape a run's statistics do not show, from its workload
 * profile: wl.reqs_dist and wl.line_stride. */
void cm_mshr_obs_shape(cm_mshr_obs *obs, const cm_workload_profile *w);

/* What the data identify.  Each parameter is fitted within its range
 * (cm_mshr_param_range over every observation's machine); one they cannot
 * identify (solvers/lsq.h: no effect, at its bound, standard error above
 * its value, interval across its range) is held at its configured value,
 * obs[0]'s, with a NaN standard error and its flags, and the others are
 * fitted again without it until every one left is identified. */
typedef struct cm_mshr_fit {
    size_t np;
    const cm_param_info *param[CM_LSQ_MAXP];
    double value[CM_LSQ_MAXP], stderr_[CM_LSQ_MAXP];
    double lo[CM_LSQ_MAXP], hi[CM_LSQ_MAXP]; /* the range fitted in */
    int identifiable[CM_LSQ_MAXP]; /* 0: held at its configured value */
    unsigned flags[CM_LSQ_MAXP];   /* cm_fit_flag bits: why not */
    double fitted[CM_LSQ_MAXP];    /* the value the flags judged, */
    double fitted_se[CM_LSQ_MAXP]; /* and its standard error */
    size_t identified;             /* how many are */
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
 * measured, latency residual.  Identifying nothing is not an error here:
 * fit->identified is 0 and cm_mshr_fit_advice says why. */
cm_status cm_mshr_fit_run(const cm_mshr_obs *obs, size_t n,
                          const cm_param_info *const *params, size_t np,
                          cm_mshr_fit *fit, cm_err *err);

/* Why parameter k was not identified, and what it is held at: "not
 * identifiable (at its bound -339; standard error above its value), held
 * at its configured value 0"; "" when it was. */
void cm_mshr_fit_note(const cm_mshr_fit *fit, size_t k, char *buf,
                      size_t len);

/* The fitted value and the flags of parameter k in words: "fitted -339 +-
 * 5.5e+05: at its bound -339; standard error above its value". */
void cm_mshr_fit_why(const cm_mshr_fit *fit, size_t k, char *buf,
                     size_t len);

/* Why a fit identified nothing, and what runs would help: one line (the
 * machine settings the samples share, or that they put every parameter
 * at its configured value). */
void cm_mshr_fit_advice(const cm_mshr_obs *obs, size_t n,
                        const cm_mshr_fit *fit, char *buf, size_t len);

/* The fit as a table of parameter,value,stderr,note rows: a configuration
 * file (--config) of the calibrated parameters, the held ones at their
 * configured values with an empty stderr and the note of
 * cm_mshr_fit_note. */
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
