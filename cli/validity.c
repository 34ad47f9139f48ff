/* validity.c - model results with their error estimates (cli.h
 * cli_annotate): the table --validity names, or the shipped one, read and
 * applied by study/validate.h cm_validate_annotate. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "data/datadir.h"
#include "data/validity.h"
#include "study/validate.h"

/* The table --validity names, or the shipped one; NULL under none. */
static cm_status validity_open(const cli_ctx *ctx, cm_validity **v,
                               cm_err *err)
{
    *v = NULL;
    if (ctx->validity && !strcmp(ctx->validity, "none")) return CM_OK;
    char path[4096];
    const char *file = ctx->validity;
    if (!file && cm_data_path("validity.csv", path, sizeof path, err))
        return err->code;
    return cm_validity_read(file ? file : path, v, err);
}

int cli_annotate(const cli_ctx *ctx, const char *model, const char *protocol,
                 cm_table **t)
{
    cm_err err = {0};
    cm_validity *v = NULL;
    cm_table *out = NULL;
    cm_status st = validity_open(ctx, &v, &err);
    if (!st && !v) return 0;
    if (!st)
        st = cm_validate_annotate(v, model, protocol, &ctx->params, *t, &out,
                                  &err);
    cm_validity_free(v);
    if (st) return cli_fail(ctx, &err);
    cm_table_free(*t);
    *t = out;
    return 0;
}

/* Rows annotated a chunk at a time: the estimate of a row depends on that
 * row alone. */
enum { ANNOT_CHUNK = 1024 };

struct cli_annot {
    cm_validity *v;
    const char *model, *protocol;
    const cm_params *base;
    cm_row_sink next;
    cm_table *chunk; /* rows waiting, under the result's header */
    int sent;        /* the annotated header went out */
};

static cm_status annot_flush(cli_annot *a, cm_err *err)
{
    cm_table *out = NULL;
    cm_status st = cm_validate_annotate(a->v, a->model, a->protocol, a->base,
                                        a->chunk, &out, err);
    size_t nc = st ? 0 : cm_table_ncols(out);
    const char **cells = st ? NULL : calloc(nc ? nc : 1, sizeof *cells);
    if (!st && !cells) st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t c = 0; !st && !a->sent && c < nc; c++)
        cells[c] = cm_table_colname(out, c);
    if (!st && !a->sent) st = cm_row_put(&a->next, nc, cells, err);
    a->sent = 1;
    for (size_t r = 0; !st && r < cm_table_nrows(out); r++) {
        for (size_t c = 0; c < nc; c++) cells[c] = cm_table_cell(out, r, c);
        st = cm_row_put(&a->next, nc, cells, err);
    }
    /* the next chunk under the same header */
    size_t hc = cm_table_ncols(a->chunk);
    const char **hdr = st ? NULL : calloc(hc ? hc : 1, sizeof *hdr);
    if (!st && !hdr) st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t c = 0; !st && c < hc; c++)
        hdr[c] = cm_table_colname(a->chunk, c);
    cm_table *fresh = st ? NULL : cm_table_new(hc, hdr);
    if (!st && !fresh) st = cm_err_set(err, CM_EINTERNAL, "out of memory");
    if (!st) {
        cm_table_free(a->chunk);
        a->chunk = fresh;
    }
    free(hdr);
    free(cells);
    cm_table_free(out);
    return st;
}

static cm_status annot_put(void *arg, size_t n, const char *const *cells,
                           cm_err *err)
{
    cli_annot *a = arg;
    if (!a->chunk) { /* the header */
        a->chunk = cm_table_new(n, cells);
        return a->chunk ? CM_OK
                        : cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    cm_status st = cm_table_append(a->chunk, cells, err);
    if (!st && cm_table_nrows(a->chunk) >= ANNOT_CHUNK)
        st = annot_flush(a, err);
    return st;
}

cm_status cli_annot_open(const cli_ctx *ctx, const char *model,
                         const char *protocol, const cm_row_sink *next,
                         cli_annot **an, cm_row_sink *to, cm_err *err)
{
    *an = NULL;
    *to = *next;
    cm_validity *v = NULL;
    cm_status st = validity_open(ctx, &v, err);
    if (st || !v) return st;
    cli_annot *a = calloc(1, sizeof *a);
    if (!a) {
        cm_validity_free(v);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    *a = (cli_annot){v, model, protocol, &ctx->params, *next, NULL, 0};
    *an = a;
    *to = (cm_row_sink){annot_put, a};
    return CM_OK;
}

cm_status cli_annot_close(cli_annot *a, cm_status status, cm_err *err)
{
    if (!a) return CM_OK;
    cm_status st = CM_OK;
    if (!status && a->chunk && (cm_table_nrows(a->chunk) || !a->sent))
        st = annot_flush(a, err);
    cm_table_free(a->chunk);
    cm_validity_free(a->v);
    free(a);
    return st;
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
