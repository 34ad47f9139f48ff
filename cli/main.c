/* main.c - `cohmod <command> [options]`: dispatch to the subcommands, and
 * the conventions every command-line tool keeps: --version, -h/--help,
 * `cohmod help CMD`, and the hidden --complete queries of the bash
 * completion (cli/complete.c). */
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "cli/cli.h"
#include "gen/version.h"

#define CLI_COMMAND(n) extern const cli_command cli_cmd_##n;
#include "gen/commands.h"
#undef CLI_COMMAND

static const cli_command *const commands[] = {
#define CLI_COMMAND(n) &cli_cmd_##n,
#include "gen/commands.h"
#undef CLI_COMMAND
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void print_help(FILE *f)
{
    fputs("cohmod - models of GPU and CPU-GPU memory systems, calibrated\n"
          "against a compact sampled simulator.\n\n"
          "Usage: cohmod <command> [options]\n"
          "  or:  cohmod <command> --help\n"
          "  or:  cohmod help <command>\n"
          "  or:  cohmod --version\n\nCommands:\n",
          f);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fputs("\nExit status: 0 success, 2 bad usage or input, 1 internal "
          "failure.\nData goes to stdout or --out; diagnostics to stderr.\n",
          f);
}

const cli_command *cli_find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(name, commands[i]->name) == 0) return commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    fprintf(stderr, "cohmod: unknown command '%s' (see cohmod --help)\n",
            name);
    return 2;
}

/* `cohmod help CMD [SUB]` is `cohmod CMD [SUB] --help`: the one help text
 * each command has (`help model recall` reaches a model's own). */
static int help(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stdout);
        return 0;
    }
    const cli_command *c = cli_find_command(argv[1]);
    if (!c) return unknown_command(argv[1]);
    if (argc > 4) {
        fprintf(stderr, "cohmod help: unexpected argument '%s'\n", argv[4]);
        return 2;
    }
    char *args[5];
    int n = 0;
    for (int k = 1; k < argc; k++) args[n++] = argv[k];
    args[n++] = (char *)"--help";
    args[n] = NULL;
    return c->run(n, args);
}

int main(int argc, char **argv)
{
    /* GSL's default handler aborts the process on any error it reports
     * (exit 134, a core and no word of which input caused it).  Off, every
     * GSL function returns its status instead, for its caller to turn
     * into an error value with a message, as library code does with any
     * other failure. */
    gsl_set_error_handler_off();
    if (argc < 2) {
        print_help(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        print_help(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("cohmod %s\n", COHMOD_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "help")) return help(argc - 1, argv + 1);
    if (!strcmp(argv[1], "--complete"))
        return cli_complete(commands, NCOMMANDS, argc - 2, argv + 2);
    const cli_command *c = cli_find_command(argv[1]);
    return c ? cli_run_command(c, argc - 1, argv + 1)
             : unknown_command(argv[1]);
}
