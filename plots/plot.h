/* plot.h - the plotting layer on PLplot (cairo driver).
 *
 * One look for every cohmod figure, set here once: white background, dark
 * axes, readable fonts, a colour-blind-safe palette (Okabe-Ito) with a
 * distinct marker per series, a legend, axis labels with units, and error
 * bars where the data has intervals.  The output format follows the file
 * extension (.png, .svg, .pdf).  The figure is rendered to a temporary file
 * and renamed, so a failure leaves nothing half-written.  Each call opens and
 * closes its own PLplot stream, so no state is left behind. */
#ifndef CM_PLOT_H
#define CM_PLOT_H

#include <stddef.h>

#include "data/err.h"
#include "data/table.h"

typedef enum cm_plot_style {
    CM_PLOT_LINES_POINTS = 0,
    CM_PLOT_LINES,
    CM_PLOT_POINTS
} cm_plot_style;

typedef struct cm_plot_series {
    const char *label;
    const double *x, *y;
    const double *ylo, *yhi; /* both NULL: no error bars */
    size_t n;
    int line_only; /* a reference line (y = x, a model curve): drawn as a
                      line without markers whatever the figure's style */
} cm_plot_series;

typedef struct cm_plot_spec {
    const char *title;
    const char *xlabel; /* with unit, e.g. "L1 MSHRs (entries)" */
    const char *ylabel;
    int logx, logy;
    cm_plot_style style;
    const cm_plot_series *series;
    size_t nseries;
} cm_plot_spec;

/* Renders the figure to `path`; the extension picks the format. */
cm_status cm_plot_render(const cm_plot_spec *spec, const char *path,
                         cm_err *err);

/* A shaded band behind a series: lo[j]..hi[j] at its point j, none where
 * either is NaN (the band breaks there).  Drawn in the series' colour,
 * light, under every line and marker: a model's held-out error where it
 * was validated, and nothing where it was not. */
typedef struct cm_plot_band {
    const double *lo, *hi; /* both NULL: no band */
} cm_plot_band;

/* cm_plot_render with bands[i] behind series i (bands may be NULL). */
cm_status cm_plot_render_bands(const cm_plot_spec *spec,
                               const cm_plot_band *bands, const char *path,
                               cm_err *err);

/* Options of `cohmod plot`: columns of a table to draw. */
typedef struct cm_plot_table_opts {
    const char *x;        /* column name */
    const char *const *y; /* column names */
    size_t ny;
    const char *by;       /* optional: one series per distinct value */
    const char *errlo, *errhi; /* optional: columns with interval bounds */
    const char *title;
    int logx, logy;
    cm_plot_style style;
    int no_band; /* do not shade the held-out error (below) */
} cm_plot_table_opts;

/* Plots columns of a table.  Axis labels take their unit from the parameter
 * registry when the column names a parameter ("l1.mshrs (entries)").
 * Missing columns and non-numeric cells are errors with file:line:col.
 * A y column C with a column C_abs_err or C_rel_err beside it (a model's
 * held-out error, data/validity.h) is shaded C +- err (or C x (1 +- err))
 * where the error is given, and left bare where it is empty: outside the
 * validated domain; its label says so. */
cm_status cm_plot_table(const cm_table *t, const cm_plot_table_opts *o,
                        const char *path, cm_err *err);

/* Label for a column: "name (unit)" when the registry knows a unit. */
void cm_plot_axis_label(const char *column, char *buf, size_t len);

#endif
