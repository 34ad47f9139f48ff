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

enum { OPT_SWEEP = CLI_OPT_FIRST_FREE, OPT_PROFILE, OPT_PROTOCOL };

typedef struct directory_opts {
    cli_ctx *ctx;
    cli_sweeps sweeps;
    const char *profile, *protocol;
} directory_opts;

static int own_option(int opt, const char *arg, void *u)
{
    directory_opts *o = u;
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

int cli_model_directory(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"sweep", required_argument, NULL, OPT_SWEEP},
        {"profile", required_argument, NULL, OPT_PROFILE},
        {"protocol", required_argument, NULL, OPT_PROTOCOL},
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, "model directory");
    directory_opts o = {.ctx = &ctx};
    int rc = cli_parse(&ctx, argc, argv, longopts, own_option, &o, usage);
    if (rc != CLI_CONTINUE) return rc;
    if (optind < argc)
        return cli_usage_error(&ctx, "unexpected argument '%s'",
                               argv[optind]);
    if (!o.profile)
        return cli_usage_error(&ctx, "which profile? (--profile FILE)");
    if (!o.protocol)
        return cli_usage_error(&ctx, "which protocol? (--protocol P or all)");
    const cm_coh_protocol *protos[64];
    size_t nprotos = 0;
    if (strcmp(o.protocol, "all") == 0) {
        for (size_t i = 0; i < cm_coh_protocol_count() && nprotos < 64; i++)
            protos[nprotos++] = cm_coh_protocol_at(i);
    } else if ((protos[0] = cm_coh_protocol_find(o.protocol))) {
        nprotos = 1;
    } else {
        return cli_usage_error(&ctx, "unknown protocol '%s' (see cohmod sim "
                                     "--help, or all)",
                               o.protocol);
    }
    rc = cli_ctx_resolve(&ctx);
    if (rc) return rc;

    cm_err err = {0};
    cm_profile *prof = NULL;
    cli_sweeps *sw = &o.sweeps;
    cm_table *t = NULL;
    if (!cm_profile_read(o.profile, &prof, &err) &&
        !cli_sweeps_parse(sw, &err))
        cm_directory_grid_table(&ctx.params, protos, nprotos, prof,
                                sw->sweep, sw->nparsed, cli_progress, NULL,
                                &t, &err);
    if (t && !cm_table_write_file(t, ctx.out, &err))
        rc = cli_write_param_dump(&ctx, ctx.out);
    else
        rc = cli_fail(&ctx, &err);
    cm_table_free(t);
    cli_sweeps_free(sw);
    cm_profile_free(prof);
    return rc;
}
