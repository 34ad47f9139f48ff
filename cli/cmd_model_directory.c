/* cmd_model_directory.c - `cohmod model directory`: expected coherence
 * messages and flits per L1 access, by class, for one protocol or all
 * (models/directory.h), over a sweep grid, from a workload profile written
 * by the coherence simulator.  cmd_model.c hands it the command line when
 * the model named is `directory`. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "data/sweep.h"
#include "data/table.h"
#include "models/directory.h"
#include "models/profile.h"
#include "sim/coh.h"

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
          "noc.flits / l1.accesses of `cohmod sim --engine coh`.\n\n"
          "The profile (quantity,lo,hi,value; models/profile.h) comes from "
          "`cohmod sim\n"
          "--engine coh --profile-out F` on the same workload (any "
          "protocol, any machine).\n\n"
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
    cli_print_common_help(f);
}

#define MAX_PROTOCOLS 64

typedef struct directory_protocols {
    const cm_coh_protocol *p[MAX_PROTOCOLS];
    size_t n;
} directory_protocols;

static int directory_protocol(const cli_ctx *ctx, const char *name,
                              void *state)
{
    directory_protocols *d = state;
    d->n = 0;
    if (strcmp(name, "all") == 0) {
        for (size_t i = 0;
             i < cm_coh_protocol_count() && d->n < MAX_PROTOCOLS; i++)
            d->p[d->n++] = cm_coh_protocol_at(i);
    } else if ((d->p[0] = cm_coh_protocol_find(name))) {
        d->n = 1;
    } else {
        return cli_usage_error(ctx, "unknown protocol '%s' (see cohmod sim "
                                    "--help, or all)",
                               name);
    }
    return 0;
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
    directory_protocols protos;
    return cli_run_profile_cmd(&cmd, &protos, argc, argv);
}
