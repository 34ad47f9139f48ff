/* l1_predict.c - the L1 miss ratio of one SM from a workload profile (see
 * l1_predict.h): set-local LRU stack distances (Mattson et al. 1970; Hill
 * & Smith, IEEE TC 1989) of the generator's own warp streams, composed
 * over interleaved warps with all-window footprints (Xiang et al., "All-
 * window profiling and composable models of cache sharing", PPoPP'11),
 * at the interleaving degree the warp scheduler leads to.
 *
 * Inputs.  The workload's stream profile (l1_profile.c): one mean warp of
 * CM_L1_PROFILE_WARPS generated warps of SM 0, with per set count
 * S = 2^j its loads by reuse time t and set-local distance k, and its
 * window footprints F(t) in lines and O_S(t) in sets.  It is built once
 * per (workload, sim.seed, l1.line) and cached; a design point costs only
 * what follows (run_bench models, kmn: 5.5 us, 1.1e5 times faster than
 * the simulator; before, 114 ms, ratio 5, when every point regenerated
 * the streams).
 *
 * Set-associative LRU under W interleaved warps.  A load of warp w with
 * reuse time t and set-local distance k (distinct lines of its own in its
 * set since the last use) hits an S-set, A-way LRU cache iff k + X < A,
 * X the distinct lines the other W - 1 warps put into that set meanwhile
 * (with disjoint data LRU is a stack algorithm within each set).  Round
 * robin, every other warp issues t accesses in between: a window that
 * touches O_S(t) distinct sets with c = F(t) / O_S(t) lines in each.  The
 * generator places each warp's footprint at its own pseudo-random offset,
 * so w's set is one of them with probability q = O_S(t) / S, independently
 * from warp to warp:
 *     X = c N,  N ~ Binomial(W - 1, q),
 *     P(hit | t, k) = P(c N <= A - 1 - k),
 * a real c taken as floor(c) or floor(c) + 1 in proportion.  Both limits
 * are in it: lines scattered over many sets (c ~ 1: X ~ Bin(W - 1, F/S),
 * the binomial model's spread) and lines camping on few sets (scluster's
 * line_stride of 32 puts an instruction's 4 lines, and the window its
 * reuses draw from, in one set of li2014's 32: one warp alone misses
 * 0.550 of its accesses at 16 KB, exactly, where random placement
 * predicted 0.235).  W = 1 is exact (hit
 * iff k < A), as are one set (fully associative) and A = 1.  The hit rate
 * per load is h = sum over (t, k < A) of count(t, k) P(hit | t, k) / loads.
 * Where the statistics stop (sets not a power of two or above 2^12, ways
 * above 32) the binomial placement model of interleave.c over the
 * profile's warps stands in (set_local = 0).
 *
 * How accesses count, as the simulator's l1.miss_ratio = l1.misses /
 * l1.accesses under NO-COH (sim/l1.c, sim/proto_no_coh.c): only committed
 * accesses count; a refused one (no MSHR, a full merge list, or every way
 * of its set reserved for fills in flight) is counted as a failure and
 * retried by the SM's in-order LD/ST unit (sim/sm.c), which stalls the
 * stream without reordering it.  A store or atomic never hits (write-
 * through, write-no-allocate, write-evict): a miss.  A load that joins a
 * fill in flight (an MSHR merge) is a miss; the model, without timing,
 * calls it a hit when the line is cached: a warp waits for its own loads,
 * so merges take two warps on one line, i.e. shared data.
 *     miss_ratio = 1 - h x loads / accesses.
 *
 * Interleaving degree (cm_l1_predict_scheduled).  What the scheduler
 * changes is which warps feed the L1:
 *  - LRR rotates over every ready warp, so all active warps interleave:
 *    W = f x sched.active_warps, clamped to 1 .. gpu.warps_per_sm, f the
 *    calibrated model.l1_interleave_fraction (fitted: 0.71 on lhs:200,
 *    0.77 on the default grid);
 *  - GTO issues the oldest ready warp, so it keeps in play only as many
 *    warps as cover the memory latency at the SM's bottleneck; the younger
 *    ones starve and leave the L1 alone.  Per memory instruction of n
 *    lines after g compute cycles (both measured in the profile), at miss
 *    ratio m a warp's cycle takes
 *        C = g + 1 + n + P_any L_miss + (1 - P_any) L_hit,
 *        P_any = 1 - (1 - m)^n
 *    (L_hit = l1.hit_latency, L_miss = l2.latency, the simulator's own
 *    latencies), while the SM serves one instruction per
 *        B = max(g + 1 (issue), n (LD/ST unit), n m L_miss / l1.mshrs),
 *    so N(m) = C / B warps are in play (Little's law) and
 *        W = min(f x sched.active_warps, N(m(W))),
 *    solved by bisection.  Bound by MSHRs, N ~ l1.mshrs / (n m): atax on
 *    li2014 (32 lines per instruction, 32 MSHRs) interleaves ~3 warps
 *    whatever sched.active_warps is, and the simulator's miss ratio is
 *    indeed 0.546 at 26 and at 37 active warps.  Applied to LRR the same
 *    bound makes tc2013's error worse (0.020 -> 0.045 on lhs:200), as it
 *    should: LRR starves nobody.  Two-level is treated as GTO (not
 *    validated).
 * Fractional W: the miss ratios of floor(W) and ceil(W) interpolated.
 *
 * Assumptions, to be read before trusting a number:
 *  - shared data (SM-shared, GPU-shared, false-shared pools): a pool's
 *    load also hits when another warp touched its line recently enough
 *    (hits_setlocal: the touches are a Poisson stream of rate lam =
 *    (W - 1) x the pool's share of loads / its lines, since the generator
 *    draws a pool's lines uniformly).  That took dlb (80% of fresh lines
 *    shared) from 0.086 to 0.027 on lhs:200.  Still missing: the other
 *    warps' copies of a pool's lines are counted as distinct lines in the
 *    set (their footprints overlap), so heavy sharing stays over-
 *    predicted (brute-force round-robin LRU, 80% of 64 shared lines, 16
 *    warps: +0.27; tests/check_l1_predict.c), and a touch whose fill is
 *    still in flight gives a hit here but an MSHR merge, a miss, in the
 *    simulator;
 *  - the mean warp stands for every warp (the generator draws all from
 *    one profile), and the mean footprints for the random ones;
 *  - other warps' windows sit at independent set offsets;
 *  - NO-COH only (WT's invalidations and NO-L1 are not modelled), LRR
 *    replacement (l1.policy = lru);
 *  - the GTO bound ignores queueing beyond l2.latency and DRAM latency.
 *
 * Domain of validity, held-out mean |error| of the L1 miss ratio (before
 * this model -> now):
 *  - `cohmod validate reuse` (tc2013, 2 SMs, 16-64 KB x 8/24/48 warps,
 *    kmn bfs hsp cfd): 0.012 -> 0.017, worst point 0.034 -> 0.037 (kmn,
 *    16 KB, 24 warps; the shared-pool term, which counts touches of fills
 *    still in flight as hits, costs 0.004 of it);
 *  - `cohmod validate reuse --config li2014 --workloads
 *    comd,sssp,scluster,atax,kmn` (li2014's 16 KB 4-way L1, GTO, 32
 *    MSHRs, 15 SMs): 0.109 -> 0.029, worst point 0.334 -> 0.082 (atax,
 *    48 warps: 0.457 against 0.539); per workload comd 0.037 -> 0.021,
 *    sssp 0.072 -> 0.035, scluster 0.189 -> 0.040, atax 0.076 -> 0.037,
 *    kmn 0.158 -> 0.011; f fitted 0.17 -> 0.80;
 *  - `cohmod validate reuse --design lhs:200 --seed 1` (every workload,
 *    tc2013 and li2014, 8-128 KB, 4-48 warps): 0.065 -> 0.024; tc2013
 *    0.069 -> 0.017, li2014 0.061 -> 0.031; worst workload gesummv 0.159
 *    -> 0.071 (li2014, 16 KB, 36-37 active warps: 0.56 against 0.72, the
 *    GTO bound's miss latency without queueing). */
#include "models/l1_predict.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>

#include "models/l1_profile.h"
#include "models/mrc.h"

/* P(N <= j), j = 0 .. a-1, for N ~ Bin(n, q), into cdf[]. */
static void binom_cdf(unsigned n, double q, unsigned a, double *cdf)
{
    if (n == 0 || q <= 0) {
        for (unsigned j = 0; j < a; j++) cdf[j] = 1;
        return;
    }
    if (q >= 1) {
        for (unsigned j = 0; j < a; j++) cdf[j] = j >= n;
        return;
    }
    double pm = 1, base = 1 - q; /* (1 - q)^n by squaring: n is small */
    for (unsigned e = n; e; e >>= 1, base *= base)
        if (e & 1) pm *= base;
    double r = q / (1 - q), c = 0;
    for (unsigned j = 0; j < a; j++) {
        c += pm;
        cdf[j] = c < 1 ? c : 1;
        pm = j < n ? pm * (double)(n - j) / (double)(j + 1) * r : 0;
    }
}

/* P(c N <= m), N's cdf given up to m, a real c >= 1 taken as floor(c) or
 * floor(c) + 1 in proportion (mean c). */
static double prob_fits(const double *cdf, double c, unsigned m)
{
    unsigned lo = (unsigned)c;
    double fr = c - lo, pr = cdf[m / lo];
    if (fr > 0) pr += fr * (cdf[m / (lo + 1)] - pr);
    return pr;
}

/* The other warps' line count in a set over bin b's window: X = c N,
 * N ~ Bin(nw, q) (the header); its cdf up to `ways` into cdf[], c
 * returned. */
static double window_spread(const cm_l1_profile_level *v, double sets,
                            size_t b, unsigned nw, unsigned ways,
                            double *cdf)
{
    double o = v->sets_touched[b], f = v->lines_touched[b];
    binom_cdf(o > 0 ? nw : 0, o / sets, ways, cdf);
    return o > 0 && f > o ? f / o : 1;
}

/* Per shared pool: the rate at which the other warps touch one of its
 * lines, per load of the warp (0: no shared loads); the pools in use. */
static int pool_rates(const cm_l1_profile *p, unsigned w, double *lam)
{
    double loads = cm_l1_profile_loads(p);
    int any = 0;
    for (int q = 0; q < CM_L1_PROFILE_POOLS; q++) {
        double r = cm_l1_profile_pool_lines(p, q);
        double a = cm_l1_profile_shared_loads(p, q);
        lam[q] = w > 1 && r > 0 && a > 0 ? (w - 1) * a / loads / r : 0;
        any |= lam[q] > 0;
    }
    return any;
}

/* exp(-lam x) at every bin's lower bound into e[1 .. nb] (e[nb]: the
 * last bin's upper bound): bins of one octave are equally wide, so one
 * exp per width and a product per bin. */
static void decay_at_bounds(double lam, double *e)
{
    size_t nb = cm_l1_profile_nbins();
    double lo, hi, width = -1, f = 1, cur = 1;
    for (size_t b = 1; b < nb; b++) {
        cm_l1_profile_bin_bounds(b, &lo, &hi);
        if (b == 1) cur = exp(-lam * lo);
        e[b] = cur;
        if (hi - lo != width) {
            width = hi - lo;
            f = exp(-lam * width);
        }
        cur *= f;
    }
    e[nb] = cur;
}

/* One more warp: the cdf of N + B, B ~ Bernoulli(q), from N's, in place. */
static void add_warp(double *cdf, unsigned ways, double q)
{
    for (unsigned j = ways; j-- > 0;)
        cdf[j] = (1 - q) * cdf[j] + q * (j ? cdf[j - 1] : 0);
}

/* Load hits of the mean warp among w identical warps, from the set-local
 * statistics at 2^lev sets and `ways` ways (see the header).
 *
 * Shared pools.  A pool's load hits by its own reuse only if no other
 * warp touched the line since, probability exp(-lam t) (lam: the other
 * warps' touches of one of its lines per load; the generator draws a
 * pool's lines uniformly, so the last touch s loads ago is exponential).
 * Else, touched s < t loads ago (any s when cold), it hits iff fewer than
 * `ways` lines of all w warps entered its set since: X = c Bin(w, q(s)),
 * summed over the reuse-time bins as s's distribution puts weight on
 * them. */
static double hits_setlocal(const cm_l1_profile *p, unsigned lev, unsigned w,
                            unsigned ways)
{
    double hits = 0, cdf[CM_L1_PROFILE_DEPTH], lam[CM_L1_PROFILE_POOLS];
    double e[CM_L1_PROFILE_POOLS][CM_L1_PROFILE_NBINS_MAX + 1];
    double g[CM_L1_PROFILE_POOLS] = {0};
    size_t nb = cm_l1_profile_nbins();
    double sets = ldexp(1, (int)lev);
    cm_l1_profile_level v;
    cm_l1_profile_level_view(p, lev, &v);
    int shared = pool_rates(p, w, lam);
    for (int q = 0; shared && q < CM_L1_PROFILE_POOLS; q++)
        if (lam[q] > 0) decay_at_bounds(lam[q], e[q]);
    for (size_t b = 1; b < nb; b++) {
        const double *cnt = v.counts + b * CM_L1_PROFILE_DEPTH;
        double any = 0;
        for (unsigned k = 0; k < ways; k++) any += cnt[k];
        int live = 0; /* another warp's touch may still fall here */
        for (int q = 0; shared && q < CM_L1_PROFILE_POOLS; q++)
            live |= lam[q] > 0 && e[q][b] > 1e-18;
        if (!(any > 0) && !live) continue;
        double c = window_spread(&v, sets, b, w - 1, ways, cdf);
        for (unsigned k = 0; k < ways; k++)
            hits += cnt[k] * prob_fits(cdf, c, ways - 1 - k);
        if (!live) continue;
        for (int q = 0; q < CM_L1_PROFILE_POOLS; q++) {
            if (!(lam[q] > 0)) continue;
            /* touched by another warp since: 1 - exp(-lam t), t mid-bin */
            double lost = 1 - sqrt(e[q][b] * e[q][b + 1]);
            const double *sc =
                v.shared_counts[q] + b * CM_L1_PROFILE_DEPTH;
            for (unsigned k = 0; k < ways; k++)
                hits -= lost * sc[k] * prob_fits(cdf, c, ways - 1 - k);
        }
        add_warp(cdf, ways, v.sets_touched[b] / sets);
        double pall = prob_fits(cdf, c, ways - 1);
        for (int q = 0; q < CM_L1_PROFILE_POOLS; q++) {
            if (!(lam[q] > 0)) continue;
            double pb = (e[q][b] - e[q][b + 1]) * pall;
            hits += v.shared_reused[q][b] * (g[q] + pb / 2);
            g[q] += pb;
        }
    }
    for (int q = 0; shared && q < CM_L1_PROFILE_POOLS; q++)
        hits += cm_l1_profile_shared_cold(p, q) * g[q];
    return hits;
}

/* The miss ratio of w warps (an integer). */
static cm_status miss_ratio_of(const cm_l1_profile *p, unsigned w,
                               uint64_t sets, uint64_t ways, double *mr,
                               int *exact, cm_err *err)
{
    double loads = cm_l1_profile_loads(p), acc = cm_l1_profile_accesses(p);
    double h = 0; /* hit rate per load */
    unsigned lev = 0;
    while (lev < CM_L1_PROFILE_MAX_LOG2_SETS && ((uint64_t)1 << lev) < sets)
        lev++;
    *exact = ((uint64_t)1 << lev) == sets && ways <= CM_L1_PROFILE_DEPTH;
    if (!(loads > 0)) {
        h = 0;
    } else if (*exact) {
        h = hits_setlocal(p, lev, w, (unsigned)ways) / loads;
    } else {
        cm_warp_profile *const *wp = NULL;
        size_t n = 0;
        cm_status st = cm_l1_profile_warps(p, &wp, &n, err);
        if (!st) st = cm_interleave_hit_rate(wp, n, w, sets, ways, &h, err);
        if (st) return st;
    }
    /* stores and atomics always miss */
    *mr = acc > 0 ? 1 - h * loads / acc : 0;
    return CM_OK;
}

/* Miss ratios of integer degrees, computed once each (a bisection asks
 * for the same ones many times). */
typedef struct degree_memo {
    const cm_l1_profile *prof;
    uint64_t sets, ways;
    double *mr; /* [n], NAN: not yet */
    size_t n;
    int exact;
} degree_memo;

static cm_status mr_int(degree_memo *d, unsigned k, double *mr, cm_err *err)
{
    if (k >= d->n) k = (unsigned)d->n - 1; /* W <= the top degree */
    if (isnan(d->mr[k])) {
        cm_status st = miss_ratio_of(d->prof, k, d->sets, d->ways, &d->mr[k],
                                     &d->exact, err);
        if (st) return st;
    }
    *mr = d->mr[k];
    return CM_OK;
}

/* The miss ratio at a real degree w >= 1: floor and ceil interpolated. */
static cm_status mr_at(degree_memo *d, double w, double *mr, cm_err *err)
{
    unsigned lo = (unsigned)floor(w);
    double f = w - lo, a = 0, b = 0;
    cm_status st = mr_int(d, lo, &a, err);
    if (!st && f > 0) st = mr_int(d, lo + 1, &b, err);
    *mr = f > 0 ? (1 - f) * a + f * b : a;
    return st;
}

/* N(m) of the header: the warps GTO keeps in play at miss ratio m. */
typedef struct issue_model {
    double n, g, lhit, lmiss, mshrs;
} issue_model;

static double warps_in_play(const issue_model *s, double m)
{
    double pany = 1 - pow(1 - m, s->n);
    double c = s->g + 1 + s->n + pany * s->lmiss + (1 - pany) * s->lhit;
    double b = fmax(fmax(s->g + 1, s->n), s->n * m * s->lmiss / s->mshrs);
    return c / b;
}

/* The degree w in [1, cap] with w = N(m(w)) under GTO, else cap. */
static cm_status solve_degree(degree_memo *d, const issue_model *im,
                              double cap, double *w, cm_err *err)
{
    double m = 0;
    cm_status st = mr_at(d, cap, &m, err);
    if (st || cap - warps_in_play(im, m) <= 0) {
        *w = cap;
        return st;
    }
    if ((st = mr_at(d, 1, &m, err)) || 1 - warps_in_play(im, m) >= 0) {
        *w = 1;
        return st;
    }
    double lo = 1, hi = cap; /* h(lo) < 0 < h(hi), h(w) = w - N(m(w)) */
    for (int it = 0; it < 40 && hi - lo > 1e-6; it++) {
        double mid = (lo + hi) / 2;
        if ((st = mr_at(d, mid, &m, err))) return st;
        if (mid - warps_in_play(im, m) < 0) lo = mid;
        else hi = mid;
    }
    *w = (lo + hi) / 2;
    return CM_OK;
}

static cm_status check_inputs(const cm_params *p, const cm_workload_profile *w,
                              cm_l1_prediction *out, uint64_t *sets,
                              cm_err *err)
{
    if (!p || !w || !out)
        return cm_err_set(err, CM_EINTERNAL, "l1 prediction: missing input");
    uint64_t ways = (uint64_t)p->l1_ways, line = (uint64_t)p->l1_line;
    *sets = (uint64_t)p->l1_size / (ways * line);
    if (*sets < 1)
        return cm_err_set(err, CM_EINPUT,
                          "l1.size %g is smaller than one set of l1.ways x "
                          "l1.line bytes",
                          p->l1_size);
    return CM_OK;
}

/* The prediction at degree w (solve = 0) or at the degree the scheduler
 * settles on below cap (solve = 1). */
static cm_status predict_at(const cm_params *p, const cm_workload_profile *w,
                            double cap, int solve, cm_l1_prediction *out,
                            cm_err *err)
{
    uint64_t sets = 0;
    cm_status st = check_inputs(p, w, out, &sets, err);
    if (st) return st;
    const cm_l1_profile *prof = NULL;
    st = cm_l1_profile_get(w, (uint64_t)p->sim_seed, (uint32_t)p->l1_line,
                           &prof, err);
    if (st) return st;
    degree_memo d = {prof, sets, (uint64_t)p->l1_ways, NULL,
                     (size_t)ceil(cap) + 1, 0};
    d.mr = malloc(d.n * sizeof *d.mr);
    if (!d.mr) return cm_err_set(err, CM_EINTERNAL, "out of memory");
    for (size_t k = 0; k < d.n; k++) d.mr[k] = NAN;
    double insts = cm_l1_profile_mem_insts(prof);
    issue_model im = {
        insts > 0 ? cm_l1_profile_accesses(prof) / insts : 1,
        insts > 0 ? cm_l1_profile_compute(prof) / insts : 0,
        p->l1_hit_latency, p->l2_latency, p->l1_mshrs};
    double wd = cap;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    if (solve) st = solve_degree(&d, &im, cap, &wd, err);
    double mr = 0;
    if (!st) st = mr_at(&d, wd, &mr, err);
    gsl_set_error_handler(old);
    free(d.mr);
    if (st) return st;
    out->miss_ratio = mr;
    out->warps_interleaved = wd;
    out->warps = (size_t)ceil(wd);
    out->accesses_per_warp = cm_l1_profile_accesses(prof);
    out->set_local = d.exact;
    return CM_OK;
}

cm_status cm_l1_predict_miss_ratio(const cm_params *p,
                                   const cm_workload_profile *w,
                                   double warps_interleaved,
                                   cm_l1_prediction *out, cm_err *err)
{
    if (!p)
        return cm_err_set(err, CM_EINTERNAL, "l1 prediction: missing input");
    double wmax = p->gpu_warps_per_sm;
    if (!(warps_interleaved >= 1 && warps_interleaved <= wmax))
        return cm_err_set(err, CM_EINPUT,
                          "warps interleaved %g: expected 1 to "
                          "gpu.warps_per_sm (%g)",
                          warps_interleaved, wmax);
    return predict_at(p, w, warps_interleaved, 0, out, err);
}

cm_status cm_l1_predict_scheduled(const cm_params *p,
                                  const cm_workload_profile *w,
                                  double fraction, cm_l1_prediction *out,
                                  cm_err *err)
{
    if (!p)
        return cm_err_set(err, CM_EINTERNAL, "l1 prediction: missing input");
    if (!(fraction > 0 && fraction <= 1))
        return cm_err_set(err, CM_EINPUT,
                          "interleaving fraction %g: expected 0 < f <= 1",
                          fraction);
    double cap = fmin(fmax(fraction * p->sched_active_warps, 1),
                      p->gpu_warps_per_sm);
    return predict_at(p, w, cap, p->sched_policy != 0 /* not LRR */, out,
                      err);
}
