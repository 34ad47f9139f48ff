/* table_write.c - writing CSV: the one number format (cm_fmt_double,
 * cm_fmt_optional) and the streaming writer (see table.h).  Split from table.c, which reads
 * and holds tables; cm_table_write_file there writes through this. */
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/atomic.h"
#include "data/table.h"

static int is_blank(unsigned char c) { return c == ' ' || c == '\t'; }

void cm_fmt_optional(char buf[32], double v)
{
    if (isnan(v)) buf[0] = '\0';
    else cm_fmt_double(buf, v);
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
        /* The shortest precision that round-trips, by bisection: if p
         * digits read back as v, so do p + 1 (the nearest (p+1)-digit
         * decimal is no farther from v than the p-digit one with a 0
         * appended), and 17 always do.  Four or five tries instead of up
         * to 17, the same bytes. */
        char best[32], tmp[32];
        snprintf(best, sizeof best, "%.17g", v);
        int lo = 1, hi = 17;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (snprintf(tmp, sizeof tmp, "%.*g", mid, v) < (int)sizeof tmp &&
                strtod(tmp, NULL) == v) {
                hi = mid;
                memcpy(best, tmp, sizeof best);
            } else {
                lo = mid + 1;
            }
        }
        memcpy(buf, best, sizeof best);
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
