/* validate_mshr.c - the MSHR model's entry in the validation driver: a
 * run's statistics become an observation (models/mshr_fit.h), the fit of
 * the calibrated inputs (model.extra_latency by default, or
 * CM_VALIDATE_MSHR_PARAMS) runs on the calibration points, and the model
 * predicts mean occupancy and P(all MSHRs busy) everywhere.  Targets (issue
 * 4): MARE <= 10% on occupancy, mean |error| <= 0.05 on P(full). */
#include <stdlib.h>

#include "data/workload.h"

#include "models/mshr_fit.h"
#include "study/validate.h"

static const char *const fit_params[] = {"model.extra_latency"};

static const cm_validate_qty mshr_qty[] = {
    {"occupancy", "mean_occupancy", CM_VT_MARE, 0.10},
    {"p_full", "p_full", CM_VT_MEAN_ABS, 0.05}};

/* The run measures the workload inputs it needs; the shape of its
 * instructions (lines per instruction, the stride between them) is the
 * profile's. */
static cm_status mshr_observe(const cm_validate_run_info *run, void *obs,
                              cm_err *err)
{
    cm_status st = cm_mshr_obs_from_rows(run->point, run->point, run->rows,
                                         run->nrows, run->label, obs, err);
    if (!st && run->workload)
        cm_mshr_obs_shape(obs, run->workload);
    return st;
}

static cm_status mshr_calibrate(const void *obs, size_t n, size_t obs_size,
                                void **state, cm_table **calib, cm_err *err)
{
    (void)obs_size; /* cm_mshr_obs, the fit's own array */
    const size_t np = sizeof fit_params / sizeof *fit_params;
    const cm_param_info *params[sizeof fit_params / sizeof *fit_params];
    for (size_t k = 0; k < np; k++) params[k] = cm_param_find(fit_params[k]);
    cm_mshr_fit *fit = malloc(sizeof *fit);
    if (!fit) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st = cm_mshr_fit_run(obs, n, params, np, fit, err);
    if (!st) st = cm_mshr_fit_table(fit, calib, err);
    if (st) {
        free(fit);
        return st;
    }
    *state = fit;
    return CM_OK;
}

static cm_status mshr_predict(const void *state, const void *obs,
                              double *model, double *sim, double *lo,
                              double *hi, cm_err *err)
{
    const cm_mshr_obs *o = obs;
    cm_mshr_ws *ws = cm_mshr_ws_new();
    if (!ws) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    double m[CM_MQ_COUNT];
    cm_status st = cm_mshr_obs_predict(o, state, ws, m, err);
    cm_mshr_ws_free(ws);
    const cm_mshr_qty map[2] = {CM_MQ_OCCUPANCY, CM_MQ_P_FULL};
    for (int k = 0; k < 2 && !st; k++) {
        model[k] = m[map[k]];
        sim[k] = o->sim[map[k]];
        lo[k] = o->lo[map[k]];
        hi[k] = o->hi[map[k]];
    }
    return st;
}

/* The model runs on the workload inputs the run measured (wl.*). */
static const cm_params *mshr_inputs(const void *obs)
{
    return &((const cm_mshr_obs *)obs)->params;
}

/* `cohmod model mshr` columns */
static const char *mshr_output(size_t q, const char *protocol)
{
    (void)protocol;
    return q == 0 ? "mean_occupancy" : "p_full";
}

const cm_validate_model cm_validate_mshr = {
    "mshr",       mshr_qty,       2,           sizeof(cm_mshr_obs),
    mshr_observe, mshr_calibrate, mshr_predict, free, CM_VC_SPREAD, 0, NULL,
    "MSHR model", mshr_inputs, mshr_output};
