/* params.h - the parameter registry.
 *
 * params.def declares every tunable once; this header turns it into
 *  - struct cm_params: one double field per parameter, named by its id, so
 *    model code reads p->l1_mshrs;
 *  - a metadata table (name, type, default, range, unit, label, help) that
 *    drives --set, --config, `cohmod params`, validation, figure labels and
 *    the dump written beside every result.
 * Values are doubles whatever the type: INT values are checked integral,
 * BOOL is 0/1, ENUM is the index of the choice. */
#ifndef CM_PARAMS_H
#define CM_PARAMS_H

#include <stddef.h>

#include "data/err.h"
#include "data/table.h"

typedef enum cm_param_type {
    CM_PT_INT,
    CM_PT_REAL,
    CM_PT_BOOL,
    CM_PT_ENUM
} cm_param_type;

typedef struct cm_params {
#define CM_PARAM(id, name, type, def, min, max, unit, label, help) double id;
#define CM_PARAM_ENUM(id, name, def, choices, label, help) double id;
#include "data/params.def"
#undef CM_PARAM
#undef CM_PARAM_ENUM
} cm_params;

typedef struct cm_param_info {
    const char *name;    /* user-facing dotted name, e.g. "l1.mshrs" */
    cm_param_type type;
    double def, min, max;
    const char *unit;    /* "" when dimensionless */
    const char *choices; /* ENUM only: "a|b|c"; NULL otherwise */
    const char *label;   /* short human name for axes and legends */
    const char *help;
    size_t offset;       /* of the double inside cm_params */
} cm_param_info;

size_t cm_param_count(void);
const cm_param_info *cm_param_at(size_t i);
/* By dotted name; NULL when unknown. */
const cm_param_info *cm_param_find(const char *name);

double cm_param_get(const cm_params *p, const cm_param_info *pi);
void cm_param_put(cm_params *p, const cm_param_info *pi, double v);

/* All parameters at their defaults (the tc2013 machine). */
void cm_params_init(cm_params *p);

/* Parses `text` for parameter `pi` and range-checks it.  Errors name the
 * parameter and its allowed range or choices. */
cm_status cm_param_parse(const cm_param_info *pi, const char *text, double *v,
                         cm_err *err);

/* Sets one parameter by name from text. */
cm_status cm_params_set(cm_params *p, const char *name, const char *text,
                        cm_err *err);

/* "name=value", as given to --set. */
cm_status cm_params_assign(cm_params *p, const char *assignment, cm_err *err);

/* Applies a preset: an embedded preset name (tc2013, li2014, ...) or a CSV
 * file of `parameter,value` rows.  File errors are "file:line:col: ...". */
cm_status cm_params_load(cm_params *p, const char *preset_or_path,
                         cm_err *err);

/* Cross-parameter checks the ranges cannot express. */
cm_status cm_params_validate(const cm_params *p, cm_err *err);

/* Value as text: integers without a decimal point, enums by choice name. */
void cm_param_format(const cm_param_info *pi, double v, char *buf,
                     size_t len);

/* Writes `parameter,value,unit` rows for every parameter, atomically. */
cm_status cm_params_write_dump(const cm_params *p, const char *path,
                               cm_err *err);

/* n fitted parameters as a table of parameter,value,stderr,note rows: a
 * configuration file (--config) of the calibrated values, which reads
 * parameter and value only.  A NaN stderr (not identified) is empty; note
 * (notes NULL: every one empty) says what the data could not identify. *out
 * is NULL on error. */
cm_status cm_params_fit_table(const cm_param_info *const *param,
                              const double *value, const double *stderr_,
                              const char *const *notes, size_t n,
                              cm_table **out, cm_err *err);

/* ---- design ranges (params.def CM_DESIGN) ----------------------------
 * Where `cohmod validate M --design lhs:N` draws each design parameter of
 * validation M, and which workload statistics bound its domain. */
typedef enum cm_design_scale {
    CM_DS_LIN = 0, /* uniform */
    CM_DS_LOG,     /* uniform in log */
    CM_DS_POW2,    /* powers of two, each equally likely */
    CM_DS_INPUT    /* not drawn: a workload statistic the runs measure */
} cm_design_scale;

typedef struct cm_param_design {
    size_t offset;           /* the parameter's, inside cm_params */
    const char *validations; /* "mshr|reuse" */
    double lo, hi;
    cm_design_scale scale;
    const char *why;
} cm_param_design;

size_t cm_param_design_count(void);
const cm_param_design *cm_param_design_at(size_t i);
/* The registry entry of the range's parameter. */
const cm_param_info *cm_param_design_param(const cm_param_design *d);
/* Whether the range belongs to the named validation. */
int cm_param_design_for(const cm_param_design *d, const char *validation);
/* The value at u in [0, 1) on the range's scale (not INPUT): integers
 * cover equal shares of u, each of the log-scale ones its own span of the
 * log.  A range the machine caps (sched.active_warps at
 * gpu.warps_per_sm) is drawn up to the cap instead of hi. */
double cm_param_design_value(const cm_param_design *d, double u,
                             const cm_params *machine);

/* Embedded presets (the CSV files of data/configs, compiled in). */
size_t cm_preset_count(void);
const char *cm_preset_name(size_t i);
/* Text of the named preset, or NULL. */
const char *cm_preset_text(const char *name, size_t *len);

#endif
