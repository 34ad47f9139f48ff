/* mshr_grid.c - the MSHR model over a parameter grid (see mshr_grid.h). */
#include "models/mshr_grid.h"

#include <stdio.h>
#include <stdlib.h>

#include "models/mshr.h"

static const char *const result_columns[] = {
    "mean_occupancy", "p_full",        "p_resfail",   "p_stall_mshr",
    "p_stall_line",   "miss_throughput",
    "merge_rate",     "inst_rate",     "issue_fraction", "latency_mem",
    "latency_eff",    "mshr_wait",     "bandwidth",   "util_mshr",
    "util_noc",       "util_l2",       "util_l2_mshr", "util_dram",
    "bottleneck",     "saturated",     "sources",     "iterations"};
#define NRESULT (sizeof result_columns / sizeof result_columns[0])

static void result_cells(const cm_mshr_result *r, char buf[][32])
{
    const double v[] = {r->mean_occupancy, r->p_full, r->p_resfail,
                        r->p_stall_mshr, r->p_stall_line, r->miss_throughput, r->merge_rate, r->inst_rate,
                        r->issue_fraction, r->latency_mem, r->latency_eff,
                        r->mshr_wait, r->bandwidth_gbs,
                        r->util[CM_RES_MSHR], r->util[CM_RES_NOC],
                        r->util[CM_RES_L2], r->util[CM_RES_L2_MSHR],
                        r->util[CM_RES_DRAM]};
    size_t i = 0;
    for (; i < sizeof v / sizeof v[0]; i++) cm_fmt_double(buf[i], v[i]);
    snprintf(buf[i++], 32, "%s", cm_mshr_resource_name(r->bottleneck));
    snprintf(buf[i++], 32, "%s", r->saturated ? "yes" : "no");
    snprintf(buf[i++], 32, "%zu", r->sources);
    snprintf(buf[i++], 32, "%d", r->iterations);
}

cm_status cm_mshr_grid_rows(const cm_params *base, cm_sweep *sweeps,
                            size_t nsweeps, int pmf, cm_progress_fn progress,
                            void *progress_arg, const cm_row_sink *sink,
                            cm_err *err)
{
    size_t ncols = nsweeps + (pmf ? 2 : NRESULT);
    const char **header = calloc(ncols, sizeof *header);
    char (*cells)[32] = calloc(ncols, sizeof *cells);
    const char **row = calloc(ncols, sizeof *row);
    double *occ = NULL;
    cm_mshr_ws *ws = cm_mshr_ws_new();
    cm_grid grid = {0};
    cm_status st = CM_OK;
    if (!header || !cells || !row || !ws) {
        st = cm_err_set(err, CM_EINTERNAL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nsweeps; i++) header[i] = sweeps[i].param->name;
    if (pmf) {
        header[nsweeps] = "occupancy";
        header[nsweeps + 1] = "probability";
    } else {
        for (size_t i = 0; i < NRESULT; i++)
            header[nsweeps + i] = result_columns[i];
    }
    for (size_t i = 0; i < ncols; i++) row[i] = cells[i];
    /* The grid first: a bad one is refused before any row is out. */
    if ((st = cm_grid_init(&grid, sweeps, nsweeps, err)) ||
        (st = cm_row_put(sink, ncols, header, err)))
        goto done;

    cm_params p = *base;
    while (!st && cm_grid_next(&grid, &p)) {
        cm_mshr_input in;
        cm_mshr_result res;
        if ((st = cm_params_validate(&p, err))) break;
        cm_mshr_input_from_params(&p, &in);
        if (pmf) {
            double *grown = realloc(occ, ((size_t)in.mshrs + 1) * sizeof *occ);
            if (!grown) {
                st = cm_err_set(err, CM_EINTERNAL, "out of memory");
                break;
            }
            occ = grown;
        }
        if ((st = cm_mshr_solve(&in, ws, &res, occ, err))) break;
        for (size_t i = 0; i < nsweeps; i++)
            cm_param_format(sweeps[i].param,
                            cm_param_get(&p, sweeps[i].param), cells[i], 32);
        if (pmf) {
            for (size_t j = 0; j <= (size_t)in.mshrs && !st; j++) {
                snprintf(cells[nsweeps], 32, "%zu", j);
                cm_fmt_double(cells[nsweeps + 1], occ[j]);
                st = cm_row_put(sink, ncols, row, err);
            }
        } else {
            result_cells(&res, cells + nsweeps);
            st = cm_row_put(sink, ncols, row, err);
        }
        if (progress) progress(grid.done, grid.points, progress_arg);
    }
done:
    cm_grid_free(&grid);
    cm_mshr_ws_free(ws);
    free(occ);
    free(row);
    free(cells);
    free(header);
    return st;
}

cm_status cm_mshr_grid_table(const cm_params *base, cm_sweep *sweeps,
                             size_t nsweeps, int pmf, cm_progress_fn progress,
                             void *progress_arg, cm_table **out, cm_err *err)
{
    cm_table *t;
    cm_row_sink sink = cm_row_sink_table(&t);
    cm_status st = cm_mshr_grid_rows(base, sweeps, nsweeps, pmf, progress,
                                     progress_arg, &sink, err);
    if (st) {
        cm_table_free(t);
        t = NULL;
    }
    *out = t;
    return st;
}
