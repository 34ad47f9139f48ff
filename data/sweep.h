/* sweep.h - parameter sweeps and grids.
 *
 * `--sweep name=lo:hi:step` or `--sweep name=v1,v2,...` names a registry
 * parameter and its values; several sweeps form a grid, iterated like an
 * odometer with the last sweep varying fastest.  Every value is parsed and
 * range-checked by the registry, so a sweep can never set what --set could
 * not. */
#ifndef CM_SWEEP_H
#define CM_SWEEP_H

#include <stddef.h>

#include "data/err.h"
#include "data/params.h"
#include "data/shard.h"

#define CM_SWEEP_MAX_VALUES 100000

typedef struct cm_sweep {
    const cm_param_info *param;
    double *values;
    size_t n;
    /* On a grid's first sweep: the grid yields only this shard's slice of
     * its points (data/shard.h), so every model that sweeps through a
     * cm_grid shards without knowing it.  Zero (cm_sweep_parse): all. */
    cm_shard shard;
} cm_sweep;

cm_status cm_sweep_parse(const char *spec, cm_sweep *sw, cm_err *err);
void cm_sweep_free(cm_sweep *sw);

typedef struct cm_grid {
    cm_sweep *sweeps;
    size_t nsweeps;
    size_t *index; /* current position per sweep */
    size_t points, done; /* done counts from the shard's first point and
                          * stops at its end (points): the whole grid's
                          * numbering */
    int started;
} cm_grid;

/* Takes ownership of nothing; sweeps must outlive the grid. */
cm_status cm_grid_init(cm_grid *g, cm_sweep *sweeps, size_t n, cm_err *err);
void cm_grid_free(cm_grid *g);

/* Writes the next grid point into p (only the swept parameters change) and
 * returns 1, or returns 0 when the grid is exhausted.  A grid of no sweeps
 * has exactly one point. */
int cm_grid_next(cm_grid *g, cm_params *p);

#endif
