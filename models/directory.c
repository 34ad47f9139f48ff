/* directory.c - the directory-bandwidth model of directory.h: messages and
 * flits per L1 access, by class, from the protocol's transition tables
 * weighted by (state, event) probabilities.
 *
 * Access classes.  An L1 access is a load, store or atomic with the
 * profile's op mix (rate.l1_loads : rate.l1_stores : rate.l1_atomics).
 *
 * Loads.  A load sends its row's request (state I) or not (a valid copy, or
 * a fill in flight to merge on).  Its copy survives since this core's
 * previous load of the line unless
 *  - capacity: the load misses a set-associative LRU cache of the
 *    target's l1.size / l1.line lines in l1.ways ways; p_cap = P(hit).
 *    Where the profile has the loads' set-local stack distances at the
 *    target's set count (joint.l1.set_mates_<b>), exactly: a load hits iff
 *    fewer than l1.ways lines of its set came between (Mattson per set).
 *    Otherwise from its LRU stack distance in the core's load stream
 *    (l1.load_distance) under a uniform placement of lines into sets
 *    (binomial set model, cm_mrc_setassoc_miss_prob), which misses
 *    conflicts of lines camping on a few sets: scluster's stride of 32
 *    lines on li2014's L1 (validate directory --design lhs:250 --seed 2:
 *    scluster's MARE 21% binomial, 11% set-local);
 *  - coherence: an event the protocol's table turns into a lost copy
 *    happened to the line in between (l1.load_flags, recorded in program
 *    order whatever protocol ran): a remote write under a protocol with
 *    sharers (the L2 invalidates them), an own store whose (V, STORE) row
 *    drops the copy (write-evict), an own atomic whose (V, ATOMIC) row drops
 *    it, a fence or kernel start where the protocol invalidates the L1.
 *    b = P(any such flag | a previous load), taken independent of capacity;
 *  - recall: an L2 (GPU-VI, MESI) or directory (GPU-VIni) eviction recalls
 *    live copies: models/recall.h gives live copies recalled per directory
 *    access, hence per cycle; spread evenly over the machine's L1 lines,
 *    a copy is recalled at rate lam per cycle, and a gap g survives with
 *    probability exp(-lam g) (hot copies, reused at short gaps, rarely
 *    lose to a recall).  The recalls per L1 access are the profile's
 *    (directory misses do not move with the L1, which only filters out
 *    reuses short enough to hit in the L2); the recall model carries the
 *    copies' liveness to this L1 size (models/recall.h).
 * Without expiry the miss probability is m = 1 - (1-b) E[exp(-lam g);
 * g <= t_cap], t_cap the capacity threshold on gaps below.
 * Temporal Coherence adds expiry: a copy's lease runs the lifetime from the
 * L2's service of its GETS, late in the round trip (requests wait in the
 * bank's queue), and loads merge on the fill meanwhile, so a chain of hits
 * ends at the first load more than L = lifetime + round trip after the
 * chain's miss.
 * With the gaps between a core's loads of a line (l1.load_gap) independent,
 * a gap continuing the chain only if it is a capacity survivor (comonotone
 * with the stack distance: the shortest gaps are the shortest distances, so
 * survivors are gaps below the p_cap quantile of the gap distribution) and
 * unbroken, the loads per chain are E[N] = 1 + U(L), U the renewal function
 * of that defective gap law, solved on a grid of [0, L] by the discretised
 * renewal equation; m = 1 / E[N].  NO-L1 is the same renewal with L the
 * round trip (rate.store_ack_latency): loads within it merge on the GETS in
 * flight.  TC-Weak's adaptive L is the predictor's equilibrium
 * (models/lifetime.h).
 *
 * Stores and atomics.  The copy's state at a write: write-through
 * protocols find a valid copy with probability P(store gap <= the capacity
 * threshold, and <= L under TC) (l1.store_gap: since this core's previous
 * access of the line); MESI holds it E/M when this core is the line's only
 * holder since its latest write (l1.store_flags), S when one of several,
 * else I.  The L1 row of (state, STORE / ATOMIC) gives the request.
 *
 * L2.  Each request is served by the L2 row of its event in the stable
 * state a fill leaves (misses fetch silently and replay there).  Writes
 * under protocols with sharers find k other holders (l1.write_sharers):
 * k = 0 is the _SOLE event, k > 0 the invalidating row, whose INVs are
 * answered by the L1's (valid, INV) row and end with the INVACK_LAST row's
 * reply.  MESI: a load finding a single other holder that wrote or loaded
 * alone (load flag OWNED) meets an owner: FWD_GETS, the owner's row, the
 * X_S row's reply; a write from I with one other holder meets its owner
 * (FWD_GETX ... DATA_M); E/M copies end in a PUT (E: clean, control-sized)
 * unless taken by a forward.  Recalls: RCL per directory access from
 * models/recall.h, each answered by the L1's (valid, RCL) row.
 *
 * Flits per message come from cm_msg_flits (the simulator's own count),
 * with request payloads of 4 bytes (the simulator's default access size;
 * write-back requests carry none) and 8-byte atomic replies.
 *
 * Assumptions, besides those above: requests never meet transient L2
 * states (stalls delay, they do not change messages); TC's L2 serves writes
 * once the GT has passed (state E); stale TC-Weak UPGRs (DATA instead of
 * ACK) and stale or cancelled fills are ignored; sharer lists are not
 * shortened by L2 evictions between writes. */
#include "models/directory.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/directory_impl.h"
#include "models/lifetime.h"
#include "models/mrc.h"
#include "models/recall.h"
#include "models/ptable.h"
#include "solvers/binom.h"

_Static_assert(CM_DIR_NCLASSES == CM_MSG_COUNT,
               "directory.h's class count follows data/proto.h");

/* Load flags of the profile (sim/profile_rec.c). */
enum {
    LF_REMOTE = 1, LF_STORE = 2, LF_ATOMIC = 4, LF_SYNC = 8, LF_OWNED = 16,
    LF_SEEN = 32
};
enum { SFL_HOLDS = 1, SFL_ONLY = 2 };
enum { RENEWAL_GRID = 1024, REQ_BYTES = 4, AREPLY_BYTES = 8 };

const char *cm_directory_class_name(size_t cls)
{
    return cls < CM_MSG_COUNT ? cm_msg_names[cls] : NULL;
}

/* Weight of the integers in [lo, hi) of a count distribution, summed over
 * its bins, as a fraction of the total; `pick` selects integers. */
static double count_frac(const cm_dist *d, int (*pick)(unsigned, unsigned),
                         unsigned arg)
{
    double tot = cm_dist_total(d), w = 0;
    if (!(tot > 0)) return 0;
    for (size_t i = 0; i < d->n; i++)
        for (double v = d->lo[i]; v < d->hi[i]; v += 1)
            if (pick((unsigned)v, arg))
                w += d->w[i] / (d->hi[i] - d->lo[i]);
    return w / tot;
}

static int pick_all(unsigned v, unsigned mask)
{
    return (v & mask) == mask;
}
static int pick_any(unsigned v, unsigned mask)
{
    return (v & mask) != 0;
}
static int pick_seen_broken(unsigned v, unsigned mask)
{
    return (v & LF_SEEN) && (v & mask);
}
static int pick_eq(unsigned v, unsigned x)
{
    return v == x;
}
static int pick_ge(unsigned v, unsigned x)
{
    return v >= x;
}

/* Mean of a count distribution over values >= 1 (0 if none). */
static double count_mean_pos(const cm_dist *d)
{
    double w = 0, s = 0;
    for (size_t i = 0; i < d->n; i++)
        for (double v = d->lo[i]; v < d->hi[i]; v += 1)
            if (v >= 1) {
                double x = d->w[i] / (d->hi[i] - d->lo[i]);
                w += x;
                s += x * v;
            }
    return w > 0 ? s / w : 0;
}

/* The smallest t with P(X <= t) >= q: the bin where the weight from
 * below reaches q, inverted there (a bin's weight is uniform).  (A
 * bisection on cm_dist_cdf took a hundred passes over the bins.) */
static double quantile(const cm_dist *d, double q)
{
    if (q <= 0) return 0;
    double want = q * d->w_total, below = 0;
    for (size_t i = 0; i < d->n; i++) {
        if (d->w[i] > 0 && below + d->w[i] >= want) {
            double f = (want - below) / d->w[i];
            return d->lo[i] + (f < 1 ? f : 1) * (d->hi[i] - d->lo[i]);
        }
        below += d->w[i];
    }
    return INFINITY;
}

/* Loads per chain E[N] = 1 + U(L) for gaps of law G cut at t_cap and
 * continuing with probability keep: u[i] = f[i] + sum_j f[j] u[i-j] on a
 * grid of [0, L].  The gap mass of each grid cell is split between its two
 * ends so that its mean is kept (a coarse grid would otherwise bias ages
 * when gaps are shorter than a cell). */
static double renewal_loads(const cm_dist *G, double t_cap, double keep,
                            double lam, double L, double *work)
{
    size_t n = RENEWAL_GRID;
    double h = L / (double)(n - 1);
    if (!(L > 0) || !(keep > 0)) return 1;
    double *f = work, *u = work + n, cut = fmin(t_cap, L);
    memset(f, 0, n * sizeof *f);
    for (size_t i = 0; i + 1 < n; i++) {
        double a = fmin(i * h, cut), b = fmin((i + 1) * h, cut);
        if (!(b > a)) break;
        double Fa = i ? cm_dist_cdf(G, a) : 0, Fb = cm_dist_cdf(G, b);
        double w = Fb - Fa;
        if (!(w > 0)) continue;
        /* E[g; a < g <= b] = b F(b) - a F(a) - integral of F over [a, b] */
        double mean = (b * Fb - a * Fa - cm_dist_integral_cdf(G, a, b)) / w;
        double x = (mean - i * h) / h;
        x = x < 0 ? 0 : x > 1 ? 1 : x;
        w *= exp(-lam * mean); /* no recall during the gap */
        f[i] += keep * w * (1 - x);
        f[i + 1] += keep * w * x;
    }
    if (f[0] >= 1 - 1e-12) return 1e12;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        double v = f[i];
        for (size_t j = 1; j <= i; j++) v += f[j] * u[i - j];
        u[i] = v / (1 - f[0]);
        sum += u[i];
    }
    return 1 + sum;
}

/* E[exp(-lam g); g <= t] for gaps g of law G, each bin uniform: the
 * probability that a gap short enough to hit sees no recall (rate lam). */
static double survive(const cm_dist *G, double t, double lam)
{
    double tot = cm_dist_total(G), s = 0;
    if (!(tot > 0)) return 0;
    for (size_t i = 0; i < G->n && G->lo[i] < t; i++) {
        double lo = G->lo[i], hi = fmin(G->hi[i], t), wd = G->w[i] /
                                                           (G->hi[i] - lo);
        if (lam * (hi - lo) < 1e-9)
            s += wd * (hi - lo) * exp(-lam * lo);
        else
            s += wd * (exp(-lam * lo) - exp(-lam * hi)) / lam;
    }
    return s / tot;
}

typedef struct dir_in {
    const cm_dist *gap, *dist, *flags, *sgap, *sflags, *wsh;
    double fl, fs, fa, rtt, rate_loads, rate_acc;
} dir_in;

/* P(a load hits) for stack distances d (lines), in an LRU cache of sets x
 * ways (g), d counted less the `extra` lines that are not in the cache. */
static double cap_hit(const cm_dist *d, const cm_mrc_setassoc_geo *g,
                      double extra)
{
    double tot = cm_dist_total(d), h = 0;
    for (size_t i = 0; i < d->n; i++) {
        double lo = fmax(0, floor(d->lo[i] - extra));
        double hi = fmax(lo + 1, floor(d->hi[i] - extra));
        h += d->w[i] * (1 - cm_mrc_setassoc_geo_miss_prob(g, lo, hi));
    }
    return tot > 0 ? h / tot : 0;
}

/* The set-local stack distances of the core's load stream in an L1 of
 * 2^b sets (joint.l1.set_mates_<b>: per cell the mean d, x, and the mean
 * set-local distance j, y) into c->cells; left NULL if the profile has no
 * such rows (sets not a power of two, or an older profile), or if they
 * hold more loads than c->dist (l1.load_distance, whose loads at
 * infinity miss). */
static void set_cells_find(cm_directory_capacity *c, const cm_profile *prof,
                           uint64_t sets)
{
    c->cells = NULL;
    c->ncells = 0;
    c->all = cm_dist_total(c->dist);
    if (sets & (sets - 1)) return;
    char name[40];
    const cm_point *pt;
    size_t n;
    snprintf(name, sizeof name, "joint.l1.set_mates_%u",
             (unsigned)__builtin_ctzll(sets));
    cm_profile_points(prof, name, &pt, &n);
    double tot = 0;
    for (size_t i = 0; i < n; i++) tot += pt[i].w;
    if (tot > 0 && c->all >= tot) {
        c->cells = pt;
        c->ncells = n;
    }
}

/* P(a load hits) from the set-local cells: exact LRU placement, for
 * lines that camp on a few sets as for lines spread over all of them.  In
 * flight, the `extra` most recent of a load's d predecessors hold no way
 * yet (the L1 picks a victim at the fill); each of its j set mates is one
 * of them with probability a = extra / d, so X ~ Binomial(j, a) of them do
 * not count, and the load hits iff j - X < W.  The cells hold the loads
 * with a finite d; those at infinity (first loads, and reuses beyond the
 * stack's reach) miss. */
static double cap_hit_sets(const cm_directory_capacity *c, double extra)
{
    double h = 0;
    for (size_t i = 0; i < c->ncells; i++) {
        const cm_point *pt = &c->cells[i];
        double a = pt->x > 0 ? fmin(1, extra / pt->x) : 0;
        unsigned j = (unsigned)floor(pt->y + 0.5);
        if (j < c->ways)
            h += pt->w;
        else if (a > 0)
            h += pt->w * cm_binom_q(j - (unsigned)c->ways, a, j);
    }
    return h / c->all;
}

void cm_directory_capacity_init(cm_directory_capacity *c, const cm_params *p,
                                const cm_profile *prof, const cm_dist *dist,
                                double loads, double rtt)
{
    double lines = p->l1_size / p->l1_line;
    uint64_t ways = (uint64_t)p->l1_ways;
    uint64_t sets = (uint64_t)floor(lines / (double)ways);
    if (sets < 1) sets = 1;
    c->dist = dist;
    c->ways = ways;
    c->mshrs = p->l1_mshrs;
    c->scale = loads / (p->gpu_sms > 0 ? p->gpu_sms : 1) * rtt;
    set_cells_find(c, prof, sets);
    cm_mrc_setassoc_geo_init(&c->geo, sets, ways, NULL);
}

double cm_directory_capacity_hit(const cm_directory_capacity *c,
                                 double extra)
{
    return c->cells ? cap_hit_sets(c, extra)
                    : cap_hit(c->dist, &c->geo, extra);
}

double cm_directory_capacity_want(const cm_directory_capacity *c,
                                  double extra)
{
    return fmin(c->mshrs, (1 - cm_directory_capacity_hit(c, extra)) *
                              c->scale);
}

/* want(extra) - extra for the root finder; the last point asked about
 * and its P(hit) kept, so the root's P(hit) is not asked for twice. */
typedef struct cap_gap_arg {
    const cm_directory_capacity *c;
    double at, hit;
} cap_gap_arg;

static double cap_gap(double extra, void *arg)
{
    cap_gap_arg *g = arg;
    g->at = extra;
    g->hit = cm_directory_capacity_hit(g->c, extra);
    return fmin(g->c->mshrs, (1 - g->hit) * g->c->scale) - extra;
}

/* want falls as extra grows (lines in flight hold no way: more hits), so
 * want(extra) - extra falls from want(0) >= 0 at 0 to <= 0 at the most
 * lines that can be in flight, min(l1.mshrs, scale): Brent's method on
 * that bracket takes 5-8 passes over the cells, where the damped
 * iteration before it took ~14 and stopped within 0.01 lines. */
double cm_directory_capacity_solve(const cm_directory_capacity *c,
                                   double *extra)
{
    cap_gap_arg g = {c, NAN, NAN};
    double top = fmin(c->mshrs, c->scale), root = 0;
    if (extra) *extra = 0;
    if (!(top > CM_DIRECTORY_CAP_TOL) || !(cap_gap(0, &g) > 0))
        return g.at == 0 ? g.hit : cm_directory_capacity_hit(c, 0);
    gsl_function F = {cap_gap, &g};
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    int st = s ? gsl_root_fsolver_set(s, &F, 0, top) : GSL_ENOMEM;
    for (int it = 0; !st && it < 100; it++) {
        if ((st = gsl_root_fsolver_iterate(s))) break;
        root = gsl_root_fsolver_root(s);
        if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s),
                                   gsl_root_fsolver_x_upper(s),
                                   CM_DIRECTORY_CAP_TOL, 0) == GSL_SUCCESS)
            break;
    }
    gsl_root_fsolver_free(s);
    gsl_set_error_handler(old);
    /* a failed solve (NaN hits from a broken profile) answers as the
     * hits at no lines in flight would: NaN through to the result */
    if (st) return cm_directory_capacity_hit(c, 0);
    if (extra) *extra = root;
    return g.at == root ? g.hit : cm_directory_capacity_hit(c, root);
}

static cm_status read_inputs(const cm_profile *prof, dir_in *in, cm_err *err)
{
    memset(in, 0, sizeof *in);
    double l, s, a;
    cm_status st;
    if ((st = cm_profile_rate(prof, "rate.l1_loads", &l, err)) ||
        (st = cm_profile_rate(prof, "rate.l1_stores", &s, err)) ||
        (st = cm_profile_rate(prof, "rate.l1_atomics", &a, err)))
        return st;
    double tot = l + s + a;
    if (!(tot > 0) || l < 0 || s < 0 || a < 0)
        return cm_err_set(err, CM_EINPUT,
                          "profile: rate.l1_loads, rate.l1_stores and "
                          "rate.l1_atomics must be >= 0, not all 0");
    in->rate_loads = l;
    in->rate_acc = tot;
    in->fl = l / tot;
    in->fs = s / tot;
    in->fa = a / tot;
    /* the load round trip; older profiles have only the stores' */
    if (cm_profile_rate(prof, "rate.fill_latency", &in->rtt, err) &&
        cm_profile_rate(prof, "rate.store_ack_latency", &in->rtt, err))
        in->rtt = 0;
    if (in->fl > 0 &&
        ((st = cm_profile_dist(prof, "l1.load_gap", &in->gap, err)) ||
         (st = cm_profile_dist(prof, "l1.load_distance", &in->dist, err)) ||
         (st = cm_profile_dist(prof, "l1.load_flags", &in->flags, err))))
        return st;
    if (in->fs + in->fa > 0 &&
        ((st = cm_profile_dist(prof, "l1.store_gap", &in->sgap, err)) ||
         (st = cm_profile_dist(prof, "l1.store_flags", &in->sflags, err)) ||
         (st = cm_profile_dist(prof, "l1.write_sharers", &in->wsh, err))))
        return st;
    return CM_OK;
}

/* The walk: adds `w` messages of each row's class to the result. */
typedef struct walk {
    const cm_ptable *proto;
    double msgs[CM_MSG_COUNT];
    double put_clean; /* PUTs of clean E copies (control-sized) */
} walk;

enum { L1, L2 };
static const cm_proto_row *emit(walk *wk, int ctl, unsigned st, unsigned ev,
                                double w)
{
    const cm_proto_row *r = ctl == L2 ? cm_ptable_l2(wk->proto, st, ev)
                                      : cm_ptable_l1(wk->proto, st, ev);
    if (r && r->msg != CM_MSG_NONE && w > 0) wk->msgs[r->msg] += w;
    return r;
}

/* The L1 state a valid copy is in, and the L2's stable state after a fill. */
static unsigned l1_valid(const cm_ptable *p)
{
    return p->write_back ? CM_L1S_S : CM_L1S_V;
}
static unsigned l2_served(const cm_ptable *p)
{
    const cm_proto_row *r = cm_ptable_l2(p, CM_L2S_I, CM_L2E_GETS);
    const cm_proto_row *f = r ? cm_ptable_l2(p, r->next, CM_L2E_FILL) : NULL;
    return f ? f->next : CM_L2S_N;
}

/* A write request of class `ev` at the L2 with k other sharers (the
 * INVs, their L1 answers and the final reply, from the rows). */
static void l2_write(walk *wk, unsigned ev, unsigned sole, unsigned last,
                     double w, double p_shared, double k_mean)
{
    const cm_ptable *p = wk->proto;
    unsigned home = l2_served(p);
    if (p->lifetime != CM_LIFE_NONE) home = CM_L2S_E; /* served once GT has passed */
    if (p->sharers == CM_SHARERS_NONE) {
        emit(wk, L2, home, ev, w);
        return;
    }
    /* no other sharer: the _SOLE row (or the plain one if it has none) */
    double w0 = w * (1 - p_shared), w1 = w * p_shared;
    if (!emit(wk, L2, home, sole, w0) && !emit(wk, L2, CM_L2S_S, sole, w0))
        emit(wk, L2, home, ev, w0);
    const cm_proto_row *r = emit(wk, L2, CM_L2S_S, ev, 0);
    if (r && (r->actions & CM_A2_INV)) {
        wk->msgs[CM_MSG_INV] += w1 * k_mean;
        emit(wk, L1, l1_valid(p), CM_L1E_INV, w1 * k_mean);
        emit(wk, L2, r->next, last, w1);
    } else if (r) {
        emit(wk, L2, CM_L2S_S, ev, w1);
    }
}

/* Flits per message of each class. */
static void class_flits(const cm_params *prm, const cm_ptable *p,
                        double fl[CM_MSG_COUNT])
{
    uint32_t h = (uint32_t)prm->noc_header, f = (uint32_t)prm->noc_flit,
             line = (uint32_t)prm->l1_line;
    uint32_t req = p->write_back ? 0 : REQ_BYTES;
    for (unsigned m = 1; m < CM_MSG_COUNT; m++)
        fl[m] = (double)cm_msg_flits(m, 1,
                                     m == CM_MSG_AREPLY ? AREPLY_BYTES : req,
                                     h, f, line);
}

/* TC lifetime at the machine p: fixed, or the predictor's equilibrium. */
static double tc_lifetime(const cm_params *p, const cm_ptable *proto,
                          const cm_profile *prof)
{
    if (proto->lifetime != CM_LIFE_PREDICTED)
        return proto->lifetime == CM_LIFE_WEAK ? p->tc_lifetime_weak
                                               : p->tc_lifetime_strong;
    cm_lifetime_input in;
    cm_lifetime_bound b;
    double L;
    cm_err e = {0};
    if (cm_lifetime_input_from_profile(prof, p, &in, &e) ||
        cm_lifetime_equilibrium(&in, &L, &b, &e))
        return p->tc_predictor_init;
    return L;
}

cm_status cm_directory_predict(const cm_params *p,
                               const cm_ptable *proto,
                               const cm_profile *prof,
                               cm_directory_result *out, cm_err *err)
{
    memset(out, 0, sizeof *out);
    dir_in in;
    cm_status st = read_inputs(prof, &in, err);
    if (st) return st;
    out->p_load = in.fl;
    out->p_store = in.fs;
    out->p_atomic = in.fa;
    int no_l1 = !cm_ptable_l1_caches(proto), wb = proto->write_back;
    int tc = proto->lifetime != CM_LIFE_NONE;
    int sharers = proto->sharers != CM_SHARERS_NONE;
    unsigned V = l1_valid(proto);

    /* capacity: hit probability of the load stack distances.  Lines in
     * flight hold no way: the `extra` most recently missed lines among a
     * load's d predecessors do not push it out, so it hits if d - extra
     * lines fit.  extra = misses in flight per core (Little: miss rate x
     * fill latency, at most l1.mshrs), solved with the miss rate */
    double lines = p->l1_size / p->l1_line;
    double p_cap = 0;
    if (in.dist && !no_l1) {
        cm_directory_capacity cap;
        cm_directory_capacity_init(&cap, p, prof, in.dist, in.rate_loads,
                                   in.rtt);
        p_cap = cm_directory_capacity_solve(&cap, NULL);
    }
    /* loads within a round trip of the line's miss merge on the fill in
     * flight, however many lines came between: in-flight lines are not yet
     * in the LRU stack */
    double t_cap = in.gap ? quantile(in.gap, p_cap) : 0;
    if (in.gap && !no_l1 && in.rtt > t_cap) {
        t_cap = in.rtt;
        p_cap = cm_dist_cdf(in.gap, t_cap);
    }

    /* coherence breaks, from what the tables do to a valid copy */
    unsigned mask = 0;
    const cm_proto_row *r;
    if (sharers) mask |= LF_REMOTE;
    if ((r = cm_ptable_l1(proto, V, CM_L1E_STORE)) &&
        (r->actions & CM_A1_INVAL))
        mask |= LF_STORE;
    if ((r = cm_ptable_l1(proto, V, CM_L1E_ATOMIC)) &&
        (r->actions & CM_A1_INVAL))
        mask |= LF_ATOMIC;
    if (((r = cm_ptable_l1(proto, V, CM_L1E_ACQUIRE)) && r->next == CM_L1S_I) ||
        ((r = cm_ptable_l1(proto, V, CM_L1E_KERNEL_START)) &&
         r->next == CM_L1S_I))
        mask |= LF_SYNC;
    double seen = in.flags ? count_frac(in.flags, pick_all, LF_SEEN) : 0;
    double b = seen > 0 && mask
                   ? count_frac(in.flags, pick_seen_broken, mask) / seen
                   : 0;

    double L = 0;
    /* a TC copy's lease starts when the L2 serves the GETS, late in the
     * round trip (the bank's queue, not the reply, is where requests
     * wait), and loads meanwhile merge on the fill: the chain's window is
     * about the lifetime plus the round trip */
    if (tc) L = (out->lifetime = tc_lifetime(p, proto, prof)) + in.rtt;
    if (no_l1) L = in.rtt > 1 ? in.rtt : 1;
    int renewal = tc || no_l1;
    double *work = renewal ? malloc(2 * RENEWAL_GRID * sizeof *work) : NULL;
    if (renewal && !work) return cm_err_set(err, CM_EINTERNAL, "out of memory");

    /* recalls: the recall model.  Its evictions per L1 access are those
     * measured in the profile's directory stream: an inclusive L2 (or a
     * directory) misses on the accesses whose reuse outspans it, and the
     * L1s filter out only short reuses that would have hit there, so the
     * misses per L1 access do not move with the L1 (kmn on tc2013, gpu-vi:
     * 0.428, 0.424, 0.426 recalls per access at 8, 32, 128 KB L1s while
     * the GETS fall from 0.76 to 0.46).  Scaling them by the requests
     * this model predicts instead undercounted recalls by 40% at 128 KB. */
    cm_recall_result rc = {0};
    int have_rc = 0;
    double evict_scale = 0; /* directory accesses per L1 access */
    if (sharers) {
        cm_recall_protocol rp = wb ? CM_RECALL_MESI
                                : proto->sharers == CM_SHARERS_DIR
                                    ? CM_RECALL_GPU_VINI
                                    : CM_RECALL_GPU_VI;
        cm_recall_input ri;
        cm_err e = {0};
        have_rc = !cm_recall_predict(p, rp, prof, &ri, &rc, &e) &&
                  in.rate_acc > 0;
        if (have_rc) evict_scale = ri.access_rate / in.rate_acc;
    }
    double k_mean = in.wsh ? count_mean_pos(in.wsh) : 0;
    double p_wsh = in.wsh ? count_frac(in.wsh, pick_ge, 1) : 0;
    double m = 1, p_sv = 0, req = 0;
    double copies = (p->gpu_sms > 0 ? p->gpu_sms : 1) * lines;
    /* live copies recalled per copy per cycle */
    double lam = have_rc ? rc.recalls_per_cycle / copies : 0;
    double rcl = have_rc ? rc.recall_msgs_per_access * evict_scale : 0;
    walk wk;
    if (!in.gap) m = 0;
    else if (renewal)
        m = 1 / renewal_loads(in.gap, no_l1 ? INFINITY : t_cap, 1 - b, lam,
                              L, work);
    else m = 1 - (1 - b) * survive(in.gap, t_cap, lam);
    /* a write finds a valid copy */
    if (in.sgap && !no_l1) {
        double t = tc ? fmin(t_cap, L) : t_cap;
        p_sv = survive(in.sgap, t, lam);
    }
    memset(&wk, 0, sizeof wk);
    wk.proto = proto;
    /* loads */
    emit(&wk, L1, CM_L1S_I, CM_L1E_LOAD, in.fl * m);
    /* stores and atomics */
    double pw[2] = {in.fs, in.fa};
    unsigned evs[2] = {CM_L1E_STORE, CM_L1E_ATOMIC};
    for (int k = 0; k < 2; k++) {
        if (!(pw[k] > 0)) continue;
        if (wb) {
            double only = count_frac(in.sflags, pick_all, SFL_ONLY);
            double holds = count_frac(in.sflags, pick_all, SFL_HOLDS);
            emit(&wk, L1, CM_L1S_M, evs[k], pw[k] * only * p_sv);
            emit(&wk, L1, CM_L1S_S, evs[k], pw[k] * (holds - only) * p_sv);
            emit(&wk, L1, CM_L1S_I, evs[k], pw[k] * (1 - holds * p_sv));
        } else {
            emit(&wk, L1, V, evs[k], pw[k] * p_sv);
            emit(&wk, L1, CM_L1S_I, evs[k], pw[k] * (1 - p_sv));
        }
    }
    req = wk.msgs[CM_MSG_GETS] + wk.msgs[CM_MSG_GETX] + wk.msgs[CM_MSG_UPGR] +
          wk.msgs[CM_MSG_WRITE] + wk.msgs[CM_MSG_ATOMIC];
    free(work);
    out->p_load_miss = m;
    out->p_store_valid = p_sv;
    out->dir_per_access = req;

    /* L2 replies, in the rows of the served state */
    unsigned home = l2_served(proto);
    double gets = wk.msgs[CM_MSG_GETS];
    if (wb && in.flags) {
        double own = count_frac(in.flags, pick_any, LF_OWNED);
        double q_own = m > 0 ? fmin(1, in.fl * own / gets) : 0;
        /* lines without an owner are mostly back in N (the last E or M
         * copy was PUT): S needs two readers of an owned line, rare
         * enough to neglect */
        double q_n = 1 - q_own;
        if (!(gets > 0)) q_own = q_n = 0;
        emit(&wk, L2, CM_L2S_N, CM_L2E_GETS, gets * q_n);
        emit(&wk, L2, CM_L2S_S, CM_L2E_GETS, gets * (1 - q_n - q_own));
        if ((r = emit(&wk, L2, CM_L2S_X, CM_L2E_GETS, gets * q_own))) {
            emit(&wk, L1, CM_L1S_M, CM_L1E_FWD_GETS, gets * q_own);
            emit(&wk, L2, r->next, CM_L2E_WB, gets * q_own);
        }
        /* GETX from I: one other holder is taken as the owner */
        double getx = wk.msgs[CM_MSG_GETX];
        double p1 = in.wsh ? count_frac(in.wsh, pick_eq, 1) : 0;
        double pk = p_wsh - p1, kk = 0;
        if (pk > 0) {
            double s = 0;
            for (size_t i = 0; i < in.wsh->n; i++)
                for (double v = in.wsh->lo[i]; v < in.wsh->hi[i]; v += 1)
                    if (v >= 2)
                        s += v * in.wsh->w[i] / (in.wsh->hi[i] - in.wsh->lo[i]);
            kk = s / cm_dist_total(in.wsh) / pk;
        }
        if ((r = emit(&wk, L2, CM_L2S_X, CM_L2E_GETX_SOLE, getx * p1))) {
            emit(&wk, L1, CM_L1S_M, CM_L1E_FWD_GETX, getx * p1);
            emit(&wk, L2, r->next, CM_L2E_WB, getx * p1);
        }
        l2_write(&wk, CM_L2E_GETX, CM_L2E_GETX_SOLE, CM_L2E_INVACK_LAST,
                 getx * (1 - p1), pk / (1 - p1 > 0 ? 1 - p1 : 1), kk);
        double upgr = wk.msgs[CM_MSG_UPGR];
        /* an UPGR comes from one of several holders (store flags) */
        l2_write(&wk, CM_L2E_UPGR, CM_L2E_UPGR_SOLE, CM_L2E_INVACK_LAST_U, upgr, 1,
                 k_mean > 1 ? k_mean : 1);
        /* E and M grants end in a PUT unless a forward or a recall took
         * them (recalls of owners, below) */
        double grants = wk.msgs[CM_MSG_DATA_E] + wk.msgs[CM_MSG_DATA_M];
        double fwd = wk.msgs[CM_MSG_FWD_GETS] + wk.msgs[CM_MSG_FWD_GETX];
        if (have_rc)
            fwd += rcl;
        double puts = grants > fwd ? grants - fwd : 0;
        double clean = grants > 0 ? wk.msgs[CM_MSG_DATA_E] / grants : 0;
        emit(&wk, L1, CM_L1S_M, CM_L1E_REPLACE, puts);
        wk.put_clean = puts * clean;
    } else {
        emit(&wk, L2, home, CM_L2E_GETS, gets);
        l2_write(&wk, CM_L2E_GETX, CM_L2E_GETX_SOLE, CM_L2E_INVACK_LAST,
                 wk.msgs[CM_MSG_GETX], p_wsh, k_mean);
        l2_write(&wk, CM_L2E_UPGR, CM_L2E_UPGR, CM_L2E_INVACK_LAST, wk.msgs[CM_MSG_UPGR],
                 0, 0);
        emit(&wk, L2, home, CM_L2E_WRITE, wk.msgs[CM_MSG_WRITE]);
        l2_write(&wk, CM_L2E_ATOMIC, CM_L2E_ATOMIC_SOLE, CM_L2E_INVACK_LAST_A,
                 wk.msgs[CM_MSG_ATOMIC], p_wsh, k_mean);
    }
    /* recalls, each answered by the L1's (valid, RCL) row */
    if (have_rc) {
        wk.msgs[CM_MSG_RCL] += rcl;
        /* MESI recalls the owner (E or M) when there is one, which is
         * the rule for lines that return to N */
        emit(&wk, L1, wb ? CM_L1S_M : V, CM_L1E_RCL, rcl);
    }

    double cf[CM_MSG_COUNT];
    class_flits(p, proto, cf);
    for (unsigned c = 1; c < CM_MSG_COUNT; c++) {
        out->msgs[c] = wk.msgs[c];
        out->flits[c] = wk.msgs[c] * cf[c];
        out->msgs_per_access += wk.msgs[c];
    }
    /* clean PUTs carry no line */
    out->flits[CM_MSG_PUT] -= wk.put_clean * (cf[CM_MSG_PUT] - cf[CM_MSG_INV]);
    for (unsigned c = 1; c < CM_MSG_COUNT; c++)
        out->flits_per_access += out->flits[c];
    return CM_OK;
}

cm_status cm_directory_grid_table(const cm_params *base,
                                  const cm_ptable *protos,
                                  size_t nprotos, const cm_profile *prof,
                                  cm_sweep *sweeps, size_t nsweeps,
                                  cm_progress_fn progress, void *progress_arg,
                                  cm_table **out, cm_err *err)
{
    enum { FIXED = 4 };
    *out = NULL;
    size_t ncols = nsweeps + FIXED + (CM_MSG_COUNT - 1);
    const char **header = calloc(ncols, sizeof *header);
    char (*cells)[40] = calloc(ncols, sizeof *cells);
    const char **row = calloc(ncols, sizeof *row);
    char (*names)[32] = calloc(CM_MSG_COUNT, sizeof *names);
    cm_table *t = NULL;
    cm_grid grid = {0};
    cm_status st = CM_OK;
    if (!header || !cells || !row || !names) {
        st = cm_err_set(err, CM_EINTERNAL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nsweeps; i++) header[i] = sweeps[i].param->name;
    header[nsweeps] = "protocol";
    header[nsweeps + 1] = "msgs_per_access";
    header[nsweeps + 2] = "flits_per_access";
    header[nsweeps + 3] = "p_load_miss";
    for (unsigned c = 1; c < CM_MSG_COUNT; c++) {
        snprintf(names[c], sizeof names[c], "msgs.%s", cm_msg_names[c]);
        header[nsweeps + FIXED + c - 1] = names[c];
    }
    for (size_t i = 0; i < ncols; i++) row[i] = cells[i];
    if (!(t = cm_table_new(ncols, header))) {
        st = cm_err_set(err, CM_EINTERNAL, "out of memory");
        goto done;
    }
    if ((st = cm_grid_init(&grid, sweeps, nsweeps, err))) goto done;
    cm_params p = *base;
    while (!st && cm_grid_next(&grid, &p)) {
        if ((st = cm_params_validate(&p, err))) break;
        for (size_t k = 0; !st && k < nprotos; k++) {
            cm_directory_result r;
            if ((st = cm_directory_predict(&p, &protos[k], prof, &r, err)))
                break;
            for (size_t i = 0; i < nsweeps; i++)
                cm_param_format(sweeps[i].param,
                                cm_param_get(&p, sweeps[i].param), cells[i],
                                sizeof cells[i]);
            snprintf(cells[nsweeps], sizeof cells[0], "%s", protos[k].name);
            cm_fmt_double(cells[nsweeps + 1], r.msgs_per_access);
            cm_fmt_double(cells[nsweeps + 2], r.flits_per_access);
            cm_fmt_double(cells[nsweeps + 3], r.p_load_miss);
            for (unsigned c = 1; c < CM_MSG_COUNT; c++)
                cm_fmt_double(cells[nsweeps + FIXED + c - 1], r.msgs[c]);
            st = cm_table_append(t, row, err);
        }
        if (progress) progress(grid.done, grid.points, progress_arg);
    }
done:
    cm_grid_free(&grid);
    free(names);
    free(row);
    free(cells);
    free(header);
    if (st) cm_table_free(t);
    else *out = t;
    return st;
}
