/* validate_design.c - a validation's points and what is reported of them
 * beyond the overall summary (validate_impl.h).
 *
 * Layout.  Points are numbered machine-major, then workload, then within
 * the cell either the grid's odometer (last axis fastest) or the cell's
 * slice of a sliced Latin hypercube (solvers/lhs.h), so a point's number
 * says where it is, whatever shard runs it.
 *
 * Calibration on a Latin hypercube.  No point is special, so the points
 * calibrated on are drawn: at most a fifth of every workload's points.
 * A model fitted over every point (the MSHR latency correction, the L1
 * interleaving) takes floor(n_w / 5) of workload w's n_w points, chosen
 * at random by a GSL taus2 stream seeded with the design seed (another
 * generator than the design's mt19937, so the two draws are unrelated); a
 * model that carries a workload's profile (the coherence models) takes
 * floor(m / 5) of each cell's m: the first of the slice, whose order is
 * random, or (carrying down the last parameter only) those with its
 * largest values.
 *
 * Regions (validity.csv).  Per quantity and machine: the whole design;
 * each half-and-half part of it (every design parameter below or above
 * its range's midpoint on its own scale: 2^d parts), so an estimate can
 * follow the error across the design space; and each workload's points.
 * A region's box is the span its points cover (calibration points
 * included: they were simulated there), its error the mean over its
 * held-out points by the quantity's target measure.  Regions with fewer
 * than MIN_HELDOUT held-out points are left out: a point in them falls to
 * a larger region. */
#include "study/validate_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "data/atomic.h"
#include "data/validity.h"
#include "solvers/lhs.h"

#define MIN_HELDOUT 3

void cm_validate_design_dims(const char *model, const cm_protocol *proto,
                             cm_validate_dims *d)
{
    memset(d, 0, sizeof *d);
    for (size_t i = 0; i < cm_param_design_count(); i++) {
        const cm_param_design *x = cm_param_design_at(i);
        if (!cm_param_design_for(x, model) ||
            (proto && !cm_protocol_uses_param(
                          proto, cm_param_design_param(x)->name)))
            continue;
        if (x->scale == CM_DS_INPUT && d->ninputs < CM_VALIDATE_MAXDIM)
            d->input[d->ninputs++] = x;
        else if (x->scale != CM_DS_INPUT && d->ndims < CM_VALIDATE_MAXDIM)
            d->dim[d->ndims++] = x;
    }
}

static size_t cells(const vrun *r) { return r->nbases * r->cfg->nworkloads; }

cm_status cm_vrun_layout(vrun *r, cm_err *err)
{
    const cm_validate_config *c = r->cfg;
    r->nbases = c->nbases ? c->nbases : 1;
    r->bases = c->nbases ? c->bases : c->base;
    r->named = c->nbases > 0;
    r->design = c->design_n > 0;
    cm_validate_design_dims(c->model->name, c->protocol, &r->dims);
    if (r->design) {
        if (r->dims.ndims == 0)
            return cm_err_set(err, CM_EINPUT,
                              "validate %s --design: no design range of "
                              "params.def applies under %s (give --grid)",
                              c->model->name, c->protocol->name);
        r->naxes = r->dims.ndims;
        for (size_t a = 0; a < r->naxes; a++)
            r->axis[a] = cm_param_design_param(r->dims.dim[a]);
        r->per_cell = (c->design_n + cells(r) - 1) / cells(r);
    } else {
        if (c->naxes > MAX_AXES)
            return cm_err_set(err, CM_EINPUT, "validate: at most %d grid "
                              "axes", MAX_AXES);
        r->naxes = c->naxes;
        r->per_cell = 1;
        for (size_t a = 0; a < r->naxes; a++) {
            r->axis[a] = c->axes[a].param;
            r->per_cell *= c->axes[a].n;
        }
    }
    r->n = cells(r) * r->per_cell;
    return CM_OK;
}

void cm_vrun_params(const vrun *r, size_t i, cm_params *p)
{
    const vpoint *pt = &r->pts[i];
    *p = r->bases[pt->base];
    for (size_t a = 0; a < r->naxes; a++)
        cm_param_put(p, r->axis[a], pt->coord[a]);
}

void cm_vrun_label(const vrun *r, size_t i, char *buf, size_t len)
{
    const vpoint *pt = &r->pts[i];
    int k = snprintf(buf, len, "%s%s%s",
                     r->named ? r->cfg->base_names[pt->base] : "",
                     r->named ? " " : "", r->wl[pt->wl]->name);
    for (size_t a = 0; a < r->naxes && k > 0 && (size_t)k < len; a++) {
        char v[32];
        cm_param_format(r->axis[a], pt->coord[a], v, sizeof v);
        k += snprintf(buf + k, len - (size_t)k, " %s=%s", r->axis[a]->name,
                      v);
    }
}

/* The grid's coordinates, the same in every cell. */
static cm_status grid_coords(vrun *r, cm_err *err)
{
    const cm_validate_config *c = r->cfg;
    cm_grid g;
    cm_status st = cm_grid_init(&g, c->axes, c->naxes, err);
    if (st) return st;
    cm_params p = r->bases[0];
    for (size_t j = 0; cm_grid_next(&g, &p); j++)
        for (size_t cell = 0; cell < cells(r); cell++)
            for (size_t a = 0; a < r->naxes; a++)
                r->pts[cell * r->per_cell + j].coord[a] =
                    cm_param_get(&p, r->axis[a]);
    cm_grid_free(&g);
    return CM_OK;
}

static cm_status design_coords(vrun *r, cm_err *err)
{
    size_t nd = r->naxes, m = r->per_cell;
    double *u = malloc(r->n * nd * sizeof *u);
    if (!u) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st =
        cm_lhs_sliced(r->cfg->design_seed, cells(r), m, nd, u, err);
    for (size_t i = 0; !st && i < r->n; i++)
        for (size_t a = 0; a < nd; a++)
            r->pts[i].coord[a] = cm_param_design_value(
                r->dims.dim[a], u[i * nd + a], &r->bases[r->pts[i].base]);
    free(u);
    return st;
}

/* Calibration points of a Latin hypercube (see the top). */
static cm_status design_roles(vrun *r, cm_err *err)
{
    const cm_validate_config *c = r->cfg;
    size_t m = r->per_cell, nwl = c->nworkloads;
    if (c->model->calibrate_at == CM_VC_SPREAD) {
        size_t nw = r->nbases * m, k = cm_validate_calibration_count(nw);
        if (k == 0)
            return cm_err_set(err, CM_EINPUT,
                              "--design lhs:%zu gives each workload %zu "
                              "points; calibrating on at most a fifth of "
                              "them needs 5 (give lhs:%zu or more, or fewer "
                              "workloads or presets)",
                              c->design_n, nw,
                              cells(r) * ((5 + r->nbases - 1) / r->nbases));
        gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
        size_t *all = malloc(nw * sizeof *all), *pick = malloc(k * sizeof *pick);
        if (!rng || !all || !pick) {
            gsl_rng_free(rng);
            free(all);
            free(pick);
            return cm_err_set(err, CM_EINTERNAL, "out of memory");
        }
        gsl_rng_set(rng, c->design_seed);
        for (size_t w = 0; w < nwl; w++) {
            for (size_t b = 0, j = 0; b < r->nbases; b++)
                for (size_t q = 0; q < m; q++, j++)
                    all[j] = (b * nwl + w) * m + q;
            gsl_ran_choose(rng, pick, k, all, nw, sizeof *all);
            for (size_t j = 0; j < k; j++) r->pts[pick[j]].cal = 1;
        }
        gsl_rng_free(rng);
        free(all);
        free(pick);
        return CM_OK;
    }
    size_t k = cm_validate_calibration_count(m);
    if (k == 0)
        return cm_err_set(err, CM_EINPUT,
                          "--design lhs:%zu gives each workload x preset "
                          "cell %zu points; the %s model calibrates on at "
                          "most a fifth of each cell's and needs 5 (give "
                          "lhs:%zu or more, or fewer workloads or presets)",
                          c->design_n, m, c->model->name, 5 * cells(r));
    for (size_t cell = 0; cell < cells(r); cell++) {
        vpoint *p = r->pts + cell * m;
        if (c->model->calibrate_at == CM_VC_PER_WORKLOAD) {
            for (size_t j = 0; j < k; j++) p[j].cal = 1;
            continue;
        }
        /* the k largest of the last parameter (ties: the later point) */
        size_t last = r->naxes - 1;
        for (size_t j = 0; j < k; j++) {
            size_t best = m;
            for (size_t q = 0; q < m; q++)
                if (!p[q].cal &&
                    (best == m || p[q].coord[last] >= p[best].coord[last]))
                    best = q;
            p[best].cal = 1;
        }
    }
    return CM_OK;
}

/* Calibration points of a grid: at the even stride over all points, or
 * over each cell's (validate.h). */
static void grid_roles(vrun *r)
{
    size_t m = r->per_cell;
    for (size_t i = 0; i < r->n; i++) {
        vpoint *pt = &r->pts[i];
        switch (r->cfg->model->calibrate_at) {
        case CM_VC_PER_WORKLOAD:
            pt->cal = cm_validate_is_calibration(i % m, m);
            break;
        case CM_VC_WORKLOAD_LAST:
            pt->cal = i % m >= m - cm_validate_calibration_count(m);
            break;
        default:
            pt->cal = cm_validate_is_calibration(i, r->n);
        }
    }
}

cm_status cm_vrun_points(vrun *r, cm_err *err)
{
    r->pts = calloc(r->n ? r->n : 1, sizeof *r->pts);
    if (!r->pts) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t i = 0; i < r->n; i++) {
        size_t cell = i / r->per_cell;
        r->pts[i].base = cell / r->cfg->nworkloads;
        r->pts[i].wl = cell % r->cfg->nworkloads;
        for (size_t k = 0; k < MAX_AXES; k++) {
            r->pts[i].in_lo[k] = INFINITY;
            r->pts[i].in_hi[k] = -INFINITY;
        }
    }
    if (!r->design) {
        cm_status st = grid_coords(r, err);
        if (!st) grid_roles(r);
        return st;
    }
    cm_status st = design_coords(r, err);
    return st ? st : design_roles(r, err);
}

double cm_vrun_rel_error(double model, double sim)
{
    return sim != 0 ? (model - sim) / sim : NAN;
}

double cm_vrun_target_error(const cm_validate_qty *q, double model,
                            double sim)
{
    return q->target == CM_VT_MARE ? fabs(cm_vrun_rel_error(model, sim))
                                   : fabs(model - sim);
}

/* ---- per preset and per workload ---------------------------------------- */

/* Summarises the points with keep(point) into s (worst_at left empty). */
static void summarise_subset(const vrun *r, int preset, size_t which,
                             cm_validate_summary *s)
{
    cm_validate_point *pts = calloc(r->n ? r->n : 1, sizeof *pts);
    size_t n = 0;
    for (size_t i = 0; pts && i < r->n; i++) {
        const vpoint *pt = &r->pts[i];
        if ((preset ? pt->base : pt->wl) != which) continue;
        pts[n].cal = pt->cal;
        memcpy(pts[n].model, pt->model, sizeof pts[n].model);
        memcpy(pts[n].sim, pt->sim, sizeof pts[n].sim);
        n++;
    }
    const cm_validate_model *m = r->cfg->model;
    cm_validate_summarise(m->qty, m->nqty, pts, n, s);
    free(pts);
}

void cm_vrun_groups(const vrun *r, cm_validate_summary *s)
{
    const cm_validate_model *m = r->cfg->model;
    s->ngroups = 0;
    for (int preset = 1; preset >= 0; preset--) {
        size_t count = preset ? (r->named ? r->nbases : 0)
                              : r->cfg->nworkloads;
        for (size_t g = 0; g < count && s->ngroups < CM_VALIDATE_MAXGROUPS;
             g++) {
            cm_validate_summary sub;
            summarise_subset(r, preset, g, &sub);
            struct cm_validate_group *x = &s->group[s->ngroups++];
            snprintf(x->name, sizeof x->name, "%s",
                     preset ? r->cfg->base_names[g] : r->wl[g]->name);
            x->preset = preset;
            x->heldout = sub.heldout_points;
            for (size_t q = 0; q < m->nqty; q++) {
                const cm_validate_qty *qt = &m->qty[q];
                x->err[q] = qt->target == CM_VT_MARE ? sub.mare[q]
                                                     : sub.mean_abs[q];
                double limit = (preset ? 1 : 2) * qt->target_value;
                /* no held-out value (a workload without fences has no
                 * fence wait): nothing to meet or miss */
                x->met[q] = qt->target == CM_VT_NONE ? -1
                            : isfinite(x->err[q])    ? x->err[q] <= limit
                                                     : -2;
            }
        }
    }
}

static cm_status write_group_file(const vrun *r, const cm_validate_summary *s,
                                  int preset, cm_err *err)
{
    static const char *const hdr[] = {
        "group",          "quantity",      "heldout_points", "mare",
        "max_rel_error",  "mean_abs_error", "max_abs_error", "target",
        "target_value",   "limit",         "limit_met"};
    enum { NCOL = sizeof hdr / sizeof *hdr };
    const char *names[NCOL];
    memcpy(names, hdr, sizeof names);
    names[0] = preset ? "preset" : "workload";
    const cm_validate_model *m = r->cfg->model;
    cm_table *t = cm_table_new(NCOL, names);
    if (!t) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st = CM_OK;
    size_t g = 0;
    for (size_t k = 0; k < s->ngroups && !st; k++) {
        const struct cm_validate_group *x = &s->group[k];
        if (x->preset != preset) continue;
        cm_validate_summary sub;
        summarise_subset(r, preset, g++, &sub);
        for (size_t q = 0; q < m->nqty && !st; q++) {
            const cm_validate_qty *qt = &m->qty[q];
            char c[NCOL][CM_VALIDATE_LABEL_MAX];
            snprintf(c[0], sizeof c[0], "%s", x->name);
            snprintf(c[1], sizeof c[1], "%s", qt->name);
            snprintf(c[2], sizeof c[2], "%zu", sub.heldout_points);
            cm_fmt_optional(c[3], sub.mare[q]);
            cm_fmt_optional(c[4], sub.max_rel[q]);
            cm_fmt_optional(c[5], sub.mean_abs[q]);
            cm_fmt_optional(c[6], sub.max_abs[q]);
            snprintf(c[7], sizeof c[7], "%s",
                     qt->target == CM_VT_MARE       ? "mare"
                     : qt->target == CM_VT_MEAN_ABS ? "mean_abs_error"
                                                    : "none");
            int none = qt->target == CM_VT_NONE;
            cm_fmt_optional(c[8], none ? NAN : qt->target_value);
            cm_fmt_optional(c[9], none ? NAN
                                       : (preset ? 1 : 2) * qt->target_value);
            snprintf(c[10], sizeof c[10], "%s",
                     x->met[q] == -1   ? "no target"
                     : x->met[q] == -2 ? "no value"
                     : x->met[q]       ? "yes"
                                       : "no");
            const char *cells_[NCOL];
            for (int j = 0; j < NCOL; j++) cells_[j] = c[j];
            st = cm_table_append(t, cells_, err);
        }
    }
    char path[4096];
    if (!st && (size_t)snprintf(path, sizeof path, "%s/summary_%s.csv",
                                r->cfg->outdir,
                                preset ? "presets" : "workloads") >=
                   sizeof path)
        st = cm_err_set(err, CM_EINPUT, "%s: path too long", r->cfg->outdir);
    if (!st) st = cm_table_write_file(t, path, err);
    cm_table_free(t);
    return st;
}

cm_status cm_vrun_write_groups(const vrun *r, const cm_validate_summary *s,
                               cm_err *err)
{
    cm_status st = write_group_file(r, s, 0, err);
    if (!st && r->named) st = write_group_file(r, s, 1, err);
    return st;
}

/* ---- validity.csv ------------------------------------------------------- */

static int uses(const vrun *r, const cm_param_info *pi)
{
    return cm_protocol_uses_param(r->cfg->protocol, pi->name);
}

static int in_region_box(const vrun *r, const cm_param_info *pi)
{
    for (size_t a = 0; a < r->naxes; a++)
        if (r->axis[a] == pi) return 1;
    for (size_t k = 0; k < r->dims.ninputs; k++)
        if (cm_param_design_param(r->dims.input[k]) == pi) return 1;
    return 0;
}

/* What machine b's validated model differs in from its preset (or the
 * defaults): "name=value ...", the calibrated values included, over the
 * parameters a validity lookup compares (data/validity.h). */
static cm_status machine_text(const vrun *r, size_t b, const cm_table *calib,
                              char *buf, size_t len, cm_err *err)
{
    cm_params ref, got = r->bases[b];
    cm_params_init(&ref);
    cm_status st = r->named ? cm_params_load(&ref, r->cfg->base_names[b], err)
                            : CM_OK;
    long pc = calib ? cm_table_col_find(calib, "parameter") : -1;
    long vc = calib ? cm_table_col_find(calib, "value") : -1;
    for (size_t i = 0; !st && pc >= 0 && vc >= 0 && i < cm_table_nrows(calib);
         i++)
        st = cm_params_set(&got, cm_table_cell(calib, i, (size_t)pc),
                           cm_table_cell(calib, i, (size_t)vc), err);
    size_t k = 0;
    buf[0] = '\0';
    static const char *const free_prefix[] = {"sim.", "wl.", "reuse.",
                                              "litmus."};
    for (size_t i = 0; !st && i < cm_param_count(); i++) {
        const cm_param_info *pi = cm_param_at(i);
        int skip = in_region_box(r, pi) || !uses(r, pi);
        for (size_t f = 0; f < 4; f++)
            skip |= !strncmp(pi->name, free_prefix[f], strlen(free_prefix[f]));
        if (skip || cm_param_get(&got, pi) == cm_param_get(&ref, pi))
            continue;
        char v[64];
        cm_param_format(pi, cm_param_get(&got, pi), v, sizeof v);
        int w = snprintf(buf + k, len - k, "%s%s=%s", k ? " " : "", pi->name,
                         v);
        if (w < 0 || (size_t)w >= len - k)
            return cm_err_set(err, CM_EINTERNAL, "validity: machine too long");
        k += (size_t)w;
    }
    return st;
}

/* A region: which points it holds. */
typedef struct region {
    size_t base;
    long wl;       /* -1: all */
    long part;     /* -1: whole; else bit a set = upper half of axis a */
} region;

static int holds(const vrun *r, const region *g, const vpoint *pt,
                 const double *mid)
{
    if (pt->base != g->base || (g->wl >= 0 && pt->wl != (size_t)g->wl))
        return 0;
    for (size_t a = 0; g->part >= 0 && a < r->naxes; a++)
        if ((pt->coord[a] >= mid[a]) != (int)((unsigned long)g->part >> a & 1))
            return 0;
    return 1;
}

/* Appends the region's row for quantity q, if it has enough held-out
 * points. */
static cm_status region_row(const vrun *r, const region *g, size_t q,
                            const double *mid, const char *machine,
                            cm_table *t, cm_err *err)
{
    const cm_validate_model *m = r->cfg->model;
    const cm_validate_qty *qt = &m->qty[q];
    double lo[2 * MAX_AXES], hi[2 * MAX_AXES], sum = 0;
    size_t nin = r->dims.ninputs, held = 0;
    for (size_t a = 0; a < r->naxes + nin; a++) {
        lo[a] = INFINITY;
        hi[a] = -INFINITY;
    }
    for (size_t i = 0; i < r->n; i++) {
        const vpoint *pt = &r->pts[i];
        if (!holds(r, g, pt, mid)) continue;
        for (size_t a = 0; a < r->naxes; a++) {
            lo[a] = fmin(lo[a], pt->coord[a]);
            hi[a] = fmax(hi[a], pt->coord[a]);
        }
        for (size_t k = 0; k < nin; k++) {
            lo[r->naxes + k] = fmin(lo[r->naxes + k], pt->in_lo[k]);
            hi[r->naxes + k] = fmax(hi[r->naxes + k], pt->in_hi[k]);
        }
        double e = cm_vrun_target_error(qt, pt->model[q], pt->sim[q]);
        if (!pt->cal && isfinite(e)) {
            sum += e;
            held++;
        }
    }
    if (held < MIN_HELDOUT) return CM_OK;
    char box[2048] = "";
    size_t k = 0;
    for (size_t a = 0; a < r->naxes + nin; a++) {
        const cm_param_info *pi =
            a < r->naxes ? r->axis[a]
                         : cm_param_design_param(r->dims.input[a - r->naxes]);
        if (!isfinite(lo[a]) || !isfinite(hi[a])) continue;
        char l[32], h[32];
        cm_fmt_double(l, lo[a]);
        cm_fmt_double(h, hi[a]);
        int w = snprintf(box + k, sizeof box - k, "%s%s=%s:%s", k ? " " : "",
                         pi->name, l, h);
        if (w > 0 && (size_t)w < sizeof box - k) k += (size_t)w;
    }
    const char *out = m->output ? m->output(q, r->cfg->protocol->name) : NULL;
    char held_s[32], err_s[32];
    snprintf(held_s, sizeof held_s, "%zu", held);
    cm_fmt_double(err_s, sum / (double)held);
    const char *cells_[CM_VALIDITY_NCOLS] = {
        m->name,
        r->cfg->protocol->name,
        qt->name,
        out ? out : "",
        qt->target == CM_VT_MARE ? "mare" : "mean_abs_error",
        r->named ? r->cfg->base_names[g->base] : "",
        g->wl >= 0 ? r->wl[g->wl]->name : "all",
        g->wl >= 0 ? "workload" : g->part >= 0 ? "part" : "whole",
        box,
        machine,
        held_s,
        err_s};
    return cm_table_append(t, cells_, err);
}

cm_status cm_vrun_write_validity(const vrun *r, const cm_table *calib,
                                 cm_err *err)
{
    cm_table *t = cm_table_new(CM_VALIDITY_NCOLS, cm_validity_columns);
    if (!t) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st = CM_OK;
    /* parts only of a design, whose axes are ranges with a middle */
    size_t nparts = r->design && r->naxes <= 4 ? (size_t)1 << r->naxes : 0;
    char machine[4096];
    for (size_t b = 0; b < r->nbases && !st; b++) {
        double mid[MAX_AXES];
        for (size_t a = 0; r->design && a < r->naxes; a++)
            mid[a] = cm_param_design_value(r->dims.dim[a], 0.5, &r->bases[b]);
        st = machine_text(r, b, calib, machine, sizeof machine, err);
        for (size_t q = 0; q < r->cfg->model->nqty && !st; q++) {
            region g = {b, -1, -1};
            st = region_row(r, &g, q, mid, machine, t, err);
            for (size_t p = 0; p < nparts && !st; p++) {
                g.part = (long)p;
                st = region_row(r, &g, q, mid, machine, t, err);
            }
            g.part = -1;
            for (size_t w = 0; w < r->cfg->nworkloads && !st; w++) {
                g.wl = (long)w;
                st = region_row(r, &g, q, mid, machine, t, err);
            }
        }
    }
    char path[4096];
    if (!st && (size_t)snprintf(path, sizeof path, "%s/validity.csv",
                                r->cfg->outdir) >= sizeof path)
        st = cm_err_set(err, CM_EINPUT, "%s: path too long", r->cfg->outdir);
    if (!st) st = cm_table_write_file(t, path, err);
    cm_table_free(t);
    return st;
}
