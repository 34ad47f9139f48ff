/* study_coh_sweep.c - the coherence section's sweeps (see study_coh.c):
 * fixed lifetimes of TCS and TCW-FIXED on the selected workloads, the
 * GPU-VIni directory's size and ways on the workload that recalls most,
 * and the TC-Weak predictor's constants one at a time on the workload
 * where the predictor matters most. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/study_coh_impl.h"

/* ---- 2. sweeps ------------------------------------------------------------ */

/* lifetime_sweep: best[0] TCS, best[1] TCW-FIXED (the lifetime with the
 * highest geomean speed vs NO-COH over the selected workloads). */
cm_status coh_lifetime_sweep(coh_ctx *c, double best[2], cm_err *err)
{
    static const char *const cols[] = {
        "protocol", "workload", "lifetime", "ipc", "speed_vs_nocoh",
        "flits_vs_nocoh", "l1.miss_ratio", "l2.store_stall_cycles",
        "fence.wait_cycles", "tc.lifetime_mean", "finished", "error"};
    static const size_t prot[2] = {P_TCS, P_TCWF};
    cm_table *t;
    cm_status st = coh_table_new(sizeof cols / sizeof *cols, cols, &t, err);
    /* The figure: the geomean of each protocol (each workload's curve is
     * in the CSV; a dozen more curves would hide them). */
    series_buf b[2];
    memset(b, 0, sizeof b);
    for (size_t i = 0; !st && i < 2; i++) {
        double best_speed = -1;
        best[i] = NAN;
        snprintf(b[i].label, sizeof b[i].label, "%s",
                 coh_protocol_names[prot[i]]);
        for (size_t l = 0; !st && l < NLIFE; l++) {
            cm_params p = c->base;
            if (prot[i] == P_TCS) p.tc_lifetime_strong = coh_lifetimes[l];
            else p.tc_lifetime_weak = coh_lifetimes[l];
            double x =
                coh_lifetimes[l] > 0 ? coh_lifetimes[l] : NAN; /* log axis */
            gmean g = {0, 0};
            for (size_t j = 0; !st && j < c->nwl; j++) {
                size_t w = c->wl[j];
                const coh_run *r;
                st = coh_get_run(c, w, prot[i], &p, &r, err);
                if (st) break;
                double sp = coh_ratio(r->ipc, coh_ipc_of(c, w, P_NOCOH));
                coh_gm_add(&g, sp);
                rowbuf rb = {.n = 0};
                coh_rb_str(&rb, coh_protocols[prot[i]]);
                coh_rb_str(&rb, coh_workloads[w]);
                coh_rb_num(&rb, coh_lifetimes[l]);
                coh_rb_num(&rb, r->ipc);
                coh_rb_num(&rb, sp);
                coh_rb_num(&rb,
                           coh_ratio(coh_fpk(r), coh_flits_of(c, w, P_NOCOH)));
                coh_rb_num(&rb, r->l1_miss_ratio);
                coh_rb_num(&rb, r->store_stall);
                coh_rb_num(&rb, r->fence_wait);
                coh_rb_num(&rb, r->lifetime_mean);
                coh_rb_num(&rb, r->finished);
                coh_rb_ptr(&rb, r->error);
                st = cm_table_append(t, rb.cell, err);
            }
            double gv = g.n == c->nwl ? coh_gm_value(&g) : NAN;
            if (isfinite(gv) && gv > best_speed) {
                best_speed = gv;
                best[i] = coh_lifetimes[l];
            }
            c->life_gm[i][l] = gv;
            coh_sb_add(&b[i], x, gv);
            rowbuf rb = {.n = 0};
            coh_rb_str(&rb, coh_protocols[prot[i]]);
            coh_rb_str(&rb, "geomean");
            coh_rb_num(&rb, coh_lifetimes[l]);
            coh_rb_nans(&rb, 1);
            coh_rb_num(&rb, gv);
            coh_rb_nans(&rb, 6);
            st = coh_append_ok(t, &rb, st, err);
        }
    }
    st = coh_write_free(c, "coh/lifetime_sweep", t, st, err);
    char xl[160], yl[160];
    if (!st)
        st = coh_render(c, "coh/lifetime_sweep",
                    "Fixed lifetimes, geomean over the workloads (0 in the "
                    "CSV only)",
                    coh_axis_of("lifetime", xl, sizeof xl),
                    coh_axis_of("speed_gmean_vs_nocoh", yl, sizeof yl), 1,
                    CM_PLOT_LINES_POINTS, NULL, b, 2, err);
    return st;
}

/* dir_sweep on c->dir_wl: *spread = largest |speed / speed at the
 * machine's directory - 1|; *recall_change = recalls per instruction of
 * the largest directory over the smallest, minus 1. */
cm_status coh_dir_sweep(coh_ctx *c, double *spread, double *recall_change,
                           cm_err *err)
{
    static const char *const cols[] = {
        "workload", "dir.ratio", "dir.ways", "ipc", "speed_vs_nocoh",
        "speed_vs_default", "noc.flits", "flits_vs_nocoh", "dir.recalls",
        "recalls_per_kinst", "dir.invalidations", "finished", "error"};
    cm_table *t;
    cm_status st = coh_table_new(sizeof cols / sizeof *cols, cols, &t, err);
    series_buf bs[NWAYS], br[NWAYS];
    memset(bs, 0, sizeof bs);
    memset(br, 0, sizeof br);
    *spread = 0;
    double rpk_small = NAN, rpk_large = NAN;
    size_t w = c->dir_wl;
    double def = coh_ipc_of(c, w, P_GPUVINI);
    for (size_t y = 0; y < NWAYS; y++) {
        char v[32];
        snprintf(v, sizeof v, "%.0f", coh_dir_ways[y]);
        cm_column_value("dir.ways", v, bs[y].label, sizeof bs[y].label);
        cm_column_value("dir.ways", v, br[y].label, sizeof br[y].label);
    }
    for (size_t y = 0; !st && y < NWAYS; y++)
        for (size_t x = 0; !st && x < NRATIO; x++) {
            cm_params p = c->base;
            p.dir_ratio = coh_dir_ratios[x];
            p.dir_ways = coh_dir_ways[y];
            const coh_run *r;
            st = coh_get_run(c, w, P_GPUVINI, &p, &r, err);
            if (st) break;
            double sp = coh_ratio(r->ipc, def);
            double rpk = coh_ratio(1000 * r->recalls, r->instructions);
            if (!isfinite(sp)) *spread = NAN;
            else if (fabs(sp - 1) > *spread) *spread = fabs(sp - 1);
            if (x == 0 && y == 0) rpk_small = rpk;
            if (x == NRATIO - 1 && y == NWAYS - 1) rpk_large = rpk;
            coh_sb_add(&bs[y], coh_dir_ratios[x], sp);
            coh_sb_add(&br[y], coh_dir_ratios[x], rpk);
            rowbuf rb = {.n = 0};
            coh_rb_str(&rb, coh_workloads[w]);
            coh_rb_num(&rb, coh_dir_ratios[x]);
            coh_rb_num(&rb, coh_dir_ways[y]);
            coh_rb_num(&rb, r->ipc);
            coh_rb_num(&rb, coh_ratio(r->ipc, coh_ipc_of(c, w, P_NOCOH)));
            coh_rb_num(&rb, sp);
            coh_rb_num(&rb, r->flits);
            coh_rb_num(&rb, coh_ratio(coh_fpk(r), coh_flits_of(c, w, P_NOCOH)));
            coh_rb_num(&rb, r->recalls);
            coh_rb_num(&rb, rpk);
            coh_rb_num(&rb, r->invalidations);
            coh_rb_num(&rb, r->finished);
            coh_rb_ptr(&rb, r->error);
            st = cm_table_append(t, rb.cell, err);
        }
    *recall_change = rpk_small > 0 ? rpk_large / rpk_small - 1 : NAN;
    st = coh_write_free(c, "coh/dir_sweep", t, st, err);
    char title[128], xl[160], yl[160];
    snprintf(title, sizeof title, "GPU-VIni directory size on %s: speed",
             coh_workloads[w]);
    coh_axis_of("dir.ratio", xl, sizeof xl);
    fig_shape ways = {NULL, 0, NULL, 0, cm_column_label("dir.ways")};
    if (!st)
        st = coh_render(c, "coh/dir_sweep_speed", title, xl,
                    coh_axis_of("speed_vs_default", yl, sizeof yl), 1,
                    CM_PLOT_LINES_POINTS, &ways, bs, NWAYS, err);
    snprintf(title, sizeof title, "GPU-VIni directory size on %s: recalls",
             coh_workloads[w]);
    if (!st)
        st = coh_render(c, "coh/dir_sweep_recalls", title, xl,
                    coh_axis_of("recalls_per_kinst", yl, sizeof yl), 1,
                    CM_PLOT_LINES_POINTS, &ways, br, NWAYS, err);
    return st;
}

static double *pred_field(cm_params *p, size_t axis)
{
    return axis == 0 ? &p->tc_t_hit : axis == 1 ? &p->tc_t_evict
                                                : &p->tc_t_write;
}

/* The TC-Weak predictor constants one at a time on c->pred_wl. */
cm_status coh_predictor_sweep(coh_ctx *c, cm_err *err)
{
    static const char *const cols[] = {
        "workload", "varied", "tc.t_hit", "tc.t_evict", "tc.t_write", "ipc",
        "speed_vs_nocoh", "speed_vs_default", "flits_vs_nocoh",
        "tc.lifetime_mean", "fence.wait_cycles", "finished", "error"};
    cm_table *t;
    cm_status st = coh_table_new(sizeof cols / sizeof *cols, cols, &t, err);
    series_buf b[NPRED];
    memset(b, 0, sizeof b);
    size_t w = c->pred_wl;
    double def = coh_ipc_of(c, w, P_TCW);
    for (size_t a = 0; !st && a < NPRED; a++) {
        b[a].panel = a; /* one constant, one x axis: a panel each */
        for (size_t v = 0; !st && v < NPRED_VALUES; v++) {
            cm_params p = c->base;
            *pred_field(&p, a) = coh_predictor_axes[a].values[v];
            const coh_run *r;
            st = coh_get_run(c, w, P_TCW, &p, &r, err);
            if (st) break;
            coh_sb_add(&b[a], coh_predictor_axes[a].values[v],
                       coh_ratio(r->ipc, def));
            rowbuf rb = {.n = 0};
            coh_rb_str(&rb, coh_workloads[w]);
            coh_rb_str(&rb, coh_predictor_axes[a].name);
            coh_rb_num(&rb, p.tc_t_hit);
            coh_rb_num(&rb, p.tc_t_evict);
            coh_rb_num(&rb, p.tc_t_write);
            coh_rb_num(&rb, r->ipc);
            coh_rb_num(&rb, coh_ratio(r->ipc, coh_ipc_of(c, w, P_NOCOH)));
            coh_rb_num(&rb, coh_ratio(r->ipc, def));
            coh_rb_num(&rb, coh_ratio(coh_fpk(r), coh_flits_of(c, w, P_NOCOH)));
            coh_rb_num(&rb, r->lifetime_mean);
            coh_rb_num(&rb, r->fence_wait);
            coh_rb_num(&rb, r->finished);
            coh_rb_ptr(&rb, r->error);
            st = cm_table_append(t, rb.cell, err);
        }
    }
    st = coh_write_free(c, "coh/predictor_sweep", t, st, err);
    char title[128], xl[NPRED][160], yl[160];
    cm_plot_panel panels[NPRED];
    for (size_t a = 0; a < NPRED; a++)
        panels[a] =
            (cm_plot_panel){.xlabel = coh_axis_of(coh_predictor_axes[a].name,
                                                  xl[a], sizeof xl[a]),
                            .logx = 1};
    fig_shape shape = {NULL, 0, panels, NPRED, NULL};
    snprintf(title, sizeof title,
             "TC-Weak predictor constants one at a time, TCW on %s",
             coh_workloads[w]);
    if (!st)
        st = coh_render(c, "coh/predictor_sweep", title, NULL,
                    coh_axis_of("speed_vs_default", yl, sizeof yl), 1,
                    CM_PLOT_LINES_POINTS, &shape, b, NPRED, err);
    return st;
}

/* The sweeps' single workloads, from the comparison: the directory where
 * GPU-VIni recalls most per instruction (where its size can matter), the
 * predictor where TCW and TCW-FIXED differ most in speed (where the
 * predictor matters).  The first selected workload when nothing ran. */
void coh_choose_sweep_workloads(coh_ctx *c)
{
    double most_rpk = -1, most_diff = -1;
    c->dir_wl = c->pred_wl = c->wl[0];
    for (size_t i = 0; i < c->nwl; i++) {
        size_t w = c->wl[i];
        const coh_run *r = c->cmp[w][P_GPUVINI];
        double rpk = coh_ratio(r->recalls, r->instructions);
        if (isfinite(rpk) && rpk > most_rpk) {
            most_rpk = rpk;
            c->dir_wl = w;
        }
        double d = fabs(
            log(coh_ratio(coh_ipc_of(c, w, P_TCW), coh_ipc_of(c, w, P_TCWF))));
        if (isfinite(d) && d > most_diff) {
            most_diff = d;
            c->pred_wl = w;
        }
    }
}

