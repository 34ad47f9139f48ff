/* validate_impl.h - what the validation driver's files share: a run's
 * points (validate.c runs them; validate_design.c lays them out, picks the
 * calibration points, and reports errors per group and region). */
#ifndef CM_VALIDATE_IMPL_H
#define CM_VALIDATE_IMPL_H

#include "study/validate.h"

#define MAX_AXES CM_VALIDATE_MAXDIM
#define LABEL_MAX CM_VALIDATE_LABEL_MAX

typedef struct vpoint {
    size_t base, wl;        /* machine and workload: the cell */
    double coord[MAX_AXES]; /* the axes' (design parameters') values */
    /* the measured inputs (validate.h cm_validate_dims) over the
     * replicates: least, most and sum */
    double in_lo[MAX_AXES], in_hi[MAX_AXES], in_sum[MAX_AXES];
    int cal;
    double model[CM_VALIDATE_MAXQ], sim[CM_VALIDATE_MAXQ];
    double lo[CM_VALIDATE_MAXQ], hi[CM_VALIDATE_MAXQ];
} vpoint;

typedef struct vrun {
    const cm_validate_config *cfg;
    const cm_workload_profile **wl;
    const cm_params *bases; /* nbases machines: cfg->bases, or cfg->base */
    size_t nbases;
    int named;              /* the machines are presets with names */
    const cm_param_info *axis[MAX_AXES]; /* grid axes or design params */
    size_t naxes;
    cm_validate_dims dims;  /* the design's (a design) and the inputs */
    int design;             /* a Latin hypercube, not a grid */
    size_t per_cell;        /* points per (machine, workload) cell */
    vpoint *pts;
    char *obs; /* nrep x n observations of obs_size bytes, replicate-major */
    cm_profile **prof; /* models with profiles: nrep x n, else NULL */
    size_t n, nrep;
} vrun;

/* The points' count and layout of a configuration, before any run:
 * r->bases, naxes, axis, dims, design, per_cell and n. */
cm_status cm_vrun_layout(vrun *r, cm_err *err);
/* Fills r->pts (allocated, n of them): cells, coordinates and roles. */
cm_status cm_vrun_points(vrun *r, cm_err *err);
/* Point i's parameters: its machine with its coordinates. */
void cm_vrun_params(const vrun *r, size_t i, cm_params *p);
/* "[preset ]workload name=value ...". */
void cm_vrun_label(const vrun *r, size_t i, char *buf, size_t len);

/* Per preset and per workload summaries into s->group, and their CSVs
 * (summary_workloads.csv, with machines summary_presets.csv). */
void cm_vrun_groups(const vrun *r, cm_validate_summary *s);
cm_status cm_vrun_write_groups(const vrun *r, const cm_validate_summary *s,
                               cm_err *err);
/* outdir/validity.csv (data/validity.h) from the results and the
 * calibration (calib: parameter,value rows). */
cm_status cm_vrun_write_validity(const vrun *r, const cm_table *calib,
                                 cm_err *err);

/* (model - sim) / sim, NaN where sim is 0 */
double cm_vrun_rel_error(double model, double sim);
/* The error of quantity q by its target's measure (the absolute error
 * without a target); NaN where undefined. */
double cm_vrun_target_error(const cm_validate_qty *q, double model,
                            double sim);

#endif
