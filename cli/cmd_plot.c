/* cmd_plot.c - `cohmod plot`: a figure from columns of a CSV file. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "data/table.h"
#include "plots/plot.h"

#define MAX_Y 16

static void usage(FILE *f)
{
    fputs("Usage: cohmod plot FILE.csv --x COL --y COL[,COL...] --out "
          "FIG.png|.svg|.pdf\n"
          "                   [--by COL] [--logx] [--logy] [--errlo COL "
          "--errhi COL]\n"
          "                   [--title TEXT] [--style "
          "lines|points|linespoints] [--no-band]\n\n"
          "Draws columns of a CSV file (\"-\" reads stdin) as a figure for a "
          "paper: white\nbackground, axis labels with units, a "
          "colour-blind-safe palette with a\nmarker per series, and a "
          "legend.  The extension of --out picks the format.\n\n"
          "Options:\n"
          "  --x COL          column for the x axis\n"
          "  --y COL[,COL]    column(s) for the y axis; each is a series "
          "(repeatable,\n"
          "                   at most 16)\n"
          "  --by COL         one series per distinct value of COL, in order "
          "of first\n"
          "                   appearance, labelled with the value and its "
          "unit under\n"
          "                   COL's name; past 8 values, panels of 8 (with "
          "several --y,\n"
          "                   a panel per value)\n"
          "  --logx, --logy   logarithmic axis; its values must be positive\n"
          "  --errlo COL      lower end of an error bar (with --errhi and one "
          "--y)\n"
          "  --errhi COL      upper end of an error bar\n"
          "  --title TEXT     title above the plot (default: none)\n"
          "  --style S        lines, points or linespoints (default)\n"
          "  --no-band        do not shade a model's held-out error: a y "
          "column C with\n"
          "                   C_abs_err or C_rel_err beside it (what cohmod "
          "model writes)\n"
          "                   is otherwise shaded C +- err where the error is "
          "given, and\n"
          "                   left bare where it is empty (outside the "
          "validated domain)\n"
          "  --out FIG        the figure: .png (1200x900 pixels), .svg or "
          ".pdf (6.4x4.8 in);\n"
          "                   written to a temporary file and renamed, so "
          "never half-done\n\n"
          "Axis labels and legends take human names and units from the "
          "parameter and\nstatistics registries: a column l1.mshrs is "
          "labelled\n\"L1 MSHRs per SM (entries)\".  Empty cells and "
          "nan/inf are not drawn; any other\nnon-numeric cell is an error "
          "at its file:line:col.\n",
          f);
    cli_print_common_help(f);
}

enum {
    OPT_X = CLI_OPT_FIRST_FREE,
    OPT_Y,
    OPT_BY,
    OPT_LOGX,
    OPT_LOGY,
    OPT_ERRLO,
    OPT_ERRHI,
    OPT_TITLE,
    OPT_STYLE,
    OPT_NO_BAND
};

typedef struct plot_args {
    cli_ctx *ctx;
    cm_plot_table_opts o;
    const char *y[MAX_Y];
    char *ybuf[MAX_Y]; /* copies of the --y values, split in place */
    size_t nybuf;
} plot_args;

/* Splits one --y value at commas into column names. */
static int add_y(plot_args *pa, const char *arg)
{
    char *copy = strdup(arg);
    if (!copy) {
        cm_err err;
        cm_err_set(&err, CM_EINTERNAL, "out of memory");
        return cli_fail(pa->ctx, &err);
    }
    pa->ybuf[pa->nybuf++] = copy;
    for (char *p = copy;;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        if (!*p)
            return cli_usage_error(pa->ctx, "--y '%s': empty column name",
                                   arg);
        if (pa->o.ny == MAX_Y)
            return cli_usage_error(pa->ctx, "at most %d y columns", MAX_Y);
        pa->y[pa->o.ny++] = p;
        if (!comma) break;
        p = comma + 1;
    }
    return 0;
}

static int set_style(plot_args *pa, const char *arg)
{
    if (strcmp(arg, "lines") == 0)
        pa->o.style = CM_PLOT_LINES;
    else if (strcmp(arg, "points") == 0)
        pa->o.style = CM_PLOT_POINTS;
    else if (strcmp(arg, "linespoints") == 0)
        pa->o.style = CM_PLOT_LINES_POINTS;
    else
        return cli_usage_error(pa->ctx,
                               "--style '%s': use lines, points or "
                               "linespoints",
                               arg);
    return 0;
}

static int own_option(int opt, const char *arg, void *u)
{
    plot_args *pa = u;
    switch (opt) {
    case OPT_X: pa->o.x = arg; return 0;
    case OPT_Y:
        if (pa->nybuf == MAX_Y)
            return cli_usage_error(pa->ctx, "at most %d y columns", MAX_Y);
        return add_y(pa, arg);
    case OPT_BY: pa->o.by = arg; return 0;
    case OPT_LOGX: pa->o.logx = 1; return 0;
    case OPT_LOGY: pa->o.logy = 1; return 0;
    case OPT_ERRLO: pa->o.errlo = arg; return 0;
    case OPT_ERRHI: pa->o.errhi = arg; return 0;
    case OPT_TITLE: pa->o.title = arg; return 0;
    case OPT_STYLE: return set_style(pa, arg);
    case OPT_NO_BAND: pa->o.no_band = 1; return 0;
    default: return CM_EINPUT;
    }
}

/* Checks what can be checked before reading the file. */
static int check_args(plot_args *pa, int argc, char **argv, const char **file)
{
    cli_ctx *ctx = pa->ctx;
    if (optind >= argc) return cli_usage_error(ctx, "no CSV file given");
    if (optind + 1 < argc)
        return cli_usage_error(ctx, "unexpected argument '%s'",
                               argv[optind + 1]);
    *file = argv[optind];
    if (!pa->o.x) return cli_usage_error(ctx, "--x COL is required");
    if (pa->o.ny == 0) return cli_usage_error(ctx, "--y COL is required");
    if (!ctx->out || !ctx->out[0])
        return cli_usage_error(ctx, "--out FIG.png|.svg|.pdf is required");
    if (!pa->o.errlo != !pa->o.errhi)
        return cli_usage_error(ctx, "--errlo and --errhi go together");
    if (pa->o.errlo && pa->o.ny != 1)
        return cli_usage_error(ctx, "error bars need exactly one --y column");
    return 0;
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"x", required_argument, NULL, OPT_X},
        {"y", required_argument, NULL, OPT_Y},
        {"by", required_argument, NULL, OPT_BY},
        {"logx", no_argument, NULL, OPT_LOGX},
        {"logy", no_argument, NULL, OPT_LOGY},
        {"errlo", required_argument, NULL, OPT_ERRLO},
        {"errhi", required_argument, NULL, OPT_ERRHI},
        {"title", required_argument, NULL, OPT_TITLE},
        {"style", required_argument, NULL, OPT_STYLE},
        {"no-band", no_argument, NULL, OPT_NO_BAND},
        {0}};
    cli_ctx ctx;
    cli_ctx_init(&ctx, "plot");
    ctx.repeatable = "y";
    plot_args pa;
    memset(&pa, 0, sizeof pa);
    pa.ctx = &ctx;
    pa.o.style = CM_PLOT_LINES_POINTS;
    pa.o.y = pa.y;
    const char *file = NULL;
    int rc = cli_parse(&ctx, argc, argv, longopts, own_option, &pa, usage);
    if (rc == CLI_CONTINUE) rc = check_args(&pa, argc, argv, &file);
    if (rc == 0 && file) rc = cli_ctx_resolve(&ctx); /* validates --set */
    if (rc == 0 && file) {
        cm_table *t = NULL;
        cm_err err = {0};
        if (cm_table_read_file_limit(file, ctx.params.mem_limit, &t, &err) ||
            cm_plot_table(t, &pa.o, ctx.out, &err))
            rc = cli_fail(&ctx, &err);
        cm_table_free(t);
    }
    for (size_t i = 0; i < pa.nybuf; i++) free(pa.ybuf[i]);
    return rc;
}

const cli_command cli_cmd_plot = {
    "plot", "draw columns of a CSV file as a PNG, SVG or PDF figure", run};
