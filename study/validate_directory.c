/* validate_directory.c - the directory-bandwidth model (models/directory.h)
 * in the validation driver, on any protocol.
 * Quantities, per L1 access (a load, store or atomic line request the L1
 * accepted, the simulator's l1.accesses):
 *  - msgs_per_access: every message on the crossbar, the sum of the run's
 *    noc.msgs.<class> over l1.accesses;
 *  - flits_per_access: noc.flits over l1.accesses.
 * Calibration is the profile of the workload's calibration point
 * (study/validate_coh.c), spread over its points.  Target (issue 5): MARE
 * <= 10% on held-out points. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/directory.h"
#include "study/validate.h"

static const cm_validate_qty directory_qty[] = {
    {"msgs_per_access", "msgs_per_access", CM_VT_MARE, 0.10},
    {"flits_per_access", "flits_per_access", CM_VT_MARE, 0.10}};

typedef struct directory_obs {
    cm_validate_coh_obs h; /* first: the shared calibration reads it */
    double msgs, flits;    /* per L1 access */
} directory_obs;

static cm_status directory_observe(const cm_validate_run_info *run,
                                   void *obs, cm_err *err)
{
    directory_obs *o = obs;
    memset(o, 0, sizeof *o);
    double accesses, flits, msgs = 0;
    cm_status st = cm_validate_coh_observe(run, &o->h, err);
    if (!st) st = cm_validate_stat(run, "l1.accesses", &accesses, err);
    if (!st) st = cm_validate_stat(run, "noc.flits", &flits, err);
    if (st) return st;
    static const char prefix[] = "noc.msgs.";
    for (size_t i = 0; i < run->nrows; i++)
        if (!strncmp(run->rows[i].metric, prefix, sizeof prefix - 1) &&
            !strcmp(run->rows[i].component, "all"))
            msgs += run->rows[i].value;
    if (!(accesses > 0))
        return cm_err_set(err, CM_EINPUT, "no L1 access");
    o->msgs = msgs / accesses;
    o->flits = flits / accesses;
    return CM_OK;
}

/* `cohmod model directory`'s columns: the quantities' own names */
static const char *directory_output(size_t q, const char *protocol)
{
    (void)protocol;
    return directory_qty[q].name;
}

/* The shared calibration, and the tables of the calibration points'
 * protocols as the model reads them: exporting a protocol and reading it
 * back took a quarter of a prediction (33 of 138 us), and every point
 * of a protocol reads the same tables. */
typedef struct directory_state {
    void *coh;                   /* cm_validate_coh_calibrate's */
    size_t n;
    const cm_protocol **protocol; /* n */
    cm_ptable **table;           /* n, owned */
} directory_state;

static void directory_free(void *state)
{
    directory_state *d = state;
    if (!d) return;
    for (size_t i = 0; i < d->n; i++) cm_ptables_free(d->table[i], 1);
    free(d->protocol);
    free(d->table);
    cm_validate_coh_free(d->coh);
    free(d);
}

static cm_status directory_calibrate(const void *obs, size_t n,
                                     size_t obs_size, void **state,
                                     cm_table **calib, cm_err *err)
{
    directory_state *d = calloc(1, sizeof *d);
    if (d) d->protocol = calloc(n ? n : 1, sizeof *d->protocol);
    if (d) d->table = calloc(n ? n : 1, sizeof *d->table);
    *state = NULL;
    *calib = NULL;
    if (!d || !d->protocol || !d->table) {
        directory_free(d);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    cm_status st =
        cm_validate_coh_calibrate(obs, n, obs_size, &d->coh, calib, err);
    for (size_t i = 0; i < n && !st; i++) {
        const cm_validate_coh_obs *h =
            (const void *)((const char *)obs + i * obs_size);
        size_t k = 0;
        while (k < d->n && d->protocol[k] != h->protocol) k++;
        if (k < d->n) continue;
        if (!(st = cm_validate_ptable(h->protocol, &d->table[k], err)))
            d->protocol[d->n++] = h->protocol;
    }
    if (st) {
        directory_free(d);
        cm_table_free(*calib);
        *calib = NULL;
        return st;
    }
    *state = d;
    return CM_OK;
}

static cm_status directory_predict(const void *state, const void *obs,
                                   double *model, double *sim, double *lo,
                                   double *hi, cm_err *err)
{
    const directory_obs *o = obs;
    const directory_state *d = state;
    const cm_validate_coh_obs *src;
    cm_directory_result r;
    cm_ptable *own = NULL; /* a protocol no calibration point ran */
    const cm_ptable *pt = NULL;
    for (size_t k = 0; k < d->n && !pt; k++)
        if (d->protocol[k] == o->h.protocol) pt = d->table[k];
    cm_status st = cm_validate_coh_source(d->coh, &o->h, &src, err);
    if (!st && !pt && !(st = cm_validate_ptable(o->h.protocol, &own, err)))
        pt = own;
    if (!st)
        st = cm_directory_predict(&o->h.point, pt, src->profile, &r, err);
    cm_ptables_free(own, 1);
    if (st) return st;
    model[0] = r.msgs_per_access;
    model[1] = r.flits_per_access;
    sim[0] = o->msgs;
    sim[1] = o->flits;
    for (int k = 0; k < 2; k++) lo[k] = hi[k] = NAN; /* one run: no spread */
    return CM_OK;
}

const cm_validate_model cm_validate_directory = {
    "directory",       directory_qty,       2,
    sizeof(directory_obs), directory_observe, directory_calibrate,
    directory_predict, directory_free, CM_VC_PER_WORKLOAD, 1, NULL,
    "Directory traffic model", NULL, directory_output};
