/* check_table.c - the CSV layer: parsing, positions in errors, atomic
 * writing and number formatting. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <unistd.h>

#include "data/atomic.h"
#include "data/rows.h"
#include "data/table.h"
#include "tests/testutil.h"

#define BOM "\xEF\xBB\xBF"

static cm_table *parse_ok(const char *text)
{
    cm_table *t = NULL;
    cm_err err = {0};
    cm_status st = cm_table_read_buffer("f.csv", text, strlen(text), &t, &err);
    ck_assert_msg(st == CM_OK, "unexpected error: %s", err.msg);
    ck_assert_ptr_nonnull(t);
    return t;
}

static void parse_fails(const char *text, const char *msg)
{
    cm_table *t = (cm_table *)1;
    cm_err err = {0};
    cm_status st = cm_table_read_buffer("f.csv", text, strlen(text), &t, &err);
    ck_assert_int_eq(st, CM_EINPUT);
    ck_assert_int_eq(err.code, CM_EINPUT);
    ck_assert_ptr_null(t);
    ck_assert_str_eq(err.msg, msg);
}

static void assert_pos(const cm_table *t, size_t row, size_t col,
                       unsigned long line, unsigned long column)
{
    unsigned long l, c;
    cm_table_cell_pos(t, row, col, &l, &c);
    ck_assert_msg(l == line && c == column,
                  "cell (%zu,%zu) '%s' at %lu:%lu, expected %lu:%lu", row,
                  col, cm_table_cell(t, row, col), l, c, line, column);
}

/* Entries of `dir` other than . and .. */
/* Removes dir and what it holds, and frees the name. */
static void dir_remove(char *dir)
{
    tu_rm_tree(dir);
    free(dir);
}

/* A fixed-seed generator, so every run tests the same inputs. */
static uint64_t lcg_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s;
}

/* ---- reading ---------------------------------------------------------- */

START_TEST(test_read_basic)
{
    cm_table *t = parse_ok("x,y,name\n1,2.5,a\n3,-4e2,b\n");
    ck_assert_uint_eq(cm_table_ncols(t), 3);
    ck_assert_uint_eq(cm_table_nrows(t), 2);
    ck_assert_str_eq(cm_table_colname(t, 2), "name");
    ck_assert_str_eq(cm_table_name(t), "f.csv");
    ck_assert_int_eq(cm_table_col_find(t, "y"), 1);
    ck_assert_int_eq(cm_table_col_find(t, "Y"), -1);
    ck_assert_str_eq(cm_table_cell(t, 1, 2), "b");
    double v;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_get_double(t, 1, 1, &v, &err), CM_OK);
    ck_assert(v == -400.0);
    assert_pos(t, 1, 2, 3, 8);
    /* Out-of-range access is harmless. */
    ck_assert_str_eq(cm_table_cell(t, 2, 0), "");
    ck_assert_str_eq(cm_table_cell(t, 0, 3), "");
    ck_assert_int_ne(cm_table_get_double(t, 5, 0, &v, &err), CM_OK);
    cm_table_free(t);
}
END_TEST

START_TEST(test_read_tricky_fields)
{
    /* BOM, CRLF, blank lines (also blank-only ones), quoted commas, quotes
     * and newlines, blanks around fields, UTF-8, no final newline. */
    cm_table *t = parse_ok(BOM "a,b,c\r\n"
                               "\r\n"
                               "\"x,y\",\"say \"\"hi\"\"\",\"l1\r\nl2\nl3\"\r\n"
                               "   \t\r\n"
                               "  pad  ,\"  kept  \",\xC3\xA9t\xC3\xA9\n"
                               "\n"
                               ",,\"\"\n"
                               "last,1,2");
    ck_assert_uint_eq(cm_table_nrows(t), 4);
    ck_assert_str_eq(cm_table_colname(t, 0), "a");
    ck_assert_str_eq(cm_table_cell(t, 0, 0), "x,y");
    ck_assert_str_eq(cm_table_cell(t, 0, 1), "say \"hi\"");
    ck_assert_str_eq(cm_table_cell(t, 0, 2), "l1\r\nl2\nl3");
    ck_assert_str_eq(cm_table_cell(t, 1, 0), "pad");
    ck_assert_str_eq(cm_table_cell(t, 1, 1), "  kept  ");
    ck_assert_str_eq(cm_table_cell(t, 1, 2), "\xC3\xA9t\xC3\xA9");
    ck_assert_str_eq(cm_table_cell(t, 2, 0), "");
    ck_assert_str_eq(cm_table_cell(t, 2, 2), "");
    ck_assert_str_eq(cm_table_cell(t, 3, 2), "2");
    /* The BOM takes no column; quoted fields start at the quote. */
    assert_pos(t, 0, 0, 3, 1);
    assert_pos(t, 0, 1, 3, 7);
    assert_pos(t, 0, 2, 3, 20);
    assert_pos(t, 1, 0, 7, 3);
    assert_pos(t, 1, 1, 7, 9);
    assert_pos(t, 1, 2, 7, 20);
    assert_pos(t, 2, 1, 9, 2);
    assert_pos(t, 3, 2, 10, 8);
    cm_table_free(t);
}
END_TEST

START_TEST(test_position_after_multiline_field)
{
    const char *text = "id,note,val\n"
                       "1,\"first\nsecond, still\n\nfourth\",abc\n"
                       "2,plain,7\n";
    cm_table *t = parse_ok(text);
    assert_pos(t, 0, 1, 2, 3);
    assert_pos(t, 0, 2, 5, 9);
    assert_pos(t, 1, 0, 6, 1);
    assert_pos(t, 1, 2, 6, 9);
    double v;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_get_double(t, 0, 2, &v, &err), CM_EINPUT);
    ck_assert_str_eq(err.msg,
                     "f.csv:5:9: column 'val': expected a number, got 'abc'");
    cm_table_free(t);
}
END_TEST

START_TEST(test_lone_cr_line_ends)
{
    cm_table *t = parse_ok("a,b\r1,2\r3,x\r");
    ck_assert_uint_eq(cm_table_nrows(t), 2);
    assert_pos(t, 1, 1, 3, 3);
    cm_table_free(t);
}
END_TEST

START_TEST(test_ragged_rows)
{
    parse_fails("a,b\n1,2\n3,4,5\n", "f.csv:3:1: row has 3 fields, header has 2");
    parse_fails("a,b\n1,2\n\n  3\n", "f.csv:4:3: row has 1 fields, header has 2");
    parse_fails("a,b\n\"x\ny\",1,2\n", "f.csv:2:1: row has 3 fields, header has 2");
    parse_fails("a,b\n1,2\n3", "f.csv:3:1: row has 1 fields, header has 2");
}
END_TEST

START_TEST(test_header_errors)
{
    parse_fails("", "f.csv:1:1: empty file, expected a header row");
    parse_fails("\n\r\n  \n", "f.csv:1:1: empty file, expected a header row");
    parse_fails(BOM, "f.csv:1:1: empty file, expected a header row");
    parse_fails("x,y,x\n1,2,3\n", "f.csv:1:5: duplicate column 'x' (also column 1)");
    parse_fails("x,,y\n", "f.csv:1:3: empty column name in the header row");
    /* A header alone is a valid, empty table. */
    cm_table *t = parse_ok("x,y");
    ck_assert_uint_eq(cm_table_nrows(t), 0);
    ck_assert_uint_eq(cm_table_ncols(t), 2);
    cm_table_free(t);
}
END_TEST

START_TEST(test_quote_errors)
{
    parse_fails("a,b\n1,\"open\n2,3\n",
                "f.csv:2:3: quoted field is not closed before the end of the file");
    parse_fails("a,b\n1,\"ab\"c\n",
                "f.csv:2:7: text after the closing quote of a field");
    parse_fails("a,b\n1,\xC3\xA9\"c\n",
                "f.csv:2:4: '\"' inside an unquoted field (quote the whole "
                "field and double the '\"')");
}
END_TEST

START_TEST(test_nul_byte)
{
    static const char text[] = "a,b\n1,2\0\n";
    cm_table *t = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_read_buffer("f.csv", text, sizeof text - 1, &t,
                                          &err),
                     CM_EINPUT);
    ck_assert_str_eq(err.msg, "f.csv:2:4: NUL byte: not a text file");
}
END_TEST

START_TEST(test_missing_column)
{
    cm_table *t = parse_ok("a,b\n1,2\n");
    size_t col = 99;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_col_require(t, "b", &col, &err), CM_OK);
    ck_assert_uint_eq(col, 1);
    ck_assert_int_eq(cm_table_col_require(t, "zeta", &col, &err), CM_EINPUT);
    ck_assert_str_eq(err.msg, "f.csv:1:1: missing column 'zeta'");
    cm_table_free(t);
}
END_TEST

START_TEST(test_get_double)
{
    static const char *const good[][2] = {
        {" 1.5 ", "1.5"}, {"-2e-3", "-0.002"}, {"\t7\t", "7"},
        {"1e-310", "1e-310"}, {"0x10", "16"}};
    static const char *const bad[] = {"abc", "", "  ", "nan", "inf",
                                      "-Infinity", "1e999", "12abc", "1 2",
                                      "1,5"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        const char *row[] = {good[i][0]};
        cm_table *t = cm_table_new(1, (const char *const[]){"x"});
        cm_err err = {0};
        ck_assert_int_eq(cm_table_append(t, row, &err), CM_OK);
        double v = NAN;
        ck_assert_msg(cm_table_get_double(t, 0, 0, &v, &err) == CM_OK,
                      "'%s': %s", good[i][0], err.msg);
        ck_assert_msg(v == strtod(good[i][1], NULL), "'%s' read as %g",
                      good[i][0], v);
        cm_table_free(t);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[64], want[128];
        snprintf(text, sizeof text, "x,y\n1,\"%s\"\n", bad[i]);
        snprintf(want, sizeof want,
                 "f.csv:2:3: column 'y': expected a number, got '%s'", bad[i]);
        cm_table *t = parse_ok(text);
        double v = 42;
        cm_err err = {0};
        ck_assert_int_eq(cm_table_get_double(t, 0, 1, &v, &err), CM_EINPUT);
        ck_assert_str_eq(err.msg, want);
        ck_assert(v == 42);
        cm_table_free(t);
    }
}
END_TEST

START_TEST(test_get_long)
{
    cm_table *t = parse_ok("n\n42\n -7 \n1e+06\n1.5\n99999999999999999999\n"
                           "9223372036854775807\nx\n");
    long v = 0;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_get_long(t, 0, 0, &v, &err), CM_OK);
    ck_assert_int_eq(v, 42);
    ck_assert_int_eq(cm_table_get_long(t, 1, 0, &v, &err), CM_OK);
    ck_assert_int_eq(v, -7);
    ck_assert_int_eq(cm_table_get_long(t, 2, 0, &v, &err), CM_OK);
    ck_assert_int_eq(v, 1000000);
    ck_assert_int_eq(cm_table_get_long(t, 3, 0, &v, &err), CM_EINPUT);
    ck_assert_str_eq(err.msg, "f.csv:5:1: column 'n': expected an integer, got '1.5'");
    ck_assert_int_eq(cm_table_get_long(t, 4, 0, &v, &err), CM_EINPUT);
    ck_assert_int_eq(cm_table_get_long(t, 5, 0, &v, &err), CM_OK);
    ck_assert(v == 9223372036854775807L);
    ck_assert_int_eq(cm_table_get_long(t, 6, 0, &v, &err), CM_EINPUT);
    ck_assert_str_eq(err.msg, "f.csv:8:1: column 'n': expected an integer, got 'x'");
    cm_table_free(t);
}
END_TEST

START_TEST(test_get_column)
{
    cm_table *t = parse_ok("a,b\n1,x\n2,3\n4,\"5\n\"\n");
    double *v = (double *)1;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_get_column(t, 0, &v, &err), CM_OK);
    ck_assert(v[0] == 1 && v[1] == 2 && v[2] == 4);
    free(v);
    ck_assert_int_eq(cm_table_get_column(t, 1, &v, &err), CM_EINPUT);
    ck_assert_ptr_null(v);
    ck_assert_str_eq(err.msg, "f.csv:2:3: column 'b': expected a number, got 'x'");
    cm_table_free(t);
}
END_TEST

START_TEST(test_error_excerpt_is_short_and_one_line)
{
    char text[400] = "a\n\"";
    for (int i = 0; i < 100; i++) strcat(text, "\xC3\xA9");
    strcat(text, "\"\n\"x\ny\"\n");
    cm_table *t = parse_ok(text);
    double v;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_get_double(t, 0, 0, &v, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "...'"));
    ck_assert_uint_lt(strlen(err.msg), 120);
    /* The cut keeps whole UTF-8 characters. */
    const char *q = strchr(err.msg, '\'');
    q = strchr(q + 1, '\'') + 1;
    ck_assert_uint_eq((size_t)(strstr(q, "...") - q) % 2, 0);
    ck_assert_int_eq(cm_table_get_double(t, 1, 0, &v, &err), CM_EINPUT);
    ck_assert_str_eq(err.msg, "f.csv:3:1: column 'a': expected a number, got 'x?y'");
    cm_table_free(t);
}
END_TEST

START_TEST(test_garbage_never_crashes)
{
    uint64_t seed = 12345;
    static const char alphabet[] = ",\"\r\n a1\xEF\xBB\xBF\t";
    for (int round = 0; round < 3000; round++) {
        size_t len = (size_t)(lcg_next(&seed) >> 33) % 300;
        char *buf = malloc(len + 1);
        ck_assert_ptr_nonnull(buf);
        for (size_t i = 0; i < len; i++) {
            uint64_t x = lcg_next(&seed) >> 24;
            buf[i] = round % 2 ? (char)(x & 0xFF)
                               : alphabet[x % (sizeof alphabet - 1)];
        }
        cm_table *t = NULL;
        cm_err err = {0};
        cm_status st = cm_table_read_buffer("g", buf, len, &t, &err);
        ck_assert(st == CM_OK || st == CM_EINPUT);
        if (st == CM_OK) {
            ck_assert_uint_ge(cm_table_ncols(t), 1);
            for (size_t r = 0; r < cm_table_nrows(t); r++)
                for (size_t c = 0; c < cm_table_ncols(t); c++) {
                    unsigned long l, k;
                    cm_table_cell_pos(t, r, c, &l, &k);
                    ck_assert(l >= 2 && k >= 1);
                    double v;
                    cm_table_get_double(t, r, c, &v, &err);
                }
            cm_table_free(t);
        } else {
            ck_assert_ptr_null(t);
            ck_assert_msg(strncmp(err.msg, "g:", 2) == 0, "%s", err.msg);
        }
        free(buf);
    }
}
END_TEST

START_TEST(test_read_file_matches_buffer_across_chunks)
{
    /* Big enough for several read chunks, with a BOM, quoted multi-line
     * fields and CRLFs straddling the chunk boundaries. */
    size_t cap = 1 << 20, n = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    n += (size_t)sprintf(text, BOM "k,text,v\r\n");
    for (int i = 0; n < cap - 200; i++)
        n += (size_t)sprintf(text + n, "%d,\"line\r\n%*s,\"\"q\"\"\",%d.5\r\n",
                             i, i % 37, "", i);
    char *dir = tu_tmpdir();
    char *path = tu_write_file(dir, "big.csv", text);
    cm_table *a = NULL, *b = NULL;
    cm_err err = {0};
    ck_assert_msg(cm_table_read_file(path, &a, &err) == CM_OK, "%s", err.msg);
    ck_assert_msg(cm_table_read_buffer(path, text, n, &b, &err) == CM_OK, "%s",
                  err.msg);
    ck_assert_str_eq(cm_table_name(a), path);
    ck_assert_uint_eq(cm_table_nrows(a), cm_table_nrows(b));
    ck_assert_uint_gt(cm_table_nrows(a), 10000);
    for (size_t r = 0; r < cm_table_nrows(a); r++)
        for (size_t c = 0; c < 3; c++) {
            unsigned long la, ca, lb, cb;
            cm_table_cell_pos(a, r, c, &la, &ca);
            cm_table_cell_pos(b, r, c, &lb, &cb);
            ck_assert_str_eq(cm_table_cell(a, r, c), cm_table_cell(b, r, c));
            ck_assert(la == lb && ca == cb);
        }
    size_t last = cm_table_nrows(a) - 1;
    assert_pos(a, last, 0, 2 * last + 2, 1);
    assert_pos(a, last, 2, 2 * last + 3, (unsigned long)(last % 37) + 9);
    cm_table_free(a);
    cm_table_free(b);
    free(text);
    free(path);
    dir_remove(dir);
}
END_TEST

START_TEST(test_read_file_errors)
{
    cm_table *t = (cm_table *)1;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_read_file("/nonexistent/x.csv", &t, &err),
                     CM_EINPUT);
    ck_assert_ptr_null(t);
    ck_assert_str_eq(err.msg,
                     "/nonexistent/x.csv: cannot open: No such file or directory");
    char *dir = tu_tmpdir();
    ck_assert_int_eq(cm_table_read_file(dir, &t, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "cannot read: Is a directory"));
    char *path = tu_write_file(dir, "r.csv", "a,b\n1\n");
    ck_assert_int_eq(cm_table_read_file(path, &t, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "r.csv:2:1: row has 1 fields"));
    free(path);
    dir_remove(dir);
}
END_TEST

/* A result aimed at a device (here through a symlink to /dev/null) is
 * written through, not renamed over it: a rename would have replaced the
 * link (or, given /dev/null itself, the device) with a regular file. */
START_TEST(test_atomic_write_through_device)
{
    char *dir = tu_tmpdir();
    char link[4096];
    snprintf(link, sizeof link, "%s/null", dir);
    ck_assert_int_eq(symlink("/dev/null", link), 0);
    cm_err err = {0};
    ck_assert_int_eq(cm_atomic_write(link, "a,b\n", 4, &err), CM_OK);
    struct stat sb;
    ck_assert_int_eq(lstat(link, &sb), 0);
    ck_assert_msg(S_ISLNK(sb.st_mode), "the symlink was replaced");
    ck_assert_int_eq(stat(link, &sb), 0);
    ck_assert(S_ISCHR(sb.st_mode));
    unlink(link);
    dir_remove(dir);
}
END_TEST

START_TEST(test_read_stdin)
{
    char *dir = tu_tmpdir();
    char *path = tu_write_file(dir, "in.csv", "a\n\"x,y\"\n");
    ck_assert_ptr_nonnull(freopen(path, "rb", stdin));
    cm_table *t = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_read_file("-", &t, &err), CM_OK);
    ck_assert_str_eq(cm_table_cell(t, 0, 0), "x,y");
    ck_assert_str_eq(cm_table_name(t), "<stdin>");
    cm_table_free(t);
    free(path);
    dir_remove(dir);
}
END_TEST

START_TEST(test_large_input_is_fast)
{
    size_t cap = 10u << 20, n = 0;
    char *text = malloc(cap + 64);
    ck_assert_ptr_nonnull(text);
    n += (size_t)sprintf(text, "t,x,y,label\n");
    size_t rows = 0;
    for (; n < cap; rows++)
        n += (size_t)sprintf(text + n, "%zu,%.6g,%.6g,\"r%zu\"\n", rows,
                             rows * 0.001, rows * 1.5e-3, rows);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cm_table *t = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_table_read_buffer("big", text, n, &t, &err), CM_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) +
                  (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    ck_assert_uint_eq(cm_table_nrows(t), rows);
    assert_pos(t, rows - 1, 0, rows + 1, 1);
#if defined(__SANITIZE_ADDRESS__)
    double limit = 10.0; /* instrumented build */
#else
    double limit = 1.0;
#endif
    ck_assert_msg(secs < limit, "10 MB took %.2f s", secs);
    cm_table_free(t);
    free(text);
}
END_TEST

/* ---- streaming reader ------------------------------------------------- */

static cm_csv_reader *reader_ok(const char *text)
{
    cm_csv_reader *r = NULL;
    cm_err err = {0};
    cm_status st = cm_csv_reader_open_buffer("f.csv", text, strlen(text), &r,
                                             &err);
    ck_assert_msg(st == CM_OK, "unexpected error: %s", err.msg);
    ck_assert_ptr_nonnull(r);
    return r;
}

static void assert_reader_pos(const cm_csv_reader *r, size_t col,
                              unsigned long line, unsigned long column)
{
    unsigned long l, c;
    cm_csv_reader_cell_pos(r, col, &l, &c);
    ck_assert_msg(l == line && c == column,
                  "cell %zu '%s' at %lu:%lu, expected %lu:%lu", col,
                  cm_csv_reader_cell(r, col), l, c, line, column);
}

START_TEST(test_reader_rows)
{
    cm_csv_reader *r = reader_ok(BOM "x,y,name\r\n1,2.5,a\n\n"
                                     "\"3\n\",-4e2 , \"b,c\"\n"
                                     "  7,0x10,d");
    cm_err err = {0};
    ck_assert_uint_eq(cm_csv_reader_ncols(r), 3);
    ck_assert_str_eq(cm_csv_reader_name(r), "f.csv");
    ck_assert_str_eq(cm_csv_reader_colname(r, 2), "name");
    ck_assert_str_eq(cm_csv_reader_colname(r, 3), "");
    ck_assert_int_eq(cm_csv_reader_col_find(r, "y"), 1);
    ck_assert_int_eq(cm_csv_reader_col_find(r, "z"), -1);
    size_t col = 9;
    ck_assert_int_eq(cm_csv_reader_col_require(r, "name", &col, &err), CM_OK);
    ck_assert_uint_eq(col, 2);
    ck_assert_int_eq(cm_csv_reader_col_require(r, "z", &col, &err), CM_EINPUT);
    ck_assert_str_eq(err.msg, "f.csv:1:1: missing column 'z'");
    /* No row yet: cells are empty. */
    ck_assert_str_eq(cm_csv_reader_cell(r, 0), "");
    assert_reader_pos(r, 0, 0, 0);
    ck_assert_int_eq(cm_csv_reader_next(r, &err), 1);
    ck_assert_str_eq(cm_csv_reader_cell(r, 2), "a");
    assert_reader_pos(r, 1, 2, 3);
    double v;
    ck_assert_int_eq(cm_csv_reader_get_double(r, 1, &v, &err), CM_OK);
    ck_assert(v == 2.5);
    ck_assert_int_eq(cm_csv_reader_get_long(r, 1, &(long){0}, &err),
                     CM_EINPUT);
    ck_assert_str_eq(err.msg,
                     "f.csv:2:3: column 'y': expected an integer, got '2.5'");
    ck_assert_int_eq(cm_csv_reader_next(r, &err), 1);
    ck_assert_str_eq(cm_csv_reader_cell(r, 0), "3\n");
    ck_assert_str_eq(cm_csv_reader_cell(r, 2), "b,c");
    assert_reader_pos(r, 0, 4, 1);
    assert_reader_pos(r, 1, 5, 3);
    assert_reader_pos(r, 2, 5, 10);
    long n;
    ck_assert_int_eq(cm_csv_reader_get_long(r, 1, &n, &err), CM_OK);
    ck_assert_int_eq(n, -400);
    ck_assert_int_eq(cm_csv_reader_cell_error(r, 2, "a colour", &err),
                     CM_EINPUT);
    ck_assert_str_eq(err.msg,
                     "f.csv:5:10: column 'name': expected a colour, got "
                     "'b,c'");
    ck_assert_int_eq(cm_csv_reader_next(r, &err), 1);
    assert_reader_pos(r, 0, 6, 3);
    ck_assert_int_eq(cm_csv_reader_get_double(r, 1, &v, &err), CM_OK);
    ck_assert(v == 16);
    ck_assert_int_eq(cm_csv_reader_next(r, &err), 0);
    ck_assert_int_eq(cm_csv_reader_next(r, &err), 0);
    ck_assert_str_eq(cm_csv_reader_cell(r, 0), "");
    ck_assert_int_eq(cm_csv_reader_get_double(r, 0, &v, &err), CM_EINTERNAL);
    size_t len = strlen(BOM "x,y,name\r\n1,2.5,a\n\n\"3\n\",-4e2 , \"b,c\"\n"
                        "  7,0x10,d");
    ck_assert_uint_eq(cm_csv_reader_bytes_read(r), len);
    cm_csv_reader_close(r);
    cm_csv_reader_close(NULL);
}
END_TEST

START_TEST(test_reader_errors)
{
    cm_csv_reader *r = reader_ok("a,b\n1,2\n3,4,5\n6,7\n");
    cm_err err = {0};
    ck_assert_int_eq(cm_csv_reader_next(r, &err), 1);
    ck_assert_int_eq(cm_csv_reader_next(r, &err), -1);
    ck_assert_str_eq(err.msg, "f.csv:3:1: row has 3 fields, header has 2");
    cm_err again = {0};
    ck_assert_int_eq(cm_csv_reader_next(r, &again), -1);
    ck_assert_str_eq(again.msg, err.msg);
    ck_assert_str_eq(cm_csv_reader_cell(r, 0), "");
    cm_csv_reader_close(r);
    static const char *const bad[][2] = {
        {"", "f.csv:1:1: empty file, expected a header row"},
        {"x,y,x\n", "f.csv:1:5: duplicate column 'x' (also column 1)"},
        {"x,,y\n", "f.csv:1:3: empty column name in the header row"},
        {"\"x\n", "f.csv:1:1: quoted field is not closed before the end of "
                  "the file"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = (cm_csv_reader *)1;
        ck_assert_int_eq(cm_csv_reader_open_buffer("f.csv", bad[i][0],
                                                   strlen(bad[i][0]), &r,
                                                   &err),
                         CM_EINPUT);
        ck_assert_ptr_null(r);
        ck_assert_str_eq(err.msg, bad[i][1]);
    }
    ck_assert_int_eq(cm_csv_reader_open("/nonexistent/x.csv", &r, &err),
                     CM_EINPUT);
    ck_assert_str_eq(err.msg,
                     "/nonexistent/x.csv: cannot open: No such file or "
                     "directory");
    ck_assert_int_eq(cm_csv_reader_next(NULL, &err), -1);
}
END_TEST

/* Feeds its text a few bytes at a time, so rows, fields, CRLFs and the BOM
 * straddle reads; fails with EIO at `fail_at` if that is set. */
typedef struct dribble {
    const char *text;
    size_t len, pos;
    int fail;
    size_t fail_at;
    uint64_t seed;
} dribble;

static long dribble_read(void *ctx, char *buf, size_t cap)
{
    dribble *d = ctx;
    if (d->fail && d->pos >= d->fail_at) {
        errno = EIO;
        return -1;
    }
    size_t k = 1 + (size_t)(lcg_next(&d->seed) >> 40) % 7;
    if (k > cap) k = cap;
    if (k > d->len - d->pos) k = d->len - d->pos;
    memcpy(buf, d->text + d->pos, k);
    d->pos += k;
    return (long)k;
}

/* The table and a dribbled reader see the same cells, positions and
 * errors: there is one parser, whatever the chunking. */
static void assert_reader_matches_table(const char *text, size_t len)
{
    cm_table *t = NULL;
    cm_err terr = {0}, rerr = {0};
    cm_status tst = cm_table_read_buffer("g", text, len, &t, &terr);
    dribble d = {text, len, 0, 0, 0, len};
    cm_csv_reader *r = NULL;
    cm_status rst = cm_csv_reader_open_fn("g", dribble_read, &d, &r, &rerr);
    size_t row = 0;
    int got = 0;
    if (rst == CM_OK) {
        if (t) ck_assert_uint_eq(cm_csv_reader_ncols(r), cm_table_ncols(t));
        while ((got = cm_csv_reader_next(r, &rerr)) == 1) {
            if (!t) continue; /* the table failed on a later row */
            ck_assert_uint_lt(row, cm_table_nrows(t));
            for (size_t c = 0; c < cm_csv_reader_ncols(r); c++) {
                unsigned long l1, c1, l2, c2;
                cm_csv_reader_cell_pos(r, c, &l1, &c1);
                cm_table_cell_pos(t, row, c, &l2, &c2);
                ck_assert_str_eq(cm_csv_reader_cell(r, c),
                                 cm_table_cell(t, row, c));
                ck_assert(l1 == l2 && c1 == c2);
            }
            row++;
        }
        if (got < 0) rst = rerr.code;
    }
    ck_assert_int_eq(rst, tst);
    if (tst == CM_OK) {
        ck_assert_uint_eq(row, cm_table_nrows(t));
        ck_assert_uint_eq(cm_csv_reader_bytes_read(r), len);
    } else {
        ck_assert_str_eq(rerr.msg, terr.msg);
    }
    cm_csv_reader_close(r);
    cm_table_free(t);
}

START_TEST(test_reader_matches_table)
{
    const char *text = BOM "k,text,v\r\n1,\"a\r\nb\",2\r\n\r\n3,\"\"\"\",4";
    assert_reader_matches_table(text, strlen(text));
    uint64_t seed = 99;
    static const char alphabet[] = ",\"\r\n a1\xEF\xBB\xBF\t";
    for (int round = 0; round < 3000; round++) {
        size_t len = (size_t)(lcg_next(&seed) >> 33) % 200;
        char *buf = malloc(len + 1);
        ck_assert_ptr_nonnull(buf);
        for (size_t i = 0; i < len; i++) {
            uint64_t x = lcg_next(&seed) >> 24;
            buf[i] = round % 4 == 0 ? (char)(x & 0xFF)
                                    : alphabet[x % (sizeof alphabet - 1)];
        }
        assert_reader_matches_table(buf, len);
        free(buf);
    }
}
END_TEST

START_TEST(test_reader_read_failure)
{
    const char *text = "a,b\n1,2\n3,4\n5,6\n";
    dribble d = {text, strlen(text), 0, 1, 10, 5};
    cm_csv_reader *r;
    cm_err err = {0};
    ck_assert_int_eq(cm_csv_reader_open_fn("pipe", dribble_read, &d, &r, &err),
                     CM_OK);
    int got;
    while ((got = cm_csv_reader_next(r, &err)) == 1) {}
    ck_assert_int_eq(got, -1);
    ck_assert_str_eq(err.msg, "pipe: cannot read: Input/output error");
    cm_csv_reader_close(r);
    d = (dribble){text, strlen(text), 0, 1, 0, 5};
    r = (cm_csv_reader *)1;
    ck_assert_int_eq(cm_csv_reader_open_fn("pipe", dribble_read, &d, &r, &err),
                     CM_EINPUT);
    ck_assert_ptr_null(r);
    ck_assert_str_eq(err.msg, "pipe: cannot read: Input/output error");
}
END_TEST

START_TEST(test_reader_row_limit)
{
    /* A 3 MB quoted field: the reader refuses it, the table takes it. */
    size_t big = 3u << 20, n = 0;
    char *text = malloc(big + 64);
    ck_assert_ptr_nonnull(text);
    n += (size_t)sprintf(text, "a,b\n1,2\n3,\"");
    for (size_t i = 0; i < big; i++) text[n++] = i % 80 ? 'x' : '\n';
    n += (size_t)sprintf(text + n, "\"\n");
    cm_csv_reader *r = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_csv_reader_open_buffer("f.csv", text, n, &r, &err),
                     CM_OK);
    ck_assert_int_eq(cm_csv_reader_next(r, &err), 1);
    ck_assert_int_eq(cm_csv_reader_next(r, &err), -1);
    ck_assert_str_eq(err.msg, "f.csv:3:1: row longer than 1048576 bytes");
    cm_csv_reader_close(r);
    cm_table *t = NULL;
    ck_assert_int_eq(cm_table_read_buffer("f.csv", text, n, &t, &err), CM_OK);
    ck_assert_uint_eq(strlen(cm_table_cell(t, 1, 1)), big);
    cm_table_free(t);
    /* The same as a row's first field, before any field has ended:
     * "1,2\n" then a row of one quoted field '"xxx...'. */
    memcpy(text + 8, "\"\"", 2);
    ck_assert_int_eq(cm_csv_reader_open_buffer("f.csv", text + 4, n - 4, &r,
                                               &err),
                     CM_OK);
    ck_assert_str_eq(cm_csv_reader_colname(r, 1), "2");
    ck_assert_int_eq(cm_csv_reader_next(r, &err), -1);
    ck_assert_str_eq(err.msg, "f.csv:2:1: row longer than 1048576 bytes");
    cm_csv_reader_close(r);
    /* Blank lines between rows hold nothing and count for no row. */
    n = (size_t)sprintf(text, "a,b\n1,2\n");
    for (size_t i = 0; i < big; i++) text[n++] = i % 3 ? '\n' : ' ';
    n += (size_t)sprintf(text + n, "3,4\n");
    ck_assert_int_eq(cm_csv_reader_open_buffer("f.csv", text, n, &r, &err),
                     CM_OK);
    ck_assert_int_eq(cm_csv_reader_next(r, &err), 1);
    ck_assert_int_eq(cm_csv_reader_next(r, &err), 1);
    ck_assert_str_eq(cm_csv_reader_cell(r, 1), "4");
    ck_assert_int_eq(cm_csv_reader_next(r, &err), 0);
    cm_csv_reader_close(r);
    free(text);
}
END_TEST

START_TEST(test_reader_file_and_stdin)
{
    char *dir = tu_tmpdir();
    char *path = tu_write_file(dir, "in.csv", "a\n\"x,y\"\n2\n");
    cm_csv_reader *r;
    cm_err err = {0};
    ck_assert_int_eq(cm_csv_reader_open(path, &r, &err), CM_OK);
    ck_assert_str_eq(cm_csv_reader_name(r), path);
    ck_assert_int_eq(cm_csv_reader_next(r, &err), 1);
    ck_assert_str_eq(cm_csv_reader_cell(r, 0), "x,y");
    ck_assert_int_eq(cm_csv_reader_next(r, &err), 1);
    ck_assert_int_eq(cm_csv_reader_next(r, &err), 0);
    ck_assert_uint_eq(cm_csv_reader_bytes_read(r), 10);
    cm_csv_reader_close(r);
    ck_assert_ptr_nonnull(freopen(path, "rb", stdin));
    ck_assert_int_eq(cm_csv_reader_open("-", &r, &err), CM_OK);
    ck_assert_str_eq(cm_csv_reader_name(r), "<stdin>");
    ck_assert_int_eq(cm_csv_reader_next(r, &err), 1);
    ck_assert_str_eq(cm_csv_reader_cell(r, 0), "x,y");
    cm_csv_reader_close(r);
    free(path);
    dir_remove(dir);
}
END_TEST

/* ---- building and writing --------------------------------------------- */

static const char *const tricky[] = {
    "plain", "with,comma", "say \"hi\"", "multi\nline", "crlf\r\nend",
    "lone\rcr", " lead", "trail\t", "", "\xC3\xA9t\xC3\xA9", "\"",
    "a \" b", ",", "  ", "1e+06"};
#define NTRICKY (sizeof tricky / sizeof tricky[0])

START_TEST(test_round_trip_tricky_fields)
{
    const char *names[] = {"left", "mid dle", "right,x"};
    cm_table *t = cm_table_new(3, names);
    ck_assert_ptr_nonnull(t);
    cm_err err = {0};
    for (size_t i = 0; i < NTRICKY; i++) {
        const char *row[] = {tricky[i], tricky[(i + 1) % NTRICKY],
                             tricky[(i + 5) % NTRICKY]};
        ck_assert_int_eq(cm_table_append(t, row, &err), CM_OK);
    }
    char *dir = tu_tmpdir();
    char *path = tu_path_in(dir, "rt.csv");
    ck_assert_msg(cm_table_write_file(t, path, &err) == CM_OK, "%s", err.msg);
    ck_assert_uint_eq(tu_dir_entries(dir), 1);
    cm_table *u = NULL;
    ck_assert_msg(cm_table_read_file(path, &u, &err) == CM_OK, "%s", err.msg);
    ck_assert_uint_eq(cm_table_ncols(u), 3);
    ck_assert_uint_eq(cm_table_nrows(u), NTRICKY);
    for (size_t c = 0; c < 3; c++)
        ck_assert_str_eq(cm_table_colname(u, c), names[c]);
    for (size_t r = 0; r < NTRICKY; r++)
        for (size_t c = 0; c < 3; c++)
            ck_assert_str_eq(cm_table_cell(u, r, c), cm_table_cell(t, r, c));
    cm_table_free(t);
    cm_table_free(u);
    free(path);
    dir_remove(dir);
}
END_TEST

START_TEST(test_single_column_round_trip)
{
    /* An empty cell alone on its row must not become a skipped blank line. */
    cm_table *t = cm_table_new(1, (const char *const[]){"only"});
    cm_err err = {0};
    for (size_t i = 0; i < NTRICKY; i++)
        ck_assert_int_eq(cm_table_append(t, &tricky[i], &err), CM_OK);
    char *dir = tu_tmpdir();
    char *path = tu_path_in(dir, "one.csv");
    ck_assert_int_eq(cm_table_write_file(t, path, &err), CM_OK);
    cm_table *u = NULL;
    ck_assert_msg(cm_table_read_file(path, &u, &err) == CM_OK, "%s", err.msg);
    ck_assert_uint_eq(cm_table_nrows(u), NTRICKY);
    for (size_t r = 0; r < NTRICKY; r++)
        ck_assert_str_eq(cm_table_cell(u, r, 0), tricky[r]);
    cm_table_free(t);
    cm_table_free(u);
    free(path);
    dir_remove(dir);
}
END_TEST

START_TEST(test_quotes_only_when_needed)
{
    char *dir = tu_tmpdir();
    char *path = tu_path_in(dir, "q.csv");
    cm_csv_writer *w = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_csv_writer_open(path, &w, &err), CM_OK);
    const char *r1[] = {"a", "b c", "", "x,y", "q\"", " s", "1e+06"};
    ck_assert_int_eq(cm_csv_writer_row(w, 7, r1, &err), CM_OK);
    const double r2[] = {0.1, NAN, -INFINITY, 1e6, -0.0, 1.0 / 3};
    ck_assert_int_eq(cm_csv_writer_row_doubles(w, 6, r2, &err), CM_OK);
    ck_assert_int_eq(cm_csv_writer_commit(w, &err), CM_OK);
    char *got = tu_read_file(path, NULL);
    ck_assert_str_eq(got, "a,b c,,\"x,y\",\"q\"\"\",\" s\",1e+06\n"
                          "0.1,nan,-inf,1000000,0,0.3333333333333333\n");
    free(got);
    free(path);
    dir_remove(dir);
}
END_TEST

START_TEST(test_new_and_append_copy)
{
    ck_assert_ptr_null(cm_table_new(0, (const char *const[]){"x"}));
    char name[8] = "col", cell[8] = "v1";
    const char *names[] = {name};
    cm_table *t = cm_table_new(1, names);
    const char *row[] = {cell};
    cm_err err = {0};
    ck_assert_int_eq(cm_table_append(t, row, &err), CM_OK);
    strcpy(name, "zz");
    strcpy(cell, "zz");
    ck_assert_str_eq(cm_table_colname(t, 0), "col");
    ck_assert_str_eq(cm_table_cell(t, 0, 0), "v1");
    ck_assert_uint_eq(cm_table_nrows(t), 1);
    cm_table_free(t);
}
END_TEST

START_TEST(test_write_into_missing_dir_fails_cleanly)
{
    cm_table *t = cm_table_new(1, (const char *const[]){"x"});
    cm_err err = {0};
    char *dir = tu_tmpdir();
    char *path = tu_path_in(dir, "nodir/out.csv");
    ck_assert_int_eq(cm_table_write_file(t, path, &err), CM_EINPUT);
    char want[4200];
    snprintf(want, sizeof want, "%s: cannot create: No such file or directory",
             path);
    ck_assert_str_eq(err.msg, want);
    ck_assert_uint_eq(tu_dir_entries(dir), 0);
    /* A regular file as the directory fails even for root. */
    char *file = tu_write_file(dir, "plain", "");
    char *under = tu_path_in(file, "out.csv");
    ck_assert_int_eq(cm_table_write_file(t, under, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, ": cannot create: Not a directory"));
    ck_assert_uint_eq(tu_dir_entries(dir), 1);
    free(under);
    free(file);
    free(path);
    cm_table_free(t);
    dir_remove(dir);
}
END_TEST

START_TEST(test_write_into_unwritable_dir_fails_cleanly)
{
    /* Root ignores permission bits, but not sysfs's refusal of new files. */
    int root = geteuid() == 0;
    char *dir = root ? strdup("/sys") : tu_tmpdir();
    if (!root) ck_assert_int_eq(chmod(dir, 0500), 0);
    size_t before = tu_dir_entries(dir);
    char *path = tu_path_in(dir, "out.csv");
    cm_csv_writer *w = (cm_csv_writer *)1;
    cm_err err = {0};
    ck_assert_int_eq(cm_csv_writer_open(path, &w, &err), CM_EINPUT);
    ck_assert_ptr_null(w);
    ck_assert_ptr_nonnull(strstr(err.msg, ": cannot create: Permission denied"));
    ck_assert_uint_eq(tu_dir_entries(dir), before);
    free(path);
    if (root) {
        free(dir);
    } else {
        chmod(dir, 0700);
        dir_remove(dir);
    }
}
END_TEST

START_TEST(test_abort_leaves_target_untouched)
{
    char *dir = tu_tmpdir();
    char *path = tu_write_file(dir, "out.csv", "old\n");
    cm_csv_writer *w = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_csv_writer_open(path, &w, &err), CM_OK);
    ck_assert_uint_eq(tu_dir_entries(dir), 2); /* the temporary is beside it */
    const char *row[] = {"new", "data"};
    for (int i = 0; i < 5000; i++)
        ck_assert_int_eq(cm_csv_writer_row(w, 2, row, &err), CM_OK);
    cm_csv_writer_abort(w);
    ck_assert_uint_eq(tu_dir_entries(dir), 1);
    char *got = tu_read_file(path, NULL);
    ck_assert_str_eq(got, "old\n");
    free(got);
    /* A commit replaces it, leaves no temporary, and honours the umask. */
    ck_assert_int_eq(cm_csv_writer_open(path, &w, &err), CM_OK);
    ck_assert_int_eq(cm_csv_writer_row(w, 2, row, &err), CM_OK);
    ck_assert_int_eq(cm_csv_writer_commit(w, &err), CM_OK);
    ck_assert_uint_eq(tu_dir_entries(dir), 1);
    got = tu_read_file(path, NULL);
    ck_assert_str_eq(got, "new,data\n");
    free(got);
    mode_t mask = umask(0);
    umask(mask);
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_uint_eq(sb.st_mode & 0777, 0666 & ~mask);
    free(path);
    dir_remove(dir);
}
END_TEST

START_TEST(test_failed_commit_removes_temporary)
{
    /* A directory in the target's place makes the final rename fail. */
    char *dir = tu_tmpdir();
    char *target = tu_path_in(dir, "sub");
    ck_assert_int_eq(mkdir(target, 0700), 0);
    char *inner = tu_write_file(target, "keep", "k");
    cm_csv_writer *w = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_csv_writer_open(target, &w, &err), CM_OK);
    const char *row[] = {"x"};
    ck_assert_int_eq(cm_csv_writer_row(w, 1, row, &err), CM_OK);
    ck_assert_int_ne(cm_csv_writer_commit(w, &err), CM_OK);
    ck_assert_ptr_nonnull(strstr(err.msg, "sub: cannot rename into place"));
    ck_assert_uint_eq(tu_dir_entries(dir), 1);
    unlink(inner);
    rmdir(target);
    free(inner);
    free(target);
    dir_remove(dir);
}
END_TEST

/* Runs fn with stdout sent to `path`; returns what fn returned. */
static cm_status with_stdout(const char *path, cm_status (*fn)(const char *),
                             const char *arg)
{
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    ck_assert_int_ge(saved, 0);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_ge(dup2(fd, STDOUT_FILENO), 0);
    close(fd);
    /* Fully buffered, as stdout is when redirected to a file. */
    ck_assert_int_eq(setvbuf(stdout, NULL, _IOFBF, 1 << 16), 0);
    cm_status st = fn(arg);
    fflush(stdout);
    /* Whatever a failed flush kept buffered must not reach the real
     * stdout later. */
    int null = open("/dev/null", O_WRONLY);
    ck_assert_int_ge(null, 0);
    dup2(null, STDOUT_FILENO);
    close(null);
    clearerr(stdout);
    fflush(stdout);
    clearerr(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    return st;
}

static cm_status write_small(const char *path)
{
    cm_table *t = cm_table_new(2, (const char *const[]){"a", "b"});
    cm_err err = {0};
    const char *row[] = {"1", "x y"};
    cm_table_append(t, row, &err);
    cm_status st = cm_table_write_file(t, path, &err);
    cm_table_free(t);
    return st;
}

/* Rows fit the buffer, so only the commit's flush can see the failure. */
static cm_status write_buffered_stdout(const char *unused)
{
    (void)unused;
    cm_csv_writer *w = NULL;
    cm_err err = {0};
    ck_assert_int_eq(cm_csv_writer_open(NULL, &w, &err), CM_OK);
    const char *row[] = {"0123456789"};
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(cm_csv_writer_row(w, 1, row, &err), CM_OK);
    cm_status st = cm_csv_writer_commit(w, &err);
    if (st != CM_OK)
        ck_assert_str_eq(err.msg,
                         "<stdout>: cannot write: No space left on device");
    return st;
}

START_TEST(test_stdout_path)
{
    char *dir = tu_tmpdir();
    char *out = tu_path_in(dir, "stdout.txt");
    ck_assert_int_eq(with_stdout(out, write_small, "-"), CM_OK);
    char *got = tu_read_file(out, NULL);
    ck_assert_str_eq(got, "a,b\n1,x y\n");
    free(got);
    ck_assert_int_eq(with_stdout(out, write_small, NULL), CM_OK);
    got = tu_read_file(out, NULL);
    ck_assert_str_eq(got, "a,b\n1,x y\n");
    free(got);
    ck_assert_uint_eq(tu_dir_entries(dir), 1);
    free(out);
    dir_remove(dir);
    /* A full device is an error, not silence. */
    if (access("/dev/full", W_OK) == 0)
        ck_assert_int_eq(with_stdout("/dev/full", write_buffered_stdout, NULL),
                         CM_EINTERNAL);
}
END_TEST

/* ---- number formatting ------------------------------------------------ */

/* Significant digits in a %g rendering. */
static int sig_digits(const char *s)
{
    int n = 0, seen = 0;
    for (; *s && *s != 'e'; s++) {
        if (*s < '0' || *s > '9') continue;
        if (*s != '0') seen = 1;
        if (seen) n++;
    }
    return n;
}

START_TEST(test_fmt_double_special_values)
{
    static const struct {
        double v;
        const char *s;
    } cases[] = {{0.1, "0.1"},  {-0.0, "0"},    {0.0, "0"},
                 {1e6, "1000000"}, {-2.5, "-2.5"}, {1.0 / 3, "0.3333333333333333"},
                 {5e-324, "5e-324"},
                 {1.7976931348623157e308, "1.7976931348623157e+308"},
                 {123, "123"}, {100, "100"}, {10, "10"},
                 {1e15, "1e+15"}, {2.5e-5, "2.5e-05"}};
    char buf[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cm_fmt_double(buf, cases[i].v);
        ck_assert_str_eq(buf, cases[i].s);
    }
    cm_fmt_double(buf, NAN);
    ck_assert_str_eq(buf, "nan");
    cm_fmt_double(buf, -NAN);
    ck_assert_str_eq(buf, "nan");
    cm_fmt_double(buf, INFINITY);
    ck_assert_str_eq(buf, "inf");
    cm_fmt_double(buf, -INFINITY);
    ck_assert_str_eq(buf, "-inf");
}
END_TEST

START_TEST(test_fmt_double_round_trips_shortest)
{
    uint64_t seed = 2024;
    char buf[32], again[32], shorter[40];
    for (int i = 0; i < 200000; i++) {
        uint64_t bits = lcg_next(&seed);
        double v;
        if (i % 2) {
            memcpy(&v, &bits, sizeof v); /* any bit pattern */
        } else {                         /* ordinary magnitudes */
            v = (double)(bits >> 11) / 9007199254740992.0 *
                pow(10, (int)(lcg_next(&seed) % 40) - 20);
        }
        if (!isfinite(v)) continue;
        cm_fmt_double(buf, v);
        ck_assert_uint_lt(strlen(buf), 32);
        ck_assert_msg(strtod(buf, NULL) == v || v == 0, "%.17g -> %s", v, buf);
        cm_fmt_double(again, v);
        ck_assert_str_eq(buf, again);
        if (v == floor(v) && fabs(v) < 1e15) { /* whole numbers: plain */
            snprintf(shorter, sizeof shorter, "%.0f", v);
            ck_assert_str_eq(buf, shorter);
            continue;
        }
        int d = sig_digits(buf);
        ck_assert_int_le(d, 17);
        if (d > 1) {
            snprintf(shorter, sizeof shorter, "%.*g", d - 1, v);
            ck_assert_msg(strtod(shorter, NULL) != v,
                          "%s is not the shortest: %s", buf, shorter);
        }
    }
}
END_TEST

START_TEST(test_row_sinks)
{
    cm_table *t;
    cm_row_sink s = cm_row_sink_table(&t);
    cm_err err = {0};
    const char *head[] = {"a", "b"}, *row[] = {"1", "2"}, *wide[] = {"1",
                                                                   "2", "3"};
    ck_assert_ptr_null(t);
    ck_assert_int_eq(cm_row_put(&s, 2, head, &err), CM_OK);
    ck_assert_uint_eq(cm_table_bytes(t), 0);
    ck_assert_int_eq(cm_row_put(&s, 2, row, &err), CM_OK);
    size_t one = cm_table_bytes(t);
    ck_assert_uint_gt(one, 4); /* two cells of text, and their records */
    ck_assert_int_eq(cm_row_put(&s, 2, row, &err), CM_OK);
    ck_assert_uint_eq(cm_table_bytes(t), 2 * one);
    ck_assert_int_eq(cm_row_put(&s, 3, wide, &err), CM_EINTERNAL);
    ck_assert_uint_eq(cm_table_nrows(t), 2);
    cm_table_free(t);
    /* the writer sink streams the same rows */
    char *dir = tu_tmpdir();
    char *path = tu_path_in(dir, "w.csv");
    cm_csv_writer *w;
    ck_assert_int_eq(cm_csv_writer_open(path, &w, &err), CM_OK);
    s = cm_row_sink_writer(w);
    ck_assert_int_eq(cm_row_put(&s, 2, head, &err), CM_OK);
    ck_assert_int_eq(cm_row_put(&s, 2, row, &err), CM_OK);
    ck_assert_int_eq(cm_csv_writer_commit(w, &err), CM_OK);
    char *text = tu_read_file(path, NULL);
    ck_assert_str_eq(text, "a,b\n1,2\n");
    free(text);
    free(path);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

START_TEST(test_memory_estimates)
{
    cm_err err = {0};
    ck_assert_int_eq(cm_rows_check_memory(100, 1e6, 2e9, &err), CM_OK);
    ck_assert_int_eq(cm_rows_check_memory(600, 1e8, 2e9, &err), CM_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "about 60 GB"));
    ck_assert_ptr_nonnull(strstr(err.msg, "100000000 points x 600 bytes"));
    /* a file read whole: judged from its first MB, before the rest */
    char *dir = tu_tmpdir();
    char *path = tu_path_in(dir, "big.csv");
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("x,y\n", f);
    for (int i = 0; i < 300000; i++) fprintf(f, "%d,%d\n", i, i % 10);
    fclose(f);
    cm_table *t = NULL;
    ck_assert_int_eq(cm_table_read_file_limit(path, 1e7, &t, &err),
                     CM_EINPUT);
    ck_assert_ptr_null(t);
    ck_assert_ptr_nonnull(strstr(err.msg, "estimated from its first MB"));
    ck_assert_int_eq(cm_table_read_file_limit(path, 1e9, &t, &err), CM_OK);
    ck_assert_uint_eq(cm_table_nrows(t), 300000);
    cm_table_free(t);
    /* a small file is judged whole */
    char *small = tu_write_file(dir, "s.csv", "x\n1\n2\n");
    ck_assert_int_eq(cm_table_read_file_limit(small, 1e6, &t, &err), CM_OK);
    cm_table_free(t);
    free(small);
    free(path);
    tu_rm_tree(dir);
    free(dir);
}
END_TEST

Suite *suite_table(void)
{
    Suite *s = suite_create("table");
    TCase *tc = tcase_create("read");
    tcase_add_test(tc, test_read_basic);
    tcase_add_test(tc, test_atomic_write_through_device);
    tcase_add_test(tc, test_read_tricky_fields);
    tcase_add_test(tc, test_position_after_multiline_field);
    tcase_add_test(tc, test_lone_cr_line_ends);
    tcase_add_test(tc, test_ragged_rows);
    tcase_add_test(tc, test_header_errors);
    tcase_add_test(tc, test_quote_errors);
    tcase_add_test(tc, test_nul_byte);
    tcase_add_test(tc, test_missing_column);
    tcase_add_test(tc, test_get_double);
    tcase_add_test(tc, test_get_long);
    tcase_add_test(tc, test_get_column);
    tcase_add_test(tc, test_error_excerpt_is_short_and_one_line);
    tcase_add_test(tc, test_garbage_never_crashes);
    tcase_add_test(tc, test_read_file_matches_buffer_across_chunks);
    tcase_add_test(tc, test_read_file_errors);
    tcase_add_test(tc, test_read_stdin);
    tcase_add_test(tc, test_large_input_is_fast);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    tc = tcase_create("stream");
    tcase_add_test(tc, test_reader_rows);
    tcase_add_test(tc, test_reader_errors);
    tcase_add_test(tc, test_reader_matches_table);
    tcase_add_test(tc, test_reader_read_failure);
    tcase_add_test(tc, test_reader_row_limit);
    tcase_add_test(tc, test_reader_file_and_stdin);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    tc = tcase_create("write");
    tcase_add_test(tc, test_row_sinks);
    tcase_add_test(tc, test_memory_estimates);
    tcase_add_test(tc, test_round_trip_tricky_fields);
    tcase_add_test(tc, test_single_column_round_trip);
    tcase_add_test(tc, test_quotes_only_when_needed);
    tcase_add_test(tc, test_new_and_append_copy);
    tcase_add_test(tc, test_write_into_missing_dir_fails_cleanly);
    tcase_add_test(tc, test_write_into_unwritable_dir_fails_cleanly);
    tcase_add_test(tc, test_abort_leaves_target_untouched);
    tcase_add_test(tc, test_failed_commit_removes_temporary);
    tcase_add_test(tc, test_stdout_path);
    suite_add_tcase(s, tc);
    tc = tcase_create("format");
    tcase_add_test(tc, test_fmt_double_special_values);
    tcase_add_test(tc, test_fmt_double_round_trips_shortest);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
