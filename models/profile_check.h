/* profile_check.h - the numeric domain of a timing profile, checked before
 * a model reads it.
 *
 * A profile (models/profile.h) holds times in cycles, per-cycle rates and
 * counts measured over a simulation of at most 1e15 cycles (the largest
 * sim.max_cycles), so a number far beyond that is a corrupt or hostile
 * file, and the models' arithmetic on it overflows: a rate of 1e308 made
 * `model lifetime` fail with "drift is not finite", an internal failure,
 * where the fault was the input.  This check names the cell instead. */
#ifndef CM_PROFILE_CHECK_H
#define CM_PROFILE_CHECK_H

#include "data/err.h"

/* Times (lo, hi) and rates: |x| <= CM_PROFILE_MAX, and not underflowing. */
#define CM_PROFILE_MAX 1e15
/* A bin's weight (a count or a probability; only ratios matter). */
#define CM_PROFILE_MAX_WEIGHT 1e30

/* CM_EINPUT "file:line:col: column 'value': 1e+308 is beyond ..." for the
 * first number out of the domain; CM_OK otherwise, also for what is not a
 * number at all or a missing column, which cm_profile_read reports in its
 * own words, and for stdin ("-"), which cannot be read twice. */
cm_status cm_profile_check_file(const char *path, cm_err *err);

#endif
