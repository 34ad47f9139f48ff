/* plot_table.c - `cohmod plot`'s figures: columns of a table drawn
 * through the plotting layer (plot.h), with labels and units from the
 * registries (data/columns.h).  A --by column with more distinct values
 * than the palette has colours is split into panels of at most
 * CM_PLOT_COLOURS series each, never drawn with a colour twice. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "data/columns.h"
#include "plots/plot.h"

#define MAX_SERIES 64 /* beyond this a figure is unreadable */
#define MAX_LABEL 200
#define MAX_PANELS 8

void cm_plot_axis_label(const char *column, char *buf, size_t len)
{
    cm_column_axis(column, buf, len);
}

/* Empty cells and the words cohmod writes for non-finite numbers ("nan",
 * "inf", "-inf") are missing points; anything else must be a number. */
static int is_missing(const char *s)
{
    static const char *const words[] = {"nan", "+nan", "-nan", "inf", "+inf",
                                        "-inf", "infinity", "+infinity",
                                        "-infinity"};
    char w[16];
    size_t n = 0;
    while (*s == ' ' || *s == '\t') s++;
    while (*s && *s != ' ' && *s != '\t' && n + 1 < sizeof w) w[n++] = *s++;
    while (*s == ' ' || *s == '\t') s++;
    if (*s) return 0;
    w[n] = '\0';
    if (n == 0) return 1;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcasecmp(w, words[i]) == 0) return 1;
    return 0;
}

/* A whole column as numbers; on a log axis a non-positive cell is an error
 * at its position. */
static cm_status read_column(const cm_table *t, size_t col, int logscale,
                             double **out, cm_err *err)
{
    size_t n = cm_table_nrows(t);
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t r = 0; r < n; r++) {
        const char *cell = cm_table_cell(t, r, col);
        if (is_missing(cell)) {
            v[r] = NAN;
            continue;
        }
        cm_status st = cm_table_get_double(t, r, col, &v[r], err);
        if (!st && logscale && v[r] <= 0) {
            unsigned long line, c;
            cm_table_cell_pos(t, r, col, &line, &c);
            st = cm_err_at(err, CM_EINPUT, cm_table_name(t), line, c,
                           "column '%s': a log axis needs positive values, "
                           "got '%s'",
                           cm_table_colname(t, col), cell);
        }
        if (st) {
            free(v);
            return st;
        }
    }
    *out = v;
    return CM_OK;
}

/* Everything cm_plot_table allocates, freed in one place. */
typedef struct table_plot {
    double *x, **y, *lo, *hi; /* columns */
    double **err;             /* per y column: its held-out error, or NULL */
    int *rel;                 /* the error is relative */
    size_t *group;            /* group of each row */
    size_t ngroups;
    size_t first[MAX_SERIES]; /* first row of each group */
    cm_plot_series *series;
    double *arena; /* the series' gathered points */
    char (*labels)[2 * MAX_LABEL];
    size_t ny;
} table_plot;

static void table_plot_free(table_plot *tp)
{
    free(tp->x);
    if (tp->y)
        for (size_t k = 0; k < tp->ny; k++) free(tp->y[k]);
    free(tp->y);
    if (tp->err)
        for (size_t k = 0; k < tp->ny; k++) free(tp->err[k]);
    free(tp->err);
    free(tp->rel);
    free(tp->lo);
    free(tp->hi);
    free(tp->group);
    free(tp->series);
    free(tp->arena);
    free(tp->labels);
}

/* One group per distinct text of the --by column, in order of first
 * appearance; without --by, one group of every row. */
static cm_status group_rows(const cm_table *t, const char *by, long bycol,
                            size_t nmax, table_plot *tp, cm_err *err)
{
    size_t n = cm_table_nrows(t);
    tp->group = malloc((n ? n : 1) * sizeof *tp->group);
    if (!tp->group) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    tp->ngroups = 0;
    for (size_t r = 0; r < n; r++) {
        size_t g = 0;
        if (bycol >= 0) {
            const char *v = cm_table_cell(t, r, (size_t)bycol);
            while (g < tp->ngroups &&
                   strcmp(cm_table_cell(t, tp->first[g], (size_t)bycol), v))
                g++;
        }
        if (g == tp->ngroups) {
            if (tp->ngroups == nmax) {
                unsigned long line, c;
                cm_table_cell_pos(t, r, (size_t)bycol, &line, &c);
                return cm_err_at(err, CM_EINPUT, cm_table_name(t), line, c,
                                 "column '%s' has more than %zu distinct "
                                 "values; a figure takes at most %zu groups "
                                 "(%d panels of at most %d series)",
                                 by, nmax, nmax, MAX_PANELS,
                                 CM_PLOT_COLOURS);
            }
            tp->first[tp->ngroups++] = r;
        }
        tp->group[r] = g;
    }
    if (tp->ngroups == 0) tp->ngroups = 1; /* empty table: one empty series */
    return CM_OK;
}

/* The y axis label: one column's "name (unit)"; for several columns their
 * shared unit, else their labels joined. */
static void y_axis_label(const cm_plot_table_opts *o, char *buf, size_t len)
{
    if (o->ny == 1) {
        cm_plot_axis_label(o->y[0], buf, len);
        return;
    }
    const char *unit = cm_column_unit(o->y[0]);
    for (size_t k = 1; k < o->ny && unit; k++) {
        const char *u = cm_column_unit(o->y[k]);
        if (!u || strcmp(u, unit) != 0) unit = NULL;
    }
    if (unit) {
        /* "L1 MSHR occupancy, miss latency (cycles)" */
        size_t n = 0;
        buf[0] = '\0';
        for (size_t k = 0; k < o->ny && n + 1 < len; k++) {
            const char *l = cm_column_label(o->y[k]);
            int w = snprintf(buf + n, len - n, "%s%s", k ? ", " : "",
                             l ? l : o->y[k]);
            if (w < 0) break;
            n += (size_t)w < len - n ? (size_t)w : len - n - 1;
        }
        if (n + 1 < len) snprintf(buf + n, len - n, " (%s)", unit);
        return;
    }
    size_t n = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < o->ny && n + 1 < len; k++) {
        char one[256];
        cm_plot_axis_label(o->y[k], one, sizeof one);
        int w = snprintf(buf + n, len - n, "%s%s", k ? ", " : "", one);
        if (w < 0) break;
        n += (size_t)w < len - n ? (size_t)w : len - n - 1;
    }
}

static cm_status check_table_opts(const cm_plot_table_opts *o, cm_err *err)
{
    if (!o->x || !o->x[0])
        return cm_err_set(err, CM_EINPUT, "no x column given");
    if (o->ny == 0 || !o->y)
        return cm_err_set(err, CM_EINPUT, "no y column given");
    if (!o->errlo != !o->errhi)
        return cm_err_set(err, CM_EINPUT,
                          "error bars need both a low and a high column");
    if (o->errlo && o->ny != 1)
        return cm_err_set(err, CM_EINPUT,
                          "error bars need exactly one y column, got %zu",
                          o->ny);
    if (o->ny > CM_PLOT_COLOURS)
        return cm_err_set(err, CM_EINPUT,
                          "%zu y columns; a figure takes at most %d, one "
                          "colour each", o->ny, CM_PLOT_COLOURS);
    return CM_OK;
}

static cm_status read_columns(const cm_table *t, const cm_plot_table_opts *o,
                              long *bycol, table_plot *tp, cm_err *err)
{
    size_t c;
    cm_status st;
    if ((st = cm_table_col_require(t, o->x, &c, err)) ||
        (st = read_column(t, c, o->logx, &tp->x, err)))
        return st;
    tp->y = calloc(o->ny, sizeof *tp->y);
    tp->err = calloc(o->ny, sizeof *tp->err);
    tp->rel = calloc(o->ny, sizeof *tp->rel);
    if (!tp->y || !tp->err || !tp->rel)
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    tp->ny = o->ny;
    for (size_t k = 0; k < o->ny; k++) {
        if ((st = cm_table_col_require(t, o->y[k], &c, err)) ||
            (st = read_column(t, c, o->logy, &tp->y[k], err)))
            return st;
        /* the model's held-out error beside it (data/validity.h) */
        for (int rel = 0; rel < 2 && !o->no_band && !tp->err[k]; rel++) {
            char name[256];
            snprintf(name, sizeof name, "%s_%s", o->y[k],
                     rel ? "rel_err" : "abs_err");
            long ec = cm_table_col_find(t, name);
            tp->rel[k] = rel;
            if (ec >= 0 &&
                (st = read_column(t, (size_t)ec, 0, &tp->err[k], err)))
                return st;
            /* no row inside a validated region: nothing to shade */
            size_t r = 0, n = cm_table_nrows(t);
            while (tp->err[k] && r < n && !isfinite(tp->err[k][r])) r++;
            if (tp->err[k] && r == n) {
                free(tp->err[k]);
                tp->err[k] = NULL;
            }
        }
    }
    if (o->errlo &&
        ((st = cm_table_col_require(t, o->errlo, &c, err)) ||
         (st = read_column(t, c, o->logy, &tp->lo, err)) ||
         (st = cm_table_col_require(t, o->errhi, &c, err)) ||
         (st = read_column(t, c, o->logy, &tp->hi, err))))
        return st;
    *bycol = -1;
    if (o->by) {
        if ((st = cm_table_col_require(t, o->by, &c, err))) return st;
        *bycol = (long)c;
    }
    return CM_OK;
}

/* Gathers the rows of group g into series s, for y column k; mem has room
 * for 6 arrays of the group's size.  A held-out error gives the series a
 * band: y +- err, or y (1 +- err) for a relative one. */
static void gather(const table_plot *tp, size_t nrows, size_t g, size_t k,
                   size_t size, double *mem, cm_plot_series *s)
{
    size_t m = 0;
    double *x = mem, *y = mem + size, *lo = mem + 2 * size,
           *hi = mem + 3 * size, *blo = mem + 4 * size, *bhi = mem + 5 * size;
    const double *e = tp->err[k];
    for (size_t r = 0; r < nrows; r++) {
        if (tp->group[r] != g) continue;
        x[m] = tp->x[r];
        y[m] = tp->y[k][r];
        if (tp->lo) {
            lo[m] = tp->lo[r];
            hi[m] = tp->hi[r];
        }
        if (e) {
            double half = tp->rel[k] ? fabs(e[r]) * fabs(y[m]) : fabs(e[r]);
            blo[m] = y[m] - half;
            bhi[m] = y[m] + half;
        }
        m++;
    }
    s->x = x;
    s->y = y;
    s->ylo = tp->lo ? lo : NULL;
    s->yhi = tp->lo ? hi : NULL;
    s->band_lo = e ? blo : NULL;
    s->band_hi = e ? bhi : NULL;
    s->n = m;
}

cm_status cm_plot_table(const cm_table *t, const cm_plot_table_opts *o,
                        const char *path, cm_err *err)
{
    cm_status st = check_table_opts(o, err);
    if (st) return st;
    if ((st = cm_plot_check_path(path, err))) return st;
    table_plot tp;
    memset(&tp, 0, sizeof tp);
    long bycol = -1;
    if ((st = read_columns(t, o, &bycol, &tp, err)) ||
        (st = group_rows(t, o->by, bycol,
                         o->ny > 1 ? MAX_PANELS
                                   : MAX_PANELS * CM_PLOT_COLOURS,
                         &tp, err))) {
        table_plot_free(&tp);
        return st;
    }
    size_t nrows = cm_table_nrows(t), ns = tp.ngroups * o->ny;
    size_t size[MAX_SERIES] = {0}, used = 0;
    for (size_t r = 0; r < nrows; r++) size[tp.group[r]]++;
    tp.series = calloc(ns, sizeof *tp.series);
    tp.arena = malloc((6 * nrows * o->ny + 1) * sizeof *tp.arena);
    tp.labels = calloc(ns, sizeof *tp.labels);
    if (!tp.series || !tp.arena || !tp.labels) {
        table_plot_free(&tp);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    /* One y column: a series per group, split into panels past the
     * palette.  Several: a panel per group (its value the panel's title),
     * a series per column, so a column keeps its colour and marker in
     * every panel. */
    int panel_per_group = o->ny > 1 && bycol >= 0 && nrows > 0;
    char (*ptitles)[2 * MAX_LABEL + 8] = calloc(MAX_PANELS, sizeof *ptitles);
    if (!ptitles) {
        table_plot_free(&tp);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    cm_plot_panel panels[MAX_PANELS];
    memset(panels, 0, sizeof panels);
    size_t npanels = panel_per_group ? tp.ngroups
                                     : (ns + CM_PLOT_COLOURS - 1) /
                                           CM_PLOT_COLOURS;
    for (size_t g = 0; g < tp.ngroups; g++)
        for (size_t k = 0; k < o->ny; k++) {
            size_t i = g * o->ny + k;
            gather(&tp, nrows, g, k, size[g], tp.arena + used,
                   &tp.series[i]);
            used += 6 * size[g];
            char *lb = tp.labels[i];
            size_t lbn = sizeof tp.labels[i];
            char by[MAX_LABEL] = "";
            const char *yl = cm_column_label(o->y[k]);
            if (bycol >= 0 && nrows > 0)
                cm_column_value(o->by,
                                cm_table_cell(t, tp.first[g], (size_t)bycol),
                                by, sizeof by);
            if (panel_per_group) {
                snprintf(lb, lbn, "%s", yl ? yl : o->y[k]);
                tp.series[i].panel = g;
                const char *bl = cm_column_label(o->by);
                snprintf(ptitles[g], sizeof ptitles[g], "%.*s: %s", MAX_LABEL,
                         bl ? bl : o->by, by);
                panels[g].title = ptitles[g];
            } else {
                snprintf(lb, lbn, "%s", bycol >= 0 ? by
                                        : o->ny > 1 ? (yl ? yl : o->y[k])
                                                    : "");
                tp.series[i].panel = i / CM_PLOT_COLOURS;
            }
            if (tp.err[k]) { /* the shade says what it is */
                if (!lb[0]) snprintf(lb, lbn, "%s", yl ? yl : o->y[k]);
                size_t len = strlen(lb);
                if (len < lbn)
                    snprintf(lb + len, lbn - len, " (shade: held-out error)");
            }
            tp.series[i].label = lb[0] ? lb : NULL;
        }
    char xl[256], yl[512];
    if (o->xlabel)
        snprintf(xl, sizeof xl, "%s", o->xlabel);
    else
        cm_plot_axis_label(o->x, xl, sizeof xl);
    if (o->ylabel)
        snprintf(yl, sizeof yl, "%s", o->ylabel);
    else
        y_axis_label(o, yl, sizeof yl);
    cm_plot_spec spec = {.title = o->title, .xlabel = xl, .ylabel = yl,
                         .logx = o->logx, .logy = o->logy, .style = o->style,
                         .series = tp.series, .nseries = ns};
    const char *bylabel = o->by ? cm_column_label(o->by) : NULL;
    if (o->by && !panel_per_group)
        spec.legend_title = bylabel ? bylabel : o->by;
    if (npanels > 1) {
        spec.panels = panels;
        spec.npanels = npanels;
    }
    st = cm_plot_render(&spec, path, err);
    free(ptitles);
    table_plot_free(&tp);
    return st;
}
