/* profile_check.c - the numeric domain of a timing profile (see
 * profile_check.h).  It streams the file through the CSV reader once, so
 * the check costs one cheap pass over a file of a few thousand rows. */
#include "models/profile_check.h"

#include <math.h>
#include <string.h>

#include "data/number.h"
#include "data/table.h"

/* What one cell may hold; NULL when it is in the domain. */
static const char *out_of_domain(const char *text, int weight, double *x)
{
    cm_num_status ns = cm_number_read(text, x);
    if (ns == CM_NUM_SYNTAX || ns == CM_NUM_NOT_FINITE) return NULL;
    if (ns == CM_NUM_UNDERFLOW && !weight)
        return "underflows (nonzero below 2.2e-308, the smallest normal "
               "double)";
    double max = weight ? CM_PROFILE_MAX_WEIGHT : CM_PROFILE_MAX;
    if (ns == CM_NUM_OVERFLOW || fabs(*x) > max)
        return weight ? "is beyond 1e30, the largest weight of a profile's "
                        "bin"
                      : "is beyond 1e15, the largest time, count or rate a "
                        "profile holds (a run lasts at most 1e15 cycles)";
    return NULL;
}

cm_status cm_profile_check_file(const char *path, cm_err *err)
{
    cm_csv_reader *r = NULL;
    cm_err ignored = {0};
    if (!strcmp(path, "-")) return CM_OK; /* stdin can be read only once */
    /* Unreadable or malformed files are cm_profile_read's to report. */
    if (cm_csv_reader_open(path, &r, &ignored)) return CM_OK;
    long cq = cm_csv_reader_col_find(r, "quantity");
    long cols[3] = {cm_csv_reader_col_find(r, "lo"),
                    cm_csv_reader_col_find(r, "hi"),
                    cm_csv_reader_col_find(r, "value")};
    cm_status st = CM_OK;
    while (!st && cq >= 0 && cm_csv_reader_next(r, &ignored) == 1) {
        const char *q = cm_csv_reader_cell(r, (size_t)cq);
        int dist = strncmp(q, "rate.", 5) != 0;
        for (int i = 0; i < 3 && !st; i++) {
            if (cols[i] < 0) continue;
            double x;
            const char *why = out_of_domain(
                cm_csv_reader_cell(r, (size_t)cols[i]), dist && i == 2, &x);
            if (!why) continue;
            unsigned long line, col;
            cm_csv_reader_cell_pos(r, (size_t)cols[i], &line, &col);
            st = cm_err_at(err, CM_EINPUT, cm_csv_reader_name(r), line, col,
                           "column '%s': '%s' %s",
                           cm_csv_reader_colname(r, (size_t)cols[i]),
                           cm_csv_reader_cell(r, (size_t)cols[i]), why);
        }
    }
    cm_csv_reader_close(r);
    return st;
}
