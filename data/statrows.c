/* statrows.c - statistics rows back from their CSV, and the lookup
 * (statrows.h).  The models never call the simulator (design.md, property
 * 4): calibration reads `cohmod sim --out` files. */
#include "data/statrows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/table.h"

static cm_status cell_double(const cm_table *t, size_t r, size_t c, double *v,
                             cm_err *err)
{
    const char *s = cm_table_cell(t, r, c);
    if (!*s || !strcmp(s, "nan")) {
        *v = NAN;
        return CM_OK;
    }
    return cm_table_get_double(t, r, c, v, err);
}

cm_status cm_stats_read_rows(const char *path, cm_stat_row **rows, size_t *n,
                             cm_err *err)
{
    static const char *const cols[5] = {"metric", "component", "value",
                                        "ci95_lo", "ci95_hi"};
    *rows = NULL;
    *n = 0;
    cm_table *t = NULL;
    cm_status st = cm_table_read_file(path, &t, err);
    size_t c[5];
    for (int k = 0; k < 5 && !st; k++)
        st = cm_table_col_require(t, cols[k], &c[k], err);
    size_t nr = st ? 0 : cm_table_nrows(t), names = 0;
    for (size_t r = 0; r < nr; r++)
        names += strlen(cm_table_cell(t, r, c[1])) + 1;
    /* One block: the rows, then their component names. */
    cm_stat_row *out = st ? NULL : malloc(nr * sizeof *out + names + 1);
    if (!st && !out) st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    char *store = out ? (char *)(out + nr) : NULL;
    for (size_t r = 0; r < nr && !st; r++) {
        const char *metric = cm_table_cell(t, r, c[0]);
        const char *comp = cm_table_cell(t, r, c[1]);
        if (strlen(metric) >= sizeof out[r].metric) {
            unsigned long line, col;
            cm_table_cell_pos(t, r, c[0], &line, &col);
            st = cm_err_at(err, CM_EINPUT, cm_table_name(t), line, col,
                           "metric name too long");
            break;
        }
        strcpy(out[r].metric, metric);
        strcpy(store, comp);
        out[r].component = store;
        store += strlen(comp) + 1;
        if (!st) st = cell_double(t, r, c[2], &out[r].value, err);
        if (!st) st = cell_double(t, r, c[3], &out[r].ci95_lo, err);
        if (!st) st = cell_double(t, r, c[4], &out[r].ci95_hi, err);
    }
    cm_table_free(t);
    if (st) {
        free(out);
        return st;
    }
    *rows = out;
    *n = nr;
    return CM_OK;
}

const cm_stat_row *cm_stats_find(const cm_stat_row *rows, size_t n,
                                 const char *metric, const char *component)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].metric, metric) &&
            !strcmp(rows[i].component, component))
            return &rows[i];
    return NULL;
}
