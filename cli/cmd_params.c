/* cmd_params.c - `cohmod params`: the parameter registry, resolved. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "data/table.h"

static void usage(FILE *f)
{
    fputs("Usage: cohmod params [--config PRESET|FILE] [--set NAME=VALUE ...] "
          "[--csv] [--out F]\n\n"
          "Lists every parameter: name, current value, default, allowed "
          "range, unit, help.\nThe values are those after --config and --set "
          "are applied, so this is also\nthe way to check a configuration "
          "file.\n\n"
          "  --csv     machine-readable CSV instead of the aligned table\n"
          "  --design  the validations' design ranges instead (params.def "
          "CM_DESIGN):\n"
          "            validations, name, lo, hi, scale (lin, log, pow2; "
          "input: a\n"
          "            workload statistic the runs measure, its validated "
          "range what\n"
          "            they measured), why\n",
          f);
    cli_print_common_help(f);
}

static void format_range(const cm_param_info *pi, char *buf, size_t len)
{
    if (pi->type == CM_PT_ENUM) {
        snprintf(buf, len, "%s", pi->choices);
    } else if (pi->type == CM_PT_BOOL) {
        snprintf(buf, len, "yes|no");
    } else {
        char lo[32], hi[32];
        cm_param_format(pi, pi->min, lo, sizeof lo);
        cm_param_format(pi, pi->max, hi, sizeof hi);
        snprintf(buf, len, "%s..%s", lo, hi);
    }
}

enum { OPT_CSV = CLI_OPT_FIRST_FREE, OPT_DESIGN };

static int own_option(int opt, const char *arg, void *flags)
{
    (void)arg;
    if (opt != OPT_CSV && opt != OPT_DESIGN) return CM_EINPUT;
    ((int *)flags)[opt == OPT_DESIGN] = 1;
    return 0;
}

/* The design ranges as a table: validations,name,lo,hi,scale,why. */
static cm_status design_table(cm_table **out, cm_err *err)
{
    static const char *const header[] = {"validations", "name", "lo",
                                         "hi",          "scale", "why"};
    static const char *const scale[] = {"lin", "log", "pow2", "input"};
    cm_table *t = cm_table_new(6, header);
    if (!t) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st = CM_OK;
    for (size_t i = 0; !st && i < cm_param_design_count(); i++) {
        const cm_param_design *d = cm_param_design_at(i);
        const cm_param_info *pi = cm_param_design_param(d);
        char lo[64], hi[64];
        cm_param_format(pi, d->lo, lo, sizeof lo);
        cm_param_format(pi, d->hi, hi, sizeof hi);
        const char *row[] = {d->validations, pi->name, lo, hi,
                             scale[d->scale], d->why};
        st = cm_table_append(t, row, err);
    }
    if (st) cm_table_free(t);
    else *out = t;
    return st;
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"csv", no_argument, NULL, OPT_CSV},
        {"design", no_argument, NULL, OPT_DESIGN},
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, "params");
    int flags[2] = {0, 0}; /* --csv, --design */
    int rc = cli_parse(&ctx, argc, argv, longopts, own_option, flags, usage);
    int csv = flags[0];
    if (rc != CLI_CONTINUE) return rc;
    if (optind < argc)
        return cli_usage_error(&ctx, "unexpected argument '%s'", argv[optind]);
    rc = cli_ctx_resolve(&ctx);
    if (rc) return rc;
    if (flags[1]) {
        cm_err err = {0};
        cm_table *d = NULL;
        if (design_table(&d, &err) ||
            (csv || ctx.out ? cm_table_write_file(d, ctx.out, &err) : 0))
            rc = cli_fail(&ctx, &err);
        if (!rc && !csv && !ctx.out)
            printf("%-16s %-20s %-8s %-8s %-6s %s\n", "VALIDATIONS", "NAME",
                   "LO", "HI", "SCALE", "WHY");
        for (size_t r = 0; !rc && !csv && !ctx.out && r < cm_table_nrows(d);
             r++)
            printf("%-16s %-20s %-8s %-8s %-6s %s\n", cm_table_cell(d, r, 0),
                   cm_table_cell(d, r, 1), cm_table_cell(d, r, 2),
                   cm_table_cell(d, r, 3), cm_table_cell(d, r, 4),
                   cm_table_cell(d, r, 5));
        cm_table_free(d);
        return rc;
    }

    static const char *const header[] = {"name",  "value", "default",
                                         "range", "unit",  "help"};
    cm_table *t = cm_table_new(6, header);
    cm_err err = {0};
    if (!t) {
        cm_err_set(&err, CM_EINTERNAL, "out of memory");
        return cli_fail(&ctx, &err);
    }
    for (size_t i = 0; i < cm_param_count(); i++) {
        const cm_param_info *pi = cm_param_at(i);
        char val[64], def[64], range[160];
        cm_param_format(pi, cm_param_get(&ctx.params, pi), val, sizeof val);
        cm_param_format(pi, pi->def, def, sizeof def);
        format_range(pi, range, sizeof range);
        const char *row[] = {pi->name, val, def, range, pi->unit, pi->help};
        if (cm_table_append(t, row, &err)) {
            cm_table_free(t);
            return cli_fail(&ctx, &err);
        }
    }
    if (csv || ctx.out) {
        rc = cm_table_write_file(t, ctx.out, &err) ? cli_fail(&ctx, &err) : 0;
    } else {
        printf("%-24s %-10s %-10s %-22s %-16s %s\n", "NAME", "VALUE",
               "DEFAULT", "RANGE", "UNIT", "HELP");
        for (size_t r = 0; r < cm_table_nrows(t); r++)
            printf("%-24s %-10s %-10s %-22s %-16s %s\n", cm_table_cell(t, r, 0),
                   cm_table_cell(t, r, 1), cm_table_cell(t, r, 2),
                   cm_table_cell(t, r, 3), cm_table_cell(t, r, 4),
                   cm_table_cell(t, r, 5));
    }
    cm_table_free(t);
    return rc;
}

const cli_command cli_cmd_params = {
    "params", "list, check and explain every parameter (and the design "
              "ranges)", run};
