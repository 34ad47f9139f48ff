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
    cli_print_common_help(f);
}

enum { OPT_SWEEP = CLI_OPT_FIRST_FREE, OPT_PROFILE, OPT_PROTOCOL };

typedef struct recall_opts {
    cli_ctx *ctx;
    cli_sweeps sweeps;
    const char *profile, *protocol;
} recall_opts;

static int own_option(int opt, const char *arg, void *u)
{
    recall_opts *o = u;
    if (opt == OPT_PROFILE) {
        o->profile = arg;
    } else if (opt == OPT_PROTOCOL) {
        o->protocol = arg;
    } else if (opt == OPT_SWEEP) {
        return cli_sweeps_add(o->ctx, &o->sweeps, arg);
    } else {
        return CM_EINPUT;
    }
    return 0;
}

int cli_model_recall(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"sweep", required_argument, NULL, OPT_SWEEP},
        {"profile", required_argument, NULL, OPT_PROFILE},
        {"protocol", required_argument, NULL, OPT_PROTOCOL},
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, "model recall");
    recall_opts o = {.ctx = &ctx};
    int rc = cli_parse(&ctx, argc, argv, longopts, own_option, &o, usage);
    if (rc != CLI_CONTINUE) return rc;
    if (optind < argc)
        return cli_usage_error(&ctx, "unexpected argument '%s'",
                               argv[optind]);
    if (!o.profile)
        return cli_usage_error(&ctx, "which profile? (--profile FILE)");
    if (!o.protocol)
        return cli_usage_error(&ctx,
                               "which protocol? (--protocol gpu-vi, "
                               "gpu-vini or mesi)");
    cm_err err = {0};
    cm_recall_protocol proto;
    if (cm_recall_protocol_parse(o.protocol, &proto, &err))
        return cli_fail(&ctx, &err);
    rc = cli_ctx_resolve(&ctx);
    if (rc) return rc;

    cm_profile *prof = NULL;
    cli_sweeps *sw = &o.sweeps;
    cm_table *t = NULL;
    if (!cm_profile_read(o.profile, &prof, &err) &&
        !cli_sweeps_parse(sw, &err))
        cm_recall_grid_table(&ctx.params, proto, prof, sw->sweep, sw->nparsed,
                             cli_progress, NULL, &t, &err);
    if (t && !cm_table_write_file(t, ctx.out, &err))
        rc = cli_write_param_dump(&ctx, ctx.out);
    else
        rc = cli_fail(&ctx, &err);
    cm_table_free(t);
    cli_sweeps_free(sw);
    cm_profile_free(prof);
    return rc;
}
