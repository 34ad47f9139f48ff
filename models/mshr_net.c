/* mshr_net.c - the MSHR model's distributions that do not depend on the
 * latency T (see the header of mshr.c for the mathematics): an
 * instruction's line count and allocations K, the requests S_j of j load
 * instructions in flight (tails, truncated above E), the ways' pass
 * probability f_L(j) of an allocate-on-miss L1, the core's throughput
 * Lambda(m) by exact MVA, the store requests N_s (compound Poisson, by
 * Panjer's recursion), the requests in flight O_j = S_j + N_s and what a
 * refused instruction waits for.  P(O_j >= x) is the chain's innermost
 * sum, so it is taken over S_j's support only (j <= S_j <= j rmax), and
 * the outputs carry O_j's tails up a level at a time instead. */
#include "models/mshr_impl.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <string.h>

static double *stail(const sm_net *n, unsigned long j)
{
    return n->st + j * (n->B + 1);
}

/* P(S_j + N_s >= x) = sum_y P(N_s = y) P(S_j >= x - y): the chain's
 * innermost sum (f_M, f_S and the occupancy call it (N + 1) x E times a
 * chain), so one pass over the store pmf with four partial sums (the
 * additions overlap), nothing tested per term, and the mass of N_s below
 * x from its prefix sums. */
double cm_mshr_o_ge(const sm_net *n, unsigned long j, long x)
{
    if (x <= 0) return 1;
    unsigned long ny = n->nsup < (unsigned long)x ? n->nsup : (unsigned long)x;
    double below = n->nscum[ny], tot;
    if (j > n->J) { /* beyond J every S_j exceeds E */
        tot = below;
    } else {
        const double *t = stail(n, j), *ns = n->ns;
        unsigned long y = 0;
        tot = 0;
        if ((unsigned long)x > n->B) { /* x - y beyond B reads P(S_j >= B) */
            y = (unsigned long)x - n->B < ny ? (unsigned long)x - n->B : ny;
            tot = t[n->B] * n->nscum[y];
        }
        /* j <= S_j <= j rmax (K+ >= 1): P(S_j >= x - y) is 0 for y below
         * x - j rmax (exact zeros), and the same for every y from x - j on
         * (S_j's whole mass): only S_j's support is summed term by term */
        unsigned long smax = j * n->rmax, ux = (unsigned long)x;
        if (ux > smax && ux - smax > y) y = ux - smax < ny ? ux - smax : ny;
        unsigned long yend = ny;
        if (ux > j && ux - j < yend) {
            yend = ux - j > y ? ux - j : y;
            tot += t[j] * (n->nscum[ny] - n->nscum[yend]);
        }
        double a[4] = {0, 0, 0, 0};
        for (; y + 4 <= yend; y += 4)
            for (int k = 0; k < 4; k++)
                a[k] += ns[y + k] * t[x - (long)(y + k)];
        for (; y < yend; y++) a[0] += ns[y] * t[x - (long)y];
        tot += (a[0] + a[1]) + (a[2] + a[3]);
    }
    /* N_s >= x: none when its whole support lies below x (what 1 - below
     * holds then is rounding) */
    return tot + ((long)n->nsup <= x ? 0 : cm_mshr_pos(1 - below));
}

/* t[x] = P(O_0 >= x) = P(N_s >= x), x = 0..E+1, from the top (small
 * tails keep their digits). */
void cm_mshr_o_tails_first(const sm_net *n, double *t)
{
    unsigned long top = n->E + 1; /* N_s's last bin, ">= E + 1" */
    t[top] = n->nsup > top ? n->ns[top] : 0;
    for (unsigned long x = top; x-- > 0;)
        t[x] = t[x + 1] + (x < n->nsup ? n->ns[x] : 0);
    t[0] = 1;
}

/* From prev = O_{j-1}'s tails, O_j's: O_j = O_{j-1} + K+, so
 * P(O_j >= x) = sum_k P(K+ = k) P(O_{j-1} >= x - k), x = 0..E+1, with
 * P(O >= v) = 1 for v <= 0: E rmax work a level where summing S_j
 * against N_s afresh for each x took E times N_s's support.  Each t[x]
 * sums over k ascending; the passes go k by k, each a branch-free pass
 * over x. */
void cm_mshr_o_tails_next(const sm_net *n, const double *prev, double *t)
{
    unsigned long top = n->E + 1;
    t[0] = 1;
    for (unsigned long x = 1; x <= top; x++) t[x] = 0;
    for (unsigned k = 1; k <= n->rmax; k++) {
        double pk = n->kp[k];
        unsigned long x = 1;
        for (; x <= top && x <= k; x++) t[x] += pk; /* x - k <= 0 */
        for (; x <= top; x++) t[x] += pk * prev[x - k];
    }
}

static double binom_pmf(unsigned k, double p, unsigned r)
{
    if (p <= 0) return k == 0;
    if (p >= 1) return k == r;
    return gsl_ran_binomial_pdf(k, p, r);
}

/* Convolution of a (len la, last bin = overflow) with b (len lb) into
 * out (len la, last bin = overflow).  Every bin sums a[i] b[k] over i
 * ascending, as the first form (i outer, k inner) did; zero terms add +0
 * and are skipped (a's and b's zeros at either end: the result is the
 * same to the bit): a set's fills Y reach 33 at most, so the ways' F_j
 * cost O(A) a level, not O(A^2).  The bins below the last take k
 * outermost, descending (i ascending), a branch-free pass per k; the
 * last, where i + k >= la - 1 all fall, its terms in the first order. */
static void conv_trunc(const double *a, size_t la, const double *b, size_t lb,
                       double *out)
{
    memset(out, 0, la * sizeof *out);
    size_t k0 = 0, i0 = 0, i1 = la;
    while (lb > 0 && b[lb - 1] == 0) lb--;
    while (k0 < lb && b[k0] == 0) k0++;
    while (i1 > 0 && a[i1 - 1] == 0) i1--;
    while (i0 < i1 && a[i0] == 0) i0++;
    if (k0 >= lb || i0 >= i1) return;
    size_t last = la - 1;
    for (size_t k = lb; k-- > k0;) {
        double bk = b[k];
        size_t iend = last > k ? (i1 < last - k ? i1 : last - k) : 0;
        for (size_t i = i0; i < iend; i++) out[i + k] += a[i] * bk;
    }
    for (size_t i = last >= lb ? last - (lb - 1) : 0; i < i1; i++) {
        if (i < i0 || a[i] == 0) continue;
        for (size_t k = i < last ? last - i : k0; k < lb; k++)
            out[last] += a[i] * b[k];
    }
}

void cm_mshr_room_before(const double *f, unsigned long N, double *e)
{
    e[0] = 0;
    for (unsigned long j = 1; j <= N; j++)
        e[j] = cm_mshr_clamp01((f[j - 1] - f[j]) / fmax(1e-300, 1 - f[j]));
}

/* Line counts R (nr values), the allocations K of a load instruction and
 * K+ = K given K >= 1. */
static void net_line_counts(sm_net *n)
{
    const cm_mshr_input *in = n->in;
    double r = in->reqs_per_inst;
    if (in->reqs_bimodal && r <= 32) {
        double p32 = (r - 1) / 31;
        n->nr = 0;
        if (p32 < 1) { n->rv[n->nr] = 1; n->rp[n->nr++] = 1 - p32; }
        if (p32 > 0) { n->rv[n->nr] = 32; n->rp[n->nr++] = p32; }
    } else {
        double f = floor(r), fr = r - f;
        n->nr = 0;
        if (fr < 1) { n->rv[n->nr] = (unsigned)f; n->rp[n->nr++] = 1 - fr; }
        if (fr > 0) { n->rv[n->nr] = (unsigned)f + 1; n->rp[n->nr++] = fr; }
    }
    n->rmax = 0;
    for (int v = 0; v < n->nr; v++)
        if (n->rv[v] > n->rmax) n->rmax = n->rv[v];
    /* allocations of a load instruction */
    double p = n->p;
    memset(n->kp, 0, (n->rmax + 1) * sizeof *n->kp);
    n->p_allhit = n->p_mergeonly = 0;
    for (int v = 0; v < n->nr; v++) {
        for (unsigned k = 0; k <= n->rv[v]; k++)
            n->kp[k] += n->rp[v] * binom_pmf(k, p, n->rv[v]);
        n->p_allhit += n->rp[v] * pow(1 - n->mB, n->rv[v]);
        n->p_mergeonly += n->rp[v] * (pow(1 - p, n->rv[v]) -
                                      pow(1 - n->mB, n->rv[v]));
    }
    double q0 = n->kp[0];
    n->pia = 1 - q0;
    n->ekp = 0;
    n->kp[0] = 0;
    if (n->pia > 0)
        for (unsigned k = 1; k <= n->rmax; k++) {
            n->kp[k] /= n->pia;
            n->ekp += k * n->kp[k];
        }
    double mf = n->mB * n->q * pow(n->q, in->merge_limit - 1);
    n->p_mergefull = 1 - pow(1 - mf, r);
}

/* S_j's tails, j = 0..J, stopping once S_j exceeds E surely. */
static void net_request_tails(sm_net *n, double *scratch)
{
    unsigned long B = n->B;
    double *pmf = scratch, *next = scratch + B;
    memset(pmf, 0, B * sizeof *pmf);
    pmf[0] = 1;
    n->J = 0;
    for (unsigned long j = 0;; j++) {
        /* P(S_j >= x) from the top; past the pmf's support at either end
         * the sum only adds zeros: 0 above it, its last value below */
        double *t = stail(n, j);
        unsigned long lo = 0, hi = B;
        while (hi > 0 && pmf[hi - 1] == 0) hi--;
        while (lo < hi && pmf[lo] == 0) lo++;
        for (unsigned long x = B; x >= hi && x > 0; x--) t[x] = 0;
        t[hi] = 0;
        for (unsigned long x = hi; x-- > lo;) t[x] = t[x + 1] + pmf[x];
        for (unsigned long x = lo; x-- > 0;) t[x] = t[lo];
        n->J = j;
        if (j == n->N || n->pia <= 0 || t[B - 1] > 1 - 1e-13) break;
        conv_trunc(pmf, B, n->kp, n->rmax + 1, next);
        double *sw = pmf;
        pmf = next;
        next = sw;
    }
}

/* How an allocating instruction's lines meet one set: k = 0 at random
 * among the d sets its stride reaches (share kappa), k = 1 evenly, R/d
 * lines in each of min(R, d); per line count v, l lines of fill chance
 * pl each in each of d sets; none = P(K = 0 | R), par = 1 - none. */
typedef struct set_placement {
    double share[2], d[2][RMAX_VALUES], pl[2][RMAX_VALUES];
    unsigned l[2][RMAX_VALUES];
    double none[RMAX_VALUES], par[RMAX_VALUES];
} set_placement;

static set_placement net_placement(const sm_net *n)
{
    const cm_mshr_input *in = n->in;
    set_placement s;
    unsigned long S = (unsigned long)in->sets, g = S;
    unsigned long s2 = (unsigned long)in->line_stride;
    while (s2) { unsigned long t = g % s2; g = s2; s2 = t; }
    double period = (double)(S / g);
    s.share[0] = in->set_clustering;
    s.share[1] = 1 - in->set_clustering;
    for (int v = 0; v < n->nr; v++) {
        s.d[0][v] = period; /* each line falls in one of them */
        s.l[0][v] = n->rv[v];
        s.pl[0][v] = n->p / period;
        s.d[1][v] = fmin(n->rv[v], period); /* R/d lines in each of d */
        s.l[1][v] = (unsigned)ceil(n->rv[v] / s.d[1][v] - 1e-9);
        s.pl[1][v] = n->p;
        s.none[v] = pow(1 - n->p, n->rv[v]);
        s.par[v] = 1 - s.none[v];
    }
    return s;
}

/* Y, the fills an in-flight instruction (K >= 1) puts into a given set,
 * over 0..A+1 (the last: ">= A + 1"), and the instructions whose fills
 * fill a set, A / E[Y | Y >= 1]. */
static void net_set_fills(sm_net *n, const set_placement *s, double *y)
{
    unsigned long A = n->A;
    double S = n->in->sets;
    memset(y, 0, (A + 2) * sizeof *y);
    for (int k = 0; k < 2; k++)
        for (int v = 0; v < n->nr && n->pia > 0; v++) {
            double par = s->par[v];
            if (par <= 0 || s->share[k] <= 0) continue;
            double wgt = s->share[k] * n->rp[v] * par / n->pia *
                         (s->d[k][v] / S);
            for (unsigned x = 1; x <= s->l[k][v]; x++) {
                double b = binom_pmf(x, s->pl[k][v], s->l[k][v]) / par;
                y[x < A + 1 ? x : A + 1] += wgt * b;
            }
        }
    /* no fill here: the sets it does not reach, or none of its lines */
    double sum = 0, s1 = 0;
    for (unsigned long x = 1; x < A + 2; x++) {
        sum += y[x];
        s1 += (double)x * y[x];
    }
    y[0] = 1 - sum;
    n->set_owners = sum > 0 ? fmax(1, (double)A / (s1 / sum)) : 1;
}

/* f_L(j), j = 0..N: a load passes all its sets (mshr.c's header), F_j
 * the fills of j instructions in a set.  Its own fills in a set fit
 * beside F_j's f when they are at most A - f: that binomial cdf is tabled
 * once per placement (summed in the order the sum at each (j, f) took,
 * so the same to the bit): ~N A l fewer binomial pmfs, which were a
 * quarter of a point's time. */
static void net_ways_pass(sm_net *n, const set_placement *s, const double *y,
                          double *scratch)
{
    unsigned long A = n->A;
    double *F = scratch, *Fn = F + (A + 2), *own = Fn + (A + 2);
    for (int k = 0; k < 2; k++)
        for (int v = 0; v < n->nr; v++) {
            double *o = own + (k * RMAX_VALUES + v) * (A + 1), acc = 0;
            for (unsigned long c = 0; c <= A; c++) {
                if (c <= s->l[k][v])
                    acc += binom_pmf((unsigned)c, s->pl[k][v], s->l[k][v]);
                o[c] = acc;
            }
        }
    memset(F, 0, (A + 2) * sizeof *F);
    F[0] = 1;
    for (unsigned long j = 0; j <= n->N; j++) {
        double ok = 0;
        for (int k = 0; k < 2; k++)
            for (int v = 0; v < n->nr; v++) {
                double par = s->par[v];
                if (par <= 0 || n->pia <= 0 || s->share[k] <= 0) continue;
                const double *o = own + (k * RMAX_VALUES + v) * (A + 1);
                double set_ok = 0;
                for (unsigned long f = 0; f <= A; f++)
                    if (F[f] != 0) set_ok += F[f] * o[A - f];
                double pass = pow(set_ok, s->d[k][v]) - s->none[v];
                ok += s->share[k] * n->rp[v] * par / n->pia *
                      fmax(0, pass / par);
            }
        n->fl[j] = n->pia > 0 ? fmin(1, ok) * (1 - n->p_mergefull) : 1;
        if (j < n->N) {
            conv_trunc(F, A + 2, y, A + 2, Fn);
            memcpy(F, Fn, (A + 2) * sizeof *F);
        }
    }
    cm_mshr_room_before(n->fl, n->N, n->el);
}

cm_status cm_mshr_net_setup(sm_net *n, double *scratch, cm_err *err)
{
    net_line_counts(n);
    net_request_tails(n, scratch);
    set_placement s = net_placement(n);
    double *y = scratch; /* the S_j pmfs' scratch is free again */
    net_set_fills(n, &s, y);
    net_ways_pass(n, &s, y, y + (n->A + 2));
    (void)err;
    return CM_OK;
}

/* Lambda(m), m = 0..N: exact MVA of the core (issue and LD/ST queues, the
 * short waits a delay). */
void cm_mshr_core_throughput(sm_net *n, double z)
{
    double qi = 0, ql = 0;
    n->lam[0] = 0;
    for (unsigned long m = 1; m <= n->N; m++) {
        double ri = n->c * (1 + qi), rl = n->r * (1 + ql);
        double x = (double)m / (ri + rl + z);
        qi = x * ri;
        ql = x * rl;
        n->lam[m] = x;
    }
}

/* N_s: compound Poisson (Panjer) of mus store instructions of R lines,
 * over 0..E+1 (the last bin: ">= E+1"). */
void cm_mshr_store_pmf(sm_net *n)
{
    unsigned long BN = n->E + 2;
    if (!(n->w > 0) || !(n->mus > 0)) {
        n->ns[0] = 1;
        n->nsup = 1;
        n->nscum[0] = 0;
        n->nscum[1] = 1;
        return;
    }
    double cum = n->ns[0] = exp(-n->mus);
    unsigned long x = 1;
    for (; x < BN && cum < 1 - 1e-12; x++) {
        double s = 0;
        for (int v = 0; v < n->nr; v++)
            if (n->rv[v] <= x) s += n->rp[v] * n->rv[v] * n->ns[x - n->rv[v]];
        n->ns[x] = n->mus / (double)x * s;
        cum += n->ns[x];
    }
    if (x == BN)
        n->ns[BN - 1] += fmax(0, 1 - cum);
    else /* cut where less than 1e-12 is left: that mass is the bins'
          * (cm_mshr_o_ge counted it as at least every x, so a pool no
          * load could fill read P(full) 1e-13 instead of 0) */
        for (unsigned long y = 0; y < x; y++) n->ns[y] /= cum;
    n->nsup = x;
    n->nscum[0] = 0;
    for (unsigned long y = 0; y < x; y++)
        n->nscum[y + 1] = n->nscum[y] + n->ns[y];
}

/* f_M(j) = P(O_j + K+ <= E), f_S(j) = P(O_j + R <= E), and the mean
 * overflow of a refused one, E[O_j + k - E | O_j + k > E] over its k
 * (ov_M, ov_S): the requests that must return before it is in.  Held
 * requests never exceed E, so with O capped there,
 *     E[(O + k - E)^+] = sum_{x = E-k+1}^{E} P(O >= x). */
void cm_mshr_fit_probs(sm_net *n)
{
    long E = (long)n->E;
    double *t = n->ot; /* t[x] = P(O_j >= x), x = 0..E+1 */
    for (unsigned long j = 0; j <= n->N; j++) {
        long lo = E + 1 - (long)n->rmax;
        if (lo < 0) lo = 0;
        for (long x = lo; x <= E + 1; x++) t[x] = cm_mshr_o_ge(n, j, x);
        double pass = 0, ov = 0;
        for (unsigned k = 1; k <= n->rmax && n->pia > 0; k++) {
            if (!(n->kp[k] > 0)) continue;
            long x0 = E + 1 - (long)k;
            pass += n->kp[k] * (1 - (x0 <= 0 ? 1 : t[x0]));
            for (long x = x0 > 1 ? x0 : 1; x <= E; x++) ov += n->kp[k] * t[x];
            if (x0 <= 0) ov += n->kp[k] * (double)(1 - x0); /* K > E */
        }
        n->fm[j] = n->pia > 0 ? pass : 1;
        n->ovm[j] = n->fm[j] < 1 ? fmax(1, ov / (1 - n->fm[j])) : 1;
        double sp = 0, ovs = 0;
        for (int v = 0; v < n->nr; v++) {
            long x0 = E + 1 - (long)n->rv[v];
            sp += n->rp[v] * (1 - (x0 <= 0 ? 1 : t[x0]));
            for (long x = x0 > 1 ? x0 : 1; x <= E; x++) ovs += n->rp[v] * t[x];
            if (x0 <= 0) ovs += n->rp[v] * (double)(1 - x0);
        }
        n->fs[j] = sp;
        n->ovs[j] = sp < 1 ? fmax(1, ovs / (1 - sp)) : 1;
    }
    cm_mshr_room_before(n->fm, n->N, n->em);
    cm_mshr_room_before(n->fs, n->N, n->es);
}

