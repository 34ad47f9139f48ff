/* figcheck.c - the rules every figure keeps (figcheck.h). */
#include "tests/figcheck.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/metrics.h"
#include "data/params.h"

static char *dup_str(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s ? s : "", n);
    return d;
}

/* Strings of a record are copied into one pool each; this keeps them. */
typedef struct strpool {
    char **s;
    size_t n, cap;
} strpool;

static const char *keep(strpool *p, const char *s)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->s = realloc(p->s, p->cap * sizeof *p->s);
    }
    return p->s[p->n++] = dup_str(s);
}

fc_record *fc_copy(const cm_plot_record *r)
{
    fc_record *c = calloc(1, sizeof *c);
    strpool *pool = calloc(1, sizeof *pool);
    c->mem[0] = pool;
    c->rec = *r;
    c->rec.path = keep(pool, r->path);
    c->rec.title = keep(pool, r->title);
    cm_plot_series_rec *sr = calloc(r->nseries + 1, sizeof *sr);
    for (size_t i = 0; i < r->nseries; i++) {
        sr[i] = r->series[i];
        sr[i].label = keep(pool, r->series[i].label);
    }
    cm_plot_axis_rec *ax = calloc(r->naxes + 1, sizeof *ax);
    size_t nt = 0;
    for (size_t i = 0; i < r->naxes; i++) nt += r->axes[i].nticks;
    const char **ticks = calloc(nt + 1, sizeof *ticks);
    for (size_t i = 0, k = 0; i < r->naxes; i++) {
        ax[i] = r->axes[i];
        ax[i].label = keep(pool, r->axes[i].label);
        ax[i].ticks = ticks + k;
        for (size_t j = 0; j < r->axes[i].nticks; j++)
            ticks[k++] = keep(pool, r->axes[i].ticks[j]);
    }
    cm_plot_box *leg = calloc(r->nlegends + 1, sizeof *leg);
    memcpy(leg, r->legends, r->nlegends * sizeof *leg);
    cm_plot_box *areas = calloc(r->npanels + 1, sizeof *areas);
    memcpy(areas, r->plot_areas, r->npanels * sizeof *areas);
    cm_plot_mark *marks = calloc(r->nmarks + 1, sizeof *marks);
    memcpy(marks, r->marks, r->nmarks * sizeof *marks);
    c->rec.series = sr;
    c->rec.axes = ax;
    c->rec.legends = leg;
    c->rec.plot_areas = areas;
    c->rec.marks = marks;
    c->mem[1] = sr;
    c->mem[2] = ax;
    c->mem[3] = ticks;
    c->mem[4] = leg;
    c->mem[5] = areas;
    c->mem[6] = marks;
    return c;
}

void fc_free(fc_record *r)
{
    if (!r) return;
    strpool *pool = r->mem[0];
    for (size_t i = 0; pool && i < pool->n; i++) free(pool->s[i]);
    if (pool) free(pool->s);
    for (int i = 0; i < 8; i++) free(r->mem[i]);
    free(r);
}

static int fail(char *msg, size_t len, const cm_plot_record *r,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(char *msg, size_t len, const cm_plot_record *r,
                const char *fmt, ...)
{
    int n = snprintf(msg, len, "%s: ", r->path);
    if (n < 0 || (size_t)n >= len) return 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + n, len - (size_t)n, fmt, ap);
    va_end(ap);
    return 0;
}

/* A registry name (a parameter's, or a statistic's or result column's
 * with a '.' or '_': plain words such as "size" are English too) inside
 * text, or NULL. */
static const char *raw_name(const char *text)
{
    for (size_t i = 0; i < cm_param_count(); i++) {
        const char *n = cm_param_at(i)->name;
        if (strstr(text, n)) return n;
    }
    for (size_t i = 0; i < cm_metric_count(); i++) {
        const char *n = cm_metric_at(i)->name;
        if (strchr(n, '<') || !strpbrk(n, "._")) continue;
        if (strstr(text, n)) return n;
    }
    return NULL;
}

/* "label (unit)": text before, a non-empty unit inside the last
 * parentheses, nothing after. */
static int has_unit(const char *label)
{
    size_t n = strlen(label);
    if (n < 4 || label[n - 1] != ')') return 0;
    const char *open = strrchr(label, '(');
    return open && open > label + 1 && open[-1] == ' ' &&
           (size_t)(label + n - 1 - open) > 1;
}

static int plain_number(const char *s)
{
    char *end;
    strtod(s, &end);
    return *s && *end == '\0';
}

int fc_check(const cm_plot_record *r, char *msg, size_t len)
{
    const cm_plot_series_rec *s = r->series;
    for (size_t i = 0; i < r->nseries; i++) {
        if (s[i].colour != CM_PLOT_REF_COLOUR &&
            (s[i].colour < 0 || s[i].colour >= CM_PLOT_COLOURS))
            return fail(msg, len, r, "series %zu has colour %d", i,
                        s[i].colour);
        for (size_t j = 0; j < i; j++) {
            int same_entry = s[i].panel == s[j].panel &&
                             s[i].entry == s[j].entry;
            if (same_entry) continue;
            if (s[i].colour == s[j].colour && s[i].marker == s[j].marker &&
                strcmp(s[i].label, s[j].label))
                return fail(msg, len, r,
                            "'%s' and '%s' share colour %d and marker %d",
                            s[j].label, s[i].label, s[i].colour,
                            s[i].marker);
            if (s[i].panel == s[j].panel && s[i].colour >= 0 &&
                s[i].colour == s[j].colour)
                return fail(msg, len, r,
                            "'%s' and '%s' share colour %d in panel %zu",
                            s[j].label, s[i].label, s[i].colour,
                            s[i].panel + 1);
        }
        const char *raw = raw_name(s[i].label);
        if (raw)
            return fail(msg, len, r, "legend entry '%s' names '%s' raw",
                        s[i].label, raw);
    }
    if (raw_name(r->title))
        return fail(msg, len, r, "title '%s' names '%s' raw", r->title,
                    raw_name(r->title));
    for (size_t a = 0; a < r->naxes; a++) {
        const cm_plot_axis_rec *ax = &r->axes[a];
        if (!ax->label[0])
            return fail(msg, len, r, "panel %zu: no %c label", ax->panel + 1,
                        ax->axis);
        if (raw_name(ax->label))
            return fail(msg, len, r, "%c label '%s' names '%s' raw",
                        ax->axis, ax->label, raw_name(ax->label));
        if (ax->categorical) {
            if (ax->nticks == 0)
                return fail(msg, len, r, "categorical %c axis without its "
                            "categories", ax->axis);
            for (size_t i = 0; i < r->nseries; i++)
                if (s[i].panel == ax->panel && s[i].line &&
                    s[i].colour != CM_PLOT_REF_COLOUR)
                    return fail(msg, len, r,
                                "'%s': a line joins categories", s[i].label);
            continue;
        }
        if (!has_unit(ax->label))
            return fail(msg, len, r, "%c label '%s' has no unit", ax->axis,
                        ax->label);
        if (!ax->log && ax->nticks == 0)
            return fail(msg, len, r, "linear %c axis '%s' without tick "
                        "labels", ax->axis, ax->label);
        for (size_t t = 0; t < ax->nticks; t++)
            if (!plain_number(ax->ticks[t]))
                return fail(msg, len, r, "%c tick '%s' is not a plain "
                            "number", ax->axis, ax->ticks[t]);
    }
    for (size_t l = 0; l < r->nlegends; l++) {
        const cm_plot_box *b = &r->legends[l];
        if (b->x0 < 0 || b->y0 < 0 || b->x1 > 1 || b->y1 > 1 ||
            b->x1 <= b->x0 || b->y1 <= b->y0)
            return fail(msg, len, r,
                        "legend %zu at (%.3f,%.3f)-(%.3f,%.3f) is not on "
                        "the page", l + 1, b->x0, b->y0, b->x1, b->y1);
        for (size_t m = 0; m < r->nmarks; m++) {
            const cm_plot_mark *mk = &r->marks[m];
            int hit = mk->kind == CM_MARK_SEGMENT
                          ? cm_plot_segment_crosses(&mk->box, b)
                          : cm_plot_box_overlap(&mk->box, b);
            if (hit)
                return fail(msg, len, r,
                            "legend %zu (%.3f,%.3f)-(%.3f,%.3f) covers a "
                            "mark of '%s' at (%.3f,%.3f)-(%.3f,%.3f)",
                            l + 1, b->x0, b->y0, b->x1, b->y1,
                            r->series[mk->series].label, mk->box.x0,
                            mk->box.y0, mk->box.x1, mk->box.y1);
        }
    }
    /* a point count ("x3") inside its frame, clear of the other counts
     * and of every marker */
    for (size_t m = 0; m < r->nmarks; m++) {
        const cm_plot_mark *c = &r->marks[m];
        if (c->kind != CM_MARK_COUNT) continue;
        const cm_plot_box *a = &r->plot_areas[s[c->series].panel];
        const double eps = 1e-9;
        if (c->box.x0 < a->x0 - eps || c->box.x1 > a->x1 + eps ||
            c->box.y0 < a->y0 - eps || c->box.y1 > a->y1 + eps)
            return fail(msg, len, r, "the count x%d of '%s' at "
                        "(%.3f,%.3f)-(%.3f,%.3f) leaves its frame",
                        c->count, s[c->series].label, c->box.x0, c->box.y0,
                        c->box.x1, c->box.y1);
        for (size_t o = 0; o < r->nmarks; o++) {
            const cm_plot_mark *d = &r->marks[o];
            if (o == m || (d->kind != CM_MARK_COUNT &&
                           d->kind != CM_MARK_MARKER))
                continue;
            if (cm_plot_box_overlap(&c->box, &d->box))
                return fail(msg, len, r, "the count x%d of '%s' covers a "
                            "%s of '%s'", c->count, s[c->series].label,
                            d->kind == CM_MARK_COUNT ? "count" : "marker",
                            s[d->series].label);
        }
    }
    return 1;
}

long fc_series(const cm_plot_record *r, const char *label)
{
    for (size_t i = 0; i < r->nseries; i++)
        if (!strcmp(r->series[i].label, label)) return (long)i;
    return -1;
}

const cm_plot_record *fc_find(fc_record *const *recs, size_t n,
                              const char *tail)
{
    size_t k = strlen(tail);
    for (size_t i = 0; i < n; i++) {
        size_t m = strlen(recs[i]->rec.path);
        if (m >= k && !strcmp(recs[i]->rec.path + m - k, tail))
            return &recs[i]->rec;
    }
    return NULL;
}
