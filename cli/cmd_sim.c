/* cmd_sim.c - `cohmod sim`: run the event simulator on a workload profile,
 * or on a real trace (--trace: sim/trace_source.h maps its records to SMs
 * and warps), in full detail or sampled. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "data/metrics.h"
#include "data/table.h"
#include "models/profile.h"
#include "sim/gpu.h"
#include "sim/profile_rec.h"
#include "sim/protocol.h"
#include "sim/trace_source.h"

static void usage(FILE *f)
{
    fputs("Usage: cohmod sim --workload NAME|FILE.csv [--protocol P] "
          "[--profile-out F]\n"
          "                  [--sched lrr|gto|two-level] [--seed N] "
          "[--quiet] [--out stats.csv]\n"
          "                  [--sample off|temporal|spatial|both] "
          "[--sample-check]\n"
          "       cohmod sim --trace PATH [--format F] [--ops LIST] "
          "[options as above]\n"
          "       cohmod sim --list-workloads | --list-metrics | "
          "--list-protocols\n"
          "       cohmod sim --protocol-table P|all\n\n"
          "Simulates the machine (gpu.*, sched.*, l1.*, l2.*, dram.*, noc.* "
          "parameters)\nrunning a workload profile until every warp retires "
          "(or sim.max_cycles), in\nfull detail or sampled (--sample), and "
          "writes the statistics as\nmetric,component,value,ci95_lo,ci95_hi "
          "(component sm<i>, "
          "bank<i>,\nch<i>, or all for the whole machine).  ci95_lo and "
          "ci95_hi are empty\nwithout an interval (unsampled runs, "
          "min/max/stddev, fewer than 2 windows);\nvalue is empty where "
          "a metric is undefined (a mean or ratio over no events).\n\n"
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
          "  --protocol P      no-l1, no-coh (default), wt, mesi, gpu-vi, "
          "gpu-vini,\n"
          "                    tcsuo, tcs, tcsoo, tcw or tcw-fixed "
          "(sim/protocol.h: tables\n"
          "                    run on one machine, with data values).  "
          "Lifetimes: tc.*;\n"
          "                    GPU-VIni directory: dir.ratio, dir.ways\n"
          "  --profile-out F   also write the run's timing profile "
          "(quantity,lo,hi,value;\n"
          "                    full detail only), the input of `cohmod "
          "model\n"
          "                    lifetime|recall|directory --profile F`\n"
          "  --sched S         warp scheduler (shorthand for --set "
          "sched.policy=S)\n"
          "  --seed N          seed of every random stream (sim.seed)\n"
          "  --sample M        sampling (sim.sample; off = full detail): "
          "temporal\n"
          "                    windows (sim.sample_window measured after\n"
          "                    sim.sample_warmup, one per sim.sample_period "
          "cycles,\n"
          "                    functional between, warming the tags over "
          "its last\n"
          "                    sim.sample_ff_warm x L2 lines of "
          "references), spatial\n"
          "                    (sim.sample_sms detailed SMs, the rest "
          "inject their\n"
          "                    traffic), or both.\n"
          "                    Sampled values come with 95% intervals "
          "across windows;\n"
          "                    counters are sums over the measured "
          "windows\n"
          "  --sample-check    run full detail and sampled (--sample, "
          "default temporal)\n"
          "                    and write metric,full,sampled,rel_error,"
          "ci95_halfwidth\n"
          "                    for the machine's ipc, miss ratios, MSHR "
          "occupancy and\n"
          "                    latency, then wall_seconds and speedup "
          "rows (the\n"
          "                    timing rows are the only ones that vary "
          "run to run;\n"
          "                    their last two cells, and rel_error where "
          "full is 0,\n"
          "                    are empty)\n"
          "  --quiet           no progress bar\n"
          "  --list-workloads  the built-in profiles as CSV: name, what it "
          "stands for,\n"
          "                    source, then the profile's numbers\n"
          "  --list-protocols  the protocols as CSV: name, consistency, "
          "lifetime,\n"
          "                    sharers, l1_write_back, summary\n"
          "  --protocol-table P  protocol P's tables (or all) as CSV\n"
          "                    protocol,controller,state,event,next,message,"
          "actions\n"
          "                    (the rows the machine runs; models read the "
          "same)\n"
          "  --list-metrics    every statistic a run can write, as CSV\n"
          "                    metric,kind,unit,label,meaning (data/"
          "metrics.def;\n"
          "                    <x> stands for one name segment; kinds "
          "give rows: occupancy\n"
          "                    X_mean, X.frac_at_<k>; latency X_count, "
          "X_mean, X_stddev,\n"
          "                    X_min, X_max, X.frac_in_<lo>_<hi>; level "
          "X_mean)\n",
          f);
    cli_print_common_help(f);
}

enum {
    OPT_WORKLOAD = CLI_OPT_FIRST_FREE,
    OPT_PROTOCOL,
    OPT_SCHED,
    OPT_SEED,
    OPT_QUIET,
    OPT_LIST,
    OPT_LIST_METRICS,
    OPT_LIST_PROTOCOLS,
    OPT_PROTOCOL_TABLE,
    OPT_SAMPLE,
    OPT_SAMPLE_CHECK,
    OPT_TRACE,
    OPT_PROFILE_OUT
};

typedef struct sim_opts {
    cli_ctx *ctx;
    const char *workload, *protocol, *trace, *profile_out;
    cli_trace_opts topts;
    int quiet, list, list_metrics, list_protocols, check;
    const char *protocol_table;
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
    case OPT_LIST_METRICS:
        o->list_metrics = 1;
        return 0;
    case OPT_LIST_PROTOCOLS:
        o->list_protocols = 1;
        return 0;
    case OPT_PROTOCOL_TABLE:
        o->protocol_table = arg;
        return 0;
    case OPT_SAMPLE:
        return cli_alias_set(o->ctx, "sim.sample", arg);
    case OPT_SAMPLE_CHECK:
        o->check = 1;
        return 0;
    case OPT_TRACE:
        o->trace = arg;
        return 0;
    case OPT_PROFILE_OUT:
        o->profile_out = arg;
        return cli_output_add(o->ctx, arg, 0);
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

static int list_metrics(cli_ctx *ctx)
{
    cm_err err = {0};
    cm_table *t = NULL;
    cm_status st = cm_metric_table(&t, &err);
    if (!st) st = cm_table_write_file(t, ctx->out, &err);
    cm_table_free(t);
    return st ? cli_fail(ctx, &err) : 0;
}

static int list_protocols(cli_ctx *ctx)
{
    static const char *const cols[] = {"protocol",      "consistency",
                                       "lifetime",      "sharers",
                                       "l1_write_back", "summary"};
    cm_err err = {0};
    cm_table *t = cm_table_new(6, cols);
    cm_status st = t ? CM_OK : cm_err_set(&err, CM_EINTERNAL, "out of memory");
    for (size_t i = 0; !st && cm_protocol_at(i); i++) {
        const cm_protocol *p = cm_protocol_at(i);
        const char *cells[6] = {p->name,
                                cm_consistency_names[p->consistency],
                                cm_lifetime_names[p->lifetime],
                                cm_sharer_track_names[p->sharers],
                                p->l1_write_back ? "yes" : "no", p->summary};
        st = cm_table_append(t, cells, &err);
    }
    if (!st) st = cm_table_write_file(t, ctx->out, &err);
    cm_table_free(t);
    return st ? cli_fail(ctx, &err) : 0;
}

static int protocol_table(cli_ctx *ctx, const char *name)
{
    int all = !strcmp(name, "all");
    if (!all && !cm_protocol_find(name))
        return cli_usage_error(ctx, "--protocol-table: no protocol '%s' (%s, "
                               "or all)", name, cm_protocol_names());
    cm_err err = {0};
    cm_table *t = NULL;
    cm_status st = cm_protocol_export_new(&t, &err);
    for (size_t i = 0; !st && cm_protocol_at(i); i++)
        if (all || !strcmp(cm_protocol_at(i)->name, name))
            st = cm_protocol_export(cm_protocol_at(i), t, &err);
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

typedef struct sim_job {
    const cm_workload_profile *prof; /* or */
    const char *trace;
    const cli_trace_opts *topts;
    const cm_protocol *proto;
    int quiet;
    const char *profile_out; /* the timing profile's file, or NULL */
} sim_job;

typedef struct sim_run {
    cm_stats *stats;
    cm_stat_row *rows;
    size_t nrows;
    cm_gpu_result res;
    double seconds;
} sim_run;

static void sim_run_free(sim_run *r)
{
    cm_stats_free(r->stats);
    free(r->rows);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) +
           1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

static double row_value(const sim_run *r, const char *metric)
{
    const cm_stat_row *row = cm_stats_find(r->rows, r->nrows, metric, "all");
    return row ? row->value : NAN;
}

/* The recorded timing profile, through the models' writer (one format). */
static cm_status write_profile(cm_profile_rec *rec, const sim_run *r,
                               const char *path, cm_err *err)
{
    cm_table *t = NULL;
    cm_profile *prof = NULL;
    cm_status st = cm_profile_rec_table(rec, r->stats, r->res.cycles, &t, err);
    if (!st) st = cm_profile_from_table(t, &prof, err);
    if (!st) st = cm_profile_write(prof, path, err);
    cm_profile_free(prof);
    cm_table_free(t);
    return st;
}

/* One simulation of the job on params p, timed. */
static cm_status simulate(const sim_job *job, const cm_params *p, sim_run *r,
                          cm_err *err)
{
    memset(r, 0, sizeof *r);
    r->stats = cm_stats_new();
    if (!r->stats) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    /* A trace source is consumed by a run: each run reads its own. */
    cm_trace_source *ts = NULL;
    cm_status st = CM_OK;
    if (job->trace) {
        cm_trace_source_config c = {.path = job->trace};
        const cli_trace_opts *t = job->topts;
        st = cm_trace_format_parse(t->format ? t->format : "auto", &c.format,
                                   err);
        if (!st)
            st = cm_op_mask_parse(t->ops ? t->ops : "all", &c.op_mask, err);
        if (!st) st = cm_trace_source_load(p, &c, &ts, err);
        if (st) return st;
    }
    cm_warp_source src = ts ? cm_trace_source_warps(ts) : (cm_warp_source){0};
    cm_profile_rec *rec = NULL;
    if (job->profile_out) st = cm_profile_rec_new(p, job->proto, &rec, err);
    cli_bar bar; /* what the simulator reports (sim/gpu.h) */
    cli_bar_start(&bar, "sim", job->quiet, 0);
    cm_gpu_run_config cfg = {.params = p,
                             .workload = job->prof,
                             .protocol = job->proto,
                             .progress = cli_progress,
                             .progress_arg = &bar,
                             .source = src,
                             .observer = rec ? cm_profile_rec_observer(rec)
                                             : NULL};
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!st) st = cm_gpu_run(&cfg, r->stats, &r->res, err);
    r->seconds = seconds_since(&t0);
    cli_bar_end(&bar, !st); /* before any line of its own */
    cm_trace_source_free(ts);
    if (!st && rec) st = write_profile(rec, r, job->profile_out, err);
    cm_profile_rec_free(rec);
    if (!st) st = cm_stats_rows(r->stats, &r->rows, &r->nrows, err);
    const cm_param_info *pi = cm_param_find("sim.sample");
    char mode[32];
    cm_param_format(pi, cm_param_get(p, pi), mode, sizeof mode);
    /* the speed: L1 accesses per second in full detail; a sampled run's
     * windows hold only part of them, so there the simulated cycles per
     * second; said only where there are some */
    double acc = row_value(r, "l1.accesses");
    char rate[48] = "";
    if (p->sim_sample != 0 && r->res.cycles > 0 && r->seconds > 0)
        snprintf(rate, sizeof rate, " (%.2f M simulated cycles/s)",
                 (double)r->res.cycles / r->seconds / 1e6);
    else if (isfinite(acc) && acc > 0 && r->seconds > 0)
        snprintf(rate, sizeof rate, " (%.2f M L1 accesses/s)",
                 acc / r->seconds / 1e6);
    if (!st && !job->quiet)
        fprintf(stderr,
                "cohmod sim: %s on %s, sample %s, %s: %llu cycles, IPC %.3f, "
                "%.2f s%s\n",
                job->trace ? job->trace : job->prof->name, job->proto->name,
                mode,
                r->res.finished ? "finished"
                : p->sim_max_instructions > 0 &&
                        r->res.instructions >= (uint64_t)p->sim_max_instructions
                    ? "stopped at sim.max_instructions"
                    : "stopped at sim.max_cycles",
                (unsigned long long)r->res.cycles, row_value(r, "ipc"),
                r->seconds, rate);
    return st;
}

static int sim_once(cli_ctx *ctx, const sim_job *job)
{
    cm_err err = {0};
    sim_run r;
    cm_status st = simulate(job, &ctx->params, &r, &err);
    if (!st) st = cm_stats_write(r.stats, ctx->out, &err);
    sim_run_free(&r);
    return st ? cli_fail(ctx, &err) : cli_write_param_dump(ctx, ctx->out);
}

/* The machine-level quantities sampling must get right. */
static const char *const check_metrics[] = {
    "ipc",
    "l1.miss_ratio",
    "l2.miss_ratio",
    "l1.mshr.occupancy_mean",
    "l1.mshr.full_fraction",
    "roundtrip.latency_mean",
    "mem_pipeline.stall_ratio",
};

static cm_status write_check(const char *path, const sim_run *full,
                             const sim_run *smp, cm_err *err)
{
    cm_csv_writer *w = NULL;
    static const char *const head[] = {"metric", "full", "sampled",
                                       "rel_error", "ci95_halfwidth"};
    cm_status st = cm_csv_writer_open(path, &w, err);
    if (!st) st = cm_csv_writer_row(w, 5, head, err);
    size_t n = sizeof check_metrics / sizeof *check_metrics;
    for (size_t i = 0; !st && i < n; i++) {
        const cm_stat_row *f = cm_stats_find(full->rows, full->nrows,
                                             check_metrics[i], "all");
        const cm_stat_row *s = cm_stats_find(smp->rows, smp->nrows,
                                             check_metrics[i], "all");
        if (!f || !s) continue;
        char v[4][32];
        cm_fmt_double(v[0], f->value);
        cm_fmt_double(v[1], s->value);
        cm_fmt_optional(v[2], f->value != 0 ? fabs(s->value - f->value) /
                                                  fabs(f->value)
                                            : NAN);
        cm_fmt_optional(v[3], 0.5 * (s->ci95_hi - s->ci95_lo));
        const char *cells[5] = {check_metrics[i], v[0], v[1], v[2], v[3]};
        st = cm_csv_writer_row(w, 5, cells, err);
    }
    if (!st) {
        char a[32], b[32], c[32];
        cm_fmt_double(a, full->seconds);
        cm_fmt_double(b, smp->seconds);
        const char *cells[5] = {"wall_seconds", a, b, "", ""};
        st = cm_csv_writer_row(w, 5, cells, err);
        cm_fmt_double(c, smp->seconds > 0 ? full->seconds / smp->seconds
                                          : NAN);
        const char *sp[5] = {"speedup", "1", c, "", ""};
        if (!st) st = cm_csv_writer_row(w, 5, sp, err);
    }
    if (st) {
        if (w) cm_csv_writer_abort(w);
        return st;
    }
    return cm_csv_writer_commit(w, err);
}

/* Full detail against the sampled run, same machine, workload and seed. */
static int sample_check(cli_ctx *ctx, const sim_job *job)
{
    cm_params full = ctx->params, smp = ctx->params;
    full.sim_sample = 0;
    if (smp.sim_sample == 0) smp.sim_sample = 1; /* temporal */
    cm_err err = {0};
    sim_run a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    /* the sampled run's settings first: no full run for nothing */
    cm_status st = cm_gpu_check_params(&smp, &err);
    if (st) return cli_fail(ctx, &err);
    st = simulate(job, &full, &a, &err);
    if (!st) st = simulate(job, &smp, &b, &err);
    if (!st) st = write_check(ctx->out, &a, &b, &err);
    sim_run_free(&a);
    sim_run_free(&b);
    return st ? cli_fail(ctx, &err) : 0;
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
        {"list-metrics", no_argument, NULL, OPT_LIST_METRICS},
        {"list-protocols", no_argument, NULL, OPT_LIST_PROTOCOLS},
        {"protocol-table", required_argument, NULL, OPT_PROTOCOL_TABLE},
        {"sample", required_argument, NULL, OPT_SAMPLE},
        {"sample-check", no_argument, NULL, OPT_SAMPLE_CHECK},
        {"trace", required_argument, NULL, OPT_TRACE},
        {"profile-out", required_argument, NULL, OPT_PROFILE_OUT},
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
    if (o.list_metrics) return list_metrics(&ctx);
    if (o.list_protocols) return list_protocols(&ctx);
    if (o.protocol_table) return protocol_table(&ctx, o.protocol_table);
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
        return cli_usage_error(&ctx, "--protocol '%s': expected %s", pname,
                               cm_protocol_names());
    if ((rc = cli_check_protocol_params(&ctx, proto))) return rc;
    if (o.profile_out && (o.check || ctx.params.sim_sample != 0))
        return cli_usage_error(&ctx, "--profile-out records a full-detail "
                               "run: drop --sample and --sample-check");
    cm_workload_profile prof;
    if (!o.trace && (rc = load_workload(&ctx, o.workload, &prof))) return rc;

    sim_job job = {o.trace ? NULL : &prof, o.trace, &o.topts, proto,
                   o.quiet, o.profile_out};
    return o.check ? sample_check(&ctx, &job) : sim_once(&ctx, &job);
}

const cli_command cli_cmd_sim = {
    "sim", "run the event simulator on a workload profile", run};
