/* trace_impl.h - what the trace readers share; private to data/trace*.c.
 *
 * cm_tlines is the one line reader under the lackey, din and accel formats
 * (and under csv when the format had to be sniffed from stdin): a fixed
 * buffer of CM_TRACE_BUF bytes, lines assembled in place, a line longer than
 * CM_TRACE_LINE_MAX an error rather than a reason to grow.  Each format is a
 * cm_trace_ops in its own file; trace.c picks one.  The number parsers are
 * inline because the lackey reader spends most of its time in them. */
#ifndef CM_TRACE_IMPL_H
#define CM_TRACE_IMPL_H

#include <stdint.h>
#include <stdio.h>

#include "data/trace.h"

#define CM_TRACE_BUF ((size_t)256 << 10)
#define CM_TRACE_LINE_MAX ((size_t)64 << 10)

typedef struct cm_tlines {
    FILE *f;
    char *name;
    char *buf;            /* CM_TRACE_BUF + 1: room for a final NUL */
    size_t pos, end;      /* unread bytes are buf[pos, end) */
    uint64_t base;        /* input offset of buf[0] */
    uint64_t nul_at;      /* input offset of the first NUL, or UINT64_MAX */
    unsigned long line;   /* number of the line last returned */
    int eof;
} cm_tlines;

/* "-" is stdin, named "<stdin>". */
cm_status cm_tlines_open(const char *path, cm_tlines **out, cm_err *err);
void cm_tlines_close(cm_tlines *l);

/* Next line, without its LF or CRLF and NUL-terminated in place: 1, 0 at
 * the end, -1 on error.  Valid until the next call. */
int cm_tlines_next(cm_tlines *l, char **s, size_t *n, cm_err *err);

/* The buffered input (as much as the buffer holds), nothing consumed. */
cm_status cm_tlines_peek(cm_tlines *l, const char **p, size_t *n,
                         cm_err *err);

/* A cm_csv_read_fn: the bytes not yet returned as lines, then the rest. */
long cm_tlines_read_raw(void *l, char *buf, size_t cap);

static inline uint64_t cm_tlines_consumed(const cm_tlines *l)
{
    return l->base + l->pos;
}

/* "name:line: <message>" about the line last returned; CM_EINPUT. */
cm_status cm_tlines_fail(const cm_tlines *l, cm_err *err, const char *fmt,
                         ...) __attribute__((format(printf, 3, 4)));

/* ---- numbers: 1 parsed (p advanced), 0 no digits, -1 over 64 bits ----- */

static inline int cm_hexval(unsigned char c)
{
    if ((unsigned)(c - '0') < 10u) return c - '0';
    c |= 0x20;
    if ((unsigned)(c - 'a') < 6u) return c - 'a' + 10;
    return -1;
}

static inline int cm_parse_hex(const char **pp, const char *end, uint64_t *v)
{
    const char *p = *pp;
    uint64_t x = 0;
    int d;
    if (p == end || (d = cm_hexval((unsigned char)*p)) < 0) return 0;
    do {
        if (x >> 60) return -1;
        x = x << 4 | (uint64_t)d;
    } while (++p != end && (d = cm_hexval((unsigned char)*p)) >= 0);
    *pp = p;
    *v = x;
    return 1;
}

static inline int cm_parse_dec(const char **pp, const char *end, uint64_t *v)
{
    const char *p = *pp;
    uint64_t x = 0;
    if (p == end || (unsigned char)(*p - '0') > 9) return 0;
    do {
        unsigned d = (unsigned)(*p - '0');
        if (x > (UINT64_MAX - d) / 10) return -1;
        x = x * 10 + d;
    } while (++p != end && (unsigned char)(*p - '0') <= 9);
    *pp = p;
    *v = x;
    return 1;
}

/* ---- formats ---------------------------------------------------------- */

typedef struct cm_trace_ops {
    /* Takes `in` (NULL when only csv by path needs none) whatever happens. */
    cm_status (*open)(const char *path, cm_tlines *in,
                      const cm_trace_opts *o, void **st, cm_err *err);
    int (*next)(void *st, cm_access *a, cm_err *err);
    uint64_t (*bytes_read)(const void *st);
    void (*close)(void *st);
} cm_trace_ops;

extern const cm_trace_ops cm_trace_lackey_ops, cm_trace_din_ops,
    cm_trace_csv_ops, cm_trace_accel_ops;

/* For line formats whose state is just their cm_tlines. */
cm_status cm_trace_lines_open(const char *path, cm_tlines *in,
                              const cm_trace_opts *o, void **st, cm_err *err);
uint64_t cm_trace_lines_bytes(const void *st);
void cm_trace_lines_close(void *st);

#endif
