/* trace_csv.c - plain CSV traces, read through the CSV layer's streaming
 * reader (data/table.h), so quoting, positions and bounded memory come from
 * the one CSV parser.
 *
 * Header row with op, addr and size; sm, warp and cycle optional; other
 * columns are ignored.  op: load|store|modify|atomic or L|S|M|A, any case.
 * addr: decimal or 0x-hex, 64 bits; size: 1 to 2^32-1; sm, warp: 32-bit;
 * cycle: 64-bit decimal.  A bad cell is "file:line:col: column 'x':
 * expected ..., got '...'". */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "data/table.h"
#include "data/trace_impl.h"

enum { COL_OP, COL_ADDR, COL_SIZE, COL_SM, COL_WARP, COL_CYCLE, NCOL };

static const char *const col_names[NCOL] = {"op",  "addr", "size",
                                            "sm",  "warp", "cycle"};

typedef struct csv_trace {
    cm_csv_reader *r;
    cm_tlines *in; /* the sniffed input under r, or NULL */
    long col[NCOL];
} csv_trace;

static void csv_close(void *st)
{
    csv_trace *c = st;
    if (!c) return;
    cm_csv_reader_close(c->r);
    cm_tlines_close(c->in);
    free(c);
}

static cm_status csv_open(const char *path, cm_tlines *in,
                          const cm_trace_opts *o, void **st, cm_err *err)
{
    (void)o;
    *st = NULL;
    csv_trace *c = calloc(1, sizeof *c);
    if (!c) {
        cm_tlines_close(in);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    c->in = in;
    cm_status s = in ? cm_csv_reader_open_fn(in->name, cm_tlines_read_raw, in,
                                             &c->r, err)
                     : cm_csv_reader_open(path, &c->r, err);
    for (int i = 0; i < NCOL && s == CM_OK; i++) {
        size_t col;
        c->col[i] = cm_csv_reader_col_find(c->r, col_names[i]);
        if (i <= COL_SIZE)
            s = cm_csv_reader_col_require(c->r, col_names[i], &col, err);
    }
    if (s != CM_OK) {
        csv_close(c);
        return s;
    }
    *st = c;
    return CM_OK;
}

static const char *const op_names[][2] = {
    {"load", "l"}, {"store", "s"}, {"modify", "m"}, {"atomic", "a"}};

/* A whole-cell unsigned number: decimal, or hex after 0x when hex_ok. */
static int cell_u64(const char *s, int hex_ok, uint64_t max, uint64_t *v)
{
    const char *end = s + strlen(s);
    int r;
    if (hex_ok && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        r = cm_parse_hex(&s, end, v);
    } else {
        r = cm_parse_dec(&s, end, v);
    }
    return r == 1 && s == end && *v <= max ? 0 : -1;
}

static int csv_next(void *st, cm_access *a, cm_err *err)
{
    csv_trace *c = st;
    int got = cm_csv_reader_next(c->r, err);
    if (got <= 0) return got;
    cm_access x = {0};
    const char *op = cm_csv_reader_cell(c->r, (size_t)c->col[COL_OP]);
    int k = 0;
    while (k < CM_OP_COUNT && strcasecmp(op, op_names[k][0]) &&
           strcasecmp(op, op_names[k][1]))
        k++;
    if (k == CM_OP_COUNT) {
        cm_csv_reader_cell_error(c->r, (size_t)c->col[COL_OP],
                                 "load, store, modify or atomic", err);
        return -1;
    }
    x.op = (uint8_t)k;
    static const struct {
        int col, hex;
        uint64_t max;
        const char *what;
    } num[] = {
        {COL_ADDR, 1, UINT64_MAX, "an address (decimal or 0x-hex, 64 bits)"},
        {COL_SIZE, 0, UINT32_MAX, "a size of 1 to 4294967295 bytes"},
        {COL_SM, 0, UINT32_MAX, "an SM number (32 bits)"},
        {COL_WARP, 0, UINT32_MAX, "a warp number (32 bits)"},
        {COL_CYCLE, 0, UINT64_MAX, "a cycle (decimal, 64 bits)"},
    };
    for (size_t i = 0; i < sizeof num / sizeof num[0]; i++) {
        long col = c->col[num[i].col];
        uint64_t v = 0;
        if (col < 0) continue;
        if (cell_u64(cm_csv_reader_cell(c->r, (size_t)col), num[i].hex,
                     num[i].max, &v) ||
            (num[i].col == COL_SIZE && v == 0)) {
            cm_csv_reader_cell_error(c->r, (size_t)col, num[i].what, err);
            return -1;
        }
        switch (num[i].col) {
        case COL_ADDR: x.addr = v; break;
        case COL_SIZE: x.size = (uint32_t)v; break;
        case COL_SM: x.sm = (uint32_t)v; break;
        case COL_WARP: x.warp = (uint32_t)v; break;
        default: x.cycle = v; break;
        }
    }
    *a = x;
    return 1;
}

static uint64_t csv_bytes(const void *st)
{
    return cm_csv_reader_bytes_read(((const csv_trace *)st)->r);
}

const cm_trace_ops cm_trace_csv_ops = {csv_open, csv_next, csv_bytes,
                                       csv_close};
