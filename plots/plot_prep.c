/* plot_prep.c - a figure's data made ready for PLplot (see plot_impl.h):
 * the spec checked, a style (colour, marker, line) per series and legend
 * entry, values on log axes as log10, categories moved to their slots, and
 * each panel's axis ranges. */
#include <limits.h>
#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/plot_impl.h"

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
                              plot_series_name(s, si, nb, sizeof nb), axis, j + 1,
                              axis_label && axis_label[0] ? axis_label : axis,
                              v);
        }
        v = log10(v);
    }
    *out = v;
    return CM_OK;
}

void plot_figure_free(figure *f)
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

int plot_categorical(const figure *f)
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
                              plot_series_name(s, i, nb, sizeof nb), s->panel + 1,
                              *npanels);
        if (sp->categories && s->line_only && !s->reference)
            return cm_err_set(err, CM_EINPUT,
                              "series '%s': lines must not join categories",
                              plot_series_name(s, i, nb, sizeof nb));
        if (s->with_previous &&
            (i == 0 || sp->series[i - 1].panel != s->panel ||
             sp->series[i - 1].reference || s->reference))
            return cm_err_set(err, CM_EINPUT,
                              "series '%s': shares the colour of no series "
                              "before it in its panel",
                              plot_series_name(s, i, nb, sizeof nb));
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
                        plot_series_name(s, i, nb, sizeof nb), NPAL);
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
                              plot_series_name(&sp->series[e->head], e->head, na,
                                          sizeof na),
                              plot_series_name(s, i, nb, sizeof nb));
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
                          plot_series_name(s, i, nb, sizeof nb));
    if (s->n > 0 && (!s->x || !s->y))
        return cm_err_set(err, CM_EINTERNAL, "series '%s': no data",
                          plot_series_name(s, i, nb, sizeof nb));
    if (!s->ylo != !s->yhi)
        return cm_err_set(err, CM_EINPUT,
                          "series '%s': error bars need both a low and a "
                          "high bound",
                          plot_series_name(s, i, nb, sizeof nb));
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
    if (plot_categorical(f) && !s->reference) {
        double w = BAR_SPAN / (double)(pn->nslots ? pn->nslots : 1);
        int slot = p->colour >= 0 ? p->colour : 0;
        p->slot_lo = -BAR_SPAN / 2 + w * slot + 0.08 * w;
        p->slot_hi = -BAR_SPAN / 2 + w * (slot + 1) - 0.08 * w;
        off = (p->slot_lo + p->slot_hi) / 2;
    }
    int logx = pn->logx;
    for (size_t j = 0; j < s->n; j++) {
        cm_status st;
        if (plot_categorical(f)) {
            double c = s->x[j];
            int ok = s->reference
                         ? c >= -0.5 && c <= (double)sp->ncategories - 0.5
                         : c >= 0 && c < (double)sp->ncategories &&
                               c == floor(c);
            if (isfinite(c) && !ok)
                return cm_err_set(err, CM_EINPUT,
                                  "series '%s': point %zu is at category "
                                  "%g of %zu",
                                  plot_series_name(s, i, nb, sizeof nb), j + 1, c,
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

cm_status plot_prepare(figure *f, cm_err *err)
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
        if (plot_categorical(f)) {
            p->xmin = -0.5;
            p->xmax = (double)sp->ncategories - 0.5;
        } else if ((st = axis_window(xr[k], p->logx, "x", &p->xmin,
                                     &p->xmax, err)))
            return st;
        if (sp->legend_title && p->nentries)
            p->maxchars = plot_text_chars(sp->legend_title);
        for (size_t e = 0; e < p->nentries; e++) {
            const cm_plot_series *s = &sp->series[p->entries[e].head];
            size_t n = plot_text_chars(s->label);
            if (p->entries[e].bar) n += 2; /* the marker before the text */
            if (n > p->maxchars) p->maxchars = n;
        }
    }
    return CM_OK;
}

