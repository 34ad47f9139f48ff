/* validate_coh.c - what the coherence models' validations share
 * (plots/validate.h): each held-out point is predicted from the timing
 * profile the coherence simulator measured at its workload's calibration
 * point, with the held-out point's own parameters.  The profile is the
 * calibration: a model that reads workload statistics is only as good as
 * its ability to carry them from one design point to another, which is
 * what the held-out error measures.  Nothing is fitted, so calib.csv has a
 * header and no rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plots/validate.h"

typedef struct coh_calib {
    size_t n;
    cm_validate_coh_obs *src; /* one per workload with a calibration point */
} coh_calib;

cm_status cm_validate_coh_observe(const cm_validate_run_info *run,
                                  cm_validate_coh_obs *h, cm_err *err)
{
    if (!run->coh || !run->profile)
        return cm_err_set(err, CM_EINPUT,
                          "this model needs the coherence simulator "
                          "(a coherence protocol)");
    *h = (cm_validate_coh_obs){*run->point, run->workload, run->coh,
                               run->profile};
    return CM_OK;
}

cm_status cm_validate_coh_calibrate(const void *obs, size_t n, size_t obs_size,
                                    void **state, cm_table **calib,
                                    cm_err *err)
{
    static const char *const hdr[] = {"parameter", "value", "stderr"};
    coh_calib *c = calloc(1, sizeof *c);
    if (c) c->src = calloc(n ? n : 1, sizeof *c->src);
    *calib = cm_table_new(3, hdr);
    if (!c || !c->src || !*calib) {
        cm_validate_coh_free(c);
        cm_table_free(*calib);
        *calib = NULL;
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        const cm_validate_coh_obs *h =
            (const void *)((const char *)obs + i * obs_size);
        size_t k = 0;
        while (k < c->n && c->src[k].workload != h->workload) k++;
        if (k == c->n) c->src[c->n++] = *h;
    }
    *state = c;
    return CM_OK;
}

void cm_validate_coh_free(void *state)
{
    coh_calib *c = state;
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
        if (c->src[k].workload == h->workload) {
            *src = &c->src[k];
            return CM_OK;
        }
    return cm_err_set(err, CM_EINPUT, "workload %s has no calibration point",
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
