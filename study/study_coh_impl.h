/* study_coh_impl.h - what the files of the study's coherence section
 * share (study_coh.c: the section, its runs and the protocol comparison;
 * study_coh_sweep.c: the lifetime, directory and predictor sweeps;
 * study_coh_seed.c: our numbers beside seed 000's statements).  What the
 * section does and why is in study_coh.c's header. */
#ifndef COHMOD_STUDY_COH_IMPL_H
#define COHMOD_STUDY_COH_IMPL_H

#include "data/atomic.h"
#include "data/columns.h"
#include "data/workload.h"
#include "sim/gpu.h"
#include "sim/protocol.h"
#include "sim/stats.h"
#include "study/study.h"

/* Cycles per run.  50k rather than 100k costs half as much.  Measured on
 * all twelve workloads (tc2013): every ordering of the seed comparison and
 * both best lifetimes are the same at the two lengths; geomean speeds
 * against NO-COH move by at most 0.03 (TCW: 0.06), geomean traffic by at
 * most 0.05 (GPU-VI, MESI: recall and write-back traffic keeps growing as
 * the directory and L1s fill, so the shorter window understates it a
 * little).  At 25k cycles that understatement halves GPU-VI's extra
 * traffic, so not shorter. */
#define COH_CYCLES 50000

#define NWL CM_STUDY_COH_NWL
extern const char *const coh_workloads[NWL];
#define NINTER 6 /* the first six need coherence */

/* The default workloads: two that need coherence and two that do not,
 * the 2+2 subset whose geomean speed and traffic ratios (every protocol
 * against NO-COH, and the ratios of the seed comparison) came closest to
 * those over all twelve (RMS log difference 1.5%, 100k-cycle runs on
 * tc2013).  A representative sample, not one picked to match the seed. */
#define DEFAULT_WORKLOADS "bh,dlb,hsp,sr"

enum { P_NOL1, P_NOCOH, P_MESI, P_GPUVI, P_GPUVINI, P_TCSUO, P_TCS,
       P_TCSOO, P_TCW, P_TCWF, NPROTO };
extern const char *const coh_protocols[NPROTO];

/* Fixed lifetimes: 0 (no reuse) and roughly factors of four up to the
 * predictor's upper bound. */
#define NLIFE 6
extern const double coh_lifetimes[NLIFE];
#define NRATIO 4
extern const double coh_dir_ratios[NRATIO];
#define NWAYS 3
extern const double coh_dir_ways[NWAYS];
#define NPRED 3
#define NPRED_VALUES 3
typedef struct coh_axis {
    const char *name;
    double values[NPRED_VALUES];
} coh_axis;
extern const coh_axis coh_predictor_axes[NPRED];

enum { OUT_HIT, OUT_EXPIRED, OUT_EVICTED, OUT_UNUSED, NOUT };
extern const char *const coh_outcome_names[NOUT];

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

typedef struct gmean {
    double logsum;
    size_t n;
} gmean;

/* A row of cells for cm_table_append. */
#define ROW_MAX 64
typedef struct rowbuf {
    char text[ROW_MAX][48];
    const char *cell[ROW_MAX];
    size_t n;
} rowbuf;

#define MAX_SERIES_PTS 64

typedef struct series_buf {
    char label[96];
    double x[MAX_SERIES_PTS], y[MAX_SERIES_PTS];
    size_t n, panel;
    int reference;
} series_buf;

/* One figure's shape beyond its series: categories, panels. */
typedef struct fig_shape {
    const char *const *categories;
    size_t ncategories;
    const cm_plot_panel *panels;
    size_t npanels;
    const char *legend_title;
} fig_shape;

extern const char *const coh_protocol_names[NPROTO];

/* study_coh.c: helpers and runs */
void coh_gm_add(gmean *g, double x);
double coh_gm_value(const gmean *g);
double coh_ratio(double a, double b);
void coh_rb_str(rowbuf *r, const char *s);
void coh_rb_ptr(rowbuf *r, const char *s);
void coh_rb_num(rowbuf *r, double v);
void coh_rb_nans(rowbuf *r, size_t n);
cm_status coh_append_ok(cm_table *t, rowbuf *r, cm_status st, cm_err *err);
cm_status coh_table_new(size_t n, const char *const *names, cm_table **t,
                        cm_err *err);
cm_status coh_write_free(coh_ctx *c, const char *name, cm_table *t,
                         cm_status st, cm_err *err);
cm_status coh_get_run(coh_ctx *c, size_t wl, size_t pr, const cm_params *p,
                      const coh_run **out, cm_err *err);
double coh_ipc_of(const coh_ctx *c, size_t wl, size_t pr);
double coh_fpk(const coh_run *r);
double coh_flits_of(const coh_ctx *c, size_t wl, size_t pr);
void coh_sb_add(series_buf *b, double x, double y);
cm_status coh_render(coh_ctx *c, const char *name, const char *title,
                     const char *xlabel, const char *ylabel, int logx,
                     cm_plot_style style, const fig_shape *shape,
                     series_buf *b, size_t nb, cm_err *err);
const char *coh_axis_of(const char *column, char *buf, size_t len);

/* study_coh_sweep.c */
cm_status coh_lifetime_sweep(coh_ctx *c, double best[2], cm_err *err);
cm_status coh_dir_sweep(coh_ctx *c, double *spread, double *recall_change,
                        cm_err *err);
cm_status coh_predictor_sweep(coh_ctx *c, cm_err *err);
void coh_choose_sweep_workloads(coh_ctx *c);

/* study_coh_seed.c */
double coh_rel_change(const coh_ctx *c, int intra, size_t a, size_t b,
                      int traffic);
cm_status coh_seed_compare(coh_ctx *c, const double best[2], double spread,
                           double recall_change, cm_err *err);

#endif
