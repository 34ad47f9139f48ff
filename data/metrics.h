/* metrics.h - the statistics registry (data/metrics.def): every statistic
 * the simulator reports, and every column of the models' and the study's
 * results, with its kind, unit, human label and meaning.
 *
 * The simulator registers its statistics by these names (sim/stats.h) and
 * cm_gpu_run checks every output row against the table; `cohmod sim
 * --list-metrics` and plot labels (data/columns.h) read it.  A name may hold one <x>
 * segment matching any one dotted segment (noc.msgs.<msg>). */
#ifndef CM_METRICS_H
#define CM_METRICS_H

#include <stddef.h>

#include "data/err.h"
#include "data/table.h"

typedef enum cm_metric_kind {
    CM_METRIC_COUNTER,   /* X */
    CM_METRIC_RATIO,     /* X = counter / counter */
    CM_METRIC_LEVEL,     /* X_mean */
    CM_METRIC_OCCUPANCY, /* X_mean, X.frac_at_<k>, X.frac_at_<k>_or_more */
    CM_METRIC_FULL,      /* X: an occupancy's time fraction at its maximum */
    CM_METRIC_LATENCY,   /* X_count/_mean/_stddev/_min/_max, X.frac_in_<a>_<b>,
                        X.frac_from_<a> */
    CM_METRIC_RESULT     /* X: a column of a model's or the study's results, not
                        a simulator statistic */
} cm_metric_kind;

typedef struct cm_metric {
    const char *name; /* as registered, with at most one <x> segment */
    cm_metric_kind kind;
    const char *unit, *label, *help;
} cm_metric;

size_t cm_metric_count(void);
const cm_metric *cm_metric_at(size_t i); /* NULL past the end */
const char *cm_metric_kind_name(cm_metric_kind k);

/* The entry of a registered statistic's name with this kind, or NULL. */
const cm_metric *cm_metric_find(const char *name, cm_metric_kind kind);

/* The entry an output row's metric comes from (a derived row included:
 * l1.mshr.occupancy_mean, roundtrip.latency.frac_in_4_8), or NULL. */
const cm_metric *cm_metric_of_row(const char *row);

/* The simulator's statistics (RESULT entries left out) as CSV-ready rows:
 * metric,kind,unit,label,meaning. */
cm_status cm_metric_table(cm_table **out, cm_err *err);

#endif
