/* plot.h - the plotting layer on PLplot (cairo driver).
 *
 * One look for every cohmod figure, set here once: white background, dark
 * axes, readable fonts, a colour-blind-safe palette (Okabe-Ito) with a
 * distinct marker per series and no colour used twice within a panel, a
 * legend where it hides no data, axis labels with units, and error bars
 * where the data has intervals.  Categories (protocols, workloads) get a
 * categorical axis with their names, as grouped bars or points.  More
 * series than the palette holds are split into panels by the caller.  The
 * output format follows the file extension (.png, .svg, .pdf).  The figure
 * is rendered to a temporary file and renamed, so a failure leaves nothing
 * half-written.  Each call opens and closes its own PLplot stream, so no
 * state is left behind.
 *
 * Every figure leaves a record of what it drew (cm_plot_record): each
 * series' colour and marker, each axis label, each legend box and the box
 * of every mark on the page.  An observer (cm_plot_set_observer) sees it,
 * which is how the tests check figures they did not build. */
#ifndef CM_PLOT_H
#define CM_PLOT_H

#include <stddef.h>

#include "data/err.h"
#include "data/table.h"

/* Colours a panel can give its series: beyond this a figure is split into
 * panels (or its series aggregated), never drawn with a colour twice. */
#define CM_PLOT_COLOURS 8

typedef enum cm_plot_style {
    CM_PLOT_LINES_POINTS = 0,
    CM_PLOT_LINES,
    CM_PLOT_POINTS,
    CM_PLOT_BARS /* grouped bars on a categorical x axis */
} cm_plot_style;

typedef struct cm_plot_series {
    const char *label;     /* legend entry: human words with units */
    const double *x, *y;   /* on a categorical axis, x is the category's
                              index (0, 1, ...) */
    const double *ylo, *yhi; /* both NULL: no error bars */
    size_t n;
    int line_only; /* a model curve: a line without markers whatever the
                      figure's style */
    int with_previous; /* drawn in the previous series' colour and sharing
                          its legend entry: a model line beside the
                          simulation of the same configuration */
    int reference; /* a reference line (y = x, a baseline): dashed, in
                      grey, with its own legend entry, no palette colour */
    size_t panel;  /* 0-based; < the spec's npanels */
    /* A shaded band behind it, band_lo[j]..band_hi[j] at its point j,
     * broken where either is NaN: a model's held-out error where it was
     * validated, and nothing where it was not.  Both NULL: none.  Light,
     * in the series' colour, under every line and marker. */
    const double *band_lo, *band_hi;
} cm_plot_series;

/* A panel of a figure with several, stacked top to bottom.  NULL fields
 * take the figure's. */
typedef struct cm_plot_panel {
    const char *title;
    const char *xlabel, *ylabel;
    int logx;
} cm_plot_panel;

typedef struct cm_plot_spec {
    const char *title;
    const char *xlabel; /* with unit, e.g. "L1 MSHRs per SM (entries)" */
    const char *ylabel;
    int logx, logy;
    cm_plot_style style;
    const cm_plot_series *series;
    size_t nseries;
    /* A categorical x axis: the categories' names, in order; series x
     * values index them.  BARS needs it; NULL: a numeric axis. */
    const char *const *categories;
    size_t ncategories;
    /* Panels (NULL, 0: one). */
    const cm_plot_panel *panels;
    size_t npanels;
    /* Panels share one y range, so their values compare by eye. */
    int share_y;
    /* A heading above the legend's entries: what they vary ("memory
     * intensity"), so each entry is its value and unit. */
    const char *legend_title;
    /* POINTS: markers closer than half a marker are drawn once, with how
     * many they are written beside them (a parity plot's repeated
     * points), and every marker is translucent. */
    int count_overlaps;
} cm_plot_spec;

/* Renders the figure to `path`; the extension picks the format. */
cm_status cm_plot_render(const cm_plot_spec *spec, const char *path,
                         cm_err *err);


/* CM_EINPUT unless the path names a figure format (.png, .svg, .pdf). */
cm_status cm_plot_check_path(const char *path, cm_err *err);

/* ---- the record of a figure ------------------------------------------------ */

/* A box on the page: x left to right, y bottom to top, both 0..1. */
typedef struct cm_plot_box {
    double x0, y0, x1, y1;
} cm_plot_box;

#define CM_PLOT_REF_COLOUR (-1) /* a reference line's colour */
#define CM_PLOT_NO_MARKER (-1)

typedef struct cm_plot_series_rec {
    const char *label; /* the legend text of its entry ("" for none) */
    size_t entry;      /* its legend entry within its panel */
    int colour;        /* palette index, or CM_PLOT_REF_COLOUR */
    int marker;        /* marker index, or CM_PLOT_NO_MARKER */
    int line;          /* drawn with a line */
    size_t panel, points; /* points: with a finite x and y */
} cm_plot_series_rec;

typedef struct cm_plot_axis_rec {
    size_t panel;
    char axis;         /* 'x' or 'y' */
    const char *label;
    int categorical;   /* its ticks are category names */
    int log;
    const char *const *ticks; /* the tick labels written (none on a log
                                 axis: PLplot writes its powers of ten) */
    size_t nticks;
} cm_plot_axis_rec;

typedef enum cm_plot_mark_kind {
    CM_MARK_MARKER = 0,
    CM_MARK_BAR,
    CM_MARK_ERROR_BAR,
    CM_MARK_COUNT,   /* "x3" beside a marker that stands for 3 points */
    CM_MARK_SEGMENT  /* one segment of a line: x0,y0 to x1,y1 */
} cm_plot_mark_kind;

/* Something drawn for the data; its box on the page. */
typedef struct cm_plot_mark {
    cm_plot_box box;
    size_t series;
    cm_plot_mark_kind kind;
    int count;       /* CM_MARK_COUNT: the points it stands for */
} cm_plot_mark;

typedef struct cm_plot_record {
    const char *path;  /* the figure file */
    const char *title;
    size_t npanels;
    const cm_plot_series_rec *series;
    size_t nseries;
    const cm_plot_axis_rec *axes; /* x and y of each panel */
    size_t naxes;
    const cm_plot_box *legends; /* one per panel that has a legend */
    size_t nlegends;
    const cm_plot_box *plot_areas; /* each panel's axes box */
    const cm_plot_mark *marks;
    size_t nmarks;
} cm_plot_record;

/* Whether two boxes overlap (touching edges do not). */
int cm_plot_box_overlap(const cm_plot_box *a, const cm_plot_box *b);
/* Whether a segment (a mark with is_segment) crosses a box. */
int cm_plot_segment_crosses(const cm_plot_box *seg, const cm_plot_box *b);

/* Called with the record of every figure rendered from now on (NULL
 * stops it); the record lives until the callback returns. */
typedef void (*cm_plot_observer)(const cm_plot_record *rec, void *arg);
void cm_plot_set_observer(cm_plot_observer fn, void *arg);

/* ---- tables --------------------------------------------------------------- */

/* Options of `cohmod plot`: columns of a table to draw. */
typedef struct cm_plot_table_opts {
    const char *x;        /* column name */
    const char *const *y; /* column names */
    size_t ny;
    const char *by;       /* optional: one series per distinct value */
    const char *errlo, *errhi; /* optional: columns with interval bounds */
    const char *title;
    const char *xlabel, *ylabel; /* NULL: from the registries */
    int logx, logy;
    cm_plot_style style;
    int no_band; /* do not shade the held-out error (below) */
} cm_plot_table_opts;

/* Plots columns of a table.  Axis labels and legend entries take their
 * human names and units from the registries (data/columns.h): "L1 MSHRs
 * per SM (entries)"; under the heading "memory intensity", "0.1
 * inst/inst".  More
 * series than CM_PLOT_COLOURS are split into panels of at most that many;
 * several y columns with a --by column get a panel per group.
 * Missing columns and non-numeric cells are errors with file:line:col.
 * A y column C with a column C_abs_err or C_rel_err beside it (a model's
 * held-out error, data/validity.h) is shaded C +- err (or C x (1 +- err))
 * where the error is given, and left bare where it is empty: outside the
 * validated domain; its label says so. */
cm_status cm_plot_table(const cm_table *t, const cm_plot_table_opts *o,
                        const char *path, cm_err *err);

/* Axis label for a column: "label (unit)" from the registries, or the
 * column's name when they do not know it. */
void cm_plot_axis_label(const char *column, char *buf, size_t len);

#endif
