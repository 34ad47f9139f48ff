/* cmd_fit.c - `cohmod fit mshr`: calibrate the MSHR model's free inputs
 * against simulator runs (models/mshr_fit.h).  calib.csv holds
 * parameter,value,stderr rows of registry parameters, so it is itself a
 * configuration: `cohmod model mshr --config calib.csv`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "data/table.h"
#include "models/mshr_fit.h"

#define MAX_SAMPLES 256

static const char *const default_params[] = {"model.extra_latency",
                                             "model.svc_scv"};

static void usage(FILE *f)
{
    fputs("Usage: cohmod fit mshr --samples stats.csv [--samples more.csv]... "
          "[--param NAME]...\n"
          "                       [--quiet] [--config ...] [--set ...] "
          "--out calib.csv\n\n"
          "Fits the MSHR model's calibrated inputs (registry parameters) to "
          "runs of\n`cohmod sim --out stats.csv`.  Each run is modelled on "
          "the machine of its\nparameter dump (stats.params.csv beside it) "
          "with the workload inputs it\nmeasured (wl.l1_miss_ratio, "
          "wl.l2_miss_ratio, wl.merge_prob, wl.reqs_per_inst,\nwl.mem_rate); "
          "the model.* knobs come from --config/--set.  Weighted least\n"
          "squares (GSL trust region) on mean MSHR occupancy, P(all MSHRs "
          "busy) and the\nmiss round trip, weighted by each run's 95% "
          "interval.\n\n"
          "Each parameter is fitted within its registry range, narrowed "
          "to where the model\naccepts it on every sample's machine.  One "
          "the samples cannot identify (no\neffect on the fit, at its "
          "bound, standard error above its value, or 95%\ninterval across "
          "its range) is held at its configured value and said so; when\n"
          "none is identified the fit exits 2, naming the runs that would "
          "help (e.g. two\nor more MSHR counts or warp counts).\n\n"
          "Writes calib.csv (parameter,value,stderr,note: a config file, "
          "use it with\n--config; stderr is empty and note says why for "
          "a held parameter),\ncalib.residuals.csv (sample,quantity,sim,"
          "ci95_lo,ci95_hi,model,sigma,residual;\nthe interval cells are "
          "empty for runs without one) and calib.params.csv.\n\n"
          "  --samples F  a stats CSV of cohmod sim (repeatable)\n"
          "  --param NAME a parameter to fit (repeatable, 1 to 4; default "
          "model.extra_latency\n"
          "               and model.svc_scv)\n"
          "  --quiet      no summary on stderr\n",
          f);
    cli_print_common_help(f);
}

enum { OPT_SAMPLES = CLI_OPT_FIRST_FREE, OPT_PARAM, OPT_QUIET };

typedef struct fit_opts {
    cli_ctx *ctx;
    const char *samples[MAX_SAMPLES];
    size_t nsamples;
    const char *params[CM_LSQ_MAXP];
    size_t nparams;
    int quiet;
} fit_opts;

static int own_option(int opt, const char *arg, void *u)
{
    fit_opts *o = u;
    switch (opt) {
    case OPT_SAMPLES:
        if (o->nsamples == MAX_SAMPLES)
            return cli_usage_error(o->ctx, "at most %d --samples",
                                   MAX_SAMPLES);
        o->samples[o->nsamples++] = arg;
        return 0;
    case OPT_PARAM:
        if (o->nparams == CM_LSQ_MAXP)
            return cli_usage_error(o->ctx, "at most %d --param", CM_LSQ_MAXP);
        o->params[o->nparams++] = arg;
        return 0;
    case OPT_QUIET:
        o->quiet = 1;
        return 0;
    default:
        return CM_EINPUT;
    }
}

/* One sample: its statistics and the machine of its parameter dump. */
static cm_status load_sample(const char *path, const cm_params *knobs,
                             cm_mshr_obs *obs, cm_err *err)
{
    char dump[4096];
    if (cli_sibling_path(path, ".params.csv", dump, sizeof dump))
        return cm_err_set(err, CM_EINPUT, "%s: path too long", path);
    cm_params machine;
    cm_params_init(&machine);
    if (cm_params_load(&machine, dump, err)) {
        char msg[CM_ERR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return cm_err_set(err, CM_EINPUT,
                          "%s: cannot read the machine it ran on (%s): %s",
                          path, dump, msg);
    }
    cm_stat_row *rows = NULL;
    size_t n = 0;
    cm_status st = cm_stats_read_rows(path, &rows, &n, err);
    if (!st)
        st = cm_mshr_obs_from_rows(&machine, knobs, rows, n, path, obs, err);
    free(rows);
    return st;
}

static cm_status write_calib(const cm_mshr_fit *fit, const char *path,
                             cm_err *err)
{
    cm_table *t = NULL;
    cm_status st = cm_mshr_fit_table(fit, &t, err);
    if (!st) st = cm_table_write_file(t, path, err);
    cm_table_free(t);
    return st;
}

static cm_status write_residuals(const fit_opts *o, const cm_mshr_obs *obs,
                                 const cm_mshr_fit *fit, const char *path,
                                 cm_err *err)
{
    static const char *const header[] = {"sample", "quantity", "sim",
                                         "ci95_lo", "ci95_hi", "model",
                                         "sigma", "residual"};
    cm_table *t = cm_table_new(8, header);
    cm_mshr_ws *ws = cm_mshr_ws_new();
    cm_status st = t && ws ? CM_OK
                           : cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t i = 0; i < o->nsamples && !st; i++) {
        double model[CM_MQ_COUNT];
        st = cm_mshr_obs_predict(&obs[i], fit, ws, model, err);
        for (int q = 0; q < CM_MQ_COUNT && !st; q++) {
            if (!isfinite(obs[i].sim[q])) continue;
            double v[6] = {obs[i].sim[q], obs[i].lo[q], obs[i].hi[q],
                           model[q], obs[i].sigma[q],
                           (model[q] - obs[i].sim[q]) / obs[i].sigma[q]};
            char b[6][32];
            for (int k = 0; k < 6; k++) cm_fmt_optional(b[k], v[k]);
            const char *cells[] = {o->samples[i], cm_mshr_qty_name(q), b[0],
                                   b[1], b[2], b[3], b[4], b[5]};
            st = cm_table_append(t, cells, err);
        }
    }
    if (!st) st = cm_table_write_file(t, path, err);
    cm_table_free(t);
    cm_mshr_ws_free(ws);
    return st;
}

/* Nothing identified: one line naming why for each parameter, and what
 * runs would help.  Nothing has been written. */
static int fail_unidentified(const cli_ctx *ctx, const cm_mshr_obs *obs,
                             size_t n, const cm_mshr_fit *fit)
{
    char msg[CM_ERR_MSG_MAX] = "", part[320];
    size_t k = 0;
    for (size_t i = 0; i < fit->np && k < sizeof msg; i++) {
        char why[256];
        cm_mshr_fit_why(fit, i, why, sizeof why);
        int m = snprintf(msg + k, sizeof msg - k, "%s%s (%s)", i ? ", " : "",
                         fit->param[i]->name, why);
        k += m > 0 ? (size_t)m : 0;
    }
    cm_mshr_fit_advice(obs, n, fit, part, sizeof part);
    cm_err err;
    cm_err_set(&err, CM_EINPUT, "the samples identify no parameter: %s; %s",
               msg, part);
    return cli_fail(ctx, &err);
}

static void print_summary(const cm_mshr_fit *fit)
{
    fprintf(stderr, "cohmod fit: %zu samples, %zu residuals, %d iterations, "
            "chi2/dof %.3g\n", fit->observations, fit->residuals,
            fit->iterations, fit->chisq_dof);
    for (size_t k = 0; k < fit->np; k++) {
        char note[512];
        cm_mshr_fit_note(fit, k, note, sizeof note);
        if (fit->identifiable[k])
            fprintf(stderr, "  %s = %.6g +- %.3g\n", fit->param[k]->name,
                    fit->value[k], fit->stderr_[k]);
        else
            fprintf(stderr, "  %s: %s\n", fit->param[k]->name, note);
    }
    fprintf(stderr, "  occupancy MARE %.2f%%, P(full) mean abs error %.4f",
            100 * fit->occ_mare, fit->p_full_mae);
    if (isfinite(fit->latency_mare))
        fprintf(stderr, ", latency MARE %.2f%%", 100 * fit->latency_mare);
    fputc('\n', stderr);
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"samples", required_argument, NULL, OPT_SAMPLES},
        {"param", required_argument, NULL, OPT_PARAM},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, "fit");
    ctx.repeatable = "samples param";
    fit_opts o = {.ctx = &ctx};
    int rc = cli_parse(&ctx, argc, argv, longopts, own_option, &o, usage);
    if (rc != CLI_CONTINUE) return rc;
    const char *model;
    if ((rc = cli_one_positional(&ctx, argc, argv, "model (mshr)", &model)))
        return rc;
    if (strcmp(model, "mshr") != 0)
        return cli_usage_error(&ctx, "unknown model '%s' (mshr)", model);
    if (o.nsamples == 0)
        return cli_usage_error(&ctx, "which runs? (--samples stats.csv)");
    if (!ctx.out || !strcmp(ctx.out, "-"))
        return cli_usage_error(&ctx, "where to? (--out calib.csv)");
    if ((rc = cli_ctx_resolve(&ctx))) return rc;
    if (o.nparams == 0) {
        o.nparams = sizeof default_params / sizeof *default_params;
        memcpy(o.params, default_params, sizeof default_params);
    }
    const cm_param_info *params[CM_LSQ_MAXP];
    for (size_t k = 0; k < o.nparams; k++)
        if (!(params[k] = cm_param_find(o.params[k])))
            return cli_usage_error(&ctx, "--param '%s': no such parameter "
                                   "(see cohmod params)", o.params[k]);

    cm_err err = {0};
    cm_mshr_obs *obs = calloc(o.nsamples, sizeof *obs);
    if (!obs) {
        cm_err_set(&err, CM_EINTERNAL, "out of memory");
        return cli_fail(&ctx, &err);
    }
    cm_status st = CM_OK;
    for (size_t i = 0; i < o.nsamples && !st; i++)
        st = load_sample(o.samples[i], &ctx.params, &obs[i], &err);
    cm_mshr_fit fit;
    if (!st) st = cm_mshr_fit_run(obs, o.nsamples, params, o.nparams, &fit,
                                  &err);
    if (!st && fit.identified == 0) {
        rc = fail_unidentified(&ctx, obs, o.nsamples, &fit);
        free(obs);
        return rc;
    }
    /* The calibrated model on this configuration, as `cohmod model mshr
     * --config ... --config calib.csv` will run it: never write a
     * calib.csv it rejects. */
    cm_params calibrated = ctx.params;
    if (!st) {
        cm_mshr_fit_apply(&fit, &calibrated);
        cm_mshr_ws *ws = cm_mshr_ws_new();
        cm_mshr_input in;
        cm_mshr_result res;
        cm_mshr_input_from_params(&calibrated, &in);
        st = ws ? cm_mshr_solve(&in, ws, &res, NULL, &err)
                : cm_err_set(&err, CM_EINTERNAL, "out of memory");
        if (st) cm_err_prefix(&err, "the calibrated model on this --config");
        cm_mshr_ws_free(ws);
    }
    char resid[4096];
    if (!st && cli_sibling_path(ctx.out, ".residuals.csv", resid,
                                sizeof resid))
        st = cm_err_set(&err, CM_EINPUT, "--out path too long");
    if (!st) st = write_residuals(&o, obs, &fit, resid, &err);
    if (!st) ctx.params = calibrated;
    rc = st ? cli_fail(&ctx, &err) : cli_write_param_dump(&ctx, ctx.out);
    /* calib.csv last: its presence means the whole fit was written. */
    if (!rc && write_calib(&fit, ctx.out, &err)) rc = cli_fail(&ctx, &err);
    if (!rc && !o.quiet) print_summary(&fit);
    free(obs);
    return rc;
}

const cli_command cli_cmd_fit = {
    "fit", "calibrate a model's free inputs against simulator runs", run};
