/* columns.c - labels, units and meanings of named columns (columns.h),
 * looked up in the parameter and statistics registries. */
#include "data/columns.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/metrics.h"
#include "data/params.h"

/* A statistic's derived rows carry their own unit: a time fraction
 * (X.frac_*), an event count (X_count); the others (X, X_mean, X_stddev,
 * X_min, X_max) the statistic's. */
static int is_fraction_row(const char *name)
{
    return strstr(name, ".frac_") != NULL;
}

static int is_count_row(const cm_metric *m, const char *name)
{
    size_t n = strlen(name);
    return m->kind == CM_METRIC_LATENCY && n > 6 &&
           strcmp(name + n - 6, "_count") == 0;
}

const char *cm_column_unit(const char *name)
{
    if (!name) return NULL;
    const cm_param_info *pi = cm_param_find(name);
    const char *unit = pi ? pi->unit : NULL;
    if (!pi) {
        const cm_metric *m = cm_metric_of_row(name);
        if (m)
            unit = is_fraction_row(name)  ? "fraction"
                   : is_count_row(m, name) ? "events"
                                           : m->unit;
    }
    return unit && unit[0] ? unit : NULL;
}

const char *cm_column_label(const char *name)
{
    if (!name) return NULL;
    const cm_param_info *pi = cm_param_find(name);
    if (pi) return pi->label;
    const cm_metric *m = cm_metric_of_row(name);
    return m ? m->label : NULL;
}

const char *cm_column_help(const char *name)
{
    if (!name) return NULL;
    const cm_param_info *pi = cm_param_find(name);
    if (pi) return pi->help;
    const cm_metric *m = cm_metric_of_row(name);
    return m ? m->help : NULL;
}

void cm_column_axis(const char *name, char *buf, size_t len)
{
    if (!buf || len == 0) return;
    const char *label = cm_column_label(name), *unit = cm_column_unit(name);
    const char *what = label ? label : name ? name : "";
    const char *part = "";
    const cm_metric *m = label && !cm_param_find(name)
                             ? cm_metric_of_row(name) : NULL;
    if (m && is_fraction_row(name)) part = ", share of time";
    else if (m && is_count_row(m, name)) part = ", count";
    if (unit)
        snprintf(buf, len, "%s%s (%s)", what, part, unit);
    else
        snprintf(buf, len, "%s%s", what, part);
}

void cm_column_value(const char *name, const char *value, char *buf,
                     size_t len)
{
    if (!buf || len == 0) return;
    const char *unit = cm_column_unit(name);
    /* bytes in whole KB or MB read as such: "16 KB", not "16384 B" */
    char *end = NULL;
    double v = value ? strtod(value, &end) : 0;
    if (unit && !strcmp(unit, "B") && end && end != value && !*end &&
        v >= 1024 && v < 1e15 && v == floor(v)) {
        long long b = (long long)v;
        if (b % (1024 * 1024) == 0)
            snprintf(buf, len, "%lld MB", b / (1024 * 1024));
        else if (b % 1024 == 0)
            snprintf(buf, len, "%lld KB", b / 1024);
        else
            snprintf(buf, len, "%s B", value);
        return;
    }
    snprintf(buf, len, "%s%s%s", value ? value : "", unit ? " " : "",
             unit ? unit : "");
}
