/* table.h - CSV tables on libcsv.
 *
 * A cm_table is a header row plus rows of string cells, with typed access by
 * column name.  Reading goes through libcsv (quoted fields, embedded commas
 * and newlines, CRLF, a UTF-8 BOM, blank lines skipped).  Every cell remembers
 * the line and column where it started, so a typed read that fails reports
 * "file:line:col: message".  Writing goes through libcsv's csv_fwrite to a
 * temporary file in the destination directory that is renamed into place on
 * commit, so no failure ever leaves a half-written file.
 *
 * No CSV byte is split or quoted by hand anywhere in cohmod: all of it goes
 * through this module. */
#ifndef CM_TABLE_H
#define CM_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "data/err.h"

typedef struct cm_table cm_table;

/* ---- reading ---------------------------------------------------------- */

/* Reads a whole CSV file with a header row.  A ragged row (cell count differs
 * from the header) is an error at that row.  `path` "-" reads stdin. */
cm_status cm_table_read_file(const char *path, cm_table **out, cm_err *err);

/* Same, refusing a table that would take more than limit bytes in memory
 * (the mem.limit parameter): estimated from the first MB of the file and
 * its size, before the rest is read; for stdin, as it grows.  CM_EINPUT
 * "file: the table would take about X GB in memory ...". */
cm_status cm_table_read_file_limit(const char *path, double limit,
                                   cm_table **out, cm_err *err);

/* Same, from memory; `name` is used in error locations. */
cm_status cm_table_read_buffer(const char *name, const char *buf, size_t len,
                               cm_table **out, cm_err *err);

void cm_table_free(cm_table *t);

size_t cm_table_nrows(const cm_table *t);
size_t cm_table_ncols(const cm_table *t);
const char *cm_table_colname(const cm_table *t, size_t col);
const char *cm_table_name(const cm_table *t); /* file name given at read */

/* Memory its data rows take (cell records and text, the header not
 * counted): one grid point's table times the points estimates a whole
 * grid's before it is computed. */
size_t cm_table_bytes(const cm_table *t);

/* Column index by exact header name, or -1. */
long cm_table_col_find(const cm_table *t, const char *name);

/* Like col_find, but a missing column is an error
 * "file:1:1: missing column 'name'". */
cm_status cm_table_col_require(const cm_table *t, const char *name,
                               size_t *col, cm_err *err);

/* Raw cell text (never NULL; "" for an empty field). */
const char *cm_table_cell(const cm_table *t, size_t row, size_t col);

/* Source position of a cell (1-based line and column of its first byte). */
void cm_table_cell_pos(const cm_table *t, size_t row, size_t col,
                       unsigned long *line, unsigned long *column);

/* Typed reads.  A cell that is not entirely a finite number (leading and
 * trailing blanks allowed) is an error "file:line:col: column 'x': expected a
 * number, got 'abc'". */
cm_status cm_table_get_double(const cm_table *t, size_t row, size_t col,
                              double *v, cm_err *err);
cm_status cm_table_get_long(const cm_table *t, size_t row, size_t col,
                            long *v, cm_err *err);

/* Whole numeric column; *vals is malloc'd (caller frees). */
cm_status cm_table_get_column(const cm_table *t, size_t col, double **vals,
                              cm_err *err);

/* ---- streaming reader ------------------------------------------------- */

/* For input too large to hold: one row at a time, through the same parser
 * (cm_table_read_* are built on it), with the same messages and exact
 * positions.  Memory is bounded: a row (with its quoted newlines) longer
 * than CM_CSV_ROW_MAX bytes is an error "file:line:1: row longer than N
 * bytes", where line is where the row starts. */
typedef struct cm_csv_reader cm_csv_reader;

#define CM_CSV_ROW_MAX ((size_t)1 << 20)

/* Opens and reads the header row (errors as cm_table_read_file's).  `path`
 * "-" reads stdin. */
cm_status cm_csv_reader_open(const char *path, cm_csv_reader **out,
                             cm_err *err);
/* From memory, which must outlive the reader; `name` is used in errors. */
cm_status cm_csv_reader_open_buffer(const char *name, const char *buf,
                                    size_t len, cm_csv_reader **out,
                                    cm_err *err);
/* From a read function: up to cap bytes into buf, returning the count, 0 at
 * the end, -1 on error (with errno set).  For input already partly read by
 * someone else, such as a format sniffer. */
typedef long (*cm_csv_read_fn)(void *ctx, char *buf, size_t cap);
cm_status cm_csv_reader_open_fn(const char *name, cm_csv_read_fn fn,
                                void *ctx, cm_csv_reader **out, cm_err *err);

/* Next data row: 1 when there is one, 0 at the end, -1 on error (a ragged
 * row, bad quoting, NUL, read failure; every later call repeats it).  Cells
 * of the previous row are gone. */
int cm_csv_reader_next(cm_csv_reader *r, cm_err *err);

const char *cm_csv_reader_name(const cm_csv_reader *r);
size_t cm_csv_reader_ncols(const cm_csv_reader *r);
const char *cm_csv_reader_colname(const cm_csv_reader *r, size_t col);
long cm_csv_reader_col_find(const cm_csv_reader *r, const char *name);
cm_status cm_csv_reader_col_require(const cm_csv_reader *r, const char *name,
                                    size_t *col, cm_err *err);

/* The current row (after next returned 1): "" and 0:0 otherwise. */
const char *cm_csv_reader_cell(const cm_csv_reader *r, size_t col);
void cm_csv_reader_cell_pos(const cm_csv_reader *r, size_t col,
                            unsigned long *line, unsigned long *column);
cm_status cm_csv_reader_get_double(const cm_csv_reader *r, size_t col,
                                   double *v, cm_err *err);
cm_status cm_csv_reader_get_long(const cm_csv_reader *r, size_t col, long *v,
                                 cm_err *err);
/* The typed reads' error, for a caller with its own cell syntax:
 * "file:line:col: column 'x': expected <what>, got '<cell>'". */
cm_status cm_csv_reader_cell_error(const cm_csv_reader *r, size_t col,
                                   const char *what, cm_err *err);

/* Input bytes consumed so far (a BOM included). */
uint64_t cm_csv_reader_bytes_read(const cm_csv_reader *r);
void cm_csv_reader_close(cm_csv_reader *r);

/* ---- building and writing -------------------------------------------- */

/* An empty table with the given header, for building output in memory. */
cm_table *cm_table_new(size_t ncols, const char *const *names);

/* Appends a row of exactly ncols cells (copied). */
cm_status cm_table_append(cm_table *t, const char *const *cells, cm_err *err);

/* Writes the table atomically to `path` ("-" or NULL: stdout). */
cm_status cm_table_write_file(const cm_table *t, const char *path, cm_err *err);

/* Formats a double the one way cohmod writes numbers: shortest "%.*g" that
 * round-trips through strtod (<= 17 significant digits), "nan", "inf",
 * "-inf".  Deterministic, so identical results give identical bytes. */
void cm_fmt_double(char buf[32], double v);

/* The cell of a value a column documents as optional: cm_fmt_double, but
 * empty for NaN (not measured, or undefined: a ratio over no events), so
 * a result file never holds "nan".  Infinities are written: where one can
 * occur, the column's documentation says what it means. */
void cm_fmt_optional(char buf[32], double v);

/* ---- streaming writer ------------------------------------------------- */

/* For output too large or too incremental to build in memory.  Rows go to
 * "<path>.tmp.XXXXXX" beside the target; commit flushes, fsyncs and renames;
 * abort (or any failed write) removes the temporary.  A NULL or "-" path
 * writes to stdout, where commit only flushes. */
typedef struct cm_csv_writer cm_csv_writer;

cm_status cm_csv_writer_open(const char *path, cm_csv_writer **out,
                             cm_err *err);
cm_status cm_csv_writer_row(cm_csv_writer *w, size_t n,
                            const char *const *cells, cm_err *err);
/* Row of numbers, each formatted with cm_fmt_double. */
cm_status cm_csv_writer_row_doubles(cm_csv_writer *w, size_t n,
                                    const double *vals, cm_err *err);
cm_status cm_csv_writer_commit(cm_csv_writer *w, cm_err *err); /* frees w */
void cm_csv_writer_abort(cm_csv_writer *w);                     /* frees w */

#endif
