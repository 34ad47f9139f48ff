/* plot.c - cohmod's figures on PLplot's cairo driver (see plot.h).
 *
 * The look is set here once, so every figure in a study matches and can go
 * into a paper unedited:
 *   - white page, black axes and text: PLplot's own default is a black page
 *     with red ink, which no journal prints;
 *   - sans-serif text at ~1/40 of the figure width, so labels stay legible
 *     when the figure is shrunk to one column;
 *   - the Okabe-Ito palette, distinguishable under every common form of
 *     colour blindness, and a different filled marker per series, so the
 *     series stay apart in greyscale print too;
 *   - a light grey grid behind the data, axis labels with units (shrunk
 *     rather than cut when too long), a legend in the corner that hides the
 *     fewest points, error bars where the data has intervals, markers on
 *     at most ~20 points of a dense line so they do not merge into a band;
 *   - log axes that always show two labelled powers of ten;
 *   - line widths proportional to the page, so a PNG and a PDF of the same
 *     figure look the same.
 *
 * The extension picks the cairo device: .png (1200x900 pixels), .svg and
 * .pdf (460x345 points, i.e. 6.4x4.8 in).  PLplot renders into a temporary
 * file beside the target, which is renamed over it only when complete.
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
#include "data/columns.h"

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

/* Colour map 0: PLplot draws with these indices. */
enum { COL_PAPER = 0, COL_INK = 1, COL_GRID = 2, COL_SERIES = 3, NSERIES_COL = 8,
       COL_BAND = COL_SERIES + NSERIES_COL /* a band's tint, set per band */ };
#define BAND_ALPHA 0.22 /* light enough for points and lines to show */

static const unsigned char palette[COL_SERIES + NSERIES_COL][3] = {
    {0xFF, 0xFF, 0xFF}, /* paper */
    {0x00, 0x00, 0x00}, /* ink: axes, text, legend frame */
    {0xD9, 0xD9, 0xD9}, /* grid */
    /* Okabe & Ito, "Color Universal Design" (2008), blue first */
    {0x00, 0x72, 0xB2}, {0xD5, 0x5E, 0x00}, {0x00, 0x9E, 0x73},
    {0xCC, 0x79, 0xA7}, {0xE6, 0x9F, 0x00}, {0x56, 0xB4, 0xE9},
    {0xF0, 0xE4, 0x42}, {0x00, 0x00, 0x00},
};

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
#define LEGEND_SCALE 1.0   /* legend text height, same reference */
#define RANGE_MARGIN 0.05  /* empty fraction added at each end of an axis */
#define MAX_LABEL 200      /* longest text handed to PLplot (it takes 500) */
#define MAX_SERIES 64      /* beyond this a figure is unreadable */
#define LEGEND_ROWS 12     /* a longer legend wraps into more columns */
#define MAX_MARKS 20       /* markers on a line; more would merge into a band */
#define CHAR_WIDTH 0.72    /* mean glyph width per character height (DejaVu) */

/* Series i's colour and marker.  Past 8 series the marker shifts against
 * the colour, so the first 64 (colour, marker) pairs are all distinct. */
static PLINT series_colour(size_t i)
{
    return (PLINT)(COL_SERIES + i % NSERIES_COL);
}

static const char *series_marker(size_t i)
{
    return markers[(i + i / NSERIES_COL) % NMARKERS];
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

static const char *series_name(const cm_plot_series *s, size_t i, char *buf,
                               size_t len)
{
    if (s->label && s->label[0]) return s->label;
    snprintf(buf, len, "#%zu", i + 1);
    return buf;
}

/* ---- data, prepared for drawing ------------------------------------------ */

/* Coordinates as PLplot sees them: log10 on log axes, NaN where a value is
 * not drawn. */
typedef struct prep_series {
    PLFLT *x, *y, *lo, *hi; /* lo, hi NULL: no error bars */
    PLFLT *blo, *bhi;       /* NULL: no band */
    PLINT n;
} prep_series;

typedef struct axis_range {
    double lo, hi;
    int any;
} axis_range;

typedef struct figure {
    const cm_plot_spec *spec;
    const cm_plot_band *bands; /* NULL: none */
    const fig_format *fmt;
    const char *file; /* the temporary file PLplot writes */
    prep_series *ps;
    PLFLT *bx, *by, *bz; /* scratch, as long as the longest series */
    double xmin, xmax, ymin, ymax; /* window, in PLplot coordinates */
    int legend;
} figure;

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
}

/* Series i's band in PLplot coordinates: NaN where it is missing or, on a
 * log axis, not positive (a band is never an error: it just breaks). */
static cm_status prep_band(const cm_plot_spec *sp, const cm_plot_band *b,
                           prep_series *p, axis_range *yr, cm_err *err)
{
    size_t bytes = (p->n ? (size_t)p->n : 1) * sizeof(PLFLT);
    p->blo = malloc(bytes);
    p->bhi = malloc(bytes);
    if (!p->blo || !p->bhi)
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (PLINT j = 0; j < p->n; j++) {
        double lo = b->lo[j], hi = b->hi[j];
        int ok = isfinite(lo) && isfinite(hi) && isfinite(p->x[j]) &&
                 (!sp->logy || (lo > 0 && hi > 0));
        p->blo[j] = ok ? (sp->logy ? log10(lo) : lo) : NAN;
        p->bhi[j] = ok ? (sp->logy ? log10(hi) : hi) : NAN;
        if (ok) {
            range_add(yr, p->blo[j]);
            range_add(yr, p->bhi[j]);
        }
    }
    return CM_OK;
}

static cm_status prep_one(const cm_plot_spec *sp, size_t i, prep_series *p,
                          axis_range *xr, axis_range *yr, cm_err *err)
{
    const cm_plot_series *s = &sp->series[i];
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
    for (size_t j = 0; j < s->n; j++) {
        cm_status st;
        if ((st = prep_value(s->x[j], sp->logx, s, i, j, "x", sp->xlabel,
                             &p->x[j], err)) ||
            (st = prep_value(s->y[j], sp->logy, s, i, j, "y", sp->ylabel,
                             &p->y[j], err)))
            return st;
        if (s->ylo &&
            ((st = prep_value(s->ylo[j], sp->logy, s, i, j, "y",
                              sp->ylabel, &p->lo[j], err)) ||
             (st = prep_value(s->yhi[j], sp->logy, s, i, j, "y",
                              sp->ylabel, &p->hi[j], err))))
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

static cm_status prepare(const cm_plot_spec *sp, figure *f, cm_err *err)
{
    f->ps = calloc(sp->nseries, sizeof *f->ps);
    if (!f->ps) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    axis_range xr = {0, 0, 0}, yr = {0, 0, 0};
    for (size_t i = 0; i < sp->nseries; i++) {
        cm_status st = prep_one(sp, i, &f->ps[i], &xr, &yr, err);
        if (!st && f->bands && f->bands[i].lo && f->bands[i].hi)
            st = prep_band(sp, &f->bands[i], &f->ps[i], &yr, err);
        if (st) return st;
        if (sp->series[i].label && sp->series[i].label[0]) f->legend = 1;
    }
    if (!xr.any)
        return cm_err_set(err, CM_EINPUT,
                          "nothing to plot: no point has finite x and y");
    size_t maxn = 1;
    for (size_t i = 0; i < sp->nseries; i++)
        if ((size_t)f->ps[i].n > maxn) maxn = (size_t)f->ps[i].n;
    f->bx = malloc(2 * maxn * sizeof *f->bx); /* a band's polygon */
    f->by = malloc(2 * maxn * sizeof *f->by);
    f->bz = malloc(maxn * sizeof *f->bz);
    if (!f->bx || !f->by || !f->bz)
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st;
    if ((st = axis_window(xr, sp->logx, "x", &f->xmin, &f->xmax, err)) ||
        (st = axis_window(yr, sp->logy, "y", &f->ymin, &f->ymax, err)))
        return st;
    return CM_OK;
}

/* ---- drawing ----------------------------------------------------------------- */

/* Line widths scale with the page: 1 unit is 1/600 of its width. */
static PLFLT width_unit(const figure *f)
{
    return (PLFLT)f->fmt->width / 600.0;
}

/* One label outside the viewport (plmtex side and displacement in
 * characters), in a smaller font if its estimated width exceeds room_mm. */
static void draw_label(const char *side, double disp, const char *text,
                       double room_mm)
{
    char buf[2 * MAX_LABEL + 8];
    pl_text(text, buf, sizeof buf);
    if (!buf[0]) return;
    size_t chars = 0;
    for (const char *c = buf; *c; c++) chars += ((unsigned char)*c & 0xC0) != 0x80;
    PLFLT def, ht;
    plgchr(&def, &ht);
    double width = CHAR_WIDTH * ht * (double)chars;
    double k = width > room_mm ? fmax(room_mm / width, 0.5) : 1.0;
    plschr(0.0, TEXT_SCALE * k);
    plmtex(side, disp / k, 0.5, 0.5, buf); /* same distance from the axis */
    plschr(0.0, TEXT_SCALE);
}

static void draw_axes(const figure *f)
{
    const cm_plot_spec *sp = f->spec;
    pladv(0);
    plschr(0.0, TEXT_SCALE);
    /* PLplot's standard viewport leaves room for labels on every side; the
     * right carries none, so give it to the data.  (The top keeps its room:
     * the title and PLplot's "(x10^k)" axis scale go there.) */
    PLFLT vx0, vx1, vy0, vy1, sx0, sx1, sy0, sy1, def, ht;
    plvsta();
    plgvpd(&vx0, &vx1, &vy0, &vy1);
    plgspa(&sx0, &sx1, &sy0, &sy1);
    plgchr(&def, &ht);
    if (sx1 > sx0 && sy1 > sy0) {
        vx1 = fmax(vx1, 1.0 - 2.5 * ht / (sx1 - sx0));
        plvpor(vx0, vx1, vy0, vy1);
    }
    plwind(f->xmin, f->xmax, f->ymin, f->ymax);
    plwidth(0.5 * width_unit(f));
    plcol0(COL_GRID);
    plbox(sp->logx ? "gl" : "g", 0.0, 0, sp->logy ? "gl" : "g", 0.0, 0);
    plwidth(0.8 * width_unit(f));
    plcol0(COL_INK);
    plbox(sp->logx ? "bcnstl" : "bcnst", 0.0, 0,
          sp->logy ? "bcnstvl" : "bcnstv", 0.0, 0);
    /* The labels sit where pllab puts them, centred on the viewport, and
     * shrink when they would run off the page. */
    double cx = (vx0 + vx1) / 2, cy = (vy0 + vy1) / 2;
    double room_x = 0.9 * 2 * fmin(cx, 1 - cx) * (sx1 - sx0);
    double room_y = 0.9 * 2 * fmin(cy, 1 - cy) * (sy1 - sy0);
    draw_label("b", 3.2, sp->xlabel, room_x);
    draw_label("l", 5.0, sp->ylabel, room_y);
    draw_label("t", 2.0, sp->title, room_x);
}

/* Shades series i's band over each run of consecutive points that have
 * one: the polygon along its upper edge and back along its lower. */
static void draw_band(const figure *f, size_t i)
{
    const prep_series *p = &f->ps[i];
    if (!p->blo) return;
    const unsigned char *c = palette[series_colour(i)];
    plscol0a(COL_BAND, c[0], c[1], c[2], BAND_ALPHA);
    plcol0(COL_BAND);
    PLFLT *bx = f->bx, *by = f->by;
    for (PLINT j = 0, start = 0; j <= p->n; j++) {
        if (j < p->n && isfinite(p->blo[j])) continue;
        PLINT run = j - start, k = 0;
        for (PLINT m = start; run >= 2 && m < j; m++) {
            bx[k] = p->x[m];
            by[k++] = p->bhi[m];
        }
        for (PLINT m = j - 1; run >= 2 && m >= start; m--) {
            bx[k] = p->x[m];
            by[k++] = p->blo[m];
        }
        if (run >= 2) plfill(k, bx, by);
        start = j + 1;
    }
}

/* Draws the finite points of one series: error bars, then the line through
 * runs of consecutive finite points, then the markers on top. */
static void draw_series(const figure *f, size_t i)
{
    const prep_series *p = &f->ps[i];
    PLFLT *bx = f->bx, *by = f->by, *bz = f->bz;
    cm_plot_style style =
        f->spec->series[i].line_only ? CM_PLOT_LINES : f->spec->style;
    PLINT n = 0;
    plcol0(series_colour(i));
    pllsty(1);
    if (p->lo) {
        for (PLINT j = 0; j < p->n; j++)
            if (isfinite(p->x[j]) && isfinite(p->lo[j]) &&
                isfinite(p->hi[j])) {
                bx[n] = p->x[j];
                by[n] = p->lo[j];
                bz[n++] = p->hi[j];
            }
        plwidth(0.8 * width_unit(f));
        if (n > 0) plerry(n, bx, by, bz);
    }
    plwidth(1.5 * width_unit(f));
    n = 0; /* points for markers */
    for (PLINT j = 0, run = 0; j <= p->n; j++) {
        int ok = j < p->n && isfinite(p->x[j]) && isfinite(p->y[j]);
        if (ok) {
            bx[run] = p->x[j];
            by[run++] = p->y[j];
            continue;
        }
        if (style != CM_PLOT_POINTS && run >= 2) plline(run, bx, by);
        /* a lone point would vanish in a lines-only plot: mark it */
        if (style == CM_PLOT_LINES && run == 1) {
            plschr(0.0, MARKER_SCALE);
            plstring(1, bx, by, series_marker(i));
            plschr(0.0, TEXT_SCALE);
        }
        run = 0;
    }
    if (style == CM_PLOT_LINES) return;
    /* On a dense line only every stride-th point is marked (staggered
     * between series), enough to tell the series apart. */
    PLINT finite = 0, stride = 1, k = 0;
    for (PLINT j = 0; j < p->n; j++)
        finite += isfinite(p->x[j]) && isfinite(p->y[j]);
    if (style == CM_PLOT_LINES_POINTS && finite > MAX_MARKS)
        stride = (finite + MAX_MARKS - 1) / MAX_MARKS;
    PLINT first = (PLINT)(i * (size_t)stride / f->spec->nseries);
    for (PLINT j = 0; j < p->n; j++)
        if (isfinite(p->x[j]) && isfinite(p->y[j]) &&
            k++ % stride == first % stride) {
            bx[n] = p->x[j];
            by[n++] = p->y[j];
        }
    plschr(0.0, MARKER_SCALE);
    if (n > 0) plstring(n, bx, by, series_marker(i));
    plschr(0.0, TEXT_SCALE);
}

/* The legend goes to the inside corner that covers the fewest points,
 * judged from an estimate of its size. */
static PLINT legend_corner(const figure *f, size_t maxchars, PLINT rows,
                           PLINT cols)
{
    static const PLINT corners[4] = {
        PL_POSITION_TOP | PL_POSITION_RIGHT, PL_POSITION_TOP | PL_POSITION_LEFT,
        PL_POSITION_BOTTOM | PL_POSITION_RIGHT,
        PL_POSITION_BOTTOM | PL_POSITION_LEFT};
    PLFLT def, ht, sx0, sx1, sy0, sy1, vx0, vx1, vy0, vy1;
    plgchr(&def, &ht);
    plgspa(&sx0, &sx1, &sy0, &sy1);
    plgvpd(&vx0, &vx1, &vy0, &vy1);
    double vw = (vx1 - vx0) * (sx1 - sx0), vh = (vy1 - vy0) * (sy1 - sy0);
    double h = ht; /* the caller set the legend's text height */
    double lw = cols * (0.1 + (3.0 + 0.55 * (double)maxchars) * h /
                                  (vw > 0 ? vw : 1));
    double lh = (1.0 + 2.0 * rows) * h / (vh > 0 ? vh : 1);
    size_t best = 0, best_count = (size_t)-1;
    for (size_t c = 0; c < 4; c++) {
        int right = (corners[c] & PL_POSITION_RIGHT) != 0;
        int top = (corners[c] & PL_POSITION_TOP) != 0;
        size_t count = 0;
        for (size_t i = 0; i < f->spec->nseries; i++) {
            const prep_series *p = &f->ps[i];
            for (PLINT j = 0; j < p->n; j++) {
                double u = (p->x[j] - f->xmin) / (f->xmax - f->xmin);
                double v = (p->y[j] - f->ymin) / (f->ymax - f->ymin);
                if (!isfinite(u) || !isfinite(v)) continue;
                int in_x = right ? u >= 1.0 - lw : u <= lw;
                int in_y = top ? v >= 1.0 - lh : v <= lh;
                count += in_x && in_y;
            }
        }
        if (count < best_count) {
            best = c;
            best_count = count;
        }
    }
    return corners[best];
}

static void draw_legend(const figure *f)
{
    const cm_plot_spec *sp = f->spec;
    size_t n = sp->nseries, maxchars = 0;
    PLINT opt[MAX_SERIES], tcol[MAX_SERIES], lcol[MAX_SERIES],
        lsty[MAX_SERIES], scol[MAX_SERIES], snum[MAX_SERIES];
    PLFLT lwid[MAX_SERIES], sscale[MAX_SERIES];
    const char *text[MAX_SERIES], *sym[MAX_SERIES];
    char buf[MAX_SERIES][2 * MAX_LABEL + 8];
    PLINT what = sp->style == CM_PLOT_LINES    ? PL_LEGEND_LINE
                 : sp->style == CM_PLOT_POINTS ? PL_LEGEND_SYMBOL
                                               : PL_LEGEND_LINE |
                                                     PL_LEGEND_SYMBOL;
    for (size_t i = 0; i < n; i++) {
        pl_text(sp->series[i].label ? sp->series[i].label : "", buf[i],
                sizeof buf[i]);
        size_t len = strlen(buf[i]);
        if (len > maxchars) maxchars = len;
        opt[i] = sp->series[i].line_only ? PL_LEGEND_LINE : what;
        tcol[i] = COL_INK;
        lcol[i] = scol[i] = series_colour(i);
        lsty[i] = 1;
        lwid[i] = 1.5 * width_unit(f);
        sscale[i] = MARKER_SCALE;
        snum[i] = 1;
        text[i] = buf[i];
        sym[i] = series_marker(i);
    }
    PLINT cols = (PLINT)((n + LEGEND_ROWS - 1) / LEGEND_ROWS);
    PLINT rows = ((PLINT)n + cols - 1) / cols;
    PLFLT w, h;
    plschr(0.0, LEGEND_SCALE);
    plwidth(0.5 * width_unit(f));
    pllegend(&w, &h, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
             PL_POSITION_INSIDE | PL_POSITION_VIEWPORT |
                 legend_corner(f, maxchars, rows, cols),
             0.02, 0.02, 0.08, COL_PAPER, COL_INK, 1, rows, cols, (PLINT)n,
             opt,
             0.8, LEGEND_SCALE, 1.8, 0.0, tcol, text, NULL, NULL, NULL, NULL,
             lcol,
             lsty, lwid, scol, sscale, snum, sym);
    plschr(0.0, TEXT_SCALE);
}

static void draw(const figure *f)
{
    PLINT r[COL_BAND + 1], g[COL_BAND + 1], b[COL_BAND + 1];
    for (size_t i = 0; i <= COL_BAND; i++) { /* the band's: paper until set */
        r[i] = palette[i < COL_BAND ? i : COL_PAPER][0];
        g[i] = palette[i < COL_BAND ? i : COL_PAPER][1];
        b[i] = palette[i < COL_BAND ? i : COL_PAPER][2];
    }
    /* Everything that shapes the page must precede plinit. */
    plsdev(f->fmt->device);
    plsfnam(f->file);
    plspage(0.0, 0.0, f->fmt->width, f->fmt->height, 0, 0);
    plscmap0(r, g, b, COL_BAND + 1);
    plsfont(PL_FCI_SANS, PL_FCI_UPRIGHT, PL_FCI_MEDIUM);
    plinit();
    draw_axes(f);
    for (size_t i = 0; i < f->spec->nseries; i++) draw_band(f, i);
    for (size_t i = 0; i < f->spec->nseries; i++) draw_series(f, i);
    if (f->legend) draw_legend(f);
    plend1();
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
static int draw_trapped(const figure *f)
{
    if (setjmp(trap.jump)) return -1;
    draw(f);
    return 0;
}

static cm_status render_file(const figure *f, cm_err *err)
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
    return CM_OK;
}

/* ---- rendering to a file -------------------------------------------------- */

cm_status cm_plot_render(const cm_plot_spec *spec, const char *path,
                         cm_err *err)
{
    return cm_plot_render_bands(spec, NULL, path, err);
}

cm_status cm_plot_render_bands(const cm_plot_spec *spec,
                               const cm_plot_band *bands, const char *path,
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

    figure f = {.spec = spec, .bands = bands, .fmt = fmt};
    cm_status st = prepare(spec, &f, err);
    if (st) {
        figure_free(&f);
        return st;
    }

    /* PLplot opens the temporary by name and writes it through a FILE of
     * its own; af.f stays unused, but syncing it at commit syncs the file,
     * which is what fsync acts on. */
    cm_atomic_file af;
    if ((st = cm_atomic_open(&af, path, err))) {
        figure_free(&f);
        return st;
    }
    f.file = af.tmp;
    st = render_file(&f, err);
    struct stat sb;
    if (!st && (stat(af.tmp, &sb) != 0 || sb.st_size == 0))
        st = cm_err_set(err, CM_EINTERNAL, "%s: the renderer wrote nothing",
                        path);
    if (st)
        cm_atomic_abort(&af);
    else
        st = cm_atomic_commit(&af, err);
    figure_free(&f);
    return st;
}

/* ---- tables ------------------------------------------------------------------- */

void cm_plot_axis_label(const char *column, char *buf, size_t len)
{
    if (!buf || len == 0) return;
    const char *unit = column ? cm_column_unit(column) : NULL;
    if (unit)
        snprintf(buf, len, "%s (%s)", column, unit);
    else
        snprintf(buf, len, "%s", column ? column : "");
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
    cm_plot_band *bands;      /* per series */
    double *band_arena;
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
    free(tp->bands);
    free(tp->band_arena);
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
                                 "values; a figure takes at most %d series",
                                 by, nmax, MAX_SERIES);
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
        snprintf(buf, len, "%s", unit);
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
    if (o->ny > MAX_SERIES)
        return cm_err_set(err, CM_EINPUT,
                          "%zu y columns; a figure takes at most %d", o->ny,
                          MAX_SERIES);
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
            if (ec >= 0 && (st = read_column(t, (size_t)ec, 0, &tp->err[k],
                                             err)))
                return st;
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

/* Series s's band from y column k's error, in band (2 arrays of s's
 * size): y +- err, or y (1 +- err) for a relative one. */
static void gather_band(const table_plot *tp, size_t nrows, size_t g,
                        size_t k, const cm_plot_series *s, double *band,
                        cm_plot_band *b)
{
    double *lo = band, *hi = band + s->n;
    size_t m = 0;
    for (size_t r = 0; r < nrows; r++) {
        if (tp->group[r] != g) continue;
        double y = tp->y[k][r], e = fabs(tp->err[k][r]);
        double half = tp->rel[k] ? e * fabs(y) : e;
        lo[m] = y - half;
        hi[m++] = y + half;
    }
    *b = (cm_plot_band){lo, hi};
}

/* Gathers the rows of group g into series s, for y column k; mem has room
 * for 4 arrays of the group's size. */
static void gather(const table_plot *tp, size_t nrows, size_t g, size_t k,
                   size_t size, double *mem, cm_plot_series *s)
{
    size_t m = 0;
    double *x = mem, *y = mem + size, *lo = mem + 2 * size,
           *hi = mem + 3 * size;
    for (size_t r = 0; r < nrows; r++) {
        if (tp->group[r] != g) continue;
        x[m] = tp->x[r];
        y[m] = tp->y[k][r];
        if (tp->lo) {
            lo[m] = tp->lo[r];
            hi[m] = tp->hi[r];
        }
        m++;
    }
    s->x = x;
    s->y = y;
    s->ylo = tp->lo ? lo : NULL;
    s->yhi = tp->lo ? hi : NULL;
    s->n = m;
}

cm_status cm_plot_table(const cm_table *t, const cm_plot_table_opts *o,
                        const char *path, cm_err *err)
{
    cm_status st = check_table_opts(o, err);
    if (st) return st;
    if (!format_for(path, err)) return CM_EINPUT;
    table_plot tp;
    memset(&tp, 0, sizeof tp);
    long bycol = -1;
    if ((st = read_columns(t, o, &bycol, &tp, err)) ||
        (st = group_rows(t, o->by, bycol, MAX_SERIES / o->ny, &tp, err))) {
        table_plot_free(&tp);
        return st;
    }
    size_t nrows = cm_table_nrows(t), ns = tp.ngroups * o->ny;
    size_t size[MAX_SERIES] = {0}, used = 0;
    for (size_t r = 0; r < nrows; r++) size[tp.group[r]]++;
    tp.series = calloc(ns, sizeof *tp.series);
    tp.arena = malloc((4 * nrows * o->ny + 1) * sizeof *tp.arena);
    tp.labels = calloc(ns, sizeof *tp.labels);
    tp.bands = calloc(ns, sizeof *tp.bands);
    tp.band_arena = malloc((2 * nrows * o->ny + 1) * sizeof *tp.band_arena);
    if (!tp.series || !tp.arena || !tp.labels || !tp.bands ||
        !tp.band_arena) {
        table_plot_free(&tp);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    for (size_t g = 0; g < tp.ngroups; g++)
        for (size_t k = 0; k < o->ny; k++) {
            size_t i = g * o->ny + k;
            gather(&tp, nrows, g, k, size[g], tp.arena + used,
                   &tp.series[i]);
            if (tp.err[k])
                gather_band(&tp, nrows, g, k, &tp.series[i],
                            tp.band_arena + used / 2, &tp.bands[i]);
            used += 4 * size[g];
            char *lb = tp.labels[i];
            size_t lbn = sizeof tp.labels[i];
            if (bycol >= 0 && nrows > 0)
                snprintf(lb, lbn, "%s%s%s=%s", o->ny > 1 ? o->y[k] : "",
                         o->ny > 1 ? " " : "", o->by,
                         cm_table_cell(t, tp.first[g], (size_t)bycol));
            else if (o->ny > 1 || tp.err[k])
                snprintf(lb, lbn, "%s", o->y[k]);
            if (tp.err[k]) { /* the shade says what it is */
                size_t len = strlen(lb);
                snprintf(lb + len, lbn - len, " (shade: held-out error)");
            }
            tp.series[i].label = lb[0] ? lb : NULL;
        }
    char xl[256], yl[512];
    cm_plot_axis_label(o->x, xl, sizeof xl);
    y_axis_label(o, yl, sizeof yl);
    cm_plot_spec spec = {o->title, xl,     yl, o->logx, o->logy,
                         o->style, tp.series, ns};
    st = cm_plot_render_bands(&spec, tp.bands, path, err);
    table_plot_free(&tp);
    return st;
}
