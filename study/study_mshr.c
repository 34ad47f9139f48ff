/* study_mshr.c - the MSHR section of `cohmod study`.
 *
 * On the study's machine it sweeps the L1 MSHR count, the active warps and
 * three workload intensities (wl.mem_rate: memory instructions per
 * instruction issued) through models/mshr, writes the grids as CSV, draws
 * the figures a paper on MSHR sizing needs, and states in the summary, for
 * each intensity, how many MSHRs suffice and at which intensity a small and
 * a large MSHR file saturate.  "Saturate" means P(all entries busy) >= 1/2:
 * past it, reservation failures stall the memory pipeline more often than
 * not (seed 002, section 4.1).  The grids carry the model's error estimates
 * (study/validate.h cm_validate_annotate, from the shipped
 * data/validity.csv), and the summary says how many of their rows lie
 * inside a validated region. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "data/datadir.h"
#include "data/sweep.h"
#include "data/validity.h"
#include "models/mshr.h"
#include "study/study.h"
#include "study/validate.h"

static const struct {
    const char *label;
    double rate; /* wl.mem_rate */
} intensities[] = {{"low", 0.025}, {"medium", 0.1}, {"high", 0.4}};
#define NINTENSITIES (sizeof intensities / sizeof intensities[0])

static const char entries_spec[] =
    "l1.mshrs=8,16,24,32,48,64,96,128,192,256";

#define SATURATED 0.5
#define ENOUGH 0.05

/* The model's error estimates over the section's grids (data/validity.h,
 * the shipped table): how many rows are inside a validated region. */
typedef struct estimates {
    cm_validity *v;
    size_t rows, inside;
} estimates;

/* Replaces *t by the same grid with the error estimates of `cohmod model
 * mshr` beside it, counting the rows inside. */
static cm_status annotate(estimates *e, const cm_params *p, cm_table **t,
                          cm_err *err)
{
    cm_table *out = NULL;
    cm_status st = cm_validate_annotate(e->v, "mshr", NULL, p, *t, &out, err);
    if (st) return st;
    long c = cm_table_col_find(out, "p_full_abs_err");
    for (size_t i = 0; c >= 0 && i < cm_table_nrows(out); i++)
        e->inside += cm_table_cell(out, i, (size_t)c)[0] != '\0';
    e->rows += cm_table_nrows(out);
    cm_table_free(*t);
    *t = out;
    return CM_OK;
}

/* Runs the MSHR grid of the given sweep specs over `p` into outdir/name.csv
 * (with the error estimates when e is given) and returns the table for
 * figures. */
static cm_status run_grid(cm_study *s, const cm_params *p, const char *name,
                          const char *const *specs, size_t nspecs,
                          estimates *e, cm_table **out, cm_err *err)
{
    int pmf = !e;
    cm_sweep sw[4];
    size_t n = 0;
    cm_status st = CM_OK;
    *out = NULL;
    for (; n < nspecs && !st; n++) st = cm_sweep_parse(specs[n], &sw[n], err);
    if (st) n--; /* the failed parse freed its own values */
    if (!st)
        st = cm_mshr_grid_table(p, sw, n, pmf, s->progress, s->progress_arg,
                                out, err);
    for (size_t i = 0; i < n; i++) cm_sweep_free(&sw[i]);
    if (!st && e) st = annotate(e, p, out, err);
    if (!st) st = cm_study_write_table(s, name, *out, err);
    if (st) {
        cm_table_free(*out);
        *out = NULL;
    }
    return st;
}

static cm_status figure(cm_study *s, const char *name, const cm_table *t,
                        const char *x, const char *y, const char *by,
                        const char *title, int logx, cm_err *err)
{
    const char *ys[] = {y};
    cm_plot_table_opts o = {0};
    o.x = x;
    o.y = ys;
    o.ny = 1;
    o.by = by;
    o.title = title;
    o.logx = logx;
    o.style = CM_PLOT_LINES_POINTS;
    return cm_study_figure(s, name, t, &o, err);
}

typedef struct probe {
    cm_mshr_input in;
    cm_mshr_ws *ws;
    cm_status st;
    cm_err *err;
} probe;

static cm_mshr_result probe_solve(probe *pr, double rate)
{
    cm_mshr_result r;
    memset(&r, 0, sizeof r);
    pr->in.mem_rate = rate;
    if (!pr->st) pr->st = cm_mshr_solve(&pr->in, pr->ws, &r, NULL, pr->err);
    return r;
}

/* P(full) - 1/2 as a function of log10(intensity). */
static double saturation_gap(double log_rate, void *arg)
{
    probe *pr = arg;
    return probe_solve(pr, pow(10, log_rate)).p_full - SATURATED;
}

/* The intensity at which `mshrs` entries saturate, or NAN if they do not
 * below 1 memory instruction per instruction. */
static double saturation_intensity(probe *pr, double mshrs)
{
    pr->in.mshrs = mshrs;
    const double lo = -6, hi = 0;
    if (saturation_gap(hi, pr) < 0 || pr->st) return NAN;
    if (saturation_gap(lo, pr) >= 0) return pow(10, lo);
    gsl_root_fsolver *brent = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!brent) return NAN;
    gsl_function f = {saturation_gap, pr};
    double root = NAN;
    if (gsl_root_fsolver_set(brent, &f, lo, hi) == GSL_SUCCESS) {
        for (int it = 0; it < 100 && !pr->st; it++) {
            if (gsl_root_fsolver_iterate(brent) != GSL_SUCCESS) break;
            root = gsl_root_fsolver_root(brent);
            if (gsl_root_test_interval(gsl_root_fsolver_x_lower(brent),
                                       gsl_root_fsolver_x_upper(brent), 1e-6,
                                       0) == GSL_SUCCESS)
                break;
        }
    }
    gsl_root_fsolver_free(brent);
    return pow(10, root);
}

static cm_status say_findings(cm_study *s, const cm_params *p, cm_err *err)
{
    probe pr = {.ws = cm_mshr_ws_new(), .st = CM_OK, .err = err};
    if (!pr.ws) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_mshr_input_from_params(p, &pr.in);
    cm_status st = cm_study_say(
        s, err,
        "MSHR occupancy (%.0f active warps, %g requests per memory "
        "instruction, L1 miss ratio %g,\nL2 miss ratio %g; files "
        "mshr_*.csv and mshr_*.png):",
        pr.in.warps, pr.in.reqs_per_inst, pr.in.l1_miss, pr.in.l2_miss);
    static const double sizes[] = {8, 16, 24, 32, 48, 64, 96, 128, 192, 256};
    for (size_t i = 0; i < NINTENSITIES && !st; i++) {
        double need = NAN;
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
            pr.in.mshrs = sizes[j];
            if (probe_solve(&pr, intensities[i].rate).p_full < ENOUGH) {
                need = sizes[j];
                break;
            }
        }
        pr.in.mshrs = p->l1_mshrs;
        cm_mshr_result r = probe_solve(&pr, intensities[i].rate);
        if (pr.st) break;
        char need_text[96];
        if (isnan(need))
            snprintf(need_text, sizeof need_text,
                     "even 256 MSHRs are full %.0f%% of the time or more",
                     100 * ENOUGH);
        else
            snprintf(need_text, sizeof need_text,
                     "%.0f MSHRs keep P(full) below %.0f%%", need,
                     100 * ENOUGH);
        char limit[160];
        if (r.bottleneck == CM_RES_WARPS)
            snprintf(limit, sizeof limit,
                     "no shared resource is over half busy (warps issue at "
                     "%.0f%% of their unstalled rate)",
                     100 * r.issue_fraction);
        else
            snprintf(limit, sizeof limit, "bottleneck %s (%.0f%% busy)",
                     cm_mshr_resource_name(r.bottleneck),
                     100 * r.util[r.bottleneck]);
        st = cm_study_say(
            s, err,
            "- %s intensity (%g inst/inst): %s; with %.0f MSHRs "
            "occupancy is %.1f, latency %.0f cycles, %.1f GB/s, %s.",
            intensities[i].label, intensities[i].rate, need_text,
            p->l1_mshrs, r.mean_occupancy, r.latency_eff, r.bandwidth_gbs,
            limit);
    }
    const double small = 32, large = p->l1_mshrs > small ? p->l1_mshrs : 128;
    double x_small = st || pr.st ? NAN : saturation_intensity(&pr, small);
    double x_large = st || pr.st ? NAN : saturation_intensity(&pr, large);
    if (!st && !pr.st) {
        if (isnan(x_small)) {
            st = cm_study_say(s, err,
                              "- %.0f MSHRs never saturate below 1 "
                              "inst/inst: another resource limits "
                              "first.", small);
        } else {
            pr.in.mshrs = large;
            cm_mshr_result big = probe_solve(&pr, x_small);
            pr.in.mshrs = small;
            cm_mshr_result sm = probe_solve(&pr, x_small);
            char tail[160];
            if (isnan(x_large))
                snprintf(tail, sizeof tail, "never saturate below 1 "
                         "inst/inst (%s saturates first)",
                         cm_mshr_resource_name(big.bottleneck));
            else
                snprintf(tail, sizeof tail, "saturate only at %.4g",
                         x_large);
            st = cm_study_say(
                s, err,
                "- At %.0f warps, %.0f MSHRs saturate (P(full) = %.2f) at "
                "intensity %.4g inst/inst;\n  %.0f do not (P(full) = "
                "%.3f there, %.2fx the miss throughput) and %s.",
                pr.in.warps, small, sm.p_full, x_small, large, big.p_full,
                big.miss_throughput / sm.miss_throughput, tail);
        }
    }
    /* How many warps a small MSHR file supports at high intensity. */
    if (!st && !pr.st) {
        pr.in.mshrs = small;
        double limit = NAN;
        double total = pr.in.warps;
        for (double w = 1; w <= total; w++) {
            pr.in.warps = w;
            if (probe_solve(&pr, intensities[NINTENSITIES - 1].rate).p_full >=
                SATURATED) {
                limit = w;
                break;
            }
        }
        pr.in.warps = total;
        if (!pr.st)
            st = isnan(limit)
                     ? cm_study_say(s, err,
                                    "- At high intensity %.0f MSHRs stay "
                                    "below saturation up to %.0f warps.",
                                    small, total)
                     : cm_study_say(s, err,
                                    "- At high intensity %.0f MSHRs "
                                    "saturate from %.0f active warps on: "
                                    "throttling below that avoids "
                                    "reservation failures.",
                                    small, limit);
    }
    cm_mshr_ws_free(pr.ws);
    return st ? st : pr.st;
}

/* "wl.mem_rate=a,b,c" from the intensities table. */
static void format_intensity_spec(char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "wl.mem_rate=");
    for (size_t i = 0; i < NINTENSITIES && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%g", i ? "," : "",
                              intensities[i].rate);
}

cm_status cm_study_section_mshr(cm_study *s, cm_err *err)
{
    cm_params p = *s->params;
    char intensity_spec[128];
    format_intensity_spec(intensity_spec, sizeof intensity_spec);
    p.sched_active_warps = p.gpu_warps_per_sm;
    cm_table *t = NULL;
    estimates e = {0};
    char vpath[4096];
    cm_status st = cm_data_path("validity.csv", vpath, sizeof vpath, err);
    if (!st) st = cm_validity_read(vpath, &e.v, err);

    /* Entries x intensity at full occupancy of warp slots. */
    const char *by_entries[] = {intensity_spec, entries_spec};
    if (!st)
        st = run_grid(s, &p, "mshr_vs_entries", by_entries, 2, &e, &t, err);
    if (!st)
        st = figure(s, "mshr_pfull_vs_entries", t, "l1.mshrs", "p_full",
                    "wl.mem_rate", "P(all L1 MSHRs busy) by intensity", 1,
                    err);
    if (!st)
        st = figure(s, "mshr_occupancy_vs_entries", t, "l1.mshrs",
                    "mean_occupancy", "wl.mem_rate",
                    "Mean L1 MSHR occupancy by intensity", 1, err);
    if (!st)
        st = figure(s, "mshr_bandwidth_vs_entries", t, "l1.mshrs",
                    "bandwidth", "wl.mem_rate",
                    "L1 miss bandwidth of the GPU by intensity", 1, err);
    cm_table_free(t);
    t = NULL;

    /* Active warps at high intensity, a small and the configured file. */
    char warps_spec[64], sizes_spec[64], rate_set[64];
    snprintf(warps_spec, sizeof warps_spec, "sched.active_warps=1:%.0f:1",
             p.gpu_warps_per_sm);
    snprintf(sizes_spec, sizeof sizes_spec, "l1.mshrs=32,%.0f",
             p.l1_mshrs > 32 ? p.l1_mshrs : 128);
    snprintf(rate_set, sizeof rate_set, "%g",
             intensities[NINTENSITIES - 1].rate);
    cm_params high = p;
    if (!st) st = cm_params_set(&high, "wl.mem_rate", rate_set, err);
    const char *by_warps[] = {sizes_spec, warps_spec};
    if (!st) st = run_grid(s, &high, "mshr_vs_warps", by_warps, 2, &e, &t,
                           err);
    if (!st)
        st = figure(s, "mshr_pfull_vs_warps", t, "sched.active_warps",
                    "p_full", "l1.mshrs",
                    "P(all L1 MSHRs busy) at high intensity", 0, err);
    if (!st)
        st = figure(s, "mshr_throughput_vs_warps", t, "sched.active_warps",
                    "inst_rate", "l1.mshrs",
                    "Memory instructions per cycle at high intensity", 0,
                    err);
    cm_table_free(t);
    t = NULL;

    /* The whole occupancy distribution, small against configured. */
    const char *by_size[] = {sizes_spec};
    char pmf_title[96];
    snprintf(pmf_title, sizeof pmf_title,
             "L1 MSHR occupancy distribution, %.0f warps, high intensity",
             p.gpu_warps_per_sm);
    if (!st)
        st = run_grid(s, &high, "mshr_occupancy_pmf", by_size, 1, NULL, &t,
                      err);
    if (!st)
        st = figure(s, "mshr_occupancy_pmf", t, "occupancy", "probability",
                    "l1.mshrs", pmf_title,
                    0, err);
    cm_table_free(t);
    t = NULL;

    /* The full three-way grid, for the user's own figures. */
    char coarse_warps[64];
    snprintf(coarse_warps, sizeof coarse_warps,
             "sched.active_warps=4:%.0f:4", p.gpu_warps_per_sm);
    const char *full[] = {intensity_spec, coarse_warps, entries_spec};
    if (!st) st = run_grid(s, &p, "mshr_grid", full, 3, &e, &t, err);
    cm_table_free(t);

    if (!st) st = say_findings(s, &p, err);
    if (!st)
        st = cm_study_say(s, err,
                          "- Error estimates (the grids' *_abs_err, "
                          "*_rel_err, *_domain columns; data/validity.csv): "
                          "%zu of their %zu rows lie inside a region "
                          "`cohmod validate mshr` measured%s",
                          e.inside, e.rows,
                          e.inside < e.rows
                              ? "; the others are outside every validated "
                                "region and carry no estimate (their "
                                "_domain says why)."
                              : ".");
    cm_validity_free(e.v);
    return st;
}
