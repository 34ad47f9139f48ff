/* lhs.c - sliced Latin hypercube designs (lhs.h). */
#include "solvers/lhs.h"

#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

static void identity(size_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = i;
}

cm_status cm_lhs_sliced(unsigned long seed, size_t slices, size_t per_slice,
                        size_t dims, double *u, cm_err *err)
{
    if (slices == 0 || per_slice == 0)
        return cm_err_set(err, CM_EINPUT, "Latin hypercube: no points");
    const size_t S = slices, m = per_slice, N = S * m;
    if (N / S != m || N > ((size_t)1 << 32))
        return cm_err_set(err, CM_EINPUT, "Latin hypercube: too many points");
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    size_t *slice_of = malloc(S * m * sizeof *slice_of); /* p_c, by c */
    size_t *coarse = malloc(m * sizeof *coarse);         /* t_s */
    if (!rng || !slice_of || !coarse) {
        gsl_rng_free(rng);
        free(slice_of);
        free(coarse);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    gsl_rng_set(rng, seed);
    for (size_t k = 0; k < dims; k++) {
        for (size_t c = 0; c < m; c++) {
            identity(slice_of + c * S, S);
            gsl_ran_shuffle(rng, slice_of + c * S, S, sizeof *slice_of);
        }
        for (size_t s = 0; s < S; s++) {
            identity(coarse, m);
            gsl_ran_shuffle(rng, coarse, m, sizeof *coarse);
            for (size_t j = 0; j < m; j++) {
                size_t c = coarse[j];
                double fine = (double)(c * S + slice_of[c * S + s]);
                u[(s * m + j) * dims + k] =
                    (fine + gsl_rng_uniform(rng)) / (double)N;
            }
        }
    }
    gsl_rng_free(rng);
    free(slice_of);
    free(coarse);
    return CM_OK;
}
