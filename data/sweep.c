/* sweep.c - parameter sweeps and grids (see sweep.h). */
#include "data/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/number.h"

static cm_status parse_value(const cm_param_info *pi, const char *text,
                             size_t len, double *v, cm_err *err)
{
    char buf[128];
    if (len >= sizeof buf)
        return cm_err_set(err, CM_EINPUT, "--sweep %s: value too long",
                          pi->name);
    memcpy(buf, text, len);
    buf[len] = '\0';
    return cm_param_parse(pi, buf, v, err);
}

static cm_status push(cm_sweep *sw, size_t *cap, double v, cm_err *err)
{
    if (sw->n == CM_SWEEP_MAX_VALUES)
        return cm_err_set(err, CM_EINPUT, "--sweep %s: more than %d values",
                          sw->param->name, CM_SWEEP_MAX_VALUES);
    if (sw->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        double *nv = realloc(sw->values, nc * sizeof *nv);
        if (!nv) return cm_err_set(err, CM_EINTERNAL, "out of memory");
        sw->values = nv;
        *cap = nc;
    }
    sw->values[sw->n++] = v;
    return CM_OK;
}

/* lo + i step carries the binary error of step: 0.005:0.05:0.005 would
 * give 0.030000000000000002, a point nobody asked for, printed as such in
 * every table.  The user wrote decimals, so the value meant is the nearest
 * one of 15 significant digits (every double survives a trip through 15
 * digits, so this undoes the error and never invents a coarser grid),
 * unless that would not move past the previous value (a step below 1e-15
 * of the value), where the raw sum is kept. */
static double decimal_step(double v, double prev)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.15g", v);
    double d = strtod(buf, NULL);
    return d > prev ? d : v;
}

/* lo:hi:step, inclusive of hi when the steps land on it (within rounding). */
static cm_status parse_range(cm_sweep *sw, const char *body, size_t *cap,
                             cm_err *err)
{
    const char *c1 = strchr(body, ':');
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    const char *name = sw->param->name;
    if (!c2 || strchr(c2 + 1, ':'))
        return cm_err_set(err, CM_EINPUT,
                          "--sweep %s=%s: expected lo:hi:step", name, body);
    double lo, hi, step;
    cm_status st = parse_value(sw->param, body, (size_t)(c1 - body), &lo, err);
    if (!st)
        st = parse_value(sw->param, c1 + 1, (size_t)(c2 - c1 - 1), &hi, err);
    if (st) return st;
    cm_num_status ns = cm_number_read(c2 + 1, &step);
    if (ns == CM_NUM_OVERFLOW || ns == CM_NUM_UNDERFLOW)
        return cm_err_set(err, CM_EINPUT, "--sweep %s: step '%s' %s", name,
                          c2 + 1, cm_number_why(ns));
    if (ns || !(step > 0))
        return cm_err_set(err, CM_EINPUT,
                          "--sweep %s: step '%s' must be a positive number",
                          name, c2 + 1);
    if (hi < lo)
        return cm_err_set(err, CM_EINPUT, "--sweep %s: hi is below lo", name);
    double count = floor((hi - lo) / step + 1e-9) + 1;
    if (count > CM_SWEEP_MAX_VALUES)
        return cm_err_set(err, CM_EINPUT, "--sweep %s: more than %d values",
                          name, CM_SWEEP_MAX_VALUES);
    for (size_t i = 0; i < (size_t)count && !st; i++) {
        double v = decimal_step(lo + (double)i * step,
                                i ? sw->values[sw->n - 1] : -INFINITY);
        if (sw->param->type == CM_PT_INT) v = round(v);
        if (v > hi) v = hi; /* rounding must not step past the range */
        st = push(sw, cap, v, err);
    }
    return st;
}

cm_status cm_sweep_parse(const char *spec, cm_sweep *sw, cm_err *err)
{
    memset(sw, 0, sizeof *sw);
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1])
        return cm_err_set(err, CM_EINPUT,
                          "--sweep '%s': expected name=lo:hi:step or "
                          "name=v1,v2,...", spec);
    char name[128];
    size_t n = (size_t)(eq - spec);
    if (n >= sizeof name) n = sizeof name - 1;
    memcpy(name, spec, n);
    name[n] = '\0';
    sw->param = cm_param_find(name);
    if (!sw->param)
        return cm_err_set(err, CM_EINPUT,
                          "--sweep: unknown parameter '%s' (see `cohmod "
                          "params`)", name);
    size_t cap = 0;
    const char *body = eq + 1;
    cm_status st;
    if (strchr(body, ':')) {
        st = parse_range(sw, body, &cap, err);
    } else {
        st = CM_OK;
        for (const char *c = body; !st;) {
            const char *comma = strchr(c, ',');
            size_t len = comma ? (size_t)(comma - c) : strlen(c);
            double v;
            st = parse_value(sw->param, c, len, &v, err);
            if (!st) st = push(sw, &cap, v, err);
            if (!comma) break;
            c = comma + 1;
        }
    }
    if (st) cm_sweep_free(sw);
    return st;
}

void cm_sweep_free(cm_sweep *sw)
{
    free(sw->values);
    sw->values = NULL;
    sw->n = 0;
}

cm_status cm_grid_init(cm_grid *g, cm_sweep *sweeps, size_t n, cm_err *err)
{
    memset(g, 0, sizeof *g);
    g->sweeps = sweeps;
    g->nsweeps = n;
    g->index = calloc(n ? n : 1, sizeof *g->index);
    if (!g->index) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    /* A parameter swept twice would have its first values overwritten by
     * the second sweep's at every point, under a header naming it twice. */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (sweeps[i].param == sweeps[j].param) {
                free(g->index);
                g->index = NULL;
                return cm_err_set(err, CM_EINPUT,
                                  "--sweep %s given twice: sweep each "
                                  "parameter once, with all its values",
                                  sweeps[i].param->name);
            }
    g->points = 1;
    for (size_t i = 0; i < n; i++) {
        if (g->points > SIZE_MAX / sweeps[i].n ||
            g->points * sweeps[i].n > 100000000u) {
            free(g->index);
            g->index = NULL;
            return cm_err_set(err, CM_EINPUT,
                              "the sweep grid has more than 1e8 points");
        }
        g->points *= sweeps[i].n;
    }
    if (n > 0) { /* the shard's slice: start the odometer at its first */
        size_t first, end;
        cm_shard_range(&sweeps[0].shard, g->points, &first, &end);
        g->done = first;
        g->points = end;
        for (size_t i = n, rest = first; i-- > 0; rest /= sweeps[i].n)
            g->index[i] = rest % sweeps[i].n;
    }
    return CM_OK;
}

void cm_grid_free(cm_grid *g)
{
    free(g->index);
    g->index = NULL;
}

int cm_grid_next(cm_grid *g, cm_params *p)
{
    if (g->done == g->points) return 0;
    if (g->started) { /* advance the odometer, last sweep fastest */
        for (size_t i = g->nsweeps; i-- > 0;) {
            if (++g->index[i] < g->sweeps[i].n) break;
            g->index[i] = 0;
        }
    }
    for (size_t i = 0; i < g->nsweeps; i++)
        cm_param_put(p, g->sweeps[i].param,
                     g->sweeps[i].values[g->index[i]]);
    g->started = 1;
    g->done++;
    return 1;
}
