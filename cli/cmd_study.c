/* cmd_study.c - `cohmod study`: the main job on one machine. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "data/datadir.h"
#include "study/study.h"

/* The real trace the reuse section reads unless --trace names another: a
 * shipped file, found in cohmod's data directory (data/datadir.h). */
#define DEFAULT_TRACE "traces/sort.lackey"

static void usage(FILE *f)
{
    fputs("Usage: cohmod study [--config PRESET|FILE] [--set NAME=VALUE]... "
          "[--trace FILE]\n"
          "                    [--coh-workloads LIST|all] [--quiet] "
          "[--out DIR]\n\n"
          "Runs the design-space study on one machine (default: the "
          "embedded tc2013)\nand writes into DIR (default out/study):\n"
          "  params.csv            every parameter value used\n"
          "  mshr_*.csv            MSHR occupancy, P(full), throughput "
          "against MSHR count,\n"
          "                        active warps and workload intensity\n"
          "  mshr_*.png, .svg      the figures drawn from them (every figure "
          "comes as\n"
          "                        PNG and SVG)\n"
          "  reuse_*.csv, *.png    miss-ratio curves of a real trace, exact "
          "against sampled,\n"
          "                        set-associative predictions against exact "
          "simulation,\n"
          "                        the parametric profile and the warp-"
          "interleaving model\n"
          "  validate_*/           the models against the simulator\n"
          "  coh/                  coherence protocols on seed 000's "
          "workloads: compare.csv,\n"
          "                        sweeps (lifetime, directory, predictor),"
          "\n"
          "                        seed_compare.csv; runs of the first 5e4 "
          "cycles\n"
          "                        (less if sim.max_cycles is lower)\n"
          "  summary.txt           what the study found, in plain text\n"
          "  report.html           the findings, key tables and every "
          "figure with a\n"
          "                        caption, on one page with no other "
          "file\n\n"
          "  --trace FILE          the real trace of the reuse section "
          "(default\n"
          "                        " DEFAULT_TRACE " of cohmod's data "
          "directory: $COHMOD_DATA,\n"
          "                        PREFIX/share/cohmod when installed, or "
          "the source\n"
          "                        tree's data/; an error when missing)\n"
          "  --coh-workloads LIST  the coherence section's workloads, comma-"
          "separated, of\n"
          "                        bh cc cl dlb stn vpr hsp kmn lps ndl rg sr, "
          "or all\n"
          "                        (default bh,dlb,hsp,sr: ~10 s; all: about "
          "3x as long)\n"
          "  --quiet               no progress bar (drawn only on a "
          "terminal, one line per\n"
          "                        section)\n",
          f);
    cli_print_common_help(f);
    cli_print_shard_help(f, 1);
}

enum { OPT_TRACE = CLI_OPT_FIRST_FREE, OPT_COH_WORKLOADS, OPT_QUIET };

typedef struct study_opts {
    const char *trace, *coh_workloads;
    int quiet;
} study_opts;

static int own_option(int opt, const char *arg, void *data)
{
    study_opts *o = data;
    if (opt == OPT_TRACE) o->trace = arg;
    else if (opt == OPT_COH_WORKLOADS) o->coh_workloads = arg;
    else if (opt == OPT_QUIET) o->quiet = 1;
    else return CM_EINPUT;
    return 0;
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"trace", required_argument, NULL, OPT_TRACE},
        {"coh-workloads", required_argument, NULL, OPT_COH_WORKLOADS},
        CLI_RESUME_LONGOPTS,
        {"quiet", no_argument, NULL, OPT_QUIET},
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, "study");
    ctx.out_is_dir = 1;
    study_opts o = {NULL, NULL, 0};
    int rc = cli_parse(&ctx, argc, argv, longopts, own_option, &o, usage);
    if (rc != CLI_CONTINUE) return rc;
    if (optind < argc)
        return cli_usage_error(&ctx, "unexpected argument '%s'", argv[optind]);
    const char *dir = ctx.out ? ctx.out : "out/study";
    if (!ctx.out && (rc = cli_output_add(&ctx, dir, 1))) return rc;
    cm_run_plan plan;
    if ((rc = cli_ctx_resolve(&ctx)) || (rc = cli_run_plan(&ctx, &plan)))
        return rc;
    /* its points go to DIR/runs as each ends, read back by the sections
     * and kept for --resume: each is put in place as it is complete */
    if ((rc = cli_outputs_unbatched(&ctx))) return rc;
    cm_err err = {0};
    char trace[4096];
    if (!o.trace) {
        if (cm_data_path(DEFAULT_TRACE, trace, sizeof trace, &err))
            return cli_fail(&ctx, &err);
        o.trace = trace;
    }
    cli_bar bar; /* each section a step: grid points, the trace's bytes,
                    runs */
    cli_bar_start(&bar, "study", o.quiet, cli_file_bytes(o.trace));
    if (cm_study_run(&ctx.params, dir, o.trace, o.coh_workloads, &plan,
                     cli_progress, &bar, &err))
        return cli_fail(&ctx, &err);
    cli_bar_end(&bar, 1);
    if (plan.mode == CM_RUN_SHARD) { /* merge makes the summary */
        printf("Shard %u/%u of the study in %s/\n", ctx.shard.index,
               ctx.shard.count, dir);
        return 0;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/summary.txt", dir);
    FILE *f = fopen(path, "r");
    if (f) { /* show the findings; the files hold the rest */
        char line[512];
        while (fgets(line, sizeof line, f)) fputs(line, stdout);
        fclose(f);
    }
    printf("\nResults in %s/: summary.txt, and report.html (every figure "
           "and key table on one page)\n", dir);
    return 0;
}

const cli_command cli_cmd_study = {
    "study", "the main job: a design-space study with CSVs, figures and a "
    "summary", run};
