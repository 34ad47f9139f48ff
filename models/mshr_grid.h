/* mshr_grid.h - the MSHR model over a parameter grid, as rows.
 *
 * One row per grid point: the swept parameters (by registry name), then
 * every result column (units in data/columns.c).  With `pmf` set the rows
 * are long-format instead: the swept parameters, occupancy, probability.
 * The rows go to a sink as each point is solved, so a streamed grid of any
 * size needs the memory of one point. */
#ifndef CM_MSHR_GRID_H
#define CM_MSHR_GRID_H

#include <stddef.h>

#include "data/err.h"
#include "data/params.h"
#include "data/progress.h"
#include "data/rows.h"
#include "data/sweep.h"
#include "data/table.h"

/* Header, then each point's rows, into sink. */
cm_status cm_mshr_grid_rows(const cm_params *base, cm_sweep *sweeps,
                            size_t nsweeps, int pmf, cm_progress_fn progress,
                            void *progress_arg, const cm_row_sink *sink,
                            cm_err *err);

/* The same rows in a table (*out NULL on error). */
cm_status cm_mshr_grid_table(const cm_params *base, cm_sweep *sweeps,
                             size_t nsweeps, int pmf, cm_progress_fn progress,
                             void *progress_arg, cm_table **out, cm_err *err);

#endif
