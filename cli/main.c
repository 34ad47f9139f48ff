/* main.c - `cohmod <command> [options]`: dispatch to the subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

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
          "       cohmod <command> --help\n\nCommands:\n",
          f);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fputs("\nExit status: 0 success, 2 bad usage or input, 1 internal "
          "failure.\nData goes to stdout or --out; diagnostics to stderr.\n",
          f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        print_help(stdout);
        return 0;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(argv[1], commands[i]->name) == 0)
            return commands[i]->run(argc - 1, argv + 1);
    fprintf(stderr, "cohmod: unknown command '%s' (see cohmod --help)\n",
            argv[1]);
    return 2;
}
