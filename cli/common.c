/* common.c - options and error reporting shared by all subcommands. */
#include "cli/cli.h"

#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/atomic.h"
#include "data/rows.h"
#include "models/profile.h"
#include "models/profile_check.h"

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
        if (ctx->nconfigs == CLI_MAX_CONFIGS) {
            cli_usage_error(ctx, "too many --config options (at most %d)",
                            CLI_MAX_CONFIGS);
            return -1;
        }
        ctx->configs[ctx->nconfigs++] = arg;
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
    case CLI_OPT_SHARD: {
        cm_err err = {0};
        if (cm_shard_parse(arg, &ctx->shard, &err)) {
            cli_fail(ctx, &err);
            return -1;
        }
        return 1;
    }
    case CLI_OPT_RESUME:
        ctx->resume = 1;
        return 1;
    case CLI_OPT_FINISH:
        ctx->finish = 1;
        return 1;
    case CLI_OPT_VALIDITY:
        ctx->validity = arg;
        return 1;
    default:
        return 0;
    }
}

/* Options that change no result stay out of a run's identity. */
static int changes_result(const char *name)
{
    static const char *const inert[] = {"out",    "shard", "resume",
                                        "finish", "quiet", "help"};
    for (size_t i = 0; i < sizeof inert / sizeof *inert; i++)
        if (!strcmp(name, inert[i])) return 0;
    return 1;
}

/* Appends one word to ctx->args: with a prefix, both copied into
 * ctx->argbuf; without, the pointer itself (argv outlives the run). */
static int record_arg(cli_ctx *ctx, const char *prefix, const char *text)
{
    if (ctx->nargs == CLI_MAX_ARGS) return -1;
    if (!prefix) {
        ctx->args[ctx->nargs++] = text;
        return 0;
    }
    size_t need = strlen(prefix) + strlen(text) + 1;
    if (ctx->argbuf_len + need > sizeof ctx->argbuf) return -1;
    char *w = ctx->argbuf + ctx->argbuf_len;
    snprintf(w, need, "%s%s", prefix, text);
    ctx->argbuf_len += need;
    ctx->args[ctx->nargs++] = w;
    return 0;
}

int cli_ctx_resolve(cli_ctx *ctx)
{
    cm_err err = {0};
    for (int i = 0; i < ctx->nconfigs; i++)
        if (cm_params_load(&ctx->params, ctx->configs[i], &err))
            return cli_fail(ctx, &err);
    for (int i = 0; i < ctx->nsets; i++)
        if (cm_params_assign(&ctx->params, ctx->sets[i], &err))
            return cli_fail(ctx, &err);
    if (cm_params_validate(&ctx->params, &err)) return cli_fail(ctx, &err);
    return cli_check_outputs(ctx);
}

int cli_fail(const cli_ctx *ctx, const cm_err *err)
{
    cli_bar_end(NULL, 0); /* a message never joins a bar's line */
    fprintf(stderr, "cohmod %s: %s\n", ctx->command, err->msg);
    return err->code ? (int)err->code : 1;
}

int cli_usage_error(const cli_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    cli_bar_end(NULL, 0);
    fprintf(stderr, "cohmod %s: ", ctx->command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see cohmod %s --help)\n", ctx->command);
    return CM_EINPUT;
}

/* Whether the option may be given more than once: --config and --set, and
 * the command's own ctx->repeatable. */
static int is_repeatable(const cli_ctx *ctx, const char *name)
{
    if (!strcmp(name, "config") || !strcmp(name, "set")) return 1;
    size_t n = strlen(name);
    for (const char *s = ctx->repeatable; s && *s;) {
        size_t len = strcspn(s, " ");
        if (len == n && !strncmp(s, name, n)) return 1;
        s += len;
        s += strspn(s, " ");
    }
    return 0;
}

#define CLI_MAX_LONGOPTS 64

int cli_parse(cli_ctx *ctx, int argc, char **argv,
              const struct option *longopts,
              int (*own)(int opt, const char *optarg, void *arg), void *arg,
              void (*usage)(FILE *f))
{
    int opt, li;
    if (argc >= 2 && !strcmp(argv[argc - 1], CLI_LIST_OPTIONS)) {
        for (const struct option *o = longopts; o->name; o++)
            printf("--%s\n", o->name);
        return 0;
    }
    /* A value given twice would silently lose the first (issue 23): each
     * option with a value counts its uses, by its index in longopts. */
    unsigned char seen[CLI_MAX_LONGOPTS] = {0};
    /* 0, not 1: glibc then starts afresh, forgetting also where a previous
     * parse stopped inside an argument, which may be gone by now (the
     * commands run more than once in one process under the fuzzer). */
    optind = 0;
    opterr = 0; /* our own one-line messages instead of getopt's */
    while ((li = -1, opt = getopt_long(argc, argv, ":", longopts, &li)) !=
           -1) {
        if (opt == '?' || opt == ':') return cli_bad_option(ctx, opt, argv);
        if (li >= 0 && li < CLI_MAX_LONGOPTS &&
            longopts[li].has_arg != no_argument &&
            !is_repeatable(ctx, longopts[li].name) && seen[li]++)
            return cli_usage_error(ctx, "--%s given twice (it takes one "
                                   "value)", longopts[li].name);
        if (li >= 0 && changes_result(longopts[li].name) &&
            (record_arg(ctx, "--", longopts[li].name) ||
             (optarg && record_arg(ctx, NULL, optarg))))
            return cli_usage_error(ctx, "too many arguments");
        int h = cli_common_opt(ctx, opt, optarg);
        if (h < 0) return CM_EINPUT;
        if (h) continue;
        int rc = own ? own(opt, optarg, arg) : CM_EINPUT;
        if (rc) return rc;
    }
    if (ctx->help && usage) {
        usage(stdout);
        return 0;
    }
    for (int i = optind; i < argc; i++) /* the positional ones, last */
        if (record_arg(ctx, NULL, argv[i]))
            return cli_usage_error(ctx, "too many arguments");
    return CLI_CONTINUE;
}

int cli_one_positional(const cli_ctx *ctx, int argc, char **argv,
                       const char *what, const char **arg)
{
    if (optind >= argc) return cli_usage_error(ctx, "which %s?", what);
    if (optind + 1 < argc)
        return cli_usage_error(ctx, "unexpected argument '%s'",
                               argv[optind + 1]);
    *arg = argv[optind];
    return 0;
}

int cli_bad_option(const cli_ctx *ctx, int opt, char **argv)
{
    const char *word = optind > 0 ? argv[optind - 1] : "?";
    if (opt == ':')
        return cli_usage_error(ctx, "option '%s' needs a value", word);
    return cli_usage_error(ctx, "unknown option '%s'", word);
}

void cli_print_common_help(FILE *f)
{
    fputs("Common options:\n"
          "  --config PRESET|FILE  start from a machine preset (tc2013, "
          "li2014) or a\n"
          "                        CSV of parameter,value rows; default "
          "tc2013; repeatable,\n"
          "                        later ones override (e.g. --config li2014 "
          "--config calib.csv)\n"
          "  --set NAME=VALUE      override one parameter (repeatable; see "
          "cohmod params)\n"
          "  --out PATH            where to write the result (default: "
          "stdout)\n"
          "  --help                this text\n",
          f);
}

void cli_print_shard_help(FILE *f, int resumable)
{
    fputs("Cluster runs (docs/cluster.md):\n"
          "  --shard I/N           run only the I-th of N slices of the "
          "points, for\n"
          "                        `cohmod merge` to put together with the "
          "other shards\n",
          f);
    if (resumable)
        fputs("  --resume              keep the points whose output is "
              "already in the output\n"
              "                        directory (a run that was killed) and "
              "run the rest\n"
              "  --finish              run no point: write the results from "
              "the points\n"
              "                        already in the output directory (what "
              "merge does)\n",
              f);
}

int cli_run_plan(const cli_ctx *ctx, cm_run_plan *plan)
{
    if (ctx->finish && ctx->shard.count)
        return cli_usage_error(ctx, "--finish and --shard: a shard's results "
                               "are made by merge");
    *plan = (cm_run_plan){ctx->finish        ? CM_RUN_FINISH
                          : ctx->shard.count ? CM_RUN_SHARD
                                             : CM_RUN_WHOLE,
                          ctx->shard, ctx->resume, ctx->command, ctx->args,
                          ctx->nargs};
    return 0;
}

int cli_sweeps_shard(cli_ctx *ctx, cli_sweeps *s)
{
    if (!ctx->shard.count) return 0;
    if (s->nparsed == 0)
        return cli_usage_error(ctx, "--shard splits the points of --sweep: "
                               "give at least one");
    if (!ctx->out || !strcmp(ctx->out, "-"))
        return cli_usage_error(ctx, "--shard needs --out: each shard writes "
                               "a file for cohmod merge");
    /* each shard writes into a directory of its own: make it */
    char dir[4096];
    cm_err err = {0};
    snprintf(dir, sizeof dir, "%s", ctx->out);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) *slash = '\0';
    if (slash && slash != dir && cm_mkdir_p(dir, &err))
        return cli_fail(ctx, &err);
    s->sweep[0].shard = ctx->shard;
    ctx->shard_points = 1;
    for (size_t i = 0; i < s->nparsed; i++) ctx->shard_points *= s->sweep[i].n;
    return 0;
}

/* A sweep shard's manifest beside its result: the result's rows are the
 * shard's points. */
static int write_shard_manifest(const cli_ctx *ctx)
{
    char path[4096];
    cm_err err = {0};
    if (cli_sibling_path(ctx->out, ".run.csv", path, sizeof path)) {
        cm_err_set(&err, CM_EINPUT, "--out path too long");
        return cli_fail(ctx, &err);
    }
    const char *slash = strrchr(ctx->out, '/');
    const char *rows[1] = {slash ? slash + 1 : ctx->out};
    cm_run_plan plan;
    int rc = cli_run_plan(ctx, &plan);
    if (!rc && cm_run_manifest_write(path, &plan, ctx->shard_points, 1, rows,
                                     1, &err))
        rc = cli_fail(ctx, &err);
    return rc;
}

int cli_sibling_path(const char *result_path, const char *suffix, char *buf,
                     size_t len)
{
    size_t n = strlen(result_path);
    const char *dot = strrchr(result_path, '.');
    const char *slash = strrchr(result_path, '/');
    if (dot && (!slash || dot > slash)) n = (size_t)(dot - result_path);
    if (n + strlen(suffix) >= len) return -1;
    snprintf(buf, len, "%.*s%s", (int)n, result_path, suffix);
    return 0;
}

int cli_sweeps_add(const cli_ctx *ctx, cli_sweeps *s, const char *arg)
{
    if (s->nspec == CLI_MAX_SWEEPS)
        return cli_usage_error(ctx, "at most %d --sweep options",
                               CLI_MAX_SWEEPS);
    s->spec[s->nspec++] = arg;
    return 0;
}

cm_status cli_sweeps_parse(cli_sweeps *s, cm_err *err)
{
    for (; s->nparsed < s->nspec; s->nparsed++) {
        cm_status st = cm_sweep_parse(s->spec[s->nparsed],
                                      &s->sweep[s->nparsed], err);
        if (st) return st;
    }
    return CM_OK;
}

void cli_sweeps_free(cli_sweeps *s)
{
    for (size_t i = 0; i < s->nparsed; i++) cm_sweep_free(&s->sweep[i]);
    s->nparsed = 0;
}

int cli_write_param_dump(const cli_ctx *ctx, const char *result_path)
{
    if (!result_path || strcmp(result_path, "-") == 0) return 0;
    struct stat sb; /* a device or pipe has no place beside it */
    if (stat(result_path, &sb) == 0 && !S_ISREG(sb.st_mode)) return 0;
    char path[4096];
    if (cli_sibling_path(result_path, ".params.csv", path, sizeof path)) {
        cm_err err;
        cm_err_set(&err, CM_EINPUT, "--out path too long");
        return cli_fail(ctx, &err);
    }
    cm_err err = {0};
    if (cm_params_write_dump(&ctx->params, path, &err))
        return cli_fail(ctx, &err);
    return 0;
}

/* The bar whose line is open on stderr, if any: one terminal, one line. */
static cli_bar *open_bar;

void cli_bar_start(cli_bar *b, const char *label, int quiet,
                   size_t known_total)
{
    if (open_bar == b) cli_bar_end(b, 1);
    cm_progress_bar_init(&b->bar, label, known_total);
    b->on = !quiet && isatty(STDERR_FILENO);
}

void cli_progress(size_t done, size_t total, void *arg)
{
    static cli_bar shared;
    static int shared_ready;
    cli_bar *b = arg;
    if (!b) {
        if (!shared_ready) cli_bar_start(&shared, NULL, 0, 0);
        shared_ready = 1;
        b = &shared;
    }
    if (!b->on) return;
    if (open_bar && open_bar != b) cli_bar_end(open_bar, 0);
    char text[256];
    if (cm_progress_bar_report(&b->bar, done, total, text, sizeof text)) {
        fputs(text, stderr);
        fflush(stderr);
    }
    open_bar = b->bar.open ? b : NULL;
}

void cli_bar_end(cli_bar *b, int ok)
{
    if (!b) b = open_bar;
    if (!b || !b->on) return;
    char text[256];
    if (cm_progress_bar_finish(&b->bar, ok, text, sizeof text)) {
        fputs(text, stderr);
        fflush(stderr);
    }
    if (open_bar == b) open_bar = NULL;
}

size_t cli_file_bytes(const char *path)
{
    struct stat sb;
    if (!path || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
    return (size_t)sb.st_size;
}

int cli_alias_set(cli_ctx *ctx, const char *param, const char *value)
{
    if (ctx->naliases == CLI_MAX_ALIASES || ctx->nsets == CLI_MAX_SETS)
        return cli_usage_error(ctx, "too many options");
    char *slot = ctx->aliases[ctx->naliases++];
    snprintf(slot, sizeof ctx->aliases[0], "%s=%s", param, value);
    ctx->sets[ctx->nsets++] = slot;
    return 0;
}

enum { PCMD_SWEEP = CLI_OPT_FIRST_FREE, PCMD_PROFILE, PCMD_PROTOCOL };

typedef struct profile_cmd_opts {
    cli_ctx *ctx;
    cli_sweeps sweeps;
    const char *profile, *protocol;
} profile_cmd_opts;

static int profile_cmd_option(int opt, const char *arg, void *u)
{
    profile_cmd_opts *o = u;
    if (opt == PCMD_PROFILE) {
        o->profile = arg;
    } else if (opt == PCMD_PROTOCOL) {
        o->protocol = arg;
    } else if (opt == PCMD_SWEEP) {
        return cli_sweeps_add(o->ctx, &o->sweeps, arg);
    } else {
        return CM_EINPUT;
    }
    return 0;
}

/* The command's table is built whole: its size is estimated from one
 * point (the first value of every sweep) before the grid runs. */
static cm_status profile_cmd_estimate(const cli_profile_cmd *cmd,
                                      const cm_params *p, void *state,
                                      const cm_profile *prof, cli_sweeps *sw,
                                      cm_err *err)
{
    cm_sweep one[CLI_MAX_SWEEPS];
    size_t points = 1, first, end;
    for (size_t i = 0; i < sw->nparsed; i++) {
        points *= sw->sweep[i].n;
        one[i] = sw->sweep[i];
        one[i].n = 1;
        one[i].shard.count = 0; /* the one point is the first, unsliced */
    }
    if (sw->nparsed) { /* a shard holds only its slice */
        cm_shard_range(&sw->sweep[0].shard, points, &first, &end);
        points = end - first;
    }
    if (points <= 1) return CM_OK;
    cm_table *t = NULL;
    cm_status st = cmd->table(p, state, prof, one, sw->nparsed, &t, err);
    if (!st)
        st = cm_rows_check_memory(cm_table_bytes(t), (double)points,
                                  p->mem_limit, err);
    cm_table_free(t);
    return st;
}

int cli_run_profile_cmd(const cli_profile_cmd *cmd, void *state, int argc,
                        char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"sweep", required_argument, NULL, PCMD_SWEEP},
        {"profile", required_argument, NULL, PCMD_PROFILE},
        {"protocol", required_argument, NULL, PCMD_PROTOCOL},
        CLI_VALIDITY_LONGOPT,
        CLI_SHARD_LONGOPTS,
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, cmd->command);
    ctx.repeatable = "sweep";
    profile_cmd_opts o = {.ctx = &ctx};
    int rc = cli_parse(&ctx, argc, argv, longopts, profile_cmd_option, &o,
                       cmd->usage);
    if (rc != CLI_CONTINUE) return rc;
    if (optind < argc)
        return cli_usage_error(&ctx, "unexpected argument '%s'",
                               argv[optind]);
    if (!o.profile)
        return cli_usage_error(&ctx, "which profile? (--profile FILE)");
    if (!o.protocol) return cli_usage_error(&ctx, "%s", cmd->which_protocol);
    if ((rc = cmd->parse_protocol(&ctx, o.protocol, state)) ||
        (rc = cli_ctx_resolve(&ctx)))
        return rc;
    cm_err err = {0};
    cm_profile *prof = NULL;
    cli_sweeps *sw = &o.sweeps;
    cm_table *t = NULL;
    if (!cm_profile_check_file(o.profile, &err) &&
        !cm_profile_read(o.profile, &prof, &err) &&
        !cli_sweeps_parse(sw, &err) && !(rc = cli_sweeps_shard(&ctx, sw)) &&
        !profile_cmd_estimate(cmd, &ctx.params, state, prof, sw, &err))
        cmd->table(&ctx.params, state, prof, sw->sweep, sw->nparsed, &t,
                   &err);
    /* "model recall" is model recall's; its rows name their protocol */
    if (!rc && t) rc = cli_annotate(&ctx, cmd->command + 6, NULL, &t);
    if (!rc) rc = cli_finish_table(&ctx, t, &err);
    else cm_table_free(t);
    cli_sweeps_free(sw);
    cm_profile_free(prof);
    return rc;
}

int cli_stream_rows(const cli_ctx *ctx, cli_produce_fn produce, void *arg)
{
    cm_err err = {0};
    cm_csv_writer *w = NULL;
    cm_status st = cm_csv_writer_open(ctx->out, &w, &err);
    if (!st) {
        cm_row_sink sink = cm_row_sink_writer(w);
        st = produce(&sink, arg, &err);
        cli_bar_end(NULL, st == CM_OK);
        if (st) cm_csv_writer_abort(w);
        else st = cm_csv_writer_commit(w, &err);
    }
    int rc = st ? cli_fail(ctx, &err) : cli_write_param_dump(ctx, ctx->out);
    if (!rc && ctx->shard.count) rc = write_shard_manifest(ctx);
    return rc;
}

int cli_finish_table(const cli_ctx *ctx, cm_table *t, cm_err *err)
{
    int rc = t && !cm_table_write_file(t, ctx->out, err)
                 ? cli_write_param_dump(ctx, ctx->out)
                 : cli_fail(ctx, err);
    if (!rc && ctx->shard.count) rc = write_shard_manifest(ctx);
    cm_table_free(t);
    return rc;
}

int cli_check_protocol_params(const cli_ctx *ctx, const cm_protocol *proto)
{
    for (int i = 0; i < ctx->nsets; i++) {
        char name[128];
        size_t n = strcspn(ctx->sets[i], "=");
        snprintf(name, sizeof name, "%.*s", (int)n, ctx->sets[i]);
        if (!cm_protocol_uses_param(proto, name))
            return cli_usage_error(ctx, "--set %s: protocol %s does not use "
                                   "it (it keeps no %s), so it would be "
                                   "ignored",
                                   ctx->sets[i], proto->name,
                                   strncmp(name, "dir.", 4) == 0
                                       ? "separate directory"
                                   : proto->lifetime == CM_LIFE_NONE
                                       ? "timestamps"
                                       : "such lifetime");
    }
    return 0;
}
