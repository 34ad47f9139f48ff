/* metrics.c - the statistics registry (metrics.h): the table of
 * data/metrics.def, and which entry an output row comes from. */
#include "data/metrics.h"

#include <string.h>

static const cm_metric metrics[] = {
#define CM_METRIC(name, kind, unit, label, help)                               \
    {name, CM_METRIC_##kind, unit, label, help},
#include "data/metrics.def"
#undef CM_METRIC
};

#define NMETRICS (sizeof metrics / sizeof *metrics)

size_t cm_metric_count(void)
{
    return NMETRICS;
}

const cm_metric *cm_metric_at(size_t i)
{
    return i < NMETRICS ? &metrics[i] : NULL;
}

const char *cm_metric_kind_name(cm_metric_kind k)
{
    static const char *const names[] = {"counter", "ratio",   "level",
                                        "occupancy", "full", "latency",
                                        "result"};
    return (size_t)k < sizeof names / sizeof *names ? names[k] : "?";
}

/* s[0..n) is one segment of a name: [a-z0-9_]+. */
static int is_segment(const char *s, size_t n)
{
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '_'))
            return 0;
    return 1;
}

/* Whether s[0..n) is the name pattern p (a <x> segment matches any one). */
static int name_matches(const char *p, const char *s, size_t n)
{
    const char *end = s + n;
    while (*p) {
        if (*p == '<') {
            const char *close = strchr(p, '>');
            const char *dot = memchr(s, '.', (size_t)(end - s));
            size_t seg = (size_t)((dot ? dot : end) - s);
            if (!close || !is_segment(s, seg)) return 0;
            p = close + 1;
            s += seg;
            continue;
        }
        if (s == end || *p != *s) return 0;
        p++;
        s++;
    }
    return s == end;
}

/* s is a bin edge as the registry prints it (cm_fmt_double). */
static int is_number(const char *s, size_t n)
{
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789.e+-", s[i])) return 0;
    return 1;
}

/* row = base + suffix for one of the fixed suffixes: base's length. */
static int strip(const char *row, const char *const *sfx, size_t nsfx,
                 size_t *base)
{
    size_t n = strlen(row);
    for (size_t i = 0; i < nsfx; i++) {
        size_t k = strlen(sfx[i]);
        if (n > k && !strcmp(row + n - k, sfx[i])) {
            *base = n - k;
            return 1;
        }
    }
    return 0;
}

/* row = base + ".<tag><tail>", the tail accepted by ok: base's length. */
static int strip_bin(const char *row, const char *tag,
                     int (*ok)(const char *, size_t), size_t *base)
{
    const char *at = strstr(row, tag);
    const char *next;
    while (at && (next = strstr(at + 1, tag))) at = next; /* the last */
    if (!at || at == row) return 0;
    const char *tail = at + strlen(tag);
    if (!ok(tail, strlen(tail))) return 0;
    *base = (size_t)(at - row);
    return 1;
}

static int level_tail(const char *s, size_t n)
{
    static const char more[] = "_or_more";
    size_t k = sizeof more - 1;
    if (n > k && !strcmp(s + n - k, more)) n -= k;
    return is_number(s, n) && !memchr(s, '.', n);
}

static int bin_tail(const char *s, size_t n)
{
    const char *us = memchr(s, '_', n);
    return us && is_number(s, (size_t)(us - s)) &&
           is_number(us + 1, n - (size_t)(us - s) - 1);
}

static int from_tail(const char *s, size_t n)
{
    return is_number(s, n);
}

/* Whether row is one of the rows entry m gives. */
static int row_of(const cm_metric *m, const char *row)
{
    static const char *const mean[] = {"_mean"};
    static const char *const lat[] = {"_count", "_mean", "_stddev", "_min",
                                      "_max"};
    size_t b;
    switch (m->kind) {
    case CM_METRIC_COUNTER:
    case CM_METRIC_RATIO:
    case CM_METRIC_FULL:
    case CM_METRIC_RESULT:
        return name_matches(m->name, row, strlen(row));
    case CM_METRIC_LEVEL:
        return strip(row, mean, 1, &b) && name_matches(m->name, row, b);
    case CM_METRIC_OCCUPANCY:
        return (strip(row, mean, 1, &b) && name_matches(m->name, row, b)) ||
               (strip_bin(row, ".frac_at_", level_tail, &b) &&
                name_matches(m->name, row, b));
    case CM_METRIC_LATENCY:
        return (strip(row, lat, 5, &b) && name_matches(m->name, row, b)) ||
               (strip_bin(row, ".frac_in_", bin_tail, &b) &&
                name_matches(m->name, row, b)) ||
               (strip_bin(row, ".frac_from_", from_tail, &b) &&
                name_matches(m->name, row, b));
    }
    return 0;
}

const cm_metric *cm_metric_find(const char *name, cm_metric_kind kind)
{
    for (size_t i = 0; i < NMETRICS; i++)
        if (metrics[i].kind == kind &&
            name_matches(metrics[i].name, name, strlen(name)))
            return &metrics[i];
    return NULL;
}

const cm_metric *cm_metric_of_row(const char *row)
{
    for (size_t i = 0; i < NMETRICS; i++)
        if (row_of(&metrics[i], row)) return &metrics[i];
    return NULL;
}

cm_status cm_metric_table(cm_table **out, cm_err *err)
{
    static const char *const cols[] = {"metric", "kind", "unit", "label",
                                       "meaning"};
    cm_table *t = cm_table_new(5, cols);
    if (!t) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t i = 0; i < NMETRICS; i++) {
        const cm_metric *m = &metrics[i];
        if (m->kind == CM_METRIC_RESULT) continue; /* not the simulator's */
        const char *cells[5] = {m->name, cm_metric_kind_name(m->kind),
                                m->unit, m->label, m->help};
        cm_status st = cm_table_append(t, cells, err);
        if (st) {
            cm_table_free(t);
            return st;
        }
    }
    *out = t;
    return CM_OK;
}
