/* validity.c - model results with their error estimates (cli.h
 * cli_annotate).
 *
 * Which columns carry an estimate, and in which measure, comes from the
 * validations themselves (study/validate.h: each quantity's target and
 * the `cohmod model` column it estimates under each protocol), so a
 * column is estimated exactly when some validation measures it. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "data/datadir.h"
#include "data/validity.h"
#include "sim/protocol.h"
#include "study/validate.h"

static const cm_validate_model *const validated[] = {
    &cm_validate_mshr,   &cm_validate_reuse,
    &cm_validate_lifetime, &cm_validate_lifetime_predictor,
    &cm_validate_recall, &cm_validate_directory};

#define MAX_OUTPUTS 32

/* Whether the protocol uses the parameter: those it does not are no part
 * of the machine a validation ran. */
static int uses(const char *param, const char *protocol)
{
    const cm_protocol *p = cm_protocol_find(protocol);
    return !p || cm_protocol_uses_param(p, param);
}

/* `cohmod model lifetime`'s lifetime column is the lifetime the protocol
 * uses. */
static const char *alias(const char *column, const char *protocol)
{
    const cm_protocol *p = cm_protocol_find(protocol);
    if (strcmp(column, "lifetime") || !p) return NULL;
    return p->lifetime == CM_LIFE_STRONG ? "tc.lifetime_strong"
           : p->lifetime == CM_LIFE_WEAK ? "tc.lifetime_weak"
                                         : NULL;
}

/* The columns some validation of `model` estimates, under any protocol. */
static size_t outputs_of(const char *model, cm_validity_output *out)
{
    size_t n = 0;
    for (size_t m = 0; m < sizeof validated / sizeof *validated; m++) {
        const cm_validate_model *v = validated[m];
        if (strcmp(v->name, model) || !v->output) continue;
        for (size_t q = 0; q < v->nqty; q++)
            for (size_t i = 0; i < cm_protocol_count(); i++) {
                const char *col = v->output(q, cm_protocol_at(i)->name);
                size_t k = 0;
                while (col && k < n && strcmp(out[k].column, col)) k++;
                if (col && k == n && n < MAX_OUTPUTS)
                    out[n++] = (cm_validity_output){
                        col, v->qty[q].target == CM_VT_MARE};
            }
    }
    return n;
}

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
    cm_validity_output outs[MAX_OUTPUTS];
    size_t n = outputs_of(model, outs);
    cm_validity *v = NULL;
    cm_table *out = NULL;
    cm_status st = cm_validity_read(file, &v, &err);
    if (!st)
        st = cm_validity_annotate(v, model, protocol, NULL, &ctx->params, *t,
                                  outs, n, uses, alias, &out, &err);
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
