/* complete.c - `cohmod --complete WHAT`: the words the bash completion
 * (scripts/cohmod.bash) offers, asked of the binary so that the script
 * never carries a list of its own that could drift from the program.
 *
 *   commands          the subcommands
 *   options CMD...    the long options of a command (cli_parse lists the
 *                     command's own getopt table: CLI_LIST_OPTIONS)
 *   subcommands CMD   the first word after CMD: the models of model,
 *                     queue and validate
 *   params            every parameter name of the registry
 *   choices NAME      the choices of an enum parameter (yes, no for a
 *                     boolean; nothing for a number)
 *   presets           the embedded machine presets
 *   workloads         the built-in workload profiles
 *   protocols         the simulator's protocols (sim/protocol.h)
 * One word per line on stdout; exit 2 for an unknown WHAT. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "data/params.h"
#include "data/workload.h"
#include "sim/mem.h"
#include "sim/protocol.h"

/* "a|b|c" one per line. */
static void print_choices(const char *choices)
{
    for (const char *c = choices; c && *c;) {
        size_t n = strcspn(c, "|");
        printf("%.*s\n", (int)n, c);
        c += n + (c[n] == '|');
    }
}

int cli_complete(const cli_command *const *commands, size_t ncommands,
                 int argc, char **argv)
{
    const char *what = argc > 0 ? argv[0] : "";
    if (!strcmp(what, "commands")) {
        for (size_t i = 0; i < ncommands; i++) puts(commands[i]->name);
        puts("help");
    } else if (!strcmp(what, "options") && argc > 1) {
        for (size_t i = 0; i < ncommands; i++)
            if (!strcmp(argv[1], commands[i]->name)) {
                /* argv[1..] then the query, as the command's own argv */
                char *args[8];
                int n = 0;
                for (int k = 1; k < argc && n < 6; k++) args[n++] = argv[k];
                args[n++] = (char *)CLI_LIST_OPTIONS;
                args[n] = NULL;
                return commands[i]->run(n, args);
            }
    } else if (!strcmp(what, "subcommands") && argc > 1) {
        static const struct {
            const char *command;
            const char *(*name)(size_t i);
        } subs[] = {{"model", cli_model_name},
                    {"queue", cli_queue_model_name},
                    {"validate", cli_validate_model_name}};
        for (size_t k = 0; k < sizeof subs / sizeof *subs; k++)
            for (size_t i = 0;
                 !strcmp(argv[1], subs[k].command) && subs[k].name(i); i++)
                puts(subs[k].name(i));
    } else if (!strcmp(what, "params")) {
        for (size_t i = 0; i < cm_param_count(); i++)
            puts(cm_param_at(i)->name);
    } else if (!strcmp(what, "choices") && argc > 1) {
        const cm_param_info *pi = cm_param_find(argv[1]);
        if (pi && pi->type == CM_PT_ENUM) print_choices(pi->choices);
        if (pi && pi->type == CM_PT_BOOL) print_choices("yes|no");
    } else if (!strcmp(what, "presets")) {
        for (size_t i = 0; cm_preset_name(i); i++) puts(cm_preset_name(i));
    } else if (!strcmp(what, "workloads")) {
        for (size_t i = 0; cm_workload_builtin_name(i); i++)
            puts(cm_workload_builtin_name(i));
    } else if (!strcmp(what, "protocols")) {
        for (size_t i = 0; cm_protocol_at(i); i++)
            puts(cm_protocol_at(i)->name);
    } else {
        fprintf(stderr, "cohmod --complete: expected commands, options CMD, "
                "subcommands CMD, params, choices NAME, presets, workloads or "
                "protocols\n");
        return 2;
    }
    return 0;
}
