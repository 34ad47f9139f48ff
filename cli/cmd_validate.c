/* cmd_validate.c - `cohmod validate <model>`: a model against the simulator
 * over a grid (study/validate.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "data/sweep.h"
#include "study/validate.h"

#define MAX_GRID 8
#define MAX_WORKLOADS 32
#define MODEL_NAMES "mshr|reuse|lifetime|recall|directory"

/* The default machine of the detailed-machine models when no --config is
 * given: tc2013 shrunk so that the default grid (27 runs) takes about a
 * minute on one core. */
static const char *const small_machine[] = {
    "gpu.sms=2", "gpu.warps_per_sm=48", "sim.max_cycles=300000"};
/* Under --design the machines are the presets themselves: a design
 * validates the machines users run the models on.  Runs still stop at
 * 300k cycles (about a second on tc2013's 16 SMs). */
static const char *const design_machine[] = {"sim.max_cycles=300000"};
/* The coherence models' default: the seed-000 machine (tc2013), each run
 * cut at 100k cycles (about a second). */
static const char *const coh_machine[] = {"sim.max_cycles=100000"};
/* The predictor's equilibrium is a steady state: the predictor starts at
 * tc.predictor_init and takes tens of thousands of cycles to approach it,
 * which would dominate a 100k-cycle time average. */
static const char *const predictor_machine[] = {"sim.max_cycles=300000"};
/* The lifetime model's profile at L = 16000 carries every shorter L, so
 * every run covers the same program: 300k warp instructions.  A cycle cap
 * covers 4-8x less of it at L = 16000 (TC-Strong's stalls slow the
 * machine), mostly the programs' cold start, whose sharing differs
 * (models/lifetime.c, "The runs' clock"). */
static const char *const lifetime_machine[] = {"sim.max_instructions=300000"};
static const char *const mshr_grid[] = {"mshrs=8,16,32", "warps=8,24,48"};
static const char *const reuse_grid[] = {"l1size=16K,32K,64K",
                                         "warps=8,24,48"};
static const char *const lifetime_grid[] = {"lifetime=400,1000,2500,6400,16000"};
static const char *const predictor_grid[] = {"tc.t_hit=1,2,4,8,16"};
static const char *const recall_grid[] = {"ratio=1,2,4,16", "ways=8,16,32"};
static const char *const directory_grid[] = {"l1size=8K,16K,32K,64K,128K"};

/* Each model's default grid, workloads and protocol: MSHR occupancy needs
 * miss-heavy workloads, the L1 reuse model ones whose L1 hits; the
 * coherence models run seed 000's workloads on its machine (coh_config)
 * and want fences and sharing. */
static const struct val_model {
    const cm_validate_model *model;
    const char *const *grid;
    size_t ngrid;
    const char *workloads, *protocol;
    const char *coh_config; /* non-NULL: a coherence model */
    const char *only;       /* non-NULL: the entry for this --protocol */
    const char *const *machine; /* non-NULL: settings instead of the
                                   coherence default's */
    size_t nmachine;
    unsigned replicates; /* runs per point unless --replicates (0: 1) */
    const char *const *dmachine; /* non-NULL: the settings under --design
                                    instead of machine's */
    size_t ndmachine;
} val_models[] = {
    {&cm_validate_lifetime_predictor, predictor_grid,
     sizeof predictor_grid / sizeof *predictor_grid, "bh,kmn,stn", "tcw",
     "tc2013", "tcw", predictor_machine,
     sizeof predictor_machine / sizeof *predictor_machine, 0, NULL, 0},
    {&cm_validate_mshr, mshr_grid, sizeof mshr_grid / sizeof *mshr_grid,
     "kmn,bfs,cfd", "no-coh", NULL, NULL, NULL, 0, 0, design_machine,
     sizeof design_machine / sizeof *design_machine},
    {&cm_validate_reuse, reuse_grid, sizeof reuse_grid / sizeof *reuse_grid,
     "kmn,bfs,hsp,cfd", "no-coh", NULL, NULL, NULL, 0, 0, design_machine,
     sizeof design_machine / sizeof *design_machine},
    {&cm_validate_lifetime, lifetime_grid,
     sizeof lifetime_grid / sizeof *lifetime_grid, "bh,cl,stn", "tcw-fixed",
     "tc2013", NULL, lifetime_machine,
     sizeof lifetime_machine / sizeof *lifetime_machine, 3, NULL, 0},
    {&cm_validate_recall, recall_grid, sizeof recall_grid / sizeof *recall_grid,
     "bh,cl,kmn", "gpu-vini", "tc2013", NULL, NULL, 0, 0, NULL, 0},
    {&cm_validate_directory, directory_grid,
     sizeof directory_grid / sizeof *directory_grid, "kmn,bh,stn", "gpu-vi",
     "tc2013", NULL, NULL, 0, 0, NULL, 0}};

const char *cli_validate_model_name(size_t i)
{
    /* the table lists lifetime twice (the predictor under tcw) */
    size_t n = 0;
    for (size_t k = 0; k < sizeof val_models / sizeof *val_models; k++)
        if (!val_models[k].only && n++ == i) return val_models[k].model->name;
    return NULL;
}

/* "lifetime" is the lifetime the protocol uses; the others are fixed. */
static const struct {
    const char *alias, *param;
} grid_aliases[] = {{"mshrs", "l1.mshrs"},
                    {"warps", "sched.active_warps"},
                    {"l1size", "l1.size"},
                    {"ratio", "dir.ratio"},
                    {"ways", "dir.ways"},
                    {"lifetime", NULL}};

static void usage(FILE *f)
{
    fputs("Usage: cohmod validate mshr|reuse|lifetime|recall|directory "
          "[--grid NAME=V1,V2,...|"
          "NAME=LO:HI:STEP]...\n"
          "                            [--design lhs:N [--seed S]] "
          "[--presets P1,P2,...]\n"
          "                            [--workloads W1,W2,...] [--protocol "
          "P] [--quiet]\n                            [--replicates N]\n"
          "                            [--config ...] [--set ...] [--out "
          "DIR]\n\n"
          "Models: mshr (MSHR occupancy and P(all busy), models/mshr.h) and "
          "reuse (the\nL1 miss ratio from per-warp reuse distances, "
          "models/l1_predict.h).\n\n"
          "Runs the simulator at every point of the grid x workloads, "
          "calibrates the\nmodel on at most a fifth of the points (spread "
          "over the grid, the same ones\nevery time), predicts all of them "
          "and writes into DIR (default validate-<model>):\npoints.csv "
          "(every point: coordinates, workload, role calibration|heldout,"
          "\nmodel and simulated values, the simulation's 95% interval, "
          "relative and\nabsolute errors), summary.csv (held-out errors per "
          "quantity against the\ntargets: occupancy MARE <= 10%, P(full) "
          "mean |error| <= 0.05, L1 miss ratio\nmean |error| <= 0.05), "
          "calib.csv (usable with --config; mshr fits\nmodel.extra_latency, "
          "reuse model.l1_interleave_fraction: the share of the\nactive "
          "warps whose accesses interleave in the L1), params.csv, and "
          "figures\n(PNG and SVG): parity_<q>.png and "
          "<q>_vs_<last axis>_<workload>.png."
          "\n\n"
          "Coherence models, on the simulator with a profile (seed 000): "
          "lifetime (models/\nlifetime.h: p_hit, p_expired and the stall "
          "per L2 store under TC-Strong or per\nfence under TC-Weak, on "
          "tcsuo, tcs, tcsoo or tcw-fixed; targets: mean |error| <= 0.05 "
          "on\np_hit, MARE <= 15% on p_expired and stall) and recall (models/recall.h: recall "
          "messages per\ndirectory access on gpu-vini, gpu-vi or mesi; "
          "MARE <= 10%) and directory\n(models/directory.h: messages and "
          "flits per L1 access on any protocol;\nMARE <= 10%).  Each "
          "calibrates on a fifth of every workload's points\n(lifetime: "
          "the last fifth, the longest lifetimes when given in increasing"
          "\norder; a profile carries down in L, not up): a held-out point "
          "is predicted\nfrom the timing profile measured at its workload's "
          "calibration point on its\nown machine (preset), with its own "
          "parameters (nothing is fitted; calib.csv\nhas no rows).  "
          "Defaults:\n"
          "  lifetime: --protocol tcw-fixed --grid "
          "lifetime=400,1000,2500,6400,16000\n"
          "            --workloads bh,cl,stn, sim.max_instructions=300000 (every\n"
          "            run covers the same program; lifetime is tc.lifetime_strong\n"
          "            on tcs*, tc.lifetime_weak otherwise), --replicates 3\n"
          "  lifetime --protocol tcw: the adaptive predictor (seed 000 "
          "section 4.4):\n            its equilibrium (root of the drift) "
          "and its mean-field time average\n            over the run from "
          "tc.predictor_init, both against the simulated\n            "
          "tc.lifetime_mean (MARE <= 15%); --grid tc.t_hit=1,2,4,8,16\n"
          "            --workloads bh,kmn,stn, sim.max_cycles=300000 (the "
          "predictor needs\n            tens of thousands of cycles to "
          "approach its equilibrium)\n"
          "  recall:   --protocol gpu-vini --grid ratio=1,2,4,16 --grid "
          "ways=8,16,32\n            --workloads bh,cl,kmn (ratio is "
          "dir.ratio, ways dir.ways)\n"
          "  directory: --protocol gpu-vi --grid l1size=8K,16K,32K,64K,128K\n"
          "            --workloads kmn,bh,stn\n"
          "Unless --config is given, the machine is tc2013 with sim.max_cycles="
          "100000\nwhere not said above (lifetime: the sim.max_cycles default).\n\n"
          "  --grid SPEC       a grid axis over any parameter (repeatable: "
          "the axes form\n"
          "                    the grid); mshrs is l1.mshrs, l1size is "
          "l1.size (bytes,\n"
          "                    16K ...) and warps is sched.active_warps (at "
          "most\n"
          "                    gpu.warps_per_sm).  Default:\n"
          "                    mshr:  --grid mshrs=8,16,32 --grid "
          "warps=8,24,48\n"
          "                    reuse: --grid l1size=16K,32K,64K --grid "
          "warps=8,24,48\n"
          "  --workloads LIST  built-in profiles (default mshr: kmn,bfs,cfd;"
          " reuse:\n"
          "                    kmn,bfs,hsp,cfd)\n"
          "  --protocol P      mshr, reuse: the L1 protocol (default no-coh;"
          " the reuse model\n                    assumes it); lifetime, "
          "recall: the coherence protocol\n"
          "  --design lhs:N    instead of a grid, N points (at least) by "
          "sliced Latin\n"
          "                    hypercube over the model's design ranges "
          "(cohmod params\n"
          "                    --design: mshr l1.mshrs x sched.active_warps,"
          " reuse\n"
          "                    l1.size x sched.active_warps, directory "
          "l1.size, recall\n"
          "                    dir.ratio x dir.ways, lifetime the protocol's "
          "lifetime or\n"
          "                    tc.t_hit), over every built-in workload and "
          "preset: each\n"
          "                    workload x preset cell gets ceil(N / cells) "
          "points, a Latin\n"
          "                    hypercube of its own.  The machines are the "
          "presets\n"
          "                    themselves (mshr, reuse: runs cut at 300k "
          "cycles).  Every\n"
          "                    workload calibrates on at most a fifth of its "
          "points,\n"
          "                    drawn (coherence models: a fifth of each "
          "cell's, so 5\n"
          "                    points a cell: lhs:250 over 25 workloads x 2 "
          "presets).\n"
          "                    Also writes summary_workloads.csv, "
          "summary_presets.csv and\n"
          "                    validity.csv (the held-out error by region: "
          "what cohmod\n"
          "                    model's error columns read)\n"
          "  --seed S          the design's random stream (default 1): "
          "another seed,\n"
          "                    another design\n"
          "  --presets LIST    the machines (default with --design: every "
          "shipped preset,\n"
          "                    tc2013,li2014); each is the preset, then the "
          "model's\n"
          "                    settings, then --config files and --set\n"
          "  --quiet           no progress bar or summary on stderr\n"
          "  --replicates N    run every point N times, seeds sim.seed to "
          "sim.seed + N - 1\n"
          "                    (default 1; lifetime at a fixed L: 3): the "
          "simulated value is\n"
          "                    their mean with its 95% Student-t interval; "
          "the model is\n"
          "                    calibrated on the calibration points' runs "
          "pooled (coherence\n"
          "                    models: one profile; mshr, reuse: every run "
          "fitted)\n\n"
          "Without --config the mshr and reuse machine is tc2013 with gpu.sms=2, "
          "gpu.warps_per_sm=48 and\nsim.max_cycles=300000 (each run is cut "
          "after 300k cycles: occupancy is a\nsteady-state quantity), so "
          "the default grid runs in about a minute; --set\noverrides any "
          "of them, and the sim.sample* parameters choose sampled runs.\n",
          f);
    cli_print_common_help(f);
    cli_print_shard_help(f, 1);
}

enum {
    OPT_GRID = CLI_OPT_FIRST_FREE,
    OPT_WORKLOADS,
    OPT_PROTOCOL,
    OPT_QUIET,
    OPT_REPLICATES,
    OPT_DESIGN,
    OPT_SEED,
    OPT_PRESETS
};

typedef struct val_opts {
    cli_ctx *ctx;
    const char *grid[MAX_GRID];
    size_t ngrid;
    const char *workloads, *protocol;
    int quiet;
    unsigned replicates; /* 0: the model's default */
    size_t design;       /* --design lhs:N; 0: a grid */
    unsigned long seed;  /* --seed */
    int seeded;
    const char *presets; /* --presets */
} val_opts;

/* A whole number in [lo, hi], all of text. */
static int parse_count(const char *text, unsigned long lo, unsigned long hi,
                       unsigned long *v)
{
    char *end;
    if (!*text || *text == '-' || *text == '+') return -1;
    *v = strtoul(text, &end, 10);
    return *end || *v < lo || *v > hi ? -1 : 0;
}

static int own_option(int opt, const char *arg, void *u)
{
    val_opts *o = u;
    switch (opt) {
    case OPT_GRID:
        if (o->ngrid == MAX_GRID)
            return cli_usage_error(o->ctx, "at most %d --grid", MAX_GRID);
        o->grid[o->ngrid++] = arg;
        return 0;
    case OPT_WORKLOADS:
        o->workloads = arg;
        return 0;
    case OPT_PROTOCOL:
        o->protocol = arg;
        return 0;
    case OPT_QUIET:
        o->quiet = 1;
        return 0;
    case OPT_REPLICATES: {
        char *end;
        unsigned long v = strtoul(arg, &end, 10);
        if (end == arg || *end || v < 1 || v > 100 || arg[0] == '-')
            return cli_usage_error(o->ctx, "--replicates '%s': expected a "
                                   "whole number of runs, 1 to 100", arg);
        o->replicates = (unsigned)v;
        return 0;
    }
    case OPT_DESIGN: {
        unsigned long n;
        if (strncmp(arg, "lhs:", 4) || parse_count(arg + 4, 1, 100000, &n))
            return cli_usage_error(o->ctx, "--design '%s': expected lhs:N, "
                                   "N points from 1 to 100000", arg);
        o->design = n;
        return 0;
    }
    case OPT_SEED:
        if (parse_count(arg, 0, 4294967295UL, &o->seed))
            return cli_usage_error(o->ctx, "--seed '%s': expected a whole "
                                   "number from 0 to 4294967295", arg);
        o->seeded = 1;
        return 0;
    case OPT_PRESETS:
        o->presets = arg;
        return 0;
    default:
        return CM_EINPUT;
    }
}

/* One --grid spec, its alias replaced by the registry name (lifetime: the
 * one the protocol uses, tc.lifetime_strong or tc.lifetime_weak). */
static int parse_axis(cli_ctx *ctx, const char *spec,
                      const cm_protocol *proto, cm_sweep *sw)
{
    char buf[1024];
    const char *eq = strchr(spec, '=');
    size_t n = eq ? (size_t)(eq - spec) : strlen(spec);
    const char *name = NULL;
    for (size_t i = 0; i < sizeof grid_aliases / sizeof *grid_aliases; i++)
        if (strlen(grid_aliases[i].alias) == n &&
            !strncmp(spec, grid_aliases[i].alias, n))
            name = grid_aliases[i].param
                       ? grid_aliases[i].param
                       : proto->lifetime == CM_LIFE_STRONG
                             ? "tc.lifetime_strong"
                             : "tc.lifetime_weak";
    if (name && eq) {
        snprintf(buf, sizeof buf, "%s%s", name, eq);
        spec = buf;
    }
    cm_err err = {0};
    if (cm_sweep_parse(spec, sw, &err)) {
        cm_err_prefix(&err, "--grid");
        return cli_fail(ctx, &err);
    }
    return 0;
}

/* Splits a comma list in place into at most MAX_WORKLOADS names. */
static int split_workloads(cli_ctx *ctx, char *list, const char **names,
                           size_t *n)
{
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (*n == MAX_WORKLOADS)
            return cli_usage_error(ctx, "at most %d workloads",
                                   MAX_WORKLOADS);
        names[(*n)++] = tok;
    }
    if (*n == 0) return cli_usage_error(ctx, "--workloads: no workload");
    return 0;
}

/* Without --config, the model's default machine: its preset, then its
 * settings before the user's --set, so theirs win. */
static int add_default_machine(cli_ctx *ctx, const struct val_model *vm)
{
    const char *const *sets = vm->machine      ? vm->machine
                              : vm->coh_config ? coh_machine
                                               : small_machine;
    size_t k = vm->machine      ? vm->nmachine
               : vm->coh_config ? sizeof coh_machine / sizeof *coh_machine
                                : sizeof small_machine / sizeof *small_machine;
    if (ctx->nconfigs > 0) return 0;
    if (ctx->nsets + (int)k > CLI_MAX_SETS)
        return cli_usage_error(ctx, "too many --set options");
    if (vm->coh_config) ctx->configs[ctx->nconfigs++] = vm->coh_config;
    memmove(ctx->sets + k, ctx->sets, (size_t)ctx->nsets * sizeof *ctx->sets);
    for (size_t i = 0; i < k; i++) ctx->sets[i] = sets[i];
    ctx->nsets += (int)k;
    return 0;
}

#define MAX_PRESETS 8

/* The machines of --design or --presets: each preset, then the model's
 * settings (design_machine under --design, else its grid machine's), then
 * the user's --config files and --set, as cli_ctx_resolve applies them. */
static int preset_machines(cli_ctx *ctx, const struct val_model *vm,
                           const val_opts *o, char *list,
                           const char **names, cm_params *bases, size_t *n)
{
    *n = 0;
    if (o->presets) {
        for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save)) {
            if (*n == MAX_PRESETS)
                return cli_usage_error(ctx, "at most %d presets",
                                       MAX_PRESETS);
            if (!cm_preset_text(tok, NULL))
                return cli_usage_error(ctx, "--presets: no preset '%s' "
                                       "(shipped: tc2013, li2014)", tok);
            names[(*n)++] = tok;
        }
        if (*n == 0) return cli_usage_error(ctx, "--presets: no preset");
    } else {
        for (size_t i = 0; i < cm_preset_count() && *n < MAX_PRESETS; i++)
            names[(*n)++] = cm_preset_name(i);
    }
    const char *const *sets = o->design && vm->dmachine ? vm->dmachine
                              : vm->machine             ? vm->machine
                              : vm->coh_config          ? coh_machine
                                                        : small_machine;
    size_t k = o->design && vm->dmachine ? vm->ndmachine
               : vm->machine ? vm->nmachine
               : vm->coh_config ? sizeof coh_machine / sizeof *coh_machine
                                : sizeof small_machine / sizeof *small_machine;
    cm_err err = {0};
    for (size_t b = 0; b < *n; b++) {
        cm_params *p = &bases[b];
        cm_params_init(p);
        cm_status st = cm_params_load(p, names[b], &err);
        for (size_t i = 0; !st && i < k; i++)
            st = cm_params_assign(p, sets[i], &err);
        for (int i = 0; !st && i < ctx->nconfigs; i++)
            st = cm_params_load(p, ctx->configs[i], &err);
        for (int i = 0; !st && i < ctx->nsets; i++)
            st = cm_params_assign(p, ctx->sets[i], &err);
        if (!st) st = cm_params_validate(p, &err);
        if (st) {
            cm_err_prefix(&err, names[b]);
            return cli_fail(ctx, &err);
        }
    }
    return 0;
}

static void print_summary(const cm_validate_model *m,
                          const cm_validate_summary *s, double secs)
{
    fprintf(stderr, "cohmod validate: %s, %zu points (%zu calibration, "
            "%zu held out), %.1f s\n", m->name, s->points,
            s->calibration_points, s->heldout_points, secs);
    for (size_t q = 0; q < m->nqty; q++) {
        char line[1024];
        cm_validate_summary_line(&m->qty[q], s, q, line, sizeof line);
        fprintf(stderr, "  %s\n", line);
    }
    if (s->calib_note[0])
        fprintf(stderr, "  calibration: %s\n", s->calib_note);
    size_t nwl = 0;
    for (size_t g = 0; g < s->ngroups; g++) nwl += !s->group[g].preset;
    for (int preset = 1; preset >= 0; preset--) {
        if (!preset && nwl < 2) break; /* one workload: the lines above */
        int head = 0;
        for (size_t g = 0; g < s->ngroups; g++) {
            if (s->group[g].preset != preset) continue;
            if (!head++)
                fprintf(stderr, "  held out per %s%s:\n",
                        preset ? "preset" : "workload",
                        preset ? "" : " (a workload may reach twice the "
                                      "target)");
            char line[1024];
            cm_validate_group_line(m, &s->group[g], line, sizeof line);
            fprintf(stderr, "    %s\n", line);
        }
    }
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"grid", required_argument, NULL, OPT_GRID},
        {"workloads", required_argument, NULL, OPT_WORKLOADS},
        {"protocol", required_argument, NULL, OPT_PROTOCOL},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"replicates", required_argument, NULL, OPT_REPLICATES},
        {"design", required_argument, NULL, OPT_DESIGN},
        {"seed", required_argument, NULL, OPT_SEED},
        {"presets", required_argument, NULL, OPT_PRESETS},
        CLI_RESUME_LONGOPTS,
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, "validate");
    ctx.out_is_dir = 1;
    ctx.repeatable = "grid";
    val_opts o = {.ctx = &ctx};
    int rc = cli_parse(&ctx, argc, argv, longopts, own_option, &o, usage);
    if (rc != CLI_CONTINUE) return rc;
    const char *name;
    if ((rc = cli_one_positional(&ctx, argc, argv, MODEL_NAMES, &name)))
        return rc;
    const struct val_model *vm = NULL;
    for (size_t i = 0; !vm && i < sizeof val_models / sizeof *val_models;
         i++)
        if (!strcmp(name, val_models[i].model->name) &&
            (!val_models[i].only ||
             (o.protocol && !strcmp(o.protocol, val_models[i].only))))
            vm = &val_models[i];
    if (!vm)
        return cli_usage_error(&ctx, "unknown model '%s' (%s)", name,
                               MODEL_NAMES);
    const cm_validate_model *model = vm->model;
    const char *pname = o.protocol ? o.protocol : vm->protocol;
    const cm_protocol *proto = cm_protocol_find(pname);
    if (!proto)
        return cli_usage_error(&ctx, "--protocol '%s': expected %s", pname,
                               cm_protocol_names());
    if (o.seeded && !o.design)
        return cli_usage_error(&ctx, "--seed draws a --design: give "
                               "--design lhs:N");
    if (o.design && o.ngrid)
        return cli_usage_error(&ctx, "--design and --grid: give one (a "
                               "design draws its points from the ranges of "
                               "cohmod params --design)");
    int presets = o.design || o.presets;
    char outdir[1024];
    snprintf(outdir, sizeof outdir, "validate-%s", model->name);
    if (!ctx.out && (rc = cli_output_add(&ctx, outdir, 1))) return rc;
    /* Each simulation's statistics go to DIR/runs as it ends, read back
     * by the model and kept for --resume: each file is put in place as it
     * is complete, not with the others at the end. */
    if ((!presets && (rc = add_default_machine(&ctx, vm))) ||
        (rc = cli_ctx_resolve(&ctx)) || (rc = cli_outputs_unbatched(&ctx)))
        return rc;
    char preset_buf[1024];
    snprintf(preset_buf, sizeof preset_buf, "%s", o.presets ? o.presets : "");
    const char *base_names[MAX_PRESETS];
    cm_params bases[MAX_PRESETS];
    size_t nbases = 0;
    if (presets && (rc = preset_machines(&ctx, vm, &o, preset_buf, base_names,
                                         bases, &nbases)))
        return rc;
    if (o.ngrid == 0 && !o.design) {
        o.ngrid = vm->ngrid;
        memcpy(o.grid, vm->grid, vm->ngrid * sizeof *vm->grid);
    }
    /* a design spans every built-in workload unless told otherwise */
    char wl_buf[1024];
    size_t k = 0;
    wl_buf[0] = '\0';
    for (size_t i = 0; o.design && !o.workloads && i < cm_workload_builtin_count() &&
                       k < sizeof wl_buf;
         i++) {
        int w = snprintf(wl_buf + k, sizeof wl_buf - k, "%s%s", k ? "," : "",
                         cm_workload_builtin_name(i));
        k += w > 0 ? (size_t)w : 0;
    }
    if (!k)
        snprintf(wl_buf, sizeof wl_buf, "%s",
                 o.workloads ? o.workloads : vm->workloads);
    const char *workloads[MAX_WORKLOADS];
    size_t nwl;
    if ((rc = split_workloads(&ctx, wl_buf, workloads, &nwl))) return rc;
    cm_sweep axes[MAX_GRID];
    size_t naxes = 0;
    for (; naxes < o.ngrid && !rc; naxes++)
        rc = parse_axis(&ctx, o.grid[naxes], proto, &axes[naxes]);
    if (rc) naxes--; /* the failed one owns nothing */
    char label[64];
    snprintf(label, sizeof label, "runs of validate %s", model->name);
    cli_bar bar; /* runs done of all */
    cli_bar_start(&bar, label, o.quiet, 0);
    cm_run_plan plan;
    if (!rc) rc = cli_run_plan(&ctx, &plan);
    cm_validate_config cfg = {.base = &ctx.params,
                              .bases = bases,
                              .base_names = base_names,
                              .nbases = nbases,
                              .model = model,
                              .axes = axes,
                              .naxes = o.design ? 0 : naxes,
                              .design_n = o.design,
                              .design_seed = o.seeded ? o.seed : 1,
                              .workloads = workloads,
                              .nworkloads = nwl,
                              .protocol = proto,
                              .outdir = ctx.out ? ctx.out : outdir,
                              .replicates = o.replicates ? o.replicates
                                                         : vm->replicates,
                              .progress = cli_progress,
                              .progress_arg = &bar,
                              .mode = plan.mode,
                              .ranged = 1,
                              .resume = ctx.resume,
                              .plan = &plan};
    cm_shard_range(&ctx.shard, cm_validate_points(&cfg), &cfg.first,
                   &cfg.end);
    if (!rc && cfg.mode == CM_RUN_SHARD) { /* merge makes the results */
        cm_err err = {0};
        cm_validate_summary sum;
        if (cm_validate_run(&cfg, &sum, &err)) {
            rc = cli_fail(&ctx, &err);
        } else if (!o.quiet) {
            cli_bar_end(&bar, 1);
            fprintf(stderr, "cohmod validate: shard %u/%u: points %zu-%zu "
                    "of %zu in %s/runs\n", ctx.shard.index, ctx.shard.count,
                    cfg.first, cfg.end, cm_validate_points(&cfg), cfg.outdir);
        }
    } else if (!rc) {
        cm_err err = {0};
        cm_validate_summary sum;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (cm_validate_run(&cfg, &sum, &err)) {
            rc = cli_fail(&ctx, &err);
        } else if (!o.quiet) {
            cli_bar_end(&bar, 1);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            print_summary(model, &sum, (double)(t1.tv_sec - t0.tv_sec) +
                                           1e-9 * (double)(t1.tv_nsec -
                                                           t0.tv_nsec));
        }
    }
    for (size_t i = 0; i < naxes; i++) cm_sweep_free(&axes[i]);
    return rc;
}

const cli_command cli_cmd_validate = {
    "validate", "a model against the simulator over a grid, with errors",
    run};
