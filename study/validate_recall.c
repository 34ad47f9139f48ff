/* validate_recall.c - the recall-rate model (models/recall.h) in the
 * validation driver, on gpu-vi, gpu-vini or mesi.  One quantity:
 * recall messages (RCL) per directory access, the simulator's dir.recalls
 * over its directory accesses (rate.dir_accesses x gpu.cycles of the run's
 * own profile) against the model's recall_msgs_per_access on the point's
 * directory geometry (dir.ratio, dir.ways for GPU-VIni; the L2's for the
 * others).  Calibration is the profile of the workload's calibration point
 * (study/validate_coh.c).  Target (issue 5): MARE <= 10% on held-out
 * points.  The simulated rate's 95% interval is its count's (Poisson):
 * where a run counts a handful of recalls (a large directory), its
 * relative error says more about the run than about the model. */
#include <math.h>
#include <string.h>

#include "models/recall.h"
#include "solvers/ci.h"
#include "study/validate.h"

static const cm_validate_qty recall_qty[] = {
    {"recalls_per_access", "recall_msgs_per_access",
     CM_VT_MARE, 0.10}};

typedef struct recall_obs {
    cm_validate_coh_obs h; /* first: the shared calibration reads it */
    cm_recall_protocol proto;
    double recalls;  /* per directory access */
    double count, accesses; /* recalls counted, directory accesses */
} recall_obs;

static cm_status recall_observe(const cm_validate_run_info *run, void *obs,
                                cm_err *err)
{
    recall_obs *o = obs;
    memset(o, 0, sizeof *o);
    cm_status st = cm_validate_coh_observe(run, &o->h, err);
    if (!st)
        st = cm_recall_protocol_parse(run->protocol->name,
                                      &o->proto, err);
    double rcl, cycles, rate;
    if (!st) st = cm_validate_stat(run, "dir.recalls", &rcl, err);
    if (!st) st = cm_validate_stat(run, "gpu.cycles", &cycles, err);
    if (!st)
        st = cm_profile_rate(run->profile, "rate.dir_accesses", &rate, err);
    if (st) return st;
    if (!(rate * cycles > 0))
        return cm_err_set(err, CM_EINPUT, "no directory access");
    o->count = rcl;
    o->accesses = rate * cycles;
    o->recalls = rcl / o->accesses;
    return CM_OK;
}

/* `cohmod model recall`'s column */
static const char *recall_output(size_t q, const char *protocol)
{
    (void)q;
    (void)protocol;
    return "recall_msgs_per_access";
}

static cm_status recall_predict(const void *state, const void *obs,
                                double *model, double *sim, double *lo,
                                double *hi, cm_err *err)
{
    const recall_obs *o = obs;
    const cm_validate_coh_obs *src;
    cm_recall_input in;
    cm_recall_result r;
    cm_status st = cm_validate_coh_source(state, &o->h, &src, err);
    /* one walk of the distributions, not one in the input's run length
     * and another in the solve */
    if (!st)
        st = cm_recall_predict(&o->h.point, o->proto, src->profile, &in, &r,
                               err);
    if (st) return st;
    model[0] = r.recall_msgs_per_access;
    sim[0] = o->recalls;
    /* one run: its recalls are a count of rare events, whose Poisson
     * interval says how well the run knows the rate (a point with one
     * recall knows it within a factor of 40 down, 5.6 up) */
    cm_ci_poisson95(o->count, &lo[0], &hi[0]);
    lo[0] /= o->accesses;
    hi[0] /= o->accesses;
    return CM_OK;
}

const cm_validate_model cm_validate_recall = {
    "recall",       recall_qty,       1,
    sizeof(recall_obs), recall_observe, cm_validate_coh_calibrate,
    recall_predict, cm_validate_coh_free, CM_VC_PER_WORKLOAD, 1, NULL,
    "Recall model", NULL, recall_output};
