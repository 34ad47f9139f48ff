/* columns.h - what a named column means, for figures and documents: its
 * short human label, its unit and its one-line meaning.
 *
 * One lookup over the two registries: a column named like a parameter
 * takes the parameter's (data/params.def), any other the statistic's or
 * result column's (data/metrics.def, output rows such as
 * l1.mshr.occupancy_mean included).  There is no third table: a result
 * column a figure draws is registered in metrics.def. */
#ifndef CM_COLUMNS_H
#define CM_COLUMNS_H

#include <stddef.h>

/* Unit of column `name`, or NULL when none is known or it is
 * dimensionless. */
const char *cm_column_unit(const char *name);

/* Short human label (no unit), or NULL when the registries do not know
 * the column. */
const char *cm_column_label(const char *name);

/* One-line meaning, or NULL. */
const char *cm_column_help(const char *name);

/* An axis label: "label (unit)", "label" when dimensionless, the name
 * itself when unknown. */
void cm_column_axis(const char *name, char *buf, size_t len);

/* A value of column `name` (given as text) with its unit, for a legend
 * entry under the column's label: "0.1 inst/inst". */
void cm_column_value(const char *name, const char *value, char *buf,
                     size_t len);

#endif
