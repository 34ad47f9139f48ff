/* columns.h - units of named columns, for axis labels and documentation.
 *
 * A column named like a registry parameter takes the parameter's unit; a
 * result column takes the unit its model declares in columns.c. */
#ifndef CM_COLUMNS_H
#define CM_COLUMNS_H

/* Unit of column `name`, or NULL when none is known or it is
 * dimensionless. */
const char *cm_column_unit(const char *name);

/* One-line meaning of a result column, or NULL. */
const char *cm_column_help(const char *name);

#endif
