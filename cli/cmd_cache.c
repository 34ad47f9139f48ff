/* cmd_cache.c - `cohmod cache`: exact cache simulation of a trace, the
 * reference the reuse-distance models are checked against. */
#include <stdio.h>

#include "cli/cli.h"
#include "sim/cache_trace.h"

static void usage(FILE *f)
{
    fputs("Usage: cohmod cache TRACE [--size B] [--ways A] [--line B] "
          "[--policy lru|fifo|random]\n"
          "                    [--write-allocate yes|no] [--seed N] "
          "[--format F] [--ops LIST] [--out F.csv]\n\n"
          "Simulates one set-associative cache over the trace.  Output: "
          "op,accesses,hits,\nmisses,miss_ratio, one row per op (load, "
          "store, modify, atomic) and a row all;\nmiss_ratio is empty for "
          "an op the trace never does.\n\n"
          "Counting follows cachegrind: an access that straddles a line "
          "boundary touches\nevery line it covers but counts as one access, "
          "and as one miss if any line\nmissed; a modify (lackey M) counts "
          "as one access, simulated as a read (its\nwrite cannot miss once "
          "the read has brought the line in).\n\n"
          "  --size B            capacity in bytes (shorthand for --set "
          "l1.size=B)\n"
          "  --ways A            associativity (l1.ways)\n"
          "  --policy P          replacement (l1.policy)\n"
          "  --write-allocate Y  allocate on a write miss (l1.write_allocate)"
          "\n"
          "  --seed N            seed of the random policy (sim.seed)\n",
          f);
    cli_print_trace_help(f);
    cli_print_common_help(f);
}

enum {
    OPT_SIZE = CLI_OPT_FIRST_FREE,
    OPT_WAYS,
    OPT_POLICY,
    OPT_WALLOC,
    OPT_SEED
};

typedef struct cache_opts {
    cli_ctx *ctx;
    cli_trace_opts trace;
} cache_opts;

static int own_option(int opt, const char *arg, void *u)
{
    cache_opts *o = u;
    static const char *const alias[] = {"l1.size", "l1.ways", "l1.policy",
                                        "l1.write_allocate", "sim.seed"};
    int t = cli_trace_opt(o->ctx, &o->trace, opt, arg);
    if (t) return t < 0 ? CM_EINPUT : 0;
    if (opt >= OPT_SIZE && opt <= OPT_SEED)
        return cli_alias_set(o->ctx, alias[opt - OPT_SIZE], arg);
    return CM_EINPUT;
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS, CLI_TRACE_LONGOPTS, CLI_QUIET_LONGOPT,
        {"size", required_argument, NULL, OPT_SIZE},
        {"ways", required_argument, NULL, OPT_WAYS},
        {"policy", required_argument, NULL, OPT_POLICY},
        {"write-allocate", required_argument, NULL, OPT_WALLOC},
        {"seed", required_argument, NULL, OPT_SEED},
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, "cache");
    cache_opts o = {.ctx = &ctx};
    int rc = cli_parse(&ctx, argc, argv, longopts, own_option, &o, usage);
    if (rc != CLI_CONTINUE) return rc;
    cm_reuse_request req; /* for the shared trace-option parsing */
    if ((rc = cli_trace_setup(&ctx, argc, argv, &o.trace, NULL, &req)))
        return rc;
    const cm_params *p = &ctx.params;
    cm_cache_config cfg = {(uint64_t)p->l1_size, (uint64_t)p->l1_ways,
                           (uint64_t)p->l1_line, (cm_cache_policy)p->l1_policy,
                           p->l1_write_allocate != 0, (uint64_t)p->sim_seed};
    cm_err err = {0};
    cm_cache_counts counts;
    cm_table *t = NULL;
    cm_status st = cm_cache_run_trace(&cfg, req.trace, &req.trace_opts,
                                      req.op_mask, cli_progress,
                                      &o.trace.bar, &counts, &err);
    cli_bar_end(&o.trace.bar, !st);
    if (!st) st = cm_cache_counts_table(&counts, &t, &err);
    if (!st) st = cm_table_write_file(t, ctx.out, &err);
    rc = st ? cli_fail(&ctx, &err) : cli_write_param_dump(&ctx, ctx.out);
    cm_table_free(t);
    return rc;
}

const cli_command cli_cmd_cache = {
    "cache", "exact set-associative cache simulation of a trace", run};
