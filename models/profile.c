/* profile.c - workload timing profiles: quantity,lo,hi,value CSV files of
 * named time distributions and rates (format in profile.h).
 *
 * Reading goes through cm_table (libcsv), so every error has the file, line
 * and column of the offending cell.  lo and hi accept "inf" (any case,
 * also "infinity"), which cm_table's number reader rejects on purpose, so
 * the two columns are parsed here with strtod after that check.  Profiles
 * are small (tens of distributions of tens of bins): linear look-ups. */
#include "models/profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "data/table.h"

typedef struct named_dist {
    char *name;
    cm_dist d;
} named_dist;

typedef struct named_joint {
    char *name;
    cm_point *pts;
    size_t n, cap;
} named_joint;

typedef struct named_rate {
    char *name;
    double v;
} named_rate;

struct cm_profile {
    char *source; /* file name, for messages; "profile" when built */
    named_dist *dists;
    size_t ndists, cap_dists;
    named_rate *rates;
    size_t nrates, cap_rates;
    named_joint *joints;
    size_t njoints, cap_joints;
};

static const char rate_prefix[] = "rate.";

static const char joint_prefix[] = "joint.";

static int is_rate(const char *name)
{
    return strncmp(name, rate_prefix, sizeof rate_prefix - 1) == 0;
}

static int is_joint(const char *name)
{
    return strncmp(name, joint_prefix, sizeof joint_prefix - 1) == 0;
}

cm_profile *cm_profile_new(void)
{
    cm_profile *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->source = strdup("profile");
    if (!p->source) {
        free(p);
        return NULL;
    }
    return p;
}

void cm_profile_free(cm_profile *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->ndists; i++) {
        free(p->dists[i].name);
        cm_dist_free(&p->dists[i].d);
    }
    for (size_t i = 0; i < p->nrates; i++) free(p->rates[i].name);
    for (size_t i = 0; i < p->njoints; i++) {
        free(p->joints[i].name);
        free(p->joints[i].pts);
    }
    free(p->joints);
    free(p->dists);
    free(p->rates);
    free(p->source);
    free(p);
}

static named_dist *find_dist(const cm_profile *p, const char *name)
{
    for (size_t i = 0; i < p->ndists; i++)
        if (strcmp(p->dists[i].name, name) == 0) return &p->dists[i];
    return NULL;
}

static named_joint *find_joint(const cm_profile *p, const char *name)
{
    for (size_t i = 0; i < p->njoints; i++)
        if (strcmp(p->joints[i].name, name) == 0) return &p->joints[i];
    return NULL;
}

static named_rate *find_rate(const cm_profile *p, const char *name)
{
    for (size_t i = 0; i < p->nrates; i++)
        if (strcmp(p->rates[i].name, name) == 0) return &p->rates[i];
    return NULL;
}

/* Appends a zeroed element whose first field is its name (a strdup of
 * name) to an array of elem-sized items; NULL when out of memory.  A zeroed
 * cm_dist is an initialised one. */
static void *append_named(void **arr, size_t *n, size_t *cap, size_t elem,
                          const char *name)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 8;
        void *a = realloc(*arr, c * elem);
        if (!a) return NULL;
        *arr = a;
        *cap = c;
    }
    char *copy = strdup(name);
    if (!copy) return NULL;
    char *slot = (char *)*arr + *n * elem;
    memset(slot, 0, elem);
    memcpy(slot, &copy, sizeof copy);
    (*n)++;
    return slot;
}

static cm_status check_name(const char *name, cm_err *err)
{
    if (!name || !*name)
        return cm_err_set(err, CM_EINPUT, "quantity name is empty");
    return CM_OK;
}

cm_status cm_profile_add_bin(cm_profile *p, const char *name, double lo,
                             double hi, double w, cm_err *err)
{
    if (check_name(name, err)) return CM_EINPUT;
    if (is_rate(name) || is_joint(name))
        return cm_err_set(err, CM_EINPUT,
                          "'%s' is a %s, not a distribution", name,
                          is_rate(name) ? "rate" : "joint distribution");
    named_dist *nd = find_dist(p, name);
    if (!nd && !(nd = append_named((void **)&p->dists, &p->ndists,
                                   &p->cap_dists, sizeof *nd, name)))
        return cm_err_set(err, CM_EINTERNAL, "profile: out of memory");
    cm_status st = cm_dist_add_bin(&nd->d, lo, hi, w, err);
    if (st) {
        char ctx[160];
        snprintf(ctx, sizeof ctx, "distribution '%s'", name);
        cm_err_prefix(err, ctx);
    }
    return st;
}

cm_status cm_profile_add_point(cm_profile *p, const char *name, double x,
                               double y, double w, cm_err *err)
{
    if (check_name(name, err)) return CM_EINPUT;
    if (!is_joint(name))
        return cm_err_set(err, CM_EINPUT,
                          "joint distribution name '%s' must start with '%s'",
                          name, joint_prefix);
    if (!(isfinite(x) && isfinite(y) && x >= 0 && y >= 0))
        return cm_err_set(err, CM_EINPUT,
                          "%s: a point's coordinates are finite times >= 0, "
                          "got (%g, %g)", name, x, y);
    if (!(isfinite(w) && w >= 0))
        return cm_err_set(err, CM_EINPUT,
                          "%s: a point's weight must be finite and >= 0, "
                          "got %g", name, w);
    named_joint *nj = find_joint(p, name);
    if (!nj && !(nj = append_named((void **)&p->joints, &p->njoints,
                                   &p->cap_joints, sizeof *nj, name)))
        return cm_err_set(err, CM_EINTERNAL, "profile: out of memory");
    if (nj->n == nj->cap) {
        size_t c = nj->cap ? 2 * nj->cap : 16;
        cm_point *a = realloc(nj->pts, c * sizeof *a);
        if (!a) return cm_err_set(err, CM_EINTERNAL, "profile: out of memory");
        nj->pts = a;
        nj->cap = c;
    }
    nj->pts[nj->n++] = (cm_point){x, y, w};
    return CM_OK;
}

cm_status cm_profile_set_rate(cm_profile *p, const char *name, double v,
                              cm_err *err)
{
    if (check_name(name, err)) return CM_EINPUT;
    if (!is_rate(name))
        return cm_err_set(err, CM_EINPUT,
                          "rate name '%s' must start with '%s'", name,
                          rate_prefix);
    if (!isfinite(v) || v < 0)
        return cm_err_set(err, CM_EINPUT,
                          "%s must be a finite number >= 0, got %g", name, v);
    named_rate *r = find_rate(p, name);
    if (!r && !(r = append_named((void **)&p->rates, &p->nrates,
                                 &p->cap_rates, sizeof *r, name)))
        return cm_err_set(err, CM_EINTERNAL, "profile: out of memory");
    r->v = v;
    return CM_OK;
}

/* ---- pooling ---------------------------------------------------------- */

typedef struct pool_bin {
    double lo, hi, w;
} pool_bin;

static int pool_bin_cmp(const void *a, const void *b)
{
    const pool_bin *x = a, *y = b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    return (x->hi > y->hi) - (x->hi < y->hi);
}

/* Distribution name of the pool: the profiles' bins sorted, identical ones
 * summed (cm_profile_add_bin rejects the rest if they overlap). */
static cm_status pool_dist(cm_profile *out, const cm_profile *const *ps,
                           size_t n, const char *name, cm_err *err)
{
    size_t nb = 0;
    double w_inf = 0;
    for (size_t k = 0; k < n; k++) {
        const named_dist *d = find_dist(ps[k], name);
        if (d) nb += d->d.n;
    }
    pool_bin *b = malloc((nb ? nb : 1) * sizeof *b);
    if (!b) return cm_err_set(err, CM_EINTERNAL, "profile: out of memory");
    nb = 0;
    for (size_t k = 0; k < n; k++) {
        const named_dist *d = find_dist(ps[k], name);
        if (!d) continue;
        for (size_t i = 0; i < d->d.n; i++)
            b[nb++] = (pool_bin){d->d.lo[i], d->d.hi[i], d->d.w[i]};
        w_inf += d->d.w_inf;
    }
    qsort(b, nb, sizeof *b, pool_bin_cmp);
    cm_status st = CM_OK;
    for (size_t i = 0; i < nb && !st; i++) {
        double w = b[i].w;
        while (i + 1 < nb && b[i + 1].lo == b[i].lo && b[i + 1].hi == b[i].hi)
            w += b[++i].w;
        st = cm_profile_add_bin(out, name, b[i].lo, b[i].hi, w, err);
    }
    if (!st && w_inf > 0)
        st = cm_profile_add_bin(out, name, INFINITY, INFINITY, w_inf, err);
    free(b);
    return st;
}

cm_status cm_profile_pool(const cm_profile *const *ps, size_t n,
                          cm_profile **out, cm_err *err)
{
    *out = NULL;
    cm_profile *p = cm_profile_new();
    if (!p) return cm_err_set(err, CM_EINTERNAL, "profile: out of memory");
    cm_status st = CM_OK;
    for (size_t k = 0; k < n && !st; k++) {
        for (size_t i = 0; i < ps[k]->ndists && !st; i++)
            if (!find_dist(p, ps[k]->dists[i].name))
                st = pool_dist(p, ps, n, ps[k]->dists[i].name, err);
        for (size_t i = 0; i < ps[k]->njoints && !st; i++)
            for (size_t j = 0; j < ps[k]->joints[i].n && !st; j++) {
                const cm_point *pt = &ps[k]->joints[i].pts[j];
                st = cm_profile_add_point(p, ps[k]->joints[i].name, pt->x,
                                          pt->y, pt->w, err);
            }
        for (size_t i = 0; i < ps[k]->nrates && !st; i++) {
            const char *name = ps[k]->rates[i].name;
            if (find_rate(p, name)) continue;
            double sum = 0, cnt = 0;
            for (size_t m = 0; m < n; m++) {
                const named_rate *r = find_rate(ps[m], name);
                if (r) sum += r->v, cnt += 1;
            }
            st = cm_profile_set_rate(p, name, sum / cnt, err);
        }
    }
    if (st) {
        cm_err_prefix(err, "pooling profiles");
        cm_profile_free(p);
        return st;
    }
    *out = p;
    return CM_OK;
}

/* ---- reading ---------------------------------------------------------- */

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    return s;
}

/* A bound cell: a number >= 0 or inf. */
static cm_status get_bound(const cm_table *t, size_t row, size_t col,
                           double *v, cm_err *err)
{
    const char *s = skip_blanks(cm_table_cell(t, row, col));
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    if ((n == 3 && strncasecmp(s, "inf", 3) == 0) ||
        (n == 4 && strncasecmp(s, "+inf", 4) == 0) ||
        (n == 8 && strncasecmp(s, "infinity", 8) == 0)) {
        *v = INFINITY;
        return CM_OK;
    }
    cm_status st = cm_table_get_double(t, row, col, v, err);
    if (st == CM_OK && *v < 0) {
        unsigned long line, c;
        cm_table_cell_pos(t, row, col, &line, &c);
        return cm_err_at(err, CM_EINPUT, cm_table_name(t), line, c,
                         "column '%s': times are >= 0, got %g",
                         cm_table_colname(t, col), *v);
    }
    return st;
}

/* Reports err's message at a cell's position. */
static cm_status at_cell(const cm_table *t, size_t row, size_t col,
                         cm_err *err)
{
    unsigned long line, c;
    cm_table_cell_pos(t, row, col, &line, &c);
    char msg[CM_ERR_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", err->msg);
    return cm_err_at(err, err->code, cm_table_name(t), line, c, "%s", msg);
}

cm_status cm_profile_from_table(const cm_table *t, cm_profile **out,
                               cm_err *err)
{
    size_t cq, clo, chi, cv;
    if (cm_table_col_require(t, "quantity", &cq, err) ||
        cm_table_col_require(t, "lo", &clo, err) ||
        cm_table_col_require(t, "hi", &chi, err) ||
        cm_table_col_require(t, "value", &cv, err))
        return CM_EINPUT;
    cm_profile *p = cm_profile_new();
    char *src = strdup(cm_table_name(t));
    if (!p || !src) {
        free(src);
        cm_profile_free(p);
        return cm_err_set(err, CM_EINTERNAL, "profile: out of memory");
    }
    free(p->source);
    p->source = src;
    cm_status st = CM_OK;
    for (size_t r = 0; r < cm_table_nrows(t) && st == CM_OK; r++) {
        const char *q = skip_blanks(cm_table_cell(t, r, cq));
        double v;
        if (!*q) {
            cm_err_set(err, CM_EINPUT, "column 'quantity': empty name");
            st = at_cell(t, r, cq, err);
            break;
        }
        if ((st = cm_table_get_double(t, r, cv, &v, err))) break;
        if (is_rate(q)) {
            size_t bad = *skip_blanks(cm_table_cell(t, r, clo)) ? clo
                         : *skip_blanks(cm_table_cell(t, r, chi)) ? chi
                                                                  : cv;
            if (bad != cv) {
                cm_err_set(err, CM_EINPUT,
                           "column '%s': a rate row leaves lo and hi empty",
                           cm_table_colname(t, bad));
                st = at_cell(t, r, bad, err);
            } else if (find_rate(p, q)) {
                cm_err_set(err, CM_EINPUT, "rate '%s' given twice", q);
                st = at_cell(t, r, cq, err);
            } else if ((st = cm_profile_set_rate(p, q, v, err))) {
                st = at_cell(t, r, cv, err);
            }
            continue;
        }
        double lo, hi;
        if ((st = get_bound(t, r, clo, &lo, err)) ||
            (st = get_bound(t, r, chi, &hi, err)))
            break;
        if (is_joint(q)) {
            if ((st = cm_profile_add_point(p, q, lo, hi, v, err)))
                st = at_cell(t, r, isfinite(lo) ? isfinite(hi) ? cv : chi : clo, err);
            continue;
        }
        if (hi != INFINITY && lo == INFINITY) {
            cm_err_set(err, CM_EINPUT, "column 'lo': inf with a finite hi");
            st = at_cell(t, r, clo, err);
            break;
        }
        if ((st = cm_profile_add_bin(p, q, lo, hi, v, err)))
            st = at_cell(t, r, v < 0 || hi == INFINITY ? cv : clo, err);
    }
    if (st) {
        cm_profile_free(p);
        return st;
    }
    *out = p;
    return CM_OK;
}

cm_status cm_profile_read(const char *path, cm_profile **out, cm_err *err)
{
    cm_table *t;
    cm_status st = cm_table_read_file(path, &t, err);
    if (st) return st;
    st = cm_profile_from_table(t, out, err);
    cm_table_free(t);
    return st;
}

cm_status cm_profile_read_buffer(const char *name, const char *buf,
                                 size_t len, cm_profile **out, cm_err *err)
{
    cm_table *t;
    cm_status st = cm_table_read_buffer(name, buf, len, &t, err);
    if (st) return st;
    st = cm_profile_from_table(t, out, err);
    cm_table_free(t);
    return st;
}

/* ---- writing ---------------------------------------------------------- */

static cm_status write_row(cm_csv_writer *w, const char *q, double lo,
                           double hi, double v, int rate, cm_err *err)
{
    char blo[32], bhi[32], bv[32];
    cm_fmt_double(blo, lo);
    cm_fmt_double(bhi, hi);
    cm_fmt_double(bv, v);
    const char *cells[4] = {q, rate ? "" : blo, rate ? "" : bhi, bv};
    return cm_csv_writer_row(w, 4, cells, err);
}

cm_status cm_profile_write(const cm_profile *p, const char *path,
                           cm_err *err)
{
    cm_csv_writer *w;
    cm_status st = cm_csv_writer_open(path, &w, err);
    if (st) return st;
    static const char *const hdr[4] = {"quantity", "lo", "hi", "value"};
    st = cm_csv_writer_row(w, 4, hdr, err);
    for (size_t i = 0; i < p->nrates && !st; i++)
        st = write_row(w, p->rates[i].name, 0, 0, p->rates[i].v, 1, err);
    for (size_t i = 0; i < p->ndists && !st; i++) {
        const named_dist *nd = &p->dists[i];
        for (size_t b = 0; b < nd->d.n && !st; b++)
            st = write_row(w, nd->name, nd->d.lo[b], nd->d.hi[b],
                           nd->d.w[b], 0, err);
        if (!st && nd->d.w_inf > 0)
            st = write_row(w, nd->name, INFINITY, INFINITY, nd->d.w_inf, 0,
                           err);
    }
    for (size_t i = 0; i < p->njoints && !st; i++)
        for (size_t k = 0; k < p->joints[i].n && !st; k++) {
            const cm_point *pt = &p->joints[i].pts[k];
            st = write_row(w, p->joints[i].name, pt->x, pt->y, pt->w, 0, err);
        }
    if (st) {
        cm_csv_writer_abort(w);
        return st;
    }
    return cm_csv_writer_commit(w, err);
}

/* ---- look-ups --------------------------------------------------------- */

cm_status cm_profile_dist(const cm_profile *p, const char *name,
                          const cm_dist **out, cm_err *err)
{
    const named_dist *nd = find_dist(p, name);
    if (!nd)
        return cm_err_set(err, CM_EINPUT,
                          "%s: no distribution '%s' in the profile",
                          p->source, name);
    if (!(cm_dist_total(&nd->d) > 0))
        return cm_err_set(err, CM_EINPUT,
                          "%s: distribution '%s' has no weight", p->source,
                          name);
    *out = &nd->d;
    return CM_OK;
}

cm_status cm_profile_rate(const cm_profile *p, const char *name, double *out,
                          cm_err *err)
{
    const named_rate *r = find_rate(p, name);
    if (!r)
        return cm_err_set(err, CM_EINPUT, "%s: no rate '%s' in the profile",
                          p->source, name);
    *out = r->v;
    return CM_OK;
}

void cm_profile_points(const cm_profile *p, const char *name,
                       const cm_point **out, size_t *n)
{
    const named_joint *nj = find_joint(p, name);
    *out = nj ? nj->pts : NULL;
    *n = nj ? nj->n : 0;
}

size_t cm_profile_ndists(const cm_profile *p) { return p->ndists; }

const char *cm_profile_dist_name(const cm_profile *p, size_t i)
{
    return i < p->ndists ? p->dists[i].name : NULL;
}

size_t cm_profile_nrates(const cm_profile *p) { return p->nrates; }

const char *cm_profile_rate_name(const cm_profile *p, size_t i)
{
    return i < p->nrates ? p->rates[i].name : NULL;
}
