/* validity.c - model results with their error estimates (cli.h
 * cli_annotate): the table --validity names, or the shipped one, read and
 * applied by study/validate.h cm_validate_annotate. */
#include <string.h>

#include "cli/cli.h"
#include "data/datadir.h"
#include "data/validity.h"
#include "study/validate.h"

int cli_annotate(const cli_ctx *ctx, const char *model, const char *protocol,
                 cm_table **t)
{
    if (ctx->validity && !strcmp(ctx->validity, "none")) return 0;
    cm_err err = {0};
    char path[4096];
    const char *file = ctx->validity;
    if (!file && cm_data_path("validity.csv", path, sizeof path, &err))
        return cli_fail(ctx, &err);
    if (!file) file = path;
    cm_validity *v = NULL;
    cm_table *out = NULL;
    cm_status st = cm_validity_read(file, &v, &err);
    if (!st)
        st = cm_validate_annotate(v, model, protocol, &ctx->params, *t, &out,
                                  &err);
    cm_validity_free(v);
    if (st) return cli_fail(ctx, &err);
    cm_table_free(*t);
    *t = out;
    return 0;
}

void cli_print_validity_help(FILE *f)
{
    fputs("Error estimates (data/validity.h):\n"
          "  every column a validation measures gets <column>_rel_err (a "
          "mean |relative\n"
          "  error|) or <column>_abs_err: the held-out error `cohmod validate"
          "` measured\n"
          "  in the region of the design that holds the row (its preset's "
          "machine, each\n"
          "  design parameter and measured input within the span validated),"
          " and\n"
          "  <column>_domain: that region, or \"outside: why\" with the "
          "error left empty.\n"
          "  --validity FILE|none  the table to read (default: the shipped "
          "data/validity.csv,\n"
          "                        remade by scripts/make_validity.sh), or "
          "none: no estimate\n",
          f);
}
