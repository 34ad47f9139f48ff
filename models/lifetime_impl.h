/* lifetime_impl.h - internals shared by lifetime.c and lifetime_pred.c
 * (not part of the public API; see lifetime.h). */
#ifndef CM_LIFETIME_IMPL_H
#define CM_LIFETIME_IMPL_H

#include <gsl/gsl_math.h>

#include "data/err.h"
#include "models/dist.h"
#include "models/lifetime.h"

/* P(X / k + D <= L): a time X of the profile, on a machine k times as
 * fast, after a delay D that does not scale (NULL: D = 0); exact per bin
 * of D (lifetime.c). */
double cm_lifetime_delayed_cdf(const cm_dist *x, const cm_dist *delay, double L,
                               double k);

/* L2 evictions per cycle whose line was younger than L (parked). */
double cm_lifetime_evict_young(const cm_lifetime_input *in, double L);

/* The root of f in [lo, hi] by GSL's Brent (f changes sign there); what
 * names the solve in an error. */
cm_status cm_lifetime_brent_root(gsl_function *f, double lo, double hi,
                                 double *root, const char *what, cm_err *err);

#endif
