/* trace_opts.c - the trace options reuse, mrc and cache share. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

int cli_trace_opt(cli_ctx *ctx, cli_trace_opts *t, int opt, const char *arg)
{
    switch (opt) {
    case CLI_OPT_FORMAT:
        t->format = arg;
        return 1;
    case CLI_OPT_OPS:
        t->ops = arg;
        return 1;
    case CLI_OPT_PER:
        t->per = arg;
        return 1;
    case CLI_OPT_LINE:
        return cli_alias_set(ctx, "l1.line", arg) ? -1 : 1;
    case CLI_OPT_QUIET:
        t->quiet = 1;
        return 1;
    default:
        return 0;
    }
}

void cli_print_trace_help(FILE *f)
{
    fputs("Trace options:\n"
          "  --format F     lackey, din, csv, accel or auto (default: "
          "detect)\n"
          "  --line B       line size in bytes (shorthand for --set "
          "l1.line=B)\n"
          "  --ops LIST     keep only these ops: load,store,modify,atomic "
          "(default all)\n"
          "  --quiet        no progress bar (drawn only on a terminal)\n",
          f);
}

int cli_reuse_request(cli_ctx *ctx, cli_trace_opts *t,
                      const char *path, const char *sample,
                      cm_reuse_request *req)
{
    cm_err err = {0};
    memset(req, 0, sizeof *req);
    const char *base = strrchr(path, '/');
    char label[64];
    snprintf(label, sizeof label, "%s%s%s", base ? base + 1 : path,
             sample && strcmp(sample, "none") ? " " : "",
             sample && strcmp(sample, "none") ? sample : "");
    cli_bar_start(&t->bar, label, t->quiet, cli_file_bytes(path));
    req->progress_arg = &t->bar;
    req->trace = path;
    req->line_bytes = (uint32_t)ctx->params.l1_line;
    req->trace_opts.line_bytes = req->line_bytes;
    req->exact_bins = (uint64_t)ctx->params.reuse_exact_bins;
    req->progress = cli_progress;
    if (cm_trace_format_parse(t->format ? t->format : "auto",
                              &req->trace_opts.format, &err) ||
        cm_op_mask_parse(t->ops ? t->ops : "all", &req->op_mask, &err) ||
        cm_reuse_per_parse(t->per ? t->per : "all", &req->per, &err) ||
        cm_sample_spec_parse(sample ? sample : "none", &req->sample, &err))
        return cli_fail(ctx, &err);
    req->sample.seed = (uint64_t)ctx->params.sim_seed;
    return 0;
}

int cli_trace_setup(cli_ctx *ctx, int argc, char **argv,
                    cli_trace_opts *t, const char *sample,
                    cm_reuse_request *req)
{
    const char *trace;
    int rc = cli_one_positional(ctx, argc, argv, "trace", &trace);
    if (!rc) rc = cli_ctx_resolve(ctx);
    if (!rc) rc = cli_reuse_request(ctx, t, trace, sample, req);
    return rc;
}
