/* validate_coh.c - what the coherence models' validations share
 * (study/validate.h): each held-out point is predicted from the timing
 * profile the simulator measured at its cell's calibration point (its
 * workload on its machine), with the held-out point's own parameters.
 * The profile is the calibration: a model that reads workload statistics is only as good as
 * its ability to carry them from one design point to another, which is
 * what the held-out error measures.  With replicates (other seeds of the
 * same points) the calibration point's profiles are pooled into one.
 * Nothing is fitted, so calib.csv has a header and no rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "study/validate.h"

typedef struct coh_calib {
    size_t n;
    cm_validate_coh_obs *src; /* one per cell (workload x machine) with a
                                 calibration point, its profile the pool
                                 of that cell's */
    cm_profile **pooled;      /* n, owned */
} coh_calib;

cm_status cm_validate_coh_observe(const cm_validate_run_info *run,
                                  cm_validate_coh_obs *h, cm_err *err)
{
    if (!run->profile)
        return cm_err_set(err, CM_EINTERNAL,
                          "this model needs the run's timing profile");
    *h = (cm_validate_coh_obs){*run->point, run->workload, run->protocol,
                               run->profile, run->machine};
    return CM_OK;
}

/* Whether a and b calibrate the same cell: one workload on one machine.
 * Keying on the workload alone predicted a design's tc2013 points from
 * the li2014 calibration profile of the same workload (directory
 * msgs/access on kmn: -27% at tc2013's own calibration point; recall
 * 44% held-out error on tc2013). */
static int same_cell(const cm_validate_coh_obs *a,
                     const cm_validate_coh_obs *b)
{
    return a->workload == b->workload && a->machine == b->machine;
}

/* Whether a and b are runs of one point: the same cell and every
 * parameter but the seed. */
static int same_point(const cm_validate_coh_obs *a,
                      const cm_validate_coh_obs *b)
{
    cm_params pa = a->point, pb = b->point;
    pa.sim_seed = pb.sim_seed = 0;
    return same_cell(a, b) && !memcmp(&pa, &pb, sizeof pa);
}

cm_status cm_validate_coh_calibrate(const void *obs, size_t n, size_t obs_size,
                                    void **state, cm_table **calib,
                                    cm_err *err)
{
    static const char *const hdr[] = {"parameter", "value", "stderr"};
    coh_calib *c = calloc(1, sizeof *c);
    if (c) c->src = calloc(n ? n : 1, sizeof *c->src);
    if (c) c->pooled = calloc(n ? n : 1, sizeof *c->pooled);
    const cm_profile **group = malloc((n ? n : 1) * sizeof *group);
    *calib = cm_table_new(3, hdr);
    if (!c || !c->src || !c->pooled || !group || !*calib) {
        free(group);
        cm_validate_coh_free(c);
        cm_table_free(*calib);
        *calib = NULL;
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        const cm_validate_coh_obs *h =
            (const void *)((const char *)obs + i * obs_size);
        size_t k = 0;
        while (k < c->n && !same_cell(&c->src[k], h)) k++;
        if (k == c->n) c->src[c->n++] = *h;
    }
    /* the replicates of a workload's calibration point (the same point,
     * other seeds) pooled into one profile, so its rare events (stalls at
     * short L rest on tens of stores) are counted over all of them */
    cm_status st = CM_OK;
    for (size_t k = 0; k < c->n && !st; k++) {
        size_t ng = 0;
        for (size_t i = 0; i < n; i++) {
            const cm_validate_coh_obs *h =
                (const void *)((const char *)obs + i * obs_size);
            if (same_point(h, &c->src[k])) group[ng++] = h->profile;
        }
        st = cm_profile_pool(group, ng, &c->pooled[k], err);
        if (!st) c->src[k].profile = c->pooled[k];
    }
    free(group);
    if (st) {
        cm_validate_coh_free(c);
        cm_table_free(*calib);
        *calib = NULL;
        return st;
    }
    *state = c;
    return CM_OK;
}

void cm_validate_coh_free(void *state)
{
    coh_calib *c = state;
    for (size_t k = 0; c && c->pooled && k < c->n; k++)
        cm_profile_free(c->pooled[k]);
    if (c) free(c->pooled);
    if (c) free(c->src);
    free(c);
}

cm_status cm_validate_coh_source(const void *state,
                                 const cm_validate_coh_obs *h,
                                 const cm_validate_coh_obs **src,
                                 cm_err *err)
{
    const coh_calib *c = state;
    for (size_t k = 0; k < c->n; k++)
        if (same_cell(&c->src[k], h)) {
            *src = &c->src[k];
            return CM_OK;
        }
    return cm_err_set(err, CM_EINPUT,
                      "workload %s has no calibration point on its machine",
                      h->workload->name);
}

cm_status cm_validate_stat(const cm_validate_run_info *run, const char *name,
                           double *v, cm_err *err)
{
    const cm_stat_row *r = cm_stats_find(run->rows, run->nrows, name, "all");
    if (!r || !isfinite(r->value))
        return cm_err_set(err, CM_EINPUT, "%s metric '%s'",
                          r ? "no value for" : "missing", name);
    *v = r->value;
    return CM_OK;
}

cm_status cm_validate_ptable(const cm_protocol *proto, cm_ptable **out,
                             cm_err *err)
{
    cm_table *t = NULL;
    size_t n = 0;
    *out = NULL;
    cm_status st = cm_protocol_export_new(&t, err);
    if (!st) st = cm_protocol_export(proto, t, err);
    if (!st) st = cm_ptables_read(t, out, &n, err);
    cm_table_free(t);
    return st;
}
