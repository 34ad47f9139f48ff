/* recall.c - recall rate of a finite coherence directory against its size
 * and associativity (spec/models.md section 3; seed 000, thesis on Temporal
 * Coherence, sections 2.2.4, 3.1 and 6.7).
 *
 * The protocols (seed 000).  GPU-VI keeps its sharer lists in the tags of
 * the inclusive L2: evicting an L2 line that has sharers sends a recall
 * (RCL) to every sharer, each answered by an INVACK.  GPU-VIni keeps them in
 * a separate directory of R x (total L1 lines) entries, W-way; evicting a
 * directory entry recalls every sharer and also evicts the L2 line, while an
 * L2 eviction recalls nothing.  MESI's inclusive L2 recalls the L1 copies
 * (owner or sharers) of the line it evicts.  In all three the directory is,
 * for this model, an LRU cache of line entries: the structure that recalls
 * is the L2 for GPU-VI and MESI, fed by the whole L1-miss stream (loads,
 * write-through stores, atomics: each miss allocates), and the separate
 * directory for GPU-VIni.  The seed does not say how GPU-VIni picks its
 * victim; the simulator (sim/l2.c, dir_make_room) takes an invalid or
 * sharer-less entry first, else the LRU one.
 *
 * GPU-VIni's stream.  Only a load (GETS) creates a directory entry: a store
 * or atomic to a line with no entry touches nothing.  With the profile's
 * dir.alloc_distance (per GETS, the stack distance over the requests to
 * lines loaded before; a store to a line never loaded is not in it) the
 * model runs on that stream: the eviction and liveness sums below are per
 * GETS, lambda is the GETS rate, U the lines loaded, and every per-access
 * result is scaled by f = rate.l2_loads / rate.dir_accesses.  Fed the L2's
 * stream instead, lines that are only written (bh, cl: 10-12% of requests)
 * stretch every stack distance, which overpredicted recalls by 30-45%.
 *
 * Sharer-less victims (GPU-VIni).  A store by an unlisted core or an atomic
 * empties a sharer list; the empty entry is the set's first victim and
 * leaves without a recall.  With p_full the allocations into a full set
 * per GETS (p_evict below), e the emptyings per GETS (rate.dir_empties /
 * rate.l2_loads, sharer lists taken from an unbounded directory), the
 * emptied entry is present iff its access hits: h = E[1 - Q(d_e)] over
 * dir.empty_distance.  It then stays sharer-less until its set's next full
 * allocation or its line's next GETS (dir.empty_gap, in GETS; inf: none),
 * whichever comes first.  Only the share o = P(Bin(U, 1/S) > W) of the
 * sets that more than W of the U lines loaded map to ever allocate into a
 * full set, so there the allocation is exponential at rate r = p_full /
 * (S o) per GETS (o = 1 without U; elsewhere no allocation takes it):
 *     T = E_gap[(1 - exp(-r gap)) / r]   (1/r for gap = inf).
 * By Little's law a set holds n = e h T / S of them; taking the count
 * Poisson, a full allocation finds one with p_sl = 1 - exp(-n), and
 *     p_evict (with recall) = f p_full (1 - p_sl).
 * Without the rows p_sl = 0 and f = 1 (the L2's stream): older profiles
 * still read.
 *
 * The quantity.  Recalls per directory access
 *     = P(the access evicts an entry) x P(a listed sharer is live)
 *       x E[sharers on the evicted entry's list],
 * which is the expected number of live L1 copies destroyed per access by
 * linearity, provided the sharer count is independent of liveness.  L1s in
 * GPU-VI(ni) evict silently, so the list can name L1s that no longer hold
 * the line; the RCL messages sent are p_evict x E[sharers] whatever their
 * liveness, and both counts are reported.  MESI's L1s notify their
 * evictions (PUT), so its lists, and dir.sharers, name live copies only:
 * both counts are p_evict x E[sharers] x p_live / p_live', p_live' the
 * liveness at the profiled L1 size (l1.residency unscaled), so that a
 * larger L1, whose copies outlive more evictions, is recalled more often
 * (kmn, 100k cycles: 0.06 RCL per L1 access at 32 KB, 0.34 at 128 KB).
 *
 * Eviction (the set-associative LRU model of models/setassoc.c).  With S
 * sets and W ways and lines spread uniformly over sets, an access of stack
 * distance d misses iff at least W of the d distinct lines since the line's
 * last use fall in its set: Q(d) = P(Bin(d, 1/S) >= W).  A miss with finite
 * d finds its set full (W lines have entered it since), so it evicts.  A
 * cold miss evicts iff its set is full: the k-th distinct line finds W
 * earlier ones in its set with probability Q(k - 1), so over a run of U
 * distinct lines the share of cold misses that evict is the mean of Q over
 * 0 .. U-1 (rate.dir_footprint); without U the run is taken to be long
 * (every cold miss evicts), which is the steady state of a directory that
 * the footprint overflows.  So
 *     p_evict = sum_d P(d) Q(d) + P(cold) c_full.
 * Sets (GPU-VIni): Q(d) is measured under the directory's own index
 * from the profile's joint.dir.set_mates_<b> and joint.dir.index_lines
 * (models/recall_geom.c, "Sets"); without the rows, the binomial above.
 * The run's length: a directory that recalls less lets the machine run
 * faster and touch more lines in the same cycles, which fills more sets
 * (models/recall_geom.c, "The run's length").
 * Entries leave the directory only by replacement (an invalidation or an
 * L2-only eviction does not free a GPU-VIni entry).  mean_sharers is the
 * mean of dir.sharers measured at the profiled geometry (GPU-VIni: over
 * recalling evictions only, so >= 1); it is carried unchanged to other
 * sizes (measured: bh 1.16 at dir.ratio 2, 1.10 at 4; cl, kmn flat).
 *
 * Liveness.  Look at the interval between two accesses to a line x, with d
 * distinct other lines in it (the stack distance of the second access).
 * The entry is evicted when the W-th distinct line of x's set arrives; call
 * G the number of distinct lines seen by then, so P(G <= g) = Q(g), and the
 * entry is evicted in the interval iff G <= d.  The copy at the L1 that made
 * the first access lives T cycles (l1.residency, independent of the
 * stream); it is live at the eviction iff the eviction comes before T, i.e.
 * iff G <= g(T), where g(T) is the number of distinct lines a window of
 * T x lambda accesses holds (lambda = rate.dir_accesses).  Hence
 *     P(evicted and live | d) = E_T[Q(min(d, g(T)))]
 *         = Q(d) P(g(T) >= d) + E[Q(g(T)); g(T) < d],
 * and for a line's last interval (no next access, one per cold access)
 * E_T[Q(g(T))], scaled by c_full.  Conditioning on the eviction matters:
 * lines reused soon are evicted only when G is small, so evicted entries
 * are younger than an unconditioned G would say.
 *     p_live = sum_d P(d) E_T[Q(min(d, g(T)))] / p_evict (+ the cold term).
 *
 * Footprint (accesses <-> distinct lines): g(T) = r^-1(T lambda) from the
 * stack distances by the higher-order theory of locality
 * (models/recall_geom.c, "Footprint").
 *
 * Numerics.  Q averaged over a range of distances is the set model's
 * (models/mrc.h, cm_mrc_setassoc_geo: binomial tails, exact per bin), or
 * the measured Q's piecewise-linear integral.  Each
 * residency bin is cut into RES_PIECES pieces of equal mass whose g-ranges
 * get the mean of Q over the range; each wide stack-distance bin into at
 * most DIST_PIECES pieces evaluated at their mean distance.  Cost: a sum
 * of ~W binomial terms per piece edge, each edge once per walk (pieces
 * share edges; the geometry's memo), ~20 us for hundreds of bins; GPU-VIni's
 * run's length, which moves only the cold misses' set fill, walks the
 * distributions once for all its passes (recall_walk).
 *
 * Approximations, to be read before trusting a number:
 *  - every listed sharer's copy is taken to be filled at the entry's last
 *    access, which makes the earlier sharers of a multi-sharer entry look
 *    younger (p_live is an upper bound for them: 9% too many live recalls
 *    with four L1s sharing in the Monte Carlo);
 *  - residency, stack distance and sharer count are independent; in a real
 *    GPU an L1 fetches a line again only after its copy left, which ties
 *    them together;
 *  - the footprint relation holds for a stationary stream; phases (kernels)
 *    make the conversion from cycles to distinct lines approximate;
 *  - uniform set mapping where the profile does not measure the sets
 *    (GPU-VI and MESI: the L2's sets; see setassoc.c: power-of-two
 *    strides conflict more); measured, the GETS's set-local distances of
 *    the profiled run are taken to hold at other sizes (a directory that
 *    recalls less changes the stream a little: dlb's misses at R = 4 run
 *    7-9% above the profile's at R = 2);
 *  - the sharer-less correction takes the emptying's distance and its
 *    gap to the next load as independent;
 *  - per-cycle rates assume the directory sees rate.dir_accesses whatever
 *    its size (recall-induced re-fetches do not feed back); only the
 *    lines a run touches follow its speed (GPU-VIni: recall_geom.c, "The
 *    run's length", the reply ports taken as the bound);
 *  - MESI's recalled M copies write their data back; without the dirty
 *    share in the profile those flits are not counted.
 * The Monte Carlo in tests/check_recall.c simulates these assumptions and
 * agrees within 2% on p_live (exactly, up to noise, on p_evict) from
 * direct-mapped to fully associative.
 * Measured domain (gpu-vini on tc2013, 100k cycles, dir.ratio 1-16 x
 * dir.ways 8-32; every point predicted from its workload's ratio-2,
 * 8-way profile; recalls per access MARE over the 30 held-out points,
 * per workload):
 *   cohmod validate recall (bh cl kmn): 9.1% (bh 8.6, cl 8.2, kmn 10.7);
 *   cohmod validate recall --workloads dlb,vpr,hsp: 5.8% (dlb 4.4,
 *     vpr 9.6, hsp 2.9).
 * At dir.ratio 1-4 every point is within 9% (bh at ratio 1 8-9% high,
 * dlb at ratio 4 6% low); at ratio 16, 8 ways within 10% but kmn (16%
 * low); beyond, where a few sets recall 2e-5-1e-2 per access (3 to 350
 * recalls in the run), the model reads 14-72% high on bh, cl, kmn, hsp
 * and 38-43% low on vpr.  Before the run's length was modelled: 10.6%
 * and 7.1% (kmn at 16 x 8 33% low, 16 x 16 0 for 2e-5). */
#include "models/recall.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/mrc.h"
#include "models/recall_impl.h"

/* Pieces per residency bin (equal mass in time) and at most per
 * stack-distance bin: enough that Q, whose step is ~S sqrt(W) lines wide,
 * is near linear across a piece of the bins a simulator writes. */
#define RES_PIECES 8
#define DIST_PIECES 8

static const char *const protocol_names[] = {"gpu-vi", "gpu-vini", "mesi"};

cm_status cm_recall_protocol_parse(const char *name, cm_recall_protocol *out,
                                   cm_err *err)
{
    for (size_t i = 0; i < sizeof protocol_names / sizeof *protocol_names;
         i++)
        if (strcmp(name, protocol_names[i]) == 0) {
            *out = (cm_recall_protocol)i;
            return CM_OK;
        }
    return cm_err_set(err, CM_EINPUT,
                      "unknown protocol '%s' (gpu-vi, gpu-vini, mesi)", name);
}

const char *cm_recall_protocol_name(cm_recall_protocol p)
{
    return (unsigned)p < sizeof protocol_names / sizeof *protocol_names
               ? protocol_names[p]
               : "?";
}

/* The rows the model cannot do without come from a run of a protocol that
 * keeps sharer lists: a profile taken under another one (TC, NO-COH) lacks
 * them or lists no sharer at all, and would give 0 recalls on every row.
 * The error names the protocol to profile under. */
static cm_status recall_profile_refused(cm_recall_protocol proto,
                                        const char *what, cm_err *err)
{
    const char *name = cm_recall_protocol_name(proto);
    return cm_err_set(err, CM_EINPUT,
                      "recall model: %s; profile under %s (cohmod sim "
                      "--protocol %s --profile-out FILE)", what, name, name);
}


static double mean_count(const cm_dist *d);

/* A solve's sums over the distributions.  GPU-VIni's run's length moves
 * none of them (only q_cold and q_sets_over, which recall_finish reads),
 * so run_length walks once and finishes each of its passes. */
typedef struct recall_walk {
    double live;    /* sum over finite d of P(d) P(evicted and live | d) */
    double lv_cold; /* E_T[Q(g(T))] + P(T = inf), for the last intervals */
    double fin;     /* P(a finite distance misses) */
    double cold;    /* P(cold) */
    double hit;     /* empty_hit */
    double l2;      /* L2 evictions per access; NAN: the directory's */
} recall_walk;

static cm_status check_input(const cm_recall_input *in, cm_err *err);
static cm_status recall_walk_input(const cm_recall_input *in, recall_walk *w,
                                   cm_err *err);
static cm_status recall_finish(const cm_recall_input *in,
                               const recall_walk *w, cm_recall_result *res,
                               cm_err *err);

/* GPU-VIni: the lines this geometry's run touches against the profiled
 * run's (recall_geom.c, "The run's length"), s = w(r0) / w(r1) with r1 the
 * model's RCL per access at s: iterated from s = 1 (each pass moves s by
 * the change in r1 times F_rcl / w, a few per cent at most).  res (may be
 * NULL): the solve of the final input, from the walk the passes share
 * rather than a second one (cm_recall_predict). */
static cm_status run_length(const cm_params *p, const cm_profile *prof,
                            cm_recall_input *in, cm_recall_result *res,
                            cm_err *err)
{
    double acc = cm_dist_total(in->stack_distance);
    double r0 = acc > 0 ? mean_count(in->sharers) *
                              cm_dist_total(in->sharers) / acc
                        : 0;
    if (!in->nq || !in->run_rows) /* lines as profiled */
        return res ? cm_recall_solve(in, res, err) : CM_OK;
    double w0 = cm_recall_port_work(p, in->alloc_share, r0), s = 1;
    recall_walk w;
    cm_recall_result r;
    int solved = 0; /* r is the solve of the input as it stands */
    cm_status st = check_input(in, err);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    if (!st) st = recall_walk_input(in, &w, err);
    gsl_set_error_handler(old);
    if (st) return st;
    for (int it = 0; it < 8; it++) {
        if ((st = check_input(in, err))) return st;
        old = gsl_set_error_handler_off();
        st = recall_finish(in, &w, &r, err);
        gsl_set_error_handler(old);
        if (st) return st;
        double next =
            w0 / cm_recall_port_work(p, in->alloc_share,
                                     r.recall_msgs_per_access);
        if (!(next > 0) || fabs(next - s) <= 1e-6 * s) {
            solved = 1;
            break;
        }
        s = next;
        in->run_scale = s;
        if ((st = cm_recall_measured_run(p, prof, s, in, err))) return st;
        if (!in->nq) break;
    }
    if (!res) return CM_OK;
    if (solved) {
        *res = r;
        return CM_OK;
    }
    /* the walk holds while the sets are measured (the run moves only
     * their cold fill); the binomial's is another walk */
    if (!in->nq) return cm_recall_solve(in, res, err);
    if ((st = check_input(in, err))) return st;
    old = gsl_set_error_handler_off();
    st = recall_finish(in, &w, res, err);
    gsl_set_error_handler(old);
    return st;
}

/* cm_recall_input_from_params, and with res (may be NULL) the solve of
 * the input it leaves. */
static cm_status input_from_params(const cm_params *p,
                                   cm_recall_protocol proto,
                                   const cm_profile *prof,
                                   cm_recall_input *in,
                                   cm_recall_result *res, cm_err *err)
{
    memset(in, 0, sizeof *in);
    cm_status st;
    if ((st = cm_profile_dist(prof, "dir.stack_distance", &in->stack_distance,
                              err)) ||
        (st = cm_profile_dist(prof, "l1.residency", &in->residency, err)) ||
        (st = cm_profile_dist(prof, "dir.sharers", &in->sharers, err)) ||
        (st = cm_profile_rate(prof, "rate.dir_accesses", &in->access_rate,
                              err))) {
        char msg[CM_ERR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
        return recall_profile_refused(proto, msg, err);
    }
    if (!(cm_dist_survival(in->sharers, 1) > 0))
        return recall_profile_refused(
            proto, "the profile's dir.sharers lists no sharer on any evicted "
                   "entry (taken under a protocol without sharer lists?)",
            err);
    /* Optional: without it the steady state (every cold miss evicts). */
    cm_err ignored = {0};
    if (cm_profile_rate(prof, "rate.dir_footprint", &in->footprint,
                        &ignored))
        in->footprint = 0;
    /* GPU-VIni's own stream, optional (profiles before it lack the rows) */
    if (proto == CM_RECALL_GPU_VINI &&
        !cm_profile_dist(prof, "dir.alloc_distance", &in->alloc_distance,
                         &ignored)) {
        double loads;
        if ((st = cm_profile_rate(prof, "rate.l2_loads", &loads, err)))
            return st;
        in->alloc_share = in->access_rate > 0 ? loads / in->access_rate : 0;
        if (cm_profile_rate(prof, "rate.dir_alloc_footprint",
                            &in->alloc_footprint, &ignored))
            in->alloc_footprint = 0;
        double empties;
        if (!cm_profile_rate(prof, "rate.dir_empties", &empties, &ignored) &&
            empties > 0) {
            if ((st = cm_profile_dist(prof, "dir.empty_distance",
                                      &in->empty_distance, err)) ||
                (st = cm_profile_dist(prof, "dir.empty_gap", &in->empty_gap,
                                      err)))
                return st;
            in->empties_per_load = loads > 0 ? empties / loads : 0;
        }
    }
    /* Optional: the profile's L1 size, to carry residencies to ours */
    double prof_lines;
    const cm_dist *load_distance;
    in->residency_scale = 1;
    in->lists_exact = proto == CM_RECALL_MESI;
    if (!cm_profile_rate(prof, "rate.l1_lines", &prof_lines, &ignored) &&
        !cm_profile_dist(prof, "l1.load_distance", &load_distance, &ignored))
        in->residency_scale = cm_recall_residency_scale(
            load_distance, prof_lines, floor(p->l1_size / p->l1_line));
    if ((st = cm_recall_geometry(p, proto, &in->dir_sets, &in->dir_ways,
                                 err)) ||
        (st = cm_recall_l2_geometry(p, &in->l2_sets, &in->l2_ways, err)))
        return st;
    if (proto == CM_RECALL_GPU_VINI && in->alloc_distance &&
        (st = cm_recall_measured_sets(p, prof, 1, in, err)))
        return st;
    /* RCL and INVACK carry no data: one header each. */
    double flits = ceil(p->noc_header / p->noc_flit);
    in->ctrl_flits = flits < 1 ? 1 : flits;
    if (proto == CM_RECALL_GPU_VINI && in->alloc_distance)
        return run_length(p, prof, in, res, err);
    return res ? cm_recall_solve(in, res, err) : CM_OK;
}

cm_status cm_recall_input_from_params(const cm_params *p,
                                      cm_recall_protocol proto,
                                      const cm_profile *prof,
                                      cm_recall_input *in, cm_err *err)
{
    return input_from_params(p, proto, prof, in, NULL, err);
}

cm_status cm_recall_predict(const cm_params *p, cm_recall_protocol proto,
                            const cm_profile *prof, cm_recall_input *in,
                            cm_recall_result *res, cm_err *err)
{
    memset(res, 0, sizeof *res);
    return input_from_params(p, proto, prof, in, res, err);
}


/* ---- liveness against the residency distribution -------------------------- */

/* Residency pieces: a slice of l1.residency with its probability, the
 * distinct-line range [ga, gb) its times map to and the mean of Q there. */
typedef struct piece {
    double ga, gb, mass, q;
} piece;

typedef struct liveness {
    piece *pc;
    double *cum; /* cum[j] = sum over i < j of mass q */
    size_t n;
    double h_total; /* E[Q(g(T)); T < inf] */
    double p_inf;   /* P(T = inf) */
    const cm_dist *res;
    double *above; /* above[b]: the residency's weight in bins b.. and at
                      infinity, summed from the top as cm_dist_survival
                      sums it */
} liveness;

/* Where a walk at increasing distances last looked: the footprint's
 * segment, the residency's bin and the liveness piece; each lookup starts
 * there instead of searching (the walk's pieces are hundreds, so the
 * searches were a third of its cost), with the same answers. */
typedef struct live_cursor {
    size_t seg, bin, piece;
} live_cursor;

/* What a walk's many bins share: the binomial's tail sums at the edges
 * met, or the measured Q's integral at the last two (pieces share their
 * edges with their neighbours and their bin). */
typedef struct setq_memo {
    cm_mrc_setassoc_memo bin;
    double x[2], v[2]; /* x NAN: empty */
    unsigned next;     /* the less recently used */
    size_t seg;        /* the measured Q's segment last integrated in */
} setq_memo;

/* Q(d) of the header: binomial (uniform sets), or the profile's measured
 * one (in->nq > 0, "Sets"), with its integral from 0 to each point. */
typedef struct setq {
    uint64_t sets, ways;
    const cm_recall_input *in; /* measured when in->nq > 0 */
    double cum[CM_RECALL_QPTS];
    cm_mrc_setassoc_geo geo; /* the binomial's, otherwise */
    setq_memo *memo;         /* may be NULL */
} setq;

/* The integral of the measured Q over segment k from q_at[k] to x <=
 * q_at[k + 1]: Q is linear there. */
static double q_segment(const cm_recall_input *in, size_t k, double x)
{
    const double *a = in->q_at, *v = in->q_val;
    double w = a[k + 1] - a[k];
    double vx = w > 0 ? v[k] + (v[k + 1] - v[k]) * (x - a[k]) / w : v[k + 1];
    return (x - a[k]) * (v[k] + vx) / 2;
}

/* memo (may be NULL), emptied: for a walk's many bins. */
static void setq_init(setq *q, uint64_t sets, uint64_t ways,
                      const cm_recall_input *in, setq_memo *memo)
{
    q->sets = sets;
    q->ways = ways;
    q->in = in;
    q->cum[0] = 0;
    q->memo = memo;
    if (memo) {
        memo->x[0] = memo->x[1] = NAN;
        memo->next = 0;
        memo->seg = 0;
    }
    cm_mrc_setassoc_geo_init(&q->geo, sets, ways, memo ? &memo->bin : NULL);
    for (size_t k = 0; in && k + 1 < in->nq; k++)
        q->cum[k + 1] = q->cum[k] + q_segment(in, k, in->q_at[k + 1]);
}

/* The integral of the measured Q over [0, x]: Q is 0 up to the first
 * point, linear between points, flat after the last.  (The whole
 * segments below x summed once, in setq_init: Q is asked for at a few
 * thousand distances per solve.)  *seg: where to look for x's segment
 * first (a walk's distances mostly increase), left at it. */
static double q_integral(const setq *q, double x, size_t *seg)
{
    const cm_recall_input *in = q->in;
    const double *a = in->q_at;
    size_t last = in->nq - 1;
    if (x <= a[0]) return 0;
    if (x > a[last]) return q->cum[last] + (x - a[last]) * in->q_val[last];
    size_t lo = *seg < last ? *seg : 0; /* a[lo] < x <= a[lo + 1] */
    while (a[lo + 1] < x) lo++;
    while (a[lo] >= x) lo--;
    *seg = lo;
    return q->cum[lo] + q_segment(in, lo, x);
}

/* q_integral through the memo, if any. */
static double q_integral_memo(const setq *q, double x)
{
    setq_memo *m = q->memo;
    size_t seg = 0;
    if (!m) return q_integral(q, x, &seg);
    for (unsigned j = 0; j < 2; j++)
        if (m->x[j] == x) {
            m->next = !j; /* the other is the older */
            return m->v[j];
        }
    unsigned i = m->next;
    m->next = !i;
    m->x[i] = x;
    return m->v[i] = q_integral(q, x, &m->seg);
}

/* Mean of Q over the distances of [lo, hi) (a count bin). */
static double q_range(const setq *q, double lo, double hi)
{
    if (!q->in || !q->in->nq)
        return cm_mrc_setassoc_geo_miss_prob(&q->geo, lo, hi);
    if (hi <= lo) hi = lo + 1;
    /* lo first: it is the last range's hi */
    double at_lo = q_integral_memo(q, lo), at_hi = q_integral_memo(q, hi);
    double m = (at_hi - at_lo) / (hi - lo);
    return m < 0 ? 0 : m > 1 ? 1 : m;
}

/* Mean of Q over the integers nearest [a, b). */
static double q_mean(const setq *q, double a, double b)
{
    double lo = floor(a + 0.5), hi = floor(b + 0.5);
    if (hi <= lo) hi = lo + 1;
    return q_range(q, lo, hi);
}

static void liveness_free(liveness *lv);

static cm_status liveness_build(const cm_dist *res, const cm_recall_fp *f,
                                double lambda, const setq *q, liveness *lv,
                                cm_err *err)
{
    memset(lv, 0, sizeof *lv);
    lv->pc = malloc((res->n * RES_PIECES + 1) * sizeof *lv->pc);
    lv->cum = malloc((res->n * RES_PIECES + 1) * sizeof *lv->cum);
    lv->above = malloc((res->n + 1) * sizeof *lv->above);
    if (!lv->pc || !lv->cum || !lv->above) {
        liveness_free(lv);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    lv->res = res;
    lv->above[res->n] = res->w_inf;
    for (size_t b = res->n; b-- > 0;)
        lv->above[b] = lv->above[b + 1] + res->w[b];
    double tot = res->w_total, h = 0;
    size_t seg = 0; /* the residencies' times increase */
    for (size_t b = 0; b < res->n; b++) {
        if (res->w[b] <= 0) continue;
        double lo = res->lo[b], hi = res->hi[b];
        int k = hi - lo > 1 ? RES_PIECES : 1;
        double ga = cm_recall_fp_lines_near(f, lo * lambda, &seg);
        for (int i = 0; i < k; i++) {
            double tb = lo + (hi - lo) * (i + 1) / k;
            piece *p = &lv->pc[lv->n];
            p->ga = ga; /* the last piece's end */
            p->gb = ga = cm_recall_fp_lines_near(f, tb * lambda, &seg);
            p->mass = res->w[b] / tot / k;
            p->q = q_mean(q, p->ga, p->gb);
            lv->cum[lv->n++] = h;
            h += p->mass * p->q;
        }
    }
    lv->cum[lv->n] = h;
    lv->h_total = h;
    lv->p_inf = res->w_inf / tot;
    return CM_OK;
}

static void liveness_free(liveness *lv)
{
    free(lv->pc);
    free(lv->cum);
    free(lv->above);
}

/* H(x) = E[Q(g(T)); g(T) < x]. */
static double live_below(const liveness *lv, double x, live_cursor *at)
{
    if (lv->n == 0 || x <= lv->pc[0].ga) return 0;
    size_t lo = at->piece < lv->n ? at->piece : 0; /* last with ga < x */
    while (lo + 1 < lv->n && lv->pc[lo + 1].ga < x) lo++;
    while (lv->pc[lo].ga >= x) lo--;
    at->piece = lo;
    const piece *p = &lv->pc[lo];
    double frac = p->gb > p->ga ? (x - p->ga) / (p->gb - p->ga) : 1;
    if (frac > 1) frac = 1;
    return lv->cum[lo] + p->mass * p->q * frac;
}

/* P(T > t), as cm_dist_survival(lv->res, t) to the bit: the bins wholly
 * above t from lv->above, then the one t falls in. */
static double res_survival(const liveness *lv, double t, live_cursor *at)
{
    const cm_dist *d = lv->res;
    size_t n = d->n, i = at->bin < n ? at->bin : n; /* first with hi > t */
    if (t == INFINITY) return 0;
    while (i < n && d->hi[i] <= t) i++;
    while (i > 0 && d->hi[i - 1] > t) i--;
    at->bin = i;
    if (i == n) return d->w_inf / d->w_total;
    double in = t <= d->lo[i] ? 0 : (t - d->lo[i]) / (d->hi[i] - d->lo[i]);
    return (lv->above[i + 1] + d->w[i] * (1 - in)) / d->w_total;
}

/* P(g(T) >= x) = P(T >= r(x) / lambda). */
static double live_at_least(const cm_recall_fp *f, double lambda,
                            const liveness *lv, double x, live_cursor *at)
{
    double r = cm_recall_fp_accesses_near(f, x, &at->seg);
    if (isinf(r)) return lv->p_inf;
    return res_survival(lv, r / lambda, at);
}

/* ---- the solve -------------------------------------------------------------- */

/* P(an access of finite stack distance in sd misses), over all of sd's. */
static double evict_finite(const cm_dist *sd, const setq *q)
{
    double fin = 0;
    for (size_t b = 0; b < sd->n; b++)
        if (sd->w[b] > 0) fin += sd->w[b] * q_range(q, sd->lo[b], sd->hi[b]);
    return fin / sd->w_total;
}

/* P(evict) of an LRU cache fed by the stack distances sd, its sets Q;
 * c_full: the share of cold misses that find their set full.  *p_miss
 * (may be NULL): P(miss). */
static double evict_prob(const cm_dist *sd, const setq *q, double c_full,
                         double *p_miss)
{
    double fin = evict_finite(sd, q), cold = sd->w_inf / sd->w_total;
    if (p_miss) *p_miss = fin + cold;
    return fin + cold * c_full;
}

/* The share of cold misses that find their set full: measured, or the
 * mean of the binomial Q over the run's first U lines (1 without U: a
 * long run). */
static double cold_full(const setq *q, double footprint)
{
    if (q->in && q->in->nq) return q->in->q_cold;
    return footprint > 0
               ? cm_mrc_setassoc_geo_miss_prob(&q->geo, 0, ceil(footprint))
               : 1;
}

static cm_status check_input(const cm_recall_input *in, cm_err *err)
{
    const struct {
        const cm_dist *d;
        const char *name;
    } dists[] = {{in->stack_distance, "dir.stack_distance"},
                 {in->residency, "l1.residency"},
                 {in->sharers, "dir.sharers"}};
    for (size_t i = 0; i < 3; i++)
        if (!dists[i].d || !(cm_dist_total(dists[i].d) > 0))
            return cm_err_set(err, CM_EINPUT,
                              "recall model: distribution %s is missing or "
                              "empty", dists[i].name);
    if (in->sharers->w_inf > 0)
        return cm_err_set(err, CM_EINPUT,
                          "recall model: dir.sharers has weight at infinity "
                          "(a sharer count is finite)");
    if (!(in->access_rate > 0) || isinf(in->access_rate))
        return cm_err_set(err, CM_EINPUT,
                          "recall model: rate.dir_accesses must be positive "
                          "and finite (got %g)", in->access_rate);
    if (!(in->footprint >= 0) || isinf(in->footprint))
        return cm_err_set(err, CM_EINPUT,
                          "recall model: rate.dir_footprint must be >= 0 and "
                          "finite (got %g)", in->footprint);
    if (in->alloc_distance) {
        if (!(cm_dist_total(in->alloc_distance) > 0) ||
            !(in->alloc_share > 0 && in->alloc_share <= 1))
            return cm_err_set(err, CM_EINPUT,
                              "recall model: dir.alloc_distance needs weight "
                              "and 0 < rate.l2_loads / rate.dir_accesses <= 1 "
                              "(got %g)", in->alloc_share);
        if (!(in->alloc_footprint >= 0) || isinf(in->alloc_footprint))
            return cm_err_set(err, CM_EINPUT,
                              "recall model: rate.dir_alloc_footprint must "
                              "be >= 0 and finite (got %g)",
                              in->alloc_footprint);
    }
    if (!in->empty_distance != !in->empty_gap ||
        (in->empty_distance && (!in->alloc_distance ||
                                !(cm_dist_total(in->empty_distance) > 0) ||
                                !(cm_dist_total(in->empty_gap) > 0))))
        return cm_err_set(err, CM_EINPUT,
                          "recall model: dir.empty_distance and "
                          "dir.empty_gap come together, with weight, and "
                          "with dir.alloc_distance");
    if (!(in->empties_per_load >= 0) || isinf(in->empties_per_load))
        return cm_err_set(err, CM_EINPUT,
                          "recall model: rate.dir_empties / rate.l2_loads "
                          "must be >= 0 and finite (got %g)",
                          in->empties_per_load);
    const uint64_t geo[][2] = {{in->dir_sets, in->dir_ways},
                               {in->l2_sets, in->l2_ways}};
    for (size_t i = 0; i < 2; i++)
        if (geo[i][0] < 1 || geo[i][1] < 1 || geo[i][1] >= UINT_MAX)
            return cm_err_set(err, CM_EINPUT,
                              "recall model: %s needs sets >= 1 and 1 <= "
                              "ways < %u (got %llu x %llu)",
                              i ? "the L2" : "the directory", UINT_MAX,
                              (unsigned long long)geo[i][0],
                              (unsigned long long)geo[i][1]);
    return CM_OK;
}

/* GPU-VIni: P(the emptied line's entry is there), iff its access hits. */
static double empty_hit(const cm_recall_input *in, const setq *q)
{
    const cm_dist *e = in->empty_distance;
    double hit = 0;
    if (!e || !(in->empties_per_load > 0)) return 0;
    for (size_t b = 0; b < e->n; b++)
        if (e->w[b] > 0) hit += e->w[b] * (1 - q_range(q, e->lo[b], e->hi[b]));
    return hit / e->w_total;
}

/* GPU-VIni: P(an allocation into a full set finds a sharer-less entry).
 * p_full: allocations into a full set per GETS; hit: empty_hit. */
static double sharerless_victim(const cm_recall_input *in, double hit,
                                double p_full)
{
    if (!in->empty_distance || !(p_full > 0) || !(in->empties_per_load > 0))
        return 0;
    double S = (double)in->dir_sets;
    const cm_dist *g = in->empty_gap;
    /* its sharer-less life: until its set's next full allocation or its
     * line's next GETS (the gap), whichever first.  Full allocations
     * happen only in the sets that more than W of the run's lines map to
     * (a share o of them: P(Bin(U, 1/S) > W) uniformly, else measured),
     * at rate r per GETS there;
     * averaging r over every set overstated the life, hence the
     * sharer-less share, in a directory the footprint does not fill */
    double lines = in->alloc_footprint;
    double o = in->nq ? in->q_sets_over
               : in->alloc_footprint > 0
                   ? cm_mrc_setassoc_miss_prob(in->dir_sets, in->dir_ways + 1,
                                               lines, lines + 1)
                   : 1;
    double r = p_full / (S * (o > 1e-12 ? o : 1e-12)), life = g->w_inf / r;
    for (size_t b = 0; b < g->n; b++) {
        if (g->w[b] <= 0) continue;
        double lo = g->lo[b], hi = g->hi[b];
        /* mean of (1 - exp(-x r)) / r over x uniform in [lo, hi) */
        double m = hi - lo > 0 ? (hi - lo - (exp(-lo * r) - exp(-hi * r)) /
                                                r) / (r * (hi - lo))
                               : -expm1(-lo * r) / r;
        life += g->w[b] * m;
    }
    life /= g->w_total;
    double per_set = in->empties_per_load * hit * life / S;
    return -expm1(-per_set);
}

static double mean_count(const cm_dist *d)
{
    double s = 0, w = 0;
    for (size_t b = 0; b < d->n; b++) {
        s += d->w[b] * (d->lo[b] + d->hi[b] - 1) / 2;
        w += d->w[b];
    }
    return w > 0 ? s / w : 0;
}

/* The sum over finite stack distances sd of P(d) P(evicted and live | d),
 * each wide bin in pieces (header, "Numerics"). */
static double live_finite(const cm_dist *sd, const setq *q, const cm_recall_fp *fp,
                          const liveness *lv, double lambda_live)
{
    double tot = sd->w_total, live = 0;
    live_cursor at = {0, 0, 0};
    for (size_t b = 0; b < sd->n; b++) {
        double lo = sd->lo[b], hi = sd->hi[b], w = sd->w[b] / tot;
        /* Q(min(d, g)) <= Q(d): a bin that never misses never recalls. */
        if (w <= 0 || q_range(q, lo, hi) <= 0) continue;
        double width = hi - lo;
        int k = width > DIST_PIECES ? DIST_PIECES : (int)ceil(width);
        if (k < 1) k = 1;
        for (int i = 0; i < k; i++) {
            double a = lo + floor(width * i / k);
            double c = i + 1 == k ? hi : lo + floor(width * (i + 1) / k);
            if (c <= a) continue;
            double d = (a + c - 1) / 2; /* mean integer distance */
            double qa = q_range(q, a, c);
            live += w * (c - a) / width *
                    (qa * live_at_least(fp, lambda_live, lv, d, &at) +
                     live_below(lv, d, &at));
        }
    }
    return live;
}

/* The walk of a checked input (GSL's error handler off). */
static cm_status recall_walk_input(const cm_recall_input *in, recall_walk *w,
                                   cm_err *err)
{
    /* GPU-VIni's directory stream when the profile has it: per GETS, the
     * only request that allocates */
    const cm_dist *sd = in->alloc_distance ? in->alloc_distance
                                           : in->stack_distance;
    double share = in->alloc_distance ? in->alloc_share : 1;
    setq_memo memo, l2memo;
    setq q, l2q;
    setq_init(&q, in->dir_sets, in->dir_ways, in, &memo);
    double lambda = in->access_rate * share;
    /* a residency k times longer holds the lines of k times the accesses */
    double lambda_live =
        lambda * (in->residency_scale > 0 ? in->residency_scale : 1);
    cm_recall_fp fp;
    liveness lv;
    cm_status st;
    if ((st = cm_recall_fp_build(sd, &fp, err))) return st;
    if ((st = liveness_build(in->residency, &fp, lambda_live, &q, &lv, err))) {
        cm_recall_fp_free(&fp);
        return st;
    }
    w->live = live_finite(sd, &q, &fp, &lv, lambda_live);
    w->lv_cold = lv.h_total + lv.p_inf;
    w->fin = evict_finite(sd, &q);
    w->cold = sd->w_inf / sd->w_total;
    w->hit = empty_hit(in, &q);
    setq_init(&l2q, in->l2_sets, in->l2_ways, NULL, &l2memo);
    w->l2 = in->l2_sets == in->dir_sets && in->l2_ways == in->dir_ways &&
                    !in->alloc_distance
                ? NAN
                : evict_prob(in->stack_distance, &l2q,
                             cold_full(&l2q, in->footprint), NULL);
    liveness_free(&lv);
    cm_recall_fp_free(&fp);
    return CM_OK;
}

/* The result from the walk and the directory's cold fill (GSL's error
 * handler off). */
static cm_status recall_finish(const cm_recall_input *in,
                               const recall_walk *w, cm_recall_result *res,
                               cm_err *err)
{
    memset(res, 0, sizeof *res);
    double share = in->alloc_distance ? in->alloc_share : 1;
    double fp_lines_run = in->alloc_distance ? in->alloc_footprint
                                             : in->footprint;
    setq q;
    setq_init(&q, in->dir_sets, in->dir_ways, in, NULL);
    double c_full = cold_full(&q, fp_lines_run);
    double live = w->live + w->cold * c_full * w->lv_cold;
    double p_miss = w->fin + w->cold, p_full = w->fin + w->cold * c_full;
    res->p_sharerless = sharerless_victim(in, w->hit, p_full);
    double keep = 1 - res->p_sharerless;
    res->p_dir_evict = share * p_full * keep;
    res->p_dir_miss = share * p_miss;
    live *= share * keep;
    double l2 = isnan(w->l2) ? res->p_dir_evict : w->l2;

    double pe = res->p_dir_evict;
    double pl = pe > 0 ? live / pe : 0;
    res->p_live = pl < 0 ? 0 : pl > 1 ? 1 : pl;
    res->dir_sets = (double)in->dir_sets;
    res->dir_ways = (double)in->dir_ways;
    res->dir_entries = (double)in->dir_sets * (double)in->dir_ways;
    res->mean_sharers = mean_count(in->sharers);
    res->recalls_per_access = pe * res->p_live * res->mean_sharers;
    res->recall_msgs_per_access = pe * res->mean_sharers;
    if (in->lists_exact) {
        /* every listed copy is live at the profiled L1 size: carry the
         * count by the liveness there against here */
        double scale = 1;
        if (in->residency_scale > 0 && in->residency_scale != 1) {
            cm_recall_input at_prof = *in;
            cm_recall_result r1;
            at_prof.residency_scale = 1;
            at_prof.lists_exact = 0;
            cm_status st = cm_recall_solve(&at_prof, &r1, err);
            if (st) return st;
            scale = r1.p_live > 0 ? res->p_live / r1.p_live : 1;
        }
        res->mean_sharers *= scale;
        res->recall_msgs_per_access = res->recalls_per_access =
            pe * res->mean_sharers;
    }
    /* per access of the L2's stream, whatever stream was modelled */
    double rate = in->access_rate;
    res->recalls_per_cycle = res->recalls_per_access * rate;
    res->recall_msgs_per_cycle = res->recall_msgs_per_access * rate;
    res->inv_msgs_per_access = 2 * res->recall_msgs_per_access;
    res->inv_flits_per_cycle =
        res->inv_msgs_per_access * in->ctrl_flits * rate;
    res->l2_evict_per_access = l2;
    res->l2_evicts_per_cycle = l2 * rate;
    return CM_OK;
}

cm_status cm_recall_solve(const cm_recall_input *in, cm_recall_result *res,
                          cm_err *err)
{
    memset(res, 0, sizeof *res);
    cm_status st = check_input(in, err);
    if (st) return st;
    recall_walk w;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    if (!(st = recall_walk_input(in, &w, err)))
        st = recall_finish(in, &w, res, err);
    gsl_set_error_handler(old);
    return st;
}

/* ---- over a grid -------------------------------------------------------------- */

static const char *const result_columns[] = {
    "protocol",           "dir_entries",        "dir_sets",
    "dir_ways",           "p_dir_miss",         "p_dir_evict",
    "p_sharerless",       "p_live",             "mean_sharers",       "recalls_per_access",
    "recall_msgs_per_access", "recalls_per_cycle", "recall_msgs_per_cycle",
    "inv_msgs_per_access", "inv_flits_per_cycle", "l2_evict_per_access",
    "l2_evicts_per_cycle"};
#define NRESULT (sizeof result_columns / sizeof result_columns[0])

static void result_cells(cm_recall_protocol proto, const cm_recall_result *r,
                         char buf[][32])
{
    const double v[] = {r->dir_entries,         r->dir_sets,
                        r->dir_ways,            r->p_dir_miss,
                        r->p_dir_evict,         r->p_sharerless,
                        r->p_live,
                        r->mean_sharers,        r->recalls_per_access,
                        r->recall_msgs_per_access, r->recalls_per_cycle,
                        r->recall_msgs_per_cycle, r->inv_msgs_per_access,
                        r->inv_flits_per_cycle, r->l2_evict_per_access,
                        r->l2_evicts_per_cycle};
    snprintf(buf[0], 32, "%s", cm_recall_protocol_name(proto));
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        cm_fmt_double(buf[i + 1], v[i]);
}

cm_status cm_recall_grid_table(const cm_params *base,
                               cm_recall_protocol proto,
                               const cm_profile *prof, cm_sweep *sweeps,
                               size_t nsweeps, cm_progress_fn progress,
                               void *progress_arg, cm_table **out,
                               cm_err *err)
{
    *out = NULL;
    size_t ncols = nsweeps + NRESULT;
    const char **header = calloc(ncols, sizeof *header);
    char (*cells)[32] = calloc(ncols, sizeof *cells);
    const char **row = calloc(ncols, sizeof *row);
    cm_table *t = NULL;
    cm_grid grid = {0};
    cm_status st = CM_OK;
    if (!header || !cells || !row) {
        st = cm_err_set(err, CM_EINTERNAL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nsweeps; i++) header[i] = sweeps[i].param->name;
    for (size_t i = 0; i < NRESULT; i++)
        header[nsweeps + i] = result_columns[i];
    for (size_t i = 0; i < ncols; i++) row[i] = cells[i];
    if (!(t = cm_table_new(ncols, header))) {
        st = cm_err_set(err, CM_EINTERNAL, "out of memory");
        goto done;
    }
    if ((st = cm_grid_init(&grid, sweeps, nsweeps, err))) goto done;
    cm_params p = *base;
    while (!st && cm_grid_next(&grid, &p)) {
        cm_recall_input in;
        cm_recall_result r;
        if ((st = cm_params_validate(&p, err)) ||
            (st = cm_recall_predict(&p, proto, prof, &in, &r, err)))
            break;
        for (size_t i = 0; i < nsweeps; i++)
            cm_param_format(sweeps[i].param,
                            cm_param_get(&p, sweeps[i].param), cells[i], 32);
        result_cells(proto, &r, cells + nsweeps);
        st = cm_table_append(t, row, err);
        if (progress) progress(grid.done, grid.points, progress_arg);
    }
done:
    cm_grid_free(&grid);
    free(row);
    free(cells);
    free(header);
    if (st) cm_table_free(t);
    else *out = t;
    return st;
}
