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

#include "study/study_coh_impl.h"

const char *const coh_workloads[NWL] = {"bh",  "cc",  "cl",  "dlb",
                                        "stn", "vpr", "hsp", "kmn",
                                        "lps", "ndl", "rg",  "sr"};
const char *const coh_protocols[NPROTO] = {
    "no-l1", "no-coh", "mesi",  "gpu-vi", "gpu-vini",
    "tcsuo", "tcs",    "tcsoo", "tcw",    "tcw-fixed"};
const double coh_lifetimes[NLIFE] = {0, 100, 400, 1600, 6400, 50000};
const double coh_dir_ratios[NRATIO] = {1, 2, 4, 16};
const double coh_dir_ways[NWAYS] = {8, 16, 32};
const coh_axis coh_predictor_axes[NPRED] = {{"tc.t_hit", {1, 4, 16}},
                                            {"tc.t_evict", {4, 8, 16}},
                                            {"tc.t_write", {4, 8, 16}}};
const char *const coh_outcome_names[NOUT] = {"hit", "expired", "evicted",
                                             "unused"};


/* ---- the workload selection ------------------------------------------------ */

cm_status cm_study_coh_workloads(const char *spec,
                                 int selected[CM_STUDY_COH_NWL], cm_err *err)
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
        while (w < NWL && !(strlen(coh_workloads[w]) == len &&
                            strncmp(p, coh_workloads[w], len) == 0))
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
    return w < NWL ? coh_workloads[w] : NULL;
}

/* ---- small helpers -------------------------------------------------------- */


void coh_gm_add(gmean *g, double x)
{
    if (isfinite(x) && x > 0) {
        g->logsum += log(x);
        g->n++;
    }
}

double coh_gm_value(const gmean *g)
{
    return g->n ? exp(g->logsum / (double)g->n) : NAN;
}

double coh_ratio(double a, double b)
{
    return isfinite(a) && isfinite(b) && b > 0 ? a / b : NAN;
}


void coh_rb_str(rowbuf *r, const char *s)
{
    if (r->n >= ROW_MAX) return;
    snprintf(r->text[r->n], sizeof r->text[0], "%s", s);
    r->cell[r->n] = r->text[r->n];
    r->n++;
}

void coh_rb_ptr(rowbuf *r, const char *s) /* long text, not copied */
{
    if (r->n >= ROW_MAX) return;
    r->cell[r->n++] = s;
}

/* A number, or an empty cell where there is none (a TC column under a
 * protocol without timestamps, a ratio over no events). */
void coh_rb_num(rowbuf *r, double v)
{
    char b[32];
    cm_fmt_optional(b, v);
    coh_rb_str(r, b);
}

void coh_rb_nans(rowbuf *r, size_t n) /* cells with no value */
{
    for (size_t i = 0; i < n; i++) coh_rb_num(r, NAN);
}

/* Appends a row ended by an empty error cell, unless st already failed. */
cm_status coh_append_ok(cm_table *t, rowbuf *r, cm_status st, cm_err *err)
{
    coh_rb_str(r, "");
    return st ? st : cm_table_append(t, r->cell, err);
}

cm_status coh_table_new(size_t n, const char *const *names, cm_table **t,
                           cm_err *err)
{
    *t = cm_table_new(n, names);
    return *t ? CM_OK : cm_err_set(err, CM_EINTERNAL, "out of memory");
}

/* Writes the table as outdir/<name>.csv unless st already failed; frees
 * it either way. */
cm_status coh_write_free(coh_ctx *c, const char *name, cm_table *t,
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
        snprintf(name, sizeof name, "tc.outcome.%s", coh_outcome_names[o]);
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
cm_status coh_get_run(coh_ctx *c, size_t wl, size_t pr, const cm_params *p,
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
    const cm_workload_profile *prof = cm_workload_builtin(coh_workloads[wl]);
    if (!prof)
        return cm_err_set(err, CM_EINTERNAL, "built-in workload '%s' missing",
                          coh_workloads[wl]);
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

double coh_ipc_of(const coh_ctx *c, size_t wl, size_t pr)
{
    const coh_run *r = c->cmp[wl][pr];
    return r ? r->ipc : NAN;
}

/* Traffic per unit of work: runs stop at the same cycle, not at the same
 * instruction, so a slower protocol's flit count covers less of the
 * program.  Every protocol runs the same instruction streams. */
double coh_fpk(const coh_run *r)
{
    return coh_ratio(1000 * r->flits, r->instructions);
}

double coh_flits_of(const coh_ctx *c, size_t wl, size_t pr)
{
    const coh_run *r = c->cmp[wl][pr];
    return r ? coh_fpk(r) : NAN;
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
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        cols[nc++] = head[i];
    for (size_t m = 1; m < CM_MSG_COUNT; m++, nc++) {
        snprintf(names[nc], sizeof names[nc], "noc.msgs.%s", cm_msg_names[m]);
        cols[nc] = names[nc];
    }
    for (size_t i = 0; i < sizeof tail / sizeof *tail; i++)
        cols[nc++] = tail[i];
    cm_table *t;
    cm_status st = coh_table_new(nc, cols, &t, err);
    for (size_t w = 0; !st && w < NWL; w++)
        for (size_t p = 0; !st && p < NPROTO; p++) {
            const coh_run *r = c->cmp[w][p];
            if (!r) continue;
            rowbuf rb = {.n = 0};
            coh_rb_str(&rb, coh_workloads[w]);
            coh_rb_str(&rb, w < NINTER ? "inter" : "intra");
            coh_rb_str(&rb, coh_protocols[p]);
            coh_rb_num(&rb, r->finished);
            coh_rb_num(&rb, r->cycles);
            coh_rb_num(&rb, r->instructions);
            coh_rb_num(&rb, r->ipc);
            coh_rb_num(&rb, coh_ratio(r->ipc, coh_ipc_of(c, w, P_NOCOH)));
            coh_rb_num(&rb, coh_ratio(r->ipc, coh_ipc_of(c, w, P_NOL1)));
            coh_rb_num(&rb, r->flits);
            coh_rb_num(&rb, coh_fpk(r));
            coh_rb_num(&rb, coh_ratio(coh_fpk(r), coh_flits_of(c, w, P_NOCOH)));
            for (size_t m = 1; m < CM_MSG_COUNT; m++)
                coh_rb_num(&rb, r->msgs[m]);
            coh_rb_num(&rb, r->msgs_total);
            coh_rb_num(&rb, r->recalls);
            coh_rb_num(&rb, r->invalidations);
            coh_rb_num(&rb, r->store_stall);
            coh_rb_num(&rb, r->fence_wait);
            coh_rb_num(&rb, r->l1_miss_ratio);
            for (size_t o = 0; o < NOUT; o++) coh_rb_num(&rb, r->outcome[o]);
            coh_rb_num(&rb, r->tc ? r->lifetime_mean : NAN);
            coh_rb_ptr(&rb, r->error);
            st = cm_table_append(t, rb.cell, err);
        }
    st = coh_write_free(c, "coh/compare", t, st, err);
    return st;
}


void coh_sb_add(series_buf *b, double x, double y)
{
    if (b->n < MAX_SERIES_PTS) {
        b->x[b->n] = x;
        b->y[b->n] = y;
        b->n++;
    }
}

/* The protocols' names as seed 000 writes them, for legends and axes. */
const char *const coh_protocol_names[NPROTO] = {
    "NO-L1", "NO-COH", "MESI", "GPU-VI", "GPU-VIni",
    "TCSUO", "TCS",    "TCSOO", "TCW",   "TCW-FIXED"};


cm_status coh_render(coh_ctx *c, const char *name, const char *title,
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
const char *coh_axis_of(const char *column, char *buf, size_t len)
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
    for (size_t i = 0; i < c->nwl; i++) cats[i] = coh_workloads[c->wl[i]];
    for (size_t p = 0; p < NPROTO; p++) {
        if (p == P_NOCOH) continue; /* the baseline: the line at 1 */
        snprintf(b[k].label, sizeof b[k].label, "%s", coh_protocol_names[p]);
        b[k].panel = p >= P_TCSUO;
        for (size_t i = 0; i < c->nwl; i++) {
            size_t w = c->wl[i];
            double y = traffic ? coh_ratio(coh_flits_of(c, w, p),
                                           coh_flits_of(c, w, P_NOCOH))
                               : coh_ratio(coh_ipc_of(c, w, p),
                                           coh_ipc_of(c, w, P_NOCOH));
            coh_sb_add(&b[k], (double)i, y);
        }
        k++;
    }
    for (size_t pn = 0; pn < 2; pn++, k++) {
        snprintf(b[k].label, sizeof b[k].label, "NO-COH (= 1)");
        b[k].panel = pn;
        b[k].reference = 1;
        coh_sb_add(&b[k], -0.5, 1);
        coh_sb_add(&b[k], (double)c->nwl - 0.5, 1);
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
    return coh_render(c, name, title, xl, coh_axis_of(column, yl, sizeof yl), 0,
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
    cm_status st = coh_table_new(nc, cols, &t, err);
    series_buf b[NMSG_GROUPS];
    memset(b, 0, sizeof b);
    for (size_t g = 0; g < NMSG_GROUPS; g++)
        snprintf(b[g].label, sizeof b[g].label, "%s", msg_groups[g].label);
    for (size_t p = 0; !st && p < NPROTO; p++) {
        rowbuf rb = {.n = 0};
        coh_rb_str(&rb, coh_protocols[p]);
        coh_rb_num(&rb, (double)(p + 1));
        for (size_t m = 1; m < CM_MSG_COUNT; m++)
            coh_rb_num(&rb, inst[p] > 0 ? 1000 * msgs[p][m] / inst[p] : NAN);
        for (size_t g = 0; g < NMSG_GROUPS; g++) {
            double sum = 0;
            for (size_t j = 0; j < 5 && msg_groups[g].msgs[j]; j++)
                sum += msgs[p][msg_groups[g].msgs[j]];
            coh_sb_add(&b[g], (double)p,
                       inst[p] > 0 ? 1000 * sum / inst[p] : NAN);
        }
        st = cm_table_append(t, rb.cell, err);
    }
    st = coh_write_free(c, "coh/traffic_class", t, st, err);
    char yl[160];
    fig_shape shape = {coh_protocol_names, NPROTO, NULL, 0, NULL};
    if (!st)
        st = coh_render(c, "coh/traffic_class",
                    "Messages by class, the workloads pooled", "protocol",
                    coh_axis_of("msgs_per_kinst", yl, sizeof yl), 0,
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
    cm_status st = coh_table_new(7, cols, &t, err);
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
        coh_rb_str(&rb, coh_protocols[p]);
        coh_rb_num(&rb, (double)(k + 1));
        for (size_t o = 0; o < NOUT; o++) {
            double f = total > 0 ? cnt[o] / total : NAN;
            coh_rb_num(&rb, f);
            coh_sb_add(&b[o], (double)k, f);
        }
        k++;
        coh_rb_num(&rb, total);
        st = cm_table_append(t, rb.cell, err);
    }
    st = coh_write_free(c, "coh/tc_outcomes", t, st, err);
    char yl[160];
    fig_shape shape = {coh_protocol_names + P_TCSUO, P_TCWF - P_TCSUO + 1, NULL,
                       0, NULL};
    if (!st)
        st = coh_render(c, "coh/tc_outcomes",
                    "How L1 copies of TC protocols end, the workloads pooled",
                    "TC protocol", coh_axis_of("outcome_share", yl, sizeof yl),
                    0, CM_PLOT_BARS, &shape, b, NOUT, err);
    return st;
}

static cm_status comparison(coh_ctx *c, cm_err *err)
{
    cm_status st = CM_OK;
    for (size_t i = 0; !st && i < c->nwl; i++)
        for (size_t p = 0; !st && p < NPROTO; p++)
            st = coh_get_run(c, c->wl[i], p, &c->base, &c->cmp[c->wl[i]][p],
                             err);
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

/* ---- the section -------------------------------------------------------- */

static cm_status say_overview(coh_ctx *c, cm_err *err)
{
    char line[1024];
    size_t n = 0;
    for (size_t p = 0; p < NPROTO && n < sizeof line; p++)
        n += (size_t)snprintf(line + n, sizeof line - n, " %s",
                              coh_protocols[p]);
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
            double v = coh_rel_change(c, 0, p, P_NOCOH, traffic) + 1;
            n += (size_t)snprintf(line + n, sizeof line - n, "%s %s %.2f",
                                  n ? "," : "", coh_protocols[p], v);
        }
        st = cm_study_say(c->s, err, "- geomean %s vs NO-COH:%s",
                          traffic ? "traffic (flits per instruction)" : "speed",
                          line);
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
                                  "%s%s", n ? " " : "", coh_workloads[w]);
            if (w >= NINTER)
                m += (size_t)snprintf(c->intra_names + m,
                                      sizeof c->intra_names - m, "%s%s",
                                      m ? " " : "", coh_workloads[w]);
        }
    for (size_t p = 0; !st && p < NPROTO; p++) {
        c->proto[p] = cm_protocol_find(coh_protocols[p]);
        if (!c->proto[p])
            st =
                cm_err_set(err, CM_EINTERNAL, "coherence protocol '%s' missing",
                           coh_protocols[p]);
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
    if (!st) coh_choose_sweep_workloads(c);
    if (!st) st = coh_lifetime_sweep(c, best, err);
    if (!st) st = coh_dir_sweep(c, &spread, &recall_change, err);
    if (!st) st = coh_predictor_sweep(c, err);
    if (!st)
        st = cm_study_say(
            s, err,
            "- Sweeps: fixed lifetimes 0-50000 cycles on %s "
            "(lifetime_sweep.csv);\n  GPU-VIni directory R 1-16 x W 8-32 on "
            "%s, the workload recalling most (dir_sweep.csv);\n  TC-Weak "
            "predictor constants on %s, where TCW and TCW-FIXED differ most "
            "(predictor_sweep.csv).",
            c->wl_names, coh_workloads[c->dir_wl], coh_workloads[c->pred_wl]);
    if (!st) st = coh_seed_compare(c, best, spread, recall_change, err);
    if (!st && c->failed) {
        st = cm_study_say(s, err, "- %zu simulator runs failed (rows with an "
                          "error in the CSVs):", c->failed);
        for (size_t i = 0; !st && i < c->nmemo; i++)
            if (!c->memo[i].ok)
                st = cm_study_say(s, err, "  %s under %s: %s",
                                  coh_workloads[c->memo[i].wl],
                                  coh_protocols[c->memo[i].proto],
                                  c->memo[i].error);
    }
    if (!st)
        st = cm_study_say(s, err, "- %zu simulator runs for %zu points.",
                          c->nmemo, c->total);
    free(c->memo);
    free(c);
    return st;
}

