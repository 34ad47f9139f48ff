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
#include "data/table.h"
#include "models/lifetime.h"
#include "models/profile.h"

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
          "  --lifetimes SPEC lifetimes in cycles (default: "
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

#define MAX_LIFETIMES 100000

static int parse_number(const char *s, const char *end, double *v)
{
    char buf[64];
    size_t n = (size_t)(end - s);
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *e;
    *v = strtod(buf, &e);
    return *e || !isfinite(*v) || *v < 0 ? -1 : 0;
}

/* LO:HI:STEP or V1,V2,... into a malloc'd array; the default is the two
 * fixed lifetimes of the seed (tc.lifetime_strong, tc.lifetime_weak). */
static int parse_lifetimes(const cli_ctx *ctx, const char *spec, double **out,
                           size_t *n)
{
    *n = 0;
    double *v = malloc(MAX_LIFETIMES * sizeof *v);
    if (!v) return cli_usage_error(ctx, "out of memory");
    *out = v;
    if (!spec) {
        v[(*n)++] = ctx->params.tc_lifetime_strong;
        if (ctx->params.tc_lifetime_weak != v[0])
            v[(*n)++] = ctx->params.tc_lifetime_weak;
        return 0;
    }
    const char *c1 = strchr(spec, ':');
    if (c1) {
        const char *c2 = strchr(c1 + 1, ':');
        double lo, hi, step;
        if (!c2 || parse_number(spec, c1, &lo) ||
            parse_number(c1 + 1, c2, &hi) ||
            parse_number(c2 + 1, c2 + 1 + strlen(c2 + 1), &step) ||
            !(step > 0) || hi < lo)
            return cli_usage_error(ctx, "--lifetimes '%s': expected "
                                   "LO:HI:STEP with 0 <= LO <= HI, STEP > 0",
                                   spec);
        double count = floor((hi - lo) / step + 1e-9) + 1;
        if (count > MAX_LIFETIMES)
            return cli_usage_error(ctx, "--lifetimes '%s': more than %d "
                                   "values", spec, MAX_LIFETIMES);
        for (; *n < (size_t)count; (*n)++) v[*n] = lo + (double)*n * step;
        return 0;
    }
    for (const char *c = spec;; c++) {
        const char *comma = strchr(c, ',');
        const char *end = comma ? comma : c + strlen(c);
        if (*n == MAX_LIFETIMES || parse_number(c, end, &v[*n]))
            return cli_usage_error(ctx, "--lifetimes '%s': expected "
                                   "numbers >= 0 as V1,V2,... or "
                                   "LO:HI:STEP", spec);
        (*n)++;
        if (!comma) return 0;
        c = comma;
    }
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
    if (!cm_profile_read(lo.profile, &prof, &err) &&
        !cm_lifetime_input_from_profile(prof, &ctx.params, &in, &err))
        cm_lifetime_table(&in, lifetimes, n, lo.equilibrium, &t, &err);
    /* each TC protocol's columns, its lifetime the row's */
    rc = t ? cli_annotate(&ctx, "lifetime", NULL, &t) : 0;
    if (!rc) rc = cli_finish_table(&ctx, t, &err);
    else cm_table_free(t);
    cm_profile_free(prof);
    free(lifetimes);
    return rc;
}
