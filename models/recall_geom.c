/* recall_geom.c - the directory's geometry and the workload's footprint
 * for the recall model (models/recall.c; the public API is recall.h, the
 * internals shared with recall.c are recall_impl.h).
 *
 * Geometry.  GPU-VI and MESI recall from the L2: l2.banks x floor(
 * l2.bank_size / l2.line / l2.ways) sets of l2.ways ways.  GPU-VIni's
 * directory holds dir.ratio x (gpu.sms x l1.size / l1.line) entries of
 * dir.ways ways; the simulator splits them over the banks, each bank's
 * share rounded up (sim/l2_warm.c): ceil(ceil(R x L1 lines / banks) / W)
 * sets per bank.
 *
 * Sets (GPU-VIni, from the profile's joint.dir.set_mates_<b> and
 * joint.dir.index_lines).  Lines need not spread uniformly: the
 * directory's index XOR-folds the line's bits above the bank
 * (dir.index=hash), and a region whose high bits vary little folds onto a
 * few sets of a large directory (the built-in workloads' SM-shared
 * regions: at dir.ratio 16 on tc2013 every recall of dlb falls into 128 of
 * 8192 sets, where the binomial says ~0 recalls against 0.031-0.036 per
 * access simulated).  Nor do set-mates share a line's window as a random
 * sample of the footprint: those of the crowded sets are the hot shared
 * lines (weighting the sets' lines uniformly, a hypergeometric Q, gave
 * 0.031 evictions per GETS on dlb at 16 x 8 against 0.041 in a trace-driven
 * LRU directory; weighting them by accesses, or each mate by a Poisson
 * presence at its own rate, 0.051-0.052).  So the simulator measures Q
 * itself: for every index width b (2^b sets per bank under the
 * directory's own index function), each GETS's set-local stack distance
 * j, the distinct lines of its set loaded since its own last load, by the
 * octave of its stack distance d; an LRU directory of W ways misses it iff
 * j >= W, so Q(d) = P(j >= W | d), 0 below d = W - 1 and linear between
 * the octaves' mean distances.  A geometry of S sets per bank (the
 * simulator's: ceil(ceil(R x L1 lines / banks) / W)) reads the rows of b
 * = ceil(log2 S); when S < 2^b index i and i + S share set i (i < 2^b -
 * S), a share 2 (2^b - S) / 2^b of the lines, which then meet the other
 * index's lines too, taken as Poisson(d / (banks 2^b)) more set-mates.
 * Cold GETS: a set that n of the run's lines map to fills with its first
 * W, so c_full = sum_n g(n) (n - W)+ / sum_n n g(n) over the sets' loads
 * g (joint.dir.index_lines, paired the same way at random), and the
 * sharer-less share o below is the share of sets with n > W.  Loads alone
 * move a line in its set's list: a store refreshes an entry only while it
 * is there (j < W), which depends on W; every request moving it put the
 * misses of a trace-driven LRU directory 5-7% low on dlb, loads alone
 * 0.5-4% high.  Without the rows (other protocols, older profiles) the
 * binomial above.
 *
 * The run's length (GPU-VIni).  A profile counts the lines of a run of T
 * cycles; a held-out geometry runs T cycles too, but at its own speed, and
 * a directory that recalls less lets the machine touch more lines, which
 * fill its crowded sets (kmn at dir.ratio 16 x 8 ways loads 1.078 times
 * the lines of its ratio-2 run, and its sets' excess over 8 lines grows
 * from 202 to 326).  Every recall is a control message (RCL, one header:
 * cm_msg_flits) on its bank's reply port, beside the data replies of the
 * loads (a header and a line) and the acks of the stores and atomics (one
 * header).  Where the reply ports bind (rate.l2_reply_busy 0.93-0.99 at
 * every directory size on bh, cl, kmn, dlb, vpr, hsp on tc2013) the
 * directory accesses per cycle go as 1 / w(r), the port's work per access
 *     w(r) = f F_data + (1 - f) F_ack + r F_rcl,
 * f the loads' share of the accesses and r the RCL per access.  A geometry
 * that recalls r1 where the profile recalled r0 (the dir.sharers it lists
 * over its dir.stack_distance accesses) makes s = w(r0) / w(r1) times the
 * profiled run's GETS (kmn, ratio 2 -> 16: s = 1.069, measured 1.086).
 * The lines those GETS add come at the rate of the profiled run's last
 * quarter (joint.dir.index_late_<b>: per index pair, the lines first
 * loaded in it, mean l): (s - 1) 4 l more lines per pair, spread evenly,
 * so a pair of n lines holds n + Poisson(4 (s - 1) l).  A shorter run
 * (s < 1) drops each pair's late lines, Bin(late, 4 (1 - s)).  Without
 * the rows (older profiles) the run's lines are the profiled run's.  Only the
 * cold GETS's share c_full and the share o of over-full sets move; the
 * set-local distances of reuses do not.  r1 is the model's own answer at
 * s, so cm_recall_input_from_params iterates (two or three passes: w
 * moves by a few per cent).  The pairs' excess over W lines, from the
 * ratio-2 to the ratio-16 runs of bh, cl, kmn at the measured s, 8 ways:
 * 1100, 2027, 305 spread evenly against 1171, 2221, 326 simulated, and
 * 1303, 2276, 433 growing each pair by its own late lines (the pairs a
 * run crowds are crowded partly by chance: another run's new lines do not
 * seek them out).  Ignored: a live recall's later re-fetch (an access that
 * adds no line) and every bound but the ports (cl at ratio 16 runs its
 * ports at 0.93).  RCL per access on kmn at 16 x 8 from the ratio-2
 * profile: 0.0023 (0.0018 without the run's length; simulated 0.0027).
 *
 * Footprint (accesses <-> distinct lines).  By the higher-order theory of
 * locality (Xiang et al., ASPLOS 2013) a window's footprint f grows, per
 * access, by the fully associative miss ratio at capacity f:
 * df/dr = m(f), m(c) = P(SD >= c) (cold included).  So the accesses needed
 * to see g distinct lines are r(g) = integral_0^g dc / m(c), and g(T) =
 * r^-1(T lambda).  m is piecewise linear (density uniform within each
 * stack-distance bin), so r and its inverse are closed forms per segment
 * (a logarithm and an exponential).  Without cold misses the footprint
 * saturates at the largest distance: r becomes infinite there. */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/proto.h"
#include "models/recall_impl.h"
#include "solvers/binom.h"

/* ---- geometry ------------------------------------------------------------ */

cm_status cm_recall_l2_geometry(const cm_params *p, uint64_t *sets,
                                uint64_t *ways, cm_err *err)
{
    double lines = floor(p->l2_bank_size / p->l2_line);
    if (lines < p->l2_ways)
        return cm_err_set(err, CM_EINPUT,
                          "an L2 bank of %g lines cannot hold %g ways "
                          "(l2.bank_size / l2.line < l2.ways)",
                          lines, p->l2_ways);
    *ways = (uint64_t)p->l2_ways;
    *sets = (uint64_t)p->l2_banks * (uint64_t)floor(lines / p->l2_ways);
    return CM_OK;
}

cm_status cm_recall_geometry(const cm_params *p, cm_recall_protocol proto,
                             uint64_t *sets, uint64_t *ways, cm_err *err)
{
    if (proto != CM_RECALL_GPU_VINI)
        return cm_recall_l2_geometry(p, sets, ways, err);
    double l1_lines = p->gpu_sms * floor(p->l1_size / p->l1_line);
    double s = round(p->dir_ratio * l1_lines / p->dir_ways);
    *sets = s < 1 ? 1 : (uint64_t)s;
    *ways = (uint64_t)p->dir_ways;
    return CM_OK;
}

/* The profile's index rows at b bits: the points of joint name, the
 * greatest recorded b <= bits (the points, their count, that b); 0 if
 * none. */
static size_t index_points(const cm_profile *prof, unsigned bits,
                           const cm_point **pt, unsigned *at)
{
    for (unsigned b = bits + 1; b-- > 0;) {
        char name[48];
        size_t n;
        snprintf(name, sizeof name, "joint.dir.set_mates_%u", b);
        cm_profile_points(prof, name, pt, &n);
        if (n) {
            *at = b;
            return n;
        }
    }
    return 0;
}

/* P(j + extra >= W), j the set-mates a cell records: extra ~ Poisson(mu)
 * lines of a second index sharing the set, or j thinned to keep of them
 * (keep < 1, mu 0). */
static double mates_full(double j, double W, double keep, double mu)
{
    if (keep < 1) {
        unsigned n = (unsigned)floor(j + 0.5);
        return n >= (unsigned)W ? cm_binom_q((unsigned)W - 1, keep, n)
                                : 0;
    }
    if (j >= W) return 1;
    if (!(mu > 0)) return 0;
    return gsl_cdf_poisson_Q((unsigned)(W - floor(j + 0.5)) - 1, mu);
}

/* GPU-VIni: the directory's sets measured under its own index (header:
 * "Sets"): in->q_* from the profile's joint.dir.set_mates_<b> and
 * joint.dir.index_lines at the bits this geometry's sets need, and
 * in->dir_sets the simulator's count.  Nothing (the uniform binomial)
 * without the rows, with other banks than the machine's, or with more
 * ways than the rows count set-mates to (64). */
/* The mean number of lines first loaded in the run's last quarter of an
 * index pair holding n lines at bi bits (joint.dir.index_late_<bi>), into
 * late[0 .. nf - 1] (zeroed by the caller); 0 without the rows. */
static int late_rates(const cm_profile *prof, unsigned bi, size_t nf,
                      double *late)
{
    char name[48];
    const cm_point *pt;
    size_t np;
    snprintf(name, sizeof name, "joint.dir.index_late_%u", bi);
    cm_profile_points(prof, name, &pt, &np);
    double *w = np ? calloc(nf, sizeof *w) : NULL;
    if (!w) return 0;
    for (size_t i = 0; i < np; i++) {
        size_t n = (size_t)floor(pt[i].x + 0.5);
        if (n >= nf || !(pt[i].w > 0)) continue;
        late[n] += pt[i].w * pt[i].y;
        w[n] += pt[i].w;
    }
    for (size_t n = 0; n < nf; n++) late[n] = w[n] > 0 ? late[n] / w[n] : 0;
    free(w);
    return 1;
}

/* The index pairs' line counts f (nf of them) of a run of s times the
 * profiled run's GETS (header, "The run's length"): with late[n] of a
 * pair's n lines first loaded in the last quarter, every pair gains
 * Poisson(4 (s - 1) E[late]) (s > 1), or a pair of n loses Bin(late[n],
 * 4 (1 - s)) (s < 1, at most all of its late ones); *out (nout counts,
 * owned) the result, f itself at s = 1. */
static cm_status grow_pairs(const double *f, const double *late, size_t nf,
                            double s, double **out, size_t *nout, cm_err *err)
{
    /* a longer run: its new lines spread over the pairs evenly, at the
     * rate the last quarter brought them */
    double grow = 0;
    for (size_t n = 0; n < nf; n++) grow += f[n] * late[n];
    grow *= 4 * (s - 1);
    double most = s > 1 ? grow : 0;
    size_t nh = nf + (s > 1 ? (size_t)ceil(most + 10 * sqrt(most) + 10) : 0);
    double *h = calloc(nh, sizeof *h);
    /* the gain's law, the same for every pair */
    double *gain = s > 1 && grow > 0 ? malloc(nh * sizeof *gain) : NULL;
    if (!h || (s > 1 && grow > 0 && !gain)) {
        free(h);
        free(gain);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    for (size_t k = 0; gain && k < nh; k++)
        gain[k] = gsl_ran_poisson_pdf((unsigned)k, grow);
    for (size_t n = 0; n < nf; n++) {
        if (!(f[n] > 0)) continue;
        double mu = s > 1 ? grow : 4 * (1 - s) * late[n];
        if (!(s > 0) || s == 1 || !(mu > 0)) {
            h[n] += f[n];
            continue;
        }
        if (s > 1) {
            for (size_t m = n; m < nh; m++) h[m] += f[n] * gain[m - n];
            continue;
        }
        /* the late lines, k of them, each dropped with probability q */
        unsigned k = (unsigned)floor(late[n] + 0.5);
        if (k > n) k = (unsigned)n;
        double q = fmin(1, 4 * (1 - s));
        for (unsigned j = 0; j <= k; j++)
            h[n - j] += f[n] * gsl_ran_binomial_pdf(j, q, k);
    }
    free(gain);
    *out = h;
    *nout = nh;
    return CM_OK;
}

/* The simulator's sets per bank and the index bits they need
 * (sim/l2_warm.c) at the machine p, with the profile's banks; 0 when the
 * profile has no index rows for p (other banks, or more ways than the
 * rows count set-mates to: 64). */
static int dir_index(const cm_params *p, const cm_profile *prof,
                     double *sets, unsigned *bits, double *banks)
{
    const cm_point *ix;
    size_t nix;
    cm_err ignored = {0};
    cm_profile_points(prof, "joint.dir.index_lines", &ix, &nix);
    if (!nix || cm_profile_rate(prof, "rate.l2_banks", banks, &ignored) ||
        *banks != p->l2_banks || !(*banks >= 1) || p->dir_ways >= 64)
        return 0;
    double per_bank =
        ceil(p->dir_ratio * p->gpu_sms * p->l1_size / p->l1_line / *banks);
    *sets = fmax(1, ceil(per_bank / p->dir_ways));
    for (*bits = 0; *bits < 62 && ldexp(1, (int)*bits) < *sets;) ++*bits;
    return 1;
}

/* Q per octave of d into in->q_* (header, "Sets"), from the rows of the
 * greatest b <= bits; 0 if there are none. */
static int measured_q(const cm_profile *prof, double W, double sets,
                      unsigned bits, double banks, cm_recall_input *in)
{
    const cm_point *pt;
    unsigned b;
    size_t np = index_points(prof, bits, &pt, &b);
    if (!np) return 0;
    double idx = ldexp(1, (int)b); /* indices per bank at the rows' b */
    /* idx >= sets: index i and i + sets share set i for i < idx - sets,
     * a share fp of the lines, each meeting the other index's lines in
     * its window as Poisson(d / (banks idx)); idx < sets (the rows stop
     * short): each set-mate is in the line's set with P keep */
    double fp = idx > sets ? 2 * (idx - sets) / idx : 0;
    double keep = idx < sets ? idx / sets : 1;
    /* Q per octave of d: the GETS whose set-mates fill the ways */
    double wsum[64] = {0}, dsum[64] = {0}, qsum[64] = {0};
    for (size_t i = 0; i < np; i++) {
        double d = pt[i].x, j = pt[i].y, w = pt[i].w;
        int k = d < 1 ? 0 : 1 + (int)floor(log2(d));
        if (k > 63) k = 63;
        double mu = d / (banks * idx);
        wsum[k] += w;
        dsum[k] += w * d;
        qsum[k] += w * ((1 - fp) * mates_full(j, W, keep, 0) +
                        fp * mates_full(j, W, keep, mu));
    }
    /* fewer than W distinct lines hold no W set-mates: Q is 0 up to
     * W - 1, then linear through the octaves' means */
    in->q_at[0] = W - 1;
    in->q_val[0] = 0;
    in->nq = 1;
    for (int k = 0; k < 64 && in->nq < CM_RECALL_QPTS; k++) {
        if (!(wsum[k] > 0) || !(dsum[k] / wsum[k] > W - 1)) continue;
        in->q_at[in->nq] = dsum[k] / wsum[k];
        in->q_val[in->nq++] = qsum[k] / wsum[k];
    }
    return 1;
}

cm_status cm_recall_measured_sets(const cm_params *p, const cm_profile *prof,
                                  double run_scale, cm_recall_input *in,
                                  cm_err *err)
{
    double sets, banks;
    unsigned bits;
    if (!dir_index(p, prof, &sets, &bits, &banks) ||
        !measured_q(prof, p->dir_ways, sets, bits, banks, in))
        return CM_OK;
    return cm_recall_measured_run(p, prof, run_scale, in, err);
}

cm_status cm_recall_measured_run(const cm_params *p, const cm_profile *prof,
                                 double run_scale, cm_recall_input *in,
                                 cm_err *err)
{
    const cm_point *ix;
    size_t nix;
    double sets, banks, W = p->dir_ways;
    unsigned bits;
    if (!in->nq || !dir_index(p, prof, &sets, &bits, &banks)) return CM_OK;
    cm_profile_points(prof, "joint.dir.index_lines", &ix, &nix);
    /* cold GETS: a set holding n of the run's lines fills with its first
     * W, so (n - W)+ / n of its lines' first GETS find it full (line
     * weighted); the sets holding more than W ever take a full
     * allocation */
    unsigned bi = 0;
    int have = 0;
    for (size_t i = 0; i < nix; i++)
        if (ix[i].x <= bits && (!have || ix[i].x > bi)) {
            bi = (unsigned)ix[i].x;
            have = 1;
        }
    double ii = ldexp(1, (int)bi), tot = 0, nmax = 0;
    for (size_t i = 0; have && i < nix; i++)
        if (ix[i].x == bi) {
            tot += ix[i].w;
            nmax = fmax(nmax, ix[i].y);
        }
    if (!(tot > 0)) {
        in->nq = 0;
        return CM_OK;
    }
    size_t nf0 = (size_t)nmax + 1;
    double *f0 = calloc(nf0, sizeof *f0), *late = calloc(nf0, sizeof *late);
    if (!f0 || !late) {
        free(f0);
        free(late);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    for (size_t i = 0; i < nix; i++)
        if (ix[i].x == bi) f0[(size_t)ix[i].y] += ix[i].w / tot;
    in->run_rows = late_rates(prof, bi, nf0, late);
    /* the run's length: the index pairs grow or shrink first, then pair */
    double *f = NULL;
    size_t nf = 0;
    cm_status st = grow_pairs(f0, late, nf0, run_scale, &f, &nf, err);
    free(f0);
    free(late);
    if (st) return st;
    size_t ng = 2 * nf;
    double *g = calloc(ng, sizeof *g);
    if (!g) {
        free(f);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    if (ii >= sets) { /* pairs of indices, taken at random */
        double pairs = ii - sets, singles = sets - pairs;
        for (size_t n = 0; n < nf; n++) {
            g[n] += singles / sets * f[n];
            for (size_t m = 0; m < nf; m++)
                g[n + m] += pairs / sets * f[n] * f[m];
        }
    } else { /* each index's lines spread over sets / ii sets */
        for (size_t n = 0; n < nf; n++)
            for (size_t m = 0; m <= n; m++)
                g[m] += f[n] * gsl_ran_binomial_pdf((unsigned)m, ii / sets,
                                                    (unsigned)n);
    }
    double mean = 0, full = 0, over = 0;
    for (size_t n = 0; n < ng; n++) {
        mean += (double)n * g[n];
        if ((double)n > W) {
            full += ((double)n - W) * g[n];
            over += g[n];
        }
    }
    free(f);
    free(g);
    in->q_cold = mean > 0 ? full / mean : 0;
    in->q_sets_over = over;
    in->dir_sets = (uint64_t)(sets * banks);
    return CM_OK;
}

/* ---- the footprint function ---------------------------------------- */

/* m(x) = P(SD >= x) is linear between consecutive edges x[k]; r[k] is the
 * number of accesses a window needs to hold x[k] distinct lines (INFINITY
 * once the footprint has saturated). */

/* Below this m counts as zero: the footprint has stopped growing. */
#define M_ZERO 1e-14

/* Accesses to go from xa to xb with m linear from ma to mb. */
static double seg_accesses(double xa, double xb, double ma, double mb)
{
    double len = xb - xa;
    if (len <= 0) return 0;
    if (mb < M_ZERO) return INFINITY;
    if (ma - mb <= 1e-12 * ma) return len / ma;
    return len * log(ma / mb) / (ma - mb);
}

void cm_recall_fp_free(cm_recall_fp *f)
{
    free(f->x);
    free(f->m);
    free(f->r);
}

cm_status cm_recall_fp_build(const cm_dist *sd, cm_recall_fp *f, cm_err *err)
{
    memset(f, 0, sizeof *f);
    size_t cap = 2 * sd->n + 1;
    f->x = malloc(cap * sizeof *f->x);
    f->m = malloc(cap * sizeof *f->m);
    f->r = malloc(cap * sizeof *f->r);
    if (!f->x || !f->m || !f->r) {
        cm_recall_fp_free(f);
        return cm_err_set(err, CM_EINTERNAL, "out of memory");
    }
    double tot = sd->w_total, below = 0;
    f->x[0] = 0;
    f->m[0] = 1;
    f->r[0] = 0;
    f->n = 1;
    for (size_t b = 0; b < sd->n; b++) {
        double edges[2] = {sd->lo[b], sd->hi[b]};
        for (int e = 0; e < 2; e++) {
            if (e == 1) below += sd->w[b];
            double x = edges[e], m = 1 - below / tot;
            if (m < M_ZERO) m = 0;
            size_t k = f->n - 1;
            if (x <= f->x[k]) { /* a bin starting at 0, or adjacent bins */
                f->m[k] = m;
                continue;
            }
            f->x[f->n] = x;
            f->m[f->n] = m;
            f->r[f->n] = f->r[k] + seg_accesses(f->x[k], x, f->m[k], m);
            f->n++;
        }
    }
    f->m_tail = sd->w_inf / tot;
    return CM_OK;
}

/* r(x) in the segment [x[lo], x[lo + 1]) that holds x. */
static double fp_accesses_in(const cm_recall_fp *f, double x, size_t lo)
{
    size_t hi = lo + 1;
    if (isinf(f->r[lo])) return INFINITY;
    double mx = f->m[lo] +
                (f->m[hi] - f->m[lo]) * (x - f->x[lo]) / (f->x[hi] - f->x[lo]);
    return f->r[lo] + seg_accesses(f->x[lo], x, f->m[lo], mx);
}

/* r(x) beyond the last edge. */
static double fp_accesses_past(const cm_recall_fp *f, double x)
{
    size_t last = f->n - 1;
    if (x == f->x[last]) return f->r[last];
    return f->m_tail > 0 ? f->r[last] + (x - f->x[last]) / f->m_tail
                         : INFINITY;
}

/* r(x): accesses for a window to hold x distinct lines. */
double cm_recall_fp_accesses(const cm_recall_fp *f, double x)
{
    if (x <= 0) return 0;
    size_t last = f->n - 1;
    if (x >= f->x[last]) return fp_accesses_past(f, x);
    size_t lo = 0, hi = last; /* x[lo] <= x < x[hi] */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (f->x[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return fp_accesses_in(f, x, lo);
}

double cm_recall_fp_accesses_near(const cm_recall_fp *f, double x,
                                  size_t *seg)
{
    if (x <= 0) return 0;
    size_t last = f->n - 1, lo = *seg < last ? *seg : 0;
    if (x >= f->x[last]) return fp_accesses_past(f, x);
    while (f->x[lo + 1] <= x) lo++;
    while (f->x[lo] > x) lo--;
    *seg = lo;
    return fp_accesses_in(f, x, lo);
}

/* g(r) in the segment [r[lo], r[lo + 1]) that holds r. */
static double fp_lines_in(const cm_recall_fp *f, double r, size_t lo)
{
    size_t hi = lo + 1;
    double xa = f->x[lo], xb = f->x[hi], ma = f->m[lo], mb = f->m[hi];
    double dr = r - f->r[lo];
    if (ma - mb <= 1e-12 * ma) return xa + dr * ma;
    /* invert dr = (xb - xa) ln(ma / m) / (ma - mb) for m, then x */
    double m = ma * exp(-dr * (ma - mb) / (xb - xa));
    double x = xa + (ma - m) * (xb - xa) / (ma - mb);
    return x < xb ? x : xb;
}

/* g(r) at or past the last edge (only when r[last] is finite). */
static double fp_lines_past(const cm_recall_fp *f, double r)
{
    size_t last = f->n - 1;
    return f->m_tail > 0 ? f->x[last] + (r - f->r[last]) * f->m_tail
                         : f->x[last];
}

/* g(r) = r^-1: distinct lines in a window of r accesses. */
double cm_recall_fp_lines(const cm_recall_fp *f, double r)
{
    if (r <= 0) return 0;
    size_t last = f->n - 1;
    if (r >= f->r[last]) return fp_lines_past(f, r);
    size_t lo = 0, hi = last; /* r[lo] <= r < r[hi] */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (f->r[mid] <= r)
            lo = mid;
        else
            hi = mid;
    }
    return fp_lines_in(f, r, lo);
}

double cm_recall_fp_lines_near(const cm_recall_fp *f, double r, size_t *seg)
{
    if (r <= 0) return 0;
    size_t last = f->n - 1, lo = *seg < last ? *seg : 0;
    if (r >= f->r[last]) return fp_lines_past(f, r);
    while (f->r[lo + 1] <= r) lo++;
    while (f->r[lo] > r) lo--;
    *seg = lo;
    return fp_lines_in(f, r, lo);
}

double cm_recall_residency_scale(const cm_dist *load_distance,
                                 double prof_lines, double l1_lines)
{
    if (!load_distance || !(prof_lines > 0) || !(l1_lines > 0) ||
        prof_lines == l1_lines || !(load_distance->w_total > 0))
        return 1;
    cm_recall_fp f;
    cm_err ignored = {0};
    if (cm_recall_fp_build(load_distance, &f, &ignored)) return 1;
    double a = cm_recall_fp_accesses(&f, prof_lines),
           b = cm_recall_fp_accesses(&f, l1_lines);
    cm_recall_fp_free(&f);
    double k = isinf(a) && isinf(b) ? 1 : !(a > 0) ? 1e3 : b / a;
    return k < 1e-3 ? 1e-3 : k > 1e3 ? 1e3 : k;
}

/* ---- the run's length ---------------------------------------------- */

double cm_recall_port_work(const cm_params *p, double load_share,
                           double rcl_per_access)
{
    uint32_t h = (uint32_t)p->noc_header, f = (uint32_t)p->noc_flit,
             line = (uint32_t)p->l1_line;
    double data = cm_msg_flits(CM_MSG_DATA, 0, 0, h, f, line),
           ack = cm_msg_flits(CM_MSG_ACK, 0, 0, h, f, line),
           rcl = cm_msg_flits(CM_MSG_RCL, 0, 0, h, f, line);
    return load_share * data + (1 - load_share) * ack + rcl_per_access * rcl;
}
