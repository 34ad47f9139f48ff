/* validate.h - a model against the simulator over a design.
 *
 * One driver for every validated model: it runs the simulator (in whatever
 * detail the sim.* parameters ask) at every point of a design, hands each
 * run's statistics to the model's observe callback, calibrates the model
 * on at most a fifth of the points, predicts every point, and writes the
 * errors.  The design is either a grid (axes x workloads) or a sliced
 * Latin hypercube (design_n > 0: the model's design ranges of params.def,
 * solvers/lhs.h), on one machine or on each of several (presets).  Points
 * are numbered machine-major, then workload, then grid position or design
 * point; a (machine, workload) pair is a cell.  Into outdir:
 *  - points.csv: [preset,] workload, the axes, role (calibration|heldout),
 *    the model's measured inputs (the INPUT ranges of params.def), and per
 *    quantity q: model_q, sim_q, sim_q_ci95_lo, sim_q_ci95_hi, q_rel_error
 *    ((model - sim) / sim), q_abs_error (model - sim);
 *  - summary.csv: per quantity, errors over the held-out points only
 *    (a calibration point never counts as held out):
 *    quantity,points,calibration_points,heldout_points,mare,max_rel_error,
 *    mean_abs_error,max_abs_error,target,target_value,target_met,
 *    worst_at,worst_model,worst_sim; target is the measure the target
 *    is stated in (mare or mean_abs_error, or none), target_met yes, no or
 *    "no target" (target_value then empty); worst_* is the held-out point
 *    farthest off by that measure (absolute error without a target);
 *    mare and max_rel_error are empty where no simulated value is nonzero,
 *    and in points.csv q_rel_error is empty where the simulation reads 0;
 *  - summary_workloads.csv, summary_presets.csv (with machines): the same
 *    errors per workload and per preset: workload|preset,quantity,
 *    heldout_points,mare,max_rel_error,mean_abs_error,max_abs_error,
 *    target,target_value,limit,limit_met; a workload's limit is twice the
 *    target (no workload may be worse), a preset's the target itself;
 *    limit_met is yes, no, "no target", or "no value" where no held-out
 *    point has one (a workload without fences has no fence wait);
 *  - validity.csv: the held-out error by region of the design (data/
 *    validity.h), which model outputs carry as their error estimate;
 *  - calib.csv: the calibrated parameters (parameter,value,stderr), a
 *    configuration for --config; params.csv: the base parameters (the
 *    first machine's);
 *  - parity_<q>.png: simulation (with its 95% interval) against the model,
 *    and on a grid <q>_vs_<last axis>_[<preset>_]<workload>.png: both
 *    along the last axis, one pair of series per combination of the other
 *    axes.
 * Calibration points.  On a grid, at (j + 1/2) n / ncal over the points or
 * over each cell's (validate.c).  On a Latin hypercube every workload
 * gives at most a fifth of its points: a model calibrated over all points
 * (CM_VC_SPREAD) takes floor(n_w / 5) of workload w's n_w at random (a
 * GSL taus2 stream of the design seed); the per-workload models take
 * floor(m / 5) of each cell's m, the first drawn (the points of a slice
 * are in random order) or, CM_VC_WORKLOAD_LAST, those with the largest
 * value of the last design parameter.
 * A model is a table of callbacks (cm_validate_model), so validating a new
 * model adds a table, not a driver. */
#ifndef CM_VALIDATE_H
#define CM_VALIDATE_H

#include <stddef.h>

#include "data/err.h"
#include "data/params.h"
#include "data/progress.h"
#include "data/shard.h"
#include "data/sweep.h"
#include "data/table.h"
#include "data/validity.h"
#include "models/profile.h"
#include "models/ptable.h"
#include "sim/protocol.h"
#include "sim/stats.h"
#include "data/workload.h"

typedef enum cm_validate_target {
    CM_VT_MARE = 0,     /* mean |relative error| <= target */
    CM_VT_MEAN_ABS = 1, /* mean |absolute error| <= target */
    CM_VT_NONE = 2      /* reported, with no target to meet */
} cm_validate_target;

typedef struct cm_validate_qty {
    const char *name;   /* column stem, e.g. "occupancy" */
    const char *metric; /* its entry in data/metrics.def: the figures'
                           label and unit */
    cm_validate_target target;
    double target_value;
} cm_validate_qty;

/* Where validation M's design ranges come from: the registry's CM_DESIGN
 * lines for M (the model's name) whose parameter the protocol uses, and
 * which measured inputs bound its domain.  At most CM_VALIDATE_MAXDIM of
 * each. */
#define CM_VALIDATE_MAXDIM 8
typedef struct cm_validate_dims {
    const cm_param_design *dim[CM_VALIDATE_MAXDIM];   /* drawn */
    size_t ndims;
    const cm_param_design *input[CM_VALIDATE_MAXDIM]; /* measured */
    size_t ninputs;
} cm_validate_dims;

void cm_validate_design_dims(const char *model, const cm_protocol *proto,
                             cm_validate_dims *d);

#define CM_VALIDATE_MAXQ 4

typedef enum cm_validate_calib_at {
    CM_VC_SPREAD = 0,      /* over all points */
    CM_VC_PER_WORKLOAD,    /* over each workload's points */
    CM_VC_WORKLOAD_LAST    /* each workload's last points */
} cm_validate_calib_at;

/* What one simulated point hands the model. */
typedef struct cm_validate_run_info {
    const cm_params *point;                /* the parameters it ran on */
    const cm_workload_profile *workload;   /* a built-in, so it outlives the
                                              run: observations may keep it */
    const cm_protocol *protocol;           /* the protocol it ran */
    const cm_profile *profile;             /* a model with profiles: the
                                              run's timing profile, alive
                                              until the last predict
                                              (observations may keep it);
                                              else NULL */
    const cm_stat_row *rows;               /* the run's statistics */
    size_t nrows;
    const char *label;                     /* names the point in messages */
    size_t machine; /* which of the validation's machines (presets) it ran
                       on; 0 with one.  A calibration never crosses
                       machines: a profile belongs to its own. */
} cm_validate_run_info;

typedef struct cm_validate_model {
    const char *name;
    const cm_validate_qty *qty;
    size_t nqty; /* at most CM_VALIDATE_MAXQ */
    size_t obs_size;
    /* One run's statistics -> the model's observation (obs_size bytes). */
    cm_status (*observe)(const cm_validate_run_info *run, void *obs,
                         cm_err *err);
    /* Calibrates on n contiguous observations of obs_size bytes; *state
     * (freed with free_state) carries what predict needs, *calib the
     * fitted parameters as parameter,value,stderr rows. */
    cm_status (*calibrate)(const void *obs, size_t n, size_t obs_size,
                           void **state, cm_table **calib, cm_err *err);
    /* model[k], sim[k], lo[k], hi[k] for every quantity k. */
    cm_status (*predict)(const void *state, const void *obs, double *model,
                         double *sim, double *lo, double *hi, cm_err *err);
    void (*free_state)(void *state);
    /* Where the calibration points are: a fifth of all points, wherever
     * they fall; a fifth of each workload's points, spread over them (the
     * models that take their inputs from a profile of the same workload);
     * or each workload's last fifth (the largest values of the last axis,
     * for a model that carries a profile down the axis but not up). */
    cm_validate_calib_at calibrate_at;
    /* each run records its timing profile (sim/profile_rec.h) */
    int needs_profile;
    /* The events quantity q of an observation is a mean over (its L1
     * fills, its stores), which weight it over the replicates; NULL: every
     * replicate weighs alike. */
    double (*weight)(const void *obs, size_t q);
    /* the model's name in figures' titles ("MSHR model") */
    const char *title;
    /* The parameters the model was evaluated at for an observation, the
     * measured workload inputs included (their INPUT ranges bound the
     * validated domain); NULL: the run's own. */
    const cm_params *(*inputs)(const void *obs);
    /* The column of `cohmod model <name>` that quantity q estimates under
     * the protocol, or NULL when none does; NULL: none for any. */
    const char *(*output)(size_t q, const char *protocol);
} cm_validate_model;

extern const cm_validate_model cm_validate_mshr;
extern const cm_validate_model cm_validate_reuse;
extern const cm_validate_model cm_validate_lifetime;
/* The same command under tcw: the adaptive predictor (validate_lifetime.c) */
extern const cm_validate_model cm_validate_lifetime_predictor;
extern const cm_validate_model cm_validate_recall;
extern const cm_validate_model cm_validate_directory;

/* The coherence models (lifetime, recall, directory) calibrate alike: a
 * held-out point is predicted from the timing profile measured at its
 * workload's calibration point (the first of them if several), on the
 * held-out point's own parameters.  Their observations begin with this
 * header (study/validate_coh.c). */
typedef struct cm_validate_coh_obs {
    cm_params point;
    const cm_workload_profile *workload;
    const cm_protocol *protocol;
    const cm_profile *profile;
    size_t machine; /* cm_validate_run_info's */
} cm_validate_coh_obs;

/* Fills the header from a run with its profile. */
cm_status cm_validate_coh_observe(const cm_validate_run_info *run,
                                  cm_validate_coh_obs *h, cm_err *err);
/* calibrate and free_state callbacks of every coherence model: *state maps
 * a workload to its calibration observation's header, *calib has no rows
 * (nothing is fitted: the profile is the calibration). */
cm_status cm_validate_coh_calibrate(const void *obs, size_t n, size_t obs_size,
                                    void **state, cm_table **calib,
                                    cm_err *err);
void cm_validate_coh_free(void *state);
/* The calibration header for the observation's workload. */
cm_status cm_validate_coh_source(const void *state,
                                 const cm_validate_coh_obs *h,
                                 const cm_validate_coh_obs **src,
                                 cm_err *err);
/* The protocol as the models read it (models/ptable.h): its export,
 * read back.  Free with cm_ptables_free(*out, 1). */
cm_status cm_validate_ptable(const cm_protocol *proto, cm_ptable **out,
                             cm_err *err);
/* A statistic of the run (component "all"); an error naming the point when
 * it is missing or not finite. */
cm_status cm_validate_stat(const cm_validate_run_info *run, const char *name,
                           double *v, cm_err *err);

typedef struct cm_validate_config {
    const cm_params *base;
    /* nbases > 0: every point runs on each of these machines (presets,
     * named base_names, with the validation's settings applied) instead
     * of base; points.csv gets a preset column */
    const cm_params *bases;
    const char *const *base_names;
    size_t nbases;
    const cm_validate_model *model;
    cm_sweep *axes; /* registry parameters; the last varies fastest */
    size_t naxes;
    /* design_n > 0: a sliced Latin hypercube of at least design_n points
     * instead of the axes: each cell gets ceil(design_n / cells), drawn
     * from the ranges of cm_validate_design_dims with seed design_seed */
    size_t design_n;
    unsigned long design_seed;
    const char *const *workloads; /* built-in profile names */
    size_t nworkloads;
    const cm_protocol *protocol;    /* the protocol every point runs */
    const char *outdir;
    /* runs per point, seeds sim.seed, sim.seed + 1, ...; the model is
     * calibrated once on every replicate of the calibration points (the
     * coherence models pool their profiles), each replicate is predicted,
     * and a point reports the means of the model and the simulation
     * (weighted by the model's weight: ratio estimators), with the
     * simulation's 95% interval over the replicates (Student t) when
     * there are two or more.  0 or 1: one run */
    unsigned replicates;
    cm_progress_fn progress; /* runs done of all; may be NULL */
    void *progress_arg;
    /* Sharded and resumable runs (data/shard.h).  Each simulation's
     * statistics (and coherence profile) go to outdir/runs/ as it ends,
     * <point>[.r<replicate>].stats.csv and .profile.csv, and the model
     * reads them back from there, so results made from a shard's files
     * are those of one whole run.  mode WHOLE simulates and writes the
     * results; SHARD simulates only; FINISH simulates nothing and needs
     * every point's files.  With ranged set, only points [first, end)
     * are simulated; with resume, those whose files are there are kept.
     * With
     * plan, outdir/run.csv records the run (resume checks it is the same
     * one); without, there is none (the study keeps one for its whole
     * directory). */
    cm_run_mode mode;
    int ranged;
    size_t first, end;
    int resume;
    const cm_run_plan *plan;
} cm_validate_config;

#define CM_VALIDATE_LABEL_MAX 256
#define CM_VALIDATE_MAXGROUPS 48

typedef struct cm_validate_summary {
    size_t points, calibration_points, heldout_points;
    double mare[CM_VALIDATE_MAXQ], max_rel[CM_VALIDATE_MAXQ];
    double mean_abs[CM_VALIDATE_MAXQ], max_abs[CM_VALIDATE_MAXQ];
    int met[CM_VALIDATE_MAXQ]; /* 1 met, 0 missed, -1 no target */
    /* the held-out point farthest off by the target's measure (absolute
     * error without a target), SIZE_MAX when there is none */
    size_t worst[CM_VALIDATE_MAXQ];
    double worst_model[CM_VALIDATE_MAXQ], worst_sim[CM_VALIDATE_MAXQ];
    char worst_at[CM_VALIDATE_MAXQ][CM_VALIDATE_LABEL_MAX]; /* "kmn
                                          l1.mshrs=8 ..." (cm_validate_run) */
    char calib_note[2 * CM_VALIDATE_LABEL_MAX]; /* what the calibration held
                                                   and why, or "" */
    /* per preset (with machines) and per workload, in point order */
    size_t ngroups;
    struct cm_validate_group {
        char name[32];
        int preset; /* 1: a preset's points, 0: a workload's */
        size_t heldout;
        double err[CM_VALIDATE_MAXQ]; /* by the target's measure (the
                                          absolute error without one) */
        int met[CM_VALIDATE_MAXQ]; /* within the limit: a preset's
                                      target, twice it for a workload;
                                      -1 no target, -2 no held-out
                                      value */
    } group[CM_VALIDATE_MAXGROUPS];
} cm_validate_summary;

/* What the summary is made of: a point's role and its values. */
typedef struct cm_validate_point {
    int cal; /* a calibration point */
    double model[CM_VALIDATE_MAXQ], sim[CM_VALIDATE_MAXQ];
} cm_validate_point;

/* Errors of each quantity over the held-out points of pts[0..n) (worst_at
 * and calib_note left empty). */
void cm_validate_summarise(const cm_validate_qty *qty, size_t nqty,
                           const cm_validate_point *pts, size_t n,
                           cm_validate_summary *s);

/* Quantity k's summary in one line, its target's own measure first:
 * "p_hit: held-out mean |error| 0.031 (worst 0.1: model 0.5 where the
 * simulator reads 0.4 at bh tc.lifetime_weak=400); target mean |error| <=
 * 0.05: met; MARE 38.0% (max 175.5%)". */
void cm_validate_summary_line(const cm_validate_qty *q,
                              const cm_validate_summary *s, size_t k,
                              char *buf, size_t len);

/* Group g's errors in one line: "kmn (12 held out): occupancy MARE
 * 12.3%, p_full mean |error| 0.21 (beyond twice the target: p_full)". */
void cm_validate_group_line(const cm_validate_model *m,
                            const struct cm_validate_group *g, char *buf,
                            size_t len);

/* The points calibrated on: floor(n / 5) of n, at (i + 1/2) n / ncal
 * (per workload, n its points, when the model calibrates per workload). */
size_t cm_validate_calibration_count(size_t n);
int cm_validate_is_calibration(size_t index, size_t n);

/* The points of the run (machines x workloads x the axes' values or
 * design points), without replicates. */
size_t cm_validate_points(const cm_validate_config *cfg);

/* One simulation of a point and the model's observation of it (obs_size
 * bytes), as a validation makes them: what `make bench` times the model
 * against at the same point.  With a profile model, *prof receives the
 * run's profile, which obs refers to (free it after obs); else NULL. */
cm_status cm_validate_observe_one(const cm_validate_model *m,
                                  const cm_params *p,
                                  const cm_workload_profile *wl,
                                  const cm_protocol *proto, void *obs,
                                  cm_profile **prof, cm_err *err);

/* A result of `cohmod model <model>` (t, its rows' point base and then
 * its parameter columns) with the held-out error of every column some
 * validation measures beside it and where it holds, from v
 * (data/validity.h cm_validity_annotate): the measure is the quantity's
 * target's, the protocol the one the rows are under when t has no
 * protocol column (NULL: any), and the parameters a protocol does not use
 * are no part of its machine. */
cm_status cm_validate_annotate(const cm_validity *v, const char *model,
                               const char *protocol, const cm_params *base,
                               const cm_table *t, cm_table **out, cm_err *err);

/* Runs the configuration; *sum is zero unless the results were made (not
 * in mode SHARD). */
cm_status cm_validate_run(const cm_validate_config *cfg,
                          cm_validate_summary *sum, cm_err *err);

#endif
