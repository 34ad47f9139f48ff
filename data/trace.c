/* trace.c - opening a trace: format names, auto-detection and dispatch to
 * the per-format readers (trace_lackey.c, trace_din.c, trace_csv.c,
 * trace_accel.c).
 *
 * Detection reads the first buffer through the line reader without
 * consuming it, so it works on stdin too; the chosen reader then starts
 * from that same buffer.  An error from a reader is kept, and every later
 * cm_trace_next repeats it, so a caller cannot read past a bad line.
 *
 * A trace without a single memory access is an error, the same one for
 * every format and every command (an empty file, or one of banners
 * only): what would follow from it is a table of 0/0. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/trace_impl.h"

struct cm_trace {
    cm_trace_format format;
    const cm_trace_ops *ops;
    void *st;
    int failed;
    cm_err fail;
    uint64_t delivered; /* accesses returned so far */
    char *name;         /* for the empty-trace message */
};

static cm_status trace_empty(const char *name, cm_err *err)
{
    return cm_err_set(err, CM_EINPUT, "%s: the trace holds no memory "
                      "accesses", name);
}

/* No line with more than blanks in the first buffer. */
static int all_blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
            return 0;
    return 1;
}

static const char *const format_names[] = {
    [CM_TRACE_AUTO] = "auto",
    [CM_TRACE_LACKEY] = "lackey",
    [CM_TRACE_DIN] = "din",
    [CM_TRACE_CSV] = "csv",
    [CM_TRACE_ACCEL] = "accel"};
#define NFORMATS (sizeof format_names / sizeof format_names[0])

const char *cm_op_name(cm_op op)
{
    static const char *const names[] = {"load", "store", "modify", "atomic"};
    return (unsigned)op < CM_OP_COUNT ? names[op] : "?";
}

const char *cm_trace_format_name(cm_trace_format f)
{
    return (unsigned)f < NFORMATS ? format_names[f] : "?";
}

cm_status cm_trace_format_parse(const char *name, cm_trace_format *f,
                                cm_err *err)
{
    for (size_t i = 0; name && i < NFORMATS; i++)
        if (!strcmp(name, format_names[i])) {
            *f = (cm_trace_format)i;
            return CM_OK;
        }
    return cm_err_set(err, CM_EINPUT,
                      "unknown trace format '%s' (expected auto, lackey, din, "
                      "csv or accel)",
                      name ? name : "");
}

/* ---- detection -------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

static cm_trace_format format_by_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!strcmp(base, "kernelslist.g") || ends_with(base, ".traceg"))
        return CM_TRACE_ACCEL;
    if (ends_with(base, ".csv")) return CM_TRACE_CSV;
    if (ends_with(base, ".din")) return CM_TRACE_DIN;
    if (ends_with(base, ".lackey")) return CM_TRACE_LACKEY;
    return CM_TRACE_AUTO;
}

static int has_prefix(const char *s, const char *e, const char *prefix)
{
    size_t k = strlen(prefix);
    return (size_t)(e - s) >= k && !memcmp(s, prefix, k);
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* A CSV header naming op and addr among its (unquoted) fields. */
static int is_csv_header(const char *s, const char *e)
{
    int op = 0, addr = 0;
    while (s <= e) {
        const char *c = memchr(s, ',', (size_t)(e - s));
        const char *f = c ? c : e, *a = s, *b = f;
        while (a < b && is_blank(*a)) a++;
        while (b > a && is_blank(b[-1])) b--;
        op |= b - a == 2 && !memcmp(a, "op", 2);
        addr |= b - a == 4 && !memcmp(a, "addr", 4);
        if (!c) break;
        s = c + 1;
    }
    return op && addr;
}

/* By the first non-blank line; lackey's leading blank is significant. */
static cm_trace_format format_by_content(const char *p, size_t n)
{
    const char *end = p + n;
    if (has_prefix(p, end, "\xEF\xBB\xBF")) p += 3;
    for (;; p++) {
        const char *e = memchr(p, '\n', (size_t)(end - p)), *q = p;
        if (!e) e = end;
        while (q < e && is_blank(*q)) q++;
        if (q == e) { /* a blank line */
            if (e == end) return CM_TRACE_AUTO;
            p = e;
            continue;
        }
        if (has_prefix(p, e, "==") || has_prefix(p, e, "--") ||
            has_prefix(p, e, "I  ") || has_prefix(p, e, " L ") ||
            has_prefix(p, e, " S ") || has_prefix(p, e, " M "))
            return CM_TRACE_LACKEY;
        if (e - q >= 3 && q[0] >= '0' && q[0] <= '9' && is_blank(q[1])) {
            q++;
            while (q < e && is_blank(*q)) q++;
            if (q < e && cm_hexval((unsigned char)*q) >= 0)
                return CM_TRACE_DIN;
        }
        if (has_prefix(p, e, "-kernel name") || has_prefix(p, e, "#BEGIN_TB") ||
            has_prefix(p, e, "Memcpy") || has_prefix(p, e, "kernel-"))
            return CM_TRACE_ACCEL;
        if (is_csv_header(p, e)) return CM_TRACE_CSV;
        return CM_TRACE_AUTO;
    }
}

/* ---- the trace -------------------------------------------------------- */

static const cm_trace_ops *const format_ops[] = {
    [CM_TRACE_LACKEY] = &cm_trace_lackey_ops,
    [CM_TRACE_DIN] = &cm_trace_din_ops,
    [CM_TRACE_CSV] = &cm_trace_csv_ops,
    [CM_TRACE_ACCEL] = &cm_trace_accel_ops};

cm_status cm_trace_open(const char *path, const cm_trace_opts *opts,
                        cm_trace **out, cm_err *err)
{
    *out = NULL;
    cm_trace_opts o = opts ? *opts : (cm_trace_opts){0};
    if (!path) path = "-";
    if (o.line_bytes == 0) o.line_bytes = 128;
    if (o.line_bytes & (o.line_bytes - 1) || o.line_bytes > 65536)
        return cm_err_set(err, CM_EINPUT,
                          "line size %u: expected a power of two up to 65536",
                          o.line_bytes);
    if ((unsigned)o.format >= NFORMATS)
        return cm_err_set(err, CM_EINTERNAL, "unknown trace format %d",
                          (int)o.format);
    int is_stdin = !strcmp(path, "-");
    struct stat sb; /* a zero-byte file, before any reader's own message */
    if (!is_stdin && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
        sb.st_size == 0)
        return trace_empty(path, err);
    if (o.format == CM_TRACE_AUTO && !is_stdin) o.format = format_by_name(path);
    cm_tlines *in = NULL;
    cm_status st = CM_OK;
    if (o.format != CM_TRACE_CSV || is_stdin)
        st = cm_tlines_open(path, &in, err);
    if (st == CM_OK && o.format == CM_TRACE_AUTO) {
        const char *p;
        size_t n;
        st = cm_tlines_peek(in, &p, &n, err);
        if (st == CM_OK && all_blank(p, n)) st = trace_empty(in->name, err);
        if (st == CM_OK) o.format = format_by_content(p, n);
        if (st == CM_OK && o.format == CM_TRACE_AUTO)
            st = cm_err_set(err, CM_EINPUT,
                            "%s: cannot tell the trace format from the name "
                            "or the first line (give lackey, din, csv or "
                            "accel)",
                            in->name);
    }
    cm_trace *t = st == CM_OK ? calloc(1, sizeof *t) : NULL;
    if (t && !(t->name = strdup(is_stdin ? "<stdin>" : path))) {
        free(t);
        t = NULL;
    }
    if (st == CM_OK && !t) st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    if (st != CM_OK) {
        cm_tlines_close(in);
        return st;
    }
    t->format = o.format;
    t->ops = format_ops[o.format];
    st = t->ops->open(path, in, &o, &t->st, err);
    if (st != CM_OK) {
        free(t->name);
        free(t);
        return st;
    }
    *out = t;
    return CM_OK;
}

int cm_trace_next(cm_trace *t, cm_access *a, cm_err *err)
{
    if (!t) {
        cm_err_set(err, CM_EINTERNAL, "no trace");
        return -1;
    }
    if (!t->failed) {
        int got = t->ops->next(t->st, a, &t->fail);
        t->delivered += got > 0;
        if (got > 0 || (got == 0 && t->delivered > 0)) return got;
        if (got == 0) trace_empty(t->name, &t->fail);
        t->failed = 1;
    }
    if (err) *err = t->fail;
    return -1;
}

cm_trace_format cm_trace_get_format(const cm_trace *t)
{
    return t ? t->format : CM_TRACE_AUTO;
}

uint64_t cm_trace_bytes_read(const cm_trace *t)
{
    return t ? t->ops->bytes_read(t->st) : 0;
}

void cm_trace_close(cm_trace *t)
{
    if (!t) return;
    t->ops->close(t->st);
    free(t->name);
    free(t);
}
