/* validity.h - where a model was validated, and how far off it was there.
 *
 * `cohmod validate` writes outdir/validity.csv (study/validate.h); the
 * shipped data/validity.csv is that of the default designs, remade by
 * scripts/make_validity.sh.  One row per model, protocol, quantity and
 * region of the design:
 *   model,protocol,quantity,output,measure,preset,workload,scope,region,
 *   machine,heldout_points,error
 *  - output: the column of `cohmod model <model>` the quantity estimates
 *    ("" when no column does);
 *  - measure: mare (error is a mean |relative error|) or mean_abs_error;
 *  - preset: the machine's preset ("" the registry's defaults); machine:
 *    what the validation set differently from it, "name=value ..."
 *    (calibrated model.* values included: the validated model is the
 *    calibrated one);
 *  - workload: the one workload whose points the region holds, or "all";
 *  - scope: workload (one workload's points), part (a part of the design
 *    box: each design parameter in the lower or upper half of its range),
 *    or whole (every point on the machine);
 *  - region: the box the region's points span, "name=lo:hi ..." over the
 *    design parameters and the model's measured inputs;
 *  - error over the region's held-out points (heldout_points of them).
 *
 * A point is inside a region when its machine is the region's (every
 * registry parameter equal, except run control sim.*, workload statistics
 * wl.*, the measurement knobs reuse.* and litmus.*, the region's own box
 * parameters, and any the caller says the protocol does not use), its
 * workload is the region's (unknown: only "all" regions hold it) and its
 * box parameters lie in the box.  Of the regions holding it, the most
 * specific gives the estimate (workload, then part, then whole).  Held
 * by none, it is outside: no estimate, and a note that says why.  An
 * estimate is never extrapolated. */
#ifndef CM_VALIDITY_H
#define CM_VALIDITY_H

#include <stddef.h>

#include "data/err.h"
#include "data/params.h"
#include "data/table.h"

typedef struct cm_validity cm_validity;

/* The column names, in order. */
#define CM_VALIDITY_NCOLS 12
extern const char *const cm_validity_columns[CM_VALIDITY_NCOLS];

/* A validity table from its CSV: every column there, known measures and
 * scopes, parseable regions and machines (errors "file:line:col: ...").
 * "-" is stdin.  From a table, v points into it: keep t until v is
 * freed. */
cm_status cm_validity_read(const char *path, cm_validity **out, cm_err *err);
cm_status cm_validity_from_table(const cm_table *t, cm_validity **out,
                                 cm_err *err);
void cm_validity_free(cm_validity *v);
size_t cm_validity_rows(const cm_validity *v);

/* Whether the protocol uses a parameter (sim/protocol.h
 * cm_protocol_uses_param): the parameters it does not use are not
 * compared.  NULL: every parameter is. */
typedef int (*cm_validity_uses_fn)(const char *param, const char *protocol);

typedef struct cm_validity_query {
    const char *model;    /* "mshr" */
    const char *protocol; /* the protocol the point is under; NULL: any */
    const char *output;   /* the model's column */
    const char *workload; /* NULL: unknown */
    const cm_params *point;
    cm_validity_uses_fn uses;
} cm_validity_query;

typedef struct cm_validity_estimate {
    int inside;    /* 1: error is the region's held-out error */
    double error;  /* NaN when outside */
    int relative;  /* the measure is mare */
    char note[512]; /* inside: the region; outside: why */
} cm_validity_estimate;

/* The estimate at one point.  Outside is a result, not an error. */
void cm_validity_estimate_at(const cm_validity *v, const cm_validity_query *q,
                             cm_validity_estimate *e);

/* Maps a result column that is not a registry parameter to the one it
 * sets under a protocol ("lifetime" is tc.lifetime_strong under TCS), or
 * NULL. */
typedef const char *(*cm_validity_alias_fn)(const char *column,
                                            const char *protocol);

/* A column of a model's result that validation estimates, and its
 * measure (the quantity's target: relative or absolute). */
typedef struct cm_validity_output {
    const char *column;
    int relative;
} cm_validity_output;

/* A model's result table with its error estimates: a copy of t with, for
 * each of outputs[0..n) that t has, <column>_rel_err (relative) or
 * <column>_abs_err, empty outside, and <column>_domain: the region the
 * estimate is from, or "outside: why".  A row's point is base, then every
 * column naming a registry parameter, then the columns alias maps to
 * one; a cell that is not a value of its parameter is an error at its
 * position.  Each row is judged under t's "protocol" column when it has
 * one, else under protocol (NULL: any).  A row of v whose measure is not
 * the output's is never used. */
cm_status cm_validity_annotate(const cm_validity *v, const char *model,
                               const char *protocol, const char *workload,
                               const cm_params *base, const cm_table *t,
                               const cm_validity_output *outputs, size_t n,
                               cm_validity_uses_fn uses,
                               cm_validity_alias_fn alias, cm_table **out,
                               cm_err *err);

#endif
