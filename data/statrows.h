/* statrows.h - statistics rows: the CSV a run writes (sim/stats.h
 * cm_stats_write: metric,component,value,ci95_lo,ci95_hi), in memory.
 *
 * The simulator and the models meet in this format: the registry gives
 * its rows in this shape (cm_stats_rows), and calibration reads them back
 * from `cohmod sim --out` files (cm_stats_read_rows), so one lookup serves
 * both a live registry and a file, and models/ needs no sim/ header. */
#ifndef CM_STATROWS_H
#define CM_STATROWS_H

#include <stddef.h>

#include "data/err.h"

/* Longest metric or component name a registry accepts. */
#define CM_STAT_NAME_MAX 80

typedef struct cm_stat_row {
    char metric[256]; /* a name and its longest derived suffix */
    const char *component;
    double value, ci95_lo, ci95_hi;
} cm_stat_row;

/* The row (metric, component), or NULL. */
const cm_stat_row *cm_stats_find(const cm_stat_row *rows, size_t n,
                                 const char *metric, const char *component);

/* Reads rows back from a file cm_stats_write wrote.  The writer leaves a
 * NaN cell empty (runs without windows have no interval; a ratio over no
 * events has no value), so an empty cell, or "nan" as older files wrote
 * it, reads as NaN; every other cell must be a number.  *rows is one malloc'd block (free it);
 * components point inside it. */
cm_status cm_stats_read_rows(const char *path, cm_stat_row **rows, size_t *n,
                             cm_err *err);

#endif
