/* validate_reuse.c - the L1 reuse model's entry in the validation driver:
 * the L1 miss ratio predicted from the workload's per-warp reuse profiles
 * (models/l1_predict.h) against the simulator's l1.miss_ratio.
 *
 * The one calibrated input.  The reuse model interleaves W warps round
 * robin, W a fraction f of the active warps,
 *     W = clamp(f x sched.active_warps, 1, gpu.warps_per_sm)
 * under LRR, and under GTO at most the warps the SM keeps in play at the
 * predicted miss ratio (cm_l1_predict_scheduled, l1_predict.c's header),
 * one f for the whole grid (model.l1_interleave_fraction, a registry
 * parameter so calib.csv works as a --config).  f is fitted on the
 * calibration points by weighted least squares (solvers/lsq.h), residual
 *     r_i = (model_i(f) - sim_i) / sigma_i,  sigma_i^2 = se_i^2 + 0.01^2,
 * se_i the run's standard error from its 95% interval (0 without one); the
 * floor, an accepted model error of 0.01 in the miss ratio, keeps a run
 * with a tight interval from taking all the weight.  W is fractional: the
 * model interpolates between floor(W) and ceil(W), so model_i(f) is
 * continuous and piecewise linear, and the solver's forward differences
 * see a slope wherever the clamp is not active.
 *
 * Assumptions are l1_predict.c's (NO-COH, LRU, no sharing between warps,
 * MSHR merges count as hits; the stream is SM 0's).  Target: mean
 * |error| <= 0.05 on held-out points.  An absolute target because the miss
 * ratio is a probability: a relative error explodes where the simulated
 * ratio is small, which is where the L1 works best. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "models/l1_predict.h"
#include "study/validate.h"
#include "solvers/ci.h"
#include "solvers/lsq.h"

#define REUSE_SIGMA_FLOOR 0.01

static const cm_validate_qty reuse_qty[] = {
    {"l1_miss_ratio", "l1_miss_ratio", CM_VT_MEAN_ABS, 0.05}};

typedef struct reuse_obs {
    cm_params params;                 /* the point the run used */
    const cm_workload_profile *wl;    /* a built-in: outlives the run */
    double sim, lo, hi, sigma;        /* l1.miss_ratio, all SMs */
} reuse_obs;

typedef struct reuse_fit {
    double fraction, stderr_;
} reuse_fit;

/* Found once: a registry search per prediction cost half the model's
 * time (run_bench models). */
static const cm_param_info *fraction_param(void)
{
    static const cm_param_info *pi;
    if (!pi) pi = cm_param_find("model.l1_interleave_fraction");
    return pi;
}

static cm_status reuse_observe(const cm_validate_run_info *run, void *obs,
                               cm_err *err)
{
    const cm_stat_row *r =
        cm_stats_find(run->rows, run->nrows, "l1.miss_ratio", "all");
    if (!r || !isfinite(r->value))
        return cm_err_set(err, CM_EINPUT,
                          "%s: %s metric 'l1.miss_ratio' (component all)",
                          run->label, r ? "no value for" : "missing");
    reuse_obs *o = obs;
    double se = cm_ci95_se(r->ci95_lo, r->ci95_hi);
    *o = (reuse_obs){*run->point, run->workload, r->value, r->ci95_lo, r->ci95_hi,
                     sqrt(se * se + REUSE_SIGMA_FLOOR * REUSE_SIGMA_FLOOR)};
    return CM_OK;
}

/* The model at an observation with interleaving fraction f. */
static cm_status reuse_model(const reuse_obs *o, double f, double *miss,
                             cm_err *err)
{
    const cm_param_info *pi = fraction_param();
    f = fmin(fmax(f, pi->min), pi->max);
    cm_l1_prediction pr;
    cm_status st = cm_l1_predict_scheduled(&o->params, o->wl, f, &pr, err);
    if (!st) *miss = pr.miss_ratio;
    return st;
}

typedef struct resid_ctx {
    const reuse_obs *obs;
    size_t n;
} resid_ctx;

static int reuse_resid(const double *x, double *r, void *arg)
{
    const resid_ctx *c = arg;
    for (size_t i = 0; i < c->n; i++) {
        double m;
        cm_err err;
        if (reuse_model(&c->obs[i], x[0], &m, &err)) return 1;
        r[i] = (m - c->obs[i].sim) / c->obs[i].sigma;
    }
    return 0;
}

static cm_status reuse_calibrate(const void *obs, size_t n, size_t obs_size,
                                 void **state, cm_table **calib, cm_err *err)
{
    (void)obs_size; /* reuse_obs, read as an array */
    const cm_param_info *pi = fraction_param();
    const reuse_obs *o = obs;
    if (n == 0) return cm_err_set(err, CM_EINPUT, "reuse fit: no samples");
    resid_ctx c = {o, n};
    double x0 = cm_param_get(&o[0].params, pi), scale = 1;
    cm_lsq_result lr;
    cm_status st = cm_lsq_fit(reuse_resid, &c, n, 1, &x0, &scale, &pi->min,
                              &pi->max, &lr, err);
    if (st) {
        cm_err_prefix(err, "reuse fit");
        return st;
    }
    /* What the data cannot identify stays at its configured value, and
     * calib.csv says so. */
    reuse_fit fit = {lr.x[0], lr.stderr_[0]};
    char note[320] = "", why[200];
    if (!lr.identifiable[0]) {
        cm_fit_flags_text(lr.flags[0], lr.x[0], pi->min, pi->max, why,
                          sizeof why);
        fit = (reuse_fit){x0, NAN};
        snprintf(note, sizeof note, "not identifiable (%s), held at its "
                 "configured value %g", why, x0);
    }
    const char *notes[1] = {note};
    st = cm_params_fit_table(&pi, &fit.fraction, &fit.stderr_, notes, 1,
                             calib, err);
    reuse_fit *keep = st ? NULL : malloc(sizeof *keep);
    if (!st && !keep) {
        cm_table_free(*calib);
        *calib = NULL;
        st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    if (keep) *keep = fit;
    *state = keep;
    return st;
}

static cm_status reuse_predict(const void *state, const void *obs,
                               double *model, double *sim, double *lo,
                               double *hi, cm_err *err)
{
    const reuse_fit *fit = state;
    const reuse_obs *o = obs;
    sim[0] = o->sim;
    lo[0] = o->lo;
    hi[0] = o->hi;
    return reuse_model(o, fit->fraction, &model[0], err);
}

const cm_validate_model cm_validate_reuse = {
    "reuse",       reuse_qty,       1,            sizeof(reuse_obs),
    reuse_observe, reuse_calibrate, reuse_predict, free, CM_VC_SPREAD, 0, NULL,
    "L1 reuse model", NULL, NULL /* no `cohmod model` command shows it */};
