/* cmd_model_lifetime.c - `cohmod model lifetime`: lifetime-prediction
 * outcomes of Temporal Coherence over a list of lifetimes, from a workload
 * timing profile (models/lifetime.h).  cmd_model.c hands it the arguments
 * after `model`; the Makefile keeps cmd_model_*.c out of the top-level
 * command list. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "data/rows.h"
#include "data/sweep.h"
#include "data/table.h"
#include "models/lifetime.h"
#include "models/profile.h"
#include "models/profile_check.h"

static void usage(FILE *f)
{
    fputs("Usage: cohmod model lifetime --profile FILE [--lifetimes "
          "LO:HI:STEP | V1,V2,...]\n"
          "                             [--equilibrium] [--config "
          "PRESET|FILE] [--set NAME=VALUE]...\n"
          "                             [--out F.csv]\n\n"
          "Temporal Coherence (seed 000) against the lifetime L, from a "
          "workload timing\nprofile (quantity,lo,hi,value; see "
          "models/profile.h).  One row per lifetime:\n"
          "  p_hit, p_expired, p_evicted, p_unused  what ends an L1 "
          "copy's use first\n"
          "                    (TC-Weak; p_hit_strong, p_expired_strong: "
          "TC-Strong)\n"
          "  store_stall       TC-Strong stall per store at the L2, cycles "
          "(TCSUO)\n"
          "  store_stall_shared  the same where private writes do not stall"
          " (TCS, TCSOO)\n"
          "  hol_delay         queueing delay per request at an in-order "
          "L2 bank (M/G/1);\n"
          "                    inf where the bank saturates (utilisation "
          ">= 1: no steady\n"
          "                    state, the queue grows without bound)\n"
          "  fence_wait        TC-Weak wait of a fence for its stores' acks "
          "and GWCT, cycles\n"
          "  parked_mshrs      L2 MSHRs per bank holding unexpired "
          "evicted timestamps\n"
          "  drift             the lifetime predictor's drift, cycles per "
          "cycle per bank\n"
          "  store_stall_rate, parked_rate  stall cycles and parkings per "
          "cycle\n"
          "  speed_strong, speed_weak  the machine's speed at L over the "
          "profile's own\n"
          "                    (TC-Strong, TC-Weak); store stalls and fence "
          "waits are\n"
          "                    scaled by it (1 when the profile lacks "
          "rate.lifetime)\n\n"
          "Options:\n"
          "  --profile FILE   the workload timing profile (required)\n"
          "  --lifetimes SPEC lifetimes in cycles, whole numbers in the "
          "range of\n"
          "                   tc.lifetime_* (default: "
          "tc.lifetime_strong,tc.lifetime_weak)\n"
          "  --equilibrium    add the predictor's equilibrium (root of the "
          "drift in\n"
          "                   [tc.predictor_min, tc.predictor_max]), which "
          "bound clamps it,\n"
          "                   and the mean of its stationary distribution "
          "as columns\n"
          "Predictor constants: tc.t_hit, tc.t_evict, tc.t_write, "
          "tc.write_update.\n",
          f);
    cli_print_validity_help(f);
    cli_print_common_help(f);
}

enum { OPT_PROFILE = CLI_OPT_FIRST_FREE, OPT_LIFETIMES, OPT_EQUILIBRIUM };

typedef struct lifetime_opts {
    const char *profile, *lifetimes;
    int equilibrium;
} lifetime_opts;

static int own_option(int opt, const char *arg, void *u)
{
    lifetime_opts *lo = u;
    if (opt == OPT_PROFILE) lo->profile = arg;
    else if (opt == OPT_LIFETIMES) lo->lifetimes = arg;
    else if (opt == OPT_EQUILIBRIUM) lo->equilibrium = 1;
    else return CM_EINPUT;
    return 0;
}

/* LO:HI:STEP or V1,V2,... into a malloc'd array, parsed as a sweep of
 * tc.lifetime_strong so that every lifetime is a whole number within the
 * registry's range for tc.lifetime_* (4294967296 is refused, not computed
 * into an infinite delay); the default is the two fixed lifetimes of the
 * seed (tc.lifetime_strong, tc.lifetime_weak). */
static int parse_lifetimes(const cli_ctx *ctx, const char *spec, double **out,
                           size_t *n)
{
    *n = 0;
    *out = NULL;
    if (!spec) {
        double *v = malloc(2 * sizeof *v);
        if (!v) return cli_usage_error(ctx, "out of memory");
        v[(*n)++] = ctx->params.tc_lifetime_strong;
        if (ctx->params.tc_lifetime_weak != v[0])
            v[(*n)++] = ctx->params.tc_lifetime_weak;
        *out = v;
        return 0;
    }
    static const char param[] = "tc.lifetime_strong=";
    char *full = malloc(sizeof param + strlen(spec));
    cm_err err = {0};
    cm_sweep sw;
    if (!full) return cli_usage_error(ctx, "out of memory");
    snprintf(full, sizeof param + strlen(spec), "%s%s", param, spec);
    cm_status st = cm_sweep_parse(full, &sw, &err);
    free(full);
    if (st) {
        char what[256];
        snprintf(what, sizeof what, "--lifetimes '%.200s'", spec);
        cm_err_prefix(&err, what);
        return cli_fail(ctx, &err);
    }
    *out = sw.values; /* the sweep's array, handed over */
    *n = sw.n;
    return 0;
}

/* The table is built whole: one lifetime's row times their number,
 * against mem.limit, before the rest are computed. */
static cm_status estimate(const cli_ctx *ctx, const cm_lifetime_input *in,
                          double *lifetimes, size_t n, int equilibrium,
                          cm_err *err)
{
    if (n <= 1) return CM_OK;
    cm_table *t = NULL;
    cm_status st = cm_lifetime_table(in, lifetimes, 1, equilibrium, &t, err);
    if (!st)
        st = cm_rows_check_memory(cm_table_bytes(t), (double)n,
                                  ctx->params.mem_limit, err);
    cm_table_free(t);
    return st;
}

int cli_model_lifetime(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"profile", required_argument, NULL, OPT_PROFILE},
        {"lifetimes", required_argument, NULL, OPT_LIFETIMES},
        {"equilibrium", no_argument, NULL, OPT_EQUILIBRIUM},
        CLI_VALIDITY_LONGOPT,
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, "model lifetime");
    lifetime_opts lo = {0};
    int rc = cli_parse(&ctx, argc, argv, longopts, own_option, &lo, usage);
    if (rc != CLI_CONTINUE) return rc;
    if (optind < argc)
        return cli_usage_error(&ctx, "unexpected argument '%s'",
                               argv[optind]);
    if (!lo.profile)
        return cli_usage_error(&ctx, "which profile? (--profile FILE)");
    rc = cli_ctx_resolve(&ctx);
    if (rc) return rc;

    double *lifetimes = NULL;
    size_t n = 0;
    rc = parse_lifetimes(&ctx, lo.lifetimes, &lifetimes, &n);
    if (rc) {
        free(lifetimes);
        return rc;
    }
    cm_err err = {0};
    cm_profile *prof = NULL;
    cm_table *t = NULL;
    cm_lifetime_input in;
    if (!cm_profile_check_file(lo.profile, &err) &&
        !cm_profile_read(lo.profile, &prof, &err) &&
        !cm_lifetime_input_from_profile(prof, &ctx.params, &in, &err) &&
        !estimate(&ctx, &in, lifetimes, n, lo.equilibrium, &err))
        cm_lifetime_table(&in, lifetimes, n, lo.equilibrium, &t, &err);
    /* each TC protocol's columns, its lifetime the row's */
    rc = t ? cli_annotate(&ctx, "lifetime", NULL, &t) : 0;
    if (!rc) rc = cli_finish_table(&ctx, t, &err);
    else cm_table_free(t);
    cm_profile_free(prof);
    free(lifetimes);
    return rc;
}
