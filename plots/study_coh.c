/* study_coh.c - the coherence section of `cohmod study` (files in coh/).
 *
 * What.  Seed 000's GPU coherence protocols (NO-L1, NO-COH, WT, MESI when
 * the simulator has it, GPU-VI, GPU-VIni, TCSUO, TCS, TCSOO, TCW,
 * TCW-FIXED) run on the coherence simulator (sim/coh.h), so every protocol
 * runs on one machine model, over seed 000's twelve workload profiles
 * (bh cc cl dlb stn vpr communicate between workgroups; hsp kmn lps ndl rg
 * sr do not need coherence).  Then three small sweeps on a subset of the
 * workloads: fixed lifetimes of TCS and TCW-FIXED, the GPU-VIni directory
 * size (R x L1 lines, W ways), and the TC-Weak predictor constants one at
 * a time around their defaults.  Last, our numbers beside seed 000's
 * section-6 statements (coh/seed_compare.csv and the summary).
 *
 * Why.  Seed 000's claims are about relative traffic and speed; the study
 * shows which of them our machine model and synthetic profiles reproduce,
 * and by how much, without tuning anything to match.
 *
 * Runs.  Each run is the first COH_CYCLES cycles of the workload (or
 * sim.max_cycles when that is smaller, so tests can shrink the section):
 * full runs take 10-40 s each and the section makes ~250 of them.  Speed is
 * coh.ipc over the window (warp instructions per cycle: the same
 * instruction mix under every protocol), so a protocol that stalls issues
 * fewer instructions.  Traffic is noc.flits per 1000 warp instructions
 * (flits_per_kinst): the runs stop at one cycle, not at one point of the
 * program, so raw flit counts would credit a slow protocol with less
 * traffic.  Per message class the simulator counts messages
 * (noc.msgs.<class>), not flits.  A run that
 * fails (a simulator error) is a row with its error and NaN values, listed
 * in the summary; the section carries on.
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
#include "plots/study.h"
#include "sim/coh.h"
#include "sim/coh_proto.h"
#include "sim/stats.h"
#include "sim/workload.h"

#define COH_CYCLES 100000

static const char *const workloads[] = {"bh",  "cc",  "cl",  "dlb",
                                        "stn", "vpr", "hsp", "kmn",
                                        "lps", "ndl", "rg",  "sr"};
#define NWL (sizeof workloads / sizeof workloads[0])
#define NINTER 6 /* the first six need coherence */

static const char *const protocols[] = {
    "no-l1", "no-coh", "wt",    "mesi", "gpu-vi",   "gpu-vini",
    "tcsuo", "tcs",    "tcsoo", "tcw",  "tcw-fixed"};
enum { P_NOL1, P_NOCOH, P_WT, P_MESI, P_GPUVI, P_GPUVINI, P_TCSUO, P_TCS,
       P_TCSOO, P_TCW, P_TCWF, NPROTO };

/* The sweeps' workloads: cc (inter-workgroup; seed 000 discusses its
 * predictor sensitivity), hsp (false sharing, prefers long lifetimes) and
 * ndl (streaming, prefers short ones). */
static const size_t sweep_wl[] = {1, 6, 9};
#define NSWEEP_WL (sizeof sweep_wl / sizeof sweep_wl[0])

static const double lifetimes[] = {0, 100, 400, 1600, 6400, 25600, 50000};
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
    double cycles, instructions, ipc, flits, msgs[COHM_COUNT], msgs_total;
    double recalls, invalidations, store_stall, fence_wait, l1_miss_ratio;
    double outcome_count[NOUT], outcome[NOUT], lifetime_mean;
} coh_run;

typedef struct coh_ctx {
    cm_study *s;
    cm_params base; /* the study's machine, runs cut at `cycles` */
    double cycles;
    const cm_coh_protocol *proto[NPROTO];
    size_t nproto_present;
    coh_run *memo; /* capacity `total`: one run per point at most */
    size_t nmemo, done, total, failed;
    const coh_run *cmp[NWL][NPROTO]; /* the comparison; NULL: absent */
} coh_ctx;

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

static void rb_num(rowbuf *r, double v)
{
    char b[32];
    cm_fmt_double(b, v);
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
                     const cm_coh_result *res)
{
    r->finished = res->finished;
    r->cycles = (double)res->cycles;
    r->instructions = (double)res->instructions;
    r->ipc = stat_of(rows, n, "coh.ipc", NULL);
    r->flits = stat_of(rows, n, "noc.flits", NULL);
    r->msgs_total = 0;
    for (size_t m = 1; m < COHM_COUNT; m++) {
        char name[64];
        snprintf(name, sizeof name, "noc.msgs.%s", coh_msg_names[m]);
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
    cm_coh_result res = {0};
    cm_err run_err = {0};
    cm_status st = cm_coh_simulate(p, prof, (cm_warp_source){0},
                                   c->proto[pr], stats, &res, &run_err);
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
        for (size_t m = 0; m < COHM_COUNT; m++) r->msgs[m] = NAN;
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
    for (size_t m = 1; m < COHM_COUNT; m++, nc++) {
        snprintf(names[nc], sizeof names[nc], "noc.msgs.%s", coh_msg_names[m]);
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
            for (size_t m = 1; m < COHM_COUNT; m++) rb_num(&rb, r->msgs[m]);
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
    char label[48];
    double x[MAX_SERIES_PTS], y[MAX_SERIES_PTS];
    size_t n;
} series_buf;

static void sb_add(series_buf *b, double x, double y)
{
    if (b->n < MAX_SERIES_PTS) {
        b->x[b->n] = x;
        b->y[b->n] = y;
        b->n++;
    }
}

static cm_status render(coh_ctx *c, const char *name, const char *title,
                        const char *xlabel, const char *ylabel, int logx,
                        int logy, cm_plot_style style, series_buf *b,
                        size_t nb, cm_err *err)
{
    cm_plot_series ser[NPROTO * 4];
    size_t ns = 0;
    for (size_t i = 0; i < nb && ns < sizeof ser / sizeof *ser; i++) {
        if (!b[i].n) continue;
        ser[ns++] = (cm_plot_series){.label = b[i].label, .x = b[i].x,
                                     .y = b[i].y, .n = b[i].n};
    }
    cm_plot_spec spec = {.title = title, .xlabel = xlabel, .ylabel = ylabel,
                         .logx = logx, .logy = logy, .style = style,
                         .series = ser, .nseries = ns};
    return cm_study_render(c->s, name, &spec, err);
}

/* Speed or traffic per workload, one series per protocol, offset within
 * each workload's slot so the points read as groups. */
static cm_status per_workload_figure(coh_ctx *c, const char *name,
                                     const char *title, const char *ylabel,
                                     int traffic, cm_err *err)
{
    series_buf b[NPROTO];
    memset(b, 0, sizeof b);
    size_t k = 0;
    for (size_t p = 0; p < NPROTO; p++) {
        if (!c->proto[p]) continue;
        snprintf(b[k].label, sizeof b[k].label, "%s", protocols[p]);
        double off = 0.6 * ((double)k / (double)(c->nproto_present - 1) - 0.5);
        for (size_t w = 0; w < NWL; w++) {
            double y = traffic ? ratio(flits_of(c, w, p), flits_of(c, w, P_NOCOH))
                               : ratio(ipc_of(c, w, p), ipc_of(c, w, P_NOCOH));
            sb_add(&b[k], (double)(w + 1) + off, y);
        }
        k++;
    }
    return render(c, name, title,
                  "workload (index: 1-6 bh cc cl dlb stn vpr need coherence;"
                  " 7-12 hsp kmn lps ndl rg sr)",
                  ylabel, 0, 0, CM_PLOT_POINTS, b, k, err);
}

/* Messages per class per 1000 warp instructions, pooled over workloads. */
static cm_status traffic_by_class(coh_ctx *c, cm_err *err)
{
    int used[COHM_COUNT] = {0};
    double msgs[NPROTO][COHM_COUNT], inst[NPROTO];
    memset(msgs, 0, sizeof msgs);
    memset(inst, 0, sizeof inst);
    for (size_t p = 0; p < NPROTO; p++)
        for (size_t w = 0; w < NWL; w++) {
            const coh_run *r = c->cmp[w][p];
            if (!r || !r->ok) continue;
            inst[p] += r->instructions;
            for (size_t m = 1; m < COHM_COUNT; m++) {
                msgs[p][m] += r->msgs[m];
                if (r->msgs[m] > 0) used[m] = 1;
            }
        }
    const char *cols[COHM_COUNT + 2];
    size_t nc = 0;
    cols[nc++] = "protocol";
    cols[nc++] = "index";
    for (size_t m = 1; m < COHM_COUNT; m++) cols[nc++] = coh_msg_names[m];
    cm_table *t;
    cm_status st = table_new(nc, cols, &t, err);
    series_buf b[COHM_COUNT];
    memset(b, 0, sizeof b);
    char xlabel[200];
    size_t xl = (size_t)snprintf(xlabel, sizeof xlabel, "protocol (index:");
    size_t k = 0;
    for (size_t p = 0; !st && p < NPROTO; p++) {
        if (!c->proto[p]) continue;
        k++;
        if (xl < sizeof xlabel)
            xl += (size_t)snprintf(xlabel + xl, sizeof xlabel - xl, " %zu %s",
                                   k, protocols[p]);
        rowbuf rb = {.n = 0};
        rb_str(&rb, protocols[p]);
        rb_num(&rb, (double)k);
        for (size_t m = 1; m < COHM_COUNT; m++) {
            double v = inst[p] > 0 ? 1000 * msgs[p][m] / inst[p] : NAN;
            rb_num(&rb, v);
            if (used[m]) {
                snprintf(b[m].label, sizeof b[m].label, "%s",
                         coh_msg_names[m]);
                sb_add(&b[m], (double)k, v > 0 ? v : NAN); /* log axis */
            }
        }
        st = cm_table_append(t, rb.cell, err);
    }
    if (xl < sizeof xlabel) snprintf(xlabel + xl, sizeof xlabel - xl, ")");
    st = write_free(c, "coh/traffic_class", t, st, err);
    if (!st)
        st = render(c, "coh/traffic_class",
                    "Messages by class, all workloads pooled", xlabel,
                    "messages per 1000 warp instructions (log)", 0, 1,
                    CM_PLOT_POINTS, b, COHM_COUNT, err);
    return st;
}

/* Lifetime outcomes of the TC protocols, pooled over workloads. */
static cm_status tc_outcomes(coh_ctx *c, cm_err *err)
{
    static const char *const cols[] = {"protocol", "index", "hit", "expired",
                                       "evicted", "unused", "lifetimes"};
    cm_table *t;
    cm_status st = table_new(7, cols, &t, err);
    series_buf b[NOUT];
    memset(b, 0, sizeof b);
    for (size_t o = 0; o < NOUT; o++)
        snprintf(b[o].label, sizeof b[o].label, "%s", outcome_names[o]);
    char xlabel[200];
    size_t xl = (size_t)snprintf(xlabel, sizeof xlabel, "TC protocol (index:");
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
        k++;
        if (xl < sizeof xlabel)
            xl += (size_t)snprintf(xlabel + xl, sizeof xlabel - xl, " %zu %s",
                                   k, protocols[p]);
        rowbuf rb = {.n = 0};
        rb_str(&rb, protocols[p]);
        rb_num(&rb, (double)k);
        for (size_t o = 0; o < NOUT; o++) {
            double f = total > 0 ? cnt[o] / total : NAN;
            rb_num(&rb, f);
            sb_add(&b[o], (double)k, f);
        }
        rb_num(&rb, total);
        st = cm_table_append(t, rb.cell, err);
    }
    if (xl < sizeof xlabel) snprintf(xlabel + xl, sizeof xlabel - xl, ")");
    st = write_free(c, "coh/tc_outcomes", t, st, err);
    if (!st)
        st = render(c, "coh/tc_outcomes",
                    "Lifetime outcomes of TC protocols, all workloads pooled",
                    xlabel, "fraction of lifetimes (ratio)", 0, 0,
                    CM_PLOT_LINES_POINTS, b, NOUT, err);
    return st;
}

static cm_status comparison(coh_ctx *c, cm_err *err)
{
    cm_status st = CM_OK;
    for (size_t w = 0; !st && w < NWL; w++)
        for (size_t p = 0; !st && p < NPROTO; p++)
            if (c->proto[p]) st = get_run(c, w, p, &c->base, &c->cmp[w][p], err);
    if (!st) st = write_compare(c, err);
    if (!st)
        st = per_workload_figure(c, "coh/speed",
                                 "Speed against NO-COH per workload",
                                 "speed (IPC / IPC of NO-COH, ratio)", 0, err);
    if (!st)
        st = per_workload_figure(c, "coh/traffic",
                                 "Interconnect traffic per instruction against NO-COH",
                                 "traffic (flits per instruction / NO-COH's, ratio)",
                                 1, err);
    if (!st) st = traffic_by_class(c, err);
    if (!st) st = tc_outcomes(c, err);
    return st;
}

/* ---- 2. sweeps ------------------------------------------------------------ */

/* lifetime_sweep: best[0] TCS, best[1] TCW-FIXED (the lifetime with the
 * highest geomean speed vs NO-COH over the sweep workloads). */
static cm_status lifetime_sweep(coh_ctx *c, double best[2], cm_err *err)
{
    static const char *const cols[] = {
        "protocol", "workload", "lifetime", "ipc", "speed_vs_nocoh",
        "flits_vs_nocoh", "l1.miss_ratio", "l2.store_stall_cycles",
        "fence.wait_cycles", "tc.lifetime_mean", "finished", "error"};
    static const size_t prot[2] = {P_TCS, P_TCWF};
    cm_table *t;
    cm_status st = table_new(sizeof cols / sizeof *cols, cols, &t, err);
    series_buf b[2 * (NSWEEP_WL + 1)];
    memset(b, 0, sizeof b);
    for (size_t i = 0; !st && i < 2; i++) {
        double best_speed = -1;
        best[i] = NAN;
        size_t bi = i * (NSWEEP_WL + 1);
        snprintf(b[bi].label, sizeof b[bi].label, "%s geomean",
                 protocols[prot[i]]);
        for (size_t j = 0; j < NSWEEP_WL; j++)
            snprintf(b[bi + 1 + j].label, sizeof b[bi].label, "%s %s",
                     protocols[prot[i]], workloads[sweep_wl[j]]);
        for (size_t l = 0; !st && l < NLIFE; l++) {
            cm_params p = c->base;
            if (prot[i] == P_TCS) p.tc_lifetime_strong = lifetimes[l];
            else p.tc_lifetime_weak = lifetimes[l];
            double x = lifetimes[l] > 0 ? lifetimes[l] : NAN; /* log axis */
            gmean g = {0, 0};
            for (size_t j = 0; !st && j < NSWEEP_WL; j++) {
                size_t w = sweep_wl[j];
                const coh_run *r;
                st = get_run(c, w, prot[i], &p, &r, err);
                if (st) break;
                double sp = ratio(r->ipc, ipc_of(c, w, P_NOCOH));
                gm_add(&g, sp);
                sb_add(&b[bi + 1 + j], x, sp);
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
            double gv = g.n == NSWEEP_WL ? gm_value(&g) : NAN;
            if (isfinite(gv) && gv > best_speed) {
                best_speed = gv;
                best[i] = lifetimes[l];
            }
            sb_add(&b[bi], x, gv);
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
    if (!st)
        st = render(c, "coh/lifetime_sweep",
                    "Fixed lifetimes: TCS and TCW-FIXED (lifetime 0 in the "
                    "CSV only)",
                    "fixed lifetime (cycles, log)",
                    "speed (IPC / IPC of NO-COH, ratio)", 1, 0,
                    CM_PLOT_LINES_POINTS, b, 2 * (NSWEEP_WL + 1), err);
    return st;
}

/* dir_sweep: *spread = largest |geomean speed / speed at the machine's
 * directory - 1|; *recall_change = pooled recalls per instruction of the
 * largest directory over the smallest, minus 1. */
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
    for (size_t y = 0; y < NWAYS; y++) {
        snprintf(bs[y].label, sizeof bs[y].label, "%.0f ways", dir_wayss[y]);
        snprintf(br[y].label, sizeof br[y].label, "%.0f ways", dir_wayss[y]);
    }
    for (size_t y = 0; !st && y < NWAYS; y++)
        for (size_t x = 0; !st && x < NRATIO; x++) {
            cm_params p = c->base;
            p.dir_ratio = dir_ratios[x];
            p.dir_ways = dir_wayss[y];
            gmean g = {0, 0};
            double rec = 0, inst = 0;
            size_t ok = 0;
            for (size_t j = 0; !st && j < NSWEEP_WL; j++) {
                size_t w = sweep_wl[j];
                const coh_run *r;
                st = get_run(c, w, P_GPUVINI, &p, &r, err);
                if (st) break;
                double def = ipc_of(c, w, P_GPUVINI);
                gm_add(&g, ratio(r->ipc, def));
                if (r->ok) {
                    ok++;
                    rec += r->recalls;
                    inst += r->instructions;
                }
                rowbuf rb = {.n = 0};
                rb_str(&rb, workloads[w]);
                rb_num(&rb, dir_ratios[x]);
                rb_num(&rb, dir_wayss[y]);
                rb_num(&rb, r->ipc);
                rb_num(&rb, ratio(r->ipc, ipc_of(c, w, P_NOCOH)));
                rb_num(&rb, ratio(r->ipc, def));
                rb_num(&rb, r->flits);
                rb_num(&rb, ratio(fpk(r), flits_of(c, w, P_NOCOH)));
                rb_num(&rb, r->recalls);
                rb_num(&rb, ratio(1000 * r->recalls, r->instructions));
                rb_num(&rb, r->invalidations);
                rb_num(&rb, r->finished);
                rb_ptr(&rb, r->error);
                st = cm_table_append(t, rb.cell, err);
            }
            double gv = g.n == NSWEEP_WL ? gm_value(&g) : NAN;
            double rpk = ok == NSWEEP_WL ? ratio(1000 * rec, inst) : NAN;
            if (isfinite(gv) && fabs(gv - 1) > *spread) *spread = fabs(gv - 1);
            if (!isfinite(gv)) *spread = NAN;
            if (x == 0 && y == 0) rpk_small = rpk;
            if (x == NRATIO - 1 && y == NWAYS - 1) rpk_large = rpk;
            sb_add(&bs[y], dir_ratios[x], gv);
            sb_add(&br[y], dir_ratios[x], rpk);
            rowbuf rb = {.n = 0};
            rb_str(&rb, "geomean");
            rb_num(&rb, dir_ratios[x]);
            rb_num(&rb, dir_wayss[y]);
            rb_nans(&rb, 2);
            rb_num(&rb, gv);
            rb_nans(&rb, 3);
            rb_num(&rb, rpk); /* pooled */
            rb_nans(&rb, 2);
            st = append_ok(t, &rb, st, err);
        }
    *recall_change = rpk_small > 0 ? rpk_large / rpk_small - 1 : NAN;
    st = write_free(c, "coh/dir_sweep", t, st, err);
    if (!st)
        st = render(c, "coh/dir_sweep_speed",
                    "GPU-VIni directory size: speed (geomean of the sweep "
                    "workloads)",
                    "directory entries R (x total L1 lines, log)",
                    "speed (IPC / IPC at the default directory, ratio)", 1, 0,
                    CM_PLOT_LINES_POINTS, bs, NWAYS, err);
    if (!st)
        st = render(c, "coh/dir_sweep_recalls",
                    "GPU-VIni directory size: recalls (sweep workloads "
                    "pooled)",
                    "directory entries R (x total L1 lines, log)",
                    "recalls per 1000 warp instructions", 1, 0,
                    CM_PLOT_LINES_POINTS, br, NWAYS, err);
    return st;
}

static double *pred_field(cm_params *p, size_t axis)
{
    return axis == 0 ? &p->tc_t_hit : axis == 1 ? &p->tc_t_evict
                                                : &p->tc_t_write;
}

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
    for (size_t a = 0; !st && a < NPRED; a++) {
        snprintf(b[a].label, sizeof b[a].label, "%s", predictor_axes[a].name);
        for (size_t v = 0; !st && v < NPRED_VALUES; v++) {
            cm_params p = c->base;
            *pred_field(&p, a) = predictor_axes[a].values[v];
            gmean g = {0, 0};
            for (size_t j = 0; !st && j < NSWEEP_WL; j++) {
                size_t w = sweep_wl[j];
                const coh_run *r;
                st = get_run(c, w, P_TCW, &p, &r, err);
                if (st) break;
                double def = ipc_of(c, w, P_TCW);
                gm_add(&g, ratio(r->ipc, def));
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
            double gv = g.n == NSWEEP_WL ? gm_value(&g) : NAN;
            sb_add(&b[a], predictor_axes[a].values[v], gv);
            rowbuf rb = {.n = 0};
            rb_str(&rb, "geomean");
            rb_str(&rb, predictor_axes[a].name);
            rb_num(&rb, p.tc_t_hit);
            rb_num(&rb, p.tc_t_evict);
            rb_num(&rb, p.tc_t_write);
            rb_nans(&rb, 2);
            rb_num(&rb, gv);
            rb_nans(&rb, 4);
            st = append_ok(t, &rb, st, err);
        }
    }
    st = write_free(c, "coh/predictor_sweep", t, st, err);
    if (!st)
        st = render(c, "coh/predictor_sweep",
                    "TC-Weak predictor constants, one at a time",
                    "constant (cycles, log)",
                    "speed (IPC / IPC at the default constants, ratio)", 1, 0,
                    CM_PLOT_LINES_POINTS, b, NPRED, err);
    return st;
}

/* ---- 3. seed 000 against ours ---------------------------------------------- */

typedef struct claim {
    const char *text;
    double seed, ours;
    int holds; /* 1, 0, or -1: not computable */
    const char *averaging; /* always in the note */
    const char *reason;    /* added when the ordering or magnitude differs */
} claim;

/* Geomean over workloads [lo, hi) of metric(a) / metric(b), minus 1. */
static double rel_change(const coh_ctx *c, size_t lo, size_t hi, size_t a,
                         size_t b, int traffic)
{
    gmean g = {0, 0};
    for (size_t w = lo; w < hi; w++) {
        double x = traffic ? ratio(flits_of(c, w, a), flits_of(c, w, b))
                           : ratio(ipc_of(c, w, a), ipc_of(c, w, b));
        if (!isfinite(x)) return NAN; /* a missing protocol or failed run */
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
    char sweep_names[64];
    snprintf(sweep_names, sizeof sweep_names, "%s %s %s",
             workloads[sweep_wl[0]], workloads[sweep_wl[1]],
             workloads[sweep_wl[2]]);
    char life_avg[256], dir_avg[256];
    snprintf(life_avg, sizeof life_avg,
             "lifetime with the highest geomean speed vs NO-COH over %s "
             "(sweep 0-50000); seed: best harmonic mean over all its "
             "applications", sweep_names);
    snprintf(dir_avg, sizeof dir_avg,
             "largest |geomean speed change| over R 1-16 x W 8-32 against "
             "R=%g W=%g, over %s; holds if at most 5%%; seed: no visible "
             "impact (Fig. 6.10a)", c->base.dir_ratio, c->base.dir_ways,
             sweep_names);
    char rec_avg[256];
    snprintf(rec_avg, sizeof rec_avg,
             "recalls per 1000 instructions pooled over %s; seed: a larger "
             "directory requires fewer recalls (Fig. 6.10b; no number)",
             sweep_names);
    claim cl[] = {
        {"traffic MESI vs NO-COH, all workloads (relative change)", 0.75,
         rel_change(c, 0, NWL, P_MESI, P_NOCOH, 1), -1,
         "geomean over the 12 workloads of flits-per-instruction ratios; seed: mean over "
         "all applications",
         "MESI's write-allocate refills scale with the profiles' assumed "
         "write fractions and store locality (synthetic profiles), and "
         "runs cover only the first cycles"},
        {"traffic GPU-VI vs NO-COH, no-coherence-needed set (relative "
         "change)", 0.31, rel_change(c, NINTER, NWL, P_GPUVI, P_NOCOH, 1), -1,
         "geomean over hsp kmn lps ndl rg sr of flits-per-instruction ratios; seed: mean",
         "recall and invalidation volume depends on the synthetic profiles' "
         "footprints and sharing (assumed values) and on how far the short "
         "runs get into thrashing the L2-inclusive directory"},
        {"traffic TCW vs GPU-VI, no-coherence-needed set (relative change)",
         -0.23, rel_change(c, NINTER, NWL, P_TCW, P_GPUVI, 1), -1,
         "geomean over hsp kmn lps ndl rg sr of flits-per-instruction ratios; seed: mean",
         "TCW saves only the INV/RCL/INVACK traffic GPU-VI spends; where our "
         "profiles cause few recalls there is little to save, and expired "
         "lifetimes add GETS/DATA traffic"},
        {"traffic TCW vs TCS-FIXED, all workloads (relative change)", -0.26,
         rel_change(c, 0, NWL, P_TCW, P_TCS, 1), -1,
         "geomean over the 12 workloads of flits-per-instruction ratios; seed: mean",
         "lifetimes are relative to our 340-cycle L2 round trip; TCS's fixed "
         "lifetime and TCW's predictor land at different hit rates on our "
         "synthetic reuse distances"},
        {"speed TCW vs TCS-FIXED, all workloads (relative change)", 0.28,
         rel_change(c, 0, NWL, P_TCW, P_TCS, 0), -1,
         "geomean over the 12 workloads of IPC ratios; seed: ratio of "
         "harmonic means",
         "TCS's store stalls and TCW's fence waits depend on the profiles' "
         "assumed write and fence rates; lifetimes are relative to our "
         "340-cycle L2 round trip; runs cover only the first cycles"},
        {"speed TCW-FIXED vs TCS-FIXED, all workloads (relative change)",
         0.15, rel_change(c, 0, NWL, P_TCWF, P_TCS, 0), -1,
         "geomean over the 12 workloads of IPC ratios; seed: ratio of "
         "harmonic means",
         "as for TCW vs TCS-FIXED: stalls depend on assumed write and fence "
         "rates, lifetimes on our 340-cycle L2 round trip"},
        {"best fixed lifetime TCS (cycles)", 400, best[0], -1, life_avg,
         "the optimum scales with our 340-cycle L2 round trip and the "
         "synthetic reuse distances, and is taken over 3 workloads, not all "
         "12"},
        {"best fixed lifetime TCW-FIXED (cycles)", 1600, best[1], -1,
         life_avg,
         "the optimum scales with our 340-cycle L2 round trip and the "
         "synthetic reuse distances, and is taken over 3 workloads, not all "
         "12; windows of ~1e5 cycles make very long lifetimes look like "
         "infinite ones"},
        {"directory size: largest speed change (relative)", 0, spread, -1,
         dir_avg,
         "a recalled line is missed again in the L1 and the recall waits "
         "for INVACKs at the L2 bank; our short windows with few warps per "
         "line may hide less of that latency than the seed's full runs"},
        {"directory R=16 W=32 vs R=1 W=8: recalls per instruction "
         "(relative change)", NAN, recall_change, -1, rec_avg,
         "recalls of the largest directory are not fewer: our short runs "
         "may not fill even the smallest directory"},
    };
    size_t ncl = sizeof cl / sizeof *cl;
    static const char *const cols[] = {"claim", "seed_value", "our_value",
                                       "ordering_holds", "ratio_to_seed",
                                       "note"};
    cm_table *t;
    cm_status st = table_new(6, cols, &t, err);
    if (!st)
        st = cm_study_say(c->s, err,
                          "- Seed 000's statements against ours "
                          "(coh/seed_compare.csv; geomeans over workloads "
                          "where the seed averages):");
    for (size_t i = 0; !st && i < ncl; i++) {
        claim *k = &cl[i];
        double r = NAN;
        if (i <= 5) { /* signed relative changes */
            k->holds = same_sign(k->seed, k->ours);
            r = ratio(k->ours, k->seed);
            if (k->seed < 0) r = k->ours / k->seed;
        } else if (i <= 7) { /* best lifetimes */
            k->holds = isfinite(k->ours) ? k->ours == k->seed : -1;
            r = ratio(k->ours, k->seed);
        } else if (i == 8) {
            k->holds = isfinite(k->ours) ? k->ours <= 0.05 : -1;
        } else {
            k->holds = isfinite(k->ours) ? k->ours < 0 : -1;
        }
        int differs = k->holds == 0 ||
                      (isfinite(r) && (fabs(r) > 2 || fabs(r) < 0.5));
        char note[1024];
        const char *missing = "";
        if (!isfinite(k->ours))
            missing = i == 0 ? "; MESI not available in the coherence "
                               "simulator yet"
                             : "; not computable (a run failed)";
        snprintf(note, sizeof note, "%s%s%s%s", k->averaging, missing,
                 differs ? "; differs: " : "", differs ? k->reason : "");
        char holds[8];
        snprintf(holds, sizeof holds, "%s",
                 k->holds < 0 ? "nan" : k->holds ? "1" : "0");
        rowbuf rb = {.n = 0};
        rb_ptr(&rb, k->text);
        rb_num(&rb, k->seed);
        rb_num(&rb, k->ours);
        rb_str(&rb, holds);
        rb_num(&rb, r);
        rb_ptr(&rb, note);
        st = cm_table_append(t, rb.cell, err);
        if (st) break;
        char seed_s[32], ours_s[48];
        if (i <= 5 || i >= 8) {
            if (isfinite(k->seed)) snprintf(seed_s, sizeof seed_s, "%+.0f%%",
                                            100 * k->seed);
            else snprintf(seed_s, sizeof seed_s, "fewer");
            if (i == 8 && isfinite(k->seed))
                snprintf(seed_s, sizeof seed_s, "~0%%");
            snprintf(ours_s, sizeof ours_s, "%+.1f%%", 100 * k->ours);
        } else {
            snprintf(seed_s, sizeof seed_s, "%.0f", k->seed);
            snprintf(ours_s, sizeof ours_s, "%.0f", k->ours);
        }
        if (!isfinite(k->ours)) snprintf(ours_s, sizeof ours_s, "n/a");
        st = cm_study_say(c->s, err, "  %s: seed %s, ours %s (%s)", k->text,
                          seed_s, ours_s,
                          k->holds < 0 ? "not computed"
                          : k->holds   ? (differs ? "ordering holds, "
                                                    "magnitude differs >2x"
                                                  : "holds")
                                       : "ordering differs");
    }
    st = write_free(c, "coh/seed_compare", t, st, err);
    return st;
}

/* ---- the section -------------------------------------------------------- */

static cm_status say_overview(coh_ctx *c, cm_err *err)
{
    char line[1024];
    size_t n = 0;
    for (size_t p = 0; p < NPROTO; p++)
        if (c->proto[p] && n < sizeof line)
            n += (size_t)snprintf(line + n, sizeof line - n, " %s",
                                  protocols[p]);
    cm_status st = cm_study_say(
        c->s, err,
        "\nCoherence protocols on the coherence simulator (coh/): the 12 "
        "seed-000 workloads (bh cc cl dlb\nstn vpr need coherence; hsp kmn "
        "lps ndl rg sr do not), the first %.0f cycles of each run\n(speed = "
        "IPC over them, traffic = flits per instruction), under\n %s%s.",
        c->cycles, line,
        c->proto[P_MESI] ? "" : " (MESI is not in the simulator yet)");
    for (int traffic = 0; !st && traffic < 2; traffic++) {
        n = 0;
        for (size_t p = 0; p < NPROTO; p++) {
            if (!c->proto[p] || p == P_NOCOH || n >= sizeof line) continue;
            double v = rel_change(c, 0, NWL, p, P_NOCOH, traffic) + 1;
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
    return NWL * c->nproto_present + 2 * NLIFE * NSWEEP_WL +
           NRATIO * NWAYS * NSWEEP_WL + NPRED * NPRED_VALUES * NSWEEP_WL;
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
    cm_status st = CM_OK;
    for (size_t p = 0; !st && p < NPROTO; p++) {
        c->proto[p] = cm_coh_protocol_find(protocols[p]);
        if (c->proto[p]) c->nproto_present++;
        else if (p != P_MESI) /* MESI may not be there yet */
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
    if (!st) st = lifetime_sweep(c, best, err);
    if (!st) st = dir_sweep(c, &spread, &recall_change, err);
    if (!st) st = predictor_sweep(c, err);
    if (!st)
        st = cm_study_say(
            s, err,
            "- Sweeps on cc hsp ndl: fixed lifetimes 0-50000 cycles "
            "(lifetime_sweep.csv), GPU-VIni\n  directory R 1-16 x W 8-32 "
            "(dir_sweep.csv), TC-Weak predictor constants "
            "(predictor_sweep.csv).");
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
