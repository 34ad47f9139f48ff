/* cli.h - shared plumbing of the cohmod subcommands.
 *
 * Each subcommand lives in cli/cmd_<name>.c and defines
 *     const cli_command cli_cmd_<name> = {"name", "summary", run};
 * The Makefile lists them into build/gen/commands.h, so adding a file adds a
 * command.  Every subcommand accepts the common options below, parsed by
 * getopt_long; the parameter registry does all value parsing. */
#ifndef CM_CLI_H
#define CM_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "data/err.h"
#include "data/params.h"
#include "data/progress.h"
#include "data/rows.h"
#include "data/shard.h"
#include "data/sweep.h"
#include "data/table.h"
#include "models/reuse_stream.h"
#include "sim/protocol.h"

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} cli_command;

/* `cohmod --complete WHAT [ARG...]` (cli/complete.c): argv starts at WHAT. */
int cli_complete(const cli_command *const *commands, size_t ncommands,
                 int argc, char **argv);

/* As a command's last argument, cli_parse answers it by listing the
 * command's long options, one "--name" a line, and returning 0: the
 * completion's source of options. */
#define CLI_LIST_OPTIONS "--complete-options"

/* The models of `cohmod model`, `cohmod queue` and `cohmod validate`:
 * the i-th name, NULL past the end. */
const char *cli_model_name(size_t i);
const char *cli_queue_model_name(size_t i);
const char *cli_validate_model_name(size_t i);

/* `cohmod model <name>` for models with options of their own
 * (cli/cmd_model_<name>.c, called by cmd_model.c with argv[0] = name). */
int cli_model_lifetime(int argc, char **argv);
int cli_model_recall(int argc, char **argv);
int cli_model_directory(int argc, char **argv);

/* Options every subcommand takes.  Their short codes are >= 0x100 so that a
 * command's own single-letter options never collide. */
enum {
    CLI_OPT_CONFIG = 0x100,
    CLI_OPT_SET,
    CLI_OPT_OUT,
    CLI_OPT_HELP,
    /* the trace options of reuse, mrc and cache (cli/trace_opts.c) */
    CLI_OPT_FORMAT,
    CLI_OPT_LINE,
    CLI_OPT_OPS,
    CLI_OPT_PER,
    /* sharded and resumable runs (data/shard.h) */
    CLI_OPT_SHARD,
    CLI_OPT_RESUME,
    CLI_OPT_FINISH,
    CLI_OPT_QUIET, /* reuse, mrc, cache: no progress bar */
    CLI_OPT_VALIDITY, /* the model commands: --validity FILE|none */
    CLI_OPT_FIRST_FREE /* commands number their own long options from here */
};

#define CLI_COMMON_LONGOPTS                                   \
    {"config", required_argument, NULL, CLI_OPT_CONFIG},      \
    {"set", required_argument, NULL, CLI_OPT_SET},            \
    {"out", required_argument, NULL, CLI_OPT_OUT},            \
    {"help", no_argument, NULL, CLI_OPT_HELP}

/* --shard I/N: every command that sweeps (model's --sweep, validate,
 * study).  --resume and --finish: the commands whose points are files in
 * their output directory (validate, study). */
#define CLI_SHARD_LONGOPTS                                    \
    {"shard", required_argument, NULL, CLI_OPT_SHARD}
#define CLI_RESUME_LONGOPTS                                   \
    CLI_SHARD_LONGOPTS,                                       \
    {"resume", no_argument, NULL, CLI_OPT_RESUME},            \
    {"finish", no_argument, NULL, CLI_OPT_FINISH}

#define CLI_MAX_SETS 256
#define CLI_MAX_ARGS 512
#define CLI_MAX_ALIASES 16
#define CLI_MAX_CONFIGS 8
#define CLI_MAX_OUTPUTS 8

typedef struct cli_ctx {
    const char *command; /* for messages: "cohmod <command>: ..." */
    /* --config, in order (later ones override), e.g. a machine preset and
     * then the calib.csv of `cohmod fit`; none: the embedded default */
    const char *configs[CLI_MAX_CONFIGS];
    int nconfigs;
    const char *sets[CLI_MAX_SETS];
    int nsets;
    char aliases[CLI_MAX_ALIASES][160]; /* "param=value" of shorthands */
    int naliases;
    const char *out; /* --out, or NULL */
    int out_is_dir;  /* --out names a directory (study, validate) */
    /* The command's own options that may be given more than once, space
     * separated ("sweep", "samples param"); --config and --set always
     * may.  Any other option with a value is an error when repeated. */
    const char *repeatable;
    /* Outputs besides --out (--plot, --profile-out, a default directory),
     * checked with --out before any work starts (cli_ctx_resolve). */
    const char *outputs[CLI_MAX_OUTPUTS];
    int output_is_dir[CLI_MAX_OUTPUTS];
    int noutputs;
    int help;
    cm_params params;
    cm_shard shard;     /* --shard; count 0 without */
    int resume, finish; /* --resume, --finish */
    const char *validity; /* --validity, or NULL: the shipped table */
    size_t shard_points; /* a sharded sweep: the whole grid's points */
    /* The arguments in canonical form ("--name", its value, ...; the
     * positional ones last), less those that change no result: a run's
     * identity in its manifest (data/shard.h). */
    const char *args[CLI_MAX_ARGS];
    size_t nargs;
    char argbuf[8192];
    size_t argbuf_len;
} cli_ctx;

void cli_ctx_init(cli_ctx *ctx, const char *command);

/* Handles one common option.  Returns 1 if it was one, 0 if not, and -1 on
 * a usage error (already reported). */
int cli_common_opt(cli_ctx *ctx, int opt, const char *arg);

/* Applies --config, then every --set in order, then cross-checks, then
 * checks that every output (--out and cli_output_add's) can be written, so
 * a bad path fails before the work rather than after it.  Reports and
 * returns the exit status (0 on success). */
int cli_ctx_resolve(cli_ctx *ctx);

/* A parameter set with --set that the protocol does not use (tc.* without
 * timestamps, dir.* without a directory) is a usage error: silently
 * ignoring it would mislead.  Returns the exit status (0: none). */
int cli_check_protocol_params(const cli_ctx *ctx, const cm_protocol *proto);

/* One more output of the command (is_dir: a directory it fills), to be
 * checked by cli_ctx_resolve; "-" (stdout) is not checked.  Returns 0 or
 * the exit status after reporting. */
int cli_output_add(cli_ctx *ctx, const char *path, int is_dir);

/* The output check of cli_ctx_resolve alone: the same path named twice is
 * a usage error, an unwritable one an input error naming it. */
int cli_check_outputs(const cli_ctx *ctx);

/* Runs a command the way `cohmod` does: its outputs as one batch
 * (data/atomic.h), renamed into place together when it returns 0 and
 * removed otherwise, and SIGINT/SIGTERM removing every temporary before
 * exiting with 128 + the signal (130, 143).  Handlers are installed only
 * where the signal's disposition is the default, so an embedding program's
 * own (or an ignored SIGINT in a background job) is kept. */
int cli_run_command(const cli_command *cmd, int argc, char **argv);

/* For a command whose outputs are meant to be there one by one: a
 * resumable run (validate, study) reads its points back from the files it
 * wrote and keeps them for --resume, its manifest saying whether the whole
 * run completed, and merge finishes such a run on the files it has just
 * gathered.  Puts what was written so far in place and ends the batch:
 * from here each output is renamed as soon as it is complete (and SIGINT
 * or SIGTERM still remove the temporaries).  Returns 0 or the exit status
 * after reporting. */
int cli_outputs_unbatched(const cli_ctx *ctx);

/* Prints "cohmod <command>: <message>" on stderr and returns the status. */
int cli_fail(const cli_ctx *ctx, const cm_err *err);
int cli_usage_error(const cli_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The --sweep options of a model command: kept as given while options are
 * parsed, then parsed into grid axes (last fastest). */
#define CLI_MAX_SWEEPS 16
typedef struct cli_sweeps {
    const char *spec[CLI_MAX_SWEEPS];
    cm_sweep sweep[CLI_MAX_SWEEPS];
    size_t nspec, nparsed;
} cli_sweeps;

/* One more --sweep; a usage error (exit 2) past CLI_MAX_SWEEPS. */
int cli_sweeps_add(const cli_ctx *ctx, cli_sweeps *s, const char *arg);
/* Parses every spec; the first bad one is the error. */
cm_status cli_sweeps_parse(cli_sweeps *s, cm_err *err);
void cli_sweeps_free(cli_sweeps *s);

/* A model command that reads a timing profile (models/profile.h) and sweeps
 * parameters: `cohmod model NAME --profile F --protocol P [--sweep ...]`
 * (recall, directory).  The runner parses the options, hands --protocol to
 * parse_protocol (which fills the command's own state and returns 0 or an
 * exit status), reads the profile, parses the sweeps, and writes table's
 * result with the parameter dump beside it. */
struct cm_profile;
typedef struct cli_profile_cmd {
    const char *command;        /* "model recall" */
    const char *which_protocol; /* the usage error without --protocol */
    void (*usage)(FILE *f);
    int (*parse_protocol)(const cli_ctx *ctx, const char *name, void *state);
    cm_status (*table)(const cm_params *p, const void *state,
                       const struct cm_profile *prof, cm_sweep *sweeps,
                       size_t nsweeps, cm_table **out, cm_err *err);
} cli_profile_cmd;

int cli_run_profile_cmd(const cli_profile_cmd *cmd, void *state, int argc,
                        char **argv);

/* The option loop every subcommand shares.  Runs getopt_long over argv:
 * the common options fill ctx, any other option goes to own(opt, optarg,
 * arg), which returns 0 when it took it and an exit status otherwise.
 * Returns CLI_CONTINUE when the command should go on (positional arguments
 * start at optind), 0 after printing usage for --help, or an exit status.
 * With usage NULL, --help only sets ctx->help, for commands whose help
 * depends on their positional arguments.
 * The parameter values are not resolved yet: call cli_ctx_resolve. */
#define CLI_CONTINUE (-1)
int cli_parse(cli_ctx *ctx, int argc, char **argv,
              const struct option *longopts,
              int (*own)(int opt, const char *optarg, void *arg), void *arg,
              void (*usage)(FILE *f));

/* Exactly one positional argument after the options (e.g. the trace):
 * stores it in *arg and returns 0, or reports and returns 2.  `what` names
 * it in the message: "which trace?". */
int cli_one_positional(const cli_ctx *ctx, int argc, char **argv,
                       const char *what, const char **arg);

/* Reports what getopt_long rejected: opt is '?' (unknown option) or ':'
 * (missing value). */
int cli_bad_option(const cli_ctx *ctx, int opt, char **argv);

/* The help text of the common options, for every --help. */
void cli_print_common_help(FILE *f);

/* The help text of --shard (and with resumable, --resume and --finish). */
void cli_print_shard_help(FILE *f, int resumable);

/* The run plan of a resumable command from its options: its mode, shard,
 * resume and identity (ctx->command and ctx->args).  Returns 0 or the
 * exit status of a usage error (--finish with --shard). */
int cli_run_plan(const cli_ctx *ctx, cm_run_plan *plan);

/* A model command's sweeps under --shard: the grid runs only the shard's
 * points (sweeps->sweep[0].shard).  Needs --out and a --sweep; returns 0
 * or the exit status.  Call after cli_sweeps_parse succeeded. */
int cli_sweeps_shard(cli_ctx *ctx, cli_sweeps *s);

/* The command whose name is name (cli/main.c), or NULL. */
const cli_command *cli_find_command(const char *name);

/* The end of a command that computed a table: writes t to ctx->out with
 * the parameter dump beside it (and, for a shard, its manifest
 * <out>.run.csv) and returns 0, or, when t is NULL or cannot be written,
 * reports err (the computation's error) and returns its exit status.
 * Frees t either way. */
int cli_finish_table(const cli_ctx *ctx, cm_table *t, cm_err *err);

/* The end of a command that streams its rows: opens ctx->out (stdout when
 * NULL), lets produce put the header and rows into the sink as it computes
 * them, commits, and writes the parameter dump beside it.  Returns 0 or the
 * exit status after reporting the first error. */
struct cm_row_sink;
typedef cm_status (*cli_produce_fn)(const struct cm_row_sink *sink,
                                    void *arg, cm_err *err);
int cli_stream_rows(const cli_ctx *ctx, cli_produce_fn produce, void *arg);

/* Writes the parameter dump beside a result file: for "dir/x.csv" it writes
 * "dir/x.params.csv".  Nothing is written for stdout. */
int cli_write_param_dump(const cli_ctx *ctx, const char *result_path);

/* The name of a file beside a result: "dir/x.csv" and ".params.csv" give
 * "dir/x.params.csv".  Returns 0, or -1 when it does not fit in len. */
int cli_sibling_path(const char *result_path, const char *suffix, char *buf,
                     size_t len);

/* ---- progress (data/progress.h) ---- */

/* A command's progress bar on stderr: drawn only when stderr is a
 * terminal and the command was not given --quiet. */
typedef struct cli_bar {
    cm_progress_bar bar;
    int on;
} cli_bar;

/* (Re)starts b labelled `label` (an open bar's line is ended first, as
 * completed); known_total as cm_progress_bar_init (cli_file_bytes for a
 * trace). */
void cli_bar_start(cli_bar *b, const char *label, int quiet,
                   size_t known_total);

/* A cm_progress_fn; arg is the cli_bar to draw (NULL: one shared bar,
 * unlabelled, on when stderr is a terminal). */
void cli_progress(size_t done, size_t total, void *arg);

/* Ends the line of an open bar (NULL: whichever is open), at its total
 * when the work completed (ok), so that what the command prints next
 * starts a line of its own.  cli_fail and cli_usage_error call it. */
void cli_bar_end(cli_bar *b, int ok);

/* The size of a regular file, 0 for anything else: the work a streamed
 * trace is. */
size_t cli_file_bytes(const char *path);

/* ---- trace options shared by reuse, mrc and cache ---- */

#define CLI_TRACE_LONGOPTS                                    \
    {"format", required_argument, NULL, CLI_OPT_FORMAT},      \
    {"line", required_argument, NULL, CLI_OPT_LINE},          \
    {"ops", required_argument, NULL, CLI_OPT_OPS}

#define CLI_QUIET_LONGOPT {"quiet", no_argument, NULL, CLI_OPT_QUIET}

/* ---- error estimates of model results (cli/validity.c) ---- */

#define CLI_VALIDITY_LONGOPT \
    {"validity", required_argument, NULL, CLI_OPT_VALIDITY}

/* Replaces *t, a result of `cohmod model <model>`, by the same table with
 * the held-out error of every validated column beside it and where it
 * holds (data/validity.h), from --validity FILE or the shipped
 * data/validity.csv; --validity none leaves *t alone.  protocol: the one
 * the rows are under when t has no protocol column (NULL: any).  Returns
 * 0 or the exit status after reporting (*t is then left as it was). */
int cli_annotate(const cli_ctx *ctx, const char *model, const char *protocol,
                 cm_table **t);

/* The same for rows streamed to a sink: *to takes the result's rows
 * (header first) and passes them on to next annotated, a chunk at a time,
 * so memory stays bounded.  *an is NULL (and *to next) under --validity
 * none.  cli_annot_close flushes what is left unless status (the
 * producer's) is an error, frees *an, and returns a flush error. */
typedef struct cli_annot cli_annot;
cm_status cli_annot_open(const cli_ctx *ctx, const char *model,
                         const char *protocol, const cm_row_sink *next,
                         cli_annot **an, cm_row_sink *to, cm_err *err);
cm_status cli_annot_close(cli_annot *an, cm_status status, cm_err *err);

/* Help text of --validity and the columns it adds. */
void cli_print_validity_help(FILE *f);

typedef struct cli_trace_opts {
    const char *format; /* NULL: auto */
    const char *ops;    /* NULL: all */
    const char *per;    /* NULL: all */
    int quiet;          /* --quiet (CLI_QUIET_LONGOPT) */
    cli_bar bar;        /* the pass over the trace: bytes of the file */
} cli_trace_opts;

/* Takes one trace option: 1 if it was one, 0 if not.  --line B is
 * shorthand for --set l1.line=B. */
int cli_trace_opt(cli_ctx *ctx, cli_trace_opts *t, int opt, const char *arg);

/* Shorthand options: --NAME V queues --set PARAM=V; returns 0 or an exit
 * status. */
int cli_alias_set(cli_ctx *ctx, const char *param, const char *value);

/* Fills a reuse request from the resolved parameters (l1.line,
 * reuse.exact_bins, sim.seed) and the trace options; sample may be NULL
 * (exact).  (Re)starts t's bar for the pass over the trace, and the
 * request reports to it.  Returns 0 or the exit status after reporting. */
int cli_reuse_request(cli_ctx *ctx, cli_trace_opts *t,
                      const char *path, const char *sample,
                      cm_reuse_request *req);

/* The rest of a trace command's setup after cli_parse: exactly one
 * positional argument (the trace), the parameters resolved, and the
 * request filled.  Returns 0 or the exit status after reporting. */
int cli_trace_setup(cli_ctx *ctx, int argc, char **argv,
                    cli_trace_opts *t, const char *sample,
                    cm_reuse_request *req);

/* Help text of the trace options. */
void cli_print_trace_help(FILE *f);


#endif
