/* cmd_mrc.c - `cohmod mrc`: miss-ratio curves of a trace, exact and
 * sampled, and set-associative predictions. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "models/mrc.h"
#include "models/mrc_table.h"
#include "plots/plot.h"

#define MAX_METHODS 8
#define MAX_GEOMETRY 32

static void usage(FILE *f)
{
    fputs("Usage: cohmod mrc TRACE [--format F] [--line B] [--ops LIST]\n"
          "                  [--sample SPEC]... [--exact] [--sets S,... "
          "--ways A,...]\n"
          "                  [--points N] [--out mrc.csv] [--plot mrc.png]\n\n"
          "Fully associative LRU miss ratio against capacity, from the exact "
          "stack-distance\nhistogram and from each --sample method "
          "(shards:R, shards-max:S, statstack:R).\nOutput: method,"
          "capacity_lines,capacity_bytes,miss_ratio,sampling_rate,\n"
          "ci95_lo,ci95_hi,resolved.  The interval is a sampled curve's "
          "sampling error:\nthe delete-a-group jackknife over 20 random "
          "groups of what it sampled (tracked\nlines for SHARDS, samples "
          "for StatStack; models/reuse.h).  SHARDS at rate R\nresolves "
          "capacities of 2/R lines and more (every reuse closer than 1/R "
          "lines\nlooks like distance 0): below, resolved is no and "
          "miss_ratio and the interval\nare empty, and the plot leaves "
          "the curve out.  Where it resolves, the interval\nalso spans "
          "the estimates 1/(2R) lines either side (a sampled distance "
          "stands\nfor d/R +- 1/(2R) lines); it then held the exact curve "
          "at 96.6% of sizes\n(64 B lines) and 97.9% (128 B) over the four "
          "test traces and 20 hash seeds at\nR = 0.01, and at least 93% on "
          "each trace (tests/check_accuracy.c).  It does not\nhold "
          "StatStack's bias (stationarity).  The exact curve's interval is "
          "the point.\nEach sampled curve's mean half-width is printed on "
          "stderr and, with --exact as\nwell, its mean absolute error "
          "against the exact one and how often its interval\nholds it.\n\n"
          "With --sets and --ways the output is instead one row per method "
          "and geometry:\nmethod,sets,ways,line,capacity_lines,"
          "miss_ratio_fa,miss_ratio_setlocal,\nmiss_ratio_setassoc,"
          "miss_ratio_binomial.  miss_ratio_setlocal is the LRU miss\n"
          "ratio of sets x ways from the set-local stack distances (lines "
          "of the\nreference's own set since its line's last use), measured "
          "for each asked set count\nin the same pass over the whole trace "
          "and never sampled, so it is the same on\nevery method's row; it "
          "is exact for LRU with write-allocate, per line reference\n"
          "(models/setlocal.c).  miss_ratio_setassoc is the statistical "
          "prediction from the\nmethod's stack-distance histogram and the "
          "set occupancy of the reuse windows\n(how the lines between two "
          "uses of a line share sets, its own set taken as\nloaded as a "
          "random one of theirs; sampled in the same pass,\n"
          "reuse.spatial_depth and reuse.spatial_budget; models/setassoc.c)."
          "\nmiss_ratio_binomial "
          "places lines in sets at random\n(P(Bin(d, 1/S) >= A)): it "
          "overstates conflict misses on real, contiguous data.\n\n"
          "  --sample SPEC  a sampled method (repeatable, at most 8)\n"
          "  --exact        the exact curve too (the default when no --sample)\n"
          "  --sets LIST    set counts, e.g. 64 or 32,64,128\n"
          "  --ways LIST    associativities, e.g. 4,8,16\n"
          "  --points N     capacities per doubling (default 8)\n"
          "  --plot FIG     draw the curves (.png, .svg or .pdf)\n",
          f);
    cli_print_trace_help(f);
    cli_print_common_help(f);
}

enum {
    OPT_SAMPLE = CLI_OPT_FIRST_FREE,
    OPT_EXACT,
    OPT_SETS,
    OPT_WAYS,
    OPT_POINTS,
    OPT_PLOT
};

typedef struct mrc_opts {
    cli_ctx *ctx;
    cli_trace_opts trace;
    const char *samples[MAX_METHODS];
    int nsamples, exact;
    const char *sets, *ways, *points, *plot;
} mrc_opts;

static int own_option(int opt, const char *arg, void *u)
{
    mrc_opts *o = u;
    int t = cli_trace_opt(o->ctx, &o->trace, opt, arg);
    if (t) return t < 0 ? CM_EINPUT : 0;
    switch (opt) {
    case OPT_SAMPLE:
        if (o->nsamples == MAX_METHODS)
            return cli_usage_error(o->ctx, "at most %d --sample options",
                                   MAX_METHODS);
        o->samples[o->nsamples++] = arg;
        return 0;
    case OPT_EXACT:
        o->exact = 1;
        return 0;
    case OPT_SETS:
        o->sets = arg;
        return 0;
    case OPT_WAYS:
        o->ways = arg;
        return 0;
    case OPT_POINTS:
        o->points = arg;
        return 0;
    case OPT_PLOT:
        o->plot = arg;
        return cli_output_add(o->ctx, arg, 0);
    default:
        return CM_EINPUT;
    }
}

/* "4,8,16" -> values in [1, 2^32]. */
static int parse_list(cli_ctx *ctx, const char *opt, const char *text,
                      uint64_t *v, size_t *n)
{
    *n = 0;
    for (const char *c = text; *c;) {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(c, &end, 10);
        if (end == c || (*end && *end != ',') || errno || x == 0 ||
            x > (1ull << 32) || *c == '-')
            return cli_usage_error(ctx, "--%s '%s': expected positive whole "
                                   "numbers separated by commas", opt, text);
        if (*n == MAX_GEOMETRY)
            return cli_usage_error(ctx, "--%s: at most %d values", opt,
                                   MAX_GEOMETRY);
        v[(*n)++] = x;
        c = *end ? end + 1 : end;
    }
    if (!*n) return cli_usage_error(ctx, "--%s: no value", opt);
    return 0;
}

static int draw(cli_ctx *ctx, const cm_table *curve, const char *path)
{
    const char *ys[] = {"miss_ratio"};
    cm_plot_table_opts po = {0};
    po.x = "capacity_bytes";
    po.y = ys;
    po.ny = 1;
    po.by = "method";
    po.errlo = "ci95_lo"; /* the sampled curves' 95% intervals */
    po.errhi = "ci95_hi";
    po.logx = 1;
    po.title = "LRU miss-ratio curve";
    po.style = CM_PLOT_LINES;
    cm_err err = {0};
    return cm_plot_table(curve, &po, path, &err) ? cli_fail(ctx, &err) : 0;
}

/* Drops the capacities below `from`; returns how many are left. */
static size_t keep_resolved(double *caps, size_t n, double from)
{
    size_t k = 0;
    for (size_t j = 0; j < n; j++)
        if (caps[j] >= from) caps[k++] = caps[j];
    return k;
}

/* On stderr, for each sampled curve over the sizes it resolves: its 95%
 * half-width (jackknife) and, with the exact curve, its mean absolute
 * error and how often its interval holds the exact value, over 100 sizes
 * up to the footprint (the exact one's when there) and the log-spaced
 * grid. */
static void report_errors(const cm_mrc_method *m, size_t n, int have_exact,
                          unsigned points, uint64_t line_bytes)
{
    enum { NLIN = 100 };
    double caps[1024], lin[NLIN], mr[1024], lo[1024], hi[1024], ex[1024];
    for (size_t i = have_exact ? 1 : 0; i < n; i++) {
        double from = m[i].resolved_lines;
        size_t nc = cm_mrc_grid(m, n, points, caps, 1024);
        cm_mrc_linear_grid(m[have_exact ? 0 : i].hist, NLIN, lin);
        nc = keep_resolved(caps, nc, from);
        size_t nl = keep_resolved(lin, NLIN, from);
        if (from > 0)
            fprintf(stderr, "cohmod mrc: %s resolves %g lines (%g B) and "
                    "more; below, its curve is left out\n", m[i].name, from,
                    from * (double)line_bytes);
        if (nc == 0 || nl == 0) {
            fprintf(stderr, "cohmod mrc: %s: no size it resolves\n",
                    m[i].name);
            continue;
        }
        double half_lin, half_log;
        if (cm_mrc_method_curve(&m[i], lin, nl, mr, lo, hi, &half_lin) ||
            cm_mrc_method_curve(&m[i], caps, nc, mr, lo, hi, &half_log))
            continue; /* out of memory: the table said it already */
        fprintf(stderr, "cohmod mrc: %s (rate %.4g): 95%% interval half-width "
                "(jackknife%s) %.4f over %zu sizes up to the footprint, %.4f "
                "over %zu log-spaced sizes\n", m[i].name, m[i].hist->rate,
                from > 0 ? ", +- 1/(2R) lines" : "", half_lin, nl, half_log,
                nc);
        if (!have_exact) continue;
        cm_mrc_fa(m[0].hist, caps, nc, ex);
        size_t held = 0;
        for (size_t j = 0; j < nc; j++) held += ex[j] >= lo[j] && ex[j] <= hi[j];
        fprintf(stderr, "cohmod mrc: %s against exact: mean absolute "
                "error %.4f over %zu sizes up to the footprint, %.4f over "
                "%zu log-spaced sizes; its 95%% interval holds the exact "
                "curve at %zu of those %zu\n", m[i].name,
                cm_mrc_mae(m[0].hist, m[i].hist, lin, nl), nl,
                cm_mrc_mae(m[0].hist, m[i].hist, caps, nc), nc, held, nc);
    }
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS, CLI_TRACE_LONGOPTS, CLI_QUIET_LONGOPT,
        {"sample", required_argument, NULL, OPT_SAMPLE},
        {"exact", no_argument, NULL, OPT_EXACT},
        {"sets", required_argument, NULL, OPT_SETS},
        {"ways", required_argument, NULL, OPT_WAYS},
        {"points", required_argument, NULL, OPT_POINTS},
        {"plot", required_argument, NULL, OPT_PLOT},
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, "mrc");
    ctx.repeatable = "sample";
    mrc_opts o = {.ctx = &ctx};
    int rc = cli_parse(&ctx, argc, argv, longopts, own_option, &o, usage);
    if (rc != CLI_CONTINUE) return rc;
    const char *trace;
    if ((rc = cli_one_positional(&ctx, argc, argv, "trace", &trace)))
        return rc;
    uint64_t sets[MAX_GEOMETRY], ways[MAX_GEOMETRY];
    size_t nsets = 0, nways = 0;
    if (!o.sets != !o.ways)
        return cli_usage_error(&ctx, "--sets and --ways go together");
    if (o.sets && ((rc = parse_list(&ctx, "sets", o.sets, sets, &nsets)) ||
                   (rc = parse_list(&ctx, "ways", o.ways, ways, &nways))))
        return rc;
    unsigned points = 8;
    if (o.points) {
        char *end;
        unsigned long p = strtoul(o.points, &end, 10);
        if (*end || p < 1 || p > 64 || o.points[0] == '-')
            return cli_usage_error(&ctx, "--points '%s': expected 1..64",
                                   o.points);
        points = (unsigned)p;
    }
    if ((rc = cli_ctx_resolve(&ctx))) return rc;

    /* The methods: exact first when asked for (or when nothing else is). */
    const char *specs[MAX_METHODS + 1];
    int nspecs = 0, have_exact = o.exact || o.nsamples == 0;
    if (have_exact) specs[nspecs++] = "none";
    for (int i = 0; i < o.nsamples; i++) specs[nspecs++] = o.samples[i];
    cm_reuse_result res[MAX_METHODS + 1];
    cm_mrc_method methods[MAX_METHODS + 1];
    int done = 0;
    cm_err err = {0};
    cm_status st = CM_OK;
    /* Set-local distances ride along the first pass, to the largest
     * associativity asked for. */
    cm_setlocal *sl = NULL;
    cm_spatial *sp = NULL;
    uint64_t depth = 0;
    for (size_t i = 0; i < nways; i++)
        if (ways[i] > depth) depth = ways[i];
    if (nsets && ((st = cm_setlocal_new(sets, nsets, depth, &sl, &err)) ||
                  (st = cm_spatial_new(
                       sets, nsets, (uint64_t)ctx.params.reuse_spatial_depth,
                       ctx.params.reuse_spatial_budget,
                       (uint64_t)ctx.params.sim_seed, &sp, &err))))
        rc = cli_fail(&ctx, &err);
    for (; !rc && done < nspecs; done++) {
        cm_reuse_request req;
        if ((rc = cli_reuse_request(&ctx, &o.trace, trace,
                                    specs[done], &req)))
            break;
        req.sample.replicates = 1; /* the exact engine ignores it */
        if (done == 0) {
            req.setlocal = sl;
            req.spatial = sp;
        }
        if ((st = cm_reuse_from_trace(&req, &res[done], &err))) break;
        if (res[done].nstreams == 0) {
            st = cm_err_set(&err, CM_EINPUT, "%s: no access selected",
                            trace);
            done++;
            break;
        }
        methods[done].name = strcmp(specs[done], "none") ? specs[done]
                                                          : "exact";
        methods[done].hist = &res[done].streams[0].hist;
        methods[done].reps = res[done].streams[0].reps;
        methods[done].nreps = res[done].streams[0].nreps;
        methods[done].resolved_lines = cm_sample_resolved_lines(
            req.sample.kind, methods[done].hist->rate);
    }
    cli_bar_end(&o.trace.bar, !rc && !st);
    cm_table *curve = NULL, *out = NULL;
    if (!rc && !st)
        st = cm_mrc_curve_table(methods, (size_t)done,
                                (uint64_t)ctx.params.l1_line, points, &curve,
                                &err);
    if (!rc && !st && nsets)
        st = cm_mrc_geometry_table(methods, (size_t)done, sl, sp, sets,
                                   nsets, ways, nways,
                                   (uint64_t)ctx.params.l1_line, &out, &err);
    if (!rc && !st)
        st = cm_table_write_file(out ? out : curve, ctx.out, &err);
    if (!rc && st) rc = cli_fail(&ctx, &err);
    if (!rc && o.plot) rc = draw(&ctx, curve, o.plot);
    if (!rc) rc = cli_write_param_dump(&ctx, ctx.out);
    if (!rc)
        report_errors(methods, (size_t)done, have_exact, points,
                      (uint64_t)ctx.params.l1_line);
    cm_table_free(curve);
    cm_table_free(out);
    cm_setlocal_free(sl);
    cm_spatial_free(sp);
    for (int i = 0; i < done; i++) cm_reuse_result_free(&res[i]);
    return rc;
}

const cli_command cli_cmd_mrc = {
    "mrc", "miss-ratio curves (exact, sampled) and set-associative "
    "predictions", run};
