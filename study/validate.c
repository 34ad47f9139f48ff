/* validate.c - the model-against-simulation driver of validate.h.
 *
 * The points are laid out before anything runs (validate_design.c):
 * machine-major, then workload, then grid position (the axes as an
 * odometer, last fastest) or design point, so index i of n is a fixed
 * point of the design.  On a grid, calibration points are picked by index
 * at (j + 1/2) n / ncal, j < ncal = floor(n / 5): an even stride over that
 * numbering, which visits every workload and, as the stride is rarely a
 * multiple of an axis length, different axis values.  Nothing depends on
 * time or on the order of floating-point reductions across runs, so the
 * files are byte-identical from run to run.
 *
 * Each simulation's output is a file in outdir/runs the moment it ends,
 * and the model reads every point back from those files (exactly: numbers
 * are written in the shortest form that reads back to the same double).
 * So a shard's files merged with the others', or a killed run's resumed,
 * give the results of one uninterrupted run byte for byte: the files are
 * the only path from the simulator to the model. */
#include "study/validate.h"
#include "study/validate_impl.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "data/atomic.h"
#include "data/columns.h"
#include "plots/plot.h"
#include "sim/gpu.h"
#include "sim/profile_rec.h"
#include "data/workload.h"

size_t cm_validate_calibration_count(size_t n) { return n / 5; }

int cm_validate_is_calibration(size_t index, size_t n)
{
    size_t ncal = cm_validate_calibration_count(n);
    for (size_t j = 0; j < ncal; j++)
        if ((size_t)floor(((double)j + 0.5) * (double)n / (double)ncal) ==
            index)
            return 1;
    return 0;
}

/* Runs one point under proto; with a profile, records it (*prof). */
static cm_status run_engine(const cm_protocol *proto, const cm_params *p,
                            const cm_workload_profile *wl, cm_stats *stats,
                            cm_profile **prof, cm_err *err)
{
    cm_profile_rec *rec = NULL;
    cm_status st = prof ? cm_profile_rec_new(p, proto, &rec, err) : CM_OK;
    cm_gpu_run_config gc = {.params = p,
                            .workload = wl,
                            .protocol = proto,
                            .observer = rec ? cm_profile_rec_observer(rec)
                                            : NULL};
    cm_gpu_result res;
    if (!st) st = cm_gpu_run(&gc, stats, &res, err);
    cm_table *t = NULL;
    if (!st && rec) st = cm_profile_rec_table(rec, stats, res.cycles, &t, err);
    if (!st && rec) st = cm_profile_from_table(t, prof, err);
    cm_table_free(t);
    cm_profile_rec_free(rec);
    return st;
}

cm_status cm_validate_observe_one(const cm_validate_model *m,
                                  const cm_params *p,
                                  const cm_workload_profile *wl,
                                  const cm_protocol *proto, void *obs,
                                  cm_profile **prof, cm_err *err)
{
    *prof = NULL;
    cm_stats *stats = cm_stats_new();
    if (!stats) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_stat_row *rows = NULL;
    size_t nrows = 0;
    cm_status st = run_engine(proto, p, wl, stats,
                              m->needs_profile ? prof : NULL, err);
    if (!st) st = cm_stats_rows(stats, &rows, &nrows, err);
    cm_validate_run_info info = {p,    wl,    proto,   *prof,
                                 rows, nrows, wl->name, 0};
    if (!st) st = m->observe(&info, obs, err);
    free(rows);
    cm_stats_free(stats);
    return st;
}

/* outdir/runs/<i>[.r<rep>].<kind>.csv, i padded to the width of the
 * last point's number so that the files list in order. */
static cm_status run_path(const vrun *r, size_t i, size_t rep,
                          const char *kind, char *buf, size_t len,
                          cm_err *err)
{
    int width = snprintf(NULL, 0, "%zu", r->n - 1);
    char rs[32] = "";
    if (r->nrep > 1) snprintf(rs, sizeof rs, ".r%zu", rep);
    int k = snprintf(buf, len, "%s/runs/%0*zu%s.%s.csv", r->cfg->outdir,
                     width, i, rs, kind);
    if (k < 0 || (size_t)k >= len)
        return cm_err_set(err, CM_EINPUT, "%s: output path too long",
                          r->cfg->outdir);
    return CM_OK;
}

static int file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* A point's statistics are written after its profile, so their file
 * alone says the point is complete. */
static int run_complete(const vrun *r, size_t i, size_t rep)
{
    char path[4096];
    return !run_path(r, i, rep, "stats", path, sizeof path, NULL) &&
           file_exists(path);
}

/* Simulates replicate rep of point i and writes its files: the coherence
 * profile first, then the statistics. */
static cm_status simulate_point(vrun *r, const cm_params *p, size_t i,
                                size_t rep, cm_err *err)
{
    char label[LABEL_MAX], path[4096];
    cm_vrun_label(r, i, label, sizeof label);
    cm_status st = cm_params_validate(p, err);
    cm_stats *stats = st ? NULL : cm_stats_new();
    if (!st && !stats) st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_profile *prof = NULL;
    if (!st)
        st = run_engine(r->cfg->protocol, p, r->wl[r->pts[i].wl], stats,
                        r->cfg->model->needs_profile ? &prof : NULL, err);
    if (!st && prof) st = run_path(r, i, rep, "profile", path, sizeof path,
                                   err);
    if (!st && prof) st = cm_profile_write(prof, path, err);
    if (!st) st = run_path(r, i, rep, "stats", path, sizeof path, err);
    if (!st) st = cm_stats_write(stats, path, err);
    cm_profile_free(prof);
    cm_stats_free(stats);
    if (st) cm_err_prefix(err, label);
    return st;
}

/* Hands replicate rep of point i, read back from its files, to the
 * model.  The profile stays in r->prof until the last predict. */
static cm_status observe_point(vrun *r, const cm_params *p, size_t i,
                               size_t rep, cm_err *err)
{
    size_t slot = rep * r->n + i;
    char label[LABEL_MAX], path[4096];
    cm_vrun_label(r, i, label, sizeof label);
    if (!run_complete(r, i, rep)) {
        cm_status st = run_path(r, i, rep, "stats", path, sizeof path, err);
        return st ? st : cm_err_set(err, CM_EINPUT,
                                    "%s: no simulation of %s (merge every "
                                    "shard, or run with --resume)", path,
                                    label);
    }
    cm_stat_row *rows = NULL;
    size_t nrows = 0;
    cm_status st = run_path(r, i, rep, "stats", path, sizeof path, err);
    if (!st) st = cm_stats_read_rows(path, &rows, &nrows, err);
    if (!st && r->prof)
        st = run_path(r, i, rep, "profile", path, sizeof path, err);
    if (!st && r->prof) st = cm_profile_read(path, &r->prof[slot], err);
    cm_validate_run_info info = {p,    r->wl[r->pts[i].wl], r->cfg->protocol,
                                 r->prof ? r->prof[slot] : NULL,
                                 rows, nrows, label, r->pts[i].base};
    const cm_validate_model *m = r->cfg->model;
    void *obs = r->obs + slot * m->obs_size;
    if (!st) st = m->observe(&info, obs, err);
    /* the measured inputs that bound the validated domain */
    const cm_params *in = !st && m->inputs ? m->inputs(obs) : p;
    vpoint *pt = &r->pts[i];
    for (size_t k = 0; !st && k < r->dims.ninputs; k++) {
        double v = cm_param_get(in, cm_param_design_param(r->dims.input[k]));
        pt->in_lo[k] = fmin(pt->in_lo[k], v);
        pt->in_hi[k] = fmax(pt->in_hi[k], v);
        pt->in_sum[k] += v;
    }
    free(rows);
    if (st) cm_err_prefix(err, label);
    return st;
}

/* Every point in order: within [first, end), its simulation unless it is
 * already there (resume), and when results are wanted, its observation. */
static cm_status visit_all(vrun *r, int simulate, int observe, cm_err *err)
{
    const cm_validate_config *c = r->cfg;
    size_t first = c->ranged ? c->first : 0, end = c->ranged ? c->end : r->n;
    size_t todo = 0, done = 0;
    if (simulate && end > first) todo = (end - first) * r->nrep;
    cm_status st = CM_OK;
    for (size_t i = 0; i < r->n && !st; i++) {
        cm_params p;
        cm_vrun_params(r, i, &p);
        for (size_t rep = 0; rep < r->nrep && !st; rep++) {
            cm_params pr = p;
            pr.sim_seed = p.sim_seed + (double)rep;
            if (simulate && i >= first && i < end) {
                if (!(c->resume && run_complete(r, i, rep)))
                    st = simulate_point(r, &pr, i, rep, err);
                if (!st && c->progress)
                    c->progress(++done, todo, c->progress_arg);
            }
            if (!st && observe) st = observe_point(r, &pr, i, rep, err);
        }
    }
    return st;
}

/* Calibrates on the calibration points of every replicate (replicate-
 * major, so each workload's first is replicate 0's) and predicts every
 * point of every replicate; a point's model and simulated values are the
 * replicates' means, and with two or more the simulation's interval is
 * the Student-t one of that mean. */
/* A point's model and simulation over its R replicates, weighted by w (the
 * events a per-event quantity is the mean over; 1 for the others): the
 * ratio estimators sum(w x) / sum(w), so the replicates pool as one run
 * would, with the simulation's 95% interval from the ratio estimator's
 * standard error (Student t, R - 1 degrees of freedom).  A per-replicate
 * mean of ratios is biased where the events vary between replicates: a
 * replicate with few stores and long stalls would count as one with many. */
static void replicate_mean(const double *model, const double *sim,
                           const double *w, size_t R, double *model_out,
                           double *sim_out, double *lo, double *hi)
{
    double W = 0, mw = 0, sw = 0;
    for (size_t k = 0; k < R; k++) {
        W += w[k];
        mw += w[k] * model[k];
        sw += w[k] * sim[k];
    }
    if (!(W > 0)) { /* no events anywhere: the plain means */
        W = (double)R;
        mw = sw = 0;
        for (size_t k = 0; k < R; k++) {
            mw += model[k];
            sw += sim[k];
        }
        w = NULL;
    }
    double mean = sw / W, var = 0;
    for (size_t k = 0; k < R; k++) {
        double d = (w ? w[k] : 1) * (sim[k] - mean) / W;
        var += d * d;
    }
    var *= (double)R / (double)(R - 1);
    double half = gsl_cdf_tdist_Pinv(0.975, (double)(R - 1)) * sqrt(var);
    *model_out = mw / W;
    *sim_out = mean;
    *lo = mean - half;
    *hi = mean + half;
}

static cm_status model_all(vrun *r, cm_table **calib, cm_err *err)
{
    const cm_validate_model *m = r->cfg->model;
    const size_t nq = m->nqty, R = r->nrep;
    size_t ncal = 0;
    char *cal = malloc((cm_validate_calibration_count(r->n) + 1) * R *
                       m->obs_size);
    vpoint *one = calloc(r->n, sizeof *one);
    double *sims = calloc(r->n * nq * R, sizeof *sims); /* [i][q][rep] */
    double *models = calloc(r->n * nq * R, sizeof *models);
    double *wts = calloc(r->n * nq * R, sizeof *wts);
    void *state = NULL;
    cm_status st = cal && one && sims && models && wts
                       ? CM_OK
                       : cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t k = 0; k < R * r->n && !st; k++)
        if (r->pts[k % r->n].cal)
            memcpy(cal + m->obs_size * ncal++, r->obs + k * m->obs_size,
                   m->obs_size);
    if (!st) st = m->calibrate(cal, ncal, m->obs_size, &state, calib, err);
    for (size_t rep = 0; rep < R && !st; rep++) {
        vpoint *out = R == 1 ? r->pts : one;
        for (size_t i = 0; i < r->n && !st; i++) {
            const void *o = r->obs + (rep * r->n + i) * m->obs_size;
            st = m->predict(state, o, out[i].model, out[i].sim, out[i].lo,
                            out[i].hi, err);
            for (size_t q = 0; q < nq && !st && R > 1; q++) {
                size_t k = (i * nq + q) * R + rep;
                models[k] = one[i].model[q];
                sims[k] = one[i].sim[q];
                wts[k] = m->weight ? m->weight(o, q) : 1;
            }
        }
    }
    for (size_t i = 0; i < r->n && !st && R > 1; i++)
        for (size_t q = 0; q < nq; q++) {
            size_t k = (i * nq + q) * R;
            replicate_mean(models + k, sims + k, wts + k, R,
                           &r->pts[i].model[q], &r->pts[i].sim[q],
                           &r->pts[i].lo[q], &r->pts[i].hi[q]);
        }
    if (state) m->free_state(state);
    free(cal);
    free(one);
    free(sims);
    free(models);
    free(wts);
    return st;
}

#define rel_error cm_vrun_rel_error
#define target_error cm_vrun_target_error

/* One row per point: [preset,] workload, the axes, role, the measured
 * inputs (their mean over the replicates), then per quantity the model,
 * the simulation, its interval and the errors. */
static cm_status write_points(const vrun *r, const char *path, cm_err *err)
{
    enum { MAXCOL = 2 + 2 * MAX_AXES + 1 + 6 * CM_VALIDATE_MAXQ };
    const cm_validate_model *m = r->cfg->model;
    size_t nin = r->dims.ninputs;
    size_t ncol = (size_t)r->named + 2 + r->naxes + nin + 6 * m->nqty;
    char names[MAXCOL][96];
    const char *hdr[MAXCOL];
    static const char *const fmt[6] = {"model_%s", "sim_%s",
                                       "sim_%s_ci95_lo", "sim_%s_ci95_hi",
                                       "%s_rel_error", "%s_abs_error"};
    size_t k = 0;
    if (r->named) snprintf(names[k++], 96, "preset");
    snprintf(names[k++], 96, "workload");
    for (size_t a = 0; a < r->naxes; a++)
        snprintf(names[k++], 96, "%s", r->axis[a]->name);
    snprintf(names[k++], 96, "role");
    for (size_t a = 0; a < nin; a++)
        snprintf(names[k++], 96, "%s",
                 cm_param_design_param(r->dims.input[a])->name);
    for (size_t q = 0; q < m->nqty; q++)
        for (int f = 0; f < 6; f++) snprintf(names[k++], 96, fmt[f], m->qty[q].name);
    for (size_t j = 0; j < ncol; j++) hdr[j] = names[j];
    cm_table *t = cm_table_new(ncol, hdr);
    if (!t) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st = CM_OK;
    char cells[MAXCOL][32];
    for (size_t i = 0; i < r->n && !st; i++) {
        const vpoint *pt = &r->pts[i];
        k = 0;
        if (r->named)
            snprintf(cells[k++], 32, "%s", r->cfg->base_names[pt->base]);
        snprintf(cells[k++], 32, "%s", r->wl[pt->wl]->name);
        for (size_t a = 0; a < r->naxes; a++)
            cm_param_format(r->axis[a], pt->coord[a], cells[k++], 32);
        snprintf(cells[k++], 32, "%s", pt->cal ? "calibration" : "heldout");
        for (size_t a = 0; a < nin; a++)
            cm_fmt_optional(cells[k++], pt->in_sum[a] / (double)r->nrep);
        for (size_t q = 0; q < m->nqty; q++) {
            double v[6] = {pt->model[q], pt->sim[q], pt->lo[q], pt->hi[q],
                           rel_error(pt->model[q], pt->sim[q]),
                           pt->model[q] - pt->sim[q]};
            for (int f = 0; f < 6; f++) cm_fmt_optional(cells[k++], v[f]);
        }
        for (size_t j = 0; j < ncol; j++) hdr[j] = cells[j];
        st = cm_table_append(t, hdr, err);
    }
    if (!st) st = cm_table_write_file(t, path, err);
    cm_table_free(t);
    return st;
}

void cm_validate_summarise(const cm_validate_qty *qty, size_t nqty,
                           const cm_validate_point *pts, size_t n,
                           cm_validate_summary *s)
{
    memset(s, 0, sizeof *s);
    s->points = n;
    for (size_t i = 0; i < n; i++) {
        s->calibration_points += pts[i].cal != 0;
        s->heldout_points += !pts[i].cal;
    }
    for (size_t q = 0; q < nqty && q < CM_VALIDATE_MAXQ; q++) {
        size_t nrel = 0, nabs = 0;
        double worst = -1;
        s->worst[q] = SIZE_MAX;
        for (size_t i = 0; i < n; i++) {
            const cm_validate_point *pt = &pts[i];
            if (pt->cal) continue; /* never a held-out point */
            double ea = fabs(pt->model[q] - pt->sim[q]);
            double er = fabs(rel_error(pt->model[q], pt->sim[q]));
            if (isfinite(ea)) {
                s->mean_abs[q] += ea;
                s->max_abs[q] = fmax(s->max_abs[q], ea);
                nabs++;
            }
            if (isfinite(er)) {
                s->mare[q] += er;
                s->max_rel[q] = fmax(s->max_rel[q], er);
                nrel++;
            }
            double e = target_error(&qty[q], pt->model[q], pt->sim[q]);
            if (isfinite(e) && e > worst) {
                worst = e;
                s->worst[q] = i;
                s->worst_model[q] = pt->model[q];
                s->worst_sim[q] = pt->sim[q];
            }
        }
        s->mare[q] = nrel ? s->mare[q] / (double)nrel : NAN;
        if (!nrel) s->max_rel[q] = NAN;
        s->mean_abs[q] = nabs ? s->mean_abs[q] / (double)nabs : NAN;
        if (!nabs) s->max_abs[q] = NAN;
        if (s->worst[q] == SIZE_MAX) s->worst_model[q] = s->worst_sim[q] = NAN;
        double got = qty[q].target == CM_VT_MARE ? s->mare[q]
                                                 : s->mean_abs[q];
        s->met[q] = qty[q].target == CM_VT_NONE ? -1
                                                : got <= qty[q].target_value;
    }
}

/* "mean |error| 0.031" or "MARE 38.0%", a NaN as "n/a". */
static int say_measure(char *buf, size_t len, int mare, double v)
{
    if (!isfinite(v))
        return snprintf(buf, len, "%s n/a", mare ? "MARE" : "mean |error|");
    return mare ? snprintf(buf, len, "MARE %.1f%%", 100 * v)
                : snprintf(buf, len, "mean |error| %.4g", v);
}

void cm_validate_summary_line(const cm_validate_qty *q,
                              const cm_validate_summary *s, size_t k,
                              char *buf, size_t len)
{
    int mare = q->target == CM_VT_MARE;
    char head[64], other[64], worst[CM_VALIDATE_LABEL_MAX + 128], goal[96];
    say_measure(head, sizeof head, mare, mare ? s->mare[k] : s->mean_abs[k]);
    if (mare)
        snprintf(other, sizeof other, "mean |error| %.4g (max %.4g)",
                 s->mean_abs[k], s->max_abs[k]);
    else if (isfinite(s->mare[k]))
        snprintf(other, sizeof other, "MARE %.1f%% (max %.1f%%)",
                 100 * s->mare[k], 100 * s->max_rel[k]);
    else
        snprintf(other, sizeof other, "MARE n/a (the simulation reads 0)");
    if (s->worst[k] == SIZE_MAX)
        snprintf(worst, sizeof worst, "no held-out point");
    else
        snprintf(worst, sizeof worst, "worst: model %.4g where the simulator "
                 "reads %.4g%s%s", s->worst_model[k], s->worst_sim[k],
                 s->worst_at[k][0] ? " at " : "", s->worst_at[k]);
    if (q->target == CM_VT_NONE)
        snprintf(goal, sizeof goal, "no target");
    else
        snprintf(goal, sizeof goal, "target %s <= %g%s: %s",
                 mare ? "MARE" : "mean |error|",
                 mare ? 100 * q->target_value : q->target_value,
                 mare ? "%" : "", s->met[k] ? "met" : "NOT met");
    snprintf(buf, len, "%s: held-out %s (%s); %s; %s", q->name, head, worst,
             goal, other);
}

void cm_validate_group_line(const cm_validate_model *m,
                            const struct cm_validate_group *g, char *buf,
                            size_t len)
{
    char missed[256] = "";
    size_t km = 0;
    int k = snprintf(buf, len, "%s (%zu held out):", g->name, g->heldout);
    for (size_t q = 0; q < m->nqty && k > 0 && (size_t)k < len; q++) {
        char v[64];
        say_measure(v, sizeof v, m->qty[q].target == CM_VT_MARE, g->err[q]);
        k += snprintf(buf + k, len - (size_t)k, "%s %s %s", q ? "," : "",
                      m->qty[q].name, v);
        if (g->met[q] == 0 && km < sizeof missed) {
            int w = snprintf(missed + km, sizeof missed - km, "%s%s",
                             km ? ", " : "", m->qty[q].name);
            km += w > 0 ? (size_t)w : 0;
        }
    }
    if (km && k > 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, " (beyond %s: %s)",
                 g->preset ? "the target" : "twice the target", missed);
}

static void summarise(const vrun *r, const cm_table *calib,
                      cm_validate_summary *s)
{
    const cm_validate_model *m = r->cfg->model;
    cm_validate_point *pts = calloc(r->n ? r->n : 1, sizeof *pts);
    if (!pts) { /* the counts alone */
        memset(s, 0, sizeof *s);
        return;
    }
    for (size_t i = 0; i < r->n; i++) {
        pts[i].cal = r->pts[i].cal;
        memcpy(pts[i].model, r->pts[i].model, sizeof pts[i].model);
        memcpy(pts[i].sim, r->pts[i].sim, sizeof pts[i].sim);
    }
    cm_validate_summarise(m->qty, m->nqty, pts, r->n, s);
    free(pts);
    for (size_t q = 0; q < m->nqty; q++)
        if (s->worst[q] != SIZE_MAX)
            cm_vrun_label(r, s->worst[q], s->worst_at[q],
                          sizeof s->worst_at[q]);
    /* what the calibration could not identify, from calib.csv's notes */
    long note = calib ? cm_table_col_find(calib, "note") : -1;
    size_t k = 0;
    for (size_t i = 0; note >= 0 && i < cm_table_nrows(calib); i++) {
        const char *text = cm_table_cell(calib, i, (size_t)note);
        if (!*text || k >= sizeof s->calib_note) continue;
        int w = snprintf(s->calib_note + k, sizeof s->calib_note - k,
                         "%s%s %s", k ? "; " : "", cm_table_cell(calib, i, 0),
                         text);
        k += w > 0 ? (size_t)w : 0;
    }
    cm_vrun_groups(r, s);
}

static cm_status write_summary(const vrun *r, const cm_validate_summary *s,
                               const char *path, cm_err *err)
{
    static const char *const hdr[] = {
        "quantity",       "points",        "calibration_points",
        "heldout_points", "mare",          "max_rel_error",
        "mean_abs_error", "max_abs_error", "target",
        "target_value",   "target_met",    "worst_at",
        "worst_model",    "worst_sim"};
    enum { NCOL = sizeof hdr / sizeof *hdr };
    const cm_validate_model *m = r->cfg->model;
    cm_table *t = cm_table_new(NCOL, hdr);
    if (!t) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st = CM_OK;
    for (size_t q = 0; q < m->nqty && !st; q++) {
        char c[NCOL][CM_VALIDATE_LABEL_MAX];
        const cm_validate_qty *qt = &m->qty[q];
        snprintf(c[0], sizeof c[0], "%s", qt->name);
        snprintf(c[1], sizeof c[1], "%zu", s->points);
        snprintf(c[2], sizeof c[2], "%zu", s->calibration_points);
        snprintf(c[3], sizeof c[3], "%zu", s->heldout_points);
        cm_fmt_optional(c[4], s->mare[q]);
        cm_fmt_optional(c[5], s->max_rel[q]);
        cm_fmt_optional(c[6], s->mean_abs[q]);
        cm_fmt_optional(c[7], s->max_abs[q]);
        snprintf(c[8], sizeof c[8], "%s",
                 qt->target == CM_VT_MARE       ? "mare"
                 : qt->target == CM_VT_MEAN_ABS ? "mean_abs_error"
                                                : "none");
        cm_fmt_optional(c[9], qt->target == CM_VT_NONE ? NAN
                                                       : qt->target_value);
        snprintf(c[10], sizeof c[10], "%s",
                 s->met[q] < 0 ? "no target" : s->met[q] ? "yes" : "no");
        snprintf(c[11], sizeof c[11], "%s", s->worst_at[q]);
        cm_fmt_optional(c[12], s->worst_model[q]);
        cm_fmt_optional(c[13], s->worst_sim[q]);
        const char *cells[NCOL];
        for (int j = 0; j < NCOL; j++) cells[j] = c[j];
        st = cm_table_append(t, cells, err);
    }
    if (!st) st = cm_table_write_file(t, path, err);
    cm_table_free(t);
    return st;
}

/* Figures share one buffer layout: per series, x, y, lo, hi of n points. */
typedef struct fig_buf {
    double *x, *y, *lo, *hi;
} fig_buf;

/* Simulation against model, one marker per point, the calibration points
 * apart from the held-out ones; repeated points are drawn once with their
 * count beside them, so 27 points never look like 8. */
static cm_status parity_plot(const vrun *r, size_t q, const char *path,
                             cm_err *err)
{
    const cm_validate_qty *qt = &r->cfg->model->qty[q];
    double *buf = malloc(8 * r->n * sizeof *buf + 4 * sizeof *buf);
    if (!buf) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    fig_buf f[2];
    size_t cnt[2] = {0, 0};
    double lim[2] = {INFINITY, -INFINITY};
    for (int s = 0; s < 2; s++)
        f[s] = (fig_buf){buf + (4 * s) * r->n, buf + (4 * s + 1) * r->n,
                         buf + (4 * s + 2) * r->n, buf + (4 * s + 3) * r->n};
    for (size_t i = 0; i < r->n; i++) {
        const vpoint *pt = &r->pts[i];
        int s = pt->cal;
        f[s].x[cnt[s]] = pt->model[q];
        f[s].y[cnt[s]] = pt->sim[q];
        f[s].lo[cnt[s]] = pt->lo[q];
        f[s].hi[cnt[s]++] = pt->hi[q];
        double v[2] = {pt->model[q], pt->sim[q]};
        for (int k = 0; k < 2; k++)
            if (isfinite(v[k])) {
                lim[0] = fmin(lim[0], v[k]);
                lim[1] = fmax(lim[1], v[k]);
            }
    }
    double *diag = buf + 8 * r->n;
    diag[0] = diag[2] = lim[0];
    diag[1] = diag[3] = lim[1];
    char held[64], cal[64];
    snprintf(held, sizeof held, "held-out points (%zu)", cnt[0]);
    snprintf(cal, sizeof cal, "calibration points (%zu)", cnt[1]);
    cm_plot_series ser[3] = {
        {.label = held, .x = f[0].x, .y = f[0].y, .ylo = f[0].lo,
         .yhi = f[0].hi, .n = cnt[0]},
        {.label = cal, .x = f[1].x, .y = f[1].y, .ylo = f[1].lo,
         .yhi = f[1].hi, .n = cnt[1]},
        {.label = "model = simulation", .x = diag, .y = diag + 2, .n = 2,
         .reference = 1}};
    char title[200], axis[160], xl[200], yl[200];
    const char *label = cm_column_label(qt->metric);
    const char *unit = cm_column_unit(qt->metric);
    snprintf(title, sizeof title, "%s against simulation: %s",
             r->cfg->model->title, label ? label : qt->name);
    snprintf(axis, sizeof axis, "%s", label ? label : qt->name);
    snprintf(xl, sizeof xl, "model: %s%s%s%s", axis, unit ? " (" : "",
             unit ? unit : "", unit ? ")" : "");
    snprintf(yl, sizeof yl, "simulation: %s%s%s%s", axis, unit ? " (" : "",
             unit ? unit : "", unit ? ")" : "");
    cm_plot_spec spec = {.title = title, .xlabel = xl, .ylabel = yl,
                         .style = CM_PLOT_POINTS, .series = ser,
                         .nseries = 3, .count_overlaps = 1};
    cm_status st = cm_plot_render(&spec, path, err);
    free(buf);
    return st;
}

#define AXIS_PLOT_GROUPS 64 /* 8 panels of the palette's 8 colours */

/* Quantity q along the last axis of a grid for one cell (preset and
 * workload): per combination of the other axes, the simulation (markers,
 * 95% interval) and the model (a line) in one colour; more combinations
 * than colours go to panels. */
static cm_status axis_plot(const vrun *r, size_t q, size_t cell,
                           const char *path, cm_err *err)
{
    const cm_validate_config *c = r->cfg;
    size_t last = c->naxes - 1, len = c->axes[last].n;
    size_t groups = r->per_cell / len;
    if (groups > AXIS_PLOT_GROUPS) groups = AXIS_PLOT_GROUPS;
    size_t npanels = (groups + CM_PLOT_COLOURS - 1) / CM_PLOT_COLOURS;
    double *buf = malloc(5 * groups * len * sizeof *buf);
    cm_plot_series *ser = calloc(2 * groups, sizeof *ser);
    char (*labels)[LABEL_MAX] = calloc(groups, sizeof *labels);
    cm_plot_panel panels[AXIS_PLOT_GROUPS / CM_PLOT_COLOURS];
    memset(panels, 0, sizeof panels);
    cm_status st = CM_OK;
    if (!buf || !ser || !labels)
        st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    const vpoint *cell0 = &r->pts[cell * r->per_cell];
    for (size_t g = 0; g < groups && !st; g++) {
        double *x = buf + 5 * g * len, *ys = x + len, *lo = ys + len,
               *hi = lo + len, *ym = hi + len;
        const vpoint *first = cell0 + g * len;
        int k = 0;
        for (size_t a = 0; a < last; a++) {
            char v[32], one[LABEL_MAX];
            cm_param_format(r->axis[a], first->coord[a], v, sizeof v);
            cm_column_value(r->axis[a]->name, v, one, sizeof one);
            k += snprintf(labels[g] + k, LABEL_MAX - (size_t)k, "%s%s",
                          a ? ", " : "", one);
            if (k >= LABEL_MAX) k = LABEL_MAX - 1;
        }
        for (size_t j = 0; j < len; j++) {
            const vpoint *pt = first + j;
            x[j] = pt->coord[last];
            ys[j] = pt->sim[q];
            lo[j] = pt->lo[q];
            hi[j] = pt->hi[q];
            ym[j] = pt->model[q];
        }
        size_t pn = g / CM_PLOT_COLOURS;
        ser[2 * g] = (cm_plot_series){.label = labels[g], .x = x, .y = ys,
                                      .ylo = lo, .yhi = hi, .n = len,
                                      .panel = pn};
        ser[2 * g + 1] =
            (cm_plot_series){.label = labels[g], .x = x, .y = ym, .n = len,
                             .line_only = 1, .with_previous = 1,
                             .panel = pn};
    }
    if (!st) {
        char title[200], xl[160], yl[160], heading[LABEL_MAX] = "";
        for (size_t a = 0, k = 0; a < last && k < sizeof heading; a++)
            k += (size_t)snprintf(heading + k, sizeof heading - k, "%s%s",
                                  a ? ", " : "", r->axis[a]->label);
        const char *label = cm_column_label(c->model->qty[q].metric);
        snprintf(title, sizeof title,
                 "%s%s%s: %s, model (lines) and simulation (markers, 95%% "
                 "CI)",
                 r->named ? c->base_names[cell0->base] : "",
                 r->named ? " " : "", r->wl[cell0->wl]->name,
                 label ? label : c->model->qty[q].name);
        cm_plot_axis_label(r->axis[last]->name, xl, sizeof xl);
        cm_plot_axis_label(c->model->qty[q].metric, yl, sizeof yl);
        cm_plot_spec spec = {.title = title, .xlabel = xl, .ylabel = yl,
                             .style = CM_PLOT_POINTS, .series = ser,
                             .nseries = 2 * groups,
                             .legend_title = last ? heading : NULL};
        if (npanels > 1) {
            spec.panels = panels;
            spec.npanels = npanels;
        }
        st = cm_plot_render(&spec, path, err);
    }
    free(buf);
    free(ser);
    free(labels);
    return st;
}

static cm_status out_path(const char *dir, const char *name, char *buf,
                          size_t len, cm_err *err)
{
    if ((size_t)snprintf(buf, len, "%s/%s", dir, name) >= len)
        return cm_err_set(err, CM_EINPUT, "%s: output path too long", dir);
    return CM_OK;
}

static cm_status write_all(const vrun *r, const cm_table *calib,
                           cm_validate_summary *sum, cm_err *err)
{
    const cm_validate_config *c = r->cfg;
    char path[4096], name[256];
    cm_status st = out_path(c->outdir, "points.csv", path, sizeof path, err);
    if (!st) st = write_points(r, path, err);
    summarise(r, calib, sum);
    if (!st) st = out_path(c->outdir, "summary.csv", path, sizeof path, err);
    if (!st) st = write_summary(r, sum, path, err);
    if (!st) st = out_path(c->outdir, "calib.csv", path, sizeof path, err);
    if (!st) st = cm_table_write_file(calib, path, err);
    if (!st) st = out_path(c->outdir, "params.csv", path, sizeof path, err);
    if (!st) st = cm_params_write_dump(&r->bases[0], path, err);
    if (!st) st = cm_vrun_write_groups(r, sum, err);
    if (!st) st = cm_vrun_write_validity(r, calib, err);
    size_t ncells = r->nbases * c->nworkloads;
    /* each figure as a PNG to look at and an SVG to print (and for the
     * study's report.html) */
    static const char *const exts[] = {"png", "svg"};
    for (size_t q = 0; q < c->model->nqty && !st; q++)
        for (size_t e = 0; e < 2 && !st; e++) {
            snprintf(name, sizeof name, "parity_%s.%s", c->model->qty[q].name,
                     exts[e]);
            st = out_path(c->outdir, name, path, sizeof path, err);
            if (!st) st = parity_plot(r, q, path, err);
            /* along the last axis: a grid's cells only (a design's points
             * are no lines) */
            for (size_t cell = 0;
                 cell < ncells && !r->design && r->naxes > 0 && !st; cell++) {
                const vpoint *pt = &r->pts[cell * r->per_cell];
                snprintf(name, sizeof name, "%s_vs_%s_%s%s%s.%s",
                         c->model->qty[q].name, r->axis[r->naxes - 1]->name,
                         r->named ? c->base_names[pt->base] : "",
                         r->named ? "_" : "", r->wl[pt->wl]->name, exts[e]);
                st = out_path(c->outdir, name, path, sizeof path, err);
                if (!st) st = axis_plot(r, q, cell, path, err);
            }
        }
    return st;
}

size_t cm_validate_points(const cm_validate_config *cfg)
{
    vrun r = {.cfg = cfg};
    cm_err err;
    return cfg->nworkloads && !cm_vrun_layout(&r, &err) ? r.n : 0;
}

/* Files in outdir/runs that no run of this directory should keep: all of
 * them before a fresh run (another grid's points would be merged), and
 * the temporaries of writes a killed run left. */
static cm_status clean_runs(const char *runs, int keep_complete, cm_err *err)
{
    DIR *d = opendir(runs);
    if (!d) return CM_OK;
    char path[4096];
    cm_status st = CM_OK;
    for (struct dirent *e; !st && (e = readdir(d));) {
        if (e->d_name[0] == '.' || (keep_complete && !strstr(e->d_name,
                                                           ".tmp.")))
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", runs, e->d_name) >=
                sizeof path ||
            unlink(path))
            st = cm_err_set(err, CM_EINPUT, "%s: cannot remove", path);
    }
    closedir(d);
    return st;
}

/* outdir and outdir/runs, as the mode needs them: made for a run that
 * simulates (*created when outdir was new), cleaned as above; FINISH
 * needs them there already. */
static cm_status prepare_dir(vrun *r, int *created, cm_err *err)
{
    const cm_validate_config *c = r->cfg;
    char runs[4096];
    cm_status st = out_path(c->outdir, "runs", runs, sizeof runs, err);
    if (st) return st;
    if (c->mode == CM_RUN_FINISH)
        return file_exists(runs)
                   ? CM_OK
                   : cm_err_set(err, CM_EINPUT, "%s: no simulations to make "
                                "results of", runs);
    *created = !file_exists(c->outdir);
    st = cm_mkdir_p(runs, err);
    return st ? st : clean_runs(runs, c->resume, err);
}

/* Undoes prepare_dir and the runs of a failed whole run. */
static void remove_dir(vrun *r, const char *manifest)
{
    char path[4096];
    for (size_t i = 0; i < r->n; i++)
        for (size_t rep = 0; rep < r->nrep; rep++)
            for (int k = 0; k < 2; k++)
                if (!run_path(r, i, rep, k ? "profile" : "stats", path,
                              sizeof path, NULL))
                    unlink(path);
    unlink(manifest);
    if (!out_path(r->cfg->outdir, "runs", path, sizeof path, NULL))
        rmdir(path);
    rmdir(r->cfg->outdir);
}

cm_status cm_validate_run(const cm_validate_config *cfg,
                          cm_validate_summary *sum, cm_err *err)
{
    const cm_validate_model *m = cfg->model;
    memset(sum, 0, sizeof *sum);
    if (cfg->nworkloads == 0)
        return cm_err_set(err, CM_EINPUT, "validate: no workload");
    if (m->nqty > CM_VALIDATE_MAXQ)
        return cm_err_set(err, CM_EINTERNAL, "validate: too many quantities");
    vrun r = {.cfg = cfg, .nrep = cfg->replicates > 1 ? cfg->replicates : 1};
    cm_status st = cm_vrun_layout(&r, err);
    if (st) return st;
    if (!r.design && m->calibrate_at != CM_VC_SPREAD &&
        cm_validate_calibration_count(r.per_cell) == 0)
        return cm_err_set(err, CM_EINPUT,
                          "validate: %zu points per workload leave none to "
                          "calibrate on (a fifth at most; give at least 5)",
                          r.per_cell);
    if (!r.design && cm_validate_calibration_count(r.n) == 0)
        return cm_err_set(err, CM_EINPUT,
                          "validate: %zu points leave none to calibrate on "
                          "(a fifth at most; give at least 5)", r.n);
    r.wl = calloc(cfg->nworkloads, sizeof *r.wl);
    st = cm_vrun_points(&r, err);
    r.obs = calloc(r.n * r.nrep, m->obs_size);
    r.prof = m->needs_profile ? calloc(r.n * r.nrep, sizeof *r.prof) : NULL;
    cm_table *calib = NULL;
    if (!st && !(r.wl && r.obs && (r.prof || !m->needs_profile)))
        st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t w = 0; w < cfg->nworkloads && !st; w++)
        if (!(r.wl[w] = cm_workload_builtin(cfg->workloads[w])))
            st = cm_err_set(err, CM_EINPUT,
                            "validate: no built-in workload '%s' (see cohmod "
                            "sim --list-workloads)", cfg->workloads[w]);
    char manifest[4096];
    int created = 0, results = cfg->mode != CM_RUN_SHARD;
    if (!st) st = out_path(cfg->outdir, "run.csv", manifest, sizeof manifest,
                           err);
    if (!st && cfg->plan)
        st = cm_run_check_resume(manifest, cfg->plan, r.n, err);
    if (!st) st = prepare_dir(&r, &created, err);
    if (!st && cfg->plan)
        st = cm_run_manifest_write(manifest, cfg->plan, r.n, 0, NULL, 0, err);
    if (!st)
        st = visit_all(&r, cfg->mode != CM_RUN_FINISH, results, err);
    if (!st && results) st = model_all(&r, &calib, err);
    if (!st && results) st = write_all(&r, calib, sum, err);
    if (!st && cfg->plan)
        st = cm_run_manifest_write(manifest, cfg->plan, r.n, 1, NULL, 0, err);
    /* A whole run that fails (the model rejects a point, say) leaves
     * nothing behind in a directory it made; a shard or a resumed run
     * keeps its finished points for the next --resume. */
    if (st && created && cfg->mode == CM_RUN_WHOLE && !cfg->resume)
        remove_dir(&r, manifest);
    if (!results) memset(sum, 0, sizeof *sum);
    cm_table_free(calib);
    for (size_t i = 0; r.prof && i < r.n * r.nrep; i++)
        cm_profile_free(r.prof[i]);
    free(r.prof);
    free(r.wl);
    free(r.pts);
    free(r.obs);
    return st;
}
