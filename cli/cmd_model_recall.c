/* cmd_model_recall.c - `cohmod model recall`: recall rate of a finite
 * coherence directory (models/recall.h) over a grid of directory sizes and
 * associativities, from a workload profile written by the simulator.
 * cmd_model.c hands it the command line when the model named is `recall`;
 * the Makefile keeps cmd_model_*.c out of the top-level command list. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "data/sweep.h"
#include "data/table.h"
#include "models/profile.h"
#include "models/recall.h"


static void usage(FILE *f)
{
    fputs("Usage: cohmod model recall --profile FILE --protocol "
          "gpu-vi|gpu-vini|mesi\n"
          "                           [--sweep NAME=LO:HI:STEP | "
          "NAME=V1,V2,...]...\n"
          "                           [--config PRESET|FILE] [--set "
          "NAME=VALUE]... [--out F.csv]\n\n"
          "Recalls per directory access = P(access evicts an entry) x "
          "P(a listed sharer\n"
          "is still live) x E[listed sharers], for the L2-as-directory of "
          "GPU-VI and MESI\n"
          "(l2.banks, l2.bank_size, l2.line, l2.ways) or the GPU-VIni "
          "directory of\n"
          "dir.ratio x (gpu.sms x l1.size / l1.line) entries, dir.ways "
          "ways.  Eviction from\n"
          "the set-associative LRU model of the stack distances; liveness "
          "from the L1\n"
          "residency against the evicted entry's age (models/recall.c).\n\n"
          "The profile (quantity,lo,hi,value; models/profile.h) must "
          "hold the distributions\n"
          "dir.stack_distance (lines; inf = cold), l1.residency (cycles), "
          "dir.sharers\n"
          "(L1s listed per evicted entry) and the rate rate.dir_accesses "
          "(per cycle, whole\n"
          "machine); rate.dir_footprint (distinct lines) is optional.\n\n"
          "Output: one row per grid point: the swept parameters, protocol, "
          "dir_entries,\n"
          "dir_sets, dir_ways, p_dir_miss, p_dir_evict, p_live, "
          "mean_sharers,\n"
          "recalls_per_access (live copies), recall_msgs_per_access (RCLs "
          "sent),\n"
          "recalls_per_cycle, recall_msgs_per_cycle, inv_msgs_per_access "
          "(RCL + INVACK),\n"
          "inv_flits_per_cycle, l2_evict_per_access, "
          "l2_evicts_per_cycle.\n\n"
          "Options:\n"
          "  --profile FILE   the workload profile\n"
          "  --protocol P     gpu-vi, gpu-vini or mesi\n"
          "  --sweep SPEC     sweep any parameter, e.g. dir.ratio=1,2,4,16 "
          "or dir.ways=8,16,32;\n"
          "                   several --sweep form a grid (last fastest)\n",
          f);
    cli_print_validity_help(f);
    cli_print_common_help(f);
    cli_print_shard_help(f, 0);
}

static int recall_protocol(const cli_ctx *ctx, const char *name, void *state)
{
    cm_err err = {0};
    return cm_recall_protocol_parse(name, state, &err) ? cli_fail(ctx, &err)
                                                       : 0;
}

static cm_status recall_table(const cm_params *p, const void *state,
                              const cm_profile *prof, cm_sweep *sweeps,
                              size_t nsweeps, cm_table **out, cm_err *err)
{
    cm_status st = cm_recall_grid_table(p, *(const cm_recall_protocol *)state,
                                        prof, sweeps, nsweeps, cli_progress,
                                        NULL, out, err);
    cli_bar_end(NULL, !st);
    return st;
}

int cli_model_recall(int argc, char **argv)
{
    static const cli_profile_cmd cmd = {
        "model recall",
        "which protocol? (--protocol gpu-vi, gpu-vini or mesi)", usage,
        recall_protocol, recall_table};
    cm_recall_protocol proto;
    return cli_run_profile_cmd(&cmd, &proto, argc, argv);
}
