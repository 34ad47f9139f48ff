/* rows.h - where a computation puts its rows: streamed to a CSV writer as
 * they are computed (memory independent of their number), or collected in
 * a table when the caller needs them all (plots, summaries).
 *
 * The first row is the header; every row has the header's width. */
#ifndef CM_ROWS_H
#define CM_ROWS_H

#include <stddef.h>

#include "data/err.h"
#include "data/table.h"

typedef struct cm_row_sink {
    cm_status (*put)(void *arg, size_t n, const char *const *cells,
                     cm_err *err);
    void *arg;
} cm_row_sink;

/* Rows straight to w (cm_csv_writer_row). */
cm_row_sink cm_row_sink_writer(cm_csv_writer *w);

/* Rows into a table made from the header row: *t starts NULL and belongs
 * to the caller afterwards (free it on error too). */
cm_row_sink cm_row_sink_table(cm_table **t);

/* A result that must be held whole (a table the caller builds at once):
 * bytes_per_point, measured on one point, times the points, against limit
 * (the mem.limit parameter).  CM_EINPUT stating the estimate when above. */
cm_status cm_rows_check_memory(size_t bytes_per_point, double points,
                               double limit, cm_err *err);

static inline cm_status cm_row_put(const cm_row_sink *s, size_t n,
                                   const char *const *cells, cm_err *err)
{
    return s->put(s->arg, n, cells, err);
}

#endif
