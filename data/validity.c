/* validity.c - the validity table (validity.h): reading it, and judging a
 * model's points against it. */
#include "data/validity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cm_validity_columns[CM_VALIDITY_NCOLS] = {
    "model",  "protocol", "quantity", "output",
    "measure", "preset",   "workload", "scope",
    "region", "machine",  "heldout_points", "error"};

enum { C_MODEL, C_PROTO, C_QTY, C_OUT, C_MEASURE, C_PRESET, C_WL, C_SCOPE,
       C_REGION, C_MACHINE, C_HELDOUT, C_ERROR };

#define MAX_BOX 16

typedef enum scope { S_WORKLOAD = 0, S_PART, S_WHOLE } scope;
static const char *const scope_names[] = {"workload", "part", "whole"};

typedef struct vbox {
    const cm_param_info *param;
    double lo, hi;
} vbox;

typedef struct vrow {
    const char *text[CM_VALIDITY_NCOLS]; /* cells, owned by the table */
    int relative;
    scope scope;
    vbox box[MAX_BOX];
    size_t nbox;
    cm_params ref; /* the machine: preset, then its settings */
    double heldout, error;
} vrow;

struct cm_validity {
    cm_table *t; /* owns the text */
    vrow *rows;
    size_t n;
};

size_t cm_validity_rows(const cm_validity *v) { return v ? v->n : 0; }

void cm_validity_free(cm_validity *v)
{
    if (!v) return;
    cm_table_free(v->t);
    free(v->rows);
    free(v);
}

/* An error at a cell of the table. */
static cm_status cell_error(const cm_table *t, size_t row, size_t col,
                            cm_err *err, const char *what)
{
    unsigned long line, column;
    cm_table_cell_pos(t, row, col, &line, &column);
    return cm_err_set(err, CM_EINPUT, "%s:%lu:%lu: column '%s': %s",
                      cm_table_name(t), line, column, cm_table_colname(t, col),
                      what);
}

/* "name=lo:hi ..." into r->box. */
static cm_status parse_region(const cm_table *t, size_t i, size_t col,
                              vrow *r, cm_err *err)
{
    char buf[2048], why[256];
    snprintf(buf, sizeof buf, "%s", cm_table_cell(t, i, col));
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok;
         tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '='), *colon = eq ? strchr(eq, ':') : NULL;
        if (!colon) {
            snprintf(why, sizeof why, "'%s': expected name=lo:hi", tok);
            return cell_error(t, i, col, err, why);
        }
        *eq = *colon = '\0';
        char *e1, *e2;
        vbox b = {cm_param_find(tok), strtod(eq + 1, &e1),
                  strtod(colon + 1, &e2)};
        if (!b.param || *e1 || *e2 || e1 == eq + 1 || e2 == colon + 1 ||
            !(b.lo <= b.hi)) {
            snprintf(why, sizeof why, "'%s': %s", tok,
                     b.param ? "expected lo <= hi, numbers"
                             : "not a registry parameter");
            return cell_error(t, i, col, err, why);
        }
        if (r->nbox == MAX_BOX)
            return cell_error(t, i, col, err, "too many parameters");
        r->box[r->nbox++] = b;
    }
    return CM_OK;
}

static cm_status parse_row(const cm_table *t, const size_t *col, size_t i,
                           vrow *r, cm_err *err)
{
    memset(r, 0, sizeof *r);
    for (int k = 0; k < CM_VALIDITY_NCOLS; k++)
        r->text[k] = cm_table_cell(t, i, col[k]);
    const char *m = r->text[C_MEASURE];
    if (strcmp(m, "mare") && strcmp(m, "mean_abs_error"))
        return cell_error(t, i, col[C_MEASURE], err,
                          "expected mare or mean_abs_error");
    r->relative = !strcmp(m, "mare");
    int s = -1;
    for (int k = 0; k < 3; k++)
        if (!strcmp(r->text[C_SCOPE], scope_names[k])) s = k;
    if (s < 0)
        return cell_error(t, i, col[C_SCOPE], err,
                          "expected workload, part or whole");
    r->scope = (scope)s;
    if (!*r->text[C_MODEL] || !*r->text[C_QTY] || !*r->text[C_WL])
        return cell_error(t, i, col[!*r->text[C_MODEL] ? C_MODEL
                                     : !*r->text[C_QTY] ? C_QTY : C_WL],
                          err, "empty");
    cm_status st = cm_table_get_double(t, i, col[C_HELDOUT], &r->heldout,
                                       err);
    if (!st) st = cm_table_get_double(t, i, col[C_ERROR], &r->error, err);
    if (!st) st = parse_region(t, i, col[C_REGION], r, err);
    if (st) return st;
    cm_params_init(&r->ref);
    cm_err e2 = {0};
    if (*r->text[C_PRESET] && cm_params_load(&r->ref, r->text[C_PRESET], &e2))
        return cell_error(t, i, col[C_PRESET], err, e2.msg);
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", r->text[C_MACHINE]);
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok;
         tok = strtok_r(NULL, " ", &save))
        if (cm_params_assign(&r->ref, tok, &e2))
            return cell_error(t, i, col[C_MACHINE], err, e2.msg);
    return CM_OK;
}

cm_status cm_validity_from_table(const cm_table *t, cm_validity **out,
                                 cm_err *err)
{
    *out = NULL;
    size_t col[CM_VALIDITY_NCOLS];
    for (int k = 0; k < CM_VALIDITY_NCOLS; k++) {
        cm_status st =
            cm_table_col_require(t, cm_validity_columns[k], &col[k], err);
        if (st) return st;
    }
    cm_validity *v = calloc(1, sizeof *v);
    size_t n = cm_table_nrows(t);
    if (v) v->rows = calloc(n ? n : 1, sizeof *v->rows);
    if (!v || !v->rows) {
        cm_validity_free(v);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        cm_status st = parse_row(t, col, i, &v->rows[i], err);
        if (st) {
            cm_validity_free(v);
            return st;
        }
    }
    v->n = n;
    *out = v;
    return CM_OK;
}

cm_status cm_validity_read(const char *path, cm_validity **out, cm_err *err)
{
    cm_table *t = NULL;
    *out = NULL;
    cm_status st = cm_table_read_file(path, &t, err);
    if (!st) st = cm_validity_from_table(t, out, err);
    if (st) {
        cm_table_free(t);
        return st;
    }
    (*out)->t = t; /* the rows point into its cells */
    return CM_OK;
}

/* ---- judging a point ---------------------------------------------------- */

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int in_box(const vrow *r, const cm_param_info *pi)
{
    for (size_t b = 0; b < r->nbox; b++)
        if (r->box[b].param == pi) return 1;
    return 0;
}

/* Whether parameter pi takes part in the comparison of machines. */
static int compared(const vrow *r, const cm_param_info *pi,
                    cm_validity_uses_fn uses)
{
    static const char *const free_prefix[] = {"sim.", "wl.", "reuse.",
                                              "litmus."};
    for (size_t k = 0; k < sizeof free_prefix / sizeof *free_prefix; k++)
        if (starts(pi->name, free_prefix[k])) return 0;
    if (in_box(r, pi)) return 0;
    return !uses || !*r->text[C_PROTO] || uses(pi->name, r->text[C_PROTO]);
}

/* The first compared parameter (of those with mask[i] == want, all with
 * mask NULL) where p is not r's machine, or NULL. */
static const cm_param_info *machine_diff(const vrow *r, const cm_params *p,
                                         const char *mask, char want,
                                         cm_validity_uses_fn uses)
{
    for (size_t i = 0; i < cm_param_count(); i++) {
        const cm_param_info *pi = cm_param_at(i);
        if (mask && mask[i] != want) continue;
        if (compared(r, pi, uses) &&
            cm_param_get(p, pi) != cm_param_get(&r->ref, pi))
            return pi;
    }
    return NULL;
}

/* The first box parameter p lies outside, or -1. */
static long box_miss(const vrow *r, const cm_params *p)
{
    for (size_t b = 0; b < r->nbox; b++) {
        double v = cm_param_get(p, r->box[b].param);
        double lo = r->box[b].lo, hi = r->box[b].hi;
        if (!(v >= lo - 1e-9 * fabs(lo) && v <= hi + 1e-9 * fabs(hi)))
            return (long)b;
    }
    return -1;
}

static const char *machine_name(const vrow *r)
{
    return *r->text[C_PRESET] ? r->text[C_PRESET] : "the defaults";
}

/* The judgement of one point against the rows, given which rows'
 * machines are already known to match but for the parameters with mask
 * set (ok[r] from the base; NULL: compare everything). */
static void judge(const cm_validity *v, const cm_validity_query *q,
                  const char *ok, const char *mask,
                  cm_validity_estimate *e)
{
    const vrow *best = NULL;
    int why_rank = 0, candidates = 0;
    memset(e, 0, sizeof *e);
    e->error = NAN;
    for (size_t i = 0; i < v->n; i++) {
        const vrow *r = &v->rows[i];
        if (strcmp(r->text[C_MODEL], q->model) ||
            strcmp(r->text[C_OUT], q->output) ||
            (q->protocol && strcmp(r->text[C_PROTO], q->protocol)))
            continue;
        candidates++;
        if (strcmp(r->text[C_WL], "all") &&
            (!q->workload || strcmp(r->text[C_WL], q->workload)))
            continue;
        char v1[32], v2[32];
        const cm_param_info *d =
            ok && !ok[i] ? NULL : machine_diff(r, q->point, mask, 1, q->uses);
        if (ok && !ok[i]) { /* the base already differs: find where */
            d = machine_diff(r, q->point, NULL, 0, q->uses);
        }
        if (d) {
            if (why_rank < 1) {
                cm_param_format(d, cm_param_get(q->point, d), v1, sizeof v1);
                cm_param_format(d, cm_param_get(&r->ref, d), v2, sizeof v2);
                snprintf(e->note, sizeof e->note,
                         "outside: %s=%s where every validated machine "
                         "differs (%s: %s)",
                         d->name, v1, machine_name(r), v2);
                why_rank = 1;
            }
            continue;
        }
        long b = box_miss(r, q->point);
        if (b >= 0) {
            if (why_rank < 2) {
                const vbox *x = &r->box[b];
                cm_param_format(x->param, cm_param_get(q->point, x->param),
                                v1, sizeof v1);
                snprintf(e->note, sizeof e->note,
                         "outside: %s=%s beyond the validated %g:%g (%s)",
                         x->param->name, v1, x->lo, x->hi, machine_name(r));
                why_rank = 2;
            }
            continue;
        }
        if (!best || r->scope < best->scope) best = r;
    }
    if (best) {
        e->inside = 1;
        e->error = best->error;
        e->relative = best->relative;
        snprintf(e->note, sizeof e->note, "%s, %s%s, %s (%.0f held out)",
                 machine_name(best),
                 strcmp(best->text[C_WL], "all") ? "" : "all workloads",
                 strcmp(best->text[C_WL], "all") ? best->text[C_WL] : "",
                 best->text[C_REGION], best->heldout);
    } else if (!candidates) {
        snprintf(e->note, sizeof e->note,
                 "outside: no validation of %s's %s%s%s", q->model,
                 q->output, q->protocol ? " under " : "",
                 q->protocol ? q->protocol : "");
    } else if (!why_rank) {
        snprintf(e->note, sizeof e->note, "outside: %s was validated only "
                 "on other workloads", q->model);
    }
}

void cm_validity_estimate_at(const cm_validity *v, const cm_validity_query *q,
                             cm_validity_estimate *e)
{
    judge(v, q, NULL, NULL, e);
}

/* ---- a result table ----------------------------------------------------- */

#define MAX_PROTOS 16

typedef struct annot {
    const cm_validity *v;
    const cm_table *t;
    const char *model;
    cm_validity_uses_fn uses;
    cm_validity_alias_fn alias;
    const cm_params *base;
    const cm_param_info **colparam; /* per column of t: its parameter */
    char *mask;                     /* per registry parameter: a column's */
    char *ok;                       /* per row of v: base machine matches */
} annot;

/* The point of table row i under protocol proto (NULL: none). */
static cm_status row_point(const annot *a, size_t i, const char *proto,
                           cm_params *p, cm_err *err)
{
    *p = *a->base;
    for (size_t c = 0; c < cm_table_ncols(a->t); c++) {
        const cm_param_info *pi = a->colparam[c];
        if (!pi && a->alias && proto)
            pi = cm_param_find(a->alias(cm_table_colname(a->t, c), proto));
        if (!pi) continue;
        double x;
        cm_err e2 = {0};
        if (cm_param_parse(pi, cm_table_cell(a->t, i, c), &x, &e2))
            return cell_error(a->t, i, c, err, e2.msg);
        cm_param_put(p, pi, x);
    }
    return CM_OK;
}

/* The distinct protocols of v's rows for the model's output. */
static size_t protocols_of(const annot *a, const char *output,
                           const char **out)
{
    size_t n = 0;
    for (size_t i = 0; i < a->v->n; i++) {
        const vrow *r = &a->v->rows[i];
        if (strcmp(r->text[C_MODEL], a->model) ||
            strcmp(r->text[C_OUT], output))
            continue;
        size_t k = 0;
        while (k < n && strcmp(out[k], r->text[C_PROTO])) k++;
        if (k == n && n < MAX_PROTOS) out[n++] = r->text[C_PROTO];
    }
    return n;
}

static cm_status estimate_row(const annot *a, size_t i, const char *proto,
                              const char *workload,
                              const cm_validity_output *o,
                              cm_validity_estimate *e, cm_err *err)
{
    const char *protos[MAX_PROTOS];
    size_t np = proto ? 1 : protocols_of(a, o->column, protos);
    if (proto) protos[0] = proto;
    cm_validity_estimate first = {0};
    first.error = NAN;
    snprintf(first.note, sizeof first.note,
             "outside: no validation of %s's %s%s%s", a->model, o->column,
             proto ? " under " : "", proto ? proto : "");
    for (size_t k = 0; k < np; k++) {
        cm_params p;
        cm_status st = row_point(a, i, protos[k], &p, err);
        if (st) return st;
        cm_validity_query q = {a->model, protos[k], o->column, workload, &p,
                               a->uses};
        judge(a->v, &q, a->ok, a->mask, e);
        if (e->inside && e->relative != o->relative) {
            e->inside = 0; /* another measure than the column's */
            e->error = NAN;
            snprintf(e->note, sizeof e->note, "outside: validity rows of "
                     "%s's %s in another measure", a->model, o->column);
        }
        if (e->inside) return CM_OK;
        if (k == 0) first = *e;
    }
    *e = first;
    return CM_OK;
}

cm_status cm_validity_annotate(const cm_validity *v, const char *model,
                               const char *protocol, const char *workload,
                               const cm_params *base, const cm_table *t,
                               const cm_validity_output *outputs, size_t n,
                               cm_validity_uses_fn uses,
                               cm_validity_alias_fn alias, cm_table **out,
                               cm_err *err)
{
    *out = NULL;
    size_t nc = cm_table_ncols(t), np = cm_param_count();
    long pcol = cm_table_col_find(t, "protocol");
    long *ocol = calloc(n ? n : 1, sizeof *ocol);
    char (*names)[160] = calloc(2 * (n ? n : 1), sizeof *names);
    const char **hdr = calloc(nc + 2 * n, sizeof *hdr);
    const char **cells = calloc(nc + 2 * n, sizeof *cells);
    char (*buf)[512] = calloc(2 * (n ? n : 1), sizeof *buf);
    annot a = {v, t, model, uses, alias, base,
               calloc(nc ? nc : 1, sizeof *a.colparam), calloc(np, 1),
               calloc(v->n ? v->n : 1, 1)};
    cm_status st = ocol && names && hdr && cells && buf && a.colparam &&
                           a.mask && a.ok
                       ? CM_OK
                       : cm_err_set(err, CM_EINTERNAL, "out of memory");
    size_t nh = nc, used = 0;
    for (size_t c = 0; !st && c < nc; c++) {
        hdr[c] = cm_table_colname(t, c);
        a.colparam[c] = cm_param_find(hdr[c]);
    }
    /* parameters a row may set: the rest are the base's, checked once */
    for (size_t i = 0; !st && i < np; i++) {
        const cm_param_info *pi = cm_param_at(i);
        for (size_t c = 0; c < nc; c++) {
            const char *al = NULL;
            for (size_t r = 0; alias && !al && r < v->n; r++)
                if (alias(hdr[c], v->rows[r].text[C_PROTO]) &&
                    !strcmp(alias(hdr[c], v->rows[r].text[C_PROTO]),
                            pi->name))
                    al = pi->name;
            if (a.colparam[c] == pi || al) a.mask[i] = 1;
        }
    }
    for (size_t r = 0; !st && r < v->n; r++)
        a.ok[r] = !machine_diff(&v->rows[r], base, a.mask, 0, uses);
    for (size_t k = 0; !st && k < n; k++) {
        ocol[k] = cm_table_col_find(t, outputs[k].column);
        if (ocol[k] < 0) continue;
        snprintf(names[2 * used], sizeof names[0], "%s_%s",
                 outputs[k].column, outputs[k].relative ? "rel_err"
                                                        : "abs_err");
        snprintf(names[2 * used + 1], sizeof names[0], "%s_domain",
                 outputs[k].column);
        hdr[nh++] = names[2 * used];
        hdr[nh++] = names[2 * used + 1];
        used++;
    }
    cm_table *o = st ? NULL : cm_table_new(nh, hdr);
    if (!st && !o) st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t i = 0; !st && i < cm_table_nrows(t); i++) {
        const char *proto =
            pcol >= 0 ? cm_table_cell(t, i, (size_t)pcol) : protocol;
        for (size_t c = 0; c < nc; c++) cells[c] = cm_table_cell(t, i, c);
        size_t j = 0;
        for (size_t k = 0; !st && k < n; k++) {
            if (ocol[k] < 0) continue;
            cm_validity_estimate e;
            st = estimate_row(&a, i, proto, workload, &outputs[k], &e, err);
            if (st) break;
            cm_fmt_optional(buf[2 * j], e.inside ? e.error : NAN);
            snprintf(buf[2 * j + 1], sizeof buf[0], "%s", e.note);
            cells[nc + 2 * j] = buf[2 * j];
            cells[nc + 2 * j + 1] = buf[2 * j + 1];
            j++;
        }
        if (!st) st = cm_table_append(o, cells, err);
    }
    if (st) cm_table_free(o);
    else *out = o;
    free(ocol);
    free(names);
    free(hdr);
    free(cells);
    free(buf);
    free(a.colparam);
    free(a.mask);
    free(a.ok);
    return st;
}
