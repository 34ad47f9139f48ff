/* mshr_grid.h - the MSHR model over a parameter grid, as a table.
 *
 * One row per grid point: the swept parameters (by registry name), then
 * every result column (units in data/columns.c).  With `pmf` set the table
 * is long-format instead: the swept parameters, occupancy, probability. */
#ifndef CM_MSHR_GRID_H
#define CM_MSHR_GRID_H

#include <stddef.h>

#include "data/err.h"
#include "data/params.h"
#include "data/progress.h"
#include "data/sweep.h"
#include "data/table.h"

cm_status cm_mshr_grid_table(const cm_params *base, cm_sweep *sweeps,
                             size_t nsweeps, int pmf, cm_progress_fn progress,
                             void *progress_arg, cm_table **out, cm_err *err);

#endif
