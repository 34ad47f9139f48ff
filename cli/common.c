/* common.c - options and error reporting shared by all subcommands. */
#include "cli/cli.h"

#include <stdarg.h>
#include <string.h>

void cli_ctx_init(cli_ctx *ctx, const char *command)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->command = command;
    cm_params_init(&ctx->params);
}

int cli_common_opt(cli_ctx *ctx, int opt, const char *arg)
{
    switch (opt) {
    case CLI_OPT_CONFIG:
        ctx->config = arg;
        return 1;
    case CLI_OPT_SET:
        if (ctx->nsets == CLI_MAX_SETS) {
            cli_usage_error(ctx, "too many --set options (at most %d)",
                            CLI_MAX_SETS);
            return -1;
        }
        ctx->sets[ctx->nsets++] = arg;
        return 1;
    case CLI_OPT_OUT:
        ctx->out = arg;
        return 1;
    case CLI_OPT_HELP:
        ctx->help = 1;
        return 1;
    default:
        return 0;
    }
}

int cli_ctx_resolve(cli_ctx *ctx)
{
    cm_err err = {0};
    if (ctx->config && cm_params_load(&ctx->params, ctx->config, &err))
        return cli_fail(ctx, &err);
    for (int i = 0; i < ctx->nsets; i++)
        if (cm_params_assign(&ctx->params, ctx->sets[i], &err))
            return cli_fail(ctx, &err);
    if (cm_params_validate(&ctx->params, &err)) return cli_fail(ctx, &err);
    return 0;
}

int cli_fail(const cli_ctx *ctx, const cm_err *err)
{
    fprintf(stderr, "cohmod %s: %s\n", ctx->command, err->msg);
    return err->code ? (int)err->code : 1;
}

int cli_usage_error(const cli_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "cohmod %s: ", ctx->command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see cohmod %s --help)\n", ctx->command);
    return CM_EINPUT;
}

int cli_bad_option(const cli_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    /* getopt_long has already printed what was wrong; keep it one line. */
    (void)argv;
    fprintf(stderr, "cohmod %s: bad usage (see cohmod %s --help)\n",
            ctx->command, ctx->command);
    return CM_EINPUT;
}

void cli_print_common_help(FILE *f)
{
    fputs("Common options:\n"
          "  --config PRESET|FILE  start from a machine preset (tc2013, "
          "li2014) or a\n"
          "                        CSV of parameter,value rows; default "
          "tc2013\n"
          "  --set NAME=VALUE      override one parameter (repeatable; see "
          "cohmod params)\n"
          "  --out PATH            where to write the result (default: "
          "stdout)\n"
          "  --help                this text\n",
          f);
}

int cli_write_param_dump(const cli_ctx *ctx, const char *result_path)
{
    if (!result_path || strcmp(result_path, "-") == 0) return 0;
    char path[4096];
    size_t n = strlen(result_path);
    const char *dot = strrchr(result_path, '.');
    const char *slash = strrchr(result_path, '/');
    if (dot && (!slash || dot > slash)) n = (size_t)(dot - result_path);
    if (n + 16 >= sizeof path) {
        cm_err err;
        cm_err_set(&err, CM_EINPUT, "--out path too long");
        return cli_fail(ctx, &err);
    }
    snprintf(path, sizeof path, "%.*s.params.csv", (int)n, result_path);
    cm_err err = {0};
    if (cm_params_write_dump(&ctx->params, path, &err))
        return cli_fail(ctx, &err);
    return 0;
}
