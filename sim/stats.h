/* stats.h - the simulator's one statistics registry (design.md, property 2).
 *
 * Components register statistics at setup, under a dotted metric name and a
 * component label ("l1.mshr.occupancy" of "sm3"; "all" for machine-wide).
 * Registration may allocate; the updates below are O(1), allocation-free
 * inline functions, safe in the event loop.  Three kinds:
 *  - counter: a sum (of events, bytes, cycles...), kept as a double, exact
 *    for integers up to 2^53;
 *  - occupancy: a level over time; cm_stat_level(s, v, now) charges the
 *    previous level for the cycles since the last change, into bins 0..max
 *    (a level above max counts in bin max, but with its true value in the
 *    mean); a level (cm_stats_level) keeps the time average alone;
 *  - latency: samples with count, sum, sum of squares, min, max and a
 *    histogram of log2 bins ([0,1), [1,2), [2,4), ...) or linear bins of a
 *    given width; the last bin also takes everything above it.
 * Every statistic keeps its sums as one vector of doubles, so windows,
 * merges across components and merges of registries are all the same
 * vector addition.
 *
 * Windows (batch means).  cm_stats_window_begin/end bracket a detailed
 * sampling window; the end appends each statistic's change over the window.
 * Once a registry has windows, every reported value is estimated from the
 * windows alone (what happened outside them, e.g. detailed warming, is not
 * measured), with a 95% Student-t interval across windows (solvers/ci.h):
 * counters report the sum over windows with n times the batch-means interval
 * of the per-window sums; means and fractions use the ratio estimator
 * (integral / time, sum / count).  Without windows, values cover the whole
 * run.  With fewer than 2 windows (an unsampled run has none), and for
 * min, max and stddev always, the interval columns are NaN, written empty.
 * A value undefined on the run (a mean or ratio over no events: a bank no
 * request reached) is NaN too, and its cell empty.
 *
 * Output rows, for a statistic named X:
 *  - counter:   X
 *  - occupancy: X_mean (time-weighted mean level), X.frac_at_<k> for
 *               k = 0..max-1 (time fraction at level k) and
 *               X.frac_at_<max>_or_more, and the full fraction (the same
 *               as the last) under the name given at registration, default
 *               X_full_fraction;
 *  - level:     X_mean;
 *  - latency:   X_count, X_mean, X_stddev (population), X_min, X_max, and
 *               per bin [lo, hi) the fraction of samples in it,
 *               X.frac_in_<lo>_<hi> (edges 0, 1, 2, 4, ... or 0, w, 2w,
 *               ...), the last bin X.frac_from_<lo>;
 *  - ratio:     X = sum of the numerator counter / sum of the denominator.
 * Written as CSV `metric,component,value,ci95_lo,ci95_hi`, numbers by
 * cm_fmt_double, rows sorted by metric then component, both in natural order
 * (sm2 before sm10, p9 before p10), component "all" first: the same registry
 * always gives the same bytes. */
#ifndef CM_STATS_H
#define CM_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/statrows.h"

typedef enum cm_stat_kind {
    CM_STAT_COUNTER,
    CM_STAT_OCCUPANCY,
    CM_STAT_LEVEL,
    CM_STAT_LATENCY
} cm_stat_kind;


/* A registered statistic.  The fields are public only so the updates can be
 * inlined; read results through cm_stats_rows. */
typedef struct cm_stat {
    cm_stat_kind kind;
    uint32_t top;   /* the last bin: occupancy max, latency bins - 1 */
    uint32_t level; /* occupancy: current level */
    uint64_t since; /* occupancy: time of the last change */
    double width;   /* latency: linear bin width, 0 for log2 bins */
    double lo, hi;  /* latency: smallest and largest sample of the run */
    /* The sums: counter [value]; occupancy [time, integral, time at 0..max];
     * latency [count, sum, sum of squares, count in bin 0..max]. */
    double *acc;
} cm_stat;

typedef struct cm_stats cm_stats;

cm_stats *cm_stats_new(void); /* NULL when out of memory */
void cm_stats_free(cm_stats *reg);

/* ---- registration (setup time; handles live as long as the registry) -- */

/* A (name, component) pair may be registered once.  Names are non-empty,
 * at most CM_STAT_NAME_MAX bytes, without commas or quotes. */
cm_status cm_stats_counter(cm_stats *reg, const char *name,
                           const char *component, cm_stat **out, cm_err *err);
/* full_name: the metric of the time fraction at max (NULL: X_full_fraction).
 * The level starts at 0 at time 0. */
cm_status cm_stats_occupancy(cm_stats *reg, const char *name,
                             const char *component, uint32_t max,
                             const char *full_name, cm_stat **out, cm_err *err);
/* A level's time average alone (cm_stat_level updates it), e.g. a
 * lifetime that changes now and then. */
cm_status cm_stats_level(cm_stats *reg, const char *name,
                         const char *component, cm_stat **out, cm_err *err);
/* bins >= 1; width 0 gives log2 bins, width > 0 linear bins. */
cm_status cm_stats_latency(cm_stats *reg, const char *name,
                           const char *component, uint32_t bins, double width,
                           cm_stat **out, cm_err *err);
/* A derived row name = num / den, both counters of this registry. */
cm_status cm_stats_ratio(cm_stats *reg, const char *name, const char *component,
                         const cm_stat *num, const cm_stat *den, cm_err *err);

/* ---- updates (event loop: O(1), no allocation) ------------------------ */

static inline void cm_stat_add(cm_stat *s, double v)
{
    s->acc[0] += v;
}

static inline void cm_stat_level(cm_stat *s, uint32_t level, uint64_t now)
{
    if (now > s->since) {
        double dt = (double)(now - s->since);
        uint32_t bin = s->level < s->top ? s->level : s->top;
        s->acc[0] += dt;
        s->acc[1] += dt * s->level;
        s->acc[2 + bin] += dt;
        s->since = now;
    }
    s->level = level;
}

/* An occupancy statistic's time-average level so far (charged up to its
 * last change: sync first for the level up to now); 0 before any time. */
static inline double cm_stat_occupancy_mean(const cm_stat *s)
{
    return s->acc[0] > 0 ? s->acc[1] / s->acc[0] : 0;
}

uint32_t cm_stat_bin_log2(double x, uint32_t top); /* for cm_stat_sample */

static inline void cm_stat_sample(cm_stat *s, double x)
{
    uint32_t bin;
    if (s->width > 0) {
        double b = x / s->width;
        bin = b < s->top ? (b > 0 ? (uint32_t)b : 0) : s->top;
    } else {
        bin = cm_stat_bin_log2(x, s->top);
    }
    s->acc[0] += 1;
    s->acc[1] += x;
    s->acc[2] += x * x;
    s->acc[3 + bin] += 1;
    if (x < s->lo) s->lo = x;
    if (x > s->hi) s->hi = x;
}

/* ---- time, windows, merging ------------------------------------------- */

/* Charges every occupancy statistic's level up to `now`; call it at the end
 * of a run, before reading rows. */
void cm_stats_sync(cm_stats *reg, uint64_t now);

/* Begin and end a measurement window at `now` (both sync first).  Errors:
 * begin inside a window, end outside one, out of memory. */
cm_status cm_stats_window_begin(cm_stats *reg, uint64_t now, cm_err *err);
cm_status cm_stats_window_end(cm_stats *reg, uint64_t now, cm_err *err);
size_t cm_stats_windows(const cm_stats *reg);
/* Weighs closed window k by w >= 0, the share of a sampling period it
 * stands for (sim/gpu.c: a period the run's end cut short): its changes are
 * scaled, so sums and ratio estimators take it at that weight.  Errors: k
 * not a closed window, w negative or not finite. */
cm_status cm_stats_window_weight(cm_stats *reg, size_t k, double w,
                                 cm_err *err);

/* For every metric registered by components other than "all" (and not
 * registered as "all" by anyone), (re)builds an "all" statistic: the sum of
 * the components' sums, window by window, so counters add up, occupancy
 * means and fractions average over the components and latency samples pool.
 * Ratios get an "all" ratio of the "all" numerator and denominator.  The
 * components of one metric must agree in kind and bins. */
cm_status cm_stats_merge_all(cm_stats *reg, cm_err *err);

/* Adds src into dst: the same statistics (name, component, kind, bins) must
 * be registered in both, in any order.  Sums add, min and max combine, and
 * src's windows are appended after dst's (two runs' windows are separate
 * batches).  Neither may be inside a window.  On error dst is unchanged. */
cm_status cm_stats_merge(cm_stats *dst, const cm_stats *src, cm_err *err);

/* ---- results ---------------------------------------------------------- */

/* Calls fn for every registered statistic and ratio, in registration
 * order, with its name, kind (ratios: CM_STAT_COUNTER, ratio = 1) and, for
 * an occupancy, the name of its full fraction; stops at fn's first error.
 * Registries (data/metrics.def) check their names this way. */
typedef cm_status (*cm_stats_name_fn)(void *arg, const char *name,
                                      cm_stat_kind kind, int ratio,
                                      const char *full, cm_err *err);
cm_status cm_stats_each(const cm_stats *reg, cm_stats_name_fn fn, void *arg,
                        cm_err *err);

/* Every output row, sorted as written; *rows is malloc'd (caller frees). */
cm_status cm_stats_rows(const cm_stats *reg, cm_stat_row **rows, size_t *n,
                        cm_err *err);

/* Writes the rows as CSV to path ("-" or NULL: stdout), atomically. */
cm_status cm_stats_write(const cm_stats *reg, const char *path, cm_err *err);

#endif
