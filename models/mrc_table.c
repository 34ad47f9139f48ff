/* mrc_table.c - miss-ratio curves and set-associative predictions as
 * tables (see mrc_table.h). */
#include "models/mrc_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include "models/mrc.h"

#define MAX_GRID 1024

size_t cm_mrc_grid(const cm_mrc_method *m, size_t n, unsigned per_octave,
                   double *caps, size_t cap)
{
    size_t best = 0;
    double *tmp = malloc(cap * sizeof *tmp);
    if (!tmp) return 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = cm_mrc_default_capacities(m[i].hist, per_octave, tmp, cap);
        if (k > best) {
            best = k;
            for (size_t j = 0; j < k; j++) caps[j] = tmp[j];
        }
    }
    free(tmp);
    return best;
}

int cm_mrc_method_curve(const cm_mrc_method *m, const double *caps,
                        size_t n, double *mr, double *lo, double *hi,
                        double *half)
{
    cm_mrc_fa(m->hist, caps, n, mr);
    double h = n ? cm_mrc_fa_interval(m->reps, m->nreps, m->hist->rate, caps,
                                      n, mr, lo, hi)
                 : 0;
    if (isnan(h)) return -1;
    double s = m->resolved_lines / 4; /* a sampled distance's half-step */
    if (s > 0 && n > 0) {
        double *w = malloc(4 * n * sizeof *w);
        if (!w) return -1;
        double *c2 = w, *m2 = w + n, *l2 = w + 2 * n, *h2 = w + 3 * n;
        for (int side = -1; side <= 1; side += 2) {
            for (size_t j = 0; j < n; j++) c2[j] = fmax(0, caps[j] + side * s);
            cm_mrc_fa(m->hist, c2, n, m2);
            if (isnan(cm_mrc_fa_interval(m->reps, m->nreps, m->hist->rate,
                                         c2, n, m2, l2, h2))) {
                free(w);
                return -1;
            }
            for (size_t j = 0; j < n; j++) {
                lo[j] = fmin(lo[j], l2[j]);
                hi[j] = fmax(hi[j], h2[j]);
            }
        }
        free(w);
        h = 0;
        for (size_t j = 0; j < n; j++) h += (hi[j] - lo[j]) / 2 / (double)n;
    }
    if (half) *half = h;
    return 0;
}

cm_status cm_mrc_curve_table(const cm_mrc_method *m, size_t n,
                             uint64_t line_bytes, unsigned per_octave,
                             cm_table **out, cm_err *err)
{
    static const char *const header[] = {
        "method",        "capacity_lines", "capacity_bytes", "miss_ratio",
        "sampling_rate", "ci95_lo",        "ci95_hi",        "resolved"};
    double caps[MAX_GRID], mr[MAX_GRID], lo[MAX_GRID], hi[MAX_GRID];
    size_t k = cm_mrc_grid(m, n, per_octave, caps, MAX_GRID);
    *out = cm_table_new(8, header);
    if (!*out) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st = CM_OK;
    for (size_t i = 0; i < n && !st; i++) {
        if (cm_mrc_method_curve(&m[i], caps, k, mr, lo, hi, NULL)) {
            st = cm_err_set(err, CM_EINTERNAL, "out of memory");
            break;
        }
        char c[6][32];
        cm_fmt_double(c[3], m[i].hist->rate);
        for (size_t j = 0; j < k && !st; j++) {
            int resolved = caps[j] >= m[i].resolved_lines;
            cm_fmt_double(c[0], caps[j]);
            cm_fmt_double(c[1], caps[j] * (double)line_bytes);
            cm_fmt_optional(c[2], resolved ? mr[j] : NAN);
            cm_fmt_optional(c[4], resolved ? lo[j] : NAN);
            cm_fmt_optional(c[5], resolved ? hi[j] : NAN);
            const char *row[] = {m[i].name, c[0], c[1], c[2],
                                 c[3],      c[4], c[5], resolved ? "yes"
                                                                 : "no"};
            st = cm_table_append(*out, row, err);
        }
    }
    if (st) {
        cm_table_free(*out);
        *out = NULL;
    }
    return st;
}

cm_status cm_mrc_geometry_table(const cm_mrc_method *m, size_t n,
                                const cm_setlocal *sl,
                                const cm_spatial *sp,
                                const uint64_t *sets, size_t nsets,
                                const uint64_t *ways, size_t nways,
                                uint64_t line_bytes, cm_table **out,
                                cm_err *err)
{
    static const char *const header[] = {
        "method", "sets", "ways", "line", "capacity_lines", "miss_ratio_fa",
        "miss_ratio_setlocal", "miss_ratio_setassoc", "miss_ratio_binomial"};
    *out = cm_table_new(9, header);
    if (!*out) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st = CM_OK;
    for (size_t i = 0; i < n && !st; i++)
        for (size_t s = 0; s < nsets && !st; s++)
            for (size_t w = 0; w < nways && !st; w++) {
                double lines = (double)sets[s] * (double)ways[w], fa, sl_mr,
                       sa, bi;
                cm_mrc_fa(m[i].hist, &lines, 1, &fa);
                st = cm_setlocal_miss_ratio(sl, sets[s], ways[w], &sl_mr,
                                            err);
                if (!st)
                    st = cm_mrc_setassoc_spatial(m[i].hist, sp, sets[s],
                                                 ways[w], &sa, err);
                if (!st)
                    st = cm_mrc_setassoc(m[i].hist, sets[s], ways[w], &bi,
                                         err);
                if (st) break;
                char c[8][32];
                snprintf(c[0], 32, "%llu", (unsigned long long)sets[s]);
                snprintf(c[1], 32, "%llu", (unsigned long long)ways[w]);
                snprintf(c[2], 32, "%llu", (unsigned long long)line_bytes);
                cm_fmt_double(c[3], lines);
                cm_fmt_double(c[4], fa);
                cm_fmt_double(c[5], sl_mr);
                cm_fmt_double(c[6], sa);
                cm_fmt_double(c[7], bi);
                const char *row[] = {m[i].name, c[0], c[1], c[2], c[3],
                                     c[4],      c[5], c[6], c[7]};
                st = cm_table_append(*out, row, err);
            }
    if (st) {
        cm_table_free(*out);
        *out = NULL;
    }
    return st;
}

double cm_mrc_fa_interval(const cm_reuse_hist *reps, size_t g, double rate,
                          const double *caps, size_t n, const double *mr,
                          double *lo, double *hi)
{
    if (n == 0) return NAN;
    double *y = g >= 2 ? malloc(g * n * sizeof *y) : NULL;
    if (g >= 2 && !y) return NAN;
    double t = g >= 2 ? gsl_cdf_tdist_Pinv(0.975, (double)(g - 1)) : 0;
    double fpc = fmax(0, 1 - rate);
    for (size_t r = 0; y && r < g; r++) cm_mrc_fa(&reps[r], caps, n, y + r * n);
    double sum_half = 0;
    for (size_t j = 0; j < n; j++) {
        double mean = 0, ss = 0;
        for (size_t r = 0; y && r < g; r++) mean += y[r * n + j] / (double)g;
        for (size_t r = 0; y && r < g; r++)
            ss += (y[r * n + j] - mean) * (y[r * n + j] - mean);
        double half =
            y ? t * sqrt(fpc * (double)(g - 1) / (double)g * ss) : 0;
        lo[j] = fmax(0, mr[j] - half);
        hi[j] = fmin(1, mr[j] + half);
        sum_half += half;
    }
    free(y);
    return sum_half / (double)n;
}

size_t cm_mrc_linear_grid(const cm_reuse_hist *h, size_t n, double *caps)
{
    double footprint = h->cold > 1 ? h->cold : 1;
    for (size_t i = 0; i < n; i++)
        caps[i] = footprint * (double)(i + 1) / (double)n;
    return n;
}

double cm_mrc_mae(const cm_reuse_hist *a, const cm_reuse_hist *b,
                  const double *caps, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += fabs(cm_reuse_hist_miss_ratio(a, caps[i]) -
                    cm_reuse_hist_miss_ratio(b, caps[i]));
    return n ? sum / (double)n : NAN;
}
