/* table.c - CSV tables on libcsv (see table.h).
 *
 * libcsv's callbacks do not say where a field was.  So the reader hands
 * libcsv runs of ordinary bytes in bulk, but every byte that can end a field
 * or a row (',', CR, LF) on its own: when a callback fires, the parser is at
 * exactly that byte, and the position of each cell's first byte is exact
 * while libcsv still does all of the parsing.  Columns count UTF-8
 * characters, as editors do. */
#include "data/table.h"

#include <csv.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/atomic.h"

typedef struct cell {
    size_t off;              /* into cm_table.text */
    unsigned long line, col; /* 0 for tables built in memory */
} cell;

struct cm_table {
    char *name;
    size_t ncols, nrows; /* nrows excludes the header */
    cell *cells;         /* header first, then the rows, row-major */
    size_t ncells, cells_cap;
    char *text; /* every cell, NUL-terminated, back to back */
    size_t text_len, text_cap;
};

/* ---- storage ---------------------------------------------------------- */

static int cap_for(size_t cap, size_t need, size_t elem, size_t *out)
{
    size_t n = cap ? cap : 64;
    while (n < need) {
        if (n > SIZE_MAX / 4 / elem) return -1;
        n *= 2;
    }
    *out = n;
    return 0;
}

static int table_add_cell(cm_table *t, const char *s, size_t len,
                          unsigned long line, unsigned long col)
{
    size_t n;
    if (t->ncells == t->cells_cap) {
        if (cap_for(t->cells_cap, t->ncells + 1, sizeof *t->cells, &n))
            return -1;
        cell *c = realloc(t->cells, n * sizeof *c);
        if (!c) return -1;
        t->cells = c;
        t->cells_cap = n;
    }
    if (len >= SIZE_MAX / 4 - t->text_len) return -1;
    if (t->text_len + len + 1 > t->text_cap) {
        if (cap_for(t->text_cap, t->text_len + len + 1, 1, &n)) return -1;
        char *x = realloc(t->text, n);
        if (!x) return -1;
        t->text = x;
        t->text_cap = n;
    }
    if (len) memcpy(t->text + t->text_len, s, len);
    t->text[t->text_len + len] = '\0';
    t->cells[t->ncells++] = (cell){t->text_len, line, col};
    t->text_len += len + 1;
    return 0;
}

static cm_table *table_alloc(const char *name)
{
    cm_table *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->name = strdup(name);
    if (!t->name) {
        free(t);
        return NULL;
    }
    return t;
}

void cm_table_free(cm_table *t)
{
    if (!t) return;
    free(t->name);
    free(t->cells);
    free(t->text);
    free(t);
}

/* ---- reading ---------------------------------------------------------- */

typedef struct reader {
    cm_table *t;
    struct csv_parser p;
    cm_err *err;
    cm_status st;
    unsigned long line, col; /* col: characters already seen on the line */
    int after_cr;            /* a LF right after CR ends no further line */
    int have_start;          /* the current field's first byte was seen */
    int row_start;           /* between rows: CR and LF are skipped */
    unsigned long start_line, start_col;
    size_t row_first; /* index of the current row's first cell */
    size_t bom_n; /* leading bytes that match the BOM so far */
    int bom_done;
} reader;

static const unsigned char utf8_bom[3] = {0xEF, 0xBB, 0xBF};

/* Bytes on which libcsv may call back, plus NUL, which no text file has. */
static const unsigned char special[256] = {
    [','] = 1, ['\r'] = 1, ['\n'] = 1, [0] = 1};

static int is_blank(unsigned char c) { return c == ' ' || c == '\t'; }

static void reader_fail(reader *r, unsigned long line, unsigned long col,
                        const char *msg)
{
    if (r->st == CM_OK)
        r->st = cm_err_at(r->err, CM_EINPUT, r->t->name, line, col, "%s",
                          msg);
}

static void reader_oom(reader *r)
{
    if (r->st == CM_OK)
        r->st = cm_err_set(r->err, CM_EINTERNAL, "%s: out of memory",
                           r->t->name);
}

static void on_field(void *s, size_t len, void *data)
{
    reader *r = data;
    if (r->st != CM_OK) return;
    if (!r->have_start) { /* a trailing empty field at end of input */
        r->start_line = r->line;
        r->start_col = r->col + 1;
    }
    if (table_add_cell(r->t, s ? s : "", s ? len : 0, r->start_line,
                       r->start_col))
        reader_oom(r);
    r->have_start = 0;
    r->row_start = 0;
}

typedef struct name_ref {
    const char *s;
    size_t i;
} name_ref;

static int name_ref_cmp(const void *a, const void *b)
{
    const name_ref *x = a, *y = b;
    int c = strcmp(x->s, y->s);
    if (c) return c;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Sorting keeps a garbage header with a million fields from being
 * quadratic; the first duplicate in file order is the one reported. */
static void header_check(reader *r, size_t n)
{
    cm_table *t = r->t;
    name_ref *refs = malloc(n * sizeof *refs);
    if (!refs) {
        reader_oom(r);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        refs[i] = (name_ref){t->text + t->cells[i].off, i};
        if (!refs[i].s[0]) {
            reader_fail(r, t->cells[i].line, t->cells[i].col,
                        "empty column name in the header row");
            free(refs);
            return;
        }
    }
    qsort(refs, n, sizeof *refs, name_ref_cmp);
    size_t dup = n, first = 0;
    for (size_t i = 1; i < n; i++)
        if (!strcmp(refs[i].s, refs[i - 1].s) && refs[i].i < dup) {
            dup = refs[i].i;
            first = refs[i - 1].i;
        }
    free(refs);
    if (dup < n && r->st == CM_OK)
        r->st = cm_err_at(r->err, CM_EINPUT, t->name, t->cells[dup].line,
                          t->cells[dup].col,
                          "duplicate column '%s' (also column %zu)",
                          t->text + t->cells[dup].off, first + 1);
}

static void on_row(int c, void *data)
{
    reader *r = data;
    cm_table *t = r->t;
    (void)c;
    r->row_start = 1;
    r->have_start = 0;
    size_t n = t->ncells - r->row_first;
    if (r->st != CM_OK || n == 0) return;
    if (t->ncols == 0) {
        t->ncols = n;
        header_check(r, n);
    } else if (n != t->ncols) {
        char msg[96];
        snprintf(msg, sizeof msg, "row has %zu fields, header has %zu", n,
                 t->ncols);
        reader_fail(r, t->cells[r->row_first].line,
                    t->cells[r->row_first].col, msg);
    } else {
        t->nrows++;
    }
    r->row_first = t->ncells;
}

/* csv_parse stopped at byte c: bad quoting in strict mode, or no memory. */
static void parse_error(reader *r, unsigned char c, unsigned long line,
                        unsigned long col)
{
    if (csv_error(&r->p) != CSV_EPARSE) {
        reader_oom(r);
        return;
    }
    reader_fail(r, line, col,
                c == '"' ? "'\"' inside an unquoted field (quote the whole "
                           "field and double the '\"')"
                         : "text after the closing quote of a field");
}

/* A stray continuation byte at the start of a line still takes a column,
 * so every position is at least 1:1. */
static unsigned long next_col(unsigned long col, unsigned char c)
{
    return (c & 0xC0) != 0x80 || col == 0 ? col + 1 : col;
}

static void advance(reader *r, unsigned char c)
{
    if (c == '\n') {
        if (!r->after_cr) r->line++;
        r->col = 0;
    } else if (c == '\r') {
        r->line++;
        r->col = 0;
    } else {
        r->col = next_col(r->col, c);
    }
    r->after_cr = c == '\r';
}

static void reader_feed(reader *r, const unsigned char *b, size_t n)
{
    size_t i = 0;
    while (i < n && r->st == CM_OK) {
        unsigned char c = b[i];
        if (special[c]) {
            unsigned long line = r->line, col = r->col + 1;
            if (c == 0) {
                reader_fail(r, line, col, "NUL byte: not a text file");
                return;
            }
            int term = c != ',';
            if (!r->have_start && !(term && r->row_start)) {
                r->have_start = 1;
                r->start_line = line;
                r->start_col = col;
            }
            if (csv_parse(&r->p, b + i, 1, on_field, on_row, r) != 1) {
                parse_error(r, c, line, col);
                return;
            }
            advance(r, c);
            i++;
            continue;
        }
        size_t j = i;
        unsigned long col0 = r->col;
        for (; j < n && !special[b[j]]; j++) {
            advance(r, b[j]);
            if (!r->have_start && !is_blank(b[j])) {
                r->have_start = 1;
                r->start_line = r->line;
                r->start_col = r->col;
            }
        }
        size_t done = csv_parse(&r->p, b + i, j - i, on_field, on_row, r);
        if (done != j - i) {
            unsigned long col = col0;
            for (size_t k = i; k <= i + done; k++) col = next_col(col, b[k]);
            parse_error(r, b[i + done], r->line, col);
            return;
        }
        i = j;
    }
}

/* Holds back the first bytes until they are known to be a BOM or not, so
 * input may arrive in chunks of any size. */
static void reader_input(reader *r, const unsigned char *b, size_t n)
{
    while (!r->bom_done && n > 0) {
        if (*b != utf8_bom[r->bom_n]) {
            r->bom_done = 1;
            reader_feed(r, utf8_bom, r->bom_n);
            break;
        }
        r->bom_n++;
        b++;
        n--;
        if (r->bom_n == 3) r->bom_done = 1;
    }
    if (n) reader_feed(r, b, n);
}

static void reader_init(reader *r, cm_table *t, cm_err *err)
{
    memset(r, 0, sizeof *r);
    r->t = t;
    r->err = err;
    r->line = 1;
    r->row_start = 1;
    if (csv_init(&r->p, CSV_STRICT | CSV_STRICT_FINI) != 0) reader_oom(r);
}

static cm_status reader_finish(reader *r)
{
    if (!r->bom_done) {
        r->bom_done = 1;
        reader_feed(r, utf8_bom, r->bom_n);
    }
    if (r->st == CM_OK && csv_fini(&r->p, on_field, on_row, r) != 0)
        reader_fail(r, r->start_line, r->start_col,
                    "quoted field is not closed before the end of the file");
    csv_free(&r->p);
    if (r->st == CM_OK && r->t->ncols == 0)
        reader_fail(r, 1, 1, "empty file, expected a header row");
    return r->st;
}

static cm_status read_done(reader *r, cm_table **out)
{
    cm_status st = reader_finish(r);
    if (st != CM_OK) {
        cm_table_free(r->t);
        return st;
    }
    *out = r->t;
    return CM_OK;
}

cm_status cm_table_read_buffer(const char *name, const char *buf, size_t len,
                               cm_table **out, cm_err *err)
{
    *out = NULL;
    cm_table *t = table_alloc(name ? name : "<input>");
    if (!t) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    reader r;
    reader_init(&r, t, err);
    if (buf && r.st == CM_OK)
        reader_input(&r, (const unsigned char *)buf, len);
    return read_done(&r, out);
}

cm_status cm_table_read_file(const char *path, cm_table **out, cm_err *err)
{
    *out = NULL;
    int is_stdin = !path || !strcmp(path, "-");
    const char *name = is_stdin ? "<stdin>" : path;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return cm_err_set(err, CM_EINPUT, "%s: cannot open: %s", path,
                          strerror(errno));
    cm_table *t = table_alloc(name);
    if (!t) {
        if (!is_stdin) fclose(f);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    reader r;
    reader_init(&r, t, err);
    enum { CHUNK = 1 << 16 };
    unsigned char *chunk = malloc(CHUNK);
    if (!chunk) reader_oom(&r);
    size_t got;
    while (r.st == CM_OK && (got = fread(chunk, 1, CHUNK, f)) > 0)
        reader_input(&r, chunk, got);
    free(chunk);
    if (r.st == CM_OK && ferror(f))
        r.st = cm_err_set(err, CM_EINPUT, "%s: cannot read: %s", name,
                          strerror(errno));
    if (!is_stdin) fclose(f);
    if (r.st != CM_OK) csv_free(&r.p);
    return r.st != CM_OK ? (cm_table_free(t), r.st) : read_done(&r, out);
}

/* ---- access ----------------------------------------------------------- */

size_t cm_table_nrows(const cm_table *t) { return t ? t->nrows : 0; }
size_t cm_table_ncols(const cm_table *t) { return t ? t->ncols : 0; }
const char *cm_table_name(const cm_table *t) { return t ? t->name : ""; }

static const cell *cell_at(const cm_table *t, size_t row, size_t col)
{
    if (!t || col >= t->ncols || row > t->nrows) return NULL;
    return &t->cells[row * t->ncols + col];
}

const char *cm_table_colname(const cm_table *t, size_t col)
{
    const cell *c = cell_at(t, 0, col);
    return c ? t->text + c->off : "";
}

const char *cm_table_cell(const cm_table *t, size_t row, size_t col)
{
    const cell *c = row < SIZE_MAX ? cell_at(t, row + 1, col) : NULL;
    return c ? t->text + c->off : "";
}

void cm_table_cell_pos(const cm_table *t, size_t row, size_t col,
                       unsigned long *line, unsigned long *column)
{
    const cell *c = row < SIZE_MAX ? cell_at(t, row + 1, col) : NULL;
    if (line) *line = c ? c->line : 0;
    if (column) *column = c ? c->col : 0;
}

long cm_table_col_find(const cm_table *t, const char *name)
{
    if (!t || !name) return -1;
    for (size_t i = 0; i < t->ncols; i++)
        if (!strcmp(t->text + t->cells[i].off, name)) return (long)i;
    return -1;
}

cm_status cm_table_col_require(const cm_table *t, const char *name,
                               size_t *col, cm_err *err)
{
    long i = cm_table_col_find(t, name);
    if (i < 0) {
        unsigned long line = t && t->ncols && t->cells[0].line
                                 ? t->cells[0].line
                                 : 1;
        return cm_err_at(err, CM_EINPUT, cm_table_name(t), line, 1,
                         "missing column '%s'", name ? name : "");
    }
    *col = (size_t)i;
    return CM_OK;
}

static int parse_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s) return -1;
    while (isspace((unsigned char)*end)) end++;
    if (*end || !isfinite(x)) return -1; /* underflow to a subnormal is ok */
    *v = x;
    return 0;
}

/* Integers written by cm_fmt_double may read "1e+06", so any number text
 * with an integral value in range is accepted. */
static int parse_long(const char *s, long *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end != s) {
        int range = errno == ERANGE;
        while (isspace((unsigned char)*end)) end++;
        if (!*end) {
            if (range) return -1;
            *v = x;
            return 0;
        }
    }
    double d;
    if (parse_double(s, &d) || d != floor(d) || d < (double)LONG_MIN ||
        d >= -(double)LONG_MIN)
        return -1;
    *v = (long)d;
    return 0;
}

/* A cell quoted in an error message: short, and on one line. */
static void cell_excerpt(char *buf, size_t cap, const char *s)
{
    size_t n = strlen(s), max = cap - 4;
    int cut = n > max;
    if (cut) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
    }
    for (size_t i = 0; i < n; i++)
        buf[i] = iscntrl((unsigned char)s[i]) ? '?' : s[i];
    strcpy(buf + n, cut ? "..." : "");
}

static cm_status typed_error(const cm_table *t, size_t row, size_t col,
                             const char *what, cm_err *err)
{
    const cell *c = row < SIZE_MAX ? cell_at(t, row + 1, col) : NULL;
    if (!c)
        return cm_err_set(err, CM_EINTERNAL,
                          "%s: no cell at row %zu, column %zu",
                          cm_table_name(t), row, col);
    char text[64];
    cell_excerpt(text, sizeof text, t->text + c->off);
    return cm_err_at(err, CM_EINPUT, t->name, c->line, c->col,
                     "column '%s': expected %s, got '%s'",
                     cm_table_colname(t, col), what, text);
}

cm_status cm_table_get_double(const cm_table *t, size_t row, size_t col,
                              double *v, cm_err *err)
{
    const cell *c = row < SIZE_MAX ? cell_at(t, row + 1, col) : NULL;
    if (!c || parse_double(t->text + c->off, v))
        return typed_error(t, row, col, "a number", err);
    return CM_OK;
}

cm_status cm_table_get_long(const cm_table *t, size_t row, size_t col,
                            long *v, cm_err *err)
{
    const cell *c = row < SIZE_MAX ? cell_at(t, row + 1, col) : NULL;
    if (!c || parse_long(t->text + c->off, v))
        return typed_error(t, row, col, "an integer", err);
    return CM_OK;
}

cm_status cm_table_get_column(const cm_table *t, size_t col, double **vals,
                              cm_err *err)
{
    *vals = NULL;
    if (!t || col >= t->ncols)
        return cm_err_set(err, CM_EINTERNAL, "%s: no column %zu",
                          cm_table_name(t), col);
    double *v = malloc((t->nrows ? t->nrows : 1) * sizeof *v);
    if (!v) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t r = 0; r < t->nrows; r++) {
        cm_status st = cm_table_get_double(t, r, col, &v[r], err);
        if (st != CM_OK) {
            free(v);
            return st;
        }
    }
    *vals = v;
    return CM_OK;
}

/* ---- building --------------------------------------------------------- */

cm_table *cm_table_new(size_t ncols, const char *const *names)
{
    if (ncols == 0 || !names) return NULL;
    cm_table *t = table_alloc("<table>");
    if (!t) return NULL;
    for (size_t i = 0; i < ncols; i++) {
        const char *s = names[i] ? names[i] : "";
        if (table_add_cell(t, s, strlen(s), 0, 0)) {
            cm_table_free(t);
            return NULL;
        }
    }
    t->ncols = ncols;
    return t;
}

cm_status cm_table_append(cm_table *t, const char *const *cells, cm_err *err)
{
    if (!t || !cells)
        return cm_err_set(err, CM_EINTERNAL, "cm_table_append: no table");
    size_t ncells = t->ncells, text_len = t->text_len;
    for (size_t i = 0; i < t->ncols; i++) {
        const char *s = cells[i] ? cells[i] : "";
        if (table_add_cell(t, s, strlen(s), 0, 0)) {
            t->ncells = ncells; /* no half-appended row */
            t->text_len = text_len;
            return cm_err_set(err, CM_EINTERNAL, "out of memory");
        }
    }
    t->nrows++;
    return CM_OK;
}

cm_status cm_table_write_file(const cm_table *t, const char *path, cm_err *err)
{
    if (!t) return cm_err_set(err, CM_EINTERNAL, "cm_table_write_file: no table");
    const char **row = malloc(t->ncols * sizeof *row);
    if (!row) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_csv_writer *w;
    cm_status st = cm_csv_writer_open(path, &w, err);
    for (size_t r = 0; r <= t->nrows && st == CM_OK; r++) {
        for (size_t c = 0; c < t->ncols; c++)
            row[c] = t->text + t->cells[r * t->ncols + c].off;
        st = cm_csv_writer_row(w, t->ncols, row, err);
    }
    free(row);
    if (st == CM_OK) return cm_csv_writer_commit(w, err);
    cm_csv_writer_abort(w);
    return st;
}

void cm_fmt_double(char buf[32], double v)
{
    if (isnan(v)) {
        strcpy(buf, "nan");
    } else if (isinf(v)) {
        strcpy(buf, v < 0 ? "-inf" : "inf");
    } else if (v == 0) {
        strcpy(buf, "0"); /* -0 too: equal results give equal bytes */
    } else if (v == floor(v) && fabs(v) < 1e15) {
        /* Whole numbers read as written: "10", not the shorter "1e+01". */
        snprintf(buf, 32, "%.0f", v);
    } else {
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(buf, 32, "%.*g", prec, v);
            if (strtod(buf, NULL) == v) break; /* 17 digits always do */
        }
    }
}

/* ---- streaming writer ------------------------------------------------- */

/* The temporary-and-rename mechanics live in data/atomic.c; this adds CSV
 * rows and remembers the first failure, after which the temporary is gone. */
struct cm_csv_writer {
    cm_atomic_file af; /* af.f is NULL when writing to stdout */
    FILE *f;           /* NULL once a write failed */
    int failed;
    cm_err fail; /* the first failure, repeated by later calls */
};

static const char *writer_name(const cm_csv_writer *w)
{
    return w->af.path ? w->af.path : "<stdout>";
}

static cm_status writer_fail(cm_csv_writer *w, int e, cm_err *err)
{
    if (!w->failed) {
        w->failed = 1;
        cm_err_set(&w->fail, CM_EINTERNAL, "%s: cannot write: %s",
                   writer_name(w), strerror(e ? e : EIO));
        if (w->af.f) cm_atomic_abort(&w->af);
        w->f = NULL;
    }
    if (err) *err = w->fail;
    return w->fail.code;
}

cm_status cm_csv_writer_open(const char *path, cm_csv_writer **out,
                             cm_err *err)
{
    *out = NULL;
    cm_csv_writer *w = calloc(1, sizeof *w);
    if (!w) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    if (!path || !strcmp(path, "-")) {
        w->f = stdout;
    } else {
        cm_status st = cm_atomic_open(&w->af, path, err);
        if (st != CM_OK) {
            free(w);
            return st;
        }
        w->f = w->af.f;
    }
    *out = w;
    return CM_OK;
}

/* libcsv trims blanks around unquoted fields, and a row that is one empty
 * field would be a blank line, which readers skip. */
static int needs_quotes(const char *s, size_t len, size_t nfields)
{
    if (len == 0) return nfields == 1;
    if (is_blank((unsigned char)s[0]) || is_blank((unsigned char)s[len - 1]))
        return 1;
    return strpbrk(s, ",\"\r\n") != NULL;
}

cm_status cm_csv_writer_row(cm_csv_writer *w, size_t n,
                            const char *const *cells, cm_err *err)
{
    if (!w) return cm_err_set(err, CM_EINTERNAL, "no CSV writer");
    if (w->failed) return writer_fail(w, 0, err);
    if (n == 0 || !cells)
        return cm_err_set(err, CM_EINTERNAL, "%s: empty CSV row",
                          writer_name(w));
    for (size_t i = 0; i < n; i++) {
        const char *s = cells[i] ? cells[i] : "";
        size_t len = strlen(s);
        errno = 0;
        int bad = i > 0 && fputc(',', w->f) == EOF;
        if (!bad && needs_quotes(s, len, n))
            bad = csv_fwrite(w->f, s, len) != 0;
        else if (!bad && len)
            bad = fwrite(s, 1, len, w->f) != len;
        if (bad) return writer_fail(w, errno, err);
    }
    errno = 0;
    if (fputc('\n', w->f) == EOF) return writer_fail(w, errno, err);
    return CM_OK;
}

cm_status cm_csv_writer_row_doubles(cm_csv_writer *w, size_t n,
                                    const double *vals, cm_err *err)
{
    if (!w) return cm_err_set(err, CM_EINTERNAL, "no CSV writer");
    if (n == 0 || !vals)
        return cm_err_set(err, CM_EINTERNAL, "%s: empty CSV row",
                          writer_name(w));
    char (*text)[32] = malloc(n * sizeof *text);
    const char **cells = malloc(n * sizeof *cells);
    cm_status st;
    if (!text || !cells) {
        st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    } else {
        for (size_t i = 0; i < n; i++) {
            cm_fmt_double(text[i], vals[i]);
            cells[i] = text[i];
        }
        st = cm_csv_writer_row(w, n, cells, err);
    }
    free(text);
    free(cells);
    return st;
}

cm_status cm_csv_writer_commit(cm_csv_writer *w, cm_err *err)
{
    if (!w) return cm_err_set(err, CM_EINTERNAL, "no CSV writer");
    cm_status st;
    if (w->failed) {
        st = writer_fail(w, 0, err);
    } else if (w->af.f) {
        st = cm_atomic_commit(&w->af, err);
    } else {
        errno = 0;
        st = fflush(w->f) != 0 || ferror(w->f) ? writer_fail(w, errno, err)
                                               : CM_OK;
    }
    free(w);
    return st;
}

void cm_csv_writer_abort(cm_csv_writer *w)
{
    if (!w) return;
    if (w->af.f) cm_atomic_abort(&w->af);
    else if (w->f) fflush(w->f); /* stdout: what is written stays written */
    free(w);
}
