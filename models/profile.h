/* profile.h - a workload timing profile: named time distributions and
 * per-cycle rates, the simulator's measurements that the coherence models
 * (lifetime, recall) read.
 *
 * File format: CSV (libcsv, through data/table.h) with the header
 *     quantity,lo,hi,value
 * A row whose quantity starts with "rate." is a scalar: lo and hi are
 * empty, value is the number.  Every other row is one bin [lo, hi) of the
 * distribution named by quantity, value its weight (a count or a
 * probability; only ratios matter); hi = inf puts the weight at infinity
 * ("never happened", lo is then ignored and written as inf).  A
 * row whose quantity starts with "joint." is a point of a two-dimensional
 * distribution instead: lo and hi are its coordinates (x, y; finite, >= 0)
 * and value its weight.  A
 * distribution's bins come in increasing order without overlap; rows of
 * different quantities may interleave.  Times are core cycles.
 *
 * Distributions the simulator writes (models/dist.h for the semantics):
 *   l1.reuse_time      per L1 fill: cycles from the fill to the first later
 *                      load of the line at that L1 by any warp; inf if none
 *                      before the line leaves
 *   l1.residency       per L1 fill: cycles from fill to capacity eviction;
 *                      inf if not evicted by capacity
 *   l1.last_use        per L1 fill: cycles from the fill to the latest load
 *                      that found the copy, hit or expired (so an expired
 *                      load ends the fill); inf if none; optional
 *   l1.lease_delay     per TC L1 fill: cycles from the L2 granting the
 *                      copy's lease (its lifetime L then) to the fill, so
 *                      the copy lives L minus it; optional
 *   l2.read_to_write   per store reaching the L2: cycles since the latest
 *                      load that set the line's timestamp; inf if none
 *   l2.load_gap        per load reaching the L2: cycles since the latest
 *                      earlier load of the line at the L2 (the one that set
 *                      its timestamp); inf if the line is not valid at the
 *                      L2 (a miss)
 *   l2.evict_age       per L2 eviction: cycles since the line's latest load
 *                      at the L2; inf if never loaded
 *   warp.store_to_fence per fence: cycles since the warp's latest store was
 *                      issued; inf if none since the previous fence
 *   l2.read_to_write_shared as l2.read_to_write, but inf for a store by
 *                      the line's only lease holder (TC-Strong's private
 *                      write, which never stalls); S is taken when the
 *                      store reaches the head of the bank's queue
 *   l2.read_to_write_own, l2.read_to_write_other S split by the store's
 *                      warp: the stores whose line's latest L2 load was
 *                      their own warp's (finite S only), and the others;
 *                      the two sum to l2.read_to_write; optional
 *   l2.read_to_write_own_shared, l2.read_to_write_other_shared the same
 *                      split of l2.read_to_write_shared (the own one
 *                      without the private writes); optional
 *   l2.read_to_write_own_next, l2.read_to_write_own_next_shared the part
 *                      of the own classes whose store was its warp's next
 *                      memory instruction after the load, with no fence or
 *                      barrier between; optional
 *   joint.l2.behind_parts, joint.l2.behind_parts_shared (joint) the
 *                      stores of the other classes that joined the bank's
 *                      queue before the load that set the lease was
 *                      served: x = S less y, y = the cycles the bank was
 *                      blocked with nothing it may serve during S; one
 *                      point per cell of the simulator's histogram grid at
 *                      the cell's means; optional
 *   warp.fence_lease_slack per fence: its issue time minus the latest L2
 *                      load of any line its warp's stores and atomics
 *                      since the previous fence wrote with a GWCT in the
 *                      reply (TC-Weak: not private writes) (0 if later);
 *                      inf if none
 *   warp.fence_ack_wait per fence: cycles from its issue until its warp's
 *                      last outstanding store ack arrived (0 if none)
 *   joint.warp.fence_ack_slack (joint) the fences with a finite
 *                      warp.fence_lease_slack: x = the ack wait, y = the
 *                      slack (the two are not independent); one point per
 *                      cell of the histogram grid at the cell's means;
 *                      optional
 *   dir.stack_distance per directory (GPU-VIni) or L2 (GPU-VI, MESI)
 *                      access: LRU stack distance in distinct lines of the
 *                      L1-miss stream (a count, not cycles); inf if first
 *   dir.sharers        per directory-entry eviction: the L1s on its sharer
 *                      list, bins [k, k+1)
 * and, GPU-VIni only (optional for readers; sim/profile_dirsets.c):
 *   dir.alloc_distance per GETS: LRU stack distance over the requests to
 *                      lines loaded before (a count); inf if first
 *   dir.empty_distance per store or atomic that empties a line's sharer
 *                      list (unbounded-directory lists): its distance in
 *                      that stream
 *   dir.empty_gap      per such emptying: GETS served until the line's next
 *                      GETS (a count); inf if none
 *   joint.dir.index_lines (joint) for every width b of the directory's
 *                      index (x; 2^b indices per bank, the line's bits above
 *                      the bank folded as the directory folds them), the
 *                      (bank, index) pairs by the lines the run loaded that
 *                      they hold (y, 0 too); weight the pairs
 *   joint.dir.index_late_<b> (joint) at that width, per number of lines
 *                      n >= 1 a pair holds (x), the mean of them the run
 *                      first loaded in its last quarter of GETS (y);
 *                      weight the pairs
 *   joint.dir.set_mates_<b> (joint, b = 2 .. 14 or fewer) per GETS with a
 *                      finite dir.alloc_distance d, in a directory of 2^b
 *                      sets per bank: the distinct lines of its set loaded
 *                      since its own last load (its set-local stack
 *                      distance j; 64 means at least 64), one point per
 *                      cell (octave of d, j) at the cell's mean d (x) and
 *                      j (y)
 * and, optional (the directory-bandwidth model, models/directory.h, needs
 * them), the program-order L1 access history, blind to the protocol run:
 *   l1.load_gap        per L1 load: cycles since this core's previous load
 *                      of the line; inf if none
 *   l1.load_distance   per L1 load: LRU stack distance in distinct lines of
 *                      this core's load stream; inf if first
 *   joint.l1.set_mates_<w> (joint, w = 0 .. 10: an L1 of 2^w sets indexed
 *                      by the line's low bits) per L1 load with a finite
 *                      l1.load_distance d: the distinct lines of its set
 *                      this core loaded since its own last load (its
 *                      set-local stack distance j; 64 means at least 64),
 *                      one point per cell (octave of d, j) at the cell's
 *                      mean d (x) and j (y)
 *   l1.load_flags      per L1 load, bins [k, k+1), k a bit set: 1 another
 *                      core wrote the line, 2 this core stored to it, 4 this
 *                      core did an atomic on it, 8 this core issued a fence
 *                      or started a kernel, each since this core's previous
 *                      load of it; 16 the line's holders (cores that loaded
 *                      it since its latest write, or wrote it) are one other
 *                      core; 32 this core loaded it before
 *   l1.store_gap       per L1 store or atomic: cycles since this core's
 *                      previous access of the line; inf if none
 *   l1.store_flags     per L1 store or atomic, bins [k, k+1): 1 this core is
 *                      among the line's holders, 2 it is the only one
 *   l1.write_sharers   per L1 store or atomic: holders other than this core
 * Rates, per core cycle for the whole machine:
 *   rate.l1_fills, rate.l1_loads, rate.l2_loads, rate.l2_stores,
 *   rate.l2_evictions, rate.fences, rate.dir_accesses, and, optional,
 *   rate.l1_stores and rate.l1_atomics (L1 accesses); an L2 request
 *   counts once, as l2.accesses counts it, not again when the fill serves
 *   a request that missed;
 * and scalars in the same rows: rate.l2_banks (the number of L2 banks) and
 * rate.store_ack_latency (mean cycles from store issue to its ack), and,
 * optional, rate.dir_footprint (distinct lines the run touched),
 * rate.dir_alloc_footprint (lines loaded), rate.dir_empties (emptyings per
 * cycle; both GPU-VIni only), rate.l1_lines (lines per L1 of the profiled
 * machine),
 * rate.fill_latency (mean cycles from a load's GETS to its reply),
 * rate.request_flight (mean cycles from an L1 sending a request to its
 * joining the bank's queue),
 * rate.l2_reply_busy (fraction of cycles a bank's reply port is sending,
 * mean over banks), rate.l2_mshr_occupancy (time-average L2 MSHRs in use
 * per bank), rate.lifetime (the lifetime a Temporal Coherence run held
 * fixed; 0 for other protocols and the adaptive predictor) and
 * rate.l2_hol_per_stall (bank-cycles with nothing the bank may serve per
 * cycle a store stalls on a lease; 0 without stalls), and, optional,
 * rate.l2_stall_share (stores a lease held per store reaching the L2) and
 * rate.l2_post_wait (their mean cycles from the lease's end, the holding
 * load's time plus L, to their service: the stall less (L - S')+; 0
 * without such stores) and rate.l2_loads_unleased (loads per cycle, not
 * served again after waiting on a fetch, that reach a valid L2 line no
 * load has leased since its fill: a store or an atomic brought it in, its
 * l2.load_gap is inf, and under TC its timestamp has expired whatever the
 * lifetime). */
#ifndef CM_PROFILE_H
#define CM_PROFILE_H

#include <stddef.h>

#include "data/err.h"
#include "data/table.h"
#include "models/dist.h"

typedef struct cm_profile cm_profile;

/* An empty profile; NULL when out of memory. */
cm_profile *cm_profile_new(void);
void cm_profile_free(cm_profile *p);

/* Reads a profile file.  Errors are "file:line:col: ..." (a bad number, a
 * rate row with lo or hi, a bin out of order, a duplicate rate). */
cm_status cm_profile_read(const char *path, cm_profile **out, cm_err *err);
/* Same from a table already read (columns quantity, lo, hi, value: the
 * simulator's profile recorder gives one, sim/profile_rec.h). */
cm_status cm_profile_from_table(const cm_table *t, cm_profile **out,
                                cm_err *err);
/* Same from memory; name is used in error locations. */
cm_status cm_profile_read_buffer(const char *name, const char *buf,
                                 size_t len, cm_profile **out, cm_err *err);

/* Writes the profile atomically (rates first, then each distribution in
 * the order it was first added); "-" or NULL is stdout. */
cm_status cm_profile_write(const cm_profile *p, const char *path,
                           cm_err *err);

/* Building: a bin of the named distribution (created on first use; see
 * cm_dist_add_bin), and a rate ("rate.x"; setting it again replaces it). */
cm_status cm_profile_add_bin(cm_profile *p, const char *name, double lo,
                             double hi, double w, cm_err *err);
cm_status cm_profile_set_rate(cm_profile *p, const char *name, double v,
                              cm_err *err);
/* A point (x, y) of weight w of the joint distribution name ("joint.x"). */
typedef struct cm_point {
    double x, y, w;
} cm_point;
cm_status cm_profile_add_point(cm_profile *p, const char *name, double x,
                               double y, double w, cm_err *err);
/* The points of a joint distribution, in the order added; *n = 0 and *out
 * NULL when the profile has none. */
void cm_profile_points(const cm_profile *p, const char *name,
                       const cm_point **out, size_t *n);

/* The pool of n profiles of the same workload and machine (replicate
 * runs): each distribution's bins summed (identical bins add; others must
 * not overlap), joint points concatenated, each rate the mean over the
 * profiles that have it.  Distributions, joints and rates come in the
 * order they first appear. */
cm_status cm_profile_pool(const cm_profile *const *ps, size_t n,
                          cm_profile **out, cm_err *err);

/* Look-ups.  A missing or empty (total weight 0) distribution and a
 * missing rate are CM_EINPUT: "profile 'file' has no distribution 'x'". */
cm_status cm_profile_dist(const cm_profile *p, const char *name,
                          const cm_dist **out, cm_err *err);
cm_status cm_profile_rate(const cm_profile *p, const char *name, double *out,
                          cm_err *err);

/* Enumeration, for tools that print a profile. */
size_t cm_profile_ndists(const cm_profile *p);
const char *cm_profile_dist_name(const cm_profile *p, size_t i);
size_t cm_profile_nrates(const cm_profile *p);
const char *cm_profile_rate_name(const cm_profile *p, size_t i);

#endif
