/* mshr.c - L1 MSHR occupancy of a GPU SM: warps as a closed network whose
 * LD/ST unit stalls on the MSHRs and on the ways of an allocate-on-miss L1.
 *
 * Follows spec/models.md section 1 and the resource picture of seed 002
 * (Dong Li, ch. 4: "a missing request must reserve an L1 MSHR entry and
 * an L1 cache line"; a failed reservation stalls the memory pipeline, and
 * for SCLUSTER "most of its memory pipeline stalls are caused by the L1
 * block reservation failure", section 4.1.4), on the machine sim/sm.c and
 * sim/l1.c implement.
 *
 * The SM.  W active warps, each with k memory instructions in flight at
 * most, are N = W k tokens.  The SM issues one instruction a cycle, so a
 * memory instruction costs c = 1 / mem_rate issue cycles (its compute
 * included) at one shared server; then the LD/ST unit, one server, takes
 * its R lines at one a cycle (R: floor or ceil of r, or 1 or 32 with mean
 * r for divergent gathers).  A store's lines (share w) each send a
 * request and the warp runs on.  A load's line hits (1 - m_B), merges
 * into the entry of its line in flight (m_B q) or allocates (p = m_B (1 -
 * q)), m_B = (m - w) / (1 - w) the load miss ratio (stores always miss).
 * A load with K >= 1 allocations waits for its replies, T cycles; one with
 * merges only waits for the fill it joined, T/2 on average; one that hits
 * everywhere waits the hit latency h.  K ~ sum over R lines of
 * Bernoulli(p); pi_a = P(K >= 1).
 *
 * Flow-equivalent server.  The core (issue server, LD/ST server, the short
 * waits as a delay station) with m tokens passes Lambda(m) memory
 * instructions per cycle: exact MVA with demands c, r and z = (1 - w)
 * (P(merges only) T/2 + P(all hit) h) per instruction (Chandy-Herzog-Woo:
 * exact for a product-form network).  An instruction leaves the core for
 * the memory with probability pi_L = (1 - w) pi_a.
 *
 * The chain.  State (j, b): j load instructions with requests in flight,
 * b what the LD/ST unit does: 0 it takes instructions, 1 a load waits for
 * MSHRs, 2 a load waits for a way of a full set, 3 a store waits for
 * MSHRs.  The requests in flight are O_j = S_j + N_s, S_j the sum of j
 * independent K+ (K given K >= 1), N_s the store requests in flight,
 * compound Poisson: X_st T store instructions of R lines each.  From (j,0)
 * instructions arrive at rate a_j = Lambda(N - j):
 *     a load that allocates and fits, P(O_j + K+ <= E) f_L(j):  (j+1, 0)
 *     one that does not fit in E:                              (j, 1)
 *     one that fits in E but not in its sets:                  (j, 2)
 *     a store that does not fit, P(O_j + R > E):               (j, 3)
 * and a load instruction returns at rate j / T (its K requests go out
 * over R cycles and come back together).  A waiting unit is let go
 *  - for MSHRs, once the ov requests it lacks have returned: the full
 *    pool's E requests return at E / T a cycle (round trips vary by 25-40%
 *    in the simulator, so requests, not whole instructions, come back),
 *    rate E / (T ov), ov = E[O_j + k - E | O_j + k > E]; or by a returning
 *    instruction that makes room, e_M(j) = (f_M(j-1) - f_M(j)) / (1 -
 *    f_M(j)) (the tail of O given it did not fit at j);
 *  - for a way, by a returning instruction that held the set, e_L(j)
 *    likewise from f_L.
 * Blocked, the next return comes after T / (j + 1), the least of j + 1
 * uniform residuals of a round trip T (not the T / j of memoryless
 * returns).  At j = 0 a refused instruction waits for its own first
 * requests (K > E: the unit sends E and waits T).  The chain moves one
 * level at a time: a level-dependent QBD solved exactly by linear level
 * reduction (4 x 4 blocks, O(N)).  Every instruction that reaches the
 * unit sends its requests, so X = X_inst ((1 - w) E[K] + w E[R]).
 *
 * Ways.  A fill in flight reserves a way of its set (l1.c: FAIL_LINE
 * when every way of the set is reserved).  An instruction's lines fall
 * into the d = sets / gcd(stride, sets) sets its stride reaches (all in
 * one set when the stride is a multiple of the sets: SCLUSTER) at a random
 * offset: with probability kappa (wl.set_clustering) independently at
 * random among them, Bin(R, p/d) fills in a set, else spread evenly, R/d
 * lines of Bernoulli(p) fills in each of min(R, d).  An in-flight
 * instruction thus puts Y fills into a given set (given K >= 1), the
 * fills of a set are F_j, the sum of j such Y, and an arriving load passes
 * all its sets with probability
 *     f_L(j) = sum_R [ P(F_j + B <= A)^d - (1-p)^R ] / pi_a(R),
 * B its own fills in one set (weighted over the R of allocating
 * instructions and the two placements).  A load whose line has an entry
 * holding M accesses (the merge limit; l1.c FAIL_MERGE) also waits, for
 * that fill: P(a line does) = m_B q q^(M-1) (waiters per entry
 * geometric).  kappa is measured from the workload's own streams
 * (mshr_fit.c): pairs of an instruction's fills (lines new to their warp
 * or beyond its share of the L1) in one set, against random and even
 * placement.
 *
 * Outputs.  In (j,1) and (j,3) every MSHR is in use; in (j,0) and (j,2)
 * min(O_j, E) are, except that in (j,0) the unit may be taking the lines
 * of an instruction that will not fit, which fill the pool (chance: the
 * unit's busy fraction a_j r times the refusal chance).  Mean occupancy,
 * P(full) and the occupancy pmf follow by summing over the chain.  So the
 * burstiness of an instruction's R lines (a 32-line gather fills 16 MSHRs
 * at once) and the time the unit spends blocked (P(full) between 0 and 1,
 * not a steady state that saturates) come out of the same chain.
 *
 * The memory system.  Requests of all S SMs (symmetric) are spread evenly
 * over B L2 banks and, after an L2 miss ratio m2, over C DRAM channels.
 * Each of the reply port of a bank, the reply port into an SM, the L2
 * bank's in-order tag pipeline and a DRAM channel is an M/G/1 station with
 * the Pollaczek-Khinchine wait (deterministic service by default), so
 *     T(X) = (1 - m2) t_L2 + m2 t_DRAM + W_port,bank + W_port,SM + W_L2
 *            + m2 W_DRAM + t_extra.
 * T* is the root of g(T) = T - T(X(T)) (X falls as T grows), bracketed by
 * doubling from the unloaded latency and found with GSL's Brent solver.
 *
 * Assumptions, to be read before trusting a number:
 *  - exponential holding times in the chain (the stationary law of a
 *    birth-death chain does not depend on them; with blocking it does)
 *    and a product-form core (GTO and LRR issue alike);
 *  - O_j given j is drawn afresh: the chain does not remember that a
 *    refused instruction just filled the pool, so where the unit is
 *    always refused (every warp waiting on the LD/ST unit) P(full) comes
 *    out 0.85-0.97 where the simulator reads 0.98-1.00;
 *  - instructions' sets independent and uniform: a warp's own sets are
 *    not remembered, so two warps that share a set (SCLUSTER) conflict
 *    no more often than chance says; lines within an instruction
 *    independent given the placement;
 *  - arrivals at the LD/ST unit after a stall come at the core's steady
 *    rate (the queue that built up behind the stall is not modelled);
 *  - store requests are a compound Poisson population independent of j;
 *  - L2 MSHRs and the DRAM queue are reported as utilisations but do not
 *    add latency; all SMs are alike and the banks and channels evenly
 *    loaded; replay (model.mshr_full=replay) sends a refused instruction
 *    back to its warp instead of stalling the unit (the simulator stalls).
 * Inputs measured per run (mshr_fit.c): wl.l1_miss_ratio, wl.merge_prob,
 * wl.write_frac, wl.reqs_per_inst, wl.mem_rate, wl.l2_miss_ratio; from the
 * workload profile: wl.reqs_dist, wl.line_stride, wl.set_clustering.
 * Calibrated: model.extra_latency (and optionally l2.latency,
 * dram.latency, model.svc_scv, model.dram_efficiency).
 *
 * Measured domain (cohmod validate mshr, held-out points, after the
 * issue-26 repair; before it in brackets):
 *   li2014, comd sssp scluster atax, l1.mshrs 16-64, 4-48 warps:
 *     occupancy MARE 9.7% [27.6%], P(full) mean |error| 0.10 [0.24];
 *   tc2013 default grid (kmn bfs cfd, 8-32 MSHRs, 8-48 warps, 2 SMs):
 *     3.6% [2.4%], 0.062 [0.043];
 *   tc2013, the 11 other seed-000 workloads, 16/64 MSHRs, 8/32 warps:
 *     7.5% [13.0%], 0.118 [0.100];
 *   li2014, 10 other seed-002 workloads, 16/48 MSHRs, 8/32 warps:
 *     7.6% [5.7%], 0.096 [0.114].
 * The occupancy is within 10% on all four; P(full) is not yet within
 * 0.05: the worst points are saturated ones (see the second assumption)
 * and few-warp runs of 32-line gathers (sssp, bfs, wc at 4-8 warps), where
 * the model holds the pool full 0.2-0.4 longer than the simulator. */
#include "models/mshr.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/queue.h"

enum { NPH = 5 };            /* LD/ST phases of a level */
enum { RMAX_VALUES = 2 };    /* line counts an instruction can have */
#define MAX_CELLS ((size_t)1 << 23) /* doubles of all S_j pmfs at most */

struct cm_mshr_ws {
    double *buf;
    size_t cap;
    gsl_root_fsolver *brent;
};

static const char *const resource_names[CM_RES_COUNT] = {
    "warps", "l1_mshr", "noc", "l2", "l2_mshr", "dram"};

const char *cm_mshr_resource_name(cm_mshr_resource r)
{
    return r < CM_RES_COUNT ? resource_names[r] : "?";
}

void cm_mshr_input_from_params(const cm_params *p, cm_mshr_input *in)
{
    memset(in, 0, sizeof *in);
    in->warps = fmin(p->sched_active_warps, p->gpu_warps_per_sm);
    in->max_outstanding = p->wl_max_outstanding;
    in->mem_rate = p->wl_mem_rate;
    in->reqs_per_inst = p->wl_reqs_per_inst;
    in->reqs_bimodal = p->wl_reqs_dist != 0;
    in->write_frac = p->wl_write_frac;
    in->l1_miss = p->wl_l1_miss_ratio;
    in->merge_prob = p->wl_merge_prob;
    in->merge_limit = p->l1_mshr_merge;
    in->mshrs = p->l1_mshrs;
    in->ways = p->l1_ways;
    in->sets = fmax(1, floor(p->l1_size / (p->l1_ways * p->l1_line)));
    in->line_stride = p->wl_line_stride;
    in->set_clustering = p->wl_set_clustering;
    in->hit_latency = p->l1_hit_latency;
    in->full_policy = p->model_mshr_full != 0 ? CM_MSHR_REPLAY : CM_MSHR_WAIT;
    in->sms = p->gpu_sms;
    in->l2_miss = p->wl_l2_miss_ratio;
    in->lat_l2 = p->l2_latency;
    in->lat_dram = p->dram_latency;
    in->extra_latency = p->model_extra_latency;
    in->banks = p->l2_banks;
    in->channels = p->dram_channels;
    in->l2_mshrs_per_bank = p->l2_mshrs;

    /* A read reply carries the line and a header, in whole flits, over a
     * port of noc.port_bytes per NoC cycle. */
    double reply_flits = ceil((p->l1_line + p->noc_header) / p->noc_flit);
    double noc_cycle = p->gpu_core_clock / p->noc_clock; /* core cycles */
    in->svc_noc_bank = reply_flits * p->noc_flit / p->noc_port_bytes * noc_cycle;
    in->svc_noc_sm = in->svc_noc_bank;
    in->svc_l2 = p->gpu_core_clock / p->l2_clock;
    double dram_bytes_per_cycle = p->dram_bus_bytes * p->dram_data_rate *
                                  p->model_dram_efficiency;
    in->svc_dram = p->l2_line / dram_bytes_per_cycle * p->gpu_core_clock /
                   p->dram_clock;
    in->svc_scv = p->model_svc_scv;
    in->line_bytes = p->l1_line;
    in->core_clock_mhz = p->gpu_core_clock;
}

void cm_mshr_param_range(const cm_params *p, const cm_param_info *pi,
                         double *lo, double *hi)
{
    *lo = pi->min;
    *hi = pi->max;
    if (!strcmp(pi->name, "model.extra_latency"))
        *lo = fmax(*lo, 1 - fmin(p->l2_latency, p->dram_latency));
}

cm_mshr_ws *cm_mshr_ws_new(void)
{
    cm_mshr_ws *ws = calloc(1, sizeof *ws);
    if (!ws) return NULL;
    ws->brent = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!ws->brent) {
        free(ws);
        return NULL;
    }
    return ws;
}

void cm_mshr_ws_free(cm_mshr_ws *ws)
{
    if (!ws) return;
    free(ws->buf);
    gsl_root_fsolver_free(ws->brent);
    free(ws);
}

/* ---- the memory system: latency as a function of the SM's request rate -- */

typedef struct memsys_state {
    double latency;  /* T(X), +inf when a station is overloaded */
    double rho_noc, rho_l2, rho_dram, util_l2_mshr;
} memsys_state;

/* M/G/1 wait at one station; +inf at or past saturation. */
static double station_wait(double lambda, double svc, double scv, double *rho)
{
    *rho = lambda * svc;
    if (svc <= 0 || lambda <= 0) return 0;
    if (*rho >= 1) return INFINITY;
    double wq;
    if (cm_mg1_wait(lambda, svc, scv, &wq, NULL) != CM_OK) return INFINITY;
    return wq;
}

static memsys_state memsys_eval(const cm_mshr_input *in, double x)
{
    memsys_state s;
    double per_bank = in->sms * x / in->banks;
    double per_channel = in->sms * x * in->l2_miss / in->channels;
    double rho_bank_port, rho_sm_port;
    double w_bank_port = station_wait(per_bank, in->svc_noc_bank, in->svc_scv,
                                      &rho_bank_port);
    double w_sm_port = station_wait(x, in->svc_noc_sm, in->svc_scv,
                                    &rho_sm_port);
    double w_l2 = station_wait(per_bank, in->svc_l2, in->svc_scv, &s.rho_l2);
    double w_dram = station_wait(per_channel, in->svc_dram, in->svc_scv,
                                 &s.rho_dram);
    s.rho_noc = fmax(rho_bank_port, rho_sm_port);
    double unloaded = (1 - in->l2_miss) * in->lat_l2 +
                      in->l2_miss * in->lat_dram + in->extra_latency;
    s.latency = unloaded + w_bank_port + w_sm_port + w_l2 +
                in->l2_miss * w_dram;
    /* An L2 miss holds an L2 MSHR from its miss until DRAM returns. */
    double l2_hold = fmax(in->lat_dram - in->lat_l2, 0) + w_dram;
    s.util_l2_mshr = per_bank * in->l2_miss * l2_hold / in->l2_mshrs_per_bank;
    return s;
}

/* ---- the SM: what does not depend on T ---------------------------------- */

typedef struct sm_net {
    const cm_mshr_input *in;
    unsigned long N;        /* tokens */
    unsigned long E, A;     /* MSHRs, ways */
    double w, mB, p, q;     /* store share, load miss, allocate, merge */
    double c, r;            /* issue cycles and lines per instruction */
    /* line counts R: nr values with probabilities */
    int nr;
    unsigned rv[RMAX_VALUES];
    double rp[RMAX_VALUES];
    unsigned rmax;
    double pia;             /* P(K >= 1) */
    double ekp;             /* E[K+] */
    double p_allhit, p_mergeonly, p_mergefull;
    double *kp;             /* K+ pmf, rmax + 1 */
    /* S_j, j = 0..J: pmf over 0..B-1, bin B-1 = ">= B-1"; B = E + 2 */
    unsigned long J, B;
    double *st;             /* tails: st[j*B' + x] = P(S_j >= x), x=0..B */
    double *fl;             /* f_L(j), j = 0..N */
    double set_owners;      /* instructions whose fills fill a set: A / E[Y|Y>=1] */
    /* per-T scratch */
    double *lam;            /* Lambda(m), m = 0..N */
    double *ns;             /* N_s pmf over 0..B-1 (last: >= B-1) */
    double *ot;             /* P(O_j >= x), x = 0..E+1, one j at a time */
    double *fm, *fs;        /* f_M(j), f_S(j) */
    double *ovm, *ovs;      /* mean overflow of a refused load, store */
    double *R;              /* R_j, 16 per level */
    double *pi;             /* stationary law, NPH per level */
    unsigned long nsup;     /* support of ns */
    double mus;             /* store instructions in flight */
} sm_net;

static double *stail(const sm_net *n, unsigned long j)
{
    return n->st + j * (n->B + 1);
}

/* P(S_j >= x) for any integer x. */
static double s_ge(const sm_net *n, unsigned long j, long x)
{
    if (x <= 0) return 1;
    if (j > n->J) return 1; /* beyond J every S_j exceeds E */
    if ((unsigned long)x > n->B) x = (long)n->B;
    return stail(n, j)[x];
}

/* P(S_j + N_s >= x). */
static double o_ge(const sm_net *n, unsigned long j, long x)
{
    if (x <= 0) return 1;
    double tot = 0, below = 0;
    for (unsigned long y = 0; y < n->nsup && (long)y < x; y++) {
        if (n->ns[y] == 0) continue;
        tot += n->ns[y] * s_ge(n, j, x - (long)y);
        below += n->ns[y];
    }
    return tot + fmax(0, 1 - below);
}

static double binom_pmf(unsigned k, double p, unsigned r)
{
    if (p <= 0) return k == 0;
    if (p >= 1) return k == r;
    return gsl_ran_binomial_pdf(k, p, r);
}

/* Convolution of a (len la, last bin = overflow) with b (len lb) into
 * out (len la, last bin = overflow). */
static void conv_trunc(const double *a, size_t la, const double *b, size_t lb,
                       double *out)
{
    memset(out, 0, la * sizeof *out);
    for (size_t i = 0; i < la; i++) {
        if (a[i] == 0) continue;
        for (size_t k = 0; k < lb; k++) {
            size_t t = i + k < la - 1 ? i + k : la - 1;
            if (i == la - 1) t = la - 1;
            out[t] += a[i] * b[k];
        }
    }
}

static cm_status net_setup(sm_net *n, double *scratch, cm_err *err)
{
    const cm_mshr_input *in = n->in;
    /* line counts */
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
    double p = n->p, q0 = 0;
    memset(n->kp, 0, (n->rmax + 1) * sizeof *n->kp);
    n->p_allhit = n->p_mergeonly = 0;
    for (int v = 0; v < n->nr; v++) {
        for (unsigned k = 0; k <= n->rv[v]; k++)
            n->kp[k] += n->rp[v] * binom_pmf(k, p, n->rv[v]);
        n->p_allhit += n->rp[v] * pow(1 - n->mB, n->rv[v]);
        n->p_mergeonly += n->rp[v] * (pow(1 - p, n->rv[v]) -
                                      pow(1 - n->mB, n->rv[v]));
    }
    q0 = n->kp[0];
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

    /* S_j tails, j = 0..J, stopping once S_j exceeds E surely */
    unsigned long B = n->B;
    double *pmf = scratch, *next = scratch + B;
    memset(pmf, 0, B * sizeof *pmf);
    pmf[0] = 1;
    n->J = 0;
    for (unsigned long j = 0;; j++) {
        double *t = stail(n, j);
        t[B] = 0;
        for (unsigned long x = B; x-- > 0;) t[x] = t[x + 1] + pmf[x];
        n->J = j;
        if (j == n->N || n->pia <= 0 || t[B - 1] > 1 - 1e-13) break;
        conv_trunc(pmf, B, n->kp, n->rmax + 1, next);
        memcpy(pmf, next, B * sizeof *pmf);
    }

    /* ways: fills of a set */
    unsigned long A = n->A, S = (unsigned long)in->sets;
    unsigned long stride = (unsigned long)in->line_stride, g = S, s2 = stride;
    while (s2) { unsigned long t = g % s2; g = s2; s2 = t; }
    double period = (double)(S / g);
    /* two placements of an instruction's lines among the sets it reaches:
     * k = 0 at random (share kappa), k = 1 evenly */
    double kap = in->set_clustering, share[2] = {kap, 1 - kap};
    double dv[2][RMAX_VALUES], pl[2][RMAX_VALUES];
    unsigned lv[2][RMAX_VALUES];
    for (int v = 0; v < n->nr; v++) {
        dv[0][v] = period; /* each line falls in one of them */
        lv[0][v] = n->rv[v];
        pl[0][v] = p / period;
        dv[1][v] = fmin(n->rv[v], period); /* R/d lines in each of d */
        lv[1][v] = (unsigned)ceil(n->rv[v] / dv[1][v] - 1e-9);
        pl[1][v] = p;
    }
    double *y = scratch, *F = scratch + (A + 2), *Fn = F + (A + 2);
    memset(y, 0, (A + 2) * sizeof *y);
    for (int k = 0; k < 2; k++)
        for (int v = 0; v < n->nr && n->pia > 0; v++) {
            double par = 1 - pow(1 - p, n->rv[v]);
            if (par <= 0 || share[k] <= 0) continue;
            double wgt = share[k] * n->rp[v] * par / n->pia *
                         (dv[k][v] / (double)S);
            for (unsigned x = 1; x <= lv[k][v]; x++) {
                double b = binom_pmf(x, pl[k][v], lv[k][v]) / par;
                y[x < A + 1 ? x : A + 1] += wgt * b;
            }
        }
    { /* no fill here: the sets it does not reach, or none of its lines */
        double s = 0, s1 = 0;
        for (unsigned long x = 1; x < A + 2; x++) {
            s += y[x];
            s1 += (double)x * y[x];
        }
        y[0] = 1 - s;
        n->set_owners = s > 0 ? fmax(1, (double)A / (s1 / s)) : 1;
    }
    memset(F, 0, (A + 2) * sizeof *F);
    F[0] = 1;
    for (unsigned long j = 0; j <= n->N; j++) {
        double ok = 0;
        for (int k = 0; k < 2; k++)
            for (int v = 0; v < n->nr; v++) {
                double par = 1 - pow(1 - p, n->rv[v]);
                if (par <= 0 || n->pia <= 0 || share[k] <= 0) continue;
                double set_ok = 0;
                for (unsigned long f = 0; f <= A; f++) {
                    if (F[f] == 0) continue;
                    double own = 0;
                    for (unsigned x = 0; x <= lv[k][v] && x + f <= A; x++)
                        own += binom_pmf(x, pl[k][v], lv[k][v]);
                    set_ok += F[f] * own;
                }
                double pass = pow(set_ok, dv[k][v]) - pow(1 - p, n->rv[v]);
                ok += share[k] * n->rp[v] * par / n->pia * fmax(0, pass / par);
            }
        n->fl[j] = n->pia > 0 ? fmin(1, ok) * (1 - n->p_mergefull) : 1;
        if (j < n->N) {
            conv_trunc(F, A + 2, y, A + 2, Fn);
            memcpy(F, Fn, (A + 2) * sizeof *F);
        }
    }
    (void)err;
    return CM_OK;
}

/* Lambda(m), m = 0..N: exact MVA of the core (issue and LD/ST queues, the
 * short waits a delay). */
static void core_throughput(sm_net *n, double z)
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
static void store_pmf(sm_net *n)
{
    unsigned long BN = n->E + 2;
    if (!(n->w > 0) || !(n->mus > 0)) {
        n->ns[0] = 1;
        n->nsup = 1;
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
    if (x == BN) n->ns[BN - 1] += fmax(0, 1 - cum);
    n->nsup = x;
}

/* f_M(j) = P(O_j + K+ <= E), f_S(j) = P(O_j + R <= E), and the mean
 * overflow of a refused one, E[O_j + k - E | O_j + k > E] over its k
 * (ov_M, ov_S): the requests that must return before it is in.  Held
 * requests never exceed E, so with O capped there,
 *     E[(O + k - E)^+] = sum_{x = E-k+1}^{E} P(O >= x). */
static void fit_probs(sm_net *n)
{
    long E = (long)n->E;
    double *t = n->ot; /* t[x] = P(O_j >= x), x = 0..E+1 */
    for (unsigned long j = 0; j <= n->N; j++) {
        long lo = E + 1 - (long)n->rmax;
        if (lo < 0) lo = 0;
        for (long x = lo; x <= E + 1; x++) t[x] = o_ge(n, j, x);
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
}

/* ---- the chain ------------------------------------------------------------- */

typedef double mat4[NPH][NPH]; /* one block of the chain */

static int inv4(const mat4 a, mat4 out)
{
    double m[NPH][2 * NPH];
    for (int i = 0; i < NPH; i++)
        for (int k = 0; k < NPH; k++) {
            m[i][k] = a[i][k];
            m[i][NPH + k] = i == k;
        }
    for (int c = 0; c < NPH; c++) {
        int piv = c;
        for (int i = c + 1; i < NPH; i++)
            if (fabs(m[i][c]) > fabs(m[piv][c])) piv = i;
        if (m[piv][c] == 0) return 1;
        if (piv != c)
            for (int k = 0; k < 2 * NPH; k++) {
                double t = m[c][k];
                m[c][k] = m[piv][k];
                m[piv][k] = t;
            }
        double d = m[c][c];
        for (int k = 0; k < 2 * NPH; k++) m[c][k] /= d;
        for (int i = 0; i < NPH; i++) {
            if (i == c || m[i][c] == 0) continue;
            double f = m[i][c];
            for (int k = 0; k < 2 * NPH; k++) m[i][k] -= f * m[c][k];
        }
    }
    for (int i = 0; i < NPH; i++)
        for (int k = 0; k < NPH; k++) out[i][k] = m[i][NPH + k];
    return 0;
}

static double clamp01(double x)
{
    return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* The rates at which a refused load (u1) and a refused store (u3) at
 * level j >= 1 are let in.  The pool is full: its E requests return at
 * E / T a cycle, and the refused instruction is in once ov of them have
 * (u1_req, u3_in: within the level's returns), or once a returning
 * instruction makes room (with the chance e that it had room one
 * instruction earlier). */
typedef struct unblock {
    double u1, u1_req, u3, u3_in;
} unblock;

static unblock unblock_rates(const sm_net *n, unsigned long j, double T)
{
    unblock u;
    double depb = (double)(j + 1) / T, nu = (double)n->E / T;
    double em = clamp01((n->fm[j - 1] - n->fm[j]) / fmax(1e-300, 1 - n->fm[j]));
    double es = clamp01((n->fs[j - 1] - n->fs[j]) / fmax(1e-300, 1 - n->fs[j]));
    u.u1_req = nu / n->ovm[j];
    u.u1 = u.u1_req + depb * em;
    u.u3_in = nu / n->ovs[j];
    u.u3 = u.u3_in + depb * es;
    return u;
}

/* Blocks of level j: up (to j+1), within, down (to j-1). */
static void level_blocks(const sm_net *n, unsigned long j, double T,
                         mat4 up, mat4 in, mat4 down)
{
    memset(up, 0, sizeof(mat4));
    memset(in, 0, sizeof(mat4));
    memset(down, 0, sizeof(mat4));
    int replay = n->in->full_policy == CM_MSHR_REPLAY;
    double a = n->lam[n->N - j], pil = (1 - n->w) * n->pia;
    if (j < n->N) {
        double fm = n->fm[j], fl = n->fl[j];
        up[0][0] = replay ? a * pil * fm * fl : a * pil * fm * fl;
        if (!replay) {
            in[0][1] = a * pil * (1 - fm);
            in[0][2] = a * pil * fm * (1 - fl);
        }
    }
    if (!replay) in[0][3] = a * n->w * (1 - n->fs[j]);

    if (j == 0) {
        /* the instruction waits for its own first requests */
        if (n->N > 0) {
            up[1][4] = 1 / T;
            up[2][0] = 1 / T;
        }
        in[3][4] = 1 / T;
    } else {
        /* Open, the j instructions return at rate j / T.  Blocked, the
         * unit waits for the first of their replies: with round trips of
         * T and ages uniform over it (an arrival at a random moment), the
         * least residual is T / (j + 1), not the T / j memoryless
         * returns would give. */
        double dep = (double)j / T, depb = (double)(j + 1) / T;
        double em = clamp01((n->fm[j - 1] - n->fm[j]) / fmax(1e-300, 1 - n->fm[j]));
        double el = clamp01((n->fl[j - 1] - n->fl[j]) / fmax(1e-300, 1 - n->fl[j]));
        double es = clamp01((n->fs[j - 1] - n->fs[j]) / fmax(1e-300, 1 - n->fs[j]));
        down[0][0] = dep;
        {
            /* Released by returning requests, a load joins the level
             * above; by a returning instruction, it takes its place.
             * Either way it took each entry as it freed, and the pool is
             * full again (phase 4). */
            unblock u = unblock_rates(n, j, T);
            double up1 = j < n->N ? u.u1_req : 0;
            up[1][4] = up1;
            in[1][4] = u.u1 - up1;
            in[3][4] = u.u3_in;
            down[3][4] = u.u3 - u.u3_in;
        }
        down[1][1] = depb * (1 - em);
        /* A full set frees a way when one of the instructions holding
         * it returns: a return lets the waiting load in with the chance
         * e_L that the set had room one instruction earlier. */
        in[2][0] = depb * el;
        down[2][2] = depb * (1 - el);
        down[3][3] = depb * (1 - es);
        down[4][0] = dep;
    }
    /* Let in, the refused instruction took each entry as it freed
     * (sim/sm.c retries the line every cycle a reply frees one): the pool
     * is full until the next request returns.  A load that allocates, or
     * a store, arriving meanwhile is refused at once. */
    if (!replay) {
        in[4][1] = j < n->N ? a * pil : 0;
        in[4][3] = a * n->w;
    }
    in[4][0] = (double)n->E / T;
    for (int i = 0; i < NPH; i++) {
        double out = 0;
        for (int k = 0; k < NPH; k++) {
            out += up[i][k] + down[i][k];
            if (k != i) out += in[i][k];
        }
        in[i][i] = -out;
    }
}

/* pi over levels 0..N by linear level reduction:
 *   R_N = -U_{N-1} M_N^{-1},  M_N = I_N,
 *   R_j = -U_{j-1} (I_j + R_{j+1} D_{j+1})^{-1},
 *   pi_0 (I_0 + R_1 D_1) = 0,  pi_j = pi_{j-1} R_j. */
static cm_status chain_solve(sm_net *n, double T, cm_err *err)
{
    unsigned long N = n->N;
    mat4 up, in, down, uprev, inv, M;
    mat4 *R = (mat4 *)n->R;
    /* down blocks are needed from the level above: recompute */
    mat4 dnext;
    int have_next = 0;
    for (unsigned long j = N; j >= 1; j--) {
        level_blocks(n, j, T, up, in, down);
        memcpy(M, in, sizeof M);
        if (have_next) {
            /* M += R_{j+1} D_{j+1} */
            for (int i = 0; i < NPH; i++)
                for (int k = 0; k < NPH; k++) {
                    double s = 0;
                    for (int l = 0; l < NPH; l++) s += R[j + 1][i][l] * dnext[l][k];
                    M[i][k] += s;
                }
        }
        if (inv4(M, inv))
            return cm_err_set(err, CM_EINTERNAL,
                              "mshr model: singular level %lu", j);
        mat4 in0, dn0;
        level_blocks(n, j - 1, T, uprev, in0, dn0);
        for (int i = 0; i < NPH; i++)
            for (int k = 0; k < NPH; k++) {
                double s = 0;
                for (int l = 0; l < NPH; l++) s += uprev[i][l] * inv[l][k];
                R[j][i][k] = -s;
            }
        memcpy(dnext, down, sizeof dnext);
        have_next = 1;
    }
    level_blocks(n, 0, T, up, in, down);
    memcpy(M, in, sizeof M);
    if (N >= 1)
        for (int i = 0; i < NPH; i++)
            for (int k = 0; k < NPH; k++) {
                double s = 0;
                for (int l = 0; l < NPH; l++) s += R[1][i][l] * dnext[l][k];
                M[i][k] += s;
            }
    /* pi_0 = [1, x_1 .. x_{NPH-1}]: columns 1.. of pi_0 M = 0 */
    enum { U = NPH - 1 };
    double a3[U][U + 1];
    for (int c = 1; c < NPH; c++) {
        for (int i = 1; i < NPH; i++) a3[c - 1][i - 1] = M[i][c];
        a3[c - 1][U] = -M[0][c];
    }
    double x[U];
    for (int c = 0; c < U; c++) { /* Gauss-Jordan with pivoting */
        int piv = c;
        for (int i = c + 1; i < U; i++)
            if (fabs(a3[i][c]) > fabs(a3[piv][c])) piv = i;
        if (a3[piv][c] == 0) continue;
        if (piv != c)
            for (int k = 0; k <= U; k++) {
                double t = a3[c][k];
                a3[c][k] = a3[piv][k];
                a3[piv][k] = t;
            }
        for (int i = 0; i < U; i++) {
            if (i == c || a3[i][c] == 0) continue;
            double f = a3[i][c] / a3[c][c];
            for (int k = 0; k <= U; k++) a3[i][k] -= f * a3[c][k];
        }
    }
    for (int c = 0; c < U; c++)
        x[c] = a3[c][c] != 0 ? fmax(0, a3[c][U] / a3[c][c]) : 0;
    double *pi = n->pi;
    pi[0] = 1;
    for (int c = 0; c < U; c++) pi[c + 1] = x[c];
    double total = 0;
    for (int k = 0; k < NPH; k++) total += pi[k];
    for (unsigned long j = 1; j <= N; j++) {
        double s = 0;
        for (int k = 0; k < NPH; k++) {
            double v = 0;
            for (int i = 0; i < NPH; i++) v += pi[(j - 1) * NPH + i] * R[j][i][k];
            pi[j * NPH + k] = fmax(0, v);
            s += pi[j * NPH + k];
        }
        total += s;
        if (total > 1e200) { /* rescale what is there */
            for (unsigned long i = 0; i < (j + 1) * NPH; i++) pi[i] /= total;
            total = 1;
        }
    }
    if (!(total > 0) || !isfinite(total))
        return cm_err_set(err, CM_EINTERNAL, "mshr model: the chain has no "
                          "stationary law");
    for (unsigned long i = 0; i < (N + 1) * NPH; i++) pi[i] /= total;
    return CM_OK;
}

typedef struct sm_flow {
    double x_inst, x_mem, x_req, x_st;
} sm_flow;

/* The chain at T (the store population iterated to its fixed point). */
static cm_status sm_eval(sm_net *n, double T, sm_flow *fl, cm_err *err)
{
    double z = (1 - n->w) * (n->p_mergeonly * T / 2 +
                             n->p_allhit * n->in->hit_latency);
    core_throughput(n, z);
    n->mus = 0; /* the same start every time: g(T) is a function of T */
    for (int it = 0; it < 30; it++) {
        store_pmf(n);
        fit_probs(n);
        cm_status st = chain_solve(n, T, err);
        if (st) return st;
        double xi = 0, xm = 0;
        for (unsigned long j = 0; j <= n->N; j++) {
            const double *p = n->pi + j * NPH;
            xi += p[0] * n->lam[n->N - j];
            xi += p[4] * n->lam[n->N - j];
            xm += (p[0] + p[1] + p[2] + p[3] + p[4]) * (double)j / T;
        }
        /* Every instruction that reaches the unit sends its requests
         * (after a wait if refused): the requests follow from the
         * instruction rate, (1 - w) E[K] + w r each. */
        fl->x_inst = xi;
        fl->x_mem = xm;
        fl->x_st = n->w * xi;
        fl->x_req = xi * ((1 - n->w) * n->pia * n->ekp + n->w * n->r);
        double mus = fl->x_st * T;
        if (!(n->w > 0) || fabs(mus - n->mus) <= 1e-6 * (1 + mus)) {
            n->mus = mus;
            break;
        }
        n->mus = 0.5 * (n->mus + mus);
    }
    return CM_OK;
}

typedef struct root_ctx {
    sm_net *net;
    cm_status status;
    cm_err *err;
} root_ctx;

/* g(T) = T - T(X(T)), increasing in T. */
static double coupling_gap(double T, void *arg)
{
    root_ctx *rc = arg;
    sm_flow f;
    cm_status st = sm_eval(rc->net, T, &f, rc->err);
    if (st != CM_OK) {
        rc->status = st;
        return GSL_NAN;
    }
    double lat = memsys_eval(rc->net->in, f.x_req).latency;
    return T - fmin(lat, 1e300);
}

static cm_status check_input(const cm_mshr_input *in, cm_err *err)
{
    struct { const char *name; double v, lo, hi; } checks[] = {
        {"warps", in->warps, 1, 1e6},
        {"max_outstanding", in->max_outstanding, 1, 1e6},
        {"mem_rate", in->mem_rate, 1e-12, 1},
        {"reqs_per_inst", in->reqs_per_inst, 1, 1e6},
        {"write_frac", in->write_frac, 0, 1},
        {"l1_miss", in->l1_miss, 0, 1},
        {"merge_prob", in->merge_prob, 0, 0.999999},
        {"merge_limit", in->merge_limit, 1, 1e9},
        {"mshrs", in->mshrs, 1, 1e7},
        {"sets", in->sets, 1, 1e9},
        {"ways", in->ways, 1, 1e6},
        {"line_stride", in->line_stride, 1, 1e9},
        {"set_clustering", in->set_clustering, 0, 1},
        {"hit_latency", in->hit_latency, 0, 1e9},
        {"sms", in->sms, 1, 1e7},
        {"l2_miss", in->l2_miss, 0, 1},
        {"lat_l2", in->lat_l2, 0, 1e9},
        {"lat_dram", in->lat_dram, 0, 1e9},
        {"banks", in->banks, 1, 1e7},
        {"channels", in->channels, 1, 1e7},
        {"l2_mshrs_per_bank", in->l2_mshrs_per_bank, 1, 1e9},
        {"svc_noc_bank", in->svc_noc_bank, 0, 1e9},
        {"svc_noc_sm", in->svc_noc_sm, 0, 1e9},
        {"svc_l2", in->svc_l2, 0, 1e9},
        {"svc_dram", in->svc_dram, 0, 1e9},
        {"svc_scv", in->svc_scv, 0, 1e6},
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (!(checks[i].v >= checks[i].lo && checks[i].v <= checks[i].hi))
            return cm_err_set(err, CM_EINPUT,
                              "mshr model: %s = %g is outside [%g, %g]",
                              checks[i].name, checks[i].v, checks[i].lo,
                              checks[i].hi);
    double unloaded = (1 - in->l2_miss) * in->lat_l2 +
                      in->l2_miss * in->lat_dram + in->extra_latency;
    if (!(unloaded > 0))
        return cm_err_set(err, CM_EINPUT,
                          "mshr model: the unloaded miss latency %g must be "
                          "positive", unloaded);
    return CM_OK;
}

/* Lays the net's arrays out in ws. */
static cm_status net_alloc(cm_mshr_ws *ws, sm_net *n, double **scratch,
                           cm_err *err)
{
    size_t N = n->N, B = n->B, A = n->A;
    size_t cells = (N + 1) * (B + 1);
    if (cells > MAX_CELLS || A > 4096)
        return cm_err_set(err, CM_EINPUT,
                          "mshr model: %zu tokens x %zu MSHRs is beyond the "
                          "model's domain (at most %zu cells)", N,
                          (size_t)n->E, (size_t)MAX_CELLS);
    size_t need = (n->rmax + 1) + cells + (N + 1) /* fl */ + (N + 1) /* lam */
                  + (size_t)n->E + 2 /* ns */ + 4 * (N + 1) /* fm fs ovm ovs */ + (size_t)n->E + 2 /* ot */ +
                  (N + 1) * NPH * NPH /* R */ + (N + 1) * NPH /* pi */ +
                  2 * B + 3 * (A + 2) /* scratch */;
    if (need > ws->cap) {
        double *b = realloc(ws->buf, need * sizeof *b);
        if (!b) return cm_err_set(err, CM_EINTERNAL, "out of memory");
        ws->buf = b;
        ws->cap = need;
    }
    double *p = ws->buf;
    n->kp = p; p += n->rmax + 1;
    n->st = p; p += cells;
    n->fl = p; p += N + 1;
    n->lam = p; p += N + 1;
    n->ns = p; p += n->E + 2;
    n->fm = p; p += N + 1;
    n->fs = p; p += N + 1;
    n->ovm = p; p += N + 1;
    n->ovs = p; p += N + 1;
    n->ot = p; p += n->E + 2;
    n->R = p; p += (N + 1) * NPH * NPH;
    n->pi = p; p += (N + 1) * NPH;
    *scratch = p;
    return CM_OK;
}

/* Finds T* in [lo, ...) by doubling the upper end, then Brent. */
static cm_status find_latency(cm_mshr_ws *ws, root_ctx *rc, double lo,
                              double *root, int *iterations)
{
    gsl_function f = {coupling_gap, rc};
    double glo = coupling_gap(lo, rc);
    if (rc->status) return rc->status;
    if (glo >= -1e-12 * lo) { /* no queueing at all */
        *root = lo;
        *iterations = 0;
        return CM_OK;
    }
    double hi = 2 * lo;
    while (coupling_gap(hi, rc) <= 0) {
        if (rc->status) return rc->status;
        lo = hi;
        hi *= 2;
        if (hi > 1e15)
            return cm_err_set(rc->err, CM_EINTERNAL,
                              "mshr model: no latency fixed point below 1e15 "
                              "cycles");
    }
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int gst = gsl_root_fsolver_set(ws->brent, &f, lo, hi);
    int it = 0;
    while (gst == GSL_SUCCESS && it < 200) {
        it++;
        gst = gsl_root_fsolver_iterate(ws->brent);
        if (gst != GSL_SUCCESS || rc->status) break;
        double a = gsl_root_fsolver_x_lower(ws->brent);
        double b = gsl_root_fsolver_x_upper(ws->brent);
        if (gsl_root_test_interval(a, b, 0, 1e-9) == GSL_SUCCESS) break;
    }
    gsl_set_error_handler(old);
    if (rc->status) return rc->status;
    if (gst != GSL_SUCCESS)
        return cm_err_set(rc->err, CM_EINTERNAL,
                          "mshr model: root finder failed: %s",
                          gsl_strerror(gst));
    *root = gsl_root_fsolver_root(ws->brent);
    *iterations = it;
    return CM_OK;
}

static void fill_no_misses(const cm_mshr_input *in, double unloaded,
                           cm_mshr_result *res, double *occupancy_pmf)
{
    res->latency_mem = res->latency_eff = unloaded;
    res->inst_rate = in->mem_rate;
    res->issue_fraction = 1;
    if (occupancy_pmf) {
        memset(occupancy_pmf, 0, ((size_t)in->mshrs + 1) * sizeof(double));
        occupancy_pmf[0] = 1;
    }
}

cm_status cm_mshr_solve(const cm_mshr_input *in, cm_mshr_ws *ws,
                        cm_mshr_result *res, double *occupancy_pmf,
                        cm_err *err)
{
    cm_status st = check_input(in, err);
    if (st) return st;
    memset(res, 0, sizeof *res);

    sm_net n = {.in = in};
    n.w = in->write_frac;
    n.mB = in->write_frac < 1
               ? clamp01((in->l1_miss - in->write_frac) / (1 - in->write_frac))
               : 0;
    n.q = in->merge_prob;
    n.p = n.mB * (1 - n.q);
    n.c = 1 / in->mem_rate;
    n.r = in->reqs_per_inst;
    n.N = (unsigned long)fmax(1, round(in->warps * in->max_outstanding));
    n.E = (unsigned long)in->mshrs;
    n.A = (unsigned long)in->ways;
    res->sources = n.N;

    memsys_state idle = memsys_eval(in, 0);
    if (n.p <= 0 && n.w <= 0) {
        fill_no_misses(in, idle.latency, res, occupancy_pmf);
        return CM_OK;
    }
    /* rmax before allocating */
    n.rmax = in->reqs_bimodal && in->reqs_per_inst <= 32
                 ? 32
                 : (unsigned)floor(in->reqs_per_inst) + 1;
    /* S_j lives in 0 .. min(E + 1, N rmax): bins to there, the last one
     * ">= E + 1" */
    n.B = (unsigned long)fmin((double)n.E + 2, (double)n.N * n.rmax + 2);
    double *scratch = NULL;
    st = net_alloc(ws, &n, &scratch, err);
    if (!st) st = net_setup(&n, scratch, err);
    if (st) return st;

    root_ctx rc = {&n, CM_OK, err};
    double T = idle.latency;
    st = find_latency(ws, &rc, idle.latency, &T, &res->iterations);
    if (st) return st;
    sm_flow f;
    st = sm_eval(&n, T, &f, err);
    if (st) return st;

    /* occupancy over the chain */
    unsigned long E = n.E;
    if (occupancy_pmf) memset(occupancy_pmf, 0, (E + 1) * sizeof(double));
    double busy = 0, p_full = 0, st_m = 0, st_l = 0, refused = 0;
    for (unsigned long j = 0; j <= n.N; j++) {
        const double *p = n.pi + j * NPH;
        double blocked = p[1] + p[3] + p[4], open = p[0] + p[2];
        st_m += p[1] + p[3];
        st_l += p[2];
        double a = n.lam[n.N - j];
        if (j < n.N)
            refused += p[0] * a * ((1 - n.w) * n.pia *
                                   (1 - n.fm[j] * n.fl[j]) +
                                   n.w * (1 - n.fs[j])) +
                       p[4] * a * ((1 - n.w) * n.pia + n.w);
        if (!(open > 0) && !(blocked > 0)) continue;
        /* In (j,0) the unit may be taking the lines of an instruction
         * that will not fit: they go in until the pool is full, and it
         * stays full (the unit's busy fraction times that chance). */
        double ub = 0;
        if (j < n.N)
            ub = clamp01(a * n.r) * ((1 - n.w) * n.pia * (1 - n.fm[j]) +
                                     n.w * (1 - n.fs[j]));
        double spread = p[2] + p[0] * (1 - ub), pinned = blocked + p[0] * ub;
        /* Open, the j instructions in flight all fit: O_j given O_j <= E
         * (the draw's overflow, where it is nearly sure, counts as full). */
        unsigned long top = j * n.rmax + n.nsup; /* O_j < top */
        if (top > E) top = E;
        double over = top < E ? 0 : o_ge(&n, j, (long)E + 1);
        double fit = 1 - over;
        if (fit < 1e-6) {
            pinned += spread;
            spread = 0;
            fit = 1;
            over = 0;
        }
        double prev = 1, mean = 0;
        for (unsigned long x = 1; x <= top; x++) {
            double t = o_ge(&n, j, (long)x);
            mean += (t - over) / fit;
            if (occupancy_pmf && x < E)
                occupancy_pmf[x - 1] += spread * (prev - t) / fit;
            if (x < E || top < E) prev = t;
        }
        double at_top = top < E ? 0 : (o_ge(&n, j, (long)E) - over) / fit;
        if (occupancy_pmf) {
            if (top == E) /* x = E - 1's bin, then E's */
                occupancy_pmf[E - 1] += spread * ((E >= 2 ? o_ge(&n, j, (long)E - 1) : 1) - o_ge(&n, j, (long)E)) / fit;
            occupancy_pmf[E] += spread * at_top + pinned;
        }
        busy += pinned * (double)E + spread * mean;
        p_full += pinned + spread * at_top;
    }
    memsys_state ms = memsys_eval(in, f.x_req);

    res->mean_occupancy = fmin(busy, (double)E);
    res->p_full = clamp01(p_full);
    res->p_stall_mshr = clamp01(st_m);
    res->p_stall_line = clamp01(st_l);
    res->p_resfail = f.x_inst > 0 ? clamp01(refused / f.x_inst) : 0;
    res->miss_throughput = f.x_req;
    res->merge_rate = f.x_inst * (1 - n.w) * n.r * n.mB * n.q;
    res->merge_full_rate = f.x_inst * (1 - n.w) * n.p_mergefull;
    res->inst_rate = f.x_inst;
    res->issue_fraction = clamp01(f.x_inst / in->mem_rate);
    res->latency_mem = T;
    res->mshr_wait = f.x_inst > 0 ? st_m / f.x_inst : 0;
    res->latency_eff = T + res->mshr_wait;
    res->bandwidth_gbs = in->sms * f.x_req * in->line_bytes *
                         in->core_clock_mhz * 1e-3;
    res->util[CM_RES_WARPS] = res->issue_fraction;
    res->util[CM_RES_MSHR] = res->mean_occupancy / in->mshrs;
    res->util[CM_RES_NOC] = ms.rho_noc;
    res->util[CM_RES_L2] = ms.rho_l2;
    res->util[CM_RES_L2_MSHR] = ms.util_l2_mshr;
    res->util[CM_RES_DRAM] = ms.rho_dram;

    /* The bottleneck is the busiest shared resource; when none is busier
     * than half, the warps' own issue rate and latency bound the SM. */
    res->bottleneck = CM_RES_WARPS;
    double worst = 0.5;
    for (int r = CM_RES_MSHR; r < CM_RES_COUNT; r++)
        if (res->util[r] > worst) {
            worst = res->util[r];
            res->bottleneck = (cm_mshr_resource)r;
        }
    res->saturated = res->bottleneck != CM_RES_WARPS && worst >= 0.9;
    return CM_OK;
}
