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
 * MSHRs, 4 it takes instructions with the pool just filled.  The requests in flight are O_j = S_j + N_s, S_j the sum of j
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
 *    f_M(j)) (the tail of O given it did not fit at j).  Let in by
 *    returning requests, the load joins the level above (j+1, 4); by a
 *    returning instruction, it takes its place (j, 4).  Either way it
 *    took each entry as one freed (sim/sm.c retries the refused line
 *    every cycle a reply frees an entry), so the pool is full: in (j, 4)
 *    a load that allocates or a store is refused at once, and the next
 *    returning request (E / T) opens the pool, (j, 0);
 *  - for a way, by a returning instruction that held the set, e_L(j)
 *    likewise from f_L.
 * Blocked, the next return comes after T / (j + 1), the least of j + 1
 * uniform residuals of a round trip T (not the T / j of memoryless
 * returns).  At j = 0 a refused instruction waits for its own first
 * requests (K > E: the unit sends E and waits T).  The chain moves one
 * level at a time: a level-dependent QBD solved exactly by linear level
 * reduction (5 x 5 blocks, O(N); mshr_chain.c).  Every instruction that reaches the
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
 * Outputs.  In (j,1), (j,3) and (j,4) every MSHR is in use; in (j,0)
 * and (j,2) the j instructions in flight all fit, O_j given O_j <= E
 * (where that is nearly impossible, below 1e-6, the pool counts as
 * full), except that in (j,0) the unit may be taking the lines of an
 * instruction that will not fit, which fill the pool (chance: the
 * unit's busy fraction a_j r times the refusal chance).  Mean occupancy,
 * P(full) and the occupancy pmf follow by summing over the chain.  So the
 * burstiness of an instruction's R lines (a 32-line gather fills 16 MSHRs
 * at once) and the time the unit spends blocked (P(full) between 0 and 1,
 * not a steady state that saturates) come out of the same chain.  The
 * probabilities reported read 0 below 1e-12, the chain's accuracy (its
 * law sums to 1 over 5 (N + 1) states).
 *
 * The memory system.  Requests of all S SMs (symmetric) are spread evenly
 * over B L2 banks and, after an L2 miss ratio m2, over C DRAM channels.
 * Each of the reply port of a bank, the reply port into an SM, the L2
 * bank's in-order tag pipeline and a DRAM channel is an M/G/1 station with
 * the Pollaczek-Khinchine wait (deterministic service by default), so
 *     T(X) = (1 - m2) t_L2 + m2 t_DRAM + W_port,bank + W_port,SM + W_L2
 *            + m2 W_DRAM + t_extra.
 * T* is the root of g(T) = T - T(X(T)) (X falls as T grows), solved
 * jointly with the store population's own fixed point in mshr_fixed.c:
 * 8-12 chain solves, ~0.1 ms a point at 48 warps (the first solver took
 * ~250, 4-24 ms; cm_mshr_ws_direct still runs it, for tests).
 *
 * Assumptions, to be read before trusting a number:
 *  - exponential holding times in the chain (the stationary law of a
 *    birth-death chain does not depend on them; with blocking it does)
 *    and a product-form core (GTO and LRR issue alike);
 *  - O_j given j is drawn afresh once the pool has opened: the chain
 *    remembers that a refused instruction filled the pool (phase 4) only
 *    until the first request returns;
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
 * Measured domain (held-out points; the simulator runs once, a rerun with
 * --resume on the same --out refits the model only).  P(full) mean
 * |error| and occupancy MARE, this model [the branch's first chain]:
 *   build/cohmod validate mshr  (tc2013; kmn bfs cfd, 8-32 MSHRs, 8-48
 *     warps): 0.035 [0.062], 2.1% [3.6%];
 *   build/cohmod validate mshr --design lhs:200 --seed 1  (all 25
 *     workloads, both presets, 4-128 MSHRs, 4-48 warps): 0.054 [0.061],
 *     6.4% [7.0%]; tc2013 0.041, 3.2%; li2014 0.067, 9.5%;
 *   ... --seed 2: 0.053 [0.067], 6.7% [8.0%]; tc2013 0.034, 3.9%;
 *     li2014 0.072, 9.7%.
 * Within the targets (10%, 0.05) on the home grid and on tc2013 over the
 * whole design; not yet on li2014: the worst points are way-limited runs
 * (scluster, atax, bicg, mvt at 34-88 MSHRs), where the simulator's pool
 * is full 0.08-0.54 of the time and the model's 0.67-0.95, and few-warp
 * runs (8 warps) where the model holds the pool full 0.1-0.3 longer. */
#include "models/mshr.h"
#include "models/mshr_impl.h"

#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/queue.h"

#define MAX_CELLS ((size_t)1 << 23) /* doubles of all S_j pmfs at most */
#define clamp01 cm_mshr_clamp01

struct cm_mshr_ws {
    double *buf;
    size_t cap;
    gsl_root_fsolver *brent;
    int direct; /* cm_mshr_ws_direct */
};

void cm_mshr_ws_direct(cm_mshr_ws *ws, int on)
{
    ws->direct = on != 0;
}

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

memsys_state cm_mshr_memsys(const cm_mshr_input *in, double x)
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
                  + 2 * ((size_t)n->E + 3) /* ns nscum */ + 7 * (N + 1) /* fm fs ovm ovs em el es */ + 2 * ((size_t)n->E + 2) /* ot, twice */ +
                  (N + 1) * NPH * NPH /* R */ + (N + 1) * NPH /* pi */ +
                  2 * B + 3 * (A + 2) /* scratch */ +
                  2 * RMAX_VALUES * (A + 1) /* the ways' binomial cdfs */;
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
    n->ns = p; p += n->E + 3;
    n->nscum = p; p += n->E + 3;
    n->fm = p; p += N + 1;
    n->fs = p; p += N + 1;
    n->ovm = p; p += N + 1;
    n->ovs = p; p += N + 1;
    n->em = p; p += N + 1;
    n->el = p; p += N + 1;
    n->es = p; p += N + 1;
    n->ot = p; p += 2 * (n->E + 2);
    n->R = p; p += (N + 1) * NPH * NPH;
    n->pi = p; p += (N + 1) * NPH;
    *scratch = p;
    return CM_OK;
}

/* A probability summed over the chain's states: in [0, 1], and 0 below
 * PROB_FLOOR.  The law is normalised to 1 over (N + 1) x 5 states, so a
 * sum of them is good to a few ulps of 1 times the states (48 warps: about
 * 1e-13), and a pool no load fills in practice read P(full) 1e-13 to 1e-18
 * (a figure's log axis then spans 10^-18 of noise). */
#define PROB_FLOOR 1e-12

static double prob_out(double x)
{
    return x < PROB_FLOOR ? 0 : clamp01(x);
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

typedef struct occ_sums {
    double busy, p_full, st_m, st_l, refused;
} occ_sums;

/* Level j's share of the outputs; t[x] = P(O_j >= x), x = 0..E+1. */
static void level_occupancy(const sm_net *n, unsigned long j, const double *t,
                            double *pmf, occ_sums *o)
{
    unsigned long E = n->E;
    const double *p = n->pi + j * NPH;
    double blocked = p[1] + p[3] + p[4], open = p[0] + p[2];
    o->st_m += p[1] + p[3];
    o->st_l += p[2];
    double a = n->lam[n->N - j];
    if (j < n->N)
        o->refused += p[0] * a * ((1 - n->w) * n->pia *
                                  (1 - n->fm[j] * n->fl[j]) +
                                  n->w * (1 - n->fs[j])) +
                      p[4] * a * ((1 - n->w) * n->pia + n->w);
    if (!(open > 0) && !(blocked > 0)) return;
    /* In (j,0) the unit may be taking the lines of an instruction that
     * will not fit: they go in until the pool is full, and it stays full
     * (the unit's busy fraction times that chance). */
    double ub = 0;
    if (j < n->N)
        ub = clamp01(a * n->r) * ((1 - n->w) * n->pia * (1 - n->fm[j]) +
                                  n->w * (1 - n->fs[j]));
    double spread = p[2] + p[0] * (1 - ub), pinned = blocked + p[0] * ub;
    /* Open, the j instructions in flight all fit: O_j given O_j <= E (the
     * draw's overflow, where it is nearly sure, counts as full). */
    unsigned long top = j * n->rmax + n->nsup; /* O_j < top */
    if (top > E) top = E;
    double over = top < E ? 0 : t[E + 1];
    double fit = 1 - over;
    if (fit < 1e-6) {
        pinned += spread;
        spread = 0;
        fit = 1;
        over = 0;
    }
    /* E[O_j | fit] = sum_x P(O_j >= x | fit): four partial sums (the
     * additions overlap) and one division, not one a term */
    double part[4] = {0, 0, 0, 0}, mean;
    unsigned long x = 1;
    for (; x + 3 <= top; x += 4)
        for (int k = 0; k < 4; k++) part[k] += t[x + k] - over;
    for (; x <= top; x++) part[0] += t[x] - over;
    mean = ((part[0] + part[1]) + (part[2] + part[3])) / fit;
    if (pmf) {
        double prev = 1;
        for (x = 1; x <= top; x++) {
            if (x < E) pmf[x - 1] += spread * (prev - t[x]) / fit;
            if (x < E || top < E) prev = t[x];
        }
    }
    double at_top = top < E ? 0 : (t[E] - over) / fit;
    if (pmf) {
        if (top == E) /* x = E - 1's bin, then E's */
            pmf[E - 1] += spread * ((E >= 2 ? t[E - 1] : 1) - t[E]) / fit;
        pmf[E] += spread * at_top + pinned;
    }
    o->busy += pinned * (double)E + spread * mean;
    o->p_full += pinned + spread * at_top;
}

/* Mean occupancy, P(full), the stalls and refusals (and the occupancy
 * pmf) summed over the chain's levels, O_j's tails carried up a level at
 * a time in n->ot and the scratch after it. */
static void occupancy_over_chain(sm_net *n, double *pmf, occ_sums *o)
{
    double *t = n->ot, *tn = n->ot + n->E + 2;
    if (pmf) memset(pmf, 0, (n->E + 1) * sizeof(double));
    cm_mshr_o_tails_first(n, t);
    for (unsigned long j = 0; j <= n->N; j++) {
        if (j > 0) {
            cm_mshr_o_tails_next(n, t, tn);
            double *sw = t;
            t = tn;
            tn = sw;
        }
        level_occupancy(n, j, t, pmf, o);
    }
}

cm_status cm_mshr_solve(const cm_mshr_input *in, cm_mshr_ws *ws,
                        cm_mshr_result *res, double *occupancy_pmf,
                        cm_err *err)
{
    cm_status st = check_input(in, err);
    if (st) return st;
    memset(res, 0, sizeof *res);

    sm_net n = {.in = in, .probs_mus = NAN};
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

    memsys_state idle = cm_mshr_memsys(in, 0);
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
    if (!st) st = cm_mshr_net_setup(&n, scratch, err);
    if (st) return st;

    double T;
    sm_flow f;
    st = cm_mshr_fixed_point(&n, ws->brent, ws->direct, idle.latency, &T, &f,
                             &res->iterations, err);
    if (st) return st;

    occ_sums o = {0};
    occupancy_over_chain(&n, occupancy_pmf, &o);
    memsys_state ms = cm_mshr_memsys(in, f.x_req);

    res->mean_occupancy = fmin(o.busy, (double)n.E);
    res->p_full = prob_out(o.p_full);
    if (occupancy_pmf && res->p_full == 0) occupancy_pmf[n.E] = 0; /* as it */
    res->p_stall_mshr = prob_out(o.st_m);
    res->p_stall_line = prob_out(o.st_l);
    res->p_resfail = f.x_inst > 0 ? prob_out(o.refused / f.x_inst) : 0;
    res->miss_throughput = f.x_req;
    /* A load miss finds its line in flight (q); its entry already holds
     * M accesses with chance q^(M-1) (waiters geometric), and then it is
     * refused (l1.c FAIL_MERGE) instead of merging. */
    double load_misses = f.x_inst * (1 - n.w) * n.r * n.mB;
    double entry_full = pow(n.q, in->merge_limit - 1);
    res->merge_rate = load_misses * n.q * (1 - entry_full);
    res->merge_full_rate = load_misses * n.q * entry_full;
    res->inst_rate = f.x_inst;
    res->issue_fraction = clamp01(f.x_inst / in->mem_rate);
    res->latency_mem = T;
    res->mshr_wait = f.x_inst > 0 ? o.st_m / f.x_inst : 0;
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

