/* cmd_merge.c - `cohmod merge DIR... --out DIR`: the outputs of a run's
 * shards (--shard I/N) put back into the files one whole run writes.
 * The shards' files are gathered by the data layer (cm_shards_merge);
 * then a resumable run (validate, study) is finished by running its own
 * command with --finish on the merged directory, which computes no point
 * and makes the results, summary and figures from the merged tables. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *f)
{
    fputs("Usage: cohmod merge DIR... --out DIR\n\n"
          "Puts the shards of one run (each made with --shard I/N into a "
          "directory of\nits own) back together into --out: exactly the "
          "files one run without\n--shard writes.  Every shard I/N must be "
          "there and finished; a missing,\nunfinished or foreign one is an "
          "error naming it, and nothing is merged\naround it.  Sweeps "
          "(cohmod model ... --sweep) are merged row by row;\nvalidate and "
          "study are finished on the merged points (`--finish`), which\n"
          "draws their figures from the merged tables.  See "
          "docs/cluster.md.\n\n"
          "  --out DIR   the merged run (made if missing)\n"
          "  --help      this text\n",
          f);
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"out", required_argument, NULL, CLI_OPT_OUT},
        {"help", no_argument, NULL, CLI_OPT_HELP},
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, "merge");
    int rc = cli_parse(&ctx, argc, argv, longopts, NULL, NULL, usage);
    if (rc != CLI_CONTINUE) return rc;
    if (optind >= argc)
        return cli_usage_error(&ctx, "which shards? (their directories)");
    if (!ctx.out)
        return cli_usage_error(&ctx, "where to? (--out DIR)");
    /* --finish below reads the merged points back: they must be in place */
    if ((rc = cli_outputs_unbatched(&ctx))) return rc;
    cm_err err = {0};
    cm_run_manifest m;
    if (cm_shards_merge((const char *const *)argv + optind,
                        (size_t)(argc - optind), ctx.out, &m, &err))
        return cli_fail(&ctx, &err);
    if (m.nrows) { /* a sweep: its rows were the whole job */
        cm_run_manifest_free(&m);
        return 0;
    }
    /* The command's words, its arguments, --out and --finish. */
    size_t nwords = 1;
    for (const char *c = m.command; *c; c++) nwords += *c == ' ';
    char **args = calloc(nwords + m.nargs + 4, sizeof *args);
    char *words = strdup(m.command);
    const cli_command *cmd = NULL;
    int n = 0;
    if (args && words) {
        for (char *save = NULL, *w = strtok_r(words, " ", &save); w;
             w = strtok_r(NULL, " ", &save))
            args[n++] = w;
        for (size_t i = 0; i < m.nargs; i++) args[n++] = m.args[i];
        args[n++] = (char *)"--out";
        args[n++] = (char *)ctx.out;
        args[n++] = (char *)"--finish";
        cmd = n > 0 ? cli_find_command(args[0]) : NULL;
    }
    if (!cmd) {
        cm_err_set(&err, args && words ? CM_EINPUT : CM_EINTERNAL,
                   "the shards are of `cohmod %s`, which merge cannot "
                   "finish", m.command);
        rc = cli_fail(&ctx, &err);
    } else {
        rc = cmd->run(n, args);
    }
    free(args);
    free(words);
    cm_run_manifest_free(&m);
    return rc;
}

const cli_command cli_cmd_merge = {
    "merge", "put the shards of a run (--shard I/N) back together", run};
