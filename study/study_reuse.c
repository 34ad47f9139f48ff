/* study_reuse.c - the reuse-distance section of `cohmod study`.
 *
 * On a real trace (a valgrind lackey trace of a real program, shipped in
 * data/traces) it shows what the reuse engine buys a designer:
 *  - the exact LRU miss-ratio curve beside SHARDS and StatStack estimates,
 *    with their mean absolute errors and effective sampling rates;
 *  - set-associative predictions against exact simulation of 4-, 8- and
 *    16-way caches of 4 KB to 128 KB (relative error of the miss count):
 *    the one from set-local stack distances collected in the exact pass
 *    (setlocal.c; exact for LRU, so its error is a check), the statistical
 *    occupancy model (setassoc.c: the stack-distance histogram and how
 *    the reuse windows' lines share sets, spatial.c, from the same pass) and
 *    the binomial one from the histogram alone, whose error is the cost of
 *    assuming random placement;
 *  - the parametric profile (three numbers) of the trace's MRC;
 *  - the warp-interleaving model: the L1 hit rate of W warps that each run
 *    the trace's stream on their own data, predicted from one warp's
 *    profile and checked against exact simulation of the round-robin
 *    interleaved stream. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/mrc.h"
#include "models/mrc_table.h"
#include "models/reuse_stream.h"
#include "models/setlocal.h"
#include "models/spatial.h"
#include "study/study.h"
#include "data/columns.h"
#include "sim/cache_trace.h"

#define NMETHODS 4
static const char *const method_specs[NMETHODS] = {
    "none", "shards:0.01", "shards:0.1", "statstack:0.01"};
/* How the figure names them (the CSV keeps the specs, which --sample
 * takes). */
static const char *const method_labels[NMETHODS] = {
    "exact", "SHARDS, 1% of lines", "SHARDS, 10% of lines",
    "StatStack, 1% of accesses"};

/* Stream of the interleaving check: the trace's first accesses, as one
 * warp's line addresses. */
#define WARP_STREAM_MAX 200000

/* Geometries of the set-associative check. */
static const double sa_sizes[] = {4096, 8192, 16384, 32768, 65536, 131072};
static const double sa_ways[] = {4, 8, 16};
#define SA_NSIZES (sizeof sa_sizes / sizeof sa_sizes[0])
#define SA_NWAYS (sizeof sa_ways / sizeof sa_ways[0])

typedef struct reuse_section {
    cm_study *s;
    const cm_params *p;
    cm_setlocal *sl; /* set-local distances of every geometry checked */
    cm_spatial *sp;  /* occupancy statistics of the same geometries */
    cm_reuse_result res[NMETHODS];
    cm_mrc_method methods[NMETHODS];
    int nmethods;
} reuse_section;

static cm_status measure(reuse_section *rs, cm_err *err)
{
    uint64_t sets[SA_NSIZES * SA_NWAYS], line = (uint64_t)rs->p->l1_line;
    size_t nsets = 0;
    for (size_t w = 0; w < SA_NWAYS; w++)
        for (size_t z = 0; z < SA_NSIZES; z++) {
            uint64_t n = (uint64_t)sa_sizes[z] / line / (uint64_t)sa_ways[w];
            if (n) sets[nsets++] = n;
        }
    if (nsets) {
        cm_status st = cm_setlocal_new(sets, nsets, (uint64_t)sa_ways[2],
                                       &rs->sl, err);
        if (!st)
            st = cm_spatial_new(sets, nsets,
                                (uint64_t)rs->p->reuse_spatial_depth,
                                rs->p->reuse_spatial_budget,
                                (uint64_t)rs->p->sim_seed, &rs->sp, err);
        if (st) return st;
    }
    for (int i = 0; i < NMETHODS; i++) {
        cm_reuse_request req = {0};
        req.trace = rs->s->trace;
        req.line_bytes = (uint32_t)rs->p->l1_line;
        req.trace_opts.line_bytes = req.line_bytes;
        req.op_mask = (1u << CM_OP_COUNT) - 1;
        req.exact_bins = (uint64_t)rs->p->reuse_exact_bins;
        req.progress = rs->s->progress;
        req.progress_arg = rs->s->progress_arg;
        if (i == 0) {
            req.setlocal = rs->sl;
            req.spatial = rs->sp;
        }
        cm_status st = cm_sample_spec_parse(method_specs[i], &req.sample, err);
        req.sample.seed = (uint64_t)rs->p->sim_seed;
        if (!st) st = cm_reuse_from_trace(&req, &rs->res[i], err);
        if (st) return st;
        if (rs->res[i].nstreams == 0)
            return cm_err_set(err, CM_EINPUT, "%s: no data access",
                              rs->s->trace);
        rs->nmethods++;
        rs->methods[i].name = i ? method_specs[i] : "exact";
        rs->methods[i].hist = &rs->res[i].streams[0].hist;
        rs->methods[i].resolved_lines = cm_sample_resolved_lines(
            req.sample.kind, rs->methods[i].hist->rate);
    }
    return CM_OK;
}

/* Table t with each method's name in column `col` given as its label. */
static cm_status with_method_labels(const reuse_section *rs,
                                    const cm_table *t, long col,
                                    cm_table **out, cm_err *err)
{
    if (col < 0) return cm_err_set(err, CM_EINTERNAL, "no method column");
    size_t nc = cm_table_ncols(t);
    const char **names = malloc(2 * nc * sizeof *names);
    if (!names) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    const char **cells = names + nc;
    for (size_t c = 0; c < nc; c++) names[c] = cm_table_colname(t, c);
    cm_table *l = cm_table_new(nc, names);
    cm_status st = l ? CM_OK : cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t r = 0; !st && r < cm_table_nrows(t); r++) {
        for (size_t c = 0; c < nc; c++) cells[c] = cm_table_cell(t, r, c);
        for (int i = 0; i < rs->nmethods; i++)
            if (!strcmp(cells[col], rs->methods[i].name))
                cells[col] = method_labels[i];
        st = cm_table_append(l, cells, err);
    }
    free(names);
    if (st) {
        cm_table_free(l);
        return st;
    }
    *out = l;
    return CM_OK;
}

static cm_status section_mrc(reuse_section *rs, cm_err *err)
{
    cm_table *t = NULL, *fig = NULL;
    cm_status st = cm_mrc_curve_table(rs->methods, NMETHODS,
                                      (uint64_t)rs->p->l1_line, 8, &t, err);
    if (!st) st = cm_study_write_table(rs->s, "reuse_mrc", t, err);
    if (!st)
        st = with_method_labels(rs, t, cm_table_col_find(t, "method"), &fig,
                                err);
    if (!st)
        st = cm_study_figure(
            rs->s, "reuse_mrc", fig,
            &(cm_plot_table_opts){
                .x = "capacity_bytes",
                .y = (const char *[]){"miss_ratio"},
                .ny = 1,
                .by = "method",
                .logx = 1,
                .style = CM_PLOT_LINES_POINTS,
                .title = "LRU miss-ratio curve: exact and sampled"},
            err);
    cm_table_free(fig);
    cm_table_free(t);
    double caps[1024], lin[100];
    size_t n = cm_mrc_grid(rs->methods, NMETHODS, 8, caps, 1024);
    const cm_reuse_hist *exact = rs->methods[0].hist;
    cm_mrc_linear_grid(exact, 100, lin);
    if (!st)
        st = cm_study_say(rs->s, err,
                          "\nReuse distances of a real trace (%s: %llu "
                          "accesses, %.0f distinct %.0f B lines; files "
                          "reuse_*.csv and reuse_*.png):",
                          rs->s->trace, (unsigned long long)rs->res[0].accesses,
                          exact->cold, rs->p->l1_line);
    for (int i = 1; i < NMETHODS && !st; i++) {
        char res[96] = "";
        if (rs->methods[i].resolved_lines > 0)
            snprintf(res, sizeof res, " (it resolves %g lines and more: "
                     "reuse_mrc leaves it out below)",
                     rs->methods[i].resolved_lines);
        st = cm_study_say(rs->s, err,
                          "- %s (effective rate %.4g) against exact: mean "
                          "absolute MRC error %.4f over 100 sizes up to the "
                          "footprint (SHARDS's measure), %.4f over log-"
                          "spaced sizes from one line%s.",
                          rs->methods[i].name, rs->methods[i].hist->rate,
                          cm_mrc_mae(exact, rs->methods[i].hist, lin, 100),
                          cm_mrc_mae(exact, rs->methods[i].hist, caps, n),
                          res);
    }
    return st;
}

/* Exact simulation against the set-associative predictions. */
static cm_status section_setassoc(reuse_section *rs, cm_err *err)
{
    static const char *const header[] = {
        "size",           "sets",          "ways",
        "capacity_lines", "miss_ratio_fa", "miss_ratio_setlocal",
        "miss_ratio_setassoc", "miss_ratio_binomial", "miss_ratio_sim",
        "rel_error_setlocal", "rel_error", "rel_error_binomial"};
    cm_table *t = cm_table_new(12, header);
    if (!t) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st = CM_OK;
    double worst_sl[SA_NWAYS] = {0}, worst[SA_NWAYS] = {0},
           worst_bi[SA_NWAYS] = {0};
    /* the figure's points: [ways][size] */
    double fx[SA_NWAYS][SA_NSIZES], fsim[SA_NWAYS][SA_NSIZES],
        fsa[SA_NWAYS][SA_NSIZES], fbi[SA_NWAYS][SA_NSIZES];
    size_t fn[SA_NWAYS] = {0};
    uint64_t line = (uint64_t)rs->p->l1_line;
    for (size_t w = 0; w < SA_NWAYS && !st; w++) {
        for (size_t z = 0; z < SA_NSIZES && !st; z++) {
            uint64_t ways = (uint64_t)sa_ways[w];
            uint64_t sets = (uint64_t)sa_sizes[z] / line / ways;
            if (sets == 0) continue;
            double lines = (double)(sets * ways), fa, sl, sa, bi;
            cm_mrc_fa(rs->methods[0].hist, &lines, 1, &fa);
            st = cm_setlocal_miss_ratio(rs->sl, sets, ways, &sl, err);
            if (!st)
                st = cm_mrc_setassoc_spatial(rs->methods[0].hist, rs->sp,
                                             sets, ways, &sa, err);
            if (!st)
                st = cm_mrc_setassoc(rs->methods[0].hist, sets, ways, &bi,
                                     err);
            cm_cache_config cfg = {(uint64_t)sa_sizes[z], ways, line,
                                   CM_CACHE_LRU, 1, 1};
            cm_cache_counts counts;
            cm_trace_opts topts = {CM_TRACE_AUTO, (uint32_t)line};
            if (!st)
                st = cm_cache_run_trace(&cfg, rs->s->trace, &topts,
                                        (1u << CM_OP_COUNT) - 1, NULL, NULL,
                                        &counts, err);
            if (st) break;
            /* per line reference, the unit of stack distances */
            double sim = counts.line_refs ? (double)counts.line_misses /
                                                (double)counts.line_refs
                                          : 0;
            double rel_sl = sim > 0 ? (sl - sim) / sim : 0; /* a check */
            double rel = sim > 0 ? (sa - sim) / sim : 0;
            double rel_bi = sim > 0 ? (bi - sim) / sim : 0;
            worst_sl[w] = fmax(worst_sl[w], fabs(rel_sl));
            worst[w] = fmax(worst[w], fabs(rel));
            worst_bi[w] = fmax(worst_bi[w], fabs(rel_bi));
            fx[w][fn[w]] = sa_sizes[z];
            fsim[w][fn[w]] = sim;
            fsa[w][fn[w]] = sa;
            fbi[w][fn[w]++] = bi;
            char c[12][32];
            const double v[] = {sa_sizes[z], (double)sets, sa_ways[w], lines,
                                fa,          sl,           sa,         bi,
                                sim,         rel_sl,       rel,        rel_bi};
            const char *row[12];
            for (int k = 0; k < 12; k++) {
                cm_fmt_double(c[k], v[k]);
                row[k] = c[k];
            }
            st = cm_table_append(t, row, err);
        }
    }
    if (!st) st = cm_study_write_table(rs->s, "reuse_setassoc", t, err);
    /* A panel per associativity: the simulation as markers, each model a
     * line; the same three series, in the same style, in every panel. */
    char miss_axis[128], size_axis[128], titles[SA_NWAYS][64];
    cm_plot_axis_label("miss_ratio", miss_axis, sizeof miss_axis);
    cm_plot_axis_label("size", size_axis, sizeof size_axis);
    cm_plot_series ser[3 * SA_NWAYS];
    cm_plot_panel panels[SA_NWAYS];
    for (size_t w = 0; w < SA_NWAYS; w++) {
        char v[16];
        snprintf(v, sizeof v, "%g", sa_ways[w]);
        snprintf(titles[w], sizeof titles[w], "%s: ", cm_column_label("ways"));
        cm_column_value("ways", v, titles[w] + strlen(titles[w]),
                        sizeof titles[w] - strlen(titles[w]));
        panels[w] = (cm_plot_panel){.title = titles[w]};
        ser[3 * w] = (cm_plot_series){.label = "simulation", .x = fx[w],
                                      .y = fsim[w], .n = fn[w], .panel = w};
        ser[3 * w + 1] = (cm_plot_series){
            .label = cm_column_label("miss_ratio_setassoc"), .x = fx[w],
            .y = fsa[w], .n = fn[w], .line_only = 1, .panel = w};
        ser[3 * w + 2] = (cm_plot_series){
            .label = cm_column_label("miss_ratio_binomial"), .x = fx[w],
            .y = fbi[w], .n = fn[w], .line_only = 1, .panel = w};
    }
    cm_plot_spec spec = {.title = "Set-associative LRU: occupancy and "
                                  "binomial models against simulation",
                         .xlabel = size_axis, .ylabel = miss_axis, .logx = 1,
                         .style = CM_PLOT_POINTS, .series = ser,
                         .nseries = 3 * SA_NWAYS, .panels = panels,
                         .npanels = SA_NWAYS, .share_y = 1};
    if (!st) st = cm_study_render(rs->s, "reuse_setassoc", &spec, err);
    cm_table_free(t);
    if (!st)
        st = cm_study_say(rs->s, err,
                          "- Set-associative LRU against exact simulation "
                          "(4 KB to 128 KB), worst relative miss-ratio error "
                          "at 4/8/16 ways: from set-local stack distances "
                          "%.2f/%.2f/%.2f%% (exact for LRU: a check); "
                          "occupancy model (stack distances and the set "
                          "occupancy of the reuse windows) %.1f/%.1f/%.1f%%; "
                          "binomial model from the stack-distance histogram "
                          "alone %.1f/%.1f/%.1f%%.",
                          100 * worst_sl[0], 100 * worst_sl[1],
                          100 * worst_sl[2], 100 * worst[0], 100 * worst[1],
                          100 * worst[2], 100 * worst_bi[0],
                          100 * worst_bi[1], 100 * worst_bi[2]);
    return st;
}

static cm_status section_fit(reuse_section *rs, cm_err *err)
{
    cm_table *t = NULL;
    cm_status st = cm_reuse_fit_table(&rs->res[0], &t, err);
    if (!st) st = cm_study_write_table(rs->s, "reuse_fit", t, err);
    cm_table_free(t);
    double caps[512];
    const cm_reuse_hist *h = rs->methods[0].hist;
    size_t n = cm_mrc_default_capacities(h, 4, caps, 512);
    cm_mrc_fit fit;
    cm_err ferr = {0};
    if (!st && cm_mrc_fit_profile(h, caps, n, &fit, &ferr) != CM_OK)
        st = cm_study_say(rs->s, err, "- Parametric profile: no fit (%s).",
                          ferr.msg);
    else if (!st) {
        char note[512];
        cm_mrc_fit_note(&fit, note, sizeof note);
        st = cm_study_say(
            rs->s, err,
            "- Parametric profile m(C) = m_inf + (1 - m_inf)(1 + C/c0)^-alpha:"
            " m_inf = %.4f +- %.4f, c0 = %.3g +- %.2g lines, alpha = %.3f +- "
            "%.3f (RMSE %.4f, R^2 %.4f)%s%s.",
            fit.param[0], fit.stderr_[0], fit.param[1], fit.stderr_[1],
            fit.param[2], fit.stderr_[2], fit.rmse, fit.r2,
            note[0] ? "; flagged: " : "", note);
    }
    return st;
}

/* The trace's first accesses as one warp's line addresses. */
static cm_status warp_stream(reuse_section *rs, uint64_t **lines, size_t *n,
                             cm_err *err)
{
    cm_trace_opts topts = {CM_TRACE_AUTO, (uint32_t)rs->p->l1_line};
    cm_trace *t;
    cm_status st = cm_trace_open(rs->s->trace, &topts, &t, err);
    if (st) return st;
    *lines = malloc(WARP_STREAM_MAX * sizeof **lines);
    *n = 0;
    if (!*lines) st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_access a;
    int got = 0;
    while (!st && *n < WARP_STREAM_MAX &&
           (got = cm_trace_next(t, &a, err)) == 1)
        (*lines)[(*n)++] = a.addr / (uint64_t)rs->p->l1_line;
    if (!st && got < 0) st = err->code;
    cm_trace_close(t);
    return st;
}

static cm_status section_interleave(reuse_section *rs, cm_err *err)
{
    static const unsigned warps[] = {1, 2, 4, 8, 16, 32, 48};
    static const char *const header[] = {"warps", "hit_rate_model",
                                         "hit_rate_sim", "abs_error"};
    uint64_t *lines = NULL;
    size_t n = 0;
    cm_warp_profile *prof = NULL;
    cm_status st = warp_stream(rs, &lines, &n, err);
    if (!st) st = cm_warp_profile_new(lines, n, &prof, err);
    cm_table *t = st ? NULL : cm_table_new(4, header);
    if (!st && !t) st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    uint64_t l1_lines = (uint64_t)(rs->p->l1_size / rs->p->l1_line);
    uint64_t ways = (uint64_t)rs->p->l1_ways, sets = l1_lines / ways;
    double worst = 0;
    double fx[sizeof warps / sizeof warps[0]], fm[sizeof fx / sizeof *fx],
        fs[sizeof fx / sizeof *fx];
    size_t fn = 0;
    for (size_t i = 0; !st && i < sizeof warps / sizeof warps[0]; i++) {
        double model;
        st =
            cm_interleave_hit_rate(&prof, 1, warps[i], sets, ways, &model, err);
        cm_cache *c = NULL;
        cm_cache_config cfg = {(uint64_t)rs->p->l1_size,
                               ways,
                               (uint64_t)rs->p->l1_line,
                               CM_CACHE_LRU,
                               1,
                               1};
        if (!st) st = cm_cache_new(&cfg, &c, err);
        if (st) break;
        /* Round robin, one access per warp per turn.  Warp w's data lives
         * at its own offset so footprints are disjoint; the odd line skew
         * keeps the copies of one line from all landing in one set, as
         * neighbouring warps' arrays do not either (the model assumes
         * independent placement). */
        double hits = 0;
        for (size_t k = 0; k < n; k++)
            for (unsigned w = 0; w < warps[i]; w++)
                hits += cm_cache_touch(
                    c, lines[k] + ((uint64_t)w << 40) + (uint64_t)w * 977, 1);
        cm_cache_free(c);
        double sim = hits / ((double)n * warps[i]);
        if (fabs(model - sim) > worst) worst = fabs(model - sim);
        fx[fn] = warps[i];
        fm[fn] = model;
        fs[fn++] = sim;
        char cells[4][32];
        snprintf(cells[0], 32, "%u", warps[i]);
        cm_fmt_double(cells[1], model);
        cm_fmt_double(cells[2], sim);
        cm_fmt_double(cells[3], fabs(model - sim));
        const char *row[] = {cells[0], cells[1], cells[2], cells[3]};
        st = cm_table_append(t, row, err);
    }
    if (!st) st = cm_study_write_table(rs->s, "reuse_interleave", t, err);
    /* one configuration: the model its simulation's colour, a line beside
     * the markers */
    char hit_axis[128], warps_axis[128], entry[128];
    cm_plot_axis_label("hit_rate", hit_axis, sizeof hit_axis);
    cm_plot_axis_label("warps", warps_axis, sizeof warps_axis);
    snprintf(entry, sizeof entry,
             "%.0f KB %.0f-way L1: simulation (markers), model (line)",
             rs->p->l1_size / 1024, rs->p->l1_ways);
    cm_plot_series ser[2] = {
        {.label = entry, .x = fx, .y = fs, .n = fn},
        {.label = entry, .x = fx, .y = fm, .n = fn, .line_only = 1,
         .with_previous = 1}};
    cm_plot_spec spec = {.title = "L1 hit rate of interleaved warps: model "
                                  "against simulation",
                         .xlabel = warps_axis, .ylabel = hit_axis,
                         .logx = 1, .style = CM_PLOT_POINTS, .series = ser,
                         .nseries = 2};
    if (!st) st = cm_study_render(rs->s, "reuse_interleave", &spec, err);
    if (!st)
        st = cm_study_say(rs->s, err,
                          "- Warp interleaving on the %.0f KB %.0f-way L1 "
                          "(each warp the trace's first %zu accesses on its "
                          "own data): worst hit-rate error %.3f over 1 to 48 "
                          "warps.",
                          rs->p->l1_size / 1024, rs->p->l1_ways, n, worst);
    cm_table_free(t);
    cm_warp_profile_free(prof);
    free(lines);
    return st;
}

cm_status cm_study_section_reuse(cm_study *s, cm_err *err)
{
    if (!s->trace)
        return cm_study_say(s, err,
                            "\nReuse distances: no trace given "
                            "(--trace), section skipped.");
    reuse_section rs = {.s = s, .p = s->params};
    cm_status st = measure(&rs, err);
    if (!st) st = section_mrc(&rs, err);
    if (!st) st = section_setassoc(&rs, err);
    if (!st) st = section_fit(&rs, err);
    if (!st) st = section_interleave(&rs, err);
    for (int i = 0; i < rs.nmethods; i++) cm_reuse_result_free(&rs.res[i]);
    cm_setlocal_free(rs.sl);
    cm_spatial_free(rs.sp);
    return st;
}
