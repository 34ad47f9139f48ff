/* study_coh.c - the coherence section of `cohmod study` (files in coh/).
 *
 * What.  Seed 000's GPU coherence protocols (NO-L1, NO-COH, MESI, GPU-VI,
 * GPU-VIni, TCSUO, TCS, TCSOO, TCW, TCW-FIXED; not WT, which no seed
 * statement compares, to keep the section short) run on the one
 * simulated machine (sim/gpu.h), over seed 000's workload profiles (bh cc cl dlb stn vpr
 * communicate between workgroups; hsp kmn lps ndl rg sr do not need
 * coherence).  By default four of the twelve (DEFAULT_WORKLOADS, below);
 * --coh-workloads all runs every one.  Then three small sweeps: fixed
 * lifetimes of TCS and TCW-FIXED on the same workloads, the GPU-VIni
 * directory size (R x L1 lines, W ways) on the workload that recalls most,
 * and the TC-Weak predictor constants one at a time around their defaults
 * on the workload where the predictor matters most.  Last, our numbers
 * beside seed 000's section-6 statements (coh/seed_compare.csv and the
 * summary), with an explanation where they differ.
 *
 * Why.  Seed 000's claims are about relative traffic and speed; the study
 * shows which of them our machine model and synthetic profiles reproduce,
 * and by how much, without tuning anything to match.
 *
 * Runs.  Each run is the first COH_CYCLES cycles of the workload (or
 * sim.max_cycles when that is smaller, so tests can shrink the section):
 * full runs take 10-40 s each.  Speed is ipc over the window (warp
 * instructions per cycle: the same instruction mix under every protocol),
 * so a protocol that stalls issues fewer instructions.  Traffic is
 * noc.flits per 1000 warp instructions (flits_per_kinst): the runs stop at
 * one cycle, not at one point of the program, so raw flit counts would
 * credit a slow protocol with less traffic.  Per message class the
 * simulator counts messages (noc.msgs.<class>), not flits.  A run that
 * fails (a simulator error) is a row with its error and no values, listed
 * in the summary; the section carries on.  A cell with no value (the
 * run's error, a tc.* column under a protocol without timestamps, a ratio
 * over no events) is empty, never "nan".
 *
 * Averages.  Seed 000 reports harmonic means of speedups and arithmetic
 * means of normalised traffic; we use geometric means over workloads of
 * per-workload ratios for both (and say so in every note).  Pooled message
 * and lifetime-outcome figures sum counts over workloads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/atomic.h"
#include "data/columns.h"
#include "study/study.h"
#include "sim/gpu.h"
#include "sim/protocol.h"
#include "sim/stats.h"
#include "data/workload.h"

/* Cycles per run.  50k rather than 100k costs half as much.  Measured on
 * all twelve workloads (tc2013): every ordering of the seed comparison and
 * both best lifetimes are the same at the two lengths; geomean speeds
 * against NO-COH move by at most 0.03 (TCW: 0.06), geomean traffic by at
 * most 0.05 (GPU-VI, MESI: recall and write-back traffic keeps growing as
 * the directory and L1s fill, so the shorter window understates it a
 * little).  At 25k cycles that understatement halves GPU-VI's extra
 * traffic, so not shorter. */
#define COH_CYCLES 50000

static const char *const workloads[] = {"bh",  "cc",  "cl",  "dlb",
                                        "stn", "vpr", "hsp", "kmn",
                                        "lps", "ndl", "rg",  "sr"};
#define NWL (sizeof workloads / sizeof workloads[0])
#define NINTER 6 /* the first six need coherence */

/* The default workloads: two that need coherence and two that do not,
 * the 2+2 subset whose geomean speed and traffic ratios (every protocol
 * against NO-COH, and the ratios of the seed comparison) came closest to
 * those over all twelve (RMS log difference 1.5%, 100k-cycle runs on
 * tc2013).  A representative sample, not one picked to match the seed. */
#define DEFAULT_WORKLOADS "bh,dlb,hsp,sr"

static const char *const protocols[] = {
    "no-l1", "no-coh", "mesi",  "gpu-vi", "gpu-vini",
    "tcsuo", "tcs",    "tcsoo", "tcw",    "tcw-fixed"};
enum { P_NOL1, P_NOCOH, P_MESI, P_GPUVI, P_GPUVINI, P_TCSUO, P_TCS,
       P_TCSOO, P_TCW, P_TCWF, NPROTO };

/* Fixed lifetimes: 0 (no reuse) and roughly factors of four up to the
 * predictor's upper bound. */
static const double lifetimes[] = {0, 100, 400, 1600, 6400, 50000};
#define NLIFE (sizeof lifetimes / sizeof lifetimes[0])
static const double dir_ratios[] = {1, 2, 4, 16};
#define NRATIO (sizeof dir_ratios / sizeof dir_ratios[0])
static const double dir_wayss[] = {8, 16, 32};
#define NWAYS (sizeof dir_wayss / sizeof dir_wayss[0])
static const struct {
    const char *name;
    double values[3];
} predictor_axes[] = {{"tc.t_hit", {1, 4, 16}},
                      {"tc.t_evict", {4, 8, 16}},
                      {"tc.t_write", {4, 8, 16}}};
#define NPRED (sizeof predictor_axes / sizeof predictor_axes[0])
#define NPRED_VALUES 3

enum { OUT_HIT, OUT_EXPIRED, OUT_EVICTED, OUT_UNUSED, NOUT };
static const char *const outcome_names[NOUT] = {"hit", "expired", "evicted",
                                                "unused"};

/* The parameters a sweep changes: the memo's key. */
enum { K_LS, K_LW, K_RATIO, K_WAYS, K_HIT, K_EVICT, K_WRITE, NKEY };

typedef struct coh_run {
    size_t wl, proto;
    double key[NKEY];
    int ok, finished, tc;
    char error[CM_ERR_MSG_MAX];
    double cycles, instructions, ipc, flits, msgs[CM_MSG_COUNT], msgs_total;
    double recalls, invalidations, store_stall, fence_wait, l1_miss_ratio;
    double outcome_count[NOUT], outcome[NOUT], lifetime_mean;
} coh_run;

typedef struct coh_ctx {
    cm_study *s;
    cm_params base; /* the study's machine, runs cut at `cycles` */
    double cycles;
    const cm_protocol *proto[NPROTO];
    size_t wl[NWL], nwl, ninter; /* the selected workloads, inter first */
    char wl_names[NWL * 8];      /* their names, space-separated */
    char intra_names[NWL * 8];   /* those of the no-coherence set */
    size_t dir_wl, pred_wl;      /* the sweeps' single workloads */
    coh_run *memo; /* capacity `total`: one run per point at most */
    size_t nmemo, done, total, failed;
    const coh_run *cmp[NWL][NPROTO]; /* the comparison; NULL: absent */
    double life_gm[2][NLIFE]; /* geomean speeds of the lifetime sweep */
} coh_ctx;

/* ---- the workload selection ------------------------------------------------ */

cm_status cm_study_coh_workloads(const char *spec, int selected[CM_STUDY_COH_NWL],
                                 cm_err *err)
{
    if (!spec) spec = DEFAULT_WORKLOADS;
    int all = strcmp(spec, "all") == 0;
    for (size_t w = 0; w < NWL; w++) selected[w] = all;
    if (all) return CM_OK;
    size_t n = 0;
    const char *p = spec;
    for (;;) {
        size_t len = strcspn(p, ",");
        size_t w = 0;
        while (w < NWL && !(strlen(workloads[w]) == len &&
                            strncmp(p, workloads[w], len) == 0))
            w++;
        if (w == NWL)
            return cm_err_set(err, CM_EINPUT,
                              "--coh-workloads: '%.*s' is not one of bh cc "
                              "cl dlb stn vpr hsp kmn lps ndl rg sr (or "
                              "'all')", (int)len, p);
        n += !selected[w];
        selected[w] = 1;
        if (!p[len]) break;
        p += len + 1;
    }
    return n ? CM_OK : cm_err_set(err, CM_EINPUT, "--coh-workloads: empty");
}

const char *cm_study_coh_workload_name(size_t w)
{
    return w < NWL ? workloads[w] : NULL;
}

/* ---- small helpers -------------------------------------------------------- */

typedef struct gmean {
    double logsum;
    size_t n;
} gmean;

static void gm_add(gmean *g, double x)
{
    if (isfinite(x) && x > 0) {
        g->logsum += log(x);
        g->n++;
    }
}

static double gm_value(const gmean *g)
{
    return g->n ? exp(g->logsum / (double)g->n) : NAN;
}

static double ratio(double a, double b)
{
    return isfinite(a) && isfinite(b) && b > 0 ? a / b : NAN;
}

/* A row of cells for cm_table_append. */
#define ROW_MAX 64
typedef struct rowbuf {
    char text[ROW_MAX][48];
    const char *cell[ROW_MAX];
    size_t n;
} rowbuf;

static void rb_str(rowbuf *r, const char *s)
{
    if (r->n >= ROW_MAX) return;
    snprintf(r->text[r->n], sizeof r->text[0], "%s", s);
    r->cell[r->n] = r->text[r->n];
    r->n++;
}

static void rb_ptr(rowbuf *r, const char *s) /* long text, not copied */
{
    if (r->n >= ROW_MAX) return;
    r->cell[r->n++] = s;
}

/* A number, or an empty cell where there is none (a TC column under a
 * protocol without timestamps, a ratio over no events). */
static void rb_num(rowbuf *r, double v)
{
    char b[32];
    cm_fmt_optional(b, v);
    rb_str(r, b);
}

static void rb_nans(rowbuf *r, size_t n) /* cells with no value */
{
    for (size_t i = 0; i < n; i++) rb_num(r, NAN);
}

/* Appends a row ended by an empty error cell, unless st already failed. */
static cm_status append_ok(cm_table *t, rowbuf *r, cm_status st, cm_err *err)
{
    rb_str(r, "");
    return st ? st : cm_table_append(t, r->cell, err);
}

static cm_status table_new(size_t n, const char *const *names, cm_table **t,
                           cm_err *err)
{
    *t = cm_table_new(n, names);
    return *t ? CM_OK : cm_err_set(err, CM_EINTERNAL, "out of memory");
}

/* Writes the table as outdir/<name>.csv unless st already failed; frees
 * it either way. */
static cm_status write_free(coh_ctx *c, const char *name, cm_table *t,
                            cm_status st, cm_err *err)
{
    if (!st) st = cm_study_write_table(c->s, name, t, err);
    cm_table_free(t);
    return st;
}

/* ---- runs ------------------------------------------------------------------- */

static void key_of(const cm_params *p, double key[NKEY])
{
    key[K_LS] = p->tc_lifetime_strong;
    key[K_LW] = p->tc_lifetime_weak;
    key[K_RATIO] = p->dir_ratio;
    key[K_WAYS] = p->dir_ways;
    key[K_HIT] = p->tc_t_hit;
    key[K_EVICT] = p->tc_t_evict;
    key[K_WRITE] = p->tc_t_write;
}

static double stat_of(const cm_stat_row *rows, size_t n, const char *metric,
                      int *found)
{
    const cm_stat_row *r = cm_stats_find(rows, n, metric, "all");
    if (found) *found = r != NULL;
    return r ? r->value : NAN;
}

static void fill_run(coh_run *r, const cm_stat_row *rows, size_t n,
                     const cm_gpu_result *res)
{
    r->finished = res->finished;
    r->cycles = (double)res->cycles;
    r->instructions = (double)res->instructions;
    r->ipc = stat_of(rows, n, "ipc", NULL);
    r->flits = stat_of(rows, n, "noc.flits", NULL);
    r->msgs_total = 0;
    for (size_t m = 1; m < CM_MSG_COUNT; m++) {
        char name[64];
        snprintf(name, sizeof name, "noc.msgs.%s", cm_msg_names[m]);
        double v = stat_of(rows, n, name, NULL);
        r->msgs[m] = isfinite(v) ? v : 0; /* not registered: never sent */
        r->msgs_total += r->msgs[m];
    }
    r->recalls = stat_of(rows, n, "dir.recalls", NULL);
    r->invalidations = stat_of(rows, n, "dir.invalidations", NULL);
    r->store_stall = stat_of(rows, n, "l2.store_stall_cycles", NULL);
    r->fence_wait = stat_of(rows, n, "fence.wait_cycles", NULL);
    r->l1_miss_ratio = stat_of(rows, n, "l1.miss_ratio", NULL);
    double total = 0;
    for (size_t o = 0; o < NOUT; o++) {
        char name[64];
        int found = 0;
        snprintf(name, sizeof name, "tc.outcome.%s", outcome_names[o]);
        r->outcome_count[o] = stat_of(rows, n, name, &found);
        if (found) r->tc = 1;
        total += r->outcome_count[o];
    }
    for (size_t o = 0; o < NOUT; o++)
        r->outcome[o] = r->tc && total > 0 ? r->outcome_count[o] / total
                                           : NAN;
    r->lifetime_mean = stat_of(rows, n, "tc.lifetime_mean", NULL);
}

static void step(coh_ctx *c)
{
    c->done++;
    if (c->s->progress) c->s->progress(c->done, c->total, c->s->progress_arg);
}

/* The run of workload wl under protocol pr on machine p: from the memo,
 * else simulated.  A simulator error is kept in the run, not returned. */
static cm_status get_run(coh_ctx *c, size_t wl, size_t pr, const cm_params *p,
                         const coh_run **out, cm_err *err)
{
    double key[NKEY];
    key_of(p, key);
    for (size_t i = 0; i < c->nmemo; i++)
        if (c->memo[i].wl == wl && c->memo[i].proto == pr &&
            memcmp(c->memo[i].key, key, sizeof key) == 0) {
            *out = &c->memo[i];
            step(c);
            return CM_OK;
        }
    if (c->nmemo >= c->total)
        return cm_err_set(err, CM_EINTERNAL, "coherence study: more runs "
                          "than points");
    coh_run *r = &c->memo[c->nmemo];
    memset(r, 0, sizeof *r);
    r->wl = wl;
    r->proto = pr;
    memcpy(r->key, key, sizeof key);
    const cm_workload_profile *prof = cm_workload_builtin(workloads[wl]);
    if (!prof)
        return cm_err_set(err, CM_EINTERNAL, "built-in workload '%s' missing",
                          workloads[wl]);
    cm_stats *stats = cm_stats_new();
    if (!stats) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_gpu_result res = {0};
    cm_err run_err = {0};
    cm_gpu_run_config gc = {.params = p, .workload = prof,
                            .protocol = c->proto[pr]};
    cm_status st = cm_gpu_run(&gc, stats, &res, &run_err);
    cm_stat_row *rows = NULL;
    size_t nrows = 0;
    if (!st) {
        st = cm_stats_rows(stats, &rows, &nrows, err);
        if (!st) {
            r->ok = 1;
            fill_run(r, rows, nrows, &res);
        }
        free(rows);
        cm_stats_free(stats);
        if (st) return st;
    } else {
        cm_stats_free(stats);
        snprintf(r->error, sizeof r->error, "%s", run_err.msg);
        r->ipc = r->flits = r->cycles = r->instructions = NAN;
        r->recalls = r->invalidations = r->store_stall = NAN;
        r->fence_wait = r->l1_miss_ratio = r->lifetime_mean = NAN;
        r->msgs_total = NAN;
        for (size_t m = 0; m < CM_MSG_COUNT; m++) r->msgs[m] = NAN;
        for (size_t o = 0; o < NOUT; o++) r->outcome[o] = NAN;
        c->failed++;
    }
    c->nmemo++;
    *out = r;
    step(c);
    return CM_OK;
}

static double ipc_of(const coh_ctx *c, size_t wl, size_t pr)
{
    const coh_run *r = c->cmp[wl][pr];
    return r ? r->ipc : NAN;
}

/* Traffic per unit of work: runs stop at the same cycle, not at the same
 * instruction, so a slower protocol's flit count covers less of the
 * program.  Every protocol runs the same instruction streams. */
static double fpk(const coh_run *r)
{
    return ratio(1000 * r->flits, r->instructions);
}

static double flits_of(const coh_ctx *c, size_t wl, size_t pr)
{
    const coh_run *r = c->cmp[wl][pr];
    return r ? fpk(r) : NAN;
}

/* ---- 1. comparison -------------------------------------------------------- */

static cm_status write_compare(coh_ctx *c, cm_err *err)
{
    static const char *const head[] = {
        "workload", "set", "protocol", "finished", "cycles", "instructions",
        "ipc", "speed_vs_nocoh", "speed_vs_nol1", "noc.flits",
        "flits_per_kinst", "flits_vs_nocoh"};
    static const char *const tail[] = {
        "noc.msgs.total", "dir.recalls", "dir.invalidations",
        "l2.store_stall_cycles", "fence.wait_cycles", "l1.miss_ratio",
        "tc.outcome.hit", "tc.outcome.expired", "tc.outcome.evicted",
        "tc.outcome.unused", "tc.lifetime_mean", "error"};
    char names[ROW_MAX][48];
    const char *cols[ROW_MAX];
    size_t nc = 0;
    for (size_t i = 0; i < sizeof head / sizeof *head; i++) cols[nc++] = head[i];
    for (size_t m = 1; m < CM_MSG_COUNT; m++, nc++) {
        snprintf(names[nc], sizeof names[nc], "noc.msgs.%s", cm_msg_names[m]);
        cols[nc] = names[nc];
    }
    for (size_t i = 0; i < sizeof tail / sizeof *tail; i++) cols[nc++] = tail[i];
    cm_table *t;
    cm_status st = table_new(nc, cols, &t, err);
    for (size_t w = 0; !st && w < NWL; w++)
        for (size_t p = 0; !st && p < NPROTO; p++) {
            const coh_run *r = c->cmp[w][p];
            if (!r) continue;
            rowbuf rb = {.n = 0};
            rb_str(&rb, workloads[w]);
            rb_str(&rb, w < NINTER ? "inter" : "intra");
            rb_str(&rb, protocols[p]);
            rb_num(&rb, r->finished);
            rb_num(&rb, r->cycles);
            rb_num(&rb, r->instructions);
            rb_num(&rb, r->ipc);
            rb_num(&rb, ratio(r->ipc, ipc_of(c, w, P_NOCOH)));
            rb_num(&rb, ratio(r->ipc, ipc_of(c, w, P_NOL1)));
            rb_num(&rb, r->flits);
            rb_num(&rb, fpk(r));
            rb_num(&rb, ratio(fpk(r), flits_of(c, w, P_NOCOH)));
            for (size_t m = 1; m < CM_MSG_COUNT; m++) rb_num(&rb, r->msgs[m]);
            rb_num(&rb, r->msgs_total);
            rb_num(&rb, r->recalls);
            rb_num(&rb, r->invalidations);
            rb_num(&rb, r->store_stall);
            rb_num(&rb, r->fence_wait);
            rb_num(&rb, r->l1_miss_ratio);
            for (size_t o = 0; o < NOUT; o++) rb_num(&rb, r->outcome[o]);
            rb_num(&rb, r->tc ? r->lifetime_mean : NAN);
            rb_ptr(&rb, r->error);
            st = cm_table_append(t, rb.cell, err);
        }
    st = write_free(c, "coh/compare", t, st, err);
    return st;
}

#define MAX_SERIES_PTS 64

typedef struct series_buf {
    char label[96];
    double x[MAX_SERIES_PTS], y[MAX_SERIES_PTS];
    size_t n, panel;
    int reference;
} series_buf;

static void sb_add(series_buf *b, double x, double y)
{
    if (b->n < MAX_SERIES_PTS) {
        b->x[b->n] = x;
        b->y[b->n] = y;
        b->n++;
    }
}

/* The protocols' names as seed 000 writes them, for legends and axes. */
static const char *const protocol_names[NPROTO] = {
    "NO-L1", "NO-COH", "MESI", "GPU-VI", "GPU-VIni",
    "TCSUO", "TCS",    "TCSOO", "TCW",   "TCW-FIXED"};

/* One figure's shape beyond its series: categories, panels. */
typedef struct fig_shape {
    const char *const *categories;
    size_t ncategories;
    const cm_plot_panel *panels;
    size_t npanels;
    const char *legend_title;
} fig_shape;

static cm_status render(coh_ctx *c, const char *name, const char *title,
                        const char *xlabel, const char *ylabel, int logx,
                        cm_plot_style style, const fig_shape *shape,
                        series_buf *b, size_t nb, cm_err *err)
{
    cm_plot_series ser[NPROTO * 4];
    size_t ns = 0;
    for (size_t i = 0; i < nb && ns < sizeof ser / sizeof *ser; i++) {
        if (!b[i].n) continue;
        ser[ns++] = (cm_plot_series){.label = b[i].label[0] ? b[i].label
                                                             : NULL,
                                     .x = b[i].x, .y = b[i].y, .n = b[i].n,
                                     .panel = b[i].panel,
                                     .reference = b[i].reference};
    }
    cm_plot_spec spec = {.title = title, .xlabel = xlabel, .ylabel = ylabel,
                         .logx = logx, .style = style, .series = ser,
                         .nseries = ns};
    if (shape) {
        spec.categories = shape->categories;
        spec.ncategories = shape->ncategories;
        spec.panels = shape->panels;
        spec.npanels = shape->npanels;
        spec.legend_title = shape->legend_title;
        spec.share_y = shape->npanels > 1; /* panels compare by eye */
    }
    return cm_study_render(c->s, name, &spec, err);
}

/* A figure's axis label from the registries (data/columns.h). */
static const char *axis_of(const char *column, char *buf, size_t len)
{
    cm_plot_axis_label(column, buf, len);
    return buf;
}

/* Speed or traffic per workload against NO-COH: grouped bars, one group
 * per workload, one bar per protocol, NO-COH the dashed line at 1.  Nine
 * protocols are more than one panel's colours, so the invalidation
 * protocols (and NO-L1) and the temporal ones get a panel each. */
static cm_status per_workload_figure(coh_ctx *c, const char *name,
                                     const char *title, const char *column,
                                     int traffic, cm_err *err)
{
    series_buf b[NPROTO + 2];
    memset(b, 0, sizeof b);
    const char *cats[NWL];
    size_t k = 0;
    for (size_t i = 0; i < c->nwl; i++) cats[i] = workloads[c->wl[i]];
    for (size_t p = 0; p < NPROTO; p++) {
        if (p == P_NOCOH) continue; /* the baseline: the line at 1 */
        snprintf(b[k].label, sizeof b[k].label, "%s", protocol_names[p]);
        b[k].panel = p >= P_TCSUO;
        for (size_t i = 0; i < c->nwl; i++) {
            size_t w = c->wl[i];
            double y = traffic ? ratio(flits_of(c, w, p), flits_of(c, w, P_NOCOH))
                               : ratio(ipc_of(c, w, p), ipc_of(c, w, P_NOCOH));
            sb_add(&b[k], (double)i, y);
        }
        k++;
    }
    for (size_t pn = 0; pn < 2; pn++, k++) {
        snprintf(b[k].label, sizeof b[k].label, "NO-COH (= 1)");
        b[k].panel = pn;
        b[k].reference = 1;
        sb_add(&b[k], -0.5, 1);
        sb_add(&b[k], (double)c->nwl - 0.5, 1);
    }
    static const cm_plot_panel panels[2] = {
        {.title = "no L1, and invalidation protocols"},
        {.title = "temporal coherence"}};
    char xl[160], yl[160];
    if (c->ninter && c->ninter < c->nwl)
        snprintf(xl, sizeof xl, "workload (the first %zu need coherence)",
                 c->ninter);
    else
        snprintf(xl, sizeof xl, "workload");
    fig_shape shape = {cats, c->nwl, panels, 2, NULL};
    return render(c, name, title, xl, axis_of(column, yl, sizeof yl), 0,
                  CM_PLOT_BARS, &shape, b, k, err);
}

/* Message classes, aggregated for the figure (the CSV keeps each). */
static const struct {
    const char *label;
    cm_msg msgs[5];
} msg_groups[] = {
    {"requests", {CM_MSG_GETS, CM_MSG_GETX, CM_MSG_UPGR, CM_MSG_WRITE,
                  CM_MSG_ATOMIC}},
    {"data replies", {CM_MSG_DATA, CM_MSG_DATA_E, CM_MSG_DATA_M,
                      CM_MSG_AREPLY}},
    {"write acknowledgements", {CM_MSG_ACK}},
    {"invalidations, recalls and their acks", {CM_MSG_INV, CM_MSG_RCL,
                                               CM_MSG_INVACK}},
    {"owner forwards and answers", {CM_MSG_FWD_GETS, CM_MSG_FWD_GETX,
                                    CM_MSG_WB, CM_MSG_NODATA}},
    {"evictions (PUT)", {CM_MSG_PUT}},
};
#define NMSG_GROUPS (sizeof msg_groups / sizeof *msg_groups)

/* Messages per class per 1000 warp instructions, pooled over workloads. */
static cm_status traffic_by_class(coh_ctx *c, cm_err *err)
{
    double msgs[NPROTO][CM_MSG_COUNT], inst[NPROTO];
    memset(msgs, 0, sizeof msgs);
    memset(inst, 0, sizeof inst);
    for (size_t p = 0; p < NPROTO; p++)
        for (size_t w = 0; w < NWL; w++) {
            const coh_run *r = c->cmp[w][p];
            if (!r || !r->ok) continue;
            inst[p] += r->instructions;
            for (size_t m = 1; m < CM_MSG_COUNT; m++)
                msgs[p][m] += r->msgs[m];
        }
    const char *cols[CM_MSG_COUNT + 2];
    size_t nc = 0;
    cols[nc++] = "protocol";
    cols[nc++] = "index";
    for (size_t m = 1; m < CM_MSG_COUNT; m++) cols[nc++] = cm_msg_names[m];
    cm_table *t;
    cm_status st = table_new(nc, cols, &t, err);
    series_buf b[NMSG_GROUPS];
    memset(b, 0, sizeof b);
    for (size_t g = 0; g < NMSG_GROUPS; g++)
        snprintf(b[g].label, sizeof b[g].label, "%s", msg_groups[g].label);
    for (size_t p = 0; !st && p < NPROTO; p++) {
        rowbuf rb = {.n = 0};
        rb_str(&rb, protocols[p]);
        rb_num(&rb, (double)(p + 1));
        for (size_t m = 1; m < CM_MSG_COUNT; m++)
            rb_num(&rb, inst[p] > 0 ? 1000 * msgs[p][m] / inst[p] : NAN);
        for (size_t g = 0; g < NMSG_GROUPS; g++) {
            double sum = 0;
            for (size_t j = 0; j < 5 && msg_groups[g].msgs[j]; j++)
                sum += msgs[p][msg_groups[g].msgs[j]];
            sb_add(&b[g], (double)p, inst[p] > 0 ? 1000 * sum / inst[p] : NAN);
        }
        st = cm_table_append(t, rb.cell, err);
    }
    st = write_free(c, "coh/traffic_class", t, st, err);
    char yl[160];
    fig_shape shape = {protocol_names, NPROTO, NULL, 0, NULL};
    if (!st)
        st = render(c, "coh/traffic_class",
                    "Messages by class, the workloads pooled", "protocol",
                    axis_of("msgs_per_kinst", yl, sizeof yl), 0,
                    CM_PLOT_BARS, &shape, b, NMSG_GROUPS, err);
    return st;
}

/* Lifetime outcomes of the TC protocols, pooled over workloads. */
static cm_status tc_outcomes(coh_ctx *c, cm_err *err)
{
    static const char *const cols[] = {"protocol", "index", "hit", "expired",
                                       "evicted", "unused", "lifetimes"};
    static const char *const outcome_labels[NOUT] = {
        "hit again before expiry", "expired before reuse",
        "evicted before expiry", "never used again"};
    cm_table *t;
    cm_status st = table_new(7, cols, &t, err);
    series_buf b[NOUT];
    memset(b, 0, sizeof b);
    for (size_t o = 0; o < NOUT; o++)
        snprintf(b[o].label, sizeof b[o].label, "%s", outcome_labels[o]);
    size_t k = 0;
    for (size_t p = P_TCSUO; !st && p <= P_TCWF; p++) {
        double cnt[NOUT] = {0}, total = 0;
        for (size_t w = 0; w < NWL; w++) {
            const coh_run *r = c->cmp[w][p];
            if (!r || !r->ok || !r->tc) continue;
            for (size_t o = 0; o < NOUT; o++) {
                cnt[o] += r->outcome_count[o];
                total += r->outcome_count[o];
            }
        }
        rowbuf rb = {.n = 0};
        rb_str(&rb, protocols[p]);
        rb_num(&rb, (double)(k + 1));
        for (size_t o = 0; o < NOUT; o++) {
            double f = total > 0 ? cnt[o] / total : NAN;
            rb_num(&rb, f);
            sb_add(&b[o], (double)k, f);
        }
        k++;
        rb_num(&rb, total);
        st = cm_table_append(t, rb.cell, err);
    }
    st = write_free(c, "coh/tc_outcomes", t, st, err);
    char yl[160];
    fig_shape shape = {protocol_names + P_TCSUO, P_TCWF - P_TCSUO + 1, NULL,
                       0, NULL};
    if (!st)
        st = render(c, "coh/tc_outcomes",
                    "How L1 copies of TC protocols end, the workloads pooled",
                    "TC protocol", axis_of("outcome_share", yl, sizeof yl),
                    0, CM_PLOT_BARS, &shape, b, NOUT, err);
    return st;
}

static cm_status comparison(coh_ctx *c, cm_err *err)
{
    cm_status st = CM_OK;
    for (size_t i = 0; !st && i < c->nwl; i++)
        for (size_t p = 0; !st && p < NPROTO; p++)
            st = get_run(c, c->wl[i], p, &c->base, &c->cmp[c->wl[i]][p], err);
    if (!st) st = write_compare(c, err);
    if (!st)
        st = per_workload_figure(c, "coh/speed",
                                 "Speed against NO-COH per workload",
                                 "speed_vs_nocoh", 0, err);
    if (!st)
        st = per_workload_figure(c, "coh/traffic",
                                 "Interconnect flits per instruction against "
                                 "NO-COH", "flits_vs_nocoh", 1, err);
    if (!st) st = traffic_by_class(c, err);
    if (!st) st = tc_outcomes(c, err);
    return st;
}

/* ---- 2. sweeps ------------------------------------------------------------ */

/* lifetime_sweep: best[0] TCS, best[1] TCW-FIXED (the lifetime with the
 * highest geomean speed vs NO-COH over the selected workloads). */
static cm_status lifetime_sweep(coh_ctx *c, double best[2], cm_err *err)
{
    static const char *const cols[] = {
        "protocol", "workload", "lifetime", "ipc", "speed_vs_nocoh",
        "flits_vs_nocoh", "l1.miss_ratio", "l2.store_stall_cycles",
        "fence.wait_cycles", "tc.lifetime_mean", "finished", "error"};
    static const size_t prot[2] = {P_TCS, P_TCWF};
    cm_table *t;
    cm_status st = table_new(sizeof cols / sizeof *cols, cols, &t, err);
    /* The figure: the geomean of each protocol (each workload's curve is
     * in the CSV; a dozen more curves would hide them). */
    series_buf b[2];
    memset(b, 0, sizeof b);
    for (size_t i = 0; !st && i < 2; i++) {
        double best_speed = -1;
        best[i] = NAN;
        snprintf(b[i].label, sizeof b[i].label, "%s",
                 protocol_names[prot[i]]);
        for (size_t l = 0; !st && l < NLIFE; l++) {
            cm_params p = c->base;
            if (prot[i] == P_TCS) p.tc_lifetime_strong = lifetimes[l];
            else p.tc_lifetime_weak = lifetimes[l];
            double x = lifetimes[l] > 0 ? lifetimes[l] : NAN; /* log axis */
            gmean g = {0, 0};
            for (size_t j = 0; !st && j < c->nwl; j++) {
                size_t w = c->wl[j];
                const coh_run *r;
                st = get_run(c, w, prot[i], &p, &r, err);
                if (st) break;
                double sp = ratio(r->ipc, ipc_of(c, w, P_NOCOH));
                gm_add(&g, sp);
                rowbuf rb = {.n = 0};
                rb_str(&rb, protocols[prot[i]]);
                rb_str(&rb, workloads[w]);
                rb_num(&rb, lifetimes[l]);
                rb_num(&rb, r->ipc);
                rb_num(&rb, sp);
                rb_num(&rb, ratio(fpk(r), flits_of(c, w, P_NOCOH)));
                rb_num(&rb, r->l1_miss_ratio);
                rb_num(&rb, r->store_stall);
                rb_num(&rb, r->fence_wait);
                rb_num(&rb, r->lifetime_mean);
                rb_num(&rb, r->finished);
                rb_ptr(&rb, r->error);
                st = cm_table_append(t, rb.cell, err);
            }
            double gv = g.n == c->nwl ? gm_value(&g) : NAN;
            if (isfinite(gv) && gv > best_speed) {
                best_speed = gv;
                best[i] = lifetimes[l];
            }
            c->life_gm[i][l] = gv;
            sb_add(&b[i], x, gv);
            rowbuf rb = {.n = 0};
            rb_str(&rb, protocols[prot[i]]);
            rb_str(&rb, "geomean");
            rb_num(&rb, lifetimes[l]);
            rb_nans(&rb, 1);
            rb_num(&rb, gv);
            rb_nans(&rb, 6);
            st = append_ok(t, &rb, st, err);
        }
    }
    st = write_free(c, "coh/lifetime_sweep", t, st, err);
    char xl[160], yl[160];
    if (!st)
        st = render(c, "coh/lifetime_sweep",
                    "Fixed lifetimes, geomean over the workloads (0 in the "
                    "CSV only)",
                    axis_of("lifetime", xl, sizeof xl),
                    axis_of("speed_gmean_vs_nocoh", yl, sizeof yl), 1,
                    CM_PLOT_LINES_POINTS, NULL, b, 2, err);
    return st;
}

/* dir_sweep on c->dir_wl: *spread = largest |speed / speed at the
 * machine's directory - 1|; *recall_change = recalls per instruction of
 * the largest directory over the smallest, minus 1. */
static cm_status dir_sweep(coh_ctx *c, double *spread, double *recall_change,
                           cm_err *err)
{
    static const char *const cols[] = {
        "workload", "dir.ratio", "dir.ways", "ipc", "speed_vs_nocoh",
        "speed_vs_default", "noc.flits", "flits_vs_nocoh", "dir.recalls",
        "recalls_per_kinst", "dir.invalidations", "finished", "error"};
    cm_table *t;
    cm_status st = table_new(sizeof cols / sizeof *cols, cols, &t, err);
    series_buf bs[NWAYS], br[NWAYS];
    memset(bs, 0, sizeof bs);
    memset(br, 0, sizeof br);
    *spread = 0;
    double rpk_small = NAN, rpk_large = NAN;
    size_t w = c->dir_wl;
    double def = ipc_of(c, w, P_GPUVINI);
    for (size_t y = 0; y < NWAYS; y++) {
        char v[32];
        snprintf(v, sizeof v, "%.0f", dir_wayss[y]);
        cm_column_value("dir.ways", v, bs[y].label, sizeof bs[y].label);
        cm_column_value("dir.ways", v, br[y].label, sizeof br[y].label);
    }
    for (size_t y = 0; !st && y < NWAYS; y++)
        for (size_t x = 0; !st && x < NRATIO; x++) {
            cm_params p = c->base;
            p.dir_ratio = dir_ratios[x];
            p.dir_ways = dir_wayss[y];
            const coh_run *r;
            st = get_run(c, w, P_GPUVINI, &p, &r, err);
            if (st) break;
            double sp = ratio(r->ipc, def);
            double rpk = ratio(1000 * r->recalls, r->instructions);
            if (!isfinite(sp)) *spread = NAN;
            else if (fabs(sp - 1) > *spread) *spread = fabs(sp - 1);
            if (x == 0 && y == 0) rpk_small = rpk;
            if (x == NRATIO - 1 && y == NWAYS - 1) rpk_large = rpk;
            sb_add(&bs[y], dir_ratios[x], sp);
            sb_add(&br[y], dir_ratios[x], rpk);
            rowbuf rb = {.n = 0};
            rb_str(&rb, workloads[w]);
            rb_num(&rb, dir_ratios[x]);
            rb_num(&rb, dir_wayss[y]);
            rb_num(&rb, r->ipc);
            rb_num(&rb, ratio(r->ipc, ipc_of(c, w, P_NOCOH)));
            rb_num(&rb, sp);
            rb_num(&rb, r->flits);
            rb_num(&rb, ratio(fpk(r), flits_of(c, w, P_NOCOH)));
            rb_num(&rb, r->recalls);
            rb_num(&rb, rpk);
            rb_num(&rb, r->invalidations);
            rb_num(&rb, r->finished);
            rb_ptr(&rb, r->error);
            st = cm_table_append(t, rb.cell, err);
        }
    *recall_change = rpk_small > 0 ? rpk_large / rpk_small - 1 : NAN;
    st = write_free(c, "coh/dir_sweep", t, st, err);
    char title[128], xl[160], yl[160];
    snprintf(title, sizeof title, "GPU-VIni directory size on %s: speed",
             workloads[w]);
    axis_of("dir.ratio", xl, sizeof xl);
    fig_shape ways = {NULL, 0, NULL, 0, cm_column_label("dir.ways")};
    if (!st)
        st = render(c, "coh/dir_sweep_speed", title, xl,
                    axis_of("speed_vs_default", yl, sizeof yl), 1,
                    CM_PLOT_LINES_POINTS, &ways, bs, NWAYS, err);
    snprintf(title, sizeof title, "GPU-VIni directory size on %s: recalls",
             workloads[w]);
    if (!st)
        st = render(c, "coh/dir_sweep_recalls", title, xl,
                    axis_of("recalls_per_kinst", yl, sizeof yl), 1,
                    CM_PLOT_LINES_POINTS, &ways, br, NWAYS, err);
    return st;
}

static double *pred_field(cm_params *p, size_t axis)
{
    return axis == 0 ? &p->tc_t_hit : axis == 1 ? &p->tc_t_evict
                                                : &p->tc_t_write;
}

/* The TC-Weak predictor constants one at a time on c->pred_wl. */
static cm_status predictor_sweep(coh_ctx *c, cm_err *err)
{
    static const char *const cols[] = {
        "workload", "varied", "tc.t_hit", "tc.t_evict", "tc.t_write", "ipc",
        "speed_vs_nocoh", "speed_vs_default", "flits_vs_nocoh",
        "tc.lifetime_mean", "fence.wait_cycles", "finished", "error"};
    cm_table *t;
    cm_status st = table_new(sizeof cols / sizeof *cols, cols, &t, err);
    series_buf b[NPRED];
    memset(b, 0, sizeof b);
    size_t w = c->pred_wl;
    double def = ipc_of(c, w, P_TCW);
    for (size_t a = 0; !st && a < NPRED; a++) {
        b[a].panel = a; /* one constant, one x axis: a panel each */
        for (size_t v = 0; !st && v < NPRED_VALUES; v++) {
            cm_params p = c->base;
            *pred_field(&p, a) = predictor_axes[a].values[v];
            const coh_run *r;
            st = get_run(c, w, P_TCW, &p, &r, err);
            if (st) break;
            sb_add(&b[a], predictor_axes[a].values[v], ratio(r->ipc, def));
            rowbuf rb = {.n = 0};
            rb_str(&rb, workloads[w]);
            rb_str(&rb, predictor_axes[a].name);
            rb_num(&rb, p.tc_t_hit);
            rb_num(&rb, p.tc_t_evict);
            rb_num(&rb, p.tc_t_write);
            rb_num(&rb, r->ipc);
            rb_num(&rb, ratio(r->ipc, ipc_of(c, w, P_NOCOH)));
            rb_num(&rb, ratio(r->ipc, def));
            rb_num(&rb, ratio(fpk(r), flits_of(c, w, P_NOCOH)));
            rb_num(&rb, r->lifetime_mean);
            rb_num(&rb, r->fence_wait);
            rb_num(&rb, r->finished);
            rb_ptr(&rb, r->error);
            st = cm_table_append(t, rb.cell, err);
        }
    }
    st = write_free(c, "coh/predictor_sweep", t, st, err);
    char title[128], xl[NPRED][160], yl[160];
    cm_plot_panel panels[NPRED];
    for (size_t a = 0; a < NPRED; a++)
        panels[a] = (cm_plot_panel){
            .xlabel = axis_of(predictor_axes[a].name, xl[a], sizeof xl[a]),
            .logx = 1};
    fig_shape shape = {NULL, 0, panels, NPRED, NULL};
    snprintf(title, sizeof title,
             "TC-Weak predictor constants one at a time, TCW on %s",
             workloads[w]);
    if (!st)
        st = render(c, "coh/predictor_sweep", title, NULL,
                    axis_of("speed_vs_default", yl, sizeof yl), 1,
                    CM_PLOT_LINES_POINTS, &shape, b, NPRED, err);
    return st;
}

/* The sweeps' single workloads, from the comparison: the directory where
 * GPU-VIni recalls most per instruction (where its size can matter), the
 * predictor where TCW and TCW-FIXED differ most in speed (where the
 * predictor matters).  The first selected workload when nothing ran. */
static void choose_sweep_workloads(coh_ctx *c)
{
    double most_rpk = -1, most_diff = -1;
    c->dir_wl = c->pred_wl = c->wl[0];
    for (size_t i = 0; i < c->nwl; i++) {
        size_t w = c->wl[i];
        const coh_run *r = c->cmp[w][P_GPUVINI];
        double rpk = ratio(r->recalls, r->instructions);
        if (isfinite(rpk) && rpk > most_rpk) {
            most_rpk = rpk;
            c->dir_wl = w;
        }
        double d = fabs(log(ratio(ipc_of(c, w, P_TCW), ipc_of(c, w, P_TCWF))));
        if (isfinite(d) && d > most_diff) {
            most_diff = d;
            c->pred_wl = w;
        }
    }
}

/* ---- 3. seed 000 against ours ---------------------------------------------- */

typedef struct claim {
    const char *text;
    double seed, ours;
    const char *averaging;   /* how ours and the seed's were averaged */
    const char *explanation; /* why, when the ordering or magnitude differs */
} claim;

/* Geomean over the selected workloads (those of the no-coherence set only
 * when intra) of metric(a) / metric(b), minus 1. */
static double rel_change(const coh_ctx *c, int intra, size_t a, size_t b,
                         int traffic)
{
    gmean g = {0, 0};
    for (size_t i = 0; i < c->nwl; i++) {
        size_t w = c->wl[i];
        if (intra && w < NINTER) continue;
        double x = traffic ? ratio(flits_of(c, w, a), flits_of(c, w, b))
                           : ratio(ipc_of(c, w, a), ipc_of(c, w, b));
        if (!isfinite(x)) return NAN; /* a failed run */
        gm_add(&g, x);
    }
    return gm_value(&g) - 1;
}

static int same_sign(double seed, double ours)
{
    if (!isfinite(ours)) return -1;
    return (seed > 0 && ours > 0) || (seed < 0 && ours < 0);
}

static cm_status seed_compare(coh_ctx *c, const double best[2], double spread,
                              double recall_change, cm_err *err)
{
    char all_t[256], intra_t[256], all_s[256], life_avg[2][640],
        life_why[2][640], dir_avg[320], rec_avg[256], near[2][96];
    for (size_t i = 0; i < 2; i++) { /* the lifetimes near the best */
        double top = -1;
        for (size_t l = 0; l < NLIFE; l++)
            if (isfinite(c->life_gm[i][l]) && c->life_gm[i][l] > top)
                top = c->life_gm[i][l];
        near[i][0] = '\0';
        for (size_t l = 0, n = 0; l < NLIFE; l++)
            if (c->life_gm[i][l] >= 0.98 * top && n < sizeof near[i])
                n += (size_t)snprintf(near[i] + n, sizeof near[i] - n,
                                      "%s%.0f", n ? " " : "", lifetimes[l]);
        snprintf(life_avg[i], sizeof life_avg[i],
                 "the lifetime of 0 100 400 1600 6400 50000 with the highest "
                 "geomean speed vs NO-COH over %s (within 2%% of it: %s); "
                 "seed: best harmonic mean over its applications",
                 c->wl_names, near[i]);
        snprintf(life_why[i], sizeof life_why[i],
                 "the lifetimes are a factor-4 grid, so another optimum is "
                 "far off in ratio even when the speed curve is flat: within "
                 "2%% of the best are %s; %s", near[i],
                 i == 0 ? "TCS buys L1 hits with store stalls (a store waits "
                          "out its line's lifetimes), and on our profiles "
                          "the two roughly cancel up to ~400 cycles"
                        : "within a 5e4-cycle window the longest lifetimes "
                          "act as infinite ones");
    }
    snprintf(all_t, sizeof all_t, "geomean over %s of flits-per-instruction "
             "ratios; seed: mean over its applications", c->wl_names);
    snprintf(intra_t, sizeof intra_t, "geomean over %s (the no-coherence "
             "set) of flits-per-instruction ratios; seed: mean",
             *c->intra_names ? c->intra_names : "(none selected)");
    snprintf(all_s, sizeof all_s, "geomean over %s of IPC ratios; seed: "
             "ratio of harmonic means", c->wl_names);
    snprintf(dir_avg, sizeof dir_avg,
             "largest |speed change| on %s over R 1-16 x W 8-32 against "
             "R=%g W=%g; holds if at most 5%%; seed: no visible impact "
             "(Fig. 6.10a)", workloads[c->dir_wl], c->base.dir_ratio,
             c->base.dir_ways);
    snprintf(rec_avg, sizeof rec_avg,
             "recalls per 1000 instructions on %s; seed: a larger directory "
             "requires fewer recalls (Fig. 6.10b; no number)",
             workloads[c->dir_wl]);
    claim cl[] = {
        {"traffic MESI vs NO-COH (relative change)", 0.75,
         rel_change(c, 0, P_MESI, P_NOCOH, 1), all_t,
         "MESI's extra traffic is PUTs and write-backs of evicted lines, "
         "recalls and forwards (traffic_class.csv); their number follows "
         "the profiles' write fractions and footprints, which seed 000 "
         "does not give (assumed values)"},
        {"traffic GPU-VI vs NO-COH, no-coherence-needed set (relative "
         "change)", 0.31, rel_change(c, 1, P_GPUVI, P_NOCOH, 1), intra_t,
         "GPU-VI's extra traffic is invalidations and recalls of the "
         "L2-inclusive directory; their number follows the synthetic "
         "profiles' footprints and sharing (assumed values)"},
        {"traffic TCW vs GPU-VI, no-coherence-needed set (relative change)",
         -0.23, rel_change(c, 1, P_TCW, P_GPUVI, 1), intra_t,
         "what TCW saves is GPU-VI's invalidations, recalls and their "
         "acknowledgements: control messages of one flit against five for "
         "a data reply (32-B flits, 128-B lines), so even many of them are "
         "a modest share of the flits, and TCW's expired lifetimes add "
         "GETS/DATA refetches back (traffic_class.csv)"},
        {"traffic TCW vs TCS-FIXED (relative change)", -0.26,
         rel_change(c, 0, P_TCW, P_TCS, 1), all_t,
         "neither sends invalidations, so the difference is only refetches "
         "of expired lines (GETS/DATA in traffic_class.csv); most reuse in "
         "our synthetic profiles falls within TCS's 400-cycle lifetime, so "
         "TCW's predicted lifetimes have fewer refetches to save"},
        {"speed TCW vs TCS-FIXED (relative change)", 0.28,
         rel_change(c, 0, P_TCW, P_TCS, 0), all_s,
         "TCS's store stalls (a store waits out the lifetimes of its line) "
         "against TCW's fence waits (compare.csv): our no-coherence "
         "profiles have no fences, so TC-Weak loses almost nothing there, "
         "while their assumed write fractions set TCS's stalls"},
        {"speed TCW-FIXED vs TCS-FIXED (relative change)", 0.15,
         rel_change(c, 0, P_TCWF, P_TCS, 0), all_s,
         "both run fixed lifetimes, so the gap is TCS's store stalls "
         "against TCW's fence waits (compare.csv): our no-coherence "
         "profiles have no fences, so TCW-FIXED runs there about as fast "
         "as NO-COH, while TCS stalls on every store to a line with a live "
         "lifetime; the write fractions behind those stalls are assumed "
         "values"},
        {"best fixed lifetime TCS (cycles)", 400, best[0], life_avg[0],
         life_why[0]},
        {"best fixed lifetime TCW-FIXED (cycles)", 1600, best[1],
         life_avg[1], life_why[1]},
        {"directory size: largest speed change (relative)", 0, spread,
         dir_avg,
         "the sweep runs on the selected workload that recalls most, so "
         "this is the largest effect among them: there a small directory "
         "recalls several times more lines per instruction than R=16 "
         "(dir_sweep.csv), each recalled "
         "line is missed again in the L1 and the recall waits for "
         "acknowledgements; the profile's shared footprint that fills the "
         "directory is assumed, and seed 000's benchmarks may not come as "
         "close to its capacity"},
        {"directory R=16 W=32 vs R=1 W=8: recalls per instruction "
         "(relative change)", NAN, recall_change, rec_avg,
         "a larger directory does not recall less here: the window may not "
         "fill even the smallest directory"},
    };
    size_t ncl = sizeof cl / sizeof *cl;
    static const char *const cols[] = {"claim",          "seed_value",
                                       "our_value",      "ordering_holds",
                                       "ratio_to_seed",  "note",
                                       "explanation"};
    cm_table *t;
    cm_status st = table_new(7, cols, &t, err);
    if (!st)
        st = cm_study_say(c->s, err,
                          "- Seed 000's statements against ours "
                          "(coh/seed_compare.csv; geomeans over workloads "
                          "where the seed averages):");
    for (size_t i = 0; !st && i < ncl; i++) {
        claim *k = &cl[i];
        double r = NAN;
        int holds;
        if (i <= 5) { /* signed relative changes */
            holds = same_sign(k->seed, k->ours);
            r = ratio(k->ours, k->seed);
            if (k->seed < 0) r = k->ours / k->seed;
        } else if (i <= 7) { /* best lifetimes */
            holds = isfinite(k->ours) ? k->ours == k->seed : -1;
            r = ratio(k->ours, k->seed);
        } else if (i == 8) {
            holds = isfinite(k->ours) ? k->ours <= 0.05 : -1;
        } else {
            holds = isfinite(k->ours) ? k->ours < 0 : -1;
        }
        int differs = holds == 0 || (isfinite(r) && (r > 2 || r < 0.5));
        char note[512];
        snprintf(note, sizeof note, "%s%s", k->averaging,
                 isfinite(k->ours) ? "" : "; not computable (a run failed "
                                          "or no workload of its set)");
        char holds_s[8];
        snprintf(holds_s, sizeof holds_s, "%s",
                 holds < 0 ? "nan" : holds ? "1" : "0");
        rowbuf rb = {.n = 0};
        rb_ptr(&rb, k->text);
        rb_num(&rb, k->seed);
        rb_num(&rb, k->ours);
        rb_str(&rb, holds_s);
        rb_num(&rb, r);
        rb_ptr(&rb, note);
        rb_ptr(&rb, differs ? k->explanation : "");
        st = cm_table_append(t, rb.cell, err);
        if (st) break;
        char seed_s[32], ours_s[48];
        if (i <= 5 || i >= 8) {
            if (i == 8) snprintf(seed_s, sizeof seed_s, "~0%%");
            else if (isfinite(k->seed))
                snprintf(seed_s, sizeof seed_s, "%+.0f%%", 100 * k->seed);
            else snprintf(seed_s, sizeof seed_s, "fewer");
            snprintf(ours_s, sizeof ours_s, "%+.1f%%", 100 * k->ours);
        } else {
            snprintf(seed_s, sizeof seed_s, "%.0f", k->seed);
            snprintf(ours_s, sizeof ours_s, "%.0f", k->ours);
        }
        if (!isfinite(k->ours)) snprintf(ours_s, sizeof ours_s, "n/a");
        char verdict[160];
        if (holds < 0) snprintf(verdict, sizeof verdict, "not computed");
        else if (holds)
            snprintf(verdict, sizeof verdict, "%s",
                     differs ? "ordering holds, magnitude differs >2x"
                             : "holds");
        else if (i == 6 || i == 7) /* a best lifetime */
            snprintf(verdict, sizeof verdict,
                     "differs; within 2%% of the best: %s", near[i - 6]);
        else if (i == 8)
            snprintf(verdict, sizeof verdict, "differs: more than 5%%");
        else snprintf(verdict, sizeof verdict, "ordering differs");
        st = cm_study_say(c->s, err, "  %s: seed %s, ours %s (%s)", k->text,
                          seed_s, ours_s, verdict);
    }
    st = write_free(c, "coh/seed_compare", t, st, err);
    return st;
}

/* ---- the section -------------------------------------------------------- */

static cm_status say_overview(coh_ctx *c, cm_err *err)
{
    char line[1024];
    size_t n = 0;
    for (size_t p = 0; p < NPROTO && n < sizeof line; p++)
        n += (size_t)snprintf(line + n, sizeof line - n, " %s", protocols[p]);
    cm_status st = cm_study_say(
        c->s, err,
        "\nCoherence protocols on the simulated machine (coh/): seed-000 "
        "workloads %s (of bh cc cl dlb\nstn vpr, which need coherence, and "
        "hsp kmn lps ndl rg sr; --coh-workloads all runs all twelve),\nthe "
        "first %.0f cycles of each run (speed = IPC over them, traffic = "
        "flits per instruction), under\n %s.",
        c->wl_names, c->cycles, line);
    for (int traffic = 0; !st && traffic < 2; traffic++) {
        n = 0;
        for (size_t p = 0; p < NPROTO; p++) {
            if (p == P_NOCOH || n >= sizeof line) continue;
            double v = rel_change(c, 0, p, P_NOCOH, traffic) + 1;
            n += (size_t)snprintf(line + n, sizeof line - n, "%s %s %.2f",
                                  n ? "," : "", protocols[p], v);
        }
        st = cm_study_say(c->s, err, "- geomean %s vs NO-COH:%s",
                          traffic ? "traffic (flits per instruction)" : "speed", line);
    }
    return st;
}

static size_t count_points(const coh_ctx *c)
{
    return c->nwl * NPROTO + 2 * NLIFE * c->nwl + NRATIO * NWAYS +
           NPRED * NPRED_VALUES;
}

cm_status cm_study_section_coh(cm_study *s, cm_err *err)
{
    coh_ctx *c = calloc(1, sizeof *c);
    if (!c) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    c->s = s;
    c->base = *s->params;
    c->cycles = c->base.sim_max_cycles < COH_CYCLES ? c->base.sim_max_cycles
                                                     : COH_CYCLES;
    c->base.sim_max_cycles = c->cycles;
    int selected[NWL];
    cm_status st = cm_study_coh_workloads(s->coh_workloads, selected, err);
    for (size_t w = 0, n = 0, m = 0; !st && w < NWL; w++)
        if (selected[w]) {
            c->wl[c->nwl++] = w;
            c->ninter += w < NINTER;
            n += (size_t)snprintf(c->wl_names + n, sizeof c->wl_names - n,
                                  "%s%s", n ? " " : "", workloads[w]);
            if (w >= NINTER)
                m += (size_t)snprintf(c->intra_names + m,
                                      sizeof c->intra_names - m, "%s%s",
                                      m ? " " : "", workloads[w]);
        }
    for (size_t p = 0; !st && p < NPROTO; p++) {
        c->proto[p] = cm_protocol_find(protocols[p]);
        if (!c->proto[p])
            st = cm_err_set(err, CM_EINTERNAL,
                            "coherence protocol '%s' missing", protocols[p]);
    }
    c->total = count_points(c);
    c->memo = st ? NULL : calloc(c->total, sizeof *c->memo);
    if (!st && !c->memo) st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    char dir[4096];
    if (!st && (size_t)snprintf(dir, sizeof dir, "%s/coh", s->outdir) >=
                   sizeof dir)
        st = cm_err_set(err, CM_EINPUT, "output directory name too long");
    if (!st) st = cm_mkdir_p(dir, err);
    if (!st) st = comparison(c, err);
    if (!st) st = say_overview(c, err);
    double best[2] = {NAN, NAN}, spread = NAN, recall_change = NAN;
    if (!st) choose_sweep_workloads(c);
    if (!st) st = lifetime_sweep(c, best, err);
    if (!st) st = dir_sweep(c, &spread, &recall_change, err);
    if (!st) st = predictor_sweep(c, err);
    if (!st)
        st = cm_study_say(
            s, err,
            "- Sweeps: fixed lifetimes 0-50000 cycles on %s "
            "(lifetime_sweep.csv);\n  GPU-VIni directory R 1-16 x W 8-32 on "
            "%s, the workload recalling most (dir_sweep.csv);\n  TC-Weak "
            "predictor constants on %s, where TCW and TCW-FIXED differ most "
            "(predictor_sweep.csv).",
            c->wl_names, workloads[c->dir_wl], workloads[c->pred_wl]);
    if (!st) st = seed_compare(c, best, spread, recall_change, err);
    if (!st && c->failed) {
        st = cm_study_say(s, err, "- %zu simulator runs failed (rows with an "
                          "error in the CSVs):", c->failed);
        for (size_t i = 0; !st && i < c->nmemo; i++)
            if (!c->memo[i].ok)
                st = cm_study_say(s, err, "  %s under %s: %s",
                                  workloads[c->memo[i].wl],
                                  protocols[c->memo[i].proto],
                                  c->memo[i].error);
    }
    if (!st)
        st = cm_study_say(s, err, "- %zu simulator runs for %zu points.",
                          c->nmemo, c->total);
    free(c->memo);
    free(c);
    return st;
}
