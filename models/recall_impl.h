/* recall_impl.h - internals shared by recall.c and recall_geom.c (not part
 * of the public API; see recall.h): the footprint function, the L2's
 * geometry, GPU-VIni's measured sets and the reply ports' work per
 * access. */
#ifndef CM_RECALL_IMPL_H
#define CM_RECALL_IMPL_H

#include <stddef.h>

#include "data/err.h"
#include "data/params.h"
#include "models/dist.h"
#include "models/profile.h"
#include "models/recall.h"

/* The footprint function (recall_geom.c, "Footprint"): m(x) = P(SD >= x)
 * is linear between consecutive edges x[k]; r[k] is the number of
 * accesses a window needs to hold x[k] distinct lines (INFINITY once the
 * footprint has saturated). */
typedef struct cm_recall_fp {
    size_t n;
    double *x, *m, *r;
    double m_tail; /* m beyond the last edge: the cold share */
} cm_recall_fp;

cm_status cm_recall_fp_build(const cm_dist *sd, cm_recall_fp *f, cm_err *err);
void cm_recall_fp_free(cm_recall_fp *f);
/* r(x): accesses for a window to hold x distinct lines. */
double cm_recall_fp_accesses(const cm_recall_fp *f, double x);
/* g(r) = r^-1: distinct lines in a window of r accesses. */
double cm_recall_fp_lines(const cm_recall_fp *f, double r);
/* The same, for a walk at increasing x (or r): *seg (0 at first) is the
 * segment the last call found, where this one starts looking instead of
 * searching every segment; the answer is the same wherever it starts. */
double cm_recall_fp_accesses_near(const cm_recall_fp *f, double x,
                                  size_t *seg);
double cm_recall_fp_lines_near(const cm_recall_fp *f, double r, size_t *seg);

/* The L2 as a cache: l2.banks x floor(bank lines / l2.ways) sets. */
cm_status cm_recall_l2_geometry(const cm_params *p, uint64_t *sets,
                                uint64_t *ways, cm_err *err);

/* GPU-VIni's sets measured under its own index (recall_geom.c, "Sets"):
 * fills in->q_*, in->nq and in->dir_sets from the profile's rows at the
 * geometry of p, for a run of run_scale times the profiled run's GETS
 * ("The run's length"; 1: as profiled; in->run_rows says whether the
 * profile measures how lines grow).  Leaves in->nq 0 (the
 * binomial) without the rows. */
cm_status cm_recall_measured_sets(const cm_params *p, const cm_profile *prof,
                                  double run_scale, cm_recall_input *in,
                                  cm_err *err);
/* The part of cm_recall_measured_sets that the run's length moves
 * (in->q_cold, in->q_sets_over, in->dir_sets, in->run_rows), for an input
 * it has filled at the same machine p: the set-local Q is the same at
 * every run_scale. */
cm_status cm_recall_measured_run(const cm_params *p, const cm_profile *prof,
                                 double run_scale, cm_recall_input *in,
                                 cm_err *err);

/* The reply port's flits per directory access: loads' share load_share
 * of data replies, the rest one-header acks, plus rcl_per_access RCLs
 * (cm_msg_flits on the machine p). */
double cm_recall_port_work(const cm_params *p, double load_share,
                           double rcl_per_access);

#endif
