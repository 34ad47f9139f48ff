/* stats.c - the statistics registry of stats.h.
 *
 * Each statistic is an entry holding its public cm_stat (the handle points
 * at it, so entries are allocated one by one and never move), its names,
 * the snapshot of its sums at the current window's start and the
 * per-window changes, row-major [window][sum].  Windows grow by doubling at
 * window ends, outside the event loop.  Lookups by name are linear: they
 * happen at setup and at the end of a run, over at most a few thousand
 * statistics. */
#include "sim/stats.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/table.h"
#include "solvers/ci.h"

#define LEVEL 0.95
#define MAX_BINS (1u << 20)

typedef struct stat_entry {
    cm_stat s; /* first: a handle is a pointer to the entry */
    char name[CM_STAT_NAME_MAX + 1], component[CM_STAT_NAME_MAX + 1];
    char full[CM_STAT_NAME_MAX + 16]; /* occupancy: full-fraction metric */
    size_t nacc;
    double *base; /* acc at the current window's start */
    double *win;  /* [wincap][nacc] per-window changes */
    int merged;   /* built by cm_stats_merge_all */
} stat_entry;

typedef struct ratio_entry {
    char name[CM_STAT_NAME_MAX + 1], component[CM_STAT_NAME_MAX + 1];
    const stat_entry *num, *den;
    int merged;
} ratio_entry;

struct cm_stats {
    stat_entry **stats;
    size_t n, cap;
    ratio_entry *ratios;
    size_t nratios, ratio_cap;
    size_t nwin, wincap;
    int in_window;
};

static const char all_component[] = "all";

cm_stats *cm_stats_new(void)
{
    return calloc(1, sizeof(cm_stats));
}

static void entry_free(stat_entry *e)
{
    if (!e) return;
    free(e->s.acc);
    free(e->base);
    free(e->win);
    free(e);
}

void cm_stats_free(cm_stats *reg)
{
    if (!reg) return;
    for (size_t i = 0; i < reg->n; i++) entry_free(reg->stats[i]);
    free(reg->stats);
    free(reg->ratios);
    free(reg);
}

uint32_t cm_stat_bin_log2(double x, uint32_t top)
{
    if (!(x >= 1)) return 0; /* [0,1), negatives and NaN */
    int e = ilogb(x) + 1;    /* x in [2^(e-1), 2^e) */
    return (uint32_t)e < top ? (uint32_t)e : top;
}

static stat_entry *find_entry(const cm_stats *reg, const char *name,
                              const char *component)
{
    for (size_t i = 0; i < reg->n; i++)
        if (!strcmp(reg->stats[i]->name, name) &&
            !strcmp(reg->stats[i]->component, component))
            return reg->stats[i];
    return NULL;
}

static ratio_entry *find_ratio(const cm_stats *reg, const char *name,
                               const char *component)
{
    for (size_t i = 0; i < reg->nratios; i++)
        if (!strcmp(reg->ratios[i].name, name) &&
            !strcmp(reg->ratios[i].component, component))
            return &reg->ratios[i];
    return NULL;
}

/* Names go into CSV cells and row names unquoted by convention, so they are
 * kept plain. */
static cm_status check_name(const char *what, const char *s, cm_err *err)
{
    if (!s || !*s || strlen(s) > CM_STAT_NAME_MAX || strpbrk(s, ",\"\n\r"))
        return cm_err_set(err, CM_EINTERNAL,
                          "statistic %s '%s' is empty, longer than %d bytes "
                          "or holds a comma, quote or newline",
                          what, s ? s : "", CM_STAT_NAME_MAX);
    return CM_OK;
}

static cm_status check_new(const cm_stats *reg, const char *name,
                           const char *component, cm_err *err)
{
    cm_status st = check_name("name", name, err);
    if (!st) st = check_name("component", component, err);
    if (st) return st;
    if (find_entry(reg, name, component) || find_ratio(reg, name, component))
        return cm_err_set(err, CM_EINTERNAL,
                          "statistic '%s' of component '%s' registered twice",
                          name, component);
    return CM_OK;
}

static cm_status out_of_memory(cm_err *err)
{
    return cm_err_set(err, CM_EINTERNAL, "out of memory for statistics");
}

/* Adds an entry of nacc sums, zero-filled, with windows for the registry's
 * current window capacity. */
static cm_status add_entry(cm_stats *reg, const char *name,
                           const char *component, cm_stat_kind kind,
                           uint32_t top, size_t nacc, stat_entry **out,
                           cm_err *err)
{
    if (reg->n == reg->cap) {
        size_t cap = reg->cap ? 2 * reg->cap : 16;
        stat_entry **p = realloc(reg->stats, cap * sizeof *p);
        if (!p) return out_of_memory(err);
        reg->stats = p;
        reg->cap = cap;
    }
    stat_entry *e = calloc(1, sizeof *e);
    if (!e) return out_of_memory(err);
    e->nacc = nacc;
    e->s.acc = calloc(nacc, sizeof(double));
    e->base = calloc(nacc, sizeof(double));
    e->win = calloc(reg->wincap * nacc + 1, sizeof(double));
    if (!e->s.acc || !e->base || !e->win) {
        entry_free(e);
        return out_of_memory(err);
    }
    e->s.kind = kind;
    e->s.top = top;
    e->s.lo = INFINITY;
    e->s.hi = -INFINITY;
    strcpy(e->name, name);
    strcpy(e->component, component);
    reg->stats[reg->n++] = e;
    *out = e;
    return CM_OK;
}

cm_status cm_stats_counter(cm_stats *reg, const char *name,
                           const char *component, cm_stat **out, cm_err *err)
{
    stat_entry *e;
    cm_status st = check_new(reg, name, component, err);
    if (!st)
        st = add_entry(reg, name, component, CM_STAT_COUNTER, 0, 1, &e, err);
    if (!st) *out = &e->s;
    return st;
}

cm_status cm_stats_occupancy(cm_stats *reg, const char *name,
                             const char *component, uint32_t max,
                             const char *full_name, cm_stat **out, cm_err *err)
{
    stat_entry *e;
    cm_status st = check_new(reg, name, component, err);
    if (!st && full_name) st = check_name("name", full_name, err);
    if (st) return st;
    if (max < 1 || max >= MAX_BINS)
        return cm_err_set(err, CM_EINTERNAL,
                          "occupancy '%s': maximum %u out of range (1 .. %u)",
                          name, max, MAX_BINS - 1);
    st = add_entry(reg, name, component, CM_STAT_OCCUPANCY, max,
                   2 + (size_t)max + 1, &e, err);
    if (st) return st;
    if (full_name)
        strcpy(e->full, full_name);
    else
        snprintf(e->full, sizeof e->full, "%s_full_fraction", name);
    *out = &e->s;
    return CM_OK;
}

cm_status cm_stats_level(cm_stats *reg, const char *name,
                         const char *component, cm_stat **out, cm_err *err)
{
    stat_entry *e;
    cm_status st = check_new(reg, name, component, err);
    /* the occupancy's sums with a single bin, which no row shows */
    if (!st) st = add_entry(reg, name, component, CM_STAT_LEVEL, 0, 3, &e, err);
    if (!st) *out = &e->s;
    return st;
}

cm_status cm_stats_latency(cm_stats *reg, const char *name,
                           const char *component, uint32_t bins, double width,
                           cm_stat **out, cm_err *err)
{
    stat_entry *e;
    cm_status st = check_new(reg, name, component, err);
    if (st) return st;
    /* 2^63 is the last log2 edge a row name can print exactly. */
    uint32_t most = width > 0 ? MAX_BINS : 65;
    if (bins < 1 || bins > most || !(width >= 0 && width < INFINITY))
        return cm_err_set(err, CM_EINTERNAL,
                          "latency '%s': %u bins of width %g (1 .. %u bins, "
                          "width finite, 0 for log2)",
                          name, bins, width, most);
    st = add_entry(reg, name, component, CM_STAT_LATENCY, bins - 1,
                   3 + (size_t)bins, &e, err);
    if (st) return st;
    e->s.width = width;
    *out = &e->s;
    return CM_OK;
}

static int owns(const cm_stats *reg, const cm_stat *s)
{
    for (size_t i = 0; i < reg->n; i++)
        if (&reg->stats[i]->s == s) return 1;
    return 0;
}

static cm_status add_ratio(cm_stats *reg, const char *name,
                           const char *component, const stat_entry *num,
                           const stat_entry *den, int merged, cm_err *err)
{
    if (reg->nratios == reg->ratio_cap) {
        size_t cap = reg->ratio_cap ? 2 * reg->ratio_cap : 8;
        ratio_entry *p = realloc(reg->ratios, cap * sizeof *p);
        if (!p) return out_of_memory(err);
        reg->ratios = p;
        reg->ratio_cap = cap;
    }
    ratio_entry *r = &reg->ratios[reg->nratios++];
    strcpy(r->name, name);
    strcpy(r->component, component);
    r->num = num;
    r->den = den;
    r->merged = merged;
    return CM_OK;
}

cm_status cm_stats_ratio(cm_stats *reg, const char *name, const char *component,
                         const cm_stat *num, const cm_stat *den, cm_err *err)
{
    cm_status st = check_new(reg, name, component, err);
    if (st) return st;
    if (!num || !den || !owns(reg, num) || !owns(reg, den) ||
        num->kind != CM_STAT_COUNTER || den->kind != CM_STAT_COUNTER)
        return cm_err_set(err, CM_EINTERNAL,
                          "ratio '%s': numerator and denominator must be "
                          "counters of the same registry",
                          name);
    return add_ratio(reg, name, component, (const stat_entry *)num,
                     (const stat_entry *)den, 0, err);
}

/* ---- time and windows ------------------------------------------------- */

void cm_stats_sync(cm_stats *reg, uint64_t now)
{
    for (size_t i = 0; i < reg->n; i++) {
        cm_stat *s = &reg->stats[i]->s;
        if ((s->kind == CM_STAT_OCCUPANCY || s->kind == CM_STAT_LEVEL) &&
            !reg->stats[i]->merged)
            cm_stat_level(s, s->level, now);
    }
}

/* Room for `need` windows in every entry; on failure nothing is lost. */
static cm_status reserve_windows(cm_stats *reg, size_t need, cm_err *err)
{
    if (need <= reg->wincap) return CM_OK;
    size_t cap = reg->wincap ? 2 * reg->wincap : 8;
    if (cap < need) cap = need;
    for (size_t i = 0; i < reg->n; i++) {
        stat_entry *e = reg->stats[i];
        double *w = realloc(e->win, cap * e->nacc * sizeof *w);
        if (!w) return out_of_memory(err);
        e->win = w;
    }
    reg->wincap = cap;
    return CM_OK;
}

cm_status cm_stats_window_begin(cm_stats *reg, uint64_t now, cm_err *err)
{
    if (reg->in_window)
        return cm_err_set(err, CM_EINTERNAL,
                          "statistics window begun inside a window");
    cm_stats_sync(reg, now);
    for (size_t i = 0; i < reg->n; i++) {
        stat_entry *e = reg->stats[i];
        memcpy(e->base, e->s.acc, e->nacc * sizeof(double));
    }
    reg->in_window = 1;
    return CM_OK;
}

cm_status cm_stats_window_end(cm_stats *reg, uint64_t now, cm_err *err)
{
    if (!reg->in_window)
        return cm_err_set(err, CM_EINTERNAL,
                          "statistics window ended outside a window");
    cm_status st = reserve_windows(reg, reg->nwin + 1, err);
    if (st) return st;
    cm_stats_sync(reg, now);
    for (size_t i = 0; i < reg->n; i++) {
        stat_entry *e = reg->stats[i];
        double *w = e->win + reg->nwin * e->nacc;
        for (size_t k = 0; k < e->nacc; k++) w[k] = e->s.acc[k] - e->base[k];
    }
    reg->nwin++;
    reg->in_window = 0;
    return CM_OK;
}

size_t cm_stats_windows(const cm_stats *reg)
{
    return reg->nwin;
}

cm_status cm_stats_window_weight(cm_stats *reg, size_t k, double w,
                                 cm_err *err)
{
    if (k >= reg->nwin)
        return cm_err_set(err, CM_EINTERNAL,
                          "statistics window %zu weighed, %zu closed", k,
                          reg->nwin);
    if (!(w >= 0) || !isfinite(w))
        return cm_err_set(err, CM_EINTERNAL,
                          "statistics window weighed by %g", w);
    for (size_t i = 0; i < reg->n; i++) {
        stat_entry *e = reg->stats[i];
        double *x = e->win + k * e->nacc;
        for (size_t j = 0; j < e->nacc; j++) x[j] *= w;
    }
    return CM_OK;
}

/* ---- merging ---------------------------------------------------------- */

static int same_shape(const stat_entry *a, const stat_entry *b)
{
    return a->s.kind == b->s.kind && a->s.top == b->s.top &&
           a->s.width == b->s.width;
}

/* dst += src: sums, extremes, and src's windows 0..nwin-1 into dst's
 * windows at..at+nwin-1 (added, so components sum window by window). */
static void add_into(stat_entry *dst, const stat_entry *src, size_t at,
                     size_t nwin)
{
    for (size_t k = 0; k < dst->nacc; k++) dst->s.acc[k] += src->s.acc[k];
    for (size_t k = 0; k < nwin * dst->nacc; k++)
        dst->win[at * dst->nacc + k] += src->win[k];
    if (src->s.lo < dst->s.lo) dst->s.lo = src->s.lo;
    if (src->s.hi > dst->s.hi) dst->s.hi = src->s.hi;
}

/* Drops the entries and ratios an earlier merge_all built. */
static void drop_merged(cm_stats *reg)
{
    size_t j = 0;
    for (size_t i = 0; i < reg->nratios; i++)
        if (!reg->ratios[i].merged) reg->ratios[j++] = reg->ratios[i];
    reg->nratios = j;
    j = 0;
    for (size_t i = 0; i < reg->n; i++) {
        if (reg->stats[i]->merged)
            entry_free(reg->stats[i]);
        else
            reg->stats[j++] = reg->stats[i];
    }
    reg->n = j;
}

static cm_status merge_stat(cm_stats *reg, const stat_entry *first, cm_err *err)
{
    stat_entry *all;
    cm_status st = add_entry(reg, first->name, all_component, first->s.kind,
                             first->s.top, first->nacc, &all, err);
    if (st) return st;
    all->merged = 1;
    all->s.width = first->s.width;
    strcpy(all->full, first->full);
    for (size_t i = 0; i < reg->n; i++) {
        const stat_entry *e = reg->stats[i];
        if (e->merged || strcmp(e->name, first->name)) continue;
        if (!same_shape(e, first))
            return cm_err_set(err, CM_EINTERNAL,
                              "cannot merge statistic '%s': components '%s' "
                              "and '%s' differ in kind or bins",
                              first->name, first->component, e->component);
        add_into(all, e, 0, reg->nwin);
    }
    return CM_OK;
}

cm_status cm_stats_merge_all(cm_stats *reg, cm_err *err)
{
    drop_merged(reg);
    cm_status st = CM_OK;
    size_t n = reg->n; /* the components' entries; "all" ones follow */
    for (size_t i = 0; i < n && !st; i++) {
        const stat_entry *e = reg->stats[i];
        if (!find_entry(reg, e->name, all_component))
            st = merge_stat(reg, e, err);
    }
    size_t nr = reg->nratios;
    for (size_t i = 0; i < nr && !st; i++) {
        /* add_ratio may grow (move) reg->ratios: keep nothing that points
         * into it across the call. */
        char name[CM_STAT_NAME_MAX + 1];
        memcpy(name, reg->ratios[i].name, sizeof name);
        if (find_ratio(reg, name, all_component)) continue;
        const stat_entry *num =
            find_entry(reg, reg->ratios[i].num->name, all_component);
        const stat_entry *den =
            find_entry(reg, reg->ratios[i].den->name, all_component);
        st = add_ratio(reg, name, all_component, num, den, 1, err);
    }
    if (st) drop_merged(reg);
    return st;
}

cm_status cm_stats_merge(cm_stats *dst, const cm_stats *src, cm_err *err)
{
    if (dst->in_window || src->in_window)
        return cm_err_set(err, CM_EINTERNAL,
                          "cannot merge statistics inside a window");
    if (dst->n != src->n || (dst->nwin == 0) != (src->nwin == 0))
        return cm_err_set(err, CM_EINTERNAL,
                          "cannot merge statistics: %zu against %zu "
                          "statistics, %zu against %zu windows",
                          dst->n, src->n, dst->nwin, src->nwin);
    for (size_t i = 0; i < src->n; i++) {
        const stat_entry *s = src->stats[i];
        const stat_entry *d = find_entry(dst, s->name, s->component);
        if (!d || !same_shape(d, s))
            return cm_err_set(err, CM_EINTERNAL,
                              "cannot merge statistics: '%s' of '%s' is %s",
                              s->name, s->component,
                              d ? "of another kind or bins" : "missing");
    }
    cm_status st = reserve_windows(dst, dst->nwin + src->nwin, err);
    if (st) return st;
    for (size_t i = 0; i < src->n; i++) {
        const stat_entry *s = src->stats[i];
        stat_entry *d = find_entry(dst, s->name, s->component);
        memset(d->win + dst->nwin * d->nacc, 0,
               src->nwin * d->nacc * sizeof(double));
        add_into(d, s, dst->nwin, src->nwin);
    }
    dst->nwin += src->nwin;
    return CM_OK;
}

/* ---- rows ------------------------------------------------------------- */

typedef struct row_list {
    cm_stat_row *rows;
    size_t n;
} row_list;

static cm_stat_row *next_row(row_list *l, const char *metric, const char *sfx,
                             const char *component)
{
    cm_stat_row *r = &l->rows[l->n++];
    snprintf(r->metric, sizeof r->metric, "%s%s", metric, sfx);
    r->component = component;
    r->value = r->ci95_lo = r->ci95_hi = NAN;
    return r;
}

/* Ratio of sums num / den: from the windows when there are any. */
static void row_ratio(cm_stat_row *r, double num, double den,
                      const double *wnum, const double *wden, size_t stride,
                      size_t nwin)
{
    if (nwin) {
        cm_ci ci;
        cm_ci_ratio(wnum, wden, stride, nwin, LEVEL, &ci);
        r->value = ci.value;
        r->ci95_lo = ci.lo;
        r->ci95_hi = ci.hi;
    } else {
        r->value = den != 0 ? num / den : NAN;
    }
}

/* Ratio of two of an entry's sums. */
static void entry_ratio(cm_stat_row *r, const stat_entry *e, size_t nwin,
                        size_t num, size_t den)
{
    row_ratio(r, e->s.acc[num], e->s.acc[den], e->win + num, e->win + den,
              e->nacc, nwin);
}

/* A sum: over the windows (n times their batch mean) when there are any. */
static void row_sum(cm_stat_row *r, const stat_entry *e, size_t nwin, size_t k)
{
    if (nwin) {
        cm_ci ci;
        cm_ci_mean(e->win + k, e->nacc, nwin, LEVEL, &ci);
        r->value = ci.value * (double)nwin;
        r->ci95_lo = ci.lo * (double)nwin;
        r->ci95_hi = ci.hi * (double)nwin;
    } else {
        r->value = e->s.acc[k];
    }
}

/* The lower edge of latency bin k, as it appears in the row name. */
static void bin_edge(char buf[32], const cm_stat *s, uint32_t k)
{
    if (s->width > 0)
        cm_fmt_double(buf, k * s->width);
    else
        snprintf(buf, 32, "%.0f", k ? ldexp(1, (int)k - 1) : 0.0);
}

static void entry_rows(row_list *l, const stat_entry *e, size_t nwin)
{
    const cm_stat *s = &e->s;
    char sfx[96];
    switch (s->kind) {
    case CM_STAT_COUNTER:
        row_sum(next_row(l, e->name, "", e->component), e, nwin, 0);
        break;
    case CM_STAT_OCCUPANCY:
        entry_ratio(next_row(l, e->name, "_mean", e->component), e, nwin, 1, 0);
        entry_ratio(next_row(l, e->full, "", e->component), e, nwin, 2 + s->top,
                    0);
        for (uint32_t k = 0; k <= s->top; k++) {
            snprintf(sfx, sizeof sfx, ".frac_at_%u%s", k,
                     k == s->top ? "_or_more" : "");
            entry_ratio(next_row(l, e->name, sfx, e->component), e, nwin, 2 + k,
                        0);
        }
        break;
    case CM_STAT_LEVEL:
        entry_ratio(next_row(l, e->name, "_mean", e->component), e, nwin, 1, 0);
        break;
    case CM_STAT_LATENCY: {
        double tot[3] = {s->acc[0], s->acc[1], s->acc[2]};
        if (nwin) {
            tot[0] = tot[1] = tot[2] = 0;
            for (size_t w = 0; w < nwin; w++)
                for (int k = 0; k < 3; k++) tot[k] += e->win[w * e->nacc + k];
        }
        row_sum(next_row(l, e->name, "_count", e->component), e, nwin, 0);
        entry_ratio(next_row(l, e->name, "_mean", e->component), e, nwin, 1, 0);
        double m = tot[1] / tot[0], var = tot[2] / tot[0] - m * m;
        next_row(l, e->name, "_stddev", e->component)->value =
            tot[0] > 0 ? sqrt(var > 0 ? var : 0) : NAN;
        next_row(l, e->name, "_min", e->component)->value =
            tot[0] > 0 ? s->lo : NAN;
        next_row(l, e->name, "_max", e->component)->value =
            tot[0] > 0 ? s->hi : NAN;
        for (uint32_t k = 0; k <= s->top; k++) {
            char lo[32], hi[32];
            bin_edge(lo, s, k);
            bin_edge(hi, s, k + 1);
            if (k < s->top)
                snprintf(sfx, sizeof sfx, ".frac_in_%s_%s", lo, hi);
            else
                snprintf(sfx, sizeof sfx, ".frac_from_%s", lo);
            entry_ratio(next_row(l, e->name, sfx, e->component), e, nwin, 3 + k,
                        0);
        }
        break;
    }
    }
}

static size_t entry_nrows(const stat_entry *e)
{
    switch (e->s.kind) {
    case CM_STAT_OCCUPANCY:
        return 2 + (size_t)e->s.top + 1;
    case CM_STAT_LEVEL:
        return 1;
    case CM_STAT_LATENCY:
        return 5 + (size_t)e->s.top + 1;
    default:
        return 1;
    }
}

/* strcmp, except that runs of digits compare by their numeric value. */
static int natural_cmp(const char *a, const char *b)
{
    const unsigned char *p = (const unsigned char *)a,
                        *q = (const unsigned char *)b;
    while (*p && *q) {
        if (isdigit(*p) && isdigit(*q)) {
            while (*p == '0') p++;
            while (*q == '0') q++;
            size_t lp = 0, lq = 0;
            while (isdigit(p[lp])) lp++;
            while (isdigit(q[lq])) lq++;
            if (lp != lq) return lp < lq ? -1 : 1;
            int c = memcmp(p, q, lp);
            if (c) return c;
            p += lp;
            q += lq;
        } else if (*p != *q) {
            return *p < *q ? -1 : 1;
        } else {
            p++;
            q++;
        }
    }
    if (*p != *q) return *p < *q ? -1 : 1;
    return strcmp(a, b); /* "p01" against "p1": any fixed order */
}

static int row_cmp(const void *pa, const void *pb)
{
    const cm_stat_row *a = pa, *b = pb;
    int c = natural_cmp(a->metric, b->metric);
    if (c) return c;
    int aa = !strcmp(a->component, all_component),
        ba = !strcmp(b->component, all_component);
    if (aa != ba) return ba - aa;
    return natural_cmp(a->component, b->component);
}

cm_status cm_stats_rows(const cm_stats *reg, cm_stat_row **rows, size_t *n,
                        cm_err *err)
{
    size_t total = reg->nratios;
    for (size_t i = 0; i < reg->n; i++) total += entry_nrows(reg->stats[i]);
    row_list l = {malloc((total ? total : 1) * sizeof(cm_stat_row)), 0};
    *rows = NULL;
    *n = 0;
    if (!l.rows) return out_of_memory(err);
    for (size_t i = 0; i < reg->n; i++)
        entry_rows(&l, reg->stats[i], reg->nwin);
    for (size_t i = 0; i < reg->nratios; i++) {
        const ratio_entry *q = &reg->ratios[i];
        row_ratio(next_row(&l, q->name, "", q->component), q->num->s.acc[0],
                  q->den->s.acc[0], q->num->win, q->den->win, 1, reg->nwin);
    }
    qsort(l.rows, l.n, sizeof *l.rows, row_cmp);
    for (size_t i = 1; i < l.n; i++)
        if (row_cmp(&l.rows[i - 1], &l.rows[i]) == 0) {
            cm_err_set(err, CM_EINTERNAL,
                       "two statistics write the row '%s' of component '%s'",
                       l.rows[i].metric, l.rows[i].component);
            free(l.rows);
            return CM_EINTERNAL;
        }
    *rows = l.rows;
    *n = l.n;
    return CM_OK;
}

cm_status cm_stats_each(const cm_stats *reg, cm_stats_name_fn fn, void *arg,
                        cm_err *err)
{
    cm_status st = CM_OK;
    for (size_t i = 0; i < reg->n && !st; i++) {
        const stat_entry *e = reg->stats[i];
        st = fn(arg, e->name, e->s.kind, 0,
                e->s.kind == CM_STAT_OCCUPANCY ? e->full : NULL, err);
    }
    for (size_t i = 0; i < reg->nratios && !st; i++)
        st = fn(arg, reg->ratios[i].name, CM_STAT_COUNTER, 1, NULL, err);
    return st;
}

cm_status cm_stats_write(const cm_stats *reg, const char *path, cm_err *err)
{
    static const char *const header[] = {"metric", "component", "value",
                                         "ci95_lo", "ci95_hi"};
    cm_stat_row *rows;
    size_t n;
    cm_csv_writer *w = NULL;
    cm_status st = cm_stats_rows(reg, &rows, &n, err);
    if (st) return st;
    st = cm_csv_writer_open(path, &w, err);
    if (!st) st = cm_csv_writer_row(w, 5, header, err);
    for (size_t i = 0; i < n && !st; i++) {
        char v[3][32];
        cm_fmt_optional(v[0], rows[i].value);
        cm_fmt_optional(v[1], rows[i].ci95_lo);
        cm_fmt_optional(v[2], rows[i].ci95_hi);
        const char *cells[5] = {rows[i].metric, rows[i].component, v[0], v[1],
                                v[2]};
        st = cm_csv_writer_row(w, 5, cells, err);
    }
    free(rows);
    if (st) {
        if (w) cm_csv_writer_abort(w);
        return st;
    }
    return cm_csv_writer_commit(w, err);
}
