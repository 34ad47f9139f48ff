/* recall.h - recall rate of a finite coherence directory against its size
 * and associativity (spec/models.md section 3, seed 000).
 *
 * The mathematics, assumptions and approximations are in the header comment
 * of recall.c and recall_geom.c (sets, footprint, the run's length),
 * and recall.c's states the measured domain of validity.  Usage: read a
 * workload profile (models/profile.h), fill a cm_recall_input with
 * cm_recall_input_from_params, call cm_recall_solve (or both in one:
 * cm_recall_predict, when the input is not edited in between);
 * or evaluate a whole parameter grid with cm_recall_grid_table.
 *
 * Profile quantities read (exact names; the simulator writes them):
 *   dist dir.stack_distance  per directory (GPU-VIni) or L2 (GPU-VI, MESI)
 *                            access of the L1-miss stream: its line-granular
 *                            LRU stack distance, in distinct lines; inf =
 *                            first access to the line (cold)
 *   dist l1.residency        per L1 fill: cycles from the fill to its
 *                            capacity eviction; inf if none.  The right
 *                            clock: a copy invalidated by a store leaves the
 *                            sharer list, one recalled would still be there
 *   dist dir.sharers         per directory-entry eviction: the number of
 *                            distinct L1s on its sharer list (those that
 *                            fetched the line during the entry's lifetime;
 *                            0 allowed, no weight at inf)
 *   rate.dir_accesses        directory accesses per core cycle, whole machine
 *   dist dir.alloc_distance  optional, GPU-VIni: per GETS, its stack distance
 *                            over the requests to lines loaded before (the
 *                            directory's own stream: only loads allocate);
 *                            needs rate.l2_loads (GETS per cycle) and reads
 *                            rate.dir_alloc_footprint (lines loaded) if there
 *   dist dir.empty_distance  optional, GPU-VIni, with dir.empty_gap and
 *                            rate.dir_empties: per store or atomic that
 *                            empties a sharer list, its distance in that
 *                            stream; dir.empty_gap: GETS until the line's
 *                            next GETS (inf: none)
 *   rate.dir_footprint       optional: distinct lines the profiled run
 *                            touched; without it every cold miss is taken
 *                            to evict (a long run's steady state)
 *   rate.l1_lines            optional, with l1.load_distance: the profiled
 *                            L1's lines, to carry l1.residency to another
 *                            l1.size (cm_recall_residency_scale)
 *   joint.dir.set_mates_<b>  optional, GPU-VIni, with joint.dir.index_lines
 *                            and rate.l2_banks: the directory's sets measured
 *                            under its own index of b bits (2^b sets per
 *                            bank), per GETS with a finite stack distance d
 *                            (x, a cell's mean) the distinct lines of its set
 *                            requested since its last request (y, the cell's
 *                            mean; 64: at least 64): it misses iff y >= W
 *   joint.dir.index_lines    for every number of index bits b (x), the
 *                            (bank, index) pairs by the lines of the run they
 *                            hold (y), weight the pairs (cold misses)
 *   rate.l2_banks            the banks the directory is split over (the L2
 *                            geometry is the l2.* parameters)
 *   joint.dir.index_late_<b> optional, GPU-VIni: per index pair of n lines
 *                            (x), the mean of them first loaded in the
 *                            run's last quarter of GETS (y): the rate a
 *                            longer run adds lines at (recall_geom.c,
 *                            "The run's length"; without it the lines are
 *                            the profiled run's at every geometry)
 * Count-valued distributions (stack distance, sharers) read a bin [lo, hi)
 * as the integers lo .. hi-1 with equal weight, as models/setassoc.c does. */
#ifndef CM_RECALL_H
#define CM_RECALL_H

#include <stddef.h>
#include <stdint.h>

#include "data/err.h"
#include "data/params.h"
#include "data/progress.h"
#include "data/sweep.h"
#include "data/table.h"
#include "models/dist.h"
#include "models/profile.h"

typedef enum cm_recall_protocol {
    CM_RECALL_GPU_VI = 0, /* directory in the inclusive L2's tags */
    CM_RECALL_GPU_VINI,   /* separate R x (L1 lines) W-way directory */
    CM_RECALL_MESI        /* inclusive L2; recalls owner or sharers */
} cm_recall_protocol;

/* "gpu-vi", "gpu-vini", "mesi" (case-sensitive). */
cm_status cm_recall_protocol_parse(const char *name, cm_recall_protocol *out,
                                   cm_err *err);
const char *cm_recall_protocol_name(cm_recall_protocol p);

/* Most points of a measured Q(d) (recall_geom.c, "Sets"). */
#define CM_RECALL_QPTS 50

typedef struct cm_recall_input {
    const cm_dist *stack_distance; /* dir.stack_distance (not owned) */
    const cm_dist *residency;      /* l1.residency, cycles (not owned) */
    const cm_dist *sharers;        /* dir.sharers (not owned) */
    double access_rate;            /* rate.dir_accesses, per core cycle */
    double footprint;              /* distinct lines; 0: unknown (steady) */
    int lists_exact;               /* MESI: L1 evictions notify (PUT), so
                                      dir.sharers counts live copies only */
    double residency_scale;        /* l1.residency's times x this: an L1 of
                                      another size than the profile's (see
                                      cm_recall_residency_scale); 0 or 1:
                                      as profiled */
    /* GPU-VIni's own stream (optional; NULL: the L2's stream above, every
     * cold or LRU miss allocating, no sharer-less victims) */
    const cm_dist *alloc_distance; /* dir.alloc_distance (not owned) */
    double alloc_share;            /* GETS per directory access:
                                      rate.l2_loads / rate.dir_accesses */
    double alloc_footprint;        /* rate.dir_alloc_footprint; 0: unknown */
    const cm_dist *empty_distance; /* dir.empty_distance (not owned), and */
    const cm_dist *empty_gap;      /* dir.empty_gap: both or neither */
    double empties_per_load;       /* rate.dir_empties / rate.l2_loads */
    /* GPU-VIni, measured under the directory's own index (recall.c,
     * "Sets"; nq 0: the lines spread uniformly, the binomial): Q(d), the
     * probability that a GETS of stack distance d finds its line's entry
     * gone, at the distances q_at (increasing; linear between, 0 below
     * the first, the last value beyond), the share of cold GETS that find
     * their set full, and the share of the sets holding more than
     * dir_ways of the run's lines */
    double run_scale;              /* GPU-VIni: the run's GETS over the
                                      profiled run's (recall_geom.c, "The
                                      run's length"); q_cold and q_sets_over
                                      are already at it; 0 or 1: as
                                      profiled */
    int run_rows;                  /* the profile measures how its run
                                      gained lines (index_late rows): the
                                      run's length is modelled */
    size_t nq;
    double q_at[CM_RECALL_QPTS], q_val[CM_RECALL_QPTS];
    double q_cold, q_sets_over;
    uint64_t dir_sets, dir_ways;   /* the directory as an LRU cache */
    uint64_t l2_sets, l2_ways;     /* the L2 (== dir for GPU-VI and MESI) */
    double ctrl_flits;             /* flits of one RCL or INVACK message */
} cm_recall_input;

typedef struct cm_recall_result {
    double dir_entries;        /* sets x ways actually modelled */
    double dir_sets, dir_ways;
    double p_dir_miss;         /* P(an access misses in the directory) */
    double p_dir_evict;        /* P(an access evicts a directory entry,
                                  recalling its sharers; GPU-VIni: not
                                  the sharer-less entries taken first) */
    double p_sharerless;       /* GPU-VIni: P(an allocation into a full set
                                  finds a sharer-less entry and takes it
                                  without a recall); 0 without the rows */
    double p_live;             /* P(a listed sharer of an evicted entry still
                                  holds the line); 0 when nothing is evicted */
    double mean_sharers;       /* E[listed sharers of an evicted entry] */
    double recalls_per_access; /* live L1 copies recalled, per access:
                                  p_dir_evict x p_live x mean_sharers */
    double recall_msgs_per_access; /* RCL messages, one per listed sharer
                                      (L1s evict silently, so some find no
                                      copy): p_dir_evict x mean_sharers */
    double recalls_per_cycle;      /* x rate.dir_accesses */
    double recall_msgs_per_cycle;
    double inv_msgs_per_access;    /* RCL + INVACK */
    double inv_flits_per_cycle;    /* (RCL + INVACK) x ctrl_flits x rate */
    double l2_evict_per_access;    /* L2 evictions: the directory's own for
                                      GPU-VI and MESI, the L2's capacity
                                      evictions for GPU-VIni */
    double l2_evicts_per_cycle;
} cm_recall_result;

/* The directory geometry of a protocol on the machine p:
 *  GPU-VI, MESI: the L2, sets = l2.banks x l2.bank_size / (l2.line x
 *                l2.ways) (banks interleave lines, so with lines spread
 *                uniformly a bank's sets are simply more sets), ways l2.ways;
 *  GPU-VIni:     round(dir.ratio x gpu.sms x l1.size / l1.line / dir.ways)
 *                sets (at least 1) of dir.ways ways; read with the
 *                profile's measured sets (cm_recall_input_from_params),
 *                l2.banks x ceil(ceil(dir.ratio x L1 lines / l2.banks) /
 *                dir.ways), each bank's share rounded up as the simulator
 *                does. */
cm_status cm_recall_geometry(const cm_params *p, cm_recall_protocol proto,
                             uint64_t *sets, uint64_t *ways, cm_err *err);

/* Fills in from the machine and the profile (which must outlive in). */
cm_status cm_recall_input_from_params(const cm_params *p,
                                      cm_recall_protocol proto,
                                      const cm_profile *prof,
                                      cm_recall_input *in, cm_err *err);

/* How much longer an L1 copy lives at l1_lines lines per L1 than at the
 * profiled prof_lines, from the core's load stream (stack distances
 * load_distance): the accesses a window needs to touch C distinct lines,
 * r(C), grow as in recall_geom.c's footprint function, and a capacity
 * residency is the time the core takes to touch the cache's lines after
 * the copy's last use, so it scales by r(l1_lines) / r(prof_lines) at a
 * constant access rate.  Clamped to [1e-3, 1e3] (a saturating footprint
 * makes r infinite: copies then outlive the run). */
double cm_recall_residency_scale(const cm_dist *load_distance,
                                 double prof_lines, double l1_lines);

cm_status cm_recall_solve(const cm_recall_input *in, cm_recall_result *res,
                          cm_err *err);

/* cm_recall_input_from_params then cm_recall_solve of the input it
 * leaves, with the same in and res, for a caller that does not edit the
 * input in between: GPU-VIni's run's length walks the distributions to
 * find its scale, and the solve reuses that walk instead of a second one
 * (the walk is most of a solve's cost). */
cm_status cm_recall_predict(const cm_params *p, cm_recall_protocol proto,
                            const cm_profile *prof, cm_recall_input *in,
                            cm_recall_result *res, cm_err *err);

/* One row per grid point: the swept parameters, then protocol and every
 * result column (units in data/columns.c). */
cm_status cm_recall_grid_table(const cm_params *base,
                               cm_recall_protocol proto,
                               const cm_profile *prof, cm_sweep *sweeps,
                               size_t nsweeps, cm_progress_fn progress,
                               void *progress_arg, cm_table **out,
                               cm_err *err);

#endif
