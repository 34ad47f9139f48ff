/* directory_impl.h - internals of directory.c (not part of the public
 * API; see directory.h): the L1 capacity's fixed point of lines in
 * flight, open to the tests, which hold its root finder to the damped
 * iteration it replaced. */
#ifndef CM_DIRECTORY_IMPL_H
#define CM_DIRECTORY_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "data/params.h"
#include "models/dist.h"
#include "models/mrc.h"
#include "models/profile.h"

/* The capacity's inputs at one machine (directory.c, "capacity"): the
 * core's load stack distances, exactly per set where the profile has the
 * set-local cells at this set count, else under the binomial set model. */
typedef struct cm_directory_capacity {
    const cm_dist *dist;    /* l1.load_distance */
    const cm_point *cells;  /* joint.l1.set_mates_<b>; NULL: binomial */
    size_t ncells;
    double all;             /* dist's loads, those at infinity included */
    cm_mrc_setassoc_geo geo;
    uint64_t ways;
    double mshrs;           /* l1.mshrs */
    double scale;           /* loads per core per cycle x round trip */
} cm_directory_capacity;

/* From the machine p, the profile and its l1.load_distance (dist),
 * loads per cycle of the whole machine and the round trip (cycles). */
void cm_directory_capacity_init(cm_directory_capacity *c, const cm_params *p,
                                const cm_profile *prof, const cm_dist *dist,
                                double loads, double rtt);
/* P(a load hits) with `extra` lines in flight holding no way. */
double cm_directory_capacity_hit(const cm_directory_capacity *c,
                                 double extra);
/* The lines in flight those hits leave: min(l1.mshrs, P(miss) x scale). */
double cm_directory_capacity_want(const cm_directory_capacity *c,
                                  double extra);
/* P(a load hits) at the fixed point extra = want(extra), found to within
 * CM_DIRECTORY_CAP_TOL lines (*extra, may be NULL: the point). */
#define CM_DIRECTORY_CAP_TOL 1e-3
double cm_directory_capacity_solve(const cm_directory_capacity *c,
                                   double *extra);

#endif
