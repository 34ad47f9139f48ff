/* cmd_reuse.c - `cohmod reuse`: stack-distance histograms of a trace. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *f)
{
    fputs("Usage: cohmod reuse TRACE [--format F] [--line B] [--ops LIST] "
          "[--per all|sm|warp]\n"
          "                    [--sample none|shards:R|shards-max:S|"
          "statstack:R] [--fit] [--out hist.csv]\n\n"
          "LRU stack-distance histogram of every selected stream of the "
          "trace: exact bins\nbelow reuse.exact_bins lines, log2 bins "
          "beyond, cold accesses apart.  Output:\nstream,kind,distance_lo,"
          "distance_hi,count,fraction,sampling_rate (kind exact,\nlog2 or "
          "cold; a cold row's distance_lo and distance_hi are inf, the "
          "distance\nof a first touch).  Sampled histograms are scaled to "
          "the whole trace.\n\n"
          "  --per P        one histogram for all, per SM or per warp\n"
          "  --sample S     SHARDS at rate R, SHARDS holding at most S lines, "
          "or StatStack\n"
          "                 at rate R (default none: exact)\n"
          "  --fit          write the parametric fit of each stream's miss-"
          "ratio curve\n"
          "                 instead (see models/fit.c): stream,m_inf,"
          "m_inf_se,c0,c0_se,\n"
          "                 alpha,alpha_se,rmse,r2,points,note; note (and a "
          "line on\n"
          "                 stderr) names a parameter on a bound of the "
          "family or with a\n"
          "                 standard error above its value, or why a "
          "stream has no fit\n"
          "                 (its numbers then empty)\n",
          f);
    cli_print_trace_help(f);
    cli_print_common_help(f);
}

enum { OPT_SAMPLE = CLI_OPT_FIRST_FREE, OPT_FIT };

typedef struct reuse_opts {
    cli_ctx *ctx;
    cli_trace_opts trace;
    const char *sample;
    int fit;
} reuse_opts;

static int own_option(int opt, const char *arg, void *u)
{
    reuse_opts *o = u;
    int t = cli_trace_opt(o->ctx, &o->trace, opt, arg);
    if (t) return t < 0 ? CM_EINPUT : 0;
    if (opt == OPT_SAMPLE) o->sample = arg;
    else if (opt == OPT_FIT) o->fit = 1;
    else return CM_EINPUT;
    return 0;
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS, CLI_TRACE_LONGOPTS, CLI_QUIET_LONGOPT,
        {"per", required_argument, NULL, CLI_OPT_PER},
        {"sample", required_argument, NULL, OPT_SAMPLE},
        {"fit", no_argument, NULL, OPT_FIT},
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, "reuse");
    reuse_opts o = {.ctx = &ctx};
    int rc = cli_parse(&ctx, argc, argv, longopts, own_option, &o, usage);
    if (rc != CLI_CONTINUE) return rc;
    cm_reuse_request req;
    if ((rc = cli_trace_setup(&ctx, argc, argv, &o.trace, o.sample, &req)))
        return rc;
    cm_err err = {0};
    cm_reuse_result res;
    if (cm_reuse_from_trace(&req, &res, &err)) return cli_fail(&ctx, &err);
    cli_bar_end(&o.trace.bar, 1);
    cm_table *t = NULL;
    cm_status st = o.fit ? cm_reuse_fit_table(&res, &t, &err)
                         : cm_reuse_result_table(&res, &t, &err);
    if (!st) st = cm_table_write_file(t, ctx.out, &err);
    rc = st ? cli_fail(&ctx, &err) : cli_write_param_dump(&ctx, ctx.out);
    if (!rc)
        fprintf(stderr, "cohmod reuse: %llu accesses, %llu line references, "
                "%zu stream(s), sampling rate %g\n",
                (unsigned long long)res.accesses,
                (unsigned long long)res.references, res.nstreams,
                res.nstreams ? res.streams[0].hist.rate : 1.0);
    long note = !rc && o.fit ? cm_table_col_find(t, "note") : -1;
    for (size_t i = 0; note >= 0 && i < cm_table_nrows(t); i++)
        if (*cm_table_cell(t, i, (size_t)note)) /* a degenerate fit */
            fprintf(stderr, "cohmod reuse: fit of stream %s: %s\n",
                    cm_table_cell(t, i, 0), cm_table_cell(t, i, (size_t)note));
    cm_table_free(t);
    cm_reuse_result_free(&res);
    return rc;
}

const cli_command cli_cmd_reuse = {
    "reuse", "stack-distance histograms of a trace, exact or sampled", run};
