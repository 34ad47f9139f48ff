/* plot_draw.c - a prepared, laid-out figure drawn with PLplot (see
 * plot_impl.h): colours, axes with their labels, bands, series with
 * markers, error bars and counts of repeated points, and the legends.
 * Every mark drawn is recorded in page coordinates for plot.c's check of
 * the legend's place and for the figure tests. */
#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/plot_impl.h"


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


/* Filled markers drawn as text (UTF-8), so the plot and the legend use the
 * very same glyph: circle, square, triangle up, diamond, triangle down,
 * pentagon, heavy cross, star. */
#define NMARKERS 8
static const char *const markers[NMARKERS] = {
    "\xE2\x97\x8F", "\xE2\x96\xA0", "\xE2\x96\xB2", "\xE2\x97\x86",
    "\xE2\x96\xBC", "\xE2\xAC\x9F", "\xE2\x9C\x96", "\xE2\x98\x85",
};

/* PLplot scales its default character height with the page's diagonal;
 * text heights here are relative to a one-panel page's (f->text_k), so a
 * figure with more panels (a taller page) keeps the same font. */
static void set_chr(const figure *f, double scale)
{
    plschr(0.0, scale * f->text_k);
}

/* ---- drawing ----------------------------------------------------------------- */

/* Line widths scale with the page: 1 unit is 1/600 of its width. */
static PLFLT width_unit(const figure *f)
{
    return (PLFLT)f->width / 600.0;
}

/* One label outside the viewport (plmtex side and displacement in
 * characters), in a smaller font if its estimated width exceeds room_mm. */
static void draw_label(const figure *f, const char *side, double disp, double pos,
                       double just, const char *text, double room_mm,
                       double scale)
{
    char buf[2 * MAX_LABEL + 8];
    plot_text_encode(text, buf, sizeof buf);
    if (!buf[0]) return;
    PLFLT def, ht;
    set_chr(f, scale);
    plgchr(&def, &ht);
    double width = CHAR_WIDTH * ht * (double)plot_text_chars(buf);
    double k = width > room_mm ? fmax(room_mm / width, 0.5) : 1.0;
    set_chr(f, scale * k);
    plmtex(side, disp / k, pos, just, buf); /* same distance from the axis */
    set_chr(f, TEXT_SCALE);
}

/* Category names under a categorical axis, shrunk to fit their slots. */
static void draw_categories(const figure *f, panel *p)
{
    const cm_plot_spec *sp = f->spec;
    double slot_mm = (p->vx1 - p->vx0) * f->page_w / (double)sp->ncategories;
    size_t widest = 1;
    for (size_t c = 0; c < sp->ncategories; c++)
        if (plot_text_chars(sp->categories[c]) > widest)
            widest = plot_text_chars(sp->categories[c]);
    double k = 0.92 * slot_mm / (CHAR_WIDTH * f->ht * (double)widest);
    double scale = TEXT_SCALE * fmin(1.0, fmax(k, 0.45));
    for (size_t c = 0; c < sp->ncategories; c++) {
        double pos = ((double)c - p->xmin) / (p->xmax - p->xmin);
        draw_label(f, "b", 1.3 * TEXT_SCALE / scale, pos, 0.5,
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
    set_chr(f, TEXT_SCALE);
    plvpor(p->vx0, p->vx1, p->vy0, p->vy1);
    plwind(p->xmin, p->xmax, p->ymin, p->ymax);
    p->nticks[0] = p->nticks[1] = 0;
    plslabelfunc(plot_tick_label, p);
    plwidth(0.5 * width_unit(f));
    plcol0(COL_GRID);
    int cat = plot_categorical(f);
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
    draw_label(f, "b", 3.0, 0.5, 0.5, p->xlabel, 0.98 * vw, TEXT_SCALE);
    double ydisp = CHAR_WIDTH * p->ytick_chars + 1.6;
    draw_label(f, "l", ydisp, 0.5, 0.5, p->ylabel, 0.98 * vh, TEXT_SCALE);
    if (p->title && p->title[0])
        draw_label(f, "t", 0.8, 0.5, 0.5, p->title, 0.98 * vw, TEXT_SCALE * 0.9);
    if (k == 0 && sp->title && sp->title[0]) {
        double disp = (p->title && p->title[0] ? 2.9 : 1.2);
        /* the figure's title is centred on the page, not on the axes */
        double pos = (0.5 - p->vx0) / (p->vx1 - p->vx0);
        draw_label(f, "t", disp, pos, 0.5, sp->title, 0.96 * f->page_w,
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
    set_chr(f, scale);
    plstring(1, &xx, &yy, markers[m]);
    set_chr(f, TEXT_SCALE);
    double px = plot_page_x(p, xx), py = plot_page_y(p, yy);
    double hw = plot_mark_half_w(f, scale), hh = plot_mark_half_h(f, scale);
    plot_add_mark((figure *)f, i, CM_MARK_MARKER, px - hw, py - hh, px + hw,
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
        plot_add_mark(f, i, CM_MARK_BAR, plot_page_x(p, bx[0]), plot_page_y(p, 0),
                 plot_page_x(p, bx[2]), plot_page_y(p, s->y[j]));
        double top = s->y[j];
        if (s->lo && isfinite(s->hi[j]) && s->y[j] >= 0) top = s->hi[j];
        if (s->lo && isfinite(s->lo[j]) && s->y[j] < 0) top = s->lo[j];
        /* the marker, in ink so it reads on every bar colour's side */
        PLFLT mx = s->x[j], my = top;
        double per_mm = (p->ymax - p->ymin) / ((p->vy1 - p->vy0) * f->page_h);
        my += (s->y[j] >= 0 ? 1 : -1) * mark_mm * per_mm;
        plcol0(COL_INK);
        set_chr(f, mscale);
        plstring(1, &mx, &my, markers[s->marker]);
        set_chr(f, TEXT_SCALE);
        double hw = plot_mark_half_w(f, mscale), hh = plot_mark_half_h(f, mscale);
        plot_add_mark(f, i, CM_MARK_MARKER, plot_page_x(p, mx) - hw, plot_page_y(p, my) - hh,
                 plot_page_x(p, mx) + hw, plot_page_y(p, my) + hh);
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
            double hw = 0.5 * plot_mark_half_w(f, MARKER_SCALE);
            plot_add_mark(f, i, CM_MARK_ERROR_BAR, plot_page_x(p, s->x[j]) - hw,
                     plot_page_y(p, s->lo[j]), plot_page_x(p, s->x[j]) + hw,
                     plot_page_y(p, s->hi[j]));
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
    double hw = plot_mark_half_w(f, MARKER_SCALE), hh = plot_mark_half_h(f, MARKER_SCALE);
    for (size_t i = 0; i < sp->nseries; i++) {
        const prep_series *s = &f->ps[i];
        if (sp->series[i].panel != k || s->marker == CM_PLOT_NO_MARKER)
            continue;
        for (PLINT j = 0; j < s->n; j++) {
            if (!isfinite(s->x[j]) || !isfinite(s->y[j])) continue;
            double x = plot_page_x(p, s->x[j]), y = plot_page_y(p, s->y[j]);
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
    double hw = plot_mark_half_w(f, MARKER_SCALE), hh = plot_mark_half_h(f, MARKER_SCALE);
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
                fabs(plot_page_x(p, s->x[q]) - plot_page_x(p, s->x[j])) < hw &&
                fabs(plot_page_y(p, s->y[q]) - plot_page_y(p, s->y[j])) < hh) {
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
        double tw = CHAR_WIDTH * th * f->page_h * (double)plot_text_chars(text) /
                    f->page_w;
        double cx = plot_page_x(p, s->x[j]), cy = plot_page_y(p, s->y[j]);
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
        set_chr(f, COUNT_SCALE);
        plptex(wx, wy, 1.0, 0.0, 0.0, text);
        set_chr(f, TEXT_SCALE);
        plot_add_mark(f, i, CM_MARK_COUNT, best.x0, best.y0, best.x1, best.y1);
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
                    plot_add_mark(f, i, CM_MARK_SEGMENT, plot_page_x(p, px[r - 1]),
                             plot_page_y(p, py[r - 1]), plot_page_x(p, px[r]),
                             plot_page_y(p, py[r]));
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
                plot_add_mark(f, i, CM_MARK_SEGMENT, plot_page_x(p, bx[r - 1]),
                         plot_page_y(p, by[r - 1]), plot_page_x(p, bx[r]),
                         plot_page_y(p, by[r]));
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
        plot_text_encode(sp->legend_title, f->labels[0], sizeof f->labels[0]);
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
        if (!plot_entry_shown(f, le)) continue;
        size_t e = first + n++;
        const cm_plot_series *s = &sp->series[le->head];
        char *buf = f->labels[e];
        char raw[2 * MAX_LABEL + 8];
        /* a bar's legend text starts with its marker, drawn above it */
        snprintf(raw, sizeof raw, "%s%s%s", le->bar ? markers[le->marker] : "",
                 le->bar ? " " : "", s->label ? s->label : "");
        plot_text_encode(raw, buf, sizeof f->labels[e]);
        opt[e] = le->bar ? PL_LEGEND_COLOR_BOX
                         : (le->line ? PL_LEGEND_LINE : 0) |
                               (le->marker != CM_PLOT_NO_MARKER
                                    ? PL_LEGEND_SYMBOL : 0);
        tcol[e] = COL_INK;
        lcol[e] = le->reference ? COL_REF : COL_SERIES + le->colour;
        scol[e] = COL_SERIES + (le->colour >= 0 ? le->colour : 0);
        bcol[e] = scol[e];
        bpat[e] = 0;
        bscale[e] = 0.75 * f->text_k;
        bwid[e] = 0.5 * width_unit(f);
        lsty[e] = le->reference ? 3 : 1;
        lwid[e] = (le->reference ? 1.0 : 1.5) * width_unit(f);
        sscale[e] = MARKER_SCALE * f->text_k;
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
    set_chr(f, LEGEND_SCALE);
    plwidth(0.5 * width_unit(f));
    pllegend(&w, &h, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX, pos,
             gx * f->page_w / lvw, gy * f->page_h / lvh,
             2.6 * hmm / lvw, COL_PAPER, COL_INK, 1, rows, cols, (PLINT)n,
             opt, 0.8, LEGEND_SCALE * f->text_k, LEGEND_SPACING, 0.0, tcol, text, bcol,
             bpat, bscale, bwid, lcol, lsty, lwid, scol, sscale, snum, sym);
    set_chr(f, TEXT_SCALE);
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

void plot_draw(figure *f)
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
    f->text_k = one / hypot(f->width, f->height);
    set_chr(f, TEXT_SCALE);
    plgchr(&def, &ht);
    f->page_w = sx1 - sx0;
    f->page_h = sy1 - sy0;
    f->ht = ht;
    plot_layout(f);
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
int plot_legends_misplaced(figure *f)
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

