/* cmd_model.c - `cohmod model <name>`: evaluate an analytical model, alone
 * or over a sweep grid. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "data/sweep.h"
#include "data/table.h"
#include "models/mshr_grid.h"


static void usage(FILE *f)
{
    fputs("Usage: cohmod model directory --help (its own options)\n"
          "       cohmod model lifetime --help   (its own options)\n"
          "       cohmod model recall --help     (its own options)\n"
          "       cohmod model mshr [--sweep NAME=LO:HI:STEP | "
          "NAME=V1,V2,...]... [--pmf]\n"
          "                         [--config PRESET|FILE] [--set "
          "NAME=VALUE]... [--out F.csv]\n\n"
          "Models:\n"
          "  mshr   L1 MSHR occupancy of an SM: warps as tokens of a "
          "closed network whose\n"
          "         LD/ST unit waits for MSHRs and for ways of full L1 sets "
          "(NoC, L2 banks,\n"
          "         DRAM behind), latency and load coupled by a fixed point."
          "  Inputs: the\n"
          "         gpu.*, l1.*, l2.*, dram.*, "
          "noc.*, wl.* and\n"
          "         model.* parameters (cohmod params).  Output: one CSV row "
          "per grid point\n"
          "         with mean_occupancy, p_full, p_resfail, p_stall_mshr, "
          "p_stall_line,\n         miss_throughput, "
          "latency_mem,\n"
          "         latency_eff, mshr_wait, bandwidth, util_* and the "
          "bottleneck.\n\n"
          "Options:\n"
          "  --sweep SPEC  sweep any parameter; several --sweep form a grid "
          "(last fastest)\n"
          "  --pmf         write the occupancy distribution instead: "
          "occupancy,probability\n",
          f);
    cli_print_validity_help(f);
    cli_print_common_help(f);
    cli_print_shard_help(f, 0);
}

/* Models with options of their own (cli/cmd_model_<name>.c) take the
 * arguments after the name. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} own_models[] = {{"lifetime", cli_model_lifetime},
                  {"recall", cli_model_recall},
                  {"directory", cli_model_directory}};
#define MODEL_NAMES "mshr, lifetime, recall, directory"

const char *cli_model_name(size_t i)
{
    size_t n = sizeof own_models / sizeof own_models[0];
    return i == 0 ? "mshr" : i <= n ? own_models[i - 1].name : NULL;
}

enum { OPT_SWEEP = CLI_OPT_FIRST_FREE, OPT_PMF };

typedef struct model_opts {
    cli_ctx *ctx;
    cli_sweeps sweeps;
    int pmf;
} model_opts;

static int own_option(int opt, const char *arg, void *u)
{
    model_opts *mo = u;
    if (opt == OPT_PMF) {
        mo->pmf = 1;
    } else if (opt == OPT_SWEEP) {
        return cli_sweeps_add(mo->ctx, &mo->sweeps, arg);
    } else {
        return CM_EINPUT;
    }
    return 0;
}

typedef struct mshr_job {
    const cli_ctx *ctx;
    cli_sweeps *sweeps;
    int pmf;
} mshr_job;

/* Rows go out as the grid is solved, each with its error estimate (not
 * the distributions: no validation measures them): a 10^6-point grid
 * needs no more memory than a chunk of points. */
static cm_status mshr_rows(const cm_row_sink *sink, void *arg, cm_err *err)
{
    const mshr_job *j = arg;
    cli_annot *an = NULL;
    cm_row_sink to = *sink;
    cm_status st = j->pmf ? CM_OK
                          : cli_annot_open(j->ctx, "mshr", NULL, sink, &an,
                                           &to, err);
    if (!st)
        st = cm_mshr_grid_rows(&j->ctx->params, j->sweeps->sweep,
                               j->sweeps->nparsed, j->pmf, cli_progress, NULL,
                               &to, err);
    cm_status cl = cli_annot_close(an, st, err);
    return st ? st : cl;
}

static int run(int argc, char **argv)
{
    for (size_t i = 0; i < sizeof own_models / sizeof own_models[0]; i++)
        if (argc > 1 && strcmp(argv[1], own_models[i].name) == 0)
            return own_models[i].run(argc - 1, argv + 1);
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"sweep", required_argument, NULL, OPT_SWEEP},
        {"pmf", no_argument, NULL, OPT_PMF},
        CLI_VALIDITY_LONGOPT,
        CLI_SHARD_LONGOPTS,
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, "model");
    ctx.repeatable = "sweep";
    model_opts mo = {.ctx = &ctx};
    int rc = cli_parse(&ctx, argc, argv, longopts, own_option, &mo, usage);
    if (rc != CLI_CONTINUE) return rc;
    int pmf = mo.pmf;
    if (optind >= argc)
        return cli_usage_error(&ctx, "which model? (" MODEL_NAMES ")");
    const char *name = argv[optind];
    if (strcmp(name, "mshr") != 0)
        return cli_usage_error(&ctx, "unknown model '%s' (" MODEL_NAMES ")",
                               name);
    if (optind + 1 < argc)
        return cli_usage_error(&ctx, "unexpected argument '%s'",
                               argv[optind + 1]);
    rc = cli_ctx_resolve(&ctx);
    if (rc) return rc;

    cm_err err = {0};
    cli_sweeps *sw = &mo.sweeps;
    mshr_job job = {&ctx, sw, pmf};
    if (cli_sweeps_parse(sw, &err)) rc = cli_fail(&ctx, &err);
    else if (!(rc = cli_sweeps_shard(&ctx, sw)))
        rc = cli_stream_rows(&ctx, mshr_rows, &job);
    cli_sweeps_free(sw);
    return rc;
}

const cli_command cli_cmd_model = {
    "model", "evaluate an analytical model (" MODEL_NAMES ")",
    run};
