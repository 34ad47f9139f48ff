/* rows.c - row sinks: a CSV writer or a table (see rows.h). */
#include "data/rows.h"

static cm_status put_writer(void *arg, size_t n, const char *const *cells,
                            cm_err *err)
{
    return cm_csv_writer_row(arg, n, cells, err);
}

cm_row_sink cm_row_sink_writer(cm_csv_writer *w)
{
    return (cm_row_sink){put_writer, w};
}

static cm_status put_table(void *arg, size_t n, const char *const *cells,
                           cm_err *err)
{
    cm_table **t = arg;
    if (!*t) {
        *t = cm_table_new(n, cells);
        return *t ? CM_OK : cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    if (n != cm_table_ncols(*t))
        return cm_err_set(err, CM_EINTERNAL, "a row of %zu cells in a table "
                          "of %zu columns", n, cm_table_ncols(*t));
    return cm_table_append(*t, cells, err);
}

cm_status cm_rows_check_memory(size_t bytes_per_point, double points,
                               double limit, cm_err *err)
{
    double est = (double)bytes_per_point * points;
    if (est <= limit) return CM_OK;
    return cm_err_set(err, CM_EINPUT,
                      "the result would take about %.3g GB in memory (%.0f "
                      "points x %zu bytes), above mem.limit = %.3g GB: ask "
                      "for fewer points or raise --set mem.limit=BYTES",
                      est / 1e9, points, bytes_per_point, limit / 1e9);
}

cm_row_sink cm_row_sink_table(cm_table **t)
{
    *t = NULL;
    return (cm_row_sink){put_table, t};
}
