/* trace_lines.c - the bounded line reader under the trace formats (see
 * trace_impl.h).
 *
 * Lines are found with memchr in a fixed buffer and handed out in place, so
 * reading costs one copy from the kernel and no allocation per line.  NUL
 * bytes are looked for once per buffer fill, not per line: the first one's
 * offset is remembered and the line that holds it is refused. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "data/trace_impl.h"

cm_status cm_tlines_open(const char *path, cm_tlines **out, cm_err *err)
{
    *out = NULL;
    int is_stdin = !path || !strcmp(path, "-");
    cm_tlines *l = calloc(1, sizeof *l);
    if (l) {
        l->name = strdup(is_stdin ? "<stdin>" : path);
        l->buf = malloc(CM_TRACE_BUF + 1);
    }
    if (!l || !l->name || !l->buf) {
        cm_tlines_close(l);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    l->f = is_stdin ? stdin : fopen(path, "rb");
    if (!l->f) {
        cm_status st = cm_err_set(err, CM_EINPUT, "%s: cannot open: %s", path,
                                  strerror(errno));
        cm_tlines_close(l);
        return st;
    }
    l->nul_at = UINT64_MAX;
    *out = l;
    return CM_OK;
}

void cm_tlines_close(cm_tlines *l)
{
    if (!l) return;
    if (l->f && l->f != stdin) fclose(l->f);
    free(l->name);
    free(l->buf);
    free(l);
}

cm_status cm_tlines_fail(const cm_tlines *l, cm_err *err, const char *fmt,
                         ...)
{
    if (err) {
        int n = snprintf(err->msg, sizeof err->msg, "%s:%lu: ", l->name,
                         l->line);
        if (n >= 0 && (size_t)n < sizeof err->msg) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
            va_end(ap);
        }
        err->code = CM_EINPUT;
    }
    return CM_EINPUT;
}

/* Moves the unread bytes to the front and reads after them: -1 on error. */
static int fill(cm_tlines *l, cm_err *err)
{
    if (l->eof) return 0;
    if (l->pos) {
        memmove(l->buf, l->buf + l->pos, l->end - l->pos);
        l->base += l->pos;
        l->end -= l->pos;
        l->pos = 0;
    }
    size_t want = CM_TRACE_BUF - l->end;
    errno = 0;
    size_t got = fread(l->buf + l->end, 1, want, l->f);
    if (got < want) {
        if (ferror(l->f)) {
            cm_err_set(err, CM_EINPUT, "%s: cannot read: %s", l->name,
                       strerror(errno ? errno : EIO));
            return -1;
        }
        l->eof = 1;
    }
    if (l->nul_at == UINT64_MAX) {
        const char *z = memchr(l->buf + l->end, 0, got);
        if (z) l->nul_at = l->base + (uint64_t)(z - l->buf);
    }
    l->end += got;
    return 0;
}

int cm_tlines_next(cm_tlines *l, char **s, size_t *n, cm_err *err)
{
    char *p, *nl;
    size_t len, avail;
    for (;;) {
        p = l->buf + l->pos;
        avail = l->end - l->pos;
        nl = memchr(p, '\n',
                    avail > CM_TRACE_LINE_MAX ? CM_TRACE_LINE_MAX + 1 : avail);
        if (nl) {
            len = (size_t)(nl - p);
            l->pos += len + 1;
            break;
        }
        if (avail > CM_TRACE_LINE_MAX) {
            l->line++;
            cm_tlines_fail(l, err, "line longer than %zu bytes",
                           CM_TRACE_LINE_MAX);
            return -1;
        }
        if (l->eof) {
            if (avail == 0) return 0;
            len = avail; /* a last line without its newline */
            l->pos = l->end;
            break;
        }
        if (fill(l, err)) return -1;
    }
    l->line++;
    uint64_t at = l->base + (uint64_t)(p - l->buf);
    if (l->nul_at >= at && l->nul_at - at < len) {
        cm_tlines_fail(l, err, "NUL byte: not a text file");
        return -1;
    }
    if (len && p[len - 1] == '\r') len--;
    p[len] = '\0';
    *s = p;
    *n = len;
    return 1;
}

cm_status cm_tlines_peek(cm_tlines *l, const char **p, size_t *n,
                         cm_err *err)
{
    while (!l->eof && l->end < CM_TRACE_BUF)
        if (fill(l, err)) return CM_EINPUT;
    *p = l->buf + l->pos;
    *n = l->end - l->pos;
    return CM_OK;
}

long cm_tlines_read_raw(void *ctx, char *buf, size_t cap)
{
    cm_tlines *l = ctx;
    if (l->pos < l->end) {
        size_t k = l->end - l->pos < cap ? l->end - l->pos : cap;
        memcpy(buf, l->buf + l->pos, k);
        l->pos += k;
        return (long)k;
    }
    if (l->eof) return 0;
    size_t got = fread(buf, 1, cap, l->f);
    return got == 0 && ferror(l->f) ? -1 : (long)got;
}

/* ---- line formats whose whole state is the reader --------------------- */

cm_status cm_trace_lines_open(const char *path, cm_tlines *in,
                              const cm_trace_opts *o, void **st, cm_err *err)
{
    (void)path;
    (void)o;
    (void)err;
    *st = in;
    return CM_OK;
}

uint64_t cm_trace_lines_bytes(const void *st)
{
    return cm_tlines_consumed(st);
}

void cm_trace_lines_close(void *st) { cm_tlines_close(st); }
