/* interleave.c - L1 hit rate of W warps interleaved on one SM, from
 * per-warp reuse profiles (spec/models.md section 4, "GPU-specific").
 *
 * Model.  Warps issue round-robin, one access each per turn.  Take an
 * access of warp w whose own stream last touched its line t accesses ago
 * (t = reuse time + 1: the index difference in w's stream) with d distinct
 * lines of w's own in between (its stack distance).  Between the two uses
 * every other warp v issues exactly t accesses, a window of its stream
 * holding F_v(t) distinct lines on average, so with disjoint data the
 * interleaved stack distance is
 *     D = d + sum_{v != w} F_v(t),
 * and the access hits a sets x ways LRU cache with probability
 * 1 - P(Bin(D, 1/S) >= A) (setassoc.c, the same function, not a copy).
 * Cold accesses miss.  The predicted hit rate is the access-weighted mean
 * over all warps.  W = 1 reduces to the set-associative model of the
 * warp's own histogram.
 *
 * Footprint.  F(w) is the mean number of distinct lines over all n-w+1
 * windows of w consecutive accesses (Xiang et al., "All-window profiling
 * and composable models of cache sharing", PPoPP'11; the same composition
 * as their shared-cache model).  A window misses a line iff it lies inside
 * one of the line's gaps: before its first access (length f = first index,
 * 1-based), between two accesses (length t) or after its last (length
 * l = n + 1 - last index).  With H the histogram of all those gap lengths,
 *     F(w) = m - sum_r H(r) (r - w)^+ / (n - w + 1),   m distinct lines,
 * exact, in O(n) from suffix sums; the last-access gaps come from a second
 * stack-distance pass over the reversed stream (its cold accesses).  F is
 * kept exactly up to w = 64 and at 16 points per octave beyond (linear in
 * between; F is concave, so the error is small), and taken as m past n.
 *
 * Storage, bounded whatever the stream length: the warp's stack-distance
 * histogram (exact to 1024 lines, then octaves), the footprint grid, and
 * a sparse 2-D histogram over (reuse-time bin, distance bin): reuse times
 * exact below 32, then 8 bins per octave; distance bins those of the
 * stack-distance histogram.  A cell keeps its count and the mean t of its
 * accesses; its distances are spread uniformly over the bin (as in
 * cm_mrc_setassoc, which is what makes W = 1 agree exactly).  The real
 * shift s = sum F is applied as floor(s) or ceil(s) in proportion, i.e.
 * the other warps' distinct count is an integer with mean s.  Building a
 * profile takes two stack-distance passes and O(n) scratch memory.
 *
 * Assumptions, to be read before trusting a number:
 *  - disjoint footprints: warps share no lines (shared data, e.g. a
 *    block's common tile, would make interleaving cheaper than predicted);
 *  - strict round-robin, one access per warp per turn (a real scheduler
 *    (GTO, two-level) runs one warp longer, which this over-penalises);
 *  - stationarity: a warp's windows look alike wherever they fall, and the
 *    other warps' windows are independent of w's reuse;
 *  - the mean D stands for the random D (Jensen: the miss probability is
 *    not linear in D, though the sum of W-1 windows concentrates);
 *  - lines of all warps fall into sets independently, as in setassoc.c.
 *    The prediction is the mean over placements: a perfectly cyclic loop
 *    near a capacity cliff scatters +-0.05-0.1 in hit rate around it from
 *    one placement to the next, and copies of one stream at set-aligned
 *    offsets (w * 2^k lines) put all W copies of a line in one set, which
 *    thrashes once W > ways while the model predicts a gentle decline;
 *  - streams of equal length: a warp that finishes early is still counted
 *    as interleaving for its whole window. */
#include "models/mrc.h"

#include <gsl/gsl_errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

enum {
    PROF_EXACT_BINS = 1024, /* distance bins of the profile's histogram */
    RT_EXACT = 32,          /* reuse times below this have their own bin */
    RT_SUB_LOG2 = 3,        /* 8 reuse-time bins per octave beyond */
    FP_EXACT = 64,          /* footprint kept exactly for w <= this */
    FP_PER_OCTAVE = 16
};

typedef struct joint_cell {
    double count, mean_t; /* accesses, their mean index difference t */
    size_t dbin;          /* bin of cm_reuse_hist */
} joint_cell;

struct cm_warp_profile {
    cm_reuse_hist hist;
    double accesses, lines;
    joint_cell *cells;
    size_t ncells;
    double *fp_w, *fp; /* F(fp_w[k]) = fp[k], fp_w increasing from 0 */
    size_t nfp;
};

static unsigned floor_log2(uint64_t x)
{
    unsigned k = 0;
    while (x >>= 1) k++;
    return k;
}

/* The cm_reuse_hist bin of integer distance d (reuse.h's layout). */
static size_t dist_bin(uint64_t d)
{
    if (d < PROF_EXACT_BINS) return (size_t)d;
    return PROF_EXACT_BINS + floor_log2(d / PROF_EXACT_BINS);
}

size_t cm_reuse_time_bin(uint64_t t)
{
    if (t < RT_EXACT) return (size_t)t;
    unsigned k = floor_log2(t);
    size_t sub = (size_t)(t >> (k - RT_SUB_LOG2)) & ((1u << RT_SUB_LOG2) - 1);
    return RT_EXACT + ((size_t)(k - floor_log2(RT_EXACT)) << RT_SUB_LOG2) +
           sub;
}

/* Gap lengths of the reversed stream's cold accesses (l of the header)
 * into gaps[]. */
static cm_status count_last_gaps(const uint64_t *lines, size_t n,
                                 double *gaps, cm_err *err)
{
    cm_stackdist *sd = cm_stackdist_new();
    if (!sd) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st = CM_OK;
    for (size_t i = 0; i < n && !st; i++) {
        int64_t d;
        st = cm_stackdist_access(sd, lines[n - 1 - i], &d, NULL, err);
        if (!st && d < 0) gaps[i + 1] += 1;
    }
    cm_stackdist_free(sd);
    return st;
}

/* The footprint grid from the gap histogram gaps[1 .. n+1]. */
static cm_status build_footprint(cm_warp_profile *p, const double *gaps,
                                 size_t n, cm_err *err)
{
    /* Rounding can add a few points per octave: 20 is a safe bound. */
    size_t cap = FP_EXACT + 2 + 20 * 64;
    p->fp_w = malloc(cap * sizeof *p->fp_w);
    p->fp = malloc(cap * sizeof *p->fp);
    if (!p->fp_w || !p->fp)
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    /* Grid points, increasing; filled from the top down below. */
    size_t k = 0;
    for (double w = 0; w <= (double)n; k++) {
        p->fp_w[k] = w;
        if (w < FP_EXACT) {
            w += 1;
        } else {
            double next = round(w * exp2(1.0 / FP_PER_OCTAVE));
            w = next > w ? next : w + 1;
        }
    }
    if (p->fp_w[k - 1] < (double)n) p->fp_w[k++] = (double)n;
    p->nfp = k;
    /* Suffix sums over r > w of H(r) and r H(r). */
    double s0 = 0, s1 = 0;
    size_t r = n + 1;
    for (size_t j = k; j-- > 0;) {
        size_t w = (size_t)p->fp_w[j];
        for (; r > w; r--) {
            s0 += gaps[r];
            s1 += (double)r * gaps[r];
        }
        p->fp[j] = w == 0 ? 0
                          : p->lines - (s1 - (double)w * s0) /
                                           (double)(n - w + 1);
    }
    return CM_OK;
}

double cm_warp_profile_footprint(const cm_warp_profile *p, double window)
{
    if (!(window > 0)) return 0;
    if (window >= p->fp_w[p->nfp - 1]) return p->fp[p->nfp - 1];
    size_t lo = 0, hi = p->nfp - 1; /* fp_w[lo] <= window < fp_w[hi] */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (p->fp_w[mid] <= window) lo = mid;
        else hi = mid;
    }
    double f = (window - p->fp_w[lo]) / (p->fp_w[hi] - p->fp_w[lo]);
    return p->fp[lo] + f * (p->fp[hi] - p->fp[lo]);
}

/* Collapses the dense (rt bin x distance bin) grid to its non-empty
 * cells. */
static cm_status compact_cells(cm_warp_profile *p, const double *grid,
                               size_t nt, size_t nd, cm_err *err)
{
    size_t nz = 0;
    for (size_t i = 0; i < nt * nd; i++) nz += grid[2 * i] > 0;
    p->cells = malloc((nz ? nz : 1) * sizeof *p->cells);
    if (!p->cells) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t i = 0; i < nt * nd; i++) {
        if (!(grid[2 * i] > 0)) continue;
        joint_cell *c = &p->cells[p->ncells++];
        c->count = grid[2 * i];
        c->mean_t = grid[2 * i + 1] / grid[2 * i];
        c->dbin = i % nd;
    }
    return CM_OK;
}

/* One forward pass: histogram, joint grid and the first-access and reuse
 * gaps. */
static cm_status scan_stream(cm_warp_profile *p, const uint64_t *lines,
                             size_t n, double *grid, size_t nd, double *gaps,
                             cm_err *err)
{
    cm_stackdist *sd = cm_stackdist_new();
    if (!sd) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    cm_status st = CM_OK;
    for (size_t i = 0; i < n && !st; i++) {
        int64_t d, rt;
        st = cm_stackdist_access(sd, lines[i], &d, &rt, err);
        if (!st) st = cm_reuse_hist_add(&p->hist, (double)d, 1, err);
        if (st) break;
        if (d < 0) {
            gaps[i + 1] += 1;
            continue;
        }
        uint64_t t = (uint64_t)rt + 1;
        gaps[t] += 1;
        double *cell =
            grid + 2 * (cm_reuse_time_bin(t) * nd + dist_bin((uint64_t)d));
        cell[0] += 1;
        cell[1] += (double)t;
    }
    p->lines = (double)cm_stackdist_lines(sd);
    cm_stackdist_free(sd);
    return st;
}

cm_status cm_warp_profile_new(const uint64_t *lines, size_t n,
                              cm_warp_profile **out, cm_err *err)
{
    *out = NULL;
    if (n == 0 || !lines)
        return cm_err_set(err, CM_EINPUT, "warp profile: empty stream");
    if (n >= SIZE_MAX / 16)
        return cm_err_set(err, CM_EINPUT, "warp profile: stream too long");
    cm_warp_profile *p = calloc(1, sizeof *p);
    if (!p) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    p->accesses = (double)n;
    cm_status st = cm_reuse_hist_init(&p->hist, PROF_EXACT_BINS, err);
    /* Distances are below n and reuse-time indices at most n. */
    size_t nd = dist_bin(n) + 1, nt = cm_reuse_time_bin(n) + 1;
    double *grid = calloc(2 * nt * nd, sizeof *grid);
    double *gaps = calloc(n + 2, sizeof *gaps);
    if (!st && (!grid || !gaps))
        st = cm_err_set(err, CM_EINTERNAL,
                        "warp profile: out of memory for %zu accesses", n);
    if (!st) st = scan_stream(p, lines, n, grid, nd, gaps, err);
    if (!st) st = count_last_gaps(lines, n, gaps, err);
    if (!st) st = build_footprint(p, gaps, n, err);
    if (!st) st = compact_cells(p, grid, nt, nd, err);
    free(grid);
    free(gaps);
    if (st) {
        cm_warp_profile_free(p);
        return st;
    }
    *out = p;
    return CM_OK;
}

void cm_warp_profile_free(cm_warp_profile *p)
{
    if (!p) return;
    cm_reuse_hist_free(&p->hist);
    free(p->cells);
    free(p->fp_w);
    free(p->fp);
    free(p);
}

const cm_reuse_hist *cm_warp_profile_hist(const cm_warp_profile *p)
{
    return &p->hist;
}

/* Mean miss probability of a distance bin [lo, hi) pushed out by s lines
 * of other warps (s split between floor and ceil). */
static double shifted_miss_prob(uint64_t sets, uint64_t ways, double lo,
                                double hi, double s)
{
    double k = floor(s), f = s - k;
    double m = cm_mrc_setassoc_miss_prob(sets, ways, lo + k, hi + k);
    if (f > 0)
        m += f * (cm_mrc_setassoc_miss_prob(sets, ways, lo + k + 1,
                                            hi + k + 1) - m);
    return m;
}

/* Hits of one warp with profile p among warps whose profiles are used
 * mult[] times each. */
static double warp_hits(const cm_warp_profile *p,
                        cm_warp_profile *const *profiles, const double *mult,
                        size_t nprofiles, uint64_t sets, uint64_t ways)
{
    double hits = 0;
    for (size_t c = 0; c < p->ncells; c++) {
        const joint_cell *cell = &p->cells[c];
        double s = -cm_warp_profile_footprint(p, cell->mean_t), lo, hi;
        for (size_t q = 0; q < nprofiles; q++)
            if (mult[q] > 0)
                s += mult[q] *
                     cm_warp_profile_footprint(profiles[q], cell->mean_t);
        cm_reuse_hist_bin_bounds(&p->hist, cell->dbin, &lo, &hi);
        hits += cell->count *
                (1 - shifted_miss_prob(sets, ways, lo, hi, s > 0 ? s : 0));
    }
    return hits;
}

cm_status cm_interleave_hit_rate(cm_warp_profile *const *profiles,
                                 size_t nprofiles, unsigned warps,
                                 uint64_t sets, uint64_t ways,
                                 double *hit_rate, cm_err *err)
{
    if (!profiles || nprofiles == 0 || warps == 0)
        return cm_err_set(err, CM_EINPUT,
                          "interleaving model needs at least one warp and "
                          "one profile");
    if (sets < 1 || ways < 1 || ways >= UINT_MAX)
        return cm_err_set(err, CM_EINPUT,
                          "interleaving model needs sets >= 1 and "
                          "1 <= ways < %u (got %llu x %llu)", UINT_MAX,
                          (unsigned long long)sets, (unsigned long long)ways);
    for (size_t q = 0; q < nprofiles; q++)
        if (!profiles[q])
            return cm_err_set(err, CM_EINPUT,
                              "interleaving model: profile %zu is missing",
                              q);
    double *mult = calloc(nprofiles, sizeof *mult);
    if (!mult) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (unsigned i = 0; i < warps; i++) mult[i % nprofiles] += 1;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    double hits = 0, accesses = 0;
    for (size_t q = 0; q < nprofiles; q++) {
        if (mult[q] == 0) continue;
        hits += mult[q] * warp_hits(profiles[q], profiles, mult, nprofiles,
                                    sets, ways);
        accesses += mult[q] * profiles[q]->accesses;
    }
    gsl_set_error_handler(old);
    free(mult);
    *hit_rate = hits / accesses;
    return CM_OK;
}
