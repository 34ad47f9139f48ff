/* plot.c - cohmod's figures on PLplot's cairo driver (see plot.h).
 *
 * The look is set here once, so every figure in a study matches and can go
 * into a paper unedited:
 *   - white page, black axes and text: PLplot's own default is a black page
 *     with red ink, which no journal prints;
 *   - sans-serif text at ~1/40 of the figure width, so labels stay legible
 *     when the figure is shrunk to one column;
 *   - the Okabe-Ito palette, distinguishable under every common form of
 *     colour blindness, at most once per panel (a ninth series is an error:
 *     the caller splits into panels), and a filled marker per series, so
 *     the series stay apart in greyscale print too;
 *   - categories on a categorical axis with their names: grouped bars (a
 *     marker above each bar says its series in greyscale) or dodged
 *     points, never a line from one category to the next;
 *   - a light grey grid behind the data, axis labels with units (shrunk
 *     rather than cut when too long), tick labels in plain decimals (no
 *     "(x10^k)" beside the axis), error bars where the data has intervals,
 *     markers on at most ~20 points of a dense line;
 *   - the legend in an inside corner only where it covers no mark, else
 *     beside the plot, or below it when it is wide;
 *   - log axes that always show two labelled powers of ten;
 *   - line widths proportional to the page, so a PNG and a PDF of the same
 *     figure look the same.
 *
 * The extension picks the cairo device: .png (1200x900 pixels), .svg and
 * .pdf (460x345 points, i.e. 6.4x4.8 in), taller by 60% per extra panel.
 * PLplot renders into a temporary file beside the target, which is renamed
 * over it only when complete.
 *
 * The legend's size is estimated before drawing (PLplot measures text only
 * while it draws it).  Every mark drawn is recorded in page coordinates; if
 * the legend PLplot drew covers a mark or leaves the page, the figure is
 * drawn again with the legend's measured size, so the placement rests on
 * what was drawn, not on the estimate.
 *
 * PLplot keeps its state in "streams".  Each figure makes a new stream,
 * configures it before plinit, ends it with plend1 and restores the caller's
 * stream, so figures never leak settings into each other.  PLplot reports
 * recoverable errors through plabort and fatal ones through plexit, which
 * would exit the process; while a figure renders both are routed here (the
 * exit handler long-jumps back), so either becomes a returned cm_err, and
 * afterwards both handlers are reset to PLplot's defaults.  PLplot is not
 * thread-safe, and neither is this module. */
#include "plots/plot.h"

#include <limits.h>
#include <math.h>
#include <plplot.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "data/atomic.h"

/* ---- the look ------------------------------------------------------------ */

typedef struct fig_format {
    const char *ext, *device;
    int width, height; /* pixels for PNG, points for SVG and PDF */
} fig_format;

static const fig_format formats[] = {
    {".png", "pngcairo", 1200, 900},
    {".svg", "svgcairo", 460, 345},
    {".pdf", "pdfcairo", 460, 345},
};

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

static const unsigned char base_colours[COL_SERIES][3] = {
    {0xFF, 0xFF, 0xFF}, /* paper */
    {0x00, 0x00, 0x00}, /* ink: axes, text, legend frame */
    {0xD9, 0xD9, 0xD9}, /* grid */
    {0x66, 0x66, 0x66}, /* reference lines */
};

/* Okabe & Ito, "Color Universal Design" (2008), blue first. */
static const unsigned char palette[NPAL][3] = {
    {0x00, 0x72, 0xB2}, {0xD5, 0x5E, 0x00}, {0x00, 0x9E, 0x73},
    {0xCC, 0x79, 0xA7}, {0xE6, 0x9F, 0x00}, {0x56, 0xB4, 0xE9},
    {0xF0, 0xE4, 0x42}, {0x00, 0x00, 0x00},
};

#define FADED_ALPHA 0.55 /* translucent markers: 2 overlapping read darker */
#define BAND_ALPHA 0.22  /* light enough for points and lines to show */

/* Filled markers drawn as text (UTF-8), so the plot and the legend use the
 * very same glyph: circle, square, triangle up, diamond, triangle down,
 * pentagon, heavy cross, star. */
#define NMARKERS 8
static const char *const markers[NMARKERS] = {
    "\xE2\x97\x8F", "\xE2\x96\xA0", "\xE2\x96\xB2", "\xE2\x97\x86",
    "\xE2\x96\xBC", "\xE2\xAC\x9F", "\xE2\x9C\x96", "\xE2\x98\x85",
};

#define TEXT_SCALE 1.35    /* axis text height relative to PLplot's default */
#define MARKER_SCALE 1.0   /* marker glyph height, same reference */
#define BAR_MARKER_SCALE 0.75 /* the marker above a bar */
#define LEGEND_SCALE 1.0   /* legend text height, same reference */
#define COUNT_SCALE 0.8    /* "x3" beside a repeated point */
#define COUNT_RINGS 3      /* places tried for it, ever further out */
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
#define MAX_TICKS 40       /* tick labels recorded per axis */
#define TICK_LEN 48

/* PLplot scales its default character height with the page's diagonal;
 * text heights here are relative to a one-panel page's, so a figure with
 * more panels (a taller page) keeps the same font.  Set per figure. */
static double text_k = 1.0;

static void set_chr(double scale)
{
    plschr(0.0, scale * text_k);
}

/* ---- helpers --------------------------------------------------------------- */

/* The format of `path` from its extension, or NULL after setting err. */
static const fig_format *format_for(const char *path, cm_err *err)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (!path || !path[0]) {
        cm_err_set(err, CM_EINPUT, "no figure file given");
        return NULL;
    }
    if (dot && !(slash && dot < slash))
        for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
            if (strcasecmp(dot, formats[i].ext) == 0) return &formats[i];
    cm_err_set(err, CM_EINPUT,
               "%s: unknown figure format; use .png, .svg or .pdf", path);
    return NULL;
}

cm_status cm_plot_check_path(const char *path, cm_err *err)
{
    return format_for(path, err) ? CM_OK : CM_EINPUT;
}

/* Length of the valid UTF-8 sequence at s, or 0 if s starts an invalid
 * one (overlong forms and surrogates included). */
static size_t utf8_seq(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xBF; /* range of the second byte */
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) n = 3;
    else if (c >= 0xF0 && c <= 0xF4) n = 4;
    else return 0;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return n;
}

/* Copies text for PLplot: '#', its escape character, doubled; bytes that
 * are not UTF-8 (PLplot would refuse the whole string) replaced by U+FFFD;
 * cut after MAX_LABEL bytes at a character boundary. */
static void pl_text(const char *text, char *buf, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t n = 0;
    if (len == 0) return;
    while (s && *s && n < MAX_LABEL) {
        size_t k = utf8_seq(s), w = k;
        const char *src = (const char *)s;
        if (k == 0) {
            src = "\xEF\xBF\xBD";
            w = 3;
        } else if (*s == '#') {
            src = "##";
            w = 2;
        }
        if (n + w >= len) break;
        memcpy(buf + n, src, w);
        n += w;
        s += k ? k : 1;
    }
    buf[n] = '\0';
}

/* Characters (not bytes) of UTF-8 text. */
static size_t text_chars(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static const char *series_name(const cm_plot_series *s, size_t i, char *buf,
                               size_t len)
{
    if (s->label && s->label[0]) return s->label;
    snprintf(buf, len, "#%zu", i + 1);
    return buf;
}

int cm_plot_box_overlap(const cm_plot_box *a, const cm_plot_box *b)
{
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* Liang-Barsky: does the segment p0-p1 pass through the box's inside? */
int cm_plot_segment_crosses(const cm_plot_box *seg, const cm_plot_box *b)
{
    double x0 = seg->x0, y0 = seg->y0, dx = seg->x1 - x0, dy = seg->y1 - y0;
    double p[4] = {-dx, dx, -dy, dy};
    double q[4] = {x0 - b->x0, b->x1 - x0, y0 - b->y0, b->y1 - y0};
    double t0 = 0, t1 = 1;
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] <= 0) return 0;
            continue;
        }
        double t = q[i] / p[i];
        if (p[i] < 0) t0 = fmax(t0, t);
        else t1 = fmin(t1, t);
        if (t0 >= t1) return 0;
    }
    return 1;
}

/* ---- the figure being drawn ------------------------------------------------ */

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
    /* the record */
    cm_plot_mark *marks;
    size_t nmarks, capmarks;
    int out_of_memory;
    char labels[MAX_SERIES + 1][2 * MAX_LABEL + 8];
} figure;

static void add_mark(figure *f, size_t series, cm_plot_mark_kind kind,
                     double x0, double y0, double x1, double y1)
{
    int is_segment = kind == CM_MARK_SEGMENT;
    if (f->nmarks == f->capmarks) {
        size_t cap = f->capmarks ? 2 * f->capmarks : 256;
        cm_plot_mark *g = realloc(f->marks, cap * sizeof *g);
        if (!g) {
            f->out_of_memory = 1;
            return;
        }
        f->marks = g;
        f->capmarks = cap;
    }
    cm_plot_box b = is_segment ? (cm_plot_box){x0, y0, x1, y1}
                               : (cm_plot_box){fmin(x0, x1), fmin(y0, y1),
                                               fmax(x0, x1), fmax(y0, y1)};
    f->marks[f->nmarks++] = (cm_plot_mark){b, series, kind, 0};
}

/* World (PLplot) coordinates of panel p to page coordinates. */
static double page_x(const panel *p, double x)
{
    return p->vx0 + (x - p->xmin) / (p->xmax - p->xmin) * (p->vx1 - p->vx0);
}

static double page_y(const panel *p, double y)
{
    return p->vy0 + (y - p->ymin) / (p->ymax - p->ymin) * (p->vy1 - p->vy0);
}

/* ---- preparing the data ---------------------------------------------------- */

typedef struct axis_range {
    double lo, hi;
    int any;
} axis_range;

static void range_add(axis_range *r, double v)
{
    if (!isfinite(v)) return;
    if (!r->any || v < r->lo) r->lo = v;
    if (!r->any || v > r->hi) r->hi = v;
    r->any = 1;
}

/* One value of an axis: log10 on a log axis (non-positive is an error),
 * NaN for a non-finite value, which is not drawn. */
static cm_status prep_value(double v, int logscale, const cm_plot_series *s,
                            size_t si, size_t j, const char *axis,
                            const char *axis_label, PLFLT *out, cm_err *err)
{
    if (!isfinite(v)) {
        *out = NAN;
        return CM_OK;
    }
    if (logscale) {
        if (v <= 0) {
            char nb[32];
            return cm_err_set(err, CM_EINPUT,
                              "series '%s': a log %s axis needs positive "
                              "values, but point %zu has %s = %g",
                              series_name(s, si, nb, sizeof nb), axis, j + 1,
                              axis_label && axis_label[0] ? axis_label : axis,
                              v);
        }
        v = log10(v);
    }
    *out = v;
    return CM_OK;
}

static void figure_free(figure *f)
{
    if (f->ps)
        for (size_t i = 0; i < f->spec->nseries; i++) {
            free(f->ps[i].x);
            free(f->ps[i].y);
            free(f->ps[i].lo);
            free(f->ps[i].hi);
            free(f->ps[i].blo);
            free(f->ps[i].bhi);
        }
    free(f->ps);
    free(f->bx);
    free(f->by);
    free(f->bz);
    free(f->marks);
}

static int categorical(const figure *f)
{
    return f->spec->categories != NULL;
}

/* Checks the spec as a whole: panels, categories, style. */
static cm_status check_spec(const cm_plot_spec *sp, size_t *npanels,
                            cm_err *err)
{
    *npanels = sp->npanels ? sp->npanels : 1;
    if (*npanels > MAX_PANELS)
        return cm_err_set(err, CM_EINPUT, "%zu panels; a figure takes at "
                          "most %d", *npanels, MAX_PANELS);
    if (sp->npanels > 1 && !sp->panels)
        return cm_err_set(err, CM_EINTERNAL, "panels without their spec");
    if (sp->style == CM_PLOT_BARS && !sp->categories)
        return cm_err_set(err, CM_EINPUT,
                          "bars need a categorical x axis (categories)");
    if (sp->categories &&
        (sp->style == CM_PLOT_LINES || sp->style == CM_PLOT_LINES_POINTS))
        return cm_err_set(err, CM_EINPUT,
                          "lines must not join categories: use bars or "
                          "points on a categorical axis");
    if (sp->categories && (sp->ncategories == 0 || sp->logx))
        return cm_err_set(err, CM_EINPUT,
                          sp->logx ? "a categorical axis cannot be log"
                                   : "a categorical axis needs categories");
    if (sp->style == CM_PLOT_BARS && sp->logy)
        return cm_err_set(err, CM_EINPUT,
                          "bars start at 0: they need a linear y axis");
    for (size_t i = 0; i < sp->nseries; i++) {
        const cm_plot_series *s = &sp->series[i];
        char nb[32];
        if (s->panel >= *npanels)
            return cm_err_set(err, CM_EINPUT,
                              "series '%s': panel %zu of %zu",
                              series_name(s, i, nb, sizeof nb), s->panel + 1,
                              *npanels);
        if (sp->categories && s->line_only && !s->reference)
            return cm_err_set(err, CM_EINPUT,
                              "series '%s': lines must not join categories",
                              series_name(s, i, nb, sizeof nb));
        if (s->with_previous &&
            (i == 0 || sp->series[i - 1].panel != s->panel ||
             sp->series[i - 1].reference || s->reference))
            return cm_err_set(err, CM_EINPUT,
                              "series '%s': shares the colour of no series "
                              "before it in its panel",
                              series_name(s, i, nb, sizeof nb));
    }
    return CM_OK;
}

/* The marker of a new entry with colour c and label `label`: an entry
 * with the same label elsewhere (the same quantity in another panel)
 * keeps its marker where that colour and marker are free; otherwise the
 * first marker, from the label's own turn on, that no other label uses
 * with this colour.  So two series share a colour and a marker only when
 * they are the same series drawn in two panels. */
typedef struct style_use {
    const char *label; /* NULL: a series of its own (no label) */
    int colour, marker;
} style_use;

static int pick_marker(style_use *used, size_t *nused, size_t *nlabels,
                       const char *label, int c)
{
    int want = -1;
    for (size_t u = 0; u < *nused && label; u++)
        if (used[u].label && strcmp(used[u].label, label) == 0) {
            want = used[u].marker;
            break;
        }
    if (want < 0) want = (int)((*nlabels)++ % NMARKERS);
    for (int t = 0; t < NMARKERS; t++) {
        int m = (want + t) % NMARKERS, taken = 0;
        for (size_t u = 0; u < *nused && !taken; u++)
            taken = used[u].colour == c && used[u].marker == m &&
                    !(label && used[u].label &&
                      strcmp(used[u].label, label) == 0);
        if (!taken) {
            used[(*nused)++] = (style_use){label, c, m};
            return m;
        }
    }
    return want; /* 8 labels on one colour: cannot happen within a panel */
}

/* Legend entries, colours and markers.  Colours are counted per panel
 * (at most NPAL, each used once); markers follow pick_marker.  A series
 * that joins the previous one's entry (the model line beside its
 * simulation) takes that entry's colour; an entry holds at most one
 * series with markers, so its colour and marker stay its own. */
static cm_status assign_styles(figure *f, cm_err *err)
{
    const cm_plot_spec *sp = f->spec;
    style_use used[MAX_SERIES];
    size_t nused = 0, nlabels = 0;
    for (size_t i = 0; i < sp->nseries; i++) {
        const cm_plot_series *s = &sp->series[i];
        panel *p = &f->pn[s->panel];
        prep_series *ps = &f->ps[i];
        int bars = sp->style == CM_PLOT_BARS && !s->line_only && !s->reference;
        int marks = bars || (!s->line_only && !s->reference &&
                             sp->style != CM_PLOT_LINES);
        ps->line = s->reference ||
                   (!bars && (s->line_only || sp->style == CM_PLOT_LINES ||
                              sp->style == CM_PLOT_LINES_POINTS));
        legend_entry *e;
        if (s->with_previous) {
            e = &p->entries[p->nentries - 1];
        } else {
            if (p->nentries == MAX_SERIES)
                return cm_err_set(err, CM_EINPUT, "too many series");
            e = &p->entries[p->nentries++];
            *e = (legend_entry){.head = i,
                                .colour = CM_PLOT_REF_COLOUR,
                                .marker = CM_PLOT_NO_MARKER,
                                .bar = bars,
                                .reference = s->reference,
                                .own_marker = CM_PLOT_NO_MARKER};
            if (!s->reference) {
                if (p->nslots == NPAL) {
                    char nb[32];
                    return cm_err_set(
                        err, CM_EINPUT,
                        "series '%s': a panel takes at most %d series, one "
                        "colour each; split the figure into panels or "
                        "aggregate",
                        series_name(s, i, nb, sizeof nb), NPAL);
                }
                e->colour = (int)p->nslots++;
                e->own_marker =
                    pick_marker(used, &nused, &nlabels,
                                s->label && s->label[0] ? s->label : NULL,
                                e->colour);
            }
        }
        if (marks && e->marker != CM_PLOT_NO_MARKER) {
            char na[32], nb[32];
            return cm_err_set(err, CM_EINPUT,
                              "series '%s' and '%s' share a legend entry: "
                              "only one of them can have markers",
                              series_name(&sp->series[e->head], e->head, na,
                                          sizeof na),
                              series_name(s, i, nb, sizeof nb));
        }
        ps->entry = (size_t)(e - p->entries);
        ps->colour = e->colour;
        ps->own_marker = e->own_marker;
        ps->marker = marks ? e->own_marker : CM_PLOT_NO_MARKER;
        if (marks) e->marker = e->own_marker;
        e->line |= ps->line;
        p->has_bars |= bars;
    }
    return CM_OK;
}

/* Series i's band in PLplot coordinates: NaN where it is missing or, on a
 * log axis, not positive (a band is never an error: it just breaks). */
static cm_status prep_band(figure *f, size_t i, axis_range *yr, cm_err *err)
{
    const cm_plot_series *s = &f->spec->series[i];
    prep_series *p = &f->ps[i];
    int logy = f->pn[s->panel].logy;
    if (!s->band_lo || !s->band_hi) return CM_OK;
    size_t bytes = (p->n ? (size_t)p->n : 1) * sizeof(PLFLT);
    p->blo = malloc(bytes);
    p->bhi = malloc(bytes);
    if (!p->blo || !p->bhi)
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (PLINT j = 0; j < p->n; j++) {
        double lo = s->band_lo[j], hi = s->band_hi[j];
        int ok = isfinite(lo) && isfinite(hi) && isfinite(p->x[j]) &&
                 (!logy || (lo > 0 && hi > 0));
        p->blo[j] = ok ? (logy ? log10(lo) : lo) : NAN;
        p->bhi[j] = ok ? (logy ? log10(hi) : hi) : NAN;
        if (ok) {
            range_add(yr, p->blo[j]);
            range_add(yr, p->bhi[j]);
        }
    }
    return CM_OK;
}

static cm_status prep_one(figure *f, size_t i, axis_range *xr,
                          axis_range *yr, cm_err *err)
{
    const cm_plot_spec *sp = f->spec;
    const cm_plot_series *s = &sp->series[i];
    const panel *pn = &f->pn[s->panel];
    prep_series *p = &f->ps[i];
    char nb[32];
    if (s->n > (size_t)INT_MAX)
        return cm_err_set(err, CM_EINPUT, "series '%s': too many points",
                          series_name(s, i, nb, sizeof nb));
    if (s->n > 0 && (!s->x || !s->y))
        return cm_err_set(err, CM_EINTERNAL, "series '%s': no data",
                          series_name(s, i, nb, sizeof nb));
    if (!s->ylo != !s->yhi)
        return cm_err_set(err, CM_EINPUT,
                          "series '%s': error bars need both a low and a "
                          "high bound",
                          series_name(s, i, nb, sizeof nb));
    size_t bytes = (s->n ? s->n : 1) * sizeof(PLFLT);
    p->n = (PLINT)s->n;
    p->x = malloc(bytes);
    p->y = malloc(bytes);
    if (s->ylo) {
        p->lo = malloc(bytes);
        p->hi = malloc(bytes);
    }
    if (!p->x || !p->y || (s->ylo && (!p->lo || !p->hi)))
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    /* On a categorical axis each entry of the panel gets a slot of its
     * categories' width: its bar, or its dodged points. */
    double off = 0;
    if (categorical(f) && !s->reference) {
        double w = BAR_SPAN / (double)(pn->nslots ? pn->nslots : 1);
        int slot = p->colour >= 0 ? p->colour : 0;
        p->slot_lo = -BAR_SPAN / 2 + w * slot + 0.08 * w;
        p->slot_hi = -BAR_SPAN / 2 + w * (slot + 1) - 0.08 * w;
        off = (p->slot_lo + p->slot_hi) / 2;
    }
    int logx = pn->logx;
    for (size_t j = 0; j < s->n; j++) {
        cm_status st;
        if (categorical(f)) {
            double c = s->x[j];
            int ok = s->reference
                         ? c >= -0.5 && c <= (double)sp->ncategories - 0.5
                         : c >= 0 && c < (double)sp->ncategories &&
                               c == floor(c);
            if (isfinite(c) && !ok)
                return cm_err_set(err, CM_EINPUT,
                                  "series '%s': point %zu is at category "
                                  "%g of %zu",
                                  series_name(s, i, nb, sizeof nb), j + 1, c,
                                  sp->ncategories);
            p->x[j] = c + off;
        } else if ((st = prep_value(s->x[j], logx, s, i, j, "x", pn->xlabel,
                                    &p->x[j], err)))
            return st;
        if ((st = prep_value(s->y[j], pn->logy, s, i, j, "y", pn->ylabel,
                             &p->y[j], err)))
            return st;
        if (s->ylo &&
            ((st = prep_value(s->ylo[j], pn->logy, s, i, j, "y",
                              pn->ylabel, &p->lo[j], err)) ||
             (st = prep_value(s->yhi[j], pn->logy, s, i, j, "y",
                              pn->ylabel, &p->hi[j], err))))
            return st;
        if (!isfinite(p->x[j])) continue; /* nothing of this point shows */
        if (isfinite(p->y[j])) {
            range_add(xr, p->x[j]);
            range_add(yr, p->y[j]);
        }
        if (s->ylo && isfinite(p->lo[j]) && isfinite(p->hi[j])) {
            range_add(xr, p->x[j]);
            range_add(yr, p->lo[j]);
            range_add(yr, p->hi[j]);
        }
    }
    return CM_OK;
}

/* Window of one axis: the data plus a margin.  PLplot labels a log axis
 * only at powers of ten, so one that would show fewer than two of them
 * widens to the enclosing powers. */
static cm_status axis_window(axis_range r, int logscale, const char *axis,
                             double *lo, double *hi, cm_err *err)
{
    if (!isfinite(r.hi - r.lo) || !isfinite(1.2 * r.lo) ||
        !isfinite(1.2 * r.hi))
        return cm_err_set(err, CM_EINPUT,
                          "the %s values (%g to %g) span too wide a range to "
                          "draw%s",
                          axis, r.lo, r.hi,
                          logscale ? "" : "; try a log axis");
    double a = r.lo, b = r.hi;
    if (b - a < 1e-12 * fmax(fabs(a), fabs(b)) || b == a) {
        double pad = logscale ? 0.5 : (a != 0 ? 0.1 * fabs(a) : 1.0);
        a -= pad;
        b += pad;
    }
    double m = RANGE_MARGIN * (b - a);
    a -= m;
    b += m;
    if (logscale && floor(b) - ceil(a) < 1.0) {
        a = fmin(a, floor(a + m)); /* a + m is the smallest value */
        b = fmax(b, ceil(b - m));
    }
    *lo = a;
    *hi = b;
    return CM_OK;
}

static cm_status prepare(figure *f, cm_err *err)
{
    const cm_plot_spec *sp = f->spec;
    cm_status st = check_spec(sp, &f->npanels, err);
    if (st) return st;
    for (size_t k = 0; k < f->npanels; k++) {
        panel *p = &f->pn[k];
        const cm_plot_panel *in = sp->panels && k < sp->npanels
                                      ? &sp->panels[k] : NULL;
        p->title = in ? in->title : NULL;
        p->xlabel = in && in->xlabel ? in->xlabel : sp->xlabel;
        p->ylabel = in && in->ylabel ? in->ylabel : sp->ylabel;
        p->logx = in ? in->logx || sp->logx : sp->logx;
        p->logy = sp->logy;
    }
    f->ps = calloc(sp->nseries, sizeof *f->ps);
    if (!f->ps) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    if ((st = assign_styles(f, err))) return st;
    axis_range xr[MAX_PANELS], yr[MAX_PANELS];
    memset(xr, 0, sizeof xr);
    memset(yr, 0, sizeof yr);
    for (size_t i = 0; i < sp->nseries; i++) {
        size_t k = sp->series[i].panel;
        if ((st = prep_one(f, i, &xr[k], &yr[k], err)) ||
            (st = prep_band(f, i, &yr[k], err)))
            return st;
    }
    size_t maxn = 1;
    for (size_t i = 0; i < sp->nseries; i++)
        if ((size_t)f->ps[i].n > maxn) maxn = (size_t)f->ps[i].n;
    f->bx = malloc(2 * maxn * sizeof *f->bx); /* a band's polygon */
    f->by = malloc(2 * maxn * sizeof *f->by);
    f->bz = malloc(maxn * sizeof *f->bz);
    if (!f->bx || !f->by || !f->bz)
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    if (sp->share_y)
        for (size_t k = 1; k < f->npanels; k++) {
            range_add(&yr[0], yr[k].lo);
            range_add(&yr[0], yr[k].hi);
        }
    for (size_t k = 0; k < f->npanels; k++) {
        if (sp->share_y) yr[k] = yr[0];
        panel *p = &f->pn[k];
        if (!yr[k].any)
            return cm_err_set(err, CM_EINPUT,
                              "nothing to plot%s: no point has finite x "
                              "and y",
                              f->npanels > 1 ? " in a panel" : "");
        if (p->has_bars) range_add(&yr[k], 0.0); /* bars start at 0 */
        if ((st = axis_window(yr[k], p->logy, "y", &p->ymin, &p->ymax, err)))
            return st;
        if (p->has_bars && yr[k].lo >= 0) p->ymin = 0; /* no floor below 0 */
        if (categorical(f)) {
            p->xmin = -0.5;
            p->xmax = (double)sp->ncategories - 0.5;
        } else if ((st = axis_window(xr[k], p->logx, "x", &p->xmin,
                                     &p->xmax, err)))
            return st;
        if (sp->legend_title && p->nentries)
            p->maxchars = text_chars(sp->legend_title);
        for (size_t e = 0; e < p->nentries; e++) {
            const cm_plot_series *s = &sp->series[p->entries[e].head];
            size_t n = text_chars(s->label);
            if (p->entries[e].bar) n += 2; /* the marker before the text */
            if (n > p->maxchars) p->maxchars = n;
        }
    }
    return CM_OK;
}

/* ---- tick labels ----------------------------------------------------------- */

/* A tick value in plain decimals with the fewest digits that still name
 * it (0.03, not 0.030000000000000002 nor 3 with "(x10^-2)" beside the
 * axis); `span` is the axis's, against which rounding noise is judged. */
static void format_tick(double v, double span, char *buf, size_t len)
{
    double tol = 1e-6 * fabs(span);
    if (fabs(v) <= tol) v = 0;
    if (v != 0 && (fabs(v) >= 1e7 || fabs(v) < 1e-4)) {
        for (int p = 1; p <= 15; p++) {
            snprintf(buf, len, "%.*e", p - 1, v);
            if (fabs(strtod(buf, NULL) - v) <= tol) break;
        }
        /* 1.5e+07 -> 1.5x10^7, with PLplot's superscript escapes */
        char *e = strchr(buf, 'e');
        if (e) {
            int ex = atoi(e + 1);
            char mant[64];
            snprintf(mant, sizeof mant, "%.*s", (int)(e - buf), buf);
            snprintf(buf, len, "%s%s10#u%d#d",
                     strcmp(mant, "1") ? mant : "",
                     strcmp(mant, "1") ? "\xC3\x97" : "", ex);
        }
        return;
    }
    for (int d = 0; d <= 12; d++) {
        snprintf(buf, len, "%.*f", d, v);
        if (fabs(strtod(buf, NULL) - v) <= tol) break;
    }
    if (strcmp(buf, "-0") == 0) snprintf(buf, len, "0");
}

static void tick_label(PLINT axis, PLFLT value, char *label, PLINT length,
                       PLPointer data)
{
    panel *p = data;
    double span = axis == PL_X_AXIS ? p->xmax - p->xmin : p->ymax - p->ymin;
    format_tick(value, span, label, (size_t)length);
    int a = axis == PL_X_AXIS ? 0 : 1;
    if (p->nticks[a] < MAX_TICKS)
        snprintf(p->ticks[a][p->nticks[a]++], TICK_LEN, "%s", label);
}

/* The widest label PLplot's ticks will carry on a linear axis: its steps
 * are 1, 2 or 5 times a power of ten, some 3 to 8 per axis. */
static double widest_tick(double lo, double hi, int logscale)
{
    if (logscale) return 4.0; /* 10^k */
    double span = hi - lo, decade = pow(10, floor(log10(span / 8)));
    double step = decade;
    for (int m = 0; m < 4 && span / step > 8; m++)
        step = decade * (m == 0 ? 2 : m == 1 ? 5 : 10);
    size_t w = 1;
    for (double v = ceil(lo / step) * step; v <= hi; v += step) {
        char buf[64];
        format_tick(v, span, buf, sizeof buf);
        size_t n = text_chars(buf);
        if (strstr(buf, "#u")) n -= 3;
        if (n > w) w = n;
    }
    return (double)w;
}

/* ---- layout ------------------------------------------------------------------ */

/* Mark boxes of a panel's data with the panel's current viewport, for
 * choosing where the legend goes (the same boxes draw_series records). */
static double mark_half_w(const figure *f, double scale)
{
    return MARK_HALF * scale * f->ht / TEXT_SCALE / f->page_w;
}

static double mark_half_h(const figure *f, double scale)
{
    return MARK_HALF * scale * f->ht / TEXT_SCALE / f->page_h;
}

/* Whether box b covers any of panel k's data, as it would be drawn. */
static int covers_data(const figure *f, size_t k, const cm_plot_box *b)
{
    const cm_plot_spec *sp = f->spec;
    const panel *p = &f->pn[k];
    double hw = mark_half_w(f, MARKER_SCALE), hh = mark_half_h(f, MARKER_SCALE);
    for (size_t i = 0; i < sp->nseries; i++) {
        if (sp->series[i].panel != k) continue;
        const prep_series *s = &f->ps[i];
        double px = NAN, py = NAN;
        for (PLINT j = 0; j < s->n; j++) {
            if (!isfinite(s->x[j]) || !isfinite(s->y[j])) {
                px = NAN;
                continue;
            }
            double x = page_x(p, s->x[j]), y = page_y(p, s->y[j]);
            cm_plot_box m = {x - hw, y - hh, x + hw, y + hh};
            if (sp->count_overlaps) { /* the count, on either side */
                m.x0 -= 4 * hw;
                m.x1 += 4 * hw;
            }
            if (p->has_bars && s->marker != CM_PLOT_NO_MARKER) {
                double half = (s->slot_hi - s->slot_lo) / 2, base = page_y(p, 0);
                double top = s->lo && isfinite(s->hi[j]) ? page_y(p, s->hi[j])
                                                          : y;
                m.x0 = page_x(p, s->x[j] - half);
                m.x1 = page_x(p, s->x[j] + half);
                m.y0 = fmin(base, y) - (y < base ? 2.6 * hh : 0);
                m.y1 = fmax(fmax(base, y), top) + (y >= base ? 2.6 * hh : 0);
            }
            if (cm_plot_box_overlap(&m, b)) return 1;
            if (s->lo && isfinite(s->lo[j]) && isfinite(s->hi[j])) {
                cm_plot_box e = {x - hw, page_y(p, s->lo[j]), x + hw,
                                 page_y(p, s->hi[j])};
                if (cm_plot_box_overlap(&e, b)) return 1;
            }
            if (s->line && isfinite(px)) {
                cm_plot_box seg = {px, py, x, y};
                if (cm_plot_segment_crosses(&seg, b)) return 1;
            }
            px = x;
            py = y;
        }
    }
    return 0;
}

/* Whether entry e shows in the legend: only a named one does. */
static int entry_shown(const figure *f, const legend_entry *e)
{
    const char *l = f->spec->series[e->head].label;
    return l && l[0];
}

static size_t entries_shown(const figure *f, const panel *p)
{
    size_t n = 0;
    for (size_t e = 0; e < p->nentries; e++) n += entry_shown(f, &p->entries[e]);
    return n;
}

/* Legend rows: the entries shown, and the heading when there is one. */
static size_t legend_rows(const figure *f, const panel *p)
{
    return entries_shown(f, p) + (f->spec->legend_title != NULL);
}

/* The legend's size on the page, estimated from its text (or as drawn,
 * once measured). */
static void legend_size(const figure *f, panel *p, PLINT cols)
{
    if (p->measured && p->cols == cols) return;
    double h = f->ht * LEGEND_SCALE / TEXT_SCALE; /* legend text, mm */
    PLINT n = (PLINT)legend_rows(f, p);
    PLINT rows = (n + cols - 1) / cols;
    double col_w = (4.5 + CHAR_WIDTH * (double)p->maxchars) * h;
    p->leg_w = ((double)cols * col_w + 1.5 * h) / f->page_w;
    p->leg_h = ((double)rows * LEGEND_SPACING * h + 1.2 * h) / f->page_h;
    p->cols = cols;
}

static const PLINT corners[4] = {
    PL_POSITION_TOP | PL_POSITION_RIGHT, PL_POSITION_TOP | PL_POSITION_LEFT,
    PL_POSITION_BOTTOM | PL_POSITION_RIGHT,
    PL_POSITION_BOTTOM | PL_POSITION_LEFT};

#define LEGEND_INSET 0.015 /* gap between a legend and the frame (page) */

/* One side of a legend in a corner: `size` long, inset from the low or
 * the high edge of [lo, hi]. */
static void corner_span(int high, double lo, double hi, double size,
                        double *a, double *b)
{
    *a = high ? hi - LEGEND_INSET - size : lo + LEGEND_INSET;
    *b = *a + size;
}

static cm_plot_box corner_box(const panel *p, PLINT corner)
{
    cm_plot_box b;
    corner_span(corner & PL_POSITION_RIGHT, p->vx0, p->vx1, p->leg_w, &b.x0,
                &b.x1);
    corner_span(corner & PL_POSITION_TOP, p->vy0, p->vy1, p->leg_h, &b.y0,
                &b.y1);
    return b;
}

/* Widens a bar panel's y window so the marker above (below) each bar's
 * end stays inside the frame: the end plus the marker's room in page
 * units must fit the viewport's height. */
static void fit_bar_markers(figure *f, size_t k)
{
    const cm_plot_spec *sp = f->spec;
    panel *p = &f->pn[k];
    if (!p->has_bars) return;
    double H = p->vy1 - p->vy0;
    double d = 2.6 * mark_half_h(f, BAR_MARKER_SCALE) + 0.01 * H;
    if (d >= 0.5 * H) return;
    double hi = p->ymax, lo = p->ymin;
    for (size_t i = 0; i < sp->nseries; i++) {
        const prep_series *s = &f->ps[i];
        if (sp->series[i].panel != k || s->slot_hi <= s->slot_lo) continue;
        for (PLINT j = 0; j < s->n; j++) {
            if (!isfinite(s->y[j])) continue;
            double top = s->y[j], bot = s->y[j];
            if (s->lo && isfinite(s->hi[j])) top = fmax(top, s->hi[j]);
            if (s->lo && isfinite(s->lo[j])) bot = fmin(bot, s->lo[j]);
            if (s->y[j] >= 0)
                hi = fmax(hi, p->ymin + (top - p->ymin) * H / (H - d));
            else
                lo = fmin(lo, p->ymax - (p->ymax - bot) * H / (H - d));
        }
    }
    p->ymax = hi;
    p->ymin = lo;
}

/* Lays the panels out on the page: viewports, and where each legend goes.
 * Margins are in axis text heights. */
static void layout(figure *f)
{
    const cm_plot_spec *sp = f->spec;
    double ch = f->ht / f->page_h, cw = f->ht / f->page_w;
    double title_h = sp->title && sp->title[0] ? 2.6 * ch : 0.6 * ch;
    double row_h = (1.0 - title_h) / (double)f->npanels;
    double ytick = 1;
    for (size_t k = 0; k < f->npanels; k++) {
        panel *p = &f->pn[k];
        p->ytick_chars = widest_tick(p->ymin, p->ymax, p->logy);
        if (p->ytick_chars > ytick) ytick = p->ytick_chars;
    }
    double left = (CHAR_WIDTH * ytick + 3.6) * cw;
    double right = 1.0 - 2.0 * cw;
    int any_right = 0;
    double below_h[MAX_PANELS] = {0}, right_w = 0;
    /* first: inside, if a corner is free */
    for (size_t k = 0; k < f->npanels; k++) {
        panel *p = &f->pn[k];
        double top = 1.0 - title_h - (double)k * row_h;
        p->vx0 = left;
        p->vx1 = right;
        p->vy1 = top - (p->title && p->title[0] ? 2.4 : 1.0) * ch;
        p->vy0 = top - row_h + 4.4 * ch;
        p->where = LEG_NONE;
        fit_bar_markers(f, k);
        if (entries_shown(f, p) == 0) continue;
        legend_size(f, p, 1);
        for (int c = 0; c < 4; c++) {
            cm_plot_box b = corner_box(p, corners[c]);
            if (b.x0 >= p->vx0 && b.x1 <= p->vx1 && b.y0 >= p->vy0 &&
                b.y1 <= p->vy1 && !covers_data(f, k, &b)) {
                p->where = LEG_INSIDE;
                p->corner = corners[c];
                break;
            }
        }
        if (p->where != LEG_NONE) continue;
        /* else beside the plot when it is narrow, below it when wide */
        if (p->leg_w <= 0.34) {
            p->where = LEG_RIGHT;
            any_right = 1;
            if (p->leg_w > right_w) right_w = p->leg_w;
        } else {
            PLINT cols = (PLINT)fmax(1.0, floor((right - left) / p->leg_w));
            if (cols > (PLINT)legend_rows(f, p))
                cols = (PLINT)legend_rows(f, p);
            p->where = LEG_BELOW;
            legend_size(f, p, cols);
            below_h[k] = p->leg_h + 0.8 * ch;
        }
    }
    /* The panels keep one width, so their axes line up. */
    if (any_right) right = 1.0 - right_w - 3.0 * cw;
    for (size_t k = 0; k < f->npanels; k++) {
        panel *p = &f->pn[k];
        p->vx1 = right;
        p->vy0 += below_h[k];
        fit_bar_markers(f, k);
    }
}

/* ---- drawing ----------------------------------------------------------------- */

/* Line widths scale with the page: 1 unit is 1/600 of its width. */
static PLFLT width_unit(const figure *f)
{
    return (PLFLT)f->width / 600.0;
}

/* One label outside the viewport (plmtex side and displacement in
 * characters), in a smaller font if its estimated width exceeds room_mm. */
static void draw_label(const char *side, double disp, double pos,
                       double just, const char *text, double room_mm,
                       double scale)
{
    char buf[2 * MAX_LABEL + 8];
    pl_text(text, buf, sizeof buf);
    if (!buf[0]) return;
    PLFLT def, ht;
    set_chr(scale);
    plgchr(&def, &ht);
    double width = CHAR_WIDTH * ht * (double)text_chars(buf);
    double k = width > room_mm ? fmax(room_mm / width, 0.5) : 1.0;
    set_chr(scale * k);
    plmtex(side, disp / k, pos, just, buf); /* same distance from the axis */
    set_chr(TEXT_SCALE);
}

/* Category names under a categorical axis, shrunk to fit their slots. */
static void draw_categories(const figure *f, panel *p)
{
    const cm_plot_spec *sp = f->spec;
    double slot_mm = (p->vx1 - p->vx0) * f->page_w / (double)sp->ncategories;
    size_t widest = 1;
    for (size_t c = 0; c < sp->ncategories; c++)
        if (text_chars(sp->categories[c]) > widest)
            widest = text_chars(sp->categories[c]);
    double k = 0.92 * slot_mm / (CHAR_WIDTH * f->ht * (double)widest);
    double scale = TEXT_SCALE * fmin(1.0, fmax(k, 0.45));
    for (size_t c = 0; c < sp->ncategories; c++) {
        double pos = ((double)c - p->xmin) / (p->xmax - p->xmin);
        draw_label("b", 1.3 * TEXT_SCALE / scale, pos, 0.5,
                   sp->categories[c], 1e9, scale);
        if (p->nticks[0] < MAX_TICKS)
            snprintf(p->ticks[0][p->nticks[0]++], TICK_LEN, "%s",
                     sp->categories[c]);
    }
    /* separators between the groups */
    plcol0(COL_INK);
    double tick = 0.02 * (p->ymax - p->ymin);
    for (size_t c = 0; c + 1 < sp->ncategories; c++) {
        double x = (double)c + 0.5;
        pljoin(x, p->ymin, x, p->ymin + tick);
        pljoin(x, p->ymax, x, p->ymax - tick);
    }
}

static void draw_axes(figure *f, size_t k)
{
    const cm_plot_spec *sp = f->spec;
    panel *p = &f->pn[k];
    set_chr(TEXT_SCALE);
    plvpor(p->vx0, p->vx1, p->vy0, p->vy1);
    plwind(p->xmin, p->xmax, p->ymin, p->ymax);
    p->nticks[0] = p->nticks[1] = 0;
    plslabelfunc(tick_label, p);
    plwidth(0.5 * width_unit(f));
    plcol0(COL_GRID);
    int cat = categorical(f);
    plbox(cat ? "" : p->logx ? "gl" : "g", 0.0, 0, p->logy ? "gl" : "g", 0.0,
          0);
    plwidth(0.8 * width_unit(f));
    plcol0(COL_INK);
    plbox(cat ? "bc" : p->logx ? "bcnstl" : "bcnsto", 0.0, 0,
          p->logy ? "bcnstvl" : "bcnstvo", 0.0, 0);
    if (cat) draw_categories(f, p);
    /* The labels sit centred on the viewport and shrink when they would
     * run off the page. */
    double vw = (p->vx1 - p->vx0) * f->page_w;
    double vh = (p->vy1 - p->vy0) * f->page_h;
    draw_label("b", 3.0, 0.5, 0.5, p->xlabel, 0.98 * vw, TEXT_SCALE);
    double ydisp = CHAR_WIDTH * p->ytick_chars + 1.6;
    draw_label("l", ydisp, 0.5, 0.5, p->ylabel, 0.98 * vh, TEXT_SCALE);
    if (p->title && p->title[0])
        draw_label("t", 0.8, 0.5, 0.5, p->title, 0.98 * vw, TEXT_SCALE * 0.9);
    if (k == 0 && sp->title && sp->title[0]) {
        double disp = (p->title && p->title[0] ? 2.9 : 1.2);
        /* the figure's title is centred on the page, not on the axes */
        double pos = (0.5 - p->vx0) / (p->vx1 - p->vx0);
        draw_label("t", disp, pos, 0.5, sp->title, 0.96 * f->page_w,
                   TEXT_SCALE);
    }
}

static void draw_marker(const figure *f, size_t i, double x, double y,
                        double scale, int faded, double dy_mm)
{
    const prep_series *s = &f->ps[i];
    const panel *p = &f->pn[f->spec->series[i].panel];
    PLFLT xx = x, yy = y;
    if (dy_mm != 0) {
        double per_mm = (p->ymax - p->ymin) / ((p->vy1 - p->vy0) * f->page_h);
        yy = y + dy_mm * per_mm;
    }
    int m = s->marker != CM_PLOT_NO_MARKER ? s->marker : s->own_marker;
    plcol0(faded ? COL_FADED + s->colour : COL_SERIES + s->colour);
    set_chr(scale);
    plstring(1, &xx, &yy, markers[m]);
    set_chr(TEXT_SCALE);
    double px = page_x(p, xx), py = page_y(p, yy);
    double hw = mark_half_w(f, scale), hh = mark_half_h(f, scale);
    add_mark((figure *)f, i, CM_MARK_MARKER, px - hw, py - hh, px + hw,
             py + hh);
}

/* Bars of series i: from 0 to the value, its marker above (below, for a
 * negative value) in ink, error bars on top. */
static void draw_bars(figure *f, size_t i)
{
    const prep_series *s = &f->ps[i];
    const panel *p = &f->pn[f->spec->series[i].panel];
    double half = (s->slot_hi - s->slot_lo) / 2;
    /* the marker no wider than its bar, so neighbours' do not merge */
    double bar_mm = 2 * half * (p->vx1 - p->vx0) * f->page_w /
                    (p->xmax - p->xmin);
    double mscale = fmax(0.35, fmin(BAR_MARKER_SCALE,
                                    1.1 * bar_mm / (f->ht / TEXT_SCALE)));
    double mark_mm = 1.15 * MARK_HALF * mscale * f->ht / TEXT_SCALE;
    for (PLINT j = 0; j < s->n; j++) {
        if (!isfinite(s->x[j]) || !isfinite(s->y[j])) continue;
        PLFLT bx[4] = {s->x[j] - half, s->x[j] - half, s->x[j] + half,
                       s->x[j] + half};
        PLFLT by[4] = {0, s->y[j], s->y[j], 0};
        plcol0(COL_SERIES + s->colour);
        plfill(4, bx, by);
        plcol0(COL_INK);
        plwidth(0.4 * width_unit(f));
        PLFLT ox[5] = {bx[0], bx[1], bx[2], bx[3], bx[0]};
        PLFLT oy[5] = {by[0], by[1], by[2], by[3], by[0]};
        plline(5, ox, oy);
        add_mark(f, i, CM_MARK_BAR, page_x(p, bx[0]), page_y(p, 0),
                 page_x(p, bx[2]), page_y(p, s->y[j]));
        double top = s->y[j];
        if (s->lo && isfinite(s->hi[j]) && s->y[j] >= 0) top = s->hi[j];
        if (s->lo && isfinite(s->lo[j]) && s->y[j] < 0) top = s->lo[j];
        /* the marker, in ink so it reads on every bar colour's side */
        PLFLT mx = s->x[j], my = top;
        double per_mm = (p->ymax - p->ymin) / ((p->vy1 - p->vy0) * f->page_h);
        my += (s->y[j] >= 0 ? 1 : -1) * mark_mm * per_mm;
        plcol0(COL_INK);
        set_chr(mscale);
        plstring(1, &mx, &my, markers[s->marker]);
        set_chr(TEXT_SCALE);
        double hw = mark_half_w(f, mscale), hh = mark_half_h(f, mscale);
        add_mark(f, i, CM_MARK_MARKER, page_x(p, mx) - hw, page_y(p, my) - hh,
                 page_x(p, mx) + hw, page_y(p, my) + hh);
    }
}

static void draw_error_bars(figure *f, size_t i, int ink)
{
    const prep_series *s = &f->ps[i];
    const panel *p = &f->pn[f->spec->series[i].panel];
    PLINT n = 0;
    for (PLINT j = 0; j < s->n; j++)
        if (isfinite(s->x[j]) && isfinite(s->lo[j]) && isfinite(s->hi[j])) {
            f->bx[n] = s->x[j];
            f->by[n] = s->lo[j];
            f->bz[n++] = s->hi[j];
            double hw = 0.5 * mark_half_w(f, MARKER_SCALE);
            add_mark(f, i, CM_MARK_ERROR_BAR, page_x(p, s->x[j]) - hw,
                     page_y(p, s->lo[j]), page_x(p, s->x[j]) + hw,
                     page_y(p, s->hi[j]));
        }
    plcol0(ink ? COL_INK : COL_SERIES + s->colour);
    plwidth(0.8 * width_unit(f));
    if (n > 0) plerry(n, f->bx, f->by, f->bz);
}

/* How badly a count's box b would sit in panel k: outside the frame
 * weighs most, then over a count already drawn, then over a point's
 * marker (any series'); 0 is a free place. */
static int count_conflicts(const figure *f, size_t k, const cm_plot_box *b)
{
    const cm_plot_spec *sp = f->spec;
    const panel *p = &f->pn[k];
    int bad = 0;
    if (b->x0 < p->vx0 || b->x1 > p->vx1 || b->y0 < p->vy0 || b->y1 > p->vy1)
        bad += 100;
    for (size_t m = 0; m < f->nmarks; m++)
        if (f->marks[m].kind == CM_MARK_COUNT &&
            sp->series[f->marks[m].series].panel == k &&
            cm_plot_box_overlap(&f->marks[m].box, b))
            bad += 10;
    double hw = mark_half_w(f, MARKER_SCALE), hh = mark_half_h(f, MARKER_SCALE);
    for (size_t i = 0; i < sp->nseries; i++) {
        const prep_series *s = &f->ps[i];
        if (sp->series[i].panel != k || s->marker == CM_PLOT_NO_MARKER)
            continue;
        for (PLINT j = 0; j < s->n; j++) {
            if (!isfinite(s->x[j]) || !isfinite(s->y[j])) continue;
            double x = page_x(p, s->x[j]), y = page_y(p, s->y[j]);
            cm_plot_box m = {x - hw, y - hh, x + hw, y + hh};
            bad += cm_plot_box_overlap(&m, b);
        }
    }
    return bad;
}

/* Markers of series i that fall within half a marker of each other are
 * drawn once, with their number beside them: right of the marker, else
 * left, else above or below it, wherever it stays inside the frame and
 * clear of the other counts and markers. */
static void draw_counted(figure *f, size_t i)
{
    const prep_series *s = &f->ps[i];
    size_t k = f->spec->series[i].panel;
    const panel *p = &f->pn[k];
    double hw = mark_half_w(f, MARKER_SCALE), hh = mark_half_h(f, MARKER_SCALE);
    int *count = calloc((size_t)s->n + 1, sizeof *count);
    if (!count) {
        f->out_of_memory = 1;
        return;
    }
    for (PLINT j = 0; j < s->n; j++) {
        if (!isfinite(s->x[j]) || !isfinite(s->y[j])) continue;
        PLINT at = j;
        for (PLINT q = 0; q < j; q++)
            if (count[q] > 0 &&
                fabs(page_x(p, s->x[q]) - page_x(p, s->x[j])) < hw &&
                fabs(page_y(p, s->y[q]) - page_y(p, s->y[j])) < hh) {
                at = q;
                break;
            }
        count[at]++;
    }
    /* candidate places: the count's side (+1 right, -1 left, 0 centred)
     * and its rows up from the marker's centre */
    static const double side[] = {1, -1, 1, 1, -1, -1, 0, 0};
    static const double rows[] = {0, 0, 1, -1, 1, -1, 1.6, -1.6};
    for (PLINT j = 0; j < s->n; j++) {
        if (count[j] == 0) continue;
        draw_marker(f, i, s->x[j], s->y[j], MARKER_SCALE, 1, 0);
        if (count[j] < 2) continue;
        char text[32];
        snprintf(text, sizeof text, "\xC3\x97%d", count[j]);
        double th = f->ht * COUNT_SCALE / TEXT_SCALE / f->page_h;
        double tw = CHAR_WIDTH * th * f->page_h * (double)text_chars(text) /
                    f->page_w;
        double cx = page_x(p, s->x[j]), cy = page_y(p, s->y[j]);
        cm_plot_box best = {0, 0, 0, 0};
        int best_bad = -1;
        /* beside the marker first; in a crowd, a ring further out */
        for (int ring = 0; ring < COUNT_RINGS && best_bad != 0; ring++)
            for (size_t c = 0; c < sizeof side / sizeof *side; c++) {
                double gap = (1.1 + 2.0 * ring) * hw;
                double x0 = side[c] > 0   ? cx + gap
                            : side[c] < 0 ? cx - gap - tw
                                          : cx - 0.5 * tw;
                double y = cy + rows[c] * (1 + ring) * fmax(th, 2 * hh);
                cm_plot_box b = {x0, y - 0.5 * th, x0 + tw, y + 0.5 * th};
                int bad = count_conflicts(f, k, &b);
                if (best_bad < 0 || bad < best_bad) {
                    best = b;
                    best_bad = bad;
                }
                if (bad == 0) break;
            }
        PLFLT wx = p->xmin + (best.x0 - p->vx0) / (p->vx1 - p->vx0) *
                                 (p->xmax - p->xmin);
        PLFLT wy = p->ymin + (0.5 * (best.y0 + best.y1) - 0.3 * th - p->vy0) /
                                 (p->vy1 - p->vy0) * (p->ymax - p->ymin);
        plcol0(COL_SERIES + s->colour); /* the count in its series' colour */
        set_chr(COUNT_SCALE);
        plptex(wx, wy, 1.0, 0.0, 0.0, text);
        set_chr(TEXT_SCALE);
        add_mark(f, i, CM_MARK_COUNT, best.x0, best.y0, best.x1, best.y1);
        if (!f->out_of_memory) f->marks[f->nmarks - 1].count = count[j];
    }
    free(count);
}

/* Draws the finite points of one series: error bars, then the line through
 * runs of consecutive finite points, then the markers on top. */
/* Series i's band: a light polygon over each run of points that have
 * it, its edges recorded as the data they are. */
static void draw_band(figure *f, size_t i)
{
    const prep_series *s = &f->ps[i];
    const panel *p = &f->pn[f->spec->series[i].panel];
    if (!s->blo || s->colour < 0) return;
    PLFLT *px = f->bx, *py = f->by; /* 2 n long: the upper edge, then the
                                       lower one back */
    plcol0(COL_BAND + s->colour);
    for (PLINT j = 0, start = 0; j <= s->n; j++) {
        if (j < s->n && isfinite(s->blo[j])) continue;
        PLINT run = j - start;
        if (run >= 2) {
            for (PLINT r = 0; r < run; r++) {
                px[r] = s->x[start + r];
                py[r] = s->bhi[start + r];
                px[2 * run - 1 - r] = s->x[start + r];
                py[2 * run - 1 - r] = s->blo[start + r];
            }
            plfill(2 * run, px, py);
            for (PLINT r = 1; r < 2 * run; r++)
                if (r != run)
                    add_mark(f, i, CM_MARK_SEGMENT, page_x(p, px[r - 1]),
                             page_y(p, py[r - 1]), page_x(p, px[r]),
                             page_y(p, py[r]));
        }
        start = j + 1;
    }
}

static void draw_series(figure *f, size_t i)
{
    const cm_plot_spec *sp = f->spec;
    const cm_plot_series *ser = &sp->series[i];
    const prep_series *s = &f->ps[i];
    const panel *p = &f->pn[ser->panel];
    PLFLT *bx = f->bx, *by = f->by;
    if (s->marker != CM_PLOT_NO_MARKER && sp->style == CM_PLOT_BARS &&
        !ser->line_only) {
        draw_bars(f, i);
        if (s->lo) draw_error_bars(f, i, 1);
        return;
    }
    if (s->lo) draw_error_bars(f, i, 0);
    plcol0(ser->reference ? COL_REF : COL_SERIES + s->colour);
    pllsty(ser->reference ? 3 : 1); /* 3: dashed */
    plwidth((ser->reference ? 1.0 : 1.5) * width_unit(f));
    for (PLINT j = 0, run = 0; s->line && j <= s->n; j++) {
        int ok = j < s->n && isfinite(s->x[j]) && isfinite(s->y[j]);
        if (ok) {
            bx[run] = s->x[j];
            by[run++] = s->y[j];
            continue;
        }
        if (run >= 2) {
            plline(run, bx, by);
            for (PLINT r = 1; r < run; r++)
                add_mark(f, i, CM_MARK_SEGMENT, page_x(p, bx[r - 1]),
                         page_y(p, by[r - 1]), page_x(p, bx[r]),
                         page_y(p, by[r]));
        }
        /* a lone point would vanish in a lines-only plot: mark it */
        if (run == 1 && s->marker == CM_PLOT_NO_MARKER &&
            s->own_marker != CM_PLOT_NO_MARKER)
            draw_marker(f, i, bx[0], by[0], MARKER_SCALE, 0, 0);
        run = 0;
    }
    pllsty(1);
    if (s->marker == CM_PLOT_NO_MARKER) return;
    if (sp->count_overlaps && sp->style == CM_PLOT_POINTS) {
        draw_counted(f, i);
        return;
    }
    /* On a dense line only every stride-th point is marked (staggered
     * between series), enough to tell the series apart. */
    PLINT finite = 0, stride = 1, k = 0;
    for (PLINT j = 0; j < s->n; j++)
        finite += isfinite(s->x[j]) && isfinite(s->y[j]);
    if (s->line && finite > MAX_MARKS)
        stride = (finite + MAX_MARKS - 1) / MAX_MARKS;
    PLINT first = (PLINT)(i * (size_t)stride / sp->nseries);
    for (PLINT j = 0; j < s->n; j++)
        if (isfinite(s->x[j]) && isfinite(s->y[j]) &&
            k++ % stride == first % stride)
            draw_marker(f, i, s->x[j], s->y[j], MARKER_SCALE, 0, 0);
}

/* The legend of panel k where layout put it; records the box drawn. */
static void draw_legend(figure *f, size_t k)
{
    const cm_plot_spec *sp = f->spec;
    panel *p = &f->pn[k];
    size_t n = 0;
    PLINT opt[MAX_SERIES + 1], tcol[MAX_SERIES + 1], lcol[MAX_SERIES + 1],
        lsty[MAX_SERIES + 1], scol[MAX_SERIES + 1], snum[MAX_SERIES + 1],
        bcol[MAX_SERIES + 1], bpat[MAX_SERIES + 1];
    PLFLT lwid[MAX_SERIES + 1], sscale[MAX_SERIES + 1],
        bscale[MAX_SERIES + 1], bwid[MAX_SERIES + 1];
    const char *text[MAX_SERIES + 1], *sym[MAX_SERIES + 1];
    size_t first = 0;
    if (sp->legend_title) {
        /* the heading: a row of text alone */
        pl_text(sp->legend_title, f->labels[0], sizeof f->labels[0]);
        opt[0] = PL_LEGEND_NONE;
        text[0] = f->labels[0];
        tcol[0] = COL_INK;
        lcol[0] = scol[0] = bcol[0] = COL_INK;
        lsty[0] = 1;
        bpat[0] = snum[0] = 0;
        lwid[0] = sscale[0] = bscale[0] = bwid[0] = 0;
        sym[0] = "";
        first = 1;
    }
    for (size_t ei = 0; ei < p->nentries; ei++) {
        const legend_entry *le = &p->entries[ei];
        if (!entry_shown(f, le)) continue;
        size_t e = first + n++;
        const cm_plot_series *s = &sp->series[le->head];
        char *buf = f->labels[e];
        char raw[2 * MAX_LABEL + 8];
        /* a bar's legend text starts with its marker, drawn above it */
        snprintf(raw, sizeof raw, "%s%s%s", le->bar ? markers[le->marker] : "",
                 le->bar ? " " : "", s->label ? s->label : "");
        pl_text(raw, buf, sizeof f->labels[e]);
        opt[e] = le->bar ? PL_LEGEND_COLOR_BOX
                         : (le->line ? PL_LEGEND_LINE : 0) |
                               (le->marker != CM_PLOT_NO_MARKER
                                    ? PL_LEGEND_SYMBOL : 0);
        tcol[e] = COL_INK;
        lcol[e] = le->reference ? COL_REF : COL_SERIES + le->colour;
        scol[e] = COL_SERIES + (le->colour >= 0 ? le->colour : 0);
        bcol[e] = scol[e];
        bpat[e] = 0;
        bscale[e] = 0.75 * text_k;
        bwid[e] = 0.5 * width_unit(f);
        lsty[e] = le->reference ? 3 : 1;
        lwid[e] = (le->reference ? 1.0 : 1.5) * width_unit(f);
        sscale[e] = MARKER_SCALE * text_k;
        snum[e] = 1;
        text[e] = buf;
        sym[e] = le->marker != CM_PLOT_NO_MARKER ? markers[le->marker] : "";
    }
    /* The legend's own viewport: the panel's for an inside corner, the
     * margin beside or below the axes otherwise; the legend sits inside
     * it, so its box is known from the size PLplot returns. */
    double ch = f->ht / f->page_h, cw = f->ht / f->page_w;
    double lx0 = p->vx0, lx1 = p->vx1, ly0 = p->vy0, ly1 = p->vy1;
    PLINT pos = PL_POSITION_INSIDE | PL_POSITION_VIEWPORT;
    double gx = LEGEND_INSET, gy = LEGEND_INSET;
    if (p->where == LEG_INSIDE) {
        pos |= p->corner;
    } else if (p->where == LEG_RIGHT) {
        lx0 = p->vx1 + 1.5 * cw;
        lx1 = 1.0 - 0.5 * cw;
        pos |= PL_POSITION_TOP | PL_POSITION_LEFT;
        gx = 0;
        gy = 0;
    } else {
        lx0 = p->vx0;
        lx1 = p->vx1;
        ly1 = p->vy0 - 4.2 * ch;
        ly0 = ly1 - p->leg_h - 0.2 * ch;
        pos |= PL_POSITION_TOP;
        gx = 0;
        gy = 0;
    }
    plvpor(lx0, lx1, ly0, ly1);
    double lvw = (lx1 - lx0) * f->page_w, lvh = (ly1 - ly0) * f->page_h;
    double hmm = f->ht * LEGEND_SCALE / TEXT_SCALE;
    PLINT cols = p->cols > 0 ? p->cols : 1;
    n += first;
    PLINT rows = ((PLINT)n + cols - 1) / cols;
    PLFLT w, h;
    set_chr(LEGEND_SCALE);
    plwidth(0.5 * width_unit(f));
    pllegend(&w, &h, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX, pos,
             gx * f->page_w / lvw, gy * f->page_h / lvh,
             2.6 * hmm / lvw, COL_PAPER, COL_INK, 1, rows, cols, (PLINT)n,
             opt, 0.8, LEGEND_SCALE * text_k, LEGEND_SPACING, 0.0, tcol, text, bcol,
             bpat, bscale, bwid, lcol, lsty, lwid, scol, sscale, snum, sym);
    set_chr(TEXT_SCALE);
    /* the box drawn, in page coordinates */
    double bw = w * (lx1 - lx0), bh = h * (ly1 - ly0);
    double x0, y1;
    if (pos & PL_POSITION_RIGHT)
        x0 = lx1 - gx - bw;
    else if (pos & PL_POSITION_LEFT)
        x0 = lx0 + gx;
    else
        x0 = (lx0 + lx1 - bw) / 2;
    y1 = (pos & PL_POSITION_TOP) ? ly1 - gy : ly0 + gy + bh;
    p->legend = (cm_plot_box){x0, y1 - bh, x0 + bw, y1};
    p->leg_w = bw;
    p->leg_h = bh;
}

static void draw(figure *f)
{
    PLINT r[NCOL], g[NCOL], b[NCOL];
    PLFLT a[NCOL];
    for (size_t i = 0; i < NCOL; i++) {
        const unsigned char *c = i < COL_SERIES  ? base_colours[i]
                                 : i < COL_FADED ? palette[i - COL_SERIES]
                                 : i < COL_BAND  ? palette[i - COL_FADED]
                                                 : palette[i - COL_BAND];
        r[i] = c[0];
        g[i] = c[1];
        b[i] = c[2];
        a[i] = i >= COL_BAND ? BAND_ALPHA : i >= COL_FADED ? FADED_ALPHA : 1.0;
    }
    /* Everything that shapes the page must precede plinit. */
    plsdev(f->fmt->device);
    plsfnam(f->file);
    plspage(0.0, 0.0, f->width, f->height, 0, 0);
    plscmap0a(r, g, b, a, NCOL);
    plsfont(PL_FCI_SANS, PL_FCI_UPRIGHT, PL_FCI_MEDIUM);
    plinit();
    pladv(0);
    PLFLT sx0, sx1, sy0, sy1, def, ht;
    plgspa(&sx0, &sx1, &sy0, &sy1);
    double one = hypot(f->fmt->width, f->fmt->height);
    text_k = one / hypot(f->width, f->height);
    set_chr(TEXT_SCALE);
    plgchr(&def, &ht);
    f->page_w = sx1 - sx0;
    f->page_h = sy1 - sy0;
    f->ht = ht;
    layout(f);
    f->nmarks = 0;
    for (size_t k = 0; k < f->npanels; k++) {
        draw_axes(f, k);
        for (size_t i = 0; i < f->spec->nseries; i++)
            if (f->spec->series[i].panel == k) draw_band(f, i);
        for (size_t i = 0; i < f->spec->nseries; i++)
            if (f->spec->series[i].panel == k) draw_series(f, i);
    }
    for (size_t k = 0; k < f->npanels; k++)
        if (f->pn[k].where != LEG_NONE) draw_legend(f, k);
    plend1();
}

/* Whether the legends drawn cover a mark or leave the page: then the
 * figure is drawn again with their measured sizes. */
static int legends_misplaced(figure *f)
{
    int bad = 0;
    for (size_t k = 0; k < f->npanels; k++) {
        panel *p = &f->pn[k];
        if (p->where == LEG_NONE) continue;
        int off = p->legend.x0 < 0 || p->legend.x1 > 1 ||
                  p->legend.y0 < 0 || p->legend.y1 > 1;
        int hit = 0;
        for (size_t m = 0; m < f->nmarks && !hit; m++)
            hit = f->marks[m].kind == CM_MARK_SEGMENT
                      ? cm_plot_segment_crosses(&f->marks[m].box, &p->legend)
                      : cm_plot_box_overlap(&f->marks[m].box, &p->legend);
        if (off || hit) bad = 1;
        p->measured = 1; /* leg_w, leg_h are what PLplot drew */
    }
    return bad;
}

/* ---- the record --------------------------------------------------------------- */

static cm_plot_observer observer;
static void *observer_arg;

void cm_plot_set_observer(cm_plot_observer fn, void *arg)
{
    observer = fn;
    observer_arg = arg;
}

static void notify(const figure *f)
{
    if (!observer) return;
    const cm_plot_spec *sp = f->spec;
    cm_plot_series_rec *sr = calloc(sp->nseries, sizeof *sr);
    cm_plot_axis_rec *ax = calloc(2 * f->npanels, sizeof *ax);
    const char **ticks = calloc(2 * f->npanels * MAX_TICKS, sizeof *ticks);
    cm_plot_box *legends = calloc(f->npanels, sizeof *legends);
    cm_plot_box *areas = calloc(f->npanels, sizeof *areas);
    if (sr && ax && legends && areas && ticks) {
        size_t nleg = 0;
        for (size_t i = 0; i < sp->nseries; i++) {
            const prep_series *s = &f->ps[i];
            const cm_plot_series *in = &sp->series[i];
            size_t pts = 0;
            for (PLINT j = 0; j < s->n; j++)
                pts += isfinite(s->x[j]) && isfinite(s->y[j]);
            const cm_plot_series *head =
                &sp->series[f->pn[in->panel].entries[s->entry].head];
            sr[i] = (cm_plot_series_rec){head->label ? head->label : "",
                                         s->entry, s->colour, s->marker,
                                         s->line, in->panel, pts};
        }
        for (size_t k = 0; k < f->npanels; k++) {
            const panel *p = &f->pn[k];
            for (int a = 0; a < 2; a++) {
                const char **t = ticks + (2 * k + (size_t)a) * MAX_TICKS;
                for (size_t j = 0; j < p->nticks[a]; j++) t[j] = p->ticks[a][j];
                ax[2 * k + (size_t)a] = (cm_plot_axis_rec){
                    k, a ? 'y' : 'x',
                    (a ? p->ylabel : p->xlabel) ? (a ? p->ylabel : p->xlabel)
                                                : "",
                    !a && categorical(f), a ? p->logy : p->logx, t,
                    p->nticks[a]};
            }
            areas[k] = (cm_plot_box){p->vx0, p->vy0, p->vx1, p->vy1};
            if (p->where != LEG_NONE) legends[nleg++] = p->legend;
        }
        cm_plot_record rec = {f->path, sp->title ? sp->title : "",
                              f->npanels, sr, sp->nseries, ax,
                              2 * f->npanels, legends, nleg, areas, f->marks,
                              f->nmarks};
        observer(&rec, observer_arg);
    }
    free(sr);
    free(ax);
    free(ticks);
    free(legends);
    free(areas);
}

/* ---- PLplot's error paths ---------------------------------------------------- */

/* Valid only while one figure renders. */
static struct {
    jmp_buf jump;
    int aborted;
    char msg[256];
    PLINT errcode;
    char errbuf[1024]; /* plsError: PLplot writes aborts here, not stderr */
} trap;

static void trap_note(const char *msg)
{
    if (trap.aborted) return; /* the first error is the informative one */
    trap.aborted = 1;
    snprintf(trap.msg, sizeof trap.msg, "%s", msg ? msg : "unknown error");
    size_t n = strlen(trap.msg);
    while (n > 0 && (trap.msg[n - 1] == '\n' || trap.msg[n - 1] == ' '))
        trap.msg[--n] = '\0';
}

static void on_plabort(PLCHAR_VECTOR msg)
{
    trap_note(msg);
}

static int on_plexit(PLCHAR_VECTOR msg)
{
    trap_note(msg);
    longjmp(trap.jump, 1);
}

/* Runs draw() with PLplot's error paths routed here.  Returns 0 if PLplot
 * finished, -1 if it gave up through plexit (its stream is then abandoned:
 * ending a half-built stream can crash, and the case is pathological). */
static int draw_trapped(figure *f)
{
    if (setjmp(trap.jump)) return -1;
    draw(f);
    return 0;
}

static cm_status render_file(figure *f, cm_err *err)
{
    PLINT prev = 0, strm = -1;
    plgstrm(&prev);
    memset(&trap, 0, sizeof trap);
    plsabort(on_plabort);
    plsexit(on_plexit);
    plmkstrm(&strm);
    int finished = 0;
    if (strm >= 0 && strm != prev && !trap.aborted) {
        plsError(&trap.errcode, trap.errbuf);
        finished = draw_trapped(f) == 0;
    }
    plsexit(NULL);
    plsabort(NULL);
    plsstrm(prev);
    if (trap.aborted || !finished)
        return cm_err_set(err, CM_EINTERNAL, "PLplot: %s",
                          trap.aborted ? trap.msg : "failed");
    if (f->out_of_memory)
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    return CM_OK;
}

/* ---- rendering to a file -------------------------------------------------- */

/* Cairo numbers the surfaces of a process in turn and writes the number
 * into every SVG (<g id="surface1687">), so the same figure drawn by
 * another process (a shard of the study) would differ by it.  The id is
 * referred to nowhere; it becomes surface1, and an SVG depends on its
 * figure alone. */
static cm_status normalise_svg(const char *path, cm_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return cm_err_set(err, CM_EINTERNAL, "%s: cannot read", path);
    char *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
        fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (!buf) return cm_err_set(err, CM_EINTERNAL, "%s: cannot read", path);
    buf[n] = '\0';
    static const char tag[] = "id=\"surface";
    char *at = strstr(buf, tag);
    cm_status st = CM_OK;
    if (at) {
        char *digits = at + sizeof tag - 1, *end = digits;
        while (*end >= '0' && *end <= '9') end++;
        f = fopen(path, "wb");
        if (!f ||
            fwrite(buf, 1, (size_t)(digits - buf), f) !=
                (size_t)(digits - buf) ||
            fputs("1", f) == EOF ||
            fwrite(end, 1, (size_t)(buf + n - end), f) !=
                (size_t)(buf + n - end))
            st = cm_err_set(err, CM_EINTERNAL, "%s: cannot write", path);
        if (f && fclose(f) != 0 && !st)
            st = cm_err_set(err, CM_EINTERNAL, "%s: cannot write", path);
    }
    free(buf);
    return st;
}

cm_status cm_plot_render(const cm_plot_spec *spec, const char *path,
                         cm_err *err)
{
    const fig_format *fmt = format_for(path, err);
    if (!fmt) return err ? err->code : CM_EINPUT;
    if (!spec || spec->nseries == 0 || !spec->series)
        return cm_err_set(err, CM_EINPUT, "%s: nothing to plot: no series",
                          path);
    if (spec->nseries > MAX_SERIES)
        return cm_err_set(err, CM_EINPUT,
                          "%s: %zu series; a figure takes at most %d", path,
                          spec->nseries, MAX_SERIES);

    figure *f = calloc(1, sizeof *f);
    if (!f) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    f->spec = spec;
    f->fmt = fmt;
    f->path = path;
    cm_status st = prepare(f, err);
    if (st) {
        figure_free(f);
        free(f);
        return st;
    }
    double grow = 1.0 + PANEL_GROWTH * (double)(f->npanels - 1);
    f->width = fmt->width;
    f->height = (int)lround(fmt->height * grow);

    /* PLplot opens the temporary by name and writes it through a FILE of
     * its own; af.f stays unused, but syncing it at commit syncs the file,
     * which is what fsync acts on. */
    cm_atomic_file af;
    if ((st = cm_atomic_open(&af, path, err))) {
        figure_free(f);
        free(f);
        return st;
    }
    f->file = af.tmp;
    st = render_file(f, err);
    if (!st && legends_misplaced(f)) st = render_file(f, err);
    struct stat sb;
    if (!st && (stat(af.tmp, &sb) != 0 || sb.st_size == 0))
        st = cm_err_set(err, CM_EINTERNAL, "%s: the renderer wrote nothing",
                        path);
    if (!st && !strcmp(fmt->ext, ".svg")) st = normalise_svg(af.tmp, err);
    if (st)
        cm_atomic_abort(&af);
    else
        st = cm_atomic_commit(&af, err);
    if (!st) notify(f);
    figure_free(f);
    free(f);
    return st;
}
