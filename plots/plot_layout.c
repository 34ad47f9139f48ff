/* plot_layout.c - where a figure's parts go on the page (see plot_impl.h):
 * tick labels in plain decimals, the panels' viewports, and the legend in
 * an inside corner where it covers no mark, else beside or below the plot.
 * The legend's size is estimated here; plot.c draws again with the size
 * PLplot measured if the estimate was wrong. */
#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/plot_impl.h"

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

void plot_tick_label(PLINT axis, PLFLT value, char *label, PLINT length,
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
        size_t n = plot_text_chars(buf);
        if (strstr(buf, "#u")) n -= 3;
        if (n > w) w = n;
    }
    return (double)w;
}

/* ---- layout ------------------------------------------------------------------ */

/* Mark boxes of a panel's data with the panel's current viewport, for
 * choosing where the legend goes (the same boxes draw_series records). */
double plot_mark_half_w(const figure *f, double scale)
{
    return MARK_HALF * scale * f->ht / TEXT_SCALE / f->page_w;
}

double plot_mark_half_h(const figure *f, double scale)
{
    return MARK_HALF * scale * f->ht / TEXT_SCALE / f->page_h;
}

/* Whether box b covers any of panel k's data, as it would be drawn. */
static int covers_data(const figure *f, size_t k, const cm_plot_box *b)
{
    const cm_plot_spec *sp = f->spec;
    const panel *p = &f->pn[k];
    double hw = plot_mark_half_w(f, MARKER_SCALE), hh = plot_mark_half_h(f, MARKER_SCALE);
    for (size_t i = 0; i < sp->nseries; i++) {
        if (sp->series[i].panel != k) continue;
        const prep_series *s = &f->ps[i];
        double px = NAN, py = NAN;
        for (PLINT j = 0; j < s->n; j++) {
            if (!isfinite(s->x[j]) || !isfinite(s->y[j])) {
                px = NAN;
                continue;
            }
            double x = plot_page_x(p, s->x[j]), y = plot_page_y(p, s->y[j]);
            cm_plot_box m = {x - hw, y - hh, x + hw, y + hh};
            if (sp->count_overlaps) { /* the count, on either side */
                m.x0 -= 4 * hw;
                m.x1 += 4 * hw;
            }
            if (p->has_bars && s->marker != CM_PLOT_NO_MARKER) {
                double half = (s->slot_hi - s->slot_lo) / 2, base = plot_page_y(p, 0);
                double top = s->lo && isfinite(s->hi[j]) ? plot_page_y(p, s->hi[j])
                                                          : y;
                m.x0 = plot_page_x(p, s->x[j] - half);
                m.x1 = plot_page_x(p, s->x[j] + half);
                m.y0 = fmin(base, y) - (y < base ? 2.6 * hh : 0);
                m.y1 = fmax(fmax(base, y), top) + (y >= base ? 2.6 * hh : 0);
            }
            if (cm_plot_box_overlap(&m, b)) return 1;
            if (s->lo && isfinite(s->lo[j]) && isfinite(s->hi[j])) {
                cm_plot_box e = {x - hw, plot_page_y(p, s->lo[j]), x + hw,
                                 plot_page_y(p, s->hi[j])};
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
int plot_entry_shown(const figure *f, const legend_entry *e)
{
    const char *l = f->spec->series[e->head].label;
    return l && l[0];
}

static size_t entries_shown(const figure *f, const panel *p)
{
    size_t n = 0;
    for (size_t e = 0; e < p->nentries; e++) n += plot_entry_shown(f, &p->entries[e]);
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
    double d = 2.6 * plot_mark_half_h(f, BAR_MARKER_SCALE) + 0.01 * H;
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
void plot_layout(figure *f)
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

