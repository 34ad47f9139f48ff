/* mshr_fit.c - the MSHR model's calibrated inputs from simulated runs.
 *
 * Model inputs of a run.  The machine is the run's own parameter dump.  The
 * workload statistics the model takes as inputs are measured by the run
 * (component `all`, i.e. pooled over SMs):
 *     wl.l1_miss_ratio = l1.miss_ratio,   wl.l2_miss_ratio = l2.miss_ratio,
 *     wl.write_frac    = store requests (noc.msgs.write + getx + upgr) /
 *                        l1.accesses (kept as configured without them),
 *     wl.merge_prob    = l1.mshr.merges / load misses (l1.misses less the
 *                        stores': a load miss that joined an in-flight
 *                        entry),
 *     wl.reqs_per_inst = l1.accesses / sm.mem_instructions,
 *     wl.mem_rate      = sm.mem_instructions / sm.instructions
 * (an unstalled warp issues one instruction per cycle, so its memory
 * instructions per cycle are their share of all instructions).  The model.*
 * knobs come from the calibration's configuration, not from the run: they
 * are the model's, and the run never read them.
 *
 * Residuals.  For each run and quantity q (occupancy, P(full), latency when
 * reported) r = (model - sim) / sigma with
 *     sigma^2 = se^2 + floor^2,  se = (ci95_hi - ci95_lo) / (2 x 1.96),
 * se = 0 for a run without windows (no interval).  The floors (2% + 0.05
 * entries for occupancy, 0.01 for P(full), 2% for latency) stand for the
 * model error we accept: without them a long run's tiny interval, or a
 * P(full) of exactly 0, would give one quantity all the weight.  The
 * minimisation within each parameter's range, its Jacobian, the standard
 * errors (covariance scaled by chi2/dof) and the flags of what the data
 * cannot identify are solvers/lsq.h's.
 *
 * Ranges.  A parameter is fitted in its registry range narrowed by the
 * model's own domain on every sample's machine (cm_mshr_param_range), so
 * the calibrated model evaluates on each of them, and `cohmod model mshr`
 * accepts calib.csv.
 *
 * Identification.  A parameter flagged by the solver (no effect, at its
 * bound, standard error above its value, 95% interval across its range)
 * is held at its configured value, and the rest are fitted again without
 * it, until every one left is identified or none is left: a value the
 * data do not determine is not written as if they did. */
#include "models/mshr_fit.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/stackdist.h"
#include "solvers/ci.h"

static const char *const qty_names[CM_MQ_COUNT] = {"occupancy", "p_full",
                                                   "latency"};

const char *cm_mshr_qty_name(cm_mshr_qty q)
{
    return q < CM_MQ_COUNT ? qty_names[q] : "?";
}

typedef struct metric_ref {
    const char *name;
    int optional;
} metric_ref;

enum {
    M_OCC, M_FULL, M_LAT, M_L1MISS, M_L2MISS, M_MERGES, M_MISSES, M_ACC,
    M_MEMINST, M_INST, M_WRITE, M_GETX, M_UPGR, M_COUNT
};

static const metric_ref metric_refs[M_COUNT] = {
    {"l1.mshr.occupancy_mean", 0}, {"l1.mshr.full_fraction", 0},
    {"roundtrip.latency_mean", 1}, {"l1.miss_ratio", 0},
    {"l2.miss_ratio", 0},          {"l1.mshr.merges", 0},
    {"l1.misses", 0},              {"l1.accesses", 0},
    {"sm.mem_instructions", 0},    {"sm.instructions", 0},
    {"noc.msgs.write", 1},         {"noc.msgs.getx", 1},
    {"noc.msgs.upgr", 1}};

static double clampd(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

static void set_quantity(cm_mshr_obs *obs, cm_mshr_qty q,
                         const cm_stat_row *r, double floor)
{
    obs->sim[q] = r ? r->value : NAN;
    obs->lo[q] = r ? r->ci95_lo : NAN;
    obs->hi[q] = r ? r->ci95_hi : NAN;
    double se = r ? cm_ci95_se(r->ci95_lo, r->ci95_hi) : 0;
    obs->sigma[q] = sqrt(se * se + floor * floor);
}

cm_status cm_mshr_obs_from_rows(const cm_params *machine,
                                const cm_params *knobs,
                                const cm_stat_row *rows, size_t n,
                                const char *source, cm_mshr_obs *obs,
                                cm_err *err)
{
    const cm_stat_row *m[M_COUNT];
    for (int k = 0; k < M_COUNT; k++) {
        m[k] = cm_stats_find(rows, n, metric_refs[k].name, "all");
        if (m[k] && !isfinite(m[k]->value) && metric_refs[k].optional)
            m[k] = NULL;
        if (!metric_refs[k].optional && (!m[k] || !isfinite(m[k]->value)))
            return cm_err_set(err, CM_EINPUT,
                              "%s: %s metric '%s' (component all)", source,
                              m[k] ? "no value for" : "missing",
                              metric_refs[k].name);
    }
    memset(obs, 0, sizeof *obs);
    obs->params = *machine;
    for (size_t i = 0; i < cm_param_count(); i++) {
        const cm_param_info *pi = cm_param_at(i);
        if (!strncmp(pi->name, "model.", 6))
            cm_param_put(&obs->params, pi, cm_param_get(knobs, pi));
    }
    if (!(m[M_MEMINST]->value > 0) || !(m[M_INST]->value > 0))
        return cm_err_set(err, CM_EINPUT,
                          "%s: the run issued no memory instruction", source);
    cm_params *p = &obs->params;
    p->wl_l1_miss_ratio = clampd(m[M_L1MISS]->value, 0, 1);
    p->wl_l2_miss_ratio =
        isfinite(m[M_L2MISS]->value) ? clampd(m[M_L2MISS]->value, 0, 1) : 0;
    /* Stores: each line a request (WRITE under the write-through L1s,
     * GETX or UPGR under GPU-VI and TC), a miss that never merges.  A run
     * without message counts keeps the configured share. */
    double acc = m[M_ACC]->value, stores = 0;
    int have_stores = 0;
    for (int k = M_WRITE; k <= M_UPGR; k++)
        if (m[k]) {
            stores += m[k]->value;
            have_stores = 1;
        }
    if (have_stores && acc > 0) p->wl_write_frac = clampd(stores / acc, 0, 1);
    double load_misses = m[M_MISSES]->value - p->wl_write_frac * acc;
    p->wl_merge_prob = load_misses > 0
                           ? clampd(m[M_MERGES]->value / load_misses, 0, 0.999)
                           : 0;
    p->wl_reqs_per_inst =
        clampd(m[M_ACC]->value / m[M_MEMINST]->value, 1, 64);
    p->wl_mem_rate = clampd(m[M_MEMINST]->value / m[M_INST]->value, 1e-7, 1);
    double occ = m[M_OCC]->value;
    set_quantity(obs, CM_MQ_OCCUPANCY, m[M_OCC], 0.02 * occ + 0.05);
    set_quantity(obs, CM_MQ_P_FULL, m[M_FULL], 0.01);
    set_quantity(obs, CM_MQ_LATENCY, m[M_LAT],
                 m[M_LAT] ? 0.02 * m[M_LAT]->value : 0);
    return CM_OK;
}

/* The fills of one instruction that share a set, over the first
 * SHAPE_INSTS memory instructions of SM 0's first SHAPE_WARPS warps (the
 * streams gpu.c runs), against random and even placement among the sets
 * the stride reaches: kappa = (pairs - even) / (random - even).  A line
 * counts as a fill when it is new to its warp or its warp touched more
 * distinct lines since than its share of the L1 (l1 lines / active
 * warps): the lines that miss, which are the ones that reserve ways. */
enum { SHAPE_WARPS = 8, SHAPE_INSTS = 2000 };

static double set_clustering(const cm_params *p, const cm_workload_profile *w)
{
    uint64_t sets = (uint64_t)fmax(1, floor(p->l1_size /
                                            (p->l1_ways * p->l1_line)));
    uint64_t g = sets, s = (uint64_t)w->line_stride;
    while (s) {
        uint64_t t = g % s;
        g = s;
        s = t;
    }
    double warps = fmax(1, fmin(p->sched_active_warps, p->gpu_warps_per_sm));
    double share = (double)sets * p->l1_ways / warps;
    double d = (double)(sets / g), pairs = 0, rnd = 0, even = 0;
    cm_wgen *gen = malloc(sizeof *gen);
    cm_winst *in = malloc(sizeof *in);
    uint32_t *cnt = calloc(sets, sizeof *cnt);
    cm_err err;
    for (uint32_t warp = 0; gen && in && cnt && warp < SHAPE_WARPS; warp++) {
        cm_stackdist *sd = cm_stackdist_new();
        if (!sd || cm_wgen_init(gen, w, (uint64_t)p->sim_seed, 0, warp,
                                (uint32_t)p->l1_line, &err)) {
            cm_stackdist_free(sd);
            break;
        }
        for (int k = 0; k < SHAPE_INSTS;) {
            cm_wgen_next(gen, in);
            if (in->kind == CM_WI_END) break;
            if (in->kind != CM_WI_MEM) continue;
            k++;
            uint64_t fills[CM_WINST_MAX_LINES];
            unsigned nf = 0;
            for (unsigned j = 0; j < in->n; j++) {
                int64_t dist;
                if (cm_stackdist_access(sd, in->lines[j], &dist, NULL, &err))
                    break;
                if (dist < 0 || (double)dist >= share)
                    fills[nf++] = in->lines[j];
            }
            double n = nf;
            for (unsigned j = 0; j < nf; j++) pairs += cnt[fills[j] % sets]++;
            for (unsigned j = 0; j < nf; j++) cnt[fills[j] % sets] = 0;
            rnd += n * (n - 1) / 2 / d;
            /* even: n mod d sets hold per + 1 lines, the rest per */
            if (n > d) {
                double per = floor(n / d), extra = n - per * d;
                even += (d - extra) * per * (per - 1) / 2 +
                        extra * (per + 1) * per / 2;
            }
        }
        cm_stackdist_free(sd);
    }
    free(gen);
    free(in);
    free(cnt);
    if (!(rnd - even > 0)) return 1;
    double kap = (pairs - even) / (rnd - even);
    return kap < 0 ? 0 : kap > 1 ? 1 : kap;
}

void cm_mshr_obs_shape(cm_mshr_obs *obs, const cm_workload_profile *w)
{
    obs->params.wl_reqs_dist = w->reqs_dist != 0;
    obs->params.wl_line_stride = w->line_stride;
    obs->params.wl_set_clustering = set_clustering(&obs->params, w);
}

static void put_clamped(const cm_param_info *pi, cm_params *p, double v)
{
    cm_param_put(p, pi, clampd(v, pi->min, pi->max));
}

/* The note of a held parameter (the buffer of cm_mshr_fit_table). */
#define NOTE_MAX 400

void cm_mshr_fit_why(const cm_mshr_fit *fit, size_t k, char *buf,
                     size_t len)
{
    char flags[256];
    cm_fit_flags_text(fit->flags[k], fit->fitted[k], fit->lo[k], fit->hi[k],
                      flags, sizeof flags);
    snprintf(buf, len, "fitted %.4g +- %.3g: %s", fit->fitted[k],
             fit->fitted_se[k], flags);
}

void cm_mshr_fit_note(const cm_mshr_fit *fit, size_t k, char *buf,
                      size_t len)
{
    buf[0] = '\0';
    if (k >= fit->np || fit->identifiable[k]) return;
    char why[256], v[32];
    cm_mshr_fit_why(fit, k, why, sizeof why);
    cm_param_format(fit->param[k], fit->value[k], v, sizeof v);
    snprintf(buf, len, "not identifiable (%s), held at its configured "
             "value %s", why, v);
}

void cm_mshr_fit_advice(const cm_mshr_obs *obs, size_t n,
                        const cm_mshr_fit *fit, char *buf, size_t len)
{
    /* Held with an interval narrower than its range that holds the
     * configured value: the runs determine it, and near that value. */
    int consistent = fit->np > 0;
    for (size_t k = 0; k < fit->np; k++)
        consistent &= fit->identifiable[k] ||
                      (!(fit->flags[k] & (CM_FIT_FLAT | CM_FIT_SPANS)) &&
                       fabs(fit->fitted[k] - fit->value[k]) <=
                           1.96 * fit->fitted_se[k]);
    if (consistent) {
        snprintf(buf, len, "the samples put each parameter within its 95%% "
                 "interval of its configured value: on these runs the model "
                 "needs no calibration (runs where it and the simulator "
                 "differ would calibrate it)");
        return;
    }
    int same_mshrs = 1, same_warps = 1;
    for (size_t i = 1; i < n; i++) {
        same_mshrs &= obs[i].params.l1_mshrs == obs[0].params.l1_mshrs;
        same_warps &= obs[i].params.sched_active_warps ==
                      obs[0].params.sched_active_warps;
    }
    if (n > 0 && same_mshrs && same_warps)
        snprintf(buf, len, "every sample ran at l1.mshrs=%g and "
                 "sched.active_warps=%g: run at two or more MSHR counts or "
                 "warp counts (cohmod sim --set l1.mshrs=N or --set "
                 "sched.active_warps=N)", obs[0].params.l1_mshrs,
                 obs[0].params.sched_active_warps);
    else
        snprintf(buf, len, "the samples do not pin these parameters within "
                 "their ranges: add runs that load the MSHRs differently "
                 "(other l1.mshrs, sched.active_warps or workloads)");
}

cm_status cm_mshr_fit_table(const cm_mshr_fit *fit, cm_table **out,
                            cm_err *err)
{
    char notes[CM_LSQ_MAXP][NOTE_MAX];
    const char *np[CM_LSQ_MAXP];
    for (size_t k = 0; k < fit->np; k++) {
        cm_mshr_fit_note(fit, k, notes[k], sizeof notes[k]);
        np[k] = notes[k];
    }
    return cm_params_fit_table(fit->param, fit->value, fit->stderr_, np,
                               fit->np, out, err);
}

void cm_mshr_fit_apply(const cm_mshr_fit *fit, cm_params *p)
{
    for (size_t k = 0; k < fit->np; k++)
        put_clamped(fit->param[k], p, fit->value[k]);
}

static cm_status predict_with(const cm_params *p, cm_mshr_ws *ws,
                              double model[CM_MQ_COUNT], cm_err *err)
{
    cm_mshr_input in;
    cm_mshr_result res;
    cm_mshr_input_from_params(p, &in);
    cm_status st = cm_mshr_solve(&in, ws, &res, NULL, err);
    if (st) return st;
    model[CM_MQ_OCCUPANCY] = res.mean_occupancy;
    model[CM_MQ_P_FULL] = res.p_full;
    model[CM_MQ_LATENCY] = res.latency_mem;
    return CM_OK;
}

cm_status cm_mshr_obs_predict(const cm_mshr_obs *o, const cm_mshr_fit *fit,
                              cm_mshr_ws *ws, double model[CM_MQ_COUNT],
                              cm_err *err)
{
    cm_params p = o->params;
    if (fit) cm_mshr_fit_apply(fit, &p);
    return predict_with(&p, ws, model, err);
}

/* One round of the fit: the parameters still free (their indices into the
 * fit's), the others at their configured values. */
typedef struct fit_ctx {
    const cm_mshr_obs *obs;
    size_t n, nfree;
    const cm_param_info *param[CM_LSQ_MAXP];
    cm_mshr_ws *ws;
} fit_ctx;

static int has_qty(const cm_mshr_obs *o, int q)
{
    return isfinite(o->sim[q]);
}

static int fit_resid(const double *x, double *r, void *arg)
{
    const fit_ctx *c = arg;
    size_t j = 0;
    for (size_t i = 0; i < c->n; i++) {
        cm_params p = c->obs[i].params;
        for (size_t k = 0; k < c->nfree; k++)
            put_clamped(c->param[k], &p, x[k]);
        double model[CM_MQ_COUNT];
        cm_err err;
        if (predict_with(&p, c->ws, model, &err)) return 1;
        for (int q = 0; q < CM_MQ_COUNT; q++)
            if (has_qty(&c->obs[i], q))
                r[j++] = (model[q] - c->obs[i].sim[q]) / c->obs[i].sigma[q];
    }
    return 0;
}

/* The residual summary in plain units, at the fitted values. */
static cm_status fit_summarise(const cm_mshr_obs *obs, size_t n,
                               cm_mshr_ws *ws, cm_mshr_fit *fit, cm_err *err)
{
    double sum[CM_MQ_COUNT] = {0};
    size_t cnt[CM_MQ_COUNT] = {0};
    for (size_t i = 0; i < n; i++) {
        double model[CM_MQ_COUNT];
        cm_status st = cm_mshr_obs_predict(&obs[i], fit, ws, model, err);
        if (st) return st;
        for (int q = 0; q < CM_MQ_COUNT; q++) {
            double s = obs[i].sim[q];
            if (!isfinite(s)) continue;
            double e = fabs(model[q] - s);
            if (q != CM_MQ_P_FULL) e = s > 0 ? e / s : (e > 0 ? INFINITY : 0);
            sum[q] += e;
            cnt[q]++;
        }
    }
    fit->occ_mare = sum[0] / (double)cnt[0];
    fit->p_full_mae = sum[1] / (double)cnt[1];
    fit->latency_mare = cnt[2] ? sum[2] / (double)cnt[2] : NAN;
    return CM_OK;
}

/* Fits the parameters not yet held, and holds those the data cannot
 * identify; returns how many it held this round. */
static cm_status fit_round(fit_ctx *c, cm_mshr_fit *fit, size_t nres,
                           size_t *held, cm_err *err)
{
    size_t idx[CM_LSQ_MAXP];
    double x0[CM_LSQ_MAXP], scale[CM_LSQ_MAXP], lo[CM_LSQ_MAXP],
        hi[CM_LSQ_MAXP];
    c->nfree = 0;
    for (size_t k = 0; k < fit->np; k++) {
        if (!fit->identifiable[k]) continue;
        size_t f = c->nfree++;
        idx[f] = k;
        c->param[f] = fit->param[k];
        x0[f] = fmin(fmax(fit->value[k], fit->lo[k]), fit->hi[k]);
        lo[f] = fit->lo[k];
        hi[f] = fit->hi[k];
        /* Step sizes: cycles move in hundreds, the rest by about one. */
        scale[f] = fmax(fabs(x0[f]),
                        strcmp(fit->param[k]->unit, "cycles") ? 1 : 100);
    }
    cm_lsq_result lr;
    cm_status st = cm_lsq_fit(fit_resid, c, nres, c->nfree, x0, scale, lo,
                              hi, &lr, err);
    if (st) return st;
    *held = 0;
    for (size_t f = 0; f < c->nfree; f++) {
        size_t k = idx[f];
        fit->fitted[k] = lr.x[f];
        fit->fitted_se[k] = lr.stderr_[f];
        fit->flags[k] = lr.flags[f];
        fit->stderr_[k] = lr.stderr_[f];
        if (lr.identifiable[f]) {
            fit->value[k] = lr.x[f];
        } else { /* back to the configured value, out of the next round */
            fit->value[k] = cm_param_get(&c->obs[0].params, fit->param[k]);
            fit->identifiable[k] = 0;
            fit->stderr_[k] = NAN;
            (*held)++;
        }
    }
    fit->chisq = lr.chisq;
    fit->chisq_dof = lr.chisq_dof;
    fit->iterations += lr.iterations;
    return CM_OK;
}

cm_status cm_mshr_fit_run(const cm_mshr_obs *obs, size_t n,
                          const cm_param_info *const *params, size_t np,
                          cm_mshr_fit *fit, cm_err *err)
{
    memset(fit, 0, sizeof *fit);
    if (n == 0)
        return cm_err_set(err, CM_EINPUT, "mshr fit: no samples");
    if (np < 1 || np > CM_LSQ_MAXP)
        return cm_err_set(err, CM_EINPUT,
                          "mshr fit: %zu parameters to fit (1 to %d)", np,
                          CM_LSQ_MAXP);
    size_t nres = 0;
    for (size_t i = 0; i < n; i++)
        for (int q = 0; q < CM_MQ_COUNT; q++) nres += has_qty(&obs[i], q);
    fit->np = np;
    for (size_t k = 0; k < np; k++) {
        fit->param[k] = params[k];
        if (params[k]->type != CM_PT_REAL)
            return cm_err_set(err, CM_EINPUT,
                              "mshr fit: %s is not a real-valued parameter",
                              params[k]->name);
        fit->value[k] = cm_param_get(&obs[0].params, params[k]);
        fit->identifiable[k] = 1;
        fit->lo[k] = -INFINITY;
        fit->hi[k] = INFINITY;
        for (size_t i = 0; i < n; i++) { /* every run's machine accepts it */
            double lo, hi;
            cm_mshr_param_range(&obs[i].params, params[k], &lo, &hi);
            fit->lo[k] = fmax(fit->lo[k], lo);
            fit->hi[k] = fmin(fit->hi[k], hi);
        }
        if (!(fit->lo[k] < fit->hi[k]))
            return cm_err_set(err, CM_EINPUT, "mshr fit: the samples' "
                              "machines leave %s no range", params[k]->name);
    }
    cm_mshr_ws *ws = cm_mshr_ws_new();
    if (!ws) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    fit_ctx c = {.obs = obs, .n = n, .ws = ws};
    cm_status st = CM_OK;
    size_t left = np, held = 1;
    while (!st && left > 0 && held > 0) {
        st = fit_round(&c, fit, nres, &held, err);
        left -= st ? 0 : held;
    }
    fit->identified = left;
    fit->observations = n;
    fit->residuals = nres;
    if (!st) st = fit_summarise(obs, n, ws, fit, err);
    if (st) cm_err_prefix(err, "mshr fit");
    cm_mshr_ws_free(ws);
    return st;
}
