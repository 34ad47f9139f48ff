/* outputs.c - where a command's results go: every output checked before
 * the work starts, all of them put in place together at the end, and none
 * left half-written by SIGINT or SIGTERM (data/atomic.h does the files). */
#include "cli/cli.h"

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/atomic.h"

int cli_output_add(cli_ctx *ctx, const char *path, int is_dir)
{
    if (ctx->noutputs == CLI_MAX_OUTPUTS)
        return cli_usage_error(ctx, "too many outputs (at most %d)",
                               CLI_MAX_OUTPUTS);
    ctx->outputs[ctx->noutputs] = path;
    ctx->output_is_dir[ctx->noutputs++] = is_dir;
    return 0;
}

/* A shard's --out file goes into a directory of its own, which the shard
 * makes (cli_sweeps_shard): the directory must be one that can be made,
 * and the file not a directory. */
static cm_status check_shard_out(const char *path, cm_err *err)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) return cm_output_check_file(path, err);
    if (slash == dir) slash[1] = '\0';
    else *slash = '\0';
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return cm_err_set(err, CM_EINPUT, "%s: cannot create: it is a "
                          "directory", path);
    return cm_output_check_dir(dir, err);
}

int cli_check_outputs(const cli_ctx *ctx)
{
    const char *path[CLI_MAX_OUTPUTS + 1];
    int is_dir[CLI_MAX_OUTPUTS + 1], n = 0;
    if (ctx->out) {
        path[n] = ctx->out;
        is_dir[n++] = ctx->out_is_dir;
    }
    for (int i = 0; i < ctx->noutputs; i++) {
        path[n] = ctx->outputs[i];
        is_dir[n++] = ctx->output_is_dir[i];
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(path[i], path[j]) && strcmp(path[i], "-"))
                return cli_usage_error(ctx, "'%s' is named as two outputs",
                                       path[i]);
    for (int i = 0; i < n; i++) {
        if (!strcmp(path[i], "-")) continue;
        cm_err err = {0};
        cm_status st = is_dir[i] ? cm_output_check_dir(path[i], &err)
                       : i == 0 && ctx->out && ctx->shard.count
                           ? check_shard_out(path[i], &err)
                           : cm_output_check_file(path[i], &err);
        if (st) return cli_fail(ctx, &err);
    }
    return 0;
}

/* ---- interruption ------------------------------------------------------ */

/* Only what is async-signal-safe: unlink every temporary, then _exit with
 * the shell's convention for death by a signal. */
static void on_signal(int sig)
{
    cm_atomic_remove_all();
    _exit(128 + sig);
}

static void install_handlers(void)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
            continue; /* ignored, or someone else's: keep it */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

/* The renames of a batch run with SIGINT and SIGTERM held back, so an
 * interruption cannot leave some outputs renamed and others not. */
static cm_status commit_batch(cm_err *err)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &old);
    cm_status st = cm_atomic_batch_commit(err);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return st;
}

/* Whether the running command's outputs wait for its end (they do unless
 * it called cli_outputs_unbatched). */
static int batched;

int cli_run_command(const cli_command *cmd, int argc, char **argv)
{
    install_handlers();
    cm_err err = {0};
    if (cm_atomic_batch_begin(&err)) {
        fprintf(stderr, "cohmod %s: %s\n", cmd->name, err.msg);
        return CM_EINTERNAL;
    }
    batched = 1;
    int rc = cmd->run(argc, argv);
    if (!batched) return rc;
    batched = 0;
    if (rc != 0) {
        cm_atomic_batch_abort();
    } else if (commit_batch(&err)) {
        fprintf(stderr, "cohmod %s: %s\n", cmd->name, err.msg);
        rc = (int)err.code;
    }
    return rc;
}

int cli_outputs_unbatched(const cli_ctx *ctx)
{
    if (!batched) return 0; /* not under cli_run_command, or already */
    batched = 0;
    cm_err err = {0};
    return commit_batch(&err) ? cli_fail(ctx, &err) : 0;
}
