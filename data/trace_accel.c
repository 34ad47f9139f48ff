/* trace_accel.c - Accel-Sim GPU kernel traces (kernelslist.g plus
 * kernel-N.traceg, or one .traceg file).
 *
 * kernelslist.g: one command a line; "kernel..." names a .traceg file
 * relative to the list's directory; "Memcpy..." lines are skipped.  Kernels
 * are numbered 1, 2, ... in list order (a lone .traceg is kernel 1).
 *
 * A .traceg file: header lines "-key = value" ("-grid dim = (x,y,z)" is
 * required; "-enable lineinfo = 1" adds a leading line number to every
 * instruction; tracer versions below 3 put block and warp on every line and
 * are refused), '#' comments, then thread blocks, checked strictly:
 *   #BEGIN_TB / thread block = x,y,z / (warp = n / insts = k / k lines)* /
 *   #END_TB
 * An instruction line is
 *   PC mask dest_num dest... opcode src_num src... mem_width
 *   [mode addresses] [immediate]
 * with the addresses present when mem_width > 0 and one per active lane
 * (set bits of mask, lowest lane first):
 *   mode 0: one hex address per active lane;
 *   mode 1: base and a decimal stride: active lane i is base + i*stride
 *           (Accel-Sim writes this only for a contiguous run of lanes, where
 *           counting active lanes and counting lanes agree);
 *   mode 2: base and one signed decimal delta per further active lane, each
 *           from the previous lane's address.
 * The trailing immediate is what tracer version 5 appends.
 *
 * Global accesses become requests: LDG, LD -> load; STG, ST -> store;
 * ATOMG, ATOM, RED -> atomic (opcode up to its first '.').  Generic LD/ST/
 * ATOM are taken as global, which they almost always are in CUDA code;
 * shared (LDS, STS, ATOMS), local (LDL, STL), LDGSTS (whose two address
 * operands the trace cannot tell apart), constant and texture accesses are
 * skipped.  Each lane touches mem_width bytes from its address; every
 * distinct line of line_bytes touched by the instruction is one request, in
 * ascending address order, with size line_bytes, the kernel, the linearised
 * block x + gx*(y + gy*z), the warp, the instruction's index in the
 * warp's list (so a consumer can count the non-memory instructions between
 * two memory ones) and sm 0 (the trace does not record where a block ran). */
#include <stdlib.h>
#include <string.h>

#include "data/trace_impl.h"

#define WARP_LANES 32
#define MAX_MEM_WIDTH 128
#define MAX_REGS 32

typedef enum tb_state {
    ST_HEADER,   /* before the first thread block */
    ST_OUTSIDE,  /* between thread blocks */
    ST_TB_START, /* after #BEGIN_TB: "thread block = ..." */
    ST_TB,       /* "warp = n" or "#END_TB" */
    ST_WARP,     /* "insts = k" */
    ST_INSTS     /* instruction lines */
} tb_state;

typedef struct accel {
    cm_tlines *list; /* kernelslist.g, or NULL for a lone .traceg */
    char *dir;       /* the list's directory, with a trailing '/' or "" */
    cm_tlines *in;   /* the current .traceg, or NULL */
    uint64_t done_bytes; /* of the .traceg files already read */
    uint32_t kernel, line_bytes;
    /* the current kernel */
    tb_state state;
    int have_grid, lineinfo;
    uint64_t grid[3];
    uint32_t block, warp;
    uint64_t insts_left;
    uint64_t inst_next, inst; /* next instruction line's index in the warp,
                                 and the pending requests' */
    /* requests of the last memory instruction, sorted line numbers */
    uint64_t *lines;
    size_t nlines, next, lines_cap;
    uint8_t op;
} accel;

static void accel_close(void *st)
{
    accel *x = st;
    if (!x) return;
    cm_tlines_close(x->list);
    cm_tlines_close(x->in);
    free(x->dir);
    free(x->lines);
    free(x);
}

static void kernel_start(accel *x, cm_tlines *in)
{
    x->in = in;
    x->kernel++;
    x->state = ST_HEADER;
    x->have_grid = x->lineinfo = 0;
}

/* The first non-blank line of a .traceg starts with '-' or '#'; a list's
 * starts with "kernel" or "Memcpy". */
static int looks_like_traceg(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' ||
                     p[i] == '\n'))
        i++;
    return i < n && (p[i] == '-' || p[i] == '#');
}

static cm_status accel_open(const char *path, cm_tlines *in,
                            const cm_trace_opts *o, void **st, cm_err *err)
{
    *st = NULL;
    accel *x = calloc(1, sizeof *x);
    const char *p;
    size_t n;
    cm_status s = x ? cm_tlines_peek(in, &p, &n, err)
                    : cm_err_set(err, CM_EINTERNAL, "out of memory");
    if (s != CM_OK) {
        cm_tlines_close(in);
        free(x);
        return s;
    }
    x->line_bytes = o->line_bytes;
    x->lines_cap = WARP_LANES * ((MAX_MEM_WIDTH - 1) / x->line_bytes + 2);
    x->lines = malloc(x->lines_cap * sizeof *x->lines);
    if (looks_like_traceg(p, n)) {
        kernel_start(x, in);
    } else {
        x->list = in;
        const char *slash = path ? strrchr(path, '/') : NULL;
        size_t dn = slash ? (size_t)(slash - path) + 1 : 0;
        x->dir = malloc(dn + 1);
        if (x->dir) {
            if (dn) memcpy(x->dir, path, dn);
            x->dir[dn] = '\0';
        }
    }
    if (!x->lines || (x->list && !x->dir)) {
        accel_close(x);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    *st = x;
    return CM_OK;
}

/* ---- kernelslist.g ---------------------------------------------------- */

static int starts(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* Opens the next kernel of the list: 1, 0 at the end of the list, -1. */
static int next_kernel(accel *x, cm_err *err)
{
    char *s;
    size_t n;
    for (;;) {
        int got = cm_tlines_next(x->list, &s, &n, err);
        if (got <= 0) return got;
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = '\0';
        while (*s == ' ' || *s == '\t') s++, n--;
        if (n == 0 || starts(s, "Memcpy")) continue;
        if (!starts(s, "kernel"))
            return cm_tlines_fail(x->list, err,
                                  "expected 'kernel-N.traceg' or "
                                  "'MemcpyHtoD,addr,bytes'"),
                   -1;
        if (n > 3 && !strcmp(s + n - 3, ".xz"))
            return cm_tlines_fail(x->list, err,
                                  "compressed trace '%s': decompress it "
                                  "first (xz -dk)",
                                  s),
                   -1;
        size_t dn = strlen(x->dir);
        char *path = malloc(dn + n + 1);
        if (!path) return cm_err_set(err, CM_EINTERNAL, "out of memory"), -1;
        memcpy(path, x->dir, dn);
        memcpy(path + dn, s, n + 1);
        cm_tlines *in;
        cm_err e;
        cm_status st = cm_tlines_open(path, &in, &e);
        free(path);
        if (st != CM_OK)
            return cm_tlines_fail(x->list, err, "%s", e.msg), -1;
        kernel_start(x, in);
        return 1;
    }
}

/* ---- .traceg ---------------------------------------------------------- */

/* Next blank-separated token of the NUL-terminated line at *p. */
static int token(char **p, char **t, size_t *n)
{
    char *s = *p;
    while (*s == ' ' || *s == '\t') s++;
    char *e = s;
    while (*e && *e != ' ' && *e != '\t') e++;
    *t = s;
    *n = (size_t)(e - s);
    *p = e;
    return e > s;
}

/* Token as a whole number: decimal (dec) or hex with optional 0x. */
static int tok_num(char **p, int hex, uint64_t max, uint64_t *v)
{
    char *t;
    size_t n;
    if (!token(p, &t, &n)) return 0;
    const char *q = t, *end = t + n;
    if (hex && n > 2 && t[0] == '0' && (t[1] | 0x20) == 'x') q += 2;
    int r = hex ? cm_parse_hex(&q, end, v) : cm_parse_dec(&q, end, v);
    return r == 1 && q == end && *v <= max;
}

static int tok_signed(char **p, int64_t *v)
{
    char *t;
    size_t n;
    uint64_t u;
    if (!token(p, &t, &n)) return 0;
    int neg = *t == '-';
    const char *q = t + neg, *end = t + n;
    if (cm_parse_dec(&q, end, &u) != 1 || q != end ||
        u > (uint64_t)INT64_MAX + (uint64_t)neg)
        return 0;
    *v = neg ? (int64_t)(0 - u) : (int64_t)u;
    return 1;
}

static int at_end(char *p)
{
    while (*p == ' ' || *p == '\t') p++;
    return *p == '\0';
}

/* s is exactly w, give or take trailing blanks. */
static int is_word(char *s, const char *w)
{
    return starts(s, w) && at_end(s + strlen(w));
}

/* "key = a,b,c" or "key = (a,b,c)" with decimal numbers, exactly. */
static int parse_triple(const char *s, const char *key, int parens,
                        uint64_t v[3])
{
    size_t k = strlen(key);
    if (strncmp(s, key, k)) return 0;
    const char *p = s + k, *end = s + strlen(s);
    while (*p == ' ') p++;
    if (*p++ != '=') return 0;
    while (*p == ' ') p++;
    if (parens && *p++ != '(') return 0;
    for (int i = 0; i < 3; i++) {
        if (i && *p++ != ',') return 0;
        if (cm_parse_dec(&p, end, &v[i]) != 1 || v[i] > UINT32_MAX) return 0;
    }
    if (parens && *p++ != ')') return 0;
    while (*p == ' ' || *p == '\t') p++;
    return *p == '\0';
}

/* "key = n", decimal, exactly. */
static int parse_kv(const char *s, const char *key, uint64_t max, uint64_t *v)
{
    size_t k = strlen(key);
    if (strncmp(s, key, k)) return 0;
    char *p = (char *)s + k;
    while (*p == ' ') p++;
    if (*p++ != '=') return 0;
    return tok_num(&p, 0, max, v) && at_end(p);
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Memory opcodes kept, by their first dot-separated part. */
static int global_op(const char *op, size_t n)
{
    static const struct {
        const char *name;
        cm_op op;
    } ops[] = {{"LDG", CM_OP_LOAD},    {"LD", CM_OP_LOAD},
               {"STG", CM_OP_STORE},   {"ST", CM_OP_STORE},
               {"ATOMG", CM_OP_ATOMIC}, {"ATOM", CM_OP_ATOMIC},
               {"RED", CM_OP_ATOMIC}};
    size_t k = 0;
    while (k < n && op[k] != '.') k++;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strlen(ops[i].name) == k && !strncmp(op, ops[i].name, k))
            return (int)ops[i].op;
    return -1;
}

#define INST_EXPECT                                                        \
    "expected 'PC mask dest_num [regs] opcode src_num [regs] mem_width "   \
    "[mode addresses] [imm]'"

/* Adds the lines one lane touches. */
static int add_lane(accel *x, uint64_t addr, uint64_t width)
{
    if (addr > UINT64_MAX - (width - 1)) return -1;
    for (uint64_t l = addr / x->line_bytes;
         l <= (addr + width - 1) / x->line_bytes; l++)
        x->lines[x->nlines++] = l;
    return 0;
}

/* One instruction line: fills x->lines when it is a kept memory access. */
static int parse_inst(accel *x, char *s, cm_err *err)
{
    cm_tlines *l = x->in;
    char *p = s, *t;
    size_t n;
    uint64_t v, mask, ndst, nsrc, width;
    if (x->lineinfo && !tok_num(&p, 0, UINT64_MAX, &v)) goto bad;
    if (!tok_num(&p, 1, UINT64_MAX, &v) || !tok_num(&p, 1, UINT32_MAX, &mask))
        goto bad;
    if (!tok_num(&p, 0, MAX_REGS, &ndst)) goto bad;
    for (uint64_t i = 0; i < ndst; i++)
        if (!token(&p, &t, &n)) goto bad;
    char *op;
    size_t opn;
    if (!token(&p, &op, &opn) || !tok_num(&p, 0, MAX_REGS, &nsrc)) goto bad;
    for (uint64_t i = 0; i < nsrc; i++)
        if (!token(&p, &t, &n)) goto bad;
    if (!tok_num(&p, 0, UINT32_MAX, &width)) goto bad;
    x->nlines = x->next = 0;
    if (width > 0) {
        uint64_t mode, base;
        int64_t step = 0;
        unsigned active = (unsigned)__builtin_popcountll(mask);
        if (width > MAX_MEM_WIDTH)
            return cm_tlines_fail(l, err, "expected mem_width at most %d",
                                  MAX_MEM_WIDTH),
                   -1;
        if (!tok_num(&p, 0, 2, &mode)) goto bad;
        int keep = global_op(op, opn);
        uint64_t addr = 0;
        for (unsigned i = 0; i < active || (i == 0 && mode != 0); i++) {
            if (mode == 0 || i == 0) {
                if (!tok_num(&p, 1, UINT64_MAX, &base)) goto bad;
                addr = base;
                if (mode == 1 && !tok_signed(&p, &step)) goto bad;
            } else if (mode == 1) {
                addr = base + (uint64_t)step * i; /* modulo 2^64 */
            } else {
                if (!tok_signed(&p, &step)) goto bad;
                addr += (uint64_t)step;
            }
            if (i < active && keep >= 0 && add_lane(x, addr, width))
                return cm_tlines_fail(l, err,
                                      "address 0x%llx + mem_width %llu "
                                      "exceeds 64 bits",
                                      (unsigned long long)addr,
                                      (unsigned long long)width),
                       -1;
        }
        if (keep >= 0) x->op = (uint8_t)keep;
        else x->nlines = 0;
    }
    int64_t imm;
    char *q = p;
    if (!at_end(q) && (!tok_signed(&q, &imm) || !at_end(q))) goto bad;
    if (x->nlines > 1) {
        qsort(x->lines, x->nlines, sizeof *x->lines, u64_cmp);
        size_t k = 1;
        for (size_t i = 1; i < x->nlines; i++)
            if (x->lines[i] != x->lines[k - 1]) x->lines[k++] = x->lines[i];
        x->nlines = k;
    }
    return 0;
bad:
    cm_tlines_fail(l, err, INST_EXPECT);
    return -1;
}

/* A "-key = value" header line. */
static int parse_header(accel *x, const char *s, cm_err *err)
{
    uint64_t v;
    if (starts(s, "-grid dim")) {
        if (!parse_triple(s, "-grid dim", 1, x->grid) || !x->grid[0] ||
            !x->grid[1] || !x->grid[2])
            return cm_tlines_fail(x->in, err,
                                  "expected '-grid dim = (x,y,z)' with "
                                  "positive sizes"),
                   -1;
        x->have_grid = 1;
    } else if (starts(s, "-enable lineinfo")) {
        if (!parse_kv(s, "-enable lineinfo", 1, &v))
            return cm_tlines_fail(x->in, err,
                                  "expected '-enable lineinfo = 0|1'"),
                   -1;
        x->lineinfo = (int)v;
    } else if (starts(s, "-accelsim tracer version")) {
        if (!parse_kv(s, "-accelsim tracer version", UINT32_MAX, &v))
            return cm_tlines_fail(x->in, err,
                                  "expected '-accelsim tracer version = n'"),
                   -1;
        if (v < 3)
            return cm_tlines_fail(x->in, err,
                                  "tracer version %llu is not supported "
                                  "(expected 3 or later)",
                                  (unsigned long long)v),
                   -1;
    }
    return 0;
}

/* Reads the current .traceg until a memory request is pending: 1, 0 at the
 * end of the file, -1. */
static int read_kernel(accel *x, cm_err *err)
{
    cm_tlines *l = x->in;
    char *s;
    size_t n;
    uint64_t v[3];
    for (;;) {
        int got = cm_tlines_next(l, &s, &n, err);
        if (got < 0) return -1;
        if (got == 0) break;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '\0') continue;
        switch (x->state) {
        case ST_HEADER:
            if (*s == '-') {
                if (parse_header(x, s, err)) return -1;
                continue;
            }
            /* fall through */
        case ST_OUTSIDE:
            if (is_word(s, "#BEGIN_TB")) {
                if (!x->have_grid)
                    return cm_tlines_fail(l, err,
                                          "expected '-grid dim = (x,y,z)' "
                                          "before the first thread block"),
                           -1;
                x->state = ST_TB_START;
            } else if (*s != '#' || starts(s, "#BEGIN_TB") ||
                       starts(s, "#END_TB")) {
                return cm_tlines_fail(l, err, "expected '#BEGIN_TB'"), -1;
            }
            continue;
        case ST_TB_START:
            if (!parse_triple(s, "thread block", 0, v))
                return cm_tlines_fail(l, err,
                                      "expected 'thread block = x,y,z'"),
                       -1;
            if (v[0] >= x->grid[0] || v[1] >= x->grid[1] || v[2] >= x->grid[2])
                return cm_tlines_fail(l, err,
                                      "thread block outside the grid "
                                      "(%llu,%llu,%llu)",
                                      (unsigned long long)x->grid[0],
                                      (unsigned long long)x->grid[1],
                                      (unsigned long long)x->grid[2]),
                       -1;
            {
                uint64_t b = v[0] + x->grid[0] * (v[1] + x->grid[1] * v[2]);
                if (b > UINT32_MAX)
                    return cm_tlines_fail(l, err,
                                          "thread block number over 32 bits"),
                           -1;
                x->block = (uint32_t)b;
            }
            x->state = ST_TB;
            continue;
        case ST_TB:
            if (is_word(s, "#END_TB")) {
                x->state = ST_OUTSIDE;
            } else if (parse_kv(s, "warp", UINT32_MAX, v)) {
                x->warp = (uint32_t)v[0];
                x->state = ST_WARP;
            } else {
                return cm_tlines_fail(l, err,
                                      "expected 'warp = n' or '#END_TB'"),
                       -1;
            }
            continue;
        case ST_WARP:
            if (!parse_kv(s, "insts", UINT64_MAX, &x->insts_left))
                return cm_tlines_fail(l, err, "expected 'insts = n'"), -1;
            x->state = x->insts_left ? ST_INSTS : ST_TB;
            x->inst_next = 0;
            continue;
        case ST_INSTS:
            if (parse_inst(x, s, err)) return -1;
            x->inst = x->inst_next++;
            if (--x->insts_left == 0) x->state = ST_TB;
            if (x->nlines) return 1;
            continue;
        }
    }
    if (x->state != ST_HEADER && x->state != ST_OUTSIDE) {
        static const char *const want[] = {
            [ST_TB_START] = "'thread block = x,y,z'",
            [ST_TB] = "'warp = n' or '#END_TB'",
            [ST_WARP] = "'insts = n'",
            [ST_INSTS] = "an instruction line"};
        l->line++; /* where the missing line would be */
        return cm_tlines_fail(l, err, "unexpected end of file, expected %s",
                              want[x->state]),
               -1;
    }
    return 0;
}

static int accel_next(void *st, cm_access *a, cm_err *err)
{
    accel *x = st;
    while (x->next == x->nlines) {
        int got = 0;
        if (x->in) {
            got = read_kernel(x, err);
            if (got < 0) return -1;
        }
        if (got == 0) {
            if (x->in) {
                x->done_bytes += cm_tlines_consumed(x->in);
                cm_tlines_close(x->in);
                x->in = NULL;
            }
            if (!x->list) return 0;
            got = next_kernel(x, err);
            if (got <= 0) return got;
        }
    }
    *a = (cm_access){.addr = x->lines[x->next++] * x->line_bytes,
                     .size = x->line_bytes,
                     .warp = x->warp,
                     .kernel = x->kernel,
                     .block = x->block,
                     .inst = x->inst,
                     .op = x->op};
    return 1;
}

static uint64_t accel_bytes(const void *st)
{
    const accel *x = st;
    return x->done_bytes + (x->in ? cm_tlines_consumed(x->in) : 0) +
           (x->list ? cm_tlines_consumed(x->list) : 0);
}

const cm_trace_ops cm_trace_accel_ops = {accel_open, accel_next, accel_bytes,
                                         accel_close};
