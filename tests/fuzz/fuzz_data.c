/* fuzz_data.c - the CSV layer: a table read whole, every cell read as
 * text, number and integer, every column looked up and read whole, the
 * table written back out; and the streaming reader with its row limit. */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>

#include "data/table.h"

static void read_whole(const uint8_t *data, size_t size)
{
    cm_table *t = NULL;
    cm_err err = {0};
    if (cm_table_read_buffer("fuzz.csv", (const char *)data, size, &t,
                             &err) != CM_OK)
        return;
    size_t nr = cm_table_nrows(t), nc = cm_table_ncols(t);
    for (size_t c = 0; c < nc; c++) {
        const char *name = cm_table_colname(t, c);
        size_t at;
        (void)cm_table_col_find(t, name);
        (void)cm_table_col_require(t, name, &at, &err);
        double *col = NULL;
        if (cm_table_get_column(t, c, &col, &err) == CM_OK) free(col);
    }
    for (size_t r = 0; r < nr; r++)
        for (size_t c = 0; c < nc; c++) {
            double d;
            long l;
            unsigned long line, col;
            (void)cm_table_cell(t, r, c);
            cm_table_cell_pos(t, r, c, &line, &col);
            (void)cm_table_get_double(t, r, c, &d, &err);
            (void)cm_table_get_long(t, r, c, &l, &err);
        }
    (void)cm_table_bytes(t);
    /* A device is written through: the writer's quoting without a file. */
    (void)cm_table_write_file(t, "/dev/null", &err);
    cm_table_free(t);
}

static void read_streamed(const uint8_t *data, size_t size)
{
    cm_csv_reader *r = NULL;
    cm_err err = {0};
    if (cm_csv_reader_open_buffer("fuzz.csv", (const char *)data, size, &r,
                                  &err) != CM_OK)
        return;
    size_t nc = cm_csv_reader_ncols(r);
    while (cm_csv_reader_next(r, &err) == 1)
        for (size_t c = 0; c < nc; c++) {
            double d;
            long l;
            (void)cm_csv_reader_get_double(r, c, &d, &err);
            (void)cm_csv_reader_get_long(r, c, &l, &err);
        }
    (void)cm_csv_reader_next(r, &err); /* after the end or the error */
    cm_csv_reader_close(r);
}

int fuzz_table(const uint8_t *data, size_t size)
{
    read_whole(data, size);
    read_streamed(data, size);
    return 0;
}
