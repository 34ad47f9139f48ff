/* ci.c - batch-means and ratio-estimator intervals (see ci.h).
 *
 * GSL supplies the mean, the standard deviation and the t and chi-square
 * quantiles; what is left here is the ratio estimator's residual variance,
 * which GSL lacks, and the Poisson interval's large-count form, where GSL's
 * chi-square quantile fails. */
#include "solvers/ci.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>

double cm_ci_t_quantile(double level, double dof)
{
    if (!(level > 0 && level < 1) || !(dof > 0)) return NAN;
    return gsl_cdf_tdist_Pinv(0.5 + 0.5 * level, dof);
}

/* Fills the interval value +- t sd / sqrt(n), or NaN bounds for n < 2. */
static void set_interval(cm_ci *out, double value, double sd, size_t n,
                         double level)
{
    out->value = value;
    out->lo = out->hi = NAN;
    if (n < 2) return;
    double half =
        cm_ci_t_quantile(level, (double)(n - 1)) * sd / sqrt((double)n);
    out->lo = value - half;
    out->hi = value + half;
}

void cm_ci_mean(const double *x, size_t stride, size_t n, double level,
                cm_ci *out)
{
    if (n == 0) {
        set_interval(out, NAN, NAN, 0, level);
        return;
    }
    double m = gsl_stats_mean(x, stride, n);
    set_interval(out, m, n > 1 ? gsl_stats_sd_m(x, stride, n, m) : NAN, n,
                 level);
}

void cm_ci_ratio(const double *num, const double *den, size_t stride, size_t n,
                 double level, cm_ci *out)
{
    double sy = 0, sx = 0;
    for (size_t i = 0; i < n; i++) {
        sy += num[i * stride];
        sx += den[i * stride];
    }
    double r = sx != 0 ? sy / sx : NAN;
    double ss = 0;
    for (size_t i = 0; i < n; i++) {
        double d = num[i * stride] - r * den[i * stride];
        ss += d * d;
    }
    /* sd of the residuals over the mean denominator: the delta method's
     * standard deviation of one window's ratio. */
    double sd = n > 1 ? sqrt(ss / (double)(n - 1)) / fabs(sx / (double)n) : NAN;
    set_interval(out, r, sd, n, level);
}

/* chi2(p; 2m) / 2 by the Wilson-Hilferty cube, z the normal quantile */
static double wilson_hilferty(double m, double z)
{
    double c = 1 - 1 / (9 * m) + z / (3 * sqrt(m));
    return m * c * c * c;
}

void cm_ci_poisson95(double n, double *lo, double *hi)
{
    /* GSL's chi-square quantile fails to converge at some counts from
     * 2316 on (and its default handler aborts); from 100 on the cube is
     * within 1e-4 of the exact ends */
    if (n > 100) {
        double z = gsl_cdf_ugaussian_Pinv(0.975);
        *lo = wilson_hilferty(n, -z);
        *hi = wilson_hilferty(n + 1, z);
        return;
    }
    *lo = n > 0 ? gsl_cdf_chisq_Pinv(0.025, 2 * n) / 2 : 0;
    *hi = gsl_cdf_chisq_Pinv(0.975, 2 * n + 2) / 2;
}

double cm_ci_halfwidth(const cm_ci *ci)
{
    return 0.5 * (ci->hi - ci->lo);
}

double cm_ci95_se(double lo, double hi)
{
    double w = hi - lo;
    return isfinite(w) && w > 0 ? w / (2 * 1.96) : 0;
}

double cm_rel_error(double estimate, double reference)
{
    if (reference == 0) return estimate == 0 ? 0 : copysign(INFINITY, estimate);
    return (estimate - reference) / fabs(reference);
}

void cm_rel_error_summary(const double *estimate, const double *reference,
                          size_t n, double *mean_abs, double *max_abs)
{
    double sum = 0, mx = n ? 0 : NAN;
    for (size_t i = 0; i < n; i++) {
        double e = fabs(cm_rel_error(estimate[i], reference[i]));
        sum += e;
        if (e > mx || isnan(e)) mx = e;
    }
    if (mean_abs) *mean_abs = n ? sum / (double)n : NAN;
    if (max_abs) *max_abs = mx;
}
