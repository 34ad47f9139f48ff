/* cmd_model_directory.c - `cohmod model directory`: expected coherence
 * messages and flits per L1 access, by class, for one protocol or all
 * (models/directory.h), over a sweep grid, from a workload profile written
 * by the simulator.  The protocols' tables come from the simulator as data
 * (sim/protocol.h cm_protocol_export, read back by models/ptable.h), as
 * the model never calls the simulator.  cmd_model.c hands it the command
 * line when the model named is `directory`. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "data/sweep.h"
#include "data/table.h"
#include "models/directory.h"
#include "models/profile.h"
#include "sim/protocol.h"
#include "study/validate.h"

static void usage(FILE *f)
{
    fputs("Usage: cohmod model directory --profile FILE --protocol P|all\n"
          "                              [--sweep NAME=LO:HI:STEP | "
          "NAME=V1,V2,...]...\n"
          "                              [--config PRESET|FILE] [--set "
          "NAME=VALUE]... [--out F.csv]\n\n"
          "Directory bandwidth: expected NoC messages and flits per L1 "
          "access (a load,\n"
          "store or atomic line request), by message class.  The "
          "protocol's own L1 and\n"
          "L2 tables are weighted by the probabilities of their (state, "
          "event) pairs,\n"
          "derived from the profile's op mix, load reuse (gaps, LRU stack "
          "distances,\n"
          "what happened to the line in between), write sharers, TC "
          "lifetimes and\n"
          "recalls (models/directory.c).  Compare with sum(noc.msgs.*) / "
          "l1.accesses and\n"
          "noc.flits / l1.accesses of `cohmod sim`.\n\n"
          "The profile (quantity,lo,hi,value; models/profile.h) comes from "
          "`cohmod sim\n"
          "--profile-out F` on the same workload (any protocol, any "
          "machine).\n\n"
          "Output: one row per grid point and protocol: the swept "
          "parameters, protocol,\n"
          "msgs_per_access, flits_per_access, p_load_miss, then "
          "msgs.<class> per access.\n\n"
          "Options:\n"
          "  --profile FILE   the workload profile\n"
          "  --protocol P     no-l1 no-coh wt mesi gpu-vi gpu-vini tcsuo "
          "tcs tcsoo tcw\n"
          "                   tcw-fixed, or all (one row each)\n"
          "  --sweep SPEC     sweep any parameter, e.g. "
          "l1.size=16384,32768,65536;\n"
          "                   several --sweep form a grid (last fastest)\n",
          f);
    cli_print_validity_help(f);
    cli_print_common_help(f);
    cli_print_shard_help(f, 0);
}

typedef struct directory_protocols {
    cm_ptable *p; /* the tables as the model reads them */
    size_t n;
} directory_protocols;

static int directory_protocol(const cli_ctx *ctx, const char *name,
                              void *state)
{
    directory_protocols *d = state;
    cm_table *t = NULL;
    cm_err err = {0};
    int all = strcmp(name, "all") == 0;
    if (!all && !cm_protocol_find(name))
        return cli_usage_error(ctx, "unknown protocol '%s': expected %s, or "
                                    "all",
                               name, cm_protocol_names());
    cm_status st = cm_protocol_export_new(&t, &err);
    for (size_t i = 0; !st && i < cm_protocol_count(); i++)
        if (all || strcmp(cm_protocol_at(i)->name, name) == 0)
            st = cm_protocol_export(cm_protocol_at(i), t, &err);
    if (!st) st = cm_ptables_read(t, &d->p, &d->n, &err);
    cm_table_free(t);
    return st ? cli_fail(ctx, &err) : 0;
}

static cm_status directory_table(const cm_params *p, const void *state,
                                 const cm_profile *prof, cm_sweep *sweeps,
                                 size_t nsweeps, cm_table **out, cm_err *err)
{
    const directory_protocols *d = state;
    cm_status st = cm_directory_grid_table(p, d->p, d->n, prof, sweeps,
                                           nsweeps, cli_progress, NULL, out,
                                           err);
    cli_bar_end(NULL, !st);
    return st;
}

int cli_model_directory(int argc, char **argv)
{
    static const cli_profile_cmd cmd = {
        "model directory", "which protocol? (--protocol P or all)", usage,
        directory_protocol, directory_table};
    directory_protocols protos = {0};
    int rc = cli_run_profile_cmd(&cmd, &protos, argc, argv);
    cm_ptables_free(protos.p, protos.n);
    return rc;
}
