/* plot_impl.h - what the files of the figure module share (plot.c: the
 * entry point, the record and PLplot's error paths; plot_prep.c: the data
 * made ready for PLplot; plot_layout.c: tick labels, legend and panel
 * placement; plot_draw.c: the drawing).  The look itself (colours,
 * markers, sizes) is described in plot.c's header. */
#ifndef COHMOD_PLOT_IMPL_H
#define COHMOD_PLOT_IMPL_H

#include <plplot.h>
#include <stddef.h>

#include "plots/plot.h"

typedef struct fig_format {
    const char *ext, *device;
    int width, height; /* pixels for PNG, points for SVG and PDF */
} fig_format;

#define NPAL CM_PLOT_COLOURS

/* Colour map 0: PLplot draws with these indices; the series' colours come
 * three times: opaque, translucent (overlapping markers show through) and
 * light (a band behind them). */
enum {
    COL_PAPER = 0,
    COL_INK = 1,
    COL_GRID = 2,
    COL_REF = 3,
    COL_SERIES = 4,
    COL_FADED = COL_SERIES + NPAL,
    COL_BAND = COL_FADED + NPAL,
    NCOL = COL_BAND + NPAL
};

#define FADED_ALPHA 0.55 /* translucent markers: 2 overlapping read darker */
#define BAND_ALPHA 0.22  /* light enough for points and lines to show */

/* Filled markers drawn as text (UTF-8), so the plot and the legend use the
 * very same glyph: circle, square, triangle up, diamond, triangle down,
 * pentagon, heavy cross, star. */
#define NMARKERS 8

#define TEXT_SCALE 1.35    /* axis text height relative to PLplot's default */
#define MARKER_SCALE 1.0   /* marker glyph height, same reference */
#define BAR_MARKER_SCALE 0.75 /* the marker above a bar */
#define LEGEND_SCALE 1.0   /* legend text height, same reference */
#define COUNT_SCALE 0.8    /* "x3" beside a repeated point */
#define COUNT_RINGS 6      /* places tried for it, ever further out */
#define RANGE_MARGIN 0.05  /* empty fraction added at each end of an axis */
#define MAX_LABEL 200      /* longest text handed to PLplot (it takes 500) */
#define MAX_SERIES 64      /* beyond this a figure is unreadable */
#define MAX_PANELS 8
#define MAX_MARKS 20       /* markers on a line; more would merge into a band */
#define CHAR_WIDTH 0.72    /* mean glyph width per character height (DejaVu) */
#define MARK_HALF 0.55     /* half a marker's extent, in its character heights */
#define BAR_SPAN 0.8       /* share of a category's width its bars take */
#define PANEL_GROWTH 0.6   /* page height added per extra panel */
#define LEGEND_SPACING 1.8 /* legend rows, in legend character heights */
#define LEGEND_INSET 0.015 /* gap between a legend and the frame (page) */
#define MAX_TICKS 40       /* tick labels recorded per axis */
#define TICK_LEN 48

/* One series as PLplot sees it: log10 on log axes, NaN where a value is
 * not drawn, categorical x moved to its bar's or point's slot. */
typedef struct prep_series {
    PLFLT *x, *y, *lo, *hi; /* lo, hi NULL: no error bars */
    PLFLT *blo, *bhi;       /* its band; NULL: none */
    PLINT n;
    int colour;    /* palette slot, or CM_PLOT_REF_COLOUR */
    int marker;    /* marker index, or CM_PLOT_NO_MARKER */
    int own_marker; /* its entry's, for a lone point of a line */
    int line;      /* drawn with a line */
    size_t entry;  /* its legend entry within its panel */
    double slot_lo, slot_hi; /* BARS: the bar's span around a category */
} prep_series;

typedef struct legend_entry {
    size_t head;  /* the series that names it */
    int colour;
    int marker;   /* shown: one of its series draws markers */
    int line, bar, reference;
    int own_marker; /* the entry's, drawn or not */
} legend_entry;

enum { LEG_NONE = 0, LEG_INSIDE, LEG_RIGHT, LEG_BELOW };

typedef struct panel {
    const char *title, *xlabel, *ylabel;
    int logx, logy;
    double xmin, xmax, ymin, ymax; /* window, in PLplot coordinates */
    double vx0, vx1, vy0, vy1;     /* viewport on the page */
    legend_entry entries[MAX_SERIES];
    size_t nentries, nslots;       /* slots: entries with a colour */
    size_t maxchars;               /* longest legend text */
    int where;                     /* LEG_* */
    PLINT corner;                  /* LEG_INSIDE: which */
    PLINT cols;                    /* legend columns */
    double leg_w, leg_h;           /* legend size on the page */
    int measured;                  /* leg_w, leg_h from a drawn legend */
    cm_plot_box legend;            /* as drawn */
    int has_bars;
    double ytick_chars;            /* widest y tick label */
    char ticks[2][MAX_TICKS][TICK_LEN]; /* written on x, y */
    size_t nticks[2];
} panel;

typedef struct figure {
    const cm_plot_spec *spec;
    const fig_format *fmt;
    const char *path, *file; /* the target; the temporary PLplot writes */
    int width, height;       /* of the page, in the format's units */
    prep_series *ps;
    panel pn[MAX_PANELS];
    size_t npanels;
    PLFLT *bx, *by, *bz;     /* scratch, as long as the longest series
                                (bx, by: twice) */
    double page_w, page_h;   /* mm */
    double ht;               /* axis text height, mm */
    double text_k;           /* PLplot's character height scale for this
                                page against a one-panel page's */
    /* the record */
    cm_plot_mark *marks;
    size_t nmarks, capmarks;
    int out_of_memory;
    char labels[MAX_SERIES + 1][2 * MAX_LABEL + 8];
} figure;

/* World (PLplot) coordinates of panel p to page coordinates. */
static inline double plot_page_x(const panel *p, double x)
{
    return p->vx0 + (x - p->xmin) / (p->xmax - p->xmin) * (p->vx1 - p->vx0);
}

static inline double plot_page_y(const panel *p, double y)
{
    return p->vy0 + (y - p->ymin) / (p->ymax - p->ymin) * (p->vy1 - p->vy0);
}

/* plot.c */
void plot_add_mark(figure *f, size_t series, cm_plot_mark_kind kind,
                   double x0, double y0, double x1, double y1);
void plot_text_encode(const char *text, char *buf, size_t len);
size_t plot_text_chars(const char *s);
const char *plot_series_name(const cm_plot_series *s, size_t i, char *buf,
                             size_t len);

/* plot_prep.c */
cm_status plot_prepare(figure *f, cm_err *err);
void plot_figure_free(figure *f);
int plot_categorical(const figure *f);

/* plot_layout.c */
void plot_layout(figure *f);
void plot_tick_label(PLINT axis, PLFLT value, char *label, PLINT length,
                     PLPointer data);
int plot_entry_shown(const figure *f, const legend_entry *e);
double plot_mark_half_w(const figure *f, double scale);
double plot_mark_half_h(const figure *f, double scale);

/* plot_draw.c */
void plot_draw(figure *f);
int plot_legends_misplaced(figure *f);

#endif
