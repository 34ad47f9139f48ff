/* ci.h - confidence intervals and error metrics shared by the simulator's
 * statistics and the models' validation.
 *
 * Intervals are by batch means: a run is cut into n windows (batches) whose
 * estimates are treated as independent and roughly normal, so the mean of
 * the n values has a Student-t interval with n-1 degrees of freedom (Law &
 * Kelton, "Simulation Modeling and Analysis", ch. 9; quantiles from GSL's
 * gsl_cdf_tdist_Pinv).  Ratios of sums (miss ratio = misses / accesses,
 * time-weighted means = integral / time) use the classical ratio estimator
 * R = sum y / sum x, whose variance comes from the residuals y_i - R x_i by
 * the delta method (Cochran, "Sampling Techniques", ch. 6); with equal x_i
 * it reduces to batch means of the y_i / x_i.
 *
 * A count of rare events (recalls over their opportunities) has the exact
 * Poisson interval instead.
 *
 * With fewer than 2 values there is no spread to measure: the bounds are NaN
 * (printed "nan"), never a made-up zero-width interval.  Arrays are read with
 * a stride, as GSL's statistics functions do, so a column of a row-major
 * table needs no copy. */
#ifndef CM_CI_H
#define CM_CI_H

#include <stddef.h>

typedef struct cm_ci {
    double value;  /* the point estimate */
    double lo, hi; /* two-sided interval at the requested level, or NaN */
} cm_ci;

/* The t such that P(|T| <= t) = level for Student's T with dof degrees of
 * freedom (12.706 for dof 1, level 0.95).  NaN unless 0 < level < 1 and
 * dof > 0. */
double cm_ci_t_quantile(double level, double dof);

/* Batch means: the mean of x[0], x[stride], ... (n values) and its interval
 * mean +- t s / sqrt(n), s the sample standard deviation.  n == 0: all NaN. */
void cm_ci_mean(const double *x, size_t stride, size_t n, double level,
                cm_ci *out);

/* Ratio estimator R = sum num / sum den over n windows, with interval
 * R +- t sqrt(sum (num_i - R den_i)^2 / (n - 1) / n) / mean(den).
 * A zero denominator sum gives NaN. */
void cm_ci_ratio(const double *num, const double *den, size_t stride, size_t n,
                 double level, cm_ci *out);

/* The exact 95% interval of a Poisson mean from n >= 0 events counted
 * (Garwood 1936): [chi2(0.025; 2n) / 2, chi2(0.975; 2n + 2) / 2], the
 * lower end 0 at n = 0.  A simulated rate of rare events (recalls) is
 * such a count over its opportunities. */
void cm_ci_poisson95(double n, double *lo, double *hi);

/* (hi - lo) / 2: the figure tables print as "ci95_halfwidth". */
double cm_ci_halfwidth(const cm_ci *ci);

/* The standard error a 95% interval [lo, hi] stands for, (hi - lo) /
 * (2 x 1.96) (normal); 0 when there is no interval (NaN or empty bounds),
 * so a fit's weight falls back to its floor. */
double cm_ci95_se(double lo, double hi);

/* (estimate - reference) / |reference|; 0 when both are 0, +-inf when only
 * the reference is. */
double cm_rel_error(double estimate, double reference);

/* Mean and maximum of |cm_rel_error| over n pairs (NaN when n == 0). */
void cm_rel_error_summary(const double *estimate, const double *reference,
                          size_t n, double *mean_abs, double *max_abs);

#endif
