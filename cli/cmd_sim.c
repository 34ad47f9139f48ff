/* cmd_sim.c - `cohmod sim`: run the event simulator on a workload profile,
 * or on a real trace (--trace: sim/trace_source.h maps its records to SMs
 * and warps). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "sim/gpu.h"
#include "sim/protocol.h"
#include "sim/trace_source.h"

static void usage(FILE *f)
{
    fputs("Usage: cohmod sim --workload NAME|FILE.csv [--protocol "
          "no-l1|no-coh|wt]\n"
          "                  [--sched lrr|gto|two-level] [--seed N] "
          "[--quiet] [--out stats.csv]\n"
          "       cohmod sim --trace PATH [--format F] [--ops LIST] "
          "[options as above]\n"
          "       cohmod sim --list-workloads\n\n"
          "Simulates the machine (gpu.*, sched.*, l1.*, l2.*, dram.*, noc.* "
          "parameters)\nrunning a workload profile until every warp retires "
          "(or sim.max_cycles), in\nfull detail, and writes the statistics "
          "as metric,component,value,ci95_lo,\nci95_hi (component sm<i>, "
          "bank<i>, ch<i>, or all for the whole machine).\n\n"
          "  --workload W      a built-in profile (see --list-workloads) or "
          "a CSV of\n"
          "                    parameter,value rows (optionally `base,NAME` "
          "first)\n"
          "  --trace PATH      drive the SMs from a trace instead (Accel-Sim "
          "kernelslist.g\n"
          "                    or .traceg: blocks round-robin over SMs; csv "
          "with sm,warp\n"
          "                    columns; lackey, din); --format, --line, "
          "--ops as below\n"
          "  --protocol P      L1 protocol (default no-coh)\n"
          "  --sched S         warp scheduler (shorthand for --set "
          "sched.policy=S)\n"
          "  --seed N          seed of every random stream (sim.seed)\n"
          "  --quiet           no progress bar\n"
          "  --list-workloads  the built-in profiles as CSV, name first\n",
          f);
    cli_print_trace_help(f);
    cli_print_common_help(f);
}

enum {
    OPT_WORKLOAD = CLI_OPT_FIRST_FREE,
    OPT_PROTOCOL,
    OPT_SCHED,
    OPT_SEED,
    OPT_QUIET,
    OPT_LIST,
    OPT_TRACE
};

typedef struct sim_opts {
    cli_ctx *ctx;
    const char *workload, *protocol, *trace;
    cli_trace_opts topts;
    int quiet, list;
} sim_opts;

static int own_option(int opt, const char *arg, void *u)
{
    sim_opts *o = u;
    int t = cli_trace_opt(o->ctx, &o->topts, opt, arg);
    if (t) return t < 0 ? CM_EINPUT : 0;
    switch (opt) {
    case OPT_WORKLOAD:
        o->workload = arg;
        return 0;
    case OPT_PROTOCOL:
        o->protocol = arg;
        return 0;
    case OPT_SCHED:
        return cli_alias_set(o->ctx, "sched.policy", arg);
    case OPT_SEED:
        return cli_alias_set(o->ctx, "sim.seed", arg);
    case OPT_QUIET:
        o->quiet = 1;
        return 0;
    case OPT_LIST:
        o->list = 1;
        return 0;
    case OPT_TRACE:
        o->trace = arg;
        return 0;
    default:
        return CM_EINPUT;
    }
}

static int list_workloads(cli_ctx *ctx)
{
    cm_err err = {0};
    cm_table *t = NULL;
    cm_status st = cm_workload_list_table(&t, &err);
    if (!st) st = cm_table_write_file(t, ctx->out, &err);
    cm_table_free(t);
    return st ? cli_fail(ctx, &err) : 0;
}

static int load_workload(cli_ctx *ctx, const char *name,
                         cm_workload_profile *prof)
{
    const cm_workload_profile *builtin = cm_workload_builtin(name);
    if (builtin) {
        *prof = *builtin;
        return 0;
    }
    cm_err err = {0};
    if (!strstr(name, ".csv") && !strchr(name, '/')) {
        cm_err_set(&err, CM_EINPUT,
                   "--workload '%s': no such built-in profile (see --list-"
                   "workloads) or CSV file", name);
        return cli_fail(ctx, &err);
    }
    return cm_workload_profile_load(name, prof, &err) ? cli_fail(ctx, &err)
                                                       : 0;
}

/* --trace: the whole trace is read before the run (trace_source.h says
 * why), so a bad line fails before anything is simulated or written. */
static int load_trace(cli_ctx *ctx, const sim_opts *o, cm_trace_source **ts)
{
    cm_err err = {0};
    cm_trace_source_config c = {.path = o->trace};
    if (cm_trace_format_parse(o->topts.format ? o->topts.format : "auto",
                              &c.format, &err) ||
        cm_op_mask_parse(o->topts.ops ? o->topts.ops : "all", &c.op_mask,
                         &err) ||
        cm_trace_source_load(&ctx->params, &c, ts, &err))
        return cli_fail(ctx, &err);
    return 0;
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"workload", required_argument, NULL, OPT_WORKLOAD},
        {"protocol", required_argument, NULL, OPT_PROTOCOL},
        {"sched", required_argument, NULL, OPT_SCHED},
        {"seed", required_argument, NULL, OPT_SEED},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"list-workloads", no_argument, NULL, OPT_LIST},
        {"trace", required_argument, NULL, OPT_TRACE},
        CLI_TRACE_LONGOPTS,
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, "sim");
    sim_opts o = {.ctx = &ctx};
    int rc = cli_parse(&ctx, argc, argv, longopts, own_option, &o, usage);
    if (rc != CLI_CONTINUE) return rc;
    if (optind < argc)
        return cli_usage_error(&ctx, "unexpected argument '%s'", argv[optind]);
    if ((rc = cli_ctx_resolve(&ctx))) return rc;
    if (o.list) return list_workloads(&ctx);
    if (!o.workload && !o.trace)
        return cli_usage_error(&ctx, "which workload? (--workload NAME or "
                               "--trace PATH)");
    if (o.workload && o.trace)
        return cli_usage_error(&ctx, "--workload and --trace exclude each "
                               "other");
    if (!o.trace && (o.topts.format || o.topts.ops))
        return cli_usage_error(&ctx, "--format and --ops need --trace");
    const char *pname = o.protocol ? o.protocol : "no-coh";
    const cm_protocol *proto = cm_protocol_find(pname);
    if (!proto)
        return cli_usage_error(&ctx, "--protocol '%s': expected no-l1, "
                               "no-coh or wt", pname);
    cm_workload_profile prof;
    cm_trace_source *ts = NULL;
    rc = o.trace ? load_trace(&ctx, &o, &ts)
                 : load_workload(&ctx, o.workload, &prof);
    if (rc) return rc;

    cm_err err = {0};
    cm_stats *stats = cm_stats_new();
    if (!stats) {
        cm_trace_source_free(ts);
        cm_err_set(&err, CM_EINTERNAL, "out of memory");
        return cli_fail(&ctx, &err);
    }
    cm_gpu_run_config cfg = {&ctx.params, ts ? NULL : &prof, proto,
                             o.quiet ? NULL : cli_progress, NULL,
                             ts ? cm_trace_source_warps(ts)
                                : (cm_warp_source){0}};
    cm_gpu_result res;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cm_status st = cm_gpu_run(&cfg, stats, &res, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!st) st = cm_stats_write(stats, ctx.out, &err);
    rc = st ? cli_fail(&ctx, &err) : cli_write_param_dump(&ctx, ctx.out);
    if (!rc && !o.quiet) {
        double secs = (double)(t1.tv_sec - t0.tv_sec) +
                      1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        fprintf(stderr, "cohmod sim: %s on %s, %s: %llu cycles, IPC %.3f%s, "
                "%.2f s (%.2f Mevents/s)\n", ts ? o.trace : prof.name, pname,
                res.finished ? "finished" : "stopped at sim.max_cycles",
                (unsigned long long)res.cycles,
                res.cycles ? (double)res.instructions / (double)res.cycles : 0,
                "", secs, secs > 0 ? (double)res.events / secs / 1e6 : 0);
    }
    cm_stats_free(stats);
    cm_trace_source_free(ts);
    return rc;
}

const cli_command cli_cmd_sim = {
    "sim", "run the event simulator on a workload profile or a trace", run};
