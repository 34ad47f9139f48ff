/* figcheck.h - what every cohmod figure must be, checked on the plotting
 * layer's own record of what it drew (plots/plot.h, cm_plot_record).
 *
 * Shared by the plotting layer's suite and the study's figures suite, so
 * a figure built by hand and one the study draws are held to the same
 * rules:
 *  - no two series with different legend entries share a colour and a
 *    marker, and within a panel no colour is used by two entries;
 *  - every numeric axis has a label with a unit in parentheses, and every
 *    categorical axis a label and its category names;
 *  - no label, legend entry or title is a raw registry name (l1.mshrs,
 *    p_full): the registries give each a human name;
 *  - each legend box lies on the page and covers no mark: no marker, bar,
 *    error bar, count, nor a segment of a line;
 *  - no line joins categories;
 *  - a linear axis's tick labels are plain numbers (no "x10^k"). */
#ifndef CM_FIGCHECK_H
#define CM_FIGCHECK_H

#include <stddef.h>

#include "plots/plot.h"

/* A record kept past the plotting layer's callback. */
typedef struct fc_record {
    cm_plot_record rec; /* its pointers point into the copy */
    void *mem[8];
} fc_record;

fc_record *fc_copy(const cm_plot_record *r);
void fc_free(fc_record *r);

/* 1 when the figure has every property above; else 0 with what is wrong
 * in msg. */
int fc_check(const cm_plot_record *r, char *msg, size_t len);

/* The series of a record whose legend text is `label`, or -1. */
long fc_series(const cm_plot_record *r, const char *label);

/* The figure among n records whose path ends with `tail`, or NULL. */
const cm_plot_record *fc_find(fc_record *const *recs, size_t n,
                              const char *tail);

#endif
