/* table.c - CSV tables on libcsv (see table.h).
 *
 * All reading goes through one streaming reader (cm_csv_reader); a cm_table
 * is that reader's rows copied into memory.  libcsv's callbacks do not say
 * where a field was.  So the reader hands libcsv runs of ordinary bytes in
 * bulk, but every byte that can end a field or a row (',', CR, LF) on its
 * own: when a callback fires, the parser is at exactly that byte, and the
 * position of each cell's first byte is exact while libcsv still does all of
 * the parsing.  The same trick lets the reader stop right after the byte that
 * ends a row, so rows come out one at a time.  Columns count UTF-8
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
#include <sys/stat.h>

#include "data/number.h"

typedef struct cell {
    size_t off;              /* into cellbuf.text */
    unsigned long line, col; /* 0 for tables built in memory */
} cell;

/* Cells with their text back to back, NUL-terminated. */
typedef struct cellbuf {
    cell *cells;
    size_t n, cap;
    char *text;
    size_t len, text_cap;
} cellbuf;

struct cm_table {
    char *name;
    size_t ncols, nrows; /* nrows excludes the header */
    cellbuf cb;          /* header first, then the rows, row-major */
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

static int cellbuf_add(cellbuf *b, const char *s, size_t len,
                       unsigned long line, unsigned long col)
{
    size_t n;
    if (b->n == b->cap) {
        if (cap_for(b->cap, b->n + 1, sizeof *b->cells, &n)) return -1;
        cell *c = realloc(b->cells, n * sizeof *c);
        if (!c) return -1;
        b->cells = c;
        b->cap = n;
    }
    if (len >= SIZE_MAX / 4 - b->len) return -1;
    if (b->len + len + 1 > b->text_cap) {
        if (cap_for(b->text_cap, b->len + len + 1, 1, &n)) return -1;
        char *x = realloc(b->text, n);
        if (!x) return -1;
        b->text = x;
        b->text_cap = n;
    }
    if (len) memcpy(b->text + b->len, s, len);
    b->text[b->len + len] = '\0';
    b->cells[b->n++] = (cell){b->len, line, col};
    b->len += len + 1;
    return 0;
}

static const char *cellbuf_text(const cellbuf *b, size_t i)
{
    return b->text + b->cells[i].off;
}

static void cellbuf_free(cellbuf *b)
{
    free(b->cells);
    free(b->text);
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
    cellbuf_free(&t->cb);
    free(t);
}

/* ---- streaming reader ------------------------------------------------- */

enum { CHUNK = 1 << 16 };

struct cm_csv_reader {
    char *name;
    struct csv_parser p;
    int p_live; /* csv_init succeeded: csv_free is owed */
    /* The source: a read function, or one block of memory (read NULL). */
    cm_csv_read_fn read;
    void *ctx;
    FILE *f; /* owned, when the reader opened a file */
    const unsigned char *src;
    size_t src_len, src_pos;
    unsigned char *chunk;
    int started;  /* the first bytes were checked for a BOM */
    int at_end;   /* the source has nothing more */
    int finished; /* csv_fini has run */
    uint64_t consumed;
    size_t max_row, row_bytes; /* max_row 0: no limit */
    unsigned long row_line;
    /* Position of the next byte. */
    unsigned long line, col; /* col: characters already seen on the line */
    int after_cr;            /* a LF right after CR ends no further line */
    int have_start;          /* the current field's first byte was seen */
    int row_start;           /* between rows: CR and LF are skipped */
    unsigned long start_line, start_col;
    cm_status st;
    cm_err fail; /* the first error, repeated by later calls */
    cellbuf hdr, row;
    size_t ncols;
    int row_ready;
};

static const unsigned char utf8_bom[3] = {0xEF, 0xBB, 0xBF};

/* Bytes on which libcsv may call back, plus NUL, which no text file has. */
static const unsigned char special[256] = {
    [','] = 1, ['\r'] = 1, ['\n'] = 1, [0] = 1};

static int is_blank(unsigned char c) { return c == ' ' || c == '\t'; }

static void reader_fail(cm_csv_reader *r, unsigned long line,
                        unsigned long col, const char *msg)
{
    if (r->st == CM_OK)
        r->st = cm_err_at(&r->fail, CM_EINPUT, r->name, line, col, "%s", msg);
}

static void reader_oom(cm_csv_reader *r)
{
    if (r->st == CM_OK)
        r->st = cm_err_set(&r->fail, CM_EINTERNAL, "%s: out of memory",
                           r->name);
}

static cm_status reader_status(const cm_csv_reader *r, cm_err *err)
{
    if (r->st != CM_OK && err) *err = r->fail;
    return r->st;
}

static void on_field(void *s, size_t len, void *data)
{
    cm_csv_reader *r = data;
    if (r->st != CM_OK) return;
    if (!r->have_start) { /* a trailing empty field at end of input */
        r->start_line = r->line;
        r->start_col = r->col + 1;
    }
    if (cellbuf_add(&r->row, s ? s : "", s ? len : 0, r->start_line,
                    r->start_col))
        reader_oom(r);
    r->have_start = 0;
    r->row_start = 0;
}

static void on_row(int c, void *data)
{
    cm_csv_reader *r = data;
    (void)c;
    r->row_start = 1;
    r->have_start = 0;
    size_t n = r->row.n;
    if (r->st != CM_OK || n == 0) return;
    if (r->ncols && n != r->ncols) {
        char msg[96];
        snprintf(msg, sizeof msg, "row has %zu fields, header has %zu", n,
                 r->ncols);
        reader_fail(r, r->row.cells[0].line, r->row.cells[0].col, msg);
        return;
    }
    r->row_ready = 1;
}

/* csv_parse stopped at byte c: bad quoting in strict mode, or no memory. */
static void parse_error(cm_csv_reader *r, unsigned char c, unsigned long line,
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

static void advance(cm_csv_reader *r, unsigned char c)
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

/* Counts n more bytes of the current row against the limit.  Memory grows
 * only with a row's length, so this bounds it. */
static int row_grow(cm_csv_reader *r, size_t n)
{
    if (r->max_row && n > r->max_row - r->row_bytes) {
        char msg[64];
        snprintf(msg, sizeof msg, "row longer than %zu bytes", r->max_row);
        reader_fail(r, r->row_line, 1, msg);
        return -1;
    }
    r->row_bytes += n;
    return 0;
}

/* csv_parse, with libcsv's field buffer growing geometrically: by default
 * it grows 128 bytes at a time, which copies a long quoted field
 * quadratically. */
static size_t parse_bytes(cm_csv_reader *r, const unsigned char *b, size_t n)
{
    size_t done = csv_parse(&r->p, b, n, on_field, on_row, r);
    size_t have = csv_get_buffer_size(&r->p);
    if (have > r->p.blk_size) csv_set_blk_size(&r->p, have);
    return done;
}

/* One field- or row-ending byte (or NUL) at src[src_pos]. */
static void feed_special(cm_csv_reader *r)
{
    unsigned char c = r->src[r->src_pos];
    unsigned long line = r->line, col = r->col + 1;
    if (c == 0) {
        reader_fail(r, line, col, "NUL byte: not a text file");
        return;
    }
    if (row_grow(r, 1)) return;
    int term = c != ',';
    if (!r->have_start && !(term && r->row_start)) {
        r->have_start = 1;
        r->start_line = line;
        r->start_col = col;
    }
    if (parse_bytes(r, &c, 1) != 1) {
        parse_error(r, c, line, col);
        return;
    }
    advance(r, c);
    r->src_pos++;
    r->consumed++;
    if (term && r->row_start && !r->have_start) { /* between rows */
        r->row_bytes = 0;
        r->row_line = r->line;
    }
}

/* A run of ordinary bytes from src[src_pos], in one csv_parse call. */
static void feed_run(cm_csv_reader *r)
{
    const unsigned char *b = r->src;
    size_t i = r->src_pos, j = i, n = r->src_len;
    while (j < n && !special[b[j]]) j++;
    if (row_grow(r, j - i)) return;
    unsigned long col0 = r->col;
    for (size_t k = i; k < j; k++) {
        advance(r, b[k]);
        if (!r->have_start && !is_blank(b[k])) {
            r->have_start = 1;
            r->start_line = r->line;
            r->start_col = r->col;
        }
    }
    size_t done = parse_bytes(r, b + i, j - i);
    if (done != j - i) {
        unsigned long col = col0;
        for (size_t k = i; k <= i + done; k++) col = next_col(col, b[k]);
        parse_error(r, b[i + done], r->line, col);
        return;
    }
    r->src_pos = j;
    r->consumed += j - i;
}

/* A BOM is skipped only as the very first bytes of the input. */
static void take_chunk(cm_csv_reader *r, const unsigned char *b, size_t n)
{
    r->src = b;
    r->src_len = n;
    r->src_pos = 0;
    if (!r->started) {
        r->started = 1;
        if (n >= 3 && !memcmp(b, utf8_bom, 3)) {
            r->src_pos = 3;
            r->consumed = 3;
        }
    }
}

/* Next chunk from the source: 1 if there is one. */
static int refill(cm_csv_reader *r)
{
    if (r->at_end || !r->read) {
        r->at_end = 1;
        return 0;
    }
    size_t got = 0;
    do { /* the first chunk holds the whole BOM if the input has one */
        errno = 0;
        long k = r->read(r->ctx, (char *)r->chunk + got, CHUNK - got);
        if (k < 0) {
            if (r->st == CM_OK)
                r->st = cm_err_set(&r->fail, CM_EINPUT, "%s: cannot read: %s",
                                   r->name, strerror(errno ? errno : EIO));
            return 0;
        }
        if (k == 0) {
            r->at_end = 1;
            break;
        }
        got += (size_t)k;
    } while (!r->started && got < 3);
    if (got == 0) return 0;
    take_chunk(r, r->chunk, got);
    return 1;
}

/* Feeds input until a row is complete or the input ends. */
static void reader_feed(cm_csv_reader *r)
{
    while (r->st == CM_OK && !r->row_ready) {
        if (r->src_pos == r->src_len) {
            if (!refill(r)) break;
        } else if (special[r->src[r->src_pos]]) {
            feed_special(r);
        } else {
            feed_run(r);
        }
    }
    if (r->st == CM_OK && !r->row_ready && !r->finished) {
        r->finished = 1;
        if (csv_fini(&r->p, on_field, on_row, r) != 0)
            reader_fail(r, r->start_line, r->start_col,
                        "quoted field is not closed before the end of the "
                        "file");
    }
}

/* 1 with a row in r->row, 0 at the end, -1 on error. */
static int reader_row(cm_csv_reader *r)
{
    r->row.n = 0;
    r->row.len = 0;
    r->row_ready = 0;
    reader_feed(r);
    return r->st != CM_OK ? -1 : r->row_ready;
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
static void header_check(cm_csv_reader *r)
{
    const cellbuf *h = &r->hdr;
    size_t n = h->n;
    name_ref *refs = malloc(n * sizeof *refs);
    if (!refs) {
        reader_oom(r);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        refs[i] = (name_ref){cellbuf_text(h, i), i};
        if (!refs[i].s[0]) {
            reader_fail(r, h->cells[i].line, h->cells[i].col,
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
        r->st = cm_err_at(&r->fail, CM_EINPUT, r->name, h->cells[dup].line,
                          h->cells[dup].col,
                          "duplicate column '%s' (also column %zu)",
                          cellbuf_text(h, dup), first + 1);
}

void cm_csv_reader_close(cm_csv_reader *r)
{
    if (!r) return;
    if (r->p_live) csv_free(&r->p);
    if (r->f && r->f != stdin) fclose(r->f);
    free(r->chunk);
    cellbuf_free(&r->hdr);
    cellbuf_free(&r->row);
    free(r->name);
    free(r);
}

static cm_csv_reader *reader_new(const char *name, size_t max_row)
{
    cm_csv_reader *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->name = strdup(name ? name : "<input>");
    if (!r->name || csv_init(&r->p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        cm_csv_reader_close(r);
        return NULL;
    }
    r->p_live = 1;
    r->max_row = max_row;
    r->line = r->row_line = 1;
    r->row_start = 1;
    return r;
}

/* Reads the header row; on failure closes r. */
static cm_status reader_start(cm_csv_reader *r, cm_csv_reader **out,
                              cm_err *err)
{
    int got = reader_row(r);
    if (got == 0) reader_fail(r, 1, 1, "empty file, expected a header row");
    if (got == 1) {
        cellbuf t = r->hdr; /* the header keeps the row's storage */
        r->hdr = r->row;
        r->row = t;
        r->ncols = r->hdr.n;
        header_check(r);
    }
    cm_status st = reader_status(r, err);
    if (st != CM_OK) {
        cm_csv_reader_close(r);
        return st;
    }
    *out = r;
    return CM_OK;
}

static long file_read(void *ctx, char *buf, size_t cap)
{
    FILE *f = ctx;
    size_t n = fread(buf, 1, cap, f);
    return n == 0 && ferror(f) ? -1 : (long)n;
}

static cm_status reader_open_fn(const char *name, size_t max_row,
                                cm_csv_read_fn fn, void *ctx, FILE *owned,
                                cm_csv_reader **out, cm_err *err)
{
    cm_csv_reader *r = reader_new(name, max_row);
    if (r) r->chunk = malloc(CHUNK);
    if (!r || !r->chunk) {
        cm_csv_reader_close(r);
        if (owned && owned != stdin) fclose(owned);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    r->read = fn;
    r->ctx = ctx;
    r->f = owned;
    return reader_start(r, out, err);
}

static cm_status reader_open_path(const char *path, size_t max_row,
                                  cm_csv_reader **out, cm_err *err)
{
    *out = NULL;
    int is_stdin = !path || !strcmp(path, "-");
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return cm_err_set(err, CM_EINPUT, "%s: cannot open: %s", path,
                          strerror(errno));
    return reader_open_fn(is_stdin ? "<stdin>" : path, max_row, file_read, f,
                          f, out, err);
}

static cm_status reader_open_buffer(const char *name, size_t max_row,
                                    const char *buf, size_t len,
                                    cm_csv_reader **out, cm_err *err)
{
    *out = NULL;
    cm_csv_reader *r = reader_new(name, max_row);
    if (!r) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    take_chunk(r, (const unsigned char *)(buf ? buf : ""), buf ? len : 0);
    r->at_end = 1;
    return reader_start(r, out, err);
}

cm_status cm_csv_reader_open(const char *path, cm_csv_reader **out,
                             cm_err *err)
{
    return reader_open_path(path, CM_CSV_ROW_MAX, out, err);
}

cm_status cm_csv_reader_open_buffer(const char *name, const char *buf,
                                    size_t len, cm_csv_reader **out,
                                    cm_err *err)
{
    return reader_open_buffer(name, CM_CSV_ROW_MAX, buf, len, out, err);
}

cm_status cm_csv_reader_open_fn(const char *name, cm_csv_read_fn fn,
                                void *ctx, cm_csv_reader **out, cm_err *err)
{
    *out = NULL;
    if (!fn) return cm_err_set(err, CM_EINTERNAL, "no CSV read function");
    return reader_open_fn(name, CM_CSV_ROW_MAX, fn, ctx, NULL, out, err);
}

int cm_csv_reader_next(cm_csv_reader *r, cm_err *err)
{
    if (!r) {
        cm_err_set(err, CM_EINTERNAL, "no CSV reader");
        return -1;
    }
    if (r->st != CM_OK) {
        reader_status(r, err);
        return -1;
    }
    int got = reader_row(r);
    if (got < 0) reader_status(r, err);
    return got;
}

const char *cm_csv_reader_name(const cm_csv_reader *r)
{
    return r ? r->name : "";
}

size_t cm_csv_reader_ncols(const cm_csv_reader *r) { return r ? r->ncols : 0; }

uint64_t cm_csv_reader_bytes_read(const cm_csv_reader *r)
{
    return r ? r->consumed : 0;
}

/* ---- lookups shared by tables and readers ----------------------------- */

static long header_find(const cellbuf *h, size_t ncols, const char *name)
{
    if (!name) return -1;
    for (size_t i = 0; i < ncols; i++)
        if (!strcmp(cellbuf_text(h, i), name)) return (long)i;
    return -1;
}

static cm_status header_require(const cellbuf *h, size_t ncols,
                                const char *file, const char *name,
                                size_t *col, cm_err *err)
{
    long i = h ? header_find(h, ncols, name) : -1;
    if (i < 0) {
        unsigned long line = h && ncols && h->cells[0].line
                                 ? h->cells[0].line
                                 : 1;
        return cm_err_at(err, CM_EINPUT, file, line, 1,
                         "missing column '%s'", name ? name : "");
    }
    *col = (size_t)i;
    return CM_OK;
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

/* "file:line:col: column 'x': expected <what>, got '<text>'"; c NULL when
 * there is no such cell. */
static cm_status cell_error(const char *file, const char *colname,
                            const cellbuf *b, const cell *c, size_t row,
                            size_t col, const char *what, cm_err *err)
{
    if (!c)
        return cm_err_set(err, CM_EINTERNAL,
                          "%s: no cell at row %zu, column %zu", file, row,
                          col);
    char text[64];
    cell_excerpt(text, sizeof text, b->text + c->off);
    return cm_err_at(err, CM_EINPUT, file, c->line, c->col,
                     "column '%s': expected %s, got '%s'", colname, what,
                     text);
}

/* A data cell may underflow to a subnormal: cohmod itself writes them
 * (the far tail of a distribution). */
static int parse_double(const char *s, double *v)
{
    double x;
    cm_num_status ns = cm_number_read(s, &x);
    if (ns != CM_NUM_OK && ns != CM_NUM_UNDERFLOW) return -1;
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

/* ---- streaming reader: the current row -------------------------------- */

static const cell *reader_cell(const cm_csv_reader *r, size_t col)
{
    return r && col < r->ncols && r->row_ready ? &r->row.cells[col] : NULL;
}

const char *cm_csv_reader_colname(const cm_csv_reader *r, size_t col)
{
    return r && col < r->ncols ? cellbuf_text(&r->hdr, col) : "";
}

long cm_csv_reader_col_find(const cm_csv_reader *r, const char *name)
{
    return r ? header_find(&r->hdr, r->ncols, name) : -1;
}

cm_status cm_csv_reader_col_require(const cm_csv_reader *r, const char *name,
                                    size_t *col, cm_err *err)
{
    return header_require(r ? &r->hdr : NULL, r ? r->ncols : 0,
                          cm_csv_reader_name(r), name, col, err);
}

const char *cm_csv_reader_cell(const cm_csv_reader *r, size_t col)
{
    const cell *c = reader_cell(r, col);
    return c ? r->row.text + c->off : "";
}

void cm_csv_reader_cell_pos(const cm_csv_reader *r, size_t col,
                            unsigned long *line, unsigned long *column)
{
    const cell *c = reader_cell(r, col);
    if (line) *line = c ? c->line : 0;
    if (column) *column = c ? c->col : 0;
}

cm_status cm_csv_reader_cell_error(const cm_csv_reader *r, size_t col,
                                   const char *what, cm_err *err)
{
    return cell_error(cm_csv_reader_name(r), cm_csv_reader_colname(r, col),
                      r ? &r->row : NULL, reader_cell(r, col), 0, col, what,
                      err);
}

cm_status cm_csv_reader_get_double(const cm_csv_reader *r, size_t col,
                                   double *v, cm_err *err)
{
    const cell *c = reader_cell(r, col);
    if (!c || parse_double(r->row.text + c->off, v))
        return cm_csv_reader_cell_error(r, col, "a number", err);
    return CM_OK;
}

cm_status cm_csv_reader_get_long(const cm_csv_reader *r, size_t col, long *v,
                                 cm_err *err)
{
    const cell *c = reader_cell(r, col);
    if (!c || parse_long(r->row.text + c->off, v))
        return cm_csv_reader_cell_error(r, col, "an integer", err);
    return CM_OK;
}

/* ---- tables: the reader's rows in memory ------------------------------ */

static int table_add_cells(cm_table *t, const cellbuf *b)
{
    for (size_t i = 0; i < b->n; i++)
        if (cellbuf_add(&t->cb, cellbuf_text(b, i),
                        (i + 1 < b->n ? b->cells[i + 1].off : b->len) -
                            b->cells[i].off - 1,
                        b->cells[i].line, b->cells[i].col))
            return -1;
    return 0;
}

/* With a limit, the memory of the whole table is estimated from the rows
 * of its first MB against the input's size (size 0: unknown, as stdin,
 * then the table itself is held to the limit as it grows). */
#define ESTIMATE_SAMPLE ((uint64_t)1 << 20)

/* Called after each row, and once more at the end (at_end): a file of
 * known size is judged once, by extrapolation from its first MB, or at
 * its end when it is shorter; input of unknown size as it grows. */
static cm_status table_check_size(const cm_csv_reader *r, const cm_table *t,
                                  double limit, double size, int at_end,
                                  int *checked, cm_err *err)
{
    uint64_t in = cm_csv_reader_bytes_read(r);
    double est = (double)cm_table_bytes(t);
    int extrapolated = 0;
    if (size > 0) {
        if (*checked || (!at_end && in < ESTIMATE_SAMPLE)) return CM_OK;
        *checked = 1;
        if (!at_end && in > 0) {
            est *= size / (double)in;
            extrapolated = 1;
        }
    }
    if (est <= limit) return CM_OK;
    return cm_err_set(err, CM_EINPUT,
                      "%s: the table would take about %.3g GB in memory "
                      "(%s), above mem.limit = %.3g GB", r->name, est / 1e9,
                      extrapolated ? "estimated from its first MB"
                                   : "as read",
                      limit / 1e9);
}

static cm_status table_from_reader(cm_csv_reader *r, double limit,
                                   double size, cm_table **out, cm_err *err)
{
    cm_table *t = table_alloc(r->name);
    cm_status st = CM_OK;
    if (!t || table_add_cells(t, &r->hdr)) {
        st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    } else {
        t->ncols = r->ncols;
        int got, checked = 0;
        while ((got = cm_csv_reader_next(r, err)) == 1) {
            if (table_add_cells(t, &r->row)) {
                st = cm_err_set(err, CM_EINTERNAL, "out of memory");
                break;
            }
            t->nrows++;
            if (limit > 0 && (st = table_check_size(r, t, limit, size, 0,
                                                    &checked, err)))
                break;
        }
        if (got < 0) st = r->st;
        else if (!st && limit > 0)
            st = table_check_size(r, t, limit, size, 1, &checked, err);
    }
    cm_csv_reader_close(r);
    if (st != CM_OK) {
        cm_table_free(t);
        return st;
    }
    *out = t;
    return CM_OK;
}

cm_status cm_table_read_buffer(const char *name, const char *buf, size_t len,
                               cm_table **out, cm_err *err)
{
    cm_csv_reader *r;
    *out = NULL;
    cm_status st = reader_open_buffer(name, 0, buf, len, &r, err);
    return st != CM_OK ? st : table_from_reader(r, 0, 0, out, err);
}

cm_status cm_table_read_file(const char *path, cm_table **out, cm_err *err)
{
    cm_csv_reader *r;
    *out = NULL;
    cm_status st = reader_open_path(path, 0, &r, err);
    return st != CM_OK ? st : table_from_reader(r, 0, 0, out, err);
}

cm_status cm_table_read_file_limit(const char *path, double limit,
                                   cm_table **out, cm_err *err)
{
    cm_csv_reader *r;
    *out = NULL;
    struct stat sb;
    double size = path && strcmp(path, "-") && stat(path, &sb) == 0 &&
                          S_ISREG(sb.st_mode)
                      ? (double)sb.st_size
                      : 0;
    cm_status st = reader_open_path(path, 0, &r, err);
    return st != CM_OK ? st : table_from_reader(r, limit, size, out, err);
}

/* ---- access ----------------------------------------------------------- */

size_t cm_table_nrows(const cm_table *t) { return t ? t->nrows : 0; }
size_t cm_table_ncols(const cm_table *t) { return t ? t->ncols : 0; }
const char *cm_table_name(const cm_table *t) { return t ? t->name : ""; }

static const cell *cell_at(const cm_table *t, size_t row, size_t col)
{
    if (!t || col >= t->ncols || row > t->nrows) return NULL;
    return &t->cb.cells[row * t->ncols + col];
}

const char *cm_table_colname(const cm_table *t, size_t col)
{
    const cell *c = cell_at(t, 0, col);
    return c ? t->cb.text + c->off : "";
}

const char *cm_table_cell(const cm_table *t, size_t row, size_t col)
{
    const cell *c = row < SIZE_MAX ? cell_at(t, row + 1, col) : NULL;
    return c ? t->cb.text + c->off : "";
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
    return t ? header_find(&t->cb, t->ncols, name) : -1;
}

cm_status cm_table_col_require(const cm_table *t, const char *name,
                               size_t *col, cm_err *err)
{
    return header_require(t ? &t->cb : NULL, t ? t->ncols : 0,
                          cm_table_name(t), name, col, err);
}

static cm_status typed_error(const cm_table *t, size_t row, size_t col,
                             const char *what, cm_err *err)
{
    const cell *c = row < SIZE_MAX ? cell_at(t, row + 1, col) : NULL;
    return cell_error(cm_table_name(t), cm_table_colname(t, col),
                      t ? &t->cb : NULL, c, row, col, what, err);
}

cm_status cm_table_get_double(const cm_table *t, size_t row, size_t col,
                              double *v, cm_err *err)
{
    const cell *c = row < SIZE_MAX ? cell_at(t, row + 1, col) : NULL;
    if (!c || parse_double(t->cb.text + c->off, v))
        return typed_error(t, row, col, "a number", err);
    return CM_OK;
}

cm_status cm_table_get_long(const cm_table *t, size_t row, size_t col,
                            long *v, cm_err *err)
{
    const cell *c = row < SIZE_MAX ? cell_at(t, row + 1, col) : NULL;
    if (!c || parse_long(t->cb.text + c->off, v))
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
        if (cellbuf_add(&t->cb, s, strlen(s), 0, 0)) {
            cm_table_free(t);
            return NULL;
        }
    }
    t->ncols = ncols;
    return t;
}

size_t cm_table_bytes(const cm_table *t)
{
    if (!t || t->cb.n <= t->ncols) return 0;
    size_t header = t->cb.cells[t->ncols].off; /* the first row's text */
    return (t->cb.n - t->ncols) * sizeof(cell) + (t->cb.len - header);
}

cm_status cm_table_append(cm_table *t, const char *const *cells, cm_err *err)
{
    if (!t || !cells)
        return cm_err_set(err, CM_EINTERNAL, "cm_table_append: no table");
    size_t ncells = t->cb.n, text_len = t->cb.len;
    for (size_t i = 0; i < t->ncols; i++) {
        const char *s = cells[i] ? cells[i] : "";
        if (cellbuf_add(&t->cb, s, strlen(s), 0, 0)) {
            t->cb.n = ncells; /* no half-appended row */
            t->cb.len = text_len;
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
            row[c] = cellbuf_text(&t->cb, r * t->ncols + c);
        st = cm_csv_writer_row(w, t->ncols, row, err);
    }
    free(row);
    if (st == CM_OK) return cm_csv_writer_commit(w, err);
    cm_csv_writer_abort(w);
    return st;
}
